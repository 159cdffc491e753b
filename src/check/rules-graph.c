/* Check rules about the graph's structure: references, order, cycles, names, and parts nothing uses. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/check/internal.h"
#include "src/base/strbuf.h"

/* Nodes the sort left out are on a cycle, or only wait for one: trim those whose outputs no other left-out node
 * uses, repeatedly, and the rest are the cycle. */
static void report_cycle(struct check_ctx *c)
{
	const struct graph *g = c->g;
	uint32_t *users = calloc(g->n_nodes, sizeof *users), *queue = calloc(g->n_nodes, sizeof *queue);
	uint32_t n_left = 0, n_cycle, head = 0, tail = 0, shown = 0;
	int32_t first = -1;
	struct strbuf b = {0};

	if (!users || !queue) {
		c->oom = 1;
		goto out;
	}
#define LEFT_OUT(n) (g->nodes[n].topo >= g->n_nodes)
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		if (!LEFT_OUT(i))
			continue;
		n_left++;
		for (size_t k = 0; k < g->nodes[i].proto->n_output; k++) {
			int32_t id = g->nodes[i].out[k];
			if (id < 0 || g->values[id].producer != (int32_t)i)
				continue;
			for (uint32_t u = 0; u < g->values[id].n_uses; u++)
				users[i] += LEFT_OUT(g->values[id].uses[u].node);
		}
		if (!users[i])
			queue[tail++] = i;
	}
	while (head < tail) { /* a trimmed node no longer counts as a user of what it reads */
		const struct graph_node *gn = &g->nodes[queue[head++]];
		for (size_t k = 0; k < gn->proto->n_input; k++) {
			int32_t id = gn->in[k], p = id >= 0 ? g->values[id].producer : -1;
			if (p >= 0 && LEFT_OUT(p) && users[p] && --users[p] == 0)
				queue[tail++] = (uint32_t)p;
		}
	}
	n_cycle = n_left - tail;
	if (!n_cycle) { /* the cycle runs through a subgraph's capture: name every node left out */
		for (uint32_t i = 0; i < g->n_nodes; i++)
			users[i] = LEFT_OUT(i);
		n_cycle = n_left;
		tail = 0;
	}
	for (uint32_t i = 0; i < g->n_nodes && shown < 6; i++)
		if (LEFT_OUT(i) && users[i]) {
			strbuf_printf(&b, "%s#%u", shown ? ", " : "", i);
			if (first < 0)
				first = (int32_t)i;
			shown++;
		}
#undef LEFT_OUT
	if (tail)
		strbuf_printf(&b, "%s; %u node%s after it cannot run either", n_cycle > 6 ? ", ..." : "", tail,
			      tail == 1 ? "" : "s");
	else if (n_cycle > 6)
		strbuf_puts(&b, ", ...");
	diag_add(c, DIAG_cycle, first, NULL, "break the cycle: one of these nodes must read a value from outside it",
		 n_cycle == 1 ? "%u node reads its own output, a cycle (%s)" : "%u nodes depend on each other in a "
		 "cycle (%s)", n_cycle, strbuf_str(&b));
out:
	strbuf_free(&b);
	free(users);
	free(queue);
}

