/* Shape rules for element-wise ops: same-shape unary ops, broadcasting binary and variadic ops, comparisons,
 * casts; with folding of small integer arithmetic (the shape computations exporters emit). */
#include "config.h"

#include <string.h>

#include "src/base/dtype.h"
#include "src/graph/shape-rules.h"

static int32_t in_dtype(const struct infer_ctx *c, size_t k)
{
	const struct vshape *v = in_shape(c, k);
	return v ? v->dtype : 0;
}

/* Output 0 (and any other outputs) shaped like input 0, same dtype. */
int rule_same(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);

	set_out_like(c, 0, x, x ? x->dtype : 0);
	/* Identity-like ops pass folded values through. */
	const char *op = c->proto->op_type;
	if (x && x->n_val >= 0 && x->val && (!strcmp(op, "Identity") || !strcmp(op, "Dropout")))
		set_out_vals(c, 0, x->val, x->n_val);
	return 0;
}

/* Fold an integer binary op element-wise when both sides are folded (with scalar/1-element broadcasting). */
static void fold_binary(struct infer_ctx *c, const char *op)
{
	const struct dim *a, *b;
	int64_t na = in_vals(c, 0, &a), nb = in_vals(c, 1, &b);

	if (na < 0 || nb < 0 || (na != nb && na != 1 && nb != 1))
		return;
	int64_t n = na > nb ? na : nb;
	struct dim *r = dims_tmp(c, (size_t)(n ? n : 1));
	if (!r)
		return;
	for (int64_t i = 0; i < n; i++) {
		struct dim x = a[na == 1 ? 0 : i], y = b[nb == 1 ? 0 : i];
		r[i] = dim_unknown();
		if (!dim_known(x) || !dim_known(y)) {
			/* x*1, x+0, x/1 keep a symbol */
			if (!strcmp(op, "Mul") && dim_known(y) && y.v == 1)
				r[i] = x;
			else if (!strcmp(op, "Mul") && dim_known(x) && x.v == 1)
				r[i] = y;
			else if ((!strcmp(op, "Add") || !strcmp(op, "Sub")) && dim_known(y) && y.v == 0)
				r[i] = x;
			else if (!strcmp(op, "Div") && dim_known(y) && y.v == 1)
				r[i] = x;
			continue;
		}
		/* int64 arithmetic wraps, as the CPU kernels compute it (never C's signed overflow) */
		if (!strcmp(op, "Add"))
			r[i] = dim_num((int64_t)((uint64_t)x.v + (uint64_t)y.v));
		else if (!strcmp(op, "Sub"))
			r[i] = dim_num((int64_t)((uint64_t)x.v - (uint64_t)y.v));
		else if (!strcmp(op, "Mul"))
			r[i] = dim_num((int64_t)((uint64_t)x.v * (uint64_t)y.v));
		else if (!strcmp(op, "Div") && y.v == -1)
			r[i] = dim_num((int64_t)(0 - (uint64_t)x.v)); /* INT64_MIN / -1 wraps to itself */
		else if (!strcmp(op, "Div") && y.v != 0) {
			int64_t q = x.v / y.v; /* integer Div truncates toward zero, like C */
			r[i] = dim_num(q);
		} else if (!strcmp(op, "Mod") && y.v == -1) {
			r[i] = dim_num(0);
		} else if (!strcmp(op, "Mod") && y.v != 0) {
			int64_t m = x.v % y.v; /* fmod=0: the sign of the divisor */
			if (m && ((m < 0) != (y.v < 0)))
				m += y.v;
			r[i] = dim_num(m);
		} else if (!strcmp(op, "Equal"))
			r[i] = dim_num(x.v == y.v);
		else if (!strcmp(op, "Less"))
			r[i] = dim_num(x.v < y.v);
		else if (!strcmp(op, "Greater"))
			r[i] = dim_num(x.v > y.v);
		else if (!strcmp(op, "Max"))
			r[i] = dim_num(x.v > y.v ? x.v : y.v);
		else if (!strcmp(op, "Min"))
			r[i] = dim_num(x.v < y.v ? x.v : y.v);
	}
	set_out_vals(c, 0, r, n);
}

static int is_int_type(int32_t dt)
{
	return dt == OV_DT_INT64 || dt == OV_DT_INT32 || dt == OV_DT_BOOL || dt == OV_DT_INT8 || dt == OV_DT_UINT8 ||
	       dt == OV_DT_INT16 || dt == OV_DT_UINT16 || dt == OV_DT_UINT32 || dt == OV_DT_UINT64;
}

