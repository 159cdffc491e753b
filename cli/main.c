/* The program's entry: the command line (cli/), with the terminal UI (ui/) plugged in. */
#include "config.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "ui/tui.h"

/* OpenBLAS's (when the CBLAS linked is OpenBLAS built with its own threads; weak: absent elsewhere) */
extern void openblas_set_num_threads(int) __attribute__((weak));
extern int blas_thread_shutdown_(void) __attribute__((weak));

int main(int argc, char **argv)
{
	/* OpenBLAS starts its worker threads when it is loaded, before main, and they spin waiting for work (a
	 * quarter of the CPU time of opening a large model in the TUI; for a tenth of a second each, one a core).
	 * Unless the user chose a thread count, the TUI, run and compare go on with one: viewing costs no extra CPU
	 * and `run` measures one core.  OpenBLAS is told so and its threads are stopped here (it runs its products in
	 * the calling thread from then on); where it cannot be (another CBLAS that still reads the variable at load),
	 * the program starts itself again with OPENBLAS_NUM_THREADS=1, which costs a second start (5 of the 14 ms of
	 * `run` on a small model).  The short commands that never compute (info, dump, check, ops, edit, dot) are
	 * over before the threads matter. */
	int computes = argc < 2 || argv[1][0] == '-' || !strcmp(argv[1], "run") || !strcmp(argv[1], "compare") ||
		       (strcmp(argv[1], "info") && strcmp(argv[1], "dump") && strcmp(argv[1], "check") &&
			strcmp(argv[1], "ops") && strcmp(argv[1], "edit") && strcmp(argv[1], "dot"));
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--version") ||
			  !strcmp(argv[1], "-V")))
		computes = 0;
	if (computes && !getenv("OPENBLAS_NUM_THREADS") && !getenv("OMP_NUM_THREADS")) {
		if (openblas_set_num_threads && blas_thread_shutdown_) {
			openblas_set_num_threads(1);
			blas_thread_shutdown_();
		} else if (setenv("OPENBLAS_NUM_THREADS", "1", 1) == 0) {
			execv("/proc/self/exe", argv); /* on failure (no /proc), carry on as we are */
		}
	}
	setlocale(LC_CTYPE, ""); /* only character types: numbers stay "0.5" in every output */
	return cli_main(argc, argv, tui_main);
}
