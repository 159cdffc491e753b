/* CPU kernels of the other transformer-era ops: RMSNormalization and RotaryEmbedding (opset 23), TensorScatter
 * and Swish (24), CausalConvWithState and LinearAttention (27), SwiGLU (28).  Float16 and bfloat16 run through float32;
 * sums accumulate in double.  The element arithmetic shared with the CUDA kernels is ops/ov-attn.h's. */
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

/* ---- RMSNormalization ---- */

static int rmsnorm_f(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0), *s = xk_in(k, 1);
	struct rms_geom p;

	if (ops_rmsnorm_setup(k, x, s, &p) || xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	int32_t dt = x->dtype;
	int64_t idx[XT_MAX_RANK] = {0};
	for (int64_t r = 0; r < p.outer; r++) {
		int64_t base = r * p.len;
		double sq = 0;
		for (int64_t j = 0; j < p.len; j++) {
			double v = GETF(dt, x->data, base + j);
			sq += v * v;
		}
		double inv = ov_rms_inv_d(sq, p.len, p.eps);
		for (int64_t j = 0; j < p.len; j++) {
			int64_t si = 0;
			for (int i = 0; i < x->rank; i++)
				si += idx[i] * p.sstr[i];
			xt_index_next(idx, x->dims, x->rank);
			SETF(dt, k->out[0]->data, base + j, GETF(dt, x->data, base + j) * inv * GETF(dt, s->data, si));
		}
	}
	return 0;
}

static int kernel_rmsnorm(struct exec_kernel_ctx *k)
{
	return cpu_float_dispatch(k, rmsnorm_f, 0, "RMSNormalization");
}

/* ---- RotaryEmbedding ---- */

static int rope_f(struct exec_kernel_ctx *k)
{
	struct rope_geom p;

	if (ops_rope_setup(k, &p))
		return -1;
	const struct xtensor *x = k->in[0], *c = k->in[1], *s = k->in[2], *pos = xk_in(k, 3);
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	int64_t half = p.rd / 2;
	for (int64_t b = 0; b < p.B; b++)
		for (int64_t q = 0; q < p.S; q++) {
			int64_t ci = b * p.S + q;
			if (pos) {
				ci = xt_get_int(pos, b * p.S + q);
				if (ci < 0 || ci >= p.max_pos)
					return xk_fail(k, "position_ids[%lld][%lld] = %lld is outside the caches' %lld positions",
						       (long long)b, (long long)q, (long long)ci, (long long)p.max_pos);
			}
			for (int64_t h = 0; h < p.H; h++) {
				int64_t o = rope_row_off(&p, b, q, h);
				if (x->dtype == OV_DT_FLOAT)
					ov_rope_row_f((const float *)x->data + o, (float *)k->out[0]->data + o, p.D, p.rd,
						      p.interleaved, (const float *)c->data + ci * half,
						      (const float *)s->data + ci * half);
				else
					ov_rope_row_d((const double *)x->data + o, (double *)k->out[0]->data + o, p.D, p.rd,
						      p.interleaved, (const double *)c->data + ci * half,
						      (const double *)s->data + ci * half);
			}
		}
	return 0;
}

static int kernel_rope(struct exec_kernel_ctx *k)
{
	return cpu_float_dispatch(k, rope_f, 0, "RotaryEmbedding");
}

/* ---- SwiGLU ---- */

static int swiglu_f(struct exec_kernel_ctx *k)
{
	const struct xtensor *a = xk_in(k, 0), *b = xk_in(k, 1);

	if (!a || !b)
		return xk_fail(k, "A and B are required");
	if (b->dtype != a->dtype || b->rank != a->rank || memcmp(a->dims, b->dims, (size_t)a->rank * sizeof a->dims[0]))
		return xk_fail(k, "A and B must have the same type and shape (SwiGLU does not broadcast)");
	if (xk_output_raw(k, 0, a->dtype, a->rank, a->dims))
		return -1;
	double alpha = xk_attr_float(k, "alpha", 1.0f);
	for (int64_t i = 0; i < a->numel; i++)
		SETF(a->dtype, k->out[0]->data, i, ov_swiglu_d(GETF(a->dtype, a->data, i), GETF(a->dtype, b->data, i), alpha));
	return 0;
}

