/* Host-side parts of the CUDA backend, tested on any machine (no GPU, no CUDA needed):
 * - what one CUDA thread computes (src/exec/cuda/points.h), run here on the host against the CPU kernels: every
 *   element-wise op the backend takes (bit for bit: the same functions in the same order, on the same machine),
 *   in every compute domain (float32, double, int64, uint64) on every element type, with the types it takes
 *   and declines checked against the CPU's,
 *   MaxPool (with its Indices too), AveragePool and LpPool on random windows, Softmax and LogSoftmax on random shapes
 *   and axes, Cast between every pair of its types, ReduceX, ArgMax/ArgMin, the normalisations (Layer, Instance,
 *   Batch, Group, MeanVariance), LRN, Hardmax and GlobalLpPool on random shapes and axes;
 * - conv_geom_from_window (src/exec/cuda/geom.c), which maps the window the CPU reads onto cuDNN's
 *   descriptors: on fixed cases and on random geometries, every tap must land on the same input element as ONNX
 *   says (begin pad = descriptor pad + explicit padding, at both ends), with ONNX's output size;
 * - the runner's hooks a device backend relies on (src/exec/run.c): a backend that declines a node gets it run
 *   on the CPU and listed among the fallback nodes, notes filed with xk_note come back in the result with their
 *   node, and run_end is called once per run, after a failure too. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/cuda/geom.h"
#include "src/exec/cuda/points.h"
#include "src/exec/exec.h"
#include "src/graph/graph.h"
#include "src/model/model.h"
#include "tests/unit/tap.h"

#include "tests/unit/knode.h"

/* ---- conv_geom_from_window ---- */

/* Read the window of a Conv node with these attributes for x and wt, then map it. */
static int geom(struct tnode *t, const struct xtensor *x, const struct xtensor *wt, int64_t group,
		struct ops_window *w, struct conv_geom *g, char *why)
{
	struct exec_kernel_ctx k = {.g = &t->g, .opset = 13, .err = &t->err};

	if (ops_window_read(&k, x, wt->dims + 2, 0, 0, w))
		return -2;
	return conv_geom_from_window(w, x->dims, wt->dims, group, g, why, 160);
}

static void dims_only(struct xtensor *t, int rank, const int64_t *d)
{
	xt_wrap(t, OV_DT_FLOAT, rank, d, NULL);
}

/* Every tap of every output position reads the same input coordinate in ONNX's terms and the library's. */
static int taps_agree(const struct ops_window *w, const struct conv_geom *g)
{
	int off = g->nd - w->n; /* 1 for a 1-D convolution, whose H is 1 */
	for (int i = 0; i < w->n; i++) {
		int j = i + off;
		int64_t pad = g->pad[j], s = g->s[j], d = g->d[j], kk = g->ker[j], o_n = g->out[j], lib_in = g->in[j];
		if (o_n != w->out[i] || kk != w->k[i] || s != w->s[i] || d != w->d[i])
			return 0;
		if (lib_in != w->in[i] + g->pre_b[j] + g->pre_e[j])
			return 0;
		for (int64_t o = 0; o < o_n; o++)
			for (int64_t t = 0; t < kk; t++) {
				int64_t onnx = o * w->s[i] - w->pb[i] + t * w->d[i];    /* in the unpadded input */
				int64_t lib = o * s - pad + t * d;                      /* in the explicitly padded one */
				int64_t lib_in_orig = lib - g->pre_b[j];                /* back in the unpadded input */
				if (onnx != lib_in_orig)
					return 0;
				/* a tap in ONNX's padding is in the library's padding or in the zeros added around */
				int onnx_pad = onnx < 0 || onnx >= w->in[i];
				int lib_zero = lib < 0 || lib >= lib_in || lib < g->pre_b[j] || lib >= g->pre_b[j] + w->in[i];
				if (onnx_pad != lib_zero)
					return 0;
			}
	}
	return 1;
}

static void test_fixed(void)
{
	struct tnode t;
	struct xtensor x, wt;
	struct ops_window w;
	struct conv_geom g;
	char why[160];
	int64_t xd[4] = {2, 4, 7, 9}, wd[4] = {6, 2, 3, 3};

	dims_only(&x, 4, xd);
	dims_only(&wt, 4, wd);
	node(&t, "Conv");
	set_ints(&t, "pads", (int64_t[]){1, 1, 1, 1}, 4);
	set_ints(&t, "strides", (int64_t[]){2, 2}, 2);
	OK(geom(&t, &x, &wt, 2, &w, &g, why) == 0 && !g.explicit_pad && g.pad[0] == 1 && g.pad[1] == 1 && g.in[0] == 7 &&
	   g.in[1] == 9 && g.out[0] == 4 && g.out[1] == 5 && g.group == 2 && g.k == 6 && g.c == 4 && taps_agree(&w, &g),
	   "symmetric pads go into the descriptor (7x9, k3, s2, p1: 4x5 out)");

	node(&t, "Conv");
	set_ints(&t, "pads", (int64_t[]){0, 1, 2, 1}, 4);
	OK(geom(&t, &x, &wt, 2, &w, &g, why) == 0 && g.explicit_pad && g.pad[0] == 0 && g.pre_b[0] == 0 &&
	   g.pre_e[0] == 2 && g.pad[1] == 1 && g.pre_b[1] == 0 && g.pre_e[1] == 0 && g.in[0] == 9 && g.in[1] == 9 &&
	   taps_agree(&w, &g), "asymmetric H pads are applied explicitly, symmetric W pads stay in the descriptor");

	int64_t wd2[4] = {6, 2, 2, 2};
	struct xtensor wt2;
	dims_only(&wt2, 4, wd2);
	node(&t, "Conv");
	set_str(&t, "auto_pad", "SAME_UPPER");
	OK(geom(&t, &x, &wt2, 2, &w, &g, why) == 0 && g.explicit_pad && g.pre_b[0] == 0 && g.pre_e[0] == 1 &&
	   g.out[0] == 7 && g.out[1] == 9 && taps_agree(&w, &g), "SAME_UPPER with an even kernel: the odd pad at the end");
	node(&t, "Conv");
	set_str(&t, "auto_pad", "SAME_LOWER");
	OK(geom(&t, &x, &wt2, 2, &w, &g, why) == 0 && g.explicit_pad && g.pre_b[0] == 1 && g.pre_e[0] == 0 &&
	   taps_agree(&w, &g), "SAME_LOWER with an even kernel: the odd pad at the beginning");

	int64_t x1[3] = {1, 3, 10}, w1[3] = {5, 3, 4};
	struct xtensor x1t, w1t;
	dims_only(&x1t, 3, x1);
	dims_only(&w1t, 3, w1);
	node(&t, "Conv");
	set_ints(&t, "pads", (int64_t[]){2, 1}, 2);
	set_ints(&t, "dilations", (int64_t[]){2}, 1);
	OK(geom(&t, &x1t, &w1t, 1, &w, &g, why) == 0 && g.in[0] == 1 && g.ker[0] == 1 && g.out[0] == 1 && g.s[0] == 1 &&
	   g.pad[0] == 0 && g.ker[1] == 4 && g.pre_b[1] == 2 && g.pre_e[1] == 1 && g.in[1] == 13 && g.out[1] == 7 &&
	   taps_agree(&w, &g), "1-D runs as H = 1 (10 + pads 2,1, k4 d2: 7 out)");

	int64_t x3[5] = {1, 2, 4, 4, 4}, w3[5] = {2, 2, 1, 1, 1};
	struct xtensor x3t, w3t;
	dims_only(&x3t, 5, x3);
	dims_only(&w3t, 5, w3);
	node(&t, "Conv");
	set_ints(&t, "pads", (int64_t[]){0, 1, 1, 1, 1, 1}, 6);
	OK(geom(&t, &x3t, &w3t, 1, &w, &g, why) == 0 && g.nd == 3 && g.explicit_pad && g.pre_e[0] == 1 &&
	   g.pad[1] == 1 && g.pad[2] == 1 && g.in[0] == 5 && g.out[0] == 5 && g.out[2] == 6 && taps_agree(&w, &g),
	   "3-D runs with 3-D descriptors (asymmetric D pads applied explicitly)");
	int64_t x4[6] = {1, 1, 2, 2, 2, 2}, w4[6] = {1, 1, 1, 1, 1, 1};
	struct xtensor x4t, w4t;
	dims_only(&x4t, 6, x4);
	dims_only(&w4t, 6, w4);
	node(&t, "Conv");
	OK(geom(&t, &x4t, &w4t, 1, &w, &g, why) == -1 && strstr(why, "4 spatial dims"), "4-D is refused: %s", why);

	int64_t xb[4] = {1, 1, 1, 3000000000ll}, wb[4] = {1, 1, 1, 1};
	struct xtensor xbt, wbt;
	dims_only(&xbt, 4, xb);
	dims_only(&wbt, 4, wb);
	node(&t, "Conv");
	OK(geom(&t, &xbt, &wbt, 1, &w, &g, why) == -1 && strstr(why, "int"), "a width beyond int is refused: %s", why);

	int64_t xc[4] = {40000, 1, 300, 300};
	struct xtensor xct;
	dims_only(&xct, 4, xc);
	node(&t, "Conv");
	OK(geom(&t, &xct, &wbt, 1, &w, &g, why) == -1 && strstr(why, "2^31"), "3.6e9 elements are refused: %s", why);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static int64_t irand(int64_t lo, int64_t hi)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return lo + (int64_t)(rng % (uint64_t)(hi - lo + 1));
}

