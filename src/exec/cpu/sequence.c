/* CPU sequences and optionals: the Sequence* ops, SplitToSequence, ConcatFromSequence, Optional, OptionalHasElement,
 * OptionalGetElement, Identity on them, and SequenceMap (its body run per element through xk_run_subgraph).
 *
 * A sequence or optional is an xtensor of kind XT_SEQUENCE or XT_OPTIONAL (src/exec/xtensor.h).  The runner hands
 * one to a kernel only when cpu_takes_containers() says the op takes them; the kernels here check each input's
 * kind themselves, so a tensor where a sequence belongs (or the reverse) is one clear line, never a crash.
 * Positions follow ONNX: SequenceAt and SequenceErase accept [-n, n-1], SequenceInsert [-n, n] (n: insert at the
 * end); a negative position counts from the back; anything else fails naming the position and the length. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/exec.h"

/* ---- inputs and outputs ---- */

static const struct xtensor *in_kind(struct exec_kernel_ctx *k, size_t i, int kind, int optional)
{
	const struct xtensor *t = i < k->n_in ? k->in[i] : NULL;

	if (!t) {
		if (!optional)
			xk_fail(k, "input %zu (a %s) is missing", i, xt_kind_name(kind));
		return NULL;
	}
	if (t->kind != kind) {
		xk_fail(k, "input %zu is a %s; the op takes a %s there", i, xt_kind_name(t->kind), xt_kind_name(kind));
		return NULL;
	}
	return t;
}

static const struct xtensor *need_seq(struct exec_kernel_ctx *k, size_t i)
{
	return in_kind(k, i, XT_SEQUENCE, 0);
}

static const struct xtensor *need_tensor(struct exec_kernel_ctx *k, size_t i)
{
	return in_kind(k, i, XT_TENSOR, 0);
}

/* Output i made a sequence or optional of n empty items, for the caller to fill. */
static struct xtensor *out_items(struct exec_kernel_ctx *k, size_t i, enum xt_kind kind, int32_t dtype, int64_t n)
{
	if (i >= k->n_out) {
		xk_fail(k, "the node has %zu outputs; the op's output %zu is missing", k->n_out, i);
		return NULL;
	}
	xt_free(k->out[i]);
	if (xt_alloc_items(k->out[i], kind, dtype, n, k->err))
		return NULL;
	return xt_items(k->out[i]);
}

/* Output i a deep copy of t (any kind). */
static int out_copy(struct exec_kernel_ctx *k, size_t i, const struct xtensor *t)
{
	if (i >= k->n_out)
		return xk_fail(k, "the node has %zu outputs; the op's output %zu is missing", k->n_out, i);
	xt_free(k->out[i]);
	return xt_copy(k->out[i], t, k->err);
}

/* A scalar position input (int32 or int64) as a number. */
static int position_value(struct exec_kernel_ctx *k, const struct xtensor *p, int64_t *out)
{
	if (p->kind != XT_TENSOR || (p->dtype != OV_DT_INT64 && p->dtype != OV_DT_INT32) || p->numel != 1)
		return xk_fail(k, "the position must be an int32 or int64 scalar");
	*out = xt_get_int(p, 0);
	return 0;
}

/* pos in [-n, n - 1] (or [-n, n] for an insertion) made non-negative; fails naming it otherwise. */
static int norm_position(struct exec_kernel_ctx *k, int64_t pos, int64_t n, int insert, int64_t *out)
{
	int64_t hi = insert ? n : n - 1;

	if (pos < -n || pos > hi) {
		if (n == 0 && !insert)
			return xk_fail(k, "position %" PRId64 " is out of range: the sequence is empty", pos);
		return xk_fail(k, "position %" PRId64 " is out of range for a sequence of %" PRId64 " (accepted: %" PRId64
			       " to %" PRId64 ")", pos, n, -n, hi);
	}
	*out = pos < 0 ? pos + n : pos;
	return 0;
}

/* The element type a TypeProto names, for a sequence's or optional's tensors (0 when it does not say). */
static int32_t type_elem(const Onnx__TypeProto *tp)
{
	for (int depth = 0; tp && depth < 8; depth++) {
		switch (tp->value_case) {
		case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
			return tp->tensor_type && tp->tensor_type->has_elem_type ? tp->tensor_type->elem_type : 0;
		case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
			tp = tp->sequence_type ? tp->sequence_type->elem_type : NULL;
			break;
		case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
			tp = tp->optional_type ? tp->optional_type->elem_type : NULL;
			break;
		default:
			return 0;
		}
	}
	return 0;
}

