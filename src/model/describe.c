/* Text descriptions of types, shapes, tensor values and attributes. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "src/model/describe.h"
#include "src/base/codec.h"
#include "src/base/dtype.h"

/* A packed element's value from its code (INT4/INT2 signed, the small floats decoded). */
static double packed_value(uint32_t code, int32_t dt)
{
	if (ov_is_small_float(dt))
		return ov_small_to_f32((uint8_t)code, dt);
	if (dt == OV_DT_INT4 || dt == OV_DT_INT2)
		return (int8_t)ov_packed_widen(code, dt);
	return code;
}

int tensor_view_open(struct ov_model *m, const Onnx__TensorProto *t, struct tensor_view *v, struct ov_error *err)
{
	memset(v, 0, sizeof *v);
	v->dtype = t->data_type;
	v->t = t;
	v->numel = tensor_numel(t, err);
	if (v->numel < 0)
		return -1;
	if (tensor_is_external(t)) {
		size_t len;
		return model_external_data(m, t, &v->raw, &len, err);
	}
	if (t->has_raw_data)
		v->raw = t->raw_data.data ? t->raw_data.data : (const uint8_t *)"";
	return 0;
}

#define RAW(type, i) ({ type x_; memcpy(&x_, v->raw + (size_t)(i) * sizeof(type), sizeof(type)); x_; })

static double get_raw(const struct tensor_view *v, int64_t i)
{
	switch (v->dtype) {
	case OV_DT_FLOAT: return RAW(float, i);
	case OV_DT_UINT8: return v->raw[i];
	case OV_DT_INT8: return (int8_t)v->raw[i];
	case OV_DT_UINT16: return RAW(uint16_t, i);
	case OV_DT_INT16: return RAW(int16_t, i);
	case OV_DT_INT32: return RAW(int32_t, i);
	case OV_DT_INT64: return (double)RAW(int64_t, i);
	case OV_DT_BOOL: return v->raw[i] != 0;
	case OV_DT_FLOAT16: return ov_f16_to_f32(RAW(uint16_t, i));
	case OV_DT_DOUBLE: return RAW(double, i);
	case OV_DT_UINT32: return RAW(uint32_t, i);
	case OV_DT_UINT64: return (double)RAW(uint64_t, i);
	case OV_DT_COMPLEX64: return RAW(float, 2 * i);
	case OV_DT_COMPLEX128: return RAW(double, 2 * i);
	case OV_DT_BFLOAT16: return ov_bf16_to_f32(RAW(uint16_t, i));
	case OV_DT_FLOAT8E4M3FN: case OV_DT_FLOAT8E4M3FNUZ: case OV_DT_FLOAT8E5M2: case OV_DT_FLOAT8E5M2FNUZ:
	case OV_DT_FLOAT8E8M0:
		return ov_small_to_f32(v->raw[i], v->dtype);
	case OV_DT_UINT4: case OV_DT_INT4: case OV_DT_FLOAT4E2M1: case OV_DT_UINT2: case OV_DT_INT2:
	case OV_DT_FLOAT6E2M3: case OV_DT_FLOAT6E3M2:
		return packed_value(ov_packed_get(v->raw, i, dtype_bits(v->dtype)), v->dtype);
	default: return NAN;
	}
}

