/* CPU pooling: MaxPool (with Indices, storage_order, dilations, ceil_mode), AveragePool (count_include_pad),
 * LpPool, the global pools and MaxUnpool; window geometry from src/exec/ops/ov-window.h.  The float MaxPool
 * without Indices over 1 or 2 spatial dims and the float GlobalAveragePool are vectorised by hand
 * (src/exec/cpu/simd.h); bench/run-pool-dw.sh times them on ResNet-18's and MobileNetV2's shapes. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/cpu/kernels.h"
#include "src/exec/cpu/simd.h"
#include "src/exec/ops/ops.h"
#include "src/exec/exec.h"
#include "src/exec/ops/ov-window.h"

enum pool_kind { POOL_MAX, POOL_AVG, POOL_LP };

struct pool_args {
	enum pool_kind kind;
	int count_include_pad;
	int storage_order;
	double p;            /* LpPool */
};

/* Per spatial dim and output index: the first input coordinate inside the input, the number of taps inside, and
 * the taps inside the padded input (count_include_pad's divisor), computed once (int64 divisions are slow). */
struct pool_tabs {
	int64_t *first[XT_MAX_RANK], *cnt[XT_MAX_RANK], *padded[XT_MAX_RANK];
	int64_t *mem;
};

static int pool_tabs_make(struct pool_tabs *t, const struct ops_window *w)
{
	int64_t total = 0;

	memset(t, 0, sizeof *t);
	for (int i = 0; i < w->n; i++)
		total += w->out[i];
	t->mem = malloc((size_t)(3 * total + 1) * sizeof *t->mem);
	if (!t->mem)
		return -1;
	int64_t *p = t->mem;
	for (int i = 0; i < w->n; i++) {
		t->first[i] = p;
		t->cnt[i] = p + w->out[i];
		t->padded[i] = p + 2 * w->out[i];
		p += 3 * w->out[i];
		for (int64_t o = 0; o < w->out[i]; o++) {
			int64_t t0, t1;
			ov_window_taps(o, w->in[i], w->k[i], w->s[i], w->d[i], w->pb[i], &t0, &t1);
			t->first[i][o] = o * w->s[i] - w->pb[i] + t0 * w->d[i];
			t->cnt[i][o] = t1 - t0;
			t->padded[i][o] = ov_window_padded_taps(o, w->in[i], w->k[i], w->s[i], w->d[i], w->pb[i], w->pe[i]);
		}
	}
	return 0;
}

/* Reduce acc over a window and write the result (the divisor for AVG: taps or padded taps). */
#define POOL_FINISH(T, a, y, acc, taps, padded)                                                                  \
	((a)->kind == POOL_MAX   ? (T)((taps) ? (acc) : 0)                                                       \
	 : (a)->kind == POOL_AVG ? (T)(((a)->count_include_pad ? (padded) : (taps))                              \
					       ? (acc) / (double)((a)->count_include_pad ? (padded) : (taps))    \
					       : 0)                                                              \
				 : (T)((a)->p == 2 ? sqrt(acc) : pow((acc), 1.0 / (a)->p)))

/* Pool every (n, c) plane of x into y (and ind, for MaxPool's Indices, when not NULL).  Two and one spatial
 * dims (as H = 1) run as plain nested loops; more through an odometer. */
