/* The backend-neutral setups of the transformer ops: Attention (opset 23 on), RotaryEmbedding and
 * RMSNormalization (opset 23), each op's checks of its inputs and attributes and the geometry it computes from
 * them, once for the CPU kernels (src/exec/cpu/attention.c, cpu/transformer.c) and the CUDA kernels
 * (src/exec/cuda/attention.cu), so both refuse the same nodes with the same words and agree on every size.  The
 * element arithmetic is in ops/ov-attn.h.  Defined in src/exec/ops/attention.c. */
#ifndef OV_EXEC_OPS_ATTENTION_H
#define OV_EXEC_OPS_ATTENTION_H

#include <stdint.h>

#include "src/exec/exec.h"
#include "src/exec/ops/ops.h"
#include "src/exec/ops/ov-attn.h"

/* Attention's geometry.  Q is (B, Hq, S, Dk) or, 3-D, (B, S, Hq*Dk) (q_num_heads and kv_num_heads say the head
 * counts); K (B, Hkv, L, Dk) or (B, L, Hkv*Dk); V likewise with Dv.  The keys attended are the past ones (P, from
 * past_key/past_value) followed by the new (L): T = P + L, the length of present_key/present_value (always 4-D:
 * (B, Hkv, T, Dk|Dv)).  Query head h reads key/value head h / (Hq / Hkv) (grouped-query attention). */
struct attn_geom {
	int rank3;                      /* Q, K, V are 3-D */
	int64_t B, Hq, Hkv, S, L, P, T, Dk, Dv;
	int64_t q_rs, k_rs, v_rs, y_rs; /* element step between rows (sequence positions) of one head in Q, K, V, Y */
	/* the mask: none, bool, or a float mask of Q's type; strides against (B, Hq, S, key) (0: broadcast), and its
	 * own key count (at most T; the keys after it are masked) */
	int mask_kind;                  /* enum ov_attn_mask_kind as the CPU reads it (float: F32 or F64 by Q's type) */
	int64_t mstr[4], mask_n;
	int causal;
	int64_t left, right;            /* window bounds (opset 25), -1 when unbounded */
	int has_past, has_nonpad;
	double scale, softcap;
	int mode;                       /* qk_matmul_output_mode 0..3 */
	int32_t softmax_type;           /* softmax_precision, 0 when absent */
	int rnd, rsm;                   /* the reference's roundings (ov-attn.h; attn_set_rounding) */
	int y_rank;
	int64_t y[4], pk[4], pv[4], qk[4]; /* the outputs' dims */
};

/* Reads and checks Q (input 0), K, V, attn_mask, past_key, past_value and (opset 24 on) nonpad_kv_seqlen's shape,
 * and the attributes.  Returns 0, or -1 through xk_fail with the reason. */
int ops_attention_setup(struct exec_kernel_ctx *k, struct attn_geom *p);

/* The reference computes in Q's type: for float16 and bfloat16 (half), the kernels round where it rounds (the
 * scaled Q and K, the scores, the softmax in softmax_precision's type when that is a half type too). */
static inline void attn_set_rounding(struct attn_geom *p, int32_t half)
{
	p->rnd = half == OV_DT_FLOAT16 || half == OV_DT_BFLOAT16 ? half : 0;
	p->rsm = !p->softmax_type ? p->rnd
		 : p->softmax_type == OV_DT_FLOAT16 || p->softmax_type == OV_DT_BFLOAT16 ? p->softmax_type : 0;
}

/* Element offsets of head h's first row in Q, of kv head hk's new keys/values in K and V, and of head h's first
 * row in Y, for batch b. */
static inline OV_HD int64_t attn_q_off(const struct attn_geom *p, int64_t b, int64_t h)
{
	return p->rank3 ? b * p->S * p->Hq * p->Dk + h * p->Dk : (b * p->Hq + h) * p->S * p->Dk;
}
static inline OV_HD int64_t attn_k_off(const struct attn_geom *p, int64_t b, int64_t hk)
{
	return p->rank3 ? b * p->L * p->Hkv * p->Dk + hk * p->Dk : (b * p->Hkv + hk) * p->L * p->Dk;
}
static inline OV_HD int64_t attn_v_off(const struct attn_geom *p, int64_t b, int64_t hk)
{
	return p->rank3 ? b * p->L * p->Hkv * p->Dv + hk * p->Dv : (b * p->Hkv + hk) * p->L * p->Dv;
}
static inline OV_HD int64_t attn_y_off(const struct attn_geom *p, int64_t b, int64_t h)
{
	return p->rank3 ? b * p->S * p->Hq * p->Dv + h * p->Dv : (b * p->Hq + h) * p->S * p->Dv;
}

/* Query row i of head h in batch b: its view of the bias (ov-attn.h), mask being the mask's elements as the
 * backend holds them (NULL without a mask) and nonpad the batch's nonpad_kv_seqlen (-1 without).  The CUDA
 * kernels call it on the device. */
static inline OV_HD void attn_row_setup(const struct attn_geom *p, const void *mask, int64_t b, int64_t h, int64_t i,
					int64_t nonpad, struct ov_attn_row *r)
{
	r->mask = mask;
	r->mask_kind = mask ? p->mask_kind : OV_ATTN_MASK_NONE;
	r->mask_off = b * p->mstr[0] + h * p->mstr[1] + i * p->mstr[2];
	r->mask_n = p->mask_n;
	r->mask_js = p->mstr[3];
	r->causal = p->causal;
	r->offset = p->has_past ? p->P : nonpad >= 0 ? nonpad - p->S : 0;
	r->left = p->left;
	r->right = p->right;
	r->nonpad = nonpad;
	r->softcap = p->softcap;
	r->rnd = p->rnd;
	r->rsm = p->rsm;
}

/* RotaryEmbedding's geometry: X is (B, H, S, D) or, 3-D, (B, S, H*D); the rows are the (b, s, h) head vectors, of
 * d elements, the first rd of them rotated; cos_cache/sin_cache are (B, S, rd/2), or, with position_ids (B, S),
 * (max position, rd/2) indexed by the positions. */
struct rope_geom {
	int rank3, interleaved, has_pos;
	int64_t B, H, S, D, rd, max_pos;
};
/* Returns 0, or -1 through xk_fail with the reason (position_ids' values are checked by the kernels). */
int ops_rope_setup(struct exec_kernel_ctx *k, struct rope_geom *p);
/* Offset of row (b, s, h) in X and Y. */
static inline OV_HD int64_t rope_row_off(const struct rope_geom *p, int64_t b, int64_t s, int64_t h)
{
	return p->rank3 ? ((b * p->S + s) * p->H + h) * p->D : ((b * p->H + h) * p->S + s) * p->D;
}

/* RMSNormalization's geometry: rows of len values (the dims from axis on), outer of them; the scale's strides
 * broadcast (right-aligned) against X. */
struct rms_geom {
	int axis;
	int64_t outer, len;
	int64_t sstr[XT_MAX_RANK];
	int simple;                     /* the scale repeats per row: element j of a row has scale offset tab[j] */
	double eps;
};
/* Returns 0, or -1 through xk_fail with the reason. */
int ops_rmsnorm_setup(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *s,
		      struct rms_geom *p);

#endif
