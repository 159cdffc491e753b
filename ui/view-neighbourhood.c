/* The neighbourhood view: Graphviz's layout of the boxes around a node (src/graphviz/dot-layout.h) drawn in cells, with a
 * selection that moves to the nearest box in the direction of the arrow key, + and - to widen or narrow the
 * neighbourhood, and Enter to go back to the graph view with the selected node selected there. */
#include "config.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "src/graphviz/dot-layout.h"
#include "src/graphviz/dot.h"
#include "ui/app.h"
#include "ui/paint.h"

#define NB_DEFAULT_RADIUS 2 /* a terminal shows a few ranks: the radius that fills about one screen */

struct nb_view {
	uint32_t node; /* the node the neighbourhood is around */
	int radius;
	struct dot_cells *c;
	uint32_t sel;
	int32_t vx, vy; /* the drawing's cell at the view's top left */
	int follow;     /* bring the selection into view at the next draw (2: centre it, a new drawing) */
	struct paint_canvas canvas;
};

/* ---- building ---- */

static void nb_title(struct view *v, const struct nb_view *nv)
{
	const struct dot_cell_box *f = &nv->c->boxes[nv->c->focus_box];

	snprintf(v->title, sizeof v->title, "Graphviz: #%d %s, radius %d", (int)f->ref, *f->name ? f->name : f->title,
		 nv->radius);
}

/* Lay out the neighbourhood of nv->node at radius; the old layout stays when that fails (the message says why).
 * The selection stays on the same box when it is still there. */
static int nb_build(struct app *a, struct view *v, struct nb_view *nv, int radius, int *too_many)
{
	const struct graph *g = app_graph(a);
	struct dot_cells_options o = {nv->node, radius, a->opts.ascii, 34};
	struct dot_cells *c;
	struct ov_error e;
	int keep = 0;
	enum box_kind keep_kind = BOX_NODE;
	int32_t keep_ref = -1;

	if (!g)
		return -1;
	if (nv->node >= g->n_nodes) {
		app_message(a, 1, "no node #%u any more", nv->node);
		return -1;
	}
	if (too_many)
		*too_many = 0;
	if (dot_cells_layout(&c, a->m, g, app_shapes(a), &o, &e)) {
		app_message(a, 1, "%s", e.msg);
		if (too_many)
			*too_many = e.code == OV_LIMIT;
		return -1;
	}
	if (nv->c) { /* a stub and the box it stands for are the same thing to the user */
		keep = 1;
		keep_kind = nv->c->boxes[nv->sel].stands_for;
		keep_ref = nv->c->boxes[nv->sel].ref;
	}
	dot_cells_free(nv->c);
	nv->c = c;
	nv->radius = radius;
	nv->sel = c->focus_box;
	for (uint32_t i = 0; keep && i < c->n_boxes; i++)
		if (c->boxes[i].stands_for == keep_kind && c->boxes[i].ref == keep_ref) {
			nv->sel = i;
			break;
		}
	nv->follow = 2; /* a new drawing: centre the selection */
	nb_title(v, nv);
	return 0;
}

/* ---- drawing ---- */

/* The edge into the canvas: its runs, a line from where it leaves the source towards the source's border, and an
 * arrow where it meets the target. */
static void nb_paint_edge(struct paint_canvas *cv, const struct dot_cell_edge *e, const struct dot_cell_box *src,
			  const struct dot_cell_box *dst, int hot)
{
	const struct dot_cell_point *p = e->points;

	if (!e->n_points)
		return;
	for (uint32_t k = 0; k + 1 < e->n_points; k++)
		paint_canvas_segment(cv, p[k].x, p[k].y, p[k + 1].x, p[k + 1].y, hot);
	const struct dot_cell_point s = p[0], t = p[e->n_points - 1];
	paint_canvas_stub(cv, s.x, s.y, s.y >= src->y + src->h || s.y < src->y ? 0 : s.x < src->x ? 1 : -1,
			  s.y >= src->y + src->h ? -1 : s.y < src->y ? 1 : 0, hot);
	paint_canvas_arrow(cv, t.x, t.y, t.y < dst->y ? PAINT_ARROW_DOWN : t.y >= dst->y + dst->h ? PAINT_ARROW_UP :
				t.x < dst->x ? PAINT_ARROW_RIGHT : PAINT_ARROW_LEFT, hot);
}

