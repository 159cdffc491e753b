/* What one CUDA thread computes: an element-wise op on one value or pair (in the CPU's compute domain for the
 * types), one pooled output element, one lane of a softmax row or one strided row, one hardmax row, one element
 * cast, one reduced output element, one normalised element, one LRN element.  The CUDA kernels (cuda/elementwise.cu,
 * cuda/logic.cu, cuda/pool.cu, cuda/norm.cu, cuda/shape.cu, cuda/reduce.cu) call these; written as static inline
 * OV_HD functions in plain C (like ops/ov-math.h), they also compile for the host, where tests/unit/test-cuda-geom.c
 * checks them against the CPU kernels, so the index arithmetic and the op-to-function mapping are tested on
 * machines without a GPU.  Where 16 threads share a row (Softmax over a contiguous axis; the normalisations'
 * statistics, ops/ov-math.h's), a function gives one lane's part, and the row function runs the lanes one after
 * the other.  Each mirrors its CPU kernel's arithmetic and order of accumulation (src/exec/cpu/elementwise.c,
 * cpu/pool.c, cpu/norm.c, cpu/reduce.c, and cpu/misc.c's MeanVarianceNormalization). */
#ifndef OV_EXEC_CUDA_POINTS_H
#define OV_EXEC_CUDA_POINTS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "src/exec/ops/ov-index.h"
#include "src/exec/ops/ov-math.h"
#include "src/exec/ops/ov-window.h"

#ifdef __cplusplus
extern "C" {
#endif
#include "src/base/dtype.h"
#include "src/exec/ops/ops.h"
#ifdef __cplusplus
}
#endif

/* ---- element-wise: the float32 expressions of cpu/elementwise.c's rows, parameter for parameter ---- */

enum cu_un_op {
	CU_U_ABS, CU_U_NEG, CU_U_RELU, CU_U_SIGN, CU_U_SQRT, CU_U_RECIPROCAL, CU_U_EXP, CU_U_LOG, CU_U_ERF, CU_U_SIN,
	CU_U_COS, CU_U_TAN, CU_U_TANH, CU_U_FLOOR, CU_U_CEIL, CU_U_ROUND, CU_U_SIGMOID, CU_U_HARD_SIGMOID,
	CU_U_HARD_SWISH, CU_U_LEAKY_RELU, CU_U_ELU, CU_U_SELU, CU_U_CELU, CU_U_GELU, CU_U_GELU_TANH, CU_U_MISH,
	CU_U_SOFTPLUS, CU_U_SOFTSIGN, CU_U_THRESHOLDED_RELU, CU_U_CLIP, CU_U_ACOS, CU_U_ASIN, CU_U_ATAN, CU_U_ACOSH,
	CU_U_ASINH, CU_U_ATANH, CU_U_COSH, CU_U_SINH, CU_U_SHRINK, CU_U_ISNAN, CU_U_ISINF, CU_U_NOT, CU_U_BITNOT,
};

static inline OV_HD float cu_un_apply(int op, float x, float a, float b)
{
	switch (op) {
	case CU_U_ABS: return fabsf(x);
	case CU_U_NEG: return -x;
	case CU_U_RELU: return ov_relu_f(x);
	case CU_U_SIGN: return ov_sign_f(x);
	case CU_U_SQRT: return sqrtf(x);
	case CU_U_RECIPROCAL: return ov_reciprocal_f(x);
	case CU_U_EXP: return ov_exp_f(x);
	case CU_U_LOG: return ov_log_f(x);
	case CU_U_ERF: return ov_erf_f(x);
	case CU_U_SIN: return sinf(x);
	case CU_U_COS: return cosf(x);
	case CU_U_TAN: return tanf(x);
	case CU_U_TANH: return ov_tanh_f(x);
	case CU_U_FLOOR: return floorf(x);
	case CU_U_CEIL: return ceilf(x);
	case CU_U_ROUND: return ov_round_f(x);
	case CU_U_SIGMOID: return ov_sigmoid_f(x);
	case CU_U_HARD_SIGMOID: return ov_hard_sigmoid_f(x, a, b);
	case CU_U_HARD_SWISH: return ov_hard_swish_f(x);
	case CU_U_LEAKY_RELU: return ov_leaky_relu_f(x, a);
	case CU_U_ELU: return ov_elu_f(x, a);
	case CU_U_SELU: return ov_selu_f(x, a, b);
	case CU_U_CELU: return ov_celu_f(x, a);
	case CU_U_GELU: return ov_gelu_f(x);
	case CU_U_GELU_TANH: return ov_gelu_tanh_f(x);
	case CU_U_MISH: return ov_mish_f(x);
	case CU_U_SOFTPLUS: return ov_softplus_f(x);
	case CU_U_SOFTSIGN: return ov_softsign_f(x);
	case CU_U_THRESHOLDED_RELU: return ov_thresholded_relu_f(x, a);
	case CU_U_CLIP: return ov_clip_f(x, a, b);
	case CU_U_ACOS: return acosf(x);
	case CU_U_ASIN: return asinf(x);
	case CU_U_ATAN: return atanf(x);
	case CU_U_ACOSH: return acoshf(x);
	case CU_U_ASINH: return asinhf(x);
	case CU_U_ATANH: return atanhf(x);
	case CU_U_COSH: return coshf(x);
	case CU_U_SINH: return sinhf(x);
	case CU_U_SHRINK: return ov_shrink_f(x, a, b);
	case CU_U_ISNAN: return x != x;
	case CU_U_ISINF: return ov_isinf_d((double)x, a != 0, b != 0); /* a, b: detect_positive, detect_negative */
	default: return x;
	}
}

/* Mean of two: their float32 sum over 2, as the CPU's Mean (a float32 sum, then a division by the count).  The
 * comparisons give 1 or 0 (stored into bool as != 0); MOD is Mod with fmod=0 (the divisor's sign), FMOD with
 * fmod=1; AND, OR, XOR are the logical ops (bool operands, 0 or 1 in the int64 domain), BAND to SHR the bitwise
 * ones (integer domains; the shifts in uint64 only, as the CPU shifts). */
