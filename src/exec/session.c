/* A run for front ends (see src/exec/session.h). */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/diverge.h"
#include "src/exec/feed.h"
#include "src/exec/session.h"
#include "src/base/opts.h"

#define MAX_NAMES 1024

/* run's options as the TUI's :run speaks them (src/exec/session.h) */
enum { S_INPUT, S_SHAPE, S_DIM, S_TO, S_FROM, S_EXPECT, S_BACKEND, S_TF32, S_RTOL, S_ATOL, S_STRICT };
static const struct opt_spec session_opts[] = {
	[S_INPUT] = {.name = "--input", .arg = "[NAME=]SPEC", .flags = OPT_REPEAT, .help = "a file, random[:SEED], zeros or ones"},
	[S_SHAPE] = {.name = "--shape", .arg = "NAME=DxD..", .flags = OPT_REPEAT, .help = "the shape of an input"},
	[S_DIM] = {.name = "--dim", .arg = "SYMBOL=N", .flags = OPT_REPEAT, .help = "the size of a named dynamic dim"},
	[S_TO] = {.name = "--to", .arg = "T,..", .flags = OPT_REPEAT, .help = "end the cut at these values"},
	[S_FROM] = {.name = "--from", .arg = "T,..", .flags = OPT_REPEAT, .help = "start the cut at these values"},
	[S_EXPECT] = {.name = "--expect", .arg = "NAME=FILE", .flags = OPT_REPEAT, .help = "check a value"},
	[S_BACKEND] = {.name = "--backend", .arg = "B", .choices = "cpu|cuda", .help = "where to run"},
	[S_TF32] = {.name = "--tf32", .help = "let CUDA use TF32"},
	[S_RTOL] = {.name = "--rtol", .arg = "R", .help = "ONNX's rule with this rtol"},
	[S_ATOL] = {.name = "--atol", .arg = "A", .help = "ONNX's rule with this atol"},
	[S_STRICT] = {.name = "--strict", .help = "ONNX's own rule: rtol 1e-3, atol 1e-7"},
};
static const struct opt_cmd session_cmd = {
	.name = "run", .usage = "run [--input [NAME=]SPEC]... [--shape NAME=DxD..]... [--dim SYM=N]... [--to T,..] "
				"[--from T,..] [--expect NAME=FILE]... [--backend cpu|cuda] [--tf32]",
	.opts = session_opts, .n_opts = sizeof session_opts / sizeof session_opts[0],
};

static int split(const char **list, size_t *n, char *arg, struct ov_error *err, const char *opt)
{
	char *save = NULL;

	for (char *tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n >= MAX_NAMES)
			return ov_fail(err, OV_USAGE, "run: %s: too many names", opt);
		list[(*n)++] = tok;
	}
	return 0;
}

const struct xtensor *run_session_value(const struct exec_result *r, const char *name)
{
	for (size_t i = 0; r && i < r->n_values; i++)
		if (r->values[i].present && !strcmp(r->values[i].name, name))
			return &r->values[i].t;
	return NULL;
}

int run_session(struct ov_model *m, const struct graph *g, struct shapes *sh, int argc, char **argv,
		struct exec_result *out, struct strbuf *report, struct exec_consts *consts, struct ov_error *err)
{
	const char *from[MAX_NAMES], *to[MAX_NAMES], *inputs[MAX_NAMES], *expects[MAX_NAMES];
	size_t n_from = 0, n_to = 0, n_inputs = 0, n_expects = 0;
	const char *backend = "cpu", *default_spec = NULL;
	struct exec_options opt = {.keep_all = 1, .consts = consts};
	struct opt_parsed p;
	struct feed_sizes sizes = {0};
	struct compare_rule rule;
	struct feed_resolved *res = NULL;
	struct feed f = {.m = m, .g = g, .sh = sh, .e = err, .errf = NULL};
	struct exec_input *in = NULL;
	const char **need = NULL;
	long n_need = 0;
	int rc = -1, tf32 = 0;

