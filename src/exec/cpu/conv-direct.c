/* CPU Conv in float32 straight from the input, without im2col or a GEMM library: the direct path of
 * src/exec/cpu/conv.c for 1-D and 2-D convolutions with enough output channels.
 *
 * The output is computed in blocks of 16 output channels by 6 output positions, 12 AVX2 registers of sums.  For each
 * of the K = (input channels of the group) x kh x kw products, the block loads 16 weights (two vectors, from the
 * weights packed once per panel of 16 channels: K x 16 floats) and broadcasts the input value under each of its 6
 * positions.  Those 6 values lie at one offset, the same for all 6, from each position's window origin in the
 * zero-padded input: offs[k] = c * (plane) + kh * dilation * (row) + kw * dilation, a table of K entries made once
 * per call.  So any stride, dilation and padding is the same loop, positions run on across output rows (no block is
 * wasted at a row's end: only the last block of the plane may be short), and nothing is copied but the padded input
 * (not even that when there are no pads).  The sums start from the bias; the runner's fused Relu or Clip is applied
 * before the block is stored, its 6 x 16 sums transposed into the output's 16 rows.
 *
 * The packed weights depend only on W and the group count: they are kept with the constants across runs when W is
 * one (xk_derive), so a warm run packs nothing.
 *
 * Convolutions of few products (a first layer over RGB) go another way, positions in the lanes (dr_conv below). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/cpu/kernels.h"
#include "src/exec/cpu/simd.h"
#include "src/exec/exec.h"
#include "src/exec/ops/ops.h"

/* Floats of the padded input kept at once: a whole image's when it fits (ImageNet-sized layers), else bands of rows. */
#define DC_PAD_FLOATS (256 << 10)
/* output channels (two vectors) and positions of one block */
#define DC_CH 16
#define DC_POS 6

/* The block of 16 channels x np positions (np 6 or 5, a constant once inlined): K products, offs[k] the input
 * offset of product k from each position's window origin base[i]; wp the panel's packed weights (K x 16); the sums
 * start at bias[0..16) and are stored, act applied, into y's rows (ldy apart) j < nch at columns i < npos; wide:
 * all 16 rows and np columns, and 8 columns may be written (the next block starts before the row's end). */
static inline __attribute__((always_inline)) void dc_block(int64_t K, const int32_t *restrict offs,
							   const float *const *base, const float *restrict wp,
							   const float *bias, const struct act8 *a, float *y,
							   int64_t ldy, int npos, int nch, int wide, const int np)
{
	v8f s0[DC_POS], s1[DC_POS], b0 = LOAD8(bias), b1 = LOAD8(bias + 8);
	const float *p0 = base[0], *p1 = base[1], *p2 = base[2], *p3 = base[3], *p4 = base[4], *p5 = base[5];

	for (int i = 0; i < np; i++)
		s0[i] = b0, s1[i] = b1;
#pragma GCC unroll 2
	for (int64_t k = 0; k < K; k++) {
		int64_t o = offs[k];
		v8f w0 = LOAD8(wp + k * DC_CH), w1 = LOAD8(wp + k * DC_CH + 8);
#define DC_STEP(i, p)                                                                                              \
	do {                                                                                                       \
		float v = (p)[o];                                                                                  \
		v8f vv = {v, v, v, v, v, v, v, v};                                                                 \
		s0[i] += vv * w0;                                                                                  \
		s1[i] += vv * w1;                                                                                  \
	} while (0)
		DC_STEP(0, p0);
		DC_STEP(1, p1);
		DC_STEP(2, p2);
		DC_STEP(3, p3);
		DC_STEP(4, p4);
		if (np > 5)
			DC_STEP(5, p5);
#undef DC_STEP
	}
#pragma GCC unroll 6
	for (int i = 0; i < np; i++)
		if (a->on) {
			act8_apply(&s0[i], a);
			act8_apply(&s1[i], a);
		}
	if (wide) {
		/* the whole block: 8 positions per channel row, transposed in registers; positions np..8 are stored
		 * with garbage, which the next block (there is one: wide says so) overwrites */
		v8f r0[8], r1[8];
#pragma GCC unroll 8
		for (int i = 0; i < 8; i++) {
			r0[i] = s0[i < np ? i : np - 1];
			r1[i] = s1[i < np ? i : np - 1];
		}
		v8_transpose(r0);
		v8_transpose(r1);
#pragma GCC unroll 8
		for (int j = 0; j < 8; j++) {
			memcpy(y + j * ldy, &r0[j], sizeof r0[j]);
			memcpy(y + (j + 8) * ldy, &r1[j], sizeof r1[j]);
		}
		return;
	}
	float t[DC_POS][DC_CH];
	for (int i = 0; i < np; i++) {
		memcpy(t[i], &s0[i], sizeof s0[i]);
		memcpy(t[i] + 8, &s1[i], sizeof s1[i]);
	}
	for (int j = 0; j < nch; j++)
		for (int i = 0; i < npos; i++)
			y[j * ldy + i] = t[i][j];
}

