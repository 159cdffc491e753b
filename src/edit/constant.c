/* Constants of the main graph (initializers and Constant nodes' tensors): finding one by name, and replacing the
 * data a tensor holds.  Used by set-tensor, make-input and make-constant. */
#include "config.h"

#include <string.h>

#include "src/edit/internal.h"
#include "src/base/dtype.h"
#include "src/base/strbuf.h"

static void *m_alloc(struct edit_session *s, size_t n)
{
	return s->m->alloc.alloc(s->m->alloc.allocator_data, n ? n : 1);
}

static void m_free(struct edit_session *s, void *p)
{
	if (p)
		s->m->alloc.free(s->m->alloc.allocator_data, p);
}

/* Is name a constant somewhere inside a subgraph?  Fills where ("node #3 'If_0' (If) attribute 'then_branch'"). */
static int find_in_subgraphs(const struct graph *g, const char *name, struct strbuf *where)
{
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		const struct graph_node *gn = &g->nodes[i];
		for (uint32_t k = 0; k < gn->n_sub; k++) {
			const struct graph *sub = gn->sub[k];
			int32_t id = graph_value_id(sub, name);
			if ((id >= 0 && (sub->values[id].origin == VALUE_INITIALIZER ||
					 sub->values[id].origin == VALUE_CONSTANT)) ||
			    find_in_subgraphs(sub, name, where)) {
				if (!where->len) {
					edit_node_phrase(where, i, gn->proto);
					strbuf_puts(where, " attribute '");
					strbuf_put_safe(where, gn->sub_attr[k], strlen(gn->sub_attr[k]), 60);
					strbuf_putc(where, '\'');
				}
				return 1;
			}
		}
	}
	return 0;
}

Onnx__TensorProto *edit_new_tensor(struct edit_session *s, int32_t dtype, const int64_t *dims, size_t rank)
{
	Onnx__TensorProto *t = m_alloc(s, sizeof *t);

	if (!t)
		return NULL;
	onnx__tensor_proto__init(t);
	t->has_data_type = 1;
	t->data_type = dtype;
	if (!(t->dims = m_alloc(s, rank * sizeof *t->dims))) {
		m_free(s, t);
		return NULL;
	}
	t->n_dims = rank;
	if (rank)
		memcpy(t->dims, dims, rank * sizeof *dims);
	return t;
}

/* A Constant's value_float(s)/value_int(s)/value_string(s) as the equivalent 'value' tensor attribute. */
static int convert_constant_attr(struct edit_session *s, Onnx__NodeProto *nd, size_t k, struct ov_error *err)
{
	Onnx__AttributeProto *a = nd->attribute[k], *na;
	const char *an = a->name;
	int list = !strcmp(an, "value_floats") || !strcmp(an, "value_ints") || !strcmp(an, "value_strings");
	int32_t dtype = !strncmp(an, "value_float", 11) ? OV_DT_FLOAT : !strncmp(an, "value_int", 9) ? OV_DT_INT64 :
			OV_DT_STRING;
	int64_t n = !list ? 1 : dtype == OV_DT_FLOAT ? (int64_t)a->n_floats : dtype == OV_DT_INT64 ?
		    (int64_t)a->n_ints : (int64_t)a->n_strings;
	Onnx__TensorProto *t = edit_new_tensor(s, dtype, &n, list ? 1 : 0);

	if (!t || !(na = m_alloc(s, sizeof *na)))
		goto oom;
	onnx__attribute_proto__init(na);
	na->t = t;
	na->has_type = 1;
	na->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
	if (!(na->name = edit_strdup(s, "value")))
		goto oom_na;
	if (dtype == OV_DT_STRING) {
		if (!(t->string_data = m_alloc(s, (size_t)n * sizeof *t->string_data)))
			goto oom_na;
		for (int64_t i = 0; i < n; i++) {
			const ProtobufCBinaryData *src = list ? &a->strings[i] : &a->s;
			t->string_data[i].len = src->len;
			if (!(t->string_data[i].data = m_alloc(s, src->len)))
				goto oom_na;
			if (src->len)
				memcpy(t->string_data[i].data, src->data, src->len);
			t->n_string_data = (size_t)i + 1;
		}
	} else {
		size_t es = dtype == OV_DT_FLOAT ? 4 : 8;
		t->has_raw_data = 1;
		t->raw_data.len = (size_t)n * es;
		if (!(t->raw_data.data = m_alloc(s, t->raw_data.len)))
			goto oom_na;
		for (int64_t i = 0; i < n; i++) {
			if (dtype == OV_DT_FLOAT)
				memcpy(t->raw_data.data + 4 * i, list ? &a->floats[i] : &a->f, 4);
			else
				memcpy(t->raw_data.data + 8 * i, list ? &a->ints[i] : &a->i, 8);
		}
	}
	protobuf_c_message_free_unpacked(&a->base, &s->m->alloc);
	nd->attribute[k] = na;
	return 0;
oom_na:
	protobuf_c_message_free_unpacked(&na->base, &s->m->alloc);
	return ov_fail(err, OV_NOMEM, "out of memory");
oom:
	if (t)
		protobuf_c_message_free_unpacked(&t->base, &s->m->alloc);
	return ov_fail(err, OV_NOMEM, "out of memory");
}

