/* The CUDA convolution's own kernels (src/exec/cuda/conv-igemm.cu), which need neither cuDNN nor cuBLAS: what a run
 * of its own takes for every 1-D and 2-D convolution (src/exec/cuda/conv.cu's policy), so that such a run starts no
 * library for its convolutions (cuDNN's first use costs some 100 ms on a GPU, more than a small model's run).
 *
 * Two kernels, chosen by the geometry alone (so a convolution's bits depend on its shape only):
 * - an implicit GEMM (the product of W's rows of a group by the input's patches, gathered as the tiles are loaded),
 *   for convolutions with at least CONV_IGEMM_KG_MIN output channels per group;
 * - a per-output loop (one thread per output element) for the others: depthwise convolutions, and groups of few
 *   output channels, where the GEMM's tile of 64 output channels would be mostly padding.
 * Both sum each output as one float32 fused multiply-add chain over its taps in W's order (input channel of the
 * group, row, column), from 0, taps outside the input contributing zero (the GEMM, where its tiles are too few to
 * fill the device, as such chains over consecutive parts of the taps, added in order afterwards); the conv's bias and the runner's offers
 * (cu_epi) are applied as the output is stored, each the float operation cu_epilogue makes, so fusing them changes
 * no bit.  Asymmetric pads are read as they are (no padded copy of the input).  C++, compiled by nvcc (and by the
 * host compiler for the simulator). */
#ifndef OV_EXEC_CUDA_CONV_IGEMM_H
#define OV_EXEC_CUDA_CONV_IGEMM_H

#include "src/exec/cuda/backend.h"
#include "src/exec/cuda/geom.h"

/* Output channels per group from which the implicit GEMM is used (below: the per-output loop). */
#define CONV_IGEMM_KG_MIN 16

/* Which kernel computes g (1-D or 2-D: g->nd == 2): 1 the implicit GEMM, 0 the per-output loop, -1 neither
 * (g->nd != 2). */
int conv_igemm_way(const struct conv_geom *g);
/* y (N x K x out, float32) = the convolution of x (the input as it is, N x C x raw_in: pads, asymmetric ones too,
 * are read from g->pad and g->pre_b) by w, then e's steps (its bias the conv's, one per output channel); 0, or -1
 * with the node's error set.  conv_igemm_way(g) must be 0 or 1. */
int conv_igemm_run(struct exec_kernel_ctx *k, const struct conv_geom *g, const float *x, const float *w, float *y,
		   const struct cu_epi *e);

#endif
