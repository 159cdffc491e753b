/* CPU matrix products: Gemm, MatMul (numpy batching, 1-D promotion; CBLAS per batch for float/double, plain
 * loops for integers), MatMulInteger, QLinearMatMul, and Einsum (any equation, by a plain sum over the index
 * space). */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/cpu/kernels.h"
#include "src/exec/cpu/sgemm.h"
#include "src/exec/ops/ops.h"
#include "src/exec/exec.h"

static int is_int_type(int32_t dt)
{
	switch (dt) {
	case OV_DT_INT8: case OV_DT_UINT8: case OV_DT_INT16: case OV_DT_UINT16: case OV_DT_INT32: case OV_DT_UINT32:
	case OV_DT_INT64: case OV_DT_UINT64:
		return 1;
	default:
		return 0;
	}
}

/* ---- the own float32 path (src/exec/cpu/sgemm.c) -------------------------------------------------------------- */

/* A bias for the epilogue from t, which the output y (rows of n) takes by broadcasting without growing: a row
 * (every dim 1 but the last, n) or y's own shape.  0 when t is neither. */
static int mm_bias(const struct xtensor *t, const struct xtensor *y, int64_t n, const float **bias, int64_t *rs)
{
	if (!t || t->dtype != OV_DT_FLOAT || !t->data || t->host_stale || t->rank > y->rank || t->rank < 1 ||
	    t->dims[t->rank - 1] != n)
		return 0;
	int row = 1, same = 1;
	for (int i = 0; i < t->rank; i++) {
		row &= i == t->rank - 1 || t->dims[i] == 1;
		same &= t->dims[i] == y->dims[y->rank - t->rank + i];
	}
	for (int i = 0; i < y->rank - t->rank; i++)
		same &= y->dims[i] == 1;
	if (!row && !same)
		return 0;
	*bias = t->data;
	*rs = row ? 0 : n;
	return 1;
}

/* The epilogue for output y: the bias the node itself adds (Gemm's C, or NULL), then the runner's Add offer when
 * it fits, then the activation offered with whichever comes last.  Marks what was taken in k. */
static void mm_epilogue(struct exec_kernel_ctx *k, const struct xtensor *y, int64_t n, const float *own,
			int64_t own_rs, struct sgemm_epi *e)
{
	memset(e, 0, sizeof *e);
	e->bias[0] = own;
	e->bias_rs[0] = own_rs;
	if (k->add && mm_bias(k->add, y, n, &e->bias[1], &e->bias_rs[1])) {
		e->act = &k->add_act;
		k->add_done = 1;
	} else if (k->act.kind != EXEC_ACT_NONE) {
		e->act = &k->act;
		k->act_done = 1;
	}
}

/* Whether a product goes the own way: when B (input b_input, K x N) is a constant (packed once and kept, or read
 * as it lies in a run that keeps nothing: the same bits either way, so a single run agrees with run --repeat and
 * the TUI), or small enough that packing it for this call stays in the cache and enough rows share it; otherwise
 * CBLAS, which packs B block by block as it goes.  A single column (a matrix times a vector) stays with CBLAS.
 * (A single row with a constant B, a batch-one classifier, stays with the own kernel in every run: CBLAS's GEMV is
 * faster on a first run, 0.9 against 1.1 ms for MobileNetV2's, but slower on kept weights, 0.36 against 0.27.) */
static int mm_own(const struct exec_kernel_ctx *k, size_t b_input, int64_t rows, int64_t kk, int64_t n)
{
	if (n < 2 || rows < 1)
		return 0;
	return xk_constant(k, b_input) || (rows >= 8 && kk * n <= 64 * 1024);
}

/* ---- Gemm ------------------------------------------------------------------------------------------------------ */

