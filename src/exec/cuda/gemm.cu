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

// What small_sgemm computes: for batch bi, y[bi] (m x n) = alpha op(A) op(B) (+ y[bi] with acc, which holds beta C
// already), then the epilogue; A's matrix of batch bi starts at the element offset that bi takes apart over the
// broadcast batch dims (bdims, astr; mm_geom's), B's and y's alike (y's: ystr); lda, ldb, ldy the row strides as
// stored, ta, tb whether op transposes (A stored as kk x m rows, B as n x kk).  A packed y has ldy n and batch
// strides of m n: the epilogue's element index is then where it writes.
struct sg_geom {
	int64_t m, n, kk, lda, ldb, ldy, batches;
	int ta, tb, acc;
	float alpha;
	int nbatch;
	int64_t bdims[XT_MAX_RANK], astr[XT_MAX_RANK], bstr[XT_MAX_RANK], ystr[XT_MAX_RANK];
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
		int64_t aoff = 0, boff = 0, yoff = 0, rest = bi;
		for (int d = g.nbatch - 1; d >= 0; d--) { // bi taken apart over the batch dims
			int64_t q = rest / g.bdims[d], r = rest - q * g.bdims[d];
			aoff += r * g.astr[d];
			boff += r * g.bstr[d];
			yoff += r * g.ystr[d];
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
				int64_t t = yoff + i * g.ldy + j;
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
//
// An operand is read where it lies: a tensor as it is, or through the permutation of a Transpose the runner
// offered with the MatMul (exec_mm_offer), and the output is written packed or through the Transpose after it.
// Every output is the same sum of the same terms either way (small_sgemm's in order; cuBLAS's with its own
// strides), so taking a Transpose in moves elements, not bits of small products.

// 0: no Transpose taken into a product (OV_CUDA_MATMUL_PERM=0, to compare), else the runner's offers taken
static int matmul_perm_mode(void)
{
	static int v = -2;
	if (v == -2)
		v = exec_knob("OV_CUDA_MATMUL_PERM");
	return v;
}

// An operand or output as it lies in memory: each logical axis's dim and element stride.
struct mm_view {
	int rank;
	int64_t dims[XT_MAX_RANK], st[XT_MAX_RANK];
};

// t's dims, read through perm (output axis a is t's axis perm[a]; NULL: t as it is).
static void view_of(struct mm_view *v, const struct xtensor *t, const int *perm)
{
	int64_t s[XT_MAX_RANK], acc = 1;

	for (int i = t->rank - 1; i >= 0; i--) {
		s[i] = acc;
		acc *= t->dims[i];
	}
	v->rank = t->rank;
	for (int a = 0; a < t->rank; a++) {
		int q = perm ? perm[a] : a;
		v->dims[a] = t->dims[q];
		v->st[a] = s[q];
	}
}

// How a product reads view v's matrices (its last two axes; a vector is one row as A, one column as B): as stored
// (*tr 0: *ld elements from one row to the next, a row's elements next to each other) or transposed (*tr 1: a
// column's elements next to each other, *ld from one column to the next).  0, or -1 when it is neither.
static int mat_layout(const struct mm_view *v, int as_a, int *tr, int64_t *ld)
{
	int64_t rows, cols, rs, cs;

	if (v->rank >= 2) {
		rows = v->dims[v->rank - 2], cols = v->dims[v->rank - 1];
		rs = v->st[v->rank - 2], cs = v->st[v->rank - 1];
	} else if (as_a) {
		rows = 1, cols = v->dims[0], rs = v->dims[0], cs = v->st[0];
	} else {
		rows = v->dims[0], cols = 1, rs = v->st[0], cs = 1;
	}
	if (cs == 1 || cols == 1) {
		*tr = 0;
		*ld = rows == 1 ? (cols > 1 ? cols : 1) : rs;
		return *ld >= cols && fits_int(*ld) ? 0 : -1;
	}
	if (rs == 1 || rows == 1) {
		*tr = 1;
		*ld = cs;
		return *ld >= rows && fits_int(*ld) ? 0 : -1;
	}
	return -1;
}

// A product planned: the MatMul's geometry (its output's dims in p.out), how A and B are read, and where batch bi's
// output lies (ystr per batch dim, ldy from row to row; packed unless the output goes through a Transpose).
struct mm_plan {
	struct mm_geom p;
	int ta, tb;
	int64_t lda, ldb, ldy, ystr[XT_MAX_RANK];
	int out_rank;
	int64_t out[XT_MAX_RANK]; // the output as written (the Transpose's dims when it goes through one)
};

// Plan A times B (views of k's tensors; their matrices as mat_layout reads them), the output through operm (its
// rank entries; NULL: packed): 0, -1 with the node's error (the CPU's message: the MatMul cannot be), or 1 when
// the views or operm cannot be read so (nothing set).
static int mm_plan(struct exec_kernel_ctx *k, const struct xtensor *a, const struct mm_view *va,
		   const struct xtensor *b, const struct mm_view *vb, const int *operm, struct mm_plan *q)
{
	struct xtensor sa = *a, sb = *b; // the shapes the product sees
	struct mm_geom *p = &q->p;

	sa.rank = va->rank, sb.rank = vb->rank;
	memcpy(sa.dims, va->dims, sizeof sa.dims);
	memcpy(sb.dims, vb->dims, sizeof sb.dims);
	if (ops_matmul_setup(k, &sa, &sb, p))
		return -1;
	if (!fits_int(p->m) || !fits_int(p->n) || !fits_int(p->kk) || !fits_int(p->batches))
		return 1;
	if (mat_layout(va, 1, &q->ta, &q->lda) || mat_layout(vb, 0, &q->tb, &q->ldb))
		return 1;
	int na = va->rank > 2 ? va->rank - 2 : 0, nb = vb->rank > 2 ? vb->rank - 2 : 0;
	for (int i = 0; i < p->nbatch; i++) {
		int ia = i - (p->nbatch - na), ib = i - (p->nbatch - nb);
		p->astr[i] = ia >= 0 && va->dims[ia] != 1 ? va->st[ia] : 0;
		p->bstr[i] = ib >= 0 && vb->dims[ib] != 1 ? vb->st[ib] : 0;
	}
	// the output: packed, or through operm (both operands matrices: the output is batches x m x n)
	int64_t ys[XT_MAX_RANK], acc = 1;
	q->out_rank = p->out_rank;
	memcpy(q->out, p->out, sizeof q->out);
	if (operm) {
		if (p->out_rank != p->nbatch + 2)
			return 1;
		for (int a = 0; a < p->out_rank; a++)
			q->out[a] = p->out[operm[a]];
	}
	for (int a = q->out_rank - 1; a >= 0; a--) {
		ys[a] = acc;
		acc *= q->out[a];
	}
	int64_t rs[XT_MAX_RANK]; // the product's output axes' strides where they are written
	for (int a = 0; a < p->out_rank; a++)
		rs[operm ? operm[a] : a] = ys[a];
	if (operm) {
		int r = p->out_rank;
		if (p->n > 1 && rs[r - 1] != 1)
			return 1;
		q->ldy = p->m > 1 ? rs[r - 2] : p->n;
		if (q->ldy < p->n || !fits_int(q->ldy))
			return 1;
		for (int i = 0; i < p->nbatch; i++)
			q->ystr[i] = p->bdims[i] == 1 ? 0 : rs[i];
	} else {
		q->ldy = p->n;
		int64_t s = p->m * p->n;
		for (int i = p->nbatch - 1; i >= 0; i--) {
			q->ystr[i] = s;
			s *= p->bdims[i];
		}
	}
	return 0;
}

// Batch bi's element offsets into A, B and the output (the batch index taken apart over the broadcast batch dims).
static void mm_offsets(const struct mm_plan *q, int64_t bi, int64_t *aoff, int64_t *boff, int64_t *yoff)
{
	*aoff = *boff = *yoff = 0;
	for (int i = q->p.nbatch - 1; i >= 0; i--) {
		int64_t d = q->p.bdims[i], r = bi % d;
		*aoff += r * q->p.astr[i];
		*boff += r * q->p.bstr[i];
		*yoff += r * q->ystr[i];
		bi /= d;
	}
}

// The product q planned, of da and db into dy (y->numel floats where q says), e applied on the way (packed
// outputs only: the caller takes no offers otherwise): 0, or -1 with the node's error set.
static int mm_run(struct exec_kernel_ctx *k, const struct mm_plan *q, const float *da, const float *db, float *dy,
		  int64_t numel, const struct cu_epi *epi)
{
	const struct mm_geom *p = &q->p;

	if (p->kk == 0) // empty sums: zeros
		return CU_OK(k, cudaMemsetAsync(dy, 0, (size_t)numel * sizeof(float), cu_dev.stream)) ||
		       cu_epilogue(k, dy, numel, epi);
	// Batches whose offsets step evenly (every batch its own matrices, or one side shared by all) make one
	// strided batched call; broadcasting that mixes the two runs batch by batch.  One B for every batch and A's
	// batches one under the other (a Linear over [batch, seq, features]) are one product of their rows.
	int64_t a1 = 0, b1 = 0, y1 = 0, ao, bo, yo;
	if (p->batches > 1)
		mm_offsets(q, 1, &a1, &b1, &y1);
	int even = 1;
	for (int64_t bi = 2; bi < p->batches && even; bi++) {
		mm_offsets(q, bi, &ao, &bo, &yo);
		even = ao == bi * a1 && bo == bi * b1 && yo == bi * y1;
	}
	int rows = even && fits_int(p->batches * p->m) &&
		   (p->batches == 1 || (b1 == 0 && !q->ta && a1 == p->m * q->lda && y1 == p->m * q->ldy));
	const float one = 1.0f, zero = 0.0f;
	int m = (int)p->m, n = (int)p->n, kk = (int)p->kk, lda = (int)q->lda, ldb = (int)q->ldb, ldy = (int)q->ldy;
	cublasOperation_t opa = q->ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = q->tb ? CUBLAS_OP_T : CUBLAS_OP_N;
	if (small_product(p->batches, p->m, p->n, p->kk)) { // the epilogue on the way
		struct sg_geom sg = {.m = rows ? p->batches * p->m : p->m, .n = p->n, .kk = p->kk, .lda = q->lda,
				     .ldb = q->ldb, .ldy = q->ldy, .batches = rows ? 1 : p->batches, .ta = q->ta,
				     .tb = q->tb, .alpha = 1.0f, .nbatch = rows ? 0 : p->nbatch};
		memcpy(sg.bdims, p->bdims, sizeof sg.bdims);
		memcpy(sg.astr, p->astr, sizeof sg.astr);
		memcpy(sg.bstr, p->bstr, sizeof sg.bstr);
		memcpy(sg.ystr, q->ystr, sizeof sg.ystr);
		return small_sgemm_run(k, da, db, dy, &sg, epi);
	}
	if (set_math(k))
		return -1;
	if (rows) {
		// batched calls of one matrix each run slower than one call
		if (CU_BLAS_OK(k, cu_blas.sgemm(cu_dev.blas, opb, opa, n, (int)(p->batches * p->m), kk, &one, db, ldb, da,
					      lda, &zero, dy, ldy)))
			return -1;
	} else if (even) {
		if (CU_BLAS_OK(k, cu_blas.sgemm_strided_batched(cu_dev.blas, opb, opa, n, m, kk, &one, db, ldb, b1, da, lda,
							    a1, &zero, dy, ldy, y1, (int)p->batches)))
			return -1;
	} else {
		for (int64_t bi = 0; bi < p->batches; bi++) {
			mm_offsets(q, bi, &ao, &bo, &yo);
			if (CU_BLAS_OK(k, cu_blas.sgemm(cu_dev.blas, opb, opa, n, m, kk, &one, db + bo, ldb, da + ao, lda, &zero,
						      dy + yo, ldy)))
				return -1;
		}
	}
	return cu_epilogue(k, dy, numel, epi);
}

// The Transpose after this MatMul the runner offers (k->mm), its perm normalised against the output's rank into
// perm: 1, or 0 when there is none or it is not a permutation (the Transpose then says so itself).
static int out_perm(const struct exec_kernel_ctx *k, int rank, int *perm)
{
	int seen[XT_MAX_RANK] = {0};

	if (!k->mm || k->mm->after < 0 || matmul_perm_mode() == 0 || (k->mm->n_perm >= 0 && k->mm->n_perm != rank))
		return 0;
	for (int a = 0; a < rank; a++) {
		int64_t v = k->mm->n_perm < 0 ? rank - 1 - a : k->mm->perm[a];
		if (v < -(int64_t)rank || v >= rank)
			return 0;
		perm[a] = (int)(v < 0 ? v + rank : v);
		if (seen[perm[a]]++)
			return 0;
	}
	return 1;
}

// Plan A times B (mm_plan), the output written through the Transpose after the product when the runner offers one
// and the product can write so (*through): mm_plan's result without the Transpose.
static int mm_plan_through(struct exec_kernel_ctx *k, const struct xtensor *a, const struct mm_view *va,
			   const struct xtensor *b, const struct mm_view *vb, struct mm_plan *q, int *through)
{
	struct mm_plan qt;
	int operm[XT_MAX_RANK];
	int r = mm_plan(k, a, va, b, vb, NULL, q);

	*through = !r && out_perm(k, q->p.out_rank, operm) && !mm_plan(k, a, va, b, vb, operm, &qt);
	if (*through)
		*q = qt;
	return r;
}

// Operand i of the product: input i of k's node, or (-1) the MatMul's other operand the runner offers.
static const float *mm_operand(struct exec_kernel_ctx *k, struct cu_bufs *bufs, int i)
{
	return i >= 0 ? cu_input_f32(k, bufs, (size_t)i) : (const float *)cu_mm_other_input(k);
}

// The product q planned, into output 0 (of dtype: the MatMul's), A and B operands ia and ib (mm_operand's), the
// runner's Add and activation taken on the way when the output is packed (not through a Transpose): 0 with
// mm_done set to done, or -1 with the node's error set.
static int mm_output(struct exec_kernel_ctx *k, const struct mm_plan *q, int32_t dtype, int ia, int ib, int through,
		     int done)
{
	struct cu_bufs bufs = {};
	int rc = -1;

	if (xk_output_raw(k, 0, dtype, q->out_rank, q->out))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel) {
		k->mm_done = done;
		return 0;
	}
	const float *da = NULL, *db = NULL;
	struct cu_epi epi = {}; // an Add (a bias over the last axis, or a residual) and a Relu or Clip the runner offered
	float *dy = (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float));
	if (!dy || (!through && cu_take_offers(k, y, &epi)))
		goto out;
	// (empty sums read no operand: an empty one may have no memory)
	if (q->p.kk && (!(da = mm_operand(k, &bufs, ia)) || !(db = mm_operand(k, &bufs, ib))))
		goto out;
	if (mm_run(k, q, da, db, dy, y->numel, &epi) || cu_output_f32(k, &bufs, 0, dy))
		goto out;
	k->mm_done = done;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

static int k_matmul(struct exec_kernel_ctx *k)
{
	const struct xtensor *a = k->n_in > 0 ? k->in[0] : NULL, *b = k->n_in > 1 ? k->in[1] : NULL;
	struct mm_view va, vb;
	struct mm_plan q;
	int through;

	if (!a || !b || !cu_float_type(a->dtype) || b->dtype != a->dtype)
		return EXEC_DECLINE;
	view_of(&va, a, NULL);
	view_of(&vb, b, NULL);
	// the Transpose after it written through, float32 and float16 alike (the rounding is per element)
	if (mm_plan_through(k, a, &va, b, &vb, &q, &through))
		return EXEC_DECLINE; // the CPU says what is wrong, or takes what does not fit an int
	return mm_output(k, &q, a->dtype, 0, 1, through, through ? 2 : 0);
}

int cu_transpose_into_matmul(struct exec_kernel_ctx *k, const int *perm)
{
	const struct xtensor *x = k->in[0], *o = k->mm ? k->mm->other : NULL;
	struct mm_view vx, vo;
	struct mm_plan q;
	int through;

	if (!o || k->mm->mm < 0 || matmul_perm_mode() == 0 || x->dtype != OV_DT_FLOAT || o->dtype != OV_DT_FLOAT ||
	    x->rank < 2)
		return 0;
	view_of(&vx, x, perm);
	view_of(&vo, o, NULL);
	int side = k->mm->side;
	const struct xtensor *a = side ? o : x, *b = side ? x : o;
	// and the Transpose after the product written through
	if (mm_plan_through(k, a, side ? &vo : &vx, b, side ? &vx : &vo, &q, &through)) {
		k->err->msg[0] = '\0'; // the MatMul's own kernel will say what is wrong
		k->err->code = OV_OK;
		return 0;
	}
	return mm_output(k, &q, OV_DT_FLOAT, side ? -1 : 0, side ? 0 : -1, through, through ? 3 : 1) ? -1 : 1;
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
			struct sg_geom sg = {.m = m, .n = n, .kk = kk, .lda = a->dims[1], .ldb = b->dims[1], .ldy = n, .batches = 1,
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
