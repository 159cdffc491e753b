/* Reading .npy and .pb tensor files into TensorProtos (raw_data, C order) and writing .npy files. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/model/describe.h"
#include "src/base/codec.h"
#include "src/base/dtype.h"
#include "src/model/save.h"
#include "src/model/tensorfile.h"
#include "src/model/wire.h"

#define NUMEL_LIMIT (1ll << 53) /* as tensor_numel */
#define PB_MAX_BYTES (2ull << 30) /* protobuf's own message limit */

static const char npy_magic[6] = "\x93NUMPY";

static void *std_alloc(void *data, size_t size)
{
	(void)data;
	return malloc(size ? size : 1);
}

static void std_free(void *data, void *ptr)
{
	(void)data;
	free(ptr);
}

static ProtobufCAllocator default_alloc = {std_alloc, std_free, NULL};

static void *tf_alloc(ProtobufCAllocator *a, size_t n) { return a->alloc(a->allocator_data, n ? n : 1); }

void tensorfile_free(Onnx__TensorProto *t, ProtobufCAllocator *alloc)
{
	if (t)
		protobuf_c_message_free_unpacked(&t->base, alloc ? alloc : &default_alloc);
}

/* ---- the numpy dtypes onnxview maps to ONNX types ---- */

static const struct {
	char kind;
	int size;
	int32_t dtype;
} npy_types[] = {
	{'b', 1, OV_DT_BOOL},    {'i', 1, OV_DT_INT8},    {'i', 2, OV_DT_INT16},   {'i', 4, OV_DT_INT32},
	{'i', 8, OV_DT_INT64},   {'u', 1, OV_DT_UINT8},   {'u', 2, OV_DT_UINT16},  {'u', 4, OV_DT_UINT32},
	{'u', 8, OV_DT_UINT64},  {'f', 2, OV_DT_FLOAT16}, {'f', 4, OV_DT_FLOAT},   {'f', 8, OV_DT_DOUBLE},
	{'c', 8, OV_DT_COMPLEX64}, {'c', 16, OV_DT_COMPLEX128},
};

const char *tensorfile_npy_descr(int32_t dtype)
{
	static const char *const descr[] = {
		[OV_DT_BOOL] = "|b1", [OV_DT_INT8] = "|i1", [OV_DT_INT16] = "<i2", [OV_DT_INT32] = "<i4",
		[OV_DT_INT64] = "<i8", [OV_DT_UINT8] = "|u1", [OV_DT_UINT16] = "<u2", [OV_DT_UINT32] = "<u4",
		[OV_DT_UINT64] = "<u8", [OV_DT_FLOAT16] = "<f2", [OV_DT_FLOAT] = "<f4", [OV_DT_DOUBLE] = "<f8",
		[OV_DT_COMPLEX64] = "<c8", [OV_DT_COMPLEX128] = "<c16",
	};

	if (dtype < 0 || (size_t)dtype >= sizeof descr / sizeof descr[0])
		return NULL;
	return descr[dtype];
}

/* ---- the .npy header: a Python dict literal with exactly 'descr', 'fortran_order' and 'shape' ---- */

struct npy_header {
	char descr[32];
	int fortran;
	int64_t dims[TENSORFILE_MAX_RANK];
	size_t rank;
	int32_t dtype;
	int elsize;
	int swap; /* big-endian data */
};

struct hp {
	const char *p, *end;
	struct ov_error *err;
};

static void hp_ws(struct hp *h)
{
	while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' || *h->p == '\r'))
		h->p++;
}

static int hp_char(struct hp *h, char c)
{
	hp_ws(h);
	if (h->p < h->end && *h->p == c) {
		h->p++;
		return 1;
	}
	return 0;
}

/* Where the parser stopped, for messages: the next few characters, printable. */
static const char *hp_here(const struct hp *h, char *buf, size_t n)
{
	size_t k = 0;

	if (h->p >= h->end)
		return "the end of the header";
	buf[k++] = '\'';
	for (const char *q = h->p; q < h->end && k + 2 < n && q < h->p + 12; q++)
		buf[k++] = (*q >= 0x20 && *q < 0x7f) ? *q : '?';
	buf[k++] = '\'';
	buf[k] = '\0';
	return buf;
}

