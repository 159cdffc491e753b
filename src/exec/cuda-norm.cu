// Normalisations on the CUDA device, as src/exec/cpu-norm.c computes them:
// - Softmax and LogSoftmax, float32 (float16 and bfloat16 through float32): before opset 13 the input is coerced
//   to 2-D at axis (default 1), from 13 on one axis (default -1) is normalised.  One thread per row
//   (cu_softmax_row of cuda-points.h), with the CPU's arithmetic.
// - LayerNormalization, InstanceNormalization and inference-mode BatchNormalization, float32 and float64 (float16
//   and bfloat16 through float32, as the CPU's cpu_float_dispatch takes them): the statistics of each row or group
//   in double, one thread per row or group summing in the CPU's order (cu_norm_stats), then one thread per element
//   writing it as the CPU does (cu_layernorm_value, cu_group_norm_f/_d, cu_batchnorm_f of cuda-points.h).  Small
//   parameter vectors (BatchNormalization's four, InstanceNormalization's scale and bias) are read on the host as
//   the CPU reads them.
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/cuda-backend.h"
#include "src/exec/cuda-points.h"

static __global__ void softmax_kernel(const float *x, float *y, int64_t outer, int64_t len, int64_t inner, int logsm)
{
	CU_FOR(row, outer * inner)
	{
		int64_t o = row / inner, in = row - o * inner;
		cu_softmax_row(x, y, o * len * inner + in, len, inner, logsm);
	}
}

