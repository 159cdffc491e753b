/* CPU kernels for tensor plumbing: Constant, Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat,
 * Split, Slice, Expand, Tile, Pad, CenterCropPad, ConstantOfShape, Range, Trilu, CumSum, CumProd.
 *
 * These ops move elements without looking at them, so they copy bytes of any element size; strings (char * per
 * element) are moved as pointers and then duplicated at the end (own_strings), so every op handles them the same
 * way.  Output shapes follow the shape rules of src/graph/shape-tensor.c; what those leave open at inference time (values
 * of shape inputs) is checked here (for ConstantOfShape, Range, Trilu, CumSum, CumProd and CenterCropPad in
 * ops/index.c, which the CUDA kernels share), failing with one line rather than reading or allocating out of
 * bounds. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/ops/ops.h"
#include "src/exec/exec.h"
#include "src/exec/ops/index.h"
#include "src/exec/ops/ov-shape.h"

#define MAXR XT_MAX_RANK

/* ---- helpers ---------------------------------------------------------------------------------------------- */

static int norm_axis(struct exec_kernel_ctx *k, int64_t a, int rank, const char *what, int *out)
{
	*out = 0;
	if (a < -(int64_t)rank || a >= rank)
		return xk_fail(k, "%s %" PRId64 " is out of range for rank %d", what, a, rank);
	*out = (int)(a < 0 ? a + rank : a);
	return 0;
}

/* a * b for non-negative dims, -1 on overflow. */
static int64_t mul_dims(int64_t a, int64_t b)
{
	if (a && b > INT64_MAX / a)
		return -1;
	return a * b;
}

static void strides_of(int rank, const int64_t *d, int64_t *s)
{
	int64_t acc = 1;
	for (int i = rank - 1; i >= 0; i--) {
		s[i] = acc;
		acc *= d[i];
	}
}

/* out[idx] = in[sum_a off[a][idx_a]] over out's index space (element offsets); any offset of -1 gives the fill
 * element (zero bytes when fill is NULL).  The workhorse of Slice, Expand, Tile and Pad: off has one entry per
 * output index per axis, so its size is the sum of the output dims, never their product. */
static void map_copy(struct xtensor *out, const struct xtensor *in, int64_t *const *off, const void *fill)
{
	size_t es = xt_elem_size(out->dtype);
	int r = out->rank;
	char *o = out->data;
	const char *src = in->data;

	if (!out->numel)
		return;
	if (r == 0) {
		memcpy(o, src, es);
		return;
	}
	int64_t idx[MAXR] = {0}, last = out->dims[r - 1];
	const int64_t *lo = off[r - 1];
	int contiguous = 1;
	for (int64_t j = 0; j < last && contiguous; j++)
		contiguous = lo[j] == lo[0] + j && lo[j] >= 0;
	for (;;) {
		int64_t base = 0;
		int padded = 0;
		for (int a = 0; a < r - 1; a++) {
			int64_t v = off[a][idx[a]];
			if (v < 0)
				padded = 1;
			base += v;
		}
		if (padded) {
			for (int64_t j = 0; j < last; j++, o += es) {
				if (fill)
					memcpy(o, fill, es);
				else
					memset(o, 0, es);
			}
		} else if (contiguous) {
			memcpy(o, src + (size_t)(base + lo[0]) * es, (size_t)last * es);
			o += (size_t)last * es;
		} else if (es == 4) {
			for (int64_t j = 0; j < last; j++, o += 4) {
				if (lo[j] < 0) {
					if (fill)
						memcpy(o, fill, 4);
					else
						memset(o, 0, 4);
				} else
					memcpy(o, src + (size_t)(base + lo[j]) * 4, 4);
			}
		} else {
			for (int64_t j = 0; j < last; j++, o += es) {
				if (lo[j] < 0) {
					if (fill)
						memcpy(o, fill, es);
					else
						memset(o, 0, es);
				} else
					memcpy(o, src + (size_t)(base + lo[j]) * es, es);
			}
		}
		int a = r - 2;
		for (; a >= 0; a--) {
			if (++idx[a] < out->dims[a])
				break;
			idx[a] = 0;
		}
		if (a < 0)
			break;
	}
}

/* Per-axis offset tables for map_copy, one block. */
struct offsets {
	int64_t *off[MAXR];
	int64_t *pool;
};

static int offsets_alloc(struct exec_kernel_ctx *k, struct offsets *t, const struct xtensor *out)
{
	int64_t total = 0;
	memset(t, 0, sizeof *t);
	for (int a = 0; a < out->rank; a++)
		total += out->dims[a];
	t->pool = malloc((size_t)(total ? total : 1) * sizeof *t->pool);
	if (!t->pool)
		return xk_fail(k, "out of memory");
	int64_t at = 0;
	for (int a = 0; a < out->rank; a++) {
		t->off[a] = t->pool + at;
		at += out->dims[a];
	}
	return 0;
}

/* Output 0 as a same-content copy of x with other dims (Reshape, Flatten, Squeeze, Unsqueeze). */
static int copy_reshaped(struct exec_kernel_ctx *k, const struct xtensor *x, int rank, const int64_t *dims)
{
	if (xk_numel(rank, dims) != x->numel)
		return xk_fail(k, "internal: element count changes");
	if (xk_take_input(k, 0, 0, rank, dims)) /* the node is x's last reader: x itself */
		return 0;
	if (xk_output(k, 0, x->dtype, rank, dims))
		return -1;
	if (x->bytes)
		memcpy(k->out[0]->data, x->data, x->bytes);
	return xk_own_strings(k, k->out[0]);
}

/* ---- Constant, Shape, Size ---------------------------------------------------------------------------------- */