static double get_typed(const struct tensor_view *v, int64_t i)
{
	const Onnx__TensorProto *t = v->t;

	switch (v->dtype) {
	case OV_DT_FLOAT: return t->float_data[i];
	case OV_DT_COMPLEX64: return t->float_data[2 * i];
	case OV_DT_DOUBLE: return t->double_data[i];
	case OV_DT_COMPLEX128: return t->double_data[2 * i];
	case OV_DT_INT64: return (double)t->int64_data[i];
	case OV_DT_UINT32: case OV_DT_UINT64: return (double)t->uint64_data[i];
	case OV_DT_FLOAT16: return ov_f16_to_f32((uint16_t)t->int32_data[i]);
	case OV_DT_BFLOAT16: return ov_bf16_to_f32((uint16_t)t->int32_data[i]);
	case OV_DT_FLOAT8E4M3FN: case OV_DT_FLOAT8E4M3FNUZ: case OV_DT_FLOAT8E5M2: case OV_DT_FLOAT8E5M2FNUZ:
	case OV_DT_FLOAT8E8M0: case OV_DT_FLOAT6E2M3: case OV_DT_FLOAT6E3M2:
		return packed_value((uint8_t)t->int32_data[i], v->dtype);
	case OV_DT_UINT4: case OV_DT_INT4: case OV_DT_FLOAT4E2M1: case OV_DT_UINT2: case OV_DT_INT2: {
		/* one element an entry, or packed: two 4-bit or four 2-bit elements an entry */
		int bits = dtype_bits(v->dtype), per = 8 / bits;
		uint32_t code = (int64_t)t->n_int32_data == v->numel ? (uint32_t)t->int32_data[i] & ((1u << bits) - 1)
			: ((uint32_t)t->int32_data[i / per] >> (bits * (i % per))) & ((1u << bits) - 1);
		return packed_value(code, v->dtype);
	}
	case OV_DT_BOOL: return t->int32_data[i] != 0;
	case OV_DT_STRING: return NAN;
	default: return t->int32_data[i];
	}
}

double tensor_view_get(const struct tensor_view *v, int64_t i)
{
	if (i < 0 || i >= v->numel)
		return NAN;
	return v->raw ? get_raw(v, i) : get_typed(v, i);
}

void describe_name(struct strbuf *b, const char *name)
{
	if (!name || !*name)
		strbuf_puts(b, "(unnamed)");
	else
		strbuf_put_safe(b, name, strlen(name), 200);
}

void describe_dims(struct strbuf *b, const int64_t *dims, size_t n)
{
	strbuf_putc(b, '[');
	for (size_t i = 0; i < n; i++)
		strbuf_printf(b, "%s%" PRId64, i ? "," : "", dims[i]);
	strbuf_putc(b, ']');
}

static void describe_shape(struct strbuf *b, const Onnx__TensorShapeProto *sh)
{
	if (!sh) { /* no shape: rank unknown */
		strbuf_puts(b, "[...]");
		return;
	}
	strbuf_putc(b, '[');
	for (size_t i = 0; i < sh->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *d = sh->dim[i];
		if (i)
			strbuf_putc(b, ',');
		if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value >= 0)
			strbuf_printf(b, "%" PRId64, d->dim_value);
		else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param &&
			 *d->dim_param)
			strbuf_put_safe(b, d->dim_param, strlen(d->dim_param), 40);
		else
			strbuf_putc(b, '?');
	}
	strbuf_putc(b, ']');
}

void describe_type(struct strbuf *b, const Onnx__TypeProto *tp)
{
	if (!tp) {
		strbuf_putc(b, '?');
		return;
	}
	switch (tp->value_case) {
	case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
		strbuf_puts(b, tp->tensor_type->has_elem_type ? dtype_short_name(tp->tensor_type->elem_type) : "?");
		describe_shape(b, tp->tensor_type->shape);
		break;
	case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
		strbuf_puts(b, "sparse ");
		strbuf_puts(b, tp->sparse_tensor_type->has_elem_type ?
			       dtype_short_name(tp->sparse_tensor_type->elem_type) : "?");
		describe_shape(b, tp->sparse_tensor_type->shape);
		break;
	case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
		strbuf_puts(b, "seq(");
		describe_type(b, tp->sequence_type->elem_type);
		strbuf_putc(b, ')');
		break;
	case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
		strbuf_printf(b, "map(%s,", tp->map_type->has_key_type ? dtype_short_name(tp->map_type->key_type) : "?");
		describe_type(b, tp->map_type->value_type);
		strbuf_putc(b, ')');
		break;
	case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
		strbuf_puts(b, "optional(");
		describe_type(b, tp->optional_type->elem_type);
		strbuf_putc(b, ')');
		break;
	default:
		strbuf_putc(b, '?');
	}
}

