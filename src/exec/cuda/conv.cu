// Conv and ConvTranspose on the CUDA device through cuDNN (1-D as 2-D with H = 1, 2-D and 3-D; groups, strides,
// dilations, pads and auto_pad, bias), float32 (float16 and bfloat16 through float32, as on the CPU); a run of its
// own computes 1-D and 2-D convolutions in the backend's own kernels instead (cuda/conv-igemm.cu, "the own kernels"
// below), so that it starts no library.  The checks
// and the window are the CPU's (ops_conv_setup, ops_convt_setup), mapped onto cuDNN's N-d descriptors by
// conv_geom_from_window (cuda/geom.c, unit-tested without a GPU): asymmetric pads, which cuDNN's descriptors
// cannot hold, are applied by copying the input into a zero-padded buffer first.
//
// This uses cuDNN's legacy convolution API (cudnnConvolutionForward, cudnnConvolutionBackwardData), still in
// cuDNN 9.  The algorithm comes from cuDNN's heuristics (the _v7 queries), restricted to FMA (full float32)
// kernels unless TF32 was asked for, and is filed as a note on the node, which `onnxview run` prints.
//
// What depends only on the geometry (the descriptors, cuDNN's check of the output size, the algorithm and its
// workspace size) is decided once per geometry and kept for the session (conv_plan_get): asking cuDNN 9's legacy
// heuristics costs milliseconds per call, more than the convolution itself on a small input.  The workspace is the
// backend's one growing buffer (cu_workspace), not an allocation per call.
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/cuda/backend.h"
#include "src/exec/cuda/conv-direct.h"
#include "src/exec/cuda/conv-igemm.h"
#include "src/exec/cuda/geom.h"
#include "src/exec/cuda/plancache.h"

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


// ---- plans: what one geometry needs, decided once ----

// The key of a plan: direction (0 forward, 1 backward-data), the TF32 setting, the filter's channels and the
// conv_geom fields the descriptors are made of.
#define CONV_KEY_INTS (8 + 6 * CONV_GEOM_MAX)
struct conv_plan {
	int key[CONV_KEY_INTS];
	cudnnTensorDescriptor_t xd, yd; // forward: input, output; backward-data: dy (X), dx (the full output)
	cudnnFilterDescriptor_t wd;
	cudnnConvolutionDescriptor_t cd;
	int algo;
	cudnnMathType_t math;
	size_t ws_size;
	int timed; // the algorithm was chosen by timing them (cudnnFind), not by the heuristics
	int cached; // that timed choice was read from the plan cache (an earlier process made it)
	// forward: computed as cuBLAS products instead (conv_blas_*), timed against cuDNN's choice
	int blas;
	size_t col_bytes;          // the im2col buffer it needs (0 for a 1x1 convolution)
	float blas_ms, dnn_ms;     // the two timings (negative: not timed)
	// forward: computed by the direct kernel (cuda/conv-direct.cu) instead, timed against both
	int direct;
	float direct_ms;
};

#define CONV_PLANS_MAX 512
static struct conv_plan *conv_plans[CONV_PLANS_MAX];
static int conv_plans_n;

static void conv_plan_free(struct conv_plan *p)
{
	if (!p)
		return;
	if (p->cd)
		cu_dnn.destroy_convolution_descriptor(p->cd);
	if (p->wd)
		cu_dnn.destroy_filter_descriptor(p->wd);
	if (p->yd)
		cu_dnn.destroy_tensor_descriptor(p->yd);
	if (p->xd)
		cu_dnn.destroy_tensor_descriptor(p->xd);
	free(p);
}

static void conv_key(int *key, int dir, int fc, const struct conv_geom *g)
{
	memset(key, 0, CONV_KEY_INTS * sizeof *key);
	key[0] = dir;
	key[1] = cu_dev.tf32;
	key[2] = fc;
	key[3] = g->nd;
	key[4] = g->n;
	key[5] = g->c;
	key[6] = g->k;
	key[7] = g->group;
	int *r = key + 8;
	for (int j = 0; j < g->nd; j++, r += 6) {
		r[0] = g->in[j];
		r[1] = g->out[j];
		r[2] = g->ker[j];
		r[3] = g->pad[j];
		r[4] = g->s[j];
		r[5] = g->d[j];
	}
}

static struct conv_plan *conv_plan_find(const int *key)
{
	for (int i = 0; i < conv_plans_n; i++)
		if (!memcmp(conv_plans[i]->key, key, sizeof conv_plans[i]->key))
			return conv_plans[i];
	return NULL;
}

// A new plan kept for the session (all plans are dropped when the table is full).
static void conv_plan_keep(struct conv_plan *p)
{
	if (conv_plans_n == CONV_PLANS_MAX) {
		for (int i = 0; i < conv_plans_n; i++)
			conv_plan_free(conv_plans[i]);
		conv_plans_n = 0;
	}
	conv_plans[conv_plans_n++] = p;
}

static struct conv_plan *conv_plan_new(struct exec_kernel_ctx *k, const int *key)
{
	struct conv_plan *p = (struct conv_plan *)calloc(1, sizeof *p);

