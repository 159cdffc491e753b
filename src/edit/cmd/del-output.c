/* del-output VALUE: stop exposing a value as a graph output (the nodes that compute it stay; cleanup drops them). */
#include "config.h"

#include <string.h>

#include "src/edit/internal.h"

static int exec_del_output(struct edit_session *s, const struct edit_args *a, struct ov_error *err)
{
	const char *name = a->v[0].text;
	Onnx__GraphProto *g = s->m->proto->graph;
	size_t kept = 0;

	(void)err;
	/* Every entry of that name goes (a malformed graph may list one twice). */
	for (size_t i = 0; i < g->n_output; i++) {
		if (g->output[i]->name && !strcmp(g->output[i]->name, name))
			protobuf_c_message_free_unpacked(&g->output[i]->base, &s->m->alloc);
		else
			g->output[kept++] = g->output[i];
	}
	g->n_output = kept;
	edit_touch(s);
	edit_say(s, "removed output '%s'", name);
	if (!g->n_output)
		edit_say(s, "warning: the graph has no output now; a runtime will refuse it (add-output VALUE)");
	return 0;
}

const struct edit_cmd edit_del_output_cmd = {
	.name = "del-output",
	.usage = "del-output VALUE",
	.help = "stop exposing a value as a graph output (the nodes that compute it stay)",
	.args = {{.kind = EDIT_ARG_OUTPUT}},
	.exec = exec_del_output,
};
