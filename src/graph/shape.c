/* Shape inference driver: seeds values from inputs and constants, runs op rules in topological order, descends
 * into subgraphs, and provides the helpers the rules share. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "src/model/describe.h"
#include "src/base/dtype.h"
#include "src/graph/shape-rules.h"
#include "src/base/strbuf.h"

/* ---- a bump allocator for dims and folded values ---- */
struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

struct shape_graph {
	const struct graph *g;
	struct vshape *v;
	struct shape_note *notes;
	size_t n_notes, cap_notes;
};

/* A shape many values have, kept once: dims are never changed once a value has them, so values share them (a
 * chain of 51,000 [1,16] values needs one copy, not 51,000). */
struct shared_dims {
	const struct dim *d; /* NULL: free slot */
	uint32_t n;
	uint32_t hash;
};

struct shapes_impl {
	struct shapes pub;
	struct arena_block *arena;
	struct arena_block *scratch; /* dims_tmp: what a rule works in, emptied after each node */
	struct shared_dims *shared;
	size_t cap_shared, n_shared;
	struct shape_graph **graphs;
	size_t n_graphs, cap_graphs;
	struct shape_graph **index; /* open addressing by graph pointer: lookups were a linear search, which made */
	size_t cap_index;           /* models with thousands of subgraphs quadratic (seconds for 60 KB) */
	int oom;
};

static void *block_alloc(struct shapes_impl *si, struct arena_block **head, size_t n)
{
	struct arena_block *b = *head;

	n = (n + 15) & ~(size_t)15;
	if (!b || b->used + n > b->cap) {
		size_t cap = n > 65536 ? n : 65536;
		b = malloc(sizeof *b + cap);
		if (!b) {
			si->oom = 1;
			return NULL;
		}
		b->next = *head;
		b->used = 0;
		b->cap = cap;
		*head = b;
	}
	void *p = b->data + b->used;
	b->used += n;
	return p;
}

static void *arena_alloc(struct shapes *s, size_t n)
{
	struct shapes_impl *si = (struct shapes_impl *)s;

	return block_alloc(si, &si->arena, n);
}

static void blocks_free(struct arena_block *b)
{
	while (b) {
		struct arena_block *next = b->next;
		free(b);
		b = next;
	}
}

/* Empty the scratch blocks, keeping one for the next node. */
static void scratch_reset(struct shapes_impl *si)
{
	if (!si->scratch)
		return;
	blocks_free(si->scratch->next);
	si->scratch->next = NULL;
	si->scratch->used = 0;
}

static struct dim *dims_copy(struct shapes *s, const struct dim *d, size_t n)
{
	struct dim *r = arena_alloc(s, (n ? n : 1) * sizeof *r);

	if (r && d)
		memcpy(r, d, n * sizeof *r);
	else if (r)
		for (size_t i = 0; i < n; i++)
			r[i] = dim_unknown();
	return r;
}

/* Seeded per process, so that a model cannot be made of shapes that all land in one slot. */
static uint32_t dims_hash(const struct dim *d, size_t n)
{
	static uint64_t seed;
	uint64_t h;

	if (!seed && getrandom(&seed, sizeof seed, GRND_NONBLOCK) != sizeof seed)
		seed = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)&seed;
	h = seed ^ n;
	for (size_t i = 0; i < n; i++) {
		h = (h ^ (uint64_t)d[i].v) * 0xff51afd7ed558ccdull;
		h = (h ^ (uint64_t)(uintptr_t)d[i].sym) * 0xc4ceb9fe1a85ec53ull;
		h ^= h >> 29;
	}
	h ^= h >> 32;
	return (uint32_t)h;
}

/* The shared copy of n dims (equal numbers and the same symbol strings), made on first use; NULL when out of
 * memory. The result must never be changed. */
static struct dim *dims_share(struct shapes *s, const struct dim *d, size_t n)
{
	struct shapes_impl *si = (struct shapes_impl *)s;
	uint32_t h = dims_hash(d, n);

