/* Attention's, RotaryEmbedding's and RMSNormalization's checks and geometry, shared by the CPU and CUDA kernels
 * (see ops/attention.h). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/ops/attention.h"

static int is_float(int32_t dt)
{
	return dt == OV_DT_FLOAT || dt == OV_DT_DOUBLE || dt == OV_DT_FLOAT16 || dt == OV_DT_BFLOAT16;
}

/* Strides of t broadcast (right-aligned) against dims[0..rank): 0 along dims t does not have or has as 1.  The
 * last dim is exempt when last_free (Attention's mask may have fewer keys).  -1 when t does not broadcast. */
static int bcast_strides(const struct xtensor *t, const int64_t *dims, int rank, int last_free, int64_t *str)
{
	int64_t s = 1;

	if (t->rank > rank)
		return -1;
	for (int i = rank - 1; i >= 0; i--) {
		int ti = i - (rank - t->rank);
		int64_t d = ti >= 0 ? t->dims[ti] : 1;
		if (d != 1 && d != dims[i] && !(last_free && i == rank - 1))
			return -1;
		str[i] = d == 1 && !(last_free && i == rank - 1) ? 0 : s;
		s *= d;
	}
	return 0;
}

/* ---- Attention ---- */

static int attn_heads(struct exec_kernel_ctx *k, const struct xtensor *q, const struct xtensor *kt,
		      const struct xtensor *v, struct attn_geom *p)
{
	if (p->rank3) {
		p->Hq = xk_attr_int(k, "q_num_heads", 0);
		p->Hkv = xk_attr_int(k, "kv_num_heads", 0);
		if (p->Hq <= 0 || p->Hkv <= 0)
			return xk_fail(k, "3-D Q, K and V need q_num_heads and kv_num_heads (positive)");
		if (q->dims[2] % p->Hq || kt->dims[2] % p->Hkv || v->dims[2] % p->Hkv)
			return xk_fail(k, "Q's hidden size %lld is not a multiple of q_num_heads %lld, or K's %lld or V's "
				       "%lld of kv_num_heads %lld", (long long)q->dims[2], (long long)p->Hq,
				       (long long)kt->dims[2], (long long)v->dims[2], (long long)p->Hkv);
		p->S = q->dims[1];
		p->L = kt->dims[1];
		p->Dk = q->dims[2] / p->Hq;
		p->Dv = v->dims[2] / p->Hkv;
		if (kt->dims[2] / p->Hkv != p->Dk)
			return xk_fail(k, "Q's head size %lld differs from K's %lld", (long long)p->Dk,
				       (long long)(kt->dims[2] / p->Hkv));
		if (v->dims[1] != p->L)
			return xk_fail(k, "K has %lld positions, V %lld", (long long)p->L, (long long)v->dims[1]);
		p->q_rs = p->Hq * p->Dk;
		p->k_rs = p->Hkv * p->Dk;
		p->v_rs = p->Hkv * p->Dv;
		p->y_rs = p->Hq * p->Dv;
	} else {
		p->Hq = q->dims[1];
		p->Hkv = kt->dims[1];
		p->S = q->dims[2];
		p->L = kt->dims[2];
		p->Dk = q->dims[3];
		p->Dv = v->dims[3];
		if (v->dims[1] != p->Hkv || v->dims[2] != p->L)
			return xk_fail(k, "K has %lld heads of %lld positions, V %lld of %lld", (long long)p->Hkv,
				       (long long)p->L, (long long)v->dims[1], (long long)v->dims[2]);
		if (kt->dims[3] != p->Dk)
			return xk_fail(k, "Q's head size %lld differs from K's %lld", (long long)p->Dk,
				       (long long)kt->dims[3]);
		p->q_rs = p->k_rs = p->Dk;
		p->v_rs = p->y_rs = p->Dv;
	}
	if (p->Hkv <= 0 || p->Hq % p->Hkv)
		return xk_fail(k, "%lld query heads cannot share %lld key/value heads evenly", (long long)p->Hq,
			       (long long)p->Hkv);
	return 0;
}

