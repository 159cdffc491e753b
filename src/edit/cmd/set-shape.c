/* set-shape VALUE [d0,d1,...]: declare the whole shape of a graph input, output or inner value; and the helpers
 * that set-type and add-output share with it (declarations of a value, dims as people write them). */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "src/model/describe.h"
#include "src/edit/internal.h"
#include "src/base/strbuf.h"

int edit_parse_dim(const char *text, int64_t *value, const char **sym, struct ov_error *err)
{
	*value = -1;
	*sym = NULL;
	if (!strcmp(text, "?"))
		return 0;
	if (isdigit((unsigned char)text[0]))
		return edit_parse_int(text, value, err);
	if (text[0] == '-')
		return ov_fail(err, OV_USAGE, "a dim cannot be negative (%s); use a name such as 'batch' or ? for a "
			       "dynamic dim", text);
	/* A dim name: letters, digits, '_', '.', '-', not starting with a digit or '-'. */
	int ok = *text != '\0';
	for (const char *p = text; *p && ok; p++)
		ok = isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '-';
	if (!ok)
		return ov_fail(err, OV_USAGE, "'%s' is not a dim: give a number, a name (letters, digits, _), or ?", text);
	*sym = text;
	return 0;
}

void *edit_copy_message(struct edit_session *s, const ProtobufCMessage *msg)
{
	size_t len = protobuf_c_message_get_packed_size(msg);
	uint8_t *buf = malloc(len ? len : 1);
	ProtobufCMessage *copy;

	if (!buf)
		return NULL;
	protobuf_c_message_pack(msg, buf);
	copy = protobuf_c_message_unpack(msg->descriptor, &s->m->alloc, len, buf);
	free(buf);
	return copy;
}

void *edit_array_grow(struct edit_session *s, void *old, size_t n, size_t size)
{
	char *na = s->m->alloc.alloc(s->m->alloc.allocator_data, (n + 1) * size);

	if (!na)
		return NULL;
	if (n)
		memcpy(na, old, n * size);
	if (old)
		s->m->alloc.free(s->m->alloc.allocator_data, old);
	return na;
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

static int is_tensor_type(const Onnx__ValueInfoProto *vi)
{
	return vi->type && vi->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && vi->type->tensor_type;
}

/* The text of a list item: "batch" (quoted) becomes batch. */
static char *unquote(const char *t)
{
	size_t n = strlen(t);

	if (n >= 2 && t[0] == '"' && t[n - 1] == '"')
		return strndup(t + 1, n - 2);
	return strdup(t);
}

static int exec_set_shape(struct edit_session *s, int argc, char **argv, struct ov_error *err)
{
	const char *name = argv[1];
	char **items = NULL, **sym = NULL;
	int64_t n = 0, ldims[16], *value = NULL, old_dims[SHAPE_MAX_RANK];
	int lrank, rc = -1, old_rank = -1, computed = 0, agrees = 1, is_input;
	struct strbuf before = {0}, after = {0}, inferred = {0};
	Onnx__ValueInfoProto *decl[8];

	(void)argc;
	int32_t id = edit_value(s, name, err);
	if (id < 0)
		return -1;
	const struct graph_value *v = &s->g->values[id];
	is_input = v->origin == VALUE_INPUT;
	if (v->origin == VALUE_INITIALIZER)
		return ov_fail(err, OV_INVALID, "'%s' is an initializer: its shape is that of its data (use set-tensor)",
			       name);
	if (v->origin == VALUE_CONSTANT)
		return ov_fail(err, OV_INVALID, "'%s' is the output of Constant #%d: its shape is that of the constant "
			       "(use set-tensor)", name, v->producer);
	if (edit_parse_list(argv[2], &items, &n, ldims, &lrank, err))
		return -1;
	if (lrank != 1) {
		ov_fail(err, OV_USAGE, "'%s' is not a shape: give the dims in brackets, as [1,3,224,224] ([] for a "
			"scalar)", argv[2]);
		goto out;
	}
	if (n > SHAPE_MAX_RANK) {
		ov_fail(err, OV_INVALID, "%lld dims: onnxview handles up to %d", (long long)n, SHAPE_MAX_RANK);
		goto out;
	}
	value = calloc((size_t)n + 1, sizeof *value);
	sym = calloc((size_t)n + 1, sizeof *sym);
	if (!value || !sym) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	for (int64_t i = 0; i < n; i++) {
		const char *ds;
		if (!(sym[i] = unquote(items[i]))) {
			ov_fail(err, OV_NOMEM, "out of memory");
			goto out;
		}
		if (edit_parse_dim(sym[i], &value[i], &ds, err)) {
			ov_wrap(err, "dim %lld: ", (long long)i);
			goto out;
		}
		if (!ds) {
			free(sym[i]);
			sym[i] = NULL;
		}
	}

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
	for (int64_t i = 0; sym && i < n; i++)
		free(sym[i]);
	free(sym);
	free(value);
	edit_free_list(items, n);
	strbuf_free(&before);
	strbuf_free(&after);
	strbuf_free(&inferred);
	return rc;
}

const struct edit_cmd edit_set_shape_cmd = {
	"set-shape", "set-shape VALUE [d0,d1,...]",
	"declare the shape of a graph input, output or inner value; each dim a number, a name (dynamic) or ?",
	2, 2, 0, exec_set_shape,
};
