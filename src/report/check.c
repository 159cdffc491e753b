/* `onnxview check`: the model's diagnostics, errors first, as text or JSON; exit 1 when there is an error. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/check/check.h"
#include "src/report/report.h"
#include "src/base/json.h"
#include "src/model/model.h"
#include "src/graph/opdb.h"
#include "src/base/strbuf.h"


int check_render(struct ov_model *m, struct strbuf *b, int as_json, struct diag_list *out_list,
		 struct ov_error *err)
{
	struct graph *g = NULL;
	struct shapes *sh = NULL;
	struct diag_list l = {0};
	struct ov_error dberr;
	struct opdb *db = opdb_default(&dberr);
	int rc = -1;

	if (graph_build(&g, m->proto->graph, err) || shape_infer(&sh, m, g, err) ||
	    check_model(m, g, sh, db, &l, err))
		goto out;
	if (as_json) {
		struct json j;
		json_init(&j, b, 1);
		json_obj(&j);
		json_kstr(&j, "file", m->path);
		json_kint(&j, "errors", (int64_t)l.count[DIAG_ERROR]);
		json_kint(&j, "warnings", (int64_t)l.count[DIAG_WARNING]);
		json_kint(&j, "infos", (int64_t)l.count[DIAG_INFO]);
		json_key(&j, "diagnostics");
		json_arr(&j);
		for (int sev = DIAG_ERROR; sev <= DIAG_INFO; sev++)
			for (size_t i = 0; i < l.n; i++) {
				const struct diag *d = &l.d[i];
				if ((int)d->severity != sev)
					continue;
				json_obj(&j);
				json_kstr(&j, "severity", diag_severity_name(d->severity));
				json_kstr(&j, "code", diag_code_name(d->code));
				json_kstr(&j, "where", d->where);
				json_key(&j, "node");
				if (d->node >= 0)
					json_int(&j, d->node);
				else
					json_null(&j);
				json_kstr(&j, "node_desc", d->node_desc);
				json_kstr(&j, "value", d->value);
				json_kstr(&j, "message", d->message);
				json_kstr(&j, "hint", d->hint);
				json_end_obj(&j);
			}
		json_end_arr(&j);
		json_end_obj(&j);
		strbuf_putc(b, '\n');
	} else {
		if (!db)
			strbuf_printf(b, "note: %s\n", dberr.msg);
		for (int sev = DIAG_ERROR; sev <= DIAG_INFO; sev++)
			for (size_t i = 0; i < l.n; i++) {
				const struct diag *d = &l.d[i];
				if ((int)d->severity != sev)
					continue;
				strbuf_printf(b, "%-8s %-21s %s", diag_severity_name(d->severity), diag_code_name(d->code),
					      d->where);
				if (d->node_desc)
					strbuf_printf(b, "%s: ", d->node_desc);
				strbuf_printf(b, "%s\n", d->message);
				if (d->hint)
					strbuf_printf(b, "%31shint: %s\n", "", d->hint);
			}
		strbuf_printf(b, "%zu error%s, %zu warning%s, %zu info%s\n", l.count[DIAG_ERROR],
			      l.count[DIAG_ERROR] == 1 ? "" : "s", l.count[DIAG_WARNING],
			      l.count[DIAG_WARNING] == 1 ? "" : "s", l.count[DIAG_INFO], l.count[DIAG_INFO] == 1 ? "" : "s");
	}
	rc = 0;
out:
	if (out_list && rc == 0)
		*out_list = l;
	else
		diag_list_free(&l);
	shapes_free(sh);
	graph_free(g);
	return rc;
}

