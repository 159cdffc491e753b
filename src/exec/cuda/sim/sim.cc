// The host simulator's CUDA runtime (see cuda/sim/sim.h): device memory, copies, streams (everything runs at once, in
// order), launches, errors, and one simulated device.  Tests only: linked into tests/onnxview-cudasim.
#include "config.h"

#include <ucontext.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

#include <map>
#include <vector>

#include "src/exec/cuda/sim/sim.h"
#include "src/exec/cuda/sim/simlib.h"

uint3 threadIdx, blockIdx;
dim3 blockDim, gridDim;

// ---- state ----

static struct {
	int init;
	int devices;              // OV_CUDASIM_DEVICES (1 unless set)
	size_t mem_limit;         // OV_CUDASIM_MEM (0: none)
	const char *fault;        // OV_CUDASIM_FAULT
	const char *hang;         // OV_CUDASIM_HANG
	int hung;                 // that kernel ran: the stream never finishes
	int stats;                // OV_CUDASIM_STATS
	std::map<uintptr_t, size_t> *allocs; // live device allocations: start -> bytes
	std::map<uintptr_t, size_t> *pinned; // pinned host memory (cudaHostAlloc): start -> bytes
	size_t in_use, peak;
	cudaError_t last;         // the last launch's error (cudaGetLastError clears it)
	cudaError_t sticky;       // a fault: every later call returns it
	cudaError_t pending;      // a fault while a kernel ran: sticky from the next synchronisation on
	int64_t copies[4], bytes[4], launches, memsets;
	int64_t waits;            // cudaStreamQuery calls: how often the host looked whether the stream was done
	int64_t allocations;      // cudaMalloc and cudaMallocAsync calls that gave memory
} sim;

extern int cusim_blas_started, cusim_dnn_started, cusim_dnn_choices; // blas.cc, dnn.cc

static void report(void)
{
	fprintf(stderr,
		"cudasim: H2D %lld copies %lld bytes, D2H %lld copies %lld bytes, D2D %lld copies %lld bytes, "
		"%lld launches, %lld memsets, %lld waits, cuBLAS started %d, cuDNN started %d, %d convolution heuristics, "
		"%lld allocations, peak device memory %zu bytes, %zu bytes still allocated\n",
		(long long)sim.copies[cudaMemcpyHostToDevice], (long long)sim.bytes[cudaMemcpyHostToDevice],
		(long long)sim.copies[cudaMemcpyDeviceToHost], (long long)sim.bytes[cudaMemcpyDeviceToHost],
		(long long)sim.copies[cudaMemcpyDeviceToDevice], (long long)sim.bytes[cudaMemcpyDeviceToDevice],
		(long long)sim.launches, (long long)sim.memsets, (long long)sim.waits, cusim_blas_started,
		cusim_dnn_started, cusim_dnn_choices, (long long)sim.allocations, sim.peak, sim.in_use);
}

static void setup(void)
{
	if (sim.init)
		return;
	sim.init = 1;
	const char *e = getenv("OV_CUDASIM_DEVICES");
	sim.devices = e ? atoi(e) : 1;
	e = getenv("OV_CUDASIM_MEM");
	sim.mem_limit = e ? strtoull(e, NULL, 10) : 0;
	sim.fault = getenv("OV_CUDASIM_FAULT");
	sim.hang = getenv("OV_CUDASIM_HANG");
	e = getenv("OV_CUDASIM_STATS");
	sim.stats = e && *e == '1';
	sim.allocs = new std::map<uintptr_t, size_t>;
	sim.pinned = new std::map<uintptr_t, size_t>;
	if (sim.stats)
		atexit(report);
}

