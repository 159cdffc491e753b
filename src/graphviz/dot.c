/* Graphviz export: the scene of a graph as a libcgraph graph, as DOT text, or laid out and rendered (SVG, PNG). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cgraph.h>
#include <gvc.h>

#include "src/graphviz/dot.h"
#include "src/present/present.h"
#include "src/model/save.h"
#include "src/base/strbuf.h"

/* ---- Graphviz's messages: collected, never printed -------------------------------------------------------- */

static char gv_msg[512];
static int gv_msg_open; /* the last message did not end with a newline: the next call continues it */

static int gv_collect(char *msg)
{
	size_t n = strlen(msg), used;

	if (!gv_msg_open)
		gv_msg[0] = '\0';
	used = strlen(gv_msg);
	if (used < sizeof gv_msg - 1)
		snprintf(gv_msg + used, sizeof gv_msg - used, "%s", msg);
	gv_msg_open = n == 0 || msg[n - 1] != '\n';
	return 0;
}

static void gv_quiet(void)
{
	agseterrf(gv_collect);
	gv_msg[0] = '\0';
	gv_msg_open = 0;
}

/* Fail with Graphviz's last message (one line, made safe for a terminal) after what. */
static int gv_fail(struct ov_error *err, enum ov_status code, const char *what)
{
	struct strbuf b = {0};
	const char *m = gv_msg;
	size_t n;

	if (!strncmp(m, "Error: ", 7))
		m += 7;
	n = strlen(m);
	while (n && (m[n - 1] == '\n' || m[n - 1] == ' '))
		n--;
	for (const char *nl; (nl = memchr(m, '\n', n));) { /* "Format: ... not recognized.\nUse one of: ..." */
		strbuf_put_safe(&b, m, (size_t)(nl - m), 0);
		strbuf_puts(&b, " ");
		n -= (size_t)(nl + 1 - m);
		m = nl + 1;
	}
	strbuf_put_safe(&b, m, n, 0);
	if (b.len)
		ov_fail(err, code, "%s: Graphviz says: %s", what, strbuf_str(&b));
	else
		ov_fail(err, code, "%s", what);
	strbuf_free(&b);
	return -1;
}

/* ---- escaping ----------------------------------------------------------------------------------------------- */

/* Text for an HTML-like label: control bytes and invalid UTF-8 as \xNN (strbuf_put_safe), the characters
 * Graphviz's HTML parser would read as markup turned into entities, and backslashes doubled (Graphviz replaces
 * \N, \G, \E... with the node's name and so on even in HTML text, after decoding entities).  At most max code
 * points (0: all), then an ellipsis. */
static void html_put(struct strbuf *b, const char *s, size_t max)
{
	struct strbuf t = {0};
	size_t cps = 0;

	strbuf_put_safe(&t, s, strlen(s), 0);
	for (const char *p = strbuf_str(&t); *p; p++) {
		if (((unsigned char)*p & 0xc0) != 0x80 && max && cps++ == max) {
			strbuf_puts(b, "&#8230;");
			break;
		}
		switch (*p) {
		case '&': strbuf_puts(b, "&amp;"); break;
		case '<': strbuf_puts(b, "&lt;"); break;
		case '>': strbuf_puts(b, "&gt;"); break;
		case '"': strbuf_puts(b, "&quot;"); break;
		case '\'': strbuf_puts(b, "&#39;"); break;
		case '\\': strbuf_puts(b, "\\\\"); break; /* Graphviz expands \N, \G... in HTML text too; \\ is \ */
		default: strbuf_putc(b, *p);
		}
	}
	strbuf_free(&t);
}

/* Text for an ordinary (escString) attribute such as a tooltip: control bytes made safe, backslashes doubled so
 * that neither DOT's quoting nor Graphviz's \N, \l escapes can be triggered from the model. */
static void plain_put(struct strbuf *b, const char *s, size_t max)
{
	struct strbuf t = {0};

	strbuf_put_safe(&t, s, strlen(s), max);
	for (const char *p = strbuf_str(&t); *p; p++)
		if (*p == '\\')
			strbuf_puts(b, "\\\\");
		else
			strbuf_putc(b, *p);
	strbuf_free(&t);
}

