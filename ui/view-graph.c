/* The graph view: boxes from the core's scene placed by the core's layout, edges routed in the gaps, and a
 * selection that moves along the edges (to the producer, the consumers, the neighbours in a rank). Only what
 * crosses the viewport is drawn, so a 50,000-node graph scrolls as fast as a small one. */
#include "config.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/graph/function.h"
#include "src/model/describe.h"
#include "src/present/layout.h"
#include "src/present/scene-fold.h"
#include "src/report/report.h"
#include "ui/app.h"
#include "ui/paint.h"

struct graph_view {
	const struct graph *g;
	int is_main;
	int32_t parent_node; /* for a subgraph: the node of the main graph that owns it */
	/* for a local function's body: the graph made for it, which the view owns */
	struct graph_body *body;
	struct graph *own;
	uint32_t sub_index;
	struct scene *scene;
	struct layout *layout;
	uint32_t sel;
	int port;            /* -1, or an index into the selected box's edges: inputs first, then outputs */
	int32_t vx, vy;
	int follow;
	uint32_t *visible;
	size_t cap_visible;
	struct paint_canvas canvas;
	/* for search (made at the first one, dropped with the scene): each box's outgoing edges, each group's nodes */
	uint32_t *out_first, *out_edge, *mem_first, *mem_node;
	/* folding by module scope (src/present/scene-fold.h): on by itself for large graphs */
	int fold_on;
	char **expanded;
	size_t n_expanded;
};

#define FOLD_ABOVE 300 /* graphs with more nodes open folded, showing about this many boxes */

static void search_index_free(struct graph_view *gv);

static void gv_free_layout(struct graph_view *gv)
{
	search_index_free(gv);
	layout_free(gv->layout);
	scene_free(gv->scene);
	gv->layout = NULL;
	gv->scene = NULL;
}

static int gv_build(struct app *a, struct graph_view *gv)
{
	struct ov_error e;
	struct scene_options so = {34, a->opts.ascii};

	gv_free_layout(gv);
	if (scene_build(&gv->scene, a->m, gv->g, app_shapes(a), &so, &e)) {
		app_message(a, 1, "%s", e.msg);
		return -1;
	}
	if (!gv->fold_on && !gv->expanded && gv->g->n_nodes > FOLD_ABOVE) {
		if (scene_auto_expand(gv->g, FOLD_ABOVE, &gv->expanded, &gv->n_expanded, &e) == 0)
			gv->fold_on = 1;
		if (!gv->expanded)
			gv->expanded = calloc(1, sizeof *gv->expanded); /* marks auto-folding as done */
	}
	if (gv->fold_on && scene_fold(gv->scene, gv->g, gv->expanded, gv->n_expanded, a->opts.ascii, &e))
		app_message(a, 1, "%s", e.msg);
	struct scene *s = gv->scene;
	uint16_t *w = malloc((s->n_boxes + 1) * sizeof *w), *h = malloc((s->n_boxes + 1) * sizeof *h);
	uint32_t *src = malloc((s->n_edges + 1) * sizeof *src), *dst = malloc((s->n_edges + 1) * sizeof *dst);
	int rc = -1;
	if (w && h && src && dst) {
		for (uint32_t i = 0; i < s->n_boxes; i++)
			w[i] = s->boxes[i].w, h[i] = s->boxes[i].h;
		for (uint32_t i = 0; i < s->n_edges; i++)
			src[i] = s->edges[i].src, dst[i] = s->edges[i].dst;
		struct layout_input in = {s->n_boxes, w, h, s->n_edges, src, dst};
		rc = layout_compute(&gv->layout, &in, NULL, &e);
		if (rc)
			app_message(a, 1, "%s", e.msg);
	}
	free(w);
	free(h);
	free(src);
	free(dst);
	if (gv->sel >= s->n_boxes)
		gv->sel = 0;
	gv->port = -1;
	gv->follow = 1;
	return rc;
}

/* Edges of box b: inputs (dst == b) then outputs (src == b); returns the edge index of port k, or -1. */
static int32_t port_edge(const struct scene *s, uint32_t b, int k, int *is_input)
{
	int n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (uint32_t e = 0; e < s->n_edges; e++)
			if ((pass == 0 ? s->edges[e].dst : s->edges[e].src) == b && n++ == k) {
				*is_input = pass == 0;
				return (int32_t)e;
			}
	return -1;
}

static int port_count(const struct scene *s, uint32_t b)
{
	int n = 0;

	for (uint32_t e = 0; e < s->n_edges; e++)
		n += (s->edges[e].dst == b) + (s->edges[e].src == b);
	return n;
}

