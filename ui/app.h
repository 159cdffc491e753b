/* The TUI's state and the interface between its parts: the app (model, edit session, views, messages), the
 * views (one file each, behind a table of operations, like tig's), drawing helpers and the prompt.
 *
 * Views never read protobuf structs: what they show comes from the core (src/present/present.h, src/graph/graph.h for
 * structure, the edit engine for changes).  Event handlers return whether they used the action; drawing is done
 * afterwards for the whole screen, never from a handler. */
#ifndef OV_UI_APP_H
#define OV_UI_APP_H

#include <stddef.h>
#include <stdint.h>

#include "ui/tui.h"
#include "src/edit/edit.h"
#include "src/exec/exec.h"
#include "src/present/present.h"
#include "ui/action.h"

struct app;
struct view;

struct view_ops {
	const char *name;
	void (*draw)(struct app *a, struct view *v, int top, int rows, int cols);
	/* 1 when the view used the action (key is the raw key, for views that take text). */
	int (*handle)(struct app *a, struct view *v, enum action act, int key);
	/* The model changed: rebuild what the view shows (or return -1 to be closed). */
	int (*reload)(struct app *a, struct view *v);
	/* Text to search in; the view moves to match k of the query (returns 0 when found). */
	int (*search)(struct app *a, struct view *v, const char *query, int direction);
	void (*free)(struct view *v);
};

struct view {
	const struct view_ops *ops;
	void *data;
	char title[160];
	const struct graph *graph; /* the graph it shows, for the title bar's counts (NULL: not a graph view) */
};

#define APP_MAX_VIEWS 32

struct app {
	struct tui_options opts;
	struct ov_model *m;
	struct edit_session *ed;
	struct view *views[APP_MAX_VIEWS];
	int n_views;
	int rows, cols;
	int quit;
	int color, utf8;
	char message[512];
	int message_error;
	char search[256];
	/* headless runs (--keys): keys come from a script, the screen goes to a file */
	int headless;
	int *keys;
	size_t n_keys, next_key;
	const char *dump_path;
	int dumped_at_end;  /* the script ran out in the prompt, whose screen was dumped then */
	/* the last :run (every value kept) and the marks of the last :compare, one per node of the main graph */
	struct exec_result run;
	int have_run;
	struct exec_result run_b;     /* side B of the last :compare (values named as in the main graph) */
	int have_run_b;
	uint8_t *marks;
	uint32_t n_marks;
	char *run_dims;               /* the answer to :run's question for dims the model leaves open */
	char *run_inputs;             /* the --input, --shape and --dim words of the last :run, for R */
	struct exec_consts *consts;   /* the model's constants, kept from one :run or :compare to the next (on the
	                                 GPU too); dropped when the model changes */
	/* the file on screen: the model's path, then where :w PATH last saved it */
	char *file;
	/* which state of the journal was saved (ui/commands.c): an id per applied edit */
	uint64_t *state_ids;
	size_t n_state_ids, cap_state_ids;
	uint64_t next_state_id, saved_state;
	/* where the last mouse event was (screen cells), for ACT_CLICK */
	int mouse_x, mouse_y;
	int in_prompt; /* the prompt is reading a line (a script's <Dump> keeps it on screen) */
	/* prompt history */
	char *history[64];
	int n_history;
};

