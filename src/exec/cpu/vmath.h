/* Exp, Expm1, Log, Sigmoid, Tanh, Erf, Gelu, Softplus, Mish and HardSigmoid on 8 floats at a time for the CPU's
 * unary kernels (src/exec/cpu/elementwise.c): the operations of ov_exp_f, ov_expm1_f, ov_log_f, ov_sigmoid_f,
 * ov_tanh_f, ov_erf_f (and the two Gelus), ov_softplus_f, ov_mish_f and ov_hard_sigmoid_f (src/exec/ops/ov-math.h),
 * one for one,
 * in 8 lanes, so that every result is the scalar function's to the bit, and the CUDA backend's, which runs those;
 * where the sign of exp's argument is known (Sigmoid's -|x|, Tanh's 2|x|), 2^n is scaled in with one product fewer
 * and the same rounding (vm_exp_nonpos_n, vm_exp_nonneg_n: Sigmoid and Tanh 10% faster; the bits compared by hand
 * over all 2^32 floats).
 * -O2 left the scalar loops one element at a time (Sigmoid 3.3 ns an element, libm's tanhf 20: YOLO's SiLU and
 * magika's Tanh took a quarter of their runs); tests/unit/test-elementwise checks the bits against the scalar
 * functions.  The multiply-adds the scalar functions write as fmaf are vm_fma here; nothing else is contracted
 * (VM_CLONES does not ask for it, unlike NN_CLONES), so the AVX2 clone and the baseline give the same bits. */
#ifndef OV_EXEC_CPU_VMATH_H
#define OV_EXEC_CPU_VMATH_H

#include <stdint.h>

#include "src/exec/cpu/simd.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define VM_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define VM_CLONES
#endif

/* v8f returned by value: the baseline clone's ABI for it differs from AVX's, which GCC notes at every call, in the
 * file that includes this one too; these are always inlined, so no call crosses it */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

typedef uint32_t v8u __attribute__((vector_size(32)));

#define VM_INLINE static inline __attribute__((always_inline))

VM_INLINE v8f vm_splat(float f)
{
	return (v8f){f, f, f, f, f, f, f, f};
}

VM_INLINE v8u vm_usplat(uint32_t u)
{
	return (v8u){u, u, u, u, u, u, u, u};
}

/* a * b + c rounded once, as ops/ov-math.h's fmaf: lane by lane, which GCC turns into one vfmadd in the
 * x86-64-v3 clone and libm's fmaf in the baseline (the same bits, slower: machines before 2013) */
VM_INLINE v8f vm_fma(v8f a, v8f b, v8f c)
{
	v8f r;

	for (int i = 0; i < 8; i++)
		r[i] = __builtin_fmaf(a[i], b[i], c[i]);
	return r;
}

/* the bits of a where m is all ones, of b where it is zero */
VM_INLINE v8f vm_mask(v8u m, v8f a, v8f b)
{
	return (v8f)(((v8u)a & m) | ((v8u)b & ~m));
}

/* Each function below takes n vectors at once (1, or VM_W), step by step across them: the same operations on each
 * whatever n, so the same bits.  One vector's chain of dependent operations (exp's reduction, polynomial and
 * scaling, then a division) is longer than the out-of-order window reaches across loop iterations; two
 * independent chains interleaved keep the arithmetic units busier (Sigmoid over 800K floats: 0.77 -> 0.65 ms;
 * three or four spill AVX2's 16 registers and run slower).  n is a constant where they are inlined. */
#define VM_W 2
/* vm_NAME(x): vm_NAME_n on one vector */
#define VM_ONE(name)                                                                                              \
	VM_INLINE v8f vm_##name(v8f x)                                                                             \
	{                                                                                                          \
		v8f y;                                                                                             \
		vm_##name##_n(&x, &y, 1);                                                                          \
		return y;                                                                                          \
	}

#define VM_EACH(n, stmt)                                                                                          \
	do {                                                                                                      \
		_Pragma("GCC unroll 2") for (int i_ = 0; i_ < (n); i_++) { stmt; }                                  \
	} while (0)

/* ov_exp_f's reduction and polynomial: y = e^r for x = n ln 2 + r (the 1 + r + r^2 P(r) before the scaling), and
 * k, whose low bits hold n */
