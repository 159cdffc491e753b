/* The executor: run any cut of a model (from any values to any values) on a backend, keeping what the user
 * watches, and hand the results back as xtensors.
 *
 * exec_plan_build() takes the graph index and the cut, picks the nodes needed in topological order, and counts
 * the uses of every value so intermediates are freed after their last use (unless watched, or --all).  Constants
 * (initializers, Constant nodes) are converted once.  exec_run() feeds the inputs, runs node after node through
 * the backend (a node the backend cannot run falls back to the CPU, and the report says so), and returns every
 * output and watched value.  Nothing here exits or prints: failures come back as one line in err, naming the node
 * ("#12 'conv1' Conv: input 1 has shape [64,3,7,7], X has 4 channels"). */
#ifndef OV_EXEC_H
#define OV_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "src/exec/xtensor.h"
#include "src/graph/graph.h"
#include "src/model/model.h"

struct exec_kernel_ctx;
struct exec_env; /* the values of the graphs being run, innermost first (for subgraphs) */
struct exec_result;

/* An activation fused into the node before it: y = relu(y), or y = clip(y, lo, hi) as the Clip kernel computes it
 * (NaN stays NaN; lo > hi gives hi), or SiLU: y = y * sigmoid(y), as a Sigmoid of y and a Mul of y by it compute
 * it (YOLO's and EfficientNet's activation, exported as those two nodes).  SiLU is offered to Conv kernels only
 * (the CPU's, and the CUDA backend's epilogue, cuda/backend.h). */
enum exec_act_kind { EXEC_ACT_NONE, EXEC_ACT_RELU, EXEC_ACT_CLIP, EXEC_ACT_SILU };
struct exec_act {
	enum exec_act_kind kind;
	float lo, hi;
};

/* What a kernel sees of its node. Kernels compute their outputs' shapes from the inputs' actual shapes and
 * allocate them with xk_output(). */
struct exec_kernel_ctx {
	struct ov_model *m;
	const struct graph *g;
	uint32_t node;
	int64_t opset;                 /* of the node's domain */
	const struct xtensor **in;     /* NULL for inputs left out (""); a sequence or optional (in[i]->kind) only
	                                  where cpu_takes_containers() lets one in */
	size_t n_in;
	struct xtensor **out;          /* slots to fill: every output has one (scratch for outputs the model leaves
	                                  out, discarded after the node); optional outputs past n_out are not asked */
	size_t n_out;
	struct ov_error *err;
	struct exec_result *res;       /* where xk_note() files notes (NULL: they are dropped) */
	const struct exec_env *env;    /* the running graph's values, for xk_run_subgraph (NULL outside a run) */
	/* The runner's offer to fuse: when the node's output 0 goes only to a Relu or Clip (and nobody watches it),
	 * or, for a Conv, to a Sigmoid and a Mul of it by that (SiLU), act says which.  A kernel may apply it to a float32 output 0 as it writes it and set act_done; the runner
	 * then hands output 0 on as the activation's result instead of running it.  Ignoring the offer is correct. */
	struct exec_act act;
	int act_done;
	/* The runner's offer to fuse an Add: when the node's output 0 goes only to an Add (and nobody watches it),
	 * add is the Add's other input (float32; on the host, or under a device backend possibly on the device only: a
	 * kernel reads it where it computes, and a node left to the CPU is offered nothing) and add_act the Relu or
	 * Clip after the Add when one
	 * may go with it (act is then NONE).  A kernel may write y = add_act(y + add) as the Add and activation
	 * kernels would compute it, when add broadcasts to output 0 without growing it, and set add_done; the runner
	 * then hands output 0 on as the Add's result (and the activation's) instead of running them.  Ignoring the
	 * offer is correct. */
	const struct xtensor *add;
	struct exec_act add_act;
	int add_done;
	/* The runner's offer to run a LayerNormalization written out as nodes (torch's exports before opset 17):
	 * when the node is ReduceMean(X) over X's last axis, keeping it, and begins D = Sub(X, mean),
	 * ReduceMean(Pow(D, 2)) over the same axis, Add(eps), Sqrt, Div(D, ..), Mul(gamma), Add(beta), the values
	 * between read by nobody else and watched by nobody, ln holds eps, gamma and beta (float32, on the host).  A
	 * ReduceMean kernel may then write the last Add's result as its output 0, every float operation as those
	 * kernels do it, and set ln_done; the runner hands it on as the last Add's output and skips the nodes
	 * between.  Ignoring the offer is correct. */
	const struct exec_ln_offer *ln;
	int ln_done;
	/* The runner's offer to run the depthwise convolution after this node with it, as one block (MobileNet's
	 * expansion, activation, depthwise, activation): when the node is a Conv on the CPU backend whose output 0 goes
	 * only to the Relu or Clip in act (or straight, act NONE) and from there only to another Conv as its X, that
	 * Conv's W and B float32 at hand, nothing between watched, dw names that Conv, its W and B, and the Relu or
	 * Clip after it (act NONE: none, or not fusable).  A kernel may write that activation's output (the Conv's when
	 * there is none) as its output 0, every float operation as the kernels apart would do it, and set dw_done; the
	 * runner hands it on as that node's output and skips the nodes between.  Ignoring the offer is correct. */
	const struct exec_dw_offer *dw;
	int dw_done;
	/* The runner's offer to apply the inference BatchNormalization after a Conv on the CPU backend (and the
	 * activation after that, when one may go with it): when the Conv's output 0 goes only to a
	 * BatchNormalization's X, nothing between watched, its four parameters float32 at hand, bn holds them.  A
	 * Conv kernel may write the BatchNormalization's output (the activation's, when there is one) as its
	 * output 0, every float operation as those kernels do it, and set bn_done; the runner hands it on as theirs
	 * and skips them.  Ignoring the offer is correct. */
	const struct exec_bn_offer *bn;
	int bn_done;
	/* The runner's offer, on a device backend, to run the chain of element-wise float32 nodes that starts at this
	 * one as one pass (exact GELU written out is five: Div, Erf, Add, Mul, Mul): see exec_chain_offer.  A kernel
	 * may write the last node's output as its output 0, each element through every step as the nodes' own
	 * kernels would compute it, and set chain_done; the runner hands it on as the last node's output and skips
	 * the others.  Ignoring the offer is correct. */
	const struct exec_chain_offer *chain;
	int chain_done;
	/* The runner's offer, on a device backend, to take a Transpose into the MatMul next to it (torch's attention
	 * moves the heads in front for the products and back after them): see exec_mm_offer.  A kernel may compute
	 * the MatMul reading its operand, or writing its output, through the permutation, every output the same sum
	 * as the MatMul's own kernel would make, and set mm_done's bits (exec_mm_offer); the runner hands this node's
	 * output 0 on as the last node's done and skips those between.  Ignoring the offer is correct. */
	const struct exec_mm_offer *mm;
	int mm_done;
	/* Inputs the kernel may take as they are (bit i: input i): the node is their last reader, and the runner
	 * owns them and watches them not (xk_take_input). */
	unsigned take;
	/* exec_options.runs of the run (the top graph's inside a subgraph): a kernel may spend time once to save it
	 * in every later run (timing its ways) when it is more than 1; once, such time is lost. */
	long runs;
};

