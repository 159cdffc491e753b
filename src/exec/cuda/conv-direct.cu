// A direct convolution kernel for 2-D convolutions with few input channels (src/exec/cuda/conv-direct.h), such as
// a ResNet's 7x7 stem on 3 channels: there cuDNN's fastest full-float32 algorithm took 0.59 ms for ResNet-50 at
// batch 8 on an H200 (and cuBLAS's im2col products longer), while the input patch of a tile of outputs and the
// weights of a group of output channels fit in shared memory together, each input value read from there by every
// output channel and tap that needs it.
//
// A block computes a tile of CD_TH x CD_LANES output pixels of one image for CD_TC output channels.  It stages the
// weights of those channels (tap-major, CD_TC floats per tap, zero past the last channel) and the input patch the
// tile reads (every input channel, zero outside the image), then each thread accumulates CD_ROWS x CD_CH outputs in
// registers: the lane's column in CD_ROWS rows, for CD_CH channels.  A warp's lanes are 32 adjacent columns of the
// same rows and channels, so the weights it reads are one broadcast per tap and its input reads are 32 adjacent
// words: the patch's columns are kept by phase (column mod stride, then column / stride), so that lane l's column
// l x stride + kx x dilation lies next to lane l + 1's for any stride.
#include "config.h"

#include <math.h>
#include <string.h>

#include "src/exec/cuda/conv-direct.h"

#define CD_LANES 32                                     // output columns of a tile, one per lane of a warp
#define CD_ROWS 4                                       // output rows a thread computes
#define CD_RGROUPS 2                                    // warps side by side over the tile's rows
#define CD_TH (CD_ROWS * CD_RGROUPS)                    // output rows of a tile
#define CD_CH 8                                         // output channels a thread computes
#define CD_CGROUPS 4                                    // warps side by side over the block's channels
#define CD_TC (CD_CH * CD_CGROUPS)                      // output channels of a block
#define CD_THREADS (CD_LANES * CD_RGROUPS * CD_CGROUPS) // 256
#define CD_PATCH_MAX 6144                               // floats of the staged input patch (24 KiB; 18.4 the weights)

#ifdef OV_CUDA_SIM
#define CD_LDG(p) (*(p))
#define CD_BOUNDS
#define CD_UNROLL
#else
#define CD_LDG(p) __ldg(p) // the read-only data path
#define CD_BOUNDS __launch_bounds__(CD_THREADS)
#define CD_UNROLL _Pragma("unroll")
#endif

// What the kernel needs of a conv_geom, and the patch's layout: prow rows of pcol floats per input channel, a row
// holding the sw phases of pws columns each (column px at (px % sw) * pws + px / sw).
struct cd_geom {
	int c, h, w, k;
	int kh, kw, sh, sw, ph, pw, dh, dw;
	int oh, ow;
	int prow, pcol, pws;
	int tiles_x;
};

// The patch of a tile: rows and columns of the input it reads.
static void cd_patch(const struct conv_geom *g, int *rows, int *cols)
{
	*rows = (CD_TH - 1) * g->s[0] + (g->ker[0] - 1) * g->d[0] + 1;
	*cols = (CD_LANES - 1) * g->s[1] + (g->ker[1] - 1) * g->d[1] + 1;
}

static struct cd_geom cd_geom_of(const struct conv_geom *g)
{
	struct cd_geom c;
	int cols;

	c.c = g->c, c.h = g->in[0], c.w = g->in[1], c.k = g->k;
	c.kh = g->ker[0], c.kw = g->ker[1], c.sh = g->s[0], c.sw = g->s[1];
	c.ph = g->pad[0], c.pw = g->pad[1], c.dh = g->d[0], c.dw = g->d[1];
	c.oh = g->out[0], c.ow = g->out[1];
	cd_patch(g, &c.prow, &cols);
	c.pws = (cols + c.sw - 1) / c.sw;
	c.pcol = c.pws * c.sw;
	c.tiles_x = (c.ow + CD_LANES - 1) / CD_LANES;
	return c;
}

