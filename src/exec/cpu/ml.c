/* CPU kernels of the classical machine-learning domain (ai.onnx.ml): Binarizer, ArrayFeatureExtractor,
 * LabelEncoder, TreeEnsemble. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/exec.h"

static const Onnx__AttributeProto *attr(const struct exec_kernel_ctx *k, const char *name)
{
	const Onnx__NodeProto *n = k->g->nodes[k->node].proto;

	for (size_t a = 0; a < n->n_attribute; a++)
		if (n->attribute[a]->name && !strcmp(n->attribute[a]->name, name))
			return n->attribute[a];
	return NULL;
}

static int is_numeric(int32_t dt)
{
	return dt != OV_DT_STRING && xt_elem_size(dt) && dt != OV_DT_COMPLEX64 && dt != OV_DT_COMPLEX128;
}

/* ---- Binarizer: 1 above the threshold, else 0, in x's type ---- */

static int k_binarizer(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	double th = xk_attr_float(k, "threshold", 0.0f);

	if (!x || !is_numeric(x->dtype))
		return xk_fail(k, "Binarizer takes a numeric tensor");
	if (xk_output(k, 0, x->dtype, x->rank, x->dims))
		return -1;
	for (int64_t i = 0; i < x->numel; i++) {
		double v = xt_get(x, i);
		xt_set(k->out[0], i, v != v ? v : v > th ? 1.0 : 0.0);
	}
	return 0;
}

/* ---- ArrayFeatureExtractor: x's last axis picked at the indices ---- */

static int k_array_feature_extractor(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0), *ix = xk_in(k, 1);
	int64_t dims[XT_MAX_RANK];

	if (!x || !ix || ix->dtype != OV_DT_INT64)
		return xk_fail(k, "ArrayFeatureExtractor takes a tensor and int64 indices");
	if (x->rank < 1)
		return xk_fail(k, "x is a scalar; it has no last axis to pick from");
	size_t es = xt_elem_size(x->dtype);
	int64_t last = x->dims[x->rank - 1], rows = last ? x->numel / last : 0;
	const int64_t *iv = ix->data;
	for (int64_t j = 0; j < ix->numel; j++)
		if (iv[j] < 0 || iv[j] >= last)
			return xk_fail(k, "index %" PRId64 " (at %" PRId64 ") is outside the last axis of %" PRId64, iv[j], j,
				       last);
	memcpy(dims, x->dims, (size_t)x->rank * sizeof dims[0]);
	dims[x->rank - 1] = ix->numel;
	if (x->rank == 1) { /* a vector gives [1, n] */
		dims[0] = 1, dims[1] = ix->numel;
	}
	if (xk_output(k, 0, x->dtype, x->rank == 1 ? 2 : x->rank, dims))
		return -1;
	for (int64_t r = 0; r < rows; r++)
		for (int64_t j = 0; j < ix->numel; j++) {
			int64_t src = r * last + iv[j], dst = r * ix->numel + j;
			if (x->dtype == OV_DT_STRING) {
				const char *s = ((char *const *)x->data)[src];
				if (!(((char **)k->out[0]->data)[dst] = strdup(s ? s : "")))
					return xk_fail(k, "out of memory");
			} else {
				memcpy((char *)k->out[0]->data + dst * es, (const char *)x->data + src * es, es);
			}
		}
	return 0;
}

/* ---- LabelEncoder: each element looked up among the keys, the value at the same place given (or the default) ---- */

/* keys_* or values_*: the list as a tensor (strings, int64s, floats, or the _tensor form); 0, or -1 with the
 * context failed (absent: -2). */
