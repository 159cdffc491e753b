// The CUDA backend: the device set up once (stream, cuBLAS and cuDNN handles, the memory pool), the backend's
// table of operations for the runner, error checks, and the transfers every kernel uses (see cuda/backend.h for
// how a node runs and where values live).
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>

#include "src/exec/cuda/backend.h"
extern "C" {
#include "src/exec/ops/kindex.h"
}

struct cu_state cu_dev;

static char cu_failed[sizeof(((struct ov_error *)0)->msg)]; // why the device cannot be used, once known
static char cu_dev_desc[384]; // the device, set up by init_device
static char cu_dev_name[300]; // the same as one word: its name and compute capability
static char cu_desc[640];     // the device and the libraries loaded so far (cuda_describe)

// ---- checks ----

int cu_ok(struct exec_kernel_ctx *k, cudaError_t e, const char *call)
{
	if (e == cudaSuccess)
		return 0;
	cudaGetLastError(); // clear a non-sticky error so the next node starts clean
	return xk_fail(k, "CUDA error in %s: %s (%s)", call, cudaGetErrorString(e), cudaGetErrorName(e));
}

int cu_blas_ok(struct exec_kernel_ctx *k, cublasStatus_t s, const char *call)
{
	if (s == CUBLAS_STATUS_SUCCESS)
		return 0;
	return xk_fail(k, "cuBLAS error in %s: %s", call, cu_blas.status_string(s));
}

int cu_dnn_ok(struct exec_kernel_ctx *k, cudnnStatus_t s, const char *call)
{
	if (s == CUDNN_STATUS_SUCCESS)
		return 0;
	return xk_fail(k, "cuDNN error in %s: %s", call, cu_dnn.get_error_string(s));
}

int cu_launched(struct exec_kernel_ctx *k, const char *kernel)
{
	cudaError_t e = cudaGetLastError();

	if (e == cudaSuccess)
		return 0;
	return xk_fail(k, "CUDA error at the launch of kernel %s: %s (%s)", kernel, cudaGetErrorString(e),
		       cudaGetErrorName(e));
}

// ---- waiting for the device ----

// How long one wait for the stream may last (OV_CUDA_TIMEOUT seconds; 0: no limit), read once.
static double wait_limit(void)
{
	static double limit = -1;

	if (limit < 0) {
		limit = exec_knob_seconds("OV_CUDA_TIMEOUT", CU_WAIT_DEFAULT_S);
	}
	return limit;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

// The stream polled with cudaStreamQuery instead of cudaStreamSynchronize (which has no deadline): looking again at
// once (yielding the processor between looks) for the first 20 ms, which covers a node's work and a whole warm run
// of the usual model, so the wait ends within microseconds of the work; then sleeping 50 microseconds growing to
// 1 ms between looks.  (Sleeping early, with naps that double, ended a 2 ms run's wait up to a millisecond late.)
// A timeout leaves the work queued: the device is given up for the session (cu_failed).
static size_t stage_used; // bytes of the staging buffer that copies queued since the last wait may still read

cudaError_t cu_sync(void)
{
	double limit = wait_limit(), start = now_s(), t = start;
	long nap_ns = 50000;

	if (cu_capturing()) // nothing has run yet: a node that waits for its work cannot be recorded
		return cudaErrorStreamCaptureUnsupported;

	for (;;) {
		cudaError_t e = cudaStreamQuery(cu_dev.stream);
		if (e == cudaSuccess)
			stage_used = 0; // every copy queued before has read its bytes
		if (e != cudaErrorNotReady)
			return e;
		if (limit > 0 && t - start > limit) {
			snprintf(cu_failed, sizeof cu_failed,
				 "the CUDA device did not finish its work within %g s (OV_CUDA_TIMEOUT) earlier in this session; "
				 "restart onnxview to use it again", limit);
			cu_dev.ready = 0;
			return cudaErrorTimeout;
		}
		if (t - start <= 20e-3)
			sched_yield();
		else {
			struct timespec nap = {0, nap_ns};
			while (nanosleep(&nap, &nap) && errno == EINTR)
				;
			if (nap_ns < 1000000)
				nap_ns *= 2;
		}
		t = now_s();
	}
}

int cu_sync_ok(struct exec_kernel_ctx *k)
{
	cudaError_t e = cu_sync();

	if (e == cudaErrorTimeout)
		return xk_fail(k, "the CUDA device did not finish the work within %g s (OV_CUDA_TIMEOUT)", wait_limit());
	return cu_ok(k, e, "cudaStreamSynchronize");
}

// ---- memory ----
//
// Buffers come from the device's pool, stream-ordered (cudaMallocAsync, cudaFreeAsync), and freed ones are kept on
// the host by size class for the next node that asks: every node runs on the one stream, so a buffer freed there
// can be handed on at once, as the pool itself would, without the two calls (a microsecond or more of host time
// each, at every node).  Classes: multiples of 512 bytes up to 1 MiB, of 1 MiB up to 64 MiB; larger buffers go
// straight back.  At most CACHE_MAX bytes wait in the classes; the rest goes back to the pool, and so does all of
// it when an allocation fails (then tried again), when the TUI is idle (exec_cuda_release) and at exit.  Nothing
// while a run is recorded as a graph: its buffers are the graph's (capture.cu), and frees of older ones wait for it.

#define CACHE_SMALL (1u << 20)
#define CACHE_BIG (64u << 20)
#define CACHE_CLASSES (CACHE_SMALL / 512 + CACHE_BIG / CACHE_SMALL + 1)
#define CACHE_MAX ((size_t)1 << 30)

// a buffer the cache handed out, by address: its class (open addressing, a power of 2 slots, key NULL: free)
struct cache_live {
	void *p;
	unsigned cls;
};

static struct {
	struct {
		void **p;
		unsigned n, cap;
	} cls[CACHE_CLASSES];
	struct cache_live *live;
	size_t n_live, cap_live;
	size_t cached; // bytes waiting in the classes
	int exit_hook;
} cache;

// The class of a request of bytes and its size (0: none, the buffer is not cached).
static unsigned cache_class(size_t bytes, size_t *size)
{
	if (bytes <= CACHE_SMALL) {
		*size = (bytes + 511) / 512 * 512;
		return (unsigned)(*size / 512);
	}
	if (bytes <= CACHE_BIG) {
		*size = (bytes + CACHE_SMALL - 1) / CACHE_SMALL * CACHE_SMALL;
		return (unsigned)(CACHE_SMALL / 512 + *size / CACHE_SMALL);
	}
	*size = bytes;
	return 0;
}

static size_t class_bytes(unsigned c)
{
	return c <= CACHE_SMALL / 512 ? (size_t)c * 512 : (size_t)(c - CACHE_SMALL / 512) * CACHE_SMALL;
}

static size_t live_slot(void *p)
{
	uintptr_t h = (uintptr_t)p >> 9;
	h ^= h >> 17;
	h *= 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20) & (cache.cap_live - 1);
}

