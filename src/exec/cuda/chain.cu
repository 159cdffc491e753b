// A chain of element-wise float32 nodes as one kernel (exec_chain_offer, found by the runner: src/exec/chain.c).
// Each element of x goes through the steps in order with cuda/points.h's cu_un_apply and cu_bin_apply, the
// functions the nodes' own kernels (cuda/elementwise.cu) call, a float32 between steps: the same bits as the
// nodes one by one, in one launch and one pass over memory instead of one per node.
#include "config.h"

#include <string.h>

#include "src/exec/cuda/backend.h"
#include "src/exec/cuda/points.h"

// The steps by value: kind (exec_chain_arg), op (cu_un_op or cu_bin_op), c (the scalar operand).
struct cu_chain {
	int n;
	unsigned char kind[EXEC_CHAIN_MAX], op[EXEC_CHAIN_MAX];
	float c[EXEC_CHAIN_MAX];
};

static __global__ void chain_kernel(struct cu_chain p, const float *x, float *y, int64_t n)
{
	CU_FOR(i, n)
	{
		const float x0 = x[i];
		float v = x0;
		for (int s = 0; s < p.n; s++)
			switch (p.kind[s]) {
			case EXEC_CHAIN_UNARY: v = cu_un_apply(p.op[s], v, 0.0f, 0.0f); break;
			case EXEC_CHAIN_C_RIGHT: v = cu_bin_apply(p.op[s], v, p.c[s]); break;
			case EXEC_CHAIN_C_LEFT: v = cu_bin_apply(p.op[s], p.c[s], v); break;
			case EXEC_CHAIN_X_RIGHT: v = cu_bin_apply(p.op[s], v, x0); break;
			default: v = cu_bin_apply(p.op[s], x0, v); break;
			}
		y[i] = v;
	}
}

// The op of a step as cu_un_apply or cu_bin_apply knows it, or -1.
static int step_op(const struct exec_chain_step *st)
{
	static const struct {
		const char *name;
		int op;
	} un[] = {{"Abs", CU_U_ABS},        {"Neg", CU_U_NEG},         {"Relu", CU_U_RELU},       {"Sqrt", CU_U_SQRT},
		  {"Reciprocal", CU_U_RECIPROCAL}, {"Exp", CU_U_EXP}, {"Log", CU_U_LOG},          {"Erf", CU_U_ERF},
		  {"Tanh", CU_U_TANH},      {"Sigmoid", CU_U_SIGMOID}, {"Softplus", CU_U_SOFTPLUS},
		  {"Softsign", CU_U_SOFTSIGN}, {"Floor", CU_U_FLOOR}, {"Ceil", CU_U_CEIL},        {"Sin", CU_U_SIN},
		  {"Cos", CU_U_COS}},
	  bin[] = {{"Add", CU_B_ADD}, {"Sub", CU_B_SUB}, {"Mul", CU_B_MUL}, {"Div", CU_B_DIV}};

	if (st->arg == EXEC_CHAIN_UNARY) {
		for (size_t i = 0; i < sizeof un / sizeof un[0]; i++)
			if (!strcmp(st->op, un[i].name))
				return un[i].op;
		return -1;
	}
	for (size_t i = 0; i < sizeof bin / sizeof bin[0]; i++)
		if (!strcmp(st->op, bin[i].name))
			return bin[i].op;
	return -1;
}

int cu_chain(struct exec_kernel_ctx *k)
{
	const struct exec_chain_offer *o = k->chain;
	const struct xtensor *x = o->x < k->n_in ? k->in[o->x] : NULL;
	struct cu_chain p;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || !x->data || x->kind != XT_TENSOR || x->dtype != OV_DT_FLOAT || o->n < 2 || o->n > EXEC_CHAIN_MAX)
		return EXEC_DECLINE;
	memset(&p, 0, sizeof p);
	p.n = o->n;
	for (int s = 0; s < o->n; s++) {
		int op = step_op(&o->step[s]);
		if (op < 0)
			return EXEC_DECLINE;
		p.kind[s] = (unsigned char)o->step[s].arg;
		p.op[s] = (unsigned char)op;
		p.c[s] = o->step[s].c;
	}
	if (xk_output_raw(k, 0, OV_DT_FLOAT, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	if (y->numel) {
		const void *dx = cu_input(k, &bufs, o->x);
		void *dy = dx ? cu_alloc(k, &bufs, y->bytes) : NULL;
		if (!dy || CU_LAUNCH(k, chain_kernel, cu_grid(y->numel), CU_BLOCK, p, (const float *)dx, (float *)dy,
				     y->numel) ||
		    cu_output(k, &bufs, 0, dy))
			goto out;
	}
	k->chain_done = 1;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}
