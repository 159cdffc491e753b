// The host simulator's cuDNN (see cuda-sim.h): cu_dnn_load fills the backend's table (cuda-dnn.h) with the legacy
// convolution calls below.  Descriptors hold what they were set to and are checked as cuDNN documents (NCHW
// float32 4-D tensors and filters, positive strides and dilations, non-negative pads, input channels = filter
// channels x groups, an output descriptor equal to the computed output); the forward pass is the definition of
// cross-correlation (or convolution, the filter flipped) in float32 with fmaf, TF32 inputs under tensor-op math,
// y = alpha conv + beta y with y not read when beta is 0.  The heuristics offer a TF32 algorithm first, then a
// full-float32 one needing a workspace, so the backend's choice and its workspace are exercised.  Tests only.
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/cuda-dnn.h"
#include "src/exec/cuda-simlib.h"

struct cu_dnn_api cu_dnn;

struct cudnnContext {
	int live;
};
struct cudnnTensorStruct {
	int set, n, c, h, w;
};
struct cudnnFilterStruct {
	int set, k, c, h, w;
};
struct cudnnConvolutionStruct {
	int set, pad_h, pad_w, u, v, dil_h, dil_w, groups;
	cudnnConvolutionMode_t mode;
	cudnnMathType_t math;
};

#define SIM_WORKSPACE 4096 // what the GEMM algorithm asks for

static size_t sim_get_version(void)
{
	return CUDNN_VERSION;
}

static const char *sim_error_string(cudnnStatus_t s)
{
	switch (s) {
	case CUDNN_STATUS_SUCCESS: return "CUDNN_STATUS_SUCCESS";
	case CUDNN_STATUS_BAD_PARAM: return "CUDNN_STATUS_BAD_PARAM";
	case CUDNN_STATUS_NOT_SUPPORTED: return "CUDNN_STATUS_NOT_SUPPORTED";
	case CUDNN_STATUS_ALLOC_FAILED: return "CUDNN_STATUS_ALLOC_FAILED";
	case CUDNN_STATUS_EXECUTION_FAILED: return "CUDNN_STATUS_EXECUTION_FAILED";
	default: return "CUDNN_STATUS_UNKNOWN";
	}
}

static cudnnStatus_t bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static cudnnStatus_t bad(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cusim_say("cuDNN: %s", msg);
	return CUDNN_STATUS_BAD_PARAM;
}

