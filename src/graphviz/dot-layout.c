/* Graphviz's layout of a node's neighbourhood in character cells: boxes where dot put them, edges along its splines. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cgraph.h>
#include <gvc.h>

#include "src/graphviz/dot-layout.h"
#include "src/graphviz/dot.h"
#include "src/base/strbuf.h"

/* Gaps dot keeps, in cells: two columns between boxes side by side (so that rounding to cells never makes them
 * touch), and two rows between ranks.  When any edge has a label dot gives labels ranks of their own and halves
 * ranksep: a box, a row (where edges leave, and may turn), the label's two rows (its text, then a row where edges
 * turn towards their target), a row (the arrows), the next box. */
#define NODESEP_CELLS 2
#define RANKSEP_CELLS 2
#define LABEL_MAX 40 /* code points of an edge label */

/* ---- points and cells -------------------------------------------------------------------------------------- */

double dot_cells_col(const struct dot_cell_frame *f, double x_pt)
{
	return (x_pt - f->left_pt) / DOT_CELL_W_PT;
}

double dot_cells_row(const struct dot_cell_frame *f, double y_pt)
{
	return (f->top_pt - y_pt) / DOT_CELL_H_PT;
}

struct dot_cell_point dot_cells_box_at(const struct dot_cell_frame *f, double x_pt, double y_pt, int w, int h)
{
	struct dot_cell_point p;

	p.x = (int32_t)floor(dot_cells_col(f, x_pt) - w / 2.0 + 0.5);
	p.y = (int32_t)floor(dot_cells_row(f, y_pt) - h / 2.0 + 0.5);
	return p;
}

/* ---- routes ------------------------------------------------------------------------------------------------ */

/* A route is worked out in a frame of its own where it runs towards growing v (u across): the four directions a
 * route can leave its source are then one case.  Coordinates there are cell indices (cell c's centre is c), so
 * turning the frame round maps cells onto cells. */
enum heading { HEAD_DOWN, HEAD_UP, HEAD_RIGHT, HEAD_LEFT };

static void to_frame(enum heading d, double x, double y, double *u, double *v)
{
	switch (d) {
	case HEAD_DOWN: *u = x, *v = y; break;
	case HEAD_UP: *u = x, *v = -y; break;
	case HEAD_RIGHT: *u = y, *v = x; break;
	default: *u = y, *v = -x; break;
	}
}

static struct dot_cell_point from_frame(enum heading d, int32_t u, int32_t v)
{
	struct dot_cell_point p;

	switch (d) {
	case HEAD_DOWN: p.x = u, p.y = v; break;
	case HEAD_UP: p.x = u, p.y = -v; break;
	case HEAD_RIGHT: p.x = v, p.y = u; break;
	default: p.x = -v, p.y = u; break;
	}
	return p;
}

struct span {
	int32_t u0, u1, v0, v1; /* inclusive */
};

static struct span rect_in_frame(enum heading d, const struct dot_cell_rect *r)
{
	double u0, v0, u1, v1;
	struct span s;

	to_frame(d, r->x, r->y, &u0, &v0);
	to_frame(d, r->x + r->w - 1, r->y + r->h - 1, &u1, &v1);
	s.u0 = (int32_t)(u0 < u1 ? u0 : u1);
	s.u1 = (int32_t)(u0 < u1 ? u1 : u0);
	s.v0 = (int32_t)(v0 < v1 ? v0 : v1);
	s.v1 = (int32_t)(v0 < v1 ? v1 : v0);
	return s;
}

static int32_t clamp32(int32_t x, int32_t lo, int32_t hi)
{
	if (hi < lo)
		return lo + (hi - lo) / 2;
	return x < lo ? lo : x > hi ? hi : x;
}

/* Distance from p to the segment a-b. */
static double seg_dist(double pu, double pv, double au, double av, double bu, double bv)
{
	double du = bu - au, dv = bv - av, l2 = du * du + dv * dv, t = 0;

	if (l2 > 0) {
		t = ((pu - au) * du + (pv - av) * dv) / l2;
		t = t < 0 ? 0 : t > 1 ? 1 : t;
	}
	du = au + t * du - pu;
	dv = av + t * dv - pv;
	return sqrt(du * du + dv * dv);
}

/* Douglas-Peucker: keep[i] = 1 for the points that carry the polyline's shape within eps. */
static int simplify(const double *u, const double *v, size_t n, double eps, uint8_t *keep)
{
	size_t *stack = malloc((2 * n + 2) * sizeof *stack), top = 0;

	if (!stack)
		return -1;
	memset(keep, 0, n);
	keep[0] = keep[n - 1] = 1;
	stack[top++] = 0;
	stack[top++] = n - 1;
	while (top) {
		size_t j = stack[--top], i = stack[--top], far = 0;
		double worst = eps;
		for (size_t k = i + 1; k < j; k++) {
			double d = seg_dist(u[k], v[k], u[i], v[i], u[j], v[j]);
			if (d > worst)
				worst = d, far = k;
		}
		if (far) {
			keep[far] = 1;
			stack[top++] = i;
			stack[top++] = far;
			stack[top++] = far;
			stack[top++] = j;
		}
	}
	free(stack);
	return 0;
}

struct route_buf {
	struct dot_cell_point *p;
	uint32_t n, cap;
};