static int live_put(void *p, unsigned c)
{
	if (2 * (cache.n_live + 1) > cache.cap_live) {
		size_t nc = cache.cap_live ? 2 * cache.cap_live : 1024, oc = cache.cap_live;
		struct cache_live *nl = (struct cache_live *)calloc(nc, sizeof *nl), *ol = cache.live;
		if (!nl)
			return -1;
		cache.live = nl;
		cache.cap_live = nc;
		for (size_t i = 0; i < oc; i++)
			if (ol[i].p) {
				size_t j = live_slot(ol[i].p);
				while (nl[j].p)
					j = (j + 1) & (nc - 1);
				nl[j] = ol[i];
			}
		free(ol);
	}
	size_t j = live_slot(p);
	while (cache.live[j].p)
		j = (j + 1) & (cache.cap_live - 1);
	cache.live[j].p = p;
	cache.live[j].cls = c;
	cache.n_live++;
	return 0;
}

// p's class, taken out of the table (0: p is not the cache's).
static unsigned live_take(void *p)
{
	if (!cache.n_live)
		return 0;
	size_t j = live_slot(p), mask = cache.cap_live - 1;
	while (cache.live[j].p && cache.live[j].p != p)
		j = (j + 1) & mask;
	if (!cache.live[j].p)
		return 0;
	unsigned c = cache.live[j].cls;
	cache.live[j].p = NULL;
	cache.n_live--;
	// the entries after it in its run move up where they can (deletion without tombstones)
	for (size_t k = (j + 1) & mask; cache.live[k].p; k = (k + 1) & mask) {
		size_t home = live_slot(cache.live[k].p);
		if ((k > j && (home <= j || home > k)) || (k < j && home <= j && home > k)) {
			cache.live[j] = cache.live[k];
			cache.live[k].p = NULL;
			j = k;
		}
	}
	return c;
}

// Every buffer waiting in the classes back to the pool.
static void cache_flush(void)
{
	for (unsigned c = 0; c < CACHE_CLASSES; c++) {
		for (unsigned i = 0; i < cache.cls[c].n; i++)
			cudaFreeAsync(cache.cls[c].p[i], cu_dev.stream);
		cache.cls[c].n = 0;
	}
	cache.cached = 0;
}

static void cache_at_exit(void)
{
	if (cu_dev.ready && cu_dev.pools)
		cache_flush();
	for (unsigned c = 0; c < CACHE_CLASSES; c++) {
		free(cache.cls[c].p);
		cache.cls[c].p = NULL;
		cache.cls[c].cap = 0;
	}
	free(cache.live);
	cache.live = NULL;
	cache.n_live = cache.cap_live = 0;
}

static cudaError_t raw_alloc(void **p, size_t bytes)
{
	*p = NULL;
	if (bytes == 0)
		bytes = 1;
	if (!cu_dev.pools)
		return cudaMalloc(p, bytes);
	if (cu_capturing()) {
		cudaError_t e = cudaMallocAsync(p, bytes, cu_dev.stream);
		if (e == cudaSuccess)
			cu_cap_allocated(*p);
		return e;
	}
	size_t size;
	unsigned c = cache_class(bytes, &size);
	if (c && cache.cls[c].n) {
		*p = cache.cls[c].p[--cache.cls[c].n];
		cache.cached -= size;
#ifdef OV_CUDA_SIM
		memset(*p, 0xff, size); // as the simulator's fresh memory: what nobody wrote still reads as NaN
#endif
		if (!live_put(*p, c))
			return cudaSuccess;
		cudaFreeAsync(*p, cu_dev.stream); // no room to remember it: not handed out
		*p = NULL;
		return cudaErrorMemoryAllocation;
	}
	cudaError_t e = cudaMallocAsync(p, size, cu_dev.stream);
	if (e == cudaErrorMemoryAllocation && cache.cached) {
		cudaGetLastError();
		cache_flush();
		e = cudaMallocAsync(p, size, cu_dev.stream);
	}
	if (e != cudaSuccess || !c)
		return e;
	if (!cache.exit_hook) {
		cache.exit_hook = 1;
		atexit(cache_at_exit);
	}
	if (live_put(*p, c)) { // no room to remember it: not cached
		cudaFreeAsync(*p, cu_dev.stream);
		*p = NULL;
		return cudaErrorMemoryAllocation;
	}
	return cudaSuccess;
}

