/* Unit tests of the layered layout: boxes never overlap, edges go down (or are marked as turned round), routes
 * are orthogonal, start and end on the right borders and pass through no box, runs of different sources in a gap
 * neither overlap nor touch; chains are straight, cycles end, a fuzz of random graphs, a 51,000-box model. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "src/base/error.h"
#include "src/present/layout.h"
#include "tests/unit/tap.h"

struct g {
	uint32_t n, ne, cap_n, cap_e;
	uint16_t *w, *h;
	uint32_t *src, *dst;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static uint32_t box(struct g *g, uint16_t w, uint16_t h)
{
	if (g->n == g->cap_n) {
		g->cap_n = g->cap_n ? 2 * g->cap_n : 64;
		g->w = realloc(g->w, g->cap_n * sizeof *g->w);
		g->h = realloc(g->h, g->cap_n * sizeof *g->h);
		if (!g->w || !g->h)
			abort();
	}
	g->w[g->n] = w;
	g->h[g->n] = h;
	return g->n++;
}

static void edge(struct g *g, uint32_t s, uint32_t d)
{
	if (g->ne == g->cap_e) {
		g->cap_e = g->cap_e ? 2 * g->cap_e : 64;
		g->src = realloc(g->src, g->cap_e * sizeof *g->src);
		g->dst = realloc(g->dst, g->cap_e * sizeof *g->dst);
		if (!g->src || !g->dst)
			abort();
	}
	g->src[g->ne] = s;
	g->dst[g->ne++] = d;
}

static void g_free(struct g *g)
{
	free(g->w);
	free(g->h);
	free(g->src);
	free(g->dst);
	*g = (struct g){0};
}

static struct layout_input input_of(const struct g *g)
{
	return (struct layout_input){g->n, g->w, g->h, g->ne, g->src, g->dst};
}

static struct layout *lay(const struct g *g, const struct layout_options *opt)
{
	struct layout_input in = input_of(g);
	struct layout *l = NULL;
	struct ov_error err = {0};

	if (layout_compute(&l, &in, opt, &err)) {
		printf("# layout_compute: %s\n", err.msg);
		return NULL;
	}
	return l;
}

/* x -> MatMul -> Relu -> Add(x, relu), repeated until there are about n boxes. */
static void make_residual(struct g *g, uint32_t n)
{
	uint32_t x = box(g, 7, 3);

	while (g->n + 3 <= n) {
		uint32_t m = box(g, 10, 3), r = box(g, 8, 3), a = box(g, 7, 3);
		edge(g, x, m);
		edge(g, m, r);
		edge(g, x, a);
		edge(g, r, a);
		x = a;
	}
}

/* ---- invariants ------------------------------------------------------------------------------------------ */

static int quiet; /* while the checker is tested on layouts broken on purpose */

static int report(int *bad, const char *what, uint32_t a, uint32_t b)
{
	if ((*bad)++ < 5 && !quiet)
		printf("#   %s (%u, %u)\n", what, a, b);
	return 0;
}

struct seg {
	int32_t row, a, b; /* a horizontal run: row, columns a..b (or a vertical one: column, rows a..b) */
	uint32_t src;
	uint32_t into;     /* a vertical run that ends a route: its target box, else UINT32_MAX */
};

static int seg_cmp(const void *x, const void *y)
{
	const struct seg *p = x, *q = y;

	if (p->row != q->row)
		return p->row < q->row ? -1 : 1;
	return p->a < q->a ? -1 : p->a > q->a;
}

static int idx_cmp_ctx_rank(const struct layout *l, uint32_t a, uint32_t b)
{
	if (l->rank[a] != l->rank[b])
		return l->rank[a] < l->rank[b] ? -1 : 1;
	return l->x[a] < l->x[b] ? -1 : l->x[a] > l->x[b];
}

static const struct layout *sort_l;

static int idx_cmp(const void *x, const void *y)
{
	return idx_cmp_ctx_rank(sort_l, *(const uint32_t *)x, *(const uint32_t *)y);
}