	if ((si->n_shared + 1) * 2 > si->cap_shared) {
		size_t cap = si->cap_shared ? si->cap_shared * 2 : 256;
		struct shared_dims *ns = calloc(cap, sizeof *ns);
		if (!ns) {
			si->oom = 1;
			return NULL;
		}
		for (size_t i = 0; i < si->cap_shared; i++)
			if (si->shared[i].d) {
				size_t j = si->shared[i].hash & (cap - 1);
				while (ns[j].d)
					j = (j + 1) & (cap - 1);
				ns[j] = si->shared[i];
			}
		free(si->shared);
		si->shared = ns;
		si->cap_shared = cap;
	}
	size_t j = h & (si->cap_shared - 1);
	for (; si->shared[j].d; j = (j + 1) & (si->cap_shared - 1))
		if (si->shared[j].hash == h && si->shared[j].n == n && !memcmp(si->shared[j].d, d, n * sizeof *d))
			return (struct dim *)si->shared[j].d;
	struct dim *r = dims_copy(s, d, n);
	if (r) {
		si->shared[j] = (struct shared_dims){r, (uint32_t)n, h};
		si->n_shared++;
	}
	return r;
}

/* ---- helpers for rules ---- */

const struct vshape *in_shape(const struct infer_ctx *c, size_t k)
{
	return k < c->n_in ? c->ins[k] : NULL;
}

int in_known_rank(const struct infer_ctx *c, size_t k)
{
	const struct vshape *v = in_shape(c, k);
	return v ? v->rank : -1;
}

struct vshape *out_shape(struct infer_ctx *c, size_t k)
{
	return k < c->n_out ? c->outs[k] : NULL;
}

void set_out(struct infer_ctx *c, size_t k, int32_t dtype, int64_t rank, const struct dim *dims)
{
	struct vshape *o = out_shape(c, k);

	if (!o)
		return;
	if (rank > SHAPE_MAX_RANK) {
		infer_note(c, "output %zu would have rank %lld, over %d: left unknown", k, (long long)rank,
			   SHAPE_MAX_RANK);
		rank = -1;
	}
	o->dtype = dtype;
	o->rank = rank < 0 ? -1 : (int)rank;
	o->dims = NULL;
	if (rank >= 0 && dims)
		o->dims = dims_share(c->s, dims, (size_t)rank);
	else if (rank >= 0) {
		struct dim unknown[SHAPE_MAX_RANK];
		for (int i = 0; i < rank; i++)
			unknown[i] = dim_unknown();
		o->dims = dims_share(c->s, unknown, (size_t)rank);
	}
	o->source = SHAPE_INFERRED;
}

void set_out_like(struct infer_ctx *c, size_t k, const struct vshape *src, int32_t dtype)
{
	if (!src)
		set_out(c, k, dtype, -1, NULL);
	else
		set_out(c, k, dtype, src->rank, src->dims);
}

void set_out_vals(struct infer_ctx *c, size_t k, const struct dim *vals, int64_t n)
{
	struct vshape *o = out_shape(c, k);

	if (!o || n < 0 || n > SHAPE_FOLD_MAX)
		return;
	o->val = vals ? dims_share(c->s, vals, (size_t)n) : dims_copy(c->s, NULL, (size_t)n);
	o->n_val = o->val ? n : -1;
}

struct dim *dims_tmp(struct infer_ctx *c, size_t n)
{
	struct shapes_impl *si = (struct shapes_impl *)c->s;
	struct dim *r = block_alloc(si, &si->scratch, (n ? n : 1) * sizeof *r);

	for (size_t i = 0; r && i < n; i++)
		r[i] = dim_unknown();
	return r;
}

int64_t in_vals(const struct infer_ctx *c, size_t k, const struct dim **vals)
{
	const struct vshape *v = in_shape(c, k);

	if (!v || v->n_val < 0 || !v->val) /* a float constant folds into fval, not val */
		return -1;
	*vals = v->val;
	return v->n_val;
}

