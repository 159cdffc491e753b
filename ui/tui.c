/* The terminal UI: terminal setup and restore, the event loop, the view stack, the command line's TUI commands,
 * and the headless mode the tests drive (--keys FILE, --dump FILE, --size COLSxROWS). */
#include "config.h"

#include <curses.h>
#include <dirent.h>
#include <errno.h>
#include <langinfo.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "src/report/report.h"
#include "src/model/model.h"
#include "src/model/save.h"
#include "ui/app.h"
#include "ui/tui.h"

static volatile sig_atomic_t in_curses;

/* Give the terminal back before dying from a crash signal. */
static void crash_handler(int sig)
{
	if (in_curses)
		endwin();
	signal(sig, SIG_DFL);
	raise(sig);
}

void app_message(struct app *a, int error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->message, sizeof a->message, fmt, ap);
	va_end(ap);
	a->message_error = error;
}

int app_push(struct app *a, struct view *v)
{
	if (!v)
		return -1;
	if (a->n_views == APP_MAX_VIEWS) {
		v->ops->free(v);
		app_message(a, 1, "too many panels open: close some with Esc");
		return -1;
	}
	a->views[a->n_views++] = v;
	return 0;
}

void app_pop(struct app *a)
{
	if (a->n_views > 1) {
		struct view *v = a->views[--a->n_views];
		v->ops->free(v);
	}
}

struct view *app_top(struct app *a)
{
	return a->views[a->n_views - 1];
}

const struct graph *app_graph(struct app *a)
{
	struct ov_error e;

	if (edit_index(a->ed, &e)) {
		app_message(a, 1, "%s", e.msg);
		return NULL;
	}
	return a->ed->g;
}

const struct shapes *app_shapes(struct app *a)
{
	return app_graph(a) ? a->ed->sh : NULL;
}

void app_model_changed(struct app *a)
{
	app_clear_results(a); /* values and marks describe the model before the change */
	exec_consts_free(a->consts); /* and its constants (a new index would replace them at the next run anyway) */
	a->consts = NULL;
	for (int i = 0; i < a->n_views; i++) {
		struct view *v = a->views[i];
		if (v->ops->reload && v->ops->reload(a, v)) {
			/* The view cannot follow the change: close it and everything above it. */
			while (a->n_views > i && a->n_views > 1)
				app_pop(a);
			break;
		}
	}
	/* Panels showing text of the old model close; the graph views refreshed above stay. */
	while (a->n_views > 1 && !app_top(a)->ops->reload)
		app_pop(a);
}

/* ---- keys: the terminal, or a script ---- */

static const struct {
	const char *name;
	int key;
} key_names[] = {
	{"Enter", '\n'}, {"Esc", 27}, {"Tab", '\t'}, {"Up", KEY_UP}, {"Down", KEY_DOWN}, {"Left", KEY_LEFT},
	{"Right", KEY_RIGHT}, {"PgDn", KEY_NPAGE}, {"PgUp", KEY_PPAGE}, {"Home", KEY_HOME}, {"End", KEY_END},
	{"BS", KEY_BACKSPACE}, {"Del", KEY_DC}, {"Space", ' '}, {"lt", '<'}, {"F1", KEY_F(1)},
};

#define KEY_SCRIPT_RESIZE 0x40000000 /* followed by cols and rows in the next two slots */
#define KEY_SCRIPT_DUMP 0x40000001   /* write the screen to --dump now (keeps going) */

static int parse_keys(struct app *a, const char *path, struct ov_error *err)
{
	FILE *f = fopen(path, "r");
	size_t cap = 256;
	int c;

	if (!f)
		return ov_fail(err, OV_IO, "%s: cannot open: %s", path, strerror(errno));
	a->keys = malloc(cap * sizeof *a->keys);
	while (a->keys && (c = fgetc(f)) != EOF) {
		if (a->n_keys + 3 >= cap) {
			int *nk = realloc(a->keys, (cap *= 2) * sizeof *nk);
			if (!nk)
				break;
			a->keys = nk;
		}
		if (c == '\n' || c == '\r')
			continue; /* newlines only lay the script out; <Enter> is a key */
		if (c != '<') {
			a->keys[a->n_keys++] = c;
			continue;
		}
		char tok[64];
		size_t n = 0;
		while ((c = fgetc(f)) != EOF && c != '>' && n + 1 < sizeof tok)
			tok[n++] = (char)c;
		tok[n] = '\0';
		int cols, rows, found = 0;
		if (sscanf(tok, "Resize %dx%d", &cols, &rows) == 2 && cols > 0 && rows > 0 && cols < 2000 && rows < 1000) {
			a->keys[a->n_keys++] = KEY_SCRIPT_RESIZE;
			a->keys[a->n_keys++] = cols;
			a->keys[a->n_keys++] = rows;
			continue;
		}
		if (!strcmp(tok, "Dump")) {
			a->keys[a->n_keys++] = KEY_SCRIPT_DUMP;
			continue;
		}
		if (tok[0] == 'C' && tok[1] == '-' && tok[2] && !tok[3]) {
			a->keys[a->n_keys++] = tok[2] & 0x1f;
			continue;
		}
		for (size_t k = 0; k < sizeof key_names / sizeof key_names[0]; k++)
			if (!strcmp(key_names[k].name, tok)) {
				a->keys[a->n_keys++] = key_names[k].key;
				found = 1;
			}
		if (!found) {
			fclose(f);
			return ov_fail(err, OV_USAGE, "%s: unknown key <%s>", path, tok);
		}
	}
	fclose(f);
	return a->keys ? 0 : ov_fail(err, OV_NOMEM, "out of memory");
}


