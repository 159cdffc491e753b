/* Shape and Size: they read only their input's dims and write a small int64 output on the host, so one kernel
 * serves every backend (the CUDA backend runs them without copying the input's elements anywhere). */
#include "config.h"

#include <stdint.h>

#include "src/base/dtype.h"
#include "src/exec/ops/ops.h"

int ops_shape_kernel(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = (k->n_in ? k->in[0] : NULL);

	if (!x)
		return xk_fail(k, "input 0 is missing");
	int64_t r = x->rank, start = xk_attr_int(k, "start", 0), end = xk_attr_int(k, "end", r);
	if (start < 0)
		start += r;
	if (end < 0)
		end += r;
	start = start < 0 ? 0 : start > r ? r : start;
	end = end < 0 ? 0 : end > r ? r : end;
	int64_t n = end > start ? end - start : 0;
	if (xk_output(k, 0, OV_DT_INT64, 1, &n))
		return -1;
	for (int64_t i = 0; i < n; i++)
		((int64_t *)k->out[0]->data)[i] = x->dims[start + i];
	return 0;
}

int ops_size_kernel(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = (k->n_in ? k->in[0] : NULL);

	if (!x)
		return xk_fail(k, "input 0 is missing");
	if (xk_output(k, 0, OV_DT_INT64, 0, NULL))
		return -1;
	*(int64_t *)k->out[0]->data = x->numel;
	return 0;
}