static void test_random(void)
{
	static const char *const modes[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
	int tried = 0, mapped = 0, agree = 0, asym = 0;

	for (int it = 0; it < 3000; it++) {
		struct tnode t;
		struct xtensor x, wt;
		struct ops_window w;
		struct conv_geom g;
		char why[160];
		int n = (int)irand(1, 3);
		int64_t xd[5] = {irand(1, 3), irand(1, 4)}, wd[5] = {irand(1, 5), xd[1]};
		int64_t pads[6], strides[3], dil[3];
		for (int i = 0; i < n; i++) {
			xd[2 + i] = irand(1, 20);
			wd[2 + i] = irand(1, 5);
			strides[i] = irand(1, 4);
			dil[i] = irand(1, 3);
			pads[i] = irand(0, 3);
			pads[n + i] = irand(0, 3);
		}
		dims_only(&x, 2 + n, xd);
		dims_only(&wt, 2 + n, wd);
		node(&t, "Conv");
		const char *mode = modes[irand(0, 3)];
		set_str(&t, "auto_pad", mode);
		if (!strcmp(mode, "NOTSET"))
			set_ints(&t, "pads", pads, (size_t)(2 * n));
		set_ints(&t, "strides", strides, (size_t)n);
		set_ints(&t, "dilations", dil, (size_t)n);
		int r = geom(&t, &x, &wt, 1, &w, &g, why);
		if (r == -2)
			continue; /* the kernel does not fit: the window itself refuses it */
		tried++;
		if (r == 0) {
			mapped++;
			agree += taps_agree(&w, &g);
			asym += g.explicit_pad;
		}
	}
	OK(tried > 1000 && mapped == tried, "random 1-D, 2-D and 3-D geometries all map (%d of %d)", mapped, tried);
	OK(agree == mapped, "every tap reads the same input element and the output sizes agree (%d of %d)", agree,
	   mapped);
	OK(asym > 100, "asymmetric pads were among them (%d)", asym);
}

/* ---- the runner's hooks ---- */

/* Relu(x) -> r, Add(r, W) -> s, Relu(s) -> y, as ONNX bytes */
static size_t make_model(uint8_t **out)
{
	static float wv[6] = {1, -2, 3, -4, 5, -6};
	static int64_t dims[2] = {2, 3};
	Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
	Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
	Onnx__OperatorSetIdProto op = ONNX__OPERATOR_SET_ID_PROTO__INIT;
	Onnx__OperatorSetIdProto *ops[1] = {&op};
	Onnx__NodeProto n[3] = {ONNX__NODE_PROTO__INIT, ONNX__NODE_PROTO__INIT, ONNX__NODE_PROTO__INIT};
	Onnx__NodeProto *np[3] = {&n[0], &n[1], &n[2]};
	char *in0[1] = {"x"}, *out0[1] = {"r"}, *in1[2] = {"r", "W"}, *out1[1] = {"s"}, *in2[1] = {"s"}, *out2[1] = {"y"};
	Onnx__TensorProto w = ONNX__TENSOR_PROTO__INIT;
	Onnx__TensorProto *inits[1] = {&w};
	Onnx__ValueInfoProto vx = ONNX__VALUE_INFO_PROTO__INIT, vy = ONNX__VALUE_INFO_PROTO__INIT;
	Onnx__ValueInfoProto *vin[1] = {&vx}, *vout[1] = {&vy};

	n[0].op_type = "Relu", n[0].name = "first", n[0].n_input = 1, n[0].input = in0, n[0].n_output = 1;
	n[0].output = out0;
	n[1].op_type = "Add", n[1].name = "add", n[1].n_input = 2, n[1].input = in1, n[1].n_output = 1;
	n[1].output = out1;
	n[2].op_type = "Relu", n[2].name = "last", n[2].n_input = 1, n[2].input = in2, n[2].n_output = 1;
	n[2].output = out2;
	w.name = "W", w.n_dims = 2, w.dims = dims, w.has_data_type = 1, w.data_type = OV_DT_FLOAT;
	w.n_float_data = 6, w.float_data = wv;
	vx.name = "x";
	vy.name = "y";
	g.name = "g", g.n_node = 3, g.node = np, g.n_initializer = 1, g.initializer = inits;
	g.n_input = 1, g.input = vin, g.n_output = 1, g.output = vout;
	op.has_version = 1, op.version = 13;
	m.has_ir_version = 1, m.ir_version = 8, m.graph = &g, m.n_opset_import = 1, m.opset_import = ops;
	size_t len = onnx__model_proto__get_packed_size(&m);
	*out = malloc(len);
	onnx__model_proto__pack(&m, *out);
	return len;
}

static int ends, fail_last;

static int fake_supports(const char *domain, const char *op, int64_t opset)
{
	(void)domain, (void)op, (void)opset;
	return 1;
}

/* declines Add, notes and runs each Relu on the CPU (or fails the last one when asked) */
static int fake_run(struct exec_kernel_ctx *k)
{
	const Onnx__NodeProto *n = k->g->nodes[k->node].proto;

	if (!strcmp(n->op_type, "Add"))
		return EXEC_DECLINE;
	if (fail_last && !strcmp(n->name, "last"))
		return xk_fail(k, "the fake device broke");
	xk_note(k, "fake ran %s", n->name);
	return exec_backend_cpu()->run_node(k);
}

static void fake_end(void)
{
	ends++;
}

static const char *fake_describe(void)
{
	return "fake";
}

static void test_runner_hooks(void)
{
	static const struct exec_backend_ops fake = {
		.name = "fake", .supports_op = fake_supports, .run_node = fake_run, .describe = fake_describe, .run_end = fake_end};
	uint8_t *bytes;
	size_t len = make_model(&bytes);
	struct ov_model *m = NULL;
	struct graph *g = NULL;
	struct ov_error e = {0};
	struct exec_result r, cpu;
	float xv[6] = {-1, 2, -3, 4, -5, 6};
	int64_t dims[2] = {2, 3};
	struct exec_input in = {"x", {0}};

	if (model_load_buffer(&m, bytes, len, "mem.onnx", &e) || graph_build(&g, m->proto->graph, &e)) {
		OK(0, "the test model loads: %s", e.msg);
		free(bytes);
		return;
	}
	xt_wrap(&in.t, OV_DT_FLOAT, 2, dims, xv);
	struct exec_options opt = {0};
	OK(exec_run(m, g, &opt, &in, 1, &cpu, &e) == 0 && cpu.n_notes == 0 && cpu.n_fallback == 0,
	   "the CPU runs the model, with no notes and no fallback");
	opt.backend = &fake;
	int rc = exec_run(m, g, &opt, &in, 1, &r, &e);
	OK(rc == 0, "a backend that declines a node still runs the model: %s", rc ? e.msg : "");
	OK(rc == 0 && r.n_fallback == 1 && r.fallback_nodes[0] == 1, "the declined Add (#1) is a fallback node");
	OK(rc == 0 && r.n_notes == 2 && r.notes[0].node == 0 && r.notes[1].node == 2 &&
	   !strcmp(r.notes[0].text, "fake ran first") && !strcmp(r.notes[1].text, "fake ran last"),
	   "notes come back with their nodes, in order");
	OK(rc == 0 && r.n_values == 1 && cpu.n_values == 1 && r.values[0].t.bytes == cpu.values[0].t.bytes &&
	   !memcmp(r.values[0].t.data, cpu.values[0].t.data, cpu.values[0].t.bytes), "the result is the CPU's");
	OK(ends == 1, "run_end is called once per run (%d)", ends);
	exec_result_free(&r);

	fail_last = 1;
	rc = exec_run(m, g, &opt, &in, 1, &r, &e);
	OK(rc == -1 && strstr(e.msg, "#2 'last' Relu: the fake device broke"), "a device error names the node: %s",
	   e.msg);
	OK(ends == 2, "run_end is called after a failed run too (%d)", ends);
	OK(r.n_notes == 0 && r.notes == NULL, "a failed run's result is empty");

	exec_result_free(&cpu);
	graph_free(g);
	model_free(m);
	free(bytes);
}

static void test_note_without_result(void)
{
	struct tnode t;
	struct exec_kernel_ctx k = {.g = &t.g, .opset = 13, .err = &t.err};

	node(&t, "Relu");
	xk_note(&k, "dropped %d", 1);
	OK(1, "xk_note without a result drops the note");
}

/* ---- cuda/points.h against the CPU kernels ---- */

/* the same float, NaN matching NaN */
static int same_f(float a, float b)
{
	return (a != a && b != b) || !memcmp(&a, &b, sizeof a);
}

static void fill(struct xtensor *t, int rank, const int64_t *dims, int nans)
{
	struct ov_error e;
	static const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -2.5f, 3.0f, 88.0f, -104.0f, 1e-30f, INFINITY,
					-INFINITY, NAN};
	if (xt_alloc(t, OV_DT_FLOAT, rank, dims, &e))
		abort();
	float *f = t->data;
	for (int64_t i = 0; i < t->numel; i++)
		f[i] = i < (int64_t)(sizeof special / sizeof special[0]) && nans ? special[i]
		       : (float)((double)irand(0, 1 << 20) / (1 << 18) - 2.0);
}