static int attn_past(struct exec_kernel_ctx *k, const struct xtensor *q, struct attn_geom *p)
{
	const struct xtensor *pk = xk_in(k, 4), *pv = xk_in(k, 5), *np = k->opset >= 24 ? xk_in(k, 6) : NULL;

	if (!pk != !pv)
		return xk_fail(k, "past_key and past_value come together");
	p->has_past = pk != NULL;
	if (pk) {
		if (pk->rank != 4 || pv->rank != 4 || pk->dtype != q->dtype || pv->dtype != q->dtype)
			return xk_fail(k, "past_key and past_value must be 4-D, of Q's type");
		if (pk->dims[0] != p->B || pk->dims[1] != p->Hkv || pk->dims[3] != p->Dk || pv->dims[0] != p->B ||
		    pv->dims[1] != p->Hkv || pv->dims[2] != pk->dims[2] || pv->dims[3] != p->Dv)
			return xk_fail(k, "past_key [%lld,%lld,%lld,%lld] or past_value does not fit (%lld, %lld, P, %lld|%lld)",
				       (long long)pk->dims[0], (long long)pk->dims[1], (long long)pk->dims[2],
				       (long long)pk->dims[3], (long long)p->B, (long long)p->Hkv, (long long)p->Dk,
				       (long long)p->Dv);
		p->P = pk->dims[2];
	}
	p->T = p->P + p->L;
	p->has_nonpad = np != NULL;
	if (np) {
		if (pk)
			return xk_fail(k, "nonpad_kv_seqlen cannot be combined with past_key and past_value");
		if (np->dtype != OV_DT_INT64 || np->rank != 1 || np->dims[0] != p->B)
			return xk_fail(k, "nonpad_kv_seqlen must be int64 [%lld]", (long long)p->B);
	}
	return 0;
}

static int attn_mask(struct exec_kernel_ctx *k, const struct xtensor *q, struct attn_geom *p)
{
	const struct xtensor *m = xk_in(k, 3);
	char d[64];

	p->mask_kind = OV_ATTN_MASK_NONE;
	if (!m)
		return 0;
	/* the mask's shape for a message, made only when there is one to give (every run checks it) */
	if (m->dtype == OV_DT_BOOL)
		p->mask_kind = OV_ATTN_MASK_BOOL;
	else if (m->dtype == q->dtype)
		p->mask_kind = q->dtype == OV_DT_DOUBLE ? OV_ATTN_MASK_F64 : OV_ATTN_MASK_F32;
	else {
		xt_describe(m, d, sizeof d);
		return xk_fail(k, "attn_mask %s must be bool or of Q's type", d);
	}
	if (m->rank < 1 || m->rank > 4) {
		xt_describe(m, d, sizeof d);
		return xk_fail(k, "attn_mask %s must have rank 1 to 4", d);
	}
	p->mask_n = m->dims[m->rank - 1];
	int64_t want[4] = {p->B, p->Hq, p->S, p->mask_n};
	if (p->mask_n > p->T || bcast_strides(m, want, 4, 1, p->mstr)) {
		xt_describe(m, d, sizeof d);
		return xk_fail(k, "attn_mask %s does not broadcast to (%lld, %lld, %lld, at most %lld keys)", d,
			       (long long)p->B, (long long)p->Hq, (long long)p->S, (long long)p->T);
	}
	return 0;
}

