/* The backend-neutral op setups: each op's checks of its inputs and attributes and the geometry it computes from
 * them (windows, groups, batch strides, pads, gates...), once for the CPU kernels (src/exec/cpu/) and the CUDA
 * kernels (src/exec/cuda/), so both refuse the same nodes with the same words and agree on every size.  Defined in
 * src/exec/ops/; the index and layout ops' setups are in ops/index.h.  They read shapes and attributes (and,
 * through an ops_host_fn, the few small inputs whose values decide a shape); the arithmetic itself is in the
 * ops/ov-*.h headers. */
#ifndef OV_EXEC_OPS_H
#define OV_EXEC_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "src/exec/exec.h"
#include "src/exec/ops/ov-rnn.h"
#include "src/exec/ops/ov-shape.h"
#include "src/exec/ops/ov-window.h"

/* The geometry of a window over the spatial dims of an (N, C, D1, ..., Dn) input, pads resolved. */
struct ops_window {
	int n;                                   /* spatial rank */
	int64_t in[XT_MAX_RANK], k[XT_MAX_RANK], s[XT_MAX_RANK], d[XT_MAX_RANK];
	int64_t pb[XT_MAX_RANK], pe[XT_MAX_RANK], out[XT_MAX_RANK];
	enum ov_auto_pad auto_pad;
	int64_t in_size, k_size, out_size;       /* products over the spatial dims */
};

/* Read kernel_shape (kshape, when not NULL, is the weight's kernel and kernel_shape must agree with it), strides,
 * dilations, pads and auto_pad for input x, check them (positive strides/dilations/kernel, pads >= 0, matching
 * lengths) and compute the output sizes (with ceil_mode); transpose: ConvTranspose (no output sizes computed).
 * Returns 0, or -1 through xk_fail with the reason. */
int ops_window_read(struct exec_kernel_ctx *k, const struct xtensor *x, const int64_t *kshape, int ceil_mode,
		    int transpose, struct ops_window *w);

/* Conv's checks of X, W and B (ranks, channels, group) and its window, shared by the CPU and CUDA kernels: the
 * group, the window w and the output's dims out.  Returns 0, or -1 through xk_fail with the reason. */
int ops_conv_setup(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *wt,
		   const struct xtensor *b, int64_t *group, struct ops_window *w, int64_t *out);
/* ConvTranspose's checks and geometry (X, W, optional B; group, output_padding, output_shape, auto_pad), shared
 * by the CPU and CUDA kernels: the window w (pads resolved, output sizes), the output's dims out (N, M, spatial...)
 * and the group.  Returns 0, or -1 through xk_fail with the reason. */
int ops_convt_setup(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *wt,
		    const struct xtensor *b, struct ops_window *w, int64_t *out, int64_t *group);

/* LayerNormalization's checks and geometry (axis, Scale and B broadcast, stash_type, epsilon), shared by the CPU
 * and CUDA kernels: rows of len values normalised over the dims from axis on, outer of them. */
struct ln_geom {
	int axis;
	int64_t outer, len;
	int64_t sstr[XT_MAX_RANK], bstr[XT_MAX_RANK]; /* Scale's and B's strides broadcast against X (0: repeated) */
	int64_t sdims[XT_MAX_RANK];                   /* the Mean and InvStdDev outputs' dims */
	int32_t stash;                                /* OV_DT_FLOAT or OV_DT_DOUBLE */
	double eps;
};
/* Returns 0, or -1 through xk_fail with the reason. */
int ops_layernorm_setup(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *s,
			const struct xtensor *b, struct ln_geom *p);

/* The batch geometry of a numpy matmul of A by B (1-D operands promoted, batch dims broadcast), shared by the
 * CPU's MatMul family and the CUDA MatMul. */
struct mm_geom {
	int64_t m, n, kk;
	int nbatch;                        /* batch rank */
	int64_t bdims[XT_MAX_RANK];        /* broadcast batch dims */
	int64_t astr[XT_MAX_RANK], bstr[XT_MAX_RANK]; /* element strides of A's and B's matrices per batch dim */
	int64_t batches;
	int out_rank;
	int64_t out[XT_MAX_RANK];
};
/* Returns 0, or -1 through xk_fail with the reason (scalars, inner dims that differ, batch dims that do not
 * broadcast). */
