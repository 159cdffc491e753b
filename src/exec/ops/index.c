/* The index and layout ops' checks and geometry, shared by the CPU and CUDA kernels (see ops/index.h). */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/ops/index.h"

#define MAXR XT_MAX_RANK

const struct xtensor *ops_host_input(struct exec_kernel_ctx *k, size_t i)
{
	return i < k->n_in ? k->in[i] : NULL;
}

int ops_is_index_type(int32_t dt)
{
	return dt == OV_DT_INT64 || dt == OV_DT_INT32 || dt == OV_DT_INT16 || dt == OV_DT_INT8 || dt == OV_DT_UINT8 ||
	       dt == OV_DT_UINT16 || dt == OV_DT_UINT32 || dt == OV_DT_UINT64;
}

int ops_index_at(struct exec_kernel_ctx *k, const struct xtensor *t, int64_t i, int64_t dim, const char *what,
		 int64_t *out)
{
	int64_t v = xt_get_int(t, i);
	int64_t j = v < 0 ? v + dim : v;
	*out = 0;
	if (j < 0 || j >= dim)
		return xk_fail(k, "%s[%" PRId64 "] = %" PRId64 " is out of range for a dim of %" PRId64, what, i, v, dim);
	*out = j;
	return 0;
}

int ops_need_x(struct exec_kernel_ctx *k, const struct xtensor **x)
{
	*x = ops_host_input(k, 0);
	if (!*x)
		return xk_fail(k, "input 0 is missing");
	if (!xt_elem_size((*x)->dtype))
		return xk_fail(k, "element type %s is not supported", dtype_name((*x)->dtype));
	return 0;
}

static void strides_of(int rank, const int64_t *d, int64_t *s)
{
	int64_t acc = 1;
	for (int i = rank - 1; i >= 0; i--) {
		s[i] = acc;
		acc *= d[i];
	}
}

/* ---- DepthToSpace, SpaceToDepth ---- */

int ops_depth_space_setup(struct exec_kernel_ctx *k, int to_space, struct depth_space_geom *p)
{
	const struct xtensor *x = ops_host_input(k, 0);
	int64_t b = xk_attr_int(k, "blocksize", 0);
	char mode[16];

	memset(p, 0, sizeof *p);
	if (!x)
		return xk_fail(k, "input is required");
	if (x->rank != 4)
		return xk_fail(k, "input must be 4-D (N, C, H, W), got rank %d", x->rank);
	if (b <= 0 || b > (1 << 20))
		return xk_fail(k, "blocksize %lld must be positive", (long long)b);
	if (!xt_elem_size(x->dtype) || x->dtype == OV_DT_STRING)
		return xk_fail(k, "%s is not supported", dtype_short_name(x->dtype));
	int64_t n = x->dims[0], c = x->dims[1], h = x->dims[2], w = x->dims[3];
	if (to_space) {
		xk_attr_str(k, "mode", "DCR", mode, sizeof mode);
		if (strcmp(mode, "DCR") && strcmp(mode, "CRD"))
			return xk_fail(k, "unknown mode '%s'", mode);
		p->crd = !strcmp(mode, "CRD");
		if (c % (b * b))
			return xk_fail(k, "%lld channels are not divisible by blocksize^2 = %lld", (long long)c,
				       (long long)(b * b));
		p->out[0] = n, p->out[1] = c / (b * b), p->out[2] = h * b, p->out[3] = w * b;
	} else {
		xk_attr_str(k, "mode", "DCR", mode, sizeof mode);
		if (strcmp(mode, "DCR") && strcmp(mode, "CRD"))
			return xk_fail(k, "unknown mode '%s'", mode);
		p->crd = !strcmp(mode, "CRD");
		if (h % b || w % b)
			return xk_fail(k, "H %lld and W %lld must be divisible by blocksize %lld", (long long)h,
				       (long long)w, (long long)b);
		p->out[0] = n, p->out[1] = c * b * b, p->out[2] = h / b, p->out[3] = w / b;
	}
	p->b = b;
	return 0;
}

/* ---- the gathers and the scatters ---- */