int64_t in_ints(const struct infer_ctx *c, size_t k, int64_t *buf, int64_t max)
{
	const struct dim *d;
	int64_t n = in_vals(c, k, &d);

	if (n < 0 || n > max)
		return -1;
	for (int64_t i = 0; i < n; i++) {
		if (!dim_known(d[i]))
			return -1;
		buf[i] = d[i].v;
	}
	return n;
}

int64_t in_floats(const struct infer_ctx *c, size_t k, double *buf, int64_t max)
{
	const struct vshape *v = in_shape(c, k);
	int64_t n;

	if (!v)
		return -1;
	if (v->fval) {
		n = v->n_val;
		if (n < 0 || n > max)
			return -1;
		memcpy(buf, v->fval, (size_t)n * sizeof *buf);
		return n;
	}
	int64_t tmp[SHAPE_FOLD_MAX];
	n = in_ints(c, k, tmp, max < SHAPE_FOLD_MAX ? max : SHAPE_FOLD_MAX);
	for (int64_t i = 0; i < n; i++)
		buf[i] = (double)tmp[i];
	return n;
}

const Onnx__AttributeProto *attr(const struct infer_ctx *c, const char *name)
{
	for (size_t a = 0; a < c->proto->n_attribute; a++)
		if (c->proto->attribute[a]->name && !strcmp(c->proto->attribute[a]->name, name))
			return c->proto->attribute[a];
	return NULL;
}

int64_t attr_int(const struct infer_ctx *c, const char *name, int64_t def)
{
	const Onnx__AttributeProto *a = attr(c, name);
	return a && a->has_i ? a->i : def;
}

float attr_float(const struct infer_ctx *c, const char *name, float def)
{
	const Onnx__AttributeProto *a = attr(c, name);
	return a && a->has_f ? a->f : def;
}

int64_t attr_ints(const struct infer_ctx *c, const char *name, int64_t *buf, int64_t max)
{
	const Onnx__AttributeProto *a = attr(c, name);

	if (!a)
		return -1;
	if (a->n_ints > (size_t)max)
		return ATTR_TOO_MANY;
	for (size_t i = 0; i < a->n_ints; i++)
		buf[i] = a->ints[i];
	return (int64_t)a->n_ints;
}

const char *attr_str(const struct infer_ctx *c, const char *name, char *buf, size_t n)
{
	const Onnx__AttributeProto *a = attr(c, name);
	size_t l = a && a->has_s ? a->s.len : 0;

	if (l >= n || (l && memchr(a->s.data, '\0', l))) {
		snprintf(buf, n, "\x01?");
		return buf;
	}
	if (l)
		memcpy(buf, a->s.data, l);
	buf[l] = '\0';
	return buf;
}

int infer_note(struct infer_ctx *c, const char *fmt, ...)
{
	struct shape_graph *sg = c->sg;
	va_list ap;

	if (sg->n_notes == sg->cap_notes) {
		size_t cap = sg->cap_notes ? sg->cap_notes * 2 : 16;
		struct shape_note *nn = realloc(sg->notes, cap * sizeof *nn);
		if (!nn)
			return -1;
		sg->notes = nn;
		sg->cap_notes = cap;
	}
	struct shape_note *n = &sg->notes[sg->n_notes++];
	n->node = (int32_t)c->node;
	va_start(ap, fmt);
	vsnprintf(n->msg, sizeof n->msg, fmt, ap);
	va_end(ap);
	return -1;
}

int dim_equal(struct dim a, struct dim b)
{
	if (dim_known(a) || dim_known(b))
		return a.v == b.v;
	return a.sym && b.sym && !strcmp(a.sym, b.sym);
}

