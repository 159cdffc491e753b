/* `onnxview info`: everything about a model at a glance, as text or JSON. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/report.h"
#include "src/model/describe.h"
#include "src/base/dtype.h"
#include "src/base/json.h"
#include "src/graph/lint.h"
#include "src/model/model.h"
#include "src/base/strmap.h"


struct op_count {
	const char *domain;
	const char *op;
	size_t n;
};

struct ext_file {
	const char *location;
	size_t tensors;
	uint64_t bytes;
};

struct summary {
	struct op_count *ops;
	size_t n_ops, cap_ops;
	struct strmap op_index; /* "<strlen(domain)>:<domain><op>" (malloc'd) -> index in ops + 1, while counting */
	size_t n_nodes_total; /* including subgraphs */
	size_t subgraphs;
	uint64_t params, param_bytes;
	size_t constants;
	uint64_t constant_bytes;
	struct ext_file *ext;
	size_t n_ext, cap_ext;
	struct strmap ext_index; /* location -> index in ext + 1 */
	char **warnings;
	size_t n_warnings, cap_warnings;
};

/* Room for one more element in arr (n used of *cap elements of elem bytes), doubling the capacity: returns the
 * array, perhaps moved, or NULL when out of memory (arr is then unchanged). Growing by one element at a time
 * made big models quadratic. */
static void *array_room(void *arr, size_t n, size_t *cap, size_t elem)
{
	size_t nc = *cap ? *cap * 2 : 16;
	void *np;

	if (n < *cap)
		return arr;
	if (nc > ((size_t)-1) / elem)
		return NULL;
	np = realloc(arr, nc * elem);
	if (np)
		*cap = nc;
	return np;
}

/* Counts by (domain, op) through a hash map: a linear search made models with many distinct ops quadratic. */
static void count_op(struct summary *s, const char *domain, const char *op)
{
	char *key;

	if (asprintf(&key, "%zu:%s%s", strlen(domain), domain, op) < 0)
		return;
	size_t i = (size_t)(uintptr_t)strmap_get(&s->op_index, key);
	if (i) {
		s->ops[i - 1].n++;
		free(key);
		return;
	}
	struct op_count *ops = array_room(s->ops, s->n_ops, &s->cap_ops, sizeof *ops);
	if (ops)
		s->ops = ops;
	if (!ops || strmap_add(&s->op_index, key, (void *)(uintptr_t)(s->n_ops + 1))) {
		free(key);
		return;
	}
	s->ops[s->n_ops++] = (struct op_count){domain, op, 1};
}

static void op_index_free(struct summary *s)
{
	for (size_t i = 0; i < s->op_index.cap; i++)
		free((char *)s->op_index.slots[i].key);
	strmap_free(&s->op_index);
}

static int cmp_ops(const void *a, const void *b)
{
	const struct op_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	int c = strcmp(x->op, y->op);
	return c ? c : strcmp(x->domain, y->domain);
}

static void count_subgraphs(struct summary *s, const Onnx__GraphProto *g)
{
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t a = 0; a < g->node[i]->n_attribute; a++) {
			const Onnx__AttributeProto *at = g->node[i]->attribute[a];
			if (at->g) {
				s->subgraphs++;
				s->n_nodes_total += at->g->n_node;
				count_subgraphs(s, at->g);
			}
			for (size_t k = 0; k < at->n_graphs; k++) {
				s->subgraphs++;
				s->n_nodes_total += at->graphs[k]->n_node;
				count_subgraphs(s, at->graphs[k]);
			}
		}
}

static void add_ext(struct summary *s, const Onnx__TensorProto *t)
{
	const char *loc = tensor_external_value(t, "location");

	if (!loc)
		return;
	size_t i = (size_t)(uintptr_t)strmap_get(&s->ext_index, loc);
	if (i) {
		s->ext[i - 1].tensors++;
		s->ext[i - 1].bytes += tensor_data_bytes(t);
		return;
	}
	struct ext_file *ext = array_room(s->ext, s->n_ext, &s->cap_ext, sizeof *ext);
	if (!ext)
		return;
	s->ext = ext;
	if (strmap_add(&s->ext_index, loc, (void *)(uintptr_t)(s->n_ext + 1)))
		return;
	s->ext[s->n_ext++] = (struct ext_file){loc, 1, tensor_data_bytes(t)};
}

static int tensor_visit(Onnx__TensorProto *t, const struct tensor_site *site, void *ctx)
{
	struct summary *s = ctx;

	if (tensor_is_external(t))
		add_ext(s, t);
	return 0;
}

