// Tensor plumbing on the CUDA device: Identity, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split,
// Slice, Gather, Expand, Where, Tile, Pad, CenterCropPad, Cast, CastLike, Dropout (inference), Shape and Size,
// with the semantics of src/exec/cpu/shape.c, cpu/gather.c and cpu/elementwise.c.
//
// These ops move elements without looking at them, so they take any element type of 1, 2, 4, 8 or 16 bytes and
// move it whole (strings and sub-byte types stay on the CPU).  Shapes and the values of shape-like inputs (Reshape's
// shape, Slice's starts, Gather's indices...) are read on the host through cu_host, checked as the CPU checks them,
// and anything the CPU would refuse is declined, so the CPU names the problem in its own words.  Slice, Expand,
// Tile, Pad, CenterCropPad and Transpose are one mapped copy each (ops/ov-shape.h: input offsets per output axis,
// computed on the host with the CPU's arithmetic, as a stride per axis where they are a line, else as a table
// copied to the device; one thread per output element); the reshapes are device-to-device copies.
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/exec/cuda/backend.h"
#include "src/exec/cuda/points.h"
#include "src/exec/ops/index.h"
#include "src/exec/ops/ov-shape.h"

#define MAXR XT_MAX_RANK
static_assert(sizeof(((struct ov_map *)0)->dims) / sizeof(int64_t) == XT_MAX_RANK, "ov_map holds any rank");

// ---- helpers ----

// Input 0 when it is there and movable, else NULL (the CPU then runs the node, or refuses it).
static const struct xtensor *movable_x(const struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	return x && cu_move_size(x->dtype) ? x : NULL;
}

// Results of host_ints besides a count.
#define HOST_FAILED (-1)   // the input could not be read (the node's error is set)
#define HOST_DECLINE (-2)  // the CPU would refuse it

static int give_up(int64_t n)
{
	return n == HOST_FAILED ? -1 : EXEC_DECLINE;
}

// The values of input i, a 1-D list or a scalar of at most max numbers, read on the host as the CPU's input_ints
// reads them (xt_get_int, any numeric type): the count, or HOST_FAILED / HOST_DECLINE.
static int64_t host_ints(struct exec_kernel_ctx *k, size_t i, int64_t *buf, int64_t max)
{
	const struct xtensor *t = cu_host(k, i);

	if (!t)
		return HOST_FAILED;
	if (t->rank > 1 || t->numel > max || !cu_move_size(t->dtype))
		return HOST_DECLINE;
	for (int64_t j = 0; j < t->numel; j++)
		buf[j] = xt_get_int(t, j);
	return t->numel;
}

// An axis in [-rank, rank), made non-negative; -1 when out of range.
static int axis_of(int64_t a, int rank)
{
	if (a < -(int64_t)rank || a >= rank)
		return -1;
	return (int)(a < 0 ? a + rank : a);
}

static void strides_of(int rank, const int64_t *d, int64_t *s)
{
	int64_t acc = 1;
	for (int i = rank - 1; i >= 0; i--) {
		s[i] = acc;
		acc *= d[i];
	}
}

// ---- device-to-device copies: Identity and the reshapes ----

// Output 0 with x's elements and other dims (numel equal: the callers check).
static int copy_as(struct exec_kernel_ctx *k, const struct xtensor *x, int rank, const int64_t *dims)
{
	struct cu_bufs bufs = {};
	int rc = -1;

	if (xk_take_input(k, 0, 0, rank, dims)) // the node is x's last reader: x itself, on the device or not
		return 0;
	if (xk_output_raw(k, 0, x->dtype, rank, dims))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->bytes)
		return 0;
	const void *dx = cu_input(k, &bufs, 0);
	void *dy = dx ? cu_alloc(k, &bufs, y->bytes) : NULL;
	if (dy && !CU_OK(k, cudaMemcpyAsync(dy, dx, y->bytes, cudaMemcpyDeviceToDevice, cu_dev.stream)) &&
	    !cu_output(k, &bufs, 0, dy))
		rc = 0;
	cu_bufs_free(&bufs);
	return rc;
}

static int k_identity(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k);
	return x ? copy_as(k, x, x->rank, x->dims) : EXEC_DECLINE;
}

// Reshape-1 (the shape attribute) and Reshape-5 on (the shape input; allowzero from 14).
static int k_reshape(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k);
	int64_t want[MAXR], n;
	int allowzero = (int)xk_attr_int(k, "allowzero", 0);

	if (!x)
		return EXEC_DECLINE;
	if (k->opset < 5) {
		if ((n = xk_attr_ints(k, "shape", want, MAXR)) < 0 || n > MAXR)
			return EXEC_DECLINE;
	} else {
		if (!xk_in(k, 1))
			return EXEC_DECLINE;
		if ((n = host_ints(k, 1, want, MAXR)) < 0)
			return give_up(n);
	}
	int infer_at = -1, has_zero = 0;
	int64_t rest = 1;
	for (int64_t i = 0; i < n; i++) {
		if (want[i] == -1) {
			if (infer_at >= 0)
				return EXEC_DECLINE;
			infer_at = (int)i;
			continue;
		}
		if (want[i] < 0)
			return EXEC_DECLINE;
		if (want[i] == 0) {
			has_zero = 1;
			if (!allowzero) {
				if (i >= x->rank)
					return EXEC_DECLINE;
				want[i] = x->dims[i];
			}
		}
		if (rest && want[i] > INT64_MAX / rest)
			return EXEC_DECLINE;
		rest *= want[i];
	}
	if (allowzero && has_zero && infer_at >= 0)
		return EXEC_DECLINE;
	if (infer_at >= 0) {
		if (rest == 0 || x->numel % rest)
			return EXEC_DECLINE;
		want[infer_at] = x->numel / rest;
	} else if (rest != x->numel) {
		return EXEC_DECLINE;
	}
	return copy_as(k, x, (int)n, want);
}

