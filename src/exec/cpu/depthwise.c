/* CPU depthwise convolutions (Conv with one input channel per group) in float32, vectorised by hand
 * (src/exec/cpu/simd.h): the common 3x3 with stride 1 or 2, and every other window over a zero-padded copy of the
 * plane; the bias and the runner's fused activation applied as the output is written. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/exec/cpu/kernels.h"
#include "src/exec/cpu/simd.h"
#include "src/exec/exec.h"
#include "src/exec/ops/ops.h"

/* 3x3 depthwise, dilation 1, the same stride (1 or 2) on both axes, for all n_in input planes (h x wd) and their
 * mult outputs each (oh_n x ow_n), with the bias and the activation: each input plane is copied into the zero-padded
 * xpad (wp wide, its pads at pt, pl, 32 floats of slack after it), then each output plane is computed straight into
 * y 8 outputs at a time, a row's last block spilling into the next row or plane, which is written after it; only a
 * block that would pass y's end goes through a buffer.  Each tap row is summed apart, to keep the chains short.
 * One call for the whole tensor: small planes (7x7) cost little more than their arithmetic. */
NN_CLONES static void depthwise_3x3(const float *x, int64_t n_in, int64_t h, int64_t wd, int64_t pt, int64_t pl,
				    int64_t mult, const float *wt, const float *bias, float *y, int64_t oh_n,
				    int64_t ow_n, int64_t s, float *xpad, int64_t wp, const struct exec_act *act)
{
	const float *yend = y + n_in * mult * oh_n * ow_n;
	struct act8 a;

	act8_init(&a, act);
	for (int64_t c = 0; c < n_in; c++) {
		const float *xc = x + c * h * wd;
		for (int64_t i = 0; i < h; i++) {
			float *dst = xpad + (pt + i) * wp + pl;
			const float *src = xc + i * wd;
			int64_t j = 0;
			for (; j + 8 <= wd; j += 8)
				memcpy(dst + j, src + j, 8 * sizeof *dst); /* a fixed size: two moves, not a call */
			for (; j < wd; j++)
				dst[j] = src[j];
		}
		for (int64_t m = c * mult; m < (c + 1) * mult; m++) {
			const float *wm = wt + m * 9;
			float *ym = y + m * oh_n * ow_n, b = bias ? bias[m] : 0.0f;
			v8f bv = {b, b, b, b, b, b, b, b};
#define BC(i) (v8f){wm[i], wm[i], wm[i], wm[i], wm[i], wm[i], wm[i], wm[i]}
			v8f w0 = BC(0), w1 = BC(1), w2 = BC(2), w3 = BC(3), w4 = BC(4), w5 = BC(5), w6 = BC(6),
			    w7 = BC(7), w8 = BC(8);
#undef BC
			for (int64_t oh = 0; oh < oh_n; oh++) {
				const float *r0 = xpad + oh * s * wp, *r1 = r0 + wp, *r2 = r1 + wp;
				float *yr = ym + oh * ow_n;
				for (int64_t ow = 0; ow < ow_n; ow += 8) {
					v8f p0, p1, p2;
					if (s == 1) {
						p0 = w0 * LOAD8(r0 + ow) + w1 * LOAD8(r0 + ow + 1) + w2 * LOAD8(r0 + ow + 2);
						p1 = w3 * LOAD8(r1 + ow) + w4 * LOAD8(r1 + ow + 1) + w5 * LOAD8(r1 + ow + 2);
						p2 = w6 * LOAD8(r2 + ow) + w7 * LOAD8(r2 + ow + 1) + w8 * LOAD8(r2 + ow + 2);
					} else {
#define ROW(r, wa, wb, wc)                                                                                      \
	(wa * V8_EVEN(LOAD8(r + 2 * ow), LOAD8(r + 2 * ow + 8)) +                                 \
	 wb * V8_ODD(LOAD8(r + 2 * ow), LOAD8(r + 2 * ow + 8)) +                                  \
	 wc * V8_EVEN(LOAD8(r + 2 * ow + 2), LOAD8(r + 2 * ow + 10)))
						p0 = ROW(r0, w0, w1, w2);
						p1 = ROW(r1, w3, w4, w5);
						p2 = ROW(r2, w6, w7, w8);
#undef ROW
					}
					v8f acc = (bv + p0) + (p1 + p2);
					if (a.on)
						act8_apply(&acc, &a);
					if (yr + ow + 8 <= yend) {
						memcpy(yr + ow, &acc, sizeof acc);
					} else {
						float t[8];
						memcpy(t, &acc, sizeof acc);
						memcpy(yr + ow, t, (size_t)(ow_n - ow < 8 ? ow_n - ow : 8) * sizeof *yr);
					}
				}
			}
		}
	}
}

