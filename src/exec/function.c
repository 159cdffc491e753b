/* Local functions (FunctionProto, as torch's dynamo exporter writes them): a node that calls one runs the
 * function's body as a subgraph on the CPU, the call's attributes substituted where the body refers to them
 * (ref_attr_name), the inputs the call leaves out left out of the body too.  The call stays one node of the run:
 * its outputs are what compare and the per-node report see, as for If or Loop. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/exec/exec.h"
#include "src/graph/function.h"

/* How deep calls may nest.  A function that calls itself (directly or through others) is refused when it is
 * called again; without that a chain of distinct functions is no longer than the model's list of them. */
#define MAX_DEPTH 64

int xk_run_function(struct exec_kernel_ctx *k, const Onnx__FunctionProto *f)
{
	static const Onnx__FunctionProto *running[MAX_DEPTH]; /* the calls in progress, outermost first */
	static int depth;
	const Onnx__NodeProto *call = k->g->nodes[k->node].proto;
	struct graph_body b = {0};
	struct graph *sub = NULL;
	const struct xtensor **ins = calloc(f->n_input + 1, sizeof *ins);
	char **given = calloc(f->n_input + 1, sizeof *given), **absent = calloc(f->n_input + 1, sizeof *absent);
	struct xtensor *outs = calloc(f->n_output + 1, sizeof *outs);
	size_t n_given = 0, n_absent = 0;
	int rc = -1;

	if (!ins || !given || !absent || !outs) {
		xk_fail(k, "out of memory");
		goto out;
	}
	for (int d = 0; d < depth; d++)
		if (running[d] == f) {
			xk_fail(k, "local function '%s' calls itself: its body would never end", f->name);
			goto out;
		}
	if (depth >= MAX_DEPTH) {
		xk_fail(k, "local function calls nest deeper than %d", MAX_DEPTH);
		goto out;
	}
	if (k->n_in > f->n_input || k->n_out > f->n_output) {
		xk_fail(k, "the call has %zu inputs and %zu outputs; local function '%s' takes %zu and gives %zu", k->n_in,
			k->n_out, f->name, f->n_input, f->n_output);
		goto out;
	}
	for (size_t i = 0; i < f->n_input; i++) {
		if (i < k->n_in && k->in[i]) {
			ins[n_given] = k->in[i];
			given[n_given++] = f->input[i];
		} else {
			absent[n_absent++] = f->input[i];
		}
	}
	if (graph_body_make(&b, f, call, absent, n_absent)) {
		xk_fail(k, "out of memory");
		goto out;
	}
	if (graph_build(&sub, &b.g, k->err))
		goto out;
	running[depth++] = f;
	int r = xk_run_subgraph(k, sub, ins, n_given, outs);
	depth--;
	if (r)
		goto out;
	for (size_t i = 0; i < f->n_output; i++) {
		if (i < k->n_out && k->out[i]) {
			xt_free(k->out[i]);
			*k->out[i] = outs[i];
		} else {
			xt_free(&outs[i]);
		}
	}
	rc = 0;
out:
	graph_free(sub);
	graph_body_free(&b);
	free(ins);
	free(given);
	free(absent);
	free(outs);
	return rc;
}
