/* Constants kept across runs (exec_consts, src/exec/exec.h) and run --repeat (src/exec/repeat.h), with a fake device
 * backend that "uploads" every input it has no copy of, as the CUDA backend's cu_input does: a kept constant is
 * uploaded by the first run only, a new graph index (an edit) drops what was kept, a fed value still replaces an
 * initializer, every device copy is released, and --repeat notices a run whose bits differ; and what a kernel derives
 * from a kept constant (xk_derive: packed weights) is kept with it; values computed from Shape outputs are kept while
 * the shapes stay, and dropped when they change. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/base/dtype.h"
#include "src/exec/exec.h"
#include "src/graph/graph.h"
#include "src/model/model.h"
#include "src/exec/repeat.h"
#include "tests/unit/tap.h"

/* Model m (graph g, opset 13) packed and loaded from memory as name, or NULL. */
static struct ov_model *pack_load(Onnx__ModelProto *m, Onnx__GraphProto *g, Onnx__OperatorSetIdProto **ops,
				  const char *name)
{
	struct ov_model *model = NULL;
	struct ov_error e = {0};

	ops[0]->has_version = 1, ops[0]->version = 13;
	m->has_ir_version = 1, m->ir_version = 8, m->graph = g, m->n_opset_import = 1, m->opset_import = ops;
	size_t len = onnx__model_proto__get_packed_size(m);
	uint8_t *bytes = malloc(len);
	if (!bytes)
		return NULL;
	onnx__model_proto__pack(m, bytes);
	if (model_load_buffer(&model, bytes, len, name, &e))
		model = NULL;
	free(bytes);
	return model;
}

/* y = Add(x, W), W an initializer float32[2,3] of value w */
static struct ov_model *make_model(float w)
{
	float wv[6] = {w, w, w, w, w, w};
	int64_t dims[2] = {2, 3};
	Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
	Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
	Onnx__OperatorSetIdProto op = ONNX__OPERATOR_SET_ID_PROTO__INIT;
	Onnx__OperatorSetIdProto *ops[1] = {&op};
	Onnx__NodeProto n = ONNX__NODE_PROTO__INIT;
	Onnx__NodeProto *np[1] = {&n};
	char *in[2] = {"x", "W"}, *out[1] = {"y"};
	Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
	Onnx__TensorProto *inits[1] = {&t};
	Onnx__ValueInfoProto vx = ONNX__VALUE_INFO_PROTO__INIT, vy = ONNX__VALUE_INFO_PROTO__INIT;
	Onnx__ValueInfoProto *vin[1] = {&vx}, *vout[1] = {&vy};

	n.op_type = "Add", n.name = "add", n.n_input = 2, n.input = in, n.n_output = 1, n.output = out;
	t.name = "W", t.n_dims = 2, t.dims = dims, t.has_data_type = 1, t.data_type = OV_DT_FLOAT;
	t.n_float_data = 6, t.float_data = wv;
	vx.name = "x";
	vy.name = "y";
	g.name = "g", g.n_node = 1, g.node = np, g.n_initializer = 1, g.initializer = inits;
	g.n_input = 1, g.input = vin, g.n_output = 1, g.output = vout;
	return pack_load(&m, &g, ops, "mem.onnx");
}

/* ---- a fake device: a copy is a malloc'd buffer ---- */

static int uploads, live, runs, flip_on_run;

static int fake_download(struct xtensor *t, struct ov_error *err)
{
	(void)err;
	memcpy(t->data, t->dev, t->bytes);
	return 0;
}

static void fake_release(void *dev)
{
	live--;
	free(dev);
}

static const struct xt_devops fake_ops = {fake_download, fake_release};

static int fake_supports(const char *domain, const char *op, int64_t opset)
{
	(void)domain, (void)op, (void)opset;
	return 1;
}

/* every input without a device copy gets one (counted), then the CPU computes; on run flip_on_run the output's
 * first element is changed, as a nondeterministic kernel would */
static int fake_run(struct exec_kernel_ctx *k)
{
	for (size_t i = 0; i < k->n_in; i++) {
		struct xtensor *t = (struct xtensor *)k->in[i];
		if (!t || t->dev)
			continue;
		t->dev = malloc(t->bytes ? t->bytes : 1);
		memcpy(t->dev, t->data, t->bytes);
		t->devops = &fake_ops;
		uploads++;
		live++;
		if (k->res)
			k->res->to_device++;
	}
	int r = exec_backend_cpu()->run_node(k);
	if (!r && runs == flip_on_run)
		((float *)k->out[0]->data)[0] += 1.0f;
	return r;
}

static void fake_end(void)
{
	runs++;
}

static const char *fake_describe(void)
{
	return "fake";
}

static const struct exec_backend_ops fake = {
	.name = "fake", .supports_op = fake_supports, .run_node = fake_run, .describe = fake_describe, .run_end = fake_end};

/* ---- a backend that derives data from input 1 (W), as the CPU's convolutions keep packed weights ---- */

static const void *seen_derived, *seen_derived2;
static int derive_kept, derive_kept2;
static void *made_block;

