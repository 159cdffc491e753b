/* Unit tests of tensor files (src/model/tensorfile.c): .npy round trips for every dtype, byte order, Fortran order,
 * versions 1-3, a battery of hostile headers; .pb typed fields, raw data, strings, refusals; and the float16 /
 * bfloat16 rounding that set-tensor uses for literal values. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/base/codec.h"
#include "src/model/describe.h"
#include "src/base/dtype.h"
#include "src/edit/internal.h"
#include "src/model/save.h"
#include "src/model/tensorfile.h"
#include "tests/unit/tap.h"

static char tmpdir[] = "/tmp/ov-tensorfile.XXXXXX";

/* An allocator that refuses anything over a limit and counts what is live, to show that hostile sizes are
 * refused before any allocation and that nothing leaks. */
static size_t alloc_limit = (size_t)-1, alloc_max_seen;
static long alloc_live;

static void *lim_alloc(void *data, size_t n)
{
	(void)data;
	if (n > alloc_max_seen)
		alloc_max_seen = n;
	if (n > alloc_limit)
		return NULL;
	alloc_live++;
	return malloc(n ? n : 1);
}

static void lim_free(void *data, void *p)
{
	(void)data;
	if (p)
		alloc_live--;
	free(p);
}

static ProtobufCAllocator lim = {lim_alloc, lim_free, NULL};

/* A .npy file: preamble for version major, then header text padded to 64 bytes (pad = 1), then data. */
static size_t npy(uint8_t *out, int major, const char *header, int pad, const void *data, size_t n)
{
	size_t hl = strlen(header), pre = major == 1 ? 10 : 12, total = pre + hl + (pad ? 1 : 0);

	if (pad)
		total = (total + 63) / 64 * 64;
	size_t hlen = total - pre;
	memcpy(out, "\x93NUMPY", 6);
	out[6] = (uint8_t)major;
	out[7] = 0;
	out[8] = (uint8_t)hlen;
	out[9] = (uint8_t)(hlen >> 8);
	if (major != 1)
		out[10] = (uint8_t)(hlen >> 16), out[11] = (uint8_t)(hlen >> 24);
	memcpy(out + pre, header, hl);
	if (pad) {
		memset(out + pre + hl, ' ', hlen - hl - 1);
		out[total - 1] = '\n';
	}
	if (n)
		memcpy(out + total, data, n);
	return total + n;
}

/* The writer's bytes are numpy.save's. */
static void test_numpy_bytes(void)
{
	/* What numpy.save wrote (numpy 1.24.2), byte for byte (the last: the header numpy writes for that shape). */
	static const struct {
		const char *what;
		int32_t dtype;
		int64_t dims[3];
		size_t rank, len;
		const char *bytes;
	} numpy_files[] = {
		{"f4 (2, 3)", OV_DT_FLOAT, {2, 3}, 2, 152,
		 "\223NUMPY\001\000v\000{'descr': '<f4', 'fortran_order': False, 'shape': (2, "
		 "3), }                                                          \012\000\000\000"
		 "\000\000\000\200?\000\000\000@\000\000@@\000\000\200@\000\000\240@"},
		{"i8 scalar", OV_DT_INT64, {0}, 0, 136,
		 "\223NUMPY\001\000v\000{'descr': '<i8', 'fortran_order': False, 'shape': (), "
		 "}                                                              \012\007\000\000"
		 "\000\000\000\000\000"},
		{"b1 (2,)", OV_DT_BOOL, {2}, 1, 130,
		 "\223NUMPY\001\000v\000{'descr': '|b1', 'fortran_order': False, 'shape': (2,)"
		 ", }                                                            \012\001\000"},
		{"c16 (123456, 0)", OV_DT_COMPLEX128, {123456, 0}, 2, 128,
		 "\223NUMPY\001\000v\000{'descr': '<c16', 'fortran_order': False, 'shape': (12"
		 "3456, 0), }                                                    \012"},
		{"u2 (0, 12345678901, 2)", OV_DT_UINT16, {0, 12345678901, 2}, 3, 128,
		 "\223NUMPY\001\000v\000{'descr': '<u2', 'fortran_order': False, 'shape': (0, "
		 "12345678901, 2), }                                             \012"},
	};

	for (size_t i = 0; i < sizeof numpy_files / sizeof numpy_files[0]; i++) {
		const uint8_t *want = (const uint8_t *)numpy_files[i].bytes;
		size_t start = 10 + (size_t)(want[8] | want[9] << 8);
		uint8_t *buf = NULL;
		size_t len = 0;
		struct ov_error e = {0};
		int rc = tensorfile_npy_encode(numpy_files[i].dtype, numpy_files[i].dims, numpy_files[i].rank, want + start,
					       &buf, &len, &e);
		OK(rc == 0 && len == numpy_files[i].len && !memcmp(buf, want, len), "%s: the same bytes as numpy.save",
		   numpy_files[i].what);
		free(buf);
	}
}

