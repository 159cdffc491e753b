/* The TUI's ':' commands (ui/commands.c): one row each, read by app_command, the help screen and the prompt's
 * completion.  Edit commands are not here: they are the edit engine's table (src/edit/edit.h). */
#ifndef OV_UI_COMMANDS_H
#define OV_UI_COMMANDS_H

#include <stddef.h>

struct app;

struct ui_command {
	const char *name;  /* what is typed after ':' */
	const char *usage; /* for the help screen */
	const char *help;  /* one line */
	/* name is the word as typed ("w!", "12"), arg the rest of the line ("" when none). */
	void (*exec)(struct app *a, const char *name, const char *arg);
};

const struct ui_command *ui_commands(size_t *n);
/* The row for a typed word (":12" and ":#12" find "node"), or NULL. */
const struct ui_command *ui_command_find(const char *name);

#endif
