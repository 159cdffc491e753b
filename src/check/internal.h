/* Shared by the check rules (src/check/rules-*.c): the context of one graph being checked and the way to report. */
#ifndef OV_CHECK_INTERNAL_H
#define OV_CHECK_INTERNAL_H

#include "src/check/check.h"
#include "src/base/strmap.h"
#include "src/graph/opdb.h"

struct check_ctx {
	struct ov_model *m;
	const struct graph *g;      /* the graph being checked (a synthesized one for functions) */
	const struct shapes *sh;    /* NULL inside functions */
	const struct opdb *db;
	struct diag_list *out;
	const char *where;          /* prefix naming the graph */
	Onnx__OperatorSetIdProto **opsets; /* the imports in force (the model's, or a function's) */
	size_t n_opsets;
	const struct strmap *opset_map;    /* the same by domain ("" for ai.onnx), the first import of each */
	const struct strmap *function_map; /* the model's local functions, by function_key() */
	int oom;
};

/* Report a diagnostic about node (or -1) and value (or NULL). hint may be NULL. */
void diag_add(struct check_ctx *c, enum diag_code code, int32_t node, const char *value, const char *hint,
	      const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* The opset imported for a domain ("" = ai.onnx) in this context, 0 when not imported. */
int64_t check_opset(const struct check_ctx *c, const char *domain);
/* True when a model-local function implements domain::op. */
int check_is_function(const struct check_ctx *c, const char *domain, const char *op);

void check_ops(struct check_ctx *c);    /* src/check/rules-ops.c: domains, opsets, attributes, arity */
void check_graph(struct check_ctx *c);  /* src/check/rules-graph.c: references, order, names, unused parts */
void check_shapes(struct check_ctx *c); /* src/check/rules-traps.c: declared vs inferred */
void check_traps(struct check_ctx *c);  /* src/check/rules-traps.c: exporter traps from the field reports */

#endif
