// The convolution's own kernels (src/exec/cuda/conv-igemm.h): an implicit GEMM, and a per-output loop for
// depthwise and narrow-group convolutions; neither starts a library.
//
// The implicit GEMM.  For group g the convolution is the product Y_g (M x N) = W_g (M x K) B (K x N): M the group's
// output channels, N the batch's output pixels (image-major), K the group's input channels x the kernel's taps, in
// W's order; B's element (k, n) is the input value tap k of pixel n reads (zero outside the image), the im2col
// matrix, never stored: each block gathers its tile of it straight from the input while loading shared memory.
//
// A block of 256 threads computes a tile of IG_BM x IG_BN = 64 x 64 outputs, each thread a 4 x 4 of them in
// registers (4 output channels by 4 adjacent pixels), stepping through K IG_BK = 8 terms at a time: per step it
// stages W's 64 x 8 and B's 8 x 64 (two values per thread each), then every thread reads 8 times one float4 of W's
// column and one of B's row from shared memory and makes 16 fused multiply-adds with them.  The loads of step s + 1
// are issued into registers before step s's arithmetic and written into the other of two shared buffers after it, so
// the global loads' latency is hidden behind the arithmetic and one barrier per step suffices.
// - Global loads: B's rows are loaded by warps of 32 adjacent pixels (adjacent input columns for stride 1, one 128-byte
//   line); W's by warps of 4 rows x 8 terms, each row 32 contiguous bytes (one sector).  Pixels' and taps' indices
//   are taken apart once per thread (the pixel) and carried forward by additions (the taps: IG_BK as channels, rows
//   and columns of taps, added with carries), no division in the loop.
// - Shared memory: W's tile is stored transposed ([k][m]) with rows padded to 68 floats, so the 32 lanes' stores
//   (8 terms x 4 rows) hit 32 banks; B's rows are stored by 32 adjacent lanes (no conflict).  Reads are float4: a
//   warp's 16 distinct B reads are 256 contiguous bytes (the two wavefronts a 128-bit load needs), its W reads two
//   addresses (broadcast).
// - Occupancy: 2 x (8 x 68 + 8 x 64) floats = 8.3 KiB of shared memory and some 60 registers per thread: 4 blocks
//   (32 warps) per SM on an H100, enough to cover the shared-memory latency between the steps.
// What this should reach (not measured here: scripts/gpu/run.sh times it): a 64 x 64 x 8 register-blocked SGEMM
// with prefetch makes some 40 to 50 % of the float32 FMA peak (67 TFLOP/s on an H100 SXM or H200) on large products;
// the gather's index work (some 30 instructions per thread per step against 128 multiply-adds) takes a fifth of
// that, so 15 to 25 TFLOP/s on large layers (ResNet-50 at batch 8), against cuDNN's best full-float32 algorithms
// at 20 to 40.  Small planes fill the device badly: ResNet-18 at batch 1 ends in 7 x 7 planes (N = 49, one tile
// column), 8 blocks for 512 channels on 132 SMs, each running a sum of K = 4608 terms (576 steps, some 150 us);
// so such products cut their sums into parts run side by side (ig_split below: 16 parts there, some 15 us and a
// small second pass).  ResNet-18's whole batch-1 run (3.6 GFLOP) should take 1 to 3 ms of device time in these
// kernels, against cuDNN's start of about 100 ms that a run of its own no longer pays; repeated runs time cuDNN's
// algorithms as before.
//
// The per-output loop.  A depthwise convolution (one input channel per group) is a product with M = 1: the GEMM's
// tile of 64 output channels would spend 63 of 64 multiply-adds on padding.  Its outputs need kh x kw taps each,
// few, with no reuse across output channels to share through shared memory, so one thread per output reads its
// taps straight through the cache (adjacent threads adjacent output columns: adjacent inputs for stride 1, W's taps
// the same for the warp's lanes, a broadcast): a memory-bound loop, each input read from L1 or L2 by the kh x kw
// outputs that need it.  The same loop takes every group of fewer than CONV_IGEMM_KG_MIN output channels, where the
// GEMM's tile would be at least three quarters padding and the sums are short.
#include "config.h"

#include <math.h>
#include <string.h>

#include "src/exec/cuda/conv-igemm.h"

