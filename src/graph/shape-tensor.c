/* Shape rules for tensor plumbing: Shape, Reshape, Transpose, Squeeze/Unsqueeze, Concat, Split, Slice, Gather,
 * Expand, Tile, Pad, ConstantOfShape, Range, NonZero, OneHot; folding the small integer tensors they carry. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/graph/shape-rules.h"

static int32_t dtype0(const struct infer_ctx *c)
{
	const struct vshape *v = in_shape(c, 0);
	return v ? v->dtype : 0;
}

int rule_shape(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	struct dim n1[1];

	if (!x || x->rank < 0) {
		set_out(c, 0, OV_DT_INT64, 1, NULL);
		return 0;
	}
	int64_t start = attr_int(c, "start", 0), end = attr_int(c, "end", x->rank);
	if (start < 0)
		start += x->rank;
	if (end < 0)
		end += x->rank;
	start = start < 0 ? 0 : start > x->rank ? x->rank : start;
	end = end < 0 ? 0 : end > x->rank ? x->rank : end;
	int64_t n = end > start ? end - start : 0;
	n1[0] = dim_num(n);
	set_out(c, 0, OV_DT_INT64, 1, n1);
	set_out_vals(c, 0, x->dims + start, n);
	return 0;
}

int rule_size(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);

	set_out(c, 0, OV_DT_INT64, 0, NULL);
	if (x && x->rank >= 0) {
		struct dim p = dim_num(1);
		for (int i = 0; i < x->rank; i++)
			p = dim_num(dim_mul(p.v, x->dims[i].v));
		set_out_vals(c, 0, &p, 1);
	}
	return 0;
}

/* Product of known dims; -1 if any is not a number or the product leaves int64_t. */
static int64_t known_product(const struct dim *d, int n)
{
	int64_t p = 1;

	for (int i = 0; i < n; i++) {
		p = dim_mul(p, d[i].v);
		if (p == DIM_UNKNOWN)
			return -1;
	}
	return p;
}

int rule_reshape(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	const struct dim *sv;
	int64_t n = in_vals(c, 1, &sv);
	int allowzero = (int)attr_int(c, "allowzero", 0);
	struct dim out[SHAPE_MAX_RANK];
	const struct vshape *shp = in_shape(c, 1);

	if (n < 0 || n > SHAPE_MAX_RANK) {
		/* The target rank is still known from the shape input's length. */
		int64_t rank = shp && shp->rank == 1 && dim_known(shp->dims[0]) ? shp->dims[0].v : -1;
		set_out(c, 0, dtype0(c), rank, NULL);
		return infer_note(c, "Reshape target shape is not constant");
	}
	int infer_at = -1;
	for (int64_t i = 0; i < n; i++) {
		out[i] = sv[i];
		if (dim_known(sv[i]) && sv[i].v == 0 && !allowzero)
			out[i] = x && x->rank > i ? x->dims[i] : dim_unknown();
		else if (dim_known(sv[i]) && sv[i].v == -1) {
			if (infer_at >= 0)
				return infer_note(c, "Reshape target has two -1 entries");
			infer_at = (int)i;
			out[i] = dim_unknown();
		} else if (dim_known(sv[i]) && sv[i].v < 0) {
			return infer_note(c, "Reshape target has a negative entry %lld", (long long)sv[i].v);
		}
	}
	if (infer_at >= 0 && x && x->rank >= 0) {
		int64_t total = known_product(x->dims, x->rank), rest = 1;
		int ok = total >= 0;
		for (int64_t i = 0; ok && i < n; i++)
			if (i != infer_at) {
				rest = dim_mul(rest, out[i].v);
				if (rest == DIM_UNKNOWN)
					ok = 0;
			}
		if (ok && rest > 0)
			out[infer_at] = dim_num(total / rest);
		else if (!ok) {
			/* Symbols cancel: [batch, a, b] -> [batch, -1] gives a*b when the other dims are numbers. */
			int64_t pin = 1, pout = 1;
			int syms_match = 1;
			for (int i = 0; i < x->rank && syms_match; i++) {
				if (dim_known(x->dims[i])) {
					pin = dim_mul(pin, x->dims[i].v);
					syms_match = pin != DIM_UNKNOWN;
				} else {
					int found = 0;
					for (int64_t j = 0; j < n; j++)
						if (j != infer_at && !dim_known(out[j]) && out[j].sym && x->dims[i].sym &&
						    !strcmp(out[j].sym, x->dims[i].sym))
							found = 1;
					syms_match = found;
				}
			}
			for (int64_t j = 0; j < n && syms_match; j++)
				if (j != infer_at) {
					if (dim_known(out[j])) {
						pout = dim_mul(pout, out[j].v);
						syms_match = pout != DIM_UNKNOWN;
					} else if (!out[j].sym)
						syms_match = 0;
				}
			if (syms_match && pout > 0)
				out[infer_at] = dim_num(pin / pout);
		}
	}
	set_out(c, 0, dtype0(c), (int)n, out);
	if (x && x->n_val >= 0 && x->val)
		set_out_vals(c, 0, x->val, x->n_val);
	return 0;
}