static void collect_warning(const char *msg, void *ctx)
{
	struct summary *s = ctx;
	char **w = array_room(s->warnings, s->n_warnings, &s->cap_warnings, sizeof *w);

	if (!w)
		return;
	s->warnings = w;
	s->warnings[s->n_warnings++] = strdup(msg);
}

static void summarise(struct ov_model *m, struct summary *s)
{
	const Onnx__GraphProto *g = m->proto->graph;

	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];
		count_op(s, n->domain ? n->domain : "", n->op_type ? n->op_type : "");
		if (n->op_type && !strcmp(n->op_type, "Constant") && (!n->domain || !*n->domain)) {
			s->constants++;
			for (size_t a = 0; a < n->n_attribute; a++)
				if (n->attribute[a]->t)
					s->constant_bytes += tensor_data_bytes(n->attribute[a]->t);
		}
	}
	op_index_free(s); /* the indexes are about to change */
	if (s->n_ops) /* qsort's array must not be NULL, even for zero elements */
		qsort(s->ops, s->n_ops, sizeof *s->ops, cmp_ops);
	s->n_nodes_total = g->n_node;
	count_subgraphs(s, g);
	for (size_t i = 0; i < g->n_initializer; i++) {
		int64_t n = tensor_numel(g->initializer[i], NULL);
		s->params += n > 0 ? (uint64_t)n : 0;
		s->param_bytes += tensor_data_bytes(g->initializer[i]);
	}
	model_foreach_tensor(m->proto, tensor_visit, s);
	lint_references(m, collect_warning, s);
}

static void summary_free(struct summary *s)
{
	for (size_t i = 0; i < s->n_warnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	free(s->ops);
	free(s->ext);
	strmap_free(&s->ext_index);
}

static void put_opsets(struct strbuf *b, const Onnx__ModelProto *p)
{
	if (!p->n_opset_import)
		strbuf_puts(b, "none");
	for (size_t i = 0; i < p->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *o = p->opset_import[i];
		if (i)
			strbuf_puts(b, ", ");
		describe_name(b, o->domain && *o->domain ? o->domain : "ai.onnx");
		strbuf_printf(b, " %" PRId64, o->version);
	}
}

/* Pads the line so far to column col (counted from the last newline, in bytes). */
static void pad_to(struct strbuf *b, size_t line_start, size_t col)
{
	size_t w = b->len - line_start;

	do
		strbuf_putc(b, ' ');
	while (++w < col);
}

static void text_values(struct strbuf *b, const char *title, Onnx__ValueInfoProto **v, size_t n)
{
	size_t width = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i]->name && strlen(v[i]->name) > width)
			width = strlen(v[i]->name);
	width = width > 40 ? 40 : width;
	strbuf_printf(b, "%-14s%zu\n", title, n);
	for (size_t i = 0; i < n; i++) {
		size_t start = b->len;
		strbuf_puts(b, "  ");
		describe_name(b, v[i]->name);
		pad_to(b, start, width + 4);
		describe_type(b, v[i]->type);
		strbuf_putc(b, '\n');
	}
}

static void text_field(struct strbuf *b, const char *title, const char *value)
{
	strbuf_printf(b, "%-14s", title);
	if (value && *value)
		strbuf_put_safe(b, value, strlen(value), 400);
	else
		strbuf_putc(b, '-');
	strbuf_putc(b, '\n');
}

