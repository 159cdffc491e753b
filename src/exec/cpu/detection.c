/* CPU detection kernels: NonMaxSuppression, RoiAlign, MaxRoiPool.
 *
 * NonMaxSuppression and RoiAlign follow the ONNX reference implementation (itself a transcription of
 * onnxruntime's) step by step, including its float arithmetic for box overlaps and its order of ties, since a
 * detection model's output changes with either. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "src/exec/exec.h"
#include "src/exec/ops/index.h"

#define MAXR XT_MAX_RANK
#define PI 3.14159265358979323846

/* ---- NonMaxSuppression ---------------------------------------------------------------------------------------- */

struct cand {
	float score;
	int64_t box;
};

/* Highest score first; equal scores: lower box index first (the reference's BoxInfo order). */
static int cmp_cand(const void *p, const void *q)
{
	const struct cand *a = p, *b = q;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return (a->box > b->box) - (a->box < b->box);
}

static void min_max(float a, float b, float *lo, float *hi)
{
	if (a >= b) {
		*lo = b;
		*hi = a;
	} else {
		*lo = a;
		*hi = b;
	}
}

/* The reference's suppress_by_iou, in float. */
static int suppress_by_iou(const float *b1, const float *b2, int center, float iou_threshold)
{
	float x1_min, x1_max, x2_min, x2_max, y1_min, y1_max, y2_min, y2_max;
	float ix_min, ix_max, iy_min, iy_max;

	if (!center) {
		min_max(b1[1], b1[3], &x1_min, &x1_max);
		min_max(b2[1], b2[3], &x2_min, &x2_max);
		min_max(b1[0], b1[2], &y1_min, &y1_max);
		min_max(b2[0], b2[2], &y2_min, &y2_max);
	} else {
		float w1 = b1[2] / 2, h1 = b1[3] / 2, w2 = b2[2] / 2, h2 = b2[3] / 2;
		x1_min = b1[0] - w1;
		x1_max = b1[0] + w1;
		x2_min = b2[0] - w2;
		x2_max = b2[0] + w2;
		y1_min = b1[1] - h1;
		y1_max = b1[1] + h1;
		y2_min = b2[1] - h2;
		y2_max = b2[1] + h2;
	}
	ix_min = x1_min > x2_min ? x1_min : x2_min;
	ix_max = x1_max < x2_max ? x1_max : x2_max;
	if (ix_max <= ix_min)
		return 0;
	iy_min = y1_min > y2_min ? y1_min : y2_min;
	iy_max = y1_max < y2_max ? y1_max : y2_max;
	if (iy_max <= iy_min)
		return 0;
	float inter = (ix_max - ix_min) * (iy_max - iy_min);
	if (inter <= 0)
		return 0;
	float area1 = (x1_max - x1_min) * (y1_max - y1_min), area2 = (x2_max - x2_min) * (y2_max - y2_min);
	float uni = area1 + area2 - inter;
	if (area1 <= 0 || area2 <= 0 || uni <= 0)
		return 0;
	return inter / uni > iou_threshold;
}

