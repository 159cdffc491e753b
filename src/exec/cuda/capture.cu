// Warm runs recorded as a CUDA graph and replayed (exec_backend_ops.graph_*; cuda/backend.h says what the backend's
// calls do while the stream is captured).  On by default; OV_CUDA_GRAPH=0 turns it off.
//
// The runner records a warm run (constants kept, every plan made): the stream is captured in thread-local mode, the
// graph's inputs are placed on the device through a pinned arena, and the nodes run as usual, except that their
// work is recorded, not run.  At the end the graph is instantiated (its memory freed automatically before each
// relaunch, so values the runner frees outside it never hold a launch back) and launched once for the run being
// recorded.  A later run with inputs of the same types and shapes refills the arena with its inputs and launches
// the graph: one call instead of a launch per kernel and a host pass over every node.
//
// What a graph holds is fixed: device addresses (the graph's own memory, at addresses fixed for it), the arena's
// bytes (the inputs, refilled at each launch, and small values the nodes computed on the host from shapes, the same
// for the same shapes), library calls' arguments.  So a recording fails (and the run is redone without one) when a
// node waits for the device (it reads a value the device computed: NonZero's count, a Loop's condition), grows the
// shared workspace, or copies a kept constant to the device for the first time; and an input the recorded run read
// on the host (a Reshape's shape fed as an input) must hold the same bytes at a launch, or the nodes run instead.
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/exec/cuda/backend.h"

// An input of the graph: its device buffer (the graph's memory), where its bytes sit in the arena, and a copy of
// them when the recorded run read them on the host.
struct cap_input {
	void *dev;
	size_t off, bytes;
	unsigned char *seen; // the bytes read on the host (NULL: not read there)
	int read;
};

struct cu_graph {
	cudaGraphExec_t exec;
	unsigned ws_gen; // the workspace the recording used (cu_ws_gen): a graph holds its address
	char *arena; // pinned
	struct cap_input *in;
	size_t n_in;
};

// The recording going on (on), or the one just thrown away (dropped: its allocations are no memory).
static struct {
	int on, dropped;
	void **mem;          // allocations made while recording and not freed in the graph
	size_t n_mem, cap_mem;
	void **later;        // frees of memory from before the recording, done once the graph has run (or is gone)
	size_t n_later, cap_later;
	const struct xtensor *kept;
	size_t n_kept;
	char *arena;
	size_t arena_bytes, arena_used;
	struct cap_input *in;
	size_t n_in, cap_in;
} cap;

static int push(void ***a, size_t *n, size_t *capacity, void *p)
{
	if (*n == *capacity) {
		size_t nc = *capacity ? 2 * *capacity : 64;
		void **b = (void **)realloc(*a, nc * sizeof *b);
		if (!b)
			return -1;
		*a = b;
		*capacity = nc;
	}
	(*a)[(*n)++] = p;
	return 0;
}

static int take(void **a, size_t *n, void *p)
{
	for (size_t i = *n; i-- > 0;)
		if (a[i] == p) {
			a[i] = a[--*n];
			return 1;
		}
	return 0;
}

int cu_capturing(void)
{
	return cap.on;
}

void cu_cap_allocated(void *p)
{
	if (push(&cap.mem, &cap.n_mem, &cap.cap_mem, p))
		cap.on = 2; // no room to remember it: the recording cannot be trusted (graph_end throws it away)
}

int cu_cap_free(void *p)
{
	if (cap.on) {
		if (take(cap.mem, &cap.n_mem, p)) {
			// a free in the graph (the memory was the recording's)
			cudaFreeAsync(p, cu_dev.stream);
			return 1;
		}
		if (push(&cap.later, &cap.n_later, &cap.cap_later, p))
			cap.on = 2;
		return 1; // memory from before: freed once the graph has run
	}
	if (cap.dropped && take(cap.mem, &cap.n_mem, p))
		return 1; // an allocation of a recording thrown away: never memory
	return 0;
}

const void *cu_cap_stage(struct exec_kernel_ctx *k, const void *host, size_t bytes, int *failed)
{
	size_t at = (cap.arena_used + 255) & ~(size_t)255;

	if (at > cap.arena_bytes || bytes > cap.arena_bytes - at) {
		*failed = 1;
		xk_fail(k, "the run being recorded copies more to the device than the run before it (%zu bytes of room)",
			cap.arena_bytes);
		return NULL;
	}
	memcpy(cap.arena + at, host, bytes);
	cap.arena_used = at + bytes;
	*failed = 0;
	return cap.arena + at;
}

int cu_cap_may_upload(struct exec_kernel_ctx *k, const struct xtensor *t)
{
	if (cap.kept && t >= cap.kept && t < cap.kept + cap.n_kept)
		return xk_fail(k, "a constant would be copied to the device for the first time while the run is recorded");
	return 0;
}

void cu_cap_host_read(const struct xtensor *t)
{
	for (size_t i = 0; t && t->dev && i < cap.n_in; i++)
		if (cap.in[i].dev == t->dev)
			cap.in[i].read = 1;
}

