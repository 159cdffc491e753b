/* Check rules that need inferred shapes: declared types against inferred ones, and the exporter traps the field
 * reports describe (fixed batch, baked-in reshape targets, computed Resize scales, align_corners, x.size()). */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "src/base/strbuf.h"
#include "src/check/internal.h"
#include "src/base/dtype.h"
#include "src/base/strbuf.h"

void check_shapes(struct check_ctx *c)
{
	const struct graph *g = c->g;
	struct strbuf a = {0}, b = {0};

	for (uint32_t v = 0; v < g->n_values && !c->oom; v++) {
		const struct graph_value *val = &g->values[v];
		const struct vshape *inf = shapes_get(c->sh, g, (int32_t)v);
		struct vshape decl;

		if (!val->declared || !inf || inf->source != SHAPE_INFERRED || val->origin == VALUE_INPUT)
			continue;
		if (shape_from_type((struct shapes *)c->sh, val->declared->type, &decl) || decl.source != SHAPE_DECLARED)
			continue;
		if (shape_compatible(&decl, inf))
			continue;
		strbuf_reset(&a);
		strbuf_reset(&b);
		shape_describe(&a, &decl);
		shape_describe(&b, inf);
		int dtype_clash = decl.dtype && inf->dtype && decl.dtype != inf->dtype;
		diag_add(c, dtype_clash ? DIAG_type_conflict : DIAG_shape_conflict, val->producer, val->name,
			 "fix the declaration (set-shape / set-type) or the node that computes it",
			 "'%s' is declared %s but its producer gives %s", val->name, strbuf_str(&a), strbuf_str(&b));
	}
	strbuf_free(&a);
	strbuf_free(&b);
}

static int op_is(const Onnx__NodeProto *n, const char *op)
{
	return n->op_type && !strcmp(n->op_type, op) && (!n->domain || !*n->domain || !strcmp(n->domain, "ai.onnx"));
}

static const char *attr_s(const Onnx__NodeProto *n, const char *name, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t a = 0; a < n->n_attribute; a++)
		if (n->attribute[a]->name && !strcmp(n->attribute[a]->name, name) && n->attribute[a]->has_s) {
			size_t l = n->attribute[a]->s.len < len - 1 ? n->attribute[a]->s.len : len - 1;
			memcpy(buf, n->attribute[a]->s.data, l);
			buf[l] = '\0';
		}
	return buf;
}

/* The graph input whose fixed dim 0 is n, or NULL. */
static const char *fixed_batch_input(const struct check_ctx *c, int64_t n)
{
	const struct graph *g = c->g;

	for (uint32_t v = 0; v < g->n_values; v++) {
		const struct vshape *s = shapes_get(c->sh, g, (int32_t)v);
		if (g->values[v].origin == VALUE_INPUT && s && s->rank >= 2 && s->dims[0].v == n)
			return g->values[v].name;
	}
	return NULL;
}

/* A constant Reshape/Expand target whose entry for the input's dim 0 is a fixed size.  Reshape's 0 and -1 follow
 * the input; Expand aligns the target to the right and keeps the input's dim where the target says 1. */
