/* The index and layout ops' shared arithmetic (src/exec/ops/ov-index.h), which the CPU kernels loop over and the CUDA
 * kernels (cuda/index.cu, cuda/scatter.cu) run a thread of, checked on the host against references written the
 * way the CPU kernels computed before they shared it:
 * - ov_get_int, the device's reading of an index, against xt_get_int for every type it reads;
 * - ov_topk_row (a heap) against a sort of the whole row with TopK's comparison, on random rows with ties, NaN,
 *   infinities and signed zeros, every K, both directions, strided rows;
 * - ov_scatter_combine against each reduction computed in int64 (wrapping) or in the float type through
 *   xt_get/xt_set, bit for bit, NaNs included, for every type;
 * - ov_cum_line against a running sum or product in the widest type, truncated, or in the float type (bit for
 *   bit, but for the sign of a NaN that two NaNs make);
 * - ov_range_at against the exact value in 128 bits;
 * - the setups' index resolution (ops/index.c): offsets of GatherElements, GatherND with batch_dims and
 *   ScatterND on small cases worked by hand, and their refusals. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/exec.h"
#include "src/exec/ops/index.h"
#include "src/exec/ops/ov-index.h"
#include "tests/unit/tap.h"

#include "tests/unit/knode.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static int64_t irand(int64_t lo, int64_t hi)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return lo + (int64_t)(rng % (uint64_t)(hi - lo + 1));
}

static void alloc_or_die(struct xtensor *t, int32_t dt, int rank, const int64_t *dims)
{
	struct ov_error e;
	if (xt_alloc(t, dt, rank, dims, &e))
		abort();
}

static const int32_t readable[] = {OV_DT_INT8, OV_DT_INT16, OV_DT_INT32, OV_DT_INT64, OV_DT_UINT8, OV_DT_UINT16,
				   OV_DT_UINT32, OV_DT_UINT64, OV_DT_BOOL, OV_DT_FLOAT, OV_DT_DOUBLE,
				   OV_DT_FLOAT16, OV_DT_BFLOAT16};
#define N_READABLE (sizeof readable / sizeof readable[0])

/* Random bytes, then for the float types values where the rules show. */
static void fill_random(struct xtensor *t)
{
	static const double special[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 1e30, -1e30, 3.0};
	for (size_t b = 0; b < t->bytes; b++)
		((uint8_t *)t->data)[b] = (uint8_t)irand(0, 255);
	int is_float = t->dtype == OV_DT_FLOAT || t->dtype == OV_DT_DOUBLE || t->dtype == OV_DT_FLOAT16 ||
		       t->dtype == OV_DT_BFLOAT16;
	for (int64_t i = 0; i < t->numel; i++) {
		if (is_float)
			xt_set(t, i, irand(0, 2) ? special[irand(0, 11)] : (double)irand(-40, 40) / 4);
		else if (t->dtype == OV_DT_BOOL)
			((uint8_t *)t->data)[i] &= 1;
		else if (irand(0, 1)) /* small values tie often */
			xt_set(t, i, (double)irand(-3, 3));
	}
}

static void test_get_int(void)
{
	int agree = 1;
	int64_t n = 64;

	for (size_t d = 0; d < N_READABLE; d++) {
		struct xtensor t;
		alloc_or_die(&t, readable[d], 1, &n);
		fill_random(&t);
		for (int64_t i = 0; i < n; i++)
			agree &= ov_get_int(t.data, t.dtype, i) == xt_get_int(&t, i);
		xt_free(&t);
	}
	OK(agree, "ov_get_int reads every integer, bool and float type as xt_get_int does");
}

/* ---- TopK: the CPU's sort of the whole row before the kernels shared ov_topk_row ---- */

struct kv {
	double f;     /* the value (float types) */
	int64_t i;    /* the value (integer types) */
	int64_t at;   /* its position along the axis */
	int is_float, uns, largest;
};