VM_INLINE void vm_exp_core_n(const v8f *x, v8f *k, v8f *y, const int n)
{
	v8f fn[VM_W], r[VM_W], p[VM_W];

	VM_EACH(n, k[i_] = vm_fma(x[i_], vm_splat(1.44269504088896341f), vm_splat(12582912.0f)));
	VM_EACH(n, fn[i_] = k[i_] - vm_splat(12582912.0f));
	VM_EACH(n, r[i_] = vm_fma(fn[i_], vm_splat(-0.693359375f), x[i_]));
	VM_EACH(n, r[i_] = vm_fma(fn[i_], vm_splat(2.12194440e-4f), r[i_]));
	VM_EACH(n, p[i_] = vm_fma(vm_splat(1.9875691500e-4f), r[i_], vm_splat(1.3981999507e-3f)));
	VM_EACH(n, p[i_] = vm_fma(p[i_], r[i_], vm_splat(8.3334519073e-3f)));
	VM_EACH(n, p[i_] = vm_fma(p[i_], r[i_], vm_splat(4.1665795894e-2f)));
	VM_EACH(n, p[i_] = vm_fma(p[i_], r[i_], vm_splat(1.6666665459e-1f)));
	VM_EACH(n, p[i_] = vm_fma(p[i_], r[i_], vm_splat(5.0000001201e-1f)));
	VM_EACH(n, y[i_] = vm_fma(p[i_], r[i_] * r[i_], r[i_]) + vm_splat(1.0f));
}

/* ov_exp_f: 2^n scaled in as 2^h 2^(n - h), then the patches below -104 and above 89.  h = n >> 1, a shift where
 * ov_exp_f divides (two operations fewer): for an odd n below 0 the halves differ by one, but y 2^h is exact either
 * way (h >= -75, y about 1) and the one rounding is of y 2^n, so the bits are ov_exp_f's. */
VM_INLINE void vm_exp_n(const v8f *x, v8f *y, const int n)
{
	v8f k[VM_W];
	v8i e[VM_W], h[VM_W];

	vm_exp_core_n(x, k, y, n);
	VM_EACH(n, e[i_] = (v8i)((v8u)k[i_] - vm_usplat(0x4b400000u)));
	VM_EACH(n, h[i_] = e[i_] >> 1);
	VM_EACH(n, y[i_] = y[i_] * (v8f)((v8u)(h[i_] + 127) << 23) * (v8f)((v8u)(e[i_] - h[i_] + 127) << 23));
	VM_EACH(n, y[i_] = (v8f)(((v8u)y[i_] & ~((v8u)(x[i_] < vm_splat(-104.0f)) | (v8u)(x[i_] > vm_splat(89.0f)))) |
				 ((v8u)(x[i_] > vm_splat(89.0f)) & vm_usplat(0x7f800000u))));
}

VM_ONE(exp)

/* ov_exp_f's result for x <= 0 (or NaN) in fewer operations: 2^n scaled in as 2^(n + 64), then 2^-64.  Both ways
 * round once: y * 2^h and y * 2^(n + 64) are exact (normal floats for n down to -150), and the last product is
 * y * 2^n rounded, so the bits are ov_exp_f's; x > 0 never comes (no overflow to patch). */
VM_INLINE void vm_exp_nonpos_n(const v8f *x, v8f *y, const int n)
{
	v8f k[VM_W];

	vm_exp_core_n(x, k, y, n);
	VM_EACH(n, y[i_] = y[i_] * (v8f)(((v8u)k[i_] - vm_usplat(0x4b400000u - 127u - 64u)) << 23) * /* n + 127 + 64 */
			   vm_splat(0x1p-64f));
	VM_EACH(n, y[i_] = (v8f)((v8u)y[i_] & ~(v8u)(x[i_] < vm_splat(-104.0f))));
}

/* The same for x >= 0 (or NaN): 2^(n - 64), then 2^64 (exact, then one rounding, which overflows where ov_exp_f's
 * does), and ov_exp_f's patch for x > 89. */
VM_INLINE void vm_exp_nonneg_n(const v8f *x, v8f *y, const int n)
{
	v8f k[VM_W];

	vm_exp_core_n(x, k, y, n);
	VM_EACH(n, y[i_] = y[i_] * (v8f)(((v8u)k[i_] - vm_usplat(0x4b400000u - 127u + 64u)) << 23) * /* n + 127 - 64 */
			   vm_splat(0x1p64f));
	VM_EACH(n, y[i_] = (v8f)(((v8u)y[i_] & ~(v8u)(x[i_] > vm_splat(89.0f))) |
				 ((v8u)(x[i_] > vm_splat(89.0f)) & vm_usplat(0x7f800000u))));
}

