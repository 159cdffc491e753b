/* The command-line subcommands (cli/<name>.c, one file each). Each takes the arguments after its name, writes
 * results to out and one-line errors to err ("onnxview: FILE: what is wrong"), and returns the process exit status
 * (see man/onnxview.1). The reports they print are rendered in src/report/ (shared with the TUI). */
#ifndef OV_CMD_H
#define OV_CMD_H

#include <stdio.h>

#include "src/base/opts.h"

int cmd_info(int argc, char **argv, FILE *out, FILE *err);
int cmd_dump(int argc, char **argv, FILE *out, FILE *err);
int cmd_edit(int argc, char **argv, FILE *out, FILE *err);
int cmd_check(int argc, char **argv, FILE *out, FILE *err);
int cmd_ops(int argc, char **argv, FILE *out, FILE *err);
int cmd_dot(int argc, char **argv, FILE *out, FILE *err);
int cmd_run(int argc, char **argv, FILE *out, FILE *err);
int cmd_compare(int argc, char **argv, FILE *out, FILE *err);

/* The one option of the one-model reports (info, dump, check): --json. */
extern const struct opt_spec cmd_json_opts[1];
#define CMD_MODEL_REPORT(cmd, text) \
	{.name = cmd, .usage = text, .opts = cmd_json_opts, .n_opts = 1, .pos_name = "model", .min_pos = 1, .max_pos = 1}
/* The arguments of the one-model reports: [--json] MODEL, or --help.  Returns -1 to go on with *path and *as_json
 * set; 0 after printing the help to out; or the usage error's exit status (2), printed to err (src/base/opts.h). */
int cmd_model_args(int argc, char **argv, const struct opt_cmd *c, const char **path, int *as_json, FILE *out,
		   FILE *err);

#endif
