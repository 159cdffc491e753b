/* The CPU's own float32 matrix product (src/exec/cpu/sgemm.c) for MatMul and Gemm: B packed into panels of 16
 * columns, which a constant B (the weights) keeps across runs (xk_derive), and an epilogue (a bias row or matrix,
 * then an activation) applied as each tile of C is finished.
 *
 * Every element of C is one chain of fused multiply-adds over k in order (k = 0 first), whatever the blocking, the
 * tile an element falls in and the row count of that tile: so a result does not depend on M, on which rows share a
 * call, nor on how C is split.  The epilogue rounds as the nodes it stands for do: y = act(acc + bias) with the
 * float addition of the Add kernel and the Relu/Clip kernels' rule. */
#ifndef OV_EXEC_CPU_SGEMM_H
#define OV_EXEC_CPU_SGEMM_H

#include <stddef.h>
#include <stdint.h>

#include "src/exec/exec.h"

#define SGEMM_NR 16 /* columns per panel */

/* What is applied to each element of C once its sum is complete: c = act((c + bias[0][i * bias_rs[0] + j]) +
 * bias[1][...]) (a NULL bias is none; bias_rs 0: one row for every row of C); act NULL or EXEC_ACT_NONE: none. */
struct sgemm_epi {
	const float *bias[2];
	int64_t bias_rs[2];
	const struct exec_act *act;
};

/* Floats a packed K x N matrix takes (panels of SGEMM_NR columns, the last padded with zeros). */
size_t cpu_sgemm_packed_floats(int64_t k, int64_t n);
/* Pack op(B) (K x N; B itself N x K when trans_b) with row stride ldb into dst (cpu_sgemm_packed_floats). */
void cpu_sgemm_pack(int trans_b, int64_t k, int64_t n, const float *b, int64_t ldb, float *dst);
/* C (M x N, row stride ldc) = A (M x K, row stride lda) times packed B, then the epilogue (NULL: none).  C may hold
 * anything before (NaN too): it is written, not added to. */
void cpu_sgemm_packed(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *bp, float *c,
		      int64_t ldc, const struct sgemm_epi *e);

#define SGEMM_PAN_FLOATS (512 * SGEMM_NR) /* cpu_sgemm_direct's buffer: a panel of a k block */
/* C = A times op(B) as cpu_sgemm_packed computes it (the same bits), B read where it lies (K x N, or N x K when
 * trans_b; row stride ldb): a panel of it packed into pan (SGEMM_PAN_FLOATS) when the loops reach it, or read in
 * place.  For one block of rows (M up to 144); more rows pack B again for each block. */
void cpu_sgemm_direct(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, int trans_b, const float *b,
		      int64_t ldb, float *pan, float *c, int64_t ldc, const struct sgemm_epi *e);
/* C = A times op(B) (B input b_input of the kernel's node: K x N, or N x K when trans_b), then the epilogue, with
 * cpu_sgemm_packed's results however B is read: a constant kept across runs is packed at its first use and filed
 * with xk_derive; any other B is packed for this call, all of it, or when M is one block of rows, a panel at a time
 * as the loops reach it.  0, or -1 with k failed (out of memory). */
int cpu_sgemm_node(struct exec_kernel_ctx *k, size_t b_input, int trans_b, int64_t m, int64_t n, int64_t kk,
		   const float *a, int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc,
		   const struct sgemm_epi *e);

#endif
