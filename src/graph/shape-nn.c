/* Shape rules for the neural-network core: convolution, pooling, normalisation, GEMM/MatMul/Einsum, Resize,
 * depth/space rearrangements, GridSample, RoiAlign, NonMaxSuppression. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/graph/shape-rules.h"

static int32_t dtype0(const struct infer_ctx *c)
{
	const struct vshape *v = in_shape(c, 0);
	return v ? v->dtype : 0;
}

/* Spatial output size of a sliding window; DIM_UNKNOWN when the input is not a number, the geometry makes no
 * sense (a kernel, stride or dilation below 1), or the arithmetic leaves int64_t (all of it comes from the model). */
static int64_t window_out(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe, int ceil_mode,
			  const char *auto_pad)
{
	if (in == DIM_UNKNOWN || s <= 0 || k <= 0 || d <= 0)
		return DIM_UNKNOWN;
	if (!strcmp(auto_pad, "SAME_UPPER") || !strcmp(auto_pad, "SAME_LOWER"))
		return in / s + (in % s != 0);
	if (!strcmp(auto_pad, "VALID"))
		pb = pe = 0;
	int64_t ek = dim_add(dim_mul(k - 1, d), 1);
	int64_t span = dim_sub(dim_add(dim_add(in, pb), pe), ek);
	if (span == DIM_UNKNOWN || span < 0)
		return DIM_UNKNOWN;
	int64_t o = span / s + 1;
	if (ceil_mode) {
		o += span % s != 0;
		/* With ceil_mode, a last window that would start in the end padding is dropped. */
		int64_t start = dim_mul(o - 1, s), limit = dim_add(in, pb);
		if (start == DIM_UNKNOWN || limit == DIM_UNKNOWN)
			return DIM_UNKNOWN;
		if (start >= limit)
			o--;
	}
	return o;
}

/* The window geometry attributes shared by Conv and the pools. n: spatial rank. */
struct window {
	int64_t k[SHAPE_MAX_RANK], s[SHAPE_MAX_RANK], d[SHAPE_MAX_RANK], pads[2 * SHAPE_MAX_RANK];
	char auto_pad[32];
	int have_k;
};

static int read_window(struct infer_ctx *c, int n, struct window *w)
{
	int64_t nk = attr_ints(c, "kernel_shape", w->k, SHAPE_MAX_RANK);

	w->have_k = nk == n;
	if (nk != -1 && nk != n) {
		if (nk == ATTR_TOO_MANY)
			return infer_note(c, "kernel_shape has more than %d values", SHAPE_MAX_RANK);
		return infer_note(c, "kernel_shape has %lld values for %d spatial dims", (long long)nk, n);
	}
	for (int i = 0; i < n; i++)
		w->s[i] = w->d[i] = 1, w->pads[i] = w->pads[n + i] = 0;
	int64_t ns = attr_ints(c, "strides", w->s, SHAPE_MAX_RANK), nd = attr_ints(c, "dilations", w->d, SHAPE_MAX_RANK);
	int64_t np = attr_ints(c, "pads", w->pads, 2 * SHAPE_MAX_RANK);
	if ((ns != -1 && ns != n) || (nd != -1 && nd != n) || (np != -1 && np != 2 * n))
		return infer_note(c, "strides/dilations/pads do not match %d spatial dims", n);
	attr_str(c, "auto_pad", w->auto_pad, sizeof w->auto_pad);
	if (!w->auto_pad[0])
		strcpy(w->auto_pad, "NOTSET");
	return 0;
}

