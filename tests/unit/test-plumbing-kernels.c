/* Unit tests of the CPU plumbing, indexing, reduction and detection kernels (src/exec/cpu/shape.c, cpu/gather.c,
 * cpu/reduce.c, cpu/misc.c), on what the ONNX node tests leave out: every Transpose permutation and element size
 * against a naive loop, Slice clamping against a brute-force model of the ONNX rules, Pad modes with negative
 * pads, strings through the byte-moving ops, exact int64 reductions, ties in ArgMax/TopK/NonMaxSuppression, the recurrent, spectral and quantization kernels' checks, and
 * hostile inputs (out-of-range indices, absurd sizes) that must fail with one line instead of crashing. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/exec.h"
#include "src/exec/ops/ov-math.h"
#include "tests/unit/tap.h"

#include "tests/unit/knode.h"

static void mk(struct xtensor *t, int32_t dt, int rank, const int64_t *dims, const double *v)
{
	struct ov_error e;
	if (xt_alloc(t, dt, rank, dims, &e))
		abort();
	for (int64_t i = 0; v && i < t->numel; i++)
		xt_set(t, i, v[i]);
}

static void mk_i64(struct xtensor *t, int rank, const int64_t *dims, const int64_t *v)
{
	mk(t, OV_DT_INT64, rank, dims, NULL);
	if (t->bytes)
		memcpy(t->data, v, t->bytes);
}

static void mk_scalar_i64(struct xtensor *t, int64_t v)
{
	mk(t, OV_DT_INT64, 0, NULL, NULL);
	*(int64_t *)t->data = v;
}

static void mk_vec_i64(struct xtensor *t, const int64_t *v, int64_t n)
{
	mk_i64(t, 1, &n, v);
}

/* The tensor's values equal want (n of them) and its dims equal dims. */
static int same(const struct xtensor *t, int rank, const int64_t *dims, const double *want)
{
	if (t->rank != rank)
		return 0;
	for (int i = 0; i < rank; i++)
		if (t->dims[i] != dims[i])
			return 0;
	for (int64_t i = 0; i < t->numel; i++) {
		double g = xt_get(t, i);
		if (!(g == want[i] || (g != g && want[i] != want[i]) || fabs(g - want[i]) <= 1e-5 * (1 + fabs(want[i]))))
			return 0;
	}
	return 1;
}

static int same_i64(const struct xtensor *t, int rank, const int64_t *dims, const int64_t *want)
{
	if (t->rank != rank || t->dtype != OV_DT_INT64)
		return 0;
	for (int i = 0; i < rank; i++)
		if (t->dims[i] != dims[i])
			return 0;
	return !t->numel || !memcmp(t->data, want, (size_t)t->numel * sizeof *want);
}

static void dump(const struct xtensor *t)
{
	char b[128];
	xt_describe(t, b, sizeof b);
	printf("#   got %s:", b);
	for (int64_t i = 0; i < t->numel && i < 32; i++)
		printf(" %g", xt_get(t, i));
	printf("\n");
}

/* ---- Transpose ----------------------------------------------------------------------------------------------- */

static int next_perm(int *p, int n)
{
	int i = n - 2;
	while (i >= 0 && p[i] >= p[i + 1])
		i--;
	if (i < 0)
		return 0;
	int j = n - 1;
	while (p[j] <= p[i])
		j--;
	int t = p[i];
	p[i] = p[j];
	p[j] = t;
	for (int a = i + 1, b = n - 1; a < b; a++, b--) {
		t = p[a];
		p[a] = p[b];
		p[b] = t;
	}
	return 1;
}

/* Transpose x by perm and compare with the naive index arithmetic (byte-exact). */
static int check_transpose(const struct xtensor *x, const int *perm)
{
	struct tnode t;
	struct xtensor y;
	int64_t p64[XT_MAX_RANK], xs[XT_MAX_RANK], ys[XT_MAX_RANK], idx[XT_MAX_RANK] = {0};
	const struct xtensor *in[1] = {x};
	int r = x->rank, ok = 1;

	node(&t, "Transpose");
	for (int i = 0; i < r; i++)
		p64[i] = perm[i];
	set_ints(&t, "perm", p64, (size_t)r);
	if (run(&t, 13, in, 1, &y, 1))
		return 0;
	size_t es = xt_elem_size(x->dtype);
	xs[r - 1] = ys[r - 1] = 1;
	for (int i = r - 2; i >= 0; i--) {
		xs[i] = xs[i + 1] * x->dims[i + 1];
		ys[i] = ys[i + 1] * y.dims[i + 1];
	}
	for (int64_t o = 0; o < y.numel && ok; o++) {
		int64_t rem = o, xi = 0;
		for (int i = 0; i < r; i++) {
			idx[i] = rem / ys[i];
			rem %= ys[i];
			xi += idx[i] * xs[perm[i]];
		}
		if (x->dtype == OV_DT_STRING)
			ok = !strcmp(((char **)y.data)[o], ((char **)x->data)[xi]) && ((char **)y.data)[o] != ((char **)x->data)[xi];
		else
			ok = !memcmp((char *)y.data + o * es, (char *)x->data + xi * es, es);
	}
	xt_free(&y);
	return ok;
}

/* The permutations of rank-4 x that match the naive loop (24 when all do) */
static int check_all_perms4(const struct xtensor *x)
{
	int perm[4] = {0, 1, 2, 3}, good = 0;

	do
		good += check_transpose(x, perm);
	while (next_perm(perm, 4));
	return good;
}

static void test_transpose(void)
{
	int32_t types[] = {OV_DT_FLOAT, OV_DT_INT8, OV_DT_FLOAT16, OV_DT_DOUBLE, OV_DT_COMPLEX128};
	int64_t dims[4] = {3, 5, 1, 4};
	for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
		struct xtensor x;
		mk(&x, types[ti], 4, dims, NULL);
		for (size_t b = 0; b < x.bytes; b++)
			((unsigned char *)x.data)[b] = (unsigned char)(b * 7 + 3);
		OK(check_all_perms4(&x) == 24, "Transpose: all 24 permutations of %s[3,5,1,4] match the naive loop",
		   dtype_short_name(types[ti]));
		xt_free(&x);
	}
	/* float32 of arbitrary bits (NaN payloads too) over dims that fill the 8x8 register blocks and leave ragged
	 * rows and columns, every permutation */
	{
		int64_t db[4] = {10, 17, 3, 9};
		struct xtensor x;
		mk(&x, OV_DT_FLOAT, 4, db, NULL);
		for (size_t b = 0; b < x.bytes; b++)
			((unsigned char *)x.data)[b] = (unsigned char)(b * 13 + 5);
		OK(check_all_perms4(&x) == 24, "Transpose: all 24 permutations of float32[10,17,3,9] (8x8 blocks and ragged "
					       "edges, any bits) match the naive loop");
		xt_free(&x);
	}
	/* a matrix larger than the tiles, with ragged edges */
	int64_t d2[2] = {67, 45};
	struct xtensor m;
	mk(&m, OV_DT_FLOAT, 2, d2, NULL);
	for (int64_t i = 0; i < m.numel; i++)
		((float *)m.data)[i] = (float)i;
	int p2[2] = {1, 0};
	OK(check_transpose(&m, p2), "Transpose: a 67x45 float matrix (tiled path, ragged tiles)");
	xt_free(&m);
	int64_t d3[3] = {33, 40, 3};
	mk(&m, OV_DT_FLOAT, 3, d3, NULL);
	for (int64_t i = 0; i < m.numel; i++)
		((float *)m.data)[i] = (float)i;
	int p3[3] = {2, 0, 1};
	OK(check_transpose(&m, p3), "Transpose: HWC -> CHW on [33,40,3]");
	xt_free(&m);
	/* strings: copied, not aliased */
	int64_t ds[2] = {2, 3};
	struct xtensor s;
	mk(&s, OV_DT_STRING, 2, ds, NULL);
	const char *words[] = {"a", "bb", "ccc", "dddd", "e", "ff"};
	for (int i = 0; i < 6; i++)
		((char **)s.data)[i] = strdup(words[i]);
	OK(check_transpose(&s, p2), "Transpose: strings are duplicated into the output");
	xt_free(&s);
}