int app_getkey(struct app *a)
{
	if (!a->headless) {
		int c = getch();
		if (c == KEY_RESIZE) {
			getmaxyx(stdscr, a->rows, a->cols);
		}
		return c;
	}
	for (;;) {
		if (a->next_key >= a->n_keys) {
			/* A script that ends in the prompt: the screen it leaves is the prompt (completion, prefill). */
			if (a->in_prompt && a->dump_path && !a->dumped_at_end) {
				app_dump_screen(a, a->dump_path);
				a->dumped_at_end = 1;
			}
			return ERR;
		}
		int c = a->keys[a->next_key++];
		if (c == KEY_SCRIPT_RESIZE && a->next_key + 2 <= a->n_keys) {
			int cols = a->keys[a->next_key++], rows = a->keys[a->next_key++];
			resizeterm(rows, cols);
			a->rows = rows;
			a->cols = cols;
			return KEY_RESIZE;
		}
		if (c == KEY_SCRIPT_DUMP) {
			if (!a->in_prompt) /* a prompt is on screen as it is: keep it */
				app_draw(a);
			if (a->dump_path)
				app_dump_screen(a, a->dump_path);
			continue;
		}
		return c;
	}
}

int app_dump_screen(struct app *a, const char *path)
{
	FILE *f = fopen(path, "w");
	cchar_t cells[1024];
	char line[8192];

	if (!f)
		return -1;
	for (int y = 0; y < a->rows; y++) {
		/* Read the cells back as characters (box drawing included) in the locale's encoding; trailing blanks are
		 * dropped so dumps diff cleanly. */
		int n = a->cols < 1024 ? a->cols : 1024;
		size_t len = 0;
		mbstate_t st;
		memset(&st, 0, sizeof st);
		if (mvin_wchnstr(y, 0, cells, n) == ERR)
			n = 0;
		for (int x = 0; x < n && len + MB_LEN_MAX + 1 < sizeof line; x++) {
			wchar_t wc[CCHARW_MAX + 1];
			attr_t at;
			short pair;
			if (getcchar(&cells[x], wc, &at, &pair, NULL) == ERR || !wc[0])
				wc[0] = L' ';
			if (at & A_ALTCHARSET) { /* line drawing through the alternate character set */
				static const char from[] = "qxlkmjwvtun~.", to[] = "-|++++++++++v";
				const char *hit = wc[0] < 128 ? strchr(from, (int)wc[0]) : NULL;
				line[len++] = hit ? to[hit - from] : '+';
				continue;
			}
			size_t w = wcrtomb(line + len, wc[0], &st);
			if (w == (size_t)-1)
				line[len++] = '?';
			else
				len += w;
		}
		while (len > 0 && line[len - 1] == ' ')
			len--;
		line[len] = '\0';
		fprintf(f, "%s\n", line);
	}
	return fclose(f);
}

/* ---- the screen ---- */

