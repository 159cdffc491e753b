/* CPU normalisations: BatchNormalization (inference, and training_mode's batch statistics),
 * InstanceNormalization, LayerNormalization (with Mean and InvStdDev), GroupNormalization (opset 18's per-group
 * and opset 21's per-channel scale), LRN, and Softmax/LogSoftmax/Hardmax (2-D coercion before opset 13, one axis
 * from 13).  Statistics accumulate in double; float tensors are read and written as float. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/cpu/kernels.h"
#include "src/exec/cpu/lanesum.h"
#include "src/exec/cpu/vmath.h"
#include "src/exec/ops/ops.h"
#include "src/exec/ops/ov-math.h"
#include "src/exec/exec.h"

/* Element i of a float or double tensor's data. */
#define GETF(dt, p, i) ((dt) == OV_DT_FLOAT ? (double)((const float *)(p))[i] : ((const double *)(p))[i])
#define SETF(dt, p, i, v)                                                                                        \
	do {                                                                                                     \
		if ((dt) == OV_DT_FLOAT)                                                                         \
			((float *)(p))[i] = (float)(v);                                                          \
		else                                                                                             \
			((double *)(p))[i] = (v);                                                                \
	} while (0)

static int norm_axis(struct exec_kernel_ctx *k, int64_t axis, int rank, int allow_rank)
{
	int64_t r = rank;
	if (axis < -r || axis > (allow_rank ? r : r - 1))
		return xk_fail(k, "axis %lld is out of range for rank %d", (long long)axis, rank);
	return (int)(axis < 0 ? axis + r : axis);
}

/* A per-channel (or per-element) parameter vector as doubles: n values, or 1 broadcast. */
static double *param(struct exec_kernel_ctx *k, const struct xtensor *t, int64_t n, const char *name)
{
	if (!t) {
		xk_fail(k, "%s is required", name);
		return NULL;
	}
	if (t->numel != n && t->numel != 1) {
		xk_fail(k, "%s has %lld values; %lld expected", name, (long long)t->numel, (long long)n);
		return NULL;
	}
	double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
	if (!v) {
		xk_fail(k, "out of memory");
		return NULL;
	}
	for (int64_t i = 0; i < n; i++)
		v[i] = xt_get(t, t->numel == 1 ? 0 : i);
	return v;
}

/* ---- BatchNormalization --------------------------------------------------------------------------------------- */

/* y[j] = x[j] * a + b for j < n, 8 at a time (a multiply then an add, as the scalar expression: the same bits; -O2
 * left the loop scalar, 1 ns an element, as x and y may overlap) */
VM_CLONES static void affine_f(const float *x, float *y, int64_t n, float a, float b)
{
	const v8f av = {a, a, a, a, a, a, a, a}, bv = {b, b, b, b, b, b, b, b};
	int64_t j = 0;

	for (; j + 8 <= n; j += 8)
		STORE8(y + j, LOAD8(x + j) * av + bv);
	for (; j < n; j++)
		y[j] = x[j] * a + b;
}

/* The scale and shift of one channel, y = x * a + b (in double; the float32 path rounds them) */
static void bn_coef(double sc, double bi, double mean, double var, double eps, double *a, double *b)
{
	*a = sc / sqrt(var + eps);
	*b = bi - mean * *a;
}

/* One channel's inner values in place, as the kernel below writes them (in float 8 at a time, or one in double),
 * then what follows the node, in the same pass */
static void bn_plane_f(float *y, int64_t inner, double a, double b, const struct exec_bn_offer *bn)
{
	const float ab[2] = {(float)a, (float)b};

	if (inner > 1) {
		cpu_bn_then_f(y, inner, ab, bn);
	} else if (inner == 1) {
		y[0] = (float)(y[0] * a + b);
		cpu_bn_then_f(y, 1, NULL, bn);
	}
}

/* The largest planes cpu_bn_planes_f takes (larger: a call per plane costs nothing beside its values) */
#define BN_PLANES_MAX 1024

int cpu_bn_apply_f(float *y, int64_t nb, int64_t c, int64_t inner, const struct exec_bn_offer *bn)
{
	const struct xtensor *p[4] = {bn->scale, bn->b, bn->mean, bn->var};

	for (int i = 0; i < 4; i++)
		if (!p[i] || p[i]->dtype != OV_DT_FLOAT || p[i]->numel != c || !p[i]->data)
			return 1;
	const float *sc = bn->scale->data, *bi = bn->b->data, *mean = bn->mean->data, *var = bn->var->data;
	/* small planes (from 8 values: 7x7, 14x14): every plane in one call, each channel's {a, b} rounded as
	 * bn_plane_f rounds them */
	float *ab = inner >= 8 && inner <= BN_PLANES_MAX ? malloc((size_t)c * 2 * sizeof *ab) : NULL;
	if (ab) {
		for (int64_t ch = 0; ch < c; ch++) {
			double a, b;
			bn_coef(sc[ch], bi[ch], mean[ch], var[ch], bn->eps, &a, &b);
			ab[2 * ch] = (float)a;
			ab[2 * ch + 1] = (float)b;
		}
		cpu_bn_planes_f(y, nb * c, c, inner, ab, bn);
		free(ab);
		return 0;
	}
	for (int64_t ch = 0; ch < c; ch++) {
		double a, b;
		bn_coef(sc[ch], bi[ch], mean[ch], var[ch], bn->eps, &a, &b);
		for (int64_t n = 0; n < nb; n++)
			bn_plane_f(y + (n * c + ch) * inner, inner, a, b, bn);
	}
	return 0;
}

