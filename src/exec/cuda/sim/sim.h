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
 * - launch geometry within the device's limits; a kernel that calls __syncthreads() or a warp shuffle
 *   (__shfl_sync, __shfl_down_sync, __shfl_xor_sync) must be launched with CU_LAUNCH_SYNC (its block's threads
 *   then run side by side as coroutines: a thread at a barrier waits there for every thread still running, a
 *   shuffle's lanes meet at it); a shuffle fails the run when
 *   its lane is not in its mask, or when the lane it reads is not in the mask, does not exist, or did not reach
 *   the same shuffle (a lane that left the loop, or took another branch: undefined on the GPU);
 * - faults are sticky, as a CUDA context's are: after one, every call fails;
 * - stream capture and graphs (cudaStreamBeginCapture, cudaGraphInstantiate, cudaGraphLaunch): while the stream is
 *   captured, launches, copies, memsets and library calls are recorded (their arguments as they were), not run;
 *   cudaMallocAsync gives graph memory at an address fixed for the graph, live from its allocation at a launch to
 *   its free (in the graph, or after the launch outside it); a graph launched while its memory from the last launch
 *   is still live fails unless instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch.  A call the capture
 *   cannot take invalidates it, with a line on stderr: a wait for the stream, a synchronous copy, allocation or
 *   free, a copy from or to pageable host memory, a free of memory that is not the capture's, a cuDNN search.
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
#include <string.h>

#include <functional>

extern uint3 threadIdx, blockIdx; /* the simulator runs every thread on one OS thread */
extern dim3 blockDim, gridDim;

void __syncthreads(void);

/* Warp shuffles, as CUDA defines them for a width of 1, 2, 4, ... 32 lanes: every lane in mask gives v and gets
 * the v of another lane of its segment of width lanes, whose index is src (CUSIM_SHFL_IDX: src mod width),
 * lane + src (DOWN: its own v past the segment's end) or lane ^ src (XOR: its own v past the segment's end). */
enum { CUSIM_SHFL_IDX, CUSIM_SHFL_DOWN, CUSIM_SHFL_XOR };
unsigned long long cusim_shfl(unsigned mask, unsigned long long v, int kind, int src, int width);

template <typename T> static inline T cusim_shfl_t(unsigned mask, T v, int kind, int src, int width)
{
	static_assert(sizeof(T) <= sizeof(unsigned long long), "a shuffle moves at most 64 bits");
	unsigned long long b = 0;
	memcpy(&b, &v, sizeof v);
	b = cusim_shfl(mask, b, kind, src, width);
	memcpy(&v, &b, sizeof v);
	return v;
}
template <typename T> static inline T __shfl_sync(unsigned mask, T v, int src, int width = 32)
{
	return cusim_shfl_t(mask, v, CUSIM_SHFL_IDX, src, width);
}
template <typename T> static inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
	return cusim_shfl_t(mask, v, CUSIM_SHFL_DOWN, (int)delta, width);
}
template <typename T> static inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32)
{
	return cusim_shfl_t(mask, v, CUSIM_SHFL_XOR, lane_mask, width);
}

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

/* Stream capture (sim.cc): a launch while the stream is captured is recorded, its arguments copied, and runs (with
 * the checks above) at each launch of the graph. */
int cusim_capturing(void);
int cusim_capture_broken(void);
void cusim_record(std::function<void()> work);

template <typename... P, typename... A>
static inline void cusim_launch(const char *name, dim3 grid, dim3 block, int sync, void (*kernel)(P...), A &&...args)
{
	if (cusim_capture_broken())
		return; // the capture is invalidated: the launch fails (cusim_capture_broken set the error)
	if (cusim_capturing()) {
		cusim_record([=]() { cusim_launch(name, grid, block, sync, kernel, args...); });
		return;
	}
	int i = 0;
	(cusim_arg(name, i++, args), ...);
	auto call = [&]() { kernel(args...); };
	cusim_run(name, grid, block, sync, [](void *c) { (*(decltype(call) *)c)(); }, &call);
}

#endif