static int k_constant(struct exec_kernel_ctx *k)
{
	/* the runner folds Constant nodes itself; this kernel is for callers that run the node directly */
	xt_free(k->out[0]);
	return exec_constant_value(k->m, k->g->nodes[k->node].proto, k->out[0], k->err);
}

/* ---- Reshape, Flatten, Squeeze, Unsqueeze ------------------------------------------------------------- */

static int k_reshape_run(struct exec_kernel_ctx *k, int v)
{
	const struct xtensor *x, *s = xk_in(k, 1);
	int64_t want[MAXR], n;
	int allowzero = (int)xk_attr_int(k, "allowzero", 0);

	if (ops_need_x(k, &x))
		return -1;
	if (v < 5) {
		if ((n = xk_attr_ints(k, "shape", want, MAXR)) < 0)
			return xk_fail(k, "Reshape-1 has no shape attribute");
		if (n > MAXR)
			return xk_fail(k, "target rank %" PRId64 " is over %d", n, MAXR);
	} else {
		if (!s)
			return xk_fail(k, "the shape input is missing");
		if ((n = ops_host_ints(k, s, want, MAXR, "the shape")) < 0)
			return -1;
	}
	int infer_at = -1, has_zero = 0;
	int64_t rest = 1;
	for (int64_t i = 0; i < n; i++) {
		if (want[i] == -1) {
			if (infer_at >= 0)
				return xk_fail(k, "the target shape has more than one -1");
			infer_at = (int)i;
			continue;
		}
		if (want[i] < 0)
			return xk_fail(k, "the target shape has a negative entry %" PRId64 " at %" PRId64, want[i], i);
		if (want[i] == 0) {
			has_zero = 1;
			if (!allowzero) {
				if (i >= x->rank)
					return xk_fail(k, "the target shape has 0 at %" PRId64 " (copy the input dim) but the input "
						       "has rank %d", i, x->rank);
				want[i] = x->dims[i];
			}
		}
		if ((rest = mul_dims(rest, want[i])) < 0)
			return xk_fail(k, "the target shape's element count overflows");
	}
	if (allowzero && has_zero && infer_at >= 0)
		return xk_fail(k, "the target shape has both 0 and -1 with allowzero=1");
	if (infer_at >= 0) {
		if (rest == 0)
			return xk_fail(k, "cannot infer the -1 dim: the other dims multiply to 0");
		if (x->numel % rest)
			return xk_fail(k, "cannot reshape %" PRId64 " elements to a multiple of %" PRId64, x->numel, rest);
		want[infer_at] = x->numel / rest;
	} else if (rest != x->numel) {
		char b[128];
		xt_describe(x, b, sizeof b);
		return xk_fail(k, "cannot reshape %s (%" PRId64 " elements) to %" PRId64 " elements", b, x->numel, rest);
	}
	return copy_reshaped(k, x, (int)n, want);
}

static int k_reshape1(struct exec_kernel_ctx *k) { return k_reshape_run(k, 1); }
static int k_reshape5(struct exec_kernel_ctx *k) { return k_reshape_run(k, 5); }

static int k_flatten(struct exec_kernel_ctx *k)
{
	const struct xtensor *x;
	int64_t a = xk_attr_int(k, "axis", 1), d[2];

	if (ops_need_x(k, &x))
		return -1;
	if (a < 0)
		a += x->rank;
	if (a < 0 || a > x->rank)
		return xk_fail(k, "axis %" PRId64 " is out of range for rank %d", xk_attr_int(k, "axis", 1), x->rank);
	d[0] = xk_numel((int)a, x->dims);
	d[1] = xk_numel(x->rank - (int)a, x->dims + a);
	return copy_reshaped(k, x, 2, d);
}

/* The axes of Squeeze/Unsqueeze: attribute before opset 13, input 1 from 13. Returns the count, -2 absent. */
static int64_t get_axes(struct exec_kernel_ctx *k, int64_t *axes, int from_input)
{
	if (from_input) {
		const struct xtensor *t = xk_in(k, 1);
		if (!t)
			return -2;
		return ops_host_ints(k, t, axes, MAXR, "axes");
	}
	int64_t n = xk_attr_ints(k, "axes", axes, MAXR);
	if (n > MAXR)
		return xk_fail(k, "%" PRId64 " axes, more than %d", n, MAXR);
	return n < 0 ? -2 : n;
}

static int k_squeeze_impl(struct exec_kernel_ctx *k, int from_input)
{
	const struct xtensor *x;
	int64_t axes[MAXR], d[MAXR];
	int drop[MAXR] = {0}, n = 0;

	if (ops_need_x(k, &x))
		return -1;
	int64_t na = get_axes(k, axes, from_input);
	if (na == -1)
		return -1;
	if (na == -2) {
		for (int i = 0; i < x->rank; i++)
			drop[i] = x->dims[i] == 1;
	} else
		for (int64_t i = 0; i < na; i++) {
			int a;
			if (norm_axis(k, axes[i], x->rank, "axis", &a))
				return -1;
			if (x->dims[a] != 1)
				return xk_fail(k, "cannot squeeze axis %d of size %" PRId64, a, x->dims[a]);
			drop[a] = 1;
		}
	for (int i = 0; i < x->rank; i++)
		if (!drop[i])
			d[n++] = x->dims[i];
	return copy_reshaped(k, x, n, d);
}

static int k_squeeze1(struct exec_kernel_ctx *k) { return k_squeeze_impl(k, 0); }
static int k_squeeze13(struct exec_kernel_ctx *k) { return k_squeeze_impl(k, 1); }

