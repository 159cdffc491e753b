/* Protobuf wire-format pre-pass over ONNX model files: validation, memory estimate, payload lifting. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "gen/onnx.pb-c.h"
#include "src/model/wire.h"

enum kind {
	K_NONE, K_MODEL, K_GRAPH, K_NODE, K_ATTR, K_TENSOR, K_SEGMENT, K_SPARSE, K_VALUEINFO, K_TYPE, K_TYPE_TENSOR,
	K_TYPE_SEQ, K_TYPE_MAP, K_TYPE_OPT, K_TYPE_SPARSE, K_SHAPE, K_DIM, K_TRAINING, K_FUNCTION, K_SSE, K_OPSET,
	K_ANNOT, K_COUNT
};

struct child {
	uint32_t field;
	enum kind kind;
};

struct kind_info {
	const char *name;
	size_t size; /* sizeof the protobuf-c struct */
	struct child children[12];
	const ProtobufCMessageDescriptor *desc; /* for the types of its other fields */
};

/* Every message-typed field of onnx.proto, by message. */
static const struct kind_info kinds[K_COUNT] = {
	[K_MODEL] = {"ModelProto", sizeof(Onnx__ModelProto),
		{{7, K_GRAPH}, {8, K_OPSET}, {14, K_SSE}, {20, K_TRAINING}, {25, K_FUNCTION}},
		&onnx__model_proto__descriptor},
	[K_GRAPH] = {"GraphProto", sizeof(Onnx__GraphProto),
		{{1, K_NODE}, {5, K_TENSOR}, {15, K_SPARSE}, {11, K_VALUEINFO}, {12, K_VALUEINFO},
		 {13, K_VALUEINFO}, {14, K_ANNOT}}, &onnx__graph_proto__descriptor},
	[K_NODE] = {"NodeProto", sizeof(Onnx__NodeProto), {{5, K_ATTR}}, &onnx__node_proto__descriptor},
	[K_ATTR] = {"AttributeProto", sizeof(Onnx__AttributeProto),
		{{5, K_TENSOR}, {6, K_GRAPH}, {22, K_SPARSE}, {14, K_TYPE}, {10, K_TENSOR}, {11, K_GRAPH},
		 {23, K_SPARSE}, {15, K_TYPE}}, &onnx__attribute_proto__descriptor},
	[K_TENSOR] = {"TensorProto", sizeof(Onnx__TensorProto), {{3, K_SEGMENT}, {13, K_SSE}},
		&onnx__tensor_proto__descriptor},
	[K_SEGMENT] = {"TensorProto.Segment", sizeof(Onnx__TensorProto__Segment), {{0, K_NONE}},
		&onnx__tensor_proto__segment__descriptor},
	[K_SPARSE] = {"SparseTensorProto", sizeof(Onnx__SparseTensorProto), {{1, K_TENSOR}, {2, K_TENSOR}},
		&onnx__sparse_tensor_proto__descriptor},
	[K_VALUEINFO] = {"ValueInfoProto", sizeof(Onnx__ValueInfoProto), {{2, K_TYPE}},
		&onnx__value_info_proto__descriptor},
	[K_TYPE] = {"TypeProto", sizeof(Onnx__TypeProto),
		{{1, K_TYPE_TENSOR}, {4, K_TYPE_SEQ}, {5, K_TYPE_MAP}, {9, K_TYPE_OPT}, {8, K_TYPE_SPARSE}},
		&onnx__type_proto__descriptor},
	[K_TYPE_TENSOR] = {"TypeProto.Tensor", sizeof(Onnx__TypeProto__Tensor), {{2, K_SHAPE}},
		&onnx__type_proto__tensor__descriptor},
	[K_TYPE_SEQ] = {"TypeProto.Sequence", sizeof(Onnx__TypeProto__Sequence), {{1, K_TYPE}},
		&onnx__type_proto__sequence__descriptor},
	[K_TYPE_MAP] = {"TypeProto.Map", sizeof(Onnx__TypeProto__Map), {{2, K_TYPE}},
		&onnx__type_proto__map__descriptor},
	[K_TYPE_OPT] = {"TypeProto.Optional", sizeof(Onnx__TypeProto__Optional), {{1, K_TYPE}},
		&onnx__type_proto__optional__descriptor},
	[K_TYPE_SPARSE] = {"TypeProto.SparseTensor", sizeof(Onnx__TypeProto__SparseTensor), {{2, K_SHAPE}},
		&onnx__type_proto__sparse_tensor__descriptor},
	[K_SHAPE] = {"TensorShapeProto", sizeof(Onnx__TensorShapeProto), {{1, K_DIM}},
		&onnx__tensor_shape_proto__descriptor},
	[K_DIM] = {"TensorShapeProto.Dimension", sizeof(Onnx__TensorShapeProto__Dimension), {{0, K_NONE}},
		&onnx__tensor_shape_proto__dimension__descriptor},
	[K_TRAINING] = {"TrainingInfoProto", sizeof(Onnx__TrainingInfoProto),
		{{1, K_GRAPH}, {2, K_GRAPH}, {3, K_SSE}, {4, K_SSE}}, &onnx__training_info_proto__descriptor},
	[K_FUNCTION] = {"FunctionProto", sizeof(Onnx__FunctionProto), {{7, K_NODE}, {9, K_OPSET}},
		&onnx__function_proto__descriptor},
	[K_SSE] = {"StringStringEntryProto", sizeof(Onnx__StringStringEntryProto), {{0, K_NONE}},
		&onnx__string_string_entry_proto__descriptor},
	[K_OPSET] = {"OperatorSetIdProto", sizeof(Onnx__OperatorSetIdProto), {{0, K_NONE}},
		&onnx__operator_set_id_proto__descriptor},
	[K_ANNOT] = {"TensorAnnotation", sizeof(Onnx__TensorAnnotation), {{2, K_SSE}},
		&onnx__tensor_annotation__descriptor},
};

