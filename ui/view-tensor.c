/* The tensor view: one constant's dtype, shape, storage, statistics and histogram, then its values in a grid that
 * pages through any size.  An N-d tensor shows one 2-d slice at a time (the last dim across, the second-last
 * down); the leading indices are a cursor, [0, 3, :, :], that [ ] and { } move.  Everything it shows comes from
 * the core: present_value_tensor (src/present/present.h) and tensor_stats_compute (src/model/tensor-stats.h). */
#include "config.h"

#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/model/tensor-stats.h"
#include "ui/app.h"

#define HIST_MAX_BINS 120
#define WIDTH_SCAN_MAX 65536 /* slices up to this many values size their cells to fit; larger ones use a default */
#define STRING_MAX 24        /* bytes of a string element shown */

struct tensor_state {
	struct present_tensor pt;
	char *lookup;               /* the value's name, to find it again after an edit */
	int main_graph;             /* opened on the main graph (a subgraph's view closes on edits) */
	struct tensor_stats st;
	int have_stats;
	uint64_t hist[HIST_MAX_BINS], hist_top;
	int n_hist;                 /* bins computed (0: not yet) */
	int64_t *lead;              /* leading indices: n_dims - 2 of them */
	int64_t row, col;           /* first row and column shown of the slice */
	int width;                  /* cell width for the slice at width_base */
	int64_t width_base;
	int page_rows, page_cols;   /* what the last draw fitted */
	struct strbuf tmp;
	struct xtensor own;         /* a computed value (view_tensor_result): the view's own copy */
	int result;
	struct strbuf extra;        /* lines drawn under the statistics (the A - B view: the largest differences) */
};

static int64_t tv_dim(const struct tensor_state *s, int k) /* k < 0 counts from the end */
{
	int n = (int)s->pt.n_dims;
	if (k < 0)
		k += n;
	return k >= 0 && k < n ? s->pt.dims[k] : 1;
}

/* Rows and columns of the grid: rank >= 2 a slice of the last two dims; rank 1 wraps at per_row; rank 0 is 1x1. */
static int64_t tv_rows(const struct tensor_state *s, int per_row)
{
	if (s->pt.n_dims >= 2)
		return tv_dim(s, -2);
	if (s->pt.n_dims == 1)
		return per_row > 0 ? (s->pt.numel + per_row - 1) / per_row : 0;
	return s->pt.numel > 0;
}

static int64_t tv_cols(const struct tensor_state *s, int per_row)
{
	if (s->pt.n_dims >= 2)
		return tv_dim(s, -1);
	return s->pt.n_dims == 1 ? per_row : 1;
}

/* Flat index of the slice's first element. */
static int64_t tv_base(const struct tensor_state *s)
{
	int64_t base = 0, stride = 1;

	if (s->pt.n_dims < 3)
		return 0;
	stride = tv_dim(s, -1) * tv_dim(s, -2);
	for (int k = (int)s->pt.n_dims - 3; k >= 0; k--) {
		base += s->lead[k] * stride;
		stride *= s->pt.dims[k];
	}
	return base;
}

/* Flat index of grid cell (r, c), or -1 past the end (rank 1's last row). */
static int64_t tv_index(const struct tensor_state *s, int64_t r, int64_t c, int per_row)
{
	int64_t i = s->pt.n_dims >= 2 ? tv_base(s) + r * tv_dim(s, -1) + c : r * per_row + c;
	return i < s->pt.numel ? i : -1;
}

static const char *element(struct tensor_state *s, int64_t i, int *special)
{
	strbuf_reset(&s->tmp);
	*special = present_tensor_element(&s->tmp, &s->pt, i, STRING_MAX);
	return strbuf_str(&s->tmp);
}

static int digits(int64_t x)
{
	int d = 1;
	while (x >= 10)
		x /= 10, d++;
	return d;
}

