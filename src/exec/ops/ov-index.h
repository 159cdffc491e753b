/* The arithmetic of the index and layout ops, once for the CPU kernels (cpu/gather.c, cpu/shape.c, cpu/reduce.c,
 * cpu/resize.c) and the CUDA kernels (cuda/index.cu, cuda/scatter.cu): where DepthToSpace and SpaceToDepth read
 * an element from, how a scatter folds an update into its target, CumSum's and CumProd's running line, TopK's
 * order and its selection of one row, Range's elements, and integer index loads as xt_get_int reads them.
 * Static inline OV_HD functions in plain C, like ops/ov-math.h and ops/ov-shape.h: the CPU loops over them and a CUDA
 * thread runs one, so both compute the same bits in the same order. */
#ifndef OV_EXEC_OV_INDEX_H
#define OV_EXEC_OV_INDEX_H

#include <math.h>
#include <stdint.h>

#include "src/exec/ops/ov-math.h"
#ifdef __cplusplus
extern "C" {
#endif
#include "src/base/dtype.h"
#ifdef __cplusplus
}
#endif

/* ---- element loads ---- */

/* A float16 as xt_get reads it, a NaN as the quiet NaN of its sign (the CPU's reductions always read them so). */
static inline OV_HD float ov_f16_load(uint16_t h)
{
	float f = ov_f16_to_f32(h);
	return f != f ? ((h & 0x8000u) ? -NAN : NAN) : f;
}

/* Element i of a float32, float64, float16 or bfloat16 buffer as a double (exact). */
static inline OV_HD double ov_load_d(const void *p, int32_t dt, int64_t i)
{
	switch (dt) {
	case OV_DT_FLOAT: return (double)((const float *)p)[i];
	case OV_DT_DOUBLE: return ((const double *)p)[i];
	case OV_DT_FLOAT16: return (double)ov_f16_to_f32(((const uint16_t *)p)[i]);
	default: return (double)ov_bf16_to_f32(((const uint16_t *)p)[i]);
	}
}

/* The types ov_get_int reads: the integers, bool and the float types. */
static inline OV_HD int ov_int_readable(int32_t dt)
{
	switch (dt) {
	case OV_DT_INT8: case OV_DT_INT16: case OV_DT_INT32: case OV_DT_INT64: case OV_DT_UINT8: case OV_DT_UINT16:
	case OV_DT_UINT32: case OV_DT_UINT64: case OV_DT_BOOL: case OV_DT_FLOAT: case OV_DT_DOUBLE:
	case OV_DT_FLOAT16: case OV_DT_BFLOAT16:
		return 1;
	default:
		return 0;
	}
}

/* Element i as xt_get_int reads it: integers exactly (uint64 wrapped into int64), floats truncated and saturated,
 * NaN as 0. */
static inline OV_HD int64_t ov_get_int(const void *p, int32_t dt, int64_t i)
{
	switch (dt) {
	case OV_DT_INT64: return ((const int64_t *)p)[i];
	case OV_DT_UINT64: return (int64_t)((const uint64_t *)p)[i];
	case OV_DT_INT32: return ((const int32_t *)p)[i];
	case OV_DT_UINT32: return ((const uint32_t *)p)[i];
	case OV_DT_INT16: return ((const int16_t *)p)[i];
	case OV_DT_UINT16: return ((const uint16_t *)p)[i];
	case OV_DT_INT8: return ((const int8_t *)p)[i];
	case OV_DT_UINT8: case OV_DT_BOOL: return ((const uint8_t *)p)[i];
	default: {
		double d = ov_load_d(p, dt, i);
		return d != d ? 0 : d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : (int64_t)d;
	}
	}
}

/* ---- DepthToSpace (to_space) and SpaceToDepth ----
 * Output element (channel co, row y, column xx) of an output of oc channels reads input channel *ci, row *yi,
 * column *xi, for blocksize b and c input channels; crd: DepthToSpace's CRD mode (else DCR). */