static int derive_run(struct exec_kernel_ctx *k)
{
	seen_derived = xk_derived(k, 1, 7);
	seen_derived2 = xk_derived(k, 1, 8);
	derive_kept = derive_kept2 = -1;
	if (!seen_derived) {
		made_block = malloc(40);
		derive_kept = xk_derive(k, 1, 7, made_block, 40);
		if (!derive_kept)
			free(made_block);
	}
	if (!seen_derived2) {
		void *b2 = malloc(8);
		derive_kept2 = xk_derive(k, 1, 8, b2, 8);
		if (!derive_kept2)
			free(b2);
	}
	/* input 0 is no constant: nothing is kept for it */
	void *b0 = malloc(4);
	if (xk_derived(k, 0, 7) || xk_derive(k, 0, 7, b0, 4))
		derive_kept = -2;
	else
		free(b0);
	return exec_backend_cpu()->run_node(k);
}

static const struct exec_backend_ops derive_backend = {
	.name = "derive", .supports_op = fake_supports, .run_node = derive_run, .describe = fake_describe};

/* ---- a backend that records runs as graphs (exec_backend_ops.graph_*, src/exec/replay.c) ----
 * Its nodes compute on the CPU and keep their outputs "on the device" (a malloc'd copy, the host data stale).  While
 * recording, the output goes to the graph's own buffer, which a release only marks free (its address stays the
 * graph's, as CUDA's graph memory does) and a launch refuses to reuse while still live; a launch computes x + W
 * again from the input's place in the graph.  rec_reads_host: the nodes read x on the host (its bytes are then part
 * of the recording). */

static int rec_mode;         /* 0 records, 1 refuses (-1, a reason), 2 records none (1) */
static int rec_reads_host, rec_recording, rec_begins, rec_graphs, rec_freed, rec_launches;
static int rec_stale; /* the next launch finds the graph out of date (2) */

struct rec_graph {
	float *in_dev, *out, *w;     /* x's place, y's buffer, the kept W's host data */
	size_t n;
	int out_live, read;
	float seen[16];
};
static struct rec_graph *rec_now;

static void rec_out_release(void *dev)
{
	(void)dev;
	live--;
	rec_now->out_live = 0; /* the graph's memory: its address stays the graph's */
}

static const struct xt_devops rec_out_ops = {fake_download, rec_out_release};

static int rec_run(struct exec_kernel_ctx *k)
{
	if (rec_recording && rec_reads_host)
		rec_now->read = 1;
	int r = fake_run(k);
	if (r)
		return r;
	struct xtensor *y = k->out[0];
	if (rec_recording) {
		rec_now->out = malloc(y->bytes);
		rec_now->out_live = 1;
		rec_now->w = (float *)k->in[1]->data;
		rec_now->n = (size_t)y->numel;
		y->dev = rec_now->out;
		y->devops = &rec_out_ops;
	} else {
		y->dev = malloc(y->bytes);
		y->devops = &fake_ops;
	}
	live++;
	memcpy(y->dev, y->data, y->bytes);
	y->host_stale = 1;
	return 0;
}

static int rec_begin(const struct xtensor *kept, size_t n_kept, uint64_t up_bytes, uint64_t ups, struct ov_error *err)
{
	(void)kept, (void)n_kept, (void)up_bytes, (void)ups;
	rec_begins++;
	if (rec_mode == 1)
		return ov_fail(err, OV_INVALID, "the fake refuses to record");
	if (rec_mode == 2)
		return 1;
	rec_now = calloc(1, sizeof *rec_now);
	rec_recording = 1;
	return 0;
}

static int rec_input(struct xtensor *t, struct ov_error *err)
{
	(void)err;
	rec_now->in_dev = malloc(t->bytes);
	memcpy(rec_now->in_dev, t->data, t->bytes);
	memcpy(rec_now->seen, t->data, t->bytes < sizeof rec_now->seen ? t->bytes : sizeof rec_now->seen);
	t->dev = rec_now->in_dev;
	t->devops = &rec_out_ops; /* released like the graph's memory (here: not freed) */
	live++;
	return 0;
}

static void *rec_end(int keep, struct ov_error *err)
{
	(void)err;
	rec_recording = 0;
	if (!keep) {
		free(rec_now->out);
		free(rec_now->in_dev);
		free(rec_now);
		rec_now = NULL;
		return NULL;
	}
	rec_graphs++;
	return rec_now;
}

static int rec_launch(void *graph, const struct xtensor *const *inputs, size_t n, struct ov_error *err)
{
	struct rec_graph *h = graph;
	if (n != 1)
		return ov_fail(err, OV_INVALID, "the fake's graph takes one input, not %zu", n);
	if (h->read && memcmp(h->seen, inputs[0]->data, inputs[0]->bytes))
		return 1;
	if (rec_stale) {
		rec_stale = 0;
		return 2;
	}
	if (h->out_live)
		return ov_fail(err, OV_INVALID, "the graph's output from its last launch was not freed");
	rec_launches++;
	rec_now = h;
	memcpy(h->in_dev, inputs[0]->data, inputs[0]->bytes);
	for (size_t i = 0; i < h->n; i++)
		h->out[i] = h->in_dev[i] + h->w[i];
	h->out_live = 1;
	live++;
	return 0;
}

