/* `onnxview edit`: load a model, apply edit commands (-e CMD, -s SCRIPT, in the order given), save atomically. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "src/edit/edit.h"
#include "src/model/model.h"
#include "src/model/save.h"

static const char edit_usage[] =
	"usage: onnxview edit MODEL [-e COMMAND]... [-s SCRIPT]... -o OUT [--force] [--journal FILE]";

static void print_commands(FILE *out)
{
	size_t n;
	const struct edit_cmd *const *cmds = edit_commands(&n);

	fprintf(out, "\nCommands (also for -s scripts, one per line, '# ' starts a comment, and the TUI's ':'):\n");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %-34s %s\n", cmds[i]->usage, cmds[i]->help);
	fprintf(out, "\nNodes are named by their name or #N (their index); values by their tensor name.\n");
}

static void say_stderr(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "onnxview: %s\n", line);
}

enum { EDIT_E, EDIT_S, EDIT_OUTPUT, EDIT_FORCE, EDIT_JOURNAL };
static const struct opt_spec edit_opts[] = {
	[EDIT_E] = {.name = "-e", .arg = "COMMAND", .flags = OPT_REPEAT, .help = "apply an edit command"},
	[EDIT_S] = {.name = "-s", .arg = "SCRIPT", .flags = OPT_REPEAT, .help = "apply the commands of a script file"},
	[EDIT_OUTPUT] = {.name = "--output", .alias = "-o", .arg = "OUT", .help = "where to save (OUT = MODEL saves in place)"},
	[EDIT_FORCE] = {.name = "--force", .alias = "-f", .help = "replace an existing OUT or journal"},
	[EDIT_JOURNAL] = {.name = "--journal", .arg = "FILE", .help = "write the applied commands as a script"},
};
static const struct opt_cmd edit_cmd = {
	.name = "edit", .usage = edit_usage, .opts = edit_opts, .n_opts = sizeof edit_opts / sizeof edit_opts[0],
	.pos_name = "model", .min_pos = 1, .max_pos = 1, .more_help = print_commands,
};

struct step {
	int is_script;
	const char *text;
};

int cmd_edit(int argc, char **argv, FILE *out, FILE *err)
{
	const char *path = NULL, *dest = NULL, *journal = NULL;
	int force = 0, rc;
	struct step *steps = calloc((size_t)argc + 1, sizeof *steps);
	int n_steps = 0;
	struct ov_model *m = NULL;
	struct edit_session *s = NULL;
	struct ov_error e = {0};

	struct opt_parsed p;

	if (!steps)
		return ov_usage_error(err, edit_usage, "edit: out of memory");
	rc = opt_parse_cli(&edit_cmd, argc, argv, &p, out, err);
	if (rc >= 0) {
		opt_free(&p);
		free(steps);
		return rc;
	}
	for (size_t i = 0; i < p.n; i++) /* -e and -s apply in the order given */
		if (p.hit[i].opt == EDIT_E || p.hit[i].opt == EDIT_S)
			steps[n_steps++] = (struct step){p.hit[i].opt == EDIT_S, p.hit[i].val};
	path = p.pos[0];
	dest = opt_value(&p, EDIT_OUTPUT);
	journal = opt_value(&p, EDIT_JOURNAL);
	force = opt_given(&p, EDIT_FORCE);
	opt_free(&p);
	if (!dest) {
		free(steps);
		return opt_usage_error(&edit_cmd, err, "no output given (-o OUT; -o MODEL saves in place)");
	}
	rc = model_load_report(path, &m, err);
	if (rc)
		goto out;
	if (edit_session_open(&s, m, &e)) {
		rc = ov_error_report(err, path, &e);
		goto out;
	}
	s->say = say_stderr;
	/* Saving over the model itself (or a link to it) is the explicit way to save in place. */
	s->save_path = dest;
	s->save_flags = (force || save_same_file(path, dest)) ? OV_SAVE_REPLACE : 0;
	/* The journal is a third file: never the model, the output, or where the weights live. */
	if (journal) {
		const char *clash = save_same_file(journal, path) ? "is the model being edited" :
				    save_same_file(journal, dest) ? "is the output (-o) too" :
				    model_external_uses(m, journal) ? "is one of the model's external data files" : NULL;
		if (clash) {
			ov_fail(&e, OV_USAGE, "the journal %s: give it a file of its own", clash);
			rc = ov_error_report(err, journal, &e);
			goto out;
		}
	}
	/* Nothing is written until every command has succeeded: `save` commands only prepare their files. */
	s->defer_saves = 1;
	for (int i = 0; i < n_steps; i++) {
		int r = steps[i].is_script ? edit_run_script(s, steps[i].text, &e) : edit_run(s, steps[i].text, &e);
		if (r) {
			char what[600];
			/* a script's errors already name the script and the line */
			if (steps[i].is_script)
				snprintf(what, sizeof what, "%s", path);
			else
				snprintf(what, sizeof what, "%s: '%s'", path, steps[i].text);
			rc = ov_error_report(err, what, &e);
			goto out; /* nothing is written */
		}
	}
	/* The model first, then the journal, each through a temporary file, flushed, moved into place. */
	if (edit_defer_save(s, dest, s->save_flags, &e)) {
		rc = ov_error_report(err, dest, &e);
		goto out;
	}
	if (journal) {
		size_t len;
		char *text = edit_journal_text(s, &len);
		int r = text ? edit_defer_buffer(s, journal, force ? OV_SAVE_REPLACE : 0, text, len, &e)
			     : ov_fail(&e, OV_NOMEM, "out of memory");
		free(text);
		if (r) {
			ov_wrap(&e, "journal: ");
			rc = ov_error_report(err, journal, &e);
			goto out;
		}
	}
	if (edit_commit_saves(s, &e))
		rc = ov_error_report(err, NULL, &e);
out:
	edit_session_free(s);
	model_free(m);
	free(steps);
	return rc;
}
