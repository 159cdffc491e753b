/* `onnxview dump`: the arguments; the report itself is src/report/dump.c's. */
#include "config.h"

#include "cli/cmd.h"
#include "src/base/strbuf.h"
#include "src/model/model.h"
#include "src/report/report.h"

static const struct opt_cmd dump_cmd = CMD_MODEL_REPORT("dump", "usage: onnxview dump [--json] MODEL");

int cmd_dump(int argc, char **argv, FILE *out, FILE *err)
{
	const char *path;
	int as_json, rc = cmd_model_args(argc, argv, &dump_cmd, &path, &as_json, out, err);
	struct ov_model *m;
	struct strbuf b = {0};

	if (rc >= 0)
		return rc;
	rc = model_load_report(path, &m, err);
	if (rc)
		return rc;
	dump_render(m, &b, as_json);
	fwrite(strbuf_str(&b), 1, b.len, out);
	strbuf_free(&b);
	model_free(m);
	return 0;
}
