/* Layered graph layout in character cells: where each box goes and how each edge runs, for the graph view.
 *
 * onnxview's own layout (Graphviz dot takes half a minute on a 5,000-node model): a Sugiyama pipeline where every
 * step is linear or n log n, so that a 50,000-node model lays out in a few tens of milliseconds.
 *
 * Who calls: the graph view, once when a graph is shown (and again after an edit changes it).  It knows nothing of
 * ONNX: the caller turns nodes (and whatever else it draws as a box: graph inputs, outputs) into boxes whose size
 * in cells it has measured, and tensors into edges box -> box.  The order of the edges matters: list them in the
 * graph's order, a node's inputs in input order, because a box is lined up under the source of its first input
 * edge (so the main path of a ResNet or of a transformer's residual stream comes out as one straight column).
 *
 * Coordinates are character cells: x grows to the right, y grows downwards, (0, 0) is the top-left cell of the
 * whole drawing, which is width x height cells.  A box occupies columns x .. x+w-1 and rows y .. y+h-1, border
 * included; no two boxes overlap.  Boxes stand in ranks (rows of boxes): every edge goes from a box to a box in a
 * lower rank, except the few edges that close a cycle in a malformed graph (and self-loops), which the layout
 * turns around to break the cycle; their routes climb back up beside the boxes (`back` marks them).
 *
 * An edge's route is an orthogonal polyline (consecutive points share x or y; no two consecutive points are equal
 * and no three are collinear).  It starts on the bottom border row of the source box at its centre column
 * (x + w/2), and ends on the top border row of the target box, at a column strictly inside the border (distinct
 * columns for a box's different inputs where the box is wide enough).  Horizontal runs lie only in the gaps
 * between ranks, and vertical runs cross a rank only through the free column reserved for that edge, so a route
 * never passes through a box other than at its two ends.  Edges from one source share their first leg and, when
 * they go several ranks down, one trunk line (a tensor with many consumers is drawn as one wire that branches).
 * Within a gap, horizontal runs of different edges are put on different rows where the gap has room for them (it
 * grows to fit, up to layout_options.max_tracks rows of runs).
 *
 * Ownership: layout_compute() copies what it needs from the input; the layout owns all its arrays, and
 * layout_free() releases everything, route points included.  The layout never changes after it is computed.
 */
#ifndef OV_LAYOUT_H
#define OV_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "src/base/error.h"

struct layout_input {
	uint32_t n_boxes;
	const uint16_t *w, *h;     /* box sizes in cells (w >= 3, h >= 1) */
	uint32_t n_edges;
	const uint32_t *src, *dst; /* edges box -> box, in the graph's order (the order of a node's inputs matters) */
};

/* Zero fields (or a NULL options pointer) take the defaults. */
struct layout_options {
	uint16_t gap_x;      /* blank columns between two boxes of a rank (default 2; 1 beside an edge's line) */
	uint16_t gap_y;      /* rows between two ranks at least, where horizontal edge runs go (default 3) */
	uint16_t sweeps;     /* barycentre sweeps over the ranks when ordering them (default 4) */
	uint16_t max_tracks; /* rows of horizontal runs a gap may grow to before runs share rows (default 48) */
};

struct layout_point {
	int32_t x, y;
};

/* Orthogonal polyline from the bottom edge of src to the top edge of dst (at least 2 points). */
struct layout_edge_route {
	uint32_t n_points;
	struct layout_point *points;
};

struct layout {
	uint32_t n_boxes, n_edges, n_ranks;
	int32_t *x, *y;                   /* top-left corner of each box */
	uint32_t *rank;                   /* layer of each box, 0 at the top */
	struct layout_edge_route *routes; /* one per input edge, in input order */
	uint8_t *back;                    /* per edge: 1 if turned round to break a cycle (or a self-loop) */
	int32_t width, height;            /* of the whole drawing */
	/* internal storage */
	uint16_t *w, *h;
	uint32_t *rank_first, *rank_boxes; /* boxes of rank r, left to right: rank_boxes[rank_first[r] ..] */
	int32_t *rank_y, *rank_h;
	struct layout_point *point_pool;
};

/* Lay out the boxes and edges of in (opt may be NULL).  Returns 0 with *out set (free it with layout_free), or -1
 * with err set: OV_INVALID for a bad input (a box narrower than 3 or lower than 1, an edge naming no box),
 * OV_LIMIT when the graph or the drawing is too big for the coordinates, OV_NOMEM.  Cycles are not an error. */
int layout_compute(struct layout **out, const struct layout_input *in, const struct layout_options *opt,
		   struct ov_error *err);
void layout_free(struct layout *l);

/* The boxes overlapping the viewport rectangle of columns x0 <= x < x1 and rows y0 <= y < y1, rank by rank
 * from the top and left to right, for drawing only what is visible.  Writes at most max box indices to out and
 * returns how many there are in all (more than max: the list was cut).  Logarithmic in the size of the graph
 * plus the number of boxes returned. */
size_t layout_visible(const struct layout *l, int32_t x0, int32_t y0, int32_t x1, int32_t y1, uint32_t *out,
		      size_t max);

#endif