/* Append, dropping repeats and folding runs on one line into one (a turn back on itself included). */
static int route_add(struct route_buf *pa, int32_t u, int32_t v)
{
	if (pa->n && pa->p[pa->n - 1].x == u && pa->p[pa->n - 1].y == v)
		return 0;
	while (pa->n >= 2) {
		struct dot_cell_point a = pa->p[pa->n - 2], b = pa->p[pa->n - 1];
		if (!((a.x == b.x && b.x == u) || (a.y == b.y && b.y == v)))
			break;
		pa->n--;
		if (pa->p[pa->n - 1].x == u && pa->p[pa->n - 1].y == v)
			return 0;
	}
	if (pa->n == pa->cap) {
		uint32_t cap = pa->cap ? 2 * pa->cap : 8;
		struct dot_cell_point *np = realloc(pa->p, cap * sizeof *np);
		if (!np)
			return -1;
		pa->p = np;
		pa->cap = cap;
	}
	pa->p[pa->n].x = u;
	pa->p[pa->n].y = v;
	pa->n++;
	return 0;
}

/* A box's loop onto itself (a malformed model): out of its right side and back in a column further right. */
static int self_loop(const struct dot_cell_rect *r, struct dot_cell_point **out, uint32_t *n_out)
{
	struct dot_cell_point *p = malloc(4 * sizeof *p);
	int32_t y0 = r->y + (r->h > 2 ? 1 : 0), y1 = r->y + (r->h > 2 ? r->h - 2 : r->h - 1);

	if (!p)
		return -1;
	p[0].x = r->x + r->w, p[0].y = y0;
	p[1].x = r->x + r->w + 1, p[1].y = y0;
	p[2].x = r->x + r->w + 1, p[2].y = y1;
	p[3].x = r->x + r->w, p[3].y = y1;
	*out = p;
	*n_out = y1 > y0 ? 4 : 1;
	return 0;
}

/* What a route should keep away from, in its own frame. */
struct keep_off {
	enum heading d;
	const int32_t *rows; /* label rows (of the drawing), sorted */
	size_t n_rows;
	struct span *boxes;  /* the boxes near the route */
	size_t n_boxes;
};

static int row_avoided(const struct keep_off *ko, int32_t v)
{
	int32_t row = ko->d == HEAD_DOWN ? v : -v;
	size_t lo = 0, hi = ko->n_rows;

	if (ko->d != HEAD_DOWN && ko->d != HEAD_UP)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ko->rows[mid] == row)
			return 1;
		if (ko->rows[mid] < row)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int span_hit(const struct span *b, int32_t u0, int32_t u1, int32_t v0, int32_t v1)
{
	if (u0 > u1) {
		int32_t t = u0;
		u0 = u1, u1 = t;
	}
	if (v0 > v1) {
		int32_t t = v0;
		v0 = v1, v1 = t;
	}
	return u0 <= b->u1 && u1 >= b->u0 && v0 <= b->v1 && v1 >= b->v0;
}

/* Whether on from (pu, pv) to row mid, across to bu, on to bv runs through a box. */
static int dogleg_blocked(const struct keep_off *ko, int32_t pu, int32_t pv, int32_t mid, int32_t bu, int32_t bv)
{
	for (size_t i = 0; i < ko->n_boxes; i++)
		if (span_hit(&ko->boxes[i], pu, pu, pv, mid) || span_hit(&ko->boxes[i], pu, bu, mid, mid) ||
		    span_hit(&ko->boxes[i], bu, bu, mid, bv))
			return 1;
	return 0;
}

/* The row (in the route's frame) for the run across from (pu, pv) to (bu, bv), in [lo, hi]: the one nearest half
 * way that crosses no box and no label row, else the nearest that crosses no box, else the nearest off the label
 * rows, else half way. */
static int32_t across_at(const struct keep_off *ko, int32_t pu, int32_t pv, int32_t bu, int32_t bv, int32_t lo,
			 int32_t hi)
{
	int32_t mid = lo + (hi - lo) / 2;

	for (int pass = 0; pass < 3; pass++)
		for (int32_t k = 0; k <= hi - lo; k++)
			for (int side = 0; side < 2; side++) {
				int32_t r = side ? mid - k : mid + k;
				if (r < lo || r > hi || (side && !k))
					continue;
				int ok = pass == 0 ? !row_avoided(ko, r) && !dogleg_blocked(ko, pu, pv, r, bu, bv) :
					 pass == 1 ? !dogleg_blocked(ko, pu, pv, r, bu, bv) : !row_avoided(ko, r);
				if (ok)
					return r;
			}
	return mid;
}

/* The label rows, and the boxes (but the route's own two) that overlap the area the route may use: its ends and
 * the spline, a few cells around. */
static int route_keep_off(struct keep_off *ko, enum heading d, const double *xy, size_t n,
			  const struct dot_cell_rect *src, const struct dot_cell_rect *dst,
			  const struct dot_cell_route_hints *h)
{
	int32_t x0 = src->x < dst->x ? src->x : dst->x, y0 = src->y < dst->y ? src->y : dst->y;
	int32_t x1 = src->x + src->w > dst->x + dst->w ? src->x + src->w : dst->x + dst->w;
	int32_t y1 = src->y + src->h > dst->y + dst->h ? src->y + src->h : dst->y + dst->h;

	ko->d = d;
	ko->rows = h->avoid_rows;
	ko->n_rows = h->n_avoid;
	for (size_t k = 0; k < n; k++) {
		if (xy[2 * k] < x0)
			x0 = (int32_t)xy[2 * k];
		if (xy[2 * k] > x1)
			x1 = (int32_t)xy[2 * k] + 1;
		if (xy[2 * k + 1] < y0)
			y0 = (int32_t)xy[2 * k + 1];
		if (xy[2 * k + 1] > y1)
			y1 = (int32_t)xy[2 * k + 1] + 1;
	}
	x0 -= 3, y0 -= 3, x1 += 3, y1 += 3;
	for (size_t i = 0; i < h->n_boxes; i++) {
		const struct dot_cell_rect *b = &h->boxes[i];
		if (b->x >= x1 || b->x + b->w <= x0 || b->y >= y1 || b->y + b->h <= y0)
			continue;
		if ((b->x == src->x && b->y == src->y && b->w == src->w && b->h == src->h) ||
		    (b->x == dst->x && b->y == dst->y && b->w == dst->w && b->h == dst->h))
			continue;
		if (!ko->boxes) {
			ko->boxes = malloc(h->n_boxes * sizeof *ko->boxes);
			if (!ko->boxes)
				return -1;
		}
		ko->boxes[ko->n_boxes++] = rect_in_frame(d, b);
	}
	return 0;
}

