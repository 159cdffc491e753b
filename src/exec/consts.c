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
	for (uint32_t i = 0; i < c->n; i++)
		xt_free(&c->t[i]);
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

void exec_consts_stats(const struct exec_consts *c, size_t *n, size_t *bytes, size_t *on_device)
{
	*n = *bytes = *on_device = 0;
	for (uint32_t i = 0; c && i < c->n; i++)
		if (c->t[i].data) {
			++*n;
			*bytes += c->t[i].bytes;
			*on_device += c->t[i].dev != NULL;
		}
}

/* c ready to keep g's constants (emptied when it kept another index's): 1, or 0 when there is none to use (no c,
 * a graph without a serial, or no memory for the table: the run then converts its constants as without one). */
int consts_for(struct exec_consts *c, const struct graph *g)
{
	if (!c || !g->serial)
		return 0;
	if (c->serial == g->serial && c->n == g->n_values)
		return 1;
	consts_clear(c);
	c->t = calloc(g->n_values + 1, sizeof *c->t);
	if (!c->t)
		return 0;
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
}
