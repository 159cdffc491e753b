/* Statistics (count, min, max, mean, std, zeros, NaN, Inf) and histograms of tensor values, in blocks. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "src/base/codec.h"
#include "src/base/dtype.h"
#include "src/model/tensor-stats.h"

/* Values are decoded a block at a time into doubles: the per-dtype switch runs once per block, not per element. */
#define BLOCK 1024
#define LANE_BINS 256

static void load_block(const struct tensor_view *v, int64_t start, int n, double *out)
{
	const uint8_t *p = v->raw ? v->raw + (size_t)start * (size_t)(dtype_bits(v->dtype) / 8) : NULL;

	if (p && v->dtype == OV_DT_FLOAT) {
		for (int k = 0; k < n; k++) {
			float f;
			memcpy(&f, p + 4 * (size_t)k, 4);
			out[k] = f;
		}
	} else if (p && v->dtype == OV_DT_FLOAT16) {
		for (int k = 0; k < n; k++)
			out[k] = ov_f16_to_f32((uint16_t)(p[2 * k] | p[2 * k + 1] << 8));
	} else if (p && v->dtype == OV_DT_BFLOAT16) {
		for (int k = 0; k < n; k++)
			out[k] = ov_bf16_to_f32((uint16_t)(p[2 * k] | p[2 * k + 1] << 8));
	} else if (p && v->dtype == OV_DT_DOUBLE) {
		memcpy(out, p, 8 * (size_t)n);
	} else {
		for (int k = 0; k < n; k++)
			out[k] = tensor_view_get(v, start + k);
	}
}

static enum tensor_stats_kind kind_of(int32_t dt)
{
	switch (dt) {
	case OV_DT_INT8: case OV_DT_UINT8: case OV_DT_INT16: case OV_DT_UINT16: case OV_DT_INT32: case OV_DT_UINT32:
	case OV_DT_INT64: case OV_DT_INT4: case OV_DT_UINT4: case OV_DT_INT2: case OV_DT_UINT2:
		return TENSOR_STATS_INT;
	case OV_DT_UINT64:
		return TENSOR_STATS_UINT64;
	case OV_DT_STRING: case OV_DT_UNDEFINED:
		return TENSOR_STATS_NONE;
	default:
		return dtype_known(dt) ? TENSOR_STATS_FLOAT : TENSOR_STATS_NONE;
	}
}

/* Integer min and max from the integers themselves (an int64 near 2^63 has no exact double). */
static void exact_int_range(const struct tensor_view *v, struct tensor_stats *s)
{
	for (int64_t i = 0; i < v->numel; i++) {
		int64_t x = tensor_view_int(v, i);
		if (s->kind == TENSOR_STATS_UINT64) {
			uint64_t u = (uint64_t)x;
			if (i == 0 || u < s->umin)
				s->umin = u, s->argmin = i;
			if (i == 0 || u > s->umax)
				s->umax = u, s->argmax = i;
		} else {
			if (i == 0 || x < s->imin)
				s->imin = x, s->argmin = i;
			if (i == 0 || x > s->imax)
				s->imax = x, s->argmax = i;
		}
	}
}