int dot_cells_route(const double *xy, size_t n, const struct dot_cell_rect *src, const struct dot_cell_rect *dst,
		    const struct dot_cell_route_hints *hints, struct dot_cell_point **out, uint32_t *n_out)
{
	enum heading d;
	struct span s, t;
	struct route_buf pa = {0};
	double *u = NULL, *v = NULL;
	uint8_t *keep = NULL;
	struct keep_off ko = {0};
	int32_t su, sv, eu, ev, vmax, *wu = NULL, *wv = NULL;
	size_t nw = 0, ti = (size_t)-1;
	int rc = -1;

	*out = NULL;
	*n_out = 0;
	if (src->x == dst->x && src->y == dst->y && src->w == dst->w && src->h == dst->h)
		return self_loop(src, out, n_out);
	/* Leave from the side that faces dst: below it, above it, or beside it (ranks run down, so a box beside
	 * another only happens in odd layouts). */
	if (dst->y >= src->y + src->h)
		d = HEAD_DOWN;
	else if (dst->y + dst->h <= src->y)
		d = HEAD_UP;
	else if (dst->x >= src->x + src->w)
		d = HEAD_RIGHT;
	else if (dst->x + dst->w <= src->x)
		d = HEAD_LEFT;
	else
		d = HEAD_DOWN; /* overlapping boxes: nothing looks right */
	s = rect_in_frame(d, src);
	t = rect_in_frame(d, dst);
	if (hints && hints->n_boxes && route_keep_off(&ko, d, xy, n, src, dst, hints))
		goto out;
	u = malloc((n + 2) * sizeof *u);
	v = malloc((n + 2) * sizeof *v);
	keep = malloc(n + 2);
	if (!u || !v || !keep)
		goto out;
	for (size_t k = 0; k < n; k++) /* cell c covers [c, c + 1): its centre is c + 0.5 */
		to_frame(d, xy[2 * k] - 0.5, xy[2 * k + 1] - 0.5, &u[k + 1], &v[k + 1]);
	/* The ends: the cell just outside each box, in the column where the spline meets it, kept off the box's
	 * corners. */
	sv = s.v1 + 1;
	ev = t.v0 - 1;
	if (ev < sv)
		ev = sv;
	if (n) {
		su = clamp32((int32_t)lround(u[1]), s.u0 + 1, s.u1 - 1);
		eu = clamp32((int32_t)lround(u[n]), t.u0 + 1, t.u1 - 1);
	} else { /* no spline: straight down where the boxes overlap, else from centre to centre */
		int32_t lo = s.u0 > t.u0 ? s.u0 : t.u0, hi = s.u1 < t.u1 ? s.u1 : t.u1;
		su = lo + 1 <= hi - 1 ? lo + (hi - lo) / 2 : s.u0 + (s.u1 - s.u0) / 2;
		eu = lo + 1 <= hi - 1 ? su : t.u0 + (t.u1 - t.u0) / 2;
	}
	u[0] = su, v[0] = sv;
	u[n + 1] = eu, v[n + 1] = ev;
	if (simplify(u, v, n + 2, 0.8, keep))
		goto out;
	/* The bends dot made, as cells between the ends: never back towards the source, never on the arrow's row (so
	 * that the arrow is entered straight), never a step of one column (a spline drifting), and through the cell
	 * given, at its row. */
	const struct dot_cell_point *through = hints ? hints->through : NULL;
	double tu = 0, tv = 0;
	int through_left = through != NULL;
	if (through)
		to_frame(d, through->x, through->y, &tu, &tv);
	if (through && (tv <= sv || tv >= ev))
		through_left = 0; /* not between the ends: dot's label room is no help */
	vmax = ev - 1 > sv ? ev - 1 : sv;
	wu = malloc((n + 3) * sizeof *wu);
	wv = malloc((n + 3) * sizeof *wv);
	if (!wu || !wv)
		goto out;
	int32_t pu = su, pv = sv;
	for (size_t k = 1; k <= n; k++) {
		if (!keep[k])
			continue;
		int32_t bu = (int32_t)lround(u[k]), bv = clamp32((int32_t)lround(v[k]), pv, vmax);
		if ((bu >= s.u0 && bu <= s.u1 && bv <= s.v1) || (bu >= t.u0 && bu <= t.u1 && bv >= t.v0))
			continue; /* inside an end's box */
		if (through_left && bv >= (int32_t)tv) {
			ti = nw;
			wu[nw] = pu = (int32_t)tu, wv[nw++] = pv = (int32_t)tv;
			through_left = 0;
			if (bv == pv)
				continue;
		}
		if (bu - pu >= -1 && bu - pu <= 1)
			bu = pu;
		wu[nw] = pu = bu, wv[nw++] = pv = bv;
	}
	if (through_left)
		ti = nw, wu[nw] = pu = (int32_t)tu, wv[nw++] = pv = (int32_t)tv;
	/* the through cell cannot move: the bends just before it that are a column off it move instead */
	for (size_t w = ti; w != (size_t)-1 && w > 0 && wu[w - 1] - wu[w] >= -1 && wu[w - 1] - wu[w] <= 1; w--)
		wu[w - 1] = wu[w];
	/* Leave straight down (or whichever way) from the column the path first takes when the source's side
	 * reaches it, and arrive straight when the last run meets the target's side, or nearly. */
	if (nw && wu[0] >= s.u0 + 1 && wu[0] <= s.u1 - 1)
		su = wu[0];
	int32_t lu = nw ? wu[nw - 1] : su;
	if (eu - lu >= -2 && eu - lu <= 2 && lu >= t.u0 + 1 && lu <= t.u1 - 1)
		eu = lu;
	wu[nw] = eu, wv[nw++] = ev;
	pu = su, pv = sv;
	if (route_add(&pa, su, sv))
		goto out;
	for (size_t w = 0; w < nw; w++) {
		int32_t bu = wu[w], bv = wv[w];
		/* A step that is neither straight across nor straight on: on, across half way (off the rows to avoid),
		 * on; never across on the arrow's row. */
		if (bu != pu && bv != pv) {
			int32_t hi = w == nw - 1 && bv - 1 >= pv ? bv - 1 : bv;
			int32_t mid = across_at(&ko, pu, pv, bu, bv, pv, hi);
			if (route_add(&pa, pu, mid) || route_add(&pa, bu, mid))
				goto out;
		}
		if (route_add(&pa, bu, bv))
			goto out;
		pu = bu, pv = bv;
	}
	for (uint32_t k = 0; k < pa.n; k++)
		pa.p[k] = from_frame(d, pa.p[k].x, pa.p[k].y);
	*out = pa.p;
	*n_out = pa.n;
	pa.p = NULL;
	rc = 0;
out:
	free(pa.p);
	free(u);
	free(v);
	free(wu);
	free(wv);
	free(keep);
	free(ko.boxes);
	return rc;
}

