// The host simulator's cuDNN (see cuda/sim/sim.h): cu_dnn_load fills the backend's table (cuda/dnn.h) with the legacy
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

#include "src/exec/cuda/dnn.h"
#include "src/exec/cuda/sim/simlib.h"

struct cu_dnn_api cu_dnn;

struct cudnnContext {
	int live;
};
// Tensors and filters hold N (or K), C and up to 3 spatial sizes, depth first; a 2-D one has depth 1.  The
// convolution holds the same per spatial dim, depth first (a 2-D one: no pad, stride 1 and dilation 1 in depth).
struct cudnnTensorStruct {
	int set, nb, n, c, sp[3];
};
struct cudnnFilterStruct {
	int set, nb, k, c, sp[3];
};
struct cudnnConvolutionStruct {
	int set, nd, pad[3], stride[3], dil[3], groups;
	cudnnConvolutionMode_t mode;
	cudnnMathType_t math;
};

static size_t spatial(const int *sp)
{
	return (size_t)sp[0] * sp[1] * sp[2];
}

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

int cusim_dnn_started; // cudnnCreate calls (the stats line of sim.cc)
int cusim_dnn_choices; // cudnnGetConvolutionForwardAlgorithm_v7 calls (the same)

static cudnnStatus_t sim_create(cudnnHandle_t *h)
{
	if (cusim_capture_broken() || (cusim_capturing() && (cusim_capture_break(cudaErrorStreamCaptureUnsupported,
										  "cudnnCreate"), 1)))
		return CUDNN_STATUS_NOT_INITIALIZED;
	cusim_dnn_started++;
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

// N-d dims (4: N, C, H, W; 5: N, C, D, H, W) into n, c and sp (depth first, 1 when absent); -1 when not 4 or 5.
static int dims_of(int nb, const int *dims, int *n, int *c, int *sp)
{
	if (nb != 4 && nb != 5)
		return -1;
	*n = dims[0];
	*c = dims[1];
	sp[0] = nb == 5 ? dims[2] : 1;
	sp[1] = dims[nb - 2];
	sp[2] = dims[nb - 1];
	for (int i = 0; i < nb; i++)
		if (dims[i] <= 0)
			return -1;
	return 0;
}

static cudnnStatus_t sim_set_tensor_nd(cudnnTensorDescriptor_t d, cudnnDataType_t t, int nb, const int dims[],
				       const int strides[])
{
	if (t != CUDNN_DATA_FLOAT)
		return CUDNN_STATUS_NOT_SUPPORTED;
	if (dims_of(nb, dims, &d->n, &d->c, d->sp))
		return bad("cudnnSetTensorNdDescriptor: %d dims (4 or 5, all positive)", nb);
	// packed, C order: what the backend's tensors are
	for (int i = nb - 1, want = 1; i >= 0; want *= dims[i--])
		if (strides[i] != want)
			return bad("cudnnSetTensorNdDescriptor: stride %d of dim %d is not the packed layout's %d", strides[i],
				   i, want);
	d->nb = nb;
	d->set = 1;
	return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t sim_set_filter_nd(cudnnFilterDescriptor_t d, cudnnDataType_t t, cudnnTensorFormat_t f, int nb,
				       const int dims[])
{
	if (f != CUDNN_TENSOR_NCHW || t != CUDNN_DATA_FLOAT)
		return CUDNN_STATUS_NOT_SUPPORTED;
	if (dims_of(nb, dims, &d->k, &d->c, d->sp))
		return bad("cudnnSetFilterNdDescriptor: %d dims (4 or 5, all positive)", nb);
	d->nb = nb;
	d->set = 1;
	return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t sim_set_conv_nd(cudnnConvolutionDescriptor_t d, int nd, const int pad[], const int stride[],
				     const int dil[], cudnnConvolutionMode_t mode, cudnnDataType_t t)
{
	if (t != CUDNN_DATA_FLOAT)
		return CUDNN_STATUS_NOT_SUPPORTED;
	if ((nd != 2 && nd != 3) || (mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION))
		return bad("cudnnSetConvolutionNdDescriptor: %d spatial dims (2 or 3), mode %d", nd, (int)mode);
	for (int j = 0; j < 3; j++) {
		int i = j - (3 - nd); // depth of a 2-D convolution: i < 0
		d->pad[j] = i < 0 ? 0 : pad[i];
		d->stride[j] = i < 0 ? 1 : stride[i];
		d->dil[j] = i < 0 ? 1 : dil[i];
		if (d->pad[j] < 0 || d->stride[j] <= 0 || d->dil[j] <= 0)
			return bad("cudnnSetConvolutionNdDescriptor: pad %d, stride %d, dilation %d on dim %d", d->pad[j],
				   d->stride[j], d->dil[j], i);
	}
	d->nd = nd;
	d->mode = mode;
	d->set = 1;
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
			      const cudnnFilterDescriptor_t w, int *n, int *c, int *sp)
{
	if (!cd->set || !x->set || !w->set)
		return bad("a descriptor was used before it was set");
	if (x->nb != w->nb || x->nb != 2 + cd->nd)
		return bad("a %d-d tensor, a %d-d filter and a convolution of %d spatial dims", x->nb, w->nb, cd->nd);
	if (x->c != w->c * cd->groups || w->k % cd->groups)
		return bad("input channels %d, filter channels %d x %d groups, %d filters", x->c, w->c, cd->groups,
			   w->k);
	for (int j = 0; j < 3; j++) {
		int64_t e = (int64_t)(w->sp[j] - 1) * cd->dil[j] + 1, padded = x->sp[j] + 2 * (int64_t)cd->pad[j];
		if (padded < e)
			return bad("the filter (%lld with dilation) is larger than the padded input %lld on spatial dim %d",
				   (long long)e, (long long)padded, j);
		sp[j] = (int)((padded - e) / cd->stride[j] + 1);
	}
	*n = x->n;
	*c = w->k;
	return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t sim_output_dim_nd(const cudnnConvolutionDescriptor_t cd, const cudnnTensorDescriptor_t x,
				       const cudnnFilterDescriptor_t w, int nb, int dims[])
{
	int n, c, sp[3];
	cudnnStatus_t s = out_dims(cd, x, w, &n, &c, sp);

	if (s != CUDNN_STATUS_SUCCESS)
		return s;
	if (nb != x->nb)
		return bad("cudnnGetConvolutionNdForwardOutputDim: asked for %d dims of a %d-d tensor", nb, x->nb);
	dims[0] = n;
	dims[1] = c;
	for (int i = 2; i < nb; i++)
		dims[i] = sp[3 - (nb - i)];
	return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t check_y(const cudnnConvolutionDescriptor_t cd, const cudnnTensorDescriptor_t x,
			     const cudnnFilterDescriptor_t w, const cudnnTensorDescriptor_t y)
{
	int n, c, sp[3];
	cudnnStatus_t s = out_dims(cd, x, w, &n, &c, sp);

	if (s != CUDNN_STATUS_SUCCESS)
		return s;
	if (!y->set || y->nb != x->nb || y->n != n || y->c != c || memcmp(y->sp, sp, sizeof sp))
		return bad("the output descriptor [%d,%d,%d,%d,%d] is not the convolution's output [%d,%d,%d,%d,%d]",
			   y->n, y->c, y->sp[0], y->sp[1], y->sp[2], n, c, sp[0], sp[1], sp[2]);
	return CUDNN_STATUS_SUCCESS;
}

// Every product of the convolution of x (xd) by the filter (wd) into y (yd): fn(x index, y index, filter value),
// for each output plane (n, k) in the order channel, then depth, row and column of the filter tap, then the
// output positions; so the products summed into one output come in the definition's order.
template <typename F>
static void each_tap(const cudnnConvolutionDescriptor_t cd, const cudnnTensorDescriptor_t xd,
		     const cudnnFilterDescriptor_t wd, const cudnnTensorDescriptor_t yd, const float *w, int tf32, F fn)
{
	int cg = wd->c, kg = wd->k / cd->groups, flip = cd->mode == CUDNN_CONVOLUTION;
	const int *ks = wd->sp, *xs = xd->sp, *ys = yd->sp;
	size_t xplane = spatial(xs), yplane = spatial(ys), kvol = spatial(ks);

	for (int n = 0; n < yd->n; n++)
		for (int k = 0; k < yd->c; k++) {
			int g = k / kg;
			size_t yb = ((size_t)n * yd->c + k) * yplane;
			for (int c = 0; c < cg; c++) {
				size_t xb = ((size_t)n * xd->c + g * cg + c) * xplane;
				for (size_t tap = 0; tap < kvol; tap++) {
					int t[3] = {(int)(tap / ((size_t)ks[1] * ks[2])), (int)(tap / ks[2] % ks[1]),
						    (int)(tap % ks[2])};
					size_t ft = flip ? kvol - 1 - tap : tap; // the flipped filter of CUDNN_CONVOLUTION
					float b = w[((size_t)k * cg + c) * kvol + ft];
					if (tf32)
						b = cusim_tf32(b);
					for (int o0 = 0; o0 < ys[0]; o0++) {
						int i0 = o0 * cd->stride[0] - cd->pad[0] + t[0] * cd->dil[0];
						if (i0 < 0 || i0 >= xs[0])
							continue;
						for (int o1 = 0; o1 < ys[1]; o1++) {
							int i1 = o1 * cd->stride[1] - cd->pad[1] + t[1] * cd->dil[1];
							if (i1 < 0 || i1 >= xs[1])
								continue;
							for (int o2 = 0; o2 < ys[2]; o2++) {
								int i2 = o2 * cd->stride[2] - cd->pad[2] + t[2] * cd->dil[2];
								if (i2 < 0 || i2 >= xs[2])
									continue;
								fn(xb + ((size_t)i0 * xs[1] + i1) * xs[2] + i2,
								   yb + ((size_t)o0 * ys[1] + o1) * ys[2] + o2, b);
							}
						}
					}
				}
			}
		}
}

static size_t elements(const cudnnTensorDescriptor_t t)
{
	return (size_t)t->n * t->c * spatial(t->sp);
}

static size_t filter_elements(const cudnnFilterDescriptor_t f)
{
	return (size_t)f->k * f->c * spatial(f->sp);
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
	cusim_dnn_choices++;
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

// Find: every algorithm tried on the buffers given, fastest first (the simulator's made-up times: a Winograd one,
// which the backend must pass over without TF32, then the GEMM one, which needs SIM_WORKSPACE bytes of workspace; when the workspace given is
// smaller it reports that it could not be tried, as cuDNN does).  A descriptor restricted to FMA math gets no
// tensor-op results.
static cudnnStatus_t sim_find_ex(cudnnHandle_t h, const cudnnTensorDescriptor_t x, const void *xp,
				 const cudnnFilterDescriptor_t w, const void *wp, const cudnnConvolutionDescriptor_t cd,
				 const cudnnTensorDescriptor_t y, void *yp, const int want, int *returned,
				 cudnnConvolutionFwdAlgoPerf_t *perf, void *ws, size_t ws_size)
{
	if (cusim_capture_broken() ||
	    (cusim_capturing() && (cusim_capture_break(cudaErrorStreamCaptureUnsupported,
						       "cudnnFindConvolutionForwardAlgorithmEx (it runs and waits)"), 1)))
		return CUDNN_STATUS_EXECUTION_FAILED;
	static const struct {
		cudnnConvolutionFwdAlgo_t algo;
		cudnnMathType_t math;
		size_t ws;
		float ms;
	} offer[] = {
		{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, CUDNN_TENSOR_OP_MATH, 0, 0.25f},
		{CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, CUDNN_FMA_MATH, 0, 0.4f}, // never chosen without TF32
		{CUDNN_CONVOLUTION_FWD_ALGO_GEMM, CUDNN_FMA_MATH, SIM_WORKSPACE, 0.5f},
		{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_FMA_MATH, 0, 1.0f},
	};
	if (!h)
		return bad("cudnnFindConvolutionForwardAlgorithmEx: no handle");
	cudnnStatus_t s = check_y(cd, x, w, y);
	if (s != CUDNN_STATUS_SUCCESS)
		return s;
	if (want < 1)
		return bad("cudnnFindConvolutionForwardAlgorithmEx: asked for %d results", want);
	if (!cusim_is_device(xp, elements(x) * 4) || !cusim_is_device(wp, filter_elements(w) * 4) ||
	    !cusim_is_device(yp, elements(y) * 4) || (ws_size && !cusim_is_device(ws, ws_size)))
		return bad("cudnnFindConvolutionForwardAlgorithmEx: x, w, y or the workspace is not inside device memory");
	int n = 0, fma_only = cd->math == CUDNN_FMA_MATH;
	for (int pass = 0; pass < 2; pass++) // those that ran, fastest first, then those that could not
		for (size_t i = 0; i < sizeof offer / sizeof offer[0] && n < want; i++) {
			if (fma_only && offer[i].math != CUDNN_FMA_MATH)
				continue;
			int fits = offer[i].ws <= ws_size;
			if (fits != !pass)
				continue;
			memset(&perf[n], 0, sizeof perf[n]);
			perf[n].algo = offer[i].algo;
			perf[n].status = fits ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_ALLOC_FAILED;
			perf[n].time = fits ? offer[i].ms : -1.0f;
			perf[n].memory = offer[i].ws;
			perf[n].mathType = offer[i].math;
			perf[n].determinism = CUDNN_DETERMINISTIC;
			n++;
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
	if (cusim_capture_broken())
		return CUDNN_STATUS_EXECUTION_FAILED;
	if (cusim_capturing()) { // recorded with the descriptors, alpha and beta as they are now
		struct cudnnTensorStruct xs = *xd, ys = *yd;
		struct cudnnFilterStruct ws_ = *wd;
		struct cudnnConvolutionStruct cs = *cd;
		float al = *(const float *)alpha_p, be = *(const float *)beta_p;
		cusim_record([=]() mutable {
			sim_forward(h, &al, &xs, xp, &ws_, wp, &cs, algo, ws, ws_size, &be, &ys, yp);
		});
		return CUDNN_STATUS_SUCCESS;
	}
	size_t need = algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM ? SIM_WORKSPACE : 0;
	if (ws_size < need || (need && !cusim_is_device(ws, need)))
		return bad("cudnnConvolutionForward: the workspace (%zu bytes at %p) is smaller than %zu bytes of device "
			   "memory", ws_size, ws, need);
	size_t xn = elements(xd), wn = filter_elements(wd), yn = elements(yd);
	if (!cusim_is_device(xp, xn * 4) || !cusim_is_device(wp, wn * 4) || !cusim_is_device(yp, yn * 4))
		return bad("cudnnConvolutionForward: x, w or y is not inside device memory (%p %p %p)", xp, wp, yp);
	const float *x = (const float *)xp;
	float *y = (float *)yp, alpha = *(const float *)alpha_p, beta = *(const float *)beta_p;
	int tf32 = cd->math == CUDNN_TENSOR_OP_MATH || cd->math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
	float *acc = (float *)calloc(yn ? yn : 1, sizeof(float));
	if (!acc)
		return CUDNN_STATUS_ALLOC_FAILED;
	each_tap(cd, xd, wd, yd, (const float *)wp, tf32, [&](size_t xi, size_t yi, float b) {
		acc[yi] = fmaf(tf32 ? cusim_tf32(x[xi]) : x[xi], b, acc[yi]);
	});
	for (size_t i = 0; i < yn; i++)
		y[i] = beta == 0.0f ? alpha * acc[i] : fmaf(beta, y[i], alpha * acc[i]);
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
	if (cusim_capture_broken())
		return CUDNN_STATUS_EXECUTION_FAILED;
	if (cusim_capturing()) {
		struct cudnnTensorStruct dxs = *dxd, dys = *dyd;
		struct cudnnFilterStruct ws_ = *wd;
		struct cudnnConvolutionStruct cs = *cd;
		float al = *(const float *)alpha_p, be = *(const float *)beta_p;
		cusim_record([=]() mutable {
			sim_bwd_data(h, &al, &ws_, wp, &dys, dyp, &cs, algo, ws, ws_size, &be, &dxs, dxp);
		});
		return CUDNN_STATUS_SUCCESS;
	}
	size_t need = bwd_workspace(algo);
	if (ws_size < need || (need && !cusim_is_device(ws, need)))
		return bad("cudnnConvolutionBackwardData: the workspace (%zu bytes at %p) is smaller than %zu bytes of "
			   "device memory", ws_size, ws, need);
	size_t xn = elements(dxd), wn = filter_elements(wd), yn = elements(dyd);
	if (!cusim_is_device(dxp, xn * 4) || !cusim_is_device(wp, wn * 4) || !cusim_is_device(dyp, yn * 4))
		return bad("cudnnConvolutionBackwardData: dx, w or dy is not inside device memory (%p %p %p)", dxp, wp,
			   dyp);
	const float *dy = (const float *)dyp;
	float *dx = (float *)dxp, alpha = *(const float *)alpha_p, beta = *(const float *)beta_p;
	int tf32 = cd->math == CUDNN_TENSOR_OP_MATH || cd->math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
	float *acc = (float *)calloc(xn ? xn : 1, sizeof(float));
	if (!acc)
		return CUDNN_STATUS_ALLOC_FAILED;
	each_tap(cd, dxd, wd, dyd, (const float *)wp, tf32, [&](size_t xi, size_t yi, float b) {
		acc[xi] = fmaf(tf32 ? cusim_tf32(dy[yi]) : dy[yi], b, acc[xi]);
	});
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
	cu_dnn.set_tensor_nd_descriptor = sim_set_tensor_nd;
	cu_dnn.create_filter_descriptor = sim_create_filter;
	cu_dnn.destroy_filter_descriptor = sim_destroy_filter;
	cu_dnn.set_filter_nd_descriptor = sim_set_filter_nd;
	cu_dnn.create_convolution_descriptor = sim_create_conv;
	cu_dnn.destroy_convolution_descriptor = sim_destroy_conv;
	cu_dnn.set_convolution_nd_descriptor = sim_set_conv_nd;
	cu_dnn.set_convolution_group_count = sim_set_groups;
	cu_dnn.set_convolution_math_type = sim_set_math;
	cu_dnn.get_convolution_nd_forward_output_dim = sim_output_dim_nd;
	cu_dnn.get_convolution_forward_algorithm_v7 = sim_find_v7;
	cu_dnn.find_convolution_forward_algorithm_ex = sim_find_ex;
	cu_dnn.get_convolution_forward_workspace_size = sim_workspace;
	cu_dnn.convolution_forward = sim_forward;
	cu_dnn.get_convolution_backward_data_algorithm_v7 = sim_bwd_find_v7;
	cu_dnn.get_convolution_backward_data_workspace_size = sim_bwd_workspace;
	cu_dnn.convolution_backward_data = sim_bwd_data;
	return 0;
}