/* ---- Slice --------------------------------------------------------------------------------------------------- */

/* ONNX's Slice on one axis, by brute force: walk from the clamped start by step while inside [0, dim) and before
 * the clamped end. */
static int64_t slice_model(int64_t dim, int64_t s, int64_t e, int64_t st, int64_t *out)
{
	int64_t n = 0;
	if (s < 0)
		s += dim;
	if (e < 0)
		e += dim;
	if (st > 0) {
		s = s < 0 ? 0 : s > dim ? dim : s;
		e = e < 0 ? 0 : e > dim ? dim : e;
		for (int64_t i = s; i < e; i += st) {
			out[n++] = i;
			if (st >= e - i) /* the next step is past the end (and i + st could overflow) */
				break;
		}
	} else {
		s = s < 0 ? 0 : s > dim - 1 ? dim - 1 : s;
		e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
		for (int64_t i = s; i > e; i += st)
			out[n++] = i;
	}
	return n;
}

static void test_slice(void)
{
	int64_t dim = 7, vals[] = {INT64_MIN, -12, -8, -7, -6, -1, 0, 1, 3, 6, 7, 8, 12, INT64_MAX};
	int64_t steps[] = {-3, -2, -1, 1, 2, 3, INT64_MAX, INT64_MIN};
	double xv[7] = {10, 11, 12, 13, 14, 15, 16};
	struct xtensor x;
	int all = 1, cases = 0;

	mk(&x, OV_DT_FLOAT, 1, &dim, xv);
	for (size_t a = 0; a < sizeof vals / sizeof vals[0]; a++)
		for (size_t b = 0; b < sizeof vals / sizeof vals[0]; b++)
			for (size_t c = 0; c < sizeof steps / sizeof steps[0]; c++) {
				struct tnode t;
				struct xtensor st, en, ax, sp, y;
				int64_t zero = 0, want[64];
				double wv[64];
				mk_vec_i64(&st, &vals[a], 1);
				mk_vec_i64(&en, &vals[b], 1);
				mk_vec_i64(&ax, &zero, 1);
				mk_vec_i64(&sp, &steps[c], 1);
				const struct xtensor *in[5] = {&x, &st, &en, &ax, &sp};
				node(&t, "Slice");
				int64_t n = slice_model(dim, vals[a], vals[b], steps[c], want);
				for (int64_t i = 0; i < n; i++)
					wv[i] = xv[want[i]];
				int rc = run(&t, 13, in, 5, &y, 1);
				int ok = rc == 0 && same(&y, 1, &n, wv);
				if (!ok && all) {
					printf("# Slice start %" PRId64 " end %" PRId64 " step %" PRId64 ": %s\n", vals[a],
					       vals[b], steps[c], t.err.msg);
					dump(&y);
				}
				all &= ok;
				cases++;
				xt_free(&st), xt_free(&en), xt_free(&ax), xt_free(&sp), xt_free(&y);
			}
	OK(all, "Slice: %d start/end/step combinations (negative, clamped, extreme) match the ONNX rules", cases);
	xt_free(&x);

	/* 2-D, axes negative, step on the inner axis; and a zero step refused */
	int64_t d2[2] = {3, 4}, s2[2] = {0, 3}, e2[2] = {-1, -100}, a2[2] = {-2, -1}, p2[2] = {1, -2}, two = 2;
	double m[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
	struct xtensor X, S, E, A, P, Y;
	struct tnode t;
	mk(&X, OV_DT_DOUBLE, 2, d2, m);
	mk_i64(&S, 1, &two, s2), mk_i64(&E, 1, &two, e2), mk_i64(&A, 1, &two, a2), mk_i64(&P, 1, &two, p2);
	const struct xtensor *in[5] = {&X, &S, &E, &A, &P};
	node(&t, "Slice");
	int64_t wd[2] = {2, 2};
	double w[4] = {3, 1, 7, 5};
	OK(run(&t, 13, in, 5, &Y, 1) == 0 && same(&Y, 2, wd, w), "Slice: 2-D with negative axes and a negative step");
	xt_free(&Y);
	((int64_t *)P.data)[1] = 0;
	OK(run(&t, 13, in, 5, &Y, 1) == -1 && strstr(t.err.msg, "step 0"), "Slice: step 0 fails: %s", t.err.msg);
	xt_free(&Y);
	xt_free(&X), xt_free(&S), xt_free(&E), xt_free(&A), xt_free(&P);
}

/* ---- Reshape, Squeeze, Unsqueeze, Split, Concat --------------------------------------------------------------- */

static void test_reshape(void)
{
	int64_t d[3] = {2, 3, 4}, two = 2, three = 3;
	struct xtensor x, s, y;
	struct tnode t;
	const struct xtensor *in[2] = {&x, &s};

	mk(&x, OV_DT_FLOAT, 3, d, NULL);
	for (int i = 0; i < 24; i++)
		((float *)x.data)[i] = (float)i;
	node(&t, "Reshape");
	int64_t s1[3] = {0, -1, 2}, w1[3] = {2, 6, 2};
	mk_i64(&s, 1, &three, s1);
	OK(run(&t, 14, in, 2, &y, 1) == 0 && y.rank == 3 && !memcmp(y.dims, w1, sizeof w1) &&
		   !memcmp(y.data, x.data, x.bytes),
	   "Reshape: 0 copies the input dim, -1 infers the rest");
	xt_free(&y), xt_free(&s);
	int64_t s2[2] = {-1, -1};
	mk_i64(&s, 1, &two, s2);
	OK(run(&t, 14, in, 2, &y, 1) == -1 && strstr(t.err.msg, "-1"), "Reshape: two -1 fail: %s", t.err.msg);
	xt_free(&y), xt_free(&s);
	int64_t s3[2] = {-2, 12};
	mk_i64(&s, 1, &two, s3);
	OK(run(&t, 14, in, 2, &y, 1) == -1 && strstr(t.err.msg, "negative"), "Reshape: -2 fails: %s", t.err.msg);
	xt_free(&y), xt_free(&s);
	int64_t s4[2] = {5, 5};
	mk_i64(&s, 1, &two, s4);
	OK(run(&t, 14, in, 2, &y, 1) == -1 && strstr(t.err.msg, "24"), "Reshape: a count mismatch fails: %s", t.err.msg);
	xt_free(&y), xt_free(&s);
	int64_t s5[2] = {INT64_MAX, 4};
	mk_i64(&s, 1, &two, s5);
	OK(run(&t, 14, in, 2, &y, 1) == -1, "Reshape: an overflowing target fails: %s", t.err.msg);
	xt_free(&y), xt_free(&s);
	/* allowzero: 0 is a real 0 */
	struct xtensor e;
	int64_t z[2] = {0, 4}, zs[2] = {0, 4};
	mk(&e, OV_DT_FLOAT, 2, z, NULL);
	mk_i64(&s, 1, &two, zs);
	const struct xtensor *in2[2] = {&e, &s};
	node(&t, "Reshape");
	set_int(&t, "allowzero", 1);
	OK(run(&t, 14, in2, 2, &y, 1) == 0 && y.dims[0] == 0 && y.dims[1] == 4, "Reshape: allowzero keeps a 0 dim");
	xt_free(&y), xt_free(&s), xt_free(&e);

	/* Squeeze of a non-1 axis fails; Unsqueeze with a repeated axis fails; axes attribute before 13 */
	node(&t, "Squeeze");
	int64_t ax1 = 1;
	mk_vec_i64(&s, &ax1, 1);
	OK(run(&t, 13, in, 2, &y, 1) == -1 && strstr(t.err.msg, "size 3"), "Squeeze: a dim of 3 fails: %s", t.err.msg);
	xt_free(&y), xt_free(&s);
	node(&t, "Unsqueeze");
	int64_t axs[2] = {0, 4};
	set_ints(&t, "axes", axs, 2);
	const struct xtensor *in1[1] = {&x};
	int64_t wu[5] = {1, 2, 3, 4, 1};
	OK(run(&t, 11, in1, 1, &y, 1) == 0 && y.rank == 5 && !memcmp(y.dims, wu, sizeof wu),
	   "Unsqueeze-11: axes from the attribute");
	xt_free(&y);

	/* Split-18 with num_outputs: 5 into 2 gives 3 and 2 */
	int64_t five = 5;
	double v5[5] = {1, 2, 3, 4, 5};
	struct xtensor f, outs[2];
	mk(&f, OV_DT_INT32, 1, &five, v5);
	node(&t, "Split");
	set_int(&t, "num_outputs", 2);
	const struct xtensor *inf[1] = {&f};
	int64_t d3 = 3, d2 = 2;
	double w3[3] = {1, 2, 3}, w2[2] = {4, 5};
	OK(run(&t, 18, inf, 1, outs, 2) == 0 && same(&outs[0], 1, &d3, w3) && same(&outs[1], 1, &d2, w2),
	   "Split-18: num_outputs=2 on 5 elements gives 3 and 2");
	xt_free(&outs[0]), xt_free(&outs[1]);
	int64_t bad[2] = {4, 2};
	mk_i64(&s, 1, &two, bad);
	const struct xtensor *inb[2] = {&f, &s};
	node(&t, "Split");
	OK(run(&t, 13, inb, 2, outs, 2) == -1 && strstr(t.err.msg, "sums to 6"), "Split: a split not summing to the dim fails: %s",
	   t.err.msg);
	xt_free(&outs[0]), xt_free(&outs[1]), xt_free(&s), xt_free(&f);
	xt_free(&x);

	/* Concat of strings */
	struct xtensor a, b;
	int64_t one = 1;
	mk(&a, OV_DT_STRING, 1, &one, NULL);
	mk(&b, OV_DT_STRING, 1, &two, NULL);
	((char **)a.data)[0] = strdup("x");
	((char **)b.data)[0] = strdup("y");
	((char **)b.data)[1] = strdup("z");
	const struct xtensor *ins[2] = {&a, &b};
	node(&t, "Concat");
	set_int(&t, "axis", 0);
	int sok = run(&t, 13, ins, 2, &y, 1) == 0 && y.numel == 3;
	char **ys = y.data;
	OK(sok && !strcmp(ys[0], "x") && !strcmp(ys[1], "y") && !strcmp(ys[2], "z") && ys[0] != ((char **)a.data)[0],
	   "Concat: strings are joined and copied");
	xt_free(&y), xt_free(&a), xt_free(&b);
}

/* ---- Pad ------------------------------------------------------------------------------------------------------ */

static int pad1(const char *mode, int64_t b, int64_t e, const double *want, int64_t n_want)
{
	int64_t four = 4, two = 2, pads[2] = {b, e};
	double xv[4] = {1, 2, 3, 4};
	struct xtensor x, p, y;
	struct tnode t;

	mk(&x, OV_DT_FLOAT, 1, &four, xv);
	mk_i64(&p, 1, &two, pads);
	const struct xtensor *in[2] = {&x, &p};
	node(&t, "Pad");
	set_str(&t, "mode", mode);
	int ok = run(&t, 19, in, 2, &y, 1) == 0 && same(&y, 1, &n_want, want);
	if (!ok) {
		printf("# Pad %s %" PRId64 ",%" PRId64 ": %s\n", mode, b, e, t.err.msg);
		dump(&y);
	}
	xt_free(&x), xt_free(&p), xt_free(&y);
	return ok;
}

static void test_pad(void)
{
	/* the expected values are numpy.pad's */
	double r[] = {4, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2};
	OK(pad1("reflect", 3, 4, r, 11), "Pad: reflect, pads longer than the dim (numpy's repeated reflection)");
	double e[] = {1, 1, 1, 2, 3, 4, 4};
	OK(pad1("edge", 2, 1, e, 7), "Pad: edge");
	double w[] = {3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1};
	OK(pad1("wrap", 2, 5, w, 11), "Pad: wrap past one period");
	double c[] = {0, 1, 2};
	OK(pad1("constant", 1, -2, c, 3), "Pad: a negative pad crops");
	double r1[] = {2, 1, 2, 3, 4, 3};
	OK(pad1("reflect", 1, 1, r1, 6), "Pad: reflect by one");
	double rn2[] = {2, 1, 2, 3};
	OK(pad1("reflect", 1, -1, rn2, 4), "Pad: reflect with the end cropped reflects the cropped input");

	int64_t four = 4, two = 2, pads[2] = {-3, -2};
	struct xtensor x, p, y;
	struct tnode t;
	mk(&x, OV_DT_FLOAT, 1, &four, NULL);
	mk_i64(&p, 1, &two, pads);
	const struct xtensor *in[2] = {&x, &p};
	node(&t, "Pad");
	OK(run(&t, 19, in, 2, &y, 1) == -1 && strstr(t.err.msg, "remove more"), "Pad: cropping past the dim fails: %s",
	   t.err.msg);
	xt_free(&y);
	((int64_t *)p.data)[0] = INT64_MAX;
	((int64_t *)p.data)[1] = INT64_MAX;
	OK(run(&t, 19, in, 2, &y, 1) == -1, "Pad: absurd pads fail without overflow: %s", t.err.msg);
	xt_free(&y), xt_free(&x), xt_free(&p);
}

/* ---- sizes from data: Expand, Tile, Range, ConstantOfShape ----------------------------------------------------- */

static void test_hostile_sizes(void)
{
	struct xtensor x, s, y, a, b, c;
	struct tnode t;
	int64_t two = 2, one = 1;

	mk(&x, OV_DT_FLOAT, 1, &one, NULL);
	int64_t huge[2] = {1ll << 40, 1ll << 40};
	mk_i64(&s, 1, &two, huge);
	const struct xtensor *in[2] = {&x, &s};
	node(&t, "Expand");
	OK(run(&t, 13, in, 2, &y, 1) == -1 && t.err.msg[0], "Expand to 2^80 elements fails: %s", t.err.msg);
	xt_free(&y);
	node(&t, "ConstantOfShape");
	const struct xtensor *ins[1] = {&s};
	OK(run(&t, 20, ins, 1, &y, 1) == -1 && t.err.msg[0], "ConstantOfShape of 2^80 elements fails: %s", t.err.msg);
	xt_free(&y), xt_free(&s);
	/* a byte limit (the executor fuzz target's) stops a tensor that the element limit lets through */
	int64_t mib[2] = {1024, 1024};
	mk_i64(&s, 1, &two, mib);
	xt_set_limit(1u << 20);
	OK(run(&t, 20, ins, 1, &y, 1) == -1 && strstr(t.err.msg, "over the limit"),
	   "with a 1 MiB limit, ConstantOfShape [1024,1024] float fails: %s", t.err.msg);
	xt_free(&y);
	xt_set_limit(0);
	OK(run(&t, 20, ins, 1, &y, 1) == 0 && y.numel == 1024 * 1024, "without it, the same node runs");
	xt_free(&y), xt_free(&s);
	int64_t neg[2] = {3, -1};
	mk_i64(&s, 1, &two, neg);
	OK(run(&t, 20, ins, 1, &y, 1) == -1 && strstr(t.err.msg, "negative"), "ConstantOfShape with -1 fails: %s",
	   t.err.msg);
	xt_free(&y), xt_free(&s);
	int64_t rep[1] = {INT64_MAX};
	struct xtensor x2;
	int64_t three = 3;
	mk(&x2, OV_DT_FLOAT, 1, &three, NULL);
	mk_vec_i64(&s, rep, 1);
	const struct xtensor *in2[2] = {&x2, &s};
	node(&t, "Tile");
	OK(run(&t, 13, in2, 2, &y, 1) == -1 && t.err.msg[0], "Tile by INT64_MAX fails: %s", t.err.msg);
	xt_free(&y), xt_free(&s);
	/* Tile values */
	double xv[3] = {1, 2, 3};
	xt_free(&x2);
	mk(&x2, OV_DT_INT8, 1, &three, xv);
	int64_t r2 = 2;
	mk_vec_i64(&s, &r2, 1);
	int64_t six = 6;
	double wt[6] = {1, 2, 3, 1, 2, 3};
	OK(run(&t, 13, in2, 2, &y, 1) == 0 && same(&y, 1, &six, wt), "Tile: int8 repeated twice");
	xt_free(&y), xt_free(&s), xt_free(&x2);

	node(&t, "Range");
	mk_scalar_i64(&a, INT64_MIN);
	mk_scalar_i64(&b, INT64_MAX);
	mk_scalar_i64(&c, 1);
	const struct xtensor *inr[3] = {&a, &b, &c};
	OK(run(&t, 11, inr, 3, &y, 1) == -1 && t.err.msg[0], "Range over the whole int64 line fails: %s", t.err.msg);
	xt_free(&y);
	*(int64_t *)c.data = 0;
	OK(run(&t, 11, inr, 3, &y, 1) == -1 && strstr(t.err.msg, "delta"), "Range with delta 0 fails: %s", t.err.msg);
	xt_free(&y);
	*(int64_t *)a.data = 10;
	*(int64_t *)b.data = 1;
	*(int64_t *)c.data = -4;
	int64_t w3[3] = {10, 6, 2};
	OK(run(&t, 11, inr, 3, &y, 1) == 0 && same_i64(&y, 1, &three, w3), "Range: int64 with a negative delta");
	xt_free(&y), xt_free(&a), xt_free(&b), xt_free(&c);
	mk(&a, OV_DT_FLOAT, 0, NULL, (double[]){0});
	mk(&b, OV_DT_FLOAT, 0, NULL, (double[]){1e30});
	mk(&c, OV_DT_FLOAT, 0, NULL, (double[]){1e-30});
	OK(run(&t, 11, inr, 3, &y, 1) == -1 && t.err.msg[0], "Range with 10^60 float steps fails: %s", t.err.msg);
	xt_free(&y), xt_free(&a), xt_free(&b), xt_free(&c);
	mk(&a, OV_DT_FLOAT, 0, NULL, (double[]){0});
	mk(&b, OV_DT_FLOAT, 0, NULL, (double[]){NAN});
	mk(&c, OV_DT_FLOAT, 0, NULL, (double[]){1});
	OK(run(&t, 11, inr, 3, &y, 1) == -1 && t.err.msg[0], "Range to NaN fails: %s", t.err.msg);
	xt_free(&y), xt_free(&a), xt_free(&b), xt_free(&c);
	xt_free(&x);

	/* Trilu with k far outside the matrix keeps/zeroes everything without overflow */
	int64_t d2[2] = {2, 3};
	double m[6] = {1, 2, 3, 4, 5, 6}, z[6] = {0};
	mk(&x, OV_DT_FLOAT, 2, d2, m);
	mk_scalar_i64(&s, INT64_MAX);
	const struct xtensor *intr[2] = {&x, &s};
	node(&t, "Trilu");
	OK(run(&t, 14, intr, 2, &y, 1) == 0 && same(&y, 2, d2, z), "Trilu upper with k = INT64_MAX is all zeros");
	xt_free(&y);
	node(&t, "Trilu");
	set_int(&t, "upper", 0);
	OK(run(&t, 14, intr, 2, &y, 1) == 0 && same(&y, 2, d2, m), "Trilu lower with k = INT64_MAX keeps everything");
	xt_free(&y), xt_free(&s), xt_free(&x);

	/* CumSum int64, exclusive and reverse, exact past 2^53 */
	int64_t n3 = 3, big[3] = {1ll << 60, 1, 2};
	mk_i64(&x, 1, &n3, big);
	mk_scalar_i64(&s, 0);
	const struct xtensor *inc[2] = {&x, &s};
	node(&t, "CumSum");
	set_int(&t, "exclusive", 1);
	set_int(&t, "reverse", 1);
	int64_t wc[3] = {3, 2, 0};
	OK(run(&t, 14, inc, 2, &y, 1) == 0 && same_i64(&y, 1, &n3, wc), "CumSum: int64 exclusive reverse");
	xt_free(&y);
	node(&t, "CumSum");
	int64_t wc2[3] = {1ll << 60, (1ll << 60) + 1, (1ll << 60) + 3};
	OK(run(&t, 14, inc, 2, &y, 1) == 0 && same_i64(&y, 1, &n3, wc2), "CumSum: int64 stays exact past 2^53");
	xt_free(&y), xt_free(&s), xt_free(&x);
}

/* ---- Gather and scatters --------------------------------------------------------------------------------------- */

static void test_gather(void)
{
	int64_t d[2] = {3, 2}, two = 2, one = 1;
	double xv[6] = {1, 2, 3, 4, 5, 6};
	struct xtensor x, i, y, u;
	struct tnode t;

	mk(&x, OV_DT_FLOAT16, 2, d, xv);
	int64_t iv[2] = {-1, 0};
	mk_i64(&i, 1, &two, iv);
	const struct xtensor *in[2] = {&x, &i};
	node(&t, "Gather");
	int64_t wd[2] = {2, 2};
	double w[4] = {5, 6, 1, 2};
	OK(run(&t, 13, in, 2, &y, 1) == 0 && y.dtype == OV_DT_FLOAT16 && same(&y, 2, wd, w),
	   "Gather: float16 rows with a negative index");
	xt_free(&y);
	((int64_t *)i.data)[1] = 3;
	OK(run(&t, 13, in, 2, &y, 1) == -1 && strstr(t.err.msg, "indices[1] = 3"), "Gather: index 3 of 3 fails: %s",
	   t.err.msg);
	xt_free(&y);
	((int64_t *)i.data)[1] = INT64_MIN;
	OK(run(&t, 13, in, 2, &y, 1) == -1 && strstr(t.err.msg, "out of range"), "Gather: INT64_MIN fails: %s", t.err.msg);
	xt_free(&y), xt_free(&i);
	/* GatherElements / ScatterElements out of range */
	int64_t gi[2] = {0, 7};
	int64_t di[2] = {1, 2};
	mk_i64(&i, 2, di, gi);
	node(&t, "GatherElements");
	OK(run(&t, 13, in, 2, &y, 1) == -1 && strstr(t.err.msg, "= 7"), "GatherElements: index 7 fails: %s", t.err.msg);
	xt_free(&y);
	mk(&u, OV_DT_FLOAT16, 2, di, NULL);
	const struct xtensor *in3[3] = {&x, &i, &u};
	node(&t, "ScatterElements");
	OK(run(&t, 16, in3, 3, &y, 1) == -1 && strstr(t.err.msg, "= 7"), "ScatterElements: index 7 fails: %s", t.err.msg);
	xt_free(&y), xt_free(&i), xt_free(&u), xt_free(&x);

	/* ScatterElements reductions with duplicate indices */
	int64_t four = 4, three = 3;
	double dv[4] = {1, 2, 3, 4}, uv[3] = {10, 20, 5};
	int64_t idx[3] = {1, 1, 3};
	mk(&x, OV_DT_INT32, 1, &four, dv);
	mk_i64(&i, 1, &three, idx);
	mk(&u, OV_DT_INT32, 1, &three, uv);
	const struct xtensor *in4[3] = {&x, &i, &u};
	struct {
		const char *red;
		double want[4];
	} cases[] = {{"add", {1, 32, 3, 9}}, {"mul", {1, 400, 3, 20}}, {"max", {1, 20, 3, 5}}, {"min", {1, 2, 3, 4}},
		     {"none", {1, 20, 3, 5}}};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		node(&t, "ScatterElements");
		set_str(&t, "reduction", cases[c].red);
		OK(run(&t, 18, in4, 3, &y, 1) == 0 && same(&y, 1, &four, cases[c].want),
		   "ScatterElements: reduction %s with a repeated index", cases[c].red);
		xt_free(&y);
	}
	xt_free(&x), xt_free(&i), xt_free(&u);

	/* ScatterND mul on rows; GatherND with batch_dims */
	int64_t dx[2] = {2, 3}, di2[2] = {2, 1}, du[2] = {2, 3}, ix2[2] = {1, 1};
	double xv2[6] = {1, 2, 3, 4, 5, 6}, uv2[6] = {2, 2, 2, 3, 3, 3};
	mk(&x, OV_DT_DOUBLE, 2, dx, xv2);
	mk_i64(&i, 2, di2, ix2);
	mk(&u, OV_DT_DOUBLE, 2, du, uv2);
	const struct xtensor *in5[3] = {&x, &i, &u};
	node(&t, "ScatterND");
	set_str(&t, "reduction", "mul");
	double wn[6] = {1, 2, 3, 24, 30, 36};
	OK(run(&t, 18, in5, 3, &y, 1) == 0 && same(&y, 2, dx, wn), "ScatterND: mul into one row twice");
	xt_free(&y), xt_free(&i), xt_free(&u);
	int64_t ib[2] = {2, 1}, ibv[2] = {2, -3};
	mk_i64(&i, 2, ib, ibv);
	const struct xtensor *in6[2] = {&x, &i};
	node(&t, "GatherND");
	set_int(&t, "batch_dims", 1);
	double wg[2] = {3, 4};
	OK(run(&t, 13, in6, 2, &y, 1) == 0 && same(&y, 1, &two, wg), "GatherND: batch_dims=1 with a negative index");
	xt_free(&y);
	((int64_t *)i.data)[1] = 3;
	OK(run(&t, 13, in6, 2, &y, 1) == -1 && strstr(t.err.msg, "= 3"), "GatherND: index 3 of 3 fails: %s", t.err.msg);
	xt_free(&y), xt_free(&i), xt_free(&x);
	(void)one;

	/* OneHot: out-of-range indices give an all-off row */
	int64_t iv3[3] = {1, -1, 5};
	mk_i64(&i, 1, &three, iv3);
	struct xtensor depth, vals;
	mk(&depth, OV_DT_FLOAT, 0, NULL, (double[]){3});
	mk(&vals, OV_DT_INT64, 1, &two, (double[]){0, 7});
	const struct xtensor *in7[3] = {&i, &depth, &vals};
	node(&t, "OneHot");
	int64_t wd3[2] = {3, 3};
	double wo[9] = {0, 7, 0, 0, 0, 7, 0, 0, 0};
	OK(run(&t, 11, in7, 3, &y, 1) == 0 && same(&y, 2, wd3, wo), "OneHot: negative index counts from the end, 5 is all off");
	xt_free(&y);
	*(float *)depth.data = 1e30f;
	OK(run(&t, 11, in7, 3, &y, 1) == -1 && strstr(t.err.msg, "depth"), "OneHot: depth 1e30 fails: %s", t.err.msg);
	xt_free(&y), xt_free(&i), xt_free(&depth), xt_free(&vals);

	/* Unique, not sorted: order of first occurrence */
	int64_t six = 6;
	mk(&x, OV_DT_FLOAT, 1, &six, (double[]){2, 1, 1, 3, 4, 3});
	const struct xtensor *in8[1] = {&x};
	struct xtensor o4[4];
	node(&t, "Unique");
	set_int(&t, "sorted", 0);
	double wy[4] = {2, 1, 3, 4};
	int64_t wi[4] = {0, 1, 3, 4}, winv[6] = {0, 1, 1, 2, 3, 2}, wcnt[4] = {1, 2, 2, 1}, nf = 4;
	OK(run(&t, 11, in8, 1, o4, 4) == 0 && same(&o4[0], 1, &nf, wy) && same_i64(&o4[1], 1, &nf, wi) &&
		   same_i64(&o4[2], 1, &six, winv) && same_i64(&o4[3], 1, &nf, wcnt),
	   "Unique: sorted=0 keeps the order of first occurrence, with indices, inverse and counts");
	for (int k = 0; k < 4; k++)
		xt_free(&o4[k]);
	xt_free(&x);

	/* NonZero of a scalar: numpy's [1, n] */
	mk(&x, OV_DT_BOOL, 0, NULL, (double[]){1});
	node(&t, "NonZero");
	int64_t wz[2] = {1, 1}, wzv[1] = {0};
	OK(run(&t, 13, in8, 1, &y, 1) == 0 && same_i64(&y, 2, wz, wzv), "NonZero: a true scalar gives [[0]]");
	xt_free(&y), xt_free(&x);
}