/* One width for every cell of the slice, so that columns stay put while paging. */
static int tv_width(struct tensor_state *s)
{
	int64_t base = tv_base(s);
	int w = 1, special;
	char buf[64];

	if (s->width && s->width_base == base)
		return s->width;
	int64_t n = s->pt.n_dims >= 2 ? tv_dim(s, -1) * tv_dim(s, -2) : s->pt.numel;
	if (s->pt.dtype == OV_DT_BOOL) {
		w = 5;
	} else if (s->have_stats && s->st.kind == TENSOR_STATS_INT) {
		w = snprintf(buf, sizeof buf, "%" PRId64, s->st.imin);
		int w2 = snprintf(buf, sizeof buf, "%" PRId64, s->st.imax);
		w = w2 > w ? w2 : w;
	} else if (s->have_stats && s->st.kind == TENSOR_STATS_UINT64) {
		w = snprintf(buf, sizeof buf, "%" PRIu64, s->st.umax);
	} else if (n <= WIDTH_SCAN_MAX) {
		for (int64_t k = 0; k < n; k++) {
			int len = (int)strlen(element(s, base + k, &special));
			w = len > w ? len : w;
		}
	} else { /* %.6g needs at most 12 cells for a float, 13 for a double's three-digit exponent */
		w = s->pt.dtype == OV_DT_DOUBLE ? 13 : s->pt.dtype == OV_DT_COMPLEX64 ? 26 :
		    s->pt.dtype == OV_DT_COMPLEX128 ? 28 : s->pt.dtype == OV_DT_STRING ? STRING_MAX + 2 : 12;
	}
	s->width = w;
	s->width_base = base;
	return w;
}

/* [3, 0, 2, 7] for a flat index. */
static void put_index(struct strbuf *b, const struct tensor_state *s, int64_t flat)
{
	int n = (int)s->pt.n_dims;
	int64_t idx[64];

	if (n > 64 || flat < 0) {
		strbuf_printf(b, "#%" PRId64, flat);
		return;
	}
	for (int k = n - 1; k >= 0; k--) {
		int64_t d = s->pt.dims[k] > 0 ? s->pt.dims[k] : 1;
		idx[k] = flat % d;
		flat /= d;
	}
	strbuf_putc(b, '[');
	for (int k = 0; k < n; k++)
		strbuf_printf(b, "%s%" PRId64, k ? ", " : "", idx[k]);
	strbuf_putc(b, ']');
}

static void put_min_max(struct strbuf *b, const struct tensor_stats *st, int max)
{
	if (st->kind == TENSOR_STATS_INT)
		strbuf_printf(b, "%" PRId64, max ? st->imax : st->imin);
	else if (st->kind == TENSOR_STATS_UINT64)
		strbuf_printf(b, "%" PRIu64, max ? st->umax : st->umin);
	else
		strbuf_printf(b, "%.6g", max ? st->max : st->min);
}

static int line_attr(struct app *a, int header)
{
	return header ? ui_attr(a, UI_HEADER) : 0;
}

/* The histogram: rows of cells, each column a bin, bars in eighths of a cell (block characters) or '#'/'.'.
 * Returns 0 when there is no room for it. */
static int draw_histogram(struct app *a, struct tensor_state *s, int y, int height, int cols)
{
	struct strbuf lo = {0}, hi = {0};

	put_min_max(&lo, &s->st, 0);
	put_min_max(&hi, &s->st, 1);
	int x0 = (int)lo.len + 1, room = cols - x0 - (int)hi.len - 2;
	/* Few values make a sparse histogram: about 2 n^(1/3) bins (Rice's rule), drawn wider to fill the row. */
	int bins = (int)(2 * cbrt((double)s->st.finite)) + 1;
	if (bins < 8)
		bins = 8;
	if (bins > room)
		bins = room;
	if (bins > HIST_MAX_BINS)
		bins = HIST_MAX_BINS;
	int cw = bins > 0 ? room / bins : 1;
	if (cw > 4)
		cw = 4;
	if (bins < 4) {
		strbuf_free(&lo);
		strbuf_free(&hi);
		return 0;
	}
	if (s->n_hist != bins) {
		s->hist_top = tensor_histogram(&s->pt.values, &s->st, s->hist, bins);
		s->n_hist = bins;
	}
	static const char *const blocks[9] = {" ", "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
					      "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88"};
	int attr = ui_attr(a, UI_EDGE);
	for (int b = 0; b < bins && s->hist_top; b++) {
		uint64_t c = s->hist[b];
		/* Eighths of a cell, rounded, at least one for a bin that is not empty. */
		uint64_t h8 = c ? (c * (uint64_t)height * 8 + s->hist_top / 2) / s->hist_top : 0;
		if (c && !h8)
			h8 = 1;
		for (int r = 0; r < height; r++) {
			int64_t fill = (int64_t)h8 - 8 * (int64_t)r;
			if (fill <= 0)
				break;
			if (fill > 8)
				fill = 8;
			const char *g = a->opts.ascii ? (fill >= 4 ? "#" : ".") : blocks[fill];
			for (int k = 0; k < cw; k++)
				ui_text(y + height - 1 - r, x0 + b * cw + k, 0, cols, g, attr);
		}
	}
	ui_text(y + height - 1, 0, 0, cols, strbuf_str(&lo), ui_attr(a, UI_DIM));
	ui_text(y + height - 1, x0 + bins * cw + 1, 0, cols, strbuf_str(&hi), ui_attr(a, UI_DIM));
	strbuf_free(&lo);
	strbuf_free(&hi);
	return 1;
}

