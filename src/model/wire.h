/* A pre-pass over the protobuf wire format of a model file, run before protobuf-c sees a byte.
 *
 * It walks the ONNX schema's message tree (every message-typed field of onnx.proto), and:
 *  - checks every length against what remains, every wire type, and the nesting depth, so that a hostile file is
 *    refused with a message naming the byte offset and the field instead of crashing or exhausting memory;
 *  - estimates the memory protobuf-c will allocate and refuses files that would blow up far beyond their size;
 *  - lifts large TensorProto.raw_data payloads out of the buffer (they stay in the caller's mapping), leaving a
 *    16-byte placeholder so that unpacking copies almost nothing.  wire_payload_match() recognises a placeholder
 *    after unpacking so the caller can point raw_data back into the mapping.
 */
#ifndef OV_WIRE_H
#define OV_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "src/base/error.h"

#define WIRE_MAX_DEPTH 64          /* nested messages (graphs in attributes of graphs...) */
#define WIRE_STRIP_MIN 1024        /* raw_data payloads at least this big stay in the mapping */
#define WIRE_PLACEHOLDER_LEN 16

struct wire_payload {
	size_t offset; /* of the payload's first byte in the original buffer */
	size_t len;
};

struct wire_prep {
	uint8_t *buf; /* the buffer to unpack (the original with payloads lifted out); malloc'd, or NULL when
	                 nothing was lifted and the original is to be unpacked as it is */
	size_t len;
	struct wire_payload *payloads;
	size_t n_payloads;
	uint64_t nonce;
	uint64_t mem_estimate; /* bytes protobuf-c is expected to allocate */
};

/* Check and prepare buf for unpacking as an onnx.ModelProto. Returns 0, or -1 with err set (OV_FORMAT, OV_LIMIT). */
int wire_prepare(const uint8_t *buf, size_t len, struct wire_prep *prep, struct ov_error *err);
void wire_prep_free(struct wire_prep *prep);
/* The same checks (lengths, wire types, nesting, strings holding a NUL) for a TensorProto on its own (a .pb tensor
 * file), without preparing anything.  0, or -1 with err set. */
int wire_check_tensor(const uint8_t *buf, size_t len, struct ov_error *err);
/* If data/len is a placeholder written by wire_prepare, return the payload's index, else -1. */
long wire_payload_match(const struct wire_prep *prep, const uint8_t *data, size_t len);

#endif
