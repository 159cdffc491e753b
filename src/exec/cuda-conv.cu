// Conv on the CUDA device through cuDNN (1-D as 2-D with H = 1, and 2-D; groups, strides, dilations, pads and
// auto_pad, bias), float32 (float16 and bfloat16 through float32, as on the CPU).  The window is read by the
// CPU's cpu_window_read and mapped onto cuDNN's descriptors by conv2d_geom_from_window (cuda-geom.c, unit-tested
// without a GPU): asymmetric pads, which cuDNN's descriptors cannot hold, are applied by copying the input into a
// zero-padded buffer first.
//
// This uses cuDNN's legacy convolution API (cudnnConvolutionForward), still in cuDNN 9.  The algorithm comes from
// cuDNN's heuristics (cudnnGetConvolutionForwardAlgorithm_v7), restricted to FMA (full float32) kernels unless
// TF32 was asked for, and is filed as a note on the node, which `onnxview run` prints.
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "src/exec/cuda-backend.h"
#include "src/exec/cuda-geom.h"

// Copy x (n*c planes of ih x iw) into y (planes of h x w, zeros around) at row pt, column pl.
static __global__ void pad_planes(const float *x, float *y, int64_t planes, int64_t ih, int64_t iw, int64_t h,
				  int64_t w, int64_t pt, int64_t pl)
{
	CU_FOR(t, planes * h * w)
	{
		int64_t p = t / (h * w), r = t - p * h * w, i = r / w - pt, j = r % w - pl;
		y[t] = i >= 0 && i < ih && j >= 0 && j < iw ? x[(p * ih + i) * iw + j] : 0.0f;
	}
}

// y[n, m, ...] += bias[m], one float add per element, as the CPU adds it after the product.
static __global__ void add_bias(float *y, const float *b, int64_t total, int64_t m, int64_t plane)
{
	CU_FOR(t, total)
	y[t] += b[(t / plane) % m];
}

static const char *algo_name(cudnnConvolutionFwdAlgo_t a)
{
	switch (a) {
	case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "IMPLICIT_GEMM";
	case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "IMPLICIT_PRECOMP_GEMM";
	case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
	case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "DIRECT";
	case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
	case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT_TILING";
	case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "WINOGRAD";
	case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
	default: return "?";
	}
}

static const char *math_name(cudnnMathType_t m)
{
	switch (m) {
	case CUDNN_DEFAULT_MATH: return "default math";
	case CUDNN_TENSOR_OP_MATH: return "tensor-op math (TF32)";
	case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: return "tensor-op math with conversion";
	case CUDNN_FMA_MATH: return "FMA math (full float32)";
	default: return "?";
	}
}

// The checks of cpu-conv.c's conv_setup; inputs it refuses are declined so that the CPU says what is wrong.
static int conv_inputs_ok(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *wt,
			  const struct xtensor *b, int64_t *group)
{
	if (!x || !wt || !cu_float_type(x->dtype) || wt->dtype != x->dtype || (b && b->dtype != x->dtype))
		return 0;
	if ((x->rank != 3 && x->rank != 4) || wt->rank != x->rank)
		return 0;
	*group = xk_attr_int(k, "group", 1);
	if (*group <= 0 || *group > (1ll << 40) || x->dims[1] % *group || x->dims[1] / *group != wt->dims[1] ||
	    wt->dims[0] % *group)
		return 0;
	if (b && (b->rank != 1 || b->dims[0] != wt->dims[0]))
		return 0;
	return 1;
}