int ops_attention_setup(struct exec_kernel_ctx *k, struct attn_geom *p)
{
	const struct xtensor *q = xk_in(k, 0), *kt = xk_in(k, 1), *v = xk_in(k, 2);

	memset(p, 0, sizeof *p);
	if (!q || !kt || !v)
		return xk_fail(k, "Q, K and V are required");
	if (!is_float(q->dtype) || kt->dtype != q->dtype || v->dtype != q->dtype)
		return xk_fail(k, "Q, K and V must be of one float type (Q is %s, K %s, V %s)", dtype_short_name(q->dtype),
			       dtype_short_name(kt->dtype), dtype_short_name(v->dtype));
	if ((q->rank != 3 && q->rank != 4) || kt->rank != q->rank || v->rank != q->rank)
		return xk_fail(k, "Q, K and V must all be 3-D or all 4-D (ranks %d, %d, %d)", q->rank, kt->rank, v->rank);
	p->rank3 = q->rank == 3;
	p->B = q->dims[0];
	if (kt->dims[0] != p->B || v->dims[0] != p->B)
		return xk_fail(k, "Q, K and V have different batch sizes");
	if (attn_heads(k, q, kt, v, p) || attn_past(k, q, p) || attn_mask(k, q, p))
		return -1;
	p->causal = xk_attr_int(k, "is_causal", 0) != 0;
	p->left = p->right = -1;
	if (k->opset >= 25) {
		p->left = xk_attr_int(k, "left_window_size", -1);
		p->right = xk_attr_int(k, "right_window_size", -1);
		if (p->left < -1 || p->right < -1)
			return xk_fail(k, "left_window_size and right_window_size are -1 or more");
	}
	float sc = xk_attr_float(k, "scale", NAN);
	p->scale = sc == sc ? (double)sc : 1 / sqrt((double)p->Dk);
	p->softcap = xk_attr_float(k, "softcap", 0);
	p->mode = (int)xk_attr_int(k, "qk_matmul_output_mode", 0);
	if (p->mode < 0 || p->mode > 3)
		return xk_fail(k, "qk_matmul_output_mode %d is not 0, 1, 2 or 3", p->mode);
	p->softmax_type = (int32_t)xk_attr_int(k, "softmax_precision", 0);
	if (p->softmax_type && p->softmax_type != OV_DT_FLOAT && p->softmax_type != OV_DT_FLOAT16 &&
	    p->softmax_type != OV_DT_DOUBLE && p->softmax_type != OV_DT_BFLOAT16)
		return xk_fail(k, "softmax_precision %d is not 1, 10, 11 or 16", (int)p->softmax_type);
	attn_set_rounding(p, q->dtype);
	p->y_rank = q->rank;
	if (p->rank3) {
		p->y[0] = p->B, p->y[1] = p->S, p->y[2] = p->Hq * p->Dv;
	} else {
		p->y[0] = p->B, p->y[1] = p->Hq, p->y[2] = p->S, p->y[3] = p->Dv;
	}
	p->pk[0] = p->pv[0] = p->qk[0] = p->B;
	p->pk[1] = p->pv[1] = p->Hkv;
	p->pk[2] = p->pv[2] = p->T;
	p->pk[3] = p->Dk;
	p->pv[3] = p->Dv;
	p->qk[1] = p->Hq, p->qk[2] = p->S, p->qk[3] = p->T;
	return 0;
}

/* ---- RotaryEmbedding ---- */

