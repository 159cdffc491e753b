/* CPU convolutions: Conv (im2col + GEMM per group, a direct path for pointwise and depthwise, and a Relu or Clip the
 * runner offers to fuse applied as the output is written), ConvTranspose (GEMM + col2im), ConvInteger and QLinearConv
 * (through the double path), Col2Im, DeformConv, and the helpers shared by the NN families (src/exec/ops/ops.h). */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/cpu/cblas.h"
#include "src/exec/cpu/kernels.h"
#include "src/exec/ops/ops.h"
#include "src/exec/exec.h"
#include "src/exec/ops/ov-window.h"

/* ---- shared helpers -------------------------------------------------------------------------------------- */

int cpu_is_half(int32_t dtype)
{
	return dtype == OV_DT_FLOAT16 || dtype == OV_DT_BFLOAT16;
}

int64_t cpu_read_doubles(const struct xtensor *t, double *buf, int64_t max)
{
	int64_t n = t->numel < max ? t->numel : max;

	for (int64_t i = 0; i < n; i++)
		buf[i] = xt_get(t, i);
	return n;
}

int cpu_via_f32(struct exec_kernel_ctx *k, exec_kernel_fn fn, unsigned keep_mask)
{
	size_t nin = k->n_in, nout = k->n_out;
	struct xtensor *in = calloc(nin ? nin : 1, sizeof *in), *out = calloc(nout ? nout : 1, sizeof *out);
	const struct xtensor **inp = calloc(nin ? nin : 1, sizeof *inp);
	struct xtensor **outp = calloc(nout ? nout : 1, sizeof *outp);
	int32_t half = 0;
	int rc = -1;

	if (!in || !out || !inp || !outp) {
		rc = xk_fail(k, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nin; i++) {
		const struct xtensor *t = k->in[i];
		inp[i] = t;
		if (!t || !cpu_is_half(t->dtype))
			continue;
		if (!half)
			half = t->dtype;
		if (xt_alloc(&in[i], OV_DT_FLOAT, t->rank, t->dims, k->err))
			goto out;
		float *d = in[i].data;
		for (int64_t j = 0; j < t->numel; j++)
			d[j] = (float)xt_get(t, j);
		inp[i] = &in[i];
	}
	for (size_t i = 0; i < nout; i++)
		outp[i] = &out[i];
	struct exec_kernel_ctx sub = *k;
	sub.in = inp;
	sub.out = outp;
	sub.act.kind = EXEC_ACT_NONE; /* the activation would run before the rounding to the half type */
	sub.add = NULL;               /* and so would the Add */
	sub.dw = NULL;                /* and the block's Conv */
	sub.bn = NULL;                /* and the BatchNormalization */
	if (fn(&sub))
		goto out;
	for (size_t i = 0; i < nout; i++) {
		struct xtensor *o = &out[i];
		if (half && o->dtype == OV_DT_FLOAT && !(i < 32 && (keep_mask >> i & 1u))) {
			if (xk_output(k, i, half, o->rank, o->dims))
				goto out;
			const float *s = o->data;
			for (int64_t j = 0; j < o->numel; j++)
				xt_set(k->out[i], j, s[j]);
		} else {
			xt_free(k->out[i]);
			*k->out[i] = *o; /* hand the buffer over */
			memset(o, 0, sizeof *o);
		}
	}
	rc = 0;
out:
	for (size_t i = 0; in && i < nin; i++)
		xt_free(&in[i]);
	for (size_t i = 0; out && i < nout; i++)
		xt_free(&out[i]);
	free(in);
	free(out);
	free(inp);
	free(outp);
	return rc;
}

int cpu_float_dispatch(struct exec_kernel_ctx *k, exec_kernel_fn fn, unsigned keep_mask, const char *op)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;

	if (!x)
		return xk_fail(k, "X is required");
	if (x->dtype == OV_DT_FLOAT || x->dtype == OV_DT_DOUBLE)
		return fn(k);
	if (cpu_is_half(x->dtype))
		return cpu_via_f32(k, fn, keep_mask);
	return xk_fail(k, "%s on %s is not supported", op, dtype_short_name(x->dtype));
}

/* A plain loop for GEMMs too large for CBLAS's int dimensions. */
#define NAIVE_GEMM(T)                                                                                            \
	for (int64_t i = 0; i < m; i++)                                                                          \
		for (int64_t j = 0; j < n; j++) {                                                                \
			double acc = 0;                                                                          \
			for (int64_t p = 0; p < kk; p++)                                                         \
				acc += (double)((const T *)a)[trans_a ? p * lda + i : i * lda + p] *             \
				       (double)((const T *)b)[trans_b ? j * ldb + p : p * ldb + j];              \
			T *cp = (T *)c + i * ldc + j;                                                            \
			*cp = (T)(alpha * acc + (beta != 0 ? beta * (double)*cp : 0));                           \
		}

void cpu_gemm(int32_t dtype, int trans_a, int trans_b, int64_t m, int64_t n, int64_t kk, double alpha,
	      const void *a, int64_t lda, const void *b, int64_t ldb, double beta, void *c, int64_t ldc)
{
	if (m <= 0 || n <= 0)
		return;
	/* CBLAS, loaded on the first product (src/exec/cpu/cblas.c); past its int sizes, or without it, a plain loop */
	const struct cpu_cblas *bl = cpu_cblas();
	if (!bl || m > INT_MAX || n > INT_MAX || kk > INT_MAX || lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX) {
		if (dtype == OV_DT_FLOAT) {
			NAIVE_GEMM(float)
		} else {
			NAIVE_GEMM(double)
		}
		return;
	}
	if (kk <= 0) { /* C = beta * C */
		for (int64_t i = 0; i < m; i++)
			for (int64_t j = 0; j < n; j++) {
				if (dtype == OV_DT_FLOAT) {
					float *cp = (float *)c + i * ldc + j;
					*cp = beta != 0 ? (float)(beta * *cp) : 0.0f;
				} else {
					double *cp = (double *)c + i * ldc + j;
					*cp = beta != 0 ? beta * *cp : 0.0;
				}
			}
		return;
	}
	enum CBLAS_TRANSPOSE ta = trans_a ? CblasTrans : CblasNoTrans, tb = trans_b ? CblasTrans : CblasNoTrans;
	if (dtype == OV_DT_FLOAT && (m == 1 || n == 1)) {
		/* a matrix times a vector (a batch of one through a Gemm): GEMV reads the matrix once, where GEMM would
		 * first copy it into its packed layout.  beta 0 starts from zeros: C may hold anything, NaN too. */
		if (beta == 0)
			for (int64_t i = 0; i < (m == 1 ? n : m); i++)
				((float *)c)[m == 1 ? i : i * ldc] = 0.0f;
		if (m == 1) /* c = op(B)^T a: B is K x N (or N x K transposed) */
			bl->sgemv(CblasRowMajor, trans_b ? CblasNoTrans : CblasTrans, trans_b ? (int)n : (int)kk,
				  trans_b ? (int)kk : (int)n, (float)alpha, b, (int)ldb, a, trans_a ? (int)lda : 1,
				  (float)beta, c, 1);
		else /* c = op(A) b */
			bl->sgemv(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_a ? (int)kk : (int)m,
				  trans_a ? (int)m : (int)kk, (float)alpha, a, (int)lda, b, trans_b ? 1 : (int)ldb,
				  (float)beta, c, (int)ldc);
		return;
	}
	if (dtype == OV_DT_FLOAT)
		bl->sgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)kk, (float)alpha, a, (int)lda, b, (int)ldb,
			  (float)beta, c, (int)ldc);
	else
		bl->dgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)kk, alpha, a, (int)lda, b, (int)ldb, beta, c,
			  (int)ldc);
}

/* ---- im2col / col2im --------------------------------------------------------------------------------------- */

/* Columns [p0, p1) of the im2col matrix of one group (cg channels) of a 2-D input (1-D runs as H = 1):
 * col[(c, kh, kw)][p - p0] for output position p = oh * ow_n + ow. */
#define DEFINE_IM2COL_2D(T, NAME)                                                                                \
	static void NAME(const T *x, int64_t cg, int64_t h, int64_t wd, const struct ops_window *w2, int64_t p0, \
			 int64_t p1, T *col)                                                                     \
	{                                                                                                        \
		int64_t kh_n = w2->k[0], kw_n = w2->k[1], ow_n = w2->out[1];                                     \
		int64_t sh = w2->s[0], sw = w2->s[1], dh = w2->d[0], dw = w2->d[1];                              \
		int64_t pt = w2->pb[0], pl = w2->pb[1], ncol = p1 - p0;                                          \
		for (int64_t c = 0; c < cg; c++)                                                                 \
			for (int64_t kh = 0; kh < kh_n; kh++)                                                    \
				for (int64_t kw = 0; kw < kw_n; kw++) {                                          \
					T *row = col + ((c * kh_n + kh) * kw_n + kw) * ncol;                     \
					int64_t iw0 = kw * dw - pl;                                              \
					int64_t owa = iw0 >= 0 ? 0 : (-iw0 + sw - 1) / sw;                       \
					int64_t owb = iw0 >= wd ? 0 : (wd - iw0 + sw - 1) / sw;                  \
					if (owb > ow_n)                                                          \
						owb = ow_n;                                                      \
					if (owa > owb)                                                           \
						owa = owb;                                                       \
					for (int64_t oh = p0 / ow_n; oh * ow_n < p1; oh++) {                     \
						int64_t lo = p0 - oh * ow_n, hi = p1 - oh * ow_n;                \
						if (lo < 0)                                                      \
							lo = 0;                                                  \
						if (hi > ow_n)                                                   \
							hi = ow_n;                                               \
						T *dst = row + oh * ow_n - p0;                                   \
						int64_t ih = oh * sh - pt + kh * dh;                             \
						if (ih < 0 || ih >= h) {                                         \
							memset(dst + lo, 0, (size_t)(hi - lo) * sizeof(T));      \
							continue;                                                \
						}                                                                \
						const T *src = x + (c * h + ih) * wd + iw0;                      \
						int64_t a = owa < lo ? lo : owa > hi ? hi : owa;                 \
						int64_t b = owb < lo ? lo : owb > hi ? hi : owb;                 \
						if (a > b)                                                       \
							a = b;                                                   \
						if (a > lo)                                                      \
							memset(dst + lo, 0, (size_t)(a - lo) * sizeof(T));       \
						if (sw == 1) {                                                   \
							if (b > a)                                               \
								memcpy(dst + a, src + a,                         \
								       (size_t)(b - a) * sizeof(T));             \
						} else {                                                         \
							for (int64_t ow = a; ow < b; ow++)                       \
								dst[ow] = src[ow * sw];                          \
						}                                                                \
						if (hi > b)                                                      \
							memset(dst + b, 0, (size_t)(hi - b) * sizeof(T));        \
					}                                                                        \
				}                                                                                \
	}

