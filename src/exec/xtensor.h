/* Runtime tensors of the executor: dtype, dims, and a contiguous C-order buffer (host memory for the CPU backend).
 * Unlike TensorProto (the model's storage), an xtensor is what kernels read and write.
 *
 * An xtensor can also be a sequence or an optional (kind, below): a value that holds other values.  Putting them
 * in the same struct lets the runner's slots, exec_value, exec_input and subgraph runs carry them unchanged; the
 * runner hands one only to kernels that take them (src/exec/cpu/sequence.c), so tensor kernels never see one. */
#ifndef OV_EXEC_XTENSOR_H
#define OV_EXEC_XTENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "src/base/error.h"

#define XT_MAX_RANK 16

/* What an xtensor holds. */
enum xt_kind {
	XT_TENSOR = 0,  /* a dense tensor: everything below */
	XT_SEQUENCE,    /* items[0..numel): tensors of one element type (dtype; 0 when an empty one does not say) */
	XT_OPTIONAL,    /* numel 0: empty; numel 1: items[0] holds a tensor or a sequence (dtype: its element type) */
};
/* The most items a sequence may hold (a file or a loop could ask for more). */
#define XT_MAX_ITEMS (1 << 20)

struct xtensor {
	int32_t dtype;                /* ONNX element type (src/base/dtype.h); float16/bfloat16 stored as such */
	int rank;
	int64_t dims[XT_MAX_RANK];
	int64_t numel;
	void *data;                   /* numel elements, C order; for STRING: char *[numel] (owned) */
	size_t bytes;
	int owns;                     /* data is freed with the tensor (2: a big buffer, kept for reuse) */
	/* A copy on a device (a value a device backend computed or uploaded), owned by this struct and released by
	 * xt_free whoever owns data.  host_stale: data is allocated but not written yet, the device holds the value
	 * (xt_host brings it over).  Only the runner's own tensors carry one: exec_run hands back host tensors. */
	void *dev;
	const struct xt_devops *devops;
	int host_stale;
	/* XT_SEQUENCE, XT_OPTIONAL: data points at numel struct xtensor (an array of at least one, so a present value
	 * always has data), rank 0, bytes 0; owns as for a tensor (the items are freed with it).  Never on a device. */
	int kind;
};

/* What a device backend does for the tensors holding its copies. */
struct xt_devops {
	int (*download)(struct xtensor *t, struct ov_error *err); /* the device copy into t->data: 0, or -1 with err */
	void (*release)(void *dev);
};
/* Make t's host data current (copied from its device copy when host_stale): 0, or -1 with err naming why. */
int xt_host(struct xtensor *t, struct ov_error *err);
/* Drop t's device copy (after bringing the value to the host): 0, or -1 with err. */
int xt_drop_device(struct xtensor *t, struct ov_error *err);

/* Element size in bytes: the types under 8 bits take one byte an element at run time (INT4 and INT2
 * sign-extended, the others' codes in the low bits: src/base/codec.h); 0 for UNDEFINED and unknown types. */
size_t xt_elem_size(int32_t dtype);
/* Allocate a tensor of dtype and dims (zero-filled). Refuses rank > XT_MAX_RANK, negative dims, products over
 * 2^40 elements (OV_LIMIT), and failed allocations (OV_NOMEM), naming what. */
int xt_alloc(struct xtensor *t, int32_t dtype, int rank, const int64_t *dims, struct ov_error *err);
/* The same for a value a kernel computes, zero-filled only when zero (a STRING tensor always is): one of 256 KiB
 * or more gets a mapping of its own, in 2 MiB pages, kept when freed for the next value (activations come and go
 * node after node; their memory is faulted in once).  Not thread-safe. */
int xt_alloc_value(struct xtensor *t, int32_t dtype, int rank, const int64_t *dims, int zero, struct ov_error *err);
/* The most bytes one tensor may take (0: no limit but the 2^40 elements); over it xt_alloc fails with OV_LIMIT.
 * The fuzz target of the executor uses it to keep hostile shapes from exhausting memory. */
void xt_set_limit(size_t bytes);
/* That limit (SIZE_MAX when there is none). */
size_t xt_limit(void);
/* A tensor viewing data it does not own. */
void xt_wrap(struct xtensor *t, int32_t dtype, int rank, const int64_t *dims, void *data);
void xt_free(struct xtensor *t);
/* Deep copy of the host data (src must not be host_stale; the copy has no device copy). */
int xt_copy(struct xtensor *dst, const struct xtensor *src, struct ov_error *err);
/* Element i as double / set from double (any numeric dtype; the 16-bit and smaller floats converted, xt_set
 * saturating and rounding to nearest even; integers clamped). */
double xt_get(const struct xtensor *t, int64_t i);
void xt_set(struct xtensor *t, int64_t i, double v);
/* Integer element i exactly (int64 and friends); for float dtypes, truncated. */
int64_t xt_get_int(const struct xtensor *t, int64_t i);
/* Advance a multi-index idx over dims[0..n) in C order (the last axis fastest); 0 once it wraps to all zeros. */
static inline int xt_index_next(int64_t *idx, const int64_t *dims, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		if (++idx[i] < dims[i])
			return 1;
		idx[i] = 0;
	}
	return 0;
}

/* A sequence or optional of n empty items (filled by the caller, each owned by it): 0, or -1 with err. */
int xt_alloc_items(struct xtensor *t, enum xt_kind kind, int32_t elem_dtype, int64_t n, struct ov_error *err);
/* The items of a sequence or optional (NULL for a tensor). */
static inline struct xtensor *xt_items(const struct xtensor *t)
{
	return t->kind != XT_TENSOR ? (struct xtensor *)t->data : NULL;
}
/* "sequence", "optional" or "tensor" */
const char *xt_kind_name(int kind);

/* "float32[1,3,224,224]"; a sequence: "seq(float32)[3]"; an optional: "optional(float32[2])" or
 * "optional(empty)" */
void xt_describe(const struct xtensor *t, char *buf, size_t n);

#endif