static int kernel_swiglu(struct exec_kernel_ctx *k)
{
	return cpu_float_dispatch(k, swiglu_f, 0, "SwiGLU");
}

/* ---- TensorScatter: a KV cache updated in place, any element type ---- */

static int kernel_tensor_scatter(struct exec_kernel_ctx *k)
{
	const struct xtensor *past = xk_in(k, 0), *up = xk_in(k, 1), *wi = xk_in(k, 2);
	char mode[16];

	if (!past || !up)
		return xk_fail(k, "past_cache and update are required");
	size_t es = xt_elem_size(past->dtype);
	if (!es || past->dtype == OV_DT_STRING || up->dtype != past->dtype)
		return xk_fail(k, "past_cache and update must be of one fixed-size type");
	xk_attr_str(k, "mode", "linear", mode, sizeof mode);
	int circular = !strcmp(mode, "circular");
	if (!circular && strcmp(mode, "linear"))
		return xk_fail(k, "mode '%s' is not linear or circular", mode);
	int axis;
	if (xk_norm_axis(k, xk_attr_int(k, "axis", -2), past->rank, &axis))
		return -1;
	if (axis < 1)
		return xk_fail(k, "axis must not be the batch axis");
	if (up->rank != past->rank)
		return xk_fail(k, "update has rank %d, past_cache %d", up->rank, past->rank);
	for (int i = 0; i < past->rank; i++)
		if (i == axis ? up->dims[i] > past->dims[i] : up->dims[i] != past->dims[i])
			return xk_fail(k, "update's dim %d (%lld) does not fit past_cache's (%lld)", i, (long long)up->dims[i],
				       (long long)past->dims[i]);
	if (wi && (wi->rank != 1 || wi->dims[0] != past->dims[0] ||
		   (wi->dtype != OV_DT_INT64 && wi->dtype != OV_DT_INT32)))
		return xk_fail(k, "write_indices must be int64 [%lld]", (long long)past->dims[0]);
	if (xk_output_raw(k, 0, past->dtype, past->rank, past->dims))
		return -1;
	memcpy(k->out[0]->data, past->data, past->bytes);
	int64_t outer = 1, inner = 1, max = past->dims[axis], n = up->dims[axis];
	for (int i = 0; i < axis; i++)
		outer *= past->dims[i];
	for (int i = axis + 1; i < past->rank; i++)
		inner *= past->dims[i];
	int64_t per_batch = outer / (past->dims[0] ? past->dims[0] : 1);
	for (int64_t o = 0; o < outer; o++) {
		int64_t b = per_batch ? o / per_batch : 0, w = wi ? xt_get_int(wi, b) : 0;
		for (int64_t s = 0; s < n; s++) {
			int64_t d = w + s;
			if (circular)
				d = max ? ((d % max) + max) % max : 0;
			if (d < 0 || d >= max)
				return xk_fail(k, "write_indices[%lld] = %lld puts update position %lld outside the cache's %lld",
					       (long long)b, (long long)w, (long long)s, (long long)max);
			memcpy((char *)k->out[0]->data + (size_t)((o * max + d) * inner) * es,
			       (const char *)up->data + (size_t)((o * n + s) * inner) * es, (size_t)inner * es);
		}
	}
	return 0;
}

/* ---- CausalConvWithState: a depthwise causal 1-D convolution carrying its last k-1 inputs ---- */

