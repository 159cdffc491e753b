/* The program's entry: the command line (cli/), with the terminal UI (ui/) plugged in. */
#include "config.h"

#include <locale.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "ui/tui.h"

int main(int argc, char **argv)
{
	/* OpenBLAS starts worker threads when it is loaded, a core past the first, and they spin waiting for work (a
	 * quarter of the CPU time of opening a large model in the TUI).  It is loaded when the first product needs it
	 * (src/exec/cpu/cblas.c), and reads OPENBLAS_NUM_THREADS then: unless the user chose a thread count, one, so
	 * that viewing costs no extra CPU and `run` measures one core. */
	if (!getenv("OPENBLAS_NUM_THREADS") && !getenv("OMP_NUM_THREADS"))
		setenv("OPENBLAS_NUM_THREADS", "1", 1);
	setlocale(LC_CTYPE, ""); /* only character types: numbers stay "0.5" in every output */
	return cli_main(argc, argv, tui_main);
}
