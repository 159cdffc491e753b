/* Drawing primitives and the colour scheme: one table of elements, a monochrome fallback, NO_COLOR honoured. */
#include "config.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "ui/app.h"

/* Foreground per element for 8-colour terminals; op categories follow Netron's families. */
static const short element_fg[] = {
	[UI_DEFAULT] = -1, [UI_TITLE] = COLOR_BLACK, [UI_STATUS] = COLOR_BLACK, [UI_SELECTED] = COLOR_YELLOW,
	[UI_ERROR] = COLOR_RED, [UI_DIM] = COLOR_BLUE, [UI_EDGE] = COLOR_CYAN, [UI_MATCH] = COLOR_YELLOW,
	[UI_HEADER] = COLOR_GREEN,
};
static const short element_bg[] = {
	[UI_TITLE] = COLOR_CYAN, [UI_STATUS] = COLOR_WHITE,
};
static const short category_fg[CAT_COUNT] = {
	[CAT_CONV] = COLOR_BLUE, [CAT_POOL] = COLOR_GREEN, [CAT_NORM] = COLOR_CYAN, [CAT_ACTIVATION] = COLOR_RED,
	[CAT_ELEMENTWISE] = COLOR_WHITE, [CAT_REDUCE] = COLOR_GREEN, [CAT_SHAPE] = COLOR_MAGENTA,
	[CAT_DATA] = COLOR_WHITE, [CAT_LOGIC] = COLOR_WHITE, [CAT_CONTROL] = COLOR_MAGENTA,
	[CAT_ATTENTION] = COLOR_BLUE, [CAT_DETECTION] = COLOR_GREEN, [CAT_QUANT] = COLOR_CYAN, [CAT_ML] = COLOR_BLUE,
	[CAT_OTHER] = COLOR_WHITE, [CAT_CUSTOM] = COLOR_YELLOW, [CAT_IO] = COLOR_GREEN,
};

void ui_colors_init(struct app *a)
{
	a->color = 0;
	if (a->opts.no_color || getenv("NO_COLOR") || !has_colors())
		return;
	if (start_color() == ERR)
		return;
	use_default_colors();
	for (int e = 1; e < UI_CAT_BASE; e++) {
		short bg = (size_t)e < sizeof element_bg / sizeof element_bg[0] && element_bg[e] ? element_bg[e] : -1;
		init_pair((short)e, element_fg[e], bg);
	}
	/* With 256 colours, softer Netron-like hues per category (xterm's 6x6x6 cube). */
	static const short category_256[CAT_COUNT] = {
		[CAT_CONV] = 33, [CAT_POOL] = 71, [CAT_NORM] = 37, [CAT_ACTIVATION] = 167, [CAT_ELEMENTWISE] = 250,
		[CAT_REDUCE] = 107, [CAT_SHAPE] = 140, [CAT_DATA] = 180, [CAT_LOGIC] = 109, [CAT_CONTROL] = 176,
		[CAT_ATTENTION] = 75, [CAT_DETECTION] = 114, [CAT_QUANT] = 73, [CAT_ML] = 68, [CAT_OTHER] = 248,
		[CAT_CUSTOM] = 214, [CAT_IO] = 78,
	};
	for (int c = 0; c < CAT_COUNT; c++)
		init_pair((short)(UI_CAT_BASE + c), COLORS >= 256 ? category_256[c] : category_fg[c], -1);
	a->color = 1;
}

int ui_attr(const struct app *a, int color)
{
	if (!a->color) { /* monochrome: keep the emphasis that carries meaning */
		switch (color) {
		case UI_TITLE: case UI_STATUS: case UI_SELECTED: return A_REVERSE;
		case UI_ERROR: case UI_MATCH: case UI_HEADER: return A_BOLD;
		case UI_DIM: return A_DIM;
		default: return color >= UI_CAT_BASE + CAT_CUSTOM && color == UI_CAT_BASE + CAT_CUSTOM ? A_BOLD : 0;
		}
	}
	int attr = COLOR_PAIR(color);
	if (color == UI_SELECTED || color == UI_ERROR || color == UI_HEADER || color == UI_CAT_BASE + CAT_CUSTOM)
		attr |= A_BOLD;
	return attr;
}

