/* Resize's arithmetic, shared by the CPU kernels (cpu/resize.c) and the CUDA kernels (cuda/resize.cu): coordinate
 * transformations from an output index back into the input, the nearest-pixel rounding modes, the linear/cubic
 * filter taps (with antialias, exclude_outside and cubic_coeff_a) and the weighted sum one output of a separable
 * pass computes.  GridSample's coordinate helpers are here too.  The per-axis tables built from these on the host
 * are src/exec/ops/resize-params.h's.
 *
 * Everything is a static inline OV_HD function of scalars, in double, following ONNX's reference
 * implementation (onnx/reference/ops/op_resize.py): a separable filter, taps clamped to the edge. */
#ifndef OV_EXEC_RESIZE_H
#define OV_EXEC_RESIZE_H

#include <math.h>
#include <stdint.h>

#ifndef OV_HD
#ifdef __CUDACC__
#define OV_HD __host__ __device__
#else
#define OV_HD
#endif
#endif

enum ov_resize_coord {
	OV_RC_HALF_PIXEL,
	OV_RC_HALF_PIXEL_SYMMETRIC,
	OV_RC_PYTORCH_HALF_PIXEL,
	OV_RC_ALIGN_CORNERS,
	OV_RC_ASYMMETRIC,
	OV_RC_TF_HALF_PIXEL_FOR_NN,
	OV_RC_TF_CROP_AND_RESIZE,
};

enum ov_resize_nearest {
	OV_RN_ROUND_PREFER_FLOOR,
	OV_RN_ROUND_PREFER_CEIL,
	OV_RN_FLOOR,
	OV_RN_CEIL,
	OV_RN_SIMPLE, /* Resize-10 and Upsample: floor, but ceil when downsampling */
};

enum ov_resize_mode {
	OV_RM_NEAREST,
	OV_RM_LINEAR,
	OV_RM_CUBIC,
};

/* The input coordinate of output index x along an axis of in_len -> out_len at scale (roi_start/roi_end: the
 * normalised crop of tf_crop_and_resize). */
static inline OV_HD double ov_resize_coord(enum ov_resize_coord mode, double x, double scale, int64_t in_len,
					   int64_t out_len, double roi_start, double roi_end)
{
	switch (mode) {
	case OV_RC_HALF_PIXEL_SYMMETRIC: {
		double adjustment = (double)out_len / (scale * (double)in_len);
		double center = (double)in_len / 2;
		return center * (1 - adjustment) + (x + 0.5) / scale - 0.5;
	}
	case OV_RC_PYTORCH_HALF_PIXEL:
		return out_len > 1 ? (x + 0.5) / scale - 0.5 : 0;
	case OV_RC_ALIGN_CORNERS: {
		/* the resized length is scale * in_len, not rounded (ONNX's reference and its tests: they differ
		 * from out_len only when scales give a fractional size) */
		double len = scale * (double)in_len;
		return len == 1 ? 0 : x * (double)(in_len - 1) / (len - 1);
	}
	case OV_RC_ASYMMETRIC:
		return x / scale;
	case OV_RC_TF_HALF_PIXEL_FOR_NN:
		return (x + 0.5) / scale;
	case OV_RC_TF_CROP_AND_RESIZE:
		return out_len > 1 ? roi_start * (double)(in_len - 1) +
					     x * (roi_end - roi_start) * (double)(in_len - 1) / (double)(out_len - 1)
				   : 0.5 * (roi_start + roi_end) * (double)(in_len - 1);
	case OV_RC_HALF_PIXEL:
	default:
		return (x + 0.5) / scale - 0.5;
	}
}

/* The nearest input index to coordinate x (not yet clamped). downsample: for OV_RN_SIMPLE. */
static inline OV_HD int64_t ov_resize_nearest(enum ov_resize_nearest mode, double x, int downsample)
{
	double f = floor(x);

	if (x == f)
		return (int64_t)f;
	switch (mode) {
	case OV_RN_ROUND_PREFER_CEIL:
		return (int64_t)(x - f >= 0.5 ? f + 1 : f);
	case OV_RN_FLOOR:
		return (int64_t)f;
	case OV_RN_CEIL:
		return (int64_t)f + 1;
	case OV_RN_SIMPLE:
		return downsample ? (int64_t)f + 1 : (int64_t)f;
	case OV_RN_ROUND_PREFER_FLOOR:
	default:
		return (int64_t)(x - f > 0.5 ? f + 1 : f);
	}
}

