/* Folding of a scene's boxes by module scope (node name prefixes), and the automatic choice of what to open. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/present/scene-fold.h"
#include "src/base/strbuf.h"
#include "src/base/strmap.h"

size_t scope_prefix_len(const char *name, int depth)
{
	const char *p = name;

	if (!name || name[0] != '/')
		return 0;
	/* A scope is followed by at least one more component (the node's own name). */
	for (int d = 0; d < depth; d++) {
		const char *slash = strchr(p + 1, '/');
		if (!slash)
			return 0;
		p = slash;
	}
	return strchr(p + 1, '/') || p[1] ? (size_t)(p - name) : 0;
}

/* The first collapsed scope of a name, as a prefix length, or 0 when every scope is expanded. */
static size_t collapsed_prefix(const char *name, const struct strmap *open)
{
	char buf[1024];

	for (int d = 1;; d++) {
		size_t l = scope_prefix_len(name, d);
		if (!l || l >= sizeof buf)
			return 0;
		memcpy(buf, name, l);
		buf[l] = '\0';
		if (!strmap_has(open, buf))
			return l;
	}
}

/* A folded scope.  Its member boxes are chained through next[] (a per-group hash map of op counts cost 1.5 KB a
 * group: 26 MB for a chain of 17,000 three-node blocks); counts are taken when the group's box is made. */
struct group {
	const char *prefix; /* in the scene's strings: it becomes the group box's name */
	uint32_t box;     /* index in the new box array */
	uint32_t n_nodes;
	uint32_t head, tail; /* first and last member box */
};

static int cmp_edges(const void *x, const void *y)
{
	const struct scene_edge *a = x, *b = y;

	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	if (a->dst != b->dst)
		return a->dst < b->dst ? -1 : 1;
	return a->value < b->value ? -1 : a->value > b->value;
}

/* Scratch for counting the ops of one group at a time: one counter per distinct op type of the graph. */
struct op_tally {
	struct strmap ids;  /* op type -> id + 1 */
	const char **names;
	uint32_t *count;
	uint32_t *touched;  /* ids counted for the current group */
	uint32_t n, cap;
};

/* The id of op type op, or -1 when out of memory. */
static int32_t tally_id(struct op_tally *t, const char *op)
{
	intptr_t id = (intptr_t)strmap_get(&t->ids, op) - 1;

	if (id >= 0)
		return (int32_t)id;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 16;
		const char **nn = realloc(t->names, cap * sizeof *nn);
		if (!nn)
			return -1;
		t->names = nn;
		t->cap = cap;
	}
	t->names[t->n] = op;
	if (strmap_put(&t->ids, op, (void *)(intptr_t)(t->n + 1)))
		return -1;
	return (int32_t)t->n++;
}

static void tally_free(struct op_tally *t)
{
	strmap_free(&t->ids);
	free(t->names);
	free(t->count);
	free(t->touched);
}

/* The group box's rows (its node count, its three most common ops) and category. */
static int group_lines(const struct group *gr, struct scene *s, const uint32_t *next, const uint32_t *box_op,
		       struct op_tally *t, struct scene_box *bx, int ascii)
{
	struct strbuf b = {0};
	const char *best[3] = {0};
	uint32_t bestn[3] = {0}, cat_count[CAT_COUNT] = {0}, n_touched = 0;

	for (uint32_t m = gr->head;; m = next[m]) {
		uint32_t op = box_op[m];
		if (!t->count[op]++)
			t->touched[n_touched++] = op;
		cat_count[s->boxes[m].cat]++;
		if (m == gr->tail)
			break;
	}
	for (uint32_t i = 0; i < n_touched; i++) {
		uint32_t op = t->touched[i], c = t->count[op];
		const char *name = t->names[op];
		t->count[op] = 0;
		for (int k = 0; k < 3; k++)
			if (c > bestn[k] || (c == bestn[k] && best[k] && strcmp(name, best[k]) < 0)) {
				for (int j = 2; j > k; j--)
					best[j] = best[j - 1], bestn[j] = bestn[j - 1];
				best[k] = name, bestn[k] = c;
				break;
			}
	}
	uint32_t cat = 0;
	for (int c = 1; c < CAT_COUNT; c++)
		if (cat_count[c] > cat_count[cat])
			cat = (uint32_t)c;
	bx->cat = (enum op_category)cat;
	bx->lines = scene_alloc(s, 2 * sizeof *bx->lines);
	if (!bx->lines)
		return -1;
	present_put_int(&b, gr->n_nodes);
	strbuf_puts(&b, gr->n_nodes == 1 ? " node" : " nodes");
	bx->lines[bx->n_lines++] = scene_strshare(s, strbuf_str(&b));
	strbuf_reset(&b);
	for (int k = 0; k < 3 && best[k]; k++) {
		strbuf_puts(&b, k ? ", " : "");
		strbuf_puts(&b, best[k]);
		strbuf_puts(&b, ascii ? " x" : "\xc3\x97");
		present_put_int(&b, bestn[k]);
	}
	if (b.len)
		bx->lines[bx->n_lines++] = scene_strshare(s, strbuf_str(&b));
	int failed = b.failed;
	strbuf_free(&b);
	for (uint16_t l = 0; l < bx->n_lines; l++)
		if (!bx->lines[l])
			return -1;
	return failed ? -1 : 0;
}

