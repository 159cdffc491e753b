/* Reading a sliding window's attributes (kernel_shape, strides, dilations, pads, auto_pad) into struct ops_window,
 * checked, with the output sizes from src/exec/ops/ov-window.h, and LpPool's p.  It lives in the core library rather than with the CPU
 * kernels so that every backend reads windows the same way (the CUDA convolution and pooling kernels use it). */
#include "config.h"

#include <string.h>

#include "src/exec/ops/ops.h"
#include "src/exec/exec.h"
#include "src/exec/ops/ov-window.h"

static enum ov_auto_pad parse_auto_pad(const char *s, int *bad)
{
	*bad = 0;
	if (!s[0] || !strcmp(s, "NOTSET"))
		return OV_PAD_NOTSET;
	if (!strcmp(s, "SAME_UPPER"))
		return OV_PAD_SAME_UPPER;
	if (!strcmp(s, "SAME_LOWER"))
		return OV_PAD_SAME_LOWER;
	if (!strcmp(s, "VALID"))
		return OV_PAD_VALID;
	*bad = 1;
	return OV_PAD_NOTSET;
}

int ops_window_read(struct exec_kernel_ctx *k, const struct xtensor *x, const int64_t *kshape, int ceil_mode,
		    int transpose, struct ops_window *w)
{
	char buf[32];
	int64_t tmp[2 * XT_MAX_RANK];
	int bad;

	memset(w, 0, sizeof *w);
	if (x->rank < 3)
		return xk_fail(k, "input has rank %d; a window needs (N, C, spatial...)", x->rank);
	int n = w->n = x->rank - 2;
	int64_t nk = xk_attr_ints(k, "kernel_shape", tmp, XT_MAX_RANK);
	if (nk >= 0 && nk != n)
		return xk_fail(k, "kernel_shape has %lld values for %d spatial dims", (long long)nk, n);
	for (int i = 0; i < n; i++) {
		if (nk >= 0 && kshape && tmp[i] != kshape[i])
			return xk_fail(k, "kernel_shape[%d] = %lld but the weight's kernel is %lld", i,
				       (long long)tmp[i], (long long)kshape[i]);
		w->k[i] = kshape ? kshape[i] : tmp[i];
	}
	if (nk < 0 && !kshape)
		return xk_fail(k, "kernel_shape is missing");
	for (int i = 0; i < n; i++) {
		w->in[i] = x->dims[2 + i];
		w->s[i] = w->d[i] = 1;
	}
	int64_t ns = xk_attr_ints(k, "strides", w->s, XT_MAX_RANK);
	int64_t nd = xk_attr_ints(k, "dilations", w->d, XT_MAX_RANK);
	int64_t np = xk_attr_ints(k, "pads", tmp, 2 * XT_MAX_RANK);
	if (ns >= 0 && ns != n)
		return xk_fail(k, "strides has %lld values for %d spatial dims", (long long)ns, n);
	if (nd >= 0 && nd != n)
		return xk_fail(k, "dilations has %lld values for %d spatial dims", (long long)nd, n);
	if (np >= 0 && np != 2 * n)
		return xk_fail(k, "pads has %lld values for %d spatial dims (needs %d)", (long long)np, n, 2 * n);
	w->auto_pad = parse_auto_pad(xk_attr_str(k, "auto_pad", "NOTSET", buf, sizeof buf), &bad);
	if (bad)
		return xk_fail(k, "unknown auto_pad '%s'", buf);
	w->in_size = w->k_size = w->out_size = 1;
	for (int i = 0; i < n; i++) {
		w->pb[i] = np >= 0 ? tmp[i] : 0;
		w->pe[i] = np >= 0 ? tmp[n + i] : 0;
		if (w->k[i] <= 0)
			return xk_fail(k, "kernel size %lld on spatial dim %d", (long long)w->k[i], i);
		if (w->s[i] <= 0)
			return xk_fail(k, "stride %lld on spatial dim %d must be positive", (long long)w->s[i], i);
		if (w->d[i] <= 0)
			return xk_fail(k, "dilation %lld on spatial dim %d must be positive", (long long)w->d[i], i);
		if (w->pb[i] < 0 || w->pe[i] < 0)
			return xk_fail(k, "negative pads (%lld, %lld) on spatial dim %d are not supported",
				       (long long)w->pb[i], (long long)w->pe[i], i);
		if (w->k[i] > (1ll << 31) || w->s[i] > (1ll << 31) || w->d[i] > (1ll << 31) ||
		    w->pb[i] > (1ll << 31) || w->pe[i] > (1ll << 31))
			return xk_fail(k, "window attributes on spatial dim %d are out of range", i);
		if (!transpose) {
			ov_window_auto_pad(w->auto_pad, w->in[i], w->k[i], w->s[i], w->d[i], &w->pb[i], &w->pe[i]);
			w->out[i] = ov_window_out(w->in[i], w->k[i], w->s[i], w->d[i], w->pb[i], w->pe[i], ceil_mode);
			if (w->out[i] < 0)
				return xk_fail(k, "the kernel (%lld, dilation %lld) is larger than the padded input "
						  "(%lld + %lld + %lld) on spatial dim %d",
					       (long long)w->k[i], (long long)w->d[i], (long long)w->in[i],
					       (long long)w->pb[i], (long long)w->pe[i], i);
			if (w->out[i] && w->out_size > (1ll << 40) / w->out[i])
				return xk_fail(k, "the output would have more than 2^40 elements");
			w->out_size *= w->out[i];
		}
		w->in_size *= w->in[i];
		w->k_size *= w->k[i];
	}
	return 0;
}

