/* The executor's runner: runs the nodes of a planned cut (src/exec/plan.c) in topological order through a backend,
 * constants converted once (convert.c, kept by consts.c), frees intermediates after their last use, hands back the
 * values asked for, and runs subgraphs for the control-flow kernels. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/model/describe.h"
#include "src/base/dtype.h"
#include "src/exec/exec.h"
#include "src/exec/runner.h"

/* ---- runs ---- */

/* t's host data made current, the copy from the device counted in res. */
static int to_host(struct exec_result *res, struct xtensor *t, struct ov_error *err)
{
	if (!t->host_stale)
		return 0;
	if (xt_host(t, err))
		return -1;
	res->to_host++;
	res->to_host_bytes += t->bytes;
	return 0;
}


/* What the run has spent of its limits (struct exec_limits), shared by the graph and every subgraph it runs. */
struct exec_budget {
	int64_t iterations, max_iterations;
	double t0, deadline;     /* now_ms() values; deadline 0: no time limit */
	double max_seconds;
	uint64_t max_scan_bytes;
};

/* The values of a graph being run, and of the graphs around it: a subgraph reads what it captures from here. */
struct exec_env {
	const struct graph *g;
	struct slot *slots;
	const struct exec_env *parent;
	struct exec_budget *budget;
	struct exec_consts *kc; /* the constants kept across runs (the main graph's, with exec_options.consts) */
	long runs;              /* exec_options.runs of the top graph's run (exec_kernel_ctx.runs) */
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void budget_init(struct exec_budget *b, const struct exec_limits *l)
{
	memset(b, 0, sizeof *b);
	b->max_iterations = l->max_iterations > 0 ? l->max_iterations : EXEC_MAX_ITERATIONS;
	b->t0 = now_ms();
	b->max_seconds = l->max_seconds > 0 ? l->max_seconds : 0;
	b->deadline = b->max_seconds > 0 ? b->t0 + b->max_seconds * 1e3 : 0;
	b->max_scan_bytes = l->max_scan_bytes;
	if (!b->max_scan_bytes) {
		long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
		b->max_scan_bytes = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 2 : (uint64_t)8 << 30;
	}
	if (b->max_scan_bytes > xt_limit()) /* a stacked output is one tensor */
		b->max_scan_bytes = xt_limit();
}

static int budget_time(const struct exec_budget *b, struct ov_error *err)
{
	if (b && b->deadline && now_ms() > b->deadline)
		return ov_fail(err, OV_LIMIT, "the run stopped after %g s, its time limit (--time-limit raises it)",
			       b->max_seconds);
	return 0;
}

int exec_limits_parse(struct exec_limits *l, const char *option, const char *value)
{
	char *end;

	errno = 0;
	if (!strcmp(option, "--max-iterations")) {
		long long n = strtoll(value, &end, 10);
		if (errno || end == value || *end || n < 1)
			return -1;
		l->max_iterations = n;
		return 0;
	}
	if (!strcmp(option, "--time-limit")) {
		double s = strtod(value, &end);
		if (errno || end == value || *end || !(s > 0) || s > 1e9)
			return -1;
		l->max_seconds = s;
		return 0;
	}
	return -1;
}

int xk_iteration(struct exec_kernel_ctx *k)
{
	struct exec_budget *b = k->env ? k->env->budget : NULL;

	if (!b)
		return 0;
	if (b->iterations >= b->max_iterations)
		return ov_fail(k->err, OV_LIMIT, "the run stopped after %lld loop iterations, its limit "
			       "(--max-iterations raises it)", (long long)b->max_iterations);
	b->iterations++;
	return budget_time(b, k->err);
}

static void put_bytes(char *buf, size_t n, uint64_t bytes)
{
	const char *unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 6)
		v /= 1024, u++;
	snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

int xk_scan_bytes(struct exec_kernel_ctx *k, uint64_t bytes, int64_t iterations, int projected)
{
	struct exec_budget *b = k->env ? k->env->budget : NULL;
	uint64_t limit = b ? b->max_scan_bytes : xt_limit();
	char have[32], lim[32];

	if (bytes <= limit)
		return 0;
	put_bytes(have, sizeof have, bytes);
	put_bytes(lim, sizeof lim, limit);
	if (projected)
		return ov_fail(k->err, OV_LIMIT, "its scan outputs would take %s over %lld iterations, more than the %s a "
			       "run may stack (half the machine's memory, or the tensor limit)", have, (long long)iterations,
			       lim);
	return ov_fail(k->err, OV_LIMIT, "its scan outputs reached %s after %lld iterations, more than the %s a run may "
		       "stack (half the machine's memory, or the tensor limit)", have, (long long)iterations, lim);
}

/* The value id of the kernel's input i when it is a constant kept across runs, else -1. */
static int32_t kept_input(const struct exec_kernel_ctx *k, size_t i)
{
	const struct exec_env *env = k->env;

	if (!env || !env->kc || env->g != k->g || i >= k->n_in || !k->in[i] || k->node >= k->g->n_nodes ||
	    i >= k->g->nodes[k->node].proto->n_input)
		return -1;
	int32_t id = k->g->nodes[k->node].in[i];
	if (id < 0 || env->slots[id].kept != k->in[i])
		return -1;
	/* the kept tensor's own entry: an Identity of a constant reads the same one under another name */
	const struct xtensor *kt = env->slots[id].kept;
	return kt >= env->kc->t && kt < env->kc->t + env->kc->n ? (int32_t)(kt - env->kc->t) : -1;
}

const void *xk_derived(const struct exec_kernel_ctx *k, size_t i, uint64_t tag)
{
	int32_t id = kept_input(k, i);

	return id < 0 ? NULL : consts_derived(k->env->kc, (uint32_t)id, tag);
}

int xk_keeps(const struct exec_kernel_ctx *k, size_t i)
{
	return kept_input(k, i) >= 0;
}

int xk_constant(const struct exec_kernel_ctx *k, size_t i)
{
	const struct exec_env *env = k->env;

	if (!env || env->g != k->g || i >= k->n_in || !k->in[i] || k->node >= k->g->n_nodes ||
	    i >= k->g->nodes[k->node].proto->n_input)
		return 0;
	int32_t id = k->g->nodes[k->node].in[i];
	return id >= 0 && env->slots[id].constant && (k->in[i] == &env->slots[id].t || k->in[i] == env->slots[id].kept);
}

int xk_derive(struct exec_kernel_ctx *k, size_t i, uint64_t tag, void *block, size_t bytes)
{
	int32_t id = kept_input(k, i);

	return id >= 0 && consts_derive(k->env->kc, (uint32_t)id, tag, block, bytes);
}

static void node_prefix(const struct graph *g, uint32_t n, char *buf, size_t len)
{
	const Onnx__NodeProto *p = g->nodes[n].proto;

	if (p->name && *p->name)
		snprintf(buf, len, "#%" PRIu32 " '%s' %s", n, p->name, p->op_type ? p->op_type : "?");
	else
		snprintf(buf, len, "#%" PRIu32 " %s", n, p->op_type ? p->op_type : "?");
}

/* The value's declared type is a sequence or an optional. */
static int declared_container(const struct graph_value *gv)
{
	const Onnx__TypeProto *tp = gv->declared ? gv->declared->type : NULL;

	return tp && (tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE ||
		      tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE);
}

/* Node n takes a sequence or optional, may make one from tensors, or is declared to give one. */
static int node_has_containers(const struct graph *g, uint32_t n, const struct slot *slots)
{
	const struct graph_node *nd = &g->nodes[n];
	const Onnx__NodeProto *p = nd->proto;

	int onnx = !p->domain || !*p->domain || !strcmp(p->domain, "ai.onnx");
	if (onnx && cpu_makes_containers(p->op_type ? p->op_type : ""))
		return 1;
	for (size_t i = 0; i < p->n_input; i++)
		if (nd->in[i] >= 0 && slots[nd->in[i]].t.kind != XT_TENSOR)
			return 1;
	for (size_t i = 0; i < p->n_output; i++)
		if (nd->out[i] >= 0 && declared_container(&g->values[nd->out[i]]))
			return 1;
	return 0;
}

/* Inputs and outputs a node may have for its tables to live on the stack. */
#define NODE_SMALL 8

static int run_node(struct ov_model *m, const struct graph *g, uint32_t n, struct slot *slots,
		    const uint8_t *is_from, const struct exec_backend_ops *be, const struct exec_env *env,
		    struct exec_kernel_ctx *offer, struct exec_result *res, struct ov_error *err)
{
	const struct graph_node *nd = &g->nodes[n];
	const Onnx__NodeProto *p = nd->proto;
	const char *domain = p->domain ? p->domain : "";
	/* most nodes have a few inputs and outputs: their tables on the stack, no allocation per node */
	const struct xtensor *in_s[NODE_SMALL];
	struct xtensor *out_s[NODE_SMALL];
	struct xtensor scratch_s[NODE_SMALL];
	int small = p->n_input < NODE_SMALL && p->n_output < NODE_SMALL;
	const struct xtensor **in = small ? in_s : calloc(p->n_input + 1, sizeof *in);
	struct xtensor **out = small ? out_s : calloc(p->n_output + 1, sizeof *out);
	struct xtensor *scratch = small ? scratch_s : calloc(p->n_output + 1, sizeof *scratch);
	char where[300]; /* the node's name for a message, made only when there is one to give */
	int rc = -1;

