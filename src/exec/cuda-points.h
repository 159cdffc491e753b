/* What one CUDA thread computes: an element-wise op on one value or pair, one pooled output element, one softmax
 * row, one element cast, one reduced output element, the statistics of one normalised row or group.  The CUDA
 * kernels (cuda-elementwise.cu, cuda-pool.cu, cuda-norm.cu, cuda-shape.cu, cuda-reduce.cu) call these; written
 * as static inline OV_HD functions in plain C (like ov-math.h), they also compile for the host, where
 * tests/unit/test-cuda-geom.c checks them against the CPU kernels, so the index arithmetic and the op-to-function
 * mapping are tested on machines without a GPU.  Each mirrors its CPU kernel's arithmetic and order of
 * accumulation (src/exec/cpu-elementwise.c, cpu-pool.c, cpu-norm.c, cpu-reduce.c). */
#ifndef OV_EXEC_CUDA_POINTS_H
#define OV_EXEC_CUDA_POINTS_H

#include <math.h>
#include <stdint.h>

#include "src/exec/ov-index.h"
#include "src/exec/ov-math.h"
#include "src/exec/ov-window.h"

#ifdef __cplusplus
extern "C" {
#endif
#include "src/dtype.h"
#include "src/exec/cpu-nn.h"
#ifdef __cplusplus
}
#endif

/* ---- element-wise: the float32 expressions of cpu-elementwise.c's rows, parameter for parameter ---- */

enum cu_un_op {
	CU_U_ABS, CU_U_NEG, CU_U_RELU, CU_U_SIGN, CU_U_SQRT, CU_U_RECIPROCAL, CU_U_EXP, CU_U_LOG, CU_U_ERF, CU_U_SIN,
	CU_U_COS, CU_U_TAN, CU_U_TANH, CU_U_FLOOR, CU_U_CEIL, CU_U_ROUND, CU_U_SIGMOID, CU_U_HARD_SIGMOID,
	CU_U_HARD_SWISH, CU_U_LEAKY_RELU, CU_U_ELU, CU_U_SELU, CU_U_CELU, CU_U_GELU, CU_U_GELU_TANH, CU_U_MISH,
	CU_U_SOFTPLUS, CU_U_SOFTSIGN, CU_U_THRESHOLDED_RELU, CU_U_CLIP,
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
	case CU_U_LOG: return logf(x);
	case CU_U_ERF: return erff(x);
	case CU_U_SIN: return sinf(x);
	case CU_U_COS: return cosf(x);
	case CU_U_TAN: return tanf(x);
	case CU_U_TANH: return tanhf(x);
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
	default: return x;
	}
}

/* Mean of two: their float32 sum over 2, as the CPU's Mean (a float32 sum, then a division by the count). */
enum cu_bin_op { CU_B_ADD, CU_B_SUB, CU_B_MUL, CU_B_DIV, CU_B_POW, CU_B_MIN, CU_B_MAX, CU_B_MEAN, CU_B_PRELU };

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
	default: return a;
	}
}

/* ---- pooling: output element t of x (planes of w->in_size values, the output's of w->out_size) ----
 * avg: 0 MaxPool, 1 AveragePool.  The taps are walked in cpu-pool.c's order (the last spatial dim fastest) with
 * its accumulators: for MaxPool over 1 or 2 spatial dims a float maximum from -inf (NaN never taken), otherwise a
 * double, the first tap always taken by MaxPool; an empty window gives 0. */
