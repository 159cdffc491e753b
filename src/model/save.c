/* Atomic saving of the files onnxview writes: models with the external data files that travel with them, journals,
 * tensor files, drawings. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
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

/* ---- temporary files and the signals that would leave them behind ---- */

/* The temporary files that exist now.  A signal handler reads the table: entries are set and cleared with the
 * signals blocked, and the paths they point to live until the entry is cleared. */
#define LIVE_MAX 16
static char *volatile live[LIVE_MAX];
static int n_live;
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_CLEANUP_SIGNALS (sizeof cleanup_signals / sizeof cleanup_signals[0])
static struct sigaction previous[N_CLEANUP_SIGNALS];
static int installed[N_CLEANUP_SIGNALS];

static void on_signal(int sig)
{
	int saved = errno;

	for (int i = 0; i < LIVE_MAX; i++)
		if (live[i])
			unlink(live[i]); /* async-signal-safe */
	/* hand the signal to what was there before (the default: the program ends, with the signal's status) */
	for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++)
		if (cleanup_signals[i] == sig && installed[i]) {
			sigaction(sig, &previous[i], NULL);
			installed[i] = 0;
		}
	raise(sig); /* blocked while this handler runs: delivered as it returns */
	errno = saved;
}

static void block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++)
		sigaddset(&set, cleanup_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* With the signals blocked: remember tmp (owned by the caller until live_remove) and install the handlers. */
static void live_add(char *tmp)
{
	for (int i = 0; i < LIVE_MAX; i++)
		if (!live[i]) {
			live[i] = tmp;
			break;
		}
	if (n_live++ == 0)
		for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++) {
			struct sigaction sa;
			memset(&sa, 0, sizeof sa);
			sa.sa_handler = on_signal;
			sigemptyset(&sa.sa_mask);
			for (size_t j = 0; j < N_CLEANUP_SIGNALS; j++)
				sigaddset(&sa.sa_mask, cleanup_signals[j]);
			installed[i] = 0;
			if (sigaction(cleanup_signals[i], NULL, &previous[i]) == 0 && previous[i].sa_handler != SIG_IGN &&
			    sigaction(cleanup_signals[i], &sa, NULL) == 0)
				installed[i] = 1;
		}
}

static void live_remove(const char *tmp)
{
	for (int i = 0; i < LIVE_MAX; i++)
		if (live[i] == tmp)
			live[i] = NULL;
	if (n_live > 0 && --n_live == 0)
		for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++)
			if (installed[i]) {
				sigaction(cleanup_signals[i], &previous[i], NULL);
				installed[i] = 0;
			}
}

/* Remove the temporary file (if unlink_it) and forget it, so that no signal handler touches the path again. */
static void temp_drop(char *tmp, int unlink_it)
{
	sigset_t old;

	if (!tmp)
		return;
	block_signals(&old);
	if (unlink_it)
		unlink(tmp);
	live_remove(tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(tmp);
}

/* ---- writing ---- */

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

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* ---- destinations ---- */

char *save_target_path(const char *path, int nofollow)
{
	struct stat st;
	char *dir, *real, *r = NULL;

	if (!nofollow && lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && (real = realpath(path, NULL)))
		return real;
	dir = dir_of(path);
	real = dir ? realpath(dir, NULL) : NULL;
	free(dir);
	if (real && asprintf(&r, "%s%s%s", real, strcmp(real, "/") ? "/" : "", base_of(path)) < 0)
		r = NULL;
	free(real);
	return r;
}

int save_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	char *ta, *tb;
	int same;

	if (stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino)
		return 1;
	ta = save_target_path(a, 0);
	tb = save_target_path(b, 0);
	same = ta && tb && !strcmp(ta, tb);
	free(ta);
	free(tb);
	return same;
}

