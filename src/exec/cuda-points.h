/* What one CUDA thread computes: an element-wise op on one value or pair, one pooled output element, one softmax
 * row.  The CUDA kernels (cuda-elementwise.cu, cuda-pool.cu, cuda-norm.cu) call these per element or row; written
 * as static inline OV_HD functions in plain C (like ov-math.h), they also compile for the host, where
 * tests/unit/test-cuda-geom.c checks them against the CPU kernels, so the index arithmetic and the op-to-function
 * mapping are tested on machines without a GPU.  Each mirrors its CPU kernel's arithmetic and order of
 * accumulation (src/exec/cpu-elementwise.c, cpu-pool.c, cpu-norm.c). */
#ifndef OV_EXEC_CUDA_POINTS_H
#define OV_EXEC_CUDA_POINTS_H

#include <math.h>
#include <stdint.h>

#include "src/exec/ov-math.h"
#include "src/exec/ov-window.h"

#ifdef __cplusplus
extern "C" {
#endif
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

#endif