NN_CLONES static void dc_block6(int64_t K, const int32_t *offs, const float *const *base, const float *wp,
				const float *bias, const struct act8 *a, float *y, int64_t ldy, int npos, int nch, int wide)
{
	dc_block(K, offs, base, wp, bias, a, y, ldy, npos, nch, wide, 6);
}

NN_CLONES static void dc_block5(int64_t K, const int32_t *offs, const float *const *base, const float *wp,
				const float *bias, const struct act8 *a, float *y, int64_t ldy, int npos, int nch, int wide)
{
	dc_block(K, offs, base, wp, bias, a, y, ldy, npos, nch, wide, 5);
}

/* W (M x K per group, K = cg x kernel) packed as panels of 16 output channels, K x 16 each, zero past the group's
 * channels: group-major, then panel. */
static void dc_pack(const float *w, int64_t group, int64_t mg, int64_t K, float *wp)
{
	for (int64_t g = 0; g < group; g++)
		cpu_rows_pack(w + g * mg * K, K, mg, K, DC_CH, wp + g * cpu_rows_size(mg, K, DC_CH));
}

/* The padded input's rows and columns: the input with its pads, and at least what the windows reach. */
static void dc_padded(const struct ops_window *w2, int64_t *hp, int64_t *wp)
{
	int64_t hneed = (w2->out[0] - 1) * w2->s[0] + (w2->k[0] - 1) * w2->d[0] + 1;
	int64_t wneed = (w2->out[1] - 1) * w2->s[1] + (w2->k[1] - 1) * w2->d[1] + 1;

	*hp = w2->in[0] + w2->pb[0] + w2->pe[0];
	*wp = w2->in[1] + w2->pb[1] + w2->pe[1];
	*hp = *hp > hneed ? *hp : hneed;
	*wp = *wp > wneed ? *wp : wneed;
}

/* ---- few products: positions in the lanes ----------------------------------------------------------------------
 * A first layer over RGB (MobileNet's 3x3 stride 2: K = 27) has too few products a block for the transposed stores
 * above to be paid for.  Here a block is 4 output channels by 24 consecutive outputs of one row (three vectors of
 * 8 positions, 12 sums): for each product it loads the 3 vectors of inputs under the 24 windows and broadcasts 4
 * weights, and the sums, started from the bias, are stored straight into the output's rows, the activation
 * applied.  The 8 inputs of a vector are consecutive because the padded input is kept split by column phase: for
 * stride 2 each padded row as its even columns, then its odd ones, so that column ow * 2 + kw of the padded row is
 * entry ow + kw / 2 of phase kw % 2.  A row's last vector may be short: it is computed whole (the phase rows have
 * 8 floats of slack) and stored in part.  Each sum is the same bias-first, product-by-product sequence as above. */

#define DR_MC 4
#define DR_NV 3
/* the most products (more: the transposed blocks above), and the most floats of split input (16 MB: an RGB image
 * up to about 1150 x 1150 at stride 2; it need not fit a cache, as the rows are done one after the other: YOLOv8's
 * first layer at 320 x 320 0.43 to 0.27 ms, at 640 x 640 1.78 to 1.2 ms, against the blocks above) */
#define DR_MAX_K 32
/* and for few input channels, more products (a 7x7 first layer over RGB: 147): measured against the blocks above,
 * ResNet's 3->64 7x7 stride 2 2.38 to 2.16 ms, 8->64 3x3 1.30 to 1.09, 4->24 5x5 0.16 to 0.11; with 12 and 16
 * input channels (108 and 144 products) the blocks stay ahead */
#define DR_FEW_CH 8
#define DR_FEW_CH_MAX_K 160
#define DR_MAX_FLOATS (4 << 20)

