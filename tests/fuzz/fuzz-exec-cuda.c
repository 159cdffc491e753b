/* libFuzzer target for the CUDA backend, differential: the input is a model; when it loads and every input of its
 * graph has a known, small shape, the graph runs with random inputs on the CPU and on the CUDA backend, here the
 * host simulator of the device (src/exec/cuda/sim/sim.h: the backend's own kernels, launches, copies and library calls,
 * with device memory, pointers and launch limits checked).  Findings, each an abort with a line on stderr:
 * - a crash, an out-of-bounds access (ASan), undefined behaviour (UBSan), or a simulator refusal ("cudasim: ...",
 *   which fails the run as the device would);
 * - the CUDA run failing where the CPU run succeeded (the backend must decline what it cannot run);
 * - a second CUDA run, with the constants the first left on the device (exec_consts), failing or giving other bits;
 * - an output that differs: another dtype or shape, a NaN or infinity in another place (unless the output reaches
 *   1e36: near float's end, overflow depends on the order of a sum), an integer or boolean of
 *   another value, or a float beyond rtol 1e-3 and atol 1e-3 x (1 + the largest |value| of the CPU's output)
 *   (accumulation orders differ between the backends; a kernel bug gives far larger differences).
 *
 * Build with tests/fuzz/build.sh (BUILD_DIR/fuzz-exec-cuda, where the CUDA toolkit's headers are found); run with
 * BUILD_DIR/fuzz-exec-cuda CORPUS_DIR -rss_limit_mb=2048, seeded with the node tests' model.onnx files. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/dtype.h"
#include "tests/fuzz/fuzz-feed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void finding(const char *what, const char *name, const char *detail)
{
	fprintf(stderr, "fuzz-exec-cuda: %s: output '%s': %s\n", what, name, detail);
	abort();
}

static int is_float(int32_t dt)
{
	return dt == OV_DT_FLOAT || dt == OV_DT_DOUBLE || dt == OV_DT_FLOAT16 || dt == OV_DT_BFLOAT16;
}

static void compare(const char *name, const struct xtensor *cpu, const struct xtensor *gpu)
{
	char d[200];

	if (cpu->dtype != gpu->dtype || cpu->rank != gpu->rank ||
	    memcmp(cpu->dims, gpu->dims, (size_t)cpu->rank * sizeof *cpu->dims)) {
		char a[64], b[64];
		xt_describe(cpu, a, sizeof a);
		xt_describe(gpu, b, sizeof b);
		snprintf(d, sizeof d, "CPU %s, CUDA %s", a, b);
		finding("other dtype or shape", name, d);
	}
	if (cpu->dtype == OV_DT_STRING || !xt_elem_size(cpu->dtype))
		return;
	double big = 0;
	for (int64_t i = 0; i < cpu->numel; i++) {
		double v = fabs(xt_get(cpu, i));
		if (isfinite(v) && v > big)
			big = v;
	}
	for (int64_t i = 0; i < cpu->numel; i++) {
		double a = xt_get(cpu, i), b = xt_get(gpu, i);
		int bad;
		if (!is_float(cpu->dtype))
			bad = xt_get_int(cpu, i) != xt_get_int(gpu, i);
		else if (isnan(a) || isnan(b) || isinf(a) || isinf(b))
			/* near float's end, whether a sum overflows depends on its order: where the output reaches
			 * 1e36, a NaN or infinity against a finite value is no finding */
			bad = !(isnan(a) && isnan(b)) && a != b && !(big > 1e36 || fabs(isfinite(a) ? a : b) > 1e36);
		else
			bad = fabs(a - b) > 1e-3 * (1 + big) + 1e-3 * fabs(a);
		if (bad) {
			snprintf(d, sizeof d, "element %lld: CPU %.9g, CUDA %.9g (largest |value| %.3g)", (long long)i, a, b,
				 big);
			finding("values differ", name, d);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_run fr;
	struct exec_result rc = {0}, rg = {0};
	struct exec_options opt = {.limits = fuzz_limits()};
	struct ov_error err;
	const struct exec_backend_ops *cuda = exec_backend_cuda(&err);

	if (!cuda) {
		fprintf(stderr, "fuzz-exec-cuda: no CUDA backend: %s\n", err.msg);
		abort();
	}
	if (fuzz_run_prepare(&fr, data, size))
		return 0;
	if (exec_run(fr.m, fr.g, &opt, fr.in, (size_t)fr.n_in, &rc, &fr.err))
		goto out; /* the CPU refuses it: nothing to compare */
	opt.backend = cuda;
	opt.consts = exec_consts_new();
	if (!opt.consts)
		goto out;
	if (exec_run(fr.m, fr.g, &opt, fr.in, (size_t)fr.n_in, &rg, &fr.err)) {
		fprintf(stderr, "fuzz-exec-cuda: the CUDA run failed where the CPU's succeeded: %s\n", fr.err.msg);
		abort();
	}
	fuzz_rerun("fuzz-exec-cuda", &fr, &opt, &rg); /* the constants found on the device this time */
	if (!fuzz_deterministic(fr.g))
		goto out; /* random ops draw other numbers on the second run */
	for (size_t i = 0; i < rc.n_to && i < rg.n_to; i++)
		if (rc.values[i].present && rg.values[i].present)
			compare(rc.values[i].name, &rc.values[i].t, &rg.values[i].t);
out:
	exec_result_free(&rc);
	exec_result_free(&rg);
	exec_consts_free(opt.consts);
	fuzz_run_free(&fr);
	return 0;
}
