/* The scene of boxes and edges a front end draws, and the text of the node and value panels. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/model/describe.h"
#include "src/base/dtype.h"
#include "src/graph/opdb.h"
#include "src/graph/opdoc.h"
#include "src/present/present.h"
#include "src/base/strmap.h"

static const char *const category_names[] = {
#define CAT_X(e, s) s,
	OP_CATEGORY_TABLE(CAT_X)
#undef CAT_X
};
_Static_assert(sizeof category_names / sizeof category_names[0] == CAT_COUNT, "category table drifted");

const char *op_category_name(enum op_category c)
{
	return (unsigned)c < CAT_COUNT ? category_names[c] : "other";
}

static int is_default(const char *d)
{
	return !d || !*d || !strcmp(d, "ai.onnx");
}

/* Categories for common ops when ops-doc.txt is not there to say. */
static const struct {
	const char *op;
	enum op_category cat;
} builtin_cats[] = {
	{"Conv", CAT_CONV}, {"ConvTranspose", CAT_CONV}, {"ConvInteger", CAT_CONV}, {"QLinearConv", CAT_CONV},
	{"Gemm", CAT_CONV}, {"MatMul", CAT_CONV}, {"Einsum", CAT_CONV}, {"MaxPool", CAT_POOL},
	{"AveragePool", CAT_POOL}, {"GlobalAveragePool", CAT_POOL}, {"GlobalMaxPool", CAT_POOL}, {"LpPool", CAT_POOL},
	{"BatchNormalization", CAT_NORM}, {"InstanceNormalization", CAT_NORM}, {"LayerNormalization", CAT_NORM},
	{"GroupNormalization", CAT_NORM}, {"LRN", CAT_NORM}, {"Relu", CAT_ACTIVATION}, {"Sigmoid", CAT_ACTIVATION},
	{"Tanh", CAT_ACTIVATION}, {"LeakyRelu", CAT_ACTIVATION}, {"PRelu", CAT_ACTIVATION}, {"Elu", CAT_ACTIVATION},
	{"Gelu", CAT_ACTIVATION}, {"HardSwish", CAT_ACTIVATION}, {"HardSigmoid", CAT_ACTIVATION},
	{"Softmax", CAT_ACTIVATION}, {"LogSoftmax", CAT_ACTIVATION}, {"Clip", CAT_ACTIVATION}, {"Mish", CAT_ACTIVATION},
	{"Add", CAT_ELEMENTWISE}, {"Sub", CAT_ELEMENTWISE}, {"Mul", CAT_ELEMENTWISE}, {"Div", CAT_ELEMENTWISE},
	{"Pow", CAT_ELEMENTWISE}, {"Sqrt", CAT_ELEMENTWISE}, {"Exp", CAT_ELEMENTWISE}, {"Erf", CAT_ELEMENTWISE},
	{"ReduceMean", CAT_REDUCE}, {"ReduceSum", CAT_REDUCE}, {"ReduceMax", CAT_REDUCE}, {"ArgMax", CAT_REDUCE},
	{"Reshape", CAT_SHAPE}, {"Transpose", CAT_SHAPE}, {"Flatten", CAT_SHAPE}, {"Squeeze", CAT_SHAPE},
	{"Unsqueeze", CAT_SHAPE}, {"Shape", CAT_SHAPE}, {"Concat", CAT_SHAPE}, {"Split", CAT_SHAPE},
	{"Slice", CAT_SHAPE}, {"Expand", CAT_SHAPE}, {"Resize", CAT_SHAPE}, {"Upsample", CAT_SHAPE},
	{"Gather", CAT_DATA}, {"GatherElements", CAT_DATA}, {"ScatterND", CAT_DATA}, {"Constant", CAT_DATA},
	{"ConstantOfShape", CAT_DATA}, {"Cast", CAT_DATA}, {"Identity", CAT_DATA}, {"Pad", CAT_DATA},
	{"If", CAT_CONTROL}, {"Loop", CAT_CONTROL}, {"Scan", CAT_CONTROL}, {"Where", CAT_LOGIC},
	{"Equal", CAT_LOGIC}, {"Less", CAT_LOGIC}, {"Greater", CAT_LOGIC}, {"Not", CAT_LOGIC},
	{"NonMaxSuppression", CAT_DETECTION}, {"RoiAlign", CAT_DETECTION}, {"QuantizeLinear", CAT_QUANT},
	{"DequantizeLinear", CAT_QUANT}, {"Attention", CAT_ATTENTION}, {"Dropout", CAT_OTHER},
};

enum op_category op_category_of(const char *domain, const char *op)
{
	struct ov_error e;
	const struct opdoc *docs = opdoc_default(&e);
	const struct op_doc *d = docs ? opdoc_find(docs, domain, op) : NULL;

	if (!is_default(domain) && strcmp(domain, "ai.onnx.ml"))
		return CAT_CUSTOM;
	if (d && d->category)
		for (int c = 0; c < CAT_COUNT; c++)
			if (!strcmp(category_names[c], d->category))
				return (enum op_category)c;
	if (!strcmp(domain ? domain : "", "ai.onnx.ml"))
		return CAT_ML;
	for (size_t i = 0; i < sizeof builtin_cats / sizeof builtin_cats[0]; i++)
		if (!strcmp(builtin_cats[i].op, op))
			return builtin_cats[i].cat;
	return CAT_OTHER;
}

void present_put_int(struct strbuf *b, int64_t v)
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

/* Display width of a UTF-8 string in cells (every code point counts one: names and box text are narrow). */
static size_t text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

void present_value_type(struct strbuf *b, const struct graph *g, const struct shapes *sh, int32_t id, int *inferred)
{
	const struct graph *owner;
	const struct graph_value *v = graph_value_resolve(g, id, &owner);
	int32_t oid = (int32_t)(v - owner->values);
	const struct vshape *s = sh ? shapes_get(sh, owner, oid) : NULL;

	if (inferred)
		*inferred = 0;
	if (v->declared) {
		describe_type(b, v->declared->type);
	} else if (v->constant) {
		describe_tensor_type(b, v->constant);
	} else if (s && (s->dtype || s->rank >= 0)) {
		shape_describe(b, s);
		if (inferred)
			*inferred = 1;
	} else {
		strbuf_putc(b, '?');
	}
}

/* A dim that is not a plain number or name (an expression such as "floor(height/2 - 1/2) + 1") is bracketed, so
 * that the multiplication signs between dims stay unambiguous. */
static void put_dim_label(struct strbuf *b, const char *d, size_t n)
{
	int plain = 1;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)d[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '?' ||
		      c == '.' || c >= 0x80))
			plain = 0;
	}
	if (!plain)
		strbuf_putc(b, '[');
	strbuf_add(b, d, n);
	if (!plain)
		strbuf_putc(b, ']');
}

/* Dims only, compact: 1x64x56x56 (or with the multiplication sign when unicode is allowed). */
static void dims_label(struct strbuf *b, const struct graph *g, const struct shapes *sh, int32_t id, int ascii,
		       int *inferred)
{
	struct strbuf t = {0};
	const char *sep = ascii ? "x" : "\xc3\x97";

	present_value_type(&t, g, sh, id, inferred);
	const char *s = strbuf_str(&t), *lb = strchr(s, '['), *rb = strrchr(s, ']');
	if (lb && rb && rb > lb) {
		const char *d = lb + 1;
		int depth = 0;
		for (const char *p = lb + 1; p <= rb; p++) {
			if (*p == '(')
				depth++;
			else if (*p == ')' && depth)
				depth--;
			if (p < rb && (*p != ',' || depth))
				continue;
			if (d > lb + 1)
				strbuf_puts(b, sep);
			if (p > d)
				put_dim_label(b, d, (size_t)(p - d));
			d = p + 1;
		}
		if (rb == lb + 1)
			strbuf_puts(b, "scalar");
	}
	strbuf_free(&t);
}