/* The same for any spatial rank: the odometer over the kernel and the output positions. */
#define DEFINE_IM2COL_ND(T, NAME)                                                                                \
	static void NAME(const T *x, int64_t cg, const struct ops_window *w, int64_t p0, int64_t p1, T *col)     \
	{                                                                                                        \
		int n = w->n;                                                                                    \
		int64_t kidx[XT_MAX_RANK], oidx[XT_MAX_RANK], ncol = p1 - p0;                                    \
		for (int64_t c = 0; c < cg; c++) {                                                               \
			const T *xc = x + c * w->in_size;                                                        \
			memset(kidx, 0, sizeof kidx);                                                            \
			for (int64_t kr = 0; kr < w->k_size; kr++) {                                             \
				T *row = col + (c * w->k_size + kr) * ncol;                                      \
				int64_t rem = p0;                                                                \
				for (int i = n - 1; i >= 0; i--) {                                               \
					oidx[i] = rem % w->out[i];                                               \
					rem /= w->out[i];                                                        \
				}                                                                                \
				for (int64_t p = p0; p < p1; p++) {                                              \
					int64_t off = 0, inside = 1;                                             \
					for (int i = 0; i < n; i++) {                                            \
						int64_t ii = oidx[i] * w->s[i] - w->pb[i] + kidx[i] * w->d[i];   \
						if (ii < 0 || ii >= w->in[i]) {                                  \
							inside = 0;                                              \
							break;                                                   \
						}                                                                \
						off = off * w->in[i] + ii;                                       \
					}                                                                        \
					row[p - p0] = inside ? xc[off] : (T)0;                                   \
					xt_index_next(oidx, w->out, n);      \
				}                                                                                \
				xt_index_next(kidx, w->k, n); \
			}                                                                                        \
		}                                                                                                \
	}

/* ConvTranspose: accumulate col[(m, k...)][p - p0] (input positions p in [p0, p1)) into y (mg channels). */
#define DEFINE_COL2IM_ND(T, NAME)                                                                                \
	static void NAME(const T *col, int64_t mg, const struct ops_window *w, int64_t p0, int64_t p1, T *y)     \
	{                                                                                                        \
		int n = w->n;                                                                                    \
		int64_t kidx[XT_MAX_RANK], iidx[XT_MAX_RANK], ncol = p1 - p0;                                    \
		for (int64_t m = 0; m < mg; m++) {                                                               \
			T *ym = y + m * w->out_size;                                                             \
			memset(kidx, 0, sizeof kidx);                                                            \
			for (int64_t kr = 0; kr < w->k_size; kr++) {                                             \
				const T *row = col + (m * w->k_size + kr) * ncol;                                \
				int64_t rem = p0;                                                                \
				for (int i = n - 1; i >= 0; i--) {                                               \
					iidx[i] = rem % w->in[i];                                                \
					rem /= w->in[i];                                                         \
				}                                                                                \
				if (n == 2) {                                                                    \
					int64_t iw_n = w->in[1], ow_n = w->out[1], sw = w->s[1];                 \
					int64_t ow0 = kidx[1] * w->d[1] - w->pb[1];                              \
					int64_t a = ow0 >= 0 ? 0 : (-ow0 + sw - 1) / sw;                         \
					int64_t b = ow0 >= ow_n ? 0 : (ow_n - ow0 + sw - 1) / sw;                \
					if (b > iw_n)                                                            \
						b = iw_n;                                                        \
					for (int64_t ih = p0 / iw_n; ih * iw_n < p1; ih++) {                     \
						int64_t oh = ih * w->s[0] - w->pb[0] + kidx[0] * w->d[0];        \
						if (oh < 0 || oh >= w->out[0])                                   \
							continue;                                                \
						int64_t lo = p0 - ih * iw_n, hi = p1 - ih * iw_n;                \
						if (lo < a)                                                      \
							lo = a;                                                  \
						if (hi > b)                                                      \
							hi = b;                                                  \
						const T *src = row + ih * iw_n - p0;                             \
						T *dst = ym + oh * ow_n + ow0;                                   \
						for (int64_t iw = lo; iw < hi; iw++)                             \
							dst[iw * sw] += src[iw];                                 \
					}                                                                        \
				} else {                                                                         \
					for (int64_t p = p0; p < p1; p++) {                                      \
						int64_t off = 0, inside = 1;                                     \
						for (int i = 0; i < n; i++) {                                    \
							int64_t oo = iidx[i] * w->s[i] - w->pb[i] +              \
								     kidx[i] * w->d[i];                          \
							if (oo < 0 || oo >= w->out[i]) {                         \
								inside = 0;                                      \
								break;                                           \
							}                                                        \
							off = off * w->out[i] + oo;                              \
						}                                                                \
						if (inside)                                                      \
							ym[off] += row[p - p0];                                  \
						xt_index_next(iidx, w->in, n);              \
					}                                                                        \
				}                                                                                \
				xt_index_next(kidx, w->k, n); \
			}                                                                                        \
		}                                                                                                \
	}

/* Depthwise 2-D (1-D as H = 1): one input channel per group, mult output channels each. Taps outermost,
 * accumulating whole output rows, so the inner loop runs without bounds checks. */
#define DEFINE_DEPTHWISE(T, NAME)                                                                                \
	static void NAME(const T *x, const T *wt, const T *bias, int64_t nb, int64_t c_n, int64_t mult,          \
			 const struct ops_window *w2, T *y)                                                      \
	{                                                                                                        \
		int64_t h = w2->in[0], wd = w2->in[1], oh_n = w2->out[0], ow_n = w2->out[1];                     \
		int64_t kh_n = w2->k[0], kw_n = w2->k[1], sh = w2->s[0], sw = w2->s[1], dh = w2->d[0],           \
			dw = w2->d[1], pt = w2->pb[0], pl = w2->pb[1];                                           \
		for (int64_t b = 0; b < nb; b++)                                                                 \
			for (int64_t m = 0; m < c_n * mult; m++) {                                               \
				const T *xc = x + (b * c_n + m / mult) * h * wd;                                 \
				const T *wm = wt + m * kh_n * kw_n;                                              \
				T *ym = y + (b * c_n * mult + m) * oh_n * ow_n;                                  \
				T b0 = bias ? bias[m] : (T)0;                                                    \
				for (int64_t oh = 0; oh < oh_n; oh++) {                                          \
					T *yr = ym + oh * ow_n;                                                  \
					for (int64_t ow = 0; ow < ow_n; ow++)                                    \
						yr[ow] = b0;                                                     \
					for (int64_t kh = 0; kh < kh_n; kh++) {                                  \
						int64_t ih = oh * sh - pt + kh * dh;                             \
						if (ih < 0 || ih >= h)                                           \
							continue;                                                \
						const T *xr = xc + ih * wd;                                      \
						for (int64_t kw = 0; kw < kw_n; kw++) {                          \
							T wv = wm[kh * kw_n + kw];                               \
							int64_t iw0 = kw * dw - pl;                              \
							int64_t a = iw0 >= 0 ? 0 : (-iw0 + sw - 1) / sw;         \
							int64_t e = iw0 >= wd ? 0 : (wd - iw0 + sw - 1) / sw;    \
							if (e > ow_n)                                            \
								e = ow_n;                                        \
							const T *xs = xr + iw0;                                  \
							if (sw == 1)                                             \
								for (int64_t ow = a; ow < e; ow++)               \
									yr[ow] += wv * xs[ow];                   \
							else if (sw == 2)                                        \
								for (int64_t ow = a; ow < e; ow++)               \
									yr[ow] += wv * xs[2 * ow];               \
							else                                                     \
								for (int64_t ow = a; ow < e; ow++)               \
									yr[ow] += wv * xs[ow * sw];              \
						}                                                                \
					}                                                                        \
				}                                                                                \
			}                                                                                        \
	}

#include "src/exec/cpu/simd.h"

/* y[0..n) = act(y), with the same float operations as the Relu and Clip kernels, so fusing changes no bit. */
NN_CLONES void cpu_act_f(float *restrict y, int64_t n, const struct exec_act *act)
{
	struct act8 a;
	int64_t i = 0;

	if (act && act->kind == EXEC_ACT_SILU) {
		cpu_silu_f(y, n); /* no contraction there: the Sigmoid kernel's bits */
		return;
	}
	act8_init(&a, act);
	if (!a.on)
		return;
	for (; i + 8 <= n; i += 8) {
		v8f x = LOAD8(y + i);
		act8_apply(&x, &a);
		memcpy(y + i, &x, sizeof x);
	}
	for (; i < n; i++)
		y[i] = y[i] < a.lo[0] ? a.below[0] : y[i] > a.hi[0] ? a.hi[0] : y[i];
}

