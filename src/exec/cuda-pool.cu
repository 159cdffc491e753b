// Pooling on the CUDA device: MaxPool (without the Indices output), AveragePool (count_include_pad, ceil_mode,
// dilations, pads, auto_pad), GlobalAveragePool and GlobalMaxPool, float32 (float16 and bfloat16 through float32).
// The window is read by the CPU's cpu_window_read, and each output element walks its taps with the same
// src/exec/ov-window.h functions (ov_window_taps, ov_window_padded_taps) and in the same order as
// src/exec/cpu-pool.c, accumulating as it does (cu_pool_point of cuda-points.h), so the results match the CPU's.
#include "config.h"

#include <math.h>
#include <string.h>

#include "src/exec/cuda-backend.h"
#include "src/exec/cuda-points.h"

// One thread per output element (cu_pool_point of cuda-points.h).
static __global__ void pool_kernel(struct cpu_window w, int avg, int count_include_pad, const float *x, float *y,
				   int64_t total)
{
	CU_FOR(t, total)
	y[t] = cu_pool_point(&w, avg, count_include_pad, x, t);
}

static int pool_run(struct exec_kernel_ctx *k, int avg)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;
	struct cpu_window w;
	int64_t out[XT_MAX_RANK];
	struct cu_bufs bufs = {};
	int rc = -1;

	// MaxPool's Indices output and the integer MaxPool are left to the CPU
	if (!x || !cu_float_type(x->dtype) || x->rank < 3 || (!avg && k->n_out > 1))
		return EXEC_DECLINE;
	if (cpu_window_read(k, x, NULL, xk_attr_int(k, "ceil_mode", 0) != 0, 0, &w))
		return -1; // the window's own message, as the CPU gives it
	int cip = xk_attr_int(k, "count_include_pad", 0) != 0;
	out[0] = x->dims[0];
	out[1] = x->dims[1];
	for (int i = 0; i < w.n; i++)
		out[2 + i] = w.out[i];
	if (xk_output_raw(k, 0, x->dtype, x->rank, out))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	const float *dx = cu_input_f32(k, &bufs, 0);
	float *dy = dx ? (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float)) : NULL;
	if (!dy)
		goto out;
	if (CU_LAUNCH(k, pool_kernel, cu_grid(y->numel), CU_BLOCK, w, avg, cip, dx, dy, y->numel) ||
	    cu_output_f32(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

static int k_max_pool(struct exec_kernel_ctx *k)
{
	return pool_run(k, 0);
}

static int k_average_pool(struct exec_kernel_ctx *k)
{
	return pool_run(k, 1);
}

// ---- global pools: one block per (n, c) plane ----

// Sum (as double) or max (the CPU's rule: from the plane's first value, v > m takes v) over each plane.
static __global__ void global_kernel(const float *x, float *y, int64_t sp, int avg)
{
	__shared__ double part[CU_BLOCK];
	const float *xp = x + (int64_t)blockIdx.x * sp;
	double acc = avg ? 0.0 : -INFINITY;

	for (int64_t i = threadIdx.x + (avg ? 0 : 1); i < sp; i += blockDim.x) {
		double v = (double)xp[i];
		acc = avg ? acc + v : (v > acc ? v : acc);
	}
	part[threadIdx.x] = acc;
	__syncthreads();
	for (unsigned h = blockDim.x / 2; h > 0; h /= 2) {
		if (threadIdx.x < h) {
			double a = part[threadIdx.x], b = part[threadIdx.x + h];
			part[threadIdx.x] = avg ? a + b : (b > a ? b : a);
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		if (avg) {
			y[blockIdx.x] = (float)(sp ? part[0] / (double)sp : 0);
		} else if (!sp) {
			y[blockIdx.x] = 0.0f;
		} else {
			// m = x[0], then every later value v > m; the rest's maximum (NaN skipped) decides the same way
			float m = xp[0], rest = (float)part[0];
			y[blockIdx.x] = rest > m ? rest : m;
		}
	}
}

static int global_run(struct exec_kernel_ctx *k, int avg)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;
	int64_t out[XT_MAX_RANK], sp = 1;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || !cu_float_type(x->dtype) || x->rank < 2)
		return EXEC_DECLINE;
	for (int i = 0; i < x->rank; i++) {
		out[i] = i < 2 ? x->dims[i] : 1;
		if (i >= 2)
			sp *= x->dims[i];
	}
	int64_t planes = x->dims[0] * x->dims[1];
	if (planes > 2147483647)
		return EXEC_DECLINE; // one block per plane
	if (xk_output_raw(k, 0, x->dtype, x->rank, out))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	const float *dx = cu_input_f32(k, &bufs, 0);
	float *dy = dx ? (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float)) : NULL;
	if (!dy)
		goto out;
	if (CU_LAUNCH_SYNC(k, global_kernel, (unsigned)planes, CU_BLOCK, dx, dy, sp, avg) ||
	    cu_output_f32(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

static int k_global_average_pool(struct exec_kernel_ctx *k)
{
	return global_run(k, 1);
}

static int k_global_max_pool(struct exec_kernel_ctx *k)
{
	return global_run(k, 0);
}

const struct exec_kernel cuda_pool_kernels[] = {
	{"AveragePool", 1, k_average_pool},
	{"GlobalAveragePool", 1, k_global_average_pool},
	{"GlobalMaxPool", 1, k_global_max_pool},
	{"MaxPool", 1, k_max_pool},
};
const size_t cuda_pool_count = sizeof cuda_pool_kernels / sizeof cuda_pool_kernels[0];
