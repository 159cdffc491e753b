/* Kernel rows by op name (src/exec/ops/kindex.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/exec/ops/kindex.h"

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int by_op(const void *a, const void *b)
{
	return strcmp((*(const struct exec_kernel *const *)a)->op, (*(const struct exec_kernel *const *)b)->op);
}

static void make(struct kindex *ix)
{
	size_t n = 0;

	ix->state = -1;
	for (size_t t = 0; t < ix->n_tables; t++)
		n += *ix->counts[t];
	for (ix->n_slots = 64; ix->n_slots < 2 * n; ix->n_slots *= 2)
		;
	ix->by_name = malloc((n ? n : 1) * sizeof *ix->by_name);
	ix->slot_of = calloc(ix->n_slots, sizeof *ix->slot_of);
	if (!ix->by_name || !ix->slot_of) {
		free(ix->by_name);
		free(ix->slot_of);
		ix->by_name = NULL;
		ix->slot_of = NULL;
		return;
	}
	ix->n_rows = 0;
	for (size_t t = 0; t < ix->n_tables; t++)
		for (size_t i = 0; i < *ix->counts[t]; i++)
			if (ix->tables[t][i].op)
				ix->by_name[ix->n_rows++] = &ix->tables[t][i];
	qsort(ix->by_name, ix->n_rows, sizeof *ix->by_name, by_op);
	for (uint32_t r = 0; r < ix->n_rows; r++) {
		if (r && !strcmp(ix->by_name[r]->op, ix->by_name[r - 1]->op))
			continue;
		uint32_t h = name_hash(ix->by_name[r]->op) & (ix->n_slots - 1);
		while (ix->slot_of[h])
			h = (h + 1) & (ix->n_slots - 1);
		ix->slot_of[h] = r + 1;
	}
	ix->state = 1;
}

static int better(const struct exec_kernel *k, int64_t opset, const struct exec_kernel *best)
{
	return k->since <= opset && (!best || k->since > best->since);
}

const struct exec_kernel *kindex_find(struct kindex *ix, const char *op, int64_t opset)
{
	const struct exec_kernel *best = NULL;

	if (!op)
		return NULL;
	if (!ix->state)
		make(ix);
	if (ix->state > 0) {
		for (uint32_t h = name_hash(op) & (ix->n_slots - 1); ix->slot_of[h]; h = (h + 1) & (ix->n_slots - 1)) {
			uint32_t r = ix->slot_of[h] - 1;
			if (strcmp(ix->by_name[r]->op, op))
				continue;
			for (; r < ix->n_rows && !strcmp(ix->by_name[r]->op, op); r++)
				if (better(ix->by_name[r], opset, best))
					best = ix->by_name[r];
			break;
		}
		return best;
	}
	for (size_t t = 0; t < ix->n_tables; t++)
		for (size_t i = 0; i < *ix->counts[t]; i++) {
			const struct exec_kernel *k = &ix->tables[t][i];
			if (k->op && !strcmp(k->op, op) && better(k, opset, best))
				best = k;
		}
	return best;
}