static void test_elementwise_points(void)
{
	static const struct {
		const char *op;
		int cu;
		const char *an, *bn; /* attributes carrying a and b */
		float a, b;
		int opset;
	} un[] = {
		{"Abs", CU_U_ABS, NULL, NULL, 0, 0, 13}, {"Neg", CU_U_NEG, NULL, NULL, 0, 0, 13},
		{"Relu", CU_U_RELU, NULL, NULL, 0, 0, 13}, {"Sign", CU_U_SIGN, NULL, NULL, 0, 0, 13},
		{"Sqrt", CU_U_SQRT, NULL, NULL, 0, 0, 13}, {"Reciprocal", CU_U_RECIPROCAL, NULL, NULL, 0, 0, 13},
		{"Exp", CU_U_EXP, NULL, NULL, 0, 0, 13}, {"Log", CU_U_LOG, NULL, NULL, 0, 0, 13},
		{"Erf", CU_U_ERF, NULL, NULL, 0, 0, 13}, {"Sin", CU_U_SIN, NULL, NULL, 0, 0, 13},
		{"Cos", CU_U_COS, NULL, NULL, 0, 0, 13}, {"Tan", CU_U_TAN, NULL, NULL, 0, 0, 13},
		{"Tanh", CU_U_TANH, NULL, NULL, 0, 0, 13}, {"Floor", CU_U_FLOOR, NULL, NULL, 0, 0, 13},
		{"Ceil", CU_U_CEIL, NULL, NULL, 0, 0, 13}, {"Round", CU_U_ROUND, NULL, NULL, 0, 0, 13},
		{"Sigmoid", CU_U_SIGMOID, NULL, NULL, 0, 0, 13},
		{"HardSigmoid", CU_U_HARD_SIGMOID, "alpha", "beta", 0.3f, 0.45f, 13},
		{"HardSwish", CU_U_HARD_SWISH, NULL, NULL, 0, 0, 14},
		{"LeakyRelu", CU_U_LEAKY_RELU, "alpha", NULL, 0.07f, 0, 13}, {"Elu", CU_U_ELU, "alpha", NULL, 0.8f, 0, 13},
		{"Selu", CU_U_SELU, "alpha", "gamma", 1.7f, 1.1f, 13}, {"Celu", CU_U_CELU, "alpha", NULL, 1.5f, 0, 13},
		{"Gelu", CU_U_GELU, NULL, NULL, 0, 0, 20}, {"Mish", CU_U_MISH, NULL, NULL, 0, 0, 18},
		{"Softplus", CU_U_SOFTPLUS, NULL, NULL, 0, 0, 13}, {"Softsign", CU_U_SOFTSIGN, NULL, NULL, 0, 0, 13},
		{"ThresholdedRelu", CU_U_THRESHOLDED_RELU, "alpha", NULL, 0.25f, 0, 13},
		{"Clip", CU_U_CLIP, "min", "max", -0.3f, 0.6f, 6},
	};
	int64_t dims[1] = {300};
	struct xtensor x;
	int bad = 0, ran = 0;

	fill(&x, 1, dims, 1);
	for (size_t u = 0; u < sizeof un / sizeof un[0]; u++) {
		struct tnode t;
		struct xtensor y;
		const struct xtensor *in[1] = {&x};
		node(&t, un[u].op);
		if (un[u].an)
			set_float(&t, un[u].an, un[u].a);
		if (un[u].bn)
			set_float(&t, un[u].bn, un[u].b);
		if (run(&t, un[u].opset, in, 1, &y, 1)) {
			OK(0, "%s runs on the CPU: %s", un[u].op, t.err.msg);
			continue;
		}
		ran++;
		for (int64_t i = 0; i < x.numel; i++)
			if (!same_f(((float *)y.data)[i], cu_un_apply(un[u].cu, ((float *)x.data)[i], un[u].a, un[u].b))) {
				printf("#   %s(%g): CPU %g, cu_un_apply %g\n", un[u].op, ((float *)x.data)[i],
				       ((float *)y.data)[i], cu_un_apply(un[u].cu, ((float *)x.data)[i], un[u].a, un[u].b));
				bad++;
				break;
			}
		xt_free(&y);
	}
	OK(ran == (int)(sizeof un / sizeof un[0]) && !bad, "cu_un_apply gives the CPU's float for every unary op (%d ops, "
	   "%d differ)", ran, bad);

	struct tnode t;
	struct xtensor y;
	node(&t, "Gelu");
	set_str(&t, "approximate", "tanh");
	const struct xtensor *in1[1] = {&x};
	int ok = !run(&t, 20, in1, 1, &y, 1);
	for (int64_t i = 0; ok && i < x.numel; i++)
		ok = same_f(((float *)y.data)[i], cu_un_apply(CU_U_GELU_TANH, ((float *)x.data)[i], 0, 0));
	OK(ok, "Gelu approximate=tanh");
	xt_free(&y);

	static const struct {
		const char *op;
		int cu;
	} bin[] = {{"Add", CU_B_ADD}, {"Sub", CU_B_SUB}, {"Mul", CU_B_MUL}, {"Div", CU_B_DIV}, {"Pow", CU_B_POW},
		   {"Min", CU_B_MIN}, {"Max", CU_B_MAX}, {"Mean", CU_B_MEAN}, {"PRelu", CU_B_PRELU}, {"Sum", CU_B_ADD}};
	struct xtensor x2;
	fill(&x2, 1, dims, 0);
	/* every special value meets every other */
	for (int64_t i = 0; i < 13 * 13 && i < x.numel; i++) {
		((float *)x.data)[i] = ((float *)x.data)[i / 13];
		((float *)x2.data)[i] = ((float *)x.data)[i % 13];
	}
	bad = ran = 0;
	for (size_t b = 0; b < sizeof bin / sizeof bin[0]; b++) {
		const struct xtensor *in[2] = {&x, &x2};
		node(&t, bin[b].op);
		if (run(&t, 13, in, 2, &y, 1)) {
			OK(0, "%s runs on the CPU: %s", bin[b].op, t.err.msg);
			continue;
		}
		ran++;
		for (int64_t i = 0; i < x.numel; i++) {
			float a = ((float *)x.data)[i], c = ((float *)x2.data)[i];
			if (!same_f(((float *)y.data)[i], cu_bin_apply(bin[b].cu, a, c))) {
				printf("#   %s(%g, %g): CPU %g, cu_bin_apply %g\n", bin[b].op, a, c, ((float *)y.data)[i],
				       cu_bin_apply(bin[b].cu, a, c));
				bad++;
				break;
			}
		}
		xt_free(&y);
	}
	OK(ran == (int)(sizeof bin / sizeof bin[0]) && !bad,
	   "cu_bin_apply gives the CPU's float for every binary op (%d ops, %d differ)", ran, bad);
	xt_free(&x);
	xt_free(&x2);
}

/* A pooling node op over a random window: x's dims in xd (N, C, and 1 to 3 spatial dims: the count is returned),
 * kernel_shape, strides, dilations, pads or auto_pad (or neither), and ceil_mode (*ceil_mode). */
static int random_window(struct tnode *t, const char *op, int64_t *xd, int *ceil_mode)
{
	int n = (int)irand(1, 3);
	int64_t k[3], s[3], d[3], p[6];

	xd[0] = irand(1, 2);
	xd[1] = irand(1, 3);
	for (int i = 0; i < n; i++) {
		xd[2 + i] = irand(1, n == 3 ? 6 : 12);
		k[i] = irand(1, 4);
		s[i] = irand(1, 3);
		d[i] = irand(1, 2);
		p[i] = irand(0, 2);
		p[n + i] = irand(0, 2);
	}
	node(t, op);
	set_ints(t, "kernel_shape", k, (size_t)n);
	set_ints(t, "strides", s, (size_t)n);
	set_ints(t, "dilations", d, (size_t)n);
	int ap = (int)irand(0, 3);
	if (ap == 0)
		set_ints(t, "pads", p, (size_t)(2 * n));
	else if (ap == 1)
		set_str(t, "auto_pad", irand(0, 1) ? "SAME_UPPER" : "SAME_LOWER");
	*ceil_mode = (int)irand(0, 1);
	set_int(t, "ceil_mode", *ceil_mode);
	return n;
}

static void test_pool_points(void)
{
	int tried = 0, agree = 0;

	for (int it = 0; it < 600; it++) {
		struct tnode t;
		struct xtensor x, y;
		struct ops_window w;
		int64_t xd[5];
		int avg = (int)irand(0, 1), ceil_mode;
		int n = random_window(&t, avg ? "AveragePool" : "MaxPool", xd, &ceil_mode);
		int cip = avg ? (int)irand(0, 1) : 0;
		if (avg)
			set_int(&t, "count_include_pad", cip);
		fill(&x, 2 + n, xd, irand(0, 3) == 0);
		const struct xtensor *in[1] = {&x};
		struct exec_kernel_ctx kc = {.g = &t.g, .opset = 19, .in = in, .n_in = 1, .err = &t.err};
		if (ops_window_read(&kc, &x, NULL, ceil_mode, 0, &w) || run(&t, 19, in, 1, &y, 1)) {
			xt_free(&x);
			continue;
		}
		tried++;
		int ok = y.numel == xd[0] * xd[1] * w.out_size;
		for (int64_t i = 0; ok && i < y.numel; i++) {
			float c = cu_pool_point(&w, avg, cip, x.data, i);
			ok = same_f(((float *)y.data)[i], c);
			if (!ok)
				printf("#   %s n=%d element %lld: CPU %g, cu_pool_point %g\n", avg ? "AveragePool" : "MaxPool", n,
				       (long long)i, ((float *)y.data)[i], c);
		}
		agree += ok;
		xt_free(&x);
		xt_free(&y);
	}
	OK(tried > 300 && agree == tried, "cu_pool_point gives the CPU's MaxPool and AveragePool on random windows "
	   "(%d of %d)", agree, tried);
}

static void alloc_or_die(struct xtensor *t, int32_t dt, int rank, const int64_t *dims)
{
	struct ov_error e;
	if (xt_alloc(t, dt, rank, dims, &e))
		abort();
}

/* MaxPool with Indices (row- and column-major) and LpPool (p 1, 2, 3, float32 and float64) on random windows. */
static void test_pool_index_lp_points(void)
{
	int tried = 0, agree = 0;

	for (int it = 0; it < 400; it++) {
		struct tnode t;
		struct xtensor x, y[2];
		struct ops_window w;
		int64_t xd[5], pv = irand(1, 3);
		int lp = it % 2, so = (int)irand(0, 1), ceil_mode;
		int32_t dt = lp && irand(0, 1) ? OV_DT_DOUBLE : OV_DT_FLOAT;
		int n = random_window(&t, lp ? "LpPool" : "MaxPool", xd, &ceil_mode);
		if (lp)
			set_int(&t, "p", pv);
		else
			set_int(&t, "storage_order", so);
		fill(&x, 2 + n, xd, irand(0, 3) == 0);
		if (dt == OV_DT_DOUBLE) {
			struct xtensor xf = x;
			alloc_or_die(&x, OV_DT_DOUBLE, 2 + n, xd);
			for (int64_t i = 0; i < x.numel; i++)
				((double *)x.data)[i] = ((float *)xf.data)[i] * (1 + 1e-9);
			xt_free(&xf);
		}
		const struct xtensor *in[1] = {&x};
		struct exec_kernel_ctx kc = {.g = &t.g, .opset = 18, .in = in, .n_in = 1, .err = &t.err};
		if (ops_window_read(&kc, &x, NULL, ceil_mode, 0, &w) || run(&t, 18, in, 1, y, lp ? 1 : 2)) {
			xt_free(&x);
			continue;
		}
		tried++;
		int ok = y[0].numel == xd[0] * xd[1] * w.out_size;
		for (int64_t i = 0; ok && i < y[0].numel; i++) {
			if (lp) {
				double v = cu_lppool_point(&w, (double)pv, x.data, dt, i);
				ok = dt == OV_DT_FLOAT ? same_f(((float *)y[0].data)[i], (float)v)
						       : !memcmp(&((double *)y[0].data)[i], &v, sizeof v);
			} else {
				int64_t at;
				float v = cu_maxpool_index_point(&w, so, x.data, i, &at);
				ok = same_f(((float *)y[0].data)[i], v) && ((int64_t *)y[1].data)[i] == at;
			}
			if (!ok)
				printf("#   %s n=%d element %lld differs\n", lp ? "LpPool" : "MaxPool with Indices", n, (long long)i);
		}
		agree += ok;
		xt_free(&x);
		for (int j = 0; j < (lp ? 1 : 2); j++)
			xt_free(&y[j]);
	}
	OK(tried > 200 && agree == tried, "cu_maxpool_index_point and cu_lppool_point give the CPU's MaxPool with "
	   "Indices and LpPool on random windows (%d of %d)", agree, tried);
}