static int gemm_float(struct exec_kernel_ctx *k)
{
	const struct xtensor *a = k->in[0], *b = k->n_in > 1 ? k->in[1] : NULL, *c = k->n_in > 2 ? k->in[2] : NULL;
	int ta = xk_attr_int(k, "transA", 0) != 0, tb = xk_attr_int(k, "transB", 0) != 0;
	double alpha = xk_attr_float(k, "alpha", 1.0f), beta = xk_attr_float(k, "beta", 1.0f);
	char d1[64], d2[64];

	if (!a || !b)
		return xk_fail(k, "A and B are required");
	/* the shapes for a message, made only when there is one to give (every Gemm of every run is checked) */
#define GEMM_DESCRIBE() (xt_describe(a, d1, sizeof d1), xt_describe(b, d2, sizeof d2))
	if (a->rank != 2 || b->rank != 2) {
		GEMM_DESCRIBE();
		return xk_fail(k, "Gemm needs 2-D A and B, got %s and %s", d1, d2);
	}
	if (b->dtype != a->dtype || (c && c->dtype != a->dtype))
		return xk_fail(k, "A, B and C must have the same element type");
	int64_t m = ta ? a->dims[1] : a->dims[0], kk = ta ? a->dims[0] : a->dims[1];
	int64_t kb = tb ? b->dims[1] : b->dims[0], n = tb ? b->dims[0] : b->dims[1];
	if (kk != kb) {
		GEMM_DESCRIBE();
		return xk_fail(k, "A %s%s and B %s%s do not chain (K %lld vs %lld)", d1, ta ? "^T" : "", d2,
			       tb ? "^T" : "", (long long)kk, (long long)kb);
	}
#undef GEMM_DESCRIBE
	int64_t cm = 1, cn = 1;
	if (c) {
		if (c->rank > 2)
			return xk_fail(k, "C has rank %d; it must broadcast to [%lld,%lld]", c->rank, (long long)m,
				       (long long)n);
		cn = c->rank >= 1 ? c->dims[c->rank - 1] : 1;
		cm = c->rank == 2 ? c->dims[0] : 1;
		if ((cm != 1 && cm != m) || (cn != 1 && cn != n))
			return xk_fail(k, "C [%lld,%lld] does not broadcast to [%lld,%lld]", (long long)cm,
				       (long long)cn, (long long)m, (long long)n);
	}
	int64_t out[2] = {m, n};
	/* every element is written (C's broadcast, or beta 0: the product alone) */
	if (xk_output_raw(k, 0, a->dtype, 2, out))
		return -1;
	struct xtensor *y = k->out[0];
	int have_c = c && beta != 0 && c->numel;
	int32_t dt = a->dtype;
	const float *cb = NULL;
	int64_t cb_rs = 0;
	if (dt == OV_DT_FLOAT && !ta && alpha == 1 && (!have_c || (beta == 1 && mm_bias(c, y, n, &cb, &cb_rs))) &&
	    mm_own(k, 1, m, kk, n)) {
		struct sgemm_epi e;
		mm_epilogue(k, y, n, cb, cb_rs, &e);
		return cpu_sgemm_node(k, 1, tb, m, n, kk, a->data, kk, b->data, b->dims[1], y->data, n, &e);
	}
	if (dt == OV_DT_FLOAT || dt == OV_DT_DOUBLE) {
		if (have_c)
			for (int64_t i = 0; i < m; i++)
				for (int64_t j = 0; j < n; j++) {
					int64_t ci = (cm == 1 ? 0 : i) * cn + (cn == 1 ? 0 : j);
					if (dt == OV_DT_FLOAT)
						((float *)y->data)[i * n + j] = (float)(beta * ((const float *)c->data)[ci]);
					else
						((double *)y->data)[i * n + j] = beta * ((const double *)c->data)[ci];
				}
		cpu_gemm(dt, ta, tb, m, n, kk, alpha, a->data, a->dims[1], b->data, b->dims[1], have_c ? 1.0 : 0.0,
			 y->data, n);
		return 0;
	}
	/* integers (and anything xt_get reads): exact when alpha and beta are 1 */
	int exact = alpha == 1 && beta == 1;
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) {
			int64_t ci = (cm == 1 ? 0 : i) * cn + (cn == 1 ? 0 : j);
			if (exact) {
				uint64_t acc = have_c ? (uint64_t)xt_get_int(c, ci) : 0;
				for (int64_t p = 0; p < kk; p++)
					acc += (uint64_t)xt_get_int(a, ta ? p * m + i : i * kk + p) *
					       (uint64_t)xt_get_int(b, tb ? j * kk + p : p * n + j);
				switch (dt) {
				case OV_DT_INT32: ((int32_t *)y->data)[i * n + j] = (int32_t)(uint32_t)acc; break;
				case OV_DT_UINT32: ((uint32_t *)y->data)[i * n + j] = (uint32_t)acc; break;
				case OV_DT_INT64: ((int64_t *)y->data)[i * n + j] = (int64_t)acc; break;
				case OV_DT_UINT64: ((uint64_t *)y->data)[i * n + j] = acc; break;
				default: xt_set(y, i * n + j, (double)(int64_t)acc); break;
				}
			} else {
				double acc = 0;
				for (int64_t p = 0; p < kk; p++)
					acc += xt_get(a, ta ? p * m + i : i * kk + p) * xt_get(b, tb ? j * kk + p : p * n + j);
				xt_set(y, i * n + j, alpha * acc + (have_c ? beta * xt_get(c, ci) : 0));
			}
		}
	return 0;
}

static int kernel_gemm(struct exec_kernel_ctx *k)
{
	const struct xtensor *a = k->in[0];

	if (!a)
		return xk_fail(k, "A is required");
	if (cpu_is_half(a->dtype))
		return cpu_via_f32(k, gemm_float, 0);
	if (a->dtype == OV_DT_FLOAT || a->dtype == OV_DT_DOUBLE || is_int_type(a->dtype))
		return gemm_float(k);
	return xk_fail(k, "Gemm on %s is not supported", dtype_short_name(a->dtype));
}

/* ---- MatMul ---------------------------------------------------------------------------------------------------- */

/* Calls fn(batch index, A offset, B offset) for every batch, in output order. */
#define MM_FOR_BATCHES(p, body)                                                                                  \
	do {                                                                                                     \
		int64_t idx_[XT_MAX_RANK] = {0}, aoff = 0, boff = 0;                                             \
		for (int64_t bi = 0; bi < (p)->batches; bi++) {                                                  \
			body;                                                                                    \
			for (int i_ = (p)->nbatch - 1; i_ >= 0; i_--) {                                          \
				aoff += (p)->astr[i_];                                                           \
				boff += (p)->bstr[i_];                                                           \
				if (++idx_[i_] < (p)->bdims[i_])                                                 \
					break;                                                                   \
				aoff -= (p)->astr[i_] * (p)->bdims[i_];                                          \
				boff -= (p)->bstr[i_] * (p)->bdims[i_];                                          \
				idx_[i_] = 0;                                                                    \
			}                                                                                        \
		}                                                                                                \
	} while (0)