/* Checks every promise of layout.h on l; returns the number of broken ones (a few are printed).  strict: runs of
 * different sources in one gap must not overlap (true while no gap runs out of rows). */
static int check(const struct g *g, const struct layout *l, int strict)
{
	uint32_t n = g->n, *by = malloc((n + 1) * sizeof *by);
	int32_t *band_lo = calloc(n + 1, sizeof *band_lo), *band_hi = calloc(n + 1, sizeof *band_hi);
	int32_t *grid = NULL;
	size_t cells = (size_t)l->width * (size_t)l->height, nseg = 0, capseg = 1024, nv = 0, capv = 1024;
	struct seg *segs = malloc(capseg * sizeof *segs), *vsegs = malloc(capv * sizeof *vsegs);
	int bad = 0;

	if (!by || !band_lo || !band_hi || !segs || !vsegs)
		abort();
	if (l->n_boxes != n || l->n_edges != g->ne)
		report(&bad, "wrong counts", l->n_boxes, l->n_edges);
	/* boxes inside the drawing, not overlapping: all pairs when small, else neighbours within a rank */
	for (uint32_t v = 0; v < n; v++) {
		if (l->x[v] < 0 || l->y[v] < 0 || l->x[v] + g->w[v] > l->width || l->y[v] + g->h[v] > l->height)
			report(&bad, "box outside the drawing", v, 0);
		if (l->rank[v] >= l->n_ranks)
			report(&bad, "rank out of range", v, l->rank[v]);
		by[v] = v;
	}
	if (n <= 300) {
		for (uint32_t a = 0; a < n; a++)
			for (uint32_t b = a + 1; b < n; b++)
				if (l->x[a] < l->x[b] + g->w[b] && l->x[b] < l->x[a] + g->w[a] &&
				    l->y[a] < l->y[b] + g->h[b] && l->y[b] < l->y[a] + g->h[a])
					report(&bad, "boxes overlap", a, b);
	}
	sort_l = l;
	qsort(by, n, sizeof *by, idx_cmp);
	for (uint32_t r = 0; r < l->n_ranks; r++) {
		band_lo[r] = INT32_MAX;
		band_hi[r] = INT32_MIN;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = by[i], r = l->rank[v];
		if (i + 1 < n && l->rank[by[i + 1]] == r && l->x[v] + g->w[v] > l->x[by[i + 1]])
			report(&bad, "boxes of a rank overlap", v, by[i + 1]);
		if (l->y[v] < band_lo[r])
			band_lo[r] = l->y[v];
		if (l->y[v] + g->h[v] > band_hi[r])
			band_hi[r] = l->y[v] + g->h[v];
	}
	for (uint32_t r = 0; r + 1 < l->n_ranks; r++)
		if (band_hi[r] > band_lo[r + 1])
			report(&bad, "ranks overlap", r, r + 1);
	if (cells && cells <= (size_t)16 << 20 && n < 100000) {
		grid = malloc(cells * sizeof *grid);
		if (!grid)
			abort();
		for (size_t i = 0; i < cells; i++)
			grid[i] = -1;
		for (uint32_t v = 0; v < n; v++)
			for (int32_t y = l->y[v]; y < l->y[v] + g->h[v]; y++)
				for (int32_t x = l->x[v]; x < l->x[v] + g->w[v]; x++)
					grid[(size_t)y * l->width + x] = (int32_t)v;
	}
	for (uint32_t e = 0; e < g->ne; e++) {
		uint32_t s = g->src[e], d = g->dst[e];
		const struct layout_edge_route *rt = &l->routes[e];
		const struct layout_point *p = rt->points;
		if (!l->back[e] && l->rank[s] >= l->rank[d])
			report(&bad, "edge does not go down", e, 0);
		if (l->back[e] && l->rank[s] < l->rank[d])
			report(&bad, "turned-round edge goes down", e, 0);
		if (rt->n_points < 2) {
			report(&bad, "route too short", e, rt->n_points);
			continue;
		}
		if (p[0].x != l->x[s] + g->w[s] / 2 || p[0].y != l->y[s] + g->h[s] - 1)
			report(&bad, "route does not start at the source's bottom centre", e, 0);
		if (p[rt->n_points - 1].y != l->y[d] || p[rt->n_points - 1].x <= l->x[d] ||
		    p[rt->n_points - 1].x >= l->x[d] + g->w[d] - 1)
			report(&bad, "route does not end inside the target's top border", e, 0);
		for (uint32_t i = 0; i + 1 < rt->n_points; i++) {
			struct layout_point a = p[i], b = p[i + 1];
			int dx = (b.x > a.x) - (b.x < a.x), dy = (b.y > a.y) - (b.y < a.y);
			if ((a.x != b.x) == (a.y != b.y)) {
				report(&bad, "segment not orthogonal (or empty)", e, i);
				continue;
			}
			if (i + 2 < rt->n_points &&
			    ((a.x == b.x && b.x == p[i + 2].x) || (a.y == b.y && b.y == p[i + 2].y)))
				report(&bad, "three collinear points", e, i);
			if (a.x < 0 || a.y < 0 || a.x >= l->width || a.y >= l->height || b.x < 0 || b.y < 0 ||
			    b.x >= l->width || b.y >= l->height)
				report(&bad, "route leaves the drawing", e, i);
			if (dy == 0) {
				for (uint32_t r = 0; r < l->n_ranks; r++)
					if (a.y >= band_lo[r] && a.y < band_hi[r]) {
						report(&bad, "horizontal run inside a rank", e, r);
						break;
					}
				if (nseg == capseg && !(segs = realloc(segs, (capseg *= 2) * sizeof *segs)))
					abort();
				segs[nseg++] =
					(struct seg){a.y, a.x < b.x ? a.x : b.x, a.x < b.x ? b.x : a.x, s, UINT32_MAX};
			} else {
				if (nv == capv && !(vsegs = realloc(vsegs, (capv *= 2) * sizeof *vsegs)))
					abort();
				/* the cells on the boxes' borders are not part of the line */
				int32_t lo = a.y < b.y ? a.y : b.y, hi = a.y < b.y ? b.y : a.y;
				if (i == 0)
					lo++;
				if (i + 2 == rt->n_points)
					hi--;
				vsegs[nv++] = (struct seg){a.x, lo, hi, s, i + 2 == rt->n_points ? d : UINT32_MAX};
			}
			if (!grid)
				continue;
			for (struct layout_point c = a;; c.x += dx, c.y += dy) {
				int32_t hit = grid[(size_t)c.y * l->width + c.x];
				int at_start = i == 0 && c.x == p[0].x && c.y == p[0].y;
				int at_end = i + 2 == rt->n_points && c.x == b.x && c.y == b.y;
				if (hit >= 0 && !(at_start && (uint32_t)hit == s) && !(at_end && (uint32_t)hit == d)) {
					report(&bad, "route runs through a box", e, (uint32_t)hit);
					break;
				}
				if (c.x == b.x && c.y == b.y)
					break;
			}
		}
	}
	/* runs of different sources on one row neither overlap nor touch */
	qsort(segs, nseg, sizeof *segs, seg_cmp);
	for (size_t i = 0; strict && i < nseg; i++) {
		for (size_t j = i + 1; j < nseg && segs[j].row == segs[i].row && segs[j].a <= segs[i].b + 1; j++)
			if (segs[j].src != segs[i].src)
				report(&bad, "runs of two sources meet on a row", segs[i].src, segs[j].src);
	}
	/* and vertical runs of different sources do not share a column, except into one port of a box too narrow
	 * for all its inputs */
	qsort(vsegs, nv, sizeof *vsegs, seg_cmp);
	for (size_t i = 0; strict && i < nv; i++) {
		for (size_t j = i + 1; j < nv && vsegs[j].row == vsegs[i].row && vsegs[j].a <= vsegs[i].b; j++)
			if (vsegs[j].src != vsegs[i].src &&
			    !(vsegs[i].into == vsegs[j].into && vsegs[i].into != UINT32_MAX &&
			      (uint32_t)g->w[vsegs[i].into] - 2 < l->n_edges))
				report(&bad, "vertical runs of two sources overlap", vsegs[i].src, vsegs[j].src);
	}
	free(vsegs);
	free(by);
	free(band_lo);
	free(band_hi);
	free(grid);
	free(segs);
	return bad;
}