int rule_flatten(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	struct dim out[2];

	if (!x || x->rank < 0) {
		set_out(c, 0, dtype0(c), 2, NULL);
		return 0;
	}
	int64_t axis = attr_int(c, "axis", 1);
	if (axis < 0)
		axis += x->rank;
	if (axis < 0 || axis > x->rank)
		return infer_note(c, "Flatten axis out of range");
	int64_t a = known_product(x->dims, (int)axis), b = known_product(x->dims + axis, x->rank - (int)axis);
	out[0] = a >= 0 ? dim_num(a) : axis == 1 ? x->dims[0] : dim_unknown();
	out[1] = b >= 0 ? dim_num(b) : (x->rank - axis == 1) ? x->dims[axis] : dim_unknown();
	set_out(c, 0, x->dtype, 2, out);
	return 0;
}

int rule_transpose(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	int64_t perm[SHAPE_MAX_RANK];
	struct dim out[SHAPE_MAX_RANK];

	if (!x || x->rank < 0) {
		set_out(c, 0, dtype0(c), -1, NULL);
		return 0;
	}
	int64_t np = attr_ints(c, "perm", perm, SHAPE_MAX_RANK);
	if (np < 0) {
		np = x->rank;
		for (int i = 0; i < x->rank; i++)
			perm[i] = x->rank - 1 - i;
	}
	if (np != x->rank) {
		set_out(c, 0, x->dtype, x->rank, NULL);
		if (np == ATTR_TOO_MANY)
			return infer_note(c, "perm has more than %d entries for rank %d", SHAPE_MAX_RANK, x->rank);
		return infer_note(c, "perm has %lld entries for rank %d", (long long)np, x->rank);
	}
	for (int i = 0; i < x->rank; i++) {
		int a = norm_axis(c, perm[i], x->rank);
		if (a < 0)
			return -1;
		out[i] = x->dims[a];
	}
	set_out(c, 0, x->dtype, x->rank, out);
	return 0;
}

/* Axes from the 'axes' attribute (before opset 13) or the second input (13+). -1 when unknown (or more than
 * SHAPE_MAX_RANK of them), -2 absent. */
static int64_t get_axes(struct infer_ctx *c, int64_t *axes, int input_from)
{
	if (c->opset >= input_from) {
		if (c->n_in < 2 || !in_shape(c, 1))
			return -2;
		return in_ints(c, 1, axes, SHAPE_MAX_RANK);
	}
	int64_t n = attr_ints(c, "axes", axes, SHAPE_MAX_RANK);
	return n == -1 ? -2 : n < 0 ? -1 : n;
}