/* The cubic convolution kernel with coefficient a (Keys; a = -0.75 for Resize's default, PyTorch's and
 * GridSample's). */
static inline OV_HD double ov_cubic_kernel(double x, double a)
{
	x = fabs(x);
	if (x <= 1)
		return ((a + 2) * x - (a + 3)) * x * x + 1;
	if (x < 2)
		return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
	return 0;
}

/* The first tap and the tap count of the filter for a mode at filter scale fs (1, or min(scale, 1) with
 * antialias, which stretches the filter by 1/fs when downsampling): taps are floor(x) + i for
 * i in [first, first + count). */
static inline OV_HD void ov_resize_taps(enum ov_resize_mode mode, double fs, int64_t *first, int64_t *count)
{
	double support = mode == OV_RM_CUBIC ? 2 : 1;
	int64_t start = (int64_t)floor(-support / fs) + 1;

	*first = start;
	*count = 2 - 2 * start; /* the reference's [start, 2 - start) for both filters */
}

/* Weight of tap floor(x) + i where t = x - floor(x). */
static inline OV_HD double ov_resize_weight(enum ov_resize_mode mode, double fs, double cubic_a, int64_t i, double t)
{
	double arg = fs * ((double)i - t);

	if (mode == OV_RM_CUBIC)
		return ov_cubic_kernel(arg, cubic_a);
	arg = 1 - fabs(arg);
	return arg > 0 ? arg : 0;
}

/* One output of a separable pass along an axis: the sum of the n inputs x[0], x[stride], ... weighted by w (the
 * axis's table for that output, ops/resize-params.h).  Where the stride is 1 (the innermost axis, or one followed only by
 * axes of length 1) the sum is in double; elsewhere it is in the tensor's type T with the weights rounded to T, and
 * zero weights are skipped (so an infinite input under a zero weight is left out there, but gives NaN at stride 1).
 * That split is the CPU's original loop structure, kept so that both backends give the same bits. */
#define OV_RESIZE_DEFINE_TAP_SUM(T, NAME)                                                                        \
	static inline OV_HD T NAME(const T *x, int64_t stride, const double *w, int64_t n)                      \
	{                                                                                                        \
		if (stride == 1) {                                                                               \
			double acc = 0;                                                                          \
			for (int64_t t = 0; t < n; t++)                                                          \
				acc += w[t] * x[t];                                                              \
			return (T)acc;                                                                           \
		}                                                                                                \
		T acc = 0;                                                                                       \
		for (int64_t t = 0; t < n; t++) {                                                                \
			T wt = (T)w[t];                                                                          \
			if (wt == 0)                                                                             \
				continue;                                                                        \
			acc += wt * x[t * stride];                                                               \
		}                                                                                                \
		return acc;                                                                                      \
	}
OV_RESIZE_DEFINE_TAP_SUM(float, ov_resize_tap_sum_f)
OV_RESIZE_DEFINE_TAP_SUM(double, ov_resize_tap_sum_d)

/* GridSample: a normalised grid coordinate in [-1, 1] to a pixel coordinate along an axis of len. */
static inline OV_HD double ov_grid_denormalize(double g, int64_t len, int align_corners)
{
	return align_corners ? (g + 1) / 2 * (double)(len - 1) : ((g + 1) * (double)len - 1) / 2;
}

/* GridSample's reflection of x into [lo, hi]. */
static inline OV_HD double ov_grid_reflect(double x, double lo, double hi)
{
	double range = hi - lo;

	if (range <= 0)
		return lo;
	if (x < lo) {
		double dx = lo - x;
		double n = floor(dx / range), r = dx - n * range;
		return floor(n / 2) * 2 == n ? lo + r : hi - r; /* n even */
	}
	if (x > hi) {
		double dx = x - hi;
		double n = floor(dx / range), r = dx - n * range;
		return floor(n / 2) * 2 == n ? hi - r : lo + r;
	}
	return x;
}

#endif