	if (!p) {
		xk_fail(k, "out of memory");
		return NULL;
	}
	memcpy(p->key, key, sizeof p->key);
	if (CU_DNN_OK(k, cu_dnn.create_tensor_descriptor(&p->xd)) || CU_DNN_OK(k, cu_dnn.create_tensor_descriptor(&p->yd)) ||
	    CU_DNN_OK(k, cu_dnn.create_filter_descriptor(&p->wd)) ||
	    CU_DNN_OK(k, cu_dnn.create_convolution_descriptor(&p->cd))) {
		conv_plan_free(p);
		return NULL;
	}
	return p;
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

// Whether a forward plan times the algorithms (cudnnFindConvolutionForwardAlgorithmEx) instead of taking the
// heuristics' first: yes unless OV_CUDA_CONV_FIND=0.
static int conv_find(void)
{
	static int v = -1;

	if (v < 0) {
		v = exec_knob("OV_CUDA_CONV_FIND") != 0;
	}
	return v;
}

// The algorithms that add up the products themselves, as the CPU does (in another order): without TF32 the timed
// choice is among these only, so that the default keeps its agreement with the CPU; FFT and Winograd transform
// the operands and round differently, with larger errors on outputs near zero.
static int direct_sum(cudnnConvolutionFwdAlgo_t a)
{
	return a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM || a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
	       a == CUDNN_CONVOLUTION_FWD_ALGO_GEMM || a == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
}

// The most workspace a timed choice offers the algorithms.
#define CONV_FIND_WS_MAX ((size_t)256 << 20)

// ---- convolutions as cuBLAS products ----
//
// A 2-D (or 1-D) convolution of one group is the product Y[n] (M x OHW) = W (M x C.kh.kw) col[n] (C.kh.kw x OHW),
// col[n] the input's patches (im2col; for a 1x1 convolution with unit strides and no pads, X[n] itself).  In
// column-major terms Y[n]^T = col[n]^T W^T: one strided batched cuBLAS call over the images.  cuBLAS's float32
// products run several times faster than cuDNN's implicit GEMM on some layers (ResNet's 7x7 stem, the 1x1 layers
// of large batches) and slower on others, so the plan times both on the node's own buffers and keeps the faster
// (OV_CUDA_CONV_BLAS=0: cuDNN always; =1: cuBLAS image by image wherever it can; =2: the images side by side;
// =3: the direct kernel of cuda/conv-direct.cu wherever it can).  All sum the products in full float32.
#define CONV_COL_MAX ((size_t)256 << 20)

static int conv_blas_mode(void)
{
	static int v = -2;
	if (v == -2) {
		v = exec_knob("OV_CUDA_CONV_BLAS"); // -1: timed
	}
	return v;
}

static int is_pointwise(const struct conv_geom *g)
{
	for (int j = 0; j < g->nd; j++)
		if (g->ker[j] != 1 || g->s[j] != 1 || g->pad[j] != 0)
			return 0;
	return 1;
}

static size_t conv_blas_bytes(const struct conv_geom *g, int merged, size_t *col, size_t *z);

// Whether g can be a cuBLAS product, and the im2col buffer it needs (*col_bytes, 0 for a 1x1).
static int conv_blas_fits(const struct conv_geom *g, size_t *col_bytes)
{
	int64_t plane = 1, ck = g->c;
	if (g->group != 1 || g->nd != 2)
		return 0;
	for (int j = 0; j < g->nd; j++) {
		plane *= g->out[j];
		ck *= g->ker[j];
	}
	if (ck > INT_MAX || plane > INT_MAX || ck * plane > INT_MAX || (int64_t)g->k * plane > INT_MAX)
		return 0;
	if ((int64_t)g->n * plane > INT_MAX || (int64_t)g->n * ck * plane > INT_MAX || (int64_t)g->n * g->k * plane > INT_MAX)
		return 0;
	size_t col, z;
	*col_bytes = conv_blas_bytes(g, 1, &col, &z); // the merged way's, the larger
	return col <= CONV_COL_MAX && z <= CONV_COL_MAX;
}

// col[n][c][ky][kx][oy][ox] = x[n][c][oy*sh - ph + ky*dh][ox*sw - pw + kx*dw], 0 outside the image.  One thread
// per element of col; 32-bit index arithmetic (col holds at most CONV_COL_MAX bytes, fewer than 2^31 elements), as
// 64-bit divisions cost the GPU several times more.
static __global__ void im2col_kernel(const float *x, float *col, int total, int plane, int h, int w, int kh, int kw,
				     int ow, int sh, int sw, int ph, int pw, int dh, int dw)
{
	for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
		int row = t / plane, p = t - row * plane;
		int oy = p / ow, ox = p - oy * ow;
		int kk = row % (kh * kw), cn = row / (kh * kw); // cn: n * c + channel
		int ky = kk / kw, kx = kk - ky * kw;
		int iy = oy * sh - ph + ky * dh, ix = ox * sw - pw + kx * dw;
		col[t] = iy >= 0 && iy < h && ix >= 0 && ix < w ? x[((int64_t)cn * h + iy) * w + ix] : 0.0f;
	}
}

