// Conv and ConvTranspose on the CUDA device through cuDNN (1-D as 2-D with H = 1, 2-D and 3-D; groups, strides,
// dilations, pads and auto_pad, bias), float32 (float16 and bfloat16 through float32, as on the CPU).  The checks
// and the window are the CPU's (ops_conv_setup, ops_convt_setup), mapped onto cuDNN's N-d descriptors by
// conv_geom_from_window (cuda/geom.c, unit-tested without a GPU): asymmetric pads, which cuDNN's descriptors
// cannot hold, are applied by copying the input into a zero-padded buffer first.
//
// This uses cuDNN's legacy convolution API (cudnnConvolutionForward, cudnnConvolutionBackwardData), still in
// cuDNN 9.  The algorithm comes from cuDNN's heuristics (the _v7 queries), restricted to FMA (full float32)
// kernels unless TF32 was asked for, and is filed as a note on the node, which `onnxview run` prints.
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "src/exec/cuda/backend.h"
#include "src/exec/cuda/geom.h"

// Spatial sizes and offsets of a volume, depth first (a 2-D one has depth 1).
struct vol3 {
	int64_t d, h, w;
};

// y (planes of size out) from x (planes of size in) placed at offset at: x where it lands inside y, zeros around
// (at >= 0: padding); or cut out of x from offset -at on (at <= 0: cropping), zeros past x's end.  Plus bias[plane
// % m] when bias is given, one float add as the CPU adds it after the product.
static __global__ void place_volumes(const float *x, float *y, const float *bias, int64_t planes, int64_t m,
				     struct vol3 in, struct vol3 out, struct vol3 at)
{
	CU_FOR(t, planes * out.d * out.h * out.w)
	{
		int64_t w = t % out.w, r = t / out.w, h = r % out.h;
		r /= out.h;
		int64_t d = r % out.d, p = r / out.d;
		int64_t i = d - at.d, j = h - at.h, l = w - at.w;
		float v = i >= 0 && i < in.d && j >= 0 && j < in.h && l >= 0 && l < in.w
				  ? x[((p * in.d + i) * in.h + j) * in.w + l]
				  : 0.0f;
		y[t] = bias ? v + bias[p % m] : v;
	}
}

// y[n, m, ...] += bias[m], one float add per element, as the CPU adds it after the product.
static __global__ void add_bias(float *y, const float *b, int64_t total, int64_t m, int64_t plane)
{
	CU_FOR(t, total)
	y[t] += b[(t / plane) % m];
}

// The spatial sizes of a conv_geom-style array as a depth-first volume (nd 2: depth 1).
static struct vol3 vol(int nd, const int64_t *v)
{
	return nd == 3 ? (struct vol3){v[0], v[1], v[2]} : (struct vol3){1, v[0], v[1]};
}

// An offset into such a volume (nd 2: depth 0).
static struct vol3 at(int nd, const int64_t *v)
{
	return nd == 3 ? (struct vol3){v[0], v[1], v[2]} : (struct vol3){0, v[0], v[1]};
}

static struct vol3 vol_i(int nd, const int *v)
{
	int64_t w[3] = {v[0], v[1], nd == 3 ? v[2] : 0};
	return vol(nd, w);
}

// A packed N, C, spatial... float32 tensor descriptor.
static int set_tensor(struct exec_kernel_ctx *k, cudnnTensorDescriptor_t t, int n, int c, int nd, const int *sp)
{
	int dims[2 + CONV_GEOM_MAX] = {n, c}, strides[2 + CONV_GEOM_MAX];

	for (int j = 0; j < nd; j++)
		dims[2 + j] = sp[j];
	strides[nd + 1] = 1;
	for (int j = nd; j >= 0; j--)
		strides[j] = strides[j + 1] * dims[j + 1];
	return CU_DNN_OK(k, cu_dnn.set_tensor_nd_descriptor(t, CUDNN_DATA_FLOAT, 2 + nd, dims, strides));
}