/* ov_sigmoid_f: e = e^-|x|, s = 1 / (1 + e), then s for x >= 0 and e s below */
VM_INLINE void vm_sigmoid_n(const v8f *x, v8f *y, const int n)
{
	v8f a[VM_W], e[VM_W], s[VM_W];

	VM_EACH(n, a[i_] = (v8f)((v8u)x[i_] | vm_usplat(0x80000000u)));
	vm_exp_nonpos_n(a, e, n);
	VM_EACH(n, s[i_] = vm_splat(1.0f) / (vm_splat(1.0f) + e[i_]));
	VM_EACH(n, y[i_] = vm_mask((v8u)(x[i_] >= vm_splat(0.0f)), s[i_], e[i_] * s[i_]));
}

VM_ONE(sigmoid)

/* ov_tanh_f: an odd polynomial in |x| below 0.625, 1 - 2 / (e^2|x| + 1) from there, |x|'s sign put back */
VM_INLINE void vm_tanh_n(const v8f *x, v8f *y, const int n)
{
	v8f a[VM_W], z[VM_W], p[VM_W], small[VM_W], a2[VM_W], e[VM_W];

	VM_EACH(n, a[i_] = (v8f)((v8u)x[i_] & vm_usplat(0x7fffffffu)));
	VM_EACH(n, a2[i_] = a[i_] + a[i_]);
	vm_exp_nonneg_n(a2, e, n);
	VM_EACH(n, e[i_] = vm_splat(1.0f) - vm_splat(2.0f) / (e[i_] + vm_splat(1.0f)));
	VM_EACH(n, z[i_] = x[i_] * x[i_]);
	VM_EACH(n, p[i_] = vm_fma(vm_splat(-5.70498872745e-3f), z[i_], vm_splat(2.06390887954e-2f)));
	VM_EACH(n, p[i_] = vm_fma(p[i_], z[i_], vm_splat(-5.37397155531e-2f)));
	VM_EACH(n, p[i_] = vm_fma(p[i_], z[i_], vm_splat(1.33314422036e-1f)));
	VM_EACH(n, p[i_] = vm_fma(p[i_], z[i_], vm_splat(-3.33332819422e-1f)));
	VM_EACH(n, small[i_] = vm_fma(p[i_] * z[i_], a[i_], a[i_]));
	VM_EACH(n, e[i_] = vm_mask((v8u)(a[i_] < vm_splat(0.625f)), small[i_], e[i_]));
	VM_EACH(n, y[i_] = (v8f)((v8u)e[i_] | ((v8u)x[i_] & vm_usplat(0x80000000u))));
}

VM_ONE(tanh)

/* ov_erf_f: a + a R(a^2) below 0.84375, 1 - e^Q(a) from there (Q < 0 there: vm_exp_nonpos_n), with a held at 3.92,
 * then x's sign */
VM_INLINE void vm_erf_n(const v8f *x, v8f *y, const int n)
{
	v8f a[VM_W], z[VM_W], r[VM_W], t[VM_W], q[VM_W], e[VM_W];

	VM_EACH(n, a[i_] = (v8f)((v8u)x[i_] & vm_usplat(0x7fffffffu)));
	VM_EACH(n, z[i_] = a[i_] * a[i_]);
	VM_EACH(n, r[i_] = vm_fma(vm_splat(-6.360081607e-04f), z[i_], vm_splat(5.058695562e-03f)));
	VM_EACH(n, r[i_] = vm_fma(r[i_], z[i_], vm_splat(-2.680703439e-02f)));
	VM_EACH(n, r[i_] = vm_fma(r[i_], z[i_], vm_splat(1.128282547e-01f)));
	VM_EACH(n, r[i_] = vm_fma(r[i_], z[i_], vm_splat(-3.761258125e-01f)));
	VM_EACH(n, r[i_] = vm_fma(r[i_], z[i_], vm_splat(1.283791661e-01f)));
	VM_EACH(n, t[i_] = vm_mask((v8u)(a[i_] > vm_splat(3.92f)), vm_splat(3.92f), a[i_]));
	VM_EACH(n, q[i_] = vm_fma(vm_splat(-7.649522615e-08f), t[i_], vm_splat(1.833881583e-06f)));
	VM_EACH(n, q[i_] = vm_fma(q[i_], t[i_], vm_splat(-1.771898133e-05f)));
	VM_EACH(n, q[i_] = vm_fma(q[i_], t[i_], vm_splat(7.225900481e-05f)));
	VM_EACH(n, q[i_] = vm_fma(q[i_], t[i_], vm_splat(1.334253175e-04f)));
	VM_EACH(n, q[i_] = vm_fma(q[i_], t[i_], vm_splat(-3.545671934e-03f)));
	VM_EACH(n, q[i_] = vm_fma(q[i_], t[i_], vm_splat(2.426828071e-02f)));
	VM_EACH(n, q[i_] = vm_fma(q[i_], t[i_], vm_splat(-1.075290069e-01f)));
	VM_EACH(n, q[i_] = vm_fma(q[i_], t[i_], vm_splat(-6.337587237e-01f)));
	VM_EACH(n, q[i_] = vm_fma(q[i_], t[i_], vm_splat(-1.129388094e+00f)));
	VM_EACH(n, q[i_] = vm_fma(q[i_], t[i_], vm_splat(1.580019743e-04f)));
	vm_exp_nonpos_n(q, e, n);
	VM_EACH(n, e[i_] = vm_mask((v8u)(a[i_] < vm_splat(0.84375f)), vm_fma(a[i_], r[i_], a[i_]), vm_splat(1.0f) - e[i_]));
	VM_EACH(n, y[i_] = (v8f)((v8u)e[i_] | ((v8u)x[i_] & vm_usplat(0x80000000u))));
}