/* Stride 1: the whole plane as one contiguous 1-D convolution over the zero-padded input flattened row by row
 * (outputs in the pad columns are computed and dropped), so small planes vectorise too. xpad is hp x wp. */
NN_CLONES static void depthwise_plane_s1(float *restrict y, const float *xpad, int64_t wp, int64_t oh_n, int64_t ow_n,
					 const float *wm, int64_t kh_n, int64_t kw_n, int64_t dh, int64_t dw, float b,
					 float *restrict tmp)
{
	int64_t n = (oh_n - 1) * wp + ow_n, q = 0;

	for (; q + 8 <= n; q += 8) {
		v8f acc = {b, b, b, b, b, b, b, b};
		for (int64_t kh = 0; kh < kh_n; kh++)
			for (int64_t kw = 0; kw < kw_n; kw++) {
				v8f xv;
				memcpy(&xv, xpad + q + kh * dh * wp + kw * dw, sizeof xv);
				acc += wm[kh * kw_n + kw] * xv;
			}
		memcpy(tmp + q, &acc, sizeof acc);
	}
	for (; q < n; q++) {
		float acc = b;
		for (int64_t kh = 0; kh < kh_n; kh++)
			for (int64_t kw = 0; kw < kw_n; kw++)
				acc += wm[kh * kw_n + kw] * xpad[q + kh * dh * wp + kw * dw];
		tmp[q] = acc;
	}
	for (int64_t oh = 0; oh < oh_n; oh++)
		memcpy(y + oh * ow_n, tmp + oh * wp, (size_t)ow_n * sizeof *y);
}

/* Other strides: row by row over the zero-padded plane (no bounds checks); 8 outputs at a time for strides 1 and
 * 2 (stride 2 loads 16 values for 8, so xpad has 16 floats of slack at its end). */
NN_CLONES static void depthwise_plane_strided(float *restrict y, const float *xpad, int64_t wp, int64_t oh_n,
					      int64_t ow_n, const float *wm, int64_t kh_n, int64_t kw_n, int64_t sh,
					      int64_t sw, int64_t dh, int64_t dw, float b)
{

	for (int64_t oh = 0; oh < oh_n; oh++) {
		const float *base = xpad + oh * sh * wp;
		float *yr = y + oh * ow_n;
		int64_t ow = 0;
		if (sw == 2)
			for (; ow + 8 <= ow_n; ow += 8) {
				v8f acc = {b, b, b, b, b, b, b, b};
				for (int64_t kh = 0; kh < kh_n; kh++)
					for (int64_t kw = 0; kw < kw_n; kw++) {
						const float *src = base + kh * dh * wp + ow * 2 + kw * dw;
						v8f a0, a1;
						memcpy(&a0, src, sizeof a0);
						memcpy(&a1, src + 8, sizeof a1);
						acc += wm[kh * kw_n + kw] * V8_EVEN(a0, a1);
					}
				memcpy(yr + ow, &acc, sizeof acc);
			}
		if (kh_n == 3 && kw_n == 3) { /* the common 3x3: weights and rows in registers */
			const float *r0 = base, *r1 = base + dh * wp, *r2 = base + 2 * dh * wp;
			float w0 = wm[0], w1 = wm[1], w2 = wm[2], w3 = wm[3], w4 = wm[4], w5 = wm[5], w6 = wm[6],
			      w7 = wm[7], w8 = wm[8];
			for (; ow < ow_n; ow++) {
				int64_t i = ow * sw;
				yr[ow] = b + w0 * r0[i] + w1 * r0[i + dw] + w2 * r0[i + 2 * dw] + w3 * r1[i] +
					 w4 * r1[i + dw] + w5 * r1[i + 2 * dw] + w6 * r2[i] + w7 * r2[i + dw] +
					 w8 * r2[i + 2 * dw];
			}
		}
		for (; ow < ow_n; ow++) {
			float acc = b;
			for (int64_t kh = 0; kh < kh_n; kh++)
				for (int64_t kw = 0; kw < kw_n; kw++)
					acc += wm[kh * kw_n + kw] * base[kh * dh * wp + ow * sw + kw * dw];
			yr[ow] = acc;
		}
	}
}