static int k_nms(struct exec_kernel_ctx *k)
{
	const struct xtensor *boxes = xk_in(k, 0), *scores = xk_in(k, 1), *mo = xk_in(k, 2), *iou = xk_in(k, 3),
			     *st = xk_in(k, 4);
	int center = (int)xk_attr_int(k, "center_point_box", 0);
	int rc = -1;

	if (!boxes || !scores)
		return xk_fail(k, "boxes and scores are required");
	if (boxes->dtype != OV_DT_FLOAT || scores->dtype != OV_DT_FLOAT)
		return xk_fail(k, "boxes and scores must be float32");
	if (boxes->rank != 3 || boxes->dims[2] != 4)
		return xk_fail(k, "boxes must be [batches, boxes, 4]");
	if (scores->rank != 3 || scores->dims[0] != boxes->dims[0] || scores->dims[2] != boxes->dims[1])
		return xk_fail(k, "scores must be [batches, classes, boxes] matching boxes");
	if (center != 0 && center != 1)
		return xk_fail(k, "center_point_box must be 0 or 1, not %d", center);
	int64_t max_out = mo && mo->numel ? xt_get_int(mo, 0) : 0;
	float iou_t = iou && iou->numel ? (float)xt_get(iou, 0) : 0;
	int has_st = st && st->numel;
	float score_t = has_st ? (float)xt_get(st, 0) : 0;
	if (max_out < 0)
		max_out = 0;
	int64_t nb = boxes->dims[0], nc = scores->dims[1], nbox = boxes->dims[1];
	int64_t per_class = max_out < nbox ? max_out : nbox;
	struct cand *cand = malloc((size_t)(nbox ? nbox : 1) * sizeof *cand);
	int64_t *sel = malloc((size_t)(per_class ? per_class : 1) * sizeof *sel);
	/* at most per_class per (batch, class): the selection is gathered here first */
	int64_t cap = 0, n = 0, *out = NULL;
	if (!cand || !sel) {
		xk_fail(k, "out of memory");
		goto done;
	}
	for (int64_t b = 0; b < nb && max_out > 0; b++)
		for (int64_t c = 0; c < nc; c++) {
			const float *sc = (const float *)scores->data + (b * nc + c) * nbox;
			const float *bx = (const float *)boxes->data + b * nbox * 4;
			int64_t m = 0, ns = 0;
			for (int64_t i = 0; i < nbox; i++)
				if (!has_st || sc[i] > score_t) {
					cand[m].score = sc[i];
					cand[m].box = i;
					m++;
				}
			qsort(cand, (size_t)m, sizeof *cand, cmp_cand);
			for (int64_t i = 0; i < m && ns < max_out; i++) {
				int keep = 1;
				for (int64_t j = 0; j < ns && keep; j++)
					if (suppress_by_iou(bx + cand[i].box * 4, bx + sel[j] * 4, center, iou_t))
						keep = 0;
				if (!keep)
					continue;
				sel[ns++] = cand[i].box;
				if (n == cap) {
					int64_t nc2 = cap ? cap * 2 : 64;
					int64_t *o2 = realloc(out, (size_t)nc2 * 3 * sizeof *o2);
					if (!o2) {
						xk_fail(k, "out of memory");
						goto done;
					}
					out = o2;
					cap = nc2;
				}
				out[n * 3] = b;
				out[n * 3 + 1] = c;
				out[n * 3 + 2] = cand[i].box;
				n++;
			}
		}
	int64_t d[2] = {n, 3};
	if (xk_output(k, 0, OV_DT_INT64, 2, d))
		goto done;
	if (n)
		memcpy(k->out[0]->data, out, (size_t)n * 3 * sizeof *out);
	rc = 0;
done:
	free(cand);
	free(sel);
	free(out);
	return rc;
}

/* ---- RoiAlign ------------------------------------------------------------------------------------------------- */

struct precalc {
	int64_t pos[4];
	double w[4];
};

