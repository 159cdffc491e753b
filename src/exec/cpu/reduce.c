/* CPU kernels for reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
 * ReduceLogSum, ReduceLogSumExp, ReduceSumSquare; ArgMax, ArgMin; TopK.
 *
 * Reductions accumulate in double for floating types and in 64-bit integers (wrapping, like the reference) for
 * integer types, so int64 sums stay exact.  Axes come from the attribute before the opset where they became an
 * input (13 for ReduceSum, 18 for the others), as in src/graph/shape-reduce.c.  noop_with_empty_axes reduces over no
 * axis at all: every element alone, so ReduceSumSquare gives x*x and ReduceL1 |x|, as the reference does. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/cpu/lanesum.h"
#include "src/exec/exec.h"
#include "src/exec/ops/index.h"
#include "src/exec/ops/ov-math.h"

#define MAXR XT_MAX_RANK

static int is_int_type(int32_t dt)
{
	return dt == OV_DT_INT64 || dt == OV_DT_INT32 || dt == OV_DT_INT16 || dt == OV_DT_INT8 || dt == OV_DT_UINT8 ||
	       dt == OV_DT_UINT16 || dt == OV_DT_UINT32 || dt == OV_DT_UINT64 || dt == OV_DT_BOOL;
}

static int is_float_type(int32_t dt)
{
	return dt == OV_DT_FLOAT || dt == OV_DT_DOUBLE || dt == OV_DT_FLOAT16 || dt == OV_DT_BFLOAT16;
}

/* Row i..i+n of t as doubles / as int64. */
static void load_f(const struct xtensor *t, int64_t i, int64_t n, double *buf)
{
	switch (t->dtype) {
	case OV_DT_FLOAT:
		for (int64_t j = 0; j < n; j++)
			buf[j] = ((const float *)t->data)[i + j];
		break;
	case OV_DT_DOUBLE:
		memcpy(buf, (const double *)t->data + i, (size_t)n * sizeof *buf);
		break;
	default:
		for (int64_t j = 0; j < n; j++)
			buf[j] = xt_get(t, i + j);
	}
}

static void load_i(const struct xtensor *t, int64_t i, int64_t n, int64_t *buf)
{
	switch (t->dtype) {
	case OV_DT_INT64:
		memcpy(buf, (const int64_t *)t->data + i, (size_t)n * sizeof *buf);
		break;
	case OV_DT_INT32:
		for (int64_t j = 0; j < n; j++)
			buf[j] = ((const int32_t *)t->data)[i + j];
		break;
	default:
		for (int64_t j = 0; j < n; j++)
			buf[j] = xt_get_int(t, i + j);
	}
}

/* Store an int64 result into element i, saturating to the type's range (empty Max/Min give its extremes). */
static void store_i(struct xtensor *t, int64_t i, int64_t v)
{
	switch (t->dtype) {
	case OV_DT_INT64: ((int64_t *)t->data)[i] = v; break;
	case OV_DT_UINT64: ((uint64_t *)t->data)[i] = (uint64_t)v; break;
	default: xt_set(t, i, (double)v); break;
	}
}

/* ---- float32 sums over a contiguous run ------------------------------------------------------------------------
 * ReduceSum and ReduceMean of float32 over a contiguous run per output element (the reduced axes trailing, axes of
 * size 1 aside), and the LayerNormalization written out as nodes that the runner hands to ReduceMean
 * (exec_kernel_ctx.ln), sum in double in ops/ov-math.h's ov_sum16_f order (cpu/lanesum.h: vectorised, the same
 * bits), which the CUDA reductions take too; so the fused layer norm gives the bits of its nodes. */

typedef float v8f_r __attribute__((vector_size(32)));
typedef float v8f_r_any __attribute__((vector_size(32), aligned(4), may_alias));
typedef int32_t v8i_r __attribute__((vector_size(32)));

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
/* no fp-contract: the layer norm must round after every operation, as its nodes do */
#define RED_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define RED_CLONES
#endif

/* acc[i] = the sum of x[i * n .. (i + 1) * n) for i < rows. */
RED_CLONES static void sum_rows_f(const float *x, int64_t rows, int64_t n, double *acc)
{
	for (int64_t i = 0; i < rows; i++)
		acc[i] = cpu_sum16_f(x + i * n, n);
}