static void draw_box(struct app *a, const struct dot_cell_box *b, int32_t x, int32_t y, int top, int rows, int cols,
		     int selected)
{
	struct paint_box pb = {
		.kind = b->kind == DOT_CELL_NODE ? PAINT_NODE : b->kind == DOT_CELL_STUB ? PAINT_STUB : PAINT_IO,
		.cat = b->cat,
		.title = b->title,
		.name = b->name,
		.lines = (const char *const *)b->lines,
		.n_lines = b->n_lines,
		.w = b->w,
		.h = b->h,
		.index = b->kind == DOT_CELL_NODE ? b->ref : -1,
		.selected = selected,
		.focus = b->focus,
		.mark = b->kind == DOT_CELL_NODE ? app_node_mark(a, b->ref) : 0,
	};

	paint_box(a, &pb, x, y, top, rows, cols);
}

/* Bring the selection into view: centred when it is off screen, the whole drawing centred when it fits. */
static void nb_follow(struct nb_view *nv, int rows, int cols)
{
	const struct dot_cells *c = nv->c;
	const struct dot_cell_box *b = &c->boxes[nv->sel];

	if (!nv->follow)
		return;
	int fresh = nv->follow == 2;
	nv->follow = 0;
	if (fresh || b->x < nv->vx || b->x + b->w > nv->vx + cols || b->y < nv->vy || b->y + b->h > nv->vy + rows) {
		nv->vx = c->width <= cols ? -(cols - c->width) / 2 : b->x + b->w / 2 - cols / 2;
		nv->vy = c->height <= rows ? -(rows - c->height) / 2 : b->y + b->h / 2 - rows / 2;
	}
}

static void nb_draw(struct app *a, struct view *v, int top, int rows, int cols)
{
	struct nb_view *nv = v->data;
	const struct dot_cells *c = nv->c;

	if (!c || rows <= 0 || cols <= 0)
		return;
	nb_follow(nv, rows, cols);
	if (paint_canvas_reset(&nv->canvas, nv->vx, nv->vy, rows, cols) == 0) {
		for (int hot = 0; hot < 2; hot++) /* the selection's edges last, so they win where edges share cells */
			for (uint32_t k = 0; k < c->n_edges; k++) {
				const struct dot_cell_edge *e = &c->edges[k];
				int is_hot = e->src == nv->sel || e->dst == nv->sel;
				if (is_hot == hot)
					nb_paint_edge(&nv->canvas, e, &c->boxes[e->src], &c->boxes[e->dst], hot);
			}
		paint_canvas_draw(a, &nv->canvas, top);
	}
	for (uint32_t k = 0; k < c->n_edges; k++) {
		const struct dot_cell_edge *e = &c->edges[k];
		int32_t y = e->label_y - nv->vy, x = e->label_x - nv->vx;
		if (*e->label && y >= 0 && y < rows && x < cols)
			ui_text(top + y, x, 0, cols, e->label, ui_attr(a, UI_DIM));
	}
	for (uint32_t i = 0; i < c->n_boxes; i++) {
		const struct dot_cell_box *b = &c->boxes[i];
		int32_t x = b->x - nv->vx, y = b->y - nv->vy;
		if (x + b->w + 1 < 0 || x - 1 >= cols || y + b->h < 0 || y >= rows)
			continue;
		draw_box(a, b, x, y, top, rows, cols, i == nv->sel);
	}
}

/* ---- moving ---- */

/* The nearest box in a direction (dx, dy one of the four); -1 when none.  Distances are between centres, a row
 * counted as two columns (cells are twice as tall as wide), what lies across the direction weighing twice.  Up
 * and down take any box further that way; left and right the boxes beside (rows in common) when there are any,
 * else those more to that side than above or below. */
