// Pooling on the CUDA device: MaxPool (with its Indices output and storage_order too), AveragePool
// (count_include_pad, ceil_mode, dilations, pads, auto_pad), GlobalAveragePool and GlobalMaxPool, float32 (float16
// and bfloat16 through float32); LpPool and GlobalLpPool, float32 and float64 (float16 and bfloat16 through
// float32); MaxUnpool, any fixed-size element type.  The window is read by the CPU's ops_window_read, and each
// output element walks its taps with the same src/exec/ops/ov-window.h functions (ov_window_taps,
// ov_window_padded_taps) and in the same order as src/exec/cpu/pool.c, accumulating as it does (cu_pool_point,
// cu_maxpool_index_point, cu_lppool_point of cuda/points.h), so the results match the CPU's; MaxPool over two
// spatial dims (a CNN's) or one without Indices has a kernel of its own (maxpool2d_kernel), in the order of the
// CPU's separable float path.  The global pools
// are one block per plane instead: GlobalMaxPool gives the CPU's value, GlobalAveragePool sums in double as the
// CPU does but in a tree across the block's threads, so its float result may differ from the CPU's in the last
// bit.
#include "config.h"

#include <math.h>
#include <string.h>

#include "src/exec/cuda/backend.h"
#include "src/exec/cuda/points.h"

// One thread per output element (cu_pool_point of cuda/points.h).
static __global__ void pool_kernel(struct ops_window w, int avg, int count_include_pad, const float *x, float *y,
				   int64_t total)
{
	CU_FOR(t, total)
	y[t] = cu_pool_point(&w, avg, count_include_pad, x, t);
}

// ---- MaxPool over two spatial dims (a CNN's) or one, without Indices ----
//
// The CPU's float maximum (cpu/pool.c's separable walk: each of the window's columns' maximum over its rows, from
// -inf, then the maximum of those over the columns, from -inf; v > m takes v, so NaN is skipped, a window of NaN
// alone gives -inf and one with no tap inside the input 0), in the CPU's order, which decides which of -0 and +0 a
// window of zeros gives: the same bits.  cu_pool_point walks the taps row by row instead, and does 64-bit
// divisions for every element; here a thread takes MP_OUTS outputs of one output row, 32 apart so that a warp's
// lanes read adjacent columns, finds the row once (32-bit arithmetic: mp_fits) and reads through the read-only path.
#define MP_OUTS 2

#ifdef OV_CUDA_SIM
#define MP_LDG(p) (*(p))
#else
#define MP_LDG(p) __ldg(p)
#endif

struct mp_geom {
	int h, w, oh, ow, kh, kw, sh, sw, dh, dw, ph, pw;
	int segs; // pieces of 32 x MP_OUTS outputs per output row
};

// Whether w (of planes planes) has this kernel's shape and sizes: 2 spatial dims, or 1 (as a height of 1, as the
// CPU runs it), every tap's position and every thread's number (32 per piece of an output row) in an int.
static int mp_fits(const struct ops_window *w, int64_t planes, struct mp_geom *g)
{
	if (w->n != 1 && w->n != 2)
		return 0;
	for (int i = 0; i < w->n; i++)
		if (w->in[i] > 0x7fffffff || w->out[i] > 0x7fffffff || w->k[i] > 0x7fffffff || w->s[i] > 0x7fffffff ||
		    w->d[i] > 0x7fffffff || w->pb[i] > 0x7fffffff ||
		    w->out[i] * w->s[i] + w->k[i] * w->d[i] > 0x7fffffff) // every tap's position within int
			return 0;
	int r = w->n - 1, two = w->n == 2; // r: the columns' dim (the last)
	int64_t segs = (w->out[r] + 32 * MP_OUTS - 1) / (32 * MP_OUTS);
	if (planes * (two ? w->out[0] : 1) * segs * 32 > 0x7fffffff - 65535 * CU_BLOCK) // u + the grid's stride in int
		return 0;
	*g = (struct mp_geom){.h = two ? (int)w->in[0] : 1, .w = (int)w->in[r], .oh = two ? (int)w->out[0] : 1,
			      .ow = (int)w->out[r], .kh = two ? (int)w->k[0] : 1, .kw = (int)w->k[r],
			      .sh = two ? (int)w->s[0] : 1, .sw = (int)w->s[r], .dh = two ? (int)w->d[0] : 1,
			      .dw = (int)w->d[r], .ph = two ? (int)w->pb[0] : 0, .pw = (int)w->pb[r],
			      .segs = (int)segs};
	return 1;
}

