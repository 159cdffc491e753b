/* delete-node NODE: bypass a node with one data input and one output (Identity, Dropout, a Cast...): whatever read
 * its output reads its input instead, and constants only it used go with it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/edit/internal.h"
#include "src/base/strbuf.h"

static int is_constant(const struct graph_value *v)
{
	return v->origin == VALUE_INITIALIZER || v->origin == VALUE_CONSTANT;
}

/* Replace a string of the tree by a copy of name. */
static int set_name(struct edit_session *s, char **slot, const char *name)
{
	char *c = edit_strdup(s, name);

	if (!c)
		return -1;
	if (*slot && *slot != protobuf_c_empty_string)
		s->m->alloc.free(s->m->alloc.allocator_data, *slot);
	*slot = c;
	return 0;
}

struct find_ctx {
	int32_t id;
	int hit;
};

static void find_one(int32_t id, void *ctx)
{
	struct find_ctx *f = ctx;

	f->hit |= id == f->id;
}

static int captures(const struct graph *g, uint32_t node, int32_t id)
{
	struct find_ctx f = {id, 0};

	edit_node_captures(g, node, find_one, &f);
	return f.hit;
}

/* Who reads value id: "#13 'a' (Relu), graph output 'y', a subgraph of #15 (Loop)"; returns how many. */
static size_t describe_users(struct strbuf *b, const struct graph *g, int32_t id)
{
	const struct graph_value *v = &g->values[id];
	size_t n = 0;

	for (uint32_t u = 0; u < v->n_uses; u++) {
		if (u && v->uses[u].node == v->uses[u - 1].node)
			continue; /* one node reading it twice is one consumer */
		strbuf_puts(b, n++ ? ", " : "");
		edit_describe_node(b, g, v->uses[u].node);
	}
	for (uint32_t i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].n_sub && captures(g, i, id)) {
			strbuf_puts(b, n++ ? ", a subgraph of " : "a subgraph of ");
			edit_describe_node(b, g, i);
		}
	if (v->output_index >= 0)
		strbuf_printf(b, "%sgraph output '%s'", n++ ? ", " : "", v->name);
	return n;
}

/* Every subgraph that reads out (a value of the main graph g) must see in as the main graph's value too: a subgraph
 * on the way that defines its own 'in' would capture the wrong tensor.  Returns the first graph in the way. */
static const struct graph *shadowing(const struct graph *sub, const struct graph *g, const char *out_name, int32_t out,
				     const char *in_name)
{
	int32_t id = graph_value_id(sub, out_name);

	if (id >= 0 && sub->values[id].origin == VALUE_OUTER && sub->values[id].outer_graph == g &&
	    sub->values[id].outer_id == out) {
		for (const struct graph *p = sub; p && p != g; p = p->parent) {
			int32_t k = graph_value_id(p, in_name);
			if (k >= 0 && p->values[k].origin != VALUE_OUTER && p->values[k].origin != VALUE_UNDEFINED)
				return p;
		}
	}
	for (uint32_t i = 0; i < sub->n_nodes; i++)
		for (uint32_t k = 0; k < sub->nodes[i].n_sub; k++) {
			const struct graph *r = shadowing(sub->nodes[i].sub[k], g, out_name, out, in_name);
			if (r)
				return r;
		}
	return NULL;
}

/* Point the subgraphs' reads of out (captured from g) at in. */
static int rename_captures(struct edit_session *s, const struct graph *sub, const struct graph *g,
			   const char *out_name, int32_t out, const char *in_name)
{
	int32_t id = graph_value_id(sub, out_name);

	if (id >= 0 && sub->values[id].origin == VALUE_OUTER && sub->values[id].outer_graph == g &&
	    sub->values[id].outer_id == out) {
		Onnx__GraphProto *sp = (Onnx__GraphProto *)sub->proto; /* the index keeps const pointers into our tree */
		for (size_t i = 0; i < sp->n_node; i++)
			for (size_t k = 0; k < sp->node[i]->n_input; k++)
				if (!strcmp(sp->node[i]->input[k], out_name) && set_name(s, &sp->node[i]->input[k], in_name))
					return -1;
		for (size_t i = 0; i < sp->n_output; i++)
			if (sp->output[i]->name && !strcmp(sp->output[i]->name, out_name) &&
			    set_name(s, &sp->output[i]->name, in_name))
				return -1;
	}
	for (uint32_t i = 0; i < sub->n_nodes; i++)
		for (uint32_t k = 0; k < sub->nodes[i].n_sub; k++)
			if (rename_captures(s, sub->nodes[i].sub[k], g, out_name, out, in_name))
				return -1;
	return 0;
}

