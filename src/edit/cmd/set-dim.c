/* set-dim VALUE AXIS DIM: make one dim of a graph input (or output) a number, a named dynamic dim, or unknown. */
#include "config.h"

#include <string.h>

#include "src/edit/internal.h"

static int exec_set_dim(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	const char *name = a->v[0].text;
	Onnx__ValueInfoProto *vi = a->v[0].decl;
	int64_t axis = a->v[1].i, value = a->v[2].dim.value, old = -1;
	const char *sym = a->v[2].dim.sym;

	if (!vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !vi->type->tensor_type->shape)
		return ov_fail(err, OV_INVALID, "'%s' has no declared shape to change (use set-shape)", name);
	Onnx__TensorShapeProto *sh = vi->type->tensor_type->shape;
	if (axis < -(int64_t)sh->n_dim || axis >= (int64_t)sh->n_dim)
		return ov_fail(err, OV_INVALID, "axis %s is out of range: '%s' has %zu dims", a->v[1].text, name,
			       sh->n_dim);
	if (axis < 0)
		axis += (int64_t)sh->n_dim;
	Onnx__TensorShapeProto__Dimension *d = sh->dim[axis];
	if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
		old = d->dim_value;
	if (edit_set_declared_dim(s, d, value, sym))
		return ov_fail(err, OV_NOMEM, "out of memory");
	if (edit_propagate_shapes(s, err))
		return -1;
	/* Constants that still hold the old size will break the new shape: name them, change nothing. */
	if (old > 0 && old != value)
		edit_warn_baked(s, name, (int)axis, old);
	return 0;
}

const struct edit_cmd edit_set_dim_cmd = {
	.name = "set-dim",
	.usage = "set-dim VALUE AXIS DIM",
	.help = "set one dim of a graph input or output: a number, a name (dynamic, e.g. batch), or ? (dynamic, unnamed)",
	.args = {{.kind = EDIT_ARG_PORT}, {.kind = EDIT_ARG_INT, .what = "axis"}, {.kind = EDIT_ARG_DIM}},
	.exec = exec_set_dim,
};
