/* What the executor's fuzz targets (fuzz-exec.c, fuzz-exec-cuda.c) share: the model of the input bytes, its graph
 * and shapes, and random inputs for every value the graph needs, when each has a known, small shape. */
#ifndef OV_FUZZ_FEED_H
#define OV_FUZZ_FEED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/exec.h"
#include "src/graph/graph.h"
#include "src/model/model.h"
#include "src/exec/feed.h"
#include "src/exec/repeat.h"
#include "src/graph/shape.h"

#define FUZZ_TENSOR_BYTES (64u << 20) /* the most one tensor may take (xt_set_limit) */
#define FUZZ_INPUT_ELEMENTS 65536
#define FUZZ_MAX_INPUTS 64
#define FUZZ_LOOP_ITERATIONS 10000 /* Loop and Scan iterations in one run (the default, 10^6, is seconds) */

/* The run limits of the fuzz targets: deterministic ones only (no time limit), so that the run with kept constants
 * stops exactly where the first one did.  A Loop body that never stops, or scan outputs that would outgrow one
 * tensor, must end in a clean error (issue 14). */
static inline struct exec_limits fuzz_limits(void)
{
	struct exec_limits l = {.max_iterations = FUZZ_LOOP_ITERATIONS, .max_scan_bytes = FUZZ_TENSOR_BYTES};
	return l;
}

struct fuzz_run {
	struct ov_model *m;
	struct graph *g;
	struct shapes *sh;
	struct ov_error err;
	struct exec_input in[FUZZ_MAX_INPUTS];
	long n_in;
};

static void fuzz_run_free(struct fuzz_run *fr)
{
	for (long i = 0; i < fr->n_in; i++)
		xt_free(&fr->in[i].t);
	if (fr->sh)
		shapes_free(fr->sh);
	if (fr->g)
		graph_free(fr->g);
	model_free(fr->m);
	memset(fr, 0, sizeof *fr);
}

/* 0 with the model loaded and its inputs made; -1 when there is nothing to run (fr is then empty). */
static int fuzz_run_prepare(struct fuzz_run *fr, const uint8_t *data, size_t size)
{
	const char *need[FUZZ_MAX_INPUTS];
	struct exec_options opt = {0};

	memset(fr, 0, sizeof *fr);
	xt_set_limit(FUZZ_TENSOR_BYTES);
	if (model_load_buffer(&fr->m, data, size, "fuzz.onnx", &fr->err))
		return -1;
	if (graph_build(&fr->g, fr->m->proto->graph, &fr->err) || shape_infer(&fr->sh, fr->m, fr->g, &fr->err))
		goto none;
	long n_need = exec_needed_inputs(fr->g, &opt, NULL, 0, &fr->err);
	if (n_need < 0 || n_need > FUZZ_MAX_INPUTS)
		goto none;
	exec_needed_inputs(fr->g, &opt, need, (size_t)n_need, &fr->err);
	struct feed f = {.m = fr->m, .g = fr->g, .sh = fr->sh, .e = &fr->err};
	for (long i = 0; i < n_need; i++) {
		int32_t id = graph_value_id(fr->g, need[i]);
		const struct vshape *v = id >= 0 ? feed_value_shape(&f, id) : NULL;
		int64_t numel = 1;
		if (!v || v->rank < 0 || v->rank > XT_MAX_RANK)
			goto none;
		for (int d = 0; d < v->rank; d++) {
			if (v->dims[d].v < 0 || (v->dims[d].v && numel > FUZZ_INPUT_ELEMENTS / v->dims[d].v))
				goto none; /* unknown or too big: nothing to run */
			numel *= v->dims[d].v;
		}
		fr->in[i].name = need[i];
		fr->n_in = i + 1;
		if (feed_generate(&f, id, "random", &fr->in[i].t))
			goto none;
	}
	return 0;
none:
	fuzz_run_free(fr);
	return -1;
}

/* No op that draws random numbers (their values differ from run to run, on either backend). */
static int fuzz_deterministic(const struct graph *g)
{
	static const char *const random_ops[] = {"RandomNormal", "RandomNormalLike", "RandomUniform",
						 "RandomUniformLike", "Bernoulli", "Multinomial", "Dropout"};

	for (uint32_t n = 0; n < g->n_nodes; n++)
		for (size_t i = 0; i < sizeof random_ops / sizeof random_ops[0]; i++)
			if (g->nodes[n].proto->op_type && !strcmp(g->nodes[n].proto->op_type, random_ops[i]))
				return 0;
	return 1;
}

/* The run again with the constants the first run (first, made with opt, whose consts it filled) kept: it must
 * succeed and, for a deterministic graph, give the first run's bits.  Aborts with a line on stderr otherwise. */
static void fuzz_rerun(const char *target, struct fuzz_run *fr, const struct exec_options *opt,
		       const struct exec_result *first)
{
	struct run_repeat rr = {.runs = 2};

	if (run_repeat(fr->m, fr->g, opt, fr->in, (size_t)fr->n_in, first, &rr, &fr->err)) {
		fprintf(stderr, "%s: the run with kept constants failed where the first succeeded: %s\n", target,
			fr->err.msg);
		abort();
	}
	if (rr.differing_run && fuzz_deterministic(fr->g)) {
		fprintf(stderr, "%s: the run with kept constants gave other bits for '%s'\n", target, rr.differing_value);
		abort();
	}
}

#endif