	if (small) {
		memset(in_s, 0, (p->n_input + 1) * sizeof *in_s);
		memset(out_s, 0, (p->n_output + 1) * sizeof *out_s);
		memset(scratch_s, 0, (p->n_output + 1) * sizeof *scratch_s);
	}
	if (!in || !out || !scratch) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < p->n_input; i++) {
		int32_t id = nd->in[i];
		in[i] = id < 0 ? NULL : slots[id].kept ? slots[id].kept : &slots[id].t;
		if (id >= 0 && !slots[id].t.data) {
			node_prefix(g, n, where, sizeof where);
			ov_fail(err, OV_INVALID, "%s: input %zu '%s' has no value (an optional output nobody computed?)",
				where, i, g->values[id].name);
			goto out;
		}
	}
	for (size_t i = 0; i < p->n_output; i++)
		/* an output the cut is fed with keeps the fed value; the node's own goes to scratch */
		out[i] = nd->out[i] >= 0 && !is_from[nd->out[i]] ? &slots[nd->out[i]].t : &scratch[i];
	struct exec_kernel_ctx k = {
		.m = m, .g = g, .node = n, .opset = model_opset(m, domain), .in = in, .n_in = p->n_input,
		.out = out, .n_out = p->n_output, .err = err, .res = res, .env = env, .act = offer->act,
		.add = offer->add, .add_act = offer->add_act, .ln = offer->ln, .dw = offer->dw, .bn = offer->bn,
		.chain = offer->chain, .mm = offer->mm, .take = offer->take,
		.runs = env ? env->runs : 0,
	};
	if (!*domain || !strcmp(domain, "ai.onnx")) {
		if (k.opset <= 0)
			k.opset = model_opset(m, "");
	}
	err->msg[0] = '\0';
	err->code = OV_OK;
	const struct exec_backend_ops *cpu = exec_backend_cpu();
	/* sequences and optionals live on the host: a node that takes or gives one runs on the CPU, whatever the
	 * backend, and is no fallback (no device backend has such ops) */
	if (be != cpu && node_has_containers(g, n, slots))
		be = cpu;
	int declined = be != cpu && be->supports_op && !be->supports_op(domain, p->op_type ? p->op_type : "", k.opset);
	int r = declined || be == cpu ? EXEC_DECLINE : be->run_node(&k);
	if (r == EXEC_DECLINE) {
		if (be != cpu) {
			/* the backend leaves this node (this op, or these inputs) to the CPU */
			uint32_t *f = realloc(res->fallback_nodes, (res->n_fallback + 1) * sizeof *f);
			if (!f) {
				ov_fail(err, OV_NOMEM, "out of memory");
				goto out;
			}
			res->fallback_nodes = f;
			f[res->n_fallback++] = n;
			err->msg[0] = '\0';
			err->code = OV_OK;
			/* the activation after it stays the backend's node: the offer was made to the backend */
			k.act.kind = EXEC_ACT_NONE;
			k.add = NULL;
			k.ln = NULL;
			k.dw = NULL;
			k.bn = NULL;
			k.mm = NULL;
		}
		/* an Add offered for a device backend may live on the device only: the CPU's kernel is offered none */
		if (k.add && k.add->host_stale) {
			k.add = NULL;
			k.add_act.kind = EXEC_ACT_NONE;
		}
		/* a CPU kernel reads its inputs on the host: bring over those a device computed */
		for (size_t i = 0; i < p->n_input; i++)
			if (nd->in[i] >= 0 && to_host(res, &slots[nd->in[i]].t, err)) {
				node_prefix(g, n, where, sizeof where);
				ov_wrap(err, "%s: input %zu '%s': ", where, i, g->values[nd->in[i]].name);
				goto out;
			}
		r = cpu->run_node(&k);
	}
	if (r) {
		if (!err->msg[0])
			ov_fail(err, OV_INVALID, "the kernel failed without saying why");
		if (err->code == OV_OK)
			err->code = OV_INVALID;
		node_prefix(g, n, where, sizeof where);
		ov_wrap(err, "%s: ", where);
		goto out;
	}
	offer->act_done = offer->act.kind != EXEC_ACT_NONE && k.act_done;
	offer->add_done = offer->add && k.add_done;
	offer->ln_done = offer->ln && k.ln_done;
	offer->dw_done = offer->dw && k.dw_done;
	offer->bn_done = offer->bn && k.bn_done;
	offer->chain_done = offer->chain && k.chain_done;
	offer->mm_done = offer->mm ? k.mm_done : 0;
	for (size_t i = 0; i < p->n_output; i++) {
		int32_t id = nd->out[i];
		if (id >= 0 && !slots[id].t.data && (slots[id].uses || slots[id].pinned)) {
			node_prefix(g, n, where, sizeof where);
			ov_fail(err, OV_INVALID, "%s: the kernel did not compute output %zu '%s'", where, i,
				g->values[id].name);
			goto out;
		}
	}
	rc = 0;
out:
	if (scratch)
		for (size_t i = 0; i < p->n_output; i++)
			xt_free(&scratch[i]);
	if (!small) {
		free(scratch);
		free(out);
		free(in);
	}
	return rc;
}

/* Value v goes to one node only, as its input slot (any slot when slot < 0), and nobody else sees it: it is no
 * graph output, not watched (--to, --all) nor fed.  That node (one output, in the default domain, no subgraph,
 * its output not fed), or -1. */
int32_t run_sole_consumer(const struct graph *g, int32_t v, int slot, const struct slot *slots,
			  const uint8_t *is_from, int keep_all)
{
	if (keep_all || v < 0)
		return -1;
	const struct graph_value *gv = &g->values[v];
	if (gv->n_uses != 1 || slots[v].uses != 1 || slots[v].pinned || is_from[v] || gv->output_index >= 0 ||
	    (slot >= 0 && gv->uses[0].slot != (uint32_t)slot))
		return -1;
	uint32_t c = gv->uses[0].node;
	const struct graph_node *cn = &g->nodes[c];
	const Onnx__NodeProto *cp = cn->proto;
	if (cp->n_output != 1 || cn->out[0] < 0 || is_from[cn->out[0]] || cn->n_sub ||
	    (cp->domain && *cp->domain && strcmp(cp->domain, "ai.onnx")))
		return -1;
	return (int32_t)c;
}

/* The Relu or Clip that value v goes to, when a kernel may apply it in its place (run_sole_consumer, as input 0);
 * Clip (opset 11 on: bounds are inputs) has float32 scalar bounds already at hand.  Returns the consumer and fills act,
 * or -1. */
static int32_t act_after(struct ov_model *m, const struct graph *g, int32_t v, const struct slot *slots,
			 const uint8_t *is_from, int keep_all, struct exec_act *act)
{
	int32_t c = run_sole_consumer(g, v, 0, slots, is_from, keep_all);
	if (c < 0)
		return -1;
	const struct graph_node *cn = &g->nodes[c];
	const Onnx__NodeProto *cp = cn->proto;
	const char *op = cp->op_type ? cp->op_type : "";
	if (!strcmp(op, "Relu")) {
		*act = (struct exec_act){.kind = EXEC_ACT_RELU};
		return c;
	}
	if (strcmp(op, "Clip") || model_opset(m, "") < 11)
		return -1;
	struct exec_act a = {.kind = EXEC_ACT_CLIP, .lo = -INFINITY, .hi = INFINITY};
	for (size_t i = 1; i < cp->n_input && i < 3; i++) {
		const struct xtensor *t = cn->in[i] >= 0 ? &slots[cn->in[i]].t : NULL;
		if (!t)
			continue;
		/* a constant: the kernel takes the bound by value, and a run recorded as a graph replays it so */
		if (!t->data || t->host_stale || t->dtype != OV_DT_FLOAT || t->numel != 1 || !slots[cn->in[i]].constant)
			return -1;
		*(i == 1 ? &a.lo : &a.hi) = *(const float *)t->data;
	}
	*act = a;
	return c;
}

/* The Mul that computes SiLU of value v, exported as Sigmoid(v) and Mul(v, that) (in either order): v goes to
 * those two nodes only, the Sigmoid's output to the Mul only, nothing between watched (as run_sole_consumer has it).
 * Returns the Mul and fills *sig with the Sigmoid, or -1. */
static int32_t silu_after(const struct graph *g, int32_t v, const struct slot *slots, const uint8_t *is_from,
			  int keep_all, int32_t *sig)
{
	if (keep_all || v < 0)
		return -1;
	const struct graph_value *gv = &g->values[v];
	if (gv->n_uses != 2 || slots[v].uses != 2 || slots[v].pinned || is_from[v] || gv->output_index >= 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		uint32_t sn = gv->uses[i].node, mn = gv->uses[1 - i].node;
		const Onnx__NodeProto *sp = g->nodes[sn].proto;
		if (gv->uses[i].slot != 0 || sn == mn || !sp->op_type || strcmp(sp->op_type, "Sigmoid") ||
		    sp->n_input != 1 || (sp->domain && *sp->domain && strcmp(sp->domain, "ai.onnx")))
			continue;
		int32_t s = g->nodes[sn].out[0];
		if (sp->n_output != 1 || s < 0 || is_from[s])
			return -1;
		int32_t c = run_sole_consumer(g, s, -1, slots, is_from, keep_all);
		if (c != (int32_t)mn)
			return -1;
		const struct graph_node *mnd = &g->nodes[mn];
		const Onnx__NodeProto *mp = mnd->proto;
		if (!mp->op_type || strcmp(mp->op_type, "Mul") || mp->n_input != 2 ||
		    !((mnd->in[0] == v && mnd->in[1] == s) || (mnd->in[0] == s && mnd->in[1] == v)))
			return -1;
		*sig = (int32_t)sn;
		return c;
	}
	return -1;
}

