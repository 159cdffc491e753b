/* The program's entry: the command line (cli/), with the terminal UI (ui/) plugged in. */
#include "config.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "ui/tui.h"

int main(int argc, char **argv)
{
	/* OpenBLAS starts its worker threads when it is loaded, before main, and they spin waiting for work (a
	 * quarter of the CPU time of opening a large model in the TUI). Unless the user chose a thread count, the TUI,
	 * run and compare start again with one: viewing costs no extra CPU and `run` measures one core.  The short
	 * commands that never compute (info, dump, check, ops, edit, dot) are over before the threads matter, and a
	 * second start would cost them more than they take (7 of 14 ms for info on a 244 MB model). */
	int computes = argc < 2 || argv[1][0] == '-' || !strcmp(argv[1], "run") || !strcmp(argv[1], "compare") ||
		       (strcmp(argv[1], "info") && strcmp(argv[1], "dump") && strcmp(argv[1], "check") &&
			strcmp(argv[1], "ops") && strcmp(argv[1], "edit") && strcmp(argv[1], "dot"));
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--version") ||
			  !strcmp(argv[1], "-V")))
		computes = 0;
	if (computes && !getenv("OPENBLAS_NUM_THREADS") && !getenv("OMP_NUM_THREADS") &&
	    setenv("OPENBLAS_NUM_THREADS", "1", 1) == 0)
		execv("/proc/self/exe", argv); /* on failure (no /proc), carry on as we are */
	setlocale(LC_CTYPE, ""); /* only character types: numbers stay "0.5" in every output */
	return cli_main(argc, argv, tui_main);
}