static int causal_conv_f(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0), *w = xk_in(k, 1), *bias = xk_in(k, 2), *past = xk_in(k, 3);
	char act[16];

	if (!x || !w || x->rank != 3 || w->rank != 3)
		return xk_fail(k, "input (batch, channels, length) and weight (channels, 1, k) are required");
	int64_t B = x->dims[0], C = x->dims[1], L = x->dims[2], K = w->dims[2];
	if (w->dims[0] != C || w->dims[1] != 1 || K < 1)
		return xk_fail(k, "weight must be (%lld, 1, k >= 1)", (long long)C);
	if (w->dtype != x->dtype || (bias && (bias->dtype != x->dtype || bias->numel != C)))
		return xk_fail(k, "weight and bias must be of input's type, bias of %lld values", (long long)C);
	if (past && (past->dtype != x->dtype || past->rank != 3 || past->dims[0] != B || past->dims[1] != C ||
		     past->dims[2] != K - 1))
		return xk_fail(k, "past_state must be (%lld, %lld, %lld)", (long long)B, (long long)C, (long long)(K - 1));
	xk_attr_str(k, "activation", "none", act, sizeof act);
	int silu = !strcmp(act, "silu") || !strcmp(act, "swish");
	if (!silu && strcmp(act, "none"))
		return xk_fail(k, "activation '%s' is not none, silu or swish", act);
	int64_t sd[3] = {B, C, K - 1};
	int32_t dt = x->dtype;
	if (xk_output_raw(k, 0, dt, 3, x->dims) || (k->n_out > 1 && xk_output_raw(k, 1, dt, 3, sd)))
		return -1;
	/* padded[t] for t in [0, K-1+L): the past (or zeros), then the input */
#define PADDED(b, c, t)                                                                                          \
	((t) < K - 1 ? (past ? GETF(dt, past->data, ((b) * C + (c)) * (K - 1) + (t)) : 0.0)                       \
		     : GETF(dt, x->data, ((b) * C + (c)) * L + (t) - (K - 1)))
	for (int64_t b = 0; b < B; b++)
		for (int64_t c = 0; c < C; c++) {
			for (int64_t t = 0; t < L; t++) {
				double acc = bias ? GETF(dt, bias->data, c) : 0;
				for (int64_t j = 0; j < K; j++)
					acc += GETF(dt, w->data, c * K + j) * PADDED(b, c, t + j);
				if (silu)
					acc = acc / (1 + exp(-acc));
				SETF(dt, k->out[0]->data, (b * C + c) * L + t, acc);
			}
			for (int64_t t = 0; k->n_out > 1 && t < K - 1; t++)
				SETF(dt, k->out[1]->data, (b * C + c) * (K - 1) + t, PADDED(b, c, L + t));
		}
#undef PADDED
	return 0;
}

static int kernel_causal_conv(struct exec_kernel_ctx *k)
{
	return cpu_float_dispatch(k, causal_conv_f, 0, "CausalConvWithState");
}

/* ---- LinearAttention: a recurrent state (B, Hkv, dk, dv) updated token by token ---- */

struct la {
	int64_t B, T, Hq, Hkv, dk, dv, decay_n, beta_n;
	int gating, delta;
	double scale;
};