/* LayerNormalization over rows of n as its nodes compute it: mean = (float)(sum / n), d = x - mean,
 * var = (float)(sum(d * d) / n), s = sqrtf(var + eps), y = d / s * gamma + beta, each operation rounded to float. */
RED_CLONES static void layernorm_rows_f(const float *x, int64_t rows, int64_t n, float eps, const float *gamma,
					const float *beta, float *y)
{
	for (int64_t i = 0; i < rows; i++) {
		const float *xr = x + i * n;
		float *yr = y + i * n;
		float mean = (float)(cpu_sum16_f(xr, n) / (double)n);
		v8f_r mv = {mean, mean, mean, mean, mean, mean, mean, mean};
		int64_t j = 0;
		for (; j + 8 <= n; j += 8) {
			v8f_r d = *(const v8f_r_any *)(xr + j) - mv;
			*(v8f_r_any *)(yr + j) = d * d;
		}
		for (; j < n; j++) {
			float d = xr[j] - mean;
			yr[j] = d * d;
		}
		float var = (float)(cpu_sum16_f(yr, n) / (double)n);
		float s = sqrtf(var + eps);
		v8f_r sv = {s, s, s, s, s, s, s, s};
		for (j = 0; j + 8 <= n; j += 8) {
			v8f_r q = (*(const v8f_r_any *)(xr + j) - mv) / sv;
			q = q * *(const v8f_r_any *)(gamma + j);
			*(v8f_r_any *)(yr + j) = q + *(const v8f_r_any *)(beta + j);
		}
		for (; j < n; j++) {
			float q = (xr[j] - mean) / s;
			q = q * gamma[j];
			yr[j] = q + beta[j];
		}
	}
}

/* t is a float32 row of n that broadcasts along x's last axis without growing x: every dim 1 but the last. */
static int ln_row(const struct xtensor *t, const struct xtensor *x, int64_t n)
{
	if (!t || t->dtype != OV_DT_FLOAT || !t->data || t->rank < 1 || t->rank > x->rank || t->dims[t->rank - 1] != n)
		return 0;
	for (int i = 0; i < t->rank - 1; i++)
		if (t->dims[i] != 1)
			return 0;
	return 1;
}

/* The runner's layer norm offer (exec_kernel_ctx.ln), taken when it fits: 1 when output 0 holds the layer norm,
 * 0 when not taken (nothing written), -1 failed. */
static int reduce_layernorm(struct exec_kernel_ctx *k, const struct xtensor *x)
{
	const struct exec_ln_offer *o = k->ln;

	if (x->dtype != OV_DT_FLOAT || x->rank < 1 || !o->eps || o->eps->dtype != OV_DT_FLOAT ||
	    o->eps->numel != 1 || !o->eps->data || o->eps->rank > x->rank)
		return 0;
	int64_t n = x->dims[x->rank - 1];
	if (!n || !ln_row(o->gamma, x, n) || !ln_row(o->beta, x, n))
		return 0;
	if (xk_output_raw(k, 0, OV_DT_FLOAT, x->rank, x->dims))
		return -1;
	layernorm_rows_f(x->data, x->numel / n, n, *(const float *)o->eps->data, o->gamma->data, o->beta->data,
			 k->out[0]->data);
	k->ln_done = 1;
	xk_note(k, "ran as one layer norm with the 8 nodes after it (the same bits)");
	return 1;
}

/* ---- Reduce* ----------------------------------------------------------------------------------------------- */

/* the steps themselves are ops/ov-math.h's, which the CUDA reductions take too */
enum rop {
	R_SUM = OV_RED_SUM, R_MEAN = OV_RED_MEAN, R_MAX = OV_RED_MAX, R_MIN = OV_RED_MIN, R_PROD = OV_RED_PROD,
	R_L1 = OV_RED_L1, R_L2 = OV_RED_L2, R_LOGSUM = OV_RED_LOGSUM, R_LOGSUMEXP = OV_RED_LOGSUMEXP,
	R_SUMSQ = OV_RED_SUMSQ
};

static const char *const rop_names[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
					"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"};

struct reduction {
	const struct xtensor *x;
	int red[MAXR];
	int64_t ostride[MAXR]; /* per input axis: its stride in the output, 0 when reduced */
	int64_t out_numel, count;
};

/* Calls row(ctx, input offset, n, output offset, output step) for every row of the last input axis. */
typedef void (*row_fn)(void *ctx, int64_t in_at, int64_t n, int64_t out_at, int64_t out_step);

