/* The CPU's own float32 matrix product (the contract is in sgemm.h): a 6 x 16 tile of C in twelve 8-float
 * accumulators, A read in place (one broadcast per row and k), B packed into panels of 16 columns. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/exec/cpu/kernels.h"
#include "src/exec/cpu/sgemm.h"
#include "src/exec/cpu/simd.h"

#define SG_MR 6    /* rows per tile */
#define SG_KC 512  /* k per block: a 16-column panel of it (32 KiB) serves every tile of the block; measured 4 to 5%
                    * faster than 256 on the encoder's shapes with the weights cold in the cache */
#define SG_MC 144  /* rows per block: the A block (144 x 512 floats) stays in L2 */
_Static_assert(SGEMM_PAN_FLOATS == SG_KC * SGEMM_NR, "cpu_sgemm_direct's buffer holds a panel of a k block");

size_t cpu_sgemm_packed_floats(int64_t k, int64_t n)
{
	return (size_t)((n + SGEMM_NR - 1) / SGEMM_NR) * (size_t)k * SGEMM_NR;
}

/* The k block size for a given K: blocks of even size up to SG_KC, so that no block is a short remainder. */
static int64_t sg_kblock(int64_t k)
{
	int64_t nkb = (k + SG_KC - 1) / SG_KC;
	return nkb ? (k + nkb - 1) / nkb : 1;
}

/* Columns [j0, j0 + nc) of k rows [k0, k0 + kc) of op(B) as one panel: kc rows of 16 floats, zeros past nc. */
static inline __attribute__((always_inline)) void sg_pack_panel(int trans_b, int64_t k0, int64_t kc, int64_t j0,
								int64_t nc, const float *b, int64_t ldb, float *p)
{
	if (!trans_b) {
		if (nc < SGEMM_NR)
			memset(p, 0, (size_t)kc * SGEMM_NR * sizeof *p);
		for (int64_t q = 0; q < kc; q++)
			if (nc == SGEMM_NR)
				memcpy(p + q * SGEMM_NR, b + (k0 + q) * ldb + j0, SGEMM_NR * sizeof *p);
			else
				memcpy(p + q * SGEMM_NR, b + (k0 + q) * ldb + j0, (size_t)nc * sizeof *p);
		return;
	}
	/* B is N x K: each of its rows is a column of the panel (the shared packing of rows, zeros past nc) */
	cpu_rows_pack(b + j0 * ldb + k0, ldb, nc, kc, SGEMM_NR, p);
}

/* The packed layout: k block after k block (sg_kblock), and in each, panel after panel of its kc rows of 16
 * floats; so the tiles of a block read it from start to end, and the hardware streams it in. */
NN_CLONES void cpu_sgemm_pack(int trans_b, int64_t k, int64_t n, const float *b, int64_t ldb, float *dst)
{
	int64_t kcb = sg_kblock(k), np = (n + SGEMM_NR - 1) / SGEMM_NR;

	for (int64_t k0 = 0; k0 < k; k0 += kcb) {
		int64_t kc = k - k0 < kcb ? k - k0 : kcb;
		float *blk = dst + (size_t)k0 * (size_t)np * SGEMM_NR;
		if (trans_b) {
			for (int64_t j0 = 0; j0 < n; j0 += SGEMM_NR)
				sg_pack_panel(1, k0, kc, j0, n - j0 < SGEMM_NR ? n - j0 : SGEMM_NR, b, ldb,
					      blk + (size_t)(j0 / SGEMM_NR) * (size_t)kc * SGEMM_NR);
			continue;
		}
		/* row by row of B, each read from start to end (a panel at a time would read kc rows ldb apart) */
		int64_t full = n / SGEMM_NR;
		for (int64_t q = 0; q < kc; q++) {
			const float *src = b + (k0 + q) * ldb;
			for (int64_t pi = 0; pi < full; pi++)
				memcpy(blk + ((size_t)pi * (size_t)kc + (size_t)q) * SGEMM_NR, src + pi * SGEMM_NR,
				       SGEMM_NR * sizeof *dst);
		}
		if (full * SGEMM_NR < n)
			sg_pack_panel(0, k0, kc, full * SGEMM_NR, n - full * SGEMM_NR, b, ldb,
				      blk + (size_t)full * (size_t)kc * SGEMM_NR);
	}
}