/* layout_visible() against a scan of all boxes, for a few rectangles. */
static int check_visible(const struct g *g, const struct layout *l)
{
	uint32_t *out = malloc((g->n + 1) * sizeof *out);
	int bad = 0;

	if (!out)
		abort();
	for (int t = 0; t < 20; t++) {
		int32_t x0 = (int32_t)rnd((uint32_t)l->width + 1) - 3, y0 = (int32_t)rnd((uint32_t)l->height + 1) - 3;
		int32_t x1 = x0 + (int32_t)rnd(80) + 1, y1 = y0 + (int32_t)rnd(40) + 1;
		size_t want = 0, got = layout_visible(l, x0, y0, x1, y1, out, g->n), cut;
		for (uint32_t v = 0; v < g->n; v++)
			if (l->x[v] < x1 && l->x[v] + g->w[v] > x0 && l->y[v] < y1 && l->y[v] + g->h[v] > y0)
				want++;
		if (got != want)
			report(&bad, "layout_visible count differs from a scan", (uint32_t)got, (uint32_t)want);
		for (size_t i = 0; i < got && i < g->n; i++) {
			uint32_t v = out[i];
			if (!(l->x[v] < x1 && l->x[v] + g->w[v] > x0 && l->y[v] < y1 && l->y[v] + g->h[v] > y0))
				report(&bad, "layout_visible returned a box outside", v, 0);
		}
		cut = layout_visible(l, x0, y0, x1, y1, out, want ? want - 1 : 0);
		if (cut != want)
			report(&bad, "layout_visible total changes when cut", (uint32_t)cut, (uint32_t)want);
	}
	free(out);
	return bad;
}

