/* RNN's, GRU's and LSTM's checks, dims and activations, shared by the CPU and CUDA kernels (see ops/ops.h). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/ops/ops.h"

/* The activations attribute (names case-insensitive), with activation_alpha/beta handed out in order to the
 * functions that take them (onnxruntime's rule); absent: the op's defaults, per direction. */
static int get_activations(struct exec_kernel_ctx *k, int per_dir, int dirs, const char *const *defaults,
			   struct ov_rnn_act *out)
{
	static const struct {
		const char *name;
		enum ov_rnn_act_kind a;
		int n_params;
		double alpha, beta;
	} known[] = {{"sigmoid", OV_RNN_SIGMOID, 0, 0, 0},
		     {"tanh", OV_RNN_TANH, 0, 0, 0},
		     {"relu", OV_RNN_RELU, 0, 0, 0},
		     {"affine", OV_RNN_AFFINE, 2, 1, 0},
		     {"leakyrelu", OV_RNN_LEAKY_RELU, 1, 0.01, 0},
		     {"thresholdedrelu", OV_RNN_THRESHOLDED_RELU, 1, 1, 0},
		     {"scaledtanh", OV_RNN_SCALED_TANH, 2, 1, 1},
		     {"hardsigmoid", OV_RNN_HARD_SIGMOID, 2, 0.2, 0.5},
		     {"elu", OV_RNN_ELU, 1, 1, 0},
		     {"softsign", OV_RNN_SOFTSIGN, 0, 0, 0},
		     {"softplus", OV_RNN_SOFTPLUS, 0, 0, 0}};
	const Onnx__NodeProto *n = k->g->nodes[k->node].proto;
	const Onnx__AttributeProto *names = NULL;
	float alphas[16], betas[16];
	int64_t na = xk_attr_floats(k, "activation_alpha", alphas, 16), nb = xk_attr_floats(k, "activation_beta", betas, 16);
	int ia = 0, ib = 0;

	for (size_t a = 0; a < n->n_attribute; a++)
		if (n->attribute[a]->name && !strcmp(n->attribute[a]->name, "activations"))
			names = n->attribute[a];
	int count = per_dir * dirs;
	if (names && names->n_strings != (size_t)count && names->n_strings != (size_t)per_dir)
		return xk_fail(k, "%zu activations for %d directions of %d functions", names->n_strings, dirs, per_dir);
	for (int i = 0; i < count; i++) {
		char nm[32];
		if (names) {
			const ProtobufCBinaryData *b = &names->strings[(size_t)i % names->n_strings];
			size_t l = b->len < sizeof nm - 1 ? b->len : sizeof nm - 1;
			for (size_t c = 0; c < l; c++)
				nm[c] = (char)(b->data[c] >= 'A' && b->data[c] <= 'Z' ? b->data[c] + 32 : b->data[c]);
			nm[l] = '\0';
		} else
			snprintf(nm, sizeof nm, "%s", defaults[i % per_dir]);
		size_t f = 0;
		while (f < sizeof known / sizeof known[0] && strcmp(known[f].name, nm))
			f++;
		if (f == sizeof known / sizeof known[0])
			return xk_fail(k, "unknown activation '%s'", nm);
		out[i].kind = known[f].a;
		out[i].alpha = known[f].alpha;
		out[i].beta = known[f].beta;
		if (known[f].n_params >= 1 && ia < na)
			out[i].alpha = alphas[ia++];
		if (known[f].n_params >= 2 && ib < nb)
			out[i].beta = betas[ib++];
	}
	return 0;
}

