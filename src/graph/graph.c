/* Building the graph index: value table, producers and consumers, topological order, subgraphs. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/graph/graph.h"
#include "src/base/strmap.h"

static const char *const origin_names[] = {"undefined", "graph input", "initializer", "Constant output",
					   "node output", "outer scope"};

const char *value_origin_name(enum value_origin o)
{
	return (unsigned)o < sizeof origin_names / sizeof origin_names[0] ? origin_names[o] : "?";
}

/* ---- name tables ---- */

/* Names in a hostile model cannot be chosen to collide: the map's seeded hash. */
static uint64_t name_hash(const char *s)
{
	return strmap_hash(s);
}

/* The name of index i of table t of g. */
static const char *names_key(const struct graph *g, const struct graph_names *t, uint32_t i)
{
	if (t == &g->value_ids)
		return g->values[i].name;
	return g->nodes[i].proto->name;
}

/* The slot of name (empty when absent). */
static uint64_t *names_find(const struct graph *g, const struct graph_names *t, const char *name, uint64_t h)
{
	uint32_t j = (uint32_t)h & (t->cap - 1);
	uint64_t tag = h >> 32 << 32;

	for (;; j = (j + 1) & (t->cap - 1)) {
		uint64_t sl = t->slots[j];
		if (!sl || ((sl >> 32 << 32) == tag && !strcmp(names_key(g, t, (uint32_t)sl - 1), name)))
			return &t->slots[j];
	}
}

static int32_t names_get(const struct graph *g, const struct graph_names *t, const char *name)
{
	if (!t->cap)
		return -1;
	uint64_t sl = *names_find(g, t, name, name_hash(name));
	return sl ? (int32_t)((uint32_t)sl - 1) : -1;
}

/* Room for n names in all, at most 3/4 full. The slots keep the top of each hash but the table needs its bottom,
 * so growing hashes the names again (it happens at most a few times: tables are sized from counts first). */
