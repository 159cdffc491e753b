/* CPU kernels of the preview training domain (ai.onnx.preview.training): the optimizer steps Momentum, Adam and
 * Adagrad, each updating n tensors at once from the learning rate R and the step count T.  In double, each
 * result rounded once to its tensor's type. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/exec.h"

/* Inputs R, T, then groups of n tensors each (X..., G..., and the optimizer's state): n, or -1 with k failed. */
static int64_t groups(struct exec_kernel_ctx *k, int nstate, double *r, int64_t *t)
{
	size_t per = (size_t)(2 + nstate);

	if (k->n_in < 2 + per || (k->n_in - 2) % per)
		return xk_fail(k, "the inputs are R, T and %zu groups of tensors of one count", per);
	if (!k->in[0] || !k->in[1] || k->in[0]->numel != 1 || k->in[1]->numel != 1)
		return xk_fail(k, "R and T must be scalars");
	*r = xt_get(k->in[0], 0);
	*t = xt_get_int(k->in[1], 0);
	int64_t n = (int64_t)((k->n_in - 2) / per);
	if (k->n_out != (size_t)(n * (1 + nstate)))
		return xk_fail(k, "%zu outputs for %" PRId64 " tensors (%" PRId64 " wanted)", k->n_out, n, n * (1 + nstate));
	for (size_t i = 2; i < k->n_in; i++) {
		const struct xtensor *a = k->in[i], *x = k->in[2 + (i - 2) % (size_t)n];
		if (!a || (a->dtype != OV_DT_FLOAT && a->dtype != OV_DT_DOUBLE))
			return xk_fail(k, "input %zu must be a float or double tensor", i);
		if (a->numel != x->numel)
			return xk_fail(k, "input %zu has %" PRId64 " elements, its X %" PRId64, i, a->numel, x->numel);
	}
	for (int64_t j = 0; j < n * (1 + nstate); j++) {
		const struct xtensor *like = k->in[2 + j];
		if (xk_output(k, (size_t)j, like->dtype, like->rank, like->dims))
			return -1;
	}
	return n;
}

/* V_new = alpha V + beta' (lambda X + G) with beta' = beta once T > 0 (1 on the first step);
 * X_new = X - R V_new, or (nesterov) X - R (lambda X + G + alpha V_new). */
static int k_momentum(struct exec_kernel_ctx *k)
{
	double r, alpha = xk_attr_float(k, "alpha", 0), beta = xk_attr_float(k, "beta", 0);
	double lambda = xk_attr_float(k, "norm_coefficient", 0);
	int64_t t, n = groups(k, 1, &r, &t);
	char mode[16];

	if (n < 0)
		return -1;
	xk_attr_str(k, "mode", "", mode, sizeof mode);
	int nesterov = !strcmp(mode, "nesterov");
	if (!nesterov && strcmp(mode, "standard"))
		return xk_fail(k, "mode is \"%s\" (standard or nesterov)", mode);
	double b = t > 0 ? beta : 1;
	for (int64_t j = 0; j < n; j++) {
		const struct xtensor *x = k->in[2 + j], *g = k->in[2 + n + j], *v = k->in[2 + 2 * n + j];
		for (int64_t i = 0; i < x->numel; i++) {
			double xi = xt_get(x, i), gr = lambda * xi + xt_get(g, i);
			double vn = alpha * xt_get(v, i) + b * gr;
			xt_set(k->out[j], i, nesterov ? xi - r * (gr + alpha * vn) : xi - r * vn);
			xt_set(k->out[n + j], i, vn);
		}
	}
	return 0;
}

/* V_new = alpha V + (1 - alpha) G', H_new = beta H + (1 - beta) G'^2 with G' = lambda X + G;
 * X_new = (1 - lambda_post) (X - R' V_new / (sqrt(H_new) + epsilon)), R' = R sqrt(1 - beta^T) / (1 - alpha^T)
 * once T > 0. */
static int k_adam(struct exec_kernel_ctx *k)
{
	double r, alpha = xk_attr_float(k, "alpha", 0.9f), beta = xk_attr_float(k, "beta", 0.999f);
	double eps = xk_attr_float(k, "epsilon", 1e-6f), lambda = xk_attr_float(k, "norm_coefficient", 0);
	double post = xk_attr_float(k, "norm_coefficient_post", 0);
	int64_t t, n = groups(k, 2, &r, &t);

	if (n < 0)
		return -1;
	double ra = t > 0 ? r * sqrt(1 - pow(beta, (double)t)) / (1 - pow(alpha, (double)t)) : r;
	for (int64_t j = 0; j < n; j++) {
		const struct xtensor *x = k->in[2 + j], *g = k->in[2 + n + j], *v = k->in[2 + 2 * n + j],
				     *h = k->in[2 + 3 * n + j];
		for (int64_t i = 0; i < x->numel; i++) {
			double xi = xt_get(x, i), gr = lambda * xi + xt_get(g, i);
			double vn = alpha * xt_get(v, i) + (1 - alpha) * gr;
			double hn = beta * xt_get(h, i) + (1 - beta) * gr * gr;
			xt_set(k->out[j], i, (1 - post) * (xi - ra * (vn / (sqrt(hn) + eps))));
			xt_set(k->out[n + j], i, vn);
			xt_set(k->out[2 * n + j], i, hn);
		}
	}
	return 0;
}

/* R' = R / (1 + T decay), G' = lambda X + G, H_new = H + G'^2, X_new = X - R' G' / (sqrt(H_new) + epsilon). */
static int k_adagrad(struct exec_kernel_ctx *k)
{
	double r, decay = xk_attr_float(k, "decay_factor", 0), eps = xk_attr_float(k, "epsilon", 0);
	double lambda = xk_attr_float(k, "norm_coefficient", 0);
	int64_t t, n = groups(k, 1, &r, &t);

	if (n < 0)
		return -1;
	double ra = r / (1 + (double)t * decay);
	for (int64_t j = 0; j < n; j++) {
		const struct xtensor *x = k->in[2 + j], *g = k->in[2 + n + j], *h = k->in[2 + 2 * n + j];
		for (int64_t i = 0; i < x->numel; i++) {
			double xi = xt_get(x, i), gr = lambda * xi + xt_get(g, i);
			double hn = xt_get(h, i) + gr * gr;
			xt_set(k->out[j], i, xi - ra * gr / (sqrt(hn) + eps));
			xt_set(k->out[n + j], i, hn);
		}
	}
	return 0;
}

/* the family of domain ai.onnx.preview.training (src/exec/cpu/registry.c) */
const struct exec_kernel cpu_training_kernels[] = {
	{.op = "Momentum", .since = 1, .fn = k_momentum},
	{.op = "Adam", .since = 1, .fn = k_adam},
	{.op = "Adagrad", .since = 1, .fn = k_adagrad},
};
const size_t cpu_training_count = sizeof cpu_training_kernels / sizeof cpu_training_kernels[0];