static int k_flatten(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k);
	int64_t d[2];

	if (!x)
		return EXEC_DECLINE;
	int64_t a = xk_attr_int(k, "axis", 1);
	if (a < 0)
		a += x->rank;
	if (a < 0 || a > x->rank)
		return EXEC_DECLINE;
	d[0] = xk_numel((int)a, x->dims);
	d[1] = xk_numel(x->rank - (int)a, x->dims + a);
	return copy_as(k, x, 2, d);
}

// The axes of Squeeze and Unsqueeze: the attribute before opset 13, input 1 from 13.  The count, -3 when absent,
// or HOST_FAILED / HOST_DECLINE.
#define AXES_ABSENT (-3)
static int64_t squeeze_axes(struct exec_kernel_ctx *k, int64_t *axes)
{
	if (k->opset >= 13)
		return xk_in(k, 1) ? host_ints(k, 1, axes, MAXR) : AXES_ABSENT;
	int64_t n = xk_attr_ints(k, "axes", axes, MAXR);
	return n > MAXR ? HOST_DECLINE : n < 0 ? AXES_ABSENT : n;
}

static int k_squeeze(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k);
	int64_t axes[MAXR], d[MAXR];
	int drop[MAXR] = {0}, n = 0;

	if (!x)
		return EXEC_DECLINE;
	int64_t na = squeeze_axes(k, axes);
	if (na == HOST_FAILED || na == HOST_DECLINE)
		return give_up(na);
	if (na == AXES_ABSENT) {
		for (int i = 0; i < x->rank; i++)
			drop[i] = x->dims[i] == 1;
	} else {
		for (int64_t i = 0; i < na; i++) {
			int a = axis_of(axes[i], x->rank);
			if (a < 0 || x->dims[a] != 1)
				return EXEC_DECLINE;
			drop[a] = 1;
		}
	}
	for (int i = 0; i < x->rank; i++)
		if (!drop[i])
			d[n++] = x->dims[i];
	return copy_as(k, x, n, d);
}

static int k_unsqueeze(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k);
	int64_t axes[MAXR], d[MAXR];
	int ins[MAXR] = {0};

	if (!x)
		return EXEC_DECLINE;
	int64_t na = squeeze_axes(k, axes);
	if (na == HOST_FAILED || na == HOST_DECLINE)
		return give_up(na);
	if (na == AXES_ABSENT || x->rank + na > MAXR)
		return EXEC_DECLINE;
	int r = x->rank + (int)na;
	for (int64_t i = 0; i < na; i++) {
		int a = axis_of(axes[i], r);
		if (a < 0 || ins[a])
			return EXEC_DECLINE;
		ins[a] = 1;
	}
	for (int i = 0, j = 0; i < r; i++)
		d[i] = ins[i] ? 1 : x->dims[j++];
	return copy_as(k, x, r, d);
}

// ---- mapped copies: Transpose, Slice, Expand, Tile, Pad ----

template <typename T>
static __global__ void map_kernel(struct ov_map m, const int64_t *tab, const T *x, T *y, T fill, int64_t n)
{
	CU_FOR(i, n)
	{
		int64_t s = ov_map_source(&m, tab, i);
		y[i] = s < 0 ? fill : x[s];
	}
}

template <typename T>
static int map_launch(struct exec_kernel_ctx *k, const struct ov_map *m, const int64_t *tab, const void *x, void *y,
		      const char *fill, int64_t n)
{
	T f;
	memcpy(&f, fill, sizeof f);
	return CU_LAUNCH(k, map_kernel<T>, cu_grid(n), CU_BLOCK, *m, tab, (const T *)x, (T *)y, f, n);
}

// The map of a mapped copy into output 0, built on the host: affine (m.base, m.stride), or a table (axis a's
// entries at tab + m.at[a]).
struct map_plan {
	struct ov_map m;
	int64_t *tab, len;
};

static int plan_init(struct exec_kernel_ctx *k, struct map_plan *p)
{
	const struct xtensor *y = k->out[0];

	memset(p, 0, sizeof *p);
	p->m.rank = y->rank;
	for (int a = 0; a < y->rank; a++) {
		p->m.dims[a] = y->dims[a];
		p->m.at[a] = p->len;
		p->len += y->dims[a];
	}
	p->tab = (int64_t *)malloc((size_t)(p->len ? p->len : 1) * sizeof *p->tab);
	return p->tab ? 0 : xk_fail(k, "out of memory");
}

static int64_t *plan_axis(struct map_plan *p, int a)
{
	return p->tab + p->m.at[a];
}

