/* Resize's plan, built on the host the same way for every backend: a Resize or Upsample node's attributes and its
 * scales / sizes / roi read into struct resize_params (output sizes, per-axis scales and crops), and each axis's
 * filter table (struct resize_axis: for each output index, the input range it reads and the weights).  The CPU
 * kernels (cpu/resize.c) and the CUDA kernels (cuda/resize.cu) both plan with these, then compute every output
 * element with src/exec/ops/ov-resize.h's functions, so the backends cannot drift apart.
 *
 * Plain C in the core library (ops/resize-params.c), callable from the CUDA files. */
#ifndef OV_EXEC_RESIZE_PLAN_H
#define OV_EXEC_RESIZE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "src/exec/ops/ov-resize.h"

#ifdef __cplusplus
extern "C" {
#endif
#include "src/exec/exec.h"

struct resize_params {
	enum ov_resize_mode mode;
	enum ov_resize_coord coord;
	enum ov_resize_nearest nearest;
	double cubic_a, extrapolation;
	int exclude_outside, antialias;
	int rank;
	int64_t in[XT_MAX_RANK], out[XT_MAX_RANK];
	double scale[XT_MAX_RANK], roi_start[XT_MAX_RANK], roi_end[XT_MAX_RANK];
};

/* One axis's filter: output o reads input indices [lo[o], lo[o] + n[o]) with weights w[woff[o] ...] (nearest: one
 * index, weight 1); outside[o] when tf_crop_and_resize extrapolates there.  An identity axis (same length, every
 * coordinate on its own index) has no table: the passes skip it and a gather takes the index as it is. */
struct resize_axis {
	int identity;
	int64_t *lo, *n, *woff;
	double *w;
	unsigned char *outside;
	int any_outside;
	int64_t nw; /* weights in w */
};

/* How the planner reads input i's values on the host: the CPU passes one returning k->in[i]; the CUDA backend
 * passes cu_host (the value may live on the device).  NULL with the node's error set. */
typedef const struct xtensor *(*resize_host_fn)(struct exec_kernel_ctx *k, size_t i);

/* Read the attributes and inputs of a Resize node (upsample 0) or an Upsample node (1) of k->opset for input
 * k->in[0] (which must be there) into p.  Only the inputs whose values are needed are read, through host.
 * Returns 0, or -1 through xk_fail saying what the node gets wrong. */
int resize_plan_read(struct exec_kernel_ctx *k, int upsample, resize_host_fn host, struct resize_params *p);

/* Build axis a's table into ax (zeroed first; an axis of output length 0 gets none).  Returns 0, or -1 through
 * xk_fail (a scale too small to filter, a table too large, no memory) with ax left empty.  resize_axis_free
 * releases it. */
int resize_plan_axis(struct exec_kernel_ctx *k, const struct resize_params *p, int a, struct resize_axis *ax);
void resize_axis_free(struct resize_axis *ax);

#ifdef __cplusplus
}
#endif

#endif