static inline OV_HD float cu_pool_point(const struct cpu_window *w, int avg, int count_include_pad, const float *x,
					int64_t t)
{
	int n = w->n;
	int64_t pl = t / w->out_size, o = t - pl * w->out_size;
	int64_t first[XT_MAX_RANK], cnt[XT_MAX_RANK], kidx[XT_MAX_RANK], st[XT_MAX_RANK];
	int64_t taps = 1, padded = 1, off = 0, s = 1;

	for (int i = n - 1; i >= 0; i--) { /* o's position along each dim, the last fastest */
		int64_t oi = o % w->out[i], t0, t1;
		o /= w->out[i];
		ov_window_taps(oi, w->in[i], w->k[i], w->s[i], w->d[i], w->pb[i], &t0, &t1);
		first[i] = oi * w->s[i] - w->pb[i] + t0 * w->d[i];
		cnt[i] = t1 - t0;
		taps *= cnt[i];
		padded *= ov_window_padded_taps(oi, w->in[i], w->k[i], w->s[i], w->d[i], w->pb[i], w->pe[i]);
		st[i] = s;
		s *= w->in[i];
		kidx[i] = 0;
	}
	for (int i = 0; i < n; i++)
		off += first[i] * st[i];
	const float *xp = x + pl * w->in_size;
	if (!avg && n <= 2) {
		float m = -INFINITY;
		for (int64_t q = 0; q < taps; q++) {
			float v = xp[off];
			m = v > m ? v : m;
			for (int i = n - 1; i >= 0; i--) {
				off += w->d[i] * st[i];
				if (++kidx[i] < cnt[i])
					break;
				off -= w->d[i] * st[i] * cnt[i];
				kidx[i] = 0;
			}
		}
		return taps ? m : 0.0f;
	}
	double acc = avg ? 0.0 : -INFINITY;
	for (int64_t q = 0; q < taps; q++) {
		double v = (double)xp[off];
		if (avg)
			acc += v;
		else if (v > acc || q == 0)
			acc = v;
		for (int i = n - 1; i >= 0; i--) {
			off += w->d[i] * st[i];
			if (++kidx[i] < cnt[i])
				break;
			off -= w->d[i] * st[i] * cnt[i];
			kidx[i] = 0;
		}
	}
	if (!avg)
		return (float)(taps ? acc : 0);
	int64_t div = count_include_pad ? padded : taps;
	return (float)(div ? acc / (double)div : 0);
}

/* ---- softmax: the row of len values at base, inner apart (logsm: LogSoftmax) ----
 * cpu-norm.c's arithmetic: over a contiguous row (inner 1), float exponentials summed in double; over a strided
 * one, everything in double. */
static inline OV_HD void cu_softmax_row(const float *x, float *y, int64_t base, int64_t len, int64_t inner, int logsm)
{
	if (inner == 1) {
		const float *xp = x + base;
		float *yp = y + base;
		float mx = -INFINITY;
		for (int64_t j = 0; j < len; j++)
			mx = xp[j] > mx ? xp[j] : mx;
		double sum = 0;
		for (int64_t j = 0; j < len; j++) {
			float e = expf(xp[j] - mx);
			sum += e;
			if (!logsm)
				yp[j] = e;
		}
		if (!logsm) {
			float r = (float)(1 / sum);
			for (int64_t j = 0; j < len; j++)
				yp[j] *= r;
		} else {
			float ls = (float)log(sum);
			for (int64_t j = 0; j < len; j++)
				yp[j] = xp[j] - mx - ls;
		}
		return;
	}
	double mx = -INFINITY;
	for (int64_t j = 0; j < len; j++) {
		double v = x[base + j * inner];
		if (v > mx)
			mx = v;
	}
	double sum = 0;
	for (int64_t j = 0; j < len; j++)
		sum += exp((double)x[base + j * inner] - mx);
	for (int64_t j = 0; j < len; j++) {
		double v = (double)x[base + j * inner] - mx;
		y[base + j * inner] = (float)(logsm ? v - log(sum) : exp(v) / sum);
	}
}

/* ---- element access in double, for the kernels that compute in double as the CPU does ---- */

/* Element i of a float32, float64, float16 or bfloat16 buffer, as xt_get reads it. */
static inline OV_HD double cu_load_d(const void *p, int dt, int64_t i)
{
	return ov_load_d(p, dt, i);
}

/* Store v as xt_set does for the float types: through float for the 16-bit ones. */
static inline OV_HD void cu_store_d(void *p, int dt, int64_t i, double v)
{
	switch (dt) {
	case OV_DT_FLOAT: ((float *)p)[i] = (float)v; break;
	case OV_DT_DOUBLE: ((double *)p)[i] = v; break;
	case OV_DT_FLOAT16: ((uint16_t *)p)[i] = ov_f32_to_f16((float)v); break;
	default: ((uint16_t *)p)[i] = ov_f32_to_bf16((float)v); break;
	}
}

