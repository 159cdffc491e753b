// Normalisations on the CUDA device, as src/exec/cpu/norm.c (and cpu/misc.c, MeanVarianceNormalization) computes
// them:
// - Softmax and LogSoftmax, float32 (float16 and bfloat16 through float32), and Hardmax, float32 and float64
//   (float16 and bfloat16 as they are: its outputs are 0 and 1): before opset 13 the input is coerced to 2-D at
//   axis (default 1), from 13 on one axis (default -1) is normalised.  A contiguous row (the normalised axis last,
//   every transformer's) goes to 16 threads (softmax_rows_kernel, the cu_softmax_lane_ functions of cuda/points.h
//   folded with shuffles); a strided row, and Hardmax's, to one thread (cu_softmax_row, cu_hardmax_row).  The
//   CPU's arithmetic either way, the same for both.
// - LayerNormalization, InstanceNormalization, GroupNormalization (opset 18's scale per group, 21's per channel)
//   and inference-mode BatchNormalization, float32 and float64 (float16 and bfloat16 through float32, as the CPU's
//   cpu_float_dispatch takes them).  The statistics of each row or group in double in ops/ov-math.h's 16 lanes
//   (ov_norm_stats16), a lane to a thread, 16 threads a row: LayerNormalization's kernel then writes the row's
//   outputs with the same threads (layernorm_rows_kernel; a row of 128 to 4096 values goes to a block, from shared
//   memory, the same sums: layernorm_block_kernel; so do up to 1024 groups of 1024 values or more, a piece at a
//   time: stats_block_kernel), the group normalisations' statistics go to a second
//   kernel, one thread per element (cu_group_norm_f/_d); BatchNormalization's per element (cu_batchnorm_f).  The
//   parameter vectors are read on the device, of any numeric type, as the CPU's xt_get reads them (cu_get_d), so
//   constant ones are uploaded once and stay there from one run to the next; BatchNormalization folds its four
//   into a factor and an offset per channel there, in double (cu_batchnorm_fold).
// - MeanVarianceNormalization over its axes, float32, float64, float16 and bfloat16 each computed in double: one
//   thread per group summing its values and their squares in the input's order (cu_mvn_stats).
// - LRN, float32 and float64 (float16 and bfloat16 through float32): one thread per element summing the squares
//   of its channel window in order (cu_lrn_point).
//
// Rows of 16 lanes: a row (or group) to each half warp, lane l taking the row's elements j = l mod 16, in blocks of
// ROW_BLOCK threads (ROW_BLOCK / 16 rows; as many blocks as that takes, at most 65535, each then taking rows a grid
// apart).  The lanes' sums fold with __shfl_down_sync in ov_fold16's order (lane q adds lane q + w for w = 8, 4, 2,
// 1), and lane 0's total goes to the other 15 with __shfl_sync; the shuffles' mask is the half warp's 16 lanes,
// which go through the loop together.  The host simulator runs these blocks with CU_LAUNCH_SYNC (its shuffles).
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/cuda/backend.h"
#include "src/exec/cuda/points.h"

#define ROW_LANES 16
#define ROW_BLOCK 64

static unsigned row_grid(int64_t rows)
{
	int64_t g = (rows + ROW_BLOCK / ROW_LANES - 1) / (ROW_BLOCK / ROW_LANES);
	return g < 1 ? 1u : g > 65535 ? 65535u : (unsigned)g;
}

// The rows of a row kernel: r the row, lane the thread's lane in it, mask its half warp (the shuffles' mask).
#define ROW_FOR(r, rows, lane, mask)                                                                                \
	const int lane = (int)(threadIdx.x % ROW_LANES);                                                            \
	const unsigned mask = 0xffffu << (threadIdx.x & 16u);                                                       \
	for (int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / ROW_LANES; r < (rows);                  \
	     r += (int64_t)gridDim.x * blockDim.x / ROW_LANES)

// The 16 lanes' total of v, folded as ov_fold16 folds, in every lane.
static __device__ __forceinline__ double lanes_sum(unsigned mask, double v)
{
	for (int w = 8; w >= 1; w /= 2)
		v += __shfl_down_sync(mask, v, w, ROW_LANES);
	return __shfl_sync(mask, v, 0, ROW_LANES);
}

// The 16 lanes' maximum of v, folded as cu_fold16_max folds, in every lane.
static __device__ __forceinline__ float lanes_max(unsigned mask, float v)
{
	for (int w = 8; w >= 1; w /= 2)
		v = cu_max2_f(v, __shfl_down_sync(mask, v, w, ROW_LANES));
	return __shfl_sync(mask, v, 0, ROW_LANES);
}

