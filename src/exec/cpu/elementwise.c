/* Element-wise ops on the CPU: unary math and activations, broadcasting binary arithmetic, comparisons and logic,
 * variadic Sum/Mean/Min/Max, Clip, Where, Cast, Identity and inference-mode Dropout.
 *
 * The arithmetic itself lives in src/exec/ops/ov-math.h, shared with the CUDA kernels.  Here it is looped over:
 * each op computes in one of a few domains (float32 for float32/float16/bfloat16, double, int64 for the signed
 * and the narrow unsigned integers, uint64), and a tensor of another type is converted to and from the domain in
 * small blocks on the stack.  float32 tensors go straight through, in loops the compiler vectorizes: this is the
 * path a float model runs.  Broadcasting walks rows of the merged output shape (ov_bcast), where every input is
 * either contiguous or a single repeated element. */
#include "config.h"

#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/codec.h"
#include "src/model/describe.h"
#include "src/base/dtype.h"
#include "src/exec/cpu/kernels.h"
#include "src/exec/cpu/vmath.h"
#include "src/exec/exec.h"
#include "src/exec/ops/ov-math.h"

/* Loops in blocks of 8 with a fixed inner count, which GCC vectorizes at -O2 (its cheap cost model refuses loops
 * that would need a scalar epilogue); the tail runs scalar. */
#define FOR_V(n, BODY)                                         \
	do {                                                   \
		int64_t b_ = 0;                                \
		for (; b_ + 8 <= (n); b_ += 8)                 \
			for (int j_ = 0; j_ < 8; j_++) {       \
				int64_t i = b_ + j_;           \
				BODY                           \
			}                                      \
		for (int64_t i = b_; i < (n); i++) {           \
			BODY                                   \
		}                                              \
	} while (0)

/* Elements per block when converting to and from a compute domain. */
#define BLK 256

union blk {
	double d[BLK];
	float f[BLK];
	int64_t i[BLK];
	uint64_t u[BLK];
	uint8_t b[BLK];
};

/* ---- kernel helpers ---- */

static const struct xtensor *need(struct exec_kernel_ctx *k, size_t i)
{
	if (i >= k->n_in || !k->in[i]) {
		xk_fail(k, "input %zu is missing", i);
		return NULL;
	}
	return k->in[i];
}

static const struct xtensor *opt(const struct exec_kernel_ctx *k, size_t i)
{
	return i < k->n_in ? k->in[i] : NULL;
}

static int fail_type(struct exec_kernel_ctx *k, const struct xtensor *t, size_t i)
{
	return xk_fail(k, "input %zu is %s, a type this op does not take", i, dtype_short_name(t->dtype));
}

static int same_type(struct exec_kernel_ctx *k, const struct xtensor *a, size_t ia, const struct xtensor *b,
		     size_t ib)
{
	if (a->dtype == b->dtype)
		return 0;
	return xk_fail(k, "input %zu is %s, input %zu is %s; they must be of one type", ia,
		       dtype_short_name(a->dtype), ib, dtype_short_name(b->dtype));
}

static int is_float(int32_t dt)
{
	return dt == OV_DT_FLOAT || dt == OV_DT_FLOAT16 || dt == OV_DT_BFLOAT16 || dt == OV_DT_DOUBLE;
}

static int is_int(int32_t dt)
{
	switch (dt) {
	case OV_DT_INT8: case OV_DT_INT16: case OV_DT_INT32: case OV_DT_INT64:
	case OV_DT_UINT8: case OV_DT_UINT16: case OV_DT_UINT32: case OV_DT_UINT64:
		return 1;
	default:
		return 0;
	}
}

/* INT4, UINT4, INT2, UINT2: one byte an element at run time (src/base/codec.h) */
static int is_packed_int(int32_t dt)
{
	int lo, hi;

	return !ov_packed_int_range(dt, &lo, &hi);
}

/* The compute domains and the dtype each is held in */
enum dom { DOM_NONE = -1, DOM_F32, DOM_F64, DOM_I64, DOM_U64 };

static enum dom dom_of(int32_t dt)
{
	switch (dt) {
	case OV_DT_FLOAT: case OV_DT_FLOAT16: case OV_DT_BFLOAT16: return DOM_F32;
	case OV_DT_DOUBLE: return DOM_F64;
	case OV_DT_INT8: case OV_DT_INT16: case OV_DT_INT32: case OV_DT_INT64:
	case OV_DT_UINT8: case OV_DT_UINT16: case OV_DT_UINT32: return DOM_I64;
	case OV_DT_UINT64: return DOM_U64;
	default: return DOM_NONE;
	}
}

static const int32_t dom_dtype[] = {OV_DT_FLOAT, OV_DT_DOUBLE, OV_DT_INT64, OV_DT_UINT64};

/* ---- conversions between numeric types (the heart of Cast) ----
 * float to integer truncates toward zero (saturating into int64, NaN to 0), then wraps into narrower integers as
 * numpy does on x86; integers wrap; anything to bool is != 0 (NaN is true); 16-bit floats round to nearest even. */

#define CV_LOOP(TS, TD, EXPR)                                  \
	do {                                                   \
		const TS *s_ = (const TS *)src;                \
		TD *d_ = (TD *)dst;                            \
		for (int64_t i = 0; i < n; i++) {              \
			TS v = s_[i];                          \
			d_[i] = (TD)(EXPR);                    \
		}                                              \
	} while (0)

#define CV_FROM_FLOAT(TS, LD)                                                                   \
	switch (ddt) {                                                                          \
	case OV_DT_FLOAT: CV_LOOP(TS, float, (LD)); return 0;                                   \
	case OV_DT_DOUBLE: CV_LOOP(TS, double, (LD)); return 0;                                 \
	case OV_DT_FLOAT16: CV_LOOP(TS, uint16_t, ov_f64_to_f16(LD)); return 0;                 \
	case OV_DT_BFLOAT16: CV_LOOP(TS, uint16_t, ov_f64_to_bf16(LD)); return 0;               \
	case OV_DT_INT8: CV_LOOP(TS, int8_t, ov_f64_to_i64(LD)); return 0;                      \
	case OV_DT_INT16: CV_LOOP(TS, int16_t, ov_f64_to_i64(LD)); return 0;                    \
	case OV_DT_INT32: CV_LOOP(TS, int32_t, ov_f64_to_i64(LD)); return 0;                    \
	case OV_DT_INT64: CV_LOOP(TS, int64_t, ov_f64_to_i64(LD)); return 0;                    \
	case OV_DT_UINT8: CV_LOOP(TS, uint8_t, ov_f64_to_i64(LD)); return 0;                    \
	case OV_DT_UINT16: CV_LOOP(TS, uint16_t, ov_f64_to_i64(LD)); return 0;                  \
	case OV_DT_UINT32: CV_LOOP(TS, uint32_t, ov_f64_to_i64(LD)); return 0;                  \
	case OV_DT_UINT64: CV_LOOP(TS, uint64_t, ov_f64_to_u64(LD)); return 0;                  \
	case OV_DT_BOOL: CV_LOOP(TS, uint8_t, (LD) != 0); return 0;                             \
	case OV_DT_INT4: case OV_DT_UINT4: case OV_DT_INT2: case OV_DT_UINT2:                   \
		CV_LOOP(TS, uint8_t, ov_packed_int_wrap(ov_f64_to_i64(LD), ddt)); return 0;     \
	case OV_DT_FLOAT8E8M0: CV_LOOP(TS, uint8_t, ov_f32_to_e8m0((float)(LD), sat, rmode)); return 0; \
	default:                                                                                \
		if (!ov_is_small_float(ddt))                                                    \
			return -1;                                                              \
		CV_LOOP(TS, uint8_t, ov_f64_to_small(LD, ddt, sat));                            \
		return 0;                                                                       \
	}

#define CV_FROM_INT(TS, LD)                                                                     \
	switch (ddt) {                                                                          \
	case OV_DT_FLOAT: CV_LOOP(TS, float, (LD)); return 0;                                   \
	case OV_DT_DOUBLE: CV_LOOP(TS, double, (LD)); return 0;                                 \
	case OV_DT_FLOAT16: CV_LOOP(TS, uint16_t, ov_f64_to_f16((double)(LD))); return 0;       \
	case OV_DT_BFLOAT16: CV_LOOP(TS, uint16_t, ov_f64_to_bf16((double)(LD))); return 0;     \
	case OV_DT_INT8: CV_LOOP(TS, int8_t, (LD)); return 0;                                   \
	case OV_DT_INT16: CV_LOOP(TS, int16_t, (LD)); return 0;                                 \
	case OV_DT_INT32: CV_LOOP(TS, int32_t, (LD)); return 0;                                 \
	case OV_DT_INT64: CV_LOOP(TS, int64_t, (LD)); return 0;                                 \
	case OV_DT_UINT8: CV_LOOP(TS, uint8_t, (LD)); return 0;                                 \
	case OV_DT_UINT16: CV_LOOP(TS, uint16_t, (LD)); return 0;                               \
	case OV_DT_UINT32: CV_LOOP(TS, uint32_t, (LD)); return 0;                               \
	case OV_DT_UINT64: CV_LOOP(TS, uint64_t, (LD)); return 0;                               \
	case OV_DT_BOOL: CV_LOOP(TS, uint8_t, (LD) != 0); return 0;                             \
	case OV_DT_INT4: case OV_DT_UINT4: case OV_DT_INT2: case OV_DT_UINT2:                   \
		CV_LOOP(TS, uint8_t, ov_packed_int_wrap((int64_t)(LD), ddt)); return 0;         \
	case OV_DT_FLOAT8E8M0: CV_LOOP(TS, uint8_t, ov_f32_to_e8m0((float)(LD), sat, rmode)); return 0; \
	default:                                                                                \
		if (!ov_is_small_float(ddt))                                                    \
			return -1;                                                              \
		CV_LOOP(TS, uint8_t, ov_f64_to_small((double)(LD), ddt, sat));                  \
		return 0;                                                                       \
	}

typedef uint8_t v8b __attribute__((vector_size(8)));

/* bool (any byte not 0: 1) or uint8 to float32, 8 at a time: the scalar loop converted one element at a time
 * through a 64-bit integer (1 ns an element: one-hot masks, Equal then Cast, in magika) */
VM_CLONES static void bytes_to_f32(const uint8_t *s, float *d, int64_t n, int boolean)
{
	int64_t i = 0;

	for (; i + 8 <= n; i += 8) {
		v8b b;
		memcpy(&b, s + i, sizeof b);
		if (boolean)
			b = (v8b)(b != 0) & 1;
		STORE8(d + i, __builtin_convertvector(__builtin_convertvector(b, v8i), v8f));
	}
	for (; i < n; i++)
		d[i] = boolean ? (s[i] != 0 ? 1.0f : 0.0f) : (float)s[i];
}

/* float16 to float32, 8 at a time: ov_f16_to_f32's three cases (infinity and NaN, normal, zero and subnormal)
 * computed for every lane and chosen by masks, the same bits (a signaling NaN stays signaling, which F16C's
 * vcvtph2ps would not keep).  The scalar loop took 2 ns an element, and every float16 op converts its inputs. */
