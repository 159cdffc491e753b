/* set-opset [DOMAIN] VERSION: change (or add) an opset import, and say which ops that moves: ops that do not
 * exist at the new version, ops removed by it, ops whose version changes (and what of their nodes no longer fits). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/edit/internal.h"
#include "src/graph/opdb.h"
#include "src/base/strbuf.h"

/* The IR version each ai.onnx opset first shipped with (onnx's release table): opset 15 came with IR 8; opsets
 * newer than the table need at least its last IR version. */
static int64_t ir_for_opset(int64_t opset)
{
	static const struct {
		int64_t opset, ir;
	} table[] = {{23, 11}, {21, 10}, {19, 9}, {15, 8}, {12, 7}, {11, 6}, {10, 5}, {9, 4}, {1, 3}};

	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (opset >= table[i].opset)
			return table[i].ir;
	return 3;
}

struct use {
	const Onnx__NodeProto *n;
	int32_t top;  /* the main-graph node (itself, or the one its subgraph hangs from) */
	int in_sub;
};

struct uses {
	struct use *a;
	size_t n, cap;
	int oom;
};

/* Every node of the domain, in the main graph and its subgraphs (functions import opsets of their own). */
static void collect(struct uses *u, const struct graph *g, const char *domain, int32_t top)
{
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		const Onnx__NodeProto *n = g->nodes[i].proto;
		int32_t t = top < 0 ? (int32_t)i : top;
		int match = edit_is_default_domain(domain) ? edit_is_default_domain(n->domain) :
			(n->domain && !strcmp(n->domain, domain));
		if (match && n->op_type) {
			if (u->n == u->cap) {
				size_t cap = u->cap ? u->cap * 2 : 32;
				struct use *na = realloc(u->a, cap * sizeof *na);
				if (!na) {
					u->oom = 1;
					return;
				}
				u->a = na;
				u->cap = cap;
			}
			u->a[u->n++] = (struct use){n, t, top >= 0};
		}
		for (uint32_t k = 0; k < g->nodes[i].n_sub; k++)
			collect(u, g->nodes[i].sub[k], domain, t);
	}
}

static void use_label(char *buf, size_t len, const struct use *u)
{
	if (u->in_sub)
		snprintf(buf, len, "'%s' %s (in a subgraph of #%d)", u->n->name ? u->n->name : "", u->n->op_type, u->top);
	else
		edit_node_label(buf, len, u->n, (uint32_t)u->top);
}

/* "#0 'resize0', #4 'resize1' and 3 more" */
static void list_nodes(struct strbuf *b, const struct uses *u, const char *op)
{
	size_t shown = 0, more = 0;
	char label[300];

	for (size_t i = 0; i < u->n; i++) {
		if (strcmp(u->a[i].n->op_type, op))
			continue;
		if (shown == 4) {
			more++;
			continue;
		}
		use_label(label, sizeof label, &u->a[i]);
		strbuf_printf(b, "%s%s", shown++ ? ", " : "", label);
	}
	if (more)
		strbuf_printf(b, " and %zu more", more);
}

