/* The executor's runner: plans a cut of the graph, converts constants once, runs the nodes in topological order
 * through a backend, frees intermediates after their last use, and hands back the values asked for. */
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

/* ---- model tensors ---- */

static int strings_from_proto(const Onnx__TensorProto *t, struct xtensor *out, struct ov_error *err)
{
	for (int64_t i = 0; i < out->numel; i++) {
		const ProtobufCBinaryData *s = &t->string_data[i];
		char *c = malloc(s->len + 1);
		if (!c) {
			xt_free(out);
			return ov_fail(err, OV_NOMEM, "out of memory for a string");
		}
		if (s->len)
			memcpy(c, s->data, s->len);
		c[s->len] = '\0';
		((char **)out->data)[i] = c;
	}
	return 0;
}

/* Typed fields (float_data, int32_data...) into the xtensor's C layout; count is the entries the field holds. */
static int typed_from_proto(const Onnx__TensorProto *t, struct xtensor *o, struct ov_error *err)
{
	int64_t n = o->numel, need = dtype_typed_count(o->dtype, n);
	size_t have;

	switch (dtype_field(o->dtype)) {
	case OV_FIELD_FLOAT: have = t->n_float_data; break;
	case OV_FIELD_INT32: have = t->n_int32_data; break;
	case OV_FIELD_INT64: have = t->n_int64_data; break;
	case OV_FIELD_DOUBLE: have = t->n_double_data; break;
	case OV_FIELD_UINT64: have = t->n_uint64_data; break;
	default: have = 0; break;
	}
	if (n && (int64_t)have < need)
		return ov_fail(err, OV_FORMAT, "%s tensor of %" PRId64 " elements holds %zu values", dtype_short_name(o->dtype),
			      n, have);
	for (int64_t i = 0; i < n; i++) {
		switch (o->dtype) {
		case OV_DT_FLOAT: ((float *)o->data)[i] = t->float_data[i]; break;
		case OV_DT_COMPLEX64:
			((float *)o->data)[2 * i] = t->float_data[2 * i];
			((float *)o->data)[2 * i + 1] = t->float_data[2 * i + 1];
			break;
		case OV_DT_DOUBLE: ((double *)o->data)[i] = t->double_data[i]; break;
		case OV_DT_COMPLEX128:
			((double *)o->data)[2 * i] = t->double_data[2 * i];
			((double *)o->data)[2 * i + 1] = t->double_data[2 * i + 1];
			break;
		case OV_DT_INT64: ((int64_t *)o->data)[i] = t->int64_data[i]; break;
		case OV_DT_UINT64: ((uint64_t *)o->data)[i] = t->uint64_data[i]; break;
		case OV_DT_UINT32: ((uint32_t *)o->data)[i] = (uint32_t)t->uint64_data[i]; break;
		case OV_DT_INT32: ((int32_t *)o->data)[i] = t->int32_data[i]; break;
		case OV_DT_INT16: ((int16_t *)o->data)[i] = (int16_t)t->int32_data[i]; break;
		case OV_DT_UINT16: case OV_DT_FLOAT16: case OV_DT_BFLOAT16:
			/* 16-bit floats keep their bit pattern in int32_data */
			((uint16_t *)o->data)[i] = (uint16_t)t->int32_data[i];
			break;
		case OV_DT_INT8: ((int8_t *)o->data)[i] = (int8_t)t->int32_data[i]; break;
		case OV_DT_BOOL: ((uint8_t *)o->data)[i] = t->int32_data[i] != 0; break;
		default: /* uint8 and the 8-bit float formats (bit patterns) */
			((uint8_t *)o->data)[i] = (uint8_t)t->int32_data[i];
			break;
		}
	}
	return 0;
}

