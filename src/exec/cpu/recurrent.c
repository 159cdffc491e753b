/* CPU recurrent layers: RNN, GRU, LSTM (the checks of src/exec/ops/rnn.c, the cells of src/exec/ops/ov-rnn.h,
 * computed in double). */
#include "config.h"

#include <stdlib.h>

#include "src/exec/exec.h"
#include "src/exec/ops/index.h"

#define MAXR XT_MAX_RANK
#define PI 3.14159265358979323846

/* ---- RNN, GRU, LSTM ------------------------------------------------------------------------------------------- */

/* The checks, dims and activations are ops_rnn_setup's (src/exec/ops/rnn.c), and a cell's arithmetic from its
 * pre-activations on is src/exec/ops/ov-rnn.h's, both shared with the CUDA kernels. */

static const struct xtensor *host_input(struct exec_kernel_ctx *k, size_t i)
{
	return xk_in(k, i);
}

/* A tensor's values as doubles (NULL input: NULL, no failure). */
static double *to_doubles(struct exec_kernel_ctx *k, const struct xtensor *t, int *failed)
{
	if (!t)
		return NULL;
	double *d = malloc((size_t)(t->numel ? t->numel : 1) * sizeof *d);
	if (!d) {
		*failed = xk_fail(k, "out of memory");
		return NULL;
	}
	for (int64_t i = 0; i < t->numel; i++)
		d[i] = xt_get(t, i);
	return d;
}