int tensor_stats_compute(const struct tensor_view *v, struct tensor_stats *s)
{
	double buf[BLOCK], sum = 0;

	memset(s, 0, sizeof *s);
	s->kind = kind_of(v->dtype);
	s->count = v->numel;
	s->argmin = s->argmax = -1;
	if (s->kind == TENSOR_STATS_NONE)
		return -1;
	/* Pass 1: classes, range, sum. */
	for (int64_t start = 0; start < v->numel; start += BLOCK) {
		int n = v->numel - start < BLOCK ? (int)(v->numel - start) : BLOCK;
		double bsum = 0; /* per-block partial sums keep the rounding error of long tensors small */
		double bmin = INFINITY, bmax = -INFINITY;
		int64_t bfinite = 0, bzeros = 0;
		load_block(v, start, n, buf);
		/* The loop keeps no indices and few branches; where the block's extremes sit is looked up after. */
		for (int k = 0; k < n; k++) {
			double x = buf[k];
			if (x - x != 0) { /* NaN or an infinity */
				if (x != x)
					s->nans++;
				else if (x > 0)
					s->pos_inf++;
				else
					s->neg_inf++;
				continue;
			}
			bmin = x < bmin ? x : bmin;
			bmax = x > bmax ? x : bmax;
			bzeros += x == 0;
			bsum += x;
			bfinite++;
		}
		if (bfinite) {
			if (!s->finite || bmin < s->min) {
				s->min = bmin;
				for (int k = 0; k < n; k++)
					if (buf[k] == bmin) {
						s->argmin = start + k;
						break;
					}
			}
			if (!s->finite || bmax > s->max) {
				s->max = bmax;
				for (int k = 0; k < n; k++)
					if (buf[k] == bmax) {
						s->argmax = start + k;
						break;
					}
			}
		}
		s->finite += bfinite;
		s->zeros += bzeros;
		sum += bsum;
	}
	if (!s->finite)
		return 0;
	s->mean = sum / (double)s->finite;
	int running = !isfinite(s->mean); /* the sum overflowed (doubles near DBL_MAX): a running mean instead */
	if (running)
		s->mean = 0;
	/* Pass 2: the spread around the mean (corrected two-pass: the c term cancels the mean's rounding error). */
	double ss = 0, c = 0;
	int64_t seen = 0;
	for (int64_t start = 0; start < v->numel; start += BLOCK) {
		int n = v->numel - start < BLOCK ? (int)(v->numel - start) : BLOCK;
		double bss = 0, bc = 0;
		int k = 0;
		load_block(v, start, n, buf);
		if (!running && s->finite == s->count) { /* no NaN or Inf anywhere: four independent sums */
			double q0 = 0, q1 = 0, q2 = 0, q3 = 0, c0 = 0, c1 = 0, c2 = 0, c3 = 0;
			for (; k + 4 <= n; k += 4) {
				double d0 = buf[k] - s->mean, d1 = buf[k + 1] - s->mean;
				double d2 = buf[k + 2] - s->mean, d3 = buf[k + 3] - s->mean;
				q0 += d0 * d0, q1 += d1 * d1, q2 += d2 * d2, q3 += d3 * d3;
				c0 += d0, c1 += d1, c2 += d2, c3 += d3;
			}
			bss = (q0 + q1) + (q2 + q3);
			bc = (c0 + c1) + (c2 + c3);
		}
		for (; k < n; k++) {
			double x = buf[k];
			if (!isfinite(x))
				continue;
			if (running) {
				s->mean += (x - s->mean) / (double)++seen;
				continue;
			}
			double d = x - s->mean;
			bss += d * d;
			bc += d;
		}
		ss += bss;
		c += bc;
	}
	if (running) {
		s->std = NAN; /* values this large have no useful spread in double */
	} else {
		double var = (ss - c * c / (double)s->finite) / (double)s->finite;
		s->std = var > 0 ? sqrt(var) : 0;
	}
	if (s->kind != TENSOR_STATS_FLOAT)
		exact_int_range(v, s);
	return 0;
}

uint64_t tensor_histogram(const struct tensor_view *v, const struct tensor_stats *s, uint64_t *bins, int n_bins)
{
	double buf[BLOCK];
	uint64_t top = 0;

	if (n_bins <= 0)
		return 0;
	memset(bins, 0, (size_t)n_bins * sizeof *bins);
	if (s->kind == TENSOR_STATS_NONE || !s->finite)
		return 0;
	/* A span wider than DBL_MAX (-1e308 .. 1e308) is measured in halves, which loses nothing that matters. */
	double half = isfinite(s->max - s->min) ? 1 : 0.5;
	double lo = s->min * half, span = s->max * half - lo;
	double scale = span > 0 ? n_bins / span : 0;
	/* Neighbouring values often share a bin: counting into four copies in turn keeps each increment from waiting
	 * for the one before (up to LANE_BINS bins; more count straight into bins). */
	uint64_t lanes[4][LANE_BINS];
	int use_lanes = n_bins <= LANE_BINS;
	if (use_lanes)
		memset(lanes, 0, sizeof lanes);
	for (int64_t start = 0; start < v->numel; start += BLOCK) {
		int n = v->numel - start < BLOCK ? (int)(v->numel - start) : BLOCK;
		load_block(v, start, n, buf);
		for (int k = 0; k < n; k++) {
			double x = buf[k];
			if (!isfinite(x))
				continue;
			double f = (x * half - lo) * scale;
			int b = f >= n_bins ? n_bins - 1 : f > 0 ? (int)f : 0;
			if (use_lanes)
				lanes[k & 3][b]++;
			else
				bins[b]++;
		}
	}
	for (int b = 0; b < n_bins; b++) {
		if (use_lanes)
			bins[b] = lanes[0][b] + lanes[1][b] + lanes[2][b] + lanes[3][b];
		if (bins[b] > top)
			top = bins[b];
	}
	return top;
}
