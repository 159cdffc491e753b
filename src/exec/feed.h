/* Feeding a run (shared by `run` and `compare`): tensors read from files or generated, checked against the
 * model's declared or inferred types, and the descriptions both commands print. */
#ifndef OV_RUN_FEED_H
#define OV_RUN_FEED_H

#include <stdint.h>
#include <stdio.h>

#include "src/base/error.h"
#include "src/exec/exec.h"
#include "src/graph/graph.h"
#include "src/model/model.h"
#include "src/graph/shape.h"
#include "src/model/tensor-stats.h"

struct strbuf;
struct json;

/* Sizes for the dims a model leaves open, as run, compare and the TUI's :run take them:
 *   --shape NAME=1x3x640x640   the whole shape of one input (trtexec's --shapes)
 *   --dim SYMBOL=N             every dim named SYMBOL, in every input (onnxruntime's free-dimension override) */
struct feed_shape {
	const char *name;            /* the input (argv's text, not copied) */
	size_t name_len;
	int rank;
	int64_t dims[XT_MAX_RANK];
};
struct feed_dim {
	const char *sym;
	size_t sym_len;
	int64_t value;
};
struct feed_sizes {
	struct feed_shape *shape;
	size_t n_shape;
	struct feed_dim *dim;
	size_t n_dim;
};
/* Add one --shape NAME=DxDx.. ("NAME=" alone: a scalar) or --dim SYMBOL=N; 0, or -1 with e (OV_USAGE) naming the
 * bad text.  The strings stay argv's. */
int feed_sizes_add_shape(struct feed_sizes *fs, const char *arg, struct ov_error *e);
int feed_sizes_add_dim(struct feed_sizes *fs, const char *arg, struct ov_error *e);
void feed_sizes_free(struct feed_sizes *fs);

/* One input's shape as far as the model and the sizes settle it (feed_resolve_shape). */
struct feed_resolved {
	int rank;                    /* -1: the model does not say (and no --shape) */
	int64_t dims[XT_MAX_RANK];   /* the sizes; -1 where open */
	int n_open;                  /* dims still without a size (0: concrete) */
	int from_shape;              /* --shape gave it */
};

struct feed {
	struct ov_model *m;
	const struct graph *g;
	struct shapes *sh;      /* may be NULL */
	struct ov_error *e;     /* where failures go */
	FILE *errf;             /* notes (a data set whose shapes differ from the model's) */
	int lenient_shapes;     /* shapes that differ get a note instead of an error (dtypes must still match) */
	struct vshape decl;     /* scratch for feed_value_shape */
	const struct feed_sizes *sizes; /* --shape/--dim (NULL: none) */
	char how[160];          /* feed_generate: how the last tensor was made ("uniform in [-1,1)") */
};

/* What shape input value id takes: --shape NAME gives it whole (its rank and its numbers must agree with what the
 * model declares); otherwise each dim is the declared (or inferred) number, or the --dim of its symbol, or open.
 * 0 with r filled, or -1 with s->e set (OV_USAGE: --shape contradicts the model). */
int feed_resolve_shape(struct feed *s, int32_t id, struct feed_resolved *r);
/* The one-line error for an input whose shape is open: "input 'x' is float[batch,3,?,?]: dims 0 (batch), 2 and 3
 * have no size: give --shape x=Nx3xHxW, or --dim batch=N".  Returns -1 (OV_USAGE in s->e). */
int feed_fail_open(struct feed *s, int32_t id, const struct feed_resolved *r);
/* For front ends that ask for what is missing (the TUI's :run): every input in names resolved into out[i] (n of
 * them).  Returns how many inputs still have open dims (0: every shape is concrete), or -1 with s->e set.  Also
 * -1 (OV_USAGE) for a --shape that names no input of the list, or a --dim whose symbol no input has: a typo must
 * not go unnoticed. */
int feed_resolve_inputs(struct feed *s, const char *const *names, size_t n, struct feed_resolved *out);
/* Is spec one of the generators (random[:SEED], zeros, ones)? An unnamed generator (--input random) fills every
 * input no other --input names. */
int feed_is_generator(const char *spec);

