/* Planning a cut: which values and nodes a run from some values to others needs, and what leaks into it. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/base/dtype.h"
#include "src/model/describe.h"
#include "src/exec/exec.h"
#include "src/exec/runner.h"
/* ---- plans ---- */


void plan_free(struct plan *p)
{
	free(p->need_val);
	free(p->is_from);
	free(p->need_node);
	free(p->leak);
	free(p->to);
	free(p->from);
	memset(p, 0, sizeof *p);
}

/* Values of g that node's subgraphs capture (at any depth), pushed on the stack. */
static void push_captures(const struct graph *g, const struct graph *sg, int32_t *stack, size_t *sp,
			  const uint8_t *need_val)
{
	for (uint32_t v = 0; v < sg->n_values; v++) {
		if (sg->values[v].origin != VALUE_OUTER)
			continue;
		const struct graph *owner = NULL;
		const struct graph_value *gv = graph_value_resolve(sg, (int32_t)v, &owner);
		if (gv && owner == g) {
			int32_t id = (int32_t)(gv - g->values);
			if (!need_val[id])
				stack[(*sp)++] = id;
		}
	}
	for (uint32_t n = 0; n < sg->n_nodes; n++)
		for (uint32_t s = 0; s < sg->nodes[n].n_sub; s++)
			push_captures(g, sg->nodes[n].sub[s], stack, sp, need_val);
}