#define DEFINE_POOL(T, NAME)                                                                                     \
	static void NAME(const struct pool_args *a, const T *x, T *y, int64_t *ind, int64_t planes,              \
			 const struct ops_window *w, const struct pool_tabs *tb)                                 \
	{                                                                                                        \
		int n = w->n;                                                                                    \
		int64_t st[XT_MAX_RANK], cst[XT_MAX_RANK], s1 = 1, s2 = 1;                                       \
		for (int i = n - 1; i >= 0; i--) {                                                               \
			st[i] = s1;                                                                              \
			s1 *= w->in[i];                                                                          \
		}                                                                                                \
		for (int i = 0; i < n; i++) {                                                                    \
			cst[i] = s2;                                                                             \
			s2 *= w->in[i];                                                                          \
		}                                                                                                \
		if (n <= 2) {                                                                                    \
			int one = n == 1;                                                                        \
			int64_t oh_n = one ? 1 : w->out[0], ow_n = w->out[n - 1], wd = w->in[n - 1];             \
			int64_t dh = one ? 1 : w->d[0], dw = w->d[n - 1];                                        \
			static const int64_t zero1[1] = {0}, one1[1] = {1};                                      \
			const int64_t *fh = one ? zero1 : tb->first[0], *ch = one ? one1 : tb->cnt[0];           \
			const int64_t *ph = one ? one1 : tb->padded[0];                                          \
			const int64_t *fw = tb->first[n - 1], *cw = tb->cnt[n - 1], *pw = tb->padded[n - 1];     \
			int64_t hn = one ? 1 : w->in[0];                                                         \
			for (int64_t pl = 0; pl < planes; pl++) {                                                \
				const T *xp = x + pl * w->in_size;                                               \
				T *yp = y + pl * w->out_size;                                                    \
				if (a->kind == POOL_MAX && !ind) { /* branch-free: the common case */            \
					for (int64_t oh = 0; oh < oh_n; oh++)                                    \
						for (int64_t ow = 0; ow < ow_n; ow++) {                          \
							T m = (T)-INFINITY;                                      \
							for (int64_t kh = 0; kh < ch[oh]; kh++) {                \
								const T *row = xp + (fh[oh] + kh * dh) * wd + fw[ow]; \
								for (int64_t kw = 0; kw < cw[ow]; kw++)          \
									m = row[kw * dw] > m ? row[kw * dw] : m; \
							}                                                        \
							yp[oh * ow_n + ow] = ch[oh] && cw[ow] ? m : (T)0;        \
						}                                                                \
					continue;                                                                \
				}                                                                                \
				for (int64_t oh = 0; oh < oh_n; oh++)                                            \
					for (int64_t ow = 0; ow < ow_n; ow++) {                                  \
						double acc = a->kind == POOL_MAX ? -INFINITY : 0;                \
						int64_t best = -1, bh = 0, bw = 0;                               \
						for (int64_t kh = 0; kh < ch[oh]; kh++) {                        \
							int64_t ih = fh[oh] + kh * dh;                           \
							const T *row = xp + ih * wd + fw[ow];                    \
							for (int64_t kw = 0; kw < cw[ow]; kw++) {                \
								double v = (double)row[kw * dw];                 \
								if (a->kind == POOL_MAX) {                       \
									if (v > acc || best < 0) {               \
										acc = v;                         \
										best = 1;                        \
										bh = ih;                         \
										bw = fw[ow] + kw * dw;           \
									}                                        \
								} else if (a->kind == POOL_AVG) {                \
									acc += v;                                \
								} else {                                         \
									acc += a->p == 2 ? v * v                 \
											 : pow(fabs(v), a->p);   \
								}                                                \
							}                                                        \
						}                                                                \
						int64_t taps = ch[oh] * cw[ow], o = oh * ow_n + ow;              \
						yp[o] = POOL_FINISH(T, a, y, acc, taps, ph[oh] * pw[ow]);        \
						if (ind)                                                         \
							ind[pl * w->out_size + o] =                              \
								best < 0 ? 0                                     \
								: pl * w->in_size +                              \
									  (a->storage_order ? bw * hn + bh       \
											    : bh * wd + bw);     \
					}                                                                        \
			}                                                                                        \
			return;                                                                                  \
		}                                                                                                \
		for (int64_t pl = 0; pl < planes; pl++) {                                                        \
			const T *xp = x + pl * w->in_size;                                                       \
			int64_t oidx[XT_MAX_RANK] = {0};                                                         \
			for (int64_t o = 0; o < w->out_size; o++) {                                              \
				int64_t cnt[XT_MAX_RANK], coord[XT_MAX_RANK], kidx[XT_MAX_RANK];                 \
				int64_t off = 0, taps = 1, padded = 1;                                           \
				for (int i = 0; i < n; i++) {                                                    \
					cnt[i] = tb->cnt[i][oidx[i]];                                            \
					coord[i] = tb->first[i][oidx[i]];                                        \
					taps *= cnt[i];                                                          \
					padded *= tb->padded[i][oidx[i]];                                        \
					off += coord[i] * st[i];                                                 \
					kidx[i] = 0;                                                             \
				}                                                                                \
				double acc = a->kind == POOL_MAX ? -INFINITY : 0;                                \
				int64_t best = -1;                                                               \
				for (int64_t t = 0; t < taps; t++) {                                             \
					double v = (double)xp[off];                                              \
					if (a->kind == POOL_MAX) {                                               \
						if (v > acc || best < 0) {                                       \
							acc = v;                                                 \
							best = off;                                              \
							if (ind && a->storage_order) {                           \
								best = 0;                                        \
								for (int i = 0; i < n; i++)                      \
									best += (coord[i] + kidx[i] * w->d[i]) * \
										cst[i];                          \
							}                                                        \
						}                                                                \
					} else if (a->kind == POOL_AVG) {                                        \
						acc += v;                                                        \
					} else {                                                                 \
						acc += a->p == 2 ? v * v : pow(fabs(v), a->p);                   \
					}                                                                        \
					for (int i = n - 1; i >= 0; i--) {                                       \
						off += w->d[i] * st[i];                                          \
						if (++kidx[i] < cnt[i])                                          \
							break;                                                   \
						off -= w->d[i] * st[i] * cnt[i];                                 \
						kidx[i] = 0;                                                     \
					}                                                                        \
				}                                                                                \
				y[pl * w->out_size + o] = POOL_FINISH(T, a, y, acc, taps, padded);               \
				if (ind)                                                                         \
					ind[pl * w->out_size + o] = best < 0 ? 0 : pl * w->in_size + best;       \
				xt_index_next(oidx, w->out, n); \
			}                                                                                        \
		}                                                                                                \
	}

