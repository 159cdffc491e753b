/* `onnxview dump`: every node with its index, inputs, outputs and attributes in full; initializers summarised. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "src/cmd.h"
#include "src/describe.h"
#include "src/dtype.h"
#include "src/json.h"
#include "src/model.h"
#include "src/strmap.h"

static const char dump_usage[] = "usage: onnxview dump [--json] MODEL";
#define DUMP_VALUES 8 /* tensor values shown per tensor */

enum value_kind { VK_INPUT = 1, VK_INITIALIZER, VK_CONSTANT, VK_NODE, VK_OUTER };
static const char *const kind_names[] = {"?", "graph input", "initializer", "Constant output", "node output",
					 "outer scope"};

/* What the dump knows about each value name of one graph (and, through parent, the graphs around it). */
struct scope {
	const struct scope *parent;
	struct strmap kind;  /* name -> (void *)(intptr_t)enum value_kind */
	struct strmap type;  /* name -> const Onnx__TypeProto * (declared) */
	struct strmap init;  /* name -> const Onnx__TensorProto * (initializer or Constant value) */
};

static void scope_build(struct scope *s, const Onnx__GraphProto *g, const struct scope *parent)
{
	memset(s, 0, sizeof *s);
	s->parent = parent;
	for (size_t i = 0; i < g->n_value_info; i++)
		if (g->value_info[i]->name)
			strmap_put(&s->type, g->value_info[i]->name, g->value_info[i]->type);
	for (size_t i = 0; i < g->n_output; i++)
		if (g->output[i]->name)
			strmap_put(&s->type, g->output[i]->name, g->output[i]->type);
	for (size_t i = 0; i < g->n_input; i++)
		if (g->input[i]->name) {
			strmap_put(&s->type, g->input[i]->name, g->input[i]->type);
			strmap_add(&s->kind, g->input[i]->name, (void *)(intptr_t)VK_INPUT);
		}
	for (size_t i = 0; i < g->n_initializer; i++)
		if (g->initializer[i]->name) {
			/* An initializer also listed as an input is still an initializer (a default value). */
			strmap_put(&s->kind, g->initializer[i]->name, (void *)(intptr_t)VK_INITIALIZER);
			strmap_put(&s->init, g->initializer[i]->name, g->initializer[i]);
		}
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];
		int is_const = n->op_type && !strcmp(n->op_type, "Constant") && (!n->domain || !*n->domain);
		for (size_t k = 0; k < n->n_output; k++) {
			if (!*n->output[k])
				continue;
			strmap_add(&s->kind, n->output[k], (void *)(intptr_t)(is_const ? VK_CONSTANT : VK_NODE));
			if (is_const)
				for (size_t a = 0; a < n->n_attribute; a++)
					if (n->attribute[a]->t)
						strmap_add(&s->init, n->output[k], n->attribute[a]->t);
		}
	}
}

static void scope_free(struct scope *s)
{
	strmap_free(&s->kind);
	strmap_free(&s->type);
	strmap_free(&s->init);
}

static enum value_kind scope_kind(const struct scope *s, const char *name)
{
	intptr_t k = (intptr_t)strmap_get(&s->kind, name);

	if (k)
		return (enum value_kind)k;
	for (const struct scope *p = s->parent; p; p = p->parent)
		if (strmap_has(&p->kind, name))
			return VK_OUTER;
	return 0;
}

/* The best description of a value's type: declared type, else the initializer's/Constant's tensor type. */
static void scope_type(struct strbuf *b, const struct scope *s, const char *name)
{
	for (const struct scope *p = s; p; p = p->parent) {
		const Onnx__TypeProto *tp = strmap_get(&p->type, name);
		const Onnx__TensorProto *t = strmap_get(&p->init, name);
		if (tp) {
			describe_type(b, tp);
			return;
		}
		if (t) {
			describe_tensor_type(b, t);
			return;
		}
	}
	strbuf_putc(b, '?');
}

/* ---- text ------------------------------------------------------------------------------------------------- */

static void indent(struct strbuf *b, int depth)
{
	for (int i = 0; i < depth; i++)
		strbuf_puts(b, "    ");
}

static void text_graph(struct strbuf *b, struct ov_model *m, const Onnx__GraphProto *g, const struct scope *parent,
		       int depth);