/* ---- the scene's strings: bump-allocated blocks, equal strings shared ---- */

struct text_block {
	struct text_block *next;
	size_t used, cap;
	_Alignas(max_align_t) char data[];
};

struct scene_text {
	struct text_block *blocks;
	struct strmap shared; /* string -> its one copy (titles, rows, labels: not names, which are unique) */
};

#define TEXT_BLOCK (64 * 1024 - 64) /* with the block's header and malloc's, a block stays within 64 KB */

static void *text_alloc(struct scene *s, size_t n, size_t align)
{
	struct scene_text *t = s->text;

	if (!t && !(t = s->text = calloc(1, sizeof *t)))
		return NULL;
	struct text_block *b = t->blocks;
	size_t at = b ? (b->used + align - 1) & ~(align - 1) : 0;
	if (!b || at + n > b->cap) {
		size_t cap = n > TEXT_BLOCK / 4 ? n : TEXT_BLOCK;
		struct text_block *nb = malloc(sizeof *nb + cap);
		if (!nb)
			return NULL;
		nb->cap = cap;
		nb->used = 0;
		if (b && cap != TEXT_BLOCK) { /* a big one of its own: the current block keeps taking small ones */
			nb->used = n;
			nb->next = b->next;
			b->next = nb;
			return nb->data;
		}
		nb->next = b;
		t->blocks = b = nb;
		at = 0;
	}
	b->used = at + n;
	return b->data + at;
}

void *scene_alloc(struct scene *s, size_t n)
{
	return text_alloc(s, n ? n : 1, sizeof(void *));
}

const char *scene_strdup(struct scene *s, const char *str)
{
	size_t n = strlen(str) + 1;
	char *p = text_alloc(s, n, 1);

	if (p)
		memcpy(p, str, n);
	return p;
}

const char *scene_strshare(struct scene *s, const char *str)
{
	const char *p = s->text ? strmap_get(&s->text->shared, str) : NULL;

	if (p)
		return p;
	p = scene_strdup(s, str);
	if (p && strmap_put(&s->text->shared, p, (void *)p))
		return NULL;
	return p;
}

static void scene_text_free(struct scene_text *t)
{
	if (!t)
		return;
	while (t->blocks) {
		struct text_block *next = t->blocks->next;
		free(t->blocks);
		t->blocks = next;
	}
	strmap_free(&t->shared);
	free(t);
}

/* A box's rows, collected before they are copied into the scene. */
struct box_builder {
	struct scene *s;
	const char *lines[60];
	uint16_t n;
	int oom;
};

static void add_line(struct box_builder *bb, const char *str)
{
	if (bb->oom || bb->n >= 60)
		return;
	bb->lines[bb->n] = scene_strshare(bb->s, str);
	if (!bb->lines[bb->n])
		bb->oom = 1;
	else
		bb->n++;
}

/* The byte offset of code point k of s (or its end). */
static size_t cp_offset(const char *s, size_t k)
{
	size_t i = 0;

	for (; s[i] && k; k--)
		for (i++; ((unsigned char)s[i] & 0xc0) == 0x80; i++)
			;
	return i;
}

/* s cut to width cells by an ellipsis in its middle (both ends stay: a name's tail tells it from its siblings). */
static void put_mid(struct strbuf *b, const char *s, size_t width, int ascii)
{
	size_t n = text_width(s), dw = ascii ? 3 : 1;

	if (n <= width || width <= dw + 1) {
		strbuf_add(b, s, cp_offset(s, width < n ? width : n));
		return;
	}
	size_t keep = width - dw, head = keep / 2, tail = keep - head;
	strbuf_add(b, s, cp_offset(s, head));
	strbuf_puts(b, ascii ? "..." : "\xe2\x80\xa6");
	strbuf_puts(b, s + cp_offset(s, n - tail));
}

#define WRAP_LINES 3 /* rows a long value may take before its middle gives way */

/* A row that may be wider than the box: "name = value" rows keep their value whole on the rows after the name
 * (indented), up to WRAP_LINES rows, cut in the middle beyond that; other rows are cut in the middle. */
static void add_fitted(struct box_builder *bb, const char *str, size_t width, int ascii)
{
	struct strbuf t = {0}, v = {0};
	const char *eq = strstr(str, " = ");

	if (text_width(str) <= width || width < 8) {
		add_line(bb, str);
		return;
	}
	if (!eq) {
		put_mid(&t, str, width, ascii);
		add_line(bb, strbuf_str(&t));
		strbuf_free(&t);
		return;
	}
	strbuf_add(&v, str, (size_t)(eq - str));
	strbuf_puts(&v, " =");
	put_mid(&t, strbuf_str(&v), width, ascii);
	add_line(bb, strbuf_str(&t));
	size_t room = width - 2, rows = 0;
	const char *p = eq + 3;
	while (*p) {
		size_t n = text_width(p), take = n <= room ? n : room;
		if (rows == WRAP_LINES - 1 && take < n) {
			/* the last row: an ellipsis and the value's end, from a space where there is one */
			const char *tail = p + cp_offset(p, n - (room - (ascii ? 4 : 2)));
			for (const char *q = tail; *q && q < tail + 12; q++)
				if (*q == ' ') {
					tail = q + 1;
					break;
				}
			strbuf_reset(&t);
			strbuf_puts(&t, ascii ? "  ... " : "  \xe2\x80\xa6 ");
			strbuf_puts(&t, tail);
			add_line(bb, strbuf_str(&t));
			break;
		}
		if (take < n) { /* break after a space in the second half of the row, where there is one */
			size_t off = cp_offset(p, take), sp = off;
			while (sp > 0 && p[sp - 1] != ' ')
				sp--;
			if (sp > off / 2)
				take = text_width(p) - text_width(p + sp);
		}
		size_t off = cp_offset(p, take);
		strbuf_reset(&t);
		strbuf_puts(&t, "  ");
		strbuf_add(&t, p, off);
		add_line(bb, strbuf_str(&t));
		p += off;
		rows++;
	}
	strbuf_free(&t);
	strbuf_free(&v);
}

/* Move the rows into the box; -1 when out of memory. */
static int box_set_lines(struct box_builder *bb, struct scene_box *bx)
{
	bx->n_lines = 0;
	bx->lines = NULL;
	if (bb->oom)
		return -1;
	if (!bb->n)
		return 0;
	bx->lines = scene_alloc(bb->s, bb->n * sizeof *bx->lines);
	if (!bx->lines)
		return -1;
	memcpy(bx->lines, bb->lines, bb->n * sizeof *bx->lines);
	bx->n_lines = bb->n;
	return 0;
}

