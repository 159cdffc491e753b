/* What this build of onnxview is: version, and the CUDA backend's state (built or not, which device it sees). */
#ifndef OV_VERSION_H
#define OV_VERSION_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Describe the CUDA runtime and device into buf, one line. Returns 1 if a usable device was found, 0 if the
 * backend is built but sees no device, -1 if the backend is not built. Never aborts. */
int ov_cuda_describe(char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
