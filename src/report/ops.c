/* `onnxview ops`: the operator reference, every version's signature and our own notes, as text or JSON. */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/base/opts.h"
#include "src/report/report.h"
#include "src/base/error.h"
#include "src/base/json.h"
#include "src/graph/opdb.h"
#include "src/graph/opdoc.h"
#include "src/base/strbuf.h"

static const char ops_usage[] = "usage: onnxview ops [--json] [--domain DOMAIN] [--opset N] [OP]";

struct ops_args {
	int as_json;
	const char *domain; /* NULL: ai.onnx, or any domain for an OP */
	int64_t opset;      /* 0: every version */
	const char *op;
};

/* ---- text helpers ---- */

static void pad_to(struct strbuf *b, size_t line_start, size_t col)
{
	size_t w = b->len - line_start;

	do
		strbuf_putc(b, ' ');
	while (++w < col);
}

/* "10 11 13 18 19", with a deprecated version marked, and "removed at N" for a last deprecated version. */
static void put_versions(struct strbuf *b, const struct op_schema *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_putc(b, ' ');
		if (v[i].deprecated && i + 1 == n)
			strbuf_printf(b, "(removed at %d)", v[i].since_version);
		else
			strbuf_printf(b, "%d%s", v[i].since_version, v[i].deprecated ? "(deprecated)" : "");
	}
}

static void put_count(struct strbuf *b, int lo, int hi)
{
	if (hi == OP_UNBOUNDED)
		strbuf_printf(b, "%d or more", lo);
	else if (lo == hi)
		strbuf_printf(b, "%d", lo);
	else
		strbuf_printf(b, "%d to %d", lo, hi);
}

static void text_formals(struct strbuf *b, const char *title, const struct op_formal *f, size_t n, int lo, int hi)
{
	size_t wname = 0, wtype = 0;

	strbuf_printf(b, "  %s (", title);
	put_count(b, lo, hi);
	strbuf_puts(b, n ? "):\n" : "): none\n");
	for (size_t i = 0; i < n; i++) {
		wname = strlen(f[i].name) > wname ? strlen(f[i].name) : wname;
		wtype = strlen(f[i].type_str) > wtype ? strlen(f[i].type_str) : wtype;
	}
	for (size_t i = 0; i < n; i++) {
		size_t start = b->len;
		strbuf_printf(b, "    %s", f[i].name);
		pad_to(b, start, wname + 6);
		strbuf_puts(b, f[i].type_str);
		if (f[i].option == OP_FORMAL_SINGLE) {
			strbuf_putc(b, '\n');
			continue;
		}
		pad_to(b, start, wname + wtype + 8);
		strbuf_puts(b, op_formal_option_name(f[i].option));
		if (f[i].option == OP_FORMAL_VARIADIC) {
			if (f[i].min_arity != 1)
				strbuf_printf(b, ", at least %d", f[i].min_arity);
			if (!f[i].homogeneous)
				strbuf_puts(b, ", mixed types");
		}
		strbuf_putc(b, '\n');
	}
}

