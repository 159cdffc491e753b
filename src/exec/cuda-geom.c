/* A convolution window as cuDNN's 2-D descriptors take it (symmetric pads, int sizes); see cuda-geom.h. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "src/exec/cuda-geom.h"
#include "src/exec/ov-window.h"

static int fits(int64_t v)
{
	return v >= 0 && v <= INT_MAX;
}

int conv2d_geom_from_window(const struct cpu_window *win, const int64_t *x, const int64_t *wt, int64_t group,
			    struct conv2d_geom *g, char *why, size_t why_len)
{
	int64_t in[2] = {1, 1}, k[2] = {1, 1}, s[2] = {1, 1}, d[2] = {1, 1}, pb[2] = {0, 0}, pe[2] = {0, 0};
	int64_t out[2] = {1, 1}, pad[2], full[2];

	memset(g, 0, sizeof *g);
	if (win->n < 1 || win->n > 2) {
		snprintf(why, why_len, "%d spatial dims (the CUDA convolution takes 1 or 2)", win->n);
		return -1;
	}
	/* 1-D: the one spatial dim is W, and H is 1 */
	for (int i = 0; i < win->n; i++) {
		int j = win->n == 1 ? 1 : i;
		in[j] = win->in[i];
		k[j] = win->k[i];
		s[j] = win->s[i];
		d[j] = win->d[i];
		pb[j] = win->pb[i];
		pe[j] = win->pe[i];
		out[j] = win->out[i];
	}
	for (int j = 0; j < 2; j++) {
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
	}
	int64_t vals[] = {x[0], x[1], full[0], full[1], wt[0], k[0], k[1], group, pad[0], pad[1],
			  s[0], s[1], d[0], d[1], out[0], out[1]};
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
		if (!fits(vals[i])) {
			snprintf(why, why_len, "a size or attribute is beyond the range of int");
			return -1;
		}
	/* cuDNN's legacy tensors hold at most 2^31 - 1 elements */
	int64_t in_plane = full[0] * full[1], out_plane = out[0] * out[1];
	if (x[0] * x[1] > INT_MAX / (in_plane > 0 ? in_plane : 1) ||
	    x[0] * wt[0] > INT_MAX / (out_plane > 0 ? out_plane : 1)) {
		snprintf(why, why_len, "the input or output has 2^31 elements or more");
		return -1;
	}
	g->n = (int)x[0];
	g->c = (int)x[1];
	g->h = (int)full[0];
	g->w = (int)full[1];
	g->k = (int)wt[0];
	g->kh = (int)k[0];
	g->kw = (int)k[1];
	g->group = (int)group;
	g->pad_h = (int)pad[0];
	g->pad_w = (int)pad[1];
	g->sh = (int)s[0];
	g->sw = (int)s[1];
	g->dh = (int)d[0];
	g->dw = (int)d[1];
	g->oh = (int)out[0];
	g->ow = (int)out[1];
	g->in_h = in[0];
	g->in_w = in[1];
	return 0;
}
