/* CPU attention: Attention (opset 23, 24's nonpad_kv_seqlen, 25's sliding window) and the preview domain's
 * FlexAttention (its score_mod and prob_mod subgraphs run through the runner).  Q·Kᵀ and the probabilities ·V are
 * CBLAS products per head, in Q's type (float16 and bfloat16 through float32); each query row's soft cap, bias and
 * softmax are ops/ov-attn.h's, in double, the functions the CUDA kernels call. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/cpu/kernels.h"
#include "src/exec/ops/attention.h"

#define GETF(dt, p, i) ((dt) == OV_DT_FLOAT ? (double)((const float *)(p))[i] : ((const double *)(p))[i])
#define SETF(dt, p, i, v)                                                                                        \
	do {                                                                                                     \
		if ((dt) == OV_DT_FLOAT)                                                                         \
			((float *)(p))[i] = (float)(v);                                                          \
		else                                                                                             \
			((double *)(p))[i] = (v);                                                                \
	} while (0)

/* present_key or present_value (B, Hkv, T, D): the past rows, then the new ones taken out of K or V's layout. */
static void build_present(const struct attn_geom *p, const struct xtensor *past, const struct xtensor *cur, int64_t d,
			  int64_t rs, int value, size_t es, char *dst)
{
	for (int64_t b = 0; b < p->B; b++)
		for (int64_t hk = 0; hk < p->Hkv; hk++) {
			char *o = dst + (size_t)((b * p->Hkv + hk) * p->T * d) * es;
			if (past) {
				memcpy(o, (const char *)past->data + (size_t)((b * p->Hkv + hk) * p->P * d) * es,
				       (size_t)(p->P * d) * es);
				o += (size_t)(p->P * d) * es;
			}
			int64_t off = value ? attn_v_off(p, b, hk) : attn_k_off(p, b, hk);
			for (int64_t l = 0; l < p->L; l++)
				memcpy(o + (size_t)(l * d) * es, (const char *)cur->data + (size_t)(off + l * rs) * es,
				       (size_t)d * es);
		}
}

/* half: the float16 or bfloat16 type the inputs had before cpu_via_f32 made them float32 (0 for float and double):
 * its roundings are applied where the reference rounds (attn_set_rounding), Q and K scaled by the rounded square
 * root of the scale before their product. */
static int attention_run(struct exec_kernel_ctx *k, int32_t half)
{
	struct attn_geom p;

	if (ops_attention_setup(k, &p))
		return -1;
	attn_set_rounding(&p, half);
	const struct xtensor *q = k->in[0], *mask = xk_in(k, 3), *np = k->opset >= 24 ? xk_in(k, 6) : NULL;
	int32_t dt = q->dtype;
	size_t es = dt == OV_DT_FLOAT ? 4 : 8;
	if (xk_output(k, 0, dt, p.y_rank, p.y))
		return -1;
	for (size_t o = 1; o < 3 && o < k->n_out; o++)
		if (xk_output(k, o, dt, 4, o == 1 ? p.pk : p.pv))
			return -1;
	if (k->n_out > 3 && xk_output(k, 3, dt, 4, p.qk))
		return -1;
	char *pk = k->n_out > 1 ? k->out[1]->data : malloc((size_t)(p.B * p.Hkv * p.T * p.Dk) * es + 1);
	char *pv = k->n_out > 2 ? k->out[2]->data : malloc((size_t)(p.B * p.Hkv * p.T * p.Dv) * es + 1);
	char *sc = malloc((size_t)(p.S * p.T) * es + 1);
	double *row = malloc((size_t)(3 * p.T + 1) * sizeof *row);
	int64_t nq = q->numel, nk = p.B * p.Hkv * p.T * p.Dk;
	float *qs = p.rnd ? malloc((size_t)(nq + nk + 1) * sizeof *qs) : NULL, *ks = qs ? qs + nq : NULL;
	const char *qd = q->data, *kd = pk;
	double alpha = p.scale;
	int rc = -1;
	if (!pk || !pv || !sc || !row || (p.rnd && !qs)) {
		xk_fail(k, "out of memory");
		goto out;
	}
	build_present(&p, xk_in(k, 4), k->in[1], p.Dk, p.k_rs, 0, es, pk);
	build_present(&p, xk_in(k, 5), k->in[2], p.Dv, p.v_rs, 1, es, pv);
	if (p.rnd) { /* the half types: Q and K scaled apart, rounded, as the reference does */
		float s = (float)ov_attn_round_d(p.rnd, sqrt(p.scale));
		for (int64_t i = 0; i < nq; i++)
			qs[i] = ov_attn_round_f(p.rnd, ((const float *)q->data)[i] * s);
		for (int64_t i = 0; i < nk; i++)
			ks[i] = ov_attn_round_f(p.rnd, ((const float *)pk)[i] * s);
		qd = (const char *)qs, kd = (const char *)ks, alpha = 1;
	}
	struct xtensor *y = k->out[0], *qk = k->n_out > 3 ? k->out[3] : NULL;
	int64_t group = p.Hq / p.Hkv;
	for (int64_t b = 0; b < p.B; b++) {
		int64_t nonpad = np ? ((const int64_t *)np->data)[b] : -1;
		for (int64_t h = 0; h < p.Hq; h++) {
			int64_t hk = h / group;
			const char *kh = kd + (size_t)((b * p.Hkv + hk) * p.T * p.Dk) * es;
			const char *vh = pv + (size_t)((b * p.Hkv + hk) * p.T * p.Dv) * es;
			cpu_gemm(dt, 0, 1, p.S, p.T, p.Dk, alpha, qd + (size_t)attn_q_off(&p, b, h) * es,
				 p.q_rs, kh, p.Dk, 0, sc, p.T);
			for (int64_t i = 0; i < p.S; i++) {
				struct ov_attn_row r;
				attn_row_setup(&p, mask ? mask->data : NULL, b, h, i, nonpad, &r);
				for (int64_t j = 0; j < p.T; j++)
					row[j] = GETF(dt, sc, i * p.T + j);
				int64_t qo = ((b * p.Hq + h) * p.S + i) * p.T;
				if (qk && p.mode == 0)
					for (int64_t j = 0; j < p.T; j++)
						SETF(dt, qk->data, qo + j, row[j]);
				ov_attn_row_d(row, p.T, i, &r, qk && p.mode == 1 ? row + p.T : NULL,
					      qk && p.mode == 2 ? row + p.T : NULL);
				for (int64_t j = 0; j < p.T; j++) {
					SETF(dt, sc, i * p.T + j, row[j]);
					if (qk && p.mode)
						SETF(dt, qk->data, qo + j, p.mode == 3 ? row[j] : row[p.T + j]);
				}
			}
			cpu_gemm(dt, 0, 0, p.S, p.Dv, p.T, 1, sc, p.T, vh, p.Dv, 0,
				 (char *)y->data + (size_t)attn_y_off(&p, b, h) * es, p.y_rs);
		}
	}
	rc = 0;
out:
	if (k->n_out <= 1)
		free(pk);
	if (k->n_out <= 2)
		free(pv);
	free(sc);
	free(row);
	free(qs);
	return rc;
}