/* ---- shape arithmetic stays on the host ----
 *
 * Exports compute sizes at run time: Shape, then Gather, Unsqueeze, Concat, Cast, Div... into Reshape's shape or
 * Slice's ends.  On a device backend each of those small nodes would be a launch, and the node reading the result
 * on the host (a shape, the ends) would wait for the device and copy it back, stopping the queue in the middle of
 * the run.  So under a device backend a node of the ops below whose inputs are all shape values (SHAPE_MAX
 * elements at most, on the host: Shape and Size outputs, values made from them this way) or small constants (kept
 * or not: a single run's too, xk_constant's rule), at least one of them a shape value, runs on the CPU, as part of
 * the plan and not as a fallback; its small outputs are shape values in turn. */
#define SHAPE_MAX 1024

static int shape_op(const char *op)
{
	static const char *const ops[] = {
		"Gather", "Unsqueeze", "Squeeze", "Concat", "Slice", "Cast", "Add", "Sub", "Mul", "Div", "Mod", "Neg",
		"Abs", "Floor", "Ceil", "Sqrt", "Pow", "Reciprocal", "Equal", "Less", "Greater", "LessOrEqual",
		"GreaterOrEqual", "Not", "And", "Or", "Where", "Min", "Max", "Reshape", "Flatten", "Identity",
		"ReduceProd", "ReduceSum", "ReduceMin", "ReduceMax", "Range", "Sign", "CastLike"};
	return RUN_OP_IN(op, ops);
}

static int is_dims_op(const Onnx__NodeProto *p)
{
	return p->op_type && (!p->domain || !*p->domain || !strcmp(p->domain, "ai.onnx")) &&
	       (!strcmp(p->op_type, "Shape") || !strcmp(p->op_type, "Size"));
}

static int shape_arith(const struct graph *g, uint32_t n, const struct slot *slots)
{
	const struct graph_node *nd = &g->nodes[n];
	const Onnx__NodeProto *p = nd->proto;
	int any = 0;

	if ((p->domain && *p->domain && strcmp(p->domain, "ai.onnx")) || !p->op_type)
		return 0;
	/* the inputs first (most nodes read a large or device value), then the op */
	for (size_t i = 0; i < p->n_input; i++) {
		int32_t id = nd->in[i];
		if (id < 0)
			continue;
		const struct slot *s = &slots[id];
		const struct xtensor *t = s->kept ? s->kept : &s->t;
		if (t->kind != XT_TENSOR || t->host_stale || t->numel > SHAPE_MAX || (!s->shape && !s->constant))
			return 0;
		any |= s->shape;
	}
	return any && shape_op(p->op_type);
}

/* After node n ran on the CPU as shape arithmetic, or was a Shape or Size: its small outputs are shape values. */
static void shape_mark(const struct graph *g, uint32_t n, struct slot *slots)
{
	const struct graph_node *nd = &g->nodes[n];

	for (size_t i = 0; i < nd->proto->n_output; i++) {
		int32_t id = nd->out[i];
		if (id >= 0 && slots[id].t.data && slots[id].t.kind == XT_TENSOR && !slots[id].t.host_stale &&
		    slots[id].t.numel <= SHAPE_MAX)
			slots[id].shape = 1;
	}
}

/* ---- folding: nodes of constants computed once ----
 *
 * With constants kept across runs (exec_consts), a node whose every input is kept (an initializer, a Constant, or
 * the output of a node folded before it) gives the same values every run: the first run computes it as usual and
 * its outputs are kept with the constants; later runs read them and skip the node.  An Identity of a kept value is
 * that value under another name (no copy).  Nodes with subgraphs, of other domains, and the random ops are never
 * folded.  A run that feeds one of the inputs (an initializer given as an input) does not fold what depends on it,
 * and does not touch what earlier runs kept.  A run that keeps no constants (a single run, a subgraph's) runs such
 * a node the same way, with no offers, and marks its outputs constant: what is a constant (xk_constant) is the
 * same in every run, only whether it is kept differs. */
static int nondeterministic(const char *op)
{
	static const char *const ops[] = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
					  "Multinomial", "Bernoulli", "Dropout"};
	return RUN_OP_IN(op, ops);
}

static int foldable(const struct graph *g, uint32_t n, const struct slot *slots, const uint8_t *is_from)
{
	const struct graph_node *nd = &g->nodes[n];
	const Onnx__NodeProto *p = nd->proto;

	if (nd->n_sub || !p->n_output || !p->op_type || (p->domain && *p->domain && strcmp(p->domain, "ai.onnx")))
		return 0;
	/* the inputs first: most nodes read a value computed in the run, and are answered there */
	for (size_t i = 0; i < p->n_input; i++)
		if (nd->in[i] >= 0 && (!slots[nd->in[i]].constant || slots[nd->in[i]].t.kind != XT_TENSOR))
			return 0;
	for (size_t i = 0; i < p->n_output; i++)
		if (nd->out[i] >= 0 && is_from[nd->out[i]])
			return 0;
	return !nondeterministic(p->op_type);
}

/* Whether the slot reads a kept value that depends on shapes (dims_keep). */
static int kept_dims(const struct exec_consts *kc, const struct slot *s)
{
	return s->kept && s->kept >= kc->t && s->kept < kc->t + kc->n && kc->dims_dep[s->kept - kc->t];
}

/* Node n's outputs from the kept values (1), or 0 when they are still to be computed.  A kept value that depends
 * on shapes is a shape value too (shape_arith: what is computed from it stays on the host). */
static int fold_read(const struct graph *g, uint32_t n, struct slot *slots, struct exec_consts *kc)
{
	const struct graph_node *nd = &g->nodes[n];
	const Onnx__NodeProto *p = nd->proto;

	if (!strcmp(p->op_type, "Identity") && p->n_input == 1 && nd->in[0] >= 0 && p->n_output == 1 && nd->out[0] >= 0) {
		slot_keep(&slots[nd->out[0]], slots[nd->in[0]].kept);
		slots[nd->out[0]].shape = slots[nd->in[0]].shape;
		return 1;
	}
	for (size_t i = 0; i < p->n_output; i++)
		if (nd->out[i] >= 0 && !kc->t[nd->out[i]].data)
			return 0;
	for (size_t i = 0; i < p->n_output; i++)
		if (nd->out[i] >= 0) {
			slot_keep(&slots[nd->out[i]], &kc->t[nd->out[i]]);
			slots[nd->out[i]].shape = kc->dims_dep[nd->out[i]] && kc->t[nd->out[i]].numel <= SHAPE_MAX;
		}
	return 1;
}

/* After node n ran from constants alone in a run that keeps none: its tensor outputs are constants too. */
static int fold_mark(const struct graph *g, uint32_t n, struct slot *slots)
{
	const struct graph_node *nd = &g->nodes[n];

	for (size_t i = 0; i < nd->proto->n_output; i++) {
		int32_t id = nd->out[i];
		if (id >= 0 && slots[id].t.data && slots[id].t.kind == XT_TENSOR)
			slots[id].constant = 1;
	}
	return 0;
}

/* After node n ran: its outputs kept with the constants (their host data made current first, once). */
static int fold_keep(const struct graph *g, uint32_t n, struct slot *slots, struct exec_consts *kc,
		     struct exec_result *res, struct ov_error *err)
{
	const struct graph_node *nd = &g->nodes[n];
	int dims = 0;

	for (size_t i = 0; i < nd->proto->n_input; i++)
		dims |= nd->in[i] >= 0 && kept_dims(kc, &slots[nd->in[i]]);
	for (size_t i = 0; i < nd->proto->n_output; i++) {
		int32_t id = nd->out[i];
		if (id < 0 || !slots[id].t.data || slots[id].t.kind != XT_TENSOR)
			continue;
		if (to_host(res, &slots[id].t, err))
			return -1;
		xt_free(&kc->t[id]);
		kc->t[id] = slots[id].t;
		kc->dims_dep[id] = (uint8_t)dims;
		memset(&slots[id].t, 0, sizeof slots[id].t);
		slot_keep(&slots[id], &kc->t[id]);
	}
	return 0;
}

/* ---- values that depend only on shapes, kept while the shapes stay ----
 *
 * With kept constants, a Shape or Size output equal to the one an earlier run kept is that kept value, a constant
 * of this run: the nodes computed from it and constants alone (Gather, Concat, Cast, Div... into Reshape's shape,
 * an attention's scale) then fold as nodes of constants do (foldable, fold_read), their device copies kept with
 * them, instead of running on the host and being copied to the device again in every run.  An output seen for the
 * first time is kept the same way (not while recording: that run keeps nothing new).  One that differs (other
 * input shapes; a shape that depends on values) is used as computed, and everything kept from the old one is
 * dropped at the start of the next run (consts_for), before anything refers to it.  The Shape and Size nodes
 * themselves run every time: they read dims on the host, and they are the check. */