/* ---- reductions, ArgMax, TopK ------------------------------------------------------------------------------------ */

/* float32 ArgMax and ArgMin against the rule both backends share (ov_arg_step_d: the first extreme, or the last
 * with select_last_index; a NaN counts as the extreme): values from a few (ties, +0 and -0, NaN in some tensors),
 * the axis first, middle and last, rows of outputs across and around the 8 lanes, every combination of the two
 * attributes */
static void test_argmax_float(void)
{
	static const float vals[] = {-1.0f, 0.0f, -0.0f, 1.0f, 2.0f, 2.0f, -3.0f, 0.5f};
	uint32_t seed = 12345;
	int bad = 0, total = 0;

	for (int it = 0; it < 96; it++) {
		int64_t dims[3] = {1 + it % 3, (int64_t[]){1, 2, 7, 9, 33}[it % 5], (int64_t[]){1, 3, 8, 13, 17, 24}[it % 6]};
		struct xtensor x, y;
		mk(&x, OV_DT_FLOAT, 3, dims, NULL);
		float *xv = x.data;
		for (int64_t i = 0; i < x.numel; i++) {
			seed = seed * 1103515245u + 12345u;
			xv[i] = vals[(seed >> 16) % 8];
			if (it % 4 == 3 && (seed >> 8) % 11 == 0)
				xv[i] = NAN;
		}
		int axis = it % 3;
		int64_t len = dims[axis], outer = 1, inner = 1;
		for (int a = 0; a < axis; a++)
			outer *= dims[a];
		for (int a = axis + 1; a < 3; a++)
			inner *= dims[a];
		for (int mode = 0; mode < 4; mode++) {
			int want_max = mode & 1, last = mode >> 1;
			struct tnode t;
			node(&t, want_max ? "ArgMax" : "ArgMin");
			set_int(&t, "axis", axis);
			set_int(&t, "select_last_index", last);
			const struct xtensor *in[1] = {&x};
			int ok = run(&t, 13, in, 1, &y, 1) == 0 && y.numel == outer * inner;
			for (int64_t o = 0; ok && o < outer; o++)
				for (int64_t q = 0; ok && q < inner; q++) {
					const float *xp = xv + o * len * inner + q;
					double bv = xp[0];
					int64_t best = 0;
					for (int64_t j = 1; j < len; j++)
						ov_arg_step_d(xp[j * inner], j, want_max, last, &bv, &best);
					ok = ((const int64_t *)y.data)[o * inner + q] == best;
				}
			if (!ok && bad < 3)
				printf("#   %s axis %d of [%lld,%lld,%lld] last %d: differs\n", want_max ? "ArgMax" : "ArgMin",
				       axis, (long long)dims[0], (long long)dims[1], (long long)dims[2], last);
			bad += !ok;
			total++;
			xt_free(&y);
		}
		xt_free(&x);
	}
	OK(!bad, "float32 ArgMax/ArgMin follow the shared rule on %d cases (ties, zeros of both signs, NaN; %d differ)",
	   total, bad);
}

