/* The program's entry: the command line in the core, with the terminal UI plugged in. */
#include "config.h"

#include <locale.h>
#include <stdlib.h>
#include <unistd.h>

#include "src/cli.h"
#include "ui/tui.h"

int main(int argc, char **argv)
{
	/* OpenBLAS starts its worker threads when it is loaded, before main, and they spin waiting for work (a
	 * quarter of the CPU time of opening a large model in the TUI). Unless the user chose a thread count, start
	 * again with one: viewing costs no extra CPU and `run` measures one core. */
	if (!getenv("OPENBLAS_NUM_THREADS") && !getenv("OMP_NUM_THREADS") && setenv("OPENBLAS_NUM_THREADS", "1", 1) == 0)
		execv("/proc/self/exe", argv); /* on failure (no /proc), carry on as we are */
	setlocale(LC_CTYPE, ""); /* only character types: numbers stay "0.5" in every output */
	return cli_main(argc, argv, tui_main);
}
