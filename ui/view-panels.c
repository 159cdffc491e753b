/* The text panels: node details, model information, node and initializer lists, diagnostics, the edit journal,
 * the op reference and the help screen. Each is a text view filled from the core. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/check/check.h"
#include "src/report/report.h"
#include "src/exec/device.h"
#include "ui/app.h"
#include "ui/commands.h"

/* Lines of the node panel that name another node ("from #3 ...", "to #5 ...") jump there. */
static int32_t *targets_from_refs(const char *text, size_t *n)
{
	size_t lines = 1, i = 0;

	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	int32_t *t = malloc(lines * sizeof *t);
	if (!t)
		return NULL;
	for (const char *p = text; i < lines; i++) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *hit = NULL;
		for (const char *q = p; q + 5 < p + len && !hit; q++)
			if ((!strncmp(q, "from #", 6) || !strncmp(q, "to #", 4) || !strncmp(q, "producer  #", 11)))
				hit = strchr(q, '#');
		t[i] = hit ? (int32_t)strtol(hit + 1, NULL, 10) : -1;
		if (!end)
			break;
		p = end + 1;
	}
	*n = lines;
	return t;
}

struct view *view_node_new(struct app *a, const struct graph *g, uint32_t node)
{
	struct strbuf b = {0};
	size_t n = 0, n_values = 0;
	int main_graph = g == app_graph(a);
	int32_t *values = NULL;

	if (main_graph)
		values = present_node_text_values(&b, a->m, g, app_shapes(a), node, &n_values);
	if (!values) {
		strbuf_reset(&b);
		present_node_text(&b, a->m, g, app_shapes(a), node);
	}
	/* Jumps work within the main graph only: a subgraph's #N means something else. */
	int32_t *t = main_graph ? targets_from_refs(strbuf_str(&b), &n) : NULL;
	/* On a constant's line Enter shows its values (a folded Constant's "from #N" would only lead back here). */
	for (size_t i = 0; t && values && i < n && i < n_values; i++)
		if (values[i] >= 0)
			t[i] = -1;
	char title[160];
	snprintf(title, sizeof title, "node #%u %s", node, present_node_op(g, node));
	struct view *v = view_text_new(title, strbuf_str(&b), t, n);
	if (v && values)
		view_text_set_values(v, values, n_values);
	free(t);
	free(values);
	strbuf_free(&b);
	return v;
}

struct view *view_model_new(struct app *a)
{
	struct strbuf b = {0};

	char cuda[512];

	info_render(a->m, &b, 0);
	/* where :run and :compare can run it */
	ov_cuda_describe(cuda, sizeof cuda);
	strbuf_printf(&b, "executors\n  cpu   built in (GEMM and convolution through CBLAS)\n  cuda  %s\n", cuda);
	struct view *v = view_text_new("model", strbuf_str(&b), NULL, 0);
	strbuf_free(&b);
	return v;
}

/* After :compare, each node's line starts with its mark (so f with the mark lists the nodes that differ). */
static void mark_lines(struct app *a, struct strbuf *b, const int32_t *targets, size_t n_targets)
{
	struct strbuf m = {0};
	const char *line = strbuf_str(b);
	const char *ok = a->opts.ascii ? "ok " : "\xe2\x9c\x93 ", *bad = a->opts.ascii ? "!! " : "\xe2\x9c\x97 ";

	for (size_t i = 0; *line; i++) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
		int mark = i < n_targets && targets[i] >= 0 ? app_node_mark(a, targets[i]) : 0;
		if (i > 0)
			strbuf_puts(&m, mark == COMPARE_MARK_MATCH ? ok : mark == COMPARE_MARK_DIFFER ? bad : "   ");
		strbuf_add(&m, line, len);
		line += len;
	}
	strbuf_free(b);
	*b = m;
}

struct view *view_nodes_new(struct app *a)
{
	struct strbuf b = {0};
	int32_t *t = present_node_list(&b, app_graph(a), app_shapes(a));
	if (t && a->marks)
		mark_lines(a, &b, t, app_graph(a)->n_nodes + 1);
	struct view *v = t ? view_text_new("nodes", strbuf_str(&b), t, app_graph(a)->n_nodes + 1) : NULL;