static void text_schema(struct strbuf *b, const struct op_schema *s, int last)
{
	size_t w = 0, wt = 0;

	strbuf_printf(b, "%s-%d (%s, ", s->name, s->since_version, s->domain);
	if (s->deprecated && last)
		strbuf_printf(b, "removed at opset %d)\n", s->since_version);
	else
		strbuf_printf(b, "since opset %d%s)\n", s->since_version, s->deprecated ? ", deprecated" : "");
	text_formals(b, "inputs", s->inputs, s->n_inputs, s->min_inputs, s->max_inputs);
	text_formals(b, "outputs", s->outputs, s->n_outputs, s->min_outputs, s->max_outputs);
	strbuf_printf(b, "  attributes:%s\n", s->n_attrs ? "" : " none");
	for (size_t i = 0; i < s->n_attrs; i++) {
		w = strlen(s->attrs[i].name) > w ? strlen(s->attrs[i].name) : w;
		wt = strlen(op_attr_type_name(s->attrs[i].type)) > wt ? strlen(op_attr_type_name(s->attrs[i].type)) : wt;
	}
	for (size_t i = 0; i < s->n_attrs; i++) {
		const struct op_attr *a = &s->attrs[i];
		size_t start = b->len;
		strbuf_printf(b, "    %s", a->name);
		pad_to(b, start, w + 6);
		strbuf_puts(b, op_attr_type_name(a->type));
		pad_to(b, start, w + wt + 8);
		if (a->required)
			strbuf_puts(b, "required");
		else if (a->default_text)
			strbuf_printf(b, "default %s", a->default_text);
		else
			strbuf_puts(b, "optional");
		strbuf_putc(b, '\n');
	}
	if (s->n_constraints) {
		w = 0;
		for (size_t i = 0; i < s->n_constraints; i++)
			w = strlen(s->constraints[i].param) > w ? strlen(s->constraints[i].param) : w;
		strbuf_puts(b, "  type constraints:\n");
		for (size_t i = 0; i < s->n_constraints; i++) {
			const struct op_type_constraint *tc = &s->constraints[i];
			size_t start = b->len;
			strbuf_printf(b, "    %s", tc->param);
			pad_to(b, start, w + 6);
			for (size_t k = 0; k < tc->n_allowed; k++)
				strbuf_printf(b, "%s%s", k ? ", " : "", tc->allowed[k]);
			strbuf_putc(b, '\n');
		}
	}
}

static void text_doc(struct strbuf *b, const struct op_doc *d)
{
	strbuf_printf(b, "About %s", d->name);
	if (d->category)
		strbuf_printf(b, " (%s)", d->category);
	strbuf_puts(b, "\n");
	if (d->summary)
		strbuf_printf(b, "  %s\n", d->summary);
	if (d->n_pytorch) {
		strbuf_puts(b, "  PyTorch:\n");
		for (size_t i = 0; i < d->n_pytorch; i++)
			strbuf_printf(b, "    %s\n", d->pytorch[i]);
	}
	if (d->n_history) {
		strbuf_puts(b, "  History:\n");
		for (size_t i = 0; i < d->n_history; i++)
			strbuf_printf(b, "    %d: %s\n", d->history[i].version, d->history[i].text);
	}
	if (d->text) {
		strbuf_putc(b, '\n');
		for (const char *l = d->text; *l;) {
			size_t n = strcspn(l, "\n");
			if (n)
				strbuf_puts(b, "  ");
			strbuf_add(b, l, n);
			strbuf_putc(b, '\n');
			l += n + (l[n] == '\n');
		}
	}
}

/* ---- JSON ---- */

static void json_formals(struct json *j, const char *key, const struct op_formal *f, size_t n)
{
	json_key(j, key);
	json_arr(j);
	for (size_t i = 0; i < n; i++) {
		json_obj(j);
		json_kstr(j, "name", f[i].name);
		json_kstr(j, "option", op_formal_option_name(f[i].option));
		json_kstr(j, "type", f[i].type_str);
		json_key(j, "homogeneous");
		json_bool(j, f[i].homogeneous);
		json_kint(j, "min_arity", f[i].min_arity);
		json_end_obj(j);
	}
	json_end_arr(j);
}

static void json_value(struct json *j, int type, const struct op_value *v)
{
	if (type == OP_ATTR_INT || type == OP_ATTR_INTS)
		json_int(j, v->i);
	else if (type == OP_ATTR_FLOAT || type == OP_ATTR_FLOATS)
		json_double(j, v->f);
	else
		json_strn(j, v->s, v->s_len);
}

static void json_max(struct json *j, const char *key, int v)
{
	json_key(j, key);
	if (v == OP_UNBOUNDED)
		json_null(j);
	else
		json_int(j, v);
}

