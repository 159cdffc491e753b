// RNN, GRU and LSTM on the CUDA device, as the CPU kernel computes them (src/exec/cpu/misc.c): the same checks
// (ops_rnn_setup), the same cell arithmetic (src/exec/ops/ov-rnn.h, in float32 here), every direction, the optional
// inputs (B, sequence_lens, initial_h, initial_c, P) and outputs (Y, Y_h, Y_c), both layouts, the activations
// with their alpha and beta, clip, input_forget and linear_before_reset.  float32; float16 and bfloat16 through
// float32; double is left to the CPU.
//
// How: X W^T for every step and both directions at once is one cuBLAS sgemm (rows of X, [T * batch, D * G * H]);
// then per step, both directions together, one (batched) sgemm gives H R^T ([D, batch, G * H]) and one kernel the
// gates, the new state and Y's rows.  GRU without linear_before_reset needs r before its candidate's product,
// Rh (r . h): there a step is an sgemm for z and r, a kernel for the gates, an sgemm for Rh (r . h) and a kernel
// for the new state.
// sequence_lens: at step s a batch entry of length L is at time s (L - 1 - s backwards) while s < L and is left
// alone afterwards (its state stays, Y stays zero there), as on the CPU.  Matrix products in full float32 unless
// TF32 was asked for (cu_dev.tf32), like MatMul.
//
// cuBLAS is column-major and the tensors row-major: the row-major product C[m, n] = A[m, k] B[n, k]^T is the
// column-major C^T = B^T A^T, i.e. sgemm(OP_T, OP_N, n, m, k, B, ldb, A, lda, C, ldc).
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/cuda/backend.h"

// the activations, nf per direction (f, g, h as the op names them)
struct rnn_acts {
	struct ov_rnn_act a[6];
};

// what a step kernel needs to know; its threads cover [D, batch, hidden], both directions at once
struct rnn_step {
	int64_t T, Bn, H, GH, xw_ld; // steps, batch, hidden, gates * hidden, the row length of X W^T (D * GH)
	int64_t s;                   // the step
	int D, nf, layout, reverse_only;
	int lbr, input_forget, has_p;
	float clip;
};

// where element e of [D, batch, hidden] is: its direction, batch entry, hidden index, and the time it is at in
// step s (-1 when its sequence is over)
struct rnn_at {
	int64_t d, b, j, t;
};

static __device__ __forceinline__ struct rnn_at rnn_locate(const struct rnn_step &st, const int *len, int64_t e)
{
	struct rnn_at at;
	int64_t bh = st.Bn * st.H, r;
	at.d = e / bh;
	r = e - at.d * bh;
	at.b = r / st.H;
	at.j = r - at.b * st.H;
	int64_t L = len ? len[at.b] : st.T;
	at.t = st.s >= L ? -1 : st.reverse_only || at.d == 1 ? L - 1 - st.s : st.s;
	return at;
}

// gate q's pre-activation at `at`, without R h: (Wb + Rb) + W x, the CPU's order (bias: [D, 2 GH] or NULL)
static __device__ __forceinline__ float pre_x(const struct rnn_step &st, const float *xw, const float *bias,
					       const struct rnn_at &at, int q)
{
	int64_t row = st.layout ? at.b * st.T + at.t : at.t * st.Bn + at.b, g = q * st.H + at.j;
	float v = bias ? bias[at.d * 2 * st.GH + g] + bias[at.d * 2 * st.GH + st.GH + g] : 0.0f;
	return v + xw[row * st.xw_ld + at.d * st.GH + g];
}

static __device__ __forceinline__ void put_y(const struct rnn_step &st, float *y, const struct rnn_at &at, float v)
{
	if (y)
		y[st.layout ? ((at.b * st.T + at.t) * st.D + at.d) * st.H + at.j
			    : ((at.t * st.D + at.d) * st.Bn + at.b) * st.H + at.j] = v;
}

// the index in initial_h, initial_c, Y_h and Y_c of element e of [D, batch, hidden]
static __device__ __forceinline__ int64_t state_index(int layout, int64_t D, int64_t Bn, int64_t H, int64_t e)
{
	int64_t d = e / (Bn * H), r = e - d * Bn * H, b = r / H, j = r - b * H;
	return layout ? (b * D + d) * H + j : e;
}

