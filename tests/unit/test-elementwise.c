/* Unit tests of the shared element arithmetic (src/exec/ops/ov-math.h: 16-bit floats, rounding, integer division,
 * stable activations, broadcasting plans) and of the CPU element-wise kernels (src/exec/cpu/elementwise.c) run on
 * hand-built nodes: types, broadcasting, ONNX's integer rules, Cast, and hostile shapes that must fail cleanly. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/exec.h"
#include "src/exec/ops/ov-math.h"
#include "src/exec/ops/regex.h"
#include "src/exec/cpu/vmath.h"
#include "tests/unit/tap.h"

extern const struct exec_kernel cpu_elementwise_kernels[];
extern const size_t cpu_elementwise_count;

/* ---- ops/ov-math.h ---- */

static void test_half(void)
{
	int bad = 0;
	for (uint32_t h = 0; h < 0x10000; h++) {
		float f = ov_f16_to_f32((uint16_t)h);
		uint16_t back = ov_f32_to_f16(f);
		if (f != f ? (back & 0x7c00) != 0x7c00 || !(back & 0x3ff) : back != h)
			bad++;
	}
	OK(bad == 0, "float16 -> float32 -> float16 is exact for all 65536 values (%d differ)", bad);
	OK(ov_f16_to_f32(0x0001) == 0x1p-24f, "smallest float16 subnormal is 2^-24");
	OK(ov_f32_to_f16(65504.0f) == 0x7bff && ov_f32_to_f16(65519.99f) == 0x7bff, "65504 is the largest float16");
	OK(ov_f32_to_f16(65520.0f) == 0x7c00, "65520 rounds to infinity");
	OK(ov_f32_to_f16(0x1p-25f) == 0 && ov_f32_to_f16(0x1.8p-25f) == 1, "half of the smallest subnormal: ties to 0");
	OK(ov_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00 && ov_f32_to_f16(1.0f + 0x3p-11f) == 0x3c02,
	   "float16 ties go to even");
	OK(ov_f64_to_f16(1.0 + 0x1p-11 + 0x1p-40) == 0x3c01, "double -> float16 rounds once (no double rounding)");
	OK(ov_f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80 && ov_f32_to_bf16(1.0f + 0x3p-8f) == 0x3f82,
	   "bfloat16 ties go to even");
	float nan = NAN;
	OK(ov_bf16_to_f32(ov_f32_to_bf16(nan)) != ov_bf16_to_f32(ov_f32_to_bf16(nan)), "bfloat16 keeps NaN");
	OK(ov_bf16_to_f32(0x3f80) == 1.0f, "bfloat16 0x3f80 is 1");
}

static void test_scalar_math(void)
{
	OK(ov_round_f(0.5f) == 0.0f && ov_round_f(1.5f) == 2.0f && ov_round_f(2.5f) == 2.0f &&
	   ov_round_f(-2.5f) == -2.0f && ov_round_d(-0.5) == 0.0, "Round halves to even");
	OK(ov_div_i64(-7, 2) == -3 && ov_div_i64(7, -2) == -3, "integer Div truncates toward zero");
	OK(ov_div_i64(5, 0) == 0 && ov_div_i64(INT64_MIN, -1) == INT64_MIN, "Div by 0 and INT64_MIN/-1 are defined");
	OK(ov_mod_i64(-7, 2) == 1 && ov_mod_i64(7, -2) == -1 && ov_mod_i64(-4, 2) == 0, "Mod fmod=0 takes the divisor's sign");
	OK(ov_fmod_i64(-7, 2) == -1 && ov_fmod_i64(7, -2) == 1, "Mod fmod=1 takes the dividend's sign");
	OK(ov_mod_i64(INT64_MIN, -1) == 0 && ov_mod_i64(3, 0) == 0, "Mod by -1 and 0 are defined");
	OK(fabsf(ov_mod_f(-4.3f, 2.1f) - 1.9999996f) < 1e-5f && ov_mod_f(4.0f, -2.0f) == 0.0f, "float Mod fmod=0");
	OK(ov_pow_i64(3, 4) == 81 && ov_pow_i64(-2, 3) == -8 && ov_pow_i64(2, -1) == 0 && ov_pow_i64(-1, -3) == -1,
	   "integer Pow");
	OK(ov_shl_u64(1, 64) == 0 && ov_shr_u64(1ull << 63, 63) == 1, "shifts by the width give 0");
	OK(ov_sigmoid_f(-100.0f) >= 0.0f && ov_sigmoid_f(-100.0f) < 1e-40f && ov_sigmoid_f(100.0f) == 1.0f &&
	   ov_sigmoid_f(0.0f) == 0.5f, "Sigmoid is stable at both ends");
	double worst = 0;
	long checked = 0;
	for (float x = -103.0f; x < 88.7f; x += 0.0137f, checked++) {
		double want = exp((double)x), ulp = nextafterf((float)want, INFINITY) - (float)want;
		double u = fabs(ov_exp_f(x) - want) / (want < FLT_MIN ? 0x1p-149 : ulp);
		worst = u > worst ? u : worst;
	}
	OK(worst <= 1.0, "ov_exp_f within 1 ulp over [-103, 88.7] (%ld values, worst %.3f ulp)", checked, worst);
	OK(ov_exp_f(NAN) != ov_exp_f(NAN) && ov_exp_f(INFINITY) == INFINITY && ov_exp_f(-INFINITY) == 0.0f &&
	   ov_exp_f(88.73f) == INFINITY && ov_exp_f(0.0f) == 1.0f && ov_exp_f(-200.0f) == 0.0f, "ov_exp_f at the edges");
	OK(ov_softplus_f(100.0f) == 100.0f && ov_softplus_f(-100.0f) > 0.0f && ov_softplus_f(-100.0f) < 1e-40f,
	   "Softplus does not overflow");
	OK(ov_relu_f(NAN) != ov_relu_f(NAN) && ov_relu_f(-1.0f) == 0.0f, "Relu passes NaN through");
	OK(ov_min_f(1.0f, NAN) != ov_min_f(1.0f, NAN) && ov_max_f(NAN, 1.0f) != ov_max_f(NAN, 1.0f),
	   "Min and Max propagate NaN");
	OK(ov_clip_f(5.0f, 3.0f, 1.0f) == 1.0f && ov_clip_f(0.0f, 3.0f, 1.0f) == 1.0f, "Clip with min > max gives max");
	OK(fabsf(ov_selu_f(-1.0f, (float)OV_SELU_ALPHA, (float)OV_SELU_GAMMA) - -1.1113307f) < 1e-6f, "Selu defaults");
	OK(fabsf(ov_gelu_f(1.0f) - 0.8413447f) < 1e-6f && fabsf(ov_gelu_tanh_f(1.0f) - 0.8411920f) < 1e-6f,
	   "Gelu exact and tanh");
	OK(ov_hard_swish_f(3.0f) == 3.0f && ov_hard_swish_f(-3.0f) == 0.0f, "HardSwish");
	OK(ov_f64_to_i64(NAN) == 0 && ov_f64_to_i64(1e300) == INT64_MAX && ov_f64_to_i64(-2.7) == -2,
	   "float to int truncates and saturates");
}

