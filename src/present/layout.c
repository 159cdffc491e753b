/* onnxview's layered layout: ranks, dummy chains, ordering, columns and channel-routed orthogonal edges. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/error.h"
#include "src/present/layout.h"

/*
 * The pipeline (Sugiyama), every step linear or n log n:
 *   1. ranks: a topological order (Kahn's, forcing the lowest unplaced box when a cycle stalls it; the edges it
 *      then meets backwards are turned round), longest path from the sources, then boxes that feed more than they
 *      take (constants, shape subgraphs) sink to just above their nearest consumer; empty ranks are squeezed out.
 *   2. dummies: the edges of one source that go more than one rank down share a trunk of 1-cell dummies, one per
 *      rank crossed; a turned-round edge gets a chain of dummies from its target's rank to its source's, beside
 *      both.  When that would cost more than linear memory (a pathological graph: every box feeding the last
 *      one), the costliest sources go to lanes instead: vertical lines right of the drawing.
 *   3. order within ranks: the post-order of a depth-first walk from the sinks up through each box's inputs in
 *      input order, then barycentre sweeps (ties keep the current order), keeping the order with fewest crossings.
 *   4. columns: each box prefers the upper end of its first input edge; of the boxes preferring the same one, the
 *      one with the longest chain of preferences below it wins.  Winners are aligned into vertical blocks sharing
 *      a centre column, as in Brandes-Koepf; where alignments would cross, the set with the longest chains is
 *      kept (so a model's main path wins over a side line).  Blocks are packed left in one longest-path pass over
 *      "is left of" (the order within ranks), with gap_x blank columns between boxes.
 *   5. ports: the inputs of a box enter at distinct columns inside its top border, each as close as possible
 *      to where its edge comes from, in the same left-to-right order, and not where another line drops.
 *   6. tracks: in each gap between ranks, each net (the horizontal run that joins one upper end to its lower ends)
 *      gets a row by the constrained left-edge algorithm of channel routing: runs on a row do not touch, and
 *      a net whose line drops at column c lies above the net whose line rises from column c; a cycle of such
 *      constraints is broken by a dogleg.  The gap grows to fit its rows.
 *   7. routes: each edge walks its hops through the gaps, from the source's bottom centre to its port.
 */

#define NONE UINT32_MAX
#define ALLOC(p, count) (((p) = calloc((count) != 0 ? (size_t)(count) : 1, sizeof *(p))) == NULL)

enum { PIN_TOP, PIN_BOT };

struct pin {
	int32_t col;
	uint32_t net; /* owner while collecting, then the net's index within its gap */
	uint32_t side;
};

struct lay {
	const struct layout_input *in;
	struct layout_options opt;
	uint32_t n, ne, nn, nr;  /* boxes, edges, layered nodes (boxes then dummies), ranks */
	/* 1. ranks */
	uint8_t *back;           /* per edge: turned round (or a self-loop) */
	uint32_t *lo_first, *lo; /* layout out-edges by layout source (self-loops left out), in edge order */
	uint32_t *li_first, *li; /* layout in-edges by layout target */
	uint32_t *ti_first, *ti; /* all edges by their own target box, for ports */
	uint32_t *rank;          /* per layered node */
	/* 2. dummies */
	uint32_t *trunk, *trunk_len; /* per box: first dummy of its trunk (NONE) and its length */
	uint32_t *box_lane;          /* per box: lane of its long edges, or NONE */
	uint32_t *lane_end;          /* per box: deepest rank its long edges reach */
	uint32_t *chain;             /* per edge: first dummy of a turned-round edge's chain (NONE) */
	uint32_t *edge_lane;         /* per edge: lane of a turned-round edge, or NONE */
	uint32_t n_lanes;
	uint32_t *up_first, *up, *dn_first, *dn; /* neighbours in the rank above / below */
	/* 3. order */
	uint32_t *rfirst, *order, *pos; /* nodes by rank, left to right: order[rfirst[r] ..]; place in its rank */
	uint32_t widest;                /* nodes in the fullest rank */
	/* 4. columns */
	int32_t *col;             /* per layered node: centre column */
	int32_t lane_x0;          /* column of lane 0; lane i at lane_x0 + 2i */
	int32_t right;            /* rightmost column used by a box or dummy */
	/* 5-7 */
	int32_t *port;            /* per edge: column where it enters its target */
	uint32_t *lane_net;       /* per laned edge: the edge whose LANE net it leaves its lane by (one per rank) */
	uint32_t *first_out;      /* per box: its first edge, or NONE */
	int32_t *track;           /* per net owner: row index within its gap, -1 for a straight drop */
	int32_t *track2, *dog_x;  /* per net owner split by a dogleg: row of its lower half, column joining them */
	uint32_t *n_tracks;       /* per gap (gap g lies above rank g; gap nr is below the last rank) */
	int64_t *gap_top, *gap_h; /* per gap */
	int64_t *rank_y, *rank_h;
};

static uint32_t span_of(const struct lay *L, uint32_t e)
{
	return L->rank[L->in->dst[e]] - L->rank[L->in->src[e]];
}

static int32_t box_w(const struct lay *L, uint32_t v)
{
	return v < L->n ? L->in->w[v] : 1;
}

static int32_t lane_x(const struct lay *L, uint32_t lane)
{
	return L->lane_x0 + 2 * (int32_t)lane;
}

/* Group the indices 0..m-1 by key (NONE: left out), keeping their order: list[first[k] .. first[k+1]). */
static int csr_build(uint32_t nk, uint32_t m, const uint32_t *key, uint32_t **first_out, uint32_t **list_out)
{
	uint32_t *first, *list;

	if (ALLOC(first, (size_t)nk + 1))
		return -1;
	if (ALLOC(list, m)) {
		free(first);
		return -1;
	}
	for (uint32_t i = 0; i < m; i++)
		if (key[i] != NONE)
			first[key[i] + 1]++;
	for (uint32_t k = 0; k < nk; k++)
		first[k + 1] += first[k];
	for (uint32_t i = 0; i < m; i++)
		if (key[i] != NONE)
			list[first[key[i]]++] = i;
	for (uint32_t k = nk; k > 0; k--)
		first[k] = first[k - 1];
	first[0] = 0;
	*first_out = first;
	*list_out = list;
	return 0;
}

/* ---- 1. ranks ------------------------------------------------------------------------------------------- */

static int lay_rank(struct lay *L)
{
	const struct layout_input *in = L->in;
	uint32_t n = L->n, ne = L->ne, head = 0, tail = 0, forced = 0, nr = 0;
	uint32_t *key = NULL, *of = NULL, *ol = NULL, *indeg = NULL, *topo = NULL, *tpos = NULL, *map = NULL;
	int rc = -1;

	if (ALLOC(key, ne) || ALLOC(indeg, n) || ALLOC(topo, n) || ALLOC(tpos, n) || ALLOC(map, n) ||
	    ALLOC(L->back, ne) || ALLOC(L->rank, n))
		goto out;
	for (uint32_t e = 0; e < ne; e++) {
		key[e] = in->src[e] != in->dst[e] ? in->src[e] : NONE;
		if (key[e] != NONE)
			indeg[in->dst[e]]++;
	}
	if (csr_build(n, ne, key, &of, &ol))
		goto out;
	/* Kahn's algorithm; when a cycle stalls it, the lowest unplaced box goes next regardless */
	for (uint32_t v = 0; v < n; v++)
		tpos[v] = NONE;
	for (uint32_t v = 0; v < n; v++)
		if (!indeg[v]) {
			tpos[v] = tail;
			topo[tail++] = v;
		}
	while (head < n) {
		if (head == tail) {
			while (tpos[forced] != NONE)
				forced++;
			tpos[forced] = tail;
			topo[tail++] = forced;
		}
		uint32_t v = topo[head++];
		for (uint32_t i = of[v]; i < of[v + 1]; i++) {
			uint32_t d = in->dst[ol[i]];
			if (tpos[d] == NONE && --indeg[d] == 0) {
				tpos[d] = tail;
				topo[tail++] = d;
			}
		}
	}
	for (uint32_t e = 0; e < ne; e++)
		L->back[e] = in->src[e] == in->dst[e] || tpos[in->src[e]] > tpos[in->dst[e]];
	/* the layout's edges: turned-round ones point down too */
	for (uint32_t e = 0; e < ne; e++)
		key[e] = in->src[e] == in->dst[e] ? NONE : L->back[e] ? in->dst[e] : in->src[e];
	if (csr_build(n, ne, key, &L->lo_first, &L->lo))
		goto out;
	for (uint32_t e = 0; e < ne; e++)
		key[e] = in->src[e] == in->dst[e] ? NONE : L->back[e] ? in->src[e] : in->dst[e];
	if (csr_build(n, ne, key, &L->li_first, &L->li))
		goto out;
	if (csr_build(n, ne, in->dst, &L->ti_first, &L->ti))
		goto out;
	/* longest path from the sources */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = topo[i];
		for (uint32_t j = L->lo_first[v]; j < L->lo_first[v + 1]; j++) {
			uint32_t e = L->lo[j], d = L->back[e] ? in->src[e] : in->dst[e];
			if (L->rank[d] < L->rank[v] + 1)
				L->rank[d] = L->rank[v] + 1;
		}
	}
	/* a box with more edges out than in sinks to just above its nearest consumer: shorter edges in all */
	for (uint32_t i = n; i-- > 0;) {
		uint32_t v = topo[i], n_out = L->lo_first[v + 1] - L->lo_first[v], m = UINT32_MAX;
		if (n_out <= L->li_first[v + 1] - L->li_first[v])
			continue;
		for (uint32_t j = L->lo_first[v]; j < L->lo_first[v + 1]; j++) {
			uint32_t e = L->lo[j], d = L->back[e] ? in->src[e] : in->dst[e];
			if (L->rank[d] < m)
				m = L->rank[d];
		}
		L->rank[v] = m - 1;
	}
	/* squeeze out empty ranks */
	for (uint32_t v = 0; v < n; v++)
		map[L->rank[v]] = 1;
	for (uint32_t r = 0; r < n; r++)
		if (map[r])
			map[r] = nr++;
	for (uint32_t v = 0; v < n; v++)
		L->rank[v] = map[L->rank[v]];
	L->nr = nr;
	rc = 0;
