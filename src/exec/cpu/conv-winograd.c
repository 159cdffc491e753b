/* CPU Conv in float32 by Winograd's minimal filtering F(2x2, 3x3): 3x3 kernels, stride 1, dilation 1, one group,
 * enough channels (ResNet's and VGG's convolutions).  Each 2x2 block of outputs (a tile) comes from the 4x4 input
 * patch under it with 16 multiplications per input channel instead of 36:
 *
 *   U = G g G^T   (each 3x3 kernel g to 4x4; G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1])
 *   V = B^T d B   (each 4x4 patch d; B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1])
 *   Y = A^T [sum over channels of U . V] A   (A^T = [1 1 1 0; 0 1 -1 -1])
 *
 * The sum over channels of the 16 elementwise products is 16 matrix products, M x C by C x tiles, one per element
 * of the 4x4 (src/exec/cpu/panel-gemm.c, the transformed kernels packed for it).  The input and output transforms run on 8 tiles of a row at a time (the patches of
 * neighbouring tiles overlap by 2 columns: their columns are the even and odd elements of two loads).  The
 * transformed kernels depend only on W: they are kept with the constants across runs (xk_derive).  Tiles are taken a
 * band of tile rows at a time, the input padded band by band, so the padded rows, the transformed inputs and the
 * products stay within L2 whatever the image.
 *
 * The arithmetic differs from the direct sum (the transforms add and halve before the products), by a few units
 * in the last place of the inputs' magnitude; the bias and the fused Relu or Clip are applied as the direct path
 * applies them, to the finished sums.  An infinity or NaN among the inputs would spread through the transforms to
 * every output of its tiles (inf - inf), where the direct sum gives an infinity only where the window holds it:
 * such an input is seen as it is copied in, and the convolution is left to the other paths. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/cpu/kernels.h"
#include "src/exec/cpu/simd.h"
#include "src/exec/exec.h"
#include "src/exec/ops/ops.h"

/* Budget of one band's transformed inputs (and, apart, of its products), in floats: both within L2 (1 MiB on the
 * machines measured; 4 MiB bands ran 10% slower from L3), but at least WG_MIN_TILES tiles: every band streams all
 * 16 transformed kernels (16 M C floats) through the products and rounds its tiles up to 16, so bands of few tiles
 * on wide layers lose more than L2 saves.  Measured per shape (lowest of 5 processes, 32 -> 192 tiles): 128 -> 64
 * and 128 -> 128 at 20x20 (YOLOv8's) 0.73 -> 0.56 and 1.23 -> 0.96 ms, 64 -> 64 at 56x56 2.23 -> 1.91, 256 -> 256
 * at 14x14 2.07 -> 1.87, 96 -> 24 at 80x80 3.14 -> 2.56, no shape slower; 384 tiles was slower again on few
 * channels (32 -> 32 at 80x80 1.29 -> 1.78).  The band changes no bit (each product is the same sum over C). */
#define WG_BAND (1 << 16)
#define WG_MIN_TILES 192

int cpu_conv_winograd_takes(int64_t c, int64_t m, int64_t group, const struct ops_window *w2)
{
	/* F(2x2, 3x3) saves multiplications in proportion to c m and pays for its transforms in proportion to c + m:
	 * it is ahead from c m / (c + m) = 14 (measured, ms against the direct path's: YOLOv8's 16 -> 16 at 80x80
	 * 0.66 against 0.39, 16 -> 32 0.85 against 0.77, 24 -> 24 at 56x56 0.59 against 0.54, 64 -> 16 0.90 against
	 * 0.78, 16 -> 64 0.82 against 0.85; 32 -> 32 at 80x80 1.34 against 1.45, PP-OCRv4 det's 96 -> 24 (its
	 * head) 3.2 against 4.7, 64 -> 64 at 56x56 2.2 against 3.8); and for its 16 products on planes of 8x8 outputs or
	 * more (ResNet's 7x7 ones are 16 tiles for 512 x 512 kernels: the direct path is twice as fast there); the
	 * offsets stay far from overflow */
	return group == 1 && w2->n == 2 && w2->k[0] == 3 && w2->k[1] == 3 && w2->s[0] == 1 && w2->s[1] == 1 &&
	       w2->d[0] == 1 && w2->d[1] == 1 && c >= 16 && m >= 16 && c <= (1 << 20) && m <= (1 << 20) &&
	       c * m >= 14 * (c + m) && w2->out[0] >= 8 && w2->out[1] >= 8 && w2->out[0] * w2->out[1] <= (1 << 28);
}

