/* A Transpose next to a MatMul, offered to a device backend to run as one product (exec_mm_offer, exec.h).
 *
 * torch's exports of attention (nn.MultiheadAttention, scaled_dot_product_attention written out) move the heads
 * in front of the sequence for the products and back after them: Reshape [L, B*H, d], Transpose to [B*H, L, d]
 * (and to [B*H, d, L] for the keys), a batched MatMul, Transpose back.  On a device each Transpose is a pass over
 * the tensor; a product library reads and writes such strided matrices itself (a leading dimension and a batch
 * stride), so the Transpose costs nothing when the MatMul's kernel reads its input, or writes its output, through
 * the permutation.  The sums are the same; only where the elements lie changes.
 *
 * Offered only where nothing else is lost: the value between is read by the other node alone and watched by
 * nobody (run_sole_consumer), and for a Transpose before a MatMul, the MatMul's other operand is a float32 tensor
 * computed already (the runner runs nodes in order: the product runs in the Transpose's place). */
#include "config.h"

#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/runner.h"

static int is_op(const Onnx__NodeProto *p, const char *op)
{
	return p->op_type && !strcmp(p->op_type, op) && (!p->domain || !*p->domain || !strcmp(p->domain, "ai.onnx"));
}

/* The perm attribute of Transpose node t into o (n_perm -1 when absent); 0 when it cannot be one. */
static int perm_of(const Onnx__NodeProto *t, struct exec_mm_offer *o)
{
	const Onnx__AttributeProto *a = run_node_attr(t, "perm");

	o->n_perm = -1;
	if (!a)
		return 1;
	if (a->n_ints > XT_MAX_RANK)
		return 0;
	o->n_perm = (int)a->n_ints;
	memcpy(o->perm, a->ints, a->n_ints * sizeof *a->ints);
	return 1;
}

int mmperm_find(const struct graph *g, uint32_t n, const struct slot *slots, const uint8_t *is_from, int keep_all,
		struct exec_mm_offer *o)
{
	const struct graph_node *nd = &g->nodes[n];
	const Onnx__NodeProto *p = nd->proto;
	int transpose = is_op(p, "Transpose");

	memset(o, 0, sizeof *o);
	o->mm = o->after = -1;
	if ((!transpose && !is_op(p, "MatMul")) || p->n_output != 1 || nd->out[0] < 0 || is_from[nd->out[0]])
		return 0;
	int32_t mm = (int32_t)n;
	if (transpose) { /* into a MatMul whose other operand is at hand */
		int32_t c = run_sole_consumer(g, nd->out[0], -1, slots, is_from, keep_all);
		if (c < 0 || !is_op(g->nodes[c].proto, "MatMul") || g->nodes[c].proto->n_input != 2)
			return 0;
		const struct graph_node *cn = &g->nodes[c];
		o->side = cn->in[1] == nd->out[0];
		int32_t other = cn->in[1 - o->side];
		const struct xtensor *t = other < 0 ? NULL : slots[other].kept ? slots[other].kept : &slots[other].t;
		if (!t || !t->data || t->kind != XT_TENSOR || t->dtype != OV_DT_FLOAT)
			return 0;
		o->other = t;
		o->mm = mm = c;
	}
	/* the product's output into a Transpose */
	int32_t a = run_sole_consumer(g, g->nodes[mm].out[0], 0, slots, is_from, keep_all);
	if (a >= 0 && is_op(g->nodes[a].proto, "Transpose") && g->nodes[a].proto->n_input == 1 &&
	    perm_of(g->nodes[a].proto, o))
		o->after = a;
	return o->mm >= 0 || o->after >= 0;
}