// The same with the images side by side, col[c][ky][kx][n][oy][ox], so that one product covers the batch (a better
// shape for cuBLAS where a plane is small: 7x7 or 14x14 at batch 8); a 1x1 convolution with unit strides uses it
// too, as X's channels side by side over the images.
static __global__ void im2col_merged_kernel(const float *x, float *col, int total, int plane, int nimg, int h, int w,
					    int kh, int kw, int ow, int sh, int sw, int ph, int pw, int dh, int dw, int c)
{
	for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < total; t += gridDim.x * blockDim.x) {
		int q = t / plane, p = t - q * plane;
		int n = q % nimg, ck = q / nimg;
		int oy = p / ow, ox = p - oy * ow;
		int kk = ck % (kh * kw), ch = ck / (kh * kw);
		int ky = kk / kw, kx = kk - ky * kw;
		int iy = oy * sh - ph + ky * dh, ix = ox * sw - pw + kx * dw;
		col[t] = iy >= 0 && iy < h && ix >= 0 && ix < w ? x[(((int64_t)n * c + ch) * h + iy) * w + ix] : 0.0f;
	}
}

// y[n][m][p] = the epilogue of z[m][n][p]: the merged product's output put in NCHW order, the epilogue on the way.
static __global__ void unmerge_kernel(const float *z, float *y, struct cu_epi e, int64_t total, int64_t nimg,
				      int64_t m, int64_t plane)
{
	CU_FOR(t, total)
	{
		int64_t p = t % plane, q = t / plane, c = q % m, n = q / m;
		y[t] = cu_epi_apply(e, t, z[(c * nimg + n) * plane + p]);
	}
}

// The buffers a cuBLAS way needs: col (0 for the per-image 1x1) and, merged, the product before unmerging.
static size_t conv_blas_bytes(const struct conv_geom *g, int merged, size_t *col, size_t *z)
{
	int64_t plane = (int64_t)g->out[0] * g->out[1], ck = (int64_t)g->c * g->ker[0] * g->ker[1];
	*col = merged || !is_pointwise(g) ? (size_t)(ck * plane * g->n) * sizeof(float) : 0;
	*z = merged ? ((size_t)((int64_t)g->k * plane * g->n) * sizeof(float) + 255) & ~(size_t)255 : 0;
	*col = (*col + 255) & ~(size_t)255;
	return *col + *z;
}

// y (or, merged, the unmerged product in ws past col, which the caller's epilogue puts in order) from x through
// col (ws) and cuBLAS.
static int conv_blas_run(struct exec_kernel_ctx *k, const struct conv_geom *g, const float *dx, const float *dw,
			 float *dy, void *ws, int merged)
{
	const float one = 1.0f, zero = 0.0f;
	int plane = g->out[0] * g->out[1], ck = g->c * g->ker[0] * g->ker[1];
	size_t col_b, z_b;
	conv_blas_bytes(g, merged, &col_b, &z_b);
	float *col = col_b ? (float *)ws : NULL;

	if (cu_need_blas(k) || CU_BLAS_OK(k, cu_blas.set_math_mode(cu_dev.blas, cu_dev.tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
											  : CUBLAS_DEFAULT_MATH)))
		return -1;
	if (merged) {
		int total = g->n * ck * plane; // conv_blas_fits: within CONV_COL_MAX bytes
		if (CU_LAUNCH(k, im2col_merged_kernel, cu_grid(total), CU_BLOCK, dx, col, total, plane, g->n, g->in[0],
			      g->in[1], g->ker[0], g->ker[1], g->out[1], g->s[0], g->s[1], g->pad[0], g->pad[1], g->d[0],
			      g->d[1], g->c))
			return -1;
		return CU_BLAS_OK(k, cu_blas.sgemm(cu_dev.blas, CUBLAS_OP_N, CUBLAS_OP_N, plane * g->n, g->k, ck, &one, col,
						   plane * g->n, dw, ck, &zero, (float *)((char *)ws + col_b), plane * g->n));
	}
	if (col) {
		int total = g->n * ck * plane; // conv_blas_fits: within CONV_COL_MAX bytes
		if (CU_LAUNCH(k, im2col_kernel, cu_grid(total), CU_BLOCK, dx, col, total, plane, g->in[0], g->in[1],
			      g->ker[0], g->ker[1], g->out[1], g->s[0], g->s[1], g->pad[0], g->pad[1], g->d[0], g->d[1]))
			return -1;
		dx = col;
	}
	return CU_BLAS_OK(k, cu_blas.sgemm_strided_batched(cu_dev.blas, CUBLAS_OP_N, CUBLAS_OP_N, plane, g->k, ck, &one, dx,
							   plane, (int64_t)ck * plane, dw, ck, 0, &zero, dy, plane,
							   (int64_t)g->k * plane, g->n));
}