/* ---- the layout -------------------------------------------------------------------------------------------- */

static size_t code_points(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* s cut to at most max code points, the last of them an ellipsis when it was cut. */
static void put_clipped(struct strbuf *b, const char *s, size_t max, int ascii)
{
	size_t n = 0;

	if (code_points(s) <= max) {
		strbuf_puts(b, s);
		return;
	}
	for (const char *p = s; *p; p++) {
		if (((unsigned char)*p & 0xc0) != 0x80 && ++n > max - 1)
			break;
		strbuf_putc(b, *p);
	}
	strbuf_puts(b, ascii ? "~" : "\xe2\x80\xa6");
}

/* The scene box a Graphviz node stands for: its index, and whether it is a stub; -1 when the name is not one
 * dot_build gives. */
static int64_t box_of_name(const struct scene *s, const int32_t *in_box, const int32_t *out_box, uint32_t n_values,
			   const char *name, int *stub)
{
	char *end;
	unsigned long k;

	*stub = 0;
	if (!name || !strchr("nios", name[0]) || name[1] < '0' || name[1] > '9')
		return -1;
	k = strtoul(name + 1, &end, 10);
	if (*end)
		return -1;
	switch (name[0]) {
	case 'n': return k < s->n_nodes ? s->node_box[k] : -1;
	case 'i': return k < n_values ? in_box[k] : -1;
	case 'o': return k < n_values ? out_box[k] : -1;
	default: *stub = 1; return k < s->n_boxes ? (int64_t)k : -1;
	}
}

void dot_cells_free(struct dot_cells *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n_boxes; i++) {
		struct dot_cell_box *b = &c->boxes[i];
		free(b->title);
		free(b->name);
		for (uint16_t l = 0; l < b->n_lines; l++)
			free(b->lines[l]);
		free(b->lines);
	}
	for (uint32_t i = 0; i < c->n_edges; i++) {
		free(c->edges[i].label);
		free(c->edges[i].points);
	}
	free(c->boxes);
	free(c->edges);
	free(c);
}