/* ---- app (ui/tui.c) ---- */
void app_message(struct app *a, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int app_push(struct app *a, struct view *v);  /* takes ownership; -1 when the stack is full (view freed) */
void app_pop(struct app *a);
struct view *app_top(struct app *a);
int app_getkey(struct app *a);                /* next key: terminal or script; ERR when a script ran out */
/* Run an edit command or a TUI command line (":node 3", ":w", ":q"...); messages go to the status line
 * (ui/commands.c). */
void app_command(struct app *a, const char *line);
/* After the journal moved (new_edit: a command was applied; 0: undo or redo): whether the model differs from the
 * state last saved. */
void app_journal_changed(struct app *a, int new_edit);
/* Draw the whole screen now (for questions asked in the middle of a command). */
void app_draw(struct app *a);
/* After the model changed: reindex and refresh every view. */
void app_model_changed(struct app *a);
/* Write the screen as text (headless tests, :save-display). */
int app_dump_screen(struct app *a, const char *path);
/* The main graph index and shapes (rebuilt lazily by the edit engine). */
const struct graph *app_graph(struct app *a);
const struct shapes *app_shapes(struct app *a);

/* ---- running (ui/run.c) ---- */
/* :run [--input N=SPEC] [--to T,..] [--from T,..] [--backend B]: the report in a text view, or with show the
 * tensor view of that value */
void app_run(struct app *a, const char *args, const char *show);
void app_compare(struct app *a, const char *args); /* :compare OTHER | --vs B | --against DIR [...] */
void app_clear_results(struct app *a);             /* after an edit, and at exit */
int app_node_mark(const struct app *a, int32_t node); /* COMPARE_MARK_* of the last :compare */
/* The computed value of the last run as a tensor view (NULL with a message when the run did not keep it). */
struct view *view_tensor_result(struct app *a, const char *value_name);
/* After :compare: the element-wise difference A - B of a value (float64), as a tensor view. */
struct view *view_tensor_diff(struct app *a, const char *value_name);

/* ---- drawing (ui/draw.c) ---- */
enum ui_color {
	UI_DEFAULT, UI_TITLE, UI_STATUS, UI_SELECTED, UI_ERROR, UI_DIM, UI_EDGE, UI_MATCH, UI_HEADER,
	UI_CAT_BASE /* + enum op_category */
};
void ui_colors_init(struct app *a);
int ui_attr(const struct app *a, int color);
/* Draw s at (y, x) clipped to [x0, x1) columns (UTF-8 aware, one cell per code point). */
void ui_text(int y, int x, int x0, int x1, const char *s, int attr);
/* Characters for boxes and edges: unicode through ncurses ACS, or plain ASCII with --ascii. */
void ui_hline(const struct app *a, int y, int x, int n, int x0, int x1, int attr);
void ui_vline_char(const struct app *a, int y, int x, int attr);
void ui_corner(const struct app *a, int y, int x, int which, int attr); /* 0 ul, 1 ur, 2 ll, 3 lr, 4 tee-down, 5 arrow */

/* ---- views ---- */
struct view *view_graph_new(struct app *a, const struct graph *g, const char *title); /* ui/view-graph.c */
/* A scrollable text view whose lines may jump somewhere: target >= 0 is a node index of the main graph. */
struct view *view_text_new(const char *title, const char *text, const int32_t *targets, size_t n_targets);
/* Give a text view's lines value ids of the main graph (-1 none): T opens that constant's tensor view, and so does
 * Enter on a line without a jump target. */
void view_text_set_values(struct view *v, const int32_t *values, size_t n);
/* The values and statistics of a constant (value id of g): ui/view-tensor.c.  NULL (with a message) when the value
 * has no constant tensor. */
struct view *view_tensor_new(struct app *a, const struct graph *g, int32_t value_id);
/* Graphviz's layout of the neighbourhood of node (main graph) in its own view: ui/view-neighbourhood.c.  NULL (with a
 * message) when Graphviz cannot lay it out. */
struct view *view_neighbourhood_new(struct app *a, uint32_t node);
struct view *view_node_new(struct app *a, const struct graph *g, uint32_t node);   /* ui/view-panels.c */
struct view *view_model_new(struct app *a);
struct view *view_nodes_new(struct app *a);
struct view *view_initializers_new(struct app *a);
struct view *view_diagnostics_new(struct app *a);
struct view *view_changes_new(struct app *a);
struct view *view_help_new(struct app *a);
struct view *view_reference_new(struct app *a, const char *domain, const char *op);
/* Jump the graph view at the bottom of the stack to node i of the main graph. */
void app_goto_node(struct app *a, int32_t node);

/* ---- prompt (ui/prompt.c) ---- */
/* Read a line at the bottom row with editing, history and completion; NULL when cancelled. prefill may be NULL.
 * The result is malloc'd. */
char *prompt_read(struct app *a, const char *label, const char *prefill, int complete);

#endif
