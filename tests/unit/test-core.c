/* Unit tests of the core (links libovcore alone): element types, the wire pre-pass, loading from memory,
 * validation, escaping, JSON, maps, external data paths, saving with injected failures; files that change while
 * mapped, signals during a save, two-step saves, and the payloads undo keeps (issue 14). */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/base/codec.h"
#include "src/edit/edit.h"
#include "src/model/describe.h"
#include "src/base/dtype.h"
#include "src/base/json.h"
#include "src/model/model.h"
#include "src/model/save.h"
#include "src/model/snapshot.h"
#include "src/base/strbuf.h"
#include "src/base/strmap.h"
#include "src/model/wire.h"
#include "tests/unit/tap.h"

/* ---- a tiny protobuf writer to build models byte by byte ---- */
struct pb {
	uint8_t b[1 << 16];
	size_t n;
};

static void pb_varint(struct pb *p, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		p->b[p->n++] = c | (v ? 0x80 : 0);
	} while (v);
}

static void pb_tag(struct pb *p, int field, int wt) { pb_varint(p, (uint64_t)field << 3 | (uint64_t)wt); }
static void pb_int(struct pb *p, int field, uint64_t v) { pb_tag(p, field, 0); pb_varint(p, v); }

static void pb_bytes(struct pb *p, int field, const void *d, size_t n)
{
	pb_tag(p, field, 2);
	pb_varint(p, n);
	memcpy(p->b + p->n, d, n);
	p->n += n;
}

static void pb_str(struct pb *p, int field, const char *s) { pb_bytes(p, field, s, strlen(s)); }
static void pb_msg(struct pb *p, int field, const struct pb *m) { pb_bytes(p, field, m->b, m->n); }

/* TensorProto: float, dims, raw_data of nbytes (filled with a pattern). */
static void make_tensor(struct pb *t, const char *name, const int64_t *dims, int nd, size_t nbytes)
{
	static uint8_t data[8192];

	memset(t, 0, sizeof *t);
	for (int i = 0; i < nd; i++)
		pb_int(t, 1, (uint64_t)dims[i]);
	pb_int(t, 2, OV_DT_FLOAT);
	pb_str(t, 8, name);
	for (size_t i = 0; i < nbytes && i < sizeof data; i++)
		data[i] = (uint8_t)(i * 7);
	pb_bytes(t, 9, data, nbytes);
}

/* ModelProto { ir_version 8, opset 13, graph { initializer t, one Identity node } } */
static void make_model(struct pb *m, const struct pb *tensor)
{
	static struct pb g, node, opset;

	memset(&g, 0, sizeof g);
	memset(&node, 0, sizeof node);
	memset(&opset, 0, sizeof opset);
	memset(m, 0, sizeof *m);
	pb_str(&node, 1, "w");
	pb_str(&node, 2, "y");
	pb_str(&node, 4, "Identity");
	pb_msg(&g, 1, &node);
	pb_str(&g, 2, "g");
	if (tensor)
		pb_msg(&g, 5, tensor);
	pb_int(m, 1, 8);
	pb_msg(m, 7, &g);
	pb_int(&opset, 2, 13);
	pb_msg(m, 8, &opset);
}

static int load(const struct pb *p, struct ov_model **m, struct ov_error *e)
{
	return model_load_buffer(m, p->b, p->n, "mem.onnx", e);
}

/* The small types' encoders against ml_dtypes' astype (what ONNX's reference and test data use), value for value:
 * NaN, -NaN, inf, -inf, 1e9, -1e9, -0, -1e-9, 7, 6.5, 5, 0.25, 0.2, 0.3. */
