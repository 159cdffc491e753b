/* ops/ov-math.h's ov_sum16_f (the double sum of a float32 run in 16 lanes, folded 8, 4, 2, 1 apart) with vectors,
 * for the CPU's row kernels (cpu/reduce.c, cpu/norm.c): the same element-wise double additions, so the same bits as
 * the scalar definition, which the CUDA kernels run. */
#ifndef OV_EXEC_CPU_LANESUM_H
#define OV_EXEC_CPU_LANESUM_H

#include <stdint.h>
#include <string.h>

typedef double v4d_ls __attribute__((vector_size(32)));
typedef float v4f_ls __attribute__((vector_size(16), aligned(4), may_alias));

#define LS_LOAD(p) __builtin_convertvector(*(const v4f_ls *)(p), v4d_ls)

/* Inlined into the caller, so it takes the caller's target (its x86-64-v3 clone: AVX2). */
static inline __attribute__((always_inline)) double cpu_sum16_f(const float *x, int64_t n)
{
	v4d_ls s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
	int64_t j = 0;

	for (; j + 16 <= n; j += 16) {
		s0 += LS_LOAD(x + j);
		s1 += LS_LOAD(x + j + 4);
		s2 += LS_LOAD(x + j + 8);
		s3 += LS_LOAD(x + j + 12);
	}
	if (j < n) { /* the rest to lanes 0..: the lanes past it add +0, which changes no sum (none is -0) */
		float t[16] = {0};
		memcpy(t, x + j, (size_t)(n - j) * sizeof *t);
		s0 += LS_LOAD(t);
		s1 += LS_LOAD(t + 4);
		s2 += LS_LOAD(t + 8);
		s3 += LS_LOAD(t + 12);
	}
	v4d_ls u = (s0 + s2) + (s1 + s3);
	return (u[0] + u[2]) + (u[1] + u[3]);
}

#endif