int ops_rope_setup(struct exec_kernel_ctx *k, struct rope_geom *p)
{
	const struct xtensor *x = xk_in(k, 0), *c = xk_in(k, 1), *s = xk_in(k, 2), *pos = xk_in(k, 3);

	memset(p, 0, sizeof *p);
	if (!x || !c || !s)
		return xk_fail(k, "X, cos_cache and sin_cache are required");
	if (!is_float(x->dtype) || c->dtype != x->dtype || s->dtype != x->dtype)
		return xk_fail(k, "X, cos_cache and sin_cache must be of one float type");
	if (x->rank != 3 && x->rank != 4)
		return xk_fail(k, "X must be 3-D or 4-D, not rank %d", x->rank);
	if (c->rank != s->rank || memcmp(c->dims, s->dims, (size_t)c->rank * sizeof c->dims[0]))
		return xk_fail(k, "cos_cache and sin_cache have different shapes");
	p->rank3 = x->rank == 3;
	p->interleaved = xk_attr_int(k, "interleaved", 0) != 0;
	p->B = x->dims[0];
	int64_t half = c->rank ? c->dims[c->rank - 1] : 0;
	if (p->rank3) {
		p->S = x->dims[1];
		p->H = xk_attr_int(k, "num_heads", 0);
		if (p->H < 0)
			return xk_fail(k, "num_heads %lld is negative", (long long)p->H);
		if (!p->H) { /* head size from the caches: the whole head is rotated */
			if (half <= 0 || x->dims[2] % (2 * half))
				return xk_fail(k, "3-D X without num_heads: its hidden size %lld is no multiple of the caches' "
					       "2 x %lld", (long long)x->dims[2], (long long)half);
			p->H = x->dims[2] / (2 * half);
		}
		if (x->dims[2] % p->H)
			return xk_fail(k, "X's hidden size %lld is not a multiple of num_heads %lld", (long long)x->dims[2],
				       (long long)p->H);
		p->D = x->dims[2] / p->H;
	} else {
		p->H = x->dims[1];
		p->S = x->dims[2];
		p->D = x->dims[3];
	}
	p->rd = xk_attr_int(k, "rotary_embedding_dim", 0);
	if (p->rd == 0)
		p->rd = p->D;
	if (p->rd < 0 || p->rd > p->D || p->rd % 2)
		return xk_fail(k, "rotary_embedding_dim %lld must be even and at most the head size %lld", (long long)p->rd,
			       (long long)p->D);
	if (half != p->rd / 2)
		return xk_fail(k, "the caches' last dim %lld is not rotary_embedding_dim / 2 = %lld", (long long)half,
			       (long long)(p->rd / 2));
	p->has_pos = pos != NULL;
	if (pos) {
		if ((pos->dtype != OV_DT_INT64 && pos->dtype != OV_DT_INT32) || pos->rank != 2 || pos->dims[0] != p->B ||
		    pos->dims[1] != p->S)
			return xk_fail(k, "position_ids must be int64 [%lld, %lld]", (long long)p->B, (long long)p->S);
		if (c->rank != 2)
			return xk_fail(k, "with position_ids the caches are 2-D (max position, rd/2), not rank %d", c->rank);
		p->max_pos = c->dims[0];
	} else if (c->rank != 3 || c->dims[0] != p->B || c->dims[1] != p->S) {
		return xk_fail(k, "without position_ids the caches are (%lld, %lld, %lld)", (long long)p->B,
			       (long long)p->S, (long long)half);
	}
	return 0;
}

/* ---- RMSNormalization ---- */

int ops_rmsnorm_setup(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *s,
		      struct rms_geom *p)
{
	char d[64];

	memset(p, 0, sizeof *p);
	if (!x || !s)
		return xk_fail(k, "X and scale are required");
	if (!is_float(x->dtype) || s->dtype != x->dtype)
		return xk_fail(k, "X and scale must be of one float type");
	int64_t axis = xk_attr_int(k, "axis", -1), r = x->rank;
	if (axis < -r || axis > r - 1)
		return xk_fail(k, "axis %lld is out of range for rank %d", (long long)axis, x->rank);
	p->axis = (int)(axis < 0 ? axis + r : axis);
	if (bcast_strides(s, x->dims, x->rank, 0, p->sstr)) {
		xt_describe(s, d, sizeof d);
		return xk_fail(k, "scale %s does not broadcast to X", d);
	}
	int64_t st = xk_attr_int(k, "stash_type", OV_DT_FLOAT);
	if (st != OV_DT_FLOAT && st != OV_DT_DOUBLE)
		return xk_fail(k, "stash_type %lld is not 1 (float) or 11 (double)", (long long)st);
	p->outer = p->len = 1;
	p->simple = 1;
	for (int i = 0; i < x->rank; i++) {
		if (i < p->axis) {
			p->outer *= x->dims[i];
			if (p->sstr[i])
				p->simple = 0;
		} else {
			p->len *= x->dims[i];
		}
	}
	p->eps = xk_attr_float(k, "epsilon", 1e-5f);
	return 0;
}