static void test_small_floats(void)
{
	static const float v[14] = {NAN, -NAN, INFINITY, -INFINITY, 1e9f, -1e9f, -0.0f, -1e-9f, 7, 6.5f, 5, 0.25f, 0.2f, 0.3f};
	static const struct {
		int32_t dt;
		uint8_t want[14];
	} rows[] = {
		{OV_DT_FLOAT8E4M3FN, {0x7f, 0xff, 0x7f, 0xff, 0x7f, 0xff, 0x80, 0x80, 0x4e, 0x4d, 0x4a, 0x28, 0x25, 0x2a}},
		{OV_DT_FLOAT8E4M3FNUZ, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 0, 0x56, 0x55, 0x52, 0x30, 0x2d, 0x32}},
		{OV_DT_FLOAT8E5M2, {0x7e, 0xfe, 0x7c, 0xfc, 0x7c, 0xfc, 0x80, 0x80, 0x47, 0x46, 0x45, 0x34, 0x32, 0x35}},
		{OV_DT_FLOAT8E5M2FNUZ, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 0, 0x4b, 0x4a, 0x49, 0x38, 0x36, 0x39}},
		/* NaN, which float4 and float6 cannot hold, is 0 here (ml_dtypes gives a zero of the other sign) */
		{OV_DT_FLOAT4E2M1, {0, 0, 0x7, 0xf, 0x7, 0xf, 0x8, 0x8, 0x7, 0x7, 0x6, 0x0, 0x0, 0x1}},
		{OV_DT_FLOAT6E2M3, {0, 0, 0x1f, 0x3f, 0x1f, 0x3f, 0x20, 0x20, 0x1e, 0x1d, 0x1a, 0x2, 0x2, 0x2}},
	};
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		int bad = -1;
		for (int i = 0; i < 14 && bad < 0; i++)
			if (ov_f32_to_small(v[i], rows[r].dt, 0) != rows[r].want[i])
				bad = i;
		OK(bad < 0, "%s: 14 values encode as ml_dtypes does (without saturation)%s", dtype_name(rows[r].dt),
		   bad < 0 ? "" : " -- one does not");
	}
	OK(ov_f32_to_small(INFINITY, OV_DT_FLOAT8E4M3FN, 1) == 0x7e && ov_f32_to_small(-1e9f, OV_DT_FLOAT8E5M2, 1) == 0xfb &&
	   ov_f32_to_small(INFINITY, OV_DT_FLOAT8E5M2FNUZ, 1) == 0x7f && isnan(ov_small_to_f32(0x7f, OV_DT_FLOAT8E4M3FN)),
	   "saturate: infinity and overflow become the largest finite value of their sign");
	OK(ov_f32_to_small(464, OV_DT_FLOAT8E4M3FN, 0) == 0x7e && ov_f32_to_small(465, OV_DT_FLOAT8E4M3FN, 0) == 0x7f,
	   "e4m3fn: 464 rounds to even (448), 465 over it is NaN without saturate");
	int round_trip = 1;
	for (int c = 0; c < 64; c++)
		round_trip &= ov_f32_to_small(ov_small_to_f32((uint8_t)c, OV_DT_FLOAT6E3M2), OV_DT_FLOAT6E3M2, 0) == c;
	OK(round_trip, "float6e3m2: every code decodes and encodes back to itself");
	OK(ov_small_to_f32(0x1f, OV_DT_FLOAT6E3M2) == 28 && ov_small_to_f32(0x1f, OV_DT_FLOAT6E2M3) == 7.5f &&
	   ov_small_to_f32(0x7, OV_DT_FLOAT4E2M1) == 6, "the largest float6e3m2, float6e2m3 and float4e2m1: 28, 7.5, 6");
	OK(ov_f32_to_e8m0(1.0f, 1, OV_E8M0_UP) == 127 && ov_f32_to_e8m0(1.5f, 1, OV_E8M0_UP) == 128 &&
	   ov_f32_to_e8m0(1.5f, 1, OV_E8M0_DOWN) == 127 && ov_f32_to_e8m0(1.5f, 1, OV_E8M0_NEAREST) == 128 &&
	   ov_f32_to_e8m0(-4.0f, 1, OV_E8M0_UP) == 129 && ov_f32_to_e8m0(NAN, 1, OV_E8M0_UP) == 255 &&
	   ov_f32_to_e8m0(3e38f, 1, OV_E8M0_UP) == 254 && ov_f32_to_e8m0(3e38f, 0, OV_E8M0_UP) == 255,
	   "float8e8m0: the exponent, rounded up, down or to nearest; saturate keeps 254 from becoming NaN");
	OK(ov_e8m0_to_f32(127) == 1.0f && ov_e8m0_to_f32(0) == ldexpf(1, -127) && isnan(ov_e8m0_to_f32(255)),
	   "float8e8m0 decodes to 2^(e-127), 255 is NaN");
	uint8_t packed[3] = {0};
	static const int8_t i4[5] = {1, -2, 7, -8, 0};
	for (int i = 0; i < 5; i++)
		ov_packed_put(packed, i, 4, (uint32_t)i4[i]);
	int same = packed[0] == 0xe1 && packed[1] == 0x87 && packed[2] == 0x00;
	for (int i = 0; i < 5; i++)
		same &= (int8_t)ov_packed_widen(ov_packed_get(packed, i, 4), OV_DT_INT4) == i4[i];
	OK(same, "int4: two a byte, the first in the low bits, sign-extended back");
	uint8_t p6[3] = {0};
	for (int i = 0; i < 4; i++)
		ov_packed_put(p6, i, 6, (uint32_t)(0x21 + i));
	OK(p6[0] == (0x21 | (0x22 & 3) << 6) && p6[1] == (0x22 >> 2 | (0x23 & 0xf) << 4) && p6[2] == (0x23 >> 4 | 0x24 << 2) &&
	   ov_packed_get(p6, 3, 6) == 0x24, "float6: four in three bytes, as onnx.proto lays them out");
	OK(ov_packed_int_wrap(8, OV_DT_INT4) == (uint8_t)-8 && ov_packed_int_wrap(-3, OV_DT_INT2) == 1 &&
	   ov_packed_int_wrap(5, OV_DT_UINT2) == 1, "casts to the packed integers wrap, as numpy's astype");
	OK(dtype_raw_bytes(OV_DT_FLOAT6E2M3, 5) == 4 && dtype_raw_bytes(OV_DT_INT2, 5) == 2 &&
	   dtype_typed_count(OV_DT_UINT2, 5) == 2, "raw and typed sizes of the 6- and 2-bit types");
	char why[160];
	OK(strstr(dtype_unknown_reason(29, why, sizeof why), "newer than the types onnxview knows") != NULL &&
	   !strcmp(dtype_name(OV_DT_FLOAT8E8M0), "FLOAT8E8M0") && dtype_parse("int2") == OV_DT_INT2,
	   "a type past FLOAT6E3M2 is named as newer; the new ones have names");
}

