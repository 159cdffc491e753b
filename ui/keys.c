/* Default key bindings and the action name/help tables. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "ui/action.h"

static const struct {
	const char *name, *help;
} actions[] = {
#define ACTION_X(e, name, help) {name, help},
	ACTION_TABLE(ACTION_X)
#undef ACTION_X
};
_Static_assert(sizeof actions / sizeof actions[0] == ACT_COUNT, "action table drifted");

#define CTRL(c) ((c) & 0x1f)

static const struct {
	int key;
	enum action action;
	const char *label;
} bindings[] = {
	{'j', ACT_MOVE_DOWN, "j"}, {KEY_DOWN, ACT_MOVE_DOWN, "Down"},
	{'k', ACT_MOVE_UP, "k"}, {KEY_UP, ACT_MOVE_UP, "Up"},
	{'h', ACT_MOVE_LEFT, "h"}, {KEY_LEFT, ACT_MOVE_LEFT, "Left"},
	{'l', ACT_MOVE_RIGHT, "l"}, {KEY_RIGHT, ACT_MOVE_RIGHT, "Right"},
	{KEY_NPAGE, ACT_PAGE_DOWN, "PgDn"}, {CTRL('f'), ACT_PAGE_DOWN, "Ctrl-F"}, {' ', ACT_PAGE_DOWN, "Space"},
	{KEY_PPAGE, ACT_PAGE_UP, "PgUp"}, {CTRL('b'), ACT_PAGE_UP, "Ctrl-B"},
	{'g', ACT_HOME, "g"}, {KEY_HOME, ACT_HOME, "Home"}, {'G', ACT_END, "G"}, {KEY_END, ACT_END, "End"},
	{'\t', ACT_CYCLE_PORT, "Tab"},
	{'\n', ACT_ENTER, "Enter"}, {'\r', ACT_ENTER, NULL}, {KEY_ENTER, ACT_ENTER, NULL},
	{27, ACT_BACK, "Esc"}, {KEY_BACKSPACE, ACT_BACK, "Backspace"}, {127, ACT_BACK, NULL}, {'b', ACT_BACK, "b"},
	{'/', ACT_SEARCH, "/"}, {'n', ACT_SEARCH_NEXT, "n"}, {'N', ACT_SEARCH_PREV, "N"}, {'f', ACT_FILTER, "f"},
	{':', ACT_PROMPT, ":"}, {'u', ACT_UNDO, "u"}, {CTRL('r'), ACT_REDO, "Ctrl-R"},
	{'e', ACT_EDIT_VALUE, "e"}, {'a', ACT_EDIT_ATTR, "a"}, {'o', ACT_SWAP_OP, "o"}, {'d', ACT_DYNAMIC_DIM, "d"},
	{'m', ACT_VIEW_MODEL, "m"}, {'L', ACT_VIEW_NODES, "L"}, {'I', ACT_VIEW_INITIALIZERS, "I"},
	{'!', ACT_VIEW_DIAGNOSTICS, "!"}, {'c', ACT_VIEW_CHANGES, "c"}, {'r', ACT_VIEW_REFERENCE, "r"},
	{'T', ACT_VIEW_TENSOR, "T"}, {'R', ACT_RUN_TO, "R"}, {'v', ACT_VIEW_RESULT, "v"}, {'V', ACT_VIEW_DIFF, "V"},
	{'D', ACT_VIEW_NEIGHBOURHOOD, "D"}, {'S', ACT_OPEN_SUBGRAPH, "S"}, {'z', ACT_FOLD, "z"},
	{'w', ACT_SAVE, "w"}, {'?', ACT_HELP, "?"}, {KEY_F(1), ACT_HELP, "F1"}, {CTRL('l'), ACT_REDRAW, "Ctrl-L"},
	{'q', ACT_QUIT, "q"},
	/* for the help screen only: the event loop translates mouse events before keys are looked up */
	{KEY_MOUSE, ACT_CLICK, "click"}, {KEY_MOUSE, ACT_SCROLL_UP, "wheel up"},
	{KEY_MOUSE, ACT_SCROLL_DOWN, "wheel down"},
};

const char *action_name(enum action a)
{
	return (unsigned)a < ACT_COUNT ? actions[a].name : "?";
}

const char *action_help(enum action a)
{
	return (unsigned)a < ACT_COUNT ? actions[a].help : "";
}

enum action keys_action(int key)
{
	for (size_t i = 0; key != KEY_MOUSE && i < sizeof bindings / sizeof bindings[0]; i++)
		if (bindings[i].key == key)
			return bindings[i].action;
	return ACT_NONE;
}

const char *keys_for_action(enum action a, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof bindings / sizeof bindings[0]; i++)
		if (bindings[i].action == a && bindings[i].label) {
			int w = snprintf(buf + used, n - used, "%s%s", used ? ", " : "", bindings[i].label);
			if (w < 0 || (size_t)w >= n - used)
				break;
			used += (size_t)w;
		}
	return buf;
}