static void report_ops(struct edit_session *s, const struct opdb *db, const char *domain, int64_t old, int64_t version)
{
	struct uses u = {0};
	struct strbuf b = {0};
	const char *dname = edit_is_default_domain(domain) ? "ai.onnx" : domain;
	char label[300], ref[24];

	collect(&u, s->g, domain, -1);
	for (size_t i = 0; i < u.n; i++) {
		const char *op = u.a[i].n->op_type;
		size_t j;
		for (j = 0; j < i && strcmp(u.a[j].n->op_type, op); j++)
			;
		if (j < i)
			continue; /* this op was reported with its first node */
		const struct op_schema *was = old ? opdb_find(db, domain, op, old) : NULL;
		const struct op_schema *now = opdb_find(db, domain, op, version);
		int first = opdb_first_version(db, domain, op);
		if (!first)
			continue; /* not an op of the domain at all: check says so, whatever the version */
		strbuf_reset(&b);
		list_nodes(&b, &u, op);
		if (!now) {
			edit_say(s, "warning: %s does not exist in %s at opset %lld (it was added at opset %d): %s", op, dname,
				 (long long)version, first, strbuf_str(&b));
			continue;
		}
		if (now->deprecated) {
			edit_say(s, "warning: %s was removed from %s at opset %d: %s", op, dname, now->since_version,
				 strbuf_str(&b));
			continue;
		}
		if (was && !was->deprecated && was->since_version == now->since_version)
			continue;
		if (was && !was->deprecated)
			edit_say(s, "%s changes from %s-%d to %s-%d: %s", op, op, was->since_version, op, now->since_version,
				 strbuf_str(&b));
		else
			edit_say(s, "%s is now %s-%d: %s", op, op, now->since_version, strbuf_str(&b));
		for (size_t k = i; k < u.n; k++) {
			if (strcmp(u.a[k].n->op_type, op))
				continue;
			use_label(label, sizeof label, &u.a[k]);
			snprintf(ref, sizeof ref, "#%d", u.a[k].top);
			edit_warn_op_fit(s, label, u.a[k].in_sub ? NULL : ref, u.a[k].n, now);
		}
	}
	if (u.oom)
		edit_say(s, "warning: out of memory: not every op was checked against opset %lld", (long long)version);
	free(u.a);
	strbuf_free(&b);
}

static int exec_set_opset(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	const char *domain = a->v[0].text ? a->v[0].text : "";
	int is_default = edit_is_default_domain(domain);
	const char *dname = is_default ? "ai.onnx" : domain;
	Onnx__ModelProto *p = s->m->proto;
	struct ov_error dberr;
	int64_t version = a->v[1].i;

	if (version < 1)
		return ov_fail(err, OV_USAGE, "opset version %lld: versions start at 1", (long long)version);
	if (edit_index(s, err))
		return -1;
	int64_t old = model_opset(s->m, domain);
	if (old == version)
		return ov_fail(err, OV_INVALID, "the model already imports %s at opset %lld", dname, (long long)version);

	Onnx__OperatorSetIdProto *imp = NULL;
	for (size_t i = 0; i < p->n_opset_import && !imp; i++) {
		const char *d = p->opset_import[i]->domain;
		if (is_default ? edit_is_default_domain(d) : (d && !strcmp(d, domain)))
			imp = p->opset_import[i];
	}
	if (imp) {
		imp->has_version = 1;
		imp->version = version;
		edit_say(s, "%s opset %lld -> %lld", dname, (long long)old, (long long)version);
	} else {
		if (edit_import_domain(s, domain, version))
			return ov_fail(err, OV_NOMEM, "out of memory");
		edit_say(s, "imported %s at opset %lld", dname, (long long)version);
	}
	if (is_default && p->has_ir_version && p->ir_version < ir_for_opset(version)) {
		edit_say(s, "IR version %lld -> %lld (ai.onnx opset %lld needs IR version %lld or newer)",
			 (long long)p->ir_version, (long long)ir_for_opset(version), (long long)version,
			 (long long)ir_for_opset(version));
		p->ir_version = ir_for_opset(version);
	}

	struct opdb *db = opdb_default(&dberr);
	int latest = db ? opdb_latest_opset(db, dname) : 0;
	if (!db && is_default)
		edit_say(s, "warning: the op database could not be loaded (%s): ops were not checked against opset %lld",
			 dberr.msg, (long long)version);
	else if (latest && version > latest)
		edit_say(s, "warning: onnxview's op database (onnx %s) knows %s up to opset %d: ops were not checked "
			 "against opset %lld", opdb_onnx_version(db), dname, latest, (long long)version);
	else if (latest)
		report_ops(s, db, domain, old, version);
	edit_touch(s);
	return 0;
}

const struct edit_cmd edit_set_opset_cmd = {
	.name = "set-opset",
	.usage = "set-opset [DOMAIN] VERSION",
	.help = "change or add an opset import (ai.onnx when no DOMAIN); names ops that do not exist or change there",
	.args = {{.kind = EDIT_ARG_DOMAIN, .optional = 1}, {.kind = EDIT_ARG_INT, .what = "opset version"}},
	.exec = exec_set_opset,
};