/* idx must have x's rank and, off the axis, dims no larger than x's. */
static int check_element_indices(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *idx,
				 int axis)
{
	if (!ops_is_index_type(idx->dtype))
		return xk_fail(k, "indices are %s, not an integer type", dtype_name(idx->dtype));
	if (idx->rank != x->rank)
		return xk_fail(k, "indices have rank %d, data rank %d", idx->rank, x->rank);
	for (int a = 0; a < x->rank; a++)
		if (a != axis && idx->dims[a] > x->dims[a])
			return xk_fail(k, "indices dim %d is %" PRId64 ", over the data's %" PRId64, a, idx->dims[a],
				       x->dims[a]);
	return 0;
}

/* The element of x each element of idx (on the host) names: its own position, with the axis taking the index's
 * value (GatherElements, ScatterElements). */
static int element_offsets(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *idx, int axis,
			   struct index_geom *p)
{
	int r = idx->rank;
	int64_t xs[MAXR], pos[MAXR] = {0};

	strides_of(r, x->dims, xs);
	p->n = idx->numel;
	p->slice = 1;
	if (!(p->offs = malloc((size_t)(p->n ? p->n : 1) * sizeof *p->offs)))
		return xk_fail(k, "out of memory");
	for (int64_t q = 0; q < idx->numel; q++) {
		int64_t j, off = 0;
		if (ops_index_at(k, idx, q, x->dims[axis], "indices", &j)) {
			free(p->offs);
			p->offs = NULL;
			return -1;
		}
		for (int a = 0; a < r; a++)
			off += (a == axis ? j : pos[a]) * xs[a];
		p->offs[q] = off;
		xt_index_next(pos, idx->dims, r);
	}
	return 0;
}

/* GatherND and ScatterND: the index tuples of idx ([..., last]) as element offsets into x, each the start of a
 * slice of p->slice elements.  batch_dims leading dims are shared by data and indices. */
static int nd_offsets(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *idx, int64_t b,
		      ops_host_fn host, struct index_geom *p)
{
	int q = idx->rank;

	if (!ops_is_index_type(idx->dtype))
		return xk_fail(k, "indices are %s, not an integer type", dtype_name(idx->dtype));
	if (q < 1)
		return xk_fail(k, "indices must have rank 1 or more");
	if (b < 0 || b >= q || b > x->rank)
		return xk_fail(k, "batch_dims %" PRId64 " is out of range for ranks %d and %d", b, x->rank, q);
	int64_t last = idx->dims[q - 1];
	if (last > x->rank - b)
		return xk_fail(k, "index tuples of %" PRId64 " for data of rank %d (batch_dims %" PRId64 ")", last,
			       x->rank, b);
	for (int64_t a = 0; a < b; a++)
		if (idx->dims[a] != x->dims[a])
			return xk_fail(k, "batch dim %" PRId64 ": indices have %" PRId64 ", data %" PRId64, a,
				       idx->dims[a], x->dims[a]);
	const struct xtensor *hidx = host(k, 1);
	if (!hidx)
		return -1;
	int64_t xs[MAXR];
	strides_of(x->rank, x->dims, xs);
	int64_t batches = xk_numel((int)b, x->dims), per = xk_numel(q - 1 - (int)b, idx->dims + b);
	int64_t nt = batches * per;
	p->slice = xk_numel(x->rank - (int)(b + last), x->dims + b + last);
	p->n = nt;
	if (!(p->offs = malloc((size_t)(nt ? nt : 1) * sizeof *p->offs)))
		return xk_fail(k, "out of memory");
	int64_t xbatch = b ? xs[b - 1] : 0;
	for (int64_t t = 0; t < nt; t++) {
		int64_t off = (t / (per ? per : 1)) * xbatch;
		for (int64_t m = 0; m < last; m++) {
			int64_t j;
			if (ops_index_at(k, hidx, t * last + m, x->dims[b + m], "indices", &j)) {
				free(p->offs);
				p->offs = NULL;
				return -1;
			}
			off += j * xs[b + m];
		}
		p->offs[t] = off;
	}
	return 0;
}