out:
	free(key);
	free(of);
	free(ol);
	free(indeg);
	free(topo);
	free(tpos);
	free(map);
	return rc;
}

/* ---- 2. dummies ----------------------------------------------------------------------------------------- */

struct cost_item {
	uint64_t cost;
	uint32_t id; /* a box (a trunk) or n + edge (a chain) */
};

static int cost_cmp(const void *a, const void *b)
{
	const struct cost_item *x = a, *y = b;

	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Trunks and chains, or lanes for the costliest when they would not fit the memory budget.  A trunk costs its
 * dummies plus the hops its edges walk along it when routed; a chain costs its dummies and hops too. */
static int lay_dummies(struct lay *L)
{
	const struct layout_input *in = L->in;
	uint32_t n = L->n, ne = L->ne, nn = n;
	uint64_t *cost = NULL, total = 0, budget = 4 * ((uint64_t)n + ne) + 100000;
	struct cost_item *items = NULL;
	int rc = -1;

	if (ALLOC(L->trunk, n) || ALLOC(L->trunk_len, n) || ALLOC(L->box_lane, n) || ALLOC(L->lane_end, n) ||
	    ALLOC(L->chain, ne) || ALLOC(L->edge_lane, ne) || ALLOC(cost, n))
		goto out;
	for (uint32_t e = 0; e < ne; e++) {
		uint32_t s = in->src[e], d = in->dst[e];
		L->chain[e] = NONE;
		L->edge_lane[e] = NONE;
		if (L->back[e]) {
			total += s == d ? 1 : 2 * ((uint64_t)L->rank[s] - L->rank[d] + 1);
		} else if (span_of(L, e) > 1) {
			uint32_t sp = span_of(L, e);
			if (sp - 1 > L->trunk_len[s]) {
				total += sp - 1 - L->trunk_len[s];
				cost[s] += sp - 1 - L->trunk_len[s];
				L->trunk_len[s] = sp - 1;
			}
			if (L->rank[d] > L->lane_end[s])
				L->lane_end[s] = L->rank[d];
			total += sp - 1;
			cost[s] += sp - 1;
		}
	}
	for (uint32_t v = 0; v < n; v++)
		L->box_lane[v] = NONE;
	if (total > budget) {
		size_t m = 0;
		if (ALLOC(items, (size_t)n + ne))
			goto out;
		for (uint32_t v = 0; v < n; v++)
			if (cost[v])
				items[m++] = (struct cost_item){cost[v], v};
		for (uint32_t e = 0; e < ne; e++)
			if (L->back[e] && in->src[e] != in->dst[e]) {
				uint64_t len = (uint64_t)L->rank[in->src[e]] - L->rank[in->dst[e]] + 1;
				items[m++] = (struct cost_item){2 * len, n + e};
			}
		qsort(items, m, sizeof *items, cost_cmp);
		for (size_t i = 0; i < m && total > budget; i++) {
			total -= items[i].cost;
			if (items[i].id < n)
				L->box_lane[items[i].id] = L->n_lanes++;
			else
				L->edge_lane[items[i].id - n] = L->n_lanes++;
		}
	}
	for (uint32_t v = 0; v < n; v++) {
		L->trunk[v] = NONE;
		if (L->trunk_len[v] && L->box_lane[v] == NONE) {
			L->trunk[v] = nn;
			nn += L->trunk_len[v];
		}
	}
	for (uint32_t e = 0; e < ne; e++)
		if (L->back[e] && L->edge_lane[e] == NONE) {
			L->chain[e] = nn;
			nn += L->rank[in->src[e]] - L->rank[in->dst[e]] + 1;
		}
	L->nn = nn;
	{
		uint32_t *r = realloc(L->rank, ((size_t)nn + 1) * sizeof *r);
		if (!r)
			goto out;
		L->rank = r;
	}
	for (uint32_t v = 0; v < n; v++)
		for (uint32_t k = 0; k < (L->trunk[v] != NONE ? L->trunk_len[v] : 0); k++)
			L->rank[L->trunk[v] + k] = L->rank[v] + 1 + k;
	for (uint32_t e = 0; e < ne; e++)
		if (L->chain[e] != NONE)
			for (uint32_t k = 0; k <= L->rank[in->src[e]] - L->rank[in->dst[e]]; k++)
				L->rank[L->chain[e] + k] = L->rank[in->dst[e]] + k;
	rc = 0;
out:
	free(cost);
	free(items);
	return rc;
}

/* The links between adjacent ranks (an edge's last hop, a trunk's or a chain's segments): counted, then filled. */
static void link_add(struct lay *L, uint32_t a, uint32_t b, int fill)
{
	if (!fill) {
		L->dn_first[a + 1]++;
		L->up_first[b + 1]++;
	} else {
		L->dn[L->dn_first[a]++] = b;
		L->up[L->up_first[b]++] = a;
	}
}

static void lay_links_each(struct lay *L, int fill)
{
	const struct layout_input *in = L->in;

	for (uint32_t e = 0; e < L->ne; e++) {
		uint32_t s = in->src[e], d = in->dst[e];
		if (L->back[e]) {
			if (L->chain[e] != NONE)
				for (uint32_t k = 0; k < L->rank[s] - L->rank[d]; k++)
					link_add(L, L->chain[e] + k, L->chain[e] + k + 1, fill);
		} else if (span_of(L, e) == 1) {
			link_add(L, s, d, fill);
		} else if (L->trunk[s] != NONE) {
			link_add(L, L->trunk[s] + span_of(L, e) - 2, d, fill);
		}
	}
	for (uint32_t v = 0; v < L->n; v++)
		if (L->trunk[v] != NONE) {
			link_add(L, v, L->trunk[v], fill);
			for (uint32_t k = 0; k + 1 < L->trunk_len[v]; k++)
				link_add(L, L->trunk[v] + k, L->trunk[v] + k + 1, fill);
		}
}

static int lay_links(struct lay *L)
{
	uint32_t nn = L->nn;

	if (ALLOC(L->up_first, (size_t)nn + 1) || ALLOC(L->dn_first, (size_t)nn + 1))
		return -1;
	lay_links_each(L, 0);
	for (uint32_t v = 0; v < nn; v++) {
		L->up_first[v + 1] += L->up_first[v];
		L->dn_first[v + 1] += L->dn_first[v];
	}
	if (ALLOC(L->up, L->up_first[nn]) || ALLOC(L->dn, L->dn_first[nn]))
		return -1;
	lay_links_each(L, 1);
	for (uint32_t v = nn; v > 0; v--) {
		L->up_first[v] = L->up_first[v - 1];
		L->dn_first[v] = L->dn_first[v - 1];
	}
	L->up_first[0] = L->dn_first[0] = 0;
	return 0;
}

/* ---- 3. order within ranks ------------------------------------------------------------------------------ */

static void place(struct lay *L, uint32_t *cursor, uint32_t v)
{
	uint32_t r = L->rank[v];

	L->pos[v] = cursor[r] - L->rfirst[r];
	L->order[cursor[r]++] = v;
}

/* A box is done: it goes next in its rank, and the dummies it owns (its trunk, the chains of its turned-round
 * edges) next in theirs. */
static void place_box(struct lay *L, uint32_t *cursor, uint32_t v)
{
	const struct layout_input *in = L->in;

	place(L, cursor, v);
	if (L->trunk[v] != NONE)
		for (uint32_t k = 0; k < L->trunk_len[v]; k++)
			place(L, cursor, L->trunk[v] + k);
	for (uint32_t j = L->li_first[v]; j < L->li_first[v + 1]; j++) {
		uint32_t e = L->li[j];
		if (L->back[e] && L->chain[e] != NONE)
			for (uint32_t k = 0; k <= L->rank[v] - L->rank[in->dst[e]]; k++)
				place(L, cursor, L->chain[e] + k);
	}
	for (uint32_t j = L->ti_first[v]; j < L->ti_first[v + 1]; j++) {
		uint32_t e = L->ti[j];
		if (in->src[e] == v)
			place(L, cursor, L->chain[e]);
	}
}

/* Initial order: post-order of a depth-first walk from the sinks up through each box's inputs, first input
 * first, so that a box's first input sits in the same relative place as the box. */
static int lay_order_init(struct lay *L)
{
	const struct layout_input *in = L->in;
	uint32_t n = L->n, nn = L->nn, nr = L->nr, *cursor = NULL, *stack = NULL, *next = NULL, sp = 0;
	uint8_t *seen = NULL;
	int rc = -1;

	if (ALLOC(L->rfirst, (size_t)nr + 1) || ALLOC(L->order, nn) || ALLOC(L->pos, nn) || ALLOC(cursor, nr) ||
	    ALLOC(stack, n) || ALLOC(next, n) || ALLOC(seen, n))
		goto out;
	for (uint32_t v = 0; v < nn; v++)
		L->rfirst[L->rank[v] + 1]++;
	L->widest = 1;
	for (uint32_t r = 0; r < nr; r++) {
		if (L->rfirst[r + 1] > L->widest)
			L->widest = L->rfirst[r + 1];
		L->rfirst[r + 1] += L->rfirst[r];
	}
	memcpy(cursor, L->rfirst, (size_t)nr * sizeof *cursor);
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t root = 0; root < n; root++) {
			if (seen[root] || (pass == 0 && L->lo_first[root + 1] > L->lo_first[root]))
				continue;
			seen[root] = 1;
			stack[sp++] = root;
			next[root] = L->li_first[root];
			while (sp) {
				uint32_t v = stack[sp - 1];
				if (next[v] < L->li_first[v + 1]) {
					uint32_t e = L->li[next[v]++], u = L->back[e] ? in->dst[e] : in->src[e];
					if (!seen[u]) {
						seen[u] = 1;
						next[u] = L->li_first[u];
						stack[sp++] = u;
					}
				} else {
					sp--;
					place_box(L, cursor, v);
				}
			}
		}
	rc = 0;
out:
	free(cursor);
	free(stack);
	free(next);
	free(seen);
	return rc;
}

