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

#endif
