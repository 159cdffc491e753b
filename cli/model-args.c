/* The arguments shared by the one-model reports (info, dump, check): [--json] MODEL, or --help. */
#include "config.h"

#include "cli/cmd.h"

const struct opt_spec cmd_json_opts[] = {
	{.name = "--json", .help = "the report as JSON"},
};

int cmd_model_args(int argc, char **argv, const struct opt_cmd *c, const char **path, int *as_json, FILE *out,
		   FILE *err)
{
	struct opt_parsed p;
	int rc = opt_parse_cli(c, argc, argv, &p, out, err);

	*path = p.n_pos ? p.pos[0] : NULL;
	*as_json = opt_given(&p, 0);
	opt_free(&p);
	return rc;
}
