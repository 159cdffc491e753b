/* `onnxview info`: the arguments; the report itself is src/report/info.c's. */
#include "config.h"

#include "cli/cmd.h"
#include "src/base/strbuf.h"
#include "src/model/model.h"
#include "src/report/report.h"

static const struct opt_cmd info_cmd = CMD_MODEL_REPORT("info", "usage: onnxview info [--json] MODEL");

int cmd_info(int argc, char **argv, FILE *out, FILE *err)
{
	const char *path;
	int as_json, rc = cmd_model_args(argc, argv, &info_cmd, &path, &as_json, out, err);
	struct ov_model *m;
	struct strbuf b = {0};

	if (rc >= 0)
		return rc;
	rc = model_load_report(path, &m, err);
	if (rc)
		return rc;
	info_render(m, &b, as_json);
	fwrite(strbuf_str(&b), 1, b.len, out);
	strbuf_free(&b);
	model_free(m);
	return 0;
}