void cusim_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("cudasim: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

// The allocation holding [p, p + n), or 0 when none does.
int cusim_is_device(const void *p, size_t n)
{
	setup();
	uintptr_t a = (uintptr_t)p;
	auto it = sim.allocs->upper_bound(a);
	if (it == sim.allocs->begin())
		return 0;
	--it;
	return a >= it->first && a - it->first <= it->second && n <= it->second - (a - it->first);
}

// A fault while a kernel runs: the launch itself succeeded.
static void kernel_fault(cudaError_t e)
{
	if (!sim.pending)
		sim.pending = e;
}

// ---- stream capture (the state; the calls are at the end) ----

struct sim_graph;
static struct sim_graph *cap_graph; // the graph being captured (NULL: no capture)
static int cap_broken;              // a call invalidated it

int cusim_capturing(void)
{
	return cap_graph && !cap_broken;
}

int cusim_capture_broken(void)
{
	if (!cap_graph || !cap_broken)
		return 0;
	sim.last = cudaErrorStreamCaptureInvalidated;
	return 1;
}

cudaError_t cusim_capture_break(cudaError_t e, const char *fmt, ...)
{
	va_list ap;

	if (!cap_broken) {
		va_start(ap, fmt);
		fputs("cudasim: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputs(" (the stream is being captured: the capture is invalidated)\n", stderr);
		va_end(ap);
	}
	cap_broken = 1;
	return e;
}

// A call the capture cannot take: the capture is invalidated (or was already: every later call fails).
#define CAPTURE_REFUSES(...) \
	do { \
		if (cap_graph) \
			return cap_broken ? cudaErrorStreamCaptureInvalidated \
					  : cusim_capture_break(cudaErrorStreamCaptureUnsupported, __VA_ARGS__); \
	} while (0)

static int is_pinned(const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p;
	auto it = sim.pinned->upper_bound(a);
	if (it == sim.pinned->begin())
		return 0;
	--it;
	return a - it->first <= it->second && n <= it->second - (a - it->first);
}

// ---- errors ----

extern "C" const char *cudaGetErrorString(cudaError_t e)
{
	switch (e) {
	case cudaSuccess: return "no error";
	case cudaErrorInvalidValue: return "invalid argument";
	case cudaErrorMemoryAllocation: return "out of memory";
	case cudaErrorInvalidConfiguration: return "invalid configuration argument";
	case cudaErrorInvalidDevicePointer: return "invalid device pointer";
	case cudaErrorNoDevice: return "no CUDA-capable device is detected";
	case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
	case cudaErrorLaunchFailure: return "unspecified launch failure";
	case cudaErrorNotReady: return "device not ready";
	case cudaErrorTimeout: return "the operation timed out";
	case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
	case cudaErrorStreamCaptureInvalidated: return "operation failed due to a previous error during capture";
	case cudaErrorIllegalState: return "the operation cannot be performed in the present state";
	default: return "unknown error";
	}
}

extern "C" const char *cudaGetErrorName(cudaError_t e)
{
	switch (e) {
	case cudaSuccess: return "cudaSuccess";
	case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
	case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
	case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
	case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
	case cudaErrorNoDevice: return "cudaErrorNoDevice";
	case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
	case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
	case cudaErrorNotReady: return "cudaErrorNotReady";
	case cudaErrorTimeout: return "cudaErrorTimeout";
	case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
	case cudaErrorStreamCaptureInvalidated: return "cudaErrorStreamCaptureInvalidated";
	case cudaErrorIllegalState: return "cudaErrorIllegalState";
	default: return "cudaErrorUnknown";
	}
}

extern "C" cudaError_t cudaGetLastError(void)
{
	cudaError_t e = sim.sticky ? sim.sticky : sim.last;
	sim.last = cudaSuccess;
	return e;
}

extern "C" cudaError_t cudaPeekAtLastError(void)
{
	return sim.sticky ? sim.sticky : sim.last;
}

// ---- the device ----

extern "C" cudaError_t cudaGetDeviceCount(int *n)
{
	setup();
	*n = 0;
	if (sim.devices <= 0)
		return cudaErrorNoDevice;
	*n = sim.devices;
	return cudaSuccess;
}

extern "C" cudaError_t cudaSetDevice(int d)
{
	setup();
	return d >= 0 && d < sim.devices ? cudaSuccess : cudaErrorInvalidDevice;
}

extern "C" cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d)
{
	setup();
	if (d < 0 || d >= sim.devices)
		return cudaErrorInvalidDevice;
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "onnxview CUDA simulator (host)");
	p->major = 9;
	p->minor = 0;
	p->totalGlobalMem = sim.mem_limit ? sim.mem_limit : (size_t)80 << 30;
	p->maxThreadsPerBlock = 1024;
	p->maxGridSize[0] = 2147483647;
	p->maxGridSize[1] = p->maxGridSize[2] = 65535;
	p->warpSize = 32;
	return cudaSuccess;
}

extern "C" cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int d)
{
	setup();
	if (d < 0 || d >= sim.devices)
		return cudaErrorInvalidDevice;
	*v = a == cudaDevAttrMemoryPoolsSupported ? 1 : 0;
	return cudaSuccess;
}

extern "C" cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int d)
{
	static int token;
	if (d < 0 || d >= sim.devices)
		return cudaErrorInvalidDevice;
	*pool = (cudaMemPool_t)&token;
	return cudaSuccess;
}

