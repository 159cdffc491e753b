/* run --repeat N: the same cut run again in the same process, its constants kept from the first run (and on the
 * device, for a device backend), so the later runs measure the model's own work; the report gives the first run's
 * time, the warm runs' median and minimum, what a warm run copies to and from the device, and whether every run
 * gave the first run's bits (a nondeterministic kernel, or a device value read before it was written, shows up
 * here). */
#ifndef OV_RUN_REPEAT_H
#define OV_RUN_REPEAT_H

#include <stdint.h>

#include "src/exec/exec.h"

struct json;
struct strbuf;

/* The most runs --repeat takes. */
#define RUN_REPEAT_MAX 100000

struct run_repeat {
	long runs;                     /* as asked, >= 1 (the first included) */
	double first_ms;               /* the first run's node time */
	double median_ms, min_ms;      /* of runs 2..N (when runs > 1) */
	uint64_t to_device, to_device_bytes, to_host, to_host_bytes; /* the last run's copies */
	long differing_run;            /* 0: every run gave the first run's bits; else the first one that did not */
	const char *differing_value;   /* and its first value that differs (a name of the graph) */
	struct exec_node_time *prof;   /* with opt->profile: the last run's node times (the caller frees them) */
	size_t n_prof;
	/* graph replay (exec_result.graph): the run recorded (0: none), how many later runs were launches of its graph,
	 * and why a run was not recorded or replayed (the last reason given; NULL: none asked for) */
	long graph_recorded;
	long graph_replays;
	const char *graph_why;
};

/* Run the cut rr->runs - 1 more times after first (the first run's result, made with the same opt, whose consts
 * the first run filled) and fill rr.  0, or -1 with err naming the run that failed. */
int run_repeat(struct ov_model *m, const struct graph *g, const struct exec_options *opt, const struct exec_input *in,
	       size_t n_in, const struct exec_result *first, struct run_repeat *rr, struct ov_error *err);
/* "repeat: ..." lines for run's text report, and the "repeat" member of its JSON report. */
void run_repeat_text(struct strbuf *b, const struct run_repeat *rr);
void run_repeat_json(struct json *j, const struct run_repeat *rr);

#endif
