/* CPU resampling and rearrangement: Resize (nearest/linear/cubic, every coordinate transformation and nearest mode,
 * roi and extrapolation, antialias, axes and keep_aspect_ratio_policy), Upsample, DepthToSpace, SpaceToDepth and
 * GridSample.  Resize is planned by src/exec/ops/resize-params.h and computed with src/exec/ops/ov-resize.h, as the CUDA
 * backend's (cuda/resize.cu) is; linear and cubic run separably, one axis at a time. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/cpu/kernels.h"
#include "src/exec/ops/ops.h"
#include "src/exec/exec.h"
#include "src/exec/ops/index.h"
#include "src/exec/ops/ov-resize.h"
#include "src/exec/ops/resize-params.h"

/* ---- Resize ----------------------------------------------------------------------------------------------------- */

/* One separable pass along axis a: x (outer, in, inner) -> y (outer, out, inner), each output the tap sum of
 * ops/ov-resize.h (which the CUDA passes compute too). */
#define DEFINE_PASS(T, NAME, SUM)                                                                                \
	static void NAME(const T *x, T *y, int64_t outer, int64_t in, int64_t out, int64_t inner,                \
			 const struct resize_axis *ax)                                                           \
	{                                                                                                        \
		for (int64_t ou = 0; ou < outer; ou++)                                                           \
			for (int64_t o = 0; o < out; o++) {                                                      \
				T *yr = y + (ou * out + o) * inner;                                              \
				const double *w = ax->w + ax->woff[o];                                           \
				const T *xr = x + (ou * in + ax->lo[o]) * inner;                                 \
				for (int64_t i = 0; i < inner; i++)                                              \
					yr[i] = SUM(xr + i, inner, w, ax->n[o]);                                 \
			}                                                                                        \
	}

DEFINE_PASS(double, pass_d, ov_resize_tap_sum_d)

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define RS_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define RS_CLONES
#endif
typedef float v8f_rs __attribute__((vector_size(32), aligned(4), may_alias));
typedef double v4d_rs __attribute__((vector_size(32)));

/* The float pass: DEFINE_PASS's loops with ov_resize_tap_sum_f's operations, in vectors (it took 1.8 ns an output: a
 * 2x bilinear upscale of 64 x 80 x 80 ran 4.5 ms, twice onnxruntime's).  Along an inner axis (stride inner) each
 * output row is a float sum from 0 of its nonzero taps (the weight rounded to float, times the input row) in
 * order: here tap by tap across the row, 8 at a time.  Along the last axis (stride 1) each output is a double sum
 * from 0 of weight times input in order: here 4 outputs at a time when they all have the same number of taps.
 * No multiply-add is fused (the clones do not ask for it), so the bits are ov_resize_tap_sum_f's, as CUDA's. */
RS_CLONES static void pass_f(const float *x, float *y, int64_t outer, int64_t in, int64_t out, int64_t inner,
			     const struct resize_axis *ax)
{
	int64_t same_n = out ? ax->n[0] : 0;
	for (int64_t o = 1; o < out && same_n >= 0; o++)
		if (ax->n[o] != same_n)
			same_n = -1;
	for (int64_t ou = 0; ou < outer; ou++) {
		const float *xo = x + ou * in * inner;
		float *yo = y + ou * out * inner;
		if (inner == 1) {
			int64_t o = 0;
			if (same_n > 0)
				for (; o + 4 <= out; o += 4) {
					v4d_rs acc = {0, 0, 0, 0};
					for (int64_t t = 0; t < same_n; t++) {
						v4d_rs wv = {ax->w[ax->woff[o] + t], ax->w[ax->woff[o + 1] + t],
							     ax->w[ax->woff[o + 2] + t], ax->w[ax->woff[o + 3] + t]};
						v4d_rs xv = {xo[ax->lo[o] + t], xo[ax->lo[o + 1] + t], xo[ax->lo[o + 2] + t],
							     xo[ax->lo[o + 3] + t]};
						acc += wv * xv;
					}
					for (int q = 0; q < 4; q++)
						yo[o + q] = (float)acc[q];
				}
			for (; o < out; o++)
				yo[o] = ov_resize_tap_sum_f(xo + ax->lo[o], 1, ax->w + ax->woff[o], ax->n[o]);
			continue;
		}
		for (int64_t o = 0; o < out; o++) {
			float *yr = yo + o * inner;
			const double *w = ax->w + ax->woff[o];
			const float *xr = xo + ax->lo[o] * inner;
			int64_t i = 0;
			for (; i + 8 <= inner; i += 8) {
				v8f_rs acc = {0};
				for (int64_t t = 0; t < ax->n[o]; t++) {
					float wt = (float)w[t];
					if (wt == 0)
						continue;
					v8f_rs wv = {wt, wt, wt, wt, wt, wt, wt, wt};
					acc += wv * *(const v8f_rs *)(xr + t * inner + i);
				}
				*(v8f_rs *)(yr + i) = acc;
			}
			for (; i < inner; i++)
				yr[i] = ov_resize_tap_sum_f(xr + i, inner, w, ax->n[o]);
		}
	}
}

