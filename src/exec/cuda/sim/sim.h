/* A host simulator of the CUDA device, for tests only: the CUDA backend's files compiled by the host C++ compiler
 * with -DOV_CUDA_SIM and linked with src/exec/cuda-sim*.cc instead of the CUDA runtime, cuBLAS and cuDNN, make
 * tests/onnxview-cudasim, which runs `--backend cuda` on a machine without a GPU.
 *
 * What it proves: the backend's own code (launch geometry, index arithmetic, every kernel, which buffer is on which
 * side, descriptor set-up, the cuBLAS and cuDNN calls' arguments, error paths) against the documented semantics of
 * the calls.  What it cannot: the GPU's arithmetic (its kernels use fmaf where the hardware would fuse, which is
 * close but not the same), the libraries' own kernels, timing, or races between threads of a block.  Its checks,
 * each failing the run the way the device would, with a line on stderr saying what the simulator saw:
 * - device memory is its own (filled with 0xff bytes, NaN as float, so reading what nobody wrote shows), and every
 *   copy, memset and library call must stay inside allocations on the side its direction says;
 * - a kernel's pointer arguments must point into live device allocations (a host pointer faults, as on the GPU);
 * - launch geometry within the device's limits; a kernel that calls __syncthreads() must be launched with
 *   CU_LAUNCH_SYNC (its block's threads then run side by side as coroutines, meeting at each barrier);
 * - faults are sticky, as a CUDA context's are: after one, every call fails.
 * Environment: OV_CUDASIM_DEVICES=0 (no device), OV_CUDASIM_MEM=BYTES (device memory; allocations past it fail),
 * OV_CUDASIM_FAULT=KERNEL (that kernel's launch faults with an illegal address), OV_CUDASIM_HANG=KERNEL (that
 * kernel never ends: the stream is never ready again, cudaStreamSynchronize waits for ever), OV_CUDASIM_STATS=1 (copies,
 * bytes, launches and peak device memory printed on stderr at exit). */
#ifndef OV_EXEC_CUDA_SIM_H
#define OV_EXEC_CUDA_SIM_H

/* shared memory: one array per block; blocks run one after the other, so a static array is the block's */
#define __shared__ static
#include <cuda_runtime.h>

#include <stdint.h>

extern uint3 threadIdx, blockIdx; /* the simulator runs every thread on one OS thread */
extern dim3 blockDim, gridDim;

void __syncthreads(void);

/* Atomics: the simulator runs one thread at a time and switches only at barriers, so a plain read-modify-write is
 * atomic; each returns the old value, as CUDA's do. */
static inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v)
{
	unsigned long long old = *p;
	if (v > old)
		*p = v;
	return old;
}
static inline unsigned long long atomicMin(unsigned long long *p, unsigned long long v)
{
	unsigned long long old = *p;
	if (v < old)
		*p = v;
	return old;
}

/* Check the pointer argument i of kernel name (it must point into device memory, or be NULL). */
void cusim_check_ptr(const char *name, int i, const void *p);
/* Run thunk(ctx) once per thread of the grid (sync: a block's threads side by side, for barriers). */
void cusim_run(const char *name, dim3 grid, dim3 block, int sync, void (*thunk)(void *), void *ctx);

template <typename T> static inline void cusim_arg(const char *, int, const T &)
{
}
template <typename T> static inline void cusim_arg(const char *name, int i, T *p)
{
	cusim_check_ptr(name, i, (const void *)p);
}

template <typename... P, typename... A>
static inline void cusim_launch(const char *name, dim3 grid, dim3 block, int sync, void (*kernel)(P...), A &&...args)
{
	int i = 0;
	(cusim_arg(name, i++, args), ...);
	auto call = [&]() { kernel(args...); };
	cusim_run(name, grid, block, sync, [](void *c) { (*(decltype(call) *)c)(); }, &call);
}

#endif