/* ---- the cases ------------------------------------------------------------------------------------------- */

static void test_empty_and_single(void)
{
	struct g g = {0};
	struct layout *l = lay(&g, NULL);
	uint32_t out[2];

	OK(l && l->width == 0 && l->height == 0 && l->n_ranks == 0, "no boxes: an empty drawing");
	OK(l && layout_visible(l, 0, 0, 100, 100, out, 2) == 0, "no boxes: nothing visible");
	layout_free(l);
	box(&g, 9, 4);
	l = lay(&g, NULL);
	OK(l && l->x[0] == 0 && l->y[0] == 0 && l->width == 9 && l->height == 4 && l->rank[0] == 0,
	   "one box: at the origin, the drawing its size");
	OK(l && layout_visible(l, 3, 3, 4, 4, out, 2) == 1 && out[0] == 0, "one box: visible where it is");
	OK(l && layout_visible(l, 9, 0, 20, 4, out, 2) == 0, "one box: not visible right of it");
	layout_free(l);
	layout_free(NULL);
	g_free(&g);
}

static void test_bad_input(void)
{
	struct g g = {0};
	struct layout_input in;
	struct layout *l = (struct layout *)&in;
	struct ov_error err = {0};

	box(&g, 2, 3);
	in = input_of(&g);
	OK(layout_compute(&l, &in, NULL, &err) == -1 && err.code == OV_INVALID && !l, "a box 2 cells wide is refused");
	g.w[0] = 5;
	edge(&g, 0, 1);
	in = input_of(&g);
	err = (struct ov_error){0};
	OK(layout_compute(&l, &in, NULL, &err) == -1 && err.code == OV_INVALID, "an edge to a missing box is refused");
	g_free(&g);
}

