/* Load-time validation: every size the file states is checked before anything relies on it; what onnxruntime and
 * onnx.checker accept is not refused here (a questionable but loadable model is `check`'s business). */
#include "config.h"

#include <stdio.h>

#include "src/base/dtype.h"
#include "src/model/internal.h"

struct vctx {
	struct ov_model *m;
	struct ov_error *err;
};

static size_t typed_count(const Onnx__TensorProto *t, enum ov_dtype_field f)
{
	switch (f) {
	case OV_FIELD_FLOAT: return t->n_float_data;
	case OV_FIELD_INT32: return t->n_int32_data;
	case OV_FIELD_STRING: return t->n_string_data;
	case OV_FIELD_INT64: return t->n_int64_data;
	case OV_FIELD_DOUBLE: return t->n_double_data;
	case OV_FIELD_UINT64: return t->n_uint64_data;
	default: return 0;
	}
}

static const char *field_name(enum ov_dtype_field f)
{
	static const char *const names[] = {"none", "float_data", "int32_data", "string_data", "int64_data",
					    "double_data", "uint64_data"};
	return names[f];
}

/* Checks one tensor; the caller adds where it is. */
static int check_tensor(struct ov_model *m, const Onnx__TensorProto *t, struct ov_error *err)
{
	int64_t n, need;
	enum ov_dtype_field f;

	if (!t->has_data_type || t->data_type == OV_DT_UNDEFINED)
		return ov_fail(err, OV_FORMAT, "has no data type");
	if (!dtype_known(t->data_type)) {
		char why[160];
		return ov_fail(err, t->data_type > OV_DT_LAST ? OV_INVALID : OV_FORMAT, "%s",
			       dtype_unknown_reason(t->data_type, why, sizeof why));
	}
	n = tensor_numel(t, err);
	if (n < 0)
		return -1;
	f = dtype_field(t->data_type);
	if (tensor_is_external(t)) {
		if (t->data_type == OV_DT_STRING)
			return ov_fail(err, OV_FORMAT, "is a STRING tensor stored externally, which ONNX does not allow");
		return external_check(m, t, dtype_raw_bytes(t->data_type, n), err);
	}
	if (t->has_raw_data) {
		if (t->data_type == OV_DT_STRING)
			return ov_fail(err, OV_FORMAT, "is a STRING tensor with raw_data, which ONNX does not allow");
		need = dtype_raw_bytes(t->data_type, n);
		if (need < 0 || (uint64_t)need != t->raw_data.len)
			return ov_fail(err, OV_FORMAT, "raw_data has %zu bytes, but %s %s needs %lld", t->raw_data.len,
				       dtype_name(t->data_type), n == 1 && t->n_dims == 0 ? "scalar" : "of this shape",
				       (long long)need);
		return 0;
	}
	need = dtype_typed_count(t->data_type, n);
	size_t have = typed_count(t, f);
	/* Values in a field other than the dtype's own are a contradiction. */
	for (enum ov_dtype_field o = OV_FIELD_FLOAT; o <= OV_FIELD_UINT64; o++)
		if (o != f && typed_count(t, o))
			return ov_fail(err, OV_FORMAT, "is %s but stores values in %s", dtype_name(t->data_type),
				       field_name(o));
	if (have == 0 && n > 0) /* an empty tensor body: ONNX reads it as no data; flag sizes that cannot work */
		return ov_fail(err, OV_FORMAT, "has %lld elements by its dims but no data", (long long)n);
	/* 4-bit types may be written one value per entry or two per entry. */
	if ((int64_t)have != need && !(dtype_bits(t->data_type) == 4 && (int64_t)have == n))
		return ov_fail(err, OV_FORMAT, "%s has %zu values, but dims need %lld", field_name(f), have,
			       (long long)need);
	return 0;
}

static int visit(Onnx__TensorProto *t, const struct tensor_site *site, void *ctx)
{
	struct vctx *v = ctx;
	char where[512];

	if (check_tensor(v->m, t, v->err) == 0)
		return 0;
	return ov_wrap(v->err, "%s: ", tensor_site_describe(site, t, where, sizeof where));
}

int model_validate(struct ov_model *m, struct ov_error *err)
{
	struct vctx v = {m, err};

	/* Declared dims (value_info, graph inputs and outputs) are not refused here even when negative: Paddle2ONNX
	 * writes dim_value -1 for a dynamic dim, which onnxruntime and onnx.checker accept.  Readers take a negative
	 * dim_value as dynamic (shape_from_type) and `check` names it (negative-dim). */
	return model_foreach_tensor(m->proto, visit, &v);
}