int rule_conv(struct infer_ctx *c)
{
	const char *op = c->proto->op_type;
	int qlinear = !strcmp(op, "QLinearConv");
	const struct vshape *x = in_shape(c, 0), *wt = in_shape(c, qlinear ? 3 : 1);
	const struct vshape *yzp = qlinear ? in_shape(c, 7) : NULL;
	int32_t dt = !strcmp(op, "ConvInteger") ? OV_DT_INT32 : qlinear ? (yzp ? yzp->dtype : 0) : dtype0(c);
	struct window w;
	struct dim out[SHAPE_MAX_RANK];

	if (!x || x->rank < 3) {
		set_out(c, 0, dt, x && wt && wt->rank >= 3 ? wt->rank : -1, NULL);
		return x ? infer_note(c, "Conv input rank unknown") : -1;
	}
	int n = x->rank - 2;
	if (read_window(c, n, &w))
		return -1;
	if (!w.have_k && wt && wt->rank == x->rank)
		for (int i = 0; i < n; i++) {
			if (!dim_known(wt->dims[2 + i])) {
				set_out(c, 0, dt, x->rank, NULL);
				return infer_note(c, "kernel size unknown");
			}
			w.k[i] = wt->dims[2 + i].v;
		}
	else if (!w.have_k) {
		set_out(c, 0, dt, x->rank, NULL);
		return infer_note(c, "kernel size unknown");
	}
	out[0] = x->dims[0];
	out[1] = wt && wt->rank == x->rank ? wt->dims[0] : dim_unknown();
	for (int i = 0; i < n; i++)
		out[2 + i] = dim_num(window_out(x->dims[2 + i].v, w.k[i], w.s[i], w.d[i], w.pads[i], w.pads[n + i], 0,
						w.auto_pad));
	set_out(c, 0, dt, x->rank, out);
	return 0;
}

int rule_conv_transpose(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0), *wt = in_shape(c, 1);
	struct window w;
	struct dim out[SHAPE_MAX_RANK];
	int64_t opad[SHAPE_MAX_RANK], oshape[SHAPE_MAX_RANK];

	if (!x || x->rank < 3)
		return infer_note(c, "ConvTranspose input rank unknown");
	int n = x->rank - 2;
	if (read_window(c, n, &w))
		return -1;
	if (!w.have_k) {
		if (!wt || wt->rank != x->rank)
			return infer_note(c, "kernel size unknown");
		for (int i = 0; i < n; i++)
			w.k[i] = wt->dims[2 + i].v;
	}
	for (int i = 0; i < n; i++)
		opad[i] = 0;
	int64_t nop = attr_ints(c, "output_padding", opad, SHAPE_MAX_RANK);
	int64_t nos = attr_ints(c, "output_shape", oshape, SHAPE_MAX_RANK);
	if ((nop != -1 && nop != n) || (nos != -1 && nos != n)) {
		set_out(c, 0, x->dtype, x->rank, NULL);
		return infer_note(c, "output_padding/output_shape do not match %d spatial dims", n);
	}
	int64_t group = attr_int(c, "group", 1);
	out[0] = x->dims[0];
	out[1] = wt && wt->rank == x->rank && dim_known(wt->dims[1]) ? dim_num(dim_mul(wt->dims[1].v, group))
								       : dim_unknown();
	for (int i = 0; i < n; i++) {
		int64_t in = x->dims[2 + i].v, s = w.s[i], k = w.k[i], d = w.d[i];
		if (nos == n)
			out[2 + i] = dim_num(oshape[i]);
		else if (in == DIM_UNKNOWN || k == DIM_UNKNOWN || s <= 0 || k <= 0 || d <= 0)
			out[2 + i] = dim_unknown();
		else if (!strcmp(w.auto_pad, "SAME_UPPER") || !strcmp(w.auto_pad, "SAME_LOWER"))
			out[2 + i] = dim_num(dim_mul(in, s));
		else {
			/* s * (in - 1) + output_padding + (k - 1) * d + 1 - pads */
			int64_t o = dim_add(dim_add(dim_mul(s, in - 1), opad[i]), dim_add(dim_mul(k - 1, d), 1));
			if (strcmp(w.auto_pad, "VALID"))
				o = dim_sub(o, dim_add(w.pads[i], w.pads[n + i]));
			out[2 + i] = dim_num(o);
		}
	}
	set_out(c, 0, x->dtype, x->rank, out);
	return 0;
}