static void for_rows(const struct reduction *r, row_fn fn, void *ctx)
{
	const struct xtensor *x = r->x;
	int rank = x->rank;

	if (!x->numel)
		return;
	if (rank == 0) {
		fn(ctx, 0, 1, 0, 0);
		return;
	}
	int64_t idx[MAXR] = {0}, last = x->dims[rank - 1], at = 0;
	for (;;) {
		int64_t o = 0;
		for (int a = 0; a < rank - 1; a++)
			o += idx[a] * r->ostride[a];
		fn(ctx, at, last, o, r->ostride[rank - 1]);
		at += last;
		int a = rank - 2;
		for (; a >= 0; a--) {
			if (++idx[a] < x->dims[a])
				break;
			idx[a] = 0;
		}
		if (a < 0)
			break;
	}
}

struct facc {
	const struct xtensor *x;
	enum rop op;
	double *acc, *shift, *buf;
};

/* One loop per op, each folding with ov_red_step_d for a constant op (so the compiler drops the switch). */
#define ROW_STEP_F(OP, SHIFT)                                                                   \
	for (int64_t j = 0; j < n; j++)                                                         \
		acc[o + j * step] = ov_red_step_d(OP, acc[o + j * step], b[j], SHIFT)

static void row_f(void *ctx, int64_t in_at, int64_t n, int64_t o, int64_t step)
{
	struct facc *f = ctx;
	double *acc = f->acc, *b = f->buf;

	load_f(f->x, in_at, n, b);
	switch (f->op) {
	case R_SUM: case R_MEAN: case R_LOGSUM: ROW_STEP_F(OV_RED_SUM, 0); break;
	case R_L1: ROW_STEP_F(OV_RED_L1, 0); break;
	case R_L2: case R_SUMSQ: ROW_STEP_F(OV_RED_SUMSQ, 0); break;
	case R_PROD: ROW_STEP_F(OV_RED_PROD, 0); break;
	case R_MAX: ROW_STEP_F(OV_RED_MAX, 0); break;
	case R_MIN: ROW_STEP_F(OV_RED_MIN, 0); break;
	case R_LOGSUMEXP: ROW_STEP_F(OV_RED_LOGSUMEXP, f->shift[o + j * step]); break;
	}
}

struct iacc {
	const struct xtensor *x;
	enum rop op;
	int is_unsigned;
	int64_t *acc, *buf;
};

#define ROW_STEP_I(OP)                                                                          \
	for (int64_t j = 0; j < n; j++)                                                         \
		acc[o + j * step] = ov_red_step_i(OP, acc[o + j * step], b[j], f->is_unsigned)

static void row_i(void *ctx, int64_t in_at, int64_t n, int64_t o, int64_t step)
{
	struct iacc *f = ctx;
	int64_t *acc = f->acc, *b = f->buf;

	load_i(f->x, in_at, n, b);
	switch (f->op) {
	case R_SUM: case R_MEAN: ROW_STEP_I(OV_RED_SUM); break;
	case R_L1: ROW_STEP_I(OV_RED_L1); break;
	case R_SUMSQ: ROW_STEP_I(OV_RED_SUMSQ); break;
	case R_PROD: ROW_STEP_I(OV_RED_PROD); break;
	case R_MAX: ROW_STEP_I(OV_RED_MAX); break;
	case R_MIN: ROW_STEP_I(OV_RED_MIN); break;
	default: break;
	}
}