enum cu_bin_op {
	CU_B_ADD, CU_B_SUB, CU_B_MUL, CU_B_DIV, CU_B_POW, CU_B_MIN, CU_B_MAX, CU_B_MEAN, CU_B_PRELU, CU_B_MOD,
	CU_B_FMOD, CU_B_EQ, CU_B_LT, CU_B_GT, CU_B_LE, CU_B_GE, CU_B_AND, CU_B_OR, CU_B_XOR, CU_B_BAND, CU_B_BOR,
	CU_B_BXOR, CU_B_SHL, CU_B_SHR,
};

static inline OV_HD float cu_bin_apply(int op, float a, float b)
{
	switch (op) {
	case CU_B_ADD: return a + b;
	case CU_B_SUB: return a - b;
	case CU_B_MUL: return a * b;
	case CU_B_DIV: return a / b;
	case CU_B_POW: return powf(a, b);
	case CU_B_MIN: return ov_min_f(a, b);
	case CU_B_MAX: return ov_max_f(a, b);
	case CU_B_MEAN: return (a + b) / 2.0f;
	case CU_B_PRELU: return a < 0 ? a * b : a;
	case CU_B_MOD: return ov_mod_f(a, b);
	case CU_B_FMOD: return fmodf(a, b);
	case CU_B_EQ: return a == b;
	case CU_B_LT: return a < b;
	case CU_B_GT: return a > b;
	case CU_B_LE: return a <= b;
	case CU_B_GE: return a >= b;
	default: return a;
	}
}

/* ---- pooling: output element t of x (planes of w->in_size values, the output's of w->out_size) ---- */

/* The taps of output element t's window, walked in cpu/pool.c's order (the last spatial dim fastest): its plane pl,
 * the offset in the plane of the tap at hand (off), how many taps lie inside the input (taps) and inside the padded
 * input (padded, count_include_pad's divisor); cu_win_next steps to the next tap. */
struct cu_win {
	int64_t pl, off, taps, padded;
	int64_t first[XT_MAX_RANK], cnt[XT_MAX_RANK], kidx[XT_MAX_RANK], st[XT_MAX_RANK];
};

static inline OV_HD void cu_win_start(const struct ops_window *w, int64_t t, struct cu_win *c)
{
	int n = w->n;
	int64_t o = t % w->out_size, s = 1;

	c->pl = t / w->out_size;
	c->taps = c->padded = 1;
	c->off = 0;
	for (int i = n - 1; i >= 0; i--) { /* o's position along each dim, the last fastest */
		int64_t oi = o % w->out[i], t0, t1;
		o /= w->out[i];
		ov_window_taps(oi, w->in[i], w->k[i], w->s[i], w->d[i], w->pb[i], &t0, &t1);
		c->first[i] = oi * w->s[i] - w->pb[i] + t0 * w->d[i];
		c->cnt[i] = t1 - t0;
		c->taps *= c->cnt[i];
		c->padded *= ov_window_padded_taps(oi, w->in[i], w->k[i], w->s[i], w->d[i], w->pb[i], w->pe[i]);
		c->st[i] = s;
		s *= w->in[i];
		c->kidx[i] = 0;
	}
	for (int i = 0; i < n; i++)
		c->off += c->first[i] * c->st[i];
}

static inline OV_HD void cu_win_next(const struct ops_window *w, struct cu_win *c)
{
	for (int i = w->n - 1; i >= 0; i--) {
		c->off += w->d[i] * c->st[i];
		if (++c->kidx[i] < c->cnt[i])
			return;
		c->off -= w->d[i] * c->st[i] * c->cnt[i];
		c->kidx[i] = 0;
	}
}

/* avg: 0 MaxPool, 1 AveragePool, with cpu/pool.c's accumulators: for MaxPool over 1 or 2 spatial dims a float
 * maximum from -inf (NaN never taken), otherwise a double, the first tap always taken by MaxPool; an empty window
 * gives 0. */
static inline OV_HD float cu_pool_point(const struct ops_window *w, int avg, int count_include_pad, const float *x,
					int64_t t)
{
	struct cu_win c;

	cu_win_start(w, t, &c);
	const float *xp = x + c.pl * w->in_size;
	if (!avg && w->n <= 2) {
		float m = -INFINITY;
		for (int64_t q = 0; q < c.taps; q++) {
			float v = xp[c.off];
			m = v > m ? v : m;
			cu_win_next(w, &c);
		}
		return c.taps ? m : 0.0f;
	}
	double acc = avg ? 0.0 : -INFINITY;
	for (int64_t q = 0; q < c.taps; q++) {
		double v = (double)xp[c.off];
		if (avg)
			acc += v;
		else if (v > acc || q == 0)
			acc = v;
		cu_win_next(w, &c);
	}
	if (!avg)
		return (float)(c.taps ? acc : 0);
	int64_t div = count_include_pad ? c.padded : c.taps;
	return (float)(div ? acc / (double)div : 0);
}

/* MaxPool with its Indices output, as cpu/pool.c computes it at any rank: a double maximum, the first tap always
 * taken and then a greater one, and *index the flat index of the tap taken: the plane times the plane's size plus
 * the tap's offset in the plane, in row-major order (storage_order 0) or column-major (1).  An empty window gives
 * 0 and index 0. */
static inline OV_HD float cu_maxpool_index_point(const struct ops_window *w, int storage_order, const float *x,
						 int64_t t, int64_t *index)
{
	struct cu_win c;
	double acc = -INFINITY;
	int64_t best = -1;

	cu_win_start(w, t, &c);
	const float *xp = x + c.pl * w->in_size;
	for (int64_t q = 0; q < c.taps; q++) {
		double v = (double)xp[c.off];
		if (v > acc || q == 0) {
			acc = v;
			best = c.off;
			if (storage_order) {
				int64_t cs = 1;
				best = 0;
				for (int i = 0; i < w->n; i++) {
					best += (c.first[i] + c.kidx[i] * w->d[i]) * cs;
					cs *= w->in[i];
				}
			}
		}
		cu_win_next(w, &c);
	}
	*index = best < 0 ? 0 : c.pl * w->in_size + best;
	return (float)(c.taps ? acc : 0);
}

