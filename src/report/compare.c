/* `onnxview compare`: run a model and something to hold it against (an edited copy, another backend, or tensors
 * saved from PyTorch) on the same inputs, keep every intermediate, and name the first node whose output differs
 * beyond tolerance, with what its inputs looked like on both sides. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/report.h"
#include "src/base/opts.h"
#include "src/model/describe.h"
#include "src/base/dtype.h"
#include "src/exec/diverge.h"
#include "src/exec/exec.h"
#include "src/graph/graph.h"
#include "src/base/json.h"
#include "src/model/model.h"
#include "src/exec/feed.h"
#include "src/graph/shape.h"
#include "src/base/strbuf.h"

static const char compare_usage[] =
	"usage: onnxview compare MODEL [OTHER] [--backend cpu|cuda] [--vs cpu|cuda] [--tf32] [--against DIR]\n"
	"                        [--input [NAME=]FILE|random[:SEED]|zeros|ones]... [--shape NAME=DxD..]... [--dim SYM=N]...\n"
	"                        [--from T,..] [--to T,..] [--rtol R] [--atol A] [--strict] [--max-iterations N]\n"
	"                        [--time-limit SECONDS] [--list] [--json]";

enum { C_BACKEND, C_VS, C_TF32, C_AGAINST, C_INPUT, C_SHAPE, C_DIM, C_FROM, C_TO, C_RTOL, C_ATOL, C_STRICT, C_MAX_ITER,
       C_TIME_LIMIT, C_LIST, C_JSON };
static const struct opt_spec compare_opts[] = {
	[C_BACKEND] = {.name = "--backend", .arg = "B", .choices = "cpu|cuda", .help = "where side A runs (cpu)"},
	[C_VS] = {.name = "--vs", .arg = "B", .choices = "cpu|cuda", .help = "where side B runs (A's backend)"},
	[C_TF32] = {.name = "--tf32", .help = "let a CUDA side use TF32"},
	[C_AGAINST] = {.name = "--against", .arg = "DIR", .help = "B is the tensors saved in DIR (NAME.npy)"},
	[C_INPUT] = {.name = "--input", .arg = "[NAME=]SPEC", .flags = OPT_REPEAT,
		     .help = "a file or random[:SEED], zeros, ones; without NAME= a generator fills every input"},
	[C_SHAPE] = {.name = "--shape", .arg = "NAME=DxD..", .flags = OPT_REPEAT, .help = "the shape of an input"},
	[C_DIM] = {.name = "--dim", .arg = "SYMBOL=N", .flags = OPT_REPEAT, .help = "the size of a named dynamic dim"},
	[C_FROM] = {.name = "--from", .arg = "T,..", .help = "start the cut at these values"},
	[C_TO] = {.name = "--to", .arg = "T,..", .help = "end the cut at these values"},
	[C_RTOL] = {.name = "--rtol", .arg = "R", .help = "ONNX's rule with this rtol"},
	[C_ATOL] = {.name = "--atol", .arg = "A", .help = "ONNX's rule with this atol"},
	[C_STRICT] = {.name = "--strict", .help = "ONNX's own rule: rtol 1e-3, atol 1e-7"},
	[C_MAX_ITER] = {.name = "--max-iterations", .arg = "N",
			.help = "stop a run after N Loop/Scan iterations in all (default 1000000)"},
	[C_TIME_LIMIT] = {.name = "--time-limit", .arg = "SECONDS", .help = "stop a run that takes longer"},
	[C_LIST] = {.name = "--list", .help = "every compared value"},
	[C_JSON] = {.name = "--json", .help = "the report as JSON"},
};
static const struct opt_cmd compare_cmd = {
	.name = "compare", .usage = compare_usage, .opts = compare_opts,
	.n_opts = sizeof compare_opts / sizeof compare_opts[0], .pos_name = "model", .min_pos = 1, .max_pos = 2,
};

#define MAX_LIST 4096

struct compare_args {
	const char *model, *other, *against;
	const char *backend, *vs;
	const char *inputs[MAX_LIST];
	size_t n_inputs;
	const char *default_spec; /* an unnamed generator (--input random): every input no --input names */
	struct feed_sizes sizes;  /* --shape, --dim */
	char *from[MAX_LIST], *to[MAX_LIST];
	size_t n_from, n_to;
	int have_from, have_to, json, list, tf32;
	struct compare_rule rule;
	struct exec_limits limits; /* --max-iterations, --time-limit: for each run */
};

/* One side of the comparison. */
struct side {
	const char *label;        /* what the report calls it: the file, or the directory */
	const char *backend;
	struct ov_model *m;
	struct graph *g;
	struct shapes *sh;
	struct exec_result r;
	int own;                  /* m, g, sh belong to this side (B may share A's) */
	struct exec_consts *consts; /* the caller's constants kept across runs of g (NULL: none) */
};

/* A tensor fed to both sides. */
struct fed {
	const char *name;         /* A's graph */
	const char *spec;         /* the file or generator */
	int defaulted;            /* no --input named it: random */
	char how[160];            /* how a generator made it */
	struct xtensor t;
};

struct compare_state {
	struct compare_args a;
	struct side A, B;
	struct fed *in;
	size_t n_in;
	struct exec_value *files; /* --against: the tensors read from DIR */
	size_t n_files;
	struct ov_error e;
	const char *what;         /* the file an error is about */
	FILE *errf;
	int knobs_said;           /* the OV_CUDA_* switches not understood were named (once for both sides) */
};