int ops_gather_setup(struct exec_kernel_ctx *k, int nd, ops_host_fn host, struct index_geom *p)
{
	const struct xtensor *x = k->in[0], *idx = k->in[1], *hidx;
	int axis;

	memset(p, 0, sizeof *p);
	if (!nd) {
		if (x->rank == 0)
			return xk_fail(k, "GatherElements on a scalar");
		if (xk_norm_axis(k, xk_attr_int(k, "axis", 0), x->rank, &axis) ||
		    check_element_indices(k, x, idx, axis) || !(hidx = host(k, 1)))
			return -1;
		p->rank = idx->rank;
		memcpy(p->dims, idx->dims, sizeof p->dims);
		return element_offsets(k, x, hidx, axis, p);
	}
	int64_t b = xk_attr_int(k, "batch_dims", 0);
	if (nd_offsets(k, x, idx, b, host, p))
		return -1;
	/* indices.shape[:-1] + data.shape[batch_dims + last:] */
	int64_t last = idx->dims[idx->rank - 1];
	for (int i = 0; i < idx->rank - 1; i++)
		p->dims[p->rank++] = idx->dims[i];
	for (int64_t i = b + last; i < x->rank; i++) {
		if (p->rank >= MAXR) {
			free(p->offs);
			p->offs = NULL;
			return xk_fail(k, "output rank is over the executor's limit of %d", MAXR);
		}
		p->dims[p->rank++] = x->dims[i];
	}
	return 0;
}

static int get_reduction(struct exec_kernel_ctx *k, const struct xtensor *x, enum ov_scatter_red *r)
{
	char b[16];
	xk_attr_str(k, "reduction", "none", b, sizeof b);
	if (!strcmp(b, "none"))
		*r = OV_SCATTER_NONE;
	else if (!strcmp(b, "add"))
		*r = OV_SCATTER_ADD;
	else if (!strcmp(b, "mul"))
		*r = OV_SCATTER_MUL;
	else if (!strcmp(b, "max"))
		*r = OV_SCATTER_MAX;
	else if (!strcmp(b, "min"))
		*r = OV_SCATTER_MIN;
	else
		return xk_fail(k, "unknown reduction '%s'", b);
	if (*r != OV_SCATTER_NONE && (x->dtype == OV_DT_STRING || x->dtype == OV_DT_BOOL))
		return xk_fail(k, "reduction '%s' on %s", b, dtype_name(x->dtype));
	return 0;
}

int ops_scatter_setup(struct exec_kernel_ctx *k, int nd, ops_host_fn host, struct index_geom *p)
{
	const struct xtensor *x = k->in[0], *idx = k->in[1], *u = k->in[2], *hidx;
	int axis;

	memset(p, 0, sizeof *p);
	p->rank = x->rank;
	memcpy(p->dims, x->dims, sizeof p->dims);
	if (!nd) {
		if (x->rank == 0)
			return xk_fail(k, "scatter into a scalar");
		if (xk_norm_axis(k, xk_attr_int(k, "axis", 0), x->rank, &axis) ||
		    check_element_indices(k, x, idx, axis) || get_reduction(k, x, &p->red))
			return -1;
		if (u->dtype != x->dtype)
			return xk_fail(k, "updates are %s, data %s", dtype_name(u->dtype), dtype_name(x->dtype));
		if (u->rank != idx->rank || memcmp(u->dims, idx->dims, (size_t)u->rank * sizeof u->dims[0]))
			return xk_fail(k, "updates and indices have different shapes");
		/* indices are all checked first, so a failure leaves nothing half-written to explain */
		if (!(hidx = host(k, 1)))
			return -1;
		return element_offsets(k, x, hidx, axis, p);
	}
	if (get_reduction(k, x, &p->red))
		return -1;
	if (u->dtype != x->dtype)
		return xk_fail(k, "updates are %s, data %s", dtype_name(u->dtype), dtype_name(x->dtype));
	if (nd_offsets(k, x, idx, 0, host, p))
		return -1;
	/* updates: indices.shape[:-1] + data.shape[last:] */
	int64_t last = idx->dims[idx->rank - 1];
	int ur = idx->rank - 1 + x->rank - (int)last, ok = u->rank == ur;
	for (int i = 0; ok && i < idx->rank - 1; i++)
		ok = u->dims[i] == idx->dims[i];
	for (int i = 0; ok && i < x->rank - last; i++)
		ok = u->dims[idx->rank - 1 + i] == x->dims[last + i];
	if (!ok) {
		free(p->offs);
		p->offs = NULL;
		return xk_fail(k, "updates have the wrong shape for these indices and data");
	}
	return 0;
}