DEFINE_POOL(float, pool_f)
DEFINE_POOL(double, pool_d)

/* ---- MaxPool in float32 over 1 or 2 spatial dims, without Indices ----------------------------------------------
 * Separable: an output row first takes, column by column, the maximum of its window's rows inside the input, 8
 * columns at a time, into a row buffer padded with -inf on both sides; each output then takes the maximum of its
 * window's columns in that buffer, 8 outputs at a time for strides 1 and 2 (for stride 2 the buffer holds the
 * even columns, then the odd ones, so that every tap is one plain load).  -inf never wins, so the padding needs
 * no bounds check.  The rule is the other paths' and CUDA's (from -inf, v > m takes v: NaN is skipped, a window
 * of NaN alone gives -inf, a window with no tap inside the input 0); only which of two equal maxima +0 and -0 is
 * kept may differ from a row-major walk. */

struct mp2 {
	int64_t wd, oh_n, ow_n, kw, sw, dh, dw, pl;
	const int64_t *fh, *ch, *cw;
	int64_t len;   /* floats of the row buffer (for stride 2: E, then O from half on) */
	int64_t half;
	int empty_w;   /* some output column's window lies wholly in the padding */
	float *row;
};

/* acc = x > acc ? x : acc, lane by lane (compare and blend) */
#define MP_MAX(acc, xv)                                                                                           \
	do {                                                                                                     \
		v8f x_ = (xv);                                                                                   \
		v8i m_ = x_ > (acc);                                                                             \
		(acc) = (v8f)(((v8i)x_ & m_) | ((v8i)(acc) & ~m_));                                              \
	} while (0)

/* The columns' maxima over nr rows (dh * wd apart from r0) of the window, 16 columns at a time, into the row buffer
 * at pl (stride 1) or split into ev and od (stride 2); nr is a constant where inlined. */
static inline __attribute__((always_inline)) void mp_rows(const struct mp2 *g, const float *r0, int64_t wd, float *ev,
							 float *od, const int64_t nr)
{
	const v8f ninf = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
	int64_t step = g->dh * wd;

	for (int64_t j = 0; j < wd; j += 16) {
		v8f a = ninf, b = ninf;
#pragma GCC unroll 4
		for (int64_t kh = 0; kh < nr; kh++) {
			const float *r = r0 + kh * step + j;
			MP_MAX(a, LOAD8(r));
			MP_MAX(b, LOAD8(r + 8));
		}
		if (g->sw == 2) {
			*(v8f_any *)(ev + j / 2) = V8_EVEN(a, b);
			*(v8f_any *)(od + j / 2) = V8_ODD(a, b);
		} else {
			*(v8f_any *)(g->row + g->pl + j) = a;
			*(v8f_any *)(g->row + g->pl + j + 8) = b;
		}
	}
}

/* One plane x (its rows wd apart) into y; avail: the floats of X from x on (rows are read 16 floats at a time, past
 * their end, while that stays inside X). */
