/* The command line: dispatch to subcommands, or hand a model to the TUI. ui/main.c supplies the TUI entry, so
 * the core never depends on the UI. */
#ifndef OV_CLI_H
#define OV_CLI_H

#include <stdio.h>

struct tui_options {
	const char *path;
	int ascii;    /* --ascii: no box-drawing characters */
	int no_color; /* --no-color (NO_COLOR in the environment does the same) */
	int no_mouse; /* --no-mouse */
	/* headless runs, for tests and scripted screenshots */
	const char *keys; /* --keys FILE: read keys from FILE instead of the terminal */
	const char *dump; /* --dump FILE: write the screen there when the keys run out (and at <Dump>) */
	int cols, rows;   /* --size COLSxROWS of the headless screen (default 80x24) */
};

typedef int (*tui_entry_fn)(const struct tui_options *opts);

/* Returns the exit status (0 ok, 1 problem found, 2 usage, 3 input unreadable). */
int cli_main(int argc, char **argv, tui_entry_fn tui);
void cli_print_version(FILE *out);
void cli_print_help(FILE *out);

#endif
