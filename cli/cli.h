/* The command line: dispatch to subcommands, or hand a model to the TUI. cli/main.c supplies the TUI entry, so
 * the core never depends on the UI. */
#ifndef OV_CLI_H
#define OV_CLI_H

#include <stdio.h>

#include "ui/tui.h" /* struct tui_options: what the command line hands the TUI */

typedef int (*tui_entry_fn)(const struct tui_options *opts);

/* Returns the exit status (0 ok, 1 problem found, 2 usage, 3 input unreadable). */
int cli_main(int argc, char **argv, tui_entry_fn tui);
void cli_print_version(FILE *out);
void cli_print_help(FILE *out);

#endif