int conv_direct_fits(const struct conv_geom *g)
{
	if (g->nd != 2 || g->group != 1 || g->n < 1 || g->n > 65535 || g->c < 1 || g->k < 1)
		return 0;
	int64_t ck = (int64_t)g->c * g->ker[0] * g->ker[1];
	if (ck > CONV_DIRECT_CK_MAX || (g->k + CD_TC - 1) / CD_TC > 65535)
		return 0;
	int64_t rows = (int64_t)(CD_TH - 1) * g->s[0] + (int64_t)(g->ker[0] - 1) * g->d[0] + 1;
	int64_t cols = (int64_t)(CD_LANES - 1) * g->s[1] + (int64_t)(g->ker[1] - 1) * g->d[1] + 1;
	int64_t pcol = (cols + g->s[1] - 1) / g->s[1] * g->s[1];
	if (g->c * rows * pcol > CD_PATCH_MAX)
		return 0;
	int64_t tiles = (int64_t)((g->out[0] + CD_TH - 1) / CD_TH) * ((g->out[1] + CD_LANES - 1) / CD_LANES);
	// block indices in 32 bits, an image's input and the output's rows within int (offsets past them in 64 bits)
	return tiles <= 0x7fffffff && (int64_t)g->c * g->in[0] * g->in[1] <= 0x7fffffff &&
	       (int64_t)g->k * g->out[0] * g->out[1] <= 0x7fffffff;
}

// Grid: x the tiles of the output plane (tiles_x per band of CD_TH rows), y the groups of CD_TC output channels,
// z the images.  bias: the conv's, or NULL; e: the rest of the epilogue (no bias).
static __global__ void CD_BOUNDS conv_direct_kernel(const float *__restrict__ x, const float *__restrict__ w,
						    const float *__restrict__ bias, float *__restrict__ y,
						    struct cd_geom g, struct cu_epi e)
{
	__shared__ __align__(16) float ws[CONV_DIRECT_CK_MAX * CD_TC];
	__shared__ float patch[CD_PATCH_MAX];
	int tid = threadIdx.x, lane = tid & (CD_LANES - 1), warp = tid / CD_LANES;
	int rg = warp % CD_RGROUPS, cg = warp / CD_RGROUPS;
	int ty = blockIdx.x / g.tiles_x, tx = blockIdx.x - ty * g.tiles_x;
	int ox0 = tx * CD_LANES, oy0 = ty * CD_TH, k0 = blockIdx.y * CD_TC, n = blockIdx.z;
	int ck = g.c * g.kh * g.kw;

#ifdef OV_CUDA_SIM
	// the simulator's shared memory outlives a block: poisoned, a read of what this block did not stage shows
	if (tid == 0) {
		for (int i = 0; i < CONV_DIRECT_CK_MAX * CD_TC; i++)
			ws[i] = NAN;
		for (int i = 0; i < CD_PATCH_MAX; i++)
			patch[i] = NAN;
	}
	__syncthreads();
#endif
	// the weights: ws[tap][j] = w[k0 + j][tap]
	for (int i = tid; i < ck * CD_TC; i += CD_THREADS) {
		int j = i % CD_TC, tap = i / CD_TC;
		ws[i] = k0 + j < g.k ? CD_LDG(w + (int64_t)(k0 + j) * ck + tap) : 0.0f;
	}
	// the patch: input rows from iy0, columns from ix0, every channel; a warp a row at a time, its lanes along the
	// row's phases (no division but the row's)
	int iy0 = oy0 * g.sh - g.ph, ix0 = ox0 * g.sw - g.pw;
	const float *xn = x + (int64_t)n * g.c * g.h * g.w;
	for (int r = warp; r < g.c * g.prow; r += CD_THREADS / CD_LANES) {
		int c = r / g.prow, iy = iy0 + (r - c * g.prow);
		int in_rows = iy >= 0 && iy < g.h;
		const float *xr = in_rows ? xn + ((int64_t)c * g.h + iy) * g.w : xn;
		float *dst = patch + r * g.pcol;
		for (int phase = 0; phase < g.sw; phase++)
			for (int at = lane; at < g.pws; at += CD_LANES) {
				int ix = ix0 + at * g.sw + phase;
				dst[phase * g.pws + at] = in_rows && ix >= 0 && ix < g.w ? CD_LDG(xr + ix) : 0.0f;
			}
	}
	__syncthreads();