static void rec_free(void *graph)
{
	struct rec_graph *h = graph;
	rec_freed++;
	free(h->out);
	free(h->in_dev);
	free(h);
	rec_now = NULL;
}

static const struct exec_backend_ops rec_backend = {
	.name = "rec", .supports_op = fake_supports, .run_node = rec_run, .describe = fake_describe,
	.graph_begin = rec_begin, .graph_input = rec_input, .graph_end = rec_end, .graph_launch = rec_launch,
	.graph_free = rec_free};

static float y0_of(const struct exec_result *r)
{
	return r->n_values && r->values[0].present ? ((const float *)r->values[0].t.data)[0] : -1e30f;
}

/* ---- weights read where they lie (exec_tensor_view_proto) ----
 * y = Add(x, W) and z = Identity(W), with W float32[RAW_N] in raw_data (big enough to stay in the file's bytes,
 * WIRE_STRIP_MIN), the Add named name: the name's length moves the payload, so that a test can have it on 4 bytes
 * in the file or not.  *payload: the payload's offset in the bytes.  With path, the model is written there and
 * loaded from it (mapped), else from memory. */
#define RAW_N 512
static struct ov_model *make_raw_model(const char *name, const char *path, size_t *payload)
{
	static float wv[RAW_N];
	int64_t dims[1] = {RAW_N};
	Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
	Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
	Onnx__OperatorSetIdProto op = ONNX__OPERATOR_SET_ID_PROTO__INIT;
	Onnx__OperatorSetIdProto *ops[1] = {&op};
	Onnx__NodeProto n = ONNX__NODE_PROTO__INIT, id = ONNX__NODE_PROTO__INIT;
	Onnx__NodeProto *np[2] = {&n, &id};
	char *in[2] = {"x", "W"}, *out[1] = {"y"}, *id_in[1] = {"W"}, *id_out[1] = {"z"};
	Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
	Onnx__TensorProto *inits[1] = {&t};
	Onnx__ValueInfoProto vx = ONNX__VALUE_INFO_PROTO__INIT, vy = ONNX__VALUE_INFO_PROTO__INIT;
	Onnx__ValueInfoProto vz = ONNX__VALUE_INFO_PROTO__INIT;
	Onnx__ValueInfoProto *vin[1] = {&vx}, *vout[2] = {&vy, &vz};
	struct ov_model *model = NULL;
	struct ov_error e = {0};

	id.op_type = "Identity", id.name = "id", id.n_input = 1, id.input = id_in, id.n_output = 1, id.output = id_out;
	vz.name = "z";
	for (int i = 0; i < RAW_N; i++)
		wv[i] = 1000.0f + (float)i;
	n.op_type = "Add", n.name = (char *)name, n.n_input = 2, n.input = in, n.n_output = 1, n.output = out;
	t.name = "W", t.n_dims = 1, t.dims = dims, t.has_data_type = 1, t.data_type = OV_DT_FLOAT;
	t.has_raw_data = 1, t.raw_data.len = sizeof wv, t.raw_data.data = (uint8_t *)wv;
	vx.name = "x";
	vy.name = "y";
	g.name = "g", g.n_node = 2, g.node = np, g.n_initializer = 1, g.initializer = inits;
	g.n_input = 1, g.input = vin, g.n_output = 2, g.output = vout;
	op.has_version = 1, op.version = 13;
	m.has_ir_version = 1, m.ir_version = 8, m.graph = &g, m.n_opset_import = 1, m.opset_import = ops;
	size_t len = onnx__model_proto__get_packed_size(&m);
	uint8_t *bytes = malloc(len);
	onnx__model_proto__pack(&m, bytes);
	*payload = SIZE_MAX;
	for (size_t i = 0; i + sizeof wv <= len; i++)
		if (!memcmp(bytes + i, wv, sizeof wv)) {
			*payload = i;
			break;
		}
	FILE *f = path ? fopen(path, "wb") : NULL;
	int wrote = f && fwrite(bytes, 1, len, f) == len;
	if (f && fclose(f))
		wrote = 0;
	if (path ? !wrote || model_load(&model, path, &e) : model_load_buffer(&model, bytes, len, "mem.onnx", &e))
		model = NULL;
	free(bytes);
	return model;
}

/* A model file whose weights a kept run reads in place shrinks before the next run: that run fails with the
 * mapping's message (the guard gives zeros, never SIGBUS), and nothing crashes. */
static void raw_shrinks(const char *name)
{
	char path[] = "/tmp/onnxview-consts-XXXXXX";
	int fd = mkstemp(path);
	size_t payload, n, bytes, on_dev, in_place;
	struct ov_model *m = fd >= 0 ? make_raw_model(name, path, &payload) : NULL;
	struct graph *g = NULL;
	struct ov_error e = {0};
	static float xv[RAW_N];
	int64_t dims[1] = {RAW_N};
	struct exec_input in[1] = {{"x", {0}}};
	struct exec_result r;

	if (fd >= 0)
		close(fd);
	if (!m || graph_build(&g, m->proto->graph, &e)) {
		OK(0, "the raw model loads from a file: %s", e.msg);
		graph_free(g);
		model_free(m);
		unlink(path);
		return;
	}
	xt_wrap(&in[0].t, OV_DT_FLOAT, 1, dims, xv);
	struct exec_options opt = {.consts = exec_consts_new()};
	int rc = exec_run(m, g, &opt, in, 1, &r, &e);
	exec_result_free(&r);
	exec_consts_stats(opt.consts, &n, &bytes, &on_dev, &in_place);
	OK(rc == 0 && in_place == RAW_N * 4, "from a file: W is read in place (%zu bytes)", in_place);
	OK(truncate(path, 64) == 0, "the model file shrinks under its mapping");
	rc = exec_run(m, g, &opt, in, 1, &r, &e);
	OK(rc == -1 && strstr(e.msg, "changed on disk while open"), "the next run with W kept fails, naming it: %s",
	   e.msg);
	exec_consts_free(opt.consts);
	graph_free(g);
	model_free(m);
	unlink(path);
}