/* The header lines; returns the next free row. */
static int draw_header(struct app *a, struct tensor_state *s, int top, int rows, int cols)
{
	struct strbuf b = {0};
	int y = 0;

	ui_text(top + y, 0, 0, cols, s->pt.name, line_attr(a, 1) | A_BOLD);
	strbuf_printf(&b, "  %s", dtype_short_name(s->pt.dtype));
	describe_dims(&b, s->pt.dims, s->pt.n_dims);
	strbuf_printf(&b, "  %" PRId64 " value%s  %" PRIu64 " bytes", s->pt.numel, s->pt.numel == 1 ? "" : "s",
		      s->pt.bytes);
	/* Where it is stored goes on the first line when it fits, else under the origin. */
	int where_apart = (int)(strlen(s->pt.name) + b.len + 2 + strlen(s->pt.where)) > cols;
	if (!where_apart)
		strbuf_printf(&b, "  %s", s->pt.where);
	ui_text(top + y, (int)strlen(s->pt.name), 0, cols, strbuf_str(&b), 0);
	y++;
	if (y < rows)
		ui_text(top + y++, 0, 0, cols, s->pt.origin, ui_attr(a, UI_DIM));
	if (where_apart && y < rows)
		ui_text(top + y++, 0, 0, cols, s->pt.where, ui_attr(a, UI_DIM));
	if (!s->pt.readable) {
		/* The reason, wrapped: it names a file and a system error, and must not be cut off. */
		if (++y < rows)
			ui_text(top + y++, 0, 0, cols, "cannot read the values:", ui_attr(a, UI_ERROR));
		int step = cols > 4 ? cols - 2 : 1;
		for (const char *p = s->pt.error; *p && y < rows; y++) {
			char part[1024];
			int n = 0;
			while (p[n] && n < step && n < (int)sizeof part - 1)
				n++;
			while (p[n] && n > 1 && ((unsigned char)p[n] & 0xc0) == 0x80) /* not inside a UTF-8 sequence */
				n--;
			memcpy(part, p, (size_t)n);
			part[n] = '\0';
			ui_text(top + y, 2, 0, cols, part, ui_attr(a, UI_ERROR));
			p += n;
		}
		strbuf_free(&b);
		return rows;
	}
	strbuf_reset(&b);
	const struct tensor_stats *st = &s->st;
	if (!s->have_stats) {
		strbuf_puts(&b, s->pt.dtype == OV_DT_STRING ? "strings: no statistics" : "no statistics for this dtype");
	} else if (!st->count) {
		strbuf_puts(&b, "no values");
	} else if (s->pt.dtype == OV_DT_BOOL) {
		strbuf_printf(&b, "true %" PRId64 "  false %" PRId64, st->count - st->zeros, st->zeros);
	} else if (!st->finite) {
		strbuf_puts(&b, "no finite values");
	} else {
		if (s->pt.dtype == OV_DT_COMPLEX64 || s->pt.dtype == OV_DT_COMPLEX128)
			strbuf_puts(&b, "real parts: ");
		strbuf_puts(&b, "min ");
		put_min_max(&b, st, 0);
		if (s->pt.n_dims) {
			strbuf_puts(&b, " at ");
			put_index(&b, s, st->argmin);
		}
		strbuf_puts(&b, "   max ");
		put_min_max(&b, st, 1);
		if (s->pt.n_dims) {
			strbuf_puts(&b, " at ");
			put_index(&b, s, st->argmax);
		}
	}
	if (y < rows)
		ui_text(top + y++, 0, 0, cols, strbuf_str(&b), 0);
	if (s->have_stats && st->count && s->pt.dtype != OV_DT_BOOL && y < rows) {
		strbuf_reset(&b);
		if (st->finite)
			strbuf_printf(&b, "mean %.6g   std %.6g   ", st->mean, st->std);
		strbuf_printf(&b, "zeros %" PRId64 "   nan %" PRId64 "   +inf %" PRId64 "   -inf %" PRId64, st->zeros,
			      st->nans, st->pos_inf, st->neg_inf);
		int bad = st->nans || st->pos_inf || st->neg_inf;
		ui_text(top + y++, 0, 0, cols, strbuf_str(&b), bad ? ui_attr(a, UI_ERROR) : 0);
	}
	if (s->have_stats && st->finite && st->min < st->max && s->pt.dtype != OV_DT_BOOL) {
		/* Taller screens get a taller histogram; the grid keeps the most rows. */
		int height = rows >= 44 ? 4 : rows >= 30 ? 2 : 1;
		if (y + height + 4 < rows && draw_histogram(a, s, top + y, height, cols))
			y += height;
	}
	/* the extra lines, while the grid keeps 6 rows */
	for (const char *p = strbuf_str(&s->extra); *p && y + 7 < rows;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		strbuf_reset(&b);
		strbuf_add(&b, p, n);
		ui_text(top + y++, 0, 0, cols, strbuf_str(&b), p == strbuf_str(&s->extra) ? ui_attr(a, UI_DIM) : 0);
		p += n + (nl != NULL);
	}
	strbuf_free(&b);
	return y + (y + 4 < rows); /* a blank line before the grid when there is room */
}

