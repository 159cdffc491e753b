/* Unit tests of tensor statistics and histograms (src/model/tensor-stats.c): float32 in raw_data and typed fields,
 * NaN and infinities kept out of min/max/mean/std, exact int64 and uint64 extremes, bool, float16 and bfloat16,
 * strings and empty tensors, histogram bins and edges, accuracy on a long tensor, and present_tensor_element's
 * text for the same values. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "src/base/dtype.h"
#include "src/present/present.h"
#include "src/model/tensor-stats.h"
#include "tests/unit/tap.h"

/* A tensor of n elements whose raw_data is the given bytes (not copied: they must outlive the tensor). */
static void raw_tensor(Onnx__TensorProto *t, int64_t *dims, int32_t dtype, int64_t n, const void *data, size_t len)
{
	onnx__tensor_proto__init(t);
	dims[0] = n;
	t->n_dims = 1;
	t->dims = dims;
	t->has_data_type = 1;
	t->data_type = dtype;
	t->has_raw_data = 1;
	t->raw_data.data = (uint8_t *)data;
	t->raw_data.len = len;
}

static int stats_of(Onnx__TensorProto *t, struct tensor_view *v, struct tensor_stats *s)
{
	struct ov_error e;

	if (tensor_view_open(NULL, t, v, &e))
		return -2;
	return tensor_stats_compute(v, s);
}

static int close_to(double a, double b, double tol)
{
	return fabs(a - b) <= tol * (fabs(b) > 1 ? fabs(b) : 1);
}

static void test_float_basic(void)
{
	float x[] = {1, 2, 3, 4, 0, -1};
	int64_t dims[1];
	Onnx__TensorProto t;
	struct tensor_view v;
	struct tensor_stats s;

	raw_tensor(&t, dims, OV_DT_FLOAT, 6, x, sizeof x);
	OK(stats_of(&t, &v, &s) == 0 && s.kind == TENSOR_STATS_FLOAT, "float32: statistics computed");
	OK(s.count == 6 && s.finite == 6 && s.zeros == 1 && !s.nans && !s.pos_inf && !s.neg_inf, "float32: counts");
	OK(s.min == -1 && s.argmin == 5 && s.max == 4 && s.argmax == 3, "float32: min -1 at 5, max 4 at 3");
	OK(close_to(s.mean, 1.5, 1e-15), "float32: mean 1.5 (got %g)", s.mean);
	/* population std of {1,2,3,4,0,-1}: sqrt(17.5/6) */
	OK(close_to(s.std, sqrt(17.5 / 6), 1e-14), "float32: std %g", s.std);

	uint64_t bins[5];
	uint64_t top = tensor_histogram(&v, &s, bins, 5);
	/* [-1,0) [0,1) [1,2) [2,3) [3,4]: -1 | 0 | 1 | 2 | 3,4 */
	OK(bins[0] == 1 && bins[1] == 1 && bins[2] == 1 && bins[3] == 1 && bins[4] == 2 && top == 2,
	   "histogram: 5 bins over [-1, 4], max lands in the last (%llu %llu %llu %llu %llu)",
	   (unsigned long long)bins[0], (unsigned long long)bins[1], (unsigned long long)bins[2],
	   (unsigned long long)bins[3], (unsigned long long)bins[4]);
}

static void test_nan_inf(void)
{
	float x[] = {NAN, 2, INFINITY, -INFINITY, -0.0f, 8, NAN};
	int64_t dims[1];
	Onnx__TensorProto t;
	struct tensor_view v;
	struct tensor_stats s;
	uint64_t bins[4];

	raw_tensor(&t, dims, OV_DT_FLOAT, 7, x, sizeof x);
	OK(stats_of(&t, &v, &s) == 0, "NaN/Inf: computed");
	OK(s.nans == 2 && s.pos_inf == 1 && s.neg_inf == 1 && s.finite == 3, "NaN/Inf: 2 nan, 1 +inf, 1 -inf, 3 finite");
	OK(s.zeros == 1, "NaN/Inf: -0.0 counts as a zero");
	OK(s.min == 0 && s.argmin == 4 && s.max == 8 && s.argmax == 5, "NaN/Inf: min/max over the finite values");
	OK(close_to(s.mean, 10.0 / 3, 1e-15) && isfinite(s.std), "NaN/Inf: mean 10/3, std finite");
	uint64_t top = tensor_histogram(&v, &s, bins, 4);
	OK(bins[0] + bins[1] + bins[2] + bins[3] == 3 && top == 1, "NaN/Inf: the histogram counts finite values only");

	float only[] = {NAN, INFINITY};
	raw_tensor(&t, dims, OV_DT_FLOAT, 2, only, sizeof only);
	OK(stats_of(&t, &v, &s) == 0 && s.finite == 0 && s.argmin == -1 && s.argmax == -1 && s.mean == 0,
	   "no finite values: argmin/argmax -1, mean 0");
	OK(tensor_histogram(&v, &s, bins, 4) == 0 && !bins[0] && !bins[3], "no finite values: an empty histogram");
}

