/* CPU depthwise convolutions (Conv with one input channel per group) in float32, vectorised by hand
 * (src/exec/cpu/simd.h): the common 3x3 with stride 1 or 2 (by bands of zero-padded rows, or on small planes 8
 * channels at a time in the lanes), and every other window 8 channels at a time on small planes, or over a
 * zero-padded copy of the plane; the bias and the
 * runner's fused activation applied as the output is written.  bench/run-pool-dw.sh times them on MobileNetV2's
 * shapes. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/cpu/kernels.h"
#include "src/exec/cpu/simd.h"
#include "src/exec/exec.h"
#include "src/exec/ops/ops.h"

/* ---- 3x3, dilation 1, stride 1 or 2 ----------------------------------------------------------------------------
 * The output planes are computed in bands of rows; a band's input rows are first copied into a buffer of
 * zero-padded rows (in L1: rows above and below the plane are zeros too), so that no tap needs a bounds check.
 * The next band's rows are padded before the current band is computed: a load that straddles stores still in
 * flight cannot take their data and waits for them to reach the cache, which padding a row and reading it at once
 * would pay on every row.  For stride 2 a padded row is kept split into its even and odd columns (E, then O half a
 * row further), so that the taps of 8 outputs are 3 plain loads per input row (E + ow, O + ow, E + ow + 1): the
 * deinterleaving is paid once per input row, not once per tap.  The 9 weights, the bias and the activation's
 * bounds stay in registers across a band; the activation is a clamp, lo then hi (-inf and inf when there is none:
 * the same bits), with Clip's rule (NaN passes; lo > hi gives hi).  A row's last block overlaps the one before it
 * when the row has 8 outputs or more (computing some twice: the same bits), and spills into the rows after it
 * (written after it) when it has fewer, except where that would pass the plane's end: those rows go through a
 * buffer.  Small planes go 8 channels at a time instead (depthwise_3x3_t below). */


/* A band's padded rows, in floats: the two bands stay in L1 beside the rows of X and Y going through */
#define DW_BAND_FLOATS 2048

struct dw3 {
	int64_t h, wd, pt, pl, oh_n, ow_n, s;
	int64_t r0, r1;  /* the output rows computed (all: 0, oh_n) */
	int64_t in_n;    /* floats from one input plane to the next */
	int64_t ih0;     /* the input row the planes start at (h rows of them; rows outside: zeros) */
	int64_t slot;  /* floats per padded row */
	int64_t half;  /* stride 2: where O starts in a padded row */
	int64_t band;  /* output rows a band computes */
	int64_t buf_n; /* floats of a band's padded rows: (band - 1) * s + 3 rows */
	float *rows;   /* two bands' padded rows */
	v8f lo, hi;
};

/* Clip's clamp on 8 floats: below lo gives lo, then above hi gives hi; NaN passes (compare-and-blend, which
 * GCC makes two instructions each).  (Pointers: v8f passed by value changes the default clone's ABI.) */
static inline __attribute__((always_inline)) void dw_clamp(v8f *v, const v8f *lo, const v8f *hi)
{
	v8i m = *lo > *v;
	*v = (v8f)(((v8i)*lo & m) | ((v8i)*v & ~m));
	m = *hi < *v;
	*v = (v8f)(((v8i)*hi & m) | ((v8i)*v & ~m));
}

/* Pad input rows ih0 .. ih0 + n - 1 of plane x (those outside it: zeros) into the band buf, at stride S (a
 * constant where inlined); avail: the floats of X from x on (a row is read 8 or 16 floats at a time, past its
 * end, when that stays inside X; what lands past the row's end is then zeroed with its right pad). */