struct dr_geom {
	int64_t hp, wpad, ph, pw; /* padded rows and columns; phases (the stride across), floats a phase row */
};

static void dr_geometry(const struct ops_window *w2, struct dr_geom *g)
{
	dc_padded(w2, &g->hp, &g->wpad);
	g->ph = w2->s[1];
	g->pw = (g->wpad + g->ph - 1) / g->ph + 8;
}

static int dr_takes(int64_t cg, const struct ops_window *w2)
{
	struct dr_geom g;

	int64_t K = cg * w2->k[0] * w2->k[1];
	if (w2->n != 2 || (w2->s[1] != 1 && w2->s[1] != 2) || w2->out[1] < 16 ||
	    (K > DR_MAX_K && (cg > DR_FEW_CH || K > DR_FEW_CH_MAX_K)))
		return 0;
	dr_geometry(w2, &g);
	return cg * g.hp * g.ph * g.pw <= DR_MAX_FLOATS;
}

/* One block: nch of the 4 channels (weights wp: K x 4, bias b) by NV vectors from src + offs[k] on, stored into y
 * (rows ldy apart), keep floats of the last vector. */
static inline __attribute__((always_inline)) void dr_block(int64_t K, const int32_t *restrict offs,
							   const float *src, const float *restrict wp, const float *b,
							   const struct act8 *a, float *y, int64_t ldy, int nch, int keep,
							   const int NV)
{
	v8f acc[DR_MC][DR_NV];

#pragma GCC unroll 4
	for (int i = 0; i < DR_MC; i++)
#pragma GCC unroll 3
		for (int v = 0; v < NV; v++)
			acc[i][v] = (v8f){b[i], b[i], b[i], b[i], b[i], b[i], b[i], b[i]};
	for (int64_t k = 0; k < K; k++) {
		const float *p = src + offs[k];
		v8f xv[DR_NV];
#pragma GCC unroll 3
		for (int v = 0; v < NV; v++)
			xv[v] = LOAD8(p + 8 * v);
#pragma GCC unroll 4
		for (int i = 0; i < DR_MC; i++) {
			float wk = wp[k * DR_MC + i];
			v8f wb = {wk, wk, wk, wk, wk, wk, wk, wk};
#pragma GCC unroll 3
			for (int v = 0; v < NV; v++)
				acc[i][v] += wb * xv[v];
		}
	}
#pragma GCC unroll 4
	for (int i = 0; i < DR_MC; i++) {
		if (i >= nch)
			break;
#pragma GCC unroll 3
		for (int v = 0; v < NV; v++) {
			if (a->on)
				act8_apply(&acc[i][v], a);
			if (v < NV - 1 || keep == 8) {
				STORE8(y + i * ldy + 8 * v, acc[i][v]);
			} else {
				float t[8];
				STORE8(t, acc[i][v]);
				memcpy(y + i * ldy + 8 * v, t, (size_t)keep * sizeof *t);
			}
		}
	}
}

NN_CLONES static void dr_row(int64_t K, const int32_t *offs, const float *src, const float *wp, const float *b,
			     const struct act8 *a, float *y, int64_t ldy, int nch, int64_t ow_n)
{
	int64_t ow = 0;

	for (; ow + 8 * DR_NV <= ow_n; ow += 8 * DR_NV)
		dr_block(K, offs, src + ow, wp, b, a, y + ow, ldy, nch, 8, DR_NV);
	/* the rest two vectors at a time while there are (8 sums: as many as the multiply-adds in flight need) */
	for (; ow + 8 < ow_n; ow += 16)
		dr_block(K, offs, src + ow, wp, b, a, y + ow, ldy, nch, ow_n - ow < 16 ? (int)(ow_n - ow - 8) : 8, 2);
	for (; ow < ow_n; ow += 8)
		dr_block(K, offs, src + ow, wp, b, a, y + ow, ldy, nch, ow_n - ow < 8 ? (int)(ow_n - ow) : 8, 1);
}

/* Input row src (wd floats) into padded row dst split by column phase (sw of them, pw floats apart), after pl
 * columns of pads: for stride 2 the even and the odd floats of 16 at a time. */
