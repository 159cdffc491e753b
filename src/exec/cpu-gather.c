/* CPU kernels that index: Gather, GatherElements, GatherND, ScatterElements, ScatterND, Scatter, OneHot, NonZero,
 * Compress, Unique.
 *
 * Every index is checked before anything is read or written through it: an index out of range fails the node with
 * one line naming where it was and its value.  Elements move as bytes of any size (strings as pointers, duplicated
 * at the end by own_strings); only the scatter reductions and the value tests of NonZero/Unique look at them. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/dtype.h"
#include "src/exec/exec.h"

#define MAXR XT_MAX_RANK

/* ---- helpers ---------------------------------------------------------------------------------------------- */

static const struct xtensor *input(const struct exec_kernel_ctx *k, size_t i)
{
	return i < k->n_in ? k->in[i] : NULL;
}

/* Inputs 0..n-1, all required, the first of a dtype the executor stores. */
static int need_inputs(struct exec_kernel_ctx *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!input(k, i))
			return xk_fail(k, "input %zu is missing", i);
	if (!xt_elem_size(k->in[0]->dtype))
		return xk_fail(k, "element type %s is not supported", dtype_name(k->in[0]->dtype));
	return 0;
}

static void strides_of(int rank, const int64_t *d, int64_t *s)
{
	int64_t acc = 1;
	for (int i = rank - 1; i >= 0; i--) {
		s[i] = acc;
		acc *= d[i];
	}
}

static int is_index_type(int32_t dt)
{
	return dt == OV_DT_INT64 || dt == OV_DT_INT32 || dt == OV_DT_INT16 || dt == OV_DT_INT8 || dt == OV_DT_UINT8 ||
	       dt == OV_DT_UINT16 || dt == OV_DT_UINT32 || dt == OV_DT_UINT64;
}

/* Index i of t, made non-negative against dim; fails (naming what, the position and the value) when out of range. */
static int get_index(struct exec_kernel_ctx *k, const struct xtensor *t, int64_t i, int64_t dim, const char *what,
		     int64_t *out)
{
	int64_t v = xt_get_int(t, i);
	int64_t j = v < 0 ? v + dim : v;
	*out = 0;
	if (j < 0 || j >= dim)
		return xk_fail(k, "%s[%" PRId64 "] = %" PRId64 " is out of range for a dim of %" PRId64, what, i, v, dim);
	*out = j;
	return 0;
}

/* ---- Gather ------------------------------------------------------------------------------------------------ */

static int k_gather(struct exec_kernel_ctx *k)
{
	int axis;
	int64_t d[MAXR], *ix;

	if (need_inputs(k, 2))
		return -1;
	const struct xtensor *x = k->in[0], *idx = k->in[1];
	if (!is_index_type(idx->dtype))
		return xk_fail(k, "indices are %s, not an integer type", dtype_name(idx->dtype));
	if (xk_norm_axis(k, xk_attr_int(k, "axis", 0), x->rank, &axis))
		return -1;
	int r = x->rank - 1 + idx->rank, n = 0;
	if (r > MAXR)
		return xk_fail(k, "output rank %d is over the executor's limit of %d", r, MAXR);
	for (int i = 0; i < axis; i++)
		d[n++] = x->dims[i];
	for (int i = 0; i < idx->rank; i++)
		d[n++] = idx->dims[i];
	for (int i = axis + 1; i < x->rank; i++)
		d[n++] = x->dims[i];
	int64_t ni = idx->numel, len = x->dims[axis];
	if (!(ix = malloc((size_t)(ni ? ni : 1) * sizeof *ix)))
		return xk_fail(k, "out of memory");
	for (int64_t i = 0; i < ni; i++)
		if (get_index(k, idx, i, len, "indices", &ix[i])) {
			free(ix);
			return -1;
		}
	if (xk_output(k, 0, x->dtype, r, d)) {
		free(ix);
		return -1;
	}
	struct xtensor *y = k->out[0];
	size_t es = xt_elem_size(x->dtype);
	int64_t outer = xk_numel(axis, x->dims), inner = xk_numel(x->rank - axis - 1, x->dims + axis + 1);
	size_t blk = (size_t)inner * es;
	char *o = y->data;
	if (y->numel)
		for (int64_t b = 0; b < outer; b++)
			for (int64_t i = 0; i < ni; i++, o += blk)
				memcpy(o, (const char *)x->data + (size_t)(b * len + ix[i]) * blk, blk);
	free(ix);
	return xk_own_strings(k, y);
}