/* d1 and d2 (64 bytes) get the descriptions of x and wt, for a message: made only when there is one to give (every
 * Conv of every run checks its shapes). */
static void xw_describe(const struct xtensor *x, const struct xtensor *wt, char *d1, char *d2)
{
	xt_describe(x, d1, 64);
	xt_describe(wt, d2, 64);
}

/* A convolution's X and W, both given, of the same rank (3 or more). */
static int xw_check(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *wt, char *d1, char *d2)
{
	if (!x || !wt)
		return xk_fail(k, "X and W are required");
	if (x->rank < 3 || wt->rank != x->rank) {
		xw_describe(x, wt, d1, d2);
		return xk_fail(k, "X %s and W %s must have the same rank, at least 3", d1, d2);
	}
	return 0;
}

int ops_convt_setup(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *wt,
		    const struct xtensor *b, struct ops_window *w_out, int64_t *out, int64_t *group_out)
{
	struct ops_window w;
	int64_t opad[XT_MAX_RANK], oshape[XT_MAX_RANK + 2];
	char d1[64], d2[64];

	if (xw_check(k, x, wt, d1, d2))
		return -1;
	if (wt->dtype != x->dtype || (b && b->dtype != x->dtype))
		return xk_fail(k, "X, W and B must have the same element type");
	int64_t group = xk_attr_int(k, "group", 1);
	if (group <= 0 || group > (1ll << 20))
		return xk_fail(k, "group %lld is out of range", (long long)group);
	int64_t c = x->dims[1], m = wt->dims[1] * group;
	if (wt->dims[0] != c || c % group) {
		xw_describe(x, wt, d1, d2);
		return xk_fail(k, "X %s has %lld channels; W %s with group %lld needs %lld, divisible by the group", d1,
			       (long long)c, d2, (long long)group, (long long)wt->dims[0]);
	}
	if (b && (b->rank != 1 || b->dims[0] != m))
		return xk_fail(k, "B has %lld values for %lld output channels", (long long)b->numel, (long long)m);
	if (ops_window_read(k, x, wt->dims + 2, 0, 1, &w))
		return -1;
	int n = w.n;
	for (int i = 0; i < n; i++)
		opad[i] = 0;
	int64_t nop = xk_attr_ints(k, "output_padding", opad, XT_MAX_RANK);
	if (nop >= 0 && nop != n)
		return xk_fail(k, "output_padding has %lld values for %d spatial dims", (long long)nop, n);
	int64_t nos = xk_attr_ints(k, "output_shape", oshape, XT_MAX_RANK + 2);
	if (nos >= 0 && nos != n && nos != n + 2)
		return xk_fail(k, "output_shape has %lld values for %d spatial dims", (long long)nos, n);
	const int64_t *os = nos == n + 2 ? oshape + 2 : oshape;
	w.out_size = 1;
	for (int i = 0; i < n; i++) {
		if (w.s[i] > 0 && w.in[i] > (1ll << 40) / w.s[i])
			return xk_fail(k, "stride %lld on spatial dim %d is out of range", (long long)w.s[i], i);
		if (opad[i] < 0 || opad[i] > (1ll << 31))
			return xk_fail(k, "output_padding %lld is out of range", (long long)opad[i]);
		if (nos >= 0) {
			if (os[i] < 0 || os[i] > (1ll << 40))
				return xk_fail(k, "output_shape %lld is out of range", (long long)os[i]);
			w.out[i] = os[i];
			ov_window_transpose_pads(w.auto_pad, w.in[i], w.k[i], w.s[i], w.d[i], opad[i], os[i], &w.pb[i],
						 &w.pe[i]);
		} else if (w.auto_pad == OV_PAD_SAME_UPPER || w.auto_pad == OV_PAD_SAME_LOWER) {
			w.out[i] = w.in[i] * w.s[i];
			ov_window_transpose_pads(w.auto_pad, w.in[i], w.k[i], w.s[i], w.d[i], opad[i], w.out[i],
						 &w.pb[i], &w.pe[i]);
		} else {
			if (w.auto_pad == OV_PAD_VALID)
				w.pb[i] = w.pe[i] = 0;
			w.out[i] = ov_window_transpose_out(w.in[i], w.k[i], w.s[i], w.d[i], opad[i], w.pb[i], w.pe[i]);
		}
		if (w.out[i] < 0)
			return xk_fail(k, "output size %lld on spatial dim %d is negative (pads too large)",
				       (long long)w.out[i], i);
		out[2 + i] = w.out[i];
		if (w.out[i] && w.out_size > (1ll << 40) / w.out[i])
			return xk_fail(k, "the output would have more than 2^40 elements");
		w.out_size *= w.out[i];
	}
	out[0] = x->dims[0];
	out[1] = m;
	*w_out = w;
	*group_out = group;
	return 0;
}