/* Linear and cubic: one pass per axis that changes, in float (float tensors) or double (the rest). */
static int resize_filter(struct exec_kernel_ctx *k, const struct resize_params *p, struct resize_axis *axes,
			 const struct xtensor *x, struct xtensor *y)
{
	int fl = x->dtype == OV_DT_FLOAT;
	size_t es = fl ? 4 : 8;
	int64_t dims[XT_MAX_RANK], cur_n = x->numel;
	void *cur = NULL, *owned = NULL;
	int rc = -1;

	memcpy(dims, p->in, sizeof dims);
	if (fl) {
		cur = x->data;
	} else {
		owned = malloc((size_t)(cur_n ? cur_n : 1) * es);
		if (!owned)
			return xk_fail(k, "out of memory");
		for (int64_t i = 0; i < cur_n; i++)
			((double *)owned)[i] = xt_get(x, i);
		cur = owned;
	}
	for (int a = 0; a < p->rank; a++) {
		if (axes[a].identity)
			continue;
		int64_t outer = 1, inner = 1;
		for (int i = 0; i < a; i++)
			outer *= dims[i];
		for (int i = a + 1; i < p->rank; i++)
			inner *= dims[i];
		int64_t n = outer * p->out[a] * inner;
		void *next = malloc((size_t)(n ? n : 1) * es);
		if (!next) {
			rc = xk_fail(k, "out of memory");
			goto out;
		}
		if (p->out[a]) {
			if (fl)
				pass_f(cur, next, outer, dims[a], p->out[a], inner, &axes[a]);
			else
				pass_d(cur, next, outer, dims[a], p->out[a], inner, &axes[a]);
		}
		free(owned);
		owned = cur = next;
		dims[a] = p->out[a];
		cur_n = n;
	}
	if (fl) {
		memcpy(y->data, cur, (size_t)cur_n * es);
	} else {
		for (int64_t i = 0; i < cur_n; i++)
			xt_set(y, i, ((double *)cur)[i]);
	}
	rc = 0;
out:
	free(owned);
	return rc;
}

/* Nearest: a gather by per-axis index tables, for any element size, a row (the last axis) at a time. */
static void resize_nearest(const struct resize_params *p, struct resize_axis *axes, const struct xtensor *x,
			   struct xtensor *y)
{
	size_t es = xt_elem_size(x->dtype);
	int r = p->rank;
	int64_t str[XT_MAX_RANK], idx[XT_MAX_RANK] = {0};

	if (r == 0) {
		memcpy(y->data, x->data, es);
		return;
	}
	for (int i = r - 1; i >= 0; i--)
		str[i] = i == r - 1 ? 1 : str[i + 1] * p->in[i + 1];
	const struct resize_axis *last = &axes[r - 1];
	int64_t row = p->out[r - 1], nrows = row ? y->numel / row : 0, prev = -1;
	for (int64_t ro = 0; ro < nrows; ro++) {
		int64_t off = 0;
		for (int i = 0; i < r - 1; i++)
			off += (axes[i].identity ? idx[i] : axes[i].lo[idx[i]]) * str[i];
		const char *src = (const char *)x->data + (size_t)off * es;
		char *dst = (char *)y->data + (size_t)(ro * row) * es;
		/* the row before came from the same input row (an upscale repeats rows): a copy of it */
		if (off == prev)
			memcpy(dst, dst - (size_t)row * es, (size_t)row * es);
		else if (last->identity)
			memcpy(dst, src, (size_t)row * es);
		else if (es == 4)
			for (int64_t o = 0; o < row; o++)
				memcpy(dst + o * 4, src + last->lo[o] * 4, 4);
		else
			for (int64_t o = 0; o < row; o++)
				memcpy(dst + (size_t)o * es, src + (size_t)last->lo[o] * es, es);
		prev = off;
		for (int i = r - 2; i >= 0; i--) {
			if (++idx[i] < p->out[i])
				break;
			idx[i] = 0;
		}
	}
}