/* -1 to go on, or the exit status after printing the help (0) or a usage error (2). */
static int parse_args(int argc, char **argv, struct compare_args *a, FILE *out, FILE *err)
{
	struct opt_parsed p;
	struct ov_error e = {0};
	int rc = opt_parse_cli(&compare_cmd, argc, argv, &p, out, err);

	if (rc >= 0)
		goto out;
	rc = 2;
	a->model = p.pos[0];
	a->other = p.n_pos > 1 ? p.pos[1] : NULL;
	a->backend = opt_value(&p, C_BACKEND);
	a->vs = opt_value(&p, C_VS);
	a->against = opt_value(&p, C_AGAINST);
	a->tf32 = opt_given(&p, C_TF32);
	a->list = opt_given(&p, C_LIST);
	a->json = opt_given(&p, C_JSON);
	if (feed_rule(opt_value(&p, C_RTOL), opt_value(&p, C_ATOL), opt_given(&p, C_STRICT), &a->rule, &e))
		goto usage;
	for (int l = C_MAX_ITER; l <= C_TIME_LIMIT; l++) {
		const char *o = compare_opts[l].name, *v = opt_value(&p, l);
		if (v && exec_limits_parse(&a->limits, o, v)) {
			opt_fail(&compare_cmd, &e, "%s wants %s, not '%s'", o,
				 l == C_MAX_ITER ? "a count >= 1" : "a number of seconds > 0", v);
			goto usage_done;
		}
	}
	for (size_t i = 0; i < p.n; i++) {
		char *v = p.hit[i].val;
		switch (p.hit[i].opt) {
		case C_INPUT:
			if (!strchr(v, '=') && feed_is_generator(v)) {
				if (a->default_spec) {
					opt_fail(&compare_cmd, &e, "--input %s: an unnamed generator is given already (%s)", v,
						 a->default_spec);
					goto usage_done;
				}
				a->default_spec = v;
			} else if (a->n_inputs < MAX_LIST) {
				a->inputs[a->n_inputs++] = v;
			}
			break;
		case C_SHAPE:
			if (feed_sizes_add_shape(&a->sizes, v, &e))
				goto usage;
			break;
		case C_DIM:
			if (feed_sizes_add_dim(&a->sizes, v, &e))
				goto usage;
			break;
		case C_FROM:
		case C_TO: {
			int f = p.hit[i].opt == C_FROM;
			if (feed_split_list(f ? a->from : a->to, f ? &a->n_from : &a->n_to, MAX_LIST, v)) {
				opt_fail(&compare_cmd, &e, "too many names in --%s", f ? "from" : "to");
				goto usage_done;
			}
			*(f ? &a->have_from : &a->have_to) = 1;
			break;
		}
		}
	}
	if (a->against && (a->other || a->vs)) {
		rc = opt_usage_error(&compare_cmd, err, "--against DIR compares with saved tensors; it takes no OTHER model or --vs");
	} else if (!a->other && !a->vs && !a->against) {
		rc = opt_usage_error(&compare_cmd, err, "nothing to compare %s with: give OTHER, --vs BACKEND or --against DIR",
				     a->model);
	} else if (!a->other && a->vs && !strcmp(a->vs, a->backend ? a->backend : "cpu")) {
		rc = opt_usage_error(&compare_cmd, err, "--vs %s is the backend the model runs on already", a->vs);
	} else if (a->tf32 && !(a->backend && !strcmp(a->backend, "cuda")) && !(a->vs && !strcmp(a->vs, "cuda"))) {
		rc = opt_usage_error(&compare_cmd, err, "--tf32 is for a CUDA side (--backend cuda or --vs cuda)");
	} else if ((a->have_from && !a->n_from) || (a->have_to && !a->n_to)) {
		rc = opt_usage_error(&compare_cmd, err, "--%s names no value", a->have_from && !a->n_from ? "from" : "to");
	} else {
		rc = -1;
	}
	goto out;
usage:
	opt_fail(&compare_cmd, &e, "%s", e.msg);
usage_done:
	fprintf(err, "onnxview: %s\n%s\n", e.msg, compare_usage);
out:
	if (rc >= 0)
		feed_sizes_free(&a->sizes);
	opt_free(&p);
	return rc;
}

/* ---- the two sides ---- */

static int side_load(struct compare_state *s, struct side *sd, const char *path, const char *backend)
{
	int rc = model_load_report(path, &sd->m, s->errf);
	if (rc)
		return rc;
	sd->own = 1;
	sd->label = path;
	sd->backend = backend;
	s->what = path;
	if (graph_build(&sd->g, sd->m->proto->graph, &s->e) || shape_infer(&sd->sh, sd->m, sd->g, &s->e))
		return -1;
	return 0;
}

static void side_free(struct side *sd)
{
	exec_result_free(&sd->r);
	if (!sd->own)
		return;
	if (sd->sh)
		shapes_free(sd->sh);
	if (sd->g)
		graph_free(sd->g);
	if (sd->m)
		model_free(sd->m);
}