// Output 0 from input 0 through the plan (fill: the element for padding, es bytes); frees the table.  An affine
// plan sends nothing to the device but the kernel's arguments.
static int plan_run(struct exec_kernel_ctx *k, struct map_plan *p, const char *fill)
{
	struct xtensor *y = k->out[0];
	size_t es = cu_move_size(y->dtype), tb = (size_t)p->len * sizeof *p->tab;
	struct cu_bufs bufs = {};
	int64_t *dtab = NULL;
	void *dy = NULL;
	int rc = -1;

	const void *dx = cu_input(k, &bufs, 0);
	if (dx && !p->m.affine)
		dtab = (int64_t *)cu_alloc(k, &bufs, tb);
	if (dx && (p->m.affine || dtab))
		dy = cu_alloc(k, &bufs, y->bytes);
	if (!dy)
		goto out;
	if (dtab && cu_upload(k, dtab, p->tab, tb))
		goto out;
	if (CU_BY_SIZE(es, map_launch, k, &p->m, dtab, dx, dy, fill, y->numel) || cu_output(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs); // cu_output waited for the device, so the table is no longer read
	free(p->tab);
	p->tab = NULL;
	return rc;
}

// Output 0 (dims already allocated) as x through the map plan_fill builds; empty outputs need no device.
static int map_copy(struct exec_kernel_ctx *k, void (*plan_fill)(struct map_plan *p, const void *ctx),
		    const void *ctx, const char *fill)
{
	static const char zeros[16] = {0};
	struct map_plan p;

	if (!k->out[0]->numel)
		return 0;
	if (plan_init(k, &p))
		return -1;
	plan_fill(&p, ctx);
	return plan_run(k, &p, fill ? fill : zeros);
}

// Transpose: output axis a walks input axis perm[a].
struct transpose_ctx {
	const struct xtensor *x;
	const int *perm;
};

static void transpose_fill(struct map_plan *p, const void *ctx)
{
	const struct transpose_ctx *c = (const struct transpose_ctx *)ctx;
	int64_t xs[MAXR];

	strides_of(c->x->rank, c->x->dims, xs);
	p->m.affine = 1;
	for (int a = 0; a < p->m.rank; a++)
		p->m.stride[a] = xs[c->perm[a]];
}

static int k_transpose(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k);
	int64_t pv[MAXR], d[MAXR];
	int perm[MAXR], seen[MAXR] = {0};

	if (!x)
		return EXEC_DECLINE;
	int64_t np = xk_attr_ints(k, "perm", pv, MAXR);
	if (np < 0) {
		np = x->rank;
		for (int i = 0; i < x->rank; i++)
			pv[i] = x->rank - 1 - i;
	}
	if (np != x->rank)
		return EXEC_DECLINE;
	for (int i = 0; i < x->rank; i++) {
		if ((perm[i] = axis_of(pv[i], x->rank)) < 0 || seen[perm[i]]++)
			return EXEC_DECLINE;
		d[i] = x->dims[perm[i]];
	}
	int r = k->mm ? cu_transpose_into_matmul(k, perm) : 0; // the MatMul after it, reading x through perm
	if (r)
		return r < 0 ? -1 : 0;
	if (ov_perm_keeps_order(x->rank, x->dims, perm)) // a reshape: x itself when the node may take it, else one copy
		return copy_as(k, x, x->rank, d);
	if (xk_output_raw(k, 0, x->dtype, x->rank, d))
		return -1;
	struct transpose_ctx c = {x, perm};
	return map_copy(k, transpose_fill, &c, NULL);
}

// Slice: output axis a takes first[a], first[a] + step[a], ... of the input's.
struct slice_ctx {
	const struct xtensor *x;
	const int64_t *first, *step;
};

// (first[a] + j * step[a]) * xs[a], cpu/shape.c's table entry, as a line
static void slice_fill(struct map_plan *p, const void *ctx)
{
	const struct slice_ctx *c = (const struct slice_ctx *)ctx;
	int64_t xs[MAXR];

	strides_of(c->x->rank, c->x->dims, xs);
	p->m.affine = 1;
	for (int a = 0; a < p->m.rank; a++) {
		p->m.base += c->first[a] * xs[a];
		p->m.stride[a] = c->step[a] * xs[a];
	}
}

// Slice-1 (starts, ends and axes as attributes) and Slice-10 on (inputs, with steps).
static int k_slice(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k);
	int64_t starts[MAXR], ends[MAXR], axes[MAXR], steps[MAXR], ns, ne, na = AXES_ABSENT, nst = AXES_ABSENT;

	if (!x)
		return EXEC_DECLINE;
	if (k->opset < 10) {
		ns = xk_attr_ints(k, "starts", starts, MAXR);
		ne = xk_attr_ints(k, "ends", ends, MAXR);
		na = xk_attr_ints(k, "axes", axes, MAXR);
		if (ns < 0 || ne < 0 || ns > MAXR || ne > MAXR || na > MAXR)
			return EXEC_DECLINE;
		if (na < 0)
			na = AXES_ABSENT;
	} else {
		if (!xk_in(k, 1) || !xk_in(k, 2))
			return EXEC_DECLINE;
		if ((ns = host_ints(k, 1, starts, MAXR)) < 0)
			return give_up(ns);
		if ((ne = host_ints(k, 2, ends, MAXR)) < 0)
			return give_up(ne);
		if (xk_in(k, 3) && (na = host_ints(k, 3, axes, MAXR)) < 0)
			return give_up(na);
		if (xk_in(k, 4) && (nst = host_ints(k, 4, steps, MAXR)) < 0)
			return give_up(nst);
	}
	if (ns != ne || (na != AXES_ABSENT && na != ns) || (nst != AXES_ABSENT && nst != ns))
		return EXEC_DECLINE;
	int64_t first[MAXR], step[MAXR], d[MAXR];
	int seen[MAXR] = {0};
	for (int a = 0; a < x->rank; a++) {
		first[a] = 0;
		step[a] = 1;
		d[a] = x->dims[a];
	}
	for (int64_t i = 0; i < ns; i++) {
		int a = axis_of(na == AXES_ABSENT ? i : axes[i], x->rank);
		int64_t st = nst == AXES_ABSENT ? 1 : steps[i];
		if (a < 0 || seen[a]++ || st == 0)
			return EXEC_DECLINE;
		d[a] = ov_slice_axis(x->dims[a], starts[i], ends[i], st, &first[a]);
		step[a] = st;
	}
	if (xk_output_raw(k, 0, x->dtype, x->rank, d))
		return -1;
	struct slice_ctx c = {x, first, step};
	return map_copy(k, slice_fill, &c, NULL);
}

// Expand and Tile: output axis a of the rank-r output reads input axis a - (r - x's rank) (none: broadcast).
struct repeat_ctx {
	const struct xtensor *x;
	int tile; // Tile: position j reads j % dim; Expand: a dim of 1 broadcasts
};

