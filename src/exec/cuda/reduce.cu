// Reductions on the CUDA device: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
// ReduceSumSquare, ReduceLogSum, ReduceLogSumExp, ArgMax and ArgMin, as src/exec/cpu/reduce.c computes them.
//
// One thread per output element walks its input elements in the input's C order, the order in which the CPU
// meets them, and folds them in with the same steps (ops/ov-math.h's ov_red_step_d / ov_red_step_i, through
// cu_reduce_point_d / _i of cuda/points.h): float types in double, int32 and int64 in wrapping int64.  So the
// sums are the CPU's, bit for bit (LogSumExp's exp and log aside, which are the device's own).  Axes come from the
// attribute before the opset where they became an input (13 for ReduceSum, 18 for the others), keepdims and
// noop_with_empty_axes as on the CPU.  Other element types, integer L2/LogSum/LogSumExp (computed in double on the
// CPU), and anything the CPU would refuse are declined.
#include "config.h"

#include <string.h>

#include "src/exec/cuda/backend.h"
#include "src/exec/cuda/points.h"

#define MAXR XT_MAX_RANK

// The float types computed in double here (cu_load_d, cu_store_d).
static int is_float_type(int32_t dt)
{
	return dt == OV_DT_FLOAT || dt == OV_DT_DOUBLE || dt == OV_DT_FLOAT16 || dt == OV_DT_BFLOAT16;
}

static int is_int_type(int32_t dt)
{
	return dt == OV_DT_INT32 || dt == OV_DT_INT64;
}

static int axis_of(int64_t a, int rank)
{
	if (a < -(int64_t)rank || a >= rank)
		return -1;
	return (int)(a < 0 ? a + rank : a);
}

// ---- Reduce* ----

static __global__ void reduce_f_kernel(struct cu_reduce r, int op, const void *x, int dt, void *y, int64_t n)
{
	CU_FOR(o, n)
	cu_store_d(y, dt, o, cu_reduce_point_d(&r, op, x, dt, o));
}

static __global__ void reduce_i_kernel(struct cu_reduce r, int op, const void *x, int dt, void *y, int64_t n)
{
	CU_FOR(o, n)
	cu_store_i(y, dt, o, cu_reduce_point_i(&r, op, x, dt, o));
}

