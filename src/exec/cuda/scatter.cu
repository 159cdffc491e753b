// The scatters on the CUDA device: ScatterElements, ScatterND and Scatter (ScatterElements' deprecated alias),
// with every reduction (none, add, mul, max, min), giving the CPU's result (cpu/gather.c) in every case, repeated
// indices included.
//
// ONNX applies the updates in index order, and where indices repeat the result depends on that order (the last
// one wins; a float sum rounds in that order).  The CPU folds them into a copy of data one after the other.  Here
// the CPU's own setup (ops_scatter_setup, ops/index.h) checks the node and resolves every index on the host,
// before any output exists (one out of range: the node is declined, and the CPU names it), to the data element its
// unit starts at: a unit is one update (the Elements forms) or the slice of updates one index tuple names (ND).
// The units are then sorted by target, stably, so the units of one target stand together in the CPU's order, and
// one thread per target and slice element folds that target's updates in that order with the CPU's arithmetic
// (ov_scatter_combine).  Two units' slices are the same elements or disjoint, so no two threads touch one element,
// and each element sees the CPU's sequence of updates: the same bits, in parallel over every target.
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/exec/cuda/backend.h"
#include "src/exec/ops/index.h"

// Unit q (in target order) starts a run of the units of target soff[q] unless the one before has it too; its
// thread for slice element e folds the run's updates in order (with none only the last matters).
template <typename T>
static __global__ void scatter_kernel(T *y, const T *u, const int64_t *order, const int64_t *soff, int64_t units,
				      int64_t slice, int32_t dt, int red, int64_t n)
{
	CU_FOR(i, n)
	{
		int64_t q = i / slice, e = i - q * slice, off = soff[q], end = q + 1;
		if (q > 0 && soff[q - 1] == off)
			continue;
		while (end < units && soff[end] == off)
			end++;
		if (red == OV_SCATTER_NONE) {
			y[off + e] = u[order[end - 1] * slice + e];
			continue;
		}
		for (int64_t r = q; r < end; r++)
			ov_scatter_combine(y, off + e, u, order[r] * slice + e, dt, red);
	}
}

template <typename T>
static int scatter_launch(struct exec_kernel_ctx *k, void *y, const void *u, const int64_t *order, const int64_t *soff,
			  int64_t units, int64_t slice, int32_t dt, int red)
{
	int64_t n = units * slice;
	return CU_LAUNCH(k, scatter_kernel<T>, cu_grid(n), CU_BLOCK, (T *)y, (const T *)u, order, soff, units, slice, dt,
			 red, n);
}

// order: the units by target, stably (an LSD radix sort on the offsets, 16 bits a pass; none when they rise
// already); soff: their targets in that order.  0, or -1 with the node's error.
static int sort_units(struct exec_kernel_ctx *k, const struct index_geom *p, int64_t *order, int64_t *soff)
{
	int64_t n = p->n, top = 0, *tmp = NULL, *cnt = NULL;
	int rising = 1;

	for (int64_t t = 0; t < n; t++) {
		order[t] = t;
		rising &= t == 0 || p->offs[t] > p->offs[t - 1];
		top = p->offs[t] > top ? p->offs[t] : top;
	}
	if (!rising) {
		if (!(tmp = (int64_t *)malloc((size_t)n * sizeof *tmp)) || !(cnt = (int64_t *)malloc(65537 * sizeof *cnt))) {
			free(tmp);
			return xk_fail(k, "out of memory");
		}
		for (int shift = 0; shift < 64 && top >> shift; shift += 16) {
			memset(cnt, 0, 65537 * sizeof *cnt);
			for (int64_t i = 0; i < n; i++)
				cnt[(p->offs[order[i]] >> shift & 0xffff) + 1]++;
			for (int d = 0; d < 65536; d++)
				cnt[d + 1] += cnt[d];
			for (int64_t i = 0; i < n; i++)
				tmp[cnt[p->offs[order[i]] >> shift & 0xffff]++] = order[i];
			memcpy(order, tmp, (size_t)n * sizeof *order);
		}
		free(tmp);
		free(cnt);
	}
	for (int64_t i = 0; i < n; i++)
		soff[i] = p->offs[order[i]];
	return 0;
}

static int scatter_run(struct exec_kernel_ctx *k, int nd)
{
	const struct xtensor *x = xk_in(k, 0);
	struct index_geom p;
	struct cu_bufs bufs = {};
	int64_t *order = NULL, *soff = NULL;
	int rc = -1;

	if (!x || !xk_in(k, 1) || !xk_in(k, 2) || !cu_move_size(x->dtype) || ops_scatter_setup(k, nd, cu_host, &p))
		return EXEC_DECLINE; // the CPU says what is wrong
	if (p.red != OV_SCATTER_NONE && !ov_scatter_red_type(x->dtype)) {
		free(p.offs);
		return EXEC_DECLINE; // complex, float8: the CPU leaves data as it is
	}
	if (xk_output_raw(k, 0, x->dtype, x->rank, x->dims))
		goto out;
	if (x->bytes) {
		struct xtensor *y = k->out[0];
		int64_t units = p.slice ? p.n : 0;
		size_t tb = (size_t)units * sizeof *order;
		const void *dx = cu_input(k, &bufs, 0);
		void *dy = dx ? cu_alloc(k, &bufs, y->bytes) : NULL;
		if (!dy || CU_OK(k, cudaMemcpyAsync(dy, dx, y->bytes, cudaMemcpyDeviceToDevice, cu_dev.stream)))
			goto out;
		if (units) {
			if (!(order = (int64_t *)malloc(tb)) || !(soff = (int64_t *)malloc(tb))) {
				xk_fail(k, "out of memory");
				goto out;
			}
			if (sort_units(k, &p, order, soff))
				goto out;
			const void *du = cu_input(k, &bufs, 2);
			int64_t *dorder = du ? (int64_t *)cu_alloc(k, &bufs, tb) : NULL;
			int64_t *dsoff = dorder ? (int64_t *)cu_alloc(k, &bufs, tb) : NULL;
			if (!dsoff || cu_upload(k, dorder, order, tb) || cu_upload(k, dsoff, soff, tb) ||
			    CU_BY_SIZE(cu_move_size(x->dtype), scatter_launch, k, dy, du, dorder, dsoff, units, p.slice,
				       x->dtype, (int)p.red))
				goto out;
		}
		if (cu_output(k, &bufs, 0, dy))
			goto out;
	}
	rc = 0;
out:
	cu_bufs_free(&bufs); // after cu_output's wait (or a failure), so the tables are no longer read
	free(p.offs);
	free(order);
	free(soff);
	return rc;
}

static int k_scatter_elements(struct exec_kernel_ctx *k) { return scatter_run(k, 0); }
static int k_scatter_nd(struct exec_kernel_ctx *k) { return scatter_run(k, 1); }

const struct exec_kernel cuda_scatter_kernels[] = {
	{.op = "Scatter", .since = 9, .fn = k_scatter_elements},
	{.op = "ScatterElements", .since = 11, .fn = k_scatter_elements},
	{.op = "ScatterND", .since = 11, .fn = k_scatter_nd},
};
const size_t cuda_scatter_count = sizeof cuda_scatter_kernels / sizeof cuda_scatter_kernels[0];