static int32_t nearest_box(const struct dot_cells *c, uint32_t from, int dx, int dy)
{
	const struct dot_cell_box *f = &c->boxes[from];
	int64_t best = -1, best_score = 0;
	int best_beside = 0;

	for (uint32_t i = 0; i < c->n_boxes; i++) {
		const struct dot_cell_box *b = &c->boxes[i];
		if (i == from)
			continue;
		/* centres doubled, so that halves stay whole; rows twice again */
		int64_t ddx = (int64_t)(2 * b->x + b->w) - (2 * f->x + f->w);
		int64_t ddy = ((int64_t)(2 * b->y + b->h) - (2 * f->y + f->h)) * 2;
		int64_t along = dy ? ddy * dy : ddx * dx, across = dy ? ddx : ddy;
		int beside = !dy && b->y < f->y + f->h && f->y < b->y + b->h;
		if (across < 0)
			across = -across;
		if (along <= 0 || (!dy && !beside && along < across))
			continue;
		int64_t score = along + 2 * across;
		if (best >= 0 && (best_beside > beside || (best_beside == beside && score >= best_score)))
			continue;
		best = i, best_score = score, best_beside = beside;
	}
	return (int32_t)best;
}

static void describe_selection(struct app *a, const struct nb_view *nv)
{
	const struct dot_cell_box *b = &nv->c->boxes[nv->sel];

	if (b->kind == DOT_CELL_NODE)
		app_message(a, 0, "#%d %s %s  (Enter: select it in the graph, D: its neighbourhood)", (int)b->ref, b->name,
			    b->title);
	else if (b->kind == DOT_CELL_STUB)
		app_message(a, 0, "outside radius %d: %s %s  (+ widens it, Enter: select it in the graph)", nv->radius,
			    b->title, b->name);
	else
		app_message(a, 0, "graph %s %s", b->kind == DOT_CELL_INPUT ? "input" : "output",
			    b->n_lines ? b->lines[0] : "");
}

static void nb_select(struct app *a, struct nb_view *nv, uint32_t i)
{
	nv->sel = i;
	nv->follow = 1;
	describe_selection(a, nv);
}

static void nb_radius(struct app *a, struct view *v, struct nb_view *nv, int radius)
{
	if (radius < 0 || radius > DOT_CELLS_MAX_RADIUS) {
		app_message(a, 1, "the radius goes from 0 to %d", DOT_CELLS_MAX_RADIUS);
		return;
	}
	if (nb_build(a, v, nv, radius, NULL))
		return;
	app_message(a, 0, "radius %d: %u box%s", radius, nv->c->n_boxes, nv->c->n_boxes == 1 ? "" : "es");
}

static int nb_handle(struct app *a, struct view *v, enum action act, int key)
{
	struct nb_view *nv = v->data;
	const struct dot_cells *c = nv->c;
	const struct dot_cell_box *b = &c->boxes[nv->sel];
	int32_t to = -1;

	if (key == '+' || key == '=') {
		nb_radius(a, v, nv, nv->radius + 1);
		return 1;
	}
	if (key == '-' || key == '_') {
		nb_radius(a, v, nv, nv->radius - 1);
		return 1;
	}
	switch (act) {
	case ACT_MOVE_DOWN: to = nearest_box(c, nv->sel, 0, 1); break;
	case ACT_MOVE_UP: to = nearest_box(c, nv->sel, 0, -1); break;
	case ACT_MOVE_LEFT: to = nearest_box(c, nv->sel, -1, 0); break;
	case ACT_MOVE_RIGHT: to = nearest_box(c, nv->sel, 1, 0); break;
	case ACT_HOME: nb_select(a, nv, c->focus_box); return 1;
	case ACT_CYCLE_PORT: nb_select(a, nv, (nv->sel + 1) % c->n_boxes); return 1;
	case ACT_PAGE_DOWN:
	case ACT_PAGE_UP:
		nv->vy += (act == ACT_PAGE_DOWN ? 1 : -1) * (a->rows > 6 ? a->rows - 4 : 2);
		return 1;
	case ACT_ENTER:
		if (b->stands_for != BOX_NODE) {
			app_message(a, 1, "a graph %s: Enter goes to nodes", b->stands_for == BOX_INPUT ? "input" : "output");
			return 1;
		}
		app_goto_node(a, b->ref); /* closes this view */
		return 1;
	case ACT_VIEW_NEIGHBOURHOOD:
		if (b->stands_for != BOX_NODE) {
			app_message(a, 1, "select a node to lay out its neighbourhood");
			return 1;
		}
		if ((uint32_t)b->ref != nv->node) {
			uint32_t old = nv->node;
			nv->node = (uint32_t)b->ref;
			if (nb_build(a, v, nv, nv->radius, NULL)) {
				nv->node = old;
				return 1;
			}
		}
		app_message(a, 0, "radius %d: %u box%s around #%u", nv->radius, nv->c->n_boxes, nv->c->n_boxes == 1 ? "" : "es",
			    nv->node);
		return 1;
	default:
		break;
	}
	if (act == ACT_SCROLL_UP || act == ACT_SCROLL_DOWN) {
		nv->vy += act == ACT_SCROLL_UP ? -3 : 3;
		return 1;
	}
	if (act == ACT_CLICK) { /* a click selects the box under it; the view starts under the title line */
		int32_t x = a->mouse_x + nv->vx, y = a->mouse_y - 1 + nv->vy;
		for (uint32_t i = 0; i < c->n_boxes; i++) {
			const struct dot_cell_box *bx = &c->boxes[i];
			if (x >= bx->x && x < bx->x + bx->w && y >= bx->y && y < bx->y + bx->h) {
				nv->sel = i;
				describe_selection(a, nv);
			}
		}
		return 1;
	}
	if (act == ACT_MOVE_DOWN || act == ACT_MOVE_UP || act == ACT_MOVE_LEFT || act == ACT_MOVE_RIGHT) {
		if (to >= 0)
			nb_select(a, nv, (uint32_t)to);
		else
			app_message(a, 0, "no box that way");
		return 1;
	}
	return 0;
}

