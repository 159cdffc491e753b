/* A float32 matrix product for the pointwise convolutions of small planes (MobileNet's 7x7 and 14x14 layers): the
 * constant left operand (W, output channels by inputs) packed once into strips of 24 rows, each strip stored input
 * by input, so that 24 output channels lie across three vectors; the right operand (X, inputs by positions) read in
 * place, one position at a time broadcast to every lane.  A block of 4 positions by 24 channels keeps its 12 sums
 * in AVX2 registers over all the inputs, so no partial sum is ever stored; the block is then turned (positions
 * along the rows of C again) as it is written, the sums having started from the bias, with the fused Add and the
 * fused Relu or Clip applied.
 * Positions need no multiple of the vector width here (the planes have 49 and 196), channels of 8 do. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "src/exec/cpu/kernels.h"
#include "src/exec/cpu/simd.h"

#define SG_MR CPU_STRIP_ROWS

typedef float v4f __attribute__((vector_size(16)));
typedef float v4f_any __attribute__((vector_size(16), aligned(4), may_alias));

/* *r += nr (3 or 4) floats from p and from q (NULL: zeros) side by side, as the halves of r hold them: straight
 * from memory, not through a buffer on the stack (a load of 8 floats from two stores of 4 is one the store buffer
 * cannot forward, and it waits on both).  (A pointer: v8f returned by value changes the default clone's ABI.) */
static inline __attribute__((always_inline)) void sg_add_pair(v8f *r, const float *p, const float *q, const int nr)
{
	v4f z = {0}, a = z, b = z;

	if (nr == 4) {
		if (p)
			a = *(const v4f_any *)p;
		if (q)
			b = *(const v4f_any *)q;
	} else {
		if (p)
			a = (v4f){p[0], p[1], p[2], 0};
		if (q)
			b = (v4f){q[0], q[1], q[2], 0};
	}
	*r += __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7);
}

/* One position's sums of a strip (mv vectors: mr of its channels kept) finished: ad added (NULL: nothing; one
 * value a channel, ldc apart), the activation applied, stored into c (ldc apart). */
static inline __attribute__((always_inline)) void sg_store_one(v8f *s, int mv, int mr, const float *ad,
							       const struct act8 *a, float *c, int64_t ldc)
{
	float t[SG_MR];

#pragma GCC unroll 3
	for (int v = 0; v < mv; v++) {
		if (ad) {
			float u[8] = {0};
			for (int i = 0; i < 8 && 8 * v + i < mr; i++)
				u[i] = ad[(8 * v + i) * ldc];
			s[v] += LOAD8(u);
		}
		if (a->on)
			act8_apply(&s[v], a);
		STORE8(t + 8 * v, s[v]);
	}
	for (int i = 0; i < mr; i++)
		c[i * ldc] = t[i];
}

/* One block: nr positions (b, b + 1, ... in each of B's rows, ldb apart) by 8 * mv channels (ap's strip), over all
 * k inputs, the sums starting from the bias (bv, 8 * mv of them); mr channels of the block stored into C (rows ldc
 * apart, c at the block's first channel and position), ad added first (NULL: nothing; laid out as C, at the
 * block), then the activation applied.  Meanwhile pfn cache lines
 * from pf on are fetched, one per input: the next strip's share for this block, so that it waits on no memory. */
