/* Every user action is a row of one table: its name (for key bindings and the help screen) and its one-line help.
 * Keys map to actions (ui/keys.c), never straight to functions; views decide what an action means to them. */
#ifndef OV_UI_ACTION_H
#define OV_UI_ACTION_H

#define ACTION_TABLE(X)                                                                               \
	X(NONE, "none", "")                                                                            \
	X(MOVE_DOWN, "move-down", "select a consumer (graph) / next line")                             \
	X(MOVE_UP, "move-up", "select the producer (graph) / previous line")                           \
	X(MOVE_LEFT, "move-left", "select the box to the left (graph) / scroll left")                  \
	X(MOVE_RIGHT, "move-right", "select the box to the right (graph) / scroll right")              \
	X(PAGE_DOWN, "page-down", "scroll a page down")                                                \
	X(PAGE_UP, "page-up", "scroll a page up")                                                      \
	X(HOME, "home", "go to the top (the first graph input)")                                       \
	X(END, "end", "go to the end (the last graph output)")                                         \
	X(CYCLE_PORT, "cycle-port", "cycle through the selected node's inputs and outputs")            \
	X(ENTER, "enter", "open the node panel / follow the selected line")                            \
	X(BACK, "back", "close the panel, leave the subgraph")                                         \
	X(SEARCH, "search", "search names, op types, tensors and shapes")                              \
	X(SEARCH_NEXT, "search-next", "next search match")                                             \
	X(SEARCH_PREV, "search-prev", "previous search match")                                         \
	X(FILTER, "filter", "lists: show only lines with every term (\"Conv\" quoted: the whole word)")  \
	X(PROMPT, "prompt", "command line: edit commands, :node N, :w, :q")                            \
	X(UNDO, "undo", "undo the last edit")                                                          \
	X(REDO, "redo", "redo")                                                                        \
	X(EDIT_VALUE, "edit-value", "prompt to change the selected constant (set-tensor)")             \
	X(EDIT_ATTR, "edit-attr", "prompt to set an attribute of the selected node (set-attr)")        \
	X(SWAP_OP, "swap-op", "prompt to swap the selected node's op (set-op)")                        \
	X(DYNAMIC_DIM, "dynamic-dim", "prompt to make an input dim dynamic (set-dim)")                 \
	X(VIEW_MODEL, "view-model", "model information (what onnxview info prints)")                   \
	X(VIEW_NODES, "view-nodes", "list of every node")                                              \
	X(VIEW_INITIALIZERS, "view-initializers", "list of initializers, largest first")               \
	X(VIEW_DIAGNOSTICS, "view-diagnostics", "what onnxview check finds; Enter jumps to the node")  \
	X(VIEW_CHANGES, "view-changes", "the edit journal")                                            \
	X(VIEW_REFERENCE, "view-reference", "the op reference of the selected node")                   \
	X(VIEW_TENSOR, "view-tensor", "the values and statistics of the selected constant")            \
	X(RUN_TO, "run-to", "run the model up to the selected node (random inputs; :run for options)")   \
	X(VIEW_RESULT, "view-result", "the selected node's computed output (after a run)")              \
	X(VIEW_DIFF, "view-diff", "after :compare, the selected node's output as A - B")               \
	X(VIEW_NEIGHBOURHOOD, "view-neighbourhood", "Graphviz lays out the node's neighbourhood")       \
	X(OPEN_SUBGRAPH, "open-subgraph", "open the If/Loop/Scan subgraph, or the called function's body") \
	X(FOLD, "fold", "fold the innermost open module scope of the selected box")                    \
	X(SAVE, "save", "save (asks where, never replaces without asking)")                            \
	X(HELP, "help", "this help")                                                                   \
	X(REDRAW, "redraw", "redraw the screen")                                                       \
	X(CLICK, "click", "select what is under the mouse")                                            \
	X(SCROLL_UP, "scroll-up", "scroll up a few rows")                                              \
	X(SCROLL_DOWN, "scroll-down", "scroll down a few rows")                                        \
	X(QUIT, "quit", "quit (asks when there are unsaved changes)")

enum action {
#define ACTION_X(e, name, help) ACT_##e,
	ACTION_TABLE(ACTION_X)
#undef ACTION_X
	ACT_COUNT
};

const char *action_name(enum action a);
const char *action_help(enum action a);
/* The action a key means in the default bindings (ACT_NONE when none).  Mouse events are not keys: the event loop
 * (ui/tui.c) translates them, once, into ACT_CLICK (the cell in app.mouse_x, mouse_y) and ACT_SCROLL_*. */
enum action keys_action(int key);
/* "j, Down" for the help screen; buf of n bytes. */
const char *keys_for_action(enum action a, char *buf, size_t n);

#endif
