/* The edit engine: every change to a model is a command, spoken the same way from the TUI's ':' prompt,
 * `onnxview edit -e CMD`, and script files (-s FILE).
 *
 * A session owns the journal of applied commands.  edit_run() parses one command line, takes an undo snapshot
 * (src/model/snapshot.h), runs the command, and either records it or, when the command fails, restores the
 * snapshot: a failed command never leaves the model changed, and says why in one line.  undo/redo restore
 * snapshots exactly (a save after undoing everything gives the original bytes).  The derived state (graph
 * index, inferred shapes) is rebuilt lazily after each change: commands call edit_index() before reading it.
 *
 * Commands are rows of one table (src/edit/commands.c), one file each (src/edit/cmd/set-dim.c exports
 * edit_set_dim_cmd), in the style of tmux's cmd_entry: name, usage, one-line help, the kinds of its arguments, exec.
 * The engine (src/edit/args.c) resolves the arguments by kind before the command runs, so a node, a value or a
 * dtype that is not there is reported the same way by every command, and the TUI's completion offers candidates
 * from the same rows (edit_complete). */
#ifndef OV_EDIT_H
#define OV_EDIT_H

#include <stdio.h>

#include "src/graph/graph.h"
#include "src/model/snapshot.h"
#include "src/model/model.h"
#include "src/graph/shape.h"

struct edit_session;
struct edit_args; /* the resolved arguments (src/edit/internal.h) */

/* What an argument names, and what resolving it checks (in the model of the session). */
enum edit_arg_kind {
	EDIT_ARG_END = 0,  /* ends a command's list */
	EDIT_ARG_NODE,     /* a node of the main graph, "#N" or its name */
	EDIT_ARG_VALUE,    /* a value of the main graph (an input, a constant, a node's output) */
	EDIT_ARG_VALUES,   /* "a,b,c": values of the main graph, none named twice */
	EDIT_ARG_TENSOR,   /* a constant of the main graph: an initializer or a Constant node's output */
	EDIT_ARG_INPUT,    /* a graph input */
	EDIT_ARG_OUTPUT,   /* a graph output */
	EDIT_ARG_PORT,     /* a graph input or output */
	EDIT_ARG_INT,      /* an integer */
	EDIT_ARG_DIM,      /* a dim: a number, a name (batch), or ? */
	EDIT_ARG_SHAPE,    /* [d0,d1,...], each a dim */
	EDIT_ARG_DTYPE,    /* an element type: float32, int64... */
	EDIT_ARG_ATTR,     /* an attribute name (of the node argument before it) */
	EDIT_ARG_OP,       /* an operator type (of the domain argument after it) */
	EDIT_ARG_DOMAIN,   /* an operator domain; "" and ai.onnx are the standard one */
	EDIT_ARG_NAME,     /* a new name: not empty */
	EDIT_ARG_DATA,     /* tensor values: a literal [1,2] or @FILE (.npy, .pb) */
	EDIT_ARG_LITERAL,  /* a value as text, typed by the command (set-attr's VALUE) */
	EDIT_ARG_PATH,     /* a file to write */
};

#define EDIT_MAX_ARGS 4

struct edit_arg {
	enum edit_arg_kind kind;
	const char *what;  /* prefixes a resolution error ("axis: 'x' is not an integer"); NULL: none */
	int optional;      /* may be left out; when fewer are given, the first optional ones are left out */
};

struct edit_cmd {
	const char *name;
	const char *usage;  /* "set-dim VALUE AXIS DIM" */
	const char *help;   /* one line */
	struct edit_arg args[EDIT_MAX_ARGS]; /* in order; the arity follows from them */
	unsigned flags;
	/* Runs with every given argument resolved. Returns 0, or -1 with err set (the engine then restores the
	 * model). */
	int (*exec)(struct edit_session *s, const struct edit_args *a, struct ov_error *err);
};

enum {
	EDIT_NO_CHANGE = 1, /* the command does not change the model (save, undo, redo): no snapshot, no journal */
};

typedef void (*edit_say_fn)(void *ctx, const char *line);

struct edit_entry {
	char *line;                        /* the command as given */
	struct model_snapshot *before;     /* the model before it */
	struct model_snapshot *after;      /* filled on undo, for redo */
};

struct edit_session {
	struct ov_model *m;
	struct graph *g;         /* NULL when stale */
	struct shapes *sh;       /* NULL when stale */
	struct edit_entry *journal;
	size_t n_journal;        /* entries kept (applied, then undone ones after n_applied) */
	size_t n_applied;
	size_t undo_bytes;       /* memory the snapshots hold */
	int modified;            /* changed since the last save */
	edit_say_fn say;         /* warnings and notes from commands (one line each) */
	void *say_ctx;
	const char *save_path;   /* where `save` with no PATH writes (the model's own path by default) */
	unsigned save_flags;     /* OV_SAVE_REPLACE when saving over an existing file is allowed */
	/* The command line's promise, a failing command writes nothing: with defer_saves, `save` only prepares its
	 * file (written and flushed beside the destination, src/model/save.h) and edit_commit_saves() puts the
	 * prepared files in place once every command has succeeded; edit_session_free() discards what is left.
	 * A later save to the same file replaces an earlier one, and `save` with no PATH is the final output. */
	int defer_saves;
	struct save_pending **pending;
	size_t n_pending;
};

