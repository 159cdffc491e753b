/* The runner's conversion of model tensors (initializers, Constant nodes) into runtime tensors. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/base/codec.h"
#include "src/base/dtype.h"
#include "src/model/describe.h"
#include "src/exec/exec.h"
/* ---- model tensors ---- */

static int strings_from_proto(const Onnx__TensorProto *t, struct xtensor *out, struct ov_error *err)
{
	for (int64_t i = 0; i < out->numel; i++) {
		const ProtobufCBinaryData *s = &t->string_data[i];
		char *c = malloc(s->len + 1);
		if (!c) {
			xt_free(out);
			return ov_fail(err, OV_NOMEM, "out of memory for a string");
		}
		if (s->len)
			memcpy(c, s->data, s->len);
		c[s->len] = '\0';
		((char **)out->data)[i] = c;
	}
	return 0;
}

/* Typed fields (float_data, int32_data...) into the xtensor's C layout; count is the entries the field holds. */
static int typed_from_proto(const Onnx__TensorProto *t, struct xtensor *o, struct ov_error *err)
{
	int64_t n = o->numel, need = dtype_typed_count(o->dtype, n);
	size_t have;

	switch (dtype_field(o->dtype)) {
	case OV_FIELD_FLOAT: have = t->n_float_data; break;
	case OV_FIELD_INT32: have = t->n_int32_data; break;
	case OV_FIELD_INT64: have = t->n_int64_data; break;
	case OV_FIELD_DOUBLE: have = t->n_double_data; break;
	case OV_FIELD_UINT64: have = t->n_uint64_data; break;
	default: have = 0; break;
	}
	if (n && (int64_t)have < need)
		return ov_fail(err, OV_FORMAT, "%s tensor of %" PRId64 " elements holds %zu values", dtype_short_name(o->dtype),
			      n, have);
	for (int64_t i = 0; i < n; i++) {
		switch (o->dtype) {
		case OV_DT_FLOAT: ((float *)o->data)[i] = t->float_data[i]; break;
		case OV_DT_COMPLEX64:
			((float *)o->data)[2 * i] = t->float_data[2 * i];
			((float *)o->data)[2 * i + 1] = t->float_data[2 * i + 1];
			break;
		case OV_DT_DOUBLE: ((double *)o->data)[i] = t->double_data[i]; break;
		case OV_DT_COMPLEX128:
			((double *)o->data)[2 * i] = t->double_data[2 * i];
			((double *)o->data)[2 * i + 1] = t->double_data[2 * i + 1];
			break;
		case OV_DT_INT64: ((int64_t *)o->data)[i] = t->int64_data[i]; break;
		case OV_DT_UINT64: ((uint64_t *)o->data)[i] = t->uint64_data[i]; break;
		case OV_DT_UINT32: ((uint32_t *)o->data)[i] = (uint32_t)t->uint64_data[i]; break;
		case OV_DT_INT32: ((int32_t *)o->data)[i] = t->int32_data[i]; break;
		case OV_DT_INT16: ((int16_t *)o->data)[i] = (int16_t)t->int32_data[i]; break;
		case OV_DT_UINT16: case OV_DT_FLOAT16: case OV_DT_BFLOAT16:
			/* 16-bit floats keep their bit pattern in int32_data */
			((uint16_t *)o->data)[i] = (uint16_t)t->int32_data[i];
			break;
		case OV_DT_INT8: ((int8_t *)o->data)[i] = (int8_t)t->int32_data[i]; break;
		case OV_DT_BOOL: ((uint8_t *)o->data)[i] = t->int32_data[i] != 0; break;
		case OV_DT_INT4: case OV_DT_UINT4: case OV_DT_FLOAT4E2M1: case OV_DT_INT2: case OV_DT_UINT2: {
			/* packed two (4-bit) or four (2-bit) an entry; one an entry also seen for 4-bit */
			int bits = dtype_bits(o->dtype), per = 8 / bits;
			uint32_t code = (int64_t)have == n && n > 1 && per == 2 ? (uint32_t)t->int32_data[i]
				: (uint32_t)t->int32_data[i / per] >> (bits * (i % per));
			((uint8_t *)o->data)[i] = ov_packed_widen(code & ((1u << bits) - 1), o->dtype);
			break;
		}
		case OV_DT_FLOAT6E2M3: case OV_DT_FLOAT6E3M2:
			((uint8_t *)o->data)[i] = (uint8_t)(t->int32_data[i] & 0x3f);
			break;
		default: /* uint8 and the 8-bit float formats (bit patterns) */
			((uint8_t *)o->data)[i] = (uint8_t)t->int32_data[i];
			break;
		}
	}
	return 0;
}

/* Raw bytes of a type under 8 bits (a bit stream) into one byte an element. */
static int unpack_raw(const uint8_t *p, size_t len, struct xtensor *o, struct ov_error *err)
{
	int bits = dtype_bits(o->dtype);
	int64_t need = dtype_raw_bytes(o->dtype, o->numel);

	if (need < 0 || len < (size_t)need)
		return ov_fail(err, OV_FORMAT, "raw_data holds %zu bytes, %" PRId64 " %s elements need %" PRId64, len,
			       o->numel, dtype_short_name(o->dtype), need);
	for (int64_t i = 0; i < o->numel; i++)
		((uint8_t *)o->data)[i] = ov_packed_widen(ov_packed_get(p, i, bits), o->dtype);
	return 0;
}