static int read_npy(const uint8_t *b, size_t n, Onnx__TensorProto **t, struct ov_error *e)
{
	return tensorfile_read_buffer(b, n, TENSORFILE_NPY, "t.npy", &lim, t, e);
}

static void test_roundtrip_every_dtype(void)
{
	static const int32_t types[] = {OV_DT_BOOL, OV_DT_INT8, OV_DT_INT16, OV_DT_INT32, OV_DT_INT64, OV_DT_UINT8,
		OV_DT_UINT16, OV_DT_UINT32, OV_DT_UINT64, OV_DT_FLOAT16, OV_DT_FLOAT, OV_DT_DOUBLE, OV_DT_COMPLEX64,
		OV_DT_COMPLEX128};
	int64_t dims[] = {2, 3, 1};
	uint8_t raw[6 * 16];

	for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
		int32_t dt = types[k];
		size_t nbytes = (size_t)dtype_raw_bytes(dt, 6);
		for (size_t i = 0; i < nbytes; i++)
			raw[i] = dt == OV_DT_BOOL ? (uint8_t)(i & 1) : (uint8_t)(i * 37 + 11);
		uint8_t *buf;
		size_t len;
		Onnx__TensorProto *t = NULL;
		struct ov_error e = {0};
		int ok = tensorfile_npy_encode(dt, dims, 3, raw, &buf, &len, &e) == 0;
		ok = ok && (len - nbytes) % 64 == 0 && buf[len - nbytes - 1] == '\n';
		ok = ok && read_npy(buf, len, &t, &e) == 0;
		ok = ok && t->data_type == dt && t->n_dims == 3 && t->dims[0] == 2 && t->dims[1] == 3 && t->dims[2] == 1;
		ok = ok && t->has_raw_data && t->raw_data.len == nbytes && !memcmp(t->raw_data.data, raw, nbytes);
		OK(ok, "%s (%s) round-trips through .npy%s%s", dtype_short_name(dt), tensorfile_npy_descr(dt),
		   e.msg[0] ? ": " : "", e.msg);
		tensorfile_free(t, &lim);
		free(buf);
	}
	uint8_t *buf;
	size_t len;
	struct ov_error e = {0};
	OK(tensorfile_npy_encode(OV_DT_BFLOAT16, dims, 3, raw, &buf, &len, &e) == -1 && strstr(e.msg, "bfloat16"),
	   "bfloat16 cannot be written as .npy: %s", e.msg);
	/* A scalar and an empty tensor. */
	Onnx__TensorProto *t = NULL;
	float x = 42;
	OK(tensorfile_npy_encode(OV_DT_FLOAT, NULL, 0, &x, &buf, &len, &e) == 0 && memmem(buf, len, "'shape': ()", 11) &&
	   read_npy(buf, len, &t, &e) == 0 && t->n_dims == 0 && t->raw_data.len == 4, "a 0-d scalar round-trips");
	tensorfile_free(t, &lim);
	free(buf);
	int64_t zero[] = {3, 0};
	t = NULL;
	OK(tensorfile_npy_encode(OV_DT_INT64, zero, 2, NULL, &buf, &len, &e) == 0 && read_npy(buf, len, &t, &e) == 0 &&
	   t->n_dims == 2 && t->dims[1] == 0 && t->raw_data.len == 0, "an empty (3, 0) tensor round-trips");
	tensorfile_free(t, &lim);
	free(buf);
	int64_t one[] = {5};
	OK(tensorfile_npy_encode(OV_DT_INT8, one, 1, "abcde", &buf, &len, &e) == 0 && memmem(buf, len, "(5,)", 4),
	   "a 1-d shape is written as a tuple (5,)");
	free(buf);
}