extern "C" cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t, cudaMemPoolAttr, void *)
{
	return cudaSuccess;
}

// Freed memory goes back at once here: there is no pool to trim.
extern "C" cudaError_t cudaMemPoolTrimTo(cudaMemPool_t, size_t)
{
	CAPTURE_REFUSES("cudaMemPoolTrimTo");
	return sim.sticky ? sim.sticky : cudaSuccess;
}

extern "C" cudaError_t cudaRuntimeGetVersion(int *v)
{
	*v = CUDART_VERSION;
	return cudaSuccess;
}

extern "C" cudaError_t cudaDriverGetVersion(int *v)
{
	setup();
	*v = sim.devices > 0 ? CUDART_VERSION : 0;
	return cudaSuccess;
}

// Streams: one token each; work runs when it is issued, so a stream is always idle.
extern "C" cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned)
{
	setup();
	if (sim.devices <= 0)
		return cudaErrorNoDevice;
	*s = (cudaStream_t)malloc(1);
	return *s ? cudaSuccess : cudaErrorMemoryAllocation;
}

extern "C" cudaError_t cudaStreamDestroy(cudaStream_t s)
{
	free(s);
	return cudaSuccess;
}

// A stream that hangs (OV_CUDASIM_HANG) is never ready, and a synchronisation waits for it for ever, as the
// device's would for a kernel that never ends.
extern "C" cudaError_t cudaStreamQuery(cudaStream_t s)
{
	CAPTURE_REFUSES("cudaStreamQuery");
	sim.waits++;
	if (sim.hung && !sim.sticky)
		return cudaErrorNotReady;
	return cudaStreamSynchronize(s);
}

extern "C" cudaError_t cudaStreamSynchronize(cudaStream_t)
{
	CAPTURE_REFUSES("cudaStreamSynchronize");
	while (sim.hung && !sim.sticky)
		pause();
	if (sim.pending) { // as on the device, a kernel's fault shows when the host waits for it
		sim.sticky = sim.pending;
		sim.pending = cudaSuccess;
	}
	return sim.sticky;
}

extern "C" cudaError_t cudaDeviceSynchronize(void)
{
	return cudaStreamSynchronize(NULL);
}

// Events: work runs when it is issued, so an event is complete when recorded; the time between two is the host's
// time between their records.
struct sim_event {
	struct timespec t;
	int recorded;
};

extern "C" cudaError_t cudaEventCreate(cudaEvent_t *e)
{
	setup();
	if (sim.sticky)
		return sim.sticky;
	*e = (cudaEvent_t)calloc(1, sizeof(struct sim_event));
	return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}

extern "C" cudaError_t cudaEventDestroy(cudaEvent_t e)
{
	free(e);
	return cudaSuccess;
}

extern "C" cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t)
{
	CAPTURE_REFUSES("cudaEventRecord: the simulator records no events in a graph");
	if (sim.sticky)
		return sim.sticky;
	struct sim_event *s = (struct sim_event *)e;
	clock_gettime(CLOCK_MONOTONIC, &s->t);
	s->recorded = 1;
	return cudaSuccess;
}

extern "C" cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
	struct sim_event *x = (struct sim_event *)a, *y = (struct sim_event *)b;
	if (sim.sticky)
		return sim.sticky;
	if (!x->recorded || !y->recorded)
		return cudaErrorInvalidResourceHandle;
	*ms = (float)((y->t.tv_sec - x->t.tv_sec) * 1e3 + (y->t.tv_nsec - x->t.tv_nsec) * 1e-6);
	return cudaSuccess;
}