static int k_roi_align(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0), *rois = xk_in(k, 1), *bi = xk_in(k, 2);
	char mode[16], ctm[32];
	int rc = -1;

	if (!x || !rois || !bi)
		return xk_fail(k, "X, rois and batch_indices are all required");
	if (x->dtype != OV_DT_FLOAT && x->dtype != OV_DT_DOUBLE && x->dtype != OV_DT_FLOAT16 && x->dtype != OV_DT_BFLOAT16)
		return xk_fail(k, "RoiAlign on %s is not supported", dtype_name(x->dtype));
	if (x->rank != 4)
		return xk_fail(k, "X must be [N, C, H, W], got rank %d", x->rank);
	if (rois->rank != 2 || rois->dims[1] != 4)
		return xk_fail(k, "rois must be [num_rois, 4]");
	if (bi->rank != 1 || bi->dims[0] != rois->dims[0])
		return xk_fail(k, "batch_indices must have one entry per roi");
	xk_attr_str(k, "mode", "avg", mode, sizeof mode);
	/* opset 10 had no attribute and behaved as output_half_pixel */
	xk_attr_str(k, "coordinate_transformation_mode", k->opset >= 16 ? "half_pixel" : "output_half_pixel", ctm,
		    sizeof ctm);
	int is_max = !strcmp(mode, "max");
	if (!is_max && strcmp(mode, "avg"))
		return xk_fail(k, "unknown mode '%s'", mode);
	int half_pixel = !strcmp(ctm, "half_pixel");
	if (!half_pixel && strcmp(ctm, "output_half_pixel"))
		return xk_fail(k, "unknown coordinate_transformation_mode '%s'", ctm);
	int64_t ph = xk_attr_int(k, "output_height", 1), pw = xk_attr_int(k, "output_width", 1);
	int64_t sr = xk_attr_int(k, "sampling_ratio", 0);
	double scale = xk_attr_float(k, "spatial_scale", 1.0f);
	if (ph < 1 || pw < 1)
		return xk_fail(k, "output_height and output_width must be positive");
	int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3], R = rois->dims[0];
	int64_t d[4] = {R, C, ph, pw};
	if (xk_output(k, 0, x->dtype, 4, d))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	if (H == 0 || W == 0)
		return xk_fail(k, "X has an empty feature map");
	struct precalc *pc = NULL;
	double *plane = malloc((size_t)(H * W) * sizeof *plane);
	if (!plane)
		return xk_fail(k, "out of memory");
	for (int64_t n = 0; n < R; n++) {
		int64_t b = xt_get_int(bi, n);
		if (b < 0 || b >= N) {
			xk_fail(k, "batch_indices[%" PRId64 "] = %" PRId64 " is out of range for %" PRId64 " images", n, b, N);
			goto done;
		}
		double off = half_pixel ? 0.5 : 0.0;
		double sw = xt_get(rois, n * 4) * scale - off, sh = xt_get(rois, n * 4 + 1) * scale - off;
		double ew = xt_get(rois, n * 4 + 2) * scale - off, eh = xt_get(rois, n * 4 + 3) * scale - off;
		double rw = ew - sw, rh = eh - sh;
		if (!half_pixel) { /* malformed rois forced to 1x1 */
			rw = rw > 1 ? rw : 1;
			rh = rh > 1 ? rh : 1;
		}
		if (!isfinite(rw) || !isfinite(rh) || !isfinite(sw) || !isfinite(sh)) {
			xk_fail(k, "roi %" PRId64 " is not finite", n);
			goto done;
		}
		double bh = rh / (double)ph, bw = rw / (double)pw;
		double gh_d = sr > 0 ? (double)sr : ceil(rh / (double)ph), gw_d = sr > 0 ? (double)sr : ceil(rw / (double)pw);
		if (gh_d < 0)
			gh_d = 0;
		if (gw_d < 0)
			gw_d = 0;
		/* a sampling grid this large means a hostile roi or ratio, not a feature map */
		if (gh_d * gw_d * (double)ph * (double)pw > (double)(1 << 26)) {
			xk_fail(k, "roi %" PRId64 " needs a %gx%g sampling grid per bin, over the executor's limit", n, gh_d,
				gw_d);
			goto done;
		}
		int64_t gh = (int64_t)gh_d, gw = (int64_t)gw_d, count = gh * gw > 1 ? gh * gw : 1;
		int64_t npc = ph * pw * gh * gw;
		struct precalc *p2 = realloc(pc, (size_t)(npc ? npc : 1) * sizeof *pc);
		if (!p2) {
			xk_fail(k, "out of memory");
			goto done;
		}
		pc = p2;
		int64_t at = 0;
		for (int64_t py = 0; py < ph; py++)
			for (int64_t px = 0; px < pw; px++)
				for (int64_t iy = 0; iy < gh; iy++) {
					double yy = sh + (double)py * bh + ((double)iy + 0.5) * bh / (double)gh;
					for (int64_t ix = 0; ix < gw; ix++, at++) {
						double xx = sw + (double)px * bw + ((double)ix + 0.5) * bw / (double)gw;
						struct precalc *q = &pc[at];
						double yv = yy, xv = xx;
						memset(q, 0, sizeof *q);
						if (yv < -1.0 || yv > (double)H || xv < -1.0 || xv > (double)W)
							continue;
						if (yv <= 0)
							yv = 0;
						if (xv <= 0)
							xv = 0;
						int64_t yl = (int64_t)yv, xl = (int64_t)xv, yh, xh;
						if (yl >= H - 1) {
							yh = yl = H - 1;
							yv = (double)yl;
						} else
							yh = yl + 1;
						if (xl >= W - 1) {
							xh = xl = W - 1;
							xv = (double)xl;
						} else
							xh = xl + 1;
						double ly = yv - (double)yl, lx = xv - (double)xl, hy = 1 - ly, hx = 1 - lx;
						q->pos[0] = yl * W + xl;
						q->pos[1] = yl * W + xh;
						q->pos[2] = yh * W + xl;
						q->pos[3] = yh * W + xh;
						q->w[0] = hy * hx;
						q->w[1] = hy * lx;
						q->w[2] = ly * hx;
						q->w[3] = ly * lx;
					}
				}
		for (int64_t c = 0; c < C; c++) {
			int64_t base = (b * C + c) * H * W;
			if (x->dtype == OV_DT_FLOAT)
				for (int64_t i = 0; i < H * W; i++)
					plane[i] = ((const float *)x->data)[base + i];
			else
				for (int64_t i = 0; i < H * W; i++)
					plane[i] = xt_get(x, base + i);
			int64_t pi = 0;
			for (int64_t py = 0; py < ph; py++)
				for (int64_t px = 0; px < pw; px++) {
					double v = 0;
					if (!is_max) {
						for (int64_t s = 0; s < gh * gw; s++, pi++) {
							const struct precalc *q = &pc[pi];
							v += q->w[0] * plane[q->pos[0]] + q->w[1] * plane[q->pos[1]] +
							     q->w[2] * plane[q->pos[2]] + q->w[3] * plane[q->pos[3]];
						}
						v /= (double)count;
					} else {
						for (int64_t s = 0; s < gh * gw; s++, pi++) {
							const struct precalc *q = &pc[pi];
							double m = q->w[0] * plane[q->pos[0]];
							for (int t = 1; t < 4; t++) {
								double u = q->w[t] * plane[q->pos[t]];
								m = u > m ? u : m;
							}
							v = s == 0 || m > v ? m : v;
						}
					}
					xt_set(y, ((n * C + c) * ph + py) * pw + px, v);
				}
		}
	}
	rc = 0;