NN_CLONES static void dr_split_row(float *dst, const float *src, int64_t wd, int64_t pl, int64_t pw, int64_t sw)
{
	int64_t q = 0;

	if (sw == 1) {
		memcpy(dst + pl, src, (size_t)wd * sizeof *dst);
		return;
	}
	/* x[2t] lands in phase pl % 2 at pl / 2 + t, x[2t + 1] in the other at (pl + 1) / 2 + t */
	float *ev = dst + pl % 2 * pw + pl / 2, *od = dst + (pl + 1) % 2 * pw + (pl + 1) / 2;
	for (; q + 16 <= wd; q += 16) {
		v8f a = LOAD8(src + q), b = LOAD8(src + q + 8);
		STORE8(ev + q / 2, V8_EVEN(a, b));
		STORE8(od + q / 2, V8_ODD(a, b));
	}
	for (; q < wd; q++)
		(q % 2 ? od : ev)[q / 2] = src[q];
}

/* The convolution through dr_block (dr_takes said yes), as cpu_conv_direct_f. */
static int dr_conv(struct exec_kernel_ctx *k, const float *x, const float *w, const float *bias, int64_t nb,
		   int64_t c, int64_t m, int64_t group, const struct ops_window *w2, const struct exec_act *act, float *y)
{
	int64_t cg = c / group, mg = m / group, kh_n = w2->k[0], kw_n = w2->k[1], K = cg * kh_n * kw_n;
	int64_t h = w2->in[0], wd = w2->in[1], oh_n = w2->out[0], ow_n = w2->out[1], os = oh_n * ow_n;
	int64_t blocks = (mg + DR_MC - 1) / DR_MC, sw = w2->s[1];
	struct dr_geom g;
	uint64_t tag = 0x44520000u ^ (uint64_t)group << 20; /* "DR", the group count */
	size_t wbytes = (size_t)(group * blocks * K * DR_MC) * sizeof(float);
	const float *wpk = xk_derived(k, 1, tag);
	float *own = NULL, *xs = NULL, *bz = NULL;
	int32_t *offs = NULL;
	int rc = -1;
	struct act8 a;

	dr_geometry(w2, &g);
	int64_t prow = g.ph * g.pw, plane = g.hp * prow; /* floats a padded row, a channel */
	if (!wpk) {
		if (!(own = malloc(wbytes)))
			return xk_fail(k, "out of memory for the packed weights (%zu bytes)", wbytes);
		for (int64_t gi = 0; gi < group; gi++)
			cpu_rows_pack(w + gi * mg * K, K, mg, K, DR_MC, own + gi * blocks * K * DR_MC);
		wpk = own;
		if (xk_derive(k, 1, tag, own, wbytes))
			own = NULL;
	}
	xs = malloc((size_t)(cg * plane + 16) * sizeof *xs);
	offs = malloc((size_t)K * sizeof *offs);
	bz = calloc((size_t)(group * blocks * DR_MC), sizeof *bz);
	if (!xs || !offs || !bz) {
		xk_fail(k, "out of memory for a %lld x %lld x %lld split input", (long long)cg, (long long)g.hp,
			(long long)prow);
		goto out;
	}
	for (int64_t gi = 0; gi < group; gi++)
		for (int64_t j = 0; bias && j < mg; j++)
			bz[gi * blocks * DR_MC + j] = bias[gi * mg + j];
	for (int64_t ci = 0; ci < cg; ci++)
		for (int64_t i = 0; i < kh_n; i++)
			for (int64_t j = 0; j < kw_n; j++) {
				int64_t col = j * w2->d[1];
				offs[(ci * kh_n + i) * kw_n + j] =
					(int32_t)(ci * plane + i * w2->d[0] * prow + col % sw * g.pw + col / sw);
			}
	/* zeros where no input lands (a whole image of zeros would be written twice): the rows above and below the
	 * input, and in each row of it the pads and slack before and after its columns in each phase */
	for (int64_t ci = 0; ci < cg; ci++)
		for (int64_t r = 0; r < g.hp; r++) {
			float *row = xs + ci * plane + r * prow;
			if (r < w2->pb[0] || r >= w2->pb[0] + h) {
				memset(row, 0, (size_t)prow * sizeof *row);
				continue;
			}
			for (int64_t ph = 0; ph < sw; ph++) {
				int64_t q0 = ((ph - w2->pb[1]) % sw + sw) % sw; /* the first input column in phase ph */
				int64_t j0 = (q0 + w2->pb[1]) / sw, j1 = q0 < wd ? j0 + (wd - q0 + sw - 1) / sw : j0;
				memset(row + ph * g.pw, 0, (size_t)j0 * sizeof *row);
				memset(row + ph * g.pw + j1, 0, (size_t)(g.pw - j1) * sizeof *row);
			}
		}
	memset(xs + cg * plane, 0, 16 * sizeof *xs);
	act8_init(&a, act);
	for (int64_t n = 0; n < nb; n++)
		for (int64_t gi = 0; gi < group; gi++) {
			const float *xg = x + (n * c + gi * cg) * h * wd;
			/* the group's input, padded and split by column phase (the pads stay zero) */
			for (int64_t ci = 0; ci < cg; ci++)
				for (int64_t i = 0; i < h; i++)
					dr_split_row(xs + ci * plane + (i + w2->pb[0]) * prow, xg + (ci * h + i) * wd, wd,
						     w2->pb[1], g.pw, sw);
			/* row by row, every block of channels over a row before the next: the input rows a row reads stay
			 * in the L1 cache for all the blocks, where block by block the whole image came in once each */
			for (int64_t oh = 0; oh < oh_n; oh++)
				for (int64_t bl = 0; bl < blocks; bl++) {
					const float *wpb = wpk + (gi * blocks + bl) * K * DR_MC;
					const float *bb = bz + (gi * blocks + bl) * DR_MC;
					int nch = (int)(mg - bl * DR_MC < DR_MC ? mg - bl * DR_MC : DR_MC);
					float *yb = y + (n * m + gi * mg + bl * DR_MC) * os;
					dr_row(K, offs, xs + oh * w2->s[0] * prow, wpb, bb, &a, yb + oh * ow_n, os, nch, ow_n);
				}
		}
	rc = 0;
out:
	free(own);
	free(xs);
	free(offs);
	free(bz);
	return rc;
}

