/* The body of a local function as a graph (src/graph/function.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/error.h"
#include "src/graph/function.h"
#include "src/graph/graph.h"

static void *body_alloc(struct graph_body *b, size_t bytes)
{
	void **a = realloc(b->allocs, (b->n_allocs + 1) * sizeof *a);
	if (!a)
		return NULL;
	b->allocs = a;
	return a[b->n_allocs++] = calloc(1, bytes ? bytes : 1);
}

void graph_body_free(struct graph_body *b)
{
	for (size_t i = 0; i < b->n_allocs; i++)
		free(b->allocs[i]);
	free(b->allocs);
	b->allocs = NULL;
	b->n_allocs = 0;
}

static const Onnx__AttributeProto *call_attr(const Onnx__NodeProto *call, const char *name)
{
	for (size_t i = 0; i < call->n_attribute; i++)
		if (call->attribute[i]->name && !strcmp(call->attribute[i]->name, name))
			return call->attribute[i];
	return NULL;
}

static int name_is_absent(const char *name, char *const *absent, size_t n_absent)
{
	for (size_t i = 0; i < n_absent; i++)
		if (absent[i] && name && !strcmp(absent[i], name))
			return 1;
	return 0;
}

static Onnx__NodeProto *body_node(struct graph_body *b, const Onnx__NodeProto *src, const Onnx__NodeProto *call,
				  char *const *absent, size_t n_absent)
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
		if (!call || !a->ref_attr_name || !*a->ref_attr_name) {
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

static Onnx__ValueInfoProto **name_list(struct graph_body *b, char *const *names, size_t n)
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

int graph_body_make(struct graph_body *b, const Onnx__FunctionProto *f, const Onnx__NodeProto *call,
		    char *const *absent, size_t n_absent)
{
	char **given = NULL;
	size_t n_given = 0;

	memset(b, 0, sizeof *b);
	onnx__graph_proto__init(&b->g);
	b->g.name = f->name;
	b->g.n_node = f->n_node;
	b->g.node = body_alloc(b, f->n_node * sizeof *b->g.node);
	for (size_t i = 0; b->g.node && i < f->n_node; i++)
		if (!(b->g.node[i] = body_node(b, f->node[i], call, absent, n_absent))) {
			b->g.node = NULL;
			break;
		}
	given = body_alloc(b, (f->n_input + 1) * sizeof *given);
	for (size_t i = 0; given && i < f->n_input; i++)
		if (!name_is_absent(f->input[i], absent, n_absent))
			given[n_given++] = f->input[i];
	b->g.n_input = n_given;
	b->g.input = given ? name_list(b, given, n_given) : NULL;
	b->g.n_output = f->n_output;
	b->g.output = name_list(b, f->output, f->n_output);
	if (!b->g.node || !b->g.input || !b->g.output) {
		graph_body_free(b);
		return -1;
	}
	return 0;
}

int graph_call_body(const struct ov_model *m, const struct graph *g, uint32_t n, struct graph_body **body,
		    struct graph **out, char *name, size_t n_name, struct ov_error *err)
{
	const Onnx__NodeProto *call = n < g->n_nodes ? g->nodes[n].proto : NULL;
	const Onnx__FunctionProto *f = call ? model_function(m, call->domain, call->op_type) : NULL;
	char **absent;
	size_t n_absent = 0;

	*body = NULL;
	*out = NULL;
	if (!f)
		return 1;
	snprintf(name, n_name, "%s%s%s", f->domain && *f->domain ? f->domain : "", f->domain && *f->domain ? "::" : "",
		 f->name ? f->name : "");
	absent = calloc(f->n_input + 1, sizeof *absent);
	*body = calloc(1, sizeof **body);
	for (size_t i = 0; absent && i < f->n_input; i++)
		if (i >= call->n_input || !call->input[i] || !*call->input[i])
			absent[n_absent++] = f->input[i];
	if (!absent || !*body || graph_body_make(*body, f, call, absent, n_absent)) {
		free(absent);
		free(*body);
		*body = NULL;
		return ov_fail(err, OV_NOMEM, "out of memory");
	}
	free(absent);
	if (graph_build(out, &(*body)->g, err)) {
		graph_body_free(*body);
		free(*body);
		*body = NULL;
		return -1;
	}
	return 0;
}