static void info_text(struct strbuf *b, struct ov_model *m, const struct summary *s)
{
	const Onnx__ModelProto *p = m->proto;
	const Onnx__GraphProto *g = p->graph;

	text_field(b, "file", m->path);
	strbuf_printf(b, "%-14s%" PRIu64 " bytes\n", "size", m->file_size);
	if (p->has_ir_version)
		strbuf_printf(b, "%-14s%" PRId64 "\n", "ir_version", p->ir_version);
	else
		text_field(b, "ir_version", NULL);
	strbuf_printf(b, "%-14s", "producer");
	if (p->producer_name && *p->producer_name) {
		strbuf_put_safe(b, p->producer_name, strlen(p->producer_name), 200);
		if (p->producer_version && *p->producer_version) {
			strbuf_putc(b, ' ');
			strbuf_put_safe(b, p->producer_version, strlen(p->producer_version), 100);
		}
	} else
		strbuf_putc(b, '-');
	strbuf_putc(b, '\n');
	text_field(b, "domain", p->domain);
	strbuf_printf(b, "%-14s%" PRId64 "\n", "model_version", p->has_model_version ? p->model_version : 0);
	text_field(b, "doc_string", p->doc_string);
	strbuf_printf(b, "%-14s", "opsets");
	put_opsets(b, p);
	strbuf_putc(b, '\n');
	text_field(b, "graph", g->name);
	text_values(b, "inputs", g->input, g->n_input);
	text_values(b, "outputs", g->output, g->n_output);
	strbuf_printf(b, "%-14s%zu", "nodes", g->n_node);
	if (s->n_nodes_total != g->n_node)
		strbuf_printf(b, " (%zu with subgraphs)", s->n_nodes_total);
	strbuf_putc(b, '\n');
	for (size_t i = 0; i < s->n_ops; i++) {
		size_t start = b->len;
		strbuf_puts(b, "  ");
		if (*s->ops[i].domain) {
			describe_name(b, s->ops[i].domain);
			strbuf_puts(b, "::");
		}
		describe_name(b, s->ops[i].op);
		pad_to(b, start, 24);
		strbuf_printf(b, "%zu\n", s->ops[i].n);
	}
	strbuf_printf(b, "%-14s%zu (%" PRIu64 " parameters, %" PRIu64 " bytes)\n", "initializers", g->n_initializer,
		      s->params, s->param_bytes);
	strbuf_printf(b, "%-14s%zu\n", "sparse", g->n_sparse_initializer);
	strbuf_printf(b, "%-14s%zu Constant nodes (%" PRIu64 " bytes)\n", "constants", s->constants,
		      s->constant_bytes);
	strbuf_printf(b, "%-14s%zu\n", "value_info", g->n_value_info);
	strbuf_printf(b, "%-14s", "external data");
	if (!s->n_ext)
		strbuf_puts(b, "none\n");
	else
		strbuf_putc(b, '\n');
	for (size_t i = 0; i < s->n_ext; i++) {
		strbuf_puts(b, "  ");
		describe_name(b, s->ext[i].location);
		strbuf_printf(b, "  %zu tensors, %" PRIu64 " bytes\n", s->ext[i].tensors, s->ext[i].bytes);
	}
	strbuf_printf(b, "%-14s%s", "metadata", p->n_metadata_props ? "\n" : "none\n");
	for (size_t i = 0; i < p->n_metadata_props; i++) {
		const Onnx__StringStringEntryProto *e = p->metadata_props[i];
		strbuf_puts(b, "  ");
		describe_name(b, e->key);
		strbuf_puts(b, " = ");
		if (e->value)
			strbuf_put_safe(b, e->value, strlen(e->value), 200);
		strbuf_putc(b, '\n');
	}
	strbuf_printf(b, "%-14s%s", "functions", p->n_functions ? "\n" : "none\n");
	for (size_t i = 0; i < p->n_functions; i++) {
		const Onnx__FunctionProto *f = p->functions[i];
		strbuf_puts(b, "  ");
		if (f->domain && *f->domain) {
			describe_name(b, f->domain);
			strbuf_puts(b, "::");
		}
		describe_name(b, f->name);
		strbuf_printf(b, "  %zu nodes, %zu inputs, %zu outputs\n", f->n_node, f->n_input, f->n_output);
	}
	strbuf_printf(b, "%-14s%zu\n", "subgraphs", s->subgraphs);
	if (p->n_training_info)
		strbuf_printf(b, "%-14s%zu\n", "training_info", p->n_training_info);
	strbuf_printf(b, "%-14s%s", "warnings", s->n_warnings ? "\n" : "none\n");
	for (size_t i = 0; i < s->n_warnings; i++)
		strbuf_printf(b, "  %s\n", s->warnings[i] ? s->warnings[i] : "(out of memory)");
}

static void json_values(struct json *j, const char *key, Onnx__ValueInfoProto **v, size_t n)
{
	struct strbuf t = {0};

	json_key(j, key);
	json_arr(j);
	for (size_t i = 0; i < n; i++) {
		json_obj(j);
		json_kstr(j, "name", v[i]->name ? v[i]->name : "");
		describe_type(&t, v[i]->type);
		json_kstr(j, "type", strbuf_str(&t));
		strbuf_reset(&t);
		const Onnx__TypeProto *tp = v[i]->type;
		if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
			json_kstr(j, "dtype", tp->tensor_type->has_elem_type ?
						      dtype_short_name(tp->tensor_type->elem_type) : NULL);
			json_key(j, "dims");
			if (!tp->tensor_type->shape) {
				json_null(j);
			} else {
				json_arr(j);
				for (size_t d = 0; d < tp->tensor_type->shape->n_dim; d++) {
					const Onnx__TensorShapeProto__Dimension *dm = tp->tensor_type->shape->dim[d];
					if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
					    dm->dim_value >= 0) /* -1 (Paddle2ONNX): dynamic, as null */
						json_int(j, dm->dim_value);
					else if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
						json_str(j, dm->dim_param);
					else
						json_null(j);
				}
				json_end_arr(j);
			}
		}
		json_end_obj(j);
	}
	json_end_arr(j);
	strbuf_free(&t);
}

