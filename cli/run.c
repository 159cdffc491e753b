/* `onnxview run`: run a model (or a cut of it) on the CPU or the CUDA backend, feed it tensor files or generated
 * inputs, print what comes out, and check it against expected tensors (an ONNX test data set, or files named per
 * value). */
#include "config.h"

#include <malloc.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cmd.h"
#include "src/model/describe.h"
#include "src/base/dtype.h"
#include "src/exec/exec.h"
#include "src/graph/graph.h"
#include "src/base/json.h"
#include "src/base/opts.h"
#include "src/model/model.h"
#include "src/model/save.h"
#include "src/exec/feed.h"
#include "src/exec/repeat.h"
#include "src/report/report.h"
#include "src/graph/shape.h"
#include "src/base/strbuf.h"
#include "src/model/tensor-stats.h"
#include "src/model/tensorfile.h"

static const char run_usage[] =
	"usage: onnxview run MODEL [--input [NAME=]FILE|random[:SEED]|zeros|ones]... [--shape NAME=DxD..]... [--dim SYM=N]...\n"
	"                      [--from T,..] [--to T,..] [--all] [--backend cpu|cuda [--tf32]] [--expect DIR|NAME=FILE]...\n"
	"                      [--rtol R] [--atol A] [--strict] [--save DIR [--force]] [--repeat N]\n"
	"                      [--max-iterations N] [--time-limit SECONDS] [--profile] [--json]";

enum { R_INPUT, R_SHAPE, R_DIM, R_FROM, R_TO, R_ALL, R_BACKEND, R_TF32, R_EXPECT, R_RTOL, R_ATOL, R_STRICT, R_SAVE,
       R_FORCE, R_REPEAT, R_MAX_ITER, R_TIME_LIMIT, R_PROFILE, R_JSON };
static const struct opt_spec run_opts[] = {
	[R_INPUT] = {.name = "--input", .arg = "[NAME=]SPEC", .flags = OPT_REPEAT,
		     .help = "a file (.npy, .pb) or random[:SEED], zeros, ones; without NAME= a generator fills every input"},
	[R_SHAPE] = {.name = "--shape", .arg = "NAME=DxD..", .flags = OPT_REPEAT, .help = "the shape of an input (1x3x640x640)"},
	[R_DIM] = {.name = "--dim", .arg = "SYMBOL=N", .flags = OPT_REPEAT, .help = "the size of a named dynamic dim (batch=1)"},
	[R_FROM] = {.name = "--from", .arg = "T,..", .help = "start the cut at these values"},
	[R_TO] = {.name = "--to", .arg = "T,..", .help = "end the cut at these values"},
	[R_ALL] = {.name = "--all", .help = "keep and report every value computed"},
	[R_BACKEND] = {.name = "--backend", .arg = "B", .choices = "cpu|cuda", .help = "where to run (cpu)"},
	[R_TF32] = {.name = "--tf32", .help = "let CUDA use TF32"},
	[R_EXPECT] = {.name = "--expect", .arg = "DIR|NAME=FILE", .flags = OPT_REPEAT,
		      .help = "an ONNX test data set, or a file a value must match"},
	[R_RTOL] = {.name = "--rtol", .arg = "R", .help = "ONNX's rule with this rtol"},
	[R_ATOL] = {.name = "--atol", .arg = "A", .help = "ONNX's rule with this atol"},
	[R_STRICT] = {.name = "--strict", .help = "ONNX's own rule: rtol 1e-3, atol 1e-7"},
	[R_SAVE] = {.name = "--save", .arg = "DIR", .help = "write every reported value as DIR/NAME.npy"},
	[R_FORCE] = {.name = "--force", .alias = "-f", .help = "--save may replace files that exist (never through links)"},
	[R_REPEAT] = {.name = "--repeat", .arg = "N", .help = "run N more times and report the timings"},
	[R_MAX_ITER] = {.name = "--max-iterations", .arg = "N",
			.help = "stop a run after N Loop/Scan iterations in all (default 1000000)"},
	[R_TIME_LIMIT] = {.name = "--time-limit", .arg = "SECONDS", .help = "stop a run that takes longer"},
	[R_PROFILE] = {.name = "--profile", .help = "time every node (of the last run with --repeat)"},
	[R_JSON] = {.name = "--json", .help = "the report as JSON"},
};
static const struct opt_cmd run_cmd = {
	.name = "run", .usage = run_usage, .opts = run_opts, .n_opts = sizeof run_opts / sizeof run_opts[0],
	.pos_name = "model", .min_pos = 1, .max_pos = 1,
};

#define MAX_LIST 4096

struct run_args {
	const char *model;
	const char *inputs[MAX_LIST]; /* NAME=SPEC or SPEC */
	size_t n_inputs;
	const char *default_spec;     /* an unnamed generator: every input no --input names */
	struct feed_sizes sizes;      /* --shape, --dim */
	const char *expects[MAX_LIST];
	size_t n_expects;
	char *from[MAX_LIST], *to[MAX_LIST];
	size_t n_from, n_to;
	int all, json, have_from, have_to, tf32, force, profile;
	const char *backend, *save;
	struct compare_rule rule;
	long repeat; /* --repeat N (0: not given) */
	struct exec_limits limits; /* --max-iterations, --time-limit */
};

/* A tensor fed or expected: where it came from, and the tensor. */
struct named {
	const char *name; /* a graph value's name (owned by the graph) */
	char *source;     /* file name or generator, for messages (malloc'd) */
	char *how;        /* how a generator made it (malloc'd), or NULL */
	struct xtensor t;
	int have;
	int from_set; /* read from an ONNX test data set (--expect DIR) */
};

struct run_state {
	struct run_args a;
	struct ov_model *m;
	struct graph *g;
	struct shapes *sh;
	struct named *in;
	size_t n_in;
	struct named *want;
	size_t n_want;
	struct ov_error e;
	FILE *errf;
	struct feed f; /* m, g, sh and e for the shared feeding functions */
	struct run_repeat rr; /* --repeat */
};