int exec_tensor_from_proto(struct ov_model *m, const Onnx__TensorProto *t, struct xtensor *out, struct ov_error *err)
{
	int64_t dims[XT_MAX_RANK];

	memset(out, 0, sizeof *out);
	if (t->n_dims > XT_MAX_RANK)
		return ov_fail(err, OV_LIMIT, "rank %zu is over the executor's limit of %d", t->n_dims, XT_MAX_RANK);
	for (size_t i = 0; i < t->n_dims; i++)
		dims[i] = t->dims[i];
	if (tensor_numel(t, err) < 0)
		return -1;
	if (t->data_type == OV_DT_STRING) {
		if (xt_alloc(out, OV_DT_STRING, (int)t->n_dims, dims, err))
			return -1;
		if (out->numel && t->n_string_data < (size_t)out->numel) {
			xt_free(out);
			return ov_fail(err, OV_FORMAT, "string tensor of %" PRId64 " elements holds %zu strings",
				       tensor_numel(t, NULL), t->n_string_data);
		}
		return strings_from_proto(t, out, err);
	}
	if (xt_alloc(out, t->data_type, (int)t->n_dims, dims, err))
		return -1;
	if (tensor_is_external(t)) {
		const uint8_t *data;
		size_t len;
		if (model_external_data(m, t, &data, &len, err)) {
			xt_free(out);
			return -1;
		}
		if (len < out->bytes) {
			xt_free(out);
			return ov_fail(err, OV_EXTERNAL, "external data holds %zu bytes, %s needs %zu", len,
				       dtype_short_name(t->data_type), out->bytes);
		}
		if (out->bytes)
			memcpy(out->data, data, out->bytes);
		return 0;
	}
	if (t->has_raw_data) {
		if (t->raw_data.len < out->bytes) {
			size_t b = out->bytes;
			xt_free(out);
			return ov_fail(err, OV_FORMAT, "raw_data holds %zu bytes, the tensor needs %zu", t->raw_data.len, b);
		}
		if (out->bytes)
			memcpy(out->data, t->raw_data.data, out->bytes);
		return 0;
	}
	if (typed_from_proto(t, out, err)) {
		xt_free(out);
		return -1;
	}
	return 0;
}

int exec_constant_value(struct ov_model *m, const Onnx__NodeProto *n, struct xtensor *out, struct ov_error *err)
{
	for (size_t i = 0; i < n->n_attribute; i++) {
		const Onnx__AttributeProto *a = n->attribute[i];
		const char *an = a->name ? a->name : "";
		int64_t len;
		if (!strcmp(an, "value") && a->t)
			return exec_tensor_from_proto(m, a->t, out, err);
		if (!strcmp(an, "sparse_value"))
			return ov_fail(err, OV_INVALID, "sparse_value is not supported by the executor");
		if (!strcmp(an, "value_float") || !strcmp(an, "value_int")) {
			int f = an[6] == 'f';
			if (xt_alloc(out, f ? OV_DT_FLOAT : OV_DT_INT64, 0, NULL, err))
				return -1;
			if (f)
				*(float *)out->data = a->f;
			else
				*(int64_t *)out->data = a->i;
			return 0;
		}
		if (!strcmp(an, "value_floats") || !strcmp(an, "value_ints")) {
			int f = an[6] == 'f';
			len = f ? (int64_t)a->n_floats : (int64_t)a->n_ints;
			if (xt_alloc(out, f ? OV_DT_FLOAT : OV_DT_INT64, 1, &len, err))
				return -1;
			if (len)
				memcpy(out->data, f ? (void *)a->floats : (void *)a->ints, out->bytes);
			return 0;
		}
		if (!strcmp(an, "value_string") || !strcmp(an, "value_strings")) {
			int one = !strcmp(an, "value_string");
			len = one ? 1 : (int64_t)a->n_strings;
			if (xt_alloc(out, OV_DT_STRING, one ? 0 : 1, &len, err))
				return -1;
			for (int64_t k = 0; k < len; k++) {
				const ProtobufCBinaryData *s = one ? &a->s : &a->strings[k];
				char *c = malloc(s->len + 1);
				if (!c) {
					xt_free(out);
					return ov_fail(err, OV_NOMEM, "out of memory");
				}
				if (s->len)
					memcpy(c, s->data, s->len);
				c[s->len] = '\0';
				((char **)out->data)[k] = c;
			}
			return 0;
		}
	}
	return ov_fail(err, OV_INVALID, "the Constant has no value attribute");
}

/* ---- plans ---- */

struct plan {
	uint8_t *need_val;  /* value is needed by the cut */
	uint8_t *is_from;   /* value is fed as an input */
	uint8_t *need_node; /* node runs */
	uint8_t *leak;      /* value is needed but nothing in the cut provides it */
	int32_t *to;        /* value ids of the 'to' values */
	size_t n_to;
	int32_t *from;      /* value ids of the 'from' values (the graph inputs when none given) */
	size_t n_from;
};