static inline __attribute__((always_inline)) void sg_block(const float *ap, const float *b, int64_t ldb, int64_t k,
							   const float *bv, const struct act8 *a, float *c,
							   int64_t ldc, int mr, const float *ad, const float *pf,
							   int64_t pfn, const int nr, const int mv)
{
	v8f s[4][3];

#pragma GCC unroll 4
	for (int j = 0; j < nr; j++)
#pragma GCC unroll 3
		for (int v = 0; v < mv; v++)
			s[j][v] = LOAD8(bv + 8 * v);
	int64_t step = pfn ? k / pfn : k + 1, due = step;
	for (int64_t kk = 0; kk < k; kk++) {
		v8f w[3];
		if (kk == due) {
			__builtin_prefetch(pf);
			pf += 16;
			due += step;
		}
#pragma GCC unroll 3
		for (int v = 0; v < mv; v++)
			w[v] = LOAD8(ap + kk * SG_MR + 8 * v);
#pragma GCC unroll 4
		for (int j = 0; j < nr; j++) {
			float xj = b[kk * ldb + j];
			v8f xv = {xj, xj, xj, xj, xj, xj, xj, xj};
#pragma GCC unroll 3
			for (int v = 0; v < mv; v++)
				s[j][v] += xv * w[v];
		}
	}
	if (nr == 1) {
		sg_store_one(s[0], mv, mr, ad, a, c, ldc);
		return;
	}
	/* 4 (or 3) positions by 8 channels turned into 8 rows of 4 positions, as two 4 x 4 transposes in the halves:
	 * r[i] holds channel i's positions in its low half, channel i + 4's in its high half */
#pragma GCC unroll 3
	for (int v = 0; v < mv; v++) {
		v8f z = {0}, d = nr > 3 ? s[3][v] : z;
		v8f t0 = V8_SHUF2(s[0][v], s[1][v], 0, 8, 1, 9, 4, 12, 5, 13);
		v8f t1 = V8_SHUF2(s[0][v], s[1][v], 2, 10, 3, 11, 6, 14, 7, 15);
		v8f t2 = V8_SHUF2(s[2][v], d, 0, 8, 1, 9, 4, 12, 5, 13);
		v8f t3 = V8_SHUF2(s[2][v], d, 2, 10, 3, 11, 6, 14, 7, 15);
		v8f r[4] = {V8_SHUF2(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13), V8_SHUF2(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15),
			    V8_SHUF2(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13), V8_SHUF2(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15)};
		int full = 8 * v + 8 <= mr;
#pragma GCC unroll 4
		for (int i = 0; i < 4; i++) {
			int lo = 8 * v + i, hi = lo + 4;
			if (ad)
				sg_add_pair(&r[i], full || lo < mr ? ad + lo * ldc : NULL,
					    full || hi < mr ? ad + hi * ldc : NULL, nr);
			if (a->on)
				act8_apply(&r[i], a);
			if (full || lo < mr)
				memcpy(c + lo * ldc, &r[i], (size_t)nr * sizeof *c);
			if (full || hi < mr)
				memcpy(c + hi * ldc, (const float *)&r[i] + 4, (size_t)nr * sizeof *c);
		}
	}
}

/* One position (a 1x1 plane: a squeeze-and-excitation block, a classifier) through four whole strips at once: 12
 * sums in flight where one strip's 3 would wait on the multiply-adds' latency, each the same sum as sg_block's
 * (the bias, then the inputs in order), and its epilogue; as the first of the strips, c and ad at their first
 * channel.  The 4 strips' weights stream from memory side by side. */
static inline __attribute__((always_inline)) void sg_one4(const float *as, int64_t k, const float *b, int64_t ldb,
							  const float *bv, const struct act8 *a, float *c, int64_t ldc,
							  const float *ad)
{
	v8f s[4][3];

#pragma GCC unroll 4
	for (int q = 0; q < 4; q++)
#pragma GCC unroll 3
		for (int v = 0; v < 3; v++)
			s[q][v] = LOAD8(bv + q * SG_MR + 8 * v);
	for (int64_t kk = 0; kk < k; kk++) {
		float x = b[kk * ldb];
		v8f xv = {x, x, x, x, x, x, x, x};
#pragma GCC unroll 4
		for (int q = 0; q < 4; q++)
#pragma GCC unroll 3
			for (int v = 0; v < 3; v++)
				s[q][v] += xv * LOAD8(as + q * k * SG_MR + kk * SG_MR + 8 * v);
	}
	for (int q = 0; q < 4; q++)
		sg_store_one(s[q], 3, SG_MR, ad ? ad + q * SG_MR * ldc : NULL, a, c + q * SG_MR * ldc, ldc);
}

/* The positions in blocks of 4, the last few of 3 so that no block of 1 or 2 is needed (from 6 positions on):
 * n4 positions in blocks of 4, then blocks of 3, then single ones. */
static int64_t sg_fours(int64_t n)
{
	int64_t threes = n % 4 ? 4 - n % 4 : 0;

	return 3 * threes <= n ? n - 3 * threes : n / 4 * 4;
}

