/* The arguments of edit commands by kind: each command's entry declares what its arguments name (a node, a value,
 * a constant, a dtype...), and this file resolves them once before the command runs, reporting a bad one the same
 * way whatever the command, and lists the candidates for an argument position (the TUI's completion). */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/base/strbuf.h"
#include "src/edit/internal.h"
#include "src/graph/opdb.h"

/* ---- reading the table ---- */

static int n_declared(const struct edit_cmd *cmd)
{
	int n = 0;

	while (n < EDIT_MAX_ARGS && cmd->args[n].kind)
		n++;
	return n;
}

static int n_required(const struct edit_cmd *cmd)
{
	int n = 0;

	for (int i = 0; i < n_declared(cmd); i++)
		n += !cmd->args[i].optional;
	return n;
}

int edit_cmd_arity_ok(const struct edit_cmd *cmd, int nargs)
{
	return nargs >= n_required(cmd) && nargs <= n_declared(cmd);
}

/* ---- parsers shared by kinds ---- */

int edit_parse_dim(const char *text, int64_t *value, const char **sym, struct ov_error *err)
{
	*value = -1;
	*sym = NULL;
	if (!strcmp(text, "?"))
		return 0;
	if (isdigit((unsigned char)text[0]))
		return edit_parse_int(text, value, err);
	if (text[0] == '-')
		return ov_fail(err, OV_USAGE, "a dim cannot be negative (%s); use a name such as 'batch' or ? for a "
			       "dynamic dim", text);
	/* A dim name: letters, digits, '_', '.', '-', not starting with a digit or '-'. */
	int ok = *text != '\0';
	for (const char *p = text; *p && ok; p++)
		ok = isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '-';
	if (!ok)
		return ov_fail(err, OV_USAGE, "'%s' is not a dim: give a number, a name (letters, digits, _), or ?", text);
	*sym = text;
	return 0;
}

/* The text of a list item: "batch" (quoted) becomes batch. */
static char *unquote(const char *t)
{
	size_t n = strlen(t);

	if (n >= 2 && t[0] == '"' && t[n - 1] == '"')
		return strndup(t + 1, n - 2);
	return strdup(t);
}

static void shape_free(struct edit_shape_arg *sh)
{
	for (int64_t i = 0; sh->sym && i < sh->rank; i++)
		free(sh->sym[i]);
	free(sh->sym);
	free(sh->value);
	sh->sym = NULL;
	sh->value = NULL;
}

/* "[1,3,batch,?]": each dim a number, a name or ?. */
static int resolve_shape(const char *text, struct edit_shape_arg *sh, struct ov_error *err)
{
	char **items = NULL;
	int64_t n = 0, ldims[16];
	int lrank, rc = -1;

	if (edit_parse_list(text, &items, &n, ldims, &lrank, err))
		return -1;
	if (lrank != 1) {
		ov_fail(err, OV_USAGE, "'%s' is not a shape: give the dims in brackets, as [1,3,224,224] ([] for a "
			"scalar)", text);
		goto out;
	}
	if (n > SHAPE_MAX_RANK) {
		ov_fail(err, OV_INVALID, "%lld dims: onnxview handles up to %d", (long long)n, SHAPE_MAX_RANK);
		goto out;
	}
	sh->rank = n;
	sh->value = calloc((size_t)n + 1, sizeof *sh->value);
	sh->sym = calloc((size_t)n + 1, sizeof *sh->sym);
	if (!sh->value || !sh->sym) {
		ov_fail(err, OV_NOMEM, "out of memory");
		goto out;
	}
	for (int64_t i = 0; i < n; i++) {
		const char *ds;
		if (!(sh->sym[i] = unquote(items[i]))) {
			ov_fail(err, OV_NOMEM, "out of memory");
			goto out;
		}
		if (edit_parse_dim(sh->sym[i], &sh->value[i], &ds, err)) {
			ov_wrap(err, "dim %lld: ", (long long)i);
			goto out;
		}
		if (!ds) {
			free(sh->sym[i]);
			sh->sym[i] = NULL;
		}
	}
	rc = 0;
out:
	edit_free_list(items, n);
	return rc;
}