static int k_unsqueeze_impl(struct exec_kernel_ctx *k, int from_input)
{
	const struct xtensor *x;
	int64_t axes[MAXR], d[MAXR];
	int ins[MAXR] = {0};

	if (ops_need_x(k, &x))
		return -1;
	int64_t na = get_axes(k, axes, from_input);
	if (na == -1)
		return -1;
	if (na == -2)
		return xk_fail(k, "Unsqueeze needs axes");
	if (x->rank + na > MAXR)
		return xk_fail(k, "rank %" PRId64 " is over the executor's limit of %d", x->rank + na, MAXR);
	int r = x->rank + (int)na;
	for (int64_t i = 0; i < na; i++) {
		int a;
		if (norm_axis(k, axes[i], r, "axis", &a))
			return -1;
		if (ins[a])
			return xk_fail(k, "axis %" PRId64 " is given twice", axes[i]);
		ins[a] = 1;
	}
	for (int i = 0, j = 0; i < r; i++)
		d[i] = ins[i] ? 1 : x->dims[j++];
	return copy_reshaped(k, x, r, d);
}

static int k_unsqueeze1(struct exec_kernel_ctx *k) { return k_unsqueeze_impl(k, 0); }
static int k_unsqueeze13(struct exec_kernel_ctx *k) { return k_unsqueeze_impl(k, 1); }

/* ---- Transpose ---------------------------------------------------------------------------------------------- */

#define TILE 32

/* One 2-D tile loop per element size: out[ob + j*oj + l] = in[ib + j + l*il]. */
#define TRANSPOSE_TILE(T)                                                                                     \
	static void tile_##T(T *out, const T *in, int64_t nj, int64_t nl, int64_t oj, int64_t il)           \
	{                                                                                                     \
		for (int64_t jb = 0; jb < nj; jb += TILE)                                                     \
			for (int64_t lb = 0; lb < nl; lb += TILE) {                                           \
				int64_t je = jb + TILE < nj ? jb + TILE : nj, le = lb + TILE < nl ? lb + TILE : nl; \
				for (int64_t j = jb; j < je; j++) {                                           \
					T *o = out + j * oj;                                                  \
					const T *s = in + j;                                                  \
					for (int64_t l = lb; l < le; l++)                                     \
						o[l] = s[l * il];                                             \
				}                                                                             \
			}                                                                                     \
	}
TRANSPOSE_TILE(uint8_t)
TRANSPOSE_TILE(uint16_t)
TRANSPOSE_TILE(uint32_t)
TRANSPOSE_TILE(uint64_t)

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#include <immintrin.h>
/* tile_uint32_t with the whole 8x8 blocks of each tile moved through AVX2 registers (eight rows loaded, transposed
 * by unpacks, shuffles and lane swaps, eight columns stored: pure moves, the same bits), the rest of the tile as
 * tile_uint32_t moves it.  The element-at-a-time loop ran a [1,64,80,80] NCHW -> NHWC at 1.5 times onnxruntime. */
__attribute__((target("avx2"))) static void tile8_u32(uint32_t *out, const uint32_t *in, int64_t nj, int64_t nl,
							int64_t oj, int64_t il)
{
	for (int64_t jb = 0; jb < nj; jb += TILE)
		for (int64_t lb = 0; lb < nl; lb += TILE) {
			int64_t je = jb + TILE < nj ? jb + TILE : nj, le = lb + TILE < nl ? lb + TILE : nl;
			int64_t j8 = jb + (je - jb) / 8 * 8, l8 = lb + (le - lb) / 8 * 8;
			for (int64_t j = jb; j < j8; j += 8)
				for (int64_t l = lb; l < l8; l += 8) {
					__m256 r[8], t[8], u[8];
					for (int q = 0; q < 8; q++)
						r[q] = _mm256_loadu_ps((const float *)(const void *)(in + j + (l + q) * il));
					for (int q = 0; q < 8; q += 2) {
						t[q] = _mm256_unpacklo_ps(r[q], r[q + 1]);
						t[q + 1] = _mm256_unpackhi_ps(r[q], r[q + 1]);
					}
					for (int q = 0; q < 8; q += 4) {
						u[q] = _mm256_shuffle_ps(t[q], t[q + 2], 0x44);
						u[q + 1] = _mm256_shuffle_ps(t[q], t[q + 2], 0xee);
						u[q + 2] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0x44);
						u[q + 3] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0xee);
					}
					for (int q = 0; q < 4; q++) {
						_mm256_storeu_ps((float *)(void *)(out + (j + q) * oj + l),
								 _mm256_permute2f128_ps(u[q], u[q + 4], 0x20));
						_mm256_storeu_ps((float *)(void *)(out + (j + q + 4) * oj + l),
								 _mm256_permute2f128_ps(u[q], u[q + 4], 0x31));
					}
				}
			/* the ragged rest: the columns past l8 of the whole rows, then the rows past j8 */
			for (int64_t j = jb; j < je; j++) {
				uint32_t *o = out + j * oj;
				const uint32_t *sp = in + j;
				for (int64_t l = j < j8 ? l8 : lb; l < le; l++)
					o[l] = sp[l * il];
			}
		}
}

/* The CPU moves 4-byte tiles by tile8_u32 (AVX2: a load and a test of what the loader found) */
static int have_avx2(void)
{
	return __builtin_cpu_supports("avx2");
}
#define HAVE_TILE8 1
#endif

static void tile_bytes(char *out, const char *in, int64_t nj, int64_t nl, int64_t oj, int64_t il, size_t es)
{
	for (int64_t j = 0; j < nj; j++)
		for (int64_t l = 0; l < nl; l++)
			memcpy(out + (size_t)(j * oj + l) * es, in + (size_t)(j + l * il) * es, es);
}