int broadcast(const struct vshape *a, const struct vshape *b, struct dim *out, struct infer_ctx *c)
{
	if (!a || !b || a->rank < 0 || b->rank < 0)
		return -1;
	int r = a->rank > b->rank ? a->rank : b->rank;
	for (int i = 0; i < r; i++) {
		int ia = i - (r - a->rank), ib = i - (r - b->rank);
		struct dim da = ia >= 0 ? a->dims[ia] : dim_num(1), db = ib >= 0 ? b->dims[ib] : dim_num(1);
		if (dim_known(da) && da.v == 1)
			out[i] = db;
		else if (dim_known(db) && db.v == 1)
			out[i] = da;
		else if (dim_equal(da, db))
			out[i] = da;
		else if (dim_known(da) && dim_known(db)) {
			infer_note(c, "inputs do not broadcast: dim %d is %" PRId64 " against %" PRId64, i, da.v, db.v);
			return -2;
		} else if (dim_known(da))
			out[i] = da; /* a symbol broadcasting against N>1 must be N (or 1) */
		else if (dim_known(db))
			out[i] = db;
		else
			out[i] = dim_unknown();
	}
	return r;
}

int norm_axis(struct infer_ctx *c, int64_t axis, int rank)
{
	if (axis < -rank || axis >= rank) {
		infer_note(c, "axis %" PRId64 " is out of range for rank %d", axis, rank);
		return -1;
	}
	return (int)(axis < 0 ? axis + rank : axis);
}

/* ---- seeding ---- */

int shape_from_type(struct shapes *s, const Onnx__TypeProto *tp, struct vshape *out)
{
	memset(out, 0, sizeof *out);
	out->rank = -1;
	out->n_val = -1;
	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
		return 0;
	const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
	out->dtype = tt->has_elem_type ? tt->elem_type : 0;
	out->source = SHAPE_DECLARED;
	if (!tt->shape)
		return 0;
	if (tt->shape->n_dim > SHAPE_MAX_RANK)
		return 0;
	struct dim dims[SHAPE_MAX_RANK];
	out->rank = (int)tt->shape->n_dim;
	for (size_t i = 0; i < tt->shape->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
		dims[i] = dim_unknown();
		/* a negative dim_value (Paddle2ONNX writes -1) is read as onnxruntime reads it: dynamic, unnamed */
		if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value >= 0)
			dims[i] = dim_num(d->dim_value);
		else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param &&
			 *d->dim_param && strcmp(d->dim_param, "?")) /* Paddle2ONNX names unnamed dims "?" */
			dims[i].sym = d->dim_param;
	}
	out->dims = dims_share(s, dims, tt->shape->n_dim);
	return out->dims ? 0 : -1;
}

static int is_int_dtype(int32_t dt)
{
	return dt == OV_DT_INT64 || dt == OV_DT_INT32 || dt == OV_DT_INT16 || dt == OV_DT_INT8 || dt == OV_DT_UINT8 ||
	       dt == OV_DT_UINT16 || dt == OV_DT_UINT32 || dt == OV_DT_UINT64 || dt == OV_DT_BOOL;
}

static int is_float_dtype(int32_t dt)
{
	return dt == OV_DT_FLOAT || dt == OV_DT_DOUBLE || dt == OV_DT_FLOAT16 || dt == OV_DT_BFLOAT16;
}

static int seed_tensor(struct shapes *s, struct ov_model *m, const Onnx__TensorProto *t, struct vshape *out)
{
	memset(out, 0, sizeof *out);
	out->n_val = -1;
	out->dtype = t->data_type;
	out->source = SHAPE_CONSTANT;
	out->rank = t->n_dims <= SHAPE_MAX_RANK ? (int)t->n_dims : -1;
	if (out->rank >= 0) {
		struct dim dims[SHAPE_MAX_RANK];
		for (size_t i = 0; i < t->n_dims; i++)
			dims[i] = dim_num(t->dims[i]);
		out->dims = dims_share(s, dims, t->n_dims);
		if (!out->dims)
			return -1;
	}
	int64_t n = tensor_numel(t, NULL);
	if (n < 0 || n > SHAPE_FOLD_MAX || t->n_dims > 1)
		return 0;
	struct tensor_view tv;
	if (tensor_view_open(m, t, &tv, NULL))
		return 0;
	if (is_int_dtype(t->data_type)) {
		out->val = dims_copy(s, NULL, (size_t)n);
		if (!out->val)
			return -1;
		for (int64_t i = 0; i < n; i++) {
			out->val[i] = dim_num(tensor_view_int(&tv, i));
		}
		out->n_val = n;
	} else if (is_float_dtype(t->data_type)) {
		out->fval = arena_alloc(s, (size_t)(n ? n : 1) * sizeof(double));
		if (!out->fval)
			return -1;
		for (int64_t i = 0; i < n; i++)
			out->fval[i] = tensor_view_get(&tv, i);
		out->n_val = n;
	}
	return 0;
}