static void tv_clamp(struct tensor_state *s, int per_row)
{
	int64_t nr = tv_rows(s, per_row), nc = tv_cols(s, per_row);
	int pr = s->page_rows > 0 ? s->page_rows : 1, pc = s->page_cols > 0 ? s->page_cols : 1;

	if (s->row > nr - pr)
		s->row = nr - pr;
	if (s->row < 0)
		s->row = 0;
	if (s->pt.n_dims < 2 || s->col > nc - pc)
		s->col = s->pt.n_dims < 2 ? 0 : nc - pc;
	if (s->col < 0)
		s->col = 0;
}

static void tv_draw(struct app *a, struct view *v, int top, int rows, int cols)
{
	struct tensor_state *s = v->data;
	struct strbuf b = {0};
	int hint = rows > 6; /* the keys, on the last row */
	int body = rows - hint;
	int y = draw_header(a, s, top, body, cols);

	if (hint)
		ui_text(top + rows - 1, 0, 0, cols,
			s->pt.n_dims >= 4   ? "[ ] slice  { } outer  PgUp/PgDn rows  h/l columns  g/G top/end  e edit  "
					      "Esc back"
			: s->pt.n_dims == 3 ? "[ ] slice  j/k PgUp/PgDn rows  h/l columns  g/G top/end  e edit  Esc back"
					    : "j/k PgUp/PgDn rows  h/l columns  g/G top/end  e edit  Esc back",
			ui_attr(a, UI_DIM));
	if (y >= body || !s->pt.readable)
		return;
	if (s->pt.numel <= 0) {
		ui_text(top + y, 0, 0, cols, "(no values: a dim is 0)", ui_attr(a, UI_DIM));
		return;
	}
	/* Geometry: row labels, then cells of width w with two spaces before each. */
	int w = tv_width(s);
	int64_t label_max = s->pt.n_dims >= 2 ? tv_dim(s, -2) - 1 : s->pt.numel - 1;
	int lw = digits(label_max > 0 ? label_max : 0);
	int per_row = (cols - lw) / (w + 2);
	if (per_row < 1)
		per_row = 1;
	if (s->pt.n_dims == 1 && per_row > 1) { /* wrap at a round number so row labels read easily */
		int round = per_row >= 10 ? 10 : per_row >= 8 ? 8 : per_row >= 5 ? 5 : per_row >= 4 ? 4 : per_row >= 2 ? 2 : 1;
		per_row = per_row / round * round;
	}
	if (s->pt.n_dims == 1 && per_row > s->pt.numel)
		per_row = (int)s->pt.numel;
	int64_t nr = tv_rows(s, per_row), nc = tv_cols(s, per_row);
	int grid_rows = body - y - 2; /* the cursor line and the column header */
	if (grid_rows < 1)
		grid_rows = 1;
	s->page_rows = grid_rows;
	s->page_cols = (int)(nc < per_row ? nc : per_row);
	tv_clamp(s, per_row);
	int64_t r1 = s->row + grid_rows < nr ? s->row + grid_rows : nr;
	int64_t c1 = s->col + per_row < nc ? s->col + per_row : nc;

	/* The cursor line: which slice, and which part of it is on screen. */
	if (s->pt.n_dims >= 2) {
		strbuf_putc(&b, '[');
		for (size_t k = 0; k + 2 < s->pt.n_dims; k++)
			strbuf_printf(&b, "%" PRId64 ", ", s->lead[k]);
		strbuf_puts(&b, ":, :]");
		strbuf_printf(&b, "  rows %" PRId64 "-%" PRId64 " of %" PRId64 ", columns %" PRId64 "-%" PRId64 " of %" PRId64,
			      s->row, r1 - 1, nr, s->col, c1 - 1, nc);
	} else if (s->pt.n_dims == 1) {
		int64_t last = r1 * per_row < s->pt.numel ? r1 * per_row : s->pt.numel;
		strbuf_printf(&b, "[:]  values %" PRId64 "-%" PRId64 " of %" PRId64, s->row * per_row, last - 1, s->pt.numel);
	} else {
		strbuf_puts(&b, "[]  a scalar");
	}
	if (y < body)
		ui_text(top + y++, 0, 0, cols, strbuf_str(&b), ui_attr(a, UI_HEADER));
	/* Column header (rank >= 2: the last dim's index; rank 1: the offset within the row). */
	if (y < body && s->pt.n_dims >= 1) {
		char num[32];
		for (int64_t c = s->col; c < c1; c++) {
			int len = snprintf(num, sizeof num, "%" PRId64, c);
			int x = lw + (int)(c - s->col) * (w + 2) + 2 + (w - len);
			ui_text(top + y, x < 0 ? 0 : x, 0, cols, num, ui_attr(a, UI_DIM));
		}
		y++;
	}
	int left = s->pt.dtype == OV_DT_STRING;
	for (int64_t r = s->row; r < r1 && y < body; r++, y++) {
		char num[32];
		int64_t label = s->pt.n_dims >= 2 ? r : r * per_row;
		int len = snprintf(num, sizeof num, "%" PRId64, label);
		if (s->pt.n_dims) /* a scalar has no index */
			ui_text(top + y, lw - len, 0, cols, num, ui_attr(a, UI_DIM));
		for (int64_t c = s->col; c < c1; c++) {
			int64_t i = tv_index(s, r, c, per_row);
			if (i < 0)
				break;
			int special;
			const char *txt = element(s, i, &special);
			int tl = (int)strlen(txt), x = lw + (int)(c - s->col) * (w + 2) + 2;
			if (!left && tl < w)
				x += w - tl;
			ui_text(top + y, x, 0, x + w < cols ? x + w : cols, txt,
				special ? ui_attr(a, UI_ERROR) | A_BOLD : 0);
		}
	}
	strbuf_free(&b);
}