static int attention_f(struct exec_kernel_ctx *k)
{
	return attention_run(k, 0);
}
static int attention_f16(struct exec_kernel_ctx *k)
{
	return attention_run(k, OV_DT_FLOAT16);
}
static int attention_bf16(struct exec_kernel_ctx *k)
{
	return attention_run(k, OV_DT_BFLOAT16);
}

static int kernel_attention(struct exec_kernel_ctx *k)
{
	int32_t dt = k->n_in && k->in[0] ? k->in[0]->dtype : 0;

	if (dt == OV_DT_FLOAT16)
		return cpu_via_f32(k, attention_f16, 0);
	if (dt == OV_DT_BFLOAT16)
		return cpu_via_f32(k, attention_bf16, 0);
	return cpu_float_dispatch(k, attention_f, 0, "Attention");
}

/* ---- FlexAttention (ai.onnx.preview) ---- */

/* The node's subgraph attribute name, or NULL. */
static const struct graph *node_sub(const struct exec_kernel_ctx *k, const char *name)
{
	const struct graph_node *nd = &k->g->nodes[k->node];

	for (uint32_t i = 0; i < nd->n_sub; i++)
		if (nd->sub_attr[i] && !strcmp(nd->sub_attr[i], name))
			return nd->sub[i];
	return NULL;
}

/* Replace *t by what subgraph sub makes of it (one input, one output of t's type and shape). */
static int run_mod(struct exec_kernel_ctx *k, const struct graph *sub, const char *what, struct xtensor *t)
{
	const struct xtensor *in[1] = {t};
	struct xtensor out = {0};

	if (!sub)
		return 0;
	if (sub->proto->n_output != 1)
		return xk_fail(k, "%s must give one output, not %zu", what, sub->proto->n_output);
	if (xk_run_subgraph(k, sub, in, 1, &out))
		return -1;
	if (out.kind != XT_TENSOR || out.dtype != t->dtype || out.numel != t->numel) {
		xt_free(&out);
		return xk_fail(k, "%s must give a %s tensor of the scores' shape", what, dtype_short_name(t->dtype));
	}
	xt_free(t);
	*t = out;
	return 0;
}