/* Rows of U per panel (cpu_panels_gemm's). */
#define WG_MR 6

/* U = G g G^T for each kernel g = W[m][c] (3x3), packed for cpu_panels_gemm: for each element e of the 4x4, panels
 * of 6 output channels (zeros past M), each C x 6: u[((e * panels + m / 6) * C + c) * 6 + m % 6].  Every float of
 * U is written (u needs no zeroing), a panel's six channels at a time so that each element's six are stored side
 * by side. */
NN_CLONES static void wg_kernels(const float *w, int64_t M, int64_t C, float *u)
{
	int64_t panels = (M + WG_MR - 1) / WG_MR;

	/* a panel's six kernels of one input channel in six lanes (two more zero), their taps turned into lanes in
	 * registers: the same additions and halvings as one kernel at a time, each element's six written as one */
	for (int64_t p = 0; p < panels; p++) {
		int live = M - p * WG_MR < WG_MR ? (int)(M - p * WG_MR) : WG_MR;
		for (int64_t c = 0; c < C; c++) {
			v8f g[9], t[4][3], r[16];
			float g8[8] = {0};
			for (int j = 0; j < 8; j++) {
				g[j] = (v8f){0};
				if (j < live) {
					const float *k = w + ((p * WG_MR + j) * C + c) * 9;
					g[j] = LOAD8(k);
					g8[j] = k[8];
				}
			}
			v8_transpose(g); /* g[tap][lane] */
			g[8] = LOAD8(g8);
			v8f half = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
			for (int j = 0; j < 3; j++) {
				t[0][j] = g[j];
				t[1][j] = half * (g[j] + g[3 + j] + g[6 + j]);
				t[2][j] = half * (g[j] - g[3 + j] + g[6 + j]);
				t[3][j] = g[6 + j];
			}
			for (int i = 0; i < 4; i++) {
				r[4 * i] = t[i][0];
				r[4 * i + 1] = half * (t[i][0] + t[i][1] + t[i][2]);
				r[4 * i + 2] = half * (t[i][0] - t[i][1] + t[i][2]);
				r[4 * i + 3] = t[i][2];
			}
			for (int e = 0; e < 16; e++)
				memcpy(u + ((e * panels + p) * C + c) * WG_MR, &r[e], WG_MR * sizeof *u);
		}
	}
}

/* B^T d B for 8 tiles side by side: d[i][j] holds element (i, j) of each tile's patch; v[e] the 16 results. */
static inline void wg_in8(const v8f d[4][4], v8f v[16])
{
	v8f t[4][4];

	for (int j = 0; j < 4; j++) {
		t[0][j] = d[0][j] - d[2][j];
		t[1][j] = d[1][j] + d[2][j];
		t[2][j] = d[2][j] - d[1][j];
		t[3][j] = d[1][j] - d[3][j];
	}
	for (int i = 0; i < 4; i++) {
		v[4 * i] = t[i][0] - t[i][2];
		v[4 * i + 1] = t[i][1] + t[i][2];
		v[4 * i + 2] = t[i][2] - t[i][1];
		v[4 * i + 3] = t[i][1] - t[i][3];
	}
}

/* The inputs of tile rows [r0, r1) of one image: V[e][c][t] (ldv apart per channel, t from 0 at the band's first
 * tile), from xp, the channels zero-padded (hp x wp each, the outputs' origin at (0, 0), 16 floats of slack after
 * each row's last tile), tw tiles a row.  8 tiles at a time: those past a row's end land on the next row's (written
 * after them) or, for the band's last row, in the 16 floats after its tiles. */
NN_CLONES static void wg_inputs(const float *xp, int64_t C, int64_t hp, int64_t wp, int64_t r0, int64_t r1,
				int64_t tw, float *v, int64_t ldv)
{
	for (int64_t c = 0; c < C; c++)
		for (int64_t r = r0; r < r1; r++) {
			const float *row = xp + (c * hp + 2 * r) * wp;
			for (int64_t q = 0; q < tw; q += 8) {
				v8f d[4][4], e[16];
				for (int i = 0; i < 4; i++) {
					const float *p = row + i * wp + 2 * q;
					v8f a0 = LOAD8(p), a1 = LOAD8(p + 8), b0 = LOAD8(p + 2), b1 = LOAD8(p + 10);
					d[i][0] = V8_EVEN(a0, a1);
					d[i][1] = V8_ODD(a0, a1);
					d[i][2] = V8_EVEN(b0, b1);
					d[i][3] = V8_ODD(b0, b1);
				}
				wg_in8(d, e);
				float *dst = v + c * ldv + (r - r0) * tw + q;
				for (int k = 0; k < 16; k++)
					memcpy(dst + (int64_t)k * C * ldv, &e[k], sizeof e[k]);
			}
		}
}

