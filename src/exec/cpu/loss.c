/* CPU losses: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "src/exec/exec.h"
#include "src/exec/ops/index.h"

#define MAXR XT_MAX_RANK
#define PI 3.14159265358979323846

/* ---- NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss ------------------------------------------------------------ */

/* loss[n,d] = -weight[t] * logp[n, t, d] for the target t (0 where t is ignore_index), reduced as asked: 'mean'
 * divides by the sum of the weights used (the count when there are none), as the reference does.  logp is
 * [N, C, D] in double. */
static int nll_finish(struct exec_kernel_ctx *k, const double *logp, const struct xtensor *x, const struct xtensor *t,
		      const struct xtensor *w, int64_t N, int64_t C, int64_t D)
{
	char red[8];
	int64_t ign = xk_attr_int(k, "ignore_index", INT64_MIN);
	int has_ign = ign != INT64_MIN;

	xk_attr_str(k, "reduction", "mean", red, sizeof red);
	int none = !strcmp(red, "none"), mean = !strcmp(red, "mean");
	if (!none && !mean && strcmp(red, "sum"))
		return xk_fail(k, "unknown reduction '%s'", red);
	if (w && (w->rank != 1 || w->dims[0] != C))
		return xk_fail(k, "weight must be 1-D of %" PRId64 " classes", C);
	if (none ? xk_output(k, 0, x->dtype, t->rank, t->dims) : xk_output(k, 0, x->dtype, 0, NULL))
		return -1;
	double total = 0, wsum = 0;
	for (int64_t n = 0; n < N; n++)
		for (int64_t d = 0; d < D; d++) {
			int64_t c = xt_get_int(t, n * D + d);
			double l = 0, wt = 1;
			if (has_ign && c == ign)
				wt = 0;
			else {
				if (c < 0 || c >= C)
					return xk_fail(k, "target[%" PRId64 "] = %" PRId64 " is out of range for %" PRId64 " classes",
						       n * D + d, c, C);
				if (w)
					wt = xt_get(w, c);
				l = -logp[(n * C + c) * D + d] * wt;
			}
			if (none)
				xt_set(k->out[0], n * D + d, l);
			total += l;
			wsum += wt;
		}
	if (!none)
		xt_set(k->out[0], 0, mean ? total / wsum : total);
	return 0;
}

/* x [N, C, d1...] and target [N, d1...]: sizes, checked. */
static int loss_dims(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *t, int64_t *N,
		     int64_t *C, int64_t *D)
{
	if (x->dtype != OV_DT_FLOAT && x->dtype != OV_DT_DOUBLE && x->dtype != OV_DT_FLOAT16 && x->dtype != OV_DT_BFLOAT16)
		return xk_fail(k, "the scores are %s, not a float type", dtype_name(x->dtype));
	if (x->rank < 2 || t->rank != x->rank - 1 || t->dims[0] != x->dims[0])
		return xk_fail(k, "input must be [N, C, d1...] and target [N, d1...]");
	*D = 1;
	for (int a = 2; a < x->rank; a++) {
		if (t->dims[a - 1] != x->dims[a])
			return xk_fail(k, "target dim %d is %" PRId64 ", the input's %" PRId64, a - 1, t->dims[a - 1], x->dims[a]);
		*D *= x->dims[a];
	}
	*N = x->dims[0];
	*C = x->dims[1];
	return 0;
}

static int k_nll_loss(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0), *t = xk_in(k, 1), *w = xk_in(k, 2);
	int64_t N, C, D;

	if (!x || !t)
		return xk_fail(k, "input and target are required");
	if (loss_dims(k, x, t, &N, &C, &D))
		return -1;
	double *lp = malloc((size_t)(x->numel ? x->numel : 1) * sizeof *lp);
	if (!lp)
		return xk_fail(k, "out of memory");
	for (int64_t i = 0; i < x->numel; i++)
		lp[i] = xt_get(x, i);
	int rc = nll_finish(k, lp, x, t, w, N, C, D);
	free(lp);
	return rc;
}

static int k_sce_loss(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0), *t = xk_in(k, 1), *w = xk_in(k, 2);
	int64_t N, C, D;

	if (!x || !t)
		return xk_fail(k, "scores and labels are required");
	if (loss_dims(k, x, t, &N, &C, &D))
		return -1;
	double *lp = malloc((size_t)(x->numel ? x->numel : 1) * sizeof *lp);
	if (!lp)
		return xk_fail(k, "out of memory");
	/* log_softmax over the classes */
	for (int64_t n = 0; n < N; n++)
		for (int64_t d = 0; d < D; d++) {
			double mx = -INFINITY, s = 0;
			for (int64_t c = 0; c < C; c++)
				mx = fmax(mx, xt_get(x, (n * C + c) * D + d));
			for (int64_t c = 0; c < C; c++)
				s += exp(xt_get(x, (n * C + c) * D + d) - mx);
			for (int64_t c = 0; c < C; c++)
				lp[(n * C + c) * D + d] = xt_get(x, (n * C + c) * D + d) - mx - log(s);
		}
	int rc = nll_finish(k, lp, x, t, w, N, C, D);
	if (!rc && k->n_out > 1) {
		if (xk_output(k, 1, x->dtype, x->rank, x->dims))
			rc = -1;
		else
			for (int64_t i = 0; i < x->numel; i++)
				xt_set(k->out[1], i, lp[i]);
	}
	free(lp);
	return rc;
}

const struct exec_kernel cpu_loss_kernels[] = {
	{.op = "NegativeLogLikelihoodLoss", .since = 12, .fn = k_nll_loss},
	{.op = "SoftmaxCrossEntropyLoss", .since = 12, .fn = k_sce_loss},
};
const size_t cpu_loss_count = sizeof cpu_loss_kernels / sizeof cpu_loss_kernels[0];