int rule_pool(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	struct window w;
	struct dim out[SHAPE_MAX_RANK];

	if (!x || x->rank < 3) {
		set_out(c, 0, dtype0(c), -1, NULL);
		return infer_note(c, "pooling input rank unknown");
	}
	int n = x->rank - 2;
	if (read_window(c, n, &w))
		return -1;
	if (!w.have_k)
		return infer_note(c, "pooling without kernel_shape");
	int ceil_mode = (int)attr_int(c, "ceil_mode", 0);
	out[0] = x->dims[0];
	out[1] = x->dims[1];
	for (int i = 0; i < n; i++)
		out[2 + i] = dim_num(window_out(x->dims[2 + i].v, w.k[i], w.s[i], w.d[i], w.pads[i], w.pads[n + i],
						ceil_mode, w.auto_pad));
	set_out(c, 0, x->dtype, x->rank, out);
	set_out(c, 1, OV_DT_INT64, x->rank, out); /* MaxPool's Indices */
	return 0;
}

int rule_global_pool(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	struct dim out[SHAPE_MAX_RANK];

	if (!x || x->rank < 2) {
		set_out(c, 0, dtype0(c), -1, NULL);
		return 0;
	}
	out[0] = x->dims[0];
	out[1] = x->dims[1];
	for (int i = 2; i < x->rank; i++)
		out[i] = dim_num(1);
	set_out(c, 0, x->dtype, x->rank, out);
	return 0;
}

int rule_batchnorm(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0), *scale = in_shape(c, 1);

	set_out_like(c, 0, x, dtype0(c));
	for (size_t k = 1; k < c->n_out; k++) /* training outputs: running mean/var, per channel */
		set_out_like(c, k, scale, scale ? scale->dtype : dtype0(c));
	return 0;
}

int rule_layernorm(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	struct dim out[SHAPE_MAX_RANK];

	set_out_like(c, 0, x, dtype0(c));
	if (!x || x->rank < 0)
		return 0;
	int axis = norm_axis(c, attr_int(c, "axis", -1), x->rank);
	if (axis < 0)
		return -1;
	int32_t st = (int32_t)attr_int(c, "stash_type", OV_DT_FLOAT);
	for (int i = 0; i < x->rank; i++)
		out[i] = i < axis ? x->dims[i] : dim_num(1);
	set_out(c, 1, st, x->rank, out);
	set_out(c, 2, st, x->rank, out);
	return 0;
}

int rule_gemm(struct infer_ctx *c)
{
	const struct vshape *a = in_shape(c, 0), *b = in_shape(c, 1);
	struct dim out[2];

	if (!a || !b || a->rank != 2 || b->rank != 2) {
		set_out(c, 0, dtype0(c), 2, NULL);
		return infer_note(c, "Gemm needs two 2-D inputs");
	}
	out[0] = attr_int(c, "transA", 0) ? a->dims[1] : a->dims[0];
	out[1] = attr_int(c, "transB", 0) ? b->dims[0] : b->dims[1];
	set_out(c, 0, a->dtype, 2, out);
	return 0;
}