static const char *kind_of(mode_t mode)
{
	return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device" :
	       S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

/* The file a save to path writes (malloc'd): path itself, or with a symbolic link followed, the regular file it
 * names.  *exists says whether something is there to be replaced.  NULL with err set when the destination is
 * refused. */
static char *resolve_dest(const char *path, unsigned flags, int *exists, struct ov_error *err)
{
	struct stat st;
	char *target;

	*exists = 0;
	if (!*path) {
		ov_fail(err, OV_USAGE, "an empty file name");
		return NULL;
	}
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT) {
			ov_fail(err, OV_WRITE, "cannot write there: %s", strerror(errno));
			return NULL;
		}
		target = strdup(path);
		if (!target)
			ov_fail(err, OV_NOMEM, "out of memory");
		return target;
	}
	*exists = 1;
	if (S_ISLNK(st.st_mode) && !(flags & OV_SAVE_NOFOLLOW)) {
		target = realpath(path, NULL);
		if (!target) {
			ov_fail(err, OV_WRITE, "a symbolic link that leads nowhere (%s): not followed", strerror(errno));
			return NULL;
		}
		if (stat(target, &st) < 0) {
			ov_fail(err, OV_WRITE, "a symbolic link to '%s': %s", target, strerror(errno));
			free(target);
			return NULL;
		}
		if (!S_ISREG(st.st_mode)) {
			ov_fail(err, OV_WRITE, "a symbolic link to %s (%s): only regular files are replaced",
				kind_of(st.st_mode), target);
			free(target);
			return NULL;
		}
	} else if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		ov_fail(err, OV_WRITE, "%s: only regular files are replaced, --force or not", kind_of(st.st_mode));
		return NULL;
	} else {
		target = strdup(path);
		if (!target) {
			ov_fail(err, OV_NOMEM, "out of memory");
			return NULL;
		}
	}
	if (!(flags & OV_SAVE_REPLACE)) {
		ov_fail(err, OV_EXISTS, "exists; use --force to replace it");
		free(target);
		return NULL;
	}
	return target;
}

/* Create a temporary file beside target; returns the fd and its name in *tmp (malloc'd, registered for the
 * signal handlers until temp_drop). */
static int open_temp(const char *target, char **tmp, struct ov_error *err)
{
	char *dir = dir_of(target), *name = NULL;
	sigset_t old;
	int fd;

	*tmp = NULL;
	if (!dir || asprintf(&name, "%s/.%s.onnxview-XXXXXX", dir, base_of(target)) < 0) {
		free(dir);
		return ov_fail(err, OV_NOMEM, "out of memory");
	}
	free(dir);
	block_signals(&old);
	fd = mkstemp(name);
	if (fd >= 0)
		live_add(name);
	int e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		ov_fail(err, OV_WRITE, "cannot create a temporary file in the destination folder: %s", strerror(e));
		free(name);
		return -1;
	}
	/* mkstemp makes 0600; give the file the permissions a new file would get. */
	mode_t um = umask(0);
	umask(um);
	fchmod(fd, 0666 & ~um);
	*tmp = name;
	return fd;
}