static int label_list(struct exec_kernel_ctx *k, const char *stem, struct xtensor *out)
{
	char name[32];
	const Onnx__AttributeProto *a;
	int64_t n;

	snprintf(name, sizeof name, "%s_tensor", stem);
	if ((a = attr(k, name)) && a->t)
		return exec_tensor_from_proto(k->m, a->t, out, k->err) ? -1 : 0;
	snprintf(name, sizeof name, "%s_strings", stem);
	if ((a = attr(k, name)) && a->n_strings) {
		n = (int64_t)a->n_strings;
		if (xt_alloc(out, OV_DT_STRING, 1, &n, k->err))
			return -1;
		for (int64_t i = 0; i < n; i++) {
			char *c = malloc(a->strings[i].len + 1);
			if (!c)
				return xk_fail(k, "out of memory");
			if (a->strings[i].len)
				memcpy(c, a->strings[i].data, a->strings[i].len);
			c[a->strings[i].len] = '\0';
			((char **)out->data)[i] = c;
		}
		return 0;
	}
	snprintf(name, sizeof name, "%s_int64s", stem);
	if ((a = attr(k, name)) && a->n_ints) {
		n = (int64_t)a->n_ints;
		if (xt_alloc(out, OV_DT_INT64, 1, &n, k->err))
			return -1;
		memcpy(out->data, a->ints, (size_t)n * sizeof(int64_t));
		return 0;
	}
	snprintf(name, sizeof name, "%s_floats", stem);
	if ((a = attr(k, name)) && a->n_floats) {
		n = (int64_t)a->n_floats;
		if (xt_alloc(out, OV_DT_FLOAT, 1, &n, k->err))
			return -1;
		memcpy(out->data, a->floats, (size_t)n * sizeof(float));
		return 0;
	}
	return -2;
}

/* The default for values of type dt: default_tensor, or default_string/int64/float, or the op's own
 * ("_Unused", -1, -0.0). */
static int label_default(struct exec_kernel_ctx *k, int32_t dt, struct xtensor *out)
{
	const Onnx__AttributeProto *a = attr(k, "default_tensor");

	if (a && a->t) {
		if (exec_tensor_from_proto(k->m, a->t, out, k->err))
			return -1;
		if (out->numel != 1 || out->dtype != dt)
			return xk_fail(k, "default_tensor must hold one %s", dtype_short_name(dt));
		return 0;
	}
	if (xt_alloc(out, dt, 0, NULL, k->err))
		return -1;
	if (dt == OV_DT_STRING) {
		a = attr(k, "default_string");
		size_t l = a && a->has_s ? a->s.len : 7;
		char *c = malloc(l + 1);
		if (!c)
			return xk_fail(k, "out of memory");
		memcpy(c, a && a->has_s ? (const char *)a->s.data : "_Unused", l);
		c[l] = '\0';
		((char **)out->data)[0] = c;
	} else if (dt == OV_DT_FLOAT || dt == OV_DT_DOUBLE || dt == OV_DT_FLOAT16) {
		a = attr(k, "default_float");
		xt_set(out, 0, a && a->has_f ? a->f : -0.0);
	} else {
		a = attr(k, "default_int64");
		xt_set(out, 0, a && a->has_i ? (double)a->i : -1.0);
	}
	return 0;
}

static int key_equal(const struct xtensor *keys, int64_t j, const struct xtensor *x, int64_t i)
{
	if (x->dtype == OV_DT_STRING) {
		const char *a = ((char *const *)keys->data)[j], *b = ((char *const *)x->data)[i];
		return !strcmp(a ? a : "", b ? b : "");
	}
	if (x->dtype == OV_DT_FLOAT || x->dtype == OV_DT_DOUBLE || x->dtype == OV_DT_FLOAT16) {
		double a = xt_get(keys, j), b = xt_get(x, i);
		return a == b || (a != a && b != b); /* NaN finds a NaN key */
	}
	return xt_get_int(keys, j) == xt_get_int(x, i);
}

