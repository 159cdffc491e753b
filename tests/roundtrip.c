/* Round-trip check: load each model and serialise it again; the bytes must equal the file's, byte for byte.
 * Usage: roundtrip [--tap] MODEL...   (or a list of paths on stdin with '-'). Prints one line per failure and a
 * summary "N passed, N failed"; exit 1 if any failed. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/model/model.h"
#include "src/model/save.h"

static int tap, tap_n;

/* One result line: TAP ("ok N - ...", "not ok N - ...") or plain ("FAIL ..." only for failures). */
static void result(int good, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void result(int good, const char *path, const char *fmt, ...)
{
	va_list ap;

	if (!tap && good)
		return;
	if (tap)
		printf("%s %d - round trip %s: ", good ? "ok" : "not ok", tap_n, path);
	else
		printf("FAIL %s: ", path);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static int check(const char *path)
{
	struct ov_model *m;
	struct ov_error e = {0};
	uint8_t *buf;
	size_t len;

	tap_n++;
	if (model_load(&m, path, &e)) {
		result(0, path, "load: %s", e.msg);
		return 1;
	}
	if (model_pack(m, &buf, &len, &e)) {
		result(0, path, "pack: %s", e.msg);
		model_free(m);
		return 1;
	}
	int bad = len != m->map_len || memcmp(buf, m->map, len) != 0;
	if (bad) {
		size_t i = 0;
		while (i < len && i < m->map_len && buf[i] == m->map[i])
			i++;
		result(0, path, "%zu bytes written, %zu read, first difference at byte %zu", len, m->map_len, i);
	} else {
		result(1, path, "%zu bytes identical", len);
	}
	free(buf);
	model_free(m);
	return bad;
}

int main(int argc, char **argv)
{
	int pass = 0, fail = 0;
	char line[4096];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--tap")) {
			tap = 1;
		} else if (!strcmp(argv[i], "-")) {
			while (fgets(line, sizeof line, stdin)) {
				line[strcspn(line, "\n")] = '\0';
				if (*line)
					check(line) ? fail++ : pass++;
			}
		} else {
			check(argv[i]) ? fail++ : pass++;
		}
	}
	if (!tap)
		printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