static int names_reserve(const struct graph *g, struct graph_names *t, uint32_t n)
{
	uint32_t cap = t->cap ? t->cap : 64;

	while ((uint64_t)cap * 3 < (uint64_t)n * 4)
		cap *= 2;
	if (cap == t->cap)
		return 0;
	uint64_t *slots = calloc(cap, sizeof *slots);
	if (!slots)
		return -1;
	for (uint32_t i = 0; i < t->cap; i++)
		if (t->slots[i]) {
			uint64_t h = name_hash(names_key(g, t, (uint32_t)t->slots[i] - 1));
			uint32_t j = (uint32_t)h & (cap - 1);
			while (slots[j])
				j = (j + 1) & (cap - 1);
			slots[j] = t->slots[i];
		}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

/* Add index i under its name unless the name is there already (the first one wins). Returns 1 when added, 0 when
 * the name was there (*found set to its index when found is not NULL), -1 when out of memory. */
static int names_add(struct graph *g, struct graph_names *t, uint32_t i, const char *name, uint32_t *found)
{
	if (names_reserve(g, t, t->n + 1))
		return -1;
	uint64_t h = name_hash(name), *sl = names_find(g, t, name, h);
	if (*sl) {
		if (found)
			*found = (uint32_t)*sl - 1;
		return 0;
	}
	*sl = (h >> 32 << 32) | (i + 1);
	t->n++;
	return 1;
}

static void names_free(struct graph_names *t)
{
	free(t->slots);
	memset(t, 0, sizeof *t);
}

int32_t graph_value_id(const struct graph *g, const char *name)
{
	return names_get(g, &g->value_ids, name);
}

const struct graph_value *graph_value_resolve(const struct graph *g, int32_t id, const struct graph **owner)
{
	const struct graph_value *v = &g->values[id];

	while (v->origin == VALUE_OUTER && v->outer_graph) {
		g = v->outer_graph;
		v = &g->values[v->outer_id];
	}
	if (owner)
		*owner = g;
	return v;
}

int32_t graph_find_node(const struct graph *g, const char *ref)
{
	if (ref[0] == '#' && ref[1]) {
		char *end;
		long n = strtol(ref + 1, &end, 10);
		if (!*end && n >= 0 && (uint64_t)n < g->n_nodes)
			return (int32_t)n;
		return -1;
	}
	return names_get(g, &g->node_ids, ref);
}

static int is_constant_node(const Onnx__NodeProto *n)
{
	return n->op_type && !strcmp(n->op_type, "Constant") && (!n->domain || !*n->domain || !strcmp(n->domain, "ai.onnx"));
}

/* The tensor a Constant node holds, whichever attribute carries it; NULL for value_float(s)/int(s)/string(s). */
static const Onnx__TensorProto *constant_tensor(const Onnx__NodeProto *n)
{
	for (size_t a = 0; a < n->n_attribute; a++)
		if (n->attribute[a]->t)
			return n->attribute[a]->t;
	return NULL;
}

struct builder {
	struct graph *g;
	uint32_t cap;
	struct ov_error *err;
};

/* Find or add a value by name; returns its id or -1 when out of memory. */
static int32_t value_get(struct builder *b, const char *name)
{
	struct graph *g = b->g;
	uint32_t id = g->n_values, found;

	if (g->n_values == b->cap) {
		uint32_t cap = b->cap ? b->cap + b->cap / 2 + 16 : 64;
		struct graph_value *nv = realloc(g->values, cap * sizeof *nv);
		if (!nv)
			return -1;
		g->values = nv;
		b->cap = cap;
	}
	/* The slot is filled first: the table reads the new value's name from it. */
	g->values[id] = (struct graph_value){.name = name, .producer = -1, .producer_slot = -1, .input_index = -1,
					     .output_index = -1, .outer_id = -1};
	int added = names_add(g, &g->value_ids, id, name, &found);
	if (added < 0)
		return -1;
	if (!added)
		return (int32_t)found;
	g->n_values++;
	return (int32_t)id;
}

/* Look a name up in the enclosing graphs. */
static int resolve_outer(const struct graph *g, const char *name, struct graph **og, int32_t *oid)
{
	for (struct graph *p = g->parent; p; p = p->parent) {
		int32_t id = graph_value_id(p, name);
		if (id >= 0 && p->values[id].origin != VALUE_UNDEFINED) {
			*og = p;
			*oid = id;
			return 1;
		}
	}
	return 0;
}

static int build_one(struct graph *g, struct ov_error *err);

/* A binary min-heap of node indices: Kahn's algorithm takes the lowest ready index, so a sorted graph keeps its
 * stored order exactly. */
struct heap {
	uint32_t *a;
	uint32_t n;
};

static void heap_push(struct heap *h, uint32_t x)
{
	uint32_t i = h->n++;

	h->a[i] = x;
	while (i && h->a[(i - 1) / 2] > h->a[i]) {
		uint32_t p = (i - 1) / 2, t = h->a[p];
		h->a[p] = h->a[i];
		h->a[i] = t;
		i = p;
	}
}

static uint32_t heap_pop(struct heap *h)
{
	uint32_t top = h->a[0], i = 0;

	h->a[0] = h->a[--h->n];
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && h->a[l] < h->a[m])
			m = l;
		if (r < h->n && h->a[r] < h->a[m])
			m = r;
		if (m == i)
			break;
		uint32_t t = h->a[m];
		h->a[m] = h->a[i];
		h->a[i] = t;
		i = m;
	}
	return top;
}

void graph_foreach_capture(const struct graph *sub, const struct graph *g, void (*fn)(int32_t id, void *ctx), void *ctx)
{
	for (uint32_t i = 0; i < sub->n_values; i++) {
		const struct graph_value *v = &sub->values[i];
		if (v->origin == VALUE_OUTER && v->outer_graph == g)
			fn(v->outer_id, ctx);
	}
	for (uint32_t k = 0; k < sub->n_nodes; k++)
		for (uint32_t s = 0; s < sub->nodes[k].n_sub; s++)
			graph_foreach_capture(sub->nodes[k].sub[s], g, fn, ctx);
}

struct dep_ctx {
	struct graph *g;
	uint32_t node;
	uint32_t *indeg;
	uint32_t **succ;     /* per node: extra successors from captures (rare) */
	uint32_t *n_succ;
	int oom;
};

static void add_capture_dep(int32_t id, void *vctx)
{
	struct dep_ctx *c = vctx;
	int32_t p = c->g->values[id].producer;

	if (p < 0 || (uint32_t)p == c->node)
		return;
	uint32_t *ns = realloc(c->succ[p], (c->n_succ[p] + 1) * sizeof *ns);
	if (!ns) {
		c->oom = 1;
		return;
	}
	c->succ[p] = ns;
	ns[c->n_succ[p]++] = c->node;
	c->indeg[c->node]++;
}

