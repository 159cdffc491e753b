/* CPU control flow: If, Loop and Scan, each running its subgraph through xk_run_subgraph (src/exec/run.c), which
 * binds the body's formal inputs and the values it captures from the graphs around it.
 *
 * - If: the branch the condition picks; its outputs become the node's.
 * - Loop (opset 1 on): M (trip count) and cond both optional; the body gets (iteration, cond, carried...) and
 *   gives (cond, carried..., scan outputs...); scan outputs are stacked along a new axis 0.
 * - Loop and Scan count every iteration against the run's limits (xk_iteration: iterations and time, which the user
 *   can raise), and the scan outputs they keep against its memory limit (xk_scan_bytes): before iterating on,
 *   from the first iteration's size and the trip count, and as they grow; a loop that would run for ever or fill
 *   the memory stops with an error naming the limit.
 * - Scan (opset 9 on): num_scan_inputs inputs sliced along scan_input_axes (reversed by scan_input_directions),
 *   state variables carried from one iteration to the next, scan outputs stacked along scan_output_axes (in
 *   reverse with scan_output_directions).  Opset 8's batched Scan runs each batch item on its own (full-length
 *   sequences only).
 * Strings are not stacked or sliced (one clear message).  Sequences and optionals pass through If's branches and
 * Loop's carried values (the runner lets them in, src/exec/cpu/registry.c); a scan output must be a tensor. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/exec.h"

/* The subgraph held by attribute name of the kernel's node, or NULL. */
static const struct graph *node_sub(const struct exec_kernel_ctx *k, const char *name)
{
	const struct graph_node *n = &k->g->nodes[k->node];

	for (uint32_t s = 0; s < n->n_sub; s++)
		if (n->sub_attr[s] && !strcmp(n->sub_attr[s], name))
			return n->sub[s];
	return NULL;
}

static int scalar_true(const struct xtensor *t)
{
	return t->numel >= 1 && xt_get(t, 0) != 0;
}

static void free_all(struct xtensor *t, size_t n)
{
	for (size_t i = 0; t && i < n; i++)
		xt_free(&t[i]);
}

/* Hand a tensor to output slot i (moved: the slot owns it). */
static void give(struct exec_kernel_ctx *k, size_t i, struct xtensor *t)
{
	if (i < k->n_out && k->out[i]) {
		xt_free(k->out[i]);
		*k->out[i] = *t;
	} else {
		xt_free(t);
	}
	memset(t, 0, sizeof *t);
}

/* ---- If ---- */

