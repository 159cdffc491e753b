// Quantization on the CUDA device, as src/exec/cpu/misc.c computes it, element for element with the same
// functions (src/exec/ops/ov-quant.h):
// - QuantizeLinear: x of any numeric type (float32, float16 and bfloat16 divided by the scale in float, the others
//   in double) to uint8, int8, uint16, int16, the packed uint4, int4, uint2, int2 (the zero point's type, else
//   output_dtype, else uint8), rounded half to even, saturated; or to a float8 (saturating unless saturate is 0),
//   float4 or float6 with Cast's rounding; one scale and zero point for the tensor, per index along axis, or per
//   block of block_size indices along it (opset 21).
// - DequantizeLinear: x of any of those types or int32 to float32, float16, bfloat16 or float64 (output_dtype, else
//   the scale's type), in float32 as the reference computes it; the same three ways to find the scale.
// - DynamicQuantizeLinear, float32: the range of x (widened to hold 0) found by one block of the device, which
//   then derives the scale and zero point as the CPU does; x holding NaN is refused with the CPU's message (the
//   device says where: one small copy to the host per run).
// The scale and zero point are read on the device with cu_get_d and ov_get_int, as the CPU's xt_get and xt_get_int
// read them, so constant ones are uploaded once.  What the CPU refuses (int32 or other outputs of QuantizeLinear,
// shapes that do not fit) is declined, for the CPU to name.
#include "config.h"

#include <math.h>
#include <string.h>

#include "src/exec/cuda/backend.h"
#include "src/exec/cuda/points.h"
#include "src/exec/ops/ov-quant.h"

// The zero point (input 2), or NULL when it is left out or empty, as the CPU takes it.
static const struct xtensor *zero_point(const struct exec_kernel_ctx *k)
{
	const struct xtensor *zp = xk_in(k, 2);

	return zp && zp->numel ? zp : NULL;
}

// ---- QuantizeLinear ----

static __global__ void quantize_kernel(struct ov_qparams q, const void *x, int xdt, const void *s, int sdt,
				       const void *zp, int zdt, int single, double lo, double hi, void *y, int ydt,
				       int sat, int64_t n)
{
	CU_FOR(i, n)
	{
		int64_t p = ov_qparam_index(&q, i);
		if (ov_quant_float_type(ydt)) {
			((uint8_t *)y)[i] = ov_quantize_small(cu_get_d(x, xdt, i), cu_get_d(s, sdt, p), single,
							      zp ? ov_qvalue_load(zp, zdt, p) : 0.0, ydt, sat);
			continue;
		}
		double v = ov_quantize(cu_get_d(x, xdt, i), cu_get_d(s, sdt, p), single, zp != NULL,
				       zp ? (int64_t)ov_qvalue_load(zp, zdt, p) : 0, lo, hi);
		switch (ydt) {
		case OV_DT_UINT8: case OV_DT_UINT4: case OV_DT_UINT2: ((uint8_t *)y)[i] = (uint8_t)v; break;
		case OV_DT_INT8: case OV_DT_INT4: case OV_DT_INT2: ((int8_t *)y)[i] = (int8_t)v; break;
		case OV_DT_UINT16: ((uint16_t *)y)[i] = (uint16_t)v; break;
		default: ((int16_t *)y)[i] = (int16_t)v; break;
		}
	}
}