/* The route of an edge into the canvas: its runs, and an arrow just above the target's top border. */
static void paint_route(struct paint_canvas *cv, const struct layout_edge_route *r, int hot)
{
	for (uint32_t p = 0; p + 1 < r->n_points; p++)
		paint_canvas_segment(cv, r->points[p].x, r->points[p].y, r->points[p + 1].x, r->points[p + 1].y, hot);
	if (r->n_points >= 2) {
		struct layout_point end = r->points[r->n_points - 1], prev = r->points[r->n_points - 2];
		if (prev.x == end.x && prev.y < end.y - 1)
			paint_canvas_arrow(cv, end.x, end.y - 1, PAINT_ARROW_DOWN, hot);
	}
}

/* The constant inputs of box b that have no edge (drawn as rows inside it), at most max of them: Tab visits them
 * after the edges.  Returns their count. */
static int const_ports(const struct graph_view *gv, uint32_t b, int32_t *ids, int max)
{
	const struct scene *s = gv->scene;
	const struct scene_box *bx = &s->boxes[b];
	int n = 0;

	if (bx->kind != BOX_NODE)
		return 0;
	const struct graph_node *gn = &gv->g->nodes[bx->ref];
	for (uint32_t k = 0; k < present_node_n_inputs(gv->g, (uint32_t)bx->ref) && n < max; k++) {
		int32_t id = gn->in[k], seen = 0;
		if (id < 0 || !graph_value_resolve(gv->g, id, NULL)->constant)
			continue;
		for (uint32_t e = 0; e < s->n_edges && !seen; e++)
			seen = s->edges[e].dst == b && s->edges[e].value == id;
		for (int j = 0; j < n && !seen; j++)
			seen = ids[j] == id;
		if (!seen)
			ids[n++] = id;
	}
	return n;
}

/* The constant the selected port stands for (Tab moved to a constant input), or -1. */
static int32_t port_constant(const struct graph_view *gv)
{
	int32_t ids[64];
	int ne = port_count(gv->scene, gv->sel);

	if (gv->port < ne)
		return -1;
	int nc = const_ports(gv, gv->sel, ids, 64);
	return gv->port - ne < nc ? ids[gv->port - ne] : -1;
}

static void draw_box(struct app *a, const struct scene_box *bx, int32_t x, int32_t y, int top, int rows, int cols,
		     int selected)
{
	struct paint_box pb = {
		.kind = bx->kind == BOX_NODE ? PAINT_NODE : bx->kind == BOX_GROUP ? PAINT_GROUP : PAINT_IO,
		.cat = bx->cat,
		.title = bx->title,
		.name = bx->name,
		.lines = bx->lines,
		.n_lines = bx->n_lines,
		.w = bx->w,
		.h = bx->h,
		.index = bx->kind == BOX_NODE ? bx->ref : -1,
		.selected = selected,
		.mark = bx->kind == BOX_NODE ? app_node_mark(a, bx->ref) : 0,
	};

	paint_box(a, &pb, x, y, top, rows, cols);
}

static void gv_follow(struct graph_view *gv, int rows, int cols)
{
	const struct layout *l = gv->layout;
	const struct scene_box *bx = &gv->scene->boxes[gv->sel];
	int32_t x = l->x[gv->sel], y = l->y[gv->sel];

	if (!gv->follow)
		return;
	gv->follow = 0;
	if (x < gv->vx || x + bx->w > gv->vx + cols || y < gv->vy || y + bx->h > gv->vy + rows) {
		gv->vx = x + bx->w / 2 - cols / 2;
		gv->vy = y + bx->h / 2 - rows / 3;
	}
	if (gv->vx > l->width - cols)
		gv->vx = l->width - cols;
	if (gv->vx < -2)
		gv->vx = -2;
	if (gv->vy < -1)
		gv->vy = -1;
}