static inline __attribute__((always_inline)) void dw_pad_band(const struct dw3 *g, float *buf, const float *x,
							     int64_t avail, int64_t ih0, int64_t n, const int S)
{
	const v8f z = {0};
	int64_t wd = g->wd, slot = g->slot, pl = g->pl, span = (wd + 15) / 16 * 16;
	/* stride 2: x[2i] lands at padded column pl + 2i, x[2i + 1] at pl + 2i + 1: in E or O by pl's parity */
	int64_t e_at = (pl & 1 ? g->half : 0) + (pl >> 1), o_at = (pl & 1 ? 0 : g->half) + ((pl + 1) >> 1);

	for (int64_t i = 0; i < n; i++) {
		int64_t ih = ih0 + i;
		float *p = buf + i * slot;
		const float *src = x + ih * wd;
		if (ih < 0 || ih >= g->h) {
			for (int64_t j = 0; j < slot; j += 8)
				STORE8(p + j, z);
			continue;
		}
		int vec = ih * wd + span <= avail;
		if (S == 1) {
			float *d = p + pl;
			int64_t j = 0;
			if (vec)
				for (; j < wd; j += 8)
					STORE8(d + j, LOAD8(src + j));
			else
				for (; j < wd; j++)
					d[j] = src[j];
			STORE8(d + wd, z); /* the right pad, over what the 8-wide copy left past wd */
			continue;
		}
		float *ev = p + e_at, *od = p + o_at;
		int64_t k = 0;
		if (vec)
			for (; 2 * k < wd; k += 8) {
				v8f a = LOAD8(src + 2 * k), b = LOAD8(src + 2 * k + 8);
				STORE8(ev + k, V8_EVEN(a, b));
				STORE8(od + k, V8_ODD(a, b));
			}
		else
			for (; 2 * k < wd; k++) {
				ev[k] = src[2 * k];
				if (2 * k + 1 < wd)
					od[k] = src[2 * k + 1];
			}
		STORE8(ev + (wd + 1) / 2, z);
		STORE8(od + wd / 2, z);
	}
}

/* Output rows oh0 .. oh1 - 1 of output plane y from the band's padded rows buf, with weights wm and bias b, at
 * stride S (a constant where inlined). */
static inline __attribute__((always_inline)) void dw_band(const struct dw3 *g, const float *buf, float *y,
							 int64_t oh0, int64_t oh1, const float *wm, float b, const int S)
{
	int64_t ow_n = g->ow_n, slot = g->slot, o1 = S == 1 ? 1 : g->half, o2 = S == 1 ? 2 : 1;
	v8f lo = g->lo, hi = g->hi, bv = {b, b, b, b, b, b, b, b};
#define BC(i) (v8f){wm[i], wm[i], wm[i], wm[i], wm[i], wm[i], wm[i], wm[i]}
	v8f w0 = BC(0), w1 = BC(1), w2 = BC(2), w3 = BC(3), w4 = BC(4), w5 = BC(5), w6 = BC(6), w7 = BC(7), w8 = BC(8);
#undef BC
	const float *r0 = buf, *r1 = r0 + slot, *r2 = r1 + slot;
	v8f acc;
#define BLOCK(ow)                                                                                                \
	do {                                                                                                     \
		v8f p0 = bv + w0 * LOAD8(r0 + (ow)) + w1 * LOAD8(r0 + (ow) + o1) + w2 * LOAD8(r0 + (ow) + o2);     \
		v8f p1 = w3 * LOAD8(r1 + (ow)) + w4 * LOAD8(r1 + (ow) + o1) + w5 * LOAD8(r1 + (ow) + o2);          \
		p1 += w6 * LOAD8(r2 + (ow)) + w7 * LOAD8(r2 + (ow) + o1) + w8 * LOAD8(r2 + (ow) + o2);             \
		acc = p0 + p1;                                                                                   \
		dw_clamp(&acc, &lo, &hi);                                                                        \
	} while (0)
	if (ow_n >= 8) {
		for (int64_t oh = oh0; oh < oh1; oh++, r0 += S * slot, r1 += S * slot, r2 += S * slot) {
			float *yr = y + oh * ow_n;
			int64_t ow = 0;
			for (; ow + 8 <= ow_n; ow += 8) {
				BLOCK(ow);
				STORE8(yr + ow, acc);
			}
			if (ow < ow_n) { /* the last 8, overlapping the block before */
				BLOCK(ow_n - 8);
				STORE8(yr + ow_n - 8, acc);
			}
		}
		return;
	}
	/* one block a row, spilling into the rows after it, written after it, while the 8 stay inside the plane;
	 * the last rows through a buffer */
	int64_t spill_end = (g->oh_n * ow_n - 8) / ow_n + 1;
	spill_end = g->oh_n * ow_n < 8 ? 0 : spill_end < oh0 ? oh0 : spill_end > oh1 ? oh1 : spill_end;
	int64_t oh = oh0;
	for (; oh < spill_end; oh++, r0 += S * slot, r1 += S * slot, r2 += S * slot) {
		BLOCK(0);
		STORE8(y + oh * ow_n, acc);
	}
	for (; oh < oh1; oh++, r0 += S * slot, r1 += S * slot, r2 += S * slot) {
		float t[8];
		BLOCK(0);
		STORE8(t, acc);
		for (int64_t j = 0; j < ow_n; j++)
			y[oh * ow_n + j] = t[j];
	}
#undef BLOCK
}