/* The cut for one side: --from/--to as given, the graph outputs otherwise (the names live in the graph). */
static int side_options(struct compare_state *s, struct side *sd, struct exec_options *opt, const char ***to_names)
{
	*opt = (struct exec_options){.keep_all = 1, .consts = sd->consts, .limits = s->a.limits};
	if (s->a.n_from) {
		opt->from = (const char *const *)s->a.from;
		opt->n_from = s->a.n_from;
	}
	if (s->a.n_to) {
		opt->to = (const char *const *)s->a.to;
		opt->n_to = s->a.n_to;
	} else {
		const Onnx__GraphProto *gp = sd->g->proto;
		*to_names = calloc(gp->n_output + 1, sizeof **to_names);
		if (!*to_names)
			return ov_fail(&s->e, OV_NOMEM, "out of memory");
		for (size_t i = 0; i < gp->n_output; i++)
			(*to_names)[i] = gp->output[i]->name ? gp->output[i]->name : "";
		opt->to = *to_names;
		opt->n_to = gp->n_output;
	}
	/* a name of the cut that this side's graph lacks is said plainly, before anything runs */
	for (size_t i = 0; i < opt->n_from + opt->n_to; i++) {
		const char *nm = i < opt->n_from ? opt->from[i] : opt->to[i - opt->n_from];
		if (graph_value_id(sd->g, nm) < 0)
			return ov_fail(&s->e, OV_USAGE, "%s names '%s', which is no value of this model",
				       i < opt->n_from ? "--from" : "--to", nm);
	}
	if (!strcmp(sd->backend, "cuda")) {
		opt->backend = exec_backend_cuda(&s->e);
		if (!opt->backend)
			return -1;
		char knobs[1024];
		if (exec_knobs_check(knobs, sizeof knobs) && !s->knobs_said++)
			fprintf(s->errf, "onnxview: warning: %s\n", knobs);
	}
	return 0;
}

static struct fed *fed_find(struct compare_state *s, const char *name)
{
	for (size_t i = 0; i < s->n_in; i++)
		if (!strcmp(s->in[i].name, name))
			return &s->in[i];
	return NULL;
}

/* Find or make the tensor a side needs for input 'name': a --input naming it, else random.  Side A makes them;
 * side B reuses A's by name (checked against B's declaration) and makes only what A did not need. */
static int feed_side(struct compare_state *s, struct side *sd, const struct exec_options *opt, int is_b)
{
	struct feed f = {.m = sd->m, .g = sd->g, .sh = sd->sh, .e = &s->e, .errf = s->errf, .sizes = &s->a.sizes};
	long n_need = exec_needed_inputs(sd->g, opt, NULL, 0, &s->e);
	const char **need;
	struct feed_resolved *res = NULL;
	int rc = -1;

	if (n_need < 0)
		return -1;
	need = calloc((size_t)n_need + 1, sizeof *need);
	res = calloc((size_t)n_need + 1, sizeof *res);
	if (!need || !res) {
		free(need);
		free(res);
		return ov_fail(&s->e, OV_NOMEM, "out of memory");
	}
	exec_needed_inputs(sd->g, opt, need, (size_t)n_need, &s->e);
	/* --shape and --dim must each name something side A needs */
	if (!is_b && feed_resolve_inputs(&f, need, (size_t)n_need, res) < 0)
		goto out;
	/* every --input must name something A's cut needs (B's when only B needs it) */
	for (size_t i = 0; i < s->a.n_inputs && !is_b; i++) {
		const char *name, *spec;
		if (feed_split_named(&f, s->a.inputs[i], need, n_need, "--input", &name, &spec))
			goto out;
	}
	for (long k = 0; k < n_need; k++) {
		int32_t id = graph_value_id(sd->g, need[k]);
		struct fed *have = fed_find(s, need[k]);
		if (have) {
			f.lenient_shapes = 0;
			if (feed_check(&f, id, &have->t, "the tensor fed to both", OV_USAGE))
				goto out;
			continue;
		}
		const char *spec = NULL;
		for (size_t i = 0; i < s->a.n_inputs && !spec; i++) {
			const char *name, *sp;
			struct ov_error quiet = {0};
			struct feed fq = f;
			fq.e = &quiet;
			if (!feed_split_named(&fq, s->a.inputs[i], need, n_need, "--input", &name, &sp) &&
			    !strcmp(name, need[k]))
				spec = sp;
		}
		struct fed nf = {.name = sd->g->values[id].name, .spec = spec ? spec : s->a.default_spec ? s->a.default_spec :
				 "random", .defaulted = !spec && !s->a.default_spec};
		f.how[0] = '\0';
		if (feed_input(&f, id, nf.spec, &nf.t))
			goto out;
		snprintf(nf.how, sizeof nf.how, "%s", f.how);
		struct fed *grown = realloc(s->in, (s->n_in + 1) * sizeof *s->in);
		if (!grown) {
			xt_free(&nf.t);
			ov_fail(&s->e, OV_NOMEM, "out of memory");
			goto out;
		}
		s->in = grown;
		s->in[s->n_in++] = nf;
	}
	rc = 0;
out:
	free(need);
	free(res);
	return rc;
}

static int run_side(struct compare_state *s, struct side *sd, int is_b)
{
	struct exec_options opt;
	const char **to_names = NULL;
	struct exec_input *in = NULL;
	int rc = -1;

	if (side_options(s, sd, &opt, &to_names) || feed_side(s, sd, &opt, is_b))
		goto out;
	in = calloc(s->n_in + 1, sizeof *in);
	if (!in) {
		ov_fail(&s->e, OV_NOMEM, "out of memory");
		goto out;
	}
	size_t n = 0;
	for (size_t i = 0; i < s->n_in; i++)
		if (graph_value_id(sd->g, s->in[i].name) >= 0)
			in[n++] = (struct exec_input){.name = s->in[i].name, .t = s->in[i].t};
	s->what = sd->label;
	exec_cuda_set_tf32(s->a.tf32 && !strcmp(sd->backend, "cuda"));
	if (exec_run(sd->m, sd->g, &opt, in, n, &sd->r, &s->e)) {
		if (strcmp(sd->backend, "cpu"))
			ov_wrap(&s->e, "on %s: ", sd->backend);
		goto out;
	}
	rc = 0;
out:
	free(in);
	free(to_names);
	return rc;
}

