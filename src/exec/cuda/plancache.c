/* The CUDA convolutions' timed choices kept across processes (src/exec/cuda/plancache.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/exec/cuda/plancache.h"

struct entry {
	char device[352];
	int key[PLANCACHE_KEY_MAX], n;
	struct plan_choice c;
};

static struct entry *entries;
static size_t n_entries, cap_entries;
static int state; /* 0 not read, 1 read, -1 off */
static char path[1024];

static int make_path(void)
{
	const char *p = getenv("OV_CUDA_PLAN_CACHE");
	if (p)
		return *p && strcmp(p, "0") && (size_t)snprintf(path, sizeof path, "%s", p) < sizeof path;
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int len = xdg && *xdg == '/' ? snprintf(path, sizeof path, "%s/onnxview/cuda-conv-plans", xdg)
		  : home && *home == '/' ? snprintf(path, sizeof path, "%s/.cache/onnxview/cuda-conv-plans", home)
					 : -1;
	return len > 0 && (size_t)len < sizeof path;
}

static void keep(const char *device, const int *key, int n, const struct plan_choice *c)
{
	if (n_entries == cap_entries) {
		size_t cap = cap_entries ? 2 * cap_entries : 64;
		struct entry *e = realloc(entries, cap * sizeof *e);
		if (!e)
			return;
		entries = e;
		cap_entries = cap;
	}
	struct entry *e = &entries[n_entries++];
	snprintf(e->device, sizeof e->device, "%s", device);
	memcpy(e->key, key, (size_t)n * sizeof *key);
	e->n = n;
	e->c = *c;
}

const char *const plancache_ways[4] = {"cudnn", "blas", "blas-merged", "direct"};

/* One line "v2 DEVICE K0,K1,... ALGO MATH WAY BLAS_MS DNN_MS DIRECT_MS" (or v1's "... ALGO MATH BLAS BLAS_MS
 * DNN_MS") into the entries; anything else, and a way not in plancache_ways, is skipped. */
static void parse_line(char *line)
{
	char device[352], keys[512], way[16];
	struct plan_choice c;
	int key[PLANCACHE_KEY_MAX], n = 0, used = 0, w;

	memset(&c, 0, sizeof c);
	c.direct_ms = -1;
	if (sscanf(line, "v1 %351s %511s %d %d %d %f %f %n", device, keys, &c.algo, &c.math, &c.blas, &c.blas_ms,
		   &c.dnn_ms, &used) == 7 && !line[used]) {
		; /* the first format: cuDNN or a cuBLAS way (conv.cu checks the number) */
	} else if (used = 0, sscanf(line, "v2 %351s %511s %d %d %15s %f %f %f %n", device, keys, &c.algo, &c.math, way,
				   &c.blas_ms, &c.dnn_ms, &c.direct_ms, &used) == 8 && !line[used]) {
		for (w = 0; w < 4 && strcmp(way, plancache_ways[w]); w++)
			;
		if (w == 4)
			return;
		c.blas = w % 3;
		c.direct = w == 3;
	} else {
		return;
	}
	for (char *s = keys, *end;; s = end + 1) {
		long v = strtol(s, &end, 10);
		if (end == s || n == PLANCACHE_KEY_MAX || v < -2147483647L || v > 2147483647L)
			return;
		key[n++] = (int)v;
		if (!*end)
			break;
		if (*end != ',')
			return;
	}
	keep(device, key, n, &c);
}

static void load(void)
{
	struct stat st;
	state = -1;
	if (!make_path())
		return;
	state = 1;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	char *buf = NULL;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size <= PLANCACHE_MAX &&
	    (buf = malloc((size_t)st.st_size + 1))) {
		size_t got = 0;
		ssize_t r;
		while (got < (size_t)st.st_size && (r = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
			got += (size_t)r;
		buf[got] = '\0';
		for (char *line = buf, *end = buf + got, *nl; line < end; line = nl + 1) {
			nl = memchr(line, '\n', (size_t)(end - line));
			if (!nl) /* a last line without its newline: cut short by a writer, skipped */
				break;
			*nl = '\0';
			if (!memchr(line, '\0', (size_t)(nl - line))) /* a line with a NUL in it is no line of ours */
				parse_line(line);
		}
	}
	free(buf);
	close(fd);
}

int plancache_find(const char *device, const int *key, int n, struct plan_choice *c)
{
	if (!state)
		load();
	for (size_t i = 0; state > 0 && i < n_entries; i++)
		if (entries[i].n == n && !memcmp(entries[i].key, key, (size_t)n * sizeof *key) &&
		    !strcmp(entries[i].device, device)) {
			*c = entries[i].c;
			return 1;
		}
	return 0;
}

/* mkdir -p of path's folder (0700 for what it makes); 0 when it is there. */
static int make_dirs(void)
{
	char dir[sizeof path];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1;; p++) {
		if (*p == '/' || !*p) {
			char c = *p;
			*p = '\0';
			if (mkdir(dir, 0700) && errno != EEXIST)
				return -1;
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

void plancache_add(const char *device, const int *key, int n, const struct plan_choice *c)
{
	char line[1200];
	struct stat st;

	if (!state)
		load();
	if (state < 0 || n > PLANCACHE_KEY_MAX || strchr(device, ' ') || strchr(device, '\n'))
		return;
	if (!c->direct && (c->blas < 0 || c->blas > 2)) /* no way of plancache_ways */
		return;
	keep(device, key, n, c);
	int way = c->direct ? 3 : c->blas;
	int len = snprintf(line, sizeof line, "v2 %s ", device);
	for (int i = 0; i < n && len > 0 && (size_t)len < sizeof line; i++)
		len += snprintf(line + len, sizeof line - (size_t)len, "%s%d", i ? "," : "", key[i]);
	if (len > 0 && (size_t)len < sizeof line)
		len += snprintf(line + len, sizeof line - (size_t)len, " %d %d %s %.6g %.6g %.6g\n", c->algo, c->math,
				plancache_ways[way], c->blas_ms, c->dnn_ms, c->direct_ms);
	if (len <= 0 || (size_t)len + 1 >= sizeof line || make_dirs())
		return;
	int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
	if (fd < 0)
		return;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size + len + 1 <= PLANCACHE_MAX) {
		/* after a line cut short (a writer stopped mid-line), ours starts on a line of its own */
		char last = '\n';
		if (st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) != 1)
			last = '\n';
		const char *at = line;
		if (last != '\n') {
			memmove(line + 1, line, (size_t)len + 1);
			line[0] = '\n';
			len++;
		}
		ssize_t w = write(fd, at, (size_t)len);
		(void)w; /* a cache: a short write leaves a line without its newline, skipped when read */
	}
	close(fd);
}

const char *plancache_path(void)
{
	if (!state)
		load();
	return state > 0 ? path : NULL;
}

void plancache_reset(void)
{
	free(entries);
	entries = NULL;
	n_entries = cap_entries = 0;
	state = 0;
}