static void test_dtypes(void)
{
	IS_STR(dtype_name(OV_DT_FLOAT), "FLOAT", "dtype 1 is FLOAT");
	IS_STR(dtype_name(OV_DT_FLOAT8E5M2FNUZ), "FLOAT8E5M2FNUZ", "dtype 20 named although onnx 1.12 lacks it");
	IS_STR(dtype_short_name(OV_DT_INT4), "int4", "int4 short name");
	IS_STR(dtype_name(99), "dtype(99)", "unknown dtype named by number");
	OK(dtype_parse("f16") == OV_DT_FLOAT16 && dtype_parse("FLOAT") == OV_DT_FLOAT &&
	   dtype_parse("int64") == OV_DT_INT64 && dtype_parse("nope") == -1, "dtype_parse spellings");
	OK(dtype_raw_bytes(OV_DT_INT4, 5) == 3, "int4: 5 values pack into 3 bytes");
	OK(dtype_raw_bytes(OV_DT_COMPLEX128, 2) == 32, "complex128: 16 bytes each");
	OK(dtype_raw_bytes(OV_DT_STRING, 2) == -1, "strings have no raw size");
	OK(dtype_raw_bytes(OV_DT_DOUBLE, INT64_MAX / 4) == -1, "raw size overflow is detected");
	OK(dtype_typed_count(OV_DT_COMPLEX64, 3) == 6, "complex64 takes two floats per value");
	OK(ov_f16_to_f32(0x3c00) == 1.0f && ov_f16_to_f32(0xc000) == -2.0f, "float16 1 and -2");
	OK(isinf(ov_f16_to_f32(0x7c00)) && isnan(ov_f16_to_f32(0x7e00)), "float16 inf and nan");
	OK(ov_f16_to_f32(0x0001) == ldexpf(1, -24), "float16 smallest subnormal");
	OK(ov_bf16_to_f32(0x3f80) == 1.0f, "bfloat16 1");
	OK(ov_f8_to_f32(0x38, OV_DT_FLOAT8E4M3FN) == 1.0f, "float8 e4m3fn 1.0");
	OK(ov_f8_to_f32(0x7e, OV_DT_FLOAT8E4M3FN) == 448.0f, "float8 e4m3fn max 448");
	OK(isnan(ov_f8_to_f32(0x7f, OV_DT_FLOAT8E4M3FN)), "float8 e4m3fn nan");
	OK(isnan(ov_f8_to_f32(0x80, OV_DT_FLOAT8E4M3FNUZ)), "float8 e4m3fnuz nan is 0x80");
	OK(ov_f8_to_f32(0x3c, OV_DT_FLOAT8E5M2) == 1.0f, "float8 e5m2 1.0");
	OK(isinf(ov_f8_to_f32(0x7c, OV_DT_FLOAT8E5M2)), "float8 e5m2 inf");
	OK(ov_f8_to_f32(0x40, OV_DT_FLOAT8E5M2FNUZ) == 1.0f, "float8 e5m2fnuz 1.0 (bias 16)");
	test_small_floats();
}

static void test_load_and_lift(void)
{
	static struct pb t, m;
	struct ov_model *model;
	struct ov_error e = {0};
	int64_t dims[] = {4, 512};

	make_tensor(&t, "w", dims, 2, 4 * 512 * 4);
	make_model(&m, &t);
	OK(load(&m, &model, &e) == 0, "a well-formed model with an 8 KiB initializer loads (%s)", e.msg);
	if (!model)
		return;
	Onnx__TensorProto *w = model->proto->graph->initializer[0];
	OK(model->n_lifted == 1, "its raw_data stays in the file's bytes (lifted %zu)", model->n_lifted);
	OK(w->raw_data.data >= model->map && w->raw_data.data < model->map + model->map_len,
	   "raw_data points into the mapping");
	OK(w->raw_data.len == 8192 && w->raw_data.data[1] == 7, "raw_data has the right length and bytes");
	uint8_t *buf;
	size_t len;
	OK(model_pack(model, &buf, &len, &e) == 0 && len == m.n && memcmp(buf, m.b, len) == 0,
	   "packing reproduces the input byte for byte");
	free(buf);
	model_free(model);

	/* A small raw_data is simply copied. */
	int64_t d2[] = {2};
	make_tensor(&t, "w", d2, 1, 8);
	make_model(&m, &t);
	OK(load(&m, &model, &e) == 0 && model->n_lifted == 0, "a small initializer is unpacked normally");
	model_free(model);
}

/* Fields newer than the system's onnx.proto (here: ModelProto field 99, NodeProto field 9, TensorProto field 16)
 * survive a round trip untouched. */
static void test_unknown_fields(void)
{
	static struct pb t, m;
	struct ov_model *model;
	struct ov_error e = {0};
	int64_t dims[] = {2};

	make_tensor(&t, "w", dims, 1, 8);
	pb_str(&t, 16, "tensor metadata from the future");
	make_model(&m, &t);
	pb_str(&m, 99, "a field onnx.proto does not know");
	pb_int(&m, 100, 12345);
	OK(load(&m, &model, &e) == 0, "a model with unknown fields loads (%s)", e.msg);
	if (!model)
		return;
	uint8_t *buf;
	size_t len;
	OK(model_pack(model, &buf, &len, &e) == 0 && len == m.n && !memcmp(buf, m.b, len),
	   "unknown fields survive the round trip byte for byte");
	free(buf);
	model_free(model);
}

