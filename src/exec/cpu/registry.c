/* The CPU backend's kernel lookup: one table per op family (src/exec/cpu/<family>.c), searched by domain and op
 * name for the row with the greatest 'since' that is not above the model's opset of that domain. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/exec.h"

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

/* Every row of the default domain (ai.onnx) by op name, for a lookup per node per run that costs one hash and a
 * strcmp or two rather than a pass
 * over all the tables: rows (sorted by name) and an open-addressed table of each name's first row, made at the first
 * lookup (the executor runs on one thread).  Without memory for them the lookup scans the tables as before. */
static const struct exec_kernel **by_name;
static uint32_t n_rows, *slot_of; /* slot_of[h]: 1 + the index in by_name of the first row of a name, 0 empty */
static uint32_t n_slots;
static int index_state; /* 0 not made, 1 made, -1 no memory */

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int by_op(const void *a, const void *b)
{
	return strcmp((*(const struct exec_kernel *const *)a)->op, (*(const struct exec_kernel *const *)b)->op);
}

static void index_make(void)
{
	size_t n = 0;

	index_state = -1;
	for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
		n += families[f].domain ? 0 : *families[f].count;
	for (n_slots = 64; n_slots < 2 * n; n_slots *= 2)
		;
	by_name = malloc((n ? n : 1) * sizeof *by_name);
	slot_of = calloc(n_slots, sizeof *slot_of);
	if (!by_name || !slot_of) {
		free(by_name);
		free(slot_of);
		by_name = NULL;
		slot_of = NULL;
		return;
	}
	for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
		for (size_t i = 0; !families[f].domain && i < *families[f].count; i++)
			if (families[f].rows[i].op)
				by_name[n_rows++] = &families[f].rows[i];
	qsort(by_name, n_rows, sizeof *by_name, by_op);
	for (uint32_t r = 0; r < n_rows; r++) {
		if (r && !strcmp(by_name[r]->op, by_name[r - 1]->op))
			continue;
		uint32_t h = name_hash(by_name[r]->op) & (n_slots - 1);
		while (slot_of[h])
			h = (h + 1) & (n_slots - 1);
		slot_of[h] = r + 1;
	}
	index_state = 1;
}

exec_kernel_fn cpu_find_kernel(const char *domain, const char *op, int64_t opset)
{
	const struct exec_kernel *best = NULL;

	if (!op)
		return NULL;
	if (domain && (!*domain || !strcmp(domain, "ai.onnx")))
		domain = NULL;
	if (!domain && !index_state)
		index_make();
	if (!domain && index_state > 0) { /* the default domain: one hash and a strcmp or two */
		for (uint32_t h = name_hash(op) & (n_slots - 1); slot_of[h]; h = (h + 1) & (n_slots - 1)) {
			uint32_t r = slot_of[h] - 1;
			if (strcmp(by_name[r]->op, op))
				continue;
			for (; r < n_rows && !strcmp(by_name[r]->op, op); r++)
				if (by_name[r]->since <= opset && (!best || by_name[r]->since > best->since))
					best = by_name[r];
			break;
		}
		return best ? best->fn : NULL;
	}
	for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
		if (!families[f].domain != !domain || (domain && strcmp(families[f].domain, domain)))
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