/* ---- OneHot ---- */

int ops_onehot_setup(struct exec_kernel_ctx *k, ops_host_fn host, int64_t *depth, int *axis, int *rank,
		     int64_t *dims)
{
	const struct xtensor *idx = k->in[0], *dp = k->in[1], *v = k->in[2];

	if (dp->numel != 1)
		return xk_fail(k, "depth must be a single value");
	if (v->numel != 2)
		return xk_fail(k, "values must have two elements (off, on), got %" PRId64, v->numel);
	if (!xt_elem_size(v->dtype))
		return xk_fail(k, "element type %s is not supported", dtype_name(v->dtype));
	if (!(dp = host(k, 1)))
		return -1;
	double dd = xt_get(dp, 0);
	if (!(dd >= 1) || dd > (double)(1ll << 40))
		return xk_fail(k, "depth %g is not a usable size", dd);
	*depth = (int64_t)dd;
	int r = idx->rank + 1;
	if (r > MAXR)
		return xk_fail(k, "output rank %d is over the executor's limit of %d", r, MAXR);
	if (xk_norm_axis(k, xk_attr_int(k, "axis", -1), r, axis))
		return -1;
	for (int i = 0, j = 0; i < r; i++)
		dims[i] = i == *axis ? *depth : idx->dims[j++];
	*rank = r;
	return 0;
}

/* ---- Range ---- */

int ops_range_setup(struct exec_kernel_ctx *k, ops_host_fn host, struct range_geom *p)
{
	const struct xtensor *a = ops_host_input(k, 0), *b = ops_host_input(k, 1), *c = ops_host_input(k, 2);

	memset(p, 0, sizeof *p);
	if (!a || !b || !c)
		return xk_fail(k, "start, limit and delta are all required");
	if (a->numel != 1 || b->numel != 1 || c->numel != 1)
		return xk_fail(k, "start, limit and delta must be scalars");
	if (a->dtype != b->dtype || a->dtype != c->dtype)
		return xk_fail(k, "start, limit and delta have different types");
	int32_t dt = a->dtype;
	int is_int = dt == OV_DT_INT64 || dt == OV_DT_INT32 || dt == OV_DT_INT16 || dt == OV_DT_INT8 ||
		     dt == OV_DT_UINT8 || dt == OV_DT_UINT16 || dt == OV_DT_UINT32;
	if (!is_int && dt != OV_DT_FLOAT && dt != OV_DT_DOUBLE && dt != OV_DT_FLOAT16 && dt != OV_DT_BFLOAT16)
		return xk_fail(k, "Range on %s is not supported", dtype_name(dt));
	if (!(a = host(k, 0)) || !(b = host(k, 1)) || !(c = host(k, 2)))
		return -1;
	p->dt = dt;
	if (is_int) {
		int64_t s = xt_get_int(a, 0), l = xt_get_int(b, 0), st = xt_get_int(c, 0);
		if (st == 0)
			return xk_fail(k, "delta is 0");
		/* ceil((l - s) / st) in 128 bits: the difference of two int64 can overflow 64 */
		__int128 diff = (__int128)l - s, q;
		if (st > 0)
			q = diff > 0 ? (diff + st - 1) / st : 0;
		else
			q = diff < 0 ? (-diff + (-(__int128)st) - 1) / -(__int128)st : 0;
		if (q > (1ll << 40))
			return xk_fail(k, "Range of %s elements is over the executor's limit", "more than 2^40");
		p->n = (int64_t)q;
		p->si = s;
		p->di = st;
		return 0;
	}
	double s = xt_get(a, 0), l = xt_get(b, 0), st = xt_get(c, 0);
	if (st == 0)
		return xk_fail(k, "delta is 0");
	double q = ceil((l - s) / st);
	if (q != q)
		return xk_fail(k, "the element count of Range(%g, %g, %g) is not a number", s, l, st);
	if (q > (double)(1ll << 40))
		return xk_fail(k, "Range(%g, %g, %g) has %g elements, over the executor's limit", s, l, st, q);
	p->n = q > 0 ? (int64_t)q : 0;
	p->sd = s;
	p->dd = st;
	return 0;
}