static void check_baked(struct check_ctx *c, uint32_t i, const char *op)
{
	const struct graph_node *gn = &c->g->nodes[i];
	int expand = !strcmp(op, "Expand");
	char hint[300];

	if (gn->proto->n_input < 2 || gn->in[0] < 0 || gn->in[1] < 0)
		return;
	const struct graph_value *sv = &c->g->values[gn->in[1]];
	if (sv->origin != VALUE_INITIALIZER && sv->origin != VALUE_CONSTANT)
		return;
	const struct vshape *x = shapes_get(c->sh, c->g, gn->in[0]), *s = shapes_get(c->sh, c->g, gn->in[1]);
	if (!x || !s || x->rank < 1 || s->n_val < 1 || !s->val)
		return;
	int64_t k = expand ? s->n_val - x->rank : 0; /* the target entry that sets the input's dim 0 */
	if (k < 0 || k >= s->n_val)
		return;
	int64_t n0 = s->val[k].v;
	if (n0 == DIM_UNKNOWN || n0 <= 0 || (expand && n0 == 1))
		return;
	const char *keep = expand ? "1 (Expand then keeps the input's dim)" : "0 (copy the input's dim) or -1";
	if (x->dims[0].v == DIM_UNKNOWN && x->dims[0].sym) {
		struct strbuf w = {0};
		strbuf_put_word(&w, sv->name);
		snprintf(hint, sizeof hint, "use %s there: set-tensor %s", keep, w.len < 200 ? strbuf_str(&w) : "NAME");
		strbuf_free(&w);
		diag_add(c, DIAG_baked_shape, (int32_t)i, sv->name, hint,
			 "%s target '%s' fixes dim %lld to %lld but its input's dim 0 is '%s'", op, sv->name, (long long)k,
			 (long long)n0, x->dims[0].sym);
		return;
	}
	const char *in = x->dims[0].v == n0 ? fixed_batch_input(c, n0) : NULL;
	if (in && !*c->where) {
		snprintf(hint, sizeof hint, "before making '%s' dynamic, set dim %lld of '%s' to %s with set-tensor", in,
			 (long long)k, sv->name, keep);
		diag_add(c, DIAG_baked_shape, (int32_t)i, sv->name, hint,
			 "%s target '%s' bakes in the batch size %lld of input '%s'", op, sv->name, (long long)n0, in);
	}
}

/* The dim name a hint suggests for axis k of value name: batch for dim 0, NAME_K where NAME is usable in a dim name. */
static void dim_suggestion(struct strbuf *b, const char *name, size_t k)
{
	if (k == 0) {
		strbuf_puts(b, "batch");
		return;
	}
	for (const char *p = name; *p; p++)
		strbuf_putc(b, isalnum((unsigned char)*p) || *p == '_' || *p == '.' ? *p : '_');
	strbuf_printf(b, "%s%zu", *name && isalpha((unsigned char)*name) ? "_" : "d", k);
}

/* Graph inputs and outputs declared with a negative dim_value (Paddle2ONNX writes -1 for a dynamic dim): onnxview
 * and onnxruntime read it as dynamic, stricter tools refuse it; set-dim gives it a name. */
static void check_negative_dims(struct check_ctx *c)
{
	const Onnx__GraphProto *p = c->g->proto;
	struct strbuf where = {0}, hint = {0};

	for (size_t i = 0; p && i < p->n_input + p->n_output && !c->oom; i++) {
		const Onnx__ValueInfoProto *vi = i < p->n_input ? p->input[i] : p->output[i - p->n_input];
		const char *name = vi->name ? vi->name : "";
		const Onnx__TypeProto *tp = vi->type;
		if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type->shape)
			continue;
		const Onnx__TensorShapeProto *sh = tp->tensor_type->shape;
		int n = 0;
		strbuf_reset(&where);
		strbuf_reset(&hint);
		strbuf_puts(&hint, *c->where ? "name them in the subgraph's declaration (set-shape)" : "name them: onnxview edit MODEL");
		for (size_t k = 0; k < sh->n_dim; k++) {
			const Onnx__TensorShapeProto__Dimension *d = sh->dim[k];
			if (d->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE || d->dim_value >= 0)
				continue;
			strbuf_printf(&where, "%s%zu (%lld)", n++ ? ", " : "", k, (long long)d->dim_value);
			if (*c->where)
				continue;
			strbuf_printf(&hint, " -e 'set-dim %s %zu ", name, k);
			dim_suggestion(&hint, name, k);
			strbuf_putc(&hint, '\'');
		}
		if (!n)
			continue;
		if (!*c->where)
			strbuf_puts(&hint, " -o OUT");
		diag_add(c, DIAG_negative_dim, -1, name, strbuf_str(&hint),
			 "%s '%s' declares dim%s %s: the exporter (Paddle2ONNX writes -1) means dynamic, and onnxview reads "
			 "it so; stricter tools refuse a negative dim", i < p->n_input ? "input" : "output", name,
			 n == 1 ? "" : "s", strbuf_str(&where));
	}
	strbuf_free(&where);
	strbuf_free(&hint);
}

/* fixed-batch, said once for the model: the inputs of rank 3 or more whose dim 0 is a number, when no input of the
 * main graph has a dynamic dim (an export that used dynamic_axes anywhere fixed the rest on purpose). */
