/* Local functions (FunctionProto, as torch's dynamo exporter writes them): a node that calls one runs the
 * function's body as a subgraph on the CPU, the call's attributes substituted where the body refers to them
 * (ref_attr_name), the inputs the call leaves out left out of the body too.  The call stays one node of the run:
 * its outputs are what compare and the per-node report see, as for If or Loop. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/exec/exec.h"

/* How deep calls may nest.  A function that calls itself (directly or through others) is refused when it is
 * called again; without that a chain of distinct functions is no longer than the model's list of them. */
#define MAX_DEPTH 64

const Onnx__FunctionProto *exec_find_function(const struct ov_model *m, const char *domain, const char *op)
{
	return model_function(m, domain, op);
}

/* The body as a graph: shallow copies of its nodes (attributes resolved, absent inputs blanked) and name-only
 * inputs and outputs; everything lives in one allocation list freed by body_free. */
struct body {
	Onnx__GraphProto g;
	void **allocs;
	size_t n_allocs;
};

static void *body_alloc(struct body *b, size_t bytes)
{
	void **a = realloc(b->allocs, (b->n_allocs + 1) * sizeof *a);
	if (!a)
		return NULL;
	b->allocs = a;
	return a[b->n_allocs++] = calloc(1, bytes ? bytes : 1);
}

static void body_free(struct body *b)
{
	for (size_t i = 0; i < b->n_allocs; i++)
		free(b->allocs[i]);
	free(b->allocs);
}

static const Onnx__AttributeProto *call_attr(const Onnx__NodeProto *call, const char *name)
{
	for (size_t i = 0; i < call->n_attribute; i++)
		if (call->attribute[i]->name && !strcmp(call->attribute[i]->name, name))
			return call->attribute[i];
	return NULL;
}

static int name_is_absent(const char *name, char **absent, size_t n_absent)
{
	for (size_t i = 0; i < n_absent; i++)
		if (absent[i] && name && !strcmp(absent[i], name))
			return 1;
	return 0;
}

static Onnx__NodeProto *body_node(struct body *b, const Onnx__NodeProto *src, const Onnx__NodeProto *call,
				  char **absent, size_t n_absent)
{
	Onnx__NodeProto *n = body_alloc(b, sizeof *n);
	Onnx__AttributeProto **attrs = body_alloc(b, src->n_attribute * sizeof *attrs);
	char **ins = body_alloc(b, src->n_input * sizeof *ins);

	if (!n || !attrs || !ins)
		return NULL;
	*n = *src;
	n->attribute = attrs;
	n->n_attribute = 0;
	for (size_t i = 0; i < src->n_attribute; i++) {
		const Onnx__AttributeProto *a = src->attribute[i];
		if (!a->ref_attr_name || !*a->ref_attr_name) {
			attrs[n->n_attribute++] = (Onnx__AttributeProto *)a;
			continue;
		}
		const Onnx__AttributeProto *given = call_attr(call, a->ref_attr_name);
		if (!given)
			continue; /* the call does not set it: the op's default */
		Onnx__AttributeProto *c = body_alloc(b, sizeof *c);
		if (!c)
			return NULL;
		*c = *given;
		c->name = a->name;
		attrs[n->n_attribute++] = c;
	}
	n->input = ins;
	for (size_t i = 0; i < src->n_input; i++)
		ins[i] = name_is_absent(src->input[i], absent, n_absent) ? (char *)"" : src->input[i];
	return n;
}

static Onnx__ValueInfoProto **name_list(struct body *b, char **names, size_t n)
{
	Onnx__ValueInfoProto **v = body_alloc(b, n * sizeof *v);

	for (size_t i = 0; v && i < n; i++) {
		Onnx__ValueInfoProto *one = body_alloc(b, sizeof *one);
		if (!one)
			return NULL;
		onnx__value_info_proto__init(one);
		one->name = names[i];
		v[i] = one;
	}
	return v;
}

int xk_run_function(struct exec_kernel_ctx *k, const Onnx__FunctionProto *f)
{
	static const Onnx__FunctionProto *running[MAX_DEPTH]; /* the calls in progress, outermost first */
	static int depth;
	const Onnx__NodeProto *call = k->g->nodes[k->node].proto;
	struct body b = {0};
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
	onnx__graph_proto__init(&b.g);
	b.g.name = f->name;
	b.g.n_node = f->n_node;
	b.g.node = body_alloc(&b, f->n_node * sizeof *b.g.node);
	for (size_t i = 0; b.g.node && i < f->n_node; i++)
		if (!(b.g.node[i] = body_node(&b, f->node[i], call, absent, n_absent))) {
			b.g.node = NULL;
			break;
		}
	b.g.n_input = n_given;
	b.g.input = name_list(&b, given, n_given);
	b.g.n_output = f->n_output;
	b.g.output = name_list(&b, f->output, f->n_output);
	if (!b.g.node || !b.g.input || !b.g.output) {
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
	body_free(&b);
	free(ins);
	free(given);
	free(absent);
	free(outs);
	return rc;
}