static int hp_expected(struct hp *h, const char *what)
{
	char b[20];
	return ov_fail(h->err, OV_FORMAT, "bad .npy header: expected %s at %s", what, hp_here(h, b, sizeof b));
}

/* A quoted string without escapes (no numpy descr or key needs one). */
static int hp_string(struct hp *h, char *out, size_t n)
{
	hp_ws(h);
	if (h->p >= h->end || (*h->p != '\'' && *h->p != '"'))
		return hp_expected(h, "a quoted string");
	char q = *h->p++;
	size_t k = 0;
	while (h->p < h->end && *h->p != q) {
		if (*h->p == '\\' || *h->p == '\n' || (unsigned char)*h->p < 0x20)
			return ov_fail(h->err, OV_FORMAT, "bad .npy header: an escape or control character in a string");
		if (k + 1 >= n)
			return ov_fail(h->err, OV_FORMAT, "bad .npy header: a string longer than %zu characters", n - 1);
		out[k++] = *h->p++;
	}
	if (h->p >= h->end)
		return ov_fail(h->err, OV_FORMAT, "bad .npy header: unterminated string");
	h->p++;
	out[k] = '\0';
	return 0;
}

static int hp_word(struct hp *h, const char *w)
{
	size_t n = strlen(w);

	hp_ws(h);
	if ((size_t)(h->end - h->p) >= n && !memcmp(h->p, w, n) &&
	    ((size_t)(h->end - h->p) == n || !(h->p[n] == '_' || (h->p[n] >= 'a' && h->p[n] <= 'z') ||
					      (h->p[n] >= 'A' && h->p[n] <= 'Z') || (h->p[n] >= '0' && h->p[n] <= '9')))) {
		h->p += n;
		return 1;
	}
	return 0;
}

static int hp_shape(struct hp *h, struct npy_header *hd)
{
	int commas = 0;

	if (!hp_char(h, '('))
		return hp_expected(h, "a shape tuple such as (2, 3)");
	hd->rank = 0;
	for (;;) {
		if (hp_char(h, ')'))
			break;
		if (hd->rank && !commas)
			return hp_expected(h, "',' or ')' in the shape");
		hp_ws(h);
		if (h->p >= h->end || *h->p < '0' || *h->p > '9') {
			if (h->p < h->end && *h->p == '-')
				return ov_fail(h->err, OV_FORMAT, "bad .npy header: a negative dim in the shape");
			return hp_expected(h, "a dim (a number) in the shape");
		}
		if (hd->rank == TENSORFILE_MAX_RANK)
			return ov_fail(h->err, OV_LIMIT, "bad .npy header: more than %d dims", TENSORFILE_MAX_RANK);
		if (*h->p == '0' && h->p + 1 < h->end && h->p[1] >= '0' && h->p[1] <= '9')
			return ov_fail(h->err, OV_FORMAT, "bad .npy header: a dim with a leading zero");
		int64_t d = 0;
		while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
			if (d > (NUMEL_LIMIT - 9) / 10)
				return ov_fail(h->err, OV_LIMIT, "bad .npy header: a dim over 2^53");
			d = d * 10 + (*h->p++ - '0');
		}
		if (h->p < h->end && *h->p == 'L') /* Python 2's long literals, still in old files */
			h->p++;
		hd->dims[hd->rank++] = d;
		commas = hp_char(h, ',');
	}
	/* (3) is the number 3 in Python, not a tuple: numpy writes (3,). */
	if (hd->rank == 1 && !commas)
		return ov_fail(h->err, OV_FORMAT, "bad .npy header: shape (%" PRId64 ") is not a tuple (one dim is "
			       "written (%" PRId64 ",))", hd->dims[0], hd->dims[0]);
	return 0;
}