/* A Constant node with exactly one consumer is drawn inside that consumer. */
static int folded_constant(const struct graph *g, uint32_t i)
{
	const struct graph_node *gn = &g->nodes[i];
	const Onnx__NodeProto *n = gn->proto;

	if (!n->op_type || strcmp(n->op_type, "Constant") || !is_default(n->domain) || n->n_output != 1 || gn->out[0] < 0)
		return 0;
	const struct graph_value *v = &g->values[gn->out[0]];
	return v->n_uses == 1 && v->output_index < 0;
}

/* Whether value id of g is drawn as a row inside the boxes that read it (an initializer, or a Constant node folded
 * into its one consumer), following a capture to the graph that defines it. */
static int shown_inside(const struct graph *g, int32_t id)
{
	const struct graph *owner;
	const struct graph_value *v = graph_value_resolve(g, id, &owner);

	return v->constant && (v->origin == VALUE_INITIALIZER ||
			       (v->origin == VALUE_CONSTANT && v->producer >= 0 && folded_constant(owner, (uint32_t)v->producer)));
}

static void node_lines(struct box_builder *bb, struct ov_model *m, const struct graph *g, const struct shapes *sh,
		       uint32_t i, int ascii, size_t width)
{
	const struct graph_node *gn = &g->nodes[i];
	const Onnx__NodeProto *n = gn->proto;
	struct ov_error e;
	const struct opdb *db = opdb_default(&e);
	const struct op_schema *schema = db ? opdb_find(db, n->domain, n->op_type ? n->op_type : "",
							 model_opset(m, n->domain)) : NULL;
	struct strbuf b = {0};

	for (size_t k = 0; k < n->n_input; k++) {
		if (gn->in[k] < 0)
			continue;
		const struct graph_value *v = graph_value_resolve(g, gn->in[k], NULL);
		if (!shown_inside(g, gn->in[k]))
			continue;
		const char *formal = schema && k < schema->n_inputs ? schema->inputs[k].name : NULL;
		strbuf_reset(&b);
		describe_name(&b, formal ? formal : v->name);
		int64_t ne = tensor_numel(v->constant, NULL);
		if (ne >= 0 && ne <= 8 && v->constant->n_dims <= 1) {
			strbuf_puts(&b, " = ");
			describe_tensor_values(&b, m, v->constant, 8);
		} else {
			strbuf_puts(&b, ascii ? " <" : " \xe2\x9f\xa8");
			for (size_t d = 0; d < v->constant->n_dims; d++) {
				strbuf_puts(&b, d ? (ascii ? "x" : "\xc3\x97") : "");
				present_put_int(&b, v->constant->dims[d]);
			}
			strbuf_puts(&b, ascii ? ">" : "\xe2\x9f\xa9");
		}
		add_fitted(bb, strbuf_str(&b), width, ascii);
	}
	for (size_t a = 0; a < n->n_attribute; a++) {
		const Onnx__AttributeProto *at = n->attribute[a];
		strbuf_reset(&b);
		describe_name(&b, at->name);
		strbuf_puts(&b, " = ");
		describe_attr_value(&b, m, at, 6);
		add_fitted(bb, strbuf_str(&b), width, ascii);
	}
	strbuf_free(&b);
}

/* A graph input or output box: its name (escaped for the screen) and type. Returns -1 when out of memory. */
static int io_box(struct scene *s, struct scene_box *bx, enum box_kind kind, const struct graph *g,
		  const struct shapes *sh, uint32_t v)
{
	int outer = g->values[v].origin == VALUE_OUTER;
	struct box_builder bb = {.s = s};
	struct strbuf b = {0};

	bx->kind = kind;
	bx->ref = (int32_t)v;
	bx->cat = CAT_IO;
	bx->title = scene_strshare(s, kind == BOX_INPUT ? "input" : "output");
	bx->name = scene_strdup(s, g->values[v].name); /* kept as stored: commands are built from it */
	describe_name(&b, g->values[v].name);
	add_line(&bb, strbuf_str(&b));
	strbuf_reset(&b);
	present_value_type(&b, g, sh, (int32_t)v, NULL);
	add_line(&bb, strbuf_str(&b));
	if (outer)
		add_line(&bb, "from the outer graph");
	int failed = b.failed;
	strbuf_free(&b);
	return box_set_lines(&bb, bx) || !bx->title || !bx->name || failed ? -1 : 0;
}

static int clip_width(const char *s, int max)
{
	int w = (int)text_width(s);
	return w > max ? max : w;
}

/* op_category_of, remembered by op type for the default domain (it searches two tables by name). */
static enum op_category box_category(struct strmap *cats, const Onnx__NodeProto *n)
{
	const char *op = n->op_type ? n->op_type : "";

	if (!is_default(n->domain))
		return op_category_of(n->domain, op);
	intptr_t c = (intptr_t)strmap_get(cats, op);
	if (c)
		return (enum op_category)(c - 1);
	enum op_category cat = op_category_of(n->domain, op);
	strmap_put(cats, op, (void *)(intptr_t)(cat + 1)); /* out of memory: only not remembered */
	return cat;
}

/* The source box of value v for a box that reads it, or -1 (a constant drawn inside the box, or no box). */
static int32_t edge_source(const struct scene *s, const struct graph *g, const int32_t *value_box, int32_t v)
{
	const struct graph_value *val = &g->values[v];

	if (val->origin == VALUE_INPUT || val->origin == VALUE_OUTER)
		return value_box[v];
	if (val->producer >= 0)
		return s->node_box[val->producer];
	return -1;
}

/* The values of g that a node's subgraphs read (captured from g): they flow into the node's box as edges. */
struct captures {
	int32_t *ids;
	size_t n, cap;
	int oom;
};

static void push_id(struct captures *c, int32_t id)
{
	if (c->n == c->cap) {
		size_t nc = c->cap ? 2 * c->cap : 8;
		int32_t *ni = realloc(c->ids, nc * sizeof *ni);
		if (!ni) {
			c->oom = 1;
			return;
		}
		c->ids = ni;
		c->cap = nc;
	}
	c->ids[c->n++] = id;
}

/* A captured value, once: not again when the node reads it as an input too. */
static void add_capture(int32_t id, void *ctx)
{
	struct captures *c = ctx;

	for (size_t k = 0; k < c->n; k++)
		if (c->ids[k] == id)
			return;
	push_id(c, id);
}

/* The values box i reads (*n of them): a node's inputs, then what its subgraphs capture (in caps, which the caller
 * frees; the result may point into it). */
static const int32_t *box_inputs(const struct scene_box *bx, const struct graph *g, int32_t *one, size_t *n,
				 struct captures *caps)
{
	*n = 0;
	if (bx->kind == BOX_NODE) {
		const struct graph_node *gn = &g->nodes[bx->ref];
		*n = gn->proto->n_input;
		if (!gn->n_sub)
			return gn->in;
		caps->n = 0;
		for (size_t k = 0; k < gn->proto->n_input; k++)
			push_id(caps, gn->in[k]);
		for (uint32_t k = 0; k < gn->n_sub; k++)
			graph_foreach_capture(gn->sub[k], g, add_capture, caps);
		*n = caps->n;
		return caps->ids;
	}
	if (bx->kind == BOX_OUTPUT) {
		*one = bx->ref;
		*n = 1;
	}
	return one;
}

