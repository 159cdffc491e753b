// Element-wise ops on the CUDA device: unary math and activations, and binary arithmetic with numpy broadcasting,
// in the CPU's compute domains (cuda/points.h): float32 for float32, float16 and bfloat16; double; int64 for the
// signed and the narrower unsigned integers (wrapping, division truncated, by zero giving 0); uint64.  Every
// element goes through the same functions of src/exec/ops/ov-math.h as in src/exec/cpu/elementwise.c (picked by
// cu_un_point and cu_bin_point of cuda/points.h), and broadcasting through the same plan (ov_bcast_plan on the
// host, ov_bcast_offset per output element on the device).  The launchers, cu_ew_unary and cu_ew_binary, also run
// cuda/logic.cu's comparisons and logic.  Inputs the CPU kernel would refuse, and the domains an op has no CPU loop
// for, are declined: the CPU runs them, or names the problem.
#include "config.h"

#include <float.h>
#include <string.h>

#include "src/exec/cuda/backend.h"
#include "src/exec/cuda/points.h"

// ---- unary ----

static __global__ void un_kernel(int op, int dom, float a, float b, const void *x, int tx, void *y, int ty, int64_t n)
{
	CU_FOR(i, n)
	cu_un_point(op, dom, a, b, x, tx, y, ty, i);
}