/* ---- the sequence ops ---- */

static int k_sequence_empty(struct exec_kernel_ctx *k)
{
	int32_t dt = (int32_t)xk_attr_int(k, "dtype", OV_DT_FLOAT);

	return out_items(k, 0, XT_SEQUENCE, dt, 0) ? 0 : -1;
}

static int k_sequence_construct(struct exec_kernel_ctx *k)
{
	if (k->n_in < 1)
		return xk_fail(k, "SequenceConstruct takes at least one tensor");
	for (size_t i = 0; i < k->n_in; i++) {
		const struct xtensor *t = need_tensor(k, i);
		if (!t)
			return -1;
		if (t->dtype != k->in[0]->dtype)
			return xk_fail(k, "input %zu is %s, input 0 %s: a sequence holds one element type", i,
				       dtype_short_name(t->dtype), dtype_short_name(k->in[0]->dtype));
	}
	struct xtensor *items = out_items(k, 0, XT_SEQUENCE, k->in[0]->dtype, (int64_t)k->n_in);
	if (!items)
		return -1;
	for (size_t i = 0; i < k->n_in; i++)
		if (xt_copy(&items[i], k->in[i], k->err))
			return -1;
	return 0;
}

static int k_sequence_insert(struct exec_kernel_ctx *k)
{
	const struct xtensor *s = need_seq(k, 0), *t = s ? need_tensor(k, 1) : NULL;
	const struct xtensor *p = k->n_in > 2 ? k->in[2] : NULL;
	int64_t n = s ? s->numel : 0, at = n;

	if (!t)
		return -1;
	if (s->dtype && t->dtype != s->dtype)
		return xk_fail(k, "the tensor is %s, the sequence holds %s", dtype_short_name(t->dtype),
			       dtype_short_name(s->dtype));
	if (p) {
		int64_t pos = 0;
		if (position_value(k, p, &pos) || norm_position(k, pos, n, 1, &at))
			return -1;
	}
	struct xtensor *items = out_items(k, 0, XT_SEQUENCE, t->dtype, n + 1);
	if (!items)
		return -1;
	for (int64_t i = 0, j = 0; i <= n; i++)
		if (xt_copy(&items[i], i == at ? t : &xt_items(s)[j++], k->err))
			return -1;
	return 0;
}

static int k_sequence_at(struct exec_kernel_ctx *k)
{
	const struct xtensor *s = need_seq(k, 0), *p = s ? need_tensor(k, 1) : NULL;
	int64_t pos = 0, at;

	if (!p || position_value(k, p, &pos) || norm_position(k, pos, s->numel, 0, &at))
		return -1;
	return out_copy(k, 0, &xt_items(s)[at]);
}

static int k_sequence_erase(struct exec_kernel_ctx *k)
{
	const struct xtensor *s = need_seq(k, 0);
	const struct xtensor *p = k->n_in > 1 ? k->in[1] : NULL;
	int64_t pos = -1, at;

	if (!s || (p && position_value(k, p, &pos)) || norm_position(k, pos, s->numel, 0, &at))
		return -1;
	struct xtensor *items = out_items(k, 0, XT_SEQUENCE, s->dtype, s->numel - 1);
	if (!items)
		return -1;
	for (int64_t i = 0, j = 0; i < s->numel; i++)
		if (i != at && xt_copy(&items[j++], &xt_items(s)[i], k->err))
			return -1;
	return 0;
}

static int k_sequence_length(struct exec_kernel_ctx *k)
{
	const struct xtensor *s = need_seq(k, 0);

	if (!s || xk_output(k, 0, OV_DT_INT64, 0, NULL))
		return -1;
	*(int64_t *)k->out[0]->data = s->numel;
	return 0;
}

/* Copy the slab [off, off + len) along axis of x into piece (dims already set by the caller). */
static int copy_slab(struct exec_kernel_ctx *k, const struct xtensor *x, int axis, int64_t off, int64_t len,
		     struct xtensor *piece)
{
	size_t es = xt_elem_size(x->dtype);
	int64_t outer = xk_numel(axis, x->dims), inner = xk_numel(x->rank - axis - 1, x->dims + axis + 1);
	size_t chunk = (size_t)(len * inner) * es;

