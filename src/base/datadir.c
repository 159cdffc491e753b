/* Finding the installed data files, with an override for tests, and the source tree's copy for a binary that is
 * still inside the build tree it was made in (never for an installed one). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/base/datadir.h"
#include "src/base/error.h"

#ifndef OV_DATADIR
#define OV_DATADIR "/usr/local/share/onnxview"
#endif

static const char *join(char *buf, size_t n, const char *dir, const char *file)
{
	int w = snprintf(buf, n, "%s/%s", dir, file);

	return w < 0 || (size_t)w >= n ? NULL : buf;
}

#if defined(OV_SRCDATADIR) && defined(OV_BUILDDIR)
/* Whether this program's binary lies inside the build tree it was built in (OV_BUILDDIR): an installed copy
 * never does, so it never reads a source tree, even one still on the machine. */
static int in_build_tree(void)
{
	static int known = -1;
	char exe[4096];
	size_t n = strlen(OV_BUILDDIR);
	ssize_t len;

	if (known >= 0)
		return known;
	len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	known = 0;
	if (len > 0 && (size_t)len > n) {
		exe[len] = '\0';
		known = !strncmp(exe, OV_BUILDDIR, n) && exe[n] == '/';
	}
	return known;
}
#endif

const char *datadir_path(const char *file, char *buf, size_t n)
{
	const char *env = getenv("ONNXVIEW_DATADIR");

	if (env && *env)
		return join(buf, n, env, file);
	if (join(buf, n, OV_DATADIR, file) && access(buf, R_OK) == 0)
		return buf;
#if defined(OV_SRCDATADIR) && defined(OV_BUILDDIR)
	if (in_build_tree() && join(buf, n, OV_SRCDATADIR, file) && access(buf, R_OK) == 0)
		return buf;
#endif
	return join(buf, n, OV_DATADIR, file);
}

int datadir_read(const char *path, size_t max, char **buf, size_t *len, struct ov_error *err)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *b = NULL;
	size_t n = 0;

	*buf = NULL;
	*len = 0;
	if (!f)
		return ov_fail(err, OV_IO, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode)) {
		fclose(f);
		return ov_fail(err, OV_IO, "%s is not a regular file", path);
	}
	/* Read in chunks rather than trusting st_size: the file may change under us. */
	for (size_t cap = 0;;) {
		if (n == cap) {
			if (cap > max) {
				free(b);
				fclose(f);
				return ov_fail(err, OV_LIMIT, "%s is larger than %zu bytes", path, max);
			}
			size_t ncap = cap ? cap * 2 : 65536;
			char *nb = realloc(b, ncap + 1);
			if (!nb) {
				free(b);
				fclose(f);
				return ov_fail(err, OV_NOMEM, "%s: out of memory", path);
			}
			b = nb;
			cap = ncap;
		}
		size_t got = fread(b + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno;
		free(b);
		fclose(f);
		return ov_fail(err, OV_IO, "cannot read %s: %s", path, strerror(e));
	}
	fclose(f);
	if (n > max) {
		free(b);
		return ov_fail(err, OV_LIMIT, "%s is larger than %zu bytes", path, max);
	}
	if (memchr(b, '\0', n)) {
		size_t at = (size_t)((char *)memchr(b, '\0', n) - b);
		free(b);
		return ov_fail(err, OV_FORMAT, "%s: NUL byte at offset %zu: not a text file", path, at);
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}