/* The constant behind a value (initializer or Constant output), looking outwards through enclosing graphs. */
static const Onnx__TensorProto *scope_const(const struct scope *s, const char *name)
{
	for (const struct scope *p = s; p; p = p->parent) {
		if (strmap_has(&p->kind, name))
			return strmap_get(&p->init, name);
	}
	return NULL;
}

#define INLINE_VALUES 16 /* small constant inputs (Resize scales, Reshape shapes) show their values inline */

static void text_io(struct strbuf *b, struct ov_model *m, const struct scope *s, const char *dir,
		    char *const *names, size_t n, int depth)
{
	struct strbuf t = {0};

	for (size_t k = 0; k < n; k++) {
		indent(b, depth);
		strbuf_printf(b, "  %-4s ", dir);
		if (!*names[k]) {
			strbuf_puts(b, "(none: optional input left out)\n");
			continue;
		}
		describe_name(b, names[k]);
		strbuf_puts(b, "  ");
		scope_type(&t, s, names[k]);
		strbuf_puts(b, strbuf_str(&t));
		strbuf_reset(&t);
		if (!strcmp(dir, "in")) {
			enum value_kind vk = scope_kind(s, names[k]);
			strbuf_printf(b, "  %s", vk ? kind_names[vk] : "UNDEFINED (nothing produces it)");
			const Onnx__TensorProto *c = (vk == VK_INITIALIZER || vk == VK_CONSTANT || vk == VK_OUTER) ?
							    scope_const(s, names[k]) : NULL;
			int64_t ne = c ? tensor_numel(c, NULL) : -1;
			if (ne > 0 && ne <= INLINE_VALUES) {
				strbuf_puts(b, " = ");
				describe_tensor_values(b, m, c, INLINE_VALUES);
			}
		}
		strbuf_putc(b, '\n');
	}
	strbuf_free(&t);
}

static void text_node(struct strbuf *b, struct ov_model *m, const struct scope *s, const Onnx__NodeProto *n,
		      size_t idx, int depth)
{
	indent(b, depth);
	strbuf_printf(b, "#%zu ", idx);
	describe_name(b, n->name);
	strbuf_putc(b, ' ');
	if (n->domain && *n->domain) {
		describe_name(b, n->domain);
		strbuf_puts(b, "::");
	}
	describe_name(b, n->op_type);
	strbuf_putc(b, '\n');
	text_io(b, m, s, "in", n->input, n->n_input, depth);
	text_io(b, m, s, "out", n->output, n->n_output, depth);
	for (size_t a = 0; a < n->n_attribute; a++) {
		const Onnx__AttributeProto *at = n->attribute[a];
		indent(b, depth);
		strbuf_puts(b, "  attr ");
		describe_name(b, at->name);
		if (at->ref_attr_name && *at->ref_attr_name) {
			strbuf_puts(b, " = @");
			describe_name(b, at->ref_attr_name);
			strbuf_printf(b, "  (%s, from the calling function)\n", attr_type_name(at));
			continue;
		}
		strbuf_puts(b, " = ");
		describe_attr_value(b, m, at, DUMP_VALUES);
		strbuf_printf(b, "  (%s)\n", attr_type_name(at));
		if (at->g)
			text_graph(b, m, at->g, s, depth + 1);
		for (size_t k = 0; k < at->n_graphs; k++)
			text_graph(b, m, at->graphs[k], s, depth + 1);
	}
}

static void text_tensor(struct strbuf *b, struct ov_model *m, const Onnx__TensorProto *t, int depth)
{
	indent(b, depth);
	strbuf_puts(b, "  ");
	describe_name(b, t->name);
	strbuf_puts(b, "  ");
	describe_tensor_type(b, t);
	strbuf_printf(b, "  %" PRIu64 " bytes", tensor_data_bytes(t));
	if (tensor_is_external(t)) {
		const char *loc = tensor_external_value(t, "location");
		strbuf_puts(b, "  external '");
		describe_name(b, loc);
		strbuf_printf(b, "' offset %s", tensor_external_value(t, "offset") ? tensor_external_value(t, "offset")
										    : "0");
	}
	strbuf_puts(b, "  ");
	describe_tensor_values(b, m, t, DUMP_VALUES);
	strbuf_putc(b, '\n');
}

