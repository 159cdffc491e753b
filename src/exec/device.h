/* What this build of onnxview is: version, the CUDA backend's state (built or not, which device it sees), and the
 * CPU's CBLAS. */
#ifndef OV_VERSION_H
#define OV_VERSION_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Describe the CUDA runtime and device into buf, one line. Returns 1 if a usable device was found, 0 if the
 * backend is built but sees no device, -1 if the backend is not built. Never aborts. */
int ov_cuda_describe(char *buf, size_t n);

/* Describe the CBLAS library the CPU's products use into buf, one line (loading it, as a run would): which one,
 * or that none was found and which names were tried.  Returns 1 when one is loaded, 0 when none. */
int ov_cblas_describe(char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