/* ---- colours ------------------------------------------------------------------------------------------------ */

/* Fill colours by category, pastel versions of Netron's: convolutions blue, pooling green, normalisation lime,
 * activations rose, shapes yellow... custom-domain ops stand out in a warning orange with a red border. */
static const char *const category_fill[] = {
	[CAT_CONV] = "#aecbeb",       [CAT_POOL] = "#b9e4c9",        [CAT_NORM] = "#d7ebb5",
	[CAT_ACTIVATION] = "#f5c1bb", [CAT_ELEMENTWISE] = "#dfe1ec", [CAT_REDUCE] = "#d9c8eb",
	[CAT_SHAPE] = "#fbe7a9",      [CAT_DATA] = "#ecdcc6",        [CAT_LOGIC] = "#f3cfe4",
	[CAT_CONTROL] = "#c6cbec",    [CAT_ATTENTION] = "#ffd6a5",   [CAT_DETECTION] = "#d8cfca",
	[CAT_QUANT] = "#b5e0dc",      [CAT_ML] = "#e3c5ea",          [CAT_OTHER] = "#e8e8e8",
	[CAT_CUSTOM] = "#ff9f7a",     [CAT_IO] = "#f4f4f4",
};
_Static_assert(sizeof category_fill / sizeof category_fill[0] == CAT_COUNT, "colour table drifted");

#define FONT "Helvetica,Arial,sans-serif"

/* ---- building --------------------------------------------------------------------------------------------- */

struct dot_syms {
	Agsym_t *label, *fill, *color, *penwidth, *style, *tooltip, *fontsize, *fontcolor;
	Agsym_t *e_label, *e_style, *e_tooltip, *e_fontcolor, *e_color;
};

/* agattr and friends take char *, though they never write through it. */
static Agsym_t *attr(Agraph_t *g, int kind, const char *name, const char *def)
{
	return agattr(g, kind, (char *)name, (char *)def);
}

static void set_html(Agraph_t *g, void *obj, Agsym_t *sym, const char *html)
{
	char *h = agstrdup_html(g, (char *)html);

	agxset(obj, sym, h);
	agstrfree(g, h);
}

static void set(void *obj, Agsym_t *sym, const char *value)
{
	agxset(obj, sym, (char *)value);
}

static void box_label(struct strbuf *b, const struct scene_box *bx)
{
	strbuf_puts(b, "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"1\"><TR><TD><B>");
	html_put(b, bx->title, 60);
	strbuf_puts(b, "</B></TD></TR>");
	if (bx->kind == BOX_NODE && *bx->name) {
		strbuf_puts(b, "<TR><TD><FONT POINT-SIZE=\"8\" COLOR=\"#333333\">");
		html_put(b, bx->name, 60);
		strbuf_puts(b, "</FONT></TD></TR>");
	}
	for (uint16_t l = 0; l < bx->n_lines; l++) {
		strbuf_puts(b, bx->kind == BOX_NODE ? "<TR><TD ALIGN=\"LEFT\"><FONT POINT-SIZE=\"8\">" :
						      "<TR><TD><FONT POINT-SIZE=\"8\">");
		html_put(b, bx->lines[l], 72);
		strbuf_puts(b, "</FONT></TD></TR>");
	}
	strbuf_puts(b, "</TABLE>");
}

static void box_name(char *buf, size_t n, const struct scene_box *bx)
{
	snprintf(buf, n, "%c%d", bx->kind == BOX_NODE ? 'n' : bx->kind == BOX_INPUT ? 'i' : 'o', (int)bx->ref);
}

/* Which boxes to keep: those within radius edges of the focused box, by a breadth-first walk over the edges in
 * both directions.  keep[i] is set to 1 for them; returns 0 or -1 when out of memory. */
