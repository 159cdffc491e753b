/* The runner's own pieces, shared by its files (src/exec/plan.c, consts.c, run.c); not for kernels or backends,
 * which see src/exec/exec.h only. */
#ifndef OV_EXEC_RUNNER_H
#define OV_EXEC_RUNNER_H

#include <stdint.h>
#include <string.h>

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
	uint8_t constant; /* the same value every run, kept or not: a tensor initializer or Constant, or the output of
	                     a node that keeping constants folds (foldable) computed from such alone (xk_constant) */
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
	/* a warm run recorded as the backend's graph and replayed (src/exec/replay.c) */
	struct replay *replay;
	int replay_state;      /* REPLAY_UNTRIED, _KEPT (replay holds it), _OFF (the backend records none), _REFUSED */
	char replay_why[sizeof(((struct ov_error *)0)->msg)]; /* with _REFUSED: why */
	uint32_t runs;         /* runs with these constants that went well */
	/* values that depend only on shapes (run.c, dims_keep): by value id, 1 where the kept tensor is a Shape or
	 * Size output, or was computed from one; dims_stale: a run saw such an output differ from the kept one, and
	 * the next run's consts_for drops them all before anything refers to them */
	uint8_t *dims_dep;
	int dims_stale;
	uint64_t up_bytes, ups; /* what the last of them copied to the device */
};
enum { REPLAY_UNTRIED, REPLAY_KEPT, REPLAY_OFF, REPLAY_REFUSED };

/* c ready to keep g's constants: 1, or 0 when there is none to use (the run converts its constants itself). */
int consts_for(struct exec_consts *c, const struct graph *g);
/* Whether op is one of the n names in ops. */
static inline int run_op_in(const char *op, const char *const *ops, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(op, ops[i]))
			return 1;
	return 0;
}
#define RUN_OP_IN(op, ops) run_op_in((op), (ops), sizeof(ops) / sizeof((ops)[0]))

/* Value v goes to one node only, as its input slot (any slot when slot < 0), and nobody else sees it: it is no
 * graph output, not watched (--to, --all) nor fed.  That node (one output, in the default domain, no subgraph,
 * its output not fed), or -1 (run.c). */
int32_t run_sole_consumer(const struct graph *g, int32_t v, int slot, const struct slot *slots,
			  const uint8_t *is_from, int keep_all);
/* Node p's first attribute of that name, or NULL (run.c). */
const Onnx__AttributeProto *run_node_attr(const Onnx__NodeProto *p, const char *name);
/* The chain of element-wise float32 nodes that starts at node n, when there is one of two nodes or more that a
 * device backend may run as one pass (exec_chain_offer): 1 with o filled, else 0 (chain.c). */
int chain_find(const struct graph *g, uint32_t n, const struct slot *slots, const uint8_t *is_from, int keep_all,
	       struct exec_chain_offer *o);
/* The Transpose next to node n (a MatMul whose output goes to one, or a Transpose whose output is an operand of
 * one whose other operand is computed) that a device backend may take into the product (exec_mm_offer): 1 with
 * o filled, else 0 (mmperm.c). */
int mmperm_find(const struct graph *g, uint32_t n, const struct slot *slots, const uint8_t *is_from, int keep_all,
		struct exec_mm_offer *o);
/* What a kernel derived from kept value id under tag (xk_derived), or NULL. */
const void *consts_derived(const struct exec_consts *c, uint32_t id, uint64_t tag);
/* Keep block (malloc'd, bytes long) as derived from kept value id under tag, for as long as the value is kept:
 * 1, or 0 when it cannot be filed (no memory, or one is filed already), the caller keeping it. */
int consts_derive(struct exec_consts *c, uint32_t id, uint64_t tag, void *block, size_t bytes);
/* ---- replay of a recorded run (src/exec/replay.c) ---- */

/* Whether this run of g is to be recorded: the main graph, with kept constants that a run went well with, nothing
 * tried yet, and options a recording keeps (no --all, --profile or --from). */
int replay_wanted(const struct exec_consts *kc, const struct graph *g, const struct exec_options *opt);
/* The recording of a run (run_graph): started before its nodes with the inputs fed (ids, slots), 0, or -1 with
 * kc's state saying why not (no error: the run goes on unrecorded). */
struct slot;
int replay_begin(struct exec_consts *kc, const struct exec_backend_ops *be, const struct graph *g, const struct plan *p,
		 const int32_t *fed, size_t n_fed, struct slot *slots);
/* After the nodes went well: the recording kept as kc->replay (the graph runs once now for this run), or -1 with
 * err saying why not (the caller redoes the run unrecorded). */
int replay_end(struct exec_consts *kc, const struct exec_backend_ops *be, const struct graph *g, const struct plan *p,
	       const struct slot *slots, const struct exec_result *res, struct ov_error *err);
/* A run that failed while recording: the recording thrown away, kc refusing later ones with err's message. */
void replay_abandon(struct exec_consts *kc, const struct exec_backend_ops *be, const struct ov_error *err);
/* The run as a replay of kc's graph when its options and inputs match the recorded run's: 0 done (out filled),
 * 1 not a replay (out untouched: the caller runs the nodes), -1 with err. */
int replay_run(const struct graph *g, const struct exec_options *opt, const struct exec_input *in, size_t n_in,
	       struct exec_result *out, struct ov_error *err);
/* Frees kc's recording (consts_clear). */
void replay_free(struct exec_consts *kc);
/* The runner's result_add (src/exec/run.c): t (a host tensor, or one whose device copy comes over now) added to r
 * as name, moved when move and t owns its data, copied otherwise. */
int run_result_add(struct exec_result *r, size_t *cap, const char *name, struct xtensor *t, int move,
		   struct ov_error *err);

/* The slot reads the kept tensor k (kernels get k itself; everything else a view of its host data). */
void slot_keep(struct slot *s, struct xtensor *k);

#endif
