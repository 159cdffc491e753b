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

/* ---- the small floats: float8 (four flavours, and E8M0), float6 (two), float4 ----
 * Each is a sign, ebits of exponent with a bias, and mbits of mantissa, with its own specials:
 *   IEEE    FLOAT8E5M2: the top exponent holds infinity (mantissa 0) and NaN
 *   FN      FLOAT8E4M3FN: no infinity, NaN = S.1111.111, the largest finite S.1111.110 (448)
 *   FNUZ    FLOAT8E4M3FNUZ, FLOAT8E5M2FNUZ: no infinity, no negative zero: 0x80 is the one NaN
 *   FINITE  FLOAT4E2M1, FLOAT6E2M3, FLOAT6E3M2: every code a finite number
 * FLOAT8E8M0 (the MX scale) is 2^(code - 127), 0xff NaN, no sign, no zero.  In a runtime tensor each element of
 * these types takes one byte holding its code in the low bits. */
enum ov_small_kind { OV_SMALL_IEEE, OV_SMALL_FN, OV_SMALL_FNUZ, OV_SMALL_FINITE };

struct ov_small_fmt {
	int ebits, mbits, bias;
	enum ov_small_kind kind;
};

/* The format of a small float type: 0, or -1 for another type (E8M0 included: it has a codec of its own). */
static inline OV_HD int ov_small_format(int32_t dt, struct ov_small_fmt *f)
{
	switch (dt) {
	case OV_DT_FLOAT8E4M3FN: f->ebits = 4, f->mbits = 3, f->bias = 7, f->kind = OV_SMALL_FN; return 0;
	case OV_DT_FLOAT8E4M3FNUZ: f->ebits = 4, f->mbits = 3, f->bias = 8, f->kind = OV_SMALL_FNUZ; return 0;
	case OV_DT_FLOAT8E5M2: f->ebits = 5, f->mbits = 2, f->bias = 15, f->kind = OV_SMALL_IEEE; return 0;
	case OV_DT_FLOAT8E5M2FNUZ: f->ebits = 5, f->mbits = 2, f->bias = 16, f->kind = OV_SMALL_FNUZ; return 0;
	case OV_DT_FLOAT4E2M1: f->ebits = 2, f->mbits = 1, f->bias = 1, f->kind = OV_SMALL_FINITE; return 0;
	case OV_DT_FLOAT6E2M3: f->ebits = 2, f->mbits = 3, f->bias = 1, f->kind = OV_SMALL_FINITE; return 0;
	case OV_DT_FLOAT6E3M2: f->ebits = 3, f->mbits = 2, f->bias = 3, f->kind = OV_SMALL_FINITE; return 0;
	default: return -1;
	}
}

/* True for the types whose elements are small float codes (the float8s, E8M0, float6, float4). */
static inline OV_HD int ov_is_small_float(int32_t dt)
{
	struct ov_small_fmt f;

	return dt == OV_DT_FLOAT8E8M0 || !ov_small_format(dt, &f);
}

static inline OV_HD float ov_e8m0_to_f32(uint8_t v)
{
	if (v == 0xff)
		return ov_bits_f32(0x7fc00000u);
	/* 2^(v-127): a float exponent field, or for v = 0 the subnormal 2^-127 */
	return v ? ov_bits_f32((uint32_t)v << 23) : ov_bits_f32(0x00400000u);
}

/* A small float's code (low bits of v) as float32, exact. */
static inline OV_HD float ov_small_to_f32(uint8_t v, int32_t dt)
{
	struct ov_small_fmt f;

	if (dt == OV_DT_FLOAT8E8M0)
		return ov_e8m0_to_f32(v);
	if (ov_small_format(dt, &f))
		return ov_bits_f32(0x7fc00000u);
	int nb = f.ebits + f.mbits;
	uint32_t sbit = 1u << nb, emax = (1u << f.ebits) - 1;
	uint32_t s = (v & sbit) != 0, e = (v >> f.mbits) & emax, m = v & ((1u << f.mbits) - 1);
	v &= (uint8_t)((sbit << 1) - 1);
	if (f.kind == OV_SMALL_FNUZ && v == sbit)
		return ov_bits_f32(0x7fc00000u);
	if (f.kind == OV_SMALL_FN && e == emax && m == (1u << f.mbits) - 1)
		return ov_bits_f32(0x7fc00000u);
	if (f.kind == OV_SMALL_IEEE && e == emax)
		return m ? ov_bits_f32(0x7fc00000u) : ov_bits_f32(s ? 0xff800000u : 0x7f800000u);
	float r = e ? ldexpf((float)(m | (1u << f.mbits)), (int)e - f.bias - f.mbits)
		    : ldexpf((float)m, 1 - f.bias - f.mbits);
	return s ? -r : r;
}