// Pinned host memory: plain host memory here (the device copies from it like from any host buffer).
extern "C" cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned)
{
	setup();
	*p = NULL;
	CAPTURE_REFUSES("cudaHostAlloc");
	if (sim.sticky)
		return sim.sticky;
	*p = malloc(bytes ? bytes : 1);
	if (*p)
		(*sim.pinned)[(uintptr_t)*p] = bytes;
	return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

extern "C" cudaError_t cudaFreeHost(void *p)
{
	setup();
	CAPTURE_REFUSES("cudaFreeHost");
	if (p)
		sim.pinned->erase((uintptr_t)p);
	free(p);
	return cudaSuccess;
}

// ---- memory ----

// Graph memory (cudaMallocAsync while the stream is captured): reserved at an address fixed for the graph, live
// (in sim.allocs) from its allocation at a launch to its free.  owner: the graph, or NULL once the graph is destroyed
// with the memory still live (a later free gives it back).
struct graph_mem {
	size_t bytes;
	struct sim_graph *owner;
};
static std::map<uintptr_t, graph_mem> *graph_mems;

static void mem_live(uintptr_t p, size_t bytes, int live)
{
	if (live) {
		(*sim.allocs)[p] = bytes;
		sim.in_use += bytes;
		if (sim.in_use > sim.peak)
			sim.peak = sim.in_use;
	} else if (sim.allocs->erase(p)) {
		sim.in_use -= bytes;
	}
}

static cudaError_t device_alloc(void **p, size_t bytes)
{
	setup();
	*p = NULL;
	if (sim.sticky)
		return sim.sticky;
	if (sim.devices <= 0)
		return cudaErrorNoDevice;
	if (sim.mem_limit && (bytes > sim.mem_limit || sim.in_use > sim.mem_limit - bytes))
		return cudaErrorMemoryAllocation;
	size_t n = (bytes + 255) / 256 * 256; // cudaMalloc aligns to 256 bytes
	void *q = aligned_alloc(256, n ? n : 256);
	if (!q)
		return cudaErrorMemoryAllocation;
	memset(q, 0xff, n ? n : 256); // what nobody wrote reads as NaN (or -1)
	mem_live((uintptr_t)q, bytes, 1);
	*p = q;
	sim.allocations++;
	return cudaSuccess;
}

extern "C" cudaError_t cudaMalloc(void **p, size_t bytes)
{
	*p = NULL;
	CAPTURE_REFUSES("cudaMalloc (synchronous)");
	return device_alloc(p, bytes);
}

static void graph_mem_add(struct sim_graph *g, uintptr_t p, size_t bytes);

extern "C" cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t)
{
	*p = NULL;
	if (cap_graph && cap_broken)
		return cudaErrorStreamCaptureInvalidated;
	cudaError_t e = device_alloc(p, bytes);
	if (e != cudaSuccess || !cap_graph)
		return e;
	// an allocation node: the memory stays reserved for the graph; live at once for the rest of the capture (the
	// calls recorded after it check their pointers), live again at each launch from this point
	uintptr_t a = (uintptr_t)*p;
	graph_mem_add(cap_graph, a, bytes);
	cusim_record([a, bytes]() {
		mem_live(a, bytes, 1);
		memset((void *)a, 0xff, bytes);
	});
	return cudaSuccess;
}

// A free of graph memory outside a capture: it is no longer live; the memory stays the graph's (given back for good
// when the graph is gone).  1 when p is graph memory.
static int graph_mem_free(void *p, cudaError_t *e)
{
	if (!graph_mems)
		return 0;
	auto gm = graph_mems->find((uintptr_t)p);
	if (gm == graph_mems->end())
		return 0;
	if (!sim.allocs->count((uintptr_t)p)) {
		cusim_say("free of graph memory %p that is not live (freed already, or its graph never launched)", p);
		*e = cudaErrorInvalidValue;
		return 1;
	}
	mem_live((uintptr_t)p, gm->second.bytes, 0);
	if (!gm->second.owner) {
		free(p);
		graph_mems->erase(gm);
	}
	*e = sim.sticky ? sim.sticky : cudaSuccess;
	return 1;
}

extern "C" cudaError_t cudaFree(void *p)
{
	setup();
	if (!p)
		return cudaSuccess;
	CAPTURE_REFUSES("cudaFree (synchronous)");
	cudaError_t ge;
	if (graph_mem_free(p, &ge))
		return ge;
	auto it = sim.allocs->find((uintptr_t)p);
	if (it == sim.allocs->end()) {
		cusim_say("cudaFree(%p): not the start of a device allocation", p);
		return cudaErrorInvalidDevicePointer;
	}
	sim.in_use -= it->second;
	sim.allocs->erase(it);
	free(p);
	return sim.sticky ? sim.sticky : cudaSuccess;
}