static void plan_free(struct plan *p)
{
	free(p->need_val);
	free(p->is_from);
	free(p->need_node);
	free(p->leak);
	free(p->to);
	free(p->from);
	memset(p, 0, sizeof *p);
}

/* Values of g that node's subgraphs capture (at any depth), pushed on the stack. */
static void push_captures(const struct graph *g, const struct graph *sg, int32_t *stack, size_t *sp,
			  const uint8_t *need_val)
{
	for (uint32_t v = 0; v < sg->n_values; v++) {
		if (sg->values[v].origin != VALUE_OUTER)
			continue;
		const struct graph *owner = NULL;
		const struct graph_value *gv = graph_value_resolve(sg, (int32_t)v, &owner);
		if (gv && owner == g) {
			int32_t id = (int32_t)(gv - g->values);
			if (!need_val[id])
				stack[(*sp)++] = id;
		}
	}
	for (uint32_t n = 0; n < sg->n_nodes; n++)
		for (uint32_t s = 0; s < sg->nodes[n].n_sub; s++)
			push_captures(g, sg->nodes[n].sub[s], stack, sp, need_val);
}

static int plan_build(const struct graph *g, const struct exec_options *opt, struct plan *p, struct ov_error *err)
{
	uint32_t nv = g->n_values;
	int32_t *stack = NULL;
	size_t sp = 0, cap;

	memset(p, 0, sizeof *p);
	p->need_val = calloc(nv + 1, 1);
	p->is_from = calloc(nv + 1, 1);
	p->leak = calloc(nv + 1, 1);
	p->need_node = calloc(g->n_nodes + 1, 1);
	p->from = calloc((opt->from ? opt->n_from : g->proto->n_input) + 1, sizeof *p->from);
	p->to = calloc((opt->to ? opt->n_to : g->proto->n_output) + 1, sizeof *p->to);
	if (!p->need_val || !p->is_from || !p->leak || !p->need_node || !p->from || !p->to)
		goto nomem;

	if (opt->from) {
		for (size_t i = 0; i < opt->n_from; i++) {
			int32_t id = graph_value_id(g, opt->from[i]);
			if (id < 0) {
				plan_free(p);
				return ov_fail(err, OV_USAGE, "--from: '%s' is not a value of the graph", opt->from[i]);
			}
			if (!p->is_from[id])
				p->from[p->n_from++] = id;
			p->is_from[id] = 1;
		}
	} else {
		for (size_t i = 0; i < g->proto->n_input; i++) {
			int32_t id = graph_value_id(g, g->proto->input[i]->name ? g->proto->input[i]->name : "");
			if (id < 0 || p->is_from[id])
				continue;
			/* an initializer listed as an input is a default: fed when given, a constant otherwise */
			p->from[p->n_from++] = id;
			if (g->values[id].origin == VALUE_INPUT)
				p->is_from[id] = 1;
		}
	}
	if (opt->to) {
		for (size_t i = 0; i < opt->n_to; i++) {
			int32_t id = graph_value_id(g, opt->to[i]);
			if (id < 0) {
				plan_free(p);
				return ov_fail(err, OV_USAGE, "--to: '%s' is not a value of the graph", opt->to[i]);
			}
			p->to[p->n_to++] = id;
		}
	} else {
		for (size_t i = 0; i < g->proto->n_output; i++) {
			int32_t id = graph_value_id(g, g->proto->output[i]->name ? g->proto->output[i]->name : "");
			if (id < 0) {
				plan_free(p);
				return ov_fail(err, OV_FORMAT, "graph output %zu has no name", i);
			}
			p->to[p->n_to++] = id;
		}
	}

	/* reverse reachability; every value is pushed at most once per consumer, so nv + uses bounds the stack */
	cap = (size_t)nv + p->n_to + 1;
	for (uint32_t v = 0; v < nv; v++)
		cap += g->values[v].n_uses;
	stack = malloc(cap * sizeof *stack);
	if (!stack)
		goto nomem;
	for (size_t i = 0; i < p->n_to; i++)
		stack[sp++] = p->to[i];
	while (sp) {
		int32_t v = stack[--sp];
		if (p->need_val[v])
			continue;
		p->need_val[v] = 1;
		if (p->is_from[v])
			continue;
		const struct graph_value *gv = &g->values[v];
		switch (gv->origin) {
		case VALUE_INITIALIZER:
			continue;
		case VALUE_CONSTANT:
			if (gv->producer >= 0)
				p->need_node[gv->producer] = 1;
			continue;
		case VALUE_NODE: {
			if (gv->producer < 0) {
				p->leak[v] = 1;
				continue;
			}
			if (p->need_node[gv->producer])
				continue;
			p->need_node[gv->producer] = 1;
			const struct graph_node *nd = &g->nodes[gv->producer];
			for (size_t i = 0; i < nd->proto->n_input; i++)
				if (nd->in[i] >= 0 && !p->need_val[nd->in[i]])
					stack[sp++] = nd->in[i];
			for (uint32_t s = 0; s < nd->n_sub; s++) {
				/* captures are few; grow the stack if they outnumber its room */
				size_t more = nd->sub[s]->n_values;
				if (sp + more > cap) {
					int32_t *ns = realloc(stack, (sp + more + cap) * sizeof *stack);
					if (!ns)
						goto nomem;
					stack = ns;
					cap += sp + more;
				}
				push_captures(g, nd->sub[s], stack, &sp, p->need_val);
			}
			continue;
		}
		default:
			p->leak[v] = 1;
			continue;
		}
	}
	free(stack);

	/* a cut that leaks names what it needs */
	char msg[sizeof err->msg];
	size_t used = 0, n_leak = 0;
	for (uint32_t v = 0; v < nv; v++) {
		if (!p->leak[v])
			continue;
		const struct graph_value *gv = &g->values[v];
		if (n_leak++ < 8 && used < sizeof msg - 1)
			used += (size_t)snprintf(msg + used, sizeof msg - used, "%s'%s' (%s)", n_leak > 1 ? ", " : "",
						 gv->name, gv->origin == VALUE_INPUT ? "graph input"
							   : gv->origin == VALUE_UNDEFINED ? "nothing defines it"
											    : value_origin_name(gv->origin));
	}
	if (n_leak) {
		if (n_leak > 8 && used < sizeof msg - 1)
			snprintf(msg + used, sizeof msg - used, " and %zu more", n_leak - 8);
		plan_free(p);
		return ov_fail(err, OV_USAGE, "the cut needs %s, which %s does not give", msg,
			       opt->from ? "--from" : "the model");
	}
	for (uint32_t n = 0; n < g->n_nodes; n++)
		if (p->need_node[n] && g->nodes[n].topo >= g->n_order) {
			plan_free(p);
			return ov_fail(err, OV_INVALID, "#%" PRIu32 " '%s' %s is on a cycle: the graph cannot run", n,
				       g->nodes[n].proto->name ? g->nodes[n].proto->name : "",
				       g->nodes[n].proto->op_type ? g->nodes[n].proto->op_type : "?");
		}
	return 0;
nomem:
	free(stack);
	plan_free(p);
	return ov_fail(err, OV_NOMEM, "out of memory planning the run");
}