static void raw_free(void *p)
{
	if (!p || cu_cap_free(p))
		return;
	if (!cu_dev.pools) {
		cudaFree(p);
		return;
	}
	unsigned c = live_take(p);
	size_t size = c ? class_bytes(c) : 0;
	if (c && cache.cached + size <= CACHE_MAX) {
		if (cache.cls[c].n == cache.cls[c].cap) {
			unsigned nc = cache.cls[c].cap ? 2 * cache.cls[c].cap : 8;
			void **np = (void **)realloc(cache.cls[c].p, nc * sizeof *np);
			if (np) {
				cache.cls[c].p = np;
				cache.cls[c].cap = nc;
			}
		}
		if (cache.cls[c].n < cache.cls[c].cap) {
			cache.cls[c].p[cache.cls[c].n++] = p;
			cache.cached += size;
			return;
		}
	}
	cudaFreeAsync(p, cu_dev.stream);
}

cudaError_t cu_raw_alloc(void **p, size_t bytes)
{
	return raw_alloc(p, bytes);
}

void cu_raw_free(void *p)
{
	raw_free(p);
}

void *cu_alloc(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t bytes)
{
	void *p;

	if (b->n >= CU_MAX_BUFS) {
		xk_fail(k, "the CUDA kernel asked for more than %d device buffers", CU_MAX_BUFS);
		return NULL;
	}
	cudaError_t e = raw_alloc(&p, bytes);
	if (e != cudaSuccess) {
		cudaGetLastError();
		xk_fail(k, "cannot allocate %zu bytes on the CUDA device: %s", bytes, cudaGetErrorString(e));
		return NULL;
	}
	b->p[b->n++] = p;
	return p;
}

void cu_bufs_free(struct cu_bufs *b)
{
	for (int i = 0; i < b->n; i++)
		raw_free(b->p[i]);
	b->n = 0;
}

// ---- libraries, loaded by the first node that needs them ----
//
// A model without convolutions never loads cuDNN (hundreds of megabytes of code and a start-up of its own), one
// without matrix products never loads cuBLAS: a small run costs little more than CUDA's own initialisation.  A
// library that cannot be loaded or started fails the node that needed it, and every later one the same way.

static char blas_failed[512], dnn_failed[512];

int cu_need_blas(struct exec_kernel_ctx *k)
{
	char why[400];

	if (cu_dev.blas)
		return 0;
	if (!blas_failed[0]) {
		cublasStatus_t bs;
		if (cu_blas_load(why, sizeof why))
			snprintf(blas_failed, sizeof blas_failed, "cuBLAS cannot be loaded: %s", why);
		else if ((bs = cu_blas.create(&cu_dev.blas)) != CUBLAS_STATUS_SUCCESS) {
			cu_dev.blas = NULL;
			snprintf(blas_failed, sizeof blas_failed, "cuBLAS cannot start: %s", cu_blas.status_string(bs));
		} else if ((bs = cu_blas.set_stream(cu_dev.blas, cu_dev.stream)) != CUBLAS_STATUS_SUCCESS) {
			snprintf(blas_failed, sizeof blas_failed, "cuBLAS: %s", cu_blas.status_string(bs));
			cu_blas.destroy(cu_dev.blas);
			cu_dev.blas = NULL;
		}
		cudaGetLastError();
		if (cu_dev.blas)
			return 0;
	}
	return xk_fail(k, "%s", blas_failed);
}

int cu_need_dnn(struct exec_kernel_ctx *k)
{
	char why[400];

	if (cu_dev.dnn)
		return 0;
	if (!dnn_failed[0]) {
		cudnnStatus_t ds;
		if (cu_dnn_load(why, sizeof why))
			snprintf(dnn_failed, sizeof dnn_failed, "cuDNN cannot be loaded: %s", why);
		else if ((ds = cu_dnn.create(&cu_dev.dnn)) != CUDNN_STATUS_SUCCESS) {
			cu_dev.dnn = NULL;
			snprintf(dnn_failed, sizeof dnn_failed, "cuDNN cannot start: %s", cu_dnn.get_error_string(ds));
		} else if ((ds = cu_dnn.set_stream(cu_dev.dnn, cu_dev.stream)) != CUDNN_STATUS_SUCCESS) {
			snprintf(dnn_failed, sizeof dnn_failed, "cuDNN: %s", cu_dnn.get_error_string(ds));
			cu_dnn.destroy(cu_dev.dnn);
			cu_dev.dnn = NULL;
		}
		cudaGetLastError();
		if (cu_dev.dnn)
			return 0;
	}
	return xk_fail(k, "%s", dnn_failed);
}

