/* The CPU backend: the runner's table of operations over the CPU kernel tables (src/exec/cpu/registry.c). */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/base/dtype.h"
#include "src/model/describe.h"
#include "src/exec/cpu/cblas.h"
#include "src/exec/exec.h"
/* ---- the CPU backend ---- */

static int cpu_supports_op(const char *domain, const char *op, int64_t opset)
{
	return cpu_find_kernel(domain, op, opset) != NULL;
}

static int cpu_run_node(struct exec_kernel_ctx *k)
{
	const Onnx__NodeProto *n = k->g->nodes[k->node].proto;
	const char *op = n->op_type ? n->op_type : "";
	exec_kernel_fn fn = cpu_find_kernel(n->domain ? n->domain : "", op, k->opset);

	/* a sequence or optional goes only where the op takes one; Identity has a kernel of its own for them */
	for (size_t i = 0; fn && i < k->n_in; i++) {
		exec_kernel_fn cf;
		if (!k->in[i] || k->in[i]->kind == XT_TENSOR)
			continue;
		if (!cpu_takes_containers(op, i, &cf))
			return ov_fail(k->err, OV_INVALID, "input %zu '%s' is a %s: %s takes tensors there", i,
				       k->g->values[k->g->nodes[k->node].in[i]].name, xt_kind_name(k->in[i]->kind), op);
		if (cf)
			fn = cf;
	}
	if (!fn) {
		/* a node no kernel runs may call one of the model's local functions */
		const Onnx__FunctionProto *f = model_function(k->m, n->domain, op);
		if (f)
			return xk_run_function(k, f);
		if (k->g->nodes[k->node].n_sub)
			return ov_fail(k->err, OV_INVALID,
				       "%s holds subgraphs, which the executor does not run yet (If, Loop, Scan)", op);
		if (n->domain && *n->domain && strcmp(n->domain, "ai.onnx")) {
			char ops[200];
			if (cpu_domain_ops(n->domain, ops, sizeof ops))
				return ov_fail(k->err, OV_INVALID, "no CPU kernel for %s of domain %s (of that domain the "
					       "CPU runs %s)", op, n->domain, ops);
			return ov_fail(k->err, OV_INVALID, "no CPU kernel for %s of domain %s (the CPU runs no op of that "
				       "domain, only a model's local function of that name)", op, n->domain);
		}
		return ov_fail(k->err, OV_INVALID, "no CPU kernel for %s (opset %" PRId64 ")", op, k->opset);
	}
	/* CBLAS opened by this node's first product (src/exec/cpu/cblas.c): a cost of the process, not of the node
	 * (one opened before, for --version's line, is no node's) */
	const char *lib;
	(void)cpu_cblas_take_load_ms(&lib);
	int rc = fn(k);
	double ms = cpu_cblas_take_load_ms(&lib);
	if (ms >= 0) {
		xk_setup_ms(k, ms);
		xk_note(k, "opened the CBLAS library %s for its matrix products: %.1f ms, not counted in the times",
			lib ? lib : "(none found: a plain loop)", ms);
	}
	return rc;
}

static const char *cpu_describe(void)
{
	return "CPU (C kernels, CBLAS for matrix products)";
}

static const struct exec_backend_ops cpu_backend = {
	.name = "cpu",
	.supports_op = cpu_supports_op,
	.run_node = cpu_run_node,
	.describe = cpu_describe,
};

const struct exec_backend_ops *exec_backend_cpu(void)
{
	return &cpu_backend;
}
