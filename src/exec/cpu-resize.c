/* CPU resampling and rearrangement: Resize (nearest/linear/cubic, every coordinate transformation and nearest mode,
 * roi and extrapolation, antialias, axes and keep_aspect_ratio_policy), Upsample, DepthToSpace, SpaceToDepth and
 * GridSample.  The arithmetic is src/exec/ov-resize.h's; linear and cubic run separably, one axis at a time. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/dtype.h"
#include "src/exec/cpu-nn.h"
#include "src/exec/exec.h"
#include "src/exec/ov-resize.h"

/* ---- Resize ----------------------------------------------------------------------------------------------------- */

struct resize_params {
	enum ov_resize_mode mode;
	enum ov_resize_coord coord;
	enum ov_resize_nearest nearest;
	double cubic_a, extrapolation;
	int exclude_outside, antialias;
	int rank;
	int64_t in[XT_MAX_RANK], out[XT_MAX_RANK];
	double scale[XT_MAX_RANK], roi_start[XT_MAX_RANK], roi_end[XT_MAX_RANK];
};

/* One axis's filter: for output o, input indices [lo[o], lo[o] + n[o]) with weights w[woff[o] ...]; outside[o]
 * when tf_crop_and_resize extrapolates there. */
struct resize_axis {
	int identity;
	int64_t *lo, *n, *woff;
	double *w;
	unsigned char *outside;
	int any_outside;
};

static void axis_free(struct resize_axis *a)
{
	free(a->lo);
	free(a->n);
	free(a->woff);
	free(a->w);
	free(a->outside);
	memset(a, 0, sizeof *a);
}

