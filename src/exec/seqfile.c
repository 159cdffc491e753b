/* SequenceProto and OptionalProto files read by hand from the protobuf wire format (see seqfile.h). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "src/base/dtype.h"
#include "src/exec/exec.h"
#include "src/exec/seqfile.h"
#include "src/model/tensorfile.h"

#define SEQFILE_MAX_BYTES ((size_t)1 << 31) /* protobuf's own limit for one message */

/* onnx-data.proto's field numbers (the same in both messages) and its DataType enum. */
enum { F_NAME = 1, F_ELEM_TYPE = 2, F_TENSOR = 3, F_SPARSE = 4, F_SEQUENCE = 5, F_MAP = 6, F_OPTIONAL = 7 };
enum { ELEM_UNDEFINED = 0, ELEM_TENSOR = 1, ELEM_SPARSE = 2, ELEM_SEQUENCE = 3, ELEM_MAP = 4, ELEM_OPTIONAL = 5 };

struct field {
	uint32_t num;
	int wire;
	uint64_t v;          /* a varint's value */
	const uint8_t *p;    /* a length-delimited field's bytes */
	size_t len;
};

static int read_varint(const uint8_t *d, size_t len, size_t *pos, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		if (*pos >= len)
			return -1;
		uint8_t b = d[(*pos)++];
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* The next field at *pos: 0, 1 at the end, -1 with err (naming the byte where it starts). */
static int next_field(const uint8_t *d, size_t len, size_t *pos, struct field *f, struct ov_error *err)
{
	size_t at = *pos;
	uint64_t key;

	if (*pos >= len)
		return 1;
	if (read_varint(d, len, pos, &key))
		return ov_fail(err, OV_FORMAT, "byte %zu: a field key runs past the end", at);
	f->num = (uint32_t)(key >> 3);
	f->wire = (int)(key & 7);
	if (key >> 3 == 0 || key >> 3 > 0x1fffffff)
		return ov_fail(err, OV_FORMAT, "byte %zu: field number %" PRIu64 " is not valid", at, key >> 3);
	switch (f->wire) {
	case 0:
		if (read_varint(d, len, pos, &f->v))
			return ov_fail(err, OV_FORMAT, "byte %zu: field %" PRIu32 "'s number runs past the end", at, f->num);
		return 0;
	case 1:
	case 5: {
		size_t w = f->wire == 1 ? 8 : 4;
		if (len - *pos < w)
			return ov_fail(err, OV_FORMAT, "byte %zu: field %" PRIu32 " runs past the end", at, f->num);
		*pos += w;
		return 0;
	}
	case 2: {
		uint64_t n;
		if (read_varint(d, len, pos, &n))
			return ov_fail(err, OV_FORMAT, "byte %zu: field %" PRIu32 "'s length runs past the end", at, f->num);
		if (n > len - *pos)
			return ov_fail(err, OV_FORMAT, "byte %zu: field %" PRIu32 " says %" PRIu64 " bytes, %zu are left", at,
				       f->num, n, len - *pos);
		f->p = d + *pos;
		f->len = (size_t)n;
		*pos += (size_t)n;
		return 0;
	}
	default:
		return ov_fail(err, OV_FORMAT, "byte %zu: field %" PRIu32 " has wire type %d, which onnxview does not "
			       "read", at, f->num, f->wire);
	}
}

/* Fields 1 to 7 with their wire types (a name; elem_type; the values): anything else is refused, which also
 * catches a TensorProto file given for a sequence (its raw_data is field 9). */
static int check_field(const struct field *f, size_t at, const char *msg, struct ov_error *err)
{
	if (f->num > F_OPTIONAL)
		return ov_fail(err, OV_FORMAT, "byte %zu: field %" PRIu32 " is no field of a %s (a TensorProto file?)", at,
			       f->num, msg);
	if (f->wire != (f->num == F_ELEM_TYPE ? 0 : 2))
		return ov_fail(err, OV_FORMAT, "byte %zu: field %" PRIu32 " has wire type %d where %s has %d", at, f->num,
			       f->wire, msg, f->num == F_ELEM_TYPE ? 0 : 2);
	return 0;
}

static const char *elem_name(uint64_t e)
{
	static const char *const names[] = {"undefined", "tensors", "sparse tensors", "sequences", "maps", "optionals"};
	return e < sizeof names / sizeof names[0] ? names[e] : "an unknown type";
}

/* One TensorProto's bytes as an xtensor. */
static int read_tensor(const struct field *f, struct xtensor *t, struct ov_error *err)
{
	Onnx__TensorProto *tp = NULL;

	if (tensorfile_read_buffer(f->p, f->len, TENSORFILE_PB, "TensorProto", NULL, &tp, err))
		return -1;
	int rc = exec_tensor_from_proto(NULL, tp, t, err);
	tensorfile_free(tp, NULL);
	return rc;
}

static int read_message(const uint8_t *d, size_t len, int kind, struct xtensor *out, char **pb_name, int depth,
			struct ov_error *err);

/* A SequenceProto of tensors. */
static int read_sequence(const uint8_t *d, size_t len, struct xtensor *out, char **pb_name, struct ov_error *err)
{
	size_t pos = 0, at;
	struct field f;
	int64_t n = 0;
	uint64_t elem = ELEM_UNDEFINED;
	int r;

	/* first the shape of it: how many tensors, and nothing we cannot hold */
	while (at = pos, (r = next_field(d, len, &pos, &f, err)) == 0) {
		if (check_field(&f, at, "a SequenceProto", err))
			return -1;
		if (f.num == F_ELEM_TYPE && f.wire == 0)
			elem = f.v;
		else if (f.num == F_TENSOR && f.wire == 2 && ++n > XT_MAX_ITEMS)
			return ov_fail(err, OV_LIMIT, "byte %zu: more than %d tensors in the sequence", at, XT_MAX_ITEMS);
		else if (f.num >= F_SPARSE && f.num <= F_OPTIONAL && f.wire == 2)
			return ov_fail(err, OV_INVALID, "byte %zu: a sequence of %s; onnxview reads sequences of tensors only",
				       at, elem_name((uint64_t)f.num - 2));
	}
	if (r < 0)
		return -1;
	if (elem != ELEM_UNDEFINED && elem != ELEM_TENSOR)
		return ov_fail(err, OV_INVALID, "elem_type %" PRIu64 ": a sequence of %s; onnxview reads sequences of "
			       "tensors only", elem, elem_name(elem));
	if (xt_alloc_items(out, XT_SEQUENCE, 0, n, err))
		return -1;
	int64_t i = 0;
	for (pos = 0; at = pos, next_field(d, len, &pos, &f, err) == 0;) {
		if (f.num == F_NAME && f.wire == 2 && pb_name) {
			free(*pb_name);
			*pb_name = strndup((const char *)f.p, f.len);
		}
		if (f.num != F_TENSOR || f.wire != 2)
			continue;
		struct xtensor *t = &xt_items(out)[i];
		if (read_tensor(&f, t, err)) {
			ov_wrap(err, "byte %zu: tensor %" PRId64 ": ", at, i);
			goto fail;
		}
		i++;
		if (t->dtype != xt_items(out)[0].dtype) {
			ov_fail(err, OV_FORMAT, "byte %zu: tensor %" PRId64 " is %s, tensor 0 %s: a sequence holds one element "
				"type", at, i - 1, dtype_short_name(t->dtype), dtype_short_name(xt_items(out)[0].dtype));
			goto fail;
		}
		out->dtype = t->dtype;
	}
	return 0;
fail:
	xt_free(out);
	return -1;
}

/* An OptionalProto: empty, a tensor, or a sequence of tensors. */
static int read_optional(const uint8_t *d, size_t len, struct xtensor *out, char **pb_name, int depth,
			 struct ov_error *err)
{
	size_t pos = 0, at, val_at = 0;
	struct field f, val = {0};
	uint64_t elem = ELEM_UNDEFINED;
	int r, have = 0;

	while (at = pos, (r = next_field(d, len, &pos, &f, err)) == 0) {
		if (check_field(&f, at, "an OptionalProto", err))
			return -1;
		if (f.num == F_NAME && f.wire == 2 && pb_name) {
			free(*pb_name);
			*pb_name = strndup((const char *)f.p, f.len);
		} else if (f.num == F_ELEM_TYPE && f.wire == 0) {
			elem = f.v;
		} else if (f.num >= F_TENSOR && f.num <= F_OPTIONAL && f.wire == 2) {
			if (f.num != F_TENSOR && f.num != F_SEQUENCE)
				return ov_fail(err, OV_INVALID, "byte %zu: an optional of %s; onnxview reads optional tensors "
					       "and sequences only", at, elem_name((uint64_t)f.num - 2));
			if (have)
				return ov_fail(err, OV_FORMAT, "byte %zu: a second value; an optional holds one (a SequenceProto "
					       "file?)", at);
			val = f;
			val_at = at;
			have = 1;
		}
	}
	if (r < 0)
		return -1;
	if (elem != ELEM_UNDEFINED && elem != ELEM_TENSOR && elem != ELEM_SEQUENCE)
		return ov_fail(err, OV_INVALID, "elem_type %" PRIu64 ": an optional of %s; onnxview reads optional "
			       "tensors and sequences only", elem, elem_name(elem));
	if (have && elem != ELEM_UNDEFINED && elem != (val.num == F_TENSOR ? ELEM_TENSOR : ELEM_SEQUENCE))
		return ov_fail(err, OV_FORMAT, "elem_type says %s, the value is %s", elem_name(elem),
			       val.num == F_TENSOR ? "a tensor" : "a sequence");
	if (xt_alloc_items(out, XT_OPTIONAL, 0, have, err))
		return -1;
	if (!have)
		return 0;
	struct xtensor *in = &xt_items(out)[0];
	int rc = val.num == F_TENSOR ? read_tensor(&val, in, err)
				     : read_message(val.p, val.len, XT_SEQUENCE, in, NULL, depth + 1, err);
	if (rc) {
		ov_wrap(err, "byte %zu: ", val_at);
		xt_free(out);
		return -1;
	}
	out->dtype = in->dtype;
	return 0;
}

static int read_message(const uint8_t *d, size_t len, int kind, struct xtensor *out, char **pb_name, int depth,
			struct ov_error *err)
{
	memset(out, 0, sizeof *out);
	if (depth > 4)
		return ov_fail(err, OV_LIMIT, "values nested too deep");
	if (kind == XT_SEQUENCE)
		return read_sequence(d, len, out, pb_name, err);
	if (kind == XT_OPTIONAL)
		return read_optional(d, len, out, pb_name, depth, err);
	return ov_fail(err, OV_INVALID, "not a sequence or optional");
}

int seqfile_read_buffer(const uint8_t *data, size_t len, int kind, const char *name, struct xtensor *out,
			char **pb_name, struct ov_error *err)
{
	if (pb_name)
		*pb_name = NULL;
	if (len > SEQFILE_MAX_BYTES) {
		memset(out, 0, sizeof *out);
		return ov_fail(err, OV_LIMIT, "%s: %zu bytes is over protobuf's 2 GiB limit for one message", name, len);
	}
	if (read_message(data ? data : (const uint8_t *)"", len, kind, out, pb_name, 0, err)) {
		if (pb_name) {
			free(*pb_name);
			*pb_name = NULL;
		}
		ov_wrap(err, "%s: %s file: ", name, kind == XT_SEQUENCE ? "SequenceProto" : "OptionalProto");
		return -1;
	}
	return 0;
}

int seqfile_read(const char *path, int kind, struct xtensor *out, char **pb_name, struct ov_error *err)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *buf = NULL;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (!f)
		return ov_fail(err, OV_IO, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		ov_fail(err, OV_IO, "%s: not a regular file", path);
		goto out;
	}
	if ((uint64_t)st.st_size > SEQFILE_MAX_BYTES) {
		ov_fail(err, OV_LIMIT, "%s: too large for one protobuf message", path);
		goto out;
	}
	size_t len = (size_t)st.st_size;
	buf = malloc(len ? len : 1);
	if (!buf) {
		ov_fail(err, OV_NOMEM, "%s: out of memory", path);
		goto out;
	}
	if (len && fread(buf, 1, len, f) != len) {
		ov_fail(err, OV_IO, "%s: cannot read: %s", path, strerror(errno));
		goto out;
	}
	rc = seqfile_read_buffer(buf, len, kind, path, out, pb_name, err);
out:
	free(buf);
	fclose(f);
	return rc;
}
