/* The arithmetic of QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear, shared by the CPU kernels
 * (src/exec/cpu/misc.c) and the CUDA ones (src/exec/cuda/quant.cu): where an element finds its scale and zero
 * point (one for the tensor, one per index along an axis, or one per block of indices along it: opset 21's
 * block_size), the quantized types' ranges, and one element's value, rounded half to even (nearbyint, which both
 * the C library and the CUDA device provide).  Static inline OV_HD functions of plain numbers, so the two backends
 * compute the same bits.  The checks that fill struct ov_qparams are ops_quant_setup (src/exec/ops/quant.c). */
#ifndef OV_EXEC_QUANT_H
#define OV_EXEC_QUANT_H

#include <math.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#include "src/base/dtype.h"
#ifdef __cplusplus
}
#endif
#include "src/base/codec.h"

#ifndef OV_HD
#ifdef __CUDACC__
#define OV_HD __host__ __device__
#else
#define OV_HD
#endif
#endif

/* Element i of x (dims split as outer, D = dims[axis], inner) takes its scale and zero point at
 * ov_qparam_index: 0 for the tensor (per_tensor); else its index along the axis; or, blocked, that of its block of
 * block indices along the axis (sb blocks per axis) in a scale of x's rank. */
struct ov_qparams {
	int64_t D, inner, block, sb;
	int per_tensor, blocked;
};

static inline OV_HD int64_t ov_qparam_index(const struct ov_qparams *q, int64_t i)
{
	if (q->per_tensor)
		return 0;
	int64_t a = (i / q->inner) % q->D;
	if (!q->blocked)
		return a;
	int64_t o = i / (q->inner * q->D);
	return (o * q->sb + a / q->block) * q->inner + i % q->inner;
}

/* The range QuantizeLinear clamps to for an integer output type dt (uint8, int8, uint16, int16, and the packed
 * uint4, int4, uint2, int2): 0, or -1 for another type. */
static inline OV_HD int ov_quant_range(int32_t dt, double *lo, double *hi)
{
	int l, h;

	switch (dt) {
	case OV_DT_UINT8: *lo = 0, *hi = 255; return 0;
	case OV_DT_INT8: *lo = -128, *hi = 127; return 0;
	case OV_DT_UINT16: *lo = 0, *hi = 65535; return 0;
	case OV_DT_INT16: *lo = -32768, *hi = 32767; return 0;
	default:
		if (ov_packed_int_range(dt, &l, &h))
			return -1;
		*lo = l, *hi = h;
		return 0;
	}
}

/* True for the float types QuantizeLinear writes (the four float8s, float4, the float6s). */
static inline OV_HD int ov_quant_float_type(int32_t dt)
{
	struct ov_small_fmt f;

	return !ov_small_format(dt, &f);
}

/* QuantizeLinear's element for a float output type: x / scale (in float for a single-precision input), the zero
 * point added (for float8 it must be 0), then Cast's conversion: rounded to nearest even, saturating (saturate, or
 * always for the types without infinity or NaN). */
static inline OV_HD uint8_t ov_quantize_small(double x, double scale, int single, double zp, int32_t dt, int saturate)
{
	double v = single ? (double)((float)x / (float)scale) : x / scale;

	return ov_f64_to_small(v + zp, dt, saturate);
}

/* QuantizeLinear's element from x and its scale (read as doubles): x / scale in the input's precision (single: a
 * float32, float16 or bfloat16 input divides in float), rounded half to even, the zero point added (has_zp), NaN
 * to 0, clamped to [lo, hi]. */
static inline OV_HD double ov_quantize(double x, double scale, int single, int has_zp, int64_t zp, double lo,
				       double hi)
{
	double v = single ? (double)((float)x / (float)scale) : x / scale;

	v = nearbyint(v);
	if (has_zp)
		v += (double)zp;
	return v != v ? 0 : v < lo ? lo : v > hi ? hi : v;
}

/* DequantizeLinear's element in float32, as the reference computes it: (float(x) - zero_point) * scale. */
static inline OV_HD float ov_dequantize(int64_t x, int has_zp, int64_t zp, double scale)
{
	float d = (float)x - (has_zp ? (float)zp : 0.0f);

	return d * (float)scale;
}

/* The same for x of a float type (float8, float4, float6: their values, decoded exactly into float32). */
static inline OV_HD float ov_dequantize_f(float x, int has_zp, float zp, double scale)
{
	float d = x - (has_zp ? zp : 0.0f);

	return d * (float)scale;
}

/* Element i of a buffer of a quantized type as its runtime tensor holds it (one byte an element for the packed and
 * small float types): the small floats decoded exactly, the integers as integers (in a double, which holds them). */
static inline OV_HD double ov_qvalue_load(const void *p, int32_t dt, int64_t i)
{
	switch (dt) {
	case OV_DT_UINT8: case OV_DT_UINT4: case OV_DT_UINT2: return ((const uint8_t *)p)[i];
	case OV_DT_INT8: case OV_DT_INT4: case OV_DT_INT2: return ((const int8_t *)p)[i];
	case OV_DT_UINT16: return ((const uint16_t *)p)[i];
	case OV_DT_INT16: return ((const int16_t *)p)[i];
	case OV_DT_INT32: return ((const int32_t *)p)[i];
	default: return ov_small_to_f32(((const uint8_t *)p)[i], dt);
	}
}

/* True for the types DequantizeLinear takes as x. */
static inline OV_HD int ov_dequant_type(int32_t dt)
{
	double lo, hi;

	return dt == OV_DT_INT32 || !ov_quant_range(dt, &lo, &hi) || ov_quant_float_type(dt);
}

/* DynamicQuantizeLinear's scale and zero point from the range [mn, mx] of x widened to hold 0, in float32 as the
 * reference computes them (a NaN zero point, from infinite bounds, becomes 0). */
static inline OV_HD void ov_dynq_params(float mn, float mx, float *scale, float *zp)
{
	float sc = (mx == mn ? 1.0f : mx - mn) / 255.0f;
	float izp = 0.0f - mn / sc;

	*scale = sc;
	*zp = nearbyintf(izp > 0 ? (izp < 255 ? izp : 255) : 0);
}

/* An element of DynamicQuantizeLinear's output: x / scale rounded half to even, plus the zero point, clamped to
 * uint8 (NaN, from an infinite x, to 0). */
static inline OV_HD uint8_t ov_dynq_value(float x, float scale, float zp)
{
	float v = nearbyintf(x / scale) + zp;

	return (uint8_t)(v > 0 ? (v < 255 ? v : 255) : 0);
}

#endif
