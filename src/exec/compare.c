/* Comparing a computed tensor with an expected one under ONNX's rule |a-b| <= atol + rtol*|b|, with the numbers
 * a person needs to judge a failure (largest errors and where, NaN/Inf counts, the tolerances that would pass). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/base/json.h"
#include "src/exec/exec.h"

static int is_int_dtype(int32_t dt)
{
	switch (dt) {
	case OV_DT_INT8: case OV_DT_UINT8: case OV_DT_INT16: case OV_DT_UINT16: case OV_DT_INT32:
	case OV_DT_UINT32: case OV_DT_INT64: case OV_DT_UINT64: case OV_DT_BOOL:
		return 1;
	default:
		return 0;
	}
}

/* |a-b| for integers without going through a double first (int64 values beyond 2^53 stay distinct). */
static double int_diff(const struct xtensor *a, const struct xtensor *b, int64_t i)
{
	if (a->dtype == OV_DT_UINT64 || b->dtype == OV_DT_UINT64) {
		uint64_t x = a->dtype == OV_DT_UINT64 ? ((const uint64_t *)a->data)[i] : (uint64_t)xt_get_int(a, i);
		uint64_t y = b->dtype == OV_DT_UINT64 ? ((const uint64_t *)b->data)[i] : (uint64_t)xt_get_int(b, i);
		return x > y ? (double)(x - y) : (double)(y - x);
	}
	int64_t x = xt_get_int(a, i), y = xt_get_int(b, i);
	return x > y ? (double)((uint64_t)x - (uint64_t)y) : (double)((uint64_t)y - (uint64_t)x);
}

/* Sequences and optionals: the same kind and length, then item by item, the counts added up and the worst errors
 * kept (their flat indices are the items', so none is given). */
static void compare_items(const struct xtensor *got, const struct xtensor *want, double rtol, double atol,
			  struct compare_stats *s)
{
	double sum_abs = 0;

	memset(s, 0, sizeof *s);
	s->max_abs_at = s->max_rel_at = -1;
	if (got->kind != want->kind || got->numel != want->numel) {
		s->shape_mismatch = 1;
		s->min_atol = s->min_rtol = INFINITY;
		return;
	}
	for (int64_t i = 0; i < got->numel; i++) {
		struct compare_stats c;
		exec_compare(&xt_items(got)[i], &xt_items(want)[i], rtol, atol, &c);
		s->dtype_mismatch |= c.dtype_mismatch;
		s->shape_mismatch |= c.shape_mismatch;
		s->n += c.n;
		s->mismatches += c.mismatches;
		s->nan_a += c.nan_a;
		s->nan_b += c.nan_b;
		s->inf_a += c.inf_a;
		s->inf_b += c.inf_b;
		sum_abs += c.mean_abs * (double)c.n;
		s->max_abs = fmax(s->max_abs, c.max_abs);
		s->max_rel = fmax(s->max_rel, c.max_rel);
		s->min_atol = fmax(s->min_atol, c.min_atol);
		s->min_rtol = fmax(s->min_rtol, c.min_rtol);
	}
	if (s->dtype_mismatch || s->shape_mismatch)
		s->min_atol = s->min_rtol = INFINITY;
	s->mean_abs = s->n ? sum_abs / (double)s->n : 0;
	s->pass = !s->dtype_mismatch && !s->shape_mismatch && !s->mismatches;
}

void exec_compare(const struct xtensor *got, const struct xtensor *want, double rtol, double atol,
		  struct compare_stats *s)
{
	if (got->kind != XT_TENSOR || want->kind != XT_TENSOR) {
		compare_items(got, want, rtol, atol, s);
		return;
	}
	double sum_abs = 0;
	int64_t n_finite = 0;
	int hopeless = 0; /* a NaN/Inf mismatch, or a nonzero error where want is 0: no rtol alone passes */
	int rtol_hopeless = 0;

	memset(s, 0, sizeof *s);
	s->max_abs_at = s->max_rel_at = -1;
	s->n = want->numel;
	s->dtype_mismatch = got->dtype != want->dtype;
	s->shape_mismatch = got->rank != want->rank;
	for (int i = 0; i < got->rank && !s->shape_mismatch; i++)
		s->shape_mismatch = got->dims[i] != want->dims[i];
	if (s->shape_mismatch || s->dtype_mismatch || got->numel != want->numel) {
		s->shape_mismatch |= got->numel != want->numel;
		s->min_atol = s->min_rtol = INFINITY;
		s->pass = 0;
		return;
	}
	if (want->dtype == OV_DT_STRING) {
		for (int64_t i = 0; i < s->n; i++) {
			const char *x = ((char *const *)got->data)[i], *y = ((char *const *)want->data)[i];
			if (strcmp(x ? x : "", y ? y : "")) {
				if (!s->mismatches++)
					s->max_abs_at = i;
			}
		}
		s->min_atol = s->min_rtol = s->mismatches ? INFINITY : 0;
		s->pass = !s->mismatches;
		return;
	}
	int ints = is_int_dtype(want->dtype);
	for (int64_t i = 0; i < s->n; i++) {
		double a = xt_get(got, i), b = xt_get(want, i);
		int na = !!isnan(a), nb = !!isnan(b), ia = !!isinf(a), ib = !!isinf(b); /* isinf may be -1 for -Inf */
		s->nan_a += na;
		s->nan_b += nb;
		s->inf_a += ia;
		s->inf_b += ib;
		if (na || nb || ia || ib) {
			/* NaN matches only NaN; an infinity only the same infinity */
			if (!((na && nb) || (ia && ib && (a > 0) == (b > 0)))) {
				s->mismatches++;
				hopeless = 1;
			}
			continue;
		}
		double d = ints ? int_diff(got, want, i) : fabs(a - b), mb = fabs(b);
		sum_abs += d;
		n_finite++;
		if (d > s->max_abs || s->max_abs_at < 0) {
			s->max_abs = d;
			s->max_abs_at = i;
		}
		if (mb > 0) {
			double r = d / mb;
			if (r > s->max_rel || s->max_rel_at < 0) {
				s->max_rel = r;
				s->max_rel_at = i;
			}
		} else if (d > 0) {
			rtol_hopeless = 1;
		}
		if (!(d <= atol + rtol * mb))
			s->mismatches++;
	}
	s->mean_abs = n_finite ? sum_abs / (double)n_finite : 0;
	s->min_atol = hopeless ? INFINITY : s->max_abs;
	s->min_rtol = hopeless || rtol_hopeless ? INFINITY : s->max_rel;
	s->pass = s->mismatches == 0;
}