static int reduce_run(struct exec_kernel_ctx *k, enum rop op, int from_input)
{
	const struct xtensor *x = xk_in(k, 0);
	int64_t axes[MAXR], d[MAXR], na;
	int keep = (int)xk_attr_int(k, "keepdims", 1);
	struct reduction r;
	int rc = -1;

	if (!x)
		return xk_fail(k, "input 0 is missing");
	if (!is_int_type(x->dtype) && !is_float_type(x->dtype))
		return xk_fail(k, "%s on %s is not supported", rop_names[op], dtype_name(x->dtype));
	memset(&r, 0, sizeof r);
	r.x = x;
	if (from_input) {
		const struct xtensor *at = xk_in(k, 1);
		na = -2;
		if (at) {
			if (at->rank > 1 || at->numel > MAXR)
				return xk_fail(k, "axes must be a list of at most %d values", MAXR);
			na = at->numel;
			for (int64_t i = 0; i < na; i++)
				axes[i] = xt_get_int(at, i);
		}
	} else {
		na = xk_attr_ints(k, "axes", axes, MAXR);
		if (na > MAXR)
			return xk_fail(k, "%" PRId64 " axes, more than %d", na, MAXR);
	}
	if (na <= 0) {
		if (!(from_input && xk_attr_int(k, "noop_with_empty_axes", 0)))
			for (int a = 0; a < x->rank; a++)
				r.red[a] = 1;
	} else
		for (int64_t i = 0; i < na; i++) {
			int a;
			if (xk_norm_axis(k, axes[i], x->rank, &a))
				return -1;
			r.red[a] = 1;
		}
	int n = 0;
	r.count = 1;
	for (int a = 0; a < x->rank; a++) {
		if (r.red[a])
			r.count *= x->dims[a];
		if (!r.red[a] || keep)
			d[n++] = r.red[a] ? 1 : x->dims[a];
	}
	if (op == R_MEAN && k->ln) {
		int t = reduce_layernorm(k, x);
		if (t)
			return t < 0 ? -1 : 0;
	}
	if (xk_output(k, 0, x->dtype, n, d))
		return -1;
	struct xtensor *y = k->out[0];
	r.out_numel = y->numel;
	/* float32 sums over a contiguous run: in ov_sum16_f's order */
	int contiguous = x->dtype == OV_DT_FLOAT && (op == R_SUM || op == R_MEAN) && r.count > 0, seen = 0;
	for (int a = 0; contiguous && a < x->rank; a++)
		if (x->dims[a] != 1) {
			contiguous = !seen || r.red[a];
			seen |= r.red[a];
		}
	if (contiguous && seen) {
		double *acc = malloc((size_t)(y->numel ? y->numel : 1) * sizeof *acc);
		if (!acc)
			return xk_fail(k, "out of memory");
		sum_rows_f(x->data, y->numel, r.count, acc);
		for (int64_t i = 0; i < y->numel; i++)
			((float *)y->data)[i] = (float)ov_red_final_d(op, acc[i], r.count, 0);
		free(acc);
		return 0;
	}
	/* output strides per input axis */
	{
		int64_t s = 1;
		for (int a = x->rank - 1; a >= 0; a--) {
			if (r.red[a]) {
				r.ostride[a] = 0;
				continue;
			}
			r.ostride[a] = s;
			s *= x->dims[a];
		}
	}
	int64_t last = x->rank ? x->dims[x->rank - 1] : 1, on = y->numel ? y->numel : 1;
	int int_path = is_int_type(x->dtype) && op != R_L2 && op != R_LOGSUM && op != R_LOGSUMEXP;
	if (int_path) {
		struct iacc f = {x, op, x->dtype == OV_DT_UINT64 || x->dtype == OV_DT_UINT32 || x->dtype == OV_DT_UINT16 ||
					       x->dtype == OV_DT_UINT8 || x->dtype == OV_DT_BOOL, NULL, NULL};
		f.acc = malloc((size_t)on * sizeof *f.acc);
		f.buf = malloc((size_t)(last ? last : 1) * sizeof *f.buf);
		if (!f.acc || !f.buf) {
			free(f.acc);
			free(f.buf);
			return xk_fail(k, "out of memory");
		}
		int64_t init = ov_red_init_i(op, f.is_unsigned);
		for (int64_t i = 0; i < on; i++)
			f.acc[i] = init;
		for_rows(&r, row_i, &f);
		for (int64_t i = 0; i < y->numel; i++) {
			int64_t v = f.acc[i];
			if (op == R_MEAN)
				v = r.count ? v / r.count : 0;
			if (f.is_unsigned && (op == R_MAX || op == R_MIN) && x->dtype != OV_DT_UINT64 && v == -1)
				v = INT64_MAX; /* the empty Min of an unsigned type: its largest value (saturated by store_i) */
			store_i(y, i, v);
		}
		free(f.acc);
		free(f.buf);
		return 0;
	}
	struct facc f = {x, op, NULL, NULL, NULL};
	f.acc = malloc((size_t)on * sizeof *f.acc);
	f.buf = malloc((size_t)(last ? last : 1) * sizeof *f.buf);
	if (op == R_LOGSUMEXP)
		f.shift = malloc((size_t)on * sizeof *f.shift);
	if (!f.acc || !f.buf || (op == R_LOGSUMEXP && !f.shift)) {
		xk_fail(k, "out of memory");
		goto out;
	}
	if (op == R_LOGSUMEXP) {
		/* shift by the max (when finite) so exp cannot overflow */
		struct facc m = {x, R_MAX, f.shift, NULL, f.buf};
		for (int64_t i = 0; i < on; i++)
			f.shift[i] = -INFINITY;
		for_rows(&r, row_f, &m);
		for (int64_t i = 0; i < on; i++)
			if (!isfinite(f.shift[i]))
				f.shift[i] = 0;
	}
	double init = ov_red_init_d(op);
	for (int64_t i = 0; i < on; i++)
		f.acc[i] = init;
	for_rows(&r, row_f, &f);
	for (int64_t i = 0; i < y->numel; i++) {
		double v = ov_red_final_d(op, f.acc[i], r.count, op == R_LOGSUMEXP ? f.shift[i] : 0);
		if (y->dtype == OV_DT_FLOAT)
			((float *)y->data)[i] = (float)v;
		else if (y->dtype == OV_DT_DOUBLE)
			((double *)y->data)[i] = v;
		else
			xt_set(y, i, v);
	}
	rc = 0;
out:
	free(f.acc);
	free(f.buf);
	free(f.shift);
	return rc;
}

