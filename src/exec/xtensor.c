/* Runtime tensors: allocation with limits, element access for every numeric dtype, description. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/describe.h"
#include "src/dtype.h"
#include "src/exec/xtensor.h"

#define XT_NUMEL_LIMIT (1ll << 40)

size_t xt_elem_size(int32_t dtype)
{
	int bits = dtype_bits(dtype);

	if (dtype == OV_DT_STRING)
		return sizeof(char *);
	return bits >= 8 ? (size_t)bits / 8 : 0;
}

static int alloc(struct xtensor *t, int32_t dtype, int rank, const int64_t *dims, int zero, struct ov_error *err)
{
	size_t es = xt_elem_size(dtype);
	int64_t n = 1;

	memset(t, 0, sizeof *t);
	if (!es)
		return ov_fail(err, OV_INVALID, "element type %s is not supported by the executor", dtype_name(dtype));
	if (rank < 0 || rank > XT_MAX_RANK)
		return ov_fail(err, OV_LIMIT, "rank %d is over the executor's limit of %d", rank, XT_MAX_RANK);
	for (int i = 0; i < rank; i++) {
		if (dims[i] < 0)
			return ov_fail(err, OV_INVALID, "dim %d is negative (%" PRId64 ")", i, dims[i]);
		if (dims[i] && n > XT_NUMEL_LIMIT / dims[i])
			return ov_fail(err, OV_LIMIT, "a tensor of more than 2^40 elements");
		n *= dims[i];
		t->dims[i] = dims[i];
	}
	t->dtype = dtype;
	t->rank = rank;
	t->numel = n;
	t->bytes = (size_t)n * es;
	t->data = zero || dtype == OV_DT_STRING ? calloc(t->bytes ? t->bytes : 1, 1) : malloc(t->bytes ? t->bytes : 1);
	if (!t->data)
		return ov_fail(err, OV_NOMEM, "out of memory for a %zu-byte tensor", t->bytes);
	t->owns = 1;
	return 0;
}

int xt_alloc(struct xtensor *t, int32_t dtype, int rank, const int64_t *dims, struct ov_error *err)
{
	return alloc(t, dtype, rank, dims, 1, err);
}

int xt_alloc_raw(struct xtensor *t, int32_t dtype, int rank, const int64_t *dims, struct ov_error *err)
{
	return alloc(t, dtype, rank, dims, 0, err);
}

void xt_wrap(struct xtensor *t, int32_t dtype, int rank, const int64_t *dims, void *data)
{
	memset(t, 0, sizeof *t);
	t->dtype = dtype;
	t->rank = rank;
	t->numel = 1;
	for (int i = 0; i < rank && i < XT_MAX_RANK; i++) {
		t->dims[i] = dims[i];
		t->numel *= dims[i];
	}
	t->bytes = (size_t)t->numel * xt_elem_size(dtype);
	t->data = data;
}

void xt_free(struct xtensor *t)
{
	if (t->owns) {
		if (t->dtype == OV_DT_STRING && t->data)
			for (int64_t i = 0; i < t->numel; i++)
				free(((char **)t->data)[i]);
		free(t->data);
	}
	memset(t, 0, sizeof *t);
}

int xt_copy(struct xtensor *dst, const struct xtensor *src, struct ov_error *err)
{
	if (xt_alloc(dst, src->dtype, src->rank, src->dims, err))
		return -1;
	if (src->dtype == OV_DT_STRING) {
		for (int64_t i = 0; i < src->numel; i++) {
			const char *s = ((char *const *)src->data)[i];
			if (s && !(((char **)dst->data)[i] = strdup(s))) {
				xt_free(dst);
				return ov_fail(err, OV_NOMEM, "out of memory");
			}
		}
		return 0;
	}
	if (src->bytes)
		memcpy(dst->data, src->data, src->bytes);
	return 0;
}

static uint16_t float_to_half(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	uint32_t sign = (x >> 16) & 0x8000, mant = x & 0x7fffff;
	int32_t exp = (int32_t)((x >> 23) & 0xff);

	if (exp == 255)
		return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
	int32_t e = exp - 127 + 15;
	if (e >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (e <= 0) {
		if (e < -10)
			return (uint16_t)sign;
		mant |= 0x800000;
		uint32_t shift = (uint32_t)(14 - e);
		uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rem > half || (rem == half && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = (uint32_t)e << 10 | mant >> 13, rem = mant & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)(sign | h);
}

static uint16_t float_to_bf16(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	if ((x & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((x >> 16) | 0x40);
	x += 0x7fff + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

#define AT(type) (((const type *)t->data)[i])

double xt_get(const struct xtensor *t, int64_t i)
{
	switch (t->dtype) {
	case OV_DT_FLOAT: return AT(float);
	case OV_DT_DOUBLE: return AT(double);
	case OV_DT_FLOAT16: return half_to_float(AT(uint16_t));
	case OV_DT_BFLOAT16: return bfloat16_to_float(AT(uint16_t));
	case OV_DT_INT8: return AT(int8_t);
	case OV_DT_UINT8: return AT(uint8_t);
	case OV_DT_INT16: return AT(int16_t);
	case OV_DT_UINT16: return AT(uint16_t);
	case OV_DT_INT32: return AT(int32_t);
	case OV_DT_UINT32: return AT(uint32_t);
	case OV_DT_INT64: return (double)AT(int64_t);
	case OV_DT_UINT64: return (double)AT(uint64_t);
	case OV_DT_BOOL: return AT(uint8_t) != 0;
	default: return NAN;
	}
}

int64_t xt_get_int(const struct xtensor *t, int64_t i)
{
	switch (t->dtype) {
	case OV_DT_INT64: return AT(int64_t);
	case OV_DT_UINT64: return (int64_t)AT(uint64_t);
	case OV_DT_INT32: return AT(int32_t);
	case OV_DT_UINT32: return AT(uint32_t);
	case OV_DT_INT16: return AT(int16_t);
	case OV_DT_UINT16: return AT(uint16_t);
	case OV_DT_INT8: return AT(int8_t);
	case OV_DT_UINT8: case OV_DT_BOOL: return AT(uint8_t);
	default: {
		double d = xt_get(t, i);
		return d != d ? 0 : d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : (int64_t)d;
	}
	}
}

#define SET(type, v) (((type *)t->data)[i] = (type)(v))

static double clampd(double v, double lo, double hi)
{
	return v != v ? 0 : v < lo ? lo : v > hi ? hi : v;
}

void xt_set(struct xtensor *t, int64_t i, double v)
{
	switch (t->dtype) {
	case OV_DT_FLOAT: SET(float, v); break;
	case OV_DT_DOUBLE: SET(double, v); break;
	case OV_DT_FLOAT16: SET(uint16_t, float_to_half((float)v)); break;
	case OV_DT_BFLOAT16: SET(uint16_t, float_to_bf16((float)v)); break;
	case OV_DT_INT8: SET(int8_t, clampd(v, -128, 127)); break;
	case OV_DT_UINT8: SET(uint8_t, clampd(v, 0, 255)); break;
	case OV_DT_INT16: SET(int16_t, clampd(v, -32768, 32767)); break;
	case OV_DT_UINT16: SET(uint16_t, clampd(v, 0, 65535)); break;
	case OV_DT_INT32: SET(int32_t, clampd(v, -2147483648.0, 2147483647.0)); break;
	case OV_DT_UINT32: SET(uint32_t, clampd(v, 0, 4294967295.0)); break;
	case OV_DT_INT64: SET(int64_t, clampd(v, -9.2e18, 9.2e18)); break;
	case OV_DT_UINT64: SET(uint64_t, clampd(v, 0, 1.8e19)); break;
	case OV_DT_BOOL: SET(uint8_t, v != 0); break;
	default: break;
	}
}

void xt_describe(const struct xtensor *t, char *buf, size_t n)
{
	size_t used = (size_t)snprintf(buf, n, "%s[", dtype_short_name(t->dtype));
	for (int i = 0; i < t->rank && used < n; i++)
		used += (size_t)snprintf(buf + used, n - used, "%s%" PRId64, i ? "," : "", t->dims[i]);
	if (used < n)
		snprintf(buf + used, n - used, "]");
}
