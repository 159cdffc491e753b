/* What a front end shows of a graph, computed in the core so the UI never reads protobuf structs: a scene of
 * boxes (graph inputs, nodes, graph outputs; Constant nodes with one consumer folded into it, initializers as
 * rows inside the boxes that use them), the edges between them with their shapes, and the text of a node's
 * details.  Strings are owned by the scene, which keeps them in a few large blocks (a 51,000-node model has over
 * 100,000 of them) and shares equal ones (titles, shape labels, rows such as "B <16x16>"): never free or change
 * one.  Rebuild the scene after an edit. */
#ifndef OV_PRESENT_H
#define OV_PRESENT_H

#include <stddef.h>
#include <stdint.h>

#include "src/model/describe.h"
#include "src/graph/graph.h"
#include "src/graph/shape.h"
#include "src/base/strbuf.h"

enum box_kind { BOX_NODE, BOX_INPUT, BOX_OUTPUT, BOX_GROUP /* nodes of a folded module scope */ };

/* Netron's idea: colour boxes by what the op does. */
#define OP_CATEGORY_TABLE(X)                                                                                   \
	X(CONV, "conv") X(POOL, "pool") X(NORM, "norm") X(ACTIVATION, "activation")                           \
	X(ELEMENTWISE, "elementwise") X(REDUCE, "reduce") X(SHAPE, "shape") X(DATA, "data") X(LOGIC, "logic")  \
	X(CONTROL, "control") X(ATTENTION, "attention") X(DETECTION, "detection") X(QUANT, "quant") X(ML, "ml") \
	X(OTHER, "other") X(CUSTOM, "custom") X(IO, "io")

enum op_category {
#define CAT_X(e, s) CAT_##e,
	OP_CATEGORY_TABLE(CAT_X)
#undef CAT_X
	CAT_COUNT
};

const char *op_category_name(enum op_category c);
/* The category of domain::op (ops-doc.txt first, then a built-in table; custom domains are CAT_CUSTOM). */
enum op_category op_category_of(const char *domain, const char *op);

struct scene_box {
	enum box_kind kind;
	int32_t ref;         /* BOX_NODE: node index; BOX_INPUT/BOX_OUTPUT: value id */
	enum op_category cat;
	const char *title;   /* "Conv", "input", "output" */
	const char *name;    /* node or value name ("" when none) */
	const char **lines;  /* rows inside the box */
	uint16_t n_lines;
	uint16_t w, h;       /* in cells, borders included */
};

struct scene_edge {
	const char *label;   /* its shape ("1x64x56x56"), or "" */
	uint32_t src, dst;   /* box indices */
	int32_t value;       /* value id carried */
	int inferred;        /* the shape is onnxview's inference, not declared */
};

struct scene_text; /* the scene's strings, one allocation for many (see scene_strdup) */

struct scene {
	struct scene_box *boxes;
	uint32_t n_boxes;
	struct scene_edge *edges;
	uint32_t n_edges;
	int32_t *node_box;   /* node index -> box index, -1 when folded into its consumer */
	uint32_t n_nodes;
	struct scene_text *text;
};

struct scene_options {
	int max_width;       /* widest box in cells (default 34) */
	int ascii;           /* use 'x' for dims, no unicode */
};

int scene_build(struct scene **out, struct ov_model *m, const struct graph *g, const struct shapes *sh,
		const struct scene_options *opt, struct ov_error *err);
void scene_free(struct scene *s);
/* For code that makes boxes (src/present/scene-fold.c): a copy of str, or n bytes of memory, owned by s and freed with it;
 * scene_strshare gives the scene's one copy of str, for strings that many boxes repeat. NULL when out of memory. */
const char *scene_strdup(struct scene *s, const char *str);
const char *scene_strshare(struct scene *s, const char *str);
void *scene_alloc(struct scene *s, size_t n);

/* The node panel's text for node i: op, domain, name, #N, every attribute in full, each input and output with
 * dtype, shape and where it comes from / goes to, and the op's reference text and PyTorch mapping. */
void present_node_text(struct strbuf *b, struct ov_model *m, const struct graph *g, const struct shapes *sh,
		       uint32_t i);
/* The text of a value: dtype, shape, origin, producer and consumers, and the constant's values when it has one. */
void present_value_text(struct strbuf *b, struct ov_model *m, const struct graph *g, const struct shapes *sh,
			int32_t id);