int ops_matmul_setup(struct exec_kernel_ctx *k, const struct xtensor *a, const struct xtensor *b, struct mm_geom *p);

/* How a shared setup reads input i's values on the host: the CPU passes one returning k->in[i]; the CUDA backend
 * passes cu_host (the value may live on the device).  NULL with the node's error set. */
typedef const struct xtensor *(*ops_host_fn)(struct exec_kernel_ctx *k, size_t i);
/* The CPU's: input i itself (NULL when left out), its values on the host already (ops/index.c). */
const struct xtensor *ops_host_input(struct exec_kernel_ctx *k, size_t i);
/* The integers of t, a 1-D list or a scalar of at most max numbers on the host (any numeric type, as xt_get_int
 * reads them), into buf: the count, or -1 through xk_fail naming what (ops/pad.c). */
int64_t ops_host_ints(struct exec_kernel_ctx *k, const struct xtensor *t, int64_t *buf, int64_t max, const char *what);

/* Pad's checks and geometry (mode, pads and value from the attributes before opset 11, pads, constant_value and
 * axes from the inputs after), shared by the CPU and CUDA kernels: begin and end pads per axis (negative: crop)
 * and the output's dims. */
struct pad_geom {
	enum ov_pad_mode mode;
	char mode_name[32];
	int64_t pb[XT_MAX_RANK], pe[XT_MAX_RANK], d[XT_MAX_RANK];
	const struct xtensor *cv; /* constant_value (Pad-11 on), or NULL */
	double cval;              /* the value attribute (before Pad-11) */
};
/* Returns 0, or -1 through xk_fail with the reason. */
int ops_pad_setup(struct exec_kernel_ctx *k, const struct xtensor *x, ops_host_fn host, struct pad_geom *p);

/* RNN's, GRU's and LSTM's checks (X, W, R, B, sequence_lens, initial_h, initial_c, P, direction, hidden_size),
 * dims and activations, shared by the CPU and CUDA kernels.  sequence_lens is read on the host through host. */
enum rnn_cell { RNN_CELL_RNN, RNN_CELL_GRU, RNN_CELL_LSTM };
struct rnn_geom {
	enum rnn_cell cell;
	int G;                      /* gates: 1, 3 (z, r, h) or 4 (i, o, f, c) */
	int nf;                     /* activations per direction: 1, 2 or 3 */
	int D, reverse_only;        /* directions (2: bidirectional), and 'reverse' */
	int layout, lbr, input_forget;
	float clip;                 /* > 0: the pre-activations are clipped to [-clip, clip] */
	int64_t T, Bn, In, H;       /* steps, batch, input size, hidden size */
	struct ov_rnn_act acts[6];  /* nf per direction */
	int64_t yd[4], hd[3];       /* Y's dims, and Y_h's and Y_c's */
};
/* Returns 0, or -1 through xk_fail with the reason. */
int ops_rnn_setup(struct exec_kernel_ctx *k, enum rnn_cell cell, ops_host_fn host, struct rnn_geom *p);
/* QuantizeLinear's and DequantizeLinear's checks (the zero point's shape, axis, block_size against the scale's
 * shape), shared by the CPU and CUDA kernels: where each element finds its scale and zero point (src/exec/ops/ov-quant.h).
 * Reads only shapes and attributes.  Returns 0, or -1 through xk_fail with the reason. */
struct ov_qparams;
int ops_quant_setup(struct exec_kernel_ctx *k, const struct xtensor *x, const struct xtensor *scale,
		    const struct xtensor *zp, struct ov_qparams *q);

/* LpPool's and GlobalLpPool's p: the int attribute (opset 2 on), else the float one of opset 1 (default 2). */
double ops_pool_lp_p(const struct exec_kernel_ctx *k);

/* Shape (start, end) and Size of input 0: kernels for any backend, since they read only dims and write a host
 * int64 output (ops/dims.c).  Returns 0, or -1 through xk_fail. */
int ops_shape_kernel(struct exec_kernel_ctx *k);
int ops_size_kernel(struct exec_kernel_ctx *k);

#endif