#define IG_BM 64                 // output channels of a tile
#define IG_BN 64                 // output pixels of a tile
#define IG_BK 8                  // terms of the sums staged per step
#define IG_TM 4                  // output channels a thread computes
#define IG_TN 4                  // output pixels a thread computes
#define IG_THREADS 256           // (IG_BM / IG_TM) x (IG_BN / IG_TN)
#define IG_APAD (IG_BM + 4)      // a row of W's transposed tile, padded against bank conflicts (still 16-byte aligned)

#ifdef OV_CUDA_SIM
#define IG_LDG(p) (*(p))
#define IG_BOUNDS
#define IG_UNROLL
#else
#define IG_LDG(p) __ldg(p) // the read-only data path
#define IG_BOUNDS __launch_bounds__(IG_THREADS)
#define IG_UNROLL _Pragma("unroll")
#endif

// What the kernels need of a conv_geom: the input as it is (h, w: its own sizes; ph, pw: the begin pads, asymmetric
// ones included), the group's sizes and the sums' length kk = cg x kh x kw; (dc, dky, dkx): IG_BK taken apart as
// whole channels, rows and columns of taps.
struct ig_geom {
	int n, c, h, w, k;
	int cg, kg, kh, kw, sh, sw, ph, pw, dh, dw;
	int oh, ow, plane, npix, kk;
	int dc, dky, dkx;
	int mtiles; // tiles of IG_BM output channels per group
	int splits, chunk; // the sums cut into splits parts of chunk terms (a multiple of IG_BK), the last shorter
};

// Splitting the sums: a product with few tiles (ResNet-18's 7 x 7 planes at batch 1: 8 blocks for 512 channels)
// leaves most of the device idle while its few blocks run long sums (K = 4608: 576 steps).  Then each block's sums
// are cut into parts over grid.z, each part a fused multiply-add chain of its own from 0 written to a buffer, and a
// second kernel adds the parts in order (part 0 + part 1 + ...) as it stores the output, with the epilogue: a fixed
// order for the geometry, not the device (the target is a number of blocks, IG_FILL, not the device's SMs), so the
// bits depend on the shape alone.  Parts of at least IG_MIN_STEPS steps, at most IG_SPLIT_MAX of them, their buffer
// at most IG_SPLIT_BYTES.
#define IG_FILL 256
#define IG_MIN_STEPS 16
#define IG_SPLIT_MAX 16
#define IG_SPLIT_BYTES ((int64_t)64 << 20)

static void ig_split(struct ig_geom *c, int group)
{
	int64_t blocks = (int64_t)((c->npix + IG_BN - 1) / IG_BN) * group * c->mtiles;
	int steps = (c->kk + IG_BK - 1) / IG_BK, s = 1;

	if (blocks < IG_FILL) {
		s = (int)((IG_FILL + blocks - 1) / blocks);
		if (s > IG_SPLIT_MAX)
			s = IG_SPLIT_MAX;
		if (s > steps / IG_MIN_STEPS)
			s = steps / IG_MIN_STEPS;
		while (s > 1 && (int64_t)s * c->k * c->npix * (int64_t)sizeof(float) > IG_SPLIT_BYTES)
			s--;
		if (s < 1)
			s = 1;
	}
	int per = (steps + s - 1) / s; // steps of a part; then as many parts as that takes (none empty)
	c->chunk = per * IG_BK;
	c->splits = (steps + per - 1) / per;
}

static struct ig_geom ig_geom_of(const struct conv_geom *g)
{
	struct ig_geom c;
	int khw = g->ker[0] * g->ker[1], rest = IG_BK % khw;

	c.n = g->n, c.c = g->c, c.h = (int)g->raw_in[0], c.w = (int)g->raw_in[1], c.k = g->k;
	c.cg = g->c / g->group, c.kg = g->k / g->group;
	c.kh = g->ker[0], c.kw = g->ker[1], c.sh = g->s[0], c.sw = g->s[1];
	c.ph = g->pad[0] + (int)g->pre_b[0], c.pw = g->pad[1] + (int)g->pre_b[1];
	c.dh = g->d[0], c.dw = g->d[1];
	c.oh = g->out[0], c.ow = g->out[1];
	c.plane = c.oh * c.ow;
	c.npix = g->n * c.plane;
	c.kk = c.cg * khw;
	c.dc = IG_BK / khw, c.dky = rest / c.kw, c.dkx = rest % c.kw;
	c.mtiles = (c.kg + IG_BM - 1) / IG_BM;
	ig_split(&c, g->group);
	return c;
}