/* ---- softmax: the row of len values at base, inner apart (logsm: LogSoftmax) ----
 * cpu/norm.c's arithmetic: the maximum, the float exponentials ov_exp_f(x - max) summed in double in
 * ov_sum16_f's 16 lanes (lane l takes the elements j = l mod 16 of the row), then y = e * (float)(1 / sum), or
 * x - max - (float)log(sum) for LogSoftmax; the same whether the row is contiguous (inner 1) or strided (the axis
 * is not the last: YOLOv8's DFL softmax over 16 bins, inner 8400).  cuda/norm.cu gives a contiguous row to 16
 * threads (the cu_softmax_lane_ functions, folded with shuffles as cu_fold16_max and ov_fold16 fold them), a
 * strided one to one thread; cu_softmax_row runs the 16 lanes one after the other, the same arithmetic.  The
 * maximum skips NaN (x > max is false for it) and is exact in any order but for the sign of a zero maximum, which
 * shows in no output: x - max is then +-0 only for x a zero, exp gives 1 for both, and for LogSoftmax two zeros in
 * the row make the sum at least 2, so that +-0 - log(sum) is -log(sum) either way. */

/* Lane lane's maximum of the row xp of len values st apart, from -inf. */
static inline OV_HD float cu_softmax_lane_max(const float *xp, int64_t len, int64_t st, int lane)
{
	float mx = -INFINITY;

	for (int64_t j = lane; j < len; j += 16)
		mx = xp[j * st] > mx ? xp[j * st] : mx;
	return mx;
}

/* The two lanes' maximum, as the shuffle tree takes it: lane q's a with lane q + w's b. */
static inline OV_HD float cu_max2_f(float a, float b)
{
	return b > a ? b : a;
}

/* The 16 lane maxima m (overwritten) folded as ov_fold16 folds sums. */
static inline OV_HD float cu_fold16_max(float *m)
{
	for (int w = 8; w >= 1; w /= 2)
		for (int q = 0; q < w; q++)
			m[q] = cu_max2_f(m[q], m[q + w]);
	return m[0];
}

/* Lane lane's exponentials e = ov_exp_f(x - mx) (into yp for Softmax) and their double sum. */
static inline OV_HD double cu_softmax_lane_exp(const float *xp, float *yp, int64_t len, int64_t st, float mx,
					       int logsm, int lane)
{
	double s = 0;

	for (int64_t j = lane; j < len; j += 16) {
		float e = ov_exp_f(xp[j * st] - mx);
		if (!logsm)
			yp[j * st] = e;
		s += e;
	}
	return s;
}

/* Lane lane's outputs from the row's maximum and sum: e (in yp) * (float)(1 / sum), or x - mx - (float)log(sum). */
static inline OV_HD void cu_softmax_lane_write(const float *xp, float *yp, int64_t len, int64_t st, float mx,
					       double sum, int logsm, int lane)
{
	if (!logsm) {
		float r = (float)(1 / sum);
		for (int64_t j = lane; j < len; j += 16)
			yp[j * st] *= r;
	} else {
		float ls = (float)log(sum);
		for (int64_t j = lane; j < len; j += 16)
			yp[j * st] = xp[j * st] - mx - ls;
	}
}

/* Any row, its 16 lanes one after the other. */
static inline OV_HD void cu_softmax_row(const float *x, float *y, int64_t base, int64_t len, int64_t inner, int logsm)
{
	const float *xp = x + base;
	float *yp = y + base, m[16];
	double l[16];
	for (int q = 0; q < 16; q++)
		m[q] = cu_softmax_lane_max(xp, len, inner, q);
	float mx = cu_fold16_max(m);
	for (int q = 0; q < 16; q++)
		l[q] = cu_softmax_lane_exp(xp, yp, len, inner, mx, logsm, q);
	double sum = ov_fold16(l);
	for (int q = 0; q < 16; q++)
		cu_softmax_lane_write(xp, yp, len, inner, mx, sum, logsm, q);
}

/* ---- element access in double, for the kernels that compute in double as the CPU does ---- */

/* Element i of a float32, float64, float16 or bfloat16 buffer, as xt_get reads it. */
static inline OV_HD double cu_load_d(const void *p, int dt, int64_t i)
{
	return ov_load_d(p, dt, i);
}

/* Store v as xt_set does for the float types: through float for the 16-bit ones (a NaN's payload bits aside). */
static inline OV_HD void cu_store_d(void *p, int dt, int64_t i, double v)
{
	switch (dt) {
	case OV_DT_FLOAT: ((float *)p)[i] = (float)v; break;
	case OV_DT_DOUBLE: ((double *)p)[i] = v; break;
	case OV_DT_FLOAT16: ((uint16_t *)p)[i] = ov_f32_to_f16((float)v); break;
	default: ((uint16_t *)p)[i] = ov_f32_to_bf16((float)v); break;
	}
}

/* ---- pools computed in double on float32 or float64 x (dt) ---- */

/* LpPool's output element t: the sum over the window's taps of |x|^p (x * x when p is 2) in double, in
 * cpu/pool.c's order, then its p-th root (sqrt when p is 2); padding adds nothing, an empty window gives 0. */
static inline OV_HD double cu_lppool_point(const struct ops_window *w, double p, const void *x, int dt, int64_t t)
{
	struct cu_win c;
	double acc = 0;

	cu_win_start(w, t, &c);
	int64_t base = c.pl * w->in_size;
	for (int64_t q = 0; q < c.taps; q++) {
		double v = cu_load_d(x, dt, base + c.off);
		acc += p == 2 ? v * v : pow(fabs(v), p);
		cu_win_next(w, &c);
	}
	return p == 2 ? sqrt(acc) : pow(acc, 1.0 / p);
}

/* GlobalLpPool over the n values at base: the sum of |x|^p in order (pow even when p is 2, as cpu/pool.c's
 * global_pool), then its p-th root. */
