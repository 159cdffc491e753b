/* set-shape VALUE [d0,d1,...]: declare the whole shape of a graph input, output or inner value. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/model/describe.h"
#include "src/edit/internal.h"
#include "src/base/strbuf.h"

static int is_tensor_type(const Onnx__ValueInfoProto *vi)
{
	return vi->type && vi->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && vi->type->tensor_type;
}

static int exec_set_shape(struct edit_session *s, const struct edit_args *args, struct ov_error *err)
{
	const char *name = args->v[0].text;
	char *const *sym = args->v[1].shape.sym;
	const int64_t n = args->v[1].shape.rank, *value = args->v[1].shape.value;
	int64_t old_dims[SHAPE_MAX_RANK];
	int rc = -1, old_rank = -1, computed = 0, agrees = 1, is_input;
	struct strbuf before = {0}, after = {0}, inferred = {0};
	Onnx__ValueInfoProto *decl[8];
	int32_t id = args->v[0].value;
	const struct graph_value *v = &s->g->values[id];
	is_input = v->origin == VALUE_INPUT;
	if (v->origin == VALUE_INITIALIZER)
		return ov_fail(err, OV_INVALID, "'%s' is an initializer: its shape is that of its data (use set-tensor)",
			       name);
	if (v->origin == VALUE_CONSTANT)
		return ov_fail(err, OV_INVALID, "'%s' is the output of Constant #%d: its shape is that of the constant "
			       "(use set-tensor)", name, v->producer);
	size_t n_decl = edit_declarations(s, name, decl, 8);
	if (n_decl > 8)
		n_decl = 8;
	const struct vshape *inf = shapes_get(s->sh, s->g, id);
	for (size_t k = 0; k < n_decl; k++)
		if (decl[k]->type && decl[k]->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
		    decl[k]->type->value_case != ONNX__TYPE_PROTO__VALUE__NOT_SET) {
			describe_type(&before, decl[k]->type);
			ov_fail(err, OV_INVALID, "'%s' is declared as %s, not a tensor: set-shape declares tensor shapes",
				name, strbuf_str(&before));
			goto out;
		}
	int32_t dtype = 0;
	for (size_t k = 0; k < n_decl && !dtype; k++)
		if (is_tensor_type(decl[k]) && decl[k]->type->tensor_type->has_elem_type)
			dtype = decl[k]->type->tensor_type->elem_type;
	if (!dtype && inf)
		dtype = inf->dtype;
	if (!dtype) {
		ov_fail(err, OV_INVALID, "the type of '%s' is unknown: declare it first (set-type %s DTYPE)", name, name);
		goto out;
	}
	if (n_decl && is_tensor_type(decl[0]) && decl[0]->type->tensor_type->shape) {
		const Onnx__TensorShapeProto *sh = decl[0]->type->tensor_type->shape;
		old_rank = sh->n_dim <= SHAPE_MAX_RANK ? (int)sh->n_dim : -1;
		for (int a = 0; a < old_rank; a++)
			old_dims[a] = sh->dim[a]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ?
				sh->dim[a]->dim_value : -1;
	}
	/* A value that onnxview computes from its inputs: its declaration feeds nothing downstream, and one that
	 * contradicts the computation is worth saying (check reports it as a conflict). */
	if (!is_input && inf && inf->source == SHAPE_INFERRED && inf->rank >= 0) {
		struct dim nd[SHAPE_MAX_RANK];
		struct vshape want = {.dtype = dtype, .rank = (int)n, .dims = nd, .n_val = -1};
		for (int64_t i = 0; i < n; i++)
			nd[i] = (struct dim){value[i] >= 0 ? value[i] : DIM_UNKNOWN, sym[i]};
		computed = 1;
		agrees = shape_compatible(inf, &want);
		shape_describe(&inferred, inf);
	}

	if (edit_declare_for_change(s, name, dtype, decl, &n_decl, &before, err))
		goto out;
	for (size_t k = 0; k < n_decl; k++)
		if (edit_tensor_type(s, decl[k], is_tensor_type(decl[k]) && decl[k]->type->tensor_type->has_elem_type ?
				     0 : dtype) ||
		    edit_set_declared_shape(s, decl[k]->type->tensor_type, (size_t)n, value, sym)) {
			ov_fail(err, OV_NOMEM, "out of memory");
			goto out;
		}
	describe_type(&after, decl[0]->type);
	edit_say(s, "'%s': %s -> %s", name, strbuf_str(&before), strbuf_str(&after));
	if (computed) {
		if (!agrees)
			edit_say(s, "warning: onnxview computes %s for '%s' from the graph; the declaration now disagrees "
				 "(onnxview check reports the conflict)", strbuf_str(&inferred), name);
		edit_touch(s);
	} else if (edit_propagate_shapes(s, err)) {
		goto out;
	}
	/* Constants that still hold an old size will break the new shape: name them, change nothing. */
	if (is_input)
		for (int a = 0; a < old_rank; a++)
			if (old_dims[a] > 0 && (a >= n || value[a] != old_dims[a]))
				edit_warn_baked(s, name, a, old_dims[a]);
	rc = 0;
out:
	strbuf_free(&before);
	strbuf_free(&after);
	strbuf_free(&inferred);
	return rc;
}

const struct edit_cmd edit_set_shape_cmd = {
	.name = "set-shape",
	.usage = "set-shape VALUE [d0,d1,...]",
	.help = "declare the shape of a graph input, output or inner value; each dim a number, a name (dynamic) or ?",
	.args = {{.kind = EDIT_ARG_VALUE}, {.kind = EDIT_ARG_SHAPE}},
	.exec = exec_set_shape,
};
