/* Unit tests of the CPU neural-network kernels (src/exec/cpu/conv.c, cpu/gemm.c, cpu/pool.c, cpu/norm.c,
 * cpu/resize.c) and their shared arithmetic (ops/ov-window.h, ops/ov-resize.h), on what the ONNX node tests leave out:
 * Conv and ConvTranspose against naive loops over random geometries (groups, depthwise, dilations, strides,
 * asymmetric pads, auto_pad, 1-D to 3-D, the tiled im2col path, the 3x3 depthwise blocks at every width), a Relu
 * or Clip fused into Conv (bit for bit the separate kernels, and invisible to --all, --to and --from), MatMul
 * broadcasting, Einsum equations, pooling corners (dilated Indices in both storage orders, ceil_mode with
 * count_include_pad), opset-dependent semantics (Softmax before/after 13, GroupNormalization 18/21), Resize's antialias, axes, aspect-ratio policies
 * and crop extrapolation, GridSample in 3-D, and hostile attributes that must fail with one line. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/exec.h"
#include "src/graph/graph.h"
#include "src/model/model.h"
#include "src/exec/ops/ov-resize.h"
#include "src/exec/ops/ov-window.h"
#include "src/exec/cpu/sgemm.h"
#include "tests/unit/tap.h"

#include "tests/unit/knode.h"

/* ---- tensors ------------------------------------------------------------------------------------------------- */

static uint64_t rng = 88172645463325252ull;

static double urand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / (double)(1ull << 53);
}

static int64_t irand(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(urand() * (double)(hi - lo + 1));
}

static void mk(struct xtensor *t, int32_t dt, int rank, const int64_t *dims, const double *v)
{
	struct ov_error e;
	if (xt_alloc(t, dt, rank, dims, &e))
		abort();
	for (int64_t i = 0; v && i < t->numel; i++)
		xt_set(t, i, v[i]);
}

static void mk_rand(struct xtensor *t, int32_t dt, int rank, const int64_t *dims)
{
	mk(t, dt, rank, dims, NULL);
	for (int64_t i = 0; i < t->numel; i++)
		xt_set(t, i, dt == OV_DT_INT32 || dt == OV_DT_INT64 ? (double)irand(-5, 5) : urand() * 2 - 1);
}

/* max |a - b| / (1 + |b|) over the elements; dims must agree (else INFINITY) */
static double diff(const struct xtensor *a, const struct xtensor *b)
{
	double m = 0;
	if (a->rank != b->rank || a->numel != b->numel)
		return INFINITY;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return INFINITY;
	for (int64_t i = 0; i < a->numel; i++) {
		double x = xt_get(a, i), y = xt_get(b, i), d = fabs(x - y) / (1 + fabs(y));
		if (d != d)
			return INFINITY;
		m = d > m ? d : m;
	}
	return m;
}

static int same(const struct xtensor *t, int rank, const int64_t *dims, const double *want, double tol)
{
	if (t->rank != rank)
		return 0;
	for (int i = 0; i < rank; i++)
		if (t->dims[i] != dims[i])
			return 0;
	for (int64_t i = 0; i < t->numel; i++) {
		double g = xt_get(t, i);
		if (!(fabs(g - want[i]) <= tol * (1 + fabs(want[i]))))
			return 0;
	}
	return 1;
}

static void dump(const char *what, const struct xtensor *t)
{
	char b[128];
	xt_describe(t, b, sizeof b);
	printf("#   %s %s:", what, b);
	for (int64_t i = 0; i < t->numel && i < 40; i++)
		printf(" %g", xt_get(t, i));
	printf("\n");
}

/* ---- the shared arithmetic ------------------------------------------------------------------------------------- */

static void test_window_math(void)
{
	int64_t pb = 0, pe = 0;

	ov_window_auto_pad(OV_PAD_SAME_UPPER, 5, 3, 2, 1, &pb, &pe);
	OK(pb == 1 && pe == 1, "SAME_UPPER 5/k3/s2: pads 1,1 (got %lld,%lld)", (long long)pb, (long long)pe);
	ov_window_auto_pad(OV_PAD_SAME_UPPER, 4, 2, 1, 1, &pb, &pe);
	OK(pb == 0 && pe == 1, "SAME_UPPER puts the odd pad at the end");
	ov_window_auto_pad(OV_PAD_SAME_LOWER, 4, 2, 1, 1, &pb, &pe);
	OK(pb == 1 && pe == 0, "SAME_LOWER puts the odd pad at the beginning");
	ov_window_auto_pad(OV_PAD_SAME_UPPER, 7, 3, 1, 2, &pb, &pe);
	OK(pb == 2 && pe == 2, "SAME with dilation 2 pads the dilated extent");
	OK(ov_window_out(4, 3, 2, 1, 0, 0, 1) == 2 && ov_window_out(4, 3, 2, 1, 0, 0, 0) == 1, "ceil_mode adds a window");
	OK(ov_window_out(5, 2, 2, 1, 1, 1, 1) == 3, "ceil_mode drops a window starting in the end padding");
	OK(ov_window_out(2, 5, 1, 1, 0, 0, 0) == -1, "a kernel larger than the input has no output");
	int64_t t0, t1;
	ov_window_taps(0, 5, 3, 1, 2, 2, &t0, &t1);
	OK(t0 == 1 && t1 == 3, "taps of a dilated window clipped at the start (%lld..%lld)", (long long)t0, (long long)t1);
	ov_window_taps(3, 5, 3, 1, 2, 0, &t0, &t1);
	OK(t0 == 0 && t1 == 1, "taps clipped at the end (%lld..%lld)", (long long)t0, (long long)t1);
	OK(ov_window_padded_taps(2, 4, 3, 2, 1, 1, 1) == 2, "count_include_pad never counts taps past the end pad");
}

static void test_resize_math(void)
{
	OK(ov_resize_coord(OV_RC_HALF_PIXEL, 0, 2, 4, 8, 0, 1) == -0.25, "half_pixel");
	OK(ov_resize_coord(OV_RC_ASYMMETRIC, 3, 2, 4, 8, 0, 1) == 1.5, "asymmetric");
	OK(ov_resize_coord(OV_RC_PYTORCH_HALF_PIXEL, 0, 0.25, 4, 1, 0, 1) == 0, "pytorch_half_pixel to length 1");
	OK(ov_resize_coord(OV_RC_ALIGN_CORNERS, 7, 2, 4, 8, 0, 1) == 3, "align_corners hits the last pixel");
	OK(fabs(ov_resize_coord(OV_RC_TF_CROP_AND_RESIZE, 1, 1, 5, 3, 0.25, 0.75) - 2) < 1e-12, "tf_crop_and_resize");
	/* half_pixel_symmetric: 3 -> floor(3 * 0.5) = 1 output at scale 0.5: adjustment 1 / 1.5, centred */
	OK(fabs(ov_resize_coord(OV_RC_HALF_PIXEL_SYMMETRIC, 0, 0.5, 3, 1, 0, 1) - 1.0) < 1e-12,
	   "half_pixel_symmetric keeps a fractional output centred (%g)",
	   ov_resize_coord(OV_RC_HALF_PIXEL_SYMMETRIC, 0, 0.5, 3, 1, 0, 1));
	OK(ov_resize_nearest(OV_RN_ROUND_PREFER_FLOOR, 1.5, 0) == 1 && ov_resize_nearest(OV_RN_ROUND_PREFER_CEIL, 1.5, 0) == 2,
	   "round_prefer_floor / ceil at .5");
	OK(ov_resize_nearest(OV_RN_FLOOR, 2.0, 0) == 2 && ov_resize_nearest(OV_RN_CEIL, 2.0, 0) == 2 &&
		   ov_resize_nearest(OV_RN_CEIL, 2.1, 0) == 3 && ov_resize_nearest(OV_RN_FLOOR, -0.5, 0) == -1,
	   "floor / ceil keep integers");
	OK(ov_resize_nearest(OV_RN_SIMPLE, 1.25, 1) == 2 && ov_resize_nearest(OV_RN_SIMPLE, 1.75, 0) == 1,
	   "Resize-10's nearest: ceil when downsampling, floor when upsampling");
	int64_t first, count;
	ov_resize_taps(OV_RM_CUBIC, 1, &first, &count);
	OK(first == -1 && count == 4, "cubic: 4 taps from floor(x) - 1");
	ov_resize_taps(OV_RM_LINEAR, 0.25, &first, &count);
	OK(first == -3 && count == 8, "linear antialias at 1/4: 8 taps");
	double s = 0;
	for (int i = 0; i < 4; i++)
		s += ov_resize_weight(OV_RM_CUBIC, 1, -0.75, i - 1, 0.3);
	OK(fabs(s - 1) < 1e-12, "cubic weights sum to 1");
	OK(fabs(ov_grid_reflect(-0.7, -0.5, 3.5) + 0.3) < 1e-12 && fabs(ov_grid_reflect(4.0, -0.5, 3.5) - 3.0) < 1e-12,
	   "GridSample reflection");
}

/* ---- Conv ------------------------------------------------------------------------------------------------------ */

struct conv_case {
	int n;                        /* spatial rank */
	int64_t nb, c, m, group, in[3], k[3], s[3], d[3], pb[3], pe[3];
	const char *auto_pad;
	int bias;
};

/* Naive Conv in double straight from the definition. */
static void conv_ref(const struct conv_case *cc, const struct xtensor *x, const struct xtensor *w,
		     const struct xtensor *b, struct xtensor *y, const int64_t *out)
{
	int n = cc->n;
	int64_t cg = cc->c / cc->group, mg = cc->m / cc->group, osz = 1, ksz = 1, isz = 1;
	for (int i = 0; i < n; i++)
		osz *= out[i], ksz *= cc->k[i], isz *= cc->in[i];
	for (int64_t bn = 0; bn < cc->nb; bn++)
		for (int64_t m = 0; m < cc->m; m++)
			for (int64_t o = 0; o < osz; o++) {
				int64_t oi[3], rem = o;
				for (int i = n - 1; i >= 0; i--)
					oi[i] = rem % out[i], rem /= out[i];
				double acc = b ? xt_get(b, m) : 0;
				int64_t g = m / mg;
				for (int64_t c = 0; c < cg; c++)
					for (int64_t kk = 0; kk < ksz; kk++) {
						int64_t ki[3], r2 = kk, off = 0, inside = 1;
						for (int i = n - 1; i >= 0; i--)
							ki[i] = r2 % cc->k[i], r2 /= cc->k[i];
						for (int i = 0; i < n; i++) {
							int64_t ii = oi[i] * cc->s[i] - cc->pb[i] + ki[i] * cc->d[i];
							if (ii < 0 || ii >= cc->in[i])
								inside = 0;
							off = off * cc->in[i] + ii;
						}
						if (inside)
							acc += xt_get(x, ((bn * cc->c) + g * cg + c) * isz + off) *
							       xt_get(w, (m * cg + c) * ksz + kk);
					}
				xt_set(y, (bn * cc->m + m) * osz + o, acc);
			}
}

/* The Conv node of cc in t, random X, W, B of dtype dt, and the output dims in out. */
static void conv_setup(struct conv_case *cc, int32_t dt, struct tnode *t, struct xtensor *x, struct xtensor *w,
		       struct xtensor *b, int64_t *out)
{
	int64_t xd[5] = {cc->nb, cc->c}, wd[5] = {cc->m, cc->c / cc->group}, bd[1] = {cc->m}, pads[6];
	int n = cc->n;

	for (int i = 0; i < n; i++) {
		xd[2 + i] = cc->in[i];
		wd[2 + i] = cc->k[i];
		pads[i] = cc->pb[i];
		pads[n + i] = cc->pe[i];
	}
	mk_rand(x, dt, n + 2, xd);
	mk_rand(w, dt, n + 2, wd);
	mk_rand(b, dt, 1, bd);
	node(t, "Conv");
	set_int(t, "group", cc->group);
	set_ints(t, "strides", cc->s, (size_t)n);
	set_ints(t, "dilations", cc->d, (size_t)n);
	if (cc->auto_pad) {
		set_str(t, "auto_pad", cc->auto_pad);
		for (int i = 0; i < n; i++) {
			cc->pb[i] = cc->pe[i] = 0;
			ov_window_auto_pad(!strcmp(cc->auto_pad, "SAME_UPPER") ? OV_PAD_SAME_UPPER
					   : !strcmp(cc->auto_pad, "SAME_LOWER") ? OV_PAD_SAME_LOWER
										  : OV_PAD_VALID,
					   cc->in[i], cc->k[i], cc->s[i], cc->d[i], &cc->pb[i], &cc->pe[i]);
		}
	} else {
		set_ints(t, "pads", pads, (size_t)(2 * n));
	}
	out[0] = cc->nb;
	out[1] = cc->m;
	for (int i = 0; i < n; i++)
		out[2 + i] = ov_window_out(cc->in[i], cc->k[i], cc->s[i], cc->d[i], cc->pb[i], cc->pe[i], 0);
}

static int conv_check(struct conv_case *cc, int32_t dt, double tol, const char *what)
{
	struct tnode t;
	struct xtensor x, w, b, y, ref;
	int64_t out[5];
	int n = cc->n;

	conv_setup(cc, dt, &t, &x, &w, &b, out);
	const struct xtensor *in[3] = {&x, &w, &b};
	int rc = run(&t, 11, in, cc->bias ? 3 : 2, &y, 1);
	int ok = 0;
	if (rc) {
		printf("#   %s: %s\n", what, t.err.msg);
	} else {
		mk(&ref, OV_DT_DOUBLE, n + 2, out, NULL);
		conv_ref(cc, &x, &w, cc->bias ? &b : NULL, &ref, out + 2);
		double e = diff(&y, &ref);
		ok = e <= tol && y.dtype == dt;
		if (!ok)
			printf("#   %s: error %g\n", what, e);
		xt_free(&ref);
		xt_free(&y);
	}
	xt_free(&x);
	xt_free(&w);
	xt_free(&b);
	return ok;
}