/* Permute x into out (dims already set): size-1 axes dropped, axes that stay adjacent merged, then either rows
 * copied whole (the last axis keeps stride 1) or 32x32 tiles over the output's last axis and the axis that
 * reads the input contiguously. */
static void transpose_run(struct xtensor *out, const struct xtensor *x, const int *perm)
{
	size_t es = xt_elem_size(x->dtype);
	int64_t xs[MAXR], od[MAXR], is[MAXR];
	int n = 0;

	if (!out->numel)
		return;
	strides_of(x->rank, x->dims, xs);
	for (int i = 0; i < x->rank; i++) {
		int64_t d = x->dims[perm[i]], s = xs[perm[i]];
		if (d == 1)
			continue;
		if (n && is[n - 1] == s * d) { /* still contiguous in the input: merge */
			od[n - 1] *= d;
			is[n - 1] = s;
			continue;
		}
		od[n] = d;
		is[n] = s;
		n++;
	}
	if (n == 0 || (n == 1 && is[0] == 1)) {
		memcpy(out->data, x->data, x->bytes);
		return;
	}
	int64_t os[MAXR];
	strides_of(n, od, os);
	int L = n - 1, J = -1;
	for (int i = 0; i < n; i++)
		if (is[i] == 1)
			J = i;
	int64_t idx[MAXR] = {0};
	char *o = out->data;
	const char *src = x->data;
	for (;;) {
		int64_t ib = 0, ob = 0;
		for (int a = 0; a < n; a++) {
			ib += idx[a] * is[a];
			ob += idx[a] * os[a];
		}
		if (is[L] == 1)
			memcpy(o + (size_t)ob * es, src + (size_t)ib * es, (size_t)od[L] * es);
		else if (J < 0) {
			for (int64_t l = 0; l < od[L]; l++)
				memcpy(o + (size_t)(ob + l) * es, src + (size_t)(ib + l * is[L]) * es, es);
		} else {
			char *op = o + (size_t)ob * es;
			const char *ip = src + (size_t)ib * es;
			switch (es) {
			case 1: tile_uint8_t((uint8_t *)op, (const uint8_t *)ip, od[J], od[L], os[J], is[L]); break;
			case 2: tile_uint16_t((uint16_t *)(void *)op, (const uint16_t *)(const void *)ip, od[J], od[L], os[J], is[L]); break;
			case 4:
#ifdef HAVE_TILE8
				if (have_avx2()) {
					tile8_u32((uint32_t *)(void *)op, (const uint32_t *)(const void *)ip, od[J], od[L], os[J],
						  is[L]);
					break;
				}
#endif
				tile_uint32_t((uint32_t *)(void *)op, (const uint32_t *)(const void *)ip, od[J], od[L], os[J], is[L]);
				break;
			case 8: tile_uint64_t((uint64_t *)(void *)op, (const uint64_t *)(const void *)ip, od[J], od[L], os[J], is[L]); break;
			default: tile_bytes(op, ip, od[J], od[L], os[J], is[L], es); break;
			}
		}
		/* next index over the axes other than L (and J when tiling) */
		int a = n - 1;
		for (; a >= 0; a--) {
			if (a == L || (a == J && is[L] != 1))
				continue;
			if (++idx[a] < od[a])
				break;
			idx[a] = 0;
		}
		if (a < 0)
			break;
	}
}

static int k_transpose(struct exec_kernel_ctx *k)
{
	const struct xtensor *x;
	int64_t p[MAXR], d[MAXR];
	int perm[MAXR], seen[MAXR] = {0};

	if (ops_need_x(k, &x))
		return -1;
	int64_t np = xk_attr_ints(k, "perm", p, MAXR);
	if (np < 0) {
		np = x->rank;
		for (int i = 0; i < x->rank; i++)
			p[i] = x->rank - 1 - i;
	}
	if (np != x->rank)
		return xk_fail(k, "perm has %" PRId64 " entries for an input of rank %d", np, x->rank);
	for (int i = 0; i < x->rank; i++) {
		if (norm_axis(k, p[i], x->rank, "perm entry", &perm[i]))
			return -1;
		if (seen[perm[i]]++)
			return xk_fail(k, "perm names axis %d twice", perm[i]);
		d[i] = x->dims[perm[i]];
	}
	/* a reshape (only axes of length 1 move): x itself when the node is its last reader */
	if (ov_perm_keeps_order(x->rank, x->dims, perm) && xk_take_input(k, 0, 0, x->rank, d))
		return 0;
	if (xk_output(k, 0, x->dtype, x->rank, d))
		return -1;
	transpose_run(k->out[0], x, perm);
	return xk_own_strings(k, k->out[0]);
}

/* ---- Concat, Split ------------------------------------------------------------------------------------------- */

