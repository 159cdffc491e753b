/* extract FROM,... TO,...: keep only the part of the graph that computes TO from FROM (FROM become the graph's
 * inputs, TO its outputs), refusing a cut that would need a value from outside it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/edit/internal.h"
#include "src/base/strbuf.h"

#define MAX_NAMED 12 /* values named in one message before "and N more" */

struct cut {
	const struct graph *g;
	uint8_t *in_from, *need, *keep, *dep, *taint, *leak, *from_used;
	int32_t *src;  /* for a tainted value: the graph input (or undefined value) it comes from */
	const int32_t *from; /* value ids of FROM, TO (the resolved arguments') */
	const int32_t *to;
	size_t n_from, n_to;
	char *const *from_names, *const *to_names;
};

static void cut_free(struct cut *c)
{
	free(c->in_from);
	free(c->need);
	free(c->keep);
	free(c->dep);
	free(c->taint);
	free(c->leak);
	free(c->from_used);
	free(c->src);
}

/* ---- which nodes: producers backwards from TO, stopping at FROM and constants ---- */

struct stack {
	int32_t *v;
	size_t n, cap;
	int oom;
};

static void push(int32_t id, void *ctx)
{
	struct stack *st = ctx;

	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 64;
		int32_t *nv = realloc(st->v, cap * sizeof *nv);
		if (!nv) {
			st->oom = 1;
			return;
		}
		st->v = nv;
		st->cap = cap;
	}
	st->v[st->n++] = id;
}

static int walk(struct cut *c, struct ov_error *err)
{
	const struct graph *g = c->g;
	struct stack st = {0};

	for (size_t i = 0; i < c->n_to; i++)
		push(c->to[i], &st);
	while (st.n && !st.oom) {
		int32_t id = st.v[--st.n];
		const struct graph_value *v = &g->values[id];
		if (c->need[id])
			continue;
		c->need[id] = 1;
		if (c->in_from[id]) {
			c->from_used[id] = 1;
			continue;
		}
		if ((v->origin != VALUE_NODE && v->origin != VALUE_CONSTANT) || v->producer < 0 || c->keep[v->producer])
			continue; /* initializers stay constants; graph inputs and undefined values are checked below */
		const struct graph_node *gn = &g->nodes[v->producer];
		c->keep[v->producer] = 1;
		for (size_t k = 0; k < gn->proto->n_input; k++)
			if (gn->in[k] >= 0)
				push(gn->in[k], &st);
		edit_node_captures(g, (uint32_t)v->producer, push, &st);
	}
	free(st.v);
	return st.oom ? ov_fail(err, OV_NOMEM, "out of memory") : 0;
}

/* ---- is the cut complete: what flows from FROM, what from outside ---- */

struct flow {
	const struct cut *c;
	int dep, taint;
	int32_t src;
	int mark; /* second pass: mark outside values read next to values from FROM */
};

static void flow_in(int32_t id, void *ctx)
{
	struct flow *f = ctx;
	const struct cut *c = f->c;

	if (f->mark) {
		if (c->taint[id] && !c->dep[id])
			c->leak[id] = 1;
		return;
	}
	f->dep |= c->dep[id];
	if (c->taint[id]) {
		f->taint = 1;
		if (f->src < 0)
			f->src = c->src[id];
	}
}

static void node_flow(const struct cut *c, uint32_t i, struct flow *f)
{
	const struct graph_node *gn = &c->g->nodes[i];

	for (size_t k = 0; k < gn->proto->n_input; k++)
		if (gn->in[k] >= 0)
			flow_in(gn->in[k], f);
	edit_node_captures(c->g, i, flow_in, f);
}

/* A value from outside the cut (a graph input not in FROM, or one nothing defines) taints what it reaches.  Where a
 * node mixes tainted values with values computed from FROM, the tainted ones leak in: those are what to name. */
static int flow(struct cut *c, struct ov_error *err)
{
	const struct graph *g = c->g;

	for (uint32_t v = 0; v < g->n_values; v++) {
		c->src[v] = -1;
		if (c->in_from[v])
			c->dep[v] = 1;
		else if (c->need[v] && (g->values[v].origin == VALUE_INPUT || g->values[v].origin == VALUE_UNDEFINED)) {
			c->taint[v] = 1;
			c->src[v] = (int32_t)v;
		}
	}
	for (uint32_t i = 0; i < g->n_nodes; i++)
		if (c->keep[i] && g->nodes[i].topo >= g->n_nodes) {
			struct strbuf b = {0};
			edit_describe_node(&b, g, i);
			ov_fail(err, OV_INVALID, "the cut runs through a cycle (at %s): fix the graph first", strbuf_str(&b));
			strbuf_free(&b);
			return -1;
		}
	for (uint32_t k = 0; k < g->n_order; k++) {
		uint32_t i = g->order[k];
		const struct graph_node *gn = &g->nodes[i];
		if (!c->keep[i])
			continue;
		struct flow f = {c, 0, 0, -1, 0};
		node_flow(c, i, &f);
		if (f.dep && f.taint) {
			f.mark = 1;
			node_flow(c, i, &f);
		}
		for (size_t o = 0; o < gn->proto->n_output; o++) {
			int32_t id = gn->out[o];
			if (id < 0 || g->values[id].producer != (int32_t)i)
				continue;
			c->dep[id] = (uint8_t)f.dep;
			c->taint[id] = (uint8_t)f.taint;
			c->src[id] = f.src;
		}
	}
	return 0;
}