int ops_conv_setup(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *wt,
		   const struct xtensor *b, int64_t *group, struct ops_window *w, int64_t *out)
{
	char d1[64], d2[64];

	if (xw_check(k, x, wt, d1, d2))
		return -1;
	*group = xk_attr_int(k, "group", 1);
	if (*group <= 0 || *group > (1ll << 40))
		return xk_fail(k, "group %lld is out of range", (long long)*group);
	if (x->dims[1] % *group || x->dims[1] / *group != wt->dims[1]) {
		xw_describe(x, wt, d1, d2);
		return xk_fail(k, "X %s has %lld channels but W %s with group %lld expects %lld", d1,
			       (long long)x->dims[1], d2, (long long)*group, (long long)(wt->dims[1] * *group));
	}
	if (wt->dims[0] % *group) {
		xw_describe(x, wt, d1, d2);
		return xk_fail(k, "W %s: %lld output channels are not divisible by group %lld", d2,
			       (long long)wt->dims[0], (long long)*group);
	}
	if (b && (b->rank != 1 || b->dims[0] != wt->dims[0]))
		return xk_fail(k, "B has %lld values for %lld output channels", (long long)b->numel,
			       (long long)wt->dims[0]);
	if (ops_window_read(k, x, wt->dims + 2, 0, 0, w))
		return -1;
	out[0] = x->dims[0];
	out[1] = wt->dims[0];
	for (int i = 0; i < w->n; i++)
		out[2 + i] = w->out[i];
	return 0;
}

double ops_pool_lp_p(const struct exec_kernel_ctx *k)
{
	int64_t p = xk_attr_int(k, "p", -1);

	return p >= 0 ? (double)p : (double)xk_attr_float(k, "p", 2.0f);
}