static void text_graph(struct strbuf *b, struct ov_model *m, const Onnx__GraphProto *g, const struct scope *parent,
		       int depth)
{
	struct scope s;
	struct strbuf t = {0};

	scope_build(&s, g, parent);
	indent(b, depth);
	strbuf_puts(b, "graph '");
	describe_name(b, g->name);
	strbuf_printf(b, "' (%zu nodes, %zu initializers)\n", g->n_node, g->n_initializer);
	for (int io = 0; io < 2; io++) {
		Onnx__ValueInfoProto **v = io ? g->output : g->input;
		size_t n = io ? g->n_output : g->n_input;
		indent(b, depth);
		strbuf_printf(b, "%s %zu\n", io ? "outputs" : "inputs", n);
		for (size_t i = 0; i < n; i++) {
			indent(b, depth);
			strbuf_puts(b, "  ");
			describe_name(b, v[i]->name);
			strbuf_puts(b, "  ");
			describe_type(&t, v[i]->type);
			strbuf_puts(b, strbuf_str(&t));
			strbuf_reset(&t);
			strbuf_putc(b, '\n');
		}
	}
	for (size_t i = 0; i < g->n_node; i++)
		text_node(b, m, &s, g->node[i], i, depth);
	if (g->n_initializer) {
		indent(b, depth);
		strbuf_printf(b, "initializers %zu\n", g->n_initializer);
	}
	for (size_t i = 0; i < g->n_initializer; i++)
		text_tensor(b, m, g->initializer[i], depth);
	if (g->n_sparse_initializer) {
		indent(b, depth);
		strbuf_printf(b, "sparse initializers %zu\n", g->n_sparse_initializer);
	}
	for (size_t i = 0; i < g->n_sparse_initializer; i++) {
		const Onnx__SparseTensorProto *sp = g->sparse_initializer[i];
		indent(b, depth);
		strbuf_puts(b, "  ");
		describe_name(b, sp->values ? sp->values->name : NULL);
		strbuf_puts(b, "  sparse ");
		describe_dims(b, sp->dims, sp->n_dims);
		if (sp->values) {
			strbuf_puts(b, "  values ");
			describe_tensor_type(b, sp->values);
		}
		if (sp->indices) {
			strbuf_puts(b, "  indices ");
			describe_tensor_type(b, sp->indices);
		}
		strbuf_putc(b, '\n');
	}
	strbuf_free(&t);
	scope_free(&s);
}

static void text_functions(struct strbuf *b, struct ov_model *m)
{
	for (size_t i = 0; i < m->proto->n_functions; i++) {
		const Onnx__FunctionProto *f = m->proto->functions[i];
		Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
		struct scope s;

		strbuf_puts(b, "\nfunction ");
		if (f->domain && *f->domain) {
			describe_name(b, f->domain);
			strbuf_puts(b, "::");
		}
		describe_name(b, f->name);
		strbuf_puts(b, " (");
		for (size_t k = 0; k < f->n_input; k++) {
			strbuf_puts(b, k ? ", " : "");
			describe_name(b, f->input[k]);
		}
		strbuf_puts(b, ") -> (");
		for (size_t k = 0; k < f->n_output; k++) {
			strbuf_puts(b, k ? ", " : "");
			describe_name(b, f->output[k]);
		}
		strbuf_putc(b, ')');
		if (f->n_attribute) {
			strbuf_puts(b, " attributes");
			for (size_t k = 0; k < f->n_attribute; k++) {
				strbuf_putc(b, ' ');
				describe_name(b, f->attribute[k]);
			}
		}
		strbuf_putc(b, '\n');
		g.n_node = f->n_node;
		g.node = f->node;
		scope_build(&s, &g, NULL);
		for (size_t k = 0; k < f->n_input; k++)
			strmap_add(&s.kind, f->input[k], (void *)(intptr_t)VK_INPUT);
		for (size_t k = 0; k < f->n_node; k++)
			text_node(b, m, &s, f->node[k], k, 0);
		scope_free(&s);
	}
}

/* ---- JSON ------------------------------------------------------------------------------------------------- */

static void json_graph(struct json *j, struct ov_model *m, const Onnx__GraphProto *g, const struct scope *parent);