/* Move the leading index k by dir, carrying into the dims before it like an odometer; 0 when it moved. */
static int tv_step(struct tensor_state *s, int k, int dir)
{
	int64_t *save = malloc(s->pt.n_dims * sizeof *save);

	if (!save)
		return -1;
	memcpy(save, s->lead, (s->pt.n_dims - 2) * sizeof *save);
	for (; k >= 0; k--) {
		int64_t d = s->pt.dims[k];
		s->lead[k] += dir;
		if (s->lead[k] >= 0 && s->lead[k] < d) {
			free(save);
			return 0;
		}
		s->lead[k] = dir > 0 ? 0 : d - 1; /* wrapped: carry */
	}
	memcpy(s->lead, save, (s->pt.n_dims - 2) * sizeof *save); /* past the first or last slice: stay */
	free(save);
	return -1;
}

static void tv_prompt_edit(struct app *a, struct tensor_state *s)
{
	char pre[1200];

	if (!s->main_graph) {
		app_message(a, 1, "edit constants from the main graph");
		return;
	}
	snprintf(pre, sizeof pre, "set-tensor %s ", s->lookup);
	char *line = prompt_read(a, ":", pre, 1);
	if (line) {
		app_command(a, line);
		free(line);
	}
}

static int tv_handle(struct app *a, struct view *v, enum action act, int key)
{
	struct tensor_state *s = v->data;
	int lead_dims = s->pt.n_dims >= 2 ? (int)s->pt.n_dims - 2 : 0;
	int64_t page = s->page_rows > 1 ? s->page_rows : 1;

	if (key == '[' || key == ']' || key == '{' || key == '}') {
		int k = lead_dims - 1 - (key == '{' || key == '}');
		if (k < 0) {
			app_message(a, 0, lead_dims ? "no outer index: [ and ] move the slice" :
				    "a tensor of rank %zu has no slices", s->pt.n_dims);
		} else if (s->pt.numel > 0 && tv_step(s, k, key == ']' || key == '}' ? 1 : -1)) {
			app_message(a, 0, key == ']' || key == '}' ? "the last slice" : "the first slice");
		}
		return 1;
	}
	switch (act) {
	case ACT_MOVE_DOWN: s->row++; break;
	case ACT_MOVE_UP: s->row--; break;
	case ACT_PAGE_DOWN: s->row += page; break;
	case ACT_PAGE_UP: s->row -= page; break;
	case ACT_MOVE_RIGHT: s->col++; break;
	case ACT_MOVE_LEFT: s->col--; break;
	case ACT_HOME: s->row = s->col = 0; break;
	case ACT_END: s->row = INT64_MAX / 2; break; /* clamped at the next draw */
	case ACT_EDIT_VALUE: tv_prompt_edit(a, s); break;
	case ACT_VIEW_TENSOR: break;
	default: return 0;
	}
	if (s->row < 0)
		s->row = 0;
	if (s->col < 0)
		s->col = 0;
	return 1;
}