/* A value's type as text: declared, else constant, else inferred (*inferred set to 1 then). */
void present_value_type(struct strbuf *b, const struct graph *g, const struct shapes *sh, int32_t id, int *inferred);

/* v in decimal, as "%" PRId64 would write it.  For text made for every box of a big graph: in this program every
 * printf takes glibc's slow path (libquadmath, which OpenBLAS brings in, registers printf hooks), about 2,000
 * instructions for one number. */
void present_put_int(struct strbuf *b, int64_t v);

/* The constant input a user most likely wants to change when editing node i (the `e` key): by op, from a table
 * (Resize: scales, else sizes; Reshape: shape; Pad: pads; Slice: starts, ends; ...), the first one that is a
 * constant with values; otherwise the node's first constant input with values, then any constant input.
 * Returns the value id in g, or -1 when the node has no constant input. */
int32_t present_edit_input(struct ov_model *m, const struct graph *g, uint32_t i);
/* The command line that edits constant value id of g: "set-tensor NAME VALUES" with its current values when it is
 * small enough to retype (at most max values), else "set-tensor NAME " (the name quoted where it needs it). */
void present_edit_line(struct strbuf *b, struct ov_model *m, const struct graph *g, int32_t id, int max);

/* Accessors for front ends. */
const char *present_node_op(const struct graph *g, uint32_t i);
const char *present_node_name(const struct graph *g, uint32_t i);
const char *present_node_domain(const struct graph *g, uint32_t i);
const char *present_graph_name(const struct graph *g); /* the GraphProto's name, "" when none */
uint32_t present_node_n_inputs(const struct graph *g, uint32_t i);
uint32_t present_node_n_outputs(const struct graph *g, uint32_t i);
/* Lists as text, one item per line after a header line; the returned array (malloc'd) gives each line's node
 * (-1 for none). NULL when out of memory. */
int32_t *present_node_list(struct strbuf *b, const struct graph *g, const struct shapes *sh);
/* The initializer list; when values is not NULL, *values (malloc'd, one per line like the result) gives each line's
 * value id (-1 for none), for opening the tensor view. */
int32_t *present_initializer_list(struct strbuf *b, struct ov_model *m, const struct graph *g, int32_t **values);
/* The node panel's text as present_node_text, and each line's value id when that line is an input or output
 * with a constant tensor (-1 otherwise); the array (malloc'd, *n_lines entries) is NULL when out of memory. */
int32_t *present_node_text_values(struct strbuf *b, struct ov_model *m, const struct graph *g, const struct shapes *sh,
				  uint32_t i, size_t *n_lines);

/* A constant's tensor for a viewer, so front ends never read TensorProto fields: what it is, where it is stored,
 * and a view of its values.  Strings point into the model (or are copied, escaped, into the arrays): valid until
 * the model changes. */
struct present_tensor {
	const char *raw_name;      /* the value's name as stored (for looking it up again), never shown raw */
	char name[1024];           /* the same, escaped for a terminal */
	int32_t dtype;
	const int64_t *dims;
	size_t n_dims;
	int64_t numel;
	uint64_t bytes;            /* bytes of data it holds */
	char origin[512];          /* "initializer", "Constant node #3 'c0'", and its users: "used by #1 'conv1' Conv" */
	char where[512];           /* "in the model (raw_data)", "external file 'w.bin', offset 512, 432 bytes" */
	int readable;              /* values is open; otherwise error says why (external data that cannot be read) */
	char error[512];
	struct tensor_view values;
};
/* Open the tensor of value id of g (following captures to the enclosing graph).  Returns -1 with err set when
 * the value has no dense constant tensor (a graph input, a node output, a sparse initializer); unreadable
 * values are not an error: out->readable is 0 and out->error says why. */
int present_value_tensor(struct ov_model *m, const struct graph *g, int32_t id, struct present_tensor *out,
			 struct ov_error *err);
/* Element i (flat index) as text: %.6g for floating point, integers exactly, true/false, nan/inf/-inf, complex as
 * a+bi, strings quoted and escaped (at most max_string bytes).  Returns 1 when the element is NaN or infinite. */
int present_tensor_element(struct strbuf *b, const struct present_tensor *t, int64_t i, size_t max_string);

#endif
