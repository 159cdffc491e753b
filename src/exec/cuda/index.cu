// The index and layout ops on the CUDA device: DepthToSpace, SpaceToDepth, Trilu, GatherElements, GatherND,
// OneHot, Range, ConstantOfShape, EyeLike, CumSum, CumProd, ReverseSequence and TopK, giving the CPU kernels'
// results bit for bit (cpu/gather.c, cpu/shape.c, cpu/misc.c, cpu/reduce.c, cpu/resize.c).
//
// Each kernel first runs its op's setup from ops/index.h, the CPU's own checks and geometry, with the values it
// needs (indices, K, axis, depth, shape...) read on the host through cu_host: a node the CPU would refuse (an index
// out of range, an attribute it does not take, a K over the axis) is declined before any output exists, so the CPU
// runs it and names the problem; the gathers' indices are resolved there to data offsets, so no device kernel
// follows an index it has not checked.  Then one thread per output element (per line for CumSum and CumProd, per
// row for TopK, in the CPU's order) computes with ops/ov-index.h's functions, the ones the CPU loops over.  Elements
// that only move are moved whole, in any element type of 1 to 16 bytes (cu_move_size); strings and sub-byte types
// stay on the CPU.  The scatters are cuda/scatter.cu's; CenterCropPad, a mapped copy like Pad, cuda/shape.cu's.
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/exec/cuda/backend.h"
#include "src/exec/ops/index.h"

#define MAXR XT_MAX_RANK

// Input 0 when it is there and movable, else NULL (the CPU then runs the node, or refuses it).
static const struct xtensor *movable_x(const struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	return x && cu_move_size(x->dtype) ? x : NULL;
}

// The device buffer of output i (already allocated on the host by xk_output_raw), or NULL with the node's error.
static void *out_buf(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t i)
{
	return cu_alloc(k, b, k->out[i]->bytes);
}

// An element of es bytes, as the kernels take it (the bytes of a host element).
template <typename T>
static T elem_of(const void *bytes)
{
	T v;
	memcpy(&v, bytes, sizeof v);
	return v;
}

// ---- DepthToSpace, SpaceToDepth ----

struct ds_geom {
	int to_space, crd;
	int64_t b, c, h, w, oc, oh, ow;
};

template <typename T>
static __global__ void depth_space_kernel(struct ds_geom g, const T *x, T *y, int64_t n)
{
	CU_FOR(d, n)
	{
		int64_t xx = d % g.ow, r = d / g.ow, yy = r % g.oh;
		r /= g.oh;
		int64_t co = r % g.oc, in = r / g.oc, ci, yi, xi;
		ov_depth_space_src(g.to_space, g.crd, g.b, g.c, g.oc, co, yy, xx, &ci, &yi, &xi);
		y[d] = x[((in * g.c + ci) * g.h + yi) * g.w + xi];
	}
}

template <typename T>
static int depth_space_launch(struct exec_kernel_ctx *k, const struct ds_geom *g, const void *x, void *y, int64_t n)
{
	return CU_LAUNCH(k, depth_space_kernel<T>, cu_grid(n), CU_BLOCK, *g, (const T *)x, (T *)y, n);
}

static int depth_space(struct exec_kernel_ctx *k, int to_space)
{
	const struct xtensor *x = movable_x(k);
	struct depth_space_geom p;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || ops_depth_space_setup(k, to_space, &p))
		return EXEC_DECLINE;
	if (xk_output_raw(k, 0, x->dtype, 4, p.out))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	struct ds_geom g = {to_space, p.crd, p.b, x->dims[1], x->dims[2], x->dims[3], p.out[1], p.out[2], p.out[3]};
	const void *dx = cu_input(k, &bufs, 0);
	void *dy = dx ? out_buf(k, &bufs, 0) : NULL;
	if (dy && !CU_BY_SIZE(cu_move_size(x->dtype), depth_space_launch, k, &g, dx, dy, y->numel) &&
	    !cu_output(k, &bufs, 0, dy))
		rc = 0;
	cu_bufs_free(&bufs);
	return rc;
}

static int k_depth_to_space(struct exec_kernel_ctx *k) { return depth_space(k, 1); }
static int k_space_to_depth(struct exec_kernel_ctx *k) { return depth_space(k, 0); }

// ---- Trilu ----