/* The float8 flavours (kept under their old name). */
static inline OV_HD float ov_f8_to_f32(uint8_t v, int32_t dtype)
{
	return ov_small_to_f32(v, dtype);
}

/* float32 to a small float, rounding to nearest even, as ONNX's Cast does.  saturate (Cast's attribute, for the
 * float8s): a value too large for the type, infinity included, becomes the largest finite one of its sign;
 * without it, infinity where the type has one (E5M2), else NaN.  The FINITE types always saturate; NaN, which they
 * cannot hold, becomes 0.  FNUZ types have no negative zero: what rounds to zero is +0. */
static inline OV_HD uint8_t ov_f32_to_small(float x, int32_t dt, int saturate)
{
	struct ov_small_fmt f;

	if (ov_small_format(dt, &f))
		return 0;
	int nb = f.ebits + f.mbits;
	uint32_t bits = ov_f32_bits(x), sbit = 1u << nb, a = bits & 0x7fffffffu;
	uint32_t sign = (bits >> 31) ? sbit : 0;
	uint32_t maxcode, nan, inf;

	switch (f.kind) {
	case OV_SMALL_IEEE:
		maxcode = (((1u << f.ebits) - 2) << f.mbits) | ((1u << f.mbits) - 1);
		inf = ((1u << f.ebits) - 1) << f.mbits;
		nan = sign | inf | (1u << (f.mbits - 1));
		inf |= sign;
		break;
	case OV_SMALL_FN:
		maxcode = sbit - 2;
		nan = inf = sign | (sbit - 1);
		break;
	case OV_SMALL_FNUZ:
		maxcode = sbit - 1;
		nan = inf = sbit;
		break;
	default:
		maxcode = sbit - 1;
		nan = 0;
		inf = sign | maxcode;
		break;
	}
	if (a > 0x7f800000u)
		return (uint8_t)nan;
	if (a == 0x7f800000u)
		return (uint8_t)(saturate || f.kind == OV_SMALL_FINITE ? sign | maxcode : inf);
	int32_t e = (int32_t)(a >> 23) - 127 + f.bias;
	uint32_t mant = a & 0x7fffffu, code;
	if (a < 0x00800000u) { /* zero, or a float32 subnormal: far below half the smallest code */
		code = 0;
	} else if (e >= 1) {
		if (e > (1 << f.ebits) + 1) {
			code = maxcode + 1; /* far past the largest */
		} else {
			uint32_t drop = (uint32_t)(23 - f.mbits), rem = mant & ((1u << drop) - 1), half = 1u << (drop - 1);
			code = ((uint32_t)e << f.mbits) | (mant >> drop);
			if (rem > half || (rem == half && (code & 1)))
				code++;
		}
	} else {
		uint32_t shift = (uint32_t)(23 - f.mbits + 1 - e);
		if (shift > 25) {
			code = 0;
		} else {
			uint32_t full = mant | 0x800000u, rem = full & ((1u << shift) - 1), half = 1u << (shift - 1);
			code = full >> shift;
			if (rem > half || (rem == half && (code & 1)))
				code++;
		}
	}
	if (code > maxcode)
		return (uint8_t)(saturate || f.kind == OV_SMALL_FINITE ? sign | maxcode : inf);
	if (f.kind == OV_SMALL_FNUZ && code == 0)
		return 0;
	return (uint8_t)(sign | code);
}

/* A double to a small float: through float32 rounded to odd, so the one rounding is the one to the small type. */
static inline OV_HD uint8_t ov_f64_to_small(double x, int32_t dt, int saturate)
{
	return ov_f32_to_small(ov_f64_to_f32_odd(x), dt, saturate);
}

