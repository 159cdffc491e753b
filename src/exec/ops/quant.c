/* QuantizeLinear's and DequantizeLinear's checks of the scale and zero point against x, shared by the CPU and CUDA
 * kernels (see ops/ops.h; the arithmetic is src/exec/ops/ov-quant.h's). */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "src/exec/ops/ops.h"
#include "src/exec/ops/ov-quant.h"

int ops_quant_setup(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *scale,
		    const struct xtensor *zp, struct ov_qparams *q)
{
	int64_t block = xk_attr_int(k, "block_size", 0), a = xk_attr_int(k, "axis", 1);

	memset(q, 0, sizeof *q);
	/* a scalar scale with a zero point of shape [1] (or the other way round) is one value each */
	int one = scale->numel == 1 && scale->rank <= 1 && zp && zp->numel == 1 && zp->rank <= 1;
	if (zp && !one &&
	    (zp->rank != scale->rank || memcmp(zp->dims, scale->dims, (size_t)zp->rank * sizeof zp->dims[0])))
		return xk_fail(k, "the zero point's shape differs from the scale's");
	if (scale->numel == 1 && scale->rank <= 1 && block <= 0) {
		q->per_tensor = 1;
		return 0;
	}
	if (x->rank == 0)
		return xk_fail(k, "a scalar input needs a single scale");
	if (a < -(int64_t)x->rank || a >= x->rank)
		return xk_fail(k, "axis %" PRId64 " is out of range for rank %d", a, x->rank);
	int axis = (int)(a < 0 ? a + x->rank : a);
	q->D = x->dims[axis];
	q->inner = 1;
	for (int i = axis + 1; i < x->rank; i++)
		q->inner *= x->dims[i];
	if (block > 0) {
		if (scale->rank != x->rank)
			return xk_fail(k, "blocked quantization needs a scale of the input's rank");
		for (int i = 0; i < x->rank; i++)
			if (i != axis && scale->dims[i] != x->dims[i])
				return xk_fail(k, "the scale's dim %d differs from the input's", i);
		if (scale->dims[axis] != (q->D + block - 1) / block)
			return xk_fail(k, "the scale has %" PRId64 " blocks on axis %d, the input needs %" PRId64,
				       scale->dims[axis], axis, (q->D + block - 1) / block);
		q->blocked = 1;
		q->block = block;
		q->sb = scale->dims[axis];
		return 0;
	}
	if (scale->rank != 1 || scale->dims[0] != q->D)
		return xk_fail(k, "a per-axis scale must be 1-D of %" PRId64 " (axis %d)", q->D, axis);
	return 0;
}
