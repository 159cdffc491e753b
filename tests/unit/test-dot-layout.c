/* Unit tests of Graphviz's layout in cells (src/graphviz/dot-layout.h): points to cells, routes (they start and end just
 * outside their boxes, turn only at right angles, keep off label rows and other boxes where they can, pass where
 * dot's label says), and the layout of srcnn's conv1 neighbourhood (boxes apart, edges joined to their boxes,
 * labels off the boxes). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "src/graphviz/dot-layout.h"
#include "src/graphviz/dot.h"
#include "src/graph/graph.h"
#include "src/model/model.h"
#include "src/graph/shape.h"
#include "tests/unit/tap.h"

/* Graphviz keeps memory it never frees (each context's plugin configuration, see tests/dot.sh): under
 * AddressSanitizer, leak checking stops while it lays out (tests/tui-neighbourhood.sh checks onnxview's own
 * allocations there, with Graphviz's libraries suppressed). */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LEAKS_OFF() __lsan_disable()
#define LEAKS_ON() __lsan_enable()
#else
#define LEAKS_OFF() ((void)0)
#define LEAKS_ON() ((void)0)
#endif

static void test_mapping(void)
{
	struct dot_cell_frame f = {10, 100};
	struct dot_cell_point p;

	OK(dot_cells_col(&f, 10) == 0 && dot_cells_col(&f, 10 + DOT_CELL_W_PT) == 1, "x: the frame's left is column 0, "
	   "one cell is %g points", DOT_CELL_W_PT);
	OK(dot_cells_row(&f, 100) == 0 && dot_cells_row(&f, 100 - DOT_CELL_H_PT) == 1 &&
	   dot_cells_row(&f, 100 - 2.5 * DOT_CELL_H_PT) == 2.5, "y: Graphviz's up is the screen's down, %g points a row",
	   DOT_CELL_H_PT);
	/* a 10 x 4 box centred on column 15, row 7 */
	p = dot_cells_box_at(&f, 10 + 15 * DOT_CELL_W_PT, 100 - 7 * DOT_CELL_H_PT, 10, 4);
	OK(p.x == 10 && p.y == 5, "a box centred at (15, 7) starts at (10, 5): got (%d, %d)", p.x, p.y);
	/* an odd size centred half way through a cell */
	p = dot_cells_box_at(&f, 10 + 15.5 * DOT_CELL_W_PT, 100 - 7.5 * DOT_CELL_H_PT, 9, 3);
	OK(p.x == 11 && p.y == 6, "a 9 x 3 box centred at (15.5, 7.5) starts at (11, 6): got (%d, %d)", p.x, p.y);
	/* rounding a little off a cell boundary still lands on it */
	p = dot_cells_box_at(&f, 10 + 15 * DOT_CELL_W_PT + 0.4, 100 - 7 * DOT_CELL_H_PT - 0.4, 10, 4);
	OK(p.x == 10 && p.y == 5, "a fraction of a point off stays in the same cells: got (%d, %d)", p.x, p.y);
}

/* The promises of struct dot_cell_edge: ends just outside the facing sides, axis-aligned steps, no repeats, no
 * three points on a line. */
static int route_ok(const struct dot_cell_point *p, uint32_t n, const struct dot_cell_rect *s,
		    const struct dot_cell_rect *d, const char **why)
{
	*why = "";
	if (n < 1)
		return *why = "empty", 0;
	for (uint32_t k = 0; k + 1 < n; k++) {
		if (p[k].x != p[k + 1].x && p[k].y != p[k + 1].y)
			return *why = "a diagonal step", 0;
		if (p[k].x == p[k + 1].x && p[k].y == p[k + 1].y)
			return *why = "a repeated point", 0;
		if (k + 2 < n && ((p[k].x == p[k + 1].x && p[k + 1].x == p[k + 2].x) ||
				  (p[k].y == p[k + 1].y && p[k + 1].y == p[k + 2].y)))
			return *why = "three points on a line", 0;
	}
	int below = d->y >= s->y + s->h;
	if (below && (p[0].y != s->y + s->h || p[0].x <= s->x || p[0].x >= s->x + s->w - 1))
		return *why = "does not start just under the source, off its corners", 0;
	if (below && (p[n - 1].y != d->y - 1 || p[n - 1].x <= d->x || p[n - 1].x >= d->x + d->w - 1))
		return *why = "does not end just above the target, off its corners", 0;
	if (below && n >= 2 && p[n - 2].x != p[n - 1].x)
		return *why = "does not enter the target straight", 0;
	return 1;
}

static int runs_across_row(const struct dot_cell_point *p, uint32_t n, int32_t row)
{
	for (uint32_t k = 0; k + 1 < n; k++)
		if (p[k].y == row && p[k + 1].y == row)
			return 1;
	return 0;
}

