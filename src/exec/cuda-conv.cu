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

	if (!x || !wt || !cu_float_type(x->dtype) || wt->dtype != x->dtype || (b && b->dtype != x->dtype) ||
	    (x->rank != 3 && x->rank != 4))
		return EXEC_DECLINE;
	// the CPU's checks and window; what they refuse is declined, so that the CPU says what is wrong
	if (cpu_conv_setup(k, x, wt, b, &group, &win, out) ||
	    conv2d_geom_from_window(&win, x->dims, wt->dims, group, &g, why, sizeof why))
		return EXEC_DECLINE;
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

// ---- ConvTranspose ----
//
// The transposed convolution of X by W is what cuDNN computes as the backward-data pass of a convolution whose
// output is X (its filter, [C, M/group, kernel...], is ONNX's W as it is).  It is run without pads, giving the full
// output ((in - 1) * stride + (kernel - 1) * dilation + 1 per dim), and cropped into Y from the begin pads on, Y's
// size (pads, output_padding, output_shape, auto_pad: cpu_convt_setup, shared with the CPU) deciding where it ends;
// what lies past the full output is zero, and the bias is added as the crop writes each element.

static const char *bwd_algo_name(cudnnConvolutionBwdDataAlgo_t a)
{
	switch (a) {
	case CUDNN_CONVOLUTION_BWD_DATA_ALGO_0: return "ALGO_0";
	case CUDNN_CONVOLUTION_BWD_DATA_ALGO_1: return "ALGO_1";
	case CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT: return "FFT";
	case CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING: return "FFT_TILING";
	case CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD: return "WINOGRAD";
	case CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
	default: return "?";
	}
}

// y (planes of oh x ow) from the full output f (planes of fh x fw) at row pt, column pl, plus bias[plane % m].
static __global__ void crop_planes(const float *f, float *y, const float *bias, int64_t planes, int64_t m, int64_t fh,
				   int64_t fw, int64_t oh, int64_t ow, int64_t pt, int64_t pl)
{
	CU_FOR(t, planes * oh * ow)
	{
		int64_t p = t / (oh * ow), r = t - p * oh * ow, i = r / ow + pt, j = r % ow + pl;
		float v = i < fh && j < fw ? f[(p * fh + i) * fw + j] : 0.0f;
		y[t] = bias ? v + bias[p % m] : v;
	}
}

static int fits(int64_t v)
{
	return v > 0 && v <= 0x7fffffff;
}