/* ---- the driver ---- */

static size_t graph_slot(const struct graph *g, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)g * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ (h >> 32)) & (cap - 1);
}

static struct shape_graph *graph_results(struct shapes_impl *si, const struct graph *g)
{
	if (!si->cap_index)
		return NULL;
	for (size_t j = graph_slot(g, si->cap_index); si->index[j]; j = (j + 1) & (si->cap_index - 1))
		if (si->index[j]->g == g)
			return si->index[j];
	return NULL;
}

/* Append sg (sg->g set) to si->graphs and the index; 0 or -1 when out of memory (sg is then not kept). */
static int graph_results_add(struct shapes_impl *si, struct shape_graph *sg)
{
	if (si->n_graphs == si->cap_graphs) {
		size_t cap = si->cap_graphs ? si->cap_graphs * 2 : 16;
		struct shape_graph **ng = realloc(si->graphs, cap * sizeof *ng);
		if (!ng)
			return -1;
		si->graphs = ng;
		si->cap_graphs = cap;
	}
	if ((si->n_graphs + 1) * 2 > si->cap_index) {
		size_t cap = si->cap_index ? si->cap_index * 2 : 64;
		struct shape_graph **ni = calloc(cap, sizeof *ni);
		if (!ni)
			return -1;
		free(si->index);
		si->index = ni;
		si->cap_index = cap;
		for (size_t i = 0; i < si->n_graphs; i++) {
			size_t j = graph_slot(si->graphs[i]->g, cap);
			while (ni[j])
				j = (j + 1) & (cap - 1);
			ni[j] = si->graphs[i];
		}
	}
	size_t j = graph_slot(sg->g, si->cap_index);
	while (si->index[j])
		j = (j + 1) & (si->cap_index - 1);
	si->index[j] = sg;
	si->graphs[si->n_graphs++] = sg;
	return 0;
}

static int is_default_domain(const char *d)
{
	return !d || !*d || !strcmp(d, "ai.onnx");
}

static int infer_graph(struct shapes_impl *si, struct ov_model *m, const struct graph *g, int64_t opset,
		       struct ov_error *err);

/* Outputs of If: the branches' outputs, where both branches agree. */
static void infer_if(struct infer_ctx *c, struct shapes_impl *si)
{
	const struct graph_node *gn = &c->g->nodes[c->node];
	struct shape_graph *br[2] = {NULL, NULL};
	int nb = 0;

	for (uint32_t s = 0; s < gn->n_sub && nb < 2; s++)
		br[nb++] = graph_results(si, gn->sub[s]);
	if (nb < 2 || !br[0] || !br[1])
		return;
	for (size_t k = 0; k < c->n_out; k++) {
		const struct graph *g0 = br[0]->g, *g1 = br[1]->g;
		if (k >= g0->proto->n_output || k >= g1->proto->n_output)
			break;
		int32_t a = graph_value_id(g0, g0->proto->output[k]->name ? g0->proto->output[k]->name : "");
		int32_t b = graph_value_id(g1, g1->proto->output[k]->name ? g1->proto->output[k]->name : "");
		if (a < 0 || b < 0)
			continue;
		const struct vshape *va = &br[0]->v[a], *vb = &br[1]->v[b];
		if (va->rank >= 0 && va->rank == vb->rank) {
			struct dim *d = dims_tmp(c, (size_t)va->rank);
			if (!d)
				return;
			for (int i = 0; i < va->rank; i++)
				d[i] = dim_equal(va->dims[i], vb->dims[i]) ? va->dims[i] : dim_unknown();
			set_out(c, k, va->dtype == vb->dtype ? va->dtype : 0, va->rank, d);
		} else {
			set_out(c, k, va->dtype == vb->dtype ? va->dtype : 0, -1, NULL);
		}
	}
}