static void gv_draw(struct app *a, struct view *v, int top, int rows, int cols)
{
	struct graph_view *gv = v->data;
	const struct scene *s = gv->scene;

	if (!s || !gv->layout || !s->n_boxes) {
		ui_text(top + 1, 2, 0, cols, "(the graph is empty)", 0);
		return;
	}
	gv_follow(gv, rows, cols);
	int in_port = 0;
	int32_t pe = gv->port >= 0 ? port_edge(s, gv->sel, gv->port, &in_port) : -1;
	if (paint_canvas_reset(&gv->canvas, gv->vx, gv->vy, rows, cols) == 0) {
		for (uint32_t e = 0; e < s->n_edges; e++)
			if ((int32_t)e != pe)
				paint_route(&gv->canvas, &gv->layout->routes[e], 0);
		if (pe >= 0) /* the selected port's edge last, so that it wins where edges share cells */
			paint_route(&gv->canvas, &gv->layout->routes[pe], 1);
		paint_canvas_draw(a, &gv->canvas, top);
	}
	for (uint32_t e = 0; e < s->n_edges; e++) {
		const struct layout_edge_route *r = &gv->layout->routes[e];
		/* The shape of the value, beside the edge just under its source. */
		if (r->n_points && s->edges[e].label[0]) {
			struct layout_point p = r->points[0];
			int32_t y = p.y + 1 - gv->vy, x = p.x + 2 - gv->vx;
			/* Shapes onnxview inferred (the model declares none) are marked, so nobody mistakes them for the
			 * exporter's word. */
			if (y >= 0 && y < rows && x < cols) {
				char lab[160];
				snprintf(lab, sizeof lab, "%s%s", s->edges[e].inferred ? (a->opts.ascii ? "~" : "\xe2\x89\x88") : "",
					 s->edges[e].label);
				ui_text(top + y, x, 0, cols, lab, ui_attr(a, UI_DIM));
			}
		}
	}
	if (gv->cap_visible < s->n_boxes) {
		free(gv->visible);
		gv->visible = malloc(s->n_boxes * sizeof *gv->visible);
		gv->cap_visible = gv->visible ? s->n_boxes : 0;
	}
	size_t n = gv->visible ? layout_visible(gv->layout, gv->vx, gv->vy, gv->vx + cols, gv->vy + rows, gv->visible,
						 gv->cap_visible) : 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t b = gv->visible[k];
		draw_box(a, &s->boxes[b], gv->layout->x[b] - gv->vx, gv->layout->y[b] - gv->vy, top, rows, cols,
			 b == gv->sel);
	}
}

static void select_box(struct graph_view *gv, uint32_t b)
{
	gv->sel = b;
	gv->port = -1;
	gv->follow = 1;
}

/* The neighbour in the same rank, nearest to the left (dir < 0) or right. */
static int32_t rank_neighbour(const struct graph_view *gv, int dir)
{
	const struct layout *l = gv->layout;
	int32_t best = -1, bx = l->x[gv->sel];

	for (uint32_t b = 0; b < gv->scene->n_boxes; b++) {
		if (b == gv->sel || l->rank[b] != l->rank[gv->sel])
			continue;
		int32_t d = (l->x[b] - bx) * dir;
		if (d > 0 && (best < 0 || d < (l->x[best] - bx) * dir))
			best = (int32_t)b;
	}
	return best;
}

/* Open a folded scope (Enter on a group box), or fold the innermost open scope of the selected node (z). */
static void fold_change(struct app *a, struct graph_view *gv, int open)
{
	const struct scene_box *bx = &gv->scene->boxes[gv->sel];
	int32_t node = bx->ref;
	char *scope = NULL;

	if (open) {
		scope = strdup(bx->name);
		char **nl = scope ? realloc(gv->expanded, (gv->n_expanded + 1) * sizeof *nl) : NULL;
		if (!nl) {
			free(scope);
			return;
		}
		gv->expanded = nl;
		gv->expanded[gv->n_expanded++] = scope;
	} else {
		const char *name = bx->kind == BOX_NODE ? present_node_name(gv->g, (uint32_t)node) : bx->name;
		size_t best = (size_t)-1, best_len = 0;
		for (size_t i = 0; i < gv->n_expanded; i++) {
			size_t l = strlen(gv->expanded[i]);
			if (!strncmp(name, gv->expanded[i], l) && name[l] == '/' && l > best_len)
				best = i, best_len = l;
		}
		if (best == (size_t)-1) {
			app_message(a, 1, "this box is not inside an open module scope (PyTorch names like /layer1/conv1/Conv)");
			return;
		}
		free(gv->expanded[best]);
		gv->expanded[best] = gv->expanded[--gv->n_expanded];
	}
	gv->fold_on = 1;
	if (gv_build(a, gv))
		return;
	/* Keep the same node (or its new group) selected. */
	if (node >= 0 && (uint32_t)node < gv->scene->n_nodes && gv->scene->node_box[node] >= 0)
		gv->sel = (uint32_t)gv->scene->node_box[node];
	if (!open && node >= 0 && gv->scene->node_box[node] >= 0 && gv->scene->boxes[gv->sel].kind == BOX_NODE)
		app_message(a, 0, "a scope of fewer than %d nodes stays open", SCOPE_FOLD_MIN);
	else
		app_message(a, 0, open ? "opened %s (z folds it again)" : "folded the scope",
			    open ? gv->expanded[gv->n_expanded - 1] : "");
}

static void open_panel(struct app *a, struct graph_view *gv)
{
	const struct scene_box *bx = &gv->scene->boxes[gv->sel];

	if (bx->kind == BOX_GROUP) {
		fold_change(a, gv, 1);
		return;
	}

	if (bx->kind == BOX_NODE) {
		app_push(a, view_node_new(a, gv->g, (uint32_t)bx->ref));
	} else {
		struct strbuf b = {0};
		present_value_text(&b, a->m, gv->g, app_shapes(a), bx->ref);
		app_push(a, view_text_new(bx->kind == BOX_INPUT ? "graph input" : "graph output", strbuf_str(&b), NULL, 0));
		strbuf_free(&b);
	}
}