struct exec_ln_offer {
	const struct xtensor *eps, *gamma, *beta;
};

struct exec_dw_offer {
	uint32_t node;
	const struct xtensor *w, *b; /* b NULL: none */
	struct exec_act act;
};

/* A chain of element-wise float32 nodes (src/exec/chain.c): x, input x of the first node, goes through steps in
 * order, each a unary op of the value so far (no attributes), or a binary one of the value so far and a float32
 * scalar constant c (at either side), or of it and x itself (either side: SiLU's Mul, GELU's);
 * every value between is read by the next step alone and watched by nobody.  The first step is the kernel's own
 * node; nodes[i] is step i's node. */
#define EXEC_CHAIN_MAX 8
enum exec_chain_arg { EXEC_CHAIN_UNARY, EXEC_CHAIN_C_RIGHT, EXEC_CHAIN_C_LEFT, EXEC_CHAIN_X_RIGHT, EXEC_CHAIN_X_LEFT };
struct exec_chain_step {
	const char *op;
	enum exec_chain_arg arg;
	float c;
	uint32_t node;
};
struct exec_chain_offer {
	int n;
	size_t x;
	struct exec_chain_step step[EXEC_CHAIN_MAX];
};

/* A Transpose next to a MatMul (src/exec/mmperm.c), each value between read by the next node alone and watched by
 * nobody.  Offered to a Transpose whose output is an operand of MatMul mm (side 0: A, 1: B) whose other operand
 * (other, float32, on the host or the device) is computed already: the kernel may write the MatMul's output as its
 * own output 0 (mm_done bit 1).  Offered to a MatMul (mm -1), or with the MatMul above, when the product's output
 * goes to Transpose after (-1: none): the kernel may write that Transpose's output instead (bit 2).  perm is
 * after's attribute as the node gives it, n_perm entries (-1: none, the axes reversed); the kernel checks it
 * against the ranks it sees. */
struct exec_mm_offer {
	int32_t mm;
	int side;
	const struct xtensor *other;
	int32_t after;
	int n_perm;
	int64_t perm[XT_MAX_RANK];
};

