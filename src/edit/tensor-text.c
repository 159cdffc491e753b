/* Literal values as people type them ("[1, 2.5, nan]", "true", "\"a\"") turned into tensor data of a given dtype,
 * parsed strictly (integers in range, floats rounded once to float16/bfloat16).  Used by set-tensor and
 * make-constant. */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/base/codec.h"
#include "src/edit/internal.h"
#include "src/base/dtype.h"

static void *m_alloc(struct edit_session *s, size_t n)
{
	return s->m->alloc.alloc(s->m->alloc.allocator_data, n ? n : 1);
}

/* ---- literal values ---- */



static int parse_real(const char *text, double *v, struct ov_error *err)
{
	char *end;

	*v = 0;
	if (!edit_is_decimal(text)) /* strtod would read 0x10 as 16 */
		return ov_fail(err, OV_INVALID, "'%s' is not a number", text);
	errno = 0;
	*v = strtod(text, &end);
	if (*end || (errno == ERANGE && isinf(*v)))
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
	Onnx__TensorProto *t = edit_new_tensor(s, dtype, dims, rank);

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