/* NaN above every number and equal to NaN, uint64 unsigned, ties by lower position */
static int ref_cmp(const void *p, const void *q)
{
	const struct kv *a = p, *b = q;
	int c;
	if (a->is_float)
		c = a->f != a->f || b->f != b->f ? (a->f != a->f) - (b->f != b->f) : (a->f > b->f) - (a->f < b->f);
	else if (a->uns)
		c = ((uint64_t)a->i > (uint64_t)b->i) - ((uint64_t)a->i < (uint64_t)b->i);
	else
		c = (a->i > b->i) - (a->i < b->i);
	if (a->largest)
		c = -c;
	return c ? c : (a->at > b->at) - (a->at < b->at);
}

static void test_topk_row(void)
{
	int tried = 0, agree = 0;

	for (int it = 0; it < 3000; it++) {
		int32_t dt = readable[irand(0, N_READABLE - 1)];
		int64_t len = irand(0, 40), inner = irand(1, 3), n = len * inner, kk = irand(0, len);
		int largest = (int)irand(0, 1);
		int is_float = dt == OV_DT_FLOAT || dt == OV_DT_DOUBLE || dt == OV_DT_FLOAT16 || dt == OV_DT_BFLOAT16;
		struct xtensor x;
		alloc_or_die(&x, dt, 1, &n);
		fill_random(&x);
		int64_t base = irand(0, inner - 1), pos[40 * 3];
		struct kv ref[40];
		for (int64_t j = 0; j < len; j++) {
			ref[j].at = j;
			ref[j].is_float = is_float;
			ref[j].uns = dt == OV_DT_UINT64;
			ref[j].largest = largest;
			ref[j].f = is_float ? xt_get(&x, base + j * inner) : 0;
			ref[j].i = is_float ? 0 : xt_get_int(&x, base + j * inner);
		}
		qsort(ref, (size_t)len, sizeof ref[0], ref_cmp);
		ov_topk_row(x.data, dt, base, len, inner, kk, largest, pos, 2);
		int ok = 1;
		for (int64_t j = 0; j < kk; j++)
			ok &= pos[j * 2] == ref[j].at;
		tried++;
		agree += ok;
		if (!ok)
			printf("#   %s, len %lld, K %lld, largest %d: the heap and the sort differ\n", dtype_short_name(dt),
			       (long long)len, (long long)kk, largest);
		xt_free(&x);
	}
	OK(agree == tried, "ov_topk_row picks and orders the K first elements as a sort of the whole row does, ties by "
	   "position, NaN largest (%d of %d random rows)", agree, tried);
}

/* ---- scatter reductions ---- */

