/* The CUDA backend's insides, shared by its files (C++, compiled by nvcc): the device state, checks that turn every
 * CUDA, cuBLAS and cuDNN failure into the node's error message (never an abort), transfers between the host
 * xtensors the runner hands over and device buffers, element access for the float types, and the kernel tables of
 * the op families (src/exec/cuda-*.cu, one family per file).
 *
 * How a node runs: a kernel checks its inputs' types and shapes first and answers EXEC_DECLINE for anything it
 * does not handle (an element type, a rank, or inputs the CPU kernel would refuse: the CPU then runs the node, or
 * names the problem in its own words); only then does it allocate its outputs (xk_output_raw: the host buffer a
 * value comes back to if anyone asks), take its inputs on the device (cu_input*), run, and hand each output's
 * device buffer over (cu_output*), which waits for the device so that an error is this node's.
 *
 * Where values live: on the device, from the node that computes them to their last consumer, like the CPU
 * backend's values (the runner frees both copies after the last use).  A device value is an xtensor whose dev
 * holds the device buffer and whose host data is stale (xtensor.h); cu_input uses dev when there is one, and
 * otherwise uploads the host data once and keeps the upload on the tensor (graph inputs, constants, what a CPU
 * node computed), so a value crosses the bus at most once each way.  The runner copies a value to the host only
 * for a node the CPU runs and for the values the run hands back. */
#ifndef OV_EXEC_CUDA_BACKEND_H
#define OV_EXEC_CUDA_BACKEND_H

#ifdef OV_CUDA_SIM
#include "src/exec/cuda/sim/sim.h" /* the host simulator's stand-ins for the device built-ins (tests only) */
#else
#include <cuda_runtime.h>
#endif
#include <cudnn.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#include "src/base/dtype.h"
#include "src/exec/ops/ops.h"
#include "src/exec/exec.h"
}
#include "src/exec/cuda/blas.h"
#include "src/exec/cuda/dnn.h"
#include "src/exec/ops/ov-math.h"

/* The device, set up once by exec_backend_cuda(). */
struct cu_state {
	int ready;
	cudaStream_t stream;  /* every copy, kernel and library call of the backend runs on it */
	cublasHandle_t blas;  /* NULL until a node needs it (cu_need_blas) */
	cudnnHandle_t dnn;    /* NULL until a node needs it (cu_need_dnn) */
	int pools;            /* stream-ordered allocation (cudaMallocAsync) is available */
	cudaMemPool_t pool;   /* the device's default pool, which cudaMallocAsync takes from */
	int tf32;             /* exec_cuda_set_tf32() */
	int sync_each;        /* wait for the device after every node (the first run of a graph: cuda_run_node) */
};
extern struct cu_state cu_dev;

/* Checks: 0, or -1 with the node's error naming the call and the library's message. */
int cu_ok(struct exec_kernel_ctx *k, cudaError_t e, const char *call);
int cu_blas_ok(struct exec_kernel_ctx *k, cublasStatus_t s, const char *call);
int cu_dnn_ok(struct exec_kernel_ctx *k, cudnnStatus_t s, const char *call);
#define CU_OK(k, call) cu_ok((k), (call), #call)
#define CU_BLAS_OK(k, call) cu_blas_ok((k), (call), #call)
#define CU_DNN_OK(k, call) cu_dnn_ok((k), (call), #call)
/* Every wait for the device: the backend's stream drained, within a deadline (OV_CUDA_TIMEOUT seconds, default
 * CU_WAIT_DEFAULT_S; 0 waits as long as it takes), so a device that stops answering (a kernel that never ends, a GPU
 * held by a stuck process) ends the run with one line instead of a wait without end.  cu_sync gives the stream's
 * error, or cudaErrorTimeout after which the device is given up for the session (later runs say so); cu_sync_ok is
 * the same as the node's error.  A copy to pageable host memory waits for the work queued before it, so the
 * backend drains the stream with cu_sync before each one; a wait left to cudaStreamSynchronize, cudaMemcpy or
 * cudaDeviceSynchronize would have no deadline. */