static void names_free(struct edit_names_arg *l)
{
	for (size_t i = 0; l->names && i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	free(l->ids);
	l->names = NULL;
	l->ids = NULL;
}

/* "a,b,c": names (malloc'd) of values of the main graph; refuses empty names and repeats. */
static int resolve_names(struct edit_session *s, const char *what, const char *text, struct edit_names_arg *l,
			 struct ov_error *err)
{
	size_t cap = 1;

	for (const char *p = text; *p; p++)
		cap += *p == ',';
	l->n = 0;
	l->names = calloc(cap, sizeof *l->names);
	l->ids = calloc(cap, sizeof *l->ids);
	if (!l->names || !l->ids)
		return ov_fail(err, OV_NOMEM, "out of memory");
	for (const char *p = text;;) {
		size_t len = strcspn(p, ",");
		if (!len)
			return ov_fail(err, OV_USAGE, "%s '%s' has an empty name (names are separated by commas; a name "
				       "that contains a comma cannot be given here)", what, text);
		if (!(l->names[l->n] = strndup(p, len)))
			return ov_fail(err, OV_NOMEM, "out of memory");
		l->n++;
		for (size_t j = 0; j + 1 < l->n; j++)
			if (!strcmp(l->names[j], l->names[l->n - 1]))
				return ov_fail(err, OV_USAGE, "%s names '%s' twice", what, l->names[l->n - 1]);
		if (!p[len])
			break;
		p += len + 1;
	}
	for (size_t i = 0; i < l->n; i++)
		if ((l->ids[i] = edit_value(s, l->names[i], err)) < 0)
			return ov_wrap(err, "%s: ", what);
	return 0;
}

/* "'y' is not a graph output (the outputs are 'a', 'b')". */
static int not_an_output(struct edit_session *s, const char *name, struct ov_error *err)
{
	const Onnx__GraphProto *g = s->m->proto->graph;
	struct strbuf b = {0};

	for (size_t i = 0; i < g->n_output && i < 8; i++)
		strbuf_printf(&b, "%s'%s'", i ? ", " : "", g->output[i]->name ? g->output[i]->name : "");
	if (g->n_output > 8)
		strbuf_puts(&b, ", ...");
	ov_fail(err, OV_INVALID, "'%s' is not a graph output (%s%s)", name, g->n_output ? "the outputs are " :
		"the graph has none", strbuf_str(&b));
	strbuf_free(&b);
	return -1;
}

/* ---- resolving ---- */

/* One argument; errors are the kind's own, wrapped with the argument's `what` by the caller. */
static int resolve_one(struct edit_session *s, const struct edit_cmd *cmd, const struct edit_arg *arg,
		       struct edit_argval *v, struct ov_error *err)
{
	const char *t = v->text;

	switch (arg->kind) {
	case EDIT_ARG_NODE:
		return (v->node = edit_node(s, t, err)) < 0 ? -1 : 0;
	case EDIT_ARG_VALUE:
		return (v->value = edit_value(s, t, err)) < 0 ? -1 : 0;
	case EDIT_ARG_VALUES:
		return resolve_names(s, arg->what ? arg->what : "names", t, &v->names, err);
	case EDIT_ARG_TENSOR:
		return edit_find_constant(s, t, &v->constant, err);
	case EDIT_ARG_INPUT:
		if ((v->decl = edit_graph_input(s, t)))
			return 0;
		int32_t id = edit_index(s, err) ? -1 : graph_value_id(s->g, t);
		if (id >= 0 && (s->g->values[id].origin == VALUE_INITIALIZER || s->g->values[id].origin == VALUE_CONSTANT))
			return ov_fail(err, OV_INVALID, "'%s' is already a constant (set-tensor %s ... changes its value)", t,
				       t);
		return ov_fail(err, OV_INVALID, "'%s' is not a graph input", t);
	case EDIT_ARG_PORT:
		if ((v->decl = edit_graph_input(s, t)) || (v->decl = edit_graph_output(s, t)))
			return 0;
		return ov_fail(err, OV_INVALID, "'%s' is not a graph input or output (%s changes their declared dims)", t,
			       cmd->name);
	case EDIT_ARG_OUTPUT:
		if ((v->decl = edit_graph_output(s, t)))
			return 0;
		return not_an_output(s, t, err);
	case EDIT_ARG_INT:
		return edit_parse_int(t, &v->i, err);
	case EDIT_ARG_DIM:
		return edit_parse_dim(t, &v->dim.value, &v->dim.sym, err);
	case EDIT_ARG_SHAPE:
		return resolve_shape(t, &v->shape, err);
	case EDIT_ARG_DTYPE:
		if ((v->dtype = dtype_parse(t)) > 0)
			return 0;
		return ov_fail(err, OV_USAGE, "'%s' is not a data type (float32, float16, bfloat16, float64, int64, int32, "
			       "int8, uint8, bool, string...)", t);
	case EDIT_ARG_ATTR:
		return *t ? 0 : ov_fail(err, OV_USAGE, "the attribute name cannot be empty");
	case EDIT_ARG_OP:
		return *t ? 0 : ov_fail(err, OV_USAGE, "the op type cannot be empty");
	case EDIT_ARG_NAME:
		return *t ? 0 : ov_fail(err, OV_USAGE, "the new name cannot be empty");
	case EDIT_ARG_DATA:
		return strcmp(t, "@") ? 0 : ov_fail(err, OV_USAGE, "'@' needs a file name: @FILE.npy or @FILE.pb");
	case EDIT_ARG_DOMAIN:
	case EDIT_ARG_LITERAL:
	case EDIT_ARG_PATH:
		return 0;
	case EDIT_ARG_END:
		break;
	}
	return ov_fail(err, OV_INVALID, "%s: argument of unknown kind %d", cmd->name, (int)arg->kind);
}

static void args_free(const struct edit_cmd *cmd, struct edit_args *a)
{
	for (int i = 0; i < EDIT_MAX_ARGS && cmd->args[i].kind; i++) {
		if (cmd->args[i].kind == EDIT_ARG_SHAPE)
			shape_free(&a->v[i].shape);
		else if (cmd->args[i].kind == EDIT_ARG_VALUES)
			names_free(&a->v[i].names);
	}
}

int edit_cmd_run(struct edit_session *s, const struct edit_cmd *cmd, int argc, char **argv, struct ov_error *err)
{
	struct edit_args a = {.argc = argc, .argv = argv};
	int n = n_declared(cmd), skip = n - (argc - 1), rc = -1;

	/* Left-out optional arguments are the first optional ones ("set-opset [DOMAIN] VERSION", "save [PATH]"). */
	for (int i = 0, k = 1; i < n; i++) {
		if (cmd->args[i].optional && skip > 0) {
			skip--;
			continue;
		}
		a.v[i].text = argv[k++];
	}
	for (int i = 0; i < n; i++) {
		if (!a.v[i].text)
			continue;
		if (resolve_one(s, cmd, &cmd->args[i], &a.v[i], err)) {
			if (cmd->args[i].what && cmd->args[i].kind != EDIT_ARG_VALUES)
				ov_wrap(err, "%s: ", cmd->args[i].what);
			goto out;
		}
	}
	rc = cmd->exec(s, &a, err);
out:
	args_free(cmd, &a);
	return rc;
}

/* ---- candidates ---- */

struct offer {
	const char *prefix;  /* the part of the word the candidate must start with */
	const char *lead;    /* what comes before it in the word (earlier names of a list) */
	size_t n;
	void (*fn)(void *ctx, const char *cand);
	void *ctx;
};

static void offer(struct offer *o, const char *cand)
{
	if (!cand || strncmp(cand, o->prefix, strlen(o->prefix)))
		return;
	o->n++;
	if (!*o->lead) {
		o->fn(o->ctx, cand);
		return;
	}
	struct strbuf b = {0};
	strbuf_printf(&b, "%s%s", o->lead, cand);
	if (!b.failed)
		o->fn(o->ctx, strbuf_str(&b));
	strbuf_free(&b);
}

static void offer_values(struct edit_session *s, struct offer *o, int constants_only)
{
	for (uint32_t i = 0; i < s->g->n_values; i++) {
		enum value_origin k = s->g->values[i].origin;
		if (k == VALUE_UNDEFINED || k == VALUE_OUTER)
			continue;
		if (!constants_only || k == VALUE_INITIALIZER || k == VALUE_CONSTANT)
			offer(o, s->g->values[i].name);
	}
}

static void offer_nodes(struct edit_session *s, struct offer *o)
{
	char ref[24];

	for (uint32_t i = 0; i < s->g->n_nodes; i++) {
		const char *name = s->g->nodes[i].proto->name;
		if (o->prefix[0] == '#' || !name || !*name) {
			snprintf(ref, sizeof ref, "#%u", i);
			offer(o, ref);
		} else {
			offer(o, name);
		}
	}
}

/* The attributes a node can take: its schema's, then any others it has. */
static void offer_attrs(struct edit_session *s, struct offer *o, const char *node_ref)
{
	struct ov_error e;
	int32_t idx = node_ref ? edit_node(s, node_ref, &e) : -1;

	if (idx < 0)
		return;
	const Onnx__NodeProto *n = s->g->nodes[idx].proto;
	const struct op_schema *sch = edit_node_schema(s, n);
	for (size_t k = 0; sch && k < sch->n_attrs; k++)
		offer(o, sch->attrs[k].name);
	for (size_t k = 0; k < n->n_attribute; k++)
		if (!sch || !op_schema_attr(sch, n->attribute[k]->name ? n->attribute[k]->name : ""))
			offer(o, n->attribute[k]->name);
}

static void offer_ops(struct offer *o, const char *domain)
{
	struct opdb *db = opdb_default(NULL);
	size_t n = 0;
	const char *const *names = db ? opdb_op_names(db, edit_is_default_domain(domain) ? "ai.onnx" : domain, &n) :
				   NULL;

	for (size_t i = 0; names && i < n; i++)
		offer(o, names[i]);
}

static void offer_domains(struct edit_session *s, struct offer *o)
{
	struct opdb *db = opdb_default(NULL);
	const Onnx__ModelProto *p = s->m->proto;
	size_t n = 0;
	const char *const *known = db ? opdb_domains(db, &n) : NULL;

	for (size_t i = 0; known && i < n; i++)
		offer(o, known[i]);
	for (size_t i = 0; i < p->n_opset_import; i++) {
		const char *d = p->opset_import[i]->domain;
		int dup = edit_is_default_domain(d);
		for (size_t k = 0; known && k < n && !dup; k++)
			dup = !strcmp(known[k], d);
		if (!dup)
			offer(o, d);
	}
}

size_t edit_arg_candidates(struct edit_session *s, const struct edit_cmd *cmd, int pos, char *const *prev,
			   const char *word, void (*fn)(void *ctx, const char *cand), void *ctx)
{
	struct offer o = {.prefix = word, .lead = "", .fn = fn, .ctx = ctx};
	struct ov_error e;
	char *lead = NULL;

	if (pos < 0 || pos >= n_declared(cmd))
		return 0;
	enum edit_arg_kind kind = cmd->args[pos].kind;
	const Onnx__GraphProto *g = s->m->proto->graph;
	if (kind != EDIT_ARG_DTYPE && kind != EDIT_ARG_OP && kind != EDIT_ARG_DOMAIN && edit_index(s, &e))
		return 0;
	switch (kind) {
	case EDIT_ARG_NODE:
		offer_nodes(s, &o);
		break;
	case EDIT_ARG_VALUES: {
		/* "a,b,c": the last name is the one being typed. */
		const char *comma = strrchr(word, ',');
		if (comma) {
			lead = strndup(word, (size_t)(comma - word) + 1);
			if (!lead)
				return 0;
			o.lead = lead;
			o.prefix = comma + 1;
		}
		offer_values(s, &o, 0);
		break;
	}
	case EDIT_ARG_VALUE:
		offer_values(s, &o, 0);
		break;
	case EDIT_ARG_TENSOR:
		offer_values(s, &o, 1);
		break;
	case EDIT_ARG_PORT:
	case EDIT_ARG_INPUT:
		for (size_t i = 0; i < g->n_input; i++)
			offer(&o, g->input[i]->name);
		if (kind == EDIT_ARG_INPUT)
			break;
		/* a port is an input or an output */
		/* fall through */
	case EDIT_ARG_OUTPUT:
		for (size_t i = 0; i < g->n_output; i++)
			offer(&o, g->output[i]->name);
		break;
	case EDIT_ARG_DTYPE:
		for (int32_t dt = 1; dt < 64; dt++)
			if (dtype_known(dt))
				offer(&o, dtype_short_name(dt));
		break;
	case EDIT_ARG_ATTR: {
		/* The node is the nearest NODE argument before this one. */
		const char *node = NULL;
		for (int i = pos - 1; i >= 0 && !node; i--)
			if (cmd->args[i].kind == EDIT_ARG_NODE)
				node = prev[i];
		offer_attrs(s, &o, node);
		break;
	}
	case EDIT_ARG_OP: {
		const char *domain = "";
		for (int i = pos + 1; i < n_declared(cmd); i++)
			if (cmd->args[i].kind == EDIT_ARG_DOMAIN && prev[i])
				domain = prev[i];
		offer_ops(&o, domain);
		break;
	}
	case EDIT_ARG_DOMAIN:
		offer_domains(s, &o);
		break;
	default: /* numbers, dims, shapes, literals, new names and paths: nothing to offer */
		break;
	}
	free(lead);
	return o.n;
}

size_t edit_complete(struct edit_session *s, const char *line, void (*fn)(void *ctx, const char *cand), void *ctx)
{
	char **argv = NULL, *prev[EDIT_MAX_ARGS] = {0};
	struct ov_error e;
	size_t len = strlen(line), n = 0;
	int argc = edit_split(line, &argv, &e);

	if (argc < 0)
		return 0;
	/* After a space a new word starts; otherwise the last word is the one being typed. */
	int fresh = argc == 0 || (len && strchr(" \t", line[len - 1]));
	const char *word = fresh ? "" : argv[argc - 1];
	int pos = fresh ? argc : argc - 1; /* 0: the command name */
	if (pos == 0) {
		size_t nc;
		const struct edit_cmd *const *cmds = edit_commands(&nc);
		struct offer o = {.prefix = word, .lead = "", .fn = fn, .ctx = ctx};
		for (size_t i = 0; i < nc; i++)
			offer(&o, cmds[i]->name);
		n = o.n;
	} else {
		const struct edit_cmd *cmd = edit_find_cmd(argv[0]);
		for (int i = 1; cmd && i < pos && i <= EDIT_MAX_ARGS; i++)
			prev[i - 1] = argv[i];
		if (cmd)
			n = edit_arg_candidates(s, cmd, pos - 1, prev, word, fn, ctx);
	}
	edit_free_words(argc, argv);
	return n;
}
