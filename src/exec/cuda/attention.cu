// The transformer ops on the CUDA device, as src/exec/cpu/attention.c and cpu/transformer.c compute them, in
// float32 (float16 and bfloat16 through float32; float64 is left to the CPU):
// - Attention (opset 23, 24's nonpad_kv_seqlen, 25's sliding window): present_key and present_value built on the
//   device (past rows, then the new ones out of K's and V's layout), Q·Kᵀ (scaled) and the probabilities ·V
//   through cuBLAS strided batched GEMMs, one call per batch and position in the head group (grouped-query
//   attention: the query heads of one key/value head are G apart, the key/value heads are the batch); one thread
//   per query row for the soft cap, bias and softmax (ov_attn_row_f of ops/ov-attn.h, the CPU's rules).
// - RotaryEmbedding: one thread per head vector (ov_rope_row_f), position_ids checked on the host first.
// - RMSNormalization: one thread per row summing its squares in double (ov_rms_inv_d), then one thread per
//   element.
// Checks and geometry are ops/attention.c's, shared with the CPU; what they refuse is declined, so the CPU names it.
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/cuda/backend.h"
extern "C" {
#include "src/exec/ops/attention.h"
}

static int fits_int(int64_t v)
{
	return v >= 0 && v <= INT_MAX;
}

// ---- Attention ----

// present (B, Hkv, T, D) from past (B, Hkv, P, D, or NULL) and the new rows of cur (K's or V's layout: rows rs
// apart, head hk at off(hk)).
static __global__ void present_kernel(struct attn_geom p, const float *past, const float *cur, int64_t d, int64_t rs,
				      int value, float *dst)
{
	CU_FOR(e, p.B * p.Hkv * p.T * d)
	{
		int64_t c = e % d, t = e / d % p.T, bh = e / (d * p.T), b = bh / p.Hkv, hk = bh % p.Hkv;
		if (t < p.P)
			dst[e] = past[(bh * p.P + t) * d + c];
		else
			dst[e] = cur[(value ? attn_v_off(&p, b, hk) : attn_k_off(&p, b, hk)) + (t - p.P) * rs + c];
	}
}

// y = x * s rounded to rnd (the half types: Q and K scaled apart before their product, as the reference does).
static __global__ void scale_round_kernel(const float *x, float *y, float s, int rnd, int64_t n)
{
	CU_FOR(i, n)
	{
		y[i] = ov_attn_round_f(rnd, x[i] * s);
	}
}

// One query row per thread: qk_matmul_output's copy (mode 0: the scaled scores as they are; 1 and 2 inside
// ov_attn_row_f), then the row's probabilities in place.
static __global__ void attn_rows_kernel(struct attn_geom p, float *sc, const void *mask, const int64_t *nonpad,
					float *qk)
{
	CU_FOR(row, p.B * p.Hq * p.S)
	{
		int64_t i = row % p.S, h = row / p.S % p.Hq, b = row / (p.S * p.Hq);
		float *x = sc + row * p.T, *q = qk ? qk + row * p.T : NULL;
		struct ov_attn_row r;
		attn_row_setup(&p, mask, b, h, i, nonpad ? nonpad[b] : -1, &r);
		if (q && p.mode == 0)
			for (int64_t j = 0; j < p.T; j++)
				q[j] = x[j];
		ov_attn_row_f(x, p.T, i, &r, q && p.mode == 1 ? q : NULL, q && p.mode == 2 ? q : NULL);
		if (q && p.mode == 3)
			for (int64_t j = 0; j < p.T; j++)
				q[j] = x[j];
	}
}

