/* What the host simulator's files share (src/exec/cuda-sim*.cc; tests only, see cuda/sim/sim.h). */
#ifndef OV_EXEC_CUDA_SIMLIB_H
#define OV_EXEC_CUDA_SIMLIB_H

#include <cuda_runtime.h>
#include <stddef.h>

/* A line on stderr, "cudasim: ...": what the simulator refused, and why. */
void cusim_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 1 when [p, p + n) lies inside one live device allocation. */
int cusim_is_device(const void *p, size_t n);
/* Round a float32 to TF32 (10 mantissa bits, to nearest even), as tensor cores read their inputs. */
float cusim_tf32(float v);

#endif
