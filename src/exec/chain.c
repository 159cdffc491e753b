/* Chains of element-wise float32 nodes, offered to a device backend to run as one pass (exec_chain_offer, exec.h).
 *
 * Exports write many activations out as nodes: exact GELU is Div(x, sqrt 2), Erf, Add 1, Mul x, Mul 0.5; SiLU is
 * Sigmoid and Mul x; a scale is a Mul or a Div by a constant.  On a device each node is a launch and a pass over
 * the tensor; as one kernel the steps cost one of each, and every element still goes through the same operations
 * in the same order, a float32 between steps, so the bits are the nodes'.  A chain starts at a node whose input x
 * is a float32 tensor, and grows while the value so far goes to one node only (run_sole_consumer: not watched,
 * not an output) that is one of the ops below with that value as an operand and, for a binary op, a float32
 * scalar constant (numel 1, rank no more than the value's, so the shape stays) or x itself as the other. */
#include "config.h"

#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/runner.h"

/* The unary ops a chain takes: no attributes, float32 in and out (cuda/points.h's cu_un_apply has each). */
static int chain_unary(const char *op)
{
	static const char *const ops[] = {"Abs", "Neg", "Relu", "Sqrt", "Reciprocal", "Exp", "Log", "Erf", "Tanh",
					  "Sigmoid", "Softplus", "Softsign", "Floor", "Ceil", "Sin", "Cos"};
	return RUN_OP_IN(op, ops);
}

static int chain_binary(const char *op)
{
	return !strcmp(op, "Add") || !strcmp(op, "Sub") || !strcmp(op, "Mul") || !strcmp(op, "Div");
}

/* Value id as a float32 scalar constant on the host that keeps a value of rank rank its shape: 1 with *c, else 0.
 * A constant (xk_constant's rule; a value kept because it depends on shapes alone is one while they stay): the
 * kernel takes c by value, and a run recorded as a graph replays it so; an input's value may change. */
static int host_scalar(const struct slot *slots, int32_t id, int rank, float *c)
{
	if (id < 0 || !slots[id].constant)
		return 0;
	const struct xtensor *t = slots[id].kept ? slots[id].kept : &slots[id].t;
	if (!t->data || t->host_stale || t->kind != XT_TENSOR || t->dtype != OV_DT_FLOAT || t->numel != 1 ||
	    t->rank > rank)
		return 0;
	*c = *(const float *)t->data;
	return 1;
}

/* Node c as a step of the chain whose value so far is v and whose input is x: 1 with st filled, else 0. */
static int chain_step(const struct graph *g, uint32_t c, int32_t v, int32_t x, int rank, const struct slot *slots,
		      struct exec_chain_step *st)
{
	const struct graph_node *cn = &g->nodes[c];
	const Onnx__NodeProto *p = cn->proto;
	const char *op = p->op_type ? p->op_type : "";

	if (p->n_attribute)
		return 0;
	*st = (struct exec_chain_step){.op = op, .node = c};
	if (chain_unary(op))
		return p->n_input == 1 && cn->in[0] == v;
	if (!chain_binary(op) || p->n_input != 2 || cn->in[0] == cn->in[1])
		return 0;
	int right = cn->in[0] == v; /* the value so far on the left, the other operand on the right */
	int32_t other = cn->in[right ? 1 : 0];
	if (!right && cn->in[1] != v)
		return 0;
	if (other == x) {
		st->arg = right ? EXEC_CHAIN_X_RIGHT : EXEC_CHAIN_X_LEFT;
		return 1;
	}
	st->arg = right ? EXEC_CHAIN_C_RIGHT : EXEC_CHAIN_C_LEFT;
	return host_scalar(slots, other, rank, &st->c);
}

int chain_find(const struct graph *g, uint32_t n, const struct slot *slots, const uint8_t *is_from, int keep_all,
	       struct exec_chain_offer *o)
{
	const struct graph_node *nd = &g->nodes[n];
	const Onnx__NodeProto *p = nd->proto;

	if ((p->domain && *p->domain && strcmp(p->domain, "ai.onnx")) || p->n_output != 1 || nd->out[0] < 0 ||
	    is_from[nd->out[0]] || p->n_input < 1)
		return 0;
	/* x: the first node's input that is not a scalar operand (for a binary op, the one that is a float32 tensor
	 * where the other is a scalar on the host) */
	memset(o, 0, sizeof *o);
	int32_t x = -1;
	for (size_t i = 0; i < p->n_input && i < 2 && x < 0; i++) {
		int32_t id = nd->in[i];
		const struct xtensor *t = id >= 0 ? (slots[id].kept ? slots[id].kept : &slots[id].t) : NULL;
		float c;
		if (!t || !t->data || t->kind != XT_TENSOR || t->dtype != OV_DT_FLOAT || !t->numel ||
		    (p->n_input == 2 && !host_scalar(slots, nd->in[1 - i], t->rank, &c)))
			continue;
		x = id;
		o->x = i;
	}
	if (x < 0)
		return 0;
	int rank = slots[x].kept ? slots[x].kept->rank : slots[x].t.rank;
	/* the first step: as chain_step takes it, with x the value so far */
	if (!chain_step(g, n, x, -2, rank, slots, &o->step[0]))
		return 0;
	o->n = 1;
	for (int32_t v = nd->out[0]; o->n < EXEC_CHAIN_MAX;) {
		int32_t c = run_sole_consumer(g, v, -1, slots, is_from, keep_all);
		if (c < 0 || !chain_step(g, (uint32_t)c, v, x, rank, slots, &o->step[o->n]))
			break;
		v = g->nodes[c].out[0];
		o->n++;
	}
	return o->n >= 2;
}