static int nb_search(struct app *a, struct view *v, const char *query, int dir)
{
	struct nb_view *nv = v->data;
	uint32_t n = nv->c->n_boxes;

	for (uint32_t k = 1; k <= n; k++) {
		uint32_t i = dir > 0 ? (nv->sel + k) % n : (nv->sel + n - k % n) % n;
		const struct dot_cell_box *b = &nv->c->boxes[i];
		int hit = strstr(b->title, query) || strstr(b->name, query);
		for (uint16_t l = 0; !hit && l < b->n_lines; l++)
			hit = strstr(b->lines[l], query) != NULL;
		if (hit) {
			nb_select(a, nv, i);
			return 0;
		}
	}
	return -1;
}

static int nb_reload(struct app *a, struct view *v)
{
	struct nb_view *nv = v->data;

	return nb_build(a, v, nv, nv->radius, NULL);
}

static void nb_free(struct view *v)
{
	struct nb_view *nv = v->data;

	if (nv) {
		dot_cells_free(nv->c);
		paint_canvas_free(&nv->canvas);
		free(nv);
	}
	free(v);
}

static const struct view_ops neighbourhood_ops = {
	.name = "neighbourhood",
	.draw = nb_draw,
	.handle = nb_handle,
	.reload = nb_reload,
	.search = nb_search,
	.free = nb_free,
};

struct view *view_neighbourhood_new(struct app *a, uint32_t node)
{
	struct view *v = calloc(1, sizeof *v);
	struct nb_view *nv = calloc(1, sizeof *nv);
	int too_many = 0;

	if (!v || !nv) {
		free(v);
		free(nv);
		app_message(a, 1, "out of memory");
		return NULL;
	}
	v->ops = &neighbourhood_ops;
	v->data = nv;
	nv->node = node;
	/* A node with thousands of neighbours: the widest radius Graphviz can still take. */
	int radius = NB_DEFAULT_RADIUS;
	while (nb_build(a, v, nv, radius, &too_many) && too_many && radius > 0)
		radius--;
	if (!nv->c) {
		nb_free(v);
		return NULL;
	}
	app_message(a, 0, "radius %d: %u box%s laid out by Graphviz%s (+/- radius, arrows move, Enter: the node in the "
		    "graph, Esc closes)", nv->radius, nv->c->n_boxes, nv->c->n_boxes == 1 ? "" : "es",
		    radius < NB_DEFAULT_RADIUS ? ", too many for a wider radius" : "");
	return v;
}