/* One tile: c[0..mr)[0..16) = (load ? c : 0) + a[0..mr)[0..kc) * b (kc rows of 16, ldb apart: SGEMM_NR in a
 * panel), every element one chain of fused multiply-adds in k order.  Inlined with a constant mr, so each row count
 * is its own loop. */
static inline __attribute__((always_inline)) void sg_tile(int mr, int64_t kc, const float *a, int64_t lda,
							  const float *b, int64_t ldb, float *c, int64_t ldc, int load,
							  int pf)
{
	v8f c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0};
	v8f c30 = {0}, c31 = {0}, c40 = {0}, c41 = {0}, c50 = {0}, c51 = {0};
	const float *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda, *a3 = a + 3 * lda, *a4 = a + 4 * lda,
		    *a5 = a + 5 * lda;

#define SG_LOAD(r, x0, x1)                                   \
	if (mr > r) {                                        \
		x0 = LOAD8(c + r * ldc);                     \
		x1 = LOAD8(c + r * ldc + 8);                 \
	}
	if (load) {
		SG_LOAD(0, c00, c01)
		SG_LOAD(1, c10, c11)
		SG_LOAD(2, c20, c21)
		SG_LOAD(3, c30, c31)
		SG_LOAD(4, c40, c41)
		SG_LOAD(5, c50, c51)
	}
#undef SG_LOAD
#define SG_ROW(r, x0, x1, ap)                                \
	if (mr > r) {                                        \
		float x_ = ap[q];                            \
		v8f av = {x_, x_, x_, x_, x_, x_, x_, x_};   \
		x0 += av * b0;                               \
		x1 += av * b1;                               \
	}
	for (int64_t q = 0; q < kc; q++, b += ldb) {
		v8f b0 = LOAD8(b), b1 = LOAD8(b + 8);
		if (pf) /* the same line of the next panel, which follows this one */
			__builtin_prefetch(b + kc * SGEMM_NR);
		SG_ROW(0, c00, c01, a0)
		SG_ROW(1, c10, c11, a1)
		SG_ROW(2, c20, c21, a2)
		SG_ROW(3, c30, c31, a3)
		SG_ROW(4, c40, c41, a4)
		SG_ROW(5, c50, c51, a5)
	}
#undef SG_ROW
#define SG_STORE(r, x0, x1)                                        \
	if (mr > r) {                                              \
		*(v8f_any *)(c + r * ldc) = x0;                    \
		*(v8f_any *)(c + r * ldc + 8) = x1;                \
	}
	SG_STORE(0, c00, c01)
	SG_STORE(1, c10, c11)
	SG_STORE(2, c20, c21)
	SG_STORE(3, c30, c31)
	SG_STORE(4, c40, c41)
	SG_STORE(5, c50, c51)
#undef SG_STORE
}

static inline __attribute__((always_inline)) void sg_tile_any(int mr, int64_t kc, const float *a, int64_t lda,
							      const float *b, int64_t ldb, float *c, int64_t ldc,
							      int load, int pf)
{
	if (pf) {
		sg_tile(6, kc, a, lda, b, ldb, c, ldc, load, 1); /* only whole tiles prefetch */
		return;
	}
	switch (mr) {
	case 6: sg_tile(6, kc, a, lda, b, ldb, c, ldc, load, 0); break;
	case 5: sg_tile(5, kc, a, lda, b, ldb, c, ldc, load, 0); break;
	case 4: sg_tile(4, kc, a, lda, b, ldb, c, ldc, load, 0); break;
	case 3: sg_tile(3, kc, a, lda, b, ldb, c, ldc, load, 0); break;
	case 2: sg_tile(2, kc, a, lda, b, ldb, c, ldc, load, 0); break;
	default: sg_tile(1, kc, a, lda, b, ldb, c, ldc, load, 0); break;
	}
}