int cpu_conv_direct_takes(int64_t cg, int64_t mg, const struct ops_window *w2)
{
	int64_t K = cg * w2->k[0] * w2->k[1], hp, wp;

	dc_padded(w2, &hp, &wp);
	/* enough channels to fill the 16-channel panels, enough products to pay for the transposed stores (MobileNet's
	 * first layer, 27, is ahead of im2col and OpenBLAS), and offsets that fit the table's 32 bits */
	return w2->n == 2 && mg >= 12 && K >= 16 && cg * hp * wp < INT32_MAX / 2;
}

int cpu_conv_direct_f(struct exec_kernel_ctx *k, const float *x, const float *w, const float *bias, int64_t nb,
		      int64_t c, int64_t m, int64_t group, const struct ops_window *w2, const struct exec_act *act,
		      float *y)
{
	int64_t cg = c / group, mg = m / group, kh_n = w2->k[0], kw_n = w2->k[1], K = cg * kh_n * kw_n;
	int64_t h = w2->in[0], wd = w2->in[1], oh_n = w2->out[0], ow_n = w2->out[1], os = oh_n * ow_n;
	int64_t pt = w2->pb[0], pl = w2->pb[1], sh = w2->s[0], sw = w2->s[1];
	int64_t hp, wp;
	int64_t panels = (mg + DC_CH - 1) / DC_CH;
	int padded;

	if (dr_takes(cg, w2))
		return dr_conv(k, x, w, bias, nb, c, m, group, w2, act, y);
	/* 5 positions a block where 6 would waste more than 2% more of the last block (7x7 planes: 50 for 49, not 54) */
	int np = (os + 4) / 5 * 5 * 51 < (os + 5) / 6 * 6 * 50 ? 5 : 6;
	uint64_t tag = 0x44430000u ^ (uint64_t)group << 20; /* "DC", the group count */
	size_t wbytes = (size_t)(group * panels * K * DC_CH) * sizeof(float);
	const float *wpk = xk_derived(k, 1, tag);
	float *own = NULL, *xpad = NULL, *bz = NULL;
	int32_t *offs = NULL;
	int rc = -1;
	struct act8 a;

	dc_padded(w2, &hp, &wp);
	padded = hp != h || wp != wd;
	/* output rows a band: all of them, unless the padded copy of a whole image would pass DC_PAD_FLOATS (a large
	 * image: then bands of rows, each padded as it comes) */
	int64_t ob = oh_n, reach = (kh_n - 1) * w2->d[0] + 1;
	if (padded && cg * hp * wp > DC_PAD_FLOATS) {
		ob = (DC_PAD_FLOATS / (cg * wp) - reach) / sh + 1;
		ob = ob < 1 ? 1 : ob > oh_n ? oh_n : ob;
	}
	int64_t hb = padded ? (ob - 1) * sh + reach : h; /* rows of the padded band (all of them: hp) */
	if (padded && ob == oh_n)
		hb = hp;
	int64_t plane = padded ? hb * wp : h * wd;
	if (!wpk) {
		own = aligned_alloc(64, (wbytes + 63) / 64 * 64);
		if (!own)
			return xk_fail(k, "out of memory for the packed weights (%zu bytes)", wbytes);
		dc_pack(w, group, mg, K, own);
		wpk = own;
		if (xk_derive(k, 1, tag, own, wbytes))
			own = NULL; /* kept with the constants */
	}
	offs = malloc((size_t)K * sizeof *offs);
	bz = calloc((size_t)(panels * DC_CH * group), sizeof *bz);
	if (padded)
		xpad = calloc((size_t)(cg * hb * wp + 16), sizeof *xpad);
	if (!offs || !bz || (padded && !xpad)) {
		xk_fail(k, "out of memory for a %lld x %lld x %lld padded input", (long long)cg, (long long)hp,
			(long long)wp);
		goto out;
	}
	/* the biases padded to whole panels, per group */
	for (int64_t g = 0; g < group; g++)
		for (int64_t j = 0; bias && j < mg; j++)
			bz[g * panels * DC_CH + j] = bias[g * mg + j];
	for (int64_t ci = 0; ci < cg; ci++)
		for (int64_t i = 0; i < kh_n; i++)
			for (int64_t j = 0; j < kw_n; j++)
				offs[(ci * kh_n + i) * kw_n + j] = (int32_t)(ci * plane + i * w2->d[0] * wp + j * w2->d[1]);
	act8_init(&a, act);
	for (int64_t n = 0; n < nb; n++)
		for (int64_t g = 0; g < group; g++)
			for (int64_t oh0 = 0; oh0 < oh_n; oh0 += ob) {
				int64_t oh1 = oh0 + ob < oh_n ? oh0 + ob : oh_n;
				const float *xg = x + (n * c + g * cg) * h * wd, *src = xg + oh0 * sh * wd;
				if (padded) {
					/* the band's padded rows: input row i at padded row pt + i, zeros above and below
					 * (the columns left and right of the input stay zero throughout) */
					int64_t rows = oh1 == oh_n && ob == oh_n ? hp : (oh1 - oh0 - 1) * sh + reach;
					for (int64_t ci = 0; ci < cg; ci++)
						for (int64_t lr = 0; lr < rows; lr++) {
							float *dst = xpad + (ci * hb + lr) * wp;
							int64_t i = oh0 * sh + lr - pt;
							if (i >= 0 && i < h)
								memcpy(dst + pl, xg + (ci * h + i) * wd, (size_t)wd * sizeof *xpad);
							else
								memset(dst, 0, (size_t)wp * sizeof *xpad);
						}
					src = xpad;
				}
				for (int64_t p = 0; p < panels; p++) {
					const float *wpp = wpk + (g * panels + p) * K * DC_CH, *bp = bz + (g * panels + p) * DC_CH;
					int nch = (int)(mg - p * DC_CH < DC_CH ? mg - p * DC_CH : DC_CH);
					float *yp = y + (n * m + g * mg + p * DC_CH) * os;
					int64_t q1 = oh1 * ow_n, oh = 0, ow = 0; /* the output position q, its row within the band */
					for (int64_t q = oh0 * ow_n; q < q1; q += np) {
						const float *base[DC_POS];
						int npos = (int)(q1 - q < np ? q1 - q : np);
						for (int i = 0; i < DC_POS; i++) {
							base[i] = src + oh * sh * wp + ow * sw;
							if (i + 1 < npos && ++ow == ow_n)
								ow = 0, oh++;
						}
						if (npos == np && ++ow == ow_n) /* on to the next block's first position */
							ow = 0, oh++;
						/* 8 columns stored: the next block (of this band or the next one, written later)
						 * overwrites the ones past this block */
						int wide = nch == DC_CH && q + 8 <= os && npos == np;
						if (np == 6)
							dc_block6(K, offs, base, wpp, bp, &a, yp + q, os, npos, nch, wide);
						else
							dc_block5(K, offs, base, wpp, bp, &a, yp + q, os, npos, nch, wide);
					}
				}
			}
	rc = 0;
out:
	free(own);
	free(offs);
	free(bz);
	free(xpad);
	return rc;
}