/* What value id is declared or inferred to be (NULL: unknown). Valid until the next call. */
const struct vshape *feed_value_shape(struct feed *s, int32_t id);
/* random[:SEED], zeros, ones with the value's shape (feed_resolve_shape: open dims are an error naming the
 * --shape/--dim to give): 0, -1 on failure (s->e), -2 when spec is no generator (a file).  s->how says what was
 * made.  Random values are uniform in [-1,1) for floats; integers are chosen by what the input's name says it is:
 * a sample rate (sr, sample_rate, sampling_rate) is 16000, a size or count (size, len, length, count, num, steps)
 * is in [1,10], indices (ids, index, idx, token, position, label, mask) are in [0,10), other signed integers in
 * [-5,5], unsigned ones in [0,10), bools 0 or 1.  Each value name gets its own stream, so the same spec gives the
 * same tensor for the same name in any model. */
int feed_generate(struct feed *s, int32_t id, const char *spec, struct xtensor *t);
/* What --input NAME=SPEC gives value id: a generated tensor, or a file checked against the declaration (it must
 * fit, OV_USAGE otherwise).  0, or -1 with s->e set (t left empty). */
int feed_input(struct feed *s, int32_t id, const char *spec, struct xtensor *t);
/* A .npy or .pb file as a tensor; *pb_name (when asked) gets the TensorProto's name (malloc'd) or NULL. */
int feed_read(struct feed *s, const char *path, struct xtensor *t, char **pb_name);
/* What the model declares value id to be: XT_SEQUENCE, XT_OPTIONAL, or XT_TENSOR (also when it does not say). */
int feed_value_kind(const struct graph *g, int32_t id);
/* A file for value id (-1: unknown, a tensor): a SequenceProto or OptionalProto .pb file when the model declares a
 * sequence or optional, else as feed_read. */
int feed_read_value(struct feed *s, int32_t id, const char *path, struct xtensor *t, char **pb_name);
/* The tensor must be what the model declares for value id: same dtype, rank and numeric dims (code on failure). */
int feed_check(struct feed *s, int32_t id, struct xtensor *t, const char *source, enum ov_status code);
/* NAME=SPEC (NAME a value of the graph), or SPEC alone when names has exactly one entry. */
int feed_split_named(struct feed *s, const char *arg, const char **names, long n_names, const char *what,
		     const char **name, const char **spec);
/* The file name (without .npy) `run --save` gives a value: characters other than letters, digits, '-', '_' and
 * '.' (not first) become '_'. */
void feed_safe_name(const char *name, char *buf, size_t n);
/* T1,T2,... split in place into list (up to max names in all): -1 when there are more. */
int feed_split_list(char **list, size_t *n, size_t max, char *arg);
/* A tolerance: a finite number >= 0 (-1 otherwise). */
int feed_parse_tol(const char *s, double *out);
/* The rule of --rtol R, --atol A and --strict (each NULL/0 when not given): none of them is the default rule
 * (COMPARE_RULE_DEFAULT); --strict is ONNX's (rtol 1e-3, atol 1e-7); --rtol/--atol are ONNX's form with those
 * tolerances (the one not given keeps ONNX's value).  0, or -1 with e (OV_USAGE) naming the bad number. */
int feed_rule(const char *rtol, const char *atol, int strict, struct compare_rule *r, struct ov_error *e);
int feed_is_dir(const char *p);
int feed_file_exists(const char *p);

/* float[1,3,224,224]; a sequence or optional as xt_describe writes it */
void put_xtype(struct strbuf *b, const struct xtensor *t);
void put_vshape(struct strbuf *b, const struct vshape *v);
/* The flat index i of t as a multi-index: [0,3,17] */
void put_index(struct strbuf *b, const struct xtensor *t, int64_t i);
/* The same as a JSON array (null for i < 0). */
void json_index(struct json *j, const struct xtensor *t, int64_t i);
/* "copies: N to the device (B bytes), N to the host (B bytes)\n" when a device backend copied anything. */
void put_copies(struct strbuf *b, const struct exec_result *r);
/* Statistics of a numeric tensor (-1 for strings, count only). */
int xt_stats(const struct xtensor *t, struct tensor_stats *st);

#endif