/* -1 to go on, or the exit status after the help (0) or a usage error (2). */
static int parse_args(int argc, char **argv, struct run_args *a, FILE *out, FILE *err)
{
	struct opt_parsed p;
	struct ov_error e = {0};
	int rc = opt_parse_cli(&run_cmd, argc, argv, &p, out, err);

	if (rc >= 0)
		goto out;
	a->model = p.pos[0];
	a->all = opt_given(&p, R_ALL);
	a->json = opt_given(&p, R_JSON);
	a->profile = opt_given(&p, R_PROFILE);
	a->tf32 = opt_given(&p, R_TF32);
	a->backend = opt_value(&p, R_BACKEND);
	a->save = opt_value(&p, R_SAVE);
	a->force = opt_given(&p, R_FORCE);
	if (a->force && !a->save) {
		rc = opt_usage_error(&run_cmd, err, "--force is for --save (replacing .npy files that exist)");
		goto out;
	}
	for (int l = R_MAX_ITER; l <= R_TIME_LIMIT; l++) {
		const char *o = run_opts[l].name, *v = opt_value(&p, l);
		if (v && exec_limits_parse(&a->limits, o, v)) {
			rc = opt_usage_error(&run_cmd, err, "%s wants %s, not '%s'", o,
					     l == R_MAX_ITER ? "a count >= 1" : "a number of seconds > 0", v);
			goto out;
		}
	}
	if (feed_rule(opt_value(&p, R_RTOL), opt_value(&p, R_ATOL), opt_given(&p, R_STRICT), &a->rule, &e)) {
		rc = opt_usage_error(&run_cmd, err, "%s", e.msg);
		goto out;
	}
	if (opt_given(&p, R_REPEAT)) {
		const char *v = opt_value(&p, R_REPEAT);
		char *end;
		errno = 0;
		long n = strtol(v, &end, 10);
		if (errno || end == v || *end || n < 1 || n > RUN_REPEAT_MAX) {
			rc = opt_usage_error(&run_cmd, err, "--repeat wants a count from 1 to %d, not '%s'", RUN_REPEAT_MAX, v);
			goto out;
		}
		a->repeat = n;
	}
	for (size_t i = 0; i < p.n; i++) {
		char *v = p.hit[i].val;
		switch (p.hit[i].opt) {
		case R_INPUT:
			if (!strchr(v, '=') && feed_is_generator(v)) {
				if (a->default_spec) {
					rc = opt_usage_error(&run_cmd, err, "--input %s: an unnamed generator is given already (%s)",
							     v, a->default_spec);
					goto out;
				}
				a->default_spec = v;
			} else if (a->n_inputs < MAX_LIST) {
				a->inputs[a->n_inputs++] = v;
			}
			break;
		case R_EXPECT:
			if (a->n_expects < MAX_LIST)
				a->expects[a->n_expects++] = v;
			break;
		case R_SHAPE:
		case R_DIM:
			if ((p.hit[i].opt == R_SHAPE ? feed_sizes_add_shape : feed_sizes_add_dim)(&a->sizes, v, &e)) {
				rc = opt_usage_error(&run_cmd, err, "%s", e.msg);
				goto out;
			}
			break;
		case R_FROM:
		case R_TO: {
			int f = p.hit[i].opt == R_FROM;
			if (feed_split_list(f ? a->from : a->to, f ? &a->n_from : &a->n_to, MAX_LIST, v)) {
				rc = opt_usage_error(&run_cmd, err, "too many names in --%s", f ? "from" : "to");
				goto out;
			}
			*(f ? &a->have_from : &a->have_to) = 1;
			break;
		}
		}
	}
	if (a->have_from && !a->n_from)
		rc = opt_usage_error(&run_cmd, err, "--from names no value");
	else if (a->have_to && !a->n_to)
		rc = opt_usage_error(&run_cmd, err, "--to names no value");
	else if (a->tf32 && (!a->backend || strcmp(a->backend, "cuda")))
		rc = opt_usage_error(&run_cmd, err, "--tf32 is for --backend cuda (the CPU computes float32 in full)");
out:
	opt_free(&p);
	return rc;
}

static struct named *named_find(struct named *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i].name, name))
			return &list[i];
	return NULL;
}

/* An ONNX test data set: input_N.pb (when no --input is given) and output_N.pb. */
static int load_data_set(struct run_state *s, const char *dir, int take_inputs, const char *const *to, size_t n_to)
{
	char path[4096];
	size_t found = 0;

	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0 && !take_inputs)
			continue;
		for (size_t i = 0;; i++) {
			snprintf(path, sizeof path, "%s/%s_%zu.pb", dir, pass ? "output" : "input", i);
			if (!feed_file_exists(path))
				break;
			struct xtensor t;
			char *pbname = NULL;
			/* a sequence or optional file is read as such when the value it stands for (by position) is declared
			 * one; the name it carries may then move it to another value */
			int32_t guess = -1;
			if (pass == 0 && i < s->g->proto->n_input)
				guess = graph_value_id(s->g, s->g->proto->input[i]->name ? s->g->proto->input[i]->name : "");
			else if (pass == 1 && i < n_to)
				guess = graph_value_id(s->g, to[i]);
			if (feed_read_value(&s->f, guess, path, &t, &pbname))
				return -1;
			const char *name = NULL;
			if (pass == 0) {
				int32_t id = pbname ? graph_value_id(s->g, pbname) : -1;
				if (id >= 0 && s->g->values[id].input_index >= 0)
					name = s->g->values[id].name;
				else if (i < s->g->proto->n_input)
					name = s->g->proto->input[i]->name;
			} else {
				for (size_t k = 0; pbname && k < n_to; k++)
					if (!strcmp(to[k], pbname))
						name = to[k];
				if (!name && i < n_to)
					name = to[i];
			}
			free(pbname);
			if (!name) {
				xt_free(&t);
				return ov_fail(&s->e, OV_USAGE, "%s: the model has no %s %zu", path,
					       pass ? "output" : "input", i);
			}
			struct named **list = pass ? &s->want : &s->in;
			size_t *n = pass ? &s->n_want : &s->n_in;
			struct named *nn = realloc(*list, (*n + 1) * sizeof **list);
			if (!nn) {
				xt_free(&t);
				return ov_fail(&s->e, OV_NOMEM, "out of memory");
			}
			*list = nn;
			nn[*n] = (struct named){.name = name, .source = strdup(path), .t = t, .have = 1, .from_set = 1};
			(*n)++;
			if (pass)
				found++;
		}
	}
	/* a folder without outputs would compare nothing, and say nothing: .npy files of one's own go by name */
	if (!found)
		return ov_fail(&s->e, OV_USAGE,
			       "--expect %s: no output_0.pb there (a data set holds input_N.pb and output_N.pb; a file "
			       "of one's own goes as --expect NAME=FILE)", dir);
	return 0;
}