/* A band: output rows oh0 .. oh1 - 1 of output plane m. */
struct dw_band {
	int64_t m, oh0, oh1;
};

/* The band after b (b->m < 0: the first) into b; 0 when there is none. */
static inline int dw_next_band(const struct dw3 *g, int64_t planes, struct dw_band *b)
{
	if (b->m < 0 || b->oh1 == g->r1) {
		if (b->m + 1 >= planes)
			return 0;
		b->m++;
		b->oh1 = g->r0;
	}
	b->oh0 = b->oh1;
	b->oh1 = b->oh0 + g->band < g->r1 ? b->oh0 + g->band : g->r1;
	return 1;
}

/* All n_in input planes (h x wd) of one image, mult outputs each, into y, band after band, at stride S (a
 * constant where inlined). */
static inline __attribute__((always_inline)) void dw_image(const struct dw3 *g, const float *x, int64_t n_in,
							  int64_t mult, const float *wt, const float *bias, float *y,
							  const int S)
{
	int64_t in_n = g->in_n, out_n = g->oh_n * g->ow_n, planes = n_in * mult, i = 0;
	struct dw_band cur = {.m = -1}, nxt;

	if (!dw_next_band(g, planes, &cur))
		return;
#define PAD(b, buf)                                                                                          \
	dw_pad_band(g, buf, x + (b).m / mult * in_n, (n_in - (b).m / mult) * in_n, (b).oh0 * S - g->pt - g->ih0, \
		    ((b).oh1 - (b).oh0 - 1) * S + 3, S)
	PAD(cur, g->rows);
	for (;; i ^= 1) {
		nxt = cur;
		int more = dw_next_band(g, planes, &nxt);
		if (more)
			PAD(nxt, g->rows + (i ^ 1) * g->buf_n);
		dw_band(g, g->rows + i * g->buf_n, y + cur.m * out_n, cur.oh0, cur.oh1, wt + cur.m * 9,
			bias ? bias[cur.m] : 0.0f, S);
		if (!more)
			return;
		cur = nxt;
	}
#undef PAD
}

NN_CLONES static void depthwise_3x3(const float *x, int64_t n_in, int64_t mult, const float *wt, const float *bias,
				    float *y, const struct dw3 *g)
{
	if (g->s == 1)
		dw_image(g, x, n_in, mult, wt, bias, y, 1);
	else
		dw_image(g, x, n_in, mult, wt, bias, y, 2);
}

/* ---- 3x3 on small planes: 8 channels at a time, in the lanes -------------------------------------------------
 * On planes of a few rows (MobileNet's 14 x 14 and 7 x 7) the row path pays more for each row and plane than for
 * its arithmetic.  Here 8 planes are transposed (8 x 8 blocks of consecutive positions) into one buffer of
 * positions holding 8 channels each, inside a border of zeros (the pads), so that an output position is 9 aligned
 * loads and 9 multiply-adds on whole vectors whatever the stride or the width; the outputs are transposed back. */

struct dwt {
	int64_t h, wd, oh_n, ow_n, s;
	int64_t wp;       /* positions per buffer row */
	int32_t *idx;     /* input position (row-major in the plane) -> its buffer position */
	v8f *buf;         /* the padded positions of 8 channels, zeros in the border */
	v8f *obuf;        /* oh_n * ow_n output positions */
	v8f lo, hi;
};

/* Output positions of 8 channels from the buffer, at stride S (a constant where inlined). */
static inline __attribute__((always_inline)) void dwt_compute(const struct dwt *g, const v8f *w, const v8f *bv,
							     const int S)
{
	v8f lo = g->lo, hi = g->hi, *o = g->obuf;
	v8f w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7], w8 = w[8];
	int64_t wp = g->wp;

	for (int64_t oh = 0; oh < g->oh_n; oh++) {
		const v8f *r0 = g->buf + oh * S * wp, *r1 = r0 + wp, *r2 = r1 + wp;
		for (int64_t ow = 0; ow < g->ow_n; ow++, r0 += S, r1 += S, r2 += S) {
			v8f p0 = *bv + w0 * r0[0] + w1 * r0[1] + w2 * r0[2] + w3 * r1[0];
			v8f p1 = w4 * r1[1] + w5 * r1[2] + w6 * r2[0] + w7 * r2[1] + w8 * r2[2];
			v8f acc = p0 + p1;
			dw_clamp(&acc, &lo, &hi);
			*o++ = acc;
		}
	}
}

/* The in_n positions of planes x[0 .. 8) (in_n floats apart) into their buffer positions idx, 8 at a time
 * through a transpose, then one by one. */