// The filter (k x c x kernel, ONNX's W as it is) and the convolution (cross-correlation, as ONNX's Conv).
static int set_conv(struct exec_kernel_ctx *k, cudnnFilterDescriptor_t wd, cudnnConvolutionDescriptor_t cd,
		    const struct conv_geom *g, int fk, int fc, cudnnMathType_t math)
{
	int fdims[2 + CONV_GEOM_MAX] = {fk, fc};

	for (int j = 0; j < g->nd; j++)
		fdims[2 + j] = g->ker[j];
	return CU_DNN_OK(k, cu_dnn.set_filter_nd_descriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 2 + g->nd, fdims)) ||
	       CU_DNN_OK(k, cu_dnn.set_convolution_nd_descriptor(cd, g->nd, g->pad, g->s, g->d, CUDNN_CROSS_CORRELATION,
								 CUDNN_DATA_FLOAT)) ||
	       CU_DNN_OK(k, cu_dnn.set_convolution_group_count(cd, g->group)) ||
	       CU_DNN_OK(k, cu_dnn.set_convolution_math_type(cd, math));
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
	struct ops_window win;
	struct conv_geom g;
	int64_t group, out[XT_MAX_RANK];
	char why[160];
	struct cu_bufs bufs = {};
	cudnnTensorDescriptor_t xd = NULL, yd = NULL;
	cudnnFilterDescriptor_t wd = NULL;
	cudnnConvolutionDescriptor_t cd = NULL;
	int rc = -1;

	if (!x || !wt || !cu_float_type(x->dtype) || wt->dtype != x->dtype || (b && b->dtype != x->dtype) ||
	    x->rank < 3 || x->rank > 5)
		return EXEC_DECLINE;
	// the CPU's checks and window; what they refuse is declined, so that the CPU says what is wrong
	if (ops_conv_setup(k, x, wt, b, &group, &win, out) ||
	    conv_geom_from_window(&win, x->dims, wt->dims, group, &g, why, sizeof why))
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
	int lib_out[2 + CONV_GEOM_MAX];
	int64_t plane = 1;
	for (int j = 0; j < g.nd; j++)
		plane *= g.out[j];
	if (!dx || !(dw = cu_input_f32(k, &bufs, 1)) || (b && !(db = cu_input_f32(k, &bufs, 2))))
		goto out;
	if (!(dy = (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float))))
		goto out;
	if (g.explicit_pad) {
		int64_t planes = (int64_t)g.n * g.c, total = planes;
		for (int j = 0; j < g.nd; j++)
			total *= g.in[j];
		if (!(xp = (float *)cu_alloc(k, &bufs, (size_t)total * sizeof(float))))
			goto out;
		if (CU_LAUNCH(k, place_volumes, cu_grid(total), CU_BLOCK, dx, xp, (const float *)NULL, planes, (int64_t)1,
			      vol(g.nd, g.raw_in), vol_i(g.nd, g.in), at(g.nd, g.pre_b)))
			goto out;
		dx = xp;
	}
	if (CU_DNN_OK(k, cu_dnn.create_tensor_descriptor(&xd)) || CU_DNN_OK(k, cu_dnn.create_tensor_descriptor(&yd)) ||
	    CU_DNN_OK(k, cu_dnn.create_filter_descriptor(&wd)) ||
	    CU_DNN_OK(k, cu_dnn.create_convolution_descriptor(&cd)))
		goto out;
	if (set_tensor(k, xd, g.n, g.c, g.nd, g.in) || set_conv(k, wd, cd, &g, g.k, g.c / g.group, math))
		goto out;
	// cuDNN must agree with ONNX on the output's shape, or the copy back would be garbage
	if (CU_DNN_OK(k, cu_dnn.get_convolution_nd_forward_output_dim(cd, xd, wd, 2 + g.nd, lib_out)))
		goto out;
	for (int j = 0; j < 2 + g.nd; j++)
		if (lib_out[j] != (j == 0 ? g.n : j == 1 ? g.k : g.out[j - 2])) {
			xk_fail(k, "cuDNN computes an output size of %d on dim %d where ONNX gives %d", lib_out[j], j,
				j == 0 ? g.n : j == 1 ? g.k : g.out[j - 2]);
			goto out;
		}
	if (set_tensor(k, yd, g.n, g.k, g.nd, g.out))
		goto out;
	// the heuristics' first algorithm that works, with full float32 arithmetic unless TF32 was asked for;
	// implicit GEMM (which takes every geometry) when none qualifies
	if (CU_DNN_OK(k, cu_dnn.get_convolution_forward_algorithm_v7(cu_dev.dnn, xd, wd, cd, yd,
								     CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf)))
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
	if (db && CU_LAUNCH(k, add_bias, cu_grid(y->numel), CU_BLOCK, dy, db, y->numel, (int64_t)g.k, plane))
		goto out;
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
// size (pads, output_padding, output_shape, auto_pad: ops_convt_setup, shared with the CPU) deciding where it ends;
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