/* Walk the elements of idx (shape dims, rank r) and, for each, the offset in a tensor of strides xs where axis
 * takes the index value instead of the position: the common loop of GatherElements and ScatterElements. Calls
 * fn(k, ctx, position, offset) and stops at the first failure. */
typedef int (*elem_fn)(struct exec_kernel_ctx *k, void *ctx, int64_t pos, int64_t off);

static int walk_elements(struct exec_kernel_ctx *k, const struct xtensor *idx, const int64_t *xdims, int axis,
			 elem_fn fn, void *ctx)
{
	int r = idx->rank;
	int64_t xs[MAXR], pos[MAXR] = {0};

	strides_of(r, xdims, xs);
	for (int64_t p = 0; p < idx->numel; p++) {
		int64_t j, off = 0;
		if (get_index(k, idx, p, xdims[axis], "indices", &j))
			return -1;
		for (int a = 0; a < r; a++)
			off += (a == axis ? j : pos[a]) * xs[a];
		if (fn(k, ctx, p, off))
			return -1;
		for (int a = r - 1; a >= 0; a--) {
			if (++pos[a] < idx->dims[a])
				break;
			pos[a] = 0;
		}
	}
	return 0;
}

/* idx must have x's rank and, off the axis, dims no larger than x's. */
static int check_element_indices(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *idx,
				 int axis)
{
	if (!is_index_type(idx->dtype))
		return xk_fail(k, "indices are %s, not an integer type", dtype_name(idx->dtype));
	if (idx->rank != x->rank)
		return xk_fail(k, "indices have rank %d, data rank %d", idx->rank, x->rank);
	for (int a = 0; a < x->rank; a++)
		if (a != axis && idx->dims[a] > x->dims[a])
			return xk_fail(k, "indices dim %d is %" PRId64 ", over the data's %" PRId64, a, idx->dims[a],
				       x->dims[a]);
	return 0;
}

struct gather_el {
	const char *src;
	char *dst;
	size_t es;
};

static int gather_el_one(struct exec_kernel_ctx *k, void *ctx, int64_t pos, int64_t off)
{
	struct gather_el *g = ctx;
	memcpy(g->dst + (size_t)pos * g->es, g->src + (size_t)off * g->es, g->es);
	return 0;
}

static int k_gather_elements(struct exec_kernel_ctx *k)
{
	int axis;

	if (need_inputs(k, 2))
		return -1;
	const struct xtensor *x = k->in[0], *idx = k->in[1];
	if (x->rank == 0)
		return xk_fail(k, "GatherElements on a scalar");
	if (xk_norm_axis(k, xk_attr_int(k, "axis", 0), x->rank, &axis) || check_element_indices(k, x, idx, axis))
		return -1;
	if (xk_output(k, 0, x->dtype, idx->rank, idx->dims))
		return -1;
	struct gather_el g = {x->data, k->out[0]->data, xt_elem_size(x->dtype)};
	if (walk_elements(k, idx, x->dims, axis, gather_el_one, &g))
		return -1;
	return xk_own_strings(k, k->out[0]);
}

/* GatherND and ScatterND: the index tuples of idx ([..., last]) as element offsets into data, each the start of a
 * slice of 'slice' elements.  batch_dims leading dims are shared by data and indices. */