/* Two kernels per op: axes as an attribute (before 13 for ReduceSum, 18 for the others) and as input 1. */
#define REDUCE_KERNELS(name, op)                                                                 \
	static int k_##name##_attr(struct exec_kernel_ctx *k) { return reduce_run(k, op, 0); } \
	static int k_##name##_input(struct exec_kernel_ctx *k) { return reduce_run(k, op, 1); }
REDUCE_KERNELS(reduce_sum, R_SUM)
REDUCE_KERNELS(reduce_mean, R_MEAN)
REDUCE_KERNELS(reduce_max, R_MAX)
REDUCE_KERNELS(reduce_min, R_MIN)
REDUCE_KERNELS(reduce_prod, R_PROD)
REDUCE_KERNELS(reduce_l1, R_L1)
REDUCE_KERNELS(reduce_l2, R_L2)
REDUCE_KERNELS(reduce_log_sum, R_LOGSUM)
REDUCE_KERNELS(reduce_log_sum_exp, R_LOGSUMEXP)
REDUCE_KERNELS(reduce_sum_square, R_SUMSQ)

/* ---- ArgMax, ArgMin ---------------------------------------------------------------------------------------- */

/* ArgMax/ArgMin of float32 over an axis of len (outer blocks of len x inner), ov_arg_step_d's rule (the first
 * extreme, or the last with select_last_index; a NaN is the extreme, the first NaN or the last), read where the
 * values lie instead of through xt_get one by one (YOLOv8's [1, 80, 8400] over axis 1 took 2.1 ms, onnxruntime
 * 0.42): across a row of inner outputs 8 lanes keep their extreme and its index; along a contiguous axis (inner 1)
 * the extreme first, then its first (last) index.  A block that holds a NaN takes the scalar steps. */
static void arg_steps_f(const float *xp, int64_t len, int64_t inner, int want_max, int last, int64_t *yo)
{
	double bv = xp[0];
	int64_t best = 0;

	for (int64_t j = 1; j < len; j++)
		ov_arg_step_d(xp[j * inner], j, want_max, last, &bv, &best);
	*yo = best;
}