static int batchnorm_f(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->in[0];
	double eps = xk_attr_float(k, "epsilon", 1e-5f), mom = xk_attr_float(k, "momentum", 0.9f);
	int training = k->opset >= 14 && xk_attr_int(k, "training_mode", 0) != 0;
	double *sc = NULL, *bi = NULL, *mean = NULL, *var = NULL, *bm = NULL, *bv = NULL;
	int rc = -1;

	if (x->rank < 1)
		return xk_fail(k, "X must have at least rank 1");
	for (size_t i = 1; i < 5; i++)
		if (i >= k->n_in || !k->in[i])
			return xk_fail(k, "BatchNormalization needs X, scale, B, input_mean and input_var");
	int64_t nb = x->rank >= 2 ? x->dims[0] : 1, c = x->rank >= 2 ? x->dims[1] : x->dims[0], inner = 1;
	for (int i = 2; i < x->rank; i++)
		inner *= x->dims[i];
	/* spatial = 0 (before opset 9): the parameters are per element of (C, D1, ...) */
	int64_t pn = k->in[1]->numel == c * inner && inner > 1 && !training ? c * inner : c;
	int64_t pinner = pn == c ? inner : 1;
	if (!(sc = param(k, k->in[1], pn, "scale")) || !(bi = param(k, k->in[2], pn, "B")) ||
	    !(mean = param(k, k->in[3], pn, "input_mean")) || !(var = param(k, k->in[4], pn, "input_var")))
		goto out;
	int32_t dt = x->dtype;
	const void *xd;
	if (!training && dt == OV_DT_FLOAT && xk_take_input_over(k, 0, 0)) {
		xd = k->out[0]->data; /* the node is X's last reader: each value is overwritten by its own result */
	} else {
		if (xk_output(k, 0, x->dtype, x->rank, x->dims))
			goto out;
		xd = x->data;
	}
	void *yd = k->out[0]->data;
	if (training) {
		bm = calloc((size_t)c + 1, sizeof *bm);
		bv = calloc((size_t)c + 1, sizeof *bv);
		if (!bm || !bv) {
			rc = xk_fail(k, "out of memory");
			goto out;
		}
		double cnt = (double)(nb * inner);
		for (int64_t ch = 0; ch < c; ch++) {
			double s = 0, s2 = 0;
			for (int64_t n = 0; n < nb; n++)
				for (int64_t i = 0; i < inner; i++)
					s += GETF(dt, xd, (n * c + ch) * inner + i);
			double m = cnt ? s / cnt : 0;
			for (int64_t n = 0; n < nb; n++)
				for (int64_t i = 0; i < inner; i++) {
					double d = GETF(dt, xd, (n * c + ch) * inner + i) - m;
					s2 += d * d;
				}
			bm[ch] = m;
			bv[ch] = cnt ? s2 / cnt : 0;
		}
	}
	for (int64_t n = 0; n < nb; n++)
		for (int64_t ch = 0; ch < c; ch++) {
			for (int64_t i = 0; i < inner; i++) {
				int64_t p = pn == c ? ch : ch * inner + i;
				double m = training ? bm[ch] : mean[p], v = training ? bv[ch] : var[p];
				double a, b;
				bn_coef(sc[p], bi[p], m, v, eps, &a, &b);
				int64_t at = (n * c + ch) * inner + i;
				if (dt == OV_DT_FLOAT) {
					/* the common case: one scale and shift per channel, in float */
					if (pinner > 1) {
						affine_f((const float *)xd + at, (float *)yd + at, inner, (float)a, (float)b);
						break;
					}
					((float *)yd)[at] = (float)(((const float *)xd)[at] * a + b);
				} else {
					((double *)yd)[at] = ((const double *)xd)[at] * a + b;
				}
			}
		}
	/* extra outputs: running mean/var (opset 14+ training), or the statistics used */
	for (size_t o = 1; o < k->n_out && o < 5; o++) {
		int64_t dims[1] = {c};
		const struct xtensor *like = k->in[o == 2 || o == 4 ? 4 : 3];
		if (xk_output(k, o, like->dtype, 1, dims))
			goto out;
		for (int64_t ch = 0; ch < c; ch++) {
			double v;
			if (training)
				v = o == 1 ? mean[ch] * mom + bm[ch] * (1 - mom) : var[ch] * mom + bv[ch] * (1 - mom);
			else
				v = o == 1 || o == 3 ? mean[pn == c ? ch : ch * inner] : var[pn == c ? ch : ch * inner];
			xt_set(k->out[o], ch, v);
		}
	}
	rc = 0;
out:
	free(sc);
	free(bi);
	free(mean);
	free(var);
	free(bm);
	free(bv);
	return rc;
}