static int k_attention(struct exec_kernel_ctx *k)
{
	const struct xtensor *q = xk_in(k, 0), *mask = xk_in(k, 3), *np = k->opset >= 24 ? xk_in(k, 6) : NULL;
	struct attn_geom p;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!q || !cu_float_type(q->dtype))
		return EXEC_DECLINE;
	if (ops_attention_setup(k, &p))
		return EXEC_DECLINE; // the CPU says what is wrong
	int64_t G = p.Hq / p.Hkv;
	if (!fits_int(p.S) || !fits_int(p.T) || !fits_int(p.Dk) || !fits_int(p.Dv) || !fits_int(p.q_rs) ||
	    !fits_int(p.y_rs) || !fits_int(p.Hkv))
		return EXEC_DECLINE;
	if (xk_output_raw(k, 0, q->dtype, p.y_rank, p.y))
		return -1;
	for (size_t o = 1; o < 3 && o < k->n_out; o++)
		if (xk_output_raw(k, o, q->dtype, 4, o == 1 ? p.pk : p.pv))
			return -1;
	if (k->n_out > 3 && xk_output_raw(k, 3, q->dtype, 4, p.qk))
		return -1;
	const float *dq = cu_input_f32(k, &bufs, 0), *dk = dq ? cu_input_f32(k, &bufs, 1) : NULL;
	const float *dv = dk ? cu_input_f32(k, &bufs, 2) : NULL;
	const float *dpk = dv && p.has_past ? cu_input_f32(k, &bufs, 4) : NULL;
	const float *dpv = dpk ? cu_input_f32(k, &bufs, 5) : NULL;
	if (!dv || (p.has_past && !dpv))
		goto out;
	{
		const void *dm = NULL;
		if (mask) {
			p.mask_kind = mask->dtype == OV_DT_BOOL ? OV_ATTN_MASK_BOOL : OV_ATTN_MASK_F32;
			dm = mask->dtype == OV_DT_BOOL ? cu_input(k, &bufs, 3) : (const void *)cu_input_f32(k, &bufs, 3);
			if (!dm)
				goto out;
		}
		const int64_t *dnp = np ? (const int64_t *)cu_input(k, &bufs, 6) : NULL;
		if (np && !dnp)
			goto out;
		int64_t nk = p.B * p.Hkv * p.T, ny = k->out[0]->numel, nsc = p.B * p.Hq * p.S * p.T;
		float *pk = (float *)cu_alloc(k, &bufs, (size_t)(nk * p.Dk) * sizeof(float));
		float *pv = pk ? (float *)cu_alloc(k, &bufs, (size_t)(nk * p.Dv) * sizeof(float)) : NULL;
		float *sc = pv ? (float *)cu_alloc(k, &bufs, (size_t)nsc * sizeof(float)) : NULL;
		float *y = sc ? (float *)cu_alloc(k, &bufs, (size_t)ny * sizeof(float)) : NULL;
		float *qk = y && k->n_out > 3 ? (float *)cu_alloc(k, &bufs, (size_t)nsc * sizeof(float)) : NULL;
		if (!y || (k->n_out > 3 && !qk))
			goto out;
		if ((nk * p.Dk > 0 && CU_LAUNCH(k, present_kernel, cu_grid(nk * p.Dk), CU_BLOCK, p, dpk, dk, p.Dk, p.k_rs, 0, pk)) ||
		    (nk * p.Dv > 0 && CU_LAUNCH(k, present_kernel, cu_grid(nk * p.Dv), CU_BLOCK, p, dpv, dv, p.Dv, p.v_rs, 1, pv)))
			goto out;
		const float *qg = dq, *kg = pk; // what Q Kᵀ reads: Q and present_key, or their scaled, rounded copies
		float scale = (float)p.scale;
		if (nsc && p.rnd) {
			float s = (float)ov_attn_round_d(p.rnd, sqrt(p.scale));
			float *qs = (float *)cu_alloc(k, &bufs, (size_t)(k->in[0]->numel + nk * p.Dk + 1) * sizeof(float));
			if (!qs || CU_LAUNCH(k, scale_round_kernel, cu_grid(k->in[0]->numel), CU_BLOCK, dq, qs, s, p.rnd,
					     k->in[0]->numel) ||
			    CU_LAUNCH(k, scale_round_kernel, cu_grid(nk * p.Dk), CU_BLOCK, pk, qs + k->in[0]->numel, s, p.rnd,
				      nk * p.Dk))
				goto out;
			qg = qs, kg = qs + k->in[0]->numel, scale = 1;
		}
		if (nsc) {
			const float one = 1.0f, zero = 0.0f;
			// cuBLAS is loaded by the first node that needs it (cu_need_blas)
			if (cu_need_blas(k) ||
			    CU_BLAS_OK(k, cu_blas.set_math_mode(cu_dev.blas, cu_dev.tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
											 : CUBLAS_DEFAULT_MATH)))
				goto out;
			// the head strides: query head h + G is G heads further on, key/value head hk + 1 one head
			int64_t qh = p.rank3 ? p.Dk : p.S * p.Dk, yh = p.rank3 ? p.Dv : p.S * p.Dv;
			// row-major S x T scores = Q Kᵀ, as column-major (T x S) = K'ᵀ Q' (see cuda/gemm.cu); no head size:
			// zeros
			if (p.Dk == 0 && CU_OK(k, cudaMemsetAsync(sc, 0, (size_t)nsc * sizeof(float), cu_dev.stream)))
				goto out;
			for (int64_t b = 0; b < p.B && p.Dk; b++)
				for (int64_t g = 0; g < G; g++)
					if (CU_BLAS_OK(k, cu_blas.sgemm_strided_batched(
								  cu_dev.blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)p.T, (int)p.S,
								  (int)p.Dk, &scale, kg + b * p.Hkv * p.T * p.Dk, (int)p.Dk,
								  p.T * p.Dk, qg + attn_q_off(&p, b, g), (int)p.q_rs, G * qh,
								  &zero, sc + (b * p.Hq + g) * p.S * p.T, (int)p.T,
								  G * p.S * p.T, (int)p.Hkv)))
						goto out;
			if (CU_LAUNCH(k, attn_rows_kernel, cu_grid(p.B * p.Hq * p.S), CU_BLOCK, p, sc, dm, dnp, qk))
				goto out;
			for (int64_t b = 0; b < p.B && p.Dv; b++)
				for (int64_t g = 0; g < G; g++)
					if (CU_BLAS_OK(k, cu_blas.sgemm_strided_batched(
								  cu_dev.blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)p.Dv, (int)p.S,
								  (int)p.T, &one, pv + b * p.Hkv * p.T * p.Dv, (int)p.Dv,
								  p.T * p.Dv, sc + (b * p.Hq + g) * p.S * p.T, (int)p.T,
								  G * p.S * p.T, &zero, y + attn_y_off(&p, b, g), (int)p.y_rs,
								  G * yh, (int)p.Hkv)))
						goto out;
		} else if (ny && CU_OK(k, cudaMemsetAsync(y, 0, (size_t)ny * sizeof(float), cu_dev.stream))) {
			goto out; // no keys: every row is fully masked, zeros
		}
		if (cu_output_f32(k, &bufs, 0, y) || (k->n_out > 1 && cu_output_f32(k, &bufs, 1, pk)) ||
		    (k->n_out > 2 && cu_output_f32(k, &bufs, 2, pv)) || (qk && cu_output_f32(k, &bufs, 3, qk)))
			goto out;
	}
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// ---- RotaryEmbedding ----