static void test_conv(void)
{
	int bad = 0, total = 0;
	for (int it = 0; it < 60; it++) {
		struct conv_case cc = {0};
		cc.n = 1 + (int)irand(0, 2);
		cc.nb = irand(1, 2);
		cc.group = irand(1, 3);
		int depthwise = it % 4 == 0;
		if (depthwise) {
			cc.c = cc.group = irand(2, 5);
			cc.m = cc.c * irand(1, 2);
		} else {
			cc.c = cc.group * irand(1, 3);
			cc.m = cc.group * irand(1, 3);
		}
		for (int i = 0; i < cc.n; i++) {
			cc.in[i] = irand(cc.n == 3 ? 2 : 3, cc.n == 3 ? 5 : 9);
			cc.k[i] = irand(1, 3);
			cc.s[i] = irand(1, 3);
			cc.d[i] = irand(1, 2);
			cc.pb[i] = irand(0, 2);
			cc.pe[i] = irand(0, 2);
			while ((cc.k[i] - 1) * cc.d[i] + 1 > cc.in[i] + cc.pb[i] + cc.pe[i])
				cc.d[i] = 1, cc.k[i]--;
		}
		if (it % 5 == 1)
			cc.auto_pad = it % 10 == 1 ? "SAME_UPPER" : "SAME_LOWER";
		else if (it % 7 == 3)
			cc.auto_pad = "VALID";
		if (cc.auto_pad && !strcmp(cc.auto_pad, "VALID"))
			for (int i = 0; i < cc.n; i++)
				cc.k[i] = cc.k[i] > cc.in[i] ? cc.in[i] : cc.k[i], cc.d[i] = 1;
		cc.bias = it % 3 != 0;
		char what[64];
		snprintf(what, sizeof what, "case %d (%dD, group %lld)", it, cc.n, (long long)cc.group);
		bad += !conv_check(&cc, it % 6 == 5 ? OV_DT_DOUBLE : OV_DT_FLOAT, 1e-5, what);
		total++;
	}
	OK(!bad, "Conv matches the naive loop on %d random geometries (%d differ)", total, bad);

	struct conv_case pw = {.n = 2, .nb = 2, .c = 8, .m = 5, .group = 1, .in = {6, 7}, .k = {1, 1}, .s = {1, 1},
			       .d = {1, 1}, .bias = 1};
	OK(conv_check(&pw, OV_DT_FLOAT, 1e-5, "pointwise"), "pointwise Conv (no im2col)");
	struct conv_case pw2 = pw;
	pw2.s[0] = pw2.s[1] = 2;
	OK(conv_check(&pw2, OV_DT_FLOAT, 1e-5, "pointwise strided"), "strided 1x1 Conv");
	/* strided 1x1 Convs go through the pointwise paths on the positions they read, gathered: the register-blocked
	 * kernel (few inputs, 64+ positions), the panels (many inputs), the plain product (few positions), with
	 * strides unequal and past the plane's end, two groups, two images, 1-D */
	static const int64_t s1x1[][8] = {
		/* c, m, group, in h, in w, stride h, stride w, images */
		{32, 24, 1, 40, 40, 2, 2, 1}, {300, 40, 1, 30, 28, 2, 2, 2}, {16, 20, 1, 9, 7, 3, 2, 1},
		{64, 48, 2, 33, 17, 2, 1, 2}, {48, 64, 1, 1, 301, 1, 3, 1},
	};
	int s1bad = 0;
	for (size_t i = 0; i < sizeof s1x1 / sizeof s1x1[0]; i++) {
		const int64_t *q = s1x1[i];
		struct conv_case sc = {.n = 2, .nb = q[7], .c = q[0], .m = q[1], .group = q[2], .in = {q[3], q[4]},
				       .k = {1, 1}, .s = {q[5], q[6]}, .d = {1, 1}, .bias = (int)(i % 2)};
		char what[64];
		snprintf(what, sizeof what, "strided 1x1 case %zu", i);
		s1bad += !conv_check(&sc, OV_DT_FLOAT, 1e-4, what);
	}
	OK(!s1bad, "strided 1x1 Convs through the pointwise paths match the naive loop (%d differ)", s1bad);
	/* im2col tiles: 64 channels x 3x3 = 576 rows, 66x66 outputs: more than one tile */
	struct conv_case big = {.n = 2, .nb = 1, .c = 64, .m = 3, .group = 1, .in = {66, 66}, .k = {3, 3},
				.s = {1, 1}, .d = {1, 1}, .pb = {1, 1}, .pe = {1, 1}, .bias = 1};
	OK(conv_check(&big, OV_DT_FLOAT, 1e-4, "tiled"), "Conv through several im2col tiles");
	struct conv_case dw = {.n = 2, .nb = 1, .c = 6, .m = 6, .group = 6, .in = {9, 8}, .k = {3, 3}, .s = {2, 2},
			       .d = {1, 1}, .pb = {1, 1}, .pe = {1, 1}, .bias = 1};
	OK(conv_check(&dw, OV_DT_FLOAT, 1e-5, "depthwise s2"), "depthwise Conv, stride 2");
	struct conv_case dw3 = dw;
	dw3.s[0] = dw3.s[1] = 3;
	dw3.d[1] = 2;
	OK(conv_check(&dw3, OV_DT_DOUBLE, 1e-9, "depthwise s3 d2"), "depthwise Conv, stride 3, dilation 2, double");
	/* the float depthwise paths: stride 1 (flattened plane) and 2 (vector, deinterleaved), wide rows,
	 * dilation, channel multiplier 2, 3x3 and other kernels, 1-D */
	static const int64_t dws[][6] = {{1, 1, 3, 3, 1, 1}, {2, 2, 3, 3, 1, 2}, {2, 1, 3, 3, 2, 1}, {1, 2, 5, 2, 1, 1},
					 {3, 3, 3, 3, 1, 1}, {2, 2, 1, 1, 1, 1}};
	int dwbad = 0;
	for (size_t i = 0; i < sizeof dws / sizeof dws[0]; i++) {
		struct conv_case c = {.n = 2, .nb = 2, .c = 3, .m = 6, .group = 3, .in = {13, 37},
				      .k = {dws[i][2], dws[i][3]}, .s = {dws[i][0], dws[i][1]},
				      .d = {dws[i][4], dws[i][5]}, .pb = {1, 2}, .pe = {2, 1}, .bias = 1};
		dwbad += !conv_check(&c, OV_DT_FLOAT, 1e-5, "depthwise float");
	}
	struct conv_case dw1 = {.n = 1, .nb = 1, .c = 4, .m = 4, .group = 4, .in = {40}, .k = {3}, .s = {2}, .d = {1},
				.pb = {1}, .pe = {1}, .bias = 0};
	dwbad += !conv_check(&dw1, OV_DT_FLOAT, 1e-5, "depthwise 1-D");
	OK(!dwbad, "float depthwise paths (%d differ)", dwbad);
	/* pads wider than the input: whole im2col rows of padding, in both tiles and directions */
	struct conv_case wide = {.n = 2, .nb = 1, .c = 2, .m = 3, .group = 1, .in = {2, 3}, .k = {3, 2}, .s = {2, 3},
				 .d = {1, 2}, .pb = {5, 7}, .pe = {4, 6}, .bias = 1};
	OK(conv_check(&wide, OV_DT_FLOAT, 1e-5, "wide pads"), "Conv with pads wider than the input");
	/* rows longer than an im2col tile, whose second tile starts inside the end padding */
	struct conv_case longrow = {.n = 2, .nb = 1, .c = 2, .m = 2, .group = 1, .in = {2, 500}, .k = {1, 2},
				    .s = {1, 1}, .d = {1, 1}, .pb = {0, 3}, .pe = {0, 1000}, .bias = 0};
	OK(conv_check(&longrow, OV_DT_FLOAT, 1e-5, "long rows"), "Conv whose tiles split rows inside the padding");
	struct conv_case h = {.n = 2, .nb = 1, .c = 4, .m = 2, .group = 2, .in = {5, 5}, .k = {3, 3}, .s = {1, 1},
			      .d = {1, 1}, .pb = {1, 1}, .pe = {1, 1}, .bias = 1};
	OK(conv_check(&h, OV_DT_FLOAT16, 5e-3, "float16"), "float16 Conv through float32");

	/* hostile attributes */
	struct tnode t;
	struct xtensor x, w, y;
	int64_t xd[4] = {1, 2, 4, 4}, wd[4] = {3, 2, 5, 5};
	mk_rand(&x, OV_DT_FLOAT, 4, xd);
	mk_rand(&w, OV_DT_FLOAT, 4, wd);
	const struct xtensor *in[2] = {&x, &w};
	node(&t, "Conv");
	OK(run(&t, 11, in, 2, &y, 1) == -1 && strstr(t.err.msg, "larger than the padded input"),
	   "a kernel larger than the input fails: %s", t.err.msg);
	int64_t zs[2] = {0, 1}, np[4] = {-1, 0, 0, 0};
	node(&t, "Conv");
	set_ints(&t, "strides", zs, 2);
	OK(run(&t, 11, in, 2, &y, 1) == -1 && strstr(t.err.msg, "stride"), "zero stride fails: %s", t.err.msg);
	node(&t, "Conv");
	set_ints(&t, "pads", np, 4);
	OK(run(&t, 11, in, 2, &y, 1) == -1 && strstr(t.err.msg, "negative pads"), "negative pads fail: %s", t.err.msg);
	node(&t, "Conv");
	set_int(&t, "group", 3);
	OK(run(&t, 11, in, 2, &y, 1) == -1, "a group that does not divide fails: %s", t.err.msg);
	node(&t, "Conv");
	set_ints(&t, "strides", zs, 1);
	OK(run(&t, 11, in, 2, &y, 1) == -1, "strides of the wrong length fail: %s", t.err.msg);
	int64_t bigk[2] = {3, 3};
	node(&t, "Conv");
	set_ints(&t, "kernel_shape", bigk, 2);
	OK(run(&t, 11, in, 2, &y, 1) == -1 && strstr(t.err.msg, "kernel_shape"), "kernel_shape disagreeing with W fails");
	xt_free(&x);
	xt_free(&w);
}

/* ---- Conv with a fused activation ------------------------------------------------------------------------- */

/* Conv of cc offered act: a float kernel must take it and give, bit for bit, what Conv and then the Relu or Clip
 * kernel give (nan_at >= 0 puts a NaN into X there); a double or float16 one must leave it to the runner. */
static int conv_act_check(struct conv_case *cc, int32_t dt, const struct exec_act *act, int64_t nan_at,
			  const char *what)
{
	struct tnode t, ta;
	struct xtensor x, w, b, y0, y1, y2, lo, hi;
	int64_t out[5];
	int done = -1, ok = 0;

	conv_setup(cc, dt, &t, &x, &w, &b, out);
	if (nan_at >= 0)
		xt_set(&x, nan_at, NAN);
	const struct xtensor *in[3] = {&x, &w, &b};
	memset(&y1, 0, sizeof y1);
	memset(&y2, 0, sizeof y2);
	mk(&lo, dt, 0, NULL, (double[]){act->lo});
	mk(&hi, dt, 0, NULL, (double[]){act->hi});
	if (run(&t, 11, in, cc->bias ? 3 : 2, &y0, 1)) {
		printf("#   %s: %s\n", what, t.err.msg);
		goto out;
	}
	node(&ta, act->kind == EXEC_ACT_RELU ? "Relu" : "Clip");
	const struct xtensor *ain[3] = {&y0, &lo, &hi};
	if (run(&ta, 13, ain, act->kind == EXEC_ACT_RELU ? 1 : 3, &y1, 1) ||
	    run_act(&t, 11, in, cc->bias ? 3 : 2, &y2, 1, act, &done)) {
		printf("#   %s: %s %s\n", what, t.err.msg, ta.err.msg);
		goto out;
	}
	if (dt != OV_DT_FLOAT) {
		ok = !done && !memcmp(y0.data, y2.data, y0.bytes);
		if (!ok)
			printf("#   %s: a %s Conv took the activation\n", what, dtype_short_name(dt));
		goto out;
	}
	ok = done == 1 && y1.bytes == y2.bytes && !memcmp(y1.data, y2.data, y1.bytes);
	if (!ok) {
		int64_t at = -1;
		for (int64_t i = 0; at < 0 && i < y1.numel && y1.numel == y2.numel; i++)
			if (memcmp((float *)y1.data + i, (float *)y2.data + i, sizeof(float)))
				at = i;
		printf("#   %s: done %d, first difference at %lld (%g, %g)\n", what, done, (long long)at,
		       at >= 0 ? xt_get(&y1, at) : 0.0, at >= 0 ? xt_get(&y2, at) : 0.0);
	}
out:
	xt_free(&x);
	xt_free(&w);
	xt_free(&b);
	xt_free(&y0);
	xt_free(&y1);
	xt_free(&y2);
	xt_free(&lo);
	xt_free(&hi);
	return ok;
}

static void test_conv_act(void)
{
	static const struct exec_act acts[] = {
		{EXEC_ACT_RELU, 0, 0},
		{EXEC_ACT_CLIP, -0.25f, 0.5f},
		{EXEC_ACT_CLIP, 0.3f, -0.2f}, /* min > max: everything is max */
		{EXEC_ACT_CLIP, -INFINITY, 0.1f},
	};
	struct conv_case cases[] = {
		/* pointwise, output blocks of 816 columns: 3 of them, the last short */
		{.n = 2, .nb = 1, .c = 4, .m = 80, .group = 1, .in = {40, 50}, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
		 .bias = 1},
		{.n = 2, .nb = 2, .c = 3, .m = 5, .group = 1, .in = {7, 7}, .k = {1, 1}, .s = {1, 1}, .d = {1, 1}},
		/* im2col */
		{.n = 2, .nb = 1, .c = 3, .m = 4, .group = 1, .in = {9, 11}, .k = {3, 3}, .s = {1, 1}, .d = {1, 1},
		 .pb = {1, 1}, .pe = {1, 1}, .bias = 1},
		/* depthwise 3x3, stride 1 and 2 (rows spilling into the next row and plane), multiplier 2, batch 2 */
		{.n = 2, .nb = 2, .c = 5, .m = 5, .group = 5, .in = {7, 7}, .k = {3, 3}, .s = {1, 1}, .d = {1, 1},
		 .pb = {1, 1}, .pe = {1, 1}, .bias = 1},
		{.n = 2, .nb = 1, .c = 3, .m = 6, .group = 3, .in = {14, 13}, .k = {3, 3}, .s = {2, 2}, .d = {1, 1},
		 .pb = {1, 0}, .pe = {1, 1}, .bias = 1},
		/* depthwise through the general planes: 5x5, and 3x3 with dilation 2 */
		{.n = 2, .nb = 1, .c = 3, .m = 3, .group = 3, .in = {9, 12}, .k = {5, 5}, .s = {1, 1}, .d = {1, 1},
		 .pb = {2, 2}, .pe = {2, 2}},
		{.n = 2, .nb = 1, .c = 3, .m = 3, .group = 3, .in = {9, 12}, .k = {3, 3}, .s = {2, 2}, .d = {2, 2},
		 .pb = {2, 2}, .pe = {2, 2}, .bias = 1},
	};
	int bad = 0, total = 0;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		for (size_t a = 0; a < sizeof acts / sizeof acts[0]; a++) {
			char what[64];
			snprintf(what, sizeof what, "case %zu, activation %zu", i, a);
			bad += !conv_act_check(&cases[i], OV_DT_FLOAT, &acts[a], a == 1 ? 17 : -1, what);
			total++;
		}
	OK(!bad, "Conv with a fused Relu/Clip gives the separate kernels' bits (%d of %d differ)", bad, total);
	OK(conv_act_check(&cases[0], OV_DT_DOUBLE, &acts[1], -1, "double") &&
		   conv_act_check(&cases[3], OV_DT_FLOAT16, &acts[1], -1, "float16"),
	   "double and float16 Convs leave the activation to the runner");

	/* the 3x3 depthwise path against the definition: every width around the 8-wide blocks, both strides,
	 * asymmetric pads (SAME's), a multiplier, two images */
	int dwbad = 0;
	for (int64_t wd = 1; wd <= 19; wd++)
		for (int64_t st = 1; st <= 2; st++) {
			struct conv_case c = {.n = 2, .nb = 2, .c = 2, .m = 4, .group = 2, .in = {wd % 5 + 3, wd},
					      .k = {3, 3}, .s = {st, st}, .d = {1, 1}, .pb = {st - 1, 1},
					      .pe = {1, st == 2 ? 0 : 1}, .bias = (int)(wd % 2)};
			if (wd < 2 && st == 2)
				continue;
			char what[64];
			snprintf(what, sizeof what, "3x3 depthwise width %lld stride %lld", (long long)wd, (long long)st);
			dwbad += !conv_check(&c, OV_DT_FLOAT, 1e-5, what);
		}
	OK(!dwbad, "3x3 depthwise, widths 1 to 19, strides 1 and 2 (%d differ)", dwbad);

	/* depthwise windows on small planes (src/exec/cpu/depthwise.c): 8 channels in the lanes, eight output
	 * positions at a time across rows, the rest one plane at a time.  Nine channels, each the same plane and
	 * kernel: channel 8 goes by planes, so every channel must give its bits; and the definition's values.  Planes
	 * whose positions are and are not a multiple of 8, 5x5 and dilated 3x3 windows, strides 1 and 2. */
	int lanebad = 0;
	const int64_t lane_geom[][5] = {{7, 7, 5, 1, 1}, {14, 14, 5, 1, 1}, {14, 14, 5, 2, 1}, {9, 12, 3, 1, 2},
					{6, 5, 3, 2, 2}, {3, 11, 5, 1, 1}, {8, 8, 5, 1, 1}};
	for (size_t gi = 0; gi < sizeof lane_geom / sizeof lane_geom[0]; gi++) {
		const int64_t *q = lane_geom[gi];
		int64_t kk = q[2], pad = (kk - 1) / 2 * q[4];
		struct conv_case c = {.n = 2, .nb = 2, .c = 9, .m = 9, .group = 9, .in = {q[0], q[1]}, .k = {kk, kk},
				      .s = {q[3], q[3]}, .d = {q[4], q[4]}, .pb = {pad, pad}, .pe = {pad, pad}, .bias = 1};
		struct tnode t;
		struct xtensor x, w, b, y, ref;
		int64_t out[5], plane = q[0] * q[1], taps = kk * kk;
		conv_setup(&c, OV_DT_FLOAT, &t, &x, &w, &b, out);
		float *xf = x.data, *wf = w.data, *bf = b.data;
		for (int64_t n = 0; n < 2; n++)
			for (int64_t ch = 0; ch < 9; ch++)
				memcpy(xf + (n * 9 + ch) * plane, xf, (size_t)plane * sizeof *xf);
		for (int64_t ch = 1; ch < 9; ch++) {
			memcpy(wf + ch * taps, wf, (size_t)taps * sizeof *wf);
			bf[ch] = bf[0];
		}
		const struct xtensor *in[3] = {&x, &w, &b};
		char what[80];
		snprintf(what, sizeof what, "%lldx%lld plane, %lldx%lld window, stride %lld, dilation %lld",
			 (long long)q[0], (long long)q[1], (long long)kk, (long long)kk, (long long)q[3], (long long)q[4]);
		if (run(&t, 11, in, 3, &y, 1)) {
			printf("#   %s: %s\n", what, t.err.msg);
			lanebad++;
		} else {
			int64_t on = out[2] * out[3];
			const float *yf = y.data;
			int same = 1;
			for (int64_t n = 0; n < 2; n++)
				for (int64_t ch = 0; ch < 9; ch++)
					same &= !memcmp(yf + (n * 9 + ch) * on, yf, (size_t)on * sizeof *yf);
			mk(&ref, OV_DT_DOUBLE, 4, out, NULL);
			conv_ref(&c, &x, &w, &b, &ref, out + 2);
			double e = diff(&y, &ref);
			if (!same || e > 1e-5) {
				printf("#   %s: %s, error %g\n", what, same ? "same bits" : "channels differ", e);
				lanebad++;
			}
			xt_free(&ref);
			xt_free(&y);
		}
		xt_free(&x);
		xt_free(&w);
		xt_free(&b);
	}
	OK(!lanebad, "depthwise windows on small planes: the lanes give the planes' bits, and the definition's values "
		     "(%d of 7 differ)", lanebad);

	/* the direct pointwise kernel (64 positions or more, few inputs): outputs not a multiple of its 4 rows,
	 * positions past the blocks of 24 and of 8, groups, two images, one input */
	int pwbad = 0, pwn = 0;
	for (int64_t mo = 1; mo <= 9; mo += 2)
		for (int64_t hw = 64; hw <= 100; hw += 9) {
			struct conv_case c = {.n = 2, .nb = 1 + hw % 2, .c = 2 * (1 + hw % 3), .m = 2 * mo,
					      .group = 1 + mo % 2, .in = {1, hw}, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
					      .bias = (int)(mo % 3 != 0)};
			char what[64];
			snprintf(what, sizeof what, "pointwise %lld x %lld positions", (long long)c.m, (long long)hw);
			pwbad += !conv_check(&c, OV_DT_FLOAT, 1e-5, what);
			pwn++;
		}
	struct conv_case one = {.n = 2, .nb = 1, .c = 1, .m = 5, .group = 1, .in = {9, 9}, .k = {1, 1}, .s = {1, 1},
				.d = {1, 1}, .bias = 1};
	pwbad += !conv_check(&one, OV_DT_FLOAT, 1e-5, "pointwise, one input");
	/* 16 inputs: stretches of 240 positions (X's share of L1), the last one short, then 8 and the rest */
	struct conv_case stretch = {.n = 2, .nb = 1, .c = 16, .m = 6, .group = 1, .in = {1, 613}, .k = {1, 1},
				    .s = {1, 1}, .d = {1, 1}, .bias = 1};
	pwbad += !conv_check(&stretch, OV_DT_FLOAT, 1e-5, "pointwise, stretches");
	/* many inputs, or few positions: the strips (up to 256 positions), the 4-row kernel (up to 192 inputs) with
	 * 4 and 1 rows, the panels (more) */
	static const int64_t wide[][3] = {{130, 13, 70}, {200, 9, 49}, {3, 21, 20}, {300, 8, 7}, {150, 11, 300},
					  {192, 6, 259}, {300, 13, 300}};
	for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
		struct conv_case c = {.n = 2, .nb = 1, .c = wide[i][0], .m = wide[i][1], .group = 1,
				      .in = {1, wide[i][2]}, .k = {1, 1}, .s = {1, 1}, .d = {1, 1}, .bias = (int)(i % 2)};
		pwbad += !conv_check(&c, OV_DT_FLOAT, 1e-4, "pointwise, many inputs");
	}
	OK(!pwbad, "direct pointwise Conv on %d geometries (%d differ)", pwn + 9, pwbad);
}