static int npy_descr(struct npy_header *hd, struct ov_error *err)
{
	const char *d = hd->descr;
	char order = d[0], kind = d[0] ? d[1] : 0;
	const char *num = d[0] && d[1] ? d + 2 : "";
	int size = 0;

	if (strstr(d, "bfloat16") || !strcmp(d, "<V2") || !strcmp(d, "|V2") || !strcmp(d, ">V2"))
		return ov_fail(err, OV_FORMAT, "dtype '%s': numpy has no bfloat16 (this is ml_dtypes' raw 2-byte "
			       "type); save the tensor as float32 (tensor.float()) or write a .pb file", d);
	if (order != '<' && order != '>' && order != '|' && order != '=')
		return ov_fail(err, OV_FORMAT, "bad .npy header: descr '%s' does not start with a byte order (<, >, |)",
			       d);
	switch (kind) {
	case 'O': return ov_fail(err, OV_FORMAT, "dtype '%s': Python objects (pickled) are not read", d);
	case 'U': case 'S': case 'a':
		return ov_fail(err, OV_FORMAT, "dtype '%s': numpy strings are not read (use a .pb file for a STRING "
			       "tensor)", d);
	case 'M': case 'm': return ov_fail(err, OV_FORMAT, "dtype '%s': dates and times have no ONNX type", d);
	case 'V': return ov_fail(err, OV_FORMAT, "dtype '%s': raw bytes (numpy void) have no ONNX type", d);
	default: break;
	}
	if (*num < '1' || *num > '9' || strspn(num, "0123456789") != strlen(num) || strlen(num) > 3)
		return ov_fail(err, OV_FORMAT, "bad .npy header: descr '%s' is not a numpy type such as '<f4'", d);
	size = atoi(num);
	for (size_t i = 0; i < sizeof npy_types / sizeof npy_types[0]; i++)
		if (npy_types[i].kind == kind && npy_types[i].size == size) {
			hd->dtype = npy_types[i].dtype;
			hd->elsize = size;
			if (order == '|' && size > 1)
				return ov_fail(err, OV_FORMAT, "bad .npy header: descr '%s' has no byte order ('|' is for "
					       "one-byte types)", d);
			hd->swap = order == '>' && size > 1;
			return 0;
		}
	if (kind == 'f' || kind == 'c')
		return ov_fail(err, OV_FORMAT, "dtype '%s': %d-byte %s numbers (long double) have no ONNX type", d,
			       size, kind == 'f' ? "floating-point" : "complex");
	return ov_fail(err, OV_FORMAT, "dtype '%s' has no ONNX type (onnxview reads bool, int8-64, uint8-64, "
		       "float16/32/64 and complex64/128)", d);
}

static int npy_parse_header(const char *text, size_t n, struct npy_header *hd, struct ov_error *err)
{
	struct hp h = {text, text + n, err};
	int seen_descr = 0, seen_fortran = 0, seen_shape = 0;
	char key[32];

	if (memchr(text, '\0', n))
		return ov_fail(err, OV_FORMAT, "bad .npy header: a NUL byte in the header");
	if (!hp_char(&h, '{'))
		return hp_expected(&h, "'{'");
	for (;;) {
		if (hp_char(&h, '}'))
			break;
		if (hp_string(&h, key, sizeof key))
			return -1;
		if (!hp_char(&h, ':'))
			return hp_expected(&h, "':'");
		if (!strcmp(key, "descr")) {
			if (seen_descr++)
				return ov_fail(err, OV_FORMAT, "bad .npy header: 'descr' given twice");
			hp_ws(&h);
			if (h.p < h.end && *h.p == '[')
				return ov_fail(err, OV_FORMAT, "a structured dtype (record array) is not a tensor");
			if (hp_string(&h, hd->descr, sizeof hd->descr))
				return -1;
		} else if (!strcmp(key, "fortran_order")) {
			if (seen_fortran++)
				return ov_fail(err, OV_FORMAT, "bad .npy header: 'fortran_order' given twice");
			if (hp_word(&h, "True"))
				hd->fortran = 1;
			else if (hp_word(&h, "False"))
				hd->fortran = 0;
			else
				return hp_expected(&h, "True or False for 'fortran_order'");
		} else if (!strcmp(key, "shape")) {
			if (seen_shape++)
				return ov_fail(err, OV_FORMAT, "bad .npy header: 'shape' given twice");
			if (hp_shape(&h, hd))
				return -1;
		} else {
			return ov_fail(err, OV_FORMAT, "bad .npy header: unknown key '%s'", key);
		}
		if (!hp_char(&h, ',')) {
			if (hp_char(&h, '}'))
				break;
			return hp_expected(&h, "',' or '}'");
		}
	}
	hp_ws(&h);
	if (h.p != h.end)
		return ov_fail(err, OV_FORMAT, "bad .npy header: text after the closing '}'");
	if (!seen_descr || !seen_fortran || !seen_shape)
		return ov_fail(err, OV_FORMAT, "bad .npy header: no '%s'",
			       !seen_descr ? "descr" : !seen_fortran ? "fortran_order" : "shape");
	return npy_descr(hd, err);
}

