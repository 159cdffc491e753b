/* The command-line subcommands (cli/<name>.c, one file each). Each takes the arguments after its name, writes
 * results to out and one-line errors to err ("onnxview: FILE: what is wrong"), and returns the process exit status
 * (see man/onnxview.1). The reports they print are rendered in src/report/ (shared with the TUI). */
#ifndef OV_CMD_H
#define OV_CMD_H

#include <stdio.h>

int cmd_info(int argc, char **argv, FILE *out, FILE *err);
int cmd_dump(int argc, char **argv, FILE *out, FILE *err);
int cmd_edit(int argc, char **argv, FILE *out, FILE *err);
int cmd_check(int argc, char **argv, FILE *out, FILE *err);
int cmd_ops(int argc, char **argv, FILE *out, FILE *err);
int cmd_dot(int argc, char **argv, FILE *out, FILE *err);
int cmd_run(int argc, char **argv, FILE *out, FILE *err);
int cmd_compare(int argc, char **argv, FILE *out, FILE *err);

/* The arguments of the one-model reports (info, dump, check): [--json] MODEL, or --help.  Returns 0 with *path
 * and *as_json set; -1 after printing the usage to out (--help: exit 0); or the usage error's exit status. */
int cmd_model_args(int argc, char **argv, const char *name, const char *usage, const char **path, int *as_json,
		   FILE *out, FILE *err);

#endif
