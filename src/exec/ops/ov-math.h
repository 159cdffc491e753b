/* One arithmetic for two machines: the element functions (activations, rounding, integer division and modulo as
 * ONNX defines them) and numpy broadcasting index math (the element types' codecs are src/base/codec.h's), as static inline functions that
 * compile for the host (the CPU backend loops over them) and, under nvcc, for the device too (CUDA kernels call the
 * same functions).  So the CPU tests check the arithmetic the GPU runs.
 *
 * Everything here is C11 and C++ at once (nvcc compiles .cu files as C++): no compound literals, no restrict,
 * explicit casts from void *.  Float functions come in pairs: _f (float32, also used for float16/bfloat16, which are
 * computed in float32) and _d (double). */
#ifndef OV_EXEC_OV_MATH_H
#define OV_EXEC_OV_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "src/base/codec.h"

/* ---- float to integer: truncation toward zero, saturating (NaN gives 0), never undefined behaviour ---- */

static inline OV_HD int64_t ov_f64_to_i64(double d)
{
	if (d != d)
		return 0;
	if (d >= 9223372036854775808.0)
		return INT64_MAX;
	if (d < -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)d;
}

static inline OV_HD uint64_t ov_f64_to_u64(double d)
{
	if (d != d)
		return 0;
	if (d >= 18446744073709551616.0)
		return UINT64_MAX;
	if (d < 0) /* numpy and C on x86 wrap negative values through int64 */
		return (uint64_t)ov_f64_to_i64(d);
	return (uint64_t)d;
}

/* ---- integer arithmetic with ONNX/numpy results and no undefined behaviour (wrapping, division by zero gives 0) -- */

static inline OV_HD int64_t ov_add_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline OV_HD int64_t ov_sub_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static inline OV_HD int64_t ov_mul_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static inline OV_HD int64_t ov_neg_i64(int64_t a) { return (int64_t)(0 - (uint64_t)a); }
static inline OV_HD int64_t ov_abs_i64(int64_t a) { return a < 0 ? ov_neg_i64(a) : a; }

/* Div truncates toward zero (ONNX's reference and onnxruntime, like C) */
static inline OV_HD int64_t ov_div_i64(int64_t a, int64_t b)
{
	if (b == 0)
		return 0;
	if (b == -1)
		return ov_neg_i64(a);
	return a / b;
}

static inline OV_HD uint64_t ov_div_u64(uint64_t a, uint64_t b) { return b ? a / b : 0; }

/* Mod with fmod=1: the sign of the dividend (C's %) */
static inline OV_HD int64_t ov_fmod_i64(int64_t a, int64_t b)
{
	if (b == 0 || b == -1)
		return 0;
	return a % b;
}

/* Mod with fmod=0: the sign of the divisor (Python's %, numpy's mod) */
static inline OV_HD int64_t ov_mod_i64(int64_t a, int64_t b)
{
	int64_t r = ov_fmod_i64(a, b);
	if (r != 0 && ((r < 0) != (b < 0)))
		r += b;
	return r;
}

static inline OV_HD uint64_t ov_mod_u64(uint64_t a, uint64_t b) { return b ? a % b : 0; }

/* Integer power by squaring (wrapping); a negative exponent gives the truncated real result (1, -1 or 0). */
static inline OV_HD int64_t ov_pow_i64(int64_t a, int64_t e)
{
	if (e < 0)
		return a == 1 ? 1 : a == -1 ? ((e & 1) ? -1 : 1) : 0;
	uint64_t r = 1, b = (uint64_t)a;
	while (e) {
		if (e & 1)
			r *= b;
		b *= b;
		e >>= 1;
	}
	return (int64_t)r;
}

static inline OV_HD uint64_t ov_pow_u64(uint64_t a, uint64_t e)
{
	uint64_t r = 1;
	while (e) {
		if (e & 1)
			r *= a;
		a *= a;
		e >>= 1;
	}
	return r;
}

/* BitShift: shifting by the width or more gives 0 */
static inline OV_HD uint64_t ov_shl_u64(uint64_t a, uint64_t s) { return s >= 64 ? 0 : a << s; }
static inline OV_HD uint64_t ov_shr_u64(uint64_t a, uint64_t s) { return s >= 64 ? 0 : a >> s; }
/* On the signed types (opset 28), in int64 with x sign-extended: the right shift is arithmetic, a shift that is
 * negative or not below the width gives what the sign extension alone gives (-1 for a negative x shifted right,
 * else 0), and a left shift's result wraps into the narrower type; for a shift from the type's width to 63 the
 * int64 result narrows to the same (0, or the sign). */
static inline OV_HD int64_t ov_shl_i64(int64_t a, int64_t s) { return s < 0 || s >= 64 ? 0 : (int64_t)((uint64_t)a << s); }
static inline OV_HD int64_t ov_shr_i64(int64_t a, int64_t s)
{
	return s < 0 || s >= 64 ? (a < 0 ? -1 : 0) : a < 0 ? ~(~a >> s) : a >> s;
}