static int parse_coord(const char *s, enum ov_resize_coord *c)
{
	static const struct {
		const char *name;
		enum ov_resize_coord v;
	} t[] = {
		{"half_pixel", OV_RC_HALF_PIXEL},
		{"half_pixel_symmetric", OV_RC_HALF_PIXEL_SYMMETRIC},
		{"pytorch_half_pixel", OV_RC_PYTORCH_HALF_PIXEL},
		{"align_corners", OV_RC_ALIGN_CORNERS},
		{"asymmetric", OV_RC_ASYMMETRIC},
		{"tf_half_pixel_for_nn", OV_RC_TF_HALF_PIXEL_FOR_NN},
		{"tf_crop_and_resize", OV_RC_TF_CROP_AND_RESIZE},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (!strcmp(s, t[i].name)) {
			*c = t[i].v;
			return 0;
		}
	return -1;
}

static int parse_nearest(const char *s, enum ov_resize_nearest *m)
{
	if (!strcmp(s, "round_prefer_floor"))
		*m = OV_RN_ROUND_PREFER_FLOOR;
	else if (!strcmp(s, "round_prefer_ceil"))
		*m = OV_RN_ROUND_PREFER_CEIL;
	else if (!strcmp(s, "floor"))
		*m = OV_RN_FLOOR;
	else if (!strcmp(s, "ceil"))
		*m = OV_RN_CEIL;
	else
		return -1;
	return 0;
}

/* Build the filter of axis a. */
static int axis_build(struct exec_kernel_ctx *k, const struct resize_params *p, int a, struct resize_axis *ax)
{
	int64_t in = p->in[a], out = p->out[a];
	double scale = p->scale[a];
	int crop = p->coord == OV_RC_TF_CROP_AND_RESIZE;

	memset(ax, 0, sizeof *ax);
	if (out == 0)
		return 0;
	if (in == 0)
		return xk_fail(k, "cannot resize an empty axis %d to %lld", a, (long long)out);
	/* identity: same length and every coordinate lands on its own index */
	ax->identity = in == out;
	for (int64_t o = 0; ax->identity && o < out; o++)
		if (ov_resize_coord(p->coord, (double)o, scale, in, out, p->roi_start[a], p->roi_end[a]) != (double)o)
			ax->identity = 0;
	if (ax->identity)
		return 0;
	double fs = p->antialias && p->mode != OV_RM_NEAREST && scale < 1 ? scale : 1;
	int64_t first = 0, count = 1;
	if (p->mode != OV_RM_NEAREST) {
		if (!(fs > 1e-7))
			return xk_fail(k, "scale %g on axis %d is too small to filter", scale, a);
		ov_resize_taps(p->mode, fs, &first, &count);
	}
	int64_t maxw = count < in ? count : in;
	if (out > (1ll << 40) / maxw)
		return xk_fail(k, "a resize filter of %lld x %lld taps is too large", (long long)out, (long long)maxw);
	ax->lo = malloc((size_t)out * sizeof *ax->lo);
	ax->n = malloc((size_t)out * sizeof *ax->n);
	ax->woff = malloc((size_t)out * sizeof *ax->woff);
	ax->outside = calloc((size_t)out, 1);
	ax->w = malloc((size_t)(out * maxw) * sizeof *ax->w);
	double *tmp = malloc((size_t)in * sizeof *tmp);
	if (!ax->lo || !ax->n || !ax->woff || !ax->outside || !ax->w || !tmp) {
		free(tmp);
		axis_free(ax);
		return xk_fail(k, "out of memory for a resize filter of %lld x %lld", (long long)out, (long long)maxw);
	}
	int64_t wpos = 0;
	for (int64_t o = 0; o < out; o++) {
		double x = ov_resize_coord(p->coord, (double)o, scale, in, out, p->roi_start[a], p->roi_end[a]);
		if (crop && (x < 0 || x > (double)(in - 1))) {
			ax->outside[o] = 1;
			ax->any_outside = 1;
		}
		ax->woff[o] = wpos;
		if (p->mode == OV_RM_NEAREST) {
			int64_t i = ov_resize_nearest(p->nearest, x, scale < 1);
			ax->lo[o] = i < 0 ? 0 : i >= in ? in - 1 : i;
			ax->n[o] = 1;
			ax->w[wpos++] = 1;
			continue;
		}
		/* taps floor(x) + first ... ; out-of-range taps take the edge value (or weight 0 with
		 * exclude_outside); gather the weights per input index */
		double fx = floor(x), t = x - fx;
		if (!(fabs(fx) < 4e18)) /* NaN or absurd coordinates: clamp to the start */
			fx = 0, t = 0;
		int64_t base = (int64_t)fx + first, last = base + count - 1;
		/* the taps are consecutive, so their clamped (or kept) indices form the range [lo, hi] */
		int64_t lo = base < 0 ? 0 : base >= in ? in - 1 : base;
		int64_t hi = last < 0 ? 0 : last >= in ? in - 1 : last;
		if (p->exclude_outside && (last < 0 || base >= in))
			hi = lo - 1;
		for (int64_t j = lo; j <= hi; j++)
			tmp[j] = 0;
		double sum = 0;
		for (int64_t i = 0; i < count && hi >= lo; i++) {
			int64_t idx = base + i;
			if (p->exclude_outside && (idx < 0 || idx >= in))
				continue;
			double wv = ov_resize_weight(p->mode, fs, p->cubic_a, first + i, t);
			tmp[idx < lo ? lo : idx > hi ? hi : idx] += wv;
			sum += wv;
		}
		if (hi < lo) { /* every tap excluded */
			lo = hi = 0;
			tmp[0] = 0;
		}
		int normalize = (p->antialias && fs < 1) || p->exclude_outside;
		ax->lo[o] = lo;
		ax->n[o] = hi - lo + 1;
		for (int64_t j = lo; j <= hi; j++)
			ax->w[wpos++] = normalize && sum != 0 ? tmp[j] / sum : tmp[j];
	}
	free(tmp);
	return 0;
}

/* One separable pass along axis a: x (outer, in, inner) -> y (outer, out, inner). */
#define DEFINE_PASS(T, NAME)                                                                                     \
	static void NAME(const T *x, T *y, int64_t outer, int64_t in, int64_t out, int64_t inner,                \
			 const struct resize_axis *ax)                                                           \
	{                                                                                                        \
		for (int64_t ou = 0; ou < outer; ou++)                                                           \
			for (int64_t o = 0; o < out; o++) {                                                      \
				T *yr = y + (ou * out + o) * inner;                                              \
				const double *w = ax->w + ax->woff[o];                                           \
				const T *xr = x + (ou * in + ax->lo[o]) * inner;                                 \
				if (inner == 1) {                                                                \
					double acc = 0;                                                          \
					for (int64_t t = 0; t < ax->n[o]; t++)                                   \
						acc += w[t] * xr[t];                                             \
					yr[0] = (T)acc;                                                          \
					continue;                                                                \
				}                                                                                \
				for (int64_t i = 0; i < inner; i++)                                              \
					yr[i] = 0;                                                               \
				for (int64_t t = 0; t < ax->n[o]; t++) {                                         \
					T wt = (T)w[t];                                                          \
					const T *xs = xr + t * inner;                                            \
					if (wt == 0)                                                             \
						continue;                                                        \
					for (int64_t i = 0; i < inner; i++)                                      \
						yr[i] += wt * xs[i];                                             \
				}                                                                                \
			}                                                                                        \
	}

DEFINE_PASS(float, pass_f)
DEFINE_PASS(double, pass_d)

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
	int64_t row = p->out[r - 1], nrows = row ? y->numel / row : 0;
	for (int64_t ro = 0; ro < nrows; ro++) {
		int64_t off = 0;
		for (int i = 0; i < r - 1; i++)
			off += (axes[i].identity ? idx[i] : axes[i].lo[idx[i]]) * str[i];
		const char *src = (const char *)x->data + (size_t)off * es;
		char *dst = (char *)y->data + (size_t)(ro * row) * es;
		if (last->identity)
			memcpy(dst, src, (size_t)row * es);
		else if (es == 4)
			for (int64_t o = 0; o < row; o++)
				memcpy(dst + o * 4, src + last->lo[o] * 4, 4);
		else
			for (int64_t o = 0; o < row; o++)
				memcpy(dst + (size_t)o * es, src + (size_t)last->lo[o] * es, es);
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

/* Read Resize's / Upsample's attributes and inputs into p. */
static int resize_read(struct exec_kernel_ctx *k, int upsample, struct resize_params *p)
{
	const struct xtensor *x = k->in[0];
	char buf[64];
	float fsc[XT_MAX_RANK];
	double scales[XT_MAX_RANK], sizes_d[XT_MAX_RANK], roi[2 * XT_MAX_RANK];
	int64_t axes[XT_MAX_RANK];
	int r = x->rank;

	memset(p, 0, sizeof *p);
	p->rank = r;
	xk_attr_str(k, "mode", "nearest", buf, sizeof buf);
	if (!strcmp(buf, "nearest"))
		p->mode = OV_RM_NEAREST;
	else if (!strcmp(buf, "linear") || !strcmp(buf, "bilinear") || !strcmp(buf, "trilinear"))
		p->mode = OV_RM_LINEAR;
	else if (!strcmp(buf, "cubic") && !upsample && k->opset >= 11)
		p->mode = OV_RM_CUBIC;
	else
		return xk_fail(k, "unknown mode '%s'", buf);
	int v11 = !upsample && k->opset >= 11;
	if (v11) {
		if (parse_coord(xk_attr_str(k, "coordinate_transformation_mode", "half_pixel", buf, sizeof buf),
				&p->coord))
			return xk_fail(k, "unknown coordinate_transformation_mode '%s'", buf);
		if (parse_nearest(xk_attr_str(k, "nearest_mode", "round_prefer_floor", buf, sizeof buf), &p->nearest))
			return xk_fail(k, "unknown nearest_mode '%s'", buf);
	} else {
		p->coord = OV_RC_ASYMMETRIC;
		p->nearest = OV_RN_SIMPLE;
	}
	p->cubic_a = xk_attr_float(k, "cubic_coeff_a", -0.75f);
	p->exclude_outside = xk_attr_int(k, "exclude_outside", 0) != 0;
	p->extrapolation = xk_attr_float(k, "extrapolation_value", 0.0f);
	p->antialias = k->opset >= 18 && !upsample && xk_attr_int(k, "antialias", 0) != 0;
	int64_t na = k->opset >= 18 && !upsample ? xk_attr_ints(k, "axes", axes, XT_MAX_RANK) : -1;
	if (na > r)
		return xk_fail(k, "axes has %lld values for rank %d", (long long)na, r);
	if (na < 0) {
		na = r;
		for (int i = 0; i < r; i++)
			axes[i] = i;
	}
	for (int64_t i = 0; i < na; i++) {
		if (axes[i] < -r || axes[i] >= r)
			return xk_fail(k, "axis %lld is out of range for rank %d", (long long)axes[i], r);
		if (axes[i] < 0)
			axes[i] += r;
		for (int64_t j = 0; j < i; j++)
			if (axes[j] == axes[i])
				return xk_fail(k, "axis %lld is repeated", (long long)axes[i]);
	}
	for (int i = 0; i < r; i++) {
		p->in[i] = p->out[i] = x->dims[i];
		p->scale[i] = 1;
		p->roi_start[i] = 0;
		p->roi_end[i] = 1;
	}
	/* scales / sizes / roi */
	const struct xtensor *troi = NULL, *tsc = NULL, *tsz = NULL;
	int64_t nsc = -1;
	if (upsample && k->opset < 9) {
		nsc = xk_attr_floats(k, "scales", fsc, XT_MAX_RANK);
		for (int64_t i = 0; i < nsc && i < XT_MAX_RANK; i++)
			scales[i] = fsc[i];
	} else if (!v11) {
		tsc = k->n_in > 1 ? k->in[1] : NULL;
	} else {
		troi = k->n_in > 1 ? k->in[1] : NULL;
		tsc = k->n_in > 2 ? k->in[2] : NULL;
		tsz = k->n_in > 3 ? k->in[3] : NULL;
	}
	if (tsc && tsc->numel) {
		nsc = tsc->numel; /* compared with the axes below; only that many are read */
		cpu_read_doubles(tsc, scales, XT_MAX_RANK);
	}
	if (tsz && tsz->numel) {
		if (tsz->numel != na)
			return xk_fail(k, "sizes has %lld values for %lld axes", (long long)tsz->numel, (long long)na);
		if (nsc > 0)
			return xk_fail(k, "only one of scales and sizes may be given");
		cpu_read_doubles(tsz, sizes_d, XT_MAX_RANK);
		char pol[32];
		xk_attr_str(k, "keep_aspect_ratio_policy", "stretch", pol, sizeof pol);
		int keep = k->opset >= 18 && strcmp(pol, "stretch");
		if (keep && strcmp(pol, "not_larger") && strcmp(pol, "not_smaller"))
			return xk_fail(k, "unknown keep_aspect_ratio_policy '%s'", pol);
		double s = strcmp(pol, "not_larger") ? 0 : INFINITY;
		for (int64_t i = 0; i < na; i++) {
			int64_t in = x->dims[axes[i]];
			if (!(sizes_d[i] >= 0 && sizes_d[i] <= (double)(1ll << 40))) /* NaN too */
				return xk_fail(k, "size %g is out of range", sizes_d[i]);
			if (in == 0 && sizes_d[i] > 0)
				return xk_fail(k, "cannot resize an empty axis to %g", sizes_d[i]);
			double ratio = in ? sizes_d[i] / (double)in : 1;
			s = strcmp(pol, "not_larger") ? (ratio > s ? ratio : s) : (ratio < s ? ratio : s);
		}
		for (int64_t i = 0; i < na; i++) {
			int a = (int)axes[i];
			if (keep) {
				double o = nearbyint(s * (double)p->in[a]);
				if (!(o >= 0 && o <= (double)(1ll << 40)))
					return xk_fail(k, "keeping the aspect ratio makes axis %d %g long, out of range", a, o);
				p->scale[a] = s;
				p->out[a] = (int64_t)o;
			} else {
				p->out[a] = (int64_t)sizes_d[i];
				p->scale[a] = p->in[a] ? (double)p->out[a] / (double)p->in[a] : 1;
			}
		}
	} else if (nsc > 0) {
		if (nsc != na)
			return xk_fail(k, "scales has %lld values for %lld axes", (long long)nsc, (long long)na);
		for (int64_t i = 0; i < na; i++) {
			int a = (int)axes[i];
			if (!(scales[i] > 0) || scales[i] > 1e9)
				return xk_fail(k, "scale %g on axis %d must be positive", scales[i], a);
			p->scale[a] = scales[i];
			double o = scales[i] == 1 ? (double)p->in[a] : floor((double)p->in[a] * scales[i] + 1e-9);
			if (o > (double)(1ll << 40))
				return xk_fail(k, "scale %g makes axis %d too large", scales[i], a);
			p->out[a] = (int64_t)o;
		}
	} else {
		return xk_fail(k, "neither scales nor sizes is given");
	}
	if (troi && troi->numel && p->coord == OV_RC_TF_CROP_AND_RESIZE) {
		if (troi->numel != 2 * na)
			return xk_fail(k, "roi has %lld values for %lld axes", (long long)troi->numel, (long long)na);
		cpu_read_doubles(troi, roi, 2 * XT_MAX_RANK);
		for (int64_t i = 0; i < na; i++) {
			p->roi_start[axes[i]] = roi[i];
			p->roi_end[axes[i]] = roi[na + i];
		}
	}
	return 0;
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
	if (resize_read(k, upsample, &p))
		return -1;
	if (p.mode != OV_RM_NEAREST && x->dtype == OV_DT_BOOL)
		return xk_fail(k, "linear/cubic resizing of bool is not supported");
	memset(axes, 0, sizeof axes);
	if (xk_output(k, 0, x->dtype, x->rank, p.out))
		return -1;
	if (k->out[0]->numel) {
		for (int a = 0; a < p.rank; a++)
			if (axis_build(k, &p, a, &axes[a]))
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
		axis_free(&axes[a]);
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
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;
	int64_t b = xk_attr_int(k, "blocksize", 0);
	char mode[16];

	if (!x)
		return xk_fail(k, "input is required");
	if (x->rank != 4)
		return xk_fail(k, "input must be 4-D (N, C, H, W), got rank %d", x->rank);
	if (b <= 0 || b > (1 << 20))
		return xk_fail(k, "blocksize %lld must be positive", (long long)b);
	size_t es = xt_elem_size(x->dtype);
	if (!es || x->dtype == OV_DT_STRING)
		return xk_fail(k, "%s is not supported", dtype_short_name(x->dtype));
	int64_t n = x->dims[0], c = x->dims[1], h = x->dims[2], w = x->dims[3], out[4];
	int crd = to_space && !strcmp(xk_attr_str(k, "mode", "DCR", mode, sizeof mode), "CRD");
	if (to_space && strcmp(mode, "DCR") && strcmp(mode, "CRD"))
		return xk_fail(k, "unknown mode '%s'", mode);
	if (to_space) {
		if (c % (b * b))
			return xk_fail(k, "%lld channels are not divisible by blocksize^2 = %lld", (long long)c,
				       (long long)(b * b));
		out[0] = n, out[1] = c / (b * b), out[2] = h * b, out[3] = w * b;
	} else {
		if (h % b || w % b)
			return xk_fail(k, "H %lld and W %lld must be divisible by blocksize %lld", (long long)h,
				       (long long)w, (long long)b);
		out[0] = n, out[1] = c * b * b, out[2] = h / b, out[3] = w / b;
	}
	if (xk_output(k, 0, x->dtype, 4, out))
		return -1;
	const char *src = x->data;
	char *dst = k->out[0]->data;
	int64_t oc = out[1], oh = out[2], ow = out[3];
	for (int64_t in = 0; in < n; in++)
		for (int64_t co = 0; co < oc; co++)
			for (int64_t y = 0; y < oh; y++)
				for (int64_t xx = 0; xx < ow; xx++) {
					int64_t ci, yi, xi;
					if (to_space) {
						int64_t by = y % b, bx = xx % b;
						ci = crd ? co * b * b + by * b + bx : (by * b + bx) * oc + co;
						yi = y / b, xi = xx / b;
					} else {
						/* output channel = (by * b + bx) * C + c */
						int64_t cc = co % c, blk = co / c;
						ci = cc, yi = y * b + blk / b, xi = xx * b + blk % b;
					}
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

/* The value of plane xp at integer position idx (one per spatial dim) under the padding mode. */
static double gs_pixel(const struct xtensor *x, int64_t plane_off, const int64_t *dims, int r, const int64_t *idx,
		       enum gs_pad pad, int align)
{
	int64_t off = 0;

	for (int i = 0; i < r; i++) {
		int64_t v = idx[i];
		if (v < 0 || v >= dims[i]) {
			if (pad == GS_ZEROS)
				return 0;
			if (pad == GS_REFLECTION) {
				double lo = align ? 0 : -0.5, hi = align ? (double)(dims[i] - 1) : (double)dims[i] - 0.5;
				v = (int64_t)floor(ov_grid_reflect((double)v, lo, hi) + 0.5);
			}
			v = v < 0 ? 0 : v >= dims[i] ? dims[i] - 1 : v;
		}
		off = off * dims[i] + v;
	}
	return x->dtype == OV_DT_FLOAT ? ((const float *)x->data)[plane_off + off] : xt_get(x, plane_off + off);
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
	if (!plane) /* nothing to sample from: zeros */
		return 0;
	const int64_t *dims = x->dims + 2;
	int ntap = mode == OV_RM_CUBIC ? 4 : mode == OV_RM_LINEAR ? 2 : 1;
	int64_t combos = 1;
	for (int i = 0; i < r; i++)
		combos *= ntap;
	for (int64_t n = 0; n < nb; n++)
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
			for (int64_t ch = 0; ch < c; ch++) {
				int64_t plane_off = (n * c + ch) * plane;
				double acc = 0;
				for (int64_t cb = 0; cb < combos; cb++) {
					int64_t idx[XT_MAX_RANK], rem = cb;
					double w = 1;
					for (int i = r - 1; i >= 0; i--) {
						int j = (int)(rem % ntap);
						rem /= ntap;
						idx[i] = base[i] + j;
						w *= wt[i][j];
					}
					if (w != 0)
						acc += w * gs_pixel(x, plane_off, dims, r, idx, pad, align);
				}
				int64_t at = (n * c + ch) * opts + o;
				if (y->dtype == OV_DT_FLOAT)
					((float *)y->data)[at] = (float)acc;
				else
					xt_set(y, at, acc);
			}
		}
	return 0;
}

const struct exec_kernel cpu_resize_kernels[] = {
	{"Resize", 10, kernel_resize},
	{"Upsample", 7, kernel_upsample},
	{"DepthToSpace", 1, kernel_depth_to_space},
	{"SpaceToDepth", 1, kernel_space_to_depth},
	{"GridSample", 16, kernel_grid_sample},
};
const size_t cpu_resize_count = sizeof cpu_resize_kernels / sizeof cpu_resize_kernels[0];