/* The direct path (src/exec/cpu/conv-direct.c: 12 output channels or more per group, 32 products or more) against
 * the definition: channel counts around its panels of 16, positions around its blocks of 6 and 5 (one position,
 * 7x7's 49, a plane ending inside a block), strides 1 to 3, dilations, asymmetric and wide pads, groups, 1-D, two
 * images; and with each fused activation, bit for bit the separate kernels. */
static void test_conv_direct(void)
{
	static const struct exec_act acts[] = {
		{EXEC_ACT_RELU, 0, 0},
		{EXEC_ACT_CLIP, -0.25f, 0.5f},
		{EXEC_ACT_CLIP, 0.3f, -0.2f},
	};
	int bad = 0, total = 0, abad = 0, atotal = 0;

	for (int it = 0; it < 48; it++) {
		struct conv_case c = {.n = it % 8 == 7 ? 1 : 2, .nb = 1 + it % 3 / 2, .group = 1 + (it % 5 == 4)};
		int64_t mg = (int64_t[]){12, 16, 17, 20, 31, 32, 33, 48}[it % 8];
		c.m = mg * c.group;
		c.c = c.group * irand(4, 9);
		for (int i = 0; i < c.n; i++) {
			c.in[i] = (int64_t[]){1, 7, 5, 9, 13, 3}[(it + 2 * i) % 6] + (c.n == 1 ? 20 : 0);
			c.k[i] = irand(1, 3);
			c.s[i] = irand(1, 3);
			c.d[i] = irand(1, 2);
			c.pb[i] = irand(0, 3);
			c.pe[i] = irand(0, 2);
			while ((c.k[i] - 1) * c.d[i] + 1 > c.in[i] + c.pb[i] + c.pe[i])
				c.d[i] = 1, c.k[i]--;
		}
		if (c.n == 2 && c.k[0] * c.k[1] * (c.c / c.group) < 32)
			c.k[0] = c.k[1] = 3, c.d[0] = c.d[1] = 1, c.pb[0] = c.pb[1] = c.pe[0] = c.pe[1] = 1;
		if (c.n == 1 && c.k[0] * (c.c / c.group) < 32)
			c.k[0] = 5, c.d[0] = 1, c.pb[0] = c.pe[0] = 2;
		c.bias = it % 3 != 0;
		char what[96];
		snprintf(what, sizeof what, "direct case %d (%dD, %lld->%lld, group %lld)", it, c.n, (long long)c.c,
			 (long long)c.m, (long long)c.group);
		bad += !conv_check(&c, OV_DT_FLOAT, 1e-4, what);
		total++;
		if (it % 4 == 0) {
			abad += !conv_act_check(&c, OV_DT_FLOAT, &acts[it / 4 % 3], it % 8 == 0 ? 3 : -1, what);
			atotal++;
		}
	}
	/* ResNet's shapes, small: 7x7 planes (blocks of 5), 14x14 (of 6), the first layer's 7x7 stride 2; MobileNet's
	 * first layer (27 products) */
	static const int64_t shapes[][6] = {{32, 32, 7, 3, 1, 1}, {16, 24, 14, 3, 1, 1}, {3, 16, 30, 7, 2, 3},
					    {24, 40, 9, 3, 2, 1}, {64, 16, 4, 1, 1, 0}, {3, 32, 17, 3, 2, 1}};
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		const int64_t *h = shapes[i];
		struct conv_case c = {.n = 2, .nb = 1, .c = h[0], .m = h[1], .group = 1, .in = {h[2], h[2]},
				      .k = {h[3], h[3]}, .s = {h[4], h[4]}, .d = {1, 1}, .pb = {h[5], h[5]},
				      .pe = {h[5], h[5]}, .bias = 1};
		bad += !conv_check(&c, OV_DT_FLOAT, 1e-4, "direct, a ResNet shape");
		abad += !conv_act_check(&c, OV_DT_FLOAT, &acts[0], -1, "direct, a ResNet shape with Relu");
		total++;
		atotal++;
	}
	/* planes whose padded copy passes DC_PAD_FLOATS: bands of output rows, each padded as it comes (a last band
	 * shorter than the others; pads above and below only in the first and last bands, or wider than a band) */
	static const int64_t bigs[][8] = {
		/* c, m, h, w, k, stride, dilation, pad top (pad bottom 1, left/right 1) */
		{16, 20, 131, 127, 3, 2, 1, 1}, {16, 16, 129, 130, 5, 1, 2, 3}, {24, 12, 101, 112, 3, 3, 1, 2}};
	for (size_t i = 0; i < sizeof bigs / sizeof bigs[0]; i++) {
		const int64_t *h = bigs[i];
		struct conv_case c = {.n = 2, .nb = 1 + (int64_t)i % 2, .c = h[0], .m = h[1], .group = 1, .in = {h[2], h[3]},
				      .k = {h[4], h[4]}, .s = {h[5], h[5]}, .d = {h[6], h[6]}, .pb = {h[7], 1},
				      .pe = {1, 1}, .bias = 1};
		bad += !conv_check(&c, OV_DT_FLOAT, 1e-4, "direct, in bands of rows");
		abad += !conv_act_check(&c, OV_DT_FLOAT, &acts[i % 3], 77, "direct, in bands of rows, fused");
		total++;
		atotal++;
	}
	OK(!bad, "direct Conv matches the naive loop on %d geometries (%d differ)", total, bad);
	OK(!abad, "direct Conv with a fused Relu/Clip gives the separate kernels' bits (%d of %d differ)", abad,
	   atotal);

	/* few products (32 at most: a first layer over RGB), 16 outputs a row or more: positions in the lanes, rows
	 * ending inside a vector and inside the 24 of a block, output channels around its blocks of 4, strides 1
	 * and 2 (the input split by column phase), dilations, pads on one side, wider than the kernel, groups, two
	 * images */
	int rbad = 0, rabad = 0, rtotal = 0;
	for (int it = 0; it < 36; it++) {
		struct conv_case c = {.n = 2, .nb = 1 + it % 4 / 3, .group = 1 + (it % 7 == 6), .bias = it % 5 != 0};
		int64_t mg = (int64_t[]){12, 13, 16, 32, 18, 35}[it % 6], cg = 1 + it % 3;
		c.m = mg * c.group;
		c.c = cg * c.group;
		c.s[0] = 1 + it % 2;
		c.s[1] = 1 + it / 2 % 2;
		c.k[0] = 3;
		c.k[1] = it % 9 == 8 ? 2 : 3;
		c.d[0] = 1 + (it % 11 == 10);
		c.d[1] = 1 + (it % 13 == 12);
		c.pb[0] = it % 3;
		c.pb[1] = it % 4 == 1 ? 4 : it % 2;
		c.pe[0] = 1;
		c.pe[1] = it % 5 == 2 ? 0 : 1;
		c.in[0] = 5 + it % 4;
		/* widths whose outputs are 16 to 50 a row: one vector and a part, a block of 24 and its tail */
		int64_t ow = 16 + (it * 7) % 35;
		c.in[1] = (ow - 1) * c.s[1] + (c.k[1] - 1) * c.d[1] + 1 - c.pb[1] - c.pe[1];
		char what[96];
		snprintf(what, sizeof what, "direct by rows %d (%lld->%lld, stride %lldx%lld, %lld a row)", it,
			 (long long)c.c, (long long)c.m, (long long)c.s[0], (long long)c.s[1], (long long)ow);
		rbad += !conv_check(&c, OV_DT_FLOAT, 1e-4, what);
		rabad += !conv_act_check(&c, OV_DT_FLOAT, &acts[it % 3], it % 6 == 0 ? 5 : -1, what);
		rtotal++;
	}
	/* a first layer over an image whose split input passes the caches (321 x 333, stride 2: about 1.3 MB), done
	 * row after row for every block of channels */
	struct conv_case big = {.n = 2, .nb = 1, .c = 3, .m = 18, .group = 1, .in = {321, 333}, .k = {3, 3}, .s = {2, 2},
				.d = {1, 1}, .pb = {1, 1}, .pe = {1, 0}, .bias = 1};
	rbad += !conv_check(&big, OV_DT_FLOAT, 1e-4, "direct by rows, 3->18 on 321x333, stride 2");
	rabad += !conv_act_check(&big, OV_DT_FLOAT, &acts[1], 7, "direct by rows, 3->18 on 321x333, stride 2");
	rtotal++;
	/* few input channels with more products (up to 160): a 7x7 first layer, 8 channels 3x3, 4 channels 5x5 */
	struct conv_case few[] = {
		{.n = 2, .nb = 1, .c = 3, .m = 21, .group = 1, .in = {40, 45}, .k = {7, 7}, .s = {2, 2}, .d = {1, 1},
		 .pb = {3, 3}, .pe = {3, 2}, .bias = 1},
		{.n = 2, .nb = 2, .c = 8, .m = 10, .group = 1, .in = {9, 30}, .k = {3, 3}, .s = {1, 1}, .d = {1, 1},
		 .pb = {1, 1}, .pe = {1, 1}, .bias = 0},
		{.n = 2, .nb = 1, .c = 8, .m = 12, .group = 2, .in = {17, 40}, .k = {5, 5}, .s = {2, 2}, .d = {1, 1},
		 .pb = {2, 2}, .pe = {2, 2}, .bias = 1},
	};
	for (int i = 0; i < 3; i++) {
		char what[64];
		snprintf(what, sizeof what, "direct by rows, %lld channels, %lldx%lld window", (long long)few[i].c,
			 (long long)few[i].k[0], (long long)few[i].k[1]);
		rbad += !conv_check(&few[i], OV_DT_FLOAT, 1e-4, what);
		rabad += !conv_act_check(&few[i], OV_DT_FLOAT, &acts[i], i == 1 ? 9 : -1, what);
		rtotal++;
	}
	OK(!rbad, "direct Conv by rows (few products) matches the naive loop on %d geometries (%d differ)", rtotal,
	   rbad);
	OK(!rabad, "... and with a fused Relu/Clip gives the separate kernels' bits (%d of %d differ)", rabad, rtotal);
}

/* Winograd's F(2x2, 3x3) (src/exec/cpu/conv-winograd.c: 3x3, stride 1, c m >= 14 (c + m), 8x8 outputs or more) against
 * the definition: odd and even output sizes (a tile half outside), widths around its 8-tile steps, pads from 0 to
 * wider than the kernel and asymmetric, output channels around its panels of 6, bands of tile rows (tall planes, the last band short),
 * two images; and a fused Relu or Clip, bit for bit the separate kernels. */
static void test_conv_winograd(void)
{
	static const int64_t cases[][7] = {
		/* c, m, h, w, pads begin, pads end, images */
		{32, 32, 8, 8, 1, 1, 1},   {32, 35, 9, 9, 1, 1, 2},  {33, 37, 13, 21, 0, 0, 1},
		{40, 32, 10, 33, 2, 1, 1}, {32, 46, 15, 17, 4, 3, 1}, {36, 32, 40, 9, 1, 0, 1},
		{33, 47, 64, 24, 1, 1, 1}, {48, 64, 14, 14, 1, 1, 1}, {96, 24, 12, 19, 1, 1, 1},
		{32, 40, 76, 30, 1, 1, 2}, /* bands of 13 tile rows (its least tiles a band): 13, 13 and 12 */
	};
	static const struct exec_act acts[] = {{EXEC_ACT_RELU, 0, 0}, {EXEC_ACT_CLIP, -0.25f, 0.5f}};
	int bad = 0, abad = 0, n = (int)(sizeof cases / sizeof cases[0]);

	for (int i = 0; i < n; i++) {
		const int64_t *h = cases[i];
		struct conv_case c = {.n = 2, .nb = h[6], .c = h[0], .m = h[1], .group = 1, .in = {h[2], h[3]},
				      .k = {3, 3}, .s = {1, 1}, .d = {1, 1}, .pb = {h[4], h[4]}, .pe = {h[5], h[5]},
				      .bias = i % 3 != 1};
		char what[96];
		snprintf(what, sizeof what, "winograd %lld->%lld on %lldx%lld, pads %lld/%lld", (long long)h[0],
			 (long long)h[1], (long long)h[2], (long long)h[3], (long long)h[4], (long long)h[5]);
		bad += !conv_check(&c, OV_DT_FLOAT, 1e-4, what);
		abad += !conv_act_check(&c, OV_DT_FLOAT, &acts[i % 2], i == 2 ? 40 : -1, what);
	}
	/* the pointwise path through cpu_panels_gemm (more than 192 inputs, more than 256 positions): rows around its
	 * panels of 6, columns around its blocks of 16 and 8 (257, 264, 265, 272, 273, 296), more than its 256
	 * products per pass, groups */
	int pbad = 0, pn = 0;
	for (int64_t i = 0; i < 12; i++) {
		int64_t pos = (int64_t[]){257, 264, 265, 272, 273, 296}[i % 6], group = 1 + i / 6;
		struct conv_case c = {.n = 2, .nb = 1 + i % 2, .c = group * (i % 3 ? 193 : 300),
				      .m = group * (int64_t[]){7, 13, 24}[i % 3], .group = group, .in = {1, pos},
				      .k = {1, 1}, .s = {1, 1}, .d = {1, 1}, .bias = i % 4 != 3};
		char what[96];
		snprintf(what, sizeof what, "panels %lld->%lld, %lld positions, group %lld", (long long)c.c,
			 (long long)c.m, (long long)pos, (long long)group);
		pbad += !conv_check(&c, OV_DT_FLOAT, 1e-4, what);
		pbad += !conv_act_check(&c, OV_DT_FLOAT, &acts[i % 2], -1, what);
		pn++;
	}
	OK(!pbad, "pointwise Conv with many inputs (panels) on %d geometries, with and without activations (%d differ)",
	   pn, pbad);
	OK(!bad, "Winograd Conv matches the naive loop on %d geometries (%d differ)", n, bad);
	OK(!abad, "Winograd Conv with a fused Relu/Clip gives the separate kernels' bits (%d of %d differ)", abad, n);
}

/* Conv of cc offered an Add of a tensor of its output's shape (a NaN in it at nan_at, >= 0) and then act (NULL:
 * none): a path that takes it (want 1) must give, bit for bit, what Conv, Add and the Relu or Clip kernels give; one
 * that does not (want 0) must leave both to the runner and give the Conv's own output. */
static int conv_add_check(struct conv_case *cc, const struct exec_act *act, int64_t nan_at, int want, const char *what)
{
	struct tnode t, ta, tc;
	struct xtensor x, w, b, r, y0, y1, y2, y3, lo, hi;
	int64_t out[5];
	int done = -1, ok = 0;

	conv_setup(cc, OV_DT_FLOAT, &t, &x, &w, &b, out);
	mk_rand(&r, OV_DT_FLOAT, cc->n + 2, out);
	if (nan_at >= 0)
		((float *)r.data)[nan_at % r.numel] = NAN;
	const struct xtensor *in[3] = {&x, &w, &b};
	memset(&y1, 0, sizeof y1);
	memset(&y2, 0, sizeof y2);
	memset(&y3, 0, sizeof y3);
	mk(&lo, OV_DT_FLOAT, 0, NULL, (double[]){act ? act->lo : 0});
	mk(&hi, OV_DT_FLOAT, 0, NULL, (double[]){act ? act->hi : 0});
	node(&ta, "Add");
	const struct xtensor *ain[2] = {&y0, &r};
	if (run(&t, 11, in, cc->bias ? 3 : 2, &y0, 1) || run(&ta, 14, ain, 2, &y1, 1) ||
	    run_add(&t, 11, in, cc->bias ? 3 : 2, &y3, &r, act, &done)) {
		printf("#   %s: %s %s\n", what, t.err.msg, ta.err.msg);
		goto out;
	}
	const struct xtensor *want_y = &y1;
	if (act) {
		node(&tc, act->kind == EXEC_ACT_RELU ? "Relu" : "Clip");
		const struct xtensor *cin[3] = {&y1, &lo, &hi};
		if (run(&tc, 13, cin, act->kind == EXEC_ACT_RELU ? 1 : 3, &y2, 1)) {
			printf("#   %s: %s\n", what, tc.err.msg);
			goto out;
		}
		want_y = &y2;
	}
	if (!want)
		want_y = &y0;
	ok = done == want && want_y->bytes == y3.bytes && !memcmp(want_y->data, y3.data, y3.bytes);
	if (!ok)
		printf("#   %s: add_done %d (want %d), same bits %d\n", what, done, want,
		       want_y->bytes == y3.bytes && !memcmp(want_y->data, y3.data, y3.bytes));
out:
	xt_free(&x);
	xt_free(&w);
	xt_free(&b);
	xt_free(&r);
	xt_free(&y0);
	xt_free(&y1);
	xt_free(&y2);
	xt_free(&y3);
	xt_free(&lo);
	xt_free(&hi);
	return ok;
}