static void json_tensor(struct json *j, struct ov_model *m, const Onnx__TensorProto *t)
{
	struct strbuf v = {0};

	json_obj(j);
	json_kstr(j, "name", t->name ? t->name : "");
	json_kstr(j, "dtype", dtype_short_name(t->data_type));
	json_key(j, "dims");
	json_arr(j);
	for (size_t d = 0; d < t->n_dims; d++)
		json_int(j, t->dims[d]);
	json_end_arr(j);
	json_key(j, "bytes");
	json_uint(j, tensor_data_bytes(t));
	if (tensor_is_external(t)) {
		json_key(j, "external");
		json_obj(j);
		json_kstr(j, "location", tensor_external_value(t, "location"));
		json_kstr(j, "offset", tensor_external_value(t, "offset"));
		json_kstr(j, "length", tensor_external_value(t, "length"));
		json_end_obj(j);
	}
	describe_tensor_values(&v, m, t, DUMP_VALUES);
	json_kstr(j, "values", strbuf_str(&v));
	strbuf_free(&v);
	json_end_obj(j);
}

static void json_names(struct json *j, struct ov_model *m, const struct scope *s, const char *key,
		       char *const *names, size_t n, int with_kind)
{
	struct strbuf t = {0};

	json_key(j, key);
	json_arr(j);
	for (size_t k = 0; k < n; k++) {
		json_obj(j);
		json_kstr(j, "name", names[k]);
		if (*names[k]) {
			scope_type(&t, s, names[k]);
			json_kstr(j, "type", strbuf_str(&t));
			strbuf_reset(&t);
			if (with_kind) {
				enum value_kind vk = scope_kind(s, names[k]);
				json_kstr(j, "kind", vk ? kind_names[vk] : "undefined");
				const Onnx__TensorProto *c = vk ? scope_const(s, names[k]) : NULL;
				int64_t ne = c ? tensor_numel(c, NULL) : -1;
				if (ne > 0 && ne <= INLINE_VALUES) {
					describe_tensor_values(&t, m, c, INLINE_VALUES);
					json_kstr(j, "value", strbuf_str(&t));
					strbuf_reset(&t);
				}
			}
		}
		json_end_obj(j);
	}
	json_end_arr(j);
	strbuf_free(&t);
}

static void json_node(struct json *j, struct ov_model *m, const struct scope *s, const Onnx__NodeProto *n, size_t idx)
{
	struct strbuf v = {0};

	json_obj(j);
	json_kint(j, "index", (int64_t)idx);
	json_kstr(j, "name", n->name ? n->name : "");
	json_kstr(j, "domain", n->domain ? n->domain : "");
	json_kstr(j, "op_type", n->op_type ? n->op_type : "");
	json_names(j, m, s, "inputs", n->input, n->n_input, 1);
	json_names(j, m, s, "outputs", n->output, n->n_output, 0);
	json_key(j, "attributes");
	json_arr(j);
	for (size_t a = 0; a < n->n_attribute; a++) {
		const Onnx__AttributeProto *at = n->attribute[a];
		json_obj(j);
		json_kstr(j, "name", at->name ? at->name : "");
		json_kstr(j, "type", attr_type_name(at));
		if (at->ref_attr_name && *at->ref_attr_name)
			json_kstr(j, "ref_attr_name", at->ref_attr_name);
		describe_attr_value(&v, m, at, DUMP_VALUES);
		json_kstr(j, "value", strbuf_str(&v));
		strbuf_reset(&v);
		switch (attr_type(at)) {
		case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
			json_key(j, "ints");
			json_arr(j);
			for (size_t k = 0; k < at->n_ints; k++)
				json_int(j, at->ints[k]);
			json_end_arr(j);
			break;
		case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
			json_key(j, "floats");
			json_arr(j);
			for (size_t k = 0; k < at->n_floats; k++)
				json_double(j, at->floats[k]);
			json_end_arr(j);
			break;
		case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
			json_kint(j, "i", at->i);
			break;
		case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
			json_key(j, "f");
			json_double(j, at->f);
			break;
		case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
			json_key(j, "s");
			json_strn(j, (const char *)at->s.data, at->s.len);
			break;
		case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
			if (at->t) {
				json_key(j, "tensor");
				json_tensor(j, m, at->t);
			}
			break;
		default:
			break;
		}
		if (at->g) {
			json_key(j, "graph");
			json_graph(j, m, at->g, s);
		}
		if (at->n_graphs) {
			json_key(j, "graphs");
			json_arr(j);
			for (size_t k = 0; k < at->n_graphs; k++)
				json_graph(j, m, at->graphs[k], s);
			json_end_arr(j);
		}
		json_end_obj(j);
	}
	json_end_arr(j);
	json_end_obj(j);
	strbuf_free(&v);
}