struct bary {
	double key;
	uint32_t pos, v;
};

static int bary_less(const struct bary *x, const struct bary *y)
{
	return x->key < y->key || (x->key == y->key && x->pos < y->pos);
}

/* Merge sort (qsort's callbacks and element copies cost more than the sweeps themselves). */
static void bary_sort(struct bary *a, struct bary *tmp, uint32_t k)
{
	uint32_t h = k / 2, i = 0, j = h, o = 0;

	if (k <= 16) {
		for (uint32_t s = 1; s < k; s++) {
			struct bary x = a[s];
			uint32_t t = s;
			for (; t > 0 && bary_less(&x, &a[t - 1]); t--)
				a[t] = a[t - 1];
			a[t] = x;
		}
		return;
	}
	bary_sort(a, tmp, h);
	bary_sort(a + h, tmp, k - h);
	while (i < h && j < k)
		tmp[o++] = bary_less(&a[j], &a[i]) ? a[j++] : a[i++];
	while (i < h)
		tmp[o++] = a[i++];
	memcpy(a, tmp, (size_t)o * sizeof *a);
}

/* Reorder rank r by the mean position of each node's neighbours in the rank above (down) or below (!down);
 * nodes with no such neighbours keep their slots. */
static void sweep_rank(struct lay *L, uint32_t r, int down, struct bary *items, struct bary *scratch, uint32_t *tmp)
{
	uint32_t f = L->rfirst[r], k = L->rfirst[r + 1] - f, m = 0, j = 0;
	const uint32_t *nf = down ? L->up_first : L->dn_first, *nb = down ? L->up : L->dn;

	memcpy(tmp, L->order + f, (size_t)k * sizeof *tmp);
	for (uint32_t i = 0; i < k; i++) {
		uint32_t v = tmp[i], a = nf[v], b = nf[v + 1];
		uint64_t sum = 0;
		if (a == b)
			continue;
		for (uint32_t t = a; t < b; t++)
			sum += L->pos[nb[t]];
		items[m++] = (struct bary){(double)sum / (b - a), i, v};
	}
	if (!m)
		return;
	bary_sort(items, scratch, m);
	for (uint32_t i = 0; i < k; i++) {
		uint32_t v = tmp[i];
		if (nf[v] < nf[v + 1])
			v = items[j++].v;
		L->order[f + i] = v;
		L->pos[v] = i;
	}
}

