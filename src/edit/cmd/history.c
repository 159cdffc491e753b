/* undo, redo and save: the commands that move through the journal or write the model, changing nothing else. */
#include "config.h"

#include "src/edit/internal.h"
#include "src/model/save.h"

static int exec_undo(struct edit_session *s, int argc, char **argv, struct ov_error *err)
{
	(void)argc, (void)argv;
	return edit_undo(s, err);
}

static int exec_redo(struct edit_session *s, int argc, char **argv, struct ov_error *err)
{
	(void)argc, (void)argv;
	return edit_redo(s, err);
}

static int exec_save(struct edit_session *s, int argc, char **argv, struct ov_error *err)
{
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

const struct edit_cmd edit_undo_cmd = {"undo", "undo", "undo the last command", 0, 0, EDIT_NO_CHANGE, exec_undo};
const struct edit_cmd edit_redo_cmd = {"redo", "redo", "redo the last undone command", 0, 0, EDIT_NO_CHANGE,
				       exec_redo};
const struct edit_cmd edit_save_cmd = {"save", "save [PATH]",
				       "save atomically (to PATH, which must not exist yet, or to the session's file)",
				       0, 1, EDIT_NO_CHANGE, exec_save};