NN_CLONES static void maxpool_plane_f(const struct mp2 *g, const float *x, int64_t avail, float *y)
{
	const v8f ninf = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
	int64_t wd = g->wd, ow_n = g->ow_n, pl = g->pl, span = (wd + 15) / 16 * 16;
	float *row = g->row;
	/* stride 2: input column j lands at buffer column pl + j: E[(pl + j) / 2] or O[...] by its parity */
	float *ev = row + (pl & 1 ? g->half : 0) + (pl >> 1), *od = row + (pl & 1 ? 0 : g->half) + ((pl + 1) >> 1);

	for (int64_t oh = 0; oh < g->oh_n; oh++) {
		float *yr = y + oh * ow_n;
		int64_t n_rows = g->ch[oh];
		int64_t first = g->fh[oh] * wd;
		const float *r0 = x + first;
		if (!n_rows) {
			for (int64_t ow = 0; ow < ow_n; ow++)
				yr[ow] = 0.0f;
			continue;
		}
		/* the columns' maxima over the window's rows (unrolled for up to 3 rows) */
		int vec = first + (n_rows - 1) * g->dh * wd + span <= avail;
		int64_t j = 0;
		if (vec && n_rows == 3)
			mp_rows(g, r0, wd, ev, od, 3);
		else if (vec && n_rows == 2)
			mp_rows(g, r0, wd, ev, od, 2);
		else if (vec && n_rows == 1)
			mp_rows(g, r0, wd, ev, od, 1);
		else if (vec)
			mp_rows(g, r0, wd, ev, od, n_rows);
		else
			for (; j < wd; j++) {
				float m = -INFINITY;
				for (int64_t kh = 0; kh < n_rows; kh++) {
					float v = r0[kh * g->dh * wd + j];
					m = v > m ? v : m;
				}
				if (g->sw == 2)
					(j & 1 ? od : ev)[j / 2] = m;
				else
					row[pl + j] = m;
			}
		/* the right padding, over what the 16-wide blocks wrote past the row */
		if (g->sw == 2) {
			for (int64_t i = 0; i < 16; i += 8) {
				*(v8f_any *)(ev + (wd + 1) / 2 + i) = ninf;
				*(v8f_any *)(od + wd / 2 + i) = ninf;
			}
		} else {
			for (int64_t i = 0; i < 16; i += 8)
				*(v8f_any *)(row + pl + wd + i) = ninf;
		}
		/* the outputs: the maximum over the window's columns */
		int64_t kw = g->kw, dw = g->dw, ow = 0;
		if (g->sw == 1 || g->sw == 2) {
			const float *e = row, *o = row + g->half;
			for (;;) {
				int64_t at = ow + 8 <= ow_n ? ow : ow_n >= 8 ? ow_n - 8 : 0;
				v8f m = ninf;
				if (kw == 3 && dw == 1 && g->sw == 2) {
					MP_MAX(m, LOAD8(e + at));
					MP_MAX(m, LOAD8(o + at));
					MP_MAX(m, LOAD8(e + at + 1));
				} else if (kw == 3 && dw == 1) {
					MP_MAX(m, LOAD8(row + at));
					MP_MAX(m, LOAD8(row + at + 1));
					MP_MAX(m, LOAD8(row + at + 2));
				} else {
					for (int64_t k = 0; k < kw; k++) {
						int64_t c = k * dw;
						MP_MAX(m, LOAD8(g->sw == 1 ? row + at + c : (c & 1 ? o : e) + at + c / 2));
					}
				}
				if (at + 8 <= ow_n) {
					*(v8f_any *)(yr + at) = m;
				} else {
					float t[8];
					*(v8f_any *)t = m;
					for (int64_t q = at; q < ow_n; q++)
						yr[q] = t[q - at];
				}
				ow = at + 8;
				if (ow >= ow_n)
					break;
			}
		} else {
			for (; ow < ow_n; ow++) {
				float m = -INFINITY;
				for (int64_t k = 0; k < kw; k++) {
					float v = row[ow * g->sw + k * dw];
					m = v > m ? v : m;
				}
				yr[ow] = m;
			}
		}
		if (g->empty_w)
			for (ow = 0; ow < ow_n; ow++)
				if (!g->cw[ow])
					yr[ow] = 0.0f;
	}
}

/* MaxPool of planes float planes of x into y over the 1-D or 2-D window w (tables tb); 0, or -1 out of memory. */
static int maxpool_f(const float *x, float *y, int64_t planes, const struct ops_window *w, const struct pool_tabs *tb)
{
	static const int64_t zero1[1] = {0}, one1[1] = {1};
	int one = w->n == 1;
	struct mp2 g = {.wd = w->in[w->n - 1], .oh_n = one ? 1 : w->out[0], .ow_n = w->out[w->n - 1],
			.kw = w->k[w->n - 1], .sw = w->s[w->n - 1], .dh = one ? 1 : w->d[0], .dw = w->d[w->n - 1],
			.pl = w->pb[w->n - 1], .fh = one ? zero1 : tb->first[0], .ch = one ? one1 : tb->cnt[0],
			.cw = tb->cnt[w->n - 1]};
	int64_t hn = one ? 1 : w->in[0];

	for (int64_t ow = 0; ow < g.ow_n; ow++)
		g.empty_w |= !g.cw[ow];
	/* every column a tap reads (8 outputs at least, the last block's), and the row written 16 at a time with
	 * 16 of -inf after it */
	int64_t reach = ((g.ow_n > 8 ? g.ow_n : 8) - 1) * g.sw + (g.kw - 1) * g.dw + 1;
	int64_t need = g.pl + (g.wd + 15) / 16 * 16 + 16;
	if (g.sw == 2) {
		g.half = (((reach + 1) / 2 > (need + 1) / 2 ? (reach + 1) / 2 : (need + 1) / 2) + 8 + 7) / 8 * 8;
		g.len = 2 * g.half;
	} else {
		g.len = reach > need ? reach : need;
	}
	g.row = malloc((size_t)g.len * sizeof *g.row);
	if (!g.row)
		return -1;
	for (int64_t i = 0; i < g.len; i++)
		g.row[i] = -INFINITY;
	for (int64_t p = 0; p < planes; p++)
		maxpool_plane_f(&g, x + p * hn * g.wd, (planes - p) * hn * g.wd, y + p * g.oh_n * g.ow_n);
	free(g.row);
	return 0;
}

