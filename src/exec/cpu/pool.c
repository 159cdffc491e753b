/* CPU pooling: MaxPool (with Indices, storage_order, dilations, ceil_mode), AveragePool (count_include_pad),
 * LpPool, the global pools and MaxUnpool; window geometry from src/exec/ops/ov-window.h. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/cpu/kernels.h"
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
	if (xk_output(k, 0, dt, x->rank, out))
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
		if (x->dtype == OV_DT_FLOAT) {
			const float *xp = (const float *)x->data + pl * sp;
			if (kind == POOL_MAX) {
				float m = sp ? xp[0] : 0;
				for (int64_t i = 1; i < sp; i++)
					m = xp[i] > m ? xp[i] : m;
				acc = m;
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
