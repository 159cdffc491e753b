/* undo, redo, save and journal: the commands that move through the journal or write the model or the journal,
 * changing nothing else. */
#include "config.h"

#include <stdlib.h>

#include "src/edit/internal.h"
#include "src/model/save.h"

static int exec_undo(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	(void)a;
	return edit_undo(s, err);
}

static int exec_redo(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	(void)a;
	return edit_redo(s, err);
}

static int exec_save(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	int argc = a->argc;
	char **argv = a->argv;
	const char *path = argc > 1 ? argv[1] : s->save_path;
	/* Saving to the model's own path, or to the session's output, is what the user asked for; anything else
	 * must not replace an existing file. */
	unsigned flags = argc > 1 ? 0 : s->save_flags;

	if (s->defer_saves) {
		/* written once every command has succeeded (edit_commit_saves) */
		if (edit_defer_save(s, path, flags, err))
			return ov_wrap(err, "%s: ", path);
		return 0;
	}
	if (model_save(s->m, path, flags, err))
		return ov_wrap(err, "%s: ", path);
	if (argc == 1)
		s->modified = 0;
	edit_say(s, "saved %s", path);
	return 0;
}

/* The applied commands as a script, what `edit --journal` writes: the way to keep a session's edits when the model
 * can no longer be saved (its file changed on disk while it was open). */
static int exec_journal(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	char **argv = a->argv;
	size_t len;
	char *text = edit_journal_text(s, &len);
	int r;

	if (!text)
		return ov_fail(err, OV_NOMEM, "out of memory");
	if (save_same_file(argv[1], s->m->path) || model_external_uses(s->m, argv[1]))
		r = ov_fail(err, OV_INVALID, "the journal would overwrite the model or its external data");
	else if (s->defer_saves)
		r = edit_defer_buffer(s, argv[1], 0, text, len, err);
	else
		r = save_buffer(argv[1], 0, text, len, err);
	free(text);
	if (r)
		return ov_wrap(err, "%s: ", argv[1]);
	if (!s->defer_saves)
		edit_say(s, "wrote the %zu applied command%s to %s (onnxview edit MODEL -s %s -o OUT replays them)",
			 s->n_applied, s->n_applied == 1 ? "" : "s", argv[1], argv[1]);
	return 0;
}

const struct edit_cmd edit_undo_cmd = {
	.name = "undo",
	.usage = "undo",
	.help = "undo the last command",
	.flags = EDIT_NO_CHANGE,
	.exec = exec_undo,
};
const struct edit_cmd edit_redo_cmd = {
	.name = "redo",
	.usage = "redo",
	.help = "redo the last undone command",
	.flags = EDIT_NO_CHANGE,
	.exec = exec_redo,
};
const struct edit_cmd edit_save_cmd = {
	.name = "save",
	.usage = "save [PATH]",
	.help = "save atomically (to PATH, which must not exist yet, or to the session's file)",
	.args = {{.kind = EDIT_ARG_PATH, .optional = 1}},
	.flags = EDIT_NO_CHANGE,
	.exec = exec_save,
};
const struct edit_cmd edit_journal_cmd = {
	.name = "journal",
	.usage = "journal PATH",
	.help = "write the applied commands as a script that replays them (PATH must not exist)",
	.args = {{.kind = EDIT_ARG_PATH}},
	.flags = EDIT_NO_CHANGE,
	.exec = exec_journal,
};