static void test_softmax_points(void)
{
	int tried = 0, agree = 0;

	for (int it = 0; it < 200; it++) {
		struct tnode t;
		struct xtensor x, y, z;
		int rank = (int)irand(1, 4), logsm = (int)irand(0, 1), v13 = (int)irand(0, 1);
		int64_t xd[4], r = rank;
		for (int i = 0; i < rank; i++)
			xd[i] = irand(1, 6);
		int64_t axis = irand(-r, v13 ? r - 1 : r);
		if (it % 20 == 0) { /* rows longer than the 16 lanes, strided past the CPU's blocks of 64 rows */
			rank = 3, r = 3, v13 = 1, axis = 1;
			xd[0] = irand(1, 2), xd[1] = irand(17, 40), xd[2] = irand(60, 140);
		}
		node(&t, logsm ? "LogSoftmax" : "Softmax");
		set_int(&t, "axis", axis);
		fill(&x, rank, xd, 0);
		const struct xtensor *in[1] = {&x};
		if (run(&t, v13 ? 13 : 11, in, 1, &y, 1)) {
			OK(0, "Softmax runs on the CPU: %s", t.err.msg);
			xt_free(&x);
			continue;
		}
		tried++;
		/* cuda/norm.cu's rows */
		int64_t a = axis < 0 ? axis + r : axis, outer = 1, len = 1, inner = 1;
		for (int i = 0; i < rank; i++) {
			if (i < a)
				outer *= xd[i];
			else if (i == a || !v13)
				len *= xd[i];
			else
				inner *= xd[i];
		}
		struct ov_error e;
		xt_alloc(&z, OV_DT_FLOAT, rank, xd, &e);
		for (int64_t row = 0; row < outer * inner; row++)
			cu_softmax_row(x.data, z.data, row / inner * len * inner + row % inner, len, inner, logsm);
		int ok = 1;
		for (int64_t i = 0; ok && i < x.numel; i++)
			ok = same_f(((float *)y.data)[i], ((float *)z.data)[i]);
		agree += ok;
		xt_free(&x);
		xt_free(&y);
		xt_free(&z);
	}
	OK(tried == 200 && agree == tried, "cu_softmax_row gives the CPU's Softmax and LogSoftmax on random shapes and "
	   "axes (%d of %d)", agree, tried);
}

/* ---- Cast, reductions, ArgMax/ArgMin and the normalisations' statistics against the CPU kernels ---- */

/* Every pair of cu_cast_type's types, on values where the rules show: NaN, infinities, -0, halves, values out
 * of each integer type's range, integers float rounds. */
static void test_cast_points(void)
{
	static const int32_t types[] = {OV_DT_FLOAT, OV_DT_DOUBLE, OV_DT_FLOAT16, OV_DT_BFLOAT16, OV_DT_INT8,
					OV_DT_INT16, OV_DT_INT32, OV_DT_INT64, OV_DT_UINT8, OV_DT_UINT16,
					OV_DT_UINT32, OV_DT_UINT64, OV_DT_BOOL};
	static const double vals[] = {0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 3.7, -3.7, 127.5, 128.0, 255.5, 256.0, -129.0,
				      300.0, 65504.0, 65520.0, 7e4, 16777217.0, 1e10, -1e10, 2147483648.0,
				      -2147483649.0, 9.3e18, -9.3e18, 1.9e19, 3e38, 1e-8, 6e-8, NAN, INFINITY,
				      -INFINITY};
	static const int64_t ints[] = {INT64_MAX, INT64_MIN, (1ll << 53) + 1, (1ll << 62) + (1ll << 40) + 1,
				       (1ll << 24) + 1, -(1ll << 31) - 1, 65535, 65536, -32769};
	const int nv = (int)(sizeof vals / sizeof vals[0]), ni = (int)(sizeof ints / sizeof ints[0]);
	const int nt = (int)(sizeof types / sizeof types[0]);
	int64_t n = nv + ni;
	int pairs = 0, agree = 0;

	for (int a = 0; a < nt; a++) {
		struct xtensor x;
		alloc_or_die(&x, types[a], 1, &n);
		for (int i = 0; i < nv; i++)
			xt_set(&x, i, vals[i]);
		for (int i = 0; i < ni; i++) { /* the integers exactly where the type holds them */
			if (types[a] == OV_DT_INT64 || types[a] == OV_DT_UINT64)
				((int64_t *)x.data)[nv + i] = ints[i];
			else
				xt_set(&x, nv + i, (double)ints[i]);
		}
		for (int b = 0; b < nt; b++) {
			struct tnode t;
			struct xtensor y;
			const struct xtensor *in[1] = {&x};
			node(&t, "Cast");
			set_int(&t, "to", types[b]);
			if (run(&t, 19, in, 1, &y, 1)) {
				OK(0, "Cast %s to %s runs on the CPU: %s", dtype_short_name(types[a]),
				   dtype_short_name(types[b]), t.err.msg);
				continue;
			}
			pairs++;
			size_t es = xt_elem_size(types[b]);
			char z[16];
			int ok = 1;
			for (int64_t i = 0; ok && i < n; i++) {
				cu_cast_point((const char *)x.data + (size_t)i * xt_elem_size(types[a]), types[a], z,
					      types[b], 0);
				ok = !memcmp(z, (const char *)y.data + (size_t)i * es, es);
				/* a NaN is a NaN whatever its payload (xt_set and ov_f32_to_f16 keep different ones) */
				if (!ok && (types[b] == OV_DT_FLOAT16 || types[b] == OV_DT_BFLOAT16 ||
					    types[b] == OV_DT_FLOAT || types[b] == OV_DT_DOUBLE)) {
					ok = xt_get(&y, i) != xt_get(&y, i);
					struct xtensor zt;
					xt_wrap(&zt, types[b], 0, NULL, z);
					ok = ok && xt_get(&zt, 0) != xt_get(&zt, 0);
				}
				if (!ok)
					printf("#   Cast %s to %s, element %lld (%g): CPU and cu_cast_point differ\n",
					       dtype_short_name(types[a]), dtype_short_name(types[b]), (long long)i,
					       xt_get(&x, i));
			}
			agree += ok;
			xt_free(&y);
		}
		xt_free(&x);
	}
	OK(pairs == nt * nt && agree == pairs, "cu_cast_point gives the CPU's Cast bit for bit for every pair of its %d "
	   "types (%d of %d pairs)", nt, agree, pairs);
}

/* ---- the element-wise ops in every domain (cu_un_point, cu_bin_point) ---- */

static const int32_t ew_types[] = {OV_DT_FLOAT, OV_DT_DOUBLE, OV_DT_FLOAT16, OV_DT_BFLOAT16, OV_DT_INT8, OV_DT_INT16,
				   OV_DT_INT32, OV_DT_INT64, OV_DT_UINT8, OV_DT_UINT16, OV_DT_UINT32, OV_DT_UINT64,
				   OV_DT_BOOL};
#define EW_NT ((int)(sizeof ew_types / sizeof ew_types[0]))

/* Values where the rules show, in type dt: zeros, signs, halves, the shift widths, each integer type's edges
 * (INT_MIN / -1, wrap-around), NaN and the infinities (for an integer type, converted as Cast converts). */
static int64_t ew_fill(struct xtensor *t, int32_t dt, int pairs, int side)
{
	static const double dv[] = {0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -7.0, 7.0, 0.5, -2.5, 2.5, 63.0, 64.0,
				    65.0, 127.0, 128.0, -128.0, -129.0, 255.0, 256.0, 65535.0, 2147483647.0,
				    -2147483648.0, 4294967295.0, 1e10, -1e10, 1e-30, NAN, INFINITY, -INFINITY};
	static const int64_t iv[] = {INT64_MAX, INT64_MIN, INT64_MIN + 1, (1ll << 53) + 1, -(1ll << 32),
				     (1ll << 32) + 5};
	const int nd = (int)(sizeof dv / sizeof dv[0]), n = nd + (int)(sizeof iv / sizeof iv[0]);
	int64_t numel = pairs ? (int64_t)n * n : n;
	struct ov_error e;

	if (xt_alloc(t, dt, 1, &numel, &e))
		abort();
	for (int64_t i = 0; i < numel; i++) {
		int v = (int)(pairs ? (side ? i % n : i / n) : i);
		if (v < nd)
			xt_set(t, i, dv[v]);
		else if (dt == OV_DT_INT64 || dt == OV_DT_UINT64)
			((int64_t *)t->data)[i] = iv[v - nd];
		else
			xt_set(t, i, (double)iv[v - nd]);
	}
	return numel;
}

/* Element i of y (the CPU's) and of z (the point function's) are the same bits, or both NaN. */
static int ew_same(const struct xtensor *y, const struct xtensor *z, int64_t i)
{
	size_t es = xt_elem_size(y->dtype);

	if (!memcmp((const char *)y->data + (size_t)i * es, (const char *)z->data + (size_t)i * es, es))
		return 1;
	int fl = y->dtype == OV_DT_FLOAT || y->dtype == OV_DT_DOUBLE || y->dtype == OV_DT_FLOAT16 ||
		 y->dtype == OV_DT_BFLOAT16;
	return fl && xt_get(y, i) != xt_get(y, i) && xt_get(z, i) != xt_get(z, i);
}

/* Every binary op of cuda/elementwise.cu and cuda/logic.cu on every type: where the CUDA kernel takes the type
 * (cu_dom_pick with the op's domains), the CPU takes it too, and cu_bin_point gives its output bit for bit on
 * every pair of ew_fill's values; where the CUDA kernel declines it, so does the CPU. */
