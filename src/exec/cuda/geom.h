/* A convolution's geometry as cuDNN's descriptors take it, derived on the host from the window the CPU reads
 * (ops_window_read, src/exec/ops/ov-window.h), so the two backends agree on pads, auto_pad and output sizes.
 *
 * Plain C with no CUDA in it: the CUDA convolution (src/exec/cuda/conv.cu) calls it, and the unit tests check it
 * on any machine (tests/unit/test-cuda-geom.c). */
#ifndef OV_EXEC_CUDA_GEOM_H
#define OV_EXEC_CUDA_GEOM_H

#include <stddef.h>
#include <stdint.h>

#include "src/exec/ops/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1-D convolutions run as 2-D ones with H = 1; 2-D and 3-D ones as they are (cuDNN's N-d descriptors, with 2 or 3
 * spatial dims).  cuDNN pads symmetrically: a spatial dim whose ONNX pads differ (begin != end, from explicit pads
 * or SAME_* auto_pad) is padded explicitly with zeros before the call (pre_b, pre_e) and gets pad 0 in the
 * descriptor; a symmetric one gets its pad in the descriptor. */
#define CONV_GEOM_MAX 3
struct conv_geom {
	int nd;                          /* spatial dims of the descriptors: 2 (for 1-D and 2-D) or 3 */
	int n, c, k, group;              /* batch, input channels, output channels (W is k x c/group x kernel) */
	int in[CONV_GEOM_MAX];           /* the input the library sees: after the explicit padding */
	int ker[CONV_GEOM_MAX], pad[CONV_GEOM_MAX], s[CONV_GEOM_MAX], d[CONV_GEOM_MAX];
	int out[CONV_GEOM_MAX];          /* output size: ONNX's, which the library's formula reproduces */
	int64_t pre_b[CONV_GEOM_MAX], pre_e[CONV_GEOM_MAX]; /* explicit zero padding (begin, end) before the call */
	int64_t raw_in[CONV_GEOM_MAX];   /* the input's own sizes (before padding) */
	int explicit_pad;                /* some pre_* is not zero */
};

/* From the window win of input dims x (N, C, spatial...) and weight dims wt (M, C/group, kernel...), with group.
 * Returns 0, or -1 when the library cannot take it (more than 3 spatial dims, a size beyond int, or a geometry the
 * symmetric-pad formula does not reproduce), with why. */
int conv_geom_from_window(const struct ops_window *win, const int64_t *x, const int64_t *wt, int64_t group,
			  struct conv_geom *g, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif
