// Matrix products on the CUDA device through cuBLAS: MatMul (numpy batching with broadcast batch dims, 1-D
// promotion) and Gemm (transA, transB, alpha, beta, C broadcast to [M, N]), float32 (float16 and bfloat16 through
// float32, as on the CPU).  Full float32 arithmetic unless TF32 was asked for (exec_cuda_set_tf32, run --tf32).
//
// cuBLAS is column-major and the tensors are row-major: a row-major M x N matrix is the column-major N x M
// matrix of its transpose, so Y = op(A) op(B) is computed as Y^T = op(B)^T op(A)^T, B first.
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/cuda/backend.h"

static int set_math(struct exec_kernel_ctx *k)
{
	// CUBLAS_DEFAULT_MATH keeps float32 products in float32 (no TF32 tensor cores)
	return cu_need_blas(k) ||
	       CU_BLAS_OK(k, cu_blas.set_math_mode(cu_dev.blas, cu_dev.tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
}

static int fits_int(int64_t v)
{
	return v >= 0 && v <= INT_MAX;
}

// ---- MatMul ----

// Batch bi's element offsets into A and B (the batch index taken apart over the broadcast batch dims).
static void mm_offsets(const struct mm_geom *p, int64_t bi, int64_t *aoff, int64_t *boff)
{
	*aoff = *boff = 0;
	for (int i = p->nbatch - 1; i >= 0; i--) {
		int64_t q = bi / p->bdims[i], r = bi - q * p->bdims[i];
		*aoff += r * p->astr[i];
		*boff += r * p->bstr[i];
		bi = q;
	}
}

static int k_matmul(struct exec_kernel_ctx *k)
{
	const struct xtensor *a = k->n_in > 0 ? k->in[0] : NULL, *b = k->n_in > 1 ? k->in[1] : NULL;
	struct mm_geom p;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!a || !b || !cu_float_type(a->dtype) || b->dtype != a->dtype)
		return EXEC_DECLINE;
	if (ops_matmul_setup(k, a, b, &p))
		return EXEC_DECLINE; // the CPU says what is wrong
	if (!fits_int(p.m) || !fits_int(p.n) || !fits_int(p.kk) || !fits_int(p.batches))
		return EXEC_DECLINE;
	if (xk_output_raw(k, 0, a->dtype, p.out_rank, p.out))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	const float *da = NULL, *db = NULL;
	float *dy = (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float));
	if (!dy)
		goto out;
	if (p.kk == 0) { // empty sums: zeros
		if (CU_OK(k, cudaMemsetAsync(dy, 0, (size_t)y->numel * sizeof(float), cu_dev.stream)))
			goto out;
	} else {
		const float one = 1.0f, zero = 0.0f;
		int m = (int)p.m, n = (int)p.n, kk = (int)p.kk;
		if (!(da = cu_input_f32(k, &bufs, 0)) || !(db = cu_input_f32(k, &bufs, 1)) || set_math(k))
			goto out;
		// Batches whose offsets step evenly (every batch its own matrices, or one side shared by all) make one
		// strided batched call; broadcasting that mixes the two runs batch by batch.
		int64_t a1 = 0, b1 = 0, ao, bo;
		if (p.batches > 1)
			mm_offsets(&p, 1, &a1, &b1);
		int even = 1;
		for (int64_t bi = 2; bi < p.batches && even; bi++) {
			mm_offsets(&p, bi, &ao, &bo);
			even = ao == bi * a1 && bo == bi * b1;
		}
		if (even && (p.batches == 1 || (b1 == 0 && a1 == p.m * p.kk)) && fits_int(p.batches * p.m)) {
			// one B for every batch and A's batches one after the other (a Linear over [batch, seq, features]):
			// the batches are rows of one product, as one call (batched calls of one matrix each run slower)
			if (CU_BLAS_OK(k, cu_blas.sgemm(cu_dev.blas, CUBLAS_OP_N, CUBLAS_OP_N, n, (int)(p.batches * p.m), kk,
						      &one, db, n, da, kk, &zero, dy, n)))
				goto out;
		} else if (even) {
			if (CU_BLAS_OK(k, cu_blas.sgemm_strided_batched(cu_dev.blas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, kk, &one, db,
								    n, b1, da, kk, a1, &zero, dy, n, p.m * p.n,
								    (int)p.batches)))
				goto out;
		} else {
			for (int64_t bi = 0; bi < p.batches; bi++) {
				mm_offsets(&p, bi, &ao, &bo);
				if (CU_BLAS_OK(k, cu_blas.sgemm(cu_dev.blas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, kk, &one, db + bo, n,
							      da + ao, kk, &zero, dy + bi * p.m * p.n, n)))
					goto out;
			}
		}
	}
	{ // an Add (a bias over the last axis, or a residual) and a Relu or Clip the runner offered
		struct cu_epi epi;
		if (cu_take_offers(k, y, &epi) || cu_epilogue(k, dy, y->numel, &epi))
			goto out;
	}
	if (cu_output_f32(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// ---- Gemm ----

// y[i, j] = beta * C[i or 0, j or 0]: the CPU's first step (beta * C, a float product of floats, rounded once)
static __global__ void gemm_fill_c(float *y, const float *c, float beta, int64_t m, int64_t n, int64_t cm, int64_t cn)
{
	CU_FOR(t, m * n)
	{
		int64_t i = t / n, j = t - i * n;
		y[t] = beta * c[(cm == 1 ? 0 : i) * cn + (cn == 1 ? 0 : j)];
	}
}

static int k_gemm(struct exec_kernel_ctx *k)
{
	const struct xtensor *a = k->n_in > 0 ? k->in[0] : NULL, *b = k->n_in > 1 ? k->in[1] : NULL;
	const struct xtensor *c = k->n_in > 2 ? k->in[2] : NULL;
	int ta = xk_attr_int(k, "transA", 0) != 0, tb = xk_attr_int(k, "transB", 0) != 0;
	float alpha = xk_attr_float(k, "alpha", 1.0f), beta = xk_attr_float(k, "beta", 1.0f);
	struct cu_bufs bufs = {};
	int rc = -1;

	// what cpu/gemm.c checks, declined so that the CPU says what is wrong
	if (!a || !b || !cu_float_type(a->dtype) || b->dtype != a->dtype || (c && c->dtype != a->dtype))
		return EXEC_DECLINE;
	if (a->rank != 2 || b->rank != 2 || (c && c->rank > 2))
		return EXEC_DECLINE;
	int64_t m = ta ? a->dims[1] : a->dims[0], kk = ta ? a->dims[0] : a->dims[1];
	int64_t kb = tb ? b->dims[1] : b->dims[0], n = tb ? b->dims[0] : b->dims[1];
	int64_t cm = 1, cn = 1;
	if (kk != kb)
		return EXEC_DECLINE;
	if (c) {
		cn = c->rank >= 1 ? c->dims[c->rank - 1] : 1;
		cm = c->rank == 2 ? c->dims[0] : 1;
		if ((cm != 1 && cm != m) || (cn != 1 && cn != n))
			return EXEC_DECLINE;
	}
	if (!fits_int(m) || !fits_int(n) || !fits_int(kk) || !fits_int(a->dims[1]) || !fits_int(b->dims[1]))
		return EXEC_DECLINE;
	int64_t out[2] = {m, n};
	if (xk_output_raw(k, 0, a->dtype, 2, out))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	int have_c = c && beta != 0 && c->numel;
	float *dy = (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float));
	if (!dy)
		goto out;
	if (have_c) {
		const float *dc = cu_input_f32(k, &bufs, 2);
		if (!dc)
			goto out;
		if (CU_LAUNCH(k, gemm_fill_c, cu_grid(m * n), CU_BLOCK, dy, dc, beta, m, n, cm, cn))
			goto out;
	} else if (kk == 0) {
		if (CU_OK(k, cudaMemsetAsync(dy, 0, (size_t)y->numel * sizeof(float), cu_dev.stream)))
			goto out;
	}
	if (kk > 0) {
		const float *da = cu_input_f32(k, &bufs, 0);
		const float *db = da ? cu_input_f32(k, &bufs, 1) : NULL;
		const float bc = have_c ? 1.0f : 0.0f;
		if (!db || set_math(k))
			goto out;
		if (CU_BLAS_OK(k, cu_blas.sgemm(cu_dev.blas, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
					      (int)n, (int)m, (int)kk, &alpha, db, (int)b->dims[1], da, (int)a->dims[1],
					      &bc, dy, (int)n)))
			goto out;
	}
	{
		struct cu_epi epi;
		if (cu_take_offers(k, y, &epi) || cu_epilogue(k, dy, y->numel, &epi))
			goto out;
	}
	if (cu_output_f32(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

const struct exec_kernel cuda_gemm_kernels[] = {
	{.op = "Gemm", .since = 1, .fn = k_gemm},
	{.op = "MatMul", .since = 1, .fn = k_matmul},
};
const size_t cuda_gemm_count = sizeof cuda_gemm_kernels / sizeof cuda_gemm_kernels[0];