static int kernel_if(struct exec_kernel_ctx *k)
{
	if (k->n_in < 1 || !k->in[0])
		return xk_fail(k, "If needs its condition input");
	if (k->in[0]->numel != 1)
		return xk_fail(k, "the condition has %lld elements; If takes a single boolean", (long long)k->in[0]->numel);
	const char *branch = scalar_true(k->in[0]) ? "then_branch" : "else_branch";
	const struct graph *sub = node_sub(k, branch);
	if (!sub)
		return xk_fail(k, "no %s attribute", branch);
	size_t n = sub->proto->n_output;
	if (n < k->n_out)
		return xk_fail(k, "%s gives %zu outputs, the node has %zu", branch, n, k->n_out);
	struct xtensor *res = calloc(n + 1, sizeof *res);
	if (!res)
		return ov_fail(k->err, OV_NOMEM, "out of memory");
	if (xk_run_subgraph(k, sub, NULL, 0, res)) {
		free(res);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		give(k, i, &res[i]);
	free(res);
	return 0;
}

/* ---- stacking and slicing along an axis ---- */

/* Stack n tensors of the same dtype and dims along a new axis at position axis (0 <= axis <= rank), in order,
 * or reversed. */
static int stack(struct exec_kernel_ctx *k, struct xtensor *parts, size_t n, int axis, int reverse, int32_t dtype,
		 struct xtensor *out)
{
	int64_t dims[XT_MAX_RANK];
	size_t es = xt_elem_size(dtype);

	if (!es)
		return xk_fail(k, "cannot stack %s values", dtype_short_name(dtype));
	if (!n) { /* no iteration: an empty tensor, [0] */
		int64_t zero = 0;
		return xt_alloc(out, dtype, 1, &zero, k->err);
	}
	const struct xtensor *p0 = &parts[0];
	if (p0->rank + 1 > XT_MAX_RANK)
		return xk_fail(k, "stacking would make rank %d, over the executor's limit", p0->rank + 1);
	if (axis < 0 || axis > p0->rank)
		return xk_fail(k, "axis %d is out of range for values of rank %d", axis, p0->rank);
	for (size_t i = 1; i < n; i++)
		if (parts[i].dtype != p0->dtype || parts[i].rank != p0->rank ||
		    memcmp(parts[i].dims, p0->dims, (size_t)p0->rank * sizeof *p0->dims))
			return xk_fail(k, "iteration %zu gives a scan output of another type or shape than iteration 0", i);
	for (int d = 0, j = 0; d <= p0->rank; d++)
		dims[d] = d == axis ? (int64_t)n : p0->dims[j++];
	if (xt_alloc(out, p0->dtype, p0->rank + 1, dims, k->err))
		return -1;
	int64_t outer = 1, inner = 1;
	for (int d = 0; d < axis; d++)
		outer *= p0->dims[d];
	for (int d = axis; d < p0->rank; d++)
		inner *= p0->dims[d];
	size_t chunk = (size_t)inner * es;
	for (size_t t = 0; t < n; t++) {
		const uint8_t *src = (const uint8_t *)parts[reverse ? n - 1 - t : t].data;
		for (int64_t o = 0; o < outer; o++)
			memcpy((uint8_t *)out->data + ((size_t)o * n + t) * chunk, src + (size_t)o * chunk, chunk);
	}
	return 0;
}

/* Slice t (0 <= t < dims[axis]) of x along axis, the axis removed. */
static int slice(struct exec_kernel_ctx *k, const struct xtensor *x, int axis, int64_t t, struct xtensor *out)
{
	int64_t dims[XT_MAX_RANK];
	size_t es = xt_elem_size(x->dtype);

	if (!es)
		return xk_fail(k, "cannot slice %s values", dtype_short_name(x->dtype));
	for (int d = 0, j = 0; d < x->rank; d++)
		if (d != axis)
			dims[j++] = x->dims[d];
	if (xt_alloc(out, x->dtype, x->rank - 1, dims, k->err))
		return -1;
	int64_t outer = 1, inner = 1, len = x->dims[axis];
	for (int d = 0; d < axis; d++)
		outer *= x->dims[d];
	for (int d = axis + 1; d < x->rank; d++)
		inner *= x->dims[d];
	size_t chunk = (size_t)inner * es;
	for (int64_t o = 0; o < outer; o++)
		memcpy((uint8_t *)out->data + (size_t)o * chunk, (const uint8_t *)x->data + ((size_t)(o * len + t)) * chunk,
		       chunk);
	return 0;
}

/* Scan outputs of every iteration, one list per output. */
struct scans {
	struct xtensor **v; /* [k][iteration] */
	size_t n_k, n, cap;
	uint64_t bytes;     /* what they hold together */
};

static int scans_add(struct exec_kernel_ctx *k, struct scans *s, struct xtensor *res)
{
	/* bodies may carry sequences and optionals, but only tensors are stacked */
	for (size_t j = 0; j < s->n_k; j++)
		if (res[j].kind != XT_TENSOR)
			return xk_fail(k, "scan output %zu is a %s; scan outputs are tensors", j, xt_kind_name(res[j].kind));
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 16;
		for (size_t j = 0; j < s->n_k; j++) {
			struct xtensor *g = realloc(s->v[j], nc * sizeof *g);
			if (!g)
				return ov_fail(k->err, OV_NOMEM, "out of memory keeping scan outputs");
			s->v[j] = g;
		}
		s->cap = nc;
	}
	uint64_t step = 0;
	for (size_t j = 0; j < s->n_k; j++) {
		step += res[j].bytes;
		s->v[j][s->n] = res[j];
		memset(&res[j], 0, sizeof res[j]);
	}
	s->n++;
	s->bytes += step;
	/* stacking needs them once more, as one tensor per output */
	return xk_scan_bytes(k, s->bytes, (int64_t)s->n, 0);
}