/* compare every offset of a plan with the naive right-aligned index computation */
static int check_plan(int n, const int *ranks, const int64_t *const *dims)
{
	int rank;
	int64_t od[OV_BC_MAX_RANK];
	struct ov_bcast b;
	struct ov_bcast_iter it;

	if (ov_bcast_shape(n, ranks, dims, &rank, od) >= 0)
		return 0;
	ov_bcast_plan(&b, n, ranks, dims, rank, od);
	int64_t row = b.dims[b.rank - 1], rows = row ? b.numel / row : 0;
	ov_bcast_iter_seek(&b, &it, 0);
	for (int64_t r = 0; r < rows; r++) {
		for (int64_t j = 0; j < row; j++) {
			int64_t i = r * row + j, rem = i, want[OV_BC_MAX_IN] = {0};
			int64_t idx[OV_BC_MAX_RANK];
			for (int d = rank - 1; d >= 0; d--) {
				idx[d] = rem % od[d];
				rem /= od[d];
			}
			for (int k = 0; k < n; k++) {
				int64_t s = 1;
				for (int d = ranks[k] - 1; d >= 0; d--) {
					int64_t x = dims[k][d] == 1 ? 0 : idx[d + rank - ranks[k]];
					want[k] += x * s;
					s *= dims[k][d];
				}
				if (ov_bcast_offset(&b, k, i) != want[k] ||
				    it.off[k] + j * b.strides[k][b.rank - 1] != want[k])
					return 0;
			}
		}
		ov_bcast_iter_next(&b, &it);
	}
	return 1;
}

static void test_broadcast(void)
{
	int64_t a[] = {2, 3, 4, 5}, c[] = {3, 1, 1}, d[] = {5}, e[] = {1}, f[] = {2, 1, 4, 1}, g[] = {3, 1, 1};
	int r2[2], r3[3];
	const int64_t *p2[2], *p3[3];
	int rank;
	int64_t od[OV_BC_MAX_RANK];

	r2[0] = 4, r2[1] = 3, p2[0] = a, p2[1] = c;
	OK(check_plan(2, r2, p2), "[2,3,4,5] with [3,1,1]");
	r2[1] = 1, p2[1] = d;
	OK(check_plan(2, r2, p2), "[2,3,4,5] with [5]");
	r2[1] = 0, p2[1] = e;
	OK(check_plan(2, r2, p2), "[2,3,4,5] with a scalar");
	r2[0] = 4, r2[1] = 3, p2[0] = f, p2[1] = g;
	OK(check_plan(2, r2, p2), "[2,1,4,1] with [3,1,1] (both broadcast)");
	r3[0] = 4, r3[1] = 3, r3[2] = 1, p3[0] = f, p3[1] = c, p3[2] = d;
	OK(check_plan(3, r3, p3), "three inputs [2,1,4,1], [3,1,1], [5]");
	int64_t z[] = {0, 3}, o[] = {1, 3}, t[] = {4};
	r2[0] = 2, r2[1] = 2, p2[0] = z, p2[1] = o;
	OK(ov_bcast_shape(2, r2, p2, &rank, od) < 0 && rank == 2 && od[0] == 0 && od[1] == 3, "0 meets 1: 0");
	r2[0] = 2, r2[1] = 1, p2[0] = z, p2[1] = t;
	OK(ov_bcast_shape(2, r2, p2, &rank, od) == 1, "[0,3] and [4] do not broadcast; the second is named");
	struct ov_bcast b;
	int64_t big[] = {1, 1, 6, 1, 1}, one[] = {1, 1};
	r2[0] = 5, r2[1] = 2, p2[0] = big, p2[1] = one;
	ov_bcast_shape(2, r2, p2, &rank, od);
	ov_bcast_plan(&b, 2, r2, p2, rank, od);
	OK(b.rank == 1 && b.dims[0] == 6 && b.strides[0][0] == 1 && b.strides[1][0] == 0, "dims of 1 are merged away");
}

/* ---- kernels on hand-built nodes ---- */

struct tattr {
	const char *name;
	char kind; /* 'i', 'f', 's' */
	int64_t i;
	float f;
	const char *s;
};

static char last_err[1024];

static unsigned take_bits; /* exec_kernel_ctx.take for the next run() */

/* a device copy that is not one (xt_free releases it through fake_devops) */
static int fake_dev;
static void fake_release(void *dev)
{
	(void)dev;
}
static const struct xt_devops fake_devops = {.release = fake_release};

static int run(const char *op, int64_t opset, const struct xtensor *const *in, size_t n_in, struct xtensor *out,
	       size_t n_out, const struct tattr *attrs, size_t n_attrs)
{
	Onnx__NodeProto np = ONNX__NODE_PROTO__INIT;
	Onnx__AttributeProto at[8], *atp[8];
	struct graph_node gn;
	struct graph g;
	struct ov_error err;
	struct xtensor *outp[4];
	const struct exec_kernel *best = NULL;

	for (size_t i = 0; i < cpu_elementwise_count; i++) {
		const struct exec_kernel *r = &cpu_elementwise_kernels[i];
		if (!strcmp(r->op, op) && r->since <= opset && (!best || r->since > best->since))
			best = r;
	}
	if (!best) {
		snprintf(last_err, sizeof last_err, "no kernel for %s", op);
		return -1;
	}
	for (size_t a = 0; a < n_attrs; a++) {
		Onnx__AttributeProto z = ONNX__ATTRIBUTE_PROTO__INIT;
		at[a] = z;
		at[a].name = (char *)attrs[a].name;
		if (attrs[a].kind == 'i')
			at[a].has_i = 1, at[a].i = attrs[a].i;
		else if (attrs[a].kind == 'f')
			at[a].has_f = 1, at[a].f = attrs[a].f;
		else
			at[a].has_s = 1, at[a].s.data = (uint8_t *)attrs[a].s, at[a].s.len = strlen(attrs[a].s);
		atp[a] = &at[a];
	}
	np.op_type = (char *)op;
	np.n_attribute = n_attrs;
	np.attribute = atp;
	memset(&gn, 0, sizeof gn);
	gn.proto = &np;
	memset(&g, 0, sizeof g);
	g.nodes = &gn;
	g.n_nodes = 1;
	memset(&err, 0, sizeof err);
	for (size_t i = 0; i < n_out; i++)
		outp[i] = &out[i];
	struct exec_kernel_ctx k = {.g = &g, .node = 0, .opset = opset, .in = (const struct xtensor **)in,
				    .n_in = n_in, .out = outp, .n_out = n_out, .err = &err, .take = take_bits};
	int r = best->fn(&k);
	take_bits = 0;
	snprintf(last_err, sizeof last_err, "%s", err.msg);
	return r;
}

static void mk(struct xtensor *t, int32_t dt, int rank, const int64_t *dims, const double *v)
{
	struct ov_error err;
	xt_alloc(t, dt, rank, dims, &err);
	for (int64_t i = 0; v && i < t->numel; i++)
		xt_set(t, i, v[i]);
}

static int eq_vals(const struct xtensor *t, const double *v, int64_t n, double tol)
{
	if (t->numel != n)
		return 0;
	for (int64_t i = 0; i < n; i++) {
		double g = xt_get(t, i);
		if (!(fabs(g - v[i]) <= tol) && !(g != g && v[i] != v[i]))
			return 0;
	}
	return 1;
}

