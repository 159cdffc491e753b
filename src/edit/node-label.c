/* How the edit commands name a node in their messages: "#3 'conv1' Conv" (edit_node_label), "#3 'conv1' (Conv)"
 * (edit_describe_node), "node #3 'conv1' (Conv)" with the model's strings made safe (edit_node_phrase). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "src/edit/internal.h"
#include "src/base/strbuf.h"

const char *edit_node_label(char *buf, size_t len, const Onnx__NodeProto *n, uint32_t idx)
{
	int named = n->name && *n->name;

	snprintf(buf, len, "#%u%s%s%s %s%s%s", idx, named ? " '" : "", named ? n->name : "", named ? "'" : "",
		 edit_is_default_domain(n->domain) ? "" : n->domain, edit_is_default_domain(n->domain) ? "" : "::",
		 n->op_type ? n->op_type : "?");
	return buf;
}

void edit_describe_node(struct strbuf *b, const struct graph *g, uint32_t node)
{
	const Onnx__NodeProto *n = g->nodes[node].proto;

	strbuf_printf(b, "#%u ", node);
	if (n->name && *n->name)
		strbuf_printf(b, "'%s' ", n->name);
	strbuf_printf(b, "(%s)", n->op_type ? n->op_type : "?");
}

/* "node #3 'name' (Op)" with the model's strings made safe for a terminal. */
void edit_node_phrase(struct strbuf *b, uint32_t index, const Onnx__NodeProto *nd)
{
	strbuf_printf(b, "node #%u ", index);
	if (nd->name && *nd->name) {
		strbuf_putc(b, '\'');
		strbuf_put_safe(b, nd->name, strlen(nd->name), 60);
		strbuf_puts(b, "' ");
	}
	strbuf_putc(b, '(');
	strbuf_put_safe(b, nd->op_type ? nd->op_type : "?", strlen(nd->op_type ? nd->op_type : "?"), 60);
	strbuf_putc(b, ')');
}