/* tf_crop_and_resize: every output with a coordinate outside the input on some axis is extrapolation_value. */
static void resize_extrapolate(const struct resize_params *p, struct resize_axis *axes, struct xtensor *y)
{
	int r = p->rank, any = 0;
	int64_t idx[XT_MAX_RANK] = {0};

	for (int i = 0; i < r; i++)
		any |= axes[i].any_outside;
	if (!any)
		return;
	for (int64_t o = 0; o < y->numel; o++) {
		for (int i = 0; i < r; i++)
			if (!axes[i].identity && axes[i].outside[idx[i]]) {
				xt_set(y, o, p->extrapolation);
				break;
			}
		xt_index_next(idx, p->out, r);
	}
}

static int resize_run(struct exec_kernel_ctx *k, int upsample)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;
	struct resize_params p;
	struct resize_axis axes[XT_MAX_RANK];
	int rc = -1;

	if (!x)
		return xk_fail(k, "X is required");
	if (!xt_elem_size(x->dtype) || x->dtype == OV_DT_STRING)
		return xk_fail(k, "resizing %s is not supported", dtype_short_name(x->dtype));
	if (resize_plan_read(k, upsample, ops_host_input, &p))
		return -1;
	if (p.mode != OV_RM_NEAREST && x->dtype == OV_DT_BOOL)
		return xk_fail(k, "linear/cubic resizing of bool is not supported");
	memset(axes, 0, sizeof axes);
	if (xk_output(k, 0, x->dtype, x->rank, p.out))
		return -1;
	if (k->out[0]->numel) {
		for (int a = 0; a < p.rank; a++)
			if (resize_plan_axis(k, &p, a, &axes[a]))
				goto out;
		if (p.mode == OV_RM_NEAREST)
			resize_nearest(&p, axes, x, k->out[0]);
		else if (resize_filter(k, &p, axes, x, k->out[0]))
			goto out;
		if (p.coord == OV_RC_TF_CROP_AND_RESIZE)
			resize_extrapolate(&p, axes, k->out[0]);
	}
	rc = 0;
out:
	for (int a = 0; a < p.rank; a++)
		resize_axis_free(&axes[a]);
	return rc;
}

static int resize_f(struct exec_kernel_ctx *k)
{
	return resize_run(k, 0);
}

static int upsample_f(struct exec_kernel_ctx *k)
{
	return resize_run(k, 1);
}

static int kernel_resize(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;
	/* float16 filtered in float32 (nearest copies the bits as they are) */
	if (x && cpu_is_half(x->dtype))
		return cpu_via_f32(k, resize_f, 0);
	return resize_f(k);
}

static int kernel_upsample(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;
	if (x && cpu_is_half(x->dtype))
		return cpu_via_f32(k, upsample_f, 0);
	return upsample_f(k);
}

/* ---- DepthToSpace, SpaceToDepth ---------------------------------------------------------------------------------- */

static int depth_space(struct exec_kernel_ctx *k, int to_space)
{
	struct depth_space_geom p;

	if (ops_depth_space_setup(k, to_space, &p) || xk_output(k, 0, k->in[0]->dtype, 4, p.out))
		return -1;
	const struct xtensor *x = k->in[0];
	size_t es = xt_elem_size(x->dtype);
	const char *src = x->data;
	char *dst = k->out[0]->data;
	int64_t n = x->dims[0], c = x->dims[1], h = x->dims[2], w = x->dims[3], oc = p.out[1], oh = p.out[2], ow = p.out[3];
	/* 4-byte elements a row at a time: the source channel and row of an output row are fixed but for the column's
	 * place in its block (every element went through ov_depth_space_src and a memcpy: 2.1 times onnxruntime) */
	if (es == 4 && p.b > 0) {
		const uint32_t *sx = (const uint32_t *)src;
		uint32_t *dy = (uint32_t *)dst;
		for (int64_t in = 0; in < n; in++)
			for (int64_t co = 0; co < oc; co++)
				for (int64_t y = 0; y < oh; y++) {
					uint32_t *yr = dy + ((in * oc + co) * oh + y) * ow;
					for (int64_t bx = 0; bx < p.b; bx++) {
						int64_t ci, yi, xi;
						ov_depth_space_src(to_space, p.crd, p.b, c, oc, co, y, bx, &ci, &yi, &xi);
						const uint32_t *xr = sx + ((in * c + ci) * h + yi) * w;
						if (to_space) /* xx = xi * b + bx, xi = 0.. */
							for (int64_t q = 0; q < w; q++)
								yr[q * p.b + bx] = xr[q];
						else if (bx == 0) /* xi = xx * b + the block's column, xx = 0.. */
							for (int64_t q = 0; q < ow; q++)
								yr[q] = xr[xi + q * p.b];
					}
				}
		return 0;
	}
	for (int64_t in = 0; in < n; in++)
		for (int64_t co = 0; co < oc; co++)
			for (int64_t y = 0; y < oh; y++)
				for (int64_t xx = 0; xx < ow; xx++) {
					int64_t ci, yi, xi;
					ov_depth_space_src(to_space, p.crd, p.b, c, oc, co, y, xx, &ci, &yi, &xi);
					int64_t so = ((in * c + ci) * h + yi) * w + xi;
					int64_t d = ((in * oc + co) * oh + y) * ow + xx;
					memcpy(dst + (size_t)d * es, src + (size_t)so * es, es);
				}
	return 0;
}