/* The box for scene box i (a stub of it with stub set): its text and size. */
static int fill_box(struct dot_cell_box *b, const struct scene_box *bx, uint32_t i, int stub, int maxw, int ascii)
{
	struct strbuf t = {0};

	b->kind = stub ? DOT_CELL_STUB : bx->kind == BOX_NODE ? DOT_CELL_NODE : bx->kind == BOX_INPUT ? DOT_CELL_INPUT :
								     DOT_CELL_OUTPUT;
	b->stands_for = bx->kind;
	b->ref = bx->ref;
	b->cat = bx->cat;
	if (stub)
		snprintf(b->gv_name, sizeof b->gv_name, "s%u", i);
	else
		snprintf(b->gv_name, sizeof b->gv_name, "%c%d", bx->kind == BOX_NODE ? 'n' : bx->kind == BOX_INPUT ? 'i' : 'o',
			 (int)bx->ref);
	if (!stub) {
		b->title = strdup(bx->title);
		b->name = strdup(bx->kind == BOX_NODE ? bx->name : ""); /* an input's name is kept raw: lines[0] shows it */
		b->lines = calloc(bx->n_lines ? bx->n_lines : 1, sizeof *b->lines);
		if (!b->title || !b->name || !b->lines)
			return -1;
		for (uint16_t l = 0; l < bx->n_lines; l++) {
			if (!(b->lines[l] = strdup(bx->lines[l])))
				return -1;
			b->n_lines = (uint16_t)(l + 1);
		}
		b->w = bx->w;
		b->h = bx->h;
		return 0;
	}
	/* A stub: the op (or "input", "output") after an ellipsis, the name on its border. */
	strbuf_puts(&t, ascii ? "... " : "\xe2\x80\xa6 ");
	put_clipped(&t, bx->title, (size_t)maxw - 8, ascii);
	b->title = t.failed ? NULL : strdup(strbuf_str(&t));
	strbuf_reset(&t);
	put_clipped(&t, bx->kind == BOX_NODE ? bx->name : bx->n_lines ? bx->lines[0] : "", (size_t)maxw - 4, ascii);
	b->name = t.failed ? NULL : strdup(strbuf_str(&t));
	strbuf_free(&t);
	if (!b->title || !b->name)
		return -1;
	size_t w = code_points(b->title) + 4, nw = code_points(b->name) + 4;
	if (nw > w)
		w = nw;
	b->w = (uint16_t)(w < 8 ? 8 : w > (size_t)maxw ? (size_t)maxw : w);
	b->h = 3;
	return 0;
}

/* The points of an edge's spline as dot drew it, in cells, from its tail to its head (arrow tips included). */
static int spline_cells(Agedge_t *e, const struct dot_cell_frame *f, double **xy, size_t *n)
{
	splines *spl = ED_spl(e);
	size_t cap = 0, k = 0;
	double *p = NULL;

	*xy = NULL;
	*n = 0;
	if (!spl)
		return 0;
	for (int b = 0; b < spl->size; b++)
		cap += (size_t)spl->list[b].size * 2 + 4;
	if (!cap)
		return 0;
	p = malloc(2 * cap * sizeof *p);
	if (!p)
		return -1;
#define PUT(pt) (p[2 * k] = dot_cells_col(f, (pt).x), p[2 * k + 1] = dot_cells_row(f, (pt).y), k++)
	for (int b = 0; b < spl->size; b++) {
		const bezier *bz = &spl->list[b];
		if (bz->sflag)
			PUT(bz->sp);
		for (int i = 0; i + 3 < bz->size; i += 3) { /* cubic pieces: 4 points, each sharing its last */
			const pointf *c = &bz->list[i];
			for (int s = 0; s < 6; s++) {
				double t = s / 6.0, r = 1 - t;
				pointf q;
				q.x = r * r * r * c[0].x + 3 * r * r * t * c[1].x + 3 * r * t * t * c[2].x + t * t * t * c[3].x;
				q.y = r * r * r * c[0].y + 3 * r * r * t * c[1].y + 3 * r * t * t * c[2].y + t * t * t * c[3].y;
				PUT(q);
			}
		}
		if (bz->size)
			PUT(bz->list[bz->size - 1]);
		if (bz->eflag)
			PUT(bz->ep);
	}
#undef PUT
	*xy = p;
	*n = k;
	return 0;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

static double rect_dist2(const struct dot_cell_box *b, double x, double y)
{
	double dx = x < b->x ? b->x - x : x > b->x + b->w ? x - b->x - b->w : 0;
	double dy = y < b->y ? b->y - y : y > b->y + b->h ? y - b->y - b->h : 0;
	return dx * dx + dy * dy;
}

/* Everything moved so that the drawing starts at (1, 0): a column to the left for the selection's marker. */
static void normalise(struct dot_cells *c)
{
	int32_t minx = INT32_MAX, miny = INT32_MAX, maxx = INT32_MIN, maxy = INT32_MIN;

#define SEE(x0, y0, x1, y1)                                                                                   \
	do {                                                                                                   \
		if ((x0) < minx) minx = (x0);                                                                  \
		if ((y0) < miny) miny = (y0);                                                                  \
		if ((x1) > maxx) maxx = (x1);                                                                  \
		if ((y1) > maxy) maxy = (y1);                                                                  \
	} while (0)
	for (uint32_t i = 0; i < c->n_boxes; i++)
		SEE(c->boxes[i].x, c->boxes[i].y, c->boxes[i].x + c->boxes[i].w - 1, c->boxes[i].y + c->boxes[i].h - 1);
	for (uint32_t i = 0; i < c->n_edges; i++) {
		const struct dot_cell_edge *e = &c->edges[i];
		for (uint32_t k = 0; k < e->n_points; k++)
			SEE(e->points[k].x, e->points[k].y, e->points[k].x, e->points[k].y);
		if (*e->label)
			SEE(e->label_x, e->label_y, e->label_x + (int32_t)code_points(e->label) - 1, e->label_y);
	}
#undef SEE
	if (minx > maxx) {
		c->width = c->height = 0;
		return;
	}
	int32_t dx = 1 - minx, dy = -miny;
	for (uint32_t i = 0; i < c->n_boxes; i++)
		c->boxes[i].x += dx, c->boxes[i].y += dy;
	for (uint32_t i = 0; i < c->n_edges; i++) {
		struct dot_cell_edge *e = &c->edges[i];
		for (uint32_t k = 0; k < e->n_points; k++)
			e->points[k].x += dx, e->points[k].y += dy;
		e->label_x += dx, e->label_y += dy;
	}
	c->width = maxx + dx + 1;
	c->height = maxy + dy + 1;
}

/* What a layout is built from: the scene, the Graphviz graph, and which is which. */
struct build {
	const struct dot_cells_options *opt;
	int maxw;
	struct scene *s;
	Agraph_t *G;
	GVC_t *gvc;
	struct dot_cells *c;
	Agnode_t **gvn, **stub; /* per scene box: its Graphviz node, the stub standing for it (or NULL) */
	int32_t *cell_box, *stub_box; /* per scene box: the index of its box, of its stub, in c (or -1) */
	Agedge_t **gve;         /* per edge of c: its Graphviz edge */
	struct dot_cell_frame f;
};

static void build_free(struct build *B)
{
	dot_layout_free(B->gvc, B->G);
	dot_free(B->G);
	scene_free(B->s);
	free(B->gvn);
	free(B->stub);
	free(B->cell_box);
	free(B->stub_box);
	free(B->gve);
}

/* The boxes: which Graphviz node is which scene box (src/graphviz/dot.h names them), the kept boxes in the scene's order
 * first, then the stubs, and the focused one. */
static int match_boxes(struct build *B, const struct graph *g, struct ov_error *err)
{
	const struct scene *s = B->s;
	struct dot_cells *c = B->c;
	int32_t *in_box = malloc((g->n_values + 1) * sizeof *in_box), *out_box = malloc((g->n_values + 1) * sizeof *out_box);
	int rc = -1;

	if (!in_box || !out_box) {
		ov_fail(err, OV_NOMEM, "out of memory laying out the neighbourhood");
		goto out;
	}
	for (uint32_t v = 0; v < g->n_values; v++)
		in_box[v] = out_box[v] = -1;
	for (uint32_t i = 0; i < s->n_boxes; i++) {
		if (s->boxes[i].kind == BOX_INPUT && (uint32_t)s->boxes[i].ref < g->n_values)
			in_box[s->boxes[i].ref] = (int32_t)i;
		if (s->boxes[i].kind == BOX_OUTPUT && (uint32_t)s->boxes[i].ref < g->n_values)
			out_box[s->boxes[i].ref] = (int32_t)i;
		B->cell_box[i] = B->stub_box[i] = -1;
	}
	for (Agnode_t *n = agfstnode(B->G); n; n = agnxtnode(B->G, n)) {
		int is_stub;
		int64_t i = box_of_name(s, in_box, out_box, g->n_values, agnameof(n), &is_stub);
		if (i < 0) {
			ov_fail(err, OV_INVALID, "Graphviz node '%s' stands for no box", agnameof(n));
			goto out;
		}
		(is_stub ? B->stub : B->gvn)[i] = n;
	}
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < s->n_boxes; i++) {
			if (!(pass ? B->stub[i] : B->gvn[i]))
				continue;
			(pass ? B->stub_box : B->cell_box)[i] = (int32_t)c->n_boxes;
			if (fill_box(&c->boxes[c->n_boxes++], &s->boxes[i], i, pass, B->maxw, B->opt->ascii)) {
				ov_fail(err, OV_NOMEM, "out of memory laying out the neighbourhood");
				goto out;
			}
		}
	/* The focused box, as dot_build finds it: a folded Constant stands for its consumer. */
	uint32_t focus = B->opt->focus;
	int32_t fb = focus < s->n_nodes ? s->node_box[focus] : -1;
	if (fb < 0 && focus < g->n_nodes && present_node_n_outputs(g, focus)) {
		int32_t v = g->nodes[focus].out[0];
		if (v >= 0 && g->values[v].n_uses)
			fb = s->node_box[g->values[v].uses[0].node];
	}
	if (fb < 0 || B->cell_box[fb] < 0) {
		ov_fail(err, OV_INVALID, "node #%u is not drawn", focus);
		goto out;
	}
	c->focus_box = (uint32_t)B->cell_box[fb];
	c->boxes[c->focus_box].focus = 1;
	rc = 0;
out:
	free(in_box);
	free(out_box);
	return rc;
}