int rule_squeeze(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	int64_t axes[SHAPE_MAX_RANK];
	struct dim out[SHAPE_MAX_RANK];
	int drop[SHAPE_MAX_RANK] = {0};

	if (!x || x->rank < 0) {
		set_out(c, 0, dtype0(c), -1, NULL);
		return 0;
	}
	int64_t na = get_axes(c, axes, 13);
	if (na == -1) {
		set_out(c, 0, x->dtype, -1, NULL);
		return infer_note(c, "Squeeze axes are not constant");
	}
	if (na == -2) { /* all dims of size 1 */
		for (int i = 0; i < x->rank; i++) {
			if (!dim_known(x->dims[i])) {
				set_out(c, 0, x->dtype, -1, NULL);
				return infer_note(c, "Squeeze without axes on a symbolic dim");
			}
			drop[i] = x->dims[i].v == 1;
		}
	} else
		for (int64_t i = 0; i < na; i++) {
			int a = norm_axis(c, axes[i], x->rank);
			if (a < 0)
				return -1;
			drop[a] = 1;
		}
	int n = 0;
	for (int i = 0; i < x->rank; i++)
		if (!drop[i])
			out[n++] = x->dims[i];
	set_out(c, 0, x->dtype, n, out);
	if (x->n_val >= 0 && x->val)
		set_out_vals(c, 0, x->val, x->n_val);
	return 0;
}

int rule_unsqueeze(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	int64_t axes[SHAPE_MAX_RANK];
	struct dim out[SHAPE_MAX_RANK];
	int ins[SHAPE_MAX_RANK] = {0};

	int64_t na = get_axes(c, axes, 13);
	if (!x || x->rank < 0 || na < 0) {
		set_out(c, 0, dtype0(c), x && x->rank >= 0 && na >= 0 ? x->rank + (int)na : -1, NULL);
		return na == -1 ? infer_note(c, "Unsqueeze axes are not constant") : 0;
	}
	int64_t r = x->rank + na;
	if (r > SHAPE_MAX_RANK) {
		set_out(c, 0, x->dtype, -1, NULL);
		return infer_note(c, "rank over %d", SHAPE_MAX_RANK);
	}
	for (int64_t i = 0; i < na; i++) {
		int a = norm_axis(c, axes[i], (int)r);
		if (a < 0)
			return -1;
		ins[a] = 1;
	}
	for (int i = 0, k = 0; i < r; i++)
		out[i] = ins[i] ? dim_num(1) : x->dims[k++];
	set_out(c, 0, x->dtype, r, out);
	if (x->n_val >= 0 && x->val)
		set_out_vals(c, 0, x->val, x->n_val);
	return 0;
}

int rule_concat(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	struct dim out[SHAPE_MAX_RANK], vals[SHAPE_FOLD_MAX];
	int64_t nvals = 0;
	int fold = 1;

	if (!x || x->rank < 0) {
		/* Any input with a known rank gives the rank. */
		for (size_t k = 1; k < c->n_in; k++)
			if (in_shape(c, k) && in_shape(c, k)->rank >= 0) {
				set_out(c, 0, in_shape(c, k)->dtype, in_shape(c, k)->rank, NULL);
				return 0;
			}
		set_out(c, 0, dtype0(c), -1, NULL);
		return 0;
	}
	int axis = norm_axis(c, attr_int(c, "axis", 0), x->rank);
	if (axis < 0)
		return -1;
	memcpy(out, x->dims, (size_t)x->rank * sizeof *out);
	out[axis] = dim_num(0);
	for (size_t k = 0; k < c->n_in; k++) {
		const struct vshape *v = in_shape(c, k);
		const struct dim *d;
		if (!v || v->rank != x->rank) {
			out[axis] = dim_unknown();
			fold = 0;
			continue;
		}
		for (int i = 0; i < x->rank; i++)
			if (i != axis && !dim_known(out[i]) && dim_known(v->dims[i]))
				out[i] = v->dims[i];
		out[axis] = dim_num(dim_add(out[axis].v, v->dims[axis].v));
		int64_t n = in_vals(c, k, &d);
		if (n < 0 || nvals + n > SHAPE_FOLD_MAX)
			fold = 0;
		else {
			memcpy(vals + nvals, d, (size_t)n * sizeof *d);
			nvals += n;
		}
	}
	set_out(c, 0, x->dtype, x->rank, out);
	if (fold && x->rank == 1)
		set_out_vals(c, 0, vals, nvals);
	return 0;
}