static int k_quantize_linear(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0), *scale = xk_in(k, 1), *zp = zero_point(k);
	struct ov_qparams q;
	struct cu_bufs bufs = {};
	double lo, hi;
	int rc = -1;

	if (!x || !scale || !cu_cast_type(x->dtype) || !cu_cast_type(scale->dtype))
		return EXEC_DECLINE;
	int32_t odt = (int32_t)xk_attr_int(k, "output_dtype", 0);
	int32_t dt = zp ? zp->dtype : odt ? odt : OV_DT_UINT8;
	lo = hi = 0;
	if ((zp && odt && odt != zp->dtype) || (!ov_quant_float_type(dt) && ov_quant_range(dt, &lo, &hi)) ||
	    ops_quant_setup(k, x, scale, zp, &q))
		return EXEC_DECLINE; // the CPU names the type or the shapes
	if (xk_output_raw(k, 0, dt, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	int single = x->dtype == OV_DT_FLOAT || x->dtype == OV_DT_FLOAT16 || x->dtype == OV_DT_BFLOAT16;
	const void *dx = cu_input(k, &bufs, 0), *ds = dx ? cu_input(k, &bufs, 1) : NULL;
	const void *dz = ds && zp ? cu_input(k, &bufs, 2) : NULL;
	void *dy = ds && (!zp || dz) ? cu_alloc(k, &bufs, y->bytes) : NULL;
	if (!dy ||
	    CU_LAUNCH(k, quantize_kernel, cu_grid(y->numel), CU_BLOCK, q, dx, (int)x->dtype, ds, (int)scale->dtype, dz,
		      zp ? (int)zp->dtype : 0, single, lo, hi, dy, (int)dt, (int)(xk_attr_int(k, "saturate", 1) != 0),
		      y->numel) ||
	    cu_output(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// ---- DequantizeLinear ----

static __global__ void dequantize_kernel(struct ov_qparams q, const void *x, int xdt, const void *s, int sdt,
					 const void *zp, void *y, int ydt, int64_t n)
{
	CU_FOR(i, n)
	{
		int64_t p = ov_qparam_index(&q, i);
		float v = ov_quant_float_type(xdt)
			? ov_dequantize_f((float)ov_qvalue_load(x, xdt, i), zp != NULL,
					  zp ? (float)ov_qvalue_load(zp, xdt, p) : 0.0f, cu_get_d(s, sdt, p))
			: ov_dequantize((int64_t)ov_qvalue_load(x, xdt, i), zp != NULL,
					zp ? (int64_t)ov_qvalue_load(zp, xdt, p) : 0, cu_get_d(s, sdt, p));
		cu_store_d(y, ydt, i, (double)v);
	}
}

static int k_dequantize_linear(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0), *scale = xk_in(k, 1), *zp = zero_point(k);
	struct ov_qparams q;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || !scale || !cu_cast_type(scale->dtype))
		return EXEC_DECLINE;
	if (!ov_dequant_type(x->dtype))
		return EXEC_DECLINE;
	int32_t dt = (int32_t)xk_attr_int(k, "output_dtype", 0);
	if (!dt)
		dt = scale->dtype;
	if ((zp && zp->dtype != x->dtype) || !(cu_float_type(dt) || dt == OV_DT_DOUBLE) ||
	    ops_quant_setup(k, x, scale, zp, &q))
		return EXEC_DECLINE; // the CPU names the types or the shapes
	if (xk_output_raw(k, 0, dt, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	const void *dx = cu_input(k, &bufs, 0), *ds = dx ? cu_input(k, &bufs, 1) : NULL;
	const void *dz = ds && zp ? cu_input(k, &bufs, 2) : NULL;
	void *dy = ds && (!zp || dz) ? cu_alloc(k, &bufs, y->bytes) : NULL;
	if (!dy ||
	    CU_LAUNCH(k, dequantize_kernel, cu_grid(y->numel), CU_BLOCK, q, dx, (int)x->dtype, ds, (int)scale->dtype, dz,
		      dy, (int)dt, y->numel) ||
	    cu_output(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// ---- DynamicQuantizeLinear ----

// What one block finds over x: the range widened to hold 0 (the CPU's running maximum and minimum from 0, which a
// tree of the same comparisons gives too: without NaN, they are order-free but for the sign of a zero, and -0 never
// replaces the +0 they start from), and the first NaN's index (n when there is none).
struct dynq_found {
	long long nan_at;
	float mn, mx;
};

static __global__ void dynq_range_kernel(const float *x, int64_t n, float *scale, uint8_t *zp, struct dynq_found *f)
{
	__shared__ float smx[CU_BLOCK], smn[CU_BLOCK];
	__shared__ long long snan[CU_BLOCK];
	float mx = 0, mn = 0;
	long long nan_at = n;

	for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
		float v = x[i];
		if (v != v) {
			nan_at = nan_at < i ? nan_at : i;
			continue;
		}
		mx = v > mx ? v : mx;
		mn = v < mn ? v : mn;
	}
	smx[threadIdx.x] = mx;
	smn[threadIdx.x] = mn;
	snan[threadIdx.x] = nan_at;
	__syncthreads();
	for (unsigned h = blockDim.x / 2; h > 0; h /= 2) {
		if (threadIdx.x < h) {
			unsigned o = threadIdx.x + h;
			smx[threadIdx.x] = smx[o] > smx[threadIdx.x] ? smx[o] : smx[threadIdx.x];
			smn[threadIdx.x] = smn[o] < smn[threadIdx.x] ? smn[o] : smn[threadIdx.x];
			snan[threadIdx.x] = snan[o] < snan[threadIdx.x] ? snan[o] : snan[threadIdx.x];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		float sc, z;
		ov_dynq_params(smn[0], smx[0], &sc, &z);
		*scale = sc;
		*zp = (uint8_t)z;
		f->nan_at = snan[0];
		f->mn = smn[0];
		f->mx = smx[0];
	}
}

static __global__ void dynq_kernel(const float *x, const float *scale, const uint8_t *zp, uint8_t *y, int64_t n)
{
	CU_FOR(i, n)
	y[i] = ov_dynq_value(x[i], *scale, (float)*zp);
}

static int k_dynamic_quantize_linear(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	struct dynq_found f;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || x->dtype != OV_DT_FLOAT || k->n_out < 3)
		return EXEC_DECLINE; // the CPU names the type or the missing outputs
	if (xk_output_raw(k, 0, OV_DT_UINT8, x->rank, x->dims) || xk_output_raw(k, 1, OV_DT_FLOAT, 0, NULL) ||
	    xk_output_raw(k, 2, OV_DT_UINT8, 0, NULL))
		return -1;
	const float *dx = x->numel ? (const float *)cu_input(k, &bufs, 0) : NULL;
	uint8_t *dy = dx || !x->numel ? (uint8_t *)cu_alloc(k, &bufs, (size_t)x->numel) : NULL;
	float *dsc = dy ? (float *)cu_alloc(k, &bufs, sizeof(float)) : NULL;
	uint8_t *dzp = dsc ? (uint8_t *)cu_alloc(k, &bufs, 1) : NULL;
	struct dynq_found *df = dzp ? (struct dynq_found *)cu_alloc(k, &bufs, sizeof f) : NULL;
	if (!df || CU_LAUNCH_SYNC(k, dynq_range_kernel, 1, CU_BLOCK, dx, x->numel, dsc, dzp, df))
		goto out;
	if (x->numel && CU_LAUNCH(k, dynq_kernel, cu_grid(x->numel), CU_BLOCK, dx, (const float *)dsc,
				  (const uint8_t *)dzp, dy, x->numel))
		goto out;
	if (cu_download(k, &f, df, sizeof f))
		goto out;
	if (f.nan_at < x->numel) {
		xk_fail(k, "x holds NaN at %lld, which has no quantization range", f.nan_at);
		goto out;
	}
	if (cu_output(k, &bufs, 0, dy) || cu_output(k, &bufs, 1, dsc) || cu_output(k, &bufs, 2, dzp))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// QuantizeLinear and DequantizeLinear read the opset's attributes themselves (axis from 13, block_size and
// output_dtype from 21); the later rows mark where they came.
const struct exec_kernel cuda_quant_kernels[] = {
	{.op = "DequantizeLinear", .since = 10, .fn = k_dequantize_linear},
	{.op = "DequantizeLinear", .since = 13, .fn = k_dequantize_linear},
	{.op = "DequantizeLinear", .since = 21, .fn = k_dequantize_linear},
	{.op = "DynamicQuantizeLinear", .since = 11, .fn = k_dynamic_quantize_linear},
	{.op = "QuantizeLinear", .since = 10, .fn = k_quantize_linear},
	{.op = "QuantizeLinear", .since = 13, .fn = k_quantize_linear},
	{.op = "QuantizeLinear", .since = 21, .fn = k_quantize_linear},
};
const size_t cuda_quant_count = sizeof cuda_quant_kernels / sizeof cuda_quant_kernels[0];