/* Sizes in points: a box of w x h cells is w * DOT_CELL_W_PT by h * DOT_CELL_H_PT points (whole points, so
 * Graphviz's rounding keeps them), whatever its label says. */
static void size_boxes(struct build *B)
{
	char buf[64];

	agattr(B->G, AGNODE, "fixedsize", "true");
	agattr(B->G, AGNODE, "width", "0.75");
	snprintf(buf, sizeof buf, "%.6f", NODESEP_CELLS * DOT_CELL_W_PT / 72.0);
	agsafeset(B->G, "nodesep", buf, "");
	snprintf(buf, sizeof buf, "%.6f", RANKSEP_CELLS * DOT_CELL_H_PT / 72.0);
	agsafeset(B->G, "ranksep", buf, "");
	for (uint32_t i = 0; i < B->s->n_boxes; i++)
		for (int pass = 0; pass < 2; pass++) {
			Agnode_t *n = pass ? B->stub[i] : B->gvn[i];
			if (!n)
				continue;
			const struct dot_cell_box *cb = &B->c->boxes[(pass ? B->stub_box : B->cell_box)[i]];
			snprintf(buf, sizeof buf, "%.6f", cb->w * DOT_CELL_W_PT / 72.0);
			agsafeset(n, "width", buf, "");
			snprintf(buf, sizeof buf, "%.6f", cb->h * DOT_CELL_H_PT / 72.0);
			agsafeset(n, "height", buf, "");
			agsafeset(n, "label", "", "");
		}
}

/* The edges: each scene edge is the next Graphviz edge between the same two nodes not yet matched (dot_build
 * made them in the scene's order).  Its label gets the room its text needs as an empty HTML table of that size,
 * so no font is ever measured: two columns from the edge and two after, and two rows, the text on the upper one
 * and the lower one free for the edge's run across to its target.  Returns -1 when out of memory. */