/* One block of a pointwise convolution: rows [m, m + MR) by 8 * NV positions, over all K inputs: the sums start
 * from the bias, ad is added (NULL: nothing; laid out as y), the activation is applied, and the block is stored (all
 * of it, or the first `keep` positions).
 * Inlined with constant MR and NV, the loops unroll and the sums stay in registers (MR x NV of them: 12 of AVX2's
 * 16, or 24 of AVX-512's 32 for 8 rows). */
static inline __attribute__((always_inline)) void pw_block(const float *x, int64_t ldx, const float *w, int64_t K,
							   const float *bias, const float *ad, const struct act8 *a,
							   float *y, int64_t ldy, const int MR, const int NV, int keep)
{
	v8f acc[8][3] = {{{0}}};

	/* The block's output rows are ldy apart: with many rows, more streams than the prefetchers follow, so each
	 * store would wait for its line (and the Add's line) to come in.  Asked for now, they arrive while the sums
	 * are made (ResNet-50's 56x56 1x1 convolutions: 1.2 to 1.0 ms, 1.45 to 1.2 with the Add). */
#pragma GCC unroll 8
	for (int i = 0; i < MR; i++)
#pragma GCC unroll 3
		for (int v = 0; v < NV; v++) {
			if (ad)
				__builtin_prefetch(ad + i * ldy + 8 * v, 0, 3);
			__builtin_prefetch(y + i * ldy + 8 * v, 1, 3);
		}
#pragma GCC unroll 8
	for (int i = 0; i < MR; i++) {
		float b = bias ? bias[i] : 0.0f;
#pragma GCC unroll 3
		for (int v = 0; v < NV; v++)
			acc[i][v] = (v8f){b, b, b, b, b, b, b, b};
	}
	for (int64_t k = 0; k < K; k++) {
		v8f xv[3];
#pragma GCC unroll 3
		for (int v = 0; v < NV; v++)
			xv[v] = LOAD8(x + k * ldx + 8 * v);
#pragma GCC unroll 8
		for (int i = 0; i < MR; i++) {
			float wk = w[i * K + k];
			v8f wb = {wk, wk, wk, wk, wk, wk, wk, wk};
#pragma GCC unroll 3
			for (int v = 0; v < NV; v++)
				acc[i][v] += wb * xv[v];
		}
	}
#pragma GCC unroll 8
	for (int i = 0; i < MR; i++)
#pragma GCC unroll 3
		for (int v = 0; v < NV; v++) {
			if (ad && keep >= 8 * (v + 1)) {
				acc[i][v] += LOAD8(ad + i * ldy + 8 * v);
			} else if (ad && keep > 8 * v) {
				float t[8] = {0};
				memcpy(t, ad + i * ldy + 8 * v, (size_t)(keep - 8 * v) * sizeof *t);
				acc[i][v] += LOAD8(t);
			}
			if (a->on)
				act8_apply(&acc[i][v], a);
			if (keep >= 8 * (v + 1)) {
				memcpy(y + i * ldy + 8 * v, &acc[i][v], sizeof acc[i][v]);
			} else if (keep > 8 * v) {
				float t[8];
				memcpy(t, &acc[i][v], sizeof t);
				memcpy(y + i * ldy + 8 * v, t, (size_t)(keep - 8 * v) * sizeof *y);
			}
		}
}

/* Floats of X pointwise_f keeps in L1 while it goes over the outputs. */
#define PW_L1 4096

/* Y = act(W X + B) for a pointwise convolution (1x1, stride 1, no pads) of one image and group: X is K rows of N
 * positions (ldx apart), W is M x K, Y is M rows (ldy apart).  Without packing or a pass of its own for the bias
 * and the activation: blocks of 24 positions by MR outputs (then 4, then 1), a stretch of them whose X fits in L1
 * for each MR outputs (X's block is read from L1 again and again while W's rows stream; each output row is written
 * in runs); the positions left (N mod 24) go 8 at a time, the last few through xt (K x 8 floats, zero-padded) so
 * nothing is read past X's end. */
static inline __attribute__((always_inline)) void pointwise_run(const float *x, int64_t ldx, const float *w,
								const float *bias, const float *ad, float *y, int64_t ldy,
								int64_t M, int64_t K, int64_t N, const struct exec_act *act,
								float *xt, const int MR)
{
	struct act8 a;
	int64_t p0 = 0;

	act8_init(&a, act);
	int64_t span = PW_L1 / (K ? K : 1) / 24 * 24, n24 = N / 24 * 24;
	if (span < 24)
		span = 24;
/* the rows [m, M) over the positions from q0 to q1, in blocks of NV vectors (keeping keep positions of the last) */
#define PW_ROWS(q0, q1, step, xb, ld, NV, keep)                                                                  \
	do {                                                                                                     \
		int64_t m = 0;                                                                                   \
		for (; m + MR <= M; m += MR)                                                                     \
			for (int64_t q = (q0); q < (q1); q += (step))                                            \
				pw_block((xb) + q - (q0), ld, w + m * K, K, bias ? bias + m : NULL,              \
					 ad ? ad + m * ldy + q : NULL, &a, y + m * ldy + q, ldy, MR, NV, keep);  \
		if (MR > 4)                                                                                      \
			for (; m + 4 <= M; m += 4)                                                               \
				for (int64_t q = (q0); q < (q1); q += (step))                                    \
					pw_block((xb) + q - (q0), ld, w + m * K, K, bias ? bias + m : NULL,      \
						 ad ? ad + m * ldy + q : NULL, &a, y + m * ldy + q, ldy, 4, NV,  \
						 keep);                                                          \
		for (; m < M; m++)                                                                               \
			for (int64_t q = (q0); q < (q1); q += (step))                                            \
				pw_block((xb) + q - (q0), ld, w + m * K, K, bias ? bias + m : NULL,              \
					 ad ? ad + m * ldy + q : NULL, &a, y + m * ldy + q, ldy, 1, NV, keep);   \
	} while (0)
	for (; p0 < n24; p0 += span) {
		int64_t p1 = p0 + span < n24 ? p0 + span : n24;
		PW_ROWS(p0, p1, 24, x + p0, ldx, 3, 24);
	}
	for (p0 = n24; p0 + 8 <= N; p0 += 8)
		PW_ROWS(p0, p0 + 8, 8, x + p0, ldx, 1, 8);
	if (p0 < N) {
		int64_t keep = N - p0;
		for (int64_t k = 0; k < K; k++) {
			memcpy(xt + k * 8, x + k * ldx + p0, (size_t)keep * sizeof *xt);
			memset(xt + k * 8 + keep, 0, (size_t)(8 - keep) * sizeof *xt);
		}
		PW_ROWS(p0, p0 + 8, 8, xt, 8, 1, (int)keep);
	}
#undef PW_ROWS
}

/* 4 rows at a time: AVX2's 16 registers. */
NN_CLONES static void pointwise_f(const float *x, int64_t ldx, const float *w, const float *bias, const float *ad,
				  float *y, int64_t ldy, int64_t M, int64_t K, int64_t N, const struct exec_act *act, float *xt)
{
	if (ad) /* apart, so that the plain convolution's code has no test of ad */
		pointwise_run(x, ldx, w, bias, ad, y, ldy, M, K, N, act, xt, 4);
	else
		pointwise_run(x, ldx, w, bias, NULL, y, ldy, M, K, N, act, xt, 4);
}

#ifdef NN_WIDE
/* 8 rows at a time: AVX-512's 32 registers (still 8-float vectors), fewer loads per multiply-add, so that many
 * inputs (up to a thousand: MobileNet's projections and 7x7 layers) run faster than OpenBLAS's packed GEMM. */
NN_WIDE static void pointwise_f_wide(const float *x, int64_t ldx, const float *w, const float *bias, float *y,
				     int64_t ldy, int64_t M, int64_t K, int64_t N, const struct exec_act *act, float *xt)
{
	pointwise_run(x, ldx, w, bias, NULL, y, ldy, M, K, N, act, xt, 8);
}

/* The CPU runs pointwise_f_wide (what x86-64-v4 lets the compiler use in it). */
static int cpu_wide(void)
{
	return __builtin_cpu_supports("x86-64-v4");
}
#endif

/* dst[i] = src[i * sw] for i in [a, b) (a run of an im2col row): memcpy for stride 1; for stride 2 the even floats
 * of 16, 8 at a time, where the loop above was scalar.  src[lim - 1] is the last float that may be read (stride 2
 * loads 16 floats for 8, so its vector loop stops where a load would pass lim). */
static inline __attribute__((always_inline)) void copy_run(float *dst, const float *src, int64_t a, int64_t b,
							   int64_t sw, int64_t lim)
{
	int64_t i = a;

	if (sw == 1) {
		if (b > a)
			memcpy(dst + a, src + a, (size_t)(b - a) * sizeof *dst);
		return;
	}
	if (sw == 2)
		for (; i + 8 <= b && 2 * i + 16 <= lim; i += 8) {
			v8f e = V8_EVEN(LOAD8(src + 2 * i), LOAD8(src + 2 * i + 8));
			memcpy(dst + i, &e, sizeof e);
		}
	for (; i < b; i++)
		dst[i] = src[i * sw];
}