static inline OV_HD double cu_global_lp_point(const void *x, int dt, int64_t base, int64_t n, double p)
{
	double acc = 0;

	for (int64_t j = 0; j < n; j++)
		acc += pow(fabs(cu_load_d(x, dt, base + j)), p);
	return pow(acc, 1.0 / p);
}

/* ---- Cast: element i of x (type sdt) into element i of y (type ddt), as cpu/elementwise.c's conv_array ----
 * Through one of three domains as the CPU's loops go: a float type as double (to an integer: truncated toward
 * zero, saturating into int64, NaN to 0, then wrapped into the narrower type; to bool: != 0, so NaN is true; to
 * float16/bfloat16: rounded once, from the double), a signed integer as int64, an unsigned integer or bool as
 * uint64 (integers wrap).  Types: cu_cast_type. */
static inline OV_HD int cu_cast_type(int32_t dt)
{
	switch (dt) {
	case OV_DT_FLOAT: case OV_DT_DOUBLE: case OV_DT_FLOAT16: case OV_DT_BFLOAT16:
	case OV_DT_INT8: case OV_DT_INT16: case OV_DT_INT32: case OV_DT_INT64:
	case OV_DT_UINT8: case OV_DT_UINT16: case OV_DT_UINT32: case OV_DT_UINT64: case OV_DT_BOOL:
		return 1;
	default:
		return 0;
	}
}

/* one conversion per domain (never through a ?: of mixed types, which would convert int64 to float via double) */
#define CU_CAST_STORE(T, FROM_D, FROM_I, FROM_U)          \
	do {                                              \
		if (dom == 0)                             \
			((T *)y)[iy] = (T)(FROM_D);       \
		else if (dom == 1)                        \
			((T *)y)[iy] = (T)(FROM_I);       \
		else                                      \
			((T *)y)[iy] = (T)(FROM_U);       \
	} while (0)

/* Element ix of x into element iy of y (cu_cast_point with an index on each side). */
static inline OV_HD void cu_convert(const void *x, int sdt, int64_t ix, void *y, int ddt, int64_t iy)
{
	double d = 0;
	int64_t s = 0;
	uint64_t u = 0;
	int dom = 0; /* 0: d, 1: s, 2: u */

	switch (sdt) {
	case OV_DT_FLOAT: d = (double)((const float *)x)[ix]; break;
	case OV_DT_DOUBLE: d = ((const double *)x)[ix]; break;
	case OV_DT_FLOAT16: d = (double)ov_f16_to_f32(((const uint16_t *)x)[ix]); break;
	case OV_DT_BFLOAT16: d = (double)ov_bf16_to_f32(((const uint16_t *)x)[ix]); break;
	case OV_DT_INT8: s = ((const int8_t *)x)[ix], dom = 1; break;
	case OV_DT_INT16: s = ((const int16_t *)x)[ix], dom = 1; break;
	case OV_DT_INT32: s = ((const int32_t *)x)[ix], dom = 1; break;
	case OV_DT_INT64: s = ((const int64_t *)x)[ix], dom = 1; break;
	case OV_DT_UINT8: u = ((const uint8_t *)x)[ix], dom = 2; break;
	case OV_DT_UINT16: u = ((const uint16_t *)x)[ix], dom = 2; break;
	case OV_DT_UINT32: u = ((const uint32_t *)x)[ix], dom = 2; break;
	case OV_DT_UINT64: u = ((const uint64_t *)x)[ix], dom = 2; break;
	default: u = ((const uint8_t *)x)[ix] != 0, dom = 2; break; /* bool */
	}
	switch (ddt) {
	case OV_DT_FLOAT: CU_CAST_STORE(float, d, s, u); break;
	case OV_DT_DOUBLE: CU_CAST_STORE(double, d, s, u); break;
	case OV_DT_FLOAT16:
		CU_CAST_STORE(uint16_t, ov_f64_to_f16(d), ov_f64_to_f16((double)s), ov_f64_to_f16((double)u));
		break;
	case OV_DT_BFLOAT16:
		CU_CAST_STORE(uint16_t, ov_f64_to_bf16(d), ov_f64_to_bf16((double)s), ov_f64_to_bf16((double)u));
		break;
	case OV_DT_INT8: CU_CAST_STORE(int8_t, ov_f64_to_i64(d), s, u); break;
	case OV_DT_INT16: CU_CAST_STORE(int16_t, ov_f64_to_i64(d), s, u); break;
	case OV_DT_INT32: CU_CAST_STORE(int32_t, ov_f64_to_i64(d), s, u); break;
	case OV_DT_INT64: CU_CAST_STORE(int64_t, ov_f64_to_i64(d), s, u); break;
	case OV_DT_UINT8: CU_CAST_STORE(uint8_t, ov_f64_to_i64(d), s, u); break;
	case OV_DT_UINT16: CU_CAST_STORE(uint16_t, ov_f64_to_i64(d), s, u); break;
	case OV_DT_UINT32: CU_CAST_STORE(uint32_t, ov_f64_to_i64(d), s, u); break;
	case OV_DT_UINT64: CU_CAST_STORE(uint64_t, ov_f64_to_u64(d), s, u); break;
	default: CU_CAST_STORE(uint8_t, d != 0, s != 0, u != 0); break; /* bool */
	}
}

static inline OV_HD void cu_cast_point(const void *x, int sdt, void *y, int ddt, int64_t i)
{
	cu_convert(x, sdt, i, y, ddt, i);
}

/* ---- element-wise ops in cpu/elementwise.c's compute domains ----
 * The CPU computes an element-wise op in one of four domains: float32 (for float32, float16 and bfloat16), double,
 * int64 (the signed integers, the unsigned ones narrower than 64 bits, and bool where an op takes it: 0 or 1) and
 * uint64.  An operand of another type is converted into the domain, and the result out of it into the output's
 * type, as Cast converts (cu_convert): so int32 arithmetic wraps as int64 arithmetic stored back into int32, an
 * int32 division INT32_MIN / -1 gives INT32_MIN, and a comparison's 1 or 0 becomes a bool.  cu_un_point and
 * cu_bin_point do that for one element; the host picks the domain as the CPU does. */
