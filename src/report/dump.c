/* `onnxview dump`: every node with its index, inputs, outputs and attributes in full; initializers summarised. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/report.h"
#include "src/model/describe.h"
#include "src/base/dtype.h"
#include "src/base/json.h"
#include "src/graph/graph.h"
#include "src/model/model.h"
#include "src/graph/shape.h"

#define DUMP_VALUES 8 /* tensor values shown per tensor */

/* What the dump knows about the values of one graph: the graph index and the inferred shapes. */
struct scope {
	struct ov_model *m;
	const struct graph *g;
	const struct shapes *sh;
};

static const struct graph_value *scope_value(const struct scope *s, const char *name, const struct graph **owner,
					     int32_t *id)
{
	int32_t i = graph_value_id(s->g, name);

	if (i < 0)
		return NULL;
	const struct graph_value *v = graph_value_resolve(s->g, i, owner);
	if (id)
		*id = v == &s->g->values[i] ? i : (int32_t)(v - (*owner)->values);
	return v;
}

static enum value_origin scope_kind(const struct scope *s, const char *name)
{
	int32_t i = graph_value_id(s->g, name);
	return i < 0 ? VALUE_UNDEFINED : s->g->values[i].origin;
}

/* The node of this graph that computes a node output, or -1. */
static int32_t scope_producer(const struct scope *s, const char *name)
{
	int32_t i = graph_value_id(s->g, name);
	return i >= 0 && s->g->values[i].origin == VALUE_NODE ? s->g->values[i].producer : -1;
}

/* onnxview's own inferred shape of a value, or NULL. */
static const struct vshape *scope_inferred(const struct scope *s, const char *name)
{
	const struct graph *owner;
	int32_t id;
	const struct graph_value *v = scope_value(s, name, &owner, &id);
	const struct vshape *sh = v && s->sh ? shapes_get(s->sh, owner, id) : NULL;

	return sh && sh->source == SHAPE_INFERRED && (sh->dtype || sh->rank >= 0) ? sh : NULL;
}

/* The best description of a value's type: declared, else the constant's, else inferred. Returns 1 when the
 * description is onnxview's own inference. */
static int scope_type(struct strbuf *b, const struct scope *s, const char *name)
{
	const struct graph *owner;
	int32_t id;
	const struct graph_value *v = scope_value(s, name, &owner, &id);

	if (v && v->declared) {
		describe_type(b, v->declared->type);
		return 0;
	}
	if (v && v->constant) {
		describe_tensor_type(b, v->constant);
		return 0;
	}
	const struct vshape *sh = v && s->sh ? shapes_get(s->sh, owner, id) : NULL;
	if (sh && sh->source == SHAPE_INFERRED && (sh->dtype || sh->rank >= 0)) {
		shape_describe(b, sh);
		return 1;
	}
	strbuf_putc(b, '?');
	return 0;
}

static const Onnx__TensorProto *scope_const(const struct scope *s, const char *name)
{
	const struct graph *owner;
	const struct graph_value *v = scope_value(s, name, &owner, NULL);
	return v ? v->constant : NULL;
}

static const char *kind_name(enum value_origin o)
{
	return o == VALUE_UNDEFINED ? "UNDEFINED (nothing produces it)" : value_origin_name(o);
}

/* The index of a model-local function's body, built from its node list and input names. */
struct fn_index {
	Onnx__GraphProto gp;
	Onnx__ValueInfoProto *vi, **vip;
	struct graph *g;
};

static int fn_index_build(struct fn_index *fi, const Onnx__FunctionProto *f)
{
	struct ov_error e;

	memset(fi, 0, sizeof *fi);
	onnx__graph_proto__init(&fi->gp);
	fi->vi = calloc(f->n_input ? f->n_input : 1, sizeof *fi->vi);
	fi->vip = calloc(f->n_input ? f->n_input : 1, sizeof *fi->vip);
	if (!fi->vi || !fi->vip)
		return -1;
	for (size_t k = 0; k < f->n_input; k++) {
		onnx__value_info_proto__init(&fi->vi[k]);
		fi->vi[k].name = f->input[k];
		fi->vip[k] = &fi->vi[k];
	}
	fi->gp.n_input = f->n_input;
	fi->gp.input = fi->vip;
	fi->gp.n_node = f->n_node;
	fi->gp.node = f->node;
	return graph_build(&fi->g, &fi->gp, &e);
}

static void fn_index_free(struct fn_index *fi)
{
	graph_free(fi->g);
	free(fi->vi);
	free(fi->vip);
}

/* ---- text ------------------------------------------------------------------------------------------------- */

static void indent(struct strbuf *b, int depth)
{
	for (int i = 0; i < depth; i++)
		strbuf_puts(b, "    ");
}

static void text_graph(struct strbuf *b, struct ov_model *m, const struct graph *gi, const struct shapes *sh,
		       int depth);

