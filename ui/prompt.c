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

/* Candidates for the word being typed: command names, or names of nodes and values. */
static size_t complete(struct app *a, char *buf, size_t len, size_t cap)
{
	size_t start = len;
	const char *best = NULL;
	size_t best_len = 0, matches = 0;

	while (start > 0 && buf[start - 1] != ' ')
		start--;
	const char *word = buf + start;
	size_t wl = len - start;
	int first_word = 1;
	for (size_t i = 0; i < start; i++)
		if (buf[i] != ' ')
			first_word = 0;
	/* Longest common prefix of all candidates. */
#define CONSIDER(name)                                                                                 \
	do {                                                                                           \
		const char *c_ = (name);                                                               \
		if (c_ && !strncmp(c_, word, wl)) {                                                    \
			if (!best) {                                                                   \
				best = c_;                                                             \
				best_len = strlen(c_);                                                 \
			} else {                                                                       \
				size_t k_ = 0;                                                         \
				while (k_ < best_len && c_[k_] == best[k_])                            \
					k_++;                                                          \
				best_len = k_;                                                         \
			}                                                                              \
			matches++;                                                                     \
		}                                                                                      \
	} while (0)
	if (first_word) {
		size_t n;
		const struct edit_cmd *const *cmds = edit_commands(&n);
		for (size_t i = 0; i < n; i++)
			CONSIDER(cmds[i]->name);
		const struct ui_command *tc = ui_commands(&n);
		for (size_t i = 0; i < n; i++)
			CONSIDER(tc[i].name);
	} else {
		const struct graph *g = app_graph(a);
		for (uint32_t i = 0; g && i < g->n_values && matches < 100000; i++)
			CONSIDER(g->values[i].name);
		for (uint32_t i = 0; g && i < g->n_nodes; i++)
			CONSIDER(present_node_name(g, i));
	}
#undef CONSIDER
	if (!best || best_len <= wl) {
		if (matches > 1) { /* list them: as many as fit, after how many there are */
			size_t used = 0, shown = 0;
			used = (size_t)snprintf(listing, sizeof listing, "%zu names: ", matches);
#define LIST(name)                                                                                     \
	do {                                                                                           \
		const char *l_ = (name);                                                               \
		if (l_ && !strncmp(l_, word, wl) && (int)used < a->cols)                               \
			listing_add(&used, l_, &shown);                                                \
	} while (0)
			if (first_word) {
				size_t n;
				const struct edit_cmd *const *cmds = edit_commands(&n);
				for (size_t i = 0; i < n; i++)
					LIST(cmds[i]->name);
				const struct ui_command *tc = ui_commands(&n);
				for (size_t i = 0; i < n; i++)
					LIST(tc[i].name);
			} else {
				const struct graph *g = app_graph(a);
				for (uint32_t i = 0; g && i < g->n_values && (int)used < a->cols; i++)
					LIST(g->values[i].name);
				for (uint32_t i = 0; g && i < g->n_nodes && (int)used < a->cols; i++)
					LIST(present_node_name(g, i));
			}
#undef LIST
			(void)shown;
		}
		return len;
	}
	size_t add = best_len - wl;
	if (len + add + 1 >= cap)
		return len;
	memcpy(buf + len, best + wl, add);
	len += add;
	if (matches == 1 && len + 2 < cap)
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