/* ---- AveragePool in float32 over 1 or 2 spatial dims --------------------------------------------------------------
 * pool_f's arithmetic (and cuda/points.h's cu_pool_point's): each output the double sum of its taps, rows of the
 * window in order and the taps of a row in order, divided in double by the taps (or the padded taps) and rounded
 * once.  The columns whose window lies whole inside the row (the interior) take it a row of outputs at a time: the
 * row's sums in a double buffer, each tap added across the row (the same additions in the same order per output,
 * so the same bits); the columns at the edges one at a time as pool_f does.  pool_f took 7 ns an output (2x2
 * stride 2 over 64 x 80 x 80: 0.71 ms against onnxruntime's 0.079). */

typedef double v4d_p __attribute__((vector_size(32)));
typedef float v4f_p __attribute__((vector_size(16)));

/* acc[j] += x[j * s] (in double) for j < n, 4 at a time (GCC's -O2 leaves a loop of unknown length scalar) */
static inline __attribute__((always_inline)) void avg_add_row(double *restrict acc, const float *restrict x,
							       int64_t n, int64_t s)
{
	int64_t j = 0;

	for (; j + 4 <= n; j += 4) {
		v4f_p f;
		if (s == 1)
			memcpy(&f, x + j, sizeof f);
		else
			f = (v4f_p){x[j * s], x[(j + 1) * s], x[(j + 2) * s], x[(j + 3) * s]};
		v4d_p v;
		memcpy(&v, acc + j, sizeof v);
		v += __builtin_convertvector(f, v4d_p);
		memcpy(acc + j, &v, sizeof v);
	}
	for (; j < n; j++)
		acc[j] += (double)x[j * s];
}

/* y[j] = (float)(acc[j] / div) for j < n, 4 at a time (div > 0) */
static inline __attribute__((always_inline)) void avg_finish_row(float *restrict y, const double *restrict acc,
								  int64_t n, double div)
{
	const v4d_p d = {div, div, div, div};
	int64_t j = 0;

	for (; j + 4 <= n; j += 4) {
		v4d_p v;
		memcpy(&v, acc + j, sizeof v);
		v4f_p f = __builtin_convertvector(v / d, v4f_p);
		memcpy(y + j, &f, sizeof f);
	}
	for (; j < n; j++)
		y[j] = (float)(acc[j] / div);
}

NN_CLONES static void avgpool_planes_f(const struct pool_args *a, const float *x, float *y, int64_t planes,
				       const struct ops_window *w, const struct pool_tabs *tb, double *acc)
{
	static const int64_t zero1[1] = {0}, one1[1] = {1};
	int one = w->n == 1, n = w->n;
	int64_t oh_n = one ? 1 : w->out[0], ow_n = w->out[n - 1], wd = w->in[n - 1], hn = one ? 1 : w->in[0];
	int64_t dh = one ? 1 : w->d[0], dw = w->d[n - 1], sw = w->s[n - 1], kwn = w->k[n - 1];
	const int64_t *fh = one ? zero1 : tb->first[0], *ch = one ? one1 : tb->cnt[0], *ph = one ? one1 : tb->padded[0];
	const int64_t *fw = tb->first[n - 1], *cw = tb->cnt[n - 1], *pw = tb->padded[n - 1];
	/* the interior columns [o0, o1): whole windows, each starting sw after the last, with one divisor */
	int64_t o0 = 0, o1;
	while (o0 < ow_n && cw[o0] != kwn)
		o0++;
	for (o1 = o0; o1 < ow_n && cw[o1] == kwn && fw[o1] == fw[o0] + (o1 - o0) * sw && pw[o1] == pw[o0]; o1++)
		;
	for (int64_t pl = 0; pl < planes; pl++) {
		const float *xp = x + pl * hn * wd;
		float *yp = y + pl * oh_n * ow_n;
		for (int64_t oh = 0; oh < oh_n; oh++) {
			float *yr = yp + oh * ow_n;
			for (int64_t ow = 0; ow < ow_n; ow++) {
				if (ow == o0 && o1 > o0) {
					memset(acc + o0, 0, (size_t)(o1 - o0) * sizeof *acc);
					for (int64_t kh = 0; kh < ch[oh]; kh++) {
						const float *row = xp + (fh[oh] + kh * dh) * wd + fw[o0];
						for (int64_t kw = 0; kw < kwn; kw++)
							avg_add_row(acc + o0, row + kw * dw, o1 - o0, sw);
					}
					int64_t div = a->count_include_pad ? ph[oh] * pw[o0] : ch[oh] * kwn;
					if (div)
						avg_finish_row(yr + o0, acc + o0, o1 - o0, (double)div);
					else
						memset(yr + o0, 0, (size_t)(o1 - o0) * sizeof *yr);
					ow = o1 - 1;
					continue;
				}
				double s = 0;
				for (int64_t kh = 0; kh < ch[oh]; kh++) {
					const float *row = xp + (fh[oh] + kh * dh) * wd + fw[ow];
					for (int64_t kw = 0; kw < cw[ow]; kw++)
						s += (double)row[kw * dw];
				}
				int64_t taps = ch[oh] * cw[ow], padded = ph[oh] * pw[ow];
				yr[ow] = POOL_FINISH(float, a, y, s, taps, padded);
			}
		}
	}
}