static void test_chain(void)
{
	struct g g = {0};
	struct layout *l;
	int straight = 1, ranks = 1;

	for (uint32_t i = 0; i < 12; i++) {
		box(&g, (uint16_t)(3 + 2 * (i % 5)), (uint16_t)(1 + i % 3));
		if (i)
			edge(&g, i - 1, i);
	}
	l = lay(&g, NULL);
	if (!l)
		return;
	for (uint32_t i = 0; i < g.n; i++) {
		if (l->x[i] + g.w[i] / 2 != l->x[0] + g.w[0] / 2)
			straight = 0;
		if (l->rank[i] != i)
			ranks = 0;
	}
	for (uint32_t e = 0; e < g.ne; e++)
		if (l->routes[e].n_points != 2)
			straight = 0;
	OK(ranks, "chain: one rank per box");
	OK(straight, "chain: one straight vertical line (same centre column, two-point routes)");
	OK(check(&g, l, 1) == 0, "chain: invariants");
	layout_free(l);
	g_free(&g);
}

static void test_diamond(void)
{
	struct g g = {0};
	struct layout *l;
	int32_t c[4];

	for (int i = 0; i < 4; i++)
		box(&g, 9, 3);
	edge(&g, 0, 1);
	edge(&g, 0, 2);
	edge(&g, 1, 3);
	edge(&g, 2, 3);
	l = lay(&g, NULL);
	if (!l)
		return;
	for (int i = 0; i < 4; i++)
		c[i] = l->x[i] + 4;
	OK(l->rank[0] == 0 && l->rank[1] == 1 && l->rank[2] == 1 && l->rank[3] == 2, "diamond: three ranks");
	OK(c[0] == c[3], "diamond: top and bottom in one column");
	OK((c[1] <= c[0] && c[0] <= c[2]) || (c[2] <= c[0] && c[0] <= c[1]), "diamond: the branches either side");
	OK(l->width <= 9 + 9 + 2, "diamond: compact (%d columns)", l->width);
	OK(l->routes[2].points[l->routes[2].n_points - 1].x != l->routes[3].points[l->routes[3].n_points - 1].x,
	   "diamond: the two inputs of the bottom box enter at different columns");
	OK(check(&g, l, 1) == 0, "diamond: invariants");
	layout_free(l);
	g_free(&g);
}

/* The checker itself must catch broken layouts. */
static void test_checker(void)
{
	struct g g = {0};
	struct layout *l;

	for (int i = 0; i < 4; i++)
		box(&g, 9, 3);
	edge(&g, 0, 1);
	edge(&g, 0, 2);
	edge(&g, 1, 3);
	edge(&g, 2, 3);
	quiet = 1;
	if (!(l = lay(&g, NULL)))
		return;
	l->x[2] = l->x[1] + 3;
	OK(check(&g, l, 1) > 0, "checker: catches overlapping boxes");
	layout_free(l);
	if (!(l = lay(&g, NULL)))
		return;
	l->routes[1].points[1].x += 1;
	OK(check(&g, l, 1) > 0, "checker: catches a route that is not orthogonal");
	layout_free(l);
	if (!(l = lay(&g, NULL)))
		return;
	l->y[3] -= 3;
	OK(check(&g, l, 1) > 0, "checker: catches a route that ends off its target");
	layout_free(l);
	if (!(l = lay(&g, NULL)))
		return;
	l->x[1] = l->x[0];
	l->x[2] = l->x[0] + 20;
	OK(check(&g, l, 1) > 0, "checker: catches a route through a box");
	quiet = 0;
	layout_free(l);
	g_free(&g);
}

static void test_residual(void)
{
	struct g g = {0};
	struct layout *l;
	int spine = 1;

	make_residual(&g, 3001);
	l = lay(&g, NULL);
	if (!l)
		return;
	/* the first input of each Add is the skip: x, the Adds and the skip lines form one straight column */
	for (uint32_t a = 3; a < g.n; a += 3)
		if (l->x[a] + g.w[a] / 2 != l->x[0] + g.w[0] / 2)
			spine = 0;
	OK(spine, "residual chain: the main path is one straight column");
	OK(l->width < 40, "residual chain: does not drift sideways (%d columns)", l->width);
	OK(check(&g, l, 1) == 0, "residual chain: invariants");
	OK(check_visible(&g, l) == 0, "residual chain: layout_visible agrees with a scan");
	layout_free(l);
	g_free(&g);
}

