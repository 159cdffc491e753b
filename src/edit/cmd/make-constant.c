/* make-constant VALUE @FILE|VALUES: a graph input becomes an initializer holding the file's tensor (or the values
 * given), checked against the input's declared dtype and dims; the reverse of make-input. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "src/model/describe.h"
#include "src/base/dtype.h"
#include "src/edit/internal.h"
#include "src/base/strbuf.h"
#include "src/model/tensorfile.h"

/* The declared dims of tp that are numbers, with -1 for symbols and unknown ones; rank -1 when no shape. */
static int declared_dims(const Onnx__TypeProto *tp, int64_t *dims, int max)
{
	const Onnx__TensorShapeProto *sh = tp->tensor_type->shape;

	if (!sh)
		return -1;
	if ((int)sh->n_dim > max)
		return -2;
	for (size_t i = 0; i < sh->n_dim; i++)
		dims[i] = sh->dim[i]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ?
			  sh->dim[i]->dim_value : -1;
	return (int)sh->n_dim;
}

/* The tensor's dims against the declared ones: numbers must agree, symbols and unknown dims take any size. */
static int check_dims(const char *name, const Onnx__TypeProto *tp, const Onnx__TensorProto *t, struct ov_error *err)
{
	int64_t dd[64];
	int rank = declared_dims(tp, dd, 64);
	struct strbuf want = {0}, got = {0};
	int rc = 0;

	if (rank == -1)
		return 0;
	describe_type(&want, tp);
	describe_tensor_type(&got, t);
	if (rank != (int)t->n_dims) {
		rc = ov_fail(err, OV_INVALID, "'%s' is declared %s (%d dims); the tensor is %s (%zu dims)", name,
			     strbuf_str(&want), rank < 0 ? 64 : rank, strbuf_str(&got), t->n_dims);
	} else {
		for (int i = 0; i < rank; i++)
			if (dd[i] >= 0 && dd[i] != t->dims[i]) {
				rc = ov_fail(err, OV_INVALID, "'%s' is declared %s; the tensor is %s: dim %d is %" PRId64
					     ", not %" PRId64, name, strbuf_str(&want), strbuf_str(&got), i, t->dims[i],
					     dd[i]);
				break;
			}
	}
	strbuf_free(&want);
	strbuf_free(&got);
	return rc;
}

/* Values given as text take the declared dtype; the shape is the literal's, or the declared one for a flat list. */
static Onnx__TensorProto *from_text(struct edit_session *s, const char *name, const Onnx__TypeProto *tp,
				    const char *text, struct ov_error *err)
{
	char **items;
	int64_t n, ldims[16], dd[64];
	int lrank;
	Onnx__TensorProto *t = NULL;

	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type->has_elem_type ||
	    !tp->tensor_type->elem_type) {
		ov_fail(err, OV_INVALID, "'%s' has no declared dtype for the values to take: give @FILE.npy or @FILE.pb",
			name);
		return NULL;
	}
	if (edit_parse_list(text, &items, &n, ldims, &lrank, err))
		return NULL;
	int rank = declared_dims(tp, dd, 64);
	const int64_t *dims = ldims;
	size_t r = (size_t)lrank;
	if (lrank == 1 && rank > 1) {
		/* A flat list fills a declared shape whose dims are all numbers. */
		int64_t numel = 1;
		int all = 1;
		for (int i = 0; i < rank; i++) {
			all &= dd[i] >= 0;
			numel *= dd[i] >= 0 ? dd[i] : 1;
		}
		if (all && numel == n) {
			dims = dd;
			r = (size_t)rank;
		}
	}
	t = edit_tensor_from_text(s, tp->tensor_type->elem_type, dims, r, items, n, err);
	edit_free_list(items, n);
	return t;
}

