/* Op schemas for the nodes of the model: the opset a domain is imported at, the schema a node follows, warnings
 * about what of a node does not fit its schema, and adding an opset import.  Used by set-op, set-attr, del-attr,
 * set-opset and set-type. */
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
