/* The interface between the shape inference driver (src/graph/shape.c) and the per-op rules (src/graph/shape-*.c).
 * A rule reads its inputs' shapes (and folded values) through the context and writes its outputs' shapes;
 * it returns 0, or -1 after calling infer_note() to say why it could not (the outputs then stay unknown). */
#ifndef OV_SHAPE_RULES_H
#define OV_SHAPE_RULES_H

#include "src/graph/shape.h"

struct infer_ctx {
	struct shapes *s;
	struct ov_model *m;
	const struct graph *g;
	struct shape_graph *sg;
	uint32_t node;
	const Onnx__NodeProto *proto;
	int64_t opset;           /* the default domain's opset */
	struct vshape **ins;     /* per input slot; NULL for absent inputs */
	struct vshape **outs;    /* per output slot; NULL for absent outputs */
	size_t n_in, n_out;
	struct ov_error *err;
};

typedef int (*shape_rule_fn)(struct infer_ctx *c);
/* The rule for a default-domain op, or NULL. */
shape_rule_fn shape_rule_find(const char *op);

/* ---- helpers for rules (src/graph/shape.c) ---- */
const struct vshape *in_shape(const struct infer_ctx *c, size_t k);   /* NULL if absent */
int in_known_rank(const struct infer_ctx *c, size_t k);               /* rank, or -1 */
struct vshape *out_shape(struct infer_ctx *c, size_t k);              /* NULL if absent */
/* Set output k to dtype and rank dims (copied); dims NULL leaves them unknown.  A rank over SHAPE_MAX_RANK is kept
 * as an unknown rank (-1), with a note: every vshape has at most SHAPE_MAX_RANK dims, which is what lets the rules
 * work in fixed arrays of that size. */
void set_out(struct infer_ctx *c, size_t k, int32_t dtype, int64_t rank, const struct dim *dims);
void set_out_like(struct infer_ctx *c, size_t k, const struct vshape *src, int32_t dtype);
/* Folded values of output k (copied). */
void set_out_vals(struct infer_ctx *c, size_t k, const struct dim *vals, int64_t n);
struct dim *dims_tmp(struct infer_ctx *c, size_t n); /* scratch from the arena */
/* Known integer values of input k (all elements known numbers): count, or -1. */
int64_t in_ints(const struct infer_ctx *c, size_t k, int64_t *buf, int64_t max);
/* Folded dims of input k (numbers, symbols or unknown): count, or -1. */
int64_t in_vals(const struct infer_ctx *c, size_t k, const struct dim **vals);
/* Known float values of input k: count, or -1. */
int64_t in_floats(const struct infer_ctx *c, size_t k, double *buf, int64_t max);
const Onnx__AttributeProto *attr(const struct infer_ctx *c, const char *name);
int64_t attr_int(const struct infer_ctx *c, const char *name, int64_t def);
float attr_float(const struct infer_ctx *c, const char *name, float def);
/* List attribute: its count with every value copied to buf; -1 when absent; ATTR_TOO_MANY when it has more than
 * max values (nothing is copied).  A count is never larger than what was copied: a rule may loop up to it. */
#define ATTR_TOO_MANY (-3)
int64_t attr_ints(const struct infer_ctx *c, const char *name, int64_t *buf, int64_t max);
/* String attribute into buf (empty when absent).  A value that does not fit in n bytes, or holds a NUL byte, would
 * be read cut short: it comes back as "\x01?" instead, which matches no name a rule compares it with. */