static void test_read_variants(void)
{
	uint8_t b[4096];
	Onnx__TensorProto *t = NULL;
	struct ov_error e = {0};
	size_t n;

	/* Big-endian data is converted. */
	const uint8_t be[] = {0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0};
	n = npy(b, 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 1, be, sizeof be);
	float f[2] = {0, 0};
	OK(read_npy(b, n, &t, &e) == 0 && t->data_type == OV_DT_FLOAT && (memcpy(f, t->raw_data.data, 8), 1) &&
	   f[0] == 1.0f && f[1] == -2.0f, "'>f4' big-endian floats are swapped (%s)", e.msg);
	tensorfile_free(t, &lim);
	const uint8_t bec[] = {0x3f, 0x80, 0, 0, 0x40, 0, 0, 0};
	n = npy(b, 1, "{'descr': '>c8', 'fortran_order': False, 'shape': (), }", 1, bec, sizeof bec);
	OK(read_npy(b, n, &t, &e) == 0 && t->data_type == OV_DT_COMPLEX64 && (memcpy(f, t->raw_data.data, 8), 1) &&
	   f[0] == 1.0f && f[1] == 2.0f, "'>c8' swaps the real and imaginary parts each on its own");
	tensorfile_free(t, &lim);
	const int16_t bei = (int16_t)0x0201;
	n = npy(b, 1, "{'descr': '>i2', 'fortran_order': False, 'shape': (1,), }", 1, &bei, 2);
	int16_t v16;
	OK(read_npy(b, n, &t, &e) == 0 && t->data_type == OV_DT_INT16 && (memcpy(&v16, t->raw_data.data, 2), 1) &&
	   v16 == 0x0102, "'>i2' is swapped");
	tensorfile_free(t, &lim);

	/* Fortran order: element (i, j, k) is at i + 2 j + 6 k. */
	int32_t fo[24], want[24];
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < 4; k++) {
				fo[i + 2 * j + 6 * k] = 100 * i + 10 * j + k;
				want[(i * 3 + j) * 4 + k] = 100 * i + 10 * j + k;
			}
	n = npy(b, 1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3, 4), }", 1, fo, sizeof fo);
	OK(read_npy(b, n, &t, &e) == 0 && t->n_dims == 3 && !memcmp(t->raw_data.data, want, sizeof want),
	   "Fortran order (2, 3, 4) is transposed to C order (%s)", e.msg);
	tensorfile_free(t, &lim);
	n = npy(b, 1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 0, 4), }", 1, NULL, 0);
	OK(read_npy(b, n, &t, &e) == 0 && t->raw_data.len == 0, "Fortran order with an empty dim");
	tensorfile_free(t, &lim);

	/* Versions 2 and 3, keys in another order, double quotes, no trailing comma, unpadded header, Python 2
	 * longs, bool normalised to 0/1. */
	const uint8_t bools[] = {0, 1, 7, 0};
	n = npy(b, 2, "{\"shape\": (2, 2), \"fortran_order\": False, \"descr\": \"|b1\"}", 0, bools, 4);
	OK(read_npy(b, n, &t, &e) == 0 && t->data_type == OV_DT_BOOL && !memcmp(t->raw_data.data, "\0\1\1\0", 4),
	   "version 2.0, keys reordered, double quotes, no padding; bools read as 0/1 (%s)", e.msg);
	tensorfile_free(t, &lim);
	n = npy(b, 3, "{'descr': '<u2', 'fortran_order': False, 'shape': (1L, 2L), }", 1, "abcd", 4);
	OK(read_npy(b, n, &t, &e) == 0 && t->data_type == OV_DT_UINT16 && t->dims[1] == 2,
	   "version 3.0 with Python 2 long dims (%s)", e.msg);
	tensorfile_free(t, &lim);
	n = npy(b, 1, "{'descr':'<f2','fortran_order':False,'shape':(1,)}", 1, "\x00\x3c", 2);
	OK(read_npy(b, n, &t, &e) == 0 && t->data_type == OV_DT_FLOAT16, "a header without spaces");
	tensorfile_free(t, &lim);
	n = npy(b, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", 1, "\0\0\0\0\0\0\xf0\x3f", 8);
	OK(read_npy(b, n, &t, &e) == 0 && t->data_type == OV_DT_DOUBLE && alloc_live == 0 + 3 + 0,
	   "float64 reads as DOUBLE; the tensor holds 3 allocations (message, dims, data)");
	tensorfile_free(t, &lim);
	OK(alloc_live == 0, "nothing is left allocated (%ld)", alloc_live);
}