static void repeat_fill(struct map_plan *p, const void *ctx)
{
	const struct repeat_ctx *c = (const struct repeat_ctx *)ctx;
	int64_t xs[MAXR];
	int r = p->m.rank;

	strides_of(c->x->rank, c->x->dims, xs);
	p->m.affine = !c->tile; // Expand's offsets are lines (of stride 0 where it broadcasts)
	for (int a = 0; a < r; a++) {
		int xa = a - (r - c->x->rank);
		int bc = xa < 0 || c->x->dims[xa] == 1;
		if (!c->tile)
			p->m.stride[a] = bc ? 0 : xs[xa];
		else
			for (int64_t j = 0; j < p->m.dims[a]; j++)
				plan_axis(p, a)[j] = (j % c->x->dims[xa]) * xs[xa];
	}
}

static int k_expand(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k);
	int64_t want[MAXR], d[MAXR];

	if (!x || !xk_in(k, 1))
		return EXEC_DECLINE;
	int64_t n = host_ints(k, 1, want, MAXR);
	if (n < 0)
		return give_up(n);
	int r = x->rank > n ? x->rank : (int)n;
	for (int i = 0; i < r; i++) {
		int xi = i - (r - x->rank), wi = i - (r - (int)n);
		int64_t a = xi >= 0 ? x->dims[xi] : 1, b = wi >= 0 ? want[wi] : 1;
		if (b < 0)
			return EXEC_DECLINE;
		if (a == b || b == 1)
			d[i] = a;
		else if (a == 1)
			d[i] = b;
		else
			return EXEC_DECLINE;
	}
	if (xk_output_raw(k, 0, x->dtype, r, d))
		return -1;
	struct repeat_ctx c = {x, 0};
	return map_copy(k, repeat_fill, &c, NULL);
}

static int k_tile(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k);
	int64_t rep[MAXR], d[MAXR];

	if (!x || !xk_in(k, 1))
		return EXEC_DECLINE;
	int64_t n = host_ints(k, 1, rep, MAXR);
	if (n < 0)
		return give_up(n);
	if (n != x->rank)
		return EXEC_DECLINE;
	for (int i = 0; i < x->rank; i++) {
		if (rep[i] < 0 || (x->dims[i] && rep[i] > INT64_MAX / x->dims[i]))
			return EXEC_DECLINE;
		d[i] = x->dims[i] * rep[i];
	}
	if (xk_output_raw(k, 0, x->dtype, x->rank, d))
		return -1;
	struct repeat_ctx c = {x, 1};
	return map_copy(k, repeat_fill, &c, NULL);
}

// Pad: position j of axis a reads kept element ov_pad_source(j - lead) (kept: the input less negative pads).
struct pad_ctx {
	const struct xtensor *x;
	const int64_t *pb, *pe;
	int mode;
};

static void pad_fill(struct map_plan *p, const void *ctx)
{
	const struct pad_ctx *c = (const struct pad_ctx *)ctx;
	int64_t xs[MAXR];

	strides_of(c->x->rank, c->x->dims, xs);
	for (int a = 0; a < p->m.rank; a++) {
		int64_t cb = c->pb[a] < 0 ? -c->pb[a] : 0, ce = c->pe[a] < 0 ? -c->pe[a] : 0;
		int64_t dc = c->x->dims[a] - cb - ce, lead = c->pb[a] > 0 ? c->pb[a] : 0;
		for (int64_t j = 0; j < p->m.dims[a]; j++) {
			int64_t i = ov_pad_source(j - lead, dc, c->mode);
			plan_axis(p, a)[j] = i < 0 ? -1 : (i + cb) * xs[a];
		}
	}
}

// Pad-1 (paddings), Pad-2 (pads and value attributes), Pad-11 on (pads, constant_value and, from 18, axes as
// inputs).
static int k_pad(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k);
	struct pad_geom pl;

	if (!x)
		return EXEC_DECLINE;
	if (ops_pad_setup(k, x, cu_host, &pl))
		return EXEC_DECLINE; // the CPU says what is wrong
	const struct xtensor *cv = pl.cv;
	double cval = pl.cval;
	int64_t *pb = pl.pb, *pe = pl.pe, *d = pl.d;
	int mode = pl.mode;
	char fill[16] = {0};
	size_t es = cu_move_size(x->dtype);
	if (cv && cv->numel) {
		memcpy(fill, cv->data, es);
	} else if (!cv && cval != 0) {
		struct xtensor f;
		xt_wrap(&f, x->dtype, 0, NULL, fill);
		xt_set(&f, 0, cval);
	}
	if (xk_output_raw(k, 0, x->dtype, x->rank, d))
		return -1;
	struct pad_ctx c = {x, pb, pe, mode};
	return map_copy(k, pad_fill, &c, fill);
}

// CenterCropPad: position j of axis a reads input position j + lead[a] (outside the input: zero).
struct crop_ctx {
	const struct xtensor *x;
	const int64_t *lead;
};

static void crop_fill(struct map_plan *p, const void *ctx)
{
	const struct crop_ctx *c = (const struct crop_ctx *)ctx;
	int64_t xs[MAXR];

	strides_of(c->x->rank, c->x->dims, xs);
	for (int a = 0; a < p->m.rank; a++)
		for (int64_t j = 0; j < p->m.dims[a]; j++) {
			int64_t i = j + c->lead[a];
			plan_axis(p, a)[j] = i >= 0 && i < c->x->dims[a] ? i * xs[a] : -1;
		}
}

static int k_center_crop_pad(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k);
	int64_t d[MAXR], lead[MAXR];

	if (!x || ops_center_crop_pad_setup(k, cu_host, d, lead))
		return EXEC_DECLINE; // the CPU says what is wrong
	if (xk_output_raw(k, 0, x->dtype, x->rank, d))
		return -1;
	struct crop_ctx c = {x, lead};
	return map_copy(k, crop_fill, &c, NULL);
}

// ---- Concat, Split: blocks of rows ----