/* The pointwise path through cpu_strips_gemm (src/exec/cpu/strip-gemm.c: under 64 positions, or up to 256 with
 * 96 inputs or more) against the definition: output channels around its strips of 24 and their vectors of 8
 * (1 to 49), positions around its blocks of 4 and 3 and the single ones left (1 to 13, 7x7's 49, 50, 63: X packed;
 * 64 to 256: X in place), one input and many (the prefetch of the next strip shared out among the blocks), groups,
 * two images; and each fused activation bit for bit the separate kernels, a NaN in X too. */
static void test_conv_strips(void)
{
	static const struct exec_act acts[] = {
		{EXEC_ACT_RELU, 0, 0},
		{EXEC_ACT_CLIP, 0.0f, 6.0f},
		{EXEC_ACT_CLIP, -0.25f, 0.5f},
		{EXEC_ACT_CLIP, 0.3f, -0.2f},
	};
	static const int64_t ms[] = {1, 7, 8, 9, 16, 17, 23, 24, 25, 40, 49, 72};
	static const int64_t planes[][2] = {{1, 1}, {1, 2}, {1, 3}, {2, 2}, {1, 5}, {2, 3}, {1, 7}, {3, 3}, {1, 11},
					    {1, 13}, {7, 7}, {5, 10}, {7, 9}, {8, 8}, {1, 65}, {1, 66}, {1, 67},
					    {14, 14}, {15, 17}, {16, 16}, {5, 19}};
	static const int64_t ks[] = {1, 3, 17, 129, 300};
	int bad = 0, abad = 0, n = 0, na = 0;

	for (int it = 0; it < 63; it++) {
		const int64_t *pl = planes[it % 21];
		int64_t k = ks[it % 5], group = 1 + (it % 7 == 3);
		/* more than 63 positions go through the strips only with 96 inputs or more */
		if (pl[0] * pl[1] >= 64 && k < 96)
			k = it % 2 ? 96 + it % 3 : 129 + it % 3;
		struct conv_case c = {.n = 2, .nb = 1 + (it % 4 == 1), .c = group * k, .m = group * ms[it % 12],
				      .group = group, .in = {pl[0], pl[1]}, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
				      .bias = it % 5 != 2};
		char what[96];
		snprintf(what, sizeof what, "strips %lld->%lld, %lldx%lld positions, group %lld", (long long)c.c,
			 (long long)c.m, (long long)pl[0], (long long)pl[1], (long long)group);
		bad += !conv_check(&c, OV_DT_FLOAT, 1e-4, what);
		n++;
		if (it % 2 == 0) {
			abad += !conv_act_check(&c, OV_DT_FLOAT, &acts[it / 2 % 4], it % 6 == 0 ? it % 5 : -1, what);
			na++;
		}
	}
	/* an Add after it (a residual connection), then maybe an activation: the strips, the panels and the 4-row
	 * kernel (positions past its blocks of 24 and 8, outputs past its 4 rows) take it, to the separate kernels'
	 * bits; the other paths leave it to the runner */
	static const int64_t adds[][5] = {
		/* c, m, h, w, takes */
		{40, 13, 7, 7, 1},    {300, 25, 1, 5, 1},  {130, 30, 14, 14, 1}, {150, 49, 1, 257, 1}, {129, 7, 17, 17, 1},
		{200, 17, 3, 100, 1}, {16, 24, 12, 12, 1}, {3, 5, 1, 1, 1},   {96, 33, 14, 14, 1},  {40, 30, 1, 101, 1},
		{192, 32, 28, 28, 1}, {5, 9, 8, 9, 1},     {150, 30, 1, 261, 1}, {300, 200, 1, 1, 1}, {17, 96, 1, 1, 1},
	};
	int addbad = 0, addn = (int)(sizeof adds / sizeof adds[0]);
	for (int i = 0; i < addn; i++) {
		const int64_t *h = adds[i];
		struct conv_case c = {.n = 2, .nb = 1 + (i == 4), .c = h[0], .m = h[1], .group = 1 + (i == 5),
				      .in = {h[2], h[3]}, .k = {1, 1}, .s = {1, 1}, .d = {1, 1}, .bias = i != 3};
		c.c *= c.group, c.m *= c.group;
		char what[96];
		snprintf(what, sizeof what, "Conv %lld->%lld on %lldx%lld with an Add", (long long)c.c, (long long)c.m,
			 (long long)h[2], (long long)h[3]);
		addbad += !conv_add_check(&c, i % 3 ? &acts[i % 4] : NULL, i % 2 ? 7 * i : -1, (int)h[4], what);
	}
	/* one position through four whole strips at once (sg_one4: 96 output channels or more): against the definition,
	 * with each activation to the separate kernels' bits, and to the bits of the one-strip blocks that compute a
	 * plane of two positions, both the same column */
	static const int64_t one4[][3] = {{1, 96, 1}, {17, 97, 2}, {300, 120, 1}, {129, 200, 1}, {64, 1280, 1}};
	int onebad = 0;
	for (int i = 0; i < 5; i++) {
		const int64_t *o = one4[i];
		struct conv_case c1 = {.n = 2, .nb = 1 + (i == 3), .c = o[0] * o[2], .m = o[1] * o[2], .group = o[2],
				       .in = {1, 1}, .k = {1, 1}, .s = {1, 1}, .d = {1, 1}, .bias = i != 2};
		char what[96];
		snprintf(what, sizeof what, "one position, %lld->%lld, group %lld", (long long)c1.c, (long long)c1.m,
			 (long long)c1.group);
		onebad += !conv_check(&c1, OV_DT_FLOAT, 1e-4, what);
		onebad += !conv_act_check(&c1, OV_DT_FLOAT, &acts[i % 4], i == 1 ? 3 : -1, what);
		struct conv_case c2 = c1;
		c2.in[1] = 2;
		struct tnode t1, t2;
		struct xtensor x1, w1, b1, x2, w2, b2, y1, y2;
		int64_t out1[5], out2[5];
		conv_setup(&c1, OV_DT_FLOAT, &t1, &x1, &w1, &b1, out1);
		conv_setup(&c2, OV_DT_FLOAT, &t2, &x2, &w2, &b2, out2);
		memcpy(w2.data, w1.data, w1.bytes);
		memcpy(b2.data, b1.data, b1.bytes);
		for (int64_t q = 0; q < x1.numel; q++)
			((float *)x2.data)[2 * q] = ((float *)x2.data)[2 * q + 1] = ((const float *)x1.data)[q];
		const struct xtensor *in1[3] = {&x1, &w1, &b1}, *in2[3] = {&x2, &w2, &b2};
		if (run(&t1, 11, in1, 3, &y1, 1) || run(&t2, 11, in2, 3, &y2, 1)) {
			printf("#   %s: %s %s\n", what, t1.err.msg, t2.err.msg);
			onebad++;
		} else {
			int same = 1;
			for (int64_t q = 0; q < y1.numel; q++)
				same &= !memcmp((const float *)y1.data + q, (const float *)y2.data + 2 * q, sizeof(float)) &&
					!memcmp((const float *)y1.data + q, (const float *)y2.data + 2 * q + 1, sizeof(float));
			if (!same)
				printf("#   %s: not the bits of a plane of two\n", what);
			onebad += !same;
			xt_free(&y1);
			xt_free(&y2);
		}
		xt_free(&x1), xt_free(&w1), xt_free(&b1), xt_free(&x2), xt_free(&w2), xt_free(&b2);
	}
	OK(!onebad, "pointwise Conv of one position through four strips at once: the definition's values, the separate "
		    "kernels' bits with an activation, a plane of two's bits (%d differ)", onebad);
	/* a 3x3 Conv (the direct path) leaves the Add to the runner */
	struct conv_case c3 = {.n = 2, .nb = 1, .c = 16, .m = 16, .group = 1, .in = {9, 9}, .k = {3, 3}, .s = {1, 1},
			       .d = {1, 1}, .pb = {1, 1}, .pe = {1, 1}, .bias = 1};
	addbad += !conv_add_check(&c3, &acts[1], -1, 0, "3x3 Conv with an Add");
	OK(!bad, "pointwise Conv of small planes (strips) matches the naive loop on %d geometries (%d differ)", n, bad);
	OK(!addbad, "an Add (and an activation) after a pointwise Conv taken into its kernels, to the separate "
		    "kernels' bits, and left to the runner elsewhere (%d of %d differ)", addbad, addn + 1);
	OK(!abad, "pointwise Conv of small planes (strips) with a fused Relu/Clip gives the separate kernels' bits "
		  "(%d of %d differ)", abad, na);
}

/* ---- the runner's fusion of a Relu/Clip into the Conv before it --------------------------------------------- */

/* A model built in memory: x [1,2,6,5] -> Conv(w, b, pads 1) -> c -> Clip(lo, hi) -> y -> Conv(w2) -> d -> Relu -> z,
 * and x -> Conv(w) -> e -> Relu -> f with e also a graph output (two uses: never fused).  Outputs z, f, e. */
struct fuse_model {
	Onnx__ModelProto m;
	Onnx__GraphProto g;
	Onnx__OperatorSetIdProto op;
	Onnx__OperatorSetIdProto *ops[1];
	Onnx__NodeProto nodes[6], *np[6];
	Onnx__AttributeProto pads, *pp[1];
	int64_t pads_v[4];
	Onnx__TensorProto init[5], *ip[5];
	float wv[3 * 2 * 9], bv[3], w2v[2 * 3 * 9], lov, hiv;
	int64_t wd[4], bd[1], w2d[4];
	Onnx__ValueInfoProto vin, vout[3], *vinp[1], *voutp[3];
	char *io[6][3], *outs[6];
};

static void fuse_tensor(Onnx__TensorProto *t, const char *name, int64_t *dims, size_t nd, float *v, size_t n)
{
	onnx__tensor_proto__init(t);
	t->name = (char *)name;
	t->has_data_type = 1;
	t->data_type = OV_DT_FLOAT;
	t->dims = dims;
	t->n_dims = nd;
	t->float_data = v;
	t->n_float_data = n;
}

static void fuse_node(struct fuse_model *f, int i, const char *op, const char *a, const char *b, const char *c,
		      const char *out)
{
	Onnx__NodeProto *n = &f->nodes[i];
	onnx__node_proto__init(n);
	n->op_type = (char *)op;
	f->io[i][0] = (char *)a;
	f->io[i][1] = (char *)b;
	f->io[i][2] = (char *)c;
	f->outs[i] = (char *)out;
	n->input = f->io[i];
	n->n_input = c ? 3 : b ? 2 : 1;
	n->output = &f->outs[i];
	n->n_output = 1;
	f->np[i] = n;
}

static int fuse_load(struct ov_model **m, struct graph **g)
{
	static struct fuse_model f;
	struct ov_error e;

	memset(&f, 0, sizeof f);
	onnx__model_proto__init(&f.m);
	onnx__graph_proto__init(&f.g);
	onnx__operator_set_id_proto__init(&f.op);
	f.op.has_version = 1;
	f.op.version = 13;
	f.ops[0] = &f.op;
	f.m.has_ir_version = 1;
	f.m.ir_version = 8;
	f.m.opset_import = f.ops;
	f.m.n_opset_import = 1;
	f.m.graph = &f.g;
	f.g.name = (char *)"fuse";
	for (size_t i = 0; i < sizeof f.wv / sizeof f.wv[0]; i++)
		f.wv[i] = (float)(urand() * 2 - 1);
	for (size_t i = 0; i < sizeof f.w2v / sizeof f.w2v[0]; i++)
		f.w2v[i] = (float)(urand() * 2 - 1);
	for (int i = 0; i < 3; i++)
		f.bv[i] = (float)(urand() - 0.5);
	f.lov = -0.5f;
	f.hiv = 1.0f;
	memcpy(f.wd, (int64_t[]){3, 2, 3, 3}, sizeof f.wd);
	memcpy(f.w2d, (int64_t[]){2, 3, 3, 3}, sizeof f.w2d);
	f.bd[0] = 3;
	fuse_tensor(&f.init[0], "w", f.wd, 4, f.wv, 54);
	fuse_tensor(&f.init[1], "b", f.bd, 1, f.bv, 3);
	fuse_tensor(&f.init[2], "w2", f.w2d, 4, f.w2v, 54);
	fuse_tensor(&f.init[3], "lo", NULL, 0, &f.lov, 1);
	fuse_tensor(&f.init[4], "hi", NULL, 0, &f.hiv, 1);
	for (int i = 0; i < 5; i++)
		f.ip[i] = &f.init[i];
	f.g.initializer = f.ip;
	f.g.n_initializer = 5;
	fuse_node(&f, 0, "Conv", "x", "w", "b", "c");
	fuse_node(&f, 1, "Clip", "c", "lo", "hi", "y");
	fuse_node(&f, 2, "Conv", "y", "w2", NULL, "d");
	fuse_node(&f, 3, "Relu", "d", NULL, NULL, "z");
	fuse_node(&f, 4, "Conv", "x", "w", NULL, "e");
	fuse_node(&f, 5, "Relu", "e", NULL, NULL, "f");
	onnx__attribute_proto__init(&f.pads);
	f.pads.name = (char *)"pads";
	f.pads.ints = f.pads_v;
	f.pads.n_ints = 4;
	f.pads_v[0] = f.pads_v[1] = f.pads_v[2] = f.pads_v[3] = 1;
	f.pp[0] = &f.pads;
	for (int i = 0; i < 5; i += 2) {
		f.nodes[i].attribute = f.pp;
		f.nodes[i].n_attribute = 1;
	}
	f.g.node = f.np;
	f.g.n_node = 6;
	onnx__value_info_proto__init(&f.vin);
	f.vin.name = (char *)"x";
	f.vinp[0] = &f.vin;
	f.g.input = f.vinp;
	f.g.n_input = 1;
	static const char *outs[3] = {"z", "f", "e"};
	for (int i = 0; i < 3; i++) {
		onnx__value_info_proto__init(&f.vout[i]);
		f.vout[i].name = (char *)outs[i];
		f.voutp[i] = &f.vout[i];
	}
	f.g.output = f.voutp;
	f.g.n_output = 3;
	size_t len = onnx__model_proto__get_packed_size(&f.m);
	uint8_t *buf = malloc(len);
	onnx__model_proto__pack(&f.m, buf);
	int rc = model_load_buffer(m, buf, len, "fuse.onnx", &e) || graph_build(g, (*m)->proto->graph, &e);
	free(buf);
	if (rc)
		printf("#   %s\n", e.msg);
	return rc;
}

static const struct xtensor *fuse_value(const struct exec_result *r, const char *name)
{
	for (size_t i = 0; i < r->n_values; i++)
		if (r->values[i].present && !strcmp(r->values[i].name, name))
			return &r->values[i].t;
	return NULL;
}

/* a and b present, of the same size and bits */
static int fuse_same(const struct xtensor *a, const struct xtensor *b)
{
	return a && b && a->bytes == b->bytes && !memcmp(a->data, b->data, a->bytes);
}

static void test_fusion(void)
{
	struct ov_model *m = NULL;
	struct graph *g = NULL;
	struct ov_error e;
	struct xtensor x;
	struct exec_result plain, all, to, from;
	int64_t xd[4] = {1, 2, 6, 5};

	if (fuse_load(&m, &g)) {
		OK(0, "the fusion model loads");
		return;
	}
	mk_rand(&x, OV_DT_FLOAT, 4, xd);
	for (int64_t i = 0; i < x.numel; i++)
		((float *)x.data)[i] *= 3;
	struct exec_input in = {"x", x};
	struct exec_options o = {0};
	int rc = exec_run(m, g, &o, &in, 1, &plain, &e);
	o.keep_all = 1;
	rc |= exec_run(m, g, &o, &in, 1, &all, &e);
	OK(!rc, "the fusion model runs, plain and with --all (%s)", rc ? e.msg : "");
	if (rc)
		goto out;
	/* --all runs nothing fused: every value is the separate kernels' */
	const struct xtensor *c = fuse_value(&all, "c"), *y = fuse_value(&all, "y"), *d = fuse_value(&all, "d");
	const struct xtensor *z = fuse_value(&all, "z");
	int clipped = c && y && c->numel == y->numel, neg = 0;
	for (int64_t i = 0; clipped && i < c->numel; i++) {
		float cv = ((const float *)c->data)[i];
		neg |= cv < -0.5f;
		clipped = ((const float *)y->data)[i] == (cv < -0.5f ? -0.5f : cv > 1.0f ? 1.0f : cv);
	}
	OK(clipped && neg && d && z, "--all keeps the Conv's output before its Clip (values below min) and after");
	OK(fuse_same(fuse_value(&plain, "z"), z) && fuse_same(fuse_value(&plain, "f"), fuse_value(&all, "f")) &&
		   fuse_same(fuse_value(&plain, "e"), fuse_value(&all, "e")),
	   "fused and unfused runs give the same bits");
	const char *to_c[] = {"c", "y"};
	o = (struct exec_options){.to = to_c, .n_to = 2};
	rc = exec_run(m, g, &o, &in, 1, &to, &e);
	OK(!rc && fuse_same(fuse_value(&to, "c"), c) && fuse_same(fuse_value(&to, "y"), y),
	   "--to the Conv's output keeps it unclipped");
	if (!rc)
		exec_result_free(&to);
	const char *to_d[] = {"d"};
	o = (struct exec_options){.to = to_d, .n_to = 1};
	rc = exec_run(m, g, &o, &in, 1, &to, &e);
	OK(!rc && fuse_same(fuse_value(&to, "d"), d), "--to a value a Relu reads keeps it before the Relu");
	if (!rc)
		exec_result_free(&to);
	const char *from_c[] = {"c"}, *to_z[] = {"z"};
	o = (struct exec_options){.from = from_c, .n_from = 1, .to = to_z, .n_to = 1};
	rc = -1;
	if (c) {
		struct exec_input fed = {"c", *c};
		rc = exec_run(m, g, &o, &fed, 1, &from, &e);
	}
	OK(!rc && fuse_same(fuse_value(&from, "z"), z), "--from the Conv's output clips what is fed");
	if (!rc)
		exec_result_free(&from);
	exec_result_free(&plain);
	exec_result_free(&all);
out:
	xt_free(&x);
	graph_free(g);
	model_free(m);
}