int scene_fold(struct scene *s, const struct graph *g, char *const *expanded, size_t n_expanded, int ascii,
	       struct ov_error *err)
{
	struct strmap open = {0}, gmap = {0};
	struct op_tally tally = {0};
	struct group *groups = NULL;
	size_t n_groups = 0, cap_groups = 0;
	int32_t *member = NULL;     /* old box -> group index, -1 */
	uint32_t *remap = NULL;     /* old box -> new box */
	uint32_t *next = NULL;      /* old member box -> the next member box of its group */
	uint32_t *box_op = NULL;    /* old member box -> op id */
	struct scene_box *nb = NULL;
	uint32_t n_new = 0, n_members = 0;
	int rc = -1;

	for (size_t i = 0; i < n_expanded; i++)
		if (strmap_add(&open, expanded[i], NULL))
			goto oom;
	member = malloc((s->n_boxes + 1) * sizeof *member);
	remap = malloc((s->n_boxes + 1) * sizeof *remap);
	next = malloc((s->n_boxes + 1) * sizeof *next);
	box_op = malloc((s->n_boxes + 1) * sizeof *box_op);
	if (!member || !remap || !next || !box_op)
		goto oom;
	for (uint32_t b = 0; b < s->n_boxes; b++) {
		const struct scene_box *bx = &s->boxes[b];
		member[b] = -1;
		if (bx->kind != BOX_NODE)
			continue;
		const char *name = present_node_name(g, (uint32_t)bx->ref);
		size_t l = collapsed_prefix(name, &open);
		if (!l)
			continue;
		char key[1024];
		memcpy(key, name, l);
		key[l] = '\0';
		intptr_t gi = (intptr_t)strmap_get(&gmap, key) - 1;
		if (gi < 0) {
			if (n_groups == cap_groups) {
				cap_groups = cap_groups ? cap_groups + cap_groups / 2 : 16;
				struct group *ng = realloc(groups, cap_groups * sizeof *ng);
				if (!ng)
					goto oom;
				groups = ng;
			}
			gi = (intptr_t)n_groups;
			groups[gi] = (struct group){.prefix = scene_strdup(s, key), .head = b};
			n_groups++;
			if (!groups[gi].prefix || strmap_put(&gmap, groups[gi].prefix, (void *)(gi + 1)))
				goto oom;
		} else {
			next[groups[gi].tail] = b;
		}
		struct group *gr = &groups[gi];
		gr->tail = b;
		gr->n_nodes++;
		int32_t op = tally_id(&tally, present_node_op(g, (uint32_t)bx->ref));
		if (op < 0)
			goto oom;
		box_op[b] = (uint32_t)op;
		member[b] = (int32_t)gi;
		n_members++;
	}
	strmap_free(&gmap); /* not needed any more: give its memory back before the new boxes are made */
	/* A scope of a node or two stays open: its group box would hide as much as it shows. */
	size_t n_folded = 0;
	for (size_t gi = 0; gi < n_groups; gi++)
		n_folded += groups[gi].n_nodes >= SCOPE_FOLD_MIN;
	for (uint32_t b = 0; b < s->n_boxes; b++)
		if (member[b] >= 0 && groups[member[b]].n_nodes < SCOPE_FOLD_MIN) {
			member[b] = -1;
			n_members--;
		}
	if (!n_folded) { /* nothing to fold */
		rc = 0;
		goto out;
	}
	tally.count = calloc(tally.n, sizeof *tally.count);
	tally.touched = malloc(tally.n * sizeof *tally.touched);
	nb = calloc(s->n_boxes - n_members + n_folded, sizeof *nb);
	if (!tally.count || !tally.touched || !nb)
		goto oom;
	/* New boxes in the old order; a group takes the place of its first member. */
	for (uint32_t b = 0; b < s->n_boxes; b++) {
		if (member[b] < 0) {
			nb[n_new] = s->boxes[b];
			remap[b] = n_new++;
			continue;
		}
		struct group *gr = &groups[member[b]];
		if (gr->head == b) { /* the first member: the group box goes here */
			struct scene_box *bx = &nb[n_new];
			const char *last = strrchr(gr->prefix, '/');
			struct strbuf t = {0};
			strbuf_puts(&t, ascii ? "[+] " : "\xe2\x96\xb8 ");
			strbuf_puts(&t, last ? last + 1 : gr->prefix);
			bx->kind = BOX_GROUP;
			bx->ref = s->boxes[gr->head].ref; /* its first member node */
			bx->title = t.failed ? NULL : scene_strdup(s, strbuf_str(&t));
			bx->name = gr->prefix;
			strbuf_free(&t);
			gr->box = n_new++;
			if (!bx->title || !bx->name || group_lines(gr, s, next, box_op, &tally, bx, ascii))
				goto oom;
			int w = 8;
			const char *texts[3] = {bx->title, bx->name, bx->n_lines ? bx->lines[bx->n_lines - 1] : ""};
			for (int k = 0; k < 3; k++) {
				int tw = 0;
				for (const char *p = texts[k]; *p; p++)
					tw += ((unsigned char)*p & 0xc0) != 0x80;
				if (tw + 4 > w)
					w = tw + 4;
			}
			bx->w = (uint16_t)(w > 40 ? 40 : w);
			bx->h = (uint16_t)(bx->n_lines + 3);
		}
		remap[b] = gr->box;
	}
	/* The strings of the old member boxes stay in the scene's blocks until it is freed. */
	for (uint32_t i = 0; i < s->n_nodes; i++)
		if (s->node_box[i] >= 0)
			s->node_box[i] = (int32_t)remap[s->node_box[i]];
	/* Edges: remapped, without the ones inside a group, one per (source, target) pair. */
	uint32_t ne = 0;
	for (uint32_t e = 0; e < s->n_edges; e++) {
		struct scene_edge ed = s->edges[e];
		ed.src = remap[ed.src];
		ed.dst = remap[ed.dst];
		if (ed.src == ed.dst)
			continue;
		s->edges[ne++] = ed;
	}
	qsort(s->edges, ne, sizeof *s->edges, cmp_edges);
	uint32_t k = 0;
	for (uint32_t e = 0; e < ne; e++) {
		if (k && s->edges[k - 1].src == s->edges[e].src && s->edges[k - 1].dst == s->edges[e].dst)
			continue;
		s->edges[k++] = s->edges[e];
	}
	s->n_edges = k;
	struct scene_edge *shrunk = realloc(s->edges, (k ? k : 1) * sizeof *s->edges);
	if (shrunk)
		s->edges = shrunk;
	free(s->boxes);
	s->boxes = nb;
	s->n_boxes = n_new;
	nb = NULL;
	rc = 0;
	goto out;
oom:
	ov_fail(err, OV_NOMEM, "out of memory folding the graph");
out:
	free(groups);
	free(nb);
	free(member);
	free(remap);
	free(next);
	free(box_op);
	tally_free(&tally);
	strmap_free(&open);
	strmap_free(&gmap);
	return rc;
}