/* "(a graph input)", "(computed from graph input 'x')" ... */
static void describe_origin(struct strbuf *b, const struct graph *g, int32_t id, int32_t src)
{
	enum value_origin o = g->values[id].origin;

	if (src == id)
		strbuf_puts(b, o == VALUE_INPUT ? "a graph input" : "defined nowhere");
	else if (o == VALUE_INITIALIZER || o == VALUE_CONSTANT)
		strbuf_puts(b, "a constant");
	else if (src >= 0)
		strbuf_printf(b, g->values[src].origin == VALUE_INPUT ? "computed from graph input '%s'" :
			      "computed from '%s', which is defined nowhere", g->values[src].name);
	else
		strbuf_puts(b, "computed from constants only");
}

static int check_cut(struct cut *c, struct ov_error *err)
{
	const struct graph *g = c->g;
	struct strbuf b = {0};
	size_t n = 0;

	/* A node the cut needs that also computes a FROM value would define that value a second time. */
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		const struct graph_node *gn = &g->nodes[i];
		for (size_t o = 0; c->keep[i] && o < gn->proto->n_output; o++)
			if (gn->out[o] >= 0 && c->in_from[gn->out[o]]) {
				edit_describe_node(&b, g, i);
				ov_fail(err, OV_INVALID, "FROM '%s' is computed by %s, which the cut needs for its other "
					"outputs: give those outputs in FROM too, or the node's inputs instead of '%s'",
					g->values[gn->out[o]].name, strbuf_str(&b), g->values[gn->out[o]].name);
				strbuf_free(&b);
				return -1;
			}
	}
	for (size_t i = 0; i < c->n_to; i++) {
		int32_t id = c->to[i];
		if (c->dep[id])
			continue;
		describe_origin(&b, g, id, c->src[id]);
		ov_fail(err, OV_INVALID, "TO '%s' cannot be reached from FROM: it is %s, not from any of FROM", c->to_names[i],
			strbuf_str(&b));
		strbuf_free(&b);
		return -1;
	}
	for (uint32_t v = 0; v < g->n_values; v++) {
		if (!c->leak[v])
			continue;
		if (n++ < MAX_NAMED) {
			strbuf_printf(&b, "%s'%s' (", n > 1 ? ", " : "", g->values[v].name);
			describe_origin(&b, g, (int32_t)v, c->src[v]);
			strbuf_putc(&b, ')');
		}
	}
	if (n) {
		if (n > MAX_NAMED)
			strbuf_printf(&b, " and %zu more", n - MAX_NAMED);
		ov_fail(err, OV_INVALID, "incomplete cut: computing TO from FROM also needs %s; add %s to FROM",
			strbuf_str(&b), n == 1 ? "it" : "them");
		strbuf_free(&b);
		return -1;
	}
	return 0;
}

/* ---- the new graph inputs and outputs ---- */

static void *xalloc(struct edit_session *s, size_t n)
{
	return s->m->alloc.alloc(s->m->alloc.allocator_data, n ? n : 1);
}

static Onnx__ValueInfoProto *copy_value_info(struct edit_session *s, const Onnx__ValueInfoProto *vi)
{
	size_t n = protobuf_c_message_get_packed_size(&vi->base);
	uint8_t *buf = malloc(n ? n : 1);
	Onnx__ValueInfoProto *c = NULL;

	if (buf) {
		protobuf_c_message_pack(&vi->base, buf);
		c = onnx__value_info_proto__unpack(&s->m->alloc, n, buf);
		free(buf);
	}
	return c;
}

