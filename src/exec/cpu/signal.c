/* CPU signal processing: DFT, STFT, MelWeightMatrix, and the Hann, Hamming and Blackman windows. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "src/exec/exec.h"
#include "src/exec/ops/index.h"

#define MAXR XT_MAX_RANK
#define PI 3.14159265358979323846

/* ---- HannWindow, HammingWindow, BlackmanWindow ------------------------------------------------------------------- */

enum window { WIN_HANN, WIN_HAMMING, WIN_BLACKMAN };

static int window_run(struct exec_kernel_ctx *k, enum window w)
{
	const struct xtensor *s = xk_in(k, 0);
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
	const struct xtensor *x = xk_in(k, 0), *lt = xk_in(k, 1), *at = axis_from_input ? xk_in(k, 2) : NULL;
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
	const struct xtensor *x = xk_in(k, 0), *fs = xk_in(k, 1), *win = xk_in(k, 2), *fl = xk_in(k, 3);
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
		if (!(t[i] = xk_in(k, i)) || t[i]->numel != 1)
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

const struct exec_kernel cpu_signal_kernels[] = {
	{.op = "HannWindow", .since = 17, .fn = k_hann},
	{.op = "HammingWindow", .since = 17, .fn = k_hamming},
	{.op = "BlackmanWindow", .since = 17, .fn = k_blackman},
	{.op = "DFT", .since = 17, .fn = k_dft17},
	{.op = "DFT", .since = 20, .fn = k_dft20},
	{.op = "STFT", .since = 17, .fn = k_stft},
	{.op = "MelWeightMatrix", .since = 17, .fn = k_mel_weight_matrix},
};
const size_t cpu_signal_count = sizeof cpu_signal_kernels / sizeof cpu_signal_kernels[0];
