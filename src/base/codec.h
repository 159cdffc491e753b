/* The codecs of ONNX's small element types, once for the whole program: float16, bfloat16 and the float8
 * flavours to and from float32, rounding to nearest even, NaN staying NaN with its payload where the format can
 * hold it.  Static inline functions that compile for the host and, under nvcc, for the device too (OV_HD), so the
 * tensor files, the descriptions, the edit engine, the CPU kernels and the CUDA kernels all read and write these
 * types with the same bits.
 *
 * C11 and C++ at once (nvcc compiles .cu files as C++): no compound literals, explicit casts. */
#ifndef OV_BASE_CODEC_H
#define OV_BASE_CODEC_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "src/base/dtype.h"

#if defined(__CUDACC__)
#define OV_HD __host__ __device__
#else
#define OV_HD
#endif

/* ---- bits ---- */

static inline OV_HD uint32_t ov_f32_bits(float f)
{
#if defined(__CUDA_ARCH__)
	return __float_as_uint(f);
#else
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
#endif
}

static inline OV_HD float ov_bits_f32(uint32_t u)
{
#if defined(__CUDA_ARCH__)
	return __uint_as_float(u);
#else
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
#endif
}

/* ---- float16 and bfloat16 (stored as uint16_t; rounding to nearest even, NaN stays NaN) ---- */

static inline OV_HD float ov_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;

	if (exp == 0x1f)
		return ov_bits_f32(sign | 0x7f800000u | (mant << 13));
	if (exp)
		return ov_bits_f32(sign | ((exp + 112) << 23) | (mant << 13));
	/* zero and subnormals: mant * 2^-24, exact in float */
	float v = (float)mant * 5.9604644775390625e-08f;
	return sign ? -v : v;
}

static inline OV_HD uint16_t ov_f32_to_f16(float f)
{
	uint32_t x = ov_f32_bits(f);
	uint32_t sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
	int32_t exp = (int32_t)((x >> 23) & 0xff);

	if (exp == 255)
		return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
	int32_t e = exp - 127 + 15;
	if (e >= 31)
		return (uint16_t)(sign | 0x7c00u);
	if (e <= 0) { /* subnormal half (or zero) */
		if (e < -10)
			return (uint16_t)sign;
		mant |= 0x800000u;
		uint32_t shift = (uint32_t)(14 - e);
		uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rem > half || (rem == half && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = (uint32_t)e << 10 | mant >> 13, rem = mant & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
		h++; /* a carry into the exponent is right, up to infinity */
	return (uint16_t)(sign | h);
}

static inline OV_HD float ov_bf16_to_f32(uint16_t h)
{
	return ov_bits_f32((uint32_t)h << 16);
}

static inline OV_HD uint16_t ov_f32_to_bf16(float f)
{
	uint32_t x = ov_f32_bits(f);

	if ((x & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((x >> 16) | 0x40u);
	x += 0x7fffu + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

/* double to float rounding to odd: converting that float on to 16 bits then rounds as if from the double itself
 * (no double rounding), since float keeps more than twice the bits of either 16-bit format plus two. */
static inline OV_HD float ov_f64_to_f32_odd(double d)
{
	float f = (float)d;

	if ((double)f == d || d != d)
		return f;
	uint32_t b = ov_f32_bits(f);
	if (fabs((double)f) > fabs(d))
		b -= 1; /* (float)d rounded away from zero: step back toward zero (same sign, magnitude - 1 ulp) */
	return ov_bits_f32(b | 1u);
}

static inline OV_HD uint16_t ov_f64_to_f16(double d) { return ov_f32_to_f16(ov_f64_to_f32_odd(d)); }
static inline OV_HD uint16_t ov_f64_to_bf16(double d) { return ov_f32_to_bf16(ov_f64_to_f32_odd(d)); }

/* ONNX's float8 flavours: E4M3FN (bias 7, no inf, NaN = S.1111.111), E4M3FNUZ (bias 8, NaN = 0x80),
 * E5M2 (bias 15, IEEE-like inf/NaN), E5M2FNUZ (bias 16, NaN = 0x80). */
static inline OV_HD float ov_f8_to_f32(uint8_t v, int32_t dtype)
{
	int ebits = (dtype == OV_DT_FLOAT8E5M2 || dtype == OV_DT_FLOAT8E5M2FNUZ) ? 5 : 4;
	int mbits = 7 - ebits;
	int bias = dtype == OV_DT_FLOAT8E4M3FN ? 7 : dtype == OV_DT_FLOAT8E4M3FNUZ ? 8 : dtype == OV_DT_FLOAT8E5M2 ? 15 : 16;
	int fnuz = dtype == OV_DT_FLOAT8E4M3FNUZ || dtype == OV_DT_FLOAT8E5M2FNUZ;
	int s = v >> 7, e = (v >> mbits) & ((1 << ebits) - 1), m = v & ((1 << mbits) - 1);
	float r;

	if (fnuz && v == 0x80)
		return ov_bits_f32(0x7fc00000u);
	if (dtype == OV_DT_FLOAT8E4M3FN && e == 15 && m == 7)
		return ov_bits_f32(0x7fc00000u);
	if (dtype == OV_DT_FLOAT8E5M2 && e == 31)
		return m ? ov_bits_f32(0x7fc00000u) : (s ? ov_bits_f32(0xff800000u) : ov_bits_f32(0x7f800000u));
	if (e == 0)
		r = ldexpf((float)m, 1 - bias - mbits);
	else
		r = ldexpf((float)(m | (1 << mbits)), e - bias - mbits);
	return s ? -r : r;
}

/* A double to float16 or bfloat16 for a value given by a person (edit commands, tensor files): as ov_f64_to_f16
 * and ov_f64_to_bf16, with *over set when a finite x is too large for the type (the result is then infinity). */
static inline uint16_t ov_f64_to_f16_checked(double x, int *over)
{
	uint16_t h = ov_f64_to_f16(x);
	*over = isfinite(x) && (h & 0x7fffu) == 0x7c00u;
	return h;
}

static inline uint16_t ov_f64_to_bf16_checked(double x, int *over)
{
	uint16_t h = ov_f64_to_bf16(x);
	*over = isfinite(x) && (h & 0x7fffu) == 0x7f80u;
	return h;
}

#endif