/* The epilogue on rows [0, mr) of nc columns of C starting at column j0 (row i0 of C). */
static inline __attribute__((always_inline)) void sg_epilogue(int mr, int64_t nc, float *c, int64_t ldc, int64_t i0,
							      int64_t j0, const struct sgemm_epi *e,
							      const struct act8 *act)
{
	for (int r = 0; r < mr; r++) {
		float *y = c + r * ldc;
		const float *b0 = e->bias[0] ? e->bias[0] + (i0 + r) * e->bias_rs[0] + j0 : NULL;
		const float *b1 = e->bias[1] ? e->bias[1] + (i0 + r) * e->bias_rs[1] + j0 : NULL;
		int64_t j = 0;
		for (; j + 8 <= nc; j += 8) {
			v8f v = LOAD8(y + j);
			if (b0)
				v += LOAD8(b0 + j);
			if (b1)
				v += LOAD8(b1 + j);
			if (act->on)
				act8_apply(&v, act);
			*(v8f_any *)(y + j) = v;
		}
		if (j < nc) {
			float t[8] = {0}, t0[8] = {0}, t1[8] = {0};
			size_t rest = (size_t)(nc - j) * sizeof *t;
			memcpy(t, y + j, rest);
			v8f v = LOAD8(t);
			if (b0) {
				memcpy(t0, b0 + j, rest);
				v += LOAD8(t0);
			}
			if (b1) {
				memcpy(t1, b1 + j, rest);
				v += LOAD8(t1);
			}
			if (act->on)
				act8_apply(&v, act);
			memcpy(y + j, &v, rest);
		}
	}
}

/* B as the loops read it: its packed copy (bp), or where it lies (b, ldb, trans_b: op(B) is K x N). */
struct sg_src {
	const float *bp;
	const float *b;
	int64_t ldb;
	int trans_b;
	float *pan; /* SG_KC x SGEMM_NR floats: a panel of B packed as it is reached */
};

/* The product's loops (sgemm.h's contract), with B from src: from its packed copy, or (direct, a constant) from B
 * as it lies: a panel that is 16 whole columns of an untransposed B is read in place by a single tile (one read of
 * each line), any other is packed into src->pan when it is reached (for each block of rows: the caller packs all
 * of B first when there are many), so the tiles that share it read it from L1, not rows ldb apart.  The
 * tiles, their order and the epilogue are the same either way, so the results are too. */
static inline __attribute__((always_inline)) void sg_run(int direct, int64_t m, int64_t n, int64_t k,
							 const float *a, int64_t lda, const struct sg_src *src,
							 float *c, int64_t ldc, const struct sgemm_epi *e)
{
	static const struct sgemm_epi none = {0};
	struct act8 act;
	float tmp[SG_MR * SGEMM_NR];

	if (!e)
		e = &none;
	act8_init(&act, e->act);
	int epi = e->bias[0] || e->bias[1] || act.on;
	if (m <= 0 || n <= 0)
		return;
	if (k <= 0) {
		for (int64_t i = 0; i < m; i++) {
			memset(c + i * ldc, 0, (size_t)n * sizeof *c);
			if (epi)
				sg_epilogue(1, n, c + i * ldc, ldc, i, 0, e, &act);
		}
		return;
	}
	int64_t kcb = sg_kblock(k), np = (n + SGEMM_NR - 1) / SGEMM_NR;
	for (int64_t k0 = 0; k0 < k; k0 += kcb) {
		int64_t kc = k - k0 < kcb ? k - k0 : kcb;
		int load = k0 > 0, last = k0 + kc == k;
		for (int64_t i0 = 0; i0 < m; i0 += SG_MC) {
			int64_t mc = m - i0 < SG_MC ? m - i0 : SG_MC;
			for (int64_t j0 = 0; j0 < n; j0 += SGEMM_NR) {
				int64_t nc = n - j0 < SGEMM_NR ? n - j0 : SGEMM_NR, ldb = SGEMM_NR;
				const float *b;
				int pf = 0;
				if (!direct) {
					b = src->bp + (size_t)k0 * (size_t)np * SGEMM_NR +
					    (size_t)(j0 / SGEMM_NR) * (size_t)kc * SGEMM_NR;
					pf = j0 + SGEMM_NR < n && mc >= SG_MR; /* the first tile brings in the next panel */
				} else if (!src->trans_b && nc == SGEMM_NR && mc <= SG_MR) {
					b = src->b + k0 * src->ldb + j0;
					ldb = src->ldb;
				} else {
					sg_pack_panel(src->trans_b, k0, kc, j0, nc, src->b, src->ldb, src->pan);
					b = src->pan;
				}
				for (int64_t i = i0; i < i0 + mc; i += SG_MR) {
					int mr = i0 + mc - i < SG_MR ? (int)(i0 + mc - i) : SG_MR;
					const float *ai = a + i * lda + k0;
					float *ci = c + i * ldc + j0;
					if (nc == SGEMM_NR) {
						sg_tile_any(mr, kc, ai, lda, b, ldb, ci, ldc, load, pf && i == i0);
					} else {
						/* the last panel's columns past N are zeros in B: the tile runs in tmp */
						if (load)
							for (int r = 0; r < mr; r++)
								memcpy(tmp + r * SGEMM_NR, ci + r * ldc,
								       (size_t)nc * sizeof *tmp);
						sg_tile_any(mr, kc, ai, lda, b, SGEMM_NR, tmp, SGEMM_NR, load, 0);
						for (int r = 0; r < mr; r++)
							memcpy(ci + r * ldc, tmp + r * SGEMM_NR, (size_t)nc * sizeof *tmp);
					}
					if (last && epi)
						sg_epilogue(mr, nc, ci, ldc, i, j0, e, &act);
				}
			}
		}
	}
}