/* After the first iteration of a loop that will run exactly trips times: the scan outputs of all of them, at this
 * size each, must fit as well (trips < 0: the count is not known; only what is kept is checked). */
static int scans_project(struct exec_kernel_ctx *k, const struct scans *s, int64_t trips)
{
	if (s->n != 1 || trips <= 1)
		return 0;
	uint64_t total = (uint64_t)trips > UINT64_MAX / (s->bytes ? s->bytes : 1) ? UINT64_MAX
										  : s->bytes * (uint64_t)trips;
	return xk_scan_bytes(k, total, trips, 1);
}

static void scans_free(struct scans *s)
{
	for (size_t j = 0; s->v && j < s->n_k; j++) {
		free_all(s->v[j], s->n);
		free(s->v[j]);
	}
	free(s->v);
}

/* The element type a subgraph declares for output i (float when it does not say). */
static int32_t declared_dtype(const struct graph *sub, size_t i)
{
	const Onnx__ValueInfoProto *v = sub->proto->output[i];
	if (v->type && v->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && v->type->tensor_type &&
	    v->type->tensor_type->has_elem_type)
		return v->type->tensor_type->elem_type;
	return OV_DT_FLOAT;
}

/* ---- Loop ---- */

/* 1 when the body hands its condition input on unchanged as its condition output (directly or through an
 * Identity): with the condition true at the start, the loop then runs exactly its trip count, as PyTorch's `for`
 * loops do.  A `while` loop (trip count INT64_MAX, a computed condition) may stop at any time. */
static int body_keeps_cond(const struct graph *body)
{
	const Onnx__GraphProto *p = body->proto;

	if (p->n_input < 2 || p->n_output < 1 || !p->input[1]->name || !p->output[0]->name)
		return 0;
	int32_t in = graph_value_id(body, p->input[1]->name), out = graph_value_id(body, p->output[0]->name);
	if (in < 0 || out < 0)
		return 0;
	if (in == out)
		return 1;
	int32_t n = body->values[out].producer;
	if (n < 0)
		return 0;
	const struct graph_node *gn = &body->nodes[n];
	const char *dom = gn->proto->domain;
	return gn->proto->op_type && !strcmp(gn->proto->op_type, "Identity") &&
	       (!dom || !*dom || !strcmp(dom, "ai.onnx")) && gn->proto->n_input >= 1 && gn->in[0] == in;
}