/* --against DIR: each value A kept, from DIR/NAME.npy when there is one (named as `run --save` names them). */
static int read_against(struct compare_state *s)
{
	struct feed f = {.m = s->A.m, .g = s->A.g, .sh = s->A.sh, .e = &s->e, .errf = s->errf};
	const char *dir = s->a.against;

	if (!feed_is_dir(dir))
		return ov_fail(&s->e, feed_file_exists(dir) ? OV_USAGE : OV_IO, "--against %s: %s", dir,
			       feed_file_exists(dir) ? "not a directory" : "no such directory");
	s->files = calloc(s->A.r.n_values + 1, sizeof *s->files);
	if (!s->files)
		return ov_fail(&s->e, OV_NOMEM, "out of memory");
	for (size_t i = 0; i < s->A.r.n_values; i++) {
		const struct exec_value *v = &s->A.r.values[i];
		char base[240], path[4400];
		if (!v->present)
			continue;
		feed_safe_name(v->name, base, sizeof base);
		snprintf(path, sizeof path, "%s/%s.npy", dir, base);
		if (!feed_file_exists(path))
			continue;
		struct exec_value *w = &s->files[s->n_files];
		if (feed_read(&f, path, &w->t, NULL))
			return -1;
		/* half-precision values travel as uint16 bit patterns in .npy */
		if (w->t.dtype == OV_DT_UINT16 && (v->t.dtype == OV_DT_FLOAT16 || v->t.dtype == OV_DT_BFLOAT16))
			w->t.dtype = v->t.dtype;
		w->name = v->name;
		w->present = 1;
		s->n_files++;
	}
	if (!s->n_files)
		return ov_fail(&s->e, OV_USAGE,
			       "--against %s: no file there is named after a value of this run (NAME.npy, with characters "
			       "other than letters, digits, '-', '_' and '.' written as '_', as `run --save` does)", dir);
	s->B.r.values = s->files;
	s->B.r.n_values = s->n_files;
	s->files = NULL; /* B's result owns them now */
	s->B.label = dir;
	s->B.backend = "files";
	return 0;
}

/* ---- the report ---- */

static const char *node_op(const struct graph *g, int32_t n)
{
	return n >= 0 && g->nodes[n].proto->op_type ? g->nodes[n].proto->op_type : "";
}

static const char *node_name(const struct graph *g, int32_t n)
{
	return n >= 0 && g->nodes[n].proto->name ? g->nodes[n].proto->name : "";
}

static void put_name(struct strbuf *b, const char *s)
{
	strbuf_putc(b, '\'');
	strbuf_put_safe(b, s, strlen(s), 80);
	strbuf_putc(b, '\'');
}

static void put_node(struct strbuf *b, const struct graph *g, int32_t n)
{
	if (n < 0) {
		strbuf_puts(b, "(fed)");
		return;
	}
	strbuf_printf(b, "#%" PRId32 " ", n);
	if (*node_name(g, n)) {
		put_name(b, node_name(g, n));
		strbuf_putc(b, ' ');
	}
	strbuf_puts(b, node_op(g, n));
}

static void put_stats_line(struct strbuf *b, const char *side, const struct xtensor *t)
{
	struct tensor_stats st;

	strbuf_printf(b, "    %s ", side);
	put_xtype(b, t);
	if (!xt_stats(t, &st)) {
		if (st.finite)
			strbuf_printf(b, "  min %.6g max %.6g mean %.6g std %.6g", st.min, st.max, st.mean, st.std);
		if (st.nans)
			strbuf_printf(b, " NaN %" PRId64, st.nans);
		if (st.pos_inf || st.neg_inf)
			strbuf_printf(b, " Inf %" PRId64, st.pos_inf + st.neg_inf);
	}
	strbuf_putc(b, '\n');
}

/* A small tensor's values: [1, 1, 2, 2] (nothing for more than 16 values). */
static void put_small(struct strbuf *b, const struct xtensor *t)
{
	if (t->numel > 16 || t->dtype == OV_DT_STRING)
		return;
	if (!t->numel) {
		strbuf_puts(b, " (empty)");
		return;
	}
	strbuf_puts(b, " [");
	for (int64_t i = 0; i < t->numel; i++)
		strbuf_printf(b, "%s%.6g", i ? ", " : "", xt_get(t, i));
	strbuf_putc(b, ']');
}

