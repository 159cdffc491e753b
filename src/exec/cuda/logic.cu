// Comparisons, logic and bit operations on the CUDA device, with the semantics of src/exec/cpu/elementwise.c:
// Equal, Greater, Less, GreaterOrEqual and LessOrEqual on every numeric type and bool (compared in the CPU's
// domain: float16 and bfloat16 as float32, bool as 0 or 1), into bool; And, Or, Xor and Not on bool; BitShift and
// BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot on the integer types (BitShift in uint64, as the CPU shifts); IsNaN
// and IsInf on the float types.  Each element is cuda/points.h's cu_bin_point or cu_un_point, launched (with numpy
// broadcasting) by cuda/elementwise.cu's cu_ew_binary and cu_ew_unary; what the CPU would refuse is declined.
#include "config.h"

#include <string.h>

#include "src/exec/cuda/backend.h"
#include "src/exec/cuda/points.h"

// ---- comparisons ----

static int compare(struct exec_kernel_ctx *k, enum cu_bin_op op)
{
	return cu_ew_binary(k, op, CU_D_NUM | CU_D_BOOL, 1);
}

static int k_equal(struct exec_kernel_ctx *k) { return compare(k, CU_B_EQ); } // strings: the CPU's
static int k_less(struct exec_kernel_ctx *k) { return compare(k, CU_B_LT); }
static int k_greater(struct exec_kernel_ctx *k) { return compare(k, CU_B_GT); }
static int k_less_equal(struct exec_kernel_ctx *k) { return compare(k, CU_B_LE); }
static int k_greater_equal(struct exec_kernel_ctx *k) { return compare(k, CU_B_GE); }

// ---- logic on bool ----

static int k_and(struct exec_kernel_ctx *k) { return cu_ew_binary(k, CU_B_AND, CU_D_BOOL, 1); }
static int k_or(struct exec_kernel_ctx *k) { return cu_ew_binary(k, CU_B_OR, CU_D_BOOL, 1); }
static int k_xor(struct exec_kernel_ctx *k) { return cu_ew_binary(k, CU_B_XOR, CU_D_BOOL, 1); }
static int k_not(struct exec_kernel_ctx *k) { return cu_ew_unary(k, CU_U_NOT, CU_D_BOOL, 1, 0.0f, 0.0f); }

// ---- bits, on the integer types ----

static int k_bitwise_and(struct exec_kernel_ctx *k) { return cu_ew_binary(k, CU_B_BAND, CU_D_INT, 0); }
static int k_bitwise_or(struct exec_kernel_ctx *k) { return cu_ew_binary(k, CU_B_BOR, CU_D_INT, 0); }
static int k_bitwise_xor(struct exec_kernel_ctx *k) { return cu_ew_binary(k, CU_B_BXOR, CU_D_INT, 0); }
static int k_bitwise_not(struct exec_kernel_ctx *k) { return cu_ew_unary(k, CU_U_BITNOT, CU_D_INT, 0, 0.0f, 0.0f); }

// The unsigned types in uint64, a shift by 64 or more giving 0; the signed ones (opset 28) in int64 with their
// rules for shifts out of range (ov-math.h's ov_shl_i64, ov_shr_i64), as the CPU; a direction other than LEFT
// and RIGHT is the CPU's to name (read into as many bytes as it reads).
static int k_bitshift(struct exec_kernel_ctx *k)
{
	char buf[16];
	const char *dir = xk_attr_str(k, "direction", "", buf, sizeof buf);
	const struct xtensor *a = k->n_in > 0 ? k->in[0] : NULL, *b = k->n_in > 1 ? k->in[1] : NULL;
	enum cu_bin_op op = !strcmp(dir, "LEFT") ? CU_B_SHL : CU_B_SHR;

	if (strcmp(dir, "LEFT") && strcmp(dir, "RIGHT"))
		return EXEC_DECLINE;
	if (!a || !b || a->dtype != b->dtype || cu_dom_pick(a->dtype, CU_D_INT) < 0)
		return EXEC_DECLINE;
	int sgn = a->dtype == OV_DT_INT8 || a->dtype == OV_DT_INT16 || a->dtype == OV_DT_INT32 || a->dtype == OV_DT_INT64;
	return cu_ew_binary_as(k, op, sgn ? CU_DOM_I64 : CU_DOM_U64, a->dtype);
}

// ---- float classes, into bool ----

static int k_isnan(struct exec_kernel_ctx *k) { return cu_ew_unary(k, CU_U_ISNAN, CU_D_FLOAT, 1, 0.0f, 0.0f); }

// The detections narrowed to int as the CPU narrows them.
static int k_isinf(struct exec_kernel_ctx *k)
{
	int pos = (int)xk_attr_int(k, "detect_positive", 1), neg = (int)xk_attr_int(k, "detect_negative", 1);

	return cu_ew_unary(k, CU_U_ISINF, CU_D_FLOAT, 1, pos != 0, neg != 0);
}

// From opset 7 for the broadcasting binary ops (before it, the 'broadcast' and 'axis' attributes, left to the CPU).
const struct exec_kernel cuda_logic_kernels[] = {
	{.op = "And", .since = 7, .fn = k_and},
	{.op = "BitShift", .since = 11, .fn = k_bitshift},
	{.op = "BitwiseAnd", .since = 18, .fn = k_bitwise_and},
	{.op = "BitwiseNot", .since = 18, .fn = k_bitwise_not},
	{.op = "BitwiseOr", .since = 18, .fn = k_bitwise_or},
	{.op = "BitwiseXor", .since = 18, .fn = k_bitwise_xor},
	{.op = "Equal", .since = 7, .fn = k_equal},
	{.op = "Greater", .since = 7, .fn = k_greater},
	{.op = "GreaterOrEqual", .since = 12, .fn = k_greater_equal},
	{.op = "IsInf", .since = 10, .fn = k_isinf},
	{.op = "IsNaN", .since = 9, .fn = k_isnan},
	{.op = "Less", .since = 7, .fn = k_less},
	{.op = "LessOrEqual", .since = 12, .fn = k_less_equal},
	{.op = "Not", .since = 1, .fn = k_not},
	{.op = "Or", .since = 7, .fn = k_or},
	{.op = "Xor", .since = 7, .fn = k_xor},
};
const size_t cuda_logic_count = sizeof cuda_logic_kernels / sizeof cuda_logic_kernels[0];
