// Matrix products on the CUDA device: MatMul (numpy batching with broadcast batch dims, 1-D promotion) and Gemm
// (transA, transB, alpha, beta, C broadcast to [M, N]), float32 (float16 and bfloat16 through float32, as on the
// CPU).  Small products run in the backend's own kernel (small_sgemm below), the others through cuBLAS; both in
// full float32 arithmetic, cuBLAS's with TF32 when it was asked for (exec_cuda_set_tf32, run --tf32).
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

// ---- small products without cuBLAS ----
//
// cuBLAS's first use in a process costs some 120 ms on an H200 (loading libcublasLt, creating the handle, its
// kernels' first load), where CUDA's own start costs about 230 ms and a small model's nodes a few ms: a model whose
// products are small would spend a third of its run starting cuBLAS.  So products of at most SMALL_MACS
// multiply-adds (every batch together) run in this kernel instead, whatever the model, so that a product's bits
// depend on its shape alone (not on whether some other node started cuBLAS first), run after run.
//
// The bound, 2^22 multiply-adds: this kernel (32 x 32 outputs per block of 256 threads, 2 x 2 per thread, through
// shared memory) reaches perhaps a tenth of cuBLAS's float32 speed, 2 to 4 TFLOP/s on an H100 or H200 for the
// shapes that fill the device, less for those that do not.  At 2^22 multiply-adds (8.4 MFLOP) that is a few
// microseconds, about one kernel launch more than cuBLAS takes, so a warm run loses at most some microseconds per
// product, while the first run saves 120 ms (tens of thousands of such products).  Past it are the products of real
// layers (a transformer block's 128 x 512 x 512 is 2^25), where cuBLAS is several times faster on every warm run
// and its start is paid once.  A block sums its outputs' terms one step of SG_DEPTH after the other, so the sums
// must be short as well: at most SMALL_TERMS (128 steps, a few microseconds); a long sum over few outputs (16 x
// 16384 by 16384 x 16) would keep one block busy for tens of microseconds where cuBLAS splits the sum.
// OV_CUDA_MATMUL_BLAS=1 sends every product to cuBLAS, =0 none (this kernel takes every size; cuBLAS is never
// loaded for MatMul and Gemm).
#define SMALL_MACS ((double)(1 << 22))
#define SMALL_TERMS 2048
#define SG_TILE 32 // a block's outputs: SG_TILE x SG_TILE
#define SG_HALF 16 // its threads: SG_HALF x SG_HALF, each the outputs (ty or ty + 16, tx or tx + 16)
#define SG_DEPTH 16 // the products' terms taken into shared memory per step

// 1: cuBLAS for every product, 0: for none, -1: by size (OV_CUDA_MATMUL_BLAS)
static int matmul_blas_mode(void)
{
	static int v = -2;
	if (v == -2) {
		v = exec_knob("OV_CUDA_MATMUL_BLAS");
	}
	return v;
}

// Whether batches products of m x kk by kk x n run in small_sgemm (each at most INT_MAX: a double holds their
// product's size closely enough for a bound).
static int small_product(int64_t batches, int64_t m, int64_t n, int64_t kk)
{
	int mode = matmul_blas_mode();
	return mode == 0 ||
	       (mode < 0 && kk <= SMALL_TERMS && (double)batches * (double)m * (double)n * (double)kk <= SMALL_MACS);
}

// What small_sgemm computes: for batch bi, y[bi] (m x n, row-major, packed) = alpha op(A) op(B) (+ y[bi] with acc,
// which holds beta C already), then the epilogue; A's matrix of batch bi starts at the element offset that bi
// takes apart over the broadcast batch dims (bdims, astr; mm_geom's), B's alike; lda, ldb the row strides as
// stored, ta, tb whether op transposes.
struct sg_geom {
	int64_t m, n, kk, lda, ldb, batches;
	int ta, tb, acc;
	float alpha;
	int nbatch;
	int64_t bdims[XT_MAX_RANK], astr[XT_MAX_RANK], bstr[XT_MAX_RANK];
};