int rule_matmul(struct infer_ctx *c)
{
	const struct vshape *a = in_shape(c, 0), *b = in_shape(c, 1);
	struct dim out[SHAPE_MAX_RANK], ba[SHAPE_MAX_RANK], bb[SHAPE_MAX_RANK], bo[SHAPE_MAX_RANK];
	const char *op = c->proto->op_type;
	int32_t dt = !strcmp(op, "MatMulInteger") ? OV_DT_INT32 : dtype0(c);

	if (!strcmp(op, "QLinearMatMul")) {
		b = in_shape(c, 3);
		const struct vshape *zp = in_shape(c, 7);
		dt = zp ? zp->dtype : 0;
	}
	if (!a || !b || a->rank < 1 || b->rank < 1) {
		set_out(c, 0, dt, -1, NULL);
		return 0;
	}
	/* Batch dims broadcast; a 1-D operand gets a dim added and removed again. */
	int ra = a->rank, rb = b->rank;
	struct vshape va = {.rank = ra > 2 ? ra - 2 : 0, .dims = ba}, vb = {.rank = rb > 2 ? rb - 2 : 0, .dims = bb};
	for (int i = 0; i < va.rank; i++)
		ba[i] = a->dims[i];
	for (int i = 0; i < vb.rank; i++)
		bb[i] = b->dims[i];
	int r = broadcast(&va, &vb, bo, c);
	if (r < 0) {
		set_out(c, 0, dt, -1, NULL);
		return r == -2 ? -1 : 0;
	}
	int n = 0;
	for (int i = 0; i < r; i++)
		out[n++] = bo[i];
	if (ra >= 2)
		out[n++] = a->dims[ra - 2];
	if (rb >= 2)
		out[n++] = b->dims[rb - 1];
	set_out(c, 0, dt, n, out);
	return 0;
}

/* Einsum's letters: a-z as 0-25, A-Z as 26-51; -1 for anything else. */
static int ein_letter(char ch)
{
	return ch >= 'a' && ch <= 'z' ? ch - 'a' : ch >= 'A' && ch <= 'Z' ? 26 + ch - 'A' : -1;
}

/* One term of an equation, text[0..len), spaces included: its letters (up to SHAPE_MAX_RANK of them) and whether
 * it has an ellipsis.  -1 for anything but letters, spaces and at most one "...". */
struct ein_term {
	int letters[SHAPE_MAX_RANK];
	int n, ell_at; /* ell_at: how many letters come before the ellipsis, -1 without one */
};

static int ein_parse_term(const char *text, size_t len, struct ein_term *t)
{
	t->n = 0;
	t->ell_at = -1;
	for (size_t i = 0; i < len; i++) {
		if (text[i] == ' ')
			continue;
		if (text[i] == '.') {
			if (t->ell_at >= 0 || len - i < 3 || text[i + 1] != '.' || text[i + 2] != '.')
				return -1;
			t->ell_at = t->n;
			i += 2;
			continue;
		}
		int l = ein_letter(text[i]);
		if (l < 0 || t->n >= SHAPE_MAX_RANK)
			return -1;
		t->letters[t->n++] = l;
	}
	return 0;
}

/* The equation is model text of any length: every array below is bounded by SHAPE_MAX_RANK or the 52 letters, and
 * a term or an output that would need more is a note, never a write past an array. */
