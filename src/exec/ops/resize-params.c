/* Resize's plan on the host (see ops/resize-params.h): the node read into struct resize_params and each axis's filter
 * table, for the CPU and CUDA kernels alike. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/exec.h"
#include "src/exec/ops/ov-resize.h"
#include "src/exec/ops/resize-params.h"

void resize_axis_free(struct resize_axis *a)
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

int resize_plan_axis(struct exec_kernel_ctx *k, const struct resize_params *p, int a, struct resize_axis *ax)
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
		resize_axis_free(ax);
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
	ax->nw = wpos;
	free(tmp);
	return 0;
}

/* Input i when the node gives it with some values (an omitted input, or an empty one, is not given). */
static const struct xtensor *given(const struct exec_kernel_ctx *k, int i)
{
	const struct xtensor *t = i >= 0 && (size_t)i < k->n_in ? k->in[i] : NULL;

	return t && t->numel ? t : NULL;
}

/* Up to max of input i's values as doubles, read on the host through host. */
static int read_doubles(struct exec_kernel_ctx *k, resize_host_fn host, int i, double *buf, int64_t max)
{
	const struct xtensor *t = host(k, (size_t)i);

	if (!t)
		return -1;
	for (int64_t j = 0; j < t->numel && j < max; j++)
		buf[j] = xt_get(t, j);
	return 0;
}

int resize_plan_read(struct exec_kernel_ctx *k, int upsample, resize_host_fn host, struct resize_params *p)
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
	/* input indices (-1: none): the shapes are on the host, the values are read through host only when used */
	int iroi = -1, isc = -1, isz = -1;
	int64_t nsc = -1;
	if (upsample && k->opset < 9) {
		nsc = xk_attr_floats(k, "scales", fsc, XT_MAX_RANK);
		for (int64_t i = 0; i < nsc && i < XT_MAX_RANK; i++)
			scales[i] = fsc[i];
	} else if (!v11) {
		isc = 1;
	} else {
		iroi = 1, isc = 2, isz = 3;
	}
	const struct xtensor *troi = given(k, iroi), *tsc = given(k, isc), *tsz = given(k, isz);
	if (tsc) {
		nsc = tsc->numel; /* compared with the axes below; only that many are read */
		if (read_doubles(k, host, isc, scales, XT_MAX_RANK))
			return -1;
	}
	if (tsz) {
		if (tsz->numel != na)
			return xk_fail(k, "sizes has %lld values for %lld axes", (long long)tsz->numel, (long long)na);
		if (nsc > 0)
			return xk_fail(k, "only one of scales and sizes may be given");
		if (read_doubles(k, host, isz, sizes_d, XT_MAX_RANK))
			return -1;
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
	if (troi && p->coord == OV_RC_TF_CROP_AND_RESIZE) {
		if (troi->numel != 2 * na)
			return xk_fail(k, "roi has %lld values for %lld axes", (long long)troi->numel, (long long)na);
		if (read_doubles(k, host, iroi, roi, 2 * XT_MAX_RANK))
			return -1;
		for (int64_t i = 0; i < na; i++) {
			p->roi_start[axes[i]] = roi[i];
			p->roi_end[axes[i]] = roi[na + i];
		}
	}
	return 0;
}