static int same_tensor(const struct xtensor *a, const struct xtensor *b)
{
	return a->kind == XT_TENSOR && b->kind == XT_TENSOR && a->dtype == b->dtype && a->rank == b->rank &&
	       a->bytes == b->bytes && !memcmp(a->dims, b->dims, (size_t)a->rank * sizeof a->dims[0]) &&
	       !a->host_stale && !b->host_stale && (!a->bytes || !memcmp(a->data, b->data, a->bytes));
}

static int dims_keep(const struct graph *g, uint32_t n, struct slot *slots, struct exec_consts *kc, int rec,
		     struct exec_result *res, struct ov_error *err)
{
	const struct graph_node *nd = &g->nodes[n];

	for (size_t i = 0; i < nd->proto->n_output; i++) {
		int32_t id = nd->out[i];
		if (id < 0)
			continue;
		struct slot *s = &slots[id];
		struct xtensor *k = &kc->t[id];
		if (!s->t.data || s->t.kind != XT_TENSOR || s->kept || s->t.numel > SHAPE_MAX)
			continue;
		if (to_host(res, &s->t, err))
			return -1;
		if (k->data) {
			/* (one kept from a constant, of an initializer this run feeds, is no shape to drop) */
			if (same_tensor(k, &s->t)) {
				xt_free(&s->t);
				slot_keep(s, k);
			} else if (kc->dims_dep[id]) {
				kc->dims_stale = 1;
			}
		} else if (!rec) {
			*k = s->t;
			kc->dims_dep[id] = 1;
			memset(&s->t, 0, sizeof s->t);
			slot_keep(s, k);
		}
	}
	return 0;
}

/* The inputs node n's kernel may take (exec_kernel_ctx.take): n is their last reader (no later node, nor a subgraph
 * of n, nor a second input of n reads them), the run owns them (not a constant, not fed), and nobody watches them
 * (not a 'to' value, not --all). */
static unsigned takeable(const struct graph *g, uint32_t n, const struct slot *slots, const uint8_t *is_from,
			 int keep_all)
{
	const struct graph_node *nd = &g->nodes[n];
	unsigned take = 0;

	for (size_t i = 0; !keep_all && i < nd->proto->n_input && i < 32; i++) {
		int32_t id = nd->in[i];
		if (id >= 0 && slots[id].uses == 1 && !slots[id].pinned && !slots[id].kept && !is_from[id] &&
		    slots[id].t.owns && slots[id].t.kind == XT_TENSOR)
			take |= 1u << i;
	}
	return take;
}

/* What node n's kernel is offered to fuse (exec_kernel_ctx.act, .add): the Add its output 0 goes to (its other
 * input float32 and at hand: *add_with, and *add_node) and the Relu or Clip after that Add (*act_node), or else the
 * Relu or Clip right after n (*act_node).  Nodes are -1 when not offered. */
static void fusable(struct ov_model *m, const struct graph *g, uint32_t n, const struct slot *slots,
		    const uint8_t *is_from, int keep_all, int device, struct exec_kernel_ctx *k, int32_t *add_node,
		    int32_t *act_node)
{
	const struct graph_node *nd = &g->nodes[n];

	*add_node = *act_node = -1;
	if (nd->proto->n_output < 1)
		return;
	int32_t v = nd->out[0];
	int32_t c = run_sole_consumer(g, v, -1, slots, is_from, keep_all);
	if (c < 0)
		return;
	const Onnx__NodeProto *cp = g->nodes[c].proto;
	if (cp->op_type && !strcmp(cp->op_type, "Add") && cp->n_input == 2 && model_opset(m, "") >= 7) {
		const struct graph_node *cn = &g->nodes[c];
		int32_t other = cn->in[cn->in[0] == v ? 1 : 0];
		const struct xtensor *t = other >= 0 ? &slots[other].t : NULL;
		if (cn->in[0] == cn->in[1] || !t || !t->data || (t->host_stale && !device) || t->dtype != OV_DT_FLOAT ||
		    t->kind != XT_TENSOR)
			return;
		k->add = slots[other].kept ? slots[other].kept : t;
		*add_node = c;
		*act_node = act_after(m, g, cn->out[0], slots, is_from, keep_all, &k->add_act);
		return;
	}
	*act_node = act_after(m, g, v, slots, is_from, keep_all, &k->act);
}

/* The value of id when it is a float32 tensor on the host, else NULL. */
static const struct xtensor *host_f32(const struct slot *slots, int32_t id)
{
	const struct xtensor *t = id >= 0 ? &slots[id].t : NULL;

	if (!t || !t->data || t->host_stale || t->kind != XT_TENSOR || t->dtype != OV_DT_FLOAT)
		return NULL;
	return slots[id].kept ? slots[id].kept : t;
}

/* Whether Conv node n, its activation act_node (-1: none) offered in k->act, is followed by a Conv taking the
 * result as its X (exec_kernel_ctx.dw): fills o and nodes[0..1] (that Conv and the Relu or Clip after it, or -1). */
static int fusable_dw(struct ov_model *m, const struct graph *g, uint32_t n, int32_t act_node, const struct slot *slots,
		      const uint8_t *is_from, int keep_all, struct exec_dw_offer *o, int32_t *nodes)
{
	const Onnx__NodeProto *p = g->nodes[n].proto;

	if (keep_all || !p->op_type || strcmp(p->op_type, "Conv") || p->n_output != 1 ||
	    (p->domain && *p->domain && strcmp(p->domain, "ai.onnx")))
		return 0;
	int32_t v = act_node >= 0 ? g->nodes[act_node].out[0] : g->nodes[n].out[0];
	int32_t c = run_sole_consumer(g, v, 0, slots, is_from, keep_all);
	if (c < 0 || strcmp(g->nodes[c].proto->op_type ? g->nodes[c].proto->op_type : "", "Conv"))
		return 0;
	const struct graph_node *cn = &g->nodes[c];
	size_t nin = cn->proto->n_input;
	o->w = nin >= 2 ? host_f32(slots, cn->in[1]) : NULL;
	o->b = nin >= 3 && cn->in[2] >= 0 ? host_f32(slots, cn->in[2]) : NULL;
	if (!o->w || nin > 3 || (nin == 3 && cn->in[2] >= 0 && !o->b))
		return 0;
	o->node = (uint32_t)c;
	o->act = (struct exec_act){.kind = EXEC_ACT_NONE};
	nodes[0] = c;
	nodes[1] = act_after(m, g, cn->out[0], slots, is_from, keep_all, &o->act);
	return 1;
}

#define BN_NODES 5 /* BatchNormalization, Add, Clip, Mul, Div */

const Onnx__AttributeProto *run_node_attr(const Onnx__NodeProto *p, const char *name)
{
	for (size_t a = 0; a < p->n_attribute; a++)
		if (p->attribute[a]->name && !strcmp(p->attribute[a]->name, name))
			return p->attribute[a];
	return NULL;
}

/* A float attribute of node p as xk_attr_float reads it (def when absent or not a float) */
static float node_attr_float(const Onnx__NodeProto *p, const char *name, float def)
{
	const Onnx__AttributeProto *a = run_node_attr(p, name);

	return a && a->has_f ? a->f : def;
}

/* A float32 scalar at hand in value id, of rank rank at most (it broadcasts without growing a tensor of that rank). */
static const float *scalar_f32(const struct slot *slots, int32_t id, int rank)
{
	const struct xtensor *t = host_f32(slots, id);

	return t && t->numel == 1 && t->rank <= rank ? t->data : NULL;
}

/* HardSwish written out as nodes after value v (Paddle's export): Add(v, c), a Relu or Clip after it, Mul(v, that)
 * (either order), Div(that, d), c and d float32 scalars at hand, v read by the Add and the Mul only, the values
 * between by one node each, nothing watched.  Fills o's unary, act, alpha (c) and beta (d), and nodes[0..4) (the
 * Add, the Relu or Clip, the Mul, the Div); 0 when the pattern is not there. */
