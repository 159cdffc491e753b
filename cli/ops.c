/* `onnxview ops`: spoken the same on the command line and at the TUI's prompt, so its arguments are read by the
 * report itself (src/report/ops.c). */
#include "config.h"

#include "cli/cmd.h"
#include "src/report/report.h"

int cmd_ops(int argc, char **argv, FILE *out, FILE *err)
{
	return ops_report(argc, argv, out, err);
}