/* The constant behind a value (initializer or Constant output), looking outwards through enclosing graphs. */
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
		int inferred = scope_type(&t, s, names[k]);
		strbuf_puts(b, strbuf_str(&t));
		if (inferred)
			strbuf_puts(b, " (inferred)");
		strbuf_reset(&t);
		if (!strcmp(dir, "in")) {
			enum value_origin vk = scope_kind(s, names[k]);
			strbuf_printf(b, "  %s", kind_name(vk));
			int32_t p = scope_producer(s, names[k]);
			if (p >= 0) { /* which node: "node output of #3 'conv1' Conv" */
				const Onnx__NodeProto *pn = s->g->nodes[p].proto;
				strbuf_printf(b, " of #%d ", p);
				if (pn->name && *pn->name) {
					strbuf_putc(b, '\'');
					describe_name(b, pn->name);
					strbuf_puts(b, "' ");
				}
				describe_name(b, pn->op_type);
			}
			const Onnx__TensorProto *c = (vk == VALUE_INITIALIZER || vk == VALUE_CONSTANT ||
							     vk == VALUE_OUTER) ? scope_const(s, names[k]) : NULL;
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
	uint32_t sub = 0;
	const struct graph_node *gn = &s->g->nodes[idx];
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
		for (size_t k = 0; k < (at->g ? 1u : 0u) + at->n_graphs && sub < gn->n_sub; k++)
			text_graph(b, m, gn->sub[sub++], s->sh, depth + 1);
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

static void text_graph(struct strbuf *b, struct ov_model *m, const struct graph *gi, const struct shapes *sh,
		       int depth)
{
	struct scope s = {m, gi, sh};
	const Onnx__GraphProto *g = gi->proto;
	struct strbuf t = {0};

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
}

static void text_functions(struct strbuf *b, struct ov_model *m)
{
	for (size_t i = 0; i < m->proto->n_functions; i++) {
		const Onnx__FunctionProto *f = m->proto->functions[i];
		struct fn_index fi;

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
		if (fn_index_build(&fi, f) == 0) {
			struct scope s = {m, fi.g, NULL};
			for (size_t k = 0; k < f->n_node; k++)
				text_node(b, m, &s, f->node[k], k, 0);
		} else
			strbuf_puts(b, "(out of memory)\n");
		fn_index_free(&fi);
	}
}

/* ---- JSON ------------------------------------------------------------------------------------------------- */

static void json_graph(struct json *j, struct ov_model *m, const struct graph *gi, const struct shapes *sh);

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
			const struct vshape *inf = scope_inferred(s, names[k]);
			if (inf) {
				shape_describe(&t, inf);
				json_kstr(j, "inferred", strbuf_str(&t));
				strbuf_reset(&t);
			}
			if (with_kind) {
				enum value_origin vk = scope_kind(s, names[k]);
				json_kstr(j, "kind", value_origin_name(vk));
				if (scope_producer(s, names[k]) >= 0)
					json_kint(j, "producer", scope_producer(s, names[k]));
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
	uint32_t sub = 0;
	const struct graph_node *gn = &s->g->nodes[idx];
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
		if (at->g && sub < gn->n_sub) {
			json_key(j, "graph");
			json_graph(j, m, gn->sub[sub++], s->sh);
		}
		if (at->n_graphs) {
			json_key(j, "graphs");
			json_arr(j);
			for (size_t k = 0; k < at->n_graphs && sub < gn->n_sub; k++)
				json_graph(j, m, gn->sub[sub++], s->sh);
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

static void json_graph(struct json *j, struct ov_model *m, const struct graph *gi, const struct shapes *sh)
{
	struct scope s = {m, gi, sh};
	const Onnx__GraphProto *g = gi->proto;

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
}


void dump_render(struct ov_model *m, struct strbuf *b, int as_json)
{
	struct graph *g = NULL;
	struct shapes *sh = NULL;
	struct ov_error e;

	if (graph_build(&g, m->proto->graph, &e)) {
		strbuf_puts(b, "onnxview: out of memory indexing the graph\n");
		return;
	}
	if (shape_infer(&sh, m, g, &e))
		sh = NULL; /* out of memory: dump without inferred shapes */
	if (as_json) {
		struct json j;
		json_init(&j, b, 1);
		json_obj(&j);
		json_kstr(&j, "file", m->path);
		json_key(&j, "graph");
		json_graph(&j, m, g, sh);
		json_key(&j, "functions");
		json_arr(&j);
		for (size_t i = 0; i < m->proto->n_functions; i++) {
			const Onnx__FunctionProto *f = m->proto->functions[i];
			struct fn_index fi;
			json_obj(&j);
			json_kstr(&j, "domain", f->domain ? f->domain : "");
			json_kstr(&j, "name", f->name ? f->name : "");
			json_key(&j, "nodes");
			json_arr(&j);
			if (fn_index_build(&fi, f) == 0) {
				struct scope s = {m, fi.g, NULL};
				for (size_t k = 0; k < f->n_node; k++)
					json_node(&j, m, &s, f->node[k], k);
			}
			fn_index_free(&fi);
			json_end_arr(&j);
			json_end_obj(&j);
		}
		json_end_arr(&j);
		json_end_obj(&j);
		strbuf_putc(b, '\n');
	} else {
		text_graph(b, m, g, sh, 0);
		text_functions(b, m);
	}
	shapes_free(sh);
	graph_free(g);
}