int conv_igemm_way(const struct conv_geom *g)
{
	if (g->nd != 2 || g->group < 1)
		return -1;
	int kg = g->k / g->group;
	// grid.y holds the groups' channel tiles (at most 65535); conv_geom_from_window keeps every volume within int
	if (kg < CONV_IGEMM_KG_MIN || (int64_t)g->group * ((kg + IG_BM - 1) / IG_BM) > 65535 ||
	    (int64_t)g->n * g->out[0] * g->out[1] > 0x7fffffff)
		return 0;
	return 1;
}

// Grid: x the tiles of IG_BN pixels, y the groups' tiles of IG_BM output channels (group-major), z the parts of
// the sums (g.splits).  One part: y (NCHW) gets the sums, bias (the conv's, or NULL) and e (the rest of the
// epilogue); several: part z of output channel ch, pixel pix (image-major) goes to y[(z x K + ch) x npix + pix],
// for conv_parts_kernel.
static __global__ void IG_BOUNDS conv_igemm_kernel(const float *__restrict__ x, const float *__restrict__ w,
						   const float *__restrict__ bias, float *__restrict__ y,
						   struct ig_geom g, struct cu_epi e)
{
	__shared__ __align__(16) float as[2][IG_BK][IG_APAD]; // as[buf][k][m]: W's tile, transposed
	__shared__ __align__(16) float bs[2][IG_BK][IG_BN];   // bs[buf][k][n]: B's tile
	const int tid = threadIdx.x;
	const int grp = blockIdx.y / g.mtiles, m0 = (blockIdx.y - grp * g.mtiles) * IG_BM, n0 = blockIdx.x * IG_BN;
	const int kbeg = blockIdx.z * g.chunk, kend = kbeg + g.chunk < g.kk ? kbeg + g.chunk : g.kk;

#ifdef OV_CUDA_SIM
	// the simulator's shared memory outlives a block: poisoned, a read of what this block did not stage shows
	if (tid == 0) {
		for (int i = 0; i < 2 * IG_BK * IG_APAD; i++)
			(&as[0][0][0])[i] = NAN;
		for (int i = 0; i < 2 * IG_BK * IG_BN; i++)
			(&bs[0][0][0])[i] = NAN;
	}
	__syncthreads();
#endif
	// W's loads: terms ka of rows ma and ma + 32 of the tile (8 adjacent lanes along a row's terms)
	const int ka = tid % IG_BK, ma = tid / IG_BK;
	const float *wa0 = NULL, *wa1 = NULL;
	{
		int r0 = m0 + ma, r1 = r0 + IG_BM / 2;
		if (r0 < g.kg)
			wa0 = w + ((int64_t)grp * g.kg + r0) * g.kk;
		if (r1 < g.kg)
			wa1 = w + ((int64_t)grp * g.kg + r1) * g.kk;
	}
	// B's loads: pixel nb of the tile, terms kb and kb + 4 of each step (32 adjacent lanes along the pixels)
	const int nb = tid % IG_BN, kb = tid / IG_BN;
	const float *xb = NULL; // the image's first input channel of the group; NULL past the last pixel
	int iy0 = 0, ix0 = 0;
	if (n0 + nb < g.npix) {
		int pix = n0 + nb, img = pix / g.plane, p = pix - img * g.plane, oy = p / g.ow, ox = p - oy * g.ow;
		xb = x + ((int64_t)img * g.c + (int64_t)grp * g.cg) * g.h * g.w;
		iy0 = oy * g.sh - g.ph;
		ix0 = ox * g.sw - g.pw;
	}
	// the taps of terms kb and kb + 4 as (channel, row, column), carried forward by IG_BK each step
	int tc[2], ty[2], tx[2];
	for (int h = 0; h < 2; h++) {
		int t = kbeg + kb + h * (IG_BK / 2), khw = g.kh * g.kw, r;
		tc[h] = t / khw;
		r = t - tc[h] * khw;
		ty[h] = r / g.kw;
		tx[h] = r - ty[h] * g.kw;
	}
	float ra[2], rb[2];
	// step k0's values into ra, rb (zero past the sums' end, the matrices' edges and the image)
#define IG_FETCH(k0)                                                                                               \
	do {                                                                                                           \
		int q_ = (k0) + ka;                                                                                    \
		ra[0] = wa0 && q_ < kend ? IG_LDG(wa0 + q_) : 0.0f;                                                    \
		ra[1] = wa1 && q_ < kend ? IG_LDG(wa1 + q_) : 0.0f;                                                    \
		for (int h_ = 0; h_ < 2; h_++) {                                                                       \
			int iy_ = iy0 + ty[h_] * g.dh, ix_ = ix0 + tx[h_] * g.dw;                                      \
			int in_ = (k0) + kb + h_ * (IG_BK / 2) < kend;                                                 \
			rb[h_] = xb && in_ && iy_ >= 0 && iy_ < g.h && ix_ >= 0 && ix_ < g.w                           \
					 ? IG_LDG(xb + ((int64_t)tc[h_] * g.h + iy_) * g.w + ix_)                      \
					 : 0.0f;                                                                       \
		}                                                                                                      \
	} while (0)
#define IG_STORE(buf)                                                                                              \
	do {                                                                                                           \
		as[buf][ka][ma] = ra[0];                                                                               \
		as[buf][ka][ma + IG_BM / 2] = ra[1];                                                                   \
		bs[buf][kb][nb] = rb[0];                                                                               \
		bs[buf][kb + IG_BK / 2][nb] = rb[1];                                                                   \
	} while (0)
#define IG_ADVANCE()                                                                                               \
	do {                                                                                                           \
		for (int h_ = 0; h_ < 2; h_++) {                                                                       \
			tx[h_] += g.dkx;                                                                               \
			int carry_ = tx[h_] >= g.kw;                                                                   \
			tx[h_] -= carry_ ? g.kw : 0;                                                                   \
			ty[h_] += g.dky + carry_;                                                                      \
			carry_ = ty[h_] >= g.kh;                                                                       \
			ty[h_] -= carry_ ? g.kh : 0;                                                                   \
			tc[h_] += g.dc + carry_;                                                                       \
		}                                                                                                      \
	} while (0)

