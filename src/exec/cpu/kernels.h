/* What the CPU kernels share (src/exec/cpu/; defined in cpu/conv.c unless named): running a float32 kernel on
 * float16/bfloat16 tensors, float/double GEMM through CBLAS, and reading small numeric inputs. */
#ifndef OV_EXEC_CPU_KERNELS_H
#define OV_EXEC_CPU_KERNELS_H

#include <stdint.h>

#include "src/exec/exec.h"

/* 1 for float16 and bfloat16. */
int cpu_is_half(int32_t dtype);

/* Run fn with the float16/bfloat16 inputs converted to float32, then convert its float32 outputs back to the
 * half type (except the outputs in keep_mask, bit i for output i). */
int cpu_via_f32(struct exec_kernel_ctx *k, exec_kernel_fn fn, unsigned keep_mask);
/* Run fn on float and double inputs directly, on float16/bfloat16 through float32 (cpu_via_f32); other input 0
 * types fail naming op. */
int cpu_float_dispatch(struct exec_kernel_ctx *k, exec_kernel_fn fn, unsigned keep_mask, const char *op);

/* C = alpha * op(A) * op(B) + beta * C, row-major, for dtype FLOAT (cblas_sgemm) or DOUBLE (cblas_dgemm), through
 * the CBLAS library loaded on the first call (src/exec/cpu/cblas.c). */
void cpu_gemm(int32_t dtype, int trans_a, int trans_b, int64_t m, int64_t n, int64_t kk, double alpha,
	      const void *a, int64_t lda, const void *b, int64_t ldb, double beta, void *c, int64_t ldc);

/* Read a small 1-D tensor of numbers (any numeric dtype) as doubles: up to max values, returns the count. */
/* Dropout's training mode, drawn as numpy's RandomState(seed) (src/exec/cpu/random.c): 0, or -1 with k failed. */
int cpu_dropout_train(struct exec_kernel_ctx *k, const struct xtensor *x, double ratio);
int64_t cpu_read_doubles(const struct xtensor *t, double *buf, int64_t max);

struct ops_window;
/* Depthwise Conv in float32 (src/exec/cpu/depthwise.c): nb images of c_n planes, mult outputs per plane, over the
 * 2-D window w2 (1-D as height 1), with bias (NULL: none) and act (NULL: none) applied as y is written whole.
 * 0, or -1 with k failed (out of memory). */
int cpu_depthwise_f(struct exec_kernel_ctx *k, const float *x, const float *wt, const float *bias, int64_t nb,
		    int64_t c_n, int64_t mult, const struct ops_window *w2, const struct exec_act *act, float *y);
/* The same for a band of output rows of one image, one output per plane (the pointwise and depthwise block of
 * src/exec/cpu/conv.c): rows oh0 .. oh1 - 1 of each of the c_n output planes of y, from input rows ih0 .. ih1 - 1
 * held in e (plane i's first at e + i * e_n, rows w2->in[1] apart), the rows outside them zeros (they must be pads,
 * or rows no output of the band reaches).  cpu_depthwise_rows_takes: whether it takes window w2 and computes the
 * same bits as cpu_depthwise_f.  0, or -1 with k failed. */
int cpu_depthwise_rows_takes(int64_t c_n, const struct ops_window *w2);
int cpu_depthwise_rows(struct exec_kernel_ctx *k, const float *e, int64_t e_n, int64_t ih0, int64_t ih1,
		       int64_t c_n, const float *wt, const float *bias, const struct ops_window *w2,
		       const struct exec_act *act, int64_t oh0, int64_t oh1, float *y);

/* Conv in float32 without im2col (src/exec/cpu/conv-direct.c), for a 2-D window w2 (1-D as height 1): whether it
 * takes a group of cg input and mg output channels over w2, and the convolution of nb images of c channels into
 * m (group groups), W being the kernel's input 1 (its packing is kept with the constants), bias and act as for
 * cpu_depthwise_f.  0, or -1 with k failed. */
int cpu_conv_direct_takes(int64_t cg, int64_t mg, const struct ops_window *w2);
int cpu_conv_direct_f(struct exec_kernel_ctx *k, const float *x, const float *w, const float *bias, int64_t nb,
		      int64_t c, int64_t m, int64_t group, const struct ops_window *w2, const struct exec_act *act,
		      float *y);

/* Conv in float32 by Winograd's F(2x2, 3x3) (src/exec/cpu/conv-winograd.c): whether it takes c input and m output
 * channels in group groups over w2, and the convolution of nb images, as cpu_conv_direct_f, but 1 (nothing
 * computed that counts) when an input is an infinity or NaN: the caller takes another path. */
int cpu_conv_winograd_takes(int64_t c, int64_t m, int64_t group, const struct ops_window *w2);
int cpu_conv_winograd_f(struct exec_kernel_ctx *k, const float *x, const float *w, const float *bias, int64_t nb,
			int64_t c, int64_t m, const struct ops_window *w2, const struct exec_act *act, float *y);

/* A constant A (m x k, rows lda apart) packed for the products below: in blocks of mr rows (6 for panels, 24 for
 * strips), each block k columns of mr values, rows past m zero; cpu_rows_size floats (src/exec/cpu/panel-gemm.c). */
#define CPU_PANEL_ROWS 6
#define CPU_STRIP_ROWS 24
int64_t cpu_rows_size(int64_t m, int64_t k, int mr);
void cpu_rows_pack(const float *a, int64_t lda, int64_t m, int64_t k, int mr, float *ap);

/* C = A B for a constant A (src/exec/cpu/panel-gemm.c), float32: A (m x k) packed once into panels of
 * CPU_PANEL_ROWS rows (cpu_rows_pack), B k rows of n columns ldb apart (read only
 * within them), C m rows ldc apart; the sums start from bias[row] (NULL: 0), add (NULL: none; m rows ldc apart, as
 * C) is added to them and act (NULL: none) applied as C is written, the Add and the activation
 * kernels' float operations.  bt: scratch of CPU_PANELS_SCRATCH floats. */
#define CPU_PANELS_SCRATCH 2048
void cpu_panels_gemm(const float *ap, int64_t m, int64_t k, const float *b, int64_t ldb, int64_t n,
		     const float *bias, const float *add, const struct exec_act *act, float *c, int64_t ldc, float *bt);

/* C = A B for a constant A (src/exec/cpu/strip-gemm.c), float32, for few columns (small planes): A (m x k) packed
 * once into strips of CPU_STRIP_ROWS rows (cpu_rows_pack), B k rows of n
 * columns ldb apart (read only within them), C m rows ldc apart; bias, add and act as for cpu_panels_gemm.  xp:
 * NULL (B read in place), or scratch of k x n floats where B is first packed (for planes of a few rows). */
void cpu_strips_gemm(const float *ap, int64_t m, int64_t k, const float *b, int64_t ldb, int64_t n,
		     const float *bias, const float *add, const struct exec_act *act, float *c, int64_t ldc,
		     float *xp);

#endif