static void json_schema(struct json *j, const struct op_schema *s)
{
	json_obj(j);
	json_kint(j, "since_version", s->since_version);
	json_key(j, "deprecated");
	json_bool(j, s->deprecated);
	json_kint(j, "min_inputs", s->min_inputs);
	json_max(j, "max_inputs", s->max_inputs);
	json_kint(j, "min_outputs", s->min_outputs);
	json_max(j, "max_outputs", s->max_outputs);
	json_formals(j, "inputs", s->inputs, s->n_inputs);
	json_formals(j, "outputs", s->outputs, s->n_outputs);
	json_key(j, "attributes");
	json_arr(j);
	for (size_t i = 0; i < s->n_attrs; i++) {
		const struct op_attr *a = &s->attrs[i];
		json_obj(j);
		json_kstr(j, "name", a->name);
		json_kstr(j, "type", op_attr_type_name(a->type));
		json_key(j, "required");
		json_bool(j, a->required);
		json_key(j, "default");
		if (!a->default_text) {
			json_null(j);
		} else if (a->type == OP_ATTR_INT || a->type == OP_ATTR_FLOAT || a->type == OP_ATTR_STRING) {
			json_value(j, a->type, &a->defaults[0]);
		} else {
			json_arr(j);
			for (size_t k = 0; k < a->n_defaults; k++)
				json_value(j, a->type, &a->defaults[k]);
			json_end_arr(j);
		}
		json_end_obj(j);
	}
	json_end_arr(j);
	json_key(j, "type_constraints");
	json_arr(j);
	for (size_t i = 0; i < s->n_constraints; i++) {
		json_obj(j);
		json_kstr(j, "param", s->constraints[i].param);
		json_key(j, "allowed");
		json_arr(j);
		for (size_t k = 0; k < s->constraints[i].n_allowed; k++)
			json_str(j, s->constraints[i].allowed[k]);
		json_end_arr(j);
		json_end_obj(j);
	}
	json_end_arr(j);
	json_end_obj(j);
}

static void json_doc(struct json *j, const struct op_doc *d)
{
	json_key(j, "doc");
	if (!d) {
		json_null(j);
		return;
	}
	json_obj(j);
	json_kstr(j, "category", d->category);
	json_kstr(j, "summary", d->summary);
	json_key(j, "pytorch");
	json_arr(j);
	for (size_t i = 0; i < d->n_pytorch; i++)
		json_str(j, d->pytorch[i]);
	json_end_arr(j);
	json_key(j, "history");
	json_arr(j);
	for (size_t i = 0; i < d->n_history; i++) {
		json_obj(j);
		json_kint(j, "version", d->history[i].version);
		json_kstr(j, "text", d->history[i].text);
		json_end_obj(j);
	}
	json_end_arr(j);
	json_kstr(j, "text", d->text);
	json_end_obj(j);
}

static void json_versions(struct json *j, const struct op_schema *v, size_t n)
{
	json_key(j, "versions");
	json_arr(j);
	for (size_t i = 0; i < n; i++)
		json_int(j, v[i].since_version);
	json_end_arr(j);
}

static void json_removed(struct json *j, const struct op_schema *v, size_t n)
{
	json_key(j, "removed_at");
	if (n && v[n - 1].deprecated)
		json_int(j, v[n - 1].since_version);
	else
		json_null(j);
}

/* ---- the two reports ---- */