void scope_list_free(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

int scene_auto_expand(const struct graph *g, size_t max_boxes, char ***out, size_t *n_out, struct ov_error *err)
{
	char **list = NULL;
	size_t n = 0, cap = 0;
	struct strmap open = {0};

	*out = NULL;
	*n_out = 0;
	if (g->n_nodes <= max_boxes)
		return 0;
	/* Open scopes breadth first, biggest first, while the box count stays under max_boxes. */
	for (int depth = 1; depth < 32; depth++) {
		size_t boxes = 0;
		/* Boxes at the current openness: one per collapsed scope plus the unscoped nodes.  The scopes are also
		 * kept in the order of their first node, so that ties between equal scopes go the same way every time
		 * (the map's order changes from run to run: its hash is seeded). */
		struct strmap seen = {0};
		const char **order = malloc((g->n_nodes + 1) * sizeof *order);
		size_t n_order = 0;
		if (!order)
			goto oom;
		for (uint32_t i = 0; i < g->n_nodes; i++) {
			const char *name = present_node_name(g, i);
			size_t l = collapsed_prefix(name, &open);
			if (!l) {
				boxes++;
				continue;
			}
			char key[1024];
			memcpy(key, name, l);
			key[l] = '\0';
			if (!strmap_has(&seen, key)) {
				char *dup = strdup(key);
				if (!dup || strmap_add(&seen, dup, NULL)) {
					free(dup);
					free(order);
					goto oom;
				}
				order[n_order++] = dup;
				boxes++;
			}
			/* count the scope's nodes (the stored key stays; only the value changes) */
			if (strmap_put(&seen, key, (void *)((uintptr_t)strmap_get(&seen, key) + 1))) {
				free(order);
				goto oom;
			}
		}
		/* Candidate scopes: collapsed ones at this depth, with their sizes. */
		size_t n_cand = 0;
		struct cand {
			const char *key;
			size_t nodes;
		} *cand = malloc((seen.n + 1) * sizeof *cand);
		if (!cand) {
			for (size_t s = 0; s < seen.cap; s++)
				free((char *)seen.slots[s].key);
			strmap_free(&seen);
			free(order);
			goto oom;
		}
		for (size_t k = 0; k < n_order; k++)
			cand[n_cand++] = (struct cand){order[k], (size_t)(uintptr_t)strmap_get(&seen, order[k])};
		free(order);
		/* Open the biggest first while it fits (a scope of k nodes turns 1 box into at most k). Each try costs a
		 * pass over the nodes, so give up on a depth after a few scopes that do not fit. */
		int opened = 0, misses = 0;
		for (; boxes < max_boxes && misses < 16;) {
			size_t best = (size_t)-1;
			for (size_t c = 0; c < n_cand; c++)
				if (cand[c].nodes > 1 && (best == (size_t)-1 || cand[c].nodes > cand[best].nodes))
					best = c;
			if (best == (size_t)-1)
				break;
			/* Its children may be scopes themselves: count how many boxes it really adds. */
			struct strmap kids = {0};
			size_t add = 0, l = strlen(cand[best].key);
			int cd = 0;
			for (const char *p = cand[best].key; *p; p++)
				cd += *p == '/';
			for (uint32_t i = 0; i < g->n_nodes; i++) {
				const char *name = present_node_name(g, i);
				if (strncmp(name, cand[best].key, l) || name[l] != '/')
					continue;
				size_t kl = scope_prefix_len(name, cd + 1);
				if (!kl || kl <= l) {
					add++;
					continue;
				}
				char key[1024];
				if (kl >= sizeof key)
					continue;
				memcpy(key, name, kl);
				key[kl] = '\0';
				if (!strmap_has(&kids, key)) {
					char *dup = strdup(key);
					if (dup && !strmap_add(&kids, dup, NULL))
						add++;
					else
						free(dup);
				}
			}
			for (size_t s = 0; s < kids.cap; s++)
				free((char *)kids.slots[s].key);
			strmap_free(&kids);
			if (boxes + add - 1 > max_boxes) {
				cand[best].nodes = 0;
				misses++;
				continue;
			}
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				char **nl = realloc(list, cap * sizeof *nl);
				if (!nl) {
					free(cand);
					goto oom;
				}
				list = nl;
			}
			list[n] = strdup(cand[best].key);
			if (!list[n] || strmap_add(&open, list[n], NULL)) {
				free(cand);
				goto oom;
			}
			n++;
			boxes += add - 1;
			cand[best].nodes = 0;
			opened = 1;
		}
		free(cand);
		for (size_t s = 0; s < seen.cap; s++)
			free((char *)seen.slots[s].key);
		strmap_free(&seen);
		if (!opened)
			break;
	}
	strmap_free(&open);
	*out = list;
	*n_out = n;
	return 0;
oom:
	strmap_free(&open);
	scope_list_free(list, n);
	return ov_fail(err, OV_NOMEM, "out of memory folding the graph");
}
