/* Diagnostics: what is wrong or risky in a model, each with a severity, a code, the node or value it is about,
 * and a one-line hint.  `onnxview check` prints them; the TUI lists them and jumps to their nodes.
 *
 * check_model() runs every rule (src/check/rules-*.c) over the main graph, its subgraphs and the model's functions.
 * It needs the graph index, the inferred shapes and the op database (db may be NULL: the rules that need it
 * are then skipped, and one info diagnostic says so). */
#ifndef OV_CHECK_H
#define OV_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "src/graph/graph.h"
#include "src/graph/shape.h"

struct opdb;

enum diag_severity {
	DIAG_ERROR,   /* the model is invalid, or no standard runtime will load it */
	DIAG_WARNING, /* valid, but likely to fail or misbehave somewhere */
	DIAG_INFO,    /* worth knowing */
};

/* X(code, severity, what it means) — one row per rule; the man page lists the same. */
#define DIAG_TABLE(X)                                                                                          \
	X(op_not_in_opset, ERROR, "the op does not exist in its domain at the model's opset")                  \
	X(op_removed, ERROR, "the op was removed before the model's opset")                                    \
	X(unknown_op, ERROR, "the default domain has no op of that name")                                      \
	X(domain_not_imported, ERROR, "a node uses a domain the model does not import")                         \
	X(custom_domain, ERROR, "a custom-domain node: no standard runtime will run it")                      \
	X(aten_fallback, ERROR, "an ATen fallback node: only PyTorch-aware runtimes run it")                  \
	X(ort_only, WARNING, "a com.microsoft op: only onnxruntime runs it")                                    \
	X(opset_newer_than_db, INFO, "the model's opset is newer than onnxview's op database")                  \
	X(dangling_input, ERROR, "a node input names a value nothing defines")                                 \
	X(produced_twice, ERROR, "two nodes (or a node and an input/initializer) define the same value")        \
	X(output_not_produced, ERROR, "a graph output nothing produces")                                       \
	X(not_sorted, ERROR, "nodes are not in topological order")                                             \
	X(cycle, ERROR, "nodes depend on each other in a cycle")                                               \
	X(duplicate_name, WARNING, "two nodes share a name")                                                   \
	X(duplicate_input, ERROR, "a graph input is listed twice")                                             \
	X(unused_initializer, WARNING, "an initializer no node uses")                                          \
	X(dead_node, WARNING, "a node whose outputs nothing uses")                                             \
	X(initializer_is_input, INFO, "an initializer also listed as a graph input (an overridable default)")  \
	X(unknown_attribute, ERROR, "an attribute the op does not take")                                       \
	X(missing_attribute, ERROR, "a required attribute is missing")                                          \
	X(attribute_type, ERROR, "an attribute has the wrong type")                                             \
	X(input_count, ERROR, "too few or too many inputs, or a required input left empty")                    \
	X(output_count, ERROR, "too few or too many outputs")                                                  \
	X(type_conflict, ERROR, "a declared element type disagrees with the inferred one")                     \
	X(shape_conflict, ERROR, "a declared shape disagrees with the inferred one")                           \
	X(negative_dim, WARNING, "a declared dim is negative (Paddle2ONNX's -1): runtimes read it as dynamic")      \
	X(fixed_batch, INFO, "a graph input has a fixed batch size (dynamic_axes forgotten?)")                  \
	X(baked_shape, WARNING, "a constant shape bakes in a size that should follow the input")               \
	X(resize_computed, WARNING, "Resize scales/sizes are computed at run time, not constant")               \
	X(resize_align_corners, INFO, "align_corners resizing differs between runtimes")                       \
	X(gather_on_shape, INFO, "Gather on a shape tensor (x.size() in PyTorch)")

enum diag_code {
#define DIAG_X(code, sev, desc) DIAG_##code,
	DIAG_TABLE(DIAG_X)
#undef DIAG_X
	DIAG_CODE_COUNT
};

struct diag {
	enum diag_severity severity;
	enum diag_code code;
	const struct graph *graph; /* where: the main graph or a subgraph (NULL for functions) */
	char *where;               /* "" for the main graph, "subgraph then_branch of #3: ", "function f: " */
	int32_t node;              /* node index in its graph, -1 when about a value or the model */
	char *node_desc;           /* "#3 'name' Op" or NULL */
	char *value;               /* the value it is about, or NULL */
	char *message;
	char *hint;                /* one line on how to fix it, or NULL */
};

struct diag_list {
	struct diag *d;
	size_t n, cap;
	size_t count[3]; /* per severity */
};

int check_model(struct ov_model *m, const struct graph *g, const struct shapes *sh, const struct opdb *db,
		struct diag_list *out, struct ov_error *err);
void diag_list_free(struct diag_list *l);
const char *diag_code_name(enum diag_code c);  /* "op-not-in-opset" */
const char *diag_code_desc(enum diag_code c);
const char *diag_severity_name(enum diag_severity s);

#endif
