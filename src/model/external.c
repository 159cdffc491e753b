/* External tensor data: locations checked against the model's folder, files mapped lazily on first read. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/base/dtype.h"
#include "src/model/internal.h"

struct ov_extfile {
	struct ov_extfile *next;
	char *real;
	const uint8_t *map;
	size_t len;
	struct map_guard *guard;
};

/* A decimal number: 0, -1 when it is not one, -2 when it is past 2^64 - 1. */
static int parse_u64(const char *s, uint64_t *v)
{
	uint64_t r = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		unsigned d = (unsigned)(*s - '0');
		if (r > (UINT64_MAX - d) / 10) {
			for (s++; *s; s++)
				if (*s < '0' || *s > '9')
					return -1;
			return -2;
		}
		r = r * 10 + d;
	}
	*v = r;
	return 0;
}

static int bad_number(const char *what, const char *text, int why, struct ov_error *err)
{
	if (why == -2)
		return ov_fail(err, OV_EXTERNAL, "external data %s '%s' is out of range (over 2^64 - 1)", what, text);
	return ov_fail(err, OV_EXTERNAL, "external data %s '%s' is not a number", what, text);
}

static int has_dotdot(const char *loc)
{
	const char *p = loc;

	while (*p) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 1;
		p += n;
		while (*p == '/')
			p++;
	}
	return 0;
}

char *external_resolve(struct ov_model *m, const Onnx__TensorProto *t, struct ov_error *err)
{
	const char *loc = tensor_external_value(t, "location");
	char *joined, *real;
	size_t dl;

	if (!loc) {
		ov_fail(err, OV_EXTERNAL, "external data without a 'location' entry");
		return NULL;
	}
	if (!*loc) {
		ov_fail(err, OV_EXTERNAL, "external data location is empty");
		return NULL;
	}
	if (loc[0] == '/') {
		ov_fail(err, OV_EXTERNAL, "external data location '%s' is an absolute path; it must be relative to the "
			"model's folder", loc);
		return NULL;
	}
	if (has_dotdot(loc)) {
		ov_fail(err, OV_EXTERNAL, "external data location '%s' climbs out of the model's folder ('..')", loc);
		return NULL;
	}
	if (!m->dir_real) {
		m->dir_real = realpath(m->dir, NULL);
		if (!m->dir_real) {
			ov_fail(err, OV_EXTERNAL, "cannot resolve the model's folder '%s': %s", m->dir, strerror(errno));
			return NULL;
		}
	}
	if (asprintf(&joined, "%s/%s", m->dir, loc) < 0) {
		ov_fail(err, OV_NOMEM, "out of memory");
		return NULL;
	}
	real = realpath(joined, NULL);
	free(joined);
	if (!real) {
		ov_fail(err, OV_EXTERNAL, "external data file '%s': %s", loc, strerror(errno));
		return NULL;
	}
	dl = strlen(m->dir_real);
	if (!(dl == 1 && m->dir_real[0] == '/') &&
	    (strncmp(real, m->dir_real, dl) != 0 || real[dl] != '/')) {
		ov_fail(err, OV_EXTERNAL, "external data location '%s' leads out of the model's folder through a "
			"symbolic link (to %s)", loc, real);
		free(real);
		return NULL;
	}
	return real;
}