static void test_domain_binary_points(void)
{
	static const struct {
		const char *op, *attr, *sattr;
		int64_t ival;
		int cu;
		unsigned doms;
		int opset;
	} ops[] = {
		{"Add", NULL, NULL, 0, CU_B_ADD, CU_D_NUM, 13}, {"Sub", NULL, NULL, 0, CU_B_SUB, CU_D_NUM, 13},
		{"Mul", NULL, NULL, 0, CU_B_MUL, CU_D_NUM, 13}, {"Div", NULL, NULL, 0, CU_B_DIV, CU_D_NUM, 13},
		{"Min", NULL, NULL, 0, CU_B_MIN, CU_D_NUM, 13}, {"Max", NULL, NULL, 0, CU_B_MAX, CU_D_NUM, 13},
		{"Sum", NULL, NULL, 0, CU_B_ADD, CU_D_NUM, 13}, {"Mean", NULL, NULL, 0, CU_B_MEAN, CU_D_FLOAT, 13},
		{"PRelu", NULL, NULL, 0, CU_B_PRELU, CU_D_NUM, 16},
		{"Mod", "fmod", NULL, 0, CU_B_MOD, CU_D_NUM, 13}, {"Mod", "fmod", NULL, 1, CU_B_FMOD, CU_D_NUM, 13},
		{"Equal", NULL, NULL, 0, CU_B_EQ, CU_D_NUM | CU_D_BOOL, 19},
		{"Less", NULL, NULL, 0, CU_B_LT, CU_D_NUM | CU_D_BOOL, 13},
		{"Greater", NULL, NULL, 0, CU_B_GT, CU_D_NUM | CU_D_BOOL, 13},
		{"LessOrEqual", NULL, NULL, 0, CU_B_LE, CU_D_NUM | CU_D_BOOL, 16},
		{"GreaterOrEqual", NULL, NULL, 0, CU_B_GE, CU_D_NUM | CU_D_BOOL, 16},
		{"And", NULL, NULL, 0, CU_B_AND, CU_D_BOOL, 7}, {"Or", NULL, NULL, 0, CU_B_OR, CU_D_BOOL, 7},
		{"Xor", NULL, NULL, 0, CU_B_XOR, CU_D_BOOL, 7},
		{"BitwiseAnd", NULL, NULL, 0, CU_B_BAND, CU_D_INT, 18}, {"BitwiseOr", NULL, NULL, 0, CU_B_BOR, CU_D_INT, 18},
		{"BitwiseXor", NULL, NULL, 0, CU_B_BXOR, CU_D_INT, 18},
		{"BitShift", NULL, "LEFT", 0, CU_B_SHL, CU_D_INT, 11}, {"BitShift", NULL, "RIGHT", 0, CU_B_SHR, CU_D_INT, 11},
	};
	const int nops = (int)(sizeof ops / sizeof ops[0]);
	int cases = 0, agree = 0, taken = 0;

	for (int o = 0; o < nops; o++)
		for (int ti = 0; ti < EW_NT; ti++) {
			int32_t dt = ew_types[ti];
			struct xtensor a, b, y, z;
			struct tnode t;
			int64_t n = ew_fill(&a, dt, 1, 0);
			ew_fill(&b, dt, 1, 1);
			const struct xtensor *in[2] = {&a, &b};
			node(&t, ops[o].op);
			if (ops[o].attr)
				set_int(&t, ops[o].attr, ops[o].ival);
			if (ops[o].sattr)
				set_str(&t, "direction", ops[o].sattr);
			int cpu = !run(&t, ops[o].opset, in, 2, &y, 1);
			int dom = cu_dom_pick(dt, ops[o].doms);
			if (ops[o].cu == CU_B_SHL || ops[o].cu == CU_B_SHR)
				/* as k_bitshift: the signed types in int64, the others in uint64 */
				dom = dom < 0 ? -1 : dt == OV_DT_INT8 || dt == OV_DT_INT16 || dt == OV_DT_INT32 || dt == OV_DT_INT64
					? CU_DOM_I64 : CU_DOM_U64;
			cases++;
			int ok = cpu == (dom >= 0);
			if (ok && cpu) {
				taken++;
				alloc_or_die(&z, y.dtype, 1, &n);
				for (int64_t i = 0; ok && i < n; i++) {
					cu_bin_point(ops[o].cu, dom, a.data, dt, i, b.data, dt, i, z.data, z.dtype, i);
					ok = ew_same(&y, &z, i);
					if (!ok)
						printf("#   %s %s(%g, %g): CPU %g, cu_bin_point %g\n", ops[o].op,
						       dtype_short_name(dt), xt_get(&a, i), xt_get(&b, i), xt_get(&y, i),
						       xt_get(&z, i));
				}
				xt_free(&z);
			} else if (!ok) {
				printf("#   %s on %s: the CPU %s it, CUDA %s it\n", ops[o].op, dtype_short_name(dt),
				       cpu ? "runs" : "refuses", dom >= 0 ? "takes" : "declines");
			}
			agree += ok;
			xt_free(&y); /* a CPU kernel that fails may have made its output */
			xt_free(&a);
			xt_free(&b);
		}
	OK(cases == nops * EW_NT && agree == cases,
	   "cu_bin_point gives the CPU's binary ops bit for bit in every domain, and takes the types the CPU takes "
	   "(%d ops x %d types: %d agree, %d taken)", nops, EW_NT, agree, taken);
}

/* Pow on every pair of numeric types (cu_pow_dom: the exponent may be of another type). */
static void test_pow_points(void)
{
	int cases = 0, agree = 0;

	for (int ta = 0; ta < EW_NT; ta++)
		for (int tb = 0; tb < EW_NT; tb++) {
			struct xtensor a, b, y, z;
			struct tnode t;
			int64_t n = ew_fill(&a, ew_types[ta], 1, 0);
			ew_fill(&b, ew_types[tb], 1, 1);
			const struct xtensor *in[2] = {&a, &b};
			node(&t, "Pow");
			int cpu = !run(&t, 15, in, 2, &y, 1);
			int dom = cu_pow_dom(ew_types[ta], ew_types[tb]);
			int ok = cpu == (dom >= 0);
			if (ok && cpu) {
				alloc_or_die(&z, y.dtype, 1, &n);
				for (int64_t i = 0; ok && i < n; i++) {
					cu_bin_point(CU_B_POW, dom, a.data, a.dtype, i, b.data, b.dtype, i, z.data, z.dtype, i);
					ok = ew_same(&y, &z, i);
					if (!ok)
						printf("#   Pow %s^%s (%g, %g): CPU %g, cu_bin_point %g\n",
						       dtype_short_name(a.dtype), dtype_short_name(b.dtype), xt_get(&a, i),
						       xt_get(&b, i), xt_get(&y, i), xt_get(&z, i));
				}
				xt_free(&z);
			}
			cases++;
			agree += ok;
			xt_free(&y); /* a CPU kernel that fails may have made its output */
			xt_free(&a);
			xt_free(&b);
		}
	OK(cases == EW_NT * EW_NT && agree == cases,
	   "Pow: cu_pow_dom and cu_bin_point give the CPU's result for every pair of base and exponent types (%d of %d)",
	   agree, cases);
}

/* The same for the unary ops outside the float-only ones: where CUDA takes a type (some float-only ops decline
 * double, which the CPU runs: exact says the sets must be equal) the CPU's output bit for bit. */
static void test_domain_unary_points(void)
{
	static const struct {
		const char *op, *an, *bn;
		float a, b;
		int cu;
		unsigned doms;
		int exact, opset;
	} ops[] = {
		{"Abs", NULL, NULL, 0, 0, CU_U_ABS, CU_D_NUM, 1, 13}, {"Neg", NULL, NULL, 0, 0, CU_U_NEG, CU_D_NUM, 1, 13},
		{"Relu", NULL, NULL, 0, 0, CU_U_RELU, CU_D_NUM, 1, 14}, {"Sign", NULL, NULL, 0, 0, CU_U_SIGN, CU_D_NUM, 1, 13},
		{"Shrink", "bias", "lambd", 1.5f, 2.0f, CU_U_SHRINK, CU_D_NUM, 1, 9},
		{"Shrink", "bias", "lambd", -0.25f, 0.0f, CU_U_SHRINK, CU_D_NUM, 1, 9},
		{"IsNaN", NULL, NULL, 0, 0, CU_U_ISNAN, CU_D_FLOAT, 1, 13},
		{"IsInf", "detect_positive", "detect_negative", 1, 1, CU_U_ISINF, CU_D_FLOAT, 1, 10},
		{"IsInf", "detect_positive", "detect_negative", 0, 1, CU_U_ISINF, CU_D_FLOAT, 1, 10},
		{"IsInf", "detect_positive", "detect_negative", 1, 0, CU_U_ISINF, CU_D_FLOAT, 1, 10},
		{"Not", NULL, NULL, 0, 0, CU_U_NOT, CU_D_BOOL, 1, 1},
		{"BitwiseNot", NULL, NULL, 0, 0, CU_U_BITNOT, CU_D_INT, 1, 18},
		{"Acos", NULL, NULL, 0, 0, CU_U_ACOS, CU_D_F32, 0, 7}, {"Asin", NULL, NULL, 0, 0, CU_U_ASIN, CU_D_F32, 0, 7},
		{"Atan", NULL, NULL, 0, 0, CU_U_ATAN, CU_D_F32, 0, 7}, {"Acosh", NULL, NULL, 0, 0, CU_U_ACOSH, CU_D_F32, 0, 9},
		{"Asinh", NULL, NULL, 0, 0, CU_U_ASINH, CU_D_F32, 0, 9}, {"Atanh", NULL, NULL, 0, 0, CU_U_ATANH, CU_D_F32, 0, 9},
		{"Cosh", NULL, NULL, 0, 0, CU_U_COSH, CU_D_F32, 0, 9}, {"Sinh", NULL, NULL, 0, 0, CU_U_SINH, CU_D_F32, 0, 9},
	};
	const int nops = (int)(sizeof ops / sizeof ops[0]);
	int cases = 0, agree = 0, taken = 0;

	for (int o = 0; o < nops; o++)
		for (int ti = 0; ti < EW_NT; ti++) {
			int32_t dt = ew_types[ti];
			struct xtensor x, y, z;
			struct tnode t;
			int64_t n = ew_fill(&x, dt, 0, 0);
			const struct xtensor *in[1] = {&x};
			node(&t, ops[o].op);
			if (ops[o].cu == CU_U_ISINF) { /* IsInf's detections are ints, Shrink's parameters floats */
				set_int(&t, ops[o].an, (int64_t)ops[o].a);
				set_int(&t, ops[o].bn, (int64_t)ops[o].b);
			} else if (ops[o].an) {
				set_float(&t, ops[o].an, ops[o].a);
				set_float(&t, ops[o].bn, ops[o].b);
			}
			int cpu = !run(&t, ops[o].opset, in, 1, &y, 1);
			int dom = cu_dom_pick(dt, ops[o].doms);
			int ok = ops[o].exact ? cpu == (dom >= 0) : cpu || dom < 0;
			cases++;
			if (ok && cpu && dom >= 0) {
				taken++;
				alloc_or_die(&z, y.dtype, 1, &n);
				for (int64_t i = 0; ok && i < n; i++) {
					cu_un_point(ops[o].cu, dom, ops[o].a, ops[o].b, x.data, dt, z.data, z.dtype, i);
					ok = ew_same(&y, &z, i);
					if (!ok)
						printf("#   %s %s(%g): CPU %g, cu_un_point %g\n", ops[o].op, dtype_short_name(dt),
						       xt_get(&x, i), xt_get(&y, i), xt_get(&z, i));
				}
				xt_free(&z);
			} else if (!ok) {
				printf("#   %s on %s: the CPU %s it, CUDA %s it\n", ops[o].op, dtype_short_name(dt),
				       cpu ? "runs" : "refuses", dom >= 0 ? "takes" : "declines");
			}
			agree += ok;
			xt_free(&y); /* a CPU kernel that fails may have made its output */
			xt_free(&x);
		}
	OK(cases == nops * EW_NT && agree == cases,
	   "cu_un_point gives the CPU's unary ops bit for bit in every domain it takes (%d ops x %d types: %d agree, "
	   "%d taken)", nops, EW_NT, agree, taken);
}

