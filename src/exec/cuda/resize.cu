// Resize (opsets 10, 11, 13, 18, 19) and Upsample (7, 9) on the CUDA device: nearest, linear and cubic, every
// coordinate transformation and nearest mode, roi and extrapolation_value, antialias, exclude_outside, axes and
// keep_aspect_ratio_policy, at any rank, on float32, float16 and bfloat16 (computed in float32, as the CPU computes
// them); other element types are declined, so the CPU runs them.
//
// The node is planned on the host by src/exec/ops/resize-params.h, the CPU's own planner: output sizes and each axis's
// filter table.  The tables go to the device in one copy, and every output element is computed there as the CPU
// computes it: nearest gathers by the axes' index tables, linear and cubic run one pass per axis that changes, in
// the CPU's order, each output the tap sum of src/exec/ops/ov-resize.h, and tf_crop_and_resize's extrapolation is
// written last.  So the results are the CPU's, bit for bit.
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/exec/cuda/backend.h"
#include "src/exec/ops/resize-params.h"

// Where each axis's table lies in the device copy of the tables (by value in the launches that need every axis).
struct resize_dev {
	int rank;
	int64_t in[XT_MAX_RANK], out[XT_MAX_RANK];
	int64_t lo[XT_MAX_RANK];      // offset of the axis's lo[] in the index tables; -1: an identity axis
	int64_t outside[XT_MAX_RANK]; // offset of its outside[] flags; -1: it never extrapolates
};

// Nearest: output t reads input lo[o] along each axis (o itself along an identity axis).  Also the plain copy of a
// linear or cubic resize whose axes are all identities, as the CPU's is.
static __global__ void nearest_kernel(struct resize_dev g, const int64_t *lo, const float *x, float *y, int64_t total)
{
	CU_FOR(t, total)
	{
		int64_t rem = t, off = 0, stride = 1;
		for (int a = g.rank - 1; a >= 0; a--) {
			int64_t o = rem % g.out[a];
			rem /= g.out[a];
			off += (g.lo[a] < 0 ? o : lo[g.lo[a] + o]) * stride;
			stride *= g.in[a];
		}
		y[t] = x[off];
	}
}

// One separable pass along an axis: x (outer, in, inner) -> y (outer, out, inner), output o of the axis reading
// inputs lo[o] ... with the weights w[woff[o]] ... (ov_resize_tap_sum_f, as the CPU's pass does).
static __global__ void pass_kernel(const float *x, float *y, int64_t in, int64_t out, int64_t inner, const int64_t *lo,
				   const int64_t *n, const int64_t *woff, const double *w, int64_t total)
{
	CU_FOR(t, total)
	{
		int64_t i = t % inner, o = t / inner % out, ou = t / inner / out;
		y[t] = ov_resize_tap_sum_f(x + (ou * in + lo[o]) * inner + i, inner, w + woff[o], n[o]);
	}
}

// tf_crop_and_resize: an output whose coordinate falls outside the input along some axis is the extrapolation
// value.
static __global__ void extrapolate_kernel(struct resize_dev g, const unsigned char *outside, float v, float *y,
					  int64_t total)
{
	CU_FOR(t, total)
	{
		int64_t rem = t;
		for (int a = g.rank - 1; a >= 0; a--) {
			int64_t o = rem % g.out[a];
			rem /= g.out[a];
			if (g.outside[a] >= 0 && outside[g.outside[a] + o]) {
				y[t] = v;
				break;
			}
		}
	}
}

// The device copy of the axes' tables: one allocation holding every non-identity axis's lo[], n[] and woff[]
// (int64), then the weights (double), then the outside[] flags when the node extrapolates; g says where.  Filled
// on the host and copied in one transfer, which the run's report counts like the backend's other copies.
struct resize_tables {
	const int64_t *ti;
	const double *tw;
	const unsigned char *to;
	int64_t wbase[XT_MAX_RANK]; // where each axis's weights start in tw
	int extrapolates;           // some axis has outside[] flags
};

static int tables_upload(struct exec_kernel_ctx *k, struct cu_bufs *bufs, const struct resize_params *p,
			 const struct resize_axis *axes, struct resize_dev *g, struct resize_tables *tb)
{
	int crop = p->coord == OV_RC_TF_CROP_AND_RESIZE;
	int64_t ni = 0, nw = 0, no = 0;

	memset(g, 0, sizeof *g);
	memset(tb, 0, sizeof *tb);
	g->rank = p->rank;
	for (int a = 0; a < p->rank; a++) {
		g->in[a] = p->in[a];
		g->out[a] = p->out[a];
		g->lo[a] = g->outside[a] = -1;
		if (axes[a].identity)
			continue;
		g->lo[a] = ni;
		ni += 3 * p->out[a];
		tb->wbase[a] = nw;
		nw += axes[a].nw;
		if (crop && axes[a].any_outside) {
			g->outside[a] = no;
			no += p->out[a];
		}
	}
	size_t bytes = (size_t)(ni + nw) * 8 + (size_t)no;
	if (!bytes)
		return 0; // every axis an identity, nothing to extrapolate: no tables
	char *h = (char *)malloc(bytes), *d = (char *)cu_alloc(k, bufs, bytes);
	if (!h || !d) {
		free(h);
		return h ? -1 : xk_fail(k, "out of memory for the resize tables");
	}
	int64_t *hi = (int64_t *)h;
	double *hw = (double *)(h + (size_t)ni * 8);
	unsigned char *ho = (unsigned char *)(h + (size_t)(ni + nw) * 8);
	for (int a = 0; a < p->rank; a++) {
		const struct resize_axis *ax = &axes[a];
		size_t out = (size_t)p->out[a];
		if (g->lo[a] < 0)
			continue;
		memcpy(hi + g->lo[a], ax->lo, out * sizeof *hi);
		memcpy(hi + g->lo[a] + out, ax->n, out * sizeof *hi);
		memcpy(hi + g->lo[a] + 2 * out, ax->woff, out * sizeof *hi);
		memcpy(hw + tb->wbase[a], ax->w, (size_t)ax->nw * sizeof *hw);
		if (g->outside[a] >= 0)
			memcpy(ho + g->outside[a], ax->outside, out);
	}
	int rc = cu_upload(k, d, h, bytes);
	free(h);
	if (rc)
		return -1;
	tb->ti = (const int64_t *)d;
	tb->tw = (const double *)(d + (size_t)ni * 8);
	tb->to = (const unsigned char *)(d + (size_t)(ni + nw) * 8);
	tb->extrapolates = no > 0;
	return 0;
}