static inline OV_HD void ov_depth_space_src(int to_space, int crd, int64_t b, int64_t c, int64_t oc, int64_t co,
					    int64_t y, int64_t xx, int64_t *ci, int64_t *yi, int64_t *xi)
{
	if (to_space) {
		int64_t by = y % b, bx = xx % b;
		*ci = crd ? co * b * b + by * b + bx : (by * b + bx) * oc + co;
		*yi = y / b, *xi = xx / b;
	} else {
		/* output channel = (by * b + bx) * C + c; CRD (SpaceToDepth-28): c * b * b + by * b + bx */
		int64_t cc = crd ? co / (b * b) : co % c, blk = crd ? co % (b * b) : co / c;
		*ci = cc, *yi = y * b + blk / b, *xi = xx * b + blk % b;
	}
}

/* ---- scatters: ScatterElements, ScatterND and Scatter fold update u[ui] into y[yi] ---- */

enum ov_scatter_red { OV_SCATTER_NONE, OV_SCATTER_ADD, OV_SCATTER_MUL, OV_SCATTER_MAX, OV_SCATTER_MIN };

/* The types the reductions take (none moves any element). */
static inline OV_HD int ov_scatter_red_type(int32_t dt)
{
	return ov_int_readable(dt) && dt != OV_DT_BOOL;
}

#define OV_SCATTER_FOLD(T, W)                                                                           \
	do {                                                                                            \
		T a_ = ((T *)y)[yi], v_ = ((const T *)u)[ui];                                           \
		((T *)y)[yi] = red == OV_SCATTER_ADD ? (T)((W)a_ + (W)v_)                              \
			       : red == OV_SCATTER_MUL ? (T)((W)a_ * (W)v_)                            \
			       : red == OV_SCATTER_MAX ? (a_ > v_ ? a_ : v_) : (a_ < v_ ? a_ : v_);   \
	} while (0)

/* red is one of add, mul, max, min and dt an ov_scatter_red_type.  Integers add and multiply wrapping (unsigned,
 * so without undefined behaviour); float16 and bfloat16 in float32. */
static inline OV_HD void ov_scatter_combine(void *y, int64_t yi, const void *u, int64_t ui, int32_t dt, int red)
{
	switch (dt) {
	case OV_DT_FLOAT: OV_SCATTER_FOLD(float, float); return;
	case OV_DT_DOUBLE: OV_SCATTER_FOLD(double, double); return;
	case OV_DT_INT8: OV_SCATTER_FOLD(int8_t, uint32_t); return;
	case OV_DT_INT16: OV_SCATTER_FOLD(int16_t, uint32_t); return;
	case OV_DT_INT32: OV_SCATTER_FOLD(int32_t, uint32_t); return;
	case OV_DT_INT64: OV_SCATTER_FOLD(int64_t, uint64_t); return;
	case OV_DT_UINT8: OV_SCATTER_FOLD(uint8_t, uint32_t); return;
	case OV_DT_UINT16: OV_SCATTER_FOLD(uint16_t, uint32_t); return;
	case OV_DT_UINT32: OV_SCATTER_FOLD(uint32_t, uint32_t); return;
	case OV_DT_UINT64: OV_SCATTER_FOLD(uint64_t, uint64_t); return;
	default: break;
	}
	/* float16, bfloat16 */
	int h = dt == OV_DT_FLOAT16;
	uint16_t ab = ((uint16_t *)y)[yi], vb = ((const uint16_t *)u)[ui];
	float a = h ? ov_f16_load(ab) : ov_bf16_to_f32(ab), v = h ? ov_f16_load(vb) : ov_bf16_to_f32(vb);
	float r = red == OV_SCATTER_ADD ? a + v : red == OV_SCATTER_MUL ? a * v
		  : red == OV_SCATTER_MAX ? (a > v ? a : v) : (a < v ? a : v);
	((uint16_t *)y)[yi] = h ? ov_f32_to_f16(r) : ov_f32_to_bf16(r);
}

/* ---- CumSum and CumProd: one line of len elements, inner apart from base ----
 * Running in the line's order (from its end with reverse), each output the sum or product of the elements before
 * it (exclusive) or up to it.  Floats accumulate in their own type (float16 and bfloat16 in float32), integers in
 * an unsigned type at least as wide as theirs, wrapping. */
static inline OV_HD int ov_cum_type(int32_t dt)
{
	return ov_scatter_red_type(dt);
}