// Keep element (i, j) of each matrix where j - i >= kk (upper) or j - i <= kk (lower), else zero; j - i never
// overflows, whatever kk.
template <typename T>
static __global__ void trilu_kernel(const T *x, T *y, int64_t rows, int64_t cols, int64_t kk, int upper, int64_t n)
{
	CU_FOR(t, n)
	{
		int64_t j = t % cols, i = t / cols % rows;
		y[t] = (upper ? j - i >= kk : j - i <= kk) ? x[t] : T();
	}
}

template <typename T>
static int trilu_launch(struct exec_kernel_ctx *k, const void *x, void *y, int64_t rows, int64_t cols, int64_t kk,
			int upper, int64_t n)
{
	return CU_LAUNCH(k, trilu_kernel<T>, cu_grid(n), CU_BLOCK, (const T *)x, (T *)y, rows, cols, kk, upper, n);
}

static int k_trilu(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k);
	int64_t kk;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || ops_trilu_setup(k, cu_host, &kk))
		return EXEC_DECLINE;
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	int upper = (int)xk_attr_int(k, "upper", 1);
	const void *dx = cu_input(k, &bufs, 0);
	void *dy = dx ? out_buf(k, &bufs, 0) : NULL;
	if (dy && !CU_BY_SIZE(cu_move_size(x->dtype), trilu_launch, k, dx, dy, x->dims[x->rank - 2],
			      x->dims[x->rank - 1], kk, upper, y->numel) &&
	    !cu_output(k, &bufs, 0, dy))
		rc = 0;
	cu_bufs_free(&bufs);
	return rc;
}

// ---- GatherElements, GatherND: unit t of the output is slice elements of data from offs[t] ----

template <typename T>
static __global__ void gather_kernel(const T *x, const int64_t *offs, int64_t slice, T *y, int64_t n)
{
	CU_FOR(i, n)
	{
		int64_t t = i / slice;
		y[i] = x[offs[t] + (i - t * slice)];
	}
}

template <typename T>
static int gather_launch(struct exec_kernel_ctx *k, const void *x, const int64_t *offs, int64_t slice, void *y,
			 int64_t n)
{
	return CU_LAUNCH(k, gather_kernel<T>, cu_grid(n), CU_BLOCK, (const T *)x, offs, slice, (T *)y, n);
}

// The indices are read and resolved on the host (ops_gather_setup, with the CPU's checks); their offsets go to
// the device as one table.
static int gather_run(struct exec_kernel_ctx *k, int nd)
{
	const struct xtensor *x = movable_x(k);
	struct index_geom p;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || !xk_in(k, 1) || ops_gather_setup(k, nd, cu_host, &p))
		return EXEC_DECLINE;
	if (xk_output_raw(k, 0, x->dtype, p.rank, p.dims))
		goto out;
	if (k->out[0]->numel) {
		size_t tb = (size_t)p.n * sizeof *p.offs;
		const void *dx = cu_input(k, &bufs, 0);
		int64_t *doffs = dx ? (int64_t *)cu_alloc(k, &bufs, tb) : NULL;
		void *dy = doffs ? out_buf(k, &bufs, 0) : NULL;
		if (!dy || cu_upload(k, doffs, p.offs, tb) ||
		    CU_BY_SIZE(cu_move_size(x->dtype), gather_launch, k, dx, doffs, p.slice, dy, k->out[0]->numel) ||
		    cu_output(k, &bufs, 0, dy))
			goto out;
	}
	rc = 0;
out:
	cu_bufs_free(&bufs); // after cu_output's wait (or a failure), so the table is no longer read
	free(p.offs);
	return rc;
}

static int k_gather_elements(struct exec_kernel_ctx *k) { return gather_run(k, 0); }
static int k_gather_nd(struct exec_kernel_ctx *k) { return gather_run(k, 1); }

// ---- OneHot ----

// Output element (p, c, s) is on where index (p, s), wrapped once by depth, is c (an index out of range leaves
// its row off, as on the CPU).  The indices stay on the device, read as xt_get_int reads them.
template <typename T>
static __global__ void onehot_kernel(const void *idx, int32_t idt, T off, T on, int64_t depth, int64_t S, T *y,
				     int64_t n)
{
	CU_FOR(t, n)
	{
		int64_t s = t % S, q = t / S, c = q % depth, v = ov_get_int(idx, idt, q / depth * S + s);
		if (v < 0)
			v += depth;
		y[t] = v == c ? on : off;
	}
}

template <typename T>
static int onehot_launch(struct exec_kernel_ctx *k, const void *idx, int32_t idt, const char *values, int64_t depth,
			 int64_t S, void *y, int64_t n)
{
	return CU_LAUNCH(k, onehot_kernel<T>, cu_grid(n), CU_BLOCK, idx, idt, elem_of<T>(values),
			 elem_of<T>(values + sizeof(T)), depth, S, (T *)y, n);
}