// ---- the shared workspace ----

static void *ws_buf;
static size_t ws_bytes;
unsigned cu_ws_gen; // bumped whenever ws_buf is replaced or given back (a recorded graph holds its address)

// At exit the workspace goes back like every other device buffer (the simulator checks that nothing is left).
static void ws_at_exit(void)
{
	if (cu_dev.ready && ws_buf)
		raw_free(ws_buf);
	ws_buf = NULL;
	ws_bytes = 0;
	cu_ws_gen++;
}

void *cu_workspace(struct exec_kernel_ctx *k, size_t bytes)
{
	void *p;

	if (bytes <= ws_bytes)
		return ws_buf;
	if (cu_capturing()) { // the workspace is the session's: it cannot be graph memory
		xk_fail(k, "a library call asked for a larger workspace (%zu bytes) while the run was being recorded", bytes);
		return NULL;
	}
	// stream-ordered: the old buffer goes once the work queued before (which may use it) is done
	cudaError_t e = raw_alloc(&p, bytes);
	if (e != cudaSuccess) {
		cudaGetLastError();
		xk_fail(k, "cannot allocate %zu bytes on the CUDA device (a cuDNN workspace): %s", bytes,
			cudaGetErrorString(e));
		return NULL;
	}
	static int hooked;
	if (!hooked)
		hooked = !atexit(ws_at_exit);
	raw_free(ws_buf);
	ws_buf = p;
	ws_bytes = bytes;
	cu_ws_gen++;
	return p;
}

void *cu_scratch(size_t bytes)
{
	void *p;

	if (cu_capturing())
		return NULL;

	if (raw_alloc(&p, bytes) == cudaSuccess)
		return p;
	cudaGetLastError();
	return NULL;
}

void cu_scratch_free(void *p)
{
	raw_free(p);
}

// ---- values on the device ----

// A copy to pageable host memory returns only when it is done, after the work queued before it: the stream is
// drained first, within the deadline, so the copy itself waits for nothing else.
static int download(struct xtensor *t, struct ov_error *err)
{
	cudaError_t e = cu_sync();
	if (e == cudaSuccess && t->bytes)
		e = cudaMemcpyAsync(t->data, t->dev, t->bytes, cudaMemcpyDeviceToHost, cu_dev.stream);
	if (e == cudaSuccess)
		e = cu_sync();
	if (e == cudaSuccess)
		return 0;
	cudaGetLastError();
	if (e == cudaErrorTimeout)
		return ov_fail(err, OV_INVALID, "the CUDA device did not finish the work within %g s (OV_CUDA_TIMEOUT)",
			       wait_limit());
	return ov_fail(err, OV_INVALID, "CUDA error copying the value to the host: %s (%s)", cudaGetErrorString(e),
		       cudaGetErrorName(e));
}

static const struct xt_devops cu_devops = {download, raw_free};

// The tensor keeps dev as its device copy (the runner's own slot: the copy caches the same value).
static void attach(const struct xtensor *t, void *dev, int host_stale)
{
	struct xtensor *w = (struct xtensor *)t;

	w->dev = dev;
	w->devops = &cu_devops;
	w->host_stale = host_stale;
}

void cu_attach(const struct xtensor *t, void *dev, int host_stale)
{
	attach(t, dev, host_stale);
}

// t on the device (its copy, made now if it has none); i names it in messages: input i, the offered Add's other
// input (-1), or the offered MatMul's other operand (-2).
static const void *on_device(struct exec_kernel_ctx *k, const struct xtensor *t, long i)
{
	char what[48];
	void *d;

	if (t && t->data && t->dev && t->devops == &cu_devops)
		return t->dev; // the usual case: no message to make
	if (i >= 0)
		snprintf(what, sizeof what, "input %ld", i);
	else
		snprintf(what, sizeof what, i == -1 ? "the Add's other input" : "the MatMul's other operand");

	if (!t || !t->data) {
		xk_fail(k, "%s is missing", what);
		return NULL;
	}
	if (t->dev) {
		if (t->devops != &cu_devops) {
			xk_fail(k, "%s is on another device", what);
			return NULL;
		}
		return t->dev;
	}
	if (t->dtype == OV_DT_STRING || !xt_elem_size(t->dtype)) {
		xk_fail(k, "%s is %s, which the CUDA backend cannot hold", what, dtype_short_name(t->dtype));
		return NULL;
	}
	if (cu_capturing() && cu_cap_may_upload(k, t))
		return NULL;
	cudaError_t e = raw_alloc(&d, t->bytes);
	if (e != cudaSuccess) {
		cudaGetLastError();
		xk_fail(k, "cannot allocate %zu bytes on the CUDA device for %s: %s", t->bytes, what, cudaGetErrorString(e));
		return NULL;
	}
	if (cu_upload(k, d, t->data, t->bytes)) {
		raw_free(d);
		return NULL;
	}
	attach(t, d, 0);
	return d;
}

const void *cu_input(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t i)
{
	(void)b;
	return on_device(k, i < k->n_in ? k->in[i] : NULL, (long)i);
}

const void *cu_add_input(struct exec_kernel_ctx *k)
{
	return on_device(k, k->add, -1);
}