static int neighbourhood(const struct scene *s, uint32_t start, int radius, uint8_t *keep)
{
	uint32_t *deg = calloc((size_t)s->n_boxes + 1, sizeof *deg);
	uint32_t *adj = malloc(((size_t)s->n_edges + 1) * 2 * sizeof *adj);
	uint32_t *queue = malloc((s->n_boxes ? s->n_boxes : 1) * sizeof *queue);
	int *dist = malloc((s->n_boxes ? s->n_boxes : 1) * sizeof *dist);
	int r = -1;

	if (!deg || !adj || !queue || !dist)
		goto out;
	/* Adjacency in compressed rows: deg[i] .. deg[i+1] index adj. */
	for (uint32_t e = 0; e < s->n_edges; e++) {
		deg[s->edges[e].src + 1]++;
		deg[s->edges[e].dst + 1]++;
	}
	for (uint32_t i = 0; i < s->n_boxes; i++)
		deg[i + 1] += deg[i];
	for (uint32_t e = 0; e < s->n_edges; e++) {
		adj[deg[s->edges[e].src]++] = s->edges[e].dst;
		adj[deg[s->edges[e].dst]++] = s->edges[e].src;
	}
	for (uint32_t i = s->n_boxes; i > 0; i--) /* the filling moved each start to the next row's start */
		deg[i] = deg[i - 1];
	deg[0] = 0;
	for (uint32_t i = 0; i < s->n_boxes; i++)
		dist[i] = -1;
	uint32_t head = 0, tail = 0;
	dist[start] = 0;
	queue[tail++] = start;
	while (head < tail) {
		uint32_t b = queue[head++];
		keep[b] = 1;
		if (dist[b] >= radius)
			continue;
		for (uint32_t k = deg[b]; k < deg[b + 1]; k++)
			if (dist[adj[k]] < 0) {
				dist[adj[k]] = dist[b] + 1;
				queue[tail++] = adj[k];
			}
	}
	r = 0;
out:
	free(deg);
	free(adj);
	free(queue);
	free(dist);
	return r;
}

