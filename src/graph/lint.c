/* Dangling references: node inputs and graph outputs that name values nothing defines. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "src/graph/lint.h"
#include "src/base/strbuf.h"
#include "src/model/describe.h"
#include "src/base/strmap.h"

struct lint {
	lint_report_fn report;
	void *ctx;
	long count;
	int oom;
};

static void say(struct lint *l, struct strbuf *b)
{
	l->count++;
	l->report(strbuf_str(b), l->ctx);
	strbuf_reset(b);
}

/* The names of one graph, linked to those of the graphs around it: a subgraph sees everything outside it. The
 * chain is looked up level by level rather than copied into each subgraph's map, which made nested models
 * quadratic (every node with a subgraph copied all visible names). */
struct scope {
	const struct strmap *names;
	const struct scope *outer;
};

static int scope_has(const struct scope *s, const char *name)
{
	for (; s; s = s->outer)
		if (strmap_has(s->names, name))
			return 1;
	return 0;
}

/* outer holds every name visible from enclosing graphs (NULL for the main graph). */
static void lint_graph(struct lint *l, const Onnx__GraphProto *g, const struct scope *outer, const char *where)
{
	struct strmap local = {0};
	struct scope here = {&local, outer};
	struct strbuf b = {0};

	if (l->oom)
		return;
	for (size_t i = 0; i < g->n_input; i++)
		if (g->input[i]->name && strmap_add(&local, g->input[i]->name, NULL))
			l->oom = 1;
	for (size_t i = 0; i < g->n_initializer; i++)
		if (g->initializer[i]->name && strmap_add(&local, g->initializer[i]->name, NULL))
			l->oom = 1;
	for (size_t i = 0; i < g->n_sparse_initializer; i++) {
		const Onnx__SparseTensorProto *sp = g->sparse_initializer[i];
		if (sp->values && sp->values->name && strmap_add(&local, sp->values->name, NULL))
			l->oom = 1;
	}
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0; k < g->node[i]->n_output; k++)
			if (strmap_add(&local, g->node[i]->output[k], NULL))
				l->oom = 1;
	for (size_t i = 0; i < g->n_node && !l->oom; i++) {
		const Onnx__NodeProto *n = g->node[i];
		for (size_t k = 0; k < n->n_input; k++) {
			const char *in = n->input[k];
			if (!*in || scope_has(&here, in))
				continue;
			strbuf_printf(&b, "%snode #%zu '", where, i);
			describe_name(&b, n->name);
			strbuf_puts(&b, "' (");
			describe_name(&b, n->op_type);
			strbuf_printf(&b, ") input %zu '", k);
			describe_name(&b, in);
			strbuf_puts(&b, "' is not a graph input, initializer or node output");
			say(l, &b);
		}
		/* Subgraphs see this graph's names and everything outside it. */
		char sub_where[256];
		int has_sub = 0;
		for (size_t a = 0; a < n->n_attribute; a++)
			if (n->attribute[a]->g || n->attribute[a]->n_graphs)
				has_sub = 1;
		if (!has_sub)
			continue;
		snprintf(sub_where, sizeof sub_where, "%ssubgraph of node #%zu: ", where, i);
		for (size_t a = 0; a < n->n_attribute; a++) {
			const Onnx__AttributeProto *at = n->attribute[a];
			if (at->g)
				lint_graph(l, at->g, &here, sub_where);
			for (size_t k = 0; k < at->n_graphs; k++)
				lint_graph(l, at->graphs[k], &here, sub_where);
		}
	}
	for (size_t i = 0; i < g->n_output && !l->oom; i++) {
		const char *out = g->output[i]->name ? g->output[i]->name : "";
		if (scope_has(&here, out))
			continue;
		strbuf_printf(&b, "%sgraph output '", where);
		describe_name(&b, out);
		strbuf_puts(&b, "' is not produced by any node, initializer or input");
		say(l, &b);
	}
	strmap_free(&local);
	strbuf_free(&b);
}

long lint_references(const struct ov_model *m, lint_report_fn report, void *ctx)
{
	struct lint l = {report, ctx, 0, 0};

	lint_graph(&l, m->proto->graph, NULL, "");
	return l.oom ? -1 : l.count;
}
