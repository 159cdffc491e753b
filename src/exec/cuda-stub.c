/* Stand-in for the CUDA device query when onnxview is built without CUDA. */
#include "config.h"

#include <stdio.h>

#include "src/version.h"

int ov_cuda_describe(char *buf, size_t n)
{
	snprintf(buf, n, "not built (configure found no nvcc, or --with-cuda=no)");
	return -1;
}