static int softmax_run(struct exec_kernel_ctx *k, int logsm)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;
	int v13 = k->opset >= 13;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || !cu_float_type(x->dtype) || x->rank < 1)
		return EXEC_DECLINE; // a scalar is one class: the CPU's special case
	int64_t axis = xk_attr_int(k, "axis", v13 ? -1 : 1), r = x->rank;
	// before opset 13 axis may equal the rank (coercion to [N, 1]), as cpu-norm.c's norm_axis allows
	if (axis < -r || axis > (v13 ? r - 1 : r))
		return EXEC_DECLINE;
	if (axis < 0)
		axis += r;
	int64_t outer = 1, len = 1, inner = 1;
	for (int i = 0; i < x->rank; i++) {
		if (i < axis)
			outer *= x->dims[i];
		else if (i == axis || !v13)
			len *= x->dims[i];
		else
			inner *= x->dims[i];
	}
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	const float *dx = cu_input_f32(k, &bufs, 0);
	float *dy = dx ? (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float)) : NULL;
	if (!dy)
		goto out;
	if (CU_LAUNCH(k, softmax_kernel, cu_grid(outer * inner), CU_BLOCK, dx, dy, outer, len, inner, logsm) ||
	    cu_output_f32(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

static int k_softmax(struct exec_kernel_ctx *k)
{
	return softmax_run(k, 0);
}

static int k_log_softmax(struct exec_kernel_ctx *k)
{
	return softmax_run(k, 1);
}

// ---- shared by the normalisations ----

static const struct xtensor *input(const struct exec_kernel_ctx *k, size_t i)
{
	return i < k->n_in ? k->in[i] : NULL;
}

// The types the normalisations take: float32 and float64 as they are, float16 and bfloat16 through float32.
static int norm_type(int32_t dt)
{
	return cu_float_type(dt) || dt == OV_DT_DOUBLE;
}

// Input i on the device in the type the statistics read (float64 as is, the others as float32): *dt says which.
static const void *norm_input(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t i, int *dt)
{
	*dt = k->in[i]->dtype == OV_DT_DOUBLE ? OV_DT_DOUBLE : OV_DT_FLOAT;
	return *dt == OV_DT_DOUBLE ? cu_input(k, b, i) : (const void *)cu_input_f32(k, b, i);
}

// Output i from dev, computed in dt (norm_input's): float32 rounded to a 16-bit output type as the CPU rounds it.
static int norm_output(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t i, void *dev, int dt)
{
	return dt == OV_DT_DOUBLE ? cu_output(k, b, i, dev) : cu_output_f32(k, b, i, (float *)dev);
}

// n values of a parameter input (n of them, or one broadcast) read on the host as doubles, as cpu-norm.c's
// param() reads them; NULL with the node's error set, or with *decline set when the CPU would refuse the count.
static double *host_param(struct exec_kernel_ctx *k, size_t i, int64_t n, int *decline)
{
	const struct xtensor *t = input(k, i);

	*decline = !t || (t->numel != n && t->numel != 1) || !xt_elem_size(t->dtype) || t->dtype == OV_DT_STRING;
	if (*decline)
		return NULL;
	if (!(t = cu_host(k, i)))
		return NULL;
	double *v = (double *)malloc((size_t)(n ? n : 1) * sizeof *v);
	if (!v) {
		xk_fail(k, "out of memory");
		return NULL;
	}
	for (int64_t j = 0; j < n; j++)
		v[j] = xt_get(t, t->numel == 1 ? 0 : j);
	return v;
}

// n doubles from the host onto the device.
static const double *upload_doubles(struct exec_kernel_ctx *k, struct cu_bufs *b, const double *v, int64_t n)
{
	size_t bytes = (size_t)n * sizeof *v;
	void *d = cu_alloc(k, b, bytes);
	if (!d || cu_upload(k, d, v, bytes))
		return NULL;
	return (const double *)d;
}

// The mean and 1/sqrt(variance + eps) of each of the n rows of len values (stash_float: both rounded to float,
// LayerNormalization's default stash_type), and when asked, LayerNormalization's Mean and InvStdDev outputs in
// type st.
static __global__ void stats_kernel(const void *x, int dt, int64_t len, double eps, int stash_float, double *mean,
				    double *inv, void *mean_out, void *inv_out, int st, int64_t n)
{
	CU_FOR(r, n)
	{
		double m, iv;
		cu_norm_stats(x, dt, r * len, len, eps, &m, &iv);
		if (stash_float)
			m = (float)m, iv = (float)iv;
		mean[r] = m;
		inv[r] = iv;
		if (mean_out)
			cu_store_d(mean_out, st, r, m);
		if (inv_out)
			cu_store_d(inv_out, st, r, iv);
	}
}

// ---- LayerNormalization ----

// X's dims and Scale's and B's broadcast strides (cpu_layernorm_setup's), by value to the kernel.
struct ln_bcast {
	int rank;
	int64_t dims[XT_MAX_RANK], sstr[XT_MAX_RANK], bstr[XT_MAX_RANK];
};

static __global__ void layernorm_kernel(struct ln_bcast bc, const void *x, const void *s, const void *b, int dt,
					const double *mean, const double *inv, void *y, int64_t len, int64_t n)
{
	CU_FOR(i, n)
	{
		int64_t q = i, si = 0, bi = 0, r = i / len;
		for (int a = bc.rank - 1; a >= 0; a--) {
			int64_t p = q % bc.dims[a];
			q /= bc.dims[a];
			si += p * bc.sstr[a];
			bi += p * bc.bstr[a];
		}
		double v = cu_layernorm_value(cu_load_d(x, dt, i), mean[r], inv[r], cu_load_d(s, dt, si),
					      b ? cu_load_d(b, dt, bi) : 0.0);
		cu_store_d(y, dt, i, v);
	}
}

static int k_layernorm(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = input(k, 0), *s = input(k, 1), *b = input(k, 2);
	struct ln_bcast bc;
	struct ln_plan pl;
	struct cu_bufs bufs = {};
	int rc = -1, dt;

	if (!x || !s || !norm_type(x->dtype) || s->dtype != x->dtype || (b && b->dtype != x->dtype))
		return EXEC_DECLINE;
	if (cpu_layernorm_setup(k, x, s, b, &pl))
		return EXEC_DECLINE; // the CPU says what is wrong
	memset(&bc, 0, sizeof bc);
	bc.rank = x->rank;
	memcpy(bc.dims, x->dims, sizeof bc.dims);
	memcpy(bc.sstr, pl.sstr, sizeof bc.sstr);
	memcpy(bc.bstr, pl.bstr, sizeof bc.bstr);
	int32_t st = pl.stash;
	int64_t outer = pl.outer, len = pl.len;
	double eps = pl.eps;
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	for (size_t o = 1; o < 3 && o < k->n_out; o++)
		if (xk_output_raw(k, o, st, x->rank, pl.sdims))
			return -1;
	if (!outer)
		return 0;
	const void *dx = norm_input(k, &bufs, 0, &dt);
	const void *ds = dx ? norm_input(k, &bufs, 1, &dt) : NULL;
	const void *db = ds && b ? norm_input(k, &bufs, 2, &dt) : NULL;
	double *dm = ds && (!b || db) ? (double *)cu_alloc(k, &bufs, (size_t)outer * sizeof(double)) : NULL;
	double *dinv = dm ? (double *)cu_alloc(k, &bufs, (size_t)outer * sizeof(double)) : NULL;
	void *dmo = dinv && k->n_out > 1 ? cu_alloc(k, &bufs, k->out[1]->bytes) : NULL;
	void *dio = dinv && k->n_out > 2 ? cu_alloc(k, &bufs, k->out[2]->bytes) : NULL;
	if (!dinv || (k->n_out > 1 && !dmo) || (k->n_out > 2 && !dio))
		goto out;
	if (CU_LAUNCH(k, stats_kernel, cu_grid(outer), CU_BLOCK, dx, dt, len, eps, st == OV_DT_FLOAT, dm, dinv, dmo,
		      dio, (int)st, outer))
		goto out;
	if (x->numel) {
		void *dy = cu_alloc(k, &bufs, (size_t)x->numel * (dt == OV_DT_DOUBLE ? sizeof(double) : sizeof(float)));
		if (!dy ||
		    CU_LAUNCH(k, layernorm_kernel, cu_grid(x->numel), CU_BLOCK, bc, dx, ds, db, dt, dm, dinv, dy, len,
			      x->numel) ||
		    norm_output(k, &bufs, 0, dy, dt))
			goto out;
	}
	if ((dmo && cu_output(k, &bufs, 1, dmo)) || (dio && cu_output(k, &bufs, 2, dio)))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// ---- InstanceNormalization ----

static __global__ void instancenorm_kernel(const void *x, int dt, const double *mean, const double *inv,
					   const double *scale, const double *bias, int64_t c, void *y, int64_t len,
					   int64_t n)
{
	CU_FOR(i, n)
	{
		int64_t g = i / len, ch = g % c;
		double m = mean[g], iv = inv[g], sc = scale[ch], bi = bias[ch];
		if (dt == OV_DT_DOUBLE)
			((double *)y)[i] = cu_group_norm_d(((const double *)x)[i], m, iv, sc, bi);
		else
			((float *)y)[i] = cu_group_norm_f(((const float *)x)[i], m, iv, sc, bi);
	}
}

static int k_instancenorm(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = input(k, 0);
	double *sc = NULL, *bi = NULL;
	struct cu_bufs bufs = {};
	int rc = EXEC_DECLINE, decline, dt;

	if (!x || !norm_type(x->dtype) || x->rank < 3)
		return EXEC_DECLINE;
	int64_t c = x->dims[1], len = xk_numel(x->rank - 2, x->dims + 2), groups = x->dims[0] * c;
	if (!(sc = host_param(k, 1, c, &decline)) || !(bi = host_param(k, 2, c, &decline))) {
		rc = decline ? EXEC_DECLINE : -1;
		goto out;
	}
	rc = -1;
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		goto out;
	if (x->numel) {
		const void *dx = norm_input(k, &bufs, 0, &dt);
		const double *dsc = dx ? upload_doubles(k, &bufs, sc, c) : NULL;
		const double *dbi = dsc ? upload_doubles(k, &bufs, bi, c) : NULL;
		double *dm = dbi ? (double *)cu_alloc(k, &bufs, (size_t)groups * sizeof(double)) : NULL;
		double *dinv = dm ? (double *)cu_alloc(k, &bufs, (size_t)groups * sizeof(double)) : NULL;
		void *dy = dinv ? cu_alloc(k, &bufs, (size_t)x->numel * (dt == OV_DT_DOUBLE ? 8 : 4)) : NULL;
		if (!dy ||
		    CU_LAUNCH(k, stats_kernel, cu_grid(groups), CU_BLOCK, dx, dt, len,
			      (double)xk_attr_float(k, "epsilon", 1e-5f), 0, dm, dinv, (void *)NULL, (void *)NULL, 0,
			      groups) ||
		    CU_LAUNCH(k, instancenorm_kernel, cu_grid(x->numel), CU_BLOCK, dx, dt, dm, dinv, dsc, dbi, c, dy,
			      len, x->numel) ||
		    norm_output(k, &bufs, 0, dy, dt))
			goto out;
	}
	rc = 0;
out:
	cu_bufs_free(&bufs); // after the outputs' wait, so the parameters are no longer read
	free(sc);
	free(bi);
	return rc;
}

// ---- BatchNormalization (inference) ----

static __global__ void batchnorm_kernel(const void *x, int dt, const double *a, const double *b, int64_t c,
					int64_t inner, int64_t pn, int per_channel, void *y, int64_t n)
{
	CU_FOR(i, n)
	{
		int64_t q = i / inner, ch = q % c, p = pn == c ? ch : ch * inner + (i - q * inner);
		if (dt == OV_DT_DOUBLE)
			((double *)y)[i] = ((const double *)x)[i] * a[p] + b[p];
		else
			((float *)y)[i] = cu_batchnorm_f(((const float *)x)[i], a[p], b[p], per_channel);
	}
}

// The running statistics' form (training_mode, opset 14 on, is left to the CPU, as are the optional outputs).
static int k_batchnorm(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = input(k, 0);
	double *par[4] = {NULL, NULL, NULL, NULL}, *a = NULL;
	struct cu_bufs bufs = {};
	int rc = EXEC_DECLINE, decline = 1, dt;

	if (!x || !norm_type(x->dtype) || x->rank < 1 || k->n_out > 1 || !input(k, 1))
		return EXEC_DECLINE;
	if (k->opset >= 14 && xk_attr_int(k, "training_mode", 0) != 0)
		return EXEC_DECLINE;
	int64_t c = x->rank >= 2 ? x->dims[1] : x->dims[0], inner = 1;
	for (int i = 2; i < x->rank; i++)
		inner *= x->dims[i];
	// spatial = 0 (before opset 9): the parameters are per element of (C, D1, ...)
	int64_t pn = k->in[1]->numel == c * inner && inner > 1 ? c * inner : c;
	int per_channel = pn == c && inner > 1;
	for (int i = 0; i < 4; i++)
		if (!(par[i] = host_param(k, (size_t)i + 1, pn, &decline))) {
			rc = decline ? EXEC_DECLINE : -1;
			goto out;
		}
	rc = -1;
	// scale / sqrt(var + eps) and bias - mean * that, per parameter, in double as the CPU computes them
	if (!(a = (double *)malloc((size_t)(2 * pn + 1) * sizeof *a))) {
		rc = xk_fail(k, "out of memory");
		goto out;
	}
	{
		double eps = xk_attr_float(k, "epsilon", 1e-5f);
		for (int64_t p = 0; p < pn; p++) {
			a[p] = par[0][p] / sqrt(par[3][p] + eps);
			a[pn + p] = par[1][p] - par[2][p] * a[p];
		}
	}
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		goto out;
	if (x->numel) {
		const void *dx = norm_input(k, &bufs, 0, &dt);
		const double *dab = dx ? upload_doubles(k, &bufs, a, 2 * pn) : NULL;
		void *dy = dab ? cu_alloc(k, &bufs, (size_t)x->numel * (dt == OV_DT_DOUBLE ? 8 : 4)) : NULL;
		if (!dy ||
		    CU_LAUNCH(k, batchnorm_kernel, cu_grid(x->numel), CU_BLOCK, dx, dt, dab, dab + pn, c, inner, pn,
			      per_channel && dt == OV_DT_FLOAT, dy, x->numel) ||
		    norm_output(k, &bufs, 0, dy, dt))
			goto out;
	}
	rc = 0;
out:
	cu_bufs_free(&bufs);
	for (int i = 0; i < 4; i++)
		free(par[i]);
	free(a);
	return rc;
}

// the opset-13 rows mark the change of behaviour (the kernel reads the opset itself); BatchNormalization's rows
// its forms of 9 (no spatial attribute), 14 (training_mode) and 15 (scale and mean of their own types)
const struct exec_kernel cuda_norm_kernels[] = {
	{"BatchNormalization", 9, k_batchnorm},
	{"BatchNormalization", 14, k_batchnorm},
	{"BatchNormalization", 15, k_batchnorm},
	{"InstanceNormalization", 1, k_instancenorm},
	{"LayerNormalization", 17, k_layernorm},
	{"LogSoftmax", 1, k_log_softmax},
	{"LogSoftmax", 13, k_log_softmax},
	{"Softmax", 1, k_softmax},
	{"Softmax", 13, k_softmax},
};
const size_t cuda_norm_count = sizeof cuda_norm_kernels / sizeof cuda_norm_kernels[0];