static cudnnStatus_t sim_create(cudnnHandle_t *h)
{
	*h = (cudnnHandle_t)calloc(1, sizeof(struct cudnnContext));
	if (!*h)
		return CUDNN_STATUS_ALLOC_FAILED;
	(*h)->live = 1;
	return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t sim_destroy(cudnnHandle_t h)
{
	free(h);
	return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t sim_set_stream(cudnnHandle_t h, cudaStream_t)
{
	return h && h->live ? CUDNN_STATUS_SUCCESS : bad("cudnnSetStream: no handle");
}

template <typename T> static cudnnStatus_t make(T **p)
{
	*p = (T *)calloc(1, sizeof(T));
	return *p ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_ALLOC_FAILED;
}

static cudnnStatus_t sim_create_tensor(cudnnTensorDescriptor_t *d)
{
	return make(d);
}
static cudnnStatus_t sim_destroy_tensor(cudnnTensorDescriptor_t d)
{
	free(d);
	return CUDNN_STATUS_SUCCESS;
}
static cudnnStatus_t sim_create_filter(cudnnFilterDescriptor_t *d)
{
	return make(d);
}
static cudnnStatus_t sim_destroy_filter(cudnnFilterDescriptor_t d)
{
	free(d);
	return CUDNN_STATUS_SUCCESS;
}
static cudnnStatus_t sim_create_conv(cudnnConvolutionDescriptor_t *d)
{
	cudnnStatus_t s = make(d);
	if (s == CUDNN_STATUS_SUCCESS) {
		(*d)->groups = 1;
		(*d)->math = CUDNN_DEFAULT_MATH;
	}
	return s;
}
static cudnnStatus_t sim_destroy_conv(cudnnConvolutionDescriptor_t d)
{
	free(d);
	return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t sim_set_tensor4d(cudnnTensorDescriptor_t d, cudnnTensorFormat_t f, cudnnDataType_t t, int n,
				      int c, int h, int w)
{
	if (f != CUDNN_TENSOR_NCHW || t != CUDNN_DATA_FLOAT)
		return CUDNN_STATUS_NOT_SUPPORTED;
	if (n <= 0 || c <= 0 || h <= 0 || w <= 0)
		return bad("cudnnSetTensor4dDescriptor: dims %d,%d,%d,%d", n, c, h, w);
	*d = (struct cudnnTensorStruct){1, n, c, h, w};
	return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t sim_set_filter4d(cudnnFilterDescriptor_t d, cudnnDataType_t t, cudnnTensorFormat_t f, int k,
				      int c, int h, int w)
{
	if (f != CUDNN_TENSOR_NCHW || t != CUDNN_DATA_FLOAT)
		return CUDNN_STATUS_NOT_SUPPORTED;
	if (k <= 0 || c <= 0 || h <= 0 || w <= 0)
		return bad("cudnnSetFilter4dDescriptor: dims %d,%d,%d,%d", k, c, h, w);
	*d = (struct cudnnFilterStruct){1, k, c, h, w};
	return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t sim_set_conv2d(cudnnConvolutionDescriptor_t d, int ph, int pw, int u, int v, int dh, int dw,
				    cudnnConvolutionMode_t mode, cudnnDataType_t t)
{
	if (t != CUDNN_DATA_FLOAT)
		return CUDNN_STATUS_NOT_SUPPORTED;
	if (ph < 0 || pw < 0 || u <= 0 || v <= 0 || dh <= 0 || dw <= 0 ||
	    (mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION))
		return bad("cudnnSetConvolution2dDescriptor: pads %d,%d strides %d,%d dilations %d,%d mode %d", ph, pw,
			   u, v, dh, dw, (int)mode);
	d->set = 1;
	d->pad_h = ph;
	d->pad_w = pw;
	d->u = u;
	d->v = v;
	d->dil_h = dh;
	d->dil_w = dw;
	d->mode = mode;
	return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t sim_set_groups(cudnnConvolutionDescriptor_t d, int g)
{
	if (g < 1)
		return bad("cudnnSetConvolutionGroupCount: %d groups", g);
	d->groups = g;
	return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t sim_set_math(cudnnConvolutionDescriptor_t d, cudnnMathType_t m)
{
	d->math = m;
	return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t out_dims(const cudnnConvolutionDescriptor_t cd, const cudnnTensorDescriptor_t x,
			      const cudnnFilterDescriptor_t w, int *n, int *c, int *h, int *wo)
{
	if (!cd->set || !x->set || !w->set)
		return bad("a descriptor was used before it was set");
	if (x->c != w->c * cd->groups || w->k % cd->groups)
		return bad("input channels %d, filter channels %d x %d groups, %d filters", x->c, w->c, cd->groups,
			   w->k);
	int64_t eh = (int64_t)(w->h - 1) * cd->dil_h + 1, ew = (int64_t)(w->w - 1) * cd->dil_w + 1;
	int64_t oh = ((int64_t)x->h + 2 * cd->pad_h - eh) / cd->u + 1, ow = ((int64_t)x->w + 2 * cd->pad_w - ew) / cd->v + 1;
	if (x->h + 2 * (int64_t)cd->pad_h < eh || x->w + 2 * (int64_t)cd->pad_w < ew || oh <= 0 || ow <= 0)
		return bad("the filter (%lld x %lld with dilation) is larger than the padded input %d x %d", (long long)eh,
			   (long long)ew, x->h, x->w);
	*n = x->n;
	*c = w->k;
	*h = (int)oh;
	*wo = (int)ow;
	return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t sim_output_dim(const cudnnConvolutionDescriptor_t cd, const cudnnTensorDescriptor_t x,
				    const cudnnFilterDescriptor_t w, int *n, int *c, int *h, int *wo)
{
	return out_dims(cd, x, w, n, c, h, wo);
}

static cudnnStatus_t check_y(const cudnnConvolutionDescriptor_t cd, const cudnnTensorDescriptor_t x,
			     const cudnnFilterDescriptor_t w, const cudnnTensorDescriptor_t y)
{
	int n, c, h, wo;
	cudnnStatus_t s = out_dims(cd, x, w, &n, &c, &h, &wo);

	if (s != CUDNN_STATUS_SUCCESS)
		return s;
	if (!y->set || y->n != n || y->c != c || y->h != h || y->w != wo)
		return bad("the output descriptor [%d,%d,%d,%d] is not the convolution's output [%d,%d,%d,%d]", y->n,
			   y->c, y->h, y->w, n, c, h, wo);
	return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t sim_find_v7(cudnnHandle_t h, const cudnnTensorDescriptor_t x, const cudnnFilterDescriptor_t w,
				 const cudnnConvolutionDescriptor_t cd, const cudnnTensorDescriptor_t y, const int want,
				 int *returned, cudnnConvolutionFwdAlgoPerf_t *perf)
{
	static const struct {
		cudnnConvolutionFwdAlgo_t algo;
		cudnnMathType_t math;
		size_t ws;
	} offer[] = {
		{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, CUDNN_TENSOR_OP_MATH, 0},
		{CUDNN_CONVOLUTION_FWD_ALGO_GEMM, CUDNN_FMA_MATH, SIM_WORKSPACE},
		{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_FMA_MATH, 0},
	};
	if (!h)
		return bad("cudnnGetConvolutionForwardAlgorithm_v7: no handle");
	cudnnStatus_t s = check_y(cd, x, w, y);
	if (s != CUDNN_STATUS_SUCCESS)
		return s;
	if (want < 1)
		return bad("cudnnGetConvolutionForwardAlgorithm_v7: asked for %d results", want);
	int n = 0;
	for (size_t i = 0; i < sizeof offer / sizeof offer[0] && n < want; i++, n++) {
		memset(&perf[n], 0, sizeof perf[n]);
		perf[n].algo = offer[i].algo;
		perf[n].status = CUDNN_STATUS_SUCCESS;
		perf[n].memory = offer[i].ws;
		perf[n].mathType = offer[i].math;
		perf[n].determinism = CUDNN_DETERMINISTIC;
	}
	*returned = n;
	return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t sim_workspace(cudnnHandle_t, const cudnnTensorDescriptor_t x, const cudnnFilterDescriptor_t w,
				   const cudnnConvolutionDescriptor_t cd, const cudnnTensorDescriptor_t y,
				   cudnnConvolutionFwdAlgo_t algo, size_t *ws)
{
	cudnnStatus_t s = check_y(cd, x, w, y);

	if (s != CUDNN_STATUS_SUCCESS)
		return s;
	*ws = algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM ? SIM_WORKSPACE : 0;
	return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t sim_forward(cudnnHandle_t h, const void *alpha_p, const cudnnTensorDescriptor_t xd,
				 const void *xp, const cudnnFilterDescriptor_t wd, const void *wp,
				 const cudnnConvolutionDescriptor_t cd, cudnnConvolutionFwdAlgo_t algo, void *ws,
				 size_t ws_size, const void *beta_p, const cudnnTensorDescriptor_t yd, void *yp)
{
	cudnnStatus_t s = check_y(cd, xd, wd, yd);

	if (!h)
		return bad("cudnnConvolutionForward: no handle");
	if (s != CUDNN_STATUS_SUCCESS)
		return s;
	size_t need = algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM ? SIM_WORKSPACE : 0;
	if (ws_size < need || (need && !cusim_is_device(ws, need)))
		return bad("cudnnConvolutionForward: the workspace (%zu bytes at %p) is smaller than %zu bytes of device "
			   "memory", ws_size, ws, need);
	size_t xn = (size_t)xd->n * xd->c * xd->h * xd->w, wn = (size_t)wd->k * wd->c * wd->h * wd->w;
	size_t yn = (size_t)yd->n * yd->c * yd->h * yd->w;
	if (!cusim_is_device(xp, xn * 4) || !cusim_is_device(wp, wn * 4) || !cusim_is_device(yp, yn * 4))
		return bad("cudnnConvolutionForward: x, w or y is not inside device memory (%p %p %p)", xp, wp, yp);
	const float *x = (const float *)xp, *w = (const float *)wp;
	float *y = (float *)yp, alpha = *(const float *)alpha_p, beta = *(const float *)beta_p;
	int tf32 = cd->math == CUDNN_TENSOR_OP_MATH || cd->math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
	int cg = wd->c, kg = wd->k / cd->groups, flip = cd->mode == CUDNN_CONVOLUTION;

	// Each output sums its products in the order channel, filter row, filter column, as the definition reads;
	// the loops run that order outermost over a plane of accumulators, so the sums are the same, only faster.
	size_t plane = (size_t)yd->h * yd->w;
	float *acc = (float *)malloc(plane * sizeof(float));
	if (!acc)
		return CUDNN_STATUS_ALLOC_FAILED;
	for (int n = 0; n < yd->n; n++)
		for (int k = 0; k < yd->c; k++) {
			int g = k / kg;
			memset(acc, 0, plane * sizeof(float));
			for (int c = 0; c < cg; c++)
				for (int r = 0; r < wd->h; r++)
					for (int q = 0; q < wd->w; q++) {
						int fr = flip ? wd->h - 1 - r : r, fq = flip ? wd->w - 1 - q : q;
						float b = w[(((size_t)k * cg + c) * wd->h + fr) * wd->w + fq];
						if (tf32)
							b = cusim_tf32(b);
						const float *xp = x + ((size_t)n * xd->c + g * cg + c) * xd->h * xd->w;
						for (int oh = 0; oh < yd->h; oh++) {
							int ih = oh * cd->u - cd->pad_h + r * cd->dil_h;
							if (ih < 0 || ih >= xd->h)
								continue;
							float *ap = acc + (size_t)oh * yd->w;
							const float *xr = xp + (size_t)ih * xd->w;
							for (int ow = 0; ow < yd->w; ow++) {
								int iw = ow * cd->v - cd->pad_w + q * cd->dil_w;
								if (iw < 0 || iw >= xd->w)
									continue;
								float a = tf32 ? cusim_tf32(xr[iw]) : xr[iw];
								ap[ow] = fmaf(a, b, ap[ow]);
							}
						}
					}
			float *o = y + ((size_t)n * yd->c + k) * plane;
			for (size_t i = 0; i < plane; i++)
				o[i] = beta == 0.0f ? alpha * acc[i] : fmaf(beta, o[i], alpha * acc[i]);
		}
	free(acc);
	return CUDNN_STATUS_SUCCESS;
}

// ---- backward data (ConvTranspose) ----

// The algorithms offered: a non-deterministic one first (as cuDNN's ALGO_0 is), a TF32 one, then deterministic
// full-float32 ones, the first of which needs a workspace.
static cudnnStatus_t sim_bwd_find_v7(cudnnHandle_t h, const cudnnFilterDescriptor_t w, const cudnnTensorDescriptor_t dy,
				     const cudnnConvolutionDescriptor_t cd, const cudnnTensorDescriptor_t dx,
				     const int want, int *returned, cudnnConvolutionBwdDataAlgoPerf_t *perf)
{
	static const struct {
		cudnnConvolutionBwdDataAlgo_t algo;
		cudnnMathType_t math;
		cudnnDeterminism_t det;
		size_t ws;
	} offer[] = {
		{CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, CUDNN_FMA_MATH, CUDNN_NON_DETERMINISTIC, 0},
		{CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, CUDNN_TENSOR_OP_MATH, CUDNN_DETERMINISTIC, 0},
		{CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING, CUDNN_FMA_MATH, CUDNN_DETERMINISTIC, SIM_WORKSPACE},
		{CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, CUDNN_FMA_MATH, CUDNN_DETERMINISTIC, 0},
	};
	if (!h)
		return bad("cudnnGetConvolutionBackwardDataAlgorithm_v7: no handle");
	cudnnStatus_t s = check_y(cd, dx, w, dy); // dy must be what a convolution of dx would give
	if (s != CUDNN_STATUS_SUCCESS)
		return s;
	if (want < 1)
		return bad("cudnnGetConvolutionBackwardDataAlgorithm_v7: asked for %d results", want);
	int n = 0;
	for (size_t i = 0; i < sizeof offer / sizeof offer[0] && n < want; i++, n++) {
		memset(&perf[n], 0, sizeof perf[n]);
		perf[n].algo = offer[i].algo;
		perf[n].status = CUDNN_STATUS_SUCCESS;
		perf[n].memory = offer[i].ws;
		perf[n].mathType = offer[i].math;
		perf[n].determinism = offer[i].det;
	}
	*returned = n;
	return CUDNN_STATUS_SUCCESS;
}

static size_t bwd_workspace(cudnnConvolutionBwdDataAlgo_t algo)
{
	return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING ? SIM_WORKSPACE : 0;
}

static cudnnStatus_t sim_bwd_workspace(cudnnHandle_t, const cudnnFilterDescriptor_t w, const cudnnTensorDescriptor_t dy,
				       const cudnnConvolutionDescriptor_t cd, const cudnnTensorDescriptor_t dx,
				       cudnnConvolutionBwdDataAlgo_t algo, size_t *ws)
{
	cudnnStatus_t s = check_y(cd, dx, w, dy);

	if (s != CUDNN_STATUS_SUCCESS)
		return s;
	*ws = bwd_workspace(algo);
	return CUDNN_STATUS_SUCCESS;
}

// dx = alpha * (the gradient of the convolution of dx by w, given dy) + beta * dx: every dy element, times every
// filter tap, added to the dx element that tap read in the forward convolution.
static cudnnStatus_t sim_bwd_data(cudnnHandle_t h, const void *alpha_p, const cudnnFilterDescriptor_t wd,
				  const void *wp, const cudnnTensorDescriptor_t dyd, const void *dyp,
				  const cudnnConvolutionDescriptor_t cd, cudnnConvolutionBwdDataAlgo_t algo, void *ws,
				  size_t ws_size, const void *beta_p, const cudnnTensorDescriptor_t dxd, void *dxp)
{
	cudnnStatus_t s = check_y(cd, dxd, wd, dyd);

	if (!h)
		return bad("cudnnConvolutionBackwardData: no handle");
	if (s != CUDNN_STATUS_SUCCESS)
		return s;
	size_t need = bwd_workspace(algo);
	if (ws_size < need || (need && !cusim_is_device(ws, need)))
		return bad("cudnnConvolutionBackwardData: the workspace (%zu bytes at %p) is smaller than %zu bytes of "
			   "device memory", ws_size, ws, need);
	size_t xn = (size_t)dxd->n * dxd->c * dxd->h * dxd->w, wn = (size_t)wd->k * wd->c * wd->h * wd->w;
	size_t yn = (size_t)dyd->n * dyd->c * dyd->h * dyd->w;
	if (!cusim_is_device(dxp, xn * 4) || !cusim_is_device(wp, wn * 4) || !cusim_is_device(dyp, yn * 4))
		return bad("cudnnConvolutionBackwardData: dx, w or dy is not inside device memory (%p %p %p)", dxp, wp,
			   dyp);
	const float *w = (const float *)wp, *dy = (const float *)dyp;
	float *dx = (float *)dxp, alpha = *(const float *)alpha_p, beta = *(const float *)beta_p;
	int tf32 = cd->math == CUDNN_TENSOR_OP_MATH || cd->math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
	int cg = wd->c, kg = wd->k / cd->groups, flip = cd->mode == CUDNN_CONVOLUTION;
	float *acc = (float *)calloc(xn ? xn : 1, sizeof(float));
	if (!acc)
		return CUDNN_STATUS_ALLOC_FAILED;
	for (int n = 0; n < dyd->n; n++)
		for (int k = 0; k < dyd->c; k++) {
			int g = k / kg;
			for (int c = 0; c < cg; c++)
				for (int r = 0; r < wd->h; r++)
					for (int q = 0; q < wd->w; q++) {
						int fr = flip ? wd->h - 1 - r : r, fq = flip ? wd->w - 1 - q : q;
						float b = w[(((size_t)k * cg + c) * wd->h + fr) * wd->w + fq];
						if (tf32)
							b = cusim_tf32(b);
						float *ap = acc + ((size_t)n * dxd->c + g * cg + c) * dxd->h * dxd->w;
						const float *yp = dy + ((size_t)n * dyd->c + k) * dyd->h * dyd->w;
						for (int oh = 0; oh < dyd->h; oh++) {
							int ih = oh * cd->u - cd->pad_h + r * cd->dil_h;
							if (ih < 0 || ih >= dxd->h)
								continue;
							for (int ow = 0; ow < dyd->w; ow++) {
								int iw = ow * cd->v - cd->pad_w + q * cd->dil_w;
								if (iw < 0 || iw >= dxd->w)
									continue;
								float a = yp[(size_t)oh * dyd->w + ow];
								if (tf32)
									a = cusim_tf32(a);
								float *o = &ap[(size_t)ih * dxd->w + iw];
								*o = fmaf(a, b, *o);
							}
						}
					}
		}
	for (size_t i = 0; i < xn; i++)
		dx[i] = beta == 0.0f ? alpha * acc[i] : fmaf(beta, dx[i], alpha * acc[i]);
	free(acc);
	return CUDNN_STATUS_SUCCESS;
}

int cu_dnn_load(char *, size_t)
{
	cu_dnn.get_version = sim_get_version;
	cu_dnn.get_error_string = sim_error_string;
	cu_dnn.create = sim_create;
	cu_dnn.destroy = sim_destroy;
	cu_dnn.set_stream = sim_set_stream;
	cu_dnn.create_tensor_descriptor = sim_create_tensor;
	cu_dnn.destroy_tensor_descriptor = sim_destroy_tensor;
	cu_dnn.set_tensor4d_descriptor = sim_set_tensor4d;
	cu_dnn.create_filter_descriptor = sim_create_filter;
	cu_dnn.destroy_filter_descriptor = sim_destroy_filter;
	cu_dnn.set_filter4d_descriptor = sim_set_filter4d;
	cu_dnn.create_convolution_descriptor = sim_create_conv;
	cu_dnn.destroy_convolution_descriptor = sim_destroy_conv;
	cu_dnn.set_convolution2d_descriptor = sim_set_conv2d;
	cu_dnn.set_convolution_group_count = sim_set_groups;
	cu_dnn.set_convolution_math_type = sim_set_math;
	cu_dnn.get_convolution2d_forward_output_dim = sim_output_dim;
	cu_dnn.get_convolution_forward_algorithm_v7 = sim_find_v7;
	cu_dnn.get_convolution_forward_workspace_size = sim_workspace;
	cu_dnn.convolution_forward = sim_forward;
	cu_dnn.get_convolution_backward_data_algorithm_v7 = sim_bwd_find_v7;
	cu_dnn.get_convolution_backward_data_workspace_size = sim_bwd_workspace;
	cu_dnn.convolution_backward_data = sim_bwd_data;
	return 0;
}