enum cu_dom { CU_DOM_F32, CU_DOM_F64, CU_DOM_I64, CU_DOM_U64 };

/* Sets of domains an op takes (its CPU family's loops), for cu_dom_pick; CU_D_BOOL: bool operands, in int64. */
#define CU_D_F32 (1u << CU_DOM_F32)
#define CU_D_F64 (1u << CU_DOM_F64)
#define CU_D_FLOAT (CU_D_F32 | CU_D_F64)
#define CU_D_INT ((1u << CU_DOM_I64) | (1u << CU_DOM_U64))
#define CU_D_NUM (CU_D_FLOAT | CU_D_INT)
#define CU_D_BOOL (1u << 4)

/* The domain of an element type (bool: none; the ops that take it treat it as int64), -1 for none. */
static inline OV_HD int cu_dom_of(int32_t dt)
{
	switch (dt) {
	case OV_DT_FLOAT: case OV_DT_FLOAT16: case OV_DT_BFLOAT16: return CU_DOM_F32;
	case OV_DT_DOUBLE: return CU_DOM_F64;
	case OV_DT_INT8: case OV_DT_INT16: case OV_DT_INT32: case OV_DT_INT64:
	case OV_DT_UINT8: case OV_DT_UINT16: case OV_DT_UINT32: return CU_DOM_I64;
	case OV_DT_UINT64: return CU_DOM_U64;
	default: return -1;
	}
}

/* The domain an op of the set doms computes dt in, -1 when it does not take dt. */
static inline OV_HD int cu_dom_pick(int32_t dt, unsigned doms)
{
	int d = cu_dom_of(dt);

	if (dt == OV_DT_BOOL)
		return doms & CU_D_BOOL ? CU_DOM_I64 : -1;
	return d >= 0 && (doms & (1u << d)) ? d : -1;
}

/* Pow's domain for a base of type ta and an exponent of type tb (any numeric types; -1 for others): the base's,
 * but an integer base with a float exponent in double (truncated back), with a uint64 exponent in uint64. */
static inline OV_HD int cu_pow_dom(int32_t ta, int32_t tb)
{
	int da = cu_dom_of(ta), db = cu_dom_of(tb);

	if (da < 0 || db < 0)
		return -1;
	if (da >= CU_DOM_I64 && db <= CU_DOM_F64)
		return CU_DOM_F64;
	if (da == CU_DOM_I64 && tb == OV_DT_UINT64)
		return CU_DOM_U64;
	return da;
}

/* Element i of p (type dt) in a domain's type, and a domain's value stored into element i of p; the float types
 * go straight through (the float32 path of a float model). */
static inline OV_HD float cu_get_f(const void *p, int dt, int64_t i)
{
	float v;

	switch (dt) {
	case OV_DT_FLOAT: return ((const float *)p)[i];
	case OV_DT_FLOAT16: return ov_f16_to_f32(((const uint16_t *)p)[i]);
	case OV_DT_BFLOAT16: return ov_bf16_to_f32(((const uint16_t *)p)[i]);
	default: cu_convert(p, dt, i, &v, OV_DT_FLOAT, 0); return v;
	}
}

static inline OV_HD void cu_put_f(void *p, int dt, int64_t i, float v)
{
	switch (dt) {
	case OV_DT_FLOAT: ((float *)p)[i] = v; break;
	case OV_DT_FLOAT16: ((uint16_t *)p)[i] = ov_f32_to_f16(v); break;
	case OV_DT_BFLOAT16: ((uint16_t *)p)[i] = ov_f32_to_bf16(v); break;
	default: cu_convert(&v, OV_DT_FLOAT, 0, p, dt, i); break;
	}
}

/* Element i of a buffer of any type cu_cast_type takes, as a double: what Cast gives, which is also what xt_get
 * reads (bool as 0 or 1). */
static inline OV_HD double cu_get_d(const void *p, int dt, int64_t i)
{
	double v;

	if (dt == OV_DT_DOUBLE)
		return ((const double *)p)[i];
	cu_convert(p, dt, i, &v, OV_DT_DOUBLE, 0);
	return v;
}

static inline OV_HD void cu_put_d(void *p, int dt, int64_t i, double v)
{
	if (dt == OV_DT_DOUBLE)
		((double *)p)[i] = v;
	else
		cu_convert(&v, OV_DT_DOUBLE, 0, p, dt, i);
}

static inline OV_HD int64_t cu_get_i(const void *p, int dt, int64_t i)
{
	int64_t v;

	if (dt == OV_DT_INT64)
		return ((const int64_t *)p)[i];
	cu_convert(p, dt, i, &v, OV_DT_INT64, 0);
	return v;
}

static inline OV_HD void cu_put_i(void *p, int dt, int64_t i, int64_t v)
{
	if (dt == OV_DT_INT64)
		((int64_t *)p)[i] = v;
	else
		cu_convert(&v, OV_DT_INT64, 0, p, dt, i);
}

static inline OV_HD uint64_t cu_get_u(const void *p, int dt, int64_t i)
{
	uint64_t v;

	cu_convert(p, dt, i, &v, OV_DT_UINT64, 0);
	return v;
}

static inline OV_HD void cu_put_u(void *p, int dt, int64_t i, uint64_t v)
{
	cu_convert(&v, OV_DT_UINT64, 0, p, dt, i);
}

/* The unary ops outside float32, with cpu/elementwise.c's loops: Abs, Neg, Relu, Sign and Shrink in every domain,
 * IsNaN and IsInf in double, Not (bool, in int64) and BitwiseNot in the integer ones; a and b as for
 * cu_un_apply (Shrink's bias and lambd, IsInf's detections). */
static inline OV_HD double cu_un_apply_d(int op, double x, double a, double b)
{
	switch (op) {
	case CU_U_ABS: return fabs(x);
	case CU_U_NEG: return -x;
	case CU_U_RELU: return ov_relu_d(x);
	case CU_U_SIGN: return ov_sign_d(x);
	case CU_U_SHRINK: return ov_shrink_d(x, a, b);
	case CU_U_ISNAN: return x != x;
	case CU_U_ISINF: return ov_isinf_d(x, a != 0, b != 0);
	default: return x;
	}
}

