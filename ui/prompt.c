/* The command line at the bottom of the screen: editing keys, history, and Tab completion of command names
 * (first word) and of node and value names (later words). */
#include "config.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "ui/app.h"
#include "ui/commands.h"

#define PROMPT_MAX 1024

static void history_add(struct app *a, const char *line)
{
	if (!*line || (a->n_history && !strcmp(a->history[a->n_history - 1], line)))
		return;
	if (a->n_history == (int)(sizeof a->history / sizeof a->history[0])) {
		free(a->history[0]);
		memmove(a->history, a->history + 1, (size_t)(a->n_history - 1) * sizeof *a->history);
		a->n_history--;
	}
	a->history[a->n_history] = strdup(line);
	if (a->history[a->n_history])
		a->n_history++;
}

/* The candidates of an ambiguous completion, shown on the row above the prompt until the next key. */
static char listing[1024];

static void listing_add(size_t *used, const char *name, size_t *shown)
{
	size_t l = strlen(name);

	if (*used + l + 3 >= sizeof listing)
		return;
	memcpy(listing + *used, name, l);
	*used += l;
	listing[(*used)++] = ' ';
	listing[(*used)++] = ' ';
	listing[*used] = '\0';
	(*shown)++;
}

/* The candidates of one Tab: the longest common prefix of all of them (kept in its own buffer, since a candidate
 * may be a temporary word), how many there are, and on a second pass the listing. */
struct cands {
	struct app *a;
	size_t wl;             /* what is typed of the word */
	char best[512];
	size_t best_len, matches;
	int list;              /* the second pass: add each to the listing */
	size_t used;
};

static void consider(void *ctx, const char *c)
{
	struct cands *k = ctx;
	size_t l = strlen(c);

	if (k->list) {
		if ((int)k->used < k->a->cols) {
			size_t shown = 0;
			listing_add(&k->used, c, &shown);
		}
		return;
	}
	if (!k->matches++) {
		k->best_len = l < sizeof k->best - 1 ? l : sizeof k->best - 1;
		memcpy(k->best, c, k->best_len);
		k->best[k->best_len] = '\0';
		return;
	}
	size_t i = 0;
	while (i < k->best_len && c[i] == k->best[i])
		i++;
	k->best_len = i;
}

/* What may follow the words typed: the edit engine's candidates by argument kind for an edit command (nodes,
 * values, constants, inputs, dtypes, attribute names, op types: src/edit/edit.h), command names for the first
 * word, and node and value names after a TUI command (:run, :compare...). */
static void candidates(struct app *a, const char *line, const char *word, size_t wl, struct cands *k)
{
	size_t n;
	int first_word = 1;
	char name[64];

	for (const char *p = line; p < word; p++)
		if (*p != ' ')
			first_word = 0;
	if (first_word) {
		edit_complete(a->ed, line, consider, k);
		const struct ui_command *tc = ui_commands(&n);
		for (size_t i = 0; i < n; i++)
			if (!strncmp(tc[i].name, word, wl))
				consider(k, tc[i].name);
		return;
	}
	if (sscanf(line, " %63s", name) == 1 && edit_find_cmd(name)) {
		edit_complete(a->ed, line, consider, k);
		return;
	}
	const struct graph *g = app_graph(a);
	for (uint32_t i = 0; g && i < g->n_values; i++)
		if (g->values[i].name && !strncmp(g->values[i].name, word, wl))
			consider(k, g->values[i].name);
	for (uint32_t i = 0; g && i < g->n_nodes; i++) {
		const char *nm = present_node_name(g, i);
		if (nm && !strncmp(nm, word, wl))
			consider(k, nm);
	}
}

/* Tab: complete the word being typed as far as every candidate agrees (and a space after the only one); when
 * that adds nothing and there are several, list them above the prompt. */