/* A^T m A, bias and act, for tile rows [r0, r1) of tw tiles: p[e][m][t] the products (ldp apart per channel, 8
 * readable past the band's tiles), y the output (oh x ow per channel), rows[2][...] scratch for two output rows of
 * 2 * tw8 + 16 floats (tw8: tw rounded up to 8).  8 tiles at a time: those past a row's end (the next row's) are
 * transformed too and dropped. */
NN_CLONES static void wg_outputs(const float *p, int64_t M, int64_t ldp, int64_t r0, int64_t r1, int64_t tw,
				 int64_t tw8, const float *bias, const struct exec_act *act, float *y, int64_t oh,
				 int64_t ow, float *rows)
{
	struct act8 a;
	int64_t rw = 2 * tw8 + 16;

	act8_init(&a, act);
	for (int64_t m = 0; m < M; m++) {
		float b = bias ? bias[m] : 0.0f;
		v8f bv = {b, b, b, b, b, b, b, b};
		for (int64_t r = r0; r < r1; r++) {
			for (int64_t q = 0; q < tw; q += 8) {
				const float *src = p + m * ldp + (r - r0) * tw + q;
				v8f s[16], t[2][4], o[4];
				for (int k = 0; k < 16; k++)
					s[k] = LOAD8(src + (int64_t)k * M * ldp);
				for (int j = 0; j < 4; j++) {
					t[0][j] = s[j] + s[4 + j] + s[8 + j];
					t[1][j] = s[4 + j] - s[8 + j] - s[12 + j];
				}
				for (int i = 0; i < 2; i++) {
					o[2 * i] = bv + (t[i][0] + t[i][1] + t[i][2]);
					o[2 * i + 1] = bv + (t[i][1] - t[i][2] - t[i][3]);
				}
				for (int k = 0; k < 4; k++)
					if (a.on)
						act8_apply(&o[k], &a);
				/* row i of the pair: its tiles' left and right outputs interleaved */
				for (int i = 0; i < 2; i++) {
					v8f lo = V8_SHUF2(o[2 * i], o[2 * i + 1], 0, 8, 1, 9, 2, 10, 3, 11);
					v8f hi = V8_SHUF2(o[2 * i], o[2 * i + 1], 4, 12, 5, 13, 6, 14, 7, 15);
					memcpy(rows + i * rw + 2 * q, &lo, sizeof lo);
					memcpy(rows + i * rw + 2 * q + 8, &hi, sizeof hi);
				}
			}
			for (int i = 0; i < 2 && 2 * r + i < oh; i++)
				memcpy(y + (m * oh + 2 * r + i) * ow, rows + i * rw, (size_t)ow * sizeof *y);
		}
	}
}

/* dst = src, n floats; 1 when one of them is an infinity or NaN. */
NN_CLONES static int copy_finite(float *restrict dst, const float *restrict src, int64_t n)
{
	const v8i exp = {0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000,
			 0x7f800000};
	v8i bad8 = {0};
	int64_t i = 0;
	int bad = 0;

	for (; i + 8 <= n; i += 8) {
		v8f v = LOAD8(src + i);
		STORE8(dst + i, v);
		bad8 |= ((v8i)v & exp) == exp;
	}
	for (int q = 0; q < 8; q++)
		bad |= bad8[q] != 0;
	for (; i < n; i++) {
		uint32_t u;
		memcpy(&u, src + i, sizeof u);
		dst[i] = src[i];
		bad |= (u & 0x7f800000u) == 0x7f800000u;
	}
	return bad;
}

