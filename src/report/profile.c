/* run --profile: where a run's time went, by op and by node (src/report/report.h). */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/json.h"
#include "src/base/strbuf.h"
#include "src/exec/exec.h"
#include "src/graph/graph.h"
#include "src/report/report.h"

/* The nodes the text report lists one by one. */
#define PROFILE_TOP 10

struct op_total {
	const char *op;
	uint32_t nodes;
	double host_ms, device_ms;
};

static const char *op_of(const struct graph *g, uint32_t n)
{
	const char *op = g->nodes[n].proto->op_type;
	return op && *op ? op : "?";
}

/* The time a node or op counts for in the order: the device's where it is known, else the host's. */
static double cost(double host_ms, double device_ms)
{
	return device_ms >= 0 ? device_ms : host_ms;
}

static int by_total(const void *x, const void *y)
{
	const struct op_total *a = x, *b = y;
	double ca = cost(a->host_ms, a->device_ms), cb = cost(b->host_ms, b->device_ms);
	return (ca < cb) - (ca > cb);
}

static int by_node_cost(const void *x, const void *y)
{
	const struct exec_node_time *a = x, *b = y;
	double ca = cost(a->host_ms, a->device_ms), cb = cost(b->host_ms, b->device_ms);
	return (ca < cb) - (ca > cb);
}

/* Per op, in descending cost; *n the count.  NULL when out of memory. */
static struct op_total *totals(const struct graph *g, const struct exec_node_time *t, size_t n, size_t *count)
{
	struct op_total *o = calloc(n + 1, sizeof *o);
	size_t k = 0;

	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *op = op_of(g, t[i].node);
		size_t j = 0;
		while (j < k && strcmp(o[j].op, op))
			j++;
		if (j == k)
			o[k++] = (struct op_total){.op = op, .device_ms = t[i].device_ms >= 0 ? 0 : -1};
		o[j].nodes++;
		o[j].host_ms += t[i].host_ms;
		if (o[j].device_ms >= 0 && t[i].device_ms >= 0)
			o[j].device_ms += t[i].device_ms;
		else
			o[j].device_ms = -1;
	}
	qsort(o, k, sizeof *o, by_total);
	*count = k;
	return o;
}

static void put_ms(struct strbuf *b, double ms)
{
	if (ms >= 0)
		strbuf_printf(b, " %10.3f", ms);
	else
		strbuf_printf(b, " %10s", "-");
}

void profile_text(struct strbuf *b, const struct graph *g, const struct exec_node_time *t, size_t n, long run)
{
	double host = 0, dev = 0;
	int have_dev = n > 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		host += t[i].host_ms;
		dev += t[i].device_ms >= 0 ? t[i].device_ms : 0;
		have_dev &= t[i].device_ms >= 0;
	}
	strbuf_printf(b, "profile of run %ld: %zu node%s, %.3f ms on the host", run, n, n == 1 ? "" : "s", host);
	if (have_dev)
		strbuf_printf(b, ", %.3f ms on the device", dev);
	strbuf_puts(b, have_dev ? "\n" : " (no device times: the CPU backend runs nodes on the host)\n");
	struct op_total *o = totals(g, t, n, &k);
	struct exec_node_time *s = malloc((n + 1) * sizeof *s);
	if (!o || !s) {
		strbuf_puts(b, "profile: out of memory\n");
		free(o);
		free(s);
		return;
	}
	strbuf_printf(b, "  %-24s %6s %10s %10s\n", "op", "nodes", "host ms", "device ms");
	for (size_t i = 0; i < k; i++) {
		strbuf_puts(b, "  ");
		size_t len = strlen(o[i].op);
		strbuf_put_safe(b, o[i].op, len, 24);
		strbuf_printf(b, "%*s %6" PRIu32, len < 24 ? (int)(24 - len) : 0, "", o[i].nodes);
		put_ms(b, o[i].host_ms);
		put_ms(b, o[i].device_ms);
		strbuf_putc(b, '\n');
	}
	size_t nf = 0;
	for (size_t i = 0; i < n; i++)
		nf += t[i].fused != 0;
	if (nf)
		strbuf_printf(b, "  %zu node%s fused into a node before them, which did their work\n", nf,
			      nf == 1 ? " was" : "s were");
	memcpy(s, t, n * sizeof *s);
	qsort(s, n, sizeof *s, by_node_cost);
	strbuf_printf(b, "  %s:\n", n > PROFILE_TOP ? "the slowest nodes" : "the nodes, slowest first");
	for (size_t i = 0; i < n && i < PROFILE_TOP; i++) {
		const Onnx__NodeProto *p = g->nodes[s[i].node].proto;
		strbuf_printf(b, "  #%-6" PRIu32, s[i].node);
		put_ms(b, s[i].host_ms);
		put_ms(b, s[i].device_ms);
		strbuf_puts(b, "  ");
		strbuf_put_safe(b, op_of(g, s[i].node), strlen(op_of(g, s[i].node)), 40);
		if (p->name && *p->name) {
			strbuf_puts(b, " '");
			strbuf_put_safe(b, p->name, strlen(p->name), 60);
			strbuf_putc(b, '\'');
		}
		strbuf_putc(b, '\n');
	}
	free(o);
	free(s);
}

static void json_ms(struct json *j, const char *key, double ms)
{
	json_key(j, key);
	if (ms >= 0)
		json_double(j, ms);
	else
		json_null(j);
}

void profile_json(struct json *j, const struct graph *g, const struct exec_node_time *t, size_t n, long run)
{
	size_t k = 0;
	struct op_total *o = totals(g, t, n, &k);

	json_key(j, "profile");
	json_obj(j);
	json_kint(j, "run", run);
	json_key(j, "ops");
	json_arr(j);
	for (size_t i = 0; o && i < k; i++) {
		json_obj(j);
		json_kstr(j, "op", o[i].op);
		json_kint(j, "nodes", o[i].nodes);
		json_ms(j, "host_ms", o[i].host_ms);
		json_ms(j, "device_ms", o[i].device_ms);
		json_end_obj(j);
	}
	json_end_arr(j);
	json_key(j, "nodes");
	json_arr(j);
	for (size_t i = 0; i < n; i++) {
		const Onnx__NodeProto *p = g->nodes[t[i].node].proto;
		json_obj(j);
		json_kint(j, "node", t[i].node);
		json_kstr(j, "name", p->name ? p->name : "");
		json_kstr(j, "op", op_of(g, t[i].node));
		json_ms(j, "host_ms", t[i].host_ms);
		json_ms(j, "device_ms", t[i].device_ms);
		json_key(j, "fused");
		json_bool(j, t[i].fused != 0);
		json_end_obj(j);
	}
	json_end_arr(j);
	json_end_obj(j);
	free(o);
}