static void test_hostile_headers(void)
{
	static const struct {
		int major;
		const char *header;
		size_t data;
		const char *want; /* a part of the message */
	} cases[] = {
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 4, "needs 8 bytes of data, the file has 4"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 12, "needs 8 bytes of data, the file has 12"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000000), }", 8,
		 "shape (100000, 100000000) of float32 needs 40000000000000 bytes of data, the file has 8"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000, 100000000000), }", 8,
		 "over 2^53 elements"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 8, "a dim over 2^53"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", 0, "negative dim"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", 8, "is not a tuple"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,,), }", 8, "expected a dim"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3), }", 24, "expected ',' or ')'"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': [2], }", 8, "expected a shape tuple"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (02,), }", 8, "leading zero"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2.0,), }", 8, "expected ',' or ')'"},
		{1, "{'descr': '<f4', 'fortran_order': False, }", 4, "no 'shape'"},
		{1, "{'fortran_order': False, 'shape': (1,), }", 4, "no 'descr'"},
		{1, "{'descr': '<f4', 'shape': (1,), }", 4, "no 'fortran_order'"},
		{1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 4, "'descr' given twice"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1, }", 4, "unknown key 'extra'"},
		{1, "{'descr': '<f4', 'fortran_order': false, 'shape': (1,), }", 4, "True or False"},
		{1, "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (1,), }", 4, "True or False"},
		{1, "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }", 4, "True or False"},
		{1, "{'descr': '<f4' 'fortran_order': False, 'shape': (1,), }", 4, "expected ',' or '}'"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } x", 4, "text after the closing"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), ", 4, "expected a quoted string at the end"},
		{1, "['descr', '<f4']", 4, "expected '{'"},
		{1, "", 4, "expected '{' at the end of the header"},
		{1, "{'descr: '<f4', 'fortran_order': False, 'shape': (1,), }", 4, "expected ':'"},
		{1, "{'descr': '<f4\\x', 'fortran_order': False, 'shape': (1,), }", 4, "escape"},
		{1, "{'descr': 'f4', 'fortran_order': False, 'shape': (1,), }", 4, "byte order"},
		{1, "{'descr': '<f', 'fortran_order': False, 'shape': (1,), }", 4, "not a numpy type"},
		{1, "{'descr': '<f04', 'fortran_order': False, 'shape': (1,), }", 4, "not a numpy type"},
		{1, "{'descr': '<f4x', 'fortran_order': False, 'shape': (1,), }", 4, "not a numpy type"},
		{1, "{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }", 16, "long double"},
		{1, "{'descr': '|f4', 'fortran_order': False, 'shape': (1,), }", 4, "one-byte types"},
		{1, "{'descr': '<V2', 'fortran_order': False, 'shape': (1,), }", 2, "no bfloat16"},
		{1, "{'descr': 'bfloat16', 'fortran_order': False, 'shape': (1,), }", 2, "no bfloat16"},
		{1, "{'descr': '|O8', 'fortran_order': False, 'shape': (1,), }", 8, "pickled"},
		{1, "{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }", 12, "strings are not read"},
		{1, "{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (1,), }", 8, "dates"},
		{1, "{'descr': '|V4', 'fortran_order': False, 'shape': (1,), }", 4, "numpy void"},
		{1, "{'descr': '<b2', 'fortran_order': False, 'shape': (1,), }", 2, "has no ONNX type"},
		{1, "{'descr': '<x4', 'fortran_order': False, 'shape': (1,), }", 4, "has no ONNX type"},
		{1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", 4, "structured dtype"},
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
		    "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1), }", 4,
		 "more than 64 dims"},
		{2, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 4, NULL}, /* the control: it reads */
		{4, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 4, "version 4.0"},
	};
	uint8_t b[8192], zeros[64] = {0};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		Onnx__TensorProto *t = NULL;
		struct ov_error e = {0};
		alloc_limit = 1 << 20;
		size_t n = npy(b, cases[i].major, cases[i].header, 1, zeros, cases[i].data);
		int rc = read_npy(b, n, &t, &e);
		if (!cases[i].want)
			OK(rc == 0, "control: %s reads (%s)", cases[i].header, e.msg);
		else
			OK(rc == -1 && !t && strstr(e.msg, cases[i].want) && !strncmp(e.msg, "t.npy: ", 7),
			   "refused: %.60s -> %s", cases[i].header, e.msg);
		tensorfile_free(t, &lim);
	}
	alloc_limit = (size_t)-1;

	/* Damage in the preamble. */
	Onnx__TensorProto *t = NULL;
	struct ov_error e = {0};
	size_t n = npy(b, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 1, zeros, 4);
	b[1] = 'n';
	OK(read_npy(b, n, &t, &e) == -1 && strstr(e.msg, "not a .npy file"), "bad magic: %s", e.msg);
	b[1] = 'N';
	b[7] = 1;
	OK(read_npy(b, n, &t, &e) == -1 && strstr(e.msg, "version 1.1"), "minor version 1: %s", e.msg);
	b[7] = 0;
	b[8] = 0xff, b[9] = 0x7f;
	OK(read_npy(b, n, &t, &e) == -1 && strstr(e.msg, "truncated"), "header length past the end: %s", e.msg);
	OK(read_npy(b, 9, &t, &e) == -1 && strstr(e.msg, "truncated .npy file: 9 bytes"), "9 bytes: %s", e.msg);
	OK(read_npy(b, 5, &t, &e) == -1 && strstr(e.msg, "not a .npy file"), "5 bytes: %s", e.msg);
	n = npy(b, 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 1, zeros, 4);
	b[11] = 0x10;
	OK(read_npy(b, n, &t, &e) == -1 && strstr(e.msg, "over onnxview's limit"), "a 256 MiB header: %s", e.msg);
	OK(read_npy(b, 11, &t, &e) == -1 && strstr(e.msg, "truncated"), "a version 2 preamble cut short: %s", e.msg);
	n = npy(b, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 1, zeros, 4);
	b[20] = '\0';
	OK(read_npy(b, n, &t, &e) == -1 && strstr(e.msg, "NUL"), "a NUL in the header: %s", e.msg);
	OK(alloc_max_seen < (1 << 20), "no hostile size led to a large allocation (largest %zu bytes)", alloc_max_seen);
	OK(alloc_live == 0, "refusals leak nothing (%ld)", alloc_live);
}

