/* Saving a model safely: a temporary file in the destination folder, fsync, rename; never a half-written file.
 *
 * model_save() replaces an existing file only when OV_SAVE_REPLACE is given (the command line's --force, or saving
 * over the model's own path on purpose).  Without it the final rename refuses to replace anything, atomically.
 * When the model keeps data in external files and the destination is another folder, those files are copied there
 * first (same relative names), so the saved model loads from its new place.  On any failure every pre-existing file
 * is left as it was, the temporary files are removed, and err says which step failed and why.
 */
#ifndef OV_SAVE_H
#define OV_SAVE_H

#include "src/model/model.h"

enum {
	OV_SAVE_REPLACE = 1, /* an existing file at path may be replaced */
};

int model_save(struct ov_model *m, const char *path, unsigned flags, struct ov_error *err);

/* Serialise the model into a malloc'd buffer (for tests and in-memory comparisons). */
int model_pack(const struct ov_model *m, uint8_t **buf, size_t *len, struct ov_error *err);

/* Fault injection for tests: make the named step fail ("write", "fsync", "rename"), NULL for none. */
void save_inject_fault(const char *step);

#endif
