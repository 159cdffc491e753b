/* Where two runs part ways (see diverge.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "src/exec/diverge.h"
#include "src/base/strmap.h"

static int as_double(const struct xtensor *t, struct xtensor *out, struct ov_error *err)
{
	if (xt_alloc(out, OV_DT_DOUBLE, t->rank, t->dims, err))
		return -1;
	double *d = (double *)out->data;
	for (int64_t i = 0; i < t->numel; i++)
		d[i] = xt_get(t, i);
	return 0;
}

int diverge_compare_any(const struct xtensor *a, const struct xtensor *b, const struct compare_rule *r,
			struct compare_stats *c, int *converted, struct ov_error *err)
{
	*converted = 0;
	if (a->dtype == b->dtype || a->dtype == OV_DT_STRING || b->dtype == OV_DT_STRING || a->kind != XT_TENSOR ||
	    b->kind != XT_TENSOR) {
		exec_compare_rule(a, b, r, c);
		return 0;
	}
	/* float16 against float32 (a model converted to half precision), int32 against int64 (an edited Cast):
	 * the numbers can still be compared */
	struct xtensor da = {0}, db = {0};
	if (as_double(a, &da, err) || as_double(b, &db, err)) {
		xt_free(&da);
		return -1;
	}
	exec_compare_rule(&da, &db, r, c);
	xt_free(&da);
	xt_free(&db);
	*converted = 1;
	return 0;
}

struct order_key {
	int64_t key;   /* topological position of the producer (-1: none), then output slot */
	size_t i;      /* index in ra->values */
};

static int by_key(const void *x, const void *y)
{
	const struct order_key *a = (const struct order_key *)x, *b = (const struct order_key *)y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

int diverge_compute(const struct graph *ga, const struct exec_result *ra, const struct exec_result *rb,
		    const struct compare_rule *r, struct divergence *d, struct ov_error *err)
{
	struct strmap in_b = {0}, in_a = {0};
	struct order_key *keys = NULL;
	int rc = -1;

	memset(d, 0, sizeof *d);
	d->first = -1;
	keys = calloc(ra->n_values + 1, sizeof *keys);
	d->v = calloc(ra->n_values + 1, sizeof *d->v);
	d->only_b = calloc(rb->n_values + 1, sizeof *d->only_b);
	if (!keys || !d->v || !d->only_b || strmap_reserve(&in_b, rb->n_values) || strmap_reserve(&in_a, ra->n_values))
		goto nomem;
	for (size_t i = 0; i < rb->n_values; i++)
		if (rb->values[i].present && strmap_put(&in_b, rb->values[i].name, (void *)&rb->values[i]))
			goto nomem;
	size_t n = 0;
	for (size_t i = 0; i < ra->n_values; i++) {
		if (!ra->values[i].present)
			continue;
		if (strmap_put(&in_a, ra->values[i].name, (void *)&ra->values[i]))
			goto nomem;
		int32_t id = graph_value_id(ga, ra->values[i].name);
		int32_t p = id >= 0 ? ga->values[id].producer : -1;
		int64_t pos = p >= 0 ? (int64_t)ga->nodes[p].topo : -1;
		keys[n++] = (struct order_key){.key = (pos + 1) * 65536 + (id >= 0 ? ga->values[id].producer_slot : 0),
					       .i = i};
	}
	qsort(keys, n, sizeof *keys, by_key);
	for (size_t k = 0; k < n; k++) {
		const struct exec_value *va = &ra->values[keys[k].i];
		const struct exec_value *vb = (const struct exec_value *)strmap_get(&in_b, va->name);
		struct diverge_entry *e = &d->v[d->n++];
		int32_t id = graph_value_id(ga, va->name);
		e->name = va->name;
		e->node = id >= 0 ? ga->values[id].producer : -1;
		e->a = &va->t;
		if (!vb) {
			e->status = DIV_ONLY_A;
			d->n_only_a++;
			continue;
		}
		e->b = &vb->t;
		if (diverge_compare_any(e->a, e->b, r, &e->c, &e->converted, err))
			goto out;
		d->n_compared++;
		e->status = e->c.pass ? DIV_MATCH : DIV_DIFFER;
		if (!e->c.pass) {
			d->n_differ++;
			if (d->first < 0)
				d->first = (long)(d->n - 1);
		}
	}
	for (size_t i = 0; i < rb->n_values; i++)
		if (rb->values[i].present && !strmap_get(&in_a, rb->values[i].name))
			d->only_b[d->n_only_b++] = rb->values[i].name;
	rc = 0;
	goto out;
nomem:
	ov_fail(err, OV_NOMEM, "out of memory comparing the runs");
out:
	strmap_free(&in_a);
	strmap_free(&in_b);
	free(keys);
	if (rc)
		diverge_free(d);
	return rc;
}

void diverge_free(struct divergence *d)
{
	free(d->v);
	free(d->only_b);
	memset(d, 0, sizeof *d);
	d->first = -1;
}