static int exec_make_constant(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	const char *name = a->v[0].text, *value = a->v[1].text;
	Onnx__GraphProto *g = s->m->proto->graph;
	Onnx__ValueInfoProto *vi = a->v[0].decl;
	Onnx__TensorProto *nt = NULL, *init = NULL;
	size_t vi_index = 0;
	struct strbuf desc = {0};

	for (size_t i = 0; i < g->n_input; i++)
		if (g->input[i] == vi)
			vi_index = i;
	for (size_t i = 0; i < g->n_initializer; i++)
		if (g->initializer[i]->name && !strcmp(g->initializer[i]->name, name))
			init = g->initializer[i];
	const Onnx__TypeProto *tp = vi->type;
	if (tp && tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
		return ov_fail(err, OV_INVALID, "'%s' is not declared as a tensor (a sequence, map or optional)", name);

	if (value[0] == '@') {
		if (tensorfile_read(value + 1, &s->m->alloc, &nt, err))
			return -1;
	} else if (!(nt = from_text(s, name, tp, value, err))) {
		return -1;
	}
	if (tp && tp->tensor_type->has_elem_type && tp->tensor_type->elem_type &&
	    tp->tensor_type->elem_type != nt->data_type) {
		ov_fail(err, OV_INVALID, "'%s' is declared %s; the tensor is %s%s", name,
			dtype_short_name(tp->tensor_type->elem_type), dtype_short_name(nt->data_type),
			nt->data_type == OV_DT_DOUBLE || nt->data_type == OV_DT_INT64 ?
			" (numpy's default: convert with .astype() before numpy.save)" : "");
		goto fail;
	}
	if (tp && check_dims(name, tp, nt, err))
		goto fail;
	describe_tensor_type(&desc, nt);
	strbuf_putc(&desc, ' ');
	describe_tensor_values(&desc, s->m, nt, 8);

	if (init) { /* it had a default value: the new data replaces it */
		edit_tensor_take(s, init, nt);
		nt = NULL;
	} else {
		Onnx__TensorProto **na = s->m->alloc.alloc(s->m->alloc.allocator_data,
							   (g->n_initializer + 1) * sizeof *na);
		if (!na || !(nt->name = edit_strdup(s, name))) {
			if (na)
				s->m->alloc.free(s->m->alloc.allocator_data, na);
			ov_fail(err, OV_NOMEM, "out of memory");
			goto fail;
		}
		if (g->n_initializer)
			memcpy(na, g->initializer, g->n_initializer * sizeof *na);
		na[g->n_initializer] = nt;
		if (g->initializer)
			s->m->alloc.free(s->m->alloc.allocator_data, g->initializer);
		g->initializer = na;
		g->n_initializer++;
		nt = NULL;
	}
	/* IR version 3 and older want every initializer listed among the inputs. */
	if (s->m->proto->has_ir_version && s->m->proto->ir_version < 4) {
		edit_say(s, "'%s' = %s is now an initializer (kept among the inputs, as IR version %" PRId64
			 " requires)", name, strbuf_str(&desc), s->m->proto->ir_version);
	} else {
		protobuf_c_message_free_unpacked(&vi->base, &s->m->alloc);
		memmove(g->input + vi_index, g->input + vi_index + 1, (g->n_input - vi_index - 1) * sizeof *g->input);
		g->n_input--;
		edit_say(s, "'%s' = %s is now an initializer (no longer a graph input)", name, strbuf_str(&desc));
	}
	strbuf_free(&desc);
	edit_touch(s);
	return edit_propagate_shapes(s, err);
fail:
	strbuf_free(&desc);
	if (nt)
		protobuf_c_message_free_unpacked(&nt->base, &s->m->alloc);
	return -1;
}

const struct edit_cmd edit_make_constant_cmd = {
	.name = "make-constant",
	.usage = "make-constant VALUE @FILE|VALUES",
	.help = "a graph input becomes an initializer holding the file's tensor (.npy, .pb) or the values given",
	.args = {{.kind = EDIT_ARG_INPUT}, {.kind = EDIT_ARG_DATA}},
	.exec = exec_make_constant,
};