static int pool_run(struct exec_kernel_ctx *k, enum pool_kind kind)
{
	const struct xtensor *x = k->in[0];
	struct pool_args a = {.kind = kind};
	struct ops_window w;
	int64_t out[XT_MAX_RANK];

	int ceil_mode = xk_attr_int(k, "ceil_mode", 0) != 0;
	if (ops_window_read(k, x, NULL, ceil_mode, 0, &w))
		return -1;
	a.count_include_pad = xk_attr_int(k, "count_include_pad", 0) != 0;
	a.storage_order = xk_attr_int(k, "storage_order", 0) != 0;
	a.p = ops_pool_lp_p(k);
	if (kind == POOL_LP && !(a.p > 0))
		return xk_fail(k, "p = %g must be positive", a.p);
	out[0] = x->dims[0];
	out[1] = x->dims[1];
	for (int i = 0; i < w.n; i++)
		out[2 + i] = w.out[i];
	int32_t dt = x->dtype;
	int as_float = dt == OV_DT_INT8 || dt == OV_DT_UINT8;
	struct xtensor xf = {0}, yf = {0};
	if (xk_output_raw(k, 0, dt, x->rank, out)) /* every path writes every output */
		return -1;
	int64_t *ind = NULL;
	if (kind == POOL_MAX && k->n_out > 1) {
		if (xk_output(k, 1, OV_DT_INT64, x->rank, out))
			return -1;
		ind = k->out[1]->data;
	}
	int64_t planes = x->dims[0] * x->dims[1];
	struct pool_tabs tb;
	if (pool_tabs_make(&tb, &w))
		return xk_fail(k, "out of memory");
	if (as_float) {
		if (xt_alloc(&xf, OV_DT_FLOAT, x->rank, x->dims, k->err) ||
		    xt_alloc(&yf, OV_DT_FLOAT, x->rank, out, k->err)) {
			xt_free(&xf);
			free(tb.mem);
			return -1;
		}
		for (int64_t i = 0; i < x->numel; i++)
			((float *)xf.data)[i] = (float)xt_get(x, i);
		pool_f(&a, xf.data, yf.data, ind, planes, &w, &tb);
		for (int64_t i = 0; i < yf.numel; i++)
			xt_set(k->out[0], i, ((float *)yf.data)[i]);
		xt_free(&xf);
		xt_free(&yf);
	} else if (dt == OV_DT_FLOAT && kind == POOL_AVG && w.n <= 2) {
		double *acc = malloc((size_t)(w.out[w.n - 1] ? w.out[w.n - 1] : 1) * sizeof *acc);
		if (!acc) {
			free(tb.mem);
			return xk_fail(k, "out of memory");
		}
		avgpool_planes_f(&a, x->data, k->out[0]->data, planes, &w, &tb, acc);
		free(acc);
	} else if (dt == OV_DT_FLOAT && kind == POOL_MAX && !ind && w.n <= 2) {
		if (maxpool_f(x->data, k->out[0]->data, planes, &w, &tb)) {
			free(tb.mem);
			return xk_fail(k, "out of memory");
		}
	} else if (dt == OV_DT_FLOAT) {
		pool_f(&a, x->data, k->out[0]->data, ind, planes, &w, &tb);
	} else {
		pool_d(&a, x->data, k->out[0]->data, ind, planes, &w, &tb);
	}
	free(tb.mem);
	return 0;
}

static int max_pool_f(struct exec_kernel_ctx *k)
{
	return pool_run(k, POOL_MAX);
}

static int avg_pool_f(struct exec_kernel_ctx *k)
{
	return pool_run(k, POOL_AVG);
}

static int lp_pool_f(struct exec_kernel_ctx *k)
{
	return pool_run(k, POOL_LP);
}

static int pool_dispatch(struct exec_kernel_ctx *k, exec_kernel_fn fn, int ints_ok)
{
	const struct xtensor *x = k->in[0];

	if (!x)
		return xk_fail(k, "X is required");
	if (x->dtype == OV_DT_FLOAT || x->dtype == OV_DT_DOUBLE ||
	    (ints_ok && (x->dtype == OV_DT_INT8 || x->dtype == OV_DT_UINT8)))
		return fn(k);
	if (cpu_is_half(x->dtype))
		return cpu_via_f32(k, fn, 0);
	return xk_fail(k, "pooling on %s is not supported", dtype_short_name(x->dtype));
}