static int k_label_encoder(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	struct xtensor keys = {0}, vals = {0}, def = {0};
	int rc = -1, r;

	if (!x)
		return xk_fail(k, "input 0 is missing");
	if ((r = label_list(k, "keys", &keys)) || (r = label_list(k, "values", &vals))) {
		if (r == -2)
			xk_fail(k, "the keys_* or values_* attribute is missing");
		goto out;
	}
	if (keys.numel != vals.numel) {
		xk_fail(k, "%" PRId64 " keys but %" PRId64 " values", keys.numel, vals.numel);
		goto out;
	}
	if ((keys.dtype == OV_DT_STRING) != (x->dtype == OV_DT_STRING)) {
		xk_fail(k, "the keys are %s, the input %s", dtype_short_name(keys.dtype), dtype_short_name(x->dtype));
		goto out;
	}
	if (label_default(k, vals.dtype, &def) || xk_output(k, 0, vals.dtype, x->rank, x->dims))
		goto out;
	size_t es = xt_elem_size(vals.dtype);
	for (int64_t i = 0; i < x->numel; i++) {
		const struct xtensor *from = &def;
		int64_t at = 0;
		for (int64_t j = 0; j < keys.numel; j++)
			if (key_equal(&keys, j, x, i)) {
				from = &vals, at = j;
				break;
			}
		if (vals.dtype == OV_DT_STRING) {
			const char *s = ((char *const *)from->data)[at];
			if (!(((char **)k->out[0]->data)[i] = strdup(s ? s : ""))) {
				xk_fail(k, "out of memory");
				goto out;
			}
		} else {
			memcpy((char *)k->out[0]->data + (size_t)i * es, (const char *)from->data + (size_t)at * es, es);
		}
	}
	rc = 0;
out:
	xt_free(&keys);
	xt_free(&vals);
	xt_free(&def);
	return rc;
}

/* ---- TreeEnsemble (opset 5): trees of comparisons on x's features, leaves adding weights to targets ---- */

enum { TE_LEQ, TE_LT, TE_GTE, TE_GT, TE_EQ, TE_NEQ, TE_MEMBER };
enum { TE_AVERAGE, TE_SUM, TE_MIN, TE_MAX };

struct te {
	int64_t nnodes, nleaves;
	const int64_t *feat, *tnode, *fnode, *tleaf, *fleaf, *ltarget, *missing;
	struct xtensor splits, modes, weights, members;
	int64_t *mstart; /* per node: its first value in members (MEMBER nodes) */
};

static const int64_t *ints_of(struct exec_kernel_ctx *k, const char *name, int64_t n, int need)
{
	const Onnx__AttributeProto *a = attr(k, name);

	if (!a || (int64_t)a->n_ints != n) {
		if (need || a)
			xk_fail(k, "the attribute %s must list %" PRId64 " integers", name, n);
		return NULL;
	}
	return a->ints;
}

/* MEMBER nodes take their sets from membership_values in the order a walk from the roots meets them (true
 * branch first), each set ended by a NaN. */
static int te_members(struct exec_kernel_ctx *k, struct te *t, int64_t node, int64_t *next, int depth)
{
	if (depth > 10000)
		return xk_fail(k, "a tree deeper than 10000 nodes (or a cycle)");
	if (node < 0 || node >= t->nnodes)
		return xk_fail(k, "node %" PRId64 " is out of range", node);
	if ((int)xt_get(&t->modes, node) == TE_MEMBER && t->mstart[node] < 0) {
		t->mstart[node] = *next;
		while (*next < t->members.numel && !isnan(xt_get(&t->members, *next)))
			(*next)++;
		if (*next >= t->members.numel)
			return xk_fail(k, "membership_values has too few sets for the MEMBER nodes");
		(*next)++;
	}
	if (!t->tleaf[node] && te_members(k, t, t->tnode[node], next, depth + 1))
		return -1;
	if (!t->fleaf[node] && te_members(k, t, t->fnode[node], next, depth + 1))
		return -1;
	return 0;
}

