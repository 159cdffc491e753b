/* The check driver: runs the rules over every graph and function, and keeps the diagnostics. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/check/internal.h"
#include "src/model/describe.h"
#include "src/base/strbuf.h"

static const struct {
	const char *name;
	enum diag_severity severity;
	const char *desc;
} codes[] = {
#define DIAG_X(code, sev, desc) {#code, DIAG_##sev, desc},
	DIAG_TABLE(DIAG_X)
#undef DIAG_X
};
_Static_assert(sizeof codes / sizeof codes[0] == DIAG_CODE_COUNT, "diagnostic table drifted");

const char *diag_code_name(enum diag_code c)
{
	static char names[DIAG_CODE_COUNT][40];

	if ((unsigned)c >= DIAG_CODE_COUNT)
		return "?";
	if (!names[c][0]) { /* op_not_in_opset -> op-not-in-opset */
		snprintf(names[c], sizeof names[c], "%s", codes[c].name);
		for (char *p = names[c]; *p; p++)
			if (*p == '_')
				*p = '-';
	}
	return names[c];
}

const char *diag_code_desc(enum diag_code c)
{
	return (unsigned)c < DIAG_CODE_COUNT ? codes[c].desc : "?";
}

const char *diag_severity_name(enum diag_severity s)
{
	return s == DIAG_ERROR ? "error" : s == DIAG_WARNING ? "warning" : "info";
}

void diag_add(struct check_ctx *c, enum diag_code code, int32_t node, const char *value, const char *hint,
	      const char *fmt, ...)
{
	struct diag_list *l = c->out;
	struct strbuf nd = {0}, msg = {0}, hb = {0};
	char raw[1024];
	va_list ap;

	if (c->oom)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		struct diag *d = realloc(l->d, cap * sizeof *d);
		if (!d) {
			c->oom = 1;
			return;
		}
		l->d = d;
		l->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	strbuf_put_safe(&msg, raw, strlen(raw), 0);
	if (hint) /* hints quote names from the model too: escape them like the message */
		strbuf_put_safe(&hb, hint, strlen(hint), 0);
	if (node >= 0) {
		const Onnx__NodeProto *n = c->g->nodes[node].proto;
		strbuf_printf(&nd, "#%d ", node);
		if (n->name && *n->name) {
			strbuf_putc(&nd, '\'');
			describe_name(&nd, n->name);
			strbuf_puts(&nd, "' ");
		}
		if (n->domain && *n->domain && strcmp(n->domain, "ai.onnx")) {
			describe_name(&nd, n->domain);
			strbuf_puts(&nd, "::");
		}
		describe_name(&nd, n->op_type);
	}
	struct diag *d = &l->d[l->n];
	d->severity = codes[code].severity;
	d->code = code;
	d->graph = c->g;
	d->where = strdup(c->where);
	d->node = node;
	d->node_desc = node >= 0 ? strdup(strbuf_str(&nd)) : NULL;
	d->value = value ? strdup(value) : NULL;
	d->message = strdup(strbuf_str(&msg));
	d->hint = hint ? strdup(strbuf_str(&hb)) : NULL;
	strbuf_free(&nd);
	strbuf_free(&msg);
	strbuf_free(&hb);
	if (!d->where || !d->message || (node >= 0 && !d->node_desc) || (value && !d->value) ||
	    (hint && !d->hint)) {
		free(d->where), free(d->node_desc), free(d->value), free(d->message), free(d->hint);
		c->oom = 1;
		return;
	}
	l->count[d->severity]++;
	l->n++;
}

/* Lookups by name, once per node: maps built once per model or function, not a scan of every import or function
 * for every node (50,000 local functions made check run for minutes). */
static const char *opset_key(const char *domain)
{
	return !domain || !strcmp(domain, "ai.onnx") ? "" : domain;
}

static int opset_map_build(struct strmap *map, Onnx__OperatorSetIdProto **opsets, size_t n)
{
	if (strmap_reserve(map, n))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (strmap_add(map, opset_key(opsets[i]->domain), opsets[i]))
			return -1;
	return 0;
}

int64_t check_opset(const struct check_ctx *c, const char *domain)
{
	const Onnx__OperatorSetIdProto *o = c->opset_map ? strmap_get(c->opset_map, opset_key(domain)) : NULL;

	return o && o->has_version ? o->version : 0;
}

/* "<length of the domain>:<domain><name>": one key per (domain, name) pair, whatever bytes they hold. */
static char *function_key(const char *domain, const char *name)
{
	char *k = NULL;

	domain = domain ? domain : "";
	if (asprintf(&k, "%zu:%s%s", strlen(domain), domain, name) < 0)
		return NULL;
	return k;
}

int check_is_function(const struct check_ctx *c, const char *domain, const char *op)
{
	if (!op || !c->function_map || !c->function_map->n)
		return 0;
	char *k = function_key(domain, op);
	int found = k && strmap_has(c->function_map, k);
	free(k);
	return found;
}

