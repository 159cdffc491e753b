/* One painter for the boxes and edges of both graph views (ui/view-graph.c draws the core's layout,
 * ui/view-neighbourhood.c Graphviz's): a box is drawn the same way wherever it was placed, and edges are painted
 * cell by cell into a canvas, so lines that meet or cross get the right junction.
 *
 * Who calls: a view's draw function, once per frame: paint_canvas_reset(), then paint_canvas_segment() and
 * paint_canvas_arrow() for every edge that may be on screen, paint_canvas_draw(), then the edge labels, then
 * paint_box() for every box on screen (boxes hide what lies behind them).  Coordinates are the drawing's cells;
 * (vx, vy) is the drawing's cell at the view's top left, top the screen row where the view starts. */
#ifndef OV_UI_PAINT_H
#define OV_UI_PAINT_H

#include <stddef.h>
#include <stdint.h>

#include "src/present/present.h"

struct app;

enum paint_kind { PAINT_NODE, PAINT_IO, PAINT_GROUP, PAINT_STUB };

struct paint_box {
	enum paint_kind kind;
	enum op_category cat;
	const char *title;         /* the op ("Conv"), "input", "output", a stub's "… Conv" */
	const char *name;          /* on the top border ("" none), cut in the middle when it does not fit */
	const char *const *lines;  /* rows inside, cut in the middle when one does not fit */
	uint16_t n_lines;
	int w, h;                  /* borders included */
	int32_t index;             /* the node's #N, shown at the right of the title row; -1 for none */
	int selected, focus;
	int mark;                  /* COMPARE_MARK_* of the last :compare (0 none) */
};

/* Draw b with its top left corner at view cell (x, y), clipped to the view's rows x cols. */
void paint_box(const struct app *a, const struct paint_box *b, int32_t x, int32_t y, int top, int rows, int cols);

/* Text at (y, x) clipped to [x0, x1): when it is wider than x1 - x, its middle gives way to an ellipsis, so both
 * ends (a name's distinct tail, an attribute's value) stay readable. */
void paint_text_mid(const struct app *a, int y, int x, int x0, int x1, const char *s, int attr);

struct paint_canvas {
	uint8_t *cell;
	size_t cap;
	int32_t vx, vy;
	int rows, cols;
};

enum paint_arrow { PAINT_ARROW_DOWN = 1, PAINT_ARROW_UP, PAINT_ARROW_RIGHT, PAINT_ARROW_LEFT };

/* Clear the canvas for a view of rows x cols whose top left is drawing cell (vx, vy); -1 when out of memory. */
int paint_canvas_reset(struct paint_canvas *cv, int32_t vx, int32_t vy, int rows, int cols);
/* A horizontal or vertical run from (x0, y0) to (x1, y1), ends included; hot edges are drawn highlighted. */
void paint_canvas_segment(struct paint_canvas *cv, int32_t x0, int32_t y0, int32_t x1, int32_t y1, int hot);
/* Half a cell of line at (x, y) towards a neighbour (dx, dy one of the four directions): where an edge leaves a
 * box's border. */
void paint_canvas_stub(struct paint_canvas *cv, int32_t x, int32_t y, int dx, int dy, int hot);
void paint_canvas_arrow(struct paint_canvas *cv, int32_t x, int32_t y, enum paint_arrow dir, int hot);
/* Put the canvas on the screen from row top. */
void paint_canvas_draw(const struct app *a, const struct paint_canvas *cv, int top);
void paint_canvas_free(struct paint_canvas *cv);

#endif