static void test_reduce(void)
{
	struct xtensor x, a, y;
	struct tnode t;
	int64_t three = 3, one = 1;

	int64_t big[3] = {(1ll << 62), 3, -(1ll << 61)};
	mk_i64(&x, 1, &three, big);
	const struct xtensor *in1[1] = {&x};
	node(&t, "ReduceSum");
	int64_t ws[1] = {(1ll << 61) + 3};
	OK(run(&t, 13, in1, 1, &y, 1) == 0 && same_i64(&y, 1, &one, ws), "ReduceSum: int64 exact (keepdims over all axes)");
	xt_free(&y), xt_free(&x);

	int64_t d[2] = {2, 3};
	double xv[6] = {1, -2, 3, 1000, 1000, 1000};
	mk(&x, OV_DT_FLOAT, 2, d, xv);
	int64_t ax = 1;
	mk_vec_i64(&a, &ax, 1);
	const struct xtensor *in2[2] = {&x, &a};
	node(&t, "ReduceLogSumExp");
	set_int(&t, "keepdims", 0);
	int64_t two = 2;
	double wl[2] = {log(exp(1) + exp(-2) + exp(3)), 1000 + log(3)};
	OK(run(&t, 18, in2, 2, &y, 1) == 0 && same(&y, 1, &two, wl), "ReduceLogSumExp-18: axes input, no overflow at 1000");
	xt_free(&y);
	node(&t, "ReduceLogSumExp");
	set_ints(&t, "axes", &ax, 1);
	OK(run(&t, 13, in1, 1, &y, 1) == 0 && y.rank == 2 && y.dims[1] == 1, "ReduceLogSumExp-13: axes attribute, keepdims");
	xt_free(&y), xt_free(&a);

	/* noop_with_empty_axes: no axis reduced, each element alone */
	int64_t none = 0;
	mk_i64(&a, 1, &none, NULL);
	node(&t, "ReduceSumSquare");
	set_int(&t, "noop_with_empty_axes", 1);
	double wsq[6] = {1, 4, 9, 1e6, 1e6, 1e6};
	OK(run(&t, 18, in2, 2, &y, 1) == 0 && same(&y, 2, d, wsq), "ReduceSumSquare: noop_with_empty_axes squares");
	xt_free(&y);
	node(&t, "ReduceMean");
	double wm[1] = {(1 - 2 + 3 + 3000) / 6.0};
	int64_t d11[2] = {1, 1};
	OK(run(&t, 18, in2, 2, &y, 1) == 0 && same(&y, 2, d11, wm), "ReduceMean: empty axes reduce everything");
	xt_free(&y), xt_free(&a), xt_free(&x);

	/* reductions over an empty axis */
	int64_t de[2] = {2, 0};
	mk(&x, OV_DT_FLOAT, 2, de, NULL);
	mk_vec_i64(&a, &ax, 1);
	const struct xtensor *in3[2] = {&x, &a};
	const char *ops[] = {"ReduceMax", "ReduceMin", "ReduceSum", "ReduceProd"};
	double want[] = {-INFINITY, INFINITY, 0, 1};
	for (int i = 0; i < 4; i++) {
		node(&t, ops[i]);
		set_int(&t, "keepdims", 0);
		double w2[2] = {want[i], want[i]};
		OK(run(&t, 18, in3, 2, &y, 1) == 0 && same(&y, 1, &two, w2), "%s over an empty axis gives %g", ops[i], want[i]);
		xt_free(&y);
	}
	xt_free(&x), xt_free(&a);
	mk(&x, OV_DT_UINT8, 2, de, NULL);
	mk_vec_i64(&a, &ax, 1);
	node(&t, "ReduceMin");
	double w255[2] = {255, 255};
	int64_t d21[2] = {2, 1};
	OK(run(&t, 18, in3, 2, &y, 1) == 0 && same(&y, 2, d21, w255), "ReduceMin of empty uint8 rows gives 255");
	xt_free(&y), xt_free(&x), xt_free(&a);

	/* ArgMax ties, both ways */
	int64_t five = 5;
	mk(&x, OV_DT_INT32, 1, &five, (double[]){1, 7, 3, 7, 2});
	const struct xtensor *in4[1] = {&x};
	node(&t, "ArgMax");
	int64_t w0[1] = {1}, w1[1] = {3};
	OK(run(&t, 13, in4, 1, &y, 1) == 0 && same_i64(&y, 1, &one, w0), "ArgMax: the first of equal maxima");
	xt_free(&y);
	node(&t, "ArgMax");
	set_int(&t, "select_last_index", 1);
	OK(run(&t, 13, in4, 1, &y, 1) == 0 && same_i64(&y, 1, &one, w1), "ArgMax: select_last_index takes the last");
	xt_free(&y);

	/* TopK: ties by lower index, largest and smallest */
	struct xtensor kk, o2[2];
	mk_vec_i64(&kk, (int64_t[]){3}, 1);
	const struct xtensor *in5[2] = {&x, &kk};
	node(&t, "TopK");
	double wv[3] = {7, 7, 3};
	int64_t wi[3] = {1, 3, 2};
	OK(run(&t, 11, in5, 2, o2, 2) == 0 && same(&o2[0], 1, &three, wv) && same_i64(&o2[1], 1, &three, wi),
	   "TopK: equal values keep the lower index first");
	xt_free(&o2[0]), xt_free(&o2[1]);
	node(&t, "TopK");
	set_int(&t, "largest", 0);
	double wv2[3] = {1, 2, 3};
	int64_t wi2[3] = {0, 4, 2};
	OK(run(&t, 11, in5, 2, o2, 2) == 0 && same(&o2[0], 1, &three, wv2) && same_i64(&o2[1], 1, &three, wi2),
	   "TopK: smallest");
	xt_free(&o2[0]), xt_free(&o2[1]);
	*(int64_t *)kk.data = 6;
	OK(run(&t, 11, in5, 2, o2, 2) == -1 && strstr(t.err.msg, "K = 6"), "TopK: K past the axis fails: %s", t.err.msg);
	xt_free(&o2[0]), xt_free(&o2[1]), xt_free(&kk), xt_free(&x);
}