static int kernel_depth_to_space(struct exec_kernel_ctx *k)
{
	return depth_space(k, 1);
}

static int kernel_space_to_depth(struct exec_kernel_ctx *k)
{
	return depth_space(k, 0);
}

/* ---- GridSample ------------------------------------------------------------------------------------------------- */

enum gs_pad { GS_ZEROS, GS_BORDER, GS_REFLECTION };

/* The offset in a plane of integer position idx (one per spatial dim) under the padding mode; -1 for a position
 * that reads 0 (zeros padding). */
static int64_t gs_offset(const int64_t *dims, int r, const int64_t *idx, enum gs_pad pad, int align)
{
	int64_t off = 0;

	for (int i = 0; i < r; i++) {
		int64_t v = idx[i];
		if (v < 0 || v >= dims[i]) {
			if (pad == GS_ZEROS)
				return -1;
			if (pad == GS_REFLECTION) {
				double lo = align ? 0 : -0.5, hi = align ? (double)(dims[i] - 1) : (double)dims[i] - 0.5;
				v = (int64_t)floor(ov_grid_reflect((double)v, lo, hi) + 0.5);
			}
			v = v < 0 ? 0 : v >= dims[i] ? dims[i] - 1 : v;
		}
		off = off * dims[i] + v;
	}
	return off;
}

/* Points [o0, o0 + np) of image n, every channel: the sum in double of each tap's weight (cw) times its value
 * (coff: the offset in the plane, -1 for a zero), the taps of point o at (o - o0) * combos, in order. */
static void gs_points(const struct xtensor *x, struct xtensor *y, int64_t n, int64_t c, int64_t plane, int64_t opts,
		      int64_t o0, int64_t np, const int64_t *coff, const double *cw, int64_t combos)
{
	for (int64_t ch = 0; ch < c; ch++) {
		int64_t plane_off = (n * c + ch) * plane;
		const float *xp = x->dtype == OV_DT_FLOAT ? (const float *)x->data + plane_off : NULL;
		for (int64_t q = 0; q < np; q++) {
			const int64_t *co = coff + q * combos;
			const double *w = cw + q * combos;
			int64_t at = (n * c + ch) * opts + o0 + q;
			double acc = 0;
			for (int64_t cb = 0; cb < combos; cb++)
				if (w[cb] != 0)
					acc += w[cb] * (co[cb] < 0 ? 0.0 : xp ? (double)xp[co[cb]] : xt_get(x, plane_off + co[cb]));
			if (xp)
				((float *)y->data)[at] = (float)acc;
			else
				xt_set(y, at, acc);
		}
	}
}