long exec_needed_inputs(const struct graph *g, const struct exec_options *opt, const char **names, size_t max,
			struct ov_error *err)
{
	struct plan p;
	long n = 0;

	if (plan_build(g, opt, &p, err))
		return -1;
	for (size_t i = 0; i < p.n_from; i++) {
		int32_t id = p.from[i];
		/* initializers listed as inputs have a default, so the cut does not need them given */
		if (!p.need_val[id] || !p.is_from[id])
			continue;
		if ((size_t)n < max)
			names[n] = g->values[id].name;
		n++;
	}
	plan_free(&p);
	return n;
}

/* ---- the CPU backend ---- */

static int cpu_supports_op(const char *domain, const char *op, int64_t opset)
{
	return cpu_find_kernel(domain, op, opset) != NULL;
}

static int cpu_run_node(struct exec_kernel_ctx *k)
{
	const Onnx__NodeProto *n = k->g->nodes[k->node].proto;
	const char *op = n->op_type ? n->op_type : "";
	exec_kernel_fn fn = cpu_find_kernel(n->domain ? n->domain : "", op, k->opset);

	/* a sequence or optional goes only where the op takes one; Identity has a kernel of its own for them */
	for (size_t i = 0; fn && i < k->n_in; i++) {
		exec_kernel_fn cf;
		if (!k->in[i] || k->in[i]->kind == XT_TENSOR)
			continue;
		if (!cpu_takes_containers(op, i, &cf))
			return ov_fail(k->err, OV_INVALID, "input %zu '%s' is a %s: %s takes tensors there", i,
				       k->g->values[k->g->nodes[k->node].in[i]].name, xt_kind_name(k->in[i]->kind), op);
		if (cf)
			fn = cf;
	}
	if (!fn) {
		if (k->g->nodes[k->node].n_sub)
			return ov_fail(k->err, OV_INVALID,
				       "%s holds subgraphs, which the executor does not run yet (If, Loop, Scan)", op);
		if (n->domain && *n->domain && strcmp(n->domain, "ai.onnx"))
			return ov_fail(k->err, OV_INVALID, "no CPU kernel for %s of domain %s (the CPU backend runs ai.onnx "
				       "ops only)", op, n->domain);
		return ov_fail(k->err, OV_INVALID, "no CPU kernel for %s (opset %" PRId64 ")", op, k->opset);
	}
	return fn(k);
}