static int k_concat(struct exec_kernel_ctx *k)
{
	const struct xtensor *x;
	int64_t d[MAXR];
	int axis;

	if (ops_need_x(k, &x))
		return -1;
	/* Concat-1's axis is optional with 1 as its default; Concat-4 on require it */
	if (norm_axis(k, xk_attr_int(k, "axis", k->opset < 4 ? 1 : 0), x->rank, "axis", &axis))
		return -1;
	memcpy(d, x->dims, sizeof d);
	d[axis] = 0;
	for (size_t i = 0; i < k->n_in; i++) {
		const struct xtensor *t = k->in[i];
		if (!t)
			return xk_fail(k, "input %zu is missing", i);
		if (t->dtype != x->dtype)
			return xk_fail(k, "input %zu is %s, input 0 is %s", i, dtype_name(t->dtype), dtype_name(x->dtype));
		if (t->rank != x->rank)
			return xk_fail(k, "input %zu has rank %d, input 0 rank %d", i, t->rank, x->rank);
		for (int a = 0; a < x->rank; a++)
			if (a != axis && t->dims[a] != x->dims[a]) {
				char b0[128], b1[128];
				xt_describe(x, b0, sizeof b0);
				xt_describe(t, b1, sizeof b1);
				return xk_fail(k, "input %zu %s does not match input 0 %s outside axis %d", i, b1, b0, axis);
			}
		d[axis] += t->dims[axis];
	}
	/* every byte is written below (strings: the pointers, then owned), so no zeros first but for strings */
	if ((x->dtype == OV_DT_STRING ? xk_output : xk_output_raw)(k, 0, x->dtype, x->rank, d))
		return -1;
	struct xtensor *y = k->out[0];
	size_t es = xt_elem_size(x->dtype);
	int64_t outer = xk_numel(axis, x->dims), inner = xk_numel(x->rank - axis - 1, x->dims + axis + 1);
	size_t orow = (size_t)(d[axis] * inner) * es, at = 0;
	if (y->numel)
		for (size_t i = 0; i < k->n_in; i++) {
			const struct xtensor *t = k->in[i];
			size_t row = (size_t)(t->dims[axis] * inner) * es;
			for (int64_t o = 0; o < outer && row; o++)
				memcpy((char *)y->data + (size_t)o * orow + at, (const char *)t->data + (size_t)o * row, row);
			at += row;
		}
	return xk_own_strings(k, y);
}

static int k_split_run(struct exec_kernel_ctx *k, int v)
{
	const struct xtensor *x, *st = xk_in(k, 1);
	int64_t *split = NULL;
	int axis, rc = -1;

	if (ops_need_x(k, &x))
		return -1;
	if (x->rank == 0)
		return xk_fail(k, "cannot split a scalar");
	if (norm_axis(k, xk_attr_int(k, "axis", 0), x->rank, "axis", &axis))
		return -1;
	size_t n = k->n_out;
	int64_t len = x->dims[axis];
	if (!(split = calloc(n ? n : 1, sizeof *split)))
		return xk_fail(k, "out of memory");
	int64_t ns = -2;
	/* the parts come from input 1 (Split-1, where it is optional, and Split-13 on) or the attribute */
	if ((v >= 13 || k->opset < 2) && st) {
		if (st->rank > 1 || st->numel != (int64_t)n) {
			xk_fail(k, "split has %" PRId64 " values for %zu outputs", st->numel, n);
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			split[i] = xt_get_int(st, (int64_t)i);
		ns = (int64_t)n;
	} else if (v < 13) {
		int64_t c = xk_attr_ints(k, "split", split, (int64_t)n);
		if (c >= 0 && c != (int64_t)n) {
			xk_fail(k, "split has %" PRId64 " values for %zu outputs", c, n);
			goto out;
		}
		ns = c;
	}
	if (ns < 0) {
		int64_t parts = v >= 18 ? xk_attr_int(k, "num_outputs", (int64_t)n) : (int64_t)n;
		if (parts != (int64_t)n) {
			xk_fail(k, "num_outputs is %" PRId64 " but the node has %zu outputs", parts, n);
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			split[i] = ov_split_part(len, (int64_t)n, (int64_t)i);
	}
	int64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (split[i] < 0 || split[i] > len) {
			xk_fail(k, "split entry %zu is %" PRId64 " for a dim of %" PRId64, i, split[i], len);
			goto out;
		}
		sum += split[i];
	}
	if (sum != len) {
		xk_fail(k, "split sums to %" PRId64 " but axis %d has %" PRId64, sum, axis, len);
		goto out;
	}
	size_t es = xt_elem_size(x->dtype);
	int64_t outer = xk_numel(axis, x->dims), inner = xk_numel(x->rank - axis - 1, x->dims + axis + 1), at = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t d[MAXR];
		memcpy(d, x->dims, sizeof d);
		d[axis] = split[i];
		if (xk_output(k, i, x->dtype, x->rank, d))
			goto out;
		struct xtensor *y = k->out[i];
		size_t row = (size_t)(split[i] * inner) * es;
		if (y->numel)
			for (int64_t o = 0; o < outer; o++)
				memcpy((char *)y->data + (size_t)o * row,
				       (const char *)x->data + ((size_t)(o * len + at) * (size_t)inner) * es, row);
		at += split[i];
		if (xk_own_strings(k, y))
			goto out;
	}
	rc = 0;
out:
	free(split);
	return rc;
}

static int k_split1(struct exec_kernel_ctx *k) { return k_split_run(k, 1); }
static int k_split13(struct exec_kernel_ctx *k) { return k_split_run(k, 13); }
static int k_split18(struct exec_kernel_ctx *k) { return k_split_run(k, 18); }

/* ---- Slice ---------------------------------------------------------------------------------------------------- */

