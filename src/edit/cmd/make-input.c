/* make-input TENSOR: a constant (an initializer, or a Constant node's output) becomes a graph input of the same
 * dtype and shape, so its value is chosen at run time (Resize scales, thresholds...). */
#include "config.h"

#include <string.h>

#include "src/model/describe.h"
#include "src/base/dtype.h"
#include "src/edit/internal.h"
#include "src/base/strbuf.h"

/* Remove element i of an array of n pointers (the array itself stays allocated). */
static void remove_at(void **a, size_t *n, size_t i)
{
	memmove(a + i, a + i + 1, (*n - i - 1) * sizeof *a);
	(*n)--;
}

static int exec_make_input(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	const char *name = a->v[0].text;
	Onnx__GraphProto *g = s->m->proto->graph;
	const struct edit_constant c = a->v[0].constant;
	struct strbuf type = {0}, values = {0};
	Onnx__TensorProto *t = c.t;
	describe_tensor_type(&type, t);
	describe_tensor_values(&values, s->m, t, 8);
	if (c.input) {
		/* Already an input with a default value: dropping the initializer leaves the input alone. */
		protobuf_c_message_free_unpacked(&t->base, &s->m->alloc);
		remove_at((void **)g->initializer, &g->n_initializer, (size_t)c.init_index);
		edit_say(s, "'%s' was already a graph input with a default value %s: the default is removed, so the "
			 "value must be given at run time", name, strbuf_str(&values));
	} else {
		Onnx__ValueInfoProto *vi = s->m->alloc.alloc(s->m->alloc.allocator_data, sizeof *vi);
		Onnx__ValueInfoProto **in = s->m->alloc.alloc(s->m->alloc.allocator_data, (g->n_input + 1) * sizeof *in);
		if (!vi || !in) {
			if (vi)
				s->m->alloc.free(s->m->alloc.allocator_data, vi);
			if (in)
				s->m->alloc.free(s->m->alloc.allocator_data, in);
			goto oom;
		}
		onnx__value_info_proto__init(vi);
		if (g->n_input)
			memcpy(in, g->input, g->n_input * sizeof *in);
		in[g->n_input] = vi;
		if (g->input)
			s->m->alloc.free(s->m->alloc.allocator_data, g->input);
		g->input = in;
		g->n_input++;
		/* From here vi belongs to the graph: a failure below leaves it for the engine to roll back. */
		if (!(vi->name = edit_strdup(s, name)) ||
		    !(vi->type = edit_new_tensor_type(s, t->data_type, t->dims, t->n_dims)))
			goto oom;
		if (c.node) {
			protobuf_c_message_free_unpacked(&c.node->base, &s->m->alloc);
			remove_at((void **)g->node, &g->n_node, (size_t)c.node_index);
			edit_say(s, "'%s' %s %s is now graph input #%zu (Constant node #%td removed)", name, strbuf_str(&type),
				 strbuf_str(&values), g->n_input - 1, c.node_index);
		} else {
			protobuf_c_message_free_unpacked(&t->base, &s->m->alloc);
			remove_at((void **)g->initializer, &g->n_initializer, (size_t)c.init_index);
			edit_say(s, "'%s' %s %s is now graph input #%zu (initializer removed)", name, strbuf_str(&type),
				 strbuf_str(&values), g->n_input - 1);
		}
	}
	strbuf_free(&type);
	strbuf_free(&values);
	edit_touch(s);
	return edit_propagate_shapes(s, err);
oom:
	strbuf_free(&type);
	strbuf_free(&values);
	return ov_fail(err, OV_NOMEM, "out of memory");
}

const struct edit_cmd edit_make_input_cmd = {
	.name = "make-input",
	.usage = "make-input TENSOR",
	.help = "a constant (initializer or Constant node) becomes a graph input of the same dtype and shape",
	.args = {{.kind = EDIT_ARG_TENSOR}},
	.exec = exec_make_input,
};