	// acc, av and bv are indexed by constants only (every loop over them unrolled), so that they live in registers
	float acc[IG_TM][IG_TN];
IG_UNROLL
	for (int i = 0; i < IG_TM; i++)
IG_UNROLL
		for (int j = 0; j < IG_TN; j++)
			acc[i][j] = 0.0f;
	const int tm = (tid / (IG_BN / IG_TN)) * IG_TM, tn = (tid % (IG_BN / IG_TN)) * IG_TN;

	IG_FETCH(kbeg);
	IG_STORE(0);
	__syncthreads();
	int buf = 0;
	for (int k0 = kbeg; k0 < kend; k0 += IG_BK) {
		const int more = k0 + IG_BK < kend;
		if (more) {
			IG_ADVANCE();
			IG_FETCH(k0 + IG_BK);
		}
IG_UNROLL
		for (int q = 0; q < IG_BK; q++) {
			float4 a4 = *(const float4 *)&as[buf][q][tm], b4 = *(const float4 *)&bs[buf][q][tn];
			float av[IG_TM] = {a4.x, a4.y, a4.z, a4.w}, bv[IG_TN] = {b4.x, b4.y, b4.z, b4.w};
IG_UNROLL
			for (int i = 0; i < IG_TM; i++)
IG_UNROLL
				for (int j = 0; j < IG_TN; j++)
					acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
		}
		if (more)
			IG_STORE(buf ^ 1);
		__syncthreads();
		buf ^= 1;
	}
#undef IG_FETCH
#undef IG_STORE
#undef IG_ADVANCE

	// the stores: per output channel 4 adjacent pixels, a warp's 16 lanes 64 adjacent pixels (one image's, unless
	// the tile crosses into the next)
IG_UNROLL
	for (int j = 0; j < IG_TN; j++) {
		int pix = n0 + tn + j;
		if (pix >= g.npix)
			break;
		int img = pix / g.plane, p = pix - img * g.plane;
IG_UNROLL
		for (int i = 0; i < IG_TM; i++) {
			int m = m0 + tm + i;
			if (m >= g.kg)
				break;
			int ch = grp * g.kg + m;
			if (g.splits > 1) { // a part, for conv_parts_kernel
				y[((int64_t)blockIdx.z * g.k + ch) * g.npix + pix] = acc[i][j];
				continue;
			}
			int64_t t = ((int64_t)img * g.k + ch) * g.plane + p;
			float v = acc[i][j];
			if (bias)
				v += bias[ch]; // cu_epi_apply's first step, without its division
			y[t] = cu_epi_apply(e, t, v);
		}
	}
}

