/* `onnxview edit`: load a model, apply edit commands (the edit engine adds them), save it atomically. */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "src/cmd.h"
#include "src/model.h"
#include "src/save.h"

static const char edit_usage[] = "usage: onnxview edit MODEL -o OUT [--force]";

static int same_path(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cmd_edit(int argc, char **argv, FILE *out, FILE *err)
{
	const char *path = NULL, *dest = NULL;
	int force = 0, rc;
	struct ov_model *m;
	struct ov_error e = {0};

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (i + 1 >= argc)
				return cmd_usage_error(err, edit_usage, "edit: %s needs a file name", a);
			dest = argv[++i];
		} else if (!strcmp(a, "--force") || !strcmp(a, "-f")) {
			force = 1;
		} else if (!strcmp(a, "-e") || !strcmp(a, "-s")) {
			return cmd_usage_error(err, edit_usage, "edit: %s: this build has no edit commands yet; "
					       "'edit MODEL -o OUT' loads and saves", a);
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fprintf(out, "%s\n", edit_usage);
			return 0;
		} else if (a[0] == '-' && a[1]) {
			return cmd_usage_error(err, edit_usage, "edit: unknown option '%s'", a);
		} else if (path) {
			return cmd_usage_error(err, edit_usage, "edit: one model at a time ('%s' and '%s')", path, a);
		} else {
			path = a;
		}
	}
	if (!path)
		return cmd_usage_error(err, edit_usage, "edit: no model given");
	if (!dest)
		return cmd_usage_error(err, edit_usage, "edit: no output given (-o OUT; -o %s saves in place)", path);
	rc = cmd_load(path, &m, err);
	if (rc)
		return rc;
	/* Saving over the model itself is the explicit way to save in place. */
	unsigned flags = (force || same_path(path, dest)) ? OV_SAVE_REPLACE : 0;
	if (model_save(m, dest, flags, &e))
		rc = cmd_report(err, dest, &e);
	model_free(m);
	return rc;
}
