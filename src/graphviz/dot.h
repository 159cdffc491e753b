/* Graphviz export of a graph: the scene a front end draws (src/present/present.h) as a libcgraph graph, written as DOT
 * text or laid out by Graphviz's dot and rendered to SVG or PNG.
 *
 * Who calls: `onnxview dot` (cli/dot.c), and the TUI when it asks Graphviz for the neighbourhood of a node.
 * dot_build() turns the model, its graph index and its inferred shapes into a new graph that the caller owns and
 * releases with dot_free(); it shows what the TUI shows: one box per scene box (the op type in bold, the node
 * name, then the box's rows: constant inputs `W <64x3x7x7>` or `scales = [1, 1, 3, 3]`, attributes
 * `name = value`), filled with a fixed pastel colour per op category (custom-domain ops in a warning colour),
 * and the edges labelled with their shapes, ranks top to bottom.  With a focus, only the boxes at most radius
 * edges away from the focused node (in either direction) are kept, and each box outside that the kept ones are
 * wired to appears once as a small dashed stub, so the cut is visible.
 *
 * Everything that comes from the model is escaped: it only ever appears inside HTML-like labels (with &, <, >,
 * quotes and backslashes as entities, control bytes and invalid UTF-8 shown as \xNN) or, in tooltips, with
 * backslashes doubled; node names are onnxview's own.  The same model always gives the same DOT text.
 *
 * Graphviz node names, for front ends that map a layout back to the model: "n<N>" for node #N, "i<V>" and "o<V>"
 * for the graph input and graph output boxes of value id V, "s<B>" for the stub standing for scene box B.
 *
 * Graphviz's messages never reach the terminal: they are collected, and a failure reports the last of them in
 * the error.  The functions that take a path write through a temporary file in the destination folder that is
 * moved into place at the end (an existing file is replaced only with OV_SAVE_REPLACE, as model_save() does).
 */
#ifndef OV_DOT_H
#define OV_DOT_H

#include <stdint.h>
#include <stdio.h>

#include "src/base/error.h"

/* libcgraph's Agraph_t and libgvc's GVC_t, without making every includer find Graphviz's headers. */
struct Agraph_s;
struct GVC_s;
struct ov_model;
struct graph;
struct shapes;

/* Graphviz dot needs 22-32 s for a 5,000-node graph (and Debian's 2.42 fails beyond 32,767 ranks): front ends
 * refuse layouts of more nodes than this and offer a neighbourhood or the DOT text instead. */
#define DOT_LAYOUT_MAX_NODES 3000
#define DOT_DEFAULT_RADIUS 3

struct dot_options {
	int use_focus;  /* 1: only the neighbourhood of node #focus */
	uint32_t focus; /* node index (a Constant folded into its consumer stands for that consumer) */
	int radius;     /* with use_focus: keep boxes at most this many edges away (0: the focused box alone) */
	int unicode;    /* dims as 64×3×7×7 and ⟨⟩ as the TUI draws them in UTF-8 (default: ASCII 64x3x7x7, <>) */
};

enum dot_format { DOT_FORMAT_DOT, DOT_FORMAT_SVG, DOT_FORMAT_PNG };

/* Build the Graphviz graph of g (the main graph of m, indexed by graph_build; sh may be NULL).  opt may be NULL
 * (the whole graph).  Returns 0 with *out set, or -1 with err set (out of memory, focus out of range). */
int dot_build(struct Agraph_s **out, struct ov_model *m, const struct graph *g, const struct shapes *sh,
	      const struct dot_options *opt, struct ov_error *err);
void dot_free(struct Agraph_s *g);
/* Boxes in the graph (stubs included): what a layout has to place. */
int dot_node_count(struct Agraph_s *g);

/* The format a file name asks for by its extension (.dot or .gv, .svg, .png; any case), or -1. */
int dot_format_of_path(const char *path);
/* Whether this Graphviz can render fmt (PNG needs the cairo or gd plugin); -1 with err saying what is missing. */
int dot_format_check(enum dot_format fmt, struct ov_error *err);

/* The DOT text of g, no layout (any size). */
int dot_write(struct Agraph_s *g, FILE *f, struct ov_error *err);
/* (Not dot_layout: Graphviz has an internal function of that name, and a dynamic export would capture its calls.)
 * Lay g out with Graphviz dot (ranks top to bottom, the fastest settings that still look right).  *gvc is a new
 * context that must be released with dot_layout_free(), which also drops the layout.  No size check: see
 * DOT_LAYOUT_MAX_NODES. */
int ovdot_layout(struct GVC_s **gvc, struct Agraph_s *g, struct ov_error *err);
void dot_layout_free(struct GVC_s *gvc, struct Agraph_s *g);
/* Write g to path in fmt: DOT text as it is, SVG and PNG laid out first (PNG at 144 dpi and at most 220 inches,
 * 31,680 pixels, a side: this sets g's dpi and size).
 * flags: OV_SAVE_REPLACE (src/model/save.h). */
int dot_save(struct Agraph_s *g, enum dot_format fmt, const char *path, unsigned flags, struct ov_error *err);

#endif