/* The largest finite |x| of a tensor, or of every item of a sequence or optional. */
static double max_abs_of(const struct xtensor *t)
{
	double m = 0;

	if (t->kind != XT_TENSOR) {
		for (int64_t i = 0; i < t->numel; i++)
			m = fmax(m, max_abs_of(&xt_items(t)[i]));
		return m;
	}
	if (t->dtype == OV_DT_STRING || !t->data)
		return 0;
	for (int64_t i = 0; i < t->numel; i++) {
		double x = fabs(xt_get(t, i));
		if (isfinite(x) && x > m)
			m = x;
	}
	return m;
}

/* Does the tensor (or every item) hold integers or bools? */
static int holds_ints(const struct xtensor *t)
{
	if (t->kind != XT_TENSOR) {
		for (int64_t i = 0; i < t->numel; i++)
			if (!holds_ints(&xt_items(t)[i]))
				return 0;
		return t->numel > 0;
	}
	return is_int_dtype(t->dtype);
}

void exec_compare_rule(const struct xtensor *got, const struct xtensor *want, const struct compare_rule *r,
		       struct compare_stats *s)
{
	double rtol = r->rtol, atol = r->atol;

	if (r->exact_ints && holds_ints(want) && holds_ints(got))
		rtol = atol = 0;
	else if (r->scale > 0)
		atol += r->scale * max_abs_of(want);
	exec_compare(got, want, rtol, atol, s);
}

void compare_rule_describe(const struct compare_rule *r, char *buf, size_t len)
{
	if (r->scale <= 0 && !r->exact_ints) {
		snprintf(buf, len, "rtol %g, atol %g", r->rtol, r->atol);
		return;
	}
	snprintf(buf, len, "|got-want| <= %g + %g*|want| + %g*max|want|%s", r->atol, r->rtol, r->scale,
		 r->exact_ints ? ", integers exact" : "");
}

void compare_rule_json(struct json *j, const struct compare_rule *r)
{
	char text[200];

	compare_rule_describe(r, text, sizeof text);
	json_key(j, "rtol");
	json_double(j, r->rtol);
	json_key(j, "atol");
	json_double(j, r->atol);
	json_key(j, "scale");
	json_double(j, r->scale);
	json_key(j, "exact_ints");
	json_bool(j, r->exact_ints);
	json_kstr(j, "rule", text);
}

/* The flat index i of t as a JSON multi-index, null for i < 0. */
static void json_at(struct json *j, const struct xtensor *t, int64_t i)
{
	int64_t idx[XT_MAX_RANK];

	if (i < 0 || t->kind != XT_TENSOR) {
		json_null(j);
		return;
	}
	for (int d = t->rank - 1; d >= 0; d--) {
		idx[d] = t->dims[d] ? i % t->dims[d] : 0;
		i = t->dims[d] ? i / t->dims[d] : 0;
	}
	json_arr(j);
	for (int d = 0; d < t->rank; d++)
		json_int(j, idx[d]);
	json_end_arr(j);
}

void compare_stats_json(struct json *j, const struct compare_stats *c, const struct xtensor *got, const char *g_name,
			const char *w_name)
{
	char key[40];
	int mismatch = c->dtype_mismatch || c->shape_mismatch;

	json_key(j, "pass");
	json_bool(j, c->pass);
	json_key(j, "dtype_mismatch");
	json_bool(j, c->dtype_mismatch);
	json_key(j, "shape_mismatch");
	json_bool(j, c->shape_mismatch);
	json_kint(j, "n", c->n);
	json_kint(j, "mismatches", c->mismatches);
	json_key(j, "max_abs");
	json_double(j, c->max_abs);
	json_key(j, "max_abs_at");
	json_at(j, got, mismatch ? -1 : c->max_abs_at);
	json_key(j, "max_rel");
	json_double(j, c->max_rel);
	json_key(j, "max_rel_at");
	json_at(j, got, mismatch ? -1 : c->max_rel_at);
	json_key(j, "mean_abs");
	json_double(j, c->mean_abs);
	snprintf(key, sizeof key, "nan_%s", g_name);
	json_kint(j, key, c->nan_a);
	snprintf(key, sizeof key, "nan_%s", w_name);
	json_kint(j, key, c->nan_b);
	snprintf(key, sizeof key, "inf_%s", g_name);
	json_kint(j, key, c->inf_a);
	snprintf(key, sizeof key, "inf_%s", w_name);
	json_kint(j, key, c->inf_b);
	json_key(j, "min_atol");
	json_double(j, c->min_atol);
	json_key(j, "min_rtol");
	json_double(j, c->min_rtol);
}
