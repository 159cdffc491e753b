/* After an input's shape changes: carry the change into the declared shapes it flows into, and name the
 * constants that still hold the old size (shared by set-dim, set-shape and set-type). */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "src/model/describe.h"
#include "src/edit/edit.h"
#include "src/edit/internal.h"
#include "src/base/strbuf.h"

int edit_set_declared_dim(struct edit_session *s, Onnx__TensorShapeProto__Dimension *d, int64_t value,
			  const char *sym)
{
	char *ns = NULL;

	if (sym && !(ns = edit_strdup(s, sym)))
		return -1;
	if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param)
		s->m->alloc.free(s->m->alloc.allocator_data, d->dim_param);
	if (sym) {
		d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
		d->dim_param = ns;
	} else if (value >= 0) {
		d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		d->dim_value = value;
	} else {
		d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET;
		d->dim_value = 0;
	}
	return 0;
}

static int dim_differs(const Onnx__TensorShapeProto__Dimension *d, struct dim inf)
{
	if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value >= 0)
		return inf.v != d->dim_value;
	if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) /* -1: dynamic, left as written */
		return inf.v != DIM_UNKNOWN;
	if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param && *d->dim_param)
		return inf.v != DIM_UNKNOWN || !inf.sym || strcmp(inf.sym, d->dim_param);
	return inf.v != DIM_UNKNOWN || inf.sym;
}

static int update_declared(struct edit_session *s, Onnx__ValueInfoProto *vi, const struct vshape *inf)
{
	Onnx__TypeProto *tp = vi->type;
	struct strbuf before = {0}, after = {0};
	int changed = 0;

	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type->shape || inf->rank < 0)
		return 0;
	Onnx__TensorShapeProto *sh = tp->tensor_type->shape;
	if ((int)sh->n_dim != inf->rank)
		return 0; /* a rank change is a conflict for `check`, not something to rewrite */
	describe_type(&before, tp);
	for (size_t i = 0; i < sh->n_dim; i++) {
		struct dim d = inf->dims[i];
		if (!dim_differs(sh->dim[i], d))
			continue;
		/* The declaration follows what the new input implies; an unknown result clears the dim. */
		if (edit_set_declared_dim(s, sh->dim[i], d.v == DIM_UNKNOWN ? -1 : d.v, d.v == DIM_UNKNOWN ? d.sym : NULL))
			return -1;
		changed = 1;
	}
	if (changed) {
		describe_type(&after, tp);
		edit_say(s, "declared '%s': %s -> %s", vi->name ? vi->name : "", strbuf_str(&before), strbuf_str(&after));
	}
	strbuf_free(&before);
	strbuf_free(&after);
	return 0;
}

int edit_propagate_shapes(struct edit_session *s, struct ov_error *err)
{
	Onnx__GraphProto *g = s->m->proto->graph;

	edit_touch(s);
	if (edit_index(s, err))
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		Onnx__ValueInfoProto **v = pass ? g->output : g->value_info;
		size_t n = pass ? g->n_output : g->n_value_info;
		for (size_t i = 0; i < n; i++) {
			int32_t id = v[i]->name ? graph_value_id(s->g, v[i]->name) : -1;
			const struct vshape *inf = id >= 0 ? shapes_get(s->sh, s->g, id) : NULL;
			if (!inf || inf->source != SHAPE_INFERRED)
				continue;
			if (update_declared(s, v[i], inf))
				return ov_fail(err, OV_NOMEM, "out of memory");
		}
	}
	edit_touch(s);
	return 0;
}

/* Ops whose constant inputs are sizes: the input positions to look at. */
static const struct {
	const char *op;
	int inputs[3];
} size_inputs[] = {
	{.op = "Reshape", .inputs = {1, -1, -1}}, {.op = "Expand", .inputs = {1, -1, -1}},
	{.op = "Tile", .inputs = {1, -1, -1}}, {.op = "ConstantOfShape", .inputs = {0, -1, -1}},
	{.op = "Slice", .inputs = {1, 2, -1}}, {.op = "Resize", .inputs = {3, -1, -1}},
	{.op = "Range", .inputs = {0, 1, -1}},
};

void edit_warn_baked(struct edit_session *s, const char *value, int axis, int64_t old)
{
	struct ov_error err;
	struct strbuf vals = {0};

	if (old <= 0 || edit_index(s, &err))
		return;
	const struct graph *g = s->g;
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		const struct graph_node *gn = &g->nodes[i];
		const char *op = gn->proto->op_type ? gn->proto->op_type : "";
		if (gn->proto->domain && *gn->proto->domain)
			continue;
		for (size_t r = 0; r < sizeof size_inputs / sizeof size_inputs[0]; r++) {
			if (strcmp(size_inputs[r].op, op))
				continue;
			for (int k = 0; k < 3 && size_inputs[r].inputs[k] >= 0; k++) {
				int in = size_inputs[r].inputs[k];
				if ((size_t)in >= gn->proto->n_input || gn->in[in] < 0)
					continue;
				const struct graph_value *v = &g->values[gn->in[in]];
				const struct vshape *vs = shapes_get(s->sh, g, gn->in[in]);
				if ((v->origin != VALUE_INITIALIZER && v->origin != VALUE_CONSTANT) || !vs || !vs->val)
					continue;
				int hit = 0;
				for (int64_t e = 0; e < vs->n_val; e++)
					hit |= vs->val[e].v == old;
				if (!hit)
					continue;
				strbuf_reset(&vals);
				describe_tensor_values(&vals, s->m, v->constant, 16);
				edit_say(s, "warning: #%u %s%s%s %s: constant '%s' = %s still holds %" PRId64 ", the old size of "
					 "%s:%d (fix it with set-tensor %s ...)", i, gn->proto->name && *gn->proto->name ? "'" : "",
					 gn->proto->name ? gn->proto->name : "", gn->proto->name && *gn->proto->name ? "'" : "",
					 op, v->name, strbuf_str(&vals), old, value, axis, v->name);
			}
		}
	}
	strbuf_free(&vals);
}