/* A tensor type from what inference knows: the dtype when known, the shape when the rank is. */
static Onnx__TypeProto *type_from_shape(struct edit_session *s, const struct vshape *vs)
{
	Onnx__TypeProto *tp = xalloc(s, sizeof *tp);
	Onnx__TypeProto__Tensor *tt;

	if (!tp)
		return NULL;
	onnx__type_proto__init(tp);
	if (!(tt = xalloc(s, sizeof *tt)))
		goto fail;
	onnx__type_proto__tensor__init(tt);
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	if (vs->dtype) {
		tt->has_elem_type = 1;
		tt->elem_type = vs->dtype;
	}
	if (vs->rank < 0)
		return tp;
	Onnx__TensorShapeProto *sh = xalloc(s, sizeof *sh);
	if (!sh)
		goto fail;
	onnx__tensor_shape_proto__init(sh);
	tt->shape = sh;
	if (vs->rank && !(sh->dim = xalloc(s, (size_t)vs->rank * sizeof *sh->dim)))
		goto fail;
	for (int i = 0; i < vs->rank; i++) {
		Onnx__TensorShapeProto__Dimension *d = xalloc(s, sizeof *d);
		if (!d)
			goto fail;
		onnx__tensor_shape_proto__dimension__init(d);
		sh->dim[sh->n_dim++] = d;
		if (edit_set_declared_dim(s, d, vs->dims[i].v == DIM_UNKNOWN ? -1 : vs->dims[i].v,
					  vs->dims[i].v == DIM_UNKNOWN ? vs->dims[i].sym : NULL))
			goto fail;
	}
	return tp;
fail:
	protobuf_c_message_free_unpacked(&tp->base, &s->m->alloc);
	return NULL;
}

/* The ValueInfoProto for a new graph input or output: the declared one (copied), else one from inference. */
static Onnx__ValueInfoProto *value_info_for(struct edit_session *s, int32_t id, int *untyped)
{
	const struct graph_value *v = &s->g->values[id];
	const struct vshape *vs = shapes_get(s->sh, s->g, id);
	Onnx__ValueInfoProto *vi;

	*untyped = 0;
	if (v->declared && v->declared->type)
		return copy_value_info(s, v->declared);
	if (!(vi = xalloc(s, sizeof *vi)))
		return NULL;
	onnx__value_info_proto__init(vi);
	if (!(vi->name = edit_strdup(s, v->name)))
		goto fail;
	if (vs && (vs->dtype || vs->rank >= 0)) {
		if (!(vi->type = type_from_shape(s, vs)))
			goto fail;
	}
	*untyped = !vs || !vs->dtype;
	return vi;
fail:
	protobuf_c_message_free_unpacked(&vi->base, &s->m->alloc);
	return NULL;
}

/* New inputs (or outputs): a copy of an existing entry of the same name, else one made from what is known. */
static int make_io(struct edit_session *s, Onnx__ValueInfoProto *const *old, size_t n_old, const int32_t *ids,
		   size_t n, Onnx__ValueInfoProto ***out, struct strbuf *untyped)
{
	Onnx__ValueInfoProto **nv = xalloc(s, n * sizeof *nv);

	*out = nv;
	if (!nv)
		return -1;
	memset(nv, 0, n * sizeof *nv);
	for (size_t i = 0; i < n; i++) {
		const char *name = s->g->values[ids[i]].name;
		const Onnx__ValueInfoProto *same = NULL;
		int no_type = 0;
		for (size_t k = 0; k < n_old && !same; k++)
			if (old[k]->name && !strcmp(old[k]->name, name) && old[k]->type)
				same = old[k];
		nv[i] = same ? copy_value_info(s, same) : value_info_for(s, ids[i], &no_type);
		if (!nv[i])
			return -1;
		if (no_type)
			strbuf_printf(untyped, "%s'%s'", untyped->len ? ", " : "", name);
	}
	return 0;
}

static void free_io(struct edit_session *s, Onnx__ValueInfoProto **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		if (v[i])
			protobuf_c_message_free_unpacked(&v[i]->base, &s->m->alloc);
	s->m->alloc.free(s->m->alloc.allocator_data, v);
}

/* FROM initializers become inputs; value_info of the new inputs and outputs is redundant.  Every name is looked up
 * before anything is freed: the index's names point into the entries. */
static int drop_named(struct edit_session *s, const struct cut *c)
{
	Onnx__GraphProto *gp = s->m->proto->graph;
	size_t n = gp->n_initializer + gp->n_sparse_initializer + gp->n_value_info;
	uint8_t *drop = calloc(n ? n : 1, 1), *d = drop;

	if (!drop)
		return -1;
	for (size_t i = 0; i < gp->n_initializer; i++) {
		const char *name = gp->initializer[i]->name;
		int32_t id = name ? graph_value_id(c->g, name) : -1;
		d[i] = id >= 0 && c->in_from[id];
	}
	d += gp->n_initializer;
	for (size_t i = 0; i < gp->n_sparse_initializer; i++) {
		const Onnx__SparseTensorProto *sp = gp->sparse_initializer[i];
		int32_t id = sp->values && sp->values->name ? graph_value_id(c->g, sp->values->name) : -1;
		d[i] = id >= 0 && c->in_from[id];
	}
	d += gp->n_sparse_initializer;
	for (size_t i = 0; i < gp->n_value_info; i++) {
		const char *name = gp->value_info[i]->name;
		int32_t id = name ? graph_value_id(c->g, name) : -1;
		for (size_t k = 0; id >= 0 && k < c->n_to; k++)
			d[i] |= c->to[k] == id;
		d[i] |= id >= 0 && c->in_from[id];
	}
	size_t ni = gp->n_initializer, ns = gp->n_sparse_initializer;
	EDIT_COMPACT(s, gp->initializer, gp->n_initializer, drop);
	EDIT_COMPACT(s, gp->sparse_initializer, gp->n_sparse_initializer, drop + ni);
	EDIT_COMPACT(s, gp->value_info, gp->n_value_info, drop + ni + ns);
	free(drop);
	return 0;
}

