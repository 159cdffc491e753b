/* Turning model pieces into text for people: types, shapes, tensor values, attribute values.
 * Everything goes through strbuf_put_safe for names and strings, so hostile bytes never reach a terminal raw. */
#ifndef OV_DESCRIBE_H
#define OV_DESCRIBE_H

#include "src/model/model.h"
#include "src/base/strbuf.h"

/* A readable view of a tensor's values, wherever they are stored (raw_data, typed field, external file). */
struct tensor_view {
	int32_t dtype;
	int64_t numel;
	const uint8_t *raw;          /* little-endian bytes (raw_data or external), or NULL for typed fields */
	const Onnx__TensorProto *t;
};

/* Fails (with err) for external data that cannot be read; never for a validated in-file tensor. */
int tensor_view_open(struct ov_model *m, const Onnx__TensorProto *t, struct tensor_view *v, struct ov_error *err);
/* Element i as a double (complex: the real part; strings: NaN). */
double tensor_view_get(const struct tensor_view *v, int64_t i);
/* Element i of an integer tensor, exactly (64-bit values do not survive a double); others rounded toward 0. */
int64_t tensor_view_int(const struct tensor_view *v, int64_t i);

/* float32[1,3,?,batch] for a value's declared type; "?" when no type is declared. */
void describe_type(struct strbuf *b, const Onnx__TypeProto *tp);
/* [1,3,224,224] */
void describe_dims(struct strbuf *b, const int64_t *dims, size_t n);
/* float32[64,3,7,7] */
void describe_tensor_type(struct strbuf *b, const Onnx__TensorProto *t);
/* [1, 1, 3, 3] or [0.1, 0.2, ... (9408 values)]: at most max values.  Unreadable external data is described,
 * not fatal. */
void describe_tensor_values(struct strbuf *b, struct ov_model *m, const Onnx__TensorProto *t, int max);
/* The value of an attribute as people write it: 3, [1, 1], "nearest", tensor float32[4] [...], graph 'body'... */
void describe_attr_value(struct strbuf *b, struct ov_model *m, const Onnx__AttributeProto *a, int max_values);
/* The attribute's type name: INT, FLOATS... (deduced from the fields set when 'type' is missing) */
const char *attr_type_name(const Onnx__AttributeProto *a);
int attr_type(const Onnx__AttributeProto *a);
/* name, or "(unnamed)" */
void describe_name(struct strbuf *b, const char *name);

#endif