/* Integer matmul with wrap-around; A and B are read through xt_get_int (so any integer element type works),
 * acc gets each sum with the zero points subtracted first. */
static void mm_int(const struct mm_geom *p, const struct xtensor *a, const struct xtensor *b, const struct xtensor *azp,
		   const struct xtensor *bzp, int64_t *acc)
{
	MM_FOR_BATCHES(p, {
		for (int64_t i = 0; i < p->m; i++)
			for (int64_t j = 0; j < p->n; j++) {
				uint64_t s = 0;
				int64_t za = azp && azp->numel ? xt_get_int(azp, azp->numel > 1 ? i % azp->numel : 0) : 0;
				int64_t zb = bzp && bzp->numel ? xt_get_int(bzp, bzp->numel > 1 ? j % bzp->numel : 0) : 0;
				for (int64_t q = 0; q < p->kk; q++)
					s += (uint64_t)(xt_get_int(a, aoff + i * p->kk + q) - za) *
					     (uint64_t)(xt_get_int(b, boff + q * p->n + j) - zb);
				acc[(bi * p->m + i) * p->n + j] = (int64_t)s;
			}
	});
}

/* MatMul in float32 batch by batch the own way, each batch's B packed as it comes (once for batches that share
 * it), the epilogue taken per batch. */
static int matmul_own_batches(struct exec_kernel_ctx *k, const struct mm_geom *p, const struct xtensor *a,
			      const struct xtensor *b, struct xtensor *y)
{
	size_t nf = cpu_sgemm_packed_floats(p->kk, p->n);
	float *bp = malloc((nf ? nf : 1) * sizeof *bp);
	struct sgemm_epi e;
	int64_t packed = -1;

	if (!bp)
		return xk_fail(k, "out of memory");
	mm_epilogue(k, y, p->n, NULL, 0, &e);
	const float *bias = e.bias[1];
	MM_FOR_BATCHES(p, {
		if (boff != packed) {
			cpu_sgemm_pack(0, p->kk, p->n, (const float *)b->data + boff, p->n, bp);
			packed = boff;
		}
		if (bias && e.bias_rs[1])
			e.bias[1] = bias + bi * p->m * p->n;
		cpu_sgemm_packed(p->m, p->n, p->kk, (const float *)a->data + aoff, p->kk, bp,
				 (float *)y->data + bi * p->m * p->n, p->n, &e);
	});
	free(bp);
	return 0;
}

static int matmul_float(struct exec_kernel_ctx *k)
{
	const struct xtensor *a = k->in[0], *b = k->n_in > 1 ? k->in[1] : NULL;
	struct mm_geom p;

	if (!a || !b)
		return xk_fail(k, "A and B are required");
	if (a->dtype != b->dtype)
		return xk_fail(k, "A and B must have the same element type");
	/* float and double: the products (beta 0) write every element, so no zeros first */
	int fp = a->dtype == OV_DT_FLOAT || a->dtype == OV_DT_DOUBLE;
	if (ops_matmul_setup(k, a, b, &p) ||
	    (fp ? xk_output_raw : xk_output)(k, 0, a->dtype, p.out_rank, p.out))
		return -1;
	struct xtensor *y = k->out[0];
	int32_t dt = a->dtype;
	if (fp) {
		size_t es = dt == OV_DT_FLOAT ? 4 : 8;
		/* B shared by every batch and A's batches contiguous: one GEMM with the batches stacked into M */
		int b_shared = 1, a_full = 1;
		for (int i = 0; i < p.nbatch; i++) {
			if (p.bstr[i])
				b_shared = 0;
			if (!p.astr[i] && p.bdims[i] != 1)
				a_full = 0;
		}
		if (dt == OV_DT_FLOAT && b_shared && a_full && mm_own(k, 1, p.batches * p.m, p.kk, p.n)) {
			struct sgemm_epi e;
			mm_epilogue(k, y, p.n, NULL, 0, &e);
			return cpu_sgemm_node(k, 1, 0, p.batches * p.m, p.n, p.kk, a->data, p.kk, b->data, p.n, y->data,
					      p.n, &e);
		}
		if (dt == OV_DT_FLOAT && !b_shared && p.n >= 2 && p.m >= 8 && p.kk * p.n <= 64 * 1024)
			return matmul_own_batches(k, &p, a, b, y);
		if (b_shared && a_full) {
			cpu_gemm(dt, 0, 0, p.batches * p.m, p.n, p.kk, 1.0, a->data, p.kk, b->data, p.n, 0.0, y->data,
				 p.n);
			return 0;
		}
		MM_FOR_BATCHES(&p, {
			cpu_gemm(dt, 0, 0, p.m, p.n, p.kk, 1.0, (const char *)a->data + (size_t)aoff * es, p.kk,
				 (const char *)b->data + (size_t)boff * es, p.n, 0.0,
				 (char *)y->data + (size_t)(bi * p.m * p.n) * es, p.n);
		});
		return 0;
	}
	int64_t *acc = malloc((size_t)(y->numel ? y->numel : 1) * sizeof *acc);
	if (!acc)
		return xk_fail(k, "out of memory");
	mm_int(&p, a, b, NULL, NULL, acc);
	for (int64_t i = 0; i < y->numel; i++)
		switch (dt) {
		case OV_DT_INT32: ((int32_t *)y->data)[i] = (int32_t)(uint32_t)acc[i]; break;
		case OV_DT_UINT32: ((uint32_t *)y->data)[i] = (uint32_t)acc[i]; break;
		case OV_DT_INT64: ((int64_t *)y->data)[i] = acc[i]; break;
		case OV_DT_UINT64: ((uint64_t *)y->data)[i] = (uint64_t)acc[i]; break;
		default: xt_set(y, i, (double)acc[i]); break;
		}
	free(acc);
	return 0;
}

