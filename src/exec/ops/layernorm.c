/* LayerNormalization's checks and geometry, shared by the CPU and CUDA kernels (see ops/ops.h). */
#include "config.h"

#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/ops/ops.h"

/* Strides of t broadcast (right-aligned) against dims[0..rank): 0 along dims t does not have or has as 1.
 * Returns -1 when t does not broadcast. */
static int bcast_strides(const struct xtensor *t, const int64_t *dims, int rank, int64_t *str)
{
	int64_t s = 1;

	if (t->rank > rank)
		return -1;
	for (int i = rank - 1; i >= 0; i--) {
		int ti = i - (rank - t->rank);
		int64_t d = ti >= 0 ? t->dims[ti] : 1;
		if (d != 1 && d != dims[i])
			return -1;
		str[i] = d == 1 ? 0 : s;
		s *= d;
	}
	return 0;
}

int ops_layernorm_setup(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *s,
			const struct xtensor *b, struct ln_geom *p)
{
	char d1[64];

	memset(p, 0, sizeof *p);
	int64_t axis = xk_attr_int(k, "axis", -1), r = x->rank;
	if (axis < -r || axis > r - 1)
		return xk_fail(k, "axis %lld is out of range for rank %d", (long long)axis, x->rank);
	p->axis = (int)(axis < 0 ? axis + r : axis);
	if (!s)
		return xk_fail(k, "Scale is required");
	if (bcast_strides(s, x->dims, x->rank, p->sstr)) {
		xt_describe(s, d1, sizeof d1);
		return xk_fail(k, "Scale %s does not broadcast to X", d1);
	}
	if (b && bcast_strides(b, x->dims, x->rank, p->bstr))
		return xk_fail(k, "B does not broadcast to X");
	if (s->dtype != x->dtype || (b && b->dtype != x->dtype))
		return xk_fail(k, "X, Scale and B must have the same element type");
	p->stash = (int32_t)xk_attr_int(k, "stash_type", OV_DT_FLOAT);
	if (p->stash != OV_DT_FLOAT && p->stash != OV_DT_DOUBLE)
		p->stash = OV_DT_FLOAT;
	p->outer = p->len = 1;
	for (int i = 0; i < x->rank; i++) {
		if (i < p->axis)
			p->outer *= x->dims[i];
		else
			p->len *= x->dims[i];
		p->sdims[i] = i < p->axis ? x->dims[i] : 1;
	}
	p->eps = xk_attr_float(k, "epsilon", 1e-5f);
	return 0;
}
