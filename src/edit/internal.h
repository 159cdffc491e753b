/* Helpers shared by the edit commands (src/edit/cmd/ and the engine); not part of the engine's public interface. */
#ifndef OV_EDIT_INTERNAL_H
#define OV_EDIT_INTERNAL_H

#include <stddef.h>

#include "src/edit/edit.h"

/* A command's arguments, resolved by kind (src/edit/args.c) before its exec runs. */
struct edit_shape_arg {
	int64_t rank;
	int64_t *value;  /* each >= 0, or -1 for a name or ? */
	char **sym;      /* the name, or NULL */
};
struct edit_names_arg {
	size_t n;
	char **names;
	int32_t *ids;    /* their value ids in the graph index */
};

/* Set a declared dim: a number (value >= 0), a symbol (sym non-NULL), or unknown (value < 0, sym NULL). */
int edit_set_declared_dim(struct edit_session *s, Onnx__TensorShapeProto__Dimension *d, int64_t value,
			  const char *sym);
/* Re-infer shapes and rewrite the declared shapes (value_info, graph outputs) that now disagree. */
int edit_propagate_shapes(struct edit_session *s, struct ov_error *err);
/* Warn about constants (Reshape/Expand/Tile/ConstantOfShape/Slice/Resize/Range size inputs) that still hold old,
 * the previous size of value's axis. */
void edit_warn_baked(struct edit_session *s, const char *value, int axis, int64_t old);
/* The ValueInfoProto that declares a graph input (or output) by name, or NULL (src/edit/declare.c). */
Onnx__ValueInfoProto *edit_graph_input(struct edit_session *s, const char *name);
Onnx__ValueInfoProto *edit_graph_output(struct edit_session *s, const char *name);

/* Removing things (src/edit/prune.c; used by cleanup, delete-node, extract). */
struct strbuf;
/* Report to fn each value of main graph g that node's subgraphs capture (directly or from deeper subgraphs); a
 * value may be reported more than once. */
void edit_node_captures(const struct graph *g, uint32_t node, void (*fn)(int32_t id, void *ctx), void *ctx);
/* "#12 'name' (Op)", or "#12 (Op)" for an unnamed node. */
void edit_describe_node(struct strbuf *b, const struct graph *g, uint32_t node);
/* "node #12 'name' (Op)", the model's strings made safe for a terminal and cut at 60 bytes. */
void edit_node_phrase(struct strbuf *b, uint32_t index, const Onnx__NodeProto *nd);
/* Free the main graph's nodes whose keep[i] is 0; the others keep their order. Marks the index stale. */
void edit_remove_nodes(struct edit_session *s, const uint8_t *keep);
/* Free the initializers, sparse initializers and value_info entries of the main graph that nothing refers to any
 * more (no node input, subgraph capture or graph output).  An unused initializer that is also a graph input goes
 * with its input entry. */
struct edit_prune_counts {
	size_t initializers, sparse, inputs, value_info;
};
int edit_prune_unused(struct edit_session *s, struct edit_prune_counts *c, struct ov_error *err);
/* Free the entries of a repeated message field arr (n entries) whose drop[i] is set, keeping the others in order.
 * Look every name up before compacting: the graph index's names point into the entries. */
#define EDIT_COMPACT(s, arr, n, drop)                                                             \
	do {                                                                                      \
		size_t k_ = 0;                                                                    \
		for (size_t i_ = 0; i_ < (n); i_++) {                                             \
			if ((drop)[i_])                                                           \
				protobuf_c_message_free_unpacked(&(arr)[i_]->base, &(s)->m->alloc); \
			else                                                                      \
				(arr)[k_++] = (arr)[i_];                                          \
		}                                                                                 \
		(n) = k_;                                                                         \
	} while (0)

/* Constants and tensor data (src/edit/constant.c, literal values in src/edit/tensor-text.c; used by set-tensor,
 * make-input, make-constant). */
/* A constant of the main graph: an initializer, or a Constant node's 'value' tensor.  A Constant that holds
 * value_float(s), value_int(s) or value_string(s) has that attribute rewritten first as the equivalent 'value'
 * tensor (float32/int64/string, a scalar or 1-D), so every constant is a TensorProto. */