// Softmax or LogSoftmax over rows of len contiguous values, 16 threads a row.
static __global__ void softmax_rows_kernel(const float *x, float *y, int64_t rows, int64_t len, int logsm)
{
	ROW_FOR(r, rows, lane, mask)
	{
		const float *xp = x + r * len;
		float *yp = y + r * len;
		float mx = lanes_max(mask, cu_softmax_lane_max(xp, len, 1, lane));
		double sum = lanes_sum(mask, cu_softmax_lane_exp(xp, yp, len, 1, mx, logsm, lane));
		cu_softmax_lane_write(xp, yp, len, 1, mx, sum, logsm, lane);
	}
}

// Softmax or LogSoftmax over strided rows (inner > 1), one thread a row.
static __global__ void softmax_kernel(const float *x, float *y, int64_t outer, int64_t len, int64_t inner, int logsm)
{
	CU_FOR(row, outer * inner)
	{
		int64_t o = row / inner, in = row - o * inner;
		cu_softmax_row(x, y, o * len * inner + in, len, inner, logsm);
	}
}

// The rows Softmax, LogSoftmax and Hardmax normalise: outer * inner rows of len values, inner apart (before opset
// 13 the dims from axis on are one row).  0, or EXEC_DECLINE for an axis the CPU refuses.
static int smax_rows(struct exec_kernel_ctx *k, const struct xtensor *x, int64_t *outer, int64_t *len,
		     int64_t *inner)
{
	int v13 = k->opset >= 13;
	int64_t axis = xk_attr_int(k, "axis", v13 ? -1 : 1), r = x->rank;

	// before opset 13 axis may equal the rank (coercion to [N, 1]), as cpu/norm.c's norm_axis allows
	if (axis < -r || axis > (v13 ? r - 1 : r))
		return EXEC_DECLINE;
	if (axis < 0)
		axis += r;
	*outer = *len = *inner = 1;
	for (int i = 0; i < x->rank; i++) {
		if (i < axis)
			*outer *= x->dims[i];
		else if (i == axis || !v13)
			*len *= x->dims[i];
		else
			*inner *= x->dims[i];
	}
	return 0;
}

