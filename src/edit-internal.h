/* Helpers shared by the edit commands (src/edit-*.c); not part of the engine's public interface. */
#ifndef OV_EDIT_INTERNAL_H
#define OV_EDIT_INTERNAL_H

#include "src/edit.h"

/* Set a declared dim: a number (value >= 0), a symbol (sym non-NULL), or unknown (value < 0, sym NULL). */
int edit_set_declared_dim(struct edit_session *s, Onnx__TensorShapeProto__Dimension *d, int64_t value,
			  const char *sym);
/* Re-infer shapes and rewrite the declared shapes (value_info, graph outputs) that now disagree. */
int edit_propagate_shapes(struct edit_session *s, struct ov_error *err);
/* Warn about constants (Reshape/Expand/Tile/ConstantOfShape/Slice/Resize/Range size inputs) that still hold old,
 * the previous size of value's axis. */
void edit_warn_baked(struct edit_session *s, const char *value, int axis, int64_t old);
/* The ValueInfoProto that declares a graph input (or output) by name, or NULL. */
Onnx__ValueInfoProto *edit_graph_input(struct edit_session *s, const char *name);
Onnx__ValueInfoProto *edit_graph_output(struct edit_session *s, const char *name);

/* Every command's table row. */
extern const struct edit_cmd edit_set_dim_cmd, edit_undo_cmd, edit_redo_cmd, edit_save_cmd;

#endif