static void check_fixed_batch(struct check_ctx *c)
{
	const struct graph *g = c->g;
	struct strbuf names = {0}, hint = {0};
	const char *first = NULL;
	int64_t n0 = 0;
	int n = 0;

	for (uint32_t v = 0; v < g->n_values; v++) {
		const struct vshape *s = shapes_get(c->sh, g, (int32_t)v);
		if (g->values[v].origin != VALUE_INPUT || !s)
			continue;
		for (int k = 0; k < s->rank; k++)
			if (s->dims[k].v == DIM_UNKNOWN)
				goto out; /* dynamic_axes was used */
	}
	strbuf_puts(&hint, "onnxview edit MODEL");
	for (uint32_t v = 0; v < g->n_values; v++) {
		const struct vshape *s = shapes_get(c->sh, g, (int32_t)v);
		const struct graph_value *val = &g->values[v];
		if (val->origin != VALUE_INPUT || !s || s->rank < 3)
			continue;
		strbuf_printf(&names, "%s'%s'", n ? ", " : "", val->name);
		strbuf_puts(&hint, " -e 'set-dim "); /* the name as the command language reads it back (quoted, escaped) */
		strbuf_put_word(&hint, val->name);
		strbuf_puts(&hint, " 0 batch'");
		if (!n++) {
			first = val->name;
			n0 = s->dims[0].v;
		}
	}
	if (!n)
		goto out;
	strbuf_puts(&hint, " -o OUT (or export with dynamic_axes)");
	if (n == 1)
		diag_add(c, DIAG_fixed_batch, -1, first, strbuf_str(&hint), "input %s has a fixed batch size of "
			 "%lld (no input has a dynamic dim)", strbuf_str(&names), (long long)n0);
	else
		diag_add(c, DIAG_fixed_batch, -1, first, strbuf_str(&hint), "inputs %s have a fixed batch size (no "
			 "input has a dynamic dim)", strbuf_str(&names));
out:
	strbuf_free(&names);
	strbuf_free(&hint);
}

void check_traps(struct check_ctx *c)
{
	const struct graph *g = c->g;
	char buf[64], mode[64];

	check_negative_dims(c);
	if (!*c->where)
		check_fixed_batch(c);
	for (uint32_t i = 0; i < g->n_nodes && !c->oom; i++) {
		const struct graph_node *gn = &g->nodes[i];
		const Onnx__NodeProto *n = gn->proto;
		if (op_is(n, "Reshape") || op_is(n, "Expand")) {
			check_baked(c, i, n->op_type);
		} else if (op_is(n, "Resize")) {
			int64_t opset = check_opset(c, "");
			size_t idx[2] = {opset < 11 ? 1 : 2, 3};
			for (int k = 0; k < 2; k++) {
				if (idx[k] >= n->n_input || gn->in[idx[k]] < 0)
					continue;
				const struct graph_value *v = &g->values[gn->in[idx[k]]];
				if (v->origin == VALUE_NODE)
					diag_add(c, DIAG_resize_computed, (int32_t)i, v->name,
						 "export with a fixed scale_factor/size, or fold it: set-tensor / make the "
						 "input constant", "Resize %s '%s' is computed at run time (TensorRT and some "
						 "runtimes need it constant)", k ? "sizes" : "scales", v->name);
			}
			attr_s(n, "coordinate_transformation_mode", buf, sizeof buf);
			attr_s(n, "mode", mode, sizeof mode);
			if (!strcmp(buf, "align_corners") && (!strcmp(mode, "linear") || !strcmp(mode, "cubic")))
				diag_add(c, DIAG_resize_align_corners, (int32_t)i, NULL,
					 "compare the outputs of each target runtime with PyTorch's",
					 "%s Resize with align_corners: results are known to differ between runtimes",
					 mode);
		} else if (op_is(n, "Gather") && gn->proto->n_input > 0 && gn->in[0] >= 0) {
			const struct graph_value *v = &g->values[gn->in[0]];
			if (v->producer >= 0 && op_is(g->nodes[v->producer].proto, "Shape"))
				diag_add(c, DIAG_gather_on_shape, (int32_t)i, v->name,
					 "if a runtime rejects this (TensorRT: importGather), fix the input dims and fold "
					 "the shape computation", "Gather reads from the shape tensor '%s' (x.size() in "
					 "PyTorch)", v->name);
		}
	}
}