static void tv_free_state(struct tensor_state *s)
{
	xt_free(&s->own);
	free(s->lookup);
	free(s->lead);
	strbuf_free(&s->tmp);
	strbuf_free(&s->extra);
	free(s);
}

static void tv_free(struct view *v)
{
	if (v->data)
		tv_free_state(v->data);
	free(v);
}

/* Open value id of g into s (pt, stats, a cursor of the right rank); -1 with a message when it has no tensor. */
static int tv_open(struct app *a, struct tensor_state *s, const struct graph *g, int32_t id)
{
	struct ov_error e;

	if (present_value_tensor(a->m, g, id, &s->pt, &e)) {
		app_message(a, 1, "%s", e.msg);
		return -1;
	}
	free(s->lead);
	s->lead = calloc(s->pt.n_dims > 2 ? s->pt.n_dims - 2 : 1, sizeof *s->lead);
	if (!s->lead) {
		app_message(a, 1, "out of memory");
		return -1;
	}
	s->have_stats = s->pt.readable && tensor_stats_compute(&s->pt.values, &s->st) == 0;
	s->n_hist = 0;
	s->width = 0;
	return 0;
}

/* After an edit: find the value again by name and show its new contents, keeping the place when the rank holds. */
static int tv_reload(struct app *a, struct view *v)
{
	struct tensor_state *s = v->data;
	const struct graph *g = app_graph(a);
	size_t old_rank = s->pt.n_dims;
	int64_t *old_lead = s->lead;

	if (!s->main_graph || !g || s->result)
		return -1; /* a computed value belongs to the model as it was run */
	int32_t id = graph_value_id(g, s->lookup);
	if (id < 0)
		return -1;
	s->lead = NULL;
	if (tv_open(a, s, g, id)) {
		free(old_lead);
		return -1;
	}
	if (old_rank == s->pt.n_dims && old_lead)
		for (size_t k = 0; k + 2 < old_rank; k++)
			s->lead[k] = old_lead[k] < s->pt.dims[k] ? old_lead[k] : 0;
	free(old_lead);
	return 0;
}