int edit_find_constant(struct edit_session *s, const char *name, struct edit_constant *c, struct ov_error *err)
{
	Onnx__GraphProto *gp = s->m->proto->graph;
	struct strbuf where = {0};

	memset(c, 0, sizeof *c);
	c->init_index = c->node_index = -1;
	if (edit_index(s, err))
		return -1;
	int32_t id = graph_value_id(s->g, name);
	const struct graph_value *v = id >= 0 ? &s->g->values[id] : NULL;
	if (!v || v->origin == VALUE_UNDEFINED || v->origin == VALUE_OUTER) {
		if (find_in_subgraphs(s->g, name, &where)) {
			ov_fail(err, OV_INVALID, "'%s' is a constant inside the subgraph of %s: only the main graph's "
				"constants can be changed", name, strbuf_str(&where));
			strbuf_free(&where);
			return -1;
		}
		return ov_fail(err, OV_INVALID, "no tensor named '%s' in the graph", name);
	}
	switch (v->origin) {
	case VALUE_INPUT:
		return ov_fail(err, OV_INVALID, "'%s' is a graph input, not a constant (make-constant %s @FILE gives "
			       "it a fixed value)", name, name);
	case VALUE_NODE:
		edit_node_phrase(&where, (uint32_t)v->producer, gp->node[v->producer]);
		ov_fail(err, OV_INVALID, "'%s' is computed by %s, not a constant", name, strbuf_str(&where));
		strbuf_free(&where);
		return -1;
	case VALUE_INITIALIZER:
		if (v->sparse && !v->constant)
			return ov_fail(err, OV_INVALID, "'%s' is a sparse initializer: not supported (only dense "
				       "tensors)", name);
		for (size_t i = 0; i < gp->n_initializer; i++)
			if (gp->initializer[i] == v->constant) {
				c->t = gp->initializer[i];
				c->init_index = (ptrdiff_t)i;
			}
		if (!c->t)
			return ov_fail(err, OV_INVALID, "'%s': its initializer was not found", name);
		c->input = edit_graph_input(s, name);
		return 0;
	case VALUE_CONSTANT: {
		Onnx__NodeProto *nd = gp->node[v->producer];
		c->node_index = v->producer;
		c->node = nd;
		for (size_t k = 0; k < nd->n_attribute; k++) {
			Onnx__AttributeProto *a = nd->attribute[k];
			const char *an = a->name ? a->name : "";
			if (!strcmp(an, "value") && a->t) {
				c->t = a->t;
				return 0;
			}
			if (!strcmp(an, "sparse_value"))
				return ov_fail(err, OV_INVALID, "'%s' comes from Constant node #%d with a sparse_value: not "
					       "supported (only dense tensors)", name, v->producer);
			if (!strcmp(an, "value_float") || !strcmp(an, "value_floats") || !strcmp(an, "value_int") ||
			    !strcmp(an, "value_ints") || !strcmp(an, "value_string") || !strcmp(an, "value_strings")) {
				snprintf(c->converted_from, sizeof c->converted_from, "%s", an); /* freed below */
				if (convert_constant_attr(s, nd, k, err))
					return -1;
				c->t = nd->attribute[k]->t;
				c->converted = 1;
				edit_touch(s); /* the index points at the old attribute */
				return 0;
			}
		}
		return ov_fail(err, OV_INVALID, "'%s' comes from Constant node #%d, which has no value attribute", name,
			       v->producer);
	}
	default:
		return ov_fail(err, OV_INVALID, "'%s' is not a constant", name);
	}
}

void edit_tensor_clear_data(struct edit_session *s, Onnx__TensorProto *t)
{
	m_free(s, t->float_data);
	m_free(s, t->int32_data);
	m_free(s, t->int64_data);
	m_free(s, t->double_data);
	m_free(s, t->uint64_data);
	for (size_t i = 0; i < t->n_string_data; i++)
		m_free(s, t->string_data[i].data);
	m_free(s, t->string_data);
	for (size_t i = 0; i < t->n_external_data; i++)
		protobuf_c_message_free_unpacked(&t->external_data[i]->base, &s->m->alloc);
	m_free(s, t->external_data);
	if (t->has_raw_data)
		m_free(s, t->raw_data.data);
	t->float_data = NULL, t->n_float_data = 0;
	t->int32_data = NULL, t->n_int32_data = 0;
	t->int64_data = NULL, t->n_int64_data = 0;
	t->double_data = NULL, t->n_double_data = 0;
	t->uint64_data = NULL, t->n_uint64_data = 0;
	t->string_data = NULL, t->n_string_data = 0;
	t->external_data = NULL, t->n_external_data = 0;
	t->has_data_location = 0;
	t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT;
	t->has_raw_data = 0;
	t->raw_data.data = NULL;
	t->raw_data.len = 0;
}

void edit_tensor_take(struct edit_session *s, Onnx__TensorProto *t, Onnx__TensorProto *src)
{
	edit_tensor_clear_data(s, t);
	m_free(s, t->dims);
	t->dims = src->dims, t->n_dims = src->n_dims;
	src->dims = NULL, src->n_dims = 0;
	t->has_data_type = 1;
	t->data_type = src->data_type;
	if (src->has_raw_data) {
		t->has_raw_data = 1;
		t->raw_data = src->raw_data;
		src->has_raw_data = 0;
		src->raw_data.data = NULL;
		src->raw_data.len = 0;
	}
	t->string_data = src->string_data, t->n_string_data = src->n_string_data;
	src->string_data = NULL, src->n_string_data = 0;
	protobuf_c_message_free_unpacked(&src->base, &s->m->alloc);
}