static void test_scatter_combine(void)
{
	int agree = 1, n_types = 0;
	int64_t n = 200;

	for (size_t d = 0; d < N_READABLE; d++) {
		int32_t dt = readable[d];
		if (!ov_scatter_red_type(dt))
			continue;
		n_types++;
		size_t es = xt_elem_size(dt);
		int is_float = dt == OV_DT_FLOAT || dt == OV_DT_DOUBLE || dt == OV_DT_FLOAT16 || dt == OV_DT_BFLOAT16;
		int uns = dt == OV_DT_UINT8 || dt == OV_DT_UINT16 || dt == OV_DT_UINT32 || dt == OV_DT_UINT64;
		struct xtensor y, u, z;
		alloc_or_die(&y, dt, 1, &n);
		alloc_or_die(&u, dt, 1, &n);
		alloc_or_die(&z, dt, 1, &n);
		fill_random(&y);
		fill_random(&u);
		for (int red = OV_SCATTER_ADD; red <= OV_SCATTER_MIN; red++) {
			memcpy(z.data, y.data, y.bytes);
			for (int64_t i = 0; i < n; i++) {
				ov_scatter_combine(z.data, i, u.data, i, dt, red);
				if (is_float) {
					double a = xt_get(&y, i), v = xt_get(&u, i), r;
					if (dt == OV_DT_DOUBLE)
						r = red == OV_SCATTER_ADD ? a + v : red == OV_SCATTER_MUL ? a * v : 0;
					else
						r = red == OV_SCATTER_ADD ? (double)((float)a + (float)v)
						    : red == OV_SCATTER_MUL ? (double)((float)a * (float)v) : 0;
					if (red == OV_SCATTER_MAX)
						r = a > v ? a : v;
					else if (red == OV_SCATTER_MIN)
						r = a < v ? a : v;
					struct xtensor w;
					uint64_t wb = 0;
					xt_wrap(&w, dt, 0, NULL, &wb);
					xt_set(&w, 0, r);
					agree &= !memcmp(&wb, (char *)z.data + (size_t)i * es, es); /* NaNs too */
				} else {
					int64_t a = xt_get_int(&y, i), v = xt_get_int(&u, i), r;
					uint64_t ua = (uint64_t)a, uv = (uint64_t)v;
					if (uns && es < 8)
						ua &= ((uint64_t)1 << es * 8) - 1, uv &= ((uint64_t)1 << es * 8) - 1;
					switch (red) {
					case OV_SCATTER_ADD: r = (int64_t)(ua + uv); break;
					case OV_SCATTER_MUL: r = (int64_t)(ua * uv); break;
					case OV_SCATTER_MAX: r = uns ? (int64_t)(ua > uv ? ua : uv) : a > v ? a : v; break;
					default: r = uns ? (int64_t)(ua < uv ? ua : uv) : a < v ? a : v; break;
					}
					uint64_t got = 0, want = (uint64_t)r; /* its low es bytes */
					memcpy(&got, (char *)z.data + (size_t)i * es, es);
					agree &= memcmp(&got, &want, es) == 0;
				}
			}
		}
		xt_free(&y);
		xt_free(&u);
		xt_free(&z);
	}
	OK(agree && n_types == 12, "ov_scatter_combine adds, multiplies (wrapping integers), takes the max and the min "
	   "on its %d types as int64 or float arithmetic does", n_types);
}

/* ---- CumSum, CumProd ---- */

static void test_cum_line(void)
{
	int agree = 1;

	for (int it = 0; it < 400; it++) {
		int32_t dt = readable[irand(0, N_READABLE - 1)];
		if (!ov_cum_type(dt))
			continue;
		int64_t len = irand(0, 30), inner = irand(1, 3), n = len * inner, base = irand(0, inner - 1);
		int ex = (int)irand(0, 1), rev = (int)irand(0, 1), prod = (int)irand(0, 1);
		int is_float = dt == OV_DT_FLOAT || dt == OV_DT_DOUBLE || dt == OV_DT_FLOAT16 || dt == OV_DT_BFLOAT16;
		size_t es = xt_elem_size(dt);
		struct xtensor x, y;
		alloc_or_die(&x, dt, 1, &n);
		alloc_or_die(&y, dt, 1, &n);
		fill_random(&x);
		ov_cum_line(x.data, y.data, dt, base, len, inner, ex, rev, prod);
		double fa = prod ? 1 : 0;
		uint64_t ia = prod ? 1 : 0;
		for (int64_t t = 0; t < len; t++) {
			int64_t at = base + (rev ? len - 1 - t : t) * inner;
			double fb = fa;
			uint64_t ib = ia;
			if (is_float) {
				double v = xt_get(&x, at);
				fa = dt == OV_DT_DOUBLE ? (prod ? fa * v : fa + v) : (double)(prod ? (float)fa * (float)v
												    : (float)fa + (float)v);
			} else {
				uint64_t v = (uint64_t)xt_get_int(&x, at);
				ia = prod ? ia * v : ia + v;
			}
			if (is_float) {
				struct xtensor w;
				uint64_t wb = 0;
				xt_wrap(&w, dt, 0, NULL, &wb);
				xt_set(&w, 0, ex ? fb : fa);
				/* bit for bit, but for the sign of a NaN two NaNs make (the machine's order of operands) */
				double want = xt_get(&w, 0), got = xt_get(&y, at);
				agree &= !memcmp(&wb, (char *)y.data + (size_t)at * es, es) || (want != want && got != got);
			} else {
				uint64_t want = ex ? ib : ia, got = 0;
				memcpy(&got, (char *)y.data + (size_t)at * es, es);
				agree &= memcmp(&got, &want, es) == 0;
			}
		}
		xt_free(&x);
		xt_free(&y);
	}
	OK(agree, "ov_cum_line runs sums and products (exclusive, reverse, strided) in the element's float type, "
	   "integers wrapping");
}