/* ---- NonMaxSuppression, RoiAlign, DepthToSpace ---------------------------------------------------------------------- */

static void test_detection(void)
{
	struct xtensor b, s, mo, iou, y;
	struct tnode t;
	/* three boxes, the first two overlapping (IoU 0.81), equal scores for the last two */
	int64_t db[3] = {1, 3, 4}, ds[3] = {1, 1, 3};
	double bv[12] = {0, 0, 1, 1, 0, 0.1, 1, 1.1, 5, 5, 6, 6}, sv[3] = {0.9, 0.8, 0.8};
	mk(&b, OV_DT_FLOAT, 3, db, bv);
	mk(&s, OV_DT_FLOAT, 3, ds, sv);
	mk_vec_i64(&mo, (int64_t[]){10}, 1);
	mk(&iou, OV_DT_FLOAT, 1, (int64_t[]){1}, (double[]){0.5});
	const struct xtensor *in[4] = {&b, &s, &mo, &iou};
	node(&t, "NonMaxSuppression");
	int64_t wd[2] = {2, 3}, w[6] = {0, 0, 0, 0, 0, 2};
	OK(run(&t, 11, in, 4, &y, 1) == 0 && same_i64(&y, 2, wd, w), "NonMaxSuppression: overlap suppressed, order by score");
	xt_free(&y);
	*(float *)iou.data = 0.9f;
	int64_t wd2[2] = {3, 3}, w2[9] = {0, 0, 0, 0, 0, 1, 0, 0, 2};
	OK(run(&t, 11, in, 4, &y, 1) == 0 && same_i64(&y, 2, wd2, w2),
	   "NonMaxSuppression: equal scores keep the lower box index first");
	xt_free(&y);
	*(int64_t *)mo.data = 1;
	int64_t wd3[2] = {1, 3}, w3[3] = {0, 0, 0};
	OK(run(&t, 11, in, 4, &y, 1) == 0 && same_i64(&y, 2, wd3, w3), "NonMaxSuppression: max_output_boxes_per_class 1");
	xt_free(&y);
	const struct xtensor *in2[2] = {&b, &s};
	int64_t wd4[2] = {0, 3};
	OK(run(&t, 11, in2, 2, &y, 1) == 0 && same_i64(&y, 2, wd4, NULL), "NonMaxSuppression: no max_output gives none");
	xt_free(&y), xt_free(&b), xt_free(&s), xt_free(&mo), xt_free(&iou);

	/* RoiAlign on a ramp: the average of bilinear samples of a linear function is the function at the centre */
	struct xtensor x, rois, bi;
	int64_t dx[4] = {1, 1, 4, 4}, dr[2] = {1, 4}, one = 1;
	double xv[16];
	for (int i = 0; i < 16; i++)
		xv[i] = (i / 4) * 10 + (i % 4);
	mk(&x, OV_DT_FLOAT, 4, dx, xv);
	mk(&rois, OV_DT_FLOAT, 2, dr, (double[]){0.5, 0.5, 2.5, 2.5});
	mk_vec_i64(&bi, (int64_t[]){0}, 1);
	const struct xtensor *in3[3] = {&x, &rois, &bi};
	node(&t, "RoiAlign");
	set_int(&t, "output_height", 1);
	set_int(&t, "output_width", 1);
	set_int(&t, "sampling_ratio", 2);
	int64_t dy[4] = {1, 1, 1, 1};
	double wy[1] = {11}; /* centre (1, 1) in half-pixel coordinates: 10*1 + 1 */
	OK(run(&t, 16, in3, 3, &y, 1) == 0 && same(&y, 4, dy, wy), "RoiAlign: avg on a linear ramp is its centre value");
	xt_free(&y);
	*(int64_t *)bi.data = 1;
	OK(run(&t, 16, in3, 3, &y, 1) == -1 && strstr(t.err.msg, "batch_indices[0] = 1"), "RoiAlign: batch index 1 of 1 fails: %s",
	   t.err.msg);
	xt_free(&y);
	*(int64_t *)bi.data = 0;
	((float *)rois.data)[2] = 1e30f;
	node(&t, "RoiAlign");
	OK(run(&t, 16, in3, 3, &y, 1) == -1 && t.err.msg[0], "RoiAlign: a 1e30-wide roi fails: %s", t.err.msg);
	xt_free(&y), xt_free(&x), xt_free(&rois), xt_free(&bi);
	(void)one;

	/* ReverseSequence twice is the identity; a length past the steps fails */
	int64_t dr3[3] = {4, 2, 3};
	mk(&x, OV_DT_INT16, 3, dr3, NULL);
	for (int i = 0; i < 24; i++)
		((int16_t *)x.data)[i] = (int16_t)i;
	struct xtensor sl, z;
	mk_vec_i64(&sl, (int64_t[]){3, 4}, 2);
	const struct xtensor *in4[2] = {&x, &sl};
	node(&t, "ReverseSequence");
	int ok = run(&t, 10, in4, 2, &y, 1) == 0 && ((int16_t *)y.data)[0] == 12 && ((int16_t *)y.data)[3] == 21 &&
		 ((int16_t *)y.data)[18] == 18;
	const struct xtensor *in5[2] = {&y, &sl};
	ok = ok && run(&t, 10, in5, 2, &z, 1) == 0 && !memcmp(z.data, x.data, x.bytes);
	OK(ok, "ReverseSequence: reverses each batch within its length, twice is the identity");
	xt_free(&y), xt_free(&z);
	((int64_t *)sl.data)[1] = 5;
	OK(run(&t, 10, in4, 2, &y, 1) == -1 && strstr(t.err.msg, "= 5"), "ReverseSequence: a length of 5 over 4 steps fails: %s",
	   t.err.msg);
	xt_free(&y), xt_free(&sl), xt_free(&x);
}