static int te_cond(const struct te *t, int64_t node, double v)
{
	double s = xt_get(&t->splits, node);

	if (v != v && t->missing && t->missing[node])
		return 1;
	switch ((int)xt_get(&t->modes, node)) {
	case TE_LEQ: return v <= s;
	case TE_LT: return v < s;
	case TE_GTE: return v >= s;
	case TE_GT: return v > s;
	case TE_EQ: return v == s;
	case TE_NEQ: return v != s;
	default:
		for (int64_t j = t->mstart[node]; j < t->members.numel; j++) {
			double m = xt_get(&t->members, j);
			if (m != m)
				break;
			if (m == v)
				return 1;
		}
		return 0;
	}
}

static int k_tree_ensemble(struct exec_kernel_ctx *k)
{
	const struct xtensor *x = xk_in(k, 0);
	const Onnx__AttributeProto *roots = attr(k, "tree_roots");
	struct te t;
	int64_t ntargets = xk_attr_int(k, "n_targets", 1), agg = xk_attr_int(k, "aggregate_function", TE_SUM);
	int rc = -1;

	memset(&t, 0, sizeof t);
	if (!x || x->rank != 2 || !is_numeric(x->dtype))
		return xk_fail(k, "TreeEnsemble takes a 2-D numeric x");
	if (xk_attr_int(k, "post_transform", 0) != 0)
		return xk_fail(k, "post_transform %" PRId64 " is not supported (NONE is)", xk_attr_int(k, "post_transform", 0));
	if (!roots || !roots->n_ints)
		return xk_fail(k, "tree_roots is missing");
	if (ntargets <= 0 || ntargets > (1 << 20) || agg < TE_AVERAGE || agg > TE_MAX)
		return xk_fail(k, "n_targets %" PRId64 " or aggregate_function %" PRId64 " is out of range", ntargets, agg);
	if (xk_attr_tensor(k, "nodes_splits", &t.splits) || xk_attr_tensor(k, "nodes_modes", &t.modes) ||
	    xk_attr_tensor(k, "leaf_weights", &t.weights)) {
		xk_fail(k, "nodes_splits, nodes_modes and leaf_weights are needed");
		goto out;
	}
	const Onnx__AttributeProto *mv = attr(k, "membership_values");
	if (mv && mv->t && exec_tensor_from_proto(k->m, mv->t, &t.members, k->err))
		goto out;
	t.nnodes = t.splits.numel, t.nleaves = t.weights.numel;
	if (t.modes.numel != t.nnodes || !(t.feat = ints_of(k, "nodes_featureids", t.nnodes, 1)) ||
	    !(t.tnode = ints_of(k, "nodes_truenodeids", t.nnodes, 1)) ||
	    !(t.fnode = ints_of(k, "nodes_falsenodeids", t.nnodes, 1)) ||
	    !(t.tleaf = ints_of(k, "nodes_trueleafs", t.nnodes, 1)) ||
	    !(t.fleaf = ints_of(k, "nodes_falseleafs", t.nnodes, 1)) ||
	    !(t.ltarget = ints_of(k, "leaf_targetids", t.nleaves, 1))) {
		if (t.modes.numel != t.nnodes)
			xk_fail(k, "nodes_modes and nodes_splits differ in length");
		goto out;
	}
	t.missing = ints_of(k, "nodes_missing_value_tracks_true", t.nnodes, 0);
	for (int64_t i = 0; i < t.nnodes; i++) {
		if (t.feat[i] < 0 || t.feat[i] >= x->dims[1] || (int)xt_get(&t.modes, i) < TE_LEQ ||
		    (int)xt_get(&t.modes, i) > TE_MEMBER ||
		    t.tnode[i] < 0 || t.tnode[i] >= (t.tleaf[i] ? t.nleaves : t.nnodes) ||
		    t.fnode[i] < 0 || t.fnode[i] >= (t.fleaf[i] ? t.nleaves : t.nnodes)) {
			xk_fail(k, "node %" PRId64 " names a feature, mode or branch out of range", i);
			goto out;
		}
	}
	for (int64_t j = 0; j < t.nleaves; j++)
		if (t.ltarget[j] < 0 || t.ltarget[j] >= ntargets) {
			xk_fail(k, "leaf %" PRId64 " targets %" PRId64 ", out of the %" PRId64 " targets", j, t.ltarget[j],
				ntargets);
			goto out;
		}
	if (!(t.mstart = malloc((size_t)(t.nnodes ? t.nnodes : 1) * sizeof *t.mstart))) {
		xk_fail(k, "out of memory");
		goto out;
	}
	for (int64_t i = 0; i < t.nnodes; i++)
		t.mstart[i] = -1;
	int64_t next = 0;
	for (size_t r = 0; r < roots->n_ints; r++) {
		int64_t root = roots->ints[r];
		if (root < 0 || root >= t.nnodes) {
			xk_fail(k, "tree root %" PRId64 " is out of range", root);
			goto out;
		}
		int leaf_root = t.tleaf[root] && t.fleaf[root] && t.tnode[root] == t.fnode[root];
		if (!leaf_root && te_members(k, &t, root, &next, 0))
			goto out;
	}
	int64_t dims[2] = {x->dims[0], ntargets};
	if (xk_output(k, 0, x->dtype, 2, dims))
		goto out;
	double *acc = malloc((size_t)ntargets * sizeof *acc);
	if (!acc) {
		xk_fail(k, "out of memory");
		goto out;
	}
	for (int64_t row = 0; row < x->dims[0]; row++) {
		for (int64_t c = 0; c < ntargets; c++)
			acc[c] = agg == TE_MIN ? INFINITY : agg == TE_MAX ? -INFINITY : 0;
		for (size_t r = 0; r < roots->n_ints; r++) {
			int64_t node = roots->ints[r], leaf;
			if (t.tleaf[node] && t.fleaf[node] && t.tnode[node] == t.fnode[node]) {
				leaf = t.tnode[node];
			} else {
				for (int steps = 0;; steps++) {
					if (steps > 10000) {
						free(acc);
						xk_fail(k, "a tree deeper than 10000 nodes (or a cycle)");
						goto out;
					}
					int c = te_cond(&t, node, xt_get(x, row * x->dims[1] + t.feat[node]));
					int is_leaf = (int)(c ? t.tleaf[node] : t.fleaf[node]);
					node = c ? t.tnode[node] : t.fnode[node];
					if (is_leaf)
						break;
				}
				leaf = node;
			}
			double w = xt_get(&t.weights, leaf);
			double *a = &acc[t.ltarget[leaf]];
			switch (agg) {
			case TE_SUM: *a += w; break;
			case TE_AVERAGE: *a += w / (double)roots->n_ints; break;
			case TE_MIN: *a = w < *a ? w : *a; break;
			default: *a = w > *a ? w : *a; break;
			}
		}
		for (int64_t c = 0; c < ntargets; c++)
			xt_set(k->out[0], row * ntargets + c, acc[c]);
	}
	free(acc);
	rc = 0;
out:
	xt_free(&t.splits);
	xt_free(&t.modes);
	xt_free(&t.weights);
	xt_free(&t.members);
	free(t.mstart);
	return rc;
}

/* the family of domain ai.onnx.ml (src/exec/cpu/registry.c) */
const struct exec_kernel cpu_ml_kernels[] = {
	{.op = "Binarizer", .since = 1, .fn = k_binarizer},
	{.op = "ArrayFeatureExtractor", .since = 1, .fn = k_array_feature_extractor},
	{.op = "LabelEncoder", .since = 2, .fn = k_label_encoder},
	{.op = "TreeEnsemble", .since = 5, .fn = k_tree_ensemble},
};
const size_t cpu_ml_count = sizeof cpu_ml_kernels / sizeof cpu_ml_kernels[0];