/* ---- float element functions ---- */

/* NaN goes through (x < 0 is false for NaN), as numpy's maximum(x, 0) */
static inline OV_HD float ov_relu_f(float x) { return x < 0.0f ? 0.0f : x; }
static inline OV_HD double ov_relu_d(double x) { return x < 0.0 ? 0.0 : x; }

/* exp for float32 without branches or calls, so loops over it vectorize (libm's expf is a call per element):
 * x = n ln2 + r with |r| <= ln2/2 (ln2 split in two, Cody and Waite), exp(r) by Cephes' degree-7 polynomial,
 * 2^n applied in two halves so that subnormal results and the top of the range come out right.  Within 1 ulp of
 * the exact result (checked on every 7th float from -110 to 90); inf above 88.72, 0 below -103.97, NaN for NaN.
 *
 * The exp family here (exp, tanh, erf, expm1, log and what is built on them) takes its multiply-adds as fmaf, one
 * rounding each, written out, never left to the compiler: CUDA's fmaf is one instruction (the device build's
 * -fmad=false stops only the implicit ones), the CPU's 8 lanes (cpu/vmath.h) run the same fmaf as vfmadd in the
 * x86-64-v3 clone (libm's fmaf in the baseline one), so the backends still agree bit for bit, with fewer
 * operations and one rounding less per step: the CPU's Sigmoid, Tanh and Erf over a million floats took 1/1.4 to
 * 1/1.6 of their time, Softmax 1/1.26.  Accuracy over every float as before (exp, tanh, erf, log within 1 ulp of
 * the rounded exact result, expm1 and softplus 2, sigmoid 3). */
static inline OV_HD float ov_exp_f(float x)
{
	/* No branch may guard the arithmetic (GCC would not if-convert it, so not vectorize it): the polynomial runs on
	 * every x, n comes from the bits of the rounded sum (no float-to-int conversion to go undefined on NaN or
	 * huge x), and out-of-range x is patched in the result. */
	float k = fmaf(x, 1.44269504088896341f, 12582912.0f); /* 1.5 * 2^23: rounds to an integer in the low bits */
	int32_t n = (int32_t)(ov_f32_bits(k) - 0x4b400000u), h = n / 2;
	float fn = k - 12582912.0f;
	float r = fmaf(fn, -0.693359375f, x);
	r = fmaf(fn, 2.12194440e-4f, r);
	float p = 1.9875691500e-4f;
	p = fmaf(p, r, 1.3981999507e-3f);
	p = fmaf(p, r, 8.3334519073e-3f);
	p = fmaf(p, r, 4.1665795894e-2f);
	p = fmaf(p, r, 1.6666665459e-1f);
	p = fmaf(p, r, 5.0000001201e-1f);
	float y = fmaf(p, r * r, r) + 1.0f;
	y = y * ov_bits_f32((uint32_t)(h + 127) << 23) * ov_bits_f32((uint32_t)(n - h + 127) << 23);
	/* masks, not selects, so that y is always needed (GCC sinks what a select leaves unused into a branch) */
	uint32_t under = 0u - (uint32_t)(x < -104.0f), over = 0u - (uint32_t)(x > 89.0f);
	return ov_bits_f32((ov_f32_bits(y) & ~(under | over)) | (over & 0x7f800000u)); /* NaN: neither, NaN already */
}

/* stable at both ends (exp of -|x| only, never overflowing) and branch-free */
static inline OV_HD float ov_sigmoid_f(float x)
{
	float e = ov_exp_f(-fabsf(x));
	float s = 1.0f / (1.0f + e), t = e * s;
	uint32_t pos = 0u - (uint32_t)(x >= 0.0f); /* a mask, as in ov_exp_f; NaN takes t, which is NaN */
	return ov_bits_f32((ov_f32_bits(s) & pos) | (ov_f32_bits(t) & ~pos));
}

/* tanh for float32 without branches or calls, as ov_exp_f: tanh |x| with x's sign, below |x| = 0.625 by Cephes'
 * odd polynomial a + a^3 P(a^2) (tiny x stays x), above it as 1 - 2 / (exp(2|x|) + 1) (1 once exp overflows).
 * Within 1 ulp of the exact result over every float (tests/unit/test-elementwise checks a sample for 2); NaN for
 * NaN.  Both backends' Tanh, so they agree bit for bit; the CPU's runs 8 at a time (src/exec/cpu/vmath.h), where
 * libm's tanhf cost 20 ns an element. */
static inline OV_HD float ov_tanh_f(float x)
{
	float a = fabsf(x), z = x * x;
	float p = -5.70498872745e-3f;
	p = fmaf(p, z, 2.06390887954e-2f);
	p = fmaf(p, z, -5.37397155531e-2f);
	p = fmaf(p, z, 1.33314422036e-1f);
	p = fmaf(p, z, -3.33332819422e-1f);
	float small = fmaf(p * z, a, a);
	float big = 1.0f - 2.0f / (ov_exp_f(a + a) + 1.0f);
	uint32_t m = 0u - (uint32_t)(a < 0.625f); /* NaN takes big, which is NaN */
	/* tanh |x|, with x's sign (so -0 stays -0) */
	return ov_bits_f32((ov_f32_bits(small) & m) | (ov_f32_bits(big) & ~m) | (ov_f32_bits(x) & 0x80000000u));
}

