/* Shape rules for the less common families: recurrent layers, losses, random generators, dynamic quantisation,
 * EyeLike, Det, MaxUnpool, and ops whose output length depends on the data (Unique, Compress). */
#include "config.h"

#include <string.h>

#include "src/base/dtype.h"
#include "src/graph/shape-rules.h"

static int32_t dtype0(const struct infer_ctx *c)
{
	const struct vshape *v = in_shape(c, 0);
	return v ? v->dtype : 0;
}

/* LSTM, GRU, RNN: Y [seq, dirs, batch, hidden], Y_h (and LSTM's Y_c) [dirs, batch, hidden]. */
int rule_recurrent(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	char dir[32];
	int64_t hidden = attr_int(c, "hidden_size", -1);
	int layout = (int)attr_int(c, "layout", 0);
	struct dim y[4], yh[3];

	attr_str(c, "direction", dir, sizeof dir);
	struct dim dirs = dim_num(!strcmp(dir, "bidirectional") ? 2 : 1);
	struct dim seq = x && x->rank == 3 ? x->dims[layout ? 1 : 0] : dim_unknown();
	struct dim batch = x && x->rank == 3 ? x->dims[layout ? 0 : 1] : dim_unknown();
	struct dim h = hidden > 0 ? dim_num(hidden) : dim_unknown();
	if (layout) {
		y[0] = batch, y[1] = seq, y[2] = dirs, y[3] = h;
		yh[0] = batch, yh[1] = dirs, yh[2] = h;
	} else {
		y[0] = seq, y[1] = dirs, y[2] = batch, y[3] = h;
		yh[0] = dirs, yh[1] = batch, yh[2] = h;
	}
	set_out(c, 0, dtype0(c), 4, y);
	set_out(c, 1, dtype0(c), 3, yh);
	set_out(c, 2, dtype0(c), 3, yh);
	return 0;
}

/* NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: per-element loss shaped like the target with
 * reduction 'none', a scalar otherwise; SoftmaxCrossEntropyLoss's log_prob is shaped like the scores. */
int rule_loss(struct infer_ctx *c)
{
	char red[32];

	attr_str(c, "reduction", red, sizeof red);
	if (!strcmp(red, "none"))
		set_out_like(c, 0, in_shape(c, 1), dtype0(c));
	else
		set_out(c, 0, dtype0(c), 0, NULL);
	set_out_like(c, 1, in_shape(c, 0), dtype0(c));
	return 0;
}

/* RandomUniformLike, RandomNormalLike, Bernoulli, EyeLike: the input's shape, 'dtype' when given. */
int rule_like(struct infer_ctx *c)
{
	int32_t dt = (int32_t)attr_int(c, "dtype", 0);

	set_out_like(c, 0, in_shape(c, 0), dt ? dt : dtype0(c));
	return 0;
}

/* RandomUniform, RandomNormal: 'shape' and 'dtype' attributes (float by default). */
int rule_random(struct infer_ctx *c)
{
	int64_t shape[SHAPE_MAX_RANK];
	struct dim d[SHAPE_MAX_RANK];
	int64_t n = attr_ints(c, "shape", shape, SHAPE_MAX_RANK);

	for (int64_t i = 0; i < n && i < SHAPE_MAX_RANK; i++)
		d[i] = dim_num(shape[i]);
	set_out(c, 0, (int32_t)attr_int(c, "dtype", OV_DT_FLOAT), n >= 0 && n <= SHAPE_MAX_RANK ? (int)n : -1, d);
	return 0;
}

int rule_dynamic_quantize(struct infer_ctx *c)
{
	set_out_like(c, 0, in_shape(c, 0), OV_DT_UINT8);
	set_out(c, 1, OV_DT_FLOAT, 0, NULL);
	set_out(c, 2, OV_DT_UINT8, 0, NULL);
	return 0;
}

/* Det: the batch dims of [*, M, M]. */
int rule_det(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);

	if (!x || x->rank < 2) {
		set_out(c, 0, dtype0(c), -1, NULL);
		return 0;
	}
	set_out(c, 0, x->dtype, x->rank - 2, x->dims);
	return 0;
}

/* Unique: data-dependent lengths. */
int rule_unique(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	struct dim u = dim_unknown();
	int64_t axis_set = attr(c, "axis") != NULL;

	if (axis_set && x && x->rank >= 0) {
		int a = norm_axis(c, attr_int(c, "axis", 0), x->rank);
		struct dim *d = dims_tmp(c, (size_t)x->rank);
		if (a < 0 || !d)
			return -1;
		memcpy(d, x->dims, (size_t)x->rank * sizeof *d);
		d[a] = dim_unknown();
		set_out(c, 0, x->dtype, x->rank, d);
	} else
		set_out(c, 0, dtype0(c), 1, &u);
	for (size_t k = 1; k < 4; k++)
		set_out(c, k, OV_DT_INT64, 1, &u);
	return 0;
}

/* Compress: the selected length is data-dependent. */
int rule_compress(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	struct dim u = dim_unknown();

	if (attr(c, "axis") && x && x->rank >= 0) {
		int a = norm_axis(c, attr_int(c, "axis", 0), x->rank);
		struct dim *d = dims_tmp(c, (size_t)x->rank);
		if (a < 0 || !d)
			return -1;
		memcpy(d, x->dims, (size_t)x->rank * sizeof *d);
		d[a] = dim_unknown();
		set_out(c, 0, x->dtype, x->rank, d);
	} else
		set_out(c, 0, dtype0(c), 1, &u);
	return 0;
}

/* MaxUnpool: output_shape when given, else (in - 1) * stride + kernel - pads. */
int rule_max_unpool(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	int64_t os[SHAPE_MAX_RANK], k[SHAPE_MAX_RANK], s[SHAPE_MAX_RANK], p[2 * SHAPE_MAX_RANK];
	struct dim out[SHAPE_MAX_RANK];

	if (!x || x->rank < 3) {
		set_out(c, 0, dtype0(c), -1, NULL);
		return 0;
	}
	int n = x->rank - 2;
	int64_t nos = c->n_in > 2 && in_shape(c, 2) ? in_ints(c, 2, os, SHAPE_MAX_RANK) : -2;
	if (nos == x->rank) {
		for (int i = 0; i < x->rank; i++)
			out[i] = dim_num(os[i]);
		set_out(c, 0, x->dtype, x->rank, out);
		return 0;
	}
	if (nos == -1 || attr_ints(c, "kernel_shape", k, SHAPE_MAX_RANK) != n) {
		set_out(c, 0, x->dtype, x->rank, NULL);
		return 0;
	}
	for (int i = 0; i < n; i++)
		s[i] = 1, p[i] = p[n + i] = 0;
	int64_t ns = attr_ints(c, "strides", s, SHAPE_MAX_RANK), np = attr_ints(c, "pads", p, 2 * SHAPE_MAX_RANK);
	if ((ns != -1 && ns != n) || (np != -1 && np != 2 * n)) {
		set_out(c, 0, x->dtype, x->rank, NULL);
		return infer_note(c, "strides/pads do not match %d spatial dims", n);
	}
	out[0] = x->dims[0];
	out[1] = x->dims[1];
	for (int i = 0; i < n; i++) /* (in - 1) * stride + kernel - pads */
		out[2 + i] = dim_num(dim_sub(dim_add(dim_mul(dim_sub(x->dims[2 + i].v, 1), s[i]), k[i]),
					     dim_add(p[i], p[n + i])));
	set_out(c, 0, x->dtype, x->rank, out);
	return 0;
}