static void put_verdict(struct strbuf *b, const struct diverge_entry *e)
{
	const struct compare_stats *c = &e->c;

	if (c->shape_mismatch || c->dtype_mismatch) {
		strbuf_puts(b, c->shape_mismatch ? "shapes differ: " : "dtypes differ: ");
		put_xtype(b, e->a);
		strbuf_puts(b, " against ");
		put_xtype(b, e->b);
		return;
	}
	strbuf_printf(b, "%" PRId64 " of %" PRId64 " differ", c->mismatches, c->n);
	if (e->a->dtype == OV_DT_STRING)
		return;
	if (c->max_abs_at >= 0) {
		strbuf_printf(b, ", max abs %.6g at ", c->max_abs);
		put_index(b, e->a, c->max_abs_at);
		strbuf_printf(b, " (A %.8g, B %.8g)", xt_get(e->a, c->max_abs_at), xt_get(e->b, c->max_abs_at));
	}
	if (c->max_rel_at >= 0)
		strbuf_printf(b, ", max rel %.6g", c->max_rel);
	if (c->nan_a || c->nan_b)
		strbuf_printf(b, ", NaN A %" PRId64 " B %" PRId64, c->nan_a, c->nan_b);
	if (c->inf_a || c->inf_b)
		strbuf_printf(b, ", Inf A %" PRId64 " B %" PRId64, c->inf_a, c->inf_b);
	if (e->converted)
		strbuf_printf(b, " (%s against %s, compared as double)", dtype_short_name(e->a->dtype),
			      dtype_short_name(e->b->dtype));
	if (!c->pass) {
		if (isinf(c->min_atol) && isinf(c->min_rtol))
			strbuf_puts(b, "; no tolerance passes");
		else {
			strbuf_printf(b, "; would pass with --atol %.3g", c->min_atol);
			if (!isinf(c->min_rtol))
				strbuf_printf(b, " or --rtol %.3g", c->min_rtol);
		}
	}
}

static const struct diverge_entry *entry_of(const struct divergence *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->v[i].name, name))
			return &d->v[i];
	return NULL;
}

/* Why the first diverging node diverges: each input as both sides saw it.  Returns how many inputs differ (or
 * could not be told apart). */
static int explain_inputs(struct strbuf *b, struct compare_state *s, const struct divergence *d, int32_t node)
{
	int n_differ = 0;
	const struct graph *ga = s->A.g;
	const struct graph_node *nd = &ga->nodes[node];
	int two_models = s->B.g && s->B.g != ga;

	for (size_t i = 0; i < nd->proto->n_input; i++) {
		int32_t id = nd->in[i];
		if (id < 0)
			continue;
		const struct graph_value *gv = &ga->values[id];
		strbuf_printf(b, "    input %zu ", i);
		put_name(b, gv->name);
		strbuf_putc(b, ' ');
		const struct diverge_entry *e = entry_of(d, gv->name);
		if (e && e->status == DIV_MATCH) {
			strbuf_printf(b, "matches (max abs %.3g)\n", e->c.max_abs);
		} else if (e && e->status == DIV_DIFFER) {
			strbuf_puts(b, "differs too\n");
			n_differ++;
		} else if (e) {
			strbuf_puts(b, "is not in B\n");
			n_differ++;
		} else if (gv->constant) {
			int32_t idb = two_models ? graph_value_id(s->B.g, gv->name) : -1;
			const struct graph_value *gb = idb >= 0 ? &s->B.g->values[idb] : NULL;
			struct xtensor ta = {0}, tb = {0};
			struct ov_error ignore = {0};
			if (!two_models) {
				strbuf_puts(b, "is a constant of the model");
				if (!exec_tensor_from_proto(s->A.m, gv->constant, &ta, &ignore))
					put_small(b, &ta);
			} else if (!gb || !gb->constant) {
				strbuf_puts(b, gb ? "is a constant in A, computed in B" : "is a constant in A, absent in B");
				n_differ++;
			} else if (exec_tensor_from_proto(s->A.m, gv->constant, &ta, &ignore) ||
				   exec_tensor_from_proto(s->B.m, gb->constant, &tb, &ignore)) {
				strbuf_puts(b, "is a constant (unreadable: ");
				strbuf_puts(b, ignore.msg);
				strbuf_putc(b, ')');
				n_differ++;
			} else {
				struct compare_stats c;
				int conv;
				if (diverge_compare_any(&ta, &tb, &(struct compare_rule){0}, &c, &conv, &ignore) || !c.pass) {
					n_differ++;
					strbuf_puts(b, "is a constant that differs: A ");
					put_xtype(b, &ta);
					put_small(b, &ta);
					strbuf_puts(b, ", B ");
					put_xtype(b, &tb);
					put_small(b, &tb);
				} else {
					strbuf_puts(b, "is a constant, the same in both");
					put_small(b, &ta);
				}
			}
			xt_free(&ta);
			xt_free(&tb);
			strbuf_putc(b, '\n');
		} else if (fed_find(s, gv->name)) {
			strbuf_puts(b, "is fed, the same tensor to both\n");
		} else {
			strbuf_puts(b, "was not kept\n");
			n_differ++;
		}
	}
	return n_differ;
}

static const Onnx__AttributeProto *find_attr(const Onnx__NodeProto *n, const char *name)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (n->attribute[i]->name && !strcmp(n->attribute[i]->name, name))
			return n->attribute[i];
	return NULL;
}

static void attr_text(struct strbuf *b, struct ov_model *m, const Onnx__AttributeProto *a)
{
	if (a)
		describe_attr_value(b, m, a, 16);
	else
		strbuf_puts(b, "(absent)");
}