/* ---- Range ---- */

static void test_range(void)
{
	static const int32_t types[] = {OV_DT_INT64, OV_DT_INT32, OV_DT_INT16, OV_DT_INT8, OV_DT_UINT8, OV_DT_UINT16,
					OV_DT_UINT32};
	int agree = 1;

	for (int it = 0; it < 500; it++) {
		int32_t dt = types[irand(0, 6)];
		size_t es = xt_elem_size(dt);
		int64_t s = irand(0, 1) ? irand(-300, 300) : (int64_t)(rng ^ (rng << 7));
		int64_t d = irand(-1, 1) ? irand(-9, 9) : (int64_t)(rng >> irand(0, 40)), i = irand(0, 1000), y[1001];
		ov_range_at(y, dt, i, s, d, 0, 0);
		__int128 exact = (__int128)s + (__int128)i * d;
		uint64_t want = (uint64_t)exact, got = 0;
		memcpy(&got, (char *)y + (size_t)i * es, es);
		agree &= memcmp(&got, &want, es) == 0;
	}
	float f[4];
	double dd[4];
	ov_range_at(f, OV_DT_FLOAT, 3, 0, 0, 0.1, 0.3);
	ov_range_at(dd, OV_DT_DOUBLE, 3, 0, 0, 0.1, 0.3);
	OK(agree && f[3] == 0.1f + 3.0f * 0.3f && dd[3] == 0.1 + 3.0 * 0.3,
	   "ov_range_at gives the low bits of start + i * delta for the integer types, float32 in float32");
}

/* ---- the setups' index resolution ---- */

static struct xtensor mk(int32_t dt, int rank, const int64_t *dims, const double *v)
{
	struct xtensor t;
	alloc_or_die(&t, dt, rank, dims);
	for (int64_t i = 0; i < t.numel; i++)
		xt_set(&t, i, v[i]);
	return t;
}

static int plan(struct tnode *t, int scatter, int nd, const struct xtensor *const *in, size_t n_in,
		struct index_geom *p)
{
	struct exec_kernel_ctx k = {.g = &t->g, .opset = 18, .in = (const struct xtensor **)in, .n_in = n_in,
				    .err = &t->err};
	return scatter ? ops_scatter_setup(&k, nd, ops_host_input, p) : ops_gather_setup(&k, nd, ops_host_input, p);
}

static int offs_are(const struct index_geom *p, int64_t n, int64_t slice, const int64_t *want)
{
	if (p->n != n || p->slice != slice)
		return 0;
	for (int64_t i = 0; i < n; i++)
		if (p->offs[i] != want[i])
			return 0;
	return 1;
}