/* ---- the executor's values (xt_alloc_value): big ones in mappings kept for reuse ----------------------------- */

static void test_values(void)
{
	struct ov_error e;
	struct xtensor a, b, many[70];
	int64_t big[1] = {300000}, huge[1] = {10000000}, small[1] = {100};

	/* 40 MB: no other kept mapping (the tests before keep a few of their values') can hold it */
	OK(!xt_alloc_value(&a, OV_DT_FLOAT, 1, huge, 1, &e) && a.owns == 2, "a value of 40 MB gets a mapping");
	int zero = 1;
	for (int64_t i = 0; i < a.numel; i++)
		zero &= ((float *)a.data)[i] == 0;
	memset(a.data, 0x5a, a.bytes);
	uintptr_t pa = (uintptr_t)a.data;
	xt_free(&a);
	OK(!xt_alloc_value(&b, OV_DT_FLOAT, 1, huge, 1, &e) && (uintptr_t)b.data == pa, "a freed mapping is reused");
	for (int64_t i = 0; i < b.numel; i++)
		zero &= ((float *)b.data)[i] == 0;
	OK(zero, "zero-filled when fresh and when reused");
	xt_free(&b);
	OK(!xt_alloc_value(&b, OV_DT_FLOAT, 1, small, 1, &e) && b.owns == 1 && ((float *)b.data)[99] == 0,
	   "a small value stays on the heap");
	xt_free(&b);
	int ok = 1;
	for (int i = 0; i < 70; i++) {
		ok &= !xt_alloc_value(&many[i], OV_DT_FLOAT, 1, big, 0, &e) && many[i].owns != 0;
		if (ok)
			memset(many[i].data, i, many[i].bytes);
	}
	for (int i = 0; ok && i < 70; i++)
		ok &= ((unsigned char *)many[i].data)[many[i].bytes - 1] == i;
	for (int i = 0; i < 70; i++)
		xt_free(&many[i]);
	OK(ok, "70 big values live at once (past the table: from the heap), each its own memory");
}

/* ---- ConvTranspose -------------------------------------------------------------------------------------------- */

static void test_conv_transpose(void)
{
	int bad = 0;
	for (int it = 0; it < 30; it++) {
		int n = 1 + (int)irand(0, 2);
		int64_t nb = irand(1, 2), group = irand(1, 2), c = group * irand(1, 2), mg = irand(1, 3);
		int64_t in[3], k[3], s[3], d[3], pb[3], pe[3], op[3], out[3], xd[5] = {nb, c}, wd[5] = {c, mg};
		int64_t pads[6], osz = 1, isz = 1, ksz = 1;
		for (int i = 0; i < n; i++) {
			in[i] = irand(1, n == 3 ? 3 : 5);
			k[i] = irand(1, 3);
			s[i] = irand(1, 3);
			d[i] = irand(1, 2);
			pb[i] = irand(0, 1);
			pe[i] = irand(0, 1);
			op[i] = irand(0, s[i] > d[i] ? s[i] - 1 : d[i] - 1);
			out[i] = s[i] * (in[i] - 1) + op[i] + (k[i] - 1) * d[i] + 1 - pb[i] - pe[i];
			if (out[i] < 1)
				pb[i] = pe[i] = 0;
			out[i] = s[i] * (in[i] - 1) + op[i] + (k[i] - 1) * d[i] + 1 - pb[i] - pe[i];
			xd[2 + i] = in[i];
			wd[2 + i] = k[i];
			pads[i] = pb[i];
			pads[n + i] = pe[i];
			osz *= out[i], isz *= in[i], ksz *= k[i];
		}
		struct xtensor x, w, b, y, ref;
		int64_t bd[1] = {mg * group}, yd[5] = {nb, mg * group};
		for (int i = 0; i < n; i++)
			yd[2 + i] = out[i];
		mk_rand(&x, OV_DT_FLOAT, n + 2, xd);
		mk_rand(&w, OV_DT_FLOAT, n + 2, wd);
		mk_rand(&b, OV_DT_FLOAT, 1, bd);
		mk(&ref, OV_DT_DOUBLE, n + 2, yd, NULL);
		/* scatter definition: every input element adds w * x at o = i * s - pb + kk * d */
		int64_t cg = c / group;
		for (int64_t bn = 0; bn < nb; bn++)
			for (int64_t ci = 0; ci < c; ci++)
				for (int64_t p = 0; p < isz; p++)
					for (int64_t m = 0; m < mg; m++)
						for (int64_t kk = 0; kk < ksz; kk++) {
							int64_t ii[3], ki[3], r1 = p, r2 = kk, off = 0, inside = 1;
							for (int i = n - 1; i >= 0; i--)
								ii[i] = r1 % in[i], r1 /= in[i], ki[i] = r2 % k[i], r2 /= k[i];
							for (int i = 0; i < n; i++) {
								int64_t o = ii[i] * s[i] - pb[i] + ki[i] * d[i];
								if (o < 0 || o >= out[i])
									inside = 0;
								off = off * out[i] + o;
							}
							if (!inside)
								continue;
							int64_t oc = (ci / cg) * mg + m, at = (bn * mg * group + oc) * osz + off;
							xt_set(&ref, at, xt_get(&ref, at) + xt_get(&x, (bn * c + ci) * isz + p) *
												 xt_get(&w, (ci * mg + m) * ksz + kk));
						}
		for (int64_t i = 0; i < ref.numel; i++)
			xt_set(&ref, i, xt_get(&ref, i) + xt_get(&b, (i / osz) % (mg * group)));
		struct tnode t;
		node(&t, "ConvTranspose");
		set_int(&t, "group", group);
		set_ints(&t, "strides", s, (size_t)n);
		set_ints(&t, "dilations", d, (size_t)n);
		set_ints(&t, "pads", pads, (size_t)(2 * n));
		set_ints(&t, "output_padding", op, (size_t)n);
		const struct xtensor *ins[3] = {&x, &w, &b};
		if (run(&t, 11, ins, 3, &y, 1)) {
			printf("#   case %d: %s\n", it, t.err.msg);
			bad++;
		} else {
			double e = diff(&y, &ref);
			if (e > 1e-5) {
				printf("#   case %d (%dD): error %g\n", it, n, e);
				bad++;
			}
			xt_free(&y);
		}
		xt_free(&x);
		xt_free(&w);
		xt_free(&b);
		xt_free(&ref);
	}
	OK(!bad, "ConvTranspose matches the scatter definition on 30 random geometries (%d differ)", bad);

	/* output_shape with N and C given, and SAME_LOWER */
	struct tnode t;
	struct xtensor x, w, y;
	int64_t xd[4] = {1, 1, 3, 3}, wd[4] = {1, 2, 3, 3}, os[4] = {1, 2, 10, 8};
	mk_rand(&x, OV_DT_FLOAT, 4, xd);
	mk_rand(&w, OV_DT_FLOAT, 4, wd);
	const struct xtensor *in[2] = {&x, &w};
	int64_t st[2] = {3, 2};
	node(&t, "ConvTranspose");
	set_ints(&t, "strides", st, 2);
	set_ints(&t, "output_shape", os, 4);
	OK(!run(&t, 11, in, 2, &y, 1) && y.dims[2] == 10 && y.dims[3] == 8, "output_shape as a full shape");
	xt_free(&y);
	node(&t, "ConvTranspose");
	set_ints(&t, "strides", st, 2);
	set_str(&t, "auto_pad", "SAME_LOWER");
	OK(!run(&t, 11, in, 2, &y, 1) && y.dims[2] == 9 && y.dims[3] == 6, "SAME_LOWER: in * stride");
	xt_free(&y);
	int64_t neg[2] = {-1, 0};
	node(&t, "ConvTranspose");
	set_ints(&t, "output_padding", neg, 2);
	OK(run(&t, 11, in, 2, &y, 1) == -1, "negative output_padding fails: %s", t.err.msg);
	xt_free(&x);
	xt_free(&w);
}

/* ---- Gemm, MatMul, Einsum ---------------------------------------------------------------------------------------- */

static void matmul_ref(const struct xtensor *a, const struct xtensor *b, struct xtensor *y)
{
	/* batch dims broadcast; both operands at least 2-D here */
	int ra = a->rank, rb = b->rank, ry = y->rank;
	int64_t m = a->dims[ra - 2], kk = a->dims[ra - 1], n = b->dims[rb - 1], batches = y->numel / (m * n);
	for (int64_t bi = 0; bi < batches; bi++) {
		int64_t idx[XT_MAX_RANK], rem = bi, aoff = 0, boff = 0, as = 1, bs = 1;
		for (int i = ry - 3; i >= 0; i--)
			idx[i] = rem % y->dims[i], rem /= y->dims[i];
		for (int i = ra - 3, j = ry - 3; i >= 0; i--, j--) {
			aoff += (a->dims[i] == 1 ? 0 : idx[j]) * as;
			as *= a->dims[i];
		}
		for (int i = rb - 3, j = ry - 3; i >= 0; i--, j--) {
			boff += (b->dims[i] == 1 ? 0 : idx[j]) * bs;
			bs *= b->dims[i];
		}
		for (int64_t i = 0; i < m; i++)
			for (int64_t j = 0; j < n; j++) {
				double acc = 0;
				for (int64_t p = 0; p < kk; p++)
					acc += xt_get(a, aoff * m * kk + i * kk + p) * xt_get(b, boff * kk * n + p * n + j);
				xt_set(y, (bi * m + i) * n + j, acc);
			}
	}
}

static void test_matmul(void)
{
	static const struct {
		int ra, rb;
		int64_t a[4], b[4], y[4];
		int ry;
	} cases[] = {
		{2, 2, {3, 4}, {4, 5}, {3, 5}, 2},
		{3, 2, {2, 3, 4}, {4, 5}, {2, 3, 5}, 3},
		{2, 3, {3, 4}, {2, 4, 5}, {2, 3, 5}, 3},
		{4, 3, {2, 1, 3, 4}, {5, 4, 2}, {2, 5, 3, 2}, 4},
		{3, 3, {1, 3, 4}, {6, 4, 2}, {6, 3, 2}, 3},
	};
	struct tnode t;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
		for (int dt = 0; dt < 3; dt++) {
			int32_t types[3] = {OV_DT_FLOAT, OV_DT_DOUBLE, OV_DT_INT64};
			struct xtensor a, b, y, ref;
			mk_rand(&a, types[dt], cases[c].ra, cases[c].a);
			mk_rand(&b, types[dt], cases[c].rb, cases[c].b);
			mk(&ref, OV_DT_DOUBLE, cases[c].ry, cases[c].y, NULL);
			matmul_ref(&a, &b, &ref);
			node(&t, "MatMul");
			const struct xtensor *in[2] = {&a, &b};
			int rc = run(&t, 13, in, 2, &y, 1);
			OK(!rc && diff(&y, &ref) < 1e-5, "MatMul case %zu %s", c, dtype_short_name(types[dt]));
			if (!rc)
				xt_free(&y);
			xt_free(&a);
			xt_free(&b);
			xt_free(&ref);
		}
	/* 1-D promotion on either side */
	double av[3] = {1, 2, 3}, bv[6] = {1, 2, 3, 4, 5, 6};
	int64_t d3[1] = {3}, d32[2] = {3, 2}, d23[2] = {2, 3};
	struct xtensor a, b, y;
	mk(&a, OV_DT_FLOAT, 1, d3, av);
	mk(&b, OV_DT_FLOAT, 2, d32, bv);
	const struct xtensor *in[2] = {&a, &b};
	node(&t, "MatMul");
	int64_t w1[1] = {2};
	double r1[2] = {22, 28};
	OK(!run(&t, 13, in, 2, &y, 1) && same(&y, 1, w1, r1, 1e-6), "MatMul [3] x [3,2] -> [2]");
	xt_free(&y);
	xt_free(&b);
	mk(&b, OV_DT_FLOAT, 2, d23, bv);
	in[0] = &b;
	in[1] = &a;
	double r2[2] = {14, 32};
	OK(!run(&t, 13, in, 2, &y, 1) && same(&y, 1, w1, r2, 1e-6), "MatMul [2,3] x [3] -> [2]");
	xt_free(&y);
	in[0] = &a;
	int64_t w0[1] = {0};
	double r3[1] = {14};
	OK(!run(&t, 13, in, 2, &y, 1) && same(&y, 0, w0, r3, 1e-6), "MatMul [3] x [3] -> scalar");
	xt_free(&y);
	in[0] = &b;
	in[1] = &b;
	OK(run(&t, 13, in, 2, &y, 1) == -1, "MatMul [2,3] x [2,3] fails: %s", t.err.msg);
	xt_free(&a);
	xt_free(&b);

	/* Gemm: transposes and every C broadcast */
	int64_t ad[2] = {4, 3}, bd[2] = {5, 4}, cds[3][2] = {{1, 5}, {3, 1}, {3, 5}};
	int crank[3] = {1, 2, 2};
	for (int ci = 0; ci < 3; ci++) {
		struct xtensor A, B, C, Y;
		mk_rand(&A, OV_DT_FLOAT, 2, ad);
		mk_rand(&B, OV_DT_FLOAT, 2, bd);
		int64_t cdim[2] = {cds[ci][0], cds[ci][1]};
		mk_rand(&C, OV_DT_FLOAT, crank[ci], crank[ci] == 1 ? cdim + 1 : cdim);
		node(&t, "Gemm");
		set_int(&t, "transA", 1);
		set_int(&t, "transB", 1);
		set_float(&t, "alpha", 0.5f);
		set_float(&t, "beta", 2.0f);
		const struct xtensor *gin[3] = {&A, &B, &C};
		int ok = !run(&t, 13, gin, 3, &Y, 1) && Y.dims[0] == 3 && Y.dims[1] == 5;
		for (int64_t i = 0; ok && i < 3; i++)
			for (int64_t j = 0; j < 5; j++) {
				double acc = 0;
				for (int64_t p = 0; p < 4; p++)
					acc += xt_get(&A, p * 3 + i) * xt_get(&B, j * 4 + p);
				int64_t cix = crank[ci] == 1 ? j : (cdim[0] == 1 ? 0 : i) * cdim[1] + (cdim[1] == 1 ? 0 : j);
				if (fabs(xt_get(&Y, i * 5 + j) - (0.5 * acc + 2 * xt_get(&C, cix))) > 1e-5)
					ok = 0;
			}
		OK(ok, "Gemm transA transB alpha beta, C broadcast %d", ci);
		if (Y.data)
			xt_free(&Y);
		xt_free(&A);
		xt_free(&B);
		xt_free(&C);
	}

	/* Gemm of a vector (M = 1: a batch of one, or N = 1), the matrix-vector path: every transpose, with C and
	 * without */
	int vbad = 0;
	for (int shape = 0; shape < 2; shape++)
		for (int tr = 0; tr < 8; tr++) {
			int ta = tr & 1, tb = tr >> 1 & 1, hc = tr >> 2 & 1;
			int64_t M = shape ? 7 : 1, N = shape ? 1 : 9, K = 6;
			int64_t adv[2] = {ta ? K : M, ta ? M : K}, bdv[2] = {tb ? N : K, tb ? K : N}, cdv[1] = {N};
			struct xtensor A, B, C, Y;
			mk_rand(&A, OV_DT_FLOAT, 2, adv);
			mk_rand(&B, OV_DT_FLOAT, 2, bdv);
			mk_rand(&C, OV_DT_FLOAT, 1, cdv);
			node(&t, "Gemm");
			set_int(&t, "transA", ta);
			set_int(&t, "transB", tb);
			set_float(&t, "alpha", 0.5f);
			set_float(&t, "beta", 2.0f);
			const struct xtensor *gin[3] = {&A, &B, &C};
			int ok = !run(&t, 13, gin, hc ? 3 : 2, &Y, 1) && Y.dims[0] == M && Y.dims[1] == N;
			for (int64_t i = 0; ok && i < M; i++)
				for (int64_t j = 0; j < N; j++) {
					double acc = 0;
					for (int64_t p = 0; p < K; p++)
						acc += xt_get(&A, ta ? p * M + i : i * K + p) * xt_get(&B, tb ? j * K + p : p * N + j);
					if (fabs(xt_get(&Y, i * N + j) - (0.5 * acc + (hc ? 2 * xt_get(&C, j) : 0))) > 1e-5)
						ok = 0;
				}
			vbad += !ok;
			if (Y.data)
				xt_free(&Y);
			xt_free(&A);
			xt_free(&B);
			xt_free(&C);
		}
	OK(!vbad, "Gemm of a vector (M or N 1), every transpose, with and without C (%d wrong)", vbad);
}

