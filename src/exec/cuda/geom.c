/* A convolution window as cuDNN's descriptors take it (symmetric pads, int sizes); see cuda/geom.h. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "src/exec/cuda/geom.h"
#include "src/exec/ops/ov-window.h"

static int fits(int64_t v)
{
	return v >= 0 && v <= INT_MAX;
}

int conv_geom_from_window(const struct ops_window *win, const int64_t *x, const int64_t *wt, int64_t group,
			  struct conv_geom *g, char *why, size_t why_len)
{
	int64_t in[CONV_GEOM_MAX], k[CONV_GEOM_MAX], s[CONV_GEOM_MAX], d[CONV_GEOM_MAX], pb[CONV_GEOM_MAX];
	int64_t pe[CONV_GEOM_MAX], out[CONV_GEOM_MAX], pad[CONV_GEOM_MAX], full[CONV_GEOM_MAX];

	memset(g, 0, sizeof *g);
	if (win->n < 1 || win->n > CONV_GEOM_MAX) {
		snprintf(why, why_len, "%d spatial dims (the CUDA convolution takes 1 to 3)", win->n);
		return -1;
	}
	/* 1-D: the one spatial dim is W, and H is 1 */
	int nd = win->n == 1 ? 2 : win->n, off = nd - win->n;
	for (int j = 0; j < nd; j++) {
		int i = j - off; /* the window's dim, or -1 for the H of a 1-D convolution */
		in[j] = i < 0 ? 1 : win->in[i];
		k[j] = i < 0 ? 1 : win->k[i];
		s[j] = i < 0 ? 1 : win->s[i];
		d[j] = i < 0 ? 1 : win->d[i];
		pb[j] = i < 0 ? 0 : win->pb[i];
		pe[j] = i < 0 ? 0 : win->pe[i];
		out[j] = i < 0 ? 1 : win->out[i];
	}
	int64_t in_vol = 1, out_vol = 1;
	for (int j = 0; j < nd; j++) {
		if (pb[j] == pe[j]) {
			pad[j] = pb[j];
			g->pre_b[j] = g->pre_e[j] = 0;
		} else {
			pad[j] = 0;
			g->pre_b[j] = pb[j];
			g->pre_e[j] = pe[j];
			g->explicit_pad = 1;
		}
		full[j] = in[j] + g->pre_b[j] + g->pre_e[j];
		/* cuDNN's output size: (in + 2 pad - dilated kernel) / stride + 1, which is ONNX's without ceil_mode */
		int64_t span = full[j] + 2 * pad[j] - ov_window_extent(k[j], d[j]);
		int64_t o = span < 0 ? -1 : span / s[j] + 1;
		if (o != out[j]) {
			snprintf(why, why_len, "the output size %lld on spatial dim %d is not what the window gives (%lld)",
				 (long long)o, j, (long long)out[j]);
			return -1;
		}
		if (!fits(full[j]) || !fits(k[j]) || !fits(pad[j]) || !fits(s[j]) || !fits(d[j]) || !fits(out[j])) {
			snprintf(why, why_len, "a size or attribute is beyond the range of int");
			return -1;
		}
		/* cuDNN's legacy tensors hold at most 2^31 - 1 elements */
		if ((full[j] && in_vol > INT_MAX / full[j]) || (out[j] && out_vol > INT_MAX / out[j])) {
			snprintf(why, why_len, "the input or output has 2^31 elements or more");
			return -1;
		}
		in_vol *= full[j];
		out_vol *= out[j];
	}
	if (!fits(x[0]) || !fits(x[1]) || !fits(wt[0]) || !fits(group)) {
		snprintf(why, why_len, "a size or attribute is beyond the range of int");
		return -1;
	}
	if (x[0] * x[1] > INT_MAX / (in_vol > 0 ? in_vol : 1) || x[0] * wt[0] > INT_MAX / (out_vol > 0 ? out_vol : 1)) {
		snprintf(why, why_len, "the input or output has 2^31 elements or more");
		return -1;
	}
	g->nd = nd;
	g->n = (int)x[0];
	g->c = (int)x[1];
	g->k = (int)wt[0];
	g->group = (int)group;
	for (int j = 0; j < nd; j++) {
		g->in[j] = (int)full[j];
		g->ker[j] = (int)k[j];
		g->pad[j] = (int)pad[j];
		g->s[j] = (int)s[j];
		g->d[j] = (int)d[j];
		g->out[j] = (int)out[j];
		g->raw_in[j] = in[j];
	}
	return 0;
}