// The device milliseconds of one conv_blas_run (after one run to warm up), or -1 when it cannot be timed.
// One run of a cuBLAS way, merged with its unmerging (no epilogue), or not.
static int conv_blas_try(struct exec_kernel_ctx *k, const struct conv_geom *g, const float *dx, const float *dw,
			 float *dy, void *ws, int merged)
{
	size_t col_b, z_b;
	conv_blas_bytes(g, merged, &col_b, &z_b);
	int64_t total = (int64_t)g->n * g->k * g->out[0] * g->out[1];
	struct cu_epi none;
	memset(&none, 0, sizeof none);
	none.b_inner = none.b_m = 1;
	return conv_blas_run(k, g, dx, dw, dy, ws, merged) ||
	       (merged && CU_LAUNCH(k, unmerge_kernel, cu_grid(total), CU_BLOCK, (const float *)((char *)ws + col_b), dy,
				    none, total, (int64_t)g->n, (int64_t)g->k, (int64_t)g->out[0] * g->out[1]));
}

static float conv_blas_time(struct exec_kernel_ctx *k, const struct conv_geom *g, const float *dx, const float *dw,
			    float *dy, int merged)
{
	cudaEvent_t e0 = NULL, e1 = NULL;
	float ms = -1;
	size_t col_b, z_b, bytes = conv_blas_bytes(g, merged, &col_b, &z_b);
	void *ws = bytes ? cu_scratch(bytes) : NULL;

	if ((bytes && !ws) || cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess)
		goto out;
	if (conv_blas_try(k, g, dx, dw, dy, ws, merged) || cudaEventRecord(e0, cu_dev.stream) != cudaSuccess ||
	    conv_blas_try(k, g, dx, dw, dy, ws, merged) || cudaEventRecord(e1, cu_dev.stream) != cudaSuccess ||
	    cu_sync() != cudaSuccess || cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess)
		ms = -1;
out:
	if (e0)
		cudaEventDestroy(e0);
	if (e1)
		cudaEventDestroy(e1);
	cu_scratch_free(ws);
	cudaGetLastError();
	k->err->msg[0] = '\0'; // a failed try is no error of the node: cuDNN computes it
	k->err->code = OV_OK;
	return ms;
}

// The timed choice for p's geometry made by an earlier process (plancache.h), when there is one and it is one this
// process could have made: an algorithm that adds up the products in full float32 unless TF32 is allowed, a
// cuBLAS way or the direct kernel where it fits; its workspace asked for again.  1 when p is ready.
static int plan_from_cache(struct conv_plan *p, const struct conv_geom *g)
{
	struct plan_choice c;
	int tf32 = cu_dev.tf32;
	size_t col;

	if (!plancache_find(cu_device_id(), p->key, CONV_KEY_INTS, &c))
		return 0;
	if (c.algo < 0 || c.algo >= CUDNN_CONVOLUTION_FWD_ALGO_COUNT || c.blas < 0 || c.blas > 2 ||
	    (c.blas == 2 && g->n < 2) || (c.blas && !conv_blas_fits(g, &col)) ||
	    (c.direct && (c.blas || !conv_direct_fits(g))) ||
	    (!tf32 && (c.math != CUDNN_FMA_MATH || !direct_sum((cudnnConvolutionFwdAlgo_t)c.algo))) ||
	    (c.math != CUDNN_DEFAULT_MATH && c.math != CUDNN_TENSOR_OP_MATH && c.math != CUDNN_FMA_MATH &&
	     c.math != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION))
		return 0;
	if (cu_dnn.set_convolution_math_type(p->cd, (cudnnMathType_t)c.math) != CUDNN_STATUS_SUCCESS ||
	    cu_dnn.get_convolution_forward_workspace_size(cu_dev.dnn, p->xd, p->wd, p->cd, p->yd,
							  (cudnnConvolutionFwdAlgo_t)c.algo, &p->ws_size) != CUDNN_STATUS_SUCCESS)
		return 0;
	p->algo = c.algo;
	p->math = (cudnnMathType_t)c.math;
	p->blas = c.blas;
	p->col_bytes = c.blas ? col : 0;
	p->blas_ms = c.blas_ms;
	p->dnn_ms = c.dnn_ms;
	p->direct = c.direct;
	p->direct_ms = c.direct_ms;
	p->timed = p->cached = 1;
	return 1;
}