VM_CLONES static void f16_to_f32_lanes(const uint16_t *s, float *d, int64_t n)
{
	int64_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint16_t t[8];
		memcpy(t, s + i, sizeof t);
		v8u h = __builtin_convertvector(*(const uint16_t __attribute__((vector_size(16))) *)t, v8u);
		v8u sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
		v8u top = sign | 0x7f800000u | (m << 13), norm = sign | ((e + 112u) << 23) | (m << 13);
		v8u sub = (v8u)(__builtin_convertvector((v8i)m, v8f) * vm_splat(5.9604644775390625e-08f));
		sub |= sign; /* -v for a set sign: the magnitude's bits with the sign on */
		v8u big = (v8u)(e == 0x1fu), zero = (v8u)(e == 0u);
		STORE8(d + i, (v8f)((top & big) | (sub & zero) | (norm & ~(big | zero))));
	}
	for (; i < n; i++)
		d[i] = ov_f16_to_f32(s[i]);
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#include <immintrin.h>
#define HAVE_F16C_PATH 1
/* float32 to float16 by F16C's vcvtps2ph, rounding to nearest even: ov_f32_to_f16's bits for every one of the 2^32
 * floats (compared by hand; NaN quieted with its top payload bits, as the scalar function does) */
__attribute__((target("avx,f16c"))) static void f32_to_f16_f16c(const float *s, uint16_t *d, int64_t n)
{
	int64_t i = 0;

	for (; i + 8 <= n; i += 8)
		_mm_storeu_si128((__m128i *)(void *)(d + i),
				 _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT));
	for (; i < n; i++)
		d[i] = ov_f32_to_f16(s[i]);
}
#endif

#ifdef HAVE_F16C_PATH
/* float16 to float32 by F16C's vcvtph2ps (exact, as ov_f16_to_f32) but for a signaling NaN, which it quiets: a
 * block of 8 that holds one goes through ov_f16_to_f32 */
__attribute__((target("avx,f16c"))) static void f16_to_f32_f16c(const uint16_t *s, float *d, int64_t n)
{
	int64_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__m128i h = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		/* a signaling NaN: exponent all ones, the quiet bit clear, the rest of the mantissa not zero */
		__m128i e = _mm_cmpeq_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7e00)), _mm_set1_epi16(0x7c00));
		__m128i m = _mm_cmpeq_epi16(_mm_and_si128(h, _mm_set1_epi16(0x01ff)), _mm_setzero_si128());
		if (_mm_movemask_epi8(_mm_andnot_si128(m, e))) {
			for (int q = 0; q < 8; q++)
				d[i + q] = ov_f16_to_f32(s[i + q]);
			continue;
		}
		_mm256_storeu_ps(d + i, _mm256_cvtph_ps(h));
	}
	for (; i < n; i++)
		d[i] = ov_f16_to_f32(s[i]);
}
#endif

/* Whether the CPU converts by F16C (a load and a test of what the loader found: no cache to race on) */
static int have_f16c(void)
{
#ifdef HAVE_F16C_PATH
	return __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
#else
	return 0;
#endif
}

/* float32 to float16: F16C where the CPU has it (the scalar loop took 4.5 ns an element) */
static void f32_to_f16(const float *s, uint16_t *d, int64_t n)
{
#ifdef HAVE_F16C_PATH
	if (have_f16c()) {
		f32_to_f16_f16c(s, d, n);
		return;
	}
#endif
	for (int64_t i = 0; i < n; i++)
		d[i] = ov_f32_to_f16(s[i]);
}

/* float16 to float32: F16C where the CPU has it, else the 8 lanes above */
static void f16_to_f32(const uint16_t *s, float *d, int64_t n)
{
#ifdef HAVE_F16C_PATH
	if (have_f16c()) {
		f16_to_f32_f16c(s, d, n);
		return;
	}
#endif
	f16_to_f32_lanes(s, d, n);
}

/* Convert n elements, to the small floats with Cast's saturate and (FLOAT8E8M0) round_mode; -1 for a pair it
 * does not know (strings, complex). */
static int conv_array_cast(void *dst, int32_t ddt, const void *src, int32_t sdt, int64_t n, int sat,
			   enum ov_e8m0_round rmode)
{
	if (n <= 0)
		return 0;
	if (sdt == ddt && sdt != OV_DT_STRING && xt_elem_size(sdt)) {
		memcpy(dst, src, (size_t)n * xt_elem_size(sdt));
		return 0;
	}
	if ((sdt == OV_DT_BOOL || sdt == OV_DT_UINT8) && ddt == OV_DT_FLOAT) {
		bytes_to_f32(src, dst, n, sdt == OV_DT_BOOL);
		return 0;
	}
	/* the 16-bit float paths that float16 and bfloat16 ops take through float32, without a double in between */
	if (sdt == OV_DT_FLOAT && ddt == OV_DT_FLOAT16)
		f32_to_f16(src, dst, n);
	else if (sdt == OV_DT_FLOAT16 && ddt == OV_DT_FLOAT)
		f16_to_f32(src, dst, n);
	else if (sdt == OV_DT_FLOAT && ddt == OV_DT_BFLOAT16)
		CV_LOOP(float, uint16_t, ov_f32_to_bf16(v));
	else if (sdt == OV_DT_BFLOAT16 && ddt == OV_DT_FLOAT)
		CV_LOOP(uint16_t, float, ov_bf16_to_f32(v));
	else
		goto general;
	return 0;
general:
	switch (sdt) {
	case OV_DT_FLOAT: CV_FROM_FLOAT(float, (double)v)
	case OV_DT_DOUBLE: CV_FROM_FLOAT(double, v)
	case OV_DT_FLOAT16: CV_FROM_FLOAT(uint16_t, (double)ov_f16_to_f32(v))
	case OV_DT_BFLOAT16: CV_FROM_FLOAT(uint16_t, (double)ov_bf16_to_f32(v))
	case OV_DT_INT8: case OV_DT_INT4: case OV_DT_INT2: CV_FROM_INT(int8_t, (int64_t)v)
	case OV_DT_INT16: CV_FROM_INT(int16_t, (int64_t)v)
	case OV_DT_INT32: CV_FROM_INT(int32_t, (int64_t)v)
	case OV_DT_INT64: CV_FROM_INT(int64_t, v)
	case OV_DT_UINT8: case OV_DT_UINT4: case OV_DT_UINT2: CV_FROM_INT(uint8_t, (uint64_t)v)
	case OV_DT_UINT16: CV_FROM_INT(uint16_t, (uint64_t)v)
	case OV_DT_UINT32: CV_FROM_INT(uint32_t, (uint64_t)v)
	case OV_DT_UINT64: CV_FROM_INT(uint64_t, v)
	case OV_DT_BOOL: CV_FROM_INT(uint8_t, (uint64_t)(v != 0))
	default:
		if (!ov_is_small_float(sdt))
			return -1;
		CV_FROM_FLOAT(uint8_t, (double)ov_small_to_f32(v, sdt))
	}
}

/* Convert n elements (to the small floats saturating); -1 for a pair it does not know (strings, complex). */
static int conv_array(void *dst, int32_t ddt, const void *src, int32_t sdt, int64_t n)
{
	return conv_array_cast(dst, ddt, src, sdt, n, 1, OV_E8M0_UP);
}

static int conv_known(int32_t dt, int as_target)
{
	(void)as_target;
	return dt == OV_DT_BOOL || is_int(dt) || is_float(dt) || is_packed_int(dt) || ov_is_small_float(dt);
}

/* ---- unary ops ---- */

struct uparams {
	double a, b, c;
	int64_t ia, ib;
	uint64_t ua, ub;
};

typedef void (*un_fn)(const void *x, void *y, int64_t n, const struct uparams *p);

/* One op's loops per domain (NULL: the op does not take that domain); out_bool: the output is bool; in_place: its
 * float32 loop may write over its input (8 elements read before any is written: DEF_UNFV's), which run_unary does
 * when the node is the input's last reader. */
struct un_family {
	un_fn f32, f64, i64, u64;
	int out_bool;
	int in_place;
};

/* (GCC honours restrict on parameters, not on locals: the loop lives in an inline function of its own.) */
#define DEF_UN(name, TX, TY, EXPR)                                                                        \
	static inline __attribute__((always_inline)) void name##_loop(const TX *restrict X, TY *restrict Y, int64_t n, const struct uparams *p) \
	{                                                                                                 \
		const struct uparams P = *p;                                                              \
		(void)P;                                                                                  \
		FOR_V(n, {                                                                                \
			TX x = X[i];                                                                      \
			Y[i] = (TY)(EXPR);                                                                \
		});                                                                                       \
	}                                                                                                 \
	VM_CLONES static void name(const void *x, void *y, int64_t n, const struct uparams *p)            \
	{                                                                                                 \
		name##_loop((const TX *)x, (TY *)y, n, p);                                                \
	}

/* float ops whose float32 loop goes 8 floats at a time (src/exec/cpu/vmath.h: VEXPR of the v8f x), the last few
 * through a buffer of 8, so that every element takes the same operations (F32V_EACH: STEP turning x, loaded from
 * X, into what is stored to Y, from i on; F32V_REST: x = VEXPR) */
#define F32V_EACH(STEP)                                                                                   \
	for (; i + 8 <= n; i += 8) {                                                                      \
		v8f x = LOAD8(X + i);                                                                     \
		STEP;                                                                                     \
		STORE8(Y + i, x);                                                                         \
	}                                                                                                 \
	if (i < n) {                                                                                      \
		float t[8] = {0};                                                                         \
		memcpy(t, X + i, (size_t)(n - i) * sizeof *t);                                            \
		v8f x = LOAD8(t);                                                                         \
		STEP;                                                                                     \
		memcpy(Y + i, &x, (size_t)(n - i) * sizeof *Y);                                           \
	}
#define F32V_REST(VEXPR) F32V_EACH(x = (VEXPR))
#define DEF_F32V(name, VEXPR)                                                                             \
	VM_CLONES static void name(const void *xv, void *yv, int64_t n, const struct uparams *p)          \
	{                                                                                                 \
		const float *X = xv;                                                                      \
		float *Y = yv;                                                                            \
		const float a_ = (float)p->a, b_ = (float)p->b;                                           \
		const v8f A = {a_, a_, a_, a_, a_, a_, a_, a_}, B = {b_, b_, b_, b_, b_, b_, b_, b_};     \
		(void)A, (void)B;                                                                         \
		int64_t i = 0;                                                                            \
		F32V_REST(VEXPR)                                                                          \
	}
