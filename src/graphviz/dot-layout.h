/* Graphviz's layout of a node's neighbourhood, brought back to character cells for a terminal: the boxes where dot
 * put them, at the size the TUI draws them, and each edge as a path of horizontal and vertical runs that follows
 * dot's spline.  Plain arrays, no curses: the TUI's neighbourhood view (ui/view-neighbourhood.c) draws them.
 *
 * Who calls: the TUI, when the user asks for the Graphviz layout of the selected node.  dot_cells_layout() builds
 * the graph `onnxview dot --focus NODE --radius N` draws (src/graphviz/dot.c's dot_build: the same boxes, stubs for the
 * boxes outside, the same Graphviz node names), then gives every Graphviz node the size of its box in cells and
 * every edge label the size of its text, lays it out with dot (through ovdot_layout(), so Graphviz's messages are
 * collected, never printed), and reads back the node centres (ND_coord), the edge splines (ED_spl) and the label
 * positions (ED_label).  The caller owns the result and releases it with dot_cells_free().
 *
 * One cell is DOT_CELL_W_PT points wide and DOT_CELL_H_PT points tall (about a terminal cell's 1:2), so the
 * geometry dot sees is the geometry the terminal shows.  (The prefix is dot_cells_ because src/graphviz/dot.h already has
 * ovdot_layout() for the Graphviz layout itself.) */
#ifndef OV_DOT_LAYOUT_H
#define OV_DOT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "src/base/error.h"
#include "src/present/present.h"

#define DOT_CELL_W_PT 8.0
#define DOT_CELL_H_PT 16.0
#define DOT_CELLS_MAX_RADIUS 50 /* beyond this a neighbourhood is the whole graph of any model worth drawing */

enum dot_cell_kind { DOT_CELL_NODE, DOT_CELL_INPUT, DOT_CELL_OUTPUT, DOT_CELL_STUB };

struct dot_cell_box {
	char gv_name[24];         /* the Graphviz node name: "n3", "i0", "o5", "s12" (src/graphviz/dot.h) */
	enum dot_cell_kind kind;
	enum box_kind stands_for; /* the box itself, or for a stub the kind of the box outside it stands for */
	int32_t ref;              /* node index (BOX_NODE) or value id (BOX_INPUT, BOX_OUTPUT), by stands_for */
	enum op_category cat;
	int focus;                /* the box of the node the neighbourhood is around */
	int32_t x, y;             /* top left cell, borders included; every box lies in [0, width) x [0, height) */
	uint16_t w, h;
	/* Text, escaped for a terminal: the op type ("Conv"; "input", "output"; a stub: "... Conv"), the node's name
	 * for its top border ("" for graph inputs and outputs), and the rows inside (a stub has none). */
	char *title, *name;
	char **lines;
	uint16_t n_lines;
};

struct dot_cell_point {
	int32_t x, y;
};

struct dot_cell_edge {
	uint32_t src, dst; /* box indices */
	int32_t value;     /* the value id it carries */
	int cut;           /* one end is a stub */
	int inferred;      /* the label is onnxview's inferred shape */
	char *label;       /* the value's shape, or "" */
	int32_t label_x, label_y; /* the label's first cell, where dot kept room for it (no path runs across there) */
	/* The path: points[0] is the cell just outside src's border, points[n_points - 1] the cell just outside
	 * dst's border (where the arrow goes); consecutive points share a row or a column, no two in a row are equal
	 * and no three in a row are on one line.  At least one point. */
	struct dot_cell_point *points;
	uint32_t n_points;
};

struct dot_cells {
	struct dot_cell_box *boxes; /* the neighbourhood's boxes in the scene's order, then the stubs */
	uint32_t n_boxes;
	struct dot_cell_edge *edges;
	uint32_t n_edges;
	uint32_t focus_box;
	int32_t width, height; /* the drawing's size in cells */
};

struct dot_cells_options {
	uint32_t focus; /* node index of g (a Constant folded into its consumer stands for that consumer) */
	int radius;     /* 0 to DOT_CELLS_MAX_RADIUS: boxes at most this many edges away */
	int ascii;      /* text without UTF-8 (dims as 1x8x48x48, "..." for the ellipsis) */
	int max_width;  /* widest box in cells (as struct scene_options; 0: 34) */
};

/* Lay out the neighbourhood of opt->focus in g (the main graph of m; sh may be NULL).  Returns 0 with *out set,
 * or -1 with err set: no such node, more than DOT_LAYOUT_MAX_NODES boxes (src/graphviz/dot.h), Graphviz failed (its own
 * words in the message), out of memory. */
int dot_cells_layout(struct dot_cells **out, struct ov_model *m, const struct graph *g, const struct shapes *sh,
		     const struct dot_cells_options *opt, struct ov_error *err);
void dot_cells_free(struct dot_cells *c);

/* ---- the pieces, for tests ---- */

/* Graphviz points to cells: x grows to the right from left_pt, y (which grows upwards in Graphviz) becomes a row
 * that grows downwards from top_pt.  Fractions are kept: cell c covers [c, c + 1). */
struct dot_cell_frame {
	double left_pt, top_pt;
};
double dot_cells_col(const struct dot_cell_frame *f, double x_pt);
double dot_cells_row(const struct dot_cell_frame *f, double y_pt);
/* The top left cell of a w x h box whose centre dot put at (x_pt, y_pt). */
struct dot_cell_point dot_cells_box_at(const struct dot_cell_frame *f, double x_pt, double y_pt, int w, int h);

/* A box's cells for routing: [x, x + w) x [y, y + h). */
struct dot_cell_rect {
	int32_t x, y, w, h;
};
/* What a route should keep to or away from (every field may be empty). */
struct dot_cell_route_hints {
	const struct dot_cell_point *through; /* a cell to pass through when it lies between the ends (the cell left
					       * of the edge's label, where dot's edge runs past it), or NULL */
	const int32_t *avoid_rows;            /* sorted: rows where runs across an upward or downward path should not
					       * be (the rows of edge labels) */
	size_t n_avoid;
	const struct dot_cell_rect *boxes;    /* every box of the drawing: runs keep out of them (the route's own two
					       * ends may be among them) */
	size_t n_boxes;
};
/* The path of an edge from src to dst through the n points xy[2k], xy[2k + 1] (cells, fractions allowed: the
 * spline as dot drew it, from src's side to dst's), as struct dot_cell_edge describes it: it leaves src from the
 * side that faces dst, arrives at the facing side of dst, keeps to the spline's course within about a cell and
 * turns only at right angles, choosing where to turn after hints (may be NULL) where it can.  n may be 0 (a
 * straight path between the boxes).  Returns 0 with *out (malloc'd) and *n_out set, -1 when out of memory. */
int dot_cells_route(const double *xy, size_t n, const struct dot_cell_rect *src, const struct dot_cell_rect *dst,
		    const struct dot_cell_route_hints *hints, struct dot_cell_point **out, uint32_t *n_out);

#endif