static int hard_swish_nodes(struct ov_model *m, const struct graph *g, int32_t v, int rank, const struct slot *slots,
			    const uint8_t *is_from, int keep_all, struct exec_bn_offer *o, int32_t *nodes)
{
	const struct graph_value *gv = &g->values[v];

	if (keep_all || gv->n_uses != 2 || slots[v].uses != 2 || slots[v].pinned || is_from[v] || gv->output_index >= 0)
		return 0;
	for (int i = 0; i < 2; i++) {
		uint32_t an = gv->uses[i].node, mn = gv->uses[1 - i].node;
		const Onnx__NodeProto *ap = g->nodes[an].proto;
		if (an == mn || !ap->op_type || strcmp(ap->op_type, "Add") || ap->n_input != 2 || ap->n_output != 1 ||
		    (ap->domain && *ap->domain && strcmp(ap->domain, "ai.onnx")) || g->nodes[an].out[0] < 0 ||
		    is_from[g->nodes[an].out[0]])
			continue;
		const float *c = scalar_f32(slots, g->nodes[an].in[gv->uses[i].slot == 0 ? 1 : 0], rank);
		struct exec_act act;
		int32_t cl = act_after(m, g, g->nodes[an].out[0], slots, is_from, keep_all, &act);
		if (!c || cl < 0)
			return 0;
		int32_t t = g->nodes[cl].out[0];
		const struct graph_node *mnd = &g->nodes[mn];
		if (run_sole_consumer(g, t, -1, slots, is_from, keep_all) != (int32_t)mn ||
		    strcmp(mnd->proto->op_type ? mnd->proto->op_type : "", "Mul") || mnd->proto->n_input != 2 ||
		    !((mnd->in[0] == v && mnd->in[1] == t) || (mnd->in[0] == t && mnd->in[1] == v)))
			return 0;
		int32_t dn = run_sole_consumer(g, mnd->out[0], 0, slots, is_from, keep_all);
		const Onnx__NodeProto *dp = dn >= 0 ? g->nodes[dn].proto : NULL;
		const float *d = dp && dp->n_input == 2 ? scalar_f32(slots, g->nodes[dn].in[1], rank) : NULL;
		if (!dp || strcmp(dp->op_type ? dp->op_type : "", "Div") || !d)
			return 0;
		o->unary = EXEC_BN_HARDSWISH_NODES;
		o->act = act;
		o->alpha = *c;
		o->beta = *d;
		nodes[0] = (int32_t)an;
		nodes[1] = cl;
		nodes[2] = (int32_t)mn;
		nodes[3] = dn;
		return 1;
	}
	return 0;
}

/* Whether Conv node n's output goes to an inference BatchNormalization as its X (exec_kernel_ctx.bn), its
 * parameters float32 at hand: fills o and nodes[0..BN_NODES) (that node, then the Relu, Clip, HardSwish or
 * HardSigmoid after it that goes with it, or the four nodes of hard_swish_nodes, -1 past them). */
static int fusable_bn(struct ov_model *m, const struct graph *g, uint32_t n, const struct slot *slots,
		      const uint8_t *is_from, int keep_all, struct exec_bn_offer *o, int32_t *nodes)
{
	const Onnx__NodeProto *p = g->nodes[n].proto;

	if (keep_all || !p->op_type || strcmp(p->op_type, "Conv") || p->n_output != 1 ||
	    (p->domain && *p->domain && strcmp(p->domain, "ai.onnx")))
		return 0;
	int32_t c = run_sole_consumer(g, g->nodes[n].out[0], 0, slots, is_from, keep_all);
	const Onnx__NodeProto *cp = c >= 0 ? g->nodes[c].proto : NULL;
	if (!cp || strcmp(cp->op_type ? cp->op_type : "", "BatchNormalization") || cp->n_input != 5)
		return 0;
	/* inference (the kernel checks that there is one scale and shift per channel) */
	const Onnx__AttributeProto *tm = run_node_attr(cp, "training_mode");
	if (tm && tm->i != 0 && model_opset(m, "") >= 14)
		return 0;
	o->eps = node_attr_float(cp, "epsilon", 1e-5f);
	const struct xtensor **par[4] = {&o->scale, &o->b, &o->mean, &o->var};
	for (int i = 0; i < 4; i++)
		if (!(*par[i] = host_f32(slots, g->nodes[c].in[i + 1])))
			return 0;
	o->node = (uint32_t)c;
	o->act = (struct exec_act){.kind = EXEC_ACT_NONE};
	o->unary = EXEC_BN_NONE;
	o->alpha = o->beta = 0;
	for (int i = 0; i < BN_NODES; i++)
		nodes[i] = -1;
	nodes[0] = c;
	int32_t v = g->nodes[c].out[0], x = g->nodes[n].in[0];
	if ((nodes[1] = act_after(m, g, v, slots, is_from, keep_all, &o->act)) >= 0 ||
	    (x >= 0 && hard_swish_nodes(m, g, v, slots[x].t.rank, slots, is_from, keep_all, o, nodes + 1)))
		return 1;
	int32_t a = run_sole_consumer(g, v, 0, slots, is_from, keep_all);
	const Onnx__NodeProto *ap = a >= 0 ? g->nodes[a].proto : NULL;
	const char *op = ap && ap->op_type ? ap->op_type : "";
	if (!ap || ap->n_input != 1)
		return 1;
	if (!strcmp(op, "HardSwish") && model_opset(m, "") >= 14) {
		o->unary = EXEC_BN_HARDSWISH;
		nodes[1] = a;
	} else if (!strcmp(op, "HardSigmoid")) {
		o->unary = EXEC_BN_HARDSIGMOID;
		o->alpha = node_attr_float(ap, "alpha", 0.2f);
		o->beta = node_attr_float(ap, "beta", 0.5f);
		nodes[1] = a;
	}
	return 1;
}

/* ---- a LayerNormalization written out as nodes (exec_kernel_ctx.ln) ---- */

#define LN_NODES 9 /* ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add */
#define FUSED_SKIP (-2) /* a node whose output a node before it computed (or whose output nobody needs) */

/* ReduceMean node n averages over the last of rank axes alone and keeps it (axes from the attribute, or from
 * input 1 from opset 18, at hand). */
static int mean_over_last(struct ov_model *m, const struct graph *g, uint32_t n, int rank, const struct slot *slots)
{
	const Onnx__NodeProto *p = g->nodes[n].proto;
	const Onnx__AttributeProto *kd = run_node_attr(p, "keepdims");
	int64_t axis;

	if (rank < 1 || (kd && kd->i != 1))
		return 0;
	if (model_opset(m, "") >= 18) {
		int32_t id = p->n_input > 1 ? g->nodes[n].in[1] : -1;
		const struct xtensor *t = id >= 0 ? &slots[id].t : NULL;
		if (!t || !t->data || t->host_stale || t->dtype != OV_DT_INT64 || t->numel != 1)
			return 0;
		axis = *(const int64_t *)t->data;
	} else {
		const Onnx__AttributeProto *ax = run_node_attr(p, "axes");
		if (!ax || ax->n_ints != 1 || p->n_input != 1)
			return 0;
		axis = ax->ints[0];
	}
	return axis == -1 || axis == rank - 1;
}

/* The node reading value v as input slot, when it is op with n_in inputs (0: any) and the only reader
 * (sole_consumer), else -1. */
static int32_t next_op(const struct graph *g, int32_t v, int slot, const char *op, size_t n_in,
		       const struct slot *slots, const uint8_t *is_from)
{
	int32_t c = run_sole_consumer(g, v, slot, slots, is_from, 0);
	const char *o = c >= 0 ? g->nodes[c].proto->op_type : NULL;

	return o && !strcmp(o, op) && (!n_in || g->nodes[c].proto->n_input == n_in) ? c : -1;
}

/* The other input of binary node c than value v, or -1. */
static int32_t other_in(const struct graph *g, int32_t c, int32_t v)
{
	const struct graph_node *cn = &g->nodes[c];

	if (cn->in[0] == cn->in[1])
		return -1;
	return cn->in[0] == v ? cn->in[1] : cn->in[0];
}

/* Whether ReduceMean node n begins a layer norm written out as nodes (the pattern in exec_kernel_ctx.ln): fills
 * o and nodes[0..LN_NODES) (n first, the last Add last). */
static int fusable_ln(struct ov_model *m, const struct graph *g, uint32_t n, const struct slot *slots,
		      const uint8_t *is_from, int keep_all, struct exec_ln_offer *o, int32_t *nodes)
{
	const struct graph_node *nd = &g->nodes[n];
	const Onnx__NodeProto *p = nd->proto;

	if (keep_all || !p->op_type || strcmp(p->op_type, "ReduceMean") || p->n_output != 1 || !p->n_input)
		return 0;
	int32_t x = nd->in[0], mean = nd->out[0];
	const struct xtensor *xt = x >= 0 ? host_f32(slots, x) : NULL;
	if (!xt || !mean_over_last(m, g, n, xt->rank, slots))
		return 0;
	int32_t sub = next_op(g, mean, 1, "Sub", 2, slots, is_from);
	if (sub < 0 || g->nodes[sub].in[0] != x)
		return 0;
	/* D goes to Pow (as the base) and to Div (as the dividend), and nowhere else */
	int32_t d = g->nodes[sub].out[0];
	const struct graph_value *dv = &g->values[d];
	if (dv->n_uses != 2 || slots[d].uses != 2 || slots[d].pinned || is_from[d] || dv->output_index >= 0)
		return 0;
	int32_t pw = -1, dv_div = -1;
	for (int i = 0; i < 2; i++) {
		const Onnx__NodeProto *up = g->nodes[dv->uses[i].node].proto;
		if (dv->uses[i].slot != 0 || !up->op_type || (up->domain && *up->domain && strcmp(up->domain, "ai.onnx")))
			return 0;
		if (!strcmp(up->op_type, "Pow"))
			pw = (int32_t)dv->uses[i].node;
		else if (!strcmp(up->op_type, "Div"))
			dv_div = (int32_t)dv->uses[i].node;
	}
	if (pw < 0 || dv_div < 0 || g->nodes[pw].proto->n_input != 2 || g->nodes[dv_div].proto->n_input != 2 ||
	    g->nodes[pw].n_sub || g->nodes[dv_div].n_sub || g->nodes[pw].proto->n_output != 1 ||
	    g->nodes[dv_div].proto->n_output != 1)
		return 0;
	const struct xtensor *two = host_f32(slots, g->nodes[pw].in[1]);
	if (!two || two->numel != 1 || *(const float *)two->data != 2.0f)
		return 0;
	int32_t mean2 = next_op(g, g->nodes[pw].out[0], 0, "ReduceMean", 0, slots, is_from);
	if (mean2 < 0 || !mean_over_last(m, g, (uint32_t)mean2, xt->rank, slots))
		return 0;
	int32_t add = next_op(g, g->nodes[mean2].out[0], -1, "Add", 2, slots, is_from);
	if (add < 0)
		return 0;
	o->eps = host_f32(slots, other_in(g, add, g->nodes[mean2].out[0]));
	int32_t sq = next_op(g, g->nodes[add].out[0], 0, "Sqrt", 1, slots, is_from);
	if (!o->eps || sq < 0 || next_op(g, g->nodes[sq].out[0], 1, "Div", 2, slots, is_from) != dv_div ||
	    g->nodes[dv_div].in[0] != d)
		return 0;
	int32_t mul = next_op(g, g->nodes[dv_div].out[0], -1, "Mul", 2, slots, is_from);
	if (mul < 0 || !(o->gamma = host_f32(slots, other_in(g, mul, g->nodes[dv_div].out[0]))))
		return 0;
	int32_t add2 = next_op(g, g->nodes[mul].out[0], -1, "Add", 2, slots, is_from);
	if (add2 < 0 || !(o->beta = host_f32(slots, other_in(g, add2, g->nodes[mul].out[0]))))
		return 0;
	int32_t all[LN_NODES] = {(int32_t)n, sub, pw, mean2, add, sq, dv_div, mul, add2};
	memcpy(nodes, all, sizeof all);
	return 1;
}