static int flex_f(struct exec_kernel_ctx *k)
{
	const struct xtensor *q = xk_in(k, 0), *kt = xk_in(k, 1), *v = xk_in(k, 2);

	if (!q || !kt || !v || q->rank != 4 || kt->rank != 4 || v->rank != 4)
		return xk_fail(k, "Q, K and V must be 4-D");
	if (kt->dtype != q->dtype || v->dtype != q->dtype)
		return xk_fail(k, "Q, K and V must be of one type");
	int64_t B = q->dims[0], Hq = q->dims[1], L = q->dims[2], E = q->dims[3], Hkv = kt->dims[1], S = kt->dims[2],
		Ev = v->dims[3];
	if (kt->dims[0] != B || v->dims[0] != B || v->dims[1] != Hkv || v->dims[2] != S || kt->dims[3] != E)
		return xk_fail(k, "K and V must be (B, Hkv, S, E|Ev) with Q's B and E");
	if (Hkv <= 0 || Hq % Hkv)
		return xk_fail(k, "%lld query heads cannot share %lld key/value heads evenly", (long long)Hq,
			       (long long)Hkv);
	float scf = xk_attr_float(k, "scale", NAN);
	double scale = scf == scf ? scf : 1 / sqrt((double)E);
	int64_t prec = xk_attr_int(k, "softmax_precision", 0);
	int32_t dt = q->dtype, cdt = prec == OV_DT_DOUBLE || (!prec && dt == OV_DT_DOUBLE) ? OV_DT_DOUBLE : OV_DT_FLOAT;
	size_t es = dt == OV_DT_FLOAT ? 4 : 8;
	int64_t sdims[4] = {B, Hq, L, S}, ydims[4] = {B, Hq, L, Ev}, group = Hq / Hkv;
	struct xtensor sc = {0}, tmp = {0};
	int rc = -1;

	if (xk_output(k, 0, dt, 4, ydims) || xt_alloc(&sc, cdt, 4, sdims, k->err) ||
	    xt_alloc(&tmp, dt, 2, sdims + 2, k->err))
		goto out;
	for (int64_t b = 0; b < B; b++)
		for (int64_t h = 0; h < Hq; h++) {
			int64_t hk = h / group;
			cpu_gemm(dt, 0, 1, L, S, E, scale, (const char *)q->data + (size_t)((b * Hq + h) * L * E) * es, E,
				 (const char *)kt->data + (size_t)((b * Hkv + hk) * S * E) * es, E, 0, tmp.data, S);
			for (int64_t i = 0; i < L * S; i++)
				xt_set(&sc, (b * Hq + h) * L * S + i, GETF(dt, tmp.data, i));
		}
	if (run_mod(k, node_sub(k, "score_mod"), "score_mod", &sc))
		goto out;
	for (int64_t r = 0; r < B * Hq * L; r++) {
		double mx = -INFINITY, sum = 0;
		for (int64_t j = 0; j < S; j++)
			mx = fmax(mx, xt_get(&sc, r * S + j));
		for (int64_t j = 0; j < S; j++) {
			double e = exp(xt_get(&sc, r * S + j) - mx);
			xt_set(&sc, r * S + j, e);
			sum += cdt == OV_DT_FLOAT ? (double)(float)e : e;
		}
		for (int64_t j = 0; j < S; j++)
			xt_set(&sc, r * S + j, xt_get(&sc, r * S + j) / sum);
	}
	if (run_mod(k, node_sub(k, "prob_mod"), "prob_mod", &sc))
		goto out;
	for (int64_t b = 0; b < B; b++)
		for (int64_t h = 0; h < Hq; h++) {
			for (int64_t i = 0; i < L * S; i++)
				SETF(dt, tmp.data, i, xt_get(&sc, (b * Hq + h) * L * S + i));
			cpu_gemm(dt, 0, 0, L, Ev, S, 1, tmp.data, S,
				 (const char *)v->data + (size_t)((b * Hkv + h / group) * S * Ev) * es, Ev, 0,
				 (char *)k->out[0]->data + (size_t)((b * Hq + h) * L * Ev) * es, Ev);
		}
	rc = 0;
out:
	xt_free(&sc);
	xt_free(&tmp);
	return rc;
}

static int kernel_flex(struct exec_kernel_ctx *k)
{
	return cpu_float_dispatch(k, flex_f, 0, "FlexAttention");
}

const struct exec_kernel cpu_attention_kernels[] = {
	{.op = "Attention", .since = 23, .fn = kernel_attention},
};
const size_t cpu_attention_count = sizeof cpu_attention_kernels / sizeof cpu_attention_kernels[0];

/* The ai.onnx.preview domain's (registry.c looks these up by that domain's opset). */
const struct exec_kernel cpu_preview_kernels[] = {
	{.op = "FlexAttention", .since = 1, .fn = kernel_flex},
};
const size_t cpu_preview_count = sizeof cpu_preview_kernels / sizeof cpu_preview_kernels[0];