int scene_build(struct scene **out, struct ov_model *m, const struct graph *g, const struct shapes *sh,
		const struct scene_options *opt, struct ov_error *err)
{
	struct scene *s = calloc(1, sizeof *s);
	int maxw = opt && opt->max_width > 10 ? opt->max_width : 34, ascii = opt && opt->ascii;
	uint32_t cap_boxes, n_edges = 0, n_in = 0, n_out = 0;
	int32_t *value_box = NULL;
	struct strbuf b = {0};
	struct strmap cats = {0};
	struct captures caps = {0};

	*out = NULL;
	if (!s)
		return ov_fail(err, OV_NOMEM, "out of memory");
	for (uint32_t v = 0; v < g->n_values; v++) {
		n_in += g->values[v].origin == VALUE_INPUT || g->values[v].origin == VALUE_OUTER;
		n_out += g->values[v].output_index >= 0;
	}
	cap_boxes = g->n_nodes + n_in + n_out;
	s->boxes = calloc(cap_boxes ? cap_boxes : 1, sizeof *s->boxes);
	s->node_box = malloc((g->n_nodes ? g->n_nodes : 1) * sizeof *s->node_box);
	value_box = malloc((g->n_values ? g->n_values : 1) * sizeof *value_box);
	s->n_nodes = g->n_nodes;
	if (!s->boxes || !s->node_box || !value_box)
		goto oom;
	for (uint32_t v = 0; v < g->n_values; v++)
		value_box[v] = -1;
	/* Graph inputs first, then nodes in topological order, then graph outputs. */
	for (uint32_t v = 0; v < g->n_values; v++) {
		const struct graph_value *val = &g->values[v];
		/* a subgraph's values from the enclosing graph are its inputs too, unless drawn as rows */
		if (val->origin != VALUE_INPUT && (val->origin != VALUE_OUTER || !val->n_uses || shown_inside(g, (int32_t)v)))
			continue;
		if (io_box(s, &s->boxes[s->n_boxes], BOX_INPUT, g, sh, v))
			goto oom;
		value_box[v] = (int32_t)s->n_boxes++;
	}
	for (uint32_t k = 0; k < g->n_nodes; k++) {
		uint32_t i = k < g->n_order ? g->order[k] : k;
		if (k >= g->n_order) { /* nodes on cycles come last, in stored order */
			i = 0;
			for (uint32_t j = 0, seen = 0; j < g->n_nodes; j++)
				if (g->nodes[j].topo >= g->n_nodes && seen++ == k - g->n_order) {
					i = j;
					break;
				}
		}
		const Onnx__NodeProto *n = g->nodes[i].proto;
		s->node_box[i] = -1;
		if (folded_constant(g, i))
			continue;
		struct scene_box *bx = &s->boxes[s->n_boxes];
		struct box_builder bb = {.s = s};
		bx->kind = BOX_NODE;
		bx->ref = (int32_t)i;
		bx->cat = box_category(&cats, n);
		strbuf_reset(&b);
		if (!is_default(n->domain)) {
			describe_name(&b, n->domain);
			strbuf_puts(&b, "::");
		}
		describe_name(&b, n->op_type);
		bx->title = scene_strshare(s, strbuf_str(&b));
		strbuf_reset(&b);
		if (n->name && *n->name)
			describe_name(&b, n->name);
		bx->name = b.len ? scene_strdup(s, strbuf_str(&b)) : scene_strshare(s, "");
		node_lines(&bb, m, g, sh, i, ascii, (size_t)maxw - 4);
		if (box_set_lines(&bb, bx) || !bx->title || !bx->name)
			goto oom;
		s->node_box[i] = (int32_t)s->n_boxes++;
	}
	for (uint32_t v = 0; v < g->n_values; v++) {
		const struct graph_value *val = &g->values[v];
		if (val->output_index < 0)
			continue;
		if (io_box(s, &s->boxes[s->n_boxes++], BOX_OUTPUT, g, sh, v))
			goto oom;
	}
	/* Box sizes: the widest line (or title plus name in the top border), capped. */
	for (uint32_t i = 0; i < s->n_boxes; i++) {
		struct scene_box *bx = &s->boxes[i];
		int w = clip_width(bx->title, maxw - 4) + 4;
		if (bx->kind == BOX_NODE) { /* the title row also shows the node's #N at its right */
			int iw = 2;
			for (int32_t r = bx->ref; r >= 10; r /= 10)
				iw++;
			if (clip_width(bx->title, maxw) + 1 + iw + 4 <= maxw)
				w = clip_width(bx->title, maxw) + 1 + iw + 4;
		}
		int nw = *bx->name && bx->kind == BOX_NODE ? clip_width(bx->name, maxw - 4) + 4 : 0;
		if (nw > w)
			w = nw;
		for (uint16_t l = 0; l < bx->n_lines; l++)
			if (clip_width(bx->lines[l], maxw - 4) + 4 > w)
				w = clip_width(bx->lines[l], maxw - 4) + 4;
		bx->w = (uint16_t)(w < 8 ? 8 : w);
		bx->h = (uint16_t)(bx->n_lines + (bx->kind == BOX_NODE ? 3 : 2)); /* title row inside node boxes */
	}
	/* Edges: every non-constant value into each box that reads it (counted first: the array is made once). */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1 && !(s->edges = malloc((n_edges ? n_edges : 1) * sizeof *s->edges)))
			goto oom;
		for (uint32_t i = 0; i < s->n_boxes; i++) {
			int32_t one;
			size_t n_reads;
			const int32_t *in = box_inputs(&s->boxes[i], g, &one, &n_reads, &caps);
			if (caps.oom)
				goto oom;
			for (size_t k = 0; k < n_reads; k++) {
				int32_t v = in[k], src = v >= 0 ? edge_source(s, g, value_box, v) : -1;
				if (src < 0 || (uint32_t)src == i)
					continue;
				if (pass == 0) {
					n_edges++;
					continue;
				}
				struct scene_edge *e = &s->edges[s->n_edges];
				strbuf_reset(&b);
				dims_label(&b, g, sh, v, ascii, &e->inferred);
				e->src = (uint32_t)src;
				e->dst = i;
				e->value = v;
				e->label = scene_strshare(s, strbuf_str(&b));
				if (!e->label)
					goto oom;
				s->n_edges++;
			}
		}
	}
	free(value_box);
	free(caps.ids);
	strbuf_free(&b);
	strmap_free(&cats);
	*out = s;
	return 0;
oom:
	free(value_box);
	free(caps.ids);
	strbuf_free(&b);
	strmap_free(&cats);
	scene_free(s);
	return ov_fail(err, OV_NOMEM, "out of memory building the graph view");
}

void scene_free(struct scene *s)
{
	if (!s)
		return;
	scene_text_free(s->text);
	free(s->boxes);
	free(s->edges);
	free(s->node_box);
	free(s);
}

static void node_ref(struct strbuf *b, const struct graph *g, uint32_t i)
{
	const Onnx__NodeProto *n = g->nodes[i].proto;

	strbuf_printf(b, "#%u ", i);
	if (n->name && *n->name) {
		strbuf_putc(b, '\'');
		describe_name(b, n->name);
		strbuf_puts(b, "' ");
	}
	describe_name(b, n->op_type);
}

