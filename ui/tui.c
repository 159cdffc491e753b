/* The terminal UI, first cut: the model's summary and full node dump in a scrollable, searchable pager.
 * (The graph view, node panel and editing arrive with the TUI issue; this screen already opens any model,
 * over SSH, at 80x24 and up, and always gives the terminal back.) */
#include "config.h"

#include <curses.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/cmd.h"
#include "src/error.h"
#include "src/model.h"
#include "src/strbuf.h"
#include "ui/tui.h"

struct pager {
	char **lines;
	size_t n;
	size_t top;
	char search[128];
	const char *title;
	char status[256];
	int color;
};

static volatile sig_atomic_t in_curses;

/* Give the terminal back before dying from a crash signal. */
static void crash_handler(int sig)
{
	if (in_curses)
		endwin();
	signal(sig, SIG_DFL);
	raise(sig);
}

static int split_lines(struct pager *p, char *text)
{
	size_t cap = 256;

	p->lines = malloc(cap * sizeof *p->lines);
	if (!p->lines)
		return -1;
	for (char *s = text; *s;) {
		char *nl = strchr(s, '\n');
		if (p->n == cap) {
			char **nlines = realloc(p->lines, (cap *= 2) * sizeof *nlines);
			if (!nlines)
				return -1;
			p->lines = nlines;
		}
		p->lines[p->n++] = s;
		if (!nl)
			break;
		*nl = '\0';
		s = nl + 1;
	}
	return 0;
}

static void draw(struct pager *p)
{
	int rows, cols;

	getmaxyx(stdscr, rows, cols);
	erase();
	if (p->color)
		attron(COLOR_PAIR(1));
	attron(A_REVERSE);
	mvhline(0, 0, ' ', cols);
	mvprintw(0, 0, " onnxview  %.*s", cols > 12 ? cols - 12 : 0, p->title);
	attroff(A_REVERSE);
	if (p->color)
		attroff(COLOR_PAIR(1));
	for (int r = 1; r < rows - 1; r++) {
		size_t i = p->top + (size_t)(r - 1);
		if (i >= p->n)
			break;
		const char *line = p->lines[i];
		int hit = p->search[0] && strstr(line, p->search);
		if (hit)
			attron(A_BOLD);
		mvaddnstr(r, 0, line, cols);
		if (hit)
			attroff(A_BOLD);
	}
	attron(A_REVERSE);
	mvhline(rows - 1, 0, ' ', cols);
	if (p->status[0])
		mvaddnstr(rows - 1, 0, p->status, cols);
	else
		mvprintw(rows - 1, 0, " %zu-%zu/%zu  q quit  j/k scroll  PgUp/PgDn  g/G top/end  / search  n next",
			 p->n ? p->top + 1 : 0, p->top + (size_t)rows - 2 < p->n ? p->top + (size_t)rows - 2 : p->n, p->n);
	attroff(A_REVERSE);
	refresh();
}

static void search_next(struct pager *p, size_t from)
{
	for (size_t i = from; i < p->n; i++)
		if (strstr(p->lines[i], p->search)) {
			p->top = i;
			p->status[0] = '\0';
			return;
		}
	snprintf(p->status, sizeof p->status, " not found: %s", p->search);
}

static void prompt_search(struct pager *p)
{
	int rows = getmaxy(stdscr);

	move(rows - 1, 0);
	clrtoeol();
	mvaddstr(rows - 1, 0, "/");
	echo();
	curs_set(1);
	getnstr(p->search, (int)sizeof p->search - 1);
	noecho();
	curs_set(0);
	if (p->search[0])
		search_next(p, p->top + 1 < p->n ? p->top + 1 : 0);
}

static void run_pager(struct pager *p)
{
	for (;;) {
		int rows = getmaxy(stdscr), page = rows > 3 ? rows - 2 : 1;
		size_t max_top = p->n > (size_t)page ? p->n - (size_t)page : 0;
		draw(p);
		int c = getch();
		p->status[0] = '\0';
		switch (c) {
		case 'q': case 27: return;
		case 'j': case KEY_DOWN: case '\n': if (p->top < max_top) p->top++; break;
		case 'k': case KEY_UP: if (p->top) p->top--; break;
		case ' ': case KEY_NPAGE: case 'f' & 0x1f: p->top = p->top + (size_t)page < max_top ? p->top + (size_t)page : max_top; break;
		case 'b': case KEY_PPAGE: case 'b' & 0x1f: p->top = p->top > (size_t)page ? p->top - (size_t)page : 0; break;
		case 'g': case KEY_HOME: p->top = 0; break;
		case 'G': case KEY_END: p->top = max_top; break;
		case '/': prompt_search(p); break;
		case 'n': if (p->search[0]) search_next(p, p->top + 1); break;
		case KEY_RESIZE: break;
		default: break;
		}
		if (p->top > max_top)
			p->top = max_top;
	}
}

int tui_main(const struct tui_options *opts)
{
	struct ov_model *m;
	struct strbuf text = {0};
	struct pager p = {0};
	int rc = cmd_load(opts->path, &m, stderr);

	if (rc)
		return rc;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "onnxview: the terminal UI needs a terminal; for text use 'onnxview info' or "
				"'onnxview dump'\n");
		model_free(m);
		return 2;
	}
	info_render(m, &text, 0);
	strbuf_puts(&text, "\n");
	dump_render(m, &text, 0);
	if (text.failed || split_lines(&p, text.s ? text.s : (char *)"")) {
		fprintf(stderr, "onnxview: %s: out of memory\n", opts->path);
		strbuf_free(&text);
		model_free(m);
		return 3;
	}
	p.title = opts->path;
	signal(SIGSEGV, crash_handler);
	signal(SIGABRT, crash_handler);
	signal(SIGBUS, crash_handler);
	signal(SIGFPE, crash_handler);
	if (!getenv("ESCDELAY"))
		set_escdelay(25); /* Esc quits at once, not after ncurses' default second */
	initscr();
	in_curses = 1;
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	if (has_colors() && !opts->no_color && !getenv("NO_COLOR")) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_CYAN, -1);
		p.color = 1;
	}
	run_pager(&p);
	endwin();
	in_curses = 0;
	free(p.lines);
	strbuf_free(&text);
	model_free(m);
	return 0;
}