int cu_ew_unary(struct exec_kernel_ctx *k, int op, unsigned doms, int out_bool, float a, float b)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;
	int dom = x ? cu_dom_pick(x->dtype, doms) : -1;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (dom < 0)
		return EXEC_DECLINE;
	if (xk_output_raw(k, 0, out_bool ? OV_DT_BOOL : x->dtype, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	const void *dx = cu_input(k, &bufs, 0);
	void *dy = dx ? cu_alloc(k, &bufs, y->bytes) : NULL;
	if (!dy)
		goto out;
	if (CU_LAUNCH(k, un_kernel, cu_grid(y->numel), CU_BLOCK, op, dom, a, b, dx, x->dtype, dy, y->dtype,
		      y->numel) ||
	    cu_output(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// The float ops (float32, float16, bfloat16), and the few the CPU also runs on doubles and integers (NUMERIC).
static int run_unary(struct exec_kernel_ctx *k, enum cu_un_op op, float a, float b)
{
	return cu_ew_unary(k, op, CU_D_F32, 0, a, b);
}

#define UNARY(kname, op) \
	static int kname(struct exec_kernel_ctx *k) { return run_unary(k, op, 0.0f, 0.0f); }
#define NUMERIC(kname, op) \
	static int kname(struct exec_kernel_ctx *k) { return cu_ew_unary(k, op, CU_D_NUM, 0, 0.0f, 0.0f); }

NUMERIC(k_abs, CU_U_ABS)
NUMERIC(k_neg, CU_U_NEG)
NUMERIC(k_relu, CU_U_RELU)
NUMERIC(k_sign, CU_U_SIGN)
UNARY(k_sqrt, CU_U_SQRT)
UNARY(k_reciprocal, CU_U_RECIPROCAL)
UNARY(k_exp, CU_U_EXP)
UNARY(k_log, CU_U_LOG)
UNARY(k_erf, CU_U_ERF)
UNARY(k_sin, CU_U_SIN)
UNARY(k_cos, CU_U_COS)
UNARY(k_tan, CU_U_TAN)
UNARY(k_tanh, CU_U_TANH)
UNARY(k_floor, CU_U_FLOOR)
UNARY(k_ceil, CU_U_CEIL)
UNARY(k_round, CU_U_ROUND)
UNARY(k_sigmoid, CU_U_SIGMOID)
UNARY(k_hard_swish, CU_U_HARD_SWISH)
UNARY(k_mish, CU_U_MISH)
UNARY(k_softplus, CU_U_SOFTPLUS)
UNARY(k_softsign, CU_U_SOFTSIGN)
UNARY(k_acos, CU_U_ACOS)
UNARY(k_asin, CU_U_ASIN)
UNARY(k_atan, CU_U_ATAN)
UNARY(k_acosh, CU_U_ACOSH)
UNARY(k_asinh, CU_U_ASINH)
UNARY(k_atanh, CU_U_ATANH)
UNARY(k_cosh, CU_U_COSH)
UNARY(k_sinh, CU_U_SINH)

// Attribute defaults as in cpu/elementwise.c; the CPU reads them as float, then widens to double and narrows
// back to float for the float32 loop, which gives the same float.
static int k_hard_sigmoid(struct exec_kernel_ctx *k)
{
	return run_unary(k, CU_U_HARD_SIGMOID, xk_attr_float(k, "alpha", 0.2f), xk_attr_float(k, "beta", 0.5f));
}

static int k_leaky_relu(struct exec_kernel_ctx *k)
{
	return run_unary(k, CU_U_LEAKY_RELU, xk_attr_float(k, "alpha", 0.01f), 0.0f);
}

static int k_elu(struct exec_kernel_ctx *k)
{
	return run_unary(k, CU_U_ELU, xk_attr_float(k, "alpha", 1.0f), 0.0f);
}

static int k_selu(struct exec_kernel_ctx *k)
{
	return run_unary(k, CU_U_SELU, xk_attr_float(k, "alpha", (float)OV_SELU_ALPHA),
			 xk_attr_float(k, "gamma", (float)OV_SELU_GAMMA));
}

static int k_celu(struct exec_kernel_ctx *k)
{
	float a = xk_attr_float(k, "alpha", 1.0f);
	return a == 0 ? EXEC_DECLINE : run_unary(k, CU_U_CELU, a, 0.0f); // the CPU names the bad alpha
}

static int k_thresholded_relu(struct exec_kernel_ctx *k)
{
	return run_unary(k, CU_U_THRESHOLDED_RELU, xk_attr_float(k, "alpha", 1.0f), 0.0f);
}

static int k_gelu(struct exec_kernel_ctx *k)
{
	char buf[32];
	const char *a = xk_attr_str(k, "approximate", "none", buf, sizeof buf);

	if (!strcmp(a, "none"))
		return run_unary(k, CU_U_GELU, 0.0f, 0.0f);
	if (!strcmp(a, "tanh"))
		return run_unary(k, CU_U_GELU_TANH, 0.0f, 0.0f);
	return EXEC_DECLINE;
}

// Integers through double, truncated back (cpu/elementwise.c's shrink loops).
static int k_shrink(struct exec_kernel_ctx *k)
{
	float bias = xk_attr_float(k, "bias", 0.0f), lambd = xk_attr_float(k, "lambd", 0.5f);

	return cu_ew_unary(k, CU_U_SHRINK, CU_D_NUM, 0, bias, lambd);
}

// Clip-11 and later: optional scalar bounds of x's type, read on the host.
static int k_clip(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;
	double lo = -INFINITY, hi = INFINITY;

	if (!x)
		return EXEC_DECLINE;
	for (size_t i = 1; i < 3 && i < k->n_in; i++) {
		if (!k->in[i])
			continue;
		if (k->in[i]->numel != 1 || k->in[i]->dtype != x->dtype)
			return EXEC_DECLINE;
		const struct xtensor *b = cu_host(k, i);
		if (!b)
			return -1;
		(i == 1 ? lo : hi) = xt_get(b, 0);
	}
	return run_unary(k, CU_U_CLIP, (float)lo, (float)hi);
}

// Clip-1 and Clip-6: float attributes.
static int k_clip_attr(struct exec_kernel_ctx *k)
{
	return run_unary(k, CU_U_CLIP, xk_attr_float(k, "min", -FLT_MAX), xk_attr_float(k, "max", FLT_MAX));
}

// ---- binary, with broadcasting ----

static __global__ void bin_kernel(int op, int dom, struct ov_bcast bc, const void *a, int ta, const void *b, int tb,
				  void *y, int ty)
{
	CU_FOR(i, bc.numel)
	cu_bin_point(op, dom, a, ta, ov_bcast_offset(&bc, 0, i), b, tb, ov_bcast_offset(&bc, 1, i), y, ty, i);
}

int cu_ew_binary_as(struct exec_kernel_ctx *k, int op, int dom, int32_t out_dt)
{
	const struct xtensor *a = k->n_in > 0 ? k->in[0] : NULL, *b = k->n_in > 1 ? k->in[1] : NULL;
	int rank;
	int64_t dims[XT_MAX_RANK];
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!a || !b || a->rank > OV_BC_MAX_RANK || b->rank > OV_BC_MAX_RANK)
		return EXEC_DECLINE;
	int ranks[2] = {a->rank, b->rank};
	const int64_t *d[2] = {a->dims, b->dims};
	if (ov_bcast_shape(2, ranks, d, &rank, dims) >= 0)
		return EXEC_DECLINE; // the CPU names the shapes that do not broadcast
	if (xk_output_raw(k, 0, out_dt, rank, dims))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	struct ov_bcast bc;
	ov_bcast_plan(&bc, 2, ranks, d, rank, dims);
	const void *da = cu_input(k, &bufs, 0);
	const void *db = da ? cu_input(k, &bufs, 1) : NULL;
	void *dy = db ? cu_alloc(k, &bufs, y->bytes) : NULL;
	if (!dy)
		goto out;
	if (CU_LAUNCH(k, bin_kernel, cu_grid(y->numel), CU_BLOCK, op, dom, bc, da, a->dtype, db, b->dtype, dy,
		      y->dtype) ||
	    cu_output(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

int cu_ew_binary(struct exec_kernel_ctx *k, int op, unsigned doms, int out_bool)
{
	const struct xtensor *a = k->n_in > 0 ? k->in[0] : NULL, *b = k->n_in > 1 ? k->in[1] : NULL;
	int dom = a && b && a->dtype == b->dtype ? cu_dom_pick(a->dtype, doms) : -1;

	if (dom < 0)
		return EXEC_DECLINE;
	return cu_ew_binary_as(k, op, dom, out_bool ? OV_DT_BOOL : a->dtype);
}

// y = op(a, b) of one numeric type, in its domain.
static int run_binary(struct exec_kernel_ctx *k, enum cu_bin_op op)
{
	return cu_ew_binary(k, op, CU_D_NUM, 0);
}

#define BINARY(kname, op) \
	static int kname(struct exec_kernel_ctx *k) { return run_binary(k, op); }

BINARY(k_add, CU_B_ADD)
BINARY(k_sub, CU_B_SUB)
BINARY(k_mul, CU_B_MUL)
BINARY(k_div, CU_B_DIV)

// PRelu-7 and later: the slope broadcasts to X (opset 6's per-channel slope is left to the CPU).
BINARY(k_prelu, CU_B_PRELU)

// Pow: the output has the base's type, the exponent may be of any numeric type (cu_pow_dom picks the CPU's domain).
static int k_pow(struct exec_kernel_ctx *k)
{
	const struct xtensor *a = k->n_in > 0 ? k->in[0] : NULL, *b = k->n_in > 1 ? k->in[1] : NULL;
	int dom = a && b ? cu_pow_dom(a->dtype, b->dtype) : -1;

	return dom < 0 ? EXEC_DECLINE : cu_ew_binary_as(k, CU_B_POW, dom, a->dtype);
}

// Mod-10 and later: fmod=0 takes the divisor's sign, fmod=1 the dividend's (a bad fmod is the CPU's to name).
static int k_mod(struct exec_kernel_ctx *k)
{
	int64_t f = xk_attr_int(k, "fmod", 0);

	if (f != 0 && f != 1)
		return EXEC_DECLINE;
	return run_binary(k, f ? CU_B_FMOD : CU_B_MOD);
}

// Variadic Min, Max, Sum, Mean: two inputs here (other counts go to the CPU); Mean of floats only, as on the CPU.
static int variadic2(struct exec_kernel_ctx *k, enum cu_bin_op op)
{
	if (k->n_in != 2)
		return EXEC_DECLINE;
	return cu_ew_binary(k, op, op == CU_B_MEAN ? CU_D_FLOAT : CU_D_NUM, 0);
}

static int k_min(struct exec_kernel_ctx *k) { return variadic2(k, CU_B_MIN); }
static int k_max(struct exec_kernel_ctx *k) { return variadic2(k, CU_B_MAX); }
static int k_sum(struct exec_kernel_ctx *k) { return variadic2(k, CU_B_ADD); }
static int k_mean(struct exec_kernel_ctx *k) { return variadic2(k, CU_B_MEAN); }

// Binary ops from opset 7 (numpy broadcasting; before it, the 'broadcast' and 'axis' attributes, left to the CPU),
// variadic ones from opset 8 (broadcasting inputs).
const struct exec_kernel cuda_elementwise_kernels[] = {
	{.op = "Abs", .since = 1, .fn = k_abs},
	{.op = "Acos", .since = 7, .fn = k_acos},
	{.op = "Acosh", .since = 9, .fn = k_acosh},
	{.op = "Add", .since = 7, .fn = k_add},
	{.op = "Asin", .since = 7, .fn = k_asin},
	{.op = "Asinh", .since = 9, .fn = k_asinh},
	{.op = "Atan", .since = 7, .fn = k_atan},
	{.op = "Atanh", .since = 9, .fn = k_atanh},
	{.op = "Ceil", .since = 1, .fn = k_ceil},
	{.op = "Celu", .since = 12, .fn = k_celu},
	{.op = "Clip", .since = 1, .fn = k_clip_attr},
	{.op = "Clip", .since = 11, .fn = k_clip},
	{.op = "Cos", .since = 7, .fn = k_cos},
	{.op = "Cosh", .since = 9, .fn = k_cosh},
	{.op = "Div", .since = 7, .fn = k_div},
	{.op = "Elu", .since = 1, .fn = k_elu},
	{.op = "Erf", .since = 9, .fn = k_erf},
	{.op = "Exp", .since = 1, .fn = k_exp},
	{.op = "Floor", .since = 1, .fn = k_floor},
	{.op = "Gelu", .since = 20, .fn = k_gelu},
	{.op = "HardSigmoid", .since = 1, .fn = k_hard_sigmoid},
	{.op = "HardSwish", .since = 14, .fn = k_hard_swish},
	{.op = "LeakyRelu", .since = 1, .fn = k_leaky_relu},
	{.op = "Log", .since = 1, .fn = k_log},
	{.op = "Max", .since = 8, .fn = k_max},
	{.op = "Mean", .since = 8, .fn = k_mean},
	{.op = "Min", .since = 8, .fn = k_min},
	{.op = "Mish", .since = 18, .fn = k_mish},
	{.op = "Mod", .since = 10, .fn = k_mod},
	{.op = "Mul", .since = 7, .fn = k_mul},
	{.op = "Neg", .since = 1, .fn = k_neg},
	{.op = "Pow", .since = 7, .fn = k_pow},
	{.op = "PRelu", .since = 7, .fn = k_prelu},
	{.op = "Reciprocal", .since = 1, .fn = k_reciprocal},
	{.op = "Relu", .since = 1, .fn = k_relu},
	{.op = "Round", .since = 11, .fn = k_round},
	{.op = "Selu", .since = 1, .fn = k_selu},
	{.op = "Shrink", .since = 9, .fn = k_shrink},
	{.op = "Sigmoid", .since = 1, .fn = k_sigmoid},
	{.op = "Sign", .since = 9, .fn = k_sign},
	{.op = "Sin", .since = 7, .fn = k_sin},
	{.op = "Sinh", .since = 9, .fn = k_sinh},
	{.op = "Softplus", .since = 1, .fn = k_softplus},
	{.op = "Softsign", .since = 1, .fn = k_softsign},
	{.op = "Sqrt", .since = 1, .fn = k_sqrt},
	{.op = "Sub", .since = 7, .fn = k_sub},
	{.op = "Sum", .since = 8, .fn = k_sum},
	{.op = "Tan", .since = 7, .fn = k_tan},
	{.op = "Tanh", .since = 1, .fn = k_tanh},
	{.op = "ThresholdedRelu", .since = 10, .fn = k_thresholded_relu},
};
const size_t cuda_elementwise_count = sizeof cuda_elementwise_kernels / sizeof cuda_elementwise_kernels[0];