/* ---- the other misc kernels: shapes that would read out of bounds or run away ------------------------------------- */

static void test_misc_hostile(void)
{
	struct xtensor x, a, b, c, y, o3[3];
	struct tnode t;

	/* LSTM with W of the wrong shape */
	int64_t dx[3] = {2, 1, 3}, dw[3] = {1, 8, 3}, dr[3] = {1, 8, 2};
	mk(&x, OV_DT_FLOAT, 3, dx, NULL);
	mk(&a, OV_DT_FLOAT, 3, dw, NULL);
	mk(&b, OV_DT_FLOAT, 3, dr, NULL);
	const struct xtensor *in[3] = {&x, &a, &b};
	node(&t, "LSTM");
	OK(run(&t, 14, in, 3, o3, 3) == 0 && o3[0].dims[0] == 2 && o3[0].dims[3] == 2, "LSTM: hidden 2 from R, zeros in, Y [2,1,1,2]");
	for (int i = 0; i < 3; i++)
		xt_free(&o3[i]);
	xt_free(&a);
	dw[1] = 7;
	mk(&a, OV_DT_FLOAT, 3, dw, NULL);
	OK(run(&t, 14, in, 3, o3, 3) == -1 && strstr(t.err.msg, "W must be"), "LSTM: W of 7 rows for 4 gates fails: %s",
	   t.err.msg);
	for (int i = 0; i < 3; i++)
		xt_free(&o3[i]);
	xt_free(&x), xt_free(&a), xt_free(&b);

	/* DFT with an absurd dft_length */
	int64_t dd[3] = {1, 4, 1};
	mk(&x, OV_DT_FLOAT, 3, dd, NULL);
	mk_scalar_i64(&a, 1ll << 50);
	const struct xtensor *in2[2] = {&x, &a};
	node(&t, "DFT");
	OK(run(&t, 17, in2, 2, &y, 1) == -1 && strstr(t.err.msg, "dft_length"), "DFT: dft_length 2^50 fails: %s", t.err.msg);
	xt_free(&y), xt_free(&x), xt_free(&a);

	/* MelWeightMatrix reaching past the Nyquist bin */
	mk_scalar_i64(&a, 8);
	mk_scalar_i64(&b, 64);
	mk_scalar_i64(&c, 16000);
	struct xtensor lo, hi;
	mk(&lo, OV_DT_FLOAT, 0, NULL, (double[]){0});
	mk(&hi, OV_DT_FLOAT, 0, NULL, (double[]){16000});
	const struct xtensor *in3[5] = {&a, &b, &c, &lo, &hi};
	node(&t, "MelWeightMatrix");
	OK(run(&t, 17, in3, 5, &y, 1) == -1 && strstr(t.err.msg, "upper_edge_hertz"), "MelWeightMatrix: an upper edge past Nyquist fails: %s",
	   t.err.msg);
	xt_free(&y), xt_free(&a), xt_free(&b), xt_free(&c), xt_free(&lo), xt_free(&hi);

	/* QuantizeLinear: round half to even, saturation, per-axis zero points */
	int64_t dq[2] = {2, 3};
	mk(&x, OV_DT_FLOAT, 2, dq, (double[]){0.5, 1.5, 2.5, -0.5, 300, -300});
	mk(&a, OV_DT_FLOAT, 1, (int64_t[]){2}, (double[]){1, 1});
	mk(&b, OV_DT_INT8, 1, (int64_t[]){2}, (double[]){0, 1});
	const struct xtensor *inq[3] = {&x, &a, &b};
	node(&t, "QuantizeLinear");
	set_int(&t, "axis", 0);
	double wq[6] = {0, 2, 2, 1, 127, -128};
	OK(run(&t, 13, inq, 3, &y, 1) == 0 && y.dtype == OV_DT_INT8 && same(&y, 2, dq, wq),
	   "QuantizeLinear: ties to even, saturation, a zero point per row");
	xt_free(&y), xt_free(&b);
	mk(&b, OV_DT_INT8, 1, (int64_t[]){3}, NULL);
	OK(run(&t, 13, inq, 3, &y, 1) == -1 && strstr(t.err.msg, "zero point"), "QuantizeLinear: a zero point of another shape fails: %s",
	   t.err.msg);
	xt_free(&y), xt_free(&x), xt_free(&a), xt_free(&b);

	/* NegativeLogLikelihoodLoss with a target past the classes */
	int64_t dn[2] = {2, 3};
	mk(&x, OV_DT_FLOAT, 2, dn, NULL);
	mk_vec_i64(&a, (int64_t[]){1, 3}, 2);
	const struct xtensor *inn[2] = {&x, &a};
	node(&t, "NegativeLogLikelihoodLoss");
	OK(run(&t, 13, inn, 2, &y, 1) == -1 && strstr(t.err.msg, "target[1] = 3"), "NegativeLogLikelihoodLoss: target 3 of 3 classes fails: %s",
	   t.err.msg);
	xt_free(&y), xt_free(&x), xt_free(&a);
}

int main(void)
{
	test_transpose();
	test_slice();
	test_reshape();
	test_pad();
	test_hostile_sizes();
	test_gather();
	test_reduce();
	test_argmax_float();
	test_detection();
	test_misc_hostile();
	return tap_done();
}
