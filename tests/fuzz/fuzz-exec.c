/* libFuzzer target for the executor (src/exec/): the input is a model; when it loads and every input of its graph
 * has a known, small shape, the whole graph runs on the CPU with random inputs.  Kernels must refuse hostile
 * attributes, shapes and indices with an error, never read or write out of bounds (ASan), never hit undefined
 * behaviour (UBSan), and never exhaust memory: one tensor may take at most FUZZ_TENSOR_BYTES (xt_set_limit).
 *
 * Build with tests/fuzz/build.sh (BUILD_DIR/fuzz-exec); run with BUILD_DIR/fuzz-exec CORPUS_DIR -rss_limit_mb=2048,
 * seeded with the ONNX backend test models (model.onnx of each folder in /usr/share/libonnx-testdata/data/node). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/exec/exec.h"
#include "src/graph.h"
#include "src/model.h"
#include "src/run-feed.h"
#include "src/shape.h"

#define FUZZ_TENSOR_BYTES (64u << 20)
#define FUZZ_INPUT_ELEMENTS 65536
#define FUZZ_MAX_INPUTS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ov_model *m = NULL;
	struct graph *g = NULL;
	struct shapes *sh = NULL;
	struct ov_error err;
	struct exec_result r = {0};
	struct exec_input in[FUZZ_MAX_INPUTS];
	const char *need[FUZZ_MAX_INPUTS];
	long n_need = 0;

	xt_set_limit(FUZZ_TENSOR_BYTES);
	memset(in, 0, sizeof in);
	if (model_load_buffer(&m, data, size, "fuzz.onnx", &err))
		return 0;
	if (graph_build(&g, m->proto->graph, &err) || shape_infer(&sh, m, g, &err))
		goto out;
	struct exec_options opt = {0};
	n_need = exec_needed_inputs(g, &opt, NULL, 0, &err);
	if (n_need < 0 || n_need > FUZZ_MAX_INPUTS)
		goto out;
	exec_needed_inputs(g, &opt, need, (size_t)n_need, &err);
	struct feed f = {.m = m, .g = g, .sh = sh, .e = &err};
	for (long i = 0; i < n_need; i++) {
		int32_t id = graph_value_id(g, need[i]);
		const struct vshape *v = id >= 0 ? feed_value_shape(&f, id) : NULL;
		int64_t numel = 1;
		if (!v || v->rank < 0 || v->rank > XT_MAX_RANK)
			goto out;
		for (int d = 0; d < v->rank; d++) {
			if (v->dims[d].v < 0 || (v->dims[d].v && numel > FUZZ_INPUT_ELEMENTS / v->dims[d].v))
				goto out; /* unknown or too big: nothing to run */
			numel *= v->dims[d].v;
		}
		in[i].name = need[i];
		if (feed_generate(&f, id, "random", &in[i].t))
			goto out;
	}
	if (!exec_run(m, g, &opt, in, (size_t)n_need, &r, &err))
		exec_result_free(&r);
out:
	for (long i = 0; i < n_need && i < FUZZ_MAX_INPUTS; i++)
		xt_free(&in[i].t);
	if (sh)
		shapes_free(sh);
	if (g)
		graph_free(g);
	model_free(m);
	return 0;
}
