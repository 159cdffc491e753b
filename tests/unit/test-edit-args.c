/* The edit engine's argument kinds: every command's bad argument of one kind is reported the same way, and the
 * completion lists candidates from the same rows (edit_complete), on the bundled example model. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/edit/edit.h"
#include "src/model/model.h"
#include "tap.h"

struct seen {
	size_t n;
	char all[4096];
};

static void collect(void *ctx, const char *cand)
{
	struct seen *s = ctx;
	size_t len = strlen(s->all);

	s->n++;
	snprintf(s->all + len, sizeof s->all - len, "%s%s", len ? " " : "", cand);
}

/* The candidates for line, space-separated, and their count. */
static size_t complete(struct edit_session *ed, const char *line, struct seen *s)
{
	memset(s, 0, sizeof *s);
	return edit_complete(ed, line, collect, s);
}

static int has(const struct seen *s, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = s->all; (p = strstr(p, word)); p += n)
		if ((p == s->all || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

static int all_start_with(const struct seen *s, const char *prefix)
{
	char buf[4096], *save = NULL;

	snprintf(buf, sizeof buf, "%s", s->all);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		if (strncmp(w, prefix, strlen(prefix)))
			return 0;
	return 1;
}

static void test_completion(struct edit_session *ed)
{
	struct seen s;
	size_t ncmd;

	edit_commands(&ncmd);
	OK(complete(ed, "", &s) == ncmd && has(&s, "set-dim") && has(&s, "undo"), "empty line: every command (%zu: %s)",
	   s.n, s.all);
	OK(complete(ed, "set-d", &s) == 1 && has(&s, "set-dim"), "'set-d': set-dim (%s)", s.all);
	OK(complete(ed, "set-dim ", &s) == 2 && has(&s, "input") && has(&s, "output"),
	   "set-dim VALUE: the graph's inputs and outputs (%s)", s.all);
	OK(complete(ed, "make-constant ", &s) == 1 && has(&s, "input"), "make-constant VALUE: the graph inputs (%s)",
	   s.all);
	OK(complete(ed, "del-output ", &s) == 1 && has(&s, "output"), "del-output VALUE: the graph outputs (%s)", s.all);
	OK(complete(ed, "set-tensor ", &s) == 8 && has(&s, "scales") && !has(&s, "c1"),
	   "set-tensor TENSOR: the 8 constants, no computed value (%s)", s.all);
	OK(complete(ed, "add-output c", &s) >= 3 && has(&s, "c1") && has(&s, "conv1.weight") && all_start_with(&s, "c"),
	   "add-output VALUE: values starting with what is typed (%s)", s.all);
	OK(complete(ed, "delete-node #", &s) == 6 && has(&s, "#0") && has(&s, "#5"), "NODE after '#': #0 to #5 (%s)",
	   s.all);
	OK(complete(ed, "delete-node re", &s) == 3 && has(&s, "resize0") && has(&s, "relu2"),
	   "NODE: node names (%s)", s.all);
	OK(complete(ed, "set-attr conv1 ", &s) > 4 && has(&s, "kernel_shape") && has(&s, "group") && has(&s, "pads"),
	   "set-attr NODE NAME: the node's attributes from its schema (%s)", s.all);
	OK(complete(ed, "set-attr resize0 m", &s) == 1 && has(&s, "mode"), "set-attr NODE m: mode (%s)", s.all);
	OK(complete(ed, "set-type input float", &s) >= 3 && has(&s, "float32") && has(&s, "float16") &&
	   all_start_with(&s, "float"), "set-type VALUE DTYPE: element types (%s)", s.all);
	OK(complete(ed, "set-op relu1 Rel", &s) == 1 && has(&s, "Relu"), "set-op NODE OPTYPE: op types (%s)", s.all);
	OK(complete(ed, "extract input,r", &s) >= 2 && has(&s, "input,r1") && all_start_with(&s, "input,r"),
	   "extract FROM: the name after the last comma, the earlier ones kept (%s)", s.all);
	OK(complete(ed, "set-dim input 0 ", &s) == 0, "set-dim AXIS DIM: nothing to offer for a dim");
	OK(complete(ed, "no-such-command ", &s) == 0, "an unknown command: nothing");
	OK(complete(ed, "set-attr \"unterminated", &s) == 0, "an unsplittable line: nothing");
}

/* A valid-looking word for each kind, so that only the argument under test is wrong. */
static const char *good_word(enum edit_arg_kind k)
{
	switch (k) {
	case EDIT_ARG_NODE: return "#1";
	case EDIT_ARG_VALUE: case EDIT_ARG_VALUES: case EDIT_ARG_INPUT: case EDIT_ARG_PORT: return "input";
	case EDIT_ARG_OUTPUT: return "output";
	case EDIT_ARG_TENSOR: return "scales";
	case EDIT_ARG_INT: return "0";
	case EDIT_ARG_DIM: return "1";
	case EDIT_ARG_SHAPE: return "[1,1,16,16]";
	case EDIT_ARG_DTYPE: return "float32";
	case EDIT_ARG_ATTR: return "group";
	case EDIT_ARG_OP: return "Relu";
	case EDIT_ARG_DOMAIN: return "ai.onnx";
	case EDIT_ARG_DATA: return "[1,1,2,2]";
	default: return "x";
	}
}

/* The bad word for a kind and the one error every command gives for it; NULL where the kind checks nothing. */
static const char *bad_word(enum edit_arg_kind k, const char **msg)
{
	switch (k) {
	case EDIT_ARG_NODE: *msg = "no node #99 (the graph has nodes #0 to #5)"; return "#99";
	case EDIT_ARG_VALUE: case EDIT_ARG_VALUES: *msg = "no value named 'nope' in the graph"; return "nope";
	case EDIT_ARG_TENSOR: *msg = "no tensor named 'nope' in the graph"; return "nope";
	case EDIT_ARG_INPUT: *msg = "'nope' is not a graph input"; return "nope";
	case EDIT_ARG_OUTPUT: *msg = "'nope' is not a graph output (the outputs are 'output')"; return "nope";
	case EDIT_ARG_INT: *msg = "'x' is not an integer"; return "x";
	case EDIT_ARG_DTYPE:
		*msg = "'nope' is not a data type (float32, float16, bfloat16, float64, int64, int32, int8, uint8, bool, "
		       "string...)";
		return "nope";
	case EDIT_ARG_ATTR: *msg = "the attribute name cannot be empty"; return "\"\"";
	case EDIT_ARG_OP: *msg = "the op type cannot be empty"; return "\"\"";
	case EDIT_ARG_NAME: *msg = "the new name cannot be empty"; return "\"\"";
	case EDIT_ARG_DATA: *msg = "'@' needs a file name: @FILE.npy or @FILE.pb"; return "@";
	case EDIT_ARG_DIM: *msg = "'!' is not a dim: give a number, a name (letters, digits, _), or ?"; return "!";
	default: return NULL;
	}
}

static void test_errors(struct edit_session *ed)
{
	size_t ncmd, checked = 0;
	const struct edit_cmd *const *cmds = edit_commands(&ncmd);
	char line[512], want[512];
	struct ov_error e;

	for (size_t c = 0; c < ncmd; c++) {
		const struct edit_cmd *cmd = cmds[c];
		if (cmd->flags & EDIT_NO_CHANGE)
			continue;
		for (int bad = 0; bad < EDIT_MAX_ARGS && cmd->args[bad].kind; bad++) {
			const char *msg, *word = bad_word(cmd->args[bad].kind, &msg);
			if (!word)
				continue;
			size_t len = (size_t)snprintf(line, sizeof line, "%s", cmd->name);
			for (int i = 0; i < EDIT_MAX_ARGS && cmd->args[i].kind; i++)
				len += (size_t)snprintf(line + len, sizeof line - len, " %s",
							i == bad ? word : good_word(cmd->args[i].kind));
			/* An argument with a `what` has it before the message ("axis: 'x' is not an integer"). */
			snprintf(want, sizeof want, "%s%s%s", cmd->args[bad].what ? cmd->args[bad].what : "",
				 cmd->args[bad].what ? ": " : "", msg);
			int rc = edit_run(ed, line, &e);
			OK(rc < 0, "'%s' fails", line);
			IS_STR(rc < 0 ? e.msg : "", want, "'%s': the kind's own message", line);
			checked++;
		}
	}
	OK(checked >= 20, "%zu bad arguments checked across the commands", checked);
	OK(ed->n_journal == 0 && !ed->modified, "no failed command changed the model or the journal");
	/* The PORT kind names the command that wanted the port. */
	OK(edit_run(ed, "set-dim nope 0 1", &e) < 0 &&
	   !strcmp(e.msg, "'nope' is not a graph input or output (set-dim changes their declared dims)"),
	   "set-dim: not a port (%s)", e.msg);
	OK(edit_run(ed, "set-opset", &e) < 0 && !strcmp(e.msg, "usage: set-opset [DOMAIN] VERSION"),
	   "the arity follows from the declared arguments (%s)", e.msg);
	OK(edit_run(ed, "set-opset ai.onnx 13 14", &e) < 0 && !strcmp(e.msg, "usage: set-opset [DOMAIN] VERSION"),
	   "one argument too many is refused (%s)", e.msg);
	OK(edit_run(ed, "set-opset 17", &e) == 0, "set-opset VERSION: the optional DOMAIN is the one left out");
	OK(edit_run(ed, "set-op relu1 Sigmoid", &e) == 0, "set-op NODE OPTYPE: the optional DOMAIN left out at the end");
}

int main(void)
{
	const char *src = getenv("SRCDIR");
	char path[4096];
	struct ov_model *m = NULL;
	struct edit_session *ed = NULL;
	struct ov_error e;

	snprintf(path, sizeof path, "%s/share/onnxview/examples/srcnn.onnx", src ? src : ".");
	if (model_load(&m, path, &e) || edit_session_open(&ed, m, &e)) {
		printf("not ok 1 - load %s: %s\n1..1\n", path, e.msg);
		return 1;
	}
	test_completion(ed);
	test_errors(ed);
	edit_session_free(ed);
	model_free(m);
	return tap_done();
}