static int recurrent_run(struct exec_kernel_ctx *k, enum rnn_cell cell)
{
	const struct xtensor *X = xk_in(k, 0), *Wt = xk_in(k, 1), *Rt = xk_in(k, 2), *Bt = xk_in(k, 3),
			     *SL = xk_in(k, 4), *H0 = xk_in(k, 5), *C0 = cell == RNN_CELL_LSTM ? xk_in(k, 6) : NULL,
			     *Pt = cell == RNN_CELL_LSTM ? xk_in(k, 7) : NULL;
	struct rnn_geom pl;
	int rc = -1, failed = 0;

	if (ops_rnn_setup(k, cell, host_input, &pl))
		return -1;
	int G = pl.G, nf = pl.nf, D = pl.D, layout = pl.layout, lbr = pl.lbr;
	double clipv = pl.clip;
	int64_t T = pl.T, Bn = pl.Bn, I = pl.In, H = pl.H;
	if (xk_output(k, 0, X->dtype, 4, pl.yd))
		return -1;
	if (k->n_out > 1 && xk_output(k, 1, X->dtype, 3, pl.hd))
		return -1;
	if (cell == RNN_CELL_LSTM && k->n_out > 2 && xk_output(k, 2, X->dtype, 3, pl.hd))
		return -1;
	double *x = to_doubles(k, X, &failed), *w = to_doubles(k, Wt, &failed), *r = to_doubles(k, Rt, &failed);
	double *bias = to_doubles(k, Bt, &failed), *p = to_doubles(k, Pt, &failed);
	size_t nbh = (size_t)(Bn && H ? Bn * H : 1), ngh = (size_t)(H ? G * H : 1);
	double *h = calloc(nbh, sizeof *h), *c = calloc(nbh, sizeof *c);
	double *g = malloc(ngh * sizeof *g), *tmp = malloc((size_t)(H ? H : 1) * sizeof *tmp);
	if (failed || !x || !w || !r || !h || !c || !g || !tmp) {
		if (!failed)
			xk_fail(k, "out of memory");
		goto out;
	}
	for (int d = 0; d < D; d++) {
		const double *W = w + (size_t)d * G * H * I, *R = r + (size_t)d * G * H * H;
		const double *Wb = bias ? bias + (size_t)d * 2 * G * H : NULL, *Rb = Wb ? Wb + G * H : NULL;
		const double *P = p ? p + (size_t)d * 3 * H : NULL;
		const struct ov_rnn_act *af = &pl.acts[d * nf];
		int backward = pl.reverse_only || d == 1;
		for (int64_t b = 0; b < Bn; b++)
			for (int64_t j = 0; j < H; j++) {
				int64_t si = layout ? (b * D + d) * H + j : (d * Bn + b) * H + j;
				h[b * H + j] = H0 ? xt_get(H0, si) : 0;
				c[b * H + j] = C0 ? xt_get(C0, si) : 0;
			}
		for (int64_t b = 0; b < Bn; b++) {
			int64_t L = SL ? xt_get_int(SL, b) : T;
			double *hb = h + b * H, *cb = c + b * H;
			for (int64_t s = 0; s < L; s++) {
				int64_t t = backward ? L - 1 - s : s;
				const double *xt = x + (layout ? (b * T + t) : (t * Bn + b)) * I;
				/* g = W x + Wb + Rb (+ R h, except GRU's candidate gate) */
				for (int64_t q = 0; q < G * H; q++) {
					double v = Wb ? Wb[q] + Rb[q] : 0;
					const double *wr = W + q * I;
					for (int64_t i = 0; i < I; i++)
						v += wr[i] * xt[i];
					if (!(cell == RNN_CELL_GRU && q >= 2 * H)) {
						const double *rr = R + q * H;
						for (int64_t i = 0; i < H; i++)
							v += rr[i] * hb[i];
					}
					g[q] = v;
				}
				if (cell == RNN_CELL_RNN) {
					for (int64_t j = 0; j < H; j++)
						hb[j] = ov_rnn_cell_d(af[0], g[j], clipv);
				} else if (cell == RNN_CELL_GRU) {
					/* z, r, then the candidate from Rh (r . h), or Rh h when linear_before_reset */
					for (int64_t j = 0; j < 2 * H; j++)
						g[j] = ov_gru_gate_d(af[0], g[j], clipv);
					const double *Rh = R + 2 * H * H, *rbh = Rb ? Rb + 2 * H : NULL;
					for (int64_t j = 0; j < H; j++) {
						double v = 0;
						if (lbr)
							for (int64_t i = 0; i < H; i++)
								v += Rh[j * H + i] * hb[i];
						else
							for (int64_t i = 0; i < H; i++)
								v += Rh[j * H + i] * g[H + i] * hb[i];
						tmp[j] = ov_gru_cell_d(af[1], g[2 * H + j], v, g[j], g[H + j], rbh ? rbh[j] : 0, lbr,
								       hb[j], clipv);
					}
					for (int64_t j = 0; j < H; j++)
						hb[j] = tmp[j];
				} else {
					/* gates i, o, f, c; peepholes P = [Pi, Po, Pf] */
					for (int64_t j = 0; j < H; j++)
						hb[j] = ov_lstm_cell_d(af[0], af[1], af[2], g[j], g[H + j], g[2 * H + j], g[3 * H + j],
								       P != NULL, P ? P[j] : 0, P ? P[H + j] : 0,
								       P ? P[2 * H + j] : 0, pl.input_forget, clipv, &cb[j]);
				}
				for (int64_t j = 0; j < H; j++) {
					int64_t yi = layout ? ((b * T + t) * D + d) * H + j : ((t * D + d) * Bn + b) * H + j;
					xt_set(k->out[0], yi, hb[j]);
				}
			}
		}
		for (int64_t b = 0; b < Bn; b++)
			for (int64_t j = 0; j < H; j++) {
				int64_t si = layout ? (b * D + d) * H + j : (d * Bn + b) * H + j;
				if (k->n_out > 1)
					xt_set(k->out[1], si, h[b * H + j]);
				if (cell == RNN_CELL_LSTM && k->n_out > 2)
					xt_set(k->out[2], si, c[b * H + j]);
			}
	}
	rc = 0;
out:
	free(x), free(w), free(r), free(bias), free(p), free(h), free(c), free(g), free(tmp);
	return rc;
}

static int k_rnn(struct exec_kernel_ctx *k) { return recurrent_run(k, RNN_CELL_RNN); }
static int k_gru(struct exec_kernel_ctx *k) { return recurrent_run(k, RNN_CELL_GRU); }
static int k_lstm(struct exec_kernel_ctx *k) { return recurrent_run(k, RNN_CELL_LSTM); }

const struct exec_kernel cpu_recurrent_kernels[] = {
	{.op = "RNN", .since = 7, .fn = k_rnn},
	{.op = "GRU", .since = 7, .fn = k_gru},
	{.op = "LSTM", .since = 7, .fn = k_lstm},
};
const size_t cpu_recurrent_count = sizeof cpu_recurrent_kernels / sizeof cpu_recurrent_kernels[0];