static int kernel_batchnorm(struct exec_kernel_ctx *k)
{
	return cpu_float_dispatch(k, batchnorm_f, 0, "BatchNormalization");
}

/* ---- InstanceNormalization, GroupNormalization ----------------------------------------------------------------- */

/* Normalise groups of gsize contiguous values (n * groups of them), then y = yhat * scale[ch] + bias[ch] where
 * ch = the channel (channels of inner values each).  The statistics in ops/ov-math.h's 16 lanes (ov_norm_stats16;
 * for float32 lanesum.h's vectors, the same bits), as cuda/norm.cu computes them. */
/* The float32 groups of group_norm: the sums in the caller's target (lanesum.h is inlined: AVX2 in the x86-64-v3
 * clone; the function had none, so they ran in SSE2), each channel's run through affine_f (8 at a time, a multiply
 * then an add: the loop's bits).  InstanceNormalization over 64 x 80 x 80 took 0.44 ms, 3.5 times onnxruntime. */
VM_CLONES static void group_norm_f(const float *xd, float *yd, int64_t ngroups, int64_t gsize, int64_t inner,
				   int64_t c, const double *scale, const double *bias, double eps, int per_group,
				   int64_t groups)
{
	for (int64_t g = 0; g < ngroups; g++) {
		int64_t base = g * gsize;
		const float *xp = xd + base;
		double m = ov_norm_mean(cpu_sum16_f(xp, gsize), gsize);
		double inv = ov_norm_inv(cpu_sumsq16_f(xp, gsize, m), gsize, eps);
		for (int64_t i = 0; i < gsize; i += inner) {
			int64_t ch = (base + i) / inner % c;
			int64_t pi = per_group ? g % groups : ch;
			float a = (float)(inv * scale[pi]), b = (float)(bias[pi] - m * inv * scale[pi]);
			affine_f(xp + i, yd + base + i, inner, a, b);
		}
	}
}

static void group_norm(int32_t dt, const void *xd, void *yd, int64_t ngroups, int64_t gsize, int64_t inner,
		       int64_t c, const double *scale, const double *bias, double eps, int per_group, int64_t groups)
{
	if (dt == OV_DT_FLOAT) {
		group_norm_f(xd, yd, ngroups, gsize, inner, c, scale, bias, eps, per_group, groups);
		return;
	}
	for (int64_t g = 0; g < ngroups; g++) {
		int64_t base = g * gsize;
		const double *xp = (const double *)xd + base;
		double m, inv;
		ov_norm_stats16(xd, OV_DT_DOUBLE, base, gsize, eps, &m, &inv);
		for (int64_t i = 0; i < gsize; i++) {
			int64_t ch = (base + i) / inner % c;
			int64_t pi = per_group ? g % groups : ch;
			((double *)yd)[base + i] = (xp[i] - m) * inv * scale[pi] + bias[pi];
		}
	}
}

static int instancenorm_f(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->in[0];
	double eps = xk_attr_float(k, "epsilon", 1e-5f);

	if (x->rank < 3)
		return xk_fail(k, "X must be (N, C, D1, ...), got rank %d", x->rank);
	int64_t c = x->dims[1], inner = 1;
	for (int i = 2; i < x->rank; i++)
		inner *= x->dims[i];
	double *sc = param(k, k->n_in > 1 ? k->in[1] : NULL, c, "scale"), *bi = NULL;
	int rc = -1;
	if (sc && (bi = param(k, k->n_in > 2 ? k->in[2] : NULL, c, "B")) &&
	    !xk_output(k, 0, x->dtype, x->rank, x->dims)) {
		group_norm(x->dtype, x->data, k->out[0]->data, x->dims[0] * c, inner, inner, c, sc, bi, eps, 0, 1);
		rc = 0;
	}
	free(sc);
	free(bi);
	return rc;
}

static int kernel_instancenorm(struct exec_kernel_ctx *k)
{
	return cpu_float_dispatch(k, instancenorm_f, 0, "InstanceNormalization");
}