static const char *cpu_describe(void)
{
	return "CPU (C kernels, CBLAS for matrix products)";
}

static const struct exec_backend_ops cpu_backend = {
	.name = "cpu",
	.supports_op = cpu_supports_op,
	.run_node = cpu_run_node,
	.describe = cpu_describe,
};

const struct exec_backend_ops *exec_backend_cpu(void)
{
	return &cpu_backend;
}

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

struct slot {
	struct xtensor t;
	struct xtensor *kept; /* a constant kept across runs (exec_consts): kernels get it, t is a view of its host
	                         data (owns nothing, no device copy) for everything else */
	uint32_t uses;  /* consumers still to run (a node whose subgraphs capture the value counts too) */
	uint8_t pinned; /* a 'to' value, or --all */
	uint8_t given;  /* moved into the result */
};

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

static int run_node(struct ov_model *m, const struct graph *g, uint32_t n, struct slot *slots,
		    const uint8_t *is_from, const struct exec_backend_ops *be, const struct exec_env *env,
		    const struct exec_act *act, int *act_done,
		    struct exec_result *res, struct ov_error *err)
{
	const struct graph_node *nd = &g->nodes[n];
	const Onnx__NodeProto *p = nd->proto;
	const char *domain = p->domain ? p->domain : "";
	const struct xtensor **in = calloc(p->n_input + 1, sizeof *in);
	struct xtensor **out = calloc(p->n_output + 1, sizeof *out);
	struct xtensor *scratch = calloc(p->n_output + 1, sizeof *scratch);
	char where[300];
	int rc = -1;