/* ---- Cast: element i of x (type sdt) into element i of y (type ddt), as cpu-elementwise.c's conv_array ----
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
			((T *)y)[i] = (T)(FROM_D);        \
		else if (dom == 1)                        \
			((T *)y)[i] = (T)(FROM_I);        \
		else                                      \
			((T *)y)[i] = (T)(FROM_U);        \
	} while (0)

static inline OV_HD void cu_cast_point(const void *x, int sdt, void *y, int ddt, int64_t i)
{
	double d = 0;
	int64_t s = 0;
	uint64_t u = 0;
	int dom = 0; /* 0: d, 1: s, 2: u */

	switch (sdt) {
	case OV_DT_FLOAT: d = (double)((const float *)x)[i]; break;
	case OV_DT_DOUBLE: d = ((const double *)x)[i]; break;
	case OV_DT_FLOAT16: d = (double)ov_f16_to_f32(((const uint16_t *)x)[i]); break;
	case OV_DT_BFLOAT16: d = (double)ov_bf16_to_f32(((const uint16_t *)x)[i]); break;
	case OV_DT_INT8: s = ((const int8_t *)x)[i], dom = 1; break;
	case OV_DT_INT16: s = ((const int16_t *)x)[i], dom = 1; break;
	case OV_DT_INT32: s = ((const int32_t *)x)[i], dom = 1; break;
	case OV_DT_INT64: s = ((const int64_t *)x)[i], dom = 1; break;
	case OV_DT_UINT8: u = ((const uint8_t *)x)[i], dom = 2; break;
	case OV_DT_UINT16: u = ((const uint16_t *)x)[i], dom = 2; break;
	case OV_DT_UINT32: u = ((const uint32_t *)x)[i], dom = 2; break;
	case OV_DT_UINT64: u = ((const uint64_t *)x)[i], dom = 2; break;
	default: u = ((const uint8_t *)x)[i] != 0, dom = 2; break; /* bool */
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

/* ---- reductions: one output element ----
 * The output's elements are the kept axes' positions in C order; each walks the reduced axes in C order (so its
 * input elements in the order the CPU meets them) from the input offset of its kept positions. */
struct cu_reduce {
	int n_kept, n_red;
	int64_t kept_dims[XT_MAX_RANK], kept_str[XT_MAX_RANK]; /* input strides */
	int64_t red_dims[XT_MAX_RANK], red_str[XT_MAX_RANK];
	int64_t count;                                         /* elements per output element */
};

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

/* Output element o of reduction op (ov-math.h's enum ov_red_op) over x, a float type (cu_load_d), in double. */
static inline OV_HD double cu_reduce_point_d(const struct cu_reduce *r, int op, const void *x, int dt, int64_t o)
{
	int64_t base = cu_reduce_base(r, o), idx[XT_MAX_RANK], off;
	double shift = 0, acc = ov_red_init_d(op);

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

/* Store an int64 result as cpu-reduce.c's store_i does: int64 as is, int32 saturated (through xt_set's double). */
static inline OV_HD void cu_store_i(void *y, int dt, int64_t i, int64_t v)
{
	if (dt == OV_DT_INT64) {
		((int64_t *)y)[i] = v;
		return;
	}
	double d = (double)v;
	((int32_t *)y)[i] = (int32_t)(d < -2147483648.0 ? -2147483648.0 : d > 2147483647.0 ? 2147483647.0 : d);
}

/* ArgMax (want_max) or ArgMin over the len values at base, inner apart: the position, as cpu-reduce.c's arg_run
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

/* ---- normalisation statistics, as cpu-norm.c computes them (x float32 or float64) ----
 * The mean and 1/sqrt(variance + eps) of the n values at base, summed in double in order, the variance from the
 * squared differences to the mean (two passes). */
static inline OV_HD void cu_norm_stats(const void *x, int dt, int64_t base, int64_t n, double eps, double *mean,
				       double *inv)
{
	double sum = 0, sq = 0;

	for (int64_t j = 0; j < n; j++)
		sum += cu_load_d(x, dt, base + j);
	double m = n ? sum / (double)n : 0;
	for (int64_t j = 0; j < n; j++) {
		double d = cu_load_d(x, dt, base + j) - m;
		sq += d * d;
	}
	*mean = m;
	*inv = 1 / sqrt((n ? sq / (double)n : 0) + eps);
}

/* y from x of a row or group with mean m and inv = 1/sqrt(variance + eps), as cpu-norm.c writes it:
 * - LayerNormalization: (x - m) * inv * scale + bias in double (bias 0 when there is none: still added, so -0
 *   becomes +0 as on the CPU);
 * - InstanceNormalization on float32: a float multiply-add with the channel's factor and offset rounded to float;
 *   on float64: in double;
 * - BatchNormalization (a, b: scale / sqrt(var + eps) and bias - mean * a, computed on the host): on float32 with
 *   one scale per channel over more than one element (per_channel), a float multiply-add; else in double. */
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

#endif