/* Two models: the node that makes the value in B, against A's (op and attributes). Returns the differences. */
static int explain_node(struct strbuf *b, struct compare_state *s, int32_t node, const char *value)
{
	const Onnx__NodeProto *na = s->A.g->nodes[node].proto;
	int32_t idb = graph_value_id(s->B.g, value);
	int32_t pb = idb >= 0 ? s->B.g->values[idb].producer : -1;
	int n = 0;

	if (pb < 0) {
		strbuf_puts(b, "    B computes it without a node of its own\n");
		return 1;
	}
	const Onnx__NodeProto *nb = s->B.g->nodes[pb].proto;
	if (strcmp(na->op_type ? na->op_type : "", nb->op_type ? nb->op_type : "") ||
	    strcmp(na->domain ? na->domain : "", nb->domain ? nb->domain : "")) {
		strbuf_printf(b, "    op: A %s, B %s\n", na->op_type ? na->op_type : "?", nb->op_type ? nb->op_type : "?");
		n++;
	}
	for (int side = 0; side < 2; side++) {
		const Onnx__NodeProto *x = side ? nb : na, *y = side ? na : nb;
		for (size_t i = 0; i < x->n_attribute; i++) {
			const Onnx__AttributeProto *ax = x->attribute[i], *ay = find_attr(y, ax->name ? ax->name : "");
			if (side && ay)
				continue; /* both have it: seen from A's side */
			struct strbuf ta = {0}, tb = {0};
			attr_text(&ta, side ? s->A.m : s->A.m, side ? ay : ax);
			attr_text(&tb, s->B.m, side ? ax : ay);
			if (strcmp(strbuf_str(&ta), strbuf_str(&tb))) {
				strbuf_puts(b, "    attribute ");
				put_name(b, ax->name ? ax->name : "");
				strbuf_printf(b, ": A %s, B %s\n", strbuf_str(&ta), strbuf_str(&tb));
				n++;
			}
			strbuf_free(&ta);
			strbuf_free(&tb);
		}
	}
	return n;
}

static const char *tf32_label(const struct compare_state *s, const struct side *sd)
{
	return s->a.tf32 && sd->backend && !strcmp(sd->backend, "cuda") ? " with TF32" : "";
}

static void report_text(struct strbuf *b, struct compare_state *s, const struct divergence *d)
{
	const struct graph *ga = s->A.g;

	strbuf_printf(b, "A: %s on %s%s: %" PRIu32 " nodes in %.3f ms", s->A.label, s->A.backend,
		      tf32_label(s, &s->A), s->A.r.nodes_run, s->A.r.ms);
	if (s->A.r.n_fallback)
		strbuf_printf(b, " (%zu on the CPU)", s->A.r.n_fallback);
	if (s->a.against)
		strbuf_printf(b, "\nB: %s: %zu saved tensor%s\n", s->B.label, s->B.r.n_values, s->B.r.n_values == 1 ? "" : "s");
	else {
		strbuf_printf(b, "\nB: %s on %s%s: %" PRIu32 " nodes in %.3f ms", s->B.label, s->B.backend,
			      tf32_label(s, &s->B), s->B.r.nodes_run, s->B.r.ms);
		if (s->B.r.n_fallback)
			strbuf_printf(b, " (%zu on the CPU)", s->B.r.n_fallback);
		strbuf_putc(b, '\n');
	}
	for (size_t i = 0; i < s->n_in; i++) {
		strbuf_puts(b, "input ");
		put_name(b, s->in[i].name);
		strbuf_putc(b, ' ');
		put_xtype(b, &s->in[i].t);
		strbuf_printf(b, " from %s", s->in[i].spec);
		if (*s->in[i].how && strcmp(s->in[i].how, s->in[i].spec))
			strbuf_printf(b, " (%s)", s->in[i].how);
		strbuf_puts(b, s->in[i].defaulted ? " (no --input named it)\n" : "\n");
	}
	char rule[200];
	compare_rule_describe(&s->a.rule, rule, sizeof rule);
	strbuf_printf(b, "compared %zu value%s (%s%s): %zu match, %zu differ", d->n_compared,
		      d->n_compared == 1 ? "" : "s", rule, s->a.rule.scale > 0 ? "; --strict for ONNX's rtol 1e-3, atol 1e-7" : "",
		      d->n_compared - d->n_differ, d->n_differ);
	if (d->n_only_a || (d->n_only_b && !s->a.against))
		strbuf_printf(b, "; only in A %zu, only in B %zu", d->n_only_a, d->n_only_b);
	strbuf_putc(b, '\n');
	if (s->a.list)
		for (size_t i = 0; i < d->n; i++) {
			const struct diverge_entry *e = &d->v[i];
			strbuf_puts(b, e->status == DIV_MATCH ? "  match  " : e->status == DIV_DIFFER ? "  DIFFER " : "  only A ");
			put_node(b, ga, e->node);
			strbuf_puts(b, " -> ");
			put_name(b, e->name);
			if (e->status == DIV_MATCH)
				strbuf_printf(b, "  max abs %.3g", e->c.max_abs);
			else if (e->status == DIV_DIFFER) {
				strbuf_puts(b, "  ");
				put_verdict(b, e);
			}
			strbuf_putc(b, '\n');
		}
	if (d->first < 0) {
		strbuf_puts(b, d->n_compared ? "no divergence: every compared value is within tolerance\n"
					     : "nothing compared: the runs share no value name\n");
		return;
	}
	const struct diverge_entry *e = &d->v[d->first];
	strbuf_puts(b, "first divergence: ");
	put_node(b, ga, e->node);
	strbuf_puts(b, " -> ");
	put_name(b, e->name);
	strbuf_putc(b, '\n');
	put_stats_line(b, "A", e->a);
	put_stats_line(b, "B", e->b);
	strbuf_puts(b, "    ");
	put_verdict(b, e);
	strbuf_putc(b, '\n');
	if (e->node >= 0) {
		int two_models = s->B.g && s->B.g != ga;
		int n_attr = two_models ? explain_node(b, s, e->node, e->name) : 0;
		int n_in = explain_inputs(b, s, d, e->node);
		if (!n_in && !n_attr)
			strbuf_printf(b, "    every input agrees: the difference starts inside this node%s\n",
				      two_models ? "" : " (its kernel on each side)");
		else if (!n_in)
			strbuf_puts(b, "    every input agrees: the node itself differs\n");
	}
	/* how far it spreads: the outputs */
	size_t n_to = s->A.r.n_to;
	for (size_t i = 0; i < n_to; i++) {
		const struct diverge_entry *o = entry_of(d, s->A.r.values[i].name);
		if (!o || o == e || o->status == DIV_ONLY_A)
			continue;
		strbuf_puts(b, "output ");
		put_name(b, o->name);
		if (o->status == DIV_MATCH)
			strbuf_printf(b, " matches (max abs %.3g)\n", o->c.max_abs);
		else {
			strbuf_puts(b, " differs: ");
			put_verdict(b, o);
			strbuf_putc(b, '\n');
		}
	}
}

