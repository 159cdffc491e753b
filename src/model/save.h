/* Saving files safely: a temporary file in the destination folder, fsync, rename; never a half-written file.
 *
 * Every file onnxview writes for the user goes through here: models (model_save), the edit journal, tensor files
 * (`run --save`), Graphviz output.  The rules, in one place:
 *  - An existing file is replaced only when OV_SAVE_REPLACE is given (the command line's --force, or saving over
 *    the model's own path on purpose).  Without it the final step is link(), which refuses to replace anything,
 *    atomically, even a file that appeared meanwhile.
 *  - Only regular files are ever replaced: a directory, FIFO, device node or socket at the destination is refused,
 *    --force or not (as root, -o /dev/full would otherwise have become a regular file).
 *  - A symbolic link at the destination is followed to the regular file it names, which is what gets replaced (a
 *    link to the model is "in place"; the link stays a link).  With OV_SAVE_NOFOLLOW it is never followed: it is an
 *    existing entry like any other, and OV_SAVE_REPLACE replaces the link itself, never its target (for folders
 *    others can write to: `run --save DIR`).
 *  - The temporary file is removed on any failure, and by SIGINT, SIGTERM and SIGHUP while it exists (the handlers
 *    are installed only while a temporary file exists, and then hand the signal on to what was there before).
 *  - Two steps for callers that must write several files or none (`onnxview edit`: a failing command writes
 *    nothing): save_prepare*() does everything that can fail for want of space or permission and leaves a flushed
 *    temporary file; save_commit() moves it into place; save_discard() removes it.
 * When the model keeps data in external files and the destination is another folder, those files are copied there
 * (same relative names) when the model is committed, so the saved model loads from its new place; a copy is checked
 * against the length the model declares for it, and a source that changes while it is copied fails the save.  A
 * model is never saved over one of its own external data files.  On any failure every pre-existing file is left
 * as it was, the temporary files are removed, and err says which step failed and why.
 */
#ifndef OV_SAVE_H
#define OV_SAVE_H

#include "src/model/model.h"

enum {
	OV_SAVE_REPLACE = 1,  /* an existing regular file at path may be replaced */
	OV_SAVE_NOFOLLOW = 2, /* a symbolic link at path is not followed (see above) */
};

int model_save(struct ov_model *m, const char *path, unsigned flags, struct ov_error *err);

/* Write what fn writes to fd (a new, empty temporary file beside path) as path, atomically.  fn returns 0, or -1
 * with err set; it need not flush or close fd. */
typedef int (*save_write_fn)(int fd, void *ctx, struct ov_error *err);
int save_file(const char *path, unsigned flags, save_write_fn fn, void *ctx, struct ov_error *err);
/* The same for bytes in memory. */
int save_buffer(const char *path, unsigned flags, const void *data, size_t len, struct ov_error *err);

/* The two steps.  A prepared save holds its temporary file until it is committed or discarded (exactly one of the
 * two, which frees it). */
struct save_pending;
int model_save_prepare(struct ov_model *m, const char *path, unsigned flags, struct save_pending **out,
		       struct ov_error *err);
int save_prepare_buffer(const char *path, unsigned flags, const void *data, size_t len, struct save_pending **out,
			struct ov_error *err);
int save_commit(struct save_pending *p, struct ov_error *err);
void save_discard(struct save_pending *p);
/* The file a prepared save will write (symbolic links resolved as above). */
const char *save_pending_target(const struct save_pending *p);

/* The path a save to path would write, for comparing destinations: symbolic links followed (unless nofollow),
 * the folder made absolute.  malloc'd, or NULL when the folder does not exist. */
char *save_target_path(const char *path, int nofollow);
/* 1 when a and b name the same file: the same target path, or the same existing file (hard links too). */
int save_same_file(const char *a, const char *b);

/* Serialise the model into a malloc'd buffer (for tests and in-memory comparisons). */
int model_pack(const struct ov_model *m, uint8_t **buf, size_t *len, struct ov_error *err);

/* Fault injection for tests: make the named step fail ("write", "fsync", "rename"), NULL for none. */
void save_inject_fault(const char *step);

#endif
