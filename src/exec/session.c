/* A run for front ends (see src/exec/session.h). */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/diverge.h"
#include "src/exec/feed.h"
#include "src/exec/session.h"

#define MAX_NAMES 1024

static int split(const char **list, size_t *n, char *arg, struct ov_error *err, const char *opt)
{
	for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
		if (*n >= MAX_NAMES)
			return ov_fail(err, OV_USAGE, "%s: too many names", opt);
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
	const char *backend = "cpu";
	struct exec_options opt = {.keep_all = 1, .consts = consts};
	struct feed f = {.m = m, .g = g, .sh = sh, .e = err, .errf = NULL};
	struct exec_input *in = NULL;
	const char **need = NULL;
	long n_need = 0;
	int rc = -1, tf32 = 0;

	memset(out, 0, sizeof *out);
	for (int i = 0; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "--tf32")) {
			tf32 = 1;
			continue;
		}
		if (strcmp(o, "--input") && strcmp(o, "--to") && strcmp(o, "--from") && strcmp(o, "--backend") &&
		    strcmp(o, "--expect"))
			return ov_fail(err, OV_USAGE, "run: unknown option '%s' (--input NAME=SPEC, --to T,.., --from T,.., "
				       "--expect NAME=FILE, --backend cpu|cuda, --tf32)", o), 2;
		if (i + 1 >= argc)
			return ov_fail(err, OV_USAGE, "run: %s needs a value", o), 2;
		char *v = argv[++i];
		if (!strcmp(o, "--input") || !strcmp(o, "--expect")) {
			size_t *n = o[2] == 'i' ? &n_inputs : &n_expects;
			if (*n >= MAX_NAMES)
				return ov_fail(err, OV_USAGE, "run: too many %s options", o), 2;
			(o[2] == 'i' ? inputs : expects)[(*n)++] = v;
		} else if (!strcmp(o, "--backend")) {
			if (strcmp(v, "cpu") && strcmp(v, "cuda"))
				return ov_fail(err, OV_USAGE, "run: --backend is cpu or cuda, not '%s'", v), 2;
			backend = v;
		} else if (split(o[2] == 't' ? to : from, o[2] == 't' ? &n_to : &n_from, v, err, o)) {
			return 2;
		}
	}
	for (size_t i = 0; i < n_from + n_to; i++) {
		const char *nm = i < n_from ? from[i] : to[i - n_from];
		if (graph_value_id(g, nm) < 0)
			return ov_fail(err, OV_USAGE, "run: %s names '%s', which is no value of the graph",
				       i < n_from ? "--from" : "--to", nm), 2;
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
	if (tf32 && strcmp(backend, "cuda"))
		return ov_fail(err, OV_USAGE, "run: --tf32 is for --backend cuda (the CPU computes float32 in full)"), 2;
	if (!strcmp(backend, "cuda") && !(opt.backend = exec_backend_cuda(err)))
		return 1;
	exec_cuda_set_tf32(tf32);

	n_need = exec_needed_inputs(g, &opt, NULL, 0, err);
	if (n_need < 0)
		return ov_status_exit_code(err->code);
	need = calloc((size_t)n_need + 1, sizeof *need);
	in = calloc((size_t)n_need + 1, sizeof *in);
	if (!need || !in) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	exec_needed_inputs(g, &opt, need, (size_t)n_need, err);
	for (size_t i = 0; i < n_inputs; i++) {
		const char *name, *spec;
		if (feed_split_named(&f, inputs[i], need, n_need, "--input", &name, &spec))
			goto out;
	}
	for (long k = 0; k < n_need; k++) {
		const char *spec = "random";
		for (size_t i = 0; i < n_inputs; i++) {
			const char *name, *sp;
			if (!feed_split_named(&f, inputs[i], need, n_need, "--input", &name, &sp) && !strcmp(name, need[k])) {
				spec = sp;
				break;
			}
		}
		int32_t id = graph_value_id(g, need[k]);
		in[k].name = need[k];
		if (feed_input(&f, id, spec, &in[k].t))
			goto out;
		strbuf_puts(report, "input '");
		strbuf_put_safe(report, need[k], strlen(need[k]), 80);
		strbuf_puts(report, "' ");
		put_xtype(report, &in[k].t);
		strbuf_printf(report, " from %s\n", spec);
	}
	if (exec_run(m, g, &opt, in, (size_t)n_need, out, err))
		goto out;
	strbuf_printf(report, "ran %" PRIu32 " node%s on %s%s in %.3f ms", out->nodes_run, out->nodes_run == 1 ? "" : "s",
		      backend, tf32 ? " with TF32" : "", out->ms);
	if (out->n_fallback)
		strbuf_printf(report, " (%zu on the CPU)", out->n_fallback);
	strbuf_putc(report, '\n');
	put_copies(report, out);
	size_t n_kept, kept_bytes, kept_dev;
	exec_consts_stats(consts, &n_kept, &kept_bytes, &kept_dev);
	if (n_kept) {
		strbuf_printf(report, "constants: %zu kept until the model changes (%zu bytes", n_kept, kept_bytes);
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
		int bad = diverge_compare_any(got, &want, 1e-3, 1e-7, &c, &conv, err);
		xt_free(&want);
		if (bad)
			goto out;
		strbuf_printf(report, "%s '", c.pass ? "PASS" : "FAIL");
		strbuf_put_safe(report, name, strlen(name), 80);
		strbuf_printf(report, "' against %s: ", eq + 1);
		if (c.shape_mismatch || c.dtype_mismatch)
			strbuf_puts(report, c.shape_mismatch ? "the shapes differ\n" : "the dtypes differ\n");
		else
			strbuf_printf(report, "%" PRId64 " of %" PRId64 " differ, max abs %.6g (rtol 0.001, atol 1e-07)\n",
				      c.mismatches, c.n, c.max_abs);
	}
	strbuf_printf(report, "%zu values kept: v on a node shows its output\n", out->n_values);
	rc = 0;
out:
	for (long k = 0; in && k < n_need; k++)
		xt_free(&in[k].t);
	free(in);
	free(need);
	if (rc) {
		exec_result_free(out);
		rc = ov_status_exit_code(err->code);
		if (!rc)
			rc = 1;
	}
	return rc;
}