/* T: the tensor view of the selection's constant: a Constant node's value, else the node's first constant input;
 * for a graph input or output box, its own value. */
static void open_tensor(struct app *a, struct graph_view *gv)
{
	const struct scene_box *bx = &gv->scene->boxes[gv->sel];
	int32_t id = -1;

	if (bx->kind == BOX_INPUT || bx->kind == BOX_OUTPUT) {
		id = bx->ref;
	} else if (bx->kind != BOX_NODE) {
		app_message(a, 1, "select a node, or a graph input or output");
		return;
	} else if ((id = port_constant(gv)) < 0) {
		const struct graph_node *gn = &gv->g->nodes[bx->ref];
		if (present_node_n_outputs(gv->g, (uint32_t)bx->ref) && gn->out[0] >= 0 && graph_value_resolve(gv->g, gn->out[0], NULL)->constant)
			id = gn->out[0];
		for (uint32_t k = 0; id < 0 && k < present_node_n_inputs(gv->g, (uint32_t)bx->ref); k++)
			if (gn->in[k] >= 0 && graph_value_resolve(gv->g, gn->in[k], NULL)->constant)
				id = gn->in[k];
		if (id < 0) {
			app_message(a, 1, "this node has no constant input (Enter lists its inputs)");
			return;
		}
	}
	app_push(a, view_tensor_new(a, gv->g, id));
}

/* R: run up to the selected node (its outputs; a graph output box: that value); v: show what the run computed. */
static void run_action(struct app *a, struct graph_view *gv, enum action act)
{
	const struct scene_box *bx = &gv->scene->boxes[gv->sel];
	struct strbuf b = {0};
	const char *first = NULL;

	if (!gv->is_main) {
		app_message(a, 1, "runs start from the main graph (Esc leaves the subgraph)");
		return;
	}
	if (bx->kind == BOX_OUTPUT || bx->kind == BOX_INPUT) {
		first = gv->g->values[bx->ref].name;
		strbuf_puts(&b, first);
	} else if (bx->kind == BOX_NODE) {
		const struct graph_node *gn = &gv->g->nodes[bx->ref];
		for (uint32_t k = 0; k < present_node_n_outputs(gv->g, (uint32_t)bx->ref); k++)
			if (gn->out[k] >= 0) {
				if (act != ACT_RUN_TO) {
					strbuf_puts(&b, gv->g->values[gn->out[k]].name);
					break;
				}
				if (!first)
					first = gv->g->values[gn->out[k]].name;
				strbuf_printf(&b, "%s\"%s\"", b.len ? "," : "", gv->g->values[gn->out[k]].name);
			}
	} else {
		app_message(a, 1, "select a node (Enter opens a folded group)");
		return;
	}
	if (!b.len) {
		app_message(a, 1, "this node has no output to %s", act == ACT_RUN_TO ? "run to" : "show");
	} else if (act != ACT_RUN_TO) {
		struct view *tv = act == ACT_VIEW_DIFF ? view_tensor_diff(a, strbuf_str(&b)) : view_tensor_result(a, strbuf_str(&b));
		if (tv)
			app_push(a, tv);
	} else {
		struct strbuf args = {0};
		strbuf_printf(&args, "--to %s", strbuf_str(&b));
		app_run(a, strbuf_str(&args), first);
		strbuf_free(&args);
	}
	strbuf_free(&b);
}

static void prompt_edit(struct app *a, const char *prefill)
{
	char *line = prompt_read(a, ":", prefill, 1);

	if (line) {
		app_command(a, line);
		free(line);
	}
}

/* Key shortcuts that open the command line pre-filled for the selection. */
static void quick_edit(struct app *a, struct graph_view *gv, enum action act)
{
	const struct scene_box *bx = &gv->scene->boxes[gv->sel];
	char pre[1200];

	if (act == ACT_DYNAMIC_DIM) {
		if (bx->kind == BOX_NODE) {
			app_message(a, 1, "select a graph input or output box to change its dims");
			return;
		}
		snprintf(pre, sizeof pre, "set-dim %s 0 batch", bx->name);
	} else if (bx->kind != BOX_NODE) {
		app_message(a, 1, "select a node first");
		return;
	} else if (act == ACT_EDIT_ATTR) {
		snprintf(pre, sizeof pre, "set-attr #%d ", bx->ref);
	} else if (act == ACT_SWAP_OP) {
		snprintf(pre, sizeof pre, "set-op #%d ", bx->ref);
	} else { /* the constant Tab selected, else the input that matters for this op (src/present's table) */
		int32_t id = port_constant(gv);
		if (id < 0)
			id = present_edit_input(a->m, gv->g, (uint32_t)bx->ref);
		if (id < 0) {
			app_message(a, 1, "this node has no constant input to edit");
			return;
		}
		struct strbuf t = {0};
		present_edit_line(&t, a->m, gv->g, id, 16);
		snprintf(pre, sizeof pre, "%s", strbuf_str(&t));
		strbuf_free(&t);
	}
	prompt_edit(a, pre);
}