static const struct view_ops tensor_ops = {
	.name = "tensor",
	.draw = tv_draw,
	.handle = tv_handle,
	.reload = tv_reload,
	.free = tv_free,
};

struct view *view_tensor_new(struct app *a, const struct graph *g, int32_t value_id)
{
	struct view *v = calloc(1, sizeof *v);
	struct tensor_state *s = calloc(1, sizeof *s);

	if (!g || !v || !s || tv_open(a, s, g, value_id) || !(s->lookup = strdup(s->pt.raw_name ? s->pt.raw_name : ""))) {
		if (s)
			tv_free_state(s);
		free(v);
		return NULL;
	}
	s->main_graph = g == app_graph(a);
	v->ops = &tensor_ops;
	v->data = s;
	snprintf(v->title, sizeof v->title, "tensor %.150s", s->pt.name);
	return v;
}

/* A tensor view of t (copied: the view owns it), a value the executor computed. */
static struct view *computed_view(struct app *a, const char *value_name, const struct xtensor *t, const char *origin,
				  const char *title)
{
	struct ov_error e;
	struct view *v = calloc(1, sizeof *v);
	struct tensor_state *s = calloc(1, sizeof *s);

	if (!v || !s || xt_copy(&s->own, t, &e) || !(s->lookup = strdup(value_name)) ||
	    !(s->lead = calloc(t->rank > 2 ? (size_t)t->rank - 2 : 1, sizeof *s->lead))) {
		if (s)
			tv_free_state(s);
		free(v);
		app_message(a, 1, "out of memory");
		return NULL;
	}
	struct present_tensor *pt = &s->pt;
	struct strbuf nb = {0};
	strbuf_put_safe(&nb, value_name, strlen(value_name), sizeof pt->name - 8);
	snprintf(pt->name, sizeof pt->name, "%s", strbuf_str(&nb));
	strbuf_free(&nb);
	pt->raw_name = s->lookup;
	pt->dtype = s->own.dtype;
	pt->dims = s->own.dims;
	pt->n_dims = (size_t)s->own.rank;
	pt->numel = s->own.numel;
	pt->bytes = s->own.bytes;
	snprintf(pt->origin, sizeof pt->origin, "%s", origin);
	snprintf(pt->where, sizeof pt->where, "in memory (kept until the next edit)");
	pt->readable = 1;
	pt->values = (struct tensor_view){.dtype = s->own.dtype, .numel = s->own.numel, .raw = s->own.data};
	s->have_stats = tensor_stats_compute(&pt->values, &s->st) == 0;
	s->result = 1;
	v->ops = &tensor_ops;
	v->data = s;
	snprintf(v->title, sizeof v->title, "%s %.150s", title, pt->name);
	return v;
}

static const struct xtensor *result_value(const struct exec_result *r, const char *name)
{
	for (size_t i = 0; i < r->n_values; i++)
		if (r->values[i].present && !strcmp(r->values[i].name, name))
			return &r->values[i].t;
	return NULL;
}

struct view *view_tensor_result(struct app *a, const char *value_name)
{
	const struct xtensor *t = a->have_run ? result_value(&a->run, value_name) : NULL;
	char origin[160];