static int nd_offsets(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *idx, int64_t b,
		      int64_t **offs, int64_t *n_tuples, int64_t *slice)
{
	int q = idx->rank;

	*offs = NULL;
	if (!is_index_type(idx->dtype))
		return xk_fail(k, "indices are %s, not an integer type", dtype_name(idx->dtype));
	if (q < 1)
		return xk_fail(k, "indices must have rank 1 or more");
	if (b < 0 || b >= q || b > x->rank)
		return xk_fail(k, "batch_dims %" PRId64 " is out of range for ranks %d and %d", b, x->rank, q);
	int64_t last = idx->dims[q - 1];
	if (last > x->rank - b)
		return xk_fail(k, "index tuples of %" PRId64 " for data of rank %d (batch_dims %" PRId64 ")", last,
			       x->rank, b);
	for (int64_t a = 0; a < b; a++)
		if (idx->dims[a] != x->dims[a])
			return xk_fail(k, "batch dim %" PRId64 ": indices have %" PRId64 ", data %" PRId64, a,
				       idx->dims[a], x->dims[a]);
	int64_t xs[MAXR];
	strides_of(x->rank, x->dims, xs);
	int64_t batches = xk_numel((int)b, x->dims), per = xk_numel(q - 1 - (int)b, idx->dims + b);
	int64_t nt = batches * per;
	*slice = xk_numel(x->rank - (int)(b + last), x->dims + b + last);
	*n_tuples = nt;
	if (!(*offs = malloc((size_t)(nt ? nt : 1) * sizeof **offs)))
		return xk_fail(k, "out of memory");
	int64_t xbatch = b ? xs[b - 1] : 0;
	for (int64_t t = 0; t < nt; t++) {
		int64_t off = (t / (per ? per : 1)) * xbatch;
		for (int64_t m = 0; m < last; m++) {
			int64_t j;
			if (get_index(k, idx, t * last + m, x->dims[b + m], "indices", &j)) {
				free(*offs);
				*offs = NULL;
				return -1;
			}
			off += j * xs[b + m];
		}
		(*offs)[t] = off;
	}
	return 0;
}

static int k_gather_nd(struct exec_kernel_ctx *k)
{
	int64_t b = xk_attr_int(k, "batch_dims", 0), *offs, nt, slice, d[MAXR];

	if (need_inputs(k, 2))
		return -1;
	const struct xtensor *x = k->in[0], *idx = k->in[1];
	if (nd_offsets(k, x, idx, b, &offs, &nt, &slice))
		return -1;
	int n = 0;
	int64_t last = idx->dims[idx->rank - 1];
	for (int i = 0; i < idx->rank - 1; i++)
		d[n++] = idx->dims[i];
	for (int64_t i = b + last; i < x->rank; i++) {
		if (n >= MAXR) {
			free(offs);
			return xk_fail(k, "output rank is over the executor's limit of %d", MAXR);
		}
		d[n++] = x->dims[i];
	}
	if (xk_output(k, 0, x->dtype, n, d)) {
		free(offs);
		return -1;
	}
	size_t es = xt_elem_size(x->dtype), blk = (size_t)slice * es;
	for (int64_t t = 0; t < nt && blk; t++)
		memcpy((char *)k->out[0]->data + (size_t)t * blk, (const char *)x->data + (size_t)offs[t] * es, blk);
	free(offs);
	return xk_own_strings(k, k->out[0]);
}

/* ---- scatters ------------------------------------------------------------------------------------------------ */

enum reduction { RED_NONE, RED_ADD, RED_MUL, RED_MAX, RED_MIN };

static int get_reduction(struct exec_kernel_ctx *k, const struct xtensor *x, enum reduction *r)
{
	char b[16];
	xk_attr_str(k, "reduction", "none", b, sizeof b);
	if (!strcmp(b, "none"))
		*r = RED_NONE;
	else if (!strcmp(b, "add"))
		*r = RED_ADD;
	else if (!strcmp(b, "mul"))
		*r = RED_MUL;
	else if (!strcmp(b, "max"))
		*r = RED_MAX;
	else if (!strcmp(b, "min"))
		*r = RED_MIN;
	else
		return xk_fail(k, "unknown reduction '%s'", b);
	if (*r != RED_NONE && (x->dtype == OV_DT_STRING || x->dtype == OV_DT_BOOL))
		return xk_fail(k, "reduction '%s' on %s", b, dtype_name(x->dtype));
	return 0;
}