	// acc, xv and wk are indexed by constants only (every loop over them unrolled), so that they live in registers
	float acc[CD_ROWS][CD_CH];
CD_UNROLL
	for (int r = 0; r < CD_ROWS; r++)
CD_UNROLL
		for (int j = 0; j < CD_CH; j++)
			acc[r][j] = 0.0f;
	const float4 *wv = (const float4 *)ws + cg * (CD_CH / 4);
	int dws = g.dw / g.sw, dwr = g.dw - dws * g.sw, rstep = g.sh * g.pcol;
	for (int c = 0; c < g.c; c++)
		for (int ky = 0; ky < g.kh; ky++) {
			const float *pr = patch + (c * g.prow + rg * CD_ROWS * g.sh + ky * g.dh) * g.pcol + lane;
			// kx * dw = at * sw + phase: the tap's column for lane 0, in the patch's phases
			for (int kx = 0, at = 0, phase = 0; kx < g.kw; kx++) {
				const float *p = pr + phase * g.pws + at;
				float xv[CD_ROWS], wk[CD_CH];
CD_UNROLL
				for (int r = 0; r < CD_ROWS; r++)
					xv[r] = p[r * rstep];
CD_UNROLL
				for (int q = 0; q < CD_CH / 4; q++) {
					float4 v = wv[q];
					wk[4 * q] = v.x, wk[4 * q + 1] = v.y, wk[4 * q + 2] = v.z, wk[4 * q + 3] = v.w;
				}
				wv += CD_TC / 4;
CD_UNROLL
				for (int r = 0; r < CD_ROWS; r++)
CD_UNROLL
					for (int j = 0; j < CD_CH; j++)
						acc[r][j] = fmaf(xv[r], wk[j], acc[r][j]);
				at += dws;
				phase += dwr;
				if (phase >= g.sw)
					phase -= g.sw, at++;
			}
		}

	int ox = ox0 + lane;
	if (ox >= g.ow)
		return;
CD_UNROLL
	for (int r = 0; r < CD_ROWS; r++) {
		int oy = oy0 + rg * CD_ROWS + r;
CD_UNROLL
		for (int j = 0; j < CD_CH; j++) {
			int kk = k0 + cg * CD_CH + j;
			if (oy >= g.oh || kk >= g.k)
				continue;
			int64_t t = (((int64_t)n * g.k + kk) * g.oh + oy) * g.ow + ox;
			float v = acc[r][j];
			if (bias)
				v += bias[kk]; // cu_epi_apply's first step, without its division
			y[t] = cu_epi_apply(e, t, v);
		}
	}
}

int conv_direct_run(struct exec_kernel_ctx *k, const struct conv_geom *g, const float *x, const float *w, float *y,
		    const struct cu_epi *e)
{
	struct cd_geom c = cd_geom_of(g);
	struct cu_epi rest = *e;
	dim3 grid((unsigned)(c.tiles_x * ((c.oh + CD_TH - 1) / CD_TH)), (unsigned)((c.k + CD_TC - 1) / CD_TC),
		  (unsigned)g->n);

	rest.bias = NULL; // the conv's bias, one per output channel, is the kernel's own step
	return CU_LAUNCH_SYNC(k, conv_direct_kernel, grid, CD_THREADS, x, w, e->bias, y, c, rest);
}

float conv_direct_time(struct exec_kernel_ctx *k, const struct conv_geom *g, const float *x, const float *w, float *y)
{
	cudaEvent_t e0 = NULL, e1 = NULL;
	struct cu_epi none;
	float ms = -1;

	memset(&none, 0, sizeof none);
	none.b_inner = none.b_m = 1;
	none.act.kind = EXEC_ACT_NONE;
	if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess ||
	    conv_direct_run(k, g, x, w, y, &none) || cudaEventRecord(e0, cu_dev.stream) != cudaSuccess ||
	    conv_direct_run(k, g, x, w, y, &none) || cudaEventRecord(e1, cu_dev.stream) != cudaSuccess ||
	    cu_sync() != cudaSuccess || cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess)
		ms = -1;
	if (e0)
		cudaEventDestroy(e0);
	if (e1)
		cudaEventDestroy(e1);
	cudaGetLastError();
	k->err->msg[0] = '\0'; // a failed try is no error of the node: another way computes it
	k->err->code = OV_OK;
	return ms;
}
