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

struct feed {
	struct ov_model *m;
	const struct graph *g;
	struct shapes *sh;      /* may be NULL */
	struct ov_error *e;     /* where failures go */
	FILE *errf;             /* notes (a data set whose shapes differ from the model's) */
	int lenient_shapes;     /* shapes that differ get a note instead of an error (dtypes must still match) */
	struct vshape decl;     /* scratch for feed_value_shape */
};

/* What value id is declared or inferred to be (NULL: unknown). Valid until the next call. */
const struct vshape *feed_value_shape(struct feed *s, int32_t id);
/* random[:SEED], zeros, ones with the value's shape: 0, -1 on failure (s->e), -2 when spec is no generator (a
 * file).  Random values are uniform in [-1,1) for floats, small integers otherwise; each value name gets its own
 * stream, so the same spec gives the same tensor for the same name in any model. */
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
