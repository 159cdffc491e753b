/* The CPU backend's kernel lookup: one table per op family (src/exec/cpu/<family>.c), searched by domain and op
 * name for the row with the greatest 'since' that is not above the model's opset of that domain. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/exec.h"
#include "src/exec/ops/kindex.h"

/* Every family's table (src/exec/cpu/<family>.c), referenced strongly: a missing family is a link error. */
#define CPU_FAMILIES(X) \
	X(elementwise, NULL) X(conv, NULL) X(gemm, NULL) X(pool, NULL) X(norm, NULL) X(resize, NULL) X(shape, NULL) \
	X(gather, NULL) X(reduce, NULL) X(control, NULL) X(sequence, NULL) X(detection, NULL) X(quantize, NULL) \
	X(recurrent, NULL) X(signal, NULL) X(loss, NULL) X(text, NULL) X(random, NULL) X(attention, NULL) \
	X(transformer, NULL) X(ml, "ai.onnx.ml") X(training, "ai.onnx.preview.training") X(preview, "ai.onnx.preview")

#define DECLARE(f, d) \
	extern const struct exec_kernel cpu_##f##_kernels[]; \
	extern const size_t cpu_##f##_count;
CPU_FAMILIES(DECLARE)
#undef DECLARE

extern const struct exec_kernel cpu_container_kernels[];
extern const size_t cpu_container_count;

/* Each family's ops are of one domain (NULL: the default one, ai.onnx). */
static const struct {
	const struct exec_kernel *rows;
	const size_t *count;
	const char *domain;
} families[] = {
#define ROW(f, d) {cpu_##f##_kernels, &cpu_##f##_count, d},
	CPU_FAMILIES(ROW)
#undef ROW
};

/* The default domain's (ai.onnx) rows by op name (src/exec/ops/kindex.h). */
#define TABLE(f, d) cpu_##f##_kernels,
#define COUNT(f, d) &cpu_##f##_count,
static const struct exec_kernel *const default_tables[] = {CPU_FAMILIES(TABLE)};
static const size_t *const default_counts[] = {CPU_FAMILIES(COUNT)};
#undef TABLE
#undef COUNT
static struct kindex default_index;

exec_kernel_fn cpu_find_kernel(const char *domain, const char *op, int64_t opset)
{
	const struct exec_kernel *best = NULL;

	if (!op)
		return NULL;
	if (domain && (!*domain || !strcmp(domain, "ai.onnx")))
		domain = NULL;
	if (!domain) {
		if (!default_index.tables) {
			/* the families of another domain count no rows here */
			static size_t none = 0;
			static const size_t *counts[sizeof default_counts / sizeof default_counts[0]];
			for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
				counts[f] = families[f].domain ? &none : default_counts[f];
			default_index.tables = default_tables;
			default_index.counts = counts;
			default_index.n_tables = sizeof families / sizeof families[0];
		}
		best = kindex_find(&default_index, op, opset);
		return best ? best->fn : NULL;
	}
	for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
		if (!families[f].domain || strcmp(families[f].domain, domain))
			continue;
		for (size_t i = 0; i < *families[f].count; i++) {
			const struct exec_kernel *k = &families[f].rows[i];
			if (k->op && !strcmp(k->op, op) && k->since <= opset && (!best || k->since > best->since))
				best = k;
		}
	}
	return best ? best->fn : NULL;
}

size_t cpu_domain_ops(const char *domain, char *buf, size_t n)
{
	size_t count = 0, at = 0;

	if (n)
		buf[0] = '\0';
	for (size_t f = 0; domain && f < sizeof families / sizeof families[0]; f++) {
		if (!families[f].domain || strcmp(families[f].domain, domain))
			continue;
		for (size_t i = 0; i < *families[f].count; i++) {
			const char *op = families[f].rows[i].op;
			int seen = 0;
			for (size_t j = 0; j < i && !seen; j++)
				seen = !strcmp(families[f].rows[j].op, op);
			if (seen)
				continue;
			int w = snprintf(buf + at, at < n ? n - at : 0, "%s%s", count ? ", " : "", op);
			if (w > 0 && at + (size_t)w < n)
				at += (size_t)w;
			else if (n > 4)
				memcpy(buf + (n - 4 > at ? at : n - 4), "...", 4);
			count++;
		}
	}
	return count;
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