/* Seed a subgraph's inputs for Loop and Scan from what the parent knows (iteration count and condition are
 * scalars; carried values keep their parent's shape). */
static void seed_loop_body(struct shapes_impl *si, const struct graph *sub, struct infer_ctx *c)
{
	struct shape_graph *sg = graph_results(si, sub);
	const char *op = c->proto->op_type;

	if (!sg || strcmp(op, "Loop"))
		return;
	for (size_t k = 0; k < sub->proto->n_input; k++) {
		int32_t id = graph_value_id(sub, sub->proto->input[k]->name ? sub->proto->input[k]->name : "");
		if (id < 0 || sg->v[id].rank >= 0)
			continue;
		if (k == 0) {
			sg->v[id].dtype = OV_DT_INT64;
			sg->v[id].rank = 0;
		} else if (k == 1) {
			sg->v[id].dtype = OV_DT_BOOL;
			sg->v[id].rank = 0;
		} else if (c->ins[k] && c->ins[k]->rank >= 0 && !sg->v[id].dtype) {
			sg->v[id] = *c->ins[k];
			sg->v[id].n_val = -1;
			sg->v[id].val = NULL;
			sg->v[id].fval = NULL;
		}
	}
}

static int infer_node(struct shapes_impl *si, struct ov_model *m, const struct graph *g, struct shape_graph *sg,
		      uint32_t i, int64_t opset, struct ov_error *err)
{
	const struct graph_node *gn = &g->nodes[i];
	const Onnx__NodeProto *nd = gn->proto;
	struct vshape *ins[64], *outs[64];
	struct infer_ctx c = {&si->pub, m, g, sg, i, nd, opset, ins, outs, nd->n_input, nd->n_output, err};

	if (nd->n_input > 64 || nd->n_output > 64) {
		infer_note(&c, "more than 64 inputs or outputs: not inferred");
		return 0;
	}
	for (size_t k = 0; k < nd->n_input; k++)
		ins[k] = gn->in[k] >= 0 ? &sg->v[gn->in[k]] : NULL;
	for (size_t k = 0; k < nd->n_output; k++)
		outs[k] = gn->out[k] >= 0 && sg->v[gn->out[k]].source != SHAPE_CONSTANT ? &sg->v[gn->out[k]] : NULL;
	/* Subgraphs first: their shapes feed If's outputs. */
	for (uint32_t s = 0; s < gn->n_sub; s++) {
		seed_loop_body(si, gn->sub[s], &c);
		if (infer_graph(si, m, gn->sub[s], opset, err))
			return -1;
	}
	if (!is_default_domain(nd->domain)) {
		infer_note(&c, "no shape rule for %s::%s (custom domain)", nd->domain, nd->op_type ? nd->op_type : "?");
		return 0;
	}
	if (nd->op_type && !strcmp(nd->op_type, "If")) {
		infer_if(&c, si);
		return si->oom ? ov_fail(err, OV_NOMEM, "out of memory inferring shapes") : 0;
	}
	shape_rule_fn fn = nd->op_type ? shape_rule_find(nd->op_type) : NULL;
	if (!fn) {
		infer_note(&c, "no shape rule for %s", nd->op_type ? nd->op_type : "(no op_type)");
		return 0;
	}
	fn(&c);
	if (si->oom)
		return ov_fail(err, OV_NOMEM, "out of memory inferring shapes");
	/* Where a rule learnt nothing, a declared shape carries the inference on. */
	for (size_t k = 0; k < nd->n_output; k++) {
		struct vshape *o = outs[k];
		const struct graph_value *v = gn->out[k] >= 0 ? &g->values[gn->out[k]] : NULL;
		if (!o || !v || !v->declared)
			continue;
		if (o->source == SHAPE_NONE || (o->rank < 0 && !o->dtype)) {
			if (shape_from_type(&si->pub, v->declared->type, o))
				return ov_fail(err, OV_NOMEM, "out of memory inferring shapes");
		} else if (!o->dtype && v->declared->type && v->declared->type->tensor_type &&
			   v->declared->type->tensor_type->has_elem_type) {
			o->dtype = v->declared->type->tensor_type->elem_type;
		}
	}
	return 0;
}