RED_CLONES static void arg_rows_f(const float *x, int64_t *y, int64_t outer, int64_t len, int64_t inner, int want_max,
				  int last)
{
	for (int64_t o = 0; o < outer; o++) {
		const float *xp = x + o * len * inner;
		int64_t *yo = y + o * inner, in = 0;
		if (inner == 1) {
			v8f_r m = {0};
			float mx = xp[0];
			int nan = mx != mx;
			int64_t j = 0;
			if (len >= 8) {
				m = *(const v8f_r_any *)xp;
				v8i_r bad = (v8i_r)(m != m);
				for (j = 8; j + 8 <= len; j += 8) {
					v8f_r v = *(const v8f_r_any *)(xp + j);
					bad |= (v8i_r)(v != v);
					v8i_r take = (v8i_r)(want_max ? v > m : v < m);
					m = (v8f_r)(((v8i_r)v & take) | ((v8i_r)m & ~take));
				}
				for (int q = 0; q < 8; q++) {
					nan |= bad[q] != 0;
					mx = want_max ? (m[q] > mx ? m[q] : mx) : (m[q] < mx ? m[q] : mx);
				}
			}
			for (; j < len; j++) {
				nan |= xp[j] != xp[j];
				mx = want_max ? (xp[j] > mx ? xp[j] : mx) : (xp[j] < mx ? xp[j] : mx);
			}
			if (nan) {
				arg_steps_f(xp, len, 1, want_max, last, yo);
				continue;
			}
			/* the first (last) index holding the extreme (either zero for a zero extreme, as the steps) */
			int64_t b = last ? len - 1 : 0;
			if (last)
				while (xp[b] != mx)
					b--;
			else
				while (xp[b] != mx)
					b++;
			*yo = b;
			continue;
		}
		for (; in + 8 <= inner; in += 8) {
			v8f_r bv = *(const v8f_r_any *)(xp + in);
			v8i_r bi = {0}, bad = (v8i_r)(bv != bv);
			for (int64_t j = 1; j < len; j++) {
				v8f_r v = *(const v8f_r_any *)(xp + j * inner + in);
				v8i_r take = (v8i_r)(want_max ? v > bv : v < bv);
				if (last)
					take |= (v8i_r)(v == bv);
				int32_t jj = (int32_t)j;
				v8i_r jv = {jj, jj, jj, jj, jj, jj, jj, jj};
				bad |= (v8i_r)(v != v);
				bv = (v8f_r)(((v8i_r)v & take) | ((v8i_r)bv & ~take));
				bi = (jv & take) | (bi & ~take);
			}
			for (int q = 0; q < 8; q++) {
				if (bad[q])
					arg_steps_f(xp + in + q, len, inner, want_max, last, yo + in + q);
				else
					yo[in + q] = bi[q];
			}
		}
		for (; in < inner; in++)
			arg_steps_f(xp + in, len, inner, want_max, last, yo + in);
	}
}

static int arg_run(struct exec_kernel_ctx *k, int want_max)
{
	const struct xtensor *x = xk_in(k, 0);
	int axis, keep = (int)xk_attr_int(k, "keepdims", 1), last_index = (int)xk_attr_int(k, "select_last_index", 0);
	int64_t d[MAXR];

	if (!x)
		return xk_fail(k, "input 0 is missing");
	if (!is_int_type(x->dtype) && !is_float_type(x->dtype))
		return xk_fail(k, "%s on %s is not supported", want_max ? "ArgMax" : "ArgMin", dtype_name(x->dtype));
	if (x->rank == 0)
		return xk_fail(k, "%s of a scalar", want_max ? "ArgMax" : "ArgMin");
	if (xk_norm_axis(k, xk_attr_int(k, "axis", 0), x->rank, &axis))
		return -1;
	int n = 0;
	for (int a = 0; a < x->rank; a++)
		if (a != axis || keep)
			d[n++] = a == axis ? 1 : x->dims[a];
	int64_t len = x->dims[axis], outer = xk_numel(axis, x->dims), inner = xk_numel(x->rank - axis - 1, x->dims + axis + 1);
	if (len == 0 && outer * inner > 0)
		return xk_fail(k, "%s over an empty axis %d", want_max ? "ArgMax" : "ArgMin", axis);
	if (xk_output(k, 0, OV_DT_INT64, n, d))
		return -1;
	int64_t *y = k->out[0]->data;
	int ints = is_int_type(x->dtype);
	int uns = x->dtype == OV_DT_UINT64;
	if (x->dtype == OV_DT_FLOAT && len > 0 && len < INT32_MAX) {
		arg_rows_f(x->data, y, outer, len, inner, want_max, last_index);
		return 0;
	}
	for (int64_t o = 0; o < outer; o++)
		for (int64_t in = 0; in < inner; in++) {
			int64_t best = 0, base = o * len * inner + in;
			if (ints) {
				int64_t bv = xt_get_int(x, base);
				for (int64_t j = 1; j < len; j++)
					ov_arg_step_i(xt_get_int(x, base + j * inner), j, want_max, last_index, uns, &bv, &best);
			} else {
				double bv = xt_get(x, base);
				for (int64_t j = 1; j < len; j++)
					ov_arg_step_d(xt_get(x, base + j * inner), j, want_max, last_index, &bv, &best);
			}
			y[o * inner + in] = best;
		}
	return 0;
}