int rule_split(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	int64_t split[SHAPE_MAX_RANK];
	struct dim out[SHAPE_MAX_RANK];

	if (!x || x->rank < 0) {
		for (size_t k = 0; k < c->n_out; k++)
			set_out(c, k, dtype0(c), -1, NULL);
		return 0;
	}
	int axis = norm_axis(c, attr_int(c, "axis", 0), x->rank);
	if (axis < 0)
		return -1;
	int64_t ns = c->opset >= 13 ? (c->n_in > 1 && in_shape(c, 1) ? in_ints(c, 1, split, SHAPE_MAX_RANK) : -2)
				    : attr_ints(c, "split", split, SHAPE_MAX_RANK);
	if (c->opset < 13)
		ns = ns == -1 ? -2 : ns < 0 ? -1 : ns; /* absent: equal parts; too many to read: unknown */
	memcpy(out, x->dims, (size_t)x->rank * sizeof *out);
	for (size_t k = 0; k < c->n_out; k++) {
		if (ns >= 0 && (size_t)ns == c->n_out)
			out[axis] = dim_num(split[k]);
		else if (ns == -2 && dim_known(x->dims[axis])) {
			/* Equal parts; with num_outputs (18) the last may be smaller. */
			int64_t parts = (int64_t)c->n_out, len = x->dims[axis].v;
			int64_t each = len / parts + (len % parts != 0);
			int64_t start = dim_mul(each, (int64_t)k);
			int64_t sz = start == DIM_UNKNOWN || start >= len ? 0 : (each > len - start ? len - start : each);
			out[axis] = dim_num(sz);
		} else
			out[axis] = dim_unknown();
		set_out(c, k, x->dtype, x->rank, out);
	}
	return 0;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int rule_slice(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	int64_t starts[SHAPE_MAX_RANK], ends[SHAPE_MAX_RANK], axes[SHAPE_MAX_RANK], steps[SHAPE_MAX_RANK];
	struct dim out[SHAPE_MAX_RANK];
	int64_t ns, ne, na, nst;

	if (!x || x->rank < 0) {
		set_out(c, 0, dtype0(c), -1, NULL);
		return 0;
	}
	if (c->opset < 10) {
		ns = attr_ints(c, "starts", starts, SHAPE_MAX_RANK);
		ne = attr_ints(c, "ends", ends, SHAPE_MAX_RANK);
		na = attr_ints(c, "axes", axes, SHAPE_MAX_RANK);
		nst = -2;
	} else {
		ns = in_ints(c, 1, starts, SHAPE_MAX_RANK);
		ne = in_ints(c, 2, ends, SHAPE_MAX_RANK);
		na = c->n_in > 3 && in_shape(c, 3) ? in_ints(c, 3, axes, SHAPE_MAX_RANK) : -2;
		nst = c->n_in > 4 && in_shape(c, 4) ? in_ints(c, 4, steps, SHAPE_MAX_RANK) : -2;
	}
	if (ns < 0 || ne < 0 || ns != ne || na == -1 || nst == -1) {
		set_out(c, 0, x->dtype, x->rank, NULL);
		return infer_note(c, "Slice starts/ends/axes/steps are not constant");
	}
	if ((na >= 0 && na != ns) || (nst >= 0 && nst != ns) || na < -2 || ns > x->rank) {
		set_out(c, 0, x->dtype, x->rank, NULL);
		return infer_note(c, "Slice starts, ends, axes and steps differ in length, or name more axes than %d",
				  x->rank);
	}
	if (na < 0)
		for (int64_t i = 0; i < ns; i++)
			axes[i] = i;
	if (nst < 0)
		for (int64_t i = 0; i < ns; i++)
			steps[i] = 1;
	memcpy(out, x->dims, (size_t)x->rank * sizeof *out);
	/* the folded values are the elements: only when there are as many as the dim says */
	int fold_ok = x->rank == 1 && x->n_val >= 0 && x->val && dim_known(x->dims[0]) && x->dims[0].v == x->n_val;
	int64_t vs = 0, ve = 0, vstep = 1;
	for (int64_t i = 0; i < ns; i++) {
		int a = norm_axis(c, axes[i], x->rank);
		if (a < 0)
			return -1;
		if (steps[i] == 0)
			return infer_note(c, "Slice step is 0");
		if (!dim_known(x->dims[a])) {
			out[a] = (starts[i] == 0 && steps[i] == 1 && ends[i] >= INT32_MAX) ? x->dims[a] : dim_unknown();
			fold_ok = 0;
			continue;
		}
		int64_t d = x->dims[a].v, s = starts[i], e = ends[i], st = steps[i];
		if (s < 0) /* d >= 0: no overflow */
			s += d;
		if (e < 0)
			e += d;
		/* the count ceil(|e - s| / |st|), in unsigned arithmetic: a step of INT64_MIN has no negation */
		if (st > 0) {
			s = clamp64(s, 0, d);
			e = clamp64(e, 0, d);
			out[a] = dim_num(e > s ? (int64_t)(((uint64_t)(e - s) - 1) / (uint64_t)st + 1) : 0);
		} else {
			s = clamp64(s, 0, d - 1);
			e = clamp64(e, -1, d - 1);
			out[a] = dim_num(s > e ? (int64_t)(((uint64_t)(s - e) - 1) / (0 - (uint64_t)st) + 1) : 0);
		}
		vs = s, ve = e, vstep = st;
	}
	set_out(c, 0, x->dtype, x->rank, out);
	if (fold_ok && dim_known(out[0]) && out[0].v <= SHAPE_FOLD_MAX) { /* slicing a folded shape vector */
		struct dim v[SHAPE_FOLD_MAX];
		int64_t n = out[0].v;
		for (int64_t i = 0; i < n; i++)
			v[i] = x->val[vs + i * vstep];
		(void)ve;
		set_out_vals(c, 0, v, n);
	}
	return 0;
}

int rule_gather(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0), *idx = in_shape(c, 1);
	struct dim out[SHAPE_MAX_RANK];

	if (!x || !idx || x->rank < 0 || idx->rank < 0) {
		set_out(c, 0, dtype0(c), -1, NULL);
		return 0;
	}
	int axis = norm_axis(c, attr_int(c, "axis", 0), x->rank);
	if (axis < 0)
		return -1;
	int r = x->rank - 1 + idx->rank, n = 0;
	if (r > SHAPE_MAX_RANK)
		return infer_note(c, "rank over %d", SHAPE_MAX_RANK);
	for (int i = 0; i < axis; i++)
		out[n++] = x->dims[i];
	for (int i = 0; i < idx->rank; i++)
		out[n++] = idx->dims[i];
	for (int i = axis + 1; i < x->rank; i++)
		out[n++] = x->dims[i];
	set_out(c, 0, x->dtype, r, out);
	/* Gather from a folded 1-D tensor (shape[i]). */
	const struct dim *xv;
	int64_t iv[SHAPE_FOLD_MAX];
	int64_t nx = in_vals(c, 0, &xv), ni = in_ints(c, 1, iv, SHAPE_FOLD_MAX);
	if (x->rank == 1 && nx >= 0 && ni >= 0) {
		struct dim v[SHAPE_FOLD_MAX];
		for (int64_t i = 0; i < ni; i++) {
			int64_t j = iv[i] < 0 ? iv[i] + nx : iv[i];
			if (j < 0 || j >= nx)
				return infer_note(c, "Gather index %lld is out of range for %lld values",
						  (long long)iv[i], (long long)nx);
			v[i] = xv[j];
		}
		set_out_vals(c, 0, v, ni);
	}
	return 0;
}