void cu_cap_run_end(void)
{
	if (cap.on)
		return;
	cap.dropped = 0;
	cap.n_mem = 0;
}

// ---- the backend's graph operations ----

static int asked(void)
{
	static int v = -1;

	if (v < 0) {
		v = exec_knob("OV_CUDA_GRAPH") != 0;
	}
	return v;
}

static void inputs_free(struct cap_input *in, size_t n)
{
	for (size_t i = 0; in && i < n; i++)
		free(in[i].seen);
	free(in);
}

int cu_graph_begin(const struct xtensor *kept, size_t n_kept, uint64_t up_bytes, uint64_t ups, struct ov_error *err)
{
	if (!asked())
		return 1;
	if (!cu_dev.ready)
		return ov_fail(err, OV_INVALID, "the CUDA device is not ready");
	if (!cu_dev.pools)
		return ov_fail(err, OV_INVALID, "the device has no stream-ordered allocator, which graph memory needs");
	if (cap.on || cap.dropped)
		return ov_fail(err, OV_INVALID, "a recording is going on already");
	cudaError_t e = cu_sync();
	if (e != cudaSuccess) {
		cudaGetLastError();
		return ov_fail(err, OV_INVALID, "the device failed before the recording: %s", cudaGetErrorString(e));
	}
	// room for what the run before copied, each copy aligned, and a little more
	if (up_bytes > ((uint64_t)1 << 40) || ups > ((uint64_t)1 << 24))
		return ov_fail(err, OV_INVALID, "the run before copied too much to the device to record one");
	size_t room = (size_t)up_bytes + (size_t)ups * 256 + 4096;
	if (cudaHostAlloc((void **)&cap.arena, room, cudaHostAllocDefault) != cudaSuccess) {
		cudaGetLastError();
		cap.arena = NULL;
		return ov_fail(err, OV_NOMEM, "cannot allocate %zu bytes of pinned host memory for the graph's inputs", room);
	}
	if ((e = cudaStreamBeginCapture(cu_dev.stream, cudaStreamCaptureModeThreadLocal)) != cudaSuccess) {
		cudaGetLastError();
		cudaFreeHost(cap.arena);
		cap.arena = NULL;
		return ov_fail(err, OV_INVALID, "the stream cannot be recorded: %s", cudaGetErrorString(e));
	}
	cap.on = 1;
	cap.arena_bytes = room;
	cap.arena_used = 0;
	cap.kept = kept;
	cap.n_kept = n_kept;
	cap.n_mem = cap.n_later = 0;
	cap.in = NULL;
	cap.n_in = cap.cap_in = 0;
	return 0;
}

int cu_graph_input(struct xtensor *t, struct ov_error *err)
{
	struct exec_kernel_ctx k = {};
	void *d;
	int failed;

	k.err = err;
	if (!cap.on)
		return ov_fail(err, OV_INVALID, "no recording is going on");
	if (t->kind != XT_TENSOR || t->dev || t->host_stale || t->dtype == OV_DT_STRING || !xt_elem_size(t->dtype))
		return ov_fail(err, OV_INVALID, "%s, which the device cannot hold",
			       t->kind != XT_TENSOR ? "not a tensor" : t->dev || t->host_stale ? "not a host tensor"
												: dtype_short_name(t->dtype));
	if (cap.n_in == cap.cap_in) {
		size_t nc = cap.cap_in ? 2 * cap.cap_in : 8;
		struct cap_input *b = (struct cap_input *)realloc(cap.in, nc * sizeof *b);
		if (!b)
			return ov_fail(err, OV_NOMEM, "out of memory");
		cap.in = b;
		cap.cap_in = nc;
	}
	cudaError_t e = cu_raw_alloc(&d, t->bytes);
	if (e != cudaSuccess) {
		cudaGetLastError();
		return ov_fail(err, OV_INVALID, "cannot allocate %zu bytes of the graph's memory: %s", t->bytes,
			       cudaGetErrorString(e));
	}
	const char *staged = (const char *)cu_cap_stage(&k, t->data, t->bytes, &failed);
	if (failed || (t->bytes && cu_ok(&k, cudaMemcpyAsync(d, staged, t->bytes, cudaMemcpyHostToDevice,
							      cu_dev.stream), "cudaMemcpyAsync"))) {
		cu_raw_free(d);
		return -1;
	}
	struct cap_input *in = &cap.in[cap.n_in++];
	memset(in, 0, sizeof *in);
	in->dev = d;
	in->off = t->bytes ? (size_t)(staged - cap.arena) : 0;
	in->bytes = t->bytes;
	cu_attach(t, d, 0);
	return 0;
}

// The recording thrown away: the stream is no longer captured, the frees that waited are done now (nothing of the
// recording ran), and the recording's allocations are forgotten after the run (cu_cap_run_end).
static void drop(cudaGraph_t g)
{
	if (g)
		cudaGraphDestroy(g);
	cudaGetLastError();
	cap.on = 0;
	cap.dropped = 1;
	for (size_t i = 0; i < cap.n_later; i++)
		cu_raw_free(cap.later[i]);
	cap.n_later = 0;
	if (cap.arena)
		cudaFreeHost(cap.arena);
	cap.arena = NULL;
	inputs_free(cap.in, cap.n_in);
	cap.in = NULL;
	cap.n_in = cap.cap_in = 0;
	cap.kept = NULL;
}