NN_CLONES void cpu_sgemm_packed(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *bp,
				float *c, int64_t ldc, const struct sgemm_epi *e)
{
	struct sg_src src = {.bp = bp};

	sg_run(0, m, n, k, a, lda, &src, c, ldc, e);
}

NN_CLONES void cpu_sgemm_direct(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, int trans_b,
				const float *b, int64_t ldb, float *pan, float *c, int64_t ldc,
				const struct sgemm_epi *e)
{
	struct sg_src src = {.b = b, .ldb = ldb, .trans_b = trans_b, .pan = pan};

	sg_run(1, m, n, k, a, lda, &src, c, ldc, e);
}

/* The tag a packed copy is filed under: the layout (this packing) and the shape read from the constant. */
static uint64_t sg_tag(int trans_b, int64_t kk)
{
	return ((uint64_t)0x5347u << 48) | ((uint64_t)(trans_b != 0) << 47) | ((uint64_t)kk & ((1ull << 47) - 1));
}

int cpu_sgemm_node(struct exec_kernel_ctx *k, size_t b_input, int trans_b, int64_t m, int64_t n, int64_t kk,
		   const float *a, int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc,
		   const struct sgemm_epi *e)
{
	uint64_t tag = sg_tag(trans_b, kk);
	const float *kept = xk_derived(k, b_input, tag);

	if (kept) {
		cpu_sgemm_packed(m, n, kk, a, lda, kept, c, ldc, e);
		return 0;
	}
	size_t nf = cpu_sgemm_packed_floats(kk, n);
	if (!xk_keeps(k, b_input) && m <= SG_MC) {
		/* read once (one block of rows): packed a panel at a time into a buffer that stays in L1, not all of
		 * B into memory it would touch once */
		float *pan = malloc(SGEMM_PAN_FLOATS * sizeof *pan);
		if (!pan)
			return xk_fail(k, "out of memory");
		cpu_sgemm_direct(m, n, kk, a, lda, trans_b, b, ldb, pan, c, ldc, e);
		free(pan);
		return 0;
	}
	float *p = malloc((nf ? nf : 1) * sizeof *p);
	if (!p)
		return xk_fail(k, "out of memory for B packed (%zu bytes)", nf * sizeof *p);
	cpu_sgemm_pack(trans_b, kk, n, b, ldb, p);
	cpu_sgemm_packed(m, n, kk, a, lda, p, c, ldc, e);
	if (!xk_derive(k, b_input, tag, p, nf * sizeof *p))
		free(p);
	return 0;
}
