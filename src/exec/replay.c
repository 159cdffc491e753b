/* Replay of a recorded run (runner.h; the backend's part is exec_backend_ops.graph_*).
 *
 * With kept constants (run --repeat, the TUI's runs), the second run that goes well is recorded: the backend
 * records the work its nodes queue instead of running it, and at the end runs the recording once as a graph.  A
 * later run of the same cut, on inputs of the same types and shapes, is one launch of that graph: no node runs on
 * the host, the inputs are copied into the graph's place for them, and the outputs come back from where the
 * recorded run's outputs were.  What a recording cannot hold fails it, and the run is redone node by node; the
 * reason is kept with the constants, and no later run records again: a node run on the CPU (its values would be
 * recorded as they were), a sequence or optional, an output that is not a value the device computed in the run,
 * and whatever the backend refuses while recording (cuda/capture.cu: a wait for the device, ...). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/exec/exec.h"
#include "src/exec/runner.h"

struct replay_value {
	int32_t id;
	int32_t dtype;
	int rank;
	int64_t dims[XT_MAX_RANK];
	size_t bytes;
	void *dev; /* outputs: where the graph leaves the value, freed by the runner after each launch */
	const struct xt_devops *devops;
};

struct replay {
	const struct exec_backend_ops *be;
	void *graph;
	uint8_t *need; /* the recorded cut's needed values (an input it ignored is ignored again) */
	struct replay_value *in, *out;
	size_t n_in, n_out;
	uint32_t nodes_run, nodes_kept;
	uint64_t in_bytes;
};

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void replay_delete(struct replay *r)
{
	if (!r)
		return;
	if (r->graph && r->be && r->be->graph_free)
		r->be->graph_free(r->graph);
	free(r->need);
	free(r->in);
	free(r->out);
	free(r);
}

void replay_free(struct exec_consts *kc)
{
	replay_delete(kc->replay);
	kc->replay = NULL;
	kc->replay_state = REPLAY_UNTRIED;
	kc->replay_why[0] = '\0';
	kc->runs = 0;
	kc->up_bytes = kc->ups = 0;
}

static void refuse(struct exec_consts *kc, const char *why)
{
	replay_delete(kc->replay);
	kc->replay = NULL;
	kc->replay_state = REPLAY_REFUSED;
	snprintf(kc->replay_why, sizeof kc->replay_why, "%s", why && *why ? why : "no reason given");
}

int replay_wanted(const struct exec_consts *kc, const struct graph *g, const struct exec_options *opt)
{
	const struct exec_backend_ops *be = opt->backend;

	return kc && be && be->graph_begin && be->graph_input && be->graph_end && be->graph_launch && be->graph_free &&
	       kc->serial == g->serial && kc->runs >= 1 && kc->replay_state == REPLAY_UNTRIED && !opt->keep_all &&
	       !opt->profile && !opt->from && !opt->n_from;
}

static void value_of(struct replay_value *v, int32_t id, const struct xtensor *t)
{
	memset(v, 0, sizeof *v);
	v->id = id;
	v->dtype = t->dtype;
	v->rank = t->rank;
	memcpy(v->dims, t->dims, (size_t)t->rank * sizeof t->dims[0]);
	v->bytes = t->bytes;
}

static int same_shape(const struct replay_value *v, const struct xtensor *t)
{
	return t->kind == XT_TENSOR && t->dtype == v->dtype && t->rank == v->rank && t->bytes == v->bytes &&
	       !memcmp(t->dims, v->dims, (size_t)v->rank * sizeof v->dims[0]);
}