static void test_bad_models(void)
{
	static struct pb t, m;
	struct ov_model *model;
	struct ov_error e = {0};

	m.n = 0;
	pb_int(&m, 1, 8);
	OK(load(&m, &model, &e) == -1 && strstr(e.msg, "no graph") && e.code == OV_FORMAT, "no graph: %s", e.msg);

	int64_t neg[] = {-1, 4};
	make_tensor(&t, "w", neg, 2, 16);
	make_model(&m, &t);
	OK(load(&m, &model, &e) == -1 && !strcmp(e.msg, "initializer 'w': dim 0 is negative (-1)"),
	   "negative dim: %s", e.msg);

	int64_t big[] = {1ll << 40, 1ll << 40};
	make_tensor(&t, "w", big, 2, 16);
	make_model(&m, &t);
	OK(load(&m, &model, &e) == -1 && strstr(e.msg, "overflow"), "dims overflow: %s", e.msg);

	int64_t d[] = {2, 3};
	make_tensor(&t, "w", d, 2, 20);
	make_model(&m, &t);
	OK(load(&m, &model, &e) == -1 && strstr(e.msg, "raw_data has 20 bytes") && strstr(e.msg, "needs 24"),
	   "raw_data size mismatch: %s", e.msg);

	/* A huge raw_data that is also mis-sized must fail validation after being lifted. */
	int64_t d3[] = {1000};
	make_tensor(&t, "w", d3, 1, 5000);
	make_model(&m, &t);
	OK(load(&m, &model, &e) == -1 && strstr(e.msg, "raw_data has 5000 bytes"), "lifted raw_data is validated");

	/* Truncation at every byte of a valid model: always an error, never a crash. */
	make_tensor(&t, "w", d, 2, 24);
	make_model(&m, &t);
	int all = 1;
	for (size_t cut = 1; cut < m.n; cut++) {
		struct pb c = m;
		c.n = cut;
		if (load(&c, &model, &e) == 0) {
			model_free(model); /* a cut at a field boundary can be a valid, smaller message */
			continue;
		}
		if (e.code != OV_FORMAT || !*e.msg)
			all = 0;
	}
	OK(all, "every truncation of a model is refused as malformed or loads cleanly");

	/* Deep nesting: TypeProto.sequence_type.elem_type... 100 levels. */
	struct pb *levels = calloc(101, sizeof *levels);
	pb_int(&levels[0], 1, 1); /* TypeProto.Tensor.elem_type... placed as a TypeProto.Tensor */
	for (int i = 1; i <= 100; i++) {
		struct pb inner = {0};
		if (i % 2) {                      /* TypeProto { sequence_type = 4 } */
			pb_msg(&levels[i], 4, &levels[i - 1]);
		} else {                          /* TypeProto.Sequence { elem_type = 1 } */
			pb_msg(&levels[i], 1, &levels[i - 1]);
		}
		(void)inner;
	}
	struct pb vi = {0}, g = {0};
	pb_str(&vi, 1, "x");
	pb_msg(&vi, 2, &levels[99]);
	pb_msg(&g, 11, &vi);
	m.n = 0;
	pb_msg(&m, 7, &g);
	OK(load(&m, &model, &e) == -1 && e.code == OV_LIMIT && strstr(e.msg, "nested more than 64"),
	   "deep type nesting is refused: %s", e.msg);
	free(levels);

	/* Wire-level garbage. */
	m.n = 0;
	pb_tag(&m, 7, 2);
	m.b[m.n++] = 0xff; /* a varint that never ends */
	OK(load(&m, &model, &e) == -1 && strstr(e.msg, "length is cut off"), "unterminated length: %s", e.msg);
	m.n = 0;
	pb_tag(&m, 7, 0); /* graph as a varint */
	pb_varint(&m, 5);
	OK(load(&m, &model, &e) == -1 && strstr(e.msg, "should hold a message"), "wrong wire type: %s", e.msg);
	m.n = 0;
	pb_tag(&m, 3, 2); /* producer_version as string, fine; then field 0 */
	pb_varint(&m, 0);
	m.b[m.n++] = 0x00;
	OK(load(&m, &model, &e) == -1 && strstr(e.msg, "invalid field number 0"), "field number 0: %s", e.msg);
}

static void test_wire_placeholder(void)
{
	struct wire_prep prep = {0};
	uint8_t fake[16];

	prep.nonce = 0x1122334455667788ull;
	prep.n_payloads = 2;
	memcpy(fake, &prep.nonce, 8);
	uint64_t idx = 1;
	memcpy(fake + 8, &idx, 8);
	OK(wire_payload_match(&prep, fake, 16) == 1, "a placeholder is recognised");
	idx = 2;
	memcpy(fake + 8, &idx, 8);
	OK(wire_payload_match(&prep, fake, 16) == -1, "an out-of-range placeholder index is not");
	OK(wire_payload_match(&prep, fake, 15) == -1, "nor data of another length");
	fake[0] ^= 1;
	OK(wire_payload_match(&prep, fake, 16) == -1, "nor data without the nonce");
}