/* ---- .pb ---- */

static size_t pack_tensor(const Onnx__TensorProto *t, uint8_t *out)
{
	return protobuf_c_message_pack(&t->base, out);
}

static int read_pb(const uint8_t *b, size_t n, Onnx__TensorProto **t, struct ov_error *e)
{
	return tensorfile_read_buffer(b, n, TENSORFILE_PB, "t.pb", &lim, t, e);
}

static void test_pb(void)
{
	static uint8_t b[1 << 16];
	Onnx__TensorProto src = ONNX__TENSOR_PROTO__INIT, *t = NULL;
	struct ov_error e = {0};
	int64_t dims[] = {2, 2};
	float fl[] = {1, 2, 3, 4};
	size_t n;

	src.n_dims = 2, src.dims = dims;
	src.has_data_type = 1, src.data_type = OV_DT_FLOAT;
	src.n_float_data = 4, src.float_data = fl;
	src.name = "input_0";
	n = pack_tensor(&src, b);
	OK(read_pb(b, n, &t, &e) == 0 && t->has_raw_data && t->raw_data.len == 16 && !memcmp(t->raw_data.data, fl, 16) &&
	   t->n_float_data == 0 && !t->name, "float_data becomes raw_data, the name is dropped (%s)", e.msg);
	tensorfile_free(t, &lim);

	int32_t halves[] = {0x3c00, 0xc000, 0x7bff, 0};
	src.data_type = OV_DT_FLOAT16, src.n_float_data = 0, src.float_data = NULL;
	src.n_int32_data = 4, src.int32_data = halves;
	n = pack_tensor(&src, b);
	uint16_t h[4];
	OK(read_pb(b, n, &t, &e) == 0 && t->raw_data.len == 8 && (memcpy(h, t->raw_data.data, 8), 1) && h[0] == 0x3c00 &&
	   h[2] == 0x7bff, "float16 from int32_data (%s)", e.msg);
	tensorfile_free(t, &lim);

	int64_t i64[] = {-1, 0, INT64_MAX, 5};
	src.data_type = OV_DT_INT64, src.n_int32_data = 0, src.int32_data = NULL;
	src.n_int64_data = 4, src.int64_data = i64;
	n = pack_tensor(&src, b);
	OK(read_pb(b, n, &t, &e) == 0 && t->raw_data.len == 32 && !memcmp(t->raw_data.data, i64, 32), "int64_data");
	tensorfile_free(t, &lim);

	uint64_t u64[] = {1, 2, UINT32_MAX, 0};
	uint32_t u32[] = {1, 2, UINT32_MAX, 0};
	src.data_type = OV_DT_UINT32, src.n_int64_data = 0, src.int64_data = NULL;
	src.n_uint64_data = 4, src.uint64_data = u64;
	n = pack_tensor(&src, b);
	OK(read_pb(b, n, &t, &e) == 0 && t->raw_data.len == 16 && !memcmp(t->raw_data.data, u32, 16),
	   "uint32 from uint64_data");
	tensorfile_free(t, &lim);

	/* raw_data as is; a wrong size refused. */
	src.n_uint64_data = 0, src.uint64_data = NULL;
	src.data_type = OV_DT_FLOAT;
	src.has_raw_data = 1, src.raw_data.data = (uint8_t *)fl, src.raw_data.len = 16;
	n = pack_tensor(&src, b);
	OK(read_pb(b, n, &t, &e) == 0 && !memcmp(t->raw_data.data, fl, 16), "raw_data");
	tensorfile_free(t, &lim);
	src.raw_data.len = 12;
	n = pack_tensor(&src, b);
	OK(read_pb(b, n, &t, &e) == -1 && strstr(e.msg, "raw_data has 12 bytes, shape (2, 2) of float32 needs 16"),
	   "raw_data of the wrong size: %s", e.msg);
	src.raw_data.len = 16;
	src.n_float_data = 4, src.float_data = fl;
	n = pack_tensor(&src, b);
	OK(read_pb(b, n, &t, &e) == -1 && strstr(e.msg, "both raw_data and a typed field"), "both: %s", e.msg);
	src.has_raw_data = 0;
	src.n_float_data = 3;
	n = pack_tensor(&src, b);
	OK(read_pb(b, n, &t, &e) == -1 && strstr(e.msg, "dims say 4 values, the typed field has 3"), "%s", e.msg);
	src.n_float_data = 0;
	n = pack_tensor(&src, b);
	OK(read_pb(b, n, &t, &e) == -1 && strstr(e.msg, "no data at all"), "no data: %s", e.msg);
	src.n_int64_data = 4, src.int64_data = i64;
	n = pack_tensor(&src, b);
	OK(read_pb(b, n, &t, &e) == -1 && strstr(e.msg, "typed field of another type"), "%s", e.msg);
	src.n_int64_data = 0, src.int64_data = NULL;

	/* Strings stay strings. */
	ProtobufCBinaryData strs[4] = {{1, (uint8_t *)"a"}, {0, NULL}, {3, (uint8_t *)"xyz"}, {1, (uint8_t *)"\n"}};
	src.data_type = OV_DT_STRING, src.n_string_data = 4, src.string_data = strs;
	n = pack_tensor(&src, b);
	OK(read_pb(b, n, &t, &e) == 0 && !t->has_raw_data && t->n_string_data == 4 && t->string_data[2].len == 3 &&
	   !memcmp(t->string_data[2].data, "xyz", 3), "string_data (%s)", e.msg);
	tensorfile_free(t, &lim);
	src.n_string_data = 0, src.string_data = NULL;

	/* External data, unknown dtype, negative dims, garbage. */
	Onnx__StringStringEntryProto loc = ONNX__STRING_STRING_ENTRY_PROTO__INIT, *locs[] = {&loc};
	loc.key = "location", loc.value = "w.bin";
	src.data_type = OV_DT_FLOAT;
	src.n_external_data = 1, src.external_data = locs;
	src.has_data_location = 1, src.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	n = pack_tensor(&src, b);
	OK(read_pb(b, n, &t, &e) == -1 && strstr(e.msg, "external file ('w.bin')"), "external data: %s", e.msg);
	src.n_external_data = 0, src.has_data_location = 0;
	src.data_type = 99; /* a type of a newer onnx.proto: refused as such, never as a broken file */
	n = pack_tensor(&src, b);
	OK(read_pb(b, n, &t, &e) == -1 && strstr(e.msg, "element type 99 is newer than the types onnxview knows") &&
	   e.code == OV_INVALID, "%s", e.msg);
	src.data_type = -3;
	n = pack_tensor(&src, b);
	OK(read_pb(b, n, &t, &e) == -1 && strstr(e.msg, "unknown data_type -3") && e.code == OV_FORMAT, "%s", e.msg);
	src.data_type = OV_DT_FLOAT;
	dims[0] = -2;
	n = pack_tensor(&src, b);
	OK(read_pb(b, n, &t, &e) == -1 && strstr(e.msg, "negative"), "negative dim: %s", e.msg);
	dims[0] = 1ll << 40, dims[1] = 1ll << 40;
	src.n_float_data = 1, src.float_data = fl;
	n = pack_tensor(&src, b);
	OK(read_pb(b, n, &t, &e) == -1 && strstr(e.msg, "overflow"), "giant dims: %s", e.msg);
	OK(read_pb((const uint8_t *)"\xff\xff\xff", 3, &t, &e) == -1 && strstr(e.msg, "t.pb: not an ONNX TensorProto"),
	   "garbage: %s", e.msg);
	OK(read_pb((const uint8_t *)"", 0, &t, &e) == -1 && strstr(e.msg, "no data_type (not"), "empty: %s", e.msg);
	OK(alloc_live == 0, ".pb refusals leak nothing (%ld)", alloc_live);
}