static void test_ports(void)
{
	struct g g = {0};
	struct layout *l;
	int32_t last = -1;
	int ok = 1;

	for (int i = 0; i < 4; i++)
		box(&g, 9, 3);
	box(&g, 15, 3);
	for (uint32_t i = 0; i < 4; i++)
		edge(&g, i, 4);
	l = lay(&g, NULL);
	if (!l)
		return;
	/* the inputs enter at distinct columns, in the order of the boxes they come from */
	for (uint32_t i = 0; i < 4; i++) {
		int32_t x = l->routes[i].points[l->routes[i].n_points - 1].x;
		if (x <= last)
			ok = 0;
		last = x;
	}
	OK(ok, "four inputs enter at distinct columns, left to right like their sources");
	OK(check(&g, l, 1) == 0, "fan-in: invariants");
	layout_free(l);
	g_free(&g);
}

static void test_cycles(void)
{
	struct g g = {0};
	struct layout *l;
	uint32_t n_back = 0;

	for (uint32_t i = 0; i < 6; i++)
		box(&g, 7, 3);
	for (uint32_t i = 0; i + 1 < 6; i++)
		edge(&g, i, i + 1);
	edge(&g, 5, 0);
	edge(&g, 3, 3);
	l = lay(&g, NULL);
	OK(l != NULL, "ring with a self-loop: laid out");
	if (!l)
		return;
	for (uint32_t e = 0; e < g.ne; e++)
		n_back += l->back[e];
	OK(n_back == 2 && l->back[5] && l->back[6], "ring: the closing edge and the self-loop are turned round");
	OK(check(&g, l, 1) == 0, "ring: invariants (turned-round edges routed too)");
	layout_free(l);
	g_free(&g);

	/* a dense random digraph: many cycles, self-loops, duplicate edges */
	for (uint32_t i = 0; i < 400; i++)
		box(&g, (uint16_t)(3 + rnd(10)), (uint16_t)(1 + rnd(3)));
	for (uint32_t i = 0; i < 1200; i++)
		edge(&g, rnd(400), rnd(400));
	l = lay(&g, NULL);
	OK(l != NULL, "random digraph with cycles: laid out");
	OK(l && check(&g, l, 0) == 0, "random digraph with cycles: invariants");
	layout_free(l);
	g_free(&g);
}

static void test_lanes(void)
{
	struct g g = {0};
	struct layout *l;

	/* every box of a long chain feeds the last one, and the last feeds every box back: far too many dummies */
	for (uint32_t i = 0; i < 3000; i++) {
		box(&g, 5, 1);
		if (i)
			edge(&g, i - 1, i);
	}
	for (uint32_t i = 0; i + 2 < 3000; i++) {
		edge(&g, i, 2999);
		edge(&g, 2999, i);
	}
	l = lay(&g, NULL);
	OK(l != NULL, "3,000-box chain where every box feeds the last and back: laid out");
	if (l) {
		int32_t right = 0;
		uint32_t laned = 0;
		for (uint32_t v = 0; v < g.n; v++)
			if (l->x[v] + g.w[v] > right)
				right = l->x[v] + g.w[v];
		for (uint32_t e = 0; e < g.ne; e++)
			for (uint32_t i = 0; i < l->routes[e].n_points; i++)
				if (l->routes[e].points[i].x > right) {
					laned++;
					break;
				}
		OK(laned > 2000, "lanes: most long edges go by lanes right of the boxes (%u)", laned);
	}
	/* not strict: 3,000 runs into one box cannot each have a row of the gap above it */
	OK(l && check(&g, l, 0) == 0, "lanes: invariants");
	layout_free(l);
	g_free(&g);
}