int run_result_add(struct exec_result *r, size_t *cap, const char *name, struct xtensor *t, int move,
		   struct ov_error *err)
{
	if (r->n_values == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct exec_value *nv = realloc(r->values, nc * sizeof *nv);
		if (!nv)
			return ov_fail(err, OV_NOMEM, "out of memory");
		r->values = nv;
		*cap = nc;
	}
	/* the caller gets host tensors: a value a device computed comes over, and its device copy goes */
	if (t && t->data && (to_host(r, t, err) || xt_drop_device(t, err))) {
		ov_wrap(err, "value '%s': ", name);
		return -1;
	}
	struct exec_value *v = &r->values[r->n_values];
	memset(v, 0, sizeof *v);
	v->name = name;
	if (!t || !t->data) {
		v->present = 0;
	} else if (move && t->owns) {
		v->t = *t;
		memset(t, 0, sizeof *t);
		v->present = 1;
	} else {
		if (xt_copy(&v->t, t, err))
			return -1;
		v->present = 1;
	}
	r->n_values++;
	return 0;
}

/* Uses a node's subgraphs make of the values they capture: counted like inputs, so a captured value lives until
 * the node has run. */
struct capture_uses {
	struct slot *slots;
	int delta;
	int keep;
};

static void capture_use(int32_t id, void *ctx)
{
	struct capture_uses *c = ctx;
	struct slot *s = &c->slots[id];

	if (c->delta > 0) {
		s->uses++;
	} else if (s->uses && --s->uses == 0 && !s->pinned && !c->keep) {
		xt_free(&s->t);
	}
}

static void count_captures(const struct graph *g, uint32_t n, struct slot *slots, int delta, int keep)
{
	struct capture_uses c = {slots, delta, keep};

	for (uint32_t s = 0; s < g->nodes[n].n_sub; s++)
		graph_foreach_capture(g->nodes[n].sub[s], g, capture_use, &c);
}

static int run_graph(struct ov_model *m, const struct graph *g, const struct exec_options *opt,
		     const struct exec_input *in, size_t n_in, struct exec_result *out, const struct exec_env *parent,
		     int record, struct ov_error *err);

int exec_run(struct ov_model *m, const struct graph *g, const struct exec_options *opt, const struct exec_input *in,
	     size_t n_in, struct exec_result *out, struct ov_error *err)
{
	/* weights are read from the files' mappings: a file that changed gives no result (src/model/mapping.c) */
	if (model_check_unchanged(m, err)) {
		memset(out, 0, sizeof *out);
		return -1;
	}
	/* a launch of the graph recorded from an earlier run (src/exec/replay.c), else the nodes, recorded when it is
	 * time to; a run that fails while recorded is redone unrecorded (the recording is given up) */
	const char *why = NULL;
	out->graph_why = NULL; /* replay_run sets it when it returns 1 for a reason (out may hold anything before) */
	int r = replay_run(g, opt, in, n_in, out, err);
	if (r > 0) {
		why = out->graph_why;
		int record = replay_wanted(opt->consts, g, opt);
		r = run_graph(m, g, opt, in, n_in, out, NULL, record, err);
		if (r && record && opt->consts->replay_state == REPLAY_REFUSED)
			r = run_graph(m, g, opt, in, n_in, out, NULL, 0, err);
	}
	if (r)
		return -1;
	if (!out->graph_why)
		out->graph_why = why ? why : opt->consts && opt->consts->replay_state == REPLAY_REFUSED
						 ? opt->consts->replay_why : NULL;
	if (model_check_unchanged(m, err)) {
		exec_result_free(out);
		return -1;
	}
	return 0;
}