/* ---- files ---- */

static void test_files(void)
{
	char path[512];
	Onnx__TensorProto *t = NULL;
	struct ov_error e = {0};
	int64_t dims[] = {3};
	int32_t v[] = {7, 8, 9};

	snprintf(path, sizeof path, "%s/a.npy", tmpdir);
	OK(tensorfile_write_npy(path, 0, OV_DT_INT32, dims, 1, v, &e) == 0, "write a.npy (%s)", e.msg);
	OK(tensorfile_write_npy(path, 0, OV_DT_INT32, dims, 1, v, &e) == -1 && e.code == OV_EXISTS,
	   "an existing .npy is not replaced without OV_SAVE_REPLACE: %s", e.msg);
	OK(tensorfile_write_npy(path, OV_SAVE_REPLACE, OV_DT_INT32, dims, 1, v, &e) == 0, "... and is with it (%s)",
	   e.msg);
	{
		/* A symbolic link planted where a tensor is saved: never written through (run --save DIR). */
		char victim[512], link[512];
		snprintf(victim, sizeof victim, "%s/victim", tmpdir);
		snprintf(link, sizeof link, "%s/planted.npy", tmpdir);
		FILE *vf = fopen(victim, "w");
		fputs("precious", vf);
		fclose(vf);
		OK(symlink(victim, link) == 0, "plant a symbolic link");
		OK(tensorfile_write_npy(link, OV_SAVE_NOFOLLOW, OV_DT_INT32, dims, 1, v, &e) == -1 && e.code == OV_EXISTS,
		   "NOFOLLOW: the link counts as an existing file: %s", e.msg);
		OK(tensorfile_write_npy(link, OV_SAVE_NOFOLLOW | OV_SAVE_REPLACE, OV_DT_INT32, dims, 1, v, &e) == 0,
		   "NOFOLLOW | REPLACE: saved (%s)", e.msg);
		struct stat st;
		char buf[16] = {0};
		vf = fopen(victim, "r");
		OK(vf && fread(buf, 1, sizeof buf - 1, vf) == 8 && !strcmp(buf, "precious") && lstat(link, &st) == 0 &&
		   S_ISREG(st.st_mode), "... the link itself was replaced by the file, its target is untouched");
		if (vf)
			fclose(vf);
		unlink(victim);
		unlink(link);
	}
	OK(tensorfile_read(path, NULL, &t, &e) == 0 && t->data_type == OV_DT_INT32 && !memcmp(t->raw_data.data, v, 12),
	   "and read it back with the default allocator (%s)", e.msg);
	tensorfile_free(t, NULL);
	char other[512];
	snprintf(other, sizeof other, "%s/a.bin", tmpdir);
	OK(rename(path, other) == 0 && tensorfile_read(other, NULL, &t, &e) == 0, "a .npy file is known by its magic, "
	   "whatever its name");
	tensorfile_free(t, NULL);
	FILE *f = fopen(other, "w");
	fputs("hello", f);
	fclose(f);
	OK(tensorfile_read(other, NULL, &t, &e) == -1 && strstr(e.msg, "not a tensor file onnxview knows") &&
	   e.code == OV_USAGE, "an unknown kind of file: %s", e.msg);
	snprintf(path, sizeof path, "%s/empty.npy", tmpdir);
	fclose(fopen(path, "w"));
	OK(tensorfile_read(path, NULL, &t, &e) == -1 && strstr(e.msg, "empty.npy: empty file"), "%s", e.msg);
	unlink(path);
	snprintf(path, sizeof path, "%s/missing.npy", tmpdir);
	OK(tensorfile_read(path, NULL, &t, &e) == -1 && strstr(e.msg, "cannot open") && e.code == OV_IO, "%s", e.msg);
	OK(tensorfile_read(tmpdir, NULL, &t, &e) == -1 && strstr(e.msg, "not a regular file"), "a folder: %s", e.msg);
	snprintf(path, sizeof path, "%s/no/such/dir/x.npy", tmpdir);
	OK(tensorfile_write_npy(path, 0, OV_DT_INT32, dims, 1, v, &e) == -1 && strstr(e.msg, "No such file"),
	   "writing into a missing folder: %s", e.msg);
	unlink(other);

	/* From a tensor view with typed data. */
	Onnx__TensorProto src = ONNX__TENSOR_PROTO__INIT;
	float fl[] = {0.5f, -1};
	int64_t d2[] = {2};
	src.n_dims = 1, src.dims = d2, src.has_data_type = 1, src.data_type = OV_DT_FLOAT;
	src.n_float_data = 2, src.float_data = fl;
	struct tensor_view tv = {OV_DT_FLOAT, 2, NULL, &src};
	snprintf(path, sizeof path, "%s/view.npy", tmpdir);
	OK(tensorfile_write_npy_view(path, 0, &tv, &e) == 0 && tensorfile_read(path, NULL, &t, &e) == 0 &&
	   !memcmp(t->raw_data.data, fl, 8), "write from a view of float_data (%s)", e.msg);
	tensorfile_free(t, NULL);
	unlink(path);
}