	for (int64_t o = 0; o < outer && chunk; o++)
		memcpy((uint8_t *)piece->data + (size_t)o * chunk,
		       (const uint8_t *)x->data + ((size_t)(o * x->dims[axis] + off) * (size_t)inner) * es, chunk);
	return xk_own_strings(k, piece);
}

static int k_split_to_sequence(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = need_tensor(k, 0);
	const struct xtensor *split = k->n_in > 1 ? k->in[1] : NULL;
	int axis, keep = (int)xk_attr_int(k, "keepdims", 1);
	int64_t *lens = NULL, n = 0;
	int rc = -1;

	if (!x || xk_norm_axis(k, xk_attr_int(k, "axis", 0), x->rank, &axis))
		return -1;
	if (!xt_elem_size(x->dtype))
		return xk_fail(k, "cannot split %s tensors", dtype_short_name(x->dtype));
	int64_t dim = x->dims[axis];
	if (split && (split->kind != XT_TENSOR || (split->dtype != OV_DT_INT64 && split->dtype != OV_DT_INT32) ||
		      split->rank > 1))
		return xk_fail(k, "split must be an int32 or int64 scalar or 1-D tensor");
	if (!split) {
		n = dim;
	} else if (split->rank == 0) {
		int64_t c = xt_get_int(split, 0);
		if (c <= 0)
			return xk_fail(k, "split is %" PRId64 "; a chunk size must be positive", c);
		n = (dim + c - 1) / c;
	} else {
		n = split->numel;
	}
	if (n > XT_MAX_ITEMS)
		return xk_fail(k, "the split makes %" PRId64 " pieces (the most is %d)", n, XT_MAX_ITEMS);
	lens = calloc((size_t)n + 1, sizeof *lens);
	if (!lens)
		return xk_fail(k, "out of memory");
	int64_t sum = 0;
	for (int64_t i = 0; i < n; i++) {
		if (!split)
			lens[i] = 1;
		else if (split->rank == 0)
			lens[i] = i < n - 1 || dim % xt_get_int(split, 0) == 0 ? xt_get_int(split, 0) : dim % xt_get_int(split, 0);
		else if ((lens[i] = xt_get_int(split, i)) < 0) {
			/* the spec says positive, but ONNX's own test_sequence_model8 splits off empty parts: so do we */
			xk_fail(k, "split[%" PRId64 "] is %" PRId64 "; lengths are >= 0", i, lens[i]);
			goto out;
		}
		sum += lens[i];
	}
	if (sum != dim) {
		xk_fail(k, "the split lengths add up to %" PRId64 ", axis %d has %" PRId64, sum, axis, dim);
		goto out;
	}
	struct xtensor *items = out_items(k, 0, XT_SEQUENCE, x->dtype, n);
	if (!items)
		goto out;
	for (int64_t i = 0, off = 0; i < n; off += lens[i++]) {
		int64_t dims[XT_MAX_RANK];
		int r = 0;
		for (int d = 0; d < x->rank; d++) {
			if (d == axis && !split && !keep)
				continue; /* keepdims 0 drops the axis, only when split is not given */
			dims[r++] = d == axis ? lens[i] : x->dims[d];
		}
		if (xt_alloc_value(&items[i], x->dtype, r, dims, 0, k->err) ||
		    copy_slab(k, x, axis, off, lens[i], &items[i]))
			goto out;
	}
	rc = 0;
out:
	free(lens);
	return rc;
}