static int k_conv_transpose(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in > 0 ? k->in[0] : NULL, *wt = k->n_in > 1 ? k->in[1] : NULL;
	const struct xtensor *b = k->n_in > 2 ? k->in[2] : NULL;
	struct ops_window win;
	struct conv_geom g = {};
	int64_t group, out[XT_MAX_RANK], pb[CONV_GEOM_MAX], o[CONV_GEOM_MAX], full[CONV_GEOM_MAX];
	struct cu_bufs bufs = {};
	cudnnTensorDescriptor_t dyd = NULL, dxd = NULL;
	cudnnFilterDescriptor_t wd = NULL;
	cudnnConvolutionDescriptor_t cd = NULL;
	int rc = -1;

	if (!x || !wt || !cu_float_type(x->dtype) || wt->dtype != x->dtype || (b && b->dtype != x->dtype) ||
	    x->rank < 3 || x->rank > 5)
		return EXEC_DECLINE;
	if (ops_convt_setup(k, x, wt, b, &win, out, &group))
		return EXEC_DECLINE; // the CPU says what is wrong
	// the convolution whose backward-data pass this is: input the full output, no pads, output X
	g.nd = win.n == 1 ? 2 : win.n;
	int off = g.nd - win.n,fits_all = 1;
	int64_t full_numel = x->dims[0] * wt->dims[1] * group;
	for (int j = 0; j < g.nd; j++) {
		int i = j - off; // the window's dim, or -1 for the H of a 1-D one
		int64_t in = i < 0 ? 1 : win.in[i], ker = i < 0 ? 1 : win.k[i], st = i < 0 ? 1 : win.s[i];
		int64_t dil = i < 0 ? 1 : win.d[i];
		pb[j] = i < 0 ? 0 : win.pb[i];
		o[j] = i < 0 ? 1 : win.out[i];
		full[j] = (in - 1) * st + (ker - 1) * dil + 1;
		fits_all &= pb[j] >= 0 && in > 0 && in <= 0x7fffffff && ker <= 0x7fffffff && st <= 0x7fffffff &&
			dil <= 0x7fffffff && full[j] <= 0x7fffffff;
		g.in[j] = (int)full[j];
		g.out[j] = (int)in;
		g.ker[j] = (int)ker;
		g.s[j] = (int)st;
		g.d[j] = (int)dil;
		full_numel *= full[j];
	}
	int64_t n = x->dims[0], c = x->dims[1], mg = wt->dims[1], m = mg * group;
	if (!fits_all || n > 0x7fffffff || c > 0x7fffffff || m > 0x7fffffff || full_numel > 0x7fffffff)
		return EXEC_DECLINE;
	g.n = (int)n;
	g.c = (int)m;
	g.k = (int)c;
	g.group = (int)group;
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
	if (!dx || !(dw = cu_input_f32(k, &bufs, 1)) || (b && !(db = cu_input_f32(k, &bufs, 2))))
		goto out;
	if (!(df = (float *)cu_alloc(k, &bufs, (size_t)full_numel * sizeof(float))) ||
	    !(dy = (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float))))
		goto out;
	if (CU_DNN_OK(k, cu_dnn.create_tensor_descriptor(&dyd)) || CU_DNN_OK(k, cu_dnn.create_tensor_descriptor(&dxd)) ||
	    CU_DNN_OK(k, cu_dnn.create_filter_descriptor(&wd)) ||
	    CU_DNN_OK(k, cu_dnn.create_convolution_descriptor(&cd)))
		goto out;
	if (set_tensor(k, dyd, g.n, g.k, g.nd, g.out) || set_tensor(k, dxd, g.n, g.c, g.nd, g.in) ||
	    set_conv(k, wd, cd, &g, g.k, (int)mg, tf32 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH))
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
	{
		int64_t neg[CONV_GEOM_MAX];
		for (int j = 0; j < g.nd; j++)
			neg[j] = -pb[j];
		if (CU_LAUNCH(k, place_volumes, cu_grid(y->numel), CU_BLOCK, df, dy, db, n * m, m, vol(g.nd, full),
			      vol(g.nd, o), at(g.nd, neg)) ||
		    cu_output_f32(k, &bufs, 0, dy))
			goto out;
	}
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
