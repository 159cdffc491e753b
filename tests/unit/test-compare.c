/* Unit tests of the value comparison (src/exec/compare.c) and of where two runs part ways (src/exec/diverge.c):
 * ONNX's rule |a-b| <= atol + rtol*|b| with b the reference, NaN and infinities matched by place, exact integers
 * past 2^53, the smallest passing tolerances, shape and dtype mismatches, comparison across dtypes as float64,
 * and the topological order in which diverge_compute names the first difference. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/diverge.h"
#include "src/exec/exec.h"
#include "tests/unit/tap.h"

static void f32(struct xtensor *t, const float *v, int64_t n)
{
	struct ov_error e;
	int64_t d[1] = {n};
	xt_alloc(t, OV_DT_FLOAT, 1, d, &e);
	memcpy(t->data, v, (size_t)n * sizeof *v);
}

static void test_rule(void)
{
	struct xtensor a, b;
	struct compare_stats c;
	float va[4] = {1.0f, 2.0f, 3.0f, -4.0f}, vb[4] = {1.0f, 2.001f, 3.0f, -4.0f};

	f32(&a, va, 4);
	f32(&b, vb, 4);
	exec_compare(&a, &b, 1e-3, 0, &c);
	OK(c.pass && c.mismatches == 0, "rtol 1e-3 passes a 5e-4 relative difference (|a-b| <= rtol*|b|)");
	exec_compare(&a, &b, 1e-4, 0, &c);
	OK(!c.pass && c.mismatches == 1 && c.max_abs_at == 1, "rtol 1e-4 fails it, at index 1");
	OK(fabs(c.max_abs - 0.001) < 1e-6 && fabs(c.min_atol - c.max_abs) < 1e-12, "max abs and min atol are |a-b|");
	OK(fabs(c.min_rtol - 0.001 / 2.001) < 1e-6, "min rtol is |a-b|/|b| (b the reference)");
	exec_compare(&a, &b, 0, 0.0011, &c);
	OK(c.pass, "an atol above the difference passes");
	xt_free(&a);
	xt_free(&b);

	/* b == 0 with a != 0: no rtol helps */
	float z1[2] = {0.5f, 0.0f}, z0[2] = {0.0f, 0.0f};
	f32(&a, z1, 2);
	f32(&b, z0, 2);
	exec_compare(&a, &b, 1e-3, 1e-7, &c);
	OK(!c.pass && isinf(c.min_rtol) && fabs(c.min_atol - 0.5) < 1e-12, "b = 0, a != 0: min rtol is infinite");
	xt_free(&a);
	xt_free(&b);
}

static void test_nan_inf(void)
{
	struct xtensor a, b;
	struct compare_stats c;
	float va[4] = {NAN, INFINITY, -INFINITY, 1.0f}, vb[4] = {NAN, INFINITY, -INFINITY, 1.0f};

	f32(&a, va, 4);
	f32(&b, vb, 4);
	exec_compare(&a, &b, 0, 0, &c);
	OK(c.pass && c.nan_a == 1 && c.nan_b == 1 && c.inf_a == 2, "NaN matches NaN, each infinity itself");
	((float *)b.data)[0] = 0.0f;
	exec_compare(&a, &b, 1, 1, &c);
	OK(!c.pass && isinf(c.min_atol) && isinf(c.min_rtol), "a NaN against a number never passes, at any tolerance");
	((float *)b.data)[0] = NAN;
	((float *)b.data)[2] = INFINITY;
	exec_compare(&a, &b, 1, 1, &c);
	OK(!c.pass, "-Inf against +Inf fails");
	xt_free(&a);
	xt_free(&b);
}