// Every output is one float32 sum over k in order, each term added by one fused multiply-add (fmaf: the product
// is not rounded on its own), then times alpha.  Grid: x the column tiles, y the row tiles of every batch (looped
// over when there are more than the grid holds).
static __global__ void small_sgemm(const float *a, const float *b, float *y, struct sg_geom g, struct cu_epi e)
{
	__shared__ float as[SG_DEPTH][SG_TILE + 1]; // as[q][i]: A's term q of row i (padded: no bank conflicts)
	__shared__ float bs[SG_DEPTH][SG_TILE];     // bs[q][j]: B's term q of column j
	const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * SG_HALF + tx;
	const int64_t row_tiles = (g.m + SG_TILE - 1) / SG_TILE, j0 = (int64_t)blockIdx.x * SG_TILE;

	for (int64_t w = blockIdx.y; w < g.batches * row_tiles; w += gridDim.y) {
		const int64_t bi = w / row_tiles, i0 = (w - bi * row_tiles) * SG_TILE;
		int64_t aoff = 0, boff = 0, rest = bi;
		for (int d = g.nbatch - 1; d >= 0; d--) { // bi taken apart over the batch dims
			int64_t q = rest / g.bdims[d], r = rest - q * g.bdims[d];
			aoff += r * g.astr[d];
			boff += r * g.bstr[d];
			rest = q;
		}
		float c00 = 0.0f, c01 = 0.0f, c10 = 0.0f, c11 = 0.0f;
		for (int64_t k0 = 0; k0 < g.kk; k0 += SG_DEPTH) {
			// each thread loads 2 of A's 32 x 16 terms and 2 of B's 16 x 32, neighbours reading neighbours in
			// memory; zeros past the matrices' ends, which add nothing to the sums kept
			for (int h = 0; h < 2; h++) {
				int l = tid + h * SG_HALF * SG_HALF; // 0 to 511
				int i = g.ta ? l % SG_TILE : l / SG_DEPTH, q = g.ta ? l / SG_TILE : l % SG_DEPTH;
				int64_t gi = i0 + i, gq = k0 + q;
				as[q][i] = gi < g.m && gq < g.kk ? a[aoff + (g.ta ? gq * g.lda + gi : gi * g.lda + gq)] : 0.0f;
				int j = g.tb ? l / SG_DEPTH : l % SG_TILE;
				q = g.tb ? l % SG_DEPTH : l / SG_TILE;
				int64_t gj = j0 + j;
				gq = k0 + q;
				bs[q][j] = gj < g.n && gq < g.kk ? b[boff + (g.tb ? gj * g.ldb + gq : gq * g.ldb + gj)] : 0.0f;
			}
			__syncthreads();
			int steps = g.kk - k0 < SG_DEPTH ? (int)(g.kk - k0) : SG_DEPTH;
			for (int q = 0; q < steps; q++) {
				float a0 = as[q][ty], a1 = as[q][ty + SG_HALF], b0 = bs[q][tx], b1 = bs[q][tx + SG_HALF];
				c00 = fmaf(a0, b0, c00);
				c01 = fmaf(a0, b1, c01);
				c10 = fmaf(a1, b0, c10);
				c11 = fmaf(a1, b1, c11);
			}
			__syncthreads();
		}
		const float c[2][2] = {{c00, c01}, {c10, c11}};
		for (int r = 0; r < 2; r++)
			for (int s = 0; s < 2; s++) {
				int64_t i = i0 + ty + r * SG_HALF, j = j0 + tx + s * SG_HALF;
				if (i >= g.m || j >= g.n)
					continue;
				int64_t t = (bi * g.m + i) * g.n + j;
				float v = g.alpha * c[r][s];
				if (g.acc)
					v = v + y[t];
				y[t] = cu_epi_apply(e, t, v);
			}
	}
}