int dot_build(Agraph_t **out, struct ov_model *m, const struct graph *g, const struct shapes *sh,
	      const struct dot_options *opt, struct ov_error *err)
{
	struct scene_options so = {.max_width = 200, .ascii = !(opt && opt->unicode)};
	struct scene *s = NULL;
	Agraph_t *G = NULL;
	Agnode_t **nodes = NULL, **stubs = NULL;
	uint8_t *keep = NULL;
	struct strbuf b = {0};
	struct dot_syms y;
	int32_t focus_box = -1;
	char name[32];

	*out = NULL;
	if (opt && opt->use_focus && opt->focus >= g->n_nodes)
		return ov_fail(err, OV_INVALID, "no node #%u (the graph has nodes #0 to #%u)", opt->focus,
			       g->n_nodes ? g->n_nodes - 1 : 0);
	if (scene_build(&s, m, g, sh, &so, err))
		return -1;
	nodes = calloc(s->n_boxes ? s->n_boxes : 1, sizeof *nodes);
	stubs = calloc(s->n_boxes ? s->n_boxes : 1, sizeof *stubs);
	keep = malloc(s->n_boxes ? s->n_boxes : 1);
	if (!nodes || !stubs || !keep)
		goto oom;
	memset(keep, !(opt && opt->use_focus), s->n_boxes);
	if (opt && opt->use_focus) {
		focus_box = s->node_box[opt->focus];
		if (focus_box < 0) { /* a Constant drawn inside its one consumer */
			const struct graph_node *gn = &g->nodes[opt->focus];
			const struct graph_value *v = gn->proto->n_output ? &g->values[gn->out[0]] : NULL;
			if (v && v->n_uses)
				focus_box = s->node_box[v->uses[0].node];
		}
		if (focus_box < 0) {
			ov_fail(err, OV_INVALID, "node #%u is not drawn", opt->focus);
			goto fail;
		}
		if (neighbourhood(s, (uint32_t)focus_box, opt->radius < 0 ? 0 : opt->radius, keep))
			goto oom;
	}

	gv_quiet();
	G = agopen("onnx", Agdirected, NULL);
	if (!G)
		goto oom;
	attr(G, AGRAPH, "rankdir", "TB");
	attr(G, AGRAPH, "fontname", FONT);
	attr(G, AGRAPH, "nodesep", "0.25");
	attr(G, AGRAPH, "ranksep", "0.3");
	/* Layout speed: the network simplex that places boxes across each rank is what makes dot slow on big graphs;
	 * stopping it at its first feasible solution cut a 1,000-box graph from 5.9 s to 0.5 s and 3,000 boxes to
	 * 2 s with Graphviz 2.42, and still lines the main path up.  (nslimit1, mclimit and searchsize gained little;
	 * nslimit1=0 wrecks the ranking.) */
	attr(G, AGRAPH, "nslimit", "0");
	attr(G, AGNODE, "shape", "box");
	y.style = attr(G, AGNODE, "style", "rounded,filled");
	attr(G, AGNODE, "fontname", FONT);
	y.fontsize = attr(G, AGNODE, "fontsize", "10");
	attr(G, AGNODE, "margin", "0.06,0.03");
	attr(G, AGNODE, "height", "0.3");
	y.color = attr(G, AGNODE, "color", "#6b6b6b");
	y.penwidth = attr(G, AGNODE, "penwidth", "1");
	y.fill = attr(G, AGNODE, "fillcolor", category_fill[CAT_OTHER]);
	y.fontcolor = attr(G, AGNODE, "fontcolor", "#000000");
	y.tooltip = attr(G, AGNODE, "tooltip", "");
	y.label = attr(G, AGNODE, "label", "\\N");
	attr(G, AGEDGE, "fontname", FONT);
	attr(G, AGEDGE, "fontsize", "8");
	attr(G, AGEDGE, "arrowsize", "0.6");
	y.e_color = attr(G, AGEDGE, "color", "#555555");
	y.e_fontcolor = attr(G, AGEDGE, "fontcolor", "#333333");
	y.e_style = attr(G, AGEDGE, "style", "solid");
	y.e_tooltip = attr(G, AGEDGE, "tooltip", "");
	y.e_label = attr(G, AGEDGE, "label", "");

	for (uint32_t i = 0; i < s->n_boxes; i++) {
		const struct scene_box *bx = &s->boxes[i];
		if (!keep[i])
			continue;
		box_name(name, sizeof name, bx);
		Agnode_t *n = agnode(G, name, 1);
		if (!n)
			goto oom;
		nodes[i] = n;
		strbuf_reset(&b);
		box_label(&b, bx);
		set_html(G, n, y.label, strbuf_str(&b));
		set(n, y.fill, category_fill[bx->cat < CAT_COUNT ? bx->cat : CAT_OTHER]);
		strbuf_reset(&b);
		if (bx->kind == BOX_NODE) {
			strbuf_printf(&b, "#%d ", (int)bx->ref);
			plain_put(&b, bx->title, 100);
		} else {
			strbuf_printf(&b, "%s ", bx->title);
			plain_put(&b, bx->name, 100);
		}
		set(n, y.tooltip, strbuf_str(&b));
		if (bx->cat == CAT_CUSTOM) {
			set(n, y.color, "#c62828");
			set(n, y.penwidth, "2");
		}
		if ((int32_t)i == focus_box) {
			set(n, y.color, "#1565c0");
			set(n, y.penwidth, "3");
		}
	}
	for (uint32_t k = 0; k < s->n_edges; k++) {
		const struct scene_edge *se = &s->edges[k];
		Agnode_t *t = nodes[se->src], *h = nodes[se->dst];
		int cut = 0;
		if (!t && !h)
			continue;
		for (int end = 0; end < 2; end++) {
			uint32_t bi = end ? se->dst : se->src;
			if (nodes[bi])
				continue;
			cut = 1;
			if (!stubs[bi]) { /* one small dashed box per outside box */
				const struct scene_box *bx = &s->boxes[bi];
				snprintf(name, sizeof name, "s%u", bi);
				stubs[bi] = agnode(G, name, 1);
				if (!stubs[bi])
					goto oom;
				strbuf_reset(&b);
				strbuf_puts(&b, "&#8230; ");
				html_put(&b, bx->title, 30);
				if (*bx->name) {
					strbuf_puts(&b, " ");
					html_put(&b, bx->name, 30);
				}
				set_html(G, stubs[bi], y.label, strbuf_str(&b));
				set(stubs[bi], y.style, "rounded,dashed");
				set(stubs[bi], y.fontsize, "8");
				set(stubs[bi], y.fontcolor, "#555555");
				set(stubs[bi], y.color, "#999999");
				strbuf_reset(&b);
				strbuf_puts(&b, "outside the neighbourhood: ");
				if (bx->kind == BOX_NODE)
					strbuf_printf(&b, "#%d ", (int)bx->ref);
				plain_put(&b, bx->title, 100);
				set(stubs[bi], y.tooltip, strbuf_str(&b));
			}
			if (end)
				h = stubs[bi];
			else
				t = stubs[bi];
		}
		Agedge_t *e = agedge(G, t, h, NULL, 1);
		if (!e)
			goto oom;
		if (*se->label) {
			strbuf_reset(&b);
			html_put(&b, se->label, 80);
			set_html(G, e, y.e_label, strbuf_str(&b));
		}
		if (se->inferred)
			set(e, y.e_fontcolor, "#8a8a8a");
		if (cut) {
			set(e, y.e_style, "dashed");
			set(e, y.e_color, "#999999");
		}
		if (se->value >= 0 && (uint32_t)se->value < g->n_values) {
			strbuf_reset(&b);
			plain_put(&b, g->values[se->value].name, 200);
			set(e, y.e_tooltip, strbuf_str(&b));
		}
	}
	strbuf_free(&b);
	scene_free(s);
	free(nodes);
	free(stubs);
	free(keep);
	*out = G;
	return 0;
oom:
	ov_fail(err, OV_NOMEM, "out of memory building the Graphviz graph");
fail:
	if (G)
		agclose(G);
	strbuf_free(&b);
	scene_free(s);
	free(nodes);
	free(stubs);
	free(keep);
	return -1;
}