static int kernel_grid_sample(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL, *grid = k->n_in > 1 ? k->in[1] : NULL;
	char buf[32];
	int64_t out[XT_MAX_RANK];

	if (!x || !grid)
		return xk_fail(k, "X and grid are required");
	int r = x->rank - 2;
	if (r < 1 || grid->rank != x->rank || grid->dims[0] != x->dims[0] || grid->dims[grid->rank - 1] != r)
		return xk_fail(k, "grid must be (N, out..., %d) for X of rank %d", r, x->rank);
	if (x->dtype != OV_DT_FLOAT && x->dtype != OV_DT_DOUBLE && !cpu_is_half(x->dtype))
		return xk_fail(k, "GridSample on %s is not supported", dtype_short_name(x->dtype));
	xk_attr_str(k, "mode", k->opset >= 20 ? "linear" : "bilinear", buf, sizeof buf);
	enum ov_resize_mode mode;
	if (!strcmp(buf, "bilinear") || !strcmp(buf, "linear"))
		mode = OV_RM_LINEAR;
	else if (!strcmp(buf, "nearest"))
		mode = OV_RM_NEAREST;
	else if (!strcmp(buf, "bicubic") || !strcmp(buf, "cubic"))
		mode = OV_RM_CUBIC;
	else
		return xk_fail(k, "unknown mode '%s'", buf);
	xk_attr_str(k, "padding_mode", "zeros", buf, sizeof buf);
	enum gs_pad pad;
	if (!strcmp(buf, "zeros"))
		pad = GS_ZEROS;
	else if (!strcmp(buf, "border"))
		pad = GS_BORDER;
	else if (!strcmp(buf, "reflection"))
		pad = GS_REFLECTION;
	else
		return xk_fail(k, "unknown padding_mode '%s'", buf);
	int align = xk_attr_int(k, "align_corners", 0) != 0;
	if (mode == OV_RM_CUBIC && r > 4)
		return xk_fail(k, "cubic GridSample over %d spatial dims is not supported", r);
	int64_t nb = x->dims[0], c = x->dims[1], plane = 1, opts = 1;
	out[0] = nb, out[1] = c;
	for (int i = 0; i < r; i++) {
		out[2 + i] = grid->dims[1 + i];
		plane *= x->dims[2 + i];
		opts *= grid->dims[1 + i];
	}
	if (xk_output(k, 0, x->dtype, x->rank, out))
		return -1;
	struct xtensor *y = k->out[0];
	if (!plane || !opts) /* nothing to sample from (zeros), or no point to sample */
		return 0;
	const int64_t *dims = x->dims + 2;
	int ntap = mode == OV_RM_CUBIC ? 4 : mode == OV_RM_LINEAR ? 2 : 1;
	int64_t combos = 1;
	for (int i = 0; i < r; i++)
		combos *= ntap;
	/* each point's taps (offset in the plane, or -1 for a zero; the product of the axes' weights) are the same for
	 * every channel: found once per point (they were found again for each channel: 64 x 80 x 80 bilinear took
	 * 10 ms, thirteen times onnxruntime's); each channel then sums weight times value in the same order */
	/* every point's taps at once where they take at most 64 MB (then channel by channel over the points, each
	 * plane read in one sweep), else one point's at a time */
	int64_t keep = opts <= (4ll << 20) / combos ? opts : 1;
	int64_t *coff = malloc((size_t)(keep * combos) * sizeof *coff);
	double *cw = malloc((size_t)(keep * combos) * sizeof *cw);
	if (!coff || !cw) {
		free(coff);
		free(cw);
		return xk_fail(k, "out of memory");
	}
	for (int64_t n = 0; n < nb; n++) {
		for (int64_t o = 0; o < opts; o++) {
			double wt[XT_MAX_RANK][4];
			int64_t base[XT_MAX_RANK];
			for (int i = 0; i < r; i++) {
				/* grid's last dim lists (x, y, z...): the innermost spatial dim first */
				double g = xt_get(grid, (n * opts + o) * r + (r - 1 - i));
				double v = ov_grid_denormalize(g, dims[i], align);
				if (mode != OV_RM_CUBIC && pad != GS_ZEROS) {
					if (pad == GS_REFLECTION)
						v = ov_grid_reflect(v, align ? 0 : -0.5,
								    align ? (double)(dims[i] - 1) : (double)dims[i] - 0.5);
					v = v < 0 ? 0 : v > (double)(dims[i] - 1) ? (double)(dims[i] - 1) : v;
				}
				if (!(fabs(v) < 1e15))
					v = v != v ? -2 : v < 0 ? -1e15 : 1e15;
				if (mode == OV_RM_NEAREST) {
					base[i] = (int64_t)nearbyint(v);
					wt[i][0] = 1;
				} else {
					double f = floor(v), t = v - f;
					base[i] = (int64_t)f - (mode == OV_RM_CUBIC ? 1 : 0);
					for (int j = 0; j < ntap; j++)
						wt[i][j] = mode == OV_RM_LINEAR ? (j ? t : 1 - t)
										: ov_cubic_kernel((double)(j - 1) - t, -0.75);
				}
			}
			for (int64_t cb = 0; cb < combos; cb++) {
				int64_t idx[XT_MAX_RANK], rem = cb;
				double w = 1;
				for (int i = r - 1; i >= 0; i--) {
					int j = (int)(rem % ntap);
					rem /= ntap;
					idx[i] = base[i] + j;
					w *= wt[i][j];
				}
				int64_t slot = (keep > 1 ? o : 0) * combos + cb;
				cw[slot] = w;
				coff[slot] = w != 0 ? gs_offset(dims, r, idx, pad, align) : -1;
			}
			if (keep == 1)
				gs_points(x, y, n, c, plane, opts, o, 1, coff, cw, combos);
		}
		if (keep > 1)
			gs_points(x, y, n, c, plane, opts, 0, opts, coff, cw, combos);
	}
	free(coff);
	free(cw);
	return 0;
}

