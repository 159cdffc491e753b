/* libFuzzer target for the command language (src/edit*.c): the input is a script, up to 16 lines, run line by line
 * on the bundled example model (share/onnxview/examples/srcnn.onnx) through edit_run, the entry point of
 * `edit -e`, `edit -s` and the TUI's ':' prompt.  Besides crashes, hangs and sanitizer reports it checks the
 * engine's promises:
 * - a command that fails leaves the model exactly as it was (the same packed bytes);
 * - undoing every applied command gives back the original bytes, and redoing them all the bytes after the script;
 * - the model after each success still indexes and packs.
 * - save destinations (issue 14): as `onnxview edit` does, saves are deferred (edit_session.defer_saves) and go to a
 *   private scratch folder (on /dev/shm when there is one) that holds an existing file, a symbolic link to it, a
 *   dangling link, a FIFO and a folder; `save PATH` and `journal PATH` are confined to it (no "..", no absolute
 *   path).  Whatever the
 *   script does, none of those entries may change; discarded saves leave nothing, committed ones (the first input
 *   byte decides) leave regular files that load as models, and no temporary file is ever left behind.
 * Lines with @FILE values are skipped: the fuzzer must not read the disk.
 *
 * Build with tests/fuzz/build.sh (BUILD_DIR/fuzz-command); run with BUILD_DIR/fuzz-command CORPUS_DIR, seeded
 * with tests/fuzz/commands/ (scripts that use every command). */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/base/strbuf.h"

#include "src/edit/edit.h"
#include "src/graph/graph.h"
#include "src/model/model.h"
#include "src/model/save.h"

#define MAX_LINES 16
#define FUZZ_MAX_BYTES 4096

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz-command: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

static uint8_t *pack(const struct ov_model *m, size_t *len)
{
	*len = onnx__model_proto__get_packed_size(m->proto);
	uint8_t *buf = malloc(*len ? *len : 1);
	if (!buf)
		fail("out of memory", NULL);
	onnx__model_proto__pack(m->proto, buf);
	return buf;
}

static int same(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	return na == nb && !memcmp(a, b, na);
}

static int reads_files(const char *line)
{
	return strchr(line, '@') != NULL;
}

/* ---- the scratch folder saves go to ---- */
static char scratch[64];

static const char *in_scratch(const char *name)
{
	static char path[4200];
	snprintf(path, sizeof path, "%s/%s", scratch, name);
	return path;
}

static void scratch_clear(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4200];

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			scratch_clear(path);
			rmdir(path);
		} else {
			unlink(path);
		}
	}
	if (d)
		closedir(d);
}

/* A fresh scratch folder with one entry of every kind a save may meet. */
static void scratch_setup(void)
{
	if (!scratch[0]) {
		snprintf(scratch, sizeof scratch, "%s/fuzz-command.XXXXXX", access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
		if (!mkdtemp(scratch))
			fail("cannot create a scratch folder", scratch);
	}
	scratch_clear(scratch);
	FILE *f = fopen(in_scratch("existing.onnx"), "w");
	if (!f || fputs("keep", f) < 0 || fclose(f))
		fail("cannot write the scratch folder", scratch);
	if (symlink("existing.onnx", in_scratch("link")) || symlink("nowhere", in_scratch("dangling")) ||
	    mkfifo(in_scratch("fifo"), 0600) || mkdir(in_scratch("dir"), 0700))
		fail("cannot populate the scratch folder", scratch);
}

static int is_fixture(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, "existing.onnx") || !strcmp(name, "link") ||
	       !strcmp(name, "dangling") || !strcmp(name, "fifo") || !strcmp(name, "dir");
}

/* The entries of folder that are no fixture and none of the n files of keep (full paths). */
static size_t count_others(const char *folder, char **keep, size_t n, const char **one)
{
	DIR *d = opendir(folder);
	struct dirent *e;
	size_t others = 0;

	while (d && (e = readdir(d))) {
		if (is_fixture(e->d_name))
			continue;
		char path[4200];
		struct stat st, sk;
		int kept = 0;
		snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
		/* by inode: the fuzzer spells paths in many ways (a//b, ./a) */
		for (size_t i = 0; i < n && !kept; i++)
			kept = keep[i] && !lstat(path, &st) && !lstat(keep[i], &sk) && st.st_dev == sk.st_dev &&
			       st.st_ino == sk.st_ino;
		if (!kept) {
			others++;
			*one = e->d_name;
		}
	}
	if (d)
		closedir(d);
	return others;
}

/* Every fixture as it was, and besides them at most temps other entries (the prepared saves' temporary files) and
 * the n committed files of keep: a save never replaces or writes through a fixture, and a temporary file never
 * outlives its save (names are not trusted: a save may be called .x.onnxview-123456 too). */
static void scratch_check(size_t temps, char **keep, size_t n, const char *when)
{
	struct stat st;
	char buf[16] = {0}, target[64] = {0};
	FILE *f = fopen(in_scratch("existing.onnx"), "r");
	size_t got = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	const char *one = NULL;

	if (f)
		fclose(f);
	if (got != 4 || strcmp(buf, "keep"))
		fail("a save changed an existing file", when);
	if (readlink(in_scratch("link"), target, sizeof target - 1) != 13 || strcmp(target, "existing.onnx") ||
	    lstat(in_scratch("dangling"), &st) || !S_ISLNK(st.st_mode) || !lstat(in_scratch("nowhere"), &st) ||
	    lstat(in_scratch("fifo"), &st) || !S_ISFIFO(st.st_mode) || lstat(in_scratch("dir"), &st) ||
	    !S_ISDIR(st.st_mode))
		fail("a save replaced or wrote through a link, a FIFO or a folder", when);
	if (count_others(scratch, keep, n, &one) + count_others(in_scratch("dir"), keep, n, &one) > temps)
		fail("a save left a file it should not have (a temporary file, or an uncommitted save)", one);
}

