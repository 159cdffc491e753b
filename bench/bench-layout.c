/* Benchmark (not a test) of layout_compute: residual chains of 5,000 / 51,000 / 200,000 boxes and a wide random
 * DAG, each timed in a child process that reports its peak memory.  `bench-layout draw KIND N` prints the layout
 * of a small graph as ASCII art instead, to look at.  Built and run by bench/run-layout.sh. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "src/base/error.h"
#include "src/present/layout.h"

struct graph_in {
	uint32_t n, ne, cap, cap_n;
	uint16_t *w, *h;
	uint32_t *src, *dst;
};

static uint64_t rng = 88172645463325252ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static uint32_t add_box(struct graph_in *g, uint16_t w, uint16_t h)
{
	if (g->n == g->cap_n) {
		g->cap_n = g->cap_n ? 2 * g->cap_n : 1024;
		g->w = realloc(g->w, g->cap_n * sizeof *g->w);
		g->h = realloc(g->h, g->cap_n * sizeof *g->h);
		if (!g->w || !g->h)
			exit(2);
	}
	g->w[g->n] = w;
	g->h[g->n] = h;
	return g->n++;
}

static void add_edge(struct graph_in *g, uint32_t s, uint32_t d)
{
	if (g->ne == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 1024;
		g->src = realloc(g->src, g->cap * sizeof *g->src);
		g->dst = realloc(g->dst, g->cap * sizeof *g->dst);
		if (!g->src || !g->dst)
			exit(2);
	}
	g->src[g->ne] = s;
	g->dst[g->ne++] = d;
}

/* x -> MatMul -> Relu -> Add(x, relu), repeated: n boxes in all. */
static void make_residual(struct graph_in *g, uint32_t n)
{
	uint32_t x = add_box(g, 7, 3);

	while (g->n + 3 <= n) {
		uint32_t m = add_box(g, 10, 3), r = add_box(g, 8, 3), a = add_box(g, 7, 3);
		add_edge(g, x, m);
		add_edge(g, m, r);
		add_edge(g, x, a);
		add_edge(g, r, a);
		x = a;
	}
}

/* Each box takes 1-3 inputs from the previous `window` boxes: wide ranks and many crossings. */
static void make_random(struct graph_in *g, uint32_t n, uint32_t window)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = add_box(g, (uint16_t)(5 + rnd(12)), (uint16_t)(1 + rnd(4)));
		uint32_t k = i ? 1 + rnd(3) : 0;
		for (uint32_t j = 0; j < k; j++)
			add_edge(g, i - 1 - rnd(i < window ? i : window), v);
	}
}

static void graph_free(struct graph_in *g)
{
	free(g->w);
	free(g->h);
	free(g->src);
	free(g->dst);
}

static void make(struct graph_in *g, const char *kind, uint32_t n)
{
	memset(g, 0, sizeof *g);
	if (!strcmp(kind, "residual")) {
		make_residual(g, n);
	} else if (!strcmp(kind, "random")) {
		make_random(g, n, 400);
	} else if (!strcmp(kind, "transformer")) {
		uint32_t x = add_box(g, 7, 3), mask = add_box(g, 8, 3);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t ln = add_box(g, 11, 3), q = add_box(g, 10, 3), k = add_box(g, 10, 3);
			uint32_t v = add_box(g, 10, 3), sc = add_box(g, 10, 3), am = add_box(g, 7, 3);
			uint32_t sm = add_box(g, 9, 3), o = add_box(g, 10, 3), p = add_box(g, 10, 3);
			uint32_t x2 = add_box(g, 7, 3), ln2 = add_box(g, 11, 3), h = add_box(g, 10, 5);
			uint32_t ge = add_box(g, 7, 3), m = add_box(g, 10, 5), x3 = add_box(g, 7, 3);
			add_edge(g, x, ln);
			add_edge(g, ln, q);
			add_edge(g, ln, k);
			add_edge(g, ln, v);
			add_edge(g, q, sc);
			add_edge(g, k, sc);
			add_edge(g, sc, am);
			add_edge(g, mask, am);
			add_edge(g, am, sm);
			add_edge(g, sm, o);
			add_edge(g, v, o);
			add_edge(g, o, p);
			add_edge(g, x, x2);
			add_edge(g, p, x2);
			add_edge(g, x2, ln2);
			add_edge(g, ln2, h);
			add_edge(g, h, ge);
			add_edge(g, ge, m);
			add_edge(g, x2, x3);
			add_edge(g, m, x3);
			x = x3;
		}
	} else if (!strcmp(kind, "diamond")) {
		for (int i = 0; i < 4; i++)
			add_box(g, 9, 3);
		add_edge(g, 0, 1);
		add_edge(g, 0, 2);
		add_edge(g, 1, 3);
		add_edge(g, 2, 3);
	} else if (!strcmp(kind, "cycle")) {
		for (uint32_t i = 0; i < n; i++)
			add_box(g, 9, 3);
		for (uint32_t i = 0; i + 1 < n; i++)
			add_edge(g, i, i + 1);
		add_edge(g, n - 1, 0);
		add_edge(g, n / 2, n / 2);
	} else if (!strcmp(kind, "fanout")) {
		uint32_t s = add_box(g, 9, 3), prev = s;
		for (uint32_t i = 1; i < n; i++) {
			uint32_t v = add_box(g, 9, 3);
			add_edge(g, prev, v);
			if (i % 3 == 0)
				add_edge(g, s, v);
			prev = v;
		}
	} else {
		fprintf(stderr, "unknown graph kind '%s'\n", kind);
		exit(2);
	}
}