struct edit_constant {
	Onnx__TensorProto *t;
	ptrdiff_t init_index;         /* its place in graph->initializer, or -1 */
	ptrdiff_t node_index;         /* the Constant node's place in graph->node, or -1 */
	Onnx__NodeProto *node;        /* that node, or NULL */
	Onnx__ValueInfoProto *input;  /* an initializer also listed as a graph input (a default value), or NULL */
	int converted;                /* the Constant's value_* attribute was rewritten */
	char converted_from[16];      /* ... and its name */
};
/* Find name among the main graph's constants; -1 with err saying what name is instead (an input, a node's
 * output, a constant inside a subgraph...). */
int edit_find_constant(struct edit_session *s, const char *name, struct edit_constant *c, struct ov_error *err);
/* A new tensor of dtype and dims and no data (model allocator); NULL when out of memory. */
Onnx__TensorProto *edit_new_tensor(struct edit_session *s, int32_t dtype, const int64_t *dims, size_t rank);
/* A new tensor type with all dims numbers (model allocator); NULL when out of memory. */
Onnx__TypeProto *edit_new_tensor_type(struct edit_session *s, int32_t dtype, const int64_t *dims, size_t rank);
/* Free every data field of t (raw, typed, external references) and leave it empty, stored in the model. */
void edit_tensor_clear_data(struct edit_session *s, Onnx__TensorProto *t);
/* Give t the dtype, dims and data of src (a tensor from tensorfile_read or edit_tensor_from_text, allocated with
 * the model's allocator), which is freed.  t keeps its name and everything else. */
void edit_tensor_take(struct edit_session *s, Onnx__TensorProto *t, Onnx__TensorProto *src);
/* A tensor of dtype and dims from n value texts (edit_parse_list's items), parsed strictly for the dtype
 * (integers in range, bool as true/false/1/0, floats with nan/inf, float16/bfloat16 rounded to nearest even,
 * strings quoted or bare).  NULL with err naming the bad value. */
Onnx__TensorProto *edit_tensor_from_text(struct edit_session *s, int32_t dtype, const int64_t *dims, size_t rank,
					 char **items, int64_t n, struct ov_error *err);

/* One dim as people write it: a number >= 0 (*value), a name such as batch (*sym = text), or ? (value -1)
 * (src/edit/args.c). */
int edit_parse_dim(const char *text, int64_t *value, const char **sym, struct ov_error *err);
/* Declarations and dims (src/edit/declare.c; used by set-dim, set-shape, set-type, set-tensor, add-output,
 * make-input, make-constant); model memory (src/edit/alloc.c). */
/* The main graph's declarations of a value: its graph input, output and value_info entries, in that order.
 * Fills up to max of them into out and returns how many there are. */
size_t edit_declarations(struct edit_session *s, const char *name, Onnx__ValueInfoProto **out, size_t max);
/* Give vi a tensor type if it has none (dtype > 0 also sets the element type); -1 when out of memory. */
int edit_tensor_type(struct edit_session *s, Onnx__ValueInfoProto *vi, int32_t dtype);
/* Append a value_info entry for name with a tensor type of dtype (0: none); NULL when out of memory. */
Onnx__ValueInfoProto *edit_add_value_info(struct edit_session *s, const char *name, int32_t dtype);
/* Before a command retypes a value: describe its declared type (decl[0], or "? (not declared)" when *n_decl is 0)
 * into before, and when it has no declaration give it one (a value_info of dtype, *n_decl becomes 1).  Returns 0,
 * or -1 with err set (out of memory). */
int edit_declare_for_change(struct edit_session *s, const char *name, int32_t dtype, Onnx__ValueInfoProto **decl,
			    size_t *n_decl, struct strbuf *before, struct ov_error *err);
/* Set the whole declared shape (creating it): rank dims, each value[i] (>= 0), sym[i] (non-NULL), or unknown.
 * Dims kept keep their denotation. -1 when out of memory. */
int edit_set_declared_shape(struct edit_session *s, Onnx__TypeProto__Tensor *tt, size_t rank, const int64_t *value,
			    char *const *sym);
