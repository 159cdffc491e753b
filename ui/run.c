/* Running and comparing from the TUI: `:run [OPTIONS]` and R (run up to the selected node) keep every value of the
 * run so v shows any node's output in the tensor view; `:compare OTHER|--vs B|--against DIR` marks every compared
 * node in the graph (match or differ) and jumps to the first node whose output differs.  The model run is the one
 * in memory, edits included.  Results and marks describe the model as it was: an edit clears them. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/report/report.h"
#include "src/exec/session.h"
#include "ui/app.h"

#define MAX_ARGS 256

/* Words of a command line; "double quotes" keep spaces (for names that have them). Returns the count. */
static int split_words(char *s, char **argv, int max)
{
	int n = 0;

	while (*s && n < max) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		char *w = s, *o = s;
		int quoted = 0;
		for (; *s && (quoted || (*s != ' ' && *s != '\t')); s++) {
			if (*s == '"')
				quoted = !quoted;
			else
				*o++ = *s;
		}
		if (*s)
			s++;
		*o = '\0';
		argv[n++] = w;
	}
	return n;
}

void app_clear_results(struct app *a)
{
	exec_result_free(&a->run);
	a->have_run = 0;
	exec_result_free(&a->run_b);
	a->have_run_b = 0;
	free(a->marks);
	a->marks = NULL;
	a->n_marks = 0;
}

/* The kept constants, made at the first run (NULL when out of memory: runs then convert their own). */
static struct exec_consts *app_consts(struct app *a)
{
	if (!a->consts)
		a->consts = exec_consts_new();
	return a->consts;
}

void app_run(struct app *a, const char *args, const char *show)
{
	char *copy = strdup(args ? args : "");
	char *argv[MAX_ARGS];
	struct strbuf report = {0};
	struct ov_error e = {0};
	const struct graph *g = app_graph(a);

	if (!copy || !g) {
		free(copy);
		app_message(a, 1, "out of memory");
		return;
	}
	int argc = split_words(copy, argv, MAX_ARGS);
	exec_result_free(&a->run);
	a->have_run = 0;
	exec_result_free(&a->run_b); /* a plain run has no side B */
	a->have_run_b = 0;
	int rc = run_session(a->m, g, (struct shapes *)app_shapes(a), argc, argv, &a->run, &report, app_consts(a), &e);
	if (rc) {
		app_message(a, 1, "%s", e.msg);
	} else {
		a->have_run = 1;
		struct view *tv = show ? view_tensor_result(a, show) : NULL;
		app_push(a, tv ? tv : view_text_new("run", strbuf_str(&report), NULL, 0));
		if (strstr(strbuf_str(&report), "\nFAIL '"))
			app_message(a, 1, "ran %u node%s: some values differ from what --expect gave (see the report)",
				    a->run.nodes_run, a->run.nodes_run == 1 ? "" : "s");
		else
			app_message(a, 0, "ran %u node%s in %.1f ms; v on a node shows its output, Esc goes back",
				    a->run.nodes_run, a->run.nodes_run == 1 ? "" : "s", a->run.ms);
	}
	strbuf_free(&report);
	free(copy);
}

void app_compare(struct app *a, const char *args)
{
	char *copy = strdup(args ? args : "");
	char *argv[MAX_ARGS];
	struct strbuf report = {0};
	struct ov_error e = {0};
	const struct graph *g = app_graph(a);
	int32_t first = -1;

	if (!copy || !g) {
		free(copy);
		app_message(a, 1, "out of memory");
		return;
	}
	int argc = split_words(copy, argv, MAX_ARGS);
	uint8_t *marks = calloc(g->n_nodes + 1, 1);
	if (!marks) {
		free(copy);
		app_message(a, 1, "out of memory");
		return;
	}
	struct exec_result ra = {0}, rb = {0};
	int rc = compare_render(a->m, g, (struct shapes *)app_shapes(a), a->ed->modified ? "(edited in memory)" : a->file,
				argc, argv, &report, marks, &first, &ra, &rb, app_consts(a), &e);
	if (rc > 1) {
		app_message(a, 1, "%s", e.msg);
		free(marks);
	} else {
		/* both sides' values stay for v (side A) and V (A - B) */
		app_clear_results(a);
		a->run = ra;
		a->run_b = rb;
		a->have_run = a->have_run_b = 1;
		free(a->marks);
		a->marks = marks;
		a->n_marks = g->n_nodes;
		if (first >= 0)
			app_goto_node(a, first);
		/* Enter on the "first divergence" line jumps to that node */
		const char *text = strbuf_str(&report), *at = strstr(text, "\nfirst divergence: ");
		size_t line = 0;
		for (const char *c = text; at && c <= at; c++)
			line += *c == '\n';
		int32_t *targets = calloc(line + 1, sizeof *targets);
		for (size_t i = 0; targets && i <= line; i++)
			targets[i] = i == line && at ? first : -1;
		app_push(a, view_text_new("compare", text, targets, targets ? line + 1 : 0));
		free(targets);
		if (first >= 0)
			app_message(a, 0, "first divergence: node #%d (marked in the graph; Esc goes back to it)", first);
		else
			app_message(a, 0, "no divergence: every compared value is within tolerance");
	}
	strbuf_free(&report);
	free(copy);
}

int app_node_mark(const struct app *a, int32_t node)
{
	return a->marks && node >= 0 && (uint32_t)node < a->n_marks ? a->marks[node] : 0;
}