static __global__ void rope_kernel(struct rope_geom p, const float *x, const float *c, const float *s,
				   const int64_t *pos, float *y)
{
	CU_FOR(row, p.B * p.S * p.H)
	{
		int64_t h = row % p.H, q = row / p.H % p.S, b = row / (p.H * p.S), half = p.rd / 2;
		int64_t ci = pos ? pos[b * p.S + q] : b * p.S + q, o = rope_row_off(&p, b, q, h);
		ov_rope_row_f(x + o, y + o, p.D, p.rd, p.interleaved, c + ci * half, s + ci * half);
	}
}

static int k_rope(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0), *pos = xk_in(k, 3);
	struct rope_geom p;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || !cu_float_type(x->dtype) || (pos && pos->dtype != OV_DT_INT64))
		return EXEC_DECLINE;
	if (ops_rope_setup(k, &p))
		return EXEC_DECLINE;
	if (pos) { // positions outside the caches: the CPU names the first
		const struct xtensor *hp = cu_host(k, 3);
		if (!hp)
			return -1;
		for (int64_t i = 0; i < hp->numel; i++)
			if (((const int64_t *)hp->data)[i] < 0 || ((const int64_t *)hp->data)[i] >= p.max_pos)
				return EXEC_DECLINE;
	}
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	if (!x->numel)
		return 0;
	const float *dx = cu_input_f32(k, &bufs, 0), *dc = dx ? cu_input_f32(k, &bufs, 1) : NULL;
	const float *ds = dc ? cu_input_f32(k, &bufs, 2) : NULL;
	const int64_t *dp = ds && pos ? (const int64_t *)cu_input(k, &bufs, 3) : NULL;
	float *dy = ds && (!pos || dp) ? (float *)cu_alloc(k, &bufs, (size_t)x->numel * sizeof(float)) : NULL;
	if (!dy || CU_LAUNCH(k, rope_kernel, cu_grid(p.B * p.S * p.H), CU_BLOCK, p, dx, dc, ds, dp, dy) ||
	    cu_output_f32(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// ---- RMSNormalization ----

// X's dims and the scale's broadcast strides, by value to the kernel.
struct rms_bcast {
	int rank;
	int64_t dims[XT_MAX_RANK], sstr[XT_MAX_RANK];
};

static __global__ void rms_rows_kernel(const float *x, int64_t outer, int64_t len, double eps, double *inv)
{
	CU_FOR(r, outer)
	{
		double sq = 0;
		for (int64_t j = 0; j < len; j++) {
			double v = x[r * len + j];
			sq += v * v;
		}
		inv[r] = ov_rms_inv_d(sq, len, eps);
	}
}

static __global__ void rms_kernel(struct rms_bcast bc, const float *x, const float *s, const double *inv, int64_t len,
				  float *y, int64_t n)
{
	CU_FOR(i, n)
	{
		int64_t q = i, si = 0;
		for (int d = bc.rank - 1; d >= 0; d--) {
			si += q % bc.dims[d] * bc.sstr[d];
			q /= bc.dims[d];
		}
		y[i] = (float)((double)x[i] * inv[i / len] * (double)s[si]);
	}
}

static int k_rmsnorm(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0), *s = xk_in(k, 1);
	struct rms_geom p;
	struct rms_bcast bc;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || !s || !cu_float_type(x->dtype) || s->dtype != x->dtype)
		return EXEC_DECLINE;
	if (ops_rmsnorm_setup(k, x, s, &p))
		return EXEC_DECLINE;
	memset(&bc, 0, sizeof bc);
	bc.rank = x->rank;
	memcpy(bc.dims, x->dims, sizeof bc.dims);
	memcpy(bc.sstr, p.sstr, sizeof bc.sstr);
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	if (!x->numel)
		return 0;
	const float *dx = cu_input_f32(k, &bufs, 0), *ds = dx ? cu_input_f32(k, &bufs, 1) : NULL;
	double *inv = ds ? (double *)cu_alloc(k, &bufs, (size_t)p.outer * sizeof(double)) : NULL;
	float *dy = inv ? (float *)cu_alloc(k, &bufs, (size_t)x->numel * sizeof(float)) : NULL;
	if (!dy || CU_LAUNCH(k, rms_rows_kernel, cu_grid(p.outer), CU_BLOCK, dx, p.outer, p.len, p.eps, inv) ||
	    CU_LAUNCH(k, rms_kernel, cu_grid(x->numel), CU_BLOCK, bc, dx, ds, inv, p.len, dy, x->numel) ||
	    cu_output_f32(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

const struct exec_kernel cuda_attention_kernels[] = {
	{.op = "Attention", .since = 23, .fn = k_attention},
	{.op = "RotaryEmbedding", .since = 23, .fn = k_rope},
	{.op = "RMSNormalization", .since = 23, .fn = k_rmsnorm},
};
const size_t cuda_attention_count = sizeof cuda_attention_kernels / sizeof cuda_attention_kernels[0];