static int groupnorm_f(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->in[0], *s = k->n_in > 1 ? k->in[1] : NULL, *b = k->n_in > 2 ? k->in[2] : NULL;
	double eps = xk_attr_float(k, "epsilon", 1e-5f);
	int64_t groups = xk_attr_int(k, "num_groups", -1);

	if (x->rank < 2)
		return xk_fail(k, "X must be (N, C, ...), got rank %d", x->rank);
	int64_t c = x->dims[1], inner = 1;
	for (int i = 2; i < x->rank; i++)
		inner *= x->dims[i];
	if (groups <= 0 || c % groups)
		return xk_fail(k, "num_groups %lld must be positive and divide the %lld channels", (long long)groups,
			       (long long)c);
	if (!s || !b)
		return xk_fail(k, "scale and bias are required");
	/* opset 18: one scale per group; opset 21: one per channel (the same thing when groups == C) */
	int per_group = k->opset < 21 && s->numel == groups;
	int64_t pn = per_group ? groups : c;
	double *sc = param(k, s, pn, "scale"), *bi = NULL;
	int rc = -1;
	if (sc && (bi = param(k, b, pn, "bias")) && !xk_output(k, 0, x->dtype, x->rank, x->dims)) {
		group_norm(x->dtype, x->data, k->out[0]->data, x->dims[0] * groups, c / groups * inner, inner, c, sc,
			   bi, eps, per_group, groups);
		rc = 0;
	}
	free(sc);
	free(bi);
	return rc;
}

static int kernel_groupnorm(struct exec_kernel_ctx *k)
{
	return cpu_float_dispatch(k, groupnorm_f, 0, "GroupNormalization");
}

/* ---- LayerNormalization ---------------------------------------------------------------------------------------- */

/* ---- float32 rows, vectorised ------------------------------------------------------------------------------------
 * Softmax and LogSoftmax over a contiguous float32 axis, and LayerNormalization of float32 over contiguous rows
 * with Scale and B laid out as the row: blocks of 8 that GCC vectorises (in the x86-64-v3 clone with AVX2; no
 * contraction of the float operations, so both clones give the same bits), in the arithmetic the CUDA kernels
 * share (cuda/points.h, ops/ov-math.h): Softmax's denominator in ov_sum16_f's order, LayerNormalization's
 * statistics in the same 16 lanes (ov_norm_stats16, with lanesum.h's vectors). */

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define ROW_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define ROW_CLONES
#endif

typedef double v4d_n __attribute__((vector_size(32)));
typedef float v4f_n __attribute__((vector_size(16), aligned(4), may_alias));

/* y = exp(x - mx), ov_exp_f's bits: x - mx <= 0 (or NaN), so vmath.h's vm_exp_nonpos_n, two vectors at a time,
 * the last few through a buffer (-O2 had left ov_exp_f's loop one element at a time: Softmax over attention's
 * rows of 197 took 2.7 times onnxruntime's time) */
static inline __attribute__((always_inline)) void exp_shifted(const float *restrict x, float *restrict y, int64_t n,
							      float mx)
{
	const v8f m = vm_splat(mx);
	int64_t j = 0;

	for (; j + 16 <= n; j += 16) {
		v8f a[2] = {LOAD8(x + j) - m, LOAD8(x + j + 8) - m}, e[2];
		vm_exp_nonpos_n(a, e, 2);
		STORE8(y + j, e[0]);
		STORE8(y + j + 8, e[1]);
	}
	for (; j < n; j += 8) {
		float t[8] = {0};
		size_t r = (size_t)(n - j < 8 ? n - j : 8);
		memcpy(t, x + j, r * sizeof *t);
		v8f a = LOAD8(t) - m, e;
		vm_exp_nonpos_n(&a, &e, 1); /* the lanes past n (0 - mx, maybe above 0) are not stored */
		memcpy(y + j, &e, r * sizeof *y);
	}
}

/* Softmax (logsm 0) or LogSoftmax (logsm 1) of rows of len, as cu_softmax_row: max, e = exp(x - max) (ov_exp_f,
 * within 1 ulp), their double sum (ov_sum16_f), then e * (float)(1 / sum), or x - max - (float)log(sum). */
ROW_CLONES static void softmax_rows_f(const float *x, float *y, int64_t rows, int64_t len, int logsm)
{
	for (int64_t r = 0; r < rows; r++) {
		const float *xp = x + r * len;
		float *yp = y + r * len, mx = -INFINITY, m8[8];
		int64_t j = 0;
		for (int q = 0; q < 8; q++)
			m8[q] = -INFINITY;
		for (; j + 8 <= len; j += 8)
			for (int q = 0; q < 8; q++)
				m8[q] = xp[j + q] > m8[q] ? xp[j + q] : m8[q];
		for (; j < len; j++)
			mx = xp[j] > mx ? xp[j] : mx;
		for (int q = 0; q < 8; q++)
			mx = m8[q] > mx ? m8[q] : mx;
		/* e into y (for LogSoftmax too: y is overwritten after) */
		exp_shifted(xp, yp, len, mx);
		double sum = cpu_sum16_f(yp, len);
		if (!logsm) {
			float inv = (float)(1 / sum);
			for (j = 0; j + 8 <= len; j += 8)
				for (int q = 0; q < 8; q++)
					yp[j + q] *= inv;
			for (; j < len; j++)
				yp[j] *= inv;
		} else {
			float ls = (float)log(sum);
			for (j = 0; j + 8 <= len; j += 8)
				for (int q = 0; q < 8; q++)
					yp[j + q] = xp[j + q] - mx - ls;
			for (; j < len; j++)
				yp[j] = xp[j] - mx - ls;
		}
	}
}