static void test_strings(void)
{
	struct strbuf b = {0};

	strbuf_put_safe(&b, "a\x1b[2Jb\n\xff\xc3\xa9", 10, 0);
	IS_STR(strbuf_str(&b), "a\\x1b[2Jb\\n\\xff\xc3\xa9", "control bytes and bad UTF-8 are escaped, good UTF-8 kept");
	strbuf_reset(&b);
	strbuf_put_safe(&b, "abcdef", 6, 3);
	IS_STR(strbuf_str(&b), "abc...", "long strings are cut with ...");
	strbuf_reset(&b);
	strbuf_put_safe(&b, "\xc2\x9b", 2, 0); /* C1 control CSI encoded as UTF-8 */
	IS_STR(strbuf_str(&b), "\\xc2\\x9b", "C1 control characters are escaped too");
	strbuf_free(&b);

	struct json j;
	json_init(&j, &b, 0);
	json_obj(&j);
	json_kstr(&j, "a", "q\"\\\n\x01");
	json_key(&j, "n");
	json_arr(&j);
	json_int(&j, -3);
	json_double(&j, NAN);
	json_null(&j);
	json_end_arr(&j);
	json_key(&j, "e");
	json_obj(&j);
	json_end_obj(&j);
	json_end_obj(&j);
	IS_STR(strbuf_str(&b), "{\"a\":\"q\\\"\\\\\\n\\u0001\",\"n\":[-3,\"nan\",null],\"e\":{}}", "JSON writer");
	strbuf_free(&b);

	/* issue 14, 13: C1 and bidirectional controls never reach the terminal raw */
	json_init(&j, &b, 0);
	json_str(&j, "a\xc2\x9b" "31m\xe2\x80\xae" "b\xe2\x81\xa6" "c\xc3\xa9");
	IS_STR(strbuf_str(&b), "\"a\\u009b31m\\u202eb\\u2066c\xc3\xa9\"", "JSON writes C1 and bidi controls as \\uXXXX");
	strbuf_free(&b);
	strbuf_put_safe(&b, "x\xe2\x80\xaey\xe2\x80\x8fz\xd8\x9c", 11, 0);
	IS_STR(strbuf_str(&b), "x\\u202ey\\u200fz\\u061c", "text shows bidi controls as \\u202e instead of obeying them");
	strbuf_free(&b);
	const char *words[][2] = {
		{"input.1", "input.1"},
		{"in put", "\"in put\""},
		{"a'b\"c\\", "\"a\\x27b\\\"c\\\\\""},
		{"esc\x1b", "\"esc\\x1b\""},
		{"#3", "\"#3\""},
		{"\xc3\xa9t\xe2\x80\xae", "\"\xc3\xa9t\\xe2\\x80\\xae\""},
		{"", "\"\""},
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		strbuf_put_word(&b, words[i][0]);
		IS_STR(strbuf_str(&b), words[i][1], "name %zu as a command word", i);
		char **argv;
		struct ov_error e;
		int argc = edit_split(strbuf_str(&b), &argv, &e);
		OK(argc == 1 && !strcmp(argv[0], words[i][0]), "... which the command language reads back as the name");
		if (argc > 0)
			edit_free_words(argc, argv);
		strbuf_free(&b);
	}
	{
		char **argv;
		struct ov_error e;
		OK(edit_split("set-dim \"a\\x00b\" 0 1", &argv, &e) == -1 && strstr(e.msg, "NUL"),
		   "\\x00 is refused: a name cannot hold a NUL byte (%s)", e.msg);
	}

	struct strmap mp = {0};
	char keys[300][8];
	for (int i = 0; i < 300; i++) {
		snprintf(keys[i], sizeof keys[i], "k%d", i);
		strmap_put(&mp, keys[i], (void *)(intptr_t)(i + 1));
	}
	int good = 1;
	for (int i = 0; i < 300; i++)
		good &= (intptr_t)strmap_get(&mp, keys[i]) == i + 1;
	OK(good && mp.n == 300 && !strmap_has(&mp, "k300"), "strmap holds 300 keys through growth");
	strmap_add(&mp, "k5", (void *)1000);
	OK((intptr_t)strmap_get(&mp, "k5") == 6, "strmap_add keeps the first value");
	strmap_free(&mp);
}

/* ---- files ---- */

static char tmpdir[] = "/tmp/onnxview-unit.XXXXXX";

static int write_file(const char *path, const void *d, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(d, 1, n, f) == n;
	if (f)
		fclose(f);
	return ok ? 0 : -1;
}

static int count_temps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		if (strstr(e->d_name, ".onnxview-"))
			n++;
	if (d)
		closedir(d);
	return n;
}

static int file_equals(const char *path, const struct pb *p)
{
	static uint8_t buf[1 << 16];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;

	if (f)
		fclose(f);
	return f && n == p->n && !memcmp(buf, p->b, n);
}

