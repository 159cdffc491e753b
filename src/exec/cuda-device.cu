// The CUDA backend's device query: which runtime, driver and GPU this build sees (used by --version).
#include <cuda_runtime.h>
#include <stdio.h>

#include "src/version.h"

extern "C" int ov_cuda_describe(char *buf, size_t n)
{
	int runtime = 0, driver = 0, count = 0;
	cudaError_t e;

	cudaRuntimeGetVersion(&runtime);
	e = cudaDriverGetVersion(&driver);
	if (e == cudaSuccess)
		e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count == 0) {
		snprintf(buf, n, "built (CUDA runtime %d.%d); no usable device: %s", runtime / 1000, (runtime % 1000) / 10,
			 e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device found");
		cudaGetLastError();
		return 0;
	}
	cudaDeviceProp p;
	if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
		snprintf(buf, n, "built (CUDA runtime %d.%d); device 0 cannot be queried", runtime / 1000,
			 (runtime % 1000) / 10);
		return 0;
	}
	snprintf(buf, n, "built (CUDA runtime %d.%d, driver %d.%d); device 0: %s, compute %d.%d, %zu MiB%s",
		 runtime / 1000, (runtime % 1000) / 10, driver / 1000, (driver % 1000) / 10, p.name, p.major, p.minor,
		 (size_t)(p.totalGlobalMem >> 20), count > 1 ? " (more devices present)" : "");
	return 1;
}