static int k_onehot(struct exec_kernel_ctx *k)
{
	const struct xtensor *idx = xk_in(k, 0), *v = xk_in(k, 2), *hv;
	int64_t d[MAXR], depth;
	int axis, r;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!idx || !xk_in(k, 1) || !v || !ov_int_readable(idx->dtype) || !cu_move_size(v->dtype) ||
	    ops_onehot_setup(k, cu_host, &depth, &axis, &r, d))
		return EXEC_DECLINE;
	if (!(hv = cu_host(k, 2)) || xk_output_raw(k, 0, v->dtype, r, d))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	int64_t S = xk_numel(idx->rank - axis, idx->dims + axis);
	const void *didx = cu_input(k, &bufs, 0);
	void *dy = didx ? out_buf(k, &bufs, 0) : NULL;
	if (dy && !CU_BY_SIZE(cu_move_size(v->dtype), onehot_launch, k, didx, idx->dtype, (const char *)hv->data, depth,
			      S, dy, y->numel) &&
	    !cu_output(k, &bufs, 0, dy))
		rc = 0;
	cu_bufs_free(&bufs);
	return rc;
}

// ---- Range, ConstantOfShape, EyeLike: made on the device from values read on the host ----

static __global__ void range_kernel(void *y, int32_t dt, int64_t si, int64_t di, double sd, double dd, int64_t n)
{
	CU_FOR(i, n)
	ov_range_at(y, dt, i, si, di, sd, dd);
}

static int k_range(struct exec_kernel_ctx *k)
{
	struct range_geom p;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (ops_range_setup(k, cu_host, &p))
		return EXEC_DECLINE;
	if (xk_output_raw(k, 0, p.dt, 1, &p.n))
		return -1;
	if (!p.n)
		return 0;
	void *dy = out_buf(k, &bufs, 0);
	if (dy && !CU_LAUNCH(k, range_kernel, cu_grid(p.n), CU_BLOCK, dy, p.dt, p.si, p.di, p.sd, p.dd, p.n) &&
	    !cu_output(k, &bufs, 0, dy))
		rc = 0;
	cu_bufs_free(&bufs);
	return rc;
}

// Every element the bytes of one (fill), except where the diagonal j - i = kk has them of another (diag; EyeLike).
template <typename T>
static __global__ void fill_kernel(T fill, T diag, int64_t cols, int64_t kk, int eye, T *y, int64_t n)
{
	CU_FOR(t, n)
	y[t] = eye && t % cols - t / cols == kk ? diag : fill;
}

template <typename T>
static int fill_launch(struct exec_kernel_ctx *k, const char *fill, const char *diag, int64_t cols, int64_t kk,
		       int eye, void *y, int64_t n)
{
	return CU_LAUNCH(k, fill_kernel<T>, cu_grid(n), CU_BLOCK, elem_of<T>(fill), elem_of<T>(diag), cols, kk, eye,
			 (T *)y, n);
}

// Output 0 (allocated) filled on the device: zeros by a memset, else fill_kernel.
static int fill_output(struct exec_kernel_ctx *k, const char *fill, const char *diag, int64_t cols, int64_t kk,
		       int eye)
{
	struct xtensor *y = k->out[0];
	size_t es = cu_move_size(y->dtype);
	struct cu_bufs bufs = {};
	int zero = !eye, rc = -1;

	if (!y->numel)
		return 0;
	for (size_t b = 0; b < es && zero; b++)
		zero = fill[b] == 0;
	void *dy = out_buf(k, &bufs, 0);
	if (dy && !(zero ? CU_OK(k, cudaMemsetAsync(dy, 0, y->bytes, cu_dev.stream))
			 : CU_BY_SIZE(es, fill_launch, k, fill, diag, cols, kk, eye, dy, y->numel)) &&
	    !cu_output(k, &bufs, 0, dy))
		rc = 0;
	cu_bufs_free(&bufs);
	return rc;
}

static int k_constant_of_shape(struct exec_kernel_ctx *k)
{
	static const char zeros[16] = {0};
	int64_t d[MAXR];
	struct xtensor v;
	int have, r, rc;

	if (ops_constant_of_shape_setup(k, cu_host, &r, d, &v, &have))
		return EXEC_DECLINE;
	if (have && !cu_move_size(v.dtype)) {
		xt_free(&v);
		return EXEC_DECLINE; // a string
	}
	rc = xk_output_raw(k, 0, have ? v.dtype : OV_DT_FLOAT, r, d) ? -1
	     : fill_output(k, have ? (const char *)v.data : zeros, zeros, 1, 0, 0);
	if (have)
		xt_free(&v);
	return rc;
}