void check_graph(struct check_ctx *c)
{
	const struct graph *g = c->g;
	const Onnx__GraphProto *p = g->proto;
	char hint[300];
	int unsorted_reported = 0;

	for (uint32_t i = 0; i < g->n_nodes && !c->oom; i++) {
		const struct graph_node *gn = &g->nodes[i];
		for (size_t k = 0; k < gn->proto->n_input; k++) {
			int32_t id = gn->in[k];
			if (id < 0)
				continue;
			const struct graph_value *v = &g->values[id];
			if (v->origin == VALUE_UNDEFINED)
				diag_add(c, DIAG_dangling_input, (int32_t)i, v->name,
					 "rename the input to an existing value, or cut the node out",
					 "input %zu '%s' is not a graph input, initializer or node output", k, v->name);
			else if (!unsorted_reported && v->producer > (int32_t)i && gn->topo < g->n_nodes &&
				 g->nodes[v->producer].topo < g->n_nodes) {
				snprintf(hint, sizeof hint, "re-export, or sort the nodes before giving it to a strict runtime; onnxview reads it "
					 "in dependency order anyway");
				diag_add(c, DIAG_not_sorted, (int32_t)i, v->name, hint,
					 "uses '%s', which node #%d later in the list produces (ONNX requires topological "
					 "order)", v->name, v->producer);
				unsorted_reported = 1;
			}
		}
	}
	/* Cycles: the nodes the topological sort could not place are on a cycle or behind one. */
	if (g->n_order < g->n_nodes)
		report_cycle(c);
	/* What subgraphs read counts as used. */
	uint8_t *captured = graph_captured_values(g);
	if (!captured) {
		c->oom = 1;
		return;
	}
	for (uint32_t v = 0; v < g->n_values && !c->oom; v++) {
		const struct graph_value *val = &g->values[v];
		if (val->n_producers > 1)
			diag_add(c, DIAG_produced_twice, val->producer, val->name,
				 "rename one of the outputs (rename VALUE NEW)", "'%s' is defined %u times (ONNX values "
				 "have exactly one definition)", val->name, val->n_producers);
		if (val->output_index >= 0 && val->origin == VALUE_UNDEFINED)
			diag_add(c, DIAG_output_not_produced, -1, val->name, "del-output it, or rename a node output to it",
				 "graph output '%s' is not produced by any node, initializer or input", val->name);
		if (val->origin == VALUE_INITIALIZER && val->n_uses == 0 && val->output_index < 0 &&
		    !captured[v])
			diag_add(c, DIAG_unused_initializer, -1, val->name, "onnxview edit MODEL -e cleanup",
				 "initializer '%s' is not used by any node", val->name);
	}
	/* Dead nodes: nothing uses any output (subgraph captures count), and none is a graph output. */
	for (uint32_t i = 0; i < g->n_nodes && !c->oom; i++) {
		const struct graph_node *gn = &g->nodes[i];
		int used = gn->proto->n_output == 0;
		for (size_t k = 0; k < gn->proto->n_output && !used; k++) {
			int32_t id = gn->out[k];
			used = id >= 0 && (g->values[id].n_uses > 0 || g->values[id].output_index >= 0 || captured[id]);
		}
		if (!used)
			diag_add(c, DIAG_dead_node, (int32_t)i, NULL, "onnxview edit MODEL -e cleanup",
				 "no node or graph output uses what this node computes");
	}
	free(captured);
	if (g->n_duplicate_names) {
		for (uint32_t i = 0; i < g->n_nodes; i++) {
			const char *name = g->nodes[i].proto->name;
			if (name && *name && graph_find_node(g, name) != (int32_t)i) {
				snprintf(hint, sizeof hint, "rename-node #%u NEW (tools that address nodes by name get the "
					 "wrong one)", i);
				diag_add(c, DIAG_duplicate_name, (int32_t)i, NULL, hint, "node name '%s' is also used by "
					 "#%d", name, graph_find_node(g, name));
			}
		}
	}
	if (!p)
		return;
	/* Initializers that share a name: the graph index (and so every run) keeps the last one, silently. */
	for (size_t i = 0; i < p->n_initializer && !c->oom; i++) {
		const Onnx__TensorProto *t = p->initializer[i];
		int32_t id = t->name ? graph_value_id(g, t->name) : -1;
		if (id >= 0 && g->values[id].constant && g->values[id].constant != t)
			diag_add(c, DIAG_produced_twice, -1, t->name, "keep one of them: ONNX's checker refuses the model, "
				 "and runtimes differ on which one they use",
				 "initializer '%s' (number %zu of the initializers) has the name of a later initializer, "
				 "which is the one onnxview runs with", t->name, i);
	}
	for (size_t i = 0; i < p->n_input; i++) {
		const char *name = p->input[i]->name ? p->input[i]->name : "";
		int32_t id = graph_value_id(g, name);
		if (id >= 0 && g->values[id].input_index != (int32_t)i)
			diag_add(c, DIAG_duplicate_input, -1, name, "del one of them", "graph input '%s' is listed twice",
				 name);
		if (id >= 0 && g->values[id].origin == VALUE_INITIALIZER && g->values[id].input_index == (int32_t)i &&
		    c->m->proto->ir_version >= 4 && !*c->where)
			diag_add(c, DIAG_initializer_is_input, -1, name,
				 "remove it from the graph inputs unless callers must be able to override it",
				 "initializer '%s' is also a graph input: runtimes treat it as an overridable default, "
				 "which stops constant folding", name);
	}
}