/* Flush the temporary file to disk and close it (fd is closed in every case). */
static int flush_temp(int fd, struct ov_error *err)
{
	if (fault("fsync") || fsync(fd) < 0) {
		ov_fail(err, OV_WRITE, "cannot flush to disk: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (close(fd) < 0)
		return ov_fail(err, OV_WRITE, "cannot close the temporary file: %s", strerror(errno));
	return 0;
}

/* Move the flushed temporary file into place; with replace == 0 an existing target is never touched.  The
 * temporary file is gone afterwards, whatever happened. */
static int move_temp(char *tmp, const char *target, int replace, struct ov_error *err)
{
	sigset_t old;
	int r = 0;

	block_signals(&old);
	if (fault("rename")) {
		r = ov_fail(err, OV_WRITE, "cannot move the temporary file into place: %s", strerror(errno));
	} else if (replace) {
		if (rename(tmp, target) < 0)
			r = ov_fail(err, OV_WRITE, "cannot move the temporary file into place: %s", strerror(errno));
	} else if (link(tmp, target) < 0) {
		/* link() fails with EEXIST instead of replacing: no window where another file could be lost */
		if (errno == EEXIST)
			r = ov_fail(err, OV_EXISTS, "exists; use --force to replace it");
		else
			r = ov_fail(err, OV_WRITE, "cannot move the temporary file into place: %s", strerror(errno));
	}
	unlink(tmp); /* after a rename, no such file: harmless */
	live_remove(tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(tmp);
	if (r)
		return r;
	char *dir = dir_of(target);
	int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(dir);
	return 0;
}

/* ---- the two steps ---- */

struct ext_file {
	char *src, *dst; /* the real source, and where the copy goes */
	uint64_t need;   /* bytes the model's tensors need from it (the largest offset + length) */
};

struct save_pending {
	char *target;
	char *tmp; /* the flushed temporary file */
	unsigned flags;
	struct ov_model *m;  /* for a model: checked again at commit */
	struct ext_file *ext; /* external data files to copy beside the target */
	size_t n_ext;
};

const char *save_pending_target(const struct save_pending *p)
{
	return p->target;
}

static void pending_free(struct save_pending *p)
{
	for (size_t i = 0; i < p->n_ext; i++) {
		free(p->ext[i].src);
		free(p->ext[i].dst);
	}
	free(p->ext);
	free(p->target);
	free(p);
}

void save_discard(struct save_pending *p)
{
	if (!p)
		return;
	temp_drop(p->tmp, 1);
	pending_free(p);
}

/* Resolve the destination, write through fn into a temporary file, flush it. */
static int prepare(const char *path, unsigned flags, save_write_fn fn, void *ctx, struct save_pending **out,
		   struct ov_error *err)
{
	struct save_pending *p = calloc(1, sizeof *p);
	int exists;

	*out = NULL;
	if (!p)
		return ov_fail(err, OV_NOMEM, "out of memory");
	p->flags = flags;
	p->target = resolve_dest(path, flags, &exists, err);
	if (!p->target) {
		free(p);
		return -1;
	}
	int fd = open_temp(p->target, &p->tmp, err);
	if (fd < 0) {
		pending_free(p);
		return -1;
	}
	errno = 0;
	if (fn(fd, ctx, err)) {
		close(fd);
		save_discard(p);
		return -1;
	}
	if (flush_temp(fd, err)) {
		save_discard(p);
		return -1;
	}
	*out = p;
	return 0;
}

static int copy_external(const struct ext_file *x, unsigned flags, struct ov_error *err);

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

int save_commit(struct save_pending *p, struct ov_error *err)
{
	char **created = NULL;
	size_t n_created = 0;
	int r = -1;

	if (p->m && model_check_unchanged(p->m, err))
		goto out;
	for (size_t i = 0; i < p->n_ext; i++) {
		const struct ext_file *x = &p->ext[i];
		struct stat st;
		int there = lstat(x->dst, &st) == 0;
		if (there && (same_file(x->src, x->dst) || files_equal(x->src, x->dst)))
			continue; /* the same file, or one with the same bytes: fine */
		if (there && !(p->flags & OV_SAVE_REPLACE)) {
			ov_fail(err, OV_EXISTS, "external data '%s' exists with other contents; use --force to replace it",
				x->dst);
			goto out;
		}
		if (copy_external(x, p->flags, err))
			goto out;
		if (!there) {
			char **nc = realloc(created, (n_created + 1) * sizeof *nc);
			if (nc) {
				created = nc;
				created[n_created++] = x->dst;
			}
		}
	}
	char *tmp = p->tmp;
	p->tmp = NULL;
	r = move_temp(tmp, p->target, (p->flags & OV_SAVE_REPLACE) != 0, err);
out:
	if (r) /* undo the external files this save created */
		for (size_t i = 0; i < n_created; i++)
			unlink(created[i]);
	free(created);
	save_discard(p);
	return r;
}

struct buffer_ctx {
	const void *data;
	size_t len;
};

static int write_buffer(int fd, void *ctx, struct ov_error *err)
{
	struct buffer_ctx *b = ctx;

	if (write_all(fd, b->data, b->len))
		return ov_fail(err, OV_WRITE, "cannot write: %s", strerror(errno));
	return 0;
}

int save_prepare_buffer(const char *path, unsigned flags, const void *data, size_t len, struct save_pending **out,
			struct ov_error *err)
{
	struct buffer_ctx b = {data, len};

	return prepare(path, flags, write_buffer, &b, out, err);
}

int save_file(const char *path, unsigned flags, save_write_fn fn, void *ctx, struct ov_error *err)
{
	struct save_pending *p;

	if (prepare(path, flags, fn, ctx, &p, err))
		return -1;
	return save_commit(p, err);
}

int save_buffer(const char *path, unsigned flags, const void *data, size_t len, struct ov_error *err)
{
	struct buffer_ctx b = {data, len};

	return save_file(path, flags, write_buffer, &b, err);
}

/* ---- models ---- */

/* Copy external data x->src beside the saved model.  The copy must hold every byte the model needs from it and be
 * the whole file as it was when the copy began: a source that shrinks or grows meanwhile fails the save. */
static int copy_external(const struct ext_file *x, unsigned flags, struct ov_error *err)
{
	char buf[1 << 16];
	char *tmp = NULL;
	struct stat st, st2;
	int in = open(x->src, O_RDONLY | O_CLOEXEC | O_NONBLOCK), out;
	uint64_t copied = 0;
	ssize_t n;
	int exists;

	if (in < 0)
		return ov_fail(err, OV_WRITE, "cannot read external data '%s': %s", x->src, strerror(errno));
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(in);
		return ov_fail(err, OV_WRITE, "external data '%s' is not a regular file", x->src);
	}
	if ((uint64_t)st.st_size < x->need) {
		close(in);
		return ov_fail(err, OV_EXTERNAL, "external data '%s' has %llu bytes but the model needs %llu: it changed "
			       "while open", x->src, (unsigned long long)st.st_size, (unsigned long long)x->need);
	}
	char *target = resolve_dest(x->dst, flags, &exists, err);
	if (!target) {
		close(in);
		return ov_wrap(err, "external data '%s': ", x->dst);
	}
	out = open_temp(target, &tmp, err);
	if (out < 0) {
		free(target);
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write_all(out, (uint8_t *)buf, (size_t)n)) {
			ov_fail(err, OV_WRITE, "cannot copy external data to '%s': %s", x->dst, strerror(errno));
			goto fail;
		}
		copied += (uint64_t)n;
	}
	if (fstat(in, &st2) < 0 || copied != (uint64_t)st.st_size || st2.st_size != st.st_size || copied < x->need) {
		ov_fail(err, OV_EXTERNAL, "external data '%s' changed while it was copied (%llu bytes copied, %llu "
			"expected, %llu needed by the model)", x->src, (unsigned long long)copied,
			(unsigned long long)st.st_size, (unsigned long long)x->need);
		goto fail;
	}
	close(in);
	if (flush_temp(out, err)) {
		temp_drop(tmp, 1);
		free(target);
		return ov_wrap(err, "external data '%s': ", x->dst);
	}
	if (move_temp(tmp, target, (flags & OV_SAVE_REPLACE) != 0, err)) {
		free(target);
		return ov_wrap(err, "external data '%s': ", x->dst);
	}
	free(target);
	return 0;
fail:
	close(in);
	close(out);
	temp_drop(tmp, 1);
	free(target);
	return -1;
}

struct ext_plan {
	struct ov_model *m;
	const char *dest_dir;
	struct save_pending *p;
	struct ov_error *err;
};

/* Note each external file the model's tensors use, with the bytes they need from it. */
static int ext_visit(Onnx__TensorProto *t, const struct tensor_site *site, void *ctx)
{
	struct ext_plan *c = ctx;
	const char *loc = tensor_external_value(t, "location");
	char where[512];
	uint64_t end;

	if (!tensor_is_external(t))
		return 0;
	char *src = external_resolve(c->m, t, c->err);
	if (!src || external_extent(c->m, t, &end, c->err)) {
		free(src);
		return ov_wrap(c->err, "%s: ", tensor_site_describe(site, t, where, sizeof where));
	}
	for (size_t i = 0; i < c->p->n_ext; i++)
		if (!strcmp(c->p->ext[i].src, src)) {
			if (end > c->p->ext[i].need)
				c->p->ext[i].need = end;
			free(src);
			return 0;
		}
	if (strchr(loc, '/')) {
		char *dst = NULL;
		struct stat st;
		int r = 0;
		if (asprintf(&dst, "%s/%s", c->dest_dir, loc) < 0)
			r = ov_fail(c->err, OV_NOMEM, "out of memory");
		else if (stat(dst, &st) < 0)
			r = ov_fail(c->err, OV_WRITE, "external data '%s' lives in a subfolder; create '%s' beside the "
				    "destination first", loc, dst);
		free(dst);
		if (r) {
			free(src);
			return r;
		}
	}
	struct ext_file *nx = realloc(c->p->ext, (c->p->n_ext + 1) * sizeof *nx);
	char *dst = NULL;
	if (!nx || asprintf(&dst, "%s/%s", c->dest_dir, loc) < 0) {
		if (nx)
			c->p->ext = nx;
		free(src);
		return ov_fail(c->err, OV_NOMEM, "out of memory");
	}
	c->p->ext = nx;
	c->p->ext[c->p->n_ext++] = (struct ext_file){src, dst, end};
	return 0;
}

static int write_model(int fd, void *ctx, struct ov_error *err)
{
	struct ov_model *m = ctx;
	struct fd_buffer *b = malloc(sizeof *b);

	if (!b)
		return ov_fail(err, OV_NOMEM, "out of memory");
	b->base.append = fd_append;
	b->fd = fd;
	b->error = 0;
	b->used = 0;
	protobuf_c_message_pack_to_buffer(&m->proto->base, &b->base);
	fd_flush(b);
	int e = b->error;
	free(b);
	/* the weights come from the model's mappings: bytes read from a file that changed are not saved */
	if (model_check_unchanged(m, err))
		return -1;
	if (e)
		return ov_fail(err, OV_WRITE, "cannot write: %s", strerror(e));
	return 0;
}

int model_save_prepare(struct ov_model *m, const char *path, unsigned flags, struct save_pending **out,
		       struct ov_error *err)
{
	char *dest_dir = dir_of(path), *dest_real = NULL, *target;
	struct save_pending *p = NULL;
	int r = -1, exists;

	*out = NULL;
	if (!dest_dir)
		return ov_fail(err, OV_NOMEM, "out of memory");
	if (model_check_unchanged(m, err))
		goto out;
	/* refused destinations fail before anything is written */
	target = resolve_dest(path, flags, &exists, err);
	if (!target)
		goto out;
	int ext = exists && model_external_uses(m, target);
	free(target);
	if (ext) {
		ov_fail(err, OV_INVALID, "is one of the model's own external data files: saving over it would destroy "
			"the weights");
		goto out;
	}
	dest_real = realpath(dest_dir, NULL);
	if (!dest_real) {
		ov_fail(err, OV_WRITE, "destination folder '%s': %s", dest_dir, strerror(errno));
		goto out;
	}
	if (prepare(path, flags, write_model, m, &p, err))
		goto out;
	p->m = m;
	if (!m->dir_real)
		m->dir_real = realpath(m->dir, NULL);
	if (m->dir_real && strcmp(dest_real, m->dir_real) != 0) {
		struct ext_plan ep = {m, dest_dir, p, err};
		if (model_foreach_tensor(m->proto, ext_visit, &ep)) {
			save_discard(p);
			goto out;
		}
	}
	*out = p;
	r = 0;
out:
	free(dest_dir);
	free(dest_real);
	return r;
}

int model_save(struct ov_model *m, const char *path, unsigned flags, struct ov_error *err)
{
	struct save_pending *p;

	if (model_save_prepare(m, path, flags, &p, err))
		return -1;
	return save_commit(p, err);
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
