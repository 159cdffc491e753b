/* Tensor files: NumPy .npy (what numpy.save writes from a PyTorch tensor) and ONNX TensorProto .pb (the ONNX
 * test data format, input_0.pb), read into a TensorProto; .npy written back (the executor's --save).
 *
 * Readers return a newly allocated TensorProto whose data is always raw_data (little-endian, C order), except
 * STRING tensors (string_data): callers never deal with typed fields, byte order or Fortran order.  Every part
 * of it (the message, dims, raw_data, strings) comes from the allocator given, so it can be moved into a model
 * tree piece by piece, or freed whole with tensorfile_free().  The tensor has no name.
 *
 * Files are untrusted: every size is checked against the file's length before anything is allocated from it, and
 * every refusal is one line that names the file and what is wrong with it
 * ("scales.npy: shape (4, 4) of float32 needs 64 bytes of data, the file has 16 after its header").
 */
#ifndef OV_TENSORFILE_H
#define OV_TENSORFILE_H

#include <stddef.h>
#include <stdint.h>

#include "src/model/model.h"

#define TENSORFILE_MAX_RANK 64      /* numpy's own limit (NPY_MAXDIMS in numpy 2) */
#define TENSORFILE_MAX_HEADER 65536 /* .npy header bytes; numpy writes ~120, and refuses over 10000 by default */

enum tensorfile_format {
	TENSORFILE_NPY,
	TENSORFILE_PB,
};

/* Read path: a .npy file (recognised by its magic bytes, whatever its name) or a .pb file (by its name).
 * alloc NULL means malloc/free.  Returns 0, or -1 with err set (OV_IO when the file cannot be opened, OV_FORMAT
 * when its contents are malformed or hold what no ONNX tensor can, such as a numpy string or a pickled object,
 * OV_LIMIT over a safety limit): a tensor file that cannot be read is the exit status of unreadable input, 3,
 * whatever the reason. */
int tensorfile_read(const char *path, ProtobufCAllocator *alloc, Onnx__TensorProto **out, struct ov_error *err);
/* The same from bytes in memory (fuzzing, tests); name stands for the path in messages. */
int tensorfile_read_buffer(const uint8_t *data, size_t len, enum tensorfile_format fmt, const char *name,
			   ProtobufCAllocator *alloc, Onnx__TensorProto **out, struct ov_error *err);
void tensorfile_free(Onnx__TensorProto *t, ProtobufCAllocator *alloc);

/* The .npy descr ("<f4", "|b1") for an ONNX dtype, or NULL when numpy has no such type (bfloat16, float8, 4-bit,
 * string). */
const char *tensorfile_npy_descr(int32_t dtype);
/* Write a .npy file (format 1.0, C order, little-endian) holding numel elements of dtype in raw (ONNX raw_data
 * layout) with the given dims, atomically as src/model/save.h writes every file: flags OV_SAVE_REPLACE to replace
 * an existing file, OV_SAVE_NOFOLLOW never to write through a symbolic link; a failure leaves what was there. */
int tensorfile_write_npy(const char *path, unsigned flags, int32_t dtype, const int64_t *dims, size_t rank,
			 const void *raw, struct ov_error *err);
/* The same from a tensor view (src/model/describe.h): raw, typed or external data. */
struct tensor_view;
int tensorfile_write_npy_view(const char *path, unsigned flags, const struct tensor_view *v, struct ov_error *err);
/* The .npy encoding into a malloc'd buffer (the writer's work, for tests and fuzzing). */
int tensorfile_npy_encode(int32_t dtype, const int64_t *dims, size_t rank, const void *raw, uint8_t **buf,
			  size_t *len, struct ov_error *err);

#endif