#define OV_CUM_LINE(T, ACC, LOAD, STORE)                                                      \
	do {                                                                                  \
		ACC acc_ = prod ? (ACC)1 : (ACC)0;                                            \
		for (int64_t t_ = 0; t_ < len; t_++) {                                        \
			int64_t at_ = base + (reverse ? len - 1 - t_ : t_) * inner;           \
			ACC v_ = LOAD(((const T *)x)[at_]);                                   \
			if (exclusive)                                                        \
				((T *)y)[at_] = STORE(acc_);                                  \
			acc_ = prod ? (ACC)(acc_ * v_) : (ACC)(acc_ + v_);                    \
			if (!exclusive)                                                       \
				((T *)y)[at_] = STORE(acc_);                                  \
		}                                                                             \
	} while (0)

#define OV_CUM_AS(v) (v)
#define OV_CUM_U32(v) ((uint32_t)(v))
#define OV_CUM_U64(v) ((uint64_t)(v))

static inline OV_HD void ov_cum_line(const void *x, void *y, int32_t dt, int64_t base, int64_t len, int64_t inner,
				     int exclusive, int reverse, int prod)
{
	switch (dt) {
	case OV_DT_FLOAT: OV_CUM_LINE(float, float, OV_CUM_AS, OV_CUM_AS); break;
	case OV_DT_DOUBLE: OV_CUM_LINE(double, double, OV_CUM_AS, OV_CUM_AS); break;
	case OV_DT_INT8: OV_CUM_LINE(int8_t, uint32_t, OV_CUM_U32, (int8_t)); break;
	case OV_DT_INT16: OV_CUM_LINE(int16_t, uint32_t, OV_CUM_U32, (int16_t)); break;
	case OV_DT_INT32: OV_CUM_LINE(int32_t, uint32_t, OV_CUM_U32, (int32_t)); break;
	case OV_DT_INT64: OV_CUM_LINE(int64_t, uint64_t, OV_CUM_U64, (int64_t)); break;
	case OV_DT_UINT8: OV_CUM_LINE(uint8_t, uint32_t, OV_CUM_U32, (uint8_t)); break;
	case OV_DT_UINT16: OV_CUM_LINE(uint16_t, uint32_t, OV_CUM_U32, (uint16_t)); break;
	case OV_DT_UINT32: OV_CUM_LINE(uint32_t, uint32_t, OV_CUM_U32, (uint32_t)); break;
	case OV_DT_UINT64: OV_CUM_LINE(uint64_t, uint64_t, OV_CUM_U64, (uint64_t)); break;
	case OV_DT_FLOAT16: OV_CUM_LINE(uint16_t, float, ov_f16_load, ov_f32_to_f16); break;
	default: OV_CUM_LINE(uint16_t, float, ov_bf16_to_f32, ov_f32_to_bf16); break; /* bfloat16 */
	}
}

/* ---- TopK ---- */

/* The types TopK orders: the integers, bool and the float types. */
static inline OV_HD int ov_topk_type(int32_t dt)
{
	return ov_int_readable(dt);
}

/* -1, 0 or 1 as x[a] is below, equal to or above x[b]: floats as doubles with NaN above every number and equal
 * to NaN, integers exactly (uint64 unsigned). */
static inline OV_HD int ov_topk_cmp(const void *x, int32_t dt, int64_t a, int64_t b)
{
	if (dt == OV_DT_FLOAT || dt == OV_DT_DOUBLE || dt == OV_DT_FLOAT16 || dt == OV_DT_BFLOAT16) {
		double u = ov_load_d(x, dt, a), v = ov_load_d(x, dt, b);
		if (u != u || v != v)
			return (u != u) - (v != v);
		return u < v ? -1 : u > v;
	}
	if (dt == OV_DT_UINT64) {
		uint64_t u = ((const uint64_t *)x)[a], v = ((const uint64_t *)x)[b];
		return u < v ? -1 : u > v;
	}
	int64_t u = ov_get_int(x, dt, a), v = ov_get_int(x, dt, b);
	return u < v ? -1 : u > v;
}

/* 1 when position ja of the row at base (elements inner apart) comes before position jb in TopK's output: the
 * larger value first (the smaller with !largest), equal values by lower position, so the order is total. */
static inline OV_HD int ov_topk_before(const void *x, int32_t dt, int64_t base, int64_t inner, int largest,
				       int64_t ja, int64_t jb)
{
	int c = ov_topk_cmp(x, dt, base + ja * inner, base + jb * inner);
	if (largest)
		c = -c;
	return c < 0 || (c == 0 && ja < jb);
}