/* An inference BatchNormalization (epsilon eps) and what follows it: a Relu or Clip (act, unary NONE), a
 * HardSwish, a HardSigmoid (alpha, beta), HardSwish written out as y * act(y + alpha) / beta (Paddle's export: Add,
 * Relu or Clip, Mul, Div), or nothing (act NONE, unary NONE). */
enum exec_bn_unary { EXEC_BN_NONE, EXEC_BN_HARDSWISH, EXEC_BN_HARDSIGMOID, EXEC_BN_HARDSWISH_NODES };
struct exec_bn_offer {
	uint32_t node;
	const struct xtensor *scale, *b, *mean, *var;
	float eps;
	struct exec_act act;
	enum exec_bn_unary unary;
	float alpha, beta;
};

/* Attributes of the kernel's node (absent: the default). */
int64_t xk_attr_int(const struct exec_kernel_ctx *k, const char *name, int64_t def);
float xk_attr_float(const struct exec_kernel_ctx *k, const char *name, float def);
/* Copies the string attribute into buf (def when absent); one too long for buf or holding a NUL byte comes back as
 * "\x01?", which no kernel takes for a valid value (never cut short into another value). */
const char *xk_attr_str(const struct exec_kernel_ctx *k, const char *name, const char *def, char *buf, size_t n);
/* List attribute: count (copied up to max into buf), or -1 when absent. */
int64_t xk_attr_ints(const struct exec_kernel_ctx *k, const char *name, int64_t *buf, int64_t max);
int64_t xk_attr_floats(const struct exec_kernel_ctx *k, const char *name, float *buf, int64_t max);
/* The tensor attribute (e.g. ConstantOfShape's value) as an xtensor (owned by the caller), or -1 when absent. */
int xk_attr_tensor(const struct exec_kernel_ctx *k, const char *name, struct xtensor *out);
/* Allocate output i with dtype and dims. Returns 0, or -1 with k->err set. */
int xk_output(struct exec_kernel_ctx *k, size_t i, int32_t dtype, int rank, const int64_t *dims);
/* The same, not zero-filled: for kernels that write every element. */
int xk_output_raw(struct exec_kernel_ctx *k, size_t i, int32_t dtype, int rank, const int64_t *dims);
/* Output o as input i itself with other dims of the same element count (Identity, Reshape, Flatten, Squeeze,
 * Unsqueeze): 1 when the runner let the kernel take the input (k->take; its host data and device copy move over,
 * nothing is copied, and input i is empty after), 0 when the kernel must copy. */
int xk_take_input(struct exec_kernel_ctx *k, size_t i, size_t o, int rank, const int64_t *dims);
/* Output o as input i itself, to be written over in place (element-wise kernels): as xk_take_input with the input's
 * own dims, but never an input with a copy on a device (a CPU node in a device run), which would go stale. */