struct scan {
	const uint8_t *in;
	size_t in_len;
	struct wire_prep *prep;
	size_t out_cap;
	size_t payload_cap;
	int emit; /* 0: validate and count only; 1: also write the rewritten buffer and the payload table */
	struct ov_error *err;
};

static enum kind child_kind(enum kind k, uint32_t field)
{
	for (int i = 0; i < 12 && kinds[k].children[i].field; i++)
		if (kinds[k].children[i].field == field)
			return kinds[k].children[i].kind;
	return K_NONE;
}

/* Reads a varint at *pos (< end). Returns 0 or -1 when it runs past end or over 10 bytes. */
static int read_varint(const uint8_t *in, size_t *pos, size_t end, uint64_t *v)
{
	uint64_t r = 0;

	for (int shift = 0; shift < 70; shift += 7) {
		if (*pos >= end)
			return -1;
		uint8_t b = in[(*pos)++];
		if (shift == 63 && (b & 0x7e))
			return -1;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -1;
}

static int out_reserve(struct scan *s, size_t more)
{
	struct wire_prep *p = s->prep;

	if (!s->emit || p->len + more <= s->out_cap)
		return 0;
	size_t cap = s->out_cap ? s->out_cap : 4096;
	while (cap < p->len + more)
		cap *= 2;
	uint8_t *nb = realloc(p->buf, cap);
	if (!nb)
		return ov_fail(s->err, OV_NOMEM, "out of memory preparing the model for reading");
	p->buf = nb;
	s->out_cap = cap;
	return 0;
}

static int out_put(struct scan *s, const void *data, size_t n)
{
	if (!s->emit) {
		s->prep->len += n;
		return 0;
	}
	if (out_reserve(s, n))
		return -1;
	memcpy(s->prep->buf + s->prep->len, data, n);
	s->prep->len += n;
	return 0;
}

/* A length as a 5-byte varint (non-minimal but valid), so it can be written before the content is known. */
static void put_len5(uint8_t *dst, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		dst[i] = (uint8_t)((v >> (7 * i)) & 0x7f) | 0x80;
	dst[4] = (uint8_t)(v >> 28);
}

static int lift_payload(struct scan *s, size_t tag_start, size_t payload, size_t len)
{
	struct wire_prep *p = s->prep;
	uint8_t ph[WIRE_PLACEHOLDER_LEN + 1];
	uint64_t idx = p->n_payloads;

	if (!s->emit) {
		p->n_payloads++;
		return out_put(s, ph, 1 + sizeof ph);
	}
	if (p->n_payloads == s->payload_cap) {
		size_t cap = s->payload_cap ? s->payload_cap * 2 : 64;
		struct wire_payload *np = realloc(p->payloads, cap * sizeof *np);
		if (!np)
			return ov_fail(s->err, OV_NOMEM, "out of memory preparing the model for reading");
		p->payloads = np;
		s->payload_cap = cap;
	}
	p->payloads[p->n_payloads++] = (struct wire_payload){payload, len};
	if (out_put(s, s->in + tag_start, 1)) /* tag of field 9, wire type 2: one byte (0x4a) */
		return -1;
	ph[0] = WIRE_PLACEHOLDER_LEN;
	memcpy(ph + 1, &p->nonce, 8);
	memcpy(ph + 9, &idx, 8);
	return out_put(s, ph, sizeof ph);
}

static int scan_message(struct scan *s, enum kind k, size_t pos, size_t end, int depth);

static int scan_field_ld(struct scan *s, enum kind k, uint32_t field, size_t tag_start, size_t pos, size_t end,
			 int depth, size_t *next)
{
	uint64_t len;
	size_t len_start = pos;
	enum kind ck;

	if (read_varint(s->in, &pos, end, &len))
		return ov_fail(s->err, OV_FORMAT, "byte %zu: %s field %u: length is cut off", len_start,
			       kinds[k].name, field);
	if (len > end - pos)
		return ov_fail(s->err, OV_FORMAT,
			       "byte %zu: %s field %u declares %llu bytes but only %zu remain (truncated or corrupt file)",
			       len_start, kinds[k].name, field, (unsigned long long)len, end - pos);
	if (len > UINT32_MAX)
		return ov_fail(s->err, OV_LIMIT, "byte %zu: %s field %u is %llu bytes, over the 4 GiB protobuf limit",
			       len_start, kinds[k].name, field, (unsigned long long)len);
	*next = pos + len;
	ck = child_kind(k, field);
	if (ck != K_NONE) {
		size_t hdr = s->prep->len;
		if (depth + 1 > WIRE_MAX_DEPTH)
			return ov_fail(s->err, OV_LIMIT, "byte %zu: messages nested more than %d deep", pos,
				       WIRE_MAX_DEPTH);
		s->prep->mem_estimate += kinds[ck].size + sizeof(void *);
		if (out_put(s, s->in + tag_start, len_start - tag_start) || out_reserve(s, 5))
			return -1;
		hdr = s->prep->len;
		s->prep->len += 5;
		if (scan_message(s, ck, pos, pos + len, depth + 1))
			return -1;
		if (s->emit)
			put_len5(s->prep->buf + hdr, (uint32_t)(s->prep->len - hdr - 5));
		return 0;
	}
	if (k == K_TENSOR && field == 9 && len >= WIRE_STRIP_MIN && tag_start + 1 == len_start)
		return lift_payload(s, tag_start, pos, len);
	/* protobuf-c hands strings over NUL-terminated: one holding a NUL would be read cut short ('x\0hidden' as
	 * 'x'), so that check passes what ONNX's checker refuses, names collide, and a save writes the cut name */
	const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(kinds[k].desc, field);
	const uint8_t *nul = fd && fd->type == PROTOBUF_C_TYPE_STRING && len ? memchr(s->in + pos, 0, len) : NULL;
	if (nul) {
		char shown[48];
		size_t before = (size_t)(nul - (s->in + pos));
		snprintf(shown, sizeof shown, "%.*s", (int)(before < 32 ? before : 32), (const char *)(s->in + pos));
		return ov_fail(s->err, OV_FORMAT, "byte %zu: %s.%s '%s%s' has a NUL byte at position %zu: ONNX strings "
			       "cannot hold one, and it would be read cut short", pos, kinds[k].name, fd->name, shown,
			       before > 32 ? "..." : "", before);
	}
	/* Packed integer arrays can unpack to 8 bytes per input byte. */
	if ((k == K_TENSOR && (field == 1 || field == 5 || field == 7 || field == 11)) || (k == K_ATTR && field == 8))
		s->prep->mem_estimate += len * 8;
	else
		s->prep->mem_estimate += len + 1;
	return out_put(s, s->in + tag_start, *next - tag_start);
}

static int scan_message(struct scan *s, enum kind k, size_t pos, size_t end, int depth)
{
	while (pos < end) {
		size_t tag_start = pos, next = pos;
		uint64_t tag, v;

		if (read_varint(s->in, &pos, end, &tag))
			return ov_fail(s->err, OV_FORMAT, "byte %zu: %s: field tag is cut off or malformed",
				       tag_start, kinds[k].name);
		uint32_t field = (uint32_t)(tag >> 3);
		if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff)
			return ov_fail(s->err, OV_FORMAT, "byte %zu: %s: invalid field number %llu (not a protobuf "
				       "message, or corrupt)", tag_start, kinds[k].name, (unsigned long long)(tag >> 3));
		int wt = (int)(tag & 7);
		if (wt != 2 && child_kind(k, field) != K_NONE)
			return ov_fail(s->err, OV_FORMAT, "byte %zu: %s field %u should hold a message but has wire "
				       "type %d", tag_start, kinds[k].name, field, wt);
		switch (wt) {
		case 0:
			if (read_varint(s->in, &pos, end, &v))
				return ov_fail(s->err, OV_FORMAT, "byte %zu: %s field %u: number is cut off",
					       tag_start, kinds[k].name, field);
			next = pos;
			s->prep->mem_estimate += 8;
			break;
		case 1:
		case 5: {
			size_t n = wt == 1 ? 8 : 4;
			if (end - pos < n)
				return ov_fail(s->err, OV_FORMAT, "byte %zu: %s field %u: value is cut off",
					       tag_start, kinds[k].name, field);
			next = pos + n;
			s->prep->mem_estimate += 8;
			break;
		}
		case 2:
			if (scan_field_ld(s, k, field, tag_start, pos, end, depth, &next))
				return -1;
			pos = next;
			continue;
		default:
			return ov_fail(s->err, OV_FORMAT, "byte %zu: %s field %u uses wire type %d, which ONNX files "
				       "never use (not an ONNX model, or corrupt)", tag_start, kinds[k].name, field, wt);
		}
		if (out_put(s, s->in + tag_start, next - tag_start))
			return -1;
		pos = next;
	}
	return 0;
}

