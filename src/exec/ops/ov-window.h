/* Sliding-window geometry shared by Conv, ConvTranspose and the pools, on the CPU and (later) in CUDA kernels:
 * output sizes, auto_pad, and the span of a window that lies inside the input.
 *
 * Everything here is a static inline OV_HD function of plain integers: no allocation, no failure paths beyond a
 * return value, so a device kernel can call the same code.  The conventions follow ONNX and src/graph/shape-nn.c:
 *   ek  = (k - 1) * d + 1                      the dilated kernel extent
 *   out = floor((in + pb + pe - ek) / s) + 1   (ceil with ceil_mode, dropping a last window that starts in the
 *                                               end padding)
 *   SAME_UPPER / SAME_LOWER: out = ceil(in / s), the total padding max(0, (out - 1) * s + ek - in) split evenly,
 *   the odd one at the end (UPPER) or the beginning (LOWER). */
#ifndef OV_EXEC_WINDOW_H
#define OV_EXEC_WINDOW_H

#include <stdint.h>

#ifndef OV_HD
#ifdef __CUDACC__
#define OV_HD __host__ __device__
#else
#define OV_HD
#endif
#endif

enum ov_auto_pad {
	OV_PAD_NOTSET,
	OV_PAD_SAME_UPPER,
	OV_PAD_SAME_LOWER,
	OV_PAD_VALID,
};

/* Dilated kernel extent. */
static inline OV_HD int64_t ov_window_extent(int64_t k, int64_t d)
{
	return (k - 1) * d + 1;
}

/* Resolve auto_pad into explicit begin/end pads (NOTSET keeps *pb, *pe). Conv and the pools. */
static inline OV_HD void ov_window_auto_pad(enum ov_auto_pad ap, int64_t in, int64_t k, int64_t s, int64_t d,
					    int64_t *pb, int64_t *pe)
{
	if (ap == OV_PAD_VALID) {
		*pb = *pe = 0;
	} else if (ap == OV_PAD_SAME_UPPER || ap == OV_PAD_SAME_LOWER) {
		int64_t out = (in + s - 1) / s;
		int64_t total = (out - 1) * s + ov_window_extent(k, d) - in;
		if (total < 0)
			total = 0;
		if (ap == OV_PAD_SAME_UPPER) {
			*pb = total / 2;
			*pe = total - total / 2;
		} else {
			*pe = total / 2;
			*pb = total - total / 2;
		}
	}
}

/* Output length of a window sliding over in (pads already resolved); -1 when the dilated kernel does not fit
 * in the padded input. */
static inline OV_HD int64_t ov_window_out(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe,
					  int ceil_mode)
{
	int64_t span = in + pb + pe - ov_window_extent(k, d);

	if (s <= 0 || span < 0)
		return -1;
	int64_t o = ceil_mode ? (span + s - 1) / s + 1 : span / s + 1;
	if (ceil_mode && (o - 1) * s >= in + pb) /* a last window starting in the end padding is dropped */
		o--;
	return o;
}

/* The taps of output position o whose input position start + t * d lies in [0, in): t in [*t0, *t1).
 * start = o * s - pb. */
static inline OV_HD void ov_window_taps(int64_t o, int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb,
					int64_t *t0, int64_t *t1)
{
	int64_t start = o * s - pb;
	int64_t a = start >= 0 ? 0 : (-start + d - 1) / d;
	int64_t b = in - start <= 0 ? 0 : (in - start + d - 1) / d;

	if (b > k)
		b = k;
	if (a > b)
		a = b;
	*t0 = a;
	*t1 = b;
}

/* AveragePool's divisor with count_include_pad: the taps inside the padded input [-pb, in + pe) (taps beyond the
 * end padding, which ceil_mode can add, never count). */
static inline OV_HD int64_t ov_window_padded_taps(int64_t o, int64_t in, int64_t k, int64_t s, int64_t d,
						  int64_t pb, int64_t pe)
{
	int64_t t0, t1;

	ov_window_taps(o, in + pb + pe, k, s, d, 0, &t0, &t1);
	return t1 - t0;
}

/* ConvTranspose: the pads that give output length out (SAME_* or an explicit output_shape):
 * total = s * (in - 1) + output_padding + ek - out, split evenly, the odd one at the beginning for SAME_LOWER,
 * at the end otherwise (as for Conv; the ONNX tests' convention). */
static inline OV_HD void ov_window_transpose_pads(enum ov_auto_pad ap, int64_t in, int64_t k, int64_t s, int64_t d,
						  int64_t opad, int64_t out, int64_t *pb, int64_t *pe)
{
	int64_t total = s * (in - 1) + opad + ov_window_extent(k, d) - out;

	if (total < 0)
		total = 0;
	if (ap == OV_PAD_SAME_LOWER) {
		*pb = total - total / 2;
		*pe = total / 2;
	} else {
		*pb = total / 2;
		*pe = total - total / 2;
	}
}

/* ConvTranspose's output length from explicit pads. */
static inline OV_HD int64_t ov_window_transpose_out(int64_t in, int64_t k, int64_t s, int64_t d, int64_t opad,
						    int64_t pb, int64_t pe)
{
	return s * (in - 1) + opad + ov_window_extent(k, d) - pb - pe;
}

/* ---- MaxUnpool's indices ----
 * An index counts in the shape MaxPool's input had (def: the output's shape when output_shape is absent); an
 * output_shape larger than def keeps each value at its coordinates (rank dims, at most 16). */
struct ov_unpool_map {
	int rank, remap;           /* remap: output_shape differs from def */
	int64_t def_numel, out_numel;
	int64_t def[16], out[16];
};

/* The map for a Y of dims out (rank at most 16) whose indices count in def; has_shape: output_shape was given. */
static inline OV_HD void ov_unpool_setup(struct ov_unpool_map *m, int rank, const int64_t *def, const int64_t *out,
					 int has_shape)
{
	m->rank = rank;
	m->remap = 0;
	m->def_numel = m->out_numel = 1;
	for (int d = 0; d < rank && d < 16; d++) {
		m->def[d] = def[d], m->out[d] = out[d];
		m->def_numel *= def[d];
		m->out_numel *= out[d];
		m->remap |= has_shape && def[d] != out[d];
	}
}

/* Where index at lands in Y, or -1 when it is outside the tensor it counts in. */
static inline OV_HD int64_t ov_unpool_target(const struct ov_unpool_map *m, int64_t at)
{
	if (!m->remap)
		return at >= 0 && at < m->out_numel ? at : -1;
	if (at < 0 || at >= m->def_numel)
		return -1;
	int64_t pos = 0, stride = 1;
	for (int d = m->rank - 1; d >= 0; d--) {
		pos += (at % m->def[d]) * stride;
		at /= m->def[d];
		stride *= m->out[d];
	}
	return pos;
}

#endif