static int run_graph(struct ov_model *m, const struct graph *g, const struct exec_options *opt,
		     const struct exec_input *in, size_t n_in, struct exec_result *out, const struct exec_env *parent,
		     int record, struct ov_error *err)
{
	const struct exec_backend_ops *be = opt->backend ? opt->backend : exec_backend_cpu(), *cpu_be = exec_backend_cpu();
	struct plan p;
	struct slot *slots = NULL;
	int32_t *fused = NULL; /* per node: the value whose tensor becomes its output (its producer applied this
	                          Relu, Clip or Add), FUSED_SKIP, or -1 */
	int32_t *fed = NULL;   /* the values in[] gives, once each */
	size_t cap = 0, n_fed = 0;
	int rc = -1, rec = 0;  /* rec: the run is being recorded (src/exec/replay.c) */
	struct exec_consts *kc = NULL;

	memset(out, 0, sizeof *out);
	if (plan_build(g, opt, &p, err))
		return -1;
	slots = calloc(g->n_values + 1, sizeof *slots);
	fused = malloc((g->n_nodes + 1) * sizeof *fused);
	fed = malloc((n_in + 1) * sizeof *fed);
	if (!slots || !fused || !fed) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto done;
	}
	for (uint32_t n = 0; n < g->n_nodes; n++)
		fused[n] = -1;

	/* inputs, borrowed */
	for (size_t i = 0; i < n_in; i++) {
		int32_t id = graph_value_id(g, in[i].name ? in[i].name : "");
		if (id < 0) {
			ov_fail(err, OV_USAGE, "input '%s' is not a value of the graph", in[i].name ? in[i].name : "");
			goto done;
		}
		if (!p.need_val[id])
			continue;
		if (!p.is_from[id] && g->values[id].origin != VALUE_INITIALIZER) {
			ov_fail(err, OV_USAGE, "input '%s' is computed by the cut (add it to --from to feed it)",
				g->values[id].name);
			goto done;
		}
		if (in[i].t.host_stale || in[i].t.dev) {
			ov_fail(err, OV_USAGE, "input '%s' is not a host tensor", g->values[id].name);
			goto done;
		}
		xt_free(&slots[id].t);
		slots[id].t = in[i].t;
		slots[id].t.owns = 0;
		size_t f = 0;
		while (f < n_fed && fed[f] != id)
			f++;
		if (f == n_fed)
			fed[n_fed++] = id;
	}
	for (size_t i = 0; i < p.n_from; i++) {
		int32_t id = p.from[i];
		if (p.is_from[id] && p.need_val[id] && !slots[id].t.data) {
			ov_fail(err, OV_USAGE, "no value given for input '%s'", g->values[id].name);
			goto done;
		}
	}

	/* constants, converted once (for good, with opt->consts: the main graph's are kept from run to run) */
	kc = !parent && consts_for(opt->consts, g) ? opt->consts : NULL;
	for (uint32_t v = 0; v < g->n_values; v++) {
		const struct graph_value *gv = &g->values[v];
		if (!p.need_val[v] || slots[v].t.data || p.is_from[v])
			continue;
		if (gv->origin != VALUE_INITIALIZER && gv->origin != VALUE_CONSTANT)
			continue;
		if (kc && kc->t[v].data) {
			slot_keep(&slots[v], &kc->t[v]);
			continue;
		}
		int r;
		if (gv->constant)
			r = exec_tensor_view_proto(m, gv->constant, &slots[v].t, err);
		else if (gv->sparse)
			r = ov_fail(err, OV_INVALID, "sparse initializers are not supported by the executor");
		else if (gv->origin == VALUE_CONSTANT && gv->producer >= 0)
			r = exec_constant_value(m, g->nodes[gv->producer].proto, &slots[v].t, err);
		else
			r = ov_fail(err, OV_INVALID, "no value");
		if (r) {
			if (gv->origin == VALUE_CONSTANT && gv->producer >= 0) {
				char where[300];
				node_prefix(g, (uint32_t)gv->producer, where, sizeof where);
				ov_wrap(err, "%s: ", where);
			} else {
				ov_wrap(err, "initializer '%s': ", gv->name);
			}
			goto done;
		}
		if (kc && slots[v].t.kind == XT_TENSOR) {
			kc->t[v] = slots[v].t;
			slot_keep(&slots[v], &kc->t[v]);
		}
		slots[v].constant = slots[v].t.kind == XT_TENSOR;
	}

	/* uses inside the cut; 'to' values (and everything with --all) are kept */
	for (uint32_t n = 0; n < g->n_nodes; n++) {
		if (!p.need_node[n])
			continue;
		for (size_t i = 0; i < g->nodes[n].proto->n_input; i++)
			if (g->nodes[n].in[i] >= 0)
				slots[g->nodes[n].in[i]].uses++;
	}
	for (uint32_t n = 0; n < g->n_nodes; n++)
		if (p.need_node[n] && g->nodes[n].n_sub)
			count_captures(g, n, slots, 1, opt->keep_all);
	for (size_t i = 0; i < p.n_to; i++)
		slots[p.to[i]].pinned = 1;

	struct exec_budget own;
	if (!parent || !parent->budget)
		budget_init(&own, &opt->limits);
	struct exec_env env = {.g = g, .slots = slots, .parent = parent, .kc = kc,
			       .budget = parent && parent->budget ? parent->budget : &own,
			       .runs = parent ? parent->runs : opt->runs};
	/* run --profile: the top graph's nodes, each timed on the host and, where the backend can, on the device */
	int prof = opt->profile && !parent, dev_marks = 0;
	if (prof) {
		size_t need = 0;
		for (uint32_t n = 0; n < g->n_nodes; n++)
			need += p.need_node[n] != 0;
		if (!(out->prof = calloc(need + 1, sizeof *out->prof))) {
			ov_fail(err, OV_NOMEM, "out of memory");
			goto done;
		}
		dev_marks = be->prof_marks && be->prof_mark && be->prof_read && !be->prof_marks(need + 1);
	}
	double t0 = now_ms(), setup0 = out->setup_ms;
	rec = record && kc && !prof && !replay_begin(kc, be, g, &p, fed, n_fed, slots);
	if (dev_marks)
		be->prof_mark(0);
	for (uint32_t o = 0; o < g->n_order; o++) {
		uint32_t n = g->order[o];
		const struct graph_node *nd = &g->nodes[n];
		if (!p.need_node[n])
			continue;
		if (budget_time(env.budget, err))
			goto done;
		if (rec && node_has_containers(g, n, slots)) {
			char where[300];
			node_prefix(g, n, where, sizeof where);
			ov_fail(err, OV_INVALID, "%s runs on the host (control flow, sequences and optionals stay there)", where);
			goto done;
		}
		size_t fallbacks = out->n_fallback;
		double tn = prof ? now_ms() : 0, setup_n = out->setup_ms;
		int fold = 0;
		/* Constant nodes were folded above */
		if (nd->proto->n_output && nd->out[0] >= 0 && g->values[nd->out[0]].origin == VALUE_CONSTANT)
			continue;
		if (fused[n] == FUSED_SKIP) {
			/* computed with a node before it (a layer norm's) */
		} else if (fused[n] >= 0) {
			/* the producer applied this node to its output, which becomes ours */
			struct xtensor *src = &slots[fused[n]].t, *dst = &slots[nd->out[0]].t;
			xt_free(dst);
			*dst = *src;
			memset(src, 0, sizeof *src);
		} else if ((fold = foldable(g, n, slots, p.is_from)) && kc && fold_read(g, n, slots, kc)) {
			/* computed by an earlier run, kept with the constants */
			out->nodes_kept++;
			continue;
		} else if (fold) {
			/* computed from constants alone: with no offers, as its outputs are kept as they are; kept for the
			 * runs after with kept constants, and marked constant without (so a single run's kernels choose
			 * as the runs that keep it do: xk_constant); not while recording: what is kept must outlive the
			 * recording's memory.  Shape arithmetic on kept shape values stays on the host. */
			struct exec_kernel_ctx offer = {.act = {EXEC_ACT_NONE, 0, 0}, .add_act = {EXEC_ACT_NONE, 0, 0}};
			int arith = be != cpu_be && shape_arith(g, n, slots);
			if (kc && rec) {
				char where[300];
				node_prefix(g, n, where, sizeof where);
				ov_fail(err, OV_INVALID, "%s computes from constants, and was not kept by the run before", where);
				goto done;
			}
			if (run_node(m, g, n, slots, p.is_from, arith ? cpu_be : be, &env, &offer, out, err) ||
			    (kc ? fold_keep(g, n, slots, kc, out, err) : fold_mark(g, n, slots)))
				goto done;
			if (arith)
				shape_mark(g, n, slots);
		} else {
			struct exec_kernel_ctx offer = {.act = {EXEC_ACT_NONE, 0, 0}, .add_act = {EXEC_ACT_NONE, 0, 0}};
			struct exec_ln_offer ln;
			struct exec_dw_offer dw;
			struct exec_bn_offer bn;
			int32_t add_node, act_node, ln_nodes[LN_NODES], dw_nodes[2] = {-1, -1}, sig_node = -1;
			int32_t bn_nodes[BN_NODES] = {-1, -1, -1, -1, -1};
			int arith = be != cpu_be && shape_arith(g, n, slots);
			fusable(m, g, n, slots, p.is_from, opt->keep_all, be != cpu_be && !arith, &offer, &add_node,
				&act_node);
			/* a SiLU after a Conv (EXEC_ACT_SILU: offered to Conv kernels only) */
			if (!arith && add_node < 0 && act_node < 0 && nd->proto->n_output == 1 &&
			    nd->proto->op_type && !strcmp(nd->proto->op_type, "Conv") &&
			    (!nd->proto->domain || !*nd->proto->domain || !strcmp(nd->proto->domain, "ai.onnx")) &&
			    nd->out[0] >= 0 && !p.is_from[nd->out[0]] &&
			    (act_node = silu_after(g, nd->out[0], slots, p.is_from, opt->keep_all, &sig_node)) >= 0)
				offer.act.kind = EXEC_ACT_SILU;
			if (fusable_ln(m, g, n, slots, p.is_from, opt->keep_all, &ln, ln_nodes))
				offer.ln = &ln;
			/* a chain of element-wise nodes from here, on a device: offered instead of an Add or activation */
			struct exec_chain_offer chain;
			if (be != cpu_be && !arith && !offer.ln &&
			    chain_find(g, n, slots, p.is_from, opt->keep_all, &chain)) {
				offer.chain = &chain;
				offer.add = NULL;
				offer.act.kind = offer.add_act.kind = EXEC_ACT_NONE;
				add_node = act_node = sig_node = -1;
			}
			/* a Transpose and the MatMul next to it, on a device: one product reading or writing through the
			 * permutation (nothing else is offered then: the value between goes to the other node alone) */
			struct exec_mm_offer mmo;
			if (be != cpu_be && !arith && !offer.chain && !offer.ln && add_node < 0 && act_node < 0 &&
			    mmperm_find(g, n, slots, p.is_from, opt->keep_all, &mmo))
				offer.mm = &mmo;
			/* the CPU's block of a pointwise and a depthwise Conv (a device backend has none) */
			if (be == cpu_be && add_node < 0 && sig_node < 0 &&
			    fusable_dw(m, g, n, act_node, slots, p.is_from, opt->keep_all, &dw, dw_nodes))
				offer.dw = &dw;
			/* and its Conv with the BatchNormalization after it */
			if (be == cpu_be && add_node < 0 && act_node < 0 && !offer.dw &&
			    fusable_bn(m, g, n, slots, p.is_from, opt->keep_all, &bn, bn_nodes))
				offer.bn = &bn;
			offer.take = takeable(g, n, slots, p.is_from, opt->keep_all);
			if (run_node(m, g, n, slots, p.is_from, arith ? cpu_be : be, &env, &offer, out, err))
				goto done;
			if (kc && is_dims_op(nd->proto) && dims_keep(g, n, slots, kc, rec, out, err))
				goto done;
			if (be != cpu_be && (arith || is_dims_op(nd->proto)))
				shape_mark(g, n, slots);
			if (offer.chain_done) {
				/* the chain's last output is computed: each node after the first hands it on */
				for (int i = 1; i < chain.n; i++)
					fused[chain.step[i].node] = g->nodes[chain.step[i - 1].node].out[0];
			} else if (offer.mm_done) {
				/* the product is computed (and written through the Transpose after it): the nodes after
				 * hand it on */
				int32_t v = nd->out[0];
				if (offer.mm_done & 1) {
					fused[mmo.mm] = v;
					v = g->nodes[mmo.mm].out[0];
				}
				if (offer.mm_done & 2)
					fused[mmo.after] = v;
			} else if (offer.ln_done) {
				/* the layer norm is computed: it becomes the last Add's output now, the nodes between
				 * are skipped */
				struct xtensor *src = &slots[nd->out[0]].t;
				struct xtensor *dst = &slots[g->nodes[ln_nodes[LN_NODES - 1]].out[0]].t;
				xt_free(dst);
				*dst = *src;
				memset(src, 0, sizeof *src);
				for (int i = 1; i < LN_NODES; i++)
					fused[ln_nodes[i]] = FUSED_SKIP;
			} else if (offer.dw_done) {
				/* the block computed the second Conv's activation (or the Conv): each node between
				 * hands the tensor on to the next */
				int32_t v = nd->out[0];
				if (act_node >= 0) {
					fused[act_node] = v;
					v = g->nodes[act_node].out[0];
				}
				fused[dw_nodes[0]] = v;
				if (dw_nodes[1] >= 0)
					fused[dw_nodes[1]] = g->nodes[dw_nodes[0]].out[0];
			} else if (offer.bn_done && bn.unary == EXEC_BN_HARDSWISH_NODES) {
				/* the Mul hands on the BatchNormalization's output (the Add and the Relu or Clip before it
				 * are skipped: they read it first), then the Div */
				fused[bn_nodes[0]] = nd->out[0];
				fused[bn_nodes[1]] = fused[bn_nodes[2]] = FUSED_SKIP;
				fused[bn_nodes[3]] = g->nodes[bn_nodes[0]].out[0];
				fused[bn_nodes[4]] = g->nodes[bn_nodes[3]].out[0];
			} else if (offer.bn_done) {
				fused[bn_nodes[0]] = nd->out[0];
				if (bn_nodes[1] >= 0)
					fused[bn_nodes[1]] = g->nodes[bn_nodes[0]].out[0];
			} else if (add_node >= 0 && offer.add_done) {
				fused[add_node] = nd->out[0];
				if (act_node >= 0 && offer.add_act.kind != EXEC_ACT_NONE)
					fused[act_node] = g->nodes[add_node].out[0];
			} else if (act_node >= 0 && offer.act_done) {
				fused[act_node] = nd->out[0];
				if (sig_node >= 0)
					fused[sig_node] = FUSED_SKIP; /* its output went only to the Mul */
			}
		}
		if (rec && out->n_fallback != fallbacks) {
			char where[300];
			node_prefix(g, n, where, sizeof where);
			ov_fail(err, OV_INVALID, "%s ran on the CPU", where);
			goto done;
		}
		out->nodes_run++;
		if (prof) {
			struct exec_node_time *t = &out->prof[out->n_prof++];
			t->node = n;
			t->fused = fused[n] != -1;
			t->host_ms = now_ms() - tn - (out->setup_ms - setup_n);
			t->device_ms = -1;
			if (dev_marks)
				be->prof_mark(out->n_prof);
		}
		if (nd->n_sub)
			count_captures(g, n, slots, -1, opt->keep_all);
		for (size_t i = 0; i < nd->proto->n_input; i++) {
			int32_t id = nd->in[i];
			if (id < 0 || !slots[id].uses)
				continue;
			if (--slots[id].uses == 0 && !slots[id].pinned && !opt->keep_all)
				xt_free(&slots[id].t);
		}
		/* outputs nobody uses (optional ones the model names but never reads) go at once */
		for (size_t i = 0; i < nd->proto->n_output; i++) {
			int32_t id = nd->out[i];
			if (id >= 0 && !slots[id].uses && !slots[id].pinned && !opt->keep_all)
				xt_free(&slots[id].t);
		}
	}
	if (rec) {
		if (replay_end(kc, be, g, &p, slots, out, err))
			goto done;
		rec = 0;
		out->graph = EXEC_GRAPH_RECORDED;
	}
	if (be->run_wait && be->run_wait(err))
		goto done;
	out->ms = now_ms() - t0 - (out->setup_ms - setup0);
	if (kc) {
		kc->runs++;
		kc->up_bytes = out->to_device_bytes;
		kc->ups = out->to_device;
	}
	for (size_t i = 0; dev_marks && i < out->n_prof; i++)
		out->prof[i].device_ms = be->prof_read(i);

	/* the 'to' values first, in order, then (--all) every node output computed */
	for (size_t i = 0; i < p.n_to; i++) {
		int32_t id = p.to[i];
		int dup = 0;
		for (size_t j = i + 1; j < p.n_to; j++)
			dup |= p.to[j] == id;
		if (run_result_add(out, &cap, g->values[id].name, &slots[id].t, !dup, err))
			goto done;
	}
	out->n_to = p.n_to;
	if (opt->keep_all)
		for (uint32_t o = 0; o < g->n_order; o++) {
			const struct graph_node *nd = &g->nodes[g->order[o]];
			if (!p.need_node[g->order[o]])
				continue;
			for (size_t i = 0; i < nd->proto->n_output; i++) {
				int32_t id = nd->out[i];
				if (id < 0 || !slots[id].t.data || slots[id].pinned || p.is_from[id])
					continue;
				if (run_result_add(out, &cap, g->values[id].name, &slots[id].t, 1, err))
					goto done;
			}
		}
	rc = 0;
