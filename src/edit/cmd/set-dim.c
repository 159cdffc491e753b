/* set-dim VALUE AXIS DIM: make one dim of a graph input (or output) a number, a named dynamic dim, or unknown. */
#include "config.h"

#include <string.h>

#include "src/edit/internal.h"

Onnx__ValueInfoProto *edit_graph_input(struct edit_session *s, const char *name)
{
	const Onnx__GraphProto *g = s->m->proto->graph;

	for (size_t i = 0; i < g->n_input; i++)
		if (g->input[i]->name && !strcmp(g->input[i]->name, name))
			return g->input[i];
	return NULL;
}

Onnx__ValueInfoProto *edit_graph_output(struct edit_session *s, const char *name)
{
	const Onnx__GraphProto *g = s->m->proto->graph;

	for (size_t i = 0; i < g->n_output; i++)
		if (g->output[i]->name && !strcmp(g->output[i]->name, name))
			return g->output[i];
	return NULL;
}

static int exec_set_dim(struct edit_session *s, int argc, char **argv, struct ov_error *err)
{
	const char *name = argv[1];
	Onnx__ValueInfoProto *vi = edit_graph_input(s, name);
	int64_t axis, value = -1, old = -1;
	const char *sym = NULL;

	(void)argc;
	if (!vi)
		vi = edit_graph_output(s, name);
	if (!vi)
		return ov_fail(err, OV_INVALID, "'%s' is not a graph input or output (set-dim changes their declared "
			       "dims)", name);
	if (!vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !vi->type->tensor_type->shape)
		return ov_fail(err, OV_INVALID, "'%s' has no declared shape to change (use set-shape)", name);
	Onnx__TensorShapeProto *sh = vi->type->tensor_type->shape;
	if (edit_parse_int(argv[2], &axis, err))
		return ov_wrap(err, "axis: ");
	if (axis < -(int64_t)sh->n_dim || axis >= (int64_t)sh->n_dim)
		return ov_fail(err, OV_INVALID, "axis %s is out of range: '%s' has %zu dims", argv[2], name, sh->n_dim);
	if (axis < 0)
		axis += (int64_t)sh->n_dim;
	if (edit_parse_dim(argv[3], &value, &sym, err))
		return -1;
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
	"set-dim", "set-dim VALUE AXIS DIM",
	"set one dim of a graph input or output: a number, a name (dynamic, e.g. batch), or ? (dynamic, unnamed)",
	3, 3, 0, exec_set_dim,
};