// y[o * yrow + yat + j] = x[o * xrow + xat + j] for n = rows * row elements.
template <typename T>
static __global__ void rows_kernel(const T *x, int64_t xrow, int64_t xat, T *y, int64_t yrow, int64_t yat, int64_t row,
				   int64_t n)
{
	CU_FOR(t, n)
	{
		int64_t o = t / row, j = t - o * row;
		y[o * yrow + yat + j] = x[o * xrow + xat + j];
	}
}

template <typename T>
static int rows_launch(struct exec_kernel_ctx *k, const void *x, int64_t xrow, int64_t xat, void *y, int64_t yrow,
		       int64_t yat, int64_t row, int64_t n)
{
	return CU_LAUNCH(k, rows_kernel<T>, cu_grid(n), CU_BLOCK, (const T *)x, xrow, xat, (T *)y, yrow, yat, row, n);
}

static int k_concat(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k);
	int64_t d[MAXR];
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x)
		return EXEC_DECLINE;
	int axis = axis_of(xk_attr_int(k, "axis", 0), x->rank);
	if (axis < 0)
		return EXEC_DECLINE;
	memcpy(d, x->dims, sizeof d);
	d[axis] = 0;
	for (size_t i = 0; i < k->n_in; i++) {
		const struct xtensor *t = k->in[i];
		if (!t || t->dtype != x->dtype || t->rank != x->rank)
			return EXEC_DECLINE;
		for (int a = 0; a < x->rank; a++)
			if (a != axis && t->dims[a] != x->dims[a])
				return EXEC_DECLINE;
		d[axis] += t->dims[axis];
	}
	if (xk_output_raw(k, 0, x->dtype, x->rank, d))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	size_t es = cu_move_size(x->dtype);
	int64_t outer = xk_numel(axis, x->dims), inner = xk_numel(x->rank - axis - 1, x->dims + axis + 1);
	int64_t yrow = d[axis] * inner, at = 0;
	void *dy = cu_alloc(k, &bufs, y->bytes);
	if (!dy)
		goto out;
	for (size_t i = 0; i < k->n_in; i++) {
		int64_t row = k->in[i]->dims[axis] * inner;
		const void *dx = row ? cu_input(k, &bufs, i) : NULL;
		if (row && (!dx || CU_BY_SIZE(es, rows_launch, k, dx, row, 0, dy, yrow, at, row, outer * row)))
			goto out;
		at += row;
	}
	if (cu_output(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// Split-1 (split attribute), Split-13 (split input), Split-18 (and num_outputs).
static int k_split(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k);
	int64_t *split = NULL;
	struct cu_bufs bufs = {};
	int v = (int)k->opset, rc = EXEC_DECLINE;

	// Split-1's optional split input is left to the CPU
	if (!x || x->rank == 0 || (v < 13 && xk_in(k, 1)))
		return EXEC_DECLINE;
	int axis = axis_of(xk_attr_int(k, "axis", 0), x->rank);
	size_t n = k->n_out;
	if (axis < 0 || !(split = (int64_t *)calloc(n ? n : 1, sizeof *split)))
		return axis < 0 ? EXEC_DECLINE : xk_fail(k, "out of memory");
	int64_t len = x->dims[axis], ns = AXES_ABSENT;
	if (v >= 13 && xk_in(k, 1)) {
		const struct xtensor *st = cu_host(k, 1);
		if (!st) {
			rc = -1;
			goto out;
		}
		if (st->rank > 1 || st->numel != (int64_t)n || !cu_move_size(st->dtype))
			goto out;
		for (size_t i = 0; i < n; i++)
			split[i] = xt_get_int(st, (int64_t)i);
		ns = (int64_t)n;
	} else if (v < 13) {
		int64_t c = xk_attr_ints(k, "split", split, (int64_t)n);
		if (c >= 0 && c != (int64_t)n)
			goto out;
		ns = c < 0 ? AXES_ABSENT : c;
	}
	if (ns == AXES_ABSENT) {
		if ((v >= 18 ? xk_attr_int(k, "num_outputs", (int64_t)n) : (int64_t)n) != (int64_t)n)
			goto out;
		for (size_t i = 0; i < n; i++)
			split[i] = ov_split_part(len, (int64_t)n, (int64_t)i);
	}
	{
		int64_t sum = 0;
		for (size_t i = 0; i < n; i++) {
			if (split[i] < 0 || split[i] > len)
				goto out;
			sum += split[i];
		}
		if (sum != len)
			goto out;
	}
	rc = -1;
	for (size_t i = 0; i < n; i++) {
		int64_t d[MAXR];
		memcpy(d, x->dims, sizeof d);
		d[axis] = split[i];
		if (xk_output_raw(k, i, x->dtype, x->rank, d))
			goto out;
	}
	{
		size_t es = cu_move_size(x->dtype);
		int64_t outer = xk_numel(axis, x->dims), at = 0;
		int64_t inner = xk_numel(x->rank - axis - 1, x->dims + axis + 1);
		const void *dx = x->numel ? cu_input(k, &bufs, 0) : NULL;
		if (x->numel && !dx)
			goto out;
		for (size_t i = 0; i < n; i++) {
			struct xtensor *y = k->out[i];
			int64_t row = split[i] * inner;
			// each output's buffer leaves the list as it is handed over, so any number of outputs fits
			void *dy = y->numel ? cu_alloc(k, &bufs, y->bytes) : NULL;
			if (y->numel && (!dy ||
					 CU_BY_SIZE(es, rows_launch, k, dx, len * inner, at * inner, dy, row, 0, row,
						 outer * row) ||
					 cu_output(k, &bufs, i, dy)))
				goto out;
			at += split[i];
		}
	}
	rc = 0;
out:
	cu_bufs_free(&bufs);
	free(split);
	return rc;
}

// ---- Gather ----

// y[(b * ni + i) * inner + c] = x[(b * len + ix[i]) * inner + c], the indices made non-negative on the host.
template <typename T>
static __global__ void gather_kernel(const T *x, const int64_t *ix, T *y, int64_t ni, int64_t len, int64_t inner,
				     int64_t n)
{
	CU_FOR(t, n)
	{
		int64_t q = t / inner, c = t - q * inner, b = q / ni, i = q - b * ni;
		y[t] = x[(b * len + ix[i]) * inner + c];
	}
}

template <typename T>
static int gather_launch(struct exec_kernel_ctx *k, const void *x, const int64_t *ix, void *y, int64_t ni,
			 int64_t len, int64_t inner, int64_t n)
{
	return CU_LAUNCH(k, gather_kernel<T>, cu_grid(n), CU_BLOCK, (const T *)x, ix, (T *)y, ni, len, inner, n);
}

// A few indices (GATHER_ARGS at most: a scalar index is what exports take q, k and v apart with, or a class token)
// go to the kernel as an argument, with no buffer to allocate and copy up in every run.
#define GATHER_ARGS 8
struct gather_ix {
	int64_t v[GATHER_ARGS];
};

template <typename T>
static __global__ void gather_few_kernel(const T *x, struct gather_ix ix, T *y, int64_t ni, int64_t len,
					 int64_t inner, int64_t n)
{
	CU_FOR(t, n)
	{
		int64_t q = t / inner, c = t - q * inner, b = q / ni, i = q - b * ni;
		y[t] = x[(b * len + ix.v[i]) * inner + c];
	}
}

template <typename T>
static int gather_few_launch(struct exec_kernel_ctx *k, const void *x, const struct gather_ix *ix, void *y,
			     int64_t ni, int64_t len, int64_t inner, int64_t n)
{
	return CU_LAUNCH(k, gather_few_kernel<T>, cu_grid(n), CU_BLOCK, (const T *)x, *ix, (T *)y, ni, len, inner, n);
}

// The indices are read and checked on the host, as the CPU checks them before reading anything: one out of range
// is declined, and the CPU fails the node naming it.
static int k_gather(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k), *idx = xk_in(k, 1);
	int64_t d[MAXR], *ix = NULL;
	struct cu_bufs bufs = {};
	int rc = EXEC_DECLINE;

	if (!x || !idx || !ops_is_index_type(idx->dtype))
		return EXEC_DECLINE;
	int axis = axis_of(xk_attr_int(k, "axis", 0), x->rank), n = 0;
	if (axis < 0 || x->rank - 1 + idx->rank > MAXR)
		return EXEC_DECLINE;
	for (int i = 0; i < axis; i++)
		d[n++] = x->dims[i];
	for (int i = 0; i < idx->rank; i++)
		d[n++] = idx->dims[i];
	for (int i = axis + 1; i < x->rank; i++)
		d[n++] = x->dims[i];
	const struct xtensor *hidx = cu_host(k, 1);
	if (!hidx)
		return -1;
	int64_t ni = hidx->numel, len = x->dims[axis];
	if (!(ix = (int64_t *)malloc((size_t)(ni ? ni : 1) * sizeof *ix)))
		return xk_fail(k, "out of memory");
	for (int64_t i = 0; i < ni; i++) {
		int64_t v = xt_get_int(hidx, i), j = v < 0 ? v + len : v;
		if (j < 0 || j >= len)
			goto out;
		ix[i] = j;
	}
	rc = -1;
	if (xk_output_raw(k, 0, x->dtype, n, d))
		goto out;
	{
		struct xtensor *y = k->out[0];
		int64_t inner = xk_numel(x->rank - axis - 1, x->dims + axis + 1);
		if (y->numel && ni <= GATHER_ARGS) {
			struct gather_ix few = {};
			memcpy(few.v, ix, (size_t)ni * sizeof *ix);
			const void *dx = cu_input(k, &bufs, 0);
			void *dy = dx ? cu_alloc(k, &bufs, y->bytes) : NULL;
			if (!dy ||
			    CU_BY_SIZE(cu_move_size(x->dtype), gather_few_launch, k, dx, &few, dy, ni, len, inner, y->numel) ||
			    cu_output(k, &bufs, 0, dy))
				goto out;
		} else if (y->numel) {
			size_t ib = (size_t)ni * sizeof *ix;
			const void *dx = cu_input(k, &bufs, 0);
			int64_t *dix = dx ? (int64_t *)cu_alloc(k, &bufs, ib) : NULL;
			void *dy = dix ? cu_alloc(k, &bufs, y->bytes) : NULL;
			if (!dy || cu_upload(k, dix, ix, ib) ||
			    CU_BY_SIZE(cu_move_size(x->dtype), gather_launch, k, dx, dix, dy, ni, len, inner, y->numel) ||
			    cu_output(k, &bufs, 0, dy))
				goto out;
		}
	}
	rc = 0;
out:
	cu_bufs_free(&bufs); // after cu_output's wait (or a failure), so the indices are no longer read
	free(ix);
	return rc;
}