static void test_ints_shapes(void)
{
	struct xtensor a, b;
	struct compare_stats c;
	struct ov_error e;
	int64_t d1[1] = {2}, d2[2] = {1, 2};

	xt_alloc(&a, OV_DT_INT64, 1, d1, &e);
	xt_alloc(&b, OV_DT_INT64, 1, d1, &e);
	((int64_t *)a.data)[0] = ((int64_t *)b.data)[0] = 1;
	((int64_t *)a.data)[1] = (1ll << 60) + 1;
	((int64_t *)b.data)[1] = 1ll << 60;
	exec_compare(&a, &b, 0, 0, &c);
	OK(!c.pass && c.mismatches == 1 && c.max_abs == 1, "int64 past 2^53 compared exactly");
	xt_free(&b);
	xt_alloc(&b, OV_DT_INT64, 2, d2, &e);
	exec_compare(&a, &b, 1, 1, &c);
	OK(!c.pass && c.shape_mismatch, "same count, other shape: a shape mismatch");
	xt_free(&b);
	xt_alloc(&b, OV_DT_INT32, 1, d1, &e);
	((int32_t *)b.data)[0] = 1;
	((int32_t *)b.data)[1] = 7;
	exec_compare(&a, &b, 1, 1, &c);
	OK(!c.pass && c.dtype_mismatch, "exec_compare: other dtype is a dtype mismatch");
	int conv = 0;
	OK(!diverge_compare_any(&a, &b, &(struct compare_rule){0}, &c, &conv, &e) && conv && !c.dtype_mismatch && c.mismatches == 1,
	   "diverge_compare_any: int64 against int32 compared as float64");
	xt_free(&a);
	xt_free(&b);
}

/* A graph x -> A(relu) -> r -> B(neg) -> y, stored with B first: the order is topological, not stored. */
static void test_order(void)
{
	Onnx__GraphProto gp;
	Onnx__NodeProto n0, n1, *nodes[2] = {&n0, &n1};
	Onnx__ValueInfoProto vx, vy, *ins[1] = {&vx}, *outs[1] = {&vy};
	char *i0[1] = {"r"}, *o0[1] = {"y"}, *i1[1] = {"x"}, *o1[1] = {"r"};
	struct graph *g = NULL;
	struct ov_error e;

	onnx__graph_proto__init(&gp);
	onnx__node_proto__init(&n0);
	onnx__node_proto__init(&n1);
	onnx__value_info_proto__init(&vx);
	onnx__value_info_proto__init(&vy);
	vx.name = "x";
	vy.name = "y";
	n0.op_type = "Neg", n0.name = "neg", n0.n_input = 1, n0.input = i0, n0.n_output = 1, n0.output = o0;
	n1.op_type = "Relu", n1.name = "relu", n1.n_input = 1, n1.input = i1, n1.n_output = 1, n1.output = o1;
	gp.n_node = 2, gp.node = nodes, gp.n_input = 1, gp.input = ins, gp.n_output = 1, gp.output = outs;
	if (graph_build(&g, &gp, &e)) {
		OK(0, "graph_build: %s", e.msg);
		return;
	}
	float one[1] = {1}, two[1] = {2};
	struct exec_value va[2], vb[2];
	struct exec_result ra = {.values = va, .n_values = 2, .n_to = 1}, rb = {.values = vb, .n_values = 2};
	va[0] = (struct exec_value){.name = "y", .present = 1};
	va[1] = (struct exec_value){.name = "r", .present = 1};
	f32(&va[0].t, one, 1);
	f32(&va[1].t, one, 1);
	vb[0] = (struct exec_value){.name = "y", .present = 1};
	vb[1] = (struct exec_value){.name = "q", .present = 1};
	f32(&vb[0].t, two, 1);
	f32(&vb[1].t, two, 1);
	struct divergence d;
	OK(!diverge_compute(g, &ra, &rb, &COMPARE_RULE_ONNX, &d, &e), "diverge_compute runs");
	OK(d.n == 2 && !strcmp(d.v[0].name, "r") && !strcmp(d.v[1].name, "y"),
	   "values come in topological order of their producers ('r' before 'y')");
	OK(d.v[0].status == DIV_ONLY_A && d.v[1].status == DIV_DIFFER && d.first == 1, "the first difference is 'y'");
	OK(d.v[1].node == 0 && d.n_only_a == 1 && d.n_only_b == 1 && !strcmp(d.only_b[0], "q"),
	   "its producer is node #0; one value only in A, one ('q') only in B");
	diverge_free(&d);
	((float *)vb[0].t.data)[0] = 1;
	OK(!diverge_compute(g, &ra, &rb, &COMPARE_RULE_ONNX, &d, &e) && d.first == -1 && d.n_differ == 0,
	   "equal values: no first difference");
	diverge_free(&d);
	for (int i = 0; i < 2; i++) {
		xt_free(&va[i].t);
		xt_free(&vb[i].t);
	}
	graph_free(g);
}

int main(void)
{
	test_rule();
	test_nan_inf();
	test_ints_shapes();
	test_order();
	return tap_done();
}