int xk_take_input_over(struct exec_kernel_ctx *k, size_t i, size_t o);
/* Fail the node with a message (the runner adds which node). Returns -1. */
int xk_fail(struct exec_kernel_ctx *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* File a short note about how the node ran (e.g. the convolution algorithm a library chose) in the result, which
 * reports it with the node; informational, so a note that cannot be stored (no result, out of memory) is dropped. */
void xk_note(struct exec_kernel_ctx *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ms of the node's time went to a cost of the process, not of the node (a library opened on its first use): taken
 * out of the node's time and the run's (exec_result.setup_ms); the kernel says what in a note. */
void xk_setup_ms(struct exec_kernel_ctx *k, double ms);

/* Data a kernel derives from a constant input once (weights packed for its inner loop) and keeps with the
 * constants from one run to the next (exec_consts: the TUI's runs, run --repeat).  xk_derived: the block filed for
 * input i under tag (which names the layout: what the block depends on besides the input's value), or NULL.
 * xk_derive: file block (from malloc, bytes long, read-only from then on) for input i under tag: 1 when it is kept
 * (freed with the constants; the caller must not free it), 0 when input i is no kept constant or the block cannot
 * be filed (the caller frees it after the node). */
const void *xk_derived(const struct exec_kernel_ctx *k, size_t i, uint64_t tag);
/* 1 when input i is a constant kept across runs (xk_derive would keep a block for it), so a kernel can choose a
 * way that pays only when what it derives is kept. */
int xk_keeps(const struct exec_kernel_ctx *k, size_t i);
/* 1 when input i has the same value every run: a constant, kept across runs or not (a single run's, a subgraph's),
 * or a value computed from constants alone.  Whether a constant is kept depends on the run; whether it is a
 * constant does not: a kernel that chooses its arithmetic by this (B's packing in a product) gives the same bits
 * in a single run as in run --repeat and the TUI's runs. */
int xk_constant(const struct exec_kernel_ctx *k, size_t i);
int xk_derive(struct exec_kernel_ctx *k, size_t i, uint64_t tag, void *block, size_t bytes);

/* Run subgraph sub of the kernel's node (If's branches, Loop's and Scan's bodies) on the CPU: its formal inputs
 * bound to inputs[0..n_inputs) (borrowed; n_inputs must be the subgraph's input count), the values it captures
 * from enclosing graphs taken from the running graphs.  Fills outputs[0..sub's output count) with tensors the
 * caller owns.  Returns 0, or -1 with k->err set (naming the subgraph's node that failed). */
int xk_run_subgraph(struct exec_kernel_ctx *k, const struct graph *sub, const struct xtensor *const *inputs,
		    size_t n_inputs, struct xtensor *outputs);

/* Run the kernel's node as a call of local function f: its body as a subgraph on the CPU (xk_run_subgraph), with
 * the call's attributes where the body refers to them (ref_attr_name; one the call does not set is left out, so
 * the op's default applies) and the inputs the call leaves out absent in the body.  Calls nest up to 64 deep; a
 * function that calls itself is refused.
 * Fills the call's outputs.  Returns 0, or -1 with k->err set. */
int xk_run_function(struct exec_kernel_ctx *k, const Onnx__FunctionProto *f);
/* Count one iteration of a Loop or Scan against the run's limits (iterations, time); -1 with k->err set (OV_LIMIT,
 * naming the limit) when the run must stop.  Kernels that iterate call it before every iteration. */
int xk_iteration(struct exec_kernel_ctx *k);
/* Check that a Loop or Scan may keep bytes of scan outputs (what it holds, or what it would hold at its end when
 * the trip count is known); -1 with k->err set (OV_LIMIT) when that is over the run's limit. */
int xk_scan_bytes(struct exec_kernel_ctx *k, uint64_t bytes, int64_t iterations, int projected);

/* Helpers kernel families share. */
/* After copying a STRING tensor's pointers: give it its own copies of the strings. */
int xk_own_strings(struct exec_kernel_ctx *k, struct xtensor *t);
/* An axis in [-rank, rank) as a non-negative index into *out; fails naming it otherwise. */
int xk_norm_axis(struct exec_kernel_ctx *k, int64_t a, int rank, int *out);
/* The product of dims (callers have bounded them: tensors are at most 2^40 elements). */
int64_t xk_numel(int rank, const int64_t *dims);

typedef int (*exec_kernel_fn)(struct exec_kernel_ctx *k);

/* One row of a backend's kernel table: the op and the first opset version it implements (the row with the
 * greatest since <= the model's opset is used, so behaviour that changed between versions can have two rows). */
/* Input i of the node a kernel runs: NULL when the node leaves it out (an empty name) or has fewer inputs. */
static inline const struct xtensor *xk_in(const struct exec_kernel_ctx *k, size_t i)
{
	return i < k->n_in ? k->in[i] : NULL;
}

struct exec_kernel {
	const char *op;
	int since;
	exec_kernel_fn fn;
};

/* The CPU backend's kernels, one table per op family (src/exec/cpu-*.c), gathered by src/exec/cpu/registry.c. */
exec_kernel_fn cpu_find_kernel(const char *domain, const char *op, int64_t opset);
/* The ops the CPU backend runs in a domain other than the default one, "A, B, C" into buf (n bytes, cut with
 * "..."); how many. */
size_t cpu_domain_ops(const char *domain, char *buf, size_t n);
/* Sequences and optionals (src/exec/cpu/sequence.c).  1 when op's kernel may be handed one as its input number
 * input (the Sequence* and Optional* ops, SequenceMap, Identity, If, Loop's carried values), with *fn the kernel
 * to use for them instead of the op's own (Identity), else NULL.  The runner refuses a sequence or optional
 * anywhere else with one line, so tensor kernels never see one. */
int cpu_takes_containers(const char *op, size_t input, exec_kernel_fn *fn);
/* 1 when op may give a sequence or optional from tensors (SequenceEmpty, If, Loop...): such nodes run on the CPU. */
int cpu_makes_containers(const char *op);

/* ---- backends ---- */

/* run_node's answer when the backend does not run this node with these inputs (an element type or a rank it has
 * no kernel for), decided before it allocates any output: the runner runs the node on the CPU instead and reports
 * it among the fallback nodes, as for an op supports_op refuses. */
#define EXEC_DECLINE 1

struct exec_backend_ops {
	const char *name;
	/* 1 when the backend runs this node (else it falls back to the CPU) */
	int (*supports_op)(const char *domain, const char *op, int64_t opset);
	/* run one node: 0, -1 with k->err set, or EXEC_DECLINE; tensors are host xtensors; a device backend copies
	 * them as it needs */
	int (*run_node)(struct exec_kernel_ctx *k);
	const char *(*describe)(void); /* device, versions... */
	/* optional: called once when exec_run ends (after success or failure), so a device backend can free what it
	 * kept for the run (e.g. constants it uploaded once) */
	void (*run_end)(void);
	/* optional: called once after the last node of a run that went well, before the run's time is taken and its
	 * values handed back: a device backend that queues its nodes' work without waiting for each waits here, and
	 * an error of that work (which no node was stopped for) ends the run: 0, or -1 with err set */
	int (*run_wait)(struct ov_error *err);
	/* optional, for run --profile: prof_marks(n) readies n marks (0, or -1 when the backend cannot time its
	 * work: the profile then has host times only); prof_mark(i) records mark i on the device's queue when the
	 * work queued so far is done; prof_read(i) after run_wait: the device milliseconds between marks i and i + 1
	 * (negative when unknown) */
	int (*prof_marks)(size_t n);
	void (*prof_mark)(size_t i);
	double (*prof_read)(size_t i);
	/* optional, replay of warm runs as one recorded graph of the device's work (exec_run; the CUDA backend's CUDA
	 * graphs, by default; OV_CUDA_GRAPH=0 turns them off):
	 * - graph_begin: the work the nodes queue from now on is recorded instead of run.  kept: the tensors kept
	 *   across runs (one of them copied to the device for the first time would be recorded as if it changed at
	 *   every launch: the recording fails); up_bytes, ups: what the run before copied to the device (room for
	 *   this run's copies).  0 started, 1 when the backend records no graph now (not asked for: no message), -1
	 *   when it cannot (err says why).
	 * - graph_input: input t (a host tensor) placed on the device for the recording, from memory each launch
	 *   refills with that input's bytes (in the order of the calls); t keeps the device copy.  0, or -1 with err.
	 * - graph_end: the recording stops.  keep: the recorded work becomes a graph, launched once now (this run's
	 *   values are then on the device as usual): its handle, or NULL with err saying why there is none (a node
	 *   did what a recording cannot take).  Without keep (a run that failed) it is thrown away: NULL.
	 * - graph_launch: the graph's work again, on inputs of the recorded run's types and shapes (in graph_input's
	 *   order); 0, 1 when an input the recorded run read on the host (a Reshape's shape, a TopK's k) holds other
	 *   bytes now (the caller runs the nodes instead), 2 when the graph is out of date (memory of the backend's it
	 *   reads was replaced since: the caller frees it and records again), -1 with err.  Each value computed is at the device address
	 *   the recorded run's value had (the caller keeps those, with their devops, and frees them after each launch).
	 * - graph_free: the graph and what it holds. */
	int (*graph_begin)(const struct xtensor *kept, size_t n_kept, uint64_t up_bytes, uint64_t ups,
			   struct ov_error *err);
	int (*graph_input)(struct xtensor *t, struct ov_error *err);
	void *(*graph_end)(int keep, struct ov_error *err);
	int (*graph_launch)(void *graph, const struct xtensor *const *inputs, size_t n, struct ov_error *err);
	void (*graph_free)(void *graph);
};
const struct exec_backend_ops *exec_backend_cpu(void);
/* The CUDA backend (src/exec/cuda/backend.cu), or NULL with err saying why: no usable device ("no CUDA device:
 * ..."), or a build without CUDA (src/exec/cuda/stub.c). */
const struct exec_backend_ops *exec_backend_cuda(struct ov_error *err);

/* The executor's switches in the environment (OV_CUDA_*, src/exec/knobs.c).  exec_knob: the choice a switch is set
 * to, 0 to n-1 for its values "0" to "n-1" (OV_CUDA_CONV_BLAS takes 0 to 3, the others 0 or 1); -1 when it is unset,
 * empty or set to anything else.  exec_knob_seconds: a switch holding seconds (OV_CUDA_TIMEOUT), dflt when unset or
 * not a number >= 0.  exec_knobs_check: 1 with msg naming each switch set to a value it does not take (so ignored),
 * for the front ends to say, else 0. */
int exec_knob(const char *name);
double exec_knob_seconds(const char *name, double dflt);
int exec_knobs_check(char *msg, size_t n);
/* TF32 tensor-core arithmetic for float32 matrix products and convolutions on the CUDA backend: off (full float32)
 * unless asked for (onnxview run --tf32). Without CUDA it changes nothing. */
void exec_cuda_set_tf32(int on);
/* The CUDA backend keeps its device memory (the pool's freed blocks, the convolutions' workspace) from one run to
 * the next, so that warm runs allocate nothing from the driver; this gives it back, for a caller about to wait
 * (the TUI after a run).  Values kept with the constants stay.  Without CUDA or a device it does nothing. */
void exec_cuda_release(void);

/* ---- plans and runs ---- */

/* Constants kept from one run to the next (the TUI's runs, run --repeat): each initializer and Constant output the
 * runs need is converted once, and a device backend's copy of it (cu_input) stays with it, so the weights cross the
 * bus once rather than at every run.  Valid for one graph index (graph.serial): a run of another index, e.g. after
 * an edit, which indexes the graph anew, empties it first.  Kernels see the kept tensor itself (read-only, as
 * every input); the runner's slot holds a view of its host data. */
struct exec_consts;
struct exec_consts *exec_consts_new(void);
/* Frees the kept tensors and their device copies. NULL is allowed. */
void exec_consts_free(struct exec_consts *c);
/* What it keeps: tensors, host bytes, how many of them have a device copy, and the bytes of those read where they
 * lie in the model's file (exec_tensor_view_proto: not copied, counted in bytes too). */
void exec_consts_stats(const struct exec_consts *c, size_t *n, size_t *bytes, size_t *on_device, size_t *in_place);

/* What one run may spend, so that a model cannot make it run for ever or fill the memory (Loop with a trip count
 * of 10^18, or no trip count and a condition that stays true; a Loop stacking 4 MB per iteration).  Zero fields
 * take the defaults.  A run that reaches a limit fails with OV_LIMIT and a message naming the limit and what
 * raises it: "the run stopped after 1000000 loop iterations, its limit (--max-iterations)". */
struct exec_limits {
	int64_t max_iterations;  /* Loop and Scan iterations in the run, every loop and nested loop together
	                            (default EXEC_MAX_ITERATIONS) */
	double max_seconds;      /* wall-clock seconds for the run, checked between nodes and iterations (default:
	                            none) */
	uint64_t max_scan_bytes; /* bytes one Loop or Scan may stack as scan outputs, checked before it would pass
	                            them (from the trip count) and as they grow (default: half the machine's memory) */
};
#define EXEC_MAX_ITERATIONS 1000000
/* Parse the value of a limit option for the command line: "--max-iterations" (a count >= 1) or "--time-limit"
 * (seconds > 0, fractions allowed) into l; 0, or -1 when the value is not one. */
int exec_limits_parse(struct exec_limits *l, const char *option, const char *value);

struct exec_options {
	const char *const *from;      /* values the cut starts from (NULL: the graph inputs) */
	size_t n_from;
	const char *const *to;        /* values to compute (NULL: the graph outputs) */
	size_t n_to;
	int keep_all;                 /* keep every intermediate (--all) */
	const struct exec_backend_ops *backend; /* NULL: CPU */
	struct exec_consts *consts;   /* NULL: constants are converted for this run only */
	struct exec_limits limits;    /* zeros: the defaults */
	int profile;                  /* time every node (exec_result.prof) */
	/* How many times the caller runs this cut with these options (run --repeat N: N, the same for each of its
	 * runs); 0 or 1: once, as for run without --repeat, compare and the TUI's runs, which the user starts one
	 * at a time.  A device backend spends time on a choice that only pays back over later runs (timing the
	 * convolutions' algorithms) when it is more than 1. */
	long runs;
};

struct exec_value {
	const char *name;
	struct xtensor t;             /* a tensor, or a sequence or optional (t.kind, src/exec/xtensor.h) */
	int present;
};

/* A note a kernel filed about how it ran a node (xk_note); room for the longest the kernels write (a convolution's
 * choice with three timed ways is some 190 bytes), longer ones cut. */
struct exec_note {
	uint32_t node;
	char text[320];
};

/* One node's time in a profiled run: on the host (its kernel call, which on a device backend queues the work), and
 * on the device (from the end of the work queued before it to the end of its own; negative when unknown). */
struct exec_node_time {
	uint32_t node;
	double host_ms, device_ms;
	int fused; /* its work was done by a node before it (an activation, a layer norm's nodes, a depthwise block) */
};

struct exec_result {
	struct exec_value *values;    /* every value computed and kept: outputs (the 'to' values) first, in order */
	size_t n_values;
	size_t n_to;
	uint32_t nodes_run;
	uint32_t nodes_kept;          /* nodes not run because their outputs were kept: computed from constants by an
	                                 earlier run, or an Identity of a constant (see exec_run) */
	uint32_t *fallback_nodes;     /* nodes the backend could not run, run on the CPU */
	size_t n_fallback;
	struct exec_note *notes;      /* in the order the nodes ran */
	size_t n_notes;
	/* copies between the host and a device backend's memory (none on the CPU): values uploaded (inputs,
	 * constants, what a CPU node computed) and values brought back (for a CPU node, or handed back) */
	uint64_t to_device, to_device_bytes, to_host, to_host_bytes;
	double ms;                    /* wall time of the nodes, less setup_ms */
	double setup_ms;              /* time inside nodes that was the process's, not theirs (xk_setup_ms) */
	/* with opt->profile: one entry per node run, in the order they ran (subgraphs inside their node) */
	struct exec_node_time *prof;
	size_t n_prof;
	/* graph replay (exec_backend_ops.graph_*, with kept constants): EXEC_GRAPH_RECORDED when this run was
	 * recorded as the backend's graph (and ran as one), EXEC_GRAPH_REPLAYED when it was a launch of that graph,
	 * 0 when its nodes ran one by one; graph_why: why a run that could have been recorded or replayed was not
	 * (kept with the constants, or a static string), NULL when there is nothing to say (none asked for) */
	int graph;
	const char *graph_why;
};
enum { EXEC_GRAPH_RECORDED = 1, EXEC_GRAPH_REPLAYED = 2 };

struct exec_input {
	const char *name;
	struct xtensor t;             /* borrowed; a tensor, a sequence or an optional */
};

/* Run the cut: inputs must cover every 'from' value the cut needs (missing ones are named in err).
 * - Plan: the nodes that the 'to' values need, found backwards and stopping at 'from' values and constants
 *   (initializers, Constant outputs); a value the cut needs that neither gives is a leak (OV_USAGE, naming up to 8).
 *   Without opt->from the graph inputs are the 'from' values, and an initializer listed as an input is a default:
 *   fed when in[] names it, the initializer otherwise.  An in[] entry may also replace any initializer.
 * - Inputs are borrowed (never freed, never written); in[] entries the cut does not need are ignored, names that
 *   are no value of the graph are refused (OV_USAGE).
 * - Nodes run in g->order; every output gets a slot (a scratch one for outputs the model leaves out, or that the
 *   cut is fed with); an intermediate is freed after its last use inside the cut unless it is a 'to' value or
 *   opt->keep_all.  If, Loop, Scan and SequenceMap kernels run their bodies through xk_run_subgraph, and the
 *   values their bodies capture live until the node has run.
 * - Sequences and optionals are values like tensors; a node that takes or gives one runs on the CPU whatever the
 *   backend (it is not counted as a fallback), and one handed to an op that takes tensors only is refused
 *   ("input 0 'seq' is a sequence: Add takes tensors").
 * - A Relu or Clip whose input nothing else reads or watches may be applied by the kernel of the node before it
 *   (exec_kernel_ctx.act), to the same bits.
 * - Errors name the node: "#12 'conv1' Conv: ..." (the kernel's message, or "no CPU kernel for Conv (opset 6)").
 * - out->values: the 'to' values in order (present = 0 for one nobody computed), then with keep_all every other
 *   node output the cut computed, in topological order.  Names point into g.  out is empty after a failure. */
int exec_run(struct ov_model *m, const struct graph *g, const struct exec_options *opt, const struct exec_input *in,
	     size_t n_in, struct exec_result *out, struct ov_error *err);
void exec_result_free(struct exec_result *r);
/* The values a cut needs as inputs (names valid while g lives): fills up to max, returns the count, -1 on a cut
 * that leaks (err names the values). */
long exec_needed_inputs(const struct graph *g, const struct exec_options *opt, const char **names, size_t max,
			struct ov_error *err);

/* A Constant node's value as an xtensor (owned by the caller): its value tensor, or value_float(s), value_int(s),
 * value_string(s); sparse_value is refused. */
int exec_constant_value(struct ov_model *m, const Onnx__NodeProto *n, struct xtensor *out, struct ov_error *err);
/* A model tensor (initializer, Constant value, external data) as an xtensor (owned by the caller). */
int exec_tensor_from_proto(struct ov_model *m, const Onnx__TensorProto *t, struct xtensor *out, struct ov_error *err);
/* The same, without a copy where the bytes can be read where they lie: raw_data left in the model file's mapping
 * (model_holds_bytes) or external data, aligned to the element type, become a tensor that does not own its data
 * (owns 0, read-only: nothing may write it, and m must outlive it).  No fresh memory is faulted in for the model's
 * weights, and they are not held twice.  Anything else (typed fields, packed types, strings, bytes not aligned)
 * is copied by exec_tensor_from_proto. */
int exec_tensor_view_proto(struct ov_model *m, const Onnx__TensorProto *t, struct xtensor *out, struct ov_error *err);

/* ---- comparing ---- */
struct compare_stats {
	int64_t n, mismatches, nan_a, nan_b, inf_a, inf_b;
	double max_abs, max_rel;
	int64_t max_abs_at, max_rel_at;
	double mean_abs;
	double min_atol, min_rtol;    /* the smallest tolerances that would pass (each with the other at 0) */
	int shape_mismatch, dtype_mismatch;
	int pass;
};
/* got (a) against want (b): |a-b| <= atol + rtol*|b| element-wise, ONNX's rule (numpy's assert_allclose, which the
 * ONNX backend test runner uses, with b the reference).  Both must have the same dtype and dims, else
 * dtype_mismatch/shape_mismatch is set and nothing else is compared.
 * - NaN matches only NaN in the same place, an infinity only the same infinity; neither counts towards the errors
 *   (nan_a/nan_b, inf_a/inf_b count them per side).
 * - Integers are subtracted exactly (int64 beyond 2^53 stays distinct); strings must be equal (max_abs_at is then
 *   the first mismatch).
 * - max_abs: the largest |a-b| over pairs of finite values (max_abs_at its flat index, -1 when there are none);
 *   max_rel: the largest |a-b|/|b| over pairs with b != 0 (max_rel_at, -1 when none); mean_abs: mean |a-b| over
 *   the finite pairs.
 * - min_atol = max_abs: with rtol 0, the smallest atol that passes; min_rtol = max_rel: with atol 0, the smallest
 *   rtol that passes, INFINITY when some b == 0 has a != 0 (no rtol helps there).  Both are INFINITY when a NaN or
 *   infinity is unmatched (or strings, dtypes or shapes differ): no tolerance passes.
 * - Sequences and optionals: a different kind or length (an empty optional against a full one) is a shape
 *   mismatch; otherwise item against item, the counts summed and the worst max_abs/max_rel/min_* kept, with no
 *   index (max_abs_at and max_rel_at are -1). */
void exec_compare(const struct xtensor *got, const struct xtensor *want, double rtol, double atol,
		  struct compare_stats *s);

/* When a result counts as the expected one: |got - want| <= atol + rtol*|want| + scale*max|want| element-wise,
 * max|want| over the finite values of the expected tensor (of all its items for a sequence), and integers (bools
 * too) compared exactly when exact_ints is set.
 *
 * ONNX's own rule (the conformance runner's, numpy's assert_allclose) is scale 0, rtol 1e-3, atol 1e-7, integers
 * within the same tolerances.  It calls results from another correct float32 runtime wrong wherever a value near
 * zero comes out of a cancellation (a box coordinate minus its neighbour, a logit near 0): the error there is of
 * the order of the operands' rounding, i.e. of the tensor's magnitude, not of the small value.  The default rule
 * (COMPARE_RULE_DEFAULT) adds that term, scale*max|want|, raises atol to 1e-6, and keeps integers exact.  Measured
 * on the real-model corpus (tests/realworld.sh, onnxruntime against onnxview's CPU backend): YOLOv8's box outputs
 * (max|want| 320) differ by up to 1.4e-4 where ONNX's rule fails 25 of 46200 values; PaddleOCR's detector differs
 * by 1e-7 to 1.3e-7 on probabilities near 0; everything else stays within ONNX's rule.  The defaults leave a
 * margin of 7 or more over all of it, while the corpus's broken copies (a swapped op, another Resize mode) are off
 * by 2e-4 of max|want| at the least (most by 1e-2 or more) and fail. */
struct compare_rule {
	double rtol, atol;
	double scale;
	int exact_ints;
};
#define COMPARE_RULE_ONNX ((struct compare_rule){.rtol = 1e-3, .atol = 1e-7})
#define COMPARE_RULE_DEFAULT ((struct compare_rule){.rtol = 1e-3, .atol = 1e-6, .scale = 1e-5, .exact_ints = 1})
/* exec_compare under rule r (the tolerances worked out for want); s->min_atol/min_rtol still say which plain
 * --atol/--rtol would pass. */
void exec_compare_rule(const struct xtensor *got, const struct xtensor *want, const struct compare_rule *r,
		       struct compare_stats *s);
/* The rule as the reports print it: "|got-want| <= 1e-07 + 0.001*|want| + 1e-05*max|want|, integers exact" or
 * "rtol 0.001, atol 1e-07" for ONNX's form. */
void compare_rule_describe(const struct compare_rule *r, char *buf, size_t len);

struct json;
/* One comparison's statistics as keys of the JSON object being written (pass, dtype_mismatch, shape_mismatch, n,
 * mismatches, max_abs, max_abs_at, max_rel, max_rel_at, mean_abs, nan_G/nan_W, inf_G/inf_W, min_atol, min_rtol,
 * with G and W the names the caller gives the two sides: "got"/"want" for run, "a"/"b" for compare).  got gives
 * the multi-indices (null when the shapes or dtypes differ).  The one writer of these statistics for every
 * report. */
void compare_stats_json(struct json *j, const struct compare_stats *c, const struct xtensor *got, const char *g_name,
			const char *w_name);
/* The rule as JSON keys: rtol, atol, scale, exact_ints, rule (the text of compare_rule_describe). */
void compare_rule_json(struct json *j, const struct compare_rule *r);

#endif
