/* Stand-in for the CUDA backend when onnxview is built without CUDA: the device query says so, and asking for the
 * backend fails with the reason. */
#include "config.h"

#include <stdio.h>

#include "src/exec/exec.h"
#include "src/exec/device.h"

int ov_cuda_describe(char *buf, size_t n)
{
	snprintf(buf, n, "not built (%s)", OV_NO_CUDA_REASON);
	return -1;
}

const struct exec_backend_ops *exec_backend_cuda(struct ov_error *err)
{
	ov_fail(err, OV_INVALID, "onnxview was built without CUDA (%s)", OV_NO_CUDA_REASON);
	return NULL;
}

void exec_cuda_set_tf32(int on)
{
	(void)on;
}

void exec_cuda_release(void)
{
}