done:
	if (rec) {
		/* the run's device values go while the recording is on (frees in it, or after it), then the recording */
		for (uint32_t v = 0; v < g->n_values; v++)
			xt_free(&slots[v].t);
		replay_abandon(kc, be, err);
	}
	if (be->run_end)
		be->run_end();
	if (slots)
		for (uint32_t v = 0; v < g->n_values; v++)
			xt_free(&slots[v].t);
	free(slots);
	free(fused);
	free(fed);
	plan_free(&p);
	if (rc)
		exec_result_free(out);
	return rc;
}

void exec_result_free(struct exec_result *r)
{
	free(r->prof);
	for (size_t i = 0; i < r->n_values; i++)
		xt_free(&r->values[i].t);
	free(r->values);
	free(r->fallback_nodes);
	free(r->notes);
	memset(r, 0, sizeof *r);
}

/* ---- subgraphs ---- */

/* The tensor of value id of graph owner, from the innermost running graph that is owner. */
static const struct xtensor *env_value(const struct exec_env *env, const struct graph *owner, int32_t id)
{
	for (; env; env = env->parent)
		if (env->g == owner)
			return &env->slots[id].t;
	return NULL;
}

/* A borrowed view of t for a subgraph's run (which runs on the CPU): its host data brought up to date (t is a
 * running graph's own tensor, whose device copy caches the same value), without the device copy. */
static int host_view(struct exec_kernel_ctx *k, const struct xtensor *t, struct xtensor *view)
{
	struct exec_result none = {0};

	if (to_host(k->res ? k->res : &none, (struct xtensor *)t, k->err))
		return -1;
	*view = *t;
	view->owns = 0;
	view->dev = NULL;
	view->devops = NULL;
	return 0;
}

int xk_run_subgraph(struct exec_kernel_ctx *k, const struct graph *sub, const struct xtensor *const *inputs,
		    size_t n_inputs, struct xtensor *outputs)
{
	size_t n_formal = sub->proto->n_input, n_out = sub->proto->n_output, n_outer = 0;
	const char *sub_name = sub->proto->name && *sub->proto->name ? sub->proto->name : "(unnamed)";

	if (n_inputs != n_formal)
		return xk_fail(k, "subgraph '%s' takes %zu inputs, the op gives it %zu", sub_name, n_formal, n_inputs);
	for (uint32_t v = 0; v < sub->n_values; v++)
		n_outer += sub->values[v].origin == VALUE_OUTER;
	const char **from = calloc(n_formal + n_outer + 1, sizeof *from);
	const char **to = calloc(n_out + 1, sizeof *to);
	struct exec_input *in = calloc(n_formal + n_outer + 1, sizeof *in);
	struct exec_result r = {0};
	size_t nf = 0;
	int rc = -1;

	if (!from || !to || !in) {
		ov_fail(k->err, OV_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n_formal; i++) {
		const char *name = sub->proto->input[i]->name ? sub->proto->input[i]->name : "";
		if (!inputs[i] || !inputs[i]->data) {
			xk_fail(k, "subgraph '%s': no value for its input '%s'", sub_name, name);
			goto out;
		}
		if (host_view(k, inputs[i], &in[nf].t))
			goto out;
		from[nf] = name;
		in[nf++].name = name;
	}
	for (uint32_t v = 0; v < sub->n_values; v++) {
		if (sub->values[v].origin != VALUE_OUTER)
			continue;
		const struct graph *owner = NULL;
		const struct graph_value *gv = graph_value_resolve(sub, (int32_t)v, &owner);
		const struct xtensor *t = gv && owner ? env_value(k->env, owner, (int32_t)(gv - owner->values)) : NULL;
		if (!t || !t->data)
			continue; /* not needed by this run, or the plan names it as missing */
		if (host_view(k, t, &in[nf].t))
			goto out;
		from[nf] = sub->values[v].name;
		in[nf++].name = sub->values[v].name;
	}
	for (size_t i = 0; i < n_out; i++)
		to[i] = sub->proto->output[i]->name ? sub->proto->output[i]->name : "";
	struct exec_options opt = {.from = from, .n_from = nf, .to = to, .n_to = n_out};
	if (run_graph(k->m, sub, &opt, in, nf, &r, k->env, 0, k->err)) {
		ov_wrap(k->err, "subgraph '%s': ", sub_name);
		goto out;
	}
	for (size_t i = 0; i < n_out; i++) {
		if (i >= r.n_values || !r.values[i].present) {
			for (size_t j = 0; j < i; j++)
				xt_free(&outputs[j]);
			xk_fail(k, "subgraph '%s' did not compute its output '%s'", sub_name, to[i]);
			goto out;
		}
		outputs[i] = r.values[i].t;
		memset(&r.values[i].t, 0, sizeof r.values[i].t);
	}
	rc = 0;
out:
	exec_result_free(&r);
	free(from);
	free(to);
	free(in);
	return rc;
}