#define CU_WAIT_DEFAULT_S 120.0
cudaError_t cu_sync(void);
int cu_sync_ok(struct exec_kernel_ctx *k);
/* After a kernel launch: the launch's own error (errors while it runs surface at the next synchronisation, which
 * cu_output does). */
int cu_launched(struct exec_kernel_ctx *k, const char *kernel);

/* Launch kernel(args...) on the backend's stream with grid blocks of block threads: 0, or -1 with the node's
 * error naming the kernel.  CU_LAUNCH_SYNC is for kernels that call __syncthreads() or a warp shuffle: on the GPU
 * both are the same launch; the host simulator (tests/onnxview-cudasim, src/exec/cuda/sim/sim.cc) runs a block's
 * threads one after the other for CU_LAUNCH, and side by side, switching at each barrier and shuffle, for
 * CU_LAUNCH_SYNC (a barrier or shuffle reached in a CU_LAUNCH kernel fails the run there, so a wrong macro cannot
 * pass the tests). */
#ifdef OV_CUDA_SIM
#define CU_LAUNCH(k, kernel, grid, block, ...) \
	(cusim_launch(#kernel, (grid), (block), 0, kernel, __VA_ARGS__), cu_launched((k), #kernel))
#define CU_LAUNCH_SYNC(k, kernel, grid, block, ...) \
	(cusim_launch(#kernel, (grid), (block), 1, kernel, __VA_ARGS__), cu_launched((k), #kernel))
#else
#define CU_LAUNCH(k, kernel, grid, block, ...) \
	(kernel<<<(grid), (block), 0, cu_dev.stream>>>(__VA_ARGS__), cu_launched((k), #kernel))
#define CU_LAUNCH_SYNC CU_LAUNCH
#endif

/* The device buffers of one node, freed together by cu_bufs_free (a buffer handed over as an output by cu_output
 * leaves the set). */
#define CU_MAX_BUFS 16
struct cu_bufs {
	void *p[CU_MAX_BUFS];
	int n;
};
/* bytes of device memory (at least 1), or NULL with the node's error set */
void *cu_alloc(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t bytes);
void cu_bufs_free(struct cu_bufs *b);
/* cuBLAS and cuDNN, loaded and started (their handles in cu_dev) by the first node that needs them: 0, or -1
 * with the node's error saying why the library cannot be used (the same for every later node). */
int cu_need_blas(struct exec_kernel_ctx *k);
int cu_need_dnn(struct exec_kernel_ctx *k);
/* The backend's one workspace for library calls (cuDNN's convolutions), at least bytes long, kept for the session
 * and grown when a call needs more; NULL with the node's error set.  Every user runs on the backend's one stream,
 * so the calls that share it follow each other. */
void *cu_workspace(struct exec_kernel_ctx *k, size_t bytes);
/* Changes whenever the workspace moves or goes (a graph recorded with it is then out of date). */
extern unsigned cu_ws_gen;
/* bytes of device memory for a try that can do without (cudnnFind's workspace), or NULL, no error set; freed with
 * cu_scratch_free (stream-ordered, like every free of the backend) */
void *cu_scratch(size_t bytes);
void cu_scratch_free(void *p);
/* Input i on the device, in its own element type (its device copy, made now if it has none; the tensor keeps
 * it); NULL with the node's error set. */
const void *cu_input(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t i);
/* The same for the other input of the Add the runner offers to fuse (k->add). */
const void *cu_add_input(struct exec_kernel_ctx *k);
/* The same for the MatMul's other operand the runner offers with a Transpose (k->mm->other). */
const void *cu_mm_other_input(struct exec_kernel_ctx *k);
/* A Transpose (input 0 of k's node, perm normalised, rank entries) taken into the MatMul the runner offers after it
 * (k->mm; cuda/gemm.cu), and the Transpose after that when there is one and the output can be written through it:
 * 1 when done (the last one's output written as output 0, mm_done's bits set), 0 when the product cannot read the
 * operand so (the Transpose runs as usual), -1 with the node's error set. */
int cu_transpose_into_matmul(struct exec_kernel_ctx *k, const int *perm);
/* Copy bytes of host memory (a kernel's own table: indices, weights...) to dev, counted with the run's copies
 * to the device: 0, or -1 with the node's error set.  The host memory may be freed when it returns. */
int cu_upload(struct exec_kernel_ctx *k, void *dev, const void *host, size_t bytes);
/* Copy bytes of device memory (a kernel's own small result, such as where it met a value it must refuse) to host,
 * after the node's work so far, counted with the run's copies to the host: 0, or -1 with the node's error set. */
int cu_download(struct exec_kernel_ctx *k, void *host, const void *dev, size_t bytes);
/* Input i readable on the host (k->in[i] itself, its host copy brought up to date first when the value lives on
 * the device): for the few inputs a kernel reads on the host, such as Clip's bounds, Reshape's shape or Slice's
 * starts.  Reading k->in[i]->data without it is a bug: a value computed on the device has no host copy yet.
 * NULL (with the node's error set) when the input is missing or cannot be copied. */
const struct xtensor *cu_host(struct exec_kernel_ctx *k, size_t i);
/* Input i on the device as float32 (float16 and bfloat16 are converted there, as the CPU kernels convert them
 * before computing in float32); NULL with the node's error set. */
const float *cu_input_f32(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t i);
/* Input i on the device in the type the kernels that compute in float32 or float64 read: float64 as it is, the
 * other float types as float32 (cu_input_f32); *dt says which (OV_DT_DOUBLE or OV_DT_FLOAT). */
const void *cu_input_fd(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t i, int *dt);
/* Hand dev (output i's elements in its type, a buffer of b from cu_alloc) over as output i's value, k->out[i]
 * (already allocated by xk_output*), and wait for the device when the run waits after every node (cu_dev.sync_each:
 * the first run of a graph), so that every error of the node's work surfaces here. */
int cu_output(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t i, void *dev);
/* The same from float32 values, rounded on the device to output i's type (float16, bfloat16) when it differs. */
int cu_output_f32(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t i, float *dev);
/* Output i from dev computed in dt (cu_input_fd's): cu_output for float64, cu_output_f32 otherwise. */
int cu_output_fd(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t i, void *dev, int dt);

/* What follows a product (Conv, MatMul, Gemm), per element t of a float32 output, each step the float operation its
 * own kernel makes, so that fusing changes no bit: + bias[(t / b_inner) % b_m] (a Conv's bias), + add[t] or, with
 * add_row, + add[t % add_row] (an Add the runner offered: a residual of the output's shape, or a bias over its
 * last axis), then Relu, Clip or SiLU (act; SiLU after a Conv only). */
struct cu_epi {
	const float *bias;
	int64_t b_inner, b_m;
	const float *add;
	int64_t add_row;
	struct exec_act act;
};
/* e's steps on element t of the output, holding v. */
static __device__ __forceinline__ float cu_epi_apply(const struct cu_epi &e, int64_t t, float v)
{
	if (e.bias)
		v += e.bias[(t / e.b_inner) % e.b_m];
	if (e.add)
		v = v + e.add[e.add_row ? t % e.add_row : t];
	if (e.act.kind == EXEC_ACT_RELU)
		v = ov_relu_f(v);
	else if (e.act.kind == EXEC_ACT_CLIP)
		v = ov_clip_f(v, e.act.lo, e.act.hi);
	else if (e.act.kind == EXEC_ACT_SILU) // a Sigmoid's value, then the Mul's product (no contraction: -fmad=false)
		v = v * ov_sigmoid_f(v);
	return v;
}
/* The runner's offers y takes (exec_kernel_ctx.act, .add, add_act; the done flags set): an Add of a float32 value
 * of y's shape or of its last axis alone (broadcast over the rows), with the Relu or Clip after it, or else the Relu
 * or Clip right after the node.  e is filled (no bias); 0, or -1 with the node's error set. */
int cu_take_offers(struct exec_kernel_ctx *k, const struct xtensor *y, struct cu_epi *e);
/* e applied to y's total elements, one launch, none when there is nothing to do: 0, or -1 with the error set. */
int cu_epilogue(struct exec_kernel_ctx *k, float *y, int64_t total, const struct cu_epi *e);

/* ---- CUDA graphs (cuda/capture.cu) ----
 * A warm run recorded as a CUDA graph and replayed (exec_backend_ops.graph_*, by default; OV_CUDA_GRAPH=0 turns it off): while
 * the stream is captured, the backend's own calls behave as a recording needs them to:
 * - cu_alloc and the other allocations become the graph's memory (cu_cap_allocated); a free of one of them is a free
 *   in the graph, a free of memory from before the capture waits until the graph has run (cu_cap_free);
 * - copies to the device go through the capture's pinned arena (cu_cap_stage), which each launch refills with the
 *   graph's inputs and leaves as it was for the rest (values computed on the host from shapes: the same for the
 *   same input shapes);
 * - a wait for the device (cu_sync) fails the node: a node that reads the device's results on the host cannot be
 *   recorded, and the run is redone without a graph (the runner's part);
 * - a kept constant copied to the device for the first time fails the node the same way (cu_cap_may_upload), and an
 *   input read on the host (cu_host) is remembered: a launch with other bytes there runs the nodes instead. */
int cu_capturing(void);
void cu_cap_allocated(void *p);
int cu_cap_free(void *p); /* 1 when p was taken care of (freed in the graph, later, or was no memory) */
const void *cu_cap_stage(struct exec_kernel_ctx *k, const void *host, size_t bytes, int *failed);
int cu_cap_may_upload(struct exec_kernel_ctx *k, const struct xtensor *t);
void cu_cap_host_read(const struct xtensor *t);
void cu_cap_run_end(void); /* after a run: a dropped capture's memory is forgotten */
/* The backend's raw allocation (stream-ordered from the pool when there is one), free, and a device copy attached
 * to a tensor (host_stale: the host data is not current), for cuda/capture.cu. */
cudaError_t cu_raw_alloc(void **p, size_t bytes);
void cu_raw_free(void *p);
void cu_attach(const struct xtensor *t, void *dev, int host_stale);
int cu_graph_begin(const struct xtensor *kept, size_t n_kept, uint64_t up_bytes, uint64_t ups, struct ov_error *err);
int cu_graph_input(struct xtensor *t, struct ov_error *err);
void *cu_graph_end(int keep, struct ov_error *err);
int cu_graph_launch(void *graph, const struct xtensor *const *inputs, size_t n, struct ov_error *err);
void cu_graph_free(void *graph);

/* The device and the cuDNN version loaded, as one word (the plan cache's key: src/exec/cuda/plancache.h). */
const char *cu_device_id(void);

/* Launch geometry for grid-stride loops over n elements. */
#define CU_BLOCK 256
static inline unsigned cu_grid(int64_t n)
{
	int64_t g = (n + CU_BLOCK - 1) / CU_BLOCK;
	return g < 1 ? 1u : g > 65535 ? 65535u : (unsigned)g;
}

#define CU_FOR(i, n) \
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (int64_t)gridDim.x * blockDim.x)

/* The element types the float kernels take, all computed in float32 like the CPU backend does. */
static inline int cu_float_type(int32_t dt)
{
	return dt == OV_DT_FLOAT || dt == OV_DT_FLOAT16 || dt == OV_DT_BFLOAT16;
}

static __device__ __forceinline__ float cu_load(const void *p, int dt, int64_t i)
{
	if (dt == OV_DT_FLOAT)
		return ((const float *)p)[i];
	if (dt == OV_DT_FLOAT16)
		return ov_f16_to_f32(((const uint16_t *)p)[i]);
	return ov_bf16_to_f32(((const uint16_t *)p)[i]);
}

static __device__ __forceinline__ void cu_store(void *p, int dt, int64_t i, float v)
{
	if (dt == OV_DT_FLOAT)
		((float *)p)[i] = v;
	else if (dt == OV_DT_FLOAT16)
		((uint16_t *)p)[i] = ov_f32_to_f16(v);
	else
		((uint16_t *)p)[i] = ov_f32_to_bf16(v);
}

/* Element-wise launchers (cuda/elementwise.cu), shared with cuda/logic.cu.  op is one of cuda/points.h's
 * cu_un_op / cu_bin_op, computed per element in a domain of the CPU's (cuda/points.h's cu_dom: the type the CPU
 * converts the operands to); doms is the set of domains the op takes (CU_D_* bits, the loops its CPU family has).
 * Each answers EXEC_DECLINE for inputs outside that (the CPU then runs the node, or names the problem), else runs
 * the node like any kernel (0, or -1 with the node's error).
 * - cu_ew_unary: output 0 = op(input 0), of input 0's type, or bool (out_bool); a, b: the op's parameters;
 * - cu_ew_binary: output 0 = op(input 0, input 1), numpy-broadcast, both inputs of one type, the output of that
 *   type or bool (out_bool);
 * - cu_ew_binary_as: the same in the domain dom, for inputs of any types, into an output of type out_dt (Pow, whose
 *   exponent may be of another type, and BitShift, which the CPU computes in uint64). */
int cu_ew_unary(struct exec_kernel_ctx *k, int op, unsigned doms, int out_bool, float a, float b);
int cu_ew_binary(struct exec_kernel_ctx *k, int op, unsigned doms, int out_bool);
int cu_ew_binary_as(struct exec_kernel_ctx *k, int op, int dom, int32_t out_dt);
/* ---- elements moved whole, whatever they hold (cuda/shape.cu, cuda/index.cu, cuda/scatter.cu) ---- */

/* The size in which elements of dt are moved, 0 for types left to the CPU (strings are pointers on the host,
 * sub-byte types have no element of their own). */
static inline size_t cu_move_size(int32_t dt)
{
	size_t es = dt == OV_DT_STRING ? 0 : xt_elem_size(dt);
	return es == 1 || es == 2 || es == 4 || es == 8 || es == 16 ? es : 0;
}

/* Elements of 16 bytes (complex128) move as one of these. */
struct cu_b16 {
	uint64_t lo, hi;
};

/* fn<T>(args...) with T an unsigned type of es bytes (one of cu_move_size's). */
#define CU_BY_SIZE(es, fn, ...)                                                                           \
	((es) == 1 ? fn<uint8_t>(__VA_ARGS__) : (es) == 2 ? fn<uint16_t>(__VA_ARGS__)                     \
	 : (es) == 4 ? fn<uint32_t>(__VA_ARGS__) : (es) == 8 ? fn<uint64_t>(__VA_ARGS__)                  \
	 : fn<struct cu_b16>(__VA_ARGS__))

/* The chain of element-wise nodes the runner offers (exec_kernel_ctx.chain) as one kernel (cuda/chain.cu): 0 with
 * chain_done set, EXEC_DECLINE (the node's own kernel runs), or -1 with the node's error. */
int cu_chain(struct exec_kernel_ctx *k);

/* The op families' kernels (each file's table; the backend looks ops up in all of them). */
extern const struct exec_kernel cuda_elementwise_kernels[];
extern const size_t cuda_elementwise_count;
extern const struct exec_kernel cuda_logic_kernels[];
extern const size_t cuda_logic_count;
extern const struct exec_kernel cuda_gemm_kernels[];
extern const size_t cuda_gemm_count;
extern const struct exec_kernel cuda_conv_kernels[];
extern const size_t cuda_conv_count;
extern const struct exec_kernel cuda_pool_kernels[];
extern const size_t cuda_pool_count;
extern const struct exec_kernel cuda_norm_kernels[];
extern const size_t cuda_norm_count;
extern const struct exec_kernel cuda_shape_kernels[];
extern const size_t cuda_shape_count;
extern const struct exec_kernel cuda_reduce_kernels[];
extern const size_t cuda_reduce_count;
extern const struct exec_kernel cuda_resize_kernels[];
extern const size_t cuda_resize_count;
extern const struct exec_kernel cuda_rnn_kernels[];
extern const size_t cuda_rnn_count;
extern const struct exec_kernel cuda_quant_kernels[];
extern const size_t cuda_quant_count;
extern const struct exec_kernel cuda_index_kernels[];
extern const size_t cuda_index_count;
extern const struct exec_kernel cuda_scatter_kernels[];
extern const size_t cuda_scatter_count;
extern const struct exec_kernel cuda_attention_kernels[];
extern const size_t cuda_attention_count;

#endif