extern "C" cudaError_t cudaFreeAsync(void *p, cudaStream_t)
{
	setup();
	if (p && cap_graph) {
		if (cap_broken)
			return cudaErrorStreamCaptureInvalidated;
		auto gm = graph_mems ? graph_mems->find((uintptr_t)p) : std::map<uintptr_t, graph_mem>::iterator();
		if (!graph_mems || gm == graph_mems->end() || gm->second.owner != cap_graph ||
		    !sim.allocs->count((uintptr_t)p))
			return cusim_capture_break(cudaErrorInvalidValue,
						   "cudaFreeAsync(%p): not live memory the capture allocated", p);
		// a free node: not live from here on in the capture, and at each launch
		size_t bytes = gm->second.bytes;
		uintptr_t a = (uintptr_t)p;
		mem_live(a, bytes, 0);
		cusim_record([a, bytes]() { mem_live(a, bytes, 0); });
		return cudaSuccess;
	}
	if (!p)
		return cudaSuccess;
	cudaError_t ge;
	if (graph_mem_free(p, &ge))
		return ge;
	return cudaFree(p);
}

extern "C" cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind kind, cudaStream_t)
{
	static const char *names[] = {"HostToHost", "HostToDevice", "DeviceToHost", "DeviceToDevice", "Default"};
	setup();
	if (cusim_capture_broken())
		return cudaErrorStreamCaptureInvalidated;
	if (cusim_capturing()) {
		// a copy node: host memory must be pinned (its bytes are read, or written, at each launch)
		if ((kind == cudaMemcpyHostToDevice && !is_pinned(src, n)) ||
		    (kind == cudaMemcpyDeviceToHost && !is_pinned(dst, n)))
			return cusim_capture_break(cudaErrorStreamCaptureUnsupported,
						   "cudaMemcpyAsync(%s, %zu bytes): pageable host memory", names[kind], n);
		if ((unsigned)kind > cudaMemcpyDeviceToDevice || kind == cudaMemcpyHostToHost)
			return cusim_capture_break(cudaErrorInvalidValue, "cudaMemcpyAsync: kind %d", (int)kind);
		cusim_record([dst, src, n, kind]() {
			if (cudaMemcpyAsync(dst, src, n, kind, NULL) != cudaSuccess && !sim.sticky)
				kernel_fault(cudaErrorIllegalAddress);
		});
		return cudaSuccess;
	}
	if (sim.sticky)
		return sim.sticky;
	if ((unsigned)kind > cudaMemcpyDeviceToDevice) {
		cusim_say("cudaMemcpyAsync: kind %d is not one the backend should use", (int)kind);
		return cudaErrorInvalidMemcpyDirection;
	}
	if (!n)
		return cudaSuccess;
	int dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
	int src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
	if (cusim_is_device(dst, n) != dst_dev || cusim_is_device(src, n) != src_dev || !dst || !src) {
		cusim_say("cudaMemcpyAsync(%p <- %p, %zu bytes, %s): %s is %s", dst, src, n, names[kind],
			  cusim_is_device(dst, n) != dst_dev || !dst ? "the destination" : "the source",
			  (cusim_is_device(dst, n) != dst_dev ? dst_dev : src_dev) ? "not (all) device memory"
										  : "device memory");
		return cudaErrorInvalidValue;
	}
	memmove(dst, src, n);
	sim.copies[kind]++;
	sim.bytes[kind] += (int64_t)n;
	return cudaSuccess;
}

extern "C" cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind kind)
{
	CAPTURE_REFUSES("cudaMemcpy (synchronous)");
	return cudaMemcpyAsync(dst, src, n, kind, NULL);
}

extern "C" cudaError_t cudaMemsetAsync(void *dst, int v, size_t n, cudaStream_t)
{
	setup();
	if (cusim_capture_broken())
		return cudaErrorStreamCaptureInvalidated;
	if (cusim_capturing()) {
		cusim_record([dst, v, n]() {
			if (cudaMemsetAsync(dst, v, n, NULL) != cudaSuccess && !sim.sticky)
				kernel_fault(cudaErrorIllegalAddress);
		});
		return cudaSuccess;
	}
	if (sim.sticky)
		return sim.sticky;
	if (n && !cusim_is_device(dst, n)) {
		cusim_say("cudaMemsetAsync(%p, %zu bytes): not (all) device memory", dst, n);
		return cudaErrorInvalidValue;
	}
	memset(dst, v, n);
	sim.memsets++;
	return cudaSuccess;
}

// ---- launches ----

static const char *running;   // the kernel being run
static int sync_launch;       // it was launched with CU_LAUNCH_SYNC
static int bad_launch;        // it broke a rule (a host pointer, a barrier in a CU_LAUNCH kernel)

void cusim_check_ptr(const char *name, int i, const void *p)
{
	if (p && !cusim_is_device(p, 1)) {
		cusim_say("kernel %s: argument %d (%p) is not device memory", name, i, p);
		bad_launch = 1;
	}
}