/* Cast's and QuantizeLinear's rounding modes for FLOAT8E8M0 (Cast's round_mode attribute: "up" is the default). */
enum ov_e8m0_round { OV_E8M0_UP, OV_E8M0_DOWN, OV_E8M0_NEAREST };

/* float32 to FLOAT8E8M0 as ONNX defines it: the exponent of x (its sign dropped), rounded up when any mantissa bit
 * is set (UP), never (DOWN), or to nearest by the guard bit (NEAREST); saturate keeps the largest finite exponent
 * from rounding into NaN; NaN and infinity become NaN (0xff). */
static inline OV_HD uint8_t ov_f32_to_e8m0(float x, int saturate, enum ov_e8m0_round mode)
{
	uint32_t b = ov_f32_bits(x), e = (b >> 23) & 0xffu, mant = b & 0x7fffffu;
	int up = 0;

	if (e == 0xff)
		return 0xff;
	if (mode == OV_E8M0_UP) {
		up = mant != 0;
	} else if (mode == OV_E8M0_NEAREST) {
		int g = (b & 0x400000u) != 0, r = (b & 0x200000u) != 0, st = (b & 0x1fffffu) != 0, lsb = e > 0;
		up = g && (r || st || lsb);
	}
	if (up && saturate && e == 0xfe)
		up = 0;
	return (uint8_t)(e + (uint32_t)up);
}

/* ---- packed integers and small floats (under 8 bits) ----
 * In a TensorProto's raw_data they are one bit stream, element 0 in the lowest bits of byte 0; in a runtime
 * tensor one byte each: INT4 and INT2 sign-extended into an int8, the others (UINT4, UINT2, FLOAT4E2M1, the
 * float6s) as the code in the low bits of a uint8. */

/* Element i's code (bits wide) from a packed stream. */
static inline OV_HD uint32_t ov_packed_get(const uint8_t *p, int64_t i, int bits)
{
	uint64_t bit = (uint64_t)i * (uint64_t)bits;
	uint32_t w = p[bit / 8];

	if (bit % 8 + (uint64_t)bits > 8)
		w |= (uint32_t)p[bit / 8 + 1] << 8;
	return (w >> (bit % 8)) & ((1u << bits) - 1);
}

/* Store element i's code into a packed stream (the stream zeroed first by the caller). */
static inline OV_HD void ov_packed_put(uint8_t *p, int64_t i, int bits, uint32_t code)
{
	uint64_t bit = (uint64_t)i * (uint64_t)bits;
	uint32_t w = (code & ((1u << bits) - 1)) << (bit % 8);

	p[bit / 8] |= (uint8_t)w;
	if (bit % 8 + (uint64_t)bits > 8)
		p[bit / 8 + 1] |= (uint8_t)(w >> 8);
}

/* A code of a packed type as its runtime byte (sign-extended for INT4 and INT2), and back. */
static inline OV_HD uint8_t ov_packed_widen(uint32_t code, int32_t dt)
{
	if (dt == OV_DT_INT4)
		return (uint8_t)(int8_t)((int)(code & 0xf) - (code & 8 ? 16 : 0));
	if (dt == OV_DT_INT2)
		return (uint8_t)(int8_t)((int)(code & 3) - (code & 2 ? 4 : 0));
	return (uint8_t)code;
}

/* The range of a packed integer type: 0, or -1 for another type. */
static inline OV_HD int ov_packed_int_range(int32_t dt, int *lo, int *hi)
{
	switch (dt) {
	case OV_DT_INT4: *lo = -8, *hi = 7; return 0;
	case OV_DT_UINT4: *lo = 0, *hi = 15; return 0;
	case OV_DT_INT2: *lo = -2, *hi = 1; return 0;
	case OV_DT_UINT2: *lo = 0, *hi = 3; return 0;
	default: return -1;
	}
}

/* An integer into a packed integer type's runtime byte, wrapping as numpy's astype does (int4: 8 -> -8). */
static inline OV_HD uint8_t ov_packed_int_wrap(int64_t v, int32_t dt)
{
	int lo, hi;

	if (ov_packed_int_range(dt, &lo, &hi))
		return (uint8_t)v;
	int bits = hi - lo == 15 ? 4 : 2;
	return ov_packed_widen((uint32_t)((uint64_t)v & ((1u << bits) - 1)), dt);
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