const void *cu_mm_other_input(struct exec_kernel_ctx *k)
{
	return on_device(k, k->mm ? k->mm->other : NULL, -2);
}

// ---- copies to the device through a staging buffer ----
//
// A copy from pageable memory makes the stream wait for all the work queued before it (CUDA stages it itself), so
// a small value a node computed on the host in the middle of a run (shape arithmetic, a kernel's table) would
// stop the queue there.  Copies of up to STAGE_MAX bytes go through a pinned buffer of the backend's instead: the
// bytes are copied into it, the copy from there is queued like a kernel, and the buffer is reused from the start
// after the next wait for the stream (cu_sync), when every queued copy has read its part.  A copy that does not
// fit waits for the stream first and starts the buffer over.
#define STAGE_BYTES ((size_t)1 << 20)
#define STAGE_MAX ((size_t)256 << 10)
static char *stage_buf;
static int stage_failed;

// At exit, after the copies queued from it (a device that failed or stopped answering reads nothing more); given back
// either way, so that no memory is left behind (the sanitizers' leak check).
static void stage_at_exit(void)
{
	if (!stage_buf)
		return;
	if (cu_dev.ready)
		cu_sync();
	cudaFreeHost(stage_buf);
	cudaGetLastError();
	stage_buf = NULL;
}

// Where bytes of host data go on their way to the device (copied there), or NULL for a direct copy.
static const void *stage(struct exec_kernel_ctx *k, const void *host, size_t bytes, int *failed)
{
	*failed = 0;
	if (cu_capturing())
		return cu_cap_stage(k, host, bytes, failed);
	if (bytes > STAGE_MAX || stage_failed)
		return NULL;
	if (!stage_buf) {
		if (cudaHostAlloc((void **)&stage_buf, STAGE_BYTES, cudaHostAllocDefault) != cudaSuccess) {
			cudaGetLastError();
			stage_buf = NULL;
			stage_failed = 1; // pinned memory refused: direct copies from now on
			return NULL;
		}
		atexit(stage_at_exit);
	}
	size_t at = (stage_used + 255) & ~(size_t)255;
	if (at + bytes > STAGE_BYTES) {
		if (cu_sync_ok(k)) {
			*failed = 1;
			return NULL;
		}
		at = 0;
	}
	memcpy(stage_buf + at, host, bytes);
	stage_used = at + bytes;
	return stage_buf + at;
}

// cudaMemcpyAsync has taken the data when it returns (staged, or from pageable memory): the caller may free host.
int cu_upload(struct exec_kernel_ctx *k, void *dev, const void *host, size_t bytes)
{
	int failed;

	if (!bytes)
		return 0;
	const void *staged = stage(k, host, bytes, &failed);
	if (failed)
		return -1;
	// a copy from pageable memory may wait for the work queued before it (for a staging buffer of CUDA's): that
	// work is waited for first, within the deadline, when the nodes do not wait for themselves
	if (!staged && !cu_dev.sync_each && cu_sync_ok(k))
		return -1;
	if (CU_OK(k, cudaMemcpyAsync(dev, staged ? staged : host, bytes, cudaMemcpyHostToDevice, cu_dev.stream)))
		return -1;
	if (k->res) {
		k->res->to_device++;
		k->res->to_device_bytes += bytes;
	}
	return 0;
}

int cu_download(struct exec_kernel_ctx *k, void *host, const void *dev, size_t bytes)
{
	if (!bytes)
		return 0;
	if (cu_sync_ok(k) || CU_OK(k, cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, cu_dev.stream)) ||
	    cu_sync_ok(k))
		return -1;
	if (k->res) {
		k->res->to_host++;
		k->res->to_host_bytes += bytes;
	}
	return 0;
}

const struct xtensor *cu_host(struct exec_kernel_ctx *k, size_t i)
{
	const struct xtensor *t = i < k->n_in ? k->in[i] : NULL;

	if (!t || (!t->data && t->bytes)) {
		xk_fail(k, "input %zu is missing", i);
		return NULL;
	}
	int copied = t->host_stale;
	if (cu_capturing())
		cu_cap_host_read(t);
	if (xt_host((struct xtensor *)t, k->err)) {
		ov_wrap(k->err, "input %zu: ", i);
		return NULL;
	}
	if (copied && k->res) {
		k->res->to_host++;
		k->res->to_host_bytes += t->bytes;
	}
	return t;
}

static __global__ void to_f32(const void *x, int dt, float *y, int64_t n)
{
	CU_FOR(i, n)
	y[i] = cu_load(x, dt, i);
}

static __global__ void from_f32(const float *x, void *y, int dt, int64_t n)
{
	CU_FOR(i, n)
	cu_store(y, dt, i, x[i]);
}

const float *cu_input_f32(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t i)
{
	const void *d = cu_input(k, b, i);

	if (!d)
		return NULL;
	const struct xtensor *t = k->in[i];
	if (t->dtype == OV_DT_FLOAT)
		return (const float *)d;
	if (!cu_float_type(t->dtype)) {
		xk_fail(k, "input %zu is %s, not a float type", i, dtype_short_name(t->dtype));
		return NULL;
	}
	float *f = (float *)cu_alloc(k, b, (size_t)t->numel * sizeof(float));
	if (!f)
		return NULL;
	if (t->numel) {
		if (CU_LAUNCH(k, to_f32, cu_grid(t->numel), CU_BLOCK, d, t->dtype, f, t->numel))
			return NULL;
	}
	return f;
}