static inline OV_HD double ov_sigmoid_d(double x)
{
	if (x >= 0.0)
		return 1.0 / (1.0 + exp(-x));
	double e = exp(x);
	return e / (1.0 + e);
}

/* max(0, min(1, alpha*x + beta)); ONNX defaults alpha 0.2, beta 0.5 */
static inline OV_HD float ov_hard_sigmoid_f(float x, float alpha, float beta)
{
	float v = alpha * x + beta;
	return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
}

static inline OV_HD double ov_hard_sigmoid_d(double x, double alpha, double beta)
{
	double v = alpha * x + beta;
	return v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
}

/* x * HardSigmoid(x) with alpha 1/6, beta 0.5 */
static inline OV_HD float ov_hard_swish_f(float x) { return x * ov_hard_sigmoid_f(x, 1.0f / 6.0f, 0.5f); }
static inline OV_HD double ov_hard_swish_d(double x) { return x * ov_hard_sigmoid_d(x, 1.0 / 6.0, 0.5); }

/* erf for float32 without branches or calls, as ov_exp_f, so that both backends give the same bits (libm's erff and
 * CUDA's differ in the last bit) and the CPU's runs 8 at a time (src/exec/cpu/vmath.h; libm's erff cost 11 ns an
 * element).  erf |x| with x's sign: below |x| = 0.84375 as a + a R(a^2), R of degree 5; above it as 1 - e^Q(a),
 * Q of degree 10 fitted to log erfc on [0.84375, 3.92] (weighted least squares, coefficients rounded to float);
 * past 3.92, where erf rounds to 1, a is held at 3.92, which gives 1.  Within 1.17 ulp of the exact result
 * (measured over every float up to 4.5, with the fmaf steps; 1.35 before them; tests/unit/test-elementwise checks
 * every 61st for 2 ulp); NaN for NaN, +-1 for +-inf. */
static inline OV_HD float ov_erf_f(float x)
{
	float a = fabsf(x), z = a * a;
	float r = -6.360081607e-04f;
	r = fmaf(r, z, 5.058695562e-03f);
	r = fmaf(r, z, -2.680703439e-02f);
	r = fmaf(r, z, 1.128282547e-01f);
	r = fmaf(r, z, -3.761258125e-01f);
	r = fmaf(r, z, 1.283791661e-01f);
	float small = fmaf(a, r, a);
	float t = a > 3.92f ? 3.92f : a; /* NaN stays NaN */
	float q = -7.649522615e-08f;
	q = fmaf(q, t, 1.833881583e-06f);
	q = fmaf(q, t, -1.771898133e-05f);
	q = fmaf(q, t, 7.225900481e-05f);
	q = fmaf(q, t, 1.334253175e-04f);
	q = fmaf(q, t, -3.545671934e-03f);
	q = fmaf(q, t, 2.426828071e-02f);
	q = fmaf(q, t, -1.075290069e-01f);
	q = fmaf(q, t, -6.337587237e-01f);
	q = fmaf(q, t, -1.129388094e+00f);
	q = fmaf(q, t, 1.580019743e-04f);
	float big = 1.0f - ov_exp_f(q);
	uint32_t m = 0u - (uint32_t)(a < 0.84375f); /* a mask, as in ov_tanh_f; NaN takes big, which is NaN */
	return ov_bits_f32((ov_f32_bits(small) & m) | (ov_f32_bits(big) & ~m) | (ov_f32_bits(x) & 0x80000000u));
}

/* exact Gelu: x/2 * (1 + erf(x/sqrt(2))) */
static inline OV_HD float ov_gelu_f(float x) { return 0.5f * x * (1.0f + ov_erf_f(x * 0.70710678118654752440f)); }
static inline OV_HD double ov_gelu_d(double x) { return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440)); }

/* Gelu approximate="tanh": x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), ov_tanh_f's tanh */
static inline OV_HD float ov_gelu_tanh_f(float x)
{
	return 0.5f * x * (1.0f + ov_tanh_f(0.79788456080286535588f * (x + 0.044715f * x * x * x)));
}

