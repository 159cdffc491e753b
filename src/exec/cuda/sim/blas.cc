// The host simulator's cuBLAS (see cuda/sim/sim.h): cu_blas_load fills the backend's table (cuda/blas.h) with the
// calls below, which check their arguments as cuBLAS documents them (column-major matrices, leading dimensions at
// least the rows of what they hold, every matrix inside device memory) and compute in float32 with fmaf, TF32
// inputs when the handle's math mode asks for tensor-op math.  Tests only.
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/exec/cuda/blas.h"
#include "src/exec/cuda/sim/simlib.h"

struct cu_blas_api cu_blas;

struct cublasContext {
	cublasMath_t math;
};

float cusim_tf32(float v)
{
	uint32_t u;

	memcpy(&u, &v, 4);
	if ((u & 0x7f800000u) == 0x7f800000u) // Inf and NaN pass
		return v;
	u += 0xfffu + ((u >> 13) & 1u); // to nearest even at bit 13
	u &= ~0x1fffu;
	memcpy(&v, &u, 4);
	return v;
}

int cusim_blas_started; // cublasCreate calls (the stats line of sim.cc)

static cublasStatus_t sim_create(cublasHandle_t *h)
{
	if (cusim_capture_broken() || (cusim_capturing() && (cusim_capture_break(cudaErrorStreamCaptureUnsupported,
										  "cublasCreate"), 1)))
		return CUBLAS_STATUS_NOT_INITIALIZED;
	cusim_blas_started++;
	*h = (cublasHandle_t)calloc(1, sizeof(struct cublasContext));
	return *h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}