/* S on a node that calls a local function: its body as a graph of its own (the call's attributes where the body
 * refers to them, the inputs the call leaves out blanked), in a view that owns it and closes on edits. */
static int open_function_body(struct app *a, struct view *v, struct graph_view *gv, uint32_t node)
{
	struct graph_body *body = NULL;
	struct graph *g = NULL;
	struct ov_error e = {0};
	char fname[160];
	int r = graph_call_body(a->m, gv->g, node, &body, &g, fname, sizeof fname, &e);

	if (r > 0)
		app_message(a, 1, "this node has no subgraph and calls no local function");
	else if (r < 0)
		app_message(a, 1, "cannot open the function's body: %s", e.msg);
	if (r)
		return 1;
	char title[200];
	struct strbuf nm = {0};
	describe_name(&nm, fname);
	snprintf(title, sizeof title, "%s > #%u %s body", v->title, node, strbuf_str(&nm));
	strbuf_free(&nm);
	struct view *sv = view_graph_new(a, g, title);
	if (!sv) {
		graph_free(g);
		graph_body_free(body);
		free(body);
		return 1;
	}
	struct graph_view *sgv = sv->data;
	sgv->is_main = 0;
	sgv->body = body;
	sgv->own = g;
	app_push(a, sv);
	return 1;
}

