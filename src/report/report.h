/* The reports behind `info`, `dump`, `check`, `ops` and `compare`, rendered once for every front end: the command
 * line (cli/) prints them, the TUI (ui/) shows them in its panels.  Text goes into a strbuf; nothing here prints
 * to the terminal except the *_report functions, which write to the FILEs their caller gives. */
#ifndef OV_REPORT_H
#define OV_REPORT_H

#include <stdint.h>
#include <stdio.h>

struct ov_model;
struct ov_error;
struct strbuf;
struct diag_list;
struct shapes;
struct graph;
struct exec_result;
struct exec_consts;
struct exec_node_time;
struct json;

/* `info` and `dump`. */
void info_render(struct ov_model *m, struct strbuf *b, int as_json);
void dump_render(struct ov_model *m, struct strbuf *b, int as_json);

/* `check`; with out non-NULL the diagnostics are handed over (free with diag_list_free). */
int check_render(struct ov_model *m, struct strbuf *b, int as_json, struct diag_list *out, struct ov_error *err);

/* The text `ops OP` prints, for front ends; domain "" or NULL for ai.onnx. */
int ops_render(struct strbuf *b, const char *domain, const char *op, struct ov_error *err);
/* `ops` as spoken on the command line (the arguments after "ops"): the report to out, errors to err; returns the
 * exit status. */
int ops_report(int argc, char **argv, FILE *out, FILE *err);

/* `compare` for front ends: side A is a model already loaded (possibly edited in memory; label names it), argv
 * holds compare's arguments after MODEL (modified: --to/--from lists are split in place).  The text report goes
 * to report; marks (one per node of g) get COMPARE_MARK_MATCH or COMPARE_MARK_DIFFER for every node whose outputs
 * were compared; *first_node the first diverging node (-1 when none).  With keep_a/keep_b non-NULL, the values of
 * both runs are handed over there (exec_result_free them; B's are those whose names A's graph has, named by g).
 * consts (or NULL) keeps the constants of g from one call to the next (src/exec/exec.h).
 * Returns 0 (all match), 1 (some differ), or the exit status of a failure with err set (one line). */
enum { COMPARE_MARK_NONE, COMPARE_MARK_MATCH, COMPARE_MARK_DIFFER };
int compare_render(struct ov_model *m, const struct graph *g, struct shapes *sh, const char *label, int argc,
		   char **argv, struct strbuf *report, uint8_t *marks, int32_t *first_node, struct exec_result *keep_a,
		   struct exec_result *keep_b, struct exec_consts *consts, struct ov_error *err);
/* `compare` as spoken on the command line (the arguments after "compare"): both sides loaded, run and compared,
 * the report (text or --json) to out, errors to err; returns the exit status (0 all match, 1 some differ). */
int compare_report(int argc, char **argv, FILE *out, FILE *err);

/* run --profile: a profiled run's node times (exec_result.prof, of run number run) by op, costliest first (the
 * device's time where known, else the host's), then the slowest nodes; as text, or as the "profile" member of a JSON
 * report (every node). */
void profile_text(struct strbuf *b, const struct graph *g, const struct exec_node_time *t, size_t n, long run);
void profile_json(struct json *j, const struct graph *g, const struct exec_node_time *t, size_t n, long run);

#endif
