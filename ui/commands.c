/* The TUI's own ':' commands in one table (tmux's cmd_entry shape): the help screen and the prompt's completion
 * list them from here, and a line that names none of them goes to the edit engine (src/edit/edit.h), whose
 * commands the prompt completes from the engine's own table. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/model/save.h"
#include "ui/app.h"
#include "ui/commands.h"

/* ---- the saved state ---- */

/* Each applied edit gets an id when it is made; undo and redo move between ids, a new edit after an undo gets a
 * new one.  The model is modified when the state on screen is not the one last saved, so undoing back to the
 * saved state clears [modified]. */
static uint64_t state_now(const struct app *a)
{
	size_t k = a->ed->n_applied;

	return k && k <= a->n_state_ids ? a->state_ids[k - 1] : 0;
}

void app_journal_changed(struct app *a, int new_edit)
{
	size_t k = a->ed->n_applied;

	if (new_edit && k) {
		if (k > a->cap_state_ids) {
			size_t nc = k * 2;
			uint64_t *ni = realloc(a->state_ids, nc * sizeof *ni);
			if (!ni) { /* cannot tell states apart any more: modified stays as the engine says */
				a->saved_state = UINT64_MAX;
				return;
			}
			a->state_ids = ni;
			a->cap_state_ids = nc;
		}
		a->state_ids[k - 1] = ++a->next_state_id;
		a->n_state_ids = k;
	}
	if (a->saved_state != UINT64_MAX)
		a->ed->modified = state_now(a) != a->saved_state;
}

static void mark_saved(struct app *a)
{
	a->saved_state = state_now(a);
	a->ed->modified = 0;
}

/* ---- the commands ---- */

static void save_to(struct app *a, const char *path, int replace)
{
	struct ov_error e;

	if (model_save(a->m, path, replace ? OV_SAVE_REPLACE : 0, &e)) {
		if (e.code == OV_EXISTS)
			app_message(a, 1, ":w! replaces what is there: %s exists", path);
		else
			app_message(a, 1, "%s: %s", path, e.msg);
		return;
	}
	mark_saved(a);
	/* The saved file is now the one on screen: the title names it and a plain :w writes there. */
	if (strcmp(path, a->file)) {
		char *f = strdup(path);
		if (f) {
			free(a->file);
			a->file = f;
		}
	}
	app_message(a, 0, "saved %s", path);
}

static int confirm(struct app *a, const char *question)
{
	app_message(a, 0, "%s", question);
	app_draw(a);
	for (;;) {
		int c = app_getkey(a);
		if (c == 'y' || c == 'Y')
			return 1;
		if (c == 'n' || c == 'N' || c == 27 || c == ERR)
			return 0;
	}
}

static void cmd_quit(struct app *a, const char *name, const char *arg)
{
	(void)arg;
	if (!strcmp(name, "q!"))
		a->quit = 1;
	else if (a->ed->modified && !confirm(a, "unsaved changes: quit anyway? (y/n)"))
		app_message(a, 0, "not quitting (:w saves, :q! quits without saving)");
	else
		a->quit = 1;
}

static void cmd_write(struct app *a, const char *name, const char *arg)
{
	char q[600];

	if (arg[0]) {
		save_to(a, arg, name[1] == '!');
	} else {
		snprintf(q, sizeof q, "replace %s? (y/n)", a->file);
		if (confirm(a, q))
			save_to(a, a->file, 1);
		else
			app_message(a, 0, "not saved (:w PATH writes a new file)");
	}
	if (!strcmp(name, "wq") && !a->ed->modified)
		a->quit = 1;
}

static void cmd_node(struct app *a, const char *name, const char *arg)
{
	const struct graph *g = app_graph(a);
	char *end;
	const char *num = !strcmp(name, "node") ? arg : name[0] == '#' ? name + 1 : name;
	long n = strtol(num, &end, 10);

	if (!*num || *end) {
		app_message(a, 1, "node: give a node index (:node 3, :3 or :#3)");
		return;
	}
	if (!g || n < 0 || (uint32_t)n >= g->n_nodes)
		app_message(a, 1, "no node #%ld (the graph has %u node%s)", n, g ? g->n_nodes : 0,
			    g && g->n_nodes == 1 ? "" : "s");
	else
		app_goto_node(a, (int32_t)n);
}