static int gv_handle(struct app *a, struct view *v, enum action act, int key)
{
	struct graph_view *gv = v->data;
	const struct scene *s = gv->scene;
	int is_in = 0;

	if (!s || !s->n_boxes)
		return 0;
	if (act == ACT_FOLD) {
		fold_change(a, gv, 0);
		return 1;
	}
	if (act == ACT_OPEN_SUBGRAPH) { /* open the node's subgraph(s): If/Loop/Scan; or the body of the local function it calls */
		const struct scene_box *bx = &s->boxes[gv->sel];
		if (bx->kind == BOX_NODE && !gv->g->nodes[bx->ref].n_sub)
			return open_function_body(a, v, gv, (uint32_t)bx->ref);
		if (bx->kind != BOX_NODE) {
			app_message(a, 1, "this node has no subgraph");
			return 1;
		}
		const struct graph_node *gn = &gv->g->nodes[bx->ref];
		uint32_t k = gv->sub_index++ % gn->n_sub;
		char title[200];
		struct strbuf nm = {0};
		const char *gname = present_graph_name(gn->sub[k]);
		if (*gname && (!gn->sub_attr[k] || strcmp(gname, gn->sub_attr[k]))) {
			strbuf_puts(&nm, " '");
			describe_name(&nm, gname);
			strbuf_puts(&nm, "'");
		}
		snprintf(title, sizeof title, "%s > #%d %s.%s%s", v->title, bx->ref, present_node_op(gv->g, (uint32_t)bx->ref),
			 gn->sub_attr[k] ? gn->sub_attr[k] : "?", strbuf_str(&nm));
		strbuf_free(&nm);
		struct view *sv = view_graph_new(a, gn->sub[k], title);
		if (sv) {
			((struct graph_view *)sv->data)->is_main = 0;
			app_push(a, sv);
		}
		return 1;
	}
	switch (act) {
	case ACT_MOVE_DOWN:
	case ACT_MOVE_UP: {
		int down = act == ACT_MOVE_DOWN;
		int32_t e = gv->port >= 0 ? port_edge(s, gv->sel, gv->port, &is_in) : -1;
		if (e >= 0 && is_in == !down) {
			select_box(gv, down ? s->edges[e].dst : s->edges[e].src);
			return 1;
		}
		for (uint32_t k = 0; k < s->n_edges; k++)
			if ((down ? s->edges[k].src : s->edges[k].dst) == gv->sel) {
				select_box(gv, down ? s->edges[k].dst : s->edges[k].src);
				return 1;
			}
		app_message(a, 0, down ? "nothing consumes this" : "nothing feeds this");
		return 1;
	}
	case ACT_MOVE_LEFT:
	case ACT_MOVE_RIGHT: {
		int32_t b = rank_neighbour(gv, act == ACT_MOVE_LEFT ? -1 : 1);
		if (b >= 0)
			select_box(gv, (uint32_t)b);
		return 1;
	}
	case ACT_CYCLE_PORT: { /* the edges in and out, then the constant inputs drawn inside the box */
		int32_t ids[64];
		int ne = port_count(s, gv->sel), nc = const_ports(gv, gv->sel, ids, 64), n = ne + nc;
		gv->port = n ? (gv->port + 1) % n : -1;
		int32_t e = gv->port >= 0 && gv->port < ne ? port_edge(s, gv->sel, gv->port, &is_in) : -1;
		if (e >= 0) {
			const struct graph_value *val = &gv->g->values[s->edges[e].value];
			app_message(a, 0, "%s %d/%d: %s %s (j/k follows it)", is_in ? "input" : "output", gv->port + 1, n,
				    val->name, s->edges[e].label);
		} else if (gv->port >= ne) {
			struct strbuf t = {0};
			int32_t id = ids[gv->port - ne];
			present_value_type(&t, gv->g, app_shapes(a), id, NULL);
			app_message(a, 0, "constant %d/%d: %s %s (e edits it, T shows its values)", gv->port + 1, n,
				    gv->g->values[id].name, strbuf_str(&t));
			strbuf_free(&t);
		}
		return 1;
	}
	case ACT_PAGE_DOWN:
	case ACT_PAGE_UP:
		gv->vy += (act == ACT_PAGE_DOWN ? 1 : -1) * (a->rows > 6 ? a->rows - 4 : 2);
		return 1;
	case ACT_HOME: select_box(gv, 0); return 1;
	case ACT_END: select_box(gv, s->n_boxes - 1); return 1;
	case ACT_ENTER: open_panel(a, gv); return 1;
	case ACT_VIEW_TENSOR: open_tensor(a, gv); return 1;
	case ACT_VIEW_NEIGHBOURHOOD:
		if (!gv->is_main || s->boxes[gv->sel].kind != BOX_NODE)
			app_message(a, 1, gv->is_main ? "select a node (D lays out its neighbourhood)" : "D works in the main graph");
		else
			app_push(a, view_neighbourhood_new(a, (uint32_t)s->boxes[gv->sel].ref));
		return 1;
	case ACT_RUN_TO:
	case ACT_VIEW_RESULT:
	case ACT_VIEW_DIFF: run_action(a, gv, act); return 1;
	case ACT_VIEW_REFERENCE:
		if (s->boxes[gv->sel].kind == BOX_NODE)
			app_push(a, view_reference_new(a, present_node_domain(gv->g, (uint32_t)s->boxes[gv->sel].ref),
						       present_node_op(gv->g, (uint32_t)s->boxes[gv->sel].ref)));
		return 1;
	case ACT_EDIT_VALUE: case ACT_EDIT_ATTR: case ACT_SWAP_OP: case ACT_DYNAMIC_DIM:
		quick_edit(a, gv, act);
		return 1;
	default:
		break;
	}
	if (act == ACT_SCROLL_UP || act == ACT_SCROLL_DOWN) {
		gv->vy += act == ACT_SCROLL_UP ? -3 : 3;
		return 1;
	}
	if (act == ACT_CLICK) { /* the view starts under the title line */
		int32_t x = a->mouse_x + gv->vx, y = a->mouse_y - 1 + gv->vy;
		uint32_t hit[8];
		size_t n = layout_visible(gv->layout, x, y, x + 1, y + 1, hit, 8);
		if (n)
			gv->sel = hit[0], gv->port = -1;
		return 1;
	}
	return 0;
}

/* ---- search ---- */

/* A query: terms ANDed; a "quoted term" must equal a whole line, name or op, a plain one may be any part of it. */
struct query {
	char buf[256];
	char *term[16];
	int exact[16];
	int n;
};

static void query_parse(struct query *q, const char *text)
{
	char *save = NULL;

	snprintf(q->buf, sizeof q->buf, "%s", text);
	q->n = 0;
	for (char *t = strtok_r(q->buf, " ", &save); t && q->n < 16; t = strtok_r(NULL, " ", &save)) {
		int exact = t[0] == '"' && strlen(t) > 1 && t[strlen(t) - 1] == '"';
		if (exact) {
			t[strlen(t) - 1] = '\0';
			t++;
		}
		q->exact[q->n] = exact;
		q->term[q->n++] = t;
	}
}

static int text_hit(const char *text, const char *term, int exact)
{
	return exact ? !strcmp(text, term) : strstr(text, term) != NULL;
}

/* The edges out of each box and the nodes folded into each group box, as index lists (made at the first search
 * of a scene: the search then reads each box's own edges instead of every edge of the graph). */