/* The raw model's two runs, with kept constants: both give x + W, W is kept, and *in_place its bytes read where
 * they lie; 0, or 1 with the test failed (named by what). */
static int raw_runs(const char *what, const char *name, int aligned)
{
	size_t payload, n, bytes, on_dev, in_place;
	struct ov_model *m = make_raw_model(name, NULL, &payload);
	struct graph *g = NULL;
	struct ov_error e = {0};
	static float xv[RAW_N];
	int64_t dims[1] = {RAW_N};
	struct exec_input in[1] = {{"x", {0}}};
	struct exec_result r;
	int ok = 1;

	if (!m || payload == SIZE_MAX || (int)(payload % 4 == 0) != aligned || graph_build(&g, m->proto->graph, &e)) {
		graph_free(g);
		model_free(m);
		return 1; /* another name */
	}
	for (int i = 0; i < RAW_N; i++)
		xv[i] = (float)i * 0.5f;
	xt_wrap(&in[0].t, OV_DT_FLOAT, 1, dims, xv);
	struct exec_options opt = {0};
	opt.consts = exec_consts_new();
	for (int run = 0; run < 2 && ok; run++) {
		if (exec_run(m, g, &opt, in, 1, &r, &e)) {
			OK(0, "%s: run %d: %s", what, run + 1, e.msg);
			ok = 0;
			break;
		}
		const float *y = r.n_values && r.values[0].present ? r.values[0].t.data : NULL;
		for (int i = 0; y && i < RAW_N; i++)
			if (y[i] != (float)i * 0.5f + 1000.0f + (float)i)
				y = NULL;
		OK(y != NULL, "%s: run %d gives x + W", what, run + 1);
		const struct xtensor *z = r.n_values > 1 && r.values[1].present ? &r.values[1].t : NULL;
		OK(z && z->owns && z->numel == RAW_N && !model_holds_bytes(m, z->data, 4) &&
		   ((const float *)z->data)[RAW_N - 1] == 1000.0f + (float)(RAW_N - 1),
		   "%s: run %d: Identity(W) is W, in a tensor of its own", what, run + 1);
		exec_result_free(&r);
	}
	exec_consts_stats(opt.consts, &n, &bytes, &on_dev, &in_place);
	OK(n == 1 && bytes == RAW_N * 4 && in_place == (aligned ? RAW_N * 4 : 0),
	   "%s: W is kept (%zu, %zu bytes), %zu bytes of it read in place", what, n, bytes, in_place);
	exec_consts_free(opt.consts);
	/* a one-shot run (nothing kept) reads it the same way */
	opt.consts = NULL;
	OK(exec_run(m, g, &opt, in, 1, &r, &e) == 0 && r.n_values && r.values[0].present && r.values[0].t.owns &&
	   ((const float *)r.values[0].t.data)[RAW_N - 1] == (float)(RAW_N - 1) * 0.5f + 1000.0f + (float)(RAW_N - 1),
	   "%s: a run without kept constants gives x + W too, in a tensor of its own", what);
	exec_result_free(&r);
	graph_free(g);
	model_free(m);
	return 0;
}

/* ---- values that depend only on shapes (run.c, dims_keep) ----
 * y = Mul(Reshape(x, Concat(Unsqueeze(Shape(x)[0]), [-1])), Cast(Shape(x)[1])): x [N, C] times C, of shape [N, C],
 * the way exports compute a Reshape's shape and an attention's scale from a Shape. */
struct spec {
	const char *op, *in[2], *out, *attr;
	int64_t value;
};

static struct ov_model *make_shape_model(void)
{
	static const struct spec specs[] = {
		{"Shape", {"x"}, "s", NULL, 0},
		{"Gather", {"s", "i0"}, "n", NULL, 0},
		{"Gather", {"s", "i1"}, "c", NULL, 0},
		{"Unsqueeze", {"n", "ax"}, "nu", NULL, 0},
		{"Concat", {"nu", "m1"}, "shp", "axis", 0},
		{"Reshape", {"x", "shp"}, "xr", NULL, 0},
		{"Cast", {"c"}, "cf", "to", OV_DT_FLOAT},
		{"Mul", {"xr", "cf"}, "y", NULL, 0},
	};
	enum { NS = sizeof specs / sizeof specs[0] };
	static const char *const init_names[4] = {"i0", "i1", "ax", "m1"};
	int64_t init_vals[4] = {0, 1, 0, -1}, one = 1;
	Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
	Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
	Onnx__OperatorSetIdProto op = ONNX__OPERATOR_SET_ID_PROTO__INIT;
	Onnx__OperatorSetIdProto *ops[1] = {&op};
	Onnx__NodeProto nodes[NS], *np[NS];
	Onnx__AttributeProto attrs[NS], *ap[NS];
	Onnx__TensorProto inits[4], *ip[4];
	Onnx__ValueInfoProto vx = ONNX__VALUE_INFO_PROTO__INIT, vy = ONNX__VALUE_INFO_PROTO__INIT;
	Onnx__ValueInfoProto *vin[1] = {&vx}, *vout[1] = {&vy};