const char *attr_str(const struct infer_ctx *c, const char *name, char *buf, size_t n);
int infer_note(struct infer_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Dims arithmetic. */
static inline int dim_known(struct dim d) { return d.v != DIM_UNKNOWN; }
static inline struct dim dim_num(int64_t v) { struct dim d = {v, NULL}; return d; }
static inline struct dim dim_unknown(void) { struct dim d = {DIM_UNKNOWN, NULL}; return d; }
/* A computed size as a dim: unknown when it is NaN, infinite or past int64_t (casting would be undefined). */
static inline struct dim dim_from_double(double x) { return x >= -0x1p63 && x < 0x1p63 ? dim_num((int64_t)x) : dim_unknown(); }
/* Dim arithmetic on numbers from the model, checked: DIM_UNKNOWN when an operand is DIM_UNKNOWN or the exact result
 * does not fit in int64_t (a dilation near 2^62 must give an unknown dim, never C's signed overflow). */
static inline int64_t dim_add(int64_t a, int64_t b)
{
	int64_t r;
	return a == DIM_UNKNOWN || b == DIM_UNKNOWN || __builtin_add_overflow(a, b, &r) ? DIM_UNKNOWN : r;
}
static inline int64_t dim_sub(int64_t a, int64_t b)
{
	int64_t r;
	return a == DIM_UNKNOWN || b == DIM_UNKNOWN || __builtin_sub_overflow(a, b, &r) ? DIM_UNKNOWN : r;
}
static inline int64_t dim_mul(int64_t a, int64_t b)
{
	int64_t r;
	return a == DIM_UNKNOWN || b == DIM_UNKNOWN || __builtin_mul_overflow(a, b, &r) ? DIM_UNKNOWN : r;
}
int dim_equal(struct dim a, struct dim b);       /* same number or same symbol */
/* Broadcast two input shapes (numpy rules) into dims; returns rank or -1 (unknown rank) or -2 (mismatch). */
int broadcast(const struct vshape *a, const struct vshape *b, struct dim *out, struct infer_ctx *c);
/* Normalise an axis against rank; -1 (after a note) when out of range. */
int norm_axis(struct infer_ctx *c, int64_t axis, int rank);

/* Rules, by family (one file each); src/graph/shape-rules.c maps op names to them. */
/* src/graph/shape-elementwise.c */
int rule_same(struct infer_ctx *c);
int rule_broadcast(struct infer_ctx *c);
int rule_where(struct infer_ctx *c);
int rule_bool_unary(struct infer_ctx *c);
int rule_cast(struct infer_ctx *c);
int rule_castlike(struct infer_ctx *c);
int rule_quantize(struct infer_ctx *c);
int rule_dequantize(struct infer_ctx *c);
int rule_dropout(struct infer_ctx *c);
/* src/graph/shape-nn.c */
int rule_conv(struct infer_ctx *c);
int rule_conv_transpose(struct infer_ctx *c);
int rule_pool(struct infer_ctx *c);
int rule_global_pool(struct infer_ctx *c);
int rule_batchnorm(struct infer_ctx *c);
int rule_layernorm(struct infer_ctx *c);
int rule_gemm(struct infer_ctx *c);
int rule_matmul(struct infer_ctx *c);
int rule_einsum(struct infer_ctx *c);
int rule_resize(struct infer_ctx *c);
int rule_depth_to_space(struct infer_ctx *c);
int rule_space_to_depth(struct infer_ctx *c);
int rule_grid_sample(struct infer_ctx *c);
int rule_roi_align(struct infer_ctx *c);
int rule_nms(struct infer_ctx *c);
int rule_col2im(struct infer_ctx *c);
int rule_affine_grid(struct infer_ctx *c);
int rule_bitcast(struct infer_ctx *c);
int rule_string_split(struct infer_ctx *c);
int rule_image_decoder(struct infer_ctx *c);
/* src/graph/shape-tensor.c */
int rule_shape(struct infer_ctx *c);
int rule_size(struct infer_ctx *c);
int rule_reshape(struct infer_ctx *c);
int rule_flatten(struct infer_ctx *c);
int rule_transpose(struct infer_ctx *c);
int rule_squeeze(struct infer_ctx *c);
int rule_unsqueeze(struct infer_ctx *c);
int rule_concat(struct infer_ctx *c);
int rule_split(struct infer_ctx *c);
int rule_slice(struct infer_ctx *c);
int rule_gather(struct infer_ctx *c);
int rule_gather_elements(struct infer_ctx *c);
int rule_gather_nd(struct infer_ctx *c);
int rule_expand(struct infer_ctx *c);
int rule_tile(struct infer_ctx *c);
int rule_pad(struct infer_ctx *c);
int rule_constant_of_shape(struct infer_ctx *c);
int rule_range(struct infer_ctx *c);
int rule_nonzero(struct infer_ctx *c);
int rule_onehot(struct infer_ctx *c);
/* src/graph/shape-transformer.c */
int rule_attention(struct infer_ctx *c);
int rule_causal_conv_state(struct infer_ctx *c);
int rule_linear_attention(struct infer_ctx *c);
/* src/graph/shape-misc.c */
int rule_recurrent(struct infer_ctx *c);
int rule_loss(struct infer_ctx *c);
int rule_like(struct infer_ctx *c);
int rule_random(struct infer_ctx *c);
int rule_dynamic_quantize(struct infer_ctx *c);
int rule_det(struct infer_ctx *c);
int rule_unique(struct infer_ctx *c);
int rule_compress(struct infer_ctx *c);
int rule_max_unpool(struct infer_ctx *c);
/* src/graph/shape-reduce.c */
int rule_reduce(struct infer_ctx *c);
int rule_argminmax(struct infer_ctx *c);
int rule_topk(struct infer_ctx *c);

#endif