static void value_line(struct strbuf *b, struct ov_model *m, const struct graph *g, const struct shapes *sh,
		       const char *formal, int32_t id, int is_input)
{
	int inferred;
	const struct graph_value *v = &g->values[id];

	strbuf_printf(b, "  %-8s ", formal ? formal : "");
	describe_name(b, v->name);
	strbuf_puts(b, "  ");
	present_value_type(b, g, sh, id, &inferred);
	if (inferred)
		strbuf_puts(b, " (inferred)");
	if (is_input) {
		strbuf_puts(b, "  ");
		if (v->producer >= 0 && v->origin != VALUE_INITIALIZER) {
			strbuf_puts(b, "from ");
			node_ref(b, g, (uint32_t)v->producer);
		} else {
			strbuf_puts(b, value_origin_name(v->origin));
		}
		const struct graph_value *r = graph_value_resolve(g, id, NULL);
		int64_t ne = r->constant ? tensor_numel(r->constant, NULL) : -1;
		if (ne > 0 && ne <= 16) {
			strbuf_puts(b, " = ");
			describe_tensor_values(b, m, r->constant, 16);
		}
	} else {
		if (v->n_uses) {
			strbuf_puts(b, "  to ");
			for (uint32_t u = 0; u < v->n_uses && u < 4; u++) {
				if (u)
					strbuf_puts(b, ", ");
				node_ref(b, g, v->uses[u].node);
			}
			if (v->n_uses > 4)
				strbuf_printf(b, " and %u more", v->n_uses - 4);
		}
		if (v->output_index >= 0)
			strbuf_puts(b, v->n_uses ? ", graph output" : "  graph output");
	}
	strbuf_putc(b, '\n');
}

/* Where constant values' lines start in the node panel's text, for present_node_text_values. */
struct value_marks {
	size_t *off;
	int32_t *value;
	size_t n;
};

static void mark_constant(struct value_marks *mk, const struct strbuf *b, const struct graph *g, int32_t id)
{
	if (mk && id >= 0 && graph_value_resolve(g, id, NULL)->constant) {
		mk->off[mk->n] = b->len;
		mk->value[mk->n++] = id;
	}
}

/* A node that calls one of the model's local functions (FunctionProto, as torch's dynamo exporter writes modules):
 * the function's signature and its body, one node a line (the first 40). */
static void local_function_lines(struct strbuf *b, const struct ov_model *m, const Onnx__NodeProto *n)
{
	const Onnx__ModelProto *p = m ? m->proto : NULL;
	const char *dom = n->domain ? n->domain : "";

	for (size_t i = 0; p && n->op_type && i < p->n_functions; i++) {
		const Onnx__FunctionProto *f = p->functions[i];
		if (!f->name || strcmp(f->name, n->op_type) || strcmp(f->domain ? f->domain : "", dom))
			continue;
		strbuf_printf(b, "local function  %s%s%s: %zu inputs, %zu outputs, %zu attributes, %zu nodes\n",
			      dom, *dom ? "::" : "", f->name, f->n_input, f->n_output, f->n_attribute, f->n_node);
		for (size_t k = 0; k < f->n_node && k < 40; k++) {
			const Onnx__NodeProto *bn = f->node[k];
			int cd = bn->domain && *bn->domain;
			strbuf_printf(b, "  %s%s%s", cd ? bn->domain : "", cd ? "::" : "", bn->op_type ? bn->op_type : "?");
			for (size_t j = 0; j < bn->n_input; j++)
				strbuf_printf(b, "%s%s", j ? ", " : " (", bn->input[j] ? bn->input[j] : "");
			strbuf_puts(b, bn->n_input ? ") ->" : " ->");
			for (size_t j = 0; j < bn->n_output; j++)
				strbuf_printf(b, "%s%s", j ? ", " : " ", bn->output[j] ? bn->output[j] : "");
			strbuf_putc(b, '\n');
		}
		if (f->n_node > 40)
			strbuf_printf(b, "  ... %zu more\n", f->n_node - 40);
		return;
	}
}

static void node_text(struct strbuf *b, struct ov_model *m, const struct graph *g, const struct shapes *sh, uint32_t i,
		      struct value_marks *mk)
{
	const struct graph_node *gn = &g->nodes[i];
	const Onnx__NodeProto *n = gn->proto;
	const char *op = n->op_type ? n->op_type : "";
	int64_t opset = model_opset(m, n->domain);
	struct ov_error e, doc_err;
	const struct opdb *db = opdb_default(&e);
	const struct opdoc *docs = opdoc_default(&doc_err);
	const struct op_schema *s = db ? opdb_find(db, n->domain, op, opset) : NULL;
	const struct op_doc *doc = docs ? opdoc_find(docs, n->domain, op) : NULL;

	node_ref(b, g, i);
	strbuf_printf(b, "\ndomain    %s", is_default(n->domain) ? "ai.onnx" : "");
	if (!is_default(n->domain))
		describe_name(b, n->domain);
	strbuf_printf(b, " (opset %" PRId64 ")\n", opset);
	if (s)
		strbuf_printf(b, "schema    %s-%d%s\n", s->name, s->since_version, s->deprecated ? " (removed)" : "");
	else if (db && is_default(n->domain))
		strbuf_puts(b, "schema    none at this opset\n");
	strbuf_printf(b, "category  %s\n", op_category_name(op_category_of(n->domain, op)));
	if (n->doc_string && *n->doc_string) {
		strbuf_puts(b, "doc       ");
		strbuf_put_safe(b, n->doc_string, strlen(n->doc_string), 300);
		strbuf_putc(b, '\n');
	}
	strbuf_printf(b, "\ninputs (%zu)\n", n->n_input);
	for (size_t k = 0; k < n->n_input; k++) {
		const char *formal = s && k < s->n_inputs ? s->inputs[k].name : NULL;
		mark_constant(mk, b, g, gn->in[k]);
		if (gn->in[k] < 0)
			strbuf_printf(b, "  %-8s (left out)\n", formal ? formal : "");
		else
			value_line(b, m, g, sh, formal, gn->in[k], 1);
	}
	strbuf_printf(b, "outputs (%zu)\n", n->n_output);
	for (size_t k = 0; k < n->n_output; k++) {
		const char *formal = s && k < s->n_outputs ? s->outputs[k].name : NULL;
		mark_constant(mk, b, g, gn->out[k]);
		if (gn->out[k] < 0)
			strbuf_printf(b, "  %-8s (not produced)\n", formal ? formal : "");
		else
			value_line(b, m, g, sh, formal, gn->out[k], 0);
	}
	strbuf_printf(b, "attributes (%zu)\n", n->n_attribute);
	for (size_t a = 0; a < n->n_attribute; a++) {
		const Onnx__AttributeProto *at = n->attribute[a];
		strbuf_puts(b, "  ");
		describe_name(b, at->name);
		strbuf_puts(b, " = ");
		describe_attr_value(b, m, at, 64);
		strbuf_printf(b, "  (%s)\n", attr_type_name(at));
	}
	if (s) { /* what the op assumes for the attributes left out */
		int first = 1;
		for (size_t k = 0; k < s->n_attrs; k++) {
			int set = 0;
			for (size_t a = 0; a < n->n_attribute && !set; a++)
				set = n->attribute[a]->name && !strcmp(n->attribute[a]->name, s->attrs[k].name);
			if (set || (!s->attrs[k].default_text && !s->attrs[k].required))
				continue;
			if (first)
				strbuf_puts(b, "defaults\n");
			first = 0;
			strbuf_printf(b, "  %s = %s%s\n", s->attrs[k].name,
				      s->attrs[k].default_text ? s->attrs[k].default_text : "(required, missing)",
				      s->attrs[k].required ? "" : "");
		}
	}
	for (uint32_t k = 0; k < gn->n_sub; k++)
		strbuf_printf(b, "subgraph  %s: %u nodes\n", gn->sub_attr[k] ? gn->sub_attr[k] : "?", gn->sub[k]->n_nodes);
	local_function_lines(b, m, n);
	if (!docs) { /* never silently without the notes: say why they are missing */
		strbuf_puts(b, "\nreference\n  unavailable: ");
		strbuf_put_safe(b, doc_err.msg, strlen(doc_err.msg), 0);
		strbuf_putc(b, '\n');
	} else if (doc) {
		strbuf_puts(b, "\nreference\n");
		if (doc->summary)
			strbuf_printf(b, "  %s\n", doc->summary);
		for (size_t k = 0; k < doc->n_pytorch; k++)
			strbuf_printf(b, "  PyTorch: %s\n", doc->pytorch[k]);
		for (size_t k = 0; k < doc->n_history; k++)
			strbuf_printf(b, "  opset %d: %s\n", doc->history[k].version, doc->history[k].text);
		if (doc->text) {
			strbuf_puts(b, "\n");
			for (const char *p = doc->text; *p;) {
				size_t l = strcspn(p, "\n");
				strbuf_puts(b, "  ");
				strbuf_add(b, p, l);
				strbuf_putc(b, '\n');
				p += l + (p[l] == '\n');
			}
		}
	}
}