static int add_named(struct named **list, size_t *n, const char *name, const char *source, struct xtensor *t,
		     struct ov_error *e)
{
	struct named *nn = realloc(*list, (*n + 1) * sizeof **list);
	if (!nn)
		return ov_fail(e, OV_NOMEM, "out of memory");
	*list = nn;
	nn[*n] = (struct named){.name = name, .source = strdup(source), .t = *t, .have = 1};
	(*n)++;
	return 0;
}

/* ---- saving ---- */

static int save_value(const char *dir, unsigned flags, const char *name, const struct xtensor *t, char **used,
		      size_t n_used, char **out_file, struct ov_error *e)
{
	char base[240], file[4096];

	feed_safe_name(name, base, sizeof base);
	snprintf(file, sizeof file, "%s", base);
	for (int k = 2;; k++) {
		int clash = 0;
		for (size_t i = 0; i < n_used; i++)
			clash |= !strcmp(used[i], file);
		if (!clash)
			break;
		snprintf(file, sizeof file, "%s_%d", base, k);
	}
	*out_file = strdup(file);
	if (!t)
		return *out_file ? 0 : ov_fail(e, OV_NOMEM, "out of memory");
	char path[4400];
	snprintf(path, sizeof path, "%s/%s.npy", dir, file);
	if (!tensorfile_npy_descr(t->dtype))
		return ov_fail(e, OV_INVALID, "'%s' is %s, which .npy cannot hold", name, dtype_short_name(t->dtype));
	if (tensorfile_write_npy(path, flags, t->dtype, t->dims, (size_t)t->rank, t->data, e))
		return -1;
	return 0;
}

/* ---- report ---- */

/* What a value shows: a tensor inline (the value, or what an optional holds), or a sequence's tensors one per line
 * (the value's, or an optional's); an empty optional has neither. */
struct parts {
	const struct xtensor *main;
	const struct xtensor *items;
	int64_t n_items;
	int seq;
};

static struct parts value_parts(const struct xtensor *t)
{
	struct parts p = {0};

	if (t->kind == XT_OPTIONAL) {
		if (!t->numel)
			return p;
		t = &xt_items(t)[0];
	}
	if (t->kind == XT_SEQUENCE) {
		p.seq = 1;
		p.items = xt_items(t);
		p.n_items = t->numel;
	} else {
		p.main = t;
	}
	return p;
}

struct out_report {
	const struct exec_value *v;
	struct parts parts;
	struct tensor_stats st;       /* of parts.main */
	int have_stats;
	struct tensor_stats *ist;     /* of each of parts.items */
	int *ihave;
	struct named *want;
	struct parts wparts;
	int kind_mismatch;            /* kinds, lengths or emptiness differ: nothing else compared */
	struct compare_stats c;       /* parts.main against wparts.main; for a sequence, pass says whether all pass */
	struct compare_stats *ic;     /* item against item */
	char *saved;                  /* a sequence's items are saved as saved.I.npy */
};

/* "#12 'conv1' Conv", as the executor names nodes in its messages */
static void node_label(const struct graph *g, uint32_t n, char *buf, size_t len)
{
	const Onnx__NodeProto *p = g->nodes[n].proto;

	if (p->name && *p->name)
		snprintf(buf, len, "#%" PRIu32 " '%s' %s", n, p->name, p->op_type ? p->op_type : "?");
	else
		snprintf(buf, len, "#%" PRIu32 " %s", n, p->op_type ? p->op_type : "?");
}

static void text_number(struct strbuf *b, double x)
{
	strbuf_printf(b, "%.6g", x);
}

/* "  min 0 max 1 mean 0.5 std 0.2 NaN 1" */
static void text_stats(struct strbuf *b, const struct tensor_stats *st)
{
	if (st->finite) {
		strbuf_puts(b, "  min ");
		text_number(b, st->min);
		strbuf_puts(b, " max ");
		text_number(b, st->max);
		strbuf_puts(b, " mean ");
		text_number(b, st->mean);
		strbuf_puts(b, " std ");
		text_number(b, st->std);
	}
	if (st->nans)
		strbuf_printf(b, " NaN %" PRId64, st->nans);
	if (st->pos_inf)
		strbuf_printf(b, " +Inf %" PRId64, st->pos_inf);
	if (st->neg_inf)
		strbuf_printf(b, " -Inf %" PRId64, st->neg_inf);
}

/* got against want (tensors) as the report's lines: "  PASS against SOURCE: 0 of 6 differ, ..." (label: an item) */
static void text_compare(struct strbuf *b, const char *source, const char *label, const struct xtensor *got,
			 const struct xtensor *want, const struct compare_stats *c)
{
	strbuf_puts(b, c->pass ? "  PASS" : "  FAIL");
	strbuf_puts(b, " against ");
	strbuf_put_safe(b, source, strlen(source), 0);
	if (label)
		strbuf_printf(b, ": %s", label);
	if (c->dtype_mismatch || c->shape_mismatch) {
		strbuf_puts(b, ": expected ");
		put_xtype(b, want);
		strbuf_puts(b, ", got ");
		put_xtype(b, got);
		strbuf_putc(b, '\n');
		return;
	}
	strbuf_printf(b, ": %" PRId64 " of %" PRId64 " differ", c->mismatches, c->n);
	if (got->dtype == OV_DT_STRING) {
		if (c->max_abs_at >= 0) {
			const char *g = ((char *const *)got->data)[c->max_abs_at];
			const char *w = ((char *const *)want->data)[c->max_abs_at];
			strbuf_puts(b, ", the first at ");
			put_index(b, got, c->max_abs_at);
			strbuf_puts(b, " (got \"");
			strbuf_put_safe(b, g ? g : "", g ? strlen(g) : 0, 60);
			strbuf_puts(b, "\", want \"");
			strbuf_put_safe(b, w ? w : "", w ? strlen(w) : 0, 60);
			strbuf_puts(b, "\")");
		}
		strbuf_putc(b, '\n');
		return;
	}
	if (c->max_abs_at >= 0) {
		strbuf_puts(b, ", max abs ");
		text_number(b, c->max_abs);
		strbuf_puts(b, " at ");
		put_index(b, got, c->max_abs_at);
		if (got->dtype != OV_DT_STRING) {
			strbuf_puts(b, " (got ");
			text_number(b, xt_get(got, c->max_abs_at));
			strbuf_puts(b, ", want ");
			text_number(b, xt_get(want, c->max_abs_at));
			strbuf_putc(b, ')');
		}
	}
	if (c->max_rel_at >= 0) {
		strbuf_puts(b, ", max rel ");
		text_number(b, c->max_rel);
		strbuf_puts(b, " at ");
		put_index(b, got, c->max_rel_at);
	}
	if (c->nan_a || c->nan_b)
		strbuf_printf(b, ", NaN got %" PRId64 " want %" PRId64, c->nan_a, c->nan_b);
	if (c->inf_a || c->inf_b)
		strbuf_printf(b, ", Inf got %" PRId64 " want %" PRId64, c->inf_a, c->inf_b);
	if (!c->pass) {
		if (isinf(c->min_atol) && isinf(c->min_rtol))
			strbuf_puts(b, "; no tolerance passes (NaN/Inf or strings differ)");
		else {
			strbuf_puts(b, "; would pass with --atol ");
			text_number(b, c->min_atol);
			if (!isinf(c->min_rtol)) {
				strbuf_puts(b, " or --rtol ");
				text_number(b, c->min_rtol);
			}
		}
	}
	strbuf_putc(b, '\n');
}

