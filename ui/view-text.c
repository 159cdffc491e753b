/* A scrollable text view with a cursor line; a line may carry a jump target (a node of the main graph), which
 * Enter follows, and a constant value, whose tensor view T opens (Enter too, on lines without a target).
 * The node panel, model view, lists, diagnostics, changes and help are all text views. */
#include "config.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "ui/app.h"

struct text_view {
	char *text;      /* owned; lines point into it */
	char **lines;    /* the lines shown: all of them, or those the filter keeps */
	int32_t *targets;
	int32_t *values; /* a value id of the main graph per line (-1 none): T and Enter open its tensor view */
	size_t n;
	size_t top, cursor;
	size_t xoff;
	/* f: every line, with its target and value, while a filter shows some of them */
	char **all_lines;
	int32_t *all_targets, *all_values;
	size_t all_n;
	char filter[256];
};

static void text_free(struct view *v)
{
	struct text_view *t = v->data;

	if (t) {
		free(t->text);
		free(t->lines);
		free(t->targets);
		free(t->values);
		free(t->all_lines);
		free(t->all_targets);
		free(t->all_values);
		free(t);
	}
	free(v);
}

static void text_draw(struct app *a, struct view *v, int top, int rows, int cols)
{
	struct text_view *t = v->data;

	if (t->cursor >= t->n)
		t->cursor = t->n ? t->n - 1 : 0;
	if (t->cursor < t->top)
		t->top = t->cursor;
	if (rows > 0 && t->cursor >= t->top + (size_t)rows)
		t->top = t->cursor - (size_t)rows + 1;
	for (int r = 0; r < rows; r++) {
		size_t i = t->top + (size_t)r;
		if (i >= t->n)
			break;
		const char *line = t->lines[i];
		size_t skip = t->xoff;
		while (*line && skip) { /* horizontal scroll by code points */
			line++;
			while (((unsigned char)*line & 0xc0) == 0x80)
				line++;
			skip--;
		}
		int attr = 0;
		if (i == t->cursor)
			attr = ui_attr(a, UI_SELECTED) | A_REVERSE;
		else if (a->search[0] && strstr(t->lines[i], a->search))
			attr = ui_attr(a, UI_MATCH);
		else if (t->lines[i][0] && t->lines[i][0] != ' ' && !t->targets)
			attr = ui_attr(a, UI_HEADER);
		if (i == t->cursor) {
			attron(attr);
			mvhline(top + r, 0, ' ', cols);
			attroff(attr);
		}
		ui_text(top + r, 0, 0, cols, line, attr);
	}
}

/* Does line hold every term of the filter? A term in double quotes must be a whole word there. */
static int line_matches(const char *line, const char *filter)
{
	char term[256];
	const char *f = filter;

	while (*f) {
		while (*f == ' ')
			f++;
		if (!*f)
			break;
		int quoted = *f == '"';
		size_t n = 0;
		if (quoted)
			for (f++; *f && *f != '"' && n + 1 < sizeof term; f++)
				term[n++] = *f;
		else
			for (; *f && *f != ' ' && n + 1 < sizeof term; f++)
				term[n++] = *f;
		if (*f == '"')
			f++;
		term[n] = '\0';
		if (!n)
			continue;
		int found = 0;
		for (const char *p = strstr(line, term); p && !found; p = strstr(p + 1, term)) {
			if (!quoted) {
				found = 1;
				break;
			}
			char before = p > line ? p[-1] : ' ', after = p[n];
			found = (before == ' ' || before == '\t' || before == '\'' || before == '(') &&
				(!after || after == ' ' || after == '\t' || after == '\'' || after == ')' || after == ',');
		}
		if (!found)
			return 0;
	}
	return 1;
}

/* Show only the lines that match (and the first, the list's heading); an empty filter shows everything. */
static int apply_filter(struct text_view *t, const char *filter)
{
	if (!t->all_lines) { /* keep the full list once */
		t->all_lines = t->lines;
		t->all_targets = t->targets;
		t->all_values = t->values;
		t->all_n = t->n;
		t->lines = NULL;
		t->targets = t->values = NULL;
	}
	free(t->lines);
	free(t->targets);
	free(t->values);
	t->lines = malloc((t->all_n + 1) * sizeof *t->lines);
	t->targets = t->all_targets ? malloc((t->all_n + 1) * sizeof *t->targets) : NULL;
	t->values = t->all_values ? malloc((t->all_n + 1) * sizeof *t->values) : NULL;
	if (!t->lines || (t->all_targets && !t->targets) || (t->all_values && !t->values))
		return -1;
	snprintf(t->filter, sizeof t->filter, "%s", filter);
	t->n = 0;
	for (size_t i = 0; i < t->all_n; i++) {
		if (i > 0 && filter[0] && !line_matches(t->all_lines[i], filter))
			continue;
		t->lines[t->n] = t->all_lines[i];
		if (t->targets)
			t->targets[t->n] = t->all_targets[i];
		if (t->values)
			t->values[t->n] = t->all_values[i];
		t->n++;
	}
	t->top = t->cursor = 0;
	return 0;
}

