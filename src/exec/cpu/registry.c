/* The CPU backend's kernel lookup: one table per op family (src/exec/cpu/<family>.c), searched by op
 * name for the row with the greatest 'since' that is not above the model's opset (the ai.onnx.preview domain's
 * few ops have a table of their own, by that domain's opset). */
#include "config.h"

#include <string.h>

#include "src/exec/exec.h"

/* Every family's table (src/exec/cpu/<family>.c), referenced strongly: a missing family is a link error. */
#define CPU_FAMILIES(X) \
	X(elementwise) X(conv) X(gemm) X(pool) X(norm) X(resize) X(shape) X(gather) X(reduce) X(control) X(sequence) \
	X(detection) X(quantize) X(recurrent) X(signal) X(loss) X(text) X(random) X(attention) X(transformer)

#define DECLARE(f)                                                                  \
	extern const struct exec_kernel cpu_##f##_kernels[]; \
	extern const size_t cpu_##f##_count;
CPU_FAMILIES(DECLARE)
#undef DECLARE

extern const struct exec_kernel cpu_container_kernels[];
extern const size_t cpu_container_count;
/* The ai.onnx.preview domain's ops (FlexAttention, cpu/attention.c), by that domain's opset. */
extern const struct exec_kernel cpu_preview_kernels[];
extern const size_t cpu_preview_count;

static const struct {
	const struct exec_kernel *rows;
	const size_t *count;
} families[] = {
#define ROW(f) {cpu_##f##_kernels, &cpu_##f##_count},
	CPU_FAMILIES(ROW)
#undef ROW
};

exec_kernel_fn cpu_find_kernel(const char *domain, const char *op, int64_t opset)
{
	const struct exec_kernel *best = NULL;

	if (op && domain && !strcmp(domain, "ai.onnx.preview")) {
		for (size_t i = 0; i < cpu_preview_count; i++)
			if (!strcmp(cpu_preview_kernels[i].op, op) && cpu_preview_kernels[i].since <= opset &&
			    (!best || cpu_preview_kernels[i].since > best->since))
				best = &cpu_preview_kernels[i];
		return best ? best->fn : NULL;
	}
	if (!op || (domain && *domain && strcmp(domain, "ai.onnx")))
		return NULL;
	for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
		for (size_t i = 0; i < *families[f].count; i++) {
			const struct exec_kernel *k = &families[f].rows[i];
			if (k->op && !strcmp(k->op, op) && k->since <= opset && (!best || k->since > best->since))
				best = k;
		}
	}
	return best ? best->fn : NULL;
}

/* Ops outside the sequence family that carry sequences and optionals: If's branches may give them, Loop carries
 * them (not its trip count and condition, inputs 0 and 1), Identity copies them (with a kernel of the sequence
 * family's, cpu_container_kernels). */
static const struct {
	const char *op;
	size_t first_input; /* inputs before this one must be tensors */
} carriers[] = {
	{"Identity", 0},
	{"If", 1},
	{"Loop", 2},
};

static int in_sequence_family(const char *op)
{
	for (size_t i = 0; i < cpu_sequence_count; i++)
		if (!strcmp(cpu_sequence_kernels[i].op, op))
			return 1;
	return 0;
}

int cpu_takes_containers(const char *op, size_t input, exec_kernel_fn *fn)
{
	*fn = NULL;
	if (in_sequence_family(op))
		return 1;
	for (size_t i = 0; i < sizeof carriers / sizeof carriers[0]; i++) {
		if (strcmp(carriers[i].op, op))
			continue;
		for (size_t k = 0; k < cpu_container_count; k++)
			if (!strcmp(cpu_container_kernels[k].op, op))
				*fn = cpu_container_kernels[k].fn;
		return input >= carriers[i].first_input;
	}
	return 0;
}

int cpu_makes_containers(const char *op)
{
	return in_sequence_family(op) || !strcmp(op, "If") || !strcmp(op, "Loop");
}
