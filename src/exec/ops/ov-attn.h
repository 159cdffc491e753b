/* The arithmetic of the transformer ops, shared by the CPU kernels (src/exec/cpu/attention.c and
 * cpu/transformer.c, in double) and the CUDA kernels (src/exec/cuda/attention.cu, in float32): which keys a query
 * row of Attention may see (causal frontier, sliding window, padding, the attention mask), the row's soft cap,
 * additive bias and softmax with ONNX's fully-masked-row rule, one row of RotaryEmbedding, and RMSNormalization's
 * reciprocal.  Both backends call these functions, so the masking rules cannot drift apart.
 *
 * C11 and C++ at once (see ops/ov-math.h); functions come in pairs, _d (double) and _f (float32). */
#ifndef OV_EXEC_OV_ATTN_H
#define OV_EXEC_OV_ATTN_H

#include <math.h>
#include <stdint.h>

#include "src/base/codec.h"

#ifndef OV_HD
#ifdef __CUDACC__
#define OV_HD __host__ __device__
#else
#define OV_HD
#endif
#endif

/* What the attention mask holds, as the kernels read it. */
enum ov_attn_mask_kind {
	OV_ATTN_MASK_NONE,
	OV_ATTN_MASK_BOOL, /* uint8: nonzero attends, zero is -inf */
	OV_ATTN_MASK_F32,  /* added to the scores (float16/bfloat16 masks are read as float32) */
	OV_ATTN_MASK_F64,
};

/* One query row's view of the additive bias: the mask row (mask + off, one element per key, step js; keys past
 * its n columns are masked, as the spec pads a short mask with -inf/False) and the structural frontier. */
struct ov_attn_row {
	const void *mask;
	int mask_kind;        /* enum ov_attn_mask_kind */
	int64_t mask_off, mask_n, mask_js;
	int causal;
	int64_t offset;       /* valid keys before the query block: past length, nonpad - q length, or 0 */
	int64_t left, right;  /* sliding window bounds, -1: unbounded */
	int64_t nonpad;       /* keys at or past this are padding (-1: none) */
	double softcap;       /* > 0: scores become softcap * tanh(score / softcap) before the bias */
	int rnd, rsm;         /* the reference's roundings (ov_attn_row_d): OV_DT_FLOAT16, OV_DT_BFLOAT16 or 0 */
};

/* 1 when query i of the block may see key j by the structural rules (causal, window, padding). */
static inline OV_HD int ov_attn_allowed(const struct ov_attn_row *r, int64_t i, int64_t j)
{
	int64_t p = r->offset + i; /* the query's absolute position */

	if (r->causal && j > p)
		return 0;
	if (r->left >= 0 && p - j > r->left)
		return 0;
	if (r->right >= 0 && j - p > r->right)
		return 0;
	if (r->nonpad >= 0 && j >= r->nonpad)
		return 0;
	return 1;
}

/* The additive bias of (query i, key j): the float mask's value, 0, or -inf. */
static inline OV_HD double ov_attn_bias(const struct ov_attn_row *r, int64_t i, int64_t j)
{
	double b = 0;

	if (r->mask_kind != OV_ATTN_MASK_NONE) {
		if (j >= r->mask_n)
			return -INFINITY;
		int64_t o = r->mask_off + j * r->mask_js;
		if (r->mask_kind == OV_ATTN_MASK_BOOL) {
			if (!((const uint8_t *)r->mask)[o])
				return -INFINITY;
		} else if (r->mask_kind == OV_ATTN_MASK_F32) {
			b = ((const float *)r->mask)[o];
		} else {
			b = ((const double *)r->mask)[o];
		}
	}
	return ov_attn_allowed(r, i, j) ? b : -INFINITY;
}

/* A value rounded to the element type dt the reference computes in (float16 or bfloat16), or kept (0). */
static inline OV_HD double ov_attn_round_d(int dt, double x)
{
	if (dt == OV_DT_BFLOAT16)
		return ov_bf16_to_f32(ov_f64_to_bf16(x));
	if (dt == OV_DT_FLOAT16)
		return ov_f16_to_f32(ov_f64_to_f16(x));
	return x;
}
static inline OV_HD float ov_attn_round_f(int dt, float x)
{
	if (dt == OV_DT_BFLOAT16)
		return ov_bf16_to_f32(ov_f32_to_bf16(x));
	if (dt == OV_DT_FLOAT16)
		return ov_f16_to_f32(ov_f32_to_f16(x));
	return x;
}

/* One row of n scores (Q·Kᵀ, Q and K already scaled) of query i, in place: soft cap, bias, softmax.  The optional
 * copies are what qk_matmul_output modes 1 (after the soft cap) and 2 (after the bias too) expose.  Softmax as the
 * spec's reference computes it: the row's maximum subtracted (0 when it is -inf), a zero sum taken as 1; a row
 * whose bias is -inf at every key (no key attended) becomes zeros whatever its scores are (also a NaN score).
 * With rnd (Q's type when it is float16 or bfloat16) every step is rounded to it where the reference rounds: the
 * scores, the soft cap's three steps, the biased scores and the probabilities handed to ·V; rsm is the softmax's
 * own type (softmax_precision, else rnd): its input, each exp and difference, each partial sum (bfloat16: the
 * reference sums one element after the other in it), each quotient. */