VM_ONE(erf)

/* ov_gelu_f: x/2 (1 + erf(x / sqrt 2)), ov_erf_f's erf */
VM_INLINE void vm_gelu_n(const v8f *x, v8f *y, const int n)
{
	v8f s[VM_W], e[VM_W];

	VM_EACH(n, s[i_] = x[i_] * vm_splat(0.70710678118654752440f));
	vm_erf_n(s, e, n);
	VM_EACH(n, y[i_] = vm_splat(0.5f) * x[i_] * (vm_splat(1.0f) + e[i_]));
}

VM_ONE(gelu)

/* ov_gelu_tanh_f: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), ov_tanh_f's tanh */
VM_INLINE void vm_gelu_tanh_n(const v8f *x, v8f *y, const int n)
{
	v8f s[VM_W], e[VM_W];

	VM_EACH(n, s[i_] = vm_splat(0.79788456080286535588f) *
			   (x[i_] + vm_splat(0.044715f) * x[i_] * x[i_] * x[i_]));
	vm_tanh_n(s, e, n);
	VM_EACH(n, y[i_] = vm_splat(0.5f) * x[i_] * (vm_splat(1.0f) + e[i_]));
}

VM_ONE(gelu_tanh)

/* ov_log_f: subnormals scaled by 2^23, x = 2^e m, t = m - 1, t - t^2/2 + t^3 P(t) + e ln 2, the special values
 * patched in */
VM_INLINE void vm_log_n(const v8f *x, v8f *y, const int n)
{
	v8u sub[VM_W], ix[VM_W];
	v8f fe[VM_W], t[VM_W], t2[VM_W], p[VM_W];

	VM_EACH(n, sub[i_] = (v8u)(x[i_] < vm_splat(0x1p-126f)));
	VM_EACH(n, ix[i_] = (v8u)(x[i_] * (v8f)((vm_usplat(0x4b000000u) & sub[i_]) |
						 (vm_usplat(0x3f800000u) & ~sub[i_]))) +
			    vm_usplat(0x3f800000u - 0x3f3504f3u));
	VM_EACH(n, fe[i_] = __builtin_convertvector((v8i)(ix[i_] >> 23) - 127 - (v8i)(sub[i_] & vm_usplat(23u)), v8f));
	VM_EACH(n, t[i_] = (v8f)((ix[i_] & vm_usplat(0x007fffffu)) + vm_usplat(0x3f3504f3u)) - vm_splat(1.0f));
	VM_EACH(n, p[i_] = vm_fma(vm_splat(-7.634465396e-02f), t[i_], vm_splat(1.276157051e-01f)));
	VM_EACH(n, p[i_] = vm_fma(p[i_], t[i_], vm_splat(-1.316019148e-01f)));
	VM_EACH(n, p[i_] = vm_fma(p[i_], t[i_], vm_splat(1.420175880e-01f)));
	VM_EACH(n, p[i_] = vm_fma(p[i_], t[i_], vm_splat(-1.662335694e-01f)));
	VM_EACH(n, p[i_] = vm_fma(p[i_], t[i_], vm_splat(2.000122666e-01f)));
	VM_EACH(n, p[i_] = vm_fma(p[i_], t[i_], vm_splat(-2.500082254e-01f)));
	VM_EACH(n, p[i_] = vm_fma(p[i_], t[i_], vm_splat(3.333333135e-01f)));
	VM_EACH(n, t2[i_] = t[i_] * t[i_]);
	VM_EACH(n, p[i_] = t[i_] * t2[i_] * p[i_]);
	VM_EACH(n, p[i_] = vm_fma(fe[i_], vm_splat(-2.12194440e-4f), p[i_]));
	VM_EACH(n, p[i_] = vm_fma(vm_splat(-0.5f), t2[i_], p[i_]));
	VM_EACH(n, p[i_] = t[i_] + p[i_]);
	VM_EACH(n, p[i_] = vm_fma(fe[i_], vm_splat(0.693359375f), p[i_]));
	/* zero, below zero, +inf and NaN: which lanes (sub), and what they give (ix) */
	VM_EACH(n, sub[i_] = (v8u)(x[i_] == vm_splat(0.0f)) | (v8u)(x[i_] < vm_splat(0.0f)) |
			     (v8u)(x[i_] > vm_splat(0x1.fffffep127f)) | (v8u)(x[i_] != x[i_]));
	VM_EACH(n, ix[i_] = ((v8u)(x[i_] == vm_splat(0.0f)) & vm_usplat(0xff800000u)) |
			    ((v8u)(x[i_] < vm_splat(0.0f)) & vm_usplat(0x7fc00000u)) |
			    ((v8u)(x[i_] > vm_splat(0x1.fffffep127f)) & vm_usplat(0x7f800000u)) |
			    ((v8u)(x[i_] != x[i_]) & (v8u)x[i_]));
	VM_EACH(n, y[i_] = (v8f)(((v8u)p[i_] & ~sub[i_]) | ix[i_]));
}