static void ops_list(struct strbuf *b, const struct opdb *db, const struct opdoc *docs, const char *domain,
		     int as_json)
{
	size_t n, wname = 0, wver = 0, total = 0;
	const char *const *names = opdb_op_names(db, domain, &n);
	struct strbuf v = {0};
	struct json j;

	if (as_json) {
		json_init(&j, b, 1);
		json_obj(&j);
		json_kstr(&j, "domain", domain);
		json_kstr(&j, "onnx_version", opdb_onnx_version(db));
		json_kint(&j, "latest_opset", opdb_latest_opset(db, domain));
		json_key(&j, "ops");
		json_arr(&j);
	}
	for (size_t i = 0; i < n; i++) {
		size_t nv;
		const struct op_schema *vs = opdb_versions(db, domain, names[i], &nv);
		strbuf_reset(&v);
		put_versions(&v, vs, nv);
		wname = strlen(names[i]) > wname ? strlen(names[i]) : wname;
		wver = v.len > wver ? v.len : wver;
	}
	for (size_t i = 0; i < n; i++) {
		size_t nv;
		const struct op_schema *vs = opdb_versions(db, domain, names[i], &nv);
		const struct op_doc *d = opdoc_find(docs, domain, names[i]);
		total += nv;
		if (as_json) {
			json_obj(&j);
			json_kstr(&j, "name", names[i]);
			json_versions(&j, vs, nv);
			json_removed(&j, vs, nv);
			json_kstr(&j, "category", d ? d->category : NULL);
			json_kstr(&j, "summary", d ? d->summary : NULL);
			json_end_obj(&j);
			continue;
		}
		size_t start = b->len;
		strbuf_puts(b, names[i]);
		pad_to(b, start, wname + 2);
		put_versions(b, vs, nv);
		if (d && (d->category || d->summary)) {
			pad_to(b, start, wname + wver + 4);
			if (d->summary) {
				size_t cat = b->len;
				strbuf_puts(b, d->category ? d->category : "-");
				pad_to(b, cat, 13);
				strbuf_puts(b, d->summary);
			} else {
				strbuf_puts(b, d->category);
			}
		}
		strbuf_putc(b, '\n');
	}
	if (as_json) {
		json_end_arr(&j);
		json_kint(&j, "count", (int64_t)n);
		json_kint(&j, "versions", (int64_t)total);
		json_end_obj(&j);
		strbuf_putc(b, '\n');
	} else {
		strbuf_printf(b, "%zu operators, %zu versions in %s (opsets 1 to %d, from onnx %s)\n", n, total, domain,
			      opdb_latest_opset(db, domain), opdb_onnx_version(db));
	}
	strbuf_free(&v);
}

/* One op: versions newest first (or the one in force at args->opset), then the documentation. */
static void ops_show(struct strbuf *b, const struct opdb *db, const struct op_doc *d, const char *domain,
		     const char *op, const struct ops_args *args)
{
	size_t n;
	const struct op_schema *v = opdb_versions(db, domain, op, &n);
	const struct op_schema *only = args->opset ? opdb_find(db, domain, op, args->opset) : NULL;
	struct json j;

	if (args->as_json) {
		json_init(&j, b, 1);
		json_obj(&j);
		json_kstr(&j, "domain", domain);
		json_kstr(&j, "name", op);
		json_kstr(&j, "onnx_version", opdb_onnx_version(db));
		json_versions(&j, v, n);
		json_removed(&j, v, n);
		json_key(&j, "schemas");
		json_arr(&j);
		for (size_t i = n; i-- > 0;)
			if (!only || &v[i] == only)
				json_schema(&j, &v[i]);
		json_end_arr(&j);
		json_doc(&j, d);
		json_end_obj(&j);
		strbuf_putc(b, '\n');
		return;
	}
	strbuf_printf(b, "%s (%s): versions ", op, domain);
	put_versions(b, v, n);
	strbuf_putc(b, '\n');
	for (size_t i = n; i-- > 0;)
		if (!only || &v[i] == only) {
			strbuf_putc(b, '\n');
			text_schema(b, &v[i], i + 1 == n);
		}
	if (d) {
		strbuf_putc(b, '\n');
		text_doc(b, d);
	}
}