/* Random shapes and axes (an empty one now and then), every ReduceX on float32, the integer ones on int64 and
 * int32, with NaN and infinities among the floats now and then. */
static void test_reduce_points(void)
{
	static const char *const ops[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
					  "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"};
	static const double special[] = {NAN, INFINITY, -INFINITY};
	int tried = 0, agree = 0;

	for (int it = 0; it < 600; it++) {
		int op = (int)irand(0, 9), rank = (int)irand(0, 4), red[XT_MAX_RANK] = {0};
		int32_t dt = irand(0, 2) ? OV_DT_FLOAT : irand(0, 1) ? OV_DT_INT64 : OV_DT_INT32;
		int64_t xd[4], axes[4], na = 0;
		if (dt != OV_DT_FLOAT && (op == OV_RED_L2 || op == OV_RED_LOGSUM || op == OV_RED_LOGSUMEXP))
			dt = OV_DT_FLOAT; /* computed in double on the CPU: cuda/reduce.cu declines them */
		for (int i = 0; i < rank; i++) {
			xd[i] = irand(0, 12) ? irand(1, 5) : 0;
			if (irand(0, 1)) {
				axes[na++] = irand(0, 1) ? i : i - rank;
				red[i] = 1;
			}
		}
		if (!na)
			for (int i = 0; i < rank; i++)
				red[i] = 1;
		struct tnode t;
		struct xtensor x, y, at;
		struct ov_error e;
		alloc_or_die(&x, dt, rank, xd);
		for (int64_t i = 0; i < x.numel; i++)
			xt_set(&x, i, dt != OV_DT_FLOAT ? (double)irand(-50, 50)
				      : irand(0, 40) ? (double)irand(-(1 << 20), 1 << 20) / (1 << 19)
				      : special[irand(0, 2)]);
		if (xt_alloc(&at, OV_DT_INT64, 1, &na, &e))
			abort();
		memcpy(at.data, axes, (size_t)na * sizeof *axes);
		node(&t, ops[op]);
		set_int(&t, "keepdims", irand(0, 1));
		const struct xtensor *in[2] = {&x, &at};
		if (run(&t, 18, in, na ? 2 : 1, &y, 1)) {
			OK(0, "%s runs on the CPU: %s", ops[op], t.err.msg);
			xt_free(&x);
			xt_free(&at);
			continue;
		}
		tried++;
		struct cu_reduce r;
		cu_reduce_make(x.dims, x.rank, red, &r);
		struct xtensor z;
		alloc_or_die(&z, dt, y.rank, y.dims);
		for (int64_t o = 0; o < z.numel; o++) {
			if (dt == OV_DT_FLOAT)
				cu_store_d(z.data, dt, o, cu_reduce_point_d(&r, op, x.data, dt, o));
			else
				cu_store_i(z.data, dt, o, cu_reduce_point_i(&r, op, x.data, dt, o));
		}
		int ok = z.numel == y.numel;
		for (int64_t i = 0; ok && i < y.numel; i++)
			ok = dt == OV_DT_FLOAT ? same_f(((float *)y.data)[i], ((float *)z.data)[i])
					       : xt_get_int(&y, i) == xt_get_int(&z, i);
		if (!ok)
			printf("#   %s on %s, rank %d: CPU and cu_reduce_point differ\n", ops[op], dtype_short_name(dt),
			       rank);
		agree += ok;
		xt_free(&x);
		xt_free(&at);
		xt_free(&y);
		xt_free(&z);
	}
	OK(tried == 600 && agree == tried, "cu_reduce_point_d/_i give the CPU's ReduceX bit for bit on random shapes, "
	   "axes and types (%d of %d)", agree, tried);
}

/* float32 ReduceSum/ReduceMean over a contiguous run and Softmax's denominator, where the order of the double sum
 * shows in the float result: a row of 1e30, 1, then -1e30 at 16 (lane 0 cancels, lane 1 keeps the 1; a sum in
 * order gives 0), rows of 40 over the last axis and over the last two axes of [3, 1, 2, 20] (an axis of 1 between):
 * the CPU kernels and the CUDA points agree bit for bit (ov_sum16_f's order). */
static void test_sum_order_points(void)
{
	static const char *const ops[] = {"ReduceSum", "ReduceMean"};
	int64_t xd[4] = {3, 1, 2, 20}, ax1[1] = {3}, ax2[2] = {2, 3}, n1 = 1, n2 = 2;
	int agree = 0, tried = 0, saw_one = 0;

	for (int op = 0; op < 2; op++)
		for (int which = 0; which < 2; which++) {
			struct tnode t;
			struct xtensor x, y, at, z;
			struct ov_error e;
			int red[4] = {0, 0, which == 1, 1};
			alloc_or_die(&x, OV_DT_FLOAT, 4, xd);
			for (int64_t i = 0; i < x.numel; i++)
				((float *)x.data)[i] = (float)irand(-1000, 1000) / 8;
			for (int64_t row = 0; row < 3; row++) {
				float *p = (float *)x.data + row * 40;
				p[0] = 1e30f, p[1] = 1, p[16] = -1e30f;
			}
			if (xt_alloc(&at, OV_DT_INT64, 1, which ? &n2 : &n1, &e))
				abort();
			memcpy(at.data, which ? ax2 : ax1, (size_t)(which ? 2 : 1) * sizeof(int64_t));
			node(&t, ops[op]);
			const struct xtensor *in[2] = {&x, &at};
			if (run(&t, 18, in, 2, &y, 1)) {
				OK(0, "%s runs on the CPU: %s", ops[op], t.err.msg);
				continue;
			}
			tried++;
			struct cu_reduce r;
			cu_reduce_make(x.dims, x.rank, red, &r);
			alloc_or_die(&z, OV_DT_FLOAT, y.rank, y.dims);
			for (int64_t o = 0; o < z.numel; o++)
				cu_store_d(z.data, OV_DT_FLOAT, o, cu_reduce_point_d(&r, op, x.data, OV_DT_FLOAT, o));
			int ok = z.numel == y.numel;
			for (int64_t i = 0; ok && i < y.numel; i++)
				ok = same_f(((float *)y.data)[i], ((float *)z.data)[i]);
			agree += ok;
			saw_one += which == 1 && op == 0 && ((float *)y.data)[0] != 0;
			xt_free(&x);
			xt_free(&at);
			xt_free(&y);
			xt_free(&z);
		}
	OK(tried == 4 && agree == 4 && saw_one, "float32 ReduceSum/ReduceMean over a contiguous run: CPU and "
	   "cu_reduce_point_d agree where the sum's order shows (%d of %d)", agree, tried);

	/* Softmax over rows of 300: CPU and cu_softmax_row */
	struct tnode t;
	struct xtensor x, y, z;
	int64_t sd[2] = {4, 300};
	alloc_or_die(&x, OV_DT_FLOAT, 2, sd);
	for (int64_t i = 0; i < x.numel; i++)
		((float *)x.data)[i] = (float)irand(-4000, 4000) / 256;
	int ok = 0;
	for (int logsm = 0; logsm < 2; logsm++) {
		node(&t, logsm ? "LogSoftmax" : "Softmax");
		const struct xtensor *in[1] = {&x};
		if (run(&t, 13, in, 1, &y, 1))
			continue;
		alloc_or_die(&z, OV_DT_FLOAT, 2, sd);
		for (int64_t row = 0; row < 4; row++)
			cu_softmax_row(x.data, z.data, row * 300, 300, 1, logsm);
		int same = 1;
		for (int64_t i = 0; same && i < x.numel; i++)
			same = same_f(((float *)y.data)[i], ((float *)z.data)[i]);
		ok += same;
		xt_free(&y);
		xt_free(&z);
	}
	xt_free(&x);
	OK(ok == 2, "Softmax and LogSoftmax over rows of 300: CPU and cu_softmax_row agree bit for bit");
}

/* ArgMax and ArgMin with ties (small integers) and NaN, select_last_index or not. */
static void test_arg_points(void)
{
	int tried = 0, agree = 0;

	for (int it = 0; it < 300; it++) {
		int rank = (int)irand(1, 3), want_max = (int)irand(0, 1), last = (int)irand(0, 1);
		int32_t dt = irand(0, 1) ? OV_DT_FLOAT : irand(0, 1) ? OV_DT_INT64 : OV_DT_INT32;
		int64_t xd[3];
		for (int i = 0; i < rank; i++)
			xd[i] = irand(1, 6);
		int axis = (int)irand(0, rank - 1);
		struct tnode t;
		struct xtensor x, y;
		alloc_or_die(&x, dt, rank, xd);
		for (int64_t i = 0; i < x.numel; i++)
			xt_set(&x, i, dt == OV_DT_FLOAT && !irand(0, 8) ? NAN : (double)irand(-3, 3));
		node(&t, want_max ? "ArgMax" : "ArgMin");
		set_int(&t, "axis", irand(0, 1) ? axis : axis - rank);
		set_int(&t, "select_last_index", last);
		const struct xtensor *in[1] = {&x};
		if (run(&t, 13, in, 1, &y, 1)) {
			OK(0, "ArgMax runs on the CPU: %s", t.err.msg);
			xt_free(&x);
			continue;
		}
		tried++;
		int64_t len = xd[axis], outer = xk_numel(axis, xd), inner = xk_numel(rank - axis - 1, xd + axis + 1);
		int ok = 1;
		for (int64_t q = 0; ok && q < outer * inner; q++) {
			int64_t o = q / inner, in_ = q % inner;
			ok = ((int64_t *)y.data)[q] ==
			     cu_arg_point(x.data, dt, o * len * inner + in_, len, inner, want_max, last);
		}
		agree += ok;
		xt_free(&x);
		xt_free(&y);
	}
	OK(tried == 300 && agree == tried, "cu_arg_point gives the CPU's ArgMax and ArgMin with ties and NaN (%d of %d)",
	   agree, tried);
}

/* LayerNormalization over the last axes, InstanceNormalization and BatchNormalization on float32 and float64, as
 * cuda/norm.cu puts the statistics (ov_norm_stats16) and the element functions together. */