VM_ONE(log)

/* ov_softplus_f: max(x, 0) + log(w) + (u - (w - 1)) / w for u = e^-|x|, w = 1 + u */
VM_INLINE void vm_softplus_n(const v8f *x, v8f *y, const int n)
{
	v8f a[VM_W], u[VM_W], w[VM_W], l[VM_W];

	VM_EACH(n, a[i_] = (v8f)((v8u)x[i_] | vm_usplat(0x80000000u)));
	vm_exp_nonpos_n(a, u, n);
	VM_EACH(n, w[i_] = vm_splat(1.0f) + u[i_]);
	vm_log_n(w, l, n);
	VM_EACH(n, l[i_] = l[i_] + (u[i_] - (w[i_] - vm_splat(1.0f))) / w[i_]);
	VM_EACH(n, y[i_] = vm_mask((v8u)(x[i_] > vm_splat(0.0f)), x[i_], vm_splat(0.0f)) + l[i_]);
}

VM_ONE(softplus)

/* ov_mish_f: x tanh(softplus(x)) */
VM_INLINE void vm_mish_n(const v8f *x, v8f *y, const int n)
{
	v8f s[VM_W], t[VM_W];

	vm_softplus_n(x, s, n);
	vm_tanh_n(s, t, n);
	VM_EACH(n, y[i_] = x[i_] * t[i_]);
}

VM_ONE(mish)

/* ov_expm1_f: x + (x^2/2 + x^3 P(x)) (with x's sign) below |x| = 0.5, e^x - 1 from there */
VM_INLINE void vm_expm1_n(const v8f *x, v8f *y, const int n)
{
	v8f x2[VM_W], p[VM_W], e[VM_W];

	VM_EACH(n, x2[i_] = x[i_] * x[i_]);
	VM_EACH(n, p[i_] = vm_fma(vm_splat(1.980594097e-04f), x[i_], vm_splat(1.398122520e-03f)));
	VM_EACH(n, p[i_] = vm_fma(p[i_], x[i_], vm_splat(8.333705366e-03f)));
	VM_EACH(n, p[i_] = vm_fma(p[i_], x[i_], vm_splat(4.166587070e-02f)));
	VM_EACH(n, p[i_] = vm_fma(p[i_], x[i_], vm_splat(1.666666269e-01f)));
	VM_EACH(n, p[i_] = x[i_] + vm_fma(x2[i_] * x[i_], p[i_], vm_splat(0.5f) * x2[i_]));
	VM_EACH(n, p[i_] = (v8f)((v8u)p[i_] | ((v8u)x[i_] & vm_usplat(0x80000000u))));
	VM_EACH(n, e[i_] = vm_exp(x[i_]) - vm_splat(1.0f));
	VM_EACH(n, y[i_] = vm_mask((v8u)((v8f)((v8u)x[i_] & vm_usplat(0x7fffffffu)) < vm_splat(0.5f)), p[i_], e[i_]));
}

VM_ONE(expm1)

/* ov_hard_sigmoid_f: a x + b, below 0 gives 0, then above 1 gives 1 (NaN passes) */
VM_INLINE v8f vm_hard_sigmoid(v8f x, v8f a, v8f b)
{
	v8f v = a * x + b;
	v = vm_mask((v8u)(v < vm_splat(0.0f)), vm_splat(0.0f), v);
	return vm_mask((v8u)(v > vm_splat(1.0f)), vm_splat(1.0f), v);
}

#endif
