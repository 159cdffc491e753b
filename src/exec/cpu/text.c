/* CPU string ops: StringNormalizer, TfIdfVectorizer, StringConcat, StringSplit, RegexFullMatch. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "src/exec/exec.h"
#include "src/exec/ops/index.h"
#include "src/exec/ops/ov-math.h"
#include "src/exec/ops/regex.h"

#define MAXR XT_MAX_RANK
#define PI 3.14159265358979323846

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
	const struct xtensor *x = xk_in(k, 0);
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
	const struct xtensor *x = xk_in(k, 0);
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

/* ---- StringConcat, StringSplit, RegexFullMatch (opset 20) ------------------------------------------------------- */

static int need_strings(struct exec_kernel_ctx *k, const struct xtensor *x, size_t i)
{
	if (!x)
		return xk_fail(k, "input %zu is missing", i);
	if (x->dtype != OV_DT_STRING)
		return xk_fail(k, "input %zu is %s; this op takes strings", i, dtype_short_name(x->dtype));
	return 0;
}

static const char *str_at(const struct xtensor *x, int64_t i)
{
	const char *s = ((char *const *)x->data)[i];
	return s ? s : "";
}

/* The two inputs joined element by element, with numpy's broadcasting. */
static int k_string_concat(struct exec_kernel_ctx *k)
{
	const struct xtensor *a = xk_in(k, 0), *b = xk_in(k, 1);
	int ranks[2], rank;
	const int64_t *d[2];
	int64_t dims[MAXR];
	struct ov_bcast bc;

	if (need_strings(k, a, 0) || need_strings(k, b, 1))
		return -1;
	ranks[0] = a->rank, ranks[1] = b->rank, d[0] = a->dims, d[1] = b->dims;
	if (ov_bcast_shape(2, ranks, d, &rank, dims) >= 0)
		return xk_fail(k, "the shapes of the two inputs do not broadcast");
	if (xk_output(k, 0, OV_DT_STRING, rank, dims))
		return -1;
	struct xtensor *y = k->out[0];
	ov_bcast_plan(&bc, 2, ranks, d, rank, dims);
	for (int64_t i = 0; i < y->numel; i++) {
		const char *x0 = str_at(a, ov_bcast_offset(&bc, 0, i)), *x1 = str_at(b, ov_bcast_offset(&bc, 1, i));
		size_t l0 = strlen(x0), l1 = strlen(x1);
		char *c = malloc(l0 + l1 + 1);
		if (!c)
			return xk_fail(k, "out of memory");
		memcpy(c, x0, l0);
		memcpy(c + l0, x1, l1 + 1);
		((char **)y->data)[i] = c;
	}
	return 0;
}

/* The pieces of s as Python's str.split(delim, maxsplit) gives them (delim NULL: runs of whitespace, none empty);
 * starts and lengths into st/ln when not NULL; returns the count. */
static int64_t split_one(const char *s, const char *delim, int64_t maxsplit, int64_t *st, int64_t *ln)
{
	int64_t n = 0, len = (int64_t)strlen(s);

	if (!delim) {
		int64_t i = 0;
		while (i < len) {
			while (i < len && strchr(" \t\n\r\f\v", s[i]))
				i++;
			if (i == len)
				break;
			int64_t j = i;
			if (maxsplit >= 0 && n == maxsplit) { /* the rest, its trailing whitespace trimmed */
				j = len;
				while (j > i && strchr(" \t\n\r\f\v", s[j - 1]))
					j--;
			} else {
				while (j < len && !strchr(" \t\n\r\f\v", s[j]))
					j++;
			}
			if (st)
				st[n] = i, ln[n] = j - i;
			n++;
			i = j;
		}
		return n;
	}
	int64_t dl = (int64_t)strlen(delim), i = 0;
	for (;;) {
		const char *hit = maxsplit >= 0 && n == maxsplit ? NULL : strstr(s + i, delim);
		int64_t j = hit ? hit - s : len;
		if (st)
			st[n] = i, ln[n] = j - i;
		n++;
		if (!hit)
			break;
		i = j + dl;
	}
	return n;
}

