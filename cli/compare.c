/* `onnxview compare`: spoken the same on the command line and at the TUI's prompt, so its arguments are read by the
 * report itself (src/report/compare.c). */
#include "config.h"

#include "cli/cmd.h"
#include "src/report/report.h"

int cmd_compare(int argc, char **argv, FILE *out, FILE *err)
{
	return compare_report(argc, argv, out, err);
}