static int k_slice_run(struct exec_kernel_ctx *k, int v)
{
	const struct xtensor *x;
	int64_t starts[MAXR], ends[MAXR], axes[MAXR], steps[MAXR], ns, ne, na = -2, nst = -2;

	if (ops_need_x(k, &x))
		return -1;
	if (v < 10) {
		ns = xk_attr_ints(k, "starts", starts, MAXR);
		ne = xk_attr_ints(k, "ends", ends, MAXR);
		na = xk_attr_ints(k, "axes", axes, MAXR);
		if (ns < 0 || ne < 0)
			return xk_fail(k, "Slice-1 needs starts and ends");
		if (ns > MAXR || ne > MAXR || na > MAXR)
			return xk_fail(k, "more than %d starts, ends or axes", MAXR);
		if (na < 0)
			na = -2;
	} else {
		if (!xk_in(k, 1) || !xk_in(k, 2))
			return xk_fail(k, "starts and ends are required");
		if ((ns = ops_host_ints(k, xk_in(k, 1), starts, MAXR, "starts")) < 0 ||
		    (ne = ops_host_ints(k, xk_in(k, 2), ends, MAXR, "ends")) < 0)
			return -1;
		if (xk_in(k, 3) && (na = ops_host_ints(k, xk_in(k, 3), axes, MAXR, "axes")) < 0)
			return -1;
		if (xk_in(k, 4) && (nst = ops_host_ints(k, xk_in(k, 4), steps, MAXR, "steps")) < 0)
			return -1;
	}
	if (ns != ne)
		return xk_fail(k, "%" PRId64 " starts but %" PRId64 " ends", ns, ne);
	if (na == -2)
		for (int64_t i = 0; i < ns; i++)
			axes[i] = i;
	else if (na != ns)
		return xk_fail(k, "%" PRId64 " axes for %" PRId64 " starts", na, ns);
	if (nst == -2)
		for (int64_t i = 0; i < ns; i++)
			steps[i] = 1;
	else if (nst != ns)
		return xk_fail(k, "%" PRId64 " steps for %" PRId64 " starts", nst, ns);

	int64_t s0[MAXR], st[MAXR], d[MAXR];
	int seen[MAXR] = {0};
	for (int a = 0; a < x->rank; a++) {
		s0[a] = 0;
		st[a] = 1;
		d[a] = x->dims[a];
	}
	for (int64_t i = 0; i < ns; i++) {
		int a;
		if (norm_axis(k, axes[i], x->rank, "axis", &a))
			return -1;
		if (seen[a]++)
			return xk_fail(k, "axis %d is sliced twice", a);
		int64_t step = steps[i];
		if (step == 0)
			return xk_fail(k, "step 0 on axis %d", a);
		d[a] = ov_slice_axis(x->dims[a], starts[i], ends[i], step, &s0[a]);
		st[a] = step;
	}
	/* the axes from q on keep all they have (exporters write whole-range Slices, jax2tf one per Conv): with all of
	 * them, the Slice is x (taken or copied whole); else those after q are one run with axis q, copied a run at a
	 * time (magika's [?, 512, 508, 1] slices went element by element, 1.6 ms) */
	int q = x->rank;
	while (q > 0 && s0[q - 1] == 0 && st[q - 1] == 1 && d[q - 1] == x->dims[q - 1])
		q--;
	if (q == 0)
		return copy_reshaped(k, x, x->rank, x->dims);
	if (xk_output(k, 0, x->dtype, x->rank, d))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	int64_t inner = 1;
	for (int a = q; a < x->rank; a++)
		inner *= x->dims[a];
	/* step 1 on axis q - 1: each index of the axes before it is one run of d[q - 1] * inner elements, copied whole
	 * (the offsets below would take one entry per element of the run, written and then scanned: a channel Slice
	 * of 32 x 80 x 80 took 0.21 ms, six times onnxruntime's) */
	if (st[q - 1] == 1) {
		size_t es = xt_elem_size(x->dtype), run = (size_t)(d[q - 1] * inner) * es;
		/* element strides of x seen with rank q (axis q - 1 the runs: its dim times inner) */
		int64_t xs[MAXR], idx[MAXR] = {0}, outer = 1;
		xs[q - 1] = 1;
		for (int a = q - 2; a >= 0; a--)
			xs[a] = xs[a + 1] * x->dims[a + 1] * (a + 1 == q - 1 ? inner : 1);
		for (int a = 0; a < q - 1; a++)
			outer *= d[a];
		char *yp = y->data;
		const char *xp = x->data;
		for (int64_t o = 0; o < outer; o++, yp += run) {
			int64_t off = s0[q - 1] * inner;
			for (int a = 0; a < q - 1; a++)
				off += (s0[a] + idx[a] * st[a]) * xs[a];
			memcpy(yp, xp + (size_t)off * es, run);
			for (int a = q - 2; a >= 0; a--) {
				if (++idx[a] < d[a])
					break;
				idx[a] = 0;
			}
		}
		return xk_own_strings(k, y);
	}
	/* x and y seen with rank q: axis q - 1 holds the runs (its offsets count elements) */
	struct xtensor xv = *x, yv = *y;
	xv.rank = yv.rank = q;
	xv.dims[q - 1] *= inner;
	yv.dims[q - 1] *= inner;
	struct offsets o;
	int64_t xs[MAXR];
	if (offsets_alloc(k, &o, &yv))
		return -1;
	strides_of(q, xv.dims, xs);
	for (int a = 0; a < q - 1; a++)
		for (int64_t j = 0; j < d[a]; j++)
			o.off[a][j] = (s0[a] + j * st[a]) * xs[a];
	for (int64_t j = 0; j < d[q - 1]; j++)
		for (int64_t i = 0; i < inner; i++)
			o.off[q - 1][j * inner + i] = (s0[q - 1] + j * st[q - 1]) * inner + i;
	map_copy(&yv, &xv, o.off, NULL);
	free(o.pool);
	return xk_own_strings(k, y);
}

static int k_slice1(struct exec_kernel_ctx *k) { return k_slice_run(k, 1); }
static int k_slice10(struct exec_kernel_ctx *k) { return k_slice_run(k, 10); }

/* ---- Expand, Tile ---------------------------------------------------------------------------------------------- */