	memset(out, 0, sizeof *out);
	if (opt_parse(&session_cmd, argc, argv, &p, err)) {
		opt_free(&p);
		return 2;
	}
	if (p.help) {
		opt_free(&p);
		return ov_fail(err, OV_USAGE, "%s", session_cmd.usage), 2;
	}
	tf32 = opt_given(&p, S_TF32);
	if (opt_value(&p, S_BACKEND))
		backend = opt_value(&p, S_BACKEND);
	if (feed_rule(opt_value(&p, S_RTOL), opt_value(&p, S_ATOL), opt_given(&p, S_STRICT), &rule, err)) {
		opt_free(&p);
		return 2;
	}
	for (size_t i = 0; i < p.n; i++) {
		char *v = p.hit[i].val;
		int bad = 0;
		switch (p.hit[i].opt) {
		case S_INPUT:
			if (!strchr(v, '=') && feed_is_generator(v))
				default_spec = v;
			else if (n_inputs < MAX_NAMES)
				inputs[n_inputs++] = v;
			break;
		case S_EXPECT:
			if (n_expects < MAX_NAMES)
				expects[n_expects++] = v;
			break;
		case S_SHAPE:
			bad = feed_sizes_add_shape(&sizes, v, err);
			break;
		case S_DIM:
			bad = feed_sizes_add_dim(&sizes, v, err);
			break;
		case S_TO:
			bad = split(to, &n_to, v, err, "--to");
			break;
		case S_FROM:
			bad = split(from, &n_from, v, err, "--from");
			break;
		}
		if (bad) {
			opt_free(&p);
			feed_sizes_free(&sizes);
			if (err->code == OV_USAGE && strncmp(err->msg, "run: ", 5))
				ov_wrap(err, "run: ");
			return 2;
		}
	}
	opt_free(&p);
	f.sizes = &sizes;
	for (size_t i = 0; i < n_from + n_to; i++) {
		const char *nm = i < n_from ? from[i] : to[i - n_from];
		if (graph_value_id(g, nm) < 0)
		{
			ov_fail(err, OV_USAGE, "run: %s names '%s', which is no value of the graph",
				i < n_from ? "--from" : "--to", nm);
			goto out;
		}
	}
	if (n_from) {
		opt.from = from;
		opt.n_from = n_from;
	}
	if (n_to) {
		opt.to = to;
		opt.n_to = n_to;
	} else {
		for (size_t i = 0; i < g->proto->n_output && n_to < MAX_NAMES; i++)
			to[n_to++] = g->proto->output[i]->name ? g->proto->output[i]->name : "";
		opt.to = to;
		opt.n_to = n_to;
	}
	if (tf32 && strcmp(backend, "cuda")) {
		ov_fail(err, OV_USAGE, "run: --tf32 is for --backend cuda (the CPU computes float32 in full)");
		goto out;
	}
	if (!strcmp(backend, "cuda") && !(opt.backend = exec_backend_cuda(err)))
		goto out;
	char knobs[1024];
	if (opt.backend && exec_knobs_check(knobs, sizeof knobs))
		strbuf_printf(report, "warning: %s\n", knobs);
	exec_cuda_set_tf32(tf32);

