/* `onnxview check`: the arguments and the exit status (1 when an error is found); the report is src/report/check.c's. */
#include "config.h"

#include "cli/cmd.h"
#include "src/base/strbuf.h"
#include "src/check/check.h"
#include "src/model/model.h"
#include "src/report/report.h"

static const struct opt_cmd check_cmd = CMD_MODEL_REPORT("check", "usage: onnxview check [--json] MODEL");

int cmd_check(int argc, char **argv, FILE *out, FILE *err)
{
	const char *path;
	int as_json, rc = cmd_model_args(argc, argv, &check_cmd, &path, &as_json, out, err);
	struct ov_model *m;
	struct strbuf b = {0};
	struct diag_list l;
	struct ov_error e = {0};

	if (rc >= 0)
		return rc;
	rc = model_load_report(path, &m, err);
	if (rc)
		return rc;
	if (check_render(m, &b, as_json, &l, &e)) {
		rc = ov_error_report(err, path, &e);
	} else {
		fwrite(strbuf_str(&b), 1, b.len, out);
		rc = l.count[DIAG_ERROR] ? 1 : 0;
		diag_list_free(&l);
	}
	strbuf_free(&b);
	model_free(m);
	return rc;
}