// ---- Where ----

template <typename T>
static __global__ void where_kernel(struct ov_bcast bc, const uint8_t *c, const T *x, const T *y, T *out)
{
	CU_FOR(i, bc.numel)
	out[i] = c[ov_bcast_offset(&bc, 0, i)] ? x[ov_bcast_offset(&bc, 1, i)] : y[ov_bcast_offset(&bc, 2, i)];
}

template <typename T>
static int where_launch(struct exec_kernel_ctx *k, const struct ov_bcast *bc, const void *c, const void *x,
			const void *y, void *out)
{
	return CU_LAUNCH(k, where_kernel<T>, cu_grid(bc->numel), CU_BLOCK, *bc, (const uint8_t *)c, (const T *)x,
			 (const T *)y, (T *)out);
}

static int k_where(struct exec_kernel_ctx *k)
{
	const struct xtensor *c = xk_in(k, 0), *x = xk_in(k, 1), *y = xk_in(k, 2);
	int ranks[3], rank;
	const int64_t *d[3];
	int64_t dims[MAXR];
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!c || !x || !y || c->dtype != OV_DT_BOOL || x->dtype != y->dtype || !cu_move_size(x->dtype))
		return EXEC_DECLINE;
	ranks[0] = c->rank, ranks[1] = x->rank, ranks[2] = y->rank;
	d[0] = c->dims, d[1] = x->dims, d[2] = y->dims;
	if (ov_bcast_shape(3, ranks, d, &rank, dims) >= 0)
		return EXEC_DECLINE;
	if (xk_output_raw(k, 0, x->dtype, rank, dims))
		return -1;
	struct xtensor *out = k->out[0];
	if (!out->numel)
		return 0;
	struct ov_bcast bc;
	ov_bcast_plan(&bc, 3, ranks, d, rank, dims);
	const void *dc = cu_input(k, &bufs, 0);
	const void *dx = dc ? cu_input(k, &bufs, 1) : NULL;
	const void *dyv = dx ? cu_input(k, &bufs, 2) : NULL;
	void *dout = dyv ? cu_alloc(k, &bufs, out->bytes) : NULL;
	if (!dout || CU_BY_SIZE(cu_move_size(x->dtype), where_launch, k, &bc, dc, dx, dyv, dout) || cu_output(k, &bufs, 0, dout))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// ---- Cast ----