int cpu_depthwise_f(struct exec_kernel_ctx *k, const float *x, const float *wt, const float *bias, int64_t nb,
		       int64_t c_n, int64_t mult, const struct ops_window *w2, const struct exec_act *act, float *y)
{
	int64_t h = w2->in[0], wd = w2->in[1], oh_n = w2->out[0], ow_n = w2->out[1];
	int64_t kh_n = w2->k[0], kw_n = w2->k[1], pt = w2->pb[0], pl = w2->pb[1];
	/* the padded plane holds every tap: at least the input plus its pads, and what the windows reach */
	int64_t hp = h + pt + w2->pe[0], wp = wd + pl + w2->pe[1];
	int64_t hneed = (oh_n - 1) * w2->s[0] + (kh_n - 1) * w2->d[0] + 1;
	int64_t wneed = (ow_n - 1) * w2->s[1] + (kw_n - 1) * w2->d[1] + 1;
	hp = hp > hneed ? hp : hneed;
	wp = wp > wneed ? wp : wneed;
	int s1 = w2->s[0] == 1 && w2->s[1] == 1;
	int fast = kh_n == 3 && kw_n == 3 && w2->d[0] == 1 && w2->d[1] == 1 && w2->s[0] == w2->s[1] &&
		   (s1 || w2->s[0] == 2);
	/* the padded plane, 32 floats of slack, and (the general stride-1 path) the flattened plane's outputs */
	float *xpad = calloc((size_t)(hp * wp + 32 + (fast ? 0 : oh_n * wp)), sizeof *xpad);
	if (!xpad)
		return xk_fail(k, "out of memory for a %lld x %lld padded plane", (long long)hp, (long long)wp);
	float *tmp = xpad + hp * wp + 32;
	if (fast) {
		/* one call per image: the same weights and biases for each */
		for (int64_t b = 0; b < nb; b++)
			depthwise_3x3(x + b * c_n * h * wd, c_n, h, wd, pt, pl, mult, wt, bias,
				      y + b * c_n * mult * oh_n * ow_n, oh_n, ow_n, w2->s[0], xpad, wp, act);
		free(xpad);
		return 0;
	}
	for (int64_t b = 0; b < nb; b++)
		for (int64_t m = 0; m < c_n * mult; m++) {
			if (m % mult == 0) {
				const float *xc = x + (b * c_n + m / mult) * h * wd;
				for (int64_t i = 0; i < h; i++)
					memcpy(xpad + (pt + i) * wp + pl, xc + i * wd, (size_t)wd * sizeof *xpad);
			}
			float *ym = y + (b * c_n * mult + m) * oh_n * ow_n;
			float bv = bias ? bias[m] : 0.0f;
			if (s1)
				depthwise_plane_s1(ym, xpad, wp, oh_n, ow_n, wt + m * kh_n * kw_n, kh_n, kw_n, w2->d[0],
						   w2->d[1], bv, tmp);
			else
				depthwise_plane_strided(ym, xpad, wp, oh_n, ow_n, wt + m * kh_n * kw_n, kh_n, kw_n,
							w2->s[0], w2->s[1], w2->d[0], w2->d[1], bv);
			if (act)
				cpu_act_f(ym, oh_n * ow_n, act);
		}
	free(xpad);
	return 0;
}
