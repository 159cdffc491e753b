/* A one-node graph to run a CPU kernel on in unit tests: attributes set by hand, the kernel found by op and opset,
 * its outputs collected.  Shared by the kernel families' unit tests (tests/unit/test-*-kernels.c). */
#ifndef OV_TESTS_KNODE_H
#define OV_TESTS_KNODE_H

#include <stdio.h>
#include <string.h>

#include "src/exec/exec.h"

#define MAX_ATTRS 12

struct tnode {
	Onnx__NodeProto proto;
	Onnx__AttributeProto attrs[MAX_ATTRS];
	Onnx__AttributeProto *ptrs[MAX_ATTRS];
	int64_t ints[MAX_ATTRS][16];
	float floats[MAX_ATTRS][16];
	struct graph_node gn;
	struct graph g;
	struct ov_error err;
};

static inline void node(struct tnode *t, const char *op)
{
	memset(t, 0, sizeof *t);
	onnx__node_proto__init(&t->proto);
	t->proto.op_type = (char *)op;
	t->proto.attribute = t->ptrs;
	t->gn.proto = &t->proto;
	t->g.nodes = &t->gn;
	t->g.n_nodes = 1;
}

static inline Onnx__AttributeProto *new_attr(struct tnode *t, const char *name)
{
	Onnx__AttributeProto *a = &t->attrs[t->proto.n_attribute];
	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	t->ptrs[t->proto.n_attribute++] = a;
	return a;
}

static inline void set_int(struct tnode *t, const char *name, int64_t v)
{
	Onnx__AttributeProto *a = new_attr(t, name);
	a->has_i = 1;
	a->i = v;
}

static inline void set_float(struct tnode *t, const char *name, float v)
{
	Onnx__AttributeProto *a = new_attr(t, name);
	a->has_f = 1;
	a->f = v;
}

static inline void set_ints(struct tnode *t, const char *name, const int64_t *v, size_t n)
{
	size_t at = t->proto.n_attribute;
	Onnx__AttributeProto *a = new_attr(t, name);
	memcpy(t->ints[at], v, n * sizeof *v);
	a->ints = t->ints[at];
	a->n_ints = n;
}

static inline void set_floats(struct tnode *t, const char *name, const float *v, size_t n)
{
	size_t at = t->proto.n_attribute;
	Onnx__AttributeProto *a = new_attr(t, name);
	memcpy(t->floats[at], v, n * sizeof *v);
	a->floats = t->floats[at];
	a->n_floats = n;
}

static inline void set_str(struct tnode *t, const char *name, const char *s)
{
	Onnx__AttributeProto *a = new_attr(t, name);
	a->has_s = 1;
	a->s.data = (uint8_t *)s;
	a->s.len = strlen(s);
}

/* Run the node, offering the kernel act to fuse (NULL: none); *act_done (when not NULL) says whether it did. */
static inline int run_act(struct tnode *t, int64_t opset, const struct xtensor *const *in, size_t n_in,
			  struct xtensor *out, size_t n_out, const struct exec_act *act, int *act_done)
{
	struct xtensor *slots[8];
	exec_kernel_fn fn = cpu_find_kernel("", t->proto.op_type, opset);

	if (!fn) {
		snprintf(t->err.msg, sizeof t->err.msg, "no kernel");
		return -1;
	}
	for (size_t i = 0; i < n_out; i++) {
		memset(&out[i], 0, sizeof out[i]);
		slots[i] = &out[i];
	}
	struct exec_kernel_ctx k = {.g = &t->g, .node = 0, .opset = opset, .in = (const struct xtensor **)in,
				    .n_in = n_in, .out = slots, .n_out = n_out, .err = &t->err};
	if (act)
		k.act = *act;
	t->err.msg[0] = '\0';
	int rc = fn(&k);
	if (act_done)
		*act_done = k.act_done;
	return rc;
}

/* Run the node, offering the kernel the Add of add (and then add_act, NULL: none) to fuse; *add_done says whether it
 * did. */
static inline int run_add(struct tnode *t, int64_t opset, const struct xtensor *const *in, size_t n_in,
			  struct xtensor *out, const struct xtensor *add, const struct exec_act *add_act, int *add_done)
{
	struct xtensor *slots[1] = {out};
	exec_kernel_fn fn = cpu_find_kernel("", t->proto.op_type, opset);

	if (!fn) {
		snprintf(t->err.msg, sizeof t->err.msg, "no kernel");
		return -1;
	}
	memset(out, 0, sizeof *out);
	struct exec_kernel_ctx k = {.g = &t->g, .node = 0, .opset = opset, .in = (const struct xtensor **)in,
				    .n_in = n_in, .out = slots, .n_out = 1, .err = &t->err, .add = add};
	if (add_act)
		k.add_act = *add_act;
	t->err.msg[0] = '\0';
	int rc = fn(&k);
	*add_done = k.add_done;
	return rc || k.act_done;
}

static inline int run(struct tnode *t, int64_t opset, const struct xtensor *const *in, size_t n_in, struct xtensor *out,
		      size_t n_out)
{
	return run_act(t, opset, in, n_in, out, n_out, NULL, NULL);
}

#endif
