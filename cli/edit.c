/* `onnxview edit`: load a model, apply edit commands (-e CMD, -s SCRIPT, in the order given), save atomically. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cmd.h"
#include "src/edit/edit.h"
#include "src/model/model.h"
#include "src/model/save.h"

static const char edit_usage[] =
	"usage: onnxview edit MODEL [-e COMMAND]... [-s SCRIPT]... -o OUT [--force] [--journal FILE]";

static int same_path(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

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
	/* Saving over the model itself is the explicit way to save in place. */
	s->save_path = dest;
	s->save_flags = (force || same_path(path, dest)) ? OV_SAVE_REPLACE : 0;
	for (int i = 0; i < n_steps; i++) {
		int r = steps[i].is_script ? edit_run_script(s, steps[i].text, &e) : edit_run(s, steps[i].text, &e);
		if (r) {
			char what[600];
			snprintf(what, sizeof what, "%s: %s%s%s", path, steps[i].is_script ? "" : "'",
				 steps[i].is_script ? "" : steps[i].text, steps[i].is_script ? "" : "'");
			rc = ov_error_report(err, what, &e);
			goto out; /* nothing is written */
		}
	}
	if (journal) {
		FILE *jf = fopen(journal, "wx");
		if (!jf && errno == EEXIST && force)
			jf = fopen(journal, "w");
		if (!jf) {
			ov_fail(&e, OV_WRITE, "cannot write the journal: %s%s", strerror(errno),
				errno == EEXIST ? " (use --force to replace it)" : "");
			rc = ov_error_report(err, journal, &e);
			goto out;
		}
		edit_journal_write(s, jf);
		if (fclose(jf)) {
			ov_fail(&e, OV_WRITE, "cannot write the journal: %s", strerror(errno));
			rc = ov_error_report(err, journal, &e);
			goto out;
		}
	}
	if (model_save(m, dest, s->save_flags, &e))
		rc = ov_error_report(err, dest, &e);
out:
	edit_session_free(s);
	model_free(m);
	free(steps);
	return rc;
}