// Linear and cubic: one pass per axis that changes, in axis order like the CPU, ping-ponging between two scratch
// buffers and writing the last pass into dy.
static int filter_passes(struct exec_kernel_ctx *k, struct cu_bufs *bufs, const struct resize_params *p,
			 const struct resize_axis *axes, const struct resize_dev *g, const struct resize_tables *tb,
			 const float *dx, float *dy, int npass)
{
	int64_t dims[XT_MAX_RANK], biggest = 0;
	float *scratch[2] = {NULL, NULL};
	const float *src = dx;

	// the largest intermediate: every pass's output but the last
	memcpy(dims, p->in, sizeof dims);
	for (int a = 0, j = 0; a < p->rank && j < npass - 1; a++) {
		if (axes[a].identity)
			continue;
		dims[a] = p->out[a];
		j++;
		int64_t n = xk_numel(p->rank, dims);
		biggest = n > biggest ? n : biggest;
	}
	for (int s = 0; s < 2 && s < npass - 1; s++)
		if (!(scratch[s] = (float *)cu_alloc(k, bufs, (size_t)biggest * sizeof(float))))
			return -1;
	memcpy(dims, p->in, sizeof dims);
	for (int a = 0, j = 0; a < p->rank; a++) {
		if (axes[a].identity)
			continue;
		int64_t outer = 1, inner = 1, out = p->out[a];
		for (int i = 0; i < a; i++)
			outer *= dims[i];
		for (int i = a + 1; i < p->rank; i++)
			inner *= dims[i];
		int64_t n = outer * out * inner;
		float *dst = j == npass - 1 ? dy : scratch[j % 2];
		const int64_t *lo = tb->ti + g->lo[a];
		if (n && CU_LAUNCH(k, pass_kernel, cu_grid(n), CU_BLOCK, src, dst, dims[a], out, inner, lo, lo + out,
				   lo + 2 * out, tb->tw + tb->wbase[a], n))
			return -1;
		src = dst;
		dims[a] = out;
		j++;
	}
	return 0;
}

static int resize_cuda(struct exec_kernel_ctx *k, int upsample)
{
	const struct xtensor *x = k->n_in ? k->in[0] : NULL;
	struct resize_params p;
	struct resize_axis axes[XT_MAX_RANK];
	struct resize_dev g;
	struct resize_tables tb;
	struct cu_bufs bufs = {};
	int rc = -1;

	// integer and bool tensors, which the CPU resizes in their own types, are the CPU's
	if (!x || !cu_float_type(x->dtype))
		return EXEC_DECLINE;
	if (resize_plan_read(k, upsample, cu_host, &p))
		return -1; // the planner's own message, as the CPU gives it
	memset(axes, 0, sizeof axes);
	if (xk_output_raw(k, 0, x->dtype, x->rank, p.out))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	int npass = 0;
	for (int a = 0; a < p.rank; a++) {
		if (resize_plan_axis(k, &p, a, &axes[a]))
			goto out;
		npass += !axes[a].identity;
	}
	if (tables_upload(k, &bufs, &p, axes, &g, &tb))
		goto out;
	{
		const float *dx = cu_input_f32(k, &bufs, 0);
		float *dy = dx ? (float *)cu_alloc(k, &bufs, (size_t)y->numel * sizeof(float)) : NULL;
		if (!dy)
			goto out;
		if (p.mode == OV_RM_NEAREST || !npass) {
			if (CU_LAUNCH(k, nearest_kernel, cu_grid(y->numel), CU_BLOCK, g, tb.ti, dx, dy, y->numel))
				goto out;
		} else if (filter_passes(k, &bufs, &p, axes, &g, &tb, dx, dy, npass)) {
			goto out;
		}
		if (tb.extrapolates &&
		    CU_LAUNCH(k, extrapolate_kernel, cu_grid(y->numel), CU_BLOCK, g, tb.to, (float)p.extrapolation, dy,
			      y->numel))
			goto out;
		if (cu_output_f32(k, &bufs, 0, dy))
			goto out;
	}
	rc = 0;
out:
	for (int a = 0; a < p.rank; a++)
		resize_axis_free(&axes[a]);
	cu_bufs_free(&bufs);
	return rc;
}

static int k_resize(struct exec_kernel_ctx *k)
{
	return resize_cuda(k, 0);
}

static int k_upsample(struct exec_kernel_ctx *k)
{
	return resize_cuda(k, 1);
}

const struct exec_kernel cuda_resize_kernels[] = {
	{.op = "Resize", .since = 10, .fn = k_resize},
	{.op = "Upsample", .since = 7, .fn = k_upsample},
};
const size_t cuda_resize_count = sizeof cuda_resize_kernels / sizeof cuda_resize_kernels[0];