int plan_build(const struct graph *g, const struct exec_options *opt, struct plan *p, struct ov_error *err)
{
	uint32_t nv = g->n_values;
	int32_t *stack = NULL;
	size_t sp = 0, cap;

	memset(p, 0, sizeof *p);
	p->need_val = calloc(nv + 1, 1);
	p->is_from = calloc(nv + 1, 1);
	p->leak = calloc(nv + 1, 1);
	p->need_node = calloc(g->n_nodes + 1, 1);
	p->from = calloc((opt->from ? opt->n_from : g->proto->n_input) + 1, sizeof *p->from);
	p->to = calloc((opt->to ? opt->n_to : g->proto->n_output) + 1, sizeof *p->to);
	if (!p->need_val || !p->is_from || !p->leak || !p->need_node || !p->from || !p->to)
		goto nomem;

	if (opt->from) {
		for (size_t i = 0; i < opt->n_from; i++) {
			int32_t id = graph_value_id(g, opt->from[i]);
			if (id < 0) {
				plan_free(p);
				return ov_fail(err, OV_USAGE, "--from: '%s' is not a value of the graph", opt->from[i]);
			}
			if (!p->is_from[id])
				p->from[p->n_from++] = id;
			p->is_from[id] = 1;
		}
	} else {
		for (size_t i = 0; i < g->proto->n_input; i++) {
			int32_t id = graph_value_id(g, g->proto->input[i]->name ? g->proto->input[i]->name : "");
			if (id < 0 || p->is_from[id])
				continue;
			/* an initializer listed as an input is a default: fed when given, a constant otherwise */
			p->from[p->n_from++] = id;
			if (g->values[id].origin == VALUE_INPUT)
				p->is_from[id] = 1;
		}
	}
	if (opt->to) {
		for (size_t i = 0; i < opt->n_to; i++) {
			int32_t id = graph_value_id(g, opt->to[i]);
			if (id < 0) {
				plan_free(p);
				return ov_fail(err, OV_USAGE, "--to: '%s' is not a value of the graph", opt->to[i]);
			}
			p->to[p->n_to++] = id;
		}
	} else {
		for (size_t i = 0; i < g->proto->n_output; i++) {
			int32_t id = graph_value_id(g, g->proto->output[i]->name ? g->proto->output[i]->name : "");
			if (id < 0) {
				plan_free(p);
				return ov_fail(err, OV_FORMAT, "graph output %zu has no name", i);
			}
			p->to[p->n_to++] = id;
		}
	}

	/* reverse reachability; every value is pushed at most once per consumer, so nv + uses bounds the stack */
	cap = (size_t)nv + p->n_to + 1;
	for (uint32_t v = 0; v < nv; v++)
		cap += g->values[v].n_uses;
	stack = malloc(cap * sizeof *stack);
	if (!stack)
		goto nomem;
	for (size_t i = 0; i < p->n_to; i++)
		stack[sp++] = p->to[i];
	while (sp) {
		int32_t v = stack[--sp];
		if (p->need_val[v])
			continue;
		p->need_val[v] = 1;
		if (p->is_from[v])
			continue;
		const struct graph_value *gv = &g->values[v];
		switch (gv->origin) {
		case VALUE_INITIALIZER:
			continue;
		case VALUE_CONSTANT:
			if (gv->producer >= 0)
				p->need_node[gv->producer] = 1;
			continue;
		case VALUE_NODE: {
			if (gv->producer < 0) {
				p->leak[v] = 1;
				continue;
			}
			if (p->need_node[gv->producer])
				continue;
			p->need_node[gv->producer] = 1;
			const struct graph_node *nd = &g->nodes[gv->producer];
			for (size_t i = 0; i < nd->proto->n_input; i++)
				if (nd->in[i] >= 0 && !p->need_val[nd->in[i]])
					stack[sp++] = nd->in[i];
			for (uint32_t s = 0; s < nd->n_sub; s++) {
				/* captures are few; grow the stack if they outnumber its room */
				size_t more = nd->sub[s]->n_values;
				if (sp + more > cap) {
					int32_t *ns = realloc(stack, (sp + more + cap) * sizeof *stack);
					if (!ns)
						goto nomem;
					stack = ns;
					cap += sp + more;
				}
				push_captures(g, nd->sub[s], stack, &sp, p->need_val);
			}
			continue;
		}
		default:
			p->leak[v] = 1;
			continue;
		}
	}
	free(stack);

	/* a cut that leaks names what it needs */
	char msg[sizeof err->msg];
	size_t used = 0, n_leak = 0;
	for (uint32_t v = 0; v < nv; v++) {
		if (!p->leak[v])
			continue;
		const struct graph_value *gv = &g->values[v];
		if (n_leak++ < 8 && used < sizeof msg - 1)
			used += (size_t)snprintf(msg + used, sizeof msg - used, "%s'%s' (%s)", n_leak > 1 ? ", " : "",
						 gv->name, gv->origin == VALUE_INPUT ? "graph input"
							   : gv->origin == VALUE_UNDEFINED ? "nothing defines it"
											    : value_origin_name(gv->origin));
	}
	if (n_leak) {
		if (n_leak > 8 && used < sizeof msg - 1)
			snprintf(msg + used, sizeof msg - used, " and %zu more", n_leak - 8);
		plan_free(p);
		return ov_fail(err, OV_USAGE, "the cut needs %s, which %s does not give", msg,
			       opt->from ? "--from" : "the model");
	}
	for (uint32_t n = 0; n < g->n_nodes; n++)
		if (p->need_node[n] && g->nodes[n].topo >= g->n_order) {
			plan_free(p);
			return ov_fail(err, OV_INVALID, "#%" PRIu32 " '%s' %s is on a cycle: the graph cannot run", n,
				       g->nodes[n].proto->name ? g->nodes[n].proto->name : "",
				       g->nodes[n].proto->op_type ? g->nodes[n].proto->op_type : "?");
		}
	return 0;
nomem:
	free(stack);
	plan_free(p);
	return ov_fail(err, OV_NOMEM, "out of memory planning the run");
}

long exec_needed_inputs(const struct graph *g, const struct exec_options *opt, const char **names, size_t max,
			struct ov_error *err)
{
	struct plan p;
	long n = 0;

	if (plan_build(g, opt, &p, err))
		return -1;
	for (size_t i = 0; i < p.n_from; i++) {
		int32_t id = p.from[i];
		/* initializers listed as inputs have a default, so the cut does not need them given */
		if (!p.need_val[id] || !p.is_from[id])
			continue;
		if ((size_t)n < max)
			names[n] = g->values[id].name;
		n++;
	}
	plan_free(&p);
	return n;
}