static int k_string_split(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	const Onnx__AttributeProto *da = node_attr(k, "delimiter");
	char *delim = NULL;
	int64_t maxsplit = xk_attr_int(k, "maxsplit", -1), most = 0, dims[MAXR + 1];
	int rc = -1;

	if (need_strings(k, x, 0))
		return -1;
	if (x->rank >= MAXR)
		return xk_fail(k, "rank %d leaves no room for the pieces' axis", x->rank);
	if (da && da->has_s && da->s.len) {
		if (!(delim = malloc(da->s.len + 1)))
			return xk_fail(k, "out of memory");
		memcpy(delim, da->s.data, da->s.len);
		delim[da->s.len] = '\0';
	}
	for (int64_t i = 0; i < x->numel; i++) {
		int64_t c = split_one(str_at(x, i), delim, maxsplit, NULL, NULL);
		most = c > most ? c : most;
	}
	memcpy(dims, x->dims, (size_t)x->rank * sizeof dims[0]);
	dims[x->rank] = most;
	if (xk_output(k, 0, OV_DT_STRING, x->rank + 1, dims) || xk_output(k, 1, OV_DT_INT64, x->rank, x->dims))
		goto out;
	int64_t *st = malloc((size_t)(most ? most : 1) * 2 * sizeof *st);
	if (!st) {
		xk_fail(k, "out of memory");
		goto out;
	}
	for (int64_t i = 0; i < x->numel; i++) {
		const char *s = str_at(x, i);
		int64_t c = split_one(s, delim, maxsplit, st, st + most);
		((int64_t *)k->out[1]->data)[i] = c;
		for (int64_t j = 0; j < most; j++) {
			int64_t l = j < c ? st[most + j] : 0;
			char *p = malloc((size_t)l + 1);
			if (!p) {
				free(st);
				xk_fail(k, "out of memory");
				goto out;
			}
			if (l)
				memcpy(p, s + st[j], (size_t)l);
			p[l] = '\0';
			((char **)k->out[0]->data)[i * most + j] = p;
		}
	}
	free(st);
	rc = 0;
out:
	free(delim);
	return rc;
}

static int k_regex_full_match(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	const Onnx__AttributeProto *pa = node_attr(k, "pattern");
	char why[200];
	struct ov_regex *re;

	if (need_strings(k, x, 0))
		return -1;
	if (!pa || !pa->has_s)
		return xk_fail(k, "the attribute 'pattern' is missing");
	if (!(re = ov_regex_compile((const char *)pa->s.data, pa->s.len, why, sizeof why)))
		return xk_fail(k, "pattern: %s", why);
	if (xk_output(k, 0, OV_DT_BOOL, x->rank, x->dims)) {
		ov_regex_free(re);
		return -1;
	}
	for (int64_t i = 0; i < x->numel; i++) {
		const char *s = str_at(x, i);
		int m = ov_regex_full_match(re, s, strlen(s));
		if (m < 0) {
			ov_regex_free(re);
			return xk_fail(k, "out of memory");
		}
		((uint8_t *)k->out[0]->data)[i] = (uint8_t)m;
	}
	ov_regex_free(re);
	return 0;
}

const struct exec_kernel cpu_text_kernels[] = {
	{.op = "StringNormalizer", .since = 10, .fn = k_string_normalizer},
	{.op = "TfIdfVectorizer", .since = 9, .fn = k_tfidf},
	{.op = "StringConcat", .since = 20, .fn = k_string_concat},
	{.op = "StringSplit", .since = 20, .fn = k_string_split},
	{.op = "RegexFullMatch", .since = 20, .fn = k_regex_full_match},
};
const size_t cpu_text_count = sizeof cpu_text_kernels / sizeof cpu_text_kernels[0];