void app_draw(struct app *a)
{
	struct view *v = app_top(a);
	char right[96];

	erase();
	/* Title bar: the file, [modified], counts, and where we are. */
	const struct graph *g = app_graph(a);
	for (int i = a->n_views - 1; i >= 0; i--) /* the counts of the graph on screen (a subgraph has its own) */
		if (a->views[i]->graph) {
			g = a->views[i]->graph;
			break;
		}
	snprintf(right, sizeof right, "%u node%s  %zu edit%s ", g ? g->n_nodes : 0, g && g->n_nodes == 1 ? "" : "s",
		 a->ed->n_applied, a->ed->n_applied == 1 ? "" : "s");
	int attr = ui_attr(a, UI_TITLE);
	attron(attr);
	mvhline(0, 0, ' ', a->cols);
	attroff(attr);
	char left[600];
	const char *mod = a->ed->modified ? " [modified]" : "";
	/* A long path gives way first: its end (the file name) is what identifies it. */
	int room = a->cols - (int)strlen(right) - 11 - (int)strlen(mod) - 2 - (int)strlen(v->title) - 1;
	const char *path = a->file;
	if (room < 8)
		room = 8;
	if ((int)strlen(path) > room)
		snprintf(left, sizeof left, " onnxview  ...%s%s  %s", path + strlen(path) - (room - 3), mod, v->title);
	else
		snprintf(left, sizeof left, " onnxview  %s%s  %s", path, mod, v->title);
	ui_text(0, 0, 0, a->cols - (int)strlen(right), left, attr);
	if ((int)strlen(right) < a->cols)
		ui_text(0, a->cols - (int)strlen(right), 0, a->cols, right, attr);
	if (a->rows > 2)
		v->ops->draw(a, v, 1, a->rows - 2, a->cols);
	/* Status line: the last message, or the keys that matter. */
	attr = a->message[0] ? ui_attr(a, a->message_error ? UI_ERROR : UI_STATUS) : ui_attr(a, UI_STATUS);
	attron(attr);
	mvhline(a->rows - 1, 0, ' ', a->cols);
	attroff(attr);
	ui_text(a->rows - 1, 0, 0, a->cols, a->message[0] ? a->message :
		" ? help  arrows/hjkl move  Enter details  / search  : command  u undo  w save  q quit", attr);
	refresh();
}

static void say_status(void *ctx, const char *line)
{
	struct app *a = ctx;

	/* The last note wins the status line; warnings are kept over plain notes. */
	if (!a->message[0] || !strncmp(line, "warning", 7) || strncmp(a->message, "warning", 7))
		app_message(a, 0, "%s", line);
}

static void prompt_command(struct app *a, const char *prefill)
{
	char *line = prompt_read(a, ":", prefill, 1);

	if (line) {
		app_command(a, line);
		free(line);
	}
}

static void do_search(struct app *a, int dir, int ask)
{
	struct view *v = app_top(a);

	if (ask) {
		char *q = prompt_read(a, "/", NULL, 0);
		if (!q)
			return;
		snprintf(a->search, sizeof a->search, "%s", q);
		free(q);
	}
	if (!a->search[0])
		return;
	if (!v->ops->search || v->ops->search(a, v, a->search, dir))
		app_message(a, 1, "not found: %s", a->search);
}

/* Actions every view shares (after the view had its chance). */
static void global_action(struct app *a, enum action act, int key)
{
	struct view *v = app_top(a);
	struct ov_error e;

	(void)key;
	switch (act) {
	case ACT_QUIT:
		if (a->n_views > 1) {
			app_pop(a);
			break;
		}
		app_command(a, "q");
		break;
	case ACT_BACK:
		if (a->n_views > 1)
			app_pop(a);
		break;
	case ACT_SEARCH: do_search(a, 1, 1); break;
	case ACT_SEARCH_NEXT: do_search(a, 1, 0); break;
	case ACT_SEARCH_PREV: do_search(a, -1, 0); break;
	case ACT_PROMPT: prompt_command(a, NULL); break;
	case ACT_UNDO:
		a->message[0] = '\0';
		if (edit_undo(a->ed, &e)) {
			app_model_changed(a); /* a failed step may have left a new index behind */
			app_message(a, 1, "%s", e.msg);
		} else {
			app_journal_changed(a, 0);
			app_model_changed(a);
		}
		break;
	case ACT_REDO:
		a->message[0] = '\0';
		if (edit_redo(a->ed, &e)) {
			app_model_changed(a); /* a failed step may have left a new index behind */
			app_message(a, 1, "%s", e.msg);
		} else {
			app_journal_changed(a, 0);
			app_model_changed(a);
		}
		break;
	case ACT_SAVE: prompt_command(a, "w "); break;
	case ACT_HELP: app_push(a, view_help_new(a)); break;
	case ACT_VIEW_MODEL: app_push(a, view_model_new(a)); break;
	case ACT_VIEW_NODES: app_push(a, view_nodes_new(a)); break;
	case ACT_VIEW_INITIALIZERS: app_push(a, view_initializers_new(a)); break;
	case ACT_VIEW_DIAGNOSTICS: app_push(a, view_diagnostics_new(a)); break;
	case ACT_VIEW_CHANGES: app_push(a, view_changes_new(a)); break;
	case ACT_REDRAW: clearok(curscr, TRUE); break;
	default:
		(void)v;
		break;
	}
}

/* The one place mouse events are read: a click becomes ACT_CLICK at (mouse_x, mouse_y), the wheel ACT_SCROLL_*. */
static enum action mouse_action(struct app *a)
{
	MEVENT me;