/* ---- ConstantOfShape, EyeLike, Trilu ---- */

int ops_constant_of_shape_setup(struct exec_kernel_ctx *k, ops_host_fn host, int *rank, int64_t *dims,
				struct xtensor *v, int *have)
{
	const struct xtensor *s = ops_host_input(k, 0);
	const Onnx__NodeProto *nd = k->g->nodes[k->node].proto;

	*have = 0;
	if (!s)
		return xk_fail(k, "the shape input is missing");
	if (!(s = host(k, 0)))
		return -1;
	int64_t n = ops_host_ints(k, s, dims, MAXR, "the shape");
	if (n < 0)
		return -1;
	for (int64_t i = 0; i < n; i++)
		if (dims[i] < 0)
			return xk_fail(k, "the shape has a negative entry %" PRId64 " at %" PRId64, dims[i], i);
	*rank = (int)n;
	for (size_t a = 0; a < nd->n_attribute; a++)
		if (nd->attribute[a]->name && !strcmp(nd->attribute[a]->name, "value")) {
			if (xk_attr_tensor(k, "value", v))
				return -1;
			if (v->numel != 1) {
				xt_free(v);
				return xk_fail(k, "value has %" PRId64 " elements, not one", v->numel);
			}
			*have = 1;
			break;
		}
	return 0;
}

int ops_eye_like_setup(struct exec_kernel_ctx *k, int32_t *dt)
{
	const struct xtensor *x = ops_host_input(k, 0);

	if (!x)
		return xk_fail(k, "input 0 is missing");
	if (x->rank != 2)
		return xk_fail(k, "EyeLike needs a 2-D input, got rank %d", x->rank);
	*dt = (int32_t)xk_attr_int(k, "dtype", x->dtype);
	if (!xt_elem_size(*dt) || *dt == OV_DT_STRING)
		return xk_fail(k, "EyeLike of %s is not supported", dtype_name(*dt));
	return 0;
}

int ops_trilu_setup(struct exec_kernel_ctx *k, ops_host_fn host, int64_t *kk)
{
	const struct xtensor *x, *kt = ops_host_input(k, 1);

	*kk = 0;
	if (ops_need_x(k, &x))
		return -1;
	if (x->rank < 2)
		return xk_fail(k, "Trilu needs rank 2 or more, got %d", x->rank);
	if (kt) {
		if (kt->numel != 1)
			return xk_fail(k, "k must be a single value");
		if (!(kt = host(k, 1)))
			return -1;
		*kk = xt_get_int(kt, 0);
	}
	return 0;
}

/* ---- CumSum, CumProd, TopK ---- */

int ops_cum_setup(struct exec_kernel_ctx *k, int prod, ops_host_fn host, int *axis)
{
	const struct xtensor *x, *ax = ops_host_input(k, 1);

	if (ops_need_x(k, &x))
		return -1;
	if (!ax || ax->numel != 1)
		return xk_fail(k, "axis must be a single value");
	if (x->rank == 0)
		return xk_fail(k, "%s of a scalar", prod ? "CumProd" : "CumSum");
	if (!(ax = host(k, 1)) || xk_norm_axis(k, xt_get_int(ax, 0), x->rank, axis))
		return -1;
	if (!ov_cum_type(x->dtype))
		return xk_fail(k, "%s on %s is not supported", prod ? "CumProd" : "CumSum", dtype_name(x->dtype));
	return 0;
}

