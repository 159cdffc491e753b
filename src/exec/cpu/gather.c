/* CPU kernels that index: Gather, GatherElements, GatherND, ScatterElements, ScatterND, Scatter, OneHot, NonZero,
 * Compress, Unique.
 *
 * Every index is checked before anything is read or written through it (the gathers' and scatters' checks, and
 * their indices resolved to data offsets, are ops/index.c's, which the CUDA kernels share): an index out of range
 * fails the node with one line naming where it was and its value.  Elements move as bytes of any size (strings as pointers, duplicated
 * at the end by own_strings); only the scatter reductions and the value tests of NonZero/Unique look at them. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/exec.h"
#include "src/exec/ops/index.h"

#define MAXR XT_MAX_RANK

/* ---- helpers ---------------------------------------------------------------------------------------------- */

/* Inputs 0..n-1, all required, the first of a dtype the executor stores. */
static int need_inputs(struct exec_kernel_ctx *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!xk_in(k, i))
			return xk_fail(k, "input %zu is missing", i);
	if (!xt_elem_size(k->in[0]->dtype))
		return xk_fail(k, "element type %s is not supported", dtype_name(k->in[0]->dtype));
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
	if (!ops_is_index_type(idx->dtype))
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
		if (ops_index_at(k, idx, i, len, "indices", &ix[i])) {
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

/* ---- GatherElements, GatherND: unit t of the output is slice elements of data from offs[t] ---------------------- */

static int gather_run(struct exec_kernel_ctx *k, int nd)
{
	struct index_geom p;

	if (need_inputs(k, 2) || ops_gather_setup(k, nd, ops_host_input, &p))
		return -1;
	const struct xtensor *x = k->in[0];
	if (xk_output(k, 0, x->dtype, p.rank, p.dims)) {
		free(p.offs);
		return -1;
	}
	size_t es = xt_elem_size(x->dtype), blk = (size_t)p.slice * es;
	for (int64_t t = 0; t < p.n && blk; t++)
		memcpy((char *)k->out[0]->data + (size_t)t * blk, (const char *)x->data + (size_t)p.offs[t] * es, blk);
	free(p.offs);
	return xk_own_strings(k, k->out[0]);
}

static int k_gather_elements(struct exec_kernel_ctx *k) { return gather_run(k, 0); }
static int k_gather_nd(struct exec_kernel_ctx *k) { return gather_run(k, 1); }

/* ---- scatters: the output starts as data; unit t of the updates folds into it from offs[t], in order ----------- */

static int scatter_run(struct exec_kernel_ctx *k, int nd)
{
	struct index_geom p;

	if (need_inputs(k, 3) || ops_scatter_setup(k, nd, ops_host_input, &p))
		return -1;
	const struct xtensor *x = k->in[0], *u = k->in[2];
	/* a byte copy of data (string pointers borrowed until own_strings) */
	if (xk_output(k, 0, x->dtype, x->rank, x->dims)) {
		free(p.offs);
		return -1;
	}
	struct xtensor *y = k->out[0];
	if (x->bytes)
		memcpy(y->data, x->data, x->bytes);
	size_t es = xt_elem_size(x->dtype);
	/* a reduction on a type ov_scatter_combine does not take (complex, float8) leaves data as it is, as this
	 * kernel always has */
	if (p.red != OV_SCATTER_NONE && !ov_scatter_red_type(x->dtype))
		p.n = 0;
	/* without a reduction each unit is one contiguous run on both sides, copied whole, in order (it went element by
	 * element: a ScatterND of 32 rows of 6400 floats took 0.67 ms, eleven times onnxruntime's) */
	if (p.red == OV_SCATTER_NONE) {
		size_t run = (size_t)p.slice * es;
		for (int64_t t = 0; t < p.n && run; t++)
			memcpy((char *)y->data + (size_t)p.offs[t] * es, (const char *)u->data + (size_t)t * run, run);
		p.n = 0;
	}
	for (int64_t t = 0; t < p.n; t++)
		for (int64_t e = 0; e < p.slice; e++) {
			int64_t yi = p.offs[t] + e, ui = t * p.slice + e;
			if (p.red == OV_SCATTER_NONE)
				memcpy((char *)y->data + (size_t)yi * es, (const char *)u->data + (size_t)ui * es, es);
			else
				ov_scatter_combine(y->data, yi, u->data, ui, x->dtype, p.red);
		}
	free(p.offs);
	return xk_own_strings(k, y);
}

static int k_scatter_elements(struct exec_kernel_ctx *k) { return scatter_run(k, 0); }
static int k_scatter_nd(struct exec_kernel_ctx *k) { return scatter_run(k, 1); }

/* ---- OneHot, NonZero, Compress --------------------------------------------------------------------------------- */

static int k_onehot(struct exec_kernel_ctx *k)
{
	int64_t d[MAXR], depth;
	int axis, r;

	if (need_inputs(k, 3) || ops_onehot_setup(k, ops_host_input, &depth, &axis, &r, d))
		return -1;
	const struct xtensor *idx = k->in[0], *v = k->in[2];
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

/* ---- EyeLike, ReverseSequence ------------------------------------------------------------------------------------ */

static int k_eye_like(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	int64_t kk = xk_attr_int(k, "k", 0);
	int32_t dt;

	if (ops_eye_like_setup(k, &dt) || xk_output(k, 0, dt, 2, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	int64_t rows = x->dims[0], cols = x->dims[1];
	if (kk >= cols || kk <= -rows) /* the diagonal misses the matrix (and i + k could overflow) */
		return 0;
	for (int64_t i = 0; i < rows; i++) {
		int64_t j = i + kk;
		if (j >= 0 && j < cols)
			xt_set(y, i * cols + j, 1);
	}
	return 0;
}

static int k_reverse_sequence(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0), *sl = xk_in(k, 1);
	int64_t B, T;
	int ba;

	if (ops_reverse_sequence_setup(k, ops_host_input, &ba, &B, &T) || xk_output(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	size_t es = xt_elem_size(x->dtype);
	int64_t inner = 1;
	for (int a = 2; a < x->rank; a++)
		inner *= x->dims[a];
	size_t blk = (size_t)inner * es;
	for (int64_t b = 0; b < B && y->numel; b++) {
		int64_t L = xt_get_int(sl, b);
		for (int64_t t = 0; t < T; t++) {
			int64_t src_t = t < L ? L - 1 - t : t;
			int64_t oi = ba == 0 ? b * T + t : t * B + b, si = ba == 0 ? b * T + src_t : src_t * B + b;
			memcpy((char *)y->data + (size_t)oi * blk, (const char *)x->data + (size_t)si * blk, blk);
		}
	}
	return xk_own_strings(k, y);
}

const struct exec_kernel cpu_gather_kernels[] = {
	{.op = "Gather", .since = 1, .fn = k_gather},
	{.op = "GatherElements", .since = 11, .fn = k_gather_elements},
	{.op = "GatherND", .since = 11, .fn = k_gather_nd},
	{.op = "Scatter", .since = 9, .fn = k_scatter_elements},
	{.op = "ScatterElements", .since = 11, .fn = k_scatter_elements},
	{.op = "ScatterND", .since = 11, .fn = k_scatter_nd},
	{.op = "OneHot", .since = 9, .fn = k_onehot},
	{.op = "NonZero", .since = 9, .fn = k_nonzero},
	{.op = "Compress", .since = 9, .fn = k_compress},
	{.op = "Unique", .since = 11, .fn = k_unique},
	{.op = "EyeLike", .since = 9, .fn = k_eye_like},
	{.op = "ReverseSequence", .since = 10, .fn = k_reverse_sequence},
};
const size_t cpu_gather_count = sizeof cpu_gather_kernels / sizeof cpu_gather_kernels[0];