// One thread per output element (grid-stride): t = ((img x K + channel) x oh + oy) x ow + ox, in 32 bits (the
// output holds fewer than 2^31 elements: conv_geom_from_window), as 64-bit divisions cost several times more.
static __global__ void conv_each_kernel(const float *__restrict__ x, const float *__restrict__ w,
					const float *__restrict__ bias, float *__restrict__ y, struct ig_geom g,
					struct cu_epi e, int total)
{
	CU_FOR(i, total)
	{
		int t = (int)i, r = t / g.ow, ox = t - r * g.ow;
		int q = r / g.oh, oy = r - q * g.oh;
		int img = q / g.k, ch = q - img * g.k, grp = ch / g.kg;
		const float *xc = x + ((int64_t)img * g.c + (int64_t)grp * g.cg) * g.h * g.w;
		const float *wc = w + (int64_t)ch * g.kk;
		int iy0 = oy * g.sh - g.ph, ix0 = ox * g.sw - g.pw;
		float acc = 0.0f;
		for (int c = 0; c < g.cg; c++, xc += (int64_t)g.h * g.w)
			for (int ky = 0; ky < g.kh; ky++) {
				int iy = iy0 + ky * g.dh;
				if (iy < 0 || iy >= g.h) // taps outside the image add nothing (the GEMM adds their zeros)
					continue;
				const float *xr = xc + (int64_t)iy * g.w, *wr = wc + (c * g.kh + ky) * g.kw;
				for (int kx = 0; kx < g.kw; kx++) {
					int ix = ix0 + kx * g.dw;
					if (ix >= 0 && ix < g.w)
						acc = fmaf(IG_LDG(xr + ix), IG_LDG(wr + kx), acc);
				}
			}
		if (bias)
			acc += bias[ch];
		y[t] = cu_epi_apply(e, t, acc);
	}
}

// y (NCHW) from the parts of the sums (conv_igemm_kernel's, g.splits of them), added in order, then the bias and
// e, as conv_igemm_kernel stores one part.
static __global__ void conv_parts_kernel(const float *__restrict__ part, const float *__restrict__ bias,
					 float *__restrict__ y, struct ig_geom g, struct cu_epi e, int total)
{
	CU_FOR(i, total)
	{
		int t = (int)i, q = t / g.plane, p = t - q * g.plane, img = q / g.k, ch = q - img * g.k;
		int64_t at = (int64_t)ch * g.npix + (int64_t)img * g.plane + p, step = (int64_t)g.k * g.npix;
		float v = part[at];
		for (int z = 1; z < g.splits; z++)
			v = v + part[at + z * step];
		if (bias)
			v += bias[ch];
		y[t] = cu_epi_apply(e, t, v);
	}
}

int conv_igemm_run(struct exec_kernel_ctx *k, const struct conv_geom *g, const float *x, const float *w, float *y,
		   const struct cu_epi *e)
{
	struct ig_geom c = ig_geom_of(g);
	struct cu_epi rest = *e;

	rest.bias = NULL; // the conv's bias, one per output channel, is the kernels' own step
	if (conv_igemm_way(g) == 1) {
		dim3 grid((unsigned)((c.npix + IG_BN - 1) / IG_BN), (unsigned)(g->group * c.mtiles), (unsigned)c.splits);
		if (c.splits == 1)
			return CU_LAUNCH_SYNC(k, conv_igemm_kernel, grid, IG_THREADS, x, w, e->bias, y, c, rest);
		struct cu_bufs bufs = {};
		int total = c.npix * c.k; // within int: conv_geom_from_window
		float *part = (float *)cu_alloc(k, &bufs, (size_t)c.splits * (size_t)total * sizeof(float));
		int rc = !part || CU_LAUNCH_SYNC(k, conv_igemm_kernel, grid, IG_THREADS, x, w, (const float *)NULL, part, c,
						 rest) ||
			 CU_LAUNCH(k, conv_parts_kernel, cu_grid(total), CU_BLOCK, (const float *)part, e->bias, y, c, rest,
				   total)
			     ? -1
			     : 0;
		cu_bufs_free(&bufs); // stream-ordered: after the kernels
		return rc;
	}
	int total = c.npix * c.k; // within int: conv_geom_from_window
	return CU_LAUNCH(k, conv_each_kernel, cu_grid(total), CU_BLOCK, x, w, e->bias, y, c, rest, total);
}