static void test_norm_points(void)
{
	int tried = 0, agree = 0;

	for (int it = 0; it < 240; it++) {
		int kind = it % 3, rank = (int)irand(kind ? 3 : 1, 4);
		int32_t dt = irand(0, 3) ? OV_DT_FLOAT : OV_DT_DOUBLE;
		int64_t xd[4], c;
		for (int i = 0; i < rank; i++)
			xd[i] = irand(1, 6);
		c = kind ? xd[1] : 0;
		struct tnode t;
		struct xtensor x, y, z, p[4];
		alloc_or_die(&x, dt, rank, xd);
		for (int64_t i = 0; i < x.numel; i++)
			xt_set(&x, i, (double)irand(-(1 << 20), 1 << 20) / (1 << 18));
		int axis = (int)irand(0, rank - 1);
		int64_t pd[4], npd = 0, len = 1, outer = 1;
		if (kind == 0) { /* Scale and B of the normalised dims */
			for (int i = axis; i < rank; i++)
				pd[npd++] = xd[i];
		} else {
			pd[npd++] = c;
		}
		for (int j = 0; j < (kind == 2 ? 4 : 2); j++) {
			alloc_or_die(&p[j], dt, (int)npd, pd);
			for (int64_t i = 0; i < p[j].numel; i++)
				xt_set(&p[j], i, j == 3 ? 0.1 + (double)irand(0, 100) / 50 : (double)irand(-100, 100) / 64);
		}
		double eps = 1e-5f;
		const struct xtensor *in[5] = {&x, &p[0], &p[1], &p[2], &p[3]};
		node(&t, kind == 0 ? "LayerNormalization" : kind == 1 ? "InstanceNormalization" : "BatchNormalization");
		if (kind == 0)
			set_int(&t, "axis", axis);
		if (run(&t, kind == 0 ? 17 : 15, in, kind == 2 ? 5 : 3, &y, 1)) {
			OK(0, "%s runs on the CPU: %s", t.proto.op_type, t.err.msg);
			xt_free(&x);
			for (int j = 0; j < (kind == 2 ? 4 : 2); j++)
				xt_free(&p[j]);
			continue;
		}
		tried++;
		alloc_or_die(&z, dt, rank, xd);
		if (kind == 0) {
			for (int i = 0; i < rank; i++)
				*(i < axis ? &outer : &len) *= xd[i];
			for (int64_t r = 0; r < outer; r++) {
				double m, inv;
				ov_norm_stats16(x.data, dt, r * len, len, eps, &m, &inv);
				m = (float)m, inv = (float)inv; /* stash_type float */
				for (int64_t j = 0; j < len; j++)
					cu_store_d(z.data, dt, r * len + j,
						   cu_layernorm_value(cu_load_d(x.data, dt, r * len + j), m, inv,
								      cu_load_d(p[0].data, dt, j),
								      cu_load_d(p[1].data, dt, j)));
			}
		} else if (kind == 1) {
			len = xk_numel(rank - 2, xd + 2);
			for (int64_t g = 0; g < xd[0] * c; g++) {
				double m, inv, sc = xt_get(&p[0], g % c), bi = xt_get(&p[1], g % c);
				ov_norm_stats16(x.data, dt, g * len, len, eps, &m, &inv);
				for (int64_t j = g * len; j < (g + 1) * len; j++)
					if (dt == OV_DT_FLOAT)
						((float *)z.data)[j] = cu_group_norm_f(((float *)x.data)[j], m, inv, sc, bi);
					else
						((double *)z.data)[j] = cu_group_norm_d(((double *)x.data)[j], m, inv, sc, bi);
			}
		} else {
			len = xk_numel(rank - 2, xd + 2);
			for (int64_t j = 0; j < x.numel; j++) {
				int64_t ch = j / len % c;
				double a = xt_get(&p[0], ch) / sqrt(xt_get(&p[3], ch) + eps);
				double b = xt_get(&p[1], ch) - xt_get(&p[2], ch) * a;
				if (dt == OV_DT_FLOAT)
					((float *)z.data)[j] = cu_batchnorm_f(((float *)x.data)[j], a, b, len > 1);
				else
					((double *)z.data)[j] = ((double *)x.data)[j] * a + b;
			}
		}
		int ok = !memcmp(y.data, z.data, y.bytes);
		if (!ok)
			printf("#   %s on %s, rank %d: CPU and cuda-points differ\n", t.proto.op_type, dtype_short_name(dt),
			       rank);
		agree += ok;
		xt_free(&x);
		xt_free(&y);
		xt_free(&z);
		for (int j = 0; j < (kind == 2 ? 4 : 2); j++)
			xt_free(&p[j]);
	}
	OK(tried == 240 && agree == tried, "ov_norm_stats16 and the element functions give the CPU's LayerNormalization, "
	   "InstanceNormalization and BatchNormalization bit for bit (%d of %d)", agree, tried);
}

/* GroupNormalization (opset 18's scale per group, 21's per channel), MeanVarianceNormalization, LRN, Hardmax and
 * GlobalLpPool on float32 and float64, as cuda/norm.cu and cuda/pool.cu put the cuda/points.h functions together,
 * bit for bit against the CPU kernels. */
static void test_more_norm_points(void)
{
	static const char *const ops[] = {"GroupNormalization", "MeanVarianceNormalization", "LRN", "Hardmax",
					  "GlobalLpPool"};
	int tried = 0, agree = 0;

	for (int it = 0; it < 300; it++) {
		int kind = it % 5, rank = (int)irand(kind == 3 ? 1 : kind == 1 ? 1 : 2, 4), nin = 1, opset = 18;
		int32_t dt = irand(0, 2) ? OV_DT_FLOAT : OV_DT_DOUBLE;
		int64_t xd[4], c, groups = 1, pn = 0;
		for (int i = 0; i < rank; i++)
			xd[i] = irand(1, 6);
		struct tnode t;
		struct xtensor x, y, z, p[2];
		alloc_or_die(&x, dt, rank, xd);
		for (int64_t i = 0; i < x.numel; i++)
			xt_set(&x, i, (double)irand(-(1 << 20), 1 << 20) / (1 << 18));
		if (kind == 3 && irand(0, 1)) /* ties */
			for (int64_t i = 0; i < x.numel; i++)
				xt_set(&x, i, (double)irand(-2, 2));
		node(&t, ops[kind]);
		c = rank > 1 ? xd[1] : 1;
		int64_t inner = xk_numel(rank - 2 > 0 ? rank - 2 : 0, xd + 2), axes[4], na = 0, size = irand(1, 5);
		int red[XT_MAX_RANK] = {0};
		double alpha = 1e-4f, beta = 0.75f, bias = 1.0f, pv = (double)irand(1, 3);
		int64_t hax = irand(0, rank - 1);
		const struct xtensor *in[3] = {&x, &p[0], &p[1]};
		if (kind == 0) {
			do
				groups = irand(1, c);
			while (c % groups);
			opset = irand(0, 1) ? 18 : 21;
			pn = opset < 21 ? groups : c;
			set_int(&t, "num_groups", groups);
			for (int j = 0; j < 2; j++) {
				alloc_or_die(&p[j], dt, 1, &pn);
				for (int64_t i = 0; i < pn; i++)
					xt_set(&p[j], i, (double)irand(-100, 100) / 64);
			}
			nin = 3;
		} else if (kind == 1) {
			for (int a = 0; a < rank; a++)
				if (irand(0, 1))
					axes[na++] = a - (irand(0, 1) ? rank : 0);
			if (!na)
				axes[na++] = rank - 1;
			set_ints(&t, "axes", axes, (size_t)na);
			for (int64_t i = 0; i < na; i++)
				red[axes[i] < 0 ? axes[i] + rank : axes[i]] = 1;
		} else if (kind == 2) {
			set_int(&t, "size", size);
			alpha = 0.02f, beta = 0.6f, bias = 1.5f;
			set_float(&t, "alpha", (float)alpha);
			set_float(&t, "beta", (float)beta);
			set_float(&t, "bias", (float)bias);
		} else if (kind == 3) {
			set_int(&t, "axis", hax);
			opset = 13;
		} else {
			set_int(&t, "p", (int64_t)pv);
			opset = 2;
		}
		if (run(&t, opset, in, (size_t)nin, &y, 1)) {
			OK(0, "%s runs on the CPU: %s", ops[kind], t.err.msg);
			goto next;
		}
		tried++;
		alloc_or_die(&z, dt, y.rank, y.dims);
		if (kind == 0) {
			int64_t gsize = c / groups * inner;
			for (int64_t g = 0; g < xd[0] * groups; g++) {
				double m, inv;
				ov_norm_stats16(x.data, dt, g * gsize, gsize, 1e-5f, &m, &inv);
				for (int64_t i = g * gsize; i < (g + 1) * gsize; i++) {
					int64_t pi = opset < 21 ? g % groups : i / inner % c;
					double sc = cu_get_d(p[0].data, dt, pi), bi = cu_get_d(p[1].data, dt, pi);
					if (dt == OV_DT_FLOAT)
						((float *)z.data)[i] = cu_group_norm_f(((float *)x.data)[i], m, inv, sc, bi);
					else
						((double *)z.data)[i] = cu_group_norm_d(((double *)x.data)[i], m, inv, sc, bi);
				}
			}
		} else if (kind == 1) {
			struct cu_reduce r;
			cu_reduce_make(x.dims, x.rank, red, &r);
			for (int64_t i = 0; i < x.numel; i++) {
				double m, den;
				cu_mvn_stats(&r, x.data, dt, cu_reduce_out_index(&r, i), &m, &den);
				cu_store_d(z.data, dt, i, (cu_load_d(x.data, dt, i) - m) / den);
			}
		} else if (kind == 2) {
			for (int64_t i = 0; i < x.numel; i++)
				cu_store_d(z.data, dt, i, cu_lrn_point(x.data, dt, c, inner, size, alpha, beta, bias, i));
		} else if (kind == 3) {
			int64_t len = xd[hax], in2 = 1;
			for (int i = (int)hax + 1; i < rank; i++)
				in2 *= xd[i];
			for (int64_t row = 0; row < x.numel / len; row++)
				cu_hardmax_row(x.data, z.data, dt, row / in2 * len * in2 + row % in2, len, in2);
		} else {
			for (int64_t pl = 0; pl < xd[0] * c; pl++)
				cu_store_d(z.data, dt, pl, cu_global_lp_point(x.data, dt, pl * inner, inner, pv));
		}
		int ok = y.bytes == z.bytes && !memcmp(y.data, z.data, y.bytes);
		if (!ok)
			printf("#   %s on %s, rank %d: CPU and cuda-points differ\n", ops[kind], dtype_short_name(dt), rank);
		agree += ok;
		xt_free(&y);
		xt_free(&z);
next:
		xt_free(&x);
		if (kind == 0)
			for (int j = 0; j < 2; j++)
				xt_free(&p[j]);
	}
	OK(tried == 300 && agree == tried, "the cuda/points.h functions give the CPU's GroupNormalization, "
	   "MeanVarianceNormalization, LRN, Hardmax and GlobalLpPool bit for bit (%d of %d)", agree, tried);
}