void describe_tensor_type(struct strbuf *b, const Onnx__TensorProto *t)
{
	strbuf_puts(b, dtype_short_name(t->data_type));
	describe_dims(b, t->dims, t->n_dims);
}

static void put_number(struct strbuf *b, int32_t dtype, double x)
{
	if (dtype == OV_DT_BOOL)
		strbuf_puts(b, x != 0 ? "true" : "false");
	else if (isnan(x))
		strbuf_puts(b, "nan");
	else if (isinf(x))
		strbuf_puts(b, x > 0 ? "inf" : "-inf");
	else if (dtype == OV_DT_INT64 || dtype == OV_DT_UINT64 || dtype == OV_DT_INT32 || dtype == OV_DT_UINT32 ||
		 dtype == OV_DT_INT16 || dtype == OV_DT_UINT16 || dtype == OV_DT_INT8 || dtype == OV_DT_UINT8 ||
		 dtype == OV_DT_INT4 || dtype == OV_DT_UINT4 || dtype == OV_DT_INT2 || dtype == OV_DT_UINT2)
		strbuf_printf(b, "%.0f", x);
	else
		strbuf_printf(b, "%.6g", x);
}

int64_t tensor_view_int(const struct tensor_view *v, int64_t i)
{
	if (i < 0 || i >= v->numel)
		return 0;
	if (v->dtype == OV_DT_INT64)
		return v->raw ? RAW(int64_t, i) : v->t->int64_data[i];
	if (v->dtype == OV_DT_UINT64)
		return (int64_t)(v->raw ? RAW(uint64_t, i) : v->t->uint64_data[i]);
	double x = tensor_view_get(v, i);
	if (x != x)
		return 0;
	if (x >= 0x1p63) /* out of int64_t's range: converting would be undefined behaviour */
		return INT64_MAX;
	if (x < -0x1p63)
		return INT64_MIN;
	return (int64_t)x;
}

/* 64-bit integers do not survive a trip through double: print them from their own bits. */
static int put_int64_exact(struct strbuf *b, const struct tensor_view *v, int64_t i)
{
	if (v->dtype == OV_DT_INT64) {
		int64_t x = v->raw ? RAW(int64_t, i) : v->t->int64_data[i];
		strbuf_printf(b, "%" PRId64, x);
		return 1;
	}
	if (v->dtype == OV_DT_UINT64) {
		uint64_t x = v->raw ? RAW(uint64_t, i) : v->t->uint64_data[i];
		strbuf_printf(b, "%" PRIu64, x);
		return 1;
	}
	return 0;
}

void describe_tensor_values(struct strbuf *b, struct ov_model *m, const Onnx__TensorProto *t, int max)
{
	struct tensor_view v;
	struct ov_error err;

	if (tensor_view_open(m, t, &v, &err)) {
		strbuf_puts(b, "<unreadable: ");
		strbuf_put_safe(b, err.msg, strlen(err.msg), 0);
		strbuf_putc(b, '>');
		return;
	}
	strbuf_putc(b, '[');
	for (int64_t i = 0; i < v.numel && i < max; i++) {
		if (i)
			strbuf_puts(b, ", ");
		if (v.dtype == OV_DT_STRING) {
			strbuf_putc(b, '"');
			strbuf_put_safe(b, (const char *)t->string_data[i].data, t->string_data[i].len, 60);
			strbuf_putc(b, '"');
		} else if (!put_int64_exact(b, &v, i)) {
			put_number(b, v.dtype, tensor_view_get(&v, i));
		}
	}
	if (v.numel > max)
		strbuf_printf(b, ", ... (%" PRId64 " values)", v.numel);
	strbuf_putc(b, ']');
}

