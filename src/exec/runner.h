/* The runner's own pieces, shared by its files (src/exec/plan.c, consts.c, run.c); not for kernels or backends,
 * which see src/exec/exec.h only. */
#ifndef OV_EXEC_RUNNER_H
#define OV_EXEC_RUNNER_H

#include <stdint.h>

#include "src/exec/exec.h"

/* What a cut needs (src/exec/plan.c): built from the graph and the options, freed with plan_free. */
struct plan {
	uint8_t *need_val;  /* value is needed by the cut */
	uint8_t *is_from;   /* value is fed as an input */
	uint8_t *need_node; /* node runs */
	uint8_t *leak;      /* value is needed but nothing in the cut provides it */
	int32_t *to;        /* value ids of the 'to' values */
	size_t n_to;
	int32_t *from;      /* value ids of the 'from' values (the graph inputs when none given) */
	size_t n_from;
};

int plan_build(const struct graph *g, const struct exec_options *opt, struct plan *p, struct ov_error *err);
void plan_free(struct plan *p);

/* One value of a graph being run. */
struct slot {
	struct xtensor t;
	struct xtensor *kept; /* a constant kept across runs (exec_consts): kernels get it, t is a view of its host
	                         data (owns nothing, no device copy) for everything else */
	uint32_t uses;  /* consumers still to run (a node whose subgraphs capture the value counts too) */
	uint8_t pinned; /* a 'to' value, or --all */
	uint8_t given;  /* moved into the result */
	uint8_t shape;  /* shape arithmetic on the host: a Shape or Size output, or a small value computed from them
	                   (and constants) on the CPU during a device backend's run (shape_arith) */
};

/* Constants kept across runs (src/exec/consts.c). */
struct exec_consts {
	uint64_t serial;  /* of the graph index the tensors belong to (0: none yet) */
	uint32_t n;
	struct xtensor *t; /* by value id; data NULL where nothing is kept */
	/* what kernels derived from the kept tensors (xk_derive), freed with them */
	struct kept_derived {
		uint32_t value;
		uint64_t tag;
		void *block;
		size_t bytes;
		uint32_t next; /* the value's next block (index + 1; 0: none) */
	} *derived;
	size_t n_derived, cap_derived;
	uint32_t *head; /* by value id: its first block (index + 1; 0: none); allocated with the first block */
};

/* c ready to keep g's constants: 1, or 0 when there is none to use (the run converts its constants itself). */
int consts_for(struct exec_consts *c, const struct graph *g);
/* What a kernel derived from kept value id under tag (xk_derived), or NULL. */
const void *consts_derived(const struct exec_consts *c, uint32_t id, uint64_t tag);
/* Keep block (malloc'd, bytes long) as derived from kept value id under tag, for as long as the value is kept:
 * 1, or 0 when it cannot be filed (no memory, or one is filed already), the caller keeping it. */
int consts_derive(struct exec_consts *c, uint32_t id, uint64_t tag, void *block, size_t bytes);
/* The slot reads the kept tensor k (kernels get k itself; everything else a view of its host data). */
void slot_keep(struct slot *s, struct xtensor *k);

#endif