static int topo_sort(struct graph *g, struct ov_error *err)
{
	uint32_t n = g->n_nodes;
	uint32_t *indeg = calloc(n ? n : 1, sizeof *indeg);
	uint32_t **succ = calloc(n ? n : 1, sizeof *succ);
	uint32_t *n_succ = calloc(n ? n : 1, sizeof *n_succ);
	struct heap h = {malloc((n ? n : 1) * sizeof *h.a), 0};
	struct dep_ctx dc = {g, 0, indeg, succ, n_succ, 0};
	int rc = -1;

	g->order = malloc((n ? n : 1) * sizeof *g->order);
	if (!indeg || !succ || !n_succ || !h.a || !g->order) {
		ov_fail(err, OV_NOMEM, "out of memory indexing the graph");
		goto out;
	}
	/* In-degree: one per input slot fed by another node (a node feeding itself is a cycle, counted too). */
	for (uint32_t i = 0; i < n; i++) {
		const struct graph_node *nd = &g->nodes[i];
		for (size_t k = 0; k < nd->proto->n_input; k++)
			if (nd->in[k] >= 0 && g->values[nd->in[k]].producer >= 0)
				indeg[i]++;
		dc.node = i;
		for (uint32_t s = 0; s < nd->n_sub; s++)
			graph_foreach_capture(nd->sub[s], g, add_capture_dep, &dc);
	}
	if (dc.oom) {
		ov_fail(err, OV_NOMEM, "out of memory indexing the graph");
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		if (!indeg[i])
			heap_push(&h, i);
	g->n_order = 0;
	while (h.n) {
		uint32_t i = heap_pop(&h);
		const struct graph_node *nd = &g->nodes[i];
		g->nodes[i].topo = g->n_order;
		g->order[g->n_order++] = i;
		for (size_t k = 0; k < nd->proto->n_output; k++) {
			int32_t v = nd->out[k];
			if (v < 0 || g->values[v].producer != (int32_t)i)
				continue;
			for (uint32_t u = 0; u < g->values[v].n_uses; u++)
				if (--indeg[g->values[v].uses[u].node] == 0)
					heap_push(&h, g->values[v].uses[u].node);
		}
		for (uint32_t s = 0; s < n_succ[i]; s++)
			if (--indeg[succ[i][s]] == 0)
				heap_push(&h, succ[i][s]);
	}
	for (uint32_t i = 0; i < n; i++)
		if (indeg[i])
			g->nodes[i].topo = n; /* on or behind a cycle */
	rc = 0;
out:
	for (uint32_t i = 0; succ && i < n; i++)
		free(succ[i]);
	free(succ);
	free(n_succ);
	free(indeg);
	free(h.a);
	return rc;
}

static int build_one(struct graph *g, struct ov_error *err)
{
	const Onnx__GraphProto *p = g->proto;
	struct builder b = {g, 0, err};
	size_t n_io = 0, n_uses = 0, n_defs = p->n_input + p->n_initializer + p->n_sparse_initializer;

	/* Size the tables for what the graph defines, so that they are not copied while they grow (a name a node
	 * reads and nothing defines is rare). */
	for (size_t i = 0; i < p->n_node; i++)
		n_defs += p->node[i]->n_output;
	if (n_defs >= INT32_MAX / 2 || p->n_node >= INT32_MAX / 2)
		return ov_fail(err, OV_LIMIT, "graph too large to index (%zu values)", n_defs);
	b.cap = (uint32_t)n_defs + 16;
	g->values = malloc(b.cap * sizeof *g->values);
	if (!g->values || names_reserve(g, &g->value_ids, b.cap))
		goto oom;
	/* 1. Everything this graph defines. */
	for (size_t i = 0; i < p->n_input; i++) {
		int32_t id = p->input[i]->name ? value_get(&b, p->input[i]->name) : -2;
		if (id == -1)
			goto oom;
		if (id >= 0 && g->values[id].input_index < 0) {
			g->values[id].origin = VALUE_INPUT;
			g->values[id].input_index = (int32_t)i;
			if (p->input[i]->type)
				g->values[id].declared = p->input[i];
		}
	}
	for (size_t i = 0; i < p->n_initializer; i++) {
		const Onnx__TensorProto *t = p->initializer[i];
		int32_t id = t->name ? value_get(&b, t->name) : -2;
		if (id == -1)
			goto oom;
		if (id >= 0) {
			g->values[id].origin = VALUE_INITIALIZER;
			g->values[id].constant = t;
		}
	}
	for (size_t i = 0; i < p->n_sparse_initializer; i++) {
		const Onnx__SparseTensorProto *sp = p->sparse_initializer[i];
		int32_t id = sp->values && sp->values->name ? value_get(&b, sp->values->name) : -2;
		if (id == -1)
			goto oom;
		if (id >= 0) {
			g->values[id].origin = VALUE_INITIALIZER;
			g->values[id].sparse = sp;
		}
	}
	g->n_nodes = (uint32_t)p->n_node;
	g->nodes = calloc(p->n_node ? p->n_node : 1, sizeof *g->nodes);
	if (!g->nodes || names_reserve(g, &g->node_ids, (uint32_t)p->n_node))
		goto oom;
	for (size_t i = 0; i < p->n_node; i++)
		n_io += p->node[i]->n_input + p->node[i]->n_output;
	g->io_pool = malloc((n_io ? n_io : 1) * sizeof *g->io_pool);
	if (!g->io_pool)
		goto oom;
	n_io = 0;
	for (size_t i = 0; i < p->n_node; i++) {
		Onnx__NodeProto *nd = p->node[i];
		struct graph_node *gn = &g->nodes[i];
		int is_const = is_constant_node(nd);
		gn->proto = nd;
		gn->in = g->io_pool + n_io;
		gn->out = gn->in + nd->n_input;
		n_io += nd->n_input + nd->n_output;
		if (nd->name && *nd->name) {
			int added = names_add(g, &g->node_ids, (uint32_t)i, nd->name, NULL);
			if (added < 0)
				goto oom;
			g->n_duplicate_names += !added;
		}
		for (size_t k = 0; k < nd->n_output; k++) {
			if (!*nd->output[k]) {
				gn->out[k] = -1;
				continue;
			}
			int32_t id = value_get(&b, nd->output[k]);
			if (id < 0)
				goto oom;
			struct graph_value *v = &g->values[id];
			gn->out[k] = id;
			if (v->n_producers++ == 0 && v->origin != VALUE_INITIALIZER && v->origin != VALUE_INPUT) {
				v->producer = (int32_t)i;
				v->producer_slot = (int32_t)k;
				v->origin = is_const ? VALUE_CONSTANT : VALUE_NODE;
				if (is_const)
					v->constant = constant_tensor(nd);
			} else if (v->producer < 0) {
				/* A node writing over an input or initializer: keep the node as producer, flag it twice. */
				v->n_producers++;
				v->producer = (int32_t)i;
				v->producer_slot = (int32_t)k;
			}
		}
	}
	/* 2. What nodes use: defined here, captured from outside, or undefined. */
	for (size_t i = 0; i < p->n_node; i++) {
		const Onnx__NodeProto *nd = p->node[i];
		for (size_t k = 0; k < nd->n_input; k++) {
			if (!*nd->input[k]) {
				g->nodes[i].in[k] = -1;
				continue;
			}
			int32_t id = graph_value_id(g, nd->input[k]);
			if (id < 0) {
				id = value_get(&b, nd->input[k]);
				if (id < 0)
					goto oom;
				struct graph *og;
				int32_t oid;
				if (resolve_outer(g, nd->input[k], &og, &oid)) {
					g->values[id].origin = VALUE_OUTER;
					g->values[id].outer_graph = og;
					g->values[id].outer_id = oid;
				}
			}
			g->nodes[i].in[k] = id;
			g->values[id].n_uses++;
			n_uses++;
		}
	}
	/* 3. Declared types and graph outputs. */
	for (size_t i = 0; i < p->n_value_info; i++) {
		int32_t id = p->value_info[i]->name ? graph_value_id(g, p->value_info[i]->name) : -1;
		if (id >= 0 && !g->values[id].declared && p->value_info[i]->type)
			g->values[id].declared = p->value_info[i];
	}
	for (size_t i = 0; i < p->n_output; i++) {
		const char *name = p->output[i]->name ? p->output[i]->name : "";
		int32_t id = graph_value_id(g, name);
		if (id < 0) {
			id = value_get(&b, name);
			if (id < 0)
				goto oom;
			struct graph *og;
			int32_t oid;
			if (resolve_outer(g, name, &og, &oid)) {
				g->values[id].origin = VALUE_OUTER;
				g->values[id].outer_graph = og;
				g->values[id].outer_id = oid;
			}
		}
		if (g->values[id].output_index < 0)
			g->values[id].output_index = (int32_t)i;
		if (p->output[i]->type && (!g->values[id].declared || g->values[id].origin == VALUE_NODE))
			g->values[id].declared = p->output[i];
	}
	/* 4. Consumers, in node order. */
	g->use_pool = malloc((n_uses ? n_uses : 1) * sizeof *g->use_pool);
	if (!g->use_pool)
		goto oom;
	n_uses = 0;
	for (uint32_t v = 0; v < g->n_values; v++) {
		g->values[v].uses = g->use_pool + n_uses;
		n_uses += g->values[v].n_uses;
		g->values[v].n_uses = 0;
	}
	for (size_t i = 0; i < p->n_node; i++)
		for (size_t k = 0; k < p->node[i]->n_input; k++) {
			int32_t id = g->nodes[i].in[k];
			if (id >= 0)
				g->values[id].uses[g->values[id].n_uses++] = (struct graph_use){(uint32_t)i, (uint32_t)k};
		}
	/* 5. Subgraphs see everything defined above. */
	for (size_t i = 0; i < p->n_node; i++) {
		const Onnx__NodeProto *nd = p->node[i];
		struct graph_node *gn = &g->nodes[i];
		uint32_t ns = 0;
		for (size_t a = 0; a < nd->n_attribute; a++)
			ns += (nd->attribute[a]->g ? 1u : 0u) + (uint32_t)nd->attribute[a]->n_graphs;
		if (!ns)
			continue;
		gn->sub = calloc(ns, sizeof *gn->sub);
		gn->sub_attr = calloc(ns, sizeof *gn->sub_attr);
		if (!gn->sub || !gn->sub_attr)
			goto oom;
		for (size_t a = 0; a < nd->n_attribute; a++) {
			const Onnx__AttributeProto *at = nd->attribute[a];
			for (size_t k = 0; k < (at->g ? 1 : 0) + at->n_graphs; k++) {
				struct graph *s = calloc(1, sizeof *s);
				if (!s)
					goto oom;
				s->proto = at->g && k == 0 ? at->g : at->graphs[k - (at->g ? 1 : 0)];
				s->parent = g;
				s->parent_node = (int32_t)i;
				s->depth = g->depth + 1;
				gn->sub[gn->n_sub] = s;
				gn->sub_attr[gn->n_sub++] = at->name;
				if (build_one(s, err))
					return -1;
			}
		}
	}
	return topo_sort(g, err);
oom:
	return ov_fail(err, OV_NOMEM, "out of memory indexing the graph");
}

int graph_build(struct graph **out, const Onnx__GraphProto *proto, struct ov_error *err)
{
	struct graph *g = calloc(1, sizeof *g);

	*out = NULL;
	if (!g)
		return ov_fail(err, OV_NOMEM, "out of memory indexing the graph");
	static uint64_t serials;
	g->proto = proto;
	g->parent_node = -1;
	g->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
	if (build_one(g, err)) {
		graph_free(g);
		return -1;
	}
	*out = g;
	return 0;
}

void graph_free(struct graph *g)
{
	if (!g)
		return;
	for (uint32_t i = 0; g->nodes && i < g->n_nodes; i++) {
		for (uint32_t s = 0; s < g->nodes[i].n_sub; s++)
			graph_free(g->nodes[i].sub[s]);
		free(g->nodes[i].sub);
		free(g->nodes[i].sub_attr);
	}
	names_free(&g->value_ids);
	names_free(&g->node_ids);
	free(g->values);
	free(g->nodes);
	free(g->order);
	free(g->use_pool);
	free(g->io_pool);
	free(g);
}

static void mark_captured(int32_t id, void *ctx)
{
	((uint8_t *)ctx)[id] = 1;
}

uint8_t *graph_captured_values(const struct graph *g)
{
	uint8_t *cap = calloc(g->n_values ? g->n_values : 1, 1);

	if (!cap)
		return NULL;
	for (uint32_t i = 0; i < g->n_nodes; i++)
		for (uint32_t s = 0; s < g->nodes[i].n_sub; s++)
			graph_foreach_capture(g->nodes[i].sub[s], g, mark_captured, cap);
	return cap;
}