// The forward plan of g: descriptors, cuDNN's agreement on the output size, the algorithm and its workspace size,
// decided once per geometry.  The algorithm: among those with full float32 arithmetic and a direct sum (unless TF32
// was asked for) and deterministic results, the fastest on this device, timed by cuDNN on the node's own buffers (x, w, y) with
// as much workspace as the heuristics' candidates ask for (at most CONV_FIND_WS_MAX); the heuristics' first such
// when timing is off (OV_CUDA_CONV_FIND=0), not worth it (below) or fails; implicit GEMM, which takes every
// geometry, when none qualifies.  The heuristics of cuDNN's legacy API rank algorithms without knowing their speed
// here, and their first full-float32 choice can be several times slower than the best.
//
// Timing pays only over runs: cudnnFind runs every candidate, and timing against cuBLAS products starts cuBLAS
// (some 120 ms on a GPU, more than a small model's whole run), to save microseconds per run.  A run that is the
// only one of its cut (k->runs <= 1: run without --repeat, compare, the TUI's runs) takes the own kernels (below)
// for 1-D and 2-D convolutions and gets here only for 3-D ones or with OV_CUDA_CONV_OWN=0: it then takes the plan
// cache's timed choice when an earlier process made one, else the heuristics'; a repeated run (run --repeat N)
// times, and files its choice in the plan cache for the processes after it.
static struct conv_plan *conv_fwd_plan(struct exec_kernel_ctx *k, const struct conv_geom *g, const float *dx,
				       const float *dw, float *dy, int *timed)
{
	int key[CONV_KEY_INTS], returned = 0, tf32 = cu_dev.tf32, lib_out[2 + CONV_GEOM_MAX];
	struct conv_plan *p = NULL;
	cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
	cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
	cudnnMathType_t math = tf32 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH;
	size_t offer = 0;

	*timed = 0;
	conv_key(key, 0, g->c / g->group, g);
	if ((p = conv_plan_find(key)))
		return p;
	if (!(p = conv_plan_new(k, key)))
		return NULL;
	if (set_tensor(k, p->xd, g->n, g->c, g->nd, g->in) || set_conv(k, p->wd, p->cd, g, g->k, g->c / g->group, math))
		goto fail;
	// cuDNN must agree with ONNX on the output's shape, or the copy back would be garbage
	if (CU_DNN_OK(k, cu_dnn.get_convolution_nd_forward_output_dim(p->cd, p->xd, p->wd, 2 + g->nd, lib_out)))
		goto fail;
	for (int j = 0; j < 2 + g->nd; j++)
		if (lib_out[j] != (j == 0 ? g->n : j == 1 ? g->k : g->out[j - 2])) {
			xk_fail(k, "cuDNN computes an output size of %d on dim %d where ONNX gives %d", lib_out[j], j,
				j == 0 ? g->n : j == 1 ? g->k : g->out[j - 2]);
			goto fail;
		}
	if (set_tensor(k, p->yd, g->n, g->k, g->nd, g->out))
		goto fail;
	if (conv_find() && conv_blas_mode() < 0 && plan_from_cache(p, g)) {
		*timed = 1;
		conv_plan_keep(p);
		return p;
	}
	if (CU_DNN_OK(k, cu_dnn.get_convolution_forward_algorithm_v7(cu_dev.dnn, p->xd, p->wd, p->cd, p->yd,
								     CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf)))
		goto fail;
	math = CUDNN_FMA_MATH;
	for (int i = 0, first = 1; i < returned; i++)
		if (perf[i].status == CUDNN_STATUS_SUCCESS && (tf32 || perf[i].mathType == CUDNN_FMA_MATH)) {
			// the first that the timed choice could have made: the untimed default keeps its agreement
			if (first && perf[i].determinism == CUDNN_DETERMINISTIC && (tf32 || direct_sum(perf[i].algo))) {
				algo = perf[i].algo;
				math = perf[i].mathType;
				first = 0;
			}
			if (perf[i].memory > offer)
				offer = perf[i].memory;
		}
	if (offer > CONV_FIND_WS_MAX)
		offer = CONV_FIND_WS_MAX;
	if (conv_find() && k->runs > 1) {
		// the node's work so far done within the deadline: cudnnFind waits for the device itself
		if (cu_sync_ok(k))
			goto fail;
		void *scratch = offer ? cu_scratch(offer) : NULL;
		size_t have = scratch ? offer : 0;
		int found = 0;
		if (cu_dnn.find_convolution_forward_algorithm_ex(cu_dev.dnn, p->xd, dx, p->wd, dw, p->cd, p->yd, dy,
								 CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf,
								 scratch, have) == CUDNN_STATUS_SUCCESS)
			for (int i = 0; i < found; i++)
				if (perf[i].status == CUDNN_STATUS_SUCCESS && (tf32 || perf[i].mathType == CUDNN_FMA_MATH) &&
				    perf[i].determinism == CUDNN_DETERMINISTIC && (tf32 || direct_sum(perf[i].algo))) {
					algo = perf[i].algo;
					math = perf[i].mathType;
					p->dnn_ms = perf[i].time;
					*timed = 1;
					break;
				}
		cu_scratch_free(scratch);
		cudaGetLastError();
	}
	p->blas_ms = p->direct_ms = -1;
	if (!*timed)
		p->dnn_ms = -1;
	if ((conv_blas_mode() == 1 || conv_blas_mode() == 2 || conv_blas_mode() < 0) &&
	    conv_blas_fits(g, &p->col_bytes)) {
		if (conv_blas_mode() > 0)
			p->blas = conv_blas_mode() == 2 && g->n > 1 ? 2 : 1;
		else if (*timed && p->dnn_ms >= 0) {
			// each image apart (1), or the batch side by side (2, for more than one image)
			for (int way = 1; way <= (g->n > 1 ? 2 : 1); way++) {
				float ms = conv_blas_time(k, g, dx, dw, dy, way == 2);
				if (ms >= 0 && ms < p->dnn_ms && (p->blas_ms < 0 || ms < p->blas_ms)) {
					p->blas = way;
					p->blas_ms = ms;
				} else if (ms >= 0 && p->blas_ms < 0 && !p->blas) {
					p->blas_ms = ms; // slower than cuDNN: said in the note
				}
			}
		}
	}
	// the direct kernel: forced, or timed against the faster of the two (and kept when faster still)
	if ((conv_blas_mode() == 3 || conv_blas_mode() < 0) && conv_direct_fits(g)) {
		if (conv_blas_mode() == 3)
			p->direct = 1;
		else if (*timed && p->dnn_ms >= 0) {
			p->direct_ms = conv_direct_time(k, g, dx, dw, dy);
			if (p->direct_ms >= 0 && p->direct_ms < p->dnn_ms && (!p->blas || p->direct_ms < p->blas_ms)) {
				p->direct = 1;
				p->blas = 0;
			}
		}
	}
	if (CU_DNN_OK(k, cu_dnn.set_convolution_math_type(p->cd, math)) ||
	    CU_DNN_OK(k, cu_dnn.get_convolution_forward_workspace_size(cu_dev.dnn, p->xd, p->wd, p->cd, p->yd, algo,
								       &p->ws_size)))
		goto fail;
	p->algo = algo;
	p->math = math;
	p->timed = *timed;
	if (*timed && conv_blas_mode() < 0) {
		struct plan_choice c = {(int)algo, (int)math, p->blas, p->blas_ms, p->dnn_ms, p->direct, p->direct_ms};
		plancache_add(cu_device_id(), p->key, CONV_KEY_INTS, &c);
	}
	conv_plan_keep(p);
	return p;
fail:
	conv_plan_free(p);
	return NULL;
}