	node_prefix(g, n, where, sizeof where);
	if (!in || !out || !scratch) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < p->n_input; i++) {
		int32_t id = nd->in[i];
		in[i] = id < 0 ? NULL : slots[id].kept ? slots[id].kept : &slots[id].t;
		if (id >= 0 && !slots[id].t.data) {
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
		.out = out, .n_out = p->n_output, .err = err, .res = res, .env = env, .act = *act,
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
		}
		/* a CPU kernel reads its inputs on the host: bring over those a device computed */
		for (size_t i = 0; i < p->n_input; i++)
			if (nd->in[i] >= 0 && to_host(res, &slots[nd->in[i]].t, err)) {
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
		ov_wrap(err, "%s: ", where);
		goto out;
	}
	*act_done = act->kind != EXEC_ACT_NONE && k.act_done;
	for (size_t i = 0; i < p->n_output; i++) {
		int32_t id = nd->out[i];
		if (id >= 0 && !slots[id].t.data && (slots[id].uses || slots[id].pinned)) {
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
	free(scratch);
	free(out);
	free(in);
	return rc;
}

/* The Relu or Clip that node n's output 0 goes to, when the kernel may apply it in n's place: the value has that
 * one consumer in the whole graph, as its input 0, and is no graph output, not watched (--to, --all) nor fed; Clip
 * (opset 11 on: bounds are inputs) has float32 scalar bounds already at hand.  Returns the consumer and fills act,
 * or -1. */
static int32_t fusable_act(struct ov_model *m, const struct graph *g, uint32_t n, const struct slot *slots,
			   const uint8_t *is_from, int keep_all, struct exec_act *act)
{
	const struct graph_node *nd = &g->nodes[n];

	if (keep_all || nd->proto->n_output < 1 || nd->out[0] < 0)
		return -1;
	int32_t v = nd->out[0];
	const struct graph_value *gv = &g->values[v];
	if (gv->n_uses != 1 || slots[v].uses != 1 || slots[v].pinned || is_from[v] || gv->output_index >= 0 ||
	    gv->uses[0].slot != 0)
		return -1;
	uint32_t c = gv->uses[0].node;
	const struct graph_node *cn = &g->nodes[c];
	const Onnx__NodeProto *cp = cn->proto;
	if (cp->n_output != 1 || cn->out[0] < 0 || is_from[cn->out[0]] || cn->n_sub ||
	    (cp->domain && *cp->domain && strcmp(cp->domain, "ai.onnx")))
		return -1;
	const char *op = cp->op_type ? cp->op_type : "";
	if (!strcmp(op, "Relu")) {
		*act = (struct exec_act){.kind = EXEC_ACT_RELU};
		return (int32_t)c;
	}
	if (strcmp(op, "Clip") || model_opset(m, "") < 11)
		return -1;
	struct exec_act a = {.kind = EXEC_ACT_CLIP, .lo = -INFINITY, .hi = INFINITY};
	for (size_t i = 1; i < cp->n_input && i < 3; i++) {
		const struct xtensor *t = cn->in[i] >= 0 ? &slots[cn->in[i]].t : NULL;
		if (!t)
			continue;
		if (!t->data || t->host_stale || t->dtype != OV_DT_FLOAT || t->numel != 1)
			return -1;
		*(i == 1 ? &a.lo : &a.hi) = *(const float *)t->data;
	}
	*act = a;
	return (int32_t)c;
}

static int result_add(struct exec_result *r, size_t *cap, const char *name, struct xtensor *t, int move,
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

/* ---- constants kept across runs ---- */

struct exec_consts {
	uint64_t serial;  /* of the graph index the tensors belong to (0: none yet) */
	uint32_t n;
	struct xtensor *t; /* by value id; data NULL where nothing is kept */
};

struct exec_consts *exec_consts_new(void)
{
	return calloc(1, sizeof(struct exec_consts));
}

static void consts_clear(struct exec_consts *c)
{
	for (uint32_t i = 0; i < c->n; i++)
		xt_free(&c->t[i]);
	free(c->t);
	c->t = NULL;
	c->n = 0;
	c->serial = 0;
}

void exec_consts_free(struct exec_consts *c)
{
	if (!c)
		return;
	consts_clear(c);
	free(c);
}

void exec_consts_stats(const struct exec_consts *c, size_t *n, size_t *bytes, size_t *on_device)
{
	*n = *bytes = *on_device = 0;
	for (uint32_t i = 0; c && i < c->n; i++)
		if (c->t[i].data) {
			++*n;
			*bytes += c->t[i].bytes;
			*on_device += c->t[i].dev != NULL;
		}
}

/* c ready to keep g's constants (emptied when it kept another index's): 1, or 0 when there is none to use (no c,
 * a graph without a serial, or no memory for the table: the run then converts its constants as without one). */
static int consts_for(struct exec_consts *c, const struct graph *g)
{
	if (!c || !g->serial)
		return 0;
	if (c->serial == g->serial && c->n == g->n_values)
		return 1;
	consts_clear(c);
	c->t = calloc(g->n_values + 1, sizeof *c->t);
	if (!c->t)
		return 0;
	c->n = g->n_values;
	c->serial = g->serial;
	return 1;
}

/* The slot reads the kept tensor k: kernels get k itself (a device backend attaches its copy there, for the next
 * run), everything else a view of the host data that frees nothing. */
static void slot_keep(struct slot *s, struct xtensor *k)
{
	s->t = *k;
	s->t.owns = 0;
	s->t.dev = NULL;
	s->t.devops = NULL;
	s->t.host_stale = 0;
	s->kept = k;
}

static int run_graph(struct ov_model *m, const struct graph *g, const struct exec_options *opt,
		     const struct exec_input *in, size_t n_in, struct exec_result *out, const struct exec_env *parent,
		     struct ov_error *err);

int exec_run(struct ov_model *m, const struct graph *g, const struct exec_options *opt, const struct exec_input *in,
	     size_t n_in, struct exec_result *out, struct ov_error *err)
{
	/* weights are read from the files' mappings: a file that changed gives no result (src/model/mapping.c) */
	if (model_check_unchanged(m, err)) {
		memset(out, 0, sizeof *out);
		return -1;
	}
	if (run_graph(m, g, opt, in, n_in, out, NULL, err))
		return -1;
	if (model_check_unchanged(m, err)) {
		exec_result_free(out);
		return -1;
	}
	return 0;
}

static int run_graph(struct ov_model *m, const struct graph *g, const struct exec_options *opt,
		     const struct exec_input *in, size_t n_in, struct exec_result *out, const struct exec_env *parent,
		     struct ov_error *err)
{
	const struct exec_backend_ops *be = opt->backend ? opt->backend : exec_backend_cpu();
	struct plan p;
	struct slot *slots = NULL;
	uint8_t *fused = NULL; /* Relu/Clip nodes whose producer applied them */
	size_t cap = 0;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (plan_build(g, opt, &p, err))
		return -1;
	slots = calloc(g->n_values + 1, sizeof *slots);
	fused = calloc(g->n_nodes + 1, 1);
	if (!slots || !fused) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto done;
	}

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
	}
	for (size_t i = 0; i < p.n_from; i++) {
		int32_t id = p.from[i];
		if (p.is_from[id] && p.need_val[id] && !slots[id].t.data) {
			ov_fail(err, OV_USAGE, "no value given for input '%s'", g->values[id].name);
			goto done;
		}
	}

	/* constants, converted once (for good, with opt->consts: the main graph's are kept from run to run) */
	struct exec_consts *kc = !parent && consts_for(opt->consts, g) ? opt->consts : NULL;
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
			r = exec_tensor_from_proto(m, gv->constant, &slots[v].t, err);
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
	struct exec_env env = {.g = g, .slots = slots, .parent = parent,
			       .budget = parent && parent->budget ? parent->budget : &own};
	double t0 = now_ms();
	for (uint32_t o = 0; o < g->n_order; o++) {
		uint32_t n = g->order[o];
		const struct graph_node *nd = &g->nodes[n];
		if (!p.need_node[n])
			continue;
		if (budget_time(env.budget, err))
			goto done;
		/* Constant nodes were folded above */
		if (nd->proto->n_output && nd->out[0] >= 0 && g->values[nd->out[0]].origin == VALUE_CONSTANT)
			continue;
		if (fused[n]) {
			/* the producer applied this activation to its output, which becomes ours */
			struct xtensor *src = &slots[nd->in[0]].t, *dst = &slots[nd->out[0]].t;
			xt_free(dst);
			*dst = *src;
			memset(src, 0, sizeof *src);
		} else {
			struct exec_act act = {EXEC_ACT_NONE, 0, 0};
			int32_t c = fusable_act(m, g, n, slots, p.is_from, opt->keep_all, &act);
			int act_done = 0;
			if (run_node(m, g, n, slots, p.is_from, be, &env, &act, &act_done, out, err))
				goto done;
			if (c >= 0 && act_done)
				fused[c] = 1;
		}
		out->nodes_run++;
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
	out->ms = now_ms() - t0;

	/* the 'to' values first, in order, then (--all) every node output computed */
	for (size_t i = 0; i < p.n_to; i++) {
		int32_t id = p.to[i];
		int dup = 0;
		for (size_t j = i + 1; j < p.n_to; j++)
			dup |= p.to[j] == id;
		if (result_add(out, &cap, g->values[id].name, &slots[id].t, !dup, err))
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
				if (result_add(out, &cap, g->values[id].name, &slots[id].t, 1, err))
					goto done;
			}
		}
	rc = 0;
done:
	if (be->run_end)
		be->run_end();
	if (slots)
		for (uint32_t v = 0; v < g->n_values; v++)
			xt_free(&slots[v].t);
	free(slots);
	free(fused);
	plan_free(&p);
	if (rc)
		exec_result_free(out);
	return rc;
}

void exec_result_free(struct exec_result *r)
{
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
	if (run_graph(k->m, sub, &opt, in, nf, &r, k->env, k->err)) {
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