int edit_session_open(struct edit_session **out, struct ov_model *m, struct ov_error *err);
void edit_session_free(struct edit_session *s);

/* Run one command line (comments and blank lines do nothing). */
int edit_run(struct edit_session *s, const char *line, struct ov_error *err);
/* Run a script file; errors name the file and line. Stops at the first failing command. */
int edit_run_script(struct edit_session *s, const char *path, struct ov_error *err);
int edit_undo(struct edit_session *s, struct ov_error *err);
int edit_redo(struct edit_session *s, struct ov_error *err);
/* The applied commands as a script that replays them on the original model. */
void edit_journal_write(const struct edit_session *s, FILE *out);
/* The same as text (malloc'd, *len bytes); NULL when out of memory. */
char *edit_journal_text(const struct edit_session *s, size_t *len);
/* Prepare a save of the model to path (flags as model_save) and add it to the pending ones, replacing one that
 * writes the same file; 0, or -1 with err set (nothing is prepared). */
int edit_defer_save(struct edit_session *s, const char *path, unsigned flags, struct ov_error *err);
/* The same for bytes (the journal). */
int edit_defer_buffer(struct edit_session *s, const char *path, unsigned flags, const void *data, size_t len,
		      struct ov_error *err);
/* Put every pending save in place, in the order they were prepared; 0, or -1 with err naming the file that could
 * not be written (the files before it are in place, the ones after it are discarded). */
int edit_commit_saves(struct edit_session *s, struct ov_error *err);

/* The command table. */
const struct edit_cmd *edit_find_cmd(const char *name);
const struct edit_cmd *const *edit_commands(size_t *n);

/* Completion.  edit_complete: line is a command line as typed so far; fn gets every candidate for its last word
 * (the empty word after a space) that starts with what is typed: command names for the first word, then what the
 * command's argument at that position names (node names or #N, values, constants, graph inputs or outputs, dtypes,
 * the attributes of the node named before, op types, domains).  A candidate is the whole word (in a list "a,b" the
 * earlier names included).  Returns how many were given; nothing for numbers, literals, new names and paths.
 * edit_arg_candidates: the same for argument pos (0: the first after the command name) of cmd, prev[i] the words
 * given before it (NULL where unknown). */
size_t edit_complete(struct edit_session *s, const char *line, void (*fn)(void *ctx, const char *cand), void *ctx);
size_t edit_arg_candidates(struct edit_session *s, const struct edit_cmd *cmd, int pos, char *const *prev,
			   const char *word, void (*fn)(void *ctx, const char *cand), void *ctx);

/* Split a command line into words: spaces separate; [...] groups (nested brackets, spaces inside allowed);
 * "..." quotes with \" \\ \n \t and \xHH escapes (strbuf_put_word writes names that way). Returns argc (argv malloc'd strings, free with edit_free_words), or -1. */
int edit_split(const char *line, char ***argv, struct ov_error *err);
void edit_free_words(int argc, char **argv);

/* ---- for commands ---- */
/* Bring the graph index and shapes up to date with the model. */
int edit_index(struct edit_session *s, struct ov_error *err);
/* Mark the derived state stale after changing the model. */
void edit_touch(struct edit_session *s);
/* A node of the main graph by "#N" or name; -1 with err naming what was not found. */
int32_t edit_node(struct edit_session *s, const char *ref, struct ov_error *err);
/* A value of the main graph by name; -1 with err. */
int32_t edit_value(struct edit_session *s, const char *name, struct ov_error *err);
void edit_say(struct edit_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Strict parsers for command arguments (they name the bad text in err). */
int edit_parse_int(const char *s, int64_t *v, struct ov_error *err);
int edit_parse_float(const char *s, double *v, struct ov_error *err);
/* 1 when s is a decimal number as people write one (1, -0.5, 1e-3, .5), or nan, inf, infinity; never hex. */
int edit_is_decimal(const char *s);
/* A literal "[[1, 2], [3, 4]]", "[1,1,2,2]" or "3": the element texts in order (malloc'd; free with
 * edit_free_list), their count, and the nesting as dims (rank 0 for a bare scalar). Ragged lists are refused. */
int edit_parse_list(const char *text, char ***items, int64_t *n, int64_t *dims, int *rank, struct ov_error *err);
void edit_free_list(char **items, int64_t n);
/* Duplicate a string with the model's allocator. */
char *edit_strdup(struct edit_session *s, const char *str);

#endif
