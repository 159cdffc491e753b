/* cuBLAS, loaded with dlopen on first use instead of linked (C++, for the CUDA backend's files).
 *
 * Why: cuBLAS needs libcublasLt, half a gigabyte of code; linked into onnxview, loading it would cost every
 * command (info, the TUI...) some 150 ms and 200 MB of memory at startup, with or without a GPU.  cuDNN is loaded
 * the same way (cuda/dnn.h). */
#ifndef OV_EXEC_CUDA_BLAS_H
#define OV_EXEC_CUDA_BLAS_H

#include <cublas_v2.h>
#include <stddef.h>

/* The functions the backend uses, filled by cu_blas_load(). */
struct cu_blas_api {
	decltype(&cublasCreate_v2) create;
	decltype(&cublasDestroy_v2) destroy;
	decltype(&cublasSetStream_v2) set_stream;
	decltype(&cublasSetMathMode) set_math_mode;
	decltype(&cublasSgemm_v2) sgemm;
	decltype(&cublasSgemmStridedBatched) sgemm_strided_batched;
	decltype(&cublasGetStatusString) status_string;
	decltype(&cublasGetProperty) get_property;
};
extern struct cu_blas_api cu_blas;

/* Load cuBLAS once (later calls give the first answer): 0, or -1 with why (the loader's message) in why. */
int cu_blas_load(char *why, size_t n);

#endif