static void test_binary(void)
{
	struct xtensor a, b, y[2];
	const struct xtensor *in[3];
	int64_t d23[] = {2, 3}, d3[] = {3}, d21[] = {2, 1};

	/* float32 broadcast [2,3] + [3] and [2,1] */
	double av[] = {1, 2, 3, 4, 5, 6}, bv[] = {10, 20, 30};
	mk(&a, OV_DT_FLOAT, 2, d23, av);
	mk(&b, OV_DT_FLOAT, 1, d3, bv);
	in[0] = &a, in[1] = &b;
	memset(y, 0, sizeof y);
	double w1[] = {11, 22, 33, 14, 25, 36};
	OK(run("Add", 14, in, 2, y, 1, NULL, 0) == 0 && eq_vals(&y[0], w1, 6, 0), "Add float32 [2,3]+[3]");
	xt_free(&y[0]);
	xt_free(&b);
	double bv2[] = {100, 200};
	mk(&b, OV_DT_FLOAT, 2, d21, bv2);
	double w2[] = {-99, -98, -97, -196, -195, -194};
	OK(run("Sub", 14, in, 2, y, 1, NULL, 0) == 0 && eq_vals(&y[0], w2, 6, 0), "Sub float32 [2,3]-[2,1]");
	xt_free(&y[0]);
	/* mismatched shapes name both */
	int64_t d4[] = {4};
	xt_free(&b);
	mk(&b, OV_DT_FLOAT, 1, d4, NULL);
	OK(run("Mul", 14, in, 2, y, 1, NULL, 0) == -1 && strstr(last_err, "float32[2,3]") &&
	   strstr(last_err, "float32[4]"), "a broadcast mismatch names both shapes: %s", last_err);
	xt_free(&b);
	mk(&b, OV_DT_INT64, 1, d3, bv);
	OK(run("Add", 14, in, 2, y, 1, NULL, 0) == -1 && strstr(last_err, "int64"), "mixed types are refused: %s",
	   last_err);
	xt_free(&a);
	xt_free(&b);

	/* int32: wrapping, truncating division, division by zero */
	double ia[] = {2147483647, -7, 7, 5, -7, 8}, ib[] = {1, 2, -2, 0, 3, 5};
	mk(&a, OV_DT_INT32, 2, d23, ia);
	mk(&b, OV_DT_INT32, 2, d23, ib);
	double wadd[] = {-2147483648.0, -5, 5, 5, -4, 13}, wdiv[] = {2147483647, -3, -3, 0, -2, 1};
	double wmod[] = {0, 1, -1, 0, 2, 3}, wfmod[] = {0, -1, 1, 0, -1, 3};
	OK(run("Add", 14, in, 2, y, 1, NULL, 0) == 0 && y[0].dtype == OV_DT_INT32 && eq_vals(&y[0], wadd, 6, 0),
	   "Add int32 wraps");
	xt_free(&y[0]);
	OK(run("Div", 14, in, 2, y, 1, NULL, 0) == 0 && eq_vals(&y[0], wdiv, 6, 0), "Div int32 truncates, /0 gives 0");
	xt_free(&y[0]);
	OK(run("Mod", 13, in, 2, y, 1, NULL, 0) == 0 && eq_vals(&y[0], wmod, 6, 0), "Mod int32 fmod=0");
	xt_free(&y[0]);
	struct tattr fm = {"fmod", 'i', 1, 0, NULL};
	OK(run("Mod", 13, in, 2, y, 1, &fm, 1) == 0 && eq_vals(&y[0], wfmod, 6, 0), "Mod int32 fmod=1");
	xt_free(&y[0]);
	double wlt[] = {0, 1, 0, 0, 1, 0};
	OK(run("Less", 13, in, 2, y, 1, NULL, 0) == 0 && y[0].dtype == OV_DT_BOOL && eq_vals(&y[0], wlt, 6, 0),
	   "Less int32 gives bool");
	xt_free(&y[0]);
	xt_free(&b);
	/* the comparisons' own int32 loops, broadcasting a row (b [3]) and a scalar, at the type's ends */
	{
		double ca[] = {2147483647, -2147483648.0, 0, -1, 5, 2147483647}, cb[] = {2147483647, -1, 5};
		static const char *const ops[] = {"Equal", "Greater", "LessOrEqual", "GreaterOrEqual", "Less"};
		static const double want[5][6] = {{1, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 1, 1}, {1, 1, 1, 1, 0, 0},
						  {1, 0, 0, 0, 1, 1}, {0, 1, 1, 1, 0, 0}};
		struct xtensor c, d;
		int64_t d3c[1] = {3};
		mk(&c, OV_DT_INT32, 2, d23, ca);
		mk(&d, OV_DT_INT32, 1, d3c, cb);
		const struct xtensor *cin[2] = {&c, &d};
		int good = 0;
		for (int o = 0; o < 5; o++) {
			good += run(ops[o], 13, cin, 2, y, 1, NULL, 0) == 0 && y[0].dtype == OV_DT_BOOL &&
				eq_vals(&y[0], want[o], 6, 0);
			xt_free(&y[0]);
		}
		xt_free(&d);
		double sc[] = {-1};
		mk(&d, OV_DT_INT32, 0, d3c, sc);
		double weq[] = {0, 0, 0, 1, 0, 0};
		good += run("Equal", 13, cin, 2, y, 1, NULL, 0) == 0 && eq_vals(&y[0], weq, 6, 0);
		xt_free(&y[0]);
		xt_free(&c);
		xt_free(&d);
		OK(good == 6, "int32 comparisons with broadcasting at INT32_MIN and INT32_MAX (%d of 6)", good);
	}
	/* a unary node that may take its input (the runner's k->take) overwrites it in place, to the same bits; one
	 * whose loop is not written for that, or of another type, leaves it and allocates */
	{
		static const char *const ops[] = {"Sigmoid", "Tanh", "HardSwish", "HardSigmoid", "Relu"};
		int64_t dn21[1] = {21};
		double v[21];
		for (int i = 0; i < 21; i++)
			v[i] = (i - 10) * 1.7;
		v[0] = NAN, v[1] = INFINITY, v[2] = -INFINITY, v[3] = -0.0;
		int good = 0;
		for (int o = 0; o < 5; o++) {
			struct xtensor x1, x2, y1 = {0}, y2 = {0};
			mk(&x1, OV_DT_FLOAT, 1, dn21, v);
			mk(&x2, OV_DT_FLOAT, 1, dn21, v);
			const struct xtensor *i1[1] = {&x1}, *i2[1] = {&x2};
			void *mem = x2.data;
			int in_place = o < 4; /* Relu's loop reads through restrict: it allocates */
			if (run(ops[o], 14, i1, 1, &y1, 1, NULL, 0) == 0) {
				take_bits = 1;
				if (run(ops[o], 14, i2, 1, &y2, 1, NULL, 0) == 0 && y2.numel == 21 &&
				    !memcmp(y1.data, y2.data, 21 * sizeof(float)) &&
				    (in_place ? y2.data == mem && !x2.data : y2.data != mem && x2.data == mem))
					good++;
			}
			xt_free(&x1);
			xt_free(&x2);
			xt_free(&y1);
			xt_free(&y2);
		}
		/* a value with a copy on a device (a CPU node in a device run): the copy would go stale, so no */
		{
			struct xtensor xv, yv = {0};
			mk(&xv, OV_DT_FLOAT, 1, dn21, v);
			xv.dev = &fake_dev;
			xv.devops = &fake_devops;
			const struct xtensor *iv[1] = {&xv};
			void *mem = xv.data;
			take_bits = 1;
			good += run("Sigmoid", 14, iv, 1, &yv, 1, NULL, 0) == 0 && xv.data == mem && yv.data != mem;
			xt_free(&xv);
			xt_free(&yv);
		}
		struct xtensor xd, yd = {0};
		mk(&xd, OV_DT_DOUBLE, 1, dn21, v);
		const struct xtensor *id[1] = {&xd};
		void *mem = xd.data;
		take_bits = 1;
		good += run("Sigmoid", 14, id, 1, &yd, 1, NULL, 0) == 0 && xd.data == mem && yd.data != mem;
		xt_free(&xd);
		xt_free(&yd);
		OK(good == 7, "unary nodes offered their input overwrite it in place with the same bits, but not one with a "
		   "device copy (%d of 7)", good);
	}
	/* Pow: int32 base, float exponent */
	double pe[] = {0.5, 2, 1, 0, 2, 1};
	mk(&b, OV_DT_FLOAT, 2, d23, pe);
	double wpow[] = {46340, 49, 7, 1, 49, 8};
	OK(run("Pow", 15, in, 2, y, 1, NULL, 0) == 0 && y[0].dtype == OV_DT_INT32 && eq_vals(&y[0], wpow, 6, 0),
	   "Pow int32 ^ float32 is int32, truncated");
	xt_free(&y[0]);
	xt_free(&a);
	xt_free(&b);

	/* float16 Add goes through float32 and back */
	double ha[] = {1, 2.5, -3, 65504, 0.1, 1e-7}, hb[] = {1, 0.25, 3, 65504, 0.2, 0};
	mk(&a, OV_DT_FLOAT16, 2, d23, ha);
	mk(&b, OV_DT_FLOAT16, 2, d23, hb);
	in[0] = &a, in[1] = &b;
	OK(run("Add", 14, in, 2, y, 1, NULL, 0) == 0 && y[0].dtype == OV_DT_FLOAT16 && xt_get(&y[0], 0) == 2 &&
	   xt_get(&y[0], 1) == 2.75 && xt_get(&y[0], 2) == 0 && isinf(xt_get(&y[0], 3)) &&
	   fabs(xt_get(&y[0], 4) - 0.3) < 1e-3, "Add float16");
	xt_free(&y[0]);
	xt_free(&a);
	xt_free(&b);

	/* legacy broadcast (opset 6): B [3] placed on axis 1 of A [2,3,2] */
	int64_t d232[] = {2, 3, 2};
	double l3[] = {100, 200, 300};
	mk(&a, OV_DT_FLOAT, 3, d232, NULL);
	mk(&b, OV_DT_FLOAT, 1, d3, l3);
	struct tattr lb[] = {{"broadcast", 'i', 1, 0, NULL}, {"axis", 'i', 1, 0, NULL}};
	double wl[] = {100, 100, 200, 200, 300, 300, 100, 100, 200, 200, 300, 300};
	OK(run("Add", 6, in, 2, y, 1, lb, 2) == 0 && eq_vals(&y[0], wl, 12, 0), "Add-6 broadcast=1 axis=1");
	xt_free(&y[0]);
	xt_free(&a);
	xt_free(&b);

	/* empty and hostile shapes */
	int64_t d03[] = {0, 3}, d13[] = {1, 3};
	mk(&a, OV_DT_FLOAT, 2, d03, NULL);
	mk(&b, OV_DT_FLOAT, 2, d13, NULL);
	OK(run("Add", 14, in, 2, y, 1, NULL, 0) == 0 && y[0].numel == 0 && y[0].dims[0] == 0, "[0,3] + [1,3] is empty");
	xt_free(&y[0]);
	xt_free(&a);
	xt_free(&b);
	int64_t dbig1[] = {1 << 21, 1}, dbig2[] = {1, 1 << 21};
	struct xtensor va, vb;
	float *big = calloc((size_t)1 << 21, sizeof *big);
	xt_wrap(&va, OV_DT_FLOAT, 2, dbig1, big);
	xt_wrap(&vb, OV_DT_FLOAT, 2, dbig2, big);
	in[0] = &va, in[1] = &vb;
	OK(run("Add", 14, in, 2, y, 1, NULL, 0) == -1 && last_err[0], "an output of 2^42 elements is refused: %s",
	   last_err);
	xt_free(&y[0]);
	free(big);
	/* a missing input */
	in[0] = NULL;
	OK(run("Add", 14, in, 2, y, 1, NULL, 0) == -1 && strstr(last_err, "missing"), "a missing input is named");
}