static void test_typed_field(void)
{
	float x[] = {0.5f, -0.25f, 3};
	int64_t dims[1] = {3};
	Onnx__TensorProto t;
	struct tensor_view v;
	struct tensor_stats s;

	onnx__tensor_proto__init(&t);
	t.n_dims = 1;
	t.dims = dims;
	t.has_data_type = 1;
	t.data_type = OV_DT_FLOAT;
	t.n_float_data = 3;
	t.float_data = x;
	OK(stats_of(&t, &v, &s) == 0 && s.min == -0.25 && s.max == 3 && close_to(s.mean, 3.25 / 3, 1e-15),
	   "float_data: read from the typed field");
}

static void test_int64_exact(void)
{
	int64_t x[] = {INT64_MAX, -1, INT64_MIN, 0, INT64_MAX - 1};
	int64_t dims[1];
	Onnx__TensorProto t;
	struct tensor_view v;
	struct tensor_stats s;

	raw_tensor(&t, dims, OV_DT_INT64, 5, x, sizeof x);
	OK(stats_of(&t, &v, &s) == 0 && s.kind == TENSOR_STATS_INT, "int64: integer statistics");
	OK(s.imin == INT64_MIN && s.imax == INT64_MAX, "int64: exact extremes");
	OK(s.argmin == 2 && s.argmax == 0, "int64: first max (INT64_MAX, not INT64_MAX-1 which rounds the same)");
	OK(s.zeros == 1 && s.finite == 5, "int64: zeros 1");

	uint64_t u[] = {5, UINT64_MAX, 0, UINT64_MAX - 1};
	raw_tensor(&t, dims, OV_DT_UINT64, 4, u, sizeof u);
	OK(stats_of(&t, &v, &s) == 0 && s.kind == TENSOR_STATS_UINT64 && s.umin == 0 && s.umax == UINT64_MAX &&
	   s.argmin == 2 && s.argmax == 1, "uint64: exact extremes above INT64_MAX");

	int8_t i8[] = {-128, 127, 0, 5};
	raw_tensor(&t, dims, OV_DT_INT8, 4, i8, sizeof i8);
	OK(stats_of(&t, &v, &s) == 0 && s.imin == -128 && s.imax == 127 && close_to(s.mean, 1, 1e-15),
	   "int8: -128..127, mean 1");

	int64_t typed[] = {-(INT64_C(1) << 62), 3};
	onnx__tensor_proto__init(&t);
	dims[0] = 2;
	t.n_dims = 1;
	t.dims = dims;
	t.has_data_type = 1;
	t.data_type = OV_DT_INT64;
	t.n_int64_data = 2;
	t.int64_data = typed;
	OK(stats_of(&t, &v, &s) == 0 && s.imin == -(INT64_C(1) << 62) && s.imax == 3, "int64_data: typed field");
}

static void test_bool(void)
{
	uint8_t b[] = {1, 0, 0, 1, 1};
	int64_t dims[1];
	Onnx__TensorProto t;
	struct tensor_view v;
	struct tensor_stats s;
	uint64_t bins[2];

	raw_tensor(&t, dims, OV_DT_BOOL, 5, b, sizeof b);
	OK(stats_of(&t, &v, &s) == 0 && s.kind == TENSOR_STATS_FLOAT && s.min == 0 && s.max == 1 && s.zeros == 2 &&
	   close_to(s.mean, 0.6, 1e-15), "bool: 0/1, 2 false, mean 0.6");
	tensor_histogram(&v, &s, bins, 2);
	OK(bins[0] == 2 && bins[1] == 3, "bool: histogram false 2, true 3");
}

