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

/* Spatial output size of a sliding window; DIM_UNKNOWN when the input is not a number. */
static int64_t window_out(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe, int ceil_mode,
			  const char *auto_pad)
{
	int64_t ek = (k - 1) * d + 1;

	if (in == DIM_UNKNOWN || s <= 0)
		return DIM_UNKNOWN;
	if (!strcmp(auto_pad, "SAME_UPPER") || !strcmp(auto_pad, "SAME_LOWER"))
		return (in + s - 1) / s;
	if (!strcmp(auto_pad, "VALID"))
		pb = pe = 0;
	int64_t span = in + pb + pe - ek;
	if (span < 0)
		return DIM_UNKNOWN;
	int64_t o = ceil_mode ? (span + s - 1) / s + 1 : span / s + 1;
	/* With ceil_mode, a last window that would start in the end padding is dropped. */
	if (ceil_mode && (o - 1) * s >= in + pb)
		o--;
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
	if (nk >= 0 && nk != n)
		return infer_note(c, "kernel_shape has %lld values for %d spatial dims", (long long)nk, n);
	for (int i = 0; i < n; i++)
		w->s[i] = w->d[i] = 1, w->pads[i] = w->pads[n + i] = 0;
	int64_t ns = attr_ints(c, "strides", w->s, SHAPE_MAX_RANK), nd = attr_ints(c, "dilations", w->d, SHAPE_MAX_RANK);
	int64_t np = attr_ints(c, "pads", w->pads, 2 * SHAPE_MAX_RANK);
	if ((ns >= 0 && ns != n) || (nd >= 0 && nd != n) || (np >= 0 && np != 2 * n))
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
	attr_ints(c, "output_padding", opad, SHAPE_MAX_RANK);
	int64_t nos = attr_ints(c, "output_shape", oshape, SHAPE_MAX_RANK);
	int64_t group = attr_int(c, "group", 1);
	out[0] = x->dims[0];
	out[1] = wt && wt->rank == x->rank && dim_known(wt->dims[1]) ? dim_num(wt->dims[1].v * group) : dim_unknown();
	for (int i = 0; i < n; i++) {
		int64_t in = x->dims[2 + i].v;
		if (nos == n)
			out[2 + i] = dim_num(oshape[i]);
		else if (in == DIM_UNKNOWN || w.k[i] == DIM_UNKNOWN)
			out[2 + i] = dim_unknown();
		else if (!strcmp(w.auto_pad, "SAME_UPPER") || !strcmp(w.auto_pad, "SAME_LOWER"))
			out[2 + i] = dim_num(in * w.s[i]);
		else
			out[2 + i] = dim_num(w.s[i] * (in - 1) + opad[i] + (w.k[i] - 1) * w.d[i] + 1 -
					     (strcmp(w.auto_pad, "VALID") ? w.pads[i] + w.pads[n + i] : 0));
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

int rule_einsum(struct infer_ctx *c)
{
	char eq[256], *arrow;
	struct dim letter[128];
	int seen[128] = {0}, count[128] = {0};
	const struct vshape *ell = NULL;
	int ell_rank = 0;
	struct dim out[SHAPE_MAX_RANK];
	int n = 0;

	attr_str(c, "equation", eq, sizeof eq);
	for (char *p = eq, *q = eq; ; p++) { /* strip spaces */
		if (*p != ' ')
			*q++ = *p;
		if (!*p)
			break;
	}
	arrow = strstr(eq, "->");
	if (arrow)
		*arrow = '\0';
	size_t k = 0;
	for (char *term = eq; term; k++) {
		char *comma = strchr(term, ',');
		if (comma)
			*comma = '\0';
		const struct vshape *v = in_shape(c, k);
		int nl = 0, has_ell = strstr(term, "...") != NULL;
		for (char *t = term; *t; t++)
			if (*t != '.')
				nl++;
		int er = v && v->rank >= 0 ? v->rank - nl : -1;
		int pos = 0;
		for (char *t = term; *t; t++) {
			if (*t == '.') {
				if (t[1] == '.' && t[2] == '.') {
					if (er > ell_rank || !ell) {
						ell = v;
						ell_rank = er;
					}
					pos += er > 0 ? er : 0;
					t += 2;
				}
				continue;
			}
			unsigned ch = (unsigned char)*t & 127;
			count[ch]++;
			if (!seen[ch] || !dim_known(letter[ch])) {
				letter[ch] = v && v->rank >= 0 && pos < v->rank ? v->dims[pos] : dim_unknown();
				seen[ch] = 1;
			}
			pos++;
		}
		(void)has_ell;
		term = comma ? comma + 1 : NULL;
	}
	if (arrow) {
		for (char *t = arrow + 2; *t; t++) {
			if (*t == '.') {
				if (t[1] == '.' && t[2] == '.') {
					if (!ell || ell_rank < 0) {
						set_out(c, 0, dtype0(c), -1, NULL);
						return 0;
					}
					for (int i = 0; i < ell_rank; i++)
						out[n++] = ell->dims[i];
					t += 2;
				}
				continue;
			}
			out[n++] = seen[(unsigned char)*t & 127] ? letter[(unsigned char)*t & 127] : dim_unknown();
		}
	} else {
		if (ell && ell_rank > 0)
			for (int i = 0; i < ell_rank; i++)
				out[n++] = ell->dims[i];
		for (int ch = 'A'; ch <= 'z'; ch++)
			if (count[ch] == 1)
				out[n++] = letter[ch];
	}
	set_out(c, 0, dtype0(c), n, out);
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
	out[1] = dim_known(x->dims[1]) ? dim_num(x->dims[1].v / (b * b)) : dim_unknown();
	out[2] = dim_known(x->dims[2]) ? dim_num(x->dims[2].v * b) : dim_unknown();
	out[3] = dim_known(x->dims[3]) ? dim_num(x->dims[3].v * b) : dim_unknown();
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
	out[1] = dim_known(x->dims[1]) ? dim_num(x->dims[1].v * b * b) : dim_unknown();
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