static int infer_graph(struct shapes_impl *si, struct ov_model *m, const struct graph *g, int64_t opset,
		       struct ov_error *err)
{
	struct shape_graph *sg = graph_results(si, g);

	if (!sg) { /* first visit: allocate and seed */
		sg = calloc(1, sizeof *sg);
		if (!sg)
			return ov_fail(err, OV_NOMEM, "out of memory inferring shapes");
		sg->g = g;
		if (graph_results_add(si, sg)) {
			free(sg);
			return ov_fail(err, OV_NOMEM, "out of memory inferring shapes");
		}
		sg->v = calloc(g->n_values ? g->n_values : 1, sizeof *sg->v);
		if (!sg->v)
			return ov_fail(err, OV_NOMEM, "out of memory inferring shapes");
		for (uint32_t i = 0; i < g->n_values; i++) {
			const struct graph_value *v = &g->values[i];
			struct vshape *o = &sg->v[i];
			o->rank = -1;
			o->n_val = -1;
			if (v->constant && (v->origin == VALUE_INITIALIZER || v->origin == VALUE_CONSTANT)) {
				if (seed_tensor(&si->pub, m, v->constant, o))
					return ov_fail(err, OV_NOMEM, "out of memory inferring shapes");
			} else if (v->origin == VALUE_INPUT && v->declared) {
				if (shape_from_type(&si->pub, v->declared->type, o))
					return ov_fail(err, OV_NOMEM, "out of memory inferring shapes");
			} else if (v->origin == VALUE_OUTER && v->outer_graph) {
				struct shape_graph *og = graph_results(si, v->outer_graph);
				if (og)
					*o = og->v[v->outer_id];
			}
		}
		/* A Constant with value_float(s)/value_int(s) has no tensor: give it its scalar/list shape. */
		for (uint32_t i = 0; i < g->n_nodes; i++) {
			const Onnx__NodeProto *nd = g->nodes[i].proto;
			if (!nd->op_type || strcmp(nd->op_type, "Constant") || !is_default_domain(nd->domain) ||
			    nd->n_output < 1 || g->nodes[i].out[0] < 0 || g->values[g->nodes[i].out[0]].constant)
				continue;
			struct vshape *o = &sg->v[g->nodes[i].out[0]];
			for (size_t a = 0; a < nd->n_attribute; a++) {
				const Onnx__AttributeProto *at = nd->attribute[a];
				const char *an = at->name ? at->name : "";
				o->source = SHAPE_CONSTANT;
				if (!strcmp(an, "value_float") || !strcmp(an, "value_int") || !strcmp(an, "value_string")) {
					o->rank = 0;
					o->dtype = an[6] == 'f' ? OV_DT_FLOAT : an[6] == 'i' ? OV_DT_INT64 : OV_DT_STRING;
					if (an[6] == 'i') {
						o->val = dims_copy(&si->pub, NULL, 1);
						if (o->val) {
							o->val[0] = dim_num(at->i);
							o->n_val = 1;
						}
					}
				} else if (!strcmp(an, "value_floats") || !strcmp(an, "value_ints") ||
					   !strcmp(an, "value_strings")) {
					size_t n = an[6] == 'f' ? at->n_floats : an[6] == 'i' ? at->n_ints : at->n_strings;
					o->rank = 1;
					o->dtype = an[6] == 'f' ? OV_DT_FLOAT : an[6] == 'i' ? OV_DT_INT64 : OV_DT_STRING;
					o->dims = dims_copy(&si->pub, NULL, 1);
					if (o->dims)
						o->dims[0] = dim_num((int64_t)n);
					if (an[6] == 'i' && n <= SHAPE_FOLD_MAX) {
						o->val = dims_copy(&si->pub, NULL, n);
						for (size_t k = 0; o->val && k < n; k++)
							o->val[k] = dim_num(at->ints[k]);
						o->n_val = o->val ? (int64_t)n : -1;
					}
				}
			}
		}
		if (si->oom)
			return ov_fail(err, OV_NOMEM, "out of memory inferring shapes");
	}
	for (uint32_t k = 0; k < g->n_order; k++) {
		if (infer_node(si, m, g, sg, g->order[k], opset, err))
			return -1;
		scratch_reset(si);
	}
	return 0;
}