void present_node_text(struct strbuf *b, struct ov_model *m, const struct graph *g, const struct shapes *sh,
		       uint32_t i)
{
	node_text(b, m, g, sh, i, NULL);
}

int32_t *present_node_text_values(struct strbuf *b, struct ov_model *m, const struct graph *g, const struct shapes *sh,
				  uint32_t i, size_t *n_lines)
{
	const Onnx__NodeProto *n = g->nodes[i].proto;
	size_t cap = n->n_input + n->n_output + 1, start = b->len, lines = 1;
	struct value_marks mk = {malloc(cap * sizeof *mk.off), malloc(cap * sizeof *mk.value), 0};
	int32_t *out = NULL;

	if (mk.off && mk.value) {
		node_text(b, m, g, sh, i, &mk);
		for (size_t k = start; k < b->len; k++)
			lines += b->s[k] == '\n';
		out = malloc(lines * sizeof *out);
	}
	if (out) {
		for (size_t l = 0; l < lines; l++)
			out[l] = -1;
		size_t line = 0, k = start;
		for (size_t j = 0; j < mk.n; j++) {
			for (; k < mk.off[j]; k++)
				line += b->s[k] == '\n';
			out[line] = mk.value[j];
		}
		*n_lines = lines;
	}
	free(mk.off);
	free(mk.value);
	return out;
}

void present_value_text(struct strbuf *b, struct ov_model *m, const struct graph *g, const struct shapes *sh,
			int32_t id)
{
	const struct graph_value *v = &g->values[id];
	const struct graph_value *r = graph_value_resolve(g, id, NULL);
	int inferred;

	describe_name(b, v->name);
	strbuf_puts(b, "\ntype      ");
	present_value_type(b, g, sh, id, &inferred);
	strbuf_printf(b, "%s\norigin    %s\n", inferred ? " (inferred)" : "", value_origin_name(v->origin));
	if (v->producer >= 0) {
		strbuf_puts(b, "producer  ");
		node_ref(b, g, (uint32_t)v->producer);
		strbuf_putc(b, '\n');
	}
	for (uint32_t u = 0; u < v->n_uses; u++) {
		strbuf_puts(b, u ? "          " : "consumers ");
		node_ref(b, g, v->uses[u].node);
		strbuf_printf(b, " (input %u)\n", v->uses[u].slot);
	}
	if (r->constant) {
		strbuf_puts(b, "values    ");
		describe_tensor_values(b, m, r->constant, 32);
		strbuf_putc(b, '\n');
	}
}

const char *present_node_op(const struct graph *g, uint32_t i)
{
	return g->nodes[i].proto->op_type ? g->nodes[i].proto->op_type : "";
}

const char *present_node_name(const struct graph *g, uint32_t i)
{
	return g->nodes[i].proto->name ? g->nodes[i].proto->name : "";
}

/* ---- what `e` edits ---- */

/* Per op, the inputs worth editing, most wanted first (the schema's formal names). */
static const struct {
	const char *op;
	const char *inputs[5];
} edit_inputs[] = {
	{.op = "Resize", .inputs = {"scales", "sizes", "roi"}},
	{.op = "Upsample", .inputs = {"scales"}},
	{.op = "Reshape", .inputs = {"shape"}},
	{.op = "Expand", .inputs = {"shape"}},
	{.op = "Pad", .inputs = {"pads", "constant_value", "axes"}},
	{.op = "Slice", .inputs = {"starts", "ends", "axes", "steps"}},
	{.op = "Tile", .inputs = {"repeats"}},
	{.op = "Clip", .inputs = {"min", "max"}},
	{.op = "TopK", .inputs = {"K"}},
	{.op = "Squeeze", .inputs = {"axes"}},
	{.op = "Unsqueeze", .inputs = {"axes"}},
	{.op = "Split", .inputs = {"split"}},
	{.op = "Gather", .inputs = {"indices"}},
	{.op = "GatherElements", .inputs = {"indices"}},
	{.op = "ReduceSum", .inputs = {"axes"}},
	{.op = "ReduceMean", .inputs = {"axes"}},
	{.op = "ReduceMax", .inputs = {"axes"}},
	{.op = "ReduceMin", .inputs = {"axes"}},
	{.op = "ReduceProd", .inputs = {"axes"}},
	{.op = "ReduceL2", .inputs = {"axes"}},
	{.op = "Range", .inputs = {"limit", "start", "delta"}},
	{.op = "OneHot", .inputs = {"depth", "values"}},
	{.op = "CumSum", .inputs = {"axis"}},
	{.op = "NonMaxSuppression", .inputs = {"iou_threshold", "score_threshold", "max_output_boxes_per_class"}},
	{.op = "QuantizeLinear", .inputs = {"y_scale", "y_zero_point"}},
	{.op = "DequantizeLinear", .inputs = {"x_scale", "x_zero_point"}},
	{.op = "Conv", .inputs = {"W", "B"}},
	{.op = "ConvTranspose", .inputs = {"W", "B"}},
	{.op = "Gemm", .inputs = {"B", "C"}},
	{.op = "LayerNormalization", .inputs = {"Scale", "B"}},
	{.op = "BatchNormalization", .inputs = {"scale", "B", "input_mean", "input_var"}},
};

/* The constant of input k of node i (value id), or -1; with values only when full is set. */
static int32_t constant_input(const struct graph *g, uint32_t i, size_t k, int full)
{
	const struct graph_node *gn = &g->nodes[i];

	if (k >= gn->proto->n_input || gn->in[k] < 0)
		return -1;
	const struct graph_value *v = graph_value_resolve(g, gn->in[k], NULL);
	if (!v->constant || (full && tensor_numel(v->constant, NULL) <= 0))
		return -1;
	return gn->in[k];
}