static int kernel_max_pool(struct exec_kernel_ctx *k)
{
	return pool_dispatch(k, max_pool_f, 1);
}

static int kernel_average_pool(struct exec_kernel_ctx *k)
{
	return pool_dispatch(k, avg_pool_f, 0);
}

static int kernel_lp_pool(struct exec_kernel_ctx *k)
{
	return pool_dispatch(k, lp_pool_f, 0);
}

/* ---- global pools -------------------------------------------------------------------------------------------- */

/* The sum of x[0..n) in double, 8 floats at a time into two vectors of 4 doubles (GlobalAveragePool: another
 * order than one by one, in double; the float it rounds to seldom differs). */
typedef double v4d __attribute__((vector_size(32)));
typedef float v4f_any __attribute__((vector_size(16), aligned(4), may_alias));

NN_CLONES static double sum_f(const float *x, int64_t n)
{
	v4d a = {0}, b = {0};
	int64_t i = 0;

	for (; i + 8 <= n; i += 8) {
		a += __builtin_convertvector(*(const v4f_any *)(x + i), v4d);
		b += __builtin_convertvector(*(const v4f_any *)(x + i + 4), v4d);
	}
	a += b;
	double s = (a[0] + a[1]) + (a[2] + a[3]);
	for (; i < n; i++)
		s += x[i];
	return s;
}

/* The maximum of x[0..n) as the loop m = x[i] > m ? x[i] : m from m = x[0] finds it (a NaN first stays, later ones
 * are passed over, the first of equal values wins), 8 lanes at a time: lanes start at x[0], so they pass over NaN
 * alike, and their fold finds the same value; only the sign of a zero maximum can depend on the order, so a zero
 * is looked for again one by one (the tail goes one by one after the lanes, in order, either way). */
NN_CLONES static float max_f(const float *x, int64_t n)
{
	float m = n ? x[0] : 0;
	int64_t i = 1;

	if (n >= 16 && m == m) {
		float l[8];
		for (int q = 0; q < 8; q++)
			l[q] = m;
		for (i = 0; i + 8 <= n; i += 8)
			for (int q = 0; q < 8; q++)
				l[q] = x[i + q] > l[q] ? x[i + q] : l[q];
		for (int q = 0; q < 8; q++)
			m = l[q] > m ? l[q] : m;
		if (m == 0.0f) {
			m = x[0];
			i = 1;
		}
	}
	for (; i < n; i++)
		m = x[i] > m ? x[i] : m;
	return m;
}

static int global_pool(struct exec_kernel_ctx *k, enum pool_kind kind)
{
	const struct xtensor *x = k->in[0];
	int64_t out[XT_MAX_RANK];

	if (x->rank < 2)
		return xk_fail(k, "input has rank %d; a global pool needs (N, C, ...)", x->rank);
	double p = ops_pool_lp_p(k);
	if (kind == POOL_LP && !(p > 0))
		return xk_fail(k, "p = %g must be positive", p);
	int64_t planes = x->dims[0] * x->dims[1], sp = 1;
	for (int i = 0; i < x->rank; i++) {
		out[i] = i < 2 ? x->dims[i] : 1;
		if (i >= 2)
			sp *= x->dims[i];
	}
	if (xk_output(k, 0, x->dtype, x->rank, out))
		return -1;
	for (int64_t pl = 0; pl < planes; pl++) {
		double acc = kind == POOL_MAX ? -INFINITY : 0;
		if (x->dtype == OV_DT_FLOAT && kind == POOL_AVG) {
			acc = sum_f(((const float *)x->data + pl * sp), sp);
		} else if (x->dtype == OV_DT_FLOAT) {
			const float *xp = (const float *)x->data + pl * sp;
			if (kind == POOL_MAX) {
				acc = max_f(xp, sp);
			} else if (kind == POOL_AVG) {
				for (int64_t i = 0; i < sp; i++)
					acc += xp[i];
			} else {
				for (int64_t i = 0; i < sp; i++)
					acc += pow(fabs(xp[i]), p);
			}
		} else {
			const double *xp = (const double *)x->data + pl * sp;
			for (int64_t i = 0; i < sp; i++)
				acc = kind == POOL_MAX ? (xp[i] > acc ? xp[i] : acc)
				      : kind == POOL_AVG ? acc + xp[i] : acc + pow(fabs(xp[i]), p);
		}
		if (kind == POOL_AVG)
			acc = sp ? acc / (double)sp : 0;
		else if (kind == POOL_LP)
			acc = pow(acc, 1.0 / p);
		else if (!sp)
			acc = 0;
		if (x->dtype == OV_DT_FLOAT)
			((float *)k->out[0]->data)[pl] = (float)acc;
		else
			((double *)k->out[0]->data)[pl] = acc;
	}
	return 0;
}