int ops_render(struct strbuf *b, const char *domain, const char *op, struct ov_error *err)
{
	struct ops_args args = {0};
	const struct opdb *db = opdb_default(err);
	struct ov_error doc_err = {0};
	const struct opdoc *docs = db ? opdoc_default(&doc_err) : NULL;
	const char *dom = domain && *domain ? domain : "ai.onnx";

	if (!db)
		return -1;
	if (!docs) { /* the reference still works; say once, on top, why the notes are not there */
		strbuf_puts(b, "note: ");
		strbuf_put_safe(b, doc_err.msg, strlen(doc_err.msg), 0);
		strbuf_puts(b, "\n\n");
	}
	if (!opdb_first_version(db, dom, op)) {
		const struct op_doc *d = docs ? opdoc_find(docs, dom, op) : NULL;
		strbuf_printf(b, "%s::%s is not in onnxview's op database (onnx %s).\n", dom, op, opdb_onnx_version(db));
		if (d) {
			strbuf_putc(b, '\n');
			text_doc(b, d);
		}
		return 0;
	}
	ops_show(b, db, docs ? opdoc_find(docs, dom, op) : NULL, dom, op, &args);
	return 0;
}

/* ---- finding what the user meant ---- */

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[65];

	if (la > 64 || lb > 64)
		return (size_t)-1;
	for (size_t k = 0; k <= lb; k++)
		row[k] = k;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t k = 1; k <= lb; k++) {
			size_t up = row[k];
			size_t sub = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[k - 1]));
			size_t best = up + 1 < row[k - 1] + 1 ? up + 1 : row[k - 1] + 1;
			row[k] = sub < best ? sub : best;
			diag = up;
		}
	}
	return row[lb];
}

static int contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return 0;
}

/* The op the user probably meant, or NULL: same name in another case, a PyTorch call the docs mention, a name
 * it begins, then the closest name by edit distance (ties go to a name with the same first letter). */
static const char *suggest(const struct opdb *db, const struct opdoc *docs, const char *domain, const char *op,
			   const char **pytorch)
{
	size_t n, nd, best_d = (size_t)-1;
	const char *const *names = opdb_op_names(db, domain, &n);
	const struct op_doc *all = opdoc_all(docs, &nd);
	const char *best = NULL;

	*pytorch = NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(names[i], op))
			return names[i];
	if (strlen(op) >= 3)
		for (size_t i = 0; i < nd; i++)
			for (size_t k = 0; k < all[i].n_pytorch; k++)
				if (!strcmp(all[i].domain, domain) && contains_nocase(all[i].pytorch[k], op)) {
					*pytorch = all[i].pytorch[k];
					return all[i].name;
				}
	if (strlen(op) >= 4)
		for (size_t i = 0; i < n; i++)
			if (!strncasecmp(names[i], op, strlen(op)) && (!best || strlen(names[i]) < strlen(best)))
				best = names[i];
	if (best)
		return best;
	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(op, names[i]);
		if (d == (size_t)-1)
			continue;
		d = d * 2 + (tolower((unsigned char)names[i][0]) != tolower((unsigned char)op[0]));
		if (d < best_d) {
			best_d = d;
			best = names[i];
		}
	}
	size_t limit = strlen(op) / 3 > 2 ? strlen(op) / 3 : 2;
	return best && best_d / 2 <= limit ? best : NULL;
}

static int unknown_op(FILE *err, const struct opdb *db, const struct opdoc *docs, const char *domain,
		      const char *op, int domain_given)
{
	const char *pytorch, *s = suggest(db, docs, domain, op, &pytorch);
	size_t nd;
	const char *const *domains = opdb_domains(db, &nd);

	fprintf(err, "onnxview: ops: no operator '%s' in %s", op, domain);
	if (domain_given)
		for (size_t i = 0; i < nd; i++)
			if (strcmp(domains[i], domain) && opdb_first_version(db, domains[i], op)) {
				fprintf(err, "; it is in %s\n", domains[i]);
				return 1;
			}
	if (s && pytorch)
		fprintf(err, "; did you mean '%s' (PyTorch: %s)?\n", s, pytorch);
	else if (s)
		fprintf(err, "; did you mean '%s'?\n", s);
	else
		fputc('\n', err);
	return 1;
}