int cpu_conv_winograd_f(struct exec_kernel_ctx *k, const float *x, const float *w, const float *bias, int64_t nb,
			int64_t C, int64_t M, const struct ops_window *w2, const struct exec_act *act, float *y)
{
	int64_t h = w2->in[0], wd = w2->in[1], oh = w2->out[0], ow = w2->out[1], pt = w2->pb[0], pl = w2->pb[1];
	/* tile rows and columns; the transforms take 8 tiles at a time, so the padded input covers the patches of tw
	 * rounded up to 8 (16 floats of slack for their loads) */
	int64_t th = (oh + 1) / 2, tw = (ow + 1) / 2, tw8 = (tw + 7) / 8 * 8;
	int64_t wp = 2 * tw8 + 2 + 16;
	/* tile rows per band: the transformed inputs (16 x C x tiles) and products (16 x M x tiles) within budget */
	int64_t wide = C > M ? C : M, band = WG_BAND / (16 * wide * tw8);
	if (band * tw < WG_MIN_TILES)
		band = (WG_MIN_TILES + tw - 1) / tw;
	if (band > th)
		band = th;
	/* the padded input of one band: its 2 x band + 2 rows of every channel (not the whole image) */
	int64_t hb = 2 * band + 2;
	int64_t ldv = band * tw + 16, panels = (M + WG_MR - 1) / WG_MR;
	size_t ubytes = (size_t)(16 * panels * WG_MR * C) * sizeof(float);
	const float *u = xk_derived(k, 1, 0x57470000u); /* "WG" */
	float *own = NULL, *xp = NULL, *v = NULL, *pr = NULL, *rows = NULL, *bt = NULL;
	int rc = -1;

	if (!u) {
		own = malloc(ubytes);
		if (!own)
			return xk_fail(k, "out of memory for the transformed kernels (%zu bytes)", ubytes);
		wg_kernels(w, M, C, own);
		u = own;
		if (xk_derive(k, 1, 0x57470000u, own, ubytes))
			own = NULL;
	}
	xp = calloc((size_t)(C * hb * wp + 16), sizeof *xp);
	v = malloc((size_t)(16 * C * ldv) * sizeof *v);
	pr = malloc((size_t)(16 * M * ldv) * sizeof *pr);
	rows = malloc((size_t)(2 * (2 * tw8 + 16)) * sizeof *rows);
	bt = malloc(CPU_PANELS_SCRATCH * sizeof *bt);
	if (!xp || !v || !pr || !rows || !bt) {
		xk_fail(k, "out of memory for Winograd's buffers (%lld channels, %lld x %lld tiles)", (long long)C,
			(long long)th, (long long)tw);
		goto out;
	}
	/* input columns that land in the padded rows (the columns left and right of them stay zero throughout) */
	int64_t n_cols = wd < wp - pl ? wd : wp - pl;
	for (int64_t n = 0; n < nb; n++) {
		for (int64_t r0 = 0; r0 < th; r0 += band) {
			int64_t r1 = r0 + band < th ? r0 + band : th, nt = (r1 - r0) * tw;
			/* the band's padded rows 2 r0 .. 2 r1 + 1: input row i at padded row pt + i, zeros above and
			 * below the input */
			for (int64_t c = 0; c < C; c++)
				for (int64_t lr = 0; lr < 2 * (r1 - r0) + 2; lr++) {
					float *dst = xp + (c * hb + lr) * wp;
					int64_t i = 2 * r0 + lr - pt;
					if (i >= 0 && i < h && n_cols > 0) {
						if (copy_finite(dst + pl, x + ((n * C + c) * h + i) * wd, n_cols)) {
							rc = 1;
							goto out;
						}
					} else
						memset(dst, 0, (size_t)wp * sizeof *xp);
				}
			/* the products run on whole blocks of 16 tiles (nt16: past the band's tiles, zeros or what the
			 * input transform spills there), and the output transform reads up to 7 past its tiles */
			int64_t nt16 = (nt + 15) / 16 * 16;
			for (int64_t i = 0; i < 16 * C; i++)
				memset(v + i * ldv + nt, 0, (size_t)(ldv - nt) * sizeof *v);
			for (int64_t i = 0; i < 16 * M; i++)
				memset(pr + i * ldv + nt16, 0, (size_t)(ldv - nt16) * sizeof *pr);
			wg_inputs(xp, C, hb, wp, 0, r1 - r0, tw, v, ldv);
			for (int e = 0; e < 16; e++)
				cpu_panels_gemm(u + (int64_t)e * panels * WG_MR * C, M, C, v + (int64_t)e * C * ldv, ldv,
						nt16, NULL, NULL, NULL, pr + (int64_t)e * M * ldv, ldv, bt);
			wg_outputs(pr, M, ldv, r0, r1, tw, tw8, bias, act, y + n * M * oh * ow, oh, ow, rows);
		}
	}
	rc = 0;
out:
	free(own);
	free(xp);
	free(v);
	free(pr);
	free(rows);
	free(bt);
	return rc;
}
