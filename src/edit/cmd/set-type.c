/* set-type VALUE DTYPE: declare the element type of a graph input, output or inner value, and carry a new input
 * type into the declarations it flows into. */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "src/model/describe.h"
#include "src/base/dtype.h"
#include "src/edit/internal.h"
#include "src/graph/opdb.h"
#include "src/base/strbuf.h"

/* "tensor(float16)": how op schemas spell a tensor type. */
static void type_string(char *buf, size_t n, int32_t dt)
{
	size_t k = (size_t)snprintf(buf, n, "tensor(%s)", dtype_name(dt));

	for (size_t i = 7; i < k && i < n; i++)
		buf[i] = (char)tolower((unsigned char)buf[i]);
}

/* The declarations (graph outputs, value_info) that onnxview computes follow the new element types; skip is a
 * value whose declaration was just set by hand. */
static void follow_dtypes(struct edit_session *s, const char *skip)
{
	Onnx__GraphProto *g = s->m->proto->graph;
	struct ov_error err;
	struct strbuf before = {0}, after = {0};

	if (edit_index(s, &err))
		return;
	for (int pass = 0; pass < 2; pass++) {
		Onnx__ValueInfoProto **v = pass ? g->output : g->value_info;
		size_t n = pass ? g->n_output : g->n_value_info;
		for (size_t i = 0; i < n; i++) {
			Onnx__TypeProto *tp = v[i]->type;
			if (!v[i]->name || (skip && !strcmp(v[i]->name, skip)) || !tp ||
			    tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type->has_elem_type)
				continue;
			int32_t id = graph_value_id(s->g, v[i]->name);
			const struct vshape *inf = id >= 0 ? shapes_get(s->sh, s->g, id) : NULL;
			if (!inf || inf->source != SHAPE_INFERRED || !inf->dtype || inf->dtype == tp->tensor_type->elem_type)
				continue;
			strbuf_reset(&before);
			strbuf_reset(&after);
			describe_type(&before, tp);
			tp->tensor_type->elem_type = inf->dtype;
			describe_type(&after, tp);
			edit_say(s, "declared '%s': %s -> %s", v[i]->name, strbuf_str(&before), strbuf_str(&after));
		}
	}
	strbuf_free(&before);
	strbuf_free(&after);
}

/* The formal parameter of schema sch that input slot takes (the last one repeats when it is variadic). */
static const struct op_formal *formal_of(const struct op_schema *sch, size_t slot)
{
	if (slot < sch->n_inputs)
		return &sch->inputs[slot];
	if (sch->n_inputs && sch->inputs[sch->n_inputs - 1].option == OP_FORMAL_VARIADIC)
		return &sch->inputs[sch->n_inputs - 1];
	return NULL;
}

/* Say where the new type breaks a consumer's type constraint: a type the op does not take, or one that differs
 * from another input bound to the same type parameter (Conv's X and W are both T). */
static void warn_consumers(struct edit_session *s, const char *name, int32_t dt)
{
	struct ov_error err;
	char want[64], label[300];

	if (edit_index(s, &err))
		return;
	int32_t id = graph_value_id(s->g, name);
	if (id < 0)
		return;
	type_string(want, sizeof want, dt);
	const struct graph_value *v = &s->g->values[id];
	for (uint32_t u = 0; u < v->n_uses; u++) {
		uint32_t ni = v->uses[u].node, slot = v->uses[u].slot;
		const Onnx__NodeProto *n = s->g->nodes[ni].proto;
		const struct op_schema *sch = edit_node_schema(s, n);
		const struct op_formal *f = sch ? formal_of(sch, slot) : NULL;
		const struct op_type_constraint *tc = f ? op_schema_constraint(sch, f->type_str) : NULL;
		if (!f)
			continue;
		edit_node_label(label, sizeof label, n, ni);
		if (!tc) {
			if (strcmp(f->type_str, want))
				edit_say(s, "warning: %s: input '%s' of %s-%d is %s, not %s", label, f->name, sch->name,
					 sch->since_version, f->type_str, want);
			continue;
		}
		int allowed = 0;
		for (size_t k = 0; k < tc->n_allowed && !allowed; k++)
			allowed = !strcmp(tc->allowed[k], want);
		if (!allowed) {
			edit_say(s, "warning: %s: %s-%d does not take %s for input '%s' (%s)", label, sch->name,
				 sch->since_version, dtype_short_name(dt), f->name, tc->param);
			continue;
		}
		for (size_t k = 0; k < n->n_input; k++) {
			const struct op_formal *fk = formal_of(sch, k);
			int32_t other = s->g->nodes[ni].in[k];
			if (k == slot || other < 0 || other == id || !fk || strcmp(fk->type_str, f->type_str))
				continue;
			const struct vshape *o = shapes_get(s->sh, s->g, other);
			if (o && o->dtype && o->dtype != dt) {
				edit_say(s, "warning: %s: '%s' is now %s but '%s' is %s (%s-%d takes one type for %s)", label,
					 name, dtype_short_name(dt), s->g->values[other].name, dtype_short_name(o->dtype),
					 sch->name, sch->since_version, f->type_str);
				break;
			}
		}
	}
}

