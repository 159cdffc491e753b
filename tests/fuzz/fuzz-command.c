/* libFuzzer target for the command language (src/edit*.c): the input is a script, up to 16 lines, run line by line
 * on the bundled example model (share/onnxview/examples/srcnn.onnx) through edit_run, the entry point of
 * `edit -e`, `edit -s` and the TUI's ':' prompt.  Besides crashes, hangs and sanitizer reports it checks the
 * engine's promises:
 * - a command that fails leaves the model exactly as it was (the same packed bytes);
 * - undoing every applied command gives back the original bytes, and redoing them all the bytes after the script;
 * - the model after each success still indexes and packs.
 * Lines that would touch files (save, @FILE values) are skipped: the fuzzer must not write or read the disk.
 *
 * Build with tests/fuzz/build.sh (BUILD_DIR/fuzz-command); run with BUILD_DIR/fuzz-command CORPUS_DIR, seeded
 * with tests/fuzz/commands/ (scripts that use every command). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/edit/edit.h"
#include "src/graph/graph.h"
#include "src/model/model.h"

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

static int touches_files(const char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	return !strncmp(line, "save", 4) || strchr(line, '@') != NULL;
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
	size_t n0, nb;
	uint8_t *orig = pack(m, &n0), *before = pack(m, &nb);
	for (int i = 0; i < n; i++) {
		if (touches_files(lines[i]))
			continue;
		int undo_redo = !strncmp(lines[i], "undo", 4) || !strncmp(lines[i], "redo", 4);
		if (edit_run(s, lines[i], &err)) {
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
	edit_session_free(s);
	model_free(m);
	return 0;
}