static void test_unary_variadic(void)
{
	struct xtensor x, y[2], b, c;
	const struct xtensor *in[4];
	int64_t d6[] = {6}, d2[] = {2}, d1[] = {1};
	double xv[] = {-2.5, -0.5, 0, 0.5, 1.5, 2.5};
	memset(y, 0, sizeof y);

	mk(&x, OV_DT_FLOAT, 1, d6, xv);
	in[0] = &x;
	double wround[] = {-2, -0, 0, 0, 2, 2}, wrelu[] = {0, 0, 0, 0.5, 1.5, 2.5};
	OK(run("Round", 13, in, 1, y, 1, NULL, 0) == 0 && eq_vals(&y[0], wround, 6, 0), "Round float32");
	xt_free(&y[0]);
	OK(run("Relu", 14, in, 1, y, 1, NULL, 0) == 0 && eq_vals(&y[0], wrelu, 6, 0), "Relu float32");
	xt_free(&y[0]);
	struct tattr al = {"alpha", 'f', 0, 0.1f, NULL};
	double wlr[] = {-0.25, -0.05, 0, 0.5, 1.5, 2.5};
	OK(run("LeakyRelu", 16, in, 1, y, 1, &al, 1) == 0 && eq_vals(&y[0], wlr, 6, 1e-7), "LeakyRelu alpha 0.1");
	xt_free(&y[0]);
	struct tattr gel = {"approximate", 's', 0, 0, "fast"};
	OK(run("Gelu", 20, in, 1, y, 1, &gel, 1) == -1 && strstr(last_err, "fast"), "Gelu refuses unknown approximate");
	OK(run("Sqrt", 13, in, 1, y, 1, NULL, 0) == 0 && y[0].dtype == OV_DT_FLOAT, "Sqrt float32");
	xt_free(&y[0]);

	/* Clip: opset 6 attributes; opset 13 inputs, either absent */
	struct tattr cl[] = {{"min", 'f', 0, -1, NULL}, {"max", 'f', 0, 1, NULL}};
	double wclip[] = {-1, -0.5, 0, 0.5, 1, 1};
	OK(run("Clip", 6, in, 1, y, 1, cl, 2) == 0 && eq_vals(&y[0], wclip, 6, 0), "Clip-6 with attributes");
	xt_free(&y[0]);
	double lo = 0;
	mk(&b, OV_DT_FLOAT, 0, NULL, &lo);
	in[1] = NULL, in[2] = &b;
	double wmax0[] = {-2.5, -0.5, 0, 0, 0, 0};
	OK(run("Clip", 13, in, 3, y, 1, NULL, 0) == 0 && eq_vals(&y[0], wmax0, 6, 0), "Clip-13 with max only");
	xt_free(&y[0]);
	xt_free(&b);
	mk(&b, OV_DT_FLOAT, 1, d2, NULL);
	in[1] = &b, in[2] = NULL;
	OK(run("Clip", 13, in, 2, y, 1, NULL, 0) == -1 && strstr(last_err, "scalar"), "Clip refuses a min of 2 values");
	xt_free(&b);

	/* Cast */
	double cv[] = {300.0, -1.5, NAN, 2.9, -200.0, 1e10};
	struct xtensor cx;
	mk(&cx, OV_DT_FLOAT, 1, d6, cv);
	in[0] = &cx;
	struct tattr to8 = {"to", 'i', OV_DT_INT8, 0, NULL};
	double w8[] = {44, -1, 0, 2, 56, 0};
	OK(run("Cast", 13, in, 1, y, 1, &to8, 1) == 0 && y[0].dtype == OV_DT_INT8 && eq_vals(&y[0], w8, 6, 0),
	   "Cast float32 -> int8 truncates and wraps as numpy");
	xt_free(&y[0]);
	struct tattr tob = {"to", 'i', OV_DT_BOOL, 0, NULL};
	double wb[] = {1, 1, 1, 1, 1, 1};
	OK(run("Cast", 13, in, 1, y, 1, &tob, 1) == 0 && eq_vals(&y[0], wb, 6, 0), "Cast to bool: NaN is true");
	xt_free(&y[0]);
	struct tattr tos = {"to", 'i', OV_DT_STRING, 0, NULL};
	OK(run("Cast", 13, in, 1, y, 1, &tos, 1) == 0 &&  !strcmp(((char **)y[0].data)[0], "300.0") &&
	   !strcmp(((char **)y[0].data)[2], "nan") && !strcmp(((char **)y[0].data)[5], "10000000000.0"),
	   "Cast float32 -> string as numpy writes it");
	struct xtensor sy[1];
	memset(sy, 0, sizeof sy);
	in[0] = &y[0];
	struct tattr tof = {"to", 'i', OV_DT_FLOAT, 0, NULL};
	OK(run("Cast", 13, in, 1, sy, 1, &tof, 1) == 0 && xt_get(&sy[0], 1) == -1.5 && isnan(xt_get(&sy[0], 2)),
	   "Cast string -> float32");
	xt_free(&sy[0]);
	xt_free(&y[0]);
	struct tattr to8e = {"to", 'i', OV_DT_FLOAT8E4M3FN, 0, NULL};
	in[0] = &cx;
	int f8ok = run("Cast", 19, in, 1, y, 1, &to8e, 1) == 0 && y[0].dtype == OV_DT_FLOAT8E4M3FN &&
		   y[0].numel == cx.numel;
	for (int64_t i = 0; f8ok && i < cx.numel; i++) {
		double want = ov_small_to_f32(ov_f64_to_small(xt_get(&cx, i), OV_DT_FLOAT8E4M3FN, 1), OV_DT_FLOAT8E4M3FN);
		f8ok = xt_get(&y[0], i) == want || (isnan(want) && isnan(xt_get(&y[0], i)));
	}
	OK(f8ok, "Cast to float8 e4m3fn rounds each value as the codec does");
	xt_free(&y[0]);
	struct tattr tox = {"to", 'i', 99, 0, NULL};
	OK(run("Cast", 13, in, 1, y, 1, &tox, 1) == -1, "Cast to type 99 is refused");
	struct tattr to1 = {"to", 's', 0, 0, "DOUBLE"};
	OK(run("Cast", 1, in, 1, y, 1, &to1, 1) == 0 && y[0].dtype == OV_DT_DOUBLE, "Cast-1 names the type as a string");
	xt_free(&y[0]);
	xt_free(&cx);

	/* variadic: Sum of three with broadcasting, Mean of float16, Max of int64 */
	double one = 1, two[] = {10, 20};
	mk(&b, OV_DT_FLOAT, 1, d2, two);
	mk(&c, OV_DT_FLOAT, 1, d1, &one);
	in[0] = &c, in[1] = &b, in[2] = &c;
	double wsum[] = {12, 22};
	OK(run("Sum", 13, in, 3, y, 1, NULL, 0) == 0 && eq_vals(&y[0], wsum, 2, 0), "Sum of [1], [2], [1]");
	xt_free(&y[0]);
	double wmean[] = {4, 22.0 / 3};
	OK(run("Mean", 13, in, 3, y, 1, NULL, 0) == 0 && eq_vals(&y[0], wmean, 2, 1e-6), "Mean of [1], [2], [1]");
	xt_free(&y[0]);
	in[1] = &x;
	OK(run("Max", 13, in, 3, y, 1, NULL, 0) == 0 && y[0].numel == 6 && xt_get(&y[0], 5) == 2.5, "Max broadcasts");
	xt_free(&y[0]);
	in[1] = &b, in[2] = &x;
	OK(run("Min", 13, in, 3, y, 1, NULL, 0) == -1 && strstr(last_err, "[6]"), "Min names the shape that does not fit");
	xt_free(&b);
	xt_free(&c);
	xt_free(&x);

	/* Where with broadcasting; Dropout's mask */
	int64_t d21[] = {2, 1};
	double cond[] = {1, 0}, xs[] = {1, 2, 3}, ys[] = {-1};
	int64_t d3[] = {3};
	mk(&c, OV_DT_BOOL, 2, d21, cond);
	mk(&x, OV_DT_INT64, 1, d3, xs);
	mk(&b, OV_DT_INT64, 1, d1, ys);
	in[0] = &c, in[1] = &x, in[2] = &b;
	double ww[] = {1, 2, 3, -1, -1, -1};
	OK(run("Where", 16, in, 3, y, 1, NULL, 0) == 0 && y[0].dims[0] == 2 && y[0].dims[1] == 3 &&
	   eq_vals(&y[0], ww, 6, 0), "Where [2,1] ? [3] : [1]");
	xt_free(&y[0]);
	in[0] = &x;
	OK(run("Dropout", 13, in, 1, y, 2, NULL, 0) == 0 && y[1].dtype == OV_DT_BOOL && xt_get(&y[1], 2) == 1 &&
	   xt_get(&y[0], 2) == 3, "Dropout passes the input and an all-true mask");
	xt_free(&y[0]);
	xt_free(&y[1]);
	xt_free(&c);
	xt_free(&x);
	xt_free(&b);
}

