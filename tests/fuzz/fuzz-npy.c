/* libFuzzer target for tensor files (src/model/tensorfile.c) and sequence files (src/exec/seqfile.c): the same bytes are
 * read as a .npy file, as a .pb TensorProto, and as a SequenceProto and an OptionalProto.  Whatever reads must be a
 * consistent tensor (raw_data exactly as long as its dtype and dims say), and a .npy tensor must survive the
 * writer: encode it, read that back, and get the same dtype, dims and bytes.
 *
 * Build with tests/fuzz/build.sh (BUILD_DIR/fuzz-npy); run with BUILD_DIR/fuzz-npy CORPUS_DIR, seeding the corpus
 * with files numpy.save writes (any dtype, order, version), ONNX test data (input_0.pb, also of the sequence and
 * optional tests: test_sequence_*, test_optional_*) and tests/fuzz/seqfile/*.pb.  A sequence or optional read must
 * hold tensors whose sizes agree with their dims (an optional at most one value), and a refusal must leave nothing
 * behind and name the file. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/seqfile.h"
#include "src/model/model.h"
#include "src/model/tensorfile.h"

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz-npy: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

/* A tensor from a reader: its data must agree with its dtype and dims. */
static int64_t check_tensor(const Onnx__TensorProto *t)
{
	struct ov_error err;
	int64_t numel = tensor_numel(t, &err);

	if (numel < 0)
		fail("a tensor with bad dims was accepted", err.msg);
	if (t->name || t->n_float_data || t->n_int32_data || t->n_int64_data || t->n_double_data || t->n_uint64_data ||
	    t->n_external_data)
		fail("a reader left typed fields, a name or external data", NULL);
	if (t->data_type == OV_DT_STRING) {
		if (t->has_raw_data || (int64_t)t->n_string_data != numel)
			fail("a string tensor does not hold one string per element", NULL);
	} else if (!t->has_raw_data || (int64_t)t->raw_data.len != dtype_raw_bytes(t->data_type, numel)) {
		fail("raw_data does not match the dtype and dims", NULL);
	}
	if (t->data_type == OV_DT_BOOL)
		for (size_t i = 0; i < t->raw_data.len; i++)
			if (t->raw_data.data[i] > 1)
				fail("a bool other than 0 or 1", NULL);
	return numel;
}

/* A value read from a sequence or optional file: the kind asked for, tensors consistent with their dims. */
static void check_value(const struct xtensor *v, int kind, int depth)
{
	if (v->kind != kind || !v->data || v->numel < 0 || v->numel > XT_MAX_ITEMS || (kind == XT_OPTIONAL && v->numel > 1))
		fail("a sequence/optional read is not what was asked for", NULL);
	for (int64_t i = 0; i < v->numel; i++) {
		const struct xtensor *t = &xt_items(v)[i];
		if (t->kind == XT_SEQUENCE && kind == XT_OPTIONAL && depth == 0) {
			check_value(t, XT_SEQUENCE, 1);
			continue;
		}
		if (t->kind != XT_TENSOR || !t->data)
			fail("an item is not a tensor", NULL);
		int64_t n = 1;
		for (int d = 0; d < t->rank; d++)
			n *= t->dims[d];
		if (n != t->numel || (t->dtype != OV_DT_STRING && t->bytes != (size_t)dtype_raw_bytes(t->dtype, n)))
			fail("an item's size does not agree with its dims", NULL);
		if (kind == XT_SEQUENCE && t->dtype != xt_items(v)[0].dtype)
			fail("a sequence holds two element types", NULL);
	}
}

static void fuzz_seqfile(const uint8_t *data, size_t size)
{
	for (int kind = XT_SEQUENCE; kind <= XT_OPTIONAL; kind++) {
		struct xtensor v;
		struct ov_error err;
		char *name = NULL;
		if (seqfile_read_buffer(data, size, kind, "fuzz.pb", &v, &name, &err) == 0) {
			check_value(&v, kind, 0);
			xt_free(&v);
			free(name);
			continue;
		}
		if (v.data || name)
			fail("a failed sequence/optional read left something behind", err.msg);
		if (!strstr(err.msg, "fuzz.pb: "))
			fail("a sequence/optional refusal does not name the file", err.msg);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Onnx__TensorProto *t = NULL, *back = NULL;
	struct ov_error err;
	uint8_t *buf = NULL;
	size_t len = 0;

	fuzz_seqfile(data, size);
	if (tensorfile_read_buffer(data, size, TENSORFILE_PB, "fuzz.pb", NULL, &t, &err) == 0) {
		check_tensor(t);
		tensorfile_free(t, NULL);
		t = NULL;
	} else if (t) {
		fail("a failed .pb read returned a tensor", err.msg);
	} else if (!strstr(err.msg, "fuzz.pb: ")) {
		fail("a .pb refusal does not name the file", err.msg);
	}

	if (tensorfile_read_buffer(data, size, TENSORFILE_NPY, "fuzz.npy", NULL, &t, &err)) {
		if (t)
			fail("a failed .npy read returned a tensor", err.msg);
		if (!strstr(err.msg, "fuzz.npy: "))
			fail("a .npy refusal does not name the file", err.msg);
		return 0;
	}
	check_tensor(t);
	if (!tensorfile_npy_descr(t->data_type))
		fail("a .npy read gave a dtype numpy has no name for", dtype_name(t->data_type));
	if (tensorfile_npy_encode(t->data_type, t->dims, t->n_dims, t->raw_data.data, &buf, &len, &err))
		fail("a tensor read from .npy cannot be written back", err.msg);
	if (tensorfile_read_buffer(buf, len, TENSORFILE_NPY, "again.npy", NULL, &back, &err))
		fail("the writer's .npy does not read", err.msg);
	if (back->data_type != t->data_type || back->n_dims != t->n_dims ||
	    (t->n_dims && memcmp(back->dims, t->dims, t->n_dims * sizeof *t->dims)) ||
	    back->raw_data.len != t->raw_data.len ||
	    (t->raw_data.len && memcmp(back->raw_data.data, t->raw_data.data, t->raw_data.len)))
		fail(".npy write then read does not give the same tensor", NULL);
	free(buf);
	tensorfile_free(back, NULL);
	tensorfile_free(t, NULL);
	return 0;
}
