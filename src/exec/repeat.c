/* run --repeat N (src/exec/repeat.h). */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/base/json.h"
#include "src/exec/repeat.h"
#include "src/base/strbuf.h"

/* The same value to the bit: type, shape, and bytes (a STRING tensor's strings, a sequence's items). */
static int same_bits(const struct xtensor *a, const struct xtensor *b)
{
	if (a->kind != b->kind || a->dtype != b->dtype || a->rank != b->rank || a->numel != b->numel ||
	    a->bytes != b->bytes || memcmp(a->dims, b->dims, (size_t)a->rank * sizeof a->dims[0]))
		return 0;
	if (a->kind != XT_TENSOR) {
		for (int64_t i = 0; i < a->numel; i++)
			if (!same_bits(&xt_items(a)[i], &xt_items(b)[i]))
				return 0;
		return 1;
	}
	if (a->dtype == OV_DT_STRING) {
		for (int64_t i = 0; i < a->numel; i++) {
			const char *x = ((char *const *)a->data)[i], *y = ((char *const *)b->data)[i];
			if (strcmp(x ? x : "", y ? y : ""))
				return 0;
		}
		return 1;
	}
	return !a->bytes || !memcmp(a->data, b->data, a->bytes);
}

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

int run_repeat(struct ov_model *m, const struct graph *g, const struct exec_options *opt, const struct exec_input *in,
	       size_t n_in, const struct exec_result *first, struct run_repeat *rr, struct ov_error *err)
{
	long warm = rr->runs - 1;
	double *ms = calloc((size_t)(warm > 0 ? warm : 1), sizeof *ms);

	rr->first_ms = first->ms;
	rr->median_ms = rr->min_ms = 0;
	rr->to_device = first->to_device;
	rr->to_device_bytes = first->to_device_bytes;
	rr->to_host = first->to_host;
	rr->to_host_bytes = first->to_host_bytes;
	rr->differing_run = 0;
	rr->differing_value = NULL;
	rr->graph_recorded = first->graph == EXEC_GRAPH_RECORDED;
	rr->graph_replays = 0;
	rr->graph_why = first->graph_why;
	if (!ms)
		return ov_fail(err, OV_NOMEM, "out of memory");
	for (long i = 0; i < warm; i++) {
		struct exec_result r = {0};
		if (exec_run(m, g, opt, in, n_in, &r, err)) {
			ov_wrap(err, "run %ld of %ld: ", i + 2, rr->runs);
			free(ms);
			return -1;
		}
		ms[i] = r.ms;
		if (r.graph == EXEC_GRAPH_RECORDED)
			rr->graph_recorded = i + 2;
		rr->graph_replays += r.graph == EXEC_GRAPH_REPLAYED;
		if (r.graph_why)
			rr->graph_why = r.graph_why;
		rr->to_device = r.to_device;
		rr->to_device_bytes = r.to_device_bytes;
		rr->to_host = r.to_host;
		rr->to_host_bytes = r.to_host_bytes;
		for (size_t v = 0; v < r.n_values && v < first->n_values && !rr->differing_run; v++) {
			const struct exec_value *a = &first->values[v], *b = &r.values[v];
			if (a->present != b->present || (a->present && !same_bits(&a->t, &b->t))) {
				rr->differing_run = i + 2;
				rr->differing_value = first->values[v].name;
			}
		}
		if (r.prof) { /* the last run's profile is the one kept */
			free(rr->prof);
			rr->prof = r.prof;
			rr->n_prof = r.n_prof;
			r.prof = NULL;
		}
		exec_result_free(&r);
	}
	if (warm > 0) {
		qsort(ms, (size_t)warm, sizeof *ms, by_value);
		rr->min_ms = ms[0];
		rr->median_ms = warm % 2 ? ms[warm / 2] : (ms[warm / 2 - 1] + ms[warm / 2]) / 2;
	}
	free(ms);
	return 0;
}

void run_repeat_text(struct strbuf *b, const struct run_repeat *rr)
{
	strbuf_printf(b, "repeat: %ld run%s: the first in %.3f ms", rr->runs, rr->runs == 1 ? "" : "s", rr->first_ms);
	if (rr->runs > 1)
		strbuf_printf(b, ", then median %.3f ms, min %.3f ms (constants kept from the first run)", rr->median_ms,
			      rr->min_ms);
	strbuf_putc(b, '\n');
	if (rr->runs > 1 && (rr->to_device || rr->to_host))
		strbuf_printf(b, "repeat: a later run copies %" PRIu64 " to the device (%" PRIu64 " bytes), %" PRIu64
			      " to the host (%" PRIu64 " bytes)\n", rr->to_device, rr->to_device_bytes, rr->to_host,
			      rr->to_host_bytes);
	if (rr->graph_recorded)
		strbuf_printf(b, "repeat: run %ld was recorded as a graph of the device's work; %ld later run%s launched it\n",
			      rr->graph_recorded, rr->graph_replays, rr->graph_replays == 1 ? "" : "s");
	if (rr->graph_why) {
		strbuf_puts(b, rr->graph_recorded ? "repeat: a run was not replayed as a graph: " : "repeat: not replayed as a graph: ");
		strbuf_put_safe(b, rr->graph_why, strlen(rr->graph_why), 0);
		strbuf_putc(b, '\n');
	}
	if (rr->differing_run) {
		strbuf_printf(b, "repeat: run %ld gave other bits than the first for '", rr->differing_run);
		strbuf_put_safe(b, rr->differing_value, strlen(rr->differing_value), 0);
		strbuf_puts(b, "' (a nondeterministic kernel?)\n");
	} else if (rr->runs > 1) {
		strbuf_puts(b, "repeat: every run gave the same bits\n");
	}
}

void run_repeat_json(struct json *j, const struct run_repeat *rr)
{
	json_key(j, "repeat");
	json_obj(j);
	json_kint(j, "runs", rr->runs);
	json_key(j, "first_ms");
	json_double(j, rr->first_ms);
	json_key(j, "median_ms");
	if (rr->runs > 1)
		json_double(j, rr->median_ms);
	else
		json_null(j);
	json_key(j, "min_ms");
	if (rr->runs > 1)
		json_double(j, rr->min_ms);
	else
		json_null(j);
	json_key(j, "copies");
	json_obj(j);
	json_kint(j, "to_device", (int64_t)rr->to_device);
	json_kint(j, "to_device_bytes", (int64_t)rr->to_device_bytes);
	json_kint(j, "to_host", (int64_t)rr->to_host);
	json_kint(j, "to_host_bytes", (int64_t)rr->to_host_bytes);
	json_end_obj(j);
	json_key(j, "same_bits");
	json_bool(j, !rr->differing_run);
	json_key(j, "differing_run");
	if (rr->differing_run)
		json_int(j, rr->differing_run);
	else
		json_null(j);
	json_kstr(j, "differing_value", rr->differing_value);
	if (rr->graph_recorded || rr->graph_why) { /* only when a backend records (the CUDA one, unless OV_CUDA_GRAPH=0) */
		json_key(j, "graph");
		json_obj(j);
		json_key(j, "recorded_run");
		if (rr->graph_recorded)
			json_int(j, rr->graph_recorded);
		else
			json_null(j);
		json_kint(j, "replays", rr->graph_replays);
		json_kstr(j, "why_not", rr->graph_why);
		json_end_obj(j);
	}
	json_end_obj(j);
}