static void describe_shape_tuple(char *buf, size_t n, const int64_t *dims, size_t rank)
{
	size_t k = (size_t)snprintf(buf, n, "(");
	for (size_t i = 0; i < rank && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%" PRId64, i ? ", " : "", dims[i]);
	if (k < n)
		snprintf(buf + k, n - k, rank == 1 ? ",)" : ")");
}

/* A new TensorProto of dtype and dims with room for nbytes of raw_data; NULL when out of memory. */
static Onnx__TensorProto *new_tensor(ProtobufCAllocator *a, int32_t dtype, const int64_t *dims, size_t rank,
				     size_t nbytes)
{
	Onnx__TensorProto *t = tf_alloc(a, sizeof *t);

	if (!t)
		return NULL;
	onnx__tensor_proto__init(t);
	t->has_data_type = 1;
	t->data_type = dtype;
	t->dims = tf_alloc(a, rank * sizeof *t->dims);
	if (!t->dims) {
		a->free(a->allocator_data, t);
		return NULL;
	}
	t->n_dims = rank;
	if (rank)
		memcpy(t->dims, dims, rank * sizeof *dims);
	if (dtype != OV_DT_STRING) {
		t->has_raw_data = 1;
		t->raw_data.len = nbytes;
		t->raw_data.data = tf_alloc(a, nbytes);
		if (!t->raw_data.data) {
			protobuf_c_message_free_unpacked(&t->base, a);
			return NULL;
		}
	}
	return t;
}

static void swap_bytes(uint8_t *p, size_t n, int width)
{
	for (size_t i = 0; i + (size_t)width <= n; i += (size_t)width)
		for (int a = 0, b = width - 1; a < b; a++, b--) {
			uint8_t c = p[i + a];
			p[i + a] = p[i + b];
			p[i + b] = c;
		}
}

/* Fortran order (first index fastest) to C order (last index fastest). */
static void fortran_to_c(uint8_t *dst, const uint8_t *src, const int64_t *dims, size_t rank, int64_t numel,
			 size_t es)
{
	int64_t fstride[TENSORFILE_MAX_RANK], idx[TENSORFILE_MAX_RANK] = {0}, off = 0;

	for (size_t k = 0; k < rank; k++)
		fstride[k] = k ? fstride[k - 1] * dims[k - 1] : 1;
	for (int64_t i = 0; i < numel; i++) {
		memcpy(dst + (size_t)i * es, src + (size_t)off * es, es);
		for (size_t k = rank; k-- > 0;) {
			off += fstride[k];
			if (++idx[k] < dims[k])
				break;
			off -= fstride[k] * dims[k];
			idx[k] = 0;
		}
	}
}

static int npy_read(const uint8_t *data, size_t len, ProtobufCAllocator *a, Onnx__TensorProto **out,
		    struct ov_error *err)
{
	struct npy_header hd;
	size_t hlen, start;

	memset(&hd, 0, sizeof hd);
	if (len < sizeof npy_magic || memcmp(data, npy_magic, sizeof npy_magic))
		return ov_fail(err, OV_FORMAT, "not a .npy file (it does not start with \\x93NUMPY)");
	if (len < 10)
		return ov_fail(err, OV_FORMAT, "truncated .npy file: %zu bytes, shorter than its preamble", len);
	int major = data[6], minor = data[7];
	if ((major != 1 && major != 2 && major != 3) || minor != 0)
		return ov_fail(err, OV_FORMAT, ".npy format version %d.%d is not one onnxview knows (1.0, 2.0, 3.0)",
			       major, minor);
	if (major == 1) {
		hlen = (size_t)data[8] | (size_t)data[9] << 8;
		start = 10;
	} else {
		if (len < 12)
			return ov_fail(err, OV_FORMAT, "truncated .npy file: %zu bytes, shorter than its preamble", len);
		hlen = (size_t)data[8] | (size_t)data[9] << 8 | (size_t)data[10] << 16 | (size_t)data[11] << 24;
		start = 12;
	}
	if (hlen > TENSORFILE_MAX_HEADER)
		return ov_fail(err, OV_LIMIT, ".npy header of %zu bytes is over onnxview's limit of %d", hlen,
			       TENSORFILE_MAX_HEADER);
	if (hlen > len - start)
		return ov_fail(err, OV_FORMAT, "truncated .npy file: the header says %zu bytes, the file has %zu after "
			       "the preamble", hlen, len - start);
	if (npy_parse_header((const char *)data + start, hlen, &hd, err))
		return -1;

	int64_t numel = 1;
	for (size_t k = 0; k < hd.rank; k++) {
		if (hd.dims[k] && numel > NUMEL_LIMIT / hd.dims[k])
			return ov_fail(err, OV_LIMIT, "shape is over 2^53 elements");
		numel *= hd.dims[k];
	}
	uint64_t need = (uint64_t)numel * (uint64_t)hd.elsize; /* < 2^53 * 16 */
	size_t have = len - start - hlen;
	if (need != have) {
		char shape[64 * 24];
		describe_shape_tuple(shape, sizeof shape, hd.dims, hd.rank);
		return ov_fail(err, OV_FORMAT, "shape %s of %s needs %" PRIu64 " bytes of data, the file has %zu after "
			       "its header%s", shape, dtype_short_name(hd.dtype), need, have,
			       need > have ? " (truncated?)" : "");
	}
	Onnx__TensorProto *t = new_tensor(a, hd.dtype, hd.dims, hd.rank, (size_t)need);
	if (!t)
		return ov_fail(err, OV_NOMEM, "out of memory for %" PRIu64 " bytes", need);
	const uint8_t *src = data + start + hlen;
	if (hd.fortran && hd.rank > 1)
		fortran_to_c(t->raw_data.data, src, hd.dims, hd.rank, numel, (size_t)hd.elsize);
	else if (need)
		memcpy(t->raw_data.data, src, (size_t)need);
	if (hd.swap) /* complex numbers swap each half */
		swap_bytes(t->raw_data.data, (size_t)need, hd.dtype == OV_DT_COMPLEX64 || hd.dtype == OV_DT_COMPLEX128 ?
			   hd.elsize / 2 : hd.elsize);
	if (hd.dtype == OV_DT_BOOL) /* numpy reads any non-zero byte as True; ONNX wants 0 or 1 */
		for (size_t i = 0; i < (size_t)need; i++)
			t->raw_data.data[i] = t->raw_data.data[i] != 0;
	*out = t;
	return 0;
}

/* ---- .pb: one ONNX TensorProto ---- */

/* Typed field entries to raw_data bytes (the raw layout of dtype). */
static int typed_to_raw(const Onnx__TensorProto *s, uint8_t *dst, int64_t count)
{
	for (int64_t i = 0; i < count; i++) {
		switch (dtype_field(s->data_type)) {
		case OV_FIELD_FLOAT: memcpy(dst + 4 * i, &s->float_data[i], 4); break;
		case OV_FIELD_DOUBLE: memcpy(dst + 8 * i, &s->double_data[i], 8); break;
		case OV_FIELD_INT64: memcpy(dst + 8 * i, &s->int64_data[i], 8); break;
		case OV_FIELD_UINT64:
			if (s->data_type == OV_DT_UINT32) {
				uint32_t v = (uint32_t)s->uint64_data[i];
				memcpy(dst + 4 * i, &v, 4);
			} else {
				memcpy(dst + 8 * i, &s->uint64_data[i], 8);
			}
			break;
		case OV_FIELD_INT32: {
			int bits = dtype_bits(s->data_type);
			uint32_t v = (uint32_t)s->int32_data[i];
			if (bits == 32) {
				memcpy(dst + 4 * i, &v, 4);
			} else if (bits == 16) {
				uint16_t h = (uint16_t)v;
				memcpy(dst + 2 * i, &h, 2);
			} else if (bits == 6) { /* one 6-bit element an entry, packed four in three bytes */
				ov_packed_put(dst, i, 6, v);
			} else { /* 8 bits, or two 4-bit or four 2-bit elements packed in one entry */
				dst[i] = (uint8_t)(s->data_type == OV_DT_BOOL ? v != 0 : v);
			}
			break;
		}
		default: return -1;
		}
	}
	return 0;
}

static int64_t typed_count(const Onnx__TensorProto *s)
{
	switch (dtype_field(s->data_type)) {
	case OV_FIELD_FLOAT: return (int64_t)s->n_float_data;
	case OV_FIELD_INT32: return (int64_t)s->n_int32_data;
	case OV_FIELD_INT64: return (int64_t)s->n_int64_data;
	case OV_FIELD_DOUBLE: return (int64_t)s->n_double_data;
	case OV_FIELD_UINT64: return (int64_t)s->n_uint64_data;
	case OV_FIELD_STRING: return (int64_t)s->n_string_data;
	default: return 0;
	}
}

static int pb_read(const uint8_t *data, size_t len, ProtobufCAllocator *a, Onnx__TensorProto **out,
		   struct ov_error *err)
{
	Onnx__TensorProto *s, *t = NULL;
	int rc = -1;

	if (len > PB_MAX_BYTES)
		return ov_fail(err, OV_LIMIT, "%zu bytes is over protobuf's 2 GiB limit for one message", len);
	if (wire_check_tensor(data, len, err)) /* before protobuf-c cuts a name at a NUL byte */
		return ov_wrap(err, "not an ONNX TensorProto: ");
	s = onnx__tensor_proto__unpack(a, len, data);
	if (!s)
		return ov_fail(err, OV_FORMAT, "not an ONNX TensorProto (the protobuf does not parse)");
	if (tensor_is_external(s) || s->n_external_data) {
		ov_fail(err, OV_FORMAT, "the tensor keeps its data in an external file ('%s'); tensor files must hold "
			"their data", tensor_external_value(s, "location") ? tensor_external_value(s, "location") : "");
		goto out;
	}
	if (s->segment) {
		ov_fail(err, OV_FORMAT, "a segment of a tensor (TensorProto.segment) is not a whole tensor");
		goto out;
	}
	if (!s->has_data_type || !dtype_known(s->data_type) || s->data_type == OV_DT_UNDEFINED) {
		char why[160];
		if (s->has_data_type && s->data_type > OV_DT_LAST) /* a newer onnx.proto's type: not a broken file */
			ov_fail(err, OV_INVALID, "%s", dtype_unknown_reason(s->data_type, why, sizeof why));
		else if (s->has_data_type)
			ov_fail(err, OV_FORMAT, "unknown data_type %d (not an ONNX TensorProto?)", (int)s->data_type);
		else
			ov_fail(err, OV_FORMAT, "no data_type (not an ONNX TensorProto?)");
		goto out;
	}
	int64_t numel = tensor_numel(s, err);
	if (numel < 0)
		goto out;
	int64_t ntyped = typed_count(s), want_typed = dtype_typed_count(s->data_type, numel);
	/* Fields that belong to another type mean a confused writer. */
	size_t other = s->n_float_data + s->n_int32_data + s->n_string_data + s->n_int64_data + s->n_double_data +
		       s->n_uint64_data - (size_t)ntyped;
	if (other) {
		ov_fail(err, OV_FORMAT, "a %s tensor with values in the typed field of another type",
			dtype_short_name(s->data_type));
		goto out;
	}
	if (s->data_type == OV_DT_STRING) {
		if (s->has_raw_data) {
			ov_fail(err, OV_FORMAT, "a string tensor with raw_data");
			goto out;
		}
		if (ntyped != numel) {
			ov_fail(err, OV_FORMAT, "dims say %" PRId64 " strings, string_data has %" PRId64, numel, ntyped);
			goto out;
		}
		if (!(t = new_tensor(a, OV_DT_STRING, s->dims, s->n_dims, 0)))
			goto oom;
		/* Move the strings over. */
		t->string_data = s->string_data;
		t->n_string_data = s->n_string_data;
		s->string_data = NULL;
		s->n_string_data = 0;
	} else {
		int64_t nbytes = dtype_raw_bytes(s->data_type, numel);
		if (nbytes < 0) {
			ov_fail(err, OV_FORMAT, "%s tensors cannot be stored as raw data", dtype_short_name(s->data_type));
			goto out;
		}
		if (s->has_raw_data && ntyped) {
			ov_fail(err, OV_FORMAT, "both raw_data and a typed field hold values");
			goto out;
		}
		if (s->has_raw_data && (int64_t)s->raw_data.len != nbytes) {
			char dims[64 * 24];
			describe_shape_tuple(dims, sizeof dims, s->dims, s->n_dims);
			ov_fail(err, OV_FORMAT, "raw_data has %zu bytes, shape %s of %s needs %" PRId64, s->raw_data.len,
				dims, dtype_short_name(s->data_type), nbytes);
			goto out;
		}
		if (!s->has_raw_data && ntyped != want_typed) {
			ov_fail(err, OV_FORMAT, "dims say %" PRId64 " values, the typed field has %" PRId64 "%s", want_typed,
				ntyped, ntyped ? "" : " (no data at all)");
			goto out;
		}
		if (!(t = new_tensor(a, s->data_type, s->dims, s->n_dims, (size_t)nbytes)))
			goto oom;
		if (s->has_raw_data) {
			if (nbytes)
				memcpy(t->raw_data.data, s->raw_data.data, (size_t)nbytes);
			if (s->data_type == OV_DT_BOOL)
				for (int64_t i = 0; i < nbytes; i++)
					t->raw_data.data[i] = t->raw_data.data[i] != 0;
		} else {
			if (nbytes)
				memset(t->raw_data.data, 0, (size_t)nbytes);
			typed_to_raw(s, t->raw_data.data, ntyped);
		}
	}
	*out = t;
	t = NULL;
	rc = 0;
	goto out;
oom:
	ov_fail(err, OV_NOMEM, "out of memory");
out:
	tensorfile_free(t, a);
	tensorfile_free(s, a);
	return rc;
}

/* ---- entry points ---- */

int tensorfile_read_buffer(const uint8_t *data, size_t len, enum tensorfile_format fmt, const char *name,
			   ProtobufCAllocator *alloc, Onnx__TensorProto **out, struct ov_error *err)
{
	ProtobufCAllocator *a = alloc ? alloc : &default_alloc;
	int rc;

	*out = NULL;
	if (!data)
		data = (const uint8_t *)"";
	rc = fmt == TENSORFILE_NPY ? npy_read(data, len, a, out, err) : pb_read(data, len, a, out, err);
	if (rc)
		ov_wrap(err, "%s: ", name);
	return rc;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcasecmp(s + n - k, suffix);
}

int tensorfile_read(const char *path, ProtobufCAllocator *alloc, Onnx__TensorProto **out, struct ov_error *err)
{
	struct stat st;
	void *map = NULL;
	int fd, rc;
	enum tensorfile_format fmt;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* O_NONBLOCK: a FIFO must not hang the open */
	if (fd < 0)
		return ov_fail(err, OV_IO, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		rc = ov_fail(err, OV_IO, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = ov_fail(err, OV_IO, "%s: not a regular file", path);
		goto out;
	}
	if ((uint64_t)st.st_size > SIZE_MAX / 2) {
		rc = ov_fail(err, OV_LIMIT, "%s: too large", path);
		goto out;
	}
	size_t len = (size_t)st.st_size;
	if (len) {
		map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			map = NULL;
			rc = ov_fail(err, OV_IO, "%s: cannot map: %s", path, strerror(errno));
			goto out;
		}
	}
	if (len >= sizeof npy_magic && !memcmp(map, npy_magic, sizeof npy_magic))
		fmt = TENSORFILE_NPY;
	else if (has_suffix(path, ".pb"))
		fmt = TENSORFILE_PB;
	else if (has_suffix(path, ".npy"))
		fmt = TENSORFILE_NPY; /* the reader names what is wrong with it */
	else {
		rc = ov_fail(err, OV_USAGE, "%s: not a tensor file onnxview knows (a .npy file from numpy.save, or a .pb "
			     "file holding an ONNX TensorProto)", path);
		goto out;
	}
	if (!len) {
		rc = ov_fail(err, OV_FORMAT, "%s: empty file", path);
		goto out;
	}
	rc = tensorfile_read_buffer(map, len, fmt, path, alloc, out, err);
out:
	if (map)
		munmap(map, (size_t)st.st_size);
	close(fd);
	return rc;
}

/* ---- writing .npy ---- */

int tensorfile_npy_encode(int32_t dtype, const int64_t *dims, size_t rank, const void *raw, uint8_t **buf,
			  size_t *len, struct ov_error *err)
{
	const char *descr = tensorfile_npy_descr(dtype);
	char head[64 * 24 + 128];
	int64_t numel = 1;

	*buf = NULL;
	*len = 0;
	if (!descr)
		return ov_fail(err, OV_INVALID, "numpy has no %s type: a .npy file cannot hold this tensor",
			       dtype_short_name(dtype));
	if (rank > TENSORFILE_MAX_RANK)
		return ov_fail(err, OV_LIMIT, "more than %d dims", TENSORFILE_MAX_RANK);
	for (size_t k = 0; k < rank; k++) {
		if (dims[k] < 0 || (dims[k] && numel > NUMEL_LIMIT / dims[k]))
			return ov_fail(err, OV_INVALID, "bad dims");
		numel *= dims[k];
	}
	size_t nbytes = (size_t)dtype_raw_bytes(dtype, numel);
	char shape[64 * 24];
	describe_shape_tuple(shape, sizeof shape, dims, rank);
	int n = snprintf(head, sizeof head, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape);
	/* The header numpy.save writes, byte for byte: room for the first dim to grow to 21 digits, then spaces and
	 * a newline up to the next multiple of 64 (a whole 64 when already aligned). */
	if (rank) {
		int digits = snprintf(NULL, 0, "%" PRId64, dims[0]);
		n += snprintf(head + n, sizeof head - (size_t)n, "%*s", 21 - digits, "");
	}
	size_t total = 10 + (size_t)n + 1;
	total += 64 - total % 64;
	size_t hlen = total - 10;
	uint8_t *b = malloc(total + nbytes);
	if (!b)
		return ov_fail(err, OV_NOMEM, "out of memory");
	memcpy(b, npy_magic, 6);
	b[6] = 1;
	b[7] = 0;
	b[8] = (uint8_t)(hlen & 0xff);
	b[9] = (uint8_t)(hlen >> 8);
	memcpy(b + 10, head, (size_t)n);
	memset(b + 10 + n, ' ', hlen - (size_t)n - 1);
	b[total - 1] = '\n';
	if (nbytes)
		memcpy(b + total, raw, nbytes);
	*buf = b;
	*len = total + nbytes;
	return 0;
}

int tensorfile_write_npy(const char *path, unsigned flags, int32_t dtype, const int64_t *dims, size_t rank,
			 const void *raw, struct ov_error *err)
{
	uint8_t *buf;
	size_t len;

	if (tensorfile_npy_encode(dtype, dims, rank, raw, &buf, &len, err))
		return ov_wrap(err, "%s: ", path);
	int r = save_buffer(path, flags, buf, len, err);
	free(buf);
	return r ? ov_wrap(err, "%s: ", path) : 0;
}

int tensorfile_write_npy_view(const char *path, unsigned flags, const struct tensor_view *v, struct ov_error *err)
{
	const Onnx__TensorProto *t = v->t;
	int64_t nbytes = dtype_raw_bytes(v->dtype, v->numel);
	uint8_t *raw;
	int rc;

	if (!tensorfile_npy_descr(v->dtype))
		return ov_fail(err, OV_INVALID, "%s: numpy has no %s type: a .npy file cannot hold this tensor", path,
			       dtype_short_name(v->dtype));
	if (v->raw)
		return tensorfile_write_npy(path, flags, v->dtype, t->dims, t->n_dims, v->raw, err);
	if (nbytes < 0 || typed_count(t) != dtype_typed_count(v->dtype, v->numel))
		return ov_fail(err, OV_INVALID, "%s: the tensor's typed data does not match its dims", path);
	raw = malloc(nbytes ? (size_t)nbytes : 1);
	if (!raw)
		return ov_fail(err, OV_NOMEM, "out of memory");
	typed_to_raw(t, raw, typed_count(t));
	rc = tensorfile_write_npy(path, flags, v->dtype, t->dims, t->n_dims, raw, err);
	free(raw);
	return rc;
}