void dot_free(Agraph_t *g)
{
	if (g)
		agclose(g);
}

int dot_node_count(Agraph_t *g)
{
	return agnnodes(g);
}

/* ---- output ------------------------------------------------------------------------------------------------ */

int dot_format_of_path(const char *file)
{
	const char *dot = strrchr(file, '.'), *slash = strrchr(file, '/');

	if (!dot || (slash && dot < slash))
		return -1;
	if (!strcasecmp(dot, ".dot") || !strcasecmp(dot, ".gv"))
		return DOT_FORMAT_DOT;
	if (!strcasecmp(dot, ".svg"))
		return DOT_FORMAT_SVG;
	if (!strcasecmp(dot, ".png"))
		return DOT_FORMAT_PNG;
	return -1;
}

static const char *format_name(enum dot_format fmt)
{
	return fmt == DOT_FORMAT_SVG ? "svg" : fmt == DOT_FORMAT_PNG ? "png" : "dot";
}

int dot_format_check(enum dot_format fmt, struct ov_error *err)
{
	GVC_t *gvc;
	char **list;
	int n = 0, found = 0;

	if (fmt == DOT_FORMAT_DOT) /* libcgraph writes DOT by itself */
		return 0;
	gv_quiet();
	gvc = gvContext();
	if (!gvc)
		return gv_fail(err, OV_INVALID, "cannot start Graphviz");
	list = gvPluginList(gvc, "device", &n, NULL);
	for (int i = 0; i < n; i++) {
		size_t l = strcspn(list[i], ":");
		if (l == strlen(format_name(fmt)) && !strncmp(list[i], format_name(fmt), l))
			found = 1;
		free(list[i]);
	}
	free(list);
	list = gvPluginList(gvc, "layout", &n, NULL);
	int have_dot = 0;
	for (int i = 0; i < n; i++) {
		have_dot |= !strcmp(list[i], "dot") || !strncmp(list[i], "dot:", 4);
		free(list[i]);
	}
	free(list);
	gvFreeContext(gvc);
	if (!have_dot)
		return ov_fail(err, OV_INVALID, "this Graphviz has no dot layout plugin (Debian: libgvc6); write .dot "
			       "text instead");
	if (!found)
		return ov_fail(err, OV_INVALID, "this Graphviz cannot write %s: %s", fmt == DOT_FORMAT_PNG ? "PNG" : "SVG",
			       fmt == DOT_FORMAT_PNG ? "its cairo (or gd) plugin is missing; write .svg or .dot instead"
						     : "its core plugin is missing; write .dot instead");
	return 0;
}

