// The CUDA backend's device query: which runtime, libraries, driver and GPU this build sees (used by --version).
// The library versions come from cublasGetProperty and cudnnGetVersion, which need no GPU (both libraries are
// loaded for it: see cuda/blas.h and cuda/dnn.h).
#include "config.h"

#include <cuda_runtime.h>
#include <stdio.h>

#include "src/exec/cuda/blas.h"
#include "src/exec/cuda/dnn.h"
#include "src/exec/device.h"

// "CUDA runtime 13.0, cuBLAS 13.1.0, cuDNN 9.19.0"
static void libraries(char *buf, size_t n)
{
	int runtime = 0, bmaj = 0, bmin = 0, bpatch = 0;
	char blas[96], dnn[96], why[512];

	cudaRuntimeGetVersion(&runtime);
	if (cu_blas_load(why, sizeof why)) {
		snprintf(blas, sizeof blas, "cuBLAS not loadable (%.60s)", why);
	} else {
		cu_blas.get_property(MAJOR_VERSION, &bmaj);
		cu_blas.get_property(MINOR_VERSION, &bmin);
		cu_blas.get_property(PATCH_LEVEL, &bpatch);
		snprintf(blas, sizeof blas, "cuBLAS %d.%d.%d", bmaj, bmin, bpatch);
	}
	if (cu_dnn_load(why, sizeof why)) {
		snprintf(dnn, sizeof dnn, "cuDNN not loadable (%.60s)", why);
	} else {
		// cuDNN 9 counts major * 10000 + minor * 100 + patch; cuDNN 8 counted major * 1000 + minor * 100 + patch
		size_t dv = cu_dnn.get_version();
		size_t dmaj = dv >= 90000 ? dv / 10000 : dv / 1000, dmin = dv >= 90000 ? dv / 100 % 100 : dv / 100 % 10;
		snprintf(dnn, sizeof dnn, "cuDNN %zu.%zu.%zu", dmaj, dmin, dv % 100);
	}
	snprintf(buf, n, "CUDA runtime %d.%d, %s, %s", runtime / 1000, (runtime % 1000) / 10, blas, dnn);
}

extern "C" int ov_cuda_describe(char *buf, size_t n)
{
	int driver = 0, count = 0;
	char libs[256];
	cudaError_t e;

	libraries(libs, sizeof libs);
	e = cudaDriverGetVersion(&driver);
	if (e == cudaSuccess)
		e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count == 0) {
		snprintf(buf, n, "built (%s); no usable device: %s", libs,
			 e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device found");
		cudaGetLastError();
		return 0;
	}
	cudaDeviceProp p;
	if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
		snprintf(buf, n, "built (%s); device 0 cannot be queried", libs);
		cudaGetLastError();
		return 0;
	}
	snprintf(buf, n, "built (%s, driver %d.%d); device 0: %s, compute %d.%d, %zu MiB%s", libs, driver / 1000,
		 (driver % 1000) / 10, p.name, p.major, p.minor, (size_t)(p.totalGlobalMem >> 20),
		 count > 1 ? " (more devices present)" : "");
	return 1;
}