static int k_conv_transpose(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in > 0 ? k->in[0] : NULL, *wt = k->n_in > 1 ? k->in[1] : NULL;
	const struct xtensor *b = k->n_in > 2 ? k->in[2] : NULL;
	struct cpu_window win;
	int64_t group, out[XT_MAX_RANK];
	struct cu_bufs bufs = {};
	cudnnTensorDescriptor_t dyd = NULL, dxd = NULL;
	cudnnFilterDescriptor_t wd = NULL;
	cudnnConvolutionDescriptor_t cd = NULL;
	int rc = -1;

	if (!x || !wt || !cu_float_type(x->dtype) || wt->dtype != x->dtype || (b && b->dtype != x->dtype) ||
	    (x->rank != 3 && x->rank != 4))
		return EXEC_DECLINE;
	if (cpu_convt_setup(k, x, wt, b, &win, out, &group))
		return EXEC_DECLINE; // the CPU says what is wrong
	// 1-D as 2-D with H = 1: [in, kernel, stride, dilation, begin pad] per dim, H first
	int sp = win.n;
	int64_t in[2], ker[2], st[2], dil[2], pb[2], full[2], o[2];
	for (int i = 0; i < 2; i++) {
		int d = i - (2 - sp); // the window's dim, or -1 for the H of a 1-D one
		in[i] = d < 0 ? 1 : win.in[d];
		ker[i] = d < 0 ? 1 : win.k[d];
		st[i] = d < 0 ? 1 : win.s[d];
		dil[i] = d < 0 ? 1 : win.d[d];
		pb[i] = d < 0 ? 0 : win.pb[d];
		o[i] = d < 0 ? 1 : win.out[d];
		full[i] = (in[i] - 1) * st[i] + (ker[i] - 1) * dil[i] + 1;
		if (pb[i] < 0 || !fits(in[i]) || !fits(ker[i]) || !fits(st[i]) || !fits(dil[i]) || !fits(full[i]))
			return EXEC_DECLINE;
	}
	int64_t n = x->dims[0], c = x->dims[1], mg = wt->dims[1], m = mg * group;
	if (!fits(n) || !fits(c) || !fits(m) || !fits(group))
		return EXEC_DECLINE;
	if (xk_output_raw(k, 0, x->dtype, x->rank, out))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;

	const float *dx = cu_input_f32(k, &bufs, 0), *dw = NULL, *db = NULL;
	float *df = NULL, *dy = NULL;
	void *ws = NULL;
	size_t ws_size = 0;
	int returned = 0, tf32 = cu_dev.tf32, pick = -1;
	cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
	cudnnConvolutionBwdDataAlgo_t algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
	cudnnMathType_t math = CUDNN_FMA_MATH;
	int64_t full_numel = n * m * full[0] * full[1];
	if (!dx || !(dw = cu_input_f32(k, &bufs, 1)) || (b && !(db = cu_input_f32(k, &bufs, 2))))
		goto out;
	if (!(df = (float *)cu_alloc(k, &bufs, (size_t)full_numel * sizeof(float))) ||
	    !(dy = (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float))))
		goto out;
	if (CU_DNN_OK(k, cu_dnn.create_tensor_descriptor(&dyd)) || CU_DNN_OK(k, cu_dnn.create_tensor_descriptor(&dxd)) ||
	    CU_DNN_OK(k, cu_dnn.create_filter_descriptor(&wd)) ||
	    CU_DNN_OK(k, cu_dnn.create_convolution_descriptor(&cd)))
		goto out;
	if (CU_DNN_OK(k, cu_dnn.set_tensor4d_descriptor(dyd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)n, (int)c,
							(int)in[0], (int)in[1])) ||
	    CU_DNN_OK(k, cu_dnn.set_tensor4d_descriptor(dxd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)n, (int)m,
							(int)full[0], (int)full[1])) ||
	    CU_DNN_OK(k, cu_dnn.set_filter4d_descriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, (int)c, (int)mg,
							(int)ker[0], (int)ker[1])) ||
	    CU_DNN_OK(k, cu_dnn.set_convolution2d_descriptor(cd, 0, 0, (int)st[0], (int)st[1], (int)dil[0], (int)dil[1],
							     CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT)) ||
	    CU_DNN_OK(k, cu_dnn.set_convolution_group_count(cd, (int)group)) ||
	    CU_DNN_OK(k, cu_dnn.set_convolution_math_type(cd, tf32 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH)))
		goto out;
	// the heuristics' first deterministic algorithm with full float32 arithmetic (unless TF32 was asked for),
	// else their first that qualifies otherwise; ALGO_1 when none does
	if (CU_DNN_OK(k, cu_dnn.get_convolution_backward_data_algorithm_v7(cu_dev.dnn, wd, dyd, cd, dxd,
									    CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
									    &returned, perf)))
		goto out;
	for (int pass = 0; pass < 2 && pick < 0; pass++)
		for (int i = 0; i < returned && pick < 0; i++)
			if (perf[i].status == CUDNN_STATUS_SUCCESS && (tf32 || perf[i].mathType == CUDNN_FMA_MATH) &&
			    (pass || perf[i].determinism == CUDNN_DETERMINISTIC))
				pick = i;
	if (pick >= 0) {
		algo = perf[pick].algo;
		math = perf[pick].mathType;
	}
	if (CU_DNN_OK(k, cu_dnn.set_convolution_math_type(cd, math)) ||
	    CU_DNN_OK(k, cu_dnn.get_convolution_backward_data_workspace_size(cu_dev.dnn, wd, dyd, cd, dxd, algo,
									      &ws_size)))
		goto out;
	if (ws_size && !(ws = cu_alloc(k, &bufs, ws_size)))
		goto out;
	{
		const float one = 1.0f, zero = 0.0f;
		if (CU_DNN_OK(k, cu_dnn.convolution_backward_data(cu_dev.dnn, &one, wd, dw, dyd, dx, cd, algo, ws, ws_size,
								  &zero, dxd, df)))
			goto out;
	}
	if (CU_LAUNCH(k, crop_planes, cu_grid(y->numel), CU_BLOCK, df, dy, db, n * m, m, full[0], full[1], o[0], o[1],
		      pb[0], pb[1]) ||
	    cu_output_f32(k, &bufs, 0, dy))
		goto out;
	xk_note(k, "cudnn backward-data algo %s, %s, workspace %zu bytes", bwd_algo_name(algo), math_name(math),
		ws_size);
	rc = 0;
out:
	if (cd)
		cu_dnn.destroy_convolution_descriptor(cd);
	if (wd)
		cu_dnn.destroy_filter_descriptor(wd);
	if (dxd)
		cu_dnn.destroy_tensor_descriptor(dxd);
	if (dyd)
		cu_dnn.destroy_tensor_descriptor(dyd);
	cu_bufs_free(&bufs);
	return rc;
}

const struct exec_kernel cuda_conv_kernels[] = {
	{"Conv", 1, k_conv},
	{"ConvTranspose", 1, k_conv_transpose},
};
const size_t cuda_conv_count = sizeof cuda_conv_kernels / sizeof cuda_conv_kernels[0];
