/* Constants kept from one run of a graph index to the next (exec_consts, see exec.h). */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/base/dtype.h"
#include "src/model/describe.h"
#include "src/exec/exec.h"
#include "src/exec/runner.h"
/* ---- constants kept across runs ---- */


struct exec_consts *exec_consts_new(void)
{
	return calloc(1, sizeof(struct exec_consts));
}

static void consts_clear(struct exec_consts *c)
{
	replay_free(c); /* first: the graph reads the kept values' device copies */
	for (uint32_t i = 0; i < c->n; i++)
		xt_free(&c->t[i]);
	for (size_t i = 0; i < c->n_derived; i++)
		free(c->derived[i].block);
	free(c->derived);
	free(c->head);
	free(c->dims_dep);
	c->dims_dep = NULL;
	c->dims_stale = 0;
	c->head = NULL;
	c->derived = NULL;
	c->n_derived = c->cap_derived = 0;
	free(c->t);
	c->t = NULL;
	c->n = 0;
	c->serial = 0;
}

void exec_consts_free(struct exec_consts *c)
{
	if (!c)
		return;
	consts_clear(c);
	free(c);
}

void exec_consts_stats(const struct exec_consts *c, size_t *n, size_t *bytes, size_t *on_device, size_t *in_place)
{
	*n = *bytes = *on_device = *in_place = 0;
	for (uint32_t i = 0; c && i < c->n; i++)
		if (c->t[i].data) {
			++*n;
			*bytes += c->t[i].bytes;
			*on_device += c->t[i].dev != NULL;
			if (!c->t[i].owns && c->t[i].kind == XT_TENSOR)
				*in_place += c->t[i].bytes;
		}
	for (size_t i = 0; c && i < c->n_derived; i++)
		*bytes += c->derived[i].bytes;
}

const void *consts_derived(const struct exec_consts *c, uint32_t id, uint64_t tag)
{
	if (!c || !c->head || id >= c->n)
		return NULL;
	for (uint32_t i = c->head[id]; i; i = c->derived[i - 1].next)
		if (c->derived[i - 1].tag == tag)
			return c->derived[i - 1].block;
	return NULL;
}

int consts_derive(struct exec_consts *c, uint32_t id, uint64_t tag, void *block, size_t bytes)
{
	if (!c || id >= c->n || !c->t[id].data || consts_derived(c, id, tag) || c->n_derived >= UINT32_MAX - 1)
		return 0;
	if (!c->head && !(c->head = calloc(c->n, sizeof *c->head)))
		return 0;
	if (c->n_derived == c->cap_derived) {
		size_t cap = c->cap_derived ? 2 * c->cap_derived : 16;
		struct kept_derived *d = realloc(c->derived, cap * sizeof *d);
		if (!d)
			return 0;
		c->derived = d;
		c->cap_derived = cap;
	}
	c->derived[c->n_derived] = (struct kept_derived){.value = id, .tag = tag, .block = block, .bytes = bytes,
							 .next = c->head[id]};
	c->head[id] = (uint32_t)++c->n_derived;
	return 1;
}

/* The values kept because they depend only on shapes (dims_dep), and what kernels derived from them, dropped; with
 * them any recording, which may read their device copies.  consts_for calls it at a run's start when a run saw a
 * Shape or Size output differ from its kept one (dims_stale). */
static void consts_drop_dims(struct exec_consts *c)
{
	replay_free(c);
	for (uint32_t v = 0; v < c->n; v++) {
		if (!c->dims_dep[v])
			continue;
		xt_free(&c->t[v]);
		c->dims_dep[v] = 0;
		if (!c->head)
			continue;
		for (uint32_t i = c->head[v]; i; i = c->derived[i - 1].next) {
			free(c->derived[i - 1].block);
			c->derived[i - 1].block = NULL;
			c->derived[i - 1].bytes = 0;
		}
		c->head[v] = 0;
	}
	c->dims_stale = 0;
}

/* c ready to keep g's constants (emptied when it kept another index's): 1, or 0 when there is none to use (no c,
 * a graph without a serial, or no memory for the table: the run then converts its constants as without one). */
int consts_for(struct exec_consts *c, const struct graph *g)
{
	if (!c || !g->serial)
		return 0;
	if (c->serial == g->serial && c->n == g->n_values) {
		if (c->dims_stale)
			consts_drop_dims(c);
		return 1;
	}
	consts_clear(c);
	c->t = calloc(g->n_values + 1, sizeof *c->t);
	c->dims_dep = calloc(g->n_values + 1, 1);
	if (!c->t || !c->dims_dep) {
		consts_clear(c);
		return 0;
	}
	c->n = g->n_values;
	c->serial = g->serial;
	return 1;
}

/* The slot reads the kept tensor k: kernels get k itself (a device backend attaches its copy there, for the next
 * run), everything else a view of the host data that frees nothing. */
void slot_keep(struct slot *s, struct xtensor *k)
{
	s->t = *k;
	s->t.owns = 0;
	s->t.dev = NULL;
	s->t.devops = NULL;
	s->t.host_stale = 0;
	s->kept = k;
	s->constant = 1;
}
