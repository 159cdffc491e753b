/* del-attr NODE NAME: remove one attribute of a node (never one its op requires). */
#include "config.h"

#include <string.h>

#include "src/model/describe.h"
#include "src/edit/internal.h"
#include "src/graph/opdb.h"
#include "src/base/strbuf.h"

static int exec_del_attr(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	const char *name = a->v[1].text;
	char label[300];
	struct strbuf b = {0};
	int32_t idx = a->v[0].node;

	Onnx__NodeProto *nd = s->g->nodes[idx].proto;
	edit_node_label(label, sizeof label, nd, (uint32_t)idx);
	size_t pos = nd->n_attribute;
	for (size_t k = 0; k < nd->n_attribute; k++)
		if (nd->attribute[k]->name && !strcmp(nd->attribute[k]->name, name)) {
			pos = k;
			break;
		}
	if (pos == nd->n_attribute) {
		for (size_t k = 0; k < nd->n_attribute; k++)
			strbuf_printf(&b, "%s%s", k ? ", " : "", nd->attribute[k]->name ? nd->attribute[k]->name : "");
		ov_fail(err, OV_INVALID, "%s has no attribute '%s' (%s%s)", label, name, b.len ? "it has: " : "it has none",
			strbuf_str(&b));
		strbuf_free(&b);
		return -1;
	}
	const struct op_schema *sch = edit_node_schema(s, nd);
	const struct op_attr *sa = sch ? op_schema_attr(sch, name) : NULL;
	if (sa && sa->required)
		return ov_fail(err, OV_INVALID, "'%s' is required by %s-%d%s%s (change it with set-attr #%d %s VALUE)", name,
			       sch->name, sch->since_version, sa->default_text ? "; its default is " : "",
			       sa->default_text ? sa->default_text : "", idx, name);
	if (nd->op_type && !strcmp(nd->op_type, "Constant") && edit_is_default_domain(nd->domain) &&
	    nd->n_attribute == 1)
		return ov_fail(err, OV_INVALID, "'%s' is the value of Constant %s: a Constant needs it (delete-node or "
			       "set-tensor instead)", name, label);
	Onnx__AttributeProto *at = nd->attribute[pos];
	describe_attr_value(&b, s->m, at, 16);
	edit_say(s, "%s: removed %s = %s%s%s", label, name, strbuf_str(&b), sa && sa->default_text ?
		 "; the default applies: " : "", sa && sa->default_text ? sa->default_text : "");
	strbuf_free(&b);
	memmove(nd->attribute + pos, nd->attribute + pos + 1, (nd->n_attribute - pos - 1) * sizeof *nd->attribute);
	nd->n_attribute--;
	protobuf_c_message_free_unpacked(&at->base, &s->m->alloc);
	edit_touch(s);
	return 0;
}

const struct edit_cmd edit_del_attr_cmd = {
	.name = "del-attr",
	.usage = "del-attr NODE NAME",
	.help = "remove an attribute (not one the op requires); the op's default then applies",
	.args = {{.kind = EDIT_ARG_NODE}, {.kind = EDIT_ARG_ATTR}},
	.exec = exec_del_attr,
};
