/* The checks and geometry of the index and layout ops, once for the CPU kernels (cpu/gather.c, cpu/shape.c,
 * cpu/misc.c, cpu/reduce.c, cpu/resize.c) and the CUDA kernels (cuda/index.cu, cuda/scatter.cu, cuda/shape.cu),
 * defined in ops/index.c (the core library, which both link).
 *
 * Each setup reads the node's attributes and its inputs' shapes from k, and the values it needs (indices, K,
 * axis, shape, depth...) through host (the CPU passes ops_host_input; CUDA passes cu_host, which brings a value
 * computed on the device over first).  The inputs a setup names must be present (the kernels check that first).
 * It returns 0, or -1 through xk_fail with the CPU's message: the CUDA kernels then decline the node, so the CPU
 * runs it and names the problem in its own words.  Every index is checked here, before any output exists, so a
 * kernel that runs after a setup never reads or writes out of bounds. */
#ifndef OV_EXEC_INDEX_PLAN_H
#define OV_EXEC_INDEX_PLAN_H

#include <stdint.h>

#include "src/exec/ops/ov-index.h"
#ifdef __cplusplus
extern "C" {
#endif
#include "src/exec/ops/ops.h"

/* Input 0, present and of a stored element type (else the CPU's message). */
int ops_need_x(struct exec_kernel_ctx *k, const struct xtensor **x);
/* The integer types indices may have. */
int ops_is_index_type(int32_t dt);
/* Index i of t (on the host), made non-negative against dim; fails naming what, the position and the value when
 * out of range. */
int ops_index_at(struct exec_kernel_ctx *k, const struct xtensor *t, int64_t i, int64_t dim, const char *what,
		 int64_t *out);

/* DepthToSpace (to_space) and SpaceToDepth: input 0 is (N, C, H, W). */
struct depth_space_geom {
	int64_t b;      /* blocksize */
	int crd;        /* DepthToSpace's CRD mode (else DCR) */
	int64_t out[4]; /* the output's dims */
};
int ops_depth_space_setup(struct exec_kernel_ctx *k, int to_space, struct depth_space_geom *p);

/* The gathers and the scatters (data input 0, indices input 1, updates input 2): each index element
 * (GatherElements, ScatterElements, Scatter) or index tuple (GatherND, ScatterND; nd) resolved to the element of
 * data where the slice it names starts.  Unit t is slice elements of the gather's output or the scatter's updates
 * from t * slice on.  offs is malloc'd (free it with free(), after a failure too: it is then NULL). */
struct index_geom {
	int64_t *offs;               /* n of them */
	int64_t n, slice;
	enum ov_scatter_red red;     /* scatters: the reduction attribute */
	int rank;                    /* gathers: the output's dims */
	int64_t dims[XT_MAX_RANK];
};
int ops_gather_setup(struct exec_kernel_ctx *k, int nd, ops_host_fn host, struct index_geom *p);
int ops_scatter_setup(struct exec_kernel_ctx *k, int nd, ops_host_fn host, struct index_geom *p);

/* OneHot (indices 0, depth 1, values 2): the depth, the axis the one-hot dim takes and the output's dims. */
int ops_onehot_setup(struct exec_kernel_ctx *k, ops_host_fn host, int64_t *depth, int *axis, int *rank,
		     int64_t *dims);

/* Range (start 0, limit 1, delta 2): n elements of type dt, element i being ov_range_at(.., si, di, sd, dd). */
struct range_geom {
	int32_t dt;
	int64_t n, si, di; /* integer types */
	double sd, dd;     /* float types */
};
int ops_range_setup(struct exec_kernel_ctx *k, ops_host_fn host, struct range_geom *p);

/* ConstantOfShape (shape 0): the output's dims and its element, the value attribute when the node has one
 * (*have; v is then the caller's to free with xt_free), else float32 zero. */
int ops_constant_of_shape_setup(struct exec_kernel_ctx *k, ops_host_fn host, int *rank, int64_t *dims,
				struct xtensor *v, int *have);

/* EyeLike (input 0, 2-D): the output's element type. */
int ops_eye_like_setup(struct exec_kernel_ctx *k, int32_t *dt);

/* Trilu (input 0 of rank 2 or more, optional k input 1): the diagonal's offset k. */
int ops_trilu_setup(struct exec_kernel_ctx *k, ops_host_fn host, int64_t *kk);

/* CumSum and CumProd (prod) (input 0, axis input 1): the axis, the element type being an ov_cum_type. */
int ops_cum_setup(struct exec_kernel_ctx *k, int prod, ops_host_fn host, int *axis);

/* TopK (input 0; K from the attribute before opset 10, input 1 from 10): the axis and K. */
int ops_topk_setup(struct exec_kernel_ctx *k, ops_host_fn host, int *axis, int64_t *kk);

/* ReverseSequence (input 0, sequence_lens input 1): batch_axis, the batch count B and the time steps T, every
 * sequence length checked to be in [0, T]. */
int ops_reverse_sequence_setup(struct exec_kernel_ctx *k, ops_host_fn host, int *batch_axis, int64_t *B,
			       int64_t *T);

/* CenterCropPad (input 0, shape input 1): the output's dims, and per axis the input position lead[a] that output
 * position 0 reads (positive: cropped, negative: padded). */
int ops_center_crop_pad_setup(struct exec_kernel_ctx *k, ops_host_fn host, int64_t *dims, int64_t *lead);

#ifdef __cplusplus
}
#endif
#endif