static void report_text(struct strbuf *b, struct run_state *s, const struct exec_result *r, struct out_report *rep,
			size_t n_rep, const char *backend, int n_fail, int n_cmp)
{
	strbuf_printf(b, "ran %" PRIu32 " node%s on %s in %.3f ms", r->nodes_run, r->nodes_run == 1 ? "" : "s",
		      backend, r->ms);
	if (r->nodes_kept)
		strbuf_printf(b, "; %" PRIu32 " more kept from constants (folded)", r->nodes_kept);
	if (r->n_fallback)
		strbuf_printf(b, " (%zu on the CPU: the backend cannot run them)", r->n_fallback);
	strbuf_putc(b, '\n');
	if (r->n_fallback) {
		strbuf_puts(b, "on the CPU: ");
		for (size_t i = 0; i < r->n_fallback && i < 8; i++) {
			char where[300];
			node_label(s->g, r->fallback_nodes[i], where, sizeof where);
			if (i)
				strbuf_puts(b, ", ");
			strbuf_put_safe(b, where, strlen(where), 0);
		}
		if (r->n_fallback > 8)
			strbuf_printf(b, " and %zu more", r->n_fallback - 8);
		strbuf_putc(b, '\n');
	}
	put_copies(b, r);
	if (s->a.repeat)
		run_repeat_text(b, &s->rr);
	for (size_t i = 0; i < s->n_in; i++) { /* what was fed, generated inputs with how */
		if (s->in[i].from_set)
			continue;
		strbuf_puts(b, "input '");
		strbuf_put_safe(b, s->in[i].name, strlen(s->in[i].name), 0);
		strbuf_puts(b, "' ");
		put_xtype(b, &s->in[i].t);
		strbuf_puts(b, " from ");
		strbuf_put_safe(b, s->in[i].source, strlen(s->in[i].source), 0);
		if (s->in[i].how)
			strbuf_printf(b, " (%s)", s->in[i].how);
		strbuf_putc(b, '\n');
	}
	for (size_t i = 0; i < r->n_notes; i++) {
		char where[300];
		node_label(s->g, r->notes[i].node, where, sizeof where);
		strbuf_puts(b, "note: ");
		strbuf_put_safe(b, where, strlen(where), 0);
		strbuf_puts(b, ": ");
		strbuf_put_safe(b, r->notes[i].text, strlen(r->notes[i].text), 0);
		strbuf_putc(b, '\n');
	}
	for (size_t i = 0; i < n_rep; i++) {
		const struct out_report *o = &rep[i];
		strbuf_puts(b, i < r->n_to ? "output " : "value ");
		strbuf_putc(b, '\'');
		strbuf_put_safe(b, o->v->name, strlen(o->v->name), 0);
		strbuf_puts(b, "' ");
		if (!o->v->present) {
			strbuf_puts(b, "not computed\n");
			continue;
		}
		put_xtype(b, &o->v->t);
		if (o->have_stats)
			text_stats(b, &o->st);
		if (o->saved && !o->parts.seq)
			strbuf_printf(b, "  saved %s.npy", o->saved);
		strbuf_putc(b, '\n');
		/* a sequence: one line per tensor */
		for (int64_t k = 0; k < o->parts.n_items; k++) {
			strbuf_printf(b, "  [%" PRId64 "] ", k);
			put_xtype(b, &o->parts.items[k]);
			if (o->ihave && o->ihave[k])
				text_stats(b, &o->ist[k]);
			if (o->saved)
				strbuf_printf(b, "  saved %s.%" PRId64 ".npy", o->saved, k);
			strbuf_putc(b, '\n');
		}
		if (!o->want)
			continue;
		if (o->kind_mismatch) {
			strbuf_puts(b, "  FAIL against ");
			strbuf_put_safe(b, o->want->source, strlen(o->want->source), 0);
			strbuf_puts(b, ": expected ");
			put_xtype(b, &o->want->t);
			strbuf_puts(b, ", got ");
			put_xtype(b, &o->v->t);
			strbuf_putc(b, '\n');
		} else if (o->parts.main) {
			text_compare(b, o->want->source, NULL, o->parts.main, o->wparts.main, &o->c);
		} else if (o->c.pass) {
			strbuf_puts(b, "  PASS against ");
			strbuf_put_safe(b, o->want->source, strlen(o->want->source), 0);
			if (o->parts.seq)
				strbuf_printf(b, ": %" PRId64 " tensor%s match\n", o->parts.n_items, o->parts.n_items == 1 ? "" : "s");
			else
				strbuf_puts(b, ": both empty\n");
		} else {
			/* the tensors that differ, each on its line */
			for (int64_t k = 0; k < o->parts.n_items; k++) {
				char label[40];
				if (o->ic[k].pass)
					continue;
				snprintf(label, sizeof label, "[%" PRId64 "]", k);
				text_compare(b, o->want->source, label, &o->parts.items[k], &o->wparts.items[k], &o->ic[k]);
			}
		}
	}
	if (n_cmp) {
		char rule[200];
		compare_rule_describe(&s->a.rule, rule, sizeof rule);
		strbuf_printf(b, "%s: %d of %d compared value%s %s (%s%s)\n", n_fail ? "FAIL" : "PASS",
			      n_fail ? n_fail : n_cmp, n_cmp, n_cmp == 1 ? "" : "s", n_fail ? "differ" : "match", rule,
			      s->a.rule.scale > 0 ? "; --strict for ONNX's rtol 1e-3, atol 1e-7" : "");
	}
	if (s->a.profile) {
		if (s->rr.prof)
			profile_text(b, s->g, s->rr.prof, s->rr.n_prof, s->rr.runs);
		else
			profile_text(b, s->g, r->prof, r->n_prof, 1);
	}
}