static int match_edges(struct build *B)
{
	const struct scene *s = B->s;
	struct dot_cells *c = B->c;
	Agnode_t **gvn = B->gvn, **stub = B->stub;
	uint8_t *taken = calloc((size_t)agnedges(B->G) + 2, 1);
	struct strbuf b = {0};
	int rc = -1;

	if (!taken)
		return -1;
	for (uint32_t k = 0; k < s->n_edges; k++) {
		const struct scene_edge *se = &s->edges[k];
		Agnode_t *t = gvn[se->src] ? gvn[se->src] : stub[se->src], *h = gvn[se->dst] ? gvn[se->dst] : stub[se->dst];
		Agedge_t *e = NULL;
		if ((!gvn[se->src] && !gvn[se->dst]) || !t || !h)
			continue;
		for (e = agfstout(B->G, t); e; e = agnxtout(B->G, e))
			if (aghead(e) == h && AGSEQ(e) < (uint64_t)agnedges(B->G) + 2 && !taken[AGSEQ(e)])
				break;
		if (!e)
			continue;
		taken[AGSEQ(e)] = 1;
		struct dot_cell_edge *ce = &c->edges[c->n_edges];
		ce->src = (uint32_t)(gvn[se->src] ? B->cell_box[se->src] : B->stub_box[se->src]);
		ce->dst = (uint32_t)(gvn[se->dst] ? B->cell_box[se->dst] : B->stub_box[se->dst]);
		ce->value = se->value;
		ce->cut = !gvn[se->src] || !gvn[se->dst];
		ce->inferred = se->inferred;
		strbuf_reset(&b);
		if (*se->label) {
			if (se->inferred)
				strbuf_puts(&b, B->opt->ascii ? "~" : "\xe2\x89\x88");
			put_clipped(&b, se->label, LABEL_MAX, B->opt->ascii);
		}
		if (b.failed || !(ce->label = strdup(strbuf_str(&b))))
			goto out;
		B->gve[c->n_edges++] = e;
		if (*ce->label) {
			char html[400];
			snprintf(html, sizeof html,
				 "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"0\"><TR><TD FIXEDSIZE="
				 "\"TRUE\" WIDTH=\"%d\" HEIGHT=\"%d\"></TD></TR></TABLE>",
				 (int)((code_points(ce->label) + 4) * DOT_CELL_W_PT), (int)(2 * DOT_CELL_H_PT));
			char *hs = agstrdup_html(B->G, html);
			if (!hs)
				goto out;
			agsafeset(e, "label", hs, "");
			agstrfree(B->G, hs);
		} else {
			agsafeset(e, "label", "", "");
		}
	}
	rc = 0;
out:
	free(taken);
	strbuf_free(&b);
	return rc;
}

/* After the layout: the boxes where dot put them. */
static void place_boxes(struct build *B)
{
	for (uint32_t i = 0; i < B->s->n_boxes; i++)
		for (int pass = 0; pass < 2; pass++) {
			Agnode_t *n = pass ? B->stub[i] : B->gvn[i];
			if (!n)
				continue;
			struct dot_cell_box *cb = &B->c->boxes[(pass ? B->stub_box : B->cell_box)[i]];
			struct dot_cell_point p = dot_cells_box_at(&B->f, ND_coord(n).x, ND_coord(n).y, cb->w, cb->h);
			cb->x = p.x;
			cb->y = p.y;
		}
}

/* The labels where dot kept room for them (INT32_MIN when it kept none); their rows, sorted, in *rows. */
static int place_labels(struct build *B, int32_t **rows, size_t *n_rows)
{
	struct dot_cells *c = B->c;

	*n_rows = 0;
	*rows = malloc((c->n_edges + 1) * sizeof **rows);
	if (!*rows)
		return -1;
	for (uint32_t k = 0; k < c->n_edges; k++) {
		struct dot_cell_edge *ce = &c->edges[k];
		textlabel_t *lab = ED_label(B->gve[k]);
		ce->label_x = ce->label_y = INT32_MIN;
		if (!*ce->label || !lab || !lab->set)
			continue;
		/* dot centred the room for it at pos: the text goes on its upper row, two columns from its left */
		ce->label_x = (int32_t)floor(dot_cells_col(&B->f, lab->pos.x) - (code_points(ce->label) + 4) / 2.0 + 0.5) + 2;
		ce->label_y = (int32_t)floor(dot_cells_row(&B->f, lab->pos.y) - 1 + 0.5);
		/* The edge runs two columns left of the text: off the border column of a box it leaves or enters right
		 * there, which would make it do so by a corner (the room has a column to spare either side). */
		const struct dot_cell_box *ends[2] = {&c->boxes[ce->src], &c->boxes[ce->dst]};
		for (int i = 0; i < 2; i++) {
			if (i ? ce->label_y < ends[i]->y - 4 : ce->label_y > ends[i]->y + ends[i]->h + 2)
				continue;
			if (ce->label_x - 2 == ends[i]->x)
				ce->label_x++;
			else if (ce->label_x - 2 == ends[i]->x + ends[i]->w - 1)
				ce->label_x--;
		}
		(*rows)[(*n_rows)++] = ce->label_y;
	}
	qsort(*rows, *n_rows, sizeof **rows, cmp_i32);
	return 0;
}