static int crosses(const struct dot_cell_point *p, uint32_t n, const struct dot_cell_rect *r)
{
	for (uint32_t k = 0; k + 1 < n; k++) {
		int32_t x0 = p[k].x < p[k + 1].x ? p[k].x : p[k + 1].x, x1 = p[k].x < p[k + 1].x ? p[k + 1].x : p[k].x;
		int32_t y0 = p[k].y < p[k + 1].y ? p[k].y : p[k + 1].y, y1 = p[k].y < p[k + 1].y ? p[k + 1].y : p[k].y;
		if (x0 < r->x + r->w && x1 >= r->x && y0 < r->y + r->h && y1 >= r->y)
			return 1;
	}
	return 0;
}

static void test_routes(void)
{
	struct dot_cell_rect a = {10, 0, 12, 4}, b = {10, 8, 12, 3}, c = {30, 14, 10, 3};
	struct dot_cell_point *p;
	uint32_t n;
	const char *why = "";

	/* straight down, as dot's spline runs (column 15.5 = the centre of cell 15) */
	double down[] = {15.5, 4.2, 15.5, 6, 15.5, 7.9};
	OK(dot_cells_route(down, 3, &a, &b, NULL, &p, &n) == 0, "a straight route");
	OK(route_ok(p, n, &a, &b, &why) && n == 2 && p[0].x == 15 && p[0].y == 4 && p[1].x == 15 && p[1].y == 7,
	   "... is two points, (15, 4) to (15, 7) %s", why);
	free(p);

	/* a spline drifting by half a cell: no step */
	double drift[] = {15.5, 4.2, 16.1, 6, 16.4, 7.9};
	OK(dot_cells_route(drift, 3, &a, &b, NULL, &p, &n) == 0 && route_ok(p, n, &a, &b, &why) && n == 2,
	   "a spline that drifts within a column stays straight %s", why);
	free(p);

	/* from a's bottom to c, down and to the right: leaves down, runs across, arrives down */
	double diag[] = {18.5, 4.1, 22, 7, 30, 11, 34.5, 13.9};
	OK(dot_cells_route(diag, 4, &a, &c, NULL, &p, &n) == 0, "a route down and across");
	OK(route_ok(p, n, &a, &c, &why), "... keeps its promises %s", why);
	OK(p[0].x == 18 && p[n - 1].x == 34, "... from the column the spline leaves at to the one it arrives at");
	free(p);

	/* the same with the rows it would run across on taken by labels: it runs across elsewhere */
	int32_t rows[] = {5, 9, 11};
	struct dot_cell_route_hints h = {NULL, rows, 3, NULL, 0};
	OK(dot_cells_route(diag, 4, &a, &c, &h, &p, &n) == 0 && route_ok(p, n, &a, &c, &why), "with label rows to avoid %s",
	   why);
	int across = 0;
	for (int i = 0; i < 3; i++)
		across |= runs_across_row(p, n, rows[i]);
	OK(!across, "... no run across a label row");
	free(p);

	/* a box in the way of the run across half way: it goes round */
	struct dot_cell_rect wall = {20, 8, 8, 2}, all[] = {a, c, wall};
	struct dot_cell_route_hints hw = {NULL, NULL, 0, all, 3};
	double straight[] = {18.5, 4.1, 34.5, 13.9};
	OK(dot_cells_route(straight, 2, &a, &c, &hw, &p, &n) == 0 && route_ok(p, n, &a, &c, &why), "with a box in the way %s",
	   why);
	OK(!crosses(p, n, &wall), "... the route keeps out of it");
	free(p);

	/* through a given cell (left of the edge's label) */
	struct dot_cell_point by = {26, 9};
	struct dot_cell_route_hints ht = {&by, NULL, 0, NULL, 0};
	OK(dot_cells_route(diag, 4, &a, &c, &ht, &p, &n) == 0 && route_ok(p, n, &a, &c, &why), "through a cell %s", why);
	int through = 0;
	for (uint32_t k = 0; k + 1 < n; k++) {
		int32_t x0 = p[k].x < p[k + 1].x ? p[k].x : p[k + 1].x, x1 = p[k].x < p[k + 1].x ? p[k + 1].x : p[k].x;
		int32_t y0 = p[k].y < p[k + 1].y ? p[k].y : p[k + 1].y, y1 = p[k].y < p[k + 1].y ? p[k + 1].y : p[k].y;
		through |= by.x >= x0 && by.x <= x1 && by.y >= y0 && by.y <= y1;
	}
	OK(through, "... passes (26, 9)");
	free(p);

	/* no spline at all, upwards (an edge dot turned round), sideways, a loop, boxes that touch */
	OK(dot_cells_route(NULL, 0, &a, &b, NULL, &p, &n) == 0 && route_ok(p, n, &a, &b, &why), "no spline: straight %s",
	   why);
	free(p);
	OK(dot_cells_route(NULL, 0, &c, &a, NULL, &p, &n) == 0 && n >= 2 && p[0].y == c.y - 1 && p[n - 1].y == a.y + a.h,
	   "upwards: from above the source to under the target");
	free(p);
	struct dot_cell_rect l = {0, 0, 6, 5}, r = {20, 1, 6, 3};
	OK(dot_cells_route(NULL, 0, &l, &r, NULL, &p, &n) == 0 && n >= 2 && p[0].x == 6 && p[n - 1].x == 19,
	   "sideways: from the right side to the left side");
	free(p);
	OK(dot_cells_route(NULL, 0, &a, &a, NULL, &p, &n) == 0 && n == 4 && p[0].x == a.x + a.w, "a loop onto itself");
	free(p);
	struct dot_cell_rect touching = {10, 4, 12, 3};
	OK(dot_cells_route(down, 3, &a, &touching, NULL, &p, &n) == 0 && n >= 1, "boxes with no gap: still a route");
	free(p);
}