static __global__ void cast_kernel(const void *x, int sdt, void *y, int ddt, int64_t n)
{
	CU_FOR(i, n)
	cu_cast_point(x, sdt, y, ddt, i);
}

// The types under 8 bits and the small floats (src/base/codec.h), one byte an element on the device as on the host.
static inline OV_HD int cast_small_type(int32_t dt)
{
	int lo, hi;
	return ov_is_small_float(dt) || !ov_packed_int_range(dt, &lo, &hi);
}

// A cast with a small type on either side, as cpu/elementwise.c's conv_array_cast: the source read as a double
// (a float type), an int64 (a signed integer) or a uint64 (unsigned, bool); a small float target saturating when
// sat (Cast's attribute), FLOAT8E8M0 with round mode rm, a packed integer wrapping; any other target as cu_convert.
static __global__ void cast_small_kernel(const void *x, int sdt, void *y, int ddt, int sat, int rm, int64_t n)
{
	CU_FOR(i, n)
	{
		double d = 0;
		int64_t si = 0;
		uint64_t u = 0;
		int dom = 0; // 0: d, 1: si, 2: u
		if (ov_is_small_float(sdt)) {
			d = (double)ov_small_to_f32(((const uint8_t *)x)[i], sdt);
		} else if (sdt == OV_DT_INT4 || sdt == OV_DT_INT2) {
			si = ((const int8_t *)x)[i], dom = 1;
		} else if (sdt == OV_DT_UINT4 || sdt == OV_DT_UINT2) {
			u = ((const uint8_t *)x)[i], dom = 2;
		} else if (sdt == OV_DT_UINT8 || sdt == OV_DT_UINT16 || sdt == OV_DT_UINT32 || sdt == OV_DT_UINT64 ||
			   sdt == OV_DT_BOOL) {
			cu_convert(x, sdt, i, &u, OV_DT_UINT64, 0), dom = 2;
		} else if (sdt == OV_DT_INT8 || sdt == OV_DT_INT16 || sdt == OV_DT_INT32 || sdt == OV_DT_INT64) {
			cu_convert(x, sdt, i, &si, OV_DT_INT64, 0), dom = 1;
		} else {
			cu_convert(x, sdt, i, &d, OV_DT_DOUBLE, 0);
		}
		double dv = dom == 0 ? d : dom == 1 ? (double)si : (double)u;
		if (ddt == OV_DT_FLOAT8E8M0) {
			((uint8_t *)y)[i] = ov_f32_to_e8m0((float)dv, sat, (enum ov_e8m0_round)rm);
		} else if (ov_is_small_float(ddt)) {
			((uint8_t *)y)[i] = ov_f64_to_small(dv, ddt, sat);
		} else if (cast_small_type(ddt)) {
			int64_t w = dom == 0 ? ov_f64_to_i64(d) : dom == 1 ? si : (int64_t)u;
			((uint8_t *)y)[i] = ov_packed_int_wrap(w, ddt);
		} else if (dom == 0) {
			cu_convert(&d, OV_DT_DOUBLE, 0, y, ddt, i);
		} else if (dom == 1) {
			cu_convert(&si, OV_DT_INT64, 0, y, ddt, i);
		} else {
			cu_convert(&u, OV_DT_UINT64, 0, y, ddt, i);
		}
	}
}