static void test_half(void)
{
	/* float16: 1, -2, 65504, inf, nan, 0 */
	uint16_t h[] = {0x3c00, 0xc000, 0x7bff, 0x7c00, 0x7e00, 0x0000};
	int64_t dims[1];
	Onnx__TensorProto t;
	struct tensor_view v;
	struct tensor_stats s;

	raw_tensor(&t, dims, OV_DT_FLOAT16, 6, h, sizeof h);
	OK(stats_of(&t, &v, &s) == 0 && s.min == -2 && s.max == 65504 && s.pos_inf == 1 && s.nans == 1 &&
	   s.zeros == 1 && s.finite == 4, "float16: decoded, inf and nan counted apart");
	OK(close_to(s.mean, 65503.0 / 4, 1e-15), "float16: mean of finite values");

	/* bfloat16: 1, -2, 0.5, -inf */
	uint16_t bf[] = {0x3f80, 0xc000, 0x3f00, 0xff80};
	raw_tensor(&t, dims, OV_DT_BFLOAT16, 4, bf, sizeof bf);
	OK(stats_of(&t, &v, &s) == 0 && s.min == -2 && s.max == 1 && s.neg_inf == 1 && close_to(s.mean, -0.5 / 3, 1e-15),
	   "bfloat16: decoded, -inf counted");

	/* float16 in int32_data (the typed field) */
	int32_t typed[] = {0x3c00, 0x4000};
	onnx__tensor_proto__init(&t);
	dims[0] = 2;
	t.n_dims = 1;
	t.dims = dims;
	t.has_data_type = 1;
	t.data_type = OV_DT_FLOAT16;
	t.n_int32_data = 2;
	t.int32_data = typed;
	OK(stats_of(&t, &v, &s) == 0 && s.min == 1 && s.max == 2, "float16 in int32_data");
}

static void test_strings_empty(void)
{
	ProtobufCBinaryData str[2] = {{2, (uint8_t *)"hi"}, {0, NULL}};
	int64_t dims[2] = {2, 0};
	Onnx__TensorProto t;
	struct tensor_view v;
	struct tensor_stats s;
	uint64_t bins[3] = {7, 7, 7};

	onnx__tensor_proto__init(&t);
	t.n_dims = 1;
	dims[0] = 2;
	t.dims = dims;
	t.has_data_type = 1;
	t.data_type = OV_DT_STRING;
	t.n_string_data = 2;
	t.string_data = str;
	OK(stats_of(&t, &v, &s) == -1 && s.kind == TENSOR_STATS_NONE && s.count == 2, "strings: no statistics, count 2");
	OK(tensor_histogram(&v, &s, bins, 3) == 0 && !bins[0] && !bins[2], "strings: an empty histogram");

	onnx__tensor_proto__init(&t);
	t.n_dims = 2;
	t.dims = dims;
	t.has_data_type = 1;
	t.data_type = OV_DT_FLOAT;
	OK(stats_of(&t, &v, &s) == 0 && s.count == 0 && s.finite == 0 && s.argmin == -1, "a [2,0] tensor: no values");
}

static void test_constant_and_span(void)
{
	double same[] = {7, 7, 7};
	int64_t dims[1];
	Onnx__TensorProto t;
	struct tensor_view v;
	struct tensor_stats s;
	uint64_t bins[4];

	raw_tensor(&t, dims, OV_DT_DOUBLE, 3, same, sizeof same);
	OK(stats_of(&t, &v, &s) == 0 && s.std == 0 && s.mean == 7, "constant: std 0");
	tensor_histogram(&v, &s, bins, 4);
	OK(bins[0] == 3 && !bins[1] && !bins[3], "constant: every value in bin 0");

	double wide[] = {-1.5e308, 1.5e308, 0};
	raw_tensor(&t, dims, OV_DT_DOUBLE, 3, wide, sizeof wide);
	OK(stats_of(&t, &v, &s) == 0 && s.min == -1.5e308 && s.max == 1.5e308, "span beyond DBL_MAX: min/max");
	tensor_histogram(&v, &s, bins, 4);
	OK(bins[0] == 1 && bins[2] == 1 && bins[3] == 1, "span beyond DBL_MAX: binned by halves");

	double big[] = {1.5e308, 1.5e308};
	raw_tensor(&t, dims, OV_DT_DOUBLE, 2, big, sizeof big);
	OK(stats_of(&t, &v, &s) == 0 && s.mean == 1.5e308, "a sum past DBL_MAX: the running mean is still right");
}