// h, c ([D, batch, hidden]) = the initial state (zeros without one); c may be NULL
static __global__ void rnn_state_in(const float *h0, const float *c0, float *h, float *c, int layout, int64_t D,
				    int64_t Bn, int64_t H)
{
	CU_FOR(e, D * Bn * H)
	{
		int64_t si = state_index(layout, D, Bn, H, e);
		h[e] = h0 ? h0[si] : 0.0f;
		if (c)
			c[e] = c0 ? c0[si] : 0.0f;
	}
}

// Y_h, Y_c (either may be NULL) = the final state
static __global__ void rnn_state_out(const float *h, const float *c, float *yh, float *yc, int layout, int64_t D,
				     int64_t Bn, int64_t H)
{
	CU_FOR(e, D * Bn * H)
	{
		int64_t si = state_index(layout, D, Bn, H, e);
		if (yh)
			yh[si] = h[e];
		if (yc)
			yc[si] = c[e];
	}
}

// RNN: h = f(clip(Wb + Rb + W x + R h)); hr: H R^T, [D, batch, GH]
static __global__ void rnn_cell_step(struct rnn_step st, const float *xw, const float *hr, const float *bias,
				     const int *len, float *h, float *y, struct rnn_acts af)
{
	CU_FOR(e, st.D * st.Bn * st.H)
	{
		struct rnn_at at = rnn_locate(st, len, e);
		if (at.t < 0)
			continue;
		const float *r = hr + (at.d * st.Bn + at.b) * st.GH;
		float v = ov_rnn_cell_f(af.a[at.d * st.nf], pre_x(st, xw, bias, at, 0) + r[at.j], st.clip);
		h[e] = v;
		put_y(st, y, at, v);
	}
}

// LSTM: gates i, o, f, c; the new cell state and hidden value (p: the peepholes, [D, 3H] or NULL)
static __global__ void lstm_cell_step(struct rnn_step st, const float *xw, const float *hr, const float *bias,
				      const float *p, const int *len, float *h, float *c, float *y, struct rnn_acts af)
{
	CU_FOR(e, st.D * st.Bn * st.H)
	{
		struct rnn_at at = rnn_locate(st, len, e);
		if (at.t < 0)
			continue;
		const float *r = hr + (at.d * st.Bn + at.b) * st.GH, *pd = p ? p + at.d * 3 * st.H : NULL;
		const struct ov_rnn_act *f = &af.a[at.d * st.nf];
		float g[4];
		for (int q = 0; q < 4; q++)
			g[q] = pre_x(st, xw, bias, at, q) + r[q * st.H + at.j];
		float v = ov_lstm_cell_f(f[0], f[1], f[2], g[0], g[1], g[2], g[3], pd != NULL, pd ? pd[at.j] : 0.0f,
					 pd ? pd[st.H + at.j] : 0.0f, pd ? pd[2 * st.H + at.j] : 0.0f, st.input_forget,
					 st.clip, &c[e]);
		h[e] = v;
		put_y(st, y, at, v);
	}
}

// GRU, linear_before_reset: hr holds R h for z, r and the candidate; everything in one kernel
static __global__ void gru_cell_step_lbr(struct rnn_step st, const float *xw, const float *hr, const float *bias,
					 const int *len, float *h, float *y, struct rnn_acts af)
{
	CU_FOR(e, st.D * st.Bn * st.H)
	{
		struct rnn_at at = rnn_locate(st, len, e);
		if (at.t < 0)
			continue;
		const float *r = hr + (at.d * st.Bn + at.b) * st.GH;
		const struct ov_rnn_act *f = &af.a[at.d * st.nf];
		float z = ov_gru_gate_f(f[0], pre_x(st, xw, bias, at, 0) + r[at.j], st.clip);
		float rg = ov_gru_gate_f(f[0], pre_x(st, xw, bias, at, 1) + r[st.H + at.j], st.clip);
		float rbh = bias ? bias[at.d * 2 * st.GH + st.GH + 2 * st.H + at.j] : 0.0f;
		float v = ov_gru_cell_f(f[1], pre_x(st, xw, bias, at, 2), r[2 * st.H + at.j], z, rg, rbh, 1, h[e], st.clip);
		h[e] = v;
		put_y(st, y, at, v);
	}
}