int ops_rnn_setup(struct exec_kernel_ctx *k, enum rnn_cell cell, ops_host_fn host, struct rnn_geom *p)
{
	const struct xtensor *X = xk_in(k, 0), *Wt = xk_in(k, 1), *Rt = xk_in(k, 2), *Bt = xk_in(k, 3),
			     *SL = xk_in(k, 4), *H0 = xk_in(k, 5), *C0 = cell == RNN_CELL_LSTM ? xk_in(k, 6) : NULL,
			     *Pt = cell == RNN_CELL_LSTM ? xk_in(k, 7) : NULL;
	static const char *const def_rnn[] = {"tanh"}, *const def_gru[] = {"sigmoid", "tanh"},
				 *const def_lstm[] = {"sigmoid", "tanh", "tanh"};
	int G = cell == RNN_CELL_RNN ? 1 : cell == RNN_CELL_GRU ? 3 : 4;
	char dir[16];

	memset(p, 0, sizeof *p);
	p->cell = cell;
	p->G = G;
	p->nf = cell == RNN_CELL_RNN ? 1 : cell == RNN_CELL_GRU ? 2 : 3;
	p->layout = (int)xk_attr_int(k, "layout", 0);
	p->lbr = (int)xk_attr_int(k, "linear_before_reset", 0);
	p->input_forget = (int)xk_attr_int(k, "input_forget", 0);
	p->clip = xk_attr_float(k, "clip", 0);
	if (!X || !Wt || !Rt)
		return xk_fail(k, "X, W and R are required");
	if (X->dtype != OV_DT_FLOAT && X->dtype != OV_DT_DOUBLE && X->dtype != OV_DT_FLOAT16 && X->dtype != OV_DT_BFLOAT16)
		return xk_fail(k, "%s on %s is not supported", k->g->nodes[k->node].proto->op_type, dtype_name(X->dtype));
	xk_attr_str(k, "direction", "forward", dir, sizeof dir);
	int D = !strcmp(dir, "bidirectional") ? 2 : 1;
	p->D = D;
	p->reverse_only = !strcmp(dir, "reverse");
	if (D == 1 && !p->reverse_only && strcmp(dir, "forward"))
		return xk_fail(k, "unknown direction '%s'", dir);
	if (X->rank != 3 || Wt->rank != 3 || Rt->rank != 3)
		return xk_fail(k, "X, W and R must be 3-D");
	int layout = p->layout;
	int64_t T = layout ? X->dims[1] : X->dims[0], Bn = layout ? X->dims[0] : X->dims[1], I = X->dims[2];
	int64_t H = Rt->dims[2];
	p->T = T, p->Bn = Bn, p->In = I, p->H = H;
	if (Wt->dims[0] != D || Rt->dims[0] != D)
		return xk_fail(k, "W and R have %" PRId64 " directions, '%s' needs %d", Wt->dims[0], dir, D);
	if (Wt->dims[1] != G * H || Wt->dims[2] != I || Rt->dims[1] != G * H)
		return xk_fail(k, "W must be [%d, %" PRId64 ", %" PRId64 "] and R [%d, %" PRId64 ", %" PRId64 "]", D, G * H, I,
			       D, G * H, H);
	if (xk_attr_int(k, "hidden_size", H) != H)
		return xk_fail(k, "hidden_size %" PRId64 " differs from R's %" PRId64, xk_attr_int(k, "hidden_size", H), H);
	if (Bt && (Bt->rank != 2 || Bt->dims[0] != D || Bt->dims[1] != 2 * G * H))
		return xk_fail(k, "B must be [%d, %" PRId64 "]", D, 2 * G * H);
	if (Pt && (Pt->rank != 2 || Pt->dims[0] != D || Pt->dims[1] != 3 * H))
		return xk_fail(k, "P must be [%d, %" PRId64 "]", D, 3 * H);
	const struct xtensor *st[2] = {H0, C0};
	for (int i = 0; i < 2; i++)
		if (st[i] && (st[i]->rank != 3 || st[i]->dims[layout ? 1 : 0] != D || st[i]->dims[layout ? 0 : 1] != Bn ||
			      st[i]->dims[2] != H))
			return xk_fail(k, "initial states must be %s", layout ? "[batch, directions, hidden]" : "[directions, batch, hidden]");
	if (SL && (SL->rank != 1 || SL->dims[0] != Bn))
		return xk_fail(k, "sequence_lens must have one entry per batch (%" PRId64 ")", Bn);
	if (SL && !(SL = host(k, 4)))
		return -1;
	for (int64_t b = 0; SL && b < Bn; b++)
		if (xt_get_int(SL, b) < 0 || xt_get_int(SL, b) > T)
			return xk_fail(k, "sequence_lens[%" PRId64 "] = %" PRId64 " is out of range for %" PRId64 " steps", b,
				       xt_get_int(SL, b), T);
	if (get_activations(k, p->nf, D, cell == RNN_CELL_RNN ? def_rnn : cell == RNN_CELL_GRU ? def_gru : def_lstm,
			    p->acts))
		return -1;
	if (layout) {
		p->yd[0] = Bn, p->yd[1] = T, p->yd[2] = D, p->yd[3] = H;
		p->hd[0] = Bn, p->hd[1] = D, p->hd[2] = H;
	} else {
		p->yd[0] = T, p->yd[1] = D, p->yd[2] = Bn, p->yd[3] = H;
		p->hd[0] = D, p->hd[1] = Bn, p->hd[2] = H;
	}
	return 0;
}