static void check_one(struct check_ctx *c)
{
	check_ops(c);
	check_graph(c);
	if (c->sh) {
		check_shapes(c);
		check_traps(c);
	}
	/* Subgraphs: checked in their own context, named by where they hang. */
	const struct graph *g = c->g;
	for (uint32_t i = 0; i < g->n_nodes && !c->oom; i++)
		for (uint32_t s = 0; s < g->nodes[i].n_sub; s++) {
			struct check_ctx sub = *c;
			struct strbuf w = {0};
			const char *attr = g->nodes[i].sub_attr[s] ? g->nodes[i].sub_attr[s] : "?";
			strbuf_printf(&w, "%ssubgraph ", c->where);
			strbuf_put_safe(&w, attr, strlen(attr), 80);
			strbuf_printf(&w, " of #%u: ", i);
			sub.g = g->nodes[i].sub[s];
			sub.where = strbuf_str(&w);
			check_one(&sub);
			c->oom |= sub.oom;
			strbuf_free(&w);
		}
}

static void check_functions(struct check_ctx *base)
{
	const Onnx__ModelProto *p = base->m->proto;

	for (size_t i = 0; i < p->n_functions && !base->oom; i++) {
		const Onnx__FunctionProto *f = p->functions[i];
		Onnx__GraphProto gp;
		Onnx__ValueInfoProto *vi = calloc(f->n_input + 1, sizeof *vi), **vip = calloc(f->n_input + 1, sizeof *vip);
		Onnx__ValueInfoProto *vo = calloc(f->n_output + 1, sizeof *vo), **vop = calloc(f->n_output + 1, sizeof *vop);
		struct graph *g = NULL;
		struct ov_error e;
		struct strbuf w = {0};

		onnx__graph_proto__init(&gp);
		if (!vi || !vip || !vo || !vop) {
			base->oom = 1;
			goto next;
		}
		for (size_t k = 0; k < f->n_input; k++) {
			onnx__value_info_proto__init(&vi[k]);
			vi[k].name = f->input[k];
			vip[k] = &vi[k];
		}
		for (size_t k = 0; k < f->n_output; k++) {
			onnx__value_info_proto__init(&vo[k]);
			vo[k].name = f->output[k];
			vop[k] = &vo[k];
		}
		gp.n_input = f->n_input, gp.input = vip;
		gp.n_output = f->n_output, gp.output = vop;
		gp.n_node = f->n_node, gp.node = f->node;
		if (graph_build(&g, &gp, &e)) {
			base->oom = 1;
			goto next;
		}
		strbuf_puts(&w, "function ");
		strbuf_put_safe(&w, f->name ? f->name : "?", strlen(f->name ? f->name : "?"), 80);
		strbuf_puts(&w, ": ");
		struct check_ctx c = *base;
		c.g = g;
		c.sh = NULL;
		c.where = strbuf_str(&w);
		c.opsets = f->opset_import;
		c.n_opsets = f->n_opset_import;
		struct strmap fo = {0};
		if (opset_map_build(&fo, f->opset_import, f->n_opset_import))
			c.oom = 1;
		c.opset_map = &fo;
		check_ops(&c);
		check_graph(&c);
		strmap_free(&fo);
		base->oom |= c.oom;
	next:
		graph_free(g);
		strbuf_free(&w);
		free(vi), free(vip), free(vo), free(vop);
	}
}

int check_model(struct ov_model *m, const struct graph *g, const struct shapes *sh, const struct opdb *db,
		struct diag_list *out, struct ov_error *err)
{
	struct check_ctx c = {m, g, sh, db, out, "", m->proto->opset_import, m->proto->n_opset_import, NULL, NULL, 0};
	struct strmap opsets = {0}, functions = {0};
	char **keys = calloc(m->proto->n_functions + 1, sizeof *keys);

	memset(out, 0, sizeof *out);
	c.oom = !keys || opset_map_build(&opsets, m->proto->opset_import, m->proto->n_opset_import) ||
		strmap_reserve(&functions, m->proto->n_functions);
	for (size_t i = 0; !c.oom && i < m->proto->n_functions; i++) {
		const Onnx__FunctionProto *f = m->proto->functions[i];
		if (!f->name)
			continue;
		keys[i] = function_key(f->domain, f->name);
		c.oom = !keys[i] || strmap_add(&functions, keys[i], (void *)f);
	}
	c.opset_map = &opsets;
	c.function_map = &functions;
	if (!c.oom) {
		check_one(&c);
		check_functions(&c);
	}
	strmap_free(&opsets);
	strmap_free(&functions);
	for (size_t i = 0; keys && i < m->proto->n_functions; i++)
		free(keys[i]);
	free(keys);
	if (c.oom) {
		diag_list_free(out);
		return ov_fail(err, OV_NOMEM, "out of memory checking the model");
	}
	return 0;
}

void diag_list_free(struct diag_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->d[i].where);
		free(l->d[i].node_desc);
		free(l->d[i].value);
		free(l->d[i].message);
		free(l->d[i].hint);
	}
	free(l->d);
	memset(l, 0, sizeof *l);
}
