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
 * edit_set_dim_cmd), in the style of tmux's cmd_entry: name, usage, one-line help, arity, exec. */
#ifndef OV_EDIT_H
#define OV_EDIT_H

#include <stdio.h>

#include "src/graph/graph.h"
#include "src/model/snapshot.h"
#include "src/model/model.h"
#include "src/graph/shape.h"

struct edit_session;

struct edit_cmd {
	const char *name;
	const char *usage;  /* "set-dim VALUE AXIS DIM" */
	const char *help;   /* one line */
	int min_args, max_args;
	unsigned flags;
	/* argv[0] is the command name. Returns 0, or -1 with err set (the engine then restores the model). */
	int (*exec)(struct edit_session *s, int argc, char **argv, struct ov_error *err);
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
