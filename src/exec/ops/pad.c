/* Pad's checks and geometry, shared by the CPU and CUDA kernels (see ops/ops.h), and ops_host_ints, which reads
 * the integers of a shape-like input for other setups too. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/ops/ops.h"

int64_t ops_host_ints(struct exec_kernel_ctx *k, const struct xtensor *t, int64_t *buf, int64_t max, const char *what)
{
	if (t->rank > 1)
		return xk_fail(k, "%s must be 1-D, got rank %d", what, t->rank);
	if (t->numel > max)
		return xk_fail(k, "%s has %" PRId64 " values, more than the %" PRId64 " allowed", what, t->numel, max);
	for (int64_t i = 0; i < t->numel; i++)
		buf[i] = xt_get_int(t, i);
	return t->numel;
}

int ops_pad_setup(struct exec_kernel_ctx *k, const struct xtensor *x, ops_host_fn host, struct pad_geom *p)
{
	int64_t pads[2 * XT_MAX_RANK], axes[XT_MAX_RANK], np, na = -2;
	const struct xtensor *t;

	memset(p, 0, sizeof *p);
	xk_attr_str(k, "mode", "constant", p->mode_name, sizeof p->mode_name);
	if (!strcmp(p->mode_name, "constant"))
		p->mode = OV_PAD_CONSTANT;
	else if (!strcmp(p->mode_name, "reflect"))
		p->mode = OV_PAD_REFLECT;
	else if (!strcmp(p->mode_name, "edge"))
		p->mode = OV_PAD_EDGE;
	else if (!strcmp(p->mode_name, "wrap"))
		p->mode = OV_PAD_WRAP;
	else
		return xk_fail(k, "unknown mode '%s'", p->mode_name);
	if (k->opset < 11) { /* Pad-1 (paddings), Pad-2 (pads and value attributes) */
		np = xk_attr_ints(k, k->opset < 2 ? "paddings" : "pads", pads, 2 * XT_MAX_RANK);
		if (np < 0)
			return xk_fail(k, "the pads attribute is missing");
		if (np > 2 * XT_MAX_RANK)
			return xk_fail(k, "%" PRId64 " pads, more than %d", np, 2 * XT_MAX_RANK);
		p->cval = xk_attr_float(k, "value", 0);
	} else { /* Pad-11 on: pads, constant_value and (18) axes as inputs */
		if (k->n_in < 2 || !k->in[1])
			return xk_fail(k, "the pads input is missing");
		if (!(t = host(k, 1)) || (np = ops_host_ints(k, t, pads, 2 * XT_MAX_RANK, "pads")) < 0)
			return -1;
		if (k->n_in > 2 && k->in[2]) {
			if (!(p->cv = host(k, 2)))
				return -1;
			if (p->cv->numel > 1)
				return xk_fail(k, "constant_value has %" PRId64 " elements, not one", p->cv->numel);
			if (p->cv->numel && p->cv->dtype != x->dtype)
				return xk_fail(k, "constant_value is %s, the input %s", dtype_name(p->cv->dtype),
					       dtype_name(x->dtype));
		}
		if (k->n_in > 3 && k->in[3] && (!(t = host(k, 3)) || (na = ops_host_ints(k, t, axes, XT_MAX_RANK, "axes")) < 0))
			return -1;
	}
	if (na == -2) {
		na = x->rank;
		for (int i = 0; i < x->rank; i++)
			axes[i] = i;
	}
	if (np != 2 * na)
		return xk_fail(k, "%" PRId64 " pads for %" PRId64 " axes (need twice as many)", np, na);
	int seen[XT_MAX_RANK] = {0};
	for (int64_t i = 0; i < na; i++) {
		int a;
		if (xk_norm_axis(k, axes[i], x->rank, &a))
			return -1;
		if (seen[a]++)
			return xk_fail(k, "axis %d is padded twice", a);
		p->pb[a] = pads[i];
		p->pe[a] = pads[na + i];
	}
	int empty = 0;
	for (int a = 0; a < x->rank; a++) {
		/* |pad| beyond 2^40 cannot give an allocatable tensor; checking here keeps the sums from overflowing */
		if (p->pb[a] > (1ll << 40) || p->pe[a] > (1ll << 40) || p->pb[a] < -(1ll << 40) || p->pe[a] < -(1ll << 40))
			return xk_fail(k, "pad %" PRId64 "/%" PRId64 " on axis %d is absurd", p->pb[a], p->pe[a], a);
		p->d[a] = x->dims[a] + p->pb[a] + p->pe[a];
		if (p->d[a] < 0)
			return xk_fail(k, "pads %" PRId64 ",%" PRId64 " remove more than axis %d's %" PRId64 " elements",
				       p->pb[a], p->pe[a], a, x->dims[a]);
		empty |= p->d[a] == 0;
	}
	/* reflect, edge and wrap need an element left on every padded axis (an empty output needs none) */
	for (int a = 0; a < x->rank && !empty; a++) {
		int64_t dc = x->dims[a] - (p->pb[a] < 0 ? -p->pb[a] : 0) - (p->pe[a] < 0 ? -p->pe[a] : 0);
		if (p->mode != OV_PAD_CONSTANT && dc <= 0 && p->d[a] > 0)
			return xk_fail(k, "%s padding of axis %d, which has no elements left", p->mode_name, a);
	}
	return 0;
}