int rule_gather_elements(struct infer_ctx *c)
{
	set_out_like(c, 0, in_shape(c, 1), dtype0(c));
	return 0;
}

int rule_gather_nd(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0), *idx = in_shape(c, 1);
	struct dim out[SHAPE_MAX_RANK];
	int64_t b = attr_int(c, "batch_dims", 0);

	if (!x || !idx || x->rank < 0 || idx->rank < 1 || !dim_known(idx->dims[idx->rank - 1])) {
		set_out(c, 0, dtype0(c), -1, NULL);
		return 0;
	}
	int64_t last = idx->dims[idx->rank - 1].v;
	/* indices [batch..., k] into data [batch..., k dims, rest...]: out [indices' dims but the last, rest...] */
	if (b < 0 || last < 0 || b > x->rank || last > x->rank - b || idx->rank - 1 + (x->rank - b - last) > SHAPE_MAX_RANK) {
		set_out(c, 0, dtype0(c), -1, NULL);
		return infer_note(c, "GatherND batch_dims %lld and index depth %lld do not fit data of rank %d",
				  (long long)b, (long long)last, x->rank);
	}
	int n = 0;
	for (int i = 0; i < idx->rank - 1; i++)
		out[n++] = idx->dims[i];
	for (int64_t i = b + last; i < x->rank; i++)
		out[n++] = x->dims[i];
	set_out(c, 0, x->dtype, n, out);
	return 0;
}

