/* Where two runs part ways: every value run A kept, in A's topological order, compared with the value of the same
 * name in run B (another model, another backend, or tensors saved from PyTorch), and the first one that differs
 * beyond tolerance.  Used by `onnxview compare` and by the TUI's marks. */
#ifndef OV_EXEC_DIVERGE_H
#define OV_EXEC_DIVERGE_H

#include <stddef.h>
#include <stdint.h>

#include "src/exec/exec.h"
#include "src/graph/graph.h"

enum diverge_status {
	DIV_MATCH,   /* same dtype-compatible values within tolerance */
	DIV_DIFFER,  /* beyond tolerance, or shapes differ, or NaN/Inf unmatched */
	DIV_ONLY_A,  /* B has no value of that name */
};

struct diverge_entry {
	const char *name;          /* owned by A's graph */
	int32_t node;              /* its producer in A's graph, -1 for none */
	const struct xtensor *a;   /* A's tensor (in ra) */
	const struct xtensor *b;   /* B's (in rb), NULL for DIV_ONLY_A */
	struct compare_stats c;    /* a against b (b the reference) */
	int converted;             /* the dtypes differ, both numeric: compared as float64 */
	enum diverge_status status;
};

struct divergence {
	struct diverge_entry *v;   /* A's present values, producers in A's topological order, then output position */
	size_t n;
	long first;                /* index in v of the first DIV_DIFFER, -1 when none */
	size_t n_compared, n_differ, n_only_a;
	size_t n_only_b;           /* values B kept that A has not */
	const char **only_b;       /* their names (owned by rb's graph), n_only_b of them */
};

/* Compare runs ra (of graph ga) and rb.  Returns 0, or -1 with err set (out of memory). */
int diverge_compute(const struct graph *ga, const struct exec_result *ra, const struct exec_result *rb,
		    const struct compare_rule *r, struct divergence *d, struct ov_error *err);
/* a against b as exec_compare_rule does under r, converting both to float64 when the dtypes differ and both are numeric
 * (*converted = 1 then). Returns -1 with err set when out of memory. */
int diverge_compare_any(const struct xtensor *a, const struct xtensor *b, const struct compare_rule *r,
			struct compare_stats *c, int *converted, struct ov_error *err);
void diverge_free(struct divergence *d);

#endif