static int k_expand(struct exec_kernel_ctx *k)
{
	const struct xtensor *x, *s = xk_in(k, 1);
	int64_t want[MAXR], d[MAXR], xs[MAXR];

	if (ops_need_x(k, &x))
		return -1;
	if (!s)
		return xk_fail(k, "the shape input is missing");
	int64_t n = ops_host_ints(k, s, want, MAXR, "the shape");
	if (n < 0)
		return -1;
	int r = x->rank > n ? x->rank : (int)n;
	/* right-aligned broadcast of x's dims and the requested ones */
	for (int i = 0; i < r; i++) {
		int xi = i - (r - x->rank), wi = i - (r - (int)n);
		int64_t a = xi >= 0 ? x->dims[xi] : 1, b = wi >= 0 ? want[wi] : 1;
		if (b < 0)
			return xk_fail(k, "the shape has a negative entry %" PRId64, b);
		if (a == b || b == 1)
			d[i] = a;
		else if (a == 1)
			d[i] = b;
		else
			return xk_fail(k, "cannot broadcast dim %" PRId64 " of the input to %" PRId64 " (axis %d)", a, b, i);
	}
	if (xk_output(k, 0, x->dtype, r, d))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	struct offsets o;
	if (offsets_alloc(k, &o, y))
		return -1;
	strides_of(x->rank, x->dims, xs);
	for (int i = 0; i < r; i++) {
		int xi = i - (r - x->rank);
		int bc = xi < 0 || x->dims[xi] == 1;
		for (int64_t j = 0; j < d[i]; j++)
			o.off[i][j] = bc ? 0 : j * xs[xi];
	}
	map_copy(y, x, o.off, NULL);
	free(o.pool);
	return xk_own_strings(k, y);
}

static int k_tile(struct exec_kernel_ctx *k)
{
	const struct xtensor *x, *rt = xk_in(k, 1);
	int64_t rep[MAXR], d[MAXR], xs[MAXR];

	if (ops_need_x(k, &x))
		return -1;
	if (!rt)
		return xk_fail(k, "the repeats input is missing");
	int64_t n = ops_host_ints(k, rt, rep, MAXR, "repeats");
	if (n < 0)
		return -1;
	if (n != x->rank)
		return xk_fail(k, "repeats has %" PRId64 " entries for an input of rank %d", n, x->rank);
	for (int i = 0; i < x->rank; i++) {
		if (rep[i] < 0)
			return xk_fail(k, "repeats has a negative entry %" PRId64, rep[i]);
		if ((d[i] = mul_dims(x->dims[i], rep[i])) < 0)
			return xk_fail(k, "axis %d: %" PRId64 " x %" PRId64 " overflows", i, x->dims[i], rep[i]);
	}
	if (xk_output(k, 0, x->dtype, x->rank, d))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	struct offsets o;
	if (offsets_alloc(k, &o, y))
		return -1;
	strides_of(x->rank, x->dims, xs);
	for (int i = 0; i < x->rank; i++)
		for (int64_t j = 0; j < d[i]; j++)
			o.off[i][j] = (j % x->dims[i]) * xs[i];
	map_copy(y, x, o.off, NULL);
	free(o.pool);
	return xk_own_strings(k, y);
}

/* ---- Pad --------------------------------------------------------------------------------------------------------- */

static int k_pad(struct exec_kernel_ctx *k)
{
	const struct xtensor *x;
	struct pad_geom pl;
	int64_t xs[MAXR], *pb = pl.pb, *pe = pl.pe, *d = pl.d;

	if (ops_need_x(k, &x) || ops_pad_setup(k, x, ops_host_input, &pl))
		return -1;
	if (xk_output(k, 0, x->dtype, x->rank, d))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	struct offsets o;
	if (offsets_alloc(k, &o, y))
		return -1;
	strides_of(x->rank, x->dims, xs);
	for (int a = 0; a < x->rank; a++) {
		int64_t cb = pb[a] < 0 ? -pb[a] : 0, ce = pe[a] < 0 ? -pe[a] : 0, dc = x->dims[a] - cb - ce;
		int64_t lead = pb[a] > 0 ? pb[a] : 0;
		for (int64_t j = 0; j < d[a]; j++) {
			int64_t i = ov_pad_source(j - lead, dc, pl.mode);
			o.off[a][j] = i < 0 ? -1 : (i + cb) * xs[a];
		}
	}
	char fill[16] = {0};
	size_t es = xt_elem_size(x->dtype);
	if (pl.cv && pl.cv->numel)
		memcpy(fill, pl.cv->data, es);
	else if (!pl.cv && pl.cval != 0 && x->dtype != OV_DT_STRING) {
		struct xtensor f;
		xt_wrap(&f, x->dtype, 0, NULL, fill);
		xt_set(&f, 0, pl.cval);
	}
	map_copy(y, x, o.off, es <= sizeof fill ? fill : NULL);
	free(o.pool);
	return xk_own_strings(k, y);
}


/* ---- ConstantOfShape, Range ---------------------------------------------------------------------------------- */

static int k_constant_of_shape(struct exec_kernel_ctx *k)
{
	int64_t d[MAXR];
	struct xtensor v;
	int have, r;

	if (ops_constant_of_shape_setup(k, ops_host_input, &r, d, &v, &have))
		return -1;
	int32_t dt = have ? v.dtype : OV_DT_FLOAT;
	if (xk_output(k, 0, dt, r, d)) {
		if (have)
			xt_free(&v);
		return -1;
	}
	struct xtensor *y = k->out[0];
	if (have) {
		size_t es = xt_elem_size(dt);
		int zero = 1;
		for (size_t b = 0; b < es; b++)
			zero &= ((const unsigned char *)v.data)[b] == 0;
		if (!zero)
			for (int64_t i = 0; i < y->numel; i++)
				memcpy((char *)y->data + (size_t)i * es, v.data, es);
		int rc = xk_own_strings(k, y); /* before v (whose string the elements point to) goes */
		xt_free(&v);
		return rc;
	}
	return 0;
}