	if (!t) {
		app_message(a, 1, a->have_run ? "the last run did not compute '%s'" : "nothing run yet: R runs up to the "
			    "selected node, :run the whole model", value_name);
		return NULL;
	}
	if (t->kind != XT_TENSOR) {
		app_message(a, 1, "'%s' is a %s: the run report lists it", value_name, xt_kind_name(t->kind));
		return NULL;
	}
	if (t->dtype == OV_DT_STRING || !xt_elem_size(t->dtype)) {
		app_message(a, 1, "'%s' holds %s: the run report lists it", value_name, dtype_short_name(t->dtype));
		return NULL;
	}
	snprintf(origin, sizeof origin, "computed by the last %s (%u node%s)", a->have_run_b ? ":compare, side A" : "run",
		 a->run.nodes_run, a->run.nodes_run == 1 ? "" : "s");
	return computed_view(a, value_name, t, origin, "value");
}

/* Both sides' values where they differ most, side by side: the DIFF_SHOWN largest |A - B| (a NaN on one side
 * only counts as the largest), for s->extra. */
#define DIFF_SHOWN 5
static void largest_differences(struct tensor_state *s, const struct xtensor *ta, const struct xtensor *tb,
				const struct xtensor *d)
{
	int64_t at[DIFF_SHOWN];
	double by[DIFF_SHOWN];
	int n = 0;

	for (int64_t i = 0; i < d->numel; i++) {
		double x = ((const double *)d->data)[i], m = fabs(x);
		if (isnan(x))
			m = isnan(xt_get(ta, i)) && isnan(xt_get(tb, i)) ? 0 : INFINITY;
		if (!(m > 0) || (n == DIFF_SHOWN && m <= by[n - 1]))
			continue;
		int j = n < DIFF_SHOWN ? n++ : n - 1;
		for (; j > 0 && by[j - 1] < m; j--) {
			by[j] = by[j - 1];
			at[j] = at[j - 1];
		}
		by[j] = m;
		at[j] = i;
	}
	if (!n) {
		strbuf_puts(&s->extra, "A and B are equal everywhere");
		return;
	}
	strbuf_printf(&s->extra, "the %d largest differences, A and B side by side:", n);
	for (int k = 0; k < n; k++) {
		strbuf_puts(&s->extra, "\n  ");
		put_index(&s->extra, s, at[k]);
		strbuf_printf(&s->extra, "  A %.9g  B %.9g  A-B %.6g", xt_get(ta, at[k]), xt_get(tb, at[k]),
			      ((const double *)d->data)[at[k]]);
	}
}

struct view *view_tensor_diff(struct app *a, const char *value_name)
{
	const struct xtensor *ta = a->have_run ? result_value(&a->run, value_name) : NULL;
	const struct xtensor *tb = a->have_run_b ? result_value(&a->run_b, value_name) : NULL;
	struct ov_error e;
	struct xtensor d;

	if (!a->have_run_b) {
		app_message(a, 1, "no comparison yet: :compare OTHER (or --vs cuda, --against DIR) first");
		return NULL;
	}
	if (!ta || !tb) {
		app_message(a, 1, "'%s' was not computed on both sides of the last :compare", value_name);
		return NULL;
	}
	if (ta->kind != XT_TENSOR || tb->kind != XT_TENSOR || !xt_elem_size(ta->dtype) || !xt_elem_size(tb->dtype) ||
	    ta->dtype == OV_DT_STRING || tb->dtype == OV_DT_STRING) {
		app_message(a, 1, "'%s' is not numeric: the :compare report says whether it matches", value_name);
		return NULL;
	}
	if (ta->rank != tb->rank || memcmp(ta->dims, tb->dims, (size_t)ta->rank * sizeof *ta->dims)) {
		app_message(a, 1, "'%s' has other shapes on the two sides: no element-wise difference", value_name);
		return NULL;
	}
	if (xt_alloc(&d, OV_DT_DOUBLE, ta->rank, ta->dims, &e)) {
		app_message(a, 1, "%s", e.msg);
		return NULL;
	}
	for (int64_t i = 0; i < ta->numel; i++)
		((double *)d.data)[i] = xt_get(ta, i) - xt_get(tb, i);
	struct view *v = computed_view(a, value_name, &d, "A - B of the last :compare, as float64 (A: this model)",
				       "A-B");
	if (v)
		largest_differences(v->data, ta, tb, &d);
	xt_free(&d);
	return v;
}