// CU_LAUNCH_SYNC blocks: each thread of the block is a coroutine on this OS thread, run in rounds, each thread in a
// round up to its next barrier or shuffle.  A thread at __syncthreads() waits there until every thread of the block
// that has not ended is at one, as on the GPU: threads that go through shuffles while others wait at a barrier
// (a half warp summing a row the whole block loaded) do so in the rounds between.
struct fiber {
	ucontext_t ctx;
	uint3 tid;
	unsigned lin;  // the thread's linear index in its block (x fastest), as CUDA numbers the lanes of warps
	unsigned shfl; // how many shuffles it has been through
	int done;
	int at_barrier;
};
static ucontext_t scheduler;
static struct fiber *current;
static void (*fiber_thunk)(void *);
static void *fiber_ctx;

static void fiber_main(void)
{
	fiber_thunk(fiber_ctx);
	current->done = 1; // returning resumes the scheduler (uc_link)
}

void __syncthreads(void)
{
	if (!sync_launch) {
		if (!bad_launch)
			cusim_say("kernel %s calls __syncthreads() but was launched with CU_LAUNCH, not CU_LAUNCH_SYNC",
				  running);
		bad_launch = 1;
		return;
	}
	current->at_barrier = 1;
	swapcontext(&current->ctx, &scheduler);
}

// A shuffle: each lane leaves its value in the slot of its shuffle count's parity and yields; once every thread of
// the block has reached its next barrier or shuffle, each reads its source lane's slot.  Lanes of a segment go
// through the same shuffles in the same rounds, so a lane's next shuffle (the other parity) cannot overwrite a
// value another lane is still to read; a source lane whose slot holds another count did not reach this shuffle.
static unsigned long long shfl_val[2][1024];
static unsigned shfl_count[2][1024];

unsigned long long cusim_shfl(unsigned mask, unsigned long long v, int kind, int src, int width)
{
	if (!sync_launch) {
		if (!bad_launch)
			cusim_say("kernel %s calls a warp shuffle but was launched with CU_LAUNCH, not CU_LAUNCH_SYNC",
				  running);
		bad_launch = 1;
		return v;
	}
	unsigned t = current->lin, lane = t % 32, warp = t - lane;
	if (width < 1 || width > 32 || (width & (width - 1)) || !(mask >> lane & 1)) {
		if (!bad_launch)
			cusim_say("kernel %s: thread %u shuffles with mask 0x%08x and width %d (its lane %u must be in "
				  "the mask, the width a power of 2 up to 32)", running, t, mask, width, lane);
		bad_launch = 1;
		return v;
	}
	unsigned n = ++current->shfl, p = n & 1;
	shfl_val[p][t] = v;
	shfl_count[p][t] = n;
	swapcontext(&current->ctx, &scheduler);
	unsigned seg = lane & ~(unsigned)(width - 1), from = lane;
	switch (kind) {
	case CUSIM_SHFL_IDX: from = seg + ((unsigned)src & (unsigned)(width - 1)); break;
	case CUSIM_SHFL_DOWN: from = lane + (unsigned)src < seg + (unsigned)width ? lane + (unsigned)src : lane; break;
	default: from = (lane ^ (unsigned)src) < seg + (unsigned)width ? lane ^ (unsigned)src : lane; break;
	}
	uint64_t threads = (uint64_t)blockDim.x * blockDim.y * blockDim.z;
	if (from >= 32 || !(mask >> from & 1) || warp + from >= threads || shfl_count[p][warp + from] != n) {
		if (!bad_launch)
			cusim_say("kernel %s: thread %u's shuffle %u reads lane %u of its warp, which %s", running, t, n,
				  from, from >= 32 || !(mask >> from & 1) ? "is not in the mask"
				  : warp + from >= threads ? "does not exist" : "did not reach the same shuffle");
		bad_launch = 1;
		return v;
	}
	return shfl_val[p][warp + from];
}

#define FIBER_STACK (128 * 1024)

