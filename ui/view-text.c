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
	char **lines;
	int32_t *targets;
	int32_t *values; /* a value id of the main graph per line (-1 none): T and Enter open its tensor view */
	size_t n;
	size_t top, cursor;
	size_t xoff;
};

static void text_free(struct view *v)
{
	struct text_view *t = v->data;

	if (t) {
		free(t->text);
		free(t->lines);
		free(t->targets);
		free(t->values);
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

static int text_handle(struct app *a, struct view *v, enum action act, int key)
{
	struct text_view *t = v->data;
	size_t page = a->rows > 4 ? (size_t)a->rows - 3 : 1;

	(void)key;
	switch (act) {
	case ACT_MOVE_DOWN: if (t->cursor + 1 < t->n) t->cursor++; return 1;
	case ACT_MOVE_UP: if (t->cursor) t->cursor--; return 1;
	case ACT_PAGE_DOWN: t->cursor = t->cursor + page < t->n ? t->cursor + page : (t->n ? t->n - 1 : 0);
		t->top = t->cursor > page ? t->top + page : t->top; return 1;
	case ACT_PAGE_UP: t->cursor = t->cursor > page ? t->cursor - page : 0;
		t->top = t->top > page ? t->top - page : 0; return 1;
	case ACT_HOME: t->cursor = t->top = 0; return 1;
	case ACT_END: t->cursor = t->n ? t->n - 1 : 0; return 1;
	case ACT_MOVE_RIGHT: t->xoff += 8; return 1;
	case ACT_MOVE_LEFT: t->xoff = t->xoff > 8 ? t->xoff - 8 : 0; return 1;
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

static const struct view_ops text_ops = {"text", text_draw, text_handle, NULL, text_search, text_free};

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
