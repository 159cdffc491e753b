/* A float32 matrix product for the CPU kernels whose left operand is a constant (convolution weights, Winograd's
 * transformed kernels): A packed once into panels of 6 rows (kept with the constants by its caller), B read in
 * place row by row (no packing: its rows are an image's channels or a transform's outputs), the bias, the fused Add
 * and the fused Relu or Clip applied as C is written.  Blocks of 6 rows by 16 columns keep their 12 sums in AVX2 registers; the
 * products are taken 256 at a time so that B's 16 columns stay in L1 while A's panels stream past them. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "src/exec/cpu/kernels.h"
#include "src/exec/cpu/simd.h"

#define PG_MR CPU_PANEL_ROWS
/* products per pass over B's columns: 256 x 16 floats of B (16 KiB) and a 6 KiB panel of A in L1 */
#define PG_KC 256

int64_t cpu_rows_size(int64_t m, int64_t k, int mr)
{
	return (m + mr - 1) / mr * mr * k;
}

/* Each panel 8 rows at a time (fewer in the last group of a panel whose mr is no multiple of 8, zeros for rows past
 * m), 8 products at a time turned in registers: every row read from start to end, where a float at a time would
 * read mr rows lda apart for each product (3x3 weights of 512 channels: the whole first run's packing). */
NN_CLONES void cpu_rows_pack(const float *a, int64_t lda, int64_t m, int64_t k, int mr, float *ap)
{
	for (int64_t p = 0; p < (m + mr - 1) / mr; p++)
		for (int h = 0; h < mr; h += 8) {
			int wdt = mr - h < 8 ? mr - h : 8; /* floats of each product in this group */
			int64_t r0 = p * mr + h, rest = m - r0;
			int live = rest <= 0 ? 0 : rest < wdt ? (int)rest : wdt; /* rows that hold values */
			float *dst = ap + p * k * mr + h;
			int64_t kk = 0;
			if (live == 8) /* whole groups: the rows loaded straight into registers */
				for (; kk + 8 <= k; kk += 8) {
					v8f r[8];
					for (int j = 0; j < 8; j++)
						r[j] = LOAD8(a + (r0 + j) * lda + kk);
					v8_transpose(r);
					for (int i = 0; i < 8; i++)
						STORE8(dst + (kk + i) * mr, r[i]);
				}
			else if (live)
				for (; kk + 8 <= k; kk += 8) {
					v8f r[8];
					for (int j = 0; j < 8; j++) {
						r[j] = (v8f){0};
						if (j < live)
							r[j] = LOAD8(a + (r0 + j) * lda + kk);
					}
					v8_transpose(r);
					if (wdt == 8)
						for (int i = 0; i < 8; i++)
							STORE8(dst + (kk + i) * mr, r[i]);
					else
						for (int i = 0; i < 8; i++)
							memcpy(dst + (kk + i) * mr, &r[i], (size_t)wdt * sizeof *dst);
				}
			for (; kk < k; kk++)
				for (int j = 0; j < wdt; j++)
					dst[kk * mr + j] = j < live ? a[(r0 + j) * lda + kk] : 0.0f;
		}
}

/* One block: rows [0, mr) of nr rows (one panel, or two: 12 rows by 8 columns, for the last columns of few, so
 * that 12 sums hide the multiply-adds' latency) by 8 * nv columns of B (b at k0's row and the block's first column),
 * over products k0..k0 + kc (ap, and ap2 for rows 6 to 11, at k0); the sums start from C (first = 0) or the bias,
 * and last adds ad (NULL: nothing; laid out as C, at the block) then applies act; keep columns are stored. */
static inline __attribute__((always_inline)) void pg_block(const float *ap, const float *ap2, const float *b,
							   int64_t ldb, int64_t kc, float *c, int64_t ldc, int mr,
							   int keep, int first, int last, const float *bias,
							   const float *ad, const struct act8 *a, const int nr,
							   const int nv)
{
	v8f s[2 * PG_MR][2];

	for (int i = 0; i < nr; i++)
		for (int v = 0; v < nv; v++) {
			if (first) {
				float bi = bias && i < mr ? bias[i] : 0.0f;
				s[i][v] = (v8f){bi, bi, bi, bi, bi, bi, bi, bi};
			} else if (i < mr && keep == 8 * nv) {
				s[i][v] = LOAD8(c + i * ldc + 8 * v);
			} else {
				float t[8] = {0};
				if (i < mr && keep > 8 * v)
					memcpy(t, c + i * ldc + 8 * v,
					       (size_t)(keep - 8 * v < 8 ? keep - 8 * v : 8) * sizeof *t);
				memcpy(&s[i][v], t, sizeof t);
			}
		}
	for (int64_t k = 0; k < kc; k++) {
		v8f b0 = LOAD8(b + k * ldb), b1 = b0;
		if (nv > 1)
			b1 = LOAD8(b + k * ldb + 8);
#pragma GCC unroll 12
		for (int i = 0; i < nr; i++) {
			float ai = (i < PG_MR ? ap : ap2)[k * PG_MR + i % PG_MR];
			v8f av = {ai, ai, ai, ai, ai, ai, ai, ai};
			s[i][0] += av * b0;
			if (nv > 1)
				s[i][1] += av * b1;
		}
	}
	for (int i = 0; i < mr; i++)
		for (int v = 0; v < nv; v++) {
			if (last && ad && keep >= 8 * (v + 1)) {
				s[i][v] += LOAD8(ad + i * ldc + 8 * v);
			} else if (last && ad && keep > 8 * v) {
				float t[8] = {0};
				memcpy(t, ad + i * ldc + 8 * v, (size_t)(keep - 8 * v) * sizeof *t);
				s[i][v] += LOAD8(t);
			}
			if (last && a->on)
				act8_apply(&s[i][v], a);
			if (keep >= 8 * (v + 1)) {
				memcpy(c + i * ldc + 8 * v, &s[i][v], sizeof s[i][v]);
			} else if (keep > 8 * v) {
				float t[8];
				memcpy(t, &s[i][v], sizeof t);
				memcpy(c + i * ldc + 8 * v, t, (size_t)(keep - 8 * v) * sizeof *t);
			}
		}
}