static int k_concat_from_sequence(struct exec_kernel_ctx *k)
{
	const struct xtensor *s = need_seq(k, 0);
	int new_axis = (int)xk_attr_int(k, "new_axis", 0), axis;

	if (!s)
		return -1;
	if (xk_attr_int(k, "axis", INT64_MIN) == INT64_MIN)
		return xk_fail(k, "the axis attribute is required");
	if (s->numel == 0)
		return xk_fail(k, "the sequence is empty: nothing to concatenate");
	const struct xtensor *it = xt_items(s), *e0 = &it[0];
	int rank = e0->rank + (new_axis != 0);
	if (rank > XT_MAX_RANK)
		return xk_fail(k, "rank %d is over the executor's limit", rank);
	if (!xt_elem_size(e0->dtype))
		return xk_fail(k, "cannot concatenate %s tensors", dtype_short_name(e0->dtype));
	if (xk_norm_axis(k, xk_attr_int(k, "axis", 0), rank, &axis))
		return -1;
	if (!new_axis && e0->rank == 0)
		return xk_fail(k, "cannot concatenate scalars (new_axis 1 stacks them)");
	/* every element seen with the new unit axis inserted when new_axis is set */
	int64_t dims[XT_MAX_RANK];
	for (int64_t i = 0; i < s->numel; i++) {
		const struct xtensor *e = &it[i];
		int64_t ed[XT_MAX_RANK];
		for (int d = 0, j = 0; d < rank; d++)
			ed[d] = new_axis && d == axis ? 1 : e->dims[j++];
		if (e->dtype != e0->dtype || e->rank != e0->rank)
			return xk_fail(k, "element %" PRId64 " is %s rank %d, element 0 %s rank %d", i,
				       dtype_short_name(e->dtype), e->rank, dtype_short_name(e0->dtype), e0->rank);
		for (int d = 0; d < rank; d++) {
			if (i == 0)
				dims[d] = ed[d];
			else if (d == axis)
				dims[d] += ed[d];
			else if (dims[d] != ed[d])
				return xk_fail(k, "element %" PRId64 " has %" PRId64 " on axis %d, element 0 %" PRId64, i,
					       ed[d], d, dims[d]);
		}
	}
	if (xk_output_raw(k, 0, e0->dtype, rank, dims))
		return -1;
	struct xtensor *y = k->out[0];
	size_t es = xt_elem_size(e0->dtype);
	int64_t outer = xk_numel(axis, dims), inner = xk_numel(rank - axis - 1, dims + axis + 1);
	size_t row = (size_t)(dims[axis] * inner) * es, off = 0;
	for (int64_t i = 0; i < s->numel; i++) {
		const struct xtensor *e = &it[i];
		size_t chunk = (size_t)((new_axis ? 1 : e->dims[axis]) * inner) * es;
		for (int64_t o = 0; o < outer && chunk; o++)
			memcpy((uint8_t *)y->data + (size_t)o * row + off, (const uint8_t *)e->data + (size_t)o * chunk, chunk);
		off += chunk;
	}
	return xk_own_strings(k, y);
}

/* ---- optionals ---- */

static int k_optional(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in > 0 ? k->in[0] : NULL;
	const Onnx__NodeProto *n = k->g->nodes[k->node].proto;
	int32_t dt = 0;

	if (x && x->kind == XT_OPTIONAL)
		return xk_fail(k, "the input is already an optional");
	for (size_t a = 0; !x && a < n->n_attribute; a++)
		if (n->attribute[a]->name && !strcmp(n->attribute[a]->name, "type"))
			dt = type_elem(n->attribute[a]->tp);
	struct xtensor *items = out_items(k, 0, XT_OPTIONAL, x ? x->dtype : dt, x ? 1 : 0);
	if (!items)
		return -1;
	return x ? xt_copy(&items[0], x, k->err) : 0;
}

static int k_optional_has_element(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in > 0 ? k->in[0] : NULL;

	if (k->opset < 18 && !x)
		return xk_fail(k, "OptionalHasElement (opset %" PRId64 ") needs its input (opset 18 takes none)", k->opset);
	if (xk_output(k, 0, OV_DT_BOOL, 0, NULL))
		return -1;
	/* a missing input is an empty optional, a tensor or sequence a full one: opset 18 says so, and earlier models
	 * rely on it too (ONNX's own test_loop16_seq_none hands a Loop-carried sequence to an opset-16 node) */
	*(uint8_t *)k->out[0]->data = x && (x->kind != XT_OPTIONAL || x->numel > 0);
	return 0;
}

static int k_optional_get_element(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in > 0 ? k->in[0] : NULL;

	if (!x)
		return xk_fail(k, "input 0 is missing");
	if (x->kind != XT_OPTIONAL)
		return out_copy(k, 0, x); /* opset 18's rule, taken for earlier ones as OptionalHasElement does */
	if (!x->numel)
		return xk_fail(k, "the optional is empty");
	return out_copy(k, 0, &xt_items(x)[0]);
}

/* Identity on a sequence or optional (tensors go to the elementwise family's kernel). */
static int k_identity(struct exec_kernel_ctx *k)
{
	if (k->n_in < 1 || !k->in[0])
		return xk_fail(k, "input 0 is missing");
	return out_copy(k, 0, k->in[0]);
}

