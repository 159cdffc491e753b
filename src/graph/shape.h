/* Shape inference: the dtype and shape of every value of a graph, computed from the graph inputs and constants.
 *
 * A dim is a number, a symbol (a dim_param such as "batch", carried through the ops that keep it), or unknown.
 * Small integer tensors computed from shapes (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, the plumbing
 * PyTorch exports for x.size()) are folded into values whose elements are dims too, so a Reshape to
 * [batch, -1] still gives [batch, 768].  Ops without a rule leave their outputs unknown and say so in a note;
 * nothing is guessed.  Declared types (graph outputs, value_info) are kept apart from inferred ones, so `check`
 * can compare them; inference continues from a declared shape where it has none of its own.
 */
#ifndef OV_SHAPE_H
#define OV_SHAPE_H

#include <stdint.h>

#include "src/graph/graph.h"

#define DIM_UNKNOWN INT64_MIN /* folded values may be negative (Reshape's -1), so unknown is INT64_MIN */
#define SHAPE_MAX_RANK 64
#define SHAPE_FOLD_MAX 64 /* integer tensors up to this many elements are folded into values */

struct dim {
	int64_t v;       /* a number (never negative in a shape; any sign in folded values), or DIM_UNKNOWN */
	const char *sym; /* a symbol ("batch") when v is unknown; NULL for plain unknown */
};

enum shape_source {
	SHAPE_NONE,     /* nothing known */
	SHAPE_DECLARED, /* from the model's input/output/value_info */
	SHAPE_CONSTANT, /* from an initializer or Constant */
	SHAPE_INFERRED, /* computed by onnxview */
};

struct vshape {
	int32_t dtype;            /* 0 when unknown */
	int rank;                 /* -1 when unknown */
	struct dim *dims;         /* rank entries */
	enum shape_source source;
	int64_t n_val;            /* -1, or the number of folded elements in val (integer tensors, rank <= 1) */
	struct dim *val;          /* folded values: each element a number, a symbol, or unknown */
	double *fval;             /* folded float values (small float constants such as Resize scales), or NULL */
};

struct shape_note {
	int32_t node;   /* node index in its graph */
	char msg[200];
};

struct shape_graph; /* per graph results */

struct shapes {
	struct shape_graph *main;
};

/* Infer every graph of the model (subgraphs too). opset: the model's default-domain opset.
 * Returns 0, or -1 with err set when out of memory. */
int shape_infer(struct shapes **out, struct ov_model *m, const struct graph *g, struct ov_error *err);
void shapes_free(struct shapes *s);
/* The inferred shape of value id of graph g (any graph of the model), or NULL. */
const struct vshape *shapes_get(const struct shapes *s, const struct graph *g, int32_t id);
/* Notes (ops without a rule, rules that could not apply) for graph g. */
const struct shape_note *shapes_notes(const struct shapes *s, const struct graph *g, size_t *n);
/* Text of a shape: float32[batch,3,224,224], ?[?] ... */
struct strbuf;
void shape_describe(struct strbuf *b, const struct vshape *v);
/* Shape of a declared TypeProto as a vshape (dims allocated from the results' arena); 0 on success. */
int shape_from_type(struct shapes *s, const Onnx__TypeProto *tp, struct vshape *out);
/* 1 if two shapes agree (same dtype when both known, same rank, and equal dims where both are known numbers or
 * the same symbol), 0 if they conflict; unknown parts never conflict. */
int shape_compatible(const struct vshape *a, const struct vshape *b);

#endif
