/* CBLAS, loaded with dlopen by the first product that needs it (cpu_gemm), instead of linked.  OpenBLAS costs a
 * process 2 to 4 ms when it is loaded (its relocations, libgfortran's, its CPU detection, and a worker thread a core
 * past the first, which spins waiting for work), and many processes need none of it: info, dump, check, edit, a TUI
 * until its first run, and most runs (MatMul, Gemm and the convolutions go through the own kernels; CBLAS takes
 * what they do not: double, products of two computed values past 64K, the generic convolution path).  The time
 * the load took is handed to the CPU backend (cpu_cblas_take_load_ms), which takes it out of that node's time and
 * says so in its note.  The library configure
 * found (its soname, OV_CBLAS_SONAME) is opened first, then the usual names; OpenBLAS reads OPENBLAS_NUM_THREADS
 * when it is loaded, which cli/main.c sets to 1 unless the user chose.  OV_CBLAS names another library (MKL's, a
 * path) to open instead of all of these.  Without a library (removed after the build, or OV_CBLAS naming none),
 * products run through cpu_gemm's plain loop in double, slower but right; --version says which (ov_cblas_describe). */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/exec/cpu/cblas.h"
#include "src/exec/device.h"

#ifndef OV_CBLAS_SONAME
#define OV_CBLAS_SONAME ""
#endif

static struct cpu_cblas table;
static const char *loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static uint64_t load_ns; /* how long load() took, until cpu_cblas_take_load_ms takes it */

static const char *names[] = {OV_CBLAS_SONAME, "libopenblas.so.0", "libcblas.so.3", "libblas.so.3"};
static size_t n_names = sizeof names / sizeof *names;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void open_one(void);

static void load(void)
{
	uint64_t t0 = mono_ns();

	open_one();
	__atomic_store_n(&load_ns, mono_ns() - t0 + 1, __ATOMIC_RELEASE);
}

double cpu_cblas_take_load_ms(const char **name)
{
	/* a plain load first: this is asked around every CPU node, and the library opens once a process */
	uint64_t ns = __atomic_load_n(&load_ns, __ATOMIC_ACQUIRE) ? __atomic_exchange_n(&load_ns, 0, __ATOMIC_ACQ_REL) : 0;

	*name = loaded;
	return ns ? (double)(ns - 1) / 1e6 : -1.0;
}

static void open_one(void)
{
	const char *chosen = getenv("OV_CBLAS"); /* the user's library (a name or a path), and no other */

	if (chosen && *chosen) {
		names[0] = chosen;
		n_names = 1;
	}
	for (size_t i = 0; i < n_names; i++) {
		if (!*names[i])
			continue;
		void *h = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
		if (!h)
			continue;
		/* dlsym's object pointers into function pointers: copied, as POSIX has them the same size */
		void *sg = dlsym(h, "cblas_sgemm"), *dg = dlsym(h, "cblas_dgemm"), *sv = dlsym(h, "cblas_sgemv");
		struct cpu_cblas t;
		memcpy(&t.sgemm, &sg, sizeof sg);
		memcpy(&t.dgemm, &dg, sizeof dg);
		memcpy(&t.sgemv, &sv, sizeof sv);
		if (sg && dg && sv) {
			table = t;
			loaded = names[i];
			return; /* stays loaded for the process */
		}
		dlclose(h);
	}
}

const struct cpu_cblas *cpu_cblas(void)
{
	pthread_once(&once, load);
	return loaded ? &table : NULL;
}

int ov_cblas_describe(char *buf, size_t n)
{
	if (cpu_cblas()) {
		snprintf(buf, n, "%s", loaded);
		return 1;
	}
	size_t at = (size_t)snprintf(buf, n, "none found (tried");
	for (size_t i = 0; i < n_names && at < n; i++)
		if (*names[i] && (i == 0 || strcmp(names[i], names[0])))
			at += (size_t)snprintf(buf + at, n - at, " %s", names[i]);
	if (at < n)
		snprintf(buf + at, n - at, "): products the own kernels do not take run in a plain loop, slower");
	return 0;
}