int rule_einsum(struct infer_ctx *c)
{
	const Onnx__AttributeProto *a = attr(c, "equation");
	int32_t dt = dtype0(c);
	struct dim letter[52], ell[SHAPE_MAX_RANK], out[SHAPE_MAX_RANK];
	int seen[52] = {0}, count[52] = {0};
	int ell_rank = -1, ell_unknown = 0; /* -1: no input has an ellipsis */
	struct ein_term t;

	set_out(c, 0, dt, -1, NULL);
	if (!a || !a->has_s || !a->s.len)
		return infer_note(c, "Einsum without an equation");
	const char *eq = (const char *)a->s.data;
	size_t len = a->s.len, lhs_len = len;
	for (size_t i = 0; i + 1 < len; i++)
		if (eq[i] == '-' && eq[i + 1] == '>') {
			lhs_len = i;
			break;
		}
	size_t k = 0;
	for (size_t start = 0, i = 0; i <= lhs_len; i++) {
		if (i < lhs_len && eq[i] != ',')
			continue;
		if (ein_parse_term(eq + start, i - start, &t))
			return infer_note(c, "Einsum term %zu is not letters with at most one '...', or has more than %d "
					  "letters", k, SHAPE_MAX_RANK);
		const struct vshape *v = in_shape(c, k);
		int rank = v ? v->rank : -1, er = 0;
		if (rank >= 0 && (t.ell_at < 0 ? rank != t.n : rank < t.n))
			return infer_note(c, "Einsum term %zu has %d letters%s for an input of rank %d", k, t.n,
					  t.ell_at < 0 ? "" : " and '...'", rank);
		if (t.ell_at >= 0) {
			er = rank >= 0 ? rank - t.n : -1;
			if (er < 0)
				ell_unknown = 1;
			else {
				/* ellipses broadcast together, aligned on the right */
				struct vshape have = {.rank = ell_rank < 0 ? 0 : ell_rank, .dims = ell};
				struct vshape mine = {.rank = er, .dims = v->dims + t.ell_at};
				struct dim merged[SHAPE_MAX_RANK];
				int r = broadcast(&have, &mine, merged, c);
				if (r < 0)
					return -1;
				memcpy(ell, merged, (size_t)r * sizeof *merged);
				ell_rank = r;
			}
		}
		for (int j = 0; j < t.n; j++) {
			int l = t.letters[j];
			int pos = t.ell_at >= 0 && j >= t.ell_at ? (er >= 0 ? j + er : -1) : j;
			struct dim d = rank >= 0 && pos >= 0 ? v->dims[pos] : dim_unknown();
			if (!seen[l] || !dim_known(letter[l]))
				letter[l] = d;
			seen[l] = 1;
			count[l]++;
		}
		k++;
		start = i + 1;
	}
	if (k != c->n_in)
		return infer_note(c, "Einsum equation has %zu terms for %zu inputs", k, c->n_in);
	int has_ell = ell_rank >= 0 || ell_unknown, n = 0;
	if (lhs_len < len) {
		if (ein_parse_term(eq + lhs_len + 2, len - lhs_len - 2, &t))
			return infer_note(c, "Einsum output is not letters with at most one '...', or has more than %d "
					  "letters", SHAPE_MAX_RANK);
		int used[52] = {0};
		for (int j = 0; j < t.n; j++) {
			if (!seen[t.letters[j]] || used[t.letters[j]]++)
				return infer_note(c, "Einsum output letter %d is in no input, or repeated", j);
		}
		if (t.ell_at >= 0 && !has_ell)
			return infer_note(c, "Einsum output has '...' but no input has");
		if (t.ell_at >= 0 && ell_unknown)
			return 0; /* the rank depends on an input whose rank is unknown */
		int er = t.ell_at >= 0 ? ell_rank : 0;
		if (t.n + er > SHAPE_MAX_RANK)
			return infer_note(c, "Einsum output would have rank %d, over %d", t.n + er, SHAPE_MAX_RANK);
		for (int j = 0; j <= t.n; j++) {
			if (j == t.ell_at)
				for (int e = 0; e < er; e++)
					out[n++] = ell[e];
			if (j < t.n)
				out[n++] = letter[t.letters[j]];
		}
	} else {
		/* implicit: the ellipsis dims, then the letters used once, upper case first (ASCII order, as numpy) */
		if (ell_unknown)
			return 0;
		for (int e = 0; e < ell_rank; e++)
			out[n++] = ell[e];
		for (int q = 0; q < 52; q++) {
			int l = q < 26 ? 26 + q : q - 26;
			if (count[l] != 1)
				continue;
			if (n >= SHAPE_MAX_RANK)
				return infer_note(c, "Einsum output would have rank over %d", SHAPE_MAX_RANK);
			out[n++] = letter[l];
		}
	}
	set_out(c, 0, dt, n, out);
	return 0;
}