int wire_prepare(const uint8_t *buf, size_t len, struct wire_prep *prep, struct ov_error *err)
{
	struct scan s = {.in = buf, .in_len = len, .prep = prep, .err = err};

	memset(prep, 0, sizeof *prep);
	if (getrandom(&prep->nonce, sizeof prep->nonce, GRND_NONBLOCK) != sizeof prep->nonce)
		prep->nonce = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)buf;
	prep->mem_estimate = sizeof(Onnx__ModelProto);
	/* Pass 1 validates and counts without touching the payloads' bytes. */
	if (scan_message(&s, K_MODEL, 0, len, 0))
		goto fail;
	if (prep->n_payloads == 0) { /* nothing to lift: unpack the original as it is, no copy */
		prep->len = len;
		return 0;
	}
	/* Pass 2 writes the buffer with the payloads lifted out. */
	uint64_t nonce = prep->nonce, mem = prep->mem_estimate;
	prep->n_payloads = 0;
	prep->len = 0;
	s.emit = 1;
	if (scan_message(&s, K_MODEL, 0, len, 0))
		goto fail;
	prep->nonce = nonce;
	prep->mem_estimate = mem;
	return 0;
fail:
	wire_prep_free(prep);
	return -1;
}

int wire_check_tensor(const uint8_t *buf, size_t len, struct ov_error *err)
{
	struct wire_prep prep;
	struct scan s = {.in = buf, .in_len = len, .prep = &prep, .err = err};

	memset(&prep, 0, sizeof prep);
	return scan_message(&s, K_TENSOR, 0, len, 0);
}

void wire_prep_free(struct wire_prep *prep)
{
	free(prep->buf);
	free(prep->payloads);
	memset(prep, 0, sizeof *prep);
}

long wire_payload_match(const struct wire_prep *prep, const uint8_t *data, size_t len)
{
	uint64_t idx;

	if (len != WIRE_PLACEHOLDER_LEN || !data || memcmp(data, &prep->nonce, 8))
		return -1;
	memcpy(&idx, data + 8, 8);
	return idx < prep->n_payloads ? (long)idx : -1;
}