/* Bidirectional controls reorder what follows them (a name could display reversed): shown as '?' here, should one
 * get past the core's escaping (strbuf_put_safe writes them as \u202e). */
static int is_bidi_control(wchar_t c)
{
	return c == 0x061c || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/* One character cell at a time: a base character and the combining marks that follow it, at most what one cell
 * holds (CCHARW_MAX; the rest are dropped), so that a flood of marks can never desynchronise curses' idea of the
 * screen from the terminal's. */
void ui_text(int y, int x, int x0, int x1, const char *s, int attr)
{
	int col = x;
	mbstate_t st;
	size_t left = strlen(s);

	if (y < 0 || y >= LINES)
		return;
	if (x1 > COLS)
		x1 = COLS;
	memset(&st, 0, sizeof st);
	attron(attr);
	while (left && col < x1) {
		wchar_t wc[CCHARW_MAX + 1], m;
		size_t l = mbrtowc(&wc[0], s, left, &st);
		if (l == (size_t)-1 || l == (size_t)-2 || l == 0) {
			/* not a character in this locale (UTF-8 under LC_ALL=C): one cell per UTF-8 sequence, handed to
			 * curses as it is, as before */
			const unsigned char *p = (const unsigned char *)s;
			l = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : 4;
			for (size_t k = 1; k < l; k++)
				if (k >= left || !p[k]) {
					l = k;
					break;
				}
			if (col >= x0)
				mvaddnstr(y, col, s, (int)l);
			s += l;
			left -= l;
			col++;
			memset(&st, 0, sizeof st);
			continue;
		}
		s += l;
		left -= l;
		int w = is_bidi_control(wc[0]) ? -1 : wcwidth(wc[0]), n = 1;
		if (w < 0)
			wc[0] = L'?', w = 1;
		else if (w == 0) /* a mark with nothing before it: on a space */
			wc[1] = wc[0], wc[0] = L' ', n = 2, w = 1;
		for (;;) {
			mbstate_t peek = st;
			size_t ml = left ? mbrtowc(&m, s, left, &peek) : 0;
			if (ml == 0 || ml == (size_t)-1 || ml == (size_t)-2 || is_bidi_control(m) || wcwidth(m) != 0)
				break;
			if (n < CCHARW_MAX)
				wc[n++] = m;
			s += ml;
			left -= ml;
			st = peek;
		}
		wc[n] = L'\0';
		if (col >= x0 && col + w <= x1) {
			cchar_t cc;
			if (setcchar(&cc, wc, A_NORMAL, 0, NULL) == OK)
				mvadd_wch(y, col, &cc);
		}
		col += w;
	}
	attroff(attr);
}

void ui_hline(const struct app *a, int y, int x, int n, int x0, int x1, int attr)
{
	if (y < 0 || y >= LINES)
		return;
	if (x1 > COLS)
		x1 = COLS;
	attron(attr);
	for (int i = 0; i < n; i++)
		if (x + i >= x0 && x + i < x1)
			mvaddch(y, x + i, a->opts.ascii ? '-' : ACS_HLINE);
	attroff(attr);
}

void ui_vline_char(const struct app *a, int y, int x, int attr)
{
	if (y < 0 || y >= LINES || x < 0 || x >= COLS)
		return;
	attron(attr);
	mvaddch(y, x, a->opts.ascii ? '|' : ACS_VLINE);
	attroff(attr);
}

void ui_corner(const struct app *a, int y, int x, int which, int attr)
{
	static const char ascii[] = "++++vv";
	chtype acs[] = {ACS_ULCORNER, ACS_URCORNER, ACS_LLCORNER, ACS_LRCORNER, ACS_TTEE, ACS_DARROW};

	if (y < 0 || y >= LINES || x < 0 || x >= COLS || which < 0 || which > 5)
		return;
	attron(attr);
	mvaddch(y, x, a->opts.ascii ? (chtype)ascii[which] : acs[which]);
	attroff(attr);
}