int dot_write(Agraph_t *g, FILE *f, struct ov_error *err)
{
	gv_quiet();
	errno = 0;
	if (agwrite(g, f) == EOF || fflush(f) == EOF || ferror(f))
		return ov_fail(err, OV_WRITE, "cannot write the DOT text: %s", strerror(errno ? errno : EIO));
	return 0;
}

int ovdot_layout(GVC_t **out, Agraph_t *g, struct ov_error *err)
{
	GVC_t *gvc;

	*out = NULL;
	gv_quiet();
	gvc = gvContext();
	if (!gvc)
		return gv_fail(err, OV_INVALID, "cannot start Graphviz");
	if (gvLayout(gvc, g, "dot")) {
		gvFreeContext(gvc);
		return gv_fail(err, OV_INVALID, "Graphviz could not lay the graph out");
	}
	*out = gvc;
	return 0;
}

void dot_layout_free(GVC_t *gvc, Agraph_t *g)
{
	if (!gvc)
		return;
	gv_quiet();
	gvFreeLayout(gvc, g);
	gvFreeContext(gvc);
}

struct render_ctx {
	Agraph_t *g;
	GVC_t *gvc;
	enum dot_format fmt;
};

/* save_file's writer: the DOT text, or Graphviz's rendering, into the temporary file. */
static int render_to(int fd, void *ctx, struct ov_error *err)
{
	struct render_ctx *rc = ctx;
	int dfd = dup(fd);
	FILE *f = dfd >= 0 ? fdopen(dfd, "w") : NULL;
	int r = 0;

	if (!f) {
		if (dfd >= 0)
			close(dfd);
		return ov_fail(err, OV_WRITE, "cannot write: %s", strerror(errno));
	}
	errno = 0;
	if (rc->fmt == DOT_FORMAT_DOT) {
		r = dot_write(rc->g, f, err);
	} else {
		gv_quiet();
		if (gvRender(rc->gvc, rc->g, format_name(rc->fmt), f))
			r = gv_fail(err, OV_WRITE, "Graphviz could not render the graph");
	}
	if (!r && (fflush(f) == EOF || ferror(f)))
		r = ov_fail(err, OV_WRITE, "cannot write: %s", strerror(errno ? errno : EIO));
	if (fclose(f) == EOF && !r)
		r = ov_fail(err, OV_WRITE, "cannot write: %s", strerror(errno));
	return r;
}

int dot_save(Agraph_t *g, enum dot_format fmt, const char *file, unsigned flags, struct ov_error *err)
{
	struct render_ctx rc = {g, NULL, fmt};
	struct stat st;
	int r = -1;

	/* refuse before the layout, which may take a while: save_file says the same again, atomically */
	if (!(flags & OV_SAVE_REPLACE) && lstat(file, &st) == 0)
		return ov_fail(err, OV_EXISTS, "exists; use --force to replace it");
	if (fmt == DOT_FORMAT_PNG) {
		/* 96 dpi makes the 8-point rows hard to read.  Cairo bitmaps stop at 32767 pixels a side, and Graphviz
		 * says so on stderr itself when it shrinks a drawing to fit: cap the size (in inches) first. */
		agsafeset(g, "dpi", "144", "");
		agsafeset(g, "size", "220,220", "");
	}
	if (fmt != DOT_FORMAT_DOT && (dot_format_check(fmt, err) || ovdot_layout(&rc.gvc, g, err)))
		goto out;
	r = save_file(file, flags, render_to, &rc, err);
out:
	dot_layout_free(rc.gvc, g);
	return r;
}
