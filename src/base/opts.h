/* One option parser for every command: each command declares its options in a table (name, alias, whether it
 * takes a value, whether it may repeat, the values it accepts, a line of help), and the parser reads argv against
 * it, so usage errors are worded the same way for all of them.  The command line (cli/) uses it through
 * opt_parse_cli; the commands the TUI speaks with the same arguments (compare, ops, run in src/report/ and
 * src/exec/session.c) call opt_parse and get the error as one line.
 *
 * What is accepted: `--name VALUE` and `--name=VALUE` for options that take a value, `-x VALUE` for a one-letter
 * alias, flags alone; `--help`/`-h` anywhere; `--` ends the options (what follows is positional even when it starts
 * with '-'); a lone `-` is positional.  An option that does not repeat may be given once.
 *
 * Usage errors (the message of an OV_USAGE error, always "CMD: ..."):
 *   CMD: unknown option '--x'
 *   CMD: --x needs a value (--x ARG)
 *   CMD: --x takes no value ('--x=3')
 *   CMD: --x is given twice ('a' and 'b')
 *   CMD: --x is A or B, not 'v'                      (a value outside .choices)
 *   CMD: no MODEL given / CMD: one MODEL at a time ('a' and 'b') / CMD: at most 2 MODELs ('a', 'b', 'c') */
#ifndef OV_BASE_OPTS_H
#define OV_BASE_OPTS_H

#include <stddef.h>
#include <stdio.h>

#include "src/base/error.h"

#define OPT_MAX 32 /* options per command */

enum opt_flags {
	OPT_REPEAT = 1, /* may be given more than once: every value is kept, in order */
};

struct opt_spec {
	const char *name;    /* "--input" (or a one-letter "-o") */
	const char *alias;   /* a second spelling ("-o" beside "--output"), or NULL */
	const char *arg;     /* the value's placeholder in help and messages ("NAME=FILE"); NULL: a flag */
	unsigned flags;      /* enum opt_flags */
	const char *choices; /* "cpu|cuda": the only values accepted, or NULL for any */
	const char *help;    /* one line */
};

struct opt_cmd {
	const char *name;           /* "run": the prefix of every message ("" for the program itself: none) */
	const char *usage;          /* printed after a usage error and first by --help ("usage: onnxview run ...") */
	const struct opt_spec *opts;
	size_t n_opts;              /* at most OPT_MAX */
	const char *pos_name;       /* what positional arguments are ("model", "operator"); NULL: none accepted */
	int min_pos, max_pos;       /* how many */
	void (*more_help)(FILE *out); /* printed after the options by --help, or NULL */
};

/* One argument as read: an option (its index in the table, and its value or NULL) or a positional argument
 * (opt -1). The strings are argv's. */
struct opt_hit {
	int opt;
	char *val;
};

struct opt_parsed {
	struct opt_hit *hit;   /* every option and positional argument, in command-line order */
	size_t n;
	char *pos[8];          /* the positional arguments */
	int n_pos;
	int count[OPT_MAX];    /* how often each option was given */
	char *last[OPT_MAX];   /* its last value (NULL for a flag or when not given) */
	int help;              /* --help was asked */
};

/* Read argv (the arguments after the command's name) against c.  0: parsed (p->help set when --help was asked;
 * nothing else is checked then); -1: a usage error, with e set (OV_USAGE).  Free p with opt_free either way. */
int opt_parse(const struct opt_cmd *c, int argc, char **argv, struct opt_parsed *p, struct ov_error *e);
void opt_free(struct opt_parsed *p);
/* The usage, then every option with its help, then c->more_help. */
void opt_print_help(const struct opt_cmd *c, FILE *out);
/* For the command line: opt_parse, and then -1 to go on, 0 after printing the help to out (exit 0), or 2 after
 * printing "onnxview: MESSAGE" and the usage to err (exit 2). */
int opt_parse_cli(const struct opt_cmd *c, int argc, char **argv, struct opt_parsed *p, FILE *out, FILE *err);
/* A usage error found by the command itself, worded and printed as the parser's are; returns 2. */
int opt_usage_error(const struct opt_cmd *c, FILE *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same into an error (OV_USAGE, "CMD: ..."); returns -1. */
int opt_fail(const struct opt_cmd *c, struct ov_error *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static inline int opt_given(const struct opt_parsed *p, int opt)
{
	return p->count[opt] > 0;
}

/* The value of an option that does not repeat (NULL when not given). */
static inline const char *opt_value(const struct opt_parsed *p, int opt)
{
	return p->last[opt];
}

/* The values of a repeatable option, in order: up to max of them into out; returns how many were given. */
size_t opt_values(const struct opt_parsed *p, int opt, const char **out, size_t max);

#endif