static void test_save_faults(void)
{
	static struct pb t, m, other;
	struct ov_model *model;
	struct ov_error e = {0};
	char src[256], dst[256];
	int64_t dims[] = {4, 512};
	const char *steps[] = {"write", "fsync", "rename"};

	make_tensor(&t, "w", dims, 2, 8192);
	make_model(&m, &t);
	make_model(&other, NULL);
	snprintf(src, sizeof src, "%s/src.onnx", tmpdir);
	snprintf(dst, sizeof dst, "%s/dst.onnx", tmpdir);
	write_file(src, m.b, m.n);
	if (model_load(&model, src, &e)) {
		OK(0, "load for the save tests: %s", e.msg);
		return;
	}
	for (int i = 0; i < 3; i++) {
		/* Into a new file, then over an existing one with REPLACE: both must leave everything as it was. */
		unlink(dst);
		save_inject_fault(steps[i]);
		int r = model_save(model, dst, 0, &e);
		OK(r == -1 && access(dst, F_OK) != 0, "failed %s: no file appears (%s)", steps[i], e.msg);
		write_file(dst, other.b, other.n);
		r = model_save(model, dst, OV_SAVE_REPLACE, &e);
		OK(r == -1 && file_equals(dst, &other), "failed %s over an existing file: it keeps its bytes", steps[i]);
		OK(count_temps(tmpdir) == 0, "failed %s: the temporary file is removed", steps[i]);
		OK(e.code == OV_WRITE && *e.msg, "failed %s: reported as a write error: %s", steps[i], e.msg);
	}
	save_inject_fault(NULL);
	OK(model_save(model, dst, 0, &e) == -1 && e.code == OV_EXISTS, "an existing file needs REPLACE: %s", e.msg);
	OK(file_equals(dst, &other), "... and is untouched");
	OK(model_save(model, dst, OV_SAVE_REPLACE, &e) == 0 && file_equals(dst, &m), "REPLACE saves the model");
	OK(model_save(model, src, OV_SAVE_REPLACE, &e) == 0 && file_equals(src, &m),
	   "saving over the file the model is mapped from works (the old mapping stays valid)");
	OK(model->proto->graph->initializer[0]->raw_data.data[1] == 7, "the loaded model still reads its weights");
	model_free(model);
	unlink(src);
	unlink(dst);
}

static void test_external(void)
{
	static struct pb t, g, m, opset;
	struct ov_model *model;
	struct ov_error e = {0};
	char path[256], bin[256];
	uint8_t w[64];

	for (int i = 0; i < 64; i++)
		w[i] = (uint8_t)i;
	snprintf(bin, sizeof bin, "%s/w.bin", tmpdir);
	write_file(bin, w, sizeof w);
	const char *cases[][4] = {
		/* location, offset, length, expected error substring (NULL: loads) */
		{"w.bin", "16", "16", NULL},
		{"w.bin", "56", "16", "runs past the end"},
		{"/etc/hostname", "0", "16", "absolute path"},
		{"x/../w.bin", "0", "16", "climbs out"},
		{"missing.bin", "0", "16", "No such file"},
		{"w.bin", "1x", "16", "offset '1x' is not a number"},
		{"w.bin", "0", "20", "length is 20 bytes but its dtype and shape need 16"},
		{"", "0", "16", "location is empty"},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct pb kv;
		memset(&t, 0, sizeof t);
		pb_int(&t, 1, 4);
		pb_int(&t, 2, OV_DT_FLOAT);
		pb_str(&t, 8, "w");
		const char *keys[] = {"location", "offset", "length"};
		for (int k = 0; k < 3; k++) {
			memset(&kv, 0, sizeof kv);
			pb_str(&kv, 1, keys[k]);
			pb_str(&kv, 2, cases[c][k]);
			pb_msg(&t, 13, &kv);
		}
		pb_int(&t, 14, 1);
		memset(&g, 0, sizeof g);
		memset(&m, 0, sizeof m);
		memset(&opset, 0, sizeof opset);
		pb_msg(&g, 5, &t);
		pb_int(&m, 1, 8);
		pb_msg(&m, 7, &g);
		snprintf(path, sizeof path, "%s/ext.onnx", tmpdir);
		write_file(path, m.b, m.n);
		int r = model_load(&model, path, &e);
		if (!cases[c][3]) {
			OK(r == 0, "external '%s' at %s loads (%s)", cases[c][0], cases[c][1], r ? e.msg : "");
			if (r == 0) {
				const uint8_t *d;
				size_t n;
				OK(model_external_data(model, model->proto->graph->initializer[0], &d, &n, &e) == 0 &&
				   n == 16 && d[0] == 16 && d[15] == 31, "external bytes are read from the right range");
				model_free(model);
			}
		} else {
			OK(r == -1 && strstr(e.msg, cases[c][3]) && strstr(e.msg, "initializer 'w'"),
			   "external '%s' offset %s length %s refused: %s", cases[c][0], cases[c][1], cases[c][2],
			   e.msg);
		}
	}
	unlink(path);
	unlink(bin);
}

/* ---- issue 14: files that change under us, signals during a save, two-step saves, undo payloads ---- */

/* An external-data model in folder dir: tensor 'w' of 4 floats at offset 16 of w.bin (64 bytes). */
static void make_external(const char *dir, char *model_path, size_t n)
{
	static struct pb t, g, m, kv, opset;
	char bin[300];
	uint8_t w[64];
	const char *kvs[][2] = {{"location", "w.bin"}, {"offset", "16"}, {"length", "16"}};

	for (int i = 0; i < 64; i++)
		w[i] = (uint8_t)(i + 1);
	snprintf(bin, sizeof bin, "%s/w.bin", dir);
	write_file(bin, w, sizeof w);
	memset(&t, 0, sizeof t);
	pb_int(&t, 1, 4);
	pb_int(&t, 2, OV_DT_FLOAT);
	pb_str(&t, 8, "w");
	for (int k = 0; k < 3; k++) {
		memset(&kv, 0, sizeof kv);
		pb_str(&kv, 1, kvs[k][0]);
		pb_str(&kv, 2, kvs[k][1]);
		pb_msg(&t, 13, &kv);
	}
	pb_int(&t, 14, 1);
	memset(&g, 0, sizeof g);
	memset(&m, 0, sizeof m);
	memset(&opset, 0, sizeof opset);
	pb_msg(&g, 5, &t);
	pb_int(&m, 1, 8);
	pb_msg(&m, 7, &g);
	pb_int(&opset, 2, 13);
	pb_msg(&m, 8, &opset);
	snprintf(model_path, n, "%s/ext.onnx", dir);
	write_file(model_path, m.b, m.n);
}