static size_t complete(struct app *a, char *buf, size_t len, size_t cap)
{
	size_t start = len;

	while (start > 0 && buf[start - 1] != ' ')
		start--;
	buf[len] = '\0';
	struct cands k = {.a = a, .wl = len - start};
	candidates(a, buf, buf + start, len - start, &k);
	if (!k.matches || k.best_len <= k.wl) {
		if (k.matches > 1) { /* list them: as many as fit, after how many there are */
			k.used = (size_t)snprintf(listing, sizeof listing, "%zu names: ", k.matches);
			k.list = 1;
			candidates(a, buf, buf + start, len - start, &k);
		}
		return len;
	}
	size_t add = k.best_len - k.wl;
	if (len + add + 1 >= cap)
		return len;
	memcpy(buf + len, k.best + k.wl, add);
	len += add;
	if (k.matches == 1 && len + 2 < cap)
		buf[len++] = ' ';
	buf[len] = '\0';
	return len;
}

char *prompt_read(struct app *a, const char *label, const char *prefill, int complete_names)
{
	char buf[PROMPT_MAX];
	size_t len = 0, cur;
	int hist = a->n_history;

	buf[0] = '\0';
	if (prefill) {
		snprintf(buf, sizeof buf, "%s", prefill);
		len = strlen(buf);
	}
	cur = len;
	curs_set(1);
	a->in_prompt = 1;
	for (;;) {
		int y = a->rows - 1, lw = (int)strlen(label);
		move(y, 0);
		clrtoeol();
		mvaddstr(y, 0, label);
		/* Scroll the text so the cursor stays visible. */
		int avail = a->cols - lw - 1;
		size_t off = avail > 0 && cur > (size_t)avail ? cur - (size_t)avail : 0;
		mvaddnstr(y, lw, buf + off, avail > 0 ? avail : 0);
		if (listing[0] && y > 0) { /* the candidates of the last Tab */
			move(y - 1, 0);
			clrtoeol();
			ui_text(y - 1, 0, 0, a->cols, listing, ui_attr(a, UI_STATUS));
			listing[0] = '\0';
		}
		move(y, lw + (int)(cur - off));
		refresh();
		int c = app_getkey(a);
		if (c == ERR || c == 27) { /* Esc, or a test script that ran out */
			curs_set(0);
			a->in_prompt = 0;
			return NULL;
		}
		if (c == '\n' || c == '\r' || c == KEY_ENTER)
			break;
		if (c == KEY_BACKSPACE || c == 127 || c == 8) {
			if (cur) {
				memmove(buf + cur - 1, buf + cur, len - cur + 1);
				cur--, len--;
			} else if (!len) {
				curs_set(0);
				a->in_prompt = 0;
				return NULL; /* backspace on an empty line leaves it, as in vim */
			}
		} else if (c == KEY_DC) {
			if (cur < len) {
				memmove(buf + cur, buf + cur + 1, len - cur);
				len--;
			}
		} else if (c == KEY_LEFT) {
			if (cur)
				cur--;
		} else if (c == KEY_RIGHT) {
			if (cur < len)
				cur++;
		} else if (c == KEY_HOME || c == ('a' & 0x1f)) {
			cur = 0;
		} else if (c == KEY_END || c == ('e' & 0x1f)) {
			cur = len;
		} else if (c == ('u' & 0x1f)) {
			memmove(buf, buf + cur, len - cur + 1);
			len -= cur;
			cur = 0;
		} else if (c == KEY_UP || c == KEY_DOWN) {
			hist += c == KEY_UP ? -1 : 1;
			if (hist < 0)
				hist = 0;
			if (hist >= a->n_history) {
				hist = a->n_history;
				buf[0] = '\0';
			} else
				snprintf(buf, sizeof buf, "%s", a->history[hist]);
			cur = len = strlen(buf);
		} else if (c == '\t') {
			if (complete_names && cur == len)
				cur = len = complete(a, buf, len, sizeof buf);
		} else if (c >= 32 && c < 256 && c != 127 && len + 1 < sizeof buf) {
			memmove(buf + cur + 1, buf + cur, len - cur + 1);
			buf[cur++] = (char)c;
			len++;
		}
	}
	curs_set(0);
	a->in_prompt = 0;
	if (complete_names)
		history_add(a, buf);
	return strdup(buf);
}