// The input's elements are never read: only its dims.  "One" is what the CPU's xt_set writes for 1 (zero bytes
// for the types it does not set).
static int k_eye_like(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	char one[16] = {0}, zeros[16] = {0};
	struct xtensor o;
	int32_t dt;

	if (ops_eye_like_setup(k, &dt) || !cu_move_size(dt))
		return EXEC_DECLINE;
	if (xk_output_raw(k, 0, dt, 2, x->dims))
		return -1;
	xt_wrap(&o, dt, 0, NULL, one);
	xt_set(&o, 0, 1);
	return fill_output(k, zeros, one, x->dims[1], xk_attr_int(k, "k", 0), 1);
}

// ---- CumSum, CumProd: one thread per line, in the CPU's order of accumulation ----

static __global__ void cum_kernel(const void *x, void *y, int32_t dt, int64_t len, int64_t inner, int exclusive,
				  int reverse, int prod, int64_t lines)
{
	CU_FOR(l, lines)
	{
		int64_t o = l / inner, in = l - o * inner;
		ov_cum_line(x, y, dt, o * len * inner + in, len, inner, exclusive, reverse, prod);
	}
}

static int cum_run(struct exec_kernel_ctx *k, int prod)
{
	const struct xtensor *x = movable_x(k);
	int axis;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || ops_cum_setup(k, prod, cu_host, &axis))
		return EXEC_DECLINE;
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	if (!x->numel)
		return 0;
	int exclusive = (int)xk_attr_int(k, "exclusive", 0), reverse = (int)xk_attr_int(k, "reverse", 0);
	int64_t len = x->dims[axis], inner = xk_numel(x->rank - axis - 1, x->dims + axis + 1), lines = x->numel / len;
	const void *dx = cu_input(k, &bufs, 0);
	void *dy = dx ? out_buf(k, &bufs, 0) : NULL;
	if (dy &&
	    !CU_LAUNCH(k, cum_kernel, cu_grid(lines), CU_BLOCK, dx, dy, x->dtype, len, inner, exclusive, reverse, prod,
		       lines) &&
	    !cu_output(k, &bufs, 0, dy))
		rc = 0;
	cu_bufs_free(&bufs);
	return rc;
}

static int k_cumsum(struct exec_kernel_ctx *k) { return cum_run(k, 0); }
static int k_cumprod(struct exec_kernel_ctx *k) { return cum_run(k, 1); }

// ---- ReverseSequence ----

// Block (b, t) of inner elements reads block (b, L[b] - 1 - t) for t < L[b], else itself; the blocks are batch
// major (batch_axis 0) or time major.  L: the sequence lengths, checked on the host.
template <typename E>
static __global__ void revseq_kernel(const E *x, E *y, const int64_t *L, int bmajor, int64_t B, int64_t T,
				     int64_t inner, int64_t n)
{
	CU_FOR(i, n)
	{
		int64_t e = i % inner, blk = i / inner;
		int64_t b = bmajor ? blk / T : blk % B, t = bmajor ? blk % T : blk / B;
		int64_t st = t < L[b] ? L[b] - 1 - t : t;
		y[i] = x[(bmajor ? b * T + st : st * B + b) * inner + e];
	}
}

template <typename E>
static int revseq_launch(struct exec_kernel_ctx *k, const void *x, void *y, const int64_t *L, int bmajor, int64_t B,
			 int64_t T, int64_t inner, int64_t n)
{
	return CU_LAUNCH(k, revseq_kernel<E>, cu_grid(n), CU_BLOCK, (const E *)x, (E *)y, L, bmajor, B, T, inner, n);
}

