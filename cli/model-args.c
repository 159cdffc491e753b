/* The arguments shared by the one-model reports (info, dump, check): [--json] MODEL, or --help. */
#include "config.h"

#include <string.h>

#include "cli/cmd.h"
#include "src/base/error.h"

int cmd_model_args(int argc, char **argv, const char *name, const char *usage, const char **path, int *as_json,
		   FILE *out, FILE *err)
{
	*path = NULL;
	*as_json = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			*as_json = 1;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fprintf(out, "%s\n", usage);
			return -1;
		} else if (argv[i][0] == '-' && argv[i][1])
			return ov_usage_error(err, usage, "%s: unknown option '%s'", name, argv[i]);
		else if (*path)
			return ov_usage_error(err, usage, "%s: one model at a time ('%s' and '%s')", name, *path, argv[i]);
		else
			*path = argv[i];
	}
	if (!*path)
		return ov_usage_error(err, usage, "%s: no model given", name);
	return 0;
}