int shape_infer(struct shapes **out, struct ov_model *m, const struct graph *g, struct ov_error *err)
{
	struct shapes_impl *si = calloc(1, sizeof *si);

	*out = NULL;
	if (!si)
		return ov_fail(err, OV_NOMEM, "out of memory inferring shapes");
	if (infer_graph(si, m, g, model_opset(m, ""), err)) {
		shapes_free(&si->pub);
		return -1;
	}
	si->pub.main = graph_results(si, g);
	*out = &si->pub;
	return 0;
}

void shapes_free(struct shapes *s)
{
	struct shapes_impl *si = (struct shapes_impl *)s;

	if (!si)
		return;
	for (size_t i = 0; i < si->n_graphs; i++) {
		free(si->graphs[i]->v);
		free(si->graphs[i]->notes);
		free(si->graphs[i]);
	}
	free(si->graphs);
	free(si->index);
	blocks_free(si->arena);
	blocks_free(si->scratch);
	free(si->shared);
	free(si);
}

const struct vshape *shapes_get(const struct shapes *s, const struct graph *g, int32_t id)
{
	struct shape_graph *sg = graph_results((struct shapes_impl *)s, g);

	return sg && id >= 0 && (uint32_t)id < g->n_values ? &sg->v[id] : NULL;
}

const struct shape_note *shapes_notes(const struct shapes *s, const struct graph *g, size_t *n)
{
	struct shape_graph *sg = graph_results((struct shapes_impl *)s, g);

	*n = sg ? sg->n_notes : 0;
	return sg ? sg->notes : NULL;
}

/* "%" PRId64 without printf, which is slow in this program (see present_put_int in src/present/present.h). */
static void put_dim(struct strbuf *b, int64_t v)
{
	char buf[24], *p = buf + sizeof buf;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	strbuf_add(b, p, (size_t)(buf + sizeof buf - p));
}

void shape_describe(struct strbuf *b, const struct vshape *v)
{
	strbuf_puts(b, v->dtype ? dtype_short_name(v->dtype) : "?");
	if (v->rank < 0) {
		strbuf_puts(b, "[...]");
		return;
	}
	strbuf_putc(b, '[');
	for (int i = 0; i < v->rank; i++) {
		if (i)
			strbuf_putc(b, ',');
		if (dim_known(v->dims[i]))
			put_dim(b, v->dims[i].v);
		else if (v->dims[i].sym)
			strbuf_put_safe(b, v->dims[i].sym, strlen(v->dims[i].sym), 40);
		else
			strbuf_putc(b, '?');
	}
	strbuf_putc(b, ']');
}

int shape_compatible(const struct vshape *a, const struct vshape *b)
{
	if (a->dtype && b->dtype && a->dtype != b->dtype)
		return 0;
	if (a->rank < 0 || b->rank < 0)
		return 1;
	if (a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (dim_known(a->dims[i]) && dim_known(b->dims[i]) && a->dims[i].v != b->dims[i].v)
			return 0;
	return 1;
}