#define DEF_UNFV(op, VEXPR, ED)                                                                           \
	DEF_F32V(op##_f32, VEXPR)                                                                         \
	DEF_UN(op##_f64, double, double, ED)                                                              \
	static const struct un_family op##_fam = {op##_f32, op##_f64, NULL, NULL, 0, 1};
/* The same, without parameters, VM_W vectors at a time first: VW (a statement) turns xw[0..VM_W) into yw with
 * VEXPR's operations on each (vmath.h's _w forms: the same bits, the arithmetic units kept busier) */
#define DEF_F32VW(name, VW, VEXPR)                                                                        \
	VM_CLONES static void name(const void *xv, void *yv, int64_t n, const struct uparams *p)          \
	{                                                                                                 \
		const float *X = xv;                                                                      \
		float *Y = yv;                                                                            \
		int64_t i = 0;                                                                            \
		(void)p;                                                                                  \
		for (; i + 8 * VM_W <= n; i += 8 * VM_W) {                                                \
			v8f xw[VM_W], yw[VM_W];                                                           \
			for (int j = 0; j < VM_W; j++)                                                    \
				xw[j] = LOAD8(X + i + 8 * j);                                             \
			VW;                                                                               \
			for (int j = 0; j < VM_W; j++)                                                    \
				STORE8(Y + i + 8 * j, yw[j]);                                             \
		}                                                                                         \
		F32V_REST(VEXPR)                                                                          \
	}
#define DEF_UNFVW(op, VW, VEXPR, ED)                                                                      \
	DEF_F32VW(op##_f32, VW, VEXPR)                                                                    \
	DEF_UN(op##_f64, double, double, ED)                                                              \
	static const struct un_family op##_fam = {op##_f32, op##_f64, NULL, NULL, 0, 1};

/* float ops: float32 and double loops */
#define DEF_UNF(op, EF, ED)                              \
	DEF_UN(op##_f32, float, float, EF)               \
	DEF_UN(op##_f64, double, double, ED)             \
	static const struct un_family op##_fam = {op##_f32, op##_f64, NULL, NULL, 0, 0};

/* numeric ops: float, int64 and uint64 loops */
#define DEF_UNN(op, EF, ED, EI, EU)                      \
	DEF_UN(op##_f32, float, float, EF)               \
	DEF_UN(op##_f64, double, double, ED)             \
	DEF_UN(op##_i64, int64_t, int64_t, EI)           \
	DEF_UN(op##_u64, uint64_t, uint64_t, EU)         \
	static const struct un_family op##_fam = {op##_f32, op##_f64, op##_i64, op##_u64, 0, 0};

DEF_UNN(abs, fabsf(x), fabs(x), ov_abs_i64(x), x)
DEF_UNN(neg, -x, -x, ov_neg_i64(x), 0 - x)
DEF_UNN(relu, ov_relu_f(x), ov_relu_d(x), x < 0 ? 0 : x, x)
DEF_UNN(sign, ov_sign_f(x), ov_sign_d(x), ov_sign_i64(x), x > 0)
DEF_UNN(shrink, ov_shrink_f(x, (float)P.a, (float)P.b), ov_shrink_d(x, P.a, P.b),
	ov_f64_to_i64(ov_shrink_d((double)x, P.a, P.b)), ov_f64_to_u64(ov_shrink_d((double)x, P.a, P.b)))
DEF_UNN(clip, ov_clip_f(x, (float)P.a, (float)P.b), ov_clip_d(x, P.a, P.b),
	x < P.ia ? (P.ia > P.ib ? P.ib : P.ia) : x > P.ib ? P.ib : x,
	x < P.ua ? (P.ua > P.ub ? P.ub : P.ua) : x > P.ub ? P.ub : x)
DEF_UNF(sqrt, sqrtf(x), sqrt(x))
DEF_UNF(reciprocal, ov_reciprocal_f(x), ov_reciprocal_d(x))
DEF_UNFVW(exp, vm_exp_n(xw, yw, VM_W), vm_exp(x), exp(x))
DEF_UNFVW(log, vm_log_n(xw, yw, VM_W), vm_log(x), log(x))
DEF_UNFVW(erf, vm_erf_n(xw, yw, VM_W), vm_erf(x), erf(x))
DEF_UNF(sin, sinf(x), sin(x))
DEF_UNF(cos, cosf(x), cos(x))
DEF_UNF(tan, tanf(x), tan(x))
DEF_UNF(asin, asinf(x), asin(x))
DEF_UNF(acos, acosf(x), acos(x))
DEF_UNF(atan, atanf(x), atan(x))
DEF_UNF(sinh, sinhf(x), sinh(x))
DEF_UNF(cosh, coshf(x), cosh(x))
DEF_UNF(asinh, asinhf(x), asinh(x))
DEF_UNF(acosh, acoshf(x), acosh(x))
DEF_UNF(atanh, atanhf(x), atanh(x))
DEF_UNFVW(tanh, vm_tanh_n(xw, yw, VM_W), vm_tanh(x), tanh(x))
DEF_UNF(floor, floorf(x), floor(x))
DEF_UNF(ceil, ceilf(x), ceil(x))
DEF_UNF(round, ov_round_f(x), ov_round_d(x))
DEF_UNFVW(sigmoid, vm_sigmoid_n(xw, yw, VM_W), vm_sigmoid(x), ov_sigmoid_d(x))
DEF_UNFV(hard_sigmoid, vm_hard_sigmoid(x, A, B), ov_hard_sigmoid_d(x, P.a, P.b))
/* x * sigmoid(x) in place, for the SiLU a Conv applies (exec_act): the Sigmoid kernel's operations, then the
 * product as Mul computes it */
DEF_F32VW(silu_f32, vm_sigmoid_n(xw, yw, VM_W); for (int j = 0; j < VM_W; j++) yw[j] = xw[j] * yw[j], x * vm_sigmoid(x))
void cpu_silu_f(float *y, int64_t n)
{
	static const struct uparams none; /* SiLU has no parameters */

	silu_f32(y, y, n, &none);
}

DEF_UNFV(hard_swish, x * vm_hard_sigmoid(x, vm_splat(1.0f / 6.0f), vm_splat(0.5f)), ov_hard_swish_d(x))
/* What follows a BatchNormalization fused into a Conv (exec_bn_offer), in place, in one pass with the
 * BatchNormalization's y * a + b before it (ab: {a, b}; NULL: none, done already): each its kernel's operations in
 * its order, 8 lanes at a time (F32V_EACH, as DEF_F32V), STEP turning x into the result. */
#define DEF_BN_THEN(name, STEP)                                                                                   \
	VM_CLONES static void name(float *y, int64_t n, const float *ab, const struct exec_bn_offer *bn,          \
				   const struct act8 *ac)                                                         \
	{                                                                                                         \
		const v8f av = vm_splat(ab ? ab[0] : 1.0f), bv = vm_splat(ab ? ab[1] : 0.0f);                     \
		const v8f A = vm_splat(bn->alpha), B = vm_splat(bn->beta);                                        \
		const float *X = y;                                                                               \
		float *Y = y;                                                                                     \
		(void)A, (void)B, (void)ac;                                                                       \
		int64_t i = 0;                                                                                    \
		F32V_EACH(if (ab) x = x * av + bv; STEP)                                                          \
	}
/* nothing after it (the BatchNormalization kernel's own x * a + b), or a Relu or Clip (the Conv's act8 clamp:
 * their kernels' bits) */
DEF_BN_THEN(bn_alone_f32, (void)x)
DEF_BN_THEN(bn_act_f32, act8_apply(&x, ac))
DEF_BN_THEN(bn_hard_swish_f32, x = x * vm_hard_sigmoid(x, vm_splat(1.0f / 6.0f), vm_splat(0.5f)))
DEF_BN_THEN(bn_hard_sigmoid_f32, x = vm_hard_sigmoid(x, A, B))
/* HardSwish as nodes: y * act(y + alpha) / beta, as the Add (with the Relu or Clip fused into it), Mul and Div
 * kernels compute it in turn */
DEF_BN_THEN(bn_hard_swish_nodes_f32, v8f s = x + A; act8_apply(&s, ac); x = x * s / B)

void cpu_bn_then_f(float *y, int64_t n, const float *ab, const struct exec_bn_offer *bn)
{
	struct act8 a;

	act8_init(&a, &bn->act);
	if (bn->unary == EXEC_BN_HARDSWISH)
		bn_hard_swish_f32(y, n, ab, bn, &a);
	else if (bn->unary == EXEC_BN_HARDSIGMOID)
		bn_hard_sigmoid_f32(y, n, ab, bn, &a);
	else if (bn->unary == EXEC_BN_HARDSWISH_NODES)
		bn_hard_swish_nodes_f32(y, n, ab, bn, &a);
	else if (a.on)
		bn_act_f32(y, n, ab, bn, &a);
	else if (ab)
		bn_alone_f32(y, n, ab, bn, &a);
}

/* The same, over nb x c planes of inner >= 8 values in one call, plane p's {a, b} at ab[2 * (p % c)]: for the small
 * planes of a Conv's output (7x7, 14x14), where a call per plane cost more than its arithmetic.  A plane's last
 * values (inner % 8) are its last 8 read before the plane is written, computed again and stored over them: each
 * value comes out of the same operations either way (the same bits), and nothing goes through a buffer. */
#define DEF_BN_PLANES(name, STEP)                                                                                 \
	VM_CLONES static void name(float *y, int64_t planes, int64_t c, int64_t inner, const float *ab,           \
				   const struct exec_bn_offer *bn, const struct act8 *ac)                         \
	{                                                                                                         \
		const v8f A = vm_splat(bn->alpha), B = vm_splat(bn->beta);                                        \
		(void)A, (void)B, (void)ac;                                                                       \
		for (int64_t p = 0, ch = 0; p < planes; p++, ch = ch + 1 == c ? 0 : ch + 1) {                    \
			float *Y = y + p * inner;                                                                 \
			const v8f av = vm_splat(ab[2 * ch]), bv = vm_splat(ab[2 * ch + 1]);                       \
			const v8f end = LOAD8(Y + inner - 8);                                                     \
			int64_t i = 0;                                                                            \
			for (; i + 8 <= inner; i += 8) {                                                          \
				v8f x = LOAD8(Y + i) * av + bv;                                                   \
				STEP;                                                                             \
				STORE8(Y + i, x);                                                                 \
			}                                                                                         \
			if (i < inner) {                                                                          \
				v8f x = end * av + bv;                                                            \
				STEP;                                                                             \
				STORE8(Y + inner - 8, x);                                                         \
			}                                                                                         \
		}                                                                                                 \
	}
DEF_BN_PLANES(bn_alone_planes_f32, (void)x)
DEF_BN_PLANES(bn_act_planes_f32, act8_apply(&x, ac))
DEF_BN_PLANES(bn_hard_swish_planes_f32, x = x * vm_hard_sigmoid(x, vm_splat(1.0f / 6.0f), vm_splat(0.5f)))
DEF_BN_PLANES(bn_hard_sigmoid_planes_f32, x = vm_hard_sigmoid(x, A, B))
DEF_BN_PLANES(bn_hard_swish_nodes_planes_f32, v8f s = x + A; act8_apply(&s, ac); x = x * s / B)

void cpu_bn_planes_f(float *y, int64_t planes, int64_t c, int64_t inner, const float *ab,
		     const struct exec_bn_offer *bn)
{
	struct act8 a;

	act8_init(&a, &bn->act);
	if (bn->unary == EXEC_BN_HARDSWISH)
		bn_hard_swish_planes_f32(y, planes, c, inner, ab, bn, &a);
	else if (bn->unary == EXEC_BN_HARDSIGMOID)
		bn_hard_sigmoid_planes_f32(y, planes, c, inner, ab, bn, &a);
	else if (bn->unary == EXEC_BN_HARDSWISH_NODES)
		bn_hard_swish_nodes_planes_f32(y, planes, c, inner, ab, bn, &a);
	else if (a.on)
		bn_act_planes_f32(y, planes, c, inner, ab, bn, &a);
	else
		bn_alone_planes_f32(y, planes, c, inner, ab, bn, &a);
}

/* ov_leaky_relu_f and ov_thresholded_relu_f by masks (the selects left a branch per element: LeakyRelu took 4.6 ns
 * an element on random signs); the same operations, so the same bits */
DEF_UNFV(leaky_relu, vm_mask((v8u)(x < vm_splat(0.0f)), A * x, x), ov_leaky_relu_d(x, P.a))
/* Elu, Selu and Celu by masks over vm_expm1 and vm_exp: ov_elu_f's, ov_selu_f's and ov_celu_f's operations */
DEF_UNFV(elu, vm_mask((v8u)(x < vm_splat(0.0f)), A * vm_expm1(x), x), ov_elu_d(x, P.a))
DEF_UNFV(selu, vm_mask((v8u)(x <= vm_splat(0.0f)), B * (A * vm_exp(x) - A), B * x), ov_selu_d(x, P.a, P.b))
DEF_UNFV(celu, vm_mask((v8u)(x < vm_splat(0.0f)), A * vm_expm1(x / A), x), ov_celu_d(x, P.a))
DEF_UNFVW(gelu, vm_gelu_n(xw, yw, VM_W), vm_gelu(x), ov_gelu_d(x))
DEF_UNFVW(gelu_tanh, vm_gelu_tanh_n(xw, yw, VM_W), vm_gelu_tanh(x), ov_gelu_tanh_d(x))
DEF_UNFVW(mish, vm_mish_n(xw, yw, VM_W), vm_mish(x), ov_mish_d(x))
DEF_UNF(swish, x * ov_sigmoid_f((float)P.a * x), x * ov_sigmoid_d(P.a * x))
DEF_UNFVW(softplus, vm_softplus_n(xw, yw, VM_W), vm_softplus(x), ov_softplus_d(x))
DEF_UNF(softsign, ov_softsign_f(x), ov_softsign_d(x))
DEF_UNFV(thresholded_relu, (v8f)((v8u)x & (v8u)(x > A)), ov_thresholded_relu_d(x, P.a))
/* Mean's last step: divide by the count in P.a */
DEF_UNF(div_by, x / (float)P.a, x / P.a)

DEF_UN(isnan_f32, float, uint8_t, x != x)
DEF_UN(isnan_f64, double, uint8_t, x != x)
static const struct un_family isnan_fam = {isnan_f32, isnan_f64, NULL, NULL, 1, 0};
DEF_UN(isinf_f32, float, uint8_t, ov_isinf_d((double)x, (int)P.ia, (int)P.ib))
DEF_UN(isinf_f64, double, uint8_t, ov_isinf_d(x, (int)P.ia, (int)P.ib))
static const struct un_family isinf_fam = {isinf_f32, isinf_f64, NULL, NULL, 1, 0};
DEF_UN(not_b, uint8_t, uint8_t, !x)
DEF_UN(bnot_i64, int64_t, int64_t, ~x)
DEF_UN(bnot_u64, uint64_t, uint64_t, ~x)
static const struct un_family bnot_fam = {NULL, NULL, bnot_i64, bnot_u64, 0, 0};

/* Run a unary op from x into y (allocated by the caller with x's dims and the output type). */
static int unary_into(struct exec_kernel_ctx *k, const struct un_family *fam, const struct uparams *p,
		      const struct xtensor *x, struct xtensor *y)
{
	enum dom d = dom_of(x->dtype);
	un_fn fn = d == DOM_F32 ? fam->f32 : d == DOM_F64 ? fam->f64 : d == DOM_I64 ? fam->i64 : d == DOM_U64 ? fam->u64
		 : NULL;

	if (!fn)
		return fail_type(k, x, 0);
	int32_t tin = dom_dtype[d], tout = fam->out_bool ? OV_DT_BOOL : tin;
	if (x->dtype == tin && y->dtype == tout) {
		fn(x->data, y->data, x->numel, p);
		return 0;
	}
	size_t ex = xt_elem_size(x->dtype), ey = xt_elem_size(y->dtype);
	union blk bx, by;
	for (int64_t i = 0; i < x->numel; i += BLK) {
		int64_t m = x->numel - i < BLK ? x->numel - i : BLK;
		conv_array(&bx, tin, (const char *)x->data + (size_t)i * ex, x->dtype, m);
		fn(&bx, &by, m, p);
		conv_array((char *)y->data + (size_t)i * ey, y->dtype, &by, tout, m);
	}
	return 0;
}

static int run_unary(struct exec_kernel_ctx *k, const struct un_family *fam, const struct uparams *p)
{
	const struct xtensor *x = need(k, 0);

	if (!x)
		return -1;
	if (dom_of(x->dtype) == DOM_NONE)
		return fail_type(k, x, 0);
	/* the node is x's last reader: its float32 values are overwritten in place (x's memory is the output) */
	if (x->dtype == OV_DT_FLOAT && fam->in_place && xk_take_input_over(k, 0, 0)) {
		struct xtensor *y = k->out[0];
		fam->f32(y->data, y->data, y->numel, p);
		return 0;
	}
	/* a loop over x's own type writes every element: no zeros first */
	int32_t ty = fam->out_bool ? OV_DT_BOOL : x->dtype;
	int whole = x->dtype == dom_dtype[dom_of(x->dtype)];
	if (whole ? xk_output_raw(k, 0, ty, x->rank, x->dims) : xk_output(k, 0, ty, x->rank, x->dims))
		return -1;
	return unary_into(k, fam, p, x, k->out[0]);
}

#define UNARY_KERNEL(kname, fam)                                    \
	static int kname(struct exec_kernel_ctx *k)                 \
	{                                                           \
		struct uparams p;                                   \
		memset(&p, 0, sizeof p);                            \
		return run_unary(k, &fam, &p);                      \
	}

UNARY_KERNEL(k_abs, abs_fam)
UNARY_KERNEL(k_neg, neg_fam)
UNARY_KERNEL(k_relu, relu_fam)
UNARY_KERNEL(k_sign, sign_fam)
UNARY_KERNEL(k_sqrt, sqrt_fam)
UNARY_KERNEL(k_reciprocal, reciprocal_fam)
UNARY_KERNEL(k_exp, exp_fam)
UNARY_KERNEL(k_log, log_fam)
UNARY_KERNEL(k_erf, erf_fam)
UNARY_KERNEL(k_sin, sin_fam)
UNARY_KERNEL(k_cos, cos_fam)
UNARY_KERNEL(k_tan, tan_fam)
UNARY_KERNEL(k_asin, asin_fam)
UNARY_KERNEL(k_acos, acos_fam)
UNARY_KERNEL(k_atan, atan_fam)
UNARY_KERNEL(k_sinh, sinh_fam)
UNARY_KERNEL(k_cosh, cosh_fam)
UNARY_KERNEL(k_asinh, asinh_fam)
UNARY_KERNEL(k_acosh, acosh_fam)
UNARY_KERNEL(k_atanh, atanh_fam)
UNARY_KERNEL(k_tanh, tanh_fam)
UNARY_KERNEL(k_floor, floor_fam)
UNARY_KERNEL(k_ceil, ceil_fam)
UNARY_KERNEL(k_round, round_fam)
UNARY_KERNEL(k_sigmoid, sigmoid_fam)
UNARY_KERNEL(k_hard_swish, hard_swish_fam)
UNARY_KERNEL(k_mish, mish_fam)
UNARY_KERNEL(k_softplus, softplus_fam)
UNARY_KERNEL(k_softsign, softsign_fam)
UNARY_KERNEL(k_isnan, isnan_fam)
UNARY_KERNEL(k_bitwise_not, bnot_fam)

static int k_hard_sigmoid(struct exec_kernel_ctx *k)
{
	struct uparams p = {.a = xk_attr_float(k, "alpha", 0.2f), .b = xk_attr_float(k, "beta", 0.5f)};
	return run_unary(k, &hard_sigmoid_fam, &p);
}

/* Swish (opset 24): x * sigmoid(alpha * x), SiLU when alpha is 1 */
static int k_swish(struct exec_kernel_ctx *k)
{
	struct uparams p = {.a = xk_attr_float(k, "alpha", 1.0f)};
	return run_unary(k, &swish_fam, &p);
}

static int k_leaky_relu(struct exec_kernel_ctx *k)
{
	struct uparams p = {.a = xk_attr_float(k, "alpha", 0.01f)};
	return run_unary(k, &leaky_relu_fam, &p);
}

static int k_elu(struct exec_kernel_ctx *k)
{
	struct uparams p = {.a = xk_attr_float(k, "alpha", 1.0f)};
	return run_unary(k, &elu_fam, &p);
}

static int k_selu(struct exec_kernel_ctx *k)
{
	struct uparams p = {.a = xk_attr_float(k, "alpha", (float)OV_SELU_ALPHA),
			    .b = xk_attr_float(k, "gamma", (float)OV_SELU_GAMMA)};
	return run_unary(k, &selu_fam, &p);
}

static int k_celu(struct exec_kernel_ctx *k)
{
	struct uparams p = {.a = xk_attr_float(k, "alpha", 1.0f)};
	if (p.a == 0)
		return xk_fail(k, "alpha must not be 0");
	return run_unary(k, &celu_fam, &p);
}

static int k_thresholded_relu(struct exec_kernel_ctx *k)
{
	struct uparams p = {.a = xk_attr_float(k, "alpha", 1.0f)};
	return run_unary(k, &thresholded_relu_fam, &p);
}

static int k_shrink(struct exec_kernel_ctx *k)
{
	struct uparams p = {.a = xk_attr_float(k, "bias", 0.0f), .b = xk_attr_float(k, "lambd", 0.5f)};
	return run_unary(k, &shrink_fam, &p);
}

static int k_gelu(struct exec_kernel_ctx *k)
{
	char buf[32];
	struct uparams p;
	const char *a = xk_attr_str(k, "approximate", "none", buf, sizeof buf);

	memset(&p, 0, sizeof p);
	if (!strcmp(a, "none"))
		return run_unary(k, &gelu_fam, &p);
	if (!strcmp(a, "tanh"))
		return run_unary(k, &gelu_tanh_fam, &p);
	return xk_fail(k, "approximate is \"%s\"; ONNX knows \"none\" and \"tanh\"", a);
}

static int k_isinf(struct exec_kernel_ctx *k)
{
	struct uparams p = {.ia = xk_attr_int(k, "detect_positive", 1), .ib = xk_attr_int(k, "detect_negative", 1)};
	return run_unary(k, &isinf_fam, &p);
}

static int k_not(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = need(k, 0);

	if (!x)
		return -1;
	if (x->dtype != OV_DT_BOOL)
		return fail_type(k, x, 0);
	if (xk_output(k, 0, OV_DT_BOOL, x->rank, x->dims))
		return -1;
	struct uparams p;
	memset(&p, 0, sizeof p);
	not_b(x->data, k->out[0]->data, x->numel, &p);
	return 0;
}

/* Clip's bound (a one-element tensor of x's type) into the params */
static int clip_bound(struct exec_kernel_ctx *k, const struct xtensor *x, size_t i, double *d, int64_t *iv,
		      uint64_t *uv)
{
	const struct xtensor *b = opt(k, i);

	if (!b)
		return 0;
	if (b->numel != 1) {
		char s[160];
		xt_describe(b, s, sizeof s);
		return xk_fail(k, "%s is %s; it must be a scalar", i == 1 ? "min" : "max", s);
	}
	if (same_type(k, x, 0, b, i))
		return -1;
	*d = xt_get(b, 0);
	*iv = xt_get_int(b, 0);
	*uv = (uint64_t)xt_get_int(b, 0);
	return 0;
}

/* Clip-11 and later: min and max are optional scalar inputs of x's type */
static int k_clip(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = need(k, 0);
	struct uparams p = {.a = -INFINITY, .b = INFINITY, .ia = INT64_MIN, .ib = INT64_MAX, .ua = 0, .ub = UINT64_MAX};

	if (!x || clip_bound(k, x, 1, &p.a, &p.ia, &p.ua) || clip_bound(k, x, 2, &p.b, &p.ib, &p.ub))
		return -1;
	return run_unary(k, &clip_fam, &p);
}

/* Clip-1 and Clip-6: min and max are float attributes */
static int k_clip_attr(struct exec_kernel_ctx *k)
{
	struct uparams p = {.a = xk_attr_float(k, "min", -FLT_MAX), .b = xk_attr_float(k, "max", FLT_MAX)};

	p.ia = ov_f64_to_i64(p.a);
	p.ib = ov_f64_to_i64(p.b);
	p.ua = ov_f64_to_u64(p.a < 0 ? 0 : p.a);
	p.ub = ov_f64_to_u64(p.b < 0 ? 0 : p.b);
	return run_unary(k, &clip_fam, &p);
}

/* ---- binary ops with broadcasting ---- */

/* n elements of a and b, each advancing by sa / sb (0 or 1) elements, into y */
typedef void (*bin_fn)(const void *a, int64_t sa, const void *b, int64_t sb, void *y, int64_t n);

/* A binary loop and the types it reads and writes (inputs of other types are converted in blocks) */
struct bin_impl {
	int32_t ta, tb, ty;
	bin_fn fn;
};

#define DEF_BIN(name, TA, TB, TY, EXPR)                                                                 \
	static inline __attribute__((always_inline)) void name##_loop(const TA *restrict A, int64_t sa, const TB *restrict B, int64_t sb, \
				       TY *restrict Y, int64_t n)                                       \
	{                                                                                               \
		if (sa && sb) {                                                                         \
			FOR_V(n, {                                                                      \
				TA a = A[i];                                                            \
				TB b = B[i];                                                            \
				Y[i] = (TY)(EXPR);                                                      \
				(void)b;                                                                \
			});                                                                             \
		} else if (sa) {                                                                        \
			TB b = B[0];                                                                    \
			(void)b;                                                                        \
			FOR_V(n, {                                                                      \
				TA a = A[i];                                                            \
				Y[i] = (TY)(EXPR);                                                      \
			});                                                                             \
		} else if (sb) {                                                                        \
			TA a = A[0];                                                                    \
			FOR_V(n, {                                                                      \
				TB b = B[i];                                                            \
				Y[i] = (TY)(EXPR);                                                      \
				(void)b;                                                                \
			});                                                                             \
		} else {                                                                                \
			TA a = A[0];                                                                    \
			TB b = B[0];                                                                    \
			TY v = (TY)(EXPR);                                                              \
			(void)b;                                                                        \
			for (int64_t i = 0; i < n; i++)                                                 \
				Y[i] = v;                                                               \
		}                                                                                       \
	}                                                                                               \
	VM_CLONES static void name(const void *a, int64_t sa, const void *b, int64_t sb, void *y, int64_t n) \
	{                                                                                               \
		name##_loop((const TA *)a, sa, (const TB *)b, sb, (TY *)y, n);                          \
	}

/* One op's loops per domain; cmp: the output is bool; i32: a loop on int32 operands as they are, where the op
 * gives the same result as in int64 (comparisons: magika's one-hot Equal on int32 went through int64 copies) */
struct bin_family {
	bin_fn f32, f64, i64, u64;
	int cmp;
	bin_fn i32;
};

#define DEF_BIN4(op, EF, ED, EI, EU)                                     \
	DEF_BIN(op##_f32, float, float, float, EF)                       \
	DEF_BIN(op##_f64, double, double, double, ED)                    \
	DEF_BIN(op##_i64, int64_t, int64_t, int64_t, EI)                 \
	DEF_BIN(op##_u64, uint64_t, uint64_t, uint64_t, EU)              \
	static const struct bin_family op##_fam = {op##_f32, op##_f64, op##_i64, op##_u64, 0, NULL};

#define DEF_CMP(op, E)                                                   \
	DEF_BIN(op##_f32, float, float, uint8_t, E)                      \
	DEF_BIN(op##_f64, double, double, uint8_t, E)                    \
	DEF_BIN(op##_i64, int64_t, int64_t, uint8_t, E)                  \
	DEF_BIN(op##_u64, uint64_t, uint64_t, uint8_t, E)                \
	DEF_BIN(op##_i32, int32_t, int32_t, uint8_t, E)                  \
	static const struct bin_family op##_fam = {op##_f32, op##_f64, op##_i64, op##_u64, 1, op##_i32};

DEF_BIN4(add, a + b, a + b, ov_add_i64(a, b), a + b)
DEF_BIN4(sub, a - b, a - b, ov_sub_i64(a, b), a - b)
DEF_BIN4(mul, a * b, a * b, ov_mul_i64(a, b), a * b)
DEF_BIN4(div, a / b, a / b, ov_div_i64(a, b), ov_div_u64(a, b))
DEF_BIN4(mod, ov_mod_f(a, b), ov_mod_d(a, b), ov_mod_i64(a, b), ov_mod_u64(a, b))
DEF_BIN4(fmod, fmodf(a, b), fmod(a, b), ov_fmod_i64(a, b), ov_mod_u64(a, b))
DEF_BIN4(min, ov_min_f(a, b), ov_min_d(a, b), a < b ? a : b, a < b ? a : b)
DEF_BIN4(max, ov_max_f(a, b), ov_max_d(a, b), a > b ? a : b, a > b ? a : b)
/* PRelu in float32 by a mask: the select left a branch per element (4.6 ns each on random signs); the same product,
 * so the same bits */
static inline float prelu_f(float a, float b)
{
	uint32_t m = 0u - (uint32_t)(a < 0.0f);

	return ov_bits_f32((ov_f32_bits(a) & ~m) | (ov_f32_bits(a * b) & m));
}
DEF_BIN4(prelu, prelu_f(a, b), a < 0 ? a * b : a, a < 0 ? ov_mul_i64(a, b) : a, a)
DEF_BIN4(pow, powf(a, b), pow(a, b), ov_pow_i64(a, b), ov_pow_u64(a, b))
/* Pow by a scalar 2 (a decomposed LayerNorm's variance): the product, which is pow's exact result rounded once */
DEF_BIN(square_f32, float, float, float, a * a)
DEF_BIN(square_f64, double, double, double, a * a)
DEF_CMP(eq, a == b)
DEF_CMP(lt, a < b)
DEF_CMP(gt, a > b)
DEF_CMP(le, a <= b)
DEF_CMP(ge, a >= b)
DEF_BIN(band_i64, int64_t, int64_t, int64_t, a & b)
DEF_BIN(band_u64, uint64_t, uint64_t, uint64_t, a & b)
static const struct bin_family band_fam = {NULL, NULL, band_i64, band_u64, 0, NULL};
DEF_BIN(bor_i64, int64_t, int64_t, int64_t, a | b)
DEF_BIN(bor_u64, uint64_t, uint64_t, uint64_t, a | b)
static const struct bin_family bor_fam = {NULL, NULL, bor_i64, bor_u64, 0, NULL};
DEF_BIN(bxor_i64, int64_t, int64_t, int64_t, a ^ b)
DEF_BIN(bxor_u64, uint64_t, uint64_t, uint64_t, a ^ b)
static const struct bin_family bxor_fam = {NULL, NULL, bxor_i64, bxor_u64, 0, NULL};
DEF_BIN(shl_u64, uint64_t, uint64_t, uint64_t, ov_shl_u64(a, b))
DEF_BIN(shr_u64, uint64_t, uint64_t, uint64_t, ov_shr_u64(a, b))
DEF_BIN(shl_i64, int64_t, int64_t, int64_t, ov_shl_i64(a, b))
DEF_BIN(shr_i64, int64_t, int64_t, int64_t, ov_shr_i64(a, b))
DEF_BIN(and_b, uint8_t, uint8_t, uint8_t, (a != 0) & (b != 0))
DEF_BIN(or_b, uint8_t, uint8_t, uint8_t, (a != 0) | (b != 0))
DEF_BIN(xor_b, uint8_t, uint8_t, uint8_t, (a != 0) ^ (b != 0))

static void eq_str(const void *pa, int64_t sa, const void *pb, int64_t sb, void *py, int64_t n)
{
	const char *const *A = (const char *const *)pa, *const *B = (const char *const *)pb;
	uint8_t *Y = (uint8_t *)py;

	for (int64_t i = 0; i < n; i++) {
		const char *a = A[i * sa], *b = B[i * sb];
		Y[i] = !strcmp(a ? a : "", b ? b : "");
	}
}

/* The loop of fam for operands of type dt (bool counts as an integer when allow_bool). */
static int bin_pick(const struct bin_family *fam, int32_t dt, int allow_bool, struct bin_impl *im)
{
	enum dom d = dt == OV_DT_BOOL && allow_bool ? DOM_I64 : dom_of(dt);
	bin_fn fn = d == DOM_F32 ? fam->f32 : d == DOM_F64 ? fam->f64 : d == DOM_I64 ? fam->i64 : d == DOM_U64 ? fam->u64
		 : NULL;

	if (!fn)
		return -1;
	im->ta = im->tb = dom_dtype[d];
	im->ty = fam->cmp ? OV_DT_BOOL : dom_dtype[d];
	im->fn = fn;
	if (dt == OV_DT_INT32 && fam->i32) {
		im->ta = im->tb = OV_DT_INT32;
		im->fn = fam->i32;
	}
	return 0;
}

/* Broadcast shape of a and b into rank/dims, or fail naming both shapes. */
static int bin_shape(struct exec_kernel_ctx *k, const struct xtensor *a, const struct xtensor *b, int *rank,
		     int64_t *dims)
{
	int ranks[2] = {a->rank, b->rank};
	const int64_t *d[2] = {a->dims, b->dims};

	if (ov_bcast_shape(2, ranks, d, rank, dims) < 0)
		return 0;
	char sa[160], sb[160];
	xt_describe(a, sa, sizeof sa);
	xt_describe(b, sb, sizeof sb);
	return xk_fail(k, "shapes %s and %s do not broadcast", sa, sb);
}

/* y = fn(a, b) over the broadcast (y already has the broadcast shape) */
static void bin_run(const struct xtensor *a, const struct xtensor *b, struct xtensor *y, const struct bin_impl *im)
{
	struct ov_bcast bc;
	int ranks[2] = {a->rank, b->rank};
	const int64_t *dims[2] = {a->dims, b->dims};

	ov_bcast_plan(&bc, 2, ranks, dims, y->rank, y->dims);
	int64_t row = bc.dims[bc.rank - 1], rows = row ? bc.numel / row : 0;
	int64_t sa = bc.strides[0][bc.rank - 1], sb = bc.strides[1][bc.rank - 1];
	size_t ea = xt_elem_size(a->dtype), eb = xt_elem_size(b->dtype), ey = xt_elem_size(y->dtype);
	int direct = a->dtype == im->ta && b->dtype == im->tb && y->dtype == im->ty;
	struct ov_bcast_iter it;

	ov_bcast_iter_seek(&bc, &it, 0);
	for (int64_t r = 0; r < rows; r++) {
		const char *pa = (const char *)a->data + (size_t)it.off[0] * ea;
		const char *pb = (const char *)b->data + (size_t)it.off[1] * eb;
		char *py = (char *)y->data + (size_t)(r * row) * ey;
		if (direct) {
			im->fn(pa, sa, pb, sb, py, row);
		} else {
			union blk ba, bb, by;
			for (int64_t j = 0; j < row; j += BLK) {
				int64_t m = row - j < BLK ? row - j : BLK;
				conv_array(&ba, im->ta, pa + (size_t)(j * sa) * ea, a->dtype, sa ? m : 1);
				conv_array(&bb, im->tb, pb + (size_t)(j * sb) * eb, b->dtype, sb ? m : 1);
				im->fn(&ba, sa, &bb, sb, &by, m);
				conv_array(py + (size_t)j * ey, y->dtype, &by, im->ty, m);
			}
		}
		ov_bcast_iter_next(&bc, &it);
	}
}

/* Output 0 = fn(a, b), of type out_dt */
static int bin_exec(struct exec_kernel_ctx *k, const struct xtensor *a, const struct xtensor *b,
		    const struct bin_impl *im, int32_t out_dt)
{
	int rank;
	int64_t dims[XT_MAX_RANK];

	/* bin_run writes every element; only a conversion it cannot make would leave some, so those start at zero */
	int whole = a->dtype == im->ta && b->dtype == im->tb && out_dt == im->ty;
	if (bin_shape(k, a, b, &rank, dims) ||
	    (whole ? xk_output_raw(k, 0, out_dt, rank, dims) : xk_output(k, 0, out_dt, rank, dims)))
		return -1;
	bin_run(a, b, k->out[0], im);
	return 0;
}

/* Opset 1-6 arithmetic broadcast only with broadcast=1, B's dims lining up with A's from 'axis' (or the end). */
static int legacy_view(struct exec_kernel_ctx *k, const struct xtensor *a, const struct xtensor *b,
		       struct xtensor *view)
{
	*view = *b;
	if (k->opset >= 7 || !xk_attr_int(k, "broadcast", 0) || b->rank >= a->rank)
		return 0;
	int64_t axis = xk_attr_int(k, "axis", a->rank - b->rank);
	if (axis < 0)
		axis += a->rank;
	if (axis < 0 || axis + b->rank > a->rank)
		return xk_fail(k, "axis %" PRId64 " does not fit B of rank %d into A of rank %d", axis,
			       b->rank, a->rank);
	view->rank = a->rank;
	for (int d = 0; d < a->rank; d++)
		view->dims[d] = d >= axis && d < axis + b->rank ? b->dims[d - axis] : 1;
	return 0;
}

static int run_binary(struct exec_kernel_ctx *k, const struct bin_family *fam, int allow_bool)
{
	const struct xtensor *a = need(k, 0), *b = a ? need(k, 1) : NULL;
	struct bin_impl im;
	struct xtensor bv;

	if (!a || !b || same_type(k, a, 0, b, 1))
		return -1;
	if (bin_pick(fam, a->dtype, allow_bool, &im))
		return fail_type(k, a, 0);
	if (legacy_view(k, a, b, &bv) || bin_exec(k, a, &bv, &im, fam->cmp ? OV_DT_BOOL : a->dtype))
		return -1;
	/* the Relu or Clip the runner offers (ResNet's Add before its Relu), while the output is still in cache: the
	 * activation kernels' own float arithmetic, so the same bits as running them */
	struct xtensor *y = k->out[0];
	if (k->act.kind != EXEC_ACT_NONE && y->dtype == OV_DT_FLOAT) {
		cpu_act_f(y->data, y->numel, &k->act);
		k->act_done = 1;
	}
	return 0;
}

#define BINARY_KERNEL(kname, fam, allow_bool) \
	static int kname(struct exec_kernel_ctx *k) { return run_binary(k, &fam, allow_bool); }

BINARY_KERNEL(k_add, add_fam, 0)
BINARY_KERNEL(k_sub, sub_fam, 0)
BINARY_KERNEL(k_mul, mul_fam, 0)
BINARY_KERNEL(k_div, div_fam, 0)
BINARY_KERNEL(k_less, lt_fam, 1)
BINARY_KERNEL(k_greater, gt_fam, 1)
BINARY_KERNEL(k_less_equal, le_fam, 1)
BINARY_KERNEL(k_greater_equal, ge_fam, 1)
BINARY_KERNEL(k_bitwise_and, band_fam, 0)
BINARY_KERNEL(k_bitwise_or, bor_fam, 0)
BINARY_KERNEL(k_bitwise_xor, bxor_fam, 0)

static int k_equal(struct exec_kernel_ctx *k)
{
	const struct xtensor *a = need(k, 0), *b = a ? need(k, 1) : NULL;

	if (!a || !b || same_type(k, a, 0, b, 1))
		return -1;
	if (a->dtype == OV_DT_STRING) {
		struct bin_impl im = {OV_DT_STRING, OV_DT_STRING, OV_DT_BOOL, eq_str};
		return bin_exec(k, a, b, &im, OV_DT_BOOL);
	}
	return run_binary(k, &eq_fam, 1);
}

static int run_logic(struct exec_kernel_ctx *k, bin_fn fn)
{
	const struct xtensor *a = need(k, 0), *b = a ? need(k, 1) : NULL;
	struct bin_impl im = {OV_DT_BOOL, OV_DT_BOOL, OV_DT_BOOL, fn};
	struct xtensor bv;

	if (!a || !b || same_type(k, a, 0, b, 1))
		return -1;
	if (a->dtype != OV_DT_BOOL)
		return fail_type(k, a, 0);
	if (legacy_view(k, a, b, &bv))
		return -1;
	return bin_exec(k, a, &bv, &im, OV_DT_BOOL);
}

static int k_and(struct exec_kernel_ctx *k) { return run_logic(k, and_b); }
static int k_or(struct exec_kernel_ctx *k) { return run_logic(k, or_b); }
static int k_xor(struct exec_kernel_ctx *k) { return run_logic(k, xor_b); }

static int k_mod(struct exec_kernel_ctx *k)
{
	int64_t f = xk_attr_int(k, "fmod", 0);

	if (f != 0 && f != 1)
		return xk_fail(k, "fmod is %" PRId64 "; it must be 0 or 1", f);
	return run_binary(k, f ? &fmod_fam : &mod_fam, 0);
}

/* Pow: the output has the base's type; the exponent may be of any numeric type */
static int k_pow(struct exec_kernel_ctx *k)
{
	const struct xtensor *a = need(k, 0), *b = a ? need(k, 1) : NULL;
	struct bin_impl im;
	struct xtensor bv;

	if (!a || !b)
		return -1;
	if (!is_float(a->dtype) && !is_int(a->dtype))
		return fail_type(k, a, 0);
	if (!is_float(b->dtype) && !is_int(b->dtype))
		return fail_type(k, b, 1);
	enum dom d = dom_of(a->dtype);
	if (is_int(a->dtype) && is_float(b->dtype)) /* int base, float exponent: in double, truncated back */
		d = DOM_F64;
	else if (d == DOM_I64 && b->dtype == OV_DT_UINT64)
		d = DOM_U64;
	im.ta = im.tb = im.ty = dom_dtype[d];
	im.fn = d == DOM_F32 ? pow_fam.f32 : d == DOM_F64 ? pow_fam.f64 : d == DOM_I64 ? pow_fam.i64 : pow_fam.u64;
	if (b->numel == 1 && b->dtype == a->dtype && (d == DOM_F32 || d == DOM_F64) && xt_get(b, 0) == 2.0)
		im.fn = d == DOM_F32 ? square_f32 : square_f64;
	if (legacy_view(k, a, b, &bv))
		return -1;
	return bin_exec(k, a, &bv, &im, a->dtype);
}

static int k_bitshift(struct exec_kernel_ctx *k)
{
	char buf[16];
	const char *dir = xk_attr_str(k, "direction", "", buf, sizeof buf);
	const struct xtensor *a = need(k, 0), *b = a ? need(k, 1) : NULL;
	struct bin_impl im = {OV_DT_UINT64, OV_DT_UINT64, OV_DT_UINT64, NULL};

	if (!a || !b || same_type(k, a, 0, b, 1))
		return -1;
	if (!strcmp(dir, "LEFT"))
		im.fn = shl_u64;
	else if (!strcmp(dir, "RIGHT"))
		im.fn = shr_u64;
	else
		return xk_fail(k, "direction is \"%s\"; it must be \"LEFT\" or \"RIGHT\"", dir);
	if (!is_int(a->dtype))
		return fail_type(k, a, 0);
	/* the signed types (opset 28) in int64, with their rules for shifts out of range (ov-math.h) */
	if (dom_of(a->dtype) == DOM_I64 && a->dtype != OV_DT_UINT8 && a->dtype != OV_DT_UINT16 &&
	    a->dtype != OV_DT_UINT32) {
		im.ta = im.tb = im.ty = OV_DT_INT64;
		im.fn = im.fn == shr_u64 ? shr_i64 : shl_i64;
	}
	return bin_exec(k, a, b, &im, a->dtype);
}

/* PRelu: slope broadcasts to X; opset 6 and before also took a per-channel slope of shape [C] */
static int k_prelu(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = need(k, 0), *s = x ? need(k, 1) : NULL;
	struct bin_impl im;
	struct xtensor sv;

	if (!x || !s || same_type(k, x, 0, s, 1))
		return -1;
	if (bin_pick(&prelu_fam, x->dtype, 0, &im))
		return fail_type(k, x, 0);
	sv = *s;
	if (k->opset < 7 && s->rank == 1 && x->rank > 2 && s->dims[0] == x->dims[1] && s->dims[0] != 1) {
		sv.rank = x->rank - 1;
		for (int d = 0; d < sv.rank; d++)
			sv.dims[d] = d ? 1 : s->dims[0];
	}
	return bin_exec(k, x, &sv, &im, x->dtype);
}

/* ---- variadic: Sum, Mean, Min, Max ---- */

static int run_variadic(struct exec_kernel_ctx *k, const struct bin_family *fam, int mean)
{
	size_t n = k->n_in;
	int rank;
	int64_t dims[XT_MAX_RANK];
	struct bin_impl im;
	struct xtensor acc[2];
	int ret = -1;

	if (n == 0)
		return xk_fail(k, "needs at least one input");
	for (size_t i = 0; i < n; i++)
		if (!need(k, i) || same_type(k, k->in[0], 0, k->in[i], i))
			return -1;
	const struct xtensor *first = k->in[0];
	int32_t dt = first->dtype;
	if (bin_pick(fam, dt, 0, &im) || (mean && !is_float(dt)))
		return fail_type(k, first, 0);
	/* the output shape, checked before any work */
	rank = first->rank;
	memcpy(dims, first->dims, sizeof dims);
	for (size_t i = 1; i < n; i++) {
		struct xtensor sofar;
		xt_wrap(&sofar, dt, rank, dims, NULL);
		if (bin_shape(k, &sofar, k->in[i], &rank, dims))
			return -1;
	}
	if (xk_output(k, 0, dt, rank, dims))
		return -1;
	struct xtensor *out = k->out[0];
	if (n == 1 && !mean) {
		if (out->bytes)
			memcpy(out->data, first->data, out->bytes);
		return 0;
	}
	memset(acc, 0, sizeof acc);
	const struct xtensor *cur = first;
	for (size_t i = 1; i < n; i++) {
		struct xtensor *dst = &acc[i & 1];
		if (i == n - 1 && !mean) {
			dst = out;
		} else {
			int r;
			int64_t d[XT_MAX_RANK];
			bin_shape(k, cur, k->in[i], &r, d);
			xt_free(dst);
			if (xt_alloc(dst, im.ty, r, d, k->err))
				goto out;
		}
		bin_run(cur, k->in[i], dst, &im);
		cur = dst;
	}
	if (mean) {
		struct uparams p;
		memset(&p, 0, sizeof p);
		p.a = (double)n;
		unary_into(k, &div_by_fam, &p, cur, out);
	}
	ret = 0;
out:
	xt_free(&acc[0]);
	xt_free(&acc[1]);
	return ret;
}

static int k_sum(struct exec_kernel_ctx *k) { return run_variadic(k, &add_fam, 0); }
static int k_mean(struct exec_kernel_ctx *k) { return run_variadic(k, &add_fam, 1); }
static int k_min(struct exec_kernel_ctx *k) { return run_variadic(k, &min_fam, 0); }
static int k_max(struct exec_kernel_ctx *k) { return run_variadic(k, &max_fam, 0); }

/* ---- Where ---- */

#define WHERE_ROW(T)                                                                     \
	do {                                                                             \
		const T *X = (const T *)x->data + it.off[1], *Yv = (const T *)y->data + it.off[2]; \
		T *O = (T *)out->data + r * row;                                         \
		for (int64_t i = 0; i < row; i++)                                        \
			O[i] = C[i * sc] ? X[i * sx] : Yv[i * sy];                       \
	} while (0)

static int k_where(struct exec_kernel_ctx *k)
{
	const struct xtensor *c = need(k, 0), *x = c ? need(k, 1) : NULL, *y = x ? need(k, 2) : NULL;
	int ranks[3], rank;
	const int64_t *d[3];
	int64_t dims[XT_MAX_RANK];
	struct ov_bcast bc;

	if (!c || !x || !y || same_type(k, x, 1, y, 2))
		return -1;
	if (c->dtype != OV_DT_BOOL)
		return fail_type(k, c, 0);
	size_t es = xt_elem_size(x->dtype);
	if (!es)
		return fail_type(k, x, 1);
	ranks[0] = c->rank, ranks[1] = x->rank, ranks[2] = y->rank;
	d[0] = c->dims, d[1] = x->dims, d[2] = y->dims;
	if (ov_bcast_shape(3, ranks, d, &rank, dims) >= 0) {
		char s0[160], s1[160], s2[160];
		xt_describe(c, s0, sizeof s0);
		xt_describe(x, s1, sizeof s1);
		xt_describe(y, s2, sizeof s2);
		return xk_fail(k, "shapes %s, %s and %s do not broadcast", s0, s1, s2);
	}
	if (xk_output(k, 0, x->dtype, rank, dims))
		return -1;
	struct xtensor *out = k->out[0];
	ov_bcast_plan(&bc, 3, ranks, d, rank, dims);
	int64_t row = bc.dims[bc.rank - 1], rows = row ? bc.numel / row : 0;
	int64_t sc = bc.strides[0][bc.rank - 1], sx = bc.strides[1][bc.rank - 1], sy = bc.strides[2][bc.rank - 1];
	struct ov_bcast_iter it;
	ov_bcast_iter_seek(&bc, &it, 0);
	for (int64_t r = 0; r < rows; r++) {
		const uint8_t *C = (const uint8_t *)c->data + it.off[0];
		if (x->dtype == OV_DT_STRING) {
			char *const *X = (char *const *)x->data + it.off[1], *const *Yv = (char *const *)y->data + it.off[2];
			char **O = (char **)out->data + r * row;
			for (int64_t i = 0; i < row; i++) {
				const char *s = C[i * sc] ? X[i * sx] : Yv[i * sy];
				if (s && !(O[i] = strdup(s)))
					return xk_fail(k, "out of memory");
			}
		} else if (es == 1) {
			WHERE_ROW(uint8_t);
		} else if (es == 2) {
			WHERE_ROW(uint16_t);
		} else if (es == 4) {
			WHERE_ROW(uint32_t);
		} else if (es == 8) {
			WHERE_ROW(uint64_t);
		} else {
			return fail_type(k, x, 1);
		}
		ov_bcast_iter_next(&bc, &it);
	}
	return 0;
}

/* ---- Cast, CastLike, Identity, Dropout ---- */

/* Strings to numbers as numpy's astype does (float() of the text; "NaN", "INF", "-inf" included) */
static int cast_from_string(struct exec_kernel_ctx *k, const struct xtensor *x, struct xtensor *y)
{
	for (int64_t i = 0; i < x->numel; i++) {
		const char *s = ((char *const *)x->data)[i], *end;
		char *e;
		if (!s)
			s = "";
		if (is_int(y->dtype)) {
			long long v = strtoll(s, &e, 10);
			end = e;
			if (end != s && !*end) {
				int64_t v64 = v;
				conv_array((char *)y->data + (size_t)i * xt_elem_size(y->dtype), y->dtype, &v64, OV_DT_INT64, 1);
				continue;
			}
		}
		double d = strtod(s, &e);
		while (*e == ' ' || *e == '\t' || *e == '\n')
			e++;
		if (e == s || *e)
			return xk_fail(k, "element %" PRId64 " \"%.40s\" is not a number", i, s);
		conv_array((char *)y->data + (size_t)i * xt_elem_size(y->dtype), y->dtype, &d, OV_DT_DOUBLE, 1);
	}
	return 0;
}

/* A number as numpy's str() writes it: the shortest digits that read back to the same value, positional from
 * 1e-4 to 1e16 ("0.5", "3.0"), scientific outside ("1e-05"), "nan", "inf". */
static void format_number(char *buf, size_t n, double v, int32_t dt)
{
	if (v != v) {
		snprintf(buf, n, "nan");
		return;
	}
	if (v == INFINITY || v == -INFINITY) {
		snprintf(buf, n, "%s", v > 0 ? "inf" : "-inf");
		return;
	}
	int p = 1, e10 = 0;
	char sci[64];
	for (; p <= 17; p++) {
		snprintf(sci, sizeof sci, "%.*e", p - 1, v);
		double r = strtod(sci, NULL);
		if (dt == OV_DT_FLOAT ? strtof(sci, NULL) == (float)v
		    : dt == OV_DT_FLOAT16 ? ov_f64_to_f16(r) == ov_f64_to_f16(v)
		    : dt == OV_DT_BFLOAT16 ? ov_f64_to_bf16(r) == ov_f64_to_bf16(v)
		    : r == v)
			break;
	}
	if (p > 17)
		p = 17;
	const char *e = strchr(sci, 'e');
	if (e)
		e10 = atoi(e + 1);
	if (v != 0 && !(fabs(v) >= 1e-4 && fabs(v) < 1e16)) {
		snprintf(buf, n, "%s", sci);
		return;
	}
	/* positional, from the shortest digits (not from the value: 65504 in float16 is "65500.0") */
	char dig[32];
	size_t nd = 0, o = 0;
	for (const char *c = sci; *c && *c != 'e' && nd < sizeof dig - 1; c++)
		if (*c >= '0' && *c <= '9')
			dig[nd++] = *c;
	dig[nd] = '\0';
	char out[96];
	if (v < 0 || (v == 0 && signbit(v)))
		out[o++] = '-';
	if (e10 < 0) {
		out[o++] = '0', out[o++] = '.';
		for (int z = 0; z < -e10 - 1; z++)
			out[o++] = '0';
		for (size_t i = 0; i < nd; i++)
			out[o++] = dig[i];
	} else {
		for (int i = 0; i <= e10; i++)
			out[o++] = (size_t)i < nd ? dig[i] : '0';
		out[o++] = '.';
		if ((size_t)e10 + 1 >= nd)
			out[o++] = '0';
		for (size_t i = (size_t)e10 + 1; i < nd; i++)
			out[o++] = dig[i];
	}
	out[o] = '\0';
	snprintf(buf, n, "%s", out);
}

static int cast_to_string(struct exec_kernel_ctx *k, const struct xtensor *x, struct xtensor *y)
{
	char buf[64];

	for (int64_t i = 0; i < x->numel; i++) {
		if (x->dtype == OV_DT_BOOL)
			snprintf(buf, sizeof buf, "%s", ((const uint8_t *)x->data)[i] ? "True" : "False");
		else if (x->dtype == OV_DT_UINT64)
			snprintf(buf, sizeof buf, "%" PRIu64, ((const uint64_t *)x->data)[i]);
		else if (is_int(x->dtype))
			snprintf(buf, sizeof buf, "%" PRId64, xt_get_int(x, i));
		else
			format_number(buf, sizeof buf, xt_get(x, i), x->dtype);
		if (!(((char **)y->data)[i] = strdup(buf)))
			return xk_fail(k, "out of memory");
	}
	return 0;
}

static int copy_strings(struct exec_kernel_ctx *k, const struct xtensor *x, struct xtensor *y)
{
	for (int64_t i = 0; i < x->numel; i++) {
		const char *s = ((char *const *)x->data)[i];
		if (s && !(((char **)y->data)[i] = strdup(s)))
			return xk_fail(k, "out of memory");
	}
	return 0;
}

static int cast_to(struct exec_kernel_ctx *k, const struct xtensor *x, int32_t to)
{
	if (to != OV_DT_STRING && !conv_known(to, 1))
		return xk_fail(k, "casting to %s is not supported by the executor",
			       dtype_known(to) ? dtype_short_name(to) : dtype_name(to));
	if (x->dtype != OV_DT_STRING && !conv_known(x->dtype, 0))
		return fail_type(k, x, 0);
	if (xk_output(k, 0, to, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	if (x->dtype == OV_DT_STRING)
		return to == OV_DT_STRING ? copy_strings(k, x, y) : cast_from_string(k, x, y);
	if (to == OV_DT_STRING)
		return cast_to_string(k, x, y);
	/* saturate (opset 19) and round_mode (opset 24) matter for the small floats only */
	char mode[16];
	xk_attr_str(k, "round_mode", "up", mode, sizeof mode);
	enum ov_e8m0_round rm = !strcmp(mode, "down") ? OV_E8M0_DOWN : !strcmp(mode, "nearest") ? OV_E8M0_NEAREST
			      : OV_E8M0_UP;
	if (strcmp(mode, "up") && rm == OV_E8M0_UP)
		return xk_fail(k, "round_mode is \"%s\" (up, down or nearest)", mode);
	conv_array_cast(y->data, to, x->data, x->dtype, x->numel, xk_attr_int(k, "saturate", 1) != 0, rm);
	return 0;
}

static int k_cast(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = need(k, 0);
	int64_t to = xk_attr_int(k, "to", -1);

	if (!x)
		return -1;
	if (to < 0) { /* Cast-1 named the type as a string */
		char buf[32];
		to = dtype_parse(xk_attr_str(k, "to", "", buf, sizeof buf));
		if (to < 0)
			return xk_fail(k, "attribute 'to' is missing or names no type (\"%s\")", buf);
	}
	if (to > INT32_MAX || !dtype_known((int32_t)to))
		return xk_fail(k, "'to' is %" PRId64 ", which is no ONNX type", to);
	return cast_to(k, x, (int32_t)to);
}

/* BitCast (opset 26): the same bits read as another type of the same width */
static int k_bitcast(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = need(k, 0);
	int64_t to = xk_attr_int(k, "to", -1);

	if (!x)
		return -1;
	if (to <= 0 || to > INT32_MAX || !dtype_known((int32_t)to) || to == OV_DT_STRING || dtype_packed((int32_t)to))
		return xk_fail(k, "'to' is %" PRId64 ", not a type BitCast takes", to);
	if (x->dtype == OV_DT_STRING || dtype_packed(x->dtype))
		return fail_type(k, x, 0);
	if (dtype_bits(x->dtype) != dtype_bits((int32_t)to))
		return xk_fail(k, "%s is %d bits, %s %d: BitCast keeps the width", dtype_short_name(x->dtype),
			       dtype_bits(x->dtype), dtype_short_name((int32_t)to), dtype_bits((int32_t)to));
	if (xk_output(k, 0, (int32_t)to, x->rank, x->dims))
		return -1;
	if (x->bytes)
		memcpy(k->out[0]->data, x->data, x->bytes);
	if (to == OV_DT_BOOL) /* a bool is 0 or 1 */
		for (int64_t i = 0; i < x->numel; i++)
			((uint8_t *)k->out[0]->data)[i] = ((uint8_t *)k->out[0]->data)[i] != 0;
	return 0;
}

static int k_cast_like(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = need(k, 0), *t = x ? need(k, 1) : NULL;

	if (!x || !t)
		return -1;
	return cast_to(k, x, t->dtype);
}

static int copy_to_output(struct exec_kernel_ctx *k, size_t i, const struct xtensor *x)
{
	if (!xt_elem_size(x->dtype))
		return fail_type(k, x, 0);
	if (xk_output(k, i, x->dtype, x->rank, x->dims))
		return -1;
	if (x->dtype == OV_DT_STRING)
		return copy_strings(k, x, k->out[i]);
	if (x->bytes)
		memcpy(k->out[i]->data, x->data, x->bytes);
	return 0;
}

static int k_identity(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = need(k, 0);
	if (x && xt_elem_size(x->dtype) && xk_take_input(k, 0, 0, x->rank, x->dims))
		return 0; /* the node is x's last reader: x itself */
	return x ? copy_to_output(k, 0, x) : -1;
}

/* Inference: the output is the input and the mask all true.  Training mode with a ratio above 0 is random, so it
 * is refused rather than guessed. */
static int k_dropout(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = need(k, 0), *ratio = opt(k, 1), *train = opt(k, 2);

	if (!x)
		return -1;
	if (k->opset >= 12 && train && train->numel && xt_get(train, 0) != 0) {
		double r = ratio && ratio->numel ? xt_get(ratio, 0) : 0.5;
		if (r != 0) /* drawn as numpy's RandomState(seed) draws, so a seeded model repeats the reference */
			return cpu_dropout_train(k, x, r);
	}
	if (copy_to_output(k, 0, x))
		return -1;
	if (k->n_out > 1) {
		int32_t mdt = k->opset >= 10 ? OV_DT_BOOL : x->dtype;
		if (xk_output(k, 1, mdt, x->rank, x->dims))
			return -1;
		uint8_t one = 1;
		for (int64_t i = 0; i < x->numel; i++)
			conv_array((char *)k->out[1]->data + (size_t)i * xt_elem_size(mdt), mdt, &one, OV_DT_BOOL, 1);
	}
	return 0;
}

/* ---- the table (ops first appeared at 'since'; a second row is a change of behaviour) ---- */

extern const struct exec_kernel cpu_elementwise_kernels[];
extern const size_t cpu_elementwise_count;

const struct exec_kernel cpu_elementwise_kernels[] = {
	{.op = "Abs", .since = 1, .fn = k_abs},
	{.op = "Acos", .since = 7, .fn = k_acos},
	{.op = "Acosh", .since = 9, .fn = k_acosh},
	{.op = "Add", .since = 1, .fn = k_add},
	{.op = "And", .since = 1, .fn = k_and},
	{.op = "Asin", .since = 7, .fn = k_asin},
	{.op = "Asinh", .since = 9, .fn = k_asinh},
	{.op = "Atan", .since = 7, .fn = k_atan},
	{.op = "Atanh", .since = 9, .fn = k_atanh},
	{.op = "BitShift", .since = 11, .fn = k_bitshift},
	{.op = "BitwiseAnd", .since = 18, .fn = k_bitwise_and},
	{.op = "BitwiseNot", .since = 18, .fn = k_bitwise_not},
	{.op = "BitwiseOr", .since = 18, .fn = k_bitwise_or},
	{.op = "BitwiseXor", .since = 18, .fn = k_bitwise_xor},
	{.op = "Cast", .since = 1, .fn = k_cast},
	{.op = "CastLike", .since = 15, .fn = k_cast_like},
	{.op = "Ceil", .since = 1, .fn = k_ceil},
	{.op = "Celu", .since = 12, .fn = k_celu},
	{.op = "Clip", .since = 1, .fn = k_clip_attr},
	{.op = "Clip", .since = 11, .fn = k_clip},
	{.op = "Cos", .since = 7, .fn = k_cos},
	{.op = "Cosh", .since = 9, .fn = k_cosh},
	{.op = "Div", .since = 1, .fn = k_div},
	{.op = "Dropout", .since = 1, .fn = k_dropout},
	{.op = "Elu", .since = 1, .fn = k_elu},
	{.op = "Equal", .since = 1, .fn = k_equal},
	{.op = "Erf", .since = 9, .fn = k_erf},
	{.op = "Exp", .since = 1, .fn = k_exp},
	{.op = "Floor", .since = 1, .fn = k_floor},
	{.op = "Gelu", .since = 20, .fn = k_gelu},
	{.op = "Greater", .since = 1, .fn = k_greater},
	{.op = "GreaterOrEqual", .since = 12, .fn = k_greater_equal},
	{.op = "HardSigmoid", .since = 1, .fn = k_hard_sigmoid},
	{.op = "HardSwish", .since = 14, .fn = k_hard_swish},
	{.op = "Swish", .since = 24, .fn = k_swish},
	{.op = "BitCast", .since = 26, .fn = k_bitcast},
	{.op = "Identity", .since = 1, .fn = k_identity},
	{.op = "IsInf", .since = 10, .fn = k_isinf},
	{.op = "IsNaN", .since = 9, .fn = k_isnan},
	{.op = "LeakyRelu", .since = 1, .fn = k_leaky_relu},
	{.op = "Less", .since = 1, .fn = k_less},
	{.op = "LessOrEqual", .since = 12, .fn = k_less_equal},
	{.op = "Log", .since = 1, .fn = k_log},
	{.op = "Max", .since = 1, .fn = k_max},
	{.op = "Mean", .since = 1, .fn = k_mean},
	{.op = "Min", .since = 1, .fn = k_min},
	{.op = "Mish", .since = 18, .fn = k_mish},
	{.op = "Mod", .since = 10, .fn = k_mod},
	{.op = "Mul", .since = 1, .fn = k_mul},
	{.op = "Neg", .since = 1, .fn = k_neg},
	{.op = "Not", .since = 1, .fn = k_not},
	{.op = "Or", .since = 1, .fn = k_or},
	{.op = "Pow", .since = 1, .fn = k_pow},
	{.op = "PRelu", .since = 1, .fn = k_prelu},
	{.op = "Reciprocal", .since = 1, .fn = k_reciprocal},
	{.op = "Relu", .since = 1, .fn = k_relu},
	{.op = "Round", .since = 11, .fn = k_round},
	{.op = "Selu", .since = 1, .fn = k_selu},
	{.op = "Shrink", .since = 9, .fn = k_shrink},
	{.op = "Sigmoid", .since = 1, .fn = k_sigmoid},
	{.op = "Sign", .since = 9, .fn = k_sign},
	{.op = "Sin", .since = 7, .fn = k_sin},
	{.op = "Sinh", .since = 9, .fn = k_sinh},
	{.op = "Softplus", .since = 1, .fn = k_softplus},
	{.op = "Softsign", .since = 1, .fn = k_softsign},
	{.op = "Sqrt", .since = 1, .fn = k_sqrt},
	{.op = "Sub", .since = 1, .fn = k_sub},
	{.op = "Sum", .since = 1, .fn = k_sum},
	{.op = "Tan", .since = 7, .fn = k_tan},
	{.op = "Tanh", .since = 1, .fn = k_tanh},
	{.op = "ThresholdedRelu", .since = 10, .fn = k_thresholded_relu},
	{.op = "Where", .since = 9, .fn = k_where},
	{.op = "Xor", .since = 1, .fn = k_xor},
};

const size_t cpu_elementwise_count = sizeof cpu_elementwise_kernels / sizeof cpu_elementwise_kernels[0];