// ---- the own kernels (cuda/conv-igemm.cu): no library ----
//
// cuDNN's first use in a process costs some 100 ms on a GPU (loading it, creating the handle, its kernels' first
// load), more than a small model's whole run, and timing its algorithms against cuBLAS products starts cuBLAS too
// (another 120 ms).  A run that is the only one of its cut (k->runs <= 1: run without --repeat, compare, the TUI's
// runs) computes every 1-D and 2-D convolution in the backend's own kernels instead, so that it starts neither; it
// does not read the plan cache either, whose key holds cuDNN's version (reading it would start cuDNN).  Repeated
// runs (run --repeat N) time cuDNN's algorithms, cuBLAS products and the direct kernel as before, paying the
// libraries' start once for their faster warm runs.  3-D convolutions and ConvTranspose stay on cuDNN, and so does
// every convolution with --tf32 (the own kernels compute in full float32 only).
// OV_CUDA_CONV_OWN=1 takes the own kernels for every run (repeated ones too), =0 never (a run of its own then
// takes cuDNN's heuristics, or the plan cache's timed choice); OV_CUDA_CONV_BLAS, which forces a library way,
// leaves them out unless OV_CUDA_CONV_OWN=1.

// 1: the own kernels for every run, 0: never, -1: for a run of its own (OV_CUDA_CONV_OWN)
static int conv_own_mode(void)
{
	static int v = -2;
	if (v == -2) {
		v = exec_knob("OV_CUDA_CONV_OWN");
	}
	return v;
}

static int conv_use_own(const struct exec_kernel_ctx *k, const struct conv_geom *g)
{
	if (conv_igemm_way(g) < 0) // 3-D
		return 0;
	if (conv_own_mode() >= 0)
		return conv_own_mode();
	// --tf32 asks for the libraries' tensor-core arithmetic, which the own kernels do not have (compare --tf32 shows
	// what it changes)
	return k->runs <= 1 && conv_blas_mode() < 0 && !cu_dev.tf32;
}