static void json_side(struct json *j, const char *key, const struct side *sd, int files, int tf32_on)
{
	json_key(j, key);
	json_obj(j);
	json_kstr(j, files ? "dir" : "model", sd->label);
	json_kstr(j, "backend", sd->backend);
	json_key(j, "tf32");
	json_bool(j, !files && !strcmp(sd->backend, "cuda") && tf32_on);
	if (!files) {
		json_kint(j, "nodes_run", sd->r.nodes_run);
		json_key(j, "ms");
		json_double(j, sd->r.ms);
		json_key(j, "fallback_nodes");
		json_arr(j);
		for (size_t i = 0; i < sd->r.n_fallback; i++)
			json_int(j, sd->r.fallback_nodes[i]);
		json_end_arr(j);
	} else {
		json_kint(j, "tensors", (int64_t)sd->r.n_values);
	}
	json_end_obj(j);
}

static void report_json(struct strbuf *b, struct compare_state *s, const struct divergence *d)
{
	const struct graph *ga = s->A.g;
	static const char *const status[] = {"match", "differ", "only_a"};
	struct json j;

	json_init(&j, b, 1);
	json_obj(&j);
	json_side(&j, "a", &s->A, 0, s->a.tf32);
	json_side(&j, "b", &s->B, s->a.against != NULL, s->a.tf32);
	json_key(&j, "inputs");
	json_arr(&j);
	for (size_t i = 0; i < s->n_in; i++) {
		json_obj(&j);
		json_kstr(&j, "name", s->in[i].name);
		json_kstr(&j, "source", s->in[i].spec);
		json_key(&j, "defaulted");
		json_bool(&j, s->in[i].defaulted);
		json_kstr(&j, "how", s->in[i].how);
		json_end_obj(&j);
	}
	json_end_arr(&j);
	compare_rule_json(&j, &s->a.rule);
	json_kint(&j, "compared", (int64_t)d->n_compared);
	json_kint(&j, "differ", (int64_t)d->n_differ);
	json_kint(&j, "only_a", (int64_t)d->n_only_a);
	json_kint(&j, "only_b", (int64_t)d->n_only_b);
	json_key(&j, "first");
	if (d->first < 0) {
		json_null(&j);
	} else {
		const struct diverge_entry *e = &d->v[d->first];
		json_obj(&j);
		json_kstr(&j, "value", e->name);
		json_kint(&j, "node", e->node);
		json_kstr(&j, "op", node_op(ga, e->node));
		json_kstr(&j, "node_name", node_name(ga, e->node));
		json_end_obj(&j);
	}
	json_key(&j, "values");
	json_arr(&j);
	for (size_t i = 0; i < d->n; i++) {
		const struct diverge_entry *e = &d->v[i];
		json_obj(&j);
		json_kstr(&j, "name", e->name);
		json_kint(&j, "node", e->node);
		json_kstr(&j, "op", node_op(ga, e->node));
		json_kstr(&j, "status", status[e->status]);
		if (e->b) {
			json_key(&j, "converted");
			json_bool(&j, e->converted);
			compare_stats_json(&j, &e->c, e->a, "a", "b");
		}
		json_end_obj(&j);
	}
	json_end_arr(&j);
	json_key(&j, "only_b_values");
	json_arr(&j);
	for (size_t i = 0; i < d->n_only_b; i++)
		json_str(&j, d->only_b[i]);
	json_end_arr(&j);
	json_key(&j, "pass");
	json_bool(&j, d->n_differ == 0);
	json_end_obj(&j);
	strbuf_putc(b, '\n');
}

/* Run side A (loaded) and side B, and compare them.  0, -1 with s->e set (s->what names the file), or an exit
 * status already reported to s->errf (a model that cannot be loaded). */
static int compare_sides(struct compare_state *s, struct divergence *d)
{
	const char *be_a = s->A.backend;
	int rc;

	if (run_side(s, &s->A, 0))
		return -1;
	s->what = s->A.label;
	if (s->a.against) {
		if (read_against(s))
			return -1;
	} else {
		const char *be_b = s->a.vs ? s->a.vs : be_a;
		if (s->a.other) {
			rc = side_load(s, &s->B, s->a.other, be_b);
			if (rc)
				return rc;
		} else {
			s->B = (struct side){.label = s->A.label, .backend = be_b, .m = s->A.m, .g = s->A.g, .sh = s->A.sh,
					     .consts = s->A.consts};
		}
		s->what = s->B.label;
		if (run_side(s, &s->B, 1))
			return -1;
	}
	s->what = s->A.label;
	return diverge_compute(s->A.g, &s->A.r, &s->B.r, &s->a.rule, d, &s->e);
}