int rule_resize(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	const char *op = c->proto->op_type;
	int upsample = !strcmp(op, "Upsample");
	double scales[SHAPE_MAX_RANK];
	int64_t sizes[SHAPE_MAX_RANK], axes[SHAPE_MAX_RANK];
	struct dim out[SHAPE_MAX_RANK];
	char policy[32];

	if (!x || x->rank < 0) {
		set_out(c, 0, dtype0(c), -1, NULL);
		return 0;
	}
	int r = x->rank;
	int64_t na = attr_ints(c, "axes", axes, SHAPE_MAX_RANK);
	if (na == ATTR_TOO_MANY || na > r) {
		set_out(c, 0, x->dtype, r, NULL);
		return infer_note(c, "axes has more entries than the input has dims (%d)", r);
	}
	if (na < 0)
		for (int i = 0; i < r; i++)
			axes[i] = i, na = r;
	for (int64_t i = 0; i < na; i++)
		if (norm_axis(c, axes[i], r) < 0)
			return -1;
		else
			axes[i] = norm_axis(c, axes[i], r);
	for (int i = 0; i < r; i++)
		out[i] = x->dims[i];
	int64_t nsz = upsample ? -1 : in_ints(c, 3, sizes, SHAPE_MAX_RANK);
	int64_t nsc;
	if (upsample && c->opset < 9) {
		const Onnx__AttributeProto *a = attr(c, "scales");
		nsc = a ? (int64_t)a->n_floats : -1;
		for (int64_t i = 0; a && i < nsc && i < SHAPE_MAX_RANK; i++)
			scales[i] = a->floats[i];
	} else {
		nsc = in_floats(c, upsample || c->opset < 11 ? 1 : 2, scales, SHAPE_MAX_RANK);
	}
	attr_str(c, "keep_aspect_ratio_policy", policy, sizeof policy);
	if (nsz > 0) {
		if (nsz != na)
			return infer_note(c, "sizes has %lld values for %lld axes", (long long)nsz, (long long)na);
		if (policy[0] && strcmp(policy, "stretch")) {
			set_out(c, 0, x->dtype, r, NULL);
			return infer_note(c, "keep_aspect_ratio_policy '%s' not folded", policy);
		}
		for (int64_t i = 0; i < na; i++)
			out[axes[i]] = dim_num(sizes[i]);
	} else if (nsc > 0) {
		if (nsc != na)
			return infer_note(c, "scales has %lld values for %lld axes", (long long)nsc, (long long)na);
		for (int64_t i = 0; i < na; i++) {
			struct dim d = x->dims[axes[i]];
			if (scales[i] == 1.0)
				out[axes[i]] = d;
			else
				out[axes[i]] = dim_known(d) ? dim_from_double(floor((double)d.v * scales[i] + 1e-9))
							    : dim_unknown();
		}
	} else {
		set_out(c, 0, x->dtype, r, NULL);
		return infer_note(c, "%s scales/sizes are not constant", op);
	}
	set_out(c, 0, x->dtype, r, out);
	return 0;
}

int rule_depth_to_space(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	int64_t b = attr_int(c, "blocksize", 1);
	struct dim out[4];

	if (!x || x->rank != 4 || b <= 0) {
		set_out(c, 0, dtype0(c), 4, NULL);
		return 0;
	}
	out[0] = x->dims[0];
	int64_t bb = dim_mul(b, b);
	out[1] = dim_known(x->dims[1]) && bb != DIM_UNKNOWN ? dim_num(x->dims[1].v / bb) : dim_unknown();
	out[2] = dim_num(dim_mul(x->dims[2].v, b));
	out[3] = dim_num(dim_mul(x->dims[3].v, b));
	set_out(c, 0, x->dtype, 4, out);
	return 0;
}