int replay_begin(struct exec_consts *kc, const struct exec_backend_ops *be, const struct graph *g, const struct plan *p,
		 const int32_t *fed, size_t n_fed, struct slot *slots)
{
	struct ov_error e = {0};
	struct replay *r = calloc(1, sizeof *r);

	if (!r || !(r->need = malloc(kc->n + 1)) || !(r->in = calloc(n_fed + 1, sizeof *r->in))) {
		replay_delete(r);
		refuse(kc, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n_fed; i++)
		if (slots[fed[i]].t.kind != XT_TENSOR) {
			replay_delete(r);
			refuse(kc, "an input is a sequence or an optional, which live on the host");
			return -1;
		}
	/* room for what the run before copied up, and the inputs again (an input only read on the host was not) */
	uint64_t fed_bytes = 0;
	for (size_t i = 0; i < n_fed; i++)
		fed_bytes += slots[fed[i]].t.bytes;
	int b = be->graph_begin(kc->t, kc->n, kc->up_bytes + fed_bytes, kc->ups + n_fed, &e);
	if (b) {
		replay_delete(r);
		if (b > 0) {
			kc->replay_state = REPLAY_OFF;
			return -1;
		}
		refuse(kc, e.msg);
		return -1;
	}
	r->be = be;
	memcpy(r->need, p->need_val, kc->n);
	for (size_t i = 0; i < n_fed; i++) {
		struct xtensor *t = &slots[fed[i]].t;
		value_of(&r->in[r->n_in++], fed[i], t);
		r->in_bytes += t->bytes;
		if (be->graph_input(t, &e)) {
			ov_wrap(&e, "input '%s': ", g->values[fed[i]].name);
			/* the inputs placed so far hold the recording's memory, which goes with it: the run uploads them
			 * again as usual */
			for (size_t j = 0; j < i; j++) {
				slots[fed[j]].t.dev = NULL;
				slots[fed[j]].t.devops = NULL;
			}
			be->graph_end(0, NULL);
			replay_delete(r);
			refuse(kc, e.msg);
			return -1;
		}
	}
	kc->replay = r;
	return 0;
}

void replay_abandon(struct exec_consts *kc, const struct exec_backend_ops *be, const struct ov_error *err)
{
	be->graph_end(0, NULL);
	refuse(kc, err && err->msg[0] ? err->msg : "the run failed while it was recorded");
}

int replay_end(struct exec_consts *kc, const struct exec_backend_ops *be, const struct graph *g, const struct plan *p,
	       const struct slot *slots, const struct exec_result *res, struct ov_error *err)
{
	struct replay *r = kc->replay;

	if (!(r->out = calloc(p->n_to + 1, sizeof *r->out)))
		return ov_fail(err, OV_NOMEM, "out of memory");
	for (size_t i = 0; i < p->n_to; i++) {
		int32_t id = p->to[i];
		const struct xtensor *t = &slots[id].t;
		for (size_t j = 0; j < i; j++)
			if (p->to[j] == id)
				return ov_fail(err, OV_USAGE, "the value '%s' is asked for twice", g->values[id].name);
		if (t->kind != XT_TENSOR || !t->dev || !t->host_stale)
			return ov_fail(err, OV_INVALID, "the output '%s' is not computed on the device by the run (it is "
				       "kept from constants, or computed on the host)", g->values[id].name);
		value_of(&r->out[r->n_out], id, t);
		r->out[r->n_out].dev = t->dev;
		r->out[r->n_out].devops = t->devops;
		r->n_out++;
	}
	if (!(r->graph = be->graph_end(1, err)))
		return -1;
	r->nodes_run = res->nodes_run;
	r->nodes_kept = res->nodes_kept;
	kc->replay_state = REPLAY_KEPT;
	return 0;
}

/* The output values of a launch, each a host tensor whose value is on the device (downloaded by run_result_add),
 * added to out; after a failure every one left is freed (its device memory too). */
static int take_outputs(const struct replay *r, const struct graph *g, struct exec_result *out, int failed,
			struct ov_error *err)
{
	size_t cap = 0;
	int rc = failed ? -1 : 0;

	for (size_t i = 0; i < r->n_out; i++) {
		const struct replay_value *v = &r->out[i];
		struct xtensor t = {0};
		struct ov_error scratch;
		if (xt_alloc(&t, v->dtype, v->rank, v->dims, rc ? &scratch : err)) {
			/* the device memory goes back even when the host copy cannot be made */
			if (v->devops && v->devops->release)
				v->devops->release(v->dev);
			rc = -1;
			continue;
		}
		t.dev = v->dev;
		t.devops = v->devops;
		t.host_stale = 1;
		if (rc || run_result_add(out, &cap, g->values[v->id].name, &t, 1, err))
			rc = -1;
		xt_free(&t);
	}
	return rc;
}

int replay_run(const struct graph *g, const struct exec_options *opt, const struct exec_input *in, size_t n_in,
	       struct exec_result *out, struct ov_error *err)
{
	struct exec_consts *kc = opt->consts;
	struct replay *r = kc ? kc->replay : NULL;

	if (!r || !r->graph || kc->serial != g->serial || kc->n != g->n_values || opt->backend != r->be ||
	    opt->keep_all || opt->profile || opt->from || opt->n_from)
		return 1;
	/* the same 'to' values (the graph outputs when none are named) */
	if (opt->to) {
		if (opt->n_to != r->n_out)
			return 1;
		for (size_t i = 0; i < opt->n_to; i++)
			if (graph_value_id(g, opt->to[i] ? opt->to[i] : "") != r->out[i].id)
				return 1;
	} else {
		if (g->proto->n_output != r->n_out)
			return 1;
		for (size_t i = 0; i < r->n_out; i++) {
			const char *name = g->proto->output[i]->name;
			if (graph_value_id(g, name ? name : "") != r->out[i].id)
				return 1;
		}
	}
	/* the same inputs, of the same types and shapes (the last given for a value counts, as in a run) */
	const struct xtensor *small[16], **t = r->n_in <= 16 ? small : calloc(r->n_in, sizeof *t);
	if (!t)
		return 1;
	memset(t, 0, r->n_in * sizeof *t);
	int same = 1;
	for (size_t i = 0; i < n_in && same; i++) {
		int32_t id = graph_value_id(g, in[i].name ? in[i].name : "");
		if (id < 0)
			same = 0; /* the run names the problem */
		else if (r->need[id]) {
			size_t j = 0;
			while (j < r->n_in && r->in[j].id != id)
				j++;
			same = j < r->n_in;
			if (same)
				t[j] = &in[i].t;
		}
	}
	for (size_t j = 0; j < r->n_in && same; j++)
		same = t[j] && same_shape(&r->in[j], t[j]) && !t[j]->dev && !t[j]->host_stale;
	if (!same) {
		if (t != small)
			free(t);
		return 1;
	}

	memset(out, 0, sizeof *out);
	double t0 = now_ms();
	int rc = r->be->graph_launch(r->graph, t, r->n_in, err);
	if (t != small)
		free(t);
	if (rc == 2) {
		/* out of date: recorded again by this run (the state untried, the runs counted as before) */
		replay_delete(r);
		kc->replay = NULL;
		kc->replay_state = REPLAY_UNTRIED;
		out->graph_why = "the graph recorded before was out of date (the device's workspace moved): recorded again";
		return 1;
	}
	if (rc > 0) {
		out->graph_why = "an input the recorded run read on the host holds other bytes: the nodes ran";
		return 1;
	}
	int launched = rc == 0;
	if (rc == 0 && r->be->run_wait && r->be->run_wait(err))
		rc = -1;
	out->ms = now_ms() - t0;
	if (rc == 0) {
		out->to_device = r->n_in;
		out->to_device_bytes = r->in_bytes;
	}
	/* the outputs' memory is the graph's, live after a launch: each launch's values are freed after it */
	if (launched)
		rc = take_outputs(r, g, out, rc != 0, err);
	out->n_to = r->n_out;
	out->nodes_run = r->nodes_run;
	out->nodes_kept = r->nodes_kept;
	out->graph = EXEC_GRAPH_REPLAYED;
	if (r->be->run_end)
		r->be->run_end();
	if (rc)
		exec_result_free(out);
	return rc;
}