/* "dtype", "shape" and "stats" of a tensor, as keys of the object being written */
static void json_tensor_info(struct json *j, const struct xtensor *t, const struct tensor_stats *st)
{
	json_kstr(j, "dtype", dtype_short_name(t->dtype));
	json_key(j, "shape");
	json_arr(j);
	for (int d = 0; d < t->rank; d++)
		json_int(j, t->dims[d]);
	json_end_arr(j);
	if (!st)
		return;
	json_key(j, "stats");
	json_obj(j);
	json_kint(j, "count", st->count);
	json_kint(j, "finite", st->finite);
	json_key(j, "min");
	json_double(j, st->min);
	json_key(j, "max");
	json_double(j, st->max);
	json_key(j, "mean");
	json_double(j, st->mean);
	json_key(j, "std");
	json_double(j, st->std);
	json_kint(j, "nan", st->nans);
	json_kint(j, "pos_inf", st->pos_inf);
	json_kint(j, "neg_inf", st->neg_inf);
	json_end_obj(j);
}

static void report_json(struct strbuf *b, struct run_state *s, const struct exec_result *r, struct out_report *rep,
			size_t n_rep, const char *backend, int n_fail, int n_cmp)
{
	struct json j;

	json_init(&j, b, 1);
	json_obj(&j);
	json_kstr(&j, "model", s->a.model);
	json_kstr(&j, "backend", backend);
	json_key(&j, "tf32");
	json_bool(&j, s->a.tf32);
	json_kint(&j, "nodes_run", r->nodes_run);
	json_kint(&j, "nodes_kept", r->nodes_kept);
	json_key(&j, "ms");
	json_double(&j, r->ms);
	json_key(&j, "fallback_nodes");
	json_arr(&j);
	for (size_t i = 0; i < r->n_fallback; i++)
		json_int(&j, r->fallback_nodes[i]);
	json_end_arr(&j);
	json_key(&j, "copies");
	json_obj(&j);
	json_kint(&j, "to_device", (int64_t)r->to_device);
	json_kint(&j, "to_device_bytes", (int64_t)r->to_device_bytes);
	json_kint(&j, "to_host", (int64_t)r->to_host);
	json_kint(&j, "to_host_bytes", (int64_t)r->to_host_bytes);
	json_end_obj(&j);
	if (s->a.repeat)
		run_repeat_json(&j, &s->rr);
	json_key(&j, "notes");
	json_arr(&j);
	for (size_t i = 0; i < r->n_notes; i++) {
		const Onnx__NodeProto *np = s->g->nodes[r->notes[i].node].proto;
		json_obj(&j);
		json_kint(&j, "node", r->notes[i].node);
		json_kstr(&j, "name", np->name ? np->name : "");
		json_kstr(&j, "op", np->op_type ? np->op_type : "");
		json_kstr(&j, "text", r->notes[i].text);
		json_end_obj(&j);
	}
	json_end_arr(&j);
	compare_rule_json(&j, &s->a.rule);
	json_key(&j, "inputs");
	json_arr(&j);
	for (size_t i = 0; i < s->n_in; i++) {
		json_obj(&j);
		json_kstr(&j, "name", s->in[i].name);
		json_kstr(&j, "source", s->in[i].source);
		json_kstr(&j, "how", s->in[i].how ? s->in[i].how : "");
		json_end_obj(&j);
	}
	json_end_arr(&j);
	json_key(&j, "values");
	json_arr(&j);
	for (size_t i = 0; i < n_rep; i++) {
		const struct out_report *o = &rep[i];
		json_obj(&j);
		json_kstr(&j, "name", o->v->name);
		json_key(&j, "output");
		json_bool(&j, i < r->n_to);
		json_key(&j, "present");
		json_bool(&j, o->v->present);
		if (o->v->present && o->v->t.kind != XT_TENSOR) {
			/* a sequence or optional: its kind, then what it holds (an optional's tensor as a tensor's keys) */
			json_kstr(&j, "kind", xt_kind_name(o->v->t.kind));
			if (o->v->t.kind == XT_OPTIONAL) {
				json_key(&j, "empty");
				json_bool(&j, !o->parts.main && !o->parts.seq);
			}
		}
		if (o->v->present && o->parts.main)
			json_tensor_info(&j, o->parts.main, o->have_stats ? &o->st : NULL);
		if (o->parts.seq) {
			json_key(&j, "items");
			json_arr(&j);
			for (int64_t k = 0; k < o->parts.n_items; k++) {
				json_obj(&j);
				json_tensor_info(&j, &o->parts.items[k], o->ihave && o->ihave[k] ? &o->ist[k] : NULL);
				if (o->saved) {
					char f[300];
					snprintf(f, sizeof f, "%s.%" PRId64, o->saved, k);
					json_key(&j, "saved");
					json_str(&j, f);
				}
				json_end_obj(&j);
			}
			json_end_arr(&j);
		}
		if (o->saved && !o->parts.seq) {
			json_key(&j, "saved");
			json_str(&j, o->saved);
		}
		if (o->want && !o->parts.main) {
			/* a sequence (or empty optional): pass, and item by item */
			json_key(&j, "expect");
			json_obj(&j);
			json_kstr(&j, "source", o->want->source);
			json_key(&j, "pass");
			json_bool(&j, o->c.pass && !o->kind_mismatch);
			json_key(&j, "kind_mismatch");
			json_bool(&j, o->kind_mismatch);
			char want[256];
			xt_describe(&o->want->t, want, sizeof want);
			json_kstr(&j, "want", want);
			json_key(&j, "items");
			json_arr(&j);
			for (int64_t k = 0; !o->kind_mismatch && k < o->parts.n_items; k++) {
				json_obj(&j);
				compare_stats_json(&j, &o->ic[k], &o->parts.items[k], "got", "want");
				json_end_obj(&j);
			}
			json_end_arr(&j);
			json_end_obj(&j);
		} else if (o->want && o->kind_mismatch) {
			json_key(&j, "expect");
			json_obj(&j);
			json_kstr(&j, "source", o->want->source);
			json_key(&j, "pass");
			json_bool(&j, 0);
			json_key(&j, "kind_mismatch");
			json_bool(&j, 1);
			char want[256];
			xt_describe(&o->want->t, want, sizeof want);
			json_kstr(&j, "want", want);
			json_end_obj(&j);
		} else if (o->want) {
			const struct compare_stats *c = &o->c;
			const struct xtensor *got_t = o->parts.main, *want_t = o->wparts.main;
			json_key(&j, "expect");
			json_obj(&j);
			json_kstr(&j, "source", o->want->source);
			json_kstr(&j, "want_dtype", dtype_short_name(want_t->dtype));
			json_key(&j, "want_shape");
			json_arr(&j);
			for (int d = 0; d < want_t->rank; d++)
				json_int(&j, want_t->dims[d]);
			json_end_arr(&j);
			compare_stats_json(&j, c, got_t, "got", "want");
			json_end_obj(&j);
		}
		json_end_obj(&j);
	}
	json_end_arr(&j);
	json_kint(&j, "compared", n_cmp);
	json_kint(&j, "failed", n_fail);
	json_key(&j, "pass");
	json_bool(&j, n_fail == 0);
	if (s->a.profile) {
		if (s->rr.prof)
			profile_json(&j, s->g, s->rr.prof, s->rr.n_prof, s->rr.runs);
		else
			profile_json(&j, s->g, r->prof, r->n_prof, 1);
	}
	json_end_obj(&j);
	strbuf_putc(b, '\n');
}