// GRU without linear_before_reset, first half: z and r into zr ([D, batch, 2H]), and r . h into rh
// ([D, batch, H]) for the candidate's product (zero for entries whose sequence is over)
static __global__ void gru_gates_step(struct rnn_step st, const float *xw, const float *hr, const float *bias,
				      const int *len, const float *h, float *zr, float *rh, struct rnn_acts af)
{
	CU_FOR(e, st.D * st.Bn * st.H)
	{
		struct rnn_at at = rnn_locate(st, len, e);
		if (at.t < 0) {
			rh[e] = 0.0f;
			continue;
		}
		int64_t db = at.d * st.Bn + at.b;
		const float *r = hr + db * st.GH;
		const struct ov_rnn_act *f = &af.a[at.d * st.nf];
		float z = ov_gru_gate_f(f[0], pre_x(st, xw, bias, at, 0) + r[at.j], st.clip);
		float rg = ov_gru_gate_f(f[0], pre_x(st, xw, bias, at, 1) + r[st.H + at.j], st.clip);
		zr[db * 2 * st.H + at.j] = z;
		zr[db * 2 * st.H + st.H + at.j] = rg;
		rh[e] = rg * h[e];
	}
}

// ... second half: hr's candidate columns hold Rh (r . h)
static __global__ void gru_cell_step(struct rnn_step st, const float *xw, const float *hr, const float *bias,
				     const int *len, const float *zr, float *h, float *y, struct rnn_acts af)
{
	CU_FOR(e, st.D * st.Bn * st.H)
	{
		struct rnn_at at = rnn_locate(st, len, e);
		if (at.t < 0)
			continue;
		int64_t db = at.d * st.Bn + at.b;
		float z = zr[db * 2 * st.H + at.j], rg = zr[db * 2 * st.H + st.H + at.j];
		float v = ov_gru_cell_f(af.a[at.d * st.nf + 1], pre_x(st, xw, bias, at, 2), hr[db * st.GH + 2 * st.H + at.j],
					z, rg, 0.0f, 0, h[e], st.clip);
		h[e] = v;
		put_y(st, y, at, v);
	}
}

