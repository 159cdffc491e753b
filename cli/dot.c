/* `onnxview dot`: the graph as Graphviz DOT text, or laid out by Graphviz into SVG or PNG, whole or around a node. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "src/graphviz/dot.h"
#include "src/graph/graph.h"
#include "src/model/model.h"
#include "src/model/save.h"
#include "src/graph/shape.h"

static const char dot_usage[] =
	"usage: onnxview dot MODEL [-o FILE.dot|FILE.svg|FILE.png] [--force] [--focus NODE [--radius N]]";

static void print_help(FILE *out)
{
	fprintf(out, "\n"
		     "Without -o the DOT text goes to standard output. The file's extension picks the format: .dot (or\n"
		     ".gv) the DOT text, .svg and .png laid out by Graphviz dot. An existing file is replaced only with\n"
		     "--force. --focus NODE (#N or a name) keeps the nodes at most N edges away (--radius, default %d);\n"
		     "the edges cut off end in small dashed stubs. Layouts of more than %d boxes are refused: use\n"
		     "--focus, or write .dot.\n",
		DOT_DEFAULT_RADIUS, DOT_LAYOUT_MAX_NODES);
}

enum { DOT_OUTPUT, DOT_FORCE, DOT_FOCUS, DOT_RADIUS };
static const struct opt_spec dot_opts[] = {
	[DOT_OUTPUT] = {.name = "--output", .alias = "-o", .arg = "FILE", .help = "write FILE.dot, FILE.svg or FILE.png"},
	[DOT_FORCE] = {.name = "--force", .alias = "-f", .help = "replace an existing FILE"},
	[DOT_FOCUS] = {.name = "--focus", .arg = "NODE", .help = "only the nodes around NODE (#N or a name)"},
	[DOT_RADIUS] = {.name = "--radius", .arg = "N", .help = "with --focus: how many edges away"},
};
static const struct opt_cmd dot_cmd = {
	.name = "dot", .usage = dot_usage, .opts = dot_opts, .n_opts = sizeof dot_opts / sizeof dot_opts[0],
	.pos_name = "model", .min_pos = 1, .max_pos = 1, .more_help = print_help,
};

/* The node --focus names, or -1 with the error line printed (like the edit commands: #N or a unique name). */
static int32_t find_focus(const struct graph *g, const char *ref, const char *path, FILE *err)
{
	struct ov_error e = {0};
	int32_t i = graph_find_node(g, ref);

	if (i < 0) {
		if (ref[0] == '#')
			ov_fail(&e, OV_INVALID, "--focus: no node %s (the graph has nodes #0 to #%u)", ref,
				g->n_nodes ? g->n_nodes - 1 : 0);
		else
			ov_fail(&e, OV_INVALID, "--focus: no node named '%s' (use #N for a node's index)", ref);
	} else if (ref[0] != '#' && g->n_duplicate_names) {
		for (uint32_t k = 0; k < g->n_nodes; k++)
			if ((int32_t)k != i && g->nodes[k].proto->name && !strcmp(g->nodes[k].proto->name, ref)) {
				ov_fail(&e, OV_INVALID, "--focus: more than one node is named '%s' (#%d and #%u): use #N",
					ref, i, k);
				i = -1;
				break;
			}
	}
	if (i < 0)
		ov_error_report(err, path, &e);
	return i;
}

int cmd_dot(int argc, char **argv, FILE *out, FILE *err)
{
	const char *path = NULL, *dest = NULL, *focus = NULL;
	int force = 0, radius = DOT_DEFAULT_RADIUS, have_radius = 0, fmt = DOT_FORMAT_DOT, rc = 0;
	struct ov_model *m = NULL;
	struct graph *g = NULL;
	struct shapes *sh = NULL;
	struct Agraph_s *G = NULL;
	struct dot_options opt = {0};
	struct ov_error e = {0};

	struct opt_parsed p;
	rc = opt_parse_cli(&dot_cmd, argc, argv, &p, out, err);
	if (rc >= 0) {
		opt_free(&p);
		return rc;
	}
	path = p.pos[0];
	dest = opt_value(&p, DOT_OUTPUT);
	focus = opt_value(&p, DOT_FOCUS);
	force = opt_given(&p, DOT_FORCE);
	if ((have_radius = opt_given(&p, DOT_RADIUS))) {
		const char *v = opt_value(&p, DOT_RADIUS);
		char *end;
		long r = strtol(v, &end, 10);
		if (!*v || *end || r < 0 || r > 1000) {
			opt_free(&p);
			return opt_usage_error(&dot_cmd, err, "--radius wants a number of edges from 0 to 1000, not '%s'", v);
		}
		radius = (int)r;
	}
	opt_free(&p);
	rc = 0;
	if (have_radius && !focus)
		return opt_usage_error(&dot_cmd, err, "--radius needs --focus NODE");
	if (dest) {
		fmt = dot_format_of_path(dest);
		if (fmt < 0)
			return opt_usage_error(&dot_cmd, err, "cannot tell the format of '%s': name it .dot, .svg or .png",
					       dest);
		/* Say that a renderer is missing before loading and laying out anything. */
		if (dot_format_check((enum dot_format)fmt, &e))
			return ov_error_report(err, dest, &e);
	}
	rc = model_load_report(path, &m, err);
	if (rc)
		return rc;
	if (graph_build(&g, m->proto->graph, &e)) {
		rc = ov_error_report(err, path, &e);
		goto out;
	}
	if (shape_infer(&sh, m, g, &e))
		sh = NULL; /* out of memory: draw the declared shapes only */
	if (focus) {
		int32_t i = find_focus(g, focus, path, err);
		if (i < 0) {
			rc = 1;
			goto out;
		}
		opt.use_focus = 1;
		opt.focus = (uint32_t)i;
		opt.radius = radius;
	}
	if (dot_build(&G, m, g, sh, &opt, &e)) {
		rc = ov_error_report(err, path, &e);
		goto out;
	}
	if (fmt != DOT_FORMAT_DOT && dot_node_count(G) > DOT_LAYOUT_MAX_NODES) {
		ov_fail(&e, OV_INVALID, "%d boxes are too many for a Graphviz layout (at most %d): use --focus NODE "
			"[--radius N] for a neighbourhood, or -o FILE.dot for the DOT text",
			dot_node_count(G), DOT_LAYOUT_MAX_NODES);
		rc = ov_error_report(err, path, &e);
		goto out;
	}
	if (!dest) {
		if (dot_write(G, out, &e))
			rc = ov_error_report(err, "standard output", &e);
	} else if (dot_save(G, (enum dot_format)fmt, dest, force ? OV_SAVE_REPLACE : 0, &e)) {
		rc = ov_error_report(err, dest, &e);
	}
out:
	dot_free(G);
	shapes_free(sh);
	graph_free(g);
	model_free(m);
	return rc;
}