static void sort_small(uint32_t *a, uint32_t k)
{
	for (uint32_t i = 1; i < k; i++) {
		uint32_t x = a[i], j = i;
		for (; j > 0 && a[j - 1] > x; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Crossings between all pairs of adjacent ranks (Barth, Juenger, Mutzel: an accumulator tree). */
static uint64_t crossings(const struct lay *L, uint32_t *tree, uint32_t *buf)
{
	uint64_t total = 0;

	for (uint32_t r = 0; r + 1 < L->nr; r++) {
		uint32_t q = L->rfirst[r + 2] - L->rfirst[r + 1], first = 1;
		while (first < q)
			first *= 2;
		memset(tree, 0, (2 * (size_t)first - 1) * sizeof *tree);
		first -= 1;
		for (uint32_t i = L->rfirst[r]; i < L->rfirst[r + 1]; i++) {
			uint32_t v = L->order[i], k = 0;
			for (uint32_t t = L->dn_first[v]; t < L->dn_first[v + 1]; t++)
				buf[k++] = L->pos[L->dn[t]];
			if (k < 32)
				sort_small(buf, k);
			else
				qsort(buf, k, sizeof *buf, u32_cmp);
			for (uint32_t t = 0; t < k; t++) {
				uint32_t index = buf[t] + first;
				tree[index]++;
				while (index > 0) {
					if (index % 2)
						total += tree[index + 1];
					index = (index - 1) / 2;
					tree[index]++;
				}
			}
		}
	}
	return total;
}

static int lay_order(struct lay *L)
{
	uint32_t nn = L->nn, widest = L->widest, maxdeg = 1, *tmp = NULL, *tree = NULL, *buf = NULL, *best = NULL;
	struct bary *items = NULL, *scratch = NULL;
	uint64_t best_x, x;
	int rc = -1;

	for (uint32_t v = 0; v < nn; v++)
		if (L->dn_first[v + 1] - L->dn_first[v] > maxdeg)
			maxdeg = L->dn_first[v + 1] - L->dn_first[v];
	if (ALLOC(tmp, widest) || ALLOC(items, widest) || ALLOC(scratch, widest) || ALLOC(tree, 4 * (size_t)widest) ||
	    ALLOC(buf, maxdeg) || ALLOC(best, nn))
		goto out;
	best_x = crossings(L, tree, buf);
	memcpy(best, L->order, (size_t)nn * sizeof *best);
	for (uint32_t s = 0; s < L->opt.sweeps && best_x; s++) {
		int down = s % 2 == 0;
		if (down)
			for (uint32_t r = 1; r < L->nr; r++)
				sweep_rank(L, r, 1, items, scratch, tmp);
		else
			for (uint32_t r = L->nr - 1; r-- > 0;)
				sweep_rank(L, r, 0, items, scratch, tmp);
		x = crossings(L, tree, buf);
		if (x < best_x) {
			best_x = x;
			memcpy(best, L->order, (size_t)nn * sizeof *best);
		}
	}
	memcpy(L->order, best, (size_t)nn * sizeof *best);
	for (uint32_t r = 0; r < L->nr; r++)
		for (uint32_t i = L->rfirst[r]; i < L->rfirst[r + 1]; i++)
			L->pos[L->order[i]] = i - L->rfirst[r];
	rc = 0;
out:
	free(tmp);
	free(items);
	free(scratch);
	free(tree);
	free(buf);
	free(best);
	return rc;
}

/* ---- 4. columns ----------------------------------------------------------------------------------------- */

/* The node in the rank above that v would like to stand under: the upper end of its first input edge. */
static uint32_t preferred_above(const struct lay *L, uint32_t v)
{
	const struct layout_input *in = L->in;

	if (v >= L->n)
		return L->up_first[v + 1] > L->up_first[v] ? L->up[L->up_first[v]] : NONE;
	for (uint32_t j = L->ti_first[v]; j < L->ti_first[v + 1]; j++) {
		uint32_t e = L->ti[j], s = in->src[e];
		if (L->back[e])
			continue;
		if (span_of(L, e) == 1)
			return s;
		if (L->trunk[s] != NONE)
			return L->trunk[s] + span_of(L, e) - 2;
	}
	return NONE;
}

/* Smallest distance between the centres of a and b when a is just left of b in a rank. */
static int64_t separation(const struct lay *L, uint32_t a, uint32_t b)
{
	int32_t wa = box_w(L, a), wb = box_w(L, b);
	int32_t gap = a < L->n && b < L->n ? L->opt.gap_x : 1;

	return (wa - wa / 2) + wb / 2 + gap;
}

/* Pack blocks (nodes sharing root) to the left: a longest-path pass over "is left of" between blocks, leaving
 * each block's centre column in bx[root].  Returns -1 if the blocks are not acyclic (alignments crossed). */
static int pack_blocks(struct lay *L, const uint32_t *root, const uint32_t *below, int64_t *bx, uint32_t *indeg,
		       uint32_t *queue)
{
	uint32_t nn = L->nn, head = 0, tail = 0, blocks = 0;

	for (uint32_t v = 0; v < nn; v++) {
		bx[v] = 0;
		indeg[v] = 0;
	}
	for (uint32_t v = 0; v < nn; v++) {
		if (root[v] == v)
			blocks++;
		if (bx[root[v]] < box_w(L, v) / 2)
			bx[root[v]] = box_w(L, v) / 2;
		if (L->pos[v] > 0)
			indeg[root[v]]++;
	}
	for (uint32_t v = 0; v < nn; v++)
		if (root[v] == v && !indeg[v])
			queue[tail++] = v;
	while (head < tail) {
		uint32_t b = queue[head++];
		for (uint32_t v = b; v != NONE; v = below[v]) {
			uint32_t r = L->rank[v], w, rb;
			if (L->rfirst[r] + L->pos[v] + 1 >= L->rfirst[r + 1])
				continue;
			w = L->order[L->rfirst[r] + L->pos[v] + 1];
			rb = root[w];
			if (bx[rb] < bx[b] + separation(L, v, w))
				bx[rb] = bx[b] + separation(L, v, w);
			if (--indeg[rb] == 0)
				queue[tail++] = rb;
		}
	}
	return tail < blocks ? -1 : 0;
}

struct align_work {
	uint32_t *cand, *prev, *fen_idx; /* per candidate: node; best predecessor; Fenwick tree: candidate */
	uint64_t *best, *fen_val;        /* per candidate: weight of the best set ending there; Fenwick tree: maximum */
};

/* Align each node of rank r under its preferred node above where that node prefers it back.  Alignments must
 * not cross; where some do, keep the set of greatest total weight (the length of the chains they continue, so
 * that a model's main path wins over a side line): a weighted longest increasing subsequence of the upper
 * positions, with a Fenwick tree of prefix maxima. */
static void align_rank(struct lay *L, uint32_t r, const uint32_t *pref, const uint32_t *heavy, const uint32_t *len,
		       uint32_t *root, uint32_t *below, struct align_work *A)
{
	uint32_t k = 0, q = L->rfirst[r] - L->rfirst[r - 1], at = NONE;
	uint64_t top = 0;
	int crossed = 0;

	for (uint32_t i = L->rfirst[r]; i < L->rfirst[r + 1]; i++) {
		uint32_t v = L->order[i], u = pref[v];
		if (u == NONE || heavy[u] != v)
			continue;
		if (k && L->pos[u] < L->pos[pref[A->cand[k - 1]]])
			crossed = 1;
		A->cand[k++] = v;
	}
	if (crossed) {
		memset(A->fen_val, 0, ((size_t)q + 1) * sizeof *A->fen_val);
		for (uint32_t c = 0; c < k; c++) {
			uint32_t p = L->pos[pref[A->cand[c]]] + 1, from = NONE;
			uint64_t m = 0;
			for (uint32_t j = p - 1; j > 0; j -= j & -j)
				if (A->fen_val[j] > m) {
					m = A->fen_val[j];
					from = A->fen_idx[j];
				}
			A->best[c] = m + len[A->cand[c]];
			A->prev[c] = from;
			if (A->best[c] > top) {
				top = A->best[c];
				at = c;
			}
			for (uint32_t j = p; j <= q; j += j & -j)
				if (A->best[c] > A->fen_val[j]) {
					A->fen_val[j] = A->best[c];
					A->fen_idx[j] = c;
				}
		}
	}
	for (uint32_t c = crossed ? at : (k ? k - 1 : NONE); c != NONE; c = crossed ? A->prev[c] : c ? c - 1 : NONE) {
		uint32_t v = A->cand[c], u = pref[v];
		root[v] = root[u];
		below[u] = v;
	}
}

static int lay_columns(struct lay *L, struct ov_error *err)
{
	uint32_t nn = L->nn, *pref = NULL, *len = NULL, *heavy = NULL, *root = NULL, *below = NULL, *indeg = NULL;
	uint32_t *queue = NULL, widest = L->widest;
	int64_t *bx = NULL, lo = INT64_MAX, hi = INT64_MIN;
	struct align_work A = {0};
	int rc = -1;

	if (ALLOC(pref, nn) || ALLOC(len, nn) || ALLOC(heavy, nn) || ALLOC(root, nn) || ALLOC(below, nn) ||
	    ALLOC(indeg, nn) || ALLOC(queue, nn) || ALLOC(bx, nn) || ALLOC(L->col, nn) || ALLOC(A.cand, widest) ||
	    ALLOC(A.prev, widest) || ALLOC(A.best, widest) || ALLOC(A.fen_idx, (size_t)widest + 1) ||
	    ALLOC(A.fen_val, (size_t)widest + 1)) {
		rc = ov_fail(err, OV_NOMEM, "layout: out of memory");
		goto out;
	}
	for (uint32_t v = 0; v < nn; v++) {
		pref[v] = preferred_above(L, v);
		len[v] = 1;
		heavy[v] = below[v] = NONE;
		root[v] = v;
	}
	/* the longest chain of preferences below each node decides which of the nodes preferring it it aligns with */
	for (uint32_t r = L->nr; r-- > 0;)
		for (uint32_t i = L->rfirst[r]; i < L->rfirst[r + 1]; i++) {
			uint32_t v = L->order[i], u = pref[v];
			if (u != NONE && len[v] + 1 > len[u]) {
				len[u] = len[v] + 1;
				heavy[u] = v;
			}
		}
	for (uint32_t r = 1; r < L->nr; r++)
		align_rank(L, r, pref, heavy, len, root, below, &A);
	if (pack_blocks(L, root, below, bx, indeg, queue)) {
		/* cannot happen with non-crossing alignments; single nodes always pack */
		for (uint32_t v = 0; v < nn; v++) {
			root[v] = v;
			below[v] = NONE;
		}
		pack_blocks(L, root, below, bx, indeg, queue);
	}
	for (uint32_t v = 0; v < nn; v++) {
		int64_t left = bx[root[v]] - box_w(L, v) / 2, right = left + box_w(L, v) - 1;
		if (left < lo)
			lo = left;
		if (right > hi)
			hi = right;
	}
	if (nn && hi - lo + 2 + 2 * (int64_t)L->n_lanes > INT32_MAX / 4) {
		rc = ov_fail(err, OV_LIMIT, "layout: the drawing would be wider than %d cells", INT32_MAX / 4);
		goto out;
	}
	for (uint32_t v = 0; v < nn; v++)
		L->col[v] = (int32_t)(bx[root[v]] - lo);
	L->right = nn ? (int32_t)(hi - lo) : -1;
	L->lane_x0 = L->right + 2;
	rc = 0;
out:
	free(pref);
	free(len);
	free(heavy);
	free(root);
	free(below);
	free(indeg);
	free(queue);
	free(bx);
	free(A.cand);
	free(A.prev);
	free(A.best);
	free(A.fen_idx);
	free(A.fen_val);
	return rc;
}

/* ---- 5. ports ------------------------------------------------------------------------------------------- */

/* The column an edge comes down (or up) from, just above its target's rank. */
static int32_t edge_from(const struct lay *L, uint32_t e)
{
	const struct layout_input *in = L->in;
	uint32_t s = in->src[e];

	if (L->back[e])
		return L->chain[e] != NONE ? L->col[L->chain[e]] : lane_x(L, L->edge_lane[e]);
	if (span_of(L, e) == 1)
		return L->col[s];
	if (L->trunk[s] != NONE)
		return L->col[L->trunk[s] + span_of(L, e) - 2];
	return lane_x(L, L->box_lane[s]);
}

struct port_item {
	int32_t from, own; /* the column the edge comes from; that column if it is its own line's, else INT32_MIN */
	uint32_t e;
};

static int port_cmp(const void *a, const void *b)
{
	const struct port_item *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->e < y->e ? -1 : x->e > y->e;
}

/* Whether an input may enter at column c: not where another line drops from the rank above (the two lines would
 * share that column between their rows: a knot the track assignment cannot always untie). */
static int port_free(const int32_t *taken, uint32_t n_taken, int32_t c, int32_t own)
{
	if (c == own)
		return 1;
	for (uint32_t i = 0; i < n_taken && taken[i] <= c; i++)
		if (taken[i] == c)
			return 0;
	return 1;
}

/* Ports left to right, step columns apart, each as near its wish as the free columns allow: pushed right (dir
 * > 0) or left.  Returns -1 if they do not fit. */
static int ports_fit(const struct port_item *it, uint32_t k, int32_t lo, int32_t hi, int32_t step, int dir,
		     const int32_t *taken, uint32_t n_taken, int32_t *p)
{
	for (uint32_t j = 0; j < k; j++) {
		uint32_t i = dir > 0 ? j : k - 1 - j;
		int32_t want = it[i].from < lo ? lo : it[i].from > hi ? hi : it[i].from, c;
		if (dir > 0)
			c = j && want < p[i - 1] + step ? p[i - 1] + step : want;
		else
			c = j && want > p[i + 1] - step ? p[i + 1] - step : want;
		while (c >= lo && c <= hi && !port_free(taken, n_taken, c, it[i].own))
			c += dir;
		if (c < lo || c > hi)
			return -1;
		p[i] = c;
	}
	return 0;
}

static int lay_ports(struct lay *L)
{
	uint32_t maxdeg = 1, widest = L->widest;
	struct port_item *it = NULL;
	int32_t *p = NULL, *taken = NULL;

	for (uint32_t v = 0; v < L->n; v++)
		if (L->ti_first[v + 1] - L->ti_first[v] > maxdeg)
			maxdeg = L->ti_first[v + 1] - L->ti_first[v];
	if (ALLOC(L->port, L->ne) || ALLOC(it, maxdeg) || ALLOC(p, maxdeg) || ALLOC(taken, widest)) {
		free(it);
		free(p);
		free(taken);
		return -1;
	}
	for (uint32_t v = 0; v < L->n; v++) {
		uint32_t k = L->ti_first[v + 1] - L->ti_first[v], r = L->rank[v], n_taken = 0;
		int32_t lo = L->col[v] - box_w(L, v) / 2 + 1, hi = lo + box_w(L, v) - 3, step;
		if (!k)
			continue;
		for (uint32_t i = 0; i < k; i++) {
			uint32_t e = L->ti[L->ti_first[v] + i];
			int32_t from = edge_from(L, e);
			int direct = !L->back[e] && (span_of(L, e) == 1 || L->trunk[L->in->src[e]] != NONE);
			it[i] = (struct port_item){from, direct ? from : INT32_MIN, e};
		}
		qsort(it, k, sizeof *it, port_cmp);
		/* the columns where lines drop from the rank above, over this box (that rank is ordered by column) */
		if (r > 0) {
			uint32_t a = L->rfirst[r - 1], b = L->rfirst[r];
			while (a < b) {
				uint32_t mid = a + (b - a) / 2;
				if (L->col[L->order[mid]] < lo)
					a = mid + 1;
				else
					b = mid;
			}
			for (; a < L->rfirst[r] && L->col[L->order[a]] <= hi; a++)
				taken[n_taken++] = L->col[L->order[a]];
		}
		step = (int64_t)2 * (k - 1) <= hi - lo ? 2 : (int64_t)k - 1 <= hi - lo ? 1 : 0;
		if ((!step || ports_fit(it, k, lo, hi, step, 1, taken, n_taken, p)) &&
		    (!step || ports_fit(it, k, lo, hi, step, -1, taken, n_taken, p)) &&
		    (step != 2 || ports_fit(it, k, lo, hi, 1, 1, taken, n_taken, p)) &&
		    (step != 2 || ports_fit(it, k, lo, hi, 1, -1, taken, n_taken, p))) {
			/* no room to keep clear of the lines above: just spread them */
			for (uint32_t i = 0; i < k; i++) {
				int32_t want = it[i].from < lo ? lo : it[i].from > hi ? hi : it[i].from;
				p[i] = i && want < p[i - 1] + step ? p[i - 1] + step : want;
			}
			for (uint32_t i = k; i-- > 0;) {
				int32_t cap = i + 1 < k ? p[i + 1] - step : hi;
				if (p[i] > cap)
					p[i] = cap;
				if (p[i] < lo)
					p[i] = lo;
			}
		}
		for (uint32_t i = 0; i < k; i++)
			L->port[it[i].e] = p[i];
	}
	free(it);
	free(p);
	free(taken);
	return 0;
}

/* ---- 6. tracks ------------------------------------------------------------------------------------------ */

/* Net owners: a layered node (the net from it down into the gap below its rank), UP(e) (where a turned-round
 * edge turns over its target, in the gap above it) and LANE(e) (where a laned edge leaves its lane, in the gap
 * above its target). */
#define OWNER_UP(L, e) ((L)->nn + (e))
#define OWNER_LANE(L, e) ((L)->nn + (L)->ne + (e))

/* The gap of an owner's net: gap g is above rank g, gap nr below the last rank. */
static uint32_t owner_gap(const struct lay *L, uint32_t o)
{
	if (o < L->nn)
		return L->rank[o] + 1;
	if (o < L->nn + L->ne)
		return L->rank[L->in->dst[o - L->nn]];
	return L->rank[L->in->dst[o - L->nn - L->ne]];
}

struct pins {
	uint32_t *first; /* per owner */
	struct pin *pin;
	int fill;
};

static void pin_add(struct pins *P, uint32_t owner, int32_t col, uint32_t side)
{
	if (!P->fill)
		P->first[owner + 1]++;
	else
		P->pin[P->first[owner]++] = (struct pin){col, owner, side};
}

static void lay_pins_each(struct lay *L, struct pins *P)
{
	const struct layout_input *in = L->in;

	for (uint32_t e = 0; e < L->ne; e++) {
		uint32_t s = in->src[e], d = in->dst[e];
		if (L->first_out[s] == e)
			pin_add(P, s, L->col[s], PIN_TOP);
		if (L->back[e]) {
			uint32_t a = L->rank[s] - L->rank[d], c = L->chain[e];
			int32_t xa = c != NONE ? L->col[c + a] : lane_x(L, L->edge_lane[e]);
			pin_add(P, s, xa, PIN_TOP);
			if (c != NONE)
				for (uint32_t k = 0; k < a; k++) {
					pin_add(P, c + k, L->col[c + k], PIN_TOP);
					pin_add(P, c + k, L->col[c + k + 1], PIN_BOT);
				}
			pin_add(P, OWNER_UP(L, e), edge_from(L, e), PIN_BOT);
			pin_add(P, OWNER_UP(L, e), L->port[e], PIN_BOT);
		} else if (span_of(L, e) == 1) {
			pin_add(P, s, L->port[e], PIN_BOT);
		} else if (L->trunk[s] != NONE) {
			pin_add(P, L->trunk[s] + span_of(L, e) - 2, L->port[e], PIN_BOT);
		} else {
			int32_t x = lane_x(L, L->box_lane[s]);
			uint32_t o = OWNER_LANE(L, L->lane_net[e]);
			pin_add(P, s, x, PIN_BOT);
			pin_add(P, o, L->port[e], PIN_BOT);
			if (L->lane_net[e] == e) {
				pin_add(P, o, x, PIN_TOP);
				if (L->rank[d] < L->lane_end[s])
					pin_add(P, o, x, PIN_BOT);
			}
		}
	}
	for (uint32_t v = 0; v < L->n; v++)
		if (L->trunk[v] != NONE) {
			uint32_t t = L->trunk[v];
			pin_add(P, v, L->col[t], PIN_BOT);
			for (uint32_t k = 0; k < L->trunk_len[v]; k++) {
				pin_add(P, t + k, L->col[t + k], PIN_TOP);
				if (k + 1 < L->trunk_len[v])
					pin_add(P, t + k, L->col[t + k + 1], PIN_BOT);
			}
		}
}

static int pin_cmp(const void *a, const void *b)
{
	const struct pin *x = a, *y = b;

	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	if (x->side != y->side)
		return x->side < y->side ? -1 : 1;
	return x->net < y->net ? -1 : x->net > y->net;
}

struct net {
	int32_t l, r;
	uint32_t owner;
	uint32_t lower; /* the lower half of a net split by a dogleg */
};

struct ord_item {
	int32_t l, r;
	uint32_t net;
};

/* Scratch space for one gap at a time, sized for the largest. */
struct gap_work {
	struct net *net;
	struct pin *pin;
	struct ord_item *ord; /* the nets that need a row, by left end */
	uint32_t *cfrom, *cto, *succ_first, *succ, *pred_first, *pred, *indeg, *next, *placed, *seen;
	int32_t *tr;     /* per net: its row, -1 while unplaced */
	int32_t *last_r; /* per row: right end of its last run */
};

#define MAX_SPLITS 16 /* doglegs per gap */

static int ord_cmp(const void *a, const void *b)
{
	const struct ord_item *x = a, *y = b;

	if (x->l != y->l)
		return x->l < y->l ? -1 : 1;
	if (x->r != y->r)
		return x->r < y->r ? -1 : 1;
	return x->net < y->net ? -1 : x->net > y->net;
}

static int column_used(const struct gap_work *G, uint32_t np, int32_t c)
{
	uint32_t a = 0, b = np;

	while (a < b) {
		uint32_t mid = a + (b - a) / 2;
		if (G->pin[mid].col < c)
			a = mid + 1;
		else
			b = mid;
	}
	return a < np && G->pin[a].col == c;
}

/* Break a cycle of "lies above" by a dogleg: net c keeps its top pins on its row, drops at a free column x to a
 * row further down and reaches its bottom pins from there (a new net).  Returns -1 if c cannot be split. */
static int split_net(struct lay *L, struct gap_work *G, uint32_t *nnet, uint32_t *np, uint32_t c)
{
	int32_t top = INT32_MIN, bot = INT32_MIN, x = 0, dir;
	uint32_t lower = *nnet;

	if (G->net[c].lower || L->dog_x[G->net[c].owner] != INT32_MIN)
		return -1;
	for (uint32_t i = 0; i < *np; i++)
		if (G->pin[i].net == c) {
			if (G->pin[i].side == PIN_TOP && top == INT32_MIN)
				top = G->pin[i].col;
			if (G->pin[i].side == PIN_BOT && bot == INT32_MIN)
				bot = G->pin[i].col;
		}
	if (top == INT32_MIN || bot == INT32_MIN)
		return -1;
	dir = bot >= top ? 1 : -1;
	for (int32_t d = 1;; d++) {
		if (!column_used(G, *np, top + dir * d)) {
			x = top + dir * d;
			break;
		}
		if (top - dir * d >= 0 && !column_used(G, *np, top - dir * d)) {
			x = top - dir * d;
			break;
		}
	}
	G->net[lower] = (struct net){0, 0, G->net[c].owner, 1};
	for (uint32_t i = 0; i < *np; i++)
		if (G->pin[i].net == c && G->pin[i].side == PIN_BOT)
			G->pin[i].net = lower;
	/* the join at x is no pin in the gap's sense (it stops short of both ends), but entered as a top pin of the
	 * upper half and a bottom pin of the lower one it yields the one constraint it needs: upper above lower */
	G->pin[(*np)++] = (struct pin){x, c, PIN_TOP};
	G->pin[(*np)++] = (struct pin){x, lower, PIN_BOT};
	L->dog_x[G->net[c].owner] = x;
	(*nnet)++;
	return 0;
}

/* Rows for the nets of one gap: the constrained left-edge algorithm of channel routing, with doglegs where the
 * constraints form a cycle.  Returns the number of rows. */
static uint32_t assign_tracks(struct lay *L, const struct pins *P, const uint32_t *owners, uint32_t m,
			      struct gap_work *G)
{
	uint32_t nnet = 0, np = 0, nact, nc, head, *tail_link, t, max_t = L->opt.max_tracks, splits = 0;

	for (uint32_t i = 0; i < m; i++) {
		uint32_t o = owners[i];
		L->track[o] = L->track2[o] = -1;
		L->dog_x[o] = INT32_MIN;
		G->net[nnet] = (struct net){0, 0, o, 0};
		for (uint32_t j = P->first[o]; j < P->first[o + 1]; j++) {
			G->pin[np] = P->pin[j];
			G->pin[np++].net = nnet;
		}
		nnet++;
	}
restart:
	for (uint32_t i = 0; i < nnet; i++) {
		G->net[i].l = INT32_MAX;
		G->net[i].r = INT32_MIN;
		G->tr[i] = -1;
	}
	for (uint32_t j = 0; j < np; j++) {
		struct net *n = &G->net[G->pin[j].net];
		if (G->pin[j].col < n->l)
			n->l = G->pin[j].col;
		if (G->pin[j].col > n->r)
			n->r = G->pin[j].col;
	}
	nact = 0;
	for (uint32_t i = 0; i < nnet; i++)
		if (G->net[i].l < G->net[i].r) /* else a straight drop: no row */
			G->ord[nact++] = (struct ord_item){G->net[i].l, G->net[i].r, i};
	if (!nact)
		return 0;
	qsort(G->ord, nact, sizeof *G->ord, ord_cmp);
	/* a net dropping at column c (top pin) lies above a net rising from c (bottom pin) */
	qsort(G->pin, np, sizeof *G->pin, pin_cmp);
	nc = 0;
	for (uint32_t i = 0; i < np;) {
		uint32_t j = i, k;
		while (j < np && G->pin[j].col == G->pin[i].col)
			j++;
		for (k = i; k < j && G->pin[k].side == PIN_TOP; k++)
			for (uint32_t b = k; b < j && nc < np; b++) {
				uint32_t x = G->pin[k].net, y = G->pin[b].net;
				if (G->pin[b].side == PIN_BOT && x != y && G->net[x].l < G->net[x].r &&
				    G->net[y].l < G->net[y].r) {
					G->cfrom[nc] = x;
					G->cto[nc++] = y;
				}
			}
		i = j;
	}
	memset(G->succ_first, 0, ((size_t)nnet + 1) * sizeof *G->succ_first);
	memset(G->pred_first, 0, ((size_t)nnet + 1) * sizeof *G->pred_first);
	memset(G->indeg, 0, (size_t)nnet * sizeof *G->indeg);
	for (uint32_t c = 0; c < nc; c++) {
		G->succ_first[G->cfrom[c] + 1]++;
		G->pred_first[G->cto[c] + 1]++;
		G->indeg[G->cto[c]]++;
	}
	for (uint32_t i = 0; i < nnet; i++) {
		G->succ_first[i + 1] += G->succ_first[i];
		G->pred_first[i + 1] += G->pred_first[i];
	}
	for (uint32_t c = 0; c < nc; c++) {
		G->succ[G->succ_first[G->cfrom[c]]++] = G->cto[c];
		G->pred[G->pred_first[G->cto[c]]++] = G->cfrom[c];
	}
	for (uint32_t i = nnet; i > 0; i--) {
		G->succ_first[i] = G->succ_first[i - 1];
		G->pred_first[i] = G->pred_first[i - 1];
	}
	G->succ_first[0] = G->pred_first[0] = 0;
	/* unplaced nets in a list, left ends ascending */
	head = NONE;
	tail_link = &head;
	for (uint32_t i = 0; i < nact; i++) {
		*tail_link = G->ord[i].net;
		tail_link = &G->next[G->ord[i].net];
	}
	*tail_link = NONE;
	for (t = 0; head != NONE && t < max_t; t++) {
		uint32_t np_t = 0, *link;
		int32_t last = INT32_MIN;
		int forced = 0;
	again:
		for (link = &head; *link != NONE;) {
			uint32_t i = *link;
			if ((G->indeg[i] == 0 || forced) && (last == INT32_MIN || G->net[i].l > last + 1)) {
				G->tr[i] = (int32_t)t;
				last = G->net[i].r;
				G->placed[np_t++] = i;
				*link = G->next[i];
				forced = 0;
			} else {
				link = &G->next[i];
			}
		}
		if (!np_t) {
			/* the constraints form a cycle: find a net on it (walking back from any waiting net must come
			 * round), split it and start the gap again; or, out of doglegs, give way on the leftmost */
			uint32_t v = head, steps = 0;
			for (uint32_t i = 0; i < nnet; i++)
				G->seen[i] = 0;
			while (v != NONE && !G->seen[v] && steps++ <= nnet) {
				uint32_t u = NONE;
				G->seen[v] = 1;
				for (uint32_t j = G->pred_first[v]; j < G->pred_first[v + 1] && u == NONE; j++)
					if (G->tr[G->pred[j]] < 0)
						u = G->pred[j];
				v = u;
			}
			if (v != NONE && splits < MAX_SPLITS) {
				/* v is on the cycle: split the first member that can be */
				uint32_t w = v, count = 0;
				do {
					uint32_t u = NONE;
					if (!split_net(L, G, &nnet, &np, w)) {
						splits++;
						goto restart;
					}
					for (uint32_t j = G->pred_first[w]; j < G->pred_first[w + 1] && u == NONE; j++)
						if (G->tr[G->pred[j]] < 0 && G->seen[G->pred[j]])
							u = G->pred[j];
					w = u;
				} while (w != NONE && w != v && count++ < nnet);
			}
			forced = 1;
			goto again;
		}
		G->last_r[t] = last;
		for (uint32_t i = 0; i < np_t; i++)
			for (uint32_t s = G->succ_first[G->placed[i]]; s < G->succ_first[G->placed[i] + 1]; s++)
				G->indeg[G->succ[s]]--;
	}
	/* out of rows: share them, each run on the row that frees up first */
	for (uint32_t i = head; i != NONE; i = G->next[i]) {
		uint32_t best = 0;
		for (uint32_t k = 1; k < t; k++)
			if (G->last_r[k] < G->last_r[best])
				best = k;
		G->tr[i] = (int32_t)best;
		if (G->net[i].r > G->last_r[best])
			G->last_r[best] = G->net[i].r;
	}
	for (uint32_t i = 0; i < nnet; i++) {
		if (G->net[i].lower)
			L->track2[G->net[i].owner] = G->tr[i];
		else
			L->track[G->net[i].owner] = G->tr[i];
	}
	return t;
}

static int lay_tracks(struct lay *L)
{
	uint32_t n_owners = L->nn + 2 * L->ne, ng = L->nr + 1, *gap_first = NULL, *gap_owners = NULL, *key = NULL;
	uint32_t max_nets = 1, max_pins = 1, *mark_src = NULL, *mark_edge = NULL;
	struct pins P = {0};
	struct gap_work G = {0};
	int rc = -1;

	if (ALLOC(P.first, (size_t)n_owners + 1) || ALLOC(L->track, n_owners) || ALLOC(L->track2, n_owners) ||
	    ALLOC(L->dog_x, n_owners) || ALLOC(L->n_tracks, ng) || ALLOC(key, n_owners) || ALLOC(L->lane_net, L->ne) ||
	    ALLOC(L->first_out, L->n) || ALLOC(mark_src, L->nr) || ALLOC(mark_edge, L->nr))
		goto out;
	for (uint32_t v = 0; v < L->n; v++)
		L->first_out[v] = NONE;
	for (uint32_t r = 0; r < L->nr; r++)
		mark_src[r] = NONE;
	/* the long edges of a laned box leave the lane by one net per rank they reach */
	for (uint32_t e = 0; e < L->ne; e++) {
		if (L->first_out[L->in->src[e]] == NONE)
			L->first_out[L->in->src[e]] = e;
		L->lane_net[e] = NONE;
	}
	for (uint32_t s = 0; s < L->n; s++)
		for (uint32_t j = L->lo_first[s]; L->box_lane[s] != NONE && j < L->lo_first[s + 1]; j++) {
			uint32_t e = L->lo[j], r = L->rank[L->in->dst[e]];
			if (L->back[e] || span_of(L, e) < 2)
				continue;
			if (mark_src[r] != s) {
				mark_src[r] = s;
				mark_edge[r] = e;
			}
			L->lane_net[e] = mark_edge[r];
		}
	lay_pins_each(L, &P);
	for (uint32_t o = 0; o < n_owners; o++)
		P.first[o + 1] += P.first[o];
	if (ALLOC(P.pin, P.first[n_owners]))
		goto out;
	P.fill = 1;
	lay_pins_each(L, &P);
	for (uint32_t o = n_owners; o > 0; o--)
		P.first[o] = P.first[o - 1];
	P.first[0] = 0;
	for (uint32_t o = 0; o < n_owners; o++) {
		L->track[o] = L->track2[o] = -1;
		L->dog_x[o] = INT32_MIN;
		key[o] = P.first[o + 1] > P.first[o] ? owner_gap(L, o) : NONE;
	}
	if (csr_build(ng, n_owners, key, &gap_first, &gap_owners))
		goto out;
	for (uint32_t g = 0; g < ng; g++) {
		uint32_t pins = 0;
		if (gap_first[g + 1] - gap_first[g] > max_nets)
			max_nets = gap_first[g + 1] - gap_first[g];
		for (uint32_t i = gap_first[g]; i < gap_first[g + 1]; i++)
			pins += P.first[gap_owners[i] + 1] - P.first[gap_owners[i]];
		if (pins > max_pins)
			max_pins = pins;
	}
	max_nets += MAX_SPLITS;
	max_pins += 2 * MAX_SPLITS;
	if (ALLOC(G.net, max_nets) || ALLOC(G.pin, max_pins) || ALLOC(G.ord, max_nets) || ALLOC(G.cfrom, max_pins) ||
	    ALLOC(G.cto, max_pins) || ALLOC(G.succ_first, (size_t)max_nets + 1) || ALLOC(G.succ, max_pins) ||
	    ALLOC(G.pred_first, (size_t)max_nets + 1) || ALLOC(G.pred, max_pins) || ALLOC(G.indeg, max_nets) ||
	    ALLOC(G.next, max_nets) || ALLOC(G.placed, max_nets) || ALLOC(G.seen, max_nets) ||
	    ALLOC(G.tr, max_nets) || ALLOC(G.last_r, L->opt.max_tracks))
		goto out;
	for (uint32_t g = 0; g < ng; g++)
		L->n_tracks[g] = assign_tracks(L, &P, gap_owners + gap_first[g], gap_first[g + 1] - gap_first[g], &G);
	rc = 0;
out:
	free(P.first);
	free(P.pin);
	free(gap_first);
	free(gap_owners);
	free(key);
	free(G.net);
	free(G.pin);
	free(G.ord);
	free(G.cfrom);
	free(G.cto);
	free(G.succ_first);
	free(G.succ);
	free(G.pred_first);
	free(G.pred);
	free(G.indeg);
	free(G.next);
	free(G.placed);
	free(G.seen);
	free(G.tr);
	free(G.last_r);
	free(mark_src);
	free(mark_edge);
	return rc;
}

/* ---- rows --------------------------------------------------------------------------------------------------- */

static int lay_rows(struct lay *L, int64_t *height, struct ov_error *err)
{
	uint32_t nr = L->nr;

	if (ALLOC(L->rank_y, nr) || ALLOC(L->rank_h, nr) || ALLOC(L->gap_top, (size_t)nr + 1) ||
	    ALLOC(L->gap_h, (size_t)nr + 1))
		return ov_fail(err, OV_NOMEM, "layout: out of memory");
	for (uint32_t v = 0; v < L->n; v++)
		if (L->rank_h[L->rank[v]] < L->in->h[v])
			L->rank_h[L->rank[v]] = L->in->h[v];
	for (uint32_t g = 0; g <= nr; g++) {
		int64_t need = L->n_tracks[g] ? (int64_t)L->n_tracks[g] + 2 : 0;
		if ((g > 0 && g < nr) || need)
			L->gap_h[g] = need > L->opt.gap_y ? need : L->opt.gap_y;
		L->gap_top[g] = g ? L->rank_y[g - 1] + L->rank_h[g - 1] : 0;
		if (g < nr)
			L->rank_y[g] = L->gap_top[g] + L->gap_h[g];
	}
	*height = L->gap_top[nr] + L->gap_h[nr];
	if (*height > INT32_MAX / 4)
		return ov_fail(err, OV_LIMIT, "layout: the drawing would be taller than %d rows", INT32_MAX / 4);
	return 0;
}

/* The row of owner o's net (its lower half's if lower), or INT32_MIN for a straight drop. */
static int32_t owner_row(const struct lay *L, uint32_t o, int lower)
{
	uint32_t g = owner_gap(L, o);
	int32_t t = lower ? L->track2[o] : L->track[o];

	if (t < 0)
		return INT32_MIN;
	return (int32_t)(L->gap_top[g] + (L->gap_h[g] - L->n_tracks[g]) / 2 + t);
}

/* ---- 7. routes -------------------------------------------------------------------------------------------- */

struct points {
	struct layout_point *p;
	size_t n, cap;
	size_t start; /* first point of the route being built */
};

static int pt_add(struct points *B, int32_t x, int32_t y)
{
	size_t k = B->n - B->start;

	if (k && B->p[B->n - 1].x == x && B->p[B->n - 1].y == y)
		return 0;
	if (k >= 2) {
		struct layout_point a = B->p[B->n - 2], b = B->p[B->n - 1];
		if ((a.x == b.x && b.x == x) || (a.y == b.y && b.y == y)) {
			B->p[B->n - 1] = (struct layout_point){x, y};
			return 0;
		}
	}
	if (B->n == B->cap) {
		size_t cap = B->cap ? 2 * B->cap : 1024;
		struct layout_point *p = realloc(B->p, cap * sizeof *p);
		if (!p)
			return -1;
		B->p = p;
		B->cap = cap;
	}
	B->p[B->n++] = (struct layout_point){x, y};
	return 0;
}

/* A hop through the gap of net owner o, from column a to column b, each a top or a bottom pin of the net: on
 * the net's row (a straight drop adds nothing: the vertical line goes on), by way of its dogleg if it has one. */
static int hop(const struct lay *L, struct points *B, uint32_t o, int32_t a, int a_side, int32_t b, int b_side)
{
	int32_t row = owner_row(L, o, 0), x = L->dog_x[o];

	if (row == INT32_MIN)
		return 0;
	if (x == INT32_MIN || (a_side == PIN_TOP && b_side == PIN_TOP))
		return pt_add(B, a, row) || pt_add(B, b, row);
	if (a_side == PIN_BOT && b_side == PIN_BOT)
		return pt_add(B, a, owner_row(L, o, 1)) || pt_add(B, b, owner_row(L, o, 1));
	if (a_side == PIN_TOP)
		return pt_add(B, a, row) || pt_add(B, x, row) || pt_add(B, x, owner_row(L, o, 1)) ||
		       pt_add(B, b, owner_row(L, o, 1));
	return pt_add(B, a, owner_row(L, o, 1)) || pt_add(B, x, owner_row(L, o, 1)) || pt_add(B, x, row) ||
	       pt_add(B, b, row);
}

static int route_edge(const struct lay *L, struct points *B, uint32_t e, const int32_t *box_y)
{
	const struct layout_input *in = L->in;
	uint32_t s = in->src[e], d = in->dst[e];
	int32_t cs = L->col[s];

	B->start = B->n;
	if (pt_add(B, cs, box_y[s] + in->h[s] - 1))
		return -1;
	if (L->back[e]) {
		uint32_t c = L->chain[e], a = L->rank[s] - L->rank[d];
		int32_t x = c != NONE ? L->col[c + a] : lane_x(L, L->edge_lane[e]);
		if (hop(L, B, s, cs, PIN_TOP, x, PIN_TOP))
			return -1;
		if (c != NONE)
			for (uint32_t k = a; k-- > 0;)
				if (hop(L, B, c + k, L->col[c + k + 1], PIN_BOT, L->col[c + k], PIN_TOP))
					return -1;
		if (hop(L, B, OWNER_UP(L, e), edge_from(L, e), PIN_BOT, L->port[e], PIN_BOT))
			return -1;
	} else if (span_of(L, e) == 1) {
		if (hop(L, B, s, cs, PIN_TOP, L->port[e], PIN_BOT))
			return -1;
	} else if (L->trunk[s] != NONE) {
		uint32_t t = L->trunk[s], last = span_of(L, e) - 2;
		if (hop(L, B, s, cs, PIN_TOP, L->col[t], PIN_BOT))
			return -1;
		for (uint32_t k = 0; k <= last; k++) {
			int32_t next = k < last ? L->col[t + k + 1] : L->port[e];
			if (hop(L, B, t + k, L->col[t + k], PIN_TOP, next, PIN_BOT))
				return -1;
		}
	} else {
		int32_t x = lane_x(L, L->box_lane[s]);
		if (hop(L, B, s, cs, PIN_TOP, x, PIN_BOT) ||
		    hop(L, B, OWNER_LANE(L, L->lane_net[e]), x, PIN_TOP, L->port[e], PIN_BOT))
			return -1;
	}
	return pt_add(B, L->port[e], box_y[d]);
}

/* ---- the whole ------------------------------------------------------------------------------------------ */

static void lay_free(struct lay *L)
{
	free(L->back);
	free(L->lo_first);
	free(L->lo);
	free(L->li_first);
	free(L->li);
	free(L->ti_first);
	free(L->ti);
	free(L->rank);
	free(L->trunk);
	free(L->trunk_len);
	free(L->box_lane);
	free(L->lane_end);
	free(L->chain);
	free(L->edge_lane);
	free(L->up_first);
	free(L->up);
	free(L->dn_first);
	free(L->dn);
	free(L->rfirst);
	free(L->order);
	free(L->pos);
	free(L->col);
	free(L->port);
	free(L->lane_net);
	free(L->first_out);
	free(L->track);
	free(L->track2);
	free(L->dog_x);
	free(L->n_tracks);
	free(L->gap_top);
	free(L->gap_h);
	free(L->rank_y);
	free(L->rank_h);
}

void layout_free(struct layout *l)
{
	if (!l)
		return;
	free(l->x);
	free(l->y);
	free(l->rank);
	free(l->routes);
	free(l->back);
	free(l->w);
	free(l->h);
	free(l->rank_first);
	free(l->rank_boxes);
	free(l->rank_y);
	free(l->rank_h);
	free(l->point_pool);
	free(l);
}

static int check_input(const struct layout_input *in, struct ov_error *err)
{
	if (in->n_boxes > (1u << 26) || in->n_edges > (1u << 26))
		return ov_fail(err, OV_LIMIT, "layout: %u boxes and %u edges are too many (at most %u each)",
			       in->n_boxes, in->n_edges, 1u << 26);
	if ((in->n_boxes && (!in->w || !in->h)) || (in->n_edges && (!in->src || !in->dst)))
		return ov_fail(err, OV_INVALID, "layout: missing box sizes or edge ends");
	for (uint32_t v = 0; v < in->n_boxes; v++)
		if (in->w[v] < 3 || in->h[v] < 1)
			return ov_fail(err, OV_INVALID, "layout: box %u is %ux%u cells (at least 3x1)", v, in->w[v],
				       in->h[v]);
	for (uint32_t e = 0; e < in->n_edges; e++)
		if (in->src[e] >= in->n_boxes || in->dst[e] >= in->n_boxes)
			return ov_fail(err, OV_INVALID, "layout: edge %u joins box %u to box %u of %u", e, in->src[e],
				       in->dst[e], in->n_boxes);
	return 0;
}

/* Copy the result out of the working state. */
static int lay_result(struct lay *L, struct layout *l, int64_t height)
{
	const struct layout_input *in = L->in;
	uint32_t n = L->n, nr = L->nr, k = 0;
	struct points B = {0};
	size_t *start = NULL;
	int32_t right = L->n_lanes ? lane_x(L, L->n_lanes - 1) : L->right;

	if (ALLOC(l->x, n) || ALLOC(l->y, n) || ALLOC(l->rank, n) || ALLOC(l->routes, L->ne) ||
	    ALLOC(l->back, L->ne) || ALLOC(l->w, n) || ALLOC(l->h, n) || ALLOC(l->rank_first, (size_t)nr + 1) ||
	    ALLOC(l->rank_boxes, n) || ALLOC(l->rank_y, nr) || ALLOC(l->rank_h, nr) || ALLOC(start, L->ne))
		goto fail;
	l->n_boxes = n;
	l->n_edges = L->ne;
	l->n_ranks = nr;
	for (uint32_t v = 0; v < n; v++) {
		l->x[v] = L->col[v] - in->w[v] / 2;
		l->y[v] = (int32_t)L->rank_y[L->rank[v]];
		l->rank[v] = L->rank[v];
		l->w[v] = in->w[v];
		l->h[v] = in->h[v];
	}
	for (uint32_t r = 0; r < nr; r++) {
		l->rank_first[r] = k;
		l->rank_y[r] = (int32_t)L->rank_y[r];
		l->rank_h[r] = (int32_t)L->rank_h[r];
		for (uint32_t i = L->rfirst[r]; i < L->rfirst[r + 1]; i++)
			if (L->order[i] < n)
				l->rank_boxes[k++] = L->order[i];
	}
	l->rank_first[nr] = k;
	for (uint32_t e = 0; e < L->ne; e++) {
		l->back[e] = L->back[e];
		if (route_edge(L, &B, e, l->y))
			goto fail;
		l->routes[e].n_points = (uint32_t)(B.n - B.start);
		start[e] = B.start;
	}
	for (uint32_t e = 0; e < L->ne; e++) /* now that the pool has stopped moving */
		l->routes[e].points = B.p + start[e];
	l->point_pool = B.p;
	l->width = n ? right + 1 : 0;
	l->height = (int32_t)height;
	free(start);
	return 0;
fail:
	free(B.p);
	free(start);
	return -1;
}

int layout_compute(struct layout **out, const struct layout_input *in, const struct layout_options *opt,
		   struct ov_error *err)
{
	struct lay L = {.in = in};
	struct layout *l = NULL;
	int64_t height = 0;
	int rc = -1;

	*out = NULL;
	if (check_input(in, err))
		return -1;
	if (opt)
		L.opt = *opt;
	if (!L.opt.gap_x)
		L.opt.gap_x = 2;
	if (!L.opt.gap_y)
		L.opt.gap_y = 3;
	if (!L.opt.sweeps)
		L.opt.sweeps = 4;
	if (!L.opt.max_tracks)
		L.opt.max_tracks = 48;
	L.n = in->n_boxes;
	L.ne = in->n_edges;
	l = calloc(1, sizeof *l);
	if (!l)
		goto nomem;
	if (lay_rank(&L) || lay_dummies(&L) || lay_links(&L) || lay_order_init(&L) || lay_order(&L))
		goto nomem;
	if (lay_columns(&L, err))
		goto out;
	if (lay_ports(&L) || lay_tracks(&L))
		goto nomem;
	if (lay_rows(&L, &height, err))
		goto out;
	if (lay_result(&L, l, height))
		goto nomem;
	*out = l;
	l = NULL;
	rc = 0;
	goto out;
nomem:
	ov_fail(err, OV_NOMEM, "layout: out of memory");
out:
	lay_free(&L);
	layout_free(l);
	return rc;
}

size_t layout_visible(const struct layout *l, int32_t x0, int32_t y0, int32_t x1, int32_t y1, uint32_t *out,
		      size_t max)
{
	uint32_t lo = 0, hi = l->n_ranks;
	size_t count = 0;

	if (x0 >= x1 || y0 >= y1)
		return 0;
	/* the first rank whose band reaches below y0 */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (l->rank_y[mid] + l->rank_h[mid] <= y0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t r = lo; r < l->n_ranks && l->rank_y[r] < y1; r++) {
		uint32_t a = l->rank_first[r], b = l->rank_first[r + 1];
		/* boxes of a rank do not overlap, so their right ends grow left to right too */
		while (a < b) {
			uint32_t mid = a + (b - a) / 2, v = l->rank_boxes[mid];
			if (l->x[v] + l->w[v] <= x0)
				a = mid + 1;
			else
				b = mid;
		}
		for (uint32_t i = a; i < l->rank_first[r + 1]; i++) {
			uint32_t v = l->rank_boxes[i];
			if (l->x[v] >= x1)
				break;
			if (l->y[v] < y1 && l->y[v] + l->h[v] > y0) {
				if (count < max)
					out[count] = v;
				count++;
			}
		}
	}
	return count;
}