enum { OPS_JSON, OPS_DOMAIN, OPS_OPSET };
static const struct opt_spec ops_opts[] = {
	[OPS_JSON] = {.name = "--json", .help = "the reference as JSON"},
	[OPS_DOMAIN] = {.name = "--domain", .arg = "D", .help = "a domain other than ai.onnx (ai.onnx.ml, com.microsoft...)"},
	[OPS_OPSET] = {.name = "--opset", .arg = "N", .help = "the version of OP at opset N"},
};
static const struct opt_cmd ops_cmd = {
	.name = "ops", .usage = ops_usage, .opts = ops_opts, .n_opts = sizeof ops_opts / sizeof ops_opts[0],
	.pos_name = "operator", .min_pos = 0, .max_pos = 1,
};

/* -1 to go on, or the exit status (0 after --help) */
static int parse_args(int argc, char **argv, struct ops_args *a, FILE *out, FILE *err)
{
	struct opt_parsed p;
	int rc = opt_parse_cli(&ops_cmd, argc, argv, &p, out, err);

	memset(a, 0, sizeof *a);
	if (rc < 0) {
		a->as_json = opt_given(&p, OPS_JSON);
		a->domain = opt_value(&p, OPS_DOMAIN);
		a->op = p.n_pos ? p.pos[0] : NULL;
		const char *v = opt_value(&p, OPS_OPSET);
		if (v) {
			char *end;
			long long n = strtoll(v, &end, 10);
			if (*end || end == v || n < 1 || n > 1000000)
				rc = opt_usage_error(&ops_cmd, err, "--opset takes a positive number, not '%s'", v);
			a->opset = n;
		}
		if (rc < 0 && a->opset && !a->op)
			rc = opt_usage_error(&ops_cmd, err, "--opset needs an operator");
	}
	opt_free(&p);
	return rc;
}

int ops_report(int argc, char **argv, FILE *out, FILE *err)
{
	struct ops_args a;
	struct ov_error e = {0};
	struct strbuf b = {0};
	const struct opdb *db;
	const struct opdoc *docs;
	const char *domain;
	int rc = parse_args(argc, argv, &a, out, err);

	if (rc >= 0)
		return rc;
	db = opdb_default(&e);
	if (!db)
		return ov_error_report(err, NULL, &e);
	docs = opdoc_default(&e);
	if (!docs && e.code != OV_OK)
		ov_error_report(err, "warning", &e); /* the reference works without the notes */
	domain = a.domain && *a.domain ? a.domain : "ai.onnx";
	if (!opdb_latest_opset(db, domain)) {
		size_t nd;
		const char *const *domains = opdb_domains(db, &nd);
		fprintf(err, "onnxview: ops: no domain '%s' in the op database (it knows", domain);
		for (size_t i = 0; i < nd; i++)
			fprintf(err, "%s %s", i ? "," : "", domains[i]);
		fprintf(err, ")\n");
		return 1;
	}
	if (!a.op) {
		ops_list(&b, db, docs, domain, a.as_json);
	} else {
		if (!opdb_first_version(db, domain, a.op) && !a.domain) {
			/* Without --domain, look in the other domains too (Scaler is an ai.onnx.ml op). */
			size_t nd;
			const char *const *domains = opdb_domains(db, &nd);
			for (size_t i = 0; i < nd; i++)
				if (opdb_first_version(db, domains[i], a.op)) {
					domain = domains[i];
					break;
				}
		}
		if (!opdb_first_version(db, domain, a.op))
			return unknown_op(err, db, docs, domain, a.op, a.domain != NULL);
		if (a.opset && !opdb_find(db, domain, a.op, a.opset)) {
			fprintf(err, "onnxview: ops: %s does not exist at opset %" PRId64 " of %s (its first version is %d)\n",
				a.op, a.opset, domain, opdb_first_version(db, domain, a.op));
			return 1;
		}
		ops_show(&b, db, opdoc_find(docs, domain, a.op), domain, a.op, &a);
	}
	fwrite(strbuf_str(&b), 1, b.len, out);
	rc = b.failed ? ov_error_report(err, NULL, &(struct ov_error){OV_NOMEM, "out of memory"}) : 0;
	strbuf_free(&b);
	return rc;
}