static int kernel_matmul(struct exec_kernel_ctx *k)
{
	const struct xtensor *a = k->in[0];

	if (!a)
		return xk_fail(k, "A is required");
	if (cpu_is_half(a->dtype))
		return cpu_via_f32(k, matmul_float, 0);
	if (a->dtype == OV_DT_FLOAT || a->dtype == OV_DT_DOUBLE || is_int_type(a->dtype))
		return matmul_float(k);
	return xk_fail(k, "MatMul on %s is not supported", dtype_short_name(a->dtype));
}

/* MatMulInteger: A, B, a_zero_point (scalar or per row), b_zero_point (scalar or per column) -> int32. */
static int kernel_matmul_integer(struct exec_kernel_ctx *k)
{
	const struct xtensor *a = k->in[0], *b = k->n_in > 1 ? k->in[1] : NULL;
	const struct xtensor *azp = k->n_in > 2 ? k->in[2] : NULL, *bzp = k->n_in > 3 ? k->in[3] : NULL;
	struct mm_geom p;

	if (!a || !b)
		return xk_fail(k, "A and B are required");
	if (!is_int_type(a->dtype) || !is_int_type(b->dtype))
		return xk_fail(k, "MatMulInteger needs integer inputs");
	if (ops_matmul_setup(k, a, b, &p) || xk_output(k, 0, OV_DT_INT32, p.out_rank, p.out))
		return -1;
	if ((azp && azp->numel > 1 && azp->numel != p.m) || (bzp && bzp->numel > 1 && bzp->numel != p.n))
		return xk_fail(k, "zero points must be scalars, per row of A or per column of B");
	struct xtensor *y = k->out[0];
	int64_t *acc = malloc((size_t)(y->numel ? y->numel : 1) * sizeof *acc);
	if (!acc)
		return xk_fail(k, "out of memory");
	mm_int(&p, a, b, azp, bzp, acc);
	for (int64_t i = 0; i < y->numel; i++)
		((int32_t *)y->data)[i] = (int32_t)(uint32_t)acc[i];
	free(acc);
	return 0;
}

/* QLinearMatMul: a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp. */
static int kernel_qlinear_matmul(struct exec_kernel_ctx *k)
{
	const struct xtensor *in[8] = {0};
	struct mm_geom p;

	for (size_t i = 0; i < 8 && i < k->n_in; i++)
		in[i] = k->in[i];
	if (!in[0] || !in[1] || !in[3] || !in[4] || !in[6])
		return xk_fail(k, "QLinearMatMul needs a, a_scale, b, b_scale and y_scale");
	if (!is_int_type(in[0]->dtype) || !is_int_type(in[3]->dtype))
		return xk_fail(k, "QLinearMatMul needs integer a and b");
	int32_t odt = in[7] ? in[7]->dtype : OV_DT_UINT8;
	if (ops_matmul_setup(k, in[0], in[3], &p) || xk_output(k, 0, odt, p.out_rank, p.out))
		return -1;
	if ((in[2] && in[2]->numel > 1 && in[2]->numel != p.m) || (in[5] && in[5]->numel > 1 && in[5]->numel != p.n) ||
	    (in[1]->numel > 1 && in[1]->numel != p.m) || (in[4]->numel > 1 && in[4]->numel != p.n))
		return xk_fail(k, "scales and zero points must be scalars, per row of a or per column of b");
	struct xtensor *y = k->out[0];
	int64_t *acc = malloc((size_t)(y->numel ? y->numel : 1) * sizeof *acc);
	if (!acc)
		return xk_fail(k, "out of memory");
	mm_int(&p, in[0], in[3], in[2], in[5], acc);
	double ys = xt_get(in[6], 0), yz = in[7] && in[7]->numel ? xt_get(in[7], 0) : 0;
	double lo = odt == OV_DT_INT8 ? -128 : 0, hi = odt == OV_DT_INT8 ? 127 : 255;
	for (int64_t i = 0; i < y->numel; i++) {
		int64_t row = (i / p.n) % (p.m ? p.m : 1), col = i % p.n;
		double s = xt_get(in[1], in[1]->numel > 1 ? row : 0) * xt_get(in[4], in[4]->numel > 1 ? col : 0) / ys;
		double v = nearbyint((double)acc[i] * s) + yz;
		xt_set(y, i, v < lo ? lo : v > hi ? hi : v);
	}
	free(acc);
	return 0;
}