static inline OV_HD int64_t cu_un_apply_i(int op, int64_t x, double a, double b)
{
	switch (op) {
	case CU_U_ABS: return ov_abs_i64(x);
	case CU_U_NEG: return ov_neg_i64(x);
	case CU_U_RELU: return x < 0 ? 0 : x;
	case CU_U_SIGN: return ov_sign_i64(x);
	case CU_U_SHRINK: return ov_f64_to_i64(ov_shrink_d((double)x, a, b));
	case CU_U_NOT: return !x;
	case CU_U_BITNOT: return ~x;
	default: return x;
	}
}

static inline OV_HD uint64_t cu_un_apply_u(int op, uint64_t x, double a, double b)
{
	switch (op) {
	case CU_U_NEG: return 0 - x;
	case CU_U_SIGN: return x > 0;
	case CU_U_SHRINK: return ov_f64_to_u64(ov_shrink_d((double)x, a, b));
	case CU_U_BITNOT: return ~x;
	default: return x; /* Abs, Relu */
	}
}

/* y[i] = op(x[i]) in domain dom (x of type tx, y of type ty). */
static inline OV_HD void cu_un_point(int op, int dom, float a, float b, const void *x, int tx, void *y, int ty,
				     int64_t i)
{
	switch (dom) {
	case CU_DOM_F32: cu_put_f(y, ty, i, cu_un_apply(op, cu_get_f(x, tx, i), a, b)); break;
	case CU_DOM_F64: cu_put_d(y, ty, i, cu_un_apply_d(op, cu_get_d(x, tx, i), a, b)); break;
	case CU_DOM_I64: cu_put_i(y, ty, i, cu_un_apply_i(op, cu_get_i(x, tx, i), a, b)); break;
	default: cu_put_u(y, ty, i, cu_un_apply_u(op, cu_get_u(x, tx, i), a, b)); break;
	}
}

/* The binary ops in double, int64 and uint64, with cpu/elementwise.c's loops (integer division by zero gives 0,
 * arithmetic wraps: ops/ov-math.h). */
static inline OV_HD double cu_bin_apply_d(int op, double a, double b)
{
	switch (op) {
	case CU_B_ADD: return a + b;
	case CU_B_SUB: return a - b;
	case CU_B_MUL: return a * b;
	case CU_B_DIV: return a / b;
	case CU_B_POW: return pow(a, b);
	case CU_B_MIN: return ov_min_d(a, b);
	case CU_B_MAX: return ov_max_d(a, b);
	case CU_B_MEAN: return (a + b) / 2.0;
	case CU_B_PRELU: return a < 0 ? a * b : a;
	case CU_B_MOD: return ov_mod_d(a, b);
	case CU_B_FMOD: return fmod(a, b);
	case CU_B_EQ: return a == b;
	case CU_B_LT: return a < b;
	case CU_B_GT: return a > b;
	case CU_B_LE: return a <= b;
	case CU_B_GE: return a >= b;
	default: return a;
	}
}

static inline OV_HD int64_t cu_bin_apply_i(int op, int64_t a, int64_t b)
{
	switch (op) {
	case CU_B_ADD: return ov_add_i64(a, b);
	case CU_B_SUB: return ov_sub_i64(a, b);
	case CU_B_MUL: return ov_mul_i64(a, b);
	case CU_B_DIV: return ov_div_i64(a, b);
	case CU_B_POW: return ov_pow_i64(a, b);
	case CU_B_MIN: return a < b ? a : b;
	case CU_B_MAX: return a > b ? a : b;
	case CU_B_PRELU: return a < 0 ? ov_mul_i64(a, b) : a;
	case CU_B_MOD: return ov_mod_i64(a, b);
	case CU_B_FMOD: return ov_fmod_i64(a, b);
	case CU_B_EQ: return a == b;
	case CU_B_LT: return a < b;
	case CU_B_GT: return a > b;
	case CU_B_LE: return a <= b;
	case CU_B_GE: return a >= b;
	case CU_B_AND: return (a != 0) & (b != 0);
	case CU_B_OR: return (a != 0) | (b != 0);
	case CU_B_XOR: return (a != 0) ^ (b != 0);
	case CU_B_BAND: return a & b;
	case CU_B_BOR: return a | b;
	case CU_B_BXOR: return a ^ b;
	case CU_B_SHL: return ov_shl_i64(a, b);
	case CU_B_SHR: return ov_shr_i64(a, b);
	default: return a;
	}
}

static inline OV_HD uint64_t cu_bin_apply_u(int op, uint64_t a, uint64_t b)
{
	switch (op) {
	case CU_B_ADD: return a + b;
	case CU_B_SUB: return a - b;
	case CU_B_MUL: return a * b;
	case CU_B_DIV: return ov_div_u64(a, b);
	case CU_B_POW: return ov_pow_u64(a, b);
	case CU_B_MIN: return a < b ? a : b;
	case CU_B_MAX: return a > b ? a : b;
	case CU_B_MOD: case CU_B_FMOD: return ov_mod_u64(a, b);
	case CU_B_EQ: return a == b;
	case CU_B_LT: return a < b;
	case CU_B_GT: return a > b;
	case CU_B_LE: return a <= b;
	case CU_B_GE: return a >= b;
	case CU_B_BAND: return a & b;
	case CU_B_BOR: return a | b;
	case CU_B_BXOR: return a ^ b;
	case CU_B_SHL: return ov_shl_u64(a, b);
	case CU_B_SHR: return ov_shr_u64(a, b);
	default: return a; /* PRelu */
	}
}