static void test_setups(void)
{
	struct tnode t;
	struct index_geom p;

	/* GatherElements over axis 1 of a 3x4: element (r, c) of the indices names (r, idx) */
	struct xtensor x = mk(OV_DT_FLOAT, 2, (int64_t[]){3, 4}, (double[12]){0});
	struct xtensor ie = mk(OV_DT_INT64, 2, (int64_t[]){2, 2}, (double[]){3, -1, 0, -4});
	const struct xtensor *in[3] = {&x, &ie, NULL};
	node(&t, "GatherElements");
	set_int(&t, "axis", 1);
	OK(plan(&t, 0, 0, in, 2, &p) == 0 && offs_are(&p, 4, 1, (int64_t[]){3, 3, 4, 4}) && p.rank == 2 &&
	   p.dims[0] == 2 && p.dims[1] == 2, "GatherElements: each index element resolved to its data offset");
	free(p.offs);

	struct xtensor bad = mk(OV_DT_INT64, 2, (int64_t[]){1, 2}, (double[]){1, 4});
	in[1] = &bad;
	OK(plan(&t, 0, 0, in, 2, &p) == -1 && !p.offs &&
	   strstr(t.err.msg, "indices[1] = 4 is out of range for a dim of 4"), "an index past the axis is refused, "
	   "naming it (%s)", t.err.msg);

	/* GatherND with batch_dims 1: data 2x3x4, indices 2x1x1 */
	struct xtensor x3 = mk(OV_DT_FLOAT, 3, (int64_t[]){2, 3, 4}, (double[24]){0});
	struct xtensor ind = mk(OV_DT_INT32, 3, (int64_t[]){2, 1, 1}, (double[]){2, -3});
	in[0] = &x3, in[1] = &ind;
	node(&t, "GatherND");
	set_int(&t, "batch_dims", 1);
	OK(plan(&t, 0, 1, in, 2, &p) == 0 && offs_are(&p, 2, 4, (int64_t[]){8, 12}) && p.rank == 3 && p.dims[0] == 2 &&
	   p.dims[1] == 1 && p.dims[2] == 4, "GatherND with batch_dims: batch b's tuples start in batch b's data");
	free(p.offs);

	/* ScatterND: tuples of both dims of a 3x3 (repeats kept, in order), updates of the right shape */
	struct xtensor x2 = mk(OV_DT_FLOAT, 2, (int64_t[]){3, 3}, (double[9]){0});
	struct xtensor i2 = mk(OV_DT_INT64, 2, (int64_t[]){3, 2}, (double[]){2, 1, 0, 0, -1, -2});
	struct xtensor u = mk(OV_DT_FLOAT, 1, (int64_t[]){3}, (double[]){1, 2, 3});
	in[0] = &x2, in[1] = &i2, in[2] = &u;
	node(&t, "ScatterND");
	set_str(&t, "reduction", "max");
	OK(plan(&t, 1, 1, in, 3, &p) == 0 && offs_are(&p, 3, 1, (int64_t[]){7, 0, 7}) && p.red == OV_SCATTER_MAX,
	   "ScatterND: tuples resolved in order, repeats kept, the reduction read");
	free(p.offs);
	struct xtensor ub = mk(OV_DT_FLOAT, 1, (int64_t[]){2}, (double[]){1, 2});
	in[2] = &ub;
	OK(plan(&t, 1, 1, in, 3, &p) == -1 && !p.offs && strstr(t.err.msg, "updates have the wrong shape"),
	   "updates of the wrong shape are refused (%s)", t.err.msg);
	struct xtensor xb = mk(OV_DT_BOOL, 2, (int64_t[]){3, 3}, (double[9]){0});
	struct xtensor ubool = mk(OV_DT_BOOL, 1, (int64_t[]){3}, (double[]){1, 0, 1});
	in[0] = &xb, in[2] = &ubool;
	OK(plan(&t, 1, 1, in, 3, &p) == -1 && strstr(t.err.msg, "reduction 'max' on BOOL"),
	   "a reduction on a type it does not take is refused (%s)", t.err.msg);

	xt_free(&x), xt_free(&ie), xt_free(&bad), xt_free(&x3), xt_free(&ind), xt_free(&x2), xt_free(&i2);
	xt_free(&u), xt_free(&ub), xt_free(&xb), xt_free(&ubool);
}

int main(void)
{
	test_get_int();
	test_topk_row();
	test_scatter_combine();
	test_cum_line();
	test_range();
	test_setups();
	return tap_done();
}