/* The own product with B read as it lies (cpu_sgemm_direct: a single run's constant) against B packed first
 * (cpu_sgemm_packed: the kept weights of run --repeat and the TUI): the same bits for every M up to a block of
 * rows and past it, N with and without a partial panel, K across k blocks and with a tail of the 8 x 8 turns,
 * B transposed or not and with a row stride wider than its columns, with the bias and activation epilogue. */
static void test_sgemm_direct(void)
{
	static const int64_t ms[] = {1, 2, 5, 6, 7, 13, 144, 150}, ns[] = {2, 16, 37, 64, 100}, ks[] = {1, 7, 64, 515, 1100};
	int bad = 0, cases = 0;
	uint32_t seed = 7;
	for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
		for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
			for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
				for (int tb = 0; tb < 2; tb++) {
					int64_t m = ms[mi], n = ns[ni], k = ks[ki], ldb = (tb ? k : n) + 3;
					size_t bn = (size_t)(tb ? n : k) * (size_t)ldb;
					float *a = malloc((size_t)(m * k) * sizeof *a), *b = malloc(bn * sizeof *b);
					float *bias = malloc((size_t)n * sizeof *bias), *c1 = malloc((size_t)(m * n) * sizeof *c1);
					float *c2 = malloc((size_t)(m * n) * sizeof *c2);
					float *bp = malloc(cpu_sgemm_packed_floats(k, n) * sizeof *bp);
					float *pan = malloc(SGEMM_PAN_FLOATS * sizeof *pan);
					struct exec_act act = {EXEC_ACT_CLIP, -0.5f, 3.0f};
					struct sgemm_epi e = {{bias, NULL}, {0, 0}, (m + n) % 2 ? &act : NULL};
					for (int64_t i = 0; i < m * k; i++)
						a[i] = (float)((seed = seed * 1103515245u + 12345u) >> 8) / 16777216.0f - 0.5f;
					for (size_t i = 0; i < bn; i++)
						b[i] = (float)((seed = seed * 1103515245u + 12345u) >> 8) / 16777216.0f - 0.5f;
					for (int64_t i = 0; i < n; i++)
						bias[i] = (float)i / 7.0f - 1.0f;
					cpu_sgemm_pack(tb, k, n, b, ldb, bp);
					cpu_sgemm_packed(m, n, k, a, k, bp, c1, n, &e);
					cpu_sgemm_direct(m, n, k, a, k, tb, b, ldb, pan, c2, n, &e);
					if (memcmp(c1, c2, (size_t)(m * n) * sizeof *c1)) {
						if (bad < 5)
							printf("#   differ: M %lld N %lld K %lld%s\n", (long long)m, (long long)n,
							       (long long)k, tb ? " B transposed" : "");
						bad++;
					}
					cases++;
					free(a), free(b), free(bias), free(c1), free(c2), free(bp), free(pan);
				}
	OK(!bad, "sgemm: B read as it lies gives the bits of B packed (%d of %d shapes differ)", bad, cases);
}

static int einsum(const char *eq, const struct xtensor *const *in, size_t n, struct xtensor *y)
{
	struct tnode t;
	node(&t, "Einsum");
	set_str(&t, "equation", eq);
	int rc = run(&t, 12, in, n, y, 1);
	if (rc)
		printf("#   %s: %s\n", eq, t.err.msg);
	return rc;
}