#define OV_TOPK_H(i) pos[(i) * step]
#define OV_TOPK_BEFORE(a, b) ov_topk_before(x, dt, base, inner, largest, a, b)

/* Position j into slot h of a heap of n (in pos, step apart) whose top is the worst, below the worse child while
 * it comes before it. */
static inline OV_HD void ov_topk_sift_down(const void *x, int32_t dt, int64_t base, int64_t inner, int largest,
					   int64_t *pos, int64_t step, int64_t n, int64_t h, int64_t j)
{
	for (;;) {
		int64_t c = 2 * h + 1;
		if (c >= n)
			break;
		if (c + 1 < n && OV_TOPK_BEFORE(OV_TOPK_H(c), OV_TOPK_H(c + 1)))
			c++;
		if (!OV_TOPK_BEFORE(j, OV_TOPK_H(c)))
			break;
		OV_TOPK_H(h) = OV_TOPK_H(c);
		h = c;
	}
	OV_TOPK_H(h) = j;
}

/* The positions of the kk first elements of the row in TopK's order, in that order, into pos[0], pos[step], ...
 * (the indices output; it is also the work space): a heap of the best kk seen so far with the worst on top,
 * sorted at the end.  The order being total, the result is the row's sorted prefix, whatever the method. */
static inline OV_HD void ov_topk_row(const void *x, int32_t dt, int64_t base, int64_t len, int64_t inner,
				     int64_t kk, int largest, int64_t *pos, int64_t step)
{
	int64_t n = 0;

	if (kk <= 0)
		return;
	for (int64_t j = 0; j < len; j++) {
		if (n < kk) { /* sift up: a better parent moves down */
			int64_t h;
			for (h = n++; h > 0 && OV_TOPK_BEFORE(OV_TOPK_H((h - 1) / 2), j); h = (h - 1) / 2)
				OV_TOPK_H(h) = OV_TOPK_H((h - 1) / 2);
			OV_TOPK_H(h) = j;
		} else if (OV_TOPK_BEFORE(j, OV_TOPK_H(0))) { /* j replaces the worst */
			ov_topk_sift_down(x, dt, base, inner, largest, pos, step, n, 0, j);
		}
	}
	for (int64_t end = n - 1; end > 0; end--) { /* heap sort: the worst left goes to the end */
		int64_t worst = OV_TOPK_H(0);
		ov_topk_sift_down(x, dt, base, inner, largest, pos, step, end, 0, OV_TOPK_H(end));
		OV_TOPK_H(end) = worst;
	}
}
#undef OV_TOPK_H
#undef OV_TOPK_BEFORE

/* ---- Range ----
 * Element i of Range(start, delta): integer types from si + i * di, wrapping (its low bits are the exact
 * value's); float32 in float32 (start + i * delta, as the reference computes in the input type); float64 in
 * double; float16 and bfloat16 from the double, through float32. */
static inline OV_HD void ov_range_at(void *y, int32_t dt, int64_t i, int64_t si, int64_t di, double sd, double dd)
{
	uint64_t v = (uint64_t)si + (uint64_t)i * (uint64_t)di;

	switch (dt) {
	case OV_DT_INT64: ((int64_t *)y)[i] = (int64_t)v; break;
	case OV_DT_INT32: ((int32_t *)y)[i] = (int32_t)v; break;
	case OV_DT_INT16: ((int16_t *)y)[i] = (int16_t)v; break;
	case OV_DT_INT8: ((int8_t *)y)[i] = (int8_t)v; break;
	case OV_DT_UINT8: ((uint8_t *)y)[i] = (uint8_t)v; break;
	case OV_DT_UINT16: ((uint16_t *)y)[i] = (uint16_t)v; break;
	case OV_DT_UINT32: ((uint32_t *)y)[i] = (uint32_t)v; break;
	case OV_DT_FLOAT: ((float *)y)[i] = (float)sd + (float)i * (float)dd; break;
	case OV_DT_DOUBLE: ((double *)y)[i] = sd + (double)i * dd; break;
	case OV_DT_FLOAT16: ((uint16_t *)y)[i] = ov_f32_to_f16((float)(sd + (double)i * dd)); break;
	default: ((uint16_t *)y)[i] = ov_f32_to_bf16((float)(sd + (double)i * dd)); break; /* bfloat16 */
	}
}

#endif