	for (int i = 0; i < NS; i++) {
		onnx__node_proto__init(&nodes[i]);
		np[i] = &nodes[i];
		nodes[i].op_type = (char *)specs[i].op;
		nodes[i].n_input = specs[i].in[1] ? 2 : 1;
		nodes[i].input = (char **)specs[i].in;
		nodes[i].n_output = 1;
		nodes[i].output = (char **)&specs[i].out;
		if (specs[i].attr) {
			onnx__attribute_proto__init(&attrs[i]);
			ap[i] = &attrs[i];
			attrs[i].name = (char *)specs[i].attr;
			attrs[i].has_type = 1, attrs[i].type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
			attrs[i].has_i = 1, attrs[i].i = specs[i].value;
			nodes[i].n_attribute = 1, nodes[i].attribute = &ap[i];
		}
	}
	for (int i = 0; i < 4; i++) {
		onnx__tensor_proto__init(&inits[i]);
		ip[i] = &inits[i];
		inits[i].name = (char *)init_names[i];
		inits[i].has_data_type = 1, inits[i].data_type = OV_DT_INT64;
		inits[i].n_int64_data = 1, inits[i].int64_data = &init_vals[i];
		if (i >= 2) /* ax and m1 are vectors, i0 and i1 scalars */
			inits[i].n_dims = 1, inits[i].dims = &one;
	}
	vx.name = "x";
	vy.name = "y";
	g.name = "g", g.n_node = NS, g.node = np, g.n_initializer = 4, g.initializer = ip;
	g.n_input = 1, g.input = vin, g.n_output = 1, g.output = vout;
	return pack_load(&m, &g, ops, "shape.onnx");
}

/* One run of the shape model on x [rows, cols] (x[i] = i): 0 when y is x * cols of x's shape, with the nodes run
 * and kept and the uploads it made. */
static int shape_run(struct ov_model *m, const struct graph *g, struct exec_options *opt, int64_t rows, int64_t cols,
		     uint32_t *run, uint32_t *kept, int *ups)
{
	float xv[64];
	int64_t dims[2] = {rows, cols};
	struct exec_input in[1] = {{"x", {0}}};
	struct exec_result r;
	struct ov_error e = {0};
	int bad = 0;

	*run = *kept = 0;
	*ups = 0;
	for (int i = 0; i < rows * cols; i++)
		xv[i] = (float)i;
	xt_wrap(&in[0].t, OV_DT_FLOAT, 2, dims, xv);
	uploads = 0;
	if (exec_run(m, g, opt, in, 1, &r, &e)) {
		printf("# shape model: %s\n", e.msg);
		return -1;
	}
	const struct xtensor *y = r.n_values && r.values[0].present ? &r.values[0].t : NULL;
	bad = !y || y->rank != 2 || y->dims[0] != rows || y->dims[1] != cols;
	for (int i = 0; !bad && i < rows * cols; i++)
		bad = ((const float *)y->data)[i] != (float)i * (float)cols;
	*run = r.nodes_run;
	*kept = r.nodes_kept;
	*ups = uploads;
	exec_result_free(&r);
	return bad;
}

static void shape_fold(void)
{
	struct ov_model *m = make_shape_model();
	struct graph *g = NULL;
	struct ov_error e = {0};
	uint32_t run = 0, kept = 0;
	int ups = 0, ups1 = 0, rc;

	if (!m || graph_build(&g, m->proto->graph, &e)) {
		OK(0, "the shape model loads: %s", e.msg);
		graph_free(g);
		model_free(m);
		return;
	}
	struct exec_options opt = {.backend = &fake, .consts = exec_consts_new()};
	live = 0;
	rc = shape_run(m, g, &opt, 2, 3, &run, &kept, &ups1);
	OK(rc == 0 && run == 8 && kept == 0,
	   "shapes: the first run computes x * 3 with every node (%u run, %u kept)", run, kept);
	rc = shape_run(m, g, &opt, 2, 3, &run, &kept, &ups);
	OK(rc == 0 && run == 3 && kept == 5 && ups == ups1 - 2,
	   "the next, x of the same shape: Shape, Reshape and Mul run, the 5 nodes computed from the Shape are kept, "
	   "with their device copies (%u run, %u kept, %d uploads after %d)", run, kept, ups, ups1);
	rc = shape_run(m, g, &opt, 4, 5, &run, &kept, &ups);
	OK(rc == 0 && run == 8 && kept == 0,
	   "x of another shape: its Shape differs from the kept one, every node runs, y is x * 5 (%u run, %u kept)",
	   run, kept);
	rc = shape_run(m, g, &opt, 4, 5, &run, &kept, &ups);
	OK(rc == 0 && run == 8 && kept == 0,
	   "the next run drops what the old shape gave, and keeps the new one's (%u run, %u kept)", run, kept);
	rc = shape_run(m, g, &opt, 4, 5, &run, &kept, &ups);
	OK(rc == 0 && run == 3 && kept == 5 && ups == ups1 - 2,
	   "then folds them again (%u run, %u kept, %d uploads)", run, kept, ups);
	rc = shape_run(m, g, &opt, 2, 3, &run, &kept, &ups);
	rc |= shape_run(m, g, &opt, 2, 3, &run, &kept, &ups);
	rc |= shape_run(m, g, &opt, 2, 3, &run, &kept, &ups);
	OK(rc == 0 && run == 3 && kept == 5,
	   "and back to the first shape: right every run, folded from the third (%u run, %u kept)", run, kept);
	opt.consts = (exec_consts_free(opt.consts), NULL);
	OK(live == 0, "nothing is left on the fake device (%d live)", live);
	rc = shape_run(m, g, &opt, 2, 3, &run, &kept, &ups);
	OK(rc == 0 && run == 8 && kept == 0,
	   "a run without kept constants runs every node");
	graph_free(g);
	model_free(m);
}