static void test_einsum(void)
{
	struct xtensor a, b, y, ref;
	int64_t da[3] = {2, 3, 4}, db[3] = {2, 4, 5}, dr[3] = {2, 3, 5};
	mk_rand(&a, OV_DT_FLOAT, 3, da);
	mk_rand(&b, OV_DT_FLOAT, 3, db);
	mk(&ref, OV_DT_DOUBLE, 3, dr, NULL);
	matmul_ref(&a, &b, &ref);
	const struct xtensor *in[2] = {&a, &b};
	OK(!einsum("bij,bjk->bik", in, 2, &y) && diff(&y, &ref) < 1e-5, "Einsum batch matmul");
	xt_free(&y);
	OK(!einsum("...ij, ...jk", in, 2, &y) && diff(&y, &ref) < 1e-5, "Einsum with ellipsis, implicit output");
	xt_free(&y);
	xt_free(&ref);
	/* transpose and sum */
	OK(!einsum("bij->jib", in, 1, &y) && y.dims[0] == 4 && y.dims[1] == 3 && y.dims[2] == 2 &&
		   xt_get(&y, (2 * 3 + 1) * 2 + 1) == xt_get(&a, (1 * 3 + 1) * 4 + 2),
	   "Einsum transpose");
	xt_free(&y);
	double total = 0;
	for (int64_t i = 0; i < a.numel; i++)
		total += xt_get(&a, i);
	OK(!einsum("bij->", in, 1, &y) && y.rank == 0 && fabs(xt_get(&y, 0) - total) < 1e-5, "Einsum full sum");
	xt_free(&y);
	/* diagonal and trace */
	double m[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	int64_t d33[2] = {3, 3}, d3[1] = {3};
	struct xtensor sq;
	mk(&sq, OV_DT_INT64, 2, d33, m);
	const struct xtensor *ins[1] = {&sq};
	double diag[3] = {1, 5, 9}, tr[1] = {15};
	OK(!einsum("ii->i", ins, 1, &y) && same(&y, 1, d3, diag, 0), "Einsum diagonal (int64)");
	xt_free(&y);
	OK(!einsum("ii", ins, 1, &y) && same(&y, 0, d3, tr, 0), "Einsum trace, implicit");
	xt_free(&y);
	/* outer product, implicit output sorted: "ba" -> "ab" */
	const struct xtensor *ino[2] = {&sq, &sq};
	OK(!einsum("ij,kl->ijkl", ino, 2, &y) && y.rank == 4 && xt_get(&y, 80) == 81, "Einsum outer product");
	xt_free(&y);
	OK(!einsum("ba", ins, 1, &y) && xt_get(&y, 1) == 4, "Einsum implicit output is alphabetical (a transpose)");
	xt_free(&y);
	OK(einsum("ij,jk->ik", in, 1, &y) == -1, "Einsum with more terms than inputs fails");
	OK(einsum("ijk,jk->i", in, 2, &y) == -1, "Einsum with mismatched label sizes fails");
	xt_free(&a);
	xt_free(&b);
	xt_free(&sq);
}

/* ---- pools ------------------------------------------------------------------------------------------------------ */

static void test_pool(void)
{
	struct tnode t;
	struct xtensor x, y[2];
	double v[25];
	for (int i = 0; i < 25; i++)
		v[i] = i == 12 ? 100 : i; /* a peak in the middle */
	int64_t d[4] = {1, 1, 5, 5};
	mk(&x, OV_DT_FLOAT, 4, d, v);
	const struct xtensor *in[1] = {&x};

	/* dilated 2x2 max pool, dilation 2: windows {0,2,10,12}... */
	int64_t k2[2] = {2, 2}, dl[2] = {2, 2};
	node(&t, "MaxPool");
	set_ints(&t, "kernel_shape", k2, 2);
	set_ints(&t, "dilations", dl, 2);
	int64_t od[4] = {1, 1, 3, 3};
	/* a window holds the peak (2,2) when it starts at an even row and column; else its max is its last tap */
	double want[9] = {100, 13, 100, 17, 18, 19, 100, 23, 100};
	double wi[9] = {12, 13, 12, 17, 18, 19, 12, 23, 12};
	OK(!run(&t, 12, in, 1, y, 2) && same(&y[0], 4, od, want, 0) && same(&y[1], 4, od, wi, 0),
	   "dilated MaxPool with Indices");
	if (y[0].data) {
		dump("y", &y[0]);
		xt_free(&y[0]);
		xt_free(&y[1]);
	}
	/* storage_order 1: column-major indices */
	node(&t, "MaxPool");
	int64_t k1[2] = {1, 2}, s12[2] = {1, 3};
	set_ints(&t, "kernel_shape", k1, 2);
	set_ints(&t, "strides", s12, 2);
	set_int(&t, "storage_order", 1);
	int64_t od2[4] = {1, 1, 5, 2};
	double wcol[10];
	for (int h = 0; h < 5; h++)
		for (int w = 0; w < 2; w++)
			wcol[h * 2 + w] = (w * 3 + 1) * 5 + h; /* windows {0,1} and {3,4}: the max is the right one */
	OK(!run(&t, 12, in, 1, y, 2) && same(&y[1], 4, od2, wcol, 0), "MaxPool storage_order 1 gives column-major indices");
	if (y[0].data) {
		dump("i", &y[1]);
		xt_free(&y[0]);
		xt_free(&y[1]);
	}
	/* AveragePool 3x3 stride 2, pads 1, ceil_mode, count_include_pad: the last window reaches past the end pad */
	int64_t k3[2] = {3, 3}, s2[2] = {2, 2}, p1[4] = {1, 1, 1, 1};
	struct xtensor ones;
	double ov[16];
	for (int i = 0; i < 16; i++)
		ov[i] = 1;
	int64_t d44[4] = {1, 1, 4, 4};
	mk(&ones, OV_DT_FLOAT, 4, d44, ov);
	const struct xtensor *ino[1] = {&ones};
	node(&t, "AveragePool");
	set_ints(&t, "kernel_shape", k3, 2);
	set_ints(&t, "strides", s2, 2);
	set_ints(&t, "pads", p1, 4);
	set_int(&t, "ceil_mode", 1);
	set_int(&t, "count_include_pad", 1);
	/* out = ceil((4 + 2 - 3) / 2) + 1 = 3; window 2 starts at 3, covers 3..5: 4 is padding (counted), 5 is past */
	int64_t o33[4] = {1, 1, 3, 3};
	double avg[9] = {4.0 / 9, 6.0 / 9, 2.0 / 6, 6.0 / 9, 1, 0.5, 2.0 / 6, 0.5, 0.25};
	OK(!run(&t, 19, ino, 1, y, 1) && same(&y[0], 4, o33, avg, 1e-6), "AveragePool ceil_mode + count_include_pad");
	if (y[0].data) {
		dump("avg", &y[0]);
		xt_free(&y[0]);
	}
	/* LpPool p = 1 is a sum of magnitudes; GlobalLpPool */
	node(&t, "LpPool");
	set_ints(&t, "kernel_shape", k2, 2);
	set_int(&t, "p", 1);
	OK(!run(&t, 18, ino, 1, y, 1) && xt_get(&y[0], 0) == 4, "LpPool p=1");
	if (y[0].data)
		xt_free(&y[0]);
	node(&t, "GlobalMaxPool");
	OK(!run(&t, 1, in, 1, y, 1) && y[0].rank == 4 && y[0].dims[2] == 1 && xt_get(&y[0], 0) == 100, "GlobalMaxPool");
	if (y[0].data)
		xt_free(&y[0]);
	/* float GlobalMaxPool in lanes: the bits of m = x > m ? x : m from x[0], planes of 45 (lanes and a tail) with
	 * a NaN first (it stays), NaN later (passed over), zero maxima of both signs in lanes out of order, -inf */
	{
		struct xtensor xg;
		int64_t dg[4] = {1, 7, 5, 9};
		double gv[7 * 45];
		for (int i = 0; i < 7 * 45; i++)
			gv[i] = (double)((i * 37) % 101) - 200;
		gv[0] = NAN;                                   /* plane 0: NaN first */
		gv[45 + 3] = NAN, gv[45 + 44] = NAN;           /* plane 1: NaN later, in a lane and the tail */
		gv[90 + 10] = -0.0, gv[90 + 3] = 0.0;          /* plane 2: +0 first, -0 in an earlier lane */
		gv[135 + 10] = 0.0, gv[135 + 3] = -0.0;        /* plane 3: -0 first */
		gv[180 + 44] = 7;                              /* plane 4: the maximum in the tail */
		for (int i = 0; i < 45; i++)
			gv[225 + i] = -INFINITY;               /* plane 5: all -inf */
		gv[270 + 20] = 1e30;                           /* plane 6: a lane's maximum */
		mk(&xg, OV_DT_FLOAT, 4, dg, gv);
		const struct xtensor *ing[1] = {&xg};
		int good = 0;
		if (!run(&t, 1, ing, 1, y, 1)) {
			for (int pl = 0; pl < 7; pl++) {
				const float *xp = (const float *)xg.data + pl * 45;
				float m = xp[0], got = ((const float *)y[0].data)[pl];
				for (int i = 1; i < 45; i++)
					m = xp[i] > m ? xp[i] : m;
				good += memcmp(&m, &got, sizeof m) == 0;
			}
			xt_free(&y[0]);
		}
		OK(good == 7, "float GlobalMaxPool gives the one-by-one loop's bits: NaN first, NaN later, +-0, -inf (%d "
		   "of 7)", good);
		xt_free(&xg);
	}
	/* int8 MaxPool */
	struct xtensor xi;
	double iv[4] = {-5, 3, -128, 127};
	int64_t d22[4] = {1, 1, 2, 2};
	mk(&xi, OV_DT_INT8, 4, d22, iv);
	const struct xtensor *ini[1] = {&xi};
	node(&t, "MaxPool");
	set_ints(&t, "kernel_shape", k2, 2);
	OK(!run(&t, 12, ini, 1, y, 1) && y[0].dtype == OV_DT_INT8 && xt_get(&y[0], 0) == 127, "int8 MaxPool");
	if (y[0].data)
		xt_free(&y[0]);
	/* hostile */
	int64_t k9[2] = {9, 9};
	node(&t, "MaxPool");
	set_ints(&t, "kernel_shape", k9, 2);
	OK(run(&t, 12, in, 1, y, 1) == -1, "a pool window larger than the input fails: %s", t.err.msg);
	node(&t, "AveragePool");
	OK(run(&t, 12, in, 1, y, 1) == -1 && strstr(t.err.msg, "kernel_shape"), "a pool without kernel_shape fails");
	xt_free(&x);
	xt_free(&ones);
	xt_free(&xi);
}

/* ---- the float MaxPool path (1-D and 2-D, no Indices) ---------------------------------------------------------- */

struct mp_case {
	int n;                          /* spatial rank, 1 or 2 */
	int64_t nb, c, in[2], k[2], s[2], d[2], pb[2], pe[2];
	int ceil;
	int avg, cip; /* AveragePool (count_include_pad) instead of MaxPool */
};

/* MaxPool of float x by the rule every backend shares: from -inf, a later tap v > m takes v (NaN is skipped, a
 * window of NaN alone gives -inf), taps walked in row-major order, a window with no tap inside the input 0. */
static void maxpool_ref(const struct mp_case *mc, const float *x, float *y, const int64_t *out)
{
	int64_t ih_n = mc->n == 2 ? mc->in[0] : 1, iw_n = mc->in[mc->n - 1];
	int64_t oh_n = mc->n == 2 ? out[0] : 1, ow_n = out[mc->n - 1];
	int64_t kh_n = mc->n == 2 ? mc->k[0] : 1, kw_n = mc->k[mc->n - 1];
	int64_t sh = mc->n == 2 ? mc->s[0] : 1, sw = mc->s[mc->n - 1], dh = mc->n == 2 ? mc->d[0] : 1;
	int64_t dw = mc->d[mc->n - 1], pt = mc->n == 2 ? mc->pb[0] : 0, pl = mc->pb[mc->n - 1];
	int64_t pbot = mc->n == 2 ? mc->pe[0] : 0, pr = mc->pe[mc->n - 1];

	for (int64_t p = 0; p < mc->nb * mc->c; p++)
		for (int64_t oh = 0; oh < oh_n; oh++)
			for (int64_t ow = 0; ow < ow_n; ow++) {
				float m = -INFINITY;
				double sum = 0;
				int64_t any = 0, padded = 0;
				for (int64_t kh = 0; kh < kh_n; kh++)
					for (int64_t kw = 0; kw < kw_n; kw++) {
						int64_t ih = oh * sh - pt + kh * dh, iw = ow * sw - pl + kw * dw;
						padded += ih >= -pt && ih < ih_n + pbot && iw >= -pl && iw < iw_n + pr;
						if (ih < 0 || ih >= ih_n || iw < 0 || iw >= iw_n)
							continue;
						float v = x[(p * ih_n + ih) * iw_n + iw];
						any++;
						m = v > m ? v : m;
						sum += (double)v;
					}
				int64_t div = mc->cip ? padded : any;
				y[(p * oh_n + oh) * ow_n + ow] = mc->avg ? (div ? (float)(sum / (double)div) : 0.0f)
									 : any ? m : 0.0f;
			}
}

/* Run MaxPool case mc on random X (with NaN at every nan_every-th value when > 0, all of X when 1) and compare
 * with the rule bit for bit (-0 and +0 apart: the values are never zero). */
static int maxpool_check(const struct mp_case *mc, int nan_every, const char *what)
{
	struct tnode t;
	struct xtensor x, y;
	int64_t xd[4] = {mc->nb, mc->c}, out[2], pads[4];
	int n = mc->n, ok = 0;

	for (int i = 0; i < n; i++) {
		xd[2 + i] = mc->in[i];
		pads[i] = mc->pb[i];
		pads[n + i] = mc->pe[i];
		out[i] = ov_window_out(mc->in[i], mc->k[i], mc->s[i], mc->d[i], mc->pb[i], mc->pe[i], mc->ceil);
	}
	mk_rand(&x, OV_DT_FLOAT, n + 2, xd);
	for (int64_t i = 0; nan_every > 0 && i < x.numel; i += nan_every)
		((float *)x.data)[i] = NAN;
	node(&t, mc->avg ? "AveragePool" : "MaxPool");
	set_ints(&t, "kernel_shape", mc->k, (size_t)n);
	set_ints(&t, "strides", mc->s, (size_t)n);
	set_ints(&t, "dilations", mc->d, (size_t)n);
	set_ints(&t, "pads", pads, (size_t)(2 * n));
	set_int(&t, "ceil_mode", mc->ceil);
	if (mc->avg)
		set_int(&t, "count_include_pad", mc->cip);
	const struct xtensor *in[1] = {&x};
	if (run(&t, mc->avg ? 19 : 12, in, 1, &y, 1)) {
		printf("#   %s: %s\n", what, t.err.msg);
		xt_free(&x);
		return 0;
	}
	int64_t on = mc->nb * mc->c * out[0] * (n == 2 ? out[1] : 1);
	float *ref = malloc((size_t)on * sizeof *ref);
	maxpool_ref(mc, x.data, ref, out);
	ok = y.numel == on;
	for (int64_t i = 0; ok && i < on; i++)
		if (memcmp(&ref[i], (float *)y.data + i, sizeof *ref)) {
			printf("#   %s: output %lld is %g, the rule gives %g\n", what, (long long)i,
			       (double)((float *)y.data)[i], (double)ref[i]);
			ok = 0;
		}
	free(ref);
	xt_free(&x);
	xt_free(&y);
	return ok;
}

/* A random pooling geometry into mc (its kind and ceil_mode kept): 1-D or 2-D, kernels 1 to 4, strides 1 to 3,
 * dilations 1 and 2, pads up to pad_mul times the kernel plus pad_add (the window kept inside the padded input) */
static void pool_rand_geometry(struct mp_case *mc, int64_t pad_mul, int64_t pad_add)
{
	mc->n = 1 + (int)irand(0, 1);
	mc->nb = irand(1, 2);
	mc->c = irand(1, 3);
	for (int i = 0; i < mc->n; i++) {
		mc->in[i] = irand(1, 40);
		mc->k[i] = irand(1, 4);
		mc->s[i] = irand(1, 3);
		mc->d[i] = irand(1, 2);
		mc->pb[i] = irand(0, pad_mul * mc->k[i] + pad_add);
		mc->pe[i] = irand(0, pad_mul * mc->k[i] + pad_add);
		if ((mc->k[i] - 1) * mc->d[i] + 1 > mc->in[i] + mc->pb[i] + mc->pe[i])
			mc->d[i] = 1;
		if (mc->k[i] > mc->in[i] + mc->pb[i] + mc->pe[i])
			mc->k[i] = mc->in[i] + mc->pb[i] + mc->pe[i];
	}
}

static void test_maxpool_float(void)
{
	int bad = 0, total = 0;

	/* ResNet's 3x3 stride 2 pads 1, at widths around the blocks of 8 and 16, odd sizes, 1-wide planes */
	for (int64_t wd = 1; wd <= 35; wd += (wd < 20 ? 1 : 5)) {
		struct mp_case mc = {.n = 2, .nb = 2, .c = 3, .in = {wd % 7 + 1, wd}, .k = {3, 3}, .s = {2, 2},
				     .d = {1, 1}, .pb = {1, 1}, .pe = {1, 1}};
		char what[64];
		snprintf(what, sizeof what, "3x3 s2 width %lld", (long long)wd);
		bad += !maxpool_check(&mc, 0, what);
		total++;
	}
	/* random geometries: kernels 1 to 4, strides 1 to 3, dilations 1 and 2, pads up to twice the kernel's
	 * edge (windows wholly in the padding give 0), ceil_mode, 1-D and 2-D */
	for (int it = 0; it < 300; it++) {
		struct mp_case mc = {.ceil = it % 3 == 1};
		pool_rand_geometry(&mc, 2, 0);
		char what[160];
		snprintf(what, sizeof what, "case %d: %dD k %lld s %lld d %lld pads %lld,%lld ceil %d", it, mc.n,
			 (long long)mc.k[mc.n - 1], (long long)mc.s[mc.n - 1], (long long)mc.d[mc.n - 1],
			 (long long)mc.pb[mc.n - 1], (long long)mc.pe[mc.n - 1], mc.ceil);
		bad += !maxpool_check(&mc, it % 4 == 3 ? (int)irand(2, 7) : 0, what);
		total++;
	}
	OK(!bad, "float MaxPool follows the rule on %d geometries (%d differ)", total, bad);

	/* AveragePool: each output the double sum of its taps in row-major order over the taps (or the padded taps),
	 * rounded once, bit for bit: the interior columns that go a row at a time and the edges (DenseNet's 2x2
	 * stride 2, Inception's 3x3 stride 1 pads 1 at widths around the blocks of 4, then random geometries) */
	bad = total = 0;
	for (int64_t wd = 1; wd <= 41; wd += (wd < 20 ? 1 : 7)) {
		struct mp_case a2 = {.n = 2, .nb = 1, .c = 3, .in = {wd % 5 + 2, wd}, .k = {2, 2}, .s = {2, 2},
				     .d = {1, 1}, .avg = 1};
		struct mp_case a3 = {.n = 2, .nb = 2, .c = 2, .in = {wd % 6 + 1, wd}, .k = {3, 3}, .s = {1, 1},
				     .d = {1, 1}, .pb = {1, 1}, .pe = {1, 1}, .avg = 1, .cip = (int)(wd & 1)};
		if (wd >= 2)
			bad += !maxpool_check(&a2, 0, "AveragePool 2x2 s2");
		bad += !maxpool_check(&a3, 0, "AveragePool 3x3 s1 pads 1");
		total += 1 + (wd >= 2);
	}
	for (int it = 0; it < 300; it++) {
		struct mp_case mc = {.ceil = it % 3 == 1, .avg = 1, .cip = it % 2};
		pool_rand_geometry(&mc, 1, -1);
		char what[224];
		snprintf(what, sizeof what, "avg case %d: %dD k %lld s %lld d %lld pads %lld,%lld ceil %d cip %d", it, mc.n,
			 (long long)mc.k[mc.n - 1], (long long)mc.s[mc.n - 1], (long long)mc.d[mc.n - 1],
			 (long long)mc.pb[mc.n - 1], (long long)mc.pe[mc.n - 1], mc.ceil, mc.cip);
		bad += !maxpool_check(&mc, 0, what);
		total++;
	}
	OK(!bad, "float AveragePool gives the double sums' bits on %d geometries (%d differ)", total, bad);

	/* NaN: skipped beside numbers, -inf for a window of NaN alone (the rule CUDA's points.h shares) */
	struct mp_case nan = {.n = 2, .nb = 1, .c = 2, .in = {9, 20}, .k = {3, 3}, .s = {2, 2}, .d = {1, 1},
			      .pb = {1, 1}, .pe = {1, 1}};
	OK(maxpool_check(&nan, 3, "NaN every 3rd") && maxpool_check(&nan, 1, "all NaN"),
	   "MaxPool skips NaN; a window of NaN alone gives -inf");
	struct tnode t;
	struct xtensor x, y;
	double xv[6] = {NAN, 1, NAN, NAN, -2, NAN};
	int64_t d16[3] = {1, 1, 6}, k2[1] = {2}, s2[1] = {2};
	mk(&x, OV_DT_FLOAT, 3, d16, xv);
	node(&t, "MaxPool");
	set_ints(&t, "kernel_shape", k2, 1);
	set_ints(&t, "strides", s2, 1);
	const struct xtensor *in[1] = {&x};
	int rc = run(&t, 12, in, 1, &y, 1);
	OK(!rc && xt_get(&y, 0) == 1 && xt_get(&y, 1) == -INFINITY && xt_get(&y, 2) == -2,
	   "1-D MaxPool of {NaN 1 | NaN NaN | -2 NaN} gives {1, -inf, -2}");
	if (!rc)
		xt_free(&y);
	xt_free(&x);
}

/* Depthwise cc (9 channels: 8 in the lanes, the ninth by the plane path) with channel 8 given channel 0's plane,
 * weights and bias: 1 when the two output planes have the same bits. */
static int dw_lanes_vs_plane(struct conv_case *cc, const char *what)
{
	struct tnode t;
	struct xtensor x, w, b, y;
	int64_t out[5];
	int ok = 0;

	conv_setup(cc, OV_DT_FLOAT, &t, &x, &w, &b, out);
	int64_t in_n = cc->in[0] * cc->in[1], taps = cc->k[0] * cc->k[1], out_n = out[2] * out[3];
	float *xd = x.data, *wdt = w.data, *bd = b.data;
	for (int64_t n = 0; n < cc->nb; n++)
		memcpy(xd + (n * 9 + 8) * in_n, xd + n * 9 * in_n, (size_t)in_n * sizeof *xd);
	memcpy(wdt + 8 * taps, wdt, (size_t)taps * sizeof *wdt);
	bd[8] = bd[0];
	const struct xtensor *in[3] = {&x, &w, &b};
	if (run(&t, 11, in, cc->bias ? 3 : 2, &y, 1)) {
		printf("#   %s: %s\n", what, t.err.msg);
	} else {
		const float *yd = y.data;
		ok = 1;
		for (int64_t n = 0; n < cc->nb; n++)
			ok &= !memcmp(yd + (n * 9 + 8) * out_n, yd + n * 9 * out_n, (size_t)out_n * sizeof *yd);
		if (!ok)
			printf("#   %s: the lanes and the plane path differ\n", what);
		xt_free(&y);
	}
	xt_free(&x);
	xt_free(&w);
	xt_free(&b);
	return ok;
}

/* ---- the 3x3 depthwise path's bands ------------------------------------------------------------------------- */

static void test_depthwise_bands(void)
{
	static const int64_t widths[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 56, 300};
	static const int64_t pads[] = {0, 1, 2, 3, 5, 8, 9};
	int bad = 0, total = 0;

	/* pads on every side from none to more than the kernel's edge (9 on the right: the general path), heights
	 * of one row to bands of many rows, the last plane's last rows (read row by row), a multiplier */
	for (int it = 0; it < 160; it++) {
		int64_t wd = widths[irand(0, (int64_t)(sizeof widths / sizeof widths[0]) - 1)];
		int64_t s = irand(1, 2), h = irand(1, wd == 300 ? 12 : 30), mult = irand(1, 2);
		struct conv_case c = {.n = 2, .nb = irand(1, 2), .c = irand(1, 3), .group = 0, .in = {h, wd},
				      .k = {3, 3}, .s = {s, s}, .d = {1, 1}, .bias = it % 3 != 0};
		c.group = c.c;
		c.m = c.c * mult;
		c.pb[0] = pads[irand(0, 4)];
		c.pe[0] = pads[irand(0, 4)];
		c.pb[1] = pads[irand(0, 6)];
		c.pe[1] = pads[irand(0, 6)];
		if (h + c.pb[0] + c.pe[0] < 3)
			c.pe[0] = 3;
		if (wd + c.pb[1] + c.pe[1] < 3)
			c.pe[1] = 2;
		char what[160];
		snprintf(what, sizeof what, "%lldx%lld s%lld pads %lld,%lld,%lld,%lld x%lld", (long long)h,
			 (long long)wd, (long long)s, (long long)c.pb[0], (long long)c.pb[1], (long long)c.pe[0],
			 (long long)c.pe[1], (long long)mult);
		bad += !conv_check(&c, OV_DT_FLOAT, 1e-5, what);
		total++;
	}
	OK(!bad, "3x3 depthwise in bands: %d geometries of pads, heights and widths (%d differ)", total, bad);

	/* small planes go 8 channels at a time (channels 8 and more, one output each): the rest of the channels by
	 * rows, planes of one position to 30 x 30, every stride and pad of the 3x3 path, two images */
	bad = total = 0;
	for (int it = 0; it < 120; it++) {
		int64_t s = irand(1, 2), h = irand(1, 24), wd = irand(1, 24), ch = it % 3 == 0 ? 8 : irand(8, 19);
		struct conv_case c = {.n = 2, .nb = irand(1, 2), .c = ch, .m = ch, .group = ch, .in = {h, wd},
				      .k = {3, 3}, .s = {s, s}, .d = {1, 1}, .bias = it % 4 != 0};
		c.pb[0] = pads[irand(0, 3)];
		c.pe[0] = pads[irand(0, 3)];
		c.pb[1] = pads[irand(0, 5)];
		c.pe[1] = pads[irand(0, 5)];
		if (h + c.pb[0] + c.pe[0] < 3)
			c.pe[0] = 3;
		if (wd + c.pb[1] + c.pe[1] < 3)
			c.pe[1] = 2;
		char what[160];
		snprintf(what, sizeof what, "%lld channels %lldx%lld s%lld pads %lld,%lld,%lld,%lld", (long long)ch,
			 (long long)h, (long long)wd, (long long)s, (long long)c.pb[0], (long long)c.pb[1],
			 (long long)c.pe[0], (long long)c.pe[1]);
		bad += !conv_check(&c, OV_DT_FLOAT, 1e-5, what);
		total++;
	}
	OK(!bad, "3x3 depthwise 8 channels at a time: %d geometries (%d differ)", total, bad);

	/* other windows on small planes go 8 channels at a time too (PaddleOCR's 5x5 stride 2 on 14 x 14): kernels
	 * of 1 to 7 either way, strides 1 to 3, dilations 1 and 2, one or two images, against the definition; and
	 * bit for bit against the plane path, which takes the channels past the last 8 (channel 8 given channel 0's
	 * plane, weights and bias, its output must be channel 0's) */
	bad = total = 0;
	int lanebad = 0;
	for (int it = 0; it < 150; it++) {
		int64_t kh = irand(1, 7), kw = irand(1, 7), sh = irand(1, 3), sw = irand(1, 3), dh = irand(1, 2),
			dw = irand(1, 2), h = irand(1, 20), wd = irand(1, 20), ch = it % 3 == 0 ? 9 : irand(8, 19);
		if (kh == 3 && kw == 3 && dh == 1 && dw == 1 && sh == sw && sh < 3)
			kw = 5; /* (the 3x3 path's own windows are tested above) */
		struct conv_case c = {.n = 2, .nb = irand(1, 2), .c = ch, .m = ch, .group = ch, .in = {h, wd},
				      .k = {kh, kw}, .s = {sh, sw}, .d = {dh, dw}, .bias = it % 4 != 0};
		c.pb[0] = irand(0, 3);
		c.pe[0] = irand(0, 3);
		c.pb[1] = irand(0, 3);
		c.pe[1] = irand(0, 3);
		for (int i = 0; i < 2; i++)
			if (c.in[i] + c.pb[i] + c.pe[i] < (c.k[i] - 1) * c.d[i] + 1)
				c.pe[i] = (c.k[i] - 1) * c.d[i] + 1 - c.in[i] - c.pb[i];
		char what[200];
		snprintf(what, sizeof what, "%lld channels %lldx%lld k%lldx%lld s%lld,%lld d%lld,%lld pads %lld,%lld,%lld,%lld",
			 (long long)ch, (long long)h, (long long)wd, (long long)kh, (long long)kw, (long long)sh,
			 (long long)sw, (long long)dh, (long long)dw, (long long)c.pb[0], (long long)c.pb[1],
			 (long long)c.pe[0], (long long)c.pe[1]);
		bad += !conv_check(&c, OV_DT_FLOAT, 1e-5, what);
		total++;
		if (ch == 9)
			lanebad += !dw_lanes_vs_plane(&c, what);
	}
	OK(!bad, "other depthwise windows 8 channels at a time: %d geometries (%d differ)", total, bad);
	OK(!lanebad, "other depthwise windows: the lanes give the plane path's bits (%d differ)", lanebad);

	/* and with Relu6 (Clip 0..6, as MobileNet fuses it), Relu and a Clip whose min passes its max, NaN in X: the
	 * separate kernels' bits */
	static const struct exec_act acts[] = {
		{EXEC_ACT_CLIP, 0.0f, 6.0f}, {EXEC_ACT_RELU, 0, 0}, {EXEC_ACT_CLIP, 0.3f, -0.2f}};
	struct conv_case small[] = {
		{.n = 2, .nb = 2, .c = 16, .m = 16, .group = 16, .in = {7, 7}, .k = {3, 3}, .s = {1, 1}, .d = {1, 1},
		 .pb = {1, 1}, .pe = {1, 1}, .bias = 1},
		{.n = 2, .nb = 1, .c = 12, .m = 12, .group = 12, .in = {14, 14}, .k = {3, 3}, .s = {2, 2}, .d = {1, 1},
		 .pb = {1, 1}, .pe = {1, 1}, .bias = 1},
		{.n = 2, .nb = 2, .c = 11, .m = 11, .group = 11, .in = {14, 13}, .k = {5, 5}, .s = {2, 2}, .d = {1, 1},
		 .pb = {2, 2}, .pe = {2, 2}, .bias = 1},
	};
	bad = total = 0;
	for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
		for (size_t a = 0; a < sizeof acts / sizeof acts[0]; a++) {
			char what[64];
			snprintf(what, sizeof what, "small case %zu, activation %zu", i, a);
			bad += !conv_act_check(&small[i], OV_DT_FLOAT, &acts[a], (int64_t)(5 + 40 * a), what);
			total++;
		}
	OK(!bad, "small-plane depthwise with a fused Relu6, Relu or Clip: the separate kernels' bits (%d of %d differ)",
	   bad, total);
}

/* ---- normalisations ------------------------------------------------------------------------------------------ */

static void test_norm(void)
{
	struct tnode t;
	struct xtensor x, s, b, y[3];
	/* Softmax on [2,3,4]: axis 1 before 13 normalises over 12 values, from 13 over 3 */
	int64_t d[3] = {2, 3, 4};
	mk_rand(&x, OV_DT_FLOAT, 3, d);
	const struct xtensor *in[3] = {&x, &s, &b};
	node(&t, "Softmax");
	set_int(&t, "axis", 1);
	double sum = 0;
	int ok = !run(&t, 11, in, 1, y, 1);
	for (int i = 0; ok && i < 12; i++)
		sum += xt_get(&y[0], i);
	OK(ok && fabs(sum - 1) < 1e-5, "Softmax-11 axis 1 coerces to 2-D (sum over 12 = %g)", sum);
	if (ok)
		xt_free(&y[0]);
	ok = !run(&t, 13, in, 1, y, 1);
	sum = 0;
	for (int j = 0; ok && j < 3; j++)
		sum += xt_get(&y[0], j * 4 + 1);
	OK(ok && fabs(sum - 1) < 1e-5, "Softmax-13 axis 1 normalises one axis (sum over 3 = %g)", sum);
	if (ok)
		xt_free(&y[0]);
	node(&t, "LogSoftmax");
	ok = !run(&t, 13, in, 1, y, 1);
	sum = 0;
	for (int j = 0; ok && j < 4; j++)
		sum += exp(xt_get(&y[0], j));
	OK(ok && fabs(sum - 1) < 1e-5, "LogSoftmax-13 on the last axis");
	if (ok)
		xt_free(&y[0]);
	node(&t, "Hardmax");
	set_int(&t, "axis", 0);
	ok = !run(&t, 13, in, 1, y, 1);
	for (int i = 0; ok && i < 12; i++)
		if (xt_get(&y[0], i) + xt_get(&y[0], 12 + i) != 1)
			ok = 0;
	OK(ok, "Hardmax-13 axis 0: one 1 per column");
	if (y[0].data)
		xt_free(&y[0]);
	node(&t, "Softmax");
	set_int(&t, "axis", 3);
	OK(run(&t, 13, in, 1, y, 1) == -1, "Softmax axis out of range fails: %s", t.err.msg);

	/* LayerNormalization axis 1 on [2,3,4], Scale [4] broadcast over the block, Mean/InvStdDev [2,1,1] */
	int64_t d4[1] = {4};
	double sv[4] = {1, 2, 3, 4}, bv[4] = {0, 1, 0, -1};
	mk(&s, OV_DT_FLOAT, 1, d4, sv);
	mk(&b, OV_DT_FLOAT, 1, d4, bv);
	node(&t, "LayerNormalization");
	set_int(&t, "axis", 1);
	ok = !run(&t, 17, in, 3, y, 3);
	for (int r = 0; ok && r < 2; r++) {
		double m = 0, var = 0;
		for (int j = 0; j < 12; j++)
			m += xt_get(&x, r * 12 + j) / 12;
		for (int j = 0; j < 12; j++)
			var += pow(xt_get(&x, r * 12 + j) - m, 2) / 12;
		double inv = 1 / sqrt(var + 1e-5);
		if (fabs(xt_get(&y[1], r) - m) > 1e-6 || fabs(xt_get(&y[2], r) - inv) > 1e-4 * inv)
			ok = 0;
		for (int j = 0; j < 12; j++)
			if (fabs(xt_get(&y[0], r * 12 + j) - ((xt_get(&x, r * 12 + j) - m) * inv * sv[j % 4] + bv[j % 4])) >
			    1e-4)
				ok = 0;
	}
	OK(ok && y[1].rank == 3 && y[1].dims[1] == 1 && y[1].dtype == OV_DT_FLOAT,
	   "LayerNormalization axis 1 with Mean and InvStdDev");
	if (y[0].data)
		for (int i = 0; i < 3; i++)
			xt_free(&y[i]);
	xt_free(&s);
	xt_free(&b);

	/* GroupNormalization: 2 groups of [N=1, C=4, 3]; opset 18 scale per group, 21 per channel */
	int64_t dg[3] = {1, 4, 3}, d2[1] = {2};
	struct xtensor xg;
	mk_rand(&xg, OV_DT_FLOAT, 3, dg);
	double sg[4] = {2, 3, 4, 5}, bg[4] = {1, -1, 0.5, 0};
	const struct xtensor *ing[3] = {&xg, &s, &b};
	for (int v = 0; v < 2; v++) {
		int64_t n = v ? 4 : 2;
		mk(&s, OV_DT_FLOAT, 1, v ? d4 : d2, sg);
		mk(&b, OV_DT_FLOAT, 1, v ? d4 : d2, bg);
		node(&t, "GroupNormalization");
		set_int(&t, "num_groups", 2);
		ok = !run(&t, v ? 21 : 18, ing, 3, y, 1);
		for (int g = 0; ok && g < 2; g++) {
			double m = 0, var = 0;
			for (int j = 0; j < 6; j++)
				m += xt_get(&xg, g * 6 + j) / 6;
			for (int j = 0; j < 6; j++)
				var += pow(xt_get(&xg, g * 6 + j) - m, 2) / 6;
			for (int j = 0; j < 6; j++) {
				int64_t p = n == 2 ? g : (g * 6 + j) / 3;
				double want = (xt_get(&xg, g * 6 + j) - m) / sqrt(var + 1e-5) * sg[p] + bg[p];
				if (fabs(xt_get(&y[0], g * 6 + j) - want) > 1e-4)
					ok = 0;
			}
		}
		OK(ok, "GroupNormalization-%d: scale per %s", v ? 21 : 18, v ? "channel" : "group");
		if (y[0].data)
			xt_free(&y[0]);
		xt_free(&s);
		xt_free(&b);
	}
	node(&t, "GroupNormalization");
	set_int(&t, "num_groups", 3);
	mk(&s, OV_DT_FLOAT, 1, d4, sg);
	mk(&b, OV_DT_FLOAT, 1, d4, bg);
	OK(run(&t, 21, ing, 3, y, 1) == -1, "num_groups not dividing C fails: %s", t.err.msg);
	xt_free(&s);
	xt_free(&b);
	xt_free(&xg);

	/* BatchNormalization training_mode: batch statistics, running mean updated with momentum */
	int64_t db[2] = {3, 2}, dc[1] = {2};
	double xv[6] = {1, 10, 2, 20, 3, 30}, one[2] = {1, 1}, zero[2] = {0, 0};
	struct xtensor xb, sc, bi, mn, vr;
	mk(&xb, OV_DT_FLOAT, 2, db, xv);
	mk(&sc, OV_DT_FLOAT, 1, dc, one);
	mk(&bi, OV_DT_FLOAT, 1, dc, zero);
	mk(&mn, OV_DT_FLOAT, 1, dc, zero);
	mk(&vr, OV_DT_FLOAT, 1, dc, one);
	const struct xtensor *inb[5] = {&xb, &sc, &bi, &mn, &vr};
	node(&t, "BatchNormalization");
	set_int(&t, "training_mode", 1);
	set_float(&t, "momentum", 0.5f);
	ok = !run(&t, 15, inb, 5, y, 3);
	OK(ok && fabs(xt_get(&y[0], 0) + sqrt(1.5)) < 1e-3 && fabs(xt_get(&y[1], 1) - 10) < 1e-5 &&
		   fabs(xt_get(&y[2], 0) - (0.5 + 0.5 * 2.0 / 3)) < 1e-5,
	   "BatchNormalization training_mode");
	if (ok)
		for (int i = 0; i < 3; i++)
			xt_free(&y[i]);
	xt_free(&xb);
	xt_free(&sc);
	xt_free(&bi);
	xt_free(&mn);
	xt_free(&vr);
	xt_free(&x);
}

/* ---- Resize, GridSample, DepthToSpace ------------------------------------------------------------------------------ */

static int resize(struct tnode *t, int64_t opset, const struct xtensor *x, const double *scales, int ns,
		  const int64_t *sizes, int nz, struct xtensor *y)
{
	struct xtensor sc, sz;
	int64_t dn[1] = {ns}, dz[1] = {nz};
	mk(&sc, OV_DT_FLOAT, 1, dn, scales);
	mk(&sz, OV_DT_INT64, 1, dz, NULL);
	for (int i = 0; i < nz; i++)
		((int64_t *)sz.data)[i] = sizes[i];
	const struct xtensor *in[4] = {x, NULL, ns ? &sc : NULL, nz ? &sz : NULL};
	int rc = run(t, opset, in, 4, y, 1);
	if (rc)
		printf("#   %s\n", t->err.msg);
	xt_free(&sc);
	xt_free(&sz);
	return rc;
}

static void test_resize(void)
{
	struct tnode t;
	struct xtensor x, y;
	double v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	int64_t d[2] = {1, 8};
	mk(&x, OV_DT_FLOAT, 2, d, v);

	/* antialias linear 8 -> 4 (scale 1/2): the filter widens to 4 taps, weights (1/4, 3/4, 3/4, 1/4) / 2 */
	node(&t, "Resize");
	set_str(&t, "mode", "linear");
	set_int(&t, "antialias", 1);
	double sc[2] = {1, 0.5};
	int64_t o4[2] = {1, 4};
	double want[4] = {(0 * 0.75 + 1 * 0.75 + 2 * 0.25 + 0 * 0.25) / 2, 0, 0, 0};
	/* x = 0.5 at output 0: taps -1..2 at distances 1.5, .5, .5, 1.5 -> weights .25 .75 .75 .25 (edge clamp) */
	want[0] = (0 * 0.25 + 0 * 0.75 + 1 * 0.75 + 2 * 0.25) / 2;
	for (int o = 1; o < 4; o++) {
		double xo = 2 * o + 0.5, acc = 0, ws = 0;
		for (int i = -1; i <= 2; i++) {
			int64_t idx = (int64_t)floor(xo) + i;
			double w = 1 - fabs((double)(idx - xo)) / 2;
			w = w > 0 ? w : 0;
			acc += w * v[idx < 0 ? 0 : idx > 7 ? 7 : idx];
			ws += w;
		}
		want[o] = acc / ws;
	}
	OK(!resize(&t, 18, &x, sc, 2, NULL, 0, &y) && same(&y, 2, o4, want, 1e-6), "Resize linear antialias 1/2");
	if (y.data) {
		dump("aa", &y);
		xt_free(&y);
	}
	/* axes: scales for axis 1 only */
	node(&t, "Resize");
	int64_t ax[1] = {-1};
	set_ints(&t, "axes", ax, 1);
	set_str(&t, "coordinate_transformation_mode", "asymmetric");
	double s2[1] = {0.5};
	double w2[4] = {0, 2, 4, 6};
	OK(!resize(&t, 18, &x, s2, 1, NULL, 0, &y) && same(&y, 2, o4, w2, 0), "Resize nearest with axes [-1]");
	if (y.data)
		xt_free(&y);
	/* keep_aspect_ratio_policy not_larger: sizes [3, 3] on [1, 8] -> scale min(3, 3/8) */
	node(&t, "Resize");
	set_str(&t, "keep_aspect_ratio_policy", "not_larger");
	int64_t sz[2] = {3, 3};
	OK(!resize(&t, 18, &x, NULL, 0, sz, 2, &y) && y.dims[0] == 0 && y.dims[1] == 3,
	   "keep_aspect_ratio_policy not_larger: [1,8] into [3,3] is [0,3] (round(0.375), 3)");
	if (y.data)
		xt_free(&y);
	node(&t, "Resize");
	set_str(&t, "keep_aspect_ratio_policy", "not_smaller");
	OK(!resize(&t, 18, &x, NULL, 0, sz, 2, &y) && y.dims[0] == 3 && y.dims[1] == 24, "not_smaller: [3,24]");
	if (y.data)
		xt_free(&y);
	/* tf_crop_and_resize: roi beyond the input extrapolates */
	node(&t, "Resize");
	set_str(&t, "mode", "linear");
	set_str(&t, "coordinate_transformation_mode", "tf_crop_and_resize");
	set_float(&t, "extrapolation_value", -9);
	struct xtensor roi, sct;
	int64_t d4[1] = {4}, d2[1] = {2};
	double rv[4] = {0, 0.5, 1, 1.5}, scv[2] = {1, 1};
	mk(&roi, OV_DT_FLOAT, 1, d4, rv);
	mk(&sct, OV_DT_FLOAT, 1, d2, scv);
	const struct xtensor *inr[3] = {&x, &roi, &sct};
	/* x_ori = 3.5 + o * 7/7: 3.5, 4.5 ... 10.5; past 7 extrapolates */
	double w8[8] = {3.5, 4.5, 5.5, 6.5, -9, -9, -9, -9};
	int64_t o8[2] = {1, 8};
	OK(!run(&t, 13, inr, 3, &y, 1) && same(&y, 2, o8, w8, 1e-6), "tf_crop_and_resize extrapolates outside the input");
	if (y.data) {
		dump("crop", &y);
		xt_free(&y);
	}
	xt_free(&roi);
	xt_free(&sct);
	/* cubic, exclude_outside, downsample then identity check: scale 1 is untouched */
	node(&t, "Resize");
	set_str(&t, "mode", "cubic");
	double one[2] = {1, 1};
	OK(!resize(&t, 13, &x, one, 2, NULL, 0, &y) && same(&y, 2, d, v, 0), "Resize at scale 1 is the identity");
	if (y.data)
		xt_free(&y);
	/* Upsample-7 with the scales attribute; uint8 nearest */
	node(&t, "Upsample");
	float us[2] = {2, 0.5f};
	set_floats(&t, "scales", us, 2);
	struct xtensor xu;
	mk(&xu, OV_DT_UINT8, 2, d, v);
	const struct xtensor *inu[1] = {&xu};
	int64_t ou[2] = {2, 4};
	double wu[8] = {0, 2, 4, 6, 0, 2, 4, 6};
	OK(!run(&t, 7, inu, 1, &y, 1) && y.dtype == OV_DT_UINT8 && same(&y, 2, ou, wu, 0), "Upsample-7 nearest on uint8");
	if (y.data) {
		dump("up", &y);
		xt_free(&y);
	}
	xt_free(&xu);
	node(&t, "Resize");
	double neg[2] = {1, -1};
	OK(resize(&t, 13, &x, neg, 2, NULL, 0, &y) == -1, "a negative scale fails");
	node(&t, "Resize");
	OK(resize(&t, 13, &x, one, 1, NULL, 0, &y) == -1, "scales of the wrong length fail");
	xt_free(&x);

	/* GridSample 3-D: an identity grid with align_corners reproduces the input */
	int64_t dx[5] = {1, 2, 2, 3, 4}, dgr[5] = {1, 2, 3, 4, 3};
	struct xtensor x3, g;
	mk_rand(&x3, OV_DT_FLOAT, 5, dx);
	mk(&g, OV_DT_FLOAT, 5, dgr, NULL);
	for (int z = 0; z < 2; z++)
		for (int yy = 0; yy < 3; yy++)
			for (int xx = 0; xx < 4; xx++) {
				int64_t at = ((z * 3 + yy) * 4 + xx) * 3;
				xt_set(&g, at, -1 + 2.0 * xx / 3);
				xt_set(&g, at + 1, -1 + 2.0 * yy / 2);
				xt_set(&g, at + 2, -1 + 2.0 * z / 1);
			}
	const struct xtensor *ing[2] = {&x3, &g};
	for (int mode = 0; mode < 3; mode++) {
		static const char *modes[3] = {"linear", "nearest", "cubic"};
		node(&t, "GridSample");
		set_str(&t, "mode", modes[mode]);
		set_int(&t, "align_corners", 1);
		set_str(&t, "padding_mode", "border");
		OK(!run(&t, 20, ing, 2, &y, 1) && diff(&y, &x3) < 1e-5, "GridSample-20 3-D identity grid, %s", modes[mode]);
		if (y.data)
			xt_free(&y);
	}
	xt_free(&x3);
	xt_free(&g);

	/* DepthToSpace (both modes) undone by SpaceToDepth (DCR) */
	int64_t dd[4] = {2, 8, 3, 2};
	struct xtensor xd, y2;
	mk_rand(&xd, OV_DT_FLOAT, 4, dd);
	const struct xtensor *ind[1] = {&xd};
	node(&t, "DepthToSpace");
	set_int(&t, "blocksize", 2);
	int ok = !run(&t, 13, ind, 1, &y, 1) && y.dims[1] == 2 && y.dims[2] == 6 && y.dims[3] == 4;
	if (ok) {
		const struct xtensor *in2[1] = {&y};
		node(&t, "SpaceToDepth");
		set_int(&t, "blocksize", 2);
		ok = !run(&t, 13, in2, 1, &y2, 1) && diff(&y2, &xd) == 0;
		if (y2.data)
			xt_free(&y2);
		xt_free(&y);
	}
	OK(ok, "SpaceToDepth undoes DepthToSpace (DCR)");
	node(&t, "DepthToSpace");
	set_int(&t, "blocksize", 2);
	set_str(&t, "mode", "CRD");
	ok = !run(&t, 13, ind, 1, &y, 1);
	/* CRD: output (c, h*2+i, w*2+j) = input (c*4 + i*2 + j, h, w) */
	OK(ok && xt_get(&y, ((1 * 2 + 1) * 6 + 3) * 4 + 2) == xt_get(&xd, ((1 * 8 + 1 * 4 + 1 * 2 + 0) * 3 + 1) * 2 + 1),
	   "DepthToSpace CRD");
	if (y.data)
		xt_free(&y);
	node(&t, "DepthToSpace");
	set_int(&t, "blocksize", 3);
	OK(run(&t, 13, ind, 1, &y, 1) == -1, "DepthToSpace with channels not divisible fails: %s", t.err.msg);
	xt_free(&xd);
}

int main(void)
{
	test_window_math();
	test_resize_math();
	test_conv();
	test_conv_act();
	test_conv_direct();
	test_conv_winograd();
	test_conv_strips();
	test_fusion();
	test_values();
	test_conv_transpose();
	test_matmul();
	test_sgemm_direct();
	test_einsum();
	test_pool();
	test_maxpool_float();
	test_depthwise_bands();
	test_norm();
	test_resize();
	return tap_done();
}