/* 3: a model file truncated while mapped (torch.onnx.export rewriting it in place) is an error, never SIGBUS. */
static void test_mapping_changes(void)
{
	static struct pb t, m;
	struct ov_model *model;
	struct ov_error e = {0};
	char src[256], dst[256], dir[256], ext[300];
	int64_t dims[] = {2048};

	make_tensor(&t, "w", dims, 1, 8192);
	make_model(&m, &t);
	snprintf(src, sizeof src, "%s/shrink.onnx", tmpdir);
	snprintf(dst, sizeof dst, "%s/shrink-out.onnx", tmpdir);
	write_file(src, m.b, m.n);
	if (model_load(&model, src, &e)) {
		OK(0, "load for the mapping tests: %s", e.msg);
		return;
	}
	const volatile uint8_t *w = model->proto->graph->initializer[0]->raw_data.data;
	OK(model_check_unchanged(model, &e) == 0 && w[8000] == (uint8_t)(8000 * 7), "a fresh model is unchanged");
	OK(truncate(src, 64) == 0, "truncate the model file under its mapping");
	uint8_t sum = 0;
	for (size_t i = 0; i < 8192; i += 512)
		sum |= w[i]; /* pages past the new end: SIGBUS without the guard */
	OK(sum == 0, "reading the weights past the new end gives zeros, not SIGBUS");
	OK(model_check_unchanged(model, &e) == -1 && e.code == OV_IO && strstr(e.msg, "changed on disk while open"),
	   "... and the model says it changed: %s", e.msg);
	OK(model_save(model, dst, 0, &e) == -1 && access(dst, F_OK) != 0 && count_temps(tmpdir) == 0,
	   "a save refuses to write zeros for weights, and leaves nothing behind: %s", e.msg);
	model_free(model);

	/* rewritten in place with the same length: no fault, but the bytes a mapping shows are not the model's */
	write_file(src, m.b, m.n);
	OK(model_load(&model, src, &e) == 0, "load again");
	struct timespec old[2] = {{0, UTIME_OMIT}, {1000000000, 0}};
	OK(utimensat(AT_FDCWD, src, old, 0) == 0 && model_check_unchanged(model, &e) == -1,
	   "a file rewritten in place (a new modification time) counts as changed");
	model_free(model);

	/* replaced by a rename: the mapping of the old file is intact, nothing changed for us */
	OK(model_load(&model, src, &e) == 0, "load again");
	char other[300];
	snprintf(other, sizeof other, "%s.new", src);
	write_file(other, m.b, m.n);
	OK(rename(other, src) == 0 && model_check_unchanged(model, &e) == 0 && w != NULL,
	   "a file replaced by a rename leaves the model as it was");
	model_free(model);
	unlink(src);

	/* an external data file truncated while mapped (run --repeat) */
	snprintf(dir, sizeof dir, "%s/extdir", tmpdir);
	mkdir(dir, 0777);
	make_external(dir, src, sizeof src);
	snprintf(ext, sizeof ext, "%s/w.bin", dir);
	if (model_load(&model, src, &e)) {
		OK(0, "load the external model: %s", e.msg);
		return;
	}
	const uint8_t *d;
	size_t n;
	OK(model_external_data(model, model->proto->graph->initializer[0], &d, &n, &e) == 0 && d[0] == 17,
	   "external data read");
	OK(truncate(ext, 0) == 0, "truncate the external file under its mapping");
	OK(((const volatile uint8_t *)d)[3] == 0, "reading it gives zeros, not SIGBUS");
	OK(model_check_unchanged(model, &e) == -1 && strstr(e.msg, "external data") && strstr(e.msg, "w.bin"),
	   "... and the model names the external file that changed: %s", e.msg);
	model_free(model);
	unlink(ext);
	unlink(src);
	rmdir(dir);
}

/* 8: an external data file that shrinks between the plan and the copy fails the save, leaving nothing. */
static void test_external_copy_shrinks(void)
{
	struct ov_model *model;
	struct ov_error e = {0};
	struct save_pending *p;
	char a[256], b[256], src[300], dst[300], bin[300], copy[300];

	snprintf(a, sizeof a, "%s/a", tmpdir);
	snprintf(b, sizeof b, "%s/b", tmpdir);
	mkdir(a, 0777);
	mkdir(b, 0777);
	make_external(a, src, sizeof src);
	snprintf(bin, sizeof bin, "%s/w.bin", a);
	snprintf(dst, sizeof dst, "%s/out.onnx", b);
	snprintf(copy, sizeof copy, "%s/w.bin", b);
	if (model_load(&model, src, &e)) {
		OK(0, "load: %s", e.msg);
		return;
	}
	OK(model_save_prepare(model, dst, 0, &p, &e) == 0, "prepare a save to another folder (%s)", e.msg);
	OK(truncate(bin, 20) == 0, "the source of the external data shrinks to 20 bytes (the model needs 32)");
	OK(save_commit(p, &e) == -1 && strstr(e.msg, "needs 32"), "the commit refuses to copy it short: %s", e.msg);
	OK(access(dst, F_OK) != 0 && access(copy, F_OK) != 0 && count_temps(b) == 0,
	   "... and writes nothing: no model, no truncated copy, no temporary file");
	model_free(model);
	unlink(bin);
	unlink(src);
	rmdir(a);
	rmdir(b);
}

