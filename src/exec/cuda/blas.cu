// cuBLAS through dlopen: the library of the toolkit onnxview was built with (its folder, then the loader's search
// path), and the few functions the backend calls.  See cuda/blas.h for why it is not linked.
#include "config.h"

#include <stdio.h>

#include "src/exec/cuda/blas.h"
#include "src/exec/cuda/dl.h"

#define OV_STR2(x) #x
#define OV_STR(x) OV_STR2(x)
#define CUBLAS_SONAME "libcublas.so." OV_STR(CUBLAS_VER_MAJOR)

struct cu_blas_api cu_blas;

int cu_blas_load(char *why, size_t n)
{
	static int state; // 0: not tried, 1: loaded, -1: failed (the reason in failed)
	static char failed[512];

	if (state == 0) {
		static const struct cu_dl_sym fns[] = {
			{"cublasCreate_v2", (void **)&cu_blas.create},
			{"cublasDestroy_v2", (void **)&cu_blas.destroy},
			{"cublasSetStream_v2", (void **)&cu_blas.set_stream},
			{"cublasSetMathMode", (void **)&cu_blas.set_math_mode},
			{"cublasSgemm_v2", (void **)&cu_blas.sgemm},
			{"cublasSgemmStridedBatched", (void **)&cu_blas.sgemm_strided_batched},
			{"cublasGetStatusString", (void **)&cu_blas.status_string},
			{"cublasGetProperty", (void **)&cu_blas.get_property},
		};
		int r = cu_dl_load(CUBLAS_SONAME, fns, sizeof fns / sizeof fns[0], &cu_blas, sizeof cu_blas, failed,
				   sizeof failed);
		state = r ? -1 : 1;
	}
	if (state < 0) {
		snprintf(why, n, "%s", failed);
		return -1;
	}
	return 0;
}