static void state_free(struct compare_state *s, struct divergence *d)
{
	diverge_free(d);
	feed_sizes_free(&s->a.sizes);
	for (size_t i = 0; s->files && i < s->n_files; i++) /* --against that failed before B took them */
		xt_free(&s->files[i].t);
	free(s->files);
	for (size_t i = 0; i < s->n_in; i++)
		xt_free(&s->in[i].t);
	free(s->in);
	side_free(&s->B);
	side_free(&s->A);
}

int compare_report(int argc, char **argv, FILE *out, FILE *err)
{
	struct compare_state s = {0};
	struct divergence d = {0};
	int rc = parse_args(argc, argv, &s.a, out, err);

	if (rc >= 0)
		return rc;
	s.errf = err;
	rc = side_load(&s, &s.A, s.a.model, s.a.backend ? s.a.backend : "cpu");
	if (!rc)
		rc = compare_sides(&s, &d);
	if (rc > 0)
		goto free;
	if (rc) {
		rc = ov_error_report(err, s.what ? s.what : s.a.model, &s.e);
		if (!rc)
			rc = 1;
		goto free;
	}
	struct strbuf b = {0};
	if (s.a.json)
		report_json(&b, &s, &d);
	else
		report_text(&b, &s, &d);
	fwrite(strbuf_str(&b), 1, b.len, out);
	strbuf_free(&b);
	rc = d.n_differ ? 1 : 0;
free:
	state_free(&s, &d);
	return rc;
}

/* The last line a command wrote to a memory stream, without the "onnxview: " prefix, as the error message. */
static void take_message(char *text, size_t len, struct ov_error *err, enum ov_status code)
{
	while (len && (text[len - 1] == '\n'))
		text[--len] = '\0';
	char *first = text;
	char *nl = strchr(first, '\n');
	if (nl)
		*nl = '\0'; /* the first line names the problem; usage lines follow */
	if (!strncmp(first, "onnxview: ", 10))
		first += 10;
	ov_fail(err, code, "%s", *first ? first : "compare failed");
}

int compare_render(struct ov_model *m, const struct graph *g, struct shapes *sh, const char *label, int argc,
		   char **argv, struct strbuf *report, uint8_t *marks, int32_t *first_node, struct exec_result *keep_a,
		   struct exec_result *keep_b, struct exec_consts *consts, struct ov_error *err)
{
	struct compare_state s = {0};
	struct divergence d = {0};
	char *msg = NULL;
	size_t msg_len = 0;
	FILE *mf = open_memstream(&msg, &msg_len);
	char **args = calloc((size_t)argc + 2, sizeof *args);
	int rc;

	*first_node = -1;
	if (!mf || !args) {
		if (mf)
			fclose(mf);
		free(msg);
		free(args);
		return ov_fail(err, OV_NOMEM, "out of memory");
	}
	args[0] = (char *)label;
	for (int i = 0; i < argc; i++)
		args[i + 1] = argv[i];
	rc = parse_args(argc + 1, args, &s.a, mf, mf);
	if (rc >= 0) {
		fclose(mf);
		take_message(msg, msg_len, err, rc ? OV_USAGE : OV_INVALID);
		free(msg);
		free(args);
		return rc ? rc : 2;
	}
	s.errf = mf;
	s.A = (struct side){.label = label, .backend = s.a.backend ? s.a.backend : "cpu", .m = m, .g = (struct graph *)g,
			    .sh = sh, .consts = consts};
	rc = compare_sides(&s, &d);
	fclose(mf);
	if (rc > 0) {
		take_message(msg, msg_len, err, OV_IO);
	} else if (rc) {
		rc = ov_status_exit_code(s.e.code);
		*err = s.e;
		if (s.what && strcmp(s.what, label))
			ov_wrap(err, "%s: ", s.what);
	} else {
		report_text(report, &s, &d);
		for (size_t i = 0; i < d.n; i++)
			if (d.v[i].node >= 0 && (uint32_t)d.v[i].node < g->n_nodes) {
				uint8_t mk = d.v[i].status == DIV_MATCH ? COMPARE_MARK_MATCH : COMPARE_MARK_DIFFER;
				if (marks[d.v[i].node] != COMPARE_MARK_DIFFER) /* one output that differs marks the node */
					marks[d.v[i].node] = mk;
			}
		if (d.first >= 0)
			*first_node = d.v[d.first].node;
		rc = d.n_differ ? 1 : 0;
		/* the values of both runs, for the caller to show (names of B's own values point into B's graph,
		 * which goes with this call: only the names A's graph has are kept) */
		if (keep_a) {
			*keep_a = s.A.r;
			memset(&s.A.r, 0, sizeof s.A.r);
		}
		if (keep_b) {
			struct exec_result *r = &s.B.r;
			size_t n = 0;
			for (size_t i = 0; i < r->n_values; i++) {
				int32_t id = graph_value_id(g, r->values[i].name);
				if (id < 0) {
					xt_free(&r->values[i].t);
					continue;
				}
				r->values[i].name = g->values[id].name;
				r->values[n++] = r->values[i];
			}
			r->n_values = n;
			r->n_to = 0;
			*keep_b = *r;
			memset(r, 0, sizeof *r);
		}
	}
	free(msg);
	free(args);
	s.A.own = 0;
	state_free(&s, &d);
	return rc;
}
