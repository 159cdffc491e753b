/* Removing things from the main graph: the values a node's subgraphs capture, removing nodes, and pruning the
 * initializers, inputs and value_info nothing refers to any more.  Used by cleanup, delete-node and extract. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/edit/internal.h"
#include "src/base/strbuf.h"

void edit_node_captures(const struct graph *g, uint32_t node, void (*fn)(int32_t id, void *ctx), void *ctx)
{
	for (uint32_t s = 0; s < g->nodes[node].n_sub; s++)
		graph_foreach_capture(g->nodes[node].sub[s], g, fn, ctx);
}

void edit_remove_nodes(struct edit_session *s, const uint8_t *keep)
{
	Onnx__GraphProto *gp = s->m->proto->graph;
	size_t n = 0;

	for (size_t i = 0; i < gp->n_node; i++) {
		if (keep[i])
			gp->node[n++] = gp->node[i];
		else
			protobuf_c_message_free_unpacked(&gp->node[i]->base, &s->m->alloc);
	}
	gp->n_node = n;
	edit_touch(s);
}

/* Is name a value of some subgraph (value_info of the main graph may describe one)? */
static int in_subgraphs(const struct graph *g, const char *name)
{
	for (uint32_t i = 0; i < g->n_nodes; i++)
		for (uint32_t k = 0; k < g->nodes[i].n_sub; k++) {
			const struct graph *sub = g->nodes[i].sub[k];
			int32_t id = graph_value_id(sub, name);
			if ((id >= 0 && sub->values[id].origin != VALUE_OUTER) || in_subgraphs(sub, name))
				return 1;
		}
	return 0;
}

int edit_prune_unused(struct edit_session *s, struct edit_prune_counts *c, struct ov_error *err)
{
	Onnx__GraphProto *gp = s->m->proto->graph;
	size_t ni = gp->n_initializer, ns = gp->n_sparse_initializer;
	struct graph *g = NULL;
	uint8_t *cap = NULL, *drop = NULL, *drop_in = NULL;
	int rc = -1;

	memset(c, 0, sizeof *c);
	edit_touch(s);
	if (graph_build(&g, gp, err))
		return -1;
	cap = graph_captured_values(g);
	drop = calloc(ni + ns + gp->n_value_info + 1, 1);
	drop_in = calloc(gp->n_input + 1, 1);
	if (!cap || !drop || !drop_in) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	/* Initializers: one that is also a graph input but that nothing reads goes with its input entry (old exporters
	 * list every initializer as an input; feeding it would change nothing). */
	for (size_t i = 0; i < ni + ns; i++) {
		const char *name = i < ni ? gp->initializer[i]->name : gp->sparse_initializer[i - ni]->values ?
			gp->sparse_initializer[i - ni]->values->name : NULL;
		int32_t id = name ? graph_value_id(g, name) : -1;
		const struct graph_value *v = id >= 0 ? &g->values[id] : NULL;
		if (!v || v->n_uses || v->output_index >= 0 || cap[id])
			continue;
		drop[i] = 1;
		if (v->input_index >= 0 && !drop_in[v->input_index]) {
			drop_in[v->input_index] = 1;
			c->inputs++;
		}
		if (i < ni)
			c->initializers++;
		else
			c->sparse++;
	}
	EDIT_COMPACT(s, gp->initializer, gp->n_initializer, drop);
	EDIT_COMPACT(s, gp->sparse_initializer, gp->n_sparse_initializer, drop + ni);
	EDIT_COMPACT(s, gp->input, gp->n_input, drop_in);
	/* value_info: kept while its name is still a value of the graph (defined or used), or of a subgraph. */
	graph_free(g);
	g = NULL;
	if (graph_build(&g, gp, err))
		goto out;
	memset(drop, 0, gp->n_value_info);
	for (size_t i = 0; i < gp->n_value_info; i++) {
		const char *name = gp->value_info[i]->name;
		drop[i] = name && graph_value_id(g, name) < 0 && !in_subgraphs(g, name);
		c->value_info += drop[i];
	}
	EDIT_COMPACT(s, gp->value_info, gp->n_value_info, drop);
	rc = 0;
out:
	free(cap);
	free(drop);
	free(drop_in);
	graph_free(g);
	edit_touch(s);
	return rc;
}