static void drop_value_info(struct edit_session *s, const char *name)
{
	Onnx__GraphProto *gp = s->m->proto->graph;
	size_t n = 0;

	for (size_t i = 0; i < gp->n_value_info; i++) {
		if (gp->value_info[i]->name && !strcmp(gp->value_info[i]->name, name))
			protobuf_c_message_free_unpacked(&gp->value_info[i]->base, &s->m->alloc);
		else
			gp->value_info[n++] = gp->value_info[i];
	}
	gp->n_value_info = n;
}

static void drop_initializer(struct edit_session *s, const char *name)
{
	Onnx__GraphProto *gp = s->m->proto->graph;
	size_t n = 0;

	for (size_t i = 0; i < gp->n_initializer; i++) {
		if (gp->initializer[i]->name && !strcmp(gp->initializer[i]->name, name))
			protobuf_c_message_free_unpacked(&gp->initializer[i]->base, &s->m->alloc);
		else
			gp->initializer[n++] = gp->initializer[i];
	}
	gp->n_initializer = n;
	n = 0;
	for (size_t i = 0; i < gp->n_sparse_initializer; i++) {
		Onnx__SparseTensorProto *sp = gp->sparse_initializer[i];
		if (sp->values && sp->values->name && !strcmp(sp->values->name, name))
			protobuf_c_message_free_unpacked(&sp->base, &s->m->alloc);
		else
			gp->sparse_initializer[n++] = sp;
	}
	gp->n_sparse_initializer = n;
}

/* The constants the deleted node read that nothing reads any more: removed, named in msg. */
static int drop_orphans(struct edit_session *s, char **names, size_t n_names, struct strbuf *msg,
			struct ov_error *err)
{
	struct graph *g = NULL;
	uint8_t *cap = NULL, *keep = NULL, *kind = NULL;
	size_t dropped = 0, dropped_nodes = 0;
	int rc = -1;

	if (!n_names)
		return 0;
	edit_touch(s);
	if (graph_build(&g, s->m->proto->graph, err))
		return -1;
	cap = graph_captured_values(g);
	keep = malloc(g->n_nodes ? g->n_nodes : 1);
	kind = calloc(n_names, 1);
	if (!cap || !keep || !kind) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	memset(keep, 1, g->n_nodes);
	/* Decide for every name first: the index's names point into the entries freed below. */
	for (size_t i = 0; i < n_names; i++) {
		int32_t id = graph_value_id(g, names[i]);
		const struct graph_value *v = id >= 0 ? &g->values[id] : NULL;
		kind[i] = 0;
		if (!v || v->n_uses || v->output_index >= 0 || v->input_index >= 0 || cap[id])
			continue;
		if (v->origin == VALUE_CONSTANT && v->producer >= 0 && g->nodes[v->producer].proto->n_output == 1) {
			keep[v->producer] = 0;
			dropped_nodes++;
			kind[i] = 2;
		} else if (v->origin == VALUE_INITIALIZER) {
			kind[i] = 1;
		}
	}
	for (size_t i = 0; i < n_names; i++) {
		if (!kind[i])
			continue;
		if (kind[i] == 1)
			drop_initializer(s, names[i]);
		drop_value_info(s, names[i]);
		strbuf_printf(msg, "%s'%s'", dropped++ ? ", " : "; removed what only it read: ", names[i]);
	}
	graph_free(g);
	g = NULL;
	if (dropped_nodes)
		edit_remove_nodes(s, keep);
	rc = 0;
out:
	graph_free(g);
	free(cap);
	free(keep);
	free(kind);
	edit_touch(s);
	return rc;
}