/* A deep copy of msg with the model's allocator (pack, unpack); NULL when out of memory. */
void *edit_copy_message(struct edit_session *s, const ProtobufCMessage *msg);
/* An array of the model's with room for one more element: n elements of size bytes copied from old (which is
 * freed), n + 1 allocated. NULL, old untouched, when out of memory. */
void *edit_array_grow(struct edit_session *s, void *old, size_t n, size_t size);

/* Op schemas for nodes (src/edit/schema.c; used by set-attr, del-attr, set-op, set-opset, set-type); node labels
 * (src/edit/node-label.c). */
struct op_schema;
/* "", NULL and "ai.onnx" are the standard domain. */
int edit_is_default_domain(const char *domain);
/* The version the model imports for domain, else the newest the op database knows, else 0. */
int64_t edit_domain_opset(struct edit_session *s, const char *domain);
/* The schema of domain::op at opset (a removed op: its last valid version); NULL for custom domains, unknown ops,
 * ops newer than opset, or when the op database cannot be loaded. */
const struct op_schema *edit_op_schema(const char *domain, const char *op, int64_t opset);
/* The same for a node of the model, at the model's opset for its domain. */
const struct op_schema *edit_node_schema(struct edit_session *s, const Onnx__NodeProto *n);
/* "#3 'conv1' Conv", "#0 custom::DeformConv2d" into buf; returns buf. */
const char *edit_node_label(char *buf, size_t len, const Onnx__NodeProto *n, uint32_t idx);
/* Warn (edit_say) about what of node n does not fit sch: attributes it does not take or of another type,
 * required attributes missing, input and output counts. label names the node; ref ("#3", or NULL inside a
 * subgraph) goes into the hints. Returns the number of warnings. */
int edit_warn_op_fit(struct edit_session *s, const char *label, const char *ref, const Onnx__NodeProto *n,
		     const struct op_schema *sch);
/* Add an opset import for domain at version; -1 when out of memory. */
int edit_import_domain(struct edit_session *s, const char *domain, int64_t version);

struct edit_argval {
	const char *text;  /* as given; NULL for an optional argument left out */
	union {
		int32_t node;                    /* NODE: its index */
		int32_t value;                   /* VALUE: its id in s->g */
		struct edit_names_arg names;     /* VALUES */
		struct edit_constant constant;   /* TENSOR */
		Onnx__ValueInfoProto *decl;      /* INPUT, OUTPUT, PORT: its entry */
		int64_t i;                       /* INT */
		struct {
			int64_t value;           /* >= 0, or -1 */
			const char *sym;         /* a name (points into text), or NULL */
		} dim;                           /* DIM */
		struct edit_shape_arg shape;     /* SHAPE */
		int32_t dtype;                   /* DTYPE */
	};
};
struct edit_args {
	int argc;          /* the words as given, argv[0] the command name */
	char **argv;
	struct edit_argval v[EDIT_MAX_ARGS]; /* by declared position */
};
/* Does nargs fit cmd's arguments? */
int edit_cmd_arity_ok(const struct edit_cmd *cmd, int nargs);
/* Resolve argv (argv[0] the command name) by cmd's argument kinds, then run cmd. */
int edit_cmd_run(struct edit_session *s, const struct edit_cmd *cmd, int argc, char **argv, struct ov_error *err);

/* Every command's table row. */
extern const struct edit_cmd edit_set_shape_cmd, edit_set_type_cmd, edit_set_attr_cmd, edit_del_attr_cmd;
extern const struct edit_cmd edit_set_op_cmd, edit_rename_cmd, edit_rename_node_cmd, edit_add_output_cmd;
extern const struct edit_cmd edit_del_output_cmd, edit_set_opset_cmd;
extern const struct edit_cmd edit_set_tensor_cmd, edit_make_input_cmd, edit_make_constant_cmd;
extern const struct edit_cmd edit_delete_node_cmd, edit_cleanup_cmd, edit_extract_cmd;
extern const struct edit_cmd edit_set_dim_cmd, edit_undo_cmd, edit_redo_cmd, edit_save_cmd, edit_journal_cmd;

#endif