static void json_value_infos(struct json *j, const char *key, Onnx__ValueInfoProto **v, size_t n)
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
		json_end_obj(j);
	}
	json_end_arr(j);
	strbuf_free(&t);
}

static void json_graph(struct json *j, struct ov_model *m, const Onnx__GraphProto *g, const struct scope *parent)
{
	struct scope s;

	scope_build(&s, g, parent);
	json_obj(j);
	json_kstr(j, "name", g->name ? g->name : "");
	json_value_infos(j, "inputs", g->input, g->n_input);
	json_value_infos(j, "outputs", g->output, g->n_output);
	json_key(j, "nodes");
	json_arr(j);
	for (size_t i = 0; i < g->n_node; i++)
		json_node(j, m, &s, g->node[i], i);
	json_end_arr(j);
	json_key(j, "initializers");
	json_arr(j);
	for (size_t i = 0; i < g->n_initializer; i++)
		json_tensor(j, m, g->initializer[i]);
	json_end_arr(j);
	json_key(j, "sparse_initializers");
	json_arr(j);
	for (size_t i = 0; i < g->n_sparse_initializer; i++) {
		const Onnx__SparseTensorProto *sp = g->sparse_initializer[i];
		json_obj(j);
		json_kstr(j, "name", sp->values && sp->values->name ? sp->values->name : "");
		json_key(j, "dims");
		json_arr(j);
		for (size_t d = 0; d < sp->n_dims; d++)
			json_int(j, sp->dims[d]);
		json_end_arr(j);
		if (sp->values) {
			json_key(j, "values");
			json_tensor(j, m, sp->values);
		}
		if (sp->indices) {
			json_key(j, "indices");
			json_tensor(j, m, sp->indices);
		}
		json_end_obj(j);
	}
	json_end_arr(j);
	json_end_obj(j);
	scope_free(&s);
}

int cmd_dump(int argc, char **argv, FILE *out, FILE *err)
{
	const char *path = NULL;
	int as_json = 0, rc;
	struct ov_model *m;
	struct strbuf b = {0};

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			as_json = 1;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fprintf(out, "%s\n", dump_usage);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1])
			return cmd_usage_error(err, dump_usage, "dump: unknown option '%s'", argv[i]);
		else if (path)
			return cmd_usage_error(err, dump_usage, "dump: one model at a time ('%s' and '%s')", path, argv[i]);
		else
			path = argv[i];
	}
	if (!path)
		return cmd_usage_error(err, dump_usage, "dump: no model given");
	rc = cmd_load(path, &m, err);
	if (rc)
		return rc;
	dump_render(m, &b, as_json);
	fwrite(strbuf_str(&b), 1, b.len, out);
	strbuf_free(&b);
	model_free(m);
	return 0;
}

void dump_render(struct ov_model *m, struct strbuf *b, int as_json)
{
	const char *path = m->path;

	if (as_json) {
		struct json j;
		json_init(&j, b, 1);
		json_obj(&j);
		json_kstr(&j, "file", path);
		json_key(&j, "graph");
		json_graph(&j, m, m->proto->graph, NULL);
		json_key(&j, "functions");
		json_arr(&j);
		for (size_t i = 0; i < m->proto->n_functions; i++) {
			const Onnx__FunctionProto *f = m->proto->functions[i];
			Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
			struct scope s;
			g.n_node = f->n_node;
			g.node = f->node;
			scope_build(&s, &g, NULL);
			for (size_t k = 0; k < f->n_input; k++)
				strmap_add(&s.kind, f->input[k], (void *)(intptr_t)VK_INPUT);
			json_obj(&j);
			json_kstr(&j, "domain", f->domain ? f->domain : "");
			json_kstr(&j, "name", f->name ? f->name : "");
			json_key(&j, "nodes");
			json_arr(&j);
			for (size_t k = 0; k < f->n_node; k++)
				json_node(&j, m, &s, f->node[k], k);
			json_end_arr(&j);
			json_end_obj(&j);
			scope_free(&s);
		}
		json_end_arr(&j);
		json_end_obj(&j);
		strbuf_putc(b, '\n');
	} else {
		text_graph(b, m, m->proto->graph, NULL, 0);
		text_functions(b, m);
	}
}