/* ---- AffineGrid (opset 20): the sampling grid of an affine map, GridSample's partner ----------------------------- */

/* Coordinate i of n points spanning [-1, 1]: the end points themselves with align_corners, else the pixel centres. */
static double affine_base(int64_t i, int64_t n, int align)
{
	if (align)
		return n > 1 ? -1 + 2.0 * (double)i / (double)(n - 1) : -1;
	return (2.0 * (double)i + 1) / (double)n - 1;
}

static int kernel_affine_grid(struct exec_kernel_ctx *k)
{
	const struct xtensor *th = k->n_in ? k->in[0] : NULL, *sz = k->n_in > 1 ? k->in[1] : NULL;
	int align = xk_attr_int(k, "align_corners", 0) != 0;
	int64_t out[5];

	if (!th || !sz)
		return xk_fail(k, "theta and size are required");
	int r = (int)sz->numel - 2; /* 2 or 3 spatial dims */
	if ((r != 2 && r != 3) || th->rank != 3 || th->dims[1] != r || th->dims[2] != r + 1)
		return xk_fail(k, "theta must be [N, %d, %d] for a size of %lld values (4 or 5)", r, r + 1,
			       (long long)sz->numel);
	int64_t N = xt_get_int(sz, 0), sp[3] = {1, 1, 1}, cnt = 1;
	if (N != th->dims[0])
		return xk_fail(k, "size's N is %lld, theta's %lld", (long long)N, (long long)th->dims[0]);
	out[0] = N;
	for (int i = 0; i < r; i++) {
		sp[3 - r + i] = xt_get_int(sz, 2 + i);
		if (sp[3 - r + i] < 0 || sp[3 - r + i] > (1 << 24))
			return xk_fail(k, "size holds a dim out of range");
		out[1 + i] = sp[3 - r + i];
		cnt *= sp[3 - r + i];
	}
	out[1 + r] = r;
	if (xk_output(k, 0, th->dtype, r + 2, out))
		return -1;
	int64_t at = 0;
	for (int64_t n = 0; n < N; n++)
		for (int64_t dz = 0; dz < sp[0]; dz++)
			for (int64_t hy = 0; hy < sp[1]; hy++)
				for (int64_t wx = 0; wx < sp[2]; wx++) {
					/* the homogeneous point (x, y[, z], 1): x along W, y along H, z along D */
					double pt[4] = {affine_base(wx, sp[2], align), affine_base(hy, sp[1], align),
							r == 3 ? affine_base(dz, sp[0], align) : 1, 1};
					for (int i = 0; i < r; i++) {
						double v = 0;
						for (int j = 0; j <= r; j++)
							v += xt_get(th, (n * r + i) * (r + 1) + j) * pt[j];
						xt_set(k->out[0], at++, v);
					}
				}
	return 0;
}

const struct exec_kernel cpu_resize_kernels[] = {
	{.op = "Resize", .since = 10, .fn = kernel_resize},
	{.op = "Upsample", .since = 7, .fn = kernel_upsample},
	{.op = "DepthToSpace", .since = 1, .fn = kernel_depth_to_space},
	{.op = "SpaceToDepth", .since = 1, .fn = kernel_space_to_depth},
	{.op = "GridSample", .since = 16, .fn = kernel_grid_sample},
	{.op = "AffineGrid", .since = 20, .fn = kernel_affine_grid},
};
const size_t cpu_resize_count = sizeof cpu_resize_kernels / sizeof cpu_resize_kernels[0];