/* "save PATH" and "journal PATH" with PATH in the scratch folder (or "save" alone); NULL to skip a path that would
 * leave it. */
static char *confined_save(const char *line)
{
	char **argv;
	struct ov_error err;
	int argc = edit_split(line, &argv, &err);
	char *out = NULL;

	if (argc < 1 || (strcmp(argv[0], "save") && strcmp(argv[0], "journal"))) {
		if (argc > 0)
			edit_free_words(argc, argv);
		return strdup(line);
	}
	if (argc == 1) {
		out = strdup(argv[0]);
	} else if (argc == 2 && argv[1][0] != '/' && !strstr(argv[1], "..") && strlen(argv[1]) < 200) {
		struct strbuf b = {0};
		strbuf_puts(&b, argv[0]);
		strbuf_putc(&b, ' ');
		strbuf_put_word(&b, in_scratch(argv[1]));
		out = strdup(strbuf_str(&b));
		strbuf_free(&b);
	}
	edit_free_words(argc, argv);
	return out;
}

static void quiet(void *ctx, const char *line)
{
	(void)ctx;
	(void)line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char model_path[] = OV_DATADIR "/examples/srcnn.onnx";
	char text[FUZZ_MAX_BYTES + 1];
	char *lines[MAX_LINES];
	int n = 0;
	struct ov_model *m = NULL;
	struct edit_session *s = NULL;
	struct ov_error err;

	if (size > FUZZ_MAX_BYTES)
		return -1;
	memcpy(text, data, size);
	text[size] = '\0';
	if (memchr(data, '\0', size))
		return -1; /* lines come from text: a NUL ends them earlier than the fuzzer thinks */
	for (char *p = text; *p && n < MAX_LINES;) {
		lines[n++] = p;
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	if (model_load(&m, model_path, &err))
		fail("cannot load the example model", err.msg);
	if (edit_session_open(&s, m, &err))
		fail("edit_session_open", err.msg);
	s->say = quiet;
	scratch_setup();
	s->defer_saves = 1; /* as `onnxview edit` */
	s->save_path = in_scratch("out.onnx");
	int commit = size > 0 && (data[0] & 1);
	size_t n0, nb;
	uint8_t *orig = pack(m, &n0), *before = pack(m, &nb);
	for (int i = 0; i < n; i++) {
		if (reads_files(lines[i]))
			continue;
		char *line = confined_save(lines[i]);
		if (!line)
			continue;
		int undo_redo = !strncmp(line, "undo", 4) || !strncmp(line, "redo", 4);
		int r = edit_run(s, line, &err);
		free(line);
		if (r) {
			size_t na;
			uint8_t *after = pack(m, &na);
			if (!undo_redo && !same(before, nb, after, na))
				fail("a failing command changed the model", lines[i]);
			free(after);
			continue;
		}
		if (edit_index(s, &err))
			fail("the model after a command cannot be indexed", err.msg);
		free(before);
		before = pack(m, &nb);
	}
	/* undo all, compare with the original; redo all, compare with the end */
	size_t applied = s->n_applied;
	for (size_t i = 0; i < applied; i++)
		if (edit_undo(s, &err))
			fail("undo failed", err.msg);
	size_t nu;
	uint8_t *undone = pack(m, &nu);
	if (!same(orig, n0, undone, nu))
		fail("undoing every command did not give back the original model", NULL);
	for (size_t i = 0; i < applied; i++)
		if (edit_redo(s, &err))
			fail("redo failed", err.msg);
	size_t nr;
	uint8_t *redone = pack(m, &nr);
	if (!same(before, nb, redone, nr))
		fail("redoing every command did not give back the edited model", NULL);
	free(orig);
	free(before);
	free(undone);
	free(redone);
	/* the saves: prepared only, so far */
	scratch_check(s->n_pending, NULL, 0, "before the commit");
	if (commit) {
		char **targets = calloc(s->n_pending + 1, sizeof *targets);
		size_t nt = s->n_pending;
		for (size_t i = 0; targets && i < nt; i++)
			targets[i] = strdup(save_pending_target(s->pending[i]));
		if (edit_commit_saves(s, &err) == 0)
			for (size_t i = 0; targets && i < nt; i++) {
				struct stat st;
				struct ov_model *saved;
				if (!targets[i] || lstat(targets[i], &st) || !S_ISREG(st.st_mode))
					fail("a committed save left no regular file", targets[i]);
				char head[24] = {0};
				FILE *f = fopen(targets[i], "r");
				if (f && fread(head, 1, sizeof head - 1, f) > 0 && !strncmp(head, "# onnxview edit script", 22)) {
					fclose(f); /* a journal */
					continue;
				}
				if (f)
					fclose(f);
				if (model_load(&saved, targets[i], &err))
					fail("a committed save does not load", err.msg);
				model_free(saved);
			}
		scratch_check(0, targets, targets ? nt : 0, "after the commit");
		edit_session_free(s);
		s = NULL;
		scratch_check(0, targets, targets ? nt : 0, "after the session");
		for (size_t i = 0; targets && i < nt; i++)
			free(targets[i]);
		free(targets);
	} else {
		edit_session_free(s);
		scratch_check(0, NULL, 0, "after the saves were discarded");
	}
	model_free(m);
	return 0;
}