int rule_space_to_depth(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	int64_t b = attr_int(c, "blocksize", 1);
	struct dim out[4];

	if (!x || x->rank != 4 || b <= 0) {
		set_out(c, 0, dtype0(c), 4, NULL);
		return 0;
	}
	out[0] = x->dims[0];
	out[1] = dim_num(dim_mul(dim_mul(x->dims[1].v, b), b));
	out[2] = dim_known(x->dims[2]) ? dim_num(x->dims[2].v / b) : dim_unknown();
	out[3] = dim_known(x->dims[3]) ? dim_num(x->dims[3].v / b) : dim_unknown();
	set_out(c, 0, x->dtype, 4, out);
	return 0;
}

int rule_grid_sample(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0), *grid = in_shape(c, 1);
	struct dim out[SHAPE_MAX_RANK];

	if (!x || !grid || x->rank < 3 || grid->rank != x->rank) {
		set_out(c, 0, dtype0(c), x ? x->rank : -1, NULL);
		return 0;
	}
	out[0] = x->dims[0];
	out[1] = x->dims[1];
	for (int i = 2; i < x->rank; i++)
		out[i] = grid->dims[i - 1];
	set_out(c, 0, x->dtype, x->rank, out);
	return 0;
}

/* Col2Im: [N, C x prod(block_shape), L] to [N, C, image_shape...] (image_shape and block_shape constants) */
int rule_col2im(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	int64_t img[SHAPE_MAX_RANK], blk[SHAPE_MAX_RANK];
	int64_t ni = in_ints(c, 1, img, SHAPE_MAX_RANK - 2), nb = in_ints(c, 2, blk, SHAPE_MAX_RANK - 2);
	struct dim out[SHAPE_MAX_RANK];

	if (ni < 1 || nb != ni || !x || x->rank != 3) {
		set_out(c, 0, dtype0(c), ni >= 1 ? (int)ni + 2 : -1, NULL);
		return 0;
	}
	int64_t prod = 1;
	for (int64_t i = 0; i < nb; i++)
		prod *= blk[i] > 0 && blk[i] < (1 << 20) ? blk[i] : 1;
	out[0] = x->dims[0];
	out[1] = dim_known(x->dims[1]) && prod > 0 && x->dims[1].v % prod == 0 ? dim_num(x->dims[1].v / prod)
									     : dim_unknown();
	for (int64_t i = 0; i < ni; i++)
		out[2 + i] = dim_num(img[i]);
	set_out(c, 0, x->dtype, (int)ni + 2, out);
	return 0;
}

/* AffineGrid: theta [N, r, r+1] and size [N, C, spatial...] give [N, spatial..., r] */
int rule_affine_grid(struct infer_ctx *c)
{
	int64_t sz[5];
	int64_t n = in_ints(c, 1, sz, 5);
	struct dim out[5];

	if (n != 4 && n != 5) {
		set_out(c, 0, dtype0(c), -1, NULL);
		return 0;
	}
	out[0] = dim_num(sz[0]);
	for (int64_t i = 2; i < n; i++)
		out[i - 1] = dim_num(sz[i]);
	out[n - 1] = dim_num(n - 2);
	set_out(c, 0, dtype0(c), (int)n, out);
	return 0;
}

/* ImageDecoder: the pixels [H, W, C] as uint8, their sizes known only from the image */
int rule_image_decoder(struct infer_ctx *c)
{
	set_out(c, 0, OV_DT_UINT8, 3, NULL);
	return 0;
}

int rule_roi_align(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0), *rois = in_shape(c, 1);
	struct dim out[4];

	out[0] = rois && rois->rank == 2 ? rois->dims[0] : dim_unknown();
	out[1] = x && x->rank == 4 ? x->dims[1] : dim_unknown();
	out[2] = dim_num(attr_int(c, "output_height", 1));
	out[3] = dim_num(attr_int(c, "output_width", 1));
	set_out(c, 0, dtype0(c), 4, out);
	return 0;
}

int rule_nms(struct infer_ctx *c)
{
	struct dim out[2] = {dim_unknown(), dim_num(3)};

	set_out(c, 0, OV_DT_INT64, 2, out);
	return 0;
}
