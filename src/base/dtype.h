/* ONNX tensor element types: names, storage sizes, and which TensorProto field holds typed data. */
#ifndef OV_DTYPE_H
#define OV_DTYPE_H

#include <stddef.h>
#include <stdint.h>

/* Where a TensorProto keeps values of this type when it does not use raw_data. */
enum ov_dtype_field {
	OV_FIELD_NONE,
	OV_FIELD_FLOAT,  /* float_data */
	OV_FIELD_INT32,  /* int32_data */
	OV_FIELD_STRING, /* string_data */
	OV_FIELD_INT64,  /* int64_data */
	OV_FIELD_DOUBLE, /* double_data */
	OV_FIELD_UINT64, /* uint64_data */
};

/* X(enum value in onnx.proto, NAME, bits per element in raw_data (0: not raw-storable), typed field,
 *   typed-field entries per element numerator/denominator).  Every type of onnx 1.23's TensorProto.DataType.
 * Types under 8 bits are packed in raw_data as one little-endian bit stream, the first element in the lowest
 * bits (4-bit: two a byte; 2-bit: four a byte; 6-bit: four in three bytes); in int32_data a 4-bit entry holds
 * two elements, a 2-bit entry four, a 6-bit entry one. */
#define OV_DTYPE_TABLE(X)                                      \
	X(0, UNDEFINED, 0, OV_FIELD_NONE, 1, 1)                \
	X(1, FLOAT, 32, OV_FIELD_FLOAT, 1, 1)                  \
	X(2, UINT8, 8, OV_FIELD_INT32, 1, 1)                   \
	X(3, INT8, 8, OV_FIELD_INT32, 1, 1)                    \
	X(4, UINT16, 16, OV_FIELD_INT32, 1, 1)                 \
	X(5, INT16, 16, OV_FIELD_INT32, 1, 1)                  \
	X(6, INT32, 32, OV_FIELD_INT32, 1, 1)                  \
	X(7, INT64, 64, OV_FIELD_INT64, 1, 1)                  \
	X(8, STRING, 0, OV_FIELD_STRING, 1, 1)                 \
	X(9, BOOL, 8, OV_FIELD_INT32, 1, 1)                    \
	X(10, FLOAT16, 16, OV_FIELD_INT32, 1, 1)               \
	X(11, DOUBLE, 64, OV_FIELD_DOUBLE, 1, 1)               \
	X(12, UINT32, 32, OV_FIELD_UINT64, 1, 1)               \
	X(13, UINT64, 64, OV_FIELD_UINT64, 1, 1)               \
	X(14, COMPLEX64, 64, OV_FIELD_FLOAT, 2, 1)             \
	X(15, COMPLEX128, 128, OV_FIELD_DOUBLE, 2, 1)          \
	X(16, BFLOAT16, 16, OV_FIELD_INT32, 1, 1)              \
	X(17, FLOAT8E4M3FN, 8, OV_FIELD_INT32, 1, 1)           \
	X(18, FLOAT8E4M3FNUZ, 8, OV_FIELD_INT32, 1, 1)         \
	X(19, FLOAT8E5M2, 8, OV_FIELD_INT32, 1, 1)             \
	X(20, FLOAT8E5M2FNUZ, 8, OV_FIELD_INT32, 1, 1)         \
	X(21, UINT4, 4, OV_FIELD_INT32, 1, 2)                  \
	X(22, INT4, 4, OV_FIELD_INT32, 1, 2)                   \
	X(23, FLOAT4E2M1, 4, OV_FIELD_INT32, 1, 2)             \
	X(24, FLOAT8E8M0, 8, OV_FIELD_INT32, 1, 1)             \
	X(25, UINT2, 2, OV_FIELD_INT32, 1, 4)                  \
	X(26, INT2, 2, OV_FIELD_INT32, 1, 4)                   \
	X(27, FLOAT6E2M3, 6, OV_FIELD_INT32, 1, 1)             \
	X(28, FLOAT6E3M2, 6, OV_FIELD_INT32, 1, 1)

enum ov_dtype {
#define OV_X(num, name, bits, field, num_, den_) OV_DT_##name = num,
	OV_DTYPE_TABLE(OV_X)
#undef OV_X
	OV_DT_COUNT
};

/* True for the values onnx.proto (any version onnxview knows) defines. */
int dtype_known(int32_t dt);
/* The newest element type onnxview knows, for the line that refuses a newer one. */
#define OV_DT_LAST (OV_DT_COUNT - 1)
/* The one line for a data_type no version of onnx.proto that onnxview knows defines: a type newer than onnxview
 * (a positive number past OV_DT_LAST) or a number that is no type at all. */
const char *dtype_unknown_reason(int32_t dt, char *buf, size_t n);
/* True for the packed types (under 8 bits a element). */
int dtype_packed(int32_t dt);
/* "FLOAT", "INT64", ...; for an unknown value a static "dtype(N)" string (not thread-safe). */
const char *dtype_name(int32_t dt);
/* Lowercase short name as people write it: float32, int64, float16, bool... */
const char *dtype_short_name(int32_t dt);
/* Parse either spelling (case-insensitive: "float", "FLOAT", "float32", "f32"...); -1 if unknown. */
int dtype_parse(const char *s);
/* Bits per element in raw_data; 0 for STRING/UNDEFINED/unknown. */
int dtype_bits(int32_t dt);
enum ov_dtype_field dtype_field(int32_t dt);
/* Bytes needed for n elements in raw_data (4-bit types pack two per byte). Returns -1 on overflow. */
int64_t dtype_raw_bytes(int32_t dt, int64_t n);
/* Number of typed-field entries for n elements (complex: 2 per element; 4-bit types: one per two elements). */
int64_t dtype_typed_count(int32_t dt, int64_t n);

#endif