// Between the numeric types of cu_cast_type (cuda/points.h) and the small ones, element by element with the CPU's
// conversions; strings are left to the CPU.
static int cast_to(struct exec_kernel_ctx *k, int64_t to)
{
	const struct xtensor *x = xk_in(k, 0);
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x || to < 0 || to > INT32_MAX || (!cu_cast_type(x->dtype) && !cast_small_type(x->dtype)) ||
	    (!cu_cast_type((int32_t)to) && !cast_small_type((int32_t)to)))
		return EXEC_DECLINE;
	int small = cast_small_type(x->dtype) || cast_small_type((int32_t)to), rm = OV_E8M0_UP;
	if (small) {
		char mode[16];
		xk_attr_str(k, "round_mode", "up", mode, sizeof mode);
		if (!strcmp(mode, "down"))
			rm = OV_E8M0_DOWN;
		else if (!strcmp(mode, "nearest"))
			rm = OV_E8M0_NEAREST;
		else if (strcmp(mode, "up"))
			return EXEC_DECLINE; // the CPU names the mode
	}
	if (to == x->dtype)
		return copy_as(k, x, x->rank, x->dims);
	if (xk_output_raw(k, 0, (int32_t)to, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	const void *dx = cu_input(k, &bufs, 0);
	void *dy = dx ? cu_alloc(k, &bufs, y->bytes) : NULL;
	if (!dy ||
	    (small ? CU_LAUNCH(k, cast_small_kernel, cu_grid(y->numel), CU_BLOCK, dx, x->dtype, dy, y->dtype,
			       (int)(xk_attr_int(k, "saturate", 1) != 0), rm, y->numel)
		   : CU_LAUNCH(k, cast_kernel, cu_grid(y->numel), CU_BLOCK, dx, x->dtype, dy, y->dtype, y->numel)) ||
	    cu_output(k, &bufs, 0, dy))
		goto out;
	rc = 0;
out:
	cu_bufs_free(&bufs);
	return rc;
}

// Cast-1's type names (a string 'to', read as -1 here) are declined.
static int k_cast(struct exec_kernel_ctx *k)
{
	return cast_to(k, xk_attr_int(k, "to", -1));
}

// To the type of input 1, whose elements are never read.
static int k_cast_like(struct exec_kernel_ctx *k)
{
	const struct xtensor *t = xk_in(k, 1);
	return t ? cast_to(k, t->dtype) : EXEC_DECLINE;
}

// ---- Dropout, in inference ----

static __global__ void ones_kernel(void *y, int dt, int64_t n)
{
	const uint8_t one = 1;
	CU_FOR(i, n)
	cu_convert(&one, OV_DT_BOOL, 0, y, dt, i);
}

// As the CPU runs it: the output is the input, the optional mask all true (bool from opset 10, x's type before);
// ratio is not read.  Training mode (opset 12's training_mode input, true) is declined: the CPU refuses it, or
// with ratio 0 copies.
static int k_dropout(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = movable_x(k);
	struct cu_bufs bufs = {};
	int rc = -1;

	if (!x)
		return EXEC_DECLINE;
	if (k->opset >= 12 && xk_in(k, 2)) {
		const struct xtensor *train = cu_host(k, 2);
		if (!train)
			return -1;
		if (train->numel && xt_get(train, 0) != 0)
			return EXEC_DECLINE;
	}
	int32_t mdt = k->opset >= 10 ? OV_DT_BOOL : x->dtype;
	if (k->n_out > 1 && !cu_cast_type(mdt))
		return EXEC_DECLINE;
	if (copy_as(k, x, x->rank, x->dims))
		return -1;
	if (k->n_out < 2)
		return 0;
	if (xk_output_raw(k, 1, mdt, x->rank, x->dims))
		return -1;
	struct xtensor *m = k->out[1];
	if (!m->numel)
		return 0;
	void *dm = cu_alloc(k, &bufs, m->bytes);
	if (dm && !CU_LAUNCH(k, ones_kernel, cu_grid(m->numel), CU_BLOCK, dm, m->dtype, m->numel) &&
	    !cu_output(k, &bufs, 1, dm))
		rc = 0;
	cu_bufs_free(&bufs);
	return rc;
}

// ---- Shape, Size: from the dims alone, written on the host (the input's elements are never copied) ----

// The backend-neutral kernels (src/exec/ops/dims.c): the input stays where it is, only its dims are read.
static int k_shape(struct exec_kernel_ctx *k)
{
	return xk_in(k, 0) ? ops_shape_kernel(k) : EXEC_DECLINE;
}

static int k_size(struct exec_kernel_ctx *k)
{
	return xk_in(k, 0) ? ops_size_kernel(k) : EXEC_DECLINE;
}

// The rows after the first mark the opsets where an op's inputs or attributes changed; each kernel reads
// k->opset itself.  Concat from 4 (Concat-1's axis has another default), Tile from 6 (Tile-1 had other inputs).
const struct exec_kernel cuda_shape_kernels[] = {
	{.op = "Cast", .since = 1, .fn = k_cast},
	{.op = "CastLike", .since = 15, .fn = k_cast_like},
	{.op = "CenterCropPad", .since = 18, .fn = k_center_crop_pad},
	{.op = "Concat", .since = 4, .fn = k_concat},
	{.op = "Dropout", .since = 1, .fn = k_dropout},
	{.op = "Expand", .since = 8, .fn = k_expand},
	{.op = "Flatten", .since = 1, .fn = k_flatten},
	{.op = "Gather", .since = 1, .fn = k_gather},
	{.op = "Identity", .since = 1, .fn = k_identity},
	{.op = "Pad", .since = 1, .fn = k_pad},
	{.op = "Pad", .since = 2, .fn = k_pad},
	{.op = "Pad", .since = 11, .fn = k_pad},
	{.op = "Reshape", .since = 1, .fn = k_reshape},
	{.op = "Reshape", .since = 5, .fn = k_reshape},
	{.op = "Shape", .since = 1, .fn = k_shape},
	{.op = "Size", .since = 1, .fn = k_size},
	{.op = "Slice", .since = 1, .fn = k_slice},
	{.op = "Slice", .since = 10, .fn = k_slice},
	{.op = "Split", .since = 1, .fn = k_split},
	{.op = "Split", .since = 13, .fn = k_split},
	{.op = "Split", .since = 18, .fn = k_split},
	{.op = "Squeeze", .since = 1, .fn = k_squeeze},
	{.op = "Squeeze", .since = 13, .fn = k_squeeze},
	{.op = "Tile", .since = 6, .fn = k_tile},
	{.op = "Transpose", .since = 1, .fn = k_transpose},
	{.op = "Unsqueeze", .since = 1, .fn = k_unsqueeze},
	{.op = "Unsqueeze", .since = 13, .fn = k_unsqueeze},
	{.op = "Where", .since = 9, .fn = k_where},
};
const size_t cuda_shape_count = sizeof cuda_shape_kernels / sizeof cuda_shape_kernels[0];