static int set_math(struct exec_kernel_ctx *k)
{
	// as MatMul: CUBLAS_DEFAULT_MATH keeps float32 products in float32 (no TF32 tensor cores)
	return cu_need_blas(k) ||
	       CU_BLAS_OK(k, cu_blas.set_math_mode(cu_dev.blas, cu_dev.tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
}

static int fits_int(int64_t v)
{
	return v >= 0 && v <= INT_MAX;
}

// 1 when output i is asked for: the node has it and names it (an output left out, "", is not computed)
static int wanted(const struct exec_kernel_ctx *k, size_t i)
{
	return i < k->n_out && k->g->nodes[k->node].out[i] >= 0;
}

// row-major C[m, n] (row length ldc) = A[m, kk] B[n, kk]^T, for batch such products sa, sb and sc elements apart
static int gemm_abt(struct exec_kernel_ctx *k, int64_t m, int64_t n, int64_t kk, const float *a, int64_t sa,
		    const float *b, int64_t sb, float *c, int64_t ldc, int64_t sc, int64_t batch)
{
	const float one = 1.0f, zero = 0.0f;
	return CU_BLAS_OK(k, cu_blas.sgemm_strided_batched(cu_dev.blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)n, (int)m, (int)kk,
							   &one, b, (int)kk, sb, a, (int)kk, sa, &zero, c, (int)ldc, sc,
							   (int)batch));
}

static int rnn_run(struct exec_kernel_ctx *k, enum rnn_cell cell)
{
	struct rnn_geom pl;
	struct cu_bufs bufs = {};
	int rc = -1;
	const struct xtensor *X = k->n_in > 0 ? k->in[0] : NULL;

	// float types only, every float input of X's type (the CPU converts mixed ones)
	if (!X || !cu_float_type(X->dtype))
		return EXEC_DECLINE;
	for (size_t i = 1; i < k->n_in && i < 8; i++)
		if (i != 4 && k->in[i] && k->in[i]->dtype != X->dtype)
			return EXEC_DECLINE;
	if (ops_rnn_setup(k, cell, cu_host, &pl))
		return EXEC_DECLINE; // the CPU says what is wrong
	const struct xtensor *SL = k->n_in > 4 ? k->in[4] : NULL; // on the host now (cu_host, in ops_rnn_setup)
	int64_t T = pl.T, Bn = pl.Bn, I = pl.In, H = pl.H, D = pl.D, G = pl.G, GH = G * H, rows = T * Bn;
	if (!fits_int(rows) || !fits_int(D * GH) || !fits_int(I) || !fits_int(H) || !fits_int(Bn) || !fits_int(GH))
		return EXEC_DECLINE;
	int want_y = wanted(k, 0), want_h = wanted(k, 1), want_c = cell == RNN_CELL_LSTM && wanted(k, 2);
	if ((want_y && xk_output_raw(k, 0, X->dtype, 4, pl.yd)) || (want_h && xk_output_raw(k, 1, X->dtype, 3, pl.hd)) ||
	    (want_c && xk_output_raw(k, 2, X->dtype, 3, pl.hd)))
		return -1;
	if (!Bn || !H)
		return 0; // every output is empty
	// the lengths, their longest, and whether some sequence stops short (Y is zero past it)
	int64_t steps = T;
	int *lens = NULL, short_seq = 0;
	if (SL) {
		lens = (int *)malloc((size_t)Bn * sizeof *lens);
		if (!lens)
			return xk_fail(k, "out of memory");
		steps = 0;
		for (int64_t b = 0; b < Bn; b++) {
			lens[b] = (int)xt_get_int(SL, b); // 0 <= L <= T, checked
			steps = lens[b] > steps ? lens[b] : steps;
			short_seq |= lens[b] < T;
		}
	}
	const float *dx = NULL, *dw = NULL, *dr = NULL, *db = NULL, *dh0 = NULL, *dc0 = NULL, *dp = NULL;
	float *dy = NULL, *dyh = NULL, *dyc = NULL, *ws;
	int *dlen = NULL;
	int has_b = k->n_in > 3 && k->in[3], has_h0 = k->n_in > 5 && k->in[5];
	int has_c0 = cell == RNN_CELL_LSTM && k->n_in > 6 && k->in[6], has_p = cell == RNN_CELL_LSTM && k->n_in > 7 && k->in[7];
	// the workspace: X W^T [rows, D GH]; per direction (both step together): h and c [D, Bn, H], H R^T
	// [D, Bn, GH], GRU's z and r [D, Bn, 2H] and r . h [D, Bn, H]
	size_t n_xw = (size_t)(rows * D * GH), n_bh = (size_t)(D * Bn * H), n_hr = (size_t)(D * Bn * GH);
	float *xw, *h, *c, *hr, *zr, *rh;
	if (!(ws = (float *)cu_alloc(k, &bufs, (n_xw + 5 * n_bh + n_hr) * sizeof(float))))
		goto out;
	xw = ws, h = xw + n_xw, c = h + n_bh, hr = c + n_bh, zr = hr + n_hr, rh = zr + 2 * n_bh;
	if (!(dx = cu_input_f32(k, &bufs, 0)) || !(dw = cu_input_f32(k, &bufs, 1)) || !(dr = cu_input_f32(k, &bufs, 2)) ||
	    (has_b && !(db = cu_input_f32(k, &bufs, 3))) || (has_h0 && !(dh0 = cu_input_f32(k, &bufs, 5))) ||
	    (has_c0 && !(dc0 = cu_input_f32(k, &bufs, 6))) || (has_p && !(dp = cu_input_f32(k, &bufs, 7))))
		goto out;
	if (want_y && !(dy = (float *)cu_alloc(k, &bufs, (size_t)(T * D * Bn * H) * sizeof(float))))
		goto out;
	if ((want_h && !(dyh = (float *)cu_alloc(k, &bufs, n_bh * sizeof(float)))) ||
	    (want_c && !(dyc = (float *)cu_alloc(k, &bufs, n_bh * sizeof(float)))))
		goto out;
	if (lens) {
		if (!(dlen = (int *)cu_alloc(k, &bufs, (size_t)Bn * sizeof(int))) ||
		    cu_upload(k, dlen, lens, (size_t)Bn * sizeof(int)))
			goto out;
	}
	if (dy && short_seq && CU_OK(k, cudaMemsetAsync(dy, 0, (size_t)(T * D * Bn * H) * sizeof(float), cu_dev.stream)))
		goto out;
	if (set_math(k))
		goto out;
	// X W^T for every step and direction
	if (rows && steps) {
		if (I == 0) {
			if (CU_OK(k, cudaMemsetAsync(xw, 0, n_xw * sizeof(float), cu_dev.stream)))
				goto out;
		} else if (gemm_abt(k, rows, D * GH, I, dx, 0, dw, 0, xw, D * GH, 0, 1))
			goto out;
	}
	{
		struct rnn_acts af;
		memset(&af, 0, sizeof af);
		for (int f = 0; f < D * pl.nf; f++)
			af.a[f] = pl.acts[f];
		struct rnn_step st;
		memset(&st, 0, sizeof st);
		st.T = T, st.Bn = Bn, st.H = H, st.GH = GH, st.xw_ld = D * GH;
		st.D = (int)D, st.nf = pl.nf, st.layout = pl.layout, st.reverse_only = pl.reverse_only;
		st.lbr = pl.lbr, st.input_forget = pl.input_forget, st.has_p = dp != NULL, st.clip = pl.clip;
		unsigned grid = cu_grid(D * Bn * H);
		int gru_split = cell == RNN_CELL_GRU && !pl.lbr;
		if (CU_LAUNCH(k, rnn_state_in, grid, CU_BLOCK, dh0, dc0, h, cell == RNN_CELL_LSTM ? c : (float *)NULL,
			      pl.layout, D, Bn, H))
			goto out;
		for (int64_t s = 0; s < steps; s++) {
			st.s = s;
			// H R^T per direction (GRU without linear_before_reset: z and r only)
			if (gemm_abt(k, Bn, gru_split ? 2 * H : GH, H, h, Bn * H, dr, GH * H, hr, GH, Bn * GH, D))
				goto out;
			int bad = 0;
			if (cell == RNN_CELL_RNN)
				bad = CU_LAUNCH(k, rnn_cell_step, grid, CU_BLOCK, st, xw, hr, db, dlen, h, dy, af);
			else if (cell == RNN_CELL_LSTM)
				bad = CU_LAUNCH(k, lstm_cell_step, grid, CU_BLOCK, st, xw, hr, db, dp, dlen, h, c, dy, af);
			else if (!gru_split)
				bad = CU_LAUNCH(k, gru_cell_step_lbr, grid, CU_BLOCK, st, xw, hr, db, dlen, h, dy, af);
			else
				bad = CU_LAUNCH(k, gru_gates_step, grid, CU_BLOCK, st, xw, hr, db, dlen, (const float *)h, zr,
						rh, af) ||
				      gemm_abt(k, Bn, H, H, rh, Bn * H, dr + 2 * H * H, GH * H, hr + 2 * H, GH, Bn * GH, D) ||
				      CU_LAUNCH(k, gru_cell_step, grid, CU_BLOCK, st, xw, (const float *)hr, db, dlen,
						(const float *)zr, h, dy, af);
			if (bad)
				goto out;
		}
		if ((dyh || dyc) && CU_LAUNCH(k, rnn_state_out, grid, CU_BLOCK, (const float *)h, (const float *)c, dyh, dyc,
					      pl.layout, D, Bn, H))
			goto out;
	}
	if ((dy && T && cu_output_f32(k, &bufs, 0, dy)) || (dyh && cu_output_f32(k, &bufs, 1, dyh)) ||
	    (dyc && cu_output_f32(k, &bufs, 2, dyc)))
		goto out;
	rc = 0;
out:
	free(lens);
	cu_bufs_free(&bufs);
	return rc;
}

static int k_rnn(struct exec_kernel_ctx *k) { return rnn_run(k, RNN_CELL_RNN); }
static int k_gru(struct exec_kernel_ctx *k) { return rnn_run(k, RNN_CELL_GRU); }
static int k_lstm(struct exec_kernel_ctx *k) { return rnn_run(k, RNN_CELL_LSTM); }

const struct exec_kernel cuda_rnn_kernels[] = {
	{.op = "RNN", .since = 7, .fn = k_rnn},
	{.op = "GRU", .since = 7, .fn = k_gru},
	{.op = "LSTM", .since = 7, .fn = k_lstm},
};
const size_t cuda_rnn_count = sizeof cuda_rnn_kernels / sizeof cuda_rnn_kernels[0];