/* ---- rows of 16 lanes (cuda/norm.cu's softmax_rows_kernel, layernorm_rows_kernel, stats_rows_kernel) ----
 * The kernels give a row to 16 threads: lane l computes its part (the cu_softmax_lane_ functions, ov_lane16_sum,
 * ov_lane16_sqdev), then the lanes fold with __shfl_down_sync (lane q adds lane q + w's value for w = 8, 4, 2, 1;
 * a lane whose q + w is past the 16 gets its own value back) and every lane takes lane 0's result (__shfl_sync).
 * Here the same, lane by lane, with the shuffles done on an array of the 16 lanes' values, against the CPU kernels
 * bit for bit, on rows of several lengths and batches, with NaN, infinities and -0 in some rows. */

/* The shuffle tree of cuda/norm.cu's lanes_sum and lanes_max over the 16 lanes' values v, as the device runs it:
 * every lane's value after each step, then lane 0's in all. */
/* the same double, NaN matching NaN */
static int same_d(double a, double b)
{
	return (a != a && b != b) || !memcmp(&a, &b, sizeof a);
}

static double shfl_tree_sum(const double *v0)
{
	double v[16], o[16];

	memcpy(v, v0, sizeof v);
	for (int w = 8; w >= 1; w /= 2) {
		for (int q = 0; q < 16; q++)
			o[q] = q + w < 16 ? v[q + w] : v[q]; /* __shfl_down_sync(mask, v, w, 16) */
		for (int q = 0; q < 16; q++)
			v[q] += o[q];
	}
	return v[0]; /* __shfl_sync(mask, v, 0, 16) */
}

static float shfl_tree_max(const float *v0)
{
	float v[16], o[16];

	memcpy(v, v0, sizeof v);
	for (int w = 8; w >= 1; w /= 2) {
		for (int q = 0; q < 16; q++)
			o[q] = q + w < 16 ? v[q + w] : v[q];
		for (int q = 0; q < 16; q++)
			v[q] = cu_max2_f(v[q], o[q]);
	}
	return v[0];
}

/* Row r of rows of len: a special one now and then (by r % 6): NaN in it, +inf, -inf in it, all -inf, every value
 * a zero of either sign, or a row where the sum's order shows (1e30, 1, then -1e30 at 16, zeros elsewhere: lane 0
 * cancels, lane 1 keeps the 1; a sum in order gives 0). */
static void fill_row(float *p, int64_t len, int64_t r, int specials)
{
	for (int64_t j = 0; j < len; j++)
		p[j] = (float)irand(-4000, 4000) / 256;
	if (!specials)
		return;
	switch (r % 6) {
	case 0: p[len / 2] = NAN; break;
	case 1: p[len - 1] = INFINITY; break;
	case 2: p[0] = -INFINITY; break;
	case 3:
		for (int64_t j = 0; j < len; j++)
			p[j] = -INFINITY;
		break;
	case 4:
		for (int64_t j = 0; j < len; j++)
			p[j] = irand(0, 1) ? -0.0f : 0.0f;
		break;
	default:
		if (len > 16) {
			for (int64_t j = 0; j < len; j++)
				p[j] = 0;
			p[0] = 1e30f, p[1] = 1, p[16] = -1e30f;
		}
		break;
	}
}

static void test_row_lanes(void)
{
	static const int64_t lens[] = {1, 3, 15, 16, 17, 128, 197, 512, 768, 1000};
	int tried = 0, agree = 0, ln_tried = 0, ln_agree = 0, order_shows = 0;

	for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
		for (int64_t rows = 1; rows <= 7; rows += 6) {
			int64_t len = lens[li], xd[2] = {rows, len};
			struct xtensor x, y, z;
			alloc_or_die(&x, OV_DT_FLOAT, 2, xd);
			for (int64_t r = 0; r < rows; r++)
				fill_row((float *)x.data + r * len, len, r, rows > 1);
			/* Softmax, LogSoftmax */
			for (int logsm = 0; logsm < 2; logsm++) {
				struct tnode t;
				node(&t, logsm ? "LogSoftmax" : "Softmax");
				const struct xtensor *in[1] = {&x};
				if (run(&t, 13, in, 1, &y, 1)) {
					OK(0, "Softmax runs on the CPU: %s", t.err.msg);
					continue;
				}
				tried++;
				alloc_or_die(&z, OV_DT_FLOAT, 2, xd);
				for (int64_t r = 0; r < rows; r++) {
					const float *xp = (const float *)x.data + r * len;
					float *zp = (float *)z.data + r * len, m[16];
					double l[16];
					for (int q = 0; q < 16; q++)
						m[q] = cu_softmax_lane_max(xp, len, 1, q);
					float mx = shfl_tree_max(m);
					for (int q = 0; q < 16; q++)
						l[q] = cu_softmax_lane_exp(xp, zp, len, 1, mx, logsm, q);
					double sum = shfl_tree_sum(l);
					for (int q = 0; q < 16; q++)
						cu_softmax_lane_write(xp, zp, len, 1, mx, sum, logsm, q);
				}
				int ok = 1;
				for (int64_t i = 0; ok && i < x.numel; i++)
					ok = same_f(((float *)y.data)[i], ((float *)z.data)[i]);
				if (!ok)
					printf("#   %s over %lld rows of %lld: CPU and the lanes differ\n", t.proto.op_type,
					       (long long)rows, (long long)len);
				agree += ok;
				xt_free(&y);
				xt_free(&z);
			}
			/* LayerNormalization: float32 (the CPU's vector rows) and float64, with and without B, stash
			 * float (with Mean and InvStdDev) and double */
			for (int v = 0; v < 4; v++) {
				int32_t dt = v & 1 ? OV_DT_DOUBLE : OV_DT_FLOAT;
				int bias = v < 2, stash = v == 3 ? 11 : 1;
				struct xtensor xx, p[2], yo[3], zo[3];
				int64_t pd[1] = {len};
				alloc_or_die(&xx, dt, 2, xd);
				for (int64_t i = 0; i < x.numel; i++)
					xt_set(&xx, i, ((float *)x.data)[i]);
				for (int j = 0; j < 2; j++) {
					alloc_or_die(&p[j], dt, 1, pd);
					for (int64_t i = 0; i < len; i++)
						xt_set(&p[j], i, (double)irand(-100, 100) / 64);
				}
				struct tnode t;
				node(&t, "LayerNormalization");
				set_int(&t, "stash_type", stash);
				const struct xtensor *in[3] = {&xx, &p[0], &p[1]};
				if (run(&t, 17, in, bias ? 3 : 2, yo, 3)) {
					OK(0, "LayerNormalization runs on the CPU: %s", t.err.msg);
					goto ln_next;
				}
				ln_tried++;
				int32_t st = stash == 1 ? OV_DT_FLOAT : OV_DT_DOUBLE;
				alloc_or_die(&zo[0], dt, 2, xd);
				alloc_or_die(&zo[1], st, 2, (int64_t[2]){rows, 1});
				alloc_or_die(&zo[2], st, 2, (int64_t[2]){rows, 1});
				for (int64_t r = 0; r < rows; r++) {
					double l[16];
					for (int q = 0; q < 16; q++)
						l[q] = ov_lane16_sum(xx.data, dt, r * len, len, q);
					double m = ov_norm_mean(shfl_tree_sum(l), len);
					for (int q = 0; q < 16; q++)
						l[q] = ov_lane16_sqdev(xx.data, dt, r * len, len, m, q);
					double iv = ov_norm_inv(shfl_tree_sum(l), len, 1e-5f);
					if (stash == 1)
						m = (float)m, iv = (float)iv;
					cu_store_d(zo[1].data, st, r, m);
					cu_store_d(zo[2].data, st, r, iv);
					for (int q = 0; q < 16; q++)
						for (int64_t j = q; j < len; j += 16)
							cu_store_d(zo[0].data, dt, r * len + j,
								   cu_layernorm_value(cu_load_d(xx.data, dt, r * len + j), m,
										      iv, cu_load_d(p[0].data, dt, j),
										      bias ? cu_load_d(p[1].data, dt, j) : 0.0));
				}
				int ok = 1;
				for (int o = 0; o < 3; o++)
					for (int64_t i = 0; ok && i < yo[o].numel; i++)
						ok = yo[o].dtype == zo[o].dtype && same_d(xt_get(&yo[o], i), xt_get(&zo[o], i));
				if (!ok)
					printf("#   LayerNormalization on %s over %lld rows of %lld (B %d, stash %d): CPU and "
					       "the lanes differ\n", dtype_short_name(dt), (long long)rows, (long long)len,
					       bias, stash);
				ln_agree += ok;
				/* the row where the order shows: its mean is 1/len in 16 lanes, 0 in order */
				if (rows > 1 && len > 16 && v == 0)
					order_shows += xt_get(&yo[1], 5) == (float)(1.0 / (double)len);
				for (int o = 0; o < 3; o++) {
					xt_free(&yo[o]);
					xt_free(&zo[o]);
				}
ln_next:
				xt_free(&xx);
				xt_free(&p[0]);
				xt_free(&p[1]);
			}
			xt_free(&x);
		}
	OK(tried == 40 && agree == tried, "Softmax and LogSoftmax in 16 lanes folded by the shuffle tree give the CPU's "
	   "bits on rows of 1 to 1000, with NaN, infinities and -0 (%d of %d)", agree, tried);
	OK(ln_tried == 80 && ln_agree == ln_tried, "LayerNormalization's statistics in 16 lanes folded by the shuffle "
	   "tree give the CPU's outputs, Mean and InvStdDev bit for bit, float32 and float64 (%d of %d)", ln_agree,
	   ln_tried);
	OK(order_shows == 6, "the CPU's LayerNormalization sums in the 16 lanes (1e30, 1, -1e30 at 16: mean 1/len, "
	   "not 0) on every row length over 16 (%d of 6)", order_shows);
}

int main(void)
{
	test_elementwise_points();
	test_pool_points();
	test_pool_index_lp_points();
	test_softmax_points();
	test_row_lanes();
	test_cast_points();
	test_domain_binary_points();
	test_pow_points();
	test_domain_unary_points();
	test_reduce_points();
	test_sum_order_points();
	test_arg_points();
	test_norm_points();
	test_more_norm_points();
	test_fixed();
	test_random();
	test_runner_hooks();
	test_note_without_result();
	return tap_done();
}