/* Resolve, stat and check the byte range; returns the real path (malloc'd) and the range. */
static char *external_range(struct ov_model *m, const Onnx__TensorProto *t, int64_t expect, uint64_t *off,
			    uint64_t *len, struct ov_error *err)
{
	const char *loc = tensor_external_value(t, "location");
	const char *so = tensor_external_value(t, "offset"), *sl = tensor_external_value(t, "length");
	struct stat st;
	char *real = external_resolve(m, t, err);

	if (!real)
		return NULL;
	*off = 0;
	int why;
	if (so && (why = parse_u64(so, off))) {
		bad_number("offset", so, why, err);
		goto fail;
	}
	if (sl && (why = parse_u64(sl, len))) {
		bad_number("length", sl, why, err);
		goto fail;
	}
	if (!sl)
		*len = expect >= 0 ? (uint64_t)expect : 0;
	if (stat(real, &st) < 0) {
		ov_fail(err, OV_EXTERNAL, "external data file '%s': %s", loc, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		ov_fail(err, OV_EXTERNAL, "external data file '%s' is not a regular file", loc);
		goto fail;
	}
	if (expect >= 0 && *len != (uint64_t)expect) {
		ov_fail(err, OV_EXTERNAL, "external data length is %llu bytes but its dtype and shape need %lld",
			(unsigned long long)*len, (long long)expect);
		goto fail;
	}
	if (*off > (uint64_t)st.st_size || *len > (uint64_t)st.st_size - *off) {
		ov_fail(err, OV_EXTERNAL, "external data at offset %llu, %llu bytes, runs past the end of '%s' "
			"(%llu bytes)", (unsigned long long)*off, (unsigned long long)*len, loc,
			(unsigned long long)st.st_size);
		goto fail;
	}
	return real;
fail:
	free(real);
	return NULL;
}

int external_extent(struct ov_model *m, const Onnx__TensorProto *t, uint64_t *end, struct ov_error *err)
{
	int64_t n = tensor_numel(t, err);
	uint64_t off, len;
	char *real;

	if (n < 0)
		return -1;
	real = external_range(m, t, dtype_raw_bytes(t->data_type, n), &off, &len, err);
	if (!real)
		return -1;
	free(real);
	*end = off + len; /* external_range checked it against the file's size */
	return 0;
}

struct uses_ctx {
	struct ov_model *m;
	const char *real; /* the path with symbolic links resolved, or NULL */
	struct stat st;
	int have_st, found;
};

static int uses_visit(Onnx__TensorProto *t, const struct tensor_site *site, void *ctx)
{
	struct uses_ctx *u = ctx;
	struct stat st;
	struct ov_error e;

	(void)site;
	if (!tensor_is_external(t))
		return 0;
	char *real = external_resolve(u->m, t, &e);
	if (!real)
		return 0;
	if ((u->real && !strcmp(u->real, real)) ||
	    (u->have_st && stat(real, &st) == 0 && st.st_dev == u->st.st_dev && st.st_ino == u->st.st_ino))
		u->found = 1;
	free(real);
	return u->found;
}

int model_external_uses(struct ov_model *m, const char *path)
{
	struct uses_ctx u = {.m = m, .real = realpath(path, NULL)};

	u.have_st = stat(path, &u.st) == 0;
	model_foreach_tensor(m->proto, uses_visit, &u);
	free((char *)u.real);
	return u.found;
}

int model_external_check_unchanged(struct ov_model *m, struct ov_error *err)
{
	for (struct ov_extfile *f = m->ext; f; f = f->next) {
		char what[600];
		snprintf(what, sizeof what, "external data '%s'", f->real);
		if (map_guard_check(f->guard, what, err))
			return -1;
	}
	return 0;
}

int external_check(struct ov_model *m, const Onnx__TensorProto *t, int64_t expect, struct ov_error *err)
{
	uint64_t off, len;
	char *real = external_range(m, t, expect, &off, &len, err);

	free(real);
	return real ? 0 : -1;
}

int model_external_data(struct ov_model *m, const Onnx__TensorProto *t, const uint8_t **data, size_t *len,
			struct ov_error *err)
{
	int64_t n = tensor_numel(t, err);
	int64_t expect = n < 0 ? -1 : dtype_raw_bytes(t->data_type, n);
	uint64_t off, l;
	struct ov_extfile *f;
	char *real;

	if (n < 0)
		return -1;
	real = external_range(m, t, expect, &off, &l, err);
	if (!real)
		return -1;
	for (f = m->ext; f; f = f->next)
		if (!strcmp(f->real, real))
			break;
	if (!f) {
		struct stat st;
		int fd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0 || fstat(fd, &st) < 0) {
			ov_fail(err, OV_EXTERNAL, "cannot open external data '%s': %s", real, strerror(errno));
			if (fd >= 0)
				close(fd);
			free(real);
			return -1;
		}
		f = calloc(1, sizeof *f);
		if (!f) {
			close(fd);
			free(real);
			return ov_fail(err, OV_NOMEM, "out of memory");
		}
		f->len = (size_t)st.st_size;
		if (f->len) {
			void *p = mmap(NULL, f->len, PROT_READ, MAP_PRIVATE, fd, 0);
			if (p == MAP_FAILED) {
				ov_fail(err, OV_EXTERNAL, "cannot map external data '%s': %s", real, strerror(errno));
				close(fd);
				free(f);
				free(real);
				return -1;
			}
			f->map = p;
			f->guard = map_guard_add(p, f->len, real, &st);
		}
		close(fd);
		f->real = real;
		real = NULL;
		f->next = m->ext;
		m->ext = f;
	}
	free(real);
	if (off > f->len || l > f->len - off) /* the file shrank since it was checked */
		return ov_fail(err, OV_EXTERNAL, "external data runs past the end of '%s'", f->real);
	char what[600];
	snprintf(what, sizeof what, "external data '%s'", f->real);
	if (map_guard_check(f->guard, what, err))
		return -1;
	*data = f->map ? f->map + off : (const uint8_t *)"";
	*len = (size_t)l;
	return 0;
}

void model_external_close(struct ov_model *m)
{
	struct ov_extfile *f = m->ext, *next;

	for (; f; f = next) {
		next = f->next;
		map_guard_remove(f->guard);
		if (f->map)
			munmap((void *)f->map, f->len);
		free(f->real);
		free(f);
	}
	m->ext = NULL;
}
