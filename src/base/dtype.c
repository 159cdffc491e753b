/* The ONNX element type table and the arithmetic of how much storage a tensor needs. */
#include "config.h"

#include <stdio.h>
#include <strings.h>

#include "src/base/dtype.h"

struct dtype_info {
	const char *name;
	int bits;
	enum ov_dtype_field field;
	int per_num, per_den;
};

static const struct dtype_info dtypes[] = {
#define OV_X(num, name, bits, field, n_, d_) [num] = {#name, bits, field, n_, d_},
	OV_DTYPE_TABLE(OV_X)
#undef OV_X
};
_Static_assert(sizeof dtypes / sizeof dtypes[0] == OV_DT_COUNT, "dtype table drifted");

static const char *const short_names[OV_DT_COUNT] = {
	[OV_DT_UNDEFINED] = "undefined", [OV_DT_FLOAT] = "float32", [OV_DT_UINT8] = "uint8",
	[OV_DT_INT8] = "int8", [OV_DT_UINT16] = "uint16", [OV_DT_INT16] = "int16",
	[OV_DT_INT32] = "int32", [OV_DT_INT64] = "int64", [OV_DT_STRING] = "string",
	[OV_DT_BOOL] = "bool", [OV_DT_FLOAT16] = "float16", [OV_DT_DOUBLE] = "float64",
	[OV_DT_UINT32] = "uint32", [OV_DT_UINT64] = "uint64", [OV_DT_COMPLEX64] = "complex64",
	[OV_DT_COMPLEX128] = "complex128", [OV_DT_BFLOAT16] = "bfloat16",
	[OV_DT_FLOAT8E4M3FN] = "float8e4m3fn", [OV_DT_FLOAT8E4M3FNUZ] = "float8e4m3fnuz",
	[OV_DT_FLOAT8E5M2] = "float8e5m2", [OV_DT_FLOAT8E5M2FNUZ] = "float8e5m2fnuz",
	[OV_DT_UINT4] = "uint4", [OV_DT_INT4] = "int4", [OV_DT_FLOAT4E2M1] = "float4e2m1",
	[OV_DT_FLOAT8E8M0] = "float8e8m0", [OV_DT_UINT2] = "uint2", [OV_DT_INT2] = "int2",
	[OV_DT_FLOAT6E2M3] = "float6e2m3", [OV_DT_FLOAT6E3M2] = "float6e3m2",
};

int dtype_known(int32_t dt)
{
	return dt >= 0 && dt < OV_DT_COUNT;
}

const char *dtype_unknown_reason(int32_t dt, char *buf, size_t n)
{
	if (dt > OV_DT_LAST)
		snprintf(buf, n, "element type %d is newer than the types onnxview knows (up to %d, %s, as in onnx 1.23)",
			 (int)dt, OV_DT_LAST, dtypes[OV_DT_LAST].name);
	else
		snprintf(buf, n, "element type %d is no ONNX type", (int)dt);
	return buf;
}

int dtype_packed(int32_t dt)
{
	int bits = dtype_bits(dt);

	return bits > 0 && bits < 8;
}

const char *dtype_name(int32_t dt)
{
	static char buf[32];

	if (dtype_known(dt))
		return dtypes[dt].name;
	snprintf(buf, sizeof buf, "dtype(%d)", (int)dt);
	return buf;
}

const char *dtype_short_name(int32_t dt)
{
	return dtype_known(dt) ? short_names[dt] : dtype_name(dt);
}

int dtype_parse(const char *s)
{
	static const struct {
		const char *alias;
		int dt;
	} aliases[] = {
		{"f32", OV_DT_FLOAT}, {"f16", OV_DT_FLOAT16}, {"bf16", OV_DT_BFLOAT16}, {"f64", OV_DT_DOUBLE},
		{"half", OV_DT_FLOAT16}, {"i64", OV_DT_INT64}, {"i32", OV_DT_INT32}, {"i8", OV_DT_INT8},
		{"u8", OV_DT_UINT8}, {"long", OV_DT_INT64}, {"int", OV_DT_INT32},
	};

	for (int i = 1; i < OV_DT_COUNT; i++)
		if (!strcasecmp(s, dtypes[i].name) || !strcasecmp(s, short_names[i]))
			return i;
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (!strcasecmp(s, aliases[i].alias))
			return aliases[i].dt;
	return -1;
}

int dtype_bits(int32_t dt)
{
	return dtype_known(dt) ? dtypes[dt].bits : 0;
}

enum ov_dtype_field dtype_field(int32_t dt)
{
	return dtype_known(dt) ? dtypes[dt].field : OV_FIELD_NONE;
}

int64_t dtype_raw_bytes(int32_t dt, int64_t n)
{
	int bits = dtype_bits(dt);

	if (bits == 0 || n < 0)
		return -1;
	if (bits < 8)
		return (n * bits + 7) / 8; /* n is bounded by the caller (see tensor_numel) */
	if (n > INT64_MAX / (bits / 8))
		return -1;
	return n * (bits / 8);
}

int64_t dtype_typed_count(int32_t dt, int64_t n)
{
	if (!dtype_known(dt) || n < 0)
		return -1;
	return (n * dtypes[dt].per_num + dtypes[dt].per_den - 1) / dtypes[dt].per_den;
}
