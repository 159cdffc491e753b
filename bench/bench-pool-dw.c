/* Micro-benchmark of the CPU's depthwise convolution and pooling kernels (not a test, not run by make check): each
 * node of MobileNetV2's and ResNet-18's that runs through src/exec/cpu/depthwise.c or cpu/pool.c, on its own shape,
 * run through the kernel table as the runner calls it (random input, Relu6 fused into the depthwise Conv as the
 * runner offers it), timed warm: the median and the fastest of the calls, and the whole model's share (the time
 * times the number of such nodes), and each as a line "case|NAME|MEDIAN|BEST|NODES" for the script.  Built and run
 * by bench/run-pool-dw.sh with the build's own flags.
 * Usage: bench-pool-dw [SECONDS_PER_CASE] [FILTER]   (FILTER: a substring of the case names) */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/base/dtype.h"
#include "src/exec/exec.h"
#include "tests/unit/knode.h"

struct bcase {
	const char *name, *op;
	int count;                 /* such nodes in the model */
	int64_t c, h, w, k, s, p;  /* channels, input plane, square window, stride, pads on every side */
	int act;                   /* Relu6 fused (Clip 0..6) */
};

static const struct bcase cases[] = {
	{"mnv2 dw 32x112x112 s1", "Conv", 1, 32, 112, 112, 3, 1, 1, 1},
	{"mnv2 dw 96x112x112 s2", "Conv", 1, 96, 112, 112, 3, 2, 1, 1},
	{"mnv2 dw 144x56x56 s1", "Conv", 1, 144, 56, 56, 3, 1, 1, 1},
	{"mnv2 dw 144x56x56 s2", "Conv", 1, 144, 56, 56, 3, 2, 1, 1},
	{"mnv2 dw 192x28x28 s1", "Conv", 2, 192, 28, 28, 3, 1, 1, 1},
	{"mnv2 dw 192x28x28 s2", "Conv", 1, 192, 28, 28, 3, 2, 1, 1},
	{"mnv2 dw 384x14x14 s1", "Conv", 4, 384, 14, 14, 3, 1, 1, 1},
	{"mnv2 dw 576x14x14 s1", "Conv", 2, 576, 14, 14, 3, 1, 1, 1},
	{"mnv2 dw 576x14x14 s2", "Conv", 1, 576, 14, 14, 3, 2, 1, 1},
	{"mnv2 dw 960x7x7 s1", "Conv", 3, 960, 7, 7, 3, 1, 1, 1},
	{"mnv2 GlobalAveragePool 1280x7x7", "GlobalAveragePool", 1, 1280, 7, 7, 0, 0, 0, 0},
	{"rn18 MaxPool 64x112x112 k3 s2 p1", "MaxPool", 1, 64, 112, 112, 3, 2, 1, 0},
	{"rn18 GlobalAveragePool 512x7x7", "GlobalAveragePool", 1, 512, 7, 7, 0, 0, 0, 0},
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void fill(struct xtensor *t, int32_t dt, int rank, const int64_t *dims, unsigned *seed)
{
	struct ov_error e;
	if (xt_alloc(t, dt, rank, dims, &e)) {
		fprintf(stderr, "bench-pool-dw: %s\n", e.msg);
		exit(1);
	}
	float *p = t->data;
	for (int64_t i = 0; i < t->numel; i++) {
		*seed = *seed * 1103515245u + 12345u;
		p[i] = (float)((*seed >> 8) & 0xffff) / 32768.0f - 1.0f;
	}
}

/* Median and fastest time of one call, in ms, over about secs seconds. */
static int bench(const struct bcase *b, double secs, double *med, double *best)
{
	struct tnode t;
	struct xtensor x, w, bias, y;
	unsigned seed = 1;
	int64_t xd[4] = {1, b->c, b->h, b->w}, wd[4] = {b->c, 1, b->k, b->k}, bd[1] = {b->c};
	int64_t ks[2] = {b->k, b->k}, st[2] = {b->s, b->s}, pads[4] = {b->p, b->p, b->p, b->p};
	struct exec_act relu6 = {EXEC_ACT_CLIP, 0.0f, 6.0f};
	const struct xtensor *in[3] = {&x, &w, &bias};
	size_t n_in = 1;

	fill(&x, OV_DT_FLOAT, 4, xd, &seed);
	memset(&w, 0, sizeof w);
	memset(&bias, 0, sizeof bias);
	node(&t, b->op);
	if (!strcmp(b->op, "Conv")) {
		fill(&w, OV_DT_FLOAT, 4, wd, &seed);
		fill(&bias, OV_DT_FLOAT, 1, bd, &seed);
		set_int(&t, "group", b->c);
		set_ints(&t, "kernel_shape", ks, 2);
		n_in = 3;
	} else if (b->k) {
		set_ints(&t, "kernel_shape", ks, 2);
	}
	if (b->k) {
		set_ints(&t, "strides", st, 2);
		set_ints(&t, "pads", pads, 4);
	}
	double *tv = NULL;
	size_t n = 0, cap = 0;
	double t_end = now() + secs;
	for (int i = 0; i < 3 || now() < t_end; i++) {
		double t0 = now();
		int done = 0;
		if (run_act(&t, 13, in, n_in, &y, 1, b->act ? &relu6 : NULL, &done)) {
			fprintf(stderr, "bench-pool-dw: %s: %s\n", b->name, t.err.msg);
			return -1;
		}
		double dt = now() - t0;
		xt_free(&y);
		if (i < 3)
			continue; /* warm-up */
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			tv = realloc(tv, cap * sizeof *tv);
			if (!tv)
				return -1;
		}
		tv[n++] = dt * 1e3;
	}
	qsort(tv, n, sizeof *tv, cmp_d);
	*med = tv[n / 2];
	*best = tv[0];
	free(tv);
	xt_free(&x);
	xt_free(&w);
	xt_free(&bias);
	return 0;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.5;
	const char *filter = argc > 2 ? argv[2] : NULL;
	double tot_dw = 0, tot_all = 0;

	printf("%-36s %10s %10s %6s %10s %9s\n", "kernel", "median ms", "best ms", "nodes", "model ms", "GB/s");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct bcase *b = &cases[i];
		double med, best;
		if (filter && !strstr(b->name, filter))
			continue;
		if (bench(b, secs, &med, &best))
			return 1;
		/* the bytes a kernel must move at least: its input and output once */
		int64_t oh = b->k ? (b->h + 2 * b->p - b->k) / b->s + 1 : 1, ow = b->k ? (b->w + 2 * b->p - b->k) / b->s + 1 : 1;
		double bytes = 4.0 * (double)b->c * (double)(b->h * b->w + oh * ow);
		printf("%-36s %10.4f %10.4f %6d %10.4f %9.1f\n", b->name, med, best, b->count, med * b->count,
		       bytes / (med * 1e-3) / 1e9);
		/* for bench/run-pool-dw.sh --against */
		printf("case|%s|%.6f|%.6f|%d\n", b->name, med, best, b->count);
		if (!strcmp(b->op, "Conv"))
			tot_dw += med * b->count;
		tot_all += med * b->count;
	}
	printf("MobileNetV2's depthwise Convs in all: %.3f ms; every case weighted by its nodes: %.3f ms\n", tot_dw,
	       tot_all);
	return 0;
}