const void *cu_input_fd(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t i, int *dt)
{
	*dt = i < k->n_in && k->in[i] && k->in[i]->dtype == OV_DT_DOUBLE ? OV_DT_DOUBLE : OV_DT_FLOAT;
	return *dt == OV_DT_DOUBLE ? cu_input(k, b, i) : (const void *)cu_input_f32(k, b, i);
}

int cu_output(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t i, void *dev)
{
	struct xtensor *y = k->out[i];
	int j = 0;

	while (j < b->n && b->p[j] != dev)
		j++;
	if (j == b->n)
		return xk_fail(k, "output %zu: the CUDA kernel handed over a buffer it did not allocate", i);
	b->p[j] = b->p[--b->n]; // the tensor owns it now
	attach(y, dev, 1);
	return cu_dev.sync_each ? cu_sync_ok(k) : 0;
}

int cu_output_f32(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t i, float *dev)
{
	struct xtensor *y = k->out[i];

	if (y->dtype == OV_DT_FLOAT)
		return cu_output(k, b, i, dev);
	if (!cu_float_type(y->dtype))
		return xk_fail(k, "output %zu is %s, not a float type", i, dtype_short_name(y->dtype));
	void *h = cu_alloc(k, b, y->bytes);
	if (!h)
		return -1;
	if (y->numel) {
		if (CU_LAUNCH(k, from_f32, cu_grid(y->numel), CU_BLOCK, dev, h, y->dtype, y->numel))
			return -1;
	}
	return cu_output(k, b, i, h);
}

int cu_output_fd(struct exec_kernel_ctx *k, struct cu_bufs *b, size_t i, void *dev, int dt)
{
	return dt == OV_DT_DOUBLE ? cu_output(k, b, i, dev) : cu_output_f32(k, b, i, (float *)dev);
}

const char *cu_device_id(void)
{
	static char id[340];
	size_t dv = cu_dev.dnn ? cu_dnn.get_version() : 0;
	snprintf(id, sizeof id, "%s_cudnn%zu", cu_dev_name, dv);
	return id;
}

// ---- epilogues of the products ----

static __global__ void epilogue_kernel(float *y, struct cu_epi e, int64_t total)
{
	CU_FOR(t, total)
	y[t] = cu_epi_apply(e, t, y[t]);
}

int cu_take_offers(struct exec_kernel_ctx *k, const struct xtensor *y, struct cu_epi *e)
{
	memset(e, 0, sizeof *e);
	e->act.kind = EXEC_ACT_NONE;
	e->b_inner = e->b_m = 1;
	const struct xtensor *a = k->add;
	if (y->dtype != OV_DT_FLOAT || y->rank < 1)
		return 0;
	if (a && a->dtype == OV_DT_FLOAT && a->kind == XT_TENSOR && a->rank <= y->rank) {
		// a's dims against y's trailing ones: all equal (a residual), or ones but the last (a bias)
		int same = a->rank == y->rank, row = a->numel == y->dims[y->rank - 1];
		for (int i = 0; i < a->rank; i++) {
			int64_t ad = a->dims[a->rank - 1 - i], yd = y->dims[y->rank - 1 - i];
			same &= ad == yd;
			row &= i == 0 ? ad == yd : ad == 1;
		}
		if (same || row) {
			if (!(e->add = (const float *)cu_add_input(k)))
				return -1;
			e->add_row = same ? 0 : y->dims[y->rank - 1];
			e->act = k->add_act;
			k->add_done = 1;
			return 0;
		}
	}
	if (k->act.kind != EXEC_ACT_NONE) {
		e->act = k->act;
		k->act_done = 1;
	}
	return 0;
}

int cu_epilogue(struct exec_kernel_ctx *k, float *y, int64_t total, const struct cu_epi *e)
{
	if ((!e->bias && !e->add && e->act.kind == EXEC_ACT_NONE) || total <= 0)
		return 0;
	return CU_LAUNCH(k, epilogue_kernel, cu_grid(total), CU_BLOCK, y, *e, total);
}

// ---- the backend ----

// The row with the greatest since <= opset, as for the CPU kernels (ai.onnx ops only), by name (ops/kindex.h).
static const struct exec_kernel *const family_rows[] = {
	cuda_elementwise_kernels, cuda_logic_kernels, cuda_gemm_kernels,  cuda_conv_kernels,
	cuda_pool_kernels,        cuda_norm_kernels,  cuda_shape_kernels, cuda_reduce_kernels,
	cuda_resize_kernels,      cuda_rnn_kernels,   cuda_quant_kernels, cuda_index_kernels,
	cuda_scatter_kernels,     cuda_attention_kernels};
static const size_t *const family_counts[] = {
	&cuda_elementwise_count, &cuda_logic_count, &cuda_gemm_count,  &cuda_conv_count,
	&cuda_pool_count,        &cuda_norm_count,  &cuda_shape_count, &cuda_reduce_count,
	&cuda_resize_count,      &cuda_rnn_count,   &cuda_quant_count, &cuda_index_count,
	&cuda_scatter_count,     &cuda_attention_count};
static struct kindex families = {family_rows, family_counts, sizeof family_rows / sizeof family_rows[0]};