static int k_range(struct exec_kernel_ctx *k)
{
	struct range_geom p;

	if (ops_range_setup(k, ops_host_input, &p) || xk_output(k, 0, p.dt, 1, &p.n))
		return -1;
	for (int64_t i = 0; i < p.n; i++)
		ov_range_at(k->out[0]->data, p.dt, i, p.si, p.di, p.sd, p.dd);
	return 0;
}

/* ---- Trilu, CumSum ---------------------------------------------------------------------------------------------- */

static int k_trilu(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	int64_t kk;
	int upper = (int)xk_attr_int(k, "upper", 1);

	if (ops_trilu_setup(k, ops_host_input, &kk))
		return -1;
	if (xk_output(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	size_t es = xt_elem_size(x->dtype);
	int64_t rows = x->dims[x->rank - 2], cols = x->dims[x->rank - 1], mats = y->numel ? y->numel / (rows * cols) : 0;
	for (int64_t m = 0; m < mats; m++)
		for (int64_t i = 0; i < rows; i++) {
			size_t at = (size_t)((m * rows + i) * cols) * es;
			/* keep j - i >= k (upper) or j - i <= k (lower); bounds clamped to [0, cols] in 128 bits */
			__int128 lo = upper ? (__int128)i + kk : 0, hi = upper ? cols : (__int128)i + kk + 1;
			if (lo < 0)
				lo = 0;
			if (hi > cols)
				hi = cols;
			if (hi > lo)
				memcpy((char *)y->data + at + (size_t)lo * es, (const char *)x->data + at + (size_t)lo * es,
				       (size_t)(hi - lo) * es);
		}
	return xk_own_strings(k, y);
}

/* Running sums or products along the axis, one line at a time (ov_cum_line, which the CUDA kernel runs too). */
static int cum_run(struct exec_kernel_ctx *k, int prod)
{
	const struct xtensor *x = xk_in(k, 0);
	int axis;
	int exclusive = (int)xk_attr_int(k, "exclusive", 0), reverse = (int)xk_attr_int(k, "reverse", 0);

	if (ops_cum_setup(k, prod, ops_host_input, &axis) || xk_output(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	int64_t outer = xk_numel(axis, x->dims), len = x->dims[axis], inner = xk_numel(x->rank - axis - 1, x->dims + axis + 1);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t in = 0; in < inner; in++)
			ov_cum_line(x->data, k->out[0]->data, x->dtype, o * len * inner + in, len, inner, exclusive, reverse,
				    prod);
	return 0;
}

static int k_cumsum(struct exec_kernel_ctx *k) { return cum_run(k, 0); }
static int k_cumprod(struct exec_kernel_ctx *k) { return cum_run(k, 1); }

/* ---- CenterCropPad ------------------------------------------------------------------------------------------------ */

static int k_center_crop_pad(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	int64_t d[MAXR], lead[MAXR], xs[MAXR];

	if (ops_center_crop_pad_setup(k, ops_host_input, d, lead) || xk_output(k, 0, x->dtype, x->rank, d))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	struct offsets o;
	if (offsets_alloc(k, &o, y))
		return -1;
	strides_of(x->rank, x->dims, xs);
	for (int a = 0; a < x->rank; a++)
		for (int64_t j = 0; j < d[a]; j++) {
			int64_t i = j + lead[a];
			o.off[a][j] = i >= 0 && i < x->dims[a] ? i * xs[a] : -1;
		}
	map_copy(y, x, o.off, NULL);
	free(o.pool);
	return xk_own_strings(k, y);
}

const struct exec_kernel cpu_shape_kernels[] = {
	{.op = "Constant", .since = 1, .fn = k_constant},
	{.op = "Shape", .since = 1, .fn = ops_shape_kernel},
	{.op = "Size", .since = 1, .fn = ops_size_kernel},
	{.op = "Reshape", .since = 1, .fn = k_reshape1},
	{.op = "Reshape", .since = 5, .fn = k_reshape5},
	{.op = "Flatten", .since = 1, .fn = k_flatten},
	{.op = "Squeeze", .since = 1, .fn = k_squeeze1},
	{.op = "Squeeze", .since = 13, .fn = k_squeeze13},
	{.op = "Unsqueeze", .since = 1, .fn = k_unsqueeze1},
	{.op = "Unsqueeze", .since = 13, .fn = k_unsqueeze13},
	{.op = "Transpose", .since = 1, .fn = k_transpose},
	{.op = "Concat", .since = 1, .fn = k_concat},
	{.op = "Split", .since = 1, .fn = k_split1},
	{.op = "Split", .since = 13, .fn = k_split13},
	{.op = "Split", .since = 18, .fn = k_split18},
	{.op = "Slice", .since = 1, .fn = k_slice1},
	{.op = "Slice", .since = 10, .fn = k_slice10},
	{.op = "Expand", .since = 8, .fn = k_expand},
	{.op = "Tile", .since = 6, .fn = k_tile},
	{.op = "Pad", .since = 1, .fn = k_pad},
	{.op = "ConstantOfShape", .since = 9, .fn = k_constant_of_shape},
	{.op = "Range", .since = 11, .fn = k_range},
	{.op = "Trilu", .since = 14, .fn = k_trilu},
	{.op = "CumSum", .since = 11, .fn = k_cumsum},
	{.op = "CumProd", .since = 26, .fn = k_cumprod},
	{.op = "CenterCropPad", .since = 18, .fn = k_center_crop_pad},
};
const size_t cpu_shape_count = sizeof cpu_shape_kernels / sizeof cpu_shape_kernels[0];
