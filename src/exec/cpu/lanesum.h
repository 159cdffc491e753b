/* ops/ov-math.h's 16-lane sums with vectors, for the CPU's row kernels (cpu/reduce.c, cpu/norm.c): ov_sum16_f (the
 * double sum of a float32 run in 16 lanes, folded 8, 4, 2, 1 apart) and ov_lane16_sqdev's squared differences
 * folded the same way (the normalisations' variance): the same element-wise double additions, so the same bits as
 * the scalar definitions, which the CUDA kernels run.  Four vectors of four doubles hold lanes 0-3, 4-7, 8-11 and
 * 12-15; adding the third to the first and the fourth to the second folds lane q + 8 into q, and so on. */
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

/* The double sum of (x[j] - m)^2 over the n floats, in the lanes above (ov_lane16_sqdev's, folded by ov_fold16). */
static inline __attribute__((always_inline)) double cpu_sumsq16_f(const float *x, int64_t n, double m)
{
	v4d_ls s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, mv = {m, m, m, m};
	int64_t j = 0;

	for (; j + 16 <= n; j += 16) {
		v4d_ls d0 = LS_LOAD(x + j) - mv, d1 = LS_LOAD(x + j + 4) - mv, d2 = LS_LOAD(x + j + 8) - mv,
		       d3 = LS_LOAD(x + j + 12) - mv;
		s0 += d0 * d0;
		s1 += d1 * d1;
		s2 += d2 * d2;
		s3 += d3 * d3;
	}
	if (j < n) { /* the rest to lanes 0..: the lanes past it add +0 (no sum of squares is -0) */
		double t[16] = {0};
		for (int q = 0; q < n - j; q++) {
			double d = (double)x[j + q] - m;
			t[q] = d * d;
		}
		v4d_ls t0, t1, t2, t3;
		memcpy(&t0, t, sizeof t0);
		memcpy(&t1, t + 4, sizeof t1);
		memcpy(&t2, t + 8, sizeof t2);
		memcpy(&t3, t + 12, sizeof t3);
		s0 += t0;
		s1 += t1;
		s2 += t2;
		s3 += t3;
	}
	v4d_ls u = (s0 + s2) + (s1 + s3);
	return (u[0] + u[2]) + (u[1] + u[3]);
}

#endif