int32_t present_edit_input(struct ov_model *m, const struct graph *g, uint32_t i)
{
	const Onnx__NodeProto *n = g->nodes[i].proto;
	struct ov_error e;
	const struct opdb *db = opdb_default(&e);
	const struct op_schema *schema = db && n->op_type ? opdb_find(db, n->domain, n->op_type, model_opset(m, n->domain))
						       : NULL;

	for (size_t r = 0; schema && is_default(n->domain) && r < sizeof edit_inputs / sizeof edit_inputs[0]; r++) {
		if (strcmp(edit_inputs[r].op, n->op_type))
			continue;
		for (size_t w = 0; w < 5 && edit_inputs[r].inputs[w]; w++)
			for (size_t k = 0; k < schema->n_inputs; k++)
				if (!strcmp(schema->inputs[k].name, edit_inputs[r].inputs[w]) && constant_input(g, i, k, 1) >= 0)
					return constant_input(g, i, k, 1);
	}
	for (int full = 1; full >= 0; full--)
		for (size_t k = 0; k < n->n_input; k++)
			if (constant_input(g, i, k, full) >= 0)
				return constant_input(g, i, k, full);
	return -1;
}

void present_edit_line(struct strbuf *b, struct ov_model *m, const struct graph *g, int32_t id, int max)
{
	const struct graph_value *v = graph_value_resolve(g, id, NULL);
	const char *name = g->values[id].name;
	int plain = *name != 0;

	for (const char *p = name; *p; p++)
		if (*p == ' ' || *p == '"' || *p == '\\' || *p == '[' || *p == '#' || (unsigned char)*p < 0x20)
			plain = 0;
	strbuf_puts(b, "set-tensor ");
	if (plain) {
		strbuf_puts(b, name);
	} else {
		strbuf_putc(b, '"');
		for (const char *p = name; *p; p++) {
			if (*p == '"' || *p == '\\')
				strbuf_putc(b, '\\');
			strbuf_putc(b, *p);
		}
		strbuf_putc(b, '"');
	}
	strbuf_putc(b, ' ');
	int64_t ne = v->constant ? tensor_numel(v->constant, NULL) : -1;
	if (ne > 0 && ne <= max && v->constant->n_dims <= 1) {
		struct strbuf t = {0};
		describe_tensor_values(&t, m, v->constant, max);
		/* only what set-tensor reads back: numbers in brackets, nothing elided */
		const char *s = strbuf_str(&t);
		/* %g keeps 6 significant digits: a number printed with all 6 may have lost some, and retyping it
		 * unchanged would change the model */
		int32_t dt = v->constant->data_type;
		int exact = dt == 2 || dt == 3 || dt == 4 || dt == 5 || dt == 6 || dt == 7 || dt == 9 || dt == 12 || dt == 13;
		int digits = 0, lossy = 0;
		for (const char *p = s; *p; p++) {
			if (*p >= '0' && *p <= '9')
				lossy |= ++digits >= 6;
			else if (*p != '.' && !(*p == '0' && !digits))
				digits = 0;
		}
		if (!t.failed && (exact || !lossy) && !strstr(s, "...") && !strchr(s, '"') && !strstr(s, "\xe2\x80\xa6"))
			strbuf_puts(b, s);
		strbuf_free(&t);
	}
}

const char *present_graph_name(const struct graph *g)
{
	return g->proto && g->proto->name ? g->proto->name : "";
}

const char *present_node_domain(const struct graph *g, uint32_t i)
{
	return g->nodes[i].proto->domain ? g->nodes[i].proto->domain : "";
}

int32_t *present_node_list(struct strbuf *b, const struct graph *g, const struct shapes *sh)
{
	int32_t *targets = malloc((g->n_nodes + 2) * sizeof *targets);
	size_t line = 0;
	struct strbuf t = {0};

	if (!targets)
		return NULL;
	strbuf_printf(b, "%u nodes (Enter jumps to the node in the graph)\n", g->n_nodes);
	targets[line++] = -1;
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		const struct graph_node *gn = &g->nodes[i];
		strbuf_printf(b, "#%-6u ", i);
		if (gn->proto->domain && *gn->proto->domain) {
			describe_name(b, gn->proto->domain);
			strbuf_puts(b, "::");
		}
		describe_name(b, gn->proto->op_type);
		strbuf_puts(b, "  ");
		describe_name(b, gn->proto->name);
		if (gn->proto->n_output && gn->out[0] >= 0) {
			strbuf_reset(&t);
			present_value_type(&t, g, sh, gn->out[0], NULL);
			strbuf_printf(b, "  -> %s", strbuf_str(&t));
		}
		strbuf_putc(b, '\n');
		targets[line++] = (int32_t)i;
	}
	strbuf_free(&t);
	return targets;
}

struct init_row {
	uint64_t bytes;
	int32_t value;
};

static int cmp_rows(const void *x, const void *y)
{
	const struct init_row *a = x, *b = y;
	return a->bytes != b->bytes ? (a->bytes < b->bytes ? 1 : -1) : a->value - b->value;
}

int32_t *present_initializer_list(struct strbuf *b, struct ov_model *m, const struct graph *g, int32_t **values)
{
	struct init_row *rows = malloc((g->n_values + 1) * sizeof *rows);
	int32_t *targets = malloc((g->n_values + 2) * sizeof *targets);
	int32_t *ids = values ? malloc((g->n_values + 2) * sizeof *ids) : NULL;
	size_t n = 0, line = 0;
	uint64_t total = 0;

	if (!rows || !targets || (values && !ids)) {
		free(rows);
		free(targets);
		free(ids);
		return NULL;
	}
	for (uint32_t v = 0; v < g->n_values; v++)
		if (g->values[v].origin == VALUE_INITIALIZER && g->values[v].constant) {
			rows[n++] = (struct init_row){tensor_data_bytes(g->values[v].constant), (int32_t)v};
			total += rows[n - 1].bytes;
		}
	qsort(rows, n, sizeof *rows, cmp_rows);
	strbuf_printf(b, "%zu initializers, %" PRIu64 " bytes, largest first (Enter: the first user, T: the values)\n",
		      n, total);
	if (ids)
		ids[line] = -1;
	targets[line++] = -1;
	for (size_t i = 0; i < n; i++) {
		const struct graph_value *v = &g->values[rows[i].value];
		strbuf_printf(b, "%12" PRIu64 "  ", rows[i].bytes);
		describe_tensor_type(b, v->constant);
		strbuf_puts(b, "  ");
		describe_name(b, v->name);
		if (tensor_is_external(v->constant))
			strbuf_puts(b, "  (external)");
		int64_t ne = tensor_numel(v->constant, NULL);
		if (ne > 0 && ne <= 8) {
			strbuf_puts(b, "  = ");
			describe_tensor_values(b, m, v->constant, 8);
		}
		strbuf_putc(b, '\n');
		if (ids)
			ids[line] = rows[i].value;
		targets[line++] = v->n_uses ? (int32_t)v->uses[0].node : -1;
	}
	free(rows);
	if (values)
		*values = ids;
	return targets;
}

uint32_t present_node_n_inputs(const struct graph *g, uint32_t i)
{
	return (uint32_t)g->nodes[i].proto->n_input;
}

uint32_t present_node_n_outputs(const struct graph *g, uint32_t i)
{
	return (uint32_t)g->nodes[i].proto->n_output;
}