/* Where block j's positions are: in B, or packed (xp: block by block, each k rows of its nr positions). */
#define SG_B(j, nr) (xp ? xp + (j) * k : b + (j)), (xp ? (nr) : ldb)

/* One strip (mr of its 8 * mv channels kept) over all n positions, ads what is added to it (NULL: nothing); pf the
 * next strip (NULL: none). */
static inline __attribute__((always_inline)) void sg_strip(const float *as, int64_t k, const float *b, int64_t ldb,
							   int64_t n, const float *xp, const float *bv,
							   const struct act8 *a, float *cs, const float *ads,
							   int64_t ldc, int mr, const float *pf, const int mv)
{
	int64_t n4 = sg_fours(n), blocks = n4 / 4 + (n - n4) / 3 + (n - n4) % 3, bi = 0, j = 0;
	/* the next strip's k * SG_MR floats, in lines of 16, shared out among the blocks */
	int64_t lines = (k * SG_MR + 15) / 16, per = pf ? (lines + blocks - 1) / blocks : 0;

	if (per > k)
		per = k;
#define SG_PF(bi) pf ? pf + 16 * (bi) * per : NULL, pf && (bi) * per < lines ? (lines - (bi) * per < per ? lines - (bi) * per : per) : 0
	for (; j + 4 <= n4; j += 4, bi++)
		sg_block(as, SG_B(j, 4), k, bv, a, cs + j, ldc, mr, ads ? ads + j : NULL, SG_PF(bi), 4, mv);
	for (; j + 3 <= n; j += 3, bi++)
		sg_block(as, SG_B(j, 3), k, bv, a, cs + j, ldc, mr, ads ? ads + j : NULL, SG_PF(bi), 3, mv);
	for (; j < n; j++, bi++)
		sg_block(as, SG_B(j, 1), k, bv, a, cs + j, ldc, mr, ads ? ads + j : NULL, SG_PF(bi), 1, mv);
#undef SG_PF
}

NN_CLONES void cpu_strips_gemm(const float *ap, int64_t m, int64_t k, const float *b, int64_t ldb, int64_t n,
			       const float *bias, const float *add, const struct exec_act *act, float *c, int64_t ldc,
			       float *xp)
{
	struct act8 a;
	int64_t strips = (m + SG_MR - 1) / SG_MR, n4 = sg_fours(n);

	act8_init(&a, act);
	if (xp)
		for (int64_t kk = 0; kk < k; kk++) {
			const float *row = b + kk * ldb;
			int64_t j = 0;
			for (; j < n4; j += 4)
				memcpy(xp + j * k + kk * 4, row + j, 4 * sizeof *xp);
			for (; j + 3 <= n; j += 3)
				memcpy(xp + j * k + kk * 3, row + j, 3 * sizeof *xp);
			for (; j < n; j++)
				xp[j * k + kk] = row[j];
		}
	int64_t s = 0;
	/* one position: whole strips four at a time */
	for (; n == 1 && s + 4 <= m / SG_MR; s += 4) {
		float bv[4 * SG_MR] = {0};
		if (bias)
			memcpy(bv, bias + s * SG_MR, sizeof bv);
		sg_one4(ap + s * k * SG_MR, k, xp ? xp : b, xp ? 1 : ldb, bv, &a, c + s * SG_MR * ldc, ldc,
			add ? add + s * SG_MR * ldc : NULL);
	}
	for (; s < strips; s++) {
		const float *as = ap + s * k * SG_MR, *pf = s + 1 < strips ? as + k * SG_MR : NULL;
		int mr = (int)(m - s * SG_MR < SG_MR ? m - s * SG_MR : SG_MR);
		float bv[SG_MR] = {0};
		if (bias)
			memcpy(bv, bias + s * SG_MR, (size_t)mr * sizeof *bv);
		float *cs = c + s * SG_MR * ldc;
		const float *ads = add ? add + s * SG_MR * ldc : NULL;
		if (mr > 16)
			sg_strip(as, k, b, ldb, n, xp, bv, &a, cs, ads, ldc, mr, pf, 3);
		else if (mr > 8)
			sg_strip(as, k, b, ldb, n, xp, bv, &a, cs, ads, ldc, mr, pf, 2);
		else
			sg_strip(as, k, b, ldb, n, xp, bv, &a, cs, ads, ldc, mr, pf, 1);
	}
}