static int la_setup(struct exec_kernel_ctx *k, struct la *p)
{
	const struct xtensor *q = xk_in(k, 0), *kt = xk_in(k, 1), *v = xk_in(k, 2), *past = xk_in(k, 3),
			     *decay = xk_in(k, 4), *beta = xk_in(k, 5);
	char rule[16];

	memset(p, 0, sizeof *p);
	xk_attr_str(k, "update_rule", "gated_delta", rule, sizeof rule);
	p->gating = !strcmp(rule, "gated") || !strcmp(rule, "gated_delta");
	p->delta = !strcmp(rule, "delta") || !strcmp(rule, "gated_delta");
	if (!p->gating && !p->delta && strcmp(rule, "linear"))
		return xk_fail(k, "update_rule '%s' is not linear, gated, delta or gated_delta", rule);
	if (!q || !kt || !v || q->rank != 3 || kt->rank != 3 || v->rank != 3)
		return xk_fail(k, "query, key and value must be 3-D (B, T, H*D)");
	if (kt->dtype != q->dtype || v->dtype != q->dtype)
		return xk_fail(k, "query, key and value must be of one type");
	p->Hq = xk_attr_int(k, "q_num_heads", 0);
	p->Hkv = xk_attr_int(k, "kv_num_heads", 0);
	if (p->Hq <= 0 || p->Hkv <= 0 || p->Hq % p->Hkv)
		return xk_fail(k, "q_num_heads (%lld) must be a positive multiple of kv_num_heads (%lld)", (long long)p->Hq,
			       (long long)p->Hkv);
	p->B = q->dims[0];
	p->T = q->dims[1];
	if (q->dims[2] % p->Hq || v->dims[2] % p->Hkv)
		return xk_fail(k, "query's or value's hidden size is not a multiple of its head count");
	p->dk = q->dims[2] / p->Hq;
	p->dv = v->dims[2] / p->Hkv;
	if (kt->dims[0] != p->B || v->dims[0] != p->B || kt->dims[1] != p->T || v->dims[1] != p->T ||
	    kt->dims[2] != p->Hkv * p->dk)
		return xk_fail(k, "key must be (%lld, %lld, %lld) and value (%lld, %lld, H*dv)", (long long)p->B,
			       (long long)p->T, (long long)(p->Hkv * p->dk), (long long)p->B, (long long)p->T);
	if (p->gating != (decay != NULL))
		return xk_fail(k, "update_rule '%s' %s the decay input", rule, p->gating ? "needs" : "forbids");
	if (p->delta != (beta != NULL))
		return xk_fail(k, "update_rule '%s' %s the beta input", rule, p->delta ? "needs" : "forbids");
	if (decay) {
		p->decay_n = decay->rank == 3 ? decay->dims[2] : 0;
		if (decay->dtype != q->dtype || decay->rank != 3 || decay->dims[0] != p->B || decay->dims[1] != p->T ||
		    (p->decay_n != p->Hkv && p->decay_n != p->Hkv * p->dk))
			return xk_fail(k, "decay must be (%lld, %lld, %lld or %lld)", (long long)p->B, (long long)p->T,
				       (long long)p->Hkv, (long long)(p->Hkv * p->dk));
	}
	if (beta) {
		p->beta_n = beta->rank == 3 ? beta->dims[2] : 0;
		if (beta->dtype != q->dtype || beta->rank != 3 || beta->dims[0] != p->B || beta->dims[1] != p->T ||
		    (p->beta_n != p->Hkv && p->beta_n != 1))
			return xk_fail(k, "beta must be (%lld, %lld, %lld or 1)", (long long)p->B, (long long)p->T,
				       (long long)p->Hkv);
	}
	if (past && (past->rank != 4 || past->dims[0] != p->B || past->dims[1] != p->Hkv || past->dims[2] != p->dk ||
		     past->dims[3] != p->dv || (past->dtype != OV_DT_FLOAT && past->dtype != OV_DT_DOUBLE)))
		return xk_fail(k, "past_state must be (%lld, %lld, %lld, %lld)", (long long)p->B, (long long)p->Hkv,
			       (long long)p->dk, (long long)p->dv);
	float sc = xk_attr_float(k, "scale", 0);
	p->scale = sc != 0 ? sc : 1 / sqrt((double)p->dk);
	return 0;
}

