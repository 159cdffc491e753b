/* cleanup: drop what no graph output needs (dead nodes, then the initializers and value_info nothing refers to). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/edit/internal.h"
#include "src/base/strbuf.h"

static void mark_one(int32_t id, void *ctx)
{
	((uint8_t *)ctx)[id] = 1;
}

static int visit(const struct graph *g, uint32_t i, uint8_t *keep, uint8_t *need)
{
	const struct graph_node *gn = &g->nodes[i];
	int hit = 0;

	if (keep[i])
		return 0;
	for (size_t k = 0; k < gn->proto->n_output && !hit; k++)
		hit = gn->out[k] >= 0 && need[gn->out[k]];
	if (!hit)
		return 0;
	keep[i] = 1;
	for (size_t k = 0; k < gn->proto->n_input; k++)
		if (gn->in[k] >= 0)
			need[gn->in[k]] = 1;
	edit_node_captures(g, i, mark_one, need);
	return 1;
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static int exec_cleanup(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	uint8_t *keep = NULL, *need = NULL;
	struct edit_prune_counts pc;
	size_t removed = 0;
	int rc = -1;

	(void)a;
	if (edit_index(s, err))
		return -1;
	const struct graph *g = s->g;
	keep = calloc(g->n_nodes ? g->n_nodes : 1, 1);
	need = calloc(g->n_values ? g->n_values : 1, 1);
	if (!keep || !need) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	for (uint32_t v = 0; v < g->n_values; v++)
		if (g->values[v].output_index >= 0)
			need[v] = 1;
	/* Reverse reachability: walking the topological order backwards settles an acyclic graph in one pass; nodes
	 * on a cycle (left out of the order) are visited until nothing changes. */
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint32_t k = g->n_order; k-- > 0;)
			changed |= visit(g, g->order[k], keep, need);
		for (uint32_t i = 0; i < g->n_nodes; i++)
			if (g->nodes[i].topo >= g->n_nodes)
				changed |= visit(g, i, keep, need);
	}
	for (uint32_t i = 0; i < g->n_nodes; i++)
		removed += !keep[i];
	if (removed)
		edit_remove_nodes(s, keep);
	if (edit_prune_unused(s, &pc, err))
		goto out;
	if (!removed && !pc.initializers && !pc.sparse && !pc.value_info) {
		edit_say(s, "cleanup: nothing to remove (every node, initializer and value_info is needed)");
	} else {
		struct strbuf b = {0};
		strbuf_printf(&b, "removed %zu %s, %zu %s", removed, plural(removed, "node", "nodes"), pc.initializers,
			      plural(pc.initializers, "initializer", "initializers"));
		if (pc.inputs)
			strbuf_printf(&b, " (%zu also listed as graph %s, dropped there too)", pc.inputs,
				      plural(pc.inputs, "input", "inputs"));
		if (pc.sparse)
			strbuf_printf(&b, ", %zu sparse %s", pc.sparse, plural(pc.sparse, "initializer", "initializers"));
		strbuf_printf(&b, ", %zu value_info", pc.value_info);
		edit_say(s, "%s", strbuf_str(&b));
		strbuf_free(&b);
	}
	rc = 0;
out:
	free(keep);
	free(need);
	return rc;
}

const struct edit_cmd edit_cleanup_cmd = {
	.name = "cleanup",
	.usage = "cleanup",
	.help = "drop what no graph output needs: dead nodes, then unused initializers and value_info (opsets stay)",
	.exec = exec_cleanup,
};