static int exec_delete_node(struct edit_session *s, const struct edit_args *args, struct ov_error *err)
{
	struct strbuf who = {0}, users = {0}, data = {0}, msg = {0};
	char **constants = NULL, *in_name = NULL, *out_name = NULL;
	size_t n_constants = 0;
	int rc = -1;
	int32_t idx = args->v[0].node;

	const struct graph *g = s->g;
	const struct graph_node *gn = &g->nodes[idx];
	Onnx__NodeProto *np = gn->proto;
	edit_describe_node(&who, g, (uint32_t)idx);

	/* What reads the outputs, for the refusals. */
	size_t n_users = 0;
	for (size_t k = 0; k < np->n_output; k++) {
		struct strbuf one = {0};
		size_t nu = gn->out[k] >= 0 ? describe_users(&one, g, gn->out[k]) : 0;
		if (nu)
			strbuf_printf(&users, "%s%s", n_users ? ", " : "", strbuf_str(&one));
		n_users += nu;
		strbuf_free(&one);
	}
	const char *feeds = n_users ? strbuf_str(&users) : "nothing";

	size_t n_data = 0;
	for (size_t k = 0; k < np->n_input; k++) {
		int32_t id = gn->in[k];
		if (id < 0 || (k > 0 && is_constant(&g->values[id])))
			continue;
		strbuf_printf(&data, "%s'%s'", n_data++ ? ", " : "", g->values[id].name);
	}
	if (gn->n_sub) {
		ov_fail(err, OV_INVALID, "%s computes its outputs in subgraphs, so there is no input to connect its "
			"consumers (%s) to; use extract FROM,... TO,... to cut around it", strbuf_str(&who), feeds);
		goto out;
	}
	if (n_data != 1 || np->n_input == 0 || gn->in[0] < 0) {
		ov_fail(err, OV_INVALID, "%s has %zu data input%s%s%s%s and feeds %s: delete-node only bypasses a node "
			"with one data input (constants aside) and one output; use extract FROM,... TO,... to cut the "
			"graph around it", strbuf_str(&who), n_data, n_data == 1 ? "" : "s", n_data ? " (" : "",
			strbuf_str(&data), n_data ? ")" : "", feeds);
		goto out;
	}
	if (np->n_output == 0 || gn->out[0] < 0) {
		ov_fail(err, OV_INVALID, "%s has no first output to bypass%s%s", strbuf_str(&who),
			n_users ? "; its other outputs feed " : "", n_users ? feeds : "");
		goto out;
	}
	/* The other outputs (Dropout's mask...) may go only if nothing reads them. */
	size_t first_used = 0;
	for (size_t k = 1; k < np->n_output; k++) {
		int32_t id = gn->out[k];
		if (id < 0)
			continue;
		struct strbuf one = {0};
		if (describe_users(&one, g, id) && !first_used)
			first_used = k;
		strbuf_free(&one);
	}
	if (first_used) {
		ov_fail(err, OV_INVALID, "%s has output %zu '%s' in use besides its first, and feeds %s: delete-node "
			"only bypasses a node with one data input and one output; use extract FROM,... TO,... to cut the "
			"graph around it", strbuf_str(&who), first_used, np->output[first_used], feeds);
		goto out;
	}
	int32_t in = gn->in[0], out = gn->out[0];
	const struct graph_value *vin = &g->values[in], *vout = &g->values[out];
	if (in == out) {
		ov_fail(err, OV_INVALID, "%s reads and writes '%s' (a cycle): nothing to bypass", strbuf_str(&who),
			vin->name);
		goto out;
	}
	if (vout->output_index >= 0 && vin->output_index >= 0) {
		ov_fail(err, OV_INVALID, "%s: its output '%s' and its input '%s' are both graph outputs; bypassing it "
			"would list '%s' twice (del-output '%s' first)", strbuf_str(&who), vout->name, vin->name, vin->name,
			vout->name);
		goto out;
	}
	for (uint32_t i = 0; i < g->n_nodes; i++)
		for (uint32_t k = 0; k < g->nodes[i].n_sub; k++) {
			const struct graph *sh = shadowing(g->nodes[i].sub[k], g, vout->name, out, vin->name);
			if (sh) {
				struct strbuf where = {0};
				edit_describe_node(&where, sh->parent, (uint32_t)sh->parent_node);
				ov_fail(err, OV_INVALID, "a subgraph of %s reads '%s' but defines its own '%s': bypassing %s "
					"would make it read the wrong tensor (rename one of them first)", strbuf_str(&where),
					vout->name, vin->name, strbuf_str(&who));
				strbuf_free(&where);
				goto out;
			}
		}

	/* Consumers that will now see a different tensor: say so, change nothing about it. */
	const struct vshape *sin = shapes_get(s->sh, g, in), *sout = shapes_get(s->sh, g, out);
	if (sin && sout && (sin->dtype || sin->rank >= 0) && (sout->dtype || sout->rank >= 0) &&
	    (!shape_compatible(sin, sout) || (sin->dtype && sout->dtype && sin->dtype != sout->dtype) ||
	     sin->rank != sout->rank)) {
		struct strbuf a = {0}, b = {0};
		shape_describe(&a, sin);
		shape_describe(&b, sout);
		edit_say(s, "warning: '%s' is %s but '%s' was %s: its consumers now get the input's type and shape",
			 vin->name, strbuf_str(&a), vout->name, strbuf_str(&b));
		strbuf_free(&a);
		strbuf_free(&b);
	}

	/* The constants it reads, by name (the node's strings go with it). */
	constants = calloc(np->n_input ? np->n_input : 1, sizeof *constants);
	if (!constants) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < np->n_input; k++) {
		int32_t id = gn->in[k];
		if (id < 0 || !is_constant(&g->values[id]) || g->values[id].input_index >= 0)
			continue;
		int dup = 0;
		for (size_t j = 0; j < n_constants; j++)
			dup |= !strcmp(constants[j], g->values[id].name);
		if (!dup && !(constants[n_constants++] = strdup(g->values[id].name))) {
			ov_fail(err, OV_NOMEM, "out of memory");
			goto out;
		}
	}

	/* Rewire: node inputs, subgraph captures, the graph output. */
	Onnx__GraphProto *gp = s->m->proto->graph;
	in_name = strdup(vin->name);
	out_name = strdup(vout->name);
	if (!in_name || !out_name)
		goto oom;
	strbuf_printf(&msg, "deleted %s", strbuf_str(&who));
	size_t n_rewired = 0;
	for (uint32_t u = 0; u < vout->n_uses; u++) {
		Onnx__NodeProto *c = g->nodes[vout->uses[u].node].proto;
		if (set_name(s, &c->input[vout->uses[u].slot], in_name))
			goto oom;
		n_rewired += !u || vout->uses[u].node != vout->uses[u - 1].node;
	}
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		if (!g->nodes[i].n_sub || !captures(g, i, out))
			continue;
		n_rewired++;
		for (uint32_t k = 0; k < g->nodes[i].n_sub; k++)
			if (rename_captures(s, g->nodes[i].sub[k], g, out_name, out, in_name))
				goto oom;
	}
	if (n_rewired)
		strbuf_printf(&msg, ": %zu consumer%s now read%s '%s'", n_rewired, n_rewired == 1 ? "" : "s",
			      n_rewired == 1 ? "s" : "", in_name);
	if (vout->output_index >= 0) {
		strbuf_printf(&msg, "%sgraph output '%s' is now named '%s'", n_rewired ? "; " : ": ", out_name, in_name);
		if (set_name(s, &gp->output[vout->output_index]->name, in_name))
			goto oom;
	}
	for (size_t k = 0; k < np->n_output; k++)
		if (gn->out[k] >= 0)
			drop_value_info(s, np->output[k]);
	uint8_t *keep = malloc(g->n_nodes);
	if (!keep)
		goto oom;
	memset(keep, 1, g->n_nodes);
	keep[idx] = 0;
	edit_remove_nodes(s, keep); /* frees np; g is stale from here on */
	free(keep);
	if (drop_orphans(s, constants, n_constants, &msg, err))
		goto out;
	edit_say(s, "%s", strbuf_str(&msg));
	rc = 0;
	goto out;
oom:
	ov_fail(err, OV_NOMEM, "out of memory");
out:
	for (size_t i = 0; i < n_constants; i++)
		free(constants[i]);
	free(constants);
	free(in_name);
	free(out_name);
	strbuf_free(&who);
	strbuf_free(&users);
	strbuf_free(&data);
	strbuf_free(&msg);
	return rc;
}

const struct edit_cmd edit_delete_node_cmd = {
	.name = "delete-node",
	.usage = "delete-node NODE",
	.help = "bypass a node with one data input and one output (its consumers read its input); otherwise refuse and "
		"name them",
	.args = {{.kind = EDIT_ARG_NODE}},
	.exec = exec_delete_node,
};