static inline __attribute__((always_inline)) void dwt_gather(const float *x, int64_t in_n, const int32_t *idx,
							    v8f *buf)
{
	v8f v[8];
	int64_t q = 0;

	for (; q + 8 <= in_n; q += 8) {
#pragma GCC unroll 8
		for (int i = 0; i < 8; i++)
			v[i] = LOAD8(x + i * in_n + q);
		v8_transpose(v);
#pragma GCC unroll 8
		for (int j = 0; j < 8; j++)
			buf[idx[q + j]] = v[j];
	}
	for (; q < in_n; q++)
		for (int i = 0; i < 8; i++)
			buf[idx[q]][i] = x[i * in_n + q];
}

/* Output positions obuf[0 .. out_n) back into planes y[0 .. 8) (out_n floats apart). */
static inline __attribute__((always_inline)) void dwt_scatter(const v8f *obuf, int64_t out_n, float *y)
{
	v8f v[8];
	int64_t q = 0;

	for (; q + 8 <= out_n; q += 8) {
#pragma GCC unroll 8
		for (int j = 0; j < 8; j++)
			v[j] = obuf[q + j];
		v8_transpose(v);
#pragma GCC unroll 8
		for (int i = 0; i < 8; i++)
			STORE8(y + i * out_n + q, v[i]);
	}
	for (; q < out_n; q++)
		for (int i = 0; i < 8; i++)
			y[i * out_n + q] = obuf[q][i];
}

/* Channels c0 .. c0 + 7's taps (taps a channel) and biases in the lanes. */
static inline __attribute__((always_inline)) void dwt_weights(const float *wt, const float *bias, int64_t c0,
							     int64_t taps, v8f *w, v8f *bv)
{
	for (int64_t t = 0; t < taps; t++)
		for (int i = 0; i < 8; i++)
			w[t][i] = wt[(c0 + i) * taps + t];
	for (int i = 0; i < 8; i++)
		(*bv)[i] = bias ? bias[c0 + i] : 0.0f;
}

/* The first c8 (a multiple of 8) planes of one image x, one output each, into y. */
NN_CLONES static void depthwise_3x3_t(const float *x, int64_t c8, const float *wt, const float *bias, float *y,
				      const struct dwt *g)
{
	int64_t in_n = g->h * g->wd, out_n = g->oh_n * g->ow_n;

	for (int64_t c0 = 0; c0 < c8; c0 += 8) {
		v8f w[9], bv;
		dwt_gather(x + c0 * in_n, in_n, g->idx, g->buf);
		dwt_weights(wt, bias, c0, 9, w, &bv);
		if (g->s == 1)
			dwt_compute(g, w, &bv, 1);
		else
			dwt_compute(g, w, &bv, 2);
		dwt_scatter(g->obuf, out_n, y + c0 * out_n);
	}
}

/* ---- other windows on small planes: 8 channels at a time, in the lanes -----------------------------------------
 * As above, for any kernel, stride and dilation (PaddleOCR's and MobileNetV3's 5x5 on 14 x 14 and 7 x 7 planes,
 * where a row of the plane path is shorter than its 8-wide blocks).  Each output is the plane path's sum in its
 * order (the bias, then the taps row by row), so a plane gives the same bits whichever of the two computes it;
 * four outputs go at once, for four sums in flight. */

struct dwk {
	int64_t h, wd, oh_n, ow_n, kh_n, kw_n, sh, sw, dh, dw;
	int64_t wp;   /* positions per buffer row */
	int32_t *idx; /* input position (row-major in the plane) -> its buffer position */
	int32_t *at;  /* output position -> the buffer position of its window's first tap */
	int32_t *tap; /* tap (row by row) -> its buffer position from the window's first */
	v8f *buf;     /* the padded positions of 8 channels, zeros in the border */
	v8f *obuf;    /* oh_n * ow_n output positions */
	v8f *w;       /* the taps of 8 channels */
	struct act8 act;
};

/* Output positions of 8 channels from the buffer: eight positions at a time in the plane's order, across its rows
 * (eight sums in flight: one sum's taps wait on each other, and four left the adders half idle on 5x5 kernels),
 * then the last few as below; each sum the same (the bias, then the taps row by row). */