// Run one block's threads side by side; -1 when a coroutine cannot be set up.
static int run_block_sync(struct fiber *fs, char *stacks, uint64_t threads, dim3 block)
{
	uint64_t i = 0;

	for (unsigned tz = 0; tz < block.z; tz++)
		for (unsigned ty = 0; ty < block.y; ty++)
			for (unsigned tx = 0; tx < block.x; tx++, i++) {
				struct fiber *f = &fs[i];
				f->tid = make_uint3(tx, ty, tz);
				f->lin = (unsigned)i;
				f->shfl = 0;
				f->done = 0;
				f->at_barrier = 0;
				shfl_count[0][i] = shfl_count[1][i] = 0; // nothing left from the block before
				if (getcontext(&f->ctx))
					return -1;
				f->ctx.uc_stack.ss_sp = stacks + i * FIBER_STACK;
				f->ctx.uc_stack.ss_size = FIBER_STACK;
				f->ctx.uc_link = &scheduler;
				makecontext(&f->ctx, fiber_main, 0);
			}
	for (uint64_t live = threads; live;) {
		int ran = 0;
		live = 0;
		for (i = 0; i < threads; i++) {
			if (fs[i].done)
				continue;
			if (fs[i].at_barrier) {
				live++;
				continue;
			}
			current = &fs[i];
			threadIdx = fs[i].tid;
			if (swapcontext(&scheduler, &fs[i].ctx))
				return -1;
			ran = 1;
			live += !fs[i].done;
		}
		if (!ran) // every thread still running is at a barrier: they all go on
			for (i = 0; i < threads; i++)
				fs[i].at_barrier = 0;
	}
	return 0;
}

void cusim_run(const char *name, dim3 grid, dim3 block, int sync, void (*thunk)(void *), void *ctx)
{
	setup();
	sim.launches++;
	if (sim.sticky) {
		bad_launch = 0;
		return;
	}
	uint64_t threads = (uint64_t)block.x * block.y * block.z;
	if (!grid.x || !grid.y || !grid.z || !threads || threads > 1024 || grid.y > 65535 || grid.z > 65535 ||
	    block.z > 64) {
		cusim_say("kernel %s: launch of (%u,%u,%u) blocks of (%u,%u,%u) threads is outside the device's limits",
			  name, grid.x, grid.y, grid.z, block.x, block.y, block.z);
		sim.last = cudaErrorInvalidConfiguration;
		bad_launch = 0;
		return;
	}
	if (bad_launch) { // a pointer argument was checked before the launch
		bad_launch = 0;
		kernel_fault(cudaErrorIllegalAddress);
		return;
	}
	running = name;
	sync_launch = sync;
	if (!sync) {
		blockDim = block;
		gridDim = grid;
		for (unsigned bz = 0; bz < grid.z; bz++)
			for (unsigned by = 0; by < grid.y; by++)
				for (unsigned bx = 0; bx < grid.x && !bad_launch; bx++) {
					blockIdx = make_uint3(bx, by, bz);
					for (unsigned tz = 0; tz < block.z; tz++)
						for (unsigned ty = 0; ty < block.y; ty++)
							for (unsigned tx = 0; tx < block.x; tx++) {
								threadIdx = make_uint3(tx, ty, tz);
								thunk(ctx);
							}
				}
	} else {
		struct fiber *fs = (struct fiber *)calloc(threads, sizeof *fs);
		char *stacks = (char *)malloc(threads * FIBER_STACK);
		blockDim = block;
		gridDim = grid;
		fiber_thunk = thunk;
		fiber_ctx = ctx;
		int failed = !fs || !stacks;
		for (unsigned bz = 0; bz < grid.z && !failed; bz++)
			for (unsigned by = 0; by < grid.y && !failed; by++)
				for (unsigned bx = 0; bx < grid.x && !failed && !bad_launch; bx++) {
					blockIdx = make_uint3(bx, by, bz);
					failed = run_block_sync(fs, stacks, threads, block) != 0;
				}
		free(fs);
		free(stacks);
		if (failed) {
			cusim_say("kernel %s: cannot run the block's threads side by side", name);
			sim.last = cudaErrorMemoryAllocation;
			running = NULL;
			return;
		}
	}
	running = NULL;
	if (bad_launch) {
		bad_launch = 0;
		kernel_fault(cudaErrorLaunchFailure);
		return;
	}
	if (sim.hang && !strcmp(sim.hang, name)) {
		cusim_say("kernel %s: never ends (OV_CUDASIM_HANG)", name);
		sim.hung = 1;
	}
	if (sim.fault && !strcmp(sim.fault, name)) {
		cusim_say("kernel %s: fault injected (OV_CUDASIM_FAULT)", name);
		kernel_fault(cudaErrorIllegalAddress);
	}
}

// ---- stream capture and graphs ----
//
// A captured graph is its work in order (a closure per launch, copy, memset, library call, allocation and free) and
// its memory (graph_mems).  One stream, so the order of the capture is the order of every launch.