	n_need = exec_needed_inputs(g, &opt, NULL, 0, err);
	if (n_need < 0) {
		n_need = 0;
		goto out;
	}
	need = calloc((size_t)n_need + 1, sizeof *need);
	in = calloc((size_t)n_need + 1, sizeof *in);
	res = calloc((size_t)n_need + 1, sizeof *res);
	if (!need || !in || !res) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	exec_needed_inputs(g, &opt, need, (size_t)n_need, err);
	if (feed_resolve_inputs(&f, need, (size_t)n_need, res) < 0) {
		ov_wrap(err, "run: ");
		goto out;
	}
	for (size_t i = 0; i < n_inputs; i++) {
		const char *name, *spec;
		if (feed_split_named(&f, inputs[i], need, n_need, "--input", &name, &spec))
			goto out;
	}
	for (long k = 0; k < n_need; k++) {
		const char *spec = default_spec ? default_spec : "random";
		for (size_t i = 0; i < n_inputs; i++) {
			const char *name, *sp;
			if (!feed_split_named(&f, inputs[i], need, n_need, "--input", &name, &sp) && !strcmp(name, need[k])) {
				spec = sp;
				break;
			}
		}
		int32_t id = graph_value_id(g, need[k]);
		in[k].name = need[k];
		f.how[0] = '\0';
		if (feed_input(&f, id, spec, &in[k].t))
			goto out;
		strbuf_puts(report, "input '");
		strbuf_put_safe(report, need[k], strlen(need[k]), 80);
		strbuf_puts(report, "' ");
		put_xtype(report, &in[k].t);
		strbuf_printf(report, " from %s", spec);
		if (*f.how && strcmp(f.how, spec))
			strbuf_printf(report, " (%s)", f.how);
		strbuf_putc(report, '\n');
	}
	if (exec_run(m, g, &opt, in, (size_t)n_need, out, err))
		goto out;
	strbuf_printf(report, "ran %" PRIu32 " node%s on %s%s in %.3f ms", out->nodes_run, out->nodes_run == 1 ? "" : "s",
		      backend, tf32 ? " with TF32" : "", out->ms);
	if (out->nodes_kept)
		strbuf_printf(report, "; %" PRIu32 " more kept from constants (folded)", out->nodes_kept);
	if (out->n_fallback)
		strbuf_printf(report, " (%zu on the CPU)", out->n_fallback);
	strbuf_putc(report, '\n');
	put_copies(report, out);
	size_t n_kept, kept_bytes, kept_dev, kept_in_place;
	exec_consts_stats(consts, &n_kept, &kept_bytes, &kept_dev, &kept_in_place);
	if (n_kept) {
		strbuf_printf(report, "constants: %zu kept until the model changes (%zu bytes", n_kept, kept_bytes);
		if (kept_in_place)
			strbuf_printf(report, "; %zu bytes read in place from the model file", kept_in_place);
		if (kept_dev)
			strbuf_printf(report, "; %zu of them on the device too", kept_dev);
		strbuf_puts(report, ")\n");
	}
	for (size_t i = 0; i < out->n_to; i++) {
		const struct exec_value *v = &out->values[i];
		struct tensor_stats st;
		strbuf_puts(report, "output '");
		strbuf_put_safe(report, v->name, strlen(v->name), 80);
		strbuf_puts(report, "' ");
		if (!v->present) {
			strbuf_puts(report, "not computed\n");
			continue;
		}
		put_xtype(report, &v->t);
		if (!xt_stats(&v->t, &st) && st.finite)
			strbuf_printf(report, "  min %.6g max %.6g mean %.6g std %.6g", st.min, st.max, st.mean, st.std);
		if (v->t.dtype != OV_DT_STRING && (st.nans || st.pos_inf || st.neg_inf))
			strbuf_printf(report, " NaN %" PRId64 " Inf %" PRId64, st.nans, st.pos_inf + st.neg_inf);
		strbuf_putc(report, '\n');
	}
	for (size_t i = 0; i < n_expects; i++) {
		const char *eq = strchr(expects[i], '=');
		char name[1024];
		if (!eq || (size_t)(eq - expects[i]) >= sizeof name) {
			ov_fail(err, OV_USAGE, "run: --expect %s: say which value (NAME=FILE)", expects[i]);
			goto out;
		}
		snprintf(name, sizeof name, "%.*s", (int)(eq - expects[i]), expects[i]);
		const struct xtensor *got = run_session_value(out, name);
		if (!got) {
			ov_fail(err, OV_USAGE, "run: --expect: '%s' is not computed by this run", name);
			goto out;
		}
		struct xtensor want;
		struct compare_stats c;
		int conv;
		if (feed_read(&f, eq + 1, &want, NULL))
			goto out;
		int bad = diverge_compare_any(got, &want, &rule, &c, &conv, err);
		xt_free(&want);
		if (bad)
			goto out;
		strbuf_printf(report, "%s '", c.pass ? "PASS" : "FAIL");
		strbuf_put_safe(report, name, strlen(name), 80);
		strbuf_printf(report, "' against %s: ", eq + 1);
		if (c.shape_mismatch || c.dtype_mismatch)
			strbuf_puts(report, c.shape_mismatch ? "the shapes differ\n" : "the dtypes differ\n");
		else
		{
			char text[200];
			compare_rule_describe(&rule, text, sizeof text);
			strbuf_printf(report, "%" PRId64 " of %" PRId64 " differ, max abs %.6g (%s)\n", c.mismatches, c.n,
				      c.max_abs, text);
		}
	}
	strbuf_printf(report, "%zu values kept: v on a node shows its output\n", out->n_values);
	rc = 0;
out:
	exec_cuda_release(); /* the front end waits for its user now: the device's memory goes back to the driver */
	for (long k = 0; in && k < n_need; k++)
		xt_free(&in[k].t);
	free(in);
	free(need);
	free(res);
	feed_sizes_free(&sizes);
	if (rc) {
		exec_result_free(out);
		rc = ov_status_exit_code(err->code);
		if (!rc)
			rc = 1;
	}
	return rc;
}