static int raise_in_writer(int fd, void *ctx, struct ov_error *err)
{
	(void)fd, (void)err;
	raise(*(int *)ctx);
	return 0;
}

/* 11: SIGINT, SIGTERM and SIGHUP during a save remove its temporary file, and end the program as they would. */
static void test_signal_cleanup(void)
{
	const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	char dir[256], path[300];

	snprintf(dir, sizeof dir, "%s/sig", tmpdir);
	mkdir(dir, 0777);
	snprintf(path, sizeof path, "%s/out.bin", dir);
	for (int i = 0; i < 3; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			struct ov_error e;
			int sig = sigs[i];
			save_file(path, 0, raise_in_writer, &sig, &e);
			_exit(0);
		}
		int st = 0;
		waitpid(pid, &st, 0);
		OK(WIFSIGNALED(st) && WTERMSIG(st) == sigs[i], "signal %d during a save ends the program with it", sigs[i]);
		OK(count_temps(dir) == 0 && access(path, F_OK) != 0, "... after removing the temporary file");
	}
	struct ov_error e;
	struct sigaction sa;
	OK(save_buffer(path, 0, "x", 1, &e) == 0 && sigaction(SIGTERM, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL,
	   "after a save the signals are as they were");
	unlink(path);

	/* a full disk while writing a journal or a tensor file: nothing appears, what was there stays (issue 14, 4/5) */
	OK(save_buffer(path, 0, "old", 3, &e) == 0, "write a file");
	save_inject_fault("write");
	OK(save_buffer(path, OV_SAVE_REPLACE, "new journal", 11, &e) == -1 && strstr(e.msg, "No space left"),
	   "a full disk fails the write: %s", e.msg);
	save_inject_fault(NULL);
	{
		char buf[8] = {0};
		FILE *f = fopen(path, "r");
		OK(f && fread(buf, 1, sizeof buf - 1, f) == 3 && !strcmp(buf, "old") && count_temps(dir) == 0,
		   "... the file that was there keeps its bytes, and no temporary file is left");
		if (f)
			fclose(f);
	}
	unlink(path);

	/* the two steps: a discarded save leaves nothing, a committed one its file */
	struct save_pending *p;
	OK(save_prepare_buffer(path, 0, "abc", 3, &p, &e) == 0 && count_temps(dir) == 1 && access(path, F_OK) != 0,
	   "a prepared save holds a temporary file, not the file");
	save_discard(p);
	OK(count_temps(dir) == 0 && access(path, F_OK) != 0, "a discarded one leaves nothing");
	OK(save_prepare_buffer(path, 0, "abc", 3, &p, &e) == 0 && save_commit(p, &e) == 0 && access(path, F_OK) == 0 &&
	   count_temps(dir) == 0, "a committed one leaves its file");
	unlink(path);
	rmdir(dir);
}

/* 14: undo keeps the payloads set-tensor replaced only as long as a snapshot refers to them. */
static void test_undo_payloads(void)
{
	static struct pb t, m;
	struct ov_model *model;
	struct edit_session *s;
	struct ov_error e = {0};
	int64_t dims[] = {2048};
	struct strbuf cmd = {0};

	make_tensor(&t, "w", dims, 1, 8192);
	make_model(&m, &t);
	if (load(&m, &model, &e) || edit_session_open(&s, model, &e)) {
		OK(0, "load for the undo tests: %s", e.msg);
		return;
	}
	for (int v = 1; v <= 3; v++) {
		strbuf_reset(&cmd);
		strbuf_puts(&cmd, "set-tensor w [");
		for (int i = 0; i < 2048; i++)
			strbuf_printf(&cmd, "%s%d", i ? "," : "", v);
		strbuf_puts(&cmd, "]");
		OK(edit_run(s, strbuf_str(&cmd), &e) == 0, "set-tensor %d (%s)", v, e.msg);
	}
	/* the file's own bytes need no keeping; the first two replacements are kept for undo */
	OK(model_retained_bytes(model) == 2 * 8192, "undo keeps the two replaced payloads: %llu bytes",
	   (unsigned long long)model_retained_bytes(model));
	OK(edit_undo(s, &e) == 0 && model_retained_bytes(model) == 2 * 8192,
	   "undo puts one back and keeps the one it replaced for redo: %llu", (unsigned long long)model_retained_bytes(model));
	edit_session_free(s);
	OK(model_retained_bytes(model) == 0, "with the history gone, nothing is kept for it: %llu",
	   (unsigned long long)model_retained_bytes(model));
	model_free(model);
	strbuf_free(&cmd);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! cannot create a temporary folder\n");
		return 1;
	}
	test_dtypes();
	test_load_and_lift();
	test_unknown_fields();
	test_bad_models();
	test_wire_placeholder();
	test_strings();
	test_save_faults();
	test_external();
	test_mapping_changes();
	test_external_copy_shrinks();
	test_signal_cleanup();
	test_undo_payloads();
	rmdir(tmpdir);
	return tap_done();
}
