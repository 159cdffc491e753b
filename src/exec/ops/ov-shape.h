/* The index arithmetic of the data-movement ops, once for the CPU kernels (src/exec/cpu/shape.c) and the CUDA
 * kernels (src/exec/cuda/shape.cu): which elements a Slice takes along an axis, where a padded position reads
 * from, how Split cuts an axis into equal parts, and the per-element mapping of an output position to the input
 * element it copies.  Static inline OV_HD functions in plain C, like ops/ov-math.h, so both builds run the same
 * expressions. */
#ifndef OV_EXEC_OV_SHAPE_H
#define OV_EXEC_OV_SHAPE_H

#include <stdint.h>

#include "src/exec/ops/ov-math.h"

/* ---- Slice ----
 * Along an axis of dim elements, starts/ends as ONNX gives them (negative: from the end; clamped to the axis, to
 * [0, dim] for a positive step and to [0, dim-1] / [-1, dim-1] for a negative one), step != 0: the first element
 * taken (*first) and how many (the return value). */
static inline OV_HD int64_t ov_slice_axis(int64_t dim, int64_t s, int64_t e, int64_t step, int64_t *first)
{
	int64_t n;

	if (s < 0)
		s += dim;
	if (e < 0)
		e += dim;
	if (step > 0) {
		s = s < 0 ? 0 : s > dim ? dim : s;
		e = e < 0 ? 0 : e > dim ? dim : e;
		n = e > s ? 1 + (e - s - 1) / step : 0;
	} else {
		s = s < 0 ? 0 : s > dim - 1 ? dim - 1 : s;
		e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
		int64_t mag = step == INT64_MIN ? INT64_MAX : -step;
		n = s > e ? 1 + (s - e - 1) / mag : 0;
	}
	*first = s;
	return n;
}

/* ---- Pad ----
 * Position i of a padded axis, counted from the first element kept (negative: in the leading pad), against the
 * dc elements kept: the kept element it copies, or -1 for the constant.  Reflect mirrors without repeating the
 * edge (a single element repeats), edge repeats the edge, wrap goes round; dc must be positive for all but
 * constant. */
enum ov_pad_mode { OV_PAD_CONSTANT, OV_PAD_REFLECT, OV_PAD_EDGE, OV_PAD_WRAP };

static inline OV_HD int64_t ov_pad_source(int64_t i, int64_t dc, int mode)
{
	if (i >= 0 && i < dc)
		return i;
	switch (mode) {
	case OV_PAD_EDGE: return i < 0 ? 0 : dc - 1;
	case OV_PAD_WRAP: return ((i % dc) + dc) % dc;
	case OV_PAD_REFLECT: {
		if (dc == 1)
			return 0;
		int64_t p = 2 * (dc - 1);
		i = ((i % p) + p) % p;
		return i >= dc ? p - i : i;
	}
	default: return -1;
	}
}

/* ---- Split ----
 * Part i of n equal parts of an axis of len elements when no sizes are given: ceil(len / n) each, the last ones
 * smaller or empty when n does not divide len (opset 18's rule, which earlier opsets' even split agrees with). */
static inline OV_HD int64_t ov_split_part(int64_t len, int64_t n, int64_t i)
{
	int64_t each = n ? (len + n - 1) / n : 0, start = each * i;
	return start >= len ? 0 : start + each > len ? len - start : each;
}

/* ---- Transpose ----
 * Whether a Transpose of an input of these dims by perm (a permutation of 0..rank-1) leaves every element where it
 * is: the axes longer than 1 keep their order, only axes of length 1 move (torch's exports swap a batch of 1 with
 * the sequence: [1, L, E] to [L, 1, E]).  Such a Transpose is a reshape, and its kernels need not copy. */
static inline OV_HD int ov_perm_keeps_order(int rank, const int64_t *dims, const int *perm)
{
	int last = -1;

	for (int a = 0; a < rank; a++) {
		if (dims[perm[a]] == 1)
			continue;
		if (perm[a] < last)
			return 0;
		last = perm[a];
	}
	return 1;
}

/* ---- mapped copies ----
 * out[idx] = in[sum over axes a of tab[at[a] + idx_a]]: the offset table holds, for each output axis, one input
 * element offset per output position along it (sum of the output dims in all), -1 where the position is padding
 * (the output element is then the fill).  Slice, Expand, Tile, Pad and Transpose are all such a table; the CPU
 * (cpu/shape.c's map_copy) walks it row by row, a CUDA thread maps one output element with ov_map_source.  Where
 * every axis's offsets are a line (Transpose, Slice, Expand: base + idx_a * stride[a]) the map is affine and
 * needs no table. */
struct ov_map {
	int rank;
	int affine;           /* no table: base + the sum of idx_a * stride[a] */
	int64_t base;
	int64_t dims[16];     /* the output's (XT_MAX_RANK) */
	int64_t at[16];       /* where each axis's entries start in the table */
	int64_t stride[16];   /* affine: input elements per step along each output axis */
};

/* The input element output element i copies, or -1 for the fill. */
static inline OV_HD int64_t ov_map_source(const struct ov_map *m, const int64_t *tab, int64_t i)
{
	int64_t src = m->affine ? m->base : 0;
	int pad = 0;

	for (int a = m->rank - 1; a >= 0; a--) {
		int64_t q = i / m->dims[a], j = i - q * m->dims[a];
		if (m->affine) {
			src += j * m->stride[a];
		} else {
			int64_t v = tab[m->at[a] + j];
			pad |= v < 0;
			src += v;
		}
		i = q;
	}
	return pad ? -1 : src;
}

#endif
