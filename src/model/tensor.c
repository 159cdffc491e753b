/* Facts about a TensorProto that need no data: element count, storage, external references. */
#include "config.h"

#include <string.h>

#include "src/base/dtype.h"
#include "src/model/model.h"

#define NUMEL_LIMIT (1ll << 53)

int64_t tensor_numel(const Onnx__TensorProto *t, struct ov_error *err)
{
	int64_t n = 1;

	for (size_t i = 0; i < t->n_dims; i++) {
		int64_t d = t->dims[i];
		if (d < 0)
			return ov_fail(err, OV_FORMAT, "dim %zu is negative (%lld)", i, (long long)d);
		if (d != 0 && n > NUMEL_LIMIT / d)
			return ov_fail(err, OV_FORMAT, "dims overflow: the product of the dims exceeds 2^53 elements");
		n *= d;
	}
	return n;
}

int tensor_is_external(const Onnx__TensorProto *t)
{
	return t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
}

const char *tensor_external_value(const Onnx__TensorProto *t, const char *key)
{
	const char *v = NULL;

	for (size_t i = 0; i < t->n_external_data; i++) /* the last entry wins, as in protobuf maps */
		if (t->external_data[i]->key && !strcmp(t->external_data[i]->key, key))
			v = t->external_data[i]->value ? t->external_data[i]->value : "";
	return v;
}

uint64_t tensor_data_bytes(const Onnx__TensorProto *t)
{
	int64_t n = tensor_numel(t, NULL);
	int64_t b;

	if (n < 0)
		return 0;
	if (t->data_type == OV_DT_STRING) {
		uint64_t s = 0;
		for (size_t i = 0; i < t->n_string_data; i++)
			s += t->string_data[i].len;
		return s;
	}
	b = dtype_raw_bytes(t->data_type, n);
	return b < 0 ? 0 : (uint64_t)b;
}
