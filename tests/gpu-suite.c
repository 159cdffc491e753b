/* The GPU suite: every model of a test list run on the CPU and on the CUDA backend inside one process (one CUDA
 * context, started once), each side through `onnxview run` itself (cmd_run, the command's own code, its output
 * captured), each model under a watchdog, with TAP output and a summary that says how long it took.
 *
 * Usage: gpu-suite [--timeout S] [--total S] [--progress S] [--dir DIR] [--graph]
 *                  [--models MANIFEST]... [--runs FILE]... [--conformance DATA LIST]...
 *
 * --models MANIFEST  tests/cuda.sh's op models, one line each: NAME RTOL ATOL EXPECT FALLBACKS INPUTS (EXPECT and
 *                    INPUTS comma-separated names, INPUTS "-" for none).  The CPU run saves its outputs
 *                    (--save cpu_NAME); the CUDA run must match them (--expect NAME=cpu_NAME/NAME.npy with RTOL and
 *                    ATOL; RTOL "bits": the CUDA run's saved outputs equal the CPU's byte for byte), and exactly
 *                    FALLBACKS nodes may run on the CPU (0: none).
 * --runs FILE        one line each: LABEL FALLBACKS ARGS...: `run ARGS...` on the CPU and on CUDA must both exit 0
 *                    (ARGS carry their own --expect, e.g. PyTorch's outputs); FALLBACKS as above, or "any".
 * --conformance DATA LIST  the ONNX backend tests named in LIST (KIND/NAME, one a line: tests/conformance-pass.txt),
 *                    from DATA (Debian's libonnx-testdata/data): every data set on both backends with the ONNX
 *                    runner's tolerances (rtol 1e-3, atol 1e-7); on CUDA nodes may fall back.
 * --timeout S        the watchdog: one model (both its runs) may take S seconds (default 60).  A model past it is
 *                    reported (not ok), then the summary and "Bail out!", and the program ends with status 1: a
 *                    device that stops answering inside a library cannot be taken back, so the suite ends cleanly
 *                    rather than hanging.
 * --total S          the whole suite's limit (default none): models left when it passes are skipped, and one
 *                    running then is stopped by the watchdog as above.
 * --progress S       a line on stderr every S seconds (default 10; 0: none): how far the suite is, and where.
 * --dir DIR          change to DIR first (manifest models and their cpu_NAME folders are relative to it).
 * --graph            CUDA graphs (OV_CUDA_GRAPH=1): each op model's CUDA run is `run --repeat 3`, whose second run
 *                    is recorded as a graph and third a launch of it; besides matching the CPU's outputs of a pass
 *                    before (cpu_NAME, not run again; bit models saved as graph_NAME), every run must give the first
 *                    run's bits.  A "# graph: NAME: why" line for each model run node by node
 *                    instead, and "# gpu-suite graphs: R recorded and replayed, N node by node" before the summary.
 *
 * Output: TAP, one line per model, then "# gpu-suite: N models in T s (CPU a s, CUDA b s, start-up c s): P pass,
 * F fail, S skipped" and the plan.  Without a usable CUDA device: "1..0 # SKIP" with the reason, status 0.
 * Exit status: 0 all pass, 1 a failure or the watchdog, 2 usage.  Built against the CUDA objects (tests/gpu-suite)
 * and against the host simulator (tests/gpu-suite-sim), so `make check` runs the same code without a GPU. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "src/base/error.h"
#include "src/exec/exec.h"

#define MAX_ARGS 96

static double timeout_s = 60, total_s = 0, progress_s = 10;
static double t_start, t_cpu, t_cuda, t_init;
static int n_tests, n_pass, n_fail, n_skip;
static int graph_mode, n_graph, n_nograph;

/* What runs now, for the watchdog (guarded by lock, as is stdout). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char current[256];
static double deadline, last_progress;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void summary(const char *how)
{
	printf("# gpu-suite: %d models in %.1f s (CPU %.1f s, CUDA %.1f s, start-up %.1f s): %d pass, %d fail, "
	       "%d skipped%s\n",
	       n_tests, now_s() - t_start, t_cpu, t_cuda, t_init, n_pass, n_fail, n_skip, how);
	printf("1..%d\n", n_tests);
	fflush(stdout);
}

/* One TAP line; detail's first lines follow as comments. */
static void result(int good, const char *detail, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void result(int good, const char *detail, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&lock);
	n_tests++;
	if (good)
		n_pass++;
	else
		n_fail++;
	printf("%s %d - ", good ? "ok" : "not ok", n_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	for (int lines = 0; !good && detail && *detail && lines < 8; lines++) {
		const char *nl = strchr(detail, '\n');
		int len = nl ? (int)(nl - detail) : (int)strlen(detail);
		printf("#   %.*s\n", len > 300 ? 300 : len, detail);
		detail = nl ? nl + 1 : "";
	}
	fflush(stdout);
	pthread_mutex_unlock(&lock);
}

/* The watchdog's view: what runs and until when (0: nothing). */
static void watch(const char *what)
{
	pthread_mutex_lock(&lock);
	if (what) {
		snprintf(current, sizeof current, "%s", what);
		double t = now_s();
		deadline = t + timeout_s;
		if (total_s > 0 && t_start + total_s < deadline)
			deadline = t_start + total_s;
	} else {
		deadline = 0;
	}
	pthread_mutex_unlock(&lock);
}

static void *watchdog(void *arg)
{
	(void)arg;
	for (;;) {
		struct timespec nap = {0, 100 * 1000 * 1000};
		nanosleep(&nap, NULL);
		pthread_mutex_lock(&lock);
		double t = now_s();
		if (deadline > 0 && t > deadline) {
			int total = total_s > 0 && t > t_start + total_s;
			n_tests++;
			n_fail++;
			printf("not ok %d - %s: did not finish within %g s (%s); the suite ends here\n", n_tests, current,
			       total ? total_s : timeout_s, total ? "the suite's time limit, --total" : "the watchdog, --timeout");
			summary(", ended by the watchdog");
			printf("Bail out! %s did not finish\n", current);
			fflush(stdout);
			fprintf(stderr, "gpu-suite: %s did not finish within %g s; ending the suite\n", current,
				total ? total_s : timeout_s);
			_exit(1);
		}
		if (progress_s > 0 && t - last_progress >= progress_s) {
			last_progress = t;
			fprintf(stderr, "# gpu-suite: %d models done (%d fail) after %.0f s; now %s\n", n_tests, n_fail,
				t - t_start, deadline > 0 ? current : "-");
		}
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

/* ---- running `onnxview run` in the process ---- */

struct args {
	char *v[MAX_ARGS];
	int n;
};

static void add(struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct args *a, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (a->n < MAX_ARGS && vasprintf(&s, fmt, ap) >= 0)
		a->v[a->n++] = s;
	va_end(ap);
}

static void args_free(struct args *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	a->n = 0;
}

/* `onnxview run ARGS --backend BE`: its exit status, its output (stdout and stderr together, as 2>&1) in *text
 * (malloc'd), its time added to the backend's. */
static int run(struct args *a, const char *be, char **text)
{
	size_t len = 0;
	FILE *f;
	int rc = 3;

	*text = NULL;
	add(a, "--backend");
	add(a, "%s", be);
	double t = now_s();
	f = open_memstream(text, &len);
	if (f) {
		rc = cmd_run(a->n, a->v, f, f);
		fclose(f);
	}
	*(strcmp(be, "cpu") ? &t_cuda : &t_cpu) += now_s() - t;
	a->n -= 2;
	free(a->v[a->n]);
	free(a->v[a->n + 1]);
	if (!*text)
		*text = strdup("");
	return rc;
}

/* "(N on the CPU" in the report, or no node on the CPU when fallbacks is "0"; "any" takes everything. */
static int fallbacks_ok(const char *text, const char *fallbacks)
{
	char want[64];

	if (!strcmp(fallbacks, "any"))
		return 1;
	if (!strcmp(fallbacks, "0"))
		return !strstr(text, "on the CPU");
	snprintf(want, sizeof want, "(%s on the CPU", fallbacks);
	return strstr(text, want) != NULL;
}

static int same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int same = fa && fb;

	while (same) {
		int ca = getc(fa), cb = getc(fb);
		if (ca != cb)
			same = 0;
		if (ca == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/* The time limit of the whole suite: 1 when it has passed (the model is then skipped). */
static int out_of_time(const char *label)
{
	if (total_s <= 0 || now_s() - t_start < total_s)
		return 0;
	pthread_mutex_lock(&lock);
	n_tests++;
	n_skip++;
	printf("ok %d - # SKIP %s: the suite's time limit (%g s) has passed\n", n_tests, label, total_s);
	pthread_mutex_unlock(&lock);
	return 1;
}

/* ---- the three kinds of lists ---- */

/* Split line into at most max words in place. */
static int words(char *line, char **w, int max)
{
	int n = 0;

	for (char *s = strtok(line, " \t\r\n"); s && n < max; s = strtok(NULL, " \t\r\n"))
		w[n++] = s;
	return n;
}

static void one_model(char *line)
{
	char *w[8], label[300], *cpu = NULL, *gpu = NULL, *why = NULL;
	struct args a = {0};

	if (words(line, w, 8) != 6) {
		result(0, NULL, "manifest line '%s' has not 6 words (NAME RTOL ATOL EXPECT FALLBACKS INPUTS)", w[0]);
		return;
	}
	const char *name = w[0], *rtol = w[1], *atol = w[2], *expect = w[3], *fallbacks = w[4];
	snprintf(label, sizeof label, "%s", name);
	if (out_of_time(label))
		return;
	watch(label);
	add(&a, "%s.onnx", name);
	if (strcmp(w[5], "-"))
		for (char *s = strtok(w[5], ","); s; s = strtok(NULL, ","))
			add(&a, "--input"), add(&a, "%s=random", s);
	int base = a.n;
	add(&a, "--save");
	add(&a, "cpu_%s", name);
	int rc = graph_mode ? 0 : run(&a, "cpu", &cpu); /* with --graph, the CPU's outputs of a pass before */
	if (rc) {
		result(0, cpu, "%s: the CPU run failed (exit %d)", label, rc);
		goto done;
	}
	while (a.n > base)
		free(a.v[--a.n]);
	int bits = !strcmp(rtol, "bits");
	char *names = strdup(expect);
	const char *dir = graph_mode ? "graph" : "cuda";
	if (bits) {
		add(&a, "--save");
		add(&a, "%s_%s", dir, name);
	} else {
		for (char *s = strtok(names, ","); s; s = strtok(NULL, ","))
			add(&a, "--expect"), add(&a, "%s=cpu_%s/%s.npy", s, name, s);
		add(&a, "--rtol");
		add(&a, "%s", rtol);
		add(&a, "--atol");
		add(&a, "%s", atol);
	}
	if (graph_mode) {
		add(&a, "--repeat");
		add(&a, "3");
	}
	rc = run(&a, "cuda", &gpu);
	if (!rc && bits) {
		strcpy(names, expect);
		for (char *s = strtok(names, ","); s && !rc; s = strtok(NULL, ",")) {
			char pa[600], pb[600];
			snprintf(pa, sizeof pa, "cpu_%s/%s.npy", name, s);
			snprintf(pb, sizeof pb, "%s_%s/%s.npy", dir, name, s);
			if (!same_file(pa, pb))
				rc = -1;
		}
	}
	free(names);
	if (rc) {
		if (asprintf(&why, "%s: CUDA differs from the CPU (rtol %s, atol %s) or failed (exit %d)", label, rtol, atol,
			     rc) < 0)
			why = NULL;
		result(0, gpu, "%s", why ? why : label);
	} else if (!fallbacks_ok(gpu, fallbacks)) {
		result(0, gpu, "%s: nodes fell back to the CPU (expected %s)", label, fallbacks);
	} else if (graph_mode && !strstr(gpu, "repeat: every run gave the same bits")) {
		result(0, gpu, "%s: a later run (a graph's launch) gave other bits than the first", label);
	} else {
		if (graph_mode) {
			const char *r = strstr(gpu, "was recorded as a graph"), *nw = strstr(gpu, "not replayed as a graph: ");
			pthread_mutex_lock(&lock);
			if (r && strstr(gpu, "; 1 later run launched it")) {
				n_graph++;
			} else {
				n_nograph++;
				const char *e = nw ? strchr(nw, '\n') : NULL;
				printf("# graph: %s: %.*s\n", label, nw ? (int)(e ? e - nw : (long)strlen(nw)) : 10,
				       nw ? nw : "no report");
			}
			pthread_mutex_unlock(&lock);
		}
		result(1, NULL, "%s", label);
	}
done:
	watch(NULL);
	free(why);
	free(cpu);
	free(gpu);
	args_free(&a);
}

static void one_run(char *line)
{
	char *w[MAX_ARGS - 4], label[300], *cpu = NULL, *gpu = NULL;
	struct args a = {0};
	int n = words(line, w, MAX_ARGS - 4);

	if (n < 3) {
		result(0, NULL, "runs line '%s' needs LABEL FALLBACKS ARGS...", n ? w[0] : "");
		return;
	}
	snprintf(label, sizeof label, "%s", w[0]);
	if (out_of_time(label))
		return;
	watch(label);
	for (int i = 2; i < n; i++)
		add(&a, "%s", w[i]);
	int rc = run(&a, "cpu", &cpu);
	if (rc) {
		result(0, cpu, "%s: the CPU run failed (exit %d)", label, rc);
	} else if ((rc = run(&a, "cuda", &gpu))) {
		result(0, gpu, "%s: the CUDA run failed (exit %d)", label, rc);
	} else if (!fallbacks_ok(gpu, w[1])) {
		result(0, gpu, "%s: nodes fell back to the CPU (expected %s)", label, w[1]);
	} else {
		const char *c = strncmp(gpu, "ran ", 4) ? strstr(gpu, "\nran ") : gpu; /* "ran 60 nodes on cuda" */
		if (c && *c == '\n')
			c++;
		result(1, NULL, "%s%s%.*s", label, c ? ": " : "", c ? (int)strcspn(c, "\n") : 0, c ? c : "");
	}
	watch(NULL);
	free(cpu);
	free(gpu);
	args_free(&a);
}

static int data_set(const struct dirent *d)
{
	return !strncmp(d->d_name, "test_data_set_", 14);
}

static void one_conformance(const char *data, char *line)
{
	char *w[2], label[400], dir[1024];
	struct dirent **sets = NULL;

	if (words(line, w, 2) < 1 || w[0][0] == '#')
		return;
	snprintf(label, sizeof label, "conformance %s", w[0]);
	if (out_of_time(label))
		return;
	watch(label);
	snprintf(dir, sizeof dir, "%s/%s", data, w[0]);
	int n = scandir(dir, &sets, data_set, alphasort), good = n > 0;
	char *fail = NULL;
	if (n <= 0)
		if (asprintf(&fail, "%s: no data sets in %s", label, dir) < 0)
			fail = NULL;
	for (int i = 0; i < n; i++) {
		for (int side = 0; side < 2 && good; side++) {
			struct args a = {0};
			char *text = NULL;
			add(&a, "%s/model.onnx", dir);
			add(&a, "--expect");
			add(&a, "%s/%s", dir, sets[i]->d_name);
			add(&a, "--rtol");
			add(&a, "1e-3");
			add(&a, "--atol");
			add(&a, "1e-7");
			int rc = run(&a, side ? "cuda" : "cpu", &text);
			if (rc) {
				good = 0;
				if (asprintf(&fail, "%s: %s on %s: exit %d\n%s", label, sets[i]->d_name, side ? "CUDA" : "the CPU",
					     rc, text) < 0)
					fail = NULL;
			}
			free(text);
			args_free(&a);
		}
		free(sets[i]);
	}
	free(sets);
	if (good) {
		result(1, NULL, "%s", label);
	} else {
		char *nl = fail ? strchr(fail, '\n') : NULL;
		if (nl)
			*nl = 0;
		result(0, nl ? nl + 1 : NULL, "%s", fail ? fail : label);
	}
	free(fail);
	watch(NULL);
}

/* Each line of path to fn (comments and blank lines left out); data for the conformance lists. */
static int each_line(const char *path, void (*fn)(char *), void (*cfn)(const char *, char *), const char *data)
{
	FILE *f = fopen(path, "r");
	char line[8192];

	if (!f) {
		fprintf(stderr, "gpu-suite: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof line, f)) {
		const char *s = line + strspn(line, " \t");
		if (*s == '#' || *s == '\n' || !*s)
			continue;
		if (fn)
			fn(line);
		else
			cfn(data, line);
	}
	fclose(f);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: gpu-suite [--timeout S] [--total S] [--progress S] [--dir DIR] [--graph] [--models MANIFEST]... "
			"[--runs FILE]... [--conformance DATA LIST]...\n");
	return 2;
}

static int seconds(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (!*s || *end || !(v >= 0) || v > 1e6)
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	struct ov_error err = {0};
	pthread_t wd;

	/* the lists first: a usage error must come before the device starts */
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		int need = !strcmp(o, "--conformance") ? 2 : 1;
		if (!strcmp(o, "--graph")) {
			graph_mode = 1;
			continue;
		}
		if (strcmp(o, "--timeout") && strcmp(o, "--total") && strcmp(o, "--progress") && strcmp(o, "--dir") &&
		    strcmp(o, "--models") && strcmp(o, "--runs") && strcmp(o, "--conformance"))
			return usage();
		if (i + need >= argc)
			return usage();
		if ((!strcmp(o, "--timeout") && seconds(argv[i + 1], &timeout_s)) ||
		    (!strcmp(o, "--total") && seconds(argv[i + 1], &total_s)) ||
		    (!strcmp(o, "--progress") && seconds(argv[i + 1], &progress_s)))
			return usage();
		if (!strcmp(o, "--dir") && chdir(argv[i + 1])) {
			fprintf(stderr, "gpu-suite: --dir %s: %s\n", argv[i + 1], strerror(errno));
			return 2;
		}
		i += need;
	}
	if (timeout_s <= 0)
		timeout_s = 1e6;
	setvbuf(stdout, NULL, _IOLBF, 0);
	t_start = last_progress = now_s();
	if (pthread_create(&wd, NULL, watchdog, NULL)) {
		fprintf(stderr, "gpu-suite: cannot start the watchdog\n");
		return 1;
	}
	pthread_detach(wd);

	if (graph_mode)
		setenv("OV_CUDA_GRAPH", "1", 1);
	watch("the CUDA backend's start-up");
	const struct exec_backend_ops *be = exec_backend_cuda(&err);
	watch(NULL);
	t_init = now_s() - t_start;
	if (!be) {
		printf("1..0 # SKIP %s\n", err.msg);
		return 0;
	}
	printf("# %s (started in %.2f s)\n", be->describe(), t_init);

	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "--graph"))
			continue;
		if (!strcmp(o, "--models"))
			each_line(argv[i + 1], one_model, NULL, NULL);
		else if (!strcmp(o, "--runs"))
			each_line(argv[i + 1], one_run, NULL, NULL);
		else if (!strcmp(o, "--conformance"))
			each_line(argv[i + 2], NULL, one_conformance, argv[i + 1]);
		i += !strcmp(o, "--conformance") ? 2 : 1;
	}
	pthread_mutex_lock(&lock);
	if (graph_mode)
		printf("# gpu-suite graphs: %d recorded and replayed, %d node by node\n", n_graph, n_nograph);
	summary("");
	int rc = n_fail ? 1 : 0;
	pthread_mutex_unlock(&lock);
	return rc;
}