static int k_argmax(struct exec_kernel_ctx *k) { return arg_run(k, 1); }
static int k_argmin(struct exec_kernel_ctx *k) { return arg_run(k, 0); }

/* ---- TopK ------------------------------------------------------------------------------------------------------ */

/* Each row's K first elements in TopK's order (ov_topk_row, which the CUDA kernel runs too): the larger (or
 * smaller) values first, NaN as the largest, ties by lower position; sorted or not, the output is in that order (an
 * order is allowed when sorted=0). */
static int k_topk(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	int axis, largest = (int)xk_attr_int(k, "largest", 1);
	int64_t kk, d[MAXR];

	if (ops_topk_setup(k, ops_host_input, &axis, &kk))
		return -1;
	memcpy(d, x->dims, sizeof d);
	d[axis] = kk;
	if (xk_output(k, 0, x->dtype, x->rank, d) || xk_output(k, 1, OV_DT_INT64, x->rank, d))
		return -1;
	struct xtensor *vals = k->out[0];
	int64_t *idx = k->out[1]->data;
	size_t es = xt_elem_size(x->dtype);
	int64_t len = x->dims[axis], outer = xk_numel(axis, x->dims), inner = xk_numel(x->rank - axis - 1, x->dims + axis + 1);
	for (int64_t o = 0; o < outer && vals->numel; o++)
		for (int64_t in = 0; in < inner; in++) {
			int64_t base = o * len * inner + in, obase = o * kk * inner + in;
			ov_topk_row(x->data, x->dtype, base, len, inner, kk, largest, idx + obase, inner);
			for (int64_t j = 0; j < kk; j++) {
				int64_t oi = obase + j * inner;
				memcpy((char *)vals->data + (size_t)oi * es,
				       (const char *)x->data + (size_t)(base + idx[oi] * inner) * es, es);
			}
		}
	return 0;
}

const struct exec_kernel cpu_reduce_kernels[] = {
	{.op = "ReduceSum", .since = 1, .fn = k_reduce_sum_attr},
	{.op = "ReduceSum", .since = 13, .fn = k_reduce_sum_input},
	{.op = "ReduceMean", .since = 1, .fn = k_reduce_mean_attr},
	{.op = "ReduceMean", .since = 18, .fn = k_reduce_mean_input},
	{.op = "ReduceMax", .since = 1, .fn = k_reduce_max_attr},
	{.op = "ReduceMax", .since = 18, .fn = k_reduce_max_input},
	{.op = "ReduceMin", .since = 1, .fn = k_reduce_min_attr},
	{.op = "ReduceMin", .since = 18, .fn = k_reduce_min_input},
	{.op = "ReduceProd", .since = 1, .fn = k_reduce_prod_attr},
	{.op = "ReduceProd", .since = 18, .fn = k_reduce_prod_input},
	{.op = "ReduceL1", .since = 1, .fn = k_reduce_l1_attr},
	{.op = "ReduceL1", .since = 18, .fn = k_reduce_l1_input},
	{.op = "ReduceL2", .since = 1, .fn = k_reduce_l2_attr},
	{.op = "ReduceL2", .since = 18, .fn = k_reduce_l2_input},
	{.op = "ReduceLogSum", .since = 1, .fn = k_reduce_log_sum_attr},
	{.op = "ReduceLogSum", .since = 18, .fn = k_reduce_log_sum_input},
	{.op = "ReduceLogSumExp", .since = 1, .fn = k_reduce_log_sum_exp_attr},
	{.op = "ReduceLogSumExp", .since = 18, .fn = k_reduce_log_sum_exp_input},
	{.op = "ReduceSumSquare", .since = 1, .fn = k_reduce_sum_square_attr},
	{.op = "ReduceSumSquare", .since = 18, .fn = k_reduce_sum_square_input},
	{.op = "ArgMax", .since = 1, .fn = k_argmax},
	{.op = "ArgMin", .since = 1, .fn = k_argmin},
	{.op = "TopK", .since = 1, .fn = k_topk},
	{.op = "TopK", .since = 10, .fn = k_topk},
};
const size_t cpu_reduce_count = sizeof cpu_reduce_kernels / sizeof cpu_reduce_kernels[0];
