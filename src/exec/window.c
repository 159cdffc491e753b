/* Reading a sliding window's attributes (kernel_shape, strides, dilations, pads, auto_pad) into struct cpu_window,
 * checked, with the output sizes from src/exec/ov-window.h.  It lives in the core library rather than with the CPU
 * kernels so that every backend reads windows the same way (the CUDA convolution and pooling kernels use it). */
#include "config.h"

#include <string.h>

#include "src/exec/cpu-nn.h"
#include "src/exec/exec.h"
#include "src/exec/ov-window.h"

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

int cpu_window_read(struct exec_kernel_ctx *k, const struct xtensor *x, const int64_t *kshape, int ceil_mode,
		    int transpose, struct cpu_window *w)
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