/* random shapes: results against a naive index computation, mismatches refused, nothing out of bounds (run under
 * the sanitizers to see the last part) */
static void test_random_shapes(void)
{
	unsigned seed = 12345;
	int bad = 0, refused = 0, wrong_refusal = 0;
	struct ov_error err;

	for (int iter = 0; iter < 400; iter++) {
		int64_t od[5], da[5], db[5];
		int r = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 6;
		for (int d = 0; d < r; d++)
			od[d] = (int64_t)(((seed = seed * 1103515245u + 12345u) >> 16) % 4);
		int ra = r - (int)(((seed = seed * 1103515245u + 12345u) >> 16) % (r + 1));
		int rb = r - (int)(((seed = seed * 1103515245u + 12345u) >> 16) % (r + 1));
		for (int d = 0; d < ra; d++)
			da[d] = ((seed = seed * 1103515245u + 12345u) >> 16) % 3 ? od[d + r - ra] : 1;
		for (int d = 0; d < rb; d++)
			db[d] = ((seed = seed * 1103515245u + 12345u) >> 16) % 3 ? od[d + r - rb] : 1;
		int spoil = ((seed = seed * 1103515245u + 12345u) >> 16) % 8 == 0 && rb > 0;
		if (spoil)
			db[0] += 2;
		struct xtensor a, b, y;
		int32_t dt = iter % 2 ? OV_DT_FLOAT : OV_DT_INT32;
		xt_alloc(&a, dt, ra, da, &err);
		xt_alloc(&b, dt, rb, db, &err);
		for (int64_t i = 0; i < a.numel; i++)
			xt_set(&a, i, (double)(i * 7 % 13));
		for (int64_t i = 0; i < b.numel; i++)
			xt_set(&b, i, (double)(i * 5 % 11) * 100);
		const struct xtensor *in[2] = {&a, &b};
		memset(&y, 0, sizeof y);
		int rc = run(iter % 3 ? "Add" : "Sub", 14, in, 2, &y, 1, NULL, 0);
		/* does it broadcast? */
		int ok = 1, rank = ra > rb ? ra : rb;
		int64_t want[5];
		for (int d = 0; d < rank; d++) {
			int64_t x = d - (rank - ra) >= 0 ? da[d - (rank - ra)] : 1, z = d - (rank - rb) >= 0 ? db[d - (rank - rb)] : 1;
			if (x != z && x != 1 && z != 1)
				ok = 0;
			want[d] = x == 1 ? z : x;
		}
		if (!ok) {
			refused += rc == -1;
			wrong_refusal += rc != -1;
		} else if (rc != 0 || y.rank != rank) {
			bad++;
		} else {
			for (int64_t i = 0; i < y.numel; i++) {
				int64_t rem = i, oa = 0, ob = 0, sa = 1, sb = 1;
				for (int d = rank - 1; d >= 0; d--) {
					int64_t idx = rem % want[d];
					rem /= want[d];
					int dA = d - (rank - ra), dB = d - (rank - rb);
					if (dA >= 0) {
						oa += (da[dA] == 1 ? 0 : idx) * sa;
						sa *= da[dA];
					}
					if (dB >= 0) {
						ob += (db[dB] == 1 ? 0 : idx) * sb;
						sb *= db[dB];
					}
				}
				double w = iter % 3 ? xt_get(&a, oa) + xt_get(&b, ob) : xt_get(&a, oa) - xt_get(&b, ob);
				if (xt_get(&y, i) != w) {
					bad++;
					break;
				}
			}
		}
		xt_free(&y);
		xt_free(&a);
		xt_free(&b);
	}
	OK(bad == 0, "400 random broadcasts of rank 0-5 (dims 0-3) match the naive result (%d wrong)", bad);
	OK(wrong_refusal == 0 && refused > 0, "shapes that do not broadcast are refused (%d refused, %d not)", refused,
	   wrong_refusal);
}

