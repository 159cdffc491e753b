/* Shape rules for the transformer-era ops: Attention (Y, present_key, present_value, qk_matmul_output),
 * CausalConvWithState and LinearAttention (output and carried state).  RMSNormalization, RotaryEmbedding, SwiGLU
 * and TensorScatter keep their first input's shape (rule_same). */
#include "config.h"

#include <string.h>

#include "src/base/dtype.h"
#include "src/graph/shape-rules.h"

static int32_t dtype0(const struct infer_ctx *c)
{
	const struct vshape *v = in_shape(c, 0);
	return v ? v->dtype : 0;
}

/* a * b, or a / b when div, known only when both are numbers (and b divides a) */
static struct dim dim_op(struct dim a, struct dim b, int div)
{
	if (a.sym || b.sym || !dim_known(a) || !dim_known(b))
		return dim_unknown();
	if (div)
		return b.v > 0 && a.v % b.v == 0 ? dim_num(a.v / b.v) : dim_unknown();
	return dim_num(a.v * b.v);
}

static struct dim dim_sum(struct dim a, struct dim b)
{
	if (a.sym || b.sym || !dim_known(a) || !dim_known(b))
		return dim_unknown();
	return dim_num(a.v + b.v);
}

/* Q, K, V 4-D (B, H, S, D) or 3-D (B, S, H*D) with q_num_heads and kv_num_heads; the keys attended are the past
 * ones and the new. */
int rule_attention(struct infer_ctx *c)
{
	const struct vshape *q = in_shape(c, 0), *k = in_shape(c, 1), *v = in_shape(c, 2), *pk = in_shape(c, 4);
	int32_t dt = dtype0(c);
	struct dim y[4], pres_k[4], pres_v[4], qk[4];

	if (!q || !k || !v || q->rank < 0 || k->rank != q->rank || v->rank != q->rank || (q->rank != 3 && q->rank != 4)) {
		for (size_t o = 0; o < 4; o++)
			set_out(c, o, dt, o ? 4 : -1, NULL);
		return q && q->rank >= 0 && q->rank != 3 && q->rank != 4 ? infer_note(c, "Q, K and V must be 3-D or 4-D")
									: 0;
	}
	struct dim B = q->dims[0], S, L, Hq, Hkv, Dk, Dv;
	if (q->rank == 4) {
		Hq = q->dims[1], S = q->dims[2], Hkv = k->dims[1], L = k->dims[2], Dk = k->dims[3], Dv = v->dims[3];
		memcpy(y, q->dims, 3 * sizeof y[0]);
		y[3] = Dv;
	} else {
		int64_t hq = attr_int(c, "q_num_heads", 0), hkv = attr_int(c, "kv_num_heads", 0);
		if (hq <= 0 || hkv <= 0)
			return infer_note(c, "3-D Attention needs q_num_heads and kv_num_heads");
		Hq = dim_num(hq), Hkv = dim_num(hkv), S = q->dims[1], L = k->dims[1];
		Dk = dim_op(k->dims[2], Hkv, 1), Dv = dim_op(v->dims[2], Hkv, 1);
		y[0] = B, y[1] = S, y[2] = dim_op(Hq, Dv, 0);
	}
	struct dim T = pk && pk->rank == 4 ? dim_sum(pk->dims[2], L) : pk ? dim_unknown() : L;
	pres_k[0] = pres_v[0] = qk[0] = B;
	pres_k[1] = pres_v[1] = Hkv;
	pres_k[2] = pres_v[2] = qk[3] = T;
	pres_k[3] = Dk, pres_v[3] = Dv;
	qk[1] = Hq, qk[2] = S;
	set_out(c, 0, dt, q->rank, y);
	set_out(c, 1, dt, 4, pres_k);
	set_out(c, 2, dt, 4, pres_v);
	set_out(c, 3, dt, 4, qk);
	return 0;
}

/* output like input (B, C, L); present_state (B, C, k - 1) from weight (C, 1, k). */
int rule_causal_conv_state(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0), *w = in_shape(c, 1);
	struct dim st[3];

	set_out_like(c, 0, x, dtype0(c));
	if (!x || x->rank != 3 || !w || w->rank != 3) {
		set_out(c, 1, dtype0(c), 3, NULL);
		return 0;
	}
	st[0] = x->dims[0], st[1] = x->dims[1];
	st[2] = dim_known(w->dims[2]) && !w->dims[2].sym ? dim_num(w->dims[2].v - 1) : dim_unknown();
	set_out(c, 1, dtype0(c), 3, st);
	return 0;
}

/* output (B, T, Hq * dv), present_state (B, Hkv, dk, dv), dk = query's hidden size / Hq, dv = value's / Hkv. */
int rule_linear_attention(struct infer_ctx *c)
{
	const struct vshape *q = in_shape(c, 0), *v = in_shape(c, 2), *past = in_shape(c, 3);
	int64_t hq = attr_int(c, "q_num_heads", 0), hkv = attr_int(c, "kv_num_heads", 0);
	struct dim o[3], st[4];

	if (!q || q->rank != 3 || !v || v->rank != 3 || hq <= 0 || hkv <= 0) {
		set_out(c, 0, dtype0(c), 3, NULL);
		set_out(c, 1, past ? past->dtype : dtype0(c), 4, NULL);
		return 0;
	}
	struct dim dv = dim_op(v->dims[2], dim_num(hkv), 1);
	o[0] = q->dims[0], o[1] = q->dims[1], o[2] = dim_op(dim_num(hq), dv, 0);
	st[0] = q->dims[0], st[1] = dim_num(hkv), st[2] = dim_op(q->dims[2], dim_num(hq), 1), st[3] = dv;
	set_out(c, 0, dtype0(c), 3, o);
	set_out(c, 1, past ? past->dtype : dtype0(c), 4, st);
	return 0;
}