static int softmax_run(struct exec_kernel_ctx *k, int logsm)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;
	struct cu_bufs bufs = {};
	int64_t outer, len, inner;
	int rc = -1;

	if (!x || !cu_float_type(x->dtype) || x->rank < 1)
		return EXEC_DECLINE; // a scalar is one class: the CPU's special case
	if (smax_rows(k, x, &outer, &len, &inner))
		return EXEC_DECLINE;
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	const float *dx = cu_input_f32(k, &bufs, 0);
	float *dy = dx ? (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float)) : NULL;
	if (!dy)
		goto out;
	if (inner == 1 ? CU_LAUNCH_SYNC(k, softmax_rows_kernel, row_grid(outer), ROW_BLOCK, dx, dy, outer, len, logsm)
		       : CU_LAUNCH(k, softmax_kernel, cu_grid(outer * inner), CU_BLOCK, dx, dy, outer, len, inner,
				   logsm))
		goto out;
	if (cu_output_f32(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

static int k_softmax(struct exec_kernel_ctx *k)
{
	return softmax_run(k, 0);
}

static int k_log_softmax(struct exec_kernel_ctx *k)
{
	return softmax_run(k, 1);
}

// ---- Hardmax ----

static __global__ void hardmax_kernel(const void *x, void *y, int dt, int64_t len, int64_t inner, int64_t rows)
{
	CU_FOR(row, rows)
	{
		int64_t o = row / inner, in = row - o * inner;
		cu_hardmax_row(x, y, dt, o * len * inner + in, len, inner);
	}
}

static int k_hardmax(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;
	struct cu_bufs bufs = {};
	int64_t outer, len, inner;
	int rc = -1;

	if (!x || !(cu_float_type(x->dtype) || x->dtype == OV_DT_DOUBLE) || x->rank < 1)
		return EXEC_DECLINE;
	if (smax_rows(k, x, &outer, &len, &inner))
		return EXEC_DECLINE;
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	const void *dx = cu_input(k, &bufs, 0);
	void *dy = dx ? cu_alloc(k, &bufs, y->bytes) : NULL;
	if (!dy ||
	    CU_LAUNCH(k, hardmax_kernel, cu_grid(outer * inner), CU_BLOCK, dx, dy, (int)x->dtype, len, inner,
		      outer * inner) ||
	    cu_output(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// ---- shared by the normalisations ----

// The types the normalisations take: float32 and float64 as they are, float16 and bfloat16 through float32.
static int norm_type(int32_t dt)
{
	return cu_float_type(dt) || dt == OV_DT_DOUBLE;
}

// A parameter vector on the device (Scale, B, mean...), read as cpu/norm.c's param() reads it: element j of n, or
// its only element broadcast (one), of any type cu_get_d reads.
struct cu_param {
	const void *p;
	int dt, one;
};

static __device__ __forceinline__ double param_at(struct cu_param q, int64_t j)
{
	return cu_get_d(q.p, q.dt, q.one ? 0 : j);
}

// 1 when input i can be read as n parameter values (n of them, or one broadcast, of a type cu_get_d reads); else
// the CPU refuses it (naming it) or reads a type left to it: declined.
static int param_ok(const struct exec_kernel_ctx *k, size_t i, int64_t n)
{
	const struct xtensor *t = xk_in(k, i);

	return t && (t->numel == n || t->numel == 1) && cu_cast_type(t->dtype);
}

// Input i (param_ok) on the device: 0, or -1 with the node's error set.
static int param_input(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t i, struct cu_param *q)
{
	q->p = cu_input(k, b, i);
	q->dt = k->in[i]->dtype;
	q->one = k->in[i]->numel == 1;
	return q->p ? 0 : -1;
}

// The mean and 1/sqrt(variance + eps) of each of the n rows of len values (ov_norm_stats16), 16 threads a row.
static __global__ void stats_rows_kernel(const void *x, int dt, int64_t len, double eps, double *mean, double *inv,
					 int64_t n)
{
	ROW_FOR(r, n, lane, mask)
	{
		double m = ov_norm_mean(lanes_sum(mask, ov_lane16_sum(x, dt, r * len, len, lane)), len);
		double iv = ov_norm_inv(lanes_sum(mask, ov_lane16_sqdev(x, dt, r * len, len, m, lane)), len, eps);
		if (lane == 0) {
			mean[r] = m;
			inv[r] = iv;
		}
	}
}

// The same statistics with a block to a row, for few long rows (an instance or group normalisation's groups of
// thousands of values): the block's threads copy the row into shared memory a piece at a time (STATS_CHUNK bytes,
// a multiple of 16 values), and its first 16 threads go on with their sums over each piece (ov_lane16_sum_acc:
// the same elements in the same order as stats_rows_kernel's lanes, so the same bits); a row that fits is copied
// once for both sums.  With 16 threads a group, a few groups of thousands of values keep a handful of threads
// busy on the whole device, each waiting for its loads one after the other (not measured on a GPU yet).
#define STATS_CHUNK 32768
#define STATS_MIN 1024
#define STATS_ROWS 1024
#define STATS_BLOCK 256

static __global__ void stats_block_kernel(const void *x, int dt, int64_t len, double eps, double *mean, double *inv,
					  int64_t n)
{
	__shared__ union {
		double d[STATS_CHUNK / sizeof(double)];
		float f[STATS_CHUNK / sizeof(float)];
	} piece;
	__shared__ double stat;
	const int dbl = dt == OV_DT_DOUBLE;
	const int64_t chunk = dbl ? (int64_t)(STATS_CHUNK / sizeof(double)) : (int64_t)(STATS_CHUNK / sizeof(float));
	const void *pc = dbl ? (const void *)piece.d : (const void *)piece.f;
	const int lane = (int)threadIdx.x;

	for (int64_t r = blockIdx.x; r < n; r += gridDim.x) {
		double m = 0, acc = 0;
		for (int pass = 0; pass < 2; pass++) {
			acc = 0;
			for (int64_t c0 = 0; c0 < len; c0 += chunk) {
				int64_t cn = len - c0 < chunk ? len - c0 : chunk;
				if (pass == 0 || len > chunk) { // a row that fits is still there for the second pass
					__syncthreads(); // the piece before is summed
					for (int64_t j = threadIdx.x; j < cn; j += blockDim.x) {
						if (dbl)
							piece.d[j] = ((const double *)x)[r * len + c0 + j];
						else
							piece.f[j] = ((const float *)x)[r * len + c0 + j];
					}
					__syncthreads();
				}
				if (lane < ROW_LANES)
					acc = pass == 0 ? ov_lane16_sum_acc(acc, pc, dt, 0, cn, lane)
							: ov_lane16_sqdev_acc(acc, pc, dt, 0, cn, m, lane);
			}
			if (lane < ROW_LANES) {
				double t = lanes_sum(0xffffu, acc);
				if (pass == 0 && lane == 0)
					stat = ov_norm_mean(t, len);
				if (pass == 1 && lane == 0) {
					mean[r] = m;
					inv[r] = ov_norm_inv(t, len, eps);
				}
			}
			__syncthreads();
			m = stat;
		}
	}
}

// ---- LayerNormalization ----

// X's dims and Scale's and B's broadcast strides (ops_layernorm_setup's), by value to the kernel.
struct ln_bcast {
	int rank;
	int64_t dims[XT_MAX_RANK], sstr[XT_MAX_RANK], bstr[XT_MAX_RANK];
};

// Element i's Scale and B offsets through the full broadcast (Scale and B not laid out as the row).
static __device__ __forceinline__ void ln_param_index(const struct ln_bcast *bc, int64_t i, int64_t *si, int64_t *bi)
{
	int64_t q = i;

	*si = *bi = 0;
	for (int a = bc->rank - 1; a >= 0; a--) {
		int64_t p = q % bc->dims[a];
		q /= bc->dims[a];
		*si += p * bc->sstr[a];
		*bi += p * bc->bstr[a];
	}
}

// LayerNormalization of rows of len, 16 threads a row: the statistics (ov_norm_stats16; rounded to float for
// stash_type float), the Mean and InvStdDev outputs when asked (in type st), then the row's outputs, Scale and B at
// the row's position when they are laid out as the row (row_params), else through the full broadcast.
static __global__ void layernorm_rows_kernel(struct ln_bcast bc, int row_params, const void *x, const void *s,
					     const void *b, int dt, int64_t len, double eps, int stash_float,
					     void *mean_out, void *inv_out, int st, void *y, int64_t rows)
{
	ROW_FOR(r, rows, lane, mask)
	{
		int64_t base = r * len;
		double m = ov_norm_mean(lanes_sum(mask, ov_lane16_sum(x, dt, base, len, lane)), len);
		double iv = ov_norm_inv(lanes_sum(mask, ov_lane16_sqdev(x, dt, base, len, m, lane)), len, eps);
		if (stash_float)
			m = (float)m, iv = (float)iv;
		if (lane == 0 && mean_out)
			cu_store_d(mean_out, st, r, m);
		if (lane == 0 && inv_out)
			cu_store_d(inv_out, st, r, iv);
#ifndef OV_CUDA_SIM
#pragma unroll 4
#endif
		for (int64_t j = lane; j < len; j += ROW_LANES) {
			int64_t i = base + j, si = j, bi = j;
			if (!row_params)
				ln_param_index(&bc, i, &si, &bi);
			double v = cu_layernorm_value(cu_load_d(x, dt, i), m, iv, cu_load_d(s, dt, si),
						      b ? cu_load_d(b, dt, bi) : 0.0);
			cu_store_d(y, dt, i, v);
		}
	}
}

// A row of LayerNormalization to a block, for rows of LN_MIN to LN_SMEM values: the block's threads copy the row
// into shared memory, widened to double as ov_norm_load reads it; its first 16 threads sum it as
// layernorm_rows_kernel's lanes do (the same elements in the same order, so the same bits); then every thread writes
// its share of the row's outputs.  Each row's loads go out from all the block's threads at once, where 16 threads a
// row wait for theirs one after the other: a [197, 768] LayerNormalization (ViT-B/16's) took 38 us that way on an
// H200.
#define LN_SMEM 4096
#define LN_MIN 128
#define LN_BLOCK 256

static __global__ void layernorm_block_kernel(struct ln_bcast bc, int row_params, const void *x, const void *s,
					      const void *b, int dt, int64_t len, double eps, int stash_float,
					      void *mean_out, void *inv_out, int st, void *y, int64_t rows)
{
	__shared__ double row[LN_SMEM];
	__shared__ double stat[2];

	for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
		int64_t base = r * len;
		for (int64_t j = threadIdx.x; j < len; j += blockDim.x)
			row[j] = ov_norm_load(x, dt, base + j);
		__syncthreads();
		if (threadIdx.x < ROW_LANES) {
			const int lane = (int)threadIdx.x;
			const unsigned mask = 0xffffu;
			double m = ov_norm_mean(lanes_sum(mask, ov_lane16_sum(row, OV_DT_DOUBLE, 0, len, lane)), len);
			double iv = ov_norm_inv(lanes_sum(mask, ov_lane16_sqdev(row, OV_DT_DOUBLE, 0, len, m, lane)), len,
						eps);
			// rounded to float for stash_type float (the host simulator is built with -fno-tree-slp-vectorize:
			// g++ 12.2 dropped these two roundings, see Makefile.am)
			if (lane == 0) {
				stat[0] = stash_float ? (double)(float)m : m;
				stat[1] = stash_float ? (double)(float)iv : iv;
			}
		}
		__syncthreads();
		const double m = stat[0], iv = stat[1];
		if (threadIdx.x == 0 && mean_out)
			cu_store_d(mean_out, st, r, m);
		if (threadIdx.x == 0 && inv_out)
			cu_store_d(inv_out, st, r, iv);
		for (int64_t j = threadIdx.x; j < len; j += blockDim.x) {
			int64_t i = base + j, si = j, bi = j;
			if (!row_params)
				ln_param_index(&bc, i, &si, &bi);
			double v = cu_layernorm_value(row[j], m, iv, cu_load_d(s, dt, si), b ? cu_load_d(b, dt, bi) : 0.0);
			cu_store_d(y, dt, i, v);
		}
		__syncthreads(); // the row and its statistics are read before the next row's overwrite them
	}
}

// 1 when Scale's (and B's, when there is one) broadcast strides give element j of every row its element j: no
// stride before axis (dims of 1 aside), the row's own strides from axis on.
static int ln_row_params(const struct ln_bcast *bc, int axis, int bias)
{
	int64_t acc = 1;

	for (int a = bc->rank - 1; a >= 0; a--) {
		if (bc->dims[a] == 1)
			continue;
		int64_t want = a >= axis ? acc : 0;
		if (bc->sstr[a] != want || (bias && bc->bstr[a] != want))
			return 0;
		if (a >= axis)
			acc *= bc->dims[a];
	}
	return 1;
}

static int k_layernorm(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0), *s = xk_in(k, 1), *b = xk_in(k, 2);
	struct ln_bcast bc;
	struct ln_geom pl;
	struct cu_bufs bufs = {};
	int rc = -1, dt;

	if (!x || !s || !norm_type(x->dtype) || s->dtype != x->dtype || (b && b->dtype != x->dtype))
		return EXEC_DECLINE;
	if (ops_layernorm_setup(k, x, s, b, &pl))
		return EXEC_DECLINE; // the CPU says what is wrong
	memset(&bc, 0, sizeof bc);
	bc.rank = x->rank;
	memcpy(bc.dims, x->dims, sizeof bc.dims);
	memcpy(bc.sstr, pl.sstr, sizeof bc.sstr);
	memcpy(bc.bstr, pl.bstr, sizeof bc.bstr);
	int32_t st = pl.stash;
	int64_t outer = pl.outer, len = pl.len;
	double eps = pl.eps;
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	for (size_t o = 1; o < 3 && o < k->n_out; o++)
		if (xk_output_raw(k, o, st, x->rank, pl.sdims))
			return -1;
	if (!outer)
		return 0;
	const void *dx = cu_input_fd(k, &bufs, 0, &dt);
	const void *ds = dx ? cu_input_fd(k, &bufs, 1, &dt) : NULL;
	const void *db = ds && b ? cu_input_fd(k, &bufs, 2, &dt) : NULL;
	int have = ds && (!b || db), row_params = ln_row_params(&bc, pl.axis, b != NULL);
	size_t ybytes = (size_t)x->numel * (dt == OV_DT_DOUBLE ? sizeof(double) : sizeof(float));
	void *dmo = have && k->n_out > 1 ? cu_alloc(k, &bufs, k->out[1]->bytes) : NULL;
	void *dio = have && k->n_out > 2 ? cu_alloc(k, &bufs, k->out[2]->bytes) : NULL;
	void *dy = have ? cu_alloc(k, &bufs, ybytes) : NULL;
	if (!dy || (k->n_out > 1 && !dmo) || (k->n_out > 2 && !dio))
		goto out;
	if (len >= LN_MIN && len <= LN_SMEM) {
		unsigned threads = len >= LN_BLOCK ? LN_BLOCK : (unsigned)(len + 31) / 32 * 32;
		if (CU_LAUNCH_SYNC(k, layernorm_block_kernel, outer > 65535 ? 65535u : (unsigned)outer, threads, bc,
				   row_params, dx, ds, db, dt, len, eps, st == OV_DT_FLOAT, dmo, dio, (int)st, dy, outer))
			goto out;
	} else if (CU_LAUNCH_SYNC(k, layernorm_rows_kernel, row_grid(outer), ROW_BLOCK, bc, row_params, dx, ds, db, dt,
				  len, eps, st == OV_DT_FLOAT, dmo, dio, (int)st, dy, outer)) {
		goto out;
	}
	if ((x->numel && cu_output_fd(k, &bufs, 0, dy, dt)) || (dmo && cu_output(k, &bufs, 1, dmo)) ||
	    (dio && cu_output(k, &bufs, 2, dio)))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// ---- InstanceNormalization, GroupNormalization ----

// Element i of groups of gsize values (channels of inner values each, c of them): y from its group's statistics
// and the scale and bias of its group (per_group: index g % groups) or channel.
static __global__ void groupnorm_kernel(const void *x, int dt, const double *mean, const double *inv,
					struct cu_param scale, struct cu_param bias, int64_t gsize, int64_t inner,
					int64_t c, int64_t groups, int per_group, void *y, int64_t n)
{
	CU_FOR(i, n)
	{
		int64_t g = i / gsize, ch = i / inner % c, pi = per_group ? g % groups : ch;
		double m = mean[g], iv = inv[g], sc = param_at(scale, pi), bi = param_at(bias, pi);
		if (dt == OV_DT_DOUBLE)
			((double *)y)[i] = cu_group_norm_d(((const double *)x)[i], m, iv, sc, bi);
		else
			((float *)y)[i] = cu_group_norm_f(((const float *)x)[i], m, iv, sc, bi);
	}
}

// x (N, C, ...) normalised over groups of its channels (C / groups channels each), then scaled by Scale and B
// (inputs 1 and 2, checked by the caller) of the group (per_group) or the channel, as cpu/norm.c's group_norm.
static int group_run(struct exec_kernel_ctx *k, int64_t groups, int per_group)
{
	const struct xtensor *x = k->in[0];
	struct cu_param sc, bi;
	struct cu_bufs bufs = {};
	int rc = -1, dt;

	int64_t c = x->dims[1], inner = xk_numel(x->rank - 2, x->dims + 2), ng = x->dims[0] * groups;
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	if (!x->numel)
		return 0;
	int64_t gsize = c / groups * inner;
	const void *dx = cu_input_fd(k, &bufs, 0, &dt);
	double *dm = dx && !param_input(k, &bufs, 1, &sc) && !param_input(k, &bufs, 2, &bi)
			     ? (double *)cu_alloc(k, &bufs, (size_t)ng * sizeof(double))
			     : NULL;
	double *dinv = dm ? (double *)cu_alloc(k, &bufs, (size_t)ng * sizeof(double)) : NULL;
	void *dy = dinv ? cu_alloc(k, &bufs, (size_t)x->numel * (dt == OV_DT_DOUBLE ? 8 : 4)) : NULL;
	double eps = (double)xk_attr_float(k, "epsilon", 1e-5f);
	if (!dy ||
	    (gsize >= STATS_MIN && ng <= STATS_ROWS
		     ? CU_LAUNCH_SYNC(k, stats_block_kernel, (unsigned)ng, STATS_BLOCK, dx, dt, gsize, eps, dm, dinv, ng)
		     : CU_LAUNCH_SYNC(k, stats_rows_kernel, row_grid(ng), ROW_BLOCK, dx, dt, gsize, eps, dm, dinv, ng)) ||
	    CU_LAUNCH(k, groupnorm_kernel, cu_grid(x->numel), CU_BLOCK, dx, dt, dm, dinv, sc, bi, gsize, inner, c,
		      groups, per_group, dy, x->numel) ||
	    cu_output_fd(k, &bufs, 0, dy, dt))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

static int k_instancenorm(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);

	if (!x || !norm_type(x->dtype) || x->rank < 3 || !param_ok(k, 1, x->dims[1]) || !param_ok(k, 2, x->dims[1]))
		return EXEC_DECLINE;
	return group_run(k, x->dims[1], 0);
}

// opset 18: one scale and bias per group; opset 21: one per channel (the same when num_groups is C).  stash_type
// (21) is not read, as on the CPU: the statistics are always in double.
static int k_groupnorm(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0), *s = xk_in(k, 1);
	int64_t groups = xk_attr_int(k, "num_groups", -1);

	if (!x || !s || !norm_type(x->dtype) || x->rank < 2 || groups <= 0 || x->dims[1] % groups)
		return EXEC_DECLINE;
	int per_group = k->opset < 21 && s->numel == groups;
	int64_t pn = per_group ? groups : x->dims[1];
	if (!param_ok(k, 1, pn) || !param_ok(k, 2, pn))
		return EXEC_DECLINE;
	return group_run(k, groups, per_group);
}

// ---- BatchNormalization (inference) ----

struct bn_params {
	struct cu_param p[4]; // scale, B, input_mean, input_var
};

// The factor and offset of each of the pn channels (or elements), in double as the CPU computes them.
static __global__ void bn_fold_kernel(struct bn_params bp, double eps, double *a, double *b, int64_t pn)
{
	CU_FOR(j, pn)
	cu_batchnorm_fold(param_at(bp.p[0], j), param_at(bp.p[1], j), param_at(bp.p[2], j), param_at(bp.p[3], j), eps,
			  &a[j], &b[j]);
}

static __global__ void batchnorm_kernel(const void *x, int dt, const double *a, const double *b, int64_t c,
					int64_t inner, int64_t pn, int per_channel, void *y, int64_t n)
{
	CU_FOR(i, n)
	{
		int64_t q = i / inner, ch = q % c, p = pn == c ? ch : ch * inner + (i - q * inner);
		if (dt == OV_DT_DOUBLE)
			((double *)y)[i] = ((const double *)x)[i] * a[p] + b[p];
		else
			((float *)y)[i] = cu_batchnorm_f(((const float *)x)[i], a[p], b[p], per_channel);
	}
}

// The running statistics' form (training_mode, opset 14 on, is left to the CPU, as are the optional outputs).
static int k_batchnorm(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	struct bn_params bp;
	struct cu_bufs bufs = {};
	int rc = -1, dt;

	if (!x || !norm_type(x->dtype) || x->rank < 1 || k->n_out > 1 || !xk_in(k, 1))
		return EXEC_DECLINE;
	if (k->opset >= 14 && xk_attr_int(k, "training_mode", 0) != 0)
		return EXEC_DECLINE;
	int64_t c = x->rank >= 2 ? x->dims[1] : x->dims[0], inner = 1;
	for (int i = 2; i < x->rank; i++)
		inner *= x->dims[i];
	// spatial = 0 (before opset 9): the parameters are per element of (C, D1, ...)
	int64_t pn = k->in[1]->numel == c * inner && inner > 1 ? c * inner : c;
	int per_channel = pn == c && inner > 1;
	for (size_t i = 1; i < 5; i++)
		if (!param_ok(k, i, pn))
			return EXEC_DECLINE;
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	if (!x->numel)
		return 0;
	{
		const void *dx = cu_input_fd(k, &bufs, 0, &dt);
		int ok = dx != NULL;
		for (int i = 0; ok && i < 4; i++)
			ok = !param_input(k, &bufs, (size_t)i + 1, &bp.p[i]);
		double *da = ok ? (double *)cu_alloc(k, &bufs, (size_t)(2 * pn) * sizeof(double)) : NULL;
		void *dy = da ? cu_alloc(k, &bufs, (size_t)x->numel * (dt == OV_DT_DOUBLE ? 8 : 4)) : NULL;
		if (!dy ||
		    CU_LAUNCH(k, bn_fold_kernel, cu_grid(pn), CU_BLOCK, bp, (double)xk_attr_float(k, "epsilon", 1e-5f),
			      da, da + pn, pn) ||
		    CU_LAUNCH(k, batchnorm_kernel, cu_grid(x->numel), CU_BLOCK, dx, dt, (const double *)da,
			      (const double *)da + pn, c, inner, pn, per_channel && dt == OV_DT_FLOAT, dy, x->numel) ||
		    cu_output_fd(k, &bufs, 0, dy, dt))
			goto out;
	}
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// ---- MeanVarianceNormalization ----

static __global__ void mvn_stats_kernel(struct cu_reduce r, const void *x, int dt, double *mean, double *den,
					int64_t ng)
{
	CU_FOR(g, ng)
	cu_mvn_stats(&r, x, dt, g, &mean[g], &den[g]);
}

static __global__ void mvn_kernel(struct cu_reduce r, const void *x, int dt, const double *mean, const double *den,
				  void *y, int64_t n)
{
	CU_FOR(i, n)
	{
		int64_t g = cu_reduce_out_index(&r, i);
		cu_store_d(y, dt, i, (cu_load_d(x, dt, i) - mean[g]) / den[g]);
	}
}

static int k_mvn(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	int64_t axes[XT_MAX_RANK] = {0, 2, 3};
	int red[XT_MAX_RANK] = {0};
	struct cu_reduce r;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || !norm_type(x->dtype))
		return EXEC_DECLINE;
	int64_t na = xk_attr_ints(k, "axes", axes, XT_MAX_RANK);
	if (na < 0)
		na = 3;
	if (na > XT_MAX_RANK)
		return EXEC_DECLINE;
	for (int64_t i = 0; i < na; i++) {
		int64_t a = axes[i] < 0 ? axes[i] + x->rank : axes[i];
		if (a < 0 || a >= x->rank)
			return EXEC_DECLINE; // the CPU names the axis
		red[a] = 1;
	}
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	if (!x->numel)
		return 0;
	cu_reduce_make(x->dims, x->rank, red, &r);
	int64_t ng = x->numel / r.count;
	const void *dx = cu_input(k, &bufs, 0);
	double *dm = dx ? (double *)cu_alloc(k, &bufs, (size_t)ng * sizeof(double)) : NULL;
	double *dd = dm ? (double *)cu_alloc(k, &bufs, (size_t)ng * sizeof(double)) : NULL;
	void *dy = dd ? cu_alloc(k, &bufs, k->out[0]->bytes) : NULL;
	if (!dy || CU_LAUNCH(k, mvn_stats_kernel, cu_grid(ng), CU_BLOCK, r, dx, (int)x->dtype, dm, dd, ng) ||
	    CU_LAUNCH(k, mvn_kernel, cu_grid(x->numel), CU_BLOCK, r, dx, (int)x->dtype, (const double *)dm,
		      (const double *)dd, dy, x->numel) ||
	    cu_output(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// ---- LRN ----

static __global__ void lrn_kernel(const void *x, int dt, int64_t c, int64_t inner, int64_t size, double alpha,
				  double beta, double bias, void *y, int64_t n)
{
	CU_FOR(i, n)
	cu_store_d(y, dt, i, cu_lrn_point(x, dt, c, inner, size, alpha, beta, bias, i));
}

static int k_lrn(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	int64_t size = xk_attr_int(k, "size", -1);
	struct cu_bufs bufs = {};
	int rc = -1, dt;

	if (!x || !norm_type(x->dtype) || size <= 0 || x->rank < 2)
		return EXEC_DECLINE; // the CPU names the bad size or rank
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	if (!x->numel)
		return 0;
	int64_t inner = xk_numel(x->rank - 2, x->dims + 2);
	const void *dx = cu_input_fd(k, &bufs, 0, &dt);
	void *dy = dx ? cu_alloc(k, &bufs, (size_t)x->numel * (dt == OV_DT_DOUBLE ? 8 : 4)) : NULL;
	if (!dy ||
	    CU_LAUNCH(k, lrn_kernel, cu_grid(x->numel), CU_BLOCK, dx, dt, x->dims[1], inner, size,
		      (double)xk_attr_float(k, "alpha", 1e-4f), (double)xk_attr_float(k, "beta", 0.75f),
		      (double)xk_attr_float(k, "bias", 1.0f), dy, x->numel) ||
	    cu_output_fd(k, &bufs, 0, dy, dt))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// the opset-13 rows mark the change of behaviour (the kernel reads the opset itself); BatchNormalization's rows
// its forms of 9 (no spatial attribute), 14 (training_mode) and 15 (scale and mean of their own types);
// GroupNormalization's 18 (the kernel reads opset 21's per-channel scale itself)
const struct exec_kernel cuda_norm_kernels[] = {
	{.op = "BatchNormalization", .since = 9, .fn = k_batchnorm},
	{.op = "BatchNormalization", .since = 14, .fn = k_batchnorm},
	{.op = "BatchNormalization", .since = 15, .fn = k_batchnorm},
	{.op = "GroupNormalization", .since = 18, .fn = k_groupnorm},
	{.op = "Hardmax", .since = 1, .fn = k_hardmax},
	{.op = "Hardmax", .since = 13, .fn = k_hardmax},
	{.op = "InstanceNormalization", .since = 1, .fn = k_instancenorm},
	{.op = "LRN", .since = 1, .fn = k_lrn},
	{.op = "LayerNormalization", .since = 17, .fn = k_layernorm},
	{.op = "LogSoftmax", .since = 1, .fn = k_log_softmax},
	{.op = "LogSoftmax", .since = 13, .fn = k_log_softmax},
	{.op = "MeanVarianceNormalization", .since = 9, .fn = k_mvn},
	{.op = "Softmax", .since = 1, .fn = k_softmax},
	{.op = "Softmax", .since = 13, .fn = k_softmax},
};
const size_t cuda_norm_count = sizeof cuda_norm_kernels / sizeof cuda_norm_kernels[0];