#define OV_ATTN_ROW(T, SUF, EXP, TANH)                                                                           \
	static inline OV_HD void ov_attn_row_##SUF(T *x, int64_t n, int64_t i, const struct ov_attn_row *r,     \
						   T *after_cap, T *after_bias)                                 \
	{                                                                                                        \
		int any = 0, rd = r->rnd, rs = r->rsm;                                                           \
		T mx = (T)-INFINITY, cap = (T)r->softcap;                                                        \
		for (int64_t j = 0; j < n; j++) {                                                                \
			T s = ov_attn_round_##SUF(rd, x[j]);                                                     \
			if (r->softcap > 0)                                                                      \
				s = ov_attn_round_##SUF(                                                         \
					rd, ov_attn_round_##SUF(rd, TANH(ov_attn_round_##SUF(rd, s / cap))) * cap); \
			if (after_cap)                                                                           \
				after_cap[j] = s;                                                                \
			double b = ov_attn_bias(r, i, j);                                                        \
			if (b != -INFINITY)                                                                      \
				any = 1;                                                                         \
			s = ov_attn_round_##SUF(rd, s + (T)b);                                                   \
			if (after_bias)                                                                          \
				after_bias[j] = s;                                                               \
			x[j] = s = ov_attn_round_##SUF(rs, s);                                                   \
			if (s > mx || s != s)                                                                    \
				mx = s != s || mx != mx ? (T)NAN : s;                                            \
		}                                                                                                \
		if (!any) {                                                                                      \
			for (int64_t j = 0; j < n; j++)                                                          \
				x[j] = 0;                                                                        \
			return;                                                                                  \
		}                                                                                                \
		if (mx == (T)-INFINITY)                                                                          \
			mx = 0;                                                                                  \
		T sum = 0;                                                                                       \
		for (int64_t j = 0; j < n; j++) {                                                                \
			x[j] = ov_attn_round_##SUF(rs, EXP(ov_attn_round_##SUF(rs, x[j] - mx)));                 \
			sum = rs == OV_DT_BFLOAT16 ? ov_attn_round_##SUF(rs, sum + x[j]) : sum + x[j];           \
		}                                                                                                \
		sum = ov_attn_round_##SUF(rs, sum);                                                              \
		if (sum == 0)                                                                                    \
			sum = 1;                                                                                 \
		for (int64_t j = 0; j < n; j++)                                                                  \
			x[j] = ov_attn_round_##SUF(rd, ov_attn_round_##SUF(rs, x[j] / sum));                     \
	}
OV_ATTN_ROW(double, d, exp, tanh)
OV_ATTN_ROW(float, f, expf, tanhf)
#undef OV_ATTN_ROW

/* One row of RotaryEmbedding: the head vector x[0..d) (step 1) into y, its first rd elements rotated by the
 * angles whose cosines and sines are c[0..rd/2) and s[0..rd/2), the rest copied.  interleaved: the pairs are
 * (x[2k], x[2k+1]); otherwise (x[k], x[k + rd/2]). */
#define OV_ROPE_ROW(T, SUF)                                                                                      \
	static inline OV_HD void ov_rope_row_##SUF(const T *x, T *y, int64_t d, int64_t rd, int interleaved,     \
						   const T *c, const T *s)                                      \
	{                                                                                                        \
		int64_t h = rd / 2;                                                                              \
		for (int64_t k = 0; k < h; k++) {                                                                \
			int64_t a = interleaved ? 2 * k : k, b = interleaved ? 2 * k + 1 : k + h;                \
			T x1 = x[a], x2 = x[b];                                                                  \
			y[a] = c[k] * x1 - s[k] * x2;                                                            \
			y[b] = s[k] * x1 + c[k] * x2;                                                            \
		}                                                                                                \
		for (int64_t k = rd; k < d; k++)                                                                 \
			y[k] = x[k];                                                                             \
	}
OV_ROPE_ROW(double, d)
OV_ROPE_ROW(float, f)
#undef OV_ROPE_ROW

/* RMSNormalization's factor for a row of n values whose squares sum to sumsq: 1 / sqrt(mean square + epsilon). */
static inline OV_HD double ov_rms_inv_d(double sumsq, int64_t n, double eps)
{
	return 1 / sqrt((n ? sumsq / (double)n : 0) + eps);
}
static inline OV_HD float ov_rms_inv_f(float sumsq, int64_t n, float eps)
{
	return 1 / sqrtf((n ? sumsq / (float)n : 0) + eps);
}

/* SwiGLU's element: a * sigmoid(alpha * a) * b. */
static inline OV_HD double ov_swiglu_d(double a, double b, double alpha)
{
	return a / (1 + exp(-alpha * a)) * b;
}

#endif