static exec_kernel_fn find_kernel(const char *domain, const char *op, int64_t opset)
{
	if (domain && *domain && strcmp(domain, "ai.onnx"))
		return NULL;
	const struct exec_kernel *best = kindex_find(&families, op, opset);
	return best ? best->fn : NULL;
}

static int cuda_supports_op(const char *domain, const char *op, int64_t opset)
{
	return find_kernel(domain, op, opset) != NULL;
}

// ---- waiting between nodes ----
//
// The first run of a graph index waits for the device after every node (cu_output), so that a fault is the
// node's error, named; once a run of that index has gone well, later runs of it (run --repeat, the TUI's runs of
// an unchanged model) queue every node's work without waiting, and wait once at the end (cuda_run_wait), where an
// error is the run's.  OV_CUDA_SYNC=1 waits after every node always.
static uint64_t warm_serial; // the graph index whose last run went well (0: none)
static uint64_t run_serial;  // the graph index of the run going on
static int run_failed;       // a node of the run going on failed

static int always_sync(void)
{
	static int v = -1;

	if (v < 0) {
		v = exec_knob("OV_CUDA_SYNC") == 1;
	}
	return v;
}

static int cuda_run_node(struct exec_kernel_ctx *k)
{
	const Onnx__NodeProto *n = k->g->nodes[k->node].proto;
	exec_kernel_fn fn = find_kernel(n->domain ? n->domain : "", n->op_type ? n->op_type : "", k->opset);

	if (!fn)
		return EXEC_DECLINE;
	run_serial = k->g->serial;
	cu_dev.sync_each = always_sync() || !run_serial || run_serial != warm_serial;
	int rc = k->chain ? cu_chain(k) : EXEC_DECLINE;
	if (rc == EXEC_DECLINE)
		rc = fn(k);
	if (rc < 0)
		run_failed = 1;
	return rc;
}

static int cuda_run_wait(struct ov_error *err)
{
	if (!cu_dev.ready)
		return 0;
	cudaError_t e = cu_sync();
	if (e == cudaSuccess) {
		if (!run_failed)
			warm_serial = run_serial;
		return 0;
	}
	cudaGetLastError();
	run_failed = 1;
	if (e == cudaErrorTimeout)
		return ov_fail(err, OV_INVALID,
			       "the CUDA device did not finish the run's work within %g s (OV_CUDA_TIMEOUT; the nodes ran "
			       "without waiting for each other: OV_CUDA_SYNC=1 names the node)", wait_limit());
	return ov_fail(err, OV_INVALID,
		       "CUDA error in the run's work: %s (%s) (the nodes ran without waiting for each other: "
		       "OV_CUDA_SYNC=1 names the node)", cudaGetErrorString(e), cudaGetErrorName(e));
}

// After a run: the device idle, and a fault that outlives the run (CUDA's sticky errors, e.g. an illegal address:
// the context is lost) remembered, so later requests for the backend say so instead of failing node by node.
static void cuda_run_end(void)
{
	if (run_failed)
		warm_serial = 0; // the next run waits after every node again
	run_failed = 0;
	cu_cap_run_end();
	if (!cu_dev.ready)
		return;
	cudaError_t e = cu_sync();
	cudaGetLastError();
	if (e == cudaErrorTimeout)
		return; // given up (cu_sync said why)
	// the pool keeps freed memory from one run to the next (run --repeat, the benchmarks: a warm run allocates
	// nothing from the driver); exec_cuda_release gives it back when the caller goes idle (the TUI after a run)
	if (e != cudaSuccess && (e = cu_sync()) != cudaSuccess && e != cudaErrorTimeout) {
		snprintf(cu_failed, sizeof cu_failed,
			 "the CUDA device failed earlier in this session (%s); restart onnxview to use it again",
			 cudaGetErrorString(e));
		cu_dev.ready = 0;
	}
}

// The device, and the versions of the libraries loaded so far (each is loaded by the first node that needs it).
static const char *cuda_describe(void)
{
	int bmaj = 0, bmin = 0;
	size_t dv = cu_dev.dnn ? cu_dnn.get_version() : 0;

	if (cu_dev.blas) {
		cu_blas.get_property(MAJOR_VERSION, &bmaj);
		cu_blas.get_property(MINOR_VERSION, &bmin);
	}
	char b[64] = "cuBLAS not loaded", d[64] = "cuDNN not loaded";
	if (cu_dev.blas)
		snprintf(b, sizeof b, "cuBLAS %d.%d", bmaj, bmin);
	if (cu_dev.dnn)
		snprintf(d, sizeof d, "cuDNN %zu.%zu", dv / 10000, dv / 100 % 100);
	snprintf(cu_desc, sizeof cu_desc, "%s, %s, %s", cu_dev_desc, b, d);
	return cu_desc;
}

// ---- run --profile: events between the nodes ----
//
// One event per mark, created once and kept for the session (a run with more nodes adds what it lacks); the
// device time of node i is the time between marks i and i + 1, read after the run's wait.
static cudaEvent_t *prof_ev;
static size_t prof_n, prof_cap;
static int prof_ok; // every mark of this run was recorded

