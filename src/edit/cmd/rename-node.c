/* rename-node NODE NEW: give a node of the main graph a new name (node names stay unique). */
#include "config.h"

#include <string.h>

#include "src/edit/internal.h"

static int exec_rename_node(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	const char *to = a->v[1].text;
	char label[300];
	int32_t idx = a->v[0].node;
	Onnx__NodeProto *n = s->g->nodes[idx].proto;

	if (to[0] == '#')
		return ov_fail(err, OV_USAGE, "'%s': a node name cannot start with '#' (#N names a node by its index)", to);
	if (n->name && !strcmp(n->name, to))
		return ov_fail(err, OV_INVALID, "#%d is already named '%s'", idx, to);
	for (uint32_t i = 0; i < s->g->n_nodes; i++)
		if (s->g->nodes[i].proto->name && !strcmp(s->g->nodes[i].proto->name, to))
			return ov_fail(err, OV_INVALID, "node #%u is already named '%s' (node names must be unique)", i, to);
	char *nn = edit_strdup(s, to);
	if (!nn)
		return ov_fail(err, OV_NOMEM, "out of memory");
	edit_node_label(label, sizeof label, n, (uint32_t)idx);
	if (n->name)
		s->m->alloc.free(s->m->alloc.allocator_data, n->name);
	n->name = nn;
	edit_touch(s);
	edit_say(s, "%s is now named '%s'", label, to);
	return 0;
}

const struct edit_cmd edit_rename_node_cmd = {
	.name = "rename-node",
	.usage = "rename-node NODE NEW",
	.help = "give a node a new name (refused when another node has it)",
	.args = {{.kind = EDIT_ARG_NODE}, {.kind = EDIT_ARG_NAME}},
	.exec = exec_rename_node,
};
