/* A loaded ONNX model: the protobuf-c ModelProto (the single source of truth) plus the file mapping it points into.
 *
 * model_load() maps the file, runs the wire pre-pass (src/model/wire.h), unpacks with protobuf-c, points large
 * raw_data payloads back into the mapping (weights are never copied), and validates every tensor and external
 * data reference before anything trusts a size from the file.  The mapping lives as long as the model; every
 * allocation under proto belongs to model->alloc, whose free() leaves pointers into the mapping alone, so edits may
 * free and replace any part of the tree with protobuf_c_message_free_unpacked(..., &model->alloc).
 */
#ifndef OV_MODEL_H
#define OV_MODEL_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gen/onnx.pb-c.h"
#include "src/base/error.h"

struct ov_model {
	Onnx__ModelProto *proto;
	char *path;            /* as given by the caller */
	char *dir;             /* folder that external data locations are relative to */
	char *dir_real;        /* the same, with symlinks resolved */
	const uint8_t *map;    /* read-only private mapping of the file (or the owned copy below) */
	uint8_t *owned;        /* model_load_buffer's copy of the bytes, in place of a mapping */
	size_t map_len;
	uint64_t file_size;
	size_t n_lifted;       /* raw_data payloads that point into the mapping */
	ProtobufCAllocator alloc;
	struct ov_extfile *ext; /* external data files opened so far (lazy) */
	struct ov_retained *retained; /* raw_data buffers undo snapshots refer to (src/model/snapshot.h) */
	struct map_guard *guard; /* the mapping's entry in src/model/mapping.c (NULL for model_load_buffer) */
	struct name_index *opsets; /* model_opset's index of the imports, made when there are many (src/model/model.c) */
	struct name_index *functions; /* model_function's index of the local functions, the same way */
};

/* Load path. On failure returns -1 and fills err (OV_IO for files that cannot be opened, OV_FORMAT for
 * malformed content, OV_LIMIT for files over a safety limit, OV_EXTERNAL for bad external data). */
int model_load(struct ov_model **out, const char *path, struct ov_error *err);
/* model_load for front ends: on failure print "onnxview: PATH: what is wrong" to err (ov_error_report) and return
 * the exit status; 0 on success. */
int model_load_report(const char *path, struct ov_model **out, FILE *err);
/* The same from bytes in memory (fuzzing, tests); name stands for the path in messages, and external data is
 * looked up relative to its folder. The bytes are copied. */
int model_load_buffer(struct ov_model **out, const void *data, size_t len, const char *name,
		      struct ov_error *err);
void model_free(struct ov_model *m);

/* 0 when the model file and the external data files read so far are as they were when mapped; otherwise -1 with
 * err saying which one changed on disk while open (OV_IO).  A file truncated under its mapping never raises SIGBUS
 * (src/model/mapping.c): reads of it give zeros, and this says so.  Saving, running and opening a tensor check it. */
int model_check_unchanged(struct ov_model *m, struct ov_error *err);
/* 1 when the len bytes at p lie in the model file's mapping (or model_load_buffer's copy), which stays until
 * model_free: a raw_data payload left where it was read (model.n_lifted); else 0. */
int model_holds_bytes(const struct ov_model *m, const void *p, size_t len);
/* 1 when path is one of the files the model's external data lives in (the same file, hard links and symbolic
 * links resolved), else 0. */
int model_external_uses(struct ov_model *m, const char *path);

/* The opset version the model imports for domain ("" or "ai.onnx" for the default domain); 0 if none.  Constant
 * time for a model with thousands of imports (an index, checked against the imports at every use, so edits of them
 * never make it answer wrong). */
int64_t model_opset(const struct ov_model *m, const char *domain);
/* The model's local function (FunctionProto) named op in domain ("" and "ai.onnx" alike), the first one of that
 * name; NULL if none.  Constant time for thousands of functions, as model_opset. */
const Onnx__FunctionProto *model_function(const struct ov_model *m, const char *domain, const char *op);

/* Element count of a tensor from its dims; -1 with err set when a dim is negative or the product overflows
 * (limit 2^53, far beyond any real model). */
int64_t tensor_numel(const Onnx__TensorProto *t, struct ov_error *err);
/* True when the tensor keeps its data in an external file. */
int tensor_is_external(const Onnx__TensorProto *t);
/* Look up an external_data key ("location", "offset", "length"); NULL if absent. */
const char *tensor_external_value(const Onnx__TensorProto *t, const char *key);
/* Bytes of data the tensor carries (raw, typed or external), for size summaries. */
uint64_t tensor_data_bytes(const Onnx__TensorProto *t);

/* Read an external tensor's bytes: *data points into a mapping owned by the model (valid until model_free).
 * Checks the location again (absolute paths, '..', symlinks out of the model's folder) and the range. */
int model_external_data(struct ov_model *m, const Onnx__TensorProto *t, const uint8_t **data, size_t *len,
			struct ov_error *err);

/* Where a tensor sits in the model, for messages: "initializer 'w'", "node #3 (Constant_0) attribute 'value'". */
struct tensor_site {
	const char *kind;    /* "initializer", "sparse initializer", "attribute" */
	const Onnx__NodeProto *node; /* for attributes */
	long node_index;     /* index in its graph */
	const char *attr;    /* attribute name */
	int depth;           /* 0 for the main graph, >0 inside subgraphs/functions */
};
typedef int (*tensor_visit_fn)(Onnx__TensorProto *t, const struct tensor_site *site, void *ctx);
/* Visit every TensorProto in the model (initializers, sparse initializers, attribute tensors, in every graph,
 * subgraph, function and training graph), in file order. Stops at the first non-zero return and returns it. */
int model_foreach_tensor(Onnx__ModelProto *p, tensor_visit_fn fn, void *ctx);
/* "initializer 'w'" etc. into buf. */
const char *tensor_site_describe(const struct tensor_site *site, const Onnx__TensorProto *t, char *buf, size_t n);

#endif