/* im2col2d_d's float twin (DEFINE_IM2COL_2D), with stride 2's copies vectorised; the same columns to the bit. */
NN_CLONES static void im2col2d_f(const float *x, int64_t cg, int64_t h, int64_t wd, const struct ops_window *w2,
				 int64_t p0, int64_t p1, float *col)
{
	int64_t kh_n = w2->k[0], kw_n = w2->k[1], ow_n = w2->out[1];
	int64_t sh = w2->s[0], sw = w2->s[1], dh = w2->d[0], dw = w2->d[1];
	int64_t pt = w2->pb[0], pl = w2->pb[1], ncol = p1 - p0;

	for (int64_t c = 0; c < cg; c++)
		for (int64_t kh = 0; kh < kh_n; kh++)
			for (int64_t kw = 0; kw < kw_n; kw++) {
				float *row = col + ((c * kh_n + kh) * kw_n + kw) * ncol;
				int64_t iw0 = kw * dw - pl;
				int64_t owa = iw0 >= 0 ? 0 : (-iw0 + sw - 1) / sw;
				int64_t owb = iw0 >= wd ? 0 : (wd - iw0 + sw - 1) / sw;
				if (owb > ow_n)
					owb = ow_n;
				if (owa > owb)
					owa = owb;
				for (int64_t oh = p0 / ow_n; oh * ow_n < p1; oh++) {
					int64_t lo = p0 - oh * ow_n, hi = p1 - oh * ow_n;
					if (lo < 0)
						lo = 0;
					if (hi > ow_n)
						hi = ow_n;
					float *dst = row + oh * ow_n - p0;
					int64_t ih = oh * sh - pt + kh * dh;
					if (ih < 0 || ih >= h) {
						memset(dst + lo, 0, (size_t)(hi - lo) * sizeof *dst);
						continue;
					}
					const float *src = x + (c * h + ih) * wd + iw0;
					int64_t a = owa < lo ? lo : owa > hi ? hi : owa;
					int64_t b = owb < lo ? lo : owb > hi ? hi : owb;
					if (a > b)
						a = b;
					if (a > lo)
						memset(dst + lo, 0, (size_t)(a - lo) * sizeof *dst);
					copy_run(dst, src, a, b, sw, wd - iw0);
					if (hi > b)
						memset(dst + b, 0, (size_t)(hi - b) * sizeof *dst);
				}
			}
}

/* y[0..n) = v */
NN_CLONES static void fill_f(float *restrict y, int64_t n, float v)
{
	v8f vv = {v, v, v, v, v, v, v, v};
	int64_t i = 0;

	for (; i + 8 <= n; i += 8)
		memcpy(y + i, &vv, sizeof vv);
	for (; i < n; i++)
		y[i] = v;
}

DEFINE_IM2COL_2D(double, im2col2d_d)
DEFINE_IM2COL_ND(float, im2colnd_f)
DEFINE_IM2COL_ND(double, im2colnd_d)
DEFINE_COL2IM_ND(float, col2im_f)
DEFINE_COL2IM_ND(double, col2im_d)
DEFINE_DEPTHWISE(double, depthwise_d)

/* Budget of one im2col/col2im tile, in elements. */
#define COL_TILE (1 << 20)
/* The most inputs a pointwise convolution goes through pointwise_f with, and pointwise_f_wide (more: OpenBLAS). */
#define PW_MAX_K 192
#define PW_WIDE_K 1024
/* The most positions a pointwise convolution goes through cpu_strips_gemm with (more: cpu_panels_gemm), and from
 * 64 positions on the fewest inputs (fewer: pointwise_f; measured on MobileNetV2's 14x14 expansions: 64 inputs
 * 3% behind it, 96 5% ahead) */
#define PW_STRIPS_N 256
#define PW_STRIPS_K 96
/* The most im2col rows a convolution goes through pointwise_f_wide with (more: OpenBLAS). */
#define PW_IM2COL_K 256
/* Budget of one block of a pointwise convolution's output (all its channels), in elements. */
#define OUT_TILE (1 << 16)

/* A pointwise convolution of nb images (c channels of is positions, in groups) through cpu_panels_gemm, or for
 * small planes cpu_strips_gemm: each group's weights packed once, kept with the constants when W is one; add (NULL:
 * none; laid out as y) added before act is applied. */
static int pointwise_packed(struct exec_kernel_ctx *k, const float *x, const float *w, const float *bias, int64_t nb,
			    int64_t c, int64_t m, int64_t group, int64_t is, const float *add, const struct exec_act *act,
			    float *y, int strips)
{
	int64_t cg = c / group, mg = m / group, per = cpu_rows_size(mg, cg, strips ? CPU_STRIP_ROWS : CPU_PANEL_ROWS);
	size_t bytes = (size_t)(group * per) * sizeof(float);
	/* "PG" or "SG", the group count */
	uint64_t tag = (strips ? 0x53470000u : 0x50470000u) ^ (uint64_t)group << 20;
	const float *wp = xk_derived(k, 1, tag);
	/* scratch: the panels' last columns, or X in blocks of positions for the strips (of a plane under 64) */
	int pack = strips && is < 64;
	size_t nbt = strips ? (pack ? (size_t)(cg * is) : 1) : CPU_PANELS_SCRATCH;
	float *own = NULL, *bt = malloc(nbt * sizeof *bt);

	if (!bt)
		return xk_fail(k, "out of memory");
	if (!wp) {
		if (!(own = malloc(bytes))) {
			free(bt);
			return xk_fail(k, "out of memory for the packed weights (%zu bytes)", bytes);
		}
		for (int64_t g = 0; g < group; g++)
			cpu_rows_pack(w + g * mg * cg, cg, mg, cg, strips ? CPU_STRIP_ROWS : CPU_PANEL_ROWS, own + g * per);
		wp = own;
		if (xk_derive(k, 1, tag, own, bytes))
			own = NULL;
	}
	for (int64_t n = 0; n < nb; n++)
		for (int64_t g = 0; g < group; g++) {
			const float *xg = x + (n * c + g * cg) * is, *bg = bias ? bias + g * mg : NULL;
			const float *ag = add ? add + (n * m + g * mg) * is : NULL;
			float *yg = y + (n * m + g * mg) * is;
			if (strips)
				cpu_strips_gemm(wp + g * per, mg, cg, xg, is, is, bg, ag, act, yg, is, pack ? bt : NULL);
			else
				cpu_panels_gemm(wp + g * per, mg, cg, xg, is, is, bg, ag, act, yg, is, bt);
		}
	free(own);
	free(bt);
	return 0;
}

/* The 2-D view of a 1-D or 2-D window (1-D as H = 1). */
static void window_2d(const struct ops_window *w, struct ops_window *w2)
{
	*w2 = *w;
	if (w->n == 1) {
		w2->n = 2;
		w2->in[1] = w->in[0], w2->k[1] = w->k[0], w2->s[1] = w->s[0], w2->d[1] = w->d[0];
		w2->pb[1] = w->pb[0], w2->pe[1] = w->pe[0], w2->out[1] = w->out[0];
		w2->in[0] = w2->k[0] = w2->s[0] = w2->d[0] = w2->out[0] = 1;
		w2->pb[0] = w2->pe[0] = 0;
	}
}

/* Y = act(conv(X, W) + B) for float or double tensors of the same dtype; Y allocated (N, M, out...), written
 * whole.  act (NULL: none) is applied to float only.  fuse (NULL: none) offers a float tensor laid out as Y to add,
 * as the Add kernel would, and the activation after it (NULL: none); the paths that can take it do, and set
 * fuse->taken (act is then NULL, the runner's rule). */
struct conv_add {
	const float *add;
	const struct exec_act *act;
	int taken;
};

static int conv_paths(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *wt,
		      const struct xtensor *b, int64_t group, const struct ops_window *w, const struct exec_act *act,
		      struct conv_add *fuse, struct xtensor *y);

/* A float 1x1 Conv with strides and no pads (ResNet's downsampling shortcuts): it reads only every s-th position,
 * gathered here into planes of their own (a few hundred KiB), and is then a pointwise one, for the pointwise paths
 * (panels or the register-blocked kernel, the offered Add too); the direct path, which reads the whole input in
 * phases, ran ResNet-50's 256 -> 512 (28x28) in 3.9 ms against 2.5 for onnxruntime. */
static int conv_strided_1x1(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *wt,
			    const struct xtensor *b, int64_t group, const struct ops_window *w,
			    const struct ops_window *w2, const struct exec_act *act, struct conv_add *fuse,
			    struct xtensor *y)
{
	int64_t nb = x->dims[0], c = x->dims[1], oh_n = w2->out[0], ow_n = w2->out[1], os = oh_n * ow_n;
	int64_t wd = w2->in[1], plane = w2->in[0] * wd, n = nb * c * os;
	/* on a page of its own, as the values the pointwise paths read otherwise are (malloc's 16-byte alignment put
	 * ResNet-50's rows of 784 floats 48 bytes into a line, so that every load of 16 floats the panels make crossed
	 * two, and where it fell decided the time: its 256 -> 512 at 28x28 2.3 or 2.8 ms, 512 -> 1024 at 14x14 2.0 or
	 * 2.15, with the same bits; 64-byte alignment alone left the second at 2.15) */
	float *xs = aligned_alloc(4096, ((size_t)(n ? n : 1) * sizeof *xs + 4095) / 4096 * 4096);

