/* set-op NODE OPTYPE [DOMAIN]: swap a node's operator, keeping its inputs, outputs and attributes, and say what of
 * the node does not fit the new op. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "src/edit/internal.h"
#include "src/graph/opdb.h"

static int exec_set_op(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	const char *op = a->v[1].text, *domain = a->v[2].text ? a->v[2].text : "";
	char label[300], ref[24];
	struct ov_error dberr;
	int is_default = edit_is_default_domain(domain);
	const struct op_schema *sch = NULL;
	int64_t opset = 0;
	int add_import = 0;

	int32_t idx = a->v[0].node;
	Onnx__NodeProto *n = s->g->nodes[idx].proto;
	if (n->op_type && !strcmp(n->op_type, op) && (edit_is_default_domain(n->domain) ? is_default :
						      !is_default && !strcmp(n->domain, domain)))
		return ov_fail(err, OV_INVALID, "%s is already %s%s%s", edit_node_label(label, sizeof label, n,
			       (uint32_t)idx), is_default ? "ai.onnx::" : domain, is_default ? "" : "::", op);
	struct opdb *db = opdb_default(&dberr);
	int known = is_default || (db && opdb_latest_opset(db, domain) > 0);
	if (known) {
		if (!db)
			return ov_fail(err, OV_INVALID, "cannot check '%s' against the op database: %s", op, dberr.msg);
		opset = model_opset(s->m, domain);
		if (!opset) {
			opset = opdb_latest_opset(db, is_default ? "ai.onnx" : domain);
			add_import = 1;
		}
		sch = opdb_find(db, domain, op, opset);
		int first = opdb_first_version(db, domain, op);
		if (!first) {
			const char *close = opdb_closest_op(db, domain, op);
			return ov_fail(err, OV_INVALID, "no operator '%s' in %s%s%s%s", op, is_default ? "ai.onnx" : domain,
				       close ? " (did you mean '" : "", close ? close : "", close ? "'?)" : "");
		}
		if (!sch)
			return ov_fail(err, OV_INVALID, "%s does not exist in %s at opset %lld (it was added at opset %d: "
				       "set-opset %s%s%d first)", op, is_default ? "ai.onnx" : domain, (long long)opset,
				       first, is_default ? "" : domain, is_default ? "" : " ", first);
		if (sch->deprecated)
			return ov_fail(err, OV_INVALID, "%s was removed from %s at opset %d; the model uses opset %lld", op,
				       is_default ? "ai.onnx" : domain, sch->since_version, (long long)opset);
	} else if (!model_opset(s->m, domain)) {
		opset = 1;
		add_import = 1;
	}

	char *nop = edit_strdup(s, op), *ndom = is_default ? NULL : edit_strdup(s, domain);
	if (!nop || (!is_default && !ndom)) {
		s->m->alloc.free(s->m->alloc.allocator_data, nop);
		s->m->alloc.free(s->m->alloc.allocator_data, ndom);
		return ov_fail(err, OV_NOMEM, "out of memory");
	}
	edit_node_label(label, sizeof label, n, (uint32_t)idx);
	if (n->op_type)
		s->m->alloc.free(s->m->alloc.allocator_data, n->op_type);
	n->op_type = nop;
	/* The standard domain is written the way the node had it ("" or absent); another domain by name. */
	if (!is_default || !edit_is_default_domain(n->domain)) {
		if (n->domain)
			s->m->alloc.free(s->m->alloc.allocator_data, n->domain);
		n->domain = ndom;
	}
	edit_touch(s);
	if (add_import) {
		if (edit_import_domain(s, domain, opset))
			return ov_fail(err, OV_NOMEM, "out of memory");
	}
	edit_say(s, "%s -> %s%s%s", label, is_default ? "" : domain, is_default ? "" : "::", op);
	if (add_import && known)
		edit_say(s, "imported %s at opset %lld, the newest onnxview knows (change it with set-opset)",
			 is_default ? "ai.onnx" : domain, (long long)opset);
	else if (add_import)
		edit_say(s, "imported domain '%s' at version 1 (custom domains are versioned by the runtime that "
			 "implements them; change it with set-opset %s N)", domain, domain);
	if (sch) {
		snprintf(ref, sizeof ref, "#%d", idx);
		edit_node_label(label, sizeof label, n, (uint32_t)idx);
		edit_warn_op_fit(s, label, ref, n, sch);
	}
	return 0;
}

const struct edit_cmd edit_set_op_cmd = {
	.name = "set-op",
	.usage = "set-op NODE OPTYPE [DOMAIN]",
	.help = "swap a node's operator, keeping its inputs, outputs and attributes; warns about what does not fit",
	.args = {{.kind = EDIT_ARG_NODE}, {.kind = EDIT_ARG_OP}, {.kind = EDIT_ARG_DOMAIN, .optional = 1}},
	.exec = exec_set_op,
};
