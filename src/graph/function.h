/* The body of a local function (FunctionProto) as a graph, for whatever shows or runs graphs: the runner runs a
 * call as its body (src/exec/function.c), the TUI opens a call's body as a view (ui/view-graph.c). */
#ifndef OV_GRAPH_FUNCTION_H
#define OV_GRAPH_FUNCTION_H

#include <stddef.h>
#include <stdint.h>

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

struct graph;
struct ov_error;
/* Node n of g, when it calls one of m's local functions: that function's body as called by it (graph_body_make,
 * the inputs the call leaves out as absent), indexed into *out over *body (both from malloc: the caller frees them
 * with graph_free and graph_body_free + free), and the function's "domain::name" in name.  0; 1 when the node calls
 * no local function; -1 with err set (out of memory). */
int graph_call_body(const struct ov_model *m, const struct graph *g, uint32_t n, struct graph_body **body,
		    struct graph **out, char *name, size_t n_name, struct ov_error *err);

#endif
