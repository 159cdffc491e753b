/* The painter both graph views share: boxes, and edges painted cell by cell into a canvas (see ui/paint.h). */
#include "config.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/report.h"
#include "ui/app.h"
#include "ui/paint.h"

/* ---- text ---- */

static size_t code_points(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The byte offset of code point k of s (or its end). */
static size_t cp_offset(const char *s, size_t k)
{
	size_t i = 0;

	for (; s[i] && k; k--)
		for (i++; ((unsigned char)s[i] & 0xc0) == 0x80; i++)
			;
	return i;
}

void paint_text_mid(const struct app *a, int y, int x, int x0, int x1, const char *s, int attr)
{
	size_t n = code_points(s);
	int room = x1 - x;

	if (room <= 0)
		return;
	if (n <= (size_t)room || room < 5) {
		ui_text(y, x, x0, x1, s, attr);
		return;
	}
	/* head + ellipsis + tail; the tail gets the odd cell (names differ at their ends). */
	const char *dots = a->opts.ascii ? "..." : "\xe2\x80\xa6";
	size_t dw = a->opts.ascii ? 3 : 1, keep = (size_t)room - dw, head = keep / 2, tail = keep - head;
	char buf[1024];
	size_t hb = cp_offset(s, head), tb = cp_offset(s, n - tail), tl = strlen(s + tb);
	if (hb + strlen(dots) + tl + 1 > sizeof buf) {
		ui_text(y, x, x0, x1, s, attr);
		return;
	}
	memcpy(buf, s, hb);
	memcpy(buf + hb, dots, strlen(dots));
	memcpy(buf + hb + strlen(dots), s + tb, tl + 1);
	ui_text(y, x, x0, x1, buf, attr);
}

/* ---- boxes ---- */

void paint_box(const struct app *a, const struct paint_box *b, int32_t x, int32_t y, int top, int rows, int cols)
{
	int battr = b->selected ? ui_attr(a, UI_SELECTED) : ui_attr(a, b->kind == PAINT_NODE ? UI_CAT_BASE + b->cat : UI_DIM);
	int w = b->w, h = b->h, sy = top + y;
	int x0 = x + 2 < 0 ? 0 : x + 2, x1 = x + w - 2 < cols ? x + w - 2 : cols;

	if (b->focus && !b->selected)
		battr |= A_BOLD;
	for (int r = 0; r < h; r++) /* boxes hide the edges behind them */
		if (y + r >= 0 && y + r < rows)
			for (int c = 0; c < w; c++)
				if (x + c >= 0 && x + c < cols)
					mvaddch(sy + r, x + c, ' ');
	if (y >= 0 && y < rows) {
		ui_corner(a, sy, x, 0, battr);
		ui_hline(a, sy, x + 1, w - 2, 0, cols, battr);
		ui_corner(a, sy, x + w - 1, 1, battr);
		if (b->kind != PAINT_IO && *b->name)
			paint_text_mid(a, sy, x + 2, x < 0 ? 0 : x, x + w - 2 < cols ? x + w - 2 : cols, b->name,
				       ui_attr(a, UI_DIM));
	}
	for (int r = 1; r < h - 1; r++) {
		if (y + r < 0 || y + r >= rows)
			continue;
		if (x >= 0 && x < cols)
			ui_vline_char(a, sy + r, x, battr);
		if (x + w - 1 >= 0 && x + w - 1 < cols)
			ui_vline_char(a, sy + r, x + w - 1, battr);
	}
	/* The selection shows without colour too (monochrome terminals, screen dumps): a marker left of the box. */
	if (b->selected && y + 1 >= 0 && y + 1 < rows && x - 1 >= 0 && x - 1 < cols)
		ui_text(sy + 1, x - 1, 0, cols, a->opts.ascii ? ">" : "\xe2\x96\xb6", battr | A_BOLD);
	int row = 1;
	if (b->kind != PAINT_IO) {
		if (y + row >= 0 && y + row < rows) {
			int tattr = b->kind == PAINT_STUB ? ui_attr(a, UI_DIM) :
				    (int)((a->color ? ui_attr(a, UI_CAT_BASE + b->cat) : 0) | A_BOLD);
			char idx[16] = "";
			int iw = 0;
			if (b->index >= 0) {
				snprintf(idx, sizeof idx, "#%d", (int)b->index);
				iw = (int)strlen(idx);
			}
			/* the index at the right of the title row, where the title leaves room for it */
			int tw = (int)code_points(b->title);
			if (iw && tw + 1 + iw <= w - 4) {
				ui_text(sy + row, x + 2, x0, x1, b->title, tattr);
				ui_text(sy + row, x + w - 2 - iw, x0, x1, idx, ui_attr(a, UI_DIM));
			} else {
				paint_text_mid(a, sy + row, x + 2, x0, x1, b->title, tattr);
			}
		}
		row++;
	}
	for (uint16_t l = 0; l < b->n_lines && row < h - 1; l++, row++)
		if (y + row >= 0 && y + row < rows)
			paint_text_mid(a, sy + row, x + 2, x0, x1, b->lines[l], b->kind != PAINT_NODE && l == 0 ? A_BOLD : 0);
	if (y + h - 1 >= 0 && y + h - 1 < rows) {
		ui_corner(a, sy + h - 1, x, 2, battr);
		ui_hline(a, sy + h - 1, x + 1, w - 2, 0, cols, battr);
		ui_corner(a, sy + h - 1, x + w - 1, 3, battr);
		/* after :compare, whether the node's outputs matched: on the bottom border, right, where no name is */
		int mcells = a->opts.ascii ? 4 : 3;
		if (b->mark && w >= mcells + 4)
			ui_text(sy + h - 1, x + w - 2 - mcells, x < 0 ? 0 : x, x + w - 1 < cols ? x + w - 1 : cols,
				b->mark == COMPARE_MARK_MATCH ? (a->opts.ascii ? " ok " : " \xe2\x9c\x93 ") :
								(a->opts.ascii ? " !! " : " \xe2\x9c\x97 "),
				ui_attr(a, b->mark == COMPARE_MARK_MATCH ? UI_MATCH : UI_ERROR) | A_BOLD);
	}
}

/* ---- edges ---- */

enum { LINK_UP = 1, LINK_DOWN = 2, LINK_LEFT = 4, LINK_RIGHT = 8, ARROW_SHIFT = 4, HOT = 0x80 };

int paint_canvas_reset(struct paint_canvas *cv, int32_t vx, int32_t vy, int rows, int cols)
{
	size_t need = (size_t)(rows > 0 ? rows : 0) * (size_t)(cols > 0 ? cols : 0);

	if (need > cv->cap) {
		free(cv->cell);
		cv->cell = malloc(need);
		cv->cap = cv->cell ? need : 0;
	}
	cv->vx = vx, cv->vy = vy;
	cv->rows = cv->cell ? rows : 0;
	cv->cols = cv->cell ? cols : 0;
	if (cv->cell)
		memset(cv->cell, 0, need);
	return cv->cell || !need ? 0 : -1;
}

void paint_canvas_free(struct paint_canvas *cv)
{
	free(cv->cell);
	cv->cell = NULL;
	cv->cap = 0;
}

static uint8_t *canvas_at(const struct paint_canvas *cv, int32_t x, int32_t y)
{
	x -= cv->vx;
	y -= cv->vy;
	if (x < 0 || y < 0 || x >= cv->cols || y >= cv->rows)
		return NULL;
	return &cv->cell[(size_t)y * (size_t)cv->cols + (size_t)x];
}

static void canvas_link(const struct paint_canvas *cv, int32_t x, int32_t y, uint8_t bits)
{
	uint8_t *p = canvas_at(cv, x, y);

	if (p)
		*p |= bits;
}

void paint_canvas_segment(struct paint_canvas *cv, int32_t x0, int32_t y0, int32_t x1, int32_t y1, int hot)
{
	int32_t dx = x1 > x0 ? 1 : x1 < x0 ? -1 : 0, dy = y1 > y0 ? 1 : y1 < y0 ? -1 : 0;
	uint8_t h = hot ? HOT : 0;

	if ((dx && dy) || (!dx && !dy))
		return;
	int32_t lx = x0 < x1 ? x0 : x1, hx = x0 < x1 ? x1 : x0, ly = y0 < y1 ? y0 : y1, hy = y0 < y1 ? y1 : y0;
	/* the viewport test keeps long off-screen runs out of the loop */
	if (hx < cv->vx || lx >= cv->vx + cv->cols || hy < cv->vy || ly >= cv->vy + cv->rows)
		return;
	/* only the part on screen (plus a cell each side, for the links into it) */
	if (dx) {
		lx = lx < cv->vx - 1 ? cv->vx - 1 : lx;
		hx = hx > cv->vx + cv->cols ? cv->vx + cv->cols : hx;
		for (int32_t x = lx; x < hx; x++) {
			canvas_link(cv, x, y0, LINK_RIGHT | h);
			canvas_link(cv, x + 1, y0, LINK_LEFT | h);
		}
	} else {
		ly = ly < cv->vy - 1 ? cv->vy - 1 : ly;
		hy = hy > cv->vy + cv->rows ? cv->vy + cv->rows : hy;
		for (int32_t y = ly; y < hy; y++) {
			canvas_link(cv, x0, y, LINK_DOWN | h);
			canvas_link(cv, x0, y + 1, LINK_UP | h);
		}
	}
}

void paint_canvas_stub(struct paint_canvas *cv, int32_t x, int32_t y, int dx, int dy, int hot)
{
	canvas_link(cv, x, y, (uint8_t)((hot ? HOT : 0) | (dy < 0 ? LINK_UP : dy > 0 ? LINK_DOWN : dx < 0 ? LINK_LEFT :
											   LINK_RIGHT)));
}

void paint_canvas_arrow(struct paint_canvas *cv, int32_t x, int32_t y, enum paint_arrow dir, int hot)
{
	uint8_t *at = canvas_at(cv, x, y);

	if (at)
		*at = (uint8_t)((*at & HOT) | (hot ? HOT : 0) | (unsigned)dir << ARROW_SHIFT);
}

void paint_canvas_draw(const struct app *a, const struct paint_canvas *cv, int top)
{
	int ascii = a->opts.ascii;
	int attr = ui_attr(a, UI_EDGE), hot = ui_attr(a, UI_SELECTED);

	for (int y = 0; y < cv->rows; y++)
		for (int x = 0; x < cv->cols; x++) {
			uint8_t c = cv->cell[(size_t)y * (size_t)cv->cols + (size_t)x];
			uint8_t links = c & 0x0f, arrow = (c >> ARROW_SHIFT) & 0x07;
			chtype ch;
			if (!(c & 0x7f))
				continue;
			if (arrow) { /* down is the usual one; the others are rare (cycles) and plain */
				ch = arrow == PAINT_ARROW_DOWN ? (ascii ? 'v' : ACS_DARROW) : arrow == PAINT_ARROW_UP ? '^' :
				     arrow == PAINT_ARROW_RIGHT ? '>' : '<';
			} else if (!(links & (LINK_LEFT | LINK_RIGHT))) {
				ch = ascii ? '|' : ACS_VLINE;
			} else if (!(links & (LINK_UP | LINK_DOWN))) {
				ch = ascii ? '-' : ACS_HLINE;
			} else if (ascii) {
				ch = '+';
			} else {
				switch (links) {
				case LINK_DOWN | LINK_RIGHT: ch = ACS_ULCORNER; break;
				case LINK_DOWN | LINK_LEFT: ch = ACS_URCORNER; break;
				case LINK_UP | LINK_RIGHT: ch = ACS_LLCORNER; break;
				case LINK_UP | LINK_LEFT: ch = ACS_LRCORNER; break;
				case LINK_UP | LINK_DOWN | LINK_RIGHT: ch = ACS_LTEE; break;
				case LINK_UP | LINK_DOWN | LINK_LEFT: ch = ACS_RTEE; break;
				case LINK_DOWN | LINK_LEFT | LINK_RIGHT: ch = ACS_TTEE; break;
				case LINK_UP | LINK_LEFT | LINK_RIGHT: ch = ACS_BTEE; break;
				default: ch = ACS_PLUS; break;
				}
			}
			int at = (c & HOT) ? hot : attr;
			attron(at);
			mvaddch(top + y, x, ch);
			attroff(at);
		}
}