// The Conv y (allocated, not empty) of geometry g by the own kernels, its bias (has_bias) and the runner's offers
// in their stores.
static int conv_own(struct exec_kernel_ctx *k, const struct conv_geom *g, struct xtensor *y, int has_bias)
{
	struct cu_bufs bufs = {};
	struct cu_epi epi;
	const float *dx = cu_input_f32(k, &bufs, 0), *dw = NULL, *db = NULL;
	float *dy = NULL;
	int rc = -1, way = conv_igemm_way(g);

	if (!dx || !(dw = cu_input_f32(k, &bufs, 1)) || (has_bias && !(db = cu_input_f32(k, &bufs, 2))))
		goto out;
	if (!(dy = (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float))) || cu_take_offers(k, y, &epi))
		goto out;
	epi.bias = db, epi.b_inner = (int64_t)g->out[0] * g->out[1], epi.b_m = g->k;
	if (conv_igemm_run(k, g, dx, dw, dy, &epi) || cu_output_f32(k, &bufs, 0, dy))
		goto out;
	if (way == 1)
		xk_note(k, "the own implicit-GEMM kernel (full float32), %s",
			conv_own_mode() == 1 ? "OV_CUDA_CONV_OWN=1" : "for a run of its own (no library)");
	else
		xk_note(k, "the own per-output kernel (full float32, %d output channel%s per group), %s", g->k / g->group,
			g->k / g->group == 1 ? "" : "s",
			conv_own_mode() == 1 ? "OV_CUDA_CONV_OWN=1" : "for a run of its own (no library)");
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
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
	if (conv_use_own(k, &g))
		return conv_own(k, &g, y, b != NULL);
	if (cu_need_dnn(k))
		return -1;

	const float *dx = cu_input_f32(k, &bufs, 0), *dw = NULL, *db = NULL;
	struct cu_epi epi;
	size_t col_b = 0, z_b = 0, blas_b;
	const char *way;
	float *dy = NULL, *xp = NULL;
	void *ws = NULL;
	struct conv_plan *p = NULL;
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
	int timed;
	if (!(p = conv_fwd_plan(k, &g, dx, dw, dy, &timed)))
		goto out;
	if (cu_take_offers(k, y, &epi))
		goto out;
	epi.bias = db, epi.b_inner = plane, epi.b_m = g.k;
	blas_b = p->blas ? conv_blas_bytes(&g, p->blas == 2, &col_b, &z_b) : 0;
	if (p->direct) { // the epilogue applied as it stores
		if (conv_direct_run(k, &g, dx, dw, dy, &epi))
			goto out;
	} else if (p->blas) {
		if ((blas_b && !(ws = cu_workspace(k, blas_b))) || conv_blas_run(k, &g, dx, dw, dy, ws, p->blas == 2))
			goto out;
	} else {
		if (p->ws_size && !(ws = cu_workspace(k, p->ws_size)))
			goto out;
		const float one = 1.0f, zero = 0.0f;
		if (CU_DNN_OK(k, cu_dnn.convolution_forward(cu_dev.dnn, &one, p->xd, dx, p->wd, dw, p->cd,
							    (cudnnConvolutionFwdAlgo_t)p->algo, ws, p->ws_size, &zero,
							    p->yd, dy)))
			goto out;
	}
	if (p->blas == 2) { // the product of the images side by side, put in order with the epilogue
		if (CU_LAUNCH(k, unmerge_kernel, cu_grid(y->numel), CU_BLOCK, (const float *)((char *)ws + col_b), dy, epi,
			      y->numel, (int64_t)g.n, (int64_t)g.k, plane))
			goto out;
	} else if (!p->direct && cu_epilogue(k, dy, y->numel, &epi)) {
		goto out;
	}
	if (cu_output_f32(k, &bufs, 0, dy))
		goto out;
	way = p->blas == 2 ? (is_pointwise(&g) ? "a 1x1 convolution, the images side by side,"
							  : "im2col, the images side by side,")
			  : is_pointwise(&g) ? "a 1x1 convolution" : "im2col";
	char blas_too[48];
	blas_too[0] = '\0';
	if (p->blas_ms >= 0)
		snprintf(blas_too, sizeof blas_too, " and cuBLAS's %.3f ms", p->blas_ms);
	if (p->direct && p->direct_ms >= 0)
		xk_note(k, "the direct kernel (full float32), %.3f ms against cuDNN's %s %.3f ms%s, timed%s",
			p->direct_ms, algo_name((cudnnConvolutionFwdAlgo_t)p->algo), p->dnn_ms, blas_too,
			p->cached ? " by an earlier run (plan cache)" : "");
	else if (p->direct)
		xk_note(k, "the direct kernel (full float32), OV_CUDA_CONV_BLAS=3%s",
			g.explicit_pad ? ", asymmetric pads applied by copying" : "");
	else if (p->blas && p->blas_ms >= 0)
		xk_note(k, "%s as a cuBLAS product (%s), %.3f ms against cuDNN's %s %.3f ms, timed%s%s", way,
			cu_dev.tf32 ? "TF32 allowed" : "full float32", p->blas_ms,
			algo_name((cudnnConvolutionFwdAlgo_t)p->algo), p->dnn_ms,
			p->cached ? " by an earlier run (plan cache)" : "",
			p->direct_ms >= 0 ? " (direct kernel slower)" : "");
	else if (p->blas)
		xk_note(k, "%s as a cuBLAS product (%s), OV_CUDA_CONV_BLAS=%d", way,
			cu_dev.tf32 ? "TF32 allowed" : "full float32", conv_blas_mode());
	else
		xk_note(k, "cudnn algo %s, %s, workspace %zu bytes%s, %s%s%s", algo_name((cudnnConvolutionFwdAlgo_t)p->algo),
			math_name(p->math), p->ws_size, g.explicit_pad ? ", asymmetric pads applied by copying" : "",
			p->timed ? "the fastest of those timed" : conv_find() && k->runs <= 1 ? "the heuristics' choice for one run"
									     : "the heuristics' choice",
			p->cached ? " by an earlier run (plan cache)" : "",
			p->blas_ms >= 0 && p->direct_ms >= 0 ? " (cuBLAS, direct kernel slower)"
			: p->blas_ms >= 0                    ? " (cuBLAS was slower)"
			: p->direct_ms >= 0                  ? " (direct kernel slower)"
							     : "");
	rc = 0;