/* RegexFullMatch's engine (src/exec/ops/regex.c) */
static int full(const char *pat, const char *s)
{
	char why[200];
	struct ov_regex *re = ov_regex_compile(pat, strlen(pat), why, sizeof why);
	if (!re)
		return -2;
	int m = ov_regex_full_match(re, s, strlen(s));
	ov_regex_free(re);
	return m;
}

static void test_regex(void)
{
	const char *email = "(\\W|^)[\\w.\\-]{0,25}@(yahoo|gmail)\\.com(\\W|$)";
	OK(full("www\\.[\\w.-]+\\.\\bcom\\b", "www.google.com") == 1 &&
	   full("www\\.[\\w.-]+\\.\\bcom\\b", "www.bbc.co.uk") == 0, "the ONNX test's URL pattern");
	OK(full(email, "account@gmail.com") == 1 && full(email, "account@hotmail.com") == 0 &&
	   full(email, "not email") == 0, "the ONNX test's e-mail pattern");
	OK(full("a{2,3}", "aaa") == 1 && full("a{2,3}", "aaaa") == 0 && full("a{2}", "a") == 0 &&
	   full("(ab)*c?", "ababc") == 1 && full("(ab)*c?", "abac") == 0, "counted and open repeats");
	OK(full("[^0-9]+", "abc") == 1 && full("[^0-9]+", "a1") == 0 && full("\\d+\\s\\D", "12 x") == 1,
	   "negated classes and class escapes");
	OK(full(".", "\xc3\xa9") == 1 && full("..", "\xc3\xa9") == 0, "'.' takes one whole UTF-8 character");
	OK(full("x|", "") == 1 && full("", "") == 1 && full("a", "") == 0, "empty alternatives and patterns");
	/* a pattern that makes a backtracking engine take exponential time: linear here */
	char text[64];
	memset(text, 'a', 40);
	text[40] = 'b', text[41] = '\0';
	OK(full("(a*)*c", text) == 0, "(a*)*c against 40 a's ends at once");
	char why[200];
	OK(!ov_regex_compile("(a", 2, why, sizeof why) && strstr(why, "not closed"), "an open group: %s", why);
	OK(!ov_regex_compile("(a)\\1", 6, why, sizeof why) && strstr(why, "back references"), "%s", why);
	OK(!ov_regex_compile("(?=a)", 5, why, sizeof why) && strstr(why, "look-around"), "%s", why);
	OK(!ov_regex_compile("a{1001}", 7, why, sizeof why) && strstr(why, "over 1000"), "%s", why);
	OK(!ov_regex_compile("(a{1000}){1000}", 15, why, sizeof why) && strstr(why, "too big"), "%s", why);
}

/* ---- cpu/vmath.h: the 8-lane forms give the scalar functions' bits ---- */

static uint32_t f_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

/* the same bits, or both NaN: where both operands of a product are NaN (Mish's x times tanh(softplus(x))), which
 * one's sign it keeps is the compiler's choice of operand order, in the scalar function as in the lanes */
static int same_f(float a, float b)
{
	return f_bits(a) == f_bits(b) || (a != a && b != b);
}

/* ulps between a and b (both finite or the same infinity), from their ordered bit patterns */
static int64_t ulp_diff(float a, float b)
{
	int64_t ia = (int32_t)f_bits(a), ib = (int32_t)f_bits(b);
	ia = ia < 0 ? INT32_MIN - ia : ia;
	ib = ib < 0 ? INT32_MIN - ib : ib;
	return ia > ib ? ia - ib : ib - ia;
}

struct vm_sweep {
	long values, exp_bad, sig_bad, tanh_bad, hs_bad, erf_bad, gelu_bad, log_bad, w_bad;
	int64_t tanh_ulps, erf_ulps, log_ulps, sp_ulps, em1_ulps;
	float tanh_worst, erf_worst, log_worst, sp_worst, em1_worst;
};

/* Every step-th float bit pattern (and the ones after it): the lanes against the scalar functions (and the forms
 * that take VM_W vectors at once, this vector with its neighbour in the bits), and ov_tanh_f against tanh in
 * double.  Bits compared, but a NaN's sign and payload: a fused multiply-add passes on the NaN of whichever operand
 * its encoding names first, and GCC picks the encoding.  VM_CLONES: on a machine with AVX2 it is the AVX2 clone
 * that runs. */