static int exec_extract(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	struct cut c = {
		.from = a->v[0].names.ids, .n_from = a->v[0].names.n, .from_names = a->v[0].names.names,
		.to = a->v[1].names.ids, .n_to = a->v[1].names.n, .to_names = a->v[1].names.names,
	};
	struct strbuf untyped = {0}, unused = {0};
	Onnx__ValueInfoProto **inputs = NULL, **outputs = NULL;
	int rc = -1;

	if (edit_index(s, err))
		goto out;
	const struct graph *g = c.g = s->g;
	size_t nv = g->n_values ? g->n_values : 1, nn = g->n_nodes ? g->n_nodes : 1;
	c.in_from = calloc(nv, 1);
	c.need = calloc(nv, 1);
	c.dep = calloc(nv, 1);
	c.taint = calloc(nv, 1);
	c.leak = calloc(nv, 1);
	c.from_used = calloc(nv, 1);
	c.src = calloc(nv, sizeof *c.src);
	c.keep = calloc(nn, 1);
	if (!c.in_from || !c.need || !c.dep || !c.taint || !c.leak || !c.from_used || !c.src || !c.keep) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c.n_from; i++)
		c.in_from[c.from[i]] = 1;
	for (size_t i = 0; i < c.n_to; i++)
		if (c.in_from[c.to[i]]) {
			ov_fail(err, OV_INVALID, "'%s' is in both FROM and TO", c.to_names[i]);
			goto out;
		}
	if (walk(&c, err) || flow(&c, err) || check_cut(&c, err))
		goto out;
	for (size_t i = 0; i < c.n_from; i++)
		if (!c.from_used[c.from[i]])
			strbuf_printf(&unused, "%s'%s'", unused.len ? ", " : "", c.from_names[i]);

	/* Everything read from the index is settled; now change the model. */
	Onnx__GraphProto *gp = s->m->proto->graph;
	if (make_io(s, gp->input, gp->n_input, c.from, c.n_from, &inputs, &untyped) ||
	    make_io(s, gp->output, gp->n_output, c.to, c.n_to, &outputs, &untyped)) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	if (drop_named(s, &c)) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	free_io(s, gp->input, gp->n_input);
	free_io(s, gp->output, gp->n_output);
	gp->input = inputs;
	gp->n_input = c.n_from;
	gp->output = outputs;
	gp->n_output = c.n_to;
	inputs = outputs = NULL;
	size_t kept = 0, total = g->n_nodes;
	for (uint32_t i = 0; i < g->n_nodes; i++)
		kept += c.keep[i];
	edit_remove_nodes(s, c.keep); /* the index is stale from here on */
	struct edit_prune_counts pc;
	if (edit_prune_unused(s, &pc, err))
		goto out;
	edit_say(s, "extracted %zu of %zu nodes; %zu graph input%s, %zu output%s", kept, total, c.n_from,
		 c.n_from == 1 ? "" : "s", c.n_to, c.n_to == 1 ? "" : "s");
	if (unused.len)
		edit_say(s, "warning: TO does not need FROM %s: kept as unused graph input%s", strbuf_str(&unused),
			 strchr(strbuf_str(&unused), ',') ? "s" : "");
	if (untyped.len)
		edit_say(s, "warning: no known dtype for %s: onnx.checker and runtimes need one (set-type VALUE DTYPE)",
			 strbuf_str(&untyped));
	rc = 0;
out:
	if (inputs)
		free_io(s, inputs, c.n_from);
	if (outputs)
		free_io(s, outputs, c.n_to);
	strbuf_free(&untyped);
	strbuf_free(&unused);
	cut_free(&c);
	return rc;
}

const struct edit_cmd edit_extract_cmd = {
	.name = "extract",
	.usage = "extract FROM,... TO,...",
	.help = "keep only the nodes that compute TO from FROM (FROM become the graph inputs, TO the outputs); refuse an "
		"incomplete cut, naming what leaks in",
	.args = {{.kind = EDIT_ARG_VALUES, .what = "FROM"}, {.kind = EDIT_ARG_VALUES, .what = "TO"}},
	.exec = exec_extract,
};
