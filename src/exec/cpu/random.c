/* CPU random generators: RandomUniform(Like), RandomNormal(Like), Bernoulli, and Dropout's training mode (a
 * Mersenne Twister seeded from the seed attribute). */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "src/base/dtype.h"
#include "src/exec/cpu/kernels.h"
#include "src/exec/exec.h"
#include "src/exec/ops/index.h"

#define MAXR XT_MAX_RANK
#define PI 3.14159265358979323846

/* ---- RandomUniform(Like), RandomNormal(Like), Bernoulli ------------------------------------------------------------- */

/* numpy's legacy RandomState (MT19937 seeded by init_genrand, 53-bit doubles, polar-method normals), so that a
 * model run with a seed gives the ONNX reference's numbers.  Without a seed, onnxview uses seed 0: runs repeat. */
struct mt {
	uint32_t s[624];
	int i, has_gauss;
	double gauss;
};

static void mt_seed(struct mt *m, uint32_t seed)
{
	m->s[0] = seed;
	for (int i = 1; i < 624; i++)
		m->s[i] = 1812433253u * (m->s[i - 1] ^ (m->s[i - 1] >> 30)) + (uint32_t)i;
	m->i = 624;
	m->has_gauss = 0;
}

static uint32_t mt_next(struct mt *m)
{
	if (m->i >= 624) {
		for (int i = 0; i < 624; i++) {
			uint32_t y = (m->s[i] & 0x80000000u) | (m->s[(i + 1) % 624] & 0x7fffffffu);
			m->s[i] = m->s[(i + 397) % 624] ^ (y >> 1) ^ (y & 1 ? 0x9908b0dfu : 0);
		}
		m->i = 0;
	}
	uint32_t y = m->s[m->i++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680u;
	y ^= (y << 15) & 0xefc60000u;
	return y ^ (y >> 18);
}

static double mt_double(struct mt *m)
{
	uint32_t a = mt_next(m) >> 5, b = mt_next(m) >> 6;
	return ((double)a * 67108864.0 + (double)b) / 9007199254740992.0;
}

static double mt_gauss(struct mt *m)
{
	if (m->has_gauss) {
		m->has_gauss = 0;
		return m->gauss;
	}
	double x1, x2, r2;
	do {
		x1 = 2 * mt_double(m) - 1;
		x2 = 2 * mt_double(m) - 1;
		r2 = x1 * x1 + x2 * x2;
	} while (r2 >= 1.0 || r2 == 0.0);
	double f = sqrt(-2.0 * log(r2) / r2);
	m->gauss = f * x1;
	m->has_gauss = 1;
	return f * x2;
}

/* Dropout with training_mode true (cpu/elementwise.c's kernel hands it over): an element is kept where numpy's
 * uniform draw for it (RandomState(seed), one draw an element in C order) is at least the ratio, and scaled by
 * 1 / (1 - ratio), as ONNX's reference computes it; the mask (output 1) says which were kept. */
int cpu_dropout_train(struct exec_kernel_ctx *k, const struct xtensor *x, double ratio)
{
	int64_t seed = xk_attr_int(k, "seed", 0);
	struct mt *m;

	if (!(ratio >= 0 && ratio < 1))
		return xk_fail(k, "ratio %g is outside [0, 1)", ratio);
	if (x->dtype != OV_DT_FLOAT && x->dtype != OV_DT_DOUBLE && x->dtype != OV_DT_FLOAT16 && x->dtype != OV_DT_BFLOAT16)
		return xk_fail(k, "Dropout takes a float tensor, not %s", dtype_short_name(x->dtype));
	if (xk_output(k, 0, x->dtype, x->rank, x->dims) ||
	    (k->n_out > 1 && xk_output(k, 1, OV_DT_BOOL, x->rank, x->dims)))
		return -1;
	if (!(m = malloc(sizeof *m)))
		return xk_fail(k, "out of memory");
	mt_seed(m, (uint32_t)seed);
	/* the scale in x's precision, as numpy multiplies a float32 array by a Python float */
	double scale = 1 / (1 - ratio);
	if (x->dtype != OV_DT_DOUBLE)
		scale = (float)scale;
	for (int64_t i = 0; i < x->numel; i++) {
		int keep = mt_double(m) >= ratio;
		xt_set(k->out[0], i, keep ? xt_get(x, i) * scale : 0.0 * xt_get(x, i));
		if (k->n_out > 1)
			((uint8_t *)k->out[1]->data)[i] = (uint8_t)keep;
	}
	free(m);
	return 0;
}

enum rnd { RND_UNIFORM, RND_NORMAL, RND_BERNOULLI };

static int random_run(struct exec_kernel_ctx *k, enum rnd kind, int like)
{
	const struct xtensor *x = like ? xk_in(k, 0) : NULL;
	int64_t d[MAXR];
	int rank;
	struct mt *m;

	if (like && !x)
		return xk_fail(k, "input 0 is missing");
	int32_t dt = (int32_t)xk_attr_int(k, "dtype", like ? x->dtype : OV_DT_FLOAT);
	if (dt != OV_DT_FLOAT && dt != OV_DT_DOUBLE && dt != OV_DT_FLOAT16 && dt != OV_DT_BFLOAT16 &&
	    !(kind == RND_BERNOULLI && xt_elem_size(dt) && dt != OV_DT_STRING))
		return xk_fail(k, "random values of %s are not supported", dtype_name(dt));
	if (like) {
		rank = x->rank;
		memcpy(d, x->dims, sizeof d);
	} else {
		int64_t n = xk_attr_ints(k, "shape", d, MAXR);
		if (n < 0 || n > MAXR)
			return xk_fail(k, "the shape attribute is missing or over rank %d", MAXR);
		rank = (int)n;
	}
	if (kind == RND_BERNOULLI && x && x->dtype != OV_DT_FLOAT && x->dtype != OV_DT_DOUBLE && x->dtype != OV_DT_FLOAT16)
		return xk_fail(k, "Bernoulli takes probabilities as float, not %s", dtype_name(x->dtype));
	float seed = xk_attr_float(k, "seed", 0.0f);
	if (!(fabsf(seed) < 0x1p63f)) /* NaN, infinities and seeds no integer holds */
		return xk_fail(k, "seed %g is not a usable seed (a whole number is expected)", (double)seed);
	if (xk_output(k, 0, dt, rank, d))
		return -1;
	if (!(m = malloc(sizeof *m)))
		return xk_fail(k, "out of memory");
	mt_seed(m, (uint32_t)(int64_t)seed);
	struct xtensor *y = k->out[0];
	double a = xk_attr_float(k, kind == RND_UNIFORM ? "low" : "mean", 0.0f);
	double b = xk_attr_float(k, kind == RND_UNIFORM ? "high" : "scale", 1.0f);
	for (int64_t i = 0; i < y->numel; i++) {
		double v;
		if (kind == RND_UNIFORM)
			v = a + (b - a) * mt_double(m);
		else if (kind == RND_NORMAL)
			v = a + b * mt_gauss(m);
		else {
			/* numpy's binomial(1, p) by inversion: no draw at p = 0 */
			double p = xt_get(x, i);
			if (!(p >= 0 && p <= 1)) {
				free(m);
				return xk_fail(k, "probability %g at %" PRId64 " is outside [0, 1]", p, i);
			}
			v = p == 0 ? 0 : p <= 0.5 ? (mt_double(m) > 1 - p) : (mt_double(m) <= p);
		}
		xt_set(y, i, v);
	}
	free(m);
	return 0;
}

static int k_random_uniform(struct exec_kernel_ctx *k) { return random_run(k, RND_UNIFORM, 0); }
static int k_random_uniform_like(struct exec_kernel_ctx *k) { return random_run(k, RND_UNIFORM, 1); }
static int k_random_normal(struct exec_kernel_ctx *k) { return random_run(k, RND_NORMAL, 0); }
static int k_random_normal_like(struct exec_kernel_ctx *k) { return random_run(k, RND_NORMAL, 1); }
static int k_bernoulli(struct exec_kernel_ctx *k) { return random_run(k, RND_BERNOULLI, 1); }

const struct exec_kernel cpu_random_kernels[] = {
	{.op = "RandomUniform", .since = 1, .fn = k_random_uniform},
	{.op = "RandomUniformLike", .since = 1, .fn = k_random_uniform_like},
	{.op = "RandomNormal", .since = 1, .fn = k_random_normal},
	{.op = "RandomNormalLike", .since = 1, .fn = k_random_normal_like},
	{.op = "Bernoulli", .since = 15, .fn = k_bernoulli},
};
const size_t cpu_random_count = sizeof cpu_random_kernels / sizeof cpu_random_kernels[0];