/* o's value against what o->want expects: kinds and lengths first, then tensor against tensor.  -1: out of
 * memory. */
static int compare_value(struct out_report *o, struct run_state *s)
{
	struct xtensor *w = &o->want->t;

	o->wparts = value_parts(w);
	if (w->kind != o->v->t.kind || !o->wparts.main != !o->parts.main || o->wparts.seq != o->parts.seq ||
	    o->wparts.n_items != o->parts.n_items) {
		o->kind_mismatch = 1;
		o->c.pass = 0;
		return 0;
	}
	if (o->parts.main) {
		struct xtensor *wm = (struct xtensor *)o->wparts.main;
		/* bfloat16 and float16 travel as uint16 bit patterns in files */
		int32_t got = o->parts.main->dtype;
		if (wm->dtype == OV_DT_UINT16 && (got == OV_DT_BFLOAT16 || got == OV_DT_FLOAT16))
			wm->dtype = got;
		exec_compare_rule(o->parts.main, wm, &s->a.rule, &o->c);
		return 0;
	}
	o->c.pass = 1;
	if (!o->parts.n_items)
		return 0;
	o->ic = calloc((size_t)o->parts.n_items, sizeof *o->ic);
	if (!o->ic)
		return -1;
	for (int64_t k = 0; k < o->parts.n_items; k++) {
		exec_compare_rule(&o->parts.items[k], &o->wparts.items[k], &s->a.rule, &o->ic[k]);
		o->c.pass &= o->ic[k].pass;
	}
	return 0;
}

/* --save: a tensor (or an optional's) as NAME.npy, a sequence's tensors as NAME.0.npy, NAME.1.npy...; a dtype .npy
 * cannot hold gets a note and is skipped.  0, or -1 with se set. */
static int save_parts(const char *dir, unsigned flags, struct out_report *o, char **used, size_t n_used, FILE *errf,
		      struct ov_error *se)
{
	const struct parts *p = &o->parts;
	const char *name = o->v->name;

	if (!p->main && !p->seq) {
		struct ov_error note = {.code = OV_OK};
		snprintf(note.msg, sizeof note.msg, "note: --save: '%s' is an empty optional; not saved", name);
		ov_error_report(errf, NULL, &note);
		return 0;
	}
	for (int64_t k = 0; k < (p->seq ? p->n_items : 1); k++) {
		const struct xtensor *t = p->seq ? &p->items[k] : p->main;
		if (!tensorfile_npy_descr(t->dtype)) {
			struct ov_error note = {.code = OV_OK};
			snprintf(note.msg, sizeof note.msg, "note: --save: '%s' is %s, which .npy cannot hold; not saved", name,
				 dtype_short_name(t->dtype));
			ov_error_report(errf, NULL, &note);
			return 0;
		}
	}
	if (!p->seq)
		return save_value(dir, flags, name, p->main, used, n_used, &o->saved, se);
	/* the items after one unique base name */
	if (save_value(dir, flags, name, NULL, used, n_used, &o->saved, se))
		return -1;
	for (int64_t k = 0; k < p->n_items; k++) {
		char path[4400];
		const struct xtensor *t = &p->items[k];
		snprintf(path, sizeof path, "%s/%s.%" PRId64 ".npy", dir, o->saved, k);
		if (tensorfile_write_npy(path, flags, t->dtype, t->dims, (size_t)t->rank, t->data, se))
			return -1;
	}
	return 0;
}

/* ---- the command ---- */

static void state_free(struct run_state *s)
{
	for (size_t i = 0; i < s->n_in; i++) {
		xt_free(&s->in[i].t);
		free(s->in[i].source);
		free(s->in[i].how);
	}
	feed_sizes_free(&s->a.sizes);
	for (size_t i = 0; i < s->n_want; i++) {
		xt_free(&s->want[i].t);
		free(s->want[i].source);
	}
	free(s->in);
	free(s->want);
	if (s->sh)
		shapes_free(s->sh);
	if (s->g)
		graph_free(s->g);
	if (s->m)
		model_free(s->m);
}

static const char *non_tensor_kind(const Onnx__ValueInfoProto *d)
{
	if (!d || !d->type)
		return NULL;
	switch (d->type->value_case) {
	case ONNX__TYPE_PROTO__VALUE_MAP_TYPE: return "a map";
	case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE: return "a sparse tensor";
	default: return NULL;
	}
}

/* The executor holds dense tensors, sequences of tensors and optionals: maps and sparse tensors among the inputs
 * or outputs of the cut are refused by name before any file is read. */