static inline OV_HD double ov_gelu_tanh_d(double x)
{
	return 0.5 * x * (1.0 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
}

/* e^x - 1 for float32 without branches or calls, as ov_exp_f (both backends' Elu and Celu): below |x| = 0.5 as
 * x + (x^2/2 + x^3 P(x)), P of degree 4 fitted to (expm1 x - x - x^2/2) / x^3 (so that a small x keeps its
 * digits), from there ov_exp_f(x) - 1.  Within 0.84 ulp of the exact result below |x| = 0.5, 1.77 above (measured
 * over every float, with the fmaf steps; 1.2 and 1.8 before them; tests/unit/test-elementwise checks a sample for
 * 2); -1 for -inf, inf for inf, NaN for NaN, -0 for -0. */
static inline OV_HD float ov_expm1_f(float x)
{
	float x2 = x * x;
	float p = 1.980594097e-04f;
	p = fmaf(p, x, 1.398122520e-03f);
	p = fmaf(p, x, 8.333705366e-03f);
	p = fmaf(p, x, 4.166587070e-02f);
	p = fmaf(p, x, 1.666666269e-01f);
	float small = x + fmaf(x2 * x, p, 0.5f * x2);
	float big = ov_exp_f(x) - 1.0f;
	uint32_t m = 0u - (uint32_t)(fabsf(x) < 0.5f); /* NaN takes big, which is NaN */
	/* x's sign on small (its own but for x = -0, where x + (0 + 0) gave +0) */
	return ov_bits_f32(((ov_f32_bits(small) | (ov_f32_bits(x) & 0x80000000u)) & m) | (ov_f32_bits(big) & ~m));
}

/* Elu: x for x >= 0, alpha*(exp(x)-1) below (default alpha 1) */
static inline OV_HD float ov_elu_f(float x, float alpha) { return x < 0.0f ? alpha * ov_expm1_f(x) : x; }
static inline OV_HD double ov_elu_d(double x, double alpha) { return x < 0.0 ? alpha * expm1(x) : x; }

/* Selu with ONNX's defaults */
#define OV_SELU_ALPHA 1.67326319217681884765625
#define OV_SELU_GAMMA 1.05070102214813232421875
static inline OV_HD float ov_selu_f(float x, float alpha, float gamma)
{
	return x <= 0.0f ? gamma * (alpha * ov_exp_f(x) - alpha) : gamma * x;
}

static inline OV_HD double ov_selu_d(double x, double alpha, double gamma)
{
	return x <= 0.0 ? gamma * (alpha * exp(x) - alpha) : gamma * x;
}

/* Celu: max(0,x) + min(0, alpha*(exp(x/alpha)-1)) */
static inline OV_HD float ov_celu_f(float x, float alpha) { return x < 0.0f ? alpha * ov_expm1_f(x / alpha) : x; }
static inline OV_HD double ov_celu_d(double x, double alpha) { return x < 0.0 ? alpha * expm1(x / alpha) : x; }

static inline OV_HD float ov_leaky_relu_f(float x, float alpha) { return x < 0.0f ? alpha * x : x; }
static inline OV_HD double ov_leaky_relu_d(double x, double alpha) { return x < 0.0 ? alpha * x : x; }

static inline OV_HD float ov_thresholded_relu_f(float x, float alpha) { return x > alpha ? x : 0.0f; }
static inline OV_HD double ov_thresholded_relu_d(double x, double alpha) { return x > alpha ? x : 0.0; }

/* Shrink: x+bias below -lambd, x-bias above lambd, 0 between */
static inline OV_HD double ov_shrink_d(double x, double bias, double lambd)
{
	return x < -lambd ? x + bias : x > lambd ? x - bias : 0.0;
}

static inline OV_HD float ov_shrink_f(float x, float bias, float lambd)
{
	return x < -lambd ? x + bias : x > lambd ? x - bias : 0.0f;
}

/* log for float32 without branches or calls, as ov_exp_f (both backends' Log, Softplus and Mish, so they agree bit for
 * bit; libm's logf is a call per element): x = 2^e m with m in [sqrt(1/2), sqrt 2) (subnormal x scaled by 2^23
 * first), log m = t - t^2/2 + t^3 P(t) for t = m - 1 (exact), P of degree 7 fitted to (log1p t - t + t^2/2) / t^3
 * (weighted least squares, coefficients rounded to float), e ln 2 added in two parts (ln 2's high part has few
 * bits, so e times it is exact).  Within 1 ulp of the exact result (over every positive float);
 * tests/unit/test-elementwise checks a sample.  0 gives -inf, below 0 NaN, +inf +inf, NaN NaN. */
static inline OV_HD float ov_log_f(float x)
{
	uint32_t sub = 0u - (uint32_t)(x < 0x1p-126f); /* zero and below too: patched at the end */
	float xs = x * ov_bits_f32((0x4b000000u & sub) | (0x3f800000u & ~sub));
	uint32_t ix = ov_f32_bits(xs) + (0x3f800000u - 0x3f3504f3u);
	float fe = (float)((int32_t)(ix >> 23) - 127 - (int32_t)(sub & 23u));
	float t = ov_bits_f32((ix & 0x007fffffu) + 0x3f3504f3u) - 1.0f;
	float p = -7.634465396e-02f;
	p = fmaf(p, t, 1.276157051e-01f);
	p = fmaf(p, t, -1.316019148e-01f);
	p = fmaf(p, t, 1.420175880e-01f);
	p = fmaf(p, t, -1.662335694e-01f);
	p = fmaf(p, t, 2.000122666e-01f);
	p = fmaf(p, t, -2.500082254e-01f);
	p = fmaf(p, t, 3.333333135e-01f);
	float t2 = t * t;
	float y = t * t2 * p;
	y = fmaf(fe, -2.12194440e-4f, y);
	y = fmaf(-0.5f, t2, y);
	y = t + y;
	y = fmaf(fe, 0.693359375f, y);
	uint32_t zero = 0u - (uint32_t)(x == 0.0f), neg = 0u - (uint32_t)(x < 0.0f);
	uint32_t inf = 0u - (uint32_t)(x > 0x1.fffffep127f), nan = 0u - (uint32_t)(x != x);
	return ov_bits_f32((ov_f32_bits(y) & ~(zero | neg | inf | nan)) | (zero & 0xff800000u) | (neg & 0x7fc00000u) |
			   (inf & 0x7f800000u) | (nan & ov_f32_bits(x)));
}

/* log(1 + exp(x)) without overflow, branch-free as ov_exp_f: max(x, 0) + log1p(u) for u = e^-|x| in (0, 1], log1p
 * as log(w) for w = 1 + u plus what the rounding of w lost, (u - (w - 1)) / w (w - 1 and that difference are
 * exact), so that a tiny u (x far below 0) still comes out as u.  NaN gives NaN. */
static inline OV_HD float ov_softplus_f(float x)
{
	float u = ov_exp_f(-fabsf(x)), w = 1.0f + u;
	float l = ov_log_f(w) + (u - (w - 1.0f)) / w;
	return (x > 0.0f ? x : 0.0f) + l;
}
static inline OV_HD double ov_softplus_d(double x) { return x > 0.0 ? x + log1p(exp(-x)) : log1p(exp(x)); }

static inline OV_HD float ov_softsign_f(float x) { return x / (1.0f + fabsf(x)); }
static inline OV_HD double ov_softsign_d(double x) { return x / (1.0 + fabs(x)); }

/* x * tanh(softplus(x)), ov_tanh_f's tanh */
static inline OV_HD float ov_mish_f(float x) { return x * ov_tanh_f(ov_softplus_f(x)); }
static inline OV_HD double ov_mish_d(double x) { return x * tanh(ov_softplus_d(x)); }

/* -1, 0, 1 (NaN stays NaN) */
static inline OV_HD float ov_sign_f(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x; }
static inline OV_HD double ov_sign_d(double x) { return x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : x; }
static inline OV_HD int64_t ov_sign_i64(int64_t x) { return (x > 0) - (x < 0); }

/* Round: halves to even, as ONNX (rint in the default rounding mode, which nothing here changes) */
static inline OV_HD float ov_round_f(float x) { return rintf(x); }
static inline OV_HD double ov_round_d(double x) { return rint(x); }

static inline OV_HD float ov_reciprocal_f(float x) { return 1.0f / x; }
static inline OV_HD double ov_reciprocal_d(double x) { return 1.0 / x; }

/* Mod with fmod=0 on floats: the sign of the divisor (numpy's mod) */
static inline OV_HD float ov_mod_f(float a, float b)
{
	float r = fmodf(a, b);
	if (r != 0.0f && ((r < 0.0f) != (b < 0.0f)))
		r += b;
	return r;
}

static inline OV_HD double ov_mod_d(double a, double b)
{
	double r = fmod(a, b);
	if (r != 0.0 && ((r < 0.0) != (b < 0.0)))
		r += b;
	return r;
}

/* Min and Max propagate NaN (numpy's minimum/maximum) */
static inline OV_HD float ov_min_f(float a, float b) { return a != a ? a : b != b ? b : a < b ? a : b; }
static inline OV_HD float ov_max_f(float a, float b) { return a != a ? a : b != b ? b : a > b ? a : b; }
static inline OV_HD double ov_min_d(double a, double b) { return a != a ? a : b != b ? b : a < b ? a : b; }
static inline OV_HD double ov_max_d(double a, double b) { return a != a ? a : b != b ? b : a > b ? a : b; }

/* Clip: max(lo, min(...)) in ONNX's order, so lo > hi gives hi; NaN goes through */
static inline OV_HD float ov_clip_f(float x, float lo, float hi) { return x < lo ? (lo > hi ? hi : lo) : x > hi ? hi : x; }
static inline OV_HD double ov_clip_d(double x, double lo, double hi)
{
	return x < lo ? (lo > hi ? hi : lo) : x > hi ? hi : x;
}

static inline OV_HD int ov_isinf_d(double x, int detect_positive, int detect_negative)
{
	return (detect_positive && x == INFINITY) || (detect_negative && x == -INFINITY);
}

/* ---- reductions: the running step, start and end of ReduceX, and ArgMax/ArgMin's step ----
 * The CPU (cpu/reduce.c) and CUDA (cuda/reduce.cu, through cuda/points.h) visit a reduction's elements in the
 * input's C order and fold each in with these, so both add the same doubles in the same order; except float32
 * ReduceSum and ReduceMean over a contiguous run, which both take in ov_sum16_f's order. */

enum ov_red_op {
	OV_RED_SUM, OV_RED_MEAN, OV_RED_MAX, OV_RED_MIN, OV_RED_PROD, OV_RED_L1, OV_RED_L2, OV_RED_LOGSUM,
	OV_RED_LOGSUMEXP, OV_RED_SUMSQ
};

static inline OV_HD double ov_red_init_d(int op)
{
	return op == OV_RED_PROD ? 1.0 : op == OV_RED_MAX ? -INFINITY : op == OV_RED_MIN ? INFINITY : 0.0;
}

/* acc with v folded in; shift: LogSumExp's (the maximum, when finite), which keeps exp from overflowing.  For Max
 * and Min a NaN propagates (and then stays: nothing compares above or below it). */
static inline OV_HD double ov_red_step_d(int op, double acc, double v, double shift)
{
	switch (op) {
	case OV_RED_SUM: case OV_RED_MEAN: case OV_RED_LOGSUM: return acc + v;
	case OV_RED_L1: return acc + fabs(v);
	case OV_RED_L2: case OV_RED_SUMSQ: return acc + v * v;
	case OV_RED_PROD: return acc * v;
	case OV_RED_MAX: return v > acc || v != v ? v : acc;
	case OV_RED_MIN: return v < acc || v != v ? v : acc;
	case OV_RED_LOGSUMEXP: return acc + exp(v - shift);
	default: return acc;
	}
}

/* The result from the accumulated value, over count elements (an empty Mean is 0/0: NaN). */
static inline OV_HD double ov_red_final_d(int op, double v, int64_t count, double shift)
{
	switch (op) {
	case OV_RED_MEAN: return v / (double)count;
	case OV_RED_L2: return sqrt(v);
	case OV_RED_LOGSUM: return log(v);
	case OV_RED_LOGSUMEXP: return log(v) + shift;
	default: return v;
	}
}

/* ---- sums in 16 lanes ----
 * Where both backends sum a contiguous run in double, they take it in one order that 16 threads can share: lane l
 * (0 to 15) sums the elements j = l mod 16 in increasing j, from +0; then the lanes fold, lane q adding lane q + w
 * for w = 8, 4, 2, 1 (ov_fold16), and lane 0 holds the sum.  A CUDA kernel gives each lane to a thread and folds
 * with a shuffle tree (lane q adds lane q + w's value, __shfl_down_sync), the CPU runs the lanes side by side in
 * vectors (cpu/lanesum.h): element-wise double additions in the same order, so the same bits everywhere. */

/* Fold the 16 lane sums l (overwritten): the sum. */
static inline OV_HD double ov_fold16(double *l)
{
	for (int w = 8; w >= 1; w /= 2)
		for (int q = 0; q < w; q++)
			l[q] += l[q + w];
	return l[0];
}

/* The sum in double of float32 values in a contiguous run, as both backends take it for ReduceSum and ReduceMean
 * over trailing axes and for Softmax's denominator. */
static inline OV_HD double ov_sum16_f(const float *x, int64_t n)
{
	double l[16] = {0};

	for (int64_t j = 0; j < n; j++)
		l[j % 16] += x[j];
	return ov_fold16(l);
}

/* ---- normalisation statistics: LayerNormalization, InstanceNormalization, GroupNormalization ----
 * The mean and 1/sqrt(variance + eps) of n contiguous float32 or float64 values (dt), on both backends: the mean
 * from the 16-lane double sum of the values (above), over n; the variance from the 16-lane double sum of the
 * squared differences (x - mean)^2, over n (two passes, so no cancellation).  A CUDA thread computes one lane's
 * part (ov_lane16_sum, ov_lane16_sqdev), the CPU all sixteen (ov_norm_stats16, or cpu/lanesum.h's vectors for
 * float32). */

static inline OV_HD double ov_norm_load(const void *x, int dt, int64_t i)
{
	return dt == OV_DT_DOUBLE ? ((const double *)x)[i] : (double)((const float *)x)[i];
}

/* Lane lane's part of the sum of the n values at base: its elements added in order, read four at a time first
 * (a GPU thread then waits for four loads at once instead of one after the other; the sum is the same).  The _acc
 * forms go on from the sum s of the values before base (base a multiple of 16 past the first: the lanes keep
 * their elements), so a long row summed a piece at a time gives the same bits. */
static inline OV_HD double ov_lane16_sum_acc(double s, const void *x, int dt, int64_t base, int64_t n, int lane)
{
	int64_t j = lane;

	for (; j + 48 < n; j += 64) {
		double a = ov_norm_load(x, dt, base + j), b = ov_norm_load(x, dt, base + j + 16);
		double c = ov_norm_load(x, dt, base + j + 32), d = ov_norm_load(x, dt, base + j + 48);
		s += a;
		s += b;
		s += c;
		s += d;
	}
	for (; j < n; j += 16)
		s += ov_norm_load(x, dt, base + j);
	return s;
}

static inline OV_HD double ov_lane16_sum(const void *x, int dt, int64_t base, int64_t n, int lane)
{
	return ov_lane16_sum_acc(0, x, dt, base, n, lane);
}

/* Lane lane's part of the sum of the squared differences of the n values at base to m (in order, read as above). */
static inline OV_HD double ov_lane16_sqdev_acc(double s, const void *x, int dt, int64_t base, int64_t n, double m,
					       int lane)
{
	int64_t j = lane;

	for (; j + 48 < n; j += 64) {
		double a = ov_norm_load(x, dt, base + j) - m, b = ov_norm_load(x, dt, base + j + 16) - m;
		double c = ov_norm_load(x, dt, base + j + 32) - m, d = ov_norm_load(x, dt, base + j + 48) - m;
		s += a * a;
		s += b * b;
		s += c * c;
		s += d * d;
	}
	for (; j < n; j += 16) {
		double d = ov_norm_load(x, dt, base + j) - m;
		s += d * d;
	}
	return s;
}

static inline OV_HD double ov_lane16_sqdev(const void *x, int dt, int64_t base, int64_t n, double m, int lane)
{
	return ov_lane16_sqdev_acc(0, x, dt, base, n, m, lane);
}

/* The mean from the sum of n values; 1/sqrt(variance + eps) from the sum of their squared differences. */
static inline OV_HD double ov_norm_mean(double sum, int64_t n)
{
	return n ? sum / (double)n : 0;
}

static inline OV_HD double ov_norm_inv(double sq, int64_t n, double eps)
{
	return 1 / sqrt((n ? sq / (double)n : 0) + eps);
}

static inline OV_HD void ov_norm_stats16(const void *x, int dt, int64_t base, int64_t n, double eps, double *mean,
					 double *inv)
{
	double l[16];

	for (int q = 0; q < 16; q++)
		l[q] = ov_lane16_sum(x, dt, base, n, q);
	double m = ov_norm_mean(ov_fold16(l), n);
	for (int q = 0; q < 16; q++)
		l[q] = ov_lane16_sqdev(x, dt, base, n, m, q);
	*mean = m;
	*inv = ov_norm_inv(ov_fold16(l), n, eps);
}

/* Integer reductions wrap like the reference's int64 arithmetic; uns: the values are unsigned (Max, Min). */
static inline OV_HD int64_t ov_red_init_i(int op, int uns)
{
	if (op == OV_RED_MAX)
		return uns ? 0 : INT64_MIN;
	if (op == OV_RED_MIN)
		return uns ? -1 : INT64_MAX;
	return op == OV_RED_PROD ? 1 : 0;
}

static inline OV_HD int64_t ov_red_step_i(int op, int64_t acc, int64_t v, int uns)
{
	switch (op) {
	case OV_RED_SUM: case OV_RED_MEAN: return ov_add_i64(acc, v);
	case OV_RED_L1: return ov_add_i64(acc, ov_abs_i64(v));
	case OV_RED_SUMSQ: return ov_add_i64(acc, ov_mul_i64(v, v));
	case OV_RED_PROD: return ov_mul_i64(acc, v);
	case OV_RED_MAX: return (uns ? (uint64_t)v > (uint64_t)acc : v > acc) ? v : acc;
	case OV_RED_MIN: return (uns ? (uint64_t)v < (uint64_t)acc : v < acc) ? v : acc;
	default: return acc;
	}
}

/* ArgMax (want_max) or ArgMin: fold in value v at position j, *bv and *best being the best value and position so
 * far (from position 0).  A NaN wins, as in numpy: the first one, or the last with select_last_index (last); ties
 * go to the first position, or the last with select_last_index. */
static inline OV_HD void ov_arg_step_d(double v, int64_t j, int want_max, int last, double *bv, int64_t *best)
{
	if (*bv != *bv) {
		if (last && v != v)
			*best = j;
		return;
	}
	if (v != v || (want_max ? v > *bv : v < *bv) || (last && v == *bv)) {
		*bv = v;
		*best = j;
	}
}

static inline OV_HD void ov_arg_step_i(int64_t v, int64_t j, int want_max, int last, int uns, int64_t *bv,
				       int64_t *best)
{
	int better = uns ? (want_max ? (uint64_t)v > (uint64_t)*bv : (uint64_t)v < (uint64_t)*bv)
			 : (want_max ? v > *bv : v < *bv);
	if (better || (last && v == *bv)) {
		*bv = v;
		*best = j;
	}
}

/* ---- numpy broadcasting ----
 *
 * Shapes are right-aligned; each dim must match or be 1 (a 0 meets a 0 or a 1).  A plan holds the output dims
 * after merging (dims of size 1 dropped, neighbours that every input walks the same way fused) and, for each
 * input, its element stride along each merged dim (0 where the input is broadcast).  The CPU walks rows (the last
 * merged dim) with ov_bcast_iter; a CUDA thread maps its output index with ov_bcast_offset. */

#define OV_BC_MAX_RANK 16
#define OV_BC_MAX_IN 3

struct ov_bcast {
	int rank;                                  /* merged, at least 1 */
	int n_in;
	int64_t numel;
	int64_t dims[OV_BC_MAX_RANK];
	int64_t strides[OV_BC_MAX_IN][OV_BC_MAX_RANK];
};

/* The broadcast shape of n shapes (n <= OV_BC_MAX_IN is not required here; any count).  Returns -1 when they
 * broadcast, else the index of the first shape that does not fit those before it (out holds the shape of those
 * before).  Ranks must be <= OV_BC_MAX_RANK. */
static inline int ov_bcast_shape(int n, const int *ranks, const int64_t *const *dims, int *out_rank,
				 int64_t *out_dims)
{
	int r = 0;

	for (int k = 0; k < n; k++)
		if (ranks[k] > r)
			r = ranks[k];
	for (int d = 0; d < r; d++)
		out_dims[d] = 1;
	*out_rank = r;
	for (int k = 0; k < n; k++) {
		int off = r - ranks[k];
		for (int d = 0; d < ranks[k]; d++) {
			int64_t a = out_dims[off + d], b = dims[k][d];
			if (a == b || b == 1)
				continue;
			if (a == 1)
				out_dims[off + d] = b;
			else
				return k;
		}
	}
	return -1;
}

/* Plan n (<= OV_BC_MAX_IN) inputs against the output shape (their broadcast shape, from ov_bcast_shape). */
static inline void ov_bcast_plan(struct ov_bcast *b, int n, const int *ranks, const int64_t *const *dims, int out_rank,
				 const int64_t *out_dims)
{
	int64_t st[OV_BC_MAX_IN][OV_BC_MAX_RANK];
	int64_t numel = 1;

	b->n_in = n;
	for (int d = 0; d < out_rank; d++)
		numel *= out_dims[d];
	b->numel = numel;
	for (int k = 0; k < n; k++) {
		int64_t s = 1;
		int off = out_rank - ranks[k];
		for (int d = out_rank - 1; d >= 0; d--) {
			int64_t in_dim = d >= off ? dims[k][d - off] : 1;
			st[k][d] = in_dim == 1 ? 0 : s;
			s *= in_dim;
		}
	}
	int r = 0;
	for (int d = 0; d < out_rank; d++) {
		if (out_dims[d] == 1)
			continue;
		int fuse = r > 0;
		for (int k = 0; k < n && fuse; k++)
			fuse = b->strides[k][r - 1] == st[k][d] * out_dims[d];
		if (fuse) {
			b->dims[r - 1] *= out_dims[d];
			for (int k = 0; k < n; k++)
				b->strides[k][r - 1] = st[k][d];
		} else {
			b->dims[r] = out_dims[d];
			for (int k = 0; k < n; k++)
				b->strides[k][r] = st[k][d];
			r++;
		}
	}
	if (r == 0 || numel == 0) { /* a scalar, or nothing to do */
		r = 1;
		b->dims[0] = numel;
		for (int k = 0; k < n; k++)
			b->strides[k][0] = 0;
	}
	b->rank = r;
}

/* Input k's element offset for output element i (one division per merged dim). */
static inline OV_HD int64_t ov_bcast_offset(const struct ov_bcast *b, int k, int64_t i)
{
	int64_t off = 0;

	for (int d = b->rank - 1; d >= 0 && i; d--) {
		int64_t q = i / b->dims[d];
		off += (i - q * b->dims[d]) * b->strides[k][d];
		i = q;
	}
	return off;
}

/* Row walker: a row is the last merged dim, b->dims[rank-1] elements, where input k advances by
 * b->strides[k][rank-1] (0 or 1) per element. */
struct ov_bcast_iter {
	int64_t pos[OV_BC_MAX_RANK];
	int64_t off[OV_BC_MAX_IN];                 /* each input's offset at the start of the current row */
};

/* Start at row 'row' (rows are numel / dims[rank-1]; a worker can start anywhere). */
static inline OV_HD void ov_bcast_iter_seek(const struct ov_bcast *b, struct ov_bcast_iter *it, int64_t row)
{
	for (int k = 0; k < OV_BC_MAX_IN; k++)
		it->off[k] = 0;
	for (int d = b->rank - 2; d >= 0; d--) {
		int64_t q = row / b->dims[d], p = row - q * b->dims[d];
		it->pos[d] = p;
		for (int k = 0; k < b->n_in; k++)
			it->off[k] += p * b->strides[k][d];
		row = q;
	}
}

static inline OV_HD void ov_bcast_iter_next(const struct ov_bcast *b, struct ov_bcast_iter *it)
{
	for (int d = b->rank - 2; d >= 0; d--) {
		for (int k = 0; k < b->n_in; k++)
			it->off[k] += b->strides[k][d];
		if (++it->pos[d] < b->dims[d])
			return;
		for (int k = 0; k < b->n_in; k++)
			it->off[k] -= b->strides[k][d] * b->dims[d];
		it->pos[d] = 0;
	}
}

#endif