/* The product, with an Add (add not NULL) or without one (a constant where inlined: the plain product's code stays
 * what it was without the Add's tests). */
static inline __attribute__((always_inline)) void pg_gemm(const float *ap, int64_t m, int64_t k, const float *b,
							  int64_t ldb, int64_t n, const float *bias, const float *add,
							  const struct exec_act *act, float *c, int64_t ldc, float *bt)
{
	/* column blocks: 16 wide; then the last n % 16 columns, 8 in place and the rest (under 8) through bt,
	 * zero-padded to 8 so that nothing is read past B's last column */
	int64_t panels = (m + PG_MR - 1) / PG_MR, n16 = n / 16 * 16, rem = n - n16;
	int64_t blocks = n16 / 16, tail = rem % 8;
	struct act8 a;

	act8_init(&a, act);
	for (int64_t k0 = 0; k0 < k || (k0 == 0 && k == 0); k0 += PG_KC) {
		int64_t kc = k - k0 < PG_KC ? k - k0 : PG_KC;
		int first = k0 == 0, last = k0 + kc >= k;
		if (tail)
			for (int64_t kk = 0; kk < kc; kk++) {
				memcpy(bt + kk * 8, b + (k0 + kk) * ldb + n - tail, (size_t)tail * sizeof *bt);
				memset(bt + kk * 8 + tail, 0, (size_t)(8 - tail) * sizeof *bt);
			}
		/* A's k-block within L2: B's 16 columns in L1 while every panel of A streams past them; else (many rows,
		 * few columns: a 7x7 plane's 1x1 convolution to 1280 channels) each panel of A once, over all of B */
		int panel_outer = m * kc * (int64_t)sizeof(float) > (512 << 10) && kc * n * (int64_t)sizeof(float) <= (512 << 10);
		int64_t outer = panel_outer ? panels : blocks, inner = panel_outer ? blocks : panels;
		for (int64_t o = 0; o < outer; o++)
			for (int64_t i = 0; i < inner; i++) {
				int64_t p = panel_outer ? o : i, t = panel_outer ? i : o;
				int mr = (int)(m - p * PG_MR < PG_MR ? m - p * PG_MR : PG_MR);
				const float *apk = ap + (p * k + k0) * PG_MR, *bp = bias ? bias + p * PG_MR : NULL;
				int64_t at = p * PG_MR * ldc + t * 16;
				pg_block(apk, NULL, b + k0 * ldb + t * 16, ldb, kc, c + at, ldc, mr, 16, first, last, bp,
					 add ? add + at : NULL, &a, PG_MR, 2);
			}
		/* the last n % 16 columns, 8 at a time (the last ones from bt), two panels a block */
		for (int64_t j = n16; j < n; j += 8) {
			int64_t w = n - j < 8 ? n - j : 8, ld = ldb;
			const float *bj = b + k0 * ldb + j;
			if (w < 8) {
				bj = bt;
				ld = 8;
			}
			for (int64_t p = 0; p < panels; p += 2) {
				int mr = (int)(m - p * PG_MR < 2 * PG_MR ? m - p * PG_MR : 2 * PG_MR);
				const float *apk = ap + (p * k + k0) * PG_MR, *bp = bias ? bias + p * PG_MR : NULL;
				int64_t at = p * PG_MR * ldc + j;
				const float *adp = add ? add + at : NULL;
				if (p + 1 < panels)
					pg_block(apk, apk + k * PG_MR, bj, ld, kc, c + at, ldc, mr, (int)w, first, last, bp,
						 adp, &a, 2 * PG_MR, 1);
				else
					pg_block(apk, NULL, bj, ld, kc, c + at, ldc, mr, (int)w, first, last, bp, adp, &a,
						 PG_MR, 1);
			}
		}
		if (k == 0)
			break;
	}
}

NN_CLONES void cpu_panels_gemm(const float *ap, int64_t m, int64_t k, const float *b, int64_t ldb, int64_t n,
			       const float *bias, const float *add, const struct exec_act *act, float *c, int64_t ldc,
			       float *bt)
{
	if (add)
		pg_gemm(ap, m, k, b, ldb, n, bias, add, act, c, ldc, bt);
	else
		pg_gemm(ap, m, k, b, ldb, n, bias, NULL, act, c, ldc, bt);
}
