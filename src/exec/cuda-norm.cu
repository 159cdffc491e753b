// Softmax and LogSoftmax on the CUDA device, float32 (float16 and bfloat16 through float32), as
// src/exec/cpu-norm.c computes them: before opset 13 the input is coerced to 2-D at axis (default 1), from 13 on
// one axis (default -1) is normalised.  One thread per row (cu_softmax_row of cuda-points.h), with the CPU's
// arithmetic.
#include "config.h"

#include <math.h>

#include "src/exec/cuda-backend.h"
#include "src/exec/cuda-points.h"

static __global__ void softmax_kernel(const float *x, float *y, int64_t outer, int64_t len, int64_t inner, int logsm)
{
	CU_FOR(row, outer * inner)
	{
		int64_t o = row / inner, in = row - o * inner;
		cu_softmax_row(x, y, o * len * inner + in, len, inner, logsm);
	}
}

static int softmax_run(struct exec_kernel_ctx *k, int logsm)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;
	int v13 = k->opset >= 13;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || !cu_float_type(x->dtype) || x->rank < 1)
		return EXEC_DECLINE; // a scalar is one class: the CPU's special case
	int64_t axis = xk_attr_int(k, "axis", v13 ? -1 : 1), r = x->rank;
	// before opset 13 axis may equal the rank (coercion to [N, 1]), as cpu-norm.c's norm_axis allows
	if (axis < -r || axis > (v13 ? r - 1 : r))
		return EXEC_DECLINE;
	if (axis < 0)
		axis += r;
	int64_t outer = 1, len = 1, inner = 1;
	for (int i = 0; i < x->rank; i++) {
		if (i < axis)
			outer *= x->dims[i];
		else if (i == axis || !v13)
			len *= x->dims[i];
		else
			inner *= x->dims[i];
	}
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	const float *dx = cu_input_f32(k, &bufs, 0);
	float *dy = dx ? (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float)) : NULL;
	if (!dy)
		goto out;
	if (CU_LAUNCH(k, softmax_kernel, cu_grid(outer * inner), CU_BLOCK, dx, dy, outer, len, inner, logsm) ||
	    cu_output_f32(k, &bufs, 0, dy))
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

// the opset-13 rows mark the change of behaviour (the kernel reads the opset itself)
const struct exec_kernel cuda_norm_kernels[] = {
	{"LogSoftmax", 1, k_log_softmax},
	{"LogSoftmax", 13, k_log_softmax},
	{"Softmax", 1, k_softmax},
	{"Softmax", 13, k_softmax},
};
const size_t cuda_norm_count = sizeof cuda_norm_kernels / sizeof cuda_norm_kernels[0];