/* Copy a strbuf into a fixed array, cut at a UTF-8 boundary. */
static void copy_text(char *dst, size_t n, const struct strbuf *b)
{
	size_t len = b->len < n ? b->len : n - 1;

	while (len > 0 && len < b->len && ((unsigned char)b->s[len] & 0xc0) == 0x80)
		len--;
	if (len)
		memcpy(dst, b->s, len);
	dst[len] = '\0';
}

static const char *field_name(int32_t dt)
{
	switch (dtype_field(dt)) {
	case OV_FIELD_FLOAT: return "float_data";
	case OV_FIELD_INT32: return "int32_data";
	case OV_FIELD_STRING: return "string_data";
	case OV_FIELD_INT64: return "int64_data";
	case OV_FIELD_DOUBLE: return "double_data";
	case OV_FIELD_UINT64: return "uint64_data";
	default: return "no data field";
	}
}

int present_value_tensor(struct ov_model *m, const struct graph *g, int32_t id, struct present_tensor *out,
			 struct ov_error *err)
{
	const struct graph *owner = g;
	struct strbuf b = {0};
	struct ov_error e;

	memset(out, 0, sizeof *out);
	if (id < 0 || (uint32_t)id >= g->n_values)
		return ov_fail(err, OV_USAGE, "no value #%d", id);
	const struct graph_value *v = graph_value_resolve(g, id, &owner);
	const Onnx__TensorProto *t = v->constant;
	if (!t) {
		strbuf_puts(&b, "'");
		describe_name(&b, g->values[id].name);
		if (v->sparse)
			strbuf_puts(&b, "' is a sparse initializer: the tensor view shows dense tensors");
		else if (v->origin == VALUE_CONSTANT)
			strbuf_puts(&b, "' comes from a Constant without a 'value' tensor");
		else
			strbuf_printf(&b, "' (%s) is not a constant: its values exist only when the model runs",
				      value_origin_name(v->origin));
		ov_fail(err, OV_USAGE, "%s", strbuf_str(&b));
		strbuf_free(&b);
		return -1;
	}
	out->raw_name = v->name;
	describe_name(&b, v->name);
	copy_text(out->name, sizeof out->name, &b);
	out->dtype = t->data_type;
	out->dims = t->dims;
	out->n_dims = t->n_dims;
	out->numel = tensor_numel(t, NULL);
	out->bytes = tensor_data_bytes(t);

	strbuf_reset(&b);
	if (v->origin == VALUE_CONSTANT && v->producer >= 0) {
		strbuf_puts(&b, "Constant node ");
		node_ref(&b, owner, (uint32_t)v->producer);
	} else {
		strbuf_puts(&b, v->input_index >= 0 ? "initializer (the default of a graph input)" : "initializer");
	}
	if (owner != g)
		strbuf_puts(&b, " of an enclosing graph");
	const struct graph_value *u = &g->values[id]; /* users in the graph asked about */
	for (uint32_t k = 0; k < u->n_uses && k < 3; k++) {
		strbuf_puts(&b, k ? ", " : ", used by ");
		node_ref(&b, g, u->uses[k].node);
	}
	if (u->n_uses > 3)
		strbuf_printf(&b, " and %u more", u->n_uses - 3);
	copy_text(out->origin, sizeof out->origin, &b);

	strbuf_reset(&b);
	if (tensor_is_external(t)) {
		const char *loc = tensor_external_value(t, "location"), *off = tensor_external_value(t, "offset");
		strbuf_puts(&b, "external file '");
		strbuf_put_safe(&b, loc ? loc : "", loc ? strlen(loc) : 0, 200);
		strbuf_puts(&b, "'");
		if (off) {
			strbuf_puts(&b, ", offset ");
			strbuf_put_safe(&b, off, strlen(off), 24);
		}
	} else {
		strbuf_printf(&b, "in the model (%s)", t->has_raw_data ? "raw_data" : field_name(t->data_type));
	}
	copy_text(out->where, sizeof out->where, &b);
	strbuf_free(&b);

	/* a file rewritten under its mapping reads as zeros (src/model/mapping.c): say so instead of showing them */
	if (model_check_unchanged(m, &e) || tensor_view_open(m, t, &out->values, &e)) {
		struct strbuf eb = {0}; /* the message quotes the file's location, which the model chose */
		strbuf_put_safe(&eb, e.msg, strlen(e.msg), 400);
		copy_text(out->error, sizeof out->error, &eb);
		strbuf_free(&eb);
		memset(&out->values, 0, sizeof out->values);
	} else {
		out->readable = 1;
	}
	return 0;
}

static int dtype_is_int(int32_t dt)
{
	return dt == OV_DT_INT8 || dt == OV_DT_UINT8 || dt == OV_DT_INT16 || dt == OV_DT_UINT16 || dt == OV_DT_INT32 ||
	       dt == OV_DT_UINT32 || dt == OV_DT_INT64 || dt == OV_DT_INT4 || dt == OV_DT_UINT4 || dt == OV_DT_INT2 ||
	       dt == OV_DT_UINT2;
}

static void put_float(struct strbuf *b, double x)
{
	if (isnan(x))
		strbuf_puts(b, "nan");
	else if (isinf(x))
		strbuf_puts(b, x > 0 ? "inf" : "-inf");
	else
		strbuf_printf(b, "%.6g", x);
}

/* The imaginary part of complex element i (tensor_view_get gives the real part). */
static double complex_imag(const struct tensor_view *v, int64_t i)
{
	if (v->raw) {
		if (v->dtype == OV_DT_COMPLEX64) {
			float f;
			memcpy(&f, v->raw + 8 * (size_t)i + 4, 4);
			return f;
		}
		double d;
		memcpy(&d, v->raw + 16 * (size_t)i + 8, 8);
		return d;
	}
	return v->dtype == OV_DT_COMPLEX64 ? v->t->float_data[2 * i + 1] : v->t->double_data[2 * i + 1];
}

int present_tensor_element(struct strbuf *b, const struct present_tensor *t, int64_t i, size_t max_string)
{
	const struct tensor_view *v = &t->values;

	if (!t->readable || i < 0 || i >= v->numel) {
		strbuf_puts(b, "?");
		return 0;
	}
	if (v->dtype == OV_DT_STRING) {
		const ProtobufCBinaryData *s = &v->t->string_data[i];
		strbuf_putc(b, '"');
		strbuf_put_safe(b, (const char *)s->data, s->len, max_string);
		strbuf_putc(b, '"');
		return 0;
	}
	if (v->dtype == OV_DT_UINT64) {
		strbuf_printf(b, "%" PRIu64, (uint64_t)tensor_view_int(v, i));
		return 0;
	}
	if (dtype_is_int(v->dtype)) {
		strbuf_printf(b, "%" PRId64, tensor_view_int(v, i));
		return 0;
	}
	double x = tensor_view_get(v, i);
	if (v->dtype == OV_DT_BOOL) {
		strbuf_puts(b, x != 0 ? "true" : "false");
		return 0;
	}
	if (v->dtype == OV_DT_COMPLEX64 || v->dtype == OV_DT_COMPLEX128) {
		double im = complex_imag(v, i);
		put_float(b, x);
		strbuf_puts(b, im < 0 || (im == 0 && signbit(im)) ? "-" : "+");
		put_float(b, fabs(im));
		strbuf_putc(b, 'i');
		return !isfinite(x) || !isfinite(im);
	}
	put_float(b, x);
	return !isfinite(x);
}