static int reduce_run(struct exec_kernel_ctx *k, enum ov_red_op op, int from_input)
{
	const struct xtensor *x = xk_in(k, 0);
	int64_t axes[MAXR], d[MAXR], na;
	int red[MAXR] = {0}, keep = (int)xk_attr_int(k, "keepdims", 1);
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x)
		return EXEC_DECLINE;
	int ints = is_int_type(x->dtype);
	if (!is_float_type(x->dtype) &&
	    !(ints && op != OV_RED_L2 && op != OV_RED_LOGSUM && op != OV_RED_LOGSUMEXP))
		return EXEC_DECLINE;
	if (from_input) {
		na = -2;
		if (xk_in(k, 1)) {
			const struct xtensor *at = cu_host(k, 1);
			if (!at)
				return -1;
			if (at->rank > 1 || at->numel > MAXR || at->dtype == OV_DT_STRING || !xt_elem_size(at->dtype))
				return EXEC_DECLINE;
			na = at->numel;
			for (int64_t i = 0; i < na; i++)
				axes[i] = xt_get_int(at, i);
		}
	} else {
		if ((na = xk_attr_ints(k, "axes", axes, MAXR)) > MAXR)
			return EXEC_DECLINE;
	}
	if (na <= 0) {
		// no axes: all of them, unless noop_with_empty_axes (an input-axes form only) reduces none
		if (!(from_input && xk_attr_int(k, "noop_with_empty_axes", 0)))
			for (int a = 0; a < x->rank; a++)
				red[a] = 1;
	} else {
		for (int64_t i = 0; i < na; i++) {
			int a = axis_of(axes[i], x->rank);
			if (a < 0)
				return EXEC_DECLINE;
			red[a] = 1;
		}
	}
	// the output's dims, and which input axes its elements walk (kept) and which each one sums over (reduced)
	struct cu_reduce r;
	int n = 0;
	cu_reduce_make(x->dims, x->rank, red, &r);
	for (int a = 0; a < x->rank; a++)
		if (!red[a] || keep)
			d[n++] = red[a] ? 1 : x->dims[a];
	if (xk_output_raw(k, 0, x->dtype, n, d))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	const void *dx = cu_input(k, &bufs, 0);
	void *dy = dx ? cu_alloc(k, &bufs, y->bytes) : NULL;
	if (!dy)
		goto out;
	if (ints ? CU_LAUNCH(k, reduce_i_kernel, cu_grid(y->numel), CU_BLOCK, r, (int)op, dx, x->dtype, dy, y->numel)
		 : CU_LAUNCH(k, reduce_f_kernel, cu_grid(y->numel), CU_BLOCK, r, (int)op, dx, x->dtype, dy, y->numel))
		goto out;
	if (cu_output(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// Two kernels per op: axes as an attribute and as input 1.
#define REDUCE_KERNELS(name, op)                                                                 \
	static int k_##name##_attr(struct exec_kernel_ctx *k) { return reduce_run(k, op, 0); } \
	static int k_##name##_input(struct exec_kernel_ctx *k) { return reduce_run(k, op, 1); }
REDUCE_KERNELS(reduce_sum, OV_RED_SUM)
REDUCE_KERNELS(reduce_mean, OV_RED_MEAN)
REDUCE_KERNELS(reduce_max, OV_RED_MAX)
REDUCE_KERNELS(reduce_min, OV_RED_MIN)
REDUCE_KERNELS(reduce_prod, OV_RED_PROD)
REDUCE_KERNELS(reduce_l1, OV_RED_L1)
REDUCE_KERNELS(reduce_l2, OV_RED_L2)
REDUCE_KERNELS(reduce_log_sum, OV_RED_LOGSUM)
REDUCE_KERNELS(reduce_log_sum_exp, OV_RED_LOGSUMEXP)
REDUCE_KERNELS(reduce_sum_square, OV_RED_SUMSQ)

// ---- ArgMax, ArgMin ----

static __global__ void arg_kernel(const void *x, int dt, int64_t *y, int64_t len, int64_t inner, int want_max,
				  int last, int64_t n)
{
	CU_FOR(t, n)
	{
		int64_t o = t / inner, in = t - o * inner;
		y[t] = cu_arg_point(x, dt, o * len * inner + in, len, inner, want_max, last);
	}
}

static int arg_run(struct exec_kernel_ctx *k, int want_max)
{
	const struct xtensor *x = xk_in(k, 0);
	int keep = (int)xk_attr_int(k, "keepdims", 1), last = (int)xk_attr_int(k, "select_last_index", 0) != 0;
	int64_t d[MAXR];
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || (!is_float_type(x->dtype) && !is_int_type(x->dtype)) || x->rank == 0)
		return EXEC_DECLINE;
	int axis = axis_of(xk_attr_int(k, "axis", 0), x->rank), n = 0;
	if (axis < 0)
		return EXEC_DECLINE;
	for (int a = 0; a < x->rank; a++)
		if (a != axis || keep)
			d[n++] = a == axis ? 1 : x->dims[a];
	int64_t len = x->dims[axis], outer = xk_numel(axis, x->dims);
	int64_t inner = xk_numel(x->rank - axis - 1, x->dims + axis + 1);
	if (len == 0 && outer * inner > 0)
		return EXEC_DECLINE; // the CPU names the empty axis
	if (xk_output_raw(k, 0, OV_DT_INT64, n, d))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	const void *dx = cu_input(k, &bufs, 0);
	int64_t *dy = dx ? (int64_t *)cu_alloc(k, &bufs, y->bytes) : NULL;
	if (!dy || CU_LAUNCH(k, arg_kernel, cu_grid(y->numel), CU_BLOCK, dx, x->dtype, dy, len, inner, want_max, last,
			     y->numel) ||
	    cu_output(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

static int k_argmax(struct exec_kernel_ctx *k) { return arg_run(k, 1); }
static int k_argmin(struct exec_kernel_ctx *k) { return arg_run(k, 0); }

const struct exec_kernel cuda_reduce_kernels[] = {
	{.op = "ReduceSum", .since = 1, .fn = k_reduce_sum_attr},
	{.op = "ReduceSum", .since = 13, .fn = k_reduce_sum_input},
	{.op = "ReduceMean", .since = 1, .fn = k_reduce_mean_attr},
	{.op = "ReduceMean", .since = 18, .fn = k_reduce_mean_input},
	{.op = "ReduceMax", .since = 1, .fn = k_reduce_max_attr},
	{.op = "ReduceMax", .since = 18, .fn = k_reduce_max_input},
	{.op = "ReduceMin", .since = 1, .fn = k_reduce_min_attr},
	{.op = "ReduceMin", .since = 18, .fn = k_reduce_min_input},
	{.op = "ReduceProd", .since = 1, .fn = k_reduce_prod_attr},
	{.op = "ReduceProd", .since = 18, .fn = k_reduce_prod_input},
	{.op = "ReduceL1", .since = 1, .fn = k_reduce_l1_attr},
	{.op = "ReduceL1", .since = 18, .fn = k_reduce_l1_input},
	{.op = "ReduceL2", .since = 1, .fn = k_reduce_l2_attr},
	{.op = "ReduceL2", .since = 18, .fn = k_reduce_l2_input},
	{.op = "ReduceLogSum", .since = 1, .fn = k_reduce_log_sum_attr},
	{.op = "ReduceLogSum", .since = 18, .fn = k_reduce_log_sum_input},
	{.op = "ReduceLogSumExp", .since = 1, .fn = k_reduce_log_sum_exp_attr},
	{.op = "ReduceLogSumExp", .since = 18, .fn = k_reduce_log_sum_exp_input},
	{.op = "ReduceSumSquare", .since = 1, .fn = k_reduce_sum_square_attr},
	{.op = "ReduceSumSquare", .since = 18, .fn = k_reduce_sum_square_input},
	{.op = "ArgMax", .since = 1, .fn = k_argmax},
	{.op = "ArgMin", .since = 1, .fn = k_argmin},
};
const size_t cuda_reduce_count = sizeof cuda_reduce_kernels / sizeof cuda_reduce_kernels[0];
