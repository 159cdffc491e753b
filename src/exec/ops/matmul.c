/* MatMul's checks and batch geometry (numpy's matmul), shared by the CPU and CUDA kernels (see ops/ops.h). */
#include "config.h"

#include <string.h>

#include "src/exec/ops/ops.h"

/* The shapes of a and b into d1 and d2 (64 bytes each), for a message: made only when there is one to give (every
 * MatMul of every run is checked). */
static void mm_describe(const struct xtensor *a, const struct xtensor *b, char *d1, char *d2)
{
	xt_describe(a, d1, 64);
	xt_describe(b, d2, 64);
}

int ops_matmul_setup(struct exec_kernel_ctx *k, const struct xtensor *a, const struct xtensor *b, struct mm_geom *p)
{
	char d1[64], d2[64];
	int ra = a->rank, rb = b->rank;

	memset(p, 0, sizeof *p);
	if (ra < 1 || rb < 1) {
		mm_describe(a, b, d1, d2);
		return xk_fail(k, "MatMul of %s and %s: scalars do not multiply as matrices", d1, d2);
	}
	p->m = ra >= 2 ? a->dims[ra - 2] : 1;
	p->kk = a->dims[ra - 1];
	int64_t kb = rb >= 2 ? b->dims[rb - 2] : b->dims[0];
	p->n = rb >= 2 ? b->dims[rb - 1] : 1;
	if (kb != p->kk) {
		mm_describe(a, b, d1, d2);
		return xk_fail(k, "MatMul of %s and %s: inner dims %lld and %lld differ", d1, d2, (long long)p->kk,
			       (long long)kb);
	}
	int na = ra > 2 ? ra - 2 : 0, nb = rb > 2 ? rb - 2 : 0;
	int nbat = na > nb ? na : nb;
	p->nbatch = nbat;
	int64_t sa = p->m * p->kk, sb = p->kk * p->n;
	p->batches = 1;
	for (int i = nbat - 1; i >= 0; i--) {
		int ia = i - (nbat - na), ib = i - (nbat - nb);
		int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
		if (da != db && da != 1 && db != 1) {
			mm_describe(a, b, d1, d2);
			return xk_fail(k, "MatMul of %s and %s: batch dims %lld and %lld do not broadcast", d1, d2,
				       (long long)da, (long long)db);
		}
		p->bdims[i] = da == 1 ? db : da;
		p->astr[i] = da == 1 ? 0 : sa;
		p->bstr[i] = db == 1 ? 0 : sb;
		sa *= da;
		sb *= db;
	}
	for (int i = 0; i < nbat; i++) {
		p->out[p->out_rank++] = p->bdims[i];
		p->batches *= p->bdims[i];
	}
	if (ra >= 2)
		p->out[p->out_rank++] = p->m;
	if (rb >= 2)
		p->out[p->out_rank++] = p->n;
	return 0;
}