/* A million values 1e6 + k%2: naive one-pass variance loses everything here; two passes give 0.5 exactly. */
static void test_accuracy(void)
{
	int64_t n = 1000000, dims[1];
	float *x = malloc((size_t)n * sizeof *x);
	Onnx__TensorProto t;
	struct tensor_view v;
	struct tensor_stats s;

	if (!x) {
		OK(0, "out of memory");
		return;
	}
	for (int64_t i = 0; i < n; i++)
		x[i] = 1e6f + (float)(i % 2);
	raw_tensor(&t, dims, OV_DT_FLOAT, n, x, (size_t)n * sizeof *x);
	int rc = stats_of(&t, &v, &s);
	OK(rc == 0 && close_to(s.mean, 1e6 + 0.5, 1e-15) && close_to(s.std, 0.5, 1e-9),
	   "a million values near 1e6: mean %.10g, std %.10g", s.mean, s.std);
	free(x);
}

static void test_element_text(void)
{
	float x[] = {1.0f / 3, NAN, -INFINITY, 1e-7f};
	int64_t dims[1];
	Onnx__TensorProto t;
	struct present_tensor pt = {0};
	struct strbuf b = {0};
	struct ov_error e;

	raw_tensor(&t, dims, OV_DT_FLOAT, 4, x, sizeof x);
	pt.readable = tensor_view_open(NULL, &t, &pt.values, &e) == 0;
	int sp = present_tensor_element(&b, &pt, 0, 20);
	IS_STR(strbuf_str(&b), "0.333333", "element: %%.6g");
	OK(!sp, "element: a finite value is not special");
	strbuf_reset(&b);
	sp = present_tensor_element(&b, &pt, 1, 20);
	IS_STR(strbuf_str(&b), "nan", "element: nan");
	OK(sp, "element: nan is special");
	strbuf_reset(&b);
	present_tensor_element(&b, &pt, 2, 20);
	IS_STR(strbuf_str(&b), "-inf", "element: -inf");
	strbuf_reset(&b);
	present_tensor_element(&b, &pt, 3, 20);
	IS_STR(strbuf_str(&b), "1e-07", "element: 1e-07");

	int64_t big[] = {INT64_MIN, INT64_MAX - 1};
	raw_tensor(&t, dims, OV_DT_INT64, 2, big, sizeof big);
	pt.readable = tensor_view_open(NULL, &t, &pt.values, &e) == 0;
	strbuf_reset(&b);
	present_tensor_element(&b, &pt, 1, 20);
	IS_STR(strbuf_str(&b), "9223372036854775806", "element: int64 exactly");

	float c[] = {1.5f, -2};
	raw_tensor(&t, dims, OV_DT_COMPLEX64, 1, c, sizeof c);
	pt.readable = tensor_view_open(NULL, &t, &pt.values, &e) == 0;
	strbuf_reset(&b);
	present_tensor_element(&b, &pt, 0, 20);
	IS_STR(strbuf_str(&b), "1.5-2i", "element: complex64 a+bi");

	uint8_t bo[] = {0, 1};
	raw_tensor(&t, dims, OV_DT_BOOL, 2, bo, sizeof bo);
	pt.readable = tensor_view_open(NULL, &t, &pt.values, &e) == 0;
	strbuf_reset(&b);
	present_tensor_element(&b, &pt, 1, 20);
	IS_STR(strbuf_str(&b), "true", "element: bool true");
	strbuf_free(&b);
}

int main(void)
{
	test_float_basic();
	test_nan_inf();
	test_typed_field();
	test_int64_exact();
	test_bool();
	test_half();
	test_strings_empty();
	test_constant_and_span();
	test_accuracy();
	test_element_text();
	return tap_done();
}
