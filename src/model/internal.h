/* Pieces of the model module shared between its files; not for callers outside src/model/. */
#ifndef OV_MODEL_INTERNAL_H
#define OV_MODEL_INTERNAL_H

#include "src/model/model.h"

/* Validate every tensor (dtype, dims, data size, external references) and every declared shape. */
int model_validate(struct ov_model *m, struct ov_error *err);
/* Check an external tensor's location and range without reading it. */
int external_check(struct ov_model *m, const Onnx__TensorProto *t, int64_t expect_bytes, struct ov_error *err);
/* Resolve a tensor's location to a real path inside the model's folder (malloc'd); NULL with err set. */
char *external_resolve(struct ov_model *m, const Onnx__TensorProto *t, struct ov_error *err);
void model_external_close(struct ov_model *m);
/* model_check_unchanged for the external data files mapped so far. */
int model_external_check_unchanged(struct ov_model *m, struct ov_error *err);
/* Where the tensor's bytes end in its external file (offset + length), checked as external_check does. */
int external_extent(struct ov_model *m, const Onnx__TensorProto *t, uint64_t *end, struct ov_error *err);

/* Mappings of files that may change under them (src/model/mapping.c): register a mapping of the file at path
 * (st: its fstat when mapped) before anyone reads it, and remove it before munmap.  NULL when it cannot be
 * registered (out of memory): the mapping is then unguarded, as before. */
struct stat;
struct map_guard;
struct map_guard *map_guard_add(const void *base, size_t len, const char *path, const struct stat *st);
void map_guard_remove(struct map_guard *g);
/* 1 when the mapping faulted (its file shrank) or the file's size or modification time changed. */
int map_guard_changed(const struct map_guard *g);
/* map_guard_changed as an error naming what (OV_IO), or 0. */
int map_guard_check(const struct map_guard *g, const char *what, struct ov_error *err);

#endif