	free(t);
	strbuf_free(&b);
	return v;
}

struct view *view_initializers_new(struct app *a)
{
	struct strbuf b = {0};
	int32_t *values = NULL;
	int32_t *t = present_initializer_list(&b, a->m, app_graph(a), &values);
	struct view *v = t ? view_text_new("initializers", strbuf_str(&b), t, app_graph(a)->n_values + 1) : NULL;

	if (v && values)
		view_text_set_values(v, values, app_graph(a)->n_values + 1);
	free(t);
	free(values);
	strbuf_free(&b);
	return v;
}

struct view *view_diagnostics_new(struct app *a)
{
	struct strbuf b = {0};
	struct diag_list l;
	struct ov_error e;
	struct view *v;

	if (check_render(a->m, &b, 0, &l, &e)) {
		app_message(a, 1, "check: %s", e.msg);
		strbuf_free(&b);
		return NULL;
	}
	/* The report lists errors, then warnings, then infos; each diagnostic is one line plus an optional hint. */
	size_t cap = l.n * 2 + 4, line = 0;
	int32_t *t = malloc(cap * sizeof *t);
	for (int sev = DIAG_ERROR; t && sev <= DIAG_INFO; sev++)
		for (size_t i = 0; i < l.n; i++) {
			if ((int)l.d[i].severity != sev)
				continue;
			t[line++] = l.d[i].graph == app_graph(a) ? l.d[i].node : -1;
			if (l.d[i].hint)
				t[line++] = -1;
		}
	v = view_text_new("diagnostics", strbuf_str(&b), t, line);
	free(t);
	diag_list_free(&l);
	strbuf_free(&b);
	return v;
}

struct view *view_changes_new(struct app *a)
{
	struct strbuf b = {0};

	strbuf_printf(&b, "%zu change%s applied%s\n", a->ed->n_applied, a->ed->n_applied == 1 ? "" : "s",
		      a->ed->n_journal > a->ed->n_applied ? " (more undone: Ctrl-R redoes)" : "");
	for (size_t i = 0; i < a->ed->n_journal; i++)
		strbuf_printf(&b, "%3zu %s%s\n", i + 1, a->ed->journal[i].line, i < a->ed->n_applied ? "" : "  (undone)");
	struct view *v = view_text_new("changes", strbuf_str(&b), NULL, 0);
	strbuf_free(&b);
	return v;
}

struct view *view_reference_new(struct app *a, const char *domain, const char *op)
{
	struct strbuf b = {0};
	struct ov_error e;
	char title[160];

	if (ops_render(&b, domain, op, &e)) {
		app_message(a, 1, "op reference: %s", e.msg);
		strbuf_free(&b);
		return NULL;
	}
	snprintf(title, sizeof title, "reference %s", op);
	struct view *v = view_text_new(title, strbuf_str(&b), NULL, 0);
	strbuf_free(&b);
	return v;
}

struct view *view_help_new(struct app *a)
{
	struct strbuf b = {0};
	char keys[96];
	size_t n;
	const struct edit_cmd *const *cmds = edit_commands(&n);

	(void)a;
	strbuf_puts(&b, "onnxview keys (q or Esc closes this help)\n");
	for (int i = 1; i < ACT_COUNT; i++)
		strbuf_printf(&b, "  %-22s %-18s %s\n", keys_for_action((enum action)i, keys, sizeof keys),
			      action_name((enum action)i), action_help((enum action)i));
	strbuf_puts(&b, "\nCommand line (:)\n");
	size_t nt;
	const struct ui_command *tc = ui_commands(&nt);
	for (size_t i = 0; i < nt; i++)
		strbuf_printf(&b, "  :%-28s %s\n", tc[i].usage, tc[i].help);
	strbuf_puts(&b, "\nEdit commands (:, also onnxview edit -e)\n");
	for (size_t i = 0; i < n; i++)
		strbuf_printf(&b, "  :%-28s %s\n", cmds[i]->usage, cmds[i]->help);
	struct view *v = view_text_new("help", strbuf_str(&b), NULL, 0);
	strbuf_free(&b);
	return v;
}