	if (!xs)
		return xk_fail(k, "out of memory for the strided positions (%lld x %lld)", (long long)(nb * c),
			       (long long)os);
	for (int64_t i = 0; i < nb * c; i++)
		for (int64_t oh = 0; oh < oh_n; oh++)
			copy_run(xs + i * os + oh * ow_n, (const float *)x->data + i * plane + oh * w2->s[0] * wd, 0, ow_n,
				 w2->s[1], wd);
	struct xtensor xg = *x;
	struct ops_window w1 = *w;
	xg.data = xs;
	xg.numel = n;
	xg.bytes = (size_t)xg.numel * sizeof *xs;
	for (int i = 0; i < w->n; i++) {
		xg.dims[2 + i] = w->out[i];
		w1.in[i] = w->out[i];
		w1.s[i] = 1;
	}
	w1.in_size = w->out_size;
	int r = conv_paths(k, &xg, wt, b, group, &w1, act, fuse, y);
	free(xs);
	return r;
}

static int conv_compute(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *wt,
			const struct xtensor *b, int64_t group, const struct ops_window *w, const struct exec_act *act,
			struct conv_add *fuse, struct xtensor *y)
{
	struct ops_window w2;
	int plain_1x1 = x->dtype == OV_DT_FLOAT && w->n <= 2 && w->out_size && group < x->dims[1], strided = 0;

	for (int i = 0; plain_1x1 && i < w->n; i++) {
		plain_1x1 = w->k[i] == 1 && !w->pb[i] && !w->pe[i];
		strided |= w->s[i] > 1;
	}
	if (plain_1x1 && strided) {
		window_2d(w, &w2);
		return conv_strided_1x1(k, x, wt, b, group, w, &w2, act, fuse, y);
	}
	return conv_paths(k, x, wt, b, group, w, act, fuse, y);
}

static int conv_paths(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *wt,
		      const struct xtensor *b, int64_t group, const struct ops_window *w, const struct exec_act *act,
		      struct conv_add *fuse, struct xtensor *y)
{
	int32_t dt = x->dtype;
	size_t es = dt == OV_DT_FLOAT ? 4 : 8;
	int64_t nb = x->dims[0], c = x->dims[1], m = wt->dims[0], cg = c / group, mg = m / group;
	int64_t ck = cg * w->k_size, os = w->out_size, is = w->in_size;
	const char *xd = x->data, *wd = wt->data, *bd = b ? b->data : NULL;
	char *yd = y->data;
	int pointwise = 1;
	struct ops_window w2 = *w;

	if (!os || !nb || !m)
		return 0;
	for (int i = 0; i < w->n; i++)
		if (w->k[i] != 1 || w->s[i] != 1 || w->pb[i] || w->pe[i])
			pointwise = 0;
	if (w->n <= 2)
		window_2d(w, &w2);
	if (group == c && cg == 1 && w->n <= 2 && c > 1) {
		if (dt == OV_DT_FLOAT)
			return cpu_depthwise_f(k, (const float *)xd, (const float *)wd, (const float *)bd, nb, c, mg, &w2,
					   act, (float *)yd);
		depthwise_d((const double *)xd, (const double *)wd, (const double *)bd, nb, c, mg, &w2,
				    (double *)yd);
		return 0;
	}
	/* float 3x3, stride 1, enough channels: Winograd's F(2x2, 3x3) (src/exec/cpu/conv-winograd.c) */
	if (dt == OV_DT_FLOAT && w->n == 2 && cpu_conv_winograd_takes(c, m, group, &w2)) {
		int r = cpu_conv_winograd_f(k, (const float *)xd, (const float *)wd, (const float *)bd, nb, c, m, &w2,
					    act, (float *)yd);
		if (r != 1) /* 1: an infinity or NaN in the input, for the paths below */
			return r;
	}
	/* float, 1-D and 2-D, enough channels: straight from the input, no im2col (src/exec/cpu/conv-direct.c) */
	if (dt == OV_DT_FLOAT && w->n <= 2 && !pointwise && cpu_conv_direct_takes(cg, mg, &w2))
		return cpu_conv_direct_f(k, (const float *)xd, (const float *)wd, (const float *)bd, nb, c, m, group, &w2,
					 act, (float *)yd);
	/* pointwise float with many inputs (MobileNet's projections and wide expansions), or over a small plane: the
	 * weights packed once (kept with the constants), into panels of rows (src/exec/cpu/panel-gemm.c) or, for
	 * planes up to 16x16, strips of channels across the lanes (src/exec/cpu/strip-gemm.c) */
	int strips = os <= PW_STRIPS_N && (os < 64 || cg >= PW_STRIPS_K);
	if (pointwise && dt == OV_DT_FLOAT && (cg > PW_MAX_K || strips)) {
		if (fuse)
			fuse->taken = 1;
		return pointwise_packed(k, (const float *)xd, (const float *)wd, (const float *)bd, nb, c, m, group, is,
					fuse ? fuse->add : NULL, fuse ? fuse->act : act, (float *)yd, strips);
	}
	/* pointwise float: the direct kernel for few inputs (MobileNet's expansions: 16 to 96, and its 28x28 and
	 * 56x56 projections from 144 and 192: its 4-row blocks fit their 24 and 32 outputs, where the panels' 6 rows
	 * leave a third of a panel empty on 32) over enough positions for whole blocks, and with AVX-512's registers
	 * for up to a thousand inputs; else OpenBLAS (measured on MobileNetV2's shapes: the 4-row kernel is ahead up
	 * to 192 inputs and behind from about 320, the 8-row one ahead on all of them) */
	int narrow = cg <= PW_MAX_K && os >= 64, wide = 0;
#ifdef NN_WIDE
	wide = !narrow && cg <= PW_WIDE_K && cpu_wide();
#endif
	if (pointwise && dt == OV_DT_FLOAT && (narrow || wide)) {
		float *xt = malloc((size_t)(cg ? cg : 1) * 8 * sizeof *xt);
		if (!xt)
			return xk_fail(k, "out of memory");
		/* the offered Add, on the 4-row kernel */
		const float *ad = fuse && !wide ? fuse->add : NULL;
		const struct exec_act *pact = ad ? fuse->act : act;
		if (ad)
			fuse->taken = 1;
		for (int64_t n = 0; n < nb; n++)
			for (int64_t g = 0; g < group; g++) {
				const float *xg = (const float *)xd + (n * c + g * cg) * is;
				const float *wg = (const float *)wd + g * mg * ck, *bg = bd ? (const float *)bd + g * mg : NULL;
				float *yg = (float *)yd + (n * m + g * mg) * os;
#ifdef NN_WIDE
				if (wide) {
					pointwise_f_wide(xg, is, wg, bg, yg, os, mg, cg, os, act, xt);
					continue;
				}
#endif
				pointwise_f(xg, is, wg, bg, ad ? ad + (n * m + g * mg) * os : NULL, yg, os, mg, cg, os, pact,
					    xt);
			}
		free(xt);
		return 0;
	}
	/* about a thousand output columns per tile: the im2col block stays in cache for its GEMM, and for float the
	 * output block too, between the bias filled in before the GEMM and the activation after it */
	int64_t tile = pointwise ? os : COL_TILE / (ck ? ck : 1);
	if (pointwise && dt == OV_DT_FLOAT && (bd || act))
		tile = OUT_TILE / (mg ? mg : 1) / 16 * 16;
	if (tile > 1024 && !pointwise)
		tile = 1024;
	if (tile < 64 && pointwise)
		tile = 64;
	if (tile < 1)
		tile = 1;
	if (tile > os)
		tile = os;
	void *col = NULL;
	float *xt = NULL;
	if (!pointwise && ck) {
		col = malloc((size_t)(ck * tile) * es);
		if (!col)
			return xk_fail(k, "out of memory for a %lld x %lld im2col buffer", (long long)ck, (long long)tile);
	}
	/* a short im2col block (a first layer over RGB: 27 or 147 rows) through the 8-row kernel, where there is one
	 * (measured ahead of OpenBLAS on MobileNetV2's and ResNet-18's first layers) */
#ifdef NN_WIDE
	int direct = !pointwise && dt == OV_DT_FLOAT && ck && ck <= PW_IM2COL_K && cpu_wide();
	if (direct && !(xt = malloc((size_t)ck * 8 * sizeof *xt))) {
		free(col);
		return xk_fail(k, "out of memory");
	}
#endif
	for (int64_t n = 0; n < nb; n++)
		for (int64_t g = 0; g < group; g++) {
			const char *xg = xd + (size_t)((n * c + g * cg) * is) * es;
			const char *wg = wd + (size_t)(g * mg * ck) * es;
			char *yg = yd + (size_t)((n * m + g * mg) * os) * es;
			for (int64_t p0 = 0; p0 < os; p0 += tile) {
				int64_t p1 = p0 + tile < os ? p0 + tile : os;
				const void *bm = xg + (size_t)p0 * es;
				int64_t ldb = is;
				if (!pointwise && ck) {
					if (w->n <= 2 && dt == OV_DT_FLOAT)
						im2col2d_f((const float *)xg, cg, w2.in[0], w2.in[1], &w2, p0, p1, col);
					else if (w->n <= 2)
						im2col2d_d((const double *)xg, cg, w2.in[0], w2.in[1], &w2, p0, p1, col);
					else if (dt == OV_DT_FLOAT)
						im2colnd_f((const float *)xg, cg, w, p0, p1, col);
					else
						im2colnd_d((const double *)xg, cg, w, p0, p1, col);
					bm = col;
					ldb = p1 - p0;
				}
#ifdef NN_WIDE
				if (direct) {
					pointwise_f_wide(col, ldb, (const float *)wg, bd ? (const float *)bd + g * mg : NULL,
							 (float *)yg + p0, os, mg, ck, p1 - p0, act, xt);
					continue;
				}
#endif
				/* float: the bias goes in first and the product is added to it (the pass zeroing C
				 * that beta 0 costs in OpenBLAS fills it instead); then the activation */
				double beta = 0.0;
				if (dt == OV_DT_FLOAT && bd) {
					for (int64_t j = 0; j < mg; j++)
						fill_f((float *)yg + j * os + p0, p1 - p0, ((const float *)bd)[g * mg + j]);
					beta = 1.0;
				}
				cpu_gemm(dt, 0, 0, mg, p1 - p0, ck, 1.0, wg, ck, bm, ldb, beta, yg + (size_t)p0 * es, os);
				if (act)
					for (int64_t j = 0; j < mg; j++)
						cpu_act_f((float *)yg + j * os + p0, p1 - p0, act);
			}
			if (bd && dt == OV_DT_DOUBLE)
				for (int64_t j = 0; j < mg; j++) {
					double bv = ((const double *)bd)[g * mg + j], *yr = (double *)yg + j * os;
					for (int64_t p = 0; p < os; p++)
						yr[p] += bv;
				}
		}
	free(col);
	free(xt);
	return 0;
}