/* exec_tensor_from_proto, and with view exec_tensor_view_proto: bytes that can be read where they lie are wrapped
 * instead of copied. */
static int tensor_from_proto(struct ov_model *m, const Onnx__TensorProto *t, int view, struct xtensor *out,
			     struct ov_error *err)
{
	int64_t dims[XT_MAX_RANK], numel;

	memset(out, 0, sizeof *out);
	if (t->n_dims > XT_MAX_RANK)
		return ov_fail(err, OV_LIMIT, "rank %zu is over the executor's limit of %d", t->n_dims, XT_MAX_RANK);
	for (size_t i = 0; i < t->n_dims; i++)
		dims[i] = t->dims[i];
	if ((numel = tensor_numel(t, err)) < 0)
		return -1;
	if (t->data_type == OV_DT_STRING) {
		if (xt_alloc(out, OV_DT_STRING, (int)t->n_dims, dims, err))
			return -1;
		if (out->numel && t->n_string_data < (size_t)out->numel) {
			xt_free(out);
			return ov_fail(err, OV_FORMAT, "string tensor of %" PRId64 " elements holds %zu strings",
				       tensor_numel(t, NULL), t->n_string_data);
		}
		return strings_from_proto(t, out, err);
	}
	/* the bytes: external data (through its mapping, which lives as long as the model), raw_data, or none
	 * (the typed fields) */
	int external = tensor_is_external(t), raw = external || t->has_raw_data;
	const uint8_t *data = t->raw_data.data;
	size_t len = t->raw_data.len, es = xt_elem_size(t->data_type);
	if (external && model_external_data(m, t, &data, &len, err))
		return -1;
	if (view && raw && data && es && !dtype_packed(t->data_type) && (external || model_holds_bytes(m, data, len)) &&
	    (uintptr_t)data % es == 0 && (uint64_t)numel <= len / es) {
		xt_wrap(out, t->data_type, (int)t->n_dims, dims, (void *)data);
		return 0;
	}
	if (xt_alloc(out, t->data_type, (int)t->n_dims, dims, err))
		return -1;
	if (raw && dtype_packed(t->data_type)) {
		if (unpack_raw(data, len, out, err)) {
			xt_free(out);
			return -1;
		}
		return 0;
	}
	if (raw) {
		if (len < out->bytes) {
			size_t b = out->bytes;
			xt_free(out);
			if (external)
				return ov_fail(err, OV_EXTERNAL, "external data holds %zu bytes, %s needs %zu", len,
					       dtype_short_name(t->data_type), b);
			return ov_fail(err, OV_FORMAT, "raw_data holds %zu bytes, the tensor needs %zu", len, b);
		}
		if (out->bytes)
			memcpy(out->data, data, out->bytes);
		return 0;
	}
	if (typed_from_proto(t, out, err)) {
		xt_free(out);
		return -1;
	}
	return 0;
}

int exec_tensor_from_proto(struct ov_model *m, const Onnx__TensorProto *t, struct xtensor *out, struct ov_error *err)
{
	return tensor_from_proto(m, t, 0, out, err);
}

int exec_tensor_view_proto(struct ov_model *m, const Onnx__TensorProto *t, struct xtensor *out, struct ov_error *err)
{
	return tensor_from_proto(m, t, 1, out, err);
}

int exec_constant_value(struct ov_model *m, const Onnx__NodeProto *n, struct xtensor *out, struct ov_error *err)
{
	for (size_t i = 0; i < n->n_attribute; i++) {
		const Onnx__AttributeProto *a = n->attribute[i];
		const char *an = a->name ? a->name : "";
		int64_t len;
		if (!strcmp(an, "value") && a->t)
			return exec_tensor_from_proto(m, a->t, out, err);
		if (!strcmp(an, "sparse_value"))
			return ov_fail(err, OV_INVALID, "sparse_value is not supported by the executor");
		if (!strcmp(an, "value_float") || !strcmp(an, "value_int")) {
			int f = an[6] == 'f';
			if (xt_alloc(out, f ? OV_DT_FLOAT : OV_DT_INT64, 0, NULL, err))
				return -1;
			if (f)
				*(float *)out->data = a->f;
			else
				*(int64_t *)out->data = a->i;
			return 0;
		}
		if (!strcmp(an, "value_floats") || !strcmp(an, "value_ints")) {
			int f = an[6] == 'f';
			len = f ? (int64_t)a->n_floats : (int64_t)a->n_ints;
			if (xt_alloc(out, f ? OV_DT_FLOAT : OV_DT_INT64, 1, &len, err))
				return -1;
			if (len)
				memcpy(out->data, f ? (void *)a->floats : (void *)a->ints, out->bytes);
			return 0;
		}
		if (!strcmp(an, "value_string") || !strcmp(an, "value_strings")) {
			int one = !strcmp(an, "value_string");
			len = one ? 1 : (int64_t)a->n_strings;
			if (xt_alloc(out, OV_DT_STRING, one ? 0 : 1, &len, err))
				return -1;
			for (int64_t k = 0; k < len; k++) {
				const ProtobufCBinaryData *s = one ? &a->s : &a->strings[k];
				char *c = malloc(s->len + 1);
				if (!c) {
					xt_free(out);
					return ov_fail(err, OV_NOMEM, "out of memory");
				}
				if (s->len)
					memcpy(c, s->data, s->len);
				c[s->len] = '\0';
				((char **)out->data)[k] = c;
			}
			return 0;
		}
	}
	return ov_fail(err, OV_INVALID, "the Constant has no value attribute");
}