/* Softmax or LogSoftmax of rows of len whose values lie inner apart (the axis is not the last: YOLOv8's DFL
 * softmax over 16 bins, inner 8400), outer groups of inner rows: blocks of blk neighbouring rows gathered into
 * contiguous rows, through softmax_rows_f (the same bits as those rows laid out contiguously, and as
 * cu_softmax_row), and scattered back.  buf holds 2 * blk * len floats. */
static void softmax_strided_f(const float *x, float *y, int64_t outer, int64_t len, int64_t inner, int logsm,
			      int64_t blk, float *buf)
{
	float *rows = buf, *out = buf + blk * len;

	for (int64_t o = 0; o < outer; o++)
		for (int64_t i0 = 0; i0 < inner; i0 += blk) {
			int64_t nb = inner - i0 < blk ? inner - i0 : blk;
			const float *xs = x + o * len * inner + i0;
			float *ys = y + o * len * inner + i0;
			for (int64_t j = 0; j < len; j++)
				for (int64_t b = 0; b < nb; b++)
					rows[b * len + j] = xs[j * inner + b];
			softmax_rows_f(rows, out, nb, len, logsm);
			for (int64_t j = 0; j < len; j++)
				for (int64_t b = 0; b < nb; b++)
					ys[j * inner + b] = out[b * len + j];
		}
}

/* LayerNormalization of float32 rows of n with Scale s and B b (NULL: none) laid out as the row: the statistics as
 * ov_norm_stats16 (double sums in 16 lanes, rounded to float for stash_type float), y = (x - m) * inv * s + b in double
 * (b 0 when there is none: still added, so -0 becomes +0, as cu_layernorm_value), rounded to float.  mean and
 * inv_std (NULL: not asked) get each row's m and inv. */
ROW_CLONES static void layernorm_rows(const float *x, float *y, int64_t rows, int64_t n, const float *s,
				      const float *b, double eps, int stash_float, float *mean, float *inv_std)
{
	for (int64_t r = 0; r < rows; r++) {
		const float *xp = x + r * n;
		float *yp = y + r * n;
		double m = ov_norm_mean(cpu_sum16_f(xp, n), n);
		double inv = ov_norm_inv(cpu_sumsq16_f(xp, n, m), n, eps);
		if (stash_float)
			m = (float)m, inv = (float)inv;
		v4d_n iv = {inv, inv, inv, inv}, mv = {m, m, m, m}, zero = {0, 0, 0, 0};
		int64_t j = 0;
		for (; j + 4 <= n; j += 4) {
			v4d_n v = (__builtin_convertvector(*(const v4f_n *)(xp + j), v4d_n) - mv) * iv *
				  __builtin_convertvector(*(const v4f_n *)(s + j), v4d_n);
			v += b ? __builtin_convertvector(*(const v4f_n *)(b + j), v4d_n) : zero;
			*(v4f_n *)(yp + j) = __builtin_convertvector(v, __typeof__(*(v4f_n *)0));
		}
		for (; j < n; j++)
			yp[j] = (float)(((double)xp[j] - m) * inv * (double)s[j] + (b ? (double)b[j] : 0));
		if (mean)
			mean[r] = (float)m;
		if (inv_std)
			inv_std[r] = (float)inv;
	}
}

