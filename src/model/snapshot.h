/* Snapshots of a model's structure, for undo: everything but the large tensor payloads, which stay where they
 * are (in the file mapping, or in buffers the model keeps alive for as long as a snapshot may need them).
 *
 * model_snapshot_take() packs the model with each raw_data of WIRE_STRIP_MIN bytes or more replaced by a
 * reference; model_snapshot_restore() unpacks it and puts the payload pointers back, then frees the tree it
 * replaces.  A restored model packs to exactly the bytes it had when the snapshot was taken.  Taking a
 * snapshot of a 50,000-node model costs one pack of its structure (milliseconds), never a copy of its weights. */
#ifndef OV_MODEL_SNAPSHOT_H
#define OV_MODEL_SNAPSHOT_H

#include <stddef.h>

#include "src/model/model.h"

struct model_snapshot;

int model_snapshot_take(struct ov_model *m, struct model_snapshot **out, struct ov_error *err);
int model_snapshot_restore(struct ov_model *m, const struct model_snapshot *s, struct ov_error *err);
size_t model_snapshot_size(const struct model_snapshot *s); /* bytes of structure it holds */
/* Free a snapshot (before its model): the payloads only it kept alive are freed with it. */
void model_snapshot_free(struct model_snapshot *s);

/* Keep ptr (a raw_data buffer of len bytes) alive for one more snapshot, whatever frees it meanwhile: a buffer the
 * model lets go of stays until the last snapshot that refers to it is freed (or the model is). */
int model_retain(struct ov_model *m, const void *ptr, size_t len);
/* For the model's allocator: 1 when ptr is kept for snapshots (it is then not to be freed: it becomes theirs),
 * else 0. */
int model_retained_drop(struct ov_model *m, const void *ptr);
int model_is_retained(const struct ov_model *m, const void *ptr);
/* The bytes of payloads the model no longer holds that snapshots keep alive: what undo costs beyond the
 * snapshots' own size. */
uint64_t model_retained_bytes(const struct ov_model *m);
void model_retained_free(struct ov_model *m);

#endif
