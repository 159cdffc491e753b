/* Running and comparing from the TUI: `:run [OPTIONS]` and R (run up to the selected node) keep every value of the
 * run so v shows any node's output in the tensor view; `:compare OTHER|--vs B|--against DIR` marks every compared
 * node in the graph (match or differ) and jumps to the first node whose output differs.  The model run is the one
 * in memory, edits included.  Results and marks describe the model as it was: an edit clears them. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/report/report.h"
#include "src/base/dtype.h"
#include "src/exec/session.h"
#include "src/graph/shape-rules.h"
#include "src/model/tensorfile.h"
#include "ui/app.h"

#define MAX_ARGS 256

static void run_with(struct app *a, const char *args, const char *show, int keep);

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

/* ---- dims the run cannot resolve ----
 *
 * The TUI asks for them once, prefilled with the declared shape; the answer becomes run's own --shape NAME=DIMS
 * words, which the core resolves and checks against the model (src/exec/feed.h) as for `onnxview run`. */

/* The graph inputs (main graph) that have a dim neither a number nor given by --input in args, as
 * "NAME=D1xD2x..." words with the declared dims (symbols kept) for the prompt to prefill; "" when none. */
static void unresolved_inputs(struct app *a, const struct graph *g, const char *args, struct strbuf *out)
{
	const struct shapes *sh = app_shapes(a);

	for (uint32_t v = 0; v < g->n_values; v++) {
		const struct graph_value *val = &g->values[v];
		if (val->origin != VALUE_INPUT)
			continue;
		char given[600];
		snprintf(given, sizeof given, "--input %s=", val->name);
		if (strstr(args, given))
			continue;
		snprintf(given, sizeof given, "--shape %s=", val->name);
		if (strstr(args, given))
			continue;
		const struct vshape *vs = sh ? shapes_get(sh, g, (int32_t)v) : NULL;
		int open = vs && vs->rank > 0;
		for (int d = 0; open && d < vs->rank; d++)
			open = vs->dims[d].v != DIM_UNKNOWN;
		if (!vs || vs->rank <= 0 || open)
			continue;
		strbuf_printf(out, "%s%s=", out->len ? " " : "", val->name);
		for (int d = 0; d < vs->rank; d++) {
			strbuf_puts(out, d ? "x" : "");
			if (vs->dims[d].v != DIM_UNKNOWN)
				strbuf_printf(out, "%lld", (long long)vs->dims[d].v);
			else
				strbuf_puts(out, vs->dims[d].sym ? vs->dims[d].sym : "?");
		}
	}
}

/* Before a :run: the dims it cannot resolve, asked once (prefilled with the declared shape) and remembered for the
 * next runs; each becomes --shape NAME=DIMS in out (the core checks it).  -1 when the user cancelled or an answer
 * was not NAME=DIMS words. */
static int ask_dims(struct app *a, const struct graph *g, const char *args, struct strbuf *out)
{
	struct strbuf need = {0};

	unresolved_inputs(a, g, args, &need);
	if (!need.len) {
		strbuf_free(&need);
		return 0;
	}
	char *answer = a->run_dims ? strdup(a->run_dims) : prompt_read(a, "dims to run with: ", strbuf_str(&need), 0);
	strbuf_free(&need);
	if (!answer) {
		app_message(a, 1, "not run: the inputs have dims the model leaves open (give them, or --input NAME=FILE)");
		return -1;
	}
	char *save = NULL;
	int rc = 0;
	char *copy = strdup(answer);
	for (char *w = copy ? strtok_r(copy, " ", &save) : NULL; w && !rc; w = strtok_r(NULL, " ", &save)) {
		const char *eq = strrchr(w, '=');
		if (!eq || eq == w || strchr(w, '"')) {
			app_message(a, 1, "'%s': give NAME=DIMS (x=1x3x224x224)", w);
			rc = -1;
			break;
		}
		strbuf_printf(out, " --shape \"%s\"", w);
	}
	if (!copy)
		rc = -1;
	free(copy);
	if (rc) {
		free(a->run_dims); /* a wrong answer is asked again next time */
		a->run_dims = NULL;
		free(answer);
	} else {
		free(a->run_dims);
		a->run_dims = answer;
	}
	return rc;
}

/* After a :run: what gave its inputs (its --input words, the files made for asked dims among them), so that R
 * runs on the same inputs.  Inputs without --input are generated the same way each time (feed_generate gives
 * each name its own stream), so the words are all it takes. */
static void keep_inputs(struct app *a, const char *args)
{
	struct strbuf words = {0};
	char *copy = strdup(args);
	char *argv[MAX_ARGS];
	int argc = copy ? split_words(copy, argv, MAX_ARGS) : 0;

	for (int i = 0; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--input") || !strcmp(argv[i], "--shape") || !strcmp(argv[i], "--dim")) {
			strbuf_printf(&words, " %s \"%s\"", argv[i], argv[i + 1]);
			i++;
		}
	free(copy);
	free(a->run_inputs);
	a->run_inputs = words.len && !words.failed ? strdup(strbuf_str(&words)) : NULL;
	strbuf_free(&words);
}

void app_run(struct app *a, const char *args, const char *show)
{
	struct strbuf full = {0};
	const struct graph *g0 = app_graph(a);
	int from_key = show != NULL; /* R: the inputs of the last :run */

	strbuf_puts(&full, args ? args : "");
	if (g0 && from_key && a->run_inputs && !strstr(args ? args : "", "--input"))
		strbuf_puts(&full, a->run_inputs); /* the inputs of the last :run */
	else if (g0 && ask_dims(a, g0, strbuf_str(&full), &full)) {
		strbuf_free(&full);
		return;
	}
	run_with(a, strbuf_str(&full), show, !from_key);
	strbuf_free(&full);
}

static void run_with(struct app *a, const char *args, const char *show, int keep)
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
		if (keep)
			keep_inputs(a, args);
		struct view *tv = show ? view_tensor_result(a, show) : NULL;
		app_push(a, tv ? tv : view_text_new("run", strbuf_str(&report), NULL, 0));
		if (strstr(strbuf_str(&report), "\nFAIL '"))
			app_message(a, 1, "ran %u node%s: some values differ from what --expect gave (see the report)",
				    a->run.nodes_run, a->run.nodes_run == 1 ? "" : "s");
		else
			app_message(a, 0, "ran %u node%s in %.1f ms%s; v on a node shows its output, Esc goes back",
				    a->run.nodes_run, a->run.nodes_run == 1 ? "" : "s", a->run.ms,
				    !keep && a->run_inputs && strstr(args, a->run_inputs) ? " on the last :run's inputs" : "");
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
