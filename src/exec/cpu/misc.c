/* CPU kernels for detection and the ops no other family takes: NonMaxSuppression, RoiAlign, EyeLike,
 * ReverseSequence, QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MeanVarianceNormalization, Det, the
 * Hann/Hamming/Blackman windows, NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss, RNN, GRU, LSTM, DFT, STFT,
 * MelWeightMatrix, StringNormalizer, TfIdfVectorizer, MaxRoiPool, RandomUniform(Like), RandomNormal(Like), Bernoulli.
 *
 * NonMaxSuppression and RoiAlign follow the ONNX reference implementation (itself a transcription of
 * onnxruntime's) step by step, including its float arithmetic for box overlaps and its order of ties, since a
 * detection model's output changes with either. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/ops/ops.h"
#include "src/exec/exec.h"
#include "src/exec/ops/ov-quant.h"
#include "src/exec/ops/index.h"

#define MAXR XT_MAX_RANK
#define PI 3.14159265358979323846

static const struct xtensor *input(const struct exec_kernel_ctx *k, size_t i)
{
	return i < k->n_in ? k->in[i] : NULL;
}

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
	const struct xtensor *boxes = input(k, 0), *scores = input(k, 1), *mo = input(k, 2), *iou = input(k, 3),
			     *st = input(k, 4);
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
	const struct xtensor *x = input(k, 0), *rois = input(k, 1), *bi = input(k, 2);
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

/* ---- EyeLike, ReverseSequence ------------------------------------------------------------------------------------ */

