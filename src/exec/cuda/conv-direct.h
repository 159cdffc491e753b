/* The CUDA convolution's third way (beside cuDNN and cuBLAS products, src/exec/cuda/conv.cu): a direct kernel for
 * 2-D convolutions of one group with few input channels (C x kh x kw at most CONV_DIRECT_CK_MAX, a ResNet's 7x7 stem
 * on 3 channels), where cuDNN's full-float32 algorithms and im2col products are slow.  conv.cu times it against
 * the other two on the node's own buffers and keeps it only when it is faster (or when OV_CUDA_CONV_BLAS=3 forces
 * it); its choice is kept in the plan cache like theirs.
 *
 * Each output is the float32 fused multiply-add chain over its taps in W's order (input channel, row, column),
 * from 0; the conv's bias and the runner's offers (cu_epi) are applied as the output is stored, each the same float
 * operation cu_epilogue makes, so fusing them changes no bit.  C++, compiled by nvcc (and by the host compiler for
 * the simulator). */
#ifndef OV_EXEC_CUDA_CONV_DIRECT_H
#define OV_EXEC_CUDA_CONV_DIRECT_H

#include "src/exec/cuda/backend.h"
#include "src/exec/cuda/geom.h"

/* The largest C x kh x kw the kernel takes: its weights for 32 output channels are kept in shared memory. */
#define CONV_DIRECT_CK_MAX 147

/* Whether g (after conv.cu's explicit padding: g->in, g->pad) is one the kernel computes. */
int conv_direct_fits(const struct conv_geom *g);
/* y (N x K x out, float32) = the convolution of x by w, then e's steps (its bias the conv's, one per output channel);
 * 0, or -1 with the node's error set.  g must fit. */
int conv_direct_run(struct exec_kernel_ctx *k, const struct conv_geom *g, const float *x, const float *w, float *y,
		    const struct cu_epi *e);
/* The device milliseconds of one conv_direct_run without an epilogue (after one run to warm up), writing y, or -1
 * when it cannot be timed (no error is left on the node then). */
float conv_direct_time(struct exec_kernel_ctx *k, const struct conv_geom *g, const float *x, const float *w, float *y);

#endif