static void test_determinism(void)
{
	struct g g = {0};
	struct layout *a, *b;
	int same = 1;

	for (uint32_t i = 0; i < 150; i++) {
		box(&g, (uint16_t)(3 + rnd(12)), (uint16_t)(1 + rnd(4)));
		for (uint32_t k = i ? rnd(4) : 0; k > 0; k--)
			edge(&g, rnd(i), i);
	}
	a = lay(&g, NULL);
	b = lay(&g, NULL);
	if (!a || !b)
		same = 0;
	for (uint32_t v = 0; same && v < g.n; v++)
		same = a->x[v] == b->x[v] && a->y[v] == b->y[v];
	for (uint32_t e = 0; same && e < g.ne; e++)
		same = a->routes[e].n_points == b->routes[e].n_points &&
		       !memcmp(a->routes[e].points, b->routes[e].points,
			       a->routes[e].n_points * sizeof *a->routes[e].points);
	OK(same, "the same graph lays out the same way twice");
	layout_free(a);
	layout_free(b);
	g_free(&g);
}

static void test_fuzz(void)
{
	struct layout_options opt = {.max_tracks = 4000};
	int bad_graphs = 0, failed = 0, vis = 0, n_back = 0;

	for (int t = 0; t < 1000; t++) {
		struct g g = {0};
		struct layout *l;
		uint32_t n = 1 + rnd(200), fan = 1 + rnd(4), window = 1 + rnd(n);
		for (uint32_t i = 0; i < n; i++) {
			box(&g, (uint16_t)(3 + rnd(t % 3 ? 14 : 40)), (uint16_t)(1 + rnd(5)));
			for (uint32_t k = i ? rnd(fan + 1) : 0; k > 0; k--)
				edge(&g, i - 1 - rnd(i < window ? i : window), i);
		}
		l = lay(&g, &opt);
		if (!l) {
			failed++;
		} else {
			int b = check(&g, l, 1);
			for (uint32_t e = 0; e < g.ne; e++)
				n_back += l->back[e];
			if (b) {
				printf("#   in graph %d (%u boxes, %u edges)\n", t, g.n, g.ne);
				bad_graphs++;
			}
			if (t % 50 == 0)
				vis += check_visible(&g, l);
		}
		layout_free(l);
		g_free(&g);
	}
	OK(failed == 0, "fuzz: 1,000 random DAGs up to 200 boxes laid out");
	OK(bad_graphs == 0, "fuzz: every invariant holds in every one (%d broke some)", bad_graphs);
	OK(n_back == 0, "fuzz: no edge of a DAG is turned round");
	OK(vis == 0, "fuzz: layout_visible agrees with a scan");

	/* and graphs with cycles, self-loops and duplicate edges */
	failed = bad_graphs = 0;
	for (int t = 0; t < 300; t++) {
		struct g g = {0};
		struct layout *l;
		uint32_t n = 1 + rnd(120), ne = rnd(3 * n);
		for (uint32_t i = 0; i < n; i++)
			box(&g, (uint16_t)(3 + rnd(16)), (uint16_t)(1 + rnd(4)));
		for (uint32_t i = 0; i < ne; i++)
			edge(&g, rnd(n), rnd(n));
		l = lay(&g, &opt);
		if (!l) {
			failed++;
		} else if (check(&g, l, 1)) {
			printf("#   in cyclic graph %d (%u boxes, %u edges)\n", t, g.n, g.ne);
			bad_graphs++;
		}
		layout_free(l);
		g_free(&g);
	}
	OK(failed == 0, "fuzz: 300 random digraphs with cycles laid out");
	OK(bad_graphs == 0, "fuzz: every invariant holds in every one (%d broke some)", bad_graphs);
}

static void test_scale(void)
{
	struct g g = {0};
	struct layout *l;

	make_residual(&g, 51001);
	l = lay(&g, NULL);
	OK(l != NULL, "a 51,000-box residual chain lays out");
	OK(l && check(&g, l, 1) == 0, "51,000 boxes: invariants");
	layout_free(l);
	g_free(&g);
}

int main(void)
{
	test_empty_and_single();
	test_bad_input();
	test_chain();
	test_diamond();
	test_checker();
	test_residual();
	test_ports();
	test_cycles();
	test_lanes();
	test_determinism();
	test_fuzz();
	test_scale();
	return tap_done();
}