static int cuda_prof_marks(size_t n)
{
	if (!cu_dev.ready)
		return -1;
	if (n > prof_cap) {
		cudaEvent_t *ev = (cudaEvent_t *)realloc(prof_ev, n * sizeof *ev);
		if (!ev)
			return -1;
		prof_ev = ev;
		for (; prof_cap < n; prof_cap++)
			if (cudaEventCreate(&prof_ev[prof_cap]) != cudaSuccess) {
				cudaGetLastError();
				prof_n = 0;
				return -1;
			}
	}
	prof_n = n;
	prof_ok = 1;
	return 0;
}

static void cuda_prof_mark(size_t i)
{
	if (i >= prof_n || cudaEventRecord(prof_ev[i], cu_dev.stream) != cudaSuccess) {
		cudaGetLastError();
		prof_ok = 0;
	}
}

static double cuda_prof_read(size_t i)
{
	float ms = -1;

	if (!prof_ok || i + 1 >= prof_n || cudaEventElapsedTime(&ms, prof_ev[i], prof_ev[i + 1]) != cudaSuccess) {
		cudaGetLastError();
		return -1;
	}
	return ms;
}

// name, supports_op, run_node, describe, run_end, run_wait, prof_marks, prof_mark, prof_read, graph_begin,
// graph_input, graph_end, graph_launch, graph_free (C++17 has no designated initializers)
static const struct exec_backend_ops cuda_backend = {
	"cuda",          cuda_supports_op, cuda_run_node,  cuda_describe,  cuda_run_end,
	cuda_run_wait,   cuda_prof_marks,  cuda_prof_mark, cuda_prof_read, cu_graph_begin,
	cu_graph_input,  cu_graph_end,     cu_graph_launch, cu_graph_free};

// Record why the device cannot be used (and undo what was set up), so every later request gets the same answer.
static void init_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void init_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cu_failed, sizeof cu_failed, fmt, ap);
	va_end(ap);
	if (cu_dev.dnn)
		cu_dnn.destroy(cu_dev.dnn);
	if (cu_dev.blas)
		cu_blas.destroy(cu_dev.blas);
	if (cu_dev.stream)
		cudaStreamDestroy(cu_dev.stream);
	memset(&cu_dev, 0, sizeof cu_dev);
	cudaGetLastError();
}

static void init_device(void)
{
	int count = 0, pools = 0;
	cudaError_t e = cudaGetDeviceCount(&count);

	if (e != cudaSuccess) {
		init_fail("no CUDA device: %s", cudaGetErrorString(e));
		return;
	}
	if (count < 1) {
		init_fail("no CUDA device: the CUDA runtime found none");
		return;
	}
	if ((e = cudaSetDevice(0)) != cudaSuccess) {
		init_fail("no CUDA device: device 0 cannot be used: %s", cudaGetErrorString(e));
		return;
	}
	cudaDeviceProp p;
	if ((e = cudaGetDeviceProperties(&p, 0)) != cudaSuccess) {
		init_fail("no CUDA device: device 0 cannot be queried: %s", cudaGetErrorString(e));
		return;
	}
	if ((e = cudaStreamCreateWithFlags(&cu_dev.stream, cudaStreamNonBlocking)) != cudaSuccess) {
		init_fail("the CUDA device cannot start a stream: %s", cudaGetErrorString(e));
		return;
	}
	// Stream-ordered allocation from the device's pool, which keeps freed memory for the next node instead of
	// handing it back to the driver at every synchronisation (the default threshold).
	if (cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0) == cudaSuccess && pools) {
		uint64_t keep = UINT64_MAX;
		if (cudaDeviceGetDefaultMemPool(&cu_dev.pool, 0) == cudaSuccess &&
		    cudaMemPoolSetAttribute(cu_dev.pool, cudaMemPoolAttrReleaseThreshold, &keep) == cudaSuccess)
			cu_dev.pools = 1;
	}
	cudaGetLastError();
	snprintf(cu_dev_desc, sizeof cu_dev_desc, "CUDA device 0: %s (compute %d.%d)", p.name, p.major, p.minor);
	snprintf(cu_dev_name, sizeof cu_dev_name, "%s_cc%d.%d", p.name, p.major, p.minor);
	for (char *c = cu_dev_name; *c; c++)
		if (*c == ' ' || *c == '\n' || *c == '\t' || *c == ',')
			*c = '_';
	cu_dev.ready = 1;
}

extern "C" const struct exec_backend_ops *exec_backend_cuda(struct ov_error *err)
{
	if (!cu_dev.ready && !cu_failed[0])
		init_device();
	if (!cu_dev.ready) {
		ov_fail(err, OV_INVALID, "%s", cu_failed);
		return NULL;
	}
	return &cuda_backend;
}

extern "C" void exec_cuda_release(void)
{
	if (!cu_dev.ready || cu_sync() != cudaSuccess) {
		cudaGetLastError();
		return;
	}
	raw_free(ws_buf);
	ws_buf = NULL;
	ws_bytes = 0;
	cu_ws_gen++;
	if (cu_dev.pools)
		cache_flush();
	if (cu_sync() == cudaSuccess && cu_dev.pools) {
		cudaMemPoolTrimTo(cu_dev.pool, 0);
		cudaDeviceGraphMemTrim(0); // what graphs (OV_CUDA_GRAPH) hold and do not use now
	}
	cudaGetLastError();
}

extern "C" void exec_cuda_set_tf32(int on)
{
	cu_dev.tf32 = on != 0;
}
