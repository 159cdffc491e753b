/* undo, redo and save: the commands that move through the journal or write the model, changing nothing else. */
#include "config.h"

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

	if (model_save(s->m, path, flags, err))
		return ov_wrap(err, "%s: ", path);
	if (argc == 1)
		s->modified = 0;
	edit_say(s, "saved %s", path);
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
