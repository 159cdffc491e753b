/* A run for front ends (the TUI's :run and R key): the model as it is in memory, a cut, inputs from files or
 * generators (random when not named), every intermediate kept so any value can be looked at afterwards, and a
 * short text report. */
#ifndef OV_RUN_SESSION_H
#define OV_RUN_SESSION_H

#include "src/exec/exec.h"
#include "src/graph/graph.h"
#include "src/model/model.h"
#include "src/graph/shape.h"
#include "src/base/strbuf.h"

/* argv: run's options --input [NAME=]SPEC, --shape NAME=DxD.., --dim SYMBOL=N, --to T,.., --from T,..,
 * --expect NAME=FILE, --backend cpu|cuda, --tf32, --rtol/--atol/--strict (the comparison rule of --expect,
 * src/exec/exec.h), read by the shared option parser (src/base/opts.h; the lists are split in place).  An input no
 * --input names is random (an unnamed generator, --input zeros, fills them all instead); shapes the model leaves
 * open come from --shape/--dim (feed_resolve_inputs in src/exec/feed.h says which before a run).  On
 * success (0) *out holds every value computed (exec_result_free it) and report the text; otherwise the exit
 * status of the failure, with err set.  consts (or NULL) keeps g's constants from one run to the next, on the
 * device too (src/exec/exec.h). */
int run_session(struct ov_model *m, const struct graph *g, struct shapes *sh, int argc, char **argv,
		struct exec_result *out, struct strbuf *report, struct exec_consts *consts, struct ov_error *err);
/* The value called name in a result, or NULL. */
const struct xtensor *run_session_value(const struct exec_result *r, const char *name);

#endif