/* y[i] = op(a[ia], b[ib]) in domain dom. */
static inline OV_HD void cu_bin_point(int op, int dom, const void *a, int ta, int64_t ia, const void *b, int tb,
				      int64_t ib, void *y, int ty, int64_t i)
{
	switch (dom) {
	case CU_DOM_F32: cu_put_f(y, ty, i, cu_bin_apply(op, cu_get_f(a, ta, ia), cu_get_f(b, tb, ib))); break;
	case CU_DOM_F64: cu_put_d(y, ty, i, cu_bin_apply_d(op, cu_get_d(a, ta, ia), cu_get_d(b, tb, ib))); break;
	case CU_DOM_I64: cu_put_i(y, ty, i, cu_bin_apply_i(op, cu_get_i(a, ta, ia), cu_get_i(b, tb, ib))); break;
	default: cu_put_u(y, ty, i, cu_bin_apply_u(op, cu_get_u(a, ta, ia), cu_get_u(b, tb, ib))); break;
	}
}

/* ---- reductions: one output element ----
 * The output's elements are the kept axes' positions in C order; each walks the reduced axes in C order (so its
 * input elements in the order the CPU meets them) from the input offset of its kept positions. */
struct cu_reduce {
	int n_kept, n_red;
	int64_t kept_dims[XT_MAX_RANK], kept_str[XT_MAX_RANK]; /* input strides */
	int64_t red_dims[XT_MAX_RANK], red_str[XT_MAX_RANK];
	int64_t count;                                         /* elements per output element */
};

/* The plan of reducing the axes red[a] != 0 of dims (rank of them), on the host: the kept axes in the output's order
 * and the reduced ones, with their strides in the input. */
static inline void cu_reduce_make(const int64_t *dims, int rank, const int *red, struct cu_reduce *r)
{
	int64_t s = 1, str[XT_MAX_RANK];

	memset(r, 0, sizeof *r);
	for (int a = rank - 1; a >= 0; a--) {
		str[a] = s;
		s *= dims[a];
	}
	r->count = 1;
	for (int a = 0; a < rank; a++) {
		if (red[a]) {
			r->count *= dims[a];
			r->red_dims[r->n_red] = dims[a];
			r->red_str[r->n_red++] = str[a];
		} else {
			r->kept_dims[r->n_kept] = dims[a];
			r->kept_str[r->n_kept++] = str[a];
		}
	}
}

/* The output element (the kept axes' positions in C order) that input element i folds into. */
static inline OV_HD int64_t cu_reduce_out_index(const struct cu_reduce *r, int64_t i)
{
	int64_t o = 0;

	for (int a = 0; a < r->n_kept; a++)
		o = o * r->kept_dims[a] + i / r->kept_str[a] % r->kept_dims[a];
	return o;
}

static inline OV_HD int64_t cu_reduce_base(const struct cu_reduce *r, int64_t o)
{
	int64_t off = 0;

	for (int a = r->n_kept - 1; a >= 0; a--) {
		int64_t q = o / r->kept_dims[a];
		off += (o - q * r->kept_dims[a]) * r->kept_str[a];
		o = q;
	}
	return off;
}

/* Advance *off and idx to the next reduced element. */
static inline OV_HD void cu_reduce_next(const struct cu_reduce *r, int64_t *idx, int64_t *off)
{
	for (int a = r->n_red - 1; a >= 0; a--) {
		*off += r->red_str[a];
		if (++idx[a] < r->red_dims[a])
			return;
		*off -= r->red_str[a] * r->red_dims[a];
		idx[a] = 0;
	}
}

/* Output element o of reduction op (ops/ov-math.h's enum ov_red_op) over x, a float type (cu_load_d), in double. */
static inline OV_HD double cu_reduce_point_d(const struct cu_reduce *r, int op, const void *x, int dt, int64_t o)
{
	int64_t base = cu_reduce_base(r, o), idx[XT_MAX_RANK], off;
	double shift = 0, acc = ov_red_init_d(op);

	/* float32 Sum and Mean over a contiguous run (the reduced axes of more than one element innermost, one after
	 * the other): in ov_sum16_f's order, as cpu/reduce.c */
	if (dt == OV_DT_FLOAT && (op == OV_RED_SUM || op == OV_RED_MEAN) && r->count > 0) {
		int64_t step = 1;
		int run = 0;
		for (int a = r->n_red - 1; a >= 0; a--) {
			if (r->red_dims[a] == 1)
				continue;
			run = r->red_str[a] == step;
			if (!run)
				break;
			step *= r->red_dims[a];
		}
		if (run)
			return ov_red_final_d(op, ov_sum16_f((const float *)x + base, r->count), r->count, 0);
	}

	if (op == OV_RED_LOGSUMEXP) {
		double m = -INFINITY;
		off = base;
		for (int a = 0; a < r->n_red; a++)
			idx[a] = 0;
		for (int64_t t = 0; t < r->count; t++) {
			m = ov_red_step_d(OV_RED_MAX, m, cu_load_d(x, dt, off), 0);
			cu_reduce_next(r, idx, &off);
		}
		shift = isfinite(m) ? m : 0;
	}
	off = base;
	for (int a = 0; a < r->n_red; a++)
		idx[a] = 0;
	for (int64_t t = 0; t < r->count; t++) {
		acc = ov_red_step_d(op, acc, cu_load_d(x, dt, off), shift);
		cu_reduce_next(r, idx, &off);
	}
	return ov_red_final_d(op, acc, r->count, shift);
}

/* The same over int32 or int64 x in wrapping int64 (Mean truncates: the integer division of the sum). */
static inline OV_HD int64_t cu_reduce_point_i(const struct cu_reduce *r, int op, const void *x, int dt, int64_t o)
{
	int64_t off = cu_reduce_base(r, o), idx[XT_MAX_RANK], acc = ov_red_init_i(op, 0);

	for (int a = 0; a < r->n_red; a++)
		idx[a] = 0;
	for (int64_t t = 0; t < r->count; t++) {
		int64_t v = dt == OV_DT_INT64 ? ((const int64_t *)x)[off] : (int64_t)((const int32_t *)x)[off];
		acc = ov_red_step_i(op, acc, v, 0);
		cu_reduce_next(r, idx, &off);
	}
	if (op == OV_RED_MEAN)
		acc = r->count ? acc / r->count : 0;
	return acc;
}

