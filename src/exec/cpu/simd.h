/* The CPU's hand-vectorised float kernels share these (src/exec/cpu/conv.c, depthwise.c, conv-direct.c): GCC
 * vector extensions of 8 floats (two SSE registers on a baseline x86-64, one AVX2 register with FMA in the
 * x86-64-v3 clone picked at load time: NN_CLONES), since -O2 leaves such loops scalar, and the fused activation
 * applied 8 floats at a time. */
#ifndef OV_EXEC_CPU_SIMD_H
#define OV_EXEC_CPU_SIMD_H

#include <math.h>
#include <stdint.h>

#include "src/exec/exec.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define NN_CLONES __attribute__((target_clones("arch=x86-64-v3", "default"), optimize("fp-contract=fast")))
#define NN_WIDE __attribute__((target("arch=x86-64-v4"), optimize("fp-contract=fast")))
#else
#define NN_CLONES
#endif

typedef float v8f __attribute__((vector_size(32)));
typedef int v8i __attribute__((vector_size(32)));
/* Any 8 of the 16 elements of (a, b) (V8_SHUF2: indices 0-7 from a, 8-15 from b), and the even and the odd ones
 * (for stride 2), the latter as an in-lane shuffle then a permutation of 64-bit pairs: two AVX2 instructions each
 * (vshufps, vpermd), where GCC makes three of one 16-element shuffle.  GCC's __builtin_shuffle, clang's (the fuzz
 * build) __builtin_shufflevector. */
#if defined(__clang__)
#define V8_SHUF2(a, b, ...) __builtin_shufflevector((a), (b), __VA_ARGS__)
#define V8_PAIRS(t) __builtin_shufflevector((t), (t), 0, 1, 4, 5, 2, 3, 6, 7)
#else
#define V8_SHUF2(a, b, ...) __builtin_shuffle((a), (b), (v8i){__VA_ARGS__})
#define V8_PAIRS(t) __builtin_shuffle((t), (v8i){0, 1, 4, 5, 2, 3, 6, 7})
#endif
#define V8_EVEN(a, b) V8_PAIRS(V8_SHUF2((a), (b), 0, 2, 8, 10, 4, 6, 12, 14))
#define V8_ODD(a, b) V8_PAIRS(V8_SHUF2((a), (b), 1, 3, 9, 11, 5, 7, 13, 15))

/* Clip's rule on 8 floats (Relu is lo 0, hi infinity): below lo gives below (lo, or hi when lo > hi), above hi
 * gives hi, NaN passes. */
struct act8 {
	int on;
	v8f lo, hi, below;
};

static inline void act8_init(struct act8 *a, const struct exec_act *act)
{
	enum exec_act_kind kind = act ? act->kind : EXEC_ACT_NONE;
	float lo = kind == EXEC_ACT_RELU ? 0.0f : act ? act->lo : 0.0f;
	float hi = kind == EXEC_ACT_RELU ? INFINITY : act ? act->hi : 0.0f;
	float below = lo > hi ? hi : lo;

	a->on = kind != EXEC_ACT_NONE;
	a->lo = (v8f){lo, lo, lo, lo, lo, lo, lo, lo};
	a->hi = (v8f){hi, hi, hi, hi, hi, hi, hi, hi};
	a->below = (v8f){below, below, below, below, below, below, below, below};
}

/* (pointers, not values: v8f passed by value would change the calling convention between the clones) */
static inline void act8_apply(v8f *x, const struct act8 *a)
{
	/* two selects, each a compare and a blend: below lo becomes lo, then above hi becomes hi (so lo > hi gives
	 * hi, as the Clip kernel does), and NaN, neither below nor above, stays */
	v8i lt = *x < a->lo;
	v8f y = (v8f)(((v8i)*x & ~lt) | ((v8i)a->lo & lt));
	v8i gt = y > a->hi;
	*x = (v8f)(((v8i)y & ~gt) | ((v8i)a->hi & gt));
}

/* r[0..8) transposed in place: r[j][i] becomes r[i][j] (AVX2's unpack, shuffle and lane-swap steps). */
static inline void v8_transpose(v8f *r)
{
	v8f t[8], u[8];

#pragma GCC unroll 4
	for (int i = 0; i < 4; i++) {
		t[2 * i] = V8_SHUF2(r[2 * i], r[2 * i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
		t[2 * i + 1] = V8_SHUF2(r[2 * i], r[2 * i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
	}
#pragma GCC unroll 2
	for (int i = 0; i < 2; i++)
#pragma GCC unroll 2
		for (int h = 0; h < 2; h++) {
			u[4 * i + 2 * h] = V8_SHUF2(t[4 * i + h], t[4 * i + h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
			u[4 * i + 2 * h + 1] = V8_SHUF2(t[4 * i + h], t[4 * i + h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
		}
#pragma GCC unroll 4
	for (int j = 0; j < 4; j++) {
		r[j] = V8_SHUF2(u[j], u[j + 4], 0, 1, 2, 3, 8, 9, 10, 11);
		r[j + 4] = V8_SHUF2(u[j], u[j + 4], 4, 5, 6, 7, 12, 13, 14, 15);
	}
}

/* 8 floats from anywhere */
typedef float v8f_any __attribute__((vector_size(32), aligned(4), may_alias));
#define LOAD8(p) (*(const v8f_any *)(p))
/* and to anywhere (one 32-byte store, where memcpy of a v8f makes two 16-byte ones) */
#define STORE8(p, v) (*(v8f_any *)(p) = (v))

/* y[0..n) = act(y) (src/exec/cpu/conv.c), with the same float operations as the Relu and Clip kernels (and for
 * SiLU, cpu_silu_f's). */
void cpu_act_f(float *restrict y, int64_t n, const struct exec_act *act);
/* y[0..n) = y * sigmoid(y) in place (src/exec/cpu/elementwise.c): the Sigmoid kernel's bits times y, as its Mul. */
void cpu_silu_f(float *y, int64_t n);
/* y[0..n) = y * ab[0] + ab[1] (ab NULL: left, done already), then what follows the BatchNormalization of bn (a
 * Relu or Clip, HardSwish, HardSigmoid, HardSwish as nodes, or nothing), in place and in one pass
 * (src/exec/cpu/elementwise.c): their kernels' bits. */
void cpu_bn_then_f(float *y, int64_t n, const float *ab, const struct exec_bn_offer *bn);
/* The same over planes (nb x c of them, inner >= 8 values each) in place, in one call: plane p's {a, b} at
 * ab[2 * (p % c)] (src/exec/cpu/elementwise.c). */
void cpu_bn_planes_f(float *y, int64_t planes, int64_t c, int64_t inner, const float *ab,
		     const struct exec_bn_offer *bn);
/* y = the BatchNormalization bn of y (nb images of c channels of inner values each), then what follows it, in place
 * (src/exec/cpu/norm.c): the kernels' bits.  1 (y untouched) when bn's parameters are not c values each. */
int cpu_bn_apply_f(float *y, int64_t nb, int64_t c, int64_t inner, const struct exec_bn_offer *bn);

#endif
