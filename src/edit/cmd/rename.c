/* rename VALUE NEW: give a value of the main graph a new name everywhere it is named, subgraphs that read it
 * included (not those that define a value of the same name of their own). */
#include "config.h"

#include <string.h>

#include "src/edit/internal.h"

static int same(const char *a, const char *b)
{
	return a && !strcmp(a, b);
}

/* Does g itself define name (an input, an initializer, a node output)? */
static int defines(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_input; i++)
		if (same(g->input[i]->name, name))
			return 1;
	for (size_t i = 0; i < g->n_initializer; i++)
		if (same(g->initializer[i]->name, name))
			return 1;
	for (size_t i = 0; i < g->n_sparse_initializer; i++)
		if (g->sparse_initializer[i]->values && same(g->sparse_initializer[i]->values->name, name))
			return 1;
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0; k < g->node[i]->n_output; k++)
			if (same(g->node[i]->output[k], name))
				return 1;
	return 0;
}

/* Does a graph below g (at any depth) read main's value `from`? */
static int reads_main(const struct graph *g, const struct graph *main, const char *from)
{
	int32_t id = graph_value_id(g, from);

	if (id >= 0 && g->values[id].origin == VALUE_OUTER && g->values[id].outer_graph == main)
		return 1;
	for (uint32_t i = 0; i < g->n_nodes; i++)
		for (uint32_t k = 0; k < g->nodes[i].n_sub; k++)
			if (reads_main(g->nodes[i].sub[k], main, from))
				return 1;
	return 0;
}

/* Would naming main's value `to` change what a subgraph means? top: the main-graph node the subgraph hangs from. */
static int check_subgraphs(const struct graph *g, const struct graph *main, const char *from, const char *to,
			   int32_t top, struct ov_error *err)
{
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		int32_t t = g == main ? (int32_t)i : top;
		for (uint32_t k = 0; k < g->nodes[i].n_sub; k++) {
			const struct graph *sub = g->nodes[i].sub[k];
			int32_t id = graph_value_id(sub, to);
			if (id >= 0 && sub->values[id].origin == VALUE_UNDEFINED)
				return ov_fail(err, OV_INVALID, "a subgraph of node #%d reads '%s', which nothing defines: the "
					       "new name would bind it to this value", t, to);
			if (id >= 0 && sub->values[id].origin != VALUE_OUTER && reads_main(sub, main, from))
				return ov_fail(err, OV_INVALID, "a subgraph of node #%d defines a '%s' of its own and reads "
					       "'%s': it would read its own value instead", t, to, from);
			if (check_subgraphs(sub, main, from, to, t, err))
				return -1;
		}
	}
	return 0;
}

struct renamer {
	struct edit_session *s;
	const char *from, *to;
	size_t count;
	int oom;
};

static void swap_name(struct renamer *r, char **p)
{
	char *n;

	if (!same(*p, r->from))
		return;
	if (!(n = edit_strdup(r->s, r->to))) {
		r->oom = 1;
		return;
	}
	r->s->m->alloc.free(r->s->m->alloc.allocator_data, *p);
	*p = n;
	r->count++;
}

static void rename_graph(struct renamer *r, Onnx__GraphProto *g, int is_main)
{
	/* Only the main graph defines the value; a subgraph that defines one of that name is not visited. */
	if (is_main) {
		for (size_t i = 0; i < g->n_input; i++)
			swap_name(r, &g->input[i]->name);
		for (size_t i = 0; i < g->n_initializer; i++)
			swap_name(r, &g->initializer[i]->name);
		for (size_t i = 0; i < g->n_sparse_initializer; i++)
			if (g->sparse_initializer[i]->values)
				swap_name(r, &g->sparse_initializer[i]->values->name);
	}
	for (size_t i = 0; i < g->n_node; i++) {
		Onnx__NodeProto *n = g->node[i];
		for (size_t k = 0; k < n->n_input; k++)
			swap_name(r, &n->input[k]);
		if (is_main)
			for (size_t k = 0; k < n->n_output; k++)
				swap_name(r, &n->output[k]);
		for (size_t a = 0; a < n->n_attribute; a++) {
			Onnx__AttributeProto *at = n->attribute[a];
			if (at->g && !defines(at->g, r->from))
				rename_graph(r, at->g, 0);
			for (size_t k = 0; k < at->n_graphs; k++)
				if (!defines(at->graphs[k], r->from))
					rename_graph(r, at->graphs[k], 0);
		}
	}
	for (size_t i = 0; i < g->n_output; i++)
		swap_name(r, &g->output[i]->name);
	for (size_t i = 0; i < g->n_value_info; i++)
		swap_name(r, &g->value_info[i]->name);
	for (size_t i = 0; i < g->n_quantization_annotation; i++)
		swap_name(r, &g->quantization_annotation[i]->tensor_name);
}

static int exec_rename(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	const char *from = a->v[0].text, *to = a->v[1].text;
	Onnx__GraphProto *gp = s->m->proto->graph;

	if (!strcmp(from, to))
		return ov_fail(err, OV_INVALID, "'%s' already has that name", from);
	int32_t other = graph_value_id(s->g, to);
	if (other >= 0)
		return ov_fail(err, OV_INVALID, "'%s' already names a value of the graph (%s)", to,
			       value_origin_name(s->g->values[other].origin));
	for (size_t i = 0; i < gp->n_value_info; i++)
		if (same(gp->value_info[i]->name, to))
			return ov_fail(err, OV_INVALID, "'%s' is already declared in the graph's value_info", to);
	if (check_subgraphs(s->g, s->g, from, to, -1, err))
		return -1;

	struct renamer r = {s, from, to, 0, 0};
	rename_graph(&r, gp, 1);
	edit_touch(s);
	if (r.oom)
		return ov_fail(err, OV_NOMEM, "out of memory");
	edit_say(s, "renamed '%s' to '%s' (%zu reference%s)", from, to, r.count, r.count == 1 ? "" : "s");
	return 0;
}

const struct edit_cmd edit_rename_cmd = {
	.name = "rename",
	.usage = "rename VALUE NEW",
	.help = "rename a value everywhere it is named, subgraphs that read it included",
	.args = {{.kind = EDIT_ARG_VALUE}, {.kind = EDIT_ARG_NAME}},
	.exec = exec_rename,
};