int ops_topk_setup(struct exec_kernel_ctx *k, ops_host_fn host, int *axis, int64_t *kk)
{
	const struct xtensor *x = ops_host_input(k, 0);

	if (!x)
		return xk_fail(k, "input 0 is missing");
	if (!ov_topk_type(x->dtype))
		return xk_fail(k, "TopK on %s is not supported", dtype_name(x->dtype));
	if (k->n_out < 2)
		return xk_fail(k, "TopK needs its two outputs");
	if (x->rank == 0)
		return xk_fail(k, "TopK of a scalar");
	if (xk_norm_axis(k, xk_attr_int(k, "axis", -1), x->rank, axis))
		return -1;
	if (k->opset < 10)
		*kk = xk_attr_int(k, "k", -1);
	else {
		const struct xtensor *kt = ops_host_input(k, 1);
		if (!kt || kt->numel != 1)
			return xk_fail(k, "K must be a single value");
		if (!(kt = host(k, 1)))
			return -1;
		*kk = xt_get_int(kt, 0);
	}
	int64_t len = x->dims[*axis];
	if (*kk < 0 || *kk > len)
		return xk_fail(k, "K = %" PRId64 " is out of range for axis %d of %" PRId64, *kk, *axis, len);
	return 0;
}

/* ---- ReverseSequence, CenterCropPad ---- */

int ops_reverse_sequence_setup(struct exec_kernel_ctx *k, ops_host_fn host, int *batch_axis, int64_t *B,
			       int64_t *T)
{
	const struct xtensor *x = ops_host_input(k, 0), *sl = ops_host_input(k, 1);
	int64_t ba = xk_attr_int(k, "batch_axis", 1), ta = xk_attr_int(k, "time_axis", 0);

	if (!x || !sl)
		return xk_fail(k, "input and sequence_lens are required");
	if (!xt_elem_size(x->dtype))
		return xk_fail(k, "element type %s is not supported", dtype_name(x->dtype));
	if (x->rank < 2)
		return xk_fail(k, "input must have rank 2 or more");
	if (!((ba == 0 && ta == 1) || (ba == 1 && ta == 0)))
		return xk_fail(k, "batch_axis and time_axis must be 0 and 1 in some order");
	*batch_axis = (int)ba;
	*B = x->dims[ba], *T = x->dims[ta];
	if (sl->rank != 1 || sl->dims[0] != *B)
		return xk_fail(k, "sequence_lens must have one entry per batch (%" PRId64 ")", *B);
	if (!(sl = host(k, 1)))
		return -1;
	for (int64_t b = 0; b < *B; b++) {
		int64_t L = xt_get_int(sl, b);
		if (L < 0 || L > *T)
			return xk_fail(k, "sequence_lens[%" PRId64 "] = %" PRId64 " is out of range for %" PRId64 " steps", b,
				       L, *T);
	}
	return 0;
}

/* Each listed axis is cropped or zero-padded to its target length around the centre (the odd element goes to the
 * end, as in the reference). */
int ops_center_crop_pad_setup(struct exec_kernel_ctx *k, ops_host_fn host, int64_t *dims, int64_t *lead)
{
	const struct xtensor *x, *st = ops_host_input(k, 1);
	int64_t want[MAXR], axes[MAXR];
	int seen[MAXR] = {0};

	if (ops_need_x(k, &x))
		return -1;
	if (!st)
		return xk_fail(k, "the shape input is missing");
	if (!(st = host(k, 1)))
		return -1;
	int64_t n = ops_host_ints(k, st, want, MAXR, "the shape");
	if (n < 0)
		return -1;
	int64_t na = xk_attr_ints(k, "axes", axes, MAXR);
	if (na > MAXR)
		return xk_fail(k, "%" PRId64 " axes, more than %d", na, MAXR);
	if (na < 0) {
		na = x->rank;
		for (int i = 0; i < x->rank; i++)
			axes[i] = i;
	}
	if (na != n)
		return xk_fail(k, "the shape has %" PRId64 " entries for %" PRId64 " axes", n, na);
	memcpy(dims, x->dims, sizeof x->dims);
	memset(lead, 0, sizeof x->dims);
	for (int64_t i = 0; i < na; i++) {
		int a;
		if (xk_norm_axis(k, axes[i], x->rank, &a))
			return -1;
		if (seen[a]++)
			return xk_fail(k, "axis %d is listed twice", a);
		if (want[i] < 0)
			return xk_fail(k, "the shape has a negative entry %" PRId64, want[i]);
		dims[a] = want[i];
		/* output index j reads input j + lead: lead > 0 crops, lead < 0 pads */
		lead[a] = want[i] <= x->dims[a] ? (x->dims[a] - want[i]) / 2 : -((want[i] - x->dims[a]) / 2);
	}
	return 0;
}
