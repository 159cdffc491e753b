/* The CPU backend's kernel lookup: one table per op family (src/exec/cpu-<family>.c), each optional, searched by op
 * name for the row with the greatest 'since' that is not above the model's opset. */
#include "config.h"

#include <string.h>

#include "src/exec/exec.h"

/* Weak, so a family whose file is not built yet is simply absent (its table address is NULL). */
#define CPU_FAMILIES(X) X(elementwise) X(conv) X(gemm) X(pool) X(norm) X(resize) X(shape) X(gather) X(reduce) X(misc) X(control)

#define DECLARE(f)                                                                  \
	extern const struct exec_kernel cpu_##f##_kernels[] __attribute__((weak)); \
	extern const size_t cpu_##f##_count __attribute__((weak));
CPU_FAMILIES(DECLARE)
#undef DECLARE

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

	if (!op || (domain && *domain && strcmp(domain, "ai.onnx")))
		return NULL;
	for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
		if (!families[f].rows || !families[f].count)
			continue;
		for (size_t i = 0; i < *families[f].count; i++) {
			const struct exec_kernel *k = &families[f].rows[i];
			if (k->op && !strcmp(k->op, op) && k->since <= opset && (!best || k->since > best->since))
				best = k;
		}
	}
	return best ? best->fn : NULL;
}
