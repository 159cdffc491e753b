/* Sequence and optional files: ONNX SequenceProto and OptionalProto messages (onnx-data.proto), the format the ONNX
 * test data uses for a sequence or optional input or output (input_0.pb), read into an xtensor of kind
 * XT_SEQUENCE or XT_OPTIONAL (src/exec/xtensor.h).
 *
 * The bytes are untrusted: the few fields onnxview needs are read by hand from the protobuf wire format, every
 * length checked against what remains, and each tensor inside goes through the TensorProto reader of
 * src/model/tensorfile.c.  A refusal is one line naming the file, the byte offset and what is wrong ("seq.pb: byte 2:
 * field 3 says 4000 bytes, 12 are left").  Sequences of tensors are read (no maps, sparse tensors or nested
 * sequences); an optional holds nothing, a tensor, or a sequence of tensors. */
#ifndef OV_EXEC_SEQFILE_H
#define OV_EXEC_SEQFILE_H

#include <stddef.h>
#include <stdint.h>

#include "src/base/error.h"
#include "src/exec/xtensor.h"

/* data[0..len) as a SequenceProto (kind XT_SEQUENCE) or an OptionalProto (XT_OPTIONAL) into out (owned by the
 * caller); *pb_name (when asked) gets the message's name (malloc'd) or NULL.  name stands for the file in messages.
 * Returns 0, or -1 with err set (OV_FORMAT malformed, OV_LIMIT over a limit, OV_INVALID a kind onnxview does not
 * hold, OV_NOMEM); out is empty then. */
int seqfile_read_buffer(const uint8_t *data, size_t len, int kind, const char *name, struct xtensor *out,
			char **pb_name, struct ov_error *err);
/* The same from a file (OV_IO when it cannot be read). */
int seqfile_read(const char *path, int kind, struct xtensor *out, char **pb_name, struct ov_error *err);

#endif