static int k_eye_like(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = input(k, 0);
	int64_t kk = xk_attr_int(k, "k", 0);
	int32_t dt;

	if (cpu_eye_like_setup(k, &dt) || xk_output(k, 0, dt, 2, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	int64_t rows = x->dims[0], cols = x->dims[1];
	if (kk >= cols || kk <= -rows) /* the diagonal misses the matrix (and i + k could overflow) */
		return 0;
	for (int64_t i = 0; i < rows; i++) {
		int64_t j = i + kk;
		if (j >= 0 && j < cols)
			xt_set(y, i * cols + j, 1);
	}
	return 0;
}

static int k_reverse_sequence(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = input(k, 0), *sl = input(k, 1);
	int64_t B, T;
	int ba;

	if (cpu_reverse_sequence_setup(k, cpu_host_input, &ba, &B, &T) || xk_output(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	size_t es = xt_elem_size(x->dtype);
	int64_t inner = 1;
	for (int a = 2; a < x->rank; a++)
		inner *= x->dims[a];
	size_t blk = (size_t)inner * es;
	for (int64_t b = 0; b < B && y->numel; b++) {
		int64_t L = xt_get_int(sl, b);
		for (int64_t t = 0; t < T; t++) {
			int64_t src_t = t < L ? L - 1 - t : t;
			int64_t oi = ba == 0 ? b * T + t : t * B + b, si = ba == 0 ? b * T + src_t : src_t * B + b;
			memcpy((char *)y->data + (size_t)oi * blk, (const char *)x->data + (size_t)si * blk, blk);
		}
	}
	return xk_own_strings(k, y);
}

/* ---- QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear ------------------------------------------------- */

static int k_quantize_linear(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = input(k, 0), *scale = input(k, 1), *zp = input(k, 2);
	struct ov_qparams q;
	double lo, hi;

	if (!x || !scale)
		return xk_fail(k, "x and y_scale are required");
	if (zp && !zp->numel)
		zp = NULL;
	int32_t dt = zp ? zp->dtype : (int32_t)xk_attr_int(k, "output_dtype", OV_DT_UINT8);
	if (!dt)
		dt = OV_DT_UINT8;
	if (ov_quant_range(dt, &lo, &hi))
		return xk_fail(k, "quantizing to %s is not supported (uint8, int8, uint16, int16 are)", dtype_name(dt));
	if (cpu_quant_setup(k, x, scale, zp, &q) || xk_output(k, 0, dt, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	int single = x->dtype == OV_DT_FLOAT || x->dtype == OV_DT_FLOAT16 || x->dtype == OV_DT_BFLOAT16;
	for (int64_t i = 0; i < x->numel; i++) {
		int64_t p = ov_qparam_index(&q, i);
		xt_set(y, i, ov_quantize(xt_get(x, i), xt_get(scale, p), single, zp != NULL, zp ? xt_get_int(zp, p) : 0,
					 lo, hi));
	}
	return 0;
}

static int k_dequantize_linear(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = input(k, 0), *scale = input(k, 1), *zp = input(k, 2);
	struct ov_qparams q;

	if (!x || !scale)
		return xk_fail(k, "x and x_scale are required");
	if (zp && !zp->numel)
		zp = NULL;
	if (x->dtype != OV_DT_UINT8 && x->dtype != OV_DT_INT8 && x->dtype != OV_DT_UINT16 && x->dtype != OV_DT_INT16 &&
	    x->dtype != OV_DT_INT32)
		return xk_fail(k, "dequantizing %s is not supported", dtype_name(x->dtype));
	if (zp && zp->dtype != x->dtype)
		return xk_fail(k, "the zero point is %s, x is %s", dtype_name(zp->dtype), dtype_name(x->dtype));
	int32_t dt = (int32_t)xk_attr_int(k, "output_dtype", 0);
	if (!dt)
		dt = scale->dtype;
	if (dt != OV_DT_FLOAT && dt != OV_DT_FLOAT16 && dt != OV_DT_BFLOAT16 && dt != OV_DT_DOUBLE)
		return xk_fail(k, "dequantizing to %s is not supported", dtype_name(dt));
	if (cpu_quant_setup(k, x, scale, zp, &q) || xk_output(k, 0, dt, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	for (int64_t i = 0; i < x->numel; i++) {
		int64_t p = ov_qparam_index(&q, i);
		xt_set(y, i, ov_dequantize(xt_get_int(x, i), zp != NULL, zp ? xt_get_int(zp, p) : 0, xt_get(scale, p)));
	}
	return 0;
}

static int k_dynamic_quantize_linear(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = input(k, 0);

	if (!x)
		return xk_fail(k, "input 0 is missing");
	if (x->dtype != OV_DT_FLOAT)
		return xk_fail(k, "DynamicQuantizeLinear takes float32, not %s", dtype_name(x->dtype));
	if (k->n_out < 3)
		return xk_fail(k, "DynamicQuantizeLinear needs its three outputs");
	const float *xv = x->data;
	float mx = 0, mn = 0;
	for (int64_t i = 0; i < x->numel; i++) {
		if (xv[i] != xv[i])
			return xk_fail(k, "x holds NaN at %" PRId64 ", which has no quantization range", i);
		mx = xv[i] > mx ? xv[i] : mx;
		mn = xv[i] < mn ? xv[i] : mn;
	}
	float sc, zp;
	ov_dynq_params(mn, mx, &sc, &zp);
	if (xk_output(k, 0, OV_DT_UINT8, x->rank, x->dims) || xk_output(k, 1, OV_DT_FLOAT, 0, NULL) ||
	    xk_output(k, 2, OV_DT_UINT8, 0, NULL))
		return -1;
	uint8_t *y = k->out[0]->data;
	for (int64_t i = 0; i < x->numel; i++)
		y[i] = ov_dynq_value(xv[i], sc, zp);
	*(float *)k->out[1]->data = sc;
	*(uint8_t *)k->out[2]->data = (uint8_t)zp;
	return 0;
}

/* ---- MeanVarianceNormalization, Det ------------------------------------------------------------------------------ */

static int k_mvn(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = input(k, 0);
	int64_t axes[MAXR] = {0, 2, 3}, gstride[MAXR], xs[MAXR];
	int red[MAXR] = {0}, rc = -1;

	if (!x)
		return xk_fail(k, "input 0 is missing");
	if (x->dtype != OV_DT_FLOAT && x->dtype != OV_DT_DOUBLE && x->dtype != OV_DT_FLOAT16 && x->dtype != OV_DT_BFLOAT16)
		return xk_fail(k, "MeanVarianceNormalization on %s is not supported", dtype_name(x->dtype));
	int64_t na = xk_attr_ints(k, "axes", axes, MAXR);
	if (na < 0)
		na = 3;
	if (na > MAXR)
		return xk_fail(k, "%" PRId64 " axes, more than %d", na, MAXR);
	for (int64_t i = 0; i < na; i++) {
		int64_t a = axes[i] < 0 ? axes[i] + x->rank : axes[i];
		if (a < 0 || a >= x->rank)
			return xk_fail(k, "axis %" PRId64 " is out of range for rank %d", axes[i], x->rank);
		red[a] = 1;
	}
	/* group index of an element: its index over the axes not normalized */
	int64_t ng = 1;
	for (int a = x->rank - 1; a >= 0; a--) {
		gstride[a] = red[a] ? 0 : ng;
		if (!red[a])
			ng *= x->dims[a];
	}
	int64_t acc = 1;
	for (int a = x->rank - 1; a >= 0; a--) {
		xs[a] = acc;
		acc *= x->dims[a];
	}
	if (xk_output(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	if (!y->numel)
		return 0;
	double *sum = calloc((size_t)ng, sizeof *sum), *sq = calloc((size_t)ng, sizeof *sq);
	int64_t *cnt = calloc((size_t)ng, sizeof *cnt), *gi = malloc((size_t)x->numel * sizeof *gi);
	if (!sum || !sq || !cnt || !gi) {
		xk_fail(k, "out of memory");
		goto out;
	}
	for (int64_t i = 0; i < x->numel; i++) {
		int64_t g = 0;
		for (int a = 0; a < x->rank; a++)
			g += (i / xs[a] % x->dims[a]) * gstride[a];
		gi[i] = g;
		double v = xt_get(x, i);
		sum[g] += v;
		sq[g] += v * v;
		cnt[g]++;
	}
	for (int64_t i = 0; i < x->numel; i++) {
		int64_t g = gi[i];
		double mean = sum[g] / (double)cnt[g], var = sq[g] / (double)cnt[g] - mean * mean;
		/* the op's function body: (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9) */
		xt_set(y, i, (xt_get(x, i) - mean) / (sqrt(var > 0 ? var : 0) + 1e-9));
	}
	rc = 0;
out:
	free(sum);
	free(sq);
	free(cnt);
	free(gi);
	return rc;
}

static int k_det(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = input(k, 0);

	if (!x)
		return xk_fail(k, "input 0 is missing");
	if (x->dtype != OV_DT_FLOAT && x->dtype != OV_DT_DOUBLE && x->dtype != OV_DT_FLOAT16 && x->dtype != OV_DT_BFLOAT16)
		return xk_fail(k, "Det on %s is not supported", dtype_name(x->dtype));
	if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2])
		return xk_fail(k, "Det needs square matrices [..., M, M]");
	int64_t m = x->dims[x->rank - 1];
	if (m > 4096)
		return xk_fail(k, "Det of %" PRId64 "x%" PRId64 " matrices is over the executor's limit", m, m);
	if (xk_output(k, 0, x->dtype, x->rank - 2, x->dims))
		return -1;
	struct xtensor *y = k->out[0];
	double *a = malloc((size_t)(m ? m * m : 1) * sizeof *a);
	if (!a)
		return xk_fail(k, "out of memory");
	for (int64_t b = 0; b < y->numel; b++) {
		for (int64_t i = 0; i < m * m; i++)
			a[i] = xt_get(x, b * m * m + i);
		/* LU with partial pivoting */
		double det = 1;
		for (int64_t c = 0; c < m && det != 0; c++) {
			int64_t p = c;
			for (int64_t r = c + 1; r < m; r++)
				if (fabs(a[r * m + c]) > fabs(a[p * m + c]))
					p = r;
			if (a[p * m + c] == 0) {
				det = 0;
				break;
			}
			if (p != c) {
				for (int64_t j = 0; j < m; j++) {
					double t = a[c * m + j];
					a[c * m + j] = a[p * m + j];
					a[p * m + j] = t;
				}
				det = -det;
			}
			det *= a[c * m + c];
			for (int64_t r = c + 1; r < m; r++) {
				double f = a[r * m + c] / a[c * m + c];
				for (int64_t j = c; j < m; j++)
					a[r * m + j] -= f * a[c * m + j];
			}
		}
		xt_set(y, b, det);
	}
	free(a);
	return 0;
}

/* ---- HannWindow, HammingWindow, BlackmanWindow ------------------------------------------------------------------- */

enum window { WIN_HANN, WIN_HAMMING, WIN_BLACKMAN };

static int window_run(struct exec_kernel_ctx *k, enum window w)
{
	const struct xtensor *s = input(k, 0);
	int periodic = (int)xk_attr_int(k, "periodic", 1);
	int32_t dt = (int32_t)xk_attr_int(k, "output_datatype", OV_DT_FLOAT);

	if (!s || s->numel != 1)
		return xk_fail(k, "size must be a single value");
	int64_t n = xt_get_int(s, 0);
	if (n < 0)
		return xk_fail(k, "size %" PRId64 " is negative", n);
	if (!xt_elem_size(dt) || dt == OV_DT_STRING)
		return xk_fail(k, "output_datatype %s is not supported", dtype_name(dt));
	if (xk_output(k, 0, dt, 1, &n))
		return -1;
	double N = (double)(periodic ? n : n - 1);
	for (int64_t i = 0; i < n; i++) {
		double v, t = (double)i / N;
		if (N == 0)
			v = 1; /* a window of one */
		else if (w == WIN_HANN)
			v = sin(PI * t) * sin(PI * t);
		else if (w == WIN_HAMMING)
			v = 25.0 / 46.0 - (1 - 25.0 / 46.0) * cos(2 * PI * t);
		else
			v = 0.42 - 0.5 * cos(2 * PI * t) + 0.08 * cos(4 * PI * t);
		xt_set(k->out[0], i, v);
	}
	return 0;
}

static int k_hann(struct exec_kernel_ctx *k) { return window_run(k, WIN_HANN); }
static int k_hamming(struct exec_kernel_ctx *k) { return window_run(k, WIN_HAMMING); }
static int k_blackman(struct exec_kernel_ctx *k) { return window_run(k, WIN_BLACKMAN); }

/* ---- NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss ------------------------------------------------------------ */

/* loss[n,d] = -weight[t] * logp[n, t, d] for the target t (0 where t is ignore_index), reduced as asked: 'mean'
 * divides by the sum of the weights used (the count when there are none), as the reference does.  logp is
 * [N, C, D] in double. */
static int nll_finish(struct exec_kernel_ctx *k, const double *logp, const struct xtensor *x, const struct xtensor *t,
		      const struct xtensor *w, int64_t N, int64_t C, int64_t D)
{
	char red[8];
	int64_t ign = xk_attr_int(k, "ignore_index", INT64_MIN);
	int has_ign = ign != INT64_MIN;

	xk_attr_str(k, "reduction", "mean", red, sizeof red);
	int none = !strcmp(red, "none"), mean = !strcmp(red, "mean");
	if (!none && !mean && strcmp(red, "sum"))
		return xk_fail(k, "unknown reduction '%s'", red);
	if (w && (w->rank != 1 || w->dims[0] != C))
		return xk_fail(k, "weight must be 1-D of %" PRId64 " classes", C);
	if (none ? xk_output(k, 0, x->dtype, t->rank, t->dims) : xk_output(k, 0, x->dtype, 0, NULL))
		return -1;
	double total = 0, wsum = 0;
	for (int64_t n = 0; n < N; n++)
		for (int64_t d = 0; d < D; d++) {
			int64_t c = xt_get_int(t, n * D + d);
			double l = 0, wt = 1;
			if (has_ign && c == ign)
				wt = 0;
			else {
				if (c < 0 || c >= C)
					return xk_fail(k, "target[%" PRId64 "] = %" PRId64 " is out of range for %" PRId64 " classes",
						       n * D + d, c, C);
				if (w)
					wt = xt_get(w, c);
				l = -logp[(n * C + c) * D + d] * wt;
			}
			if (none)
				xt_set(k->out[0], n * D + d, l);
			total += l;
			wsum += wt;
		}
	if (!none)
		xt_set(k->out[0], 0, mean ? total / wsum : total);
	return 0;
}

/* x [N, C, d1...] and target [N, d1...]: sizes, checked. */
static int loss_dims(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *t, int64_t *N,
		     int64_t *C, int64_t *D)
{
	if (x->dtype != OV_DT_FLOAT && x->dtype != OV_DT_DOUBLE && x->dtype != OV_DT_FLOAT16 && x->dtype != OV_DT_BFLOAT16)
		return xk_fail(k, "the scores are %s, not a float type", dtype_name(x->dtype));
	if (x->rank < 2 || t->rank != x->rank - 1 || t->dims[0] != x->dims[0])
		return xk_fail(k, "input must be [N, C, d1...] and target [N, d1...]");
	*D = 1;
	for (int a = 2; a < x->rank; a++) {
		if (t->dims[a - 1] != x->dims[a])
			return xk_fail(k, "target dim %d is %" PRId64 ", the input's %" PRId64, a - 1, t->dims[a - 1], x->dims[a]);
		*D *= x->dims[a];
	}
	*N = x->dims[0];
	*C = x->dims[1];
	return 0;
}

static int k_nll_loss(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = input(k, 0), *t = input(k, 1), *w = input(k, 2);
	int64_t N, C, D;

	if (!x || !t)
		return xk_fail(k, "input and target are required");
	if (loss_dims(k, x, t, &N, &C, &D))
		return -1;
	double *lp = malloc((size_t)(x->numel ? x->numel : 1) * sizeof *lp);
	if (!lp)
		return xk_fail(k, "out of memory");
	for (int64_t i = 0; i < x->numel; i++)
		lp[i] = xt_get(x, i);
	int rc = nll_finish(k, lp, x, t, w, N, C, D);
	free(lp);
	return rc;
}

static int k_sce_loss(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = input(k, 0), *t = input(k, 1), *w = input(k, 2);
	int64_t N, C, D;

	if (!x || !t)
		return xk_fail(k, "scores and labels are required");
	if (loss_dims(k, x, t, &N, &C, &D))
		return -1;
	double *lp = malloc((size_t)(x->numel ? x->numel : 1) * sizeof *lp);
	if (!lp)
		return xk_fail(k, "out of memory");
	/* log_softmax over the classes */
	for (int64_t n = 0; n < N; n++)
		for (int64_t d = 0; d < D; d++) {
			double mx = -INFINITY, s = 0;
			for (int64_t c = 0; c < C; c++)
				mx = fmax(mx, xt_get(x, (n * C + c) * D + d));
			for (int64_t c = 0; c < C; c++)
				s += exp(xt_get(x, (n * C + c) * D + d) - mx);
			for (int64_t c = 0; c < C; c++)
				lp[(n * C + c) * D + d] = xt_get(x, (n * C + c) * D + d) - mx - log(s);
		}
	int rc = nll_finish(k, lp, x, t, w, N, C, D);
	if (!rc && k->n_out > 1) {
		if (xk_output(k, 1, x->dtype, x->rank, x->dims))
			rc = -1;
		else
			for (int64_t i = 0; i < x->numel; i++)
				xt_set(k->out[1], i, lp[i]);
	}
	free(lp);
	return rc;
}

/* ---- RNN, GRU, LSTM ------------------------------------------------------------------------------------------- */

/* The checks, dims and activations are cpu_rnn_setup's (src/exec/ops/rnn.c), and a cell's arithmetic from its
 * pre-activations on is src/exec/ops/ov-rnn.h's, both shared with the CUDA kernels. */

static const struct xtensor *host_input(struct exec_kernel_ctx *k, size_t i)
{
	return input(k, i);
}

/* A tensor's values as doubles (NULL input: NULL, no failure). */
static double *to_doubles(struct exec_kernel_ctx *k, const struct xtensor *t, int *failed)
{
	if (!t)
		return NULL;
	double *d = malloc((size_t)(t->numel ? t->numel : 1) * sizeof *d);
	if (!d) {
		*failed = xk_fail(k, "out of memory");
		return NULL;
	}
	for (int64_t i = 0; i < t->numel; i++)
		d[i] = xt_get(t, i);
	return d;
}

static int recurrent_run(struct exec_kernel_ctx *k, enum rnn_cell cell)
{
	const struct xtensor *X = input(k, 0), *Wt = input(k, 1), *Rt = input(k, 2), *Bt = input(k, 3),
			     *SL = input(k, 4), *H0 = input(k, 5), *C0 = cell == RNN_CELL_LSTM ? input(k, 6) : NULL,
			     *Pt = cell == RNN_CELL_LSTM ? input(k, 7) : NULL;
	struct rnn_plan pl;
	int rc = -1, failed = 0;

	if (cpu_rnn_setup(k, cell, host_input, &pl))
		return -1;
	int G = pl.G, nf = pl.nf, D = pl.D, layout = pl.layout, lbr = pl.lbr;
	double clipv = pl.clip;
	int64_t T = pl.T, Bn = pl.Bn, I = pl.In, H = pl.H;
	if (xk_output(k, 0, X->dtype, 4, pl.yd))
		return -1;
	if (k->n_out > 1 && xk_output(k, 1, X->dtype, 3, pl.hd))
		return -1;
	if (cell == RNN_CELL_LSTM && k->n_out > 2 && xk_output(k, 2, X->dtype, 3, pl.hd))
		return -1;
	double *x = to_doubles(k, X, &failed), *w = to_doubles(k, Wt, &failed), *r = to_doubles(k, Rt, &failed);
	double *bias = to_doubles(k, Bt, &failed), *p = to_doubles(k, Pt, &failed);
	size_t nbh = (size_t)(Bn && H ? Bn * H : 1), ngh = (size_t)(H ? G * H : 1);
	double *h = calloc(nbh, sizeof *h), *c = calloc(nbh, sizeof *c);
	double *g = malloc(ngh * sizeof *g), *tmp = malloc((size_t)(H ? H : 1) * sizeof *tmp);
	if (failed || !x || !w || !r || !h || !c || !g || !tmp) {
		if (!failed)
			xk_fail(k, "out of memory");
		goto out;
	}
	for (int d = 0; d < D; d++) {
		const double *W = w + (size_t)d * G * H * I, *R = r + (size_t)d * G * H * H;
		const double *Wb = bias ? bias + (size_t)d * 2 * G * H : NULL, *Rb = Wb ? Wb + G * H : NULL;
		const double *P = p ? p + (size_t)d * 3 * H : NULL;
		const struct ov_rnn_act *af = &pl.acts[d * nf];
		int backward = pl.reverse_only || d == 1;
		for (int64_t b = 0; b < Bn; b++)
			for (int64_t j = 0; j < H; j++) {
				int64_t si = layout ? (b * D + d) * H + j : (d * Bn + b) * H + j;
				h[b * H + j] = H0 ? xt_get(H0, si) : 0;
				c[b * H + j] = C0 ? xt_get(C0, si) : 0;
			}
		for (int64_t b = 0; b < Bn; b++) {
			int64_t L = SL ? xt_get_int(SL, b) : T;
			double *hb = h + b * H, *cb = c + b * H;
			for (int64_t s = 0; s < L; s++) {
				int64_t t = backward ? L - 1 - s : s;
				const double *xt = x + (layout ? (b * T + t) : (t * Bn + b)) * I;
				/* g = W x + Wb + Rb (+ R h, except GRU's candidate gate) */
				for (int64_t q = 0; q < G * H; q++) {
					double v = Wb ? Wb[q] + Rb[q] : 0;
					const double *wr = W + q * I;
					for (int64_t i = 0; i < I; i++)
						v += wr[i] * xt[i];
					if (!(cell == RNN_CELL_GRU && q >= 2 * H)) {
						const double *rr = R + q * H;
						for (int64_t i = 0; i < H; i++)
							v += rr[i] * hb[i];
					}
					g[q] = v;
				}
				if (cell == RNN_CELL_RNN) {
					for (int64_t j = 0; j < H; j++)
						hb[j] = ov_rnn_cell_d(af[0], g[j], clipv);
				} else if (cell == RNN_CELL_GRU) {
					/* z, r, then the candidate from Rh (r . h), or Rh h when linear_before_reset */
					for (int64_t j = 0; j < 2 * H; j++)
						g[j] = ov_gru_gate_d(af[0], g[j], clipv);
					const double *Rh = R + 2 * H * H, *rbh = Rb ? Rb + 2 * H : NULL;
					for (int64_t j = 0; j < H; j++) {
						double v = 0;
						if (lbr)
							for (int64_t i = 0; i < H; i++)
								v += Rh[j * H + i] * hb[i];
						else
							for (int64_t i = 0; i < H; i++)
								v += Rh[j * H + i] * g[H + i] * hb[i];
						tmp[j] = ov_gru_cell_d(af[1], g[2 * H + j], v, g[j], g[H + j], rbh ? rbh[j] : 0, lbr,
								       hb[j], clipv);
					}
					for (int64_t j = 0; j < H; j++)
						hb[j] = tmp[j];
				} else {
					/* gates i, o, f, c; peepholes P = [Pi, Po, Pf] */
					for (int64_t j = 0; j < H; j++)
						hb[j] = ov_lstm_cell_d(af[0], af[1], af[2], g[j], g[H + j], g[2 * H + j], g[3 * H + j],
								       P != NULL, P ? P[j] : 0, P ? P[H + j] : 0,
								       P ? P[2 * H + j] : 0, pl.input_forget, clipv, &cb[j]);
				}
				for (int64_t j = 0; j < H; j++) {
					int64_t yi = layout ? ((b * T + t) * D + d) * H + j : ((t * D + d) * Bn + b) * H + j;
					xt_set(k->out[0], yi, hb[j]);
				}
			}
		}
		for (int64_t b = 0; b < Bn; b++)
			for (int64_t j = 0; j < H; j++) {
				int64_t si = layout ? (b * D + d) * H + j : (d * Bn + b) * H + j;
				if (k->n_out > 1)
					xt_set(k->out[1], si, h[b * H + j]);
				if (cell == RNN_CELL_LSTM && k->n_out > 2)
					xt_set(k->out[2], si, c[b * H + j]);
			}
	}
	rc = 0;
out:
	free(x), free(w), free(r), free(bias), free(p), free(h), free(c), free(g), free(tmp);
	return rc;
}

static int k_rnn(struct exec_kernel_ctx *k) { return recurrent_run(k, RNN_CELL_RNN); }
static int k_gru(struct exec_kernel_ctx *k) { return recurrent_run(k, RNN_CELL_GRU); }
static int k_lstm(struct exec_kernel_ctx *k) { return recurrent_run(k, RNN_CELL_LSTM); }

/* ---- DFT, STFT, MelWeightMatrix --------------------------------------------------------------------------------- */

/* One transform of n points: out[k] = sum_j in[j] e^(sign 2 pi i jk/n) (re, im interleaved); radix-2 when n is a
 * power of two, else the direct sum over a table of the n roots. */
static int dft1(int64_t n, const double *in, double *out, int sign, double *work)
{
	if (n <= 0)
		return 0;
	if (!(n & (n - 1))) {
		int bits = 0;
		while ((1ll << bits) < n)
			bits++;
		for (int64_t i = 0; i < n; i++) {
			int64_t r = 0;
			for (int b = 0; b < bits; b++)
				r |= ((i >> b) & 1) << (bits - 1 - b);
			out[2 * r] = in[2 * i];
			out[2 * r + 1] = in[2 * i + 1];
		}
		for (int64_t len = 2; len <= n; len <<= 1) {
			double ang = sign * 2 * PI / (double)len;
			for (int64_t i = 0; i < n; i += len)
				for (int64_t j = 0; j < len / 2; j++) {
					double wr = cos(ang * (double)j), wi = sin(ang * (double)j);
					double *u = out + 2 * (i + j), *v = out + 2 * (i + j + len / 2);
					double tr = v[0] * wr - v[1] * wi, ti = v[0] * wi + v[1] * wr;
					v[0] = u[0] - tr, v[1] = u[1] - ti;
					u[0] += tr, u[1] += ti;
				}
		}
		return 0;
	}
	double *cs = work, *sn = work + n;
	for (int64_t j = 0; j < n; j++) {
		cs[j] = cos(2 * PI * (double)j / (double)n);
		sn[j] = sign * sin(2 * PI * (double)j / (double)n);
	}
	for (int64_t kk = 0; kk < n; kk++) {
		double re = 0, im = 0;
		for (int64_t j = 0, at = 0; j < n; j++, at = (at + kk) % n) {
			re += in[2 * j] * cs[at] - in[2 * j + 1] * sn[at];
			im += in[2 * j] * sn[at] + in[2 * j + 1] * cs[at];
		}
		out[2 * kk] = re;
		out[2 * kk + 1] = im;
	}
	return 0;
}

static int k_dft_impl(struct exec_kernel_ctx *k, int axis_from_input)
{
	const struct xtensor *x = input(k, 0), *lt = input(k, 1), *at = axis_from_input ? input(k, 2) : NULL;
	int inverse = (int)xk_attr_int(k, "inverse", 0), onesided = (int)xk_attr_int(k, "onesided", 0);
	int64_t a = axis_from_input ? (at && at->numel ? xt_get_int(at, 0) : -2) : xk_attr_int(k, "axis", 1);
	int rc = -1;

	if (!x)
		return xk_fail(k, "input 0 is missing");
	if (x->dtype != OV_DT_FLOAT && x->dtype != OV_DT_DOUBLE && x->dtype != OV_DT_FLOAT16 && x->dtype != OV_DT_BFLOAT16)
		return xk_fail(k, "DFT on %s is not supported", dtype_name(x->dtype));
	if (x->rank < 2 || (x->dims[x->rank - 1] != 1 && x->dims[x->rank - 1] != 2))
		return xk_fail(k, "input must be [..., 1 or 2] (real, or real and imaginary)");
	if (a < -(int64_t)x->rank || a >= x->rank)
		return xk_fail(k, "axis %" PRId64 " is out of range for rank %d", a, x->rank);
	int axis = (int)(a < 0 ? a + x->rank : a);
	if (axis == x->rank - 1)
		return xk_fail(k, "axis %d is the real/imaginary axis", axis);
	int cplx = x->dims[x->rank - 1] == 2;
	int64_t len = x->dims[axis];
	int64_t n = lt && lt->numel ? xt_get_int(lt, 0) : inverse && onesided ? 2 * (len - 1) : len;
	if (n < 1 || n > (1ll << 24))
		return xk_fail(k, "dft_length %" PRId64 " is not usable", n);
	int64_t outer = 1, inner = 1;
	for (int i = 0; i < axis; i++)
		outer *= x->dims[i];
	for (int i = axis + 1; i < x->rank - 1; i++)
		inner *= x->dims[i];
	int64_t d[MAXR], nout = inverse ? n : onesided ? n / 2 + 1 : n;
	memcpy(d, x->dims, sizeof d);
	d[axis] = nout;
	d[x->rank - 1] = inverse && onesided ? 1 : 2;
	if (xk_output(k, 0, x->dtype, x->rank, d))
		return -1;
	struct xtensor *y = k->out[0];
	double *in = calloc((size_t)(2 * n), sizeof *in), *out = malloc((size_t)(2 * n) * sizeof *out);
	double *work = malloc((size_t)(2 * n) * sizeof *work);
	if (!in || !out || !work) {
		xk_fail(k, "out of memory");
		goto done;
	}
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			memset(in, 0, (size_t)(2 * n) * sizeof *in);
			#define XAT(j, c) xt_get(x, ((o * len + (j)) * inner + i) * (cplx ? 2 : 1) + (c))
			if (inverse && onesided) {
				/* one-sided spectrum: rebuild the rest by Hermitian symmetry, keep the real part */
				int64_t m = n / 2 + 1;
				for (int64_t j = 0; j < m && j < len; j++) {
					in[2 * j] = XAT(j, 0);
					in[2 * j + 1] = cplx ? XAT(j, 1) : 0;
				}
				for (int64_t j = m; j < n; j++) {
					in[2 * j] = in[2 * (n - j)];
					in[2 * j + 1] = -in[2 * (n - j) + 1];
				}
			} else
				for (int64_t j = 0; j < n && j < len; j++) {
					in[2 * j] = XAT(j, 0);
					in[2 * j + 1] = cplx ? XAT(j, 1) : 0;
				}
			#undef XAT
			dft1(n, in, out, inverse ? 1 : -1, work);
			for (int64_t j = 0; j < nout; j++) {
				double re = out[2 * j], im = out[2 * j + 1];
				if (inverse)
					re /= (double)n, im /= (double)n;
				int64_t yi = (o * nout + j) * inner + i;
				if (inverse && onesided)
					xt_set(y, yi, re);
				else {
					xt_set(y, 2 * yi, re);
					xt_set(y, 2 * yi + 1, im);
				}
			}
		}
	rc = 0;
done:
	free(in);
	free(out);
	free(work);
	return rc;
}

static int k_dft17(struct exec_kernel_ctx *k) { return k_dft_impl(k, 0); }
static int k_dft20(struct exec_kernel_ctx *k) { return k_dft_impl(k, 1); }

static int k_stft(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = input(k, 0), *fs = input(k, 1), *win = input(k, 2), *fl = input(k, 3);
	int onesided = (int)xk_attr_int(k, "onesided", 1), rc = -1;

	if (!x || !fs)
		return xk_fail(k, "signal and frame_step are required");
	if (x->dtype != OV_DT_FLOAT && x->dtype != OV_DT_DOUBLE && x->dtype != OV_DT_FLOAT16 && x->dtype != OV_DT_BFLOAT16)
		return xk_fail(k, "STFT on %s is not supported", dtype_name(x->dtype));
	if (x->rank != 3 || (x->dims[2] != 1 && x->dims[2] != 2))
		return xk_fail(k, "signal must be [batch, length, 1 or 2]");
	int cplx = x->dims[2] == 2;
	int64_t B = x->dims[0], len = x->dims[1], hop = fs->numel ? xt_get_int(fs, 0) : 0;
	int64_t n = fl && fl->numel ? xt_get_int(fl, 0) : win ? win->numel : len;
	if (hop < 1)
		return xk_fail(k, "frame_step %" PRId64 " must be positive", hop);
	if (n < 1 || n > len || n > (1ll << 24))
		return xk_fail(k, "frame_length %" PRId64 " is not usable for a signal of %" PRId64, n, len);
	if (win && (win->rank != 1 || win->numel != n))
		return xk_fail(k, "the window has %" PRId64 " values for frames of %" PRId64, win->numel, n);
	int64_t frames = 1 + (len - n) / hop, bins = onesided ? n / 2 + 1 : n;
	int64_t d[4] = {B, frames, bins, 2};
	if (xk_output(k, 0, x->dtype, 4, d))
		return -1;
	double *in = malloc((size_t)(2 * n) * sizeof *in), *out = malloc((size_t)(2 * n) * sizeof *out);
	double *work = malloc((size_t)(2 * n) * sizeof *work);
	if (!in || !out || !work) {
		xk_fail(k, "out of memory");
		goto done;
	}
	for (int64_t b = 0; b < B; b++)
		for (int64_t f = 0; f < frames; f++) {
			for (int64_t j = 0; j < n; j++) {
				double w = win ? xt_get(win, j) : 1;
				int64_t xi = (b * len + f * hop + j) * (cplx ? 2 : 1);
				in[2 * j] = xt_get(x, xi) * w;
				in[2 * j + 1] = cplx ? xt_get(x, xi + 1) * w : 0;
			}
			dft1(n, in, out, -1, work);
			for (int64_t j = 0; j < bins; j++) {
				int64_t yi = ((b * frames + f) * bins + j) * 2;
				xt_set(k->out[0], yi, out[2 * j]);
				xt_set(k->out[0], yi + 1, out[2 * j + 1]);
			}
		}
	rc = 0;
done:
	free(in);
	free(out);
	free(work);
	return rc;
}

static int k_mel_weight_matrix(struct exec_kernel_ctx *k)
{
	const struct xtensor *t[5];
	int32_t dt = (int32_t)xk_attr_int(k, "output_datatype", OV_DT_FLOAT);

	for (size_t i = 0; i < 5; i++)
		if (!(t[i] = input(k, i)) || t[i]->numel != 1)
			return xk_fail(k, "input %zu must be a single value", i);
	int64_t mels = xt_get_int(t[0], 0), n = xt_get_int(t[1], 0), rate = xt_get_int(t[2], 0);
	double lo = xt_get(t[3], 0), hi = xt_get(t[4], 0);
	if (mels < 1 || mels > (1 << 20) || n < 1 || n > (1ll << 24) || rate < 1)
		return xk_fail(k, "num_mel_bins %" PRId64 ", dft_length %" PRId64 " or sample_rate %" PRId64 " is not usable",
			       mels, n, rate);
	if (!xt_elem_size(dt) || dt == OV_DT_STRING)
		return xk_fail(k, "output_datatype %s is not supported", dtype_name(dt));
	int64_t nb = n / 2 + 1, d[2] = {nb, mels};
	if (xk_output(k, 0, dt, 2, d))
		return -1;
	int64_t *fb = malloc((size_t)(mels + 2) * sizeof *fb);
	if (!fb)
		return xk_fail(k, "out of memory");
	/* the reference's arithmetic: mel edges in float32, the rest in double, bins floored */
	double lmel = (double)(2595.0f * log1pf((float)lo / 700.0f)) / log(10.0);
	double hmel = (double)(2595.0f * log1pf((float)hi / 700.0f)) / log(10.0);
	double step = (hmel - lmel) / (double)(mels + 2);
	for (int64_t i = 0; i < mels + 2; i++) {
		double hz = 700 * expm1(((double)i * step + lmel) / 2595 * log(10.0));
		double b = floor((double)(n + 1) * hz / (double)rate);
		fb[i] = b != b || b < 0 ? 0 : b > (double)nb ? nb : (int64_t)b;
	}
	for (int64_t i = 0; i < mels; i++) {
		int64_t l = fb[i], c = fb[i + 1], h = fb[i + 2];
		if (c >= nb || h > nb) {
			free(fb);
			return xk_fail(k, "upper_edge_hertz %g reaches past the %" PRId64 " spectrogram bins", hi, nb);
		}
		if (c == l)
			xt_set(k->out[0], c * mels + i, 1);
		else
			for (int64_t j = l; j <= c; j++)
				xt_set(k->out[0], j * mels + i, (double)(j - l) / (double)(c - l));
		for (int64_t j = c; j < h; j++)
			xt_set(k->out[0], j * mels + i, (double)(h - j) / (double)(h - c));
	}
	free(fb);
	return 0;
}

/* ---- StringNormalizer, TfIdfVectorizer ------------------------------------------------------------------------- */

static const Onnx__AttributeProto *node_attr(const struct exec_kernel_ctx *k, const char *name)
{
	const Onnx__NodeProto *n = k->g->nodes[k->node].proto;

	for (size_t a = 0; a < n->n_attribute; a++)
		if (n->attribute[a]->name && !strcmp(n->attribute[a]->name, name))
			return n->attribute[a];
	return NULL;
}

/* ASCII-only case folding: bytes of multi-byte UTF-8 sequences pass unchanged. */
static int ascii_casecmp(const char *a, size_t la, const char *b, size_t lb)
{
	if (la != lb)
		return 1;
	for (size_t i = 0; i < la; i++) {
		int x = (unsigned char)a[i], y = (unsigned char)b[i];
		if (x >= 'A' && x <= 'Z')
			x += 32;
		if (y >= 'A' && y <= 'Z')
			y += 32;
		if (x != y)
			return 1;
	}
	return 0;
}

/* The spec's (and onnxruntime's) StringNormalizer: drop the elements equal to a stopword (ignoring ASCII case
 * unless is_case_sensitive), then change case. */
static int k_string_normalizer(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = input(k, 0);
	const Onnx__AttributeProto *stops = node_attr(k, "stopwords");
	int sensitive = (int)xk_attr_int(k, "is_case_sensitive", 0);
	char act[16];

	if (!x)
		return xk_fail(k, "input 0 is missing");
	if (x->dtype != OV_DT_STRING)
		return xk_fail(k, "StringNormalizer takes strings, not %s", dtype_name(x->dtype));
	if (!(x->rank == 1 || (x->rank == 2 && x->dims[0] == 1)))
		return xk_fail(k, "StringNormalizer takes [C] or [1, C]");
	xk_attr_str(k, "case_change_action", "NONE", act, sizeof act);
	int lower = !strcmp(act, "LOWER"), upper = !strcmp(act, "UPPER");
	if (!lower && !upper && strcmp(act, "NONE"))
		return xk_fail(k, "unknown case_change_action '%s'", act);
	char *const *in = x->data;
	int64_t kept = 0;
	char *keep = calloc((size_t)(x->numel ? x->numel : 1), 1);
	if (!keep)
		return xk_fail(k, "out of memory");
	for (int64_t i = 0; i < x->numel; i++) {
		const char *s = in[i] ? in[i] : "";
		size_t l = strlen(s);
		int drop = 0;
		for (size_t w = 0; stops && w < stops->n_strings && !drop; w++) {
			const ProtobufCBinaryData *b = &stops->strings[w];
			drop = sensitive ? (b->len == l && !memcmp(b->data, s, l)) : !ascii_casecmp(s, l, (const char *)b->data, b->len);
		}
		keep[i] = (char)!drop;
		kept += !drop;
	}
	int64_t d[2] = {1, kept ? kept : 1};
	if (xk_output(k, 0, OV_DT_STRING, x->rank, x->rank == 1 ? d + 1 : d)) {
		free(keep);
		return -1;
	}
	char **out = k->out[0]->data;
	int64_t o = 0;
	for (int64_t i = 0; i < x->numel; i++) {
		if (!keep[i])
			continue;
		if (!(out[o] = strdup(in[i] ? in[i] : ""))) {
			free(keep);
			return xk_fail(k, "out of memory");
		}
		for (char *c = out[o]; *c; c++)
			if (lower && *c >= 'A' && *c <= 'Z')
				*c = (char)(*c + 32);
			else if (upper && *c >= 'a' && *c <= 'z')
				*c = (char)(*c - 32);
		o++;
	}
	if (!kept && !(out[0] = strdup(""))) {
		free(keep);
		return xk_fail(k, "out of memory");
	}
	free(keep);
	return 0;
}

/* One n-gram of the pool: its size, where its items start in the pool, and its output column. */
struct ngram {
	int64_t n, at, col;
};

struct tfidf {
	const int64_t *ints;                   /* pool_int64s, or */
	const ProtobufCBinaryData *strs;       /* pool_strings */
	const struct xtensor *x;
};

/* Pool item p against input item i (ints compare as values, strings as bytes). */
static int tfidf_cmp_item(const struct tfidf *t, int64_t p, int64_t i)
{
	if (t->ints) {
		int64_t v = xt_get_int(t->x, i);
		return t->ints[p] < v ? -1 : t->ints[p] > v;
	}
	const char *s = ((char *const *)t->x->data)[i];
	size_t l = s ? strlen(s) : 0, pl = t->strs[p].len;
	int c = memcmp(t->strs[p].data, s ? s : "", pl < l ? pl : l);
	return c ? c : (pl > l) - (pl < l);
}

static int tfidf_cmp_pool(const struct tfidf *t, const struct ngram *a, const struct ngram *b)
{
	for (int64_t j = 0; j < a->n; j++) {
		int c;
		if (t->ints)
			c = (t->ints[a->at + j] > t->ints[b->at + j]) - (t->ints[a->at + j] < t->ints[b->at + j]);
		else {
			const ProtobufCBinaryData *u = &t->strs[a->at + j], *v = &t->strs[b->at + j];
			c = memcmp(u->data, v->data, u->len < v->len ? u->len : v->len);
			if (!c)
				c = (u->len > v->len) - (u->len < v->len);
		}
		if (c)
			return c;
	}
	return 0;
}

/* Insertion into a sorted list would be quadratic: sort the n-grams of one size with a merge sort instead. */
static void tfidf_sort(const struct tfidf *t, struct ngram *a, struct ngram *tmp, int64_t n)
{
	if (n < 2)
		return;
	int64_t h = n / 2, i = 0, j = h, o = 0;
	tfidf_sort(t, a, tmp, h);
	tfidf_sort(t, a + h, tmp, n - h);
	while (i < h && j < n)
		tmp[o++] = tfidf_cmp_pool(t, &a[j], &a[i]) < 0 ? a[j++] : a[i++];
	while (i < h)
		tmp[o++] = a[i++];
	while (j < n)
		tmp[o++] = a[j++];
	memcpy(a, tmp, (size_t)n * sizeof *a);
}

static int k_tfidf(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = input(k, 0);
	const Onnx__AttributeProto *pi = node_attr(k, "pool_int64s"), *ps = node_attr(k, "pool_strings");
	const Onnx__AttributeProto *nc = node_attr(k, "ngram_counts"), *ni = node_attr(k, "ngram_indexes");
	const Onnx__AttributeProto *wa = node_attr(k, "weights");
	int64_t minn = xk_attr_int(k, "min_gram_length", 1), maxn = xk_attr_int(k, "max_gram_length", 1);
	int64_t skips = xk_attr_int(k, "max_skip_count", 0);
	char mode[8];
	int rc = -1;

	if (!x)
		return xk_fail(k, "input 0 is missing");
	if (!nc || !ni || (!pi && !ps))
		return xk_fail(k, "ngram_counts, ngram_indexes and a pool are required");
	struct tfidf t = {pi ? pi->ints : NULL, pi ? NULL : ps->strings, x};
	int64_t pool = pi ? (int64_t)pi->n_ints : (int64_t)ps->n_strings;
	if ((x->dtype == OV_DT_STRING) != !pi)
		return xk_fail(k, "the input is %s but the pool holds %s", dtype_name(x->dtype), pi ? "integers" : "strings");
	if (x->dtype != OV_DT_STRING && x->dtype != OV_DT_INT32 && x->dtype != OV_DT_INT64)
		return xk_fail(k, "TfIdfVectorizer takes strings, int32 or int64, not %s", dtype_name(x->dtype));
	if (x->rank > 2 || (x->rank == 2 && x->dims[0] < 1))
		return xk_fail(k, "the input must be [C] or [B, C]");
	xk_attr_str(k, "mode", "TF", mode, sizeof mode);
	int m_tf = !strcmp(mode, "TF"), m_idf = !strcmp(mode, "IDF");
	if (!m_tf && !m_idf && strcmp(mode, "TFIDF"))
		return xk_fail(k, "unknown mode '%s'", mode);
	if (minn < 1 || maxn < minn || maxn > 64 || skips < 0 || skips > (1 << 20))
		return xk_fail(k, "gram lengths %" PRId64 "..%" PRId64 " or skip count %" PRId64 " are not usable", minn, maxn,
			       skips);
	int64_t cols = 0;
	for (size_t i = 0; i < ni->n_ints; i++) {
		if (ni->ints[i] < 0 || ni->ints[i] >= (1ll << 32))
			return xk_fail(k, "ngram_indexes[%zu] = %" PRId64 " is not usable", i, ni->ints[i]);
		cols = ni->ints[i] + 1 > cols ? ni->ints[i] + 1 : cols;
	}
	if (wa && wa->n_floats != ni->n_ints)
		return xk_fail(k, "%zu weights for %zu n-grams", wa->n_floats, ni->n_ints);
	/* the pool's n-grams, by size, with their output columns */
	struct ngram *ng = malloc((size_t)(pool ? pool : 1) * sizeof *ng), *tmp = malloc((size_t)(pool ? pool : 1) * sizeof *tmp);
	int64_t *first = calloc(66, sizeof *first), *count = calloc(66, sizeof *count), nng = 0, id = 0;
	double *freq = NULL;
	if (!ng || !tmp || !first || !count) {
		xk_fail(k, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nc->n_ints; i++) {
		int64_t n = (int64_t)i + 1, s0 = nc->ints[i], s1 = i + 1 < nc->n_ints ? nc->ints[i + 1] : pool;
		if (s0 < 0 || s1 > pool || s1 < s0) {
			xk_fail(k, "ngram_counts[%zu] = %" PRId64 " is out of range for a pool of %" PRId64, i, s0, pool);
			goto out;
		}
		int64_t cnt = (s1 - s0) / n;
		if (n <= 64) {
			first[n] = nng;
			count[n] = 0;
		}
		for (int64_t j = 0; j < cnt; j++, id++) {
			if (id >= (int64_t)ni->n_ints) {
				xk_fail(k, "the pool holds more n-grams than ngram_indexes has entries (%zu)", ni->n_ints);
				goto out;
			}
			if (n < minn || n > maxn)
				continue;
			ng[nng].n = n;
			ng[nng].at = s0 + j * n;
			ng[nng].col = ni->ints[id];
			nng++;
			count[n]++;
		}
		if (n <= 64)
			tfidf_sort(&t, ng + first[n], tmp, count[n]);
	}
	int64_t B = x->rank == 2 ? x->dims[0] : 1, C = x->rank == 0 ? 1 : x->dims[x->rank - 1];
	int64_t od[2] = {B, cols};
	if (x->rank == 2 ? xk_output(k, 0, OV_DT_FLOAT, 2, od) : xk_output(k, 0, OV_DT_FLOAT, 1, &cols))
		goto out;
	if (!(freq = calloc((size_t)(B && cols ? B * cols : 1), sizeof *freq))) {
		xk_fail(k, "out of memory");
		goto out;
	}
	for (int64_t b = 0; b < B; b++) {
		int64_t start_n = minn;
		for (int64_t dist = 1; dist <= skips + 1; dist++) {
			for (int64_t s = 0; s < C; s++)
				for (int64_t n = start_n; n <= maxn; n++) {
					if (s + dist * (n - 1) >= C || n > 64 || !count[n])
						continue;
					/* binary search among the pool's n-grams of size n */
					int64_t lo = first[n], hi = first[n] + count[n];
					while (lo < hi) {
						int64_t mid = (lo + hi) / 2, c = 0;
						for (int64_t j = 0; j < n && !c; j++)
							c = tfidf_cmp_item(&t, ng[mid].at + j, b * C + s + j * dist);
						if (!c) {
							freq[b * cols + ng[mid].col] += 1;
							break;
						}
						if (c < 0)
							lo = mid + 1;
						else
							hi = mid;
					}
				}
			/* unigrams are counted once: skips do not change them */
			if (start_n == 1 && ++start_n > maxn)
				break;
		}
	}
	/* weights belong to the pool's n-grams (the spec, and onnxruntime): move them to the output columns */
	double *wcol = calloc((size_t)(cols ? cols : 1), sizeof *wcol);
	if (!wcol) {
		xk_fail(k, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < ni->n_ints; i++)
		wcol[ni->ints[i]] = wa ? wa->floats[i] : 1;
	float *y = k->out[0]->data;
	for (int64_t b = 0; b < B; b++)
		for (int64_t c = 0; c < cols; c++) {
			double f = freq[b * cols + c], w = wcol[c];
			y[b * cols + c] = (float)(m_tf ? f : m_idf ? (f > 0 ? w : 0) : f * w);
		}
	free(wcol);
	rc = 0;
out:
	free(ng);
	free(tmp);
	free(first);
	free(count);
	free(freq);
	return rc;
}

/* ---- MaxRoiPool ---------------------------------------------------------------------------------------------------- */

/* Caffe's ROI pooling, as onnxruntime runs it: rois [R, 5] = (batch, x1, y1, x2, y2), rounded after scaling. */
static int k_max_roi_pool(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = input(k, 0), *rois = input(k, 1);
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

/* ---- RandomUniform(Like), RandomNormal(Like), Bernoulli ------------------------------------------------------------- */

/* numpy's legacy RandomState (MT19937 seeded by init_genrand, 53-bit doubles, polar-method normals), so that a
 * model run with a seed gives the ONNX reference's numbers.  Without a seed, onnxview uses seed 0: runs repeat. */
struct mt {
	uint32_t s[624];
	int i, has_gauss;
	double gauss;
};

static void mt_seed(struct mt *m, uint32_t seed)
{
	m->s[0] = seed;
	for (int i = 1; i < 624; i++)
		m->s[i] = 1812433253u * (m->s[i - 1] ^ (m->s[i - 1] >> 30)) + (uint32_t)i;
	m->i = 624;
	m->has_gauss = 0;
}

static uint32_t mt_next(struct mt *m)
{
	if (m->i >= 624) {
		for (int i = 0; i < 624; i++) {
			uint32_t y = (m->s[i] & 0x80000000u) | (m->s[(i + 1) % 624] & 0x7fffffffu);
			m->s[i] = m->s[(i + 397) % 624] ^ (y >> 1) ^ (y & 1 ? 0x9908b0dfu : 0);
		}
		m->i = 0;
	}
	uint32_t y = m->s[m->i++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680u;
	y ^= (y << 15) & 0xefc60000u;
	return y ^ (y >> 18);
}

static double mt_double(struct mt *m)
{
	uint32_t a = mt_next(m) >> 5, b = mt_next(m) >> 6;
	return ((double)a * 67108864.0 + (double)b) / 9007199254740992.0;
}

static double mt_gauss(struct mt *m)
{
	if (m->has_gauss) {
		m->has_gauss = 0;
		return m->gauss;
	}
	double x1, x2, r2;
	do {
		x1 = 2 * mt_double(m) - 1;
		x2 = 2 * mt_double(m) - 1;
		r2 = x1 * x1 + x2 * x2;
	} while (r2 >= 1.0 || r2 == 0.0);
	double f = sqrt(-2.0 * log(r2) / r2);
	m->gauss = f * x1;
	m->has_gauss = 1;
	return f * x2;
}

enum rnd { RND_UNIFORM, RND_NORMAL, RND_BERNOULLI };

static int random_run(struct exec_kernel_ctx *k, enum rnd kind, int like)
{
	const struct xtensor *x = like ? input(k, 0) : NULL;
	int64_t d[MAXR];
	int rank;
	struct mt *m;

	if (like && !x)
		return xk_fail(k, "input 0 is missing");
	int32_t dt = (int32_t)xk_attr_int(k, "dtype", like ? x->dtype : OV_DT_FLOAT);
	if (dt != OV_DT_FLOAT && dt != OV_DT_DOUBLE && dt != OV_DT_FLOAT16 && dt != OV_DT_BFLOAT16 &&
	    !(kind == RND_BERNOULLI && xt_elem_size(dt) && dt != OV_DT_STRING))
		return xk_fail(k, "random values of %s are not supported", dtype_name(dt));
	if (like) {
		rank = x->rank;
		memcpy(d, x->dims, sizeof d);
	} else {
		int64_t n = xk_attr_ints(k, "shape", d, MAXR);
		if (n < 0 || n > MAXR)
			return xk_fail(k, "the shape attribute is missing or over rank %d", MAXR);
		rank = (int)n;
	}
	if (kind == RND_BERNOULLI && x && x->dtype != OV_DT_FLOAT && x->dtype != OV_DT_DOUBLE && x->dtype != OV_DT_FLOAT16)
		return xk_fail(k, "Bernoulli takes probabilities as float, not %s", dtype_name(x->dtype));
	float seed = xk_attr_float(k, "seed", 0.0f);
	if (!(fabsf(seed) < 0x1p63f)) /* NaN, infinities and seeds no integer holds */
		return xk_fail(k, "seed %g is not a usable seed (a whole number is expected)", (double)seed);
	if (xk_output(k, 0, dt, rank, d))
		return -1;
	if (!(m = malloc(sizeof *m)))
		return xk_fail(k, "out of memory");
	mt_seed(m, (uint32_t)(int64_t)seed);
	struct xtensor *y = k->out[0];
	double a = xk_attr_float(k, kind == RND_UNIFORM ? "low" : "mean", 0.0f);
	double b = xk_attr_float(k, kind == RND_UNIFORM ? "high" : "scale", 1.0f);
	for (int64_t i = 0; i < y->numel; i++) {
		double v;
		if (kind == RND_UNIFORM)
			v = a + (b - a) * mt_double(m);
		else if (kind == RND_NORMAL)
			v = a + b * mt_gauss(m);
		else {
			/* numpy's binomial(1, p) by inversion: no draw at p = 0 */
			double p = xt_get(x, i);
			if (!(p >= 0 && p <= 1)) {
				free(m);
				return xk_fail(k, "probability %g at %" PRId64 " is outside [0, 1]", p, i);
			}
			v = p == 0 ? 0 : p <= 0.5 ? (mt_double(m) > 1 - p) : (mt_double(m) <= p);
		}
		xt_set(y, i, v);
	}
	free(m);
	return 0;
}

static int k_random_uniform(struct exec_kernel_ctx *k) { return random_run(k, RND_UNIFORM, 0); }
static int k_random_uniform_like(struct exec_kernel_ctx *k) { return random_run(k, RND_UNIFORM, 1); }
static int k_random_normal(struct exec_kernel_ctx *k) { return random_run(k, RND_NORMAL, 0); }
static int k_random_normal_like(struct exec_kernel_ctx *k) { return random_run(k, RND_NORMAL, 1); }
static int k_bernoulli(struct exec_kernel_ctx *k) { return random_run(k, RND_BERNOULLI, 1); }

const struct exec_kernel cpu_misc_kernels[] = {
	{"NonMaxSuppression", 10, k_nms},
	{"RoiAlign", 10, k_roi_align},
	{"EyeLike", 9, k_eye_like},
	{"ReverseSequence", 10, k_reverse_sequence},
	{"QuantizeLinear", 10, k_quantize_linear},
	{"DequantizeLinear", 10, k_dequantize_linear},
	{"DynamicQuantizeLinear", 11, k_dynamic_quantize_linear},
	{"MeanVarianceNormalization", 9, k_mvn},
	{"Det", 11, k_det},
	{"HannWindow", 17, k_hann},
	{"HammingWindow", 17, k_hamming},
	{"BlackmanWindow", 17, k_blackman},
	{"NegativeLogLikelihoodLoss", 12, k_nll_loss},
	{"SoftmaxCrossEntropyLoss", 12, k_sce_loss},
	{"RNN", 7, k_rnn},
	{"GRU", 7, k_gru},
	{"LSTM", 7, k_lstm},
	{"DFT", 17, k_dft17},
	{"DFT", 20, k_dft20},
	{"STFT", 17, k_stft},
	{"MelWeightMatrix", 17, k_mel_weight_matrix},
	{"StringNormalizer", 10, k_string_normalizer},
	{"TfIdfVectorizer", 9, k_tfidf},
	{"MaxRoiPool", 1, k_max_roi_pool},
	{"RandomUniform", 1, k_random_uniform},
	{"RandomUniformLike", 1, k_random_uniform_like},
	{"RandomNormal", 1, k_random_normal},
	{"RandomNormalLike", 1, k_random_normal_like},
	{"Bernoulli", 15, k_bernoulli},
};
const size_t cpu_misc_count = sizeof cpu_misc_kernels / sizeof cpu_misc_kernels[0];