static int layernorm_f(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->in[0], *s = k->n_in > 1 ? k->in[1] : NULL, *b = k->n_in > 2 ? k->in[2] : NULL;
	struct ln_geom pl;

	if (ops_layernorm_setup(k, x, s, b, &pl))
		return -1;
	int axis = pl.axis;
	int64_t outer = pl.outer, inner = pl.len, *sstr = pl.sstr, *bstr = pl.bstr;
	int32_t st = pl.stash;
	double eps = pl.eps;
	if (xk_output(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	for (size_t o = 1; o < 3 && o < k->n_out; o++)
		if (xk_output(k, o, st, x->rank, pl.sdims))
			return -1;
	/* Scale and B indexed by the position inside the normalised block when they do not vary with the outer
	 * dims (the usual [normalized shape]); else through the full broadcast */
	int simple = 1;
	for (int i = 0; i < axis; i++)
		if (sstr[i] || (b && bstr[i]))
			simple = 0;
	int32_t dt = x->dtype;
	int64_t idx[XT_MAX_RANK] = {0}, *tab = NULL;
	if (simple) {
		tab = malloc((size_t)(2 * inner + 1) * sizeof *tab);
		if (!tab)
			return xk_fail(k, "out of memory");
		for (int64_t j = 0; j < inner; j++) {
			int64_t q = j, si = 0, bi = 0;
			for (int i = x->rank - 1; i >= axis; i--) {
				int64_t c = q % x->dims[i];
				q /= x->dims[i];
				si += c * sstr[i];
				if (b)
					bi += c * bstr[i];
			}
			tab[j] = si;
			tab[inner + j] = bi;
		}
		/* float32 with Scale and B laid out as the normalised block (the usual [normalized shape]) */
		int rows = dt == OV_DT_FLOAT && (k->n_out < 2 || st == OV_DT_FLOAT);
		for (int64_t j = 0; rows && j < inner; j++)
			rows = tab[j] == j && (!b || tab[inner + j] == j);
		if (rows) {
			layernorm_rows(x->data, k->out[0]->data, outer, inner, s->data, b ? b->data : NULL, eps,
				       st == OV_DT_FLOAT, k->n_out > 1 ? k->out[1]->data : NULL,
				       k->n_out > 2 ? k->out[2]->data : NULL);
			free(tab);
			return 0;
		}
	}
	for (int64_t r = 0; r < outer; r++) {
		int64_t base = r * inner;
		double m, inv;
		ov_norm_stats16(x->data, dt, base, inner, eps, &m, &inv);
		if (st == OV_DT_FLOAT) /* stash_type float: the statistics are float */
			m = (float)m, inv = (float)inv;
		for (int64_t j = 0; j < inner; j++) {
			int64_t si, bi = 0;
			if (simple) {
				si = tab[j];
				if (b)
					bi = tab[inner + j];
			} else {
				si = 0;
				for (int i = 0; i < x->rank; i++) {
					si += idx[i] * sstr[i];
					if (b)
						bi += idx[i] * bstr[i];
				}
				xt_index_next(idx, x->dims, x->rank);
			}
			double v = (GETF(dt, x->data, base + j) - m) * inv * GETF(dt, s->data, si) +
				   (b ? GETF(dt, b->data, bi) : 0);
			SETF(dt, k->out[0]->data, base + j, v);
		}
		if (k->n_out > 1)
			xt_set(k->out[1], r, m);
		if (k->n_out > 2)
			xt_set(k->out[2], r, inv);
	}
	free(tab);
	return 0;
}

static int kernel_layernorm(struct exec_kernel_ctx *k)
{
	return cpu_float_dispatch(k, layernorm_f, 6u, "LayerNormalization");
}

/* ---- LRN ------------------------------------------------------------------------------------------------------- */

static int lrn_f(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->in[0];
	double alpha = xk_attr_float(k, "alpha", 1e-4f), beta = xk_attr_float(k, "beta", 0.75f);
	double bias = xk_attr_float(k, "bias", 1.0f);
	int64_t size = xk_attr_int(k, "size", -1);

	if (size <= 0)
		return xk_fail(k, "size must be positive");
	if (x->rank < 2)
		return xk_fail(k, "X must be (N, C, ...), got rank %d", x->rank);
	if (xk_output(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	int64_t nb = x->dims[0], c = x->dims[1], inner = 1;
	for (int i = 2; i < x->rank; i++)
		inner *= x->dims[i];
	int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
	int32_t dt = x->dtype;
	for (int64_t n = 0; n < nb; n++)
		for (int64_t ch = 0; ch < c; ch++) {
			int64_t c0 = ch - lo < 0 ? 0 : ch - lo, c1 = ch + hi >= c ? c - 1 : ch + hi;
			for (int64_t i = 0; i < inner; i++) {
				double sq = 0;
				for (int64_t cc = c0; cc <= c1; cc++) {
					double v = GETF(dt, x->data, (n * c + cc) * inner + i);
					sq += v * v;
				}
				int64_t at = (n * c + ch) * inner + i;
				SETF(dt, k->out[0]->data, at,
				     GETF(dt, x->data, at) / pow(bias + alpha / (double)size * sq, beta));
			}
		}
	return 0;
}

static int kernel_lrn(struct exec_kernel_ctx *k)
{
	return cpu_float_dispatch(k, lrn_f, 0, "LRN");
}

/* ---- Softmax, LogSoftmax, Hardmax -------------------------------------------------------------------------------- */

enum smax_kind { SMAX_SOFT, SMAX_LOG, SMAX_HARD };

static int softmax_run(struct exec_kernel_ctx *k, enum smax_kind kind)
{
	const struct xtensor *x = k->in[0];
	int v13 = k->opset >= 13;

	if (x->rank < 1) { /* a scalar: a single class */
		if (xk_output(k, 0, x->dtype, 0, x->dims))
			return -1;
		SETF(x->dtype, k->out[0]->data, 0, kind == SMAX_LOG ? 0.0 : 1.0);
		return 0;
	}
	int axis = norm_axis(k, xk_attr_int(k, "axis", v13 ? -1 : 1), x->rank, !v13);
	if (axis < 0)
		return -1;
	int64_t outer = 1, len = 1, inner = 1;
	for (int i = 0; i < x->rank; i++) {
		if (i < axis)
			outer *= x->dims[i];
		else if (i == axis || !v13)
			len *= x->dims[i];
		else
			inner *= x->dims[i];
	}
	if (xk_output(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	int32_t dt = x->dtype;
	const void *xd = x->data;
	void *yd = k->out[0]->data;
	if (dt == OV_DT_FLOAT && inner == 1 && kind != SMAX_HARD) {
		softmax_rows_f(xd, yd, outer, len, kind == SMAX_LOG);
		return 0;
	}
	if (dt == OV_DT_FLOAT && kind != SMAX_HARD) {
		if (!outer || !len || !inner)
			return 0;
		/* up to 64 rows a block, within 256 KiB when the rows allow (the rest of the work is in cache) */
		int64_t blk = 65536 / len;
		blk = blk > 64 ? 64 : blk < 1 ? 1 : blk;
		blk = blk > inner ? inner : blk;
		float *buf = malloc((size_t)len * (size_t)blk * 2 * sizeof *buf);
		if (!buf)
			return xk_fail(k, "out of memory for two %lld x %lld blocks of Softmax rows", (long long)blk,
				       (long long)len);
		softmax_strided_f(xd, yd, outer, len, inner, kind == SMAX_LOG, blk, buf);
		free(buf);
		return 0;
	}
	for (int64_t o = 0; o < outer; o++)
		for (int64_t in = 0; in < inner; in++) {
			int64_t base = o * len * inner + in;
			double mx = -INFINITY;
			int64_t arg = 0;
			for (int64_t j = 0; j < len; j++) {
				double v = GETF(dt, xd, base + j * inner);
				if (v > mx) {
					mx = v;
					arg = j;
				}
			}
			if (kind == SMAX_HARD) {
				for (int64_t j = 0; j < len; j++)
					SETF(dt, yd, base + j * inner, j == arg ? 1.0 : 0.0);
				continue;
			}
			double sum = 0;
			for (int64_t j = 0; j < len; j++)
				sum += exp(GETF(dt, xd, base + j * inner) - mx);
			for (int64_t j = 0; j < len; j++) {
				double v = GETF(dt, xd, base + j * inner) - mx;
				SETF(dt, yd, base + j * inner, kind == SMAX_SOFT ? exp(v) / sum : v - log(sum));
			}
		}
	return 0;
}

static int softmax_f(struct exec_kernel_ctx *k)
{
	return softmax_run(k, SMAX_SOFT);
}

static int logsoftmax_f(struct exec_kernel_ctx *k)
{
	return softmax_run(k, SMAX_LOG);
}

static int hardmax_f(struct exec_kernel_ctx *k)
{
	return softmax_run(k, SMAX_HARD);
}

static int kernel_softmax(struct exec_kernel_ctx *k)
{
	return cpu_float_dispatch(k, softmax_f, 0, "Softmax");
}

static int kernel_logsoftmax(struct exec_kernel_ctx *k)
{
	return cpu_float_dispatch(k, logsoftmax_f, 0, "LogSoftmax");
}

static int kernel_hardmax(struct exec_kernel_ctx *k)
{
	return cpu_float_dispatch(k, hardmax_f, 0, "Hardmax");
}

/* Softmax & co. read the opset themselves (2-D coercion before 13); the two rows make the change visible. */
#define MAXR XT_MAX_RANK

/* ---- MeanVarianceNormalization ------------------------------------------------------------------------------ */

static int k_mvn(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	int64_t axes[MAXR] = {0, 2, 3}, gstride[MAXR], xs[MAXR];
	int red[MAXR] = {0}, rc = -1;

	if (!x)
		return xk_fail(k, "input 0 is missing");
	if (x->dtype != OV_DT_FLOAT && x->dtype != OV_DT_DOUBLE && x->dtype != OV_DT_FLOAT16 && x->dtype != OV_DT_BFLOAT16)
		return xk_fail(k, "MeanVarianceNormalization on %s is not supported", dtype_name(x->dtype));
	int64_t na = xk_attr_ints(k, "axes", axes, MAXR);
	if (na < 0)
		na = 3;
	if (na > MAXR)
		return xk_fail(k, "%" PRId64 " axes, more than %d", na, MAXR);
	for (int64_t i = 0; i < na; i++) {
		int64_t a = axes[i] < 0 ? axes[i] + x->rank : axes[i];
		if (a < 0 || a >= x->rank)
			return xk_fail(k, "axis %" PRId64 " is out of range for rank %d", axes[i], x->rank);
		red[a] = 1;
	}
	/* group index of an element: its index over the axes not normalized */
	int64_t ng = 1;
	for (int a = x->rank - 1; a >= 0; a--) {
		gstride[a] = red[a] ? 0 : ng;
		if (!red[a])
			ng *= x->dims[a];
	}
	int64_t acc = 1;
	for (int a = x->rank - 1; a >= 0; a--) {
		xs[a] = acc;
		acc *= x->dims[a];
	}
	if (xk_output(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	double *sum = calloc((size_t)ng, sizeof *sum), *sq = calloc((size_t)ng, sizeof *sq);
	int64_t *cnt = calloc((size_t)ng, sizeof *cnt), *gi = malloc((size_t)x->numel * sizeof *gi);
	if (!sum || !sq || !cnt || !gi) {
		xk_fail(k, "out of memory");
		goto out;
	}
	for (int64_t i = 0; i < x->numel; i++) {
		int64_t g = 0;
		for (int a = 0; a < x->rank; a++)
			g += (i / xs[a] % x->dims[a]) * gstride[a];
		gi[i] = g;
		double v = xt_get(x, i);
		sum[g] += v;
		sq[g] += v * v;
		cnt[g]++;
	}
	for (int64_t i = 0; i < x->numel; i++) {
		int64_t g = gi[i];
		double mean = sum[g] / (double)cnt[g], var = sq[g] / (double)cnt[g] - mean * mean;
		/* the op's function body: (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9) */
		xt_set(y, i, (xt_get(x, i) - mean) / (sqrt(var > 0 ? var : 0) + 1e-9));
	}
	rc = 0;
out:
	free(sum);
	free(sq);
	free(cnt);
	free(gi);
	return rc;
}

/* ---- LpNormalization: x divided by its L1 or L2 norm along an axis (a zero norm gives 0) ---------------------- */

static int kernel_lp_normalization(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;
	int64_t p = xk_attr_int(k, "p", 2);
	int axis;

	if (!x || (x->dtype != OV_DT_FLOAT && x->dtype != OV_DT_DOUBLE && x->dtype != OV_DT_FLOAT16 &&
		   x->dtype != OV_DT_BFLOAT16))
		return xk_fail(k, "LpNormalization takes a float tensor");
	if (p != 1 && p != 2)
		return xk_fail(k, "p is %lld (1 or 2)", (long long)p);
	if (xk_norm_axis(k, xk_attr_int(k, "axis", -1), x->rank, &axis) || xk_output(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	int64_t d = x->rank ? x->dims[axis] : 1, inner = 1;
	for (int i = axis + 1; i < x->rank; i++)
		inner *= x->dims[i];
	int64_t outer = d && inner ? x->numel / (d * inner) : 0;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t in = 0; in < inner; in++) {
			int64_t base = o * d * inner + in;
			double norm = 0;
			for (int64_t j = 0; j < d; j++) {
				double v = xt_get(x, base + j * inner);
				norm += p == 1 ? fabs(v) : v * v;
			}
			if (p == 2)
				norm = sqrt(norm);
			for (int64_t j = 0; j < d; j++)
				xt_set(k->out[0], base + j * inner, norm == 0 ? 0 : xt_get(x, base + j * inner) / norm);
		}
	return 0;
}

const struct exec_kernel cpu_norm_kernels[] = {
	{.op = "LpNormalization", .since = 1, .fn = kernel_lp_normalization},
	{.op = "BatchNormalization", .since = 1, .fn = kernel_batchnorm},
	{.op = "InstanceNormalization", .since = 1, .fn = kernel_instancenorm},
	{.op = "LayerNormalization", .since = 17, .fn = kernel_layernorm},
	{.op = "GroupNormalization", .since = 18, .fn = kernel_groupnorm},
	{.op = "LRN", .since = 1, .fn = kernel_lrn},
	{.op = "Softmax", .since = 1, .fn = kernel_softmax},
	{.op = "Softmax", .since = 13, .fn = kernel_softmax},
	{.op = "LogSoftmax", .since = 1, .fn = kernel_logsoftmax},
	{.op = "LogSoftmax", .since = 13, .fn = kernel_logsoftmax},
	{.op = "Hardmax", .since = 1, .fn = kernel_hardmax},
	{.op = "Hardmax", .since = 13, .fn = kernel_hardmax},
	{.op = "MeanVarianceNormalization", .since = 9, .fn = k_mvn},
};
const size_t cpu_norm_count = sizeof cpu_norm_kernels / sizeof cpu_norm_kernels[0];
