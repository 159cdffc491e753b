/* Folding a scene by module scope: nodes named like PyTorch's exports ("/encoder/layer.3/attn/MatMul") are
 * grouped by the scope their name spells, and every scope not in the expanded set becomes one box (BOX_GROUP,
 * its name the scope path, its rows the node count and the most common ops), so an LLM-sized graph reads as a
 * few hundred blocks.  Edges between groups are merged.  Nothing is lost: expanding a scope shows its nodes. */
#ifndef OV_SCENE_FOLD_H
#define OV_SCENE_FOLD_H

#include <stddef.h>

#include "src/present/present.h"

/* The scope of a node name, as the length of its prefix at depth d (1 = "/encoder"), or 0 when the name has no
 * scope that deep ("/encoder/layer.3/attn/MatMul": depth 1 "/encoder", 2 "/encoder/layer.3", 3 ".../attn"). */
size_t scope_prefix_len(const char *name, int depth);

/* A scope folds only when it holds at least this many nodes: a box standing for one Conv hides the Conv and shows
 * nothing in its place. */
#define SCOPE_FOLD_MIN 3

/* Fold s in place: every node whose scope has a prefix not in expanded (n of them, full prefixes such as
 * "/encoder/layer.3") goes into that prefix's group, when the group has SCOPE_FOLD_MIN nodes or more.
 * Returns 0, or -1 with err (out of memory; s unchanged). */
int scene_fold(struct scene *s, const struct graph *g, char *const *expanded, size_t n, int ascii,
	       struct ov_error *err);

/* The scopes to expand so that a graph of more than max_boxes nodes shows at most about max_boxes boxes: the
 * biggest groups are opened first. *out is a malloc'd array of malloc'd prefixes (free with scope_list_free). */
int scene_auto_expand(const struct graph *g, size_t max_boxes, char ***out, size_t *n, struct ov_error *err);
void scope_list_free(char **list, size_t n);

#endif
