/* A backend's kernel rows by op name: one hash and a strcmp or two per lookup, for the lookup every node makes on
 * every run, instead of a pass over all the backend's tables.  Made at the first lookup from the tables it is
 * given (the executor runs on one thread); without memory for it, lookups scan the tables. */
#ifndef OV_EXEC_OPS_KINDEX_H
#define OV_EXEC_OPS_KINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "src/exec/exec.h"

struct kindex {
	const struct exec_kernel *const *tables; /* n_tables tables of counts[t] rows, one domain's */
	const size_t *const *counts;
	size_t n_tables;
	/* made at the first lookup: */
	const struct exec_kernel **by_name;      /* every row, sorted by op name */
	uint32_t n_rows, n_slots, *slot_of;      /* slot_of[h]: 1 + by_name's index of a name's first row, 0 empty */
	int state;                               /* 0 not made, 1 made, -1 no memory (scan the tables) */
};

/* The row for op with the greatest since <= opset, or NULL. */
const struct exec_kernel *kindex_find(struct kindex *ix, const char *op, int64_t opset);

#endif