/* ---- SequenceMap ---- */

static int k_sequence_map(struct exec_kernel_ctx *k)
{
	const struct graph_node *nd = &k->g->nodes[k->node];
	const struct graph *body = NULL;
	const struct xtensor *s = need_seq(k, 0);
	int rc = -1;

	for (uint32_t i = 0; i < nd->n_sub; i++)
		if (nd->sub_attr[i] && !strcmp(nd->sub_attr[i], "body"))
			body = nd->sub[i];
	if (!s)
		return -1;
	if (!body)
		return xk_fail(k, "no body attribute");
	int64_t n = s->numel;
	size_t n_out = body->proto->n_output;
	if (n_out < k->n_out)
		return xk_fail(k, "the body gives %zu outputs, the node has %zu", n_out, k->n_out);
	for (size_t j = 1; j < k->n_in; j++)
		if (k->in[j] && k->in[j]->kind == XT_SEQUENCE && k->in[j]->numel != n)
			return xk_fail(k, "input %zu is a sequence of %" PRId64 ", input 0 of %" PRId64
				       ": they are mapped together", j, k->in[j]->numel, n);
	const struct xtensor **args = calloc(k->n_in + 1, sizeof *args);
	struct xtensor *res = calloc(n_out + 1, sizeof *res);
	if (!args || !res) {
		xk_fail(k, "out of memory");
		goto out;
	}
	for (size_t o = 0; o < k->n_out; o++)
		if (!out_items(k, o, XT_SEQUENCE, type_elem(body->proto->output[o]->type), n))
			goto out;
	for (int64_t i = 0; i < n; i++) {
		for (size_t j = 0; j < k->n_in; j++)
			args[j] = k->in[j] && k->in[j]->kind == XT_SEQUENCE ? &xt_items(k->in[j])[i] : k->in[j];
		if (xk_run_subgraph(k, body, args, k->n_in, res))
			goto out;
		for (size_t o = 0; o < n_out; o++) {
			if (o < k->n_out && res[o].kind == XT_TENSOR) {
				xt_items(k->out[o])[i] = res[o];
				k->out[o]->dtype = res[o].dtype;
			} else if (o < k->n_out) {
				xk_fail(k, "the body's output %zu is a %s; SequenceMap collects tensors", o,
					xt_kind_name(res[o].kind));
				for (size_t r = o; r < n_out; r++)
					xt_free(&res[r]);
				goto out;
			} else {
				xt_free(&res[o]);
			}
			memset(&res[o], 0, sizeof res[o]);
		}
	}
	rc = 0;
out:
	free(args);
	free(res);
	return rc;
}

const struct exec_kernel cpu_sequence_kernels[] = {
	{.op = "ConcatFromSequence", .since = 11, .fn = k_concat_from_sequence},
	{.op = "Optional", .since = 15, .fn = k_optional},
	{.op = "OptionalGetElement", .since = 15, .fn = k_optional_get_element},
	{.op = "OptionalHasElement", .since = 15, .fn = k_optional_has_element},
	{.op = "SequenceAt", .since = 11, .fn = k_sequence_at},
	{.op = "SequenceConstruct", .since = 11, .fn = k_sequence_construct},
	{.op = "SequenceEmpty", .since = 11, .fn = k_sequence_empty},
	{.op = "SequenceErase", .since = 11, .fn = k_sequence_erase},
	{.op = "SequenceInsert", .since = 11, .fn = k_sequence_insert},
	{.op = "SequenceLength", .since = 11, .fn = k_sequence_length},
	{.op = "SequenceMap", .since = 17, .fn = k_sequence_map},
	{.op = "SplitToSequence", .since = 11, .fn = k_split_to_sequence},
};
const size_t cpu_sequence_count = sizeof cpu_sequence_kernels / sizeof cpu_sequence_kernels[0];

/* Kernels for sequences and optionals of ops whose tensor kernel lives in another family (cpu_takes_containers in
 * src/exec/cpu/registry.c picks them when a container comes in). */
const struct exec_kernel cpu_container_kernels[] = {
	{.op = "Identity", .since = 1, .fn = k_identity},
};
const size_t cpu_container_count = sizeof cpu_container_kernels / sizeof cpu_container_kernels[0];