static inline __attribute__((always_inline)) void dwk_compute(const struct dwk *g, const v8f *bv)
{
	v8f *o = g->obuf;
	int64_t wp = g->wp, sw = g->sw, out_n = g->oh_n * g->ow_n, taps = g->kh_n * g->kw_n, q = 0;

	for (; q + 8 <= out_n; q += 8, o += 8) {
		v8f a[8];
		const v8f *p[8];
#pragma GCC unroll 8
		for (int i = 0; i < 8; i++) {
			a[i] = *bv;
			p[i] = g->buf + g->at[q + i];
		}
		for (int64_t t = 0; t < taps; t++) {
			v8f wv = g->w[t];
			int64_t off = g->tap[t];
#pragma GCC unroll 8
			for (int i = 0; i < 8; i++)
				a[i] += wv * p[i][off];
		}
#pragma GCC unroll 8
		for (int i = 0; i < 8; i++) {
			if (g->act.on)
				act8_apply(&a[i], &g->act);
			o[i] = a[i];
		}
	}
	for (int64_t oh = q / g->ow_n; oh < g->oh_n; oh++) {
		const v8f *row = g->buf + oh * g->sh * wp;
		int64_t ow = oh == q / g->ow_n ? q % g->ow_n : 0;
		for (; ow + 4 <= g->ow_n; ow += 4, o += 4) {
			v8f a0 = *bv, a1 = a0, a2 = a0, a3 = a0;
			const v8f *p = row + ow * sw;
			for (int64_t kh = 0, t = 0; kh < g->kh_n; kh++)
				for (int64_t kw = 0; kw < g->kw_n; kw++, t++) {
					const v8f *r = p + kh * g->dh * wp + kw * g->dw;
					v8f wv = g->w[t];
					a0 += wv * r[0];
					a1 += wv * r[sw];
					a2 += wv * r[2 * sw];
					a3 += wv * r[3 * sw];
				}
			if (g->act.on) {
				act8_apply(&a0, &g->act);
				act8_apply(&a1, &g->act);
				act8_apply(&a2, &g->act);
				act8_apply(&a3, &g->act);
			}
			o[0] = a0;
			o[1] = a1;
			o[2] = a2;
			o[3] = a3;
		}
		for (; ow < g->ow_n; ow++, o++) {
			v8f a = *bv;
			const v8f *p = row + ow * sw;
			for (int64_t kh = 0, t = 0; kh < g->kh_n; kh++)
				for (int64_t kw = 0; kw < g->kw_n; kw++, t++)
					a += g->w[t] * p[kh * g->dh * wp + kw * g->dw];
			if (g->act.on)
				act8_apply(&a, &g->act);
			*o = a;
		}
	}
}

/* The first c8 (a multiple of 8) planes of one image x, one output each, into y. */
NN_CLONES static void depthwise_k_t(const float *x, int64_t c8, const float *wt, const float *bias, float *y,
				    const struct dwk *g)
{
	int64_t in_n = g->h * g->wd, out_n = g->oh_n * g->ow_n, taps = g->kh_n * g->kw_n;

	for (int64_t c0 = 0; c0 < c8; c0 += 8) {
		v8f bv;
		dwt_gather(x + c0 * in_n, in_n, g->idx, g->buf);
		dwt_weights(wt, bias, c0, taps, g->w, &bv);
		dwk_compute(g, &bv);
		dwt_scatter(g->obuf, out_n, y + c0 * out_n);
	}
}

/* 32 outputs of one plane's kernel at once, four sums in flight (one sum's taps wait on each other: a 5x5 kernel is
 * 25 steps of the adder's latency), each the same sum as alone: out[i] = b + the taps of p + i (rows wp apart, taps
 * dh rows and dw columns apart), for i < 32 */
static inline __attribute__((always_inline)) void dw_taps32(const float *p, int64_t wp, const float *wm, int64_t kh_n,
							    int64_t kw_n, int64_t dh, int64_t dw, float b, float *out)
{
	v8f a0 = {b, b, b, b, b, b, b, b}, a1 = a0, a2 = a0, a3 = a0;

	for (int64_t kh = 0; kh < kh_n; kh++)
		for (int64_t kw = 0; kw < kw_n; kw++) {
			const float *src = p + kh * dh * wp + kw * dw;
			float wk = wm[kh * kw_n + kw];
			a0 += wk * LOAD8(src);
			a1 += wk * LOAD8(src + 8);
			a2 += wk * LOAD8(src + 16);
			a3 += wk * LOAD8(src + 24);
		}
	STORE8(out, a0);
	STORE8(out + 8, a1);
	STORE8(out + 16, a2);
	STORE8(out + 24, a3);
}

/* Stride 1: the whole plane as one contiguous 1-D convolution over the zero-padded input flattened row by row
 * (outputs in the pad columns are computed and dropped), so small planes vectorise too. xpad is hp x wp. */
