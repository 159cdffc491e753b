/* The graph index: names, producers, consumers and topological order of a model's graph and of every subgraph.
 *
 * Built from the protobuf-c structs (the single source of truth) by graph_build(); rebuilt after an edit (it is
 * linear in the size of the graph: a 50,000-node model indexes in milliseconds).  Nothing here is owned by the
 * index except its own arrays: names and protos point into the model, so the index must be rebuilt or freed
 * before the model changes or goes away.
 *
 * Values are the named tensors of a graph: graph inputs, initializers, node outputs, and the names a node uses
 * that this graph does not define (captured from an enclosing graph, or undefined).  Each has an id (its index in
 * g->values).  The empty name "" (an optional input left out) is not a value: it appears as id -1.
 */
#ifndef OV_GRAPH_H
#define OV_GRAPH_H

#include <stdint.h>

#include "src/model/model.h"

enum value_origin {
	VALUE_UNDEFINED,   /* used, but nothing defines it: a dangling reference */
	VALUE_INPUT,       /* a graph input (not also an initializer) */
	VALUE_INITIALIZER, /* an initializer (possibly also listed as an input: a default value) */
	VALUE_CONSTANT,    /* the output of a Constant node */
	VALUE_NODE,        /* the output of any other node */
	VALUE_OUTER,       /* defined in an enclosing graph and captured by this subgraph */
};

struct graph_use {
	uint32_t node; /* consumer node index */
	uint32_t slot; /* input position */
};

struct graph;

/* A name -> index hash table that keeps no names of its own: a slot holds an index and 32 bits of the name's hash,
 * and the name is read from the value or node it indexes (8 bytes a slot where a struct strmap takes 24). */
struct graph_names {
	uint64_t *slots; /* (hash >> 32) << 32 | (index + 1); 0 is empty */
	uint32_t cap;    /* power of two */
	uint32_t n;
};

/* Fields ordered pointers first so that the struct has no padding: a 51,000-node model has 68,000 of them. */
struct graph_value {
	const char *name;
	struct graph_use *uses;
	const Onnx__ValueInfoProto *declared;  /* input, output or value_info that gives its type, or NULL */
	const Onnx__TensorProto *constant;     /* the initializer, or the Constant node's 'value' tensor */
	const Onnx__SparseTensorProto *sparse; /* a sparse initializer */
	struct graph *outer_graph;             /* VALUE_OUTER: where it is defined ... */
	int32_t outer_id;                      /* ... and its id there */
	enum value_origin origin;
	int32_t producer;       /* node index, -1 when no node produces it */
	int32_t producer_slot;  /* output position in the producer */
	uint32_t n_producers;   /* more than 1: produced twice (a malformed graph) */
	uint32_t n_uses;
	int32_t input_index;    /* position among the graph inputs, -1 if not an input */
	int32_t output_index;   /* position among the graph outputs, -1 if not an output */
};

struct graph_node {
	Onnx__NodeProto *proto;
	int32_t *in;           /* value ids of the inputs, -1 for "" */
	int32_t *out;          /* value ids of the outputs, -1 for "" */
	uint32_t topo;         /* position in g->order (n_nodes for nodes left out by a cycle) */
	struct graph **sub;    /* subgraphs, in attribute order */
	const char **sub_attr; /* the attribute each comes from */
	uint32_t n_sub;
};

struct graph {
	const Onnx__GraphProto *proto;
	struct graph *parent;       /* NULL for the main graph */
	int32_t parent_node;        /* the node of parent whose attribute holds this graph */
	int depth;
	struct graph_value *values;
	uint32_t n_values;
	struct graph_node *nodes;
	uint32_t n_nodes;
	uint32_t *order;            /* node indices, producers before consumers (stable: stored order when sorted) */
	uint32_t n_order;           /* == n_nodes unless a cycle left nodes out */
	struct graph_names value_ids; /* name -> id */
	struct graph_names node_ids;  /* node name -> index (the first node of that name) */
	uint32_t n_duplicate_names; /* node names used more than once */
	uint64_t serial;            /* unique to this index in the process (graph_build numbers them): what is kept
	                               about a graph between runs (exec_consts) is valid while the serial is the same,
	                               and the edit engine indexes the graph anew after every change */
	/* internal storage */
	struct graph_use *use_pool;
	int32_t *io_pool;
};

/* Index g (and all its subgraphs). Returns 0, or -1 with err set (only when out of memory). */
int graph_build(struct graph **out, const Onnx__GraphProto *proto, struct ov_error *err);
void graph_free(struct graph *g);

/* Value id by name in this graph, or -1. */
int32_t graph_value_id(const struct graph *g, const char *name);
/* Node by reference: "#12" (its stored index) or its name. Returns the index or -1. */
int32_t graph_find_node(const struct graph *g, const char *ref);
/* The value in the graph that defines it, following captures outwards (for VALUE_OUTER). */
const struct graph_value *graph_value_resolve(const struct graph *g, int32_t id, const struct graph **owner);
const char *value_origin_name(enum value_origin o);
/* Call fn with the id (in g) of every value of g that sub, or any graph nested in it, captures. Used for ordering
 * (a node must run after what its subgraphs read) and for deciding what is used. */
void graph_foreach_capture(const struct graph *sub, const struct graph *g, void (*fn)(int32_t id, void *ctx), void *ctx);
/* One flag per value of g: 1 when a subgraph captures it (malloc'd; NULL when out of memory). */
uint8_t *graph_captured_values(const struct graph *g);

#endif