/* Store an int64 result as cpu/reduce.c's store_i does: int64 as is, int32 saturated (through xt_set's double). */
static inline OV_HD void cu_store_i(void *y, int dt, int64_t i, int64_t v)
{
	if (dt == OV_DT_INT64) {
		((int64_t *)y)[i] = v;
		return;
	}
	double d = (double)v;
	((int32_t *)y)[i] = (int32_t)(d < -2147483648.0 ? -2147483648.0 : d > 2147483647.0 ? 2147483647.0 : d);
}

/* ArgMax (want_max) or ArgMin over the len values at base, inner apart: the position, as cpu/reduce.c's arg_run
 * (float types compared as doubles, int32/int64 as int64). */
static inline OV_HD int64_t cu_arg_point(const void *x, int dt, int64_t base, int64_t len, int64_t inner,
					 int want_max, int last)
{
	int64_t best = 0;

	if (dt == OV_DT_INT64 || dt == OV_DT_INT32) {
		int64_t bv = dt == OV_DT_INT64 ? ((const int64_t *)x)[base] : ((const int32_t *)x)[base];
		for (int64_t j = 1; j < len; j++) {
			int64_t at = base + j * inner;
			int64_t v = dt == OV_DT_INT64 ? ((const int64_t *)x)[at] : ((const int32_t *)x)[at];
			ov_arg_step_i(v, j, want_max, last, 0, &bv, &best);
		}
		return best;
	}
	double bv = cu_load_d(x, dt, base);
	for (int64_t j = 1; j < len; j++)
		ov_arg_step_d(cu_load_d(x, dt, base + j * inner), j, want_max, last, &bv, &best);
	return best;
}

/* ---- normalisations: the statistics are ops/ov-math.h's (ov_norm_stats16, one lane a thread in cuda/norm.cu) ---- */

/* y from x of a row or group with mean m and inv = 1/sqrt(variance + eps), as cpu/norm.c writes it:
 * - LayerNormalization: (x - m) * inv * scale + bias in double (bias 0 when there is none: still added, so -0
 *   becomes +0 as on the CPU);
 * - InstanceNormalization and GroupNormalization on float32: a float multiply-add with the channel's (or group's)
 *   factor and offset rounded to float; on float64: in double;
 * - BatchNormalization (a, b: cu_batchnorm_fold's): on float32 with one scale per channel over more than one
 *   element (per_channel), a float multiply-add; else in double. */
static inline OV_HD double cu_layernorm_value(double x, double m, double inv, double scale, double bias)
{
	return (x - m) * inv * scale + bias;
}

static inline OV_HD float cu_group_norm_f(float x, double m, double inv, double scale, double bias)
{
	float a = (float)(inv * scale), b = (float)(bias - m * inv * scale);
	return x * a + b;
}

static inline OV_HD double cu_group_norm_d(double x, double m, double inv, double scale, double bias)
{
	return (x - m) * inv * scale + bias;
}

static inline OV_HD float cu_batchnorm_f(float x, double a, double b, int per_channel)
{
	if (per_channel)
		return x * (float)a + (float)b;
	return (float)(x * a + b);
}

/* BatchNormalization's factor and offset from its parameters, in double as cpu/norm.c computes them. */
static inline OV_HD void cu_batchnorm_fold(double scale, double bias, double mean, double var, double eps, double *a,
					   double *b)
{
	*a = scale / sqrt(var + eps);
	*b = bias - mean * *a;
}

/* MeanVarianceNormalization (cpu/misc.c's k_mvn): over output element o's values of the reduction r (the
 * normalised axes), summed in double in x's order with their squares, the mean and the divisor
 * sqrt(E[x^2] - E[x]^2, negatives as 0) + 1e-9, the op's function body; y = (x - mean) / den. */
static inline OV_HD void cu_mvn_stats(const struct cu_reduce *r, const void *x, int dt, int64_t o, double *mean,
				      double *den)
{
	int64_t off = cu_reduce_base(r, o), idx[XT_MAX_RANK];
	double sum = 0, sq = 0;

	for (int a = 0; a < r->n_red; a++)
		idx[a] = 0;
	for (int64_t t = 0; t < r->count; t++) {
		double v = cu_load_d(x, dt, off);
		sum += v;
		sq += v * v;
		cu_reduce_next(r, idx, &off);
	}
	double m = sum / (double)r->count, var = sq / (double)r->count - m * m;
	*mean = m;
	*den = sqrt(var > 0 ? var : 0) + 1e-9;
}

/* LRN's element i of x, (N, C, inner...) float32 or float64: x over (bias + alpha / size * the sum of the squares
 * of the channels around it, in channel order)^beta, in double as cpu/norm.c computes it. */
static inline OV_HD double cu_lrn_point(const void *x, int dt, int64_t c, int64_t inner, int64_t size, double alpha,
					double beta, double bias, int64_t i)
{
	int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
	int64_t q = i / inner, in = i - q * inner, n = q / c, ch = q - n * c;
	int64_t c0 = ch - lo < 0 ? 0 : ch - lo, c1 = ch + hi >= c ? c - 1 : ch + hi;
	double sq = 0;

	for (int64_t cc = c0; cc <= c1; cc++) {
		double v = cu_load_d(x, dt, (n * c + cc) * inner + in);
		sq += v * v;
	}
	return cu_load_d(x, dt, i) / pow(bias + alpha / (double)size * sq, beta);
}

/* Hardmax over the len values at base, inner apart, of type dt: 1 at the first greatest (compared as doubles from
 * -inf, so NaN is never taken, and a row of NaN or -inf marks its first), 0 elsewhere, as cpu/norm.c. */
static inline OV_HD void cu_hardmax_row(const void *x, void *y, int dt, int64_t base, int64_t len, int64_t inner)
{
	double mx = -INFINITY;
	int64_t arg = 0;

	for (int64_t j = 0; j < len; j++) {
		double v = cu_load_d(x, dt, base + j * inner);
		if (v > mx) {
			mx = v;
			arg = j;
		}
	}
	for (int64_t j = 0; j < len; j++)
		cu_store_d(y, dt, base + j * inner, j == arg ? 1.0 : 0.0);
}

#endif