// units: 32 threads per piece of each output row (planes x oh rows).
static __global__ void maxpool2d_kernel(const float *__restrict__ x, float *__restrict__ y, struct mp_geom g,
					int units)
{
	for (int u = blockIdx.x * blockDim.x + threadIdx.x; u < units; u += gridDim.x * blockDim.x) {
		int lane = u & 31, piece = u >> 5;
		int row = piece / g.segs, seg = piece - row * g.segs; // row: plane x oh + oy
		int plane = row / g.oh, oy = row - plane * g.oh;
		int ox0 = seg * 32 * MP_OUTS + lane, iy0 = oy * g.sh - g.ph;
		const float *xp = x + (int64_t)plane * g.h * g.w;
		int rows = 0;
		for (int ky = 0; ky < g.kh; ky++)
			rows += iy0 + ky * g.dh >= 0 && iy0 + ky * g.dh < g.h;
		for (int j = 0; j < MP_OUTS; j++) {
			int ox = ox0 + 32 * j;
			if (ox >= g.ow)
				break;
			int ix0 = ox * g.sw - g.pw, cols = 0;
			float m = -INFINITY;
			for (int kx = 0; kx < g.kw; kx++) {
				int ix = ix0 + kx * g.dw;
				if (ix < 0 || ix >= g.w)
					continue;
				float c = -INFINITY;
				for (int ky = 0; ky < g.kh; ky++) {
					int iy = iy0 + ky * g.dh;
					if (iy < 0 || iy >= g.h)
						continue;
					float v = MP_LDG(xp + (int64_t)iy * g.w + ix);
					c = v > c ? v : c;
				}
				m = c > m ? c : m;
				cols++;
			}
			y[(int64_t)row * g.ow + ox] = rows && cols ? m : 0.0f; // a window with no tap inside gives 0
		}
	}
}

// MaxPool with Indices (cu_maxpool_index_point).
static __global__ void pool_index_kernel(struct ops_window w, int storage_order, const float *x, float *y,
					 int64_t *ind, int64_t total)
{
	CU_FOR(t, total)
	y[t] = cu_maxpool_index_point(&w, storage_order, x, t, &ind[t]);
}

// LpPool (cu_lppool_point), float32 or float64 (dt).
static __global__ void lp_pool_kernel(struct ops_window w, double p, const void *x, int dt, void *y, int64_t total)
{
	CU_FOR(t, total)
	cu_store_d(y, dt, t, cu_lppool_point(&w, p, x, dt, t));
}

enum pool_kind { POOL_MAX, POOL_AVG, POOL_LP };

static int pool_run(struct exec_kernel_ctx *k, enum pool_kind kind)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;
	struct ops_window w;
	int64_t out[XT_MAX_RANK];
	struct cu_bufs bufs = {};
	int rc = -1, dt = OV_DT_FLOAT, ind = kind == POOL_MAX && k->n_out > 1;
	double p = ops_pool_lp_p(k);

	// the integer MaxPool and the float64 MaxPool and AveragePool are left to the CPU
	if (!x || !(cu_float_type(x->dtype) || (kind == POOL_LP && x->dtype == OV_DT_DOUBLE)) || x->rank < 3)
		return EXEC_DECLINE;
	if (kind == POOL_LP && !(p > 0))
		return EXEC_DECLINE; // the CPU names the bad p
	if (ops_window_read(k, x, NULL, xk_attr_int(k, "ceil_mode", 0) != 0, 0, &w))
		return -1; // the window's own message, as the CPU gives it
	int cip = xk_attr_int(k, "count_include_pad", 0) != 0;
	out[0] = x->dims[0];
	out[1] = x->dims[1];
	for (int i = 0; i < w.n; i++)
		out[2 + i] = w.out[i];
	if (xk_output_raw(k, 0, x->dtype, x->rank, out) || (ind && xk_output_raw(k, 1, OV_DT_INT64, x->rank, out)))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	const void *dx = cu_input_fd(k, &bufs, 0, &dt);
	void *dy = dx ? cu_alloc(k, &bufs, (size_t)y->numel * (dt == OV_DT_DOUBLE ? 8 : 4)) : NULL;
	int64_t *di = dy && ind ? (int64_t *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(int64_t)) : NULL;
	if (!dy || (ind && !di))
		goto out;
	struct mp_geom mg;
	if (kind == POOL_MAX && !ind && dt == OV_DT_FLOAT && mp_fits(&w, x->dims[0] * x->dims[1], &mg)) {
		int units = (int)(x->dims[0] * x->dims[1] * mg.oh * mg.segs * 32);
		if (CU_LAUNCH(k, maxpool2d_kernel, cu_grid(units), CU_BLOCK, (const float *)dx, (float *)dy, mg,
			      units) ||
		    cu_output_f32(k, &bufs, 0, (float *)dy))
			goto out;
		rc = 0;
		goto out;
	}
	if (kind == POOL_LP ? CU_LAUNCH(k, lp_pool_kernel, cu_grid(y->numel), CU_BLOCK, w, p, dx, dt, dy, y->numel)
	    : ind ? CU_LAUNCH(k, pool_index_kernel, cu_grid(y->numel), CU_BLOCK, w,
			      xk_attr_int(k, "storage_order", 0) != 0, (const float *)dx, (float *)dy, di, y->numel)
		  : CU_LAUNCH(k, pool_kernel, cu_grid(y->numel), CU_BLOCK, w, kind == POOL_AVG, cip, (const float *)dx,
			      (float *)dy, y->numel))
		goto out;
	if (cu_output_fd(k, &bufs, 0, dy, dt) || (ind && cu_output(k, &bufs, 1, di)))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