/* ---- a pointwise Conv and the depthwise Conv after it, as one block (exec_kernel_ctx.dw) ----------------------
 * MobileNet's inverted residual block expands a plane to six times its channels (1x1 Conv, Clip) for the 3x3
 * depthwise Conv after it to read once: over its 112x112 and 56x56 planes that tensor (4.8 and 1.8 MB) is written
 * out of the L2 cache and read back.  Here the depthwise Conv's output is made in bands of rows, each band's
 * expanded rows computed just before it into a buffer that stays in L2 (the rows two bands share moved down, not
 * computed twice), by the kernels the two Convs run apart (pointwise_f, cpu_depthwise_rows): the same bits.  Taken
 * on AVX-512 machines too, where it was once left out (the expansion apart is pointwise_f there as well): on a Zen 4
 * with AVX-512 the block and the two Convs apart measured level (MobileNetV2's features.2, 0.64 to 0.82 ms both,
 * twelve processes each), so one way on every machine. */

/* Bytes of expanded rows a band holds at most (half the L2 cache of the machine it was measured on: smaller bands
 * pay more for each band than they gain), and the fewest the expanded tensor of one image must have for the block to
 * pay (measured on MobileNetV2: its 4.8 MB tensor at 112x112 runs 7% faster, those of 1.8 MB at 56x56 no faster) */
#define DWB_BYTES (512 << 10)
#define DWB_MIN_BYTES (4 << 20)

/* The block for node k (its X, W, B, group and window w, the activation after it, mid the shape of its output):
 * 1 when it does not take the node (nothing done), else 0, or -1 with k failed. */
static int conv_dw_block(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *wt,
			 const struct xtensor *b, int64_t group, const struct ops_window *w, const struct exec_act *act,
			 const int64_t *mid)
{
	const struct exec_dw_offer *o = k->dw;
	int64_t nb = x->dims[0], c = x->dims[1], m = wt->dims[0], is = w->in_size;

	if (x->dtype != OV_DT_FLOAT || x->rank != 4 || group != 1 || m < 2 || nb < 1)
		return 1;
	for (int i = 0; i < 2; i++)
		if (w->k[i] != 1 || w->s[i] != 1 || w->pb[i] || w->pe[i])
			return 1;
	/* conv_compute's pointwise path for the expansion apart: pointwise_f (not the strips, not 8 rows) */
	if ((is <= PW_STRIPS_N && (is < 64 || c >= PW_STRIPS_K)) || c > PW_MAX_K || is < 64 ||
	    (uint64_t)m * (uint64_t)is * sizeof(float) < DWB_MIN_BYTES)
		return 1;
	/* the depthwise Conv over the expanded tensor, one output per plane, on the 3x3 row path */
	const struct xtensor *dw = o->w, *db = o->b;
	if (dw->rank != 4 || dw->dims[0] != m || dw->dims[1] != 1 || (db && (db->rank != 1 || db->numel != m)))
		return 1;
	struct xtensor xe = {.dtype = OV_DT_FLOAT, .rank = 4, .dims = {mid[0], mid[1], mid[2], mid[3]},
			     .numel = nb * m * is, .kind = XT_TENSOR};
	struct exec_kernel_ctx kd = *k;
	struct ops_window w2;
	int64_t g2, out[XT_MAX_RANK];
	kd.node = o->node;
	if (ops_conv_setup(&kd, &xe, dw, db, &g2, &w2, out)) {
		/* the depthwise node's own run will say what is wrong with it */
		k->err->msg[0] = '\0';
		k->err->code = OV_OK;
		return 1;
	}
	if (g2 != m || !cpu_depthwise_rows_takes(m, &w2))
		return 1;
	int64_t hh = mid[2], wd = mid[3], oh_n = out[2], s = w2.s[0], pt = w2.pb[0];
	/* bands of rows: as many output rows as leave their expanded rows (rows - 1) * s + 3 in DWB_BYTES */
	int64_t band = ((int64_t)(DWB_BYTES / sizeof(float)) / (m * wd) - 3) / s + 1;
	band = band < 1 ? 1 : band > oh_n ? oh_n : band;
	int64_t rows = (band - 1) * s + 3, e_n = rows * wd;
	if (xk_output_raw(k, 0, OV_DT_FLOAT, 4, out))
		return -1;
	float *e = malloc((size_t)(m * e_n) * sizeof *e), *xt = malloc((size_t)c * 8 * sizeof *xt);
	int rc = -1;
	if (!e || !xt) {
		xk_fail(k, "out of memory for %lld expanded rows", (long long)rows);
		goto out;
	}
	const struct exec_act *dact = o->act.kind != EXEC_ACT_NONE ? &o->act : NULL;
	for (int64_t n = 0; n < nb; n++) {
		const float *xn = (const float *)x->data + n * c * is;
		float *yn = (float *)k->out[0]->data + n * m * out[2] * out[3];
		int64_t e0 = 0, e1 = 0; /* the expanded rows at hand: e0 .. e1 - 1, at e's first rows */
		for (int64_t o0 = 0; o0 < oh_n; o0 += band) {
			int64_t o1 = o0 + band < oh_n ? o0 + band : oh_n;
			int64_t a = o0 * s - pt, z = (o1 - 1) * s - pt + 3; /* the rows the band reaches */
			a = a < 0 ? 0 : a > hh ? hh : a;
			z = z > hh ? hh : z < a ? a : z;
			if (a >= e1) {
				e0 = e1 = a;
			} else if (a > e0) {
				for (int64_t i = 0; i < m; i++)
					memmove(e + i * e_n, e + i * e_n + (a - e0) * wd,
						(size_t)((e1 - a) * wd) * sizeof *e);
				e0 = a;
			}
			if (z > e1) {
				pointwise_f(xn + e1 * wd, is, wt->data, b ? b->data : NULL, NULL, e + (e1 - e0) * wd, e_n,
					    m, c, (z - e1) * wd, act, xt);
				e1 = z;
			}
			if (cpu_depthwise_rows(k, e, e_n, e0, e1, m, dw->data, db ? db->data : NULL, &w2, dact, o0, o1,
					       yn))
				goto out;
		}
	}
	k->act_done = act != NULL;
	k->dw_done = 1;
	xk_note(k, "ran as one block with the depthwise Conv #%u after it (the same bits)", o->node);
	rc = 0;
out:
	free(e);
	free(xt);
	return rc;
}

static int conv_float(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->in[0], *wt = k->n_in > 1 ? k->in[1] : NULL, *b = k->n_in > 2 ? k->in[2] : NULL;
	struct ops_window w;
	int64_t group, out[XT_MAX_RANK];

	if (ops_conv_setup(k, x, wt, b, &group, &w, out))
		return -1;
	if (wt->dtype != x->dtype || (b && b->dtype != x->dtype))
		return xk_fail(k, "X, W and B must have the same element type");
	/* the runner's offered activation, for float32 (double keeps the separate kernel); SiLU over the whole output
	 * once it is computed (the kernels' own epilogues clamp, and contract what they compute) */
	int silu = x->dtype == OV_DT_FLOAT && k->act.kind == EXEC_ACT_SILU;
	const struct exec_act *act = x->dtype == OV_DT_FLOAT && k->act.kind != EXEC_ACT_NONE && !silu ? &k->act : NULL;
	/* its offered depthwise Conv after it, as one block */
	int r = k->dw && !k->add && !silu ? conv_dw_block(k, x, wt, b, group, &w, act, out) : 1;
	if (r <= 0)
		return r;
	if (xk_output_raw(k, 0, x->dtype, x->rank, out))
		return -1;
	/* its offered Add (a residual connection) when the other input has the output's own shape, with the
	 * activation after the Add */
	struct conv_add fuse = {0};
	const struct xtensor *ad = k->add;
	int same = ad && x->dtype == OV_DT_FLOAT && ad->dtype == OV_DT_FLOAT && ad->kind == XT_TENSOR &&
		   ad->rank == x->rank && !act;
	for (int i = 0; same && i < ad->rank; i++)
		same = ad->dims[i] == out[i];
	if (same) {
		fuse.add = ad->data;
		fuse.act = k->add_act.kind != EXEC_ACT_NONE ? &k->add_act : NULL;
	}
	if (conv_compute(k, x, wt, b, group, &w, act, same ? &fuse : NULL, k->out[0]))
		return -1;
	if (silu)
		cpu_silu_f(k->out[0]->data, k->out[0]->numel);
	/* its offered BatchNormalization (and activation) in one pass over the output: plane by plane, the activation
	 * over a plane the BatchNormalization has just written */
	if (k->bn && x->dtype == OV_DT_FLOAT && !act && !silu && !fuse.taken)
		k->bn_done = !cpu_bn_apply_f(k->out[0]->data, out[0], out[1], w.out_size, k->bn);
	k->add_done = fuse.taken;
	k->act_done = act != NULL || silu;
	return 0;
}