static int kernel_loop(struct exec_kernel_ctx *k)
{
	const struct graph *body = node_sub(k, "body");
	if (!body)
		return xk_fail(k, "no body attribute");
	size_t n_carried = k->n_in >= 2 ? k->n_in - 2 : 0;
	size_t n_body_out = body->proto->n_output;
	if (body->proto->n_input != n_carried + 2)
		return xk_fail(k, "the body takes %zu inputs; with %zu loop-carried values it should take %zu",
			       body->proto->n_input, n_carried, n_carried + 2);
	if (n_body_out < n_carried + 1)
		return xk_fail(k, "the body gives %zu outputs; it must give the condition and %zu loop-carried values",
			       n_body_out, n_carried);
	size_t n_scan = n_body_out - 1 - n_carried;
	int64_t max_trips = -1;
	if (k->n_in >= 1 && k->in[0]) {
		if (k->in[0]->numel != 1)
			return xk_fail(k, "M has %lld elements; it is a scalar", (long long)k->in[0]->numel);
		max_trips = xt_get_int(k->in[0], 0);
		if (max_trips < 0)
			max_trips = 0;
	}
	int has_cond = k->n_in >= 2 && k->in[1];
	if (has_cond && k->in[1]->numel != 1)
		return xk_fail(k, "cond has %lld elements; it is a scalar", (long long)k->in[1]->numel);
	int cond = has_cond ? scalar_true(k->in[1]) : 1;
	/* how many trips the loop will make, when it cannot stop early: for the scan outputs' projection */
	int64_t exact_trips = max_trips >= 0 && cond && body_keeps_cond(body) ? max_trips : -1;

	struct xtensor *carried = calloc(n_carried + 1, sizeof *carried);
	struct xtensor *res = calloc(n_body_out + 1, sizeof *res);
	const struct xtensor **args = calloc(n_carried + 3, sizeof *args);
	struct xtensor iter = {0}, cond_t = {0};
	struct scans sc = {.n_k = n_scan, .v = calloc(n_scan + 1, sizeof *sc.v)};
	int rc = -1;
	if (!carried || !res || !args || !sc.v) {
		ov_fail(k->err, OV_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n_carried; i++) {
		if (!k->in[2 + i]) {
			xk_fail(k, "loop-carried input %zu is missing", i);
			goto out;
		}
		if (xt_copy(&carried[i], k->in[2 + i], k->err))
			goto out;
	}
	if (xt_alloc(&iter, OV_DT_INT64, 0, NULL, k->err) || xt_alloc(&cond_t, OV_DT_BOOL, 0, NULL, k->err))
		goto out;
	for (int64_t i = 0; (max_trips < 0 || i < max_trips) && cond; i++) {
		if (xk_iteration(k))
			goto out;
		((int64_t *)iter.data)[0] = i;
		((uint8_t *)cond_t.data)[0] = (uint8_t)cond;
		args[0] = &iter;
		args[1] = &cond_t;
		for (size_t j = 0; j < n_carried; j++)
			args[2 + j] = &carried[j];
		if (xk_run_subgraph(k, body, args, n_carried + 2, res))
			goto out;
		if (res[0].numel != 1 || res[0].kind != XT_TENSOR) {
			free_all(res, n_body_out);
			xk_fail(k, "the body's condition output has %lld elements", (long long)res[0].numel);
			goto out;
		}
		cond = scalar_true(&res[0]);
		xt_free(&res[0]);
		for (size_t j = 0; j < n_carried; j++) {
			xt_free(&carried[j]);
			carried[j] = res[1 + j];
			memset(&res[1 + j], 0, sizeof res[1 + j]);
		}
		if (scans_add(k, &sc, res + 1 + n_carried) || scans_project(k, &sc, exact_trips)) {
			free_all(res, n_body_out);
			goto out;
		}
	}
	for (size_t j = 0; j < n_carried; j++)
		give(k, j, &carried[j]);
	for (size_t j = 0; j < n_scan; j++) {
		struct xtensor st = {0};
		if (stack(k, sc.v[j], sc.n, 0, 0, sc.n ? sc.v[j][0].dtype : declared_dtype(body, 1 + n_carried + j), &st))
			goto out;
		give(k, n_carried + j, &st);
	}
	rc = 0;
out:
	free_all(carried, n_carried);
	free(carried);
	free(res);
	free(args);
	xt_free(&iter);
	xt_free(&cond_t);
	scans_free(&sc);
	return rc;
}

/* ---- Scan ---- */

static int axis_list(struct exec_kernel_ctx *k, const char *name, int64_t *v, size_t n, int64_t def)
{
	int64_t got = xk_attr_ints(k, name, v, (int64_t)n);
	if (got < 0) {
		for (size_t i = 0; i < n; i++)
			v[i] = def;
		return 0;
	}
	if ((size_t)got != n)
		return xk_fail(k, "%s has %lld entries, %zu expected", name, (long long)got, n);
	return 0;
}

/* One scan: states (n_state) and scan inputs (n_in, sliced along in_axes, already normalised) through the body;
 * the final states and the stacked scan outputs (n_out of them) go to out_states and out_scans. */
struct scan_spec {
	const struct graph *body;
	size_t n_state, n_in, n_out;
	const int64_t *in_axes, *in_dirs, *out_axes, *out_dirs;
};

static int scan_run(struct exec_kernel_ctx *k, const struct scan_spec *sp, const struct xtensor *const *states_in,
		    const struct xtensor *const *scan_in, struct xtensor *out_states, struct xtensor *out_scans)
{
	size_t n_body_out = sp->n_state + sp->n_out;
	struct xtensor *state = calloc(sp->n_state + 1, sizeof *state), *slices = calloc(sp->n_in + 1, sizeof *slices);
	struct xtensor *res = calloc(n_body_out + 1, sizeof *res);
	const struct xtensor **args = calloc(sp->n_state + sp->n_in + 1, sizeof *args);
	struct scans sc = {.n_k = sp->n_out, .v = calloc(sp->n_out + 1, sizeof *sc.v)};
	size_t made = 0;
	int rc = -1;

	if (!state || !slices || !res || !args || !sc.v) {
		ov_fail(k->err, OV_NOMEM, "out of memory");
		goto out;
	}
	int64_t len = -1;
	for (size_t i = 0; i < sp->n_in; i++) {
		const struct xtensor *x = scan_in[i];
		int64_t a = sp->in_axes[i];
		if (len >= 0 && x->dims[a] != len) {
			xk_fail(k, "scan input %zu has %lld steps along axis %lld, scan input 0 has %lld", i,
				(long long)x->dims[a], (long long)a, (long long)len);
			goto out;
		}
		len = x->dims[a];
	}
	for (size_t i = 0; i < sp->n_state; i++)
		if (xt_copy(&state[i], states_in[i], k->err))
			goto out;
	for (int64_t t = 0; t < len; t++) {
		if (xk_iteration(k))
			goto out;
		for (size_t i = 0; i < sp->n_in; i++) {
			xt_free(&slices[i]);
			if (slice(k, scan_in[i], (int)sp->in_axes[i], sp->in_dirs[i] ? len - 1 - t : t, &slices[i]))
				goto out;
		}
		for (size_t i = 0; i < sp->n_state; i++)
			args[i] = &state[i];
		for (size_t i = 0; i < sp->n_in; i++)
			args[sp->n_state + i] = &slices[i];
		if (xk_run_subgraph(k, sp->body, args, sp->n_state + sp->n_in, res))
			goto out;
		for (size_t i = 0; i < sp->n_state; i++) {
			xt_free(&state[i]);
			state[i] = res[i];
			memset(&res[i], 0, sizeof res[i]);
		}
		if (scans_add(k, &sc, res + sp->n_state) || scans_project(k, &sc, len)) {
			free_all(res, n_body_out);
			goto out;
		}
	}
	for (; made < sp->n_out; made++) {
		int rank = sc.n ? sc.v[made][0].rank + 1 : 1, a;
		if (xk_norm_axis(k, sp->out_axes[made], rank, &a))
			goto out;
		if (stack(k, sc.v[made], sc.n, a, sp->out_dirs[made] != 0,
			  sc.n ? sc.v[made][0].dtype : declared_dtype(sp->body, sp->n_state + made), &out_scans[made]))
			goto out;
	}
	for (size_t i = 0; i < sp->n_state; i++) {
		out_states[i] = state[i];
		memset(&state[i], 0, sizeof state[i]);
	}
	rc = 0;
out:
	if (rc)
		free_all(out_scans, made);
	free_all(state, sp->n_state);
	free_all(slices, sp->n_in);
	free(state);
	free(slices);
	free(res);
	free(args);
	scans_free(&sc);
	return rc;
}

/* Scan of opset 9 on, and opset 8's batched form (batch axis 0 on every state and scan input and output, scan
 * inputs scanned along axis 1; sequence_lens, when given, must be the full length for every batch item). */
static int kernel_scan_any(struct exec_kernel_ctx *k, int v8)
{
	const struct graph *body = node_sub(k, "body");
	if (!body)
		return xk_fail(k, "no body attribute");
	size_t first = v8 ? 1 : 0; /* opset 8: input 0 is sequence_lens */
	int64_t m = xk_attr_int(k, "num_scan_inputs", -1);
	if (m < 1 || (size_t)m + first > k->n_in)
		return xk_fail(k, "num_scan_inputs is %lld; the node has %zu inputs", (long long)m, k->n_in);
	struct scan_spec sp = {.body = body, .n_in = (size_t)m};
	sp.n_state = k->n_in - first - sp.n_in;
	if (body->proto->n_input != sp.n_state + sp.n_in)
		return xk_fail(k, "the body takes %zu inputs, the node gives it %zu", body->proto->n_input,
			       sp.n_state + sp.n_in);
	if (body->proto->n_output < sp.n_state)
		return xk_fail(k, "the body gives %zu outputs, fewer than its %zu state variables", body->proto->n_output,
			       sp.n_state);
	sp.n_out = body->proto->n_output - sp.n_state;
	for (size_t i = first; i < k->n_in; i++)
		if (!k->in[i])
			return xk_fail(k, "input %zu is missing", i);

	int64_t *axes = calloc(2 * (sp.n_in + sp.n_out) + 2, sizeof *axes);
	const struct xtensor **st = calloc(sp.n_state + 1, sizeof *st), **sin = calloc(sp.n_in + 1, sizeof *sin);
	struct xtensor *o_state = calloc(sp.n_state + 1, sizeof *o_state), *o_scan = calloc(sp.n_out + 1, sizeof *o_scan);
	struct xtensor *b_state = NULL, *b_in = NULL, *per_state = NULL, *per_scan = NULL;
	int64_t batch = 1;
	int rc = -1;
	if (!axes || !st || !sin || !o_state || !o_scan) {
		ov_fail(k->err, OV_NOMEM, "out of memory");
		goto out;
	}
	int64_t *in_axes = axes, *in_dirs = axes + sp.n_in, *out_axes = axes + 2 * sp.n_in,
		*out_dirs = axes + 2 * sp.n_in + sp.n_out;
	if (v8) {
		if (axis_list(k, "directions", in_dirs, sp.n_in, 0))
			goto out;
		for (size_t i = 0; i < sp.n_in; i++)
			in_axes[i] = 0; /* axis 1 of the input, axis 0 once the batch item is taken */
	} else if (axis_list(k, "scan_input_axes", in_axes, sp.n_in, 0) ||
		   axis_list(k, "scan_input_directions", in_dirs, sp.n_in, 0) ||
		   axis_list(k, "scan_output_axes", out_axes, sp.n_out, 0) ||
		   axis_list(k, "scan_output_directions", out_dirs, sp.n_out, 0)) {
		goto out;
	}
	for (size_t i = 0; i < sp.n_in; i++) {
		const struct xtensor *x = k->in[first + sp.n_state + i];
		int a;
		if (x->rank < (v8 ? 2 : 1)) {
			xk_fail(k, "scan input %zu has rank %d: nothing to scan along", i, x->rank);
			goto out;
		}
		if (!v8) {
			if (xk_norm_axis(k, in_axes[i], x->rank, &a))
				goto out;
			in_axes[i] = a;
		}
	}
	sp.in_axes = in_axes;
	sp.in_dirs = in_dirs;
	sp.out_axes = out_axes;
	sp.out_dirs = out_dirs;
	if (!v8) {
		for (size_t i = 0; i < sp.n_state; i++)
			st[i] = k->in[i];
		for (size_t i = 0; i < sp.n_in; i++)
			sin[i] = k->in[sp.n_state + i];
		if (scan_run(k, &sp, st, sin, o_state, o_scan))
			goto out;
	} else {
		/* every batch item on its own, then the results stacked along the batch axis */
		const struct xtensor *x0 = k->in[first + sp.n_state];
		batch = x0->dims[0];
		for (size_t i = 0; i < sp.n_state + sp.n_in; i++) {
			const struct xtensor *x = k->in[first + i];
			if (x->rank < 1 || x->dims[0] != batch) {
				xk_fail(k, "input %zu has no batch axis of %lld", first + i, (long long)batch);
				goto out;
			}
		}
		const struct xtensor *lens = k->n_in && k->in[0] ? k->in[0] : NULL;
		for (int64_t b = 0; lens && b < lens->numel; b++)
			if (xt_get_int(lens, b) != x0->dims[1]) {
				xk_fail(k, "sequence_lens[%lld] is %lld: only full-length sequences (%lld) are supported",
					(long long)b, (long long)xt_get_int(lens, b), (long long)x0->dims[1]);
				goto out;
			}
		b_state = calloc(sp.n_state + 1, sizeof *b_state);
		b_in = calloc(sp.n_in + 1, sizeof *b_in);
		per_state = calloc((size_t)batch * sp.n_state + 1, sizeof *per_state);
		per_scan = calloc((size_t)batch * sp.n_out + 1, sizeof *per_scan);
		if (!b_state || !b_in || !per_state || !per_scan) {
			ov_fail(k->err, OV_NOMEM, "out of memory");
			goto out;
		}
		for (int64_t b = 0; b < batch; b++) {
			for (size_t i = 0; i < sp.n_state; i++) {
				xt_free(&b_state[i]);
				if (slice(k, k->in[first + i], 0, b, &b_state[i]))
					goto out;
				st[i] = &b_state[i];
			}
			for (size_t i = 0; i < sp.n_in; i++) {
				xt_free(&b_in[i]);
				if (slice(k, k->in[first + sp.n_state + i], 0, b, &b_in[i]))
					goto out;
				sin[i] = &b_in[i];
			}
			if (scan_run(k, &sp, st, sin, per_state + b * (int64_t)sp.n_state, per_scan + b * (int64_t)sp.n_out))
				goto out;
		}
		/* per_* are [batch][k]: gather each output's batch items and stack them along axis 0 */
		struct xtensor *col = calloc((size_t)batch + 1, sizeof *col);
		if (!col) {
			ov_fail(k->err, OV_NOMEM, "out of memory");
			goto out;
		}
		for (size_t j = 0; j < sp.n_state + sp.n_out; j++) {
			int is_state = j < sp.n_state;
			size_t jj = is_state ? j : j - sp.n_state, stride = is_state ? sp.n_state : sp.n_out;
			struct xtensor *src = is_state ? per_state : per_scan;
			for (int64_t b = 0; b < batch; b++)
				col[b] = src[(size_t)b * stride + jj];
			int bad = stack(k, col, (size_t)batch, 0, 0, batch ? col[0].dtype : OV_DT_FLOAT,
					is_state ? &o_state[jj] : &o_scan[jj]);
			if (bad) {
				free(col);
				goto out;
			}
		}
		free(col);
	}
	for (size_t i = 0; i < sp.n_state; i++)
		give(k, i, &o_state[i]);
	for (size_t j = 0; j < sp.n_out; j++)
		give(k, sp.n_state + j, &o_scan[j]);
	rc = 0;
out:
	free_all(o_state, sp.n_state);
	free_all(o_scan, sp.n_out);
	free_all(b_state, b_state ? sp.n_state : 0);
	free_all(b_in, b_in ? sp.n_in : 0);
	free_all(per_state, per_state ? (size_t)batch * sp.n_state : 0);
	free_all(per_scan, per_scan ? (size_t)batch * sp.n_out : 0);
	free(o_state);
	free(o_scan);
	free(b_state);
	free(b_in);
	free(per_state);
	free(per_scan);
	free(st);
	free(sin);
	free(axes);
	return rc;
}

static int kernel_scan(struct exec_kernel_ctx *k)
{
	return kernel_scan_any(k, 0);
}

static int kernel_scan8(struct exec_kernel_ctx *k)
{
	return kernel_scan_any(k, 1);
}

const struct exec_kernel cpu_control_kernels[] = {
	{.op = "If", .since = 1, .fn = kernel_if},
	{.op = "Loop", .since = 1, .fn = kernel_loop},
	{.op = "Scan", .since = 8, .fn = kernel_scan8},
	{.op = "Scan", .since = 9, .fn = kernel_scan},
};
const size_t cpu_control_count = sizeof cpu_control_kernels / sizeof cpu_control_kernels[0];