#define COMBINE(T)                                                                    \
	do {                                                                          \
		T *a = (T *)y->data + yi, v = ((const T *)u->data)[ui];               \
		switch (red) {                                                        \
		case RED_NONE: *a = v; break;                                         \
		case RED_ADD: *a = (T)(*a + v); break;                                \
		case RED_MUL: *a = (T)(*a * v); break;                                \
		case RED_MAX: *a = *a > v ? *a : v; break;                            \
		case RED_MIN: *a = *a < v ? *a : v; break;                            \
		}                                                                     \
	} while (0)

/* y[yi] = reduce(y[yi], u[ui]); integer add/mul wrap like the reference (done unsigned, so without UB). */
static void combine(struct xtensor *y, int64_t yi, const struct xtensor *u, int64_t ui, enum reduction red)
{
	if (red == RED_NONE) {
		size_t es = xt_elem_size(y->dtype);
		memcpy((char *)y->data + (size_t)yi * es, (const char *)u->data + (size_t)ui * es, es);
		return;
	}
	switch (y->dtype) {
	case OV_DT_FLOAT: COMBINE(float); return;
	case OV_DT_DOUBLE: COMBINE(double); return;
	case OV_DT_UINT8: COMBINE(uint8_t); return;
	case OV_DT_UINT16: COMBINE(uint16_t); return;
	case OV_DT_UINT32: COMBINE(uint32_t); return;
	case OV_DT_UINT64: COMBINE(uint64_t); return;
	default: break;
	}
	if (y->dtype == OV_DT_INT8 || y->dtype == OV_DT_INT16 || y->dtype == OV_DT_INT32 || y->dtype == OV_DT_INT64) {
		int64_t a = xt_get_int(y, yi), v = xt_get_int(u, ui), r = a;
		switch (red) {
		case RED_NONE: r = v; break;
		case RED_ADD: r = (int64_t)((uint64_t)a + (uint64_t)v); break;
		case RED_MUL: r = (int64_t)((uint64_t)a * (uint64_t)v); break;
		case RED_MAX: r = a > v ? a : v; break;
		case RED_MIN: r = a < v ? a : v; break;
		}
		switch (y->dtype) {
		case OV_DT_INT8: ((int8_t *)y->data)[yi] = (int8_t)r; break;
		case OV_DT_INT16: ((int16_t *)y->data)[yi] = (int16_t)r; break;
		case OV_DT_INT32: ((int32_t *)y->data)[yi] = (int32_t)r; break;
		default: ((int64_t *)y->data)[yi] = r; break;
		}
		return;
	}
	/* float16, bfloat16: in float */
	double a = xt_get(y, yi), v = xt_get(u, ui), r = a;
	switch (red) {
	case RED_NONE: r = v; break;
	case RED_ADD: r = (float)a + (float)v; break;
	case RED_MUL: r = (float)a * (float)v; break;
	case RED_MAX: r = a > v ? a : v; break;
	case RED_MIN: r = a < v ? a : v; break;
	}
	xt_set(y, yi, r);
}