static void draw(const struct layout *l, const struct graph_in *g)
{
	size_t W = (size_t)l->width, H = (size_t)l->height;
	char *c = malloc(W * H);

	if (!c)
		exit(2);
	memset(c, ' ', W * H);
	for (uint32_t e = 0; e < l->n_edges; e++) {
		const struct layout_edge_route *r = &l->routes[e];
		for (uint32_t i = 0; i + 1 < r->n_points; i++) {
			struct layout_point a = r->points[i], b = r->points[i + 1];
			int dx = (b.x > a.x) - (b.x < a.x), dy = (b.y > a.y) - (b.y < a.y);
			for (struct layout_point p = a;; p.x += dx, p.y += dy) {
				char *q = &c[(size_t)p.y * W + (size_t)p.x], ch = dx ? '-' : '|';
				*q = *q == ' ' || *q == ch ? ch : '+';
				if (p.x == b.x && p.y == b.y)
					break;
			}
		}
	}
	for (uint32_t v = 0; v < l->n_boxes; v++) {
		int32_t x = l->x[v], y = l->y[v], w = g->w[v], h = g->h[v];
		char label[16];
		for (int32_t i = 0; i < w; i++)
			for (int32_t j = 0; j < h; j++) {
				int side = i == 0 || i == w - 1;
				char ch = (j == 0 || j == h - 1) ? (side ? '+' : '=') : (side ? '#' : ' ');
				c[(size_t)(y + j) * W + (size_t)(x + i)] = ch;
			}
		snprintf(label, sizeof label, "%u", v);
		for (int32_t i = 0; label[i] && i < w - 2; i++)
			c[(size_t)(y + (h > 1 ? h / 2 : 0)) * W + (size_t)(x + 1 + i)] = label[i];
	}
	for (uint32_t e = 0; e < l->n_edges; e++) {
		const struct layout_edge_route *r = &l->routes[e];
		struct layout_point a = r->points[0], b = r->points[r->n_points - 1];
		c[(size_t)a.y * W + (size_t)a.x] = '*';
		c[(size_t)b.y * W + (size_t)b.x] = 'v';
	}
	for (size_t y = 0; y < H; y++) {
		size_t k = W;
		while (k && c[y * W + k - 1] == ' ')
			k--;
		printf("%.*s\n", (int)k, c + y * W);
	}
	free(c);
}

static double now_ms(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* In a child: build the graph, lay it out `runs` times, print the best wall-clock and CPU times (the CPU time is
 * steadier on a busy machine) and the memory it took (growth of the peak resident set during the layouts). */
static void bench_one(const char *kind, uint32_t n, int runs)
{
	struct graph_in g;
	struct layout_input in;
	struct rusage ru;
	double best = 1e30, best_cpu = 1e30;
	long before;
	struct layout *l = NULL;
	struct ov_error err = {0};

	make(&g, kind, n);
	in = (struct layout_input){g.n, g.w, g.h, g.ne, g.src, g.dst};
	getrusage(RUSAGE_SELF, &ru);
	before = ru.ru_maxrss;
	for (int i = 0; i < runs; i++) {
		double t0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID), t, c;
		if (layout_compute(&l, &in, NULL, &err)) {
			fprintf(stderr, "layout: %s\n", err.msg);
			exit(1);
		}
		t = now_ms(CLOCK_MONOTONIC) - t0;
		c = now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (t < best)
			best = t;
		if (c < best_cpu)
			best_cpu = c;
		if (i + 1 < runs)
			layout_free(l);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("%-11s %6u boxes %6u edges %6u ranks %7.1f ms (cpu %7.1f ms)  +%5.1f MiB (peak rss %5.1f MiB)"
	       "  %dx%d cells\n",
	       kind, g.n, g.ne, l->n_ranks, best, best_cpu, (ru.ru_maxrss - before) / 1024.0, ru.ru_maxrss / 1024.0,
	       l->width, l->height);
	layout_free(l);
	graph_free(&g);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *kind;
		uint32_t n;
		int runs;
	} cases[] = {
		{"residual", 5000, 9}, {"residual", 51000, 5}, {"residual", 200000, 3},
		{"random", 5000, 5},   {"random", 51000, 3},
	};

	if (argc == 4 && !strcmp(argv[1], "draw")) {
		struct graph_in g;
		struct layout *l;
		struct ov_error err = {0};
		make(&g, argv[2], (uint32_t)atoi(argv[3]));
		if (layout_compute(&l, &(struct layout_input){g.n, g.w, g.h, g.ne, g.src, g.dst}, NULL, &err)) {
			fprintf(stderr, "layout: %s\n", err.msg);
			return 1;
		}
		draw(l, &g);
		layout_free(l);
		graph_free(&g);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "time")) {
		bench_one(argv[2], (uint32_t)atoi(argv[3]), 3);
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: bench-layout [draw|time KIND N]\n"
				"  (KIND: residual random transformer diamond cycle fanout)\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		pid_t pid;
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			bench_one(cases[i].kind, cases[i].n, cases[i].runs);
			fflush(stdout);
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, NULL, 0) < 0)
			return 1;
	}
	return 0;
}
