/* Shape rules for reductions and index-producing ops: Reduce*, ArgMax/ArgMin, TopK. */
#include "config.h"

#include <string.h>

#include "src/base/dtype.h"
#include "src/graph/shape-rules.h"

int rule_reduce(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	const char *op = c->proto->op_type;
	int64_t axes[SHAPE_MAX_RANK];
	struct dim out[SHAPE_MAX_RANK];
	int red[SHAPE_MAX_RANK] = {0};
	int keep = (int)attr_int(c, "keepdims", 1);
	/* axes moved from attribute to input: ReduceSum at 13, the other Reduce* at 18. */
	int from_input = c->opset >= (!strcmp(op, "ReduceSum") ? 13 : 18);
	int64_t na;

	if (!x || x->rank < 0) {
		set_out(c, 0, x ? x->dtype : 0, -1, NULL);
		return 0;
	}
	if (from_input)
		na = c->n_in > 1 && in_shape(c, 1) ? in_ints(c, 1, axes, SHAPE_MAX_RANK) : -2;
	else
		na = attr_ints(c, "axes", axes, SHAPE_MAX_RANK), na = na == -1 ? -2 : na < 0 ? -1 : na;
	if (na == -1) {
		set_out(c, 0, x->dtype, keep ? x->rank : -1, NULL);
		return infer_note(c, "%s axes are not constant", op);
	}
	if (na == -2 || na == 0) {
		if (from_input && attr_int(c, "noop_with_empty_axes", 0)) {
			set_out_like(c, 0, x, x->dtype);
			return 0;
		}
		for (int i = 0; i < x->rank; i++)
			red[i] = 1;
	} else
		for (int64_t i = 0; i < na; i++) {
			int a = norm_axis(c, axes[i], x->rank);
			if (a < 0)
				return -1;
			red[a] = 1;
		}
	int n = 0;
	for (int i = 0; i < x->rank; i++)
		if (!red[i])
			out[n++] = x->dims[i];
		else if (keep)
			out[n++] = dim_num(1);
	set_out(c, 0, x->dtype, n, out);
	return 0;
}

int rule_argminmax(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	struct dim out[SHAPE_MAX_RANK];
	int keep = (int)attr_int(c, "keepdims", 1);

	if (!x || x->rank < 0) {
		set_out(c, 0, OV_DT_INT64, -1, NULL);
		return 0;
	}
	int axis = norm_axis(c, attr_int(c, "axis", 0), x->rank);
	if (axis < 0)
		return -1;
	int n = 0;
	for (int i = 0; i < x->rank; i++)
		if (i != axis)
			out[n++] = x->dims[i];
		else if (keep)
			out[n++] = dim_num(1);
	set_out(c, 0, OV_DT_INT64, n, out);
	return 0;
}

int rule_topk(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	struct dim out[SHAPE_MAX_RANK];
	int64_t k[1];

	if (!x || x->rank < 0) {
		set_out(c, 0, x ? x->dtype : 0, -1, NULL);
		set_out(c, 1, OV_DT_INT64, -1, NULL);
		return 0;
	}
	int axis = norm_axis(c, attr_int(c, "axis", -1), x->rank);
	if (axis < 0)
		return -1;
	memcpy(out, x->dims, (size_t)x->rank * sizeof *out);
	if (c->opset < 10)
		out[axis] = dim_num(attr_int(c, "k", 0));
	else
		out[axis] = in_ints(c, 1, k, 1) == 1 ? dim_num(k[0]) : dim_unknown();
	set_out(c, 0, x->dtype, x->rank, out);
	set_out(c, 1, OV_DT_INT64, x->rank, out);
	return 0;
}