static int search_index(struct graph_view *gv)
{
	const struct scene *s = gv->scene;

	if (gv->out_first)
		return 0;
	gv->out_first = calloc(s->n_boxes + 1, sizeof *gv->out_first);
	gv->out_edge = malloc((s->n_edges + 1) * sizeof *gv->out_edge);
	gv->mem_first = calloc(s->n_boxes + 1, sizeof *gv->mem_first);
	gv->mem_node = malloc((s->n_nodes + 1) * sizeof *gv->mem_node);
	if (!gv->out_first || !gv->out_edge || !gv->mem_first || !gv->mem_node)
		return -1;
	for (uint32_t e = 0; e < s->n_edges; e++)
		gv->out_first[s->edges[e].src + 1]++;
	for (uint32_t i = 0; i < s->n_nodes; i++)
		if (s->node_box[i] >= 0 && s->boxes[s->node_box[i]].kind == BOX_GROUP)
			gv->mem_first[s->node_box[i] + 1]++;
	for (uint32_t b = 0; b < s->n_boxes; b++) {
		gv->out_first[b + 1] += gv->out_first[b];
		gv->mem_first[b + 1] += gv->mem_first[b];
	}
	uint32_t *fill = calloc(s->n_boxes + 1, sizeof *fill);
	if (!fill)
		return -1;
	for (uint32_t e = 0; e < s->n_edges; e++)
		gv->out_edge[gv->out_first[s->edges[e].src] + fill[s->edges[e].src]++] = e;
	memset(fill, 0, (s->n_boxes + 1) * sizeof *fill);
	for (uint32_t i = 0; i < s->n_nodes; i++) {
		int32_t b = s->node_box[i];
		if (b >= 0 && s->boxes[b].kind == BOX_GROUP)
			gv->mem_node[gv->mem_first[b] + fill[b]++] = i;
	}
	free(fill);
	return 0;
}

static void search_index_free(struct graph_view *gv)
{
	free(gv->out_first);
	free(gv->out_edge);
	free(gv->mem_first);
	free(gv->mem_node);
	gv->out_first = gv->out_edge = gv->mem_first = gv->mem_node = NULL;
}

/* Every term is in the box's title, name, rows, or the shapes of its outgoing edges. */
static int box_matches(const struct graph_view *gv, uint32_t b, const struct query *q)
{
	const struct scene *s = gv->scene;
	const struct scene_box *bx = &s->boxes[b];

	for (int t = 0; t < q->n; t++) {
		const char *term = q->term[t];
		int ex = q->exact[t];
		int hit = text_hit(bx->title, term, ex) || text_hit(bx->name, term, ex);
		for (uint16_t l = 0; !hit && l < bx->n_lines; l++)
			hit = text_hit(bx->lines[l], term, ex);
		for (uint32_t k = gv->out_first[b]; !hit && k < gv->out_first[b + 1]; k++)
			hit = text_hit(s->edges[gv->out_edge[k]].label, term, ex);
		if (!hit)
			return 0;
	}
	return 1;
}

