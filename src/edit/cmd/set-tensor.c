/* set-tensor TENSOR VALUES|@FILE: new values for an initializer or a Constant node's tensor. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "src/model/describe.h"
#include "src/base/dtype.h"
#include "src/edit/internal.h"
#include "src/base/strbuf.h"
#include "src/model/tensorfile.h"

#define SUMMARY_VALUES 8

/* Rewrite every declaration of name in the main graph (input, value_info) to the constant's new type. */
static int redeclare(struct edit_session *s, const char *name, const Onnx__TensorProto *t)
{
	Onnx__GraphProto *g = s->m->proto->graph;

	for (int pass = 0; pass < 2; pass++) {
		Onnx__ValueInfoProto **v = pass ? g->value_info : g->input;
		size_t n = pass ? g->n_value_info : g->n_input;
		for (size_t i = 0; i < n; i++) {
			if (!v[i]->name || strcmp(v[i]->name, name))
				continue;
			Onnx__TypeProto *tp = edit_new_tensor_type(s, t->data_type, t->dims, t->n_dims);
			if (!tp)
				return -1;
			struct strbuf before = {0}, after = {0};
			describe_type(&before, v[i]->type);
			describe_type(&after, tp);
			edit_say(s, "declared '%s': %s -> %s", name, strbuf_str(&before), strbuf_str(&after));
			strbuf_free(&before);
			strbuf_free(&after);
			if (v[i]->type)
				protobuf_c_message_free_unpacked(&v[i]->type->base, &s->m->alloc);
			v[i]->type = tp;
		}
	}
	return 0;
}


static int same_dims(const int64_t *a, size_t na, const int64_t *b, size_t nb)
{
	return na == nb && (!na || !memcmp(a, b, na * sizeof *a));
}

/* The literal's nesting must be the tensor's shape, or a flat list of as many values, or one value for a
 * one-element tensor. */
static int check_literal_shape(const char *name, const Onnx__TensorProto *t, int64_t numel, int64_t n,
			       const int64_t *ldims, int lrank, struct ov_error *err)
{
	struct strbuf want = {0}, got = {0};
	int rc = 0;

	describe_tensor_type(&want, t);
	describe_dims(&got, ldims, (size_t)lrank);
	if (n != numel)
		rc = ov_fail(err, OV_INVALID, "'%s' is %s: it takes %" PRId64 " value%s, not %" PRId64, name,
			     strbuf_str(&want), numel, numel == 1 ? "" : "s", n);
	else if (!same_dims(t->dims, t->n_dims, ldims, (size_t)lrank) && lrank != 1 && !(lrank == 0 && numel == 1))
		rc = ov_fail(err, OV_INVALID, "'%s' is %s: the value is nested as %s (nest it as the tensor's shape, "
			     "or give a flat list)", name, strbuf_str(&want), strbuf_str(&got));
	strbuf_free(&want);
	strbuf_free(&got);
	return rc;
}

/* ---- the command ---- */

/* "node #0 'resize0' (Resize)" and up to two more nodes that read name, for warnings. */
static void describe_users(struct strbuf *b, struct edit_session *s, const char *name)
{
	struct ov_error e;

	if (edit_index(s, &e))
		return;
	int32_t id = graph_value_id(s->g, name);
	if (id < 0)
		return;
	const struct graph_value *v = &s->g->values[id];
	for (uint32_t k = 0; k < v->n_uses && k < 3; k++) {
		if (k)
			strbuf_puts(b, ", ");
		edit_node_phrase(b, v->uses[k].node, s->g->nodes[v->uses[k].node].proto);
	}
	if (v->n_uses > 3)
		strbuf_printf(b, " and %u more", v->n_uses - 3);
}

static void summary(struct strbuf *b, struct edit_session *s, const Onnx__TensorProto *t, int with_type)
{
	if (with_type) {
		describe_tensor_type(b, t);
		strbuf_putc(b, ' ');
	}
	describe_tensor_values(b, s->m, t, SUMMARY_VALUES);
}

static int exec_set_tensor(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	const char *name = a->v[0].text, *value = a->v[1].text;
	const struct edit_constant c = a->v[0].constant;
	Onnx__TensorProto *nt = NULL;
	struct strbuf before = {0}, after = {0};
	int rc = -1;
	Onnx__TensorProto *t = c.t;
	int32_t old_dtype = t->data_type;
	size_t old_rank = t->n_dims;
	int64_t old_dims[TENSORFILE_MAX_RANK];
	if (old_rank > TENSORFILE_MAX_RANK)
		return ov_fail(err, OV_LIMIT, "'%s' has more than %d dims", name, TENSORFILE_MAX_RANK);
	if (old_rank)
		memcpy(old_dims, t->dims, old_rank * sizeof *old_dims);
	int64_t numel = tensor_numel(t, err);
	if (numel < 0)
		return ov_wrap(err, "'%s': ", name);
	int external = tensor_is_external(t);

	if (value[0] == '@') {
		if (tensorfile_read(value + 1, &s->m->alloc, &nt, err))
			return -1;
	} else {
		char **items;
		int64_t n, ldims[16];
		int lrank;
		if (edit_parse_list(value, &items, &n, ldims, &lrank, err))
			return -1;
		if (check_literal_shape(name, t, numel, n, ldims, lrank, err)) {
			edit_free_list(items, n);
			return -1;
		}
		nt = edit_tensor_from_text(s, old_dtype, t->dims, t->n_dims, items, n, err);
		edit_free_list(items, n);
		if (!nt)
			return ov_wrap(err, "'%s': ", name);
	}
	int retyped = nt->data_type != old_dtype, reshaped = !same_dims(nt->dims, nt->n_dims, old_dims, old_rank);
	struct strbuf users = {0};
	if (retyped)
		describe_users(&users, s, name);
	summary(&before, s, t, retyped || reshaped);
	edit_tensor_take(s, t, nt);
	nt = NULL;
	summary(&after, s, t, retyped || reshaped);
	if (c.converted)
		edit_say(s, "Constant node #%td: %s rewritten as a 'value' tensor", c.node_index, c.converted_from);
	edit_say(s, "%s: %s -> %s", name, strbuf_str(&before), strbuf_str(&after));
	if (retyped) {
		char was[32];
		snprintf(was, sizeof was, "%s", dtype_short_name(old_dtype));
		edit_say(s, "warning: '%s' was %s and is now %s: %s may not accept that (numpy.save keeps the array's "
			 "dtype: convert with .astype(numpy.%s) before saving)", name, was, dtype_short_name(t->data_type),
			 users.len ? strbuf_str(&users) : "the nodes that use it",
			 old_dtype == OV_DT_BOOL ? "bool_" : tensorfile_npy_descr(old_dtype) ? was : "float32");
	}
	strbuf_free(&users);
	if (external)
		edit_say(s, "'%s' was stored in an external file and is now stored inside the model", name);
	if ((retyped || reshaped) && redeclare(s, name, t)) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	edit_touch(s);
	rc = edit_propagate_shapes(s, err);
out:
	if (nt)
		protobuf_c_message_free_unpacked(&nt->base, &s->m->alloc);
	strbuf_free(&before);
	strbuf_free(&after);
	return rc;
}

const struct edit_cmd edit_set_tensor_cmd = {
	.name = "set-tensor",
	.usage = "set-tensor TENSOR VALUES|@FILE",
	.help = "new values for an initializer or Constant: [1,1,2,2] keeps dtype and shape; @x.npy or @x.pb replaces "
		"them",
	.args = {{.kind = EDIT_ARG_TENSOR}, {.kind = EDIT_ARG_DATA}},
	.exec = exec_set_tensor,
};