static int gmax_f(struct exec_kernel_ctx *k)
{
	return global_pool(k, POOL_MAX);
}

static int gavg_f(struct exec_kernel_ctx *k)
{
	return global_pool(k, POOL_AVG);
}

static int glp_f(struct exec_kernel_ctx *k)
{
	return global_pool(k, POOL_LP);
}

static int kernel_global_max_pool(struct exec_kernel_ctx *k)
{
	return pool_dispatch(k, gmax_f, 0);
}

static int kernel_global_average_pool(struct exec_kernel_ctx *k)
{
	return pool_dispatch(k, gavg_f, 0);
}

static int kernel_global_lp_pool(struct exec_kernel_ctx *k)
{
	return pool_dispatch(k, glp_f, 0);
}

/* ---- MaxUnpool ------------------------------------------------------------------------------------------------- */

static int kernel_max_unpool(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->in[0], *ind = k->n_in > 1 ? k->in[1] : NULL;
	const struct xtensor *oshape = k->n_in > 2 ? k->in[2] : NULL;
	struct ops_window w;
	int64_t out[XT_MAX_RANK];

	if (!x || !ind)
		return xk_fail(k, "X and I are required");
	if (ind->numel != x->numel)
		return xk_fail(k, "I has %lld values for %lld in X", (long long)ind->numel, (long long)x->numel);
	if (ops_window_read(k, x, NULL, 0, 1, &w))
		return -1;
	out[0] = x->dims[0];
	out[1] = x->dims[1];
	for (int i = 0; i < w.n; i++) {
		if (w.in[i] > (1ll << 40) / w.s[i])
			return xk_fail(k, "stride %lld is out of range", (long long)w.s[i]);
		out[2 + i] = (w.in[i] - 1) * w.s[i] + w.k[i] - w.pb[i] - w.pe[i];
		if (out[2 + i] < 0)
			return xk_fail(k, "output size on spatial dim %d is negative", i);
	}
	/* Indices count in the shape MaxPool's input had (the shape without output_shape, def); output_shape can
	 * make Y larger, each value keeping its coordinates */
	int64_t def[XT_MAX_RANK];
	memcpy(def, out, (size_t)x->rank * sizeof def[0]);
	if (oshape) {
		if (oshape->numel != x->rank)
			return xk_fail(k, "output_shape has %lld values for rank %d", (long long)oshape->numel, x->rank);
		for (int i = 0; i < x->rank; i++) {
			out[i] = xt_get_int(oshape, i);
			if (out[i] < def[i] || out[i] > (1ll << 40))
				return xk_fail(k, "output_shape's dim %d (%lld) is smaller than the unpooled %lld", i,
					       (long long)out[i], (long long)def[i]);
		}
	}
	if (xk_output(k, 0, x->dtype, x->rank, out))
		return -1;
	struct xtensor *y = k->out[0];
	size_t es = xt_elem_size(x->dtype);
	if (!es || x->dtype == OV_DT_STRING)
		return xk_fail(k, "MaxUnpool on %s is not supported", dtype_short_name(x->dtype));
	/* Indices address the pooled tensor's input, of the same size per plane as Y unless output_shape says
	 * otherwise; they are used as flat indices into Y */
	struct ov_unpool_map um;
	ov_unpool_setup(&um, x->rank, def, out, oshape != NULL);
	for (int64_t i = 0; i < x->numel; i++) {
		int64_t at = ov_unpool_target(&um, xt_get_int(ind, i));
		if (at < 0)
			return xk_fail(k, "index %lld at %lld is outside %s (%lld values)", (long long)xt_get_int(ind, i),
				       (long long)i, um.remap ? "the unpooled shape" : "Y",
				       (long long)(um.remap ? um.def_numel : um.out_numel));
		memcpy((char *)y->data + (size_t)at * es, (const char *)x->data + (size_t)i * es, es);
	}
	return 0;
}

const struct exec_kernel cpu_pool_kernels[] = {
	{.op = "MaxPool", .since = 1, .fn = kernel_max_pool},
	{.op = "AveragePool", .since = 1, .fn = kernel_average_pool},
	{.op = "LpPool", .since = 1, .fn = kernel_lp_pool},
	{.op = "GlobalMaxPool", .since = 1, .fn = kernel_global_max_pool},
	{.op = "GlobalAveragePool", .since = 1, .fn = kernel_global_average_pool},
	{.op = "GlobalLpPool", .since = 1, .fn = kernel_global_lp_pool},
	{.op = "MaxUnpool", .since = 9, .fn = kernel_max_unpool},
};
const size_t cpu_pool_count = sizeof cpu_pool_kernels / sizeof cpu_pool_kernels[0];
