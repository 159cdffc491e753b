/* What kernels use of their node: attributes with defaults, output allocation, one-line failures. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/exec.h"

static const Onnx__AttributeProto *find_attr(const struct exec_kernel_ctx *k, const char *name)
{
	const Onnx__NodeProto *n = k->g->nodes[k->node].proto;

	for (size_t a = 0; a < n->n_attribute; a++)
		if (n->attribute[a]->name && !strcmp(n->attribute[a]->name, name))
			return n->attribute[a];
	return NULL;
}

int64_t xk_attr_int(const struct exec_kernel_ctx *k, const char *name, int64_t def)
{
	const Onnx__AttributeProto *a = find_attr(k, name);
	return a && a->has_i ? a->i : def;
}

float xk_attr_float(const struct exec_kernel_ctx *k, const char *name, float def)
{
	const Onnx__AttributeProto *a = find_attr(k, name);
	return a && a->has_f ? a->f : def;
}

const char *xk_attr_str(const struct exec_kernel_ctx *k, const char *name, const char *def, char *buf, size_t n)
{
	const Onnx__AttributeProto *a = find_attr(k, name);

	if (!a || !a->has_s) {
		snprintf(buf, n, "%s", def ? def : "");
		return buf;
	}
	/* a value cut short (too long for buf, or cut at a NUL) could read as another, valid one: give one that
	 * matches no mode or equation instead */
	if (a->s.len >= n || (a->s.len && memchr(a->s.data, '\0', a->s.len))) {
		snprintf(buf, n, "\x01?");
		return buf;
	}
	if (a->s.len)
		memcpy(buf, a->s.data, a->s.len);
	buf[a->s.len] = '\0';
	return buf;
}

int64_t xk_attr_ints(const struct exec_kernel_ctx *k, const char *name, int64_t *buf, int64_t max)
{
	const Onnx__AttributeProto *a = find_attr(k, name);

	if (!a)
		return -1;
	for (size_t i = 0; i < a->n_ints && (int64_t)i < max; i++)
		buf[i] = a->ints[i];
	return (int64_t)a->n_ints;
}

int64_t xk_attr_floats(const struct exec_kernel_ctx *k, const char *name, float *buf, int64_t max)
{
	const Onnx__AttributeProto *a = find_attr(k, name);

	if (!a)
		return -1;
	for (size_t i = 0; i < a->n_floats && (int64_t)i < max; i++)
		buf[i] = a->floats[i];
	return (int64_t)a->n_floats;
}

int xk_attr_tensor(const struct exec_kernel_ctx *k, const char *name, struct xtensor *out)
{
	const Onnx__AttributeProto *a = find_attr(k, name);

	if (!a || !a->t)
		return -1;
	return exec_tensor_from_proto(k->m, a->t, out, k->err);
}

int xk_output(struct exec_kernel_ctx *k, size_t i, int32_t dtype, int rank, const int64_t *dims)
{
	/* The runner gives every output a slot, a scratch one for outputs the model leaves out, so kernels can
	 * always write what they allocate. */
	if (i >= k->n_out)
		return xk_fail(k, "the node has %zu outputs; the op's output %zu is missing", k->n_out, i);
	xt_free(k->out[i]);
	return xt_alloc_value(k->out[i], dtype, rank, dims, 1, k->err);
}

int xk_output_raw(struct exec_kernel_ctx *k, size_t i, int32_t dtype, int rank, const int64_t *dims)
{
	if (i >= k->n_out)
		return xk_fail(k, "the node has %zu outputs; the op's output %zu is missing", k->n_out, i);
	xt_free(k->out[i]);
	return xt_alloc_value(k->out[i], dtype, rank, dims, 0, k->err);
}

int xk_take_input(struct exec_kernel_ctx *k, size_t i, size_t o, int rank, const int64_t *dims)
{
	if (i >= k->n_in || i >= 32 || !(k->take >> i & 1) || !k->in[i] || o >= k->n_out || rank < 0 ||
	    rank > XT_MAX_RANK || xk_numel(rank, dims) != k->in[i]->numel)
		return 0;
	struct xtensor *x = (struct xtensor *)k->in[i], *y = k->out[o];
	int64_t d[XT_MAX_RANK];
	memcpy(d, dims, (size_t)rank * sizeof *dims); /* dims may be x's own */
	xt_free(y);
	*y = *x;
	memset(x, 0, sizeof *x);
	y->rank = rank;
	memcpy(y->dims, d, (size_t)rank * sizeof *d);
	k->take &= ~(1u << i);
	return 1;
}

int xk_take_input_over(struct exec_kernel_ctx *k, size_t i, size_t o)
{
	const struct xtensor *x = i < k->n_in ? k->in[i] : NULL;

	if (!x || x->dev || x->host_stale)
		return 0;
	return xk_take_input(k, i, o, x->rank, x->dims);
}

int xk_fail(struct exec_kernel_ctx *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k->err->msg, sizeof k->err->msg, fmt, ap);
	va_end(ap);
	k->err->code = OV_INVALID;
	return -1;
}

void xk_note(struct exec_kernel_ctx *k, const char *fmt, ...)
{
	struct exec_result *r = k->res;
	va_list ap;

	if (!r)
		return;
	struct exec_note *nn = realloc(r->notes, (r->n_notes + 1) * sizeof *nn);
	if (!nn)
		return;
	r->notes = nn;
	nn[r->n_notes].node = k->node;
	va_start(ap, fmt);
	vsnprintf(nn[r->n_notes].text, sizeof nn[r->n_notes].text, fmt, ap);
	va_end(ap);
	r->n_notes++;
}

void xk_setup_ms(struct exec_kernel_ctx *k, double ms)
{
	if (k->res && ms > 0)
		k->res->setup_ms += ms;
}

int xk_own_strings(struct exec_kernel_ctx *k, struct xtensor *t)
{
	if (t->dtype != OV_DT_STRING)
		return 0;
	char **s = t->data;
	for (int64_t i = 0; i < t->numel; i++) {
		if (s[i] && !(s[i] = strdup(s[i]))) {
			for (int64_t j = i + 1; j < t->numel; j++)
				s[j] = NULL;
			return xk_fail(k, "out of memory copying strings");
		}
	}
	return 0;
}

int xk_norm_axis(struct exec_kernel_ctx *k, int64_t a, int rank, int *out)
{
	*out = 0;
	if (a < -(int64_t)rank || a >= rank)
		return xk_fail(k, "axis %" PRId64 " is out of range for rank %d", a, rank);
	*out = (int)(a < 0 ? a + rank : a);
	return 0;
}

int64_t xk_numel(int rank, const int64_t *dims)
{
	int64_t n = 1;

	for (int i = 0; i < rank; i++)
		n *= dims[i];
	return n;
}