// Launch small_sgemm for g into y, e applied on the way (the caller took the offers).
static int small_sgemm_run(struct exec_kernel_ctx *k, const float *a, const float *b, float *y,
			   const struct sg_geom *g, const struct cu_epi *e)
{
	int64_t col_tiles = (g->n + SG_TILE - 1) / SG_TILE, rows = g->batches * ((g->m + SG_TILE - 1) / SG_TILE);
	dim3 grid((unsigned)col_tiles, (unsigned)(rows < 65535 ? rows : 65535)), block(SG_HALF, SG_HALF);
	return CU_LAUNCH_SYNC(k, small_sgemm, grid, block, a, b, y, *g, *e);
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
	struct cu_epi epi; // an Add (a bias over the last axis, or a residual) and a Relu or Clip the runner offered
	float *dy = (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float));
	if (!dy || cu_take_offers(k, y, &epi))
		goto out;
	if (p.kk == 0) { // empty sums: zeros
		if (CU_OK(k, cudaMemsetAsync(dy, 0, (size_t)y->numel * sizeof(float), cu_dev.stream)) ||
		    cu_epilogue(k, dy, y->numel, &epi))
			goto out;
	} else {
		// Batches whose offsets step evenly (every batch its own matrices, or one side shared by all) make one
		// strided batched call; broadcasting that mixes the two runs batch by batch.  One B for every batch and
		// A's batches one after the other (a Linear over [batch, seq, features]) are one product of their rows.
		int64_t a1 = 0, b1 = 0, ao, bo;
		if (p.batches > 1)
			mm_offsets(&p, 1, &a1, &b1);
		int even = 1;
		for (int64_t bi = 2; bi < p.batches && even; bi++) {
			mm_offsets(&p, bi, &ao, &bo);
			even = ao == bi * a1 && bo == bi * b1;
		}
		int rows = even && (p.batches == 1 || (b1 == 0 && a1 == p.m * p.kk)) && fits_int(p.batches * p.m);
		int small = small_product(p.batches, p.m, p.n, p.kk);
		const float one = 1.0f, zero = 0.0f;
		int m = (int)p.m, n = (int)p.n, kk = (int)p.kk;
		if (!(da = cu_input_f32(k, &bufs, 0)) || !(db = cu_input_f32(k, &bufs, 1)))
			goto out;
		if (small) { // the epilogue on the way
			struct sg_geom sg = {.m = rows ? p.batches * p.m : p.m, .n = p.n, .kk = p.kk, .lda = p.kk,
					     .ldb = p.n, .batches = rows ? 1 : p.batches, .alpha = 1.0f,
					     .nbatch = rows ? 0 : p.nbatch};
			memcpy(sg.bdims, p.bdims, sizeof sg.bdims);
			memcpy(sg.astr, p.astr, sizeof sg.astr);
			memcpy(sg.bstr, p.bstr, sizeof sg.bstr);
			if (small_sgemm_run(k, da, db, dy, &sg, &epi))
				goto out;
		} else if (set_math(k)) {
			goto out;
		} else if (rows) {
			// batched calls of one matrix each run slower than one call
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
		if (!small && cu_epilogue(k, dy, y->numel, &epi))
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
	int have_c = c && beta != 0 && c->numel, small = kk > 0 && small_product(1, m, n, kk);
	struct cu_epi epi;
	float *dy = (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float));
	if (!dy || cu_take_offers(k, y, &epi))
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
		if (!db)
			goto out;
		if (small) { // y = alpha op(A) op(B) (+ beta C, in y already), the epilogue on the way
			struct sg_geom sg = {.m = m, .n = n, .kk = kk, .lda = a->dims[1], .ldb = b->dims[1], .batches = 1,
					     .ta = ta, .tb = tb, .acc = have_c, .alpha = alpha};
			if (small_sgemm_run(k, da, db, dy, &sg, &epi))
				goto out;
		} else if (set_math(k) ||
			   CU_BLAS_OK(k, cu_blas.sgemm(cu_dev.blas, tb ? CUBLAS_OP_T : CUBLAS_OP_N,
						      ta ? CUBLAS_OP_T : CUBLAS_OP_N, (int)n, (int)m, (int)kk, &alpha, db,
						      (int)b->dims[1], da, (int)a->dims[1], &bc, dy, (int)n))) {
			goto out;
		}
	}
	if (!small && cu_epilogue(k, dy, y->numel, &epi))
		goto out;
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