NN_CLONES static void depthwise_plane_s1(float *restrict y, const float *xpad, int64_t wp, int64_t oh_n, int64_t ow_n,
					 const float *wm, int64_t kh_n, int64_t kw_n, int64_t dh, int64_t dw, float b,
					 float *restrict tmp)
{
	int64_t n = (oh_n - 1) * wp + ow_n, q = 0;

	for (; q + 32 <= n; q += 32)
		dw_taps32(xpad + q, wp, wm, kh_n, kw_n, dh, dw, b, tmp + q);
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

/* Other strides: row by row over the zero-padded plane (no bounds checks); 8 outputs at a time for column strides
 * 1 (PaddleOCR's 5x5 with strides 2, 1) and 2 (stride 2 loads 16 values for 8, so xpad has 16 floats of slack at
 * its end), each the sum the scalar loop makes, in its order. */
NN_CLONES static void depthwise_plane_strided(float *restrict y, const float *xpad, int64_t wp, int64_t oh_n,
					      int64_t ow_n, const float *wm, int64_t kh_n, int64_t kw_n, int64_t sh,
					      int64_t sw, int64_t dh, int64_t dw, float b)
{

	for (int64_t oh = 0; oh < oh_n; oh++) {
		const float *base = xpad + oh * sh * wp;
		float *yr = y + oh * ow_n;
		int64_t ow = 0;
		if (sw == 1) {
			for (; ow + 32 <= ow_n; ow += 32)
				dw_taps32(base + ow, wp, wm, kh_n, kw_n, dh, dw, b, yr + ow);
			for (; ow + 8 <= ow_n; ow += 8) {
				v8f acc = {b, b, b, b, b, b, b, b};
				for (int64_t kh = 0; kh < kh_n; kh++)
					for (int64_t kw = 0; kw < kw_n; kw++)
						acc += wm[kh * kw_n + kw] * LOAD8(base + kh * dh * wp + ow + kw * dw);
				memcpy(yr + ow, &acc, sizeof acc);
			}
		}
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

/* The 3x3 path's rows: a buffer on the stack when they fit (most planes), else the heap. */
#define DW_STACK_FLOATS 4096
/* The most padded positions a plane may have to go 8 channels at a time (depthwise_3x3_t, depthwise_k_t) */
#define DW_T_POSITIONS 1024

/* The 3x3 path takes the window: any pads above and below (rows of zeros), up to 8 columns left and right. */
static int dw3_takes(const struct ops_window *w2)
{
	return w2->k[0] == 3 && w2->k[1] == 3 && w2->d[0] == 1 && w2->d[1] == 1 && w2->s[0] == w2->s[1] &&
	       (w2->s[0] == 1 || w2->s[0] == 2) && w2->pb[1] <= 8 && w2->pe[1] <= 8;
}

/* g for the whole planes of window w2 (rows left unset); returns the floats its rows need. */
static size_t dw3_setup(struct dw3 *g, const struct ops_window *w2, const struct exec_act *act)
{
	int64_t wd = w2->in[1], pl = w2->pb[1], oh_n = w2->out[0], ow_n = w2->out[1];
	enum exec_act_kind kind = act ? act->kind : EXEC_ACT_NONE;
	float lo = kind == EXEC_ACT_NONE ? -INFINITY : kind == EXEC_ACT_RELU ? 0.0f : act->lo;
	float hi = kind == EXEC_ACT_CLIP ? act->hi : INFINITY;

	*g = (struct dw3){.h = w2->in[0], .wd = wd, .pt = w2->pb[0], .pl = pl, .oh_n = oh_n, .ow_n = ow_n,
			  .s = w2->s[0], .r0 = 0, .r1 = oh_n, .in_n = w2->in[0] * wd, .ih0 = 0,
			  .lo = {lo, lo, lo, lo, lo, lo, lo, lo}, .hi = {hi, hi, hi, hi, hi, hi, hi, hi}};
	/* a padded row holds the left pad, the row, 8 zeros after it (the right pad and what an 8-wide copy leaves
	 * past the row), and every column the blocks read (8 at least); for stride 2 in E and O */
	int64_t reach = (ow_n > 8 ? ow_n : 8) + 2;
	if (g->s == 1) {
		g->slot = pl + wd + 8 > reach ? pl + wd + 8 : reach;
	} else {
		g->half = (pl + 1) / 2 + (wd + 1) / 2 + 8;
		g->half = ((g->half > reach ? g->half : reach) + 7) / 8 * 8;
		g->slot = 2 * g->half;
	}
	g->slot = (g->slot + 7) / 8 * 8;
	g->band = (DW_BAND_FLOATS / g->slot - 3) / g->s + 1;
	g->band = g->band < 1 ? 1 : g->band > oh_n ? oh_n : g->band;
	g->buf_n = ((g->band - 1) * g->s + 3) * g->slot;
	return (size_t)(2 * g->buf_n);
}

/* g's rows, zeroed: in stack (DW_STACK_FLOATS floats, the caller's) when they fit, else in *heap (the caller frees
 * it); 0, or -1 with the node's error set. */
static int dw3_rows(struct exec_kernel_ctx *k, struct dw3 *g, size_t n, float *stack, float **heap)
{
	*heap = NULL;
	if (n > DW_STACK_FLOATS && !(*heap = aligned_alloc(32, n * sizeof **heap)))
		return xk_fail(k, "out of memory for padded rows of %lld", (long long)g->slot);
	g->rows = *heap ? *heap : stack;
	memset(g->rows, 0, n * sizeof *g->rows);
	return 0;
}

/* The padded plane a 3x3 window w2 reads, 8 channels at a time (depthwise_3x3_t): *hp rows of *wpt columns. */
static void dw3_plane(const struct ops_window *w2, int64_t *hp, int64_t *wpt)
{
	*hp = (w2->out[0] - 1) * w2->s[0] + 3;
	*wpt = (w2->out[1] - 1) * w2->s[0] + 3;
	*hp = *hp > w2->pb[0] + w2->in[0] ? *hp : w2->pb[0] + w2->in[0];
	*wpt = *wpt > w2->pb[1] + w2->in[1] ? *wpt : w2->pb[1] + w2->in[1];
}

/* Whether cpu_depthwise_rows computes the planes of window w2 (c_n of them, one output each) as
 * cpu_depthwise_f would, to the bit: by rows (not 8 channels at a time), whole blocks of 8 in every row. */
int cpu_depthwise_rows_takes(int64_t c_n, const struct ops_window *w2)
{
	int64_t hp, wpt;

	dw3_plane(w2, &hp, &wpt);
	return w2->n == 2 && dw3_takes(w2) && w2->out[1] >= 8 && (c_n < 8 || hp * wpt > DW_T_POSITIONS);
}

int cpu_depthwise_rows(struct exec_kernel_ctx *k, const float *e, int64_t e_n, int64_t ih0, int64_t ih1,
		       int64_t c_n, const float *wt, const float *bias, const struct ops_window *w2,
		       const struct exec_act *act, int64_t oh0, int64_t oh1, float *y)
{
	struct dw3 g;
	_Alignas(32) float stack[DW_STACK_FLOATS];
	float *heap;

	if (dw3_rows(k, &g, dw3_setup(&g, w2, act), stack, &heap))
		return -1;
	g.h = ih1 - ih0;
	g.ih0 = ih0;
	g.in_n = e_n;
	g.r0 = oh0;
	g.r1 = oh1;
	depthwise_3x3(e, c_n, 1, wt, bias, y, &g);
	free(heap);
	return 0;
}

int cpu_depthwise_f(struct exec_kernel_ctx *k, const float *x, const float *wt, const float *bias, int64_t nb,
		    int64_t c_n, int64_t mult, const struct ops_window *w2, const struct exec_act *act, float *y)
{
	int64_t h = w2->in[0], wd = w2->in[1], oh_n = w2->out[0], ow_n = w2->out[1];
	int64_t kh_n = w2->k[0], kw_n = w2->k[1], pt = w2->pb[0], pl = w2->pb[1];

	if (dw3_takes(w2)) {
		struct dw3 g;
		_Alignas(32) float stack[DW_STACK_FLOATS];
		float *heap;
		if (dw3_rows(k, &g, dw3_setup(&g, w2, act), stack, &heap))
			return -1;
		/* small planes, one output each: 8 channels at a time in the lanes, the rest by rows */
		int64_t hp, wpt, c8 = 0;
		dw3_plane(w2, &hp, &wpt);
		struct dwt t = {.h = h, .wd = wd, .oh_n = oh_n, .ow_n = ow_n, .s = g.s, .wp = wpt, .lo = g.lo, .hi = g.hi};
		if (mult == 1 && c_n >= 8 && hp * wpt <= DW_T_POSITIONS) {
			t.buf = aligned_alloc(32, (size_t)(hp * wpt + oh_n * ow_n) * sizeof(v8f));
			t.idx = malloc((size_t)(h * wd) * sizeof *t.idx);
			if (!t.buf || !t.idx) {
				free(t.buf);
				free(t.idx);
				free(heap);
				return xk_fail(k, "out of memory for %lld x %lld positions", (long long)hp,
					       (long long)wpt);
			}
			memset(t.buf, 0, (size_t)(hp * wpt) * sizeof(v8f));
			t.obuf = t.buf + hp * wpt;
			for (int64_t q = 0; q < h * wd; q++)
				t.idx[q] = (int32_t)((q / wd + pt) * wpt + q % wd + pl);
			c8 = c_n / 8 * 8;
		}
		for (int64_t b = 0; b < nb; b++) {
			const float *xb = x + b * c_n * h * wd;
			float *yb = y + b * c_n * mult * oh_n * ow_n;
			if (c8)
				depthwise_3x3_t(xb, c8, wt, bias, yb, &t);
			if (c8 < c_n)
				depthwise_3x3(xb + c8 * h * wd, c_n - c8, mult, wt + c8 * mult * 9,
					      bias ? bias + c8 * mult : NULL, yb + c8 * mult * oh_n * ow_n, &g);
		}
		free(t.buf);
		free(t.idx);
		free(heap);
		return 0;
	}
	/* the padded plane holds every tap: at least the input plus its pads, and what the windows reach */
	int64_t hp = h + pt + w2->pe[0], wp = wd + pl + w2->pe[1];
	int64_t hneed = (oh_n - 1) * w2->s[0] + (kh_n - 1) * w2->d[0] + 1;
	int64_t wneed = (ow_n - 1) * w2->s[1] + (kw_n - 1) * w2->d[1] + 1;
	hp = hp > hneed ? hp : hneed;
	wp = wp > wneed ? wp : wneed;
	int s1 = w2->s[0] == 1 && w2->s[1] == 1;
	/* small planes, one output each: 8 channels at a time in the lanes, the rest by planes (a single row, as a 1-D
	 * window has, goes faster by planes: measured) */
	int64_t c8 = 0;
	if (mult == 1 && c_n >= 8 && h > 1 && hp * wp <= DW_T_POSITIONS) {
		struct dwk t = {.h = h, .wd = wd, .oh_n = oh_n, .ow_n = ow_n, .kh_n = kh_n, .kw_n = kw_n, .sh = w2->s[0],
				.sw = w2->s[1], .dh = w2->d[0], .dw = w2->d[1], .wp = wp};
		act8_init(&t.act, act);
		t.buf = aligned_alloc(32, (size_t)(hp * wp + oh_n * ow_n + kh_n * kw_n) * sizeof(v8f));
		t.idx = malloc((size_t)(h * wd + 1 + oh_n * ow_n + kh_n * kw_n) * sizeof *t.idx);
		if (!t.buf || !t.idx) {
			free(t.buf);
			free(t.idx);
			return xk_fail(k, "out of memory for %lld x %lld positions", (long long)hp, (long long)wp);
		}
		memset(t.buf, 0, (size_t)(hp * wp) * sizeof(v8f));
		t.obuf = t.buf + hp * wp;
		t.w = t.obuf + oh_n * ow_n;
		for (int64_t q = 0; q < h * wd; q++)
			t.idx[q] = (int32_t)((q / wd + pt) * wp + q % wd + pl);
		t.at = t.idx + h * wd + 1;
		t.tap = t.at + oh_n * ow_n;
		for (int64_t q = 0; q < oh_n * ow_n; q++)
			t.at[q] = (int32_t)(q / ow_n * t.sh * wp + q % ow_n * t.sw);
		for (int64_t i = 0; i < kh_n * kw_n; i++)
			t.tap[i] = (int32_t)(i / kw_n * t.dh * wp + i % kw_n * t.dw);
		c8 = c_n / 8 * 8;
		for (int64_t b = 0; b < nb; b++)
			depthwise_k_t(x + b * c_n * h * wd, c8, wt, bias, y + b * c_n * oh_n * ow_n, &t);
		free(t.buf);
		free(t.idx);
		if (c8 == c_n)
			return 0;
	}
	/* the padded plane, 32 floats of slack, and (the stride-1 path) the flattened plane's outputs */
	float *xpad = calloc((size_t)(hp * wp + 32 + oh_n * wp), sizeof *xpad);
	if (!xpad)
		return xk_fail(k, "out of memory for a %lld x %lld padded plane", (long long)hp, (long long)wp);
	float *tmp = xpad + hp * wp + 32;
	for (int64_t b = 0; b < nb; b++)
		for (int64_t m = c8; m < c_n * mult; m++) {
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