static void prompt_filter(struct app *a, struct text_view *t)
{
	char *q = prompt_read(a, "filter: ", t->filter[0] ? t->filter : NULL, 0);

	if (!q)
		return;
	if (apply_filter(t, q)) {
		app_message(a, 1, "out of memory");
	} else if (q[0]) {
		app_message(a, 0, "%zu of %zu lines match '%s' (f, then an empty line, shows all)", t->n ? t->n - 1 : 0,
			    t->all_n ? t->all_n - 1 : 0, q);
		/* the cursor starts on the first match, not the heading */
		if (t->n > 1)
			t->cursor = 1;
	} else {
		app_message(a, 0, "every line shown");
	}
	free(q);
}

static int text_handle(struct app *a, struct view *v, enum action act, int key)
{
	struct text_view *t = v->data;
	size_t page = a->rows > 4 ? (size_t)a->rows - 3 : 1;

	(void)key;
	switch (act) {
	case ACT_MOVE_DOWN: if (t->cursor + 1 < t->n) t->cursor++; return 1;
	case ACT_MOVE_UP: if (t->cursor) t->cursor--; return 1;
	case ACT_SCROLL_DOWN: t->cursor = t->cursor + 3 < t->n ? t->cursor + 3 : (t->n ? t->n - 1 : 0); return 1;
	case ACT_SCROLL_UP: t->cursor = t->cursor > 3 ? t->cursor - 3 : 0; return 1;
	case ACT_PAGE_DOWN: t->cursor = t->cursor + page < t->n ? t->cursor + page : (t->n ? t->n - 1 : 0);
		t->top = t->cursor > page ? t->top + page : t->top; return 1;
	case ACT_PAGE_UP: t->cursor = t->cursor > page ? t->cursor - page : 0;
		t->top = t->top > page ? t->top - page : 0; return 1;
	case ACT_HOME: t->cursor = t->top = 0; return 1;
	case ACT_END: t->cursor = t->n ? t->n - 1 : 0; return 1;
	case ACT_MOVE_RIGHT: t->xoff += 8; return 1;
	case ACT_MOVE_LEFT: t->xoff = t->xoff > 8 ? t->xoff - 8 : 0; return 1;
	case ACT_FILTER: prompt_filter(a, t); return 1;
	case ACT_VIEW_TENSOR:
		if (t->values && t->cursor < t->n && t->values[t->cursor] >= 0)
			app_push(a, view_tensor_new(a, app_graph(a), t->values[t->cursor]));
		else if (t->values)
			app_message(a, 1, "no constant on this line");
		return t->values != NULL;
	case ACT_ENTER:
		if (t->values && t->cursor < t->n && t->values[t->cursor] >= 0 &&
		    !(t->targets && t->targets[t->cursor] >= 0)) {
			app_push(a, view_tensor_new(a, app_graph(a), t->values[t->cursor]));
			return 1;
		}
		if (t->targets && t->cursor < t->n && t->targets[t->cursor] >= 0) {
			int32_t node = t->targets[t->cursor];
			app_goto_node(a, node);
			return 1;
		}
		return 1;
	default:
		return 0;
	}
}

static int text_search(struct app *a, struct view *v, const char *q, int dir)
{
	struct text_view *t = v->data;

	(void)a;
	for (size_t k = 1; k <= t->n; k++) {
		size_t i = dir > 0 ? (t->cursor + k) % t->n : (t->cursor + t->n - k % t->n) % t->n;
		if (strstr(t->lines[i], q)) {
			t->cursor = i;
			return 0;
		}
	}
	return -1;
}

static const struct view_ops text_ops = {
	.name = "text",
	.draw = text_draw,
	.handle = text_handle,
	.search = text_search,
	.free = text_free,
};

struct view *view_text_new(const char *title, const char *text, const int32_t *targets, size_t n_targets)
{
	struct view *v = calloc(1, sizeof *v);
	struct text_view *t = calloc(1, sizeof *t);
	size_t cap = 64;

	if (!v || !t || !(t->text = strdup(text)) || !(t->lines = malloc(cap * sizeof *t->lines))) {
		if (t) {
			free(t->text);
			free(t);
		}
		free(v);
		return NULL;
	}
	for (char *s = t->text; *s || !t->n;) {
		if (t->n == cap) {
			char **nl = realloc(t->lines, (cap *= 2) * sizeof *nl);
			if (!nl)
				break;
			t->lines = nl;
		}
		t->lines[t->n++] = s;
		char *nl = strchr(s, '\n');
		if (!nl)
			break;
		*nl = '\0';
		s = nl + 1;
		if (!*s)
			break;
	}
	if (targets) {
		t->targets = malloc((t->n ? t->n : 1) * sizeof *t->targets);
		for (size_t i = 0; t->targets && i < t->n; i++)
			t->targets[i] = i < n_targets ? targets[i] : -1;
	}
	v->ops = &text_ops;
	v->data = t;
	snprintf(v->title, sizeof v->title, "%s", title);
	return v;
}

void view_text_set_values(struct view *v, const int32_t *values, size_t n)
{
	struct text_view *t = v->data;

	free(t->values);
	t->values = malloc((t->n ? t->n : 1) * sizeof *t->values);
	for (size_t i = 0; t->values && i < t->n; i++)
		t->values[i] = i < n ? values[i] : -1;
}