/* ---- Einsum ---------------------------------------------------------------------------------------------------- */

#define EIN_LABELS (52 + XT_MAX_RANK) /* a-z, A-Z, then the ellipsis dims */
#define EIN_MAX_IN 16

static int ein_label(char ch)
{
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a';
	if (ch >= 'A' && ch <= 'Z')
		return 26 + ch - 'A';
	return -1;
}

/* Parse one term into labels (ellipsis dims as 52 + j for global ellipsis dim j, right-aligned to ell_rank);
 * *n_letters and *has_ell describe it. Returns the label count, or -1. */
static int ein_term(const char *t, size_t len, int ell_rank, int *labels, int *n_letters, int *has_ell)
{
	int n = 0;

	*n_letters = 0;
	*has_ell = 0;
	for (size_t i = 0; i < len; i++) {
		if (t[i] == '.') {
			if (i + 2 >= len + 0 || t[i + 1] != '.' || t[i + 2] != '.' || *has_ell)
				return -1;
			*has_ell = 1;
			for (int j = 0; j < ell_rank; j++) {
				if (n >= XT_MAX_RANK)
					return -1;
				labels[n++] = 52 + j;
			}
			i += 2;
			continue;
		}
		int l = ein_label(t[i]);
		if (l < 0 || n >= XT_MAX_RANK)
			return -1;
		labels[n++] = l;
		(*n_letters)++;
	}
	return n;
}

/* dst = the n-dim block of src with dims dims, read at strides sst and written at strides dstr (elements); the last
 * dim innermost */
static void ein_copy(float *dst, const float *src, int n, const int64_t *dims, const int64_t *sst, const int64_t *dstr)
{
	int64_t idx[XT_MAX_RANK] = {0}, so = 0, d0 = 0, total = 1;

	for (int q = 0; q < n; q++)
		total *= dims[q];
	if (!total)
		return;
	int64_t in = n ? dims[n - 1] : 1, is = n ? sst[n - 1] : 0, ds = n ? dstr[n - 1] : 0;
	for (int64_t done = 0; done < total; done += in) {
		for (int64_t j = 0; j < in; j++)
			dst[d0 + j * ds] = src[so + j * is];
		for (int q = n - 2; q >= 0; q--) {
			so += sst[q];
			d0 += dstr[q];
			if (++idx[q] < dims[q])
				break;
			so -= sst[q] * dims[q];
			d0 -= dstr[q] * dims[q];
			idx[q] = 0;
		}
	}
}

/* Float32 Einsum of two inputs that is a batched matrix product: every label once per term, each either in both
 * inputs and the output (a batch), in one input and the output (a row of A or a column of B), or in both inputs
 * and not the output (summed).  A is gathered into [batch][rows][sum] and B into [batch][sum][cols] by their
 * strides (a broadcast dim reads stride 0), each batch multiplied by the own GEMM (cpu/sgemm.c: float sums, as
 * MatMul), and the product scattered into the output's label order.  1 when the equation is not such a product
 * (the general loop takes it), 0 done, -1 failed.  (The general loop summed every output element label by label in
 * double: attention's "bhqd,bhkd->bhqk" on 12 x 197 x 197 took 121 ms.) */