static cublasStatus_t sim_destroy(cublasHandle_t h)
{
	free(h);
	return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t sim_set_stream(cublasHandle_t h, cudaStream_t)
{
	return h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

static cublasStatus_t sim_set_math_mode(cublasHandle_t h, cublasMath_t m)
{
	if (!h)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	h->math = m;
	return CUBLAS_STATUS_SUCCESS;
}

static const char *sim_status_string(cublasStatus_t s)
{
	switch (s) {
	case CUBLAS_STATUS_SUCCESS: return "the operation completed successfully";
	case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
	case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
	case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
	case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
	default: return "unknown cuBLAS status";
	}
}

static cublasStatus_t sim_get_property(libraryPropertyType t, int *v)
{
	*v = t == MAJOR_VERSION ? CUBLAS_VER_MAJOR : t == MINOR_VERSION ? CUBLAS_VER_MINOR : CUBLAS_VER_PATCH;
	return CUBLAS_STATUS_SUCCESS;
}

// A rows x cols column-major matrix with leading dimension ld at p lies in device memory.
static int on_device(const char *what, const float *p, int rows, int cols, int64_t ld)
{
	if (!rows || !cols)
		return 1;
	size_t n = ((size_t)(cols - 1) * (size_t)ld + (size_t)rows) * sizeof(float);
	if (cusim_is_device(p, n))
		return 1;
	cusim_say("cuBLAS sgemm: %s (%d x %d, ld %lld at %p) is not inside device memory", what, rows, cols,
		  (long long)ld, (const void *)p);
	return 0;
}

// C = alpha op(A) op(B) + beta C, column-major; C is not read when beta is 0 (cuBLAS's rule).
static cublasStatus_t gemm1(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
			    float alpha, const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
			    int64_t ldc)
{
	int tf32 = h->math == CUBLAS_TF32_TENSOR_OP_MATH;
	int ar = ta == CUBLAS_OP_N ? m : k, ac = ta == CUBLAS_OP_N ? k : m;
	int br = tb == CUBLAS_OP_N ? k : n, bc = tb == CUBLAS_OP_N ? n : k;

	if (!on_device("A", A, ar, ac, lda) || !on_device("B", B, br, bc, ldb) || !on_device("C", C, m, n, ldc))
		return CUBLAS_STATUS_INVALID_VALUE;
	for (int j = 0; j < n; j++)
		for (int i = 0; i < m; i++) {
			float acc = 0.0f;
			for (int p = 0; p < k; p++) {
				float a = ta == CUBLAS_OP_N ? A[i + (int64_t)p * lda] : A[p + (int64_t)i * lda];
				float b = tb == CUBLAS_OP_N ? B[p + (int64_t)j * ldb] : B[j + (int64_t)p * ldb];
				if (tf32) {
					a = cusim_tf32(a);
					b = cusim_tf32(b);
				}
				acc = fmaf(a, b, acc);
			}
			float *c = &C[i + (int64_t)j * ldc];
			*c = beta == 0.0f ? alpha * acc : fmaf(beta, *c, alpha * acc);
		}
	return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t check_args(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
				 int lda, int ldb, int ldc)
{
	if (!h)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	int ok_op = (ta == CUBLAS_OP_N || ta == CUBLAS_OP_T) && (tb == CUBLAS_OP_N || tb == CUBLAS_OP_T);
	int ar = ta == CUBLAS_OP_N ? m : k, br = tb == CUBLAS_OP_N ? k : n;
	if (!ok_op || m < 0 || n < 0 || k < 0 || lda < (ar > 1 ? ar : 1) || ldb < (br > 1 ? br : 1) ||
	    ldc < (m > 1 ? m : 1)) {
		cusim_say("cuBLAS sgemm: invalid arguments (op %d %d, m %d n %d k %d, lda %d ldb %d ldc %d)", (int)ta,
			  (int)tb, m, n, k, lda, ldb, ldc);
		return CUBLAS_STATUS_INVALID_VALUE;
	}
	return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t sim_sgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
				const float *alpha, const float *A, int lda, const float *B, int ldb, const float *beta,
				float *C, int ldc)
{
	cublasStatus_t s = check_args(h, ta, tb, m, n, k, lda, ldb, ldc);

	if (s != CUBLAS_STATUS_SUCCESS)
		return s;
	if (cusim_capture_broken())
		return CUBLAS_STATUS_EXECUTION_FAILED;
	if (cusim_capturing()) { // recorded with alpha and beta as they are now (host pointer mode)
		float al = *alpha, be = *beta;
		cusim_record([=]() { sim_sgemm(h, ta, tb, m, n, k, &al, A, lda, B, ldb, &be, C, ldc); });
		return CUBLAS_STATUS_SUCCESS;
	}
	return gemm1(h, ta, tb, m, n, k, *alpha, A, lda, B, ldb, *beta, C, ldc);
}

static cublasStatus_t sim_sgemm_strided_batched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
						int n, int k, const float *alpha, const float *A, int lda,
						long long sa, const float *B, int ldb, long long sb, const float *beta,
						float *C, int ldc, long long sc, int batches)
{
	cublasStatus_t s = check_args(h, ta, tb, m, n, k, lda, ldb, ldc);

	if (s == CUBLAS_STATUS_SUCCESS && batches < 0)
		s = CUBLAS_STATUS_INVALID_VALUE;
	if (s == CUBLAS_STATUS_SUCCESS && cusim_capture_broken())
		return CUBLAS_STATUS_EXECUTION_FAILED;
	if (s == CUBLAS_STATUS_SUCCESS && cusim_capturing()) {
		float al = *alpha, be = *beta;
		cusim_record([=]() {
			sim_sgemm_strided_batched(h, ta, tb, m, n, k, &al, A, lda, sa, B, ldb, sb, &be, C, ldc, sc, batches);
		});
		return CUBLAS_STATUS_SUCCESS;
	}
	for (int b = 0; b < batches && s == CUBLAS_STATUS_SUCCESS; b++)
		s = gemm1(h, ta, tb, m, n, k, *alpha, A + b * sa, lda, B + b * sb, ldb, *beta, C + b * sc, ldc);
	return s;
}

int cu_blas_load(char *, size_t)
{
	cu_blas.create = sim_create;
	cu_blas.destroy = sim_destroy;
	cu_blas.set_stream = sim_set_stream;
	cu_blas.set_math_mode = sim_set_math_mode;
	cu_blas.sgemm = sim_sgemm;
	cu_blas.sgemm_strided_batched = sim_sgemm_strided_batched;
	cu_blas.status_string = sim_status_string;
	cu_blas.get_property = sim_get_property;
	return 0;
}