static int k_conv(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in > 0 ? k->in[0] : NULL, *wt = k->n_in > 1 ? k->in[1] : NULL;
	const struct xtensor *b = k->n_in > 2 ? k->in[2] : NULL;
	struct cpu_window win;
	struct conv2d_geom g;
	int64_t group, out[XT_MAX_RANK];
	char why[160];
	struct cu_bufs bufs = {};
	cudnnTensorDescriptor_t xd = NULL, yd = NULL;
	cudnnFilterDescriptor_t wd = NULL;
	cudnnConvolutionDescriptor_t cd = NULL;
	int rc = -1;

	if (!conv_inputs_ok(k, x, wt, b, &group))
		return EXEC_DECLINE;
	if (cpu_window_read(k, x, wt->dims + 2, 0, 0, &win))
		return -1; // the window's own message, as the CPU gives it
	if (conv2d_geom_from_window(&win, x->dims, wt->dims, group, &g, why, sizeof why))
		return EXEC_DECLINE;
	out[0] = x->dims[0];
	out[1] = wt->dims[0];
	for (int i = 0; i < win.n; i++)
		out[2 + i] = win.out[i];
	if (xk_output_raw(k, 0, x->dtype, x->rank, out))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;

	const float *dx = cu_input_f32(k, &bufs, 0), *dw = NULL, *db = NULL;
	float *dy = NULL, *xp = NULL;
	void *ws = NULL;
	size_t ws_size = 0;
	int returned = 0, tf32 = cu_dev.tf32;
	cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
	cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
	cudnnMathType_t math = tf32 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH;
	int on, oc, oh, ow;
	if (!dx || !(dw = cu_input_f32(k, &bufs, 1)) || (b && !(db = cu_input_f32(k, &bufs, 2))))
		goto out;
	if (!(dy = (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float))))
		goto out;
	if (g.explicit_pad) {
		int64_t planes = (int64_t)g.n * g.c, total = planes * g.h * g.w;
		if (!(xp = (float *)cu_alloc(k, &bufs, (size_t)total * sizeof(float))))
			goto out;
		if (CU_LAUNCH(k, pad_planes, cu_grid(total), CU_BLOCK, dx, xp, planes, g.in_h, g.in_w, g.h, g.w, g.pre_b[0],
			      g.pre_b[1]))
			goto out;
		dx = xp;
	}
	if (CU_DNN_OK(k, cu_dnn.create_tensor_descriptor(&xd)) || CU_DNN_OK(k, cu_dnn.create_tensor_descriptor(&yd)) ||
	    CU_DNN_OK(k, cu_dnn.create_filter_descriptor(&wd)) ||
	    CU_DNN_OK(k, cu_dnn.create_convolution_descriptor(&cd)))
		goto out;
	if (CU_DNN_OK(k, cu_dnn.set_tensor4d_descriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, g.n, g.c, g.h, g.w)) ||
	    CU_DNN_OK(k, cu_dnn.set_filter4d_descriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, g.k, g.c / g.group,
							g.kh, g.kw)) ||
	    CU_DNN_OK(k, cu_dnn.set_convolution2d_descriptor(cd, g.pad_h, g.pad_w, g.sh, g.sw, g.dh, g.dw,
							     CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT)) ||
	    CU_DNN_OK(k, cu_dnn.set_convolution_group_count(cd, g.group)) ||
	    CU_DNN_OK(k, cu_dnn.set_convolution_math_type(cd, math)))
		goto out;
	// cuDNN must agree with ONNX on the output's shape, or the copy back would be garbage
	if (CU_DNN_OK(k, cu_dnn.get_convolution2d_forward_output_dim(cd, xd, wd, &on, &oc, &oh, &ow)))
		goto out;
	if (on != g.n || oc != g.k || oh != g.oh || ow != g.ow) {
		xk_fail(k, "cuDNN computes an output of [%d,%d,%d,%d] where ONNX gives [%d,%d,%d,%d]", on, oc, oh, ow, g.n,
			g.k, g.oh, g.ow);
		goto out;
	}
	if (CU_DNN_OK(k, cu_dnn.set_tensor4d_descriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, g.n, g.k, g.oh, g.ow)))
		goto out;
	// the heuristics' first algorithm that works, with full float32 arithmetic unless TF32 was asked for;
	// implicit GEMM (which takes every geometry) when none qualifies
	if (CU_DNN_OK(k, cu_dnn.get_convolution_forward_algorithm_v7(cu_dev.dnn, xd, wd, cd, yd,
								     CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned,
								     perf)))
		goto out;
	math = CUDNN_FMA_MATH;
	for (int i = 0; i < returned; i++)
		if (perf[i].status == CUDNN_STATUS_SUCCESS && (tf32 || perf[i].mathType == CUDNN_FMA_MATH)) {
			algo = perf[i].algo;
			math = perf[i].mathType;
			break;
		}
	if (CU_DNN_OK(k, cu_dnn.set_convolution_math_type(cd, math)) ||
	    CU_DNN_OK(k, cu_dnn.get_convolution_forward_workspace_size(cu_dev.dnn, xd, wd, cd, yd, algo, &ws_size)))
		goto out;
	if (ws_size && !(ws = cu_alloc(k, &bufs, ws_size)))
		goto out;
	{
		const float one = 1.0f, zero = 0.0f;
		if (CU_DNN_OK(k, cu_dnn.convolution_forward(cu_dev.dnn, &one, xd, dx, wd, dw, cd, algo, ws, ws_size,
							    &zero, yd, dy)))
			goto out;
	}
	if (db) {
		int64_t plane = (int64_t)g.oh * g.ow;
		if (CU_LAUNCH(k, add_bias, cu_grid(y->numel), CU_BLOCK, dy, db, y->numel, g.k, plane))
			goto out;
	}
	if (cu_output_f32(k, &bufs, 0, dy))
		goto out;
	xk_note(k, "cudnn algo %s, %s, workspace %zu bytes%s", algo_name(algo), math_name(math), ws_size,
		g.explicit_pad ? ", asymmetric pads applied by copying" : "");
	rc = 0;
out:
	if (cd)
		cu_dnn.destroy_convolution_descriptor(cd);
	if (wd)
		cu_dnn.destroy_filter_descriptor(wd);
	if (yd)
		cu_dnn.destroy_tensor_descriptor(yd);
	if (xd)
		cu_dnn.destroy_tensor_descriptor(xd);
	cu_bufs_free(&bufs);
	return rc;
}

const struct exec_kernel cuda_conv_kernels[] = {
	{"Conv", 1, k_conv},
};
const size_t cuda_conv_count = sizeof cuda_conv_kernels / sizeof cuda_conv_kernels[0];
