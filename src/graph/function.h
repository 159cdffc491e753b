/* The body of a local function (FunctionProto) as a graph, for whatever shows or runs graphs: the runner runs a
 * call as its body (src/exec/function.c), the TUI opens a call's body as a view (ui/view-graph.c). */
#ifndef OV_GRAPH_FUNCTION_H
#define OV_GRAPH_FUNCTION_H

#include <stddef.h>

#include "src/model/model.h"

/* A GraphProto made for a function body, and what it owns. */
struct graph_body {
	Onnx__GraphProto g;
	void **allocs;
	size_t n_allocs;
};

/* f's body as called by node call (NULL: as written, references to the call's attributes left as they are):
 * shallow copies of its nodes, the call's attributes where the body refers to them (ref_attr_name; one the call
 * does not set is left out, so the op's default applies), the body's inputs named in absent[] (the call leaves them
 * out) blanked wherever a node reads them, the other inputs and every output as the graph's, by name only.  b is
 * made empty first.  0, or -1 (out of memory; b freed). */
int graph_body_make(struct graph_body *b, const Onnx__FunctionProto *f, const Onnx__NodeProto *call,
		    char *const *absent, size_t n_absent);
void graph_body_free(struct graph_body *b);

#endif