VM_CLONES static void vm_sweep(uint32_t step, struct vm_sweep *r)
{
	for (uint64_t u = 0; u < (1ull << 32); u += step) {
		v8f x;
		for (int j = 0; j < 8; j++) {
			uint32_t b = (uint32_t)(u + (uint64_t)j);
			memcpy(&x[j], &b, sizeof b);
		}
		v8f e = vm_exp(x), sg = vm_sigmoid(x), th = vm_tanh(x);
		v8f hs = vm_hard_sigmoid(x, vm_splat(0.2f), vm_splat(0.5f));
		v8f er = vm_erf(x), ge = vm_gelu(x), gt = vm_gelu_tanh(x), lg = vm_log(x), sp = vm_softplus(x);
		v8f mi = vm_mish(x), em = vm_expm1(x);
		v8f xw[VM_W], sw[VM_W], tw[VM_W], ew[VM_W], gw[VM_W], hw[VM_W], lw[VM_W], pw[VM_W], mw[VM_W];
		v8f qw[VM_W], xe[VM_W];
		for (int i = 0; i < VM_W; i++)
			for (int j = 0; j < 8; j++) {
				uint32_t b = (uint32_t)(u + (uint64_t)(8 * i + j) * 977);
				memcpy(&xw[i][j], &b, sizeof b);
			}
		vm_sigmoid_n(xw, sw, VM_W);
		vm_tanh_n(xw, tw, VM_W);
		vm_erf_n(xw, ew, VM_W);
		vm_gelu_n(xw, gw, VM_W);
		vm_gelu_tanh_n(xw, hw, VM_W);
		vm_log_n(xw, lw, VM_W);
		vm_softplus_n(xw, pw, VM_W);
		vm_mish_n(xw, mw, VM_W);
		vm_expm1_n(xw, qw, VM_W);
		vm_exp_n(xw, xe, VM_W);
		for (int i = 0; i < VM_W; i++)
			for (int j = 0; j < 8; j++)
				r->w_bad += !same_f(sw[i][j], ov_sigmoid_f(xw[i][j])) ||
					    !same_f(tw[i][j], ov_tanh_f(xw[i][j])) ||
					    !same_f(ew[i][j], ov_erf_f(xw[i][j])) ||
					    !same_f(gw[i][j], ov_gelu_f(xw[i][j])) ||
					    !same_f(hw[i][j], ov_gelu_tanh_f(xw[i][j])) ||
					    !same_f(lw[i][j], ov_log_f(xw[i][j])) ||
					    !same_f(pw[i][j], ov_softplus_f(xw[i][j])) || !same_f(mw[i][j], ov_mish_f(xw[i][j])) ||
					    !same_f(qw[i][j], ov_expm1_f(xw[i][j])) ||
					    !same_f(xe[i][j], ov_exp_f(xw[i][j]));
		for (int j = 0; j < 8; j++) {
			r->values++;
			r->exp_bad += !same_f(e[j], ov_exp_f(x[j]));
			r->sig_bad += !same_f(sg[j], ov_sigmoid_f(x[j]));
			r->tanh_bad += !same_f(th[j], ov_tanh_f(x[j]));
			r->hs_bad += !same_f(hs[j], ov_hard_sigmoid_f(x[j], 0.2f, 0.5f));
			r->erf_bad += !same_f(er[j], ov_erf_f(x[j]));
			r->gelu_bad += !same_f(ge[j], ov_gelu_f(x[j])) ||
				       !same_f(gt[j], ov_gelu_tanh_f(x[j]));
			r->log_bad += !same_f(lg[j], ov_log_f(x[j])) || !same_f(sp[j], ov_softplus_f(x[j])) ||
				      !same_f(mi[j], ov_mish_f(x[j])) || !same_f(em[j], ov_expm1_f(x[j]));
			if (x[j] != x[j])
				continue;
			double xd = x[j], spd = xd > 0 ? xd + log1p(exp(-xd)) : log1p(exp(xd));
			if (isfinite(xd)) {
				int64_t d = xd > 0 ? ulp_diff(ov_log_f(x[j]), (float)log(xd)) : 0;
				if (d > r->log_ulps)
					r->log_ulps = d, r->log_worst = x[j];
				d = ulp_diff(ov_softplus_f(x[j]), (float)spd);
				if (d > r->sp_ulps)
					r->sp_ulps = d, r->sp_worst = x[j];
				d = xd < 88 ? ulp_diff(ov_expm1_f(x[j]), (float)expm1(xd)) : 0;
				if (d > r->em1_ulps)
					r->em1_ulps = d, r->em1_worst = x[j];
			}
			int64_t d = ulp_diff(ov_tanh_f(x[j]), (float)tanh((double)x[j]));
			if (d > r->tanh_ulps)
				r->tanh_ulps = d, r->tanh_worst = x[j];
			d = ulp_diff(ov_erf_f(x[j]), (float)erf((double)x[j]));
			if (d > r->erf_ulps)
				r->erf_ulps = d, r->erf_worst = x[j];
		}
	}
}