static int check_tensor_types(struct run_state *s, const struct exec_options *opt)
{
	long n = exec_needed_inputs(s->g, opt, NULL, 0, &s->e);
	const char **need;

	if (n < 0)
		return -1;
	need = calloc((size_t)n + 1, sizeof *need);
	if (!need)
		return ov_fail(&s->e, OV_NOMEM, "out of memory");
	exec_needed_inputs(s->g, opt, need, (size_t)n, &s->e);
	for (long i = 0; i <= n + (long)opt->n_to - 1; i++) {
		const char *name = i < n ? need[i] : opt->to[i - n];
		int32_t id = graph_value_id(s->g, name);
		const char *kind = id >= 0 ? non_tensor_kind(s->g->values[id].declared) : NULL;
		if (kind) {
			ov_fail(&s->e, OV_INVALID, "%s '%s' is %s: the executor runs tensors, sequences and optionals only",
				i < n ? "input" : "output",
				name, kind);
			free(need);
			return -1;
		}
	}
	free(need);
	return 0;
}

static int gather_inputs(struct run_state *s, const struct exec_options *opt)
{
	const char **need = NULL;
	long n_need = exec_needed_inputs(s->g, opt, NULL, 0, &s->e);
	int rc = -1;

	if (n_need < 0)
		return -1;
	need = calloc((size_t)n_need + 1, sizeof *need);
	if (!need)
		return ov_fail(&s->e, OV_NOMEM, "out of memory");
	exec_needed_inputs(s->g, opt, need, (size_t)n_need, &s->e);

	/* --expect: directories (data sets) and NAME=FILE */
	for (size_t i = 0; i < s->a.n_expects; i++) {
		const char *arg = s->a.expects[i];
		if (feed_is_dir(arg)) {
			if (load_data_set(s, arg, s->a.n_inputs == 0 && !s->a.default_spec && !s->n_in, opt->to, opt->n_to))
				goto out;
			continue;
		}
		const char *name, *spec;
		const char **to = (const char **)opt->to;
		if (feed_split_named(&s->f, arg, to, (long)opt->n_to, "--expect", &name, &spec))
			goto out;
		struct xtensor t;
		if (feed_read_value(&s->f, graph_value_id(s->g, name), spec, &t, NULL))
			goto out;
		if (add_named(&s->want, &s->n_want, name, spec, &t, &s->e)) {
			xt_free(&t);
			goto out;
		}
	}
	/* --shape and --dim must each name something the cut needs */
	struct feed_resolved *res = calloc((size_t)n_need + 1, sizeof *res);
	if (!res) {
		ov_fail(&s->e, OV_NOMEM, "out of memory");
		goto out;
	}
	int bad_sizes = feed_resolve_inputs(&s->f, need, (size_t)n_need, res) < 0;
	free(res);
	if (bad_sizes)
		goto out;
	/* --input */
	for (size_t i = 0; i < s->a.n_inputs; i++) {
		const char *name, *spec;
		if (feed_split_named(&s->f, s->a.inputs[i], need, n_need, "--input", &name, &spec))
			goto out;
		struct named *old = named_find(s->in, s->n_in, name);
		if (old)
			continue; /* the first --input for a name wins */
		int32_t id = graph_value_id(s->g, name);
		struct xtensor t;
		s->f.how[0] = '\0';
		if (feed_input(&s->f, id, spec, &t))
			goto out;
		if (add_named(&s->in, &s->n_in, name, spec, &t, &s->e)) {
			xt_free(&t);
			goto out;
		}
		s->in[s->n_in - 1].how = *s->f.how ? strdup(s->f.how) : NULL;
	}
	/* an unnamed generator (--input random): every input still without a value */
	for (long i = 0; s->a.default_spec && i < n_need; i++) {
		if (named_find(s->in, s->n_in, need[i]))
			continue;
		int32_t id = graph_value_id(s->g, need[i]);
		struct xtensor t;
		s->f.how[0] = '\0';
		if (feed_input(&s->f, id, s->a.default_spec, &t))
			goto out;
		if (add_named(&s->in, &s->n_in, s->g->values[id].name, s->a.default_spec, &t, &s->e)) {
			xt_free(&t);
			goto out;
		}
		s->in[s->n_in - 1].how = *s->f.how ? strdup(s->f.how) : NULL;
	}
	/* data-set inputs are checked as well; a data set that disagrees with its model is a problem found (1), not
	 * a usage error */
	for (size_t i = 0; i < s->n_in; i++) {
		int32_t id = graph_value_id(s->g, s->in[i].name);
		s->f.lenient_shapes = 1;
		int bad = id >= 0 && s->in[i].from_set && feed_check(&s->f, id, &s->in[i].t, s->in[i].source, OV_INVALID);
		s->f.lenient_shapes = 0;
		if (bad)
			goto out;
	}
	/* everything the cut needs must be there */
	struct strbuf miss = {0};
	int n_miss = 0;
	for (long i = 0; i < n_need; i++)
		if (!named_find(s->in, s->n_in, need[i]))
			strbuf_printf(&miss, "%s'%s'", n_miss++ ? ", " : "", need[i]);
	if (n_miss) {
		ov_fail(&s->e, OV_USAGE, "no value for input%s %s: give --input NAME=FILE|random|zeros|ones%s",
			n_miss > 1 ? "s" : "", strbuf_str(&miss), n_need > 1 ? ", or --input random for all" : "");
		strbuf_free(&miss);
		goto out;
	}
	strbuf_free(&miss);
	rc = 0;
out:
	free(need);
	return rc;
}

