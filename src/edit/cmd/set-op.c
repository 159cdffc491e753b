/* set-op NODE OPTYPE [DOMAIN]: swap a node's operator, keeping its inputs, outputs and attributes, and say what of
 * the node does not fit the new op; and the schema helpers set-attr, del-attr and set-opset share with it. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "src/model/describe.h"
#include "src/edit/internal.h"
#include "src/graph/opdb.h"

int edit_is_default_domain(const char *d)
{
	return !d || !*d || !strcmp(d, "ai.onnx");
}

int64_t edit_domain_opset(struct edit_session *s, const char *domain)
{
	int64_t v = model_opset(s->m, domain);
	struct opdb *db;

	if (v > 0)
		return v;
	db = opdb_default(NULL);
	return db ? opdb_latest_opset(db, edit_is_default_domain(domain) ? "ai.onnx" : domain) : 0;
}

const struct op_schema *edit_op_schema(const char *domain, const char *op, int64_t opset)
{
	struct opdb *db = opdb_default(NULL);
	size_t n;

	if (!db || !op)
		return NULL;
	const struct op_schema *sch = opdb_find(db, domain, op, opset);
	/* A removed op keeps the attributes of its last valid version. */
	if (sch && sch->deprecated) {
		const struct op_schema *all = opdb_versions(db, domain, op, &n);
		sch = sch > all ? sch - 1 : NULL;
	}
	return sch;
}

const struct op_schema *edit_node_schema(struct edit_session *s, const Onnx__NodeProto *n)
{
	return edit_op_schema(n->domain, n->op_type, edit_domain_opset(s, n->domain));
}

const char *edit_node_label(char *buf, size_t len, const Onnx__NodeProto *n, uint32_t idx)
{
	int named = n->name && *n->name;

	snprintf(buf, len, "#%u%s%s%s %s%s%s", idx, named ? " '" : "", named ? n->name : "", named ? "'" : "",
		 edit_is_default_domain(n->domain) ? "" : n->domain, edit_is_default_domain(n->domain) ? "" : "::",
		 n->op_type ? n->op_type : "?");
	return buf;
}


int edit_warn_op_fit(struct edit_session *s, const char *label, const char *ref, const Onnx__NodeProto *n,
		     const struct op_schema *sch)
{
	char range[40], hint[300];
	int warned = 0;

	for (size_t a = 0; a < n->n_attribute; a++) {
		const Onnx__AttributeProto *at = n->attribute[a];
		const char *an = at->name ? at->name : "";
		const struct op_attr *sa = op_schema_attr(sch, an);
		hint[0] = '\0';
		if (!sa) {
			if (ref)
				snprintf(hint, sizeof hint, " (remove it: del-attr %s %s)", ref, an);
			edit_say(s, "warning: %s: %s-%d takes no attribute '%s'%s", label, sch->name, sch->since_version, an,
				 hint);
			warned++;
		} else if (attr_type(at) && attr_type(at) != sa->type) {
			if (ref)
				snprintf(hint, sizeof hint, " (set-attr %s %s VALUE)", ref, an);
			edit_say(s, "warning: %s: attribute '%s' is %s, %s-%d wants %s%s", label, an, attr_type_name(at),
				 sch->name, sch->since_version, op_attr_type_name(sa->type), hint);
			warned++;
		}
	}
	for (size_t k = 0; k < sch->n_attrs; k++) {
		const struct op_attr *sa = &sch->attrs[k];
		int found = 0;
		if (!sa->required)
			continue;
		for (size_t a = 0; a < n->n_attribute && !found; a++)
			found = n->attribute[a]->name && !strcmp(n->attribute[a]->name, sa->name);
		if (found)
			continue;
		hint[0] = '\0';
		if (ref)
			snprintf(hint, sizeof hint, " (set-attr %s %s VALUE)", ref, sa->name);
		edit_say(s, "warning: %s: %s-%d requires attribute '%s' (%s)%s", label, sch->name, sch->since_version,
			 sa->name, op_attr_type_name(sa->type), hint);
		warned++;
	}
	int nin = (int)n->n_input, nout = (int)n->n_output;
	if (nin < sch->min_inputs || nin > sch->max_inputs) {
		edit_say(s, "warning: %s: %d input%s; %s-%d takes %s", label, nin, nin == 1 ? "" : "s", sch->name,
			 sch->since_version, op_arity_text(range, sizeof range, sch->min_inputs, sch->max_inputs));
		warned++;
	} else {
		for (int k = 0; k < nin && (size_t)k < sch->n_inputs; k++)
			if (!*n->input[k] && sch->inputs[k].option == OP_FORMAL_SINGLE) {
				edit_say(s, "warning: %s: required input %d ('%s') of %s-%d is left empty", label, k,
					 sch->inputs[k].name, sch->name, sch->since_version);
				warned++;
			}
	}
	if (nout < sch->min_outputs || nout > sch->max_outputs) {
		edit_say(s, "warning: %s: %d output%s; %s-%d gives %s", label, nout, nout == 1 ? "" : "s", sch->name,
			 sch->since_version, op_arity_text(range, sizeof range, sch->min_outputs, sch->max_outputs));
		warned++;
	}
	return warned;
}

int edit_import_domain(struct edit_session *s, const char *domain, int64_t version)
{
	Onnx__ModelProto *p = s->m->proto;
	Onnx__OperatorSetIdProto *o = s->m->alloc.alloc(s->m->alloc.allocator_data, sizeof *o);
	Onnx__OperatorSetIdProto **na;

	if (!o)
		return -1;
	onnx__operator_set_id_proto__init(o);
	o->domain = edit_strdup(s, edit_is_default_domain(domain) ? "" : domain);
	o->has_version = 1;
	o->version = version;
	if (!o->domain || !(na = edit_array_grow(s, p->opset_import, p->n_opset_import, sizeof *na))) {
		protobuf_c_message_free_unpacked(&o->base, &s->m->alloc);
		return -1;
	}
	p->opset_import = na;
	p->opset_import[p->n_opset_import++] = o;
	return 0;
}

static int exec_set_op(struct edit_session *s, int argc, char **argv, struct ov_error *err)
{
	const char *op = argv[2], *domain = argc > 3 ? argv[3] : "";
	char label[300], ref[24];
	struct ov_error dberr;
	int is_default = edit_is_default_domain(domain);
	const struct op_schema *sch = NULL;
	int64_t opset = 0;
	int add_import = 0;

	int32_t idx = edit_node(s, argv[1], err);
	if (idx < 0)
		return -1;
	Onnx__NodeProto *n = s->g->nodes[idx].proto;
	if (!*op)
		return ov_fail(err, OV_USAGE, "the op type cannot be empty");
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
	"set-op", "set-op NODE OPTYPE [DOMAIN]",
	"swap a node's operator, keeping its inputs, outputs and attributes; warns about what does not fit",
	2, 3, 0, exec_set_op,
};