/* Broadcasting ops over all inputs (Add, Mul, ..., Sum, Max, Where's data inputs handled separately). */
int rule_broadcast(struct infer_ctx *c)
{
	const char *op = c->proto->op_type;
	int cmp = !strcmp(op, "Equal") || !strcmp(op, "Less") || !strcmp(op, "Greater") ||
		  !strcmp(op, "LessOrEqual") || !strcmp(op, "GreaterOrEqual") || !strcmp(op, "And") ||
		  !strcmp(op, "Or") || !strcmp(op, "Xor");
	int32_t dt = cmp ? OV_DT_BOOL : in_dtype(c, 0);
	struct vshape acc;
	struct dim tmp[SHAPE_MAX_RANK];

	if (!in_shape(c, 0))
		return infer_note(c, "first input missing");
	acc = *in_shape(c, 0);
	for (size_t k = 1; k < c->n_in; k++) {
		const struct vshape *b = in_shape(c, k);
		if (!b)
			continue;
		if (!dt)
			dt = b->dtype;
		int r = broadcast(&acc, b, tmp, c);
		if (r == -2)
			return -1;
		if (r < 0) {
			acc.rank = -1;
			break;
		}
		acc.rank = r;
		acc.dims = dims_tmp(c, (size_t)r);
		if (!acc.dims)
			return -1;
		memcpy(acc.dims, tmp, (size_t)r * sizeof *tmp);
	}
	set_out(c, 0, dt, acc.rank, acc.rank >= 0 ? acc.dims : NULL);
	if (c->n_in == 2 && is_int_type(in_dtype(c, 0)))
		fold_binary(c, op);
	return 0;
}

int rule_where(struct infer_ctx *c)
{
	const struct vshape *cond = in_shape(c, 0), *x = in_shape(c, 1), *y = in_shape(c, 2);
	struct dim t1[SHAPE_MAX_RANK], t2[SHAPE_MAX_RANK];

	if (!cond || !x || !y)
		return infer_note(c, "Where needs three inputs");
	int r = broadcast(x, y, t1, c);
	if (r < 0) {
		set_out(c, 0, x->dtype ? x->dtype : y->dtype, -1, NULL);
		return r == -2 ? -1 : 0;
	}
	struct vshape xy = {.dtype = x->dtype, .rank = r, .dims = t1};
	r = broadcast(cond, &xy, t2, c);
	set_out(c, 0, x->dtype ? x->dtype : y->dtype, r >= 0 ? r : -1, r >= 0 ? t2 : NULL);
	/* Fold Where over folded values (exports use it to replace -1 in shapes). */
	const struct dim *cv, *xv, *yv;
	int64_t nc = in_vals(c, 0, &cv), nx = in_vals(c, 1, &xv), ny = in_vals(c, 2, &yv);
	if (nc > 0 && nx >= 0 && ny >= 0 && (nx == nc || nx == 1) && (ny == nc || ny == 1)) {
		struct dim *res = dims_tmp(c, (size_t)nc);
		for (int64_t i = 0; res && i < nc; i++) {
			if (!dim_known(cv[i]))
				res[i] = dim_unknown();
			else
				res[i] = cv[i].v ? xv[nx == 1 ? 0 : i] : yv[ny == 1 ? 0 : i];
		}
		if (res)
			set_out_vals(c, 0, res, nc);
	}
	return 0;
}

int rule_bool_unary(struct infer_ctx *c)
{
	set_out_like(c, 0, in_shape(c, 0), OV_DT_BOOL);
	return 0;
}

int rule_cast(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	int32_t to = (int32_t)attr_int(c, "to", 0);

	set_out_like(c, 0, x, to);
	if (x && x->n_val >= 0 && x->val && is_int_type(to) && to != OV_DT_BOOL)
		set_out_vals(c, 0, x->val, x->n_val);
	return 0;
}

/* BitCast: x's shape, the type named by 'to' (the values change meaning, so none are kept) */
int rule_bitcast(struct infer_ctx *c)
{
	set_out_like(c, 0, in_shape(c, 0), (int32_t)attr_int(c, "to", 0));
	return 0;
}

/* StringSplit: the pieces [x..., most pieces] (the last dim known only from the strings) and the counts [x...] */
int rule_string_split(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);
	struct dim out[SHAPE_MAX_RANK];

	if (!x || x->rank < 0 || x->rank >= SHAPE_MAX_RANK) {
		set_out(c, 0, OV_DT_STRING, -1, NULL);
		set_out(c, 1, OV_DT_INT64, -1, NULL);
		return 0;
	}
	for (int i = 0; i < x->rank; i++)
		out[i] = x->dims[i];
	out[x->rank] = dim_unknown();
	set_out(c, 0, OV_DT_STRING, x->rank + 1, out);
	set_out(c, 1, OV_DT_INT64, x->rank, x->dims);
	return 0;
}

int rule_castlike(struct infer_ctx *c)
{
	const struct vshape *x = in_shape(c, 0);

	set_out_like(c, 0, x, in_dtype(c, 1));
	if (x && x->n_val >= 0 && x->val && is_int_type(in_dtype(c, 1)))
		set_out_vals(c, 0, x->val, x->n_val);
	return 0;
}

int rule_quantize(struct infer_ctx *c)
{
	const struct vshape *zp = in_shape(c, 2);
	int32_t to = (int32_t)attr_int(c, "output_dtype", 0);

	set_out_like(c, 0, in_shape(c, 0), to ? to : zp && zp->dtype ? zp->dtype : OV_DT_UINT8);
	return 0;
}

int rule_dequantize(struct infer_ctx *c)
{
	const struct vshape *scale = in_shape(c, 1);

	set_out_like(c, 0, in_shape(c, 0), scale && scale->dtype ? scale->dtype : OV_DT_FLOAT);
	return 0;
}

int rule_dropout(struct infer_ctx *c)
{
	rule_same(c);
	set_out_like(c, 1, in_shape(c, 0), OV_DT_BOOL);
	return 0;
}

