/* del-output VALUE: stop exposing a value as a graph output (the nodes that compute it stay; cleanup drops them). */
#include "config.h"

#include <string.h>

#include "src/edit/internal.h"
#include "src/base/strbuf.h"

static int exec_del_output(struct edit_session *s, int argc, char **argv, struct ov_error *err)
{
	const char *name = argv[1];
	Onnx__GraphProto *g = s->m->proto->graph;
	size_t kept = 0, removed = 0;

	(void)argc;
	for (size_t i = 0; i < g->n_output; i++)
		removed += g->output[i]->name && !strcmp(g->output[i]->name, name);
	if (!removed) {
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
	"del-output", "del-output VALUE", "stop exposing a value as a graph output (the nodes that compute it stay)",
	1, 1, 0, exec_del_output,
};