static void cmd_save_display(struct app *a, const char *name, const char *arg)
{
	(void)name;
	if (!arg[0] || app_dump_screen(a, arg))
		app_message(a, 1, "save-display: cannot write '%s'", arg);
}

static void cmd_help(struct app *a, const char *name, const char *arg)
{
	(void)name, (void)arg;
	app_push(a, view_help_new(a));
}

static void cmd_run(struct app *a, const char *name, const char *arg)
{
	(void)name;
	app_run(a, arg, NULL);
}

static void cmd_compare(struct app *a, const char *name, const char *arg)
{
	(void)name;
	app_compare(a, arg);
}

static const struct ui_command commands[] = {
	{.name = "node", .usage = "node N  (or :N, :#N)", .exec = cmd_node,
	 .help = "jump to node #N (the index TensorRT and onnxruntime print)"},
	{.name = "w", .usage = "w [PATH]", .exec = cmd_write,
	 .help = "save (asks before replacing the file); to PATH, a new file that the title then names"},
	{.name = "w!", .usage = "w! PATH", .exec = cmd_write, .help = "save to PATH, replacing what is there"},
	{.name = "wq", .usage = "wq", .exec = cmd_write, .help = "save over the file, then quit"},
	{.name = "q", .usage = "q", .exec = cmd_quit, .help = "quit (asks when there are unsaved changes)"},
	{.name = "quit", .usage = "quit", .exec = cmd_quit, .help = "the same as :q"},
	{.name = "q!", .usage = "q!", .exec = cmd_quit, .help = "quit, dropping unsaved changes"},
	{.name = "run", .usage = "run [--input N=SPEC] [--to T,..] [--from T,..] [--backend B]", .exec = cmd_run,
	 .help = "run the model in memory (asks for dims it cannot resolve); R runs to the selection"},
	{.name = "compare", .usage = "compare OTHER | --vs B | --against DIR", .exec = cmd_compare,
	 .help = "mark every node whose output differs; jump to the first"},
	{.name = "save-display", .usage = "save-display FILE", .exec = cmd_save_display,
	 .help = "write the screen as text"},
	{.name = "help", .usage = "help", .exec = cmd_help, .help = "the keys and the commands"},
};

const struct ui_command *ui_commands(size_t *n)
{
	*n = sizeof commands / sizeof commands[0];
	return commands;
}

const struct ui_command *ui_command_find(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	if ((name[0] >= '0' && name[0] <= '9') || (name[0] == '#' && name[1] >= '0' && name[1] <= '9'))
		return &commands[0]; /* :12 and :#12 are :node 12 */
	return NULL;
}

void app_command(struct app *a, const char *line)
{
	struct ov_error e;
	char word[64] = "", arg[1024] = "";

	while (*line == ' ' || *line == ':')
		line++;
	if (!*line)
		return;
	sscanf(line, "%63s %1023[^\n]", word, arg);
	const struct ui_command *c = ui_command_find(word);
	if (c) {
		c->exec(a, word, arg);
		return;
	}
	const struct edit_cmd *ec = edit_find_cmd(word);
	int was_modified = a->ed->modified;
	a->message[0] = '\0';
	if (edit_run(a->ed, line, &e)) {
		/* The engine put the model back as it was, but as new structures: the index, the views' pointers into it
		 * and the values named from it are rebuilt or dropped as after any change. */
		app_model_changed(a);
		app_message(a, 1, "%s", e.msg);
		return;
	}
	if (ec && (ec->flags & EDIT_NO_CHANGE) && was_modified && !a->ed->modified)
		mark_saved(a); /* the engine's own save */
	else
		app_journal_changed(a, !ec || !(ec->flags & EDIT_NO_CHANGE));
	app_model_changed(a);
	if (!a->message[0])
		app_message(a, 0, "done: %s", line);
}