done:
	free(pc);
	free(plane);
	return rc;
}

/* ---- MaxRoiPool ---------------------------------------------------------------------------------------------------- */

/* Caffe's ROI pooling, as onnxruntime runs it: rois [R, 5] = (batch, x1, y1, x2, y2), rounded after scaling. */
static int k_max_roi_pool(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0), *rois = xk_in(k, 1);
	int64_t ps[2];
	double scale = xk_attr_float(k, "spatial_scale", 1.0f);

	if (!x || !rois)
		return xk_fail(k, "X and rois are required");
	if (x->dtype != OV_DT_FLOAT && x->dtype != OV_DT_DOUBLE && x->dtype != OV_DT_FLOAT16 && x->dtype != OV_DT_BFLOAT16)
		return xk_fail(k, "MaxRoiPool on %s is not supported", dtype_name(x->dtype));
	if (x->rank != 4 || rois->rank != 2 || rois->dims[1] != 5)
		return xk_fail(k, "X must be [N, C, H, W] and rois [R, 5]");
	if (xk_attr_ints(k, "pooled_shape", ps, 2) != 2 || ps[0] < 1 || ps[1] < 1)
		return xk_fail(k, "pooled_shape must be two positive values");
	int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3], R = rois->dims[0];
	int64_t d[4] = {R, C, ps[0], ps[1]};
	if (xk_output(k, 0, x->dtype, 4, d))
		return -1;
	for (int64_t r = 0; r < R; r++) {
		double rv[5];
		for (int i = 0; i < 5; i++)
			rv[i] = xt_get(rois, r * 5 + i);
		for (int i = 0; i < 5; i++)
			if (!isfinite(rv[i]) || fabs(rv[i] * (i ? scale : 1)) > 1e15)
				return xk_fail(k, "roi %" PRId64 " is not finite or absurd", r);
		int64_t b = (int64_t)rv[0];
		if (b < 0 || b >= N)
			return xk_fail(k, "roi %" PRId64 " names batch %" PRId64 " of %" PRId64, r, b, N);
		int64_t sw = (int64_t)round(rv[1] * scale), sh = (int64_t)round(rv[2] * scale);
		int64_t ew = (int64_t)round(rv[3] * scale), eh = (int64_t)round(rv[4] * scale);
		int64_t rh = eh - sh + 1 > 1 ? eh - sh + 1 : 1, rw = ew - sw + 1 > 1 ? ew - sw + 1 : 1;
		double bh = (double)rh / (double)ps[0], bw = (double)rw / (double)ps[1];
		for (int64_t c = 0; c < C; c++)
			for (int64_t ph = 0; ph < ps[0]; ph++)
				for (int64_t pw = 0; pw < ps[1]; pw++) {
					int64_t hs = (int64_t)floor((double)ph * bh) + sh, he = (int64_t)ceil((double)(ph + 1) * bh) + sh;
					int64_t ws = (int64_t)floor((double)pw * bw) + sw, we = (int64_t)ceil((double)(pw + 1) * bw) + sw;
					hs = hs < 0 ? 0 : hs > H ? H : hs;
					he = he < 0 ? 0 : he > H ? H : he;
					ws = ws < 0 ? 0 : ws > W ? W : ws;
					we = we < 0 ? 0 : we > W ? W : we;
					double m = 0;
					if (he > hs && we > ws) {
						m = -INFINITY;
						for (int64_t h = hs; h < he; h++)
							for (int64_t w = ws; w < we; w++)
								m = fmax(m, xt_get(x, ((b * C + c) * H + h) * W + w));
					}
					xt_set(k->out[0], ((r * C + c) * ps[0] + ph) * ps[1] + pw, m);
				}
	}
	return 0;
}

const struct exec_kernel cpu_detection_kernels[] = {
	{.op = "NonMaxSuppression", .since = 10, .fn = k_nms},
	{.op = "RoiAlign", .since = 10, .fn = k_roi_align},
	{.op = "MaxRoiPool", .since = 1, .fn = k_max_roi_pool},
};
const size_t cpu_detection_count = sizeof cpu_detection_kernels / sizeof cpu_detection_kernels[0];
