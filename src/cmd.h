/* The command-line subcommands. Each takes the arguments after its name, writes results to out and one-line
 * errors to err ("onnxview: FILE: what is wrong"), and returns the process exit status (see man/onnxview.1). */
#ifndef OV_CMD_H
#define OV_CMD_H

#include <stdint.h>
#include <stdio.h>

struct ov_model;
struct ov_error;
struct strbuf;

int cmd_info(int argc, char **argv, FILE *out, FILE *err);
int cmd_dump(int argc, char **argv, FILE *out, FILE *err);
int cmd_edit(int argc, char **argv, FILE *out, FILE *err);
int cmd_check(int argc, char **argv, FILE *out, FILE *err);
int cmd_ops(int argc, char **argv, FILE *out, FILE *err);
int cmd_dot(int argc, char **argv, FILE *out, FILE *err);
int cmd_run(int argc, char **argv, FILE *out, FILE *err);
int cmd_compare(int argc, char **argv, FILE *out, FILE *err);

/* The reports behind `info` and `dump`, for any front end (the TUI shows them too). */
void info_render(struct ov_model *m, struct strbuf *b, int as_json);
void dump_render(struct ov_model *m, struct strbuf *b, int as_json);
/* The report behind `check`; with out non-NULL the diagnostics are handed over (free with diag_list_free). */
struct diag_list;
int check_render(struct ov_model *m, struct strbuf *b, int as_json, struct diag_list *out, struct ov_error *err);

/* `compare` for front ends: side A is a model already loaded (possibly edited in memory; label names it), argv
 * holds compare's arguments after MODEL (modified: --to/--from lists are split in place).  The text report goes
 * to report; marks (one per node of g) get COMPARE_MARK_MATCH or COMPARE_MARK_DIFFER for every node whose outputs
 * were compared; *first_node the first diverging node (-1 when none).  With keep_a/keep_b non-NULL, the values of
 * both runs are handed over there (exec_result_free them; B's are those whose names A's graph has, named by g).
 * consts (or NULL) keeps the constants of g from one call to the next (src/exec/exec.h).
 * Returns 0 (all match), 1 (some differ), or the exit status of a failure with err set (one line). */
enum { COMPARE_MARK_NONE, COMPARE_MARK_MATCH, COMPARE_MARK_DIFFER };
struct shapes;
struct graph;
struct exec_result;
struct exec_consts;
int compare_render(struct ov_model *m, const struct graph *g, struct shapes *sh, const char *label, int argc,
		   char **argv, struct strbuf *report, uint8_t *marks, int32_t *first_node, struct exec_result *keep_a,
		   struct exec_result *keep_b, struct exec_consts *consts, struct ov_error *err);

/* The text `ops OP` prints, for front ends; domain "" or NULL for ai.onnx. */
int ops_render(struct strbuf *b, const char *domain, const char *op, struct ov_error *err);

/* Shared by the commands: load path, or print the error line and return the exit status (non-zero). */
int cmd_load(const char *path, struct ov_model **m, FILE *err);
/* Print "onnxview: what: message" and return the exit status for the error's code. */
int cmd_report(FILE *err, const char *what, const struct ov_error *e);
/* Print "onnxview: message" plus a usage hint; returns 2. */
int cmd_usage_error(FILE *err, const char *usage, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