/* The output starts as a byte copy of data (string pointers borrowed until own_strings). */
static int start_from_data(struct exec_kernel_ctx *k, const struct xtensor *x)
{
	if (xk_output(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	if (x->bytes)
		memcpy(k->out[0]->data, x->data, x->bytes);
	return 0;
}

struct scatter_el {
	struct xtensor *y;
	const struct xtensor *u;
	enum reduction red;
};

static int scatter_el_one(struct exec_kernel_ctx *k, void *ctx, int64_t pos, int64_t off)
{
	struct scatter_el *s = ctx;
	combine(s->y, off, s->u, pos, s->red);
	return 0;
}

static int k_scatter_elements(struct exec_kernel_ctx *k)
{
	int axis;
	enum reduction red;

	if (need_inputs(k, 3))
		return -1;
	const struct xtensor *x = k->in[0], *idx = k->in[1], *u = k->in[2];
	if (x->rank == 0)
		return xk_fail(k, "scatter into a scalar");
	if (xk_norm_axis(k, xk_attr_int(k, "axis", 0), x->rank, &axis) || check_element_indices(k, x, idx, axis) ||
	    get_reduction(k, x, &red))
		return -1;
	if (u->dtype != x->dtype)
		return xk_fail(k, "updates are %s, data %s", dtype_name(u->dtype), dtype_name(x->dtype));
	if (u->rank != idx->rank || memcmp(u->dims, idx->dims, (size_t)u->rank * sizeof u->dims[0]))
		return xk_fail(k, "updates and indices have different shapes");
	/* indices are all checked first, so a failure leaves nothing half-written to explain */
	for (int64_t p = 0; p < idx->numel; p++) {
		int64_t j;
		if (get_index(k, idx, p, x->dims[axis], "indices", &j))
			return -1;
	}
	if (start_from_data(k, x))
		return -1;
	struct scatter_el s = {k->out[0], u, red};
	if (walk_elements(k, idx, x->dims, axis, scatter_el_one, &s))
		return -1;
	return xk_own_strings(k, k->out[0]);
}

static int k_scatter_nd(struct exec_kernel_ctx *k)
{
	int64_t *offs, nt, slice;
	enum reduction red;

	if (need_inputs(k, 3))
		return -1;
	const struct xtensor *x = k->in[0], *idx = k->in[1], *u = k->in[2];
	if (get_reduction(k, x, &red))
		return -1;
	if (u->dtype != x->dtype)
		return xk_fail(k, "updates are %s, data %s", dtype_name(u->dtype), dtype_name(x->dtype));
	if (nd_offsets(k, x, idx, 0, &offs, &nt, &slice))
		return -1;
	/* updates: indices.shape[:-1] + data.shape[last:] */
	int64_t last = idx->dims[idx->rank - 1];
	int ur = idx->rank - 1 + x->rank - (int)last, ok = u->rank == ur;
	for (int i = 0; ok && i < idx->rank - 1; i++)
		ok = u->dims[i] == idx->dims[i];
	for (int i = 0; ok && i < x->rank - last; i++)
		ok = u->dims[idx->rank - 1 + i] == x->dims[last + i];
	if (!ok) {
		free(offs);
		return xk_fail(k, "updates have the wrong shape for these indices and data");
	}
	if (start_from_data(k, x)) {
		free(offs);
		return -1;
	}
	for (int64_t t = 0; t < nt; t++)
		for (int64_t e = 0; e < slice; e++)
			combine(k->out[0], offs[t] + e, u, t * slice + e, red);
	free(offs);
	return xk_own_strings(k, k->out[0]);
}

/* ---- OneHot, NonZero, Compress --------------------------------------------------------------------------------- */

static int k_onehot(struct exec_kernel_ctx *k)
{
	int64_t d[MAXR];
	int axis;

	if (need_inputs(k, 3))
		return -1;
	const struct xtensor *idx = k->in[0], *dp = k->in[1], *v = k->in[2];
	if (dp->numel != 1)
		return xk_fail(k, "depth must be a single value");
	if (v->numel != 2)
		return xk_fail(k, "values must have two elements (off, on), got %" PRId64, v->numel);
	if (!xt_elem_size(v->dtype))
		return xk_fail(k, "element type %s is not supported", dtype_name(v->dtype));
	double dd = xt_get(dp, 0);
	if (!(dd >= 1) || dd > (double)(1ll << 40))
		return xk_fail(k, "depth %g is not a usable size", dd);
	int64_t depth = (int64_t)dd;
	int r = idx->rank + 1;
	if (r > MAXR)
		return xk_fail(k, "output rank %d is over the executor's limit of %d", r, MAXR);
	if (xk_norm_axis(k, xk_attr_int(k, "axis", -1), r, &axis))
		return -1;
	for (int i = 0, j = 0; i < r; i++)
		d[i] = i == axis ? depth : idx->dims[j++];
	if (xk_output(k, 0, v->dtype, r, d))
		return -1;
	struct xtensor *y = k->out[0];
	size_t es = xt_elem_size(v->dtype);
	const char *off = v->data, *on = (const char *)v->data + es;
	for (int64_t i = 0; i < y->numel; i++)
		memcpy((char *)y->data + (size_t)i * es, off, es);
	int64_t S = xk_numel(idx->rank - axis, idx->dims + axis), P = xk_numel(axis, idx->dims);
	for (int64_t p = 0; p < P; p++)
		for (int64_t s = 0; s < S; s++) {
			int64_t c = xt_get_int(idx, p * S + s);
			if (c < 0)
				c += depth;
			if (c < 0 || c >= depth) /* out of range: the row stays all 'off' */
				continue;
			memcpy((char *)y->data + (size_t)((p * depth + c) * S + s) * es, on, es);
		}
	return xk_own_strings(k, y);
}

static int nonzero_at(const struct xtensor *x, int64_t i)
{
	if (x->dtype == OV_DT_STRING) {
		const char *s = ((char *const *)x->data)[i];
		return s && *s;
	}
	return xt_get(x, i) != 0;
}

static int k_nonzero(struct exec_kernel_ctx *k)
{
	if (need_inputs(k, 1))
		return -1;
	const struct xtensor *x = k->in[0];
	int64_t nnz = 0, d[2], pos[MAXR] = {0};
	for (int64_t i = 0; i < x->numel; i++)
		nnz += nonzero_at(x, i);
	/* a scalar counts as a 1-element vector, as numpy and onnxruntime do */
	int r = x->rank ? x->rank : 1;
	d[0] = r;
	d[1] = nnz;
	if (xk_output(k, 0, OV_DT_INT64, 2, d))
		return -1;
	int64_t *y = k->out[0]->data, c = 0;
	for (int64_t i = 0; i < x->numel; i++) {
		if (nonzero_at(x, i)) {
			for (int a = 0; a < x->rank; a++)
				y[a * nnz + c] = pos[a];
			c++;
		}
		for (int a = x->rank - 1; a >= 0; a--) {
			if (++pos[a] < x->dims[a])
				break;
			pos[a] = 0;
		}
	}
	return 0;
}

static int k_compress(struct exec_kernel_ctx *k)
{
	int64_t d[MAXR];
	int axis = -1;

	if (need_inputs(k, 2))
		return -1;
	const struct xtensor *x = k->in[0], *cond = k->in[1];
	if (cond->rank != 1)
		return xk_fail(k, "condition must be 1-D, got rank %d", cond->rank);
	int64_t outer = 1, len = x->numel, inner = 1;
	int has_axis = 0;
	{
		/* the axis attribute, when given (absent: the flattened input) */
		const Onnx__NodeProto *n = k->g->nodes[k->node].proto;
		for (size_t a = 0; a < n->n_attribute; a++)
			if (n->attribute[a]->name && !strcmp(n->attribute[a]->name, "axis"))
				has_axis = 1;
	}
	if (has_axis) {
		if (xk_norm_axis(k, xk_attr_int(k, "axis", 0), x->rank, &axis))
			return -1;
		outer = xk_numel(axis, x->dims);
		len = x->dims[axis];
		inner = xk_numel(x->rank - axis - 1, x->dims + axis + 1);
	}
	int64_t n = cond->numel < len ? cond->numel : len, kept = 0;
	for (int64_t i = 0; i < n; i++)
		kept += xt_get(cond, i) != 0;
	int r;
	if (has_axis) {
		memcpy(d, x->dims, sizeof d);
		d[axis] = kept;
		r = x->rank;
	} else {
		d[0] = kept;
		r = 1;
	}
	if (xk_output(k, 0, x->dtype, r, d))
		return -1;
	size_t es = xt_elem_size(x->dtype), blk = (size_t)inner * es;
	char *o = k->out[0]->data;
	if (k->out[0]->numel)
		for (int64_t b = 0; b < outer; b++)
			for (int64_t i = 0; i < n; i++)
				if (xt_get(cond, i) != 0) {
					memcpy(o, (const char *)x->data + (size_t)(b * len + i) * blk, blk);
					o += blk;
				}
	return xk_own_strings(k, k->out[0]);
}

/* ---- Unique ------------------------------------------------------------------------------------------------------ */

struct items {
	const struct xtensor *x;
	int64_t outer, n, inner;
};

static int cmp_elem(const struct xtensor *x, int64_t a, int64_t b)
{
	switch (x->dtype) {
	case OV_DT_STRING: {
		const char *s = ((char *const *)x->data)[a], *t = ((char *const *)x->data)[b];
		return strcmp(s ? s : "", t ? t : "");
	}
	case OV_DT_INT64: case OV_DT_INT32: case OV_DT_INT16: case OV_DT_INT8: {
		int64_t u = xt_get_int(x, a), v = xt_get_int(x, b);
		return u < v ? -1 : u > v;
	}
	case OV_DT_UINT64: {
		uint64_t u = ((const uint64_t *)x->data)[a], v = ((const uint64_t *)x->data)[b];
		return u < v ? -1 : u > v;
	}
	default: {
		double u = xt_get(x, a), v = xt_get(x, b);
		if (u != u || v != v) /* NaN after every number, all NaNs equal (numpy's order) */
			return (u != u) - (v != v);
		return u < v ? -1 : u > v;
	}
	}
}

/* Items i and j (slices along the axis) compared lexicographically. */
static int cmp_items(const struct items *it, int64_t i, int64_t j)
{
	for (int64_t o = 0; o < it->outer; o++)
		for (int64_t e = 0; e < it->inner; e++) {
			int c = cmp_elem(it->x, (o * it->n + i) * it->inner + e, (o * it->n + j) * it->inner + e);
			if (c)
				return c;
		}
	return 0;
}

/* Stable merge sort of indices by item, ties by index (so the first occurrence leads each group). */
static void sort_items(const struct items *it, int64_t *a, int64_t *tmp, int64_t n)
{
	if (n < 2)
		return;
	int64_t h = n / 2;
	sort_items(it, a, tmp, h);
	sort_items(it, a + h, tmp, n - h);
	int64_t i = 0, j = h, t = 0;
	while (i < h && j < n)
		tmp[t++] = cmp_items(it, a[j], a[i]) < 0 ? a[j++] : a[i++];
	while (i < h)
		tmp[t++] = a[i++];
	while (j < n)
		tmp[t++] = a[j++];
	memcpy(a, tmp, (size_t)n * sizeof *a);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t u = *(const int64_t *)a, v = *(const int64_t *)b;
	return u < v ? -1 : u > v;
}

static int k_unique(struct exec_kernel_ctx *k)
{
	int axis = -1, rc = -1;
	int sorted = (int)xk_attr_int(k, "sorted", 1);

	if (need_inputs(k, 1))
		return -1;
	const struct xtensor *x = k->in[0];
	struct items it = {x, 1, x->numel, 1};
	const Onnx__NodeProto *nd = k->g->nodes[k->node].proto;
	for (size_t a = 0; a < nd->n_attribute; a++)
		if (nd->attribute[a]->name && !strcmp(nd->attribute[a]->name, "axis")) {
			if (xk_norm_axis(k, xk_attr_int(k, "axis", 0), x->rank, &axis))
				return -1;
			it.outer = xk_numel(axis, x->dims);
			it.n = x->dims[axis];
			it.inner = xk_numel(x->rank - axis - 1, x->dims + axis + 1);
		}
	if (axis >= 0 && x->numel == 0 && it.n)
		return xk_fail(k, "Unique along an axis of empty slices");
	int64_t n = it.n;
	int64_t *order = malloc((size_t)(n ? n : 1) * sizeof *order), *tmp = malloc((size_t)(n ? n : 1) * sizeof *tmp);
	int64_t *first = malloc((size_t)(n ? n : 1) * 2 * sizeof *first), *group = malloc((size_t)(n ? n : 1) * sizeof *group);
	int64_t *count = malloc((size_t)(n ? n : 1) * sizeof *count);
	if (!order || !tmp || !first || !group || !count) {
		xk_fail(k, "out of memory");
		goto out;
	}
	for (int64_t i = 0; i < n; i++)
		order[i] = i;
	sort_items(&it, order, tmp, n);
	int64_t ng = 0;
	for (int64_t i = 0; i < n; i++) {
		if (!i || cmp_items(&it, order[i - 1], order[i])) {
			first[ng] = order[i];
			count[ng] = 0;
			ng++;
		}
		group[order[i]] = ng - 1;
		count[ng - 1]++;
	}
	/* rank[g]: the output position of group g (sorted order, or order of first occurrence) */
	int64_t *rank = tmp;
	if (sorted)
		for (int64_t g = 0; g < ng; g++)
			rank[g] = g;
	else {
		/* pairs (first index, group) sorted by first index */
		int64_t *pairs = first + n;
		for (int64_t g = 0; g < ng; g++)
			pairs[g] = first[g];
		qsort(pairs, (size_t)ng, sizeof *pairs, cmp_i64);
		/* the first index identifies its group: map back through group[] */
		for (int64_t p = 0; p < ng; p++)
			rank[group[pairs[p]]] = p;
	}
	int64_t d[MAXR];
	int r = axis >= 0 ? x->rank : 1;
	if (axis >= 0) {
		memcpy(d, x->dims, sizeof d);
		d[axis] = ng;
	} else
		d[0] = ng;
	if (xk_output(k, 0, x->dtype, r, d))
		goto out;
	size_t es = xt_elem_size(x->dtype), blk = (size_t)it.inner * es;
	struct xtensor *y = k->out[0];
	if (y->numel)
		for (int64_t g = 0; g < ng; g++)
			for (int64_t o = 0; o < it.outer; o++)
				memcpy((char *)y->data + (size_t)(o * ng + rank[g]) * blk,
				       (const char *)x->data + (size_t)(o * n + first[g]) * blk, blk);
	if (xk_own_strings(k, y))
		goto out;
	if (k->n_out > 1) {
		if (xk_output(k, 1, OV_DT_INT64, 1, &ng))
			goto out;
		for (int64_t g = 0; g < ng; g++)
			((int64_t *)k->out[1]->data)[rank[g]] = first[g];
	}
	if (k->n_out > 2) {
		if (xk_output(k, 2, OV_DT_INT64, 1, &n))
			goto out;
		for (int64_t i = 0; i < n; i++)
			((int64_t *)k->out[2]->data)[i] = rank[group[i]];
	}
	if (k->n_out > 3) {
		if (xk_output(k, 3, OV_DT_INT64, 1, &ng))
			goto out;
		for (int64_t g = 0; g < ng; g++)
			((int64_t *)k->out[3]->data)[rank[g]] = count[g];
	}
	rc = 0;
out:
	free(order);
	free(tmp);
	free(first);
	free(group);
	free(count);
	return rc;
}

const struct exec_kernel cpu_gather_kernels[] = {
	{"Gather", 1, k_gather},
	{"GatherElements", 11, k_gather_elements},
	{"GatherND", 11, k_gather_nd},
	{"Scatter", 9, k_scatter_elements},
	{"ScatterElements", 11, k_scatter_elements},
	{"ScatterND", 11, k_scatter_nd},
	{"OneHot", 9, k_onehot},
	{"NonZero", 9, k_nonzero},
	{"Compress", 9, k_compress},
	{"Unique", 11, k_unique},
};
const size_t cpu_gather_count = sizeof cpu_gather_kernels / sizeof cpu_gather_kernels[0];