static void diag_route(uint32_t k, const char *why)
{
	printf("# edge %u: %s\n", k, why);
}

static void test_srcnn(void)
{
	struct ov_model *m = NULL;
	struct graph *g = NULL;
	struct shapes *sh = NULL;
	struct dot_cells *c = NULL;
	struct ov_error e;

	if (model_load(&m, OV_SRCDATADIR "/examples/srcnn.onnx", &e) || graph_build(&g, m->proto->graph, &e) ||
	    shape_infer(&sh, m, g, &e)) {
		OK(0, "load srcnn: %s", e.msg);
		goto out;
	}
	struct dot_cells_options o = {1, 1, 1, 34};
	int r = dot_cells_layout(&c, m, g, sh, &o, &e);
	OK(r == 0, "srcnn, conv1 at radius 1 (%s)", r ? e.msg : "laid out");
	if (!c)
		goto out;
	OK(c->n_boxes == 5, "5 boxes: resize0, conv1, relu1 and stubs for input and conv2 (got %u)", c->n_boxes);
	OK(!strcmp(c->boxes[c->focus_box].gv_name, "n1") && c->boxes[c->focus_box].focus, "the focus is conv1 (n1)");
	int stubs = 0, apart = 1, inside = 1, joined = 1, labels_clear = 1, shaped = 1;
	for (uint32_t i = 0; i < c->n_boxes; i++) {
		const struct dot_cell_box *b = &c->boxes[i];
		stubs += b->kind == DOT_CELL_STUB;
		inside &= b->x >= 0 && b->y >= 0 && b->x + b->w <= c->width && b->y + b->h <= c->height;
		for (uint32_t j = i + 1; j < c->n_boxes; j++) {
			const struct dot_cell_box *o2 = &c->boxes[j];
			if (b->x < o2->x + o2->w && o2->x < b->x + b->w && b->y < o2->y + o2->h && o2->y < b->y + b->h)
				apart = 0;
		}
	}
	OK(stubs == 2, "two of them stubs");
	OK(apart, "no two boxes overlap");
	OK(inside, "every box inside the drawing (%d x %d)", c->width, c->height);
	OK(c->n_edges == 4, "4 edges (got %u)", c->n_edges);
	for (uint32_t k = 0; k < c->n_edges; k++) {
		const struct dot_cell_edge *ed = &c->edges[k];
		const struct dot_cell_box *s = &c->boxes[ed->src], *d = &c->boxes[ed->dst];
		struct dot_cell_rect sr = {s->x, s->y, s->w, s->h}, dr = {d->x, d->y, d->w, d->h};
		const char *why = "";
		if (!route_ok(ed->points, ed->n_points, &sr, &dr, &why)) {
			joined = 0;
			diag_route(k, why);
		}
		shaped &= ed->label[0] != 0;
		for (uint32_t i = 0; i < c->n_boxes && *ed->label; i++) {
			const struct dot_cell_box *b = &c->boxes[i];
			int32_t len = (int32_t)strlen(ed->label);
			if (ed->label_y >= b->y && ed->label_y < b->y + b->h && ed->label_x < b->x + b->w &&
			    ed->label_x + len > b->x)
				labels_clear = 0;
		}
	}
	OK(joined, "every edge leaves its source's bottom and enters its target's top, at right angles");
	OK(shaped, "every edge is labelled with its shape");
	OK(labels_clear, "no label lies on a box");
	OK(!strcmp(c->edges[0].label, "1x1x16x16") || !strcmp(c->edges[1].label, "1x1x16x16"),
	   "the input's shape in ASCII: 1x1x16x16");
	dot_cells_free(c);
	c = NULL;

	o.focus = 99;
	r = dot_cells_layout(&c, m, g, sh, &o, &e);
	OK(r == -1 && !c && strstr(e.msg, "#99"), "no node #99: %s", e.msg);
	o.focus = 1;
	o.radius = 1000;
	r = dot_cells_layout(&c, m, g, sh, &o, &e);
	OK(r == 0 && c && c->n_boxes == 8, "a radius beyond the graph: all of it (8 boxes)");
out:
	dot_cells_free(c);
	shapes_free(sh);
	graph_free(g);
	model_free(m);
}

int main(void)
{
	test_mapping();
	test_routes();
	LEAKS_OFF();
	test_srcnn();
	LEAKS_ON();
	return tap_done();
}