/* Every edge's path along dot's spline, off the label rows and the other boxes. */
static int route_edges(struct build *B, const int32_t *label_rows, size_t n_label_rows)
{
	struct dot_cells *c = B->c;
	struct dot_cell_rect *rects = malloc((c->n_boxes + 1) * sizeof *rects);

	if (!rects)
		return -1;
	for (uint32_t i = 0; i < c->n_boxes; i++) {
		rects[i].x = c->boxes[i].x, rects[i].y = c->boxes[i].y;
		rects[i].w = c->boxes[i].w, rects[i].h = c->boxes[i].h;
	}
	for (uint32_t k = 0; k < c->n_edges; k++) {
		struct dot_cell_edge *ce = &c->edges[k];
		const struct dot_cell_box *sb = &c->boxes[ce->src], *db = &c->boxes[ce->dst];
		struct dot_cell_rect sr = {sb->x, sb->y, sb->w, sb->h}, dr = {db->x, db->y, db->w, db->h};
		double *xy;
		size_t n;
		if (spline_cells(B->gve[k], &B->f, &xy, &n)) {
			free(rects);
			return -1;
		}
		/* dot may have drawn an edge it turned round (a cycle) from head to tail */
		if (n >= 2 && rect_dist2(sb, xy[0], xy[1]) > rect_dist2(sb, xy[2 * n - 2], xy[2 * n - 1]))
			for (size_t i = 0; i < n / 2; i++) {
				double tx = xy[2 * i], ty = xy[2 * i + 1];
				xy[2 * i] = xy[2 * (n - 1 - i)];
				xy[2 * i + 1] = xy[2 * (n - 1 - i) + 1];
				xy[2 * (n - 1 - i)] = tx;
				xy[2 * (n - 1 - i) + 1] = ty;
			}
		/* dot's edge passes just left of its label's room, where the label's text row is */
		int placed = ce->label_y != INT32_MIN;
		struct dot_cell_point by = {placed ? ce->label_x - 2 : 0, placed ? ce->label_y : 0};
		struct dot_cell_route_hints hints = {placed ? &by : NULL, label_rows, n_label_rows, rects, c->n_boxes};
		int r = dot_cells_route(xy, n, &sr, &dr, &hints, &ce->points, &ce->n_points);
		free(xy);
		if (r) {
			free(rects);
			return -1;
		}
		if (!placed) { /* no room from dot (or no label): beside the edge, under its source */
			ce->label_x = ce->points[0].x + 2;
			ce->label_y = ce->points[0].y;
		}
	}
	free(rects);
	return 0;
}

int dot_cells_layout(struct dot_cells **out, struct ov_model *m, const struct graph *g, const struct shapes *sh,
		     const struct dot_cells_options *opt, struct ov_error *err)
{
	int radius = opt->radius < 0 ? 0 : opt->radius > DOT_CELLS_MAX_RADIUS ? DOT_CELLS_MAX_RADIUS : opt->radius;
	struct dot_options dopt = {.use_focus = 1, .focus = opt->focus, .radius = radius};
	struct build B = {.opt = opt, .maxw = opt->max_width > 10 ? opt->max_width : 34};
	struct scene_options so = {B.maxw, opt->ascii};
	int32_t *label_rows = NULL;
	size_t n_label_rows = 0;
	int nodes;

	*out = NULL;
	if (dot_build(&B.G, m, g, sh, &dopt, err))
		return -1;
	nodes = dot_node_count(B.G);
	if (nodes > DOT_LAYOUT_MAX_NODES) {
		ov_fail(err, OV_LIMIT, "%d boxes within %d edge%s of #%u, more than Graphviz lays out quickly (%d)%s", nodes,
			radius, radius == 1 ? "" : "s", opt->focus, DOT_LAYOUT_MAX_NODES,
			radius ? ": make the radius smaller" : "");
		goto fail;
	}
	if (scene_build(&B.s, m, g, sh, &so, err))
		goto fail;
	B.c = calloc(1, sizeof *B.c);
	B.gvn = calloc(B.s->n_boxes + 1, sizeof *B.gvn);
	B.stub = calloc(B.s->n_boxes + 1, sizeof *B.stub);
	B.cell_box = malloc((B.s->n_boxes + 1) * sizeof *B.cell_box);
	B.stub_box = malloc((B.s->n_boxes + 1) * sizeof *B.stub_box);
	B.gve = calloc((size_t)agnedges(B.G) + 1, sizeof *B.gve);
	if (!B.c || !B.gvn || !B.stub || !B.cell_box || !B.stub_box || !B.gve)
		goto oom;
	B.c->boxes = calloc((size_t)nodes + 1, sizeof *B.c->boxes);
	B.c->edges = calloc((size_t)agnedges(B.G) + 1, sizeof *B.c->edges);
	if (!B.c->boxes || !B.c->edges)
		goto oom;
	if (match_boxes(&B, g, err))
		goto fail;
	size_boxes(&B);
	if (match_edges(&B))
		goto oom;
	if (ovdot_layout(&B.gvc, B.G, err))
		goto fail;
	boxf bb = GD_bb(B.G);
	B.f.left_pt = bb.LL.x;
	B.f.top_pt = bb.UR.y;
	place_boxes(&B);
	if (place_labels(&B, &label_rows, &n_label_rows) || route_edges(&B, label_rows, n_label_rows))
		goto oom;
	normalise(B.c);
	*out = B.c;
	B.c = NULL;
	free(label_rows);
	build_free(&B);
	return 0;
oom:
	ov_fail(err, OV_NOMEM, "out of memory laying out the neighbourhood");
fail:
	free(label_rows);
	dot_cells_free(B.c);
	build_free(&B);
	return -1;
}