static int einsum_as_gemm(struct exec_kernel_ctx *k, const int labels[][XT_MAX_RANK], const int *nlab,
			  const int64_t *size, const int *out_lab, int nout, const int64_t (*str)[EIN_LABELS],
			  struct xtensor *y)
{
	int where[EIN_LABELS] = {0}; /* bit 0: in A, bit 1: in B, bit 2: in the output */
	for (int i = 0; i < 2; i++)
		for (int q = 0; q < nlab[i]; q++) {
			if (where[labels[i][q]] & (1 << i))
				return 1; /* a diagonal */
			where[labels[i][q]] |= 1 << i;
		}
	for (int q = 0; q < nout; q++)
		where[out_lab[q]] |= 4;
	int bl[EIN_LABELS], ml[EIN_LABELS], nl[EIN_LABELS], kl[EIN_LABELS], nb = 0, nm = 0, nn = 0, nk = 0;
	int64_t bs = 1, ms = 1, ns = 1, ks = 1;
	for (int l = 0; l < EIN_LABELS; l++) {
		if (!where[l])
			continue;
		int64_t d = size[l] < 0 ? 1 : size[l];
		switch (where[l]) {
		case 7: bl[nb++] = l, bs *= d; break;
		case 5: ml[nm++] = l, ms *= d; break;
		case 6: nl[nn++] = l, ns *= d; break;
		case 3: kl[nk++] = l, ks *= d; break;
		default: return 1; /* summed over one input only, or an output label in no input */
		}
	}
	if (nb + nm + nk > XT_MAX_RANK || nb + nk + nn > XT_MAX_RANK || nb + nm + nn > XT_MAX_RANK)
		return 1;
	/* the gathered blocks may outgrow the inputs (a broadcast batch): past 2^32 floats each, the general loop
	 * (which refuses what is too large) rather than sizes that could overflow */
	const double lim = 4294967296.0;
	if ((double)bs * (double)ms * (double)ks > lim || (double)bs * (double)ks * (double)ns > lim ||
	    (double)bs * (double)ms * (double)ns > lim)
		return 1;
	if (!y->numel || !ks) /* nothing, or empty sums: the output's zeros */
		return 0;
	/* the three blocks' label lists, dims and strides: A [b m k], B [b k n], the product [b m n] */
	int la[XT_MAX_RANK], lb[XT_MAX_RANK], lc[XT_MAX_RANK], na = 0, nbb = 0, nc = 0;
	for (int q = 0; q < nb; q++)
		la[na++] = lb[nbb++] = lc[nc++] = bl[q];
	for (int q = 0; q < nm; q++)
		la[na++] = lc[nc++] = ml[q];
	for (int q = 0; q < nk; q++)
		la[na++] = lb[nbb++] = kl[q];
	for (int q = 0; q < nn; q++)
		lb[nbb++] = lc[nc++] = nl[q];
	int64_t ostr[EIN_LABELS] = {0}, s = 1;
	for (int q = nout - 1; q >= 0; q--) {
		ostr[out_lab[q]] = size[out_lab[q]] == 1 ? 0 : s;
		s *= size[out_lab[q]];
	}
	size_t fa = (size_t)(bs * ms * ks), fb = (size_t)(bs * ks * ns), fc = (size_t)(bs * ms * ns);
	size_t np = cpu_sgemm_packed_floats(ks, ns);
	float *buf = malloc((fa + fb + fc + np + 1) * sizeof *buf);
	if (!buf)
		return xk_fail(k, "out of memory");
	float *ap = buf, *bp = ap + fa, *cp = bp + fb, *pk = cp + fc;
	int64_t dims[XT_MAX_RANK], sst[XT_MAX_RANK], dstr[XT_MAX_RANK];
#define EIN_BLOCK(list, cnt, from)                                                                                \
	do {                                                                                                      \
		int64_t c_ = 1;                                                                                   \
		for (int q = (cnt) - 1; q >= 0; q--) {                                                            \
			dims[q] = size[(list)[q]] < 0 ? 1 : size[(list)[q]];                                      \
			sst[q] = (from)[(list)[q]];                                                               \
			dstr[q] = c_;                                                                             \
			c_ *= dims[q];                                                                            \
		}                                                                                                 \
	} while (0)
	EIN_BLOCK(la, na, str[0]);
	ein_copy(ap, k->in[0]->data, na, dims, sst, dstr);
	EIN_BLOCK(lb, nbb, str[1]);
	ein_copy(bp, k->in[1]->data, nbb, dims, sst, dstr);
	for (int64_t b = 0; b < bs; b++) {
		cpu_sgemm_pack(0, ks, ns, bp + b * ks * ns, ns, pk);
		cpu_sgemm_packed(ms, ns, ks, ap + b * ms * ks, ks, pk, cp + b * ms * ns, ns, NULL);
	}
	/* scatter: read the product contiguously (dstr), write at the output's strides */
	EIN_BLOCK(lc, nc, ostr);
#undef EIN_BLOCK
	ein_copy(y->data, cp, nc, dims, dstr, sst);
	free(buf);
	return 0;
}