static int kernel_conv(struct exec_kernel_ctx *k)
{
	return cpu_float_dispatch(k, conv_float, 0, "Conv");
}

/* ---- ConvTranspose ------------------------------------------------------------------------------------------ */

static int convt_float(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->in[0], *wt = k->n_in > 1 ? k->in[1] : NULL, *b = k->n_in > 2 ? k->in[2] : NULL;
	struct ops_window w;
	int64_t out[XT_MAX_RANK], group;

	if (ops_convt_setup(k, x, wt, b, &w, out, &group))
		return -1;
	int64_t c = x->dims[1], mg = wt->dims[1], m = mg * group, cg = c / group;
	if (xk_output(k, 0, x->dtype, x->rank, out))
		return -1;
	struct xtensor *y = k->out[0];
	int32_t dt = x->dtype;
	size_t es = dt == OV_DT_FLOAT ? 4 : 8;
	int64_t is = w.in_size, ks = w.k_size, nb = x->dims[0], osz = w.out_size;
	int64_t rows = mg * ks;
	if (!is || !nb || !m || !osz)
		return 0;
	int64_t tile = COL_TILE / (rows ? rows : 1);
	if (tile < 1)
		tile = 1;
	if (tile > is)
		tile = is;
	void *col = malloc((size_t)(rows * tile) * es + 1);
	if (!col)
		return xk_fail(k, "out of memory for a %lld x %lld col2im buffer", (long long)rows, (long long)tile);
	for (int64_t bn = 0; bn < nb; bn++)
		for (int64_t g = 0; g < group; g++) {
			const char *xg = (const char *)x->data + (size_t)((bn * c + g * cg) * is) * es;
			const char *wg = (const char *)wt->data + (size_t)(g * cg * rows) * es;
			char *yg = (char *)y->data + (size_t)((bn * m + g * mg) * osz) * es;
			for (int64_t p0 = 0; p0 < is; p0 += tile) {
				int64_t p1 = p0 + tile < is ? p0 + tile : is;
				cpu_gemm(dt, 1, 0, rows, p1 - p0, cg, 1.0, wg, rows, xg + (size_t)p0 * es, is, 0.0, col,
					 p1 - p0);
				if (dt == OV_DT_FLOAT)
					col2im_f(col, mg, &w, p0, p1, (float *)yg);
				else
					col2im_d(col, mg, &w, p0, p1, (double *)yg);
			}
			for (int64_t j = 0; b && j < mg; j++)
				for (int64_t p = 0; p < osz; p++) {
					if (dt == OV_DT_FLOAT)
						((float *)yg)[j * osz + p] += ((const float *)b->data)[g * mg + j];
					else
						((double *)yg)[j * osz + p] += ((const double *)b->data)[g * mg + j];
				}
		}
	free(col);
	return 0;
}

static int kernel_conv_transpose(struct exec_kernel_ctx *k)
{
	return cpu_float_dispatch(k, convt_float, 0, "ConvTranspose");
}

/* ---- ConvInteger, QLinearConv: exact integer sums through the double path ------------------------------------ */

/* t minus its zero point (a scalar, or per channel along axis 0 for W) as a double tensor. */
static int to_double_minus_zp(struct exec_kernel_ctx *k, const struct xtensor *t, const struct xtensor *zp,
			      struct xtensor *out, const char *what)
{
	if (xt_alloc(out, OV_DT_DOUBLE, t->rank, t->dims, k->err))
		return -1;
	int64_t per = zp && zp->numel > 1 ? t->numel / (t->dims[0] ? t->dims[0] : 1) : 0;
	if (zp && zp->numel > 1 && (t->rank < 1 || zp->numel != t->dims[0])) {
		xt_free(out);
		return xk_fail(k, "%s zero point has %lld values for %lld channels", what, (long long)zp->numel,
			       (long long)(t->rank ? t->dims[0] : 0));
	}
	double *d = out->data;
	for (int64_t i = 0; i < t->numel; i++) {
		double z = !zp || !zp->numel ? 0 : xt_get(zp, per ? i / per : 0);
		d[i] = xt_get(t, i) - z;
	}
	return 0;
}

static int kernel_conv_integer_like(struct exec_kernel_ctx *k, int qlinear)
{
	/* ConvInteger: x, w, x_zero_point, w_zero_point. QLinearConv: x, x_scale, x_zp, w, w_scale, w_zp, y_scale,
	 * y_zp, B. */
	const struct xtensor *x = k->in[0], *w = qlinear ? (k->n_in > 3 ? k->in[3] : NULL) : (k->n_in > 1 ? k->in[1] : NULL);
	const struct xtensor *xzp = qlinear ? (k->n_in > 2 ? k->in[2] : NULL) : (k->n_in > 2 ? k->in[2] : NULL);
	const struct xtensor *wzp = qlinear ? (k->n_in > 5 ? k->in[5] : NULL) : (k->n_in > 3 ? k->in[3] : NULL);
	struct xtensor xd = {0}, wd = {0}, bd = {0}, yd = {0};
	struct ops_window win;
	int64_t group, out[XT_MAX_RANK];
	int rc = -1;

	if (!x || !w)
		return xk_fail(k, "x and w are required");
	if (xzp && xzp->numel > 1)
		return xk_fail(k, "x zero point must be a scalar");
	if (to_double_minus_zp(k, x, xzp, &xd, "x") || to_double_minus_zp(k, w, wzp, &wd, "w"))
		goto out;
	const struct xtensor *b = qlinear && k->n_in > 8 ? k->in[8] : NULL;
	if (b) {
		if (xt_alloc(&bd, OV_DT_DOUBLE, b->rank, b->dims, k->err))
			goto out;
		for (int64_t i = 0; i < b->numel; i++)
			((double *)bd.data)[i] = xt_get(b, i);
	}
	if (ops_conv_setup(k, &xd, &wd, b ? &bd : NULL, &group, &win, out))
		goto out;
	if (xt_alloc(&yd, OV_DT_DOUBLE, x->rank, out, k->err))
		goto out;
	if (conv_compute(k, &xd, &wd, b ? &bd : NULL, group, &win, NULL, NULL, &yd))
		goto out;
	const double *yv = yd.data;
	if (!qlinear) {
		if (xk_output(k, 0, OV_DT_INT32, x->rank, out))
			goto out;
		for (int64_t i = 0; i < yd.numel; i++)
			((int32_t *)k->out[0]->data)[i] = (int32_t)llrint(yv[i]);
	} else {
		const struct xtensor *xs = k->in[1], *ws = k->n_in > 4 ? k->in[4] : NULL;
		const struct xtensor *ys = k->n_in > 6 ? k->in[6] : NULL, *yzp = k->n_in > 7 ? k->in[7] : NULL;
		if (!xs || !ws || !ys || !xs->numel || !ws->numel || !ys->numel)
			goto fail_scales;
		int32_t odt = yzp ? yzp->dtype : OV_DT_UINT8;
		if (xk_output(k, 0, odt, x->rank, out))
			goto out;
		int64_t m = out[1], per = m ? yd.numel / (out[0] ? out[0] : 1) / m : 0;
		double lo = odt == OV_DT_INT8 ? -128 : 0, hi = odt == OV_DT_INT8 ? 127 : 255;
		double z = yzp && yzp->numel ? xt_get(yzp, 0) : 0, xsv = xt_get(xs, 0), ysv = xt_get(ys, 0);
		if (ws->numel != 1 && ws->numel != m) {
			rc = xk_fail(k, "w_scale has %lld values for %lld output channels", (long long)ws->numel,
				     (long long)m);
			goto out;
		}
		for (int64_t i = 0; i < yd.numel; i++) {
			int64_t ch = per ? (i / per) % m : 0;
			double v = nearbyint(yv[i] * (xsv * xt_get(ws, ws->numel > 1 ? ch : 0) / ysv)) + z;
			xt_set(k->out[0], i, v < lo ? lo : v > hi ? hi : v);
		}
	}
	rc = 0;
	goto out;
fail_scales:
	rc = xk_fail(k, "QLinearConv needs x_scale, w_scale and y_scale");
out:
	xt_free(&xd);
	xt_free(&wd);
	xt_free(&bd);
	xt_free(&yd);
	return rc;
}

static int kernel_conv_integer(struct exec_kernel_ctx *k)
{
	return kernel_conv_integer_like(k, 0);
}

static int kernel_qlinear_conv(struct exec_kernel_ctx *k)
{
	return kernel_conv_integer_like(k, 1);
}

/* ---- Col2Im (opset 18): the columns of an unfold summed back into an image ---------------------------------- */

/* An int64 list attribute of n values, or def for each when absent: 0, or -1 with k failed. */
static int ints_or(struct exec_kernel_ctx *k, const char *name, int n, int64_t def, int64_t *out)
{
	int64_t got = xk_attr_ints(k, name, out, XT_MAX_RANK * 2);

	if (got < 0 || got == 0) {
		for (int i = 0; i < n; i++)
			out[i] = def;
		return 0;
	}
	if (got != n)
		return xk_fail(k, "%s has %lld values, %d wanted", name, (long long)got, n);
	return 0;
}