int rule_expand(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	const struct dim *sv;
	int64_t n = in_vals(c, 1, &sv);
	struct dim out[SHAPE_MAX_RANK];

	if (!x || n < 0 || n > SHAPE_MAX_RANK) {
		const struct vshape *s = in_shape(c, 1);
		int64_t r = s && s->rank == 1 && dim_known(s->dims[0]) && x && x->rank >= 0 ?
				    (s->dims[0].v > x->rank ? s->dims[0].v : x->rank) : -1;
		set_out(c, 0, dtype0(c), r, NULL);
		return infer_note(c, "Expand shape is not constant");
	}
	struct vshape t = {.rank = (int)n, .dims = (struct dim *)sv};
	int r = broadcast(x, &t, out, c);
	set_out(c, 0, x->dtype, r >= 0 ? r : -1, r >= 0 ? out : NULL);
	return r == -2 ? -1 : 0;
}

int rule_tile(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	int64_t rep[SHAPE_MAX_RANK];
	struct dim out[SHAPE_MAX_RANK];

	if (!x || x->rank < 0) {
		set_out(c, 0, dtype0(c), -1, NULL);
		return 0;
	}
	int64_t n = in_ints(c, 1, rep, SHAPE_MAX_RANK);
	if (n != x->rank) {
		set_out(c, 0, x->dtype, x->rank, NULL);
		return infer_note(c, "Tile repeats are not constant");
	}
	for (int i = 0; i < x->rank; i++)
		out[i] = rep[i] == 1 ? x->dims[i] : dim_num(dim_mul(x->dims[i].v, rep[i]));
	set_out(c, 0, x->dtype, x->rank, out);
	return 0;
}

