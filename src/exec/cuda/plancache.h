/* The CUDA convolutions' timed choices kept across processes: timing cuDNN's algorithms and the cuBLAS products
 * (src/exec/cuda/conv.cu) is most of a first run's cost, and its result depends only on the device, the library
 * and the geometry.  One line per choice in a text file, appended as choices are made, read once per process:
 *   v2 DEVICE K0,K1,... ALGO MATH WAY BLAS_MS DNN_MS DIRECT_MS
 * DEVICE names the device, its compute capability and the cuDNN version (no spaces); K the plan's key ints; WAY
 * the way kept, one of plancache_ways' names (cuDNN's algorithm ALGO with MATH, a cuBLAS product image by image or
 * with the images side by side, the direct kernel); the times are those measured (negative: not timed).  Lines of
 * the first format, "v1 DEVICE K0,K1,... ALGO MATH BLAS BLAS_MS DNN_MS" (BLAS 0 cuDNN, 1 or 2 a cuBLAS way), written
 * before the direct kernel, are still read; a v2 line naming a way this reader does not know is skipped.  The
 * file is $OV_CUDA_PLAN_CACHE, or else $XDG_CACHE_HOME/onnxview/cuda-conv-plans (~/.cache/...); OV_CUDA_PLAN_CACHE=0
 * (or empty) turns it off.  A line that does not parse is skipped; the caller checks every value it takes from one
 * against what it would choose itself.  Appends are single writes of one line (O_APPEND), so processes running at
 * once do not interleave them; a link, a file that is not regular, or one larger than PLANCACHE_MAX is neither
 * read nor written.  Plain C, no CUDA. */
#ifndef OV_EXEC_CUDA_PLANCACHE_H
#define OV_EXEC_CUDA_PLANCACHE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PLANCACHE_MAX (4 << 20)
#define PLANCACHE_KEY_MAX 32

struct plan_choice {
	int algo, math, blas;  /* blas: 0 none, 1 image by image, 2 the images side by side */
	float blas_ms, dnn_ms;
	int direct;            /* the direct kernel (then blas is 0) */
	float direct_ms;
};

/* The names of the ways in v2 lines, by blas + 3 * direct (0 cudnn, 1 blas, 2 blas-merged, 3 direct). */
extern const char *const plancache_ways[4];

/* The choice kept for (device, key[0..n)): 1, or 0 when none (or the cache is off). */
int plancache_find(const char *device, const int *key, int n, struct plan_choice *c);
/* Keep it (in the file, and for this process). */
void plancache_add(const char *device, const int *key, int n, const struct plan_choice *c);
/* The file's path, or NULL when the cache is off. */
const char *plancache_path(void);
/* Forget what was read, so the next call reads the file (and the environment) again: for tests and the fuzzer. */
void plancache_reset(void);

#ifdef __cplusplus
}
#endif

#endif
