/* CPU quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, with the arithmetic the CUDA
 * kernels share (src/exec/ops/ov-quant.h) and the checks of src/exec/ops/quant.c. */
#include "config.h"

#include <inttypes.h>

#include "src/exec/exec.h"
#include "src/exec/ops/ov-quant.h"
#include "src/exec/ops/index.h"

#define MAXR XT_MAX_RANK
#define PI 3.14159265358979323846

/* ---- QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear ------------------------------------------------- */

static int k_quantize_linear(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0), *scale = xk_in(k, 1), *zp = xk_in(k, 2);
	struct ov_qparams q;
	double lo = 0, hi = 0;

	if (!x || !scale)
		return xk_fail(k, "x and y_scale are required");
	if (zp && !zp->numel)
		zp = NULL;
	int32_t odt = (int32_t)xk_attr_int(k, "output_dtype", 0);
	int32_t dt = zp ? zp->dtype : odt ? odt : OV_DT_UINT8;
	if (zp && odt && odt != zp->dtype)
		return xk_fail(k, "output_dtype is %s, the zero point %s", dtype_name(odt), dtype_name(zp->dtype));
	int flt = ov_quant_float_type(dt);
	if (!flt && ov_quant_range(dt, &lo, &hi))
		return xk_fail(k, "quantizing to %s is not supported (the 16-, 8-, 4- and 2-bit integers, float8, float6 "
			       "and float4 are)", dtype_name(dt));
	if (ops_quant_setup(k, x, scale, zp, &q) || xk_output(k, 0, dt, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	int single = x->dtype == OV_DT_FLOAT || x->dtype == OV_DT_FLOAT16 || x->dtype == OV_DT_BFLOAT16;
	if (flt) {
		int sat = xk_attr_int(k, "saturate", 1) != 0;
		for (int64_t i = 0; i < x->numel; i++) {
			int64_t p = ov_qparam_index(&q, i);
			((uint8_t *)y->data)[i] = ov_quantize_small(xt_get(x, i), xt_get(scale, p), single,
								    zp ? xt_get(zp, p) : 0.0, dt, sat);
		}
		return 0;
	}
	for (int64_t i = 0; i < x->numel; i++) {
		int64_t p = ov_qparam_index(&q, i);
		xt_set(y, i, ov_quantize(xt_get(x, i), xt_get(scale, p), single, zp != NULL, zp ? xt_get_int(zp, p) : 0,
					 lo, hi));
	}
	return 0;
}

static int k_dequantize_linear(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0), *scale = xk_in(k, 1), *zp = xk_in(k, 2);
	struct ov_qparams q;

	if (!x || !scale)
		return xk_fail(k, "x and x_scale are required");
	if (zp && !zp->numel)
		zp = NULL;
	double lo = 0, hi = 0;
	int flt = ov_quant_float_type(x->dtype);
	if (!flt && x->dtype != OV_DT_INT32 && ov_quant_range(x->dtype, &lo, &hi))
		return xk_fail(k, "dequantizing %s is not supported", dtype_name(x->dtype));
	if (zp && zp->dtype != x->dtype)
		return xk_fail(k, "the zero point is %s, x is %s", dtype_name(zp->dtype), dtype_name(x->dtype));
	int32_t dt = (int32_t)xk_attr_int(k, "output_dtype", 0);
	if (!dt)
		dt = scale->dtype;
	if (dt != OV_DT_FLOAT && dt != OV_DT_FLOAT16 && dt != OV_DT_BFLOAT16 && dt != OV_DT_DOUBLE)
		return xk_fail(k, "dequantizing to %s is not supported", dtype_name(dt));
	if (ops_quant_setup(k, x, scale, zp, &q) || xk_output(k, 0, dt, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	for (int64_t i = 0; i < x->numel; i++) {
		int64_t p = ov_qparam_index(&q, i);
		if (flt)
			xt_set(y, i, ov_dequantize_f((float)xt_get(x, i), zp != NULL, zp ? (float)xt_get(zp, p) : 0.0f,
						     xt_get(scale, p)));
		else
			xt_set(y, i, ov_dequantize(xt_get_int(x, i), zp != NULL, zp ? xt_get_int(zp, p) : 0,
						   xt_get(scale, p)));
	}
	return 0;
}

static int k_dynamic_quantize_linear(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);

	if (!x)
		return xk_fail(k, "input 0 is missing");
	if (x->dtype != OV_DT_FLOAT)
		return xk_fail(k, "DynamicQuantizeLinear takes float32, not %s", dtype_name(x->dtype));
	if (k->n_out < 3)
		return xk_fail(k, "DynamicQuantizeLinear needs its three outputs");
	const float *xv = x->data;
	float mx = 0, mn = 0;
	for (int64_t i = 0; i < x->numel; i++) {
		if (xv[i] != xv[i])
			return xk_fail(k, "x holds NaN at %" PRId64 ", which has no quantization range", i);
		mx = xv[i] > mx ? xv[i] : mx;
		mn = xv[i] < mn ? xv[i] : mn;
	}
	float sc, zp;
	ov_dynq_params(mn, mx, &sc, &zp);
	if (xk_output(k, 0, OV_DT_UINT8, x->rank, x->dims) || xk_output(k, 1, OV_DT_FLOAT, 0, NULL) ||
	    xk_output(k, 2, OV_DT_UINT8, 0, NULL))
		return -1;
	uint8_t *y = k->out[0]->data;
	for (int64_t i = 0; i < x->numel; i++)
		y[i] = ov_dynq_value(xv[i], sc, zp);
	*(float *)k->out[1]->data = sc;
	*(uint8_t *)k->out[2]->data = (uint8_t)zp;
	return 0;
}

const struct exec_kernel cpu_quantize_kernels[] = {
	{.op = "QuantizeLinear", .since = 10, .fn = k_quantize_linear},
	{.op = "DequantizeLinear", .since = 10, .fn = k_dequantize_linear},
	{.op = "DynamicQuantizeLinear", .since = 11, .fn = k_dynamic_quantize_linear},
};
const size_t cpu_quantize_count = sizeof cpu_quantize_kernels / sizeof cpu_quantize_kernels[0];