int rule_pad(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	int64_t pads[2 * SHAPE_MAX_RANK], axes[SHAPE_MAX_RANK];
	struct dim out[SHAPE_MAX_RANK];

	if (!x || x->rank < 0) {
		set_out(c, 0, dtype0(c), -1, NULL);
		return 0;
	}
	int64_t np = c->opset < 11 ? attr_ints(c, "pads", pads, 2 * SHAPE_MAX_RANK) : in_ints(c, 1, pads, 2 * SHAPE_MAX_RANK);
	int64_t na = c->n_in > 3 && in_shape(c, 3) ? in_ints(c, 3, axes, SHAPE_MAX_RANK) : -2;
	if (na == -2) {
		na = x->rank;
		for (int i = 0; i < x->rank; i++)
			axes[i] = i;
	}
	if (np < 0 || na < 0 || np != 2 * na) {
		set_out(c, 0, x->dtype, x->rank, NULL);
		return infer_note(c, "Pad pads are not constant");
	}
	memcpy(out, x->dims, (size_t)x->rank * sizeof *out);
	for (int64_t i = 0; i < na; i++) {
		int a = norm_axis(c, axes[i], x->rank);
		if (a < 0)
			return -1;
		int64_t add = dim_add(pads[i], pads[na + i]);
		if (add)
			out[a] = dim_num(dim_add(x->dims[a].v, add));
	}
	set_out(c, 0, x->dtype, x->rank, out);
	return 0;
}

int rule_constant_of_shape(struct infer_ctx *c)
{
	const struct dim *sv;
	int64_t n = in_vals(c, 0, &sv);
	const Onnx__AttributeProto *v = attr(c, "value");
	int32_t dt = v && v->t ? v->t->data_type : OV_DT_FLOAT;

	if (n < 0 || n > SHAPE_MAX_RANK) {
		const struct vshape *s = in_shape(c, 0);
		set_out(c, 0, dt, s && s->rank == 1 && dim_known(s->dims[0]) ? s->dims[0].v : -1, NULL);
		return infer_note(c, "ConstantOfShape shape is not constant");
	}
	set_out(c, 0, dt, (int)n, sv);
	return 0;
}

int rule_range(struct infer_ctx *c)
{
	double st[1], li[1], de[1];
	struct dim out[1] = {dim_unknown()};

	if (in_floats(c, 0, st, 1) == 1 && in_floats(c, 1, li, 1) == 1 && in_floats(c, 2, de, 1) == 1 && de[0] != 0) {
		double n = ceil((li[0] - st[0]) / de[0]); /* max(ceil((limit - start) / delta), 0) */
		out[0] = n != n ? dim_unknown() : n > 0 ? dim_from_double(n) : dim_num(0);
	}
	set_out(c, 0, dtype0(c), 1, out);
	return 0;
}

int rule_nonzero(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	/* A scalar counts as rank 1 here, as numpy and onnxruntime do: [1, n]. */
	struct dim out[2] = {x && x->rank >= 0 ? dim_num(x->rank ? x->rank : 1) : dim_unknown(), dim_unknown()};

	set_out(c, 0, OV_DT_INT64, 2, out);
	return 0;
}

int rule_onehot(struct infer_ctx *c)
{
	const struct vshape *idx = in_shape(c, 0), *vals = in_shape(c, 2);
	int64_t depth[1];
	struct dim out[SHAPE_MAX_RANK];

	if (!idx || idx->rank < 0 || idx->rank + 1 > SHAPE_MAX_RANK) {
		set_out(c, 0, vals ? vals->dtype : 0, -1, NULL);
		return 0;
	}
	int r = idx->rank + 1;
	int axis = norm_axis(c, attr_int(c, "axis", -1), r);
	if (axis < 0)
		return -1;
	double dd[1];
	struct dim dep = in_floats(c, 1, dd, 1) == 1 ? dim_from_double(dd[0]) : dim_unknown();
	(void)depth;
	for (int i = 0, k = 0; i < r; i++)
		out[i] = i == axis ? dep : idx->dims[k++];
	set_out(c, 0, vals ? vals->dtype : 0, r, out);
	return 0;
}