static int einsum_run(struct exec_kernel_ctx *k)
{
	char eq[512], clean[512];
	size_t nin = k->n_in, cl = 0;
	const char *term[EIN_MAX_IN + 1];
	size_t tlen[EIN_MAX_IN + 1];
	int labels[EIN_MAX_IN][XT_MAX_RANK], nlab[EIN_MAX_IN], out_lab[XT_MAX_RANK], nout = 0;
	int64_t size[EIN_LABELS];
	int count[EIN_LABELS] = {0}, in_out[EIN_LABELS] = {0};
	int ell_rank = 0, nl, he;

	if (!nin || nin > EIN_MAX_IN)
		return xk_fail(k, "Einsum with %zu inputs is not supported (1 to %d)", nin, EIN_MAX_IN);
	for (size_t i = 0; i < nin; i++)
		if (!k->in[i])
			return xk_fail(k, "input %zu is missing", i);
	int32_t dt = k->in[0]->dtype;
	for (size_t i = 1; i < nin; i++)
		if (k->in[i]->dtype != dt)
			return xk_fail(k, "Einsum inputs must share one element type");
	xk_attr_str(k, "equation", "", eq, sizeof eq);
	for (char *c = eq; *c; c++)
		if (*c != ' ')
			clean[cl++] = *c;
	clean[cl] = '\0';
	const char *arrow = strstr(clean, "->");
	size_t lhs_len = arrow ? (size_t)(arrow - clean) : cl;
	size_t nt = 0;
	for (size_t s = 0, i = 0; i <= lhs_len; i++)
		if (i == lhs_len || clean[i] == ',') {
			if (nt >= EIN_MAX_IN)
				return xk_fail(k, "equation '%s' has more terms than inputs", eq);
			term[nt] = clean + s;
			tlen[nt++] = i - s;
			s = i + 1;
		}
	if (nt != nin)
		return xk_fail(k, "equation '%s' has %zu terms for %zu inputs", eq, nt, nin);
	/* the ellipsis rank: the largest over the inputs */
	for (size_t i = 0; i < nin; i++) {
		if (ein_term(term[i], tlen[i], 0, labels[i], &nl, &he) < 0)
			return xk_fail(k, "cannot parse term %zu of '%s'", i, eq);
		int r = k->in[i]->rank;
		if ((!he && r != nl) || (he && r < nl))
			return xk_fail(k, "term %zu of '%s' does not match input rank %d", i, eq, r);
		if (he && r - nl > ell_rank)
			ell_rank = r - nl;
	}
	for (int l = 0; l < EIN_LABELS; l++)
		size[l] = -1;
	for (size_t i = 0; i < nin; i++) {
		const struct xtensor *t = k->in[i];
		int n = ein_term(term[i], tlen[i], ell_rank, labels[i], &nl, &he);
		int er = t->rank - nl, skip = ell_rank - er; /* this input's ellipsis is right-aligned */
		int j = 0, ax = 0;
		for (int q = 0; q < n; q++) {
			int l = labels[i][q];
			if (l >= 52 && l - 52 < skip)
				continue;
			labels[i][j++] = l;
			int64_t d = t->dims[ax++];
			if (size[l] < 0 || (l >= 52 && size[l] == 1))
				size[l] = d;
			else if (size[l] != d && !(l >= 52 && d == 1))
				return xk_fail(k, "label '%c' of '%s' has sizes %lld and %lld",
					       l < 52 ? (l < 26 ? 'a' + l : 'A' + l - 26) : '.', eq, (long long)size[l],
					       (long long)d);
			count[l]++;
		}
		nlab[i] = j;
	}
	if (arrow) {
		const char *o = arrow + 2;
		int n = ein_term(o, strlen(o), ell_rank, out_lab, &nl, &he);
		if (n < 0)
			return xk_fail(k, "cannot parse the output of '%s'", eq);
		for (int q = 0; q < n; q++) {
			if (size[out_lab[q]] < 0 && out_lab[q] < 52)
				return xk_fail(k, "output label of '%s' appears in no input", eq);
			if (in_out[out_lab[q]]++)
				return xk_fail(k, "output label repeated in '%s'", eq);
		}
		nout = n;
	} else {
		for (int j = 0; j < ell_rank; j++)
			in_out[out_lab[nout++] = 52 + j] = 1;
		for (int q = 0; q < 52; q++) {
			int l = q < 26 ? 26 + q : q - 26; /* upper case sorts first, as in numpy */
			if (count[l] == 1) {
				if (nout >= XT_MAX_RANK)
					return xk_fail(k, "output of '%s' has too many dims", eq);
				in_out[out_lab[nout++] = l] = 1;
			}
		}
	}
	/* summed labels: every label seen that is not in the output */
	int sum_lab[EIN_LABELS], nsum = 0;
	for (int l = 0; l < EIN_LABELS; l++) {
		if (size[l] < 0 && l >= 52 && in_out[l])
			size[l] = 1;
		if (size[l] >= 0 && !in_out[l])
			sum_lab[nsum++] = l;
	}
	int64_t odims[XT_MAX_RANK], sum_total = 1;
	for (int q = 0; q < nout; q++)
		odims[q] = size[out_lab[q]];
	for (int q = 0; q < nsum; q++) {
		if (size[sum_lab[q]] && sum_total > (1ll << 40) / size[sum_lab[q]])
			return xk_fail(k, "Einsum '%s' sums over more than 2^40 terms", eq);
		sum_total *= size[sum_lab[q]];
	}
	if (xk_output(k, 0, dt, nout, odims))
		return -1;
	struct xtensor *y = k->out[0];
	/* strides of each input per label (repeated labels add: the diagonal; broadcast dims: 0) */
	static const int64_t zero[EIN_LABELS];
	int64_t (*str)[EIN_LABELS] = calloc(nin, sizeof *str);
	if (!str)
		return xk_fail(k, "out of memory");
	for (size_t i = 0; i < nin; i++) {
		const struct xtensor *t = k->in[i];
		memcpy(str[i], zero, sizeof zero);
		int64_t s = 1;
		for (int ax = nlab[i] - 1; ax >= 0; ax--) {
			if (t->dims[ax] != 1 || size[labels[i][ax]] == 1)
				str[i][labels[i][ax]] += s;
			s *= t->dims[ax];
		}
	}
	if (dt == OV_DT_FLOAT && nin == 2) {
		int r = einsum_as_gemm(k, (const int(*)[XT_MAX_RANK])labels, nlab, size, out_lab, nout,
				       (const int64_t(*)[EIN_LABELS])str, y);
		if (r <= 0) {
			free(str);
			return r;
		}
	}
	if (y->numel && sum_total > ((1ll << 34) / y->numel)) {
		free(str);
		return xk_fail(k, "Einsum '%s' needs %lld x %lld products: too many for the plain loop", eq,
			       (long long)y->numel, (long long)sum_total);
	}
	int fl = dt == OV_DT_FLOAT || dt == OV_DT_DOUBLE || cpu_is_half(dt);
	int64_t oidx[XT_MAX_RANK] = {0}, sidx[EIN_LABELS];
	int64_t base[EIN_MAX_IN] = {0}, off[EIN_MAX_IN];
	for (int64_t o = 0; o < y->numel; o++) {
		double accd = 0;
		uint64_t acci = 0;
		memcpy(off, base, sizeof off);
		memset(sidx, 0, sizeof sidx);
		for (int64_t s = 0; s < sum_total; s++) {
			if (fl) {
				double p = 1;
				for (size_t i = 0; i < nin; i++)
					p *= dt == OV_DT_FLOAT ? ((const float *)k->in[i]->data)[off[i]]
							       : xt_get(k->in[i], off[i]);
				accd += p;
			} else {
				uint64_t p = 1;
				for (size_t i = 0; i < nin; i++)
					p *= (uint64_t)xt_get_int(k->in[i], off[i]);
				acci += p;
			}
			for (int q = nsum - 1; q >= 0; q--) {
				int l = sum_lab[q];
				for (size_t i = 0; i < nin; i++)
					off[i] += str[i][l];
				if (++sidx[q] < size[l])
					break;
				for (size_t i = 0; i < nin; i++)
					off[i] -= str[i][l] * size[l];
				sidx[q] = 0;
			}
		}
		if (fl)
			xt_set(y, o, accd);
		else if (dt == OV_DT_INT64 || dt == OV_DT_UINT64)
			((int64_t *)y->data)[o] = (int64_t)acci;
		else if (dt == OV_DT_INT32 || dt == OV_DT_UINT32)
			((uint32_t *)y->data)[o] = (uint32_t)acci;
		else
			xt_set(y, o, (double)(int64_t)acci);
		for (int q = nout - 1; q >= 0; q--) {
			int l = out_lab[q];
			for (size_t i = 0; i < nin; i++)
				base[i] += str[i][l];
			if (++oidx[q] < size[l])
				break;
			for (size_t i = 0; i < nin; i++)
				base[i] -= str[i][l] * size[l];
			oidx[q] = 0;
		}
	}
	free(str);
	return 0;
}