	if (getmouse(&me) != OK)
		return ACT_NONE;
	if (me.bstate & BUTTON4_PRESSED)
		return ACT_SCROLL_UP;
	if (me.bstate & BUTTON5_PRESSED)
		return ACT_SCROLL_DOWN;
	if (me.bstate & BUTTON1_CLICKED) {
		a->mouse_x = me.x;
		a->mouse_y = me.y;
		return ACT_CLICK;
	}
	return ACT_NONE;
}

static void event_loop(struct app *a)
{
	while (!a->quit) {
		app_draw(a);
		int key = app_getkey(a);
		if (key == ERR) {
			if (a->headless)
				break; /* the script ran out */
			continue;
		}
		if (key == KEY_RESIZE) {
			getmaxyx(stdscr, a->rows, a->cols);
			continue;
		}
		a->message[0] = '\0';
		enum action act = key == KEY_MOUSE ? mouse_action(a) : keys_action(key);
		if (key == KEY_MOUSE && act == ACT_NONE)
			continue;
		struct view *v = app_top(a);
		if (!v->ops->handle(a, v, act, key))
			global_action(a, act, key);
	}
}

static int utf8_locale(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
}

int tui_main(const struct tui_options *opts)
{
	struct app a = {0};
	struct ov_error e = {0};
	FILE *devnull = NULL;
	SCREEN *scr = NULL;
	int rc = model_load_report(opts->path, &a.m, stderr);

	if (rc)
		return rc;
	a.opts = *opts;
	a.file = strdup(opts->path);
	if (!a.file) {
		model_free(a.m);
		fprintf(stderr, "onnxview: out of memory\n");
		return 3;
	}
	a.utf8 = utf8_locale();
	if (!a.utf8)
		a.opts.ascii = 1;
	if (opts->keys) {
		a.headless = 1;
		a.dump_path = opts->dump;
		if (parse_keys(&a, opts->keys, &e)) {
			rc = ov_error_report(stderr, NULL, &e);
			goto out;
		}
	} else if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "onnxview: the terminal UI needs a terminal; for text use 'onnxview info', 'dump' or "
				"'check'\n");
		rc = 2;
		goto out;
	}
	if (edit_session_open(&a.ed, a.m, &e)) {
		rc = ov_error_report(stderr, opts->path, &e);
		goto out;
	}
	a.ed->say = say_status;
	a.ed->say_ctx = &a;
	signal(SIGSEGV, crash_handler);
	signal(SIGABRT, crash_handler);
	signal(SIGBUS, crash_handler);
	signal(SIGFPE, crash_handler);
	if (!getenv("ESCDELAY"))
		set_escdelay(25); /* Esc acts at once, not after ncurses' default second */
	if (a.headless) {
		/* A virtual screen of the asked size; nothing reaches a terminal. */
		devnull = fopen("/dev/null", "w+");
		const char *term = getenv("TERM");
		scr = devnull ? newterm(term && *term && strcmp(term, "dumb") ? term : "xterm-256color", devnull, devnull)
			      : NULL;
		if (!scr) {
			fprintf(stderr, "onnxview: cannot start a headless screen (TERM=%s)\n", term ? term : "");
			rc = 2;
			goto out;
		}
		set_term(scr);
		a.cols = opts->cols > 0 ? opts->cols : 80;
		a.rows = opts->rows > 0 ? opts->rows : 24;
		resizeterm(a.rows, a.cols);
	} else {
		initscr();
		getmaxyx(stdscr, a.rows, a.cols);
	}
	in_curses = 1;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	if (!opts->no_mouse && !a.headless)
		mousemask(BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	ui_colors_init(&a);
	if (app_graph(&a) && app_push(&a, view_graph_new(&a, app_graph(&a), "graph")) == 0) {
		event_loop(&a);
		if (a.headless && a.dump_path && !a.dumped_at_end)
			app_dump_screen(&a, a.dump_path);
	} else {
		rc = 3;
	}
	endwin();
	in_curses = 0;
	if (scr)
		delscreen(scr);
	if (rc == 3)
		fprintf(stderr, "onnxview: %s: %s\n", opts->path, a.message[0] ? a.message : "cannot build the graph view");
out:
	while (a.n_views > 0) {
		struct view *v = a.views[--a.n_views];
		v->ops->free(v);
	}
	for (int i = 0; i < a.n_history; i++)
		free(a.history[i]);
	free(a.keys);
	free(a.file);
	free(a.run_dims);
	free(a.run_inputs);
	free(a.state_ids);
	app_clear_results(&a);
	exec_consts_free(a.consts);
	edit_session_free(a.ed);
	model_free(a.m);
	if (devnull)
		fclose(devnull);
	return rc;
}
