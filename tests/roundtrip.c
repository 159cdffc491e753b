/* Round-trip check: load each model and serialise it again; the bytes must equal the file's, byte for byte.
 * Usage: roundtrip [-v] MODEL...   (or a list of paths on stdin with '-'). Prints one line per failure and a
 * summary "N passed, N failed"; exit 1 if any failed. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/model.h"
#include "src/save.h"

static int check(const char *path, int verbose)
{
	struct ov_model *m;
	struct ov_error e = {0};
	uint8_t *buf;
	size_t len;

	if (model_load(&m, path, &e)) {
		printf("FAIL %s: load: %s\n", path, e.msg);
		return 1;
	}
	if (model_pack(m, &buf, &len, &e)) {
		printf("FAIL %s: pack: %s\n", path, e.msg);
		model_free(m);
		return 1;
	}
	int bad = len != m->map_len || memcmp(buf, m->map, len) != 0;
	if (bad) {
		size_t i = 0;
		while (i < len && i < m->map_len && buf[i] == m->map[i])
			i++;
		printf("FAIL %s: %zu bytes written, %zu read, first difference at byte %zu\n", path, len, m->map_len, i);
	} else if (verbose) {
		printf("ok   %s (%zu bytes, %zu payloads kept in the mapping)\n", path, len, m->n_lifted);
	}
	free(buf);
	model_free(m);
	return bad;
}

int main(int argc, char **argv)
{
	int verbose = 0, pass = 0, fail = 0;
	char line[4096];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			verbose = 1;
		} else if (!strcmp(argv[i], "-")) {
			while (fgets(line, sizeof line, stdin)) {
				line[strcspn(line, "\n")] = '\0';
				if (*line)
					check(line, verbose) ? fail++ : pass++;
			}
		} else {
			check(argv[i], verbose) ? fail++ : pass++;
		}
	}
	printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