static int exec_set_type(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	const char *name = a->v[0].text;
	Onnx__ValueInfoProto *decl[8];
	struct strbuf before = {0}, after = {0}, inferred = {0};
	int computed = 0, rc = -1;
	int32_t id = a->v[0].value;
	const struct graph_value *v = &s->g->values[id];
	int is_input = v->origin == VALUE_INPUT;
	if (v->origin == VALUE_INITIALIZER)
		return ov_fail(err, OV_INVALID, "'%s' is an initializer: its type is that of its data (use set-tensor)",
			       name);
	if (v->origin == VALUE_CONSTANT)
		return ov_fail(err, OV_INVALID, "'%s' is the output of Constant #%d: its type is that of the constant "
			       "(use set-tensor)", name, v->producer);
	int dt = a->v[1].dtype;
	size_t n_decl = edit_declarations(s, name, decl, 8);
	if (n_decl > 8)
		n_decl = 8;
	for (size_t k = 0; k < n_decl; k++)
		if (decl[k]->type && decl[k]->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
		    decl[k]->type->value_case != ONNX__TYPE_PROTO__VALUE__NOT_SET) {
			describe_type(&before, decl[k]->type);
			ov_fail(err, OV_INVALID, "'%s' is declared as %s, not a tensor: set-type declares tensor element "
				"types", name, strbuf_str(&before));
			goto out;
		}
	/* A computed value: its declared type feeds nothing downstream; one that contradicts the graph is worth
	 * saying. */
	const struct vshape *inf = shapes_get(s->sh, s->g, id);
	if (!is_input && inf && inf->source == SHAPE_INFERRED && inf->dtype) {
		computed = 1;
		if (inf->dtype != dt)
			shape_describe(&inferred, inf);
	}
	if (edit_declare_for_change(s, name, dt, decl, &n_decl, &before, err))
		goto out;
	for (size_t k = 0; k < n_decl; k++)
		if (edit_tensor_type(s, decl[k], dt)) {
			ov_fail(err, OV_NOMEM, "out of memory");
			goto out;
		}
	describe_type(&after, decl[0]->type);
	edit_say(s, "'%s': %s -> %s", name, strbuf_str(&before), strbuf_str(&after));
	if (computed) {
		if (inferred.len)
			edit_say(s, "warning: onnxview computes %s for '%s' from the graph; the declaration now disagrees "
				 "(onnxview check reports the conflict)", strbuf_str(&inferred), name);
		edit_touch(s);
	} else {
		if (edit_propagate_shapes(s, err))
			goto out;
		follow_dtypes(s, is_input ? NULL : name);
		warn_consumers(s, name, dt);
	}
	rc = 0;
out:
	strbuf_free(&before);
	strbuf_free(&after);
	strbuf_free(&inferred);
	return rc;
}

const struct edit_cmd edit_set_type_cmd = {
	.name = "set-type",
	.usage = "set-type VALUE DTYPE",
	.help = "declare the element type of a graph input, output or inner value (float32, float16, int64...)",
	.args = {{.kind = EDIT_ARG_VALUE}, {.kind = EDIT_ARG_DTYPE}},
	.exec = exec_set_type,
};