struct sim_graph {
	std::vector<std::function<void()>> work;
	std::vector<uintptr_t> mem; // its allocations, reserved in graph_mems
	int destroyed;              // cudaGraphDestroy was called
	int execs;                  // instantiations not destroyed
};

struct sim_exec {
	struct sim_graph *g;
	unsigned long long flags;
};

void cusim_record(std::function<void()> work)
{
	cap_graph->work.push_back(std::move(work));
}

static void graph_mem_add(struct sim_graph *g, uintptr_t p, size_t bytes)
{
	if (!graph_mems)
		graph_mems = new std::map<uintptr_t, graph_mem>;
	(*graph_mems)[p] = {bytes, g};
	g->mem.push_back(p);
}

// The graph is gone when it and every instantiation are destroyed: its memory that is not live goes back now, the
// live memory when it is freed.
static void graph_release(struct sim_graph *g)
{
	if (!g->destroyed || g->execs)
		return;
	for (uintptr_t p : g->mem) {
		auto gm = graph_mems->find(p);
		if (sim.allocs->count(p)) {
			gm->second.owner = NULL;
		} else {
			free((void *)p);
			graph_mems->erase(gm);
		}
	}
	delete g;
}

extern "C" cudaError_t cudaStreamBeginCapture(cudaStream_t, enum cudaStreamCaptureMode)
{
	setup();
	if (sim.sticky)
		return sim.sticky;
	if (cap_graph)
		return cudaErrorIllegalState;
	cap_graph = new sim_graph();
	cap_broken = 0;
	return cudaSuccess;
}

extern "C" cudaError_t cudaStreamEndCapture(cudaStream_t, cudaGraph_t *graph)
{
	*graph = NULL;
	if (!cap_graph)
		return cudaErrorIllegalState;
	struct sim_graph *g = cap_graph;
	cap_graph = NULL;
	// the graph's memory is live only while a launch runs it
	for (uintptr_t p : g->mem)
		mem_live(p, (*graph_mems)[p].bytes, 0);
	if (cap_broken) {
		cap_broken = 0;
		g->destroyed = 1;
		graph_release(g);
		return cudaErrorStreamCaptureInvalidated;
	}
	*graph = (cudaGraph_t)g;
	return sim.sticky ? sim.sticky : cudaSuccess;
}

extern "C" cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags)
{
	*exec = NULL;
	if (!graph)
		return cudaErrorInvalidValue;
	CAPTURE_REFUSES("cudaGraphInstantiate");
	struct sim_exec *x = new sim_exec{(struct sim_graph *)graph, flags};
	x->g->execs++;
	*exec = (cudaGraphExec_t)x;
	return sim.sticky ? sim.sticky : cudaSuccess;
}

extern "C" cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t)
{
	struct sim_exec *x = (struct sim_exec *)exec;

	if (!x)
		return cudaErrorInvalidValue;
	CAPTURE_REFUSES("cudaGraphLaunch");
	if (sim.sticky)
		return sim.sticky;
	for (uintptr_t p : x->g->mem) {
		if (!sim.allocs->count(p))
			continue;
		if (!(x->flags & cudaGraphInstantiateFlagAutoFreeOnLaunch)) {
			cusim_say("cudaGraphLaunch: the graph's memory %p from its last launch is still live (not freed, and "
				  "no cudaGraphInstantiateFlagAutoFreeOnLaunch)", (void *)p);
			return cudaErrorInvalidValue;
		}
		mem_live(p, (*graph_mems)[p].bytes, 0);
	}
	for (auto &w : x->g->work)
		w();
	return cudaSuccess;
}

extern "C" cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
	struct sim_exec *x = (struct sim_exec *)exec;

	if (!x)
		return cudaSuccess;
	x->g->execs--;
	graph_release(x->g);
	delete x;
	return cudaSuccess;
}

extern "C" cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
	struct sim_graph *g = (struct sim_graph *)graph;

	if (!g)
		return cudaSuccess;
	g->destroyed = 1;
	graph_release(g);
	return cudaSuccess;
}

// Graph memory no graph uses now goes back to the system; here it stays reserved until its graph is gone.
extern "C" cudaError_t cudaDeviceGraphMemTrim(int device)
{
	setup();
	CAPTURE_REFUSES("cudaDeviceGraphMemTrim");
	return device >= 0 && device < sim.devices ? (sim.sticky ? sim.sticky : cudaSuccess) : cudaErrorInvalidDevice;
}