out:
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

// The backward-data plan of g (the convolution whose output is X; mg: W's channels per group): the heuristics'
// first deterministic algorithm with full float32 arithmetic (unless TF32 was asked for), else their first that
// qualifies otherwise, ALGO_1 when none does; asked once per geometry.  xd is dy (X), yd is dx (the full output).
static struct conv_plan *conv_bwd_plan(struct exec_kernel_ctx *k, const struct conv_geom *g, int mg)
{
	int key[CONV_KEY_INTS], returned = 0, tf32 = cu_dev.tf32, pick = -1;
	struct conv_plan *p = NULL;
	cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
	cudnnConvolutionBwdDataAlgo_t algo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
	cudnnMathType_t math = CUDNN_FMA_MATH;

	conv_key(key, 1, mg, g);
	if ((p = conv_plan_find(key)))
		return p;
	if (!(p = conv_plan_new(k, key)))
		return NULL;
	if (set_tensor(k, p->xd, g->n, g->k, g->nd, g->out) || set_tensor(k, p->yd, g->n, g->c, g->nd, g->in) ||
	    set_conv(k, p->wd, p->cd, g, g->k, mg, tf32 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH))
		goto fail;
	if (CU_DNN_OK(k, cu_dnn.get_convolution_backward_data_algorithm_v7(cu_dev.dnn, p->wd, p->xd, p->cd, p->yd,
									    CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
									    &returned, perf)))
		goto fail;
	for (int pass = 0; pass < 2 && pick < 0; pass++)
		for (int i = 0; i < returned && pick < 0; i++)
			if (perf[i].status == CUDNN_STATUS_SUCCESS && (tf32 || perf[i].mathType == CUDNN_FMA_MATH) &&
			    (pass || perf[i].determinism == CUDNN_DETERMINISTIC))
				pick = i;
	if (pick >= 0) {
		algo = perf[pick].algo;
		math = perf[pick].mathType;
	}
	if (CU_DNN_OK(k, cu_dnn.set_convolution_math_type(p->cd, math)) ||
	    CU_DNN_OK(k, cu_dnn.get_convolution_backward_data_workspace_size(cu_dev.dnn, p->wd, p->xd, p->cd, p->yd,
									      algo, &p->ws_size)))
		goto fail;
	p->algo = algo;
	p->math = math;
	conv_plan_keep(p);
	return p;
fail:
	conv_plan_free(p);
	return NULL;
}

static int k_conv_transpose(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in > 0 ? k->in[0] : NULL, *wt = k->n_in > 1 ? k->in[1] : NULL;
	const struct xtensor *b = k->n_in > 2 ? k->in[2] : NULL;
	struct ops_window win;
	struct conv_geom g = {};
	int64_t group, out[XT_MAX_RANK], pb[CONV_GEOM_MAX], o[CONV_GEOM_MAX], full[CONV_GEOM_MAX];
	struct cu_bufs bufs = {};
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

	if (cu_need_dnn(k))
		return -1;
	const float *dx = cu_input_f32(k, &bufs, 0), *dw = NULL, *db = NULL;
	float *df = NULL, *dy = NULL;
	void *ws = NULL;
	struct conv_plan *p = NULL;
	if (!dx || !(dw = cu_input_f32(k, &bufs, 1)) || (b && !(db = cu_input_f32(k, &bufs, 2))))
		goto out;
	if (!(df = (float *)cu_alloc(k, &bufs, (size_t)full_numel * sizeof(float))) ||
	    !(dy = (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float))))
		goto out;
	if (!(p = conv_bwd_plan(k, &g, (int)mg)))
		goto out;
	if (p->ws_size && !(ws = cu_workspace(k, p->ws_size)))
		goto out;
	{
		const float one = 1.0f, zero = 0.0f;
		if (CU_DNN_OK(k, cu_dnn.convolution_backward_data(cu_dev.dnn, &one, p->wd, dw, p->xd, dx, p->cd,
								  (cudnnConvolutionBwdDataAlgo_t)p->algo, ws,
								  p->ws_size, &zero, p->yd, df)))
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
	xk_note(k, "cudnn backward-data algo %s, %s, workspace %zu bytes",
		bwd_algo_name((cudnnConvolutionBwdDataAlgo_t)p->algo), math_name(p->math), p->ws_size);
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

const struct exec_kernel cuda_conv_kernels[] = {
	{.op = "Conv", .since = 1, .fn = k_conv},
	{.op = "ConvTranspose", .since = 1, .fn = k_conv_transpose},
};
const size_t cuda_conv_count = sizeof cuda_conv_kernels / sizeof cuda_conv_kernels[0];
