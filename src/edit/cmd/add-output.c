/* add-output VALUE: make a value of the main graph a graph output, typed by what is known of it. */
#include "config.h"

#include <string.h>

#include "src/model/describe.h"
#include "src/edit/internal.h"
#include "src/base/strbuf.h"

/* A tensor type from a constant's data type and dims. */
static int type_from_tensor(struct edit_session *s, Onnx__ValueInfoProto *vi, int32_t dtype, const int64_t *dims,
			    size_t rank)
{
	if (edit_tensor_type(s, vi, dtype))
		return -1;
	int64_t value[SHAPE_MAX_RANK];
	char *sym[SHAPE_MAX_RANK] = {0};
	if (rank > SHAPE_MAX_RANK)
		return 0; /* no shape: the type alone */
	for (size_t i = 0; i < rank; i++)
		value[i] = dims[i] >= 0 ? dims[i] : -1;
	return edit_set_declared_shape(s, vi->type->tensor_type, rank, value, sym);
}

static int type_from_inferred(struct edit_session *s, Onnx__ValueInfoProto *vi, const struct vshape *inf)
{
	int64_t value[SHAPE_MAX_RANK];
	char *sym[SHAPE_MAX_RANK] = {0};

	if (edit_tensor_type(s, vi, inf->dtype))
		return -1;
	if (inf->rank < 0)
		return 0;
	for (int i = 0; i < inf->rank; i++) {
		value[i] = inf->dims[i].v == DIM_UNKNOWN ? -1 : inf->dims[i].v;
		sym[i] = inf->dims[i].v == DIM_UNKNOWN ? (char *)inf->dims[i].sym : NULL;
	}
	return edit_set_declared_shape(s, vi->type->tensor_type, (size_t)inf->rank, value, sym);
}

static int exec_add_output(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	const char *name = a->v[0].text, *from;
	Onnx__GraphProto *g = s->m->proto->graph;
	Onnx__ValueInfoProto *vi = NULL, **na;
	struct strbuf b = {0};
	int rc;
	int32_t id = a->v[0].value;

	const struct graph_value *v = &s->g->values[id];
	if (v->output_index >= 0)
		return ov_fail(err, OV_INVALID, "'%s' is already graph output %d", name, v->output_index);
	const struct vshape *inf = shapes_get(s->sh, s->g, id);
	if (!(v->declared && v->declared->type) && !v->constant && !v->sparse && !(inf && inf->dtype))
		return ov_fail(err, OV_INVALID, "the type of '%s' is unknown (no declaration, and onnxview cannot infer "
			       "it): declare it first (set-type %s DTYPE)", name, name);
	if (v->declared && v->declared->type) {
		vi = edit_copy_message(s, &v->declared->base);
		from = "declared";
		if (vi && vi->doc_string) { /* the type travels, the documentation of the other entry does not */
			s->m->alloc.free(s->m->alloc.allocator_data, vi->doc_string);
			vi->doc_string = NULL;
		}
	} else {
		vi = s->m->alloc.alloc(s->m->alloc.allocator_data, sizeof *vi);
		if (vi) {
			onnx__value_info_proto__init(vi);
			vi->name = edit_strdup(s, name);
		}
		if (!vi || !vi->name) {
			rc = -1;
		} else if (v->constant) {
			from = "constant";
			rc = type_from_tensor(s, vi, v->constant->data_type, v->constant->dims, v->constant->n_dims);
		} else if (v->sparse) {
			from = "sparse initializer";
			rc = type_from_tensor(s, vi, v->sparse->values ? v->sparse->values->data_type : 0, v->sparse->dims,
					      v->sparse->n_dims);
		} else {
			from = "inferred";
			rc = type_from_inferred(s, vi, inf);
		}
		if (rc && vi) {
			protobuf_c_message_free_unpacked(&vi->base, &s->m->alloc);
			vi = NULL;
		}
	}
	if (!vi || !(na = edit_array_grow(s, g->output, g->n_output, sizeof *na))) {
		if (vi)
			protobuf_c_message_free_unpacked(&vi->base, &s->m->alloc);
		return ov_fail(err, OV_NOMEM, "out of memory");
	}
	g->output = na;
	g->output[g->n_output++] = vi;
	describe_type(&b, vi->type);
	edit_say(s, "added output %zu '%s': %s (%s)", g->n_output - 1, name, strbuf_str(&b), from);
	strbuf_free(&b);
	edit_touch(s);
	return 0;
}

const struct edit_cmd edit_add_output_cmd = {
	.name = "add-output",
	.usage = "add-output VALUE",
	.help = "make a value a graph output (typed from its declaration, its constant, or the inferred shape)",
	.args = {{.kind = EDIT_ARG_VALUE}},
	.exec = exec_add_output,
};