/* Every term is in the node's name or op (for the nodes a folded group hides). */
static int node_matches(const struct graph *g, uint32_t i, const struct query *q)
{
	for (int t = 0; t < q->n; t++)
		if (!text_hit(present_node_name(g, i), q->term[t], q->exact[t]) &&
		    !text_hit(present_node_op(g, i), q->term[t], q->exact[t]))
			return 0;
	return 1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void gv_goto_node(struct app *a, struct graph_view *gv, int32_t node);

static int gv_search(struct app *a, struct view *v, const char *text, int dir)
{
	struct graph_view *gv = v->data;
	uint32_t n = gv->scene ? gv->scene->n_boxes : 0;
	struct query q;

	query_parse(&q, text);
	if (!n || !q.n)
		return -1;
	/* A whole node or value name: straight from the graph's name index. */
	if (q.n == 1) {
		int32_t node = graph_find_node(gv->g, q.term[0]), id;
		if (node < 0 && (id = graph_value_id(gv->g, q.term[0])) >= 0 && gv->g->values[id].producer >= 0)
			node = gv->g->values[id].producer;
		if (node >= 0 && gv->scene->node_box[node] >= 0 && (uint32_t)gv->scene->node_box[node] != gv->sel) {
			gv_goto_node(a, gv, node);
			app_message(a, 0, "/%s: node #%d", text, node);
			return 0;
		}
	}
	if (search_index(gv)) {
		search_index_free(gv);
		app_message(a, 1, "out of memory searching");
		return 0;
	}
	/* Every box after the selection, and the nodes inside folded groups; where that takes long, the status line
	 * shows how far it got. */
	double t0 = now_ms();
	for (uint32_t k = 1; k <= n; k++) {
		uint32_t b = dir > 0 ? (gv->sel + k) % n : (gv->sel + n - k % n) % n;
		if ((k & 4095) == 0 && now_ms() - t0 > 100) {
			app_message(a, 0, "searching for %s: %u%% of %u boxes", text, (unsigned)((uint64_t)k * 100 / n), n);
			app_draw(a);
		}
		if (box_matches(gv, b, &q)) {
			select_box(gv, b);
			app_message(a, 0, "/%s", text);
			return 0;
		}
		for (uint32_t m = gv->mem_first[b]; m < gv->mem_first[b + 1]; m++)
			if (node_matches(gv->g, gv->mem_node[m], &q)) {
				uint32_t node = gv->mem_node[m]; /* the index goes with the scene that opening rebuilds */
				gv_goto_node(a, gv, (int32_t)node);
				app_message(a, 0, "/%s: node #%u", text, node);
				return 0;
			}
	}
	return -1;
}

static int gv_refresh(struct app *a, struct view *v)
{
	struct graph_view *gv = v->data;
	int32_t node = gv->scene && gv->sel < gv->scene->n_boxes && gv->scene->boxes[gv->sel].kind == BOX_NODE ?
			       gv->scene->boxes[gv->sel].ref : -1;
	uint32_t old_sel = gv->sel;

	if (!gv->is_main)
		return -1; /* subgraph pointers died with the old index: close it */
	gv->g = app_graph(a);
	v->graph = gv->g;
	if (!gv->g || gv_build(a, gv))
		return -1;
	if (node >= 0 && (uint32_t)node < gv->scene->n_nodes && gv->scene->node_box[node] >= 0)
		gv->sel = (uint32_t)gv->scene->node_box[node];
	else
		gv->sel = old_sel < gv->scene->n_boxes ? old_sel : 0;
	return 0;
}

static void gv_free(struct view *v)
{
	struct graph_view *gv = v->data;

	if (gv) {
		gv_free_layout(gv);
		free(gv->visible);
		paint_canvas_free(&gv->canvas);
		scope_list_free(gv->expanded, gv->n_expanded);
		graph_free(gv->own);
		if (gv->body)
			graph_body_free(gv->body);
		free(gv->body);
		free(gv);
	}
	free(v);
}

static const struct view_ops graph_ops = {
	.name = "graph",
	.draw = gv_draw,
	.handle = gv_handle,
	.reload = gv_refresh,
	.search = gv_search,
	.free = gv_free,
};

struct view *view_graph_new(struct app *a, const struct graph *g, const char *title)
{
	struct view *v = calloc(1, sizeof *v);
	struct graph_view *gv = calloc(1, sizeof *gv);

	if (!v || !gv) {
		free(v);
		free(gv);
		return NULL;
	}
	v->ops = &graph_ops;
	v->data = gv;
	snprintf(v->title, sizeof v->title, "%s", title);
	gv->g = g;
	v->graph = g;
	gv->is_main = g == app_graph(a);
	gv->parent_node = -1;
	if (gv_build(a, gv)) {
		gv_free(v);
		return NULL;
	}
	/* A graph without inputs (an If's branch) starts with its Constants, side by side in one wide row: open on
	 * the first node that computes something instead. */
	const struct scene *s = gv->scene;
	if (s->n_boxes && s->boxes[0].kind == BOX_NODE && !strcmp(s->boxes[0].title, "Constant"))
		for (uint32_t b = 1; b < s->n_boxes; b++)
			if (s->boxes[b].kind != BOX_NODE || strcmp(s->boxes[b].title, "Constant")) {
				select_box(gv, b);
				break;
			}
	return v;
}

/* Select node (of gv's graph) in gv: the scopes folded over it open, a folded Constant shows its consumer. */
static void gv_goto_node(struct app *a, struct graph_view *gv, int32_t node)
{
	if (!gv->scene || node < 0 || (uint32_t)node >= gv->scene->n_nodes)
		return;
	int32_t b = gv->scene->node_box[node];
	if (b >= 0 && gv->scene->boxes[b].kind == BOX_GROUP) { /* inside a folded scope: open every scope above it */
		const char *name = present_node_name(gv->g, (uint32_t)node);
		for (int d = 1;; d++) {
			size_t l = scope_prefix_len(name, d);
			char **nl;
			if (!l || !(nl = realloc(gv->expanded, (gv->n_expanded + 1) * sizeof *nl)))
				break;
			gv->expanded = nl;
			gv->expanded[gv->n_expanded] = strndup(name, l);
			if (gv->expanded[gv->n_expanded])
				gv->n_expanded++;
		}
		if (gv_build(a, gv))
			return;
		b = gv->scene->node_box[node];
	}
	if (b < 0) { /* a folded Constant: show its consumer */
		const struct graph_node *gn = &gv->g->nodes[node];
		if (gn->out[0] >= 0 && gv->g->values[gn->out[0]].n_uses)
			b = gv->scene->node_box[gv->g->values[gn->out[0]].uses[0].node];
		app_message(a, 0, "#%d is a Constant shown inside the box that uses it", node);
	}
	if (b >= 0)
		select_box(gv, (uint32_t)b);
}

void app_goto_node(struct app *a, int32_t node)
{
	while (a->n_views > 1)
		app_pop(a);
	gv_goto_node(a, a->views[0]->data, node);
}