void *cu_graph_end(int keep, struct ov_error *err)
{
	cudaGraph_t g = NULL;
	cudaGraphExec_t x = NULL;

	if (!cap.on) {
		if (keep)
			ov_fail(err, OV_INVALID, "no recording is going on");
		return NULL;
	}
	int whole = cap.on == 1;
	cudaError_t e = cudaStreamEndCapture(cu_dev.stream, &g);
	cap.on = 0;
	if (!keep) {
		drop(g);
		return NULL;
	}
	if (e != cudaSuccess || !g || !whole) {
		if (!whole)
			ov_fail(err, OV_NOMEM, "out of memory while recording");
		else
			ov_fail(err, OV_INVALID, "the recording was not accepted: %s", cudaGetErrorString(e));
		drop(g);
		return NULL;
	}
	struct cu_graph *h = (struct cu_graph *)calloc(1, sizeof *h);
	for (size_t i = 0; h && i < cap.n_in; i++)
		if (cap.in[i].read && cap.in[i].bytes && !(cap.in[i].seen = (unsigned char *)malloc(cap.in[i].bytes))) {
			free(h);
			h = NULL;
		}
	if (!h) {
		ov_fail(err, OV_NOMEM, "out of memory");
		drop(g);
		return NULL;
	}
	if ((e = cudaGraphInstantiate(&x, g, cudaGraphInstantiateFlagAutoFreeOnLaunch)) != cudaSuccess) {
		ov_fail(err, OV_INVALID, "the recorded graph cannot be instantiated: %s", cudaGetErrorString(e));
		free(h);
		drop(g);
		return NULL;
	}
	cudaGraphDestroy(g);
	// the recorded run's own values: the graph runs once now
	if ((e = cudaGraphLaunch(x, cu_dev.stream)) != cudaSuccess) {
		cudaGetLastError();
		ov_fail(err, OV_INVALID, "CUDA error launching the recorded graph: %s (%s)", cudaGetErrorString(e),
			cudaGetErrorName(e));
		cudaGraphExecDestroy(x);
		free(h);
		drop(NULL);
		return NULL;
	}
	for (size_t i = 0; i < cap.n_later; i++) // after the graph, on the same stream
		cu_raw_free(cap.later[i]);
	cap.n_later = 0;
	cap.n_mem = 0; // the graph's memory, live after the launch: freed outside it like any other
	for (size_t i = 0; i < cap.n_in; i++)
		if (cap.in[i].seen)
			memcpy(cap.in[i].seen, cap.arena + cap.in[i].off, cap.in[i].bytes);
	h->exec = x;
	h->ws_gen = cu_ws_gen;
	h->arena = cap.arena;
	h->in = cap.in;
	h->n_in = cap.n_in;
	cap.arena = NULL;
	cap.in = NULL;
	cap.n_in = cap.cap_in = 0;
	cap.kept = NULL;
	return h;
}

int cu_graph_launch(void *graph, const struct xtensor *const *inputs, size_t n, struct ov_error *err)
{
	struct cu_graph *h = (struct cu_graph *)graph;

	if (!cu_dev.ready)
		return ov_fail(err, OV_INVALID, "the CUDA device is not ready");
	if (!h || n != h->n_in)
		return ov_fail(err, OV_INVALID, "the graph takes %zu inputs, not %zu", h ? h->n_in : 0, n);
	if (h->ws_gen != cu_ws_gen)
		return 2; // the workspace it reads was replaced (a larger one for another cut, or given back when idle)
	for (size_t i = 0; i < n; i++) {
		if (!inputs[i] || inputs[i]->bytes != h->in[i].bytes || (inputs[i]->bytes && !inputs[i]->data))
			return ov_fail(err, OV_INVALID, "input %zu is not the size the graph was recorded with", i);
		if (h->in[i].seen && memcmp(h->in[i].seen, inputs[i]->data, h->in[i].bytes))
			return 1;
	}
	// the arena was last read by the previous launch, which the caller waited for
	for (size_t i = 0; i < n; i++)
		if (h->in[i].bytes)
			memcpy(h->arena + h->in[i].off, inputs[i]->data, h->in[i].bytes);
	cudaError_t e = cudaGraphLaunch(h->exec, cu_dev.stream);
	if (e != cudaSuccess) {
		cudaGetLastError();
		return ov_fail(err, OV_INVALID, "CUDA error launching the recorded graph: %s (%s)", cudaGetErrorString(e),
			       cudaGetErrorName(e));
	}
	return 0;
}

void cu_graph_free(void *graph)
{
	struct cu_graph *h = (struct cu_graph *)graph;

	if (!h)
		return;
	if (cu_dev.ready)
		cu_sync(); // a launch may still read the arena
	cudaGraphExecDestroy(h->exec);
	cudaFreeHost(h->arena);
	cudaGetLastError();
	inputs_free(h->in, h->n_in);
	free(h);
}