/* ---- float16 / bfloat16 rounding ---- */

static void test_rounding(void)
{
	int over;

	OK(ov_f64_to_f16_checked(1.0, &over) == 0x3c00 && !over, "half 1.0");
	OK(ov_f64_to_f16_checked(-2.0, &over) == 0xc000, "half -2.0");
	OK(ov_f64_to_f16_checked(65504, &over) == 0x7bff && !over, "half 65504 is the largest");
	OK(ov_f64_to_f16_checked(65519.99, &over) == 0x7bff && !over, "half 65519.99 rounds down to 65504");
	ov_f64_to_f16_checked(65520, &over);
	OK(over, "half 65520 overflows");
	OK(ov_f64_to_f16_checked(ldexp(1, -24), &over) == 0x0001, "half smallest subnormal");
	OK(ov_f64_to_f16_checked(ldexp(1, -25), &over) == 0x0000, "half: 2^-25 ties to even (0)");
	OK(ov_f64_to_f16_checked(ldexp(3, -26), &over) == 0x0001, "half: 0.75 of the smallest subnormal rounds up");
	OK(ov_f64_to_f16_checked(ldexp(3, -25), &over) == 0x0002, "half: 1.5 subnormal units tie to even (2)");
	OK(ov_f64_to_f16_checked(ldexp(1023.5, -24), &over) == 0x0400, "half: the largest subnormal + half rounds to the "
	   "smallest normal");
	OK(ov_f64_to_f16_checked(1 + ldexp(1, -11), &over) == 0x3c00, "half: 1 + half an ulp ties to even");
	OK(ov_f64_to_f16_checked(1 + ldexp(3, -11), &over) == 0x3c02, "half: 1 + 1.5 ulp ties to even (up)");
	OK(ov_f64_to_f16_checked(1 + ldexp(1, -11) + ldexp(1, -40), &over) == 0x3c01,
	   "half: just above the tie rounds up (no double rounding through float)");
	OK(ov_f64_to_f16_checked(1e-30, &over) == 0 && ov_f64_to_f16_checked(-1e-30, &over) == 0x8000, "half underflow to "
	   "signed zero");
	OK(ov_f64_to_f16_checked(NAN, &over) == 0x7e00 && ov_f64_to_f16_checked(-INFINITY, &over) == 0xfc00 && !over,
	   "half nan and -inf");
	OK(ov_f64_to_f16_checked(0.1, &over) == 0x2e66, "half 0.1 is 0x2e66");
	OK(ov_f64_to_bf16_checked(1.0, &over) == 0x3f80, "bfloat16 1.0");
	OK(ov_f64_to_bf16_checked(1 + ldexp(1, -8), &over) == 0x3f80, "bfloat16: a tie goes to even");
	OK(ov_f64_to_bf16_checked(1 + ldexp(3, -8), &over) == 0x3f82, "bfloat16: a tie goes to even (up)");
	OK(ov_f64_to_bf16_checked(1 + ldexp(1, -8) + ldexp(1, -30), &over) == 0x3f81,
	   "bfloat16: just above a tie rounds up where float32 first would round to the tie");
	OK(ov_f64_to_bf16_checked(-3.0, &over) == 0xc040, "bfloat16 -3");
	ov_f64_to_bf16_checked(3.4e38, &over);
	OK(over, "bfloat16: 3.4e38 overflows (largest 3.3895e38)");
	OK(ov_f64_to_bf16_checked(NAN, &over) == 0x7fc0, "bfloat16 nan");
	OK(ov_f64_to_bf16_checked(ldexp(1, -133), &over) == 0x0001, "bfloat16 smallest subnormal");
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! cannot create a temporary folder\n");
		return 1;
	}
	test_numpy_bytes();
	test_roundtrip_every_dtype();
	test_read_variants();
	test_hostile_headers();
	test_pb();
	test_files();
	test_rounding();
	rmdir(tmpdir);
	return tap_done();
}