static int kernel_einsum(struct exec_kernel_ctx *k)
{
	if (!k->n_in || !k->in[0])
		return xk_fail(k, "Einsum needs inputs");
	int32_t dt = k->in[0]->dtype;
	if (dt == OV_DT_FLOAT || dt == OV_DT_DOUBLE || cpu_is_half(dt) || is_int_type(dt))
		return einsum_run(k);
	return xk_fail(k, "Einsum on %s is not supported", dtype_short_name(dt));
}

/* ---- Det ---- */
static int k_det(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);

	if (!x)
		return xk_fail(k, "input 0 is missing");
	if (x->dtype != OV_DT_FLOAT && x->dtype != OV_DT_DOUBLE && x->dtype != OV_DT_FLOAT16 && x->dtype != OV_DT_BFLOAT16)
		return xk_fail(k, "Det on %s is not supported", dtype_name(x->dtype));
	if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2])
		return xk_fail(k, "Det needs square matrices [..., M, M]");
	int64_t m = x->dims[x->rank - 1];
	if (m > 4096)
		return xk_fail(k, "Det of %" PRId64 "x%" PRId64 " matrices is over the executor's limit", m, m);
	if (xk_output(k, 0, x->dtype, x->rank - 2, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	double *a = malloc((size_t)(m ? m * m : 1) * sizeof *a);
	if (!a)
		return xk_fail(k, "out of memory");
	for (int64_t b = 0; b < y->numel; b++) {
		for (int64_t i = 0; i < m * m; i++)
			a[i] = xt_get(x, b * m * m + i);
		/* LU with partial pivoting */
		double det = 1;
		for (int64_t c = 0; c < m && det != 0; c++) {
			int64_t p = c;
			for (int64_t r = c + 1; r < m; r++)
				if (fabs(a[r * m + c]) > fabs(a[p * m + c]))
					p = r;
			if (a[p * m + c] == 0) {
				det = 0;
				break;
			}
			if (p != c) {
				for (int64_t j = 0; j < m; j++) {
					double t = a[c * m + j];
					a[c * m + j] = a[p * m + j];
					a[p * m + j] = t;
				}
				det = -det;
			}
			det *= a[c * m + c];
			for (int64_t r = c + 1; r < m; r++) {
				double f = a[r * m + c] / a[c * m + c];
				for (int64_t j = c; j < m; j++)
					a[r * m + j] -= f * a[c * m + j];
			}
		}
		xt_set(y, b, det);
	}
	free(a);
	return 0;
}

const struct exec_kernel cpu_gemm_kernels[] = {
	{.op = "Gemm", .since = 1, .fn = kernel_gemm},
	{.op = "MatMul", .since = 1, .fn = kernel_matmul},
	{.op = "MatMulInteger", .since = 10, .fn = kernel_matmul_integer},
	{.op = "QLinearMatMul", .since = 10, .fn = kernel_qlinear_matmul},
	{.op = "Einsum", .since = 12, .fn = kernel_einsum},
	{.op = "Det", .since = 11, .fn = k_det},
};
const size_t cpu_gemm_count = sizeof cpu_gemm_kernels / sizeof cpu_gemm_kernels[0];