static int linear_attention_f(struct exec_kernel_ctx *k)
{
	struct la p;

	if (la_setup(k, &p))
		return -1;
	const struct xtensor *q = k->in[0], *kt = k->in[1], *v = k->in[2], *past = xk_in(k, 3), *decay = xk_in(k, 4),
			     *beta = xk_in(k, 5);
	int32_t dt = q->dtype, sdt = past ? past->dtype : dt;
	int64_t od[3] = {p.B, p.T, p.Hq * p.dv}, sd[4] = {p.B, p.Hkv, p.dk, p.dv}, group = p.Hq / p.Hkv;
	if (xk_output_raw(k, 0, dt, 3, od) || (k->n_out > 1 && xk_output_raw(k, 1, sdt, 4, sd)))
		return -1;
	double *st = malloc((size_t)(p.dk * p.dv + p.dv + 1) * sizeof *st), *vt = st ? st + p.dk * p.dv : NULL;
	if (!st)
		return xk_fail(k, "out of memory");
	for (int64_t b = 0; b < p.B; b++)
		for (int64_t hk = 0; hk < p.Hkv; hk++) {
			int64_t so = (b * p.Hkv + hk) * p.dk * p.dv;
			for (int64_t i = 0; i < p.dk * p.dv; i++)
				st[i] = past ? GETF(sdt, past->data, so + i) : 0;
			for (int64_t t = 0; t < p.T; t++) {
				int64_t ko = (b * p.T + t) * p.Hkv * p.dk + hk * p.dk;
				int64_t vo = (b * p.T + t) * p.Hkv * p.dv + hk * p.dv;
				if (p.gating)
					for (int64_t d = 0; d < p.dk; d++) {
						int64_t di = (b * p.T + t) * p.decay_n + (p.decay_n == p.Hkv ? hk : hk * p.dk + d);
						double g = exp(GETF(dt, decay->data, di));
						for (int64_t m = 0; m < p.dv; m++)
							st[d * p.dv + m] *= g;
					}
				for (int64_t m = 0; m < p.dv; m++)
					vt[m] = GETF(dt, v->data, vo + m);
				if (p.delta) {
					double bt = GETF(dt, beta->data, (b * p.T + t) * p.beta_n + (p.beta_n == 1 ? 0 : hk));
					for (int64_t m = 0; m < p.dv; m++) {
						double r = 0;
						for (int64_t d = 0; d < p.dk; d++)
							r += st[d * p.dv + m] * GETF(dt, kt->data, ko + d);
						vt[m] = bt * (vt[m] - r);
					}
				}
				for (int64_t d = 0; d < p.dk; d++) {
					double kd = GETF(dt, kt->data, ko + d);
					for (int64_t m = 0; m < p.dv; m++)
						st[d * p.dv + m] += kd * vt[m];
				}
				for (int64_t h = hk * group; h < (hk + 1) * group; h++) {
					int64_t qo = (b * p.T + t) * p.Hq * p.dk + h * p.dk;
					for (int64_t m = 0; m < p.dv; m++) {
						double acc = 0;
						for (int64_t d = 0; d < p.dk; d++)
							acc += GETF(dt, q->data, qo + d) * st[d * p.dv + m];
						SETF(dt, k->out[0]->data, (b * p.T + t) * p.Hq * p.dv + h * p.dv + m, p.scale * acc);
					}
				}
			}
			for (int64_t i = 0; k->n_out > 1 && i < p.dk * p.dv; i++)
				SETF(sdt, k->out[1]->data, so + i, st[i]);
		}
	free(st);
	return 0;
}

static int kernel_linear_attention(struct exec_kernel_ctx *k)
{
	return cpu_float_dispatch(k, linear_attention_f, 0, "LinearAttention");
}

const struct exec_kernel cpu_transformer_kernels[] = {
	{.op = "RMSNormalization", .since = 23, .fn = kernel_rmsnorm},
	{.op = "RotaryEmbedding", .since = 23, .fn = kernel_rope},
	{.op = "TensorScatter", .since = 24, .fn = kernel_tensor_scatter},
	{.op = "CausalConvWithState", .since = 27, .fn = kernel_causal_conv},
	{.op = "LinearAttention", .since = 27, .fn = kernel_linear_attention},
	{.op = "SwiGLU", .since = 28, .fn = kernel_swiglu},
};
const size_t cpu_transformer_count = sizeof cpu_transformer_kernels / sizeof cpu_transformer_kernels[0];