static int k_max_pool(struct exec_kernel_ctx *k)
{
	return pool_run(k, POOL_MAX);
}

static int k_average_pool(struct exec_kernel_ctx *k)
{
	return pool_run(k, POOL_AVG);
}

static int k_lp_pool(struct exec_kernel_ctx *k)
{
	return pool_run(k, POOL_LP);
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

// ---- GlobalLpPool: one thread per (n, c) plane, summing in the CPU's order ----

static __global__ void global_lp_kernel(const void *x, int dt, void *y, int64_t sp, double p, int64_t planes)
{
	CU_FOR(pl, planes)
	cu_store_d(y, dt, pl, cu_global_lp_point(x, dt, pl * sp, sp, p));
}

static int k_global_lp_pool(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;
	int64_t out[XT_MAX_RANK];
	double p = ops_pool_lp_p(k);
	struct cu_bufs bufs = {};
	int rc = -1, dt;

	if (!x || !(cu_float_type(x->dtype) || x->dtype == OV_DT_DOUBLE) || x->rank < 2 || !(p > 0))
		return EXEC_DECLINE; // the CPU names a rank or p it refuses
	for (int i = 0; i < x->rank; i++)
		out[i] = i < 2 ? x->dims[i] : 1;
	if (xk_output_raw(k, 0, x->dtype, x->rank, out))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	int64_t sp = xk_numel(x->rank - 2, x->dims + 2);
	const void *dx = cu_input_fd(k, &bufs, 0, &dt);
	void *dy = dx ? cu_alloc(k, &bufs, (size_t)y->numel * (dt == OV_DT_DOUBLE ? 8 : 4)) : NULL;
	if (!dy || CU_LAUNCH(k, global_lp_kernel, cu_grid(y->numel), CU_BLOCK, dx, dt, dy, sp, p, y->numel) ||
	    cu_output_fd(k, &bufs, 0, dy, dt))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// ---- MaxUnpool ----

// Each index claims its element of Y for the last X element naming it (as the CPU's loop, where a later one
// overwrites: win holds 1 + that element's index), and the first index outside Y is noted in bad[0].
static __global__ void unpool_claim_kernel(const int64_t *ind, int64_t n, struct ov_unpool_map um,
					   unsigned long long *win, unsigned long long *bad)
{
	CU_FOR(i, n)
	{
		int64_t at = ov_unpool_target(&um, ind[i]); // output_shape's remapping, as the CPU's
		if (at < 0)
			atomicMin(bad, (unsigned long long)i);
		else
			atomicMax(&win[at], (unsigned long long)i + 1);
	}
}

// bad[1]: the index found outside Y, for the message.
static __global__ void unpool_bad_kernel(const int64_t *ind, unsigned long long *bad)
{
	CU_FOR(i, 1)
	bad[1] = bad[0] == ~0ull ? 0 : (unsigned long long)ind[bad[0]];
}

template <typename T>
static __global__ void unpool_fill_kernel(const T *x, const unsigned long long *win, T *y, int64_t ny)
{
	CU_FOR(j, ny)
	{
		unsigned long long w = win[j];
		y[j] = w ? x[w - 1] : T();
	}
}

template <typename T>
static int unpool_fill(struct exec_kernel_ctx *k, const void *x, const unsigned long long *win, void *y, int64_t ny)
{
	return CU_LAUNCH(k, unpool_fill_kernel<T>, cu_grid(ny), CU_BLOCK, (const T *)x, win, (T *)y, ny);
}

static int k_max_unpool(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL, *ind = k->n_in > 1 ? k->in[1] : NULL;
	int has_shape = k->n_in > 2 && k->in[2];
	struct ops_window w;
	int64_t out[XT_MAX_RANK];
	unsigned long long bad[2];
	struct cu_bufs bufs = {};
	int rc = -1;

	// anything the CPU refuses is left to it, to name: a missing input, counts that differ, a type it does not copy
	if (!x || !ind || ind->dtype != OV_DT_INT64 || ind->numel != x->numel || x->dtype == OV_DT_STRING)
		return EXEC_DECLINE;
	size_t es = xt_elem_size(x->dtype);
	if (es != 1 && es != 2 && es != 4 && es != 8)
		return EXEC_DECLINE;
	if (ops_window_read(k, x, NULL, 0, 1, &w))
		return -1; // the window's own message, as the CPU gives it
	out[0] = x->dims[0];
	out[1] = x->dims[1];
	for (int i = 0; i < w.n; i++) {
		if (w.in[i] > (1ll << 40) / w.s[i])
			return EXEC_DECLINE;
		out[2 + i] = (w.in[i] - 1) * w.s[i] + w.k[i] - w.pb[i] - w.pe[i];
		if (out[2 + i] < 0)
			return EXEC_DECLINE;
	}
	int64_t def[XT_MAX_RANK];
	memcpy(def, out, (size_t)x->rank * sizeof def[0]);
	if (has_shape) {
		const struct xtensor *os = cu_host(k, 2);
		if (!os)
			return -1;
		if (os->numel != x->rank || os->dtype == OV_DT_STRING || !xt_elem_size(os->dtype))
			return EXEC_DECLINE;
		for (int i = 0; i < x->rank; i++) {
			out[i] = xt_get_int(os, i);
			if (out[i] < def[i] || out[i] > (1ll << 40))
				return EXEC_DECLINE; // the CPU names the dim
		}
	}
	struct ov_unpool_map um;
	ov_unpool_setup(&um, x->rank, def, out, has_shape);
	if (xk_output_raw(k, 0, x->dtype, x->rank, out))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel && !x->numel)
		return 0;
	{
		size_t wb = (size_t)y->numel * sizeof(unsigned long long);
		const void *dx = x->numel ? cu_input(k, &bufs, 0) : NULL;
		const int64_t *dind = dx ? (const int64_t *)cu_input(k, &bufs, 1) : NULL;
		unsigned long long *dwin = dind || !x->numel ? (unsigned long long *)cu_alloc(k, &bufs, wb) : NULL;
		unsigned long long *dbad = dwin ? (unsigned long long *)cu_alloc(k, &bufs, sizeof bad) : NULL;
		void *dy = dbad ? cu_alloc(k, &bufs, y->bytes) : NULL;
		if (!dy || CU_OK(k, cudaMemsetAsync(dwin, 0, wb, cu_dev.stream)) ||
		    CU_OK(k, cudaMemsetAsync(dbad, 0xff, sizeof bad, cu_dev.stream)))
			goto out;
		if (x->numel &&
		    (CU_LAUNCH(k, unpool_claim_kernel, cu_grid(x->numel), CU_BLOCK, dind, x->numel, um, dwin, dbad) ||
		     CU_LAUNCH(k, unpool_bad_kernel, 1, 1, dind, dbad)))
			goto out;
		if (y->numel && (es == 1   ? unpool_fill<uint8_t>(k, dx, dwin, dy, y->numel)
				 : es == 2 ? unpool_fill<uint16_t>(k, dx, dwin, dy, y->numel)
				 : es == 4 ? unpool_fill<uint32_t>(k, dx, dwin, dy, y->numel)
					   : unpool_fill<uint64_t>(k, dx, dwin, dy, y->numel)))
			goto out;
		if (cu_download(k, bad, dbad, sizeof bad))
			goto out;
		if (bad[0] != ~0ull) {
			xk_fail(k, "index %lld at %lld is outside %s (%lld values)", (long long)bad[1], (long long)bad[0],
				um.remap ? "the unpooled shape" : "Y", (long long)(um.remap ? um.def_numel : um.out_numel));
			goto out;
		}
		if (cu_output(k, &bufs, 0, dy))
			goto out;
	}
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

const struct exec_kernel cuda_pool_kernels[] = {
	{.op = "AveragePool", .since = 1, .fn = k_average_pool},
	{.op = "GlobalAveragePool", .since = 1, .fn = k_global_average_pool},
	{.op = "GlobalLpPool", .since = 1, .fn = k_global_lp_pool},
	{.op = "GlobalMaxPool", .since = 1, .fn = k_global_max_pool},
	{.op = "LpPool", .since = 1, .fn = k_lp_pool},
	{.op = "MaxPool", .since = 1, .fn = k_max_pool},
	{.op = "MaxUnpool", .since = 9, .fn = k_max_unpool},
};
const size_t cuda_pool_count = sizeof cuda_pool_kernels / sizeof cuda_pool_kernels[0];