int attr_type(const Onnx__AttributeProto *a)
{
	if (a->has_type && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
		return a->type;
	/* IR version 1 files have no type field: deduce it from what is set. */
	if (a->has_f) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
	if (a->has_i) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	if (a->has_s) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
	if (a->t) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
	if (a->g) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
	if (a->n_floats) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
	if (a->n_ints) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
	if (a->n_strings) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
	if (a->n_tensors) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS;
	if (a->n_graphs) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS;
	return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
}

const char *attr_type_name(const Onnx__AttributeProto *a)
{
	switch (attr_type(a)) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: return "FLOAT";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT: return "INT";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: return "STRING";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: return "TENSOR";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH: return "GRAPH";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR: return "SPARSE_TENSOR";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO: return "TYPE_PROTO";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS: return "FLOATS";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS: return "INTS";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS: return "STRINGS";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS: return "TENSORS";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS: return "GRAPHS";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS: return "SPARSE_TENSORS";
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS: return "TYPE_PROTOS";
	default: return "UNDEFINED";
	}
}

static void describe_tensor_brief(struct strbuf *b, struct ov_model *m, const Onnx__TensorProto *t, int max)
{
	describe_tensor_type(b, t);
	strbuf_putc(b, ' ');
	describe_tensor_values(b, m, t, max);
}

static void describe_graph_brief(struct strbuf *b, const Onnx__GraphProto *g)
{
	strbuf_puts(b, "graph '");
	describe_name(b, g->name);
	strbuf_printf(b, "' (%zu nodes)", g->n_node);
}

void describe_attr_value(struct strbuf *b, struct ov_model *m, const Onnx__AttributeProto *a, int max)
{
	switch (attr_type(a)) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
		put_number(b, OV_DT_FLOAT, a->f);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
		strbuf_printf(b, "%" PRId64, a->i);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
		strbuf_putc(b, '"');
		strbuf_put_safe(b, (const char *)a->s.data, a->s.len, 200);
		strbuf_putc(b, '"');
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
		if (a->t)
			describe_tensor_brief(b, m, a->t, max);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
		if (a->g)
			describe_graph_brief(b, a->g);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR:
		if (a->sparse_tensor) {
			strbuf_puts(b, "sparse ");
			describe_dims(b, a->sparse_tensor->dims, a->sparse_tensor->n_dims);
		}
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO:
		describe_type(b, a->tp);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
		strbuf_putc(b, '[');
		for (size_t i = 0; i < a->n_floats && (int)i < max; i++) {
			if (i)
				strbuf_puts(b, ", ");
			put_number(b, OV_DT_FLOAT, a->floats[i]);
		}
		if (a->n_floats > (size_t)max)
			strbuf_printf(b, ", ... (%zu values)", a->n_floats);
		strbuf_putc(b, ']');
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
		strbuf_putc(b, '[');
		for (size_t i = 0; i < a->n_ints && (int)i < max; i++)
			strbuf_printf(b, "%s%" PRId64, i ? ", " : "", a->ints[i]);
		if (a->n_ints > (size_t)max)
			strbuf_printf(b, ", ... (%zu values)", a->n_ints);
		strbuf_putc(b, ']');
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
		strbuf_putc(b, '[');
		for (size_t i = 0; i < a->n_strings && (int)i < max; i++) {
			strbuf_puts(b, i ? ", \"" : "\"");
			strbuf_put_safe(b, (const char *)a->strings[i].data, a->strings[i].len, 60);
			strbuf_putc(b, '"');
		}
		if (a->n_strings > (size_t)max)
			strbuf_printf(b, ", ... (%zu values)", a->n_strings);
		strbuf_putc(b, ']');
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS:
		strbuf_putc(b, '[');
		for (size_t i = 0; i < a->n_tensors; i++) {
			if (i)
				strbuf_puts(b, ", ");
			describe_tensor_brief(b, m, a->tensors[i], max);
		}
		strbuf_putc(b, ']');
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS:
		strbuf_putc(b, '[');
		for (size_t i = 0; i < a->n_graphs; i++) {
			if (i)
				strbuf_puts(b, ", ");
			describe_graph_brief(b, a->graphs[i]);
		}
		strbuf_putc(b, ']');
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS:
		strbuf_printf(b, "[%zu sparse tensors]", a->n_sparse_tensors);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS:
		strbuf_printf(b, "[%zu types]", a->n_type_protos);
		break;
	default:
		strbuf_puts(b, "(no value)");
	}
}