int main(void)
{
	struct ov_model *m = make_model(10.0f);
	struct graph *g = NULL;
	struct ov_error e = {0};
	float xv[6] = {1, 2, 3, 4, 5, 6};
	int64_t dims[2] = {2, 3};
	struct exec_input in[2] = {{"x", {0}}, {"W", {0}}};
	struct exec_result r;
	size_t n, bytes, on_dev, in_place;

	if (!m || graph_build(&g, m->proto->graph, &e)) {
		OK(0, "the test model loads: %s", e.msg);
		return tap_done();
	}
	xt_wrap(&in[0].t, OV_DT_FLOAT, 2, dims, xv);
	OK(g->serial != 0, "a graph index has a serial (%llu)", (unsigned long long)g->serial);

	/* without kept constants: W goes up at every run */
	struct exec_options opt = {.backend = &fake};
	exec_run(m, g, &opt, in, 1, &r, &e);
	exec_result_free(&r);
	exec_run(m, g, &opt, in, 1, &r, &e);
	OK(uploads == 4 && live == 0, "without exec_consts every run uploads x and W (%d uploads, %d live)", uploads,
	   live);
	exec_result_free(&r);

	/* kept: W goes up once */
	opt.consts = exec_consts_new();
	uploads = 0;
	int rc = exec_run(m, g, &opt, in, 1, &r, &e);
	OK(rc == 0 && y0_of(&r) == 11.0f, "the first run with exec_consts computes x + W (%g)", y0_of(&r));
	exec_result_free(&r);
	exec_consts_stats(opt.consts, &n, &bytes, &on_dev, &in_place);
	OK(n == 1 && bytes == 24 && on_dev == 1, "W is kept, 24 bytes, with its device copy (%zu, %zu, %zu)", n, bytes,
	   on_dev);
	rc = exec_run(m, g, &opt, in, 1, &r, &e);
	OK(rc == 0 && y0_of(&r) == 11.0f && uploads == 3,
	   "the second run uploads x only, and gives the same value (%d uploads, y[0] %g)", uploads, y0_of(&r));
	OK(live == 1, "W's device copy outlives the run (%d live)", live);
	exec_result_free(&r);

	/* a fed W replaces the kept one for that run, and the kept one stays */
	float wv[6] = {100, 100, 100, 100, 100, 100};
	xt_wrap(&in[1].t, OV_DT_FLOAT, 2, dims, wv);
	rc = exec_run(m, g, &opt, in, 2, &r, &e);
	OK(rc == 0 && y0_of(&r) == 101.0f, "a fed W still replaces the initializer (%g)", y0_of(&r));
	exec_result_free(&r);
	rc = exec_run(m, g, &opt, in, 1, &r, &e);
	OK(rc == 0 && y0_of(&r) == 11.0f, "and the next run without it uses the kept W again (%g)", y0_of(&r));
	exec_result_free(&r);

	/* a new index of a changed model (what an edit does): the kept W is dropped, the new one used */
	struct ov_model *m2 = make_model(-5.0f);
	struct graph *g2 = NULL;
	if (!m2 || graph_build(&g2, m2->proto->graph, &e)) {
		OK(0, "the second model loads: %s", e.msg);
		return tap_done();
	}
	OK(g2->serial != g->serial, "another index has another serial");
	uploads = 0;
	rc = exec_run(m2, g2, &opt, in, 1, &r, &e);
	OK(rc == 0 && y0_of(&r) == -4.0f && uploads == 2 && live == 1,
	   "a run of a new index drops the old constants and keeps its own (y[0] %g, %d uploads, %d live)",
	   y0_of(&r), uploads, live);
	exec_result_free(&r);
	exec_consts_free(opt.consts);
	OK(live == 0, "exec_consts_free releases the device copies (%d live)", live);
	exec_consts_free(NULL);

	/* run --repeat */
	struct run_repeat rr = {.runs = 5};
	opt.consts = exec_consts_new();
	runs = 0;
	flip_on_run = -1;
	rc = exec_run(m, g, &opt, in, 1, &r, &e);
	rc |= run_repeat(m, g, &opt, in, 1, &r, &rr, &e);
	OK(rc == 0 && rr.differing_run == 0 && rr.min_ms <= rr.median_ms && runs == 5,
	   "--repeat 5 runs five times, the same bits every time (%d runs)", runs);
	OK(rr.to_device == 1, "a later run copies only x up (%llu)", (unsigned long long)rr.to_device);
	exec_result_free(&r);
	runs = 0;
	flip_on_run = 3;
	rc = exec_run(m, g, &opt, in, 1, &r, &e);
	rc |= run_repeat(m, g, &opt, in, 1, &r, &rr, &e);
	OK(rc == 0 && rr.differing_run == 4 && rr.differing_value && !strcmp(rr.differing_value, "y"),
	   "a run that gives other bits is named (run %ld, '%s')", rr.differing_run,
	   rr.differing_value ? rr.differing_value : "");
	exec_result_free(&r);
	exec_consts_free(opt.consts);
	OK(live == 0, "nothing is left on the fake device (%d)", live);

	/* xk_derive: a block derived from a kept constant lives with it, by input and tag */
	opt = (struct exec_options){.backend = &derive_backend, .consts = exec_consts_new()};
	rc = exec_run(m, g, &opt, in, 1, &r, &e);
	exec_result_free(&r);
	exec_consts_stats(opt.consts, &n, &bytes, &on_dev, &in_place);
	OK(rc == 0 && !seen_derived && derive_kept == 1 && derive_kept2 == 1 && bytes == 24 + 40 + 8,
	   "the first run derives two blocks from the kept W and files them; the constants count their bytes (%d %d, "
	   "%zu bytes)", derive_kept, derive_kept2, bytes);
	const void *first_block = made_block;
	rc = exec_run(m, g, &opt, in, 1, &r, &e);
	exec_result_free(&r);
	OK(rc == 0 && seen_derived == first_block && seen_derived2 && derive_kept == -1,
	   "the next run finds each block under its tag, and derives nothing");
	xt_wrap(&in[1].t, OV_DT_FLOAT, 2, dims, wv);
	rc = exec_run(m, g, &opt, in, 2, &r, &e);
	exec_result_free(&r);
	OK(rc == 0 && !seen_derived && derive_kept == 0,
	   "a fed W is no kept constant: nothing is found for it, nothing filed (the kernel keeps its block)");
	rc = exec_run(m2, g2, &opt, in, 1, &r, &e);
	exec_result_free(&r);
	OK(rc == 0 && !seen_derived && derive_kept == 1,
	   "a new graph index drops the old blocks with the old constants, and files its own");
	exec_consts_free(opt.consts);

	/* graph replay: run 2 recorded, later runs launches of the graph while the cut and the inputs' shapes match */
	float xv2[6] = {-1, -2, -3, -4, -5, -6};
	struct exec_input in2[1] = {{"x", {0}}};
	xt_wrap(&in2[0].t, OV_DT_FLOAT, 2, dims, xv2);
	live = 0;
	opt = (struct exec_options){.backend = &rec_backend, .consts = exec_consts_new()};
	rc = exec_run(m, g, &opt, in, 1, &r, &e);
	OK(rc == 0 && r.graph == 0 && !r.graph_why && rec_begins == 0, "graphs: the first run is not recorded");
	exec_result_free(&r);
	rc = exec_run(m, g, &opt, in, 1, &r, &e);
	OK(rc == 0 && r.graph == EXEC_GRAPH_RECORDED && y0_of(&r) == 11.0f && rec_graphs == 1,
	   "the second is recorded, and its values come back (y[0] %g)", y0_of(&r));
	exec_result_free(&r);
	rc = exec_run(m, g, &opt, in, 1, &r, &e);
	OK(rc == 0 && r.graph == EXEC_GRAPH_REPLAYED && y0_of(&r) == 11.0f && rec_launches == 1 && r.to_device == 1 &&
	   r.nodes_run == 1, "the third is a launch of the graph: x copied in, y back (y[0] %g)", y0_of(&r));
	exec_result_free(&r);
	rc = exec_run(m, g, &opt, in2, 1, &r, &e);
	OK(rc == 0 && r.graph == EXEC_GRAPH_REPLAYED && y0_of(&r) == 9.0f,
	   "a launch takes the new input's bytes (y[0] %g)", y0_of(&r));
	exec_result_free(&r);
	rec_stale = 1;
	rc = exec_run(m, g, &opt, in, 1, &r, &e);
	OK(rc == 0 && r.graph == EXEC_GRAPH_RECORDED && rec_freed == 1 && rec_graphs == 2 && y0_of(&r) == 11.0f &&
	   r.graph_why && strstr(r.graph_why, "out of date"),
	   "a graph out of date is freed and the run recorded again (%d freed, %d recorded: %s)", rec_freed, rec_graphs,
	   r.graph_why ? r.graph_why : "");
	exec_result_free(&r);
	rc = exec_run(m, g, &opt, in2, 1, &r, &e);
	OK(rc == 0 && r.graph == EXEC_GRAPH_REPLAYED && y0_of(&r) == 9.0f, "and the new graph is launched after");
	exec_result_free(&r);
	const char *to[1] = {"y"};
	opt.to = to;
	opt.n_to = 1;
	rc = exec_run(m, g, &opt, in, 1, &r, &e);
	OK(rc == 0 && r.graph == EXEC_GRAPH_REPLAYED, "naming the same output with --to still launches the graph");
	exec_result_free(&r);
	const char *to_x[1] = {"x"};
	opt.to = to_x;
	rc = exec_run(m, g, &opt, in, 1, &r, &e);
	OK(rc == 0 && r.graph == 0 && r.n_values == 1, "another cut runs its nodes");
	exec_result_free(&r);
	opt.to = NULL;
	opt.n_to = 0;
	int64_t dims32[2] = {3, 2};
	struct exec_input in3[1] = {{"x", {0}}};
	xt_wrap(&in3[0].t, OV_DT_FLOAT, 2, dims32, xv);
	rc = exec_run(m, g, &opt, in3, 1, &r, &e);
	OK(rc != 0 || r.graph == 0, "an input of another shape is no launch of the graph (the run decides: %s)",
	   rc ? e.msg : "ran");
	if (!rc)
		exec_result_free(&r);
	opt.keep_all = 1;
	rc = exec_run(m, g, &opt, in, 1, &r, &e);
	OK(rc == 0 && r.graph == 0, "--all runs the nodes");
	exec_result_free(&r);
	opt.keep_all = 0;
	rc = exec_run(m2, g2, &opt, in, 1, &r, &e);
	OK(rc == 0 && r.graph == 0 && rec_freed == 2 && y0_of(&r) == -4.0f,
	   "a new graph index frees the graph with the old constants (%d freed)", rec_freed);
	exec_result_free(&r);
	exec_consts_free(opt.consts);
	OK(live == 0 && rec_freed == 2, "nothing is left on the fake device (%d live)", live);

	/* an input read on the host while recording: a launch with other bytes there runs the nodes instead */
	rec_reads_host = 1;
	opt.consts = exec_consts_new();
	for (int i = 0; i < 3; i++) {
		rc |= exec_run(m, g, &opt, in, 1, &r, &e);
		if (i < 2)
			exec_result_free(&r);
	}
	OK(rc == 0 && r.graph == EXEC_GRAPH_REPLAYED, "graphs: an input read on the host, the same bytes: a launch");
	exec_result_free(&r);
	rc = exec_run(m, g, &opt, in2, 1, &r, &e);
	OK(rc == 0 && r.graph == 0 && y0_of(&r) == 9.0f && r.graph_why && strstr(r.graph_why, "other bytes"),
	   "other bytes: the nodes run, and the report says why (y[0] %g: %s)", y0_of(&r), r.graph_why ? r.graph_why : "");
	exec_result_free(&r);
	exec_consts_free(opt.consts);
	rec_reads_host = 0;
	OK(live == 0 && rec_freed == 3, "nothing is left (%d live, %d graphs freed)", live, rec_freed);

	/* a backend that refuses to record says why, once; one that records none says nothing */
	rec_mode = 1;
	rec_begins = 0;
	opt.consts = exec_consts_new();
	for (int i = 0; i < 4; i++) {
		rc |= exec_run(m, g, &opt, in, 1, &r, &e);
		if (i < 3)
			exec_result_free(&r);
	}
	OK(rc == 0 && r.graph == 0 && r.graph_why && !strcmp(r.graph_why, "the fake refuses to record") &&
	   rec_begins == 1 && y0_of(&r) == 11.0f, "a refusal is asked once and kept as the reason (%d asked: %s)",
	   rec_begins, r.graph_why ? r.graph_why : "");
	exec_result_free(&r);
	exec_consts_free(opt.consts);
	rec_mode = 2;
	rec_begins = 0;
	opt.consts = exec_consts_new();
	for (int i = 0; i < 3; i++) {
		rc |= exec_run(m, g, &opt, in, 1, &r, &e);
		if (i < 2)
			exec_result_free(&r);
	}
	OK(rc == 0 && r.graph == 0 && !r.graph_why && rec_begins == 1, "not asked for: no reason given");
	exec_result_free(&r);
	exec_consts_free(opt.consts);
	OK(live == 0, "nothing is left on the fake device (%d)", live);

	/* W read where it lies when its bytes are aligned to 4 in the file, copied when not: the same values */
	char name[16] = "";
	int done = 0;
	for (int len = 1; len < 9 && !done; len++) {
		name[len - 1] = 'a', name[len] = 0;
		done = !raw_runs("an aligned raw_data payload", name, 1);
	}
	if (done)
		raw_shrinks(name);
	shape_fold();
	OK(done, "some name length puts the payload on 4 bytes");
	done = 0;
	for (int len = 1; len < 9 && !done; len++) {
		name[len - 1] = 'b', name[len] = 0;
		done = !raw_runs("a raw_data payload off 4 bytes", name, 0);
	}
	OK(done, "some name length puts the payload off 4 bytes");

	graph_free(g2);
	model_free(m2);
	graph_free(g);
	model_free(m);
	return tap_done();
}