static void test_vmath(void)
{
	struct vm_sweep r = {0};
	vm_sweep(4093, &r);
	OK(r.exp_bad == 0 && r.sig_bad == 0 && r.tanh_bad == 0 && r.hs_bad == 0 && r.erf_bad == 0 && r.gelu_bad == 0 &&
	   r.log_bad == 0,
	   "8 lanes give the scalar functions' bits on %ld floats (differ: exp %ld, sigmoid %ld, tanh %ld, "
	   "hard sigmoid %ld, erf %ld, gelu %ld, log, softplus, mish or expm1 %ld)", r.values, r.exp_bad, r.sig_bad,
	   r.tanh_bad, r.hs_bad, r.erf_bad, r.gelu_bad, r.log_bad);
	OK(r.w_bad == 0, "%d vectors at once give the scalar functions' bits on %ld more floats (exp, sigmoid, tanh, "
	   "erf, the two gelus, log, softplus, mish and expm1: %ld differ)", VM_W, r.values * VM_W, r.w_bad);
	OK(r.log_ulps <= 1, "ov_log_f within 1 ulp of log (worst %lld ulp, at %a)", (long long)r.log_ulps,
	   (double)r.log_worst);
	OK(r.sp_ulps <= 3, "ov_softplus_f within 3 ulp of log1p(exp) (worst %lld ulp, at %a)", (long long)r.sp_ulps,
	   (double)r.sp_worst);
	OK(ov_log_f(0.0f) == -INFINITY && ov_log_f(-0.0f) == -INFINITY && ov_log_f(-1.0f) != ov_log_f(-1.0f) &&
	   ov_log_f(-INFINITY) != ov_log_f(-INFINITY) && ov_log_f(INFINITY) == INFINITY &&
	   ov_log_f(NAN) != ov_log_f(NAN) && ov_log_f(1.0f) == 0.0f &&
	   ulp_diff(ov_log_f(0x1p-149f), (float)log(0x1p-149)) <= 1 &&
	   ulp_diff(ov_log_f(0x1.fffffep127f), (float)log(0x1.fffffep127)) <= 1,
	   "ov_log_f at the edges: zeros, below zero, infinities, NaN, 1, the least subnormal, the greatest float");
	OK(r.em1_ulps <= 2, "ov_expm1_f within 2 ulp of expm1 (worst %lld ulp, at %a)", (long long)r.em1_ulps,
	   (double)r.em1_worst);
	OK(ov_expm1_f(-INFINITY) == -1.0f && ov_expm1_f(INFINITY) == INFINITY && ov_expm1_f(NAN) != ov_expm1_f(NAN) &&
	   f_bits(ov_expm1_f(-0.0f)) == 0x80000000u && ov_expm1_f(1e-30f) == 1e-30f && ov_expm1_f(-200.0f) == -1.0f,
	   "ov_expm1_f at the edges: infinities, NaN, -0, tiny and very negative x");
	OK(ov_softplus_f(-INFINITY) == 0.0f && ov_softplus_f(INFINITY) == INFINITY &&
	   ov_softplus_f(NAN) != ov_softplus_f(NAN) && ov_softplus_f(-30.0f) == (float)exp(-30.0) &&
	   ov_softplus_f(100.0f) == 100.0f && ov_mish_f(100.0f) == 100.0f && ov_mish_f(-0.0f) == 0.0f,
	   "ov_softplus_f and ov_mish_f at the edges: infinities, NaN, far below 0 (log1p of a tiny u is u), large x");
	OK(r.erf_ulps <= 2, "ov_erf_f within 2 ulp of erf (worst %lld ulp, at %a)", (long long)r.erf_ulps,
	   (double)r.erf_worst);
	/* erf's two pieces meet at 0.84375 and it reaches 1 at 3.92: more floats there, every 61st up to 4.5 */
	int64_t eu = 0;
	float ew = 0;
	for (uint32_t b = 0; b <= f_bits(4.5f); b += 61) {
		float v;
		memcpy(&v, &b, sizeof v);
		int64_t d = ulp_diff(ov_erf_f(v), (float)erf((double)v));
		if (d > eu)
			eu = d, ew = v;
	}
	OK(eu <= 2, "ov_erf_f within 2 ulp of erf on every 61st float from 0 to 4.5 (worst %lld ulp, at %a)",
	   (long long)eu, (double)ew);
	OK(f_bits(ov_erf_f(-0.0f)) == 0x80000000u && ov_erf_f(INFINITY) == 1.0f && ov_erf_f(-INFINITY) == -1.0f &&
	   ov_erf_f(NAN) != ov_erf_f(NAN) && ov_erf_f(3.92f) == 1.0f && ov_erf_f(-1e6f) == -1.0f &&
	   ulp_diff(ov_erf_f(1e-30f), (float)erf(1e-30f)) <= 1 &&
	   ulp_diff(ov_erf_f(-0.84375f), (float)erf(-0.84375)) <= 1 &&
	   ulp_diff(ov_erf_f(0.84374994f), (float)erf(0.84374994)) <= 1,
	   "ov_erf_f at the edges: -0, infinities, NaN, where it reaches 1, tiny x, the pieces' meeting point");
	OK(r.tanh_ulps <= 2, "ov_tanh_f within 2 ulp of tanh (worst %lld ulp, at %a)", (long long)r.tanh_ulps,
	   (double)r.tanh_worst);
	OK(f_bits(ov_tanh_f(-0.0f)) == 0x80000000u && ov_tanh_f(INFINITY) == 1.0f && ov_tanh_f(-INFINITY) == -1.0f &&
	   ov_tanh_f(NAN) != ov_tanh_f(NAN) && ov_tanh_f(1e-30f) == 1e-30f && ov_tanh_f(20.0f) == 1.0f,
	   "ov_tanh_f at the edges: -0, infinities, NaN, tiny and large x");

	/* the kernels: 8 at a time and the last few through a buffer, every element as the scalar function */
	int64_t n = 21;
	struct xtensor x, y = {0};
	mk(&x, OV_DT_FLOAT, 1, &n, NULL);
	float *xv = x.data;
	for (int64_t i = 0; i < n; i++)
		xv[i] = (float)(i - 10) * 0.37f + (i % 3 ? 0.0f : 1e-3f);
	xv[3] = NAN, xv[4] = -INFINITY, xv[5] = -0.0f;
	const char *ops[] = {"Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Erf", "Gelu", "Gelu", "LeakyRelu",
			     "ThresholdedRelu", "Sqrt", "Log", "Softplus", "Mish", "Elu", "Selu", "Celu"};
	struct tattr attr[] = {{"approximate", 's', 0, 0, "tanh"}, {"alpha", 'f', 0, 0.1f, NULL},
			       {"alpha", 'f', 0, 0.75f, NULL}, {"alpha", 'f', 0, 0.7f, NULL}, {"alpha", 'f', 0, 1.3f, NULL}};
	for (int o = 0; o < 16; o++) {
		const struct xtensor *in[1] = {&x};
		const struct tattr *at = o >= 6 && o <= 8 ? &attr[o - 6] : o == 13 ? &attr[3] : o == 15 ? &attr[4] : NULL;
		int bad = run(ops[o], 20, in, 1, &y, 1, at, at != NULL) != 0 || y.numel != n;
		for (int64_t i = 0; !bad && i < n; i++) {
			float v = ((const float *)y.data)[i];
			float want = o == 0 ? ov_sigmoid_f(xv[i]) : o == 1 ? ov_tanh_f(xv[i]) :
				     o == 2 ? ov_hard_sigmoid_f(xv[i], 0.2f, 0.5f) : o == 3 ? ov_hard_swish_f(xv[i]) :
				     o == 4 ? ov_erf_f(xv[i]) : o == 5 ? ov_gelu_f(xv[i]) : o == 6 ? ov_gelu_tanh_f(xv[i]) :
				     o == 7 ? ov_leaky_relu_f(xv[i], 0.1f) : o == 8 ? ov_thresholded_relu_f(xv[i], 0.75f) :
				     o == 9 ? sqrtf(xv[i]) : o == 10 ? ov_log_f(xv[i]) : o == 11 ? ov_softplus_f(xv[i]) :
				     o == 12 ? ov_mish_f(xv[i]) : o == 13 ? ov_elu_f(xv[i], 0.7f) :
				     o == 14 ? ov_selu_f(xv[i], (float)OV_SELU_ALPHA, (float)OV_SELU_GAMMA) :
				     ov_celu_f(xv[i], 1.3f);
			bad = o >= 10 ? !same_f(v, want) : f_bits(v) != f_bits(want);
		}
		OK(!bad, "%s%s on 21 floats (two blocks of 8 and 5 more): each one the scalar function's bits", ops[o],
		   o == 6 ? " (tanh)" : "");
		xt_free(&y);
	}
	/* PRelu by a mask: the scalar select's bits, a slope per element and one for all (NaN, -inf and -0 in x) */
	struct xtensor sl;
	for (int one = 0; one < 2; one++) {
		int64_t sn = one ? 1 : n;
		mk(&sl, OV_DT_FLOAT, 1, &sn, NULL);
		for (int64_t i = 0; i < sn; i++)
			((float *)sl.data)[i] = one ? 0.25f : (float)(i % 5) * 0.3f - 0.4f;
		const struct xtensor *in[2] = {&x, &sl};
		int bad = run("PRelu", 16, in, 2, &y, 1, NULL, 0) != 0 || y.numel != n;
		for (int64_t i = 0; !bad && i < n; i++) {
			float a = xv[i], b = ((const float *)sl.data)[one ? 0 : i], want = a < 0 ? a * b : a;
			bad = f_bits(((const float *)y.data)[i]) != f_bits(want);
		}
		OK(!bad, "PRelu on 21 floats, %s: each one the select's bits", one ? "one slope" : "a slope each");
		xt_free(&sl);
		xt_free(&y);
	}
	xt_free(&x);
}

/* Cast between float32 and float16 (the paths every float16 op takes through float32: 8 lanes, F16C where the CPU
 * has it): every half to float32, and every 4093rd float bit pattern (NaN, infinities, subnormals, the rounding
 * ties among them) to float16, each the scalar codec's bits */
static void test_half_cast(void)
{
	int64_t nh = 65536, nf = (int64_t)((1ull << 32) / 4093) + 1;
	struct xtensor h, f, y = {0};
	mk(&h, OV_DT_FLOAT16, 1, &nh, NULL);
	mk(&f, OV_DT_FLOAT, 1, &nf, NULL);
	for (int64_t i = 0; i < nh; i++)
		((uint16_t *)h.data)[i] = (uint16_t)i;
	for (int64_t i = 0; i < nf; i++) {
		uint32_t b = (uint32_t)((uint64_t)i * 4093);
		memcpy((float *)f.data + i, &b, sizeof b);
	}
	struct tattr to32 = {"to", 'i', OV_DT_FLOAT, 0, NULL}, to16 = {"to", 'i', OV_DT_FLOAT16, 0, NULL};
	const struct xtensor *in[1] = {&h};
	long bad = run("Cast", 19, in, 1, &y, 1, &to32, 1) != 0 || y.numel != nh;
	for (int64_t i = 0; !bad && i < nh; i++)
		bad += f_bits(((const float *)y.data)[i]) != f_bits(ov_f16_to_f32((uint16_t)i));
	OK(!bad, "Cast float16 to float32: all 65536 halves give ov_f16_to_f32's bits (signaling NaNs kept)");
	xt_free(&y);
	in[0] = &f;
	bad = run("Cast", 19, in, 1, &y, 1, &to16, 1) != 0 || y.numel != nf;
	for (int64_t i = 0; !bad && i < nf; i++)
		bad += ((const uint16_t *)y.data)[i] != ov_f32_to_f16(((const float *)f.data)[i]);
	OK(!bad, "Cast float32 to float16: %lld floats give ov_f32_to_f16's bits", (long long)nf);
	xt_free(&y);
	xt_free(&h);
	xt_free(&f);
}

int main(void)
{
	test_vmath();
	test_half_cast();
	test_regex();
	test_half();
	test_scalar_math();
	test_broadcast();
	test_binary();
	test_unary_variadic();
	test_random_shapes();
	return tap_done();
}