static int kernel_col2im(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in > 0 ? k->in[0] : NULL, *is = k->n_in > 1 ? k->in[1] : NULL,
			     *bs = k->n_in > 2 ? k->in[2] : NULL;
	int64_t img[XT_MAX_RANK], blk[XT_MAX_RANK], dil[XT_MAX_RANK], str[XT_MAX_RANK], pads[2 * XT_MAX_RANK];
	int64_t nblk[XT_MAX_RANK], out[XT_MAX_RANK];

	if (!x || !is || !bs)
		return xk_fail(k, "input, image_shape and block_shape are required");
	int r = (int)is->numel;
	if (x->rank != 3 || r < 1 || r > XT_MAX_RANK - 2 || bs->numel != r)
		return xk_fail(k, "input must be 3-D and image_shape and block_shape of one length");
	int64_t bprod = 1, L = 1;
	for (int i = 0; i < r; i++) {
		img[i] = xt_get_int(is, i), blk[i] = xt_get_int(bs, i);
		if (img[i] <= 0 || blk[i] <= 0 || img[i] > (1 << 24) || blk[i] > (1 << 24))
			return xk_fail(k, "image_shape and block_shape must be positive");
		bprod *= blk[i];
	}
	if (ints_or(k, "dilations", r, 1, dil) || ints_or(k, "strides", r, 1, str) ||
	    ints_or(k, "pads", 2 * r, 0, pads))
		return -1;
	for (int i = 0; i < r; i++) {
		if (dil[i] <= 0 || str[i] <= 0 || pads[i] < 0 || pads[r + i] < 0)
			return xk_fail(k, "dilations and strides must be positive, pads not negative");
		int64_t span = dil[i] * (blk[i] - 1) + 1, room = img[i] + pads[i] + pads[r + i] - span;
		if (room < 0)
			return xk_fail(k, "the block does not fit the padded image on dim %d", i);
		nblk[i] = room / str[i] + 1;
		L *= nblk[i];
	}
	if (x->dims[1] % bprod || x->dims[2] != L)
		return xk_fail(k, "input is [N, C x %lld, %lld] for these shapes, not [%lld, %lld, %lld]", (long long)bprod,
			       (long long)L, (long long)x->dims[0], (long long)x->dims[1], (long long)x->dims[2]);
	int64_t C = x->dims[1] / bprod, plane = 1;
	out[0] = x->dims[0], out[1] = C;
	for (int i = 0; i < r; i++)
		out[2 + i] = img[i], plane *= img[i];
	if (xk_output(k, 0, x->dtype, r + 2, out))
		return -1;
	struct xtensor *y = k->out[0];
	double *acc = calloc((size_t)(plane ? plane : 1), sizeof *acc);
	if (!acc)
		return xk_fail(k, "out of memory");
	for (int64_t nc = 0; nc < x->dims[0] * C; nc++) {
		memset(acc, 0, (size_t)plane * sizeof *acc);
		for (int64_t b = 0; b < bprod; b++) {
			int64_t boff[XT_MAX_RANK], rest = b;
			for (int i = r - 1; i >= 0; i--)
				boff[i] = rest % blk[i], rest /= blk[i];
			for (int64_t l = 0; l < L; l++) {
				int64_t pos = 0, rl = l, inside = 1;
				int64_t lo[XT_MAX_RANK];
				for (int i = r - 1; i >= 0; i--)
					lo[i] = rl % nblk[i], rl /= nblk[i];
				for (int i = 0; i < r && inside; i++) {
					int64_t p = lo[i] * str[i] - pads[i] + boff[i] * dil[i];
					inside = p >= 0 && p < img[i];
					pos = pos * img[i] + p;
				}
				if (inside)
					acc[pos] += xt_get(x, (nc * bprod + b) * L + l);
			}
		}
		for (int64_t p = 0; p < plane; p++)
			xt_set(y, nc * plane + p, acc[p]);
	}
	free(acc);
	return 0;
}

/* ---- DeformConv (opset 19): a 2-D convolution whose taps move by learned offsets (bilinear), scaled by a mask ---- */

/* x's plane (h x w) at the fractional point (py, px): bilinear, what falls outside the plane counting 0 */
static double deform_sample(const struct xtensor *x, int64_t off, int64_t h, int64_t w, double py, double px)
{
	if (py <= -1 || py >= (double)h || px <= -1 || px >= (double)w)
		return 0;
	double fy = floor(py), fx = floor(px), v = 0;
	int64_t y0 = (int64_t)fy, x0 = (int64_t)fx;
	double ly = py - fy, lx = px - fx;
	for (int dy = 0; dy < 2; dy++)
		for (int dx = 0; dx < 2; dx++) {
			int64_t yy = y0 + dy, xx = x0 + dx;
			if (yy < 0 || yy >= h || xx < 0 || xx >= w)
				continue;
			v += (dy ? ly : 1 - ly) * (dx ? lx : 1 - lx) * xt_get(x, off + yy * w + xx);
		}
	return v;
}

static int kernel_deform_conv(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in > 0 ? k->in[0] : NULL, *wt = k->n_in > 1 ? k->in[1] : NULL,
			     *offs = k->n_in > 2 ? k->in[2] : NULL, *bias = k->n_in > 3 ? k->in[3] : NULL,
			     *mask = k->n_in > 4 ? k->in[4] : NULL;
	int64_t dil[2], str[2], pads[4], ks[2], out[4];
	int64_t group = xk_attr_int(k, "group", 1), og = xk_attr_int(k, "offset_group", 1);

	if (!x || !wt || !offs)
		return xk_fail(k, "X, W and offset are required");
	if (x->rank != 4 || wt->rank != 4 || offs->rank != 4)
		return xk_fail(k, "DeformConv runs 2-D (X, W and offset of rank 4)");
	if (bias && !bias->numel)
		bias = NULL;
	if (mask && !mask->numel)
		mask = NULL;
	int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3], M = wt->dims[0];
	if (xk_attr_ints(k, "kernel_shape", ks, 2) != 2)
		ks[0] = wt->dims[2], ks[1] = wt->dims[3];
	if (ints_or(k, "dilations", 2, 1, dil) || ints_or(k, "strides", 2, 1, str) || ints_or(k, "pads", 4, 0, pads))
		return -1;
	if (group <= 0 || og <= 0 || C % group || M % group || C % og || wt->dims[1] != C / group ||
	    ks[0] != wt->dims[2] || ks[1] != wt->dims[3])
		return xk_fail(k, "W is [%lld, %lld, %lld, %lld], which does not fit %lld channels in %lld groups",
			       (long long)M, (long long)wt->dims[1], (long long)wt->dims[2], (long long)wt->dims[3],
			       (long long)C, (long long)group);
	for (int i = 0; i < 2; i++) {
		int64_t room = (i ? W : H) + pads[i] + pads[2 + i] - dil[i] * (ks[i] - 1) - 1;
		if (dil[i] <= 0 || str[i] <= 0 || room < 0)
			return xk_fail(k, "the kernel does not fit the padded input on dim %d", i);
		out[2 + i] = room / str[i] + 1;
	}
	out[0] = N, out[1] = M;
	int64_t OH = out[2], OW = out[3], K = ks[0] * ks[1];
	if (offs->dims[0] != N || offs->dims[1] != og * 2 * K || offs->dims[2] != OH || offs->dims[3] != OW)
		return xk_fail(k, "offset must be [%lld, %lld, %lld, %lld]", (long long)N, (long long)(og * 2 * K),
			       (long long)OH, (long long)OW);
	if (mask && (mask->dims[0] != N || mask->dims[1] != og * K || mask->dims[2] != OH || mask->dims[3] != OW))
		return xk_fail(k, "mask must be [%lld, %lld, %lld, %lld]", (long long)N, (long long)(og * K),
			       (long long)OH, (long long)OW);
	if (bias && bias->numel != M)
		return xk_fail(k, "B has %lld values for %lld output channels", (long long)bias->numel, (long long)M);
	if (xk_output(k, 0, x->dtype, 4, out))
		return -1;
	int64_t cg = C / group, mg = M / group, cog = C / og, plane = OH * OW;
	for (int64_t n = 0; n < N; n++)
		for (int64_t m = 0; m < M; m++)
			for (int64_t oy = 0; oy < OH; oy++)
				for (int64_t ox = 0; ox < OW; ox++) {
					double acc = bias ? xt_get(bias, m) : 0;
					int64_t g = m / mg;
					for (int64_t ci = 0; ci < cg; ci++) {
						int64_t c = g * cg + ci, o = c / cog;
						for (int64_t kk = 0; kk < K; kk++) {
							int64_t ky = kk / ks[1], kx = kk % ks[1], at = oy * OW + ox;
							double dy = xt_get(offs, ((n * og + o) * 2 * K + 2 * kk) * plane + at);
							double dx = xt_get(offs, ((n * og + o) * 2 * K + 2 * kk + 1) * plane + at);
							double py = (double)(oy * str[0] - pads[0] + ky * dil[0]) + dy;
							double px = (double)(ox * str[1] - pads[1] + kx * dil[1]) + dx;
							double v = deform_sample(x, (n * C + c) * H * W, H, W, py, px);
							if (mask)
								v *= xt_get(mask, ((n * og + o) * K + kk) * plane + at);
							acc += v * xt_get(wt, ((m * cg + ci) * ks[0] + ky) * ks[1] + kx);
						}
					}
					xt_set(k->out[0], ((n * M + m) * OH + oy) * OW + ox, acc);
				}
	return 0;
}

const struct exec_kernel cpu_conv_kernels[] = {
	{.op = "Col2Im", .since = 18, .fn = kernel_col2im},
	{.op = "DeformConv", .since = 19, .fn = kernel_deform_conv},
	{.op = "Conv", .since = 1, .fn = kernel_conv},
	{.op = "ConvTranspose", .since = 1, .fn = kernel_conv_transpose},
	{.op = "ConvInteger", .since = 10, .fn = kernel_conv_integer},
	{.op = "QLinearConv", .since = 10, .fn = kernel_qlinear_conv},
};
const size_t cpu_conv_count = sizeof cpu_conv_kernels / sizeof cpu_conv_kernels[0];