static void info_json(struct strbuf *b, struct ov_model *m, const struct summary *s)
{
	const Onnx__ModelProto *p = m->proto;
	const Onnx__GraphProto *g = p->graph;
	struct json j;

	json_init(&j, b, 1);
	json_obj(&j);
	json_kstr(&j, "file", m->path);
	json_key(&j, "size");
	json_uint(&j, m->file_size);
	json_key(&j, "ir_version");
	if (p->has_ir_version)
		json_int(&j, p->ir_version);
	else
		json_null(&j);
	json_kstr(&j, "producer_name", p->producer_name);
	json_kstr(&j, "producer_version", p->producer_version);
	json_kstr(&j, "domain", p->domain);
	json_kint(&j, "model_version", p->has_model_version ? p->model_version : 0);
	json_kstr(&j, "doc_string", p->doc_string);
	json_key(&j, "opsets");
	json_arr(&j);
	for (size_t i = 0; i < p->n_opset_import; i++) {
		json_obj(&j);
		json_kstr(&j, "domain", p->opset_import[i]->domain && *p->opset_import[i]->domain ?
						p->opset_import[i]->domain : "ai.onnx");
		json_kint(&j, "version", p->opset_import[i]->version);
		json_end_obj(&j);
	}
	json_end_arr(&j);
	json_kstr(&j, "graph", g->name);
	json_values(&j, "inputs", g->input, g->n_input);
	json_values(&j, "outputs", g->output, g->n_output);
	json_kint(&j, "nodes", (int64_t)g->n_node);
	json_kint(&j, "nodes_with_subgraphs", (int64_t)s->n_nodes_total);
	json_key(&j, "ops");
	json_arr(&j);
	for (size_t i = 0; i < s->n_ops; i++) {
		json_obj(&j);
		json_kstr(&j, "domain", s->ops[i].domain);
		json_kstr(&j, "op", s->ops[i].op);
		json_kint(&j, "count", (int64_t)s->ops[i].n);
		json_end_obj(&j);
	}
	json_end_arr(&j);
	json_kint(&j, "initializers", (int64_t)g->n_initializer);
	json_key(&j, "parameters");
	json_uint(&j, s->params);
	json_key(&j, "parameter_bytes");
	json_uint(&j, s->param_bytes);
	json_kint(&j, "sparse_initializers", (int64_t)g->n_sparse_initializer);
	json_kint(&j, "constant_nodes", (int64_t)s->constants);
	json_key(&j, "constant_bytes");
	json_uint(&j, s->constant_bytes);
	json_kint(&j, "value_info", (int64_t)g->n_value_info);
	json_key(&j, "external_data");
	json_arr(&j);
	for (size_t i = 0; i < s->n_ext; i++) {
		json_obj(&j);
		json_kstr(&j, "location", s->ext[i].location);
		json_kint(&j, "tensors", (int64_t)s->ext[i].tensors);
		json_key(&j, "bytes");
		json_uint(&j, s->ext[i].bytes);
		json_end_obj(&j);
	}
	json_end_arr(&j);
	json_key(&j, "metadata");
	json_obj(&j);
	for (size_t i = 0; i < p->n_metadata_props; i++) {
		json_key(&j, p->metadata_props[i]->key ? p->metadata_props[i]->key : "");
		json_str(&j, p->metadata_props[i]->value ? p->metadata_props[i]->value : "");
	}
	json_end_obj(&j);
	json_key(&j, "functions");
	json_arr(&j);
	for (size_t i = 0; i < p->n_functions; i++) {
		json_obj(&j);
		json_kstr(&j, "domain", p->functions[i]->domain);
		json_kstr(&j, "name", p->functions[i]->name);
		json_kint(&j, "nodes", (int64_t)p->functions[i]->n_node);
		json_end_obj(&j);
	}
	json_end_arr(&j);
	json_kint(&j, "subgraphs", (int64_t)s->subgraphs);
	json_kint(&j, "training_info", (int64_t)p->n_training_info);
	json_key(&j, "warnings");
	json_arr(&j);
	for (size_t i = 0; i < s->n_warnings; i++)
		json_str(&j, s->warnings[i] ? s->warnings[i] : "(out of memory)");
	json_end_arr(&j);
	json_end_obj(&j);
	strbuf_putc(b, '\n');
}


void info_render(struct ov_model *m, struct strbuf *b, int as_json)
{
	struct summary s;

	summarise(m, &s);
	if (as_json)
		info_json(b, m, &s);
	else
		info_text(b, m, &s);
	summary_free(&s);
}
