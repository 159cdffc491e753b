/* set-tensor TENSOR VALUES|@FILE: new values for an initializer or a Constant node's tensor; also the helpers
 * that find constants and turn literal values into tensor data (shared with make-input and make-constant). */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/base/codec.h"
#include "src/model/describe.h"
#include "src/base/dtype.h"
#include "src/edit/internal.h"
#include "src/base/strbuf.h"
#include "src/model/tensorfile.h"

#define SUMMARY_VALUES 8

static void *m_alloc(struct edit_session *s, size_t n)
{
	return s->m->alloc.alloc(s->m->alloc.allocator_data, n ? n : 1);
}

static void m_free(struct edit_session *s, void *p)
{
	if (p)
		s->m->alloc.free(s->m->alloc.allocator_data, p);
}

/* ---- finding constants ---- */

/* "node #3 'name' (Op)" with the model's strings made safe for a terminal. */
static void describe_node(struct strbuf *b, uint32_t index, const Onnx__NodeProto *nd)
{
	strbuf_printf(b, "node #%u ", index);
	if (nd->name && *nd->name) {
		strbuf_putc(b, '\'');
		strbuf_put_safe(b, nd->name, strlen(nd->name), 60);
		strbuf_puts(b, "' ");
	}
	strbuf_putc(b, '(');
	strbuf_put_safe(b, nd->op_type ? nd->op_type : "?", strlen(nd->op_type ? nd->op_type : "?"), 60);
	strbuf_putc(b, ')');
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
					describe_node(where, i, gn->proto);
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

static Onnx__TensorProto *new_tensor(struct edit_session *s, int32_t dtype, const int64_t *dims, size_t rank)
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
	Onnx__TensorProto *t = new_tensor(s, dtype, &n, list ? 1 : 0);

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
		describe_node(&where, (uint32_t)v->producer, gp->node[v->producer]);
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

/* ---- declared types ---- */

Onnx__TypeProto *edit_new_tensor_type(struct edit_session *s, int32_t dtype, const int64_t *dims, size_t rank)
{
	Onnx__TypeProto *tp = m_alloc(s, sizeof *tp);
	Onnx__TypeProto__Tensor *tt;
	Onnx__TensorShapeProto *sh;

	if (!tp)
		return NULL;
	onnx__type_proto__init(tp);
	if (!(tt = m_alloc(s, sizeof *tt)))
		goto fail;
	onnx__type_proto__tensor__init(tt);
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	tt->has_elem_type = 1;
	tt->elem_type = dtype;
	if (!(sh = m_alloc(s, sizeof *sh)))
		goto fail;
	onnx__tensor_shape_proto__init(sh);
	tt->shape = sh;
	if (!(sh->dim = m_alloc(s, rank * sizeof *sh->dim)))
		goto fail;
	for (size_t i = 0; i < rank; i++) {
		Onnx__TensorShapeProto__Dimension *d = m_alloc(s, sizeof *d);
		if (!d)
			goto fail;
		onnx__tensor_shape_proto__dimension__init(d);
		d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		d->dim_value = dims[i];
		sh->dim[sh->n_dim++] = d;
	}
	return tp;
fail:
	protobuf_c_message_free_unpacked(&tp->base, &s->m->alloc);
	return NULL;
}

/* Rewrite every declaration of name in the main graph (input, value_info) to the constant's new type. */
static int redeclare(struct edit_session *s, const char *name, const Onnx__TensorProto *t)
{
	Onnx__GraphProto *g = s->m->proto->graph;

	for (int pass = 0; pass < 2; pass++) {
		Onnx__ValueInfoProto **v = pass ? g->value_info : g->input;
		size_t n = pass ? g->n_value_info : g->n_input;
		for (size_t i = 0; i < n; i++) {
			if (!v[i]->name || strcmp(v[i]->name, name))
				continue;
			Onnx__TypeProto *tp = edit_new_tensor_type(s, t->data_type, t->dims, t->n_dims);
			if (!tp)
				return -1;
			struct strbuf before = {0}, after = {0};
			describe_type(&before, v[i]->type);
			describe_type(&after, tp);
			edit_say(s, "declared '%s': %s -> %s", name, strbuf_str(&before), strbuf_str(&after));
			strbuf_free(&before);
			strbuf_free(&after);
			if (v[i]->type)
				protobuf_c_message_free_unpacked(&v[i]->type->base, &s->m->alloc);
			v[i]->type = tp;
		}
	}
	return 0;
}

/* ---- tensor data ---- */

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

/* ---- literal values ---- */



static int parse_real(const char *text, double *v, struct ov_error *err)
{
	char *end;

	errno = 0;
	*v = strtod(text, &end);
	if (!*text || *end || (errno == ERANGE && isinf(*v)))
		return ov_fail(err, OV_INVALID, "'%s' is not a number%s", text, errno == ERANGE ? " in range" : "");
	return 0;
}

static int parse_integer(const char *text, int32_t dtype, int64_t lo, uint64_t hi, uint64_t *bits,
			 struct ov_error *err)
{
	char *end;
	const char *p = text;

	if (*p == '+')
		p++;
	if (*p == '-' ? !(p[1] >= '0' && p[1] <= '9') : !(*p >= '0' && *p <= '9'))
		goto not_int;
	errno = 0;
	if (*p == '-') {
		long long x = strtoll(p, &end, 10);
		if (*end)
			goto not_int;
		if (errno || x < lo)
			goto range;
		*bits = (uint64_t)x;
	} else {
		unsigned long long x = strtoull(p, &end, 10);
		if (*end)
			goto not_int;
		if (errno || x > hi)
			goto range;
		*bits = x;
	}
	return 0;
not_int:
	return ov_fail(err, OV_INVALID, "'%s' is not an integer (the tensor is %s)", text, dtype_short_name(dtype));
range:
	return ov_fail(err, OV_INVALID, "%s is out of range for %s (%" PRId64 " to %" PRIu64 ")", text,
		       dtype_short_name(dtype), lo, hi);
}

/* "abc" with \" \\ \n \t escapes, or a bare word as it is. */
static char *unquote(const char *text, size_t *len)
{
	size_t n = strlen(text);
	char *out = malloc(n + 1), *o = out;

	if (!out)
		return NULL;
	if (n >= 2 && text[0] == '"' && text[n - 1] == '"') {
		for (size_t i = 1; i + 1 < n; i++) {
			char c = text[i];
			if (c == '\\' && i + 2 < n) {
				c = text[++i];
				c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
			}
			*o++ = c;
		}
	} else {
		memcpy(out, text, n);
		o = out + n;
	}
	*o = '\0';
	*len = (size_t)(o - out);
	return out;
}

/* The dtypes encode_one() parses. */
static int text_dtype(int32_t dtype)
{
	switch (dtype) {
	case OV_DT_BOOL: case OV_DT_INT8: case OV_DT_UINT8: case OV_DT_INT16: case OV_DT_UINT16: case OV_DT_INT32:
	case OV_DT_UINT32: case OV_DT_INT64: case OV_DT_UINT64: case OV_DT_INT4: case OV_DT_UINT4: case OV_DT_FLOAT:
	case OV_DT_DOUBLE: case OV_DT_FLOAT16: case OV_DT_BFLOAT16: case OV_DT_INT2: case OV_DT_UINT2:
		return 1;
	default:
		return 0;
	}
}

static int encode_one(int32_t dtype, const char *text, uint8_t *raw, int64_t i, struct ov_error *err)
{
	uint64_t u;
	double d;
	int over = 0;

	switch (dtype) {
	case OV_DT_BOOL:
		if (!strcasecmp(text, "true") || !strcmp(text, "1"))
			raw[i] = 1;
		else if (!strcasecmp(text, "false") || !strcmp(text, "0"))
			raw[i] = 0;
		else
			return ov_fail(err, OV_INVALID, "'%s' is not a bool (true, false, 1 or 0)", text);
		return 0;
	case OV_DT_INT8:
		if (parse_integer(text, dtype, INT8_MIN, INT8_MAX, &u, err))
			return -1;
		raw[i] = (uint8_t)u;
		return 0;
	case OV_DT_UINT8:
		if (parse_integer(text, dtype, 0, UINT8_MAX, &u, err))
			return -1;
		raw[i] = (uint8_t)u;
		return 0;
	case OV_DT_INT16: case OV_DT_UINT16: {
		if (parse_integer(text, dtype, dtype == OV_DT_INT16 ? INT16_MIN : 0,
				  dtype == OV_DT_INT16 ? INT16_MAX : UINT16_MAX, &u, err))
			return -1;
		uint16_t v = (uint16_t)u;
		memcpy(raw + 2 * i, &v, 2);
		return 0;
	}
	case OV_DT_INT32: case OV_DT_UINT32: {
		if (parse_integer(text, dtype, dtype == OV_DT_INT32 ? INT32_MIN : 0,
				  dtype == OV_DT_INT32 ? INT32_MAX : UINT32_MAX, &u, err))
			return -1;
		uint32_t v = (uint32_t)u;
		memcpy(raw + 4 * i, &v, 4);
		return 0;
	}
	case OV_DT_INT64: case OV_DT_UINT64:
		if (parse_integer(text, dtype, dtype == OV_DT_INT64 ? INT64_MIN : 0,
				  dtype == OV_DT_INT64 ? INT64_MAX : UINT64_MAX, &u, err))
			return -1;
		memcpy(raw + 8 * i, &u, 8);
		return 0;
	case OV_DT_INT4: case OV_DT_UINT4: case OV_DT_INT2: case OV_DT_UINT2: {
		int lo, hi, bits = dtype_bits(dtype);
		ov_packed_int_range(dtype, &lo, &hi);
		if (parse_integer(text, dtype, lo, hi, &u, err))
			return -1;
		uint8_t mask = (uint8_t)(((1u << bits) - 1) << (bits * (i % (8 / bits))));
		raw[i / (8 / bits)] &= (uint8_t)~mask;
		ov_packed_put(raw, i, bits, (uint32_t)u);
		return 0;
	}
	case OV_DT_FLOAT: case OV_DT_DOUBLE: case OV_DT_FLOAT16: case OV_DT_BFLOAT16:
		if (parse_real(text, &d, err))
			return -1;
		if (dtype == OV_DT_DOUBLE) {
			memcpy(raw + 8 * i, &d, 8);
		} else if (dtype == OV_DT_FLOAT) {
			float f = (float)d;
			if (isinf(f) && !isinf(d))
				return ov_fail(err, OV_INVALID, "%s is out of range for float32 (largest %g)", text, FLT_MAX);
			memcpy(raw + 4 * i, &f, 4);
		} else {
			uint16_t h = dtype == OV_DT_FLOAT16 ? ov_f64_to_f16_checked(d, &over) : ov_f64_to_bf16_checked(d, &over);
			if (over)
				return ov_fail(err, OV_INVALID, "%s is out of range for %s (largest %s)", text,
					       dtype_short_name(dtype), dtype == OV_DT_FLOAT16 ? "65504" : "3.3895e+38");
			memcpy(raw + 2 * i, &h, 2);
		}
		return 0;
	default:
		return ov_fail(err, OV_INVALID, "values for %s tensors cannot be given as text: use @FILE.npy or "
			       "@FILE.pb", dtype_short_name(dtype));
	}
}

Onnx__TensorProto *edit_tensor_from_text(struct edit_session *s, int32_t dtype, const int64_t *dims,
					 size_t rank, char **items, int64_t n, struct ov_error *err)
{
	Onnx__TensorProto *t = new_tensor(s, dtype, dims, rank);

	if (!t) {
		ov_fail(err, OV_NOMEM, "out of memory");
		return NULL;
	}
	if (dtype == OV_DT_STRING) {
		if (!(t->string_data = m_alloc(s, (size_t)n * sizeof *t->string_data)))
			goto oom;
		for (int64_t i = 0; i < n; i++) {
			size_t len;
			char *str = unquote(items[i], &len);
			if (!str)
				goto oom;
			t->string_data[i].data = m_alloc(s, len);
			if (!t->string_data[i].data) {
				free(str);
				goto oom;
			}
			memcpy(t->string_data[i].data, str, len);
			t->string_data[i].len = len;
			t->n_string_data = (size_t)i + 1;
			free(str);
		}
		return t;
	}
	int64_t nbytes = dtype_raw_bytes(dtype, n);
	if (nbytes < 0 || !text_dtype(dtype)) {
		ov_fail(err, OV_INVALID, "values for %s tensors cannot be given as text: use @FILE.npy or @FILE.pb",
			dtype_short_name(dtype));
		goto fail;
	}
	t->has_raw_data = 1;
	t->raw_data.len = (size_t)nbytes;
	if (!(t->raw_data.data = m_alloc(s, (size_t)nbytes)))
		goto oom;
	memset(t->raw_data.data, 0, (size_t)nbytes);
	for (int64_t i = 0; i < n; i++)
		if (encode_one(dtype, items[i], t->raw_data.data, i, err)) {
			if (n > 1)
				ov_wrap(err, "value %" PRId64 ": ", i);
			goto fail;
		}
	return t;
oom:
	ov_fail(err, OV_NOMEM, "out of memory");
fail:
	protobuf_c_message_free_unpacked(&t->base, &s->m->alloc);
	return NULL;
}

static int same_dims(const int64_t *a, size_t na, const int64_t *b, size_t nb)
{
	return na == nb && (!na || !memcmp(a, b, na * sizeof *a));
}

/* The literal's nesting must be the tensor's shape, or a flat list of as many values, or one value for a
 * one-element tensor. */
static int check_literal_shape(const char *name, const Onnx__TensorProto *t, int64_t numel, int64_t n,
			       const int64_t *ldims, int lrank, struct ov_error *err)
{
	struct strbuf want = {0}, got = {0};
	int rc = 0;

	describe_tensor_type(&want, t);
	describe_dims(&got, ldims, (size_t)lrank);
	if (n != numel)
		rc = ov_fail(err, OV_INVALID, "'%s' is %s: it takes %" PRId64 " value%s, not %" PRId64, name,
			     strbuf_str(&want), numel, numel == 1 ? "" : "s", n);
	else if (!same_dims(t->dims, t->n_dims, ldims, (size_t)lrank) && lrank != 1 && !(lrank == 0 && numel == 1))
		rc = ov_fail(err, OV_INVALID, "'%s' is %s: the value is nested as %s (nest it as the tensor's shape, "
			     "or give a flat list)", name, strbuf_str(&want), strbuf_str(&got));
	strbuf_free(&want);
	strbuf_free(&got);
	return rc;
}

/* ---- the command ---- */

/* "node #0 'resize0' (Resize)" and up to two more nodes that read name, for warnings. */
static void describe_users(struct strbuf *b, struct edit_session *s, const char *name)
{
	struct ov_error e;

	if (edit_index(s, &e))
		return;
	int32_t id = graph_value_id(s->g, name);
	if (id < 0)
		return;
	const struct graph_value *v = &s->g->values[id];
	for (uint32_t k = 0; k < v->n_uses && k < 3; k++) {
		if (k)
			strbuf_puts(b, ", ");
		describe_node(b, v->uses[k].node, s->g->nodes[v->uses[k].node].proto);
	}
	if (v->n_uses > 3)
		strbuf_printf(b, " and %u more", v->n_uses - 3);
}

static void summary(struct strbuf *b, struct edit_session *s, const Onnx__TensorProto *t, int with_type)
{
	if (with_type) {
		describe_tensor_type(b, t);
		strbuf_putc(b, ' ');
	}
	describe_tensor_values(b, s->m, t, SUMMARY_VALUES);
}

static int exec_set_tensor(struct edit_session *s, int argc, char **argv, struct ov_error *err)
{
	const char *name = argv[1], *value = argv[2];
	struct edit_constant c;
	Onnx__TensorProto *nt = NULL;
	struct strbuf before = {0}, after = {0};
	int rc = -1;

	(void)argc;
	if (edit_find_constant(s, name, &c, err))
		return -1;
	Onnx__TensorProto *t = c.t;
	int32_t old_dtype = t->data_type;
	size_t old_rank = t->n_dims;
	int64_t old_dims[TENSORFILE_MAX_RANK];
	if (old_rank > TENSORFILE_MAX_RANK)
		return ov_fail(err, OV_LIMIT, "'%s' has more than %d dims", name, TENSORFILE_MAX_RANK);
	if (old_rank)
		memcpy(old_dims, t->dims, old_rank * sizeof *old_dims);
	int64_t numel = tensor_numel(t, err);
	if (numel < 0)
		return ov_wrap(err, "'%s': ", name);
	int external = tensor_is_external(t);

	if (value[0] == '@') {
		if (!value[1])
			return ov_fail(err, OV_USAGE, "'@' needs a file name: @FILE.npy or @FILE.pb");
		if (tensorfile_read(value + 1, &s->m->alloc, &nt, err))
			return -1;
	} else {
		char **items;
		int64_t n, ldims[16];
		int lrank;
		if (edit_parse_list(value, &items, &n, ldims, &lrank, err))
			return -1;
		if (check_literal_shape(name, t, numel, n, ldims, lrank, err)) {
			edit_free_list(items, n);
			return -1;
		}
		nt = edit_tensor_from_text(s, old_dtype, t->dims, t->n_dims, items, n, err);
		edit_free_list(items, n);
		if (!nt)
			return ov_wrap(err, "'%s': ", name);
	}
	int retyped = nt->data_type != old_dtype, reshaped = !same_dims(nt->dims, nt->n_dims, old_dims, old_rank);
	struct strbuf users = {0};
	if (retyped)
		describe_users(&users, s, name);
	summary(&before, s, t, retyped || reshaped);
	edit_tensor_take(s, t, nt);
	nt = NULL;
	summary(&after, s, t, retyped || reshaped);
	if (c.converted)
		edit_say(s, "Constant node #%td: %s rewritten as a 'value' tensor", c.node_index, c.converted_from);
	edit_say(s, "%s: %s -> %s", name, strbuf_str(&before), strbuf_str(&after));
	if (retyped) {
		char was[32];
		snprintf(was, sizeof was, "%s", dtype_short_name(old_dtype));
		edit_say(s, "warning: '%s' was %s and is now %s: %s may not accept that (numpy.save keeps the array's "
			 "dtype: convert with .astype(numpy.%s) before saving)", name, was, dtype_short_name(t->data_type),
			 users.len ? strbuf_str(&users) : "the nodes that use it",
			 old_dtype == OV_DT_BOOL ? "bool_" : tensorfile_npy_descr(old_dtype) ? was : "float32");
	}
	strbuf_free(&users);
	if (external)
		edit_say(s, "'%s' was stored in an external file and is now stored inside the model", name);
	if ((retyped || reshaped) && redeclare(s, name, t)) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	edit_touch(s);
	rc = edit_propagate_shapes(s, err);
out:
	if (nt)
		protobuf_c_message_free_unpacked(&nt->base, &s->m->alloc);
	strbuf_free(&before);
	strbuf_free(&after);
	return rc;
}

const struct edit_cmd edit_set_tensor_cmd = {
	"set-tensor", "set-tensor TENSOR VALUES|@FILE",
	"new values for an initializer or Constant: [1,1,2,2] keeps dtype and shape; @x.npy or @x.pb replaces them",
	2, 2, 0, exec_set_tensor,
};
