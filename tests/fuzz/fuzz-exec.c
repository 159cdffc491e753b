/* libFuzzer target for the executor (src/exec/): the input is a model; when it loads and every input of its graph
 * has a known, small shape, the whole graph runs on the CPU with random inputs, twice: the second run with the
 * constants the first kept (exec_consts) must succeed and give the same bits.  Kernels must refuse hostile
 * attributes, shapes and indices with an error, never read or write out of bounds (ASan), never hit undefined
 * behaviour (UBSan), and never exhaust memory: one tensor may take at most FUZZ_TENSOR_BYTES (xt_set_limit).
 *
 * Build with tests/fuzz/build.sh (BUILD_DIR/fuzz-exec); run with BUILD_DIR/fuzz-exec CORPUS_DIR -rss_limit_mb=2048,
 * seeded with the ONNX backend test models (model.onnx of each folder in /usr/share/libonnx-testdata/data/node). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz-feed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_run fr;
	struct exec_result r = {0};
	struct exec_options opt = {.limits = fuzz_limits()};

	if (fuzz_run_prepare(&fr, data, size))
		return 0;
	opt.consts = exec_consts_new();
	if (opt.consts && !exec_run(fr.m, fr.g, &opt, fr.in, (size_t)fr.n_in, &r, &fr.err)) {
		fuzz_rerun("fuzz-exec", &fr, &opt, &r);
		exec_result_free(&r);
	}
	exec_consts_free(opt.consts);
	fuzz_run_free(&fr);
	return 0;
}
