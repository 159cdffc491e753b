/* Declarations of values in the main graph (graph inputs, outputs, value_info): finding them, giving a value one,
 * and setting the declared type, shape and dims.  Used by set-dim, set-shape, set-type, set-tensor, add-output,
 * make-input and make-constant. */
#include "config.h"

#include <string.h>

#include "src/model/describe.h"
#include "src/edit/internal.h"
#include "src/base/strbuf.h"

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

size_t edit_declarations(struct edit_session *s, const char *name, Onnx__ValueInfoProto **out, size_t max)
{
	Onnx__GraphProto *g = s->m->proto->graph;
	size_t n = 0;

	for (int pass = 0; pass < 3; pass++) {
		Onnx__ValueInfoProto **v = pass == 0 ? g->input : pass == 1 ? g->output : g->value_info;
		size_t nv = pass == 0 ? g->n_input : pass == 1 ? g->n_output : g->n_value_info;
		for (size_t i = 0; i < nv; i++)
			if (v[i]->name && !strcmp(v[i]->name, name)) {
				if (n < max)
					out[n] = v[i];
				n++;
			}
	}
	return n;
}

int edit_declare_for_change(struct edit_session *s, const char *name, int32_t dtype, Onnx__ValueInfoProto **decl,
			    size_t *n_decl, struct strbuf *before, struct ov_error *err)
{
	if (*n_decl) {
		describe_type(before, decl[0]->type);
		return 0;
	}
	strbuf_puts(before, "? (not declared)");
	if (!(decl[0] = edit_add_value_info(s, name, dtype)))
		return ov_fail(err, OV_NOMEM, "out of memory");
	*n_decl = 1;
	return 0;
}

Onnx__ValueInfoProto *edit_add_value_info(struct edit_session *s, const char *name, int32_t dtype)
{
	Onnx__GraphProto *g = s->m->proto->graph;
	Onnx__ValueInfoProto *vi = s->m->alloc.alloc(s->m->alloc.allocator_data, sizeof *vi);
	Onnx__ValueInfoProto **na;

	if (!vi)
		return NULL;
	onnx__value_info_proto__init(vi);
	vi->name = edit_strdup(s, name);
	if (!vi->name || edit_tensor_type(s, vi, dtype) ||
	    !(na = edit_array_grow(s, g->value_info, g->n_value_info, sizeof *na))) {
		protobuf_c_message_free_unpacked(&vi->base, &s->m->alloc);
		return NULL;
	}
	g->value_info = na;
	g->value_info[g->n_value_info++] = vi;
	return vi;
}

int edit_tensor_type(struct edit_session *s, Onnx__ValueInfoProto *vi, int32_t dtype)
{
	if (!vi->type) {
		Onnx__TypeProto *tp = s->m->alloc.alloc(s->m->alloc.allocator_data, sizeof *tp);
		if (!tp)
			return -1;
		onnx__type_proto__init(tp);
		vi->type = tp;
	}
	if (vi->type->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET) {
		Onnx__TypeProto__Tensor *tt = s->m->alloc.alloc(s->m->alloc.allocator_data, sizeof *tt);
		if (!tt)
			return -1;
		onnx__type_proto__tensor__init(tt);
		vi->type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
		vi->type->tensor_type = tt;
	}
	if (dtype > 0) {
		vi->type->tensor_type->has_elem_type = 1;
		vi->type->tensor_type->elem_type = dtype;
	}
	return 0;
}

int edit_set_declared_shape(struct edit_session *s, Onnx__TypeProto__Tensor *tt, size_t rank, const int64_t *value,
			    char *const *sym)
{
	ProtobufCAllocator *a = &s->m->alloc;
	Onnx__TensorShapeProto *sh = tt->shape;

	if (!sh) {
		if (!(sh = a->alloc(a->allocator_data, sizeof *sh)))
			return -1;
		onnx__tensor_shape_proto__init(sh);
		tt->shape = sh;
	}
	if (rank > sh->n_dim) {
		Onnx__TensorShapeProto__Dimension **nd = a->alloc(a->allocator_data, rank * sizeof *nd);
		if (!nd)
			return -1;
		if (sh->n_dim)
			memcpy(nd, sh->dim, sh->n_dim * sizeof *nd);
		for (size_t i = sh->n_dim; i < rank; i++) {
			if (!(nd[i] = a->alloc(a->allocator_data, sizeof **nd))) {
				while (i-- > sh->n_dim)
					a->free(a->allocator_data, nd[i]);
				a->free(a->allocator_data, nd);
				return -1;
			}
			onnx__tensor_shape_proto__dimension__init(nd[i]);
		}
		if (sh->dim)
			a->free(a->allocator_data, sh->dim);
		sh->dim = nd;
		sh->n_dim = rank;
	} else {
		/* Dims beyond the new rank go; the ones kept keep their denotation. */
		while (sh->n_dim > rank)
			protobuf_c_message_free_unpacked(&sh->dim[--sh->n_dim]->base, a);
	}
	for (size_t i = 0; i < rank; i++)
		if (edit_set_declared_dim(s, sh->dim[i], value[i], sym[i]))
			return -1;
	return 0;
}

static void *m_alloc(struct edit_session *s, size_t n)
{
	return s->m->alloc.alloc(s->m->alloc.allocator_data, n ? n : 1);
}

Onnx__TypeProto *edit_new_tensor_type(struct edit_session *s, int32_t dtype, const int64_t *dims, size_t rank)
{
	Onnx__TypeProto *tp = m_alloc(s, sizeof *tp);
	Onnx__TypeProto__Tensor *tt;
	Onnx__TensorShapeProto *sh;

	if (!tp)
		return NULL;
	onnx__type_proto__init(tp);
	if (!(tt = m_alloc(s, sizeof *tt)))
		goto fail;
	onnx__type_proto__tensor__init(tt);
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	tt->has_elem_type = 1;
	tt->elem_type = dtype;
	if (!(sh = m_alloc(s, sizeof *sh)))
		goto fail;
	onnx__tensor_shape_proto__init(sh);
	tt->shape = sh;
	if (!(sh->dim = m_alloc(s, rank * sizeof *sh->dim)))
		goto fail;
	for (size_t i = 0; i < rank; i++) {
		Onnx__TensorShapeProto__Dimension *d = m_alloc(s, sizeof *d);
		if (!d)
			goto fail;
		onnx__tensor_shape_proto__dimension__init(d);
		d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		d->dim_value = dims[i];
		sh->dim[sh->n_dim++] = d;
	}
	return tp;
fail:
	protobuf_c_message_free_unpacked(&tp->base, &s->m->alloc);
	return NULL;
}
