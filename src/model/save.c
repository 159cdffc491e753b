/* Atomic saving of models and of the external data files that travel with them. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/model/internal.h"
#include "src/model/save.h"

static const char *fault_step;

void save_inject_fault(const char *step)
{
	fault_step = step;
}

static int fault(const char *step)
{
	if (fault_step && !strcmp(fault_step, step)) {
		errno = !strcmp(step, "write") ? ENOSPC : EIO;
		return 1;
	}
	return 0;
}

/* A protobuf-c output buffer that streams to a file descriptor through a 1 MiB staging area. */
struct fd_buffer {
	ProtobufCBuffer base;
	int fd;
	int error; /* errno of the first failure, 0 if none */
	size_t used;
	uint8_t stage[1 << 20];
};

static int write_all(int fd, const uint8_t *p, size_t n)
{
	if (fault("write"))
		return -1;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void fd_flush(struct fd_buffer *b)
{
	if (b->used && !b->error && write_all(b->fd, b->stage, b->used))
		b->error = errno ? errno : EIO;
	b->used = 0;
}

static void fd_append(ProtobufCBuffer *base, size_t len, const uint8_t *data)
{
	struct fd_buffer *b = (struct fd_buffer *)base;

	if (b->error || len == 0) /* protobuf-c hands empty fields over as (NULL, 0) */
		return;
	if (len >= sizeof b->stage) {
		fd_flush(b);
		if (!b->error && write_all(b->fd, data, len))
			b->error = errno ? errno : EIO;
		return;
	}
	if (b->used + len > sizeof b->stage)
		fd_flush(b);
	memcpy(b->stage + b->used, data, len);
	b->used += len;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	return slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
}

/* Create a temporary file beside path; returns the fd and its name in *tmp (malloc'd). */
static int open_temp(const char *path, char **tmp, struct ov_error *err)
{
	const char *base = strrchr(path, '/');
	char *dir = dir_of(path);
	int fd;

	base = base ? base + 1 : path;
	if (!dir || asprintf(tmp, "%s/.%s.onnxview-XXXXXX", dir, base) < 0) {
		free(dir);
		return ov_fail(err, OV_NOMEM, "out of memory");
	}
	free(dir);
	fd = mkstemp(*tmp);
	if (fd < 0) {
		ov_fail(err, OV_WRITE, "cannot create a temporary file in the destination folder: %s",
			strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	/* mkstemp makes 0600; give the file the permissions a new file would get. */
	mode_t um = umask(0);
	umask(um);
	fchmod(fd, 0666 & ~um);
	return fd;
}

/* Flush the file to disk and move it into place; with replace == 0 an existing target is never touched. */
static int commit_temp(int fd, const char *tmp, const char *path, int replace, struct ov_error *err)
{
	char *dir;
	int dfd;

	if (fault("fsync") || fsync(fd) < 0) {
		ov_fail(err, OV_WRITE, "cannot flush to disk: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (close(fd) < 0)
		return ov_fail(err, OV_WRITE, "cannot close the temporary file: %s", strerror(errno));
	if (fault("rename"))
		return ov_fail(err, OV_WRITE, "cannot move the temporary file into place: %s", strerror(errno));
	if (replace) {
		if (rename(tmp, path) < 0)
			return ov_fail(err, OV_WRITE, "cannot move the temporary file into place: %s", strerror(errno));
	} else {
		/* link() fails with EEXIST instead of replacing: no window where another file could be lost. */
		if (link(tmp, path) < 0) {
			if (errno == EEXIST)
				return ov_fail(err, OV_EXISTS, "exists; use --force to replace it");
			return ov_fail(err, OV_WRITE, "cannot move the temporary file into place: %s", strerror(errno));
		}
		unlink(tmp);
	}
	dir = dir_of(path);
	dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(dir);
	return 0;
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int files_equal(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int eq = fa && fb;
	char ba[65536], bb[65536];

	while (eq) {
		size_t na = fread(ba, 1, sizeof ba, fa), nb = fread(bb, 1, sizeof bb, fb);
		if (na != nb || memcmp(ba, bb, na))
			eq = 0;
		if (na < sizeof ba)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return eq;
}

struct ext_copy {
	struct ov_model *m;
	const char *dest_dir;
	unsigned flags;
	char **created;
	size_t n_created;
	struct ov_error *err;
};

static int copy_file(const char *src, const char *dst, unsigned flags, struct ov_error *err)
{
	char buf[1 << 16];
	char *tmp = NULL;
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1;
	ssize_t n;

	if (in < 0)
		return ov_fail(err, OV_WRITE, "cannot read external data '%s': %s", src, strerror(errno));
	out = open_temp(dst, &tmp, err);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write_all(out, (uint8_t *)buf, (size_t)n)) {
			n = -1;
			break;
		}
	if (n < 0) {
		ov_fail(err, OV_WRITE, "cannot copy external data to '%s': %s", dst, strerror(errno));
		close(in);
		close(out);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	close(in);
	if (commit_temp(out, tmp, dst, (flags & OV_SAVE_REPLACE) != 0, err)) {
		unlink(tmp);
		free(tmp);
		return ov_wrap(err, "external data '%s': ", dst);
	}
	free(tmp);
	return 0;
}

static int ext_visit(Onnx__TensorProto *t, const struct tensor_site *site, void *ctx)
{
	struct ext_copy *c = ctx;
	const char *loc = tensor_external_value(t, "location");
	char *src, *dst = NULL, where[512];

	if (!tensor_is_external(t))
		return 0;
	src = external_resolve(c->m, t, c->err);
	if (!src)
		return ov_wrap(c->err, "%s: ", tensor_site_describe(site, t, where, sizeof where));
	if (asprintf(&dst, "%s/%s", c->dest_dir, loc) < 0) {
		free(src);
		return ov_fail(c->err, OV_NOMEM, "out of memory");
	}
	int r = 0;
	if (access(dst, F_OK) == 0) {
		/* Already there: the same file, or one with the same bytes, is fine; anything else needs --force. */
		if (!same_file(src, dst) && !files_equal(src, dst)) {
			if (!(c->flags & OV_SAVE_REPLACE))
				r = ov_fail(c->err, OV_EXISTS, "external data '%s' exists with other contents; use "
					    "--force to replace it", dst);
			else
				r = copy_file(src, dst, c->flags, c->err);
		}
	} else if (strchr(loc, '/')) {
		r = ov_fail(c->err, OV_WRITE, "external data '%s' lives in a subfolder; create '%s' beside the "
			    "destination first", loc, dst);
	} else {
		r = copy_file(src, dst, c->flags, c->err);
		if (!r) {
			char **nc = realloc(c->created, (c->n_created + 1) * sizeof *nc);
			if (nc) {
				c->created = nc;
				c->created[c->n_created++] = dst;
				dst = NULL;
			}
		}
	}
	free(src);
	free(dst);
	return r;
}

int model_save(struct ov_model *m, const char *path, unsigned flags, struct ov_error *err)
{
	struct fd_buffer *b;
	char *tmp = NULL, *dest_dir = dir_of(path), *dest_real = NULL;
	struct ext_copy ec = {.m = m, .flags = flags, .err = err};
	int fd, r = -1;

	if (!dest_dir)
		return ov_fail(err, OV_NOMEM, "out of memory");
	if (!(flags & OV_SAVE_REPLACE) && access(path, F_OK) == 0) {
		free(dest_dir);
		return ov_fail(err, OV_EXISTS, "exists; use --force to replace it");
	}
	dest_real = realpath(dest_dir, NULL);
	if (!dest_real) {
		ov_fail(err, OV_WRITE, "destination folder '%s': %s", dest_dir, strerror(errno));
		goto out;
	}
	if (!m->dir_real)
		m->dir_real = realpath(m->dir, NULL);
	if (m->dir_real && strcmp(dest_real, m->dir_real) != 0) {
		ec.dest_dir = dest_dir;
		if (model_foreach_tensor(m->proto, ext_visit, &ec))
			goto out;
	}
	b = malloc(sizeof *b);
	if (!b) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	fd = open_temp(path, &tmp, err);
	if (fd < 0) {
		free(b);
		goto out;
	}
	b->base.append = fd_append;
	b->fd = fd;
	b->error = 0;
	b->used = 0;
	protobuf_c_message_pack_to_buffer(&m->proto->base, &b->base);
	fd_flush(b);
	if (b->error) {
		ov_fail(err, OV_WRITE, "cannot write: %s", strerror(b->error));
		close(fd);
		free(b);
		goto out;
	}
	free(b);
	if (commit_temp(fd, tmp, path, (flags & OV_SAVE_REPLACE) != 0, err))
		goto out;
	r = 0;
out:
	if (tmp && r)
		unlink(tmp);
	if (r) /* undo the external files this save created */
		for (size_t i = 0; i < ec.n_created; i++)
			unlink(ec.created[i]);
	for (size_t i = 0; i < ec.n_created; i++)
		free(ec.created[i]);
	free(ec.created);
	free(tmp);
	free(dest_dir);
	free(dest_real);
	return r;
}

int model_pack(const struct ov_model *m, uint8_t **buf, size_t *len, struct ov_error *err)
{
	size_t n = protobuf_c_message_get_packed_size(&m->proto->base);

	*buf = malloc(n ? n : 1);
	if (!*buf)
		return ov_fail(err, OV_NOMEM, "out of memory packing %zu bytes", n);
	*len = protobuf_c_message_pack(&m->proto->base, *buf);
	return 0;
}