static int k_reverse_sequence(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k), *sl;
	int64_t B, T, *L = NULL;
	int ba;
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || ops_reverse_sequence_setup(k, cu_host, &ba, &B, &T))
		return EXEC_DECLINE;
	if (!(sl = cu_host(k, 1)) || xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	if (!x->numel)
		return 0;
	if (!(L = (int64_t *)malloc((size_t)B * sizeof *L)))
		return xk_fail(k, "out of memory");
	for (int64_t b = 0; b < B; b++)
		L[b] = xt_get_int(sl, b);
	{
		size_t lb = (size_t)B * sizeof *L;
		int64_t inner = x->numel / (B * T);
		const void *dx = cu_input(k, &bufs, 0);
		int64_t *dL = dx ? (int64_t *)cu_alloc(k, &bufs, lb) : NULL;
		void *dy = dL ? out_buf(k, &bufs, 0) : NULL;
		if (dy && !cu_upload(k, dL, L, lb) &&
		    !CU_BY_SIZE(cu_move_size(x->dtype), revseq_launch, k, dx, dy, dL, ba == 0, B, T, inner, x->numel) &&
		    !cu_output(k, &bufs, 0, dy))
			rc = 0;
	}
	cu_bufs_free(&bufs);
	free(L);
	return rc;
}

// ---- TopK: one thread per row, selecting and sorting as the CPU does (ov_topk_row) ----

template <typename T>
static __global__ void topk_kernel(const T *x, int32_t dt, int64_t len, int64_t inner, int64_t kk, int largest,
				   T *vals, int64_t *idx, int64_t rows)
{
	CU_FOR(r, rows)
	{
		int64_t o = r / inner, in = r - o * inner, base = o * len * inner + in, obase = o * kk * inner + in;
		ov_topk_row(x, dt, base, len, inner, kk, largest, idx + obase, inner);
		for (int64_t j = 0; j < kk; j++)
			vals[obase + j * inner] = x[base + idx[obase + j * inner] * inner];
	}
}

template <typename T>
static int topk_launch(struct exec_kernel_ctx *k, const void *x, int32_t dt, int64_t len, int64_t inner, int64_t kk,
		       int largest, void *vals, int64_t *idx, int64_t rows)
{
	return CU_LAUNCH(k, topk_kernel<T>, cu_grid(rows), CU_BLOCK, (const T *)x, dt, len, inner, kk, largest, (T *)vals,
			 idx, rows);
}

static int k_topk(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	int axis, largest = (int)xk_attr_int(k, "largest", 1);
	int64_t kk, d[MAXR];
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || ops_topk_setup(k, cu_host, &axis, &kk))
		return EXEC_DECLINE;
	memcpy(d, x->dims, sizeof d);
	d[axis] = kk;
	if (xk_output_raw(k, 0, x->dtype, x->rank, d) || xk_output_raw(k, 1, OV_DT_INT64, x->rank, d))
		return -1;
	if (!k->out[0]->numel)
		return 0;
	int64_t len = x->dims[axis], inner = xk_numel(x->rank - axis - 1, x->dims + axis + 1);
	int64_t rows = xk_numel(axis, x->dims) * inner;
	const void *dx = cu_input(k, &bufs, 0);
	void *dv = dx ? out_buf(k, &bufs, 0) : NULL;
	int64_t *di = dv ? (int64_t *)out_buf(k, &bufs, 1) : NULL;
	if (di &&
	    !CU_BY_SIZE(cu_move_size(x->dtype), topk_launch, k, dx, x->dtype, len, inner, kk, largest, dv, di, rows) &&
	    !cu_output(k, &bufs, 0, dv) && !cu_output(k, &bufs, 1, di))
		rc = 0;
	cu_bufs_free(&bufs);
	return rc;
}

// The rows after the first mark the opsets where the CPU's kernel table has them (each kernel reads k->opset).
const struct exec_kernel cuda_index_kernels[] = {
	{.op = "ConstantOfShape", .since = 9, .fn = k_constant_of_shape},
	{.op = "CumProd", .since = 26, .fn = k_cumprod},
	{.op = "CumSum", .since = 11, .fn = k_cumsum},
	{.op = "DepthToSpace", .since = 1, .fn = k_depth_to_space},
	{.op = "EyeLike", .since = 9, .fn = k_eye_like},
	{.op = "GatherElements", .since = 11, .fn = k_gather_elements},
	{.op = "GatherND", .since = 11, .fn = k_gather_nd},
	{.op = "OneHot", .since = 9, .fn = k_onehot},
	{.op = "Range", .since = 11, .fn = k_range},
	{.op = "ReverseSequence", .since = 10, .fn = k_reverse_sequence},
	{.op = "SpaceToDepth", .since = 1, .fn = k_space_to_depth},
	{.op = "TopK", .since = 1, .fn = k_topk},
	{.op = "TopK", .since = 10, .fn = k_topk},
	{.op = "Trilu", .since = 14, .fn = k_trilu},
};
const size_t cuda_index_count = sizeof cuda_index_kernels / sizeof cuda_index_kernels[0];