int cmd_run(int argc, char **argv, FILE *out, FILE *err)
{
	/* Intermediates come and go node after node: keep freed memory in the heap instead of returning it to the
	 * kernel, so the next node's buffer does not page-fault fresh zeroed pages in (a third of MobileNetV2's time). */
	mallopt(M_MMAP_THRESHOLD, 1 << 30);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);

	struct run_state s = {0};
	struct exec_result r = {0};
	struct exec_input *in = NULL;
	struct out_report *rep = NULL;
	const char **to_names = NULL;
	char **saved_names = NULL;
	size_t n_saved = 0;
	struct exec_consts *consts = NULL; /* --repeat */
	int rc = parse_args(argc, argv, &s.a, out, err);

	if (rc >= 0)
		return rc;
	s.errf = err;
	rc = model_load_report(s.a.model, &s.m, err);
	if (rc)
		return rc;
	if (graph_build(&s.g, s.m->proto->graph, &s.e) || shape_infer(&s.sh, s.m, s.g, &s.e))
		goto fail;
	s.f = (struct feed){.m = s.m, .g = s.g, .sh = s.sh, .e = &s.e, .errf = err, .sizes = &s.a.sizes};

	struct exec_options opt = {.keep_all = s.a.all, .limits = s.a.limits, .profile = s.a.profile,
				   .runs = s.a.repeat};
	if (s.a.n_from) {
		opt.from = (const char *const *)s.a.from;
		opt.n_from = s.a.n_from;
	}
	/* the 'to' names, spelled out (the graph outputs when none are given), for matching expectations */
	if (s.a.n_to) {
		opt.to = (const char *const *)s.a.to;
		opt.n_to = s.a.n_to;
	} else {
		to_names = calloc(s.g->proto->n_output + 1, sizeof *to_names);
		if (!to_names) {
			ov_fail(&s.e, OV_NOMEM, "out of memory");
			goto fail;
		}
		for (size_t i = 0; i < s.g->proto->n_output; i++)
			to_names[i] = s.g->proto->output[i]->name ? s.g->proto->output[i]->name : "";
		opt.to = to_names;
		opt.n_to = s.g->proto->n_output;
	}
	const char *backend = s.a.backend ? s.a.backend : "cpu";
	if (!strcmp(backend, "cuda")) {
		opt.backend = exec_backend_cuda(&s.e);
		if (!opt.backend)
			goto fail;
		exec_cuda_set_tf32(s.a.tf32);
		char knobs[1024];
		if (exec_knobs_check(knobs, sizeof knobs))
			fprintf(err, "onnxview: warning: %s\n", knobs);
	}
	if (check_tensor_types(&s, &opt) || gather_inputs(&s, &opt))
		goto fail;
	in = calloc(s.n_in + 1, sizeof *in);
	if (!in) {
		ov_fail(&s.e, OV_NOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < s.n_in; i++)
		in[i] = (struct exec_input){.name = s.in[i].name, .t = s.in[i].t};
	/* --repeat: the constants the first run converts (and uploads) are kept for the others */
	if (s.a.repeat && !(opt.consts = consts = exec_consts_new())) {
		ov_fail(&s.e, OV_NOMEM, "out of memory");
		goto fail;
	}
	if (exec_run(s.m, s.g, &opt, in, s.n_in, &r, &s.e))
		goto fail;
	s.rr.runs = s.a.repeat;
	if (s.a.repeat && run_repeat(s.m, s.g, &opt, in, s.n_in, &r, &s.rr, &s.e))
		goto fail;

	/* expectations must name computed values */
	for (size_t i = 0; i < s.n_want; i++) {
		int found = 0;
		for (size_t k = 0; k < r.n_values && !found; k++)
			found = !strcmp(r.values[k].name, s.want[i].name);
		if (!found) {
			ov_fail(&s.e, OV_USAGE, "--expect: '%s' is not computed by this run (add it to --to, or use --all)",
				s.want[i].name);
			goto fail;
		}
	}
	if (s.a.save && mkdir(s.a.save, 0777) && errno != EEXIST) {
		ov_fail(&s.e, OV_WRITE, "--save %s: %s", s.a.save, strerror(errno));
		goto fail;
	}
	rep = calloc(r.n_values + 1, sizeof *rep);
	saved_names = calloc(r.n_values + 1, sizeof *saved_names);
	if (!rep || !saved_names) {
		ov_fail(&s.e, OV_NOMEM, "out of memory");
		goto fail;
	}
	int n_fail = 0, n_cmp = 0;
	for (size_t i = 0; i < r.n_values; i++) {
		struct out_report *o = &rep[i];
		o->v = &r.values[i];
		if (!o->v->present)
			continue;
		o->parts = value_parts(&o->v->t);
		if (o->parts.main)
			o->have_stats = !xt_stats(o->parts.main, &o->st);
		if (o->parts.n_items) {
			o->ist = calloc((size_t)o->parts.n_items, sizeof *o->ist);
			o->ihave = calloc((size_t)o->parts.n_items, sizeof *o->ihave);
			if (!o->ist || !o->ihave) {
				ov_fail(&s.e, OV_NOMEM, "out of memory");
				goto fail;
			}
			for (int64_t k = 0; k < o->parts.n_items; k++)
				o->ihave[k] = !xt_stats(&o->parts.items[k], &o->ist[k]);
		}
		for (size_t k = 0; k < s.n_want; k++)
			if (!strcmp(s.want[k].name, o->v->name))
				o->want = &s.want[k];
		if (o->want && compare_value(o, &s)) {
			ov_fail(&s.e, OV_NOMEM, "out of memory");
			goto fail;
		}
		if (o->want) {
			n_cmp++;
			n_fail += !o->c.pass;
		}
		if (s.a.save) {
			struct ov_error se = {0};
			/* never through a symbolic link planted in the folder; existing files only with --force */
			unsigned flags = OV_SAVE_NOFOLLOW | (s.a.force ? OV_SAVE_REPLACE : 0);
			int sr = save_parts(s.a.save, flags, o, saved_names, n_saved, err, &se);
			if (sr < 0) {
				s.e = se;
				ov_wrap(&s.e, "--save: ");
				goto fail;
			}
			if (o->saved)
				saved_names[n_saved++] = o->saved;
		}
	}
	/* an expected value the run left out counts as a failure */
	for (size_t i = 0; i < r.n_values; i++)
		if (!r.values[i].present)
			for (size_t k = 0; k < s.n_want; k++)
				if (!strcmp(s.want[k].name, r.values[i].name)) {
					n_cmp++;
					n_fail++;
				}

	struct strbuf b = {0};
	if (s.a.json)
		report_json(&b, &s, &r, rep, r.n_values, backend, n_fail, n_cmp);
	else
		report_text(&b, &s, &r, rep, r.n_values, s.a.tf32 ? "cuda with TF32" : backend, n_fail, n_cmp);
	fwrite(strbuf_str(&b), 1, b.len, out);
	strbuf_free(&b);
	rc = n_fail ? 1 : 0;
	goto done;
fail:
	rc = ov_error_report(err, s.a.model, &s.e);
	if (!rc)
		rc = 1;
done:
	if (rep)
		for (size_t i = 0; i < r.n_values; i++) {
			free(rep[i].saved);
			free(rep[i].ist);
			free(rep[i].ihave);
			free(rep[i].ic);
		}
	free(rep);
	free(saved_names);
	exec_result_free(&r);
	free(s.rr.prof);
	exec_consts_free(consts);
	free(in);
	free(to_names);
	state_free(&s);
	return rc;
}
