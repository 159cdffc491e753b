/* Runtime tensors: allocation with limits (big ones from mappings kept for reuse), element access for every numeric
 * dtype, description. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "src/base/codec.h"
#include "src/model/describe.h"
#include "src/base/dtype.h"
#include "src/exec/xtensor.h"

#define XT_NUMEL_LIMIT (1ll << 40)

static size_t xt_limit_bytes = SIZE_MAX;

void xt_set_limit(size_t bytes)
{
	xt_limit_bytes = bytes ? bytes : SIZE_MAX;
}

size_t xt_limit(void)
{
	return xt_limit_bytes;
}

size_t xt_elem_size(int32_t dtype)
{
	int bits = dtype_bits(dtype);

	if (dtype == OV_DT_STRING)
		return sizeof(char *);
	if (dtype_packed(dtype)) /* one byte an element at run time (see src/base/codec.h) */
		return 1;
	return bits >= 8 ? (size_t)bits / 8 : 0;
}

/* ---- big values ----
 * A value the executor computes (xt_alloc_value) of BIG_MIN bytes or more gets a mapping of its own, a whole number
 * of 2 MiB pages, huge where the kernel gives them (MADV_HUGEPAGE): a fresh 4 KiB page costs a fault of about a
 * microsecond, and a model's first run faults in all the memory its activations need (MobileNetV2: 1,850 faults,
 * a fifth of its first run; in 2 MiB pages, a few dozen).  A freed mapping is kept (up to BIG_KEEP of them,
 * BIG_KEEP_BYTES in all) for the next big value it holds, so node after node and run after run reuse memory already
 * faulted in, as the heap would.  Only values, which come and go: constants stay on the heap, where rounding to
 * 2 MiB would cost memory for good.  One thread at a time, as the executor runs. */

#define BIG_MIN ((size_t)256 << 10)
#define BIG_ALIGN ((size_t)2 << 20)
#define BIG_KEEP 8
#define BIG_KEEP_BYTES ((size_t)64 << 20)
#define BIG_LIVE 64

struct big {
	void *p;
	size_t len;
};

static struct big big_free[BIG_KEEP];   /* kept for reuse */
static struct big big_live[BIG_LIVE];   /* in use: their lengths, for xt_free */
static size_t n_big_free, n_big_live, big_free_bytes;

#if defined(__linux__) && defined(MADV_HUGEPAGE)
/* A mapping of len bytes (a multiple of BIG_ALIGN), aligned to BIG_ALIGN so that it can be huge pages. */
static void *big_map(size_t len)
{
	char *p = mmap(NULL, len + BIG_ALIGN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	size_t head = (BIG_ALIGN - (uintptr_t)p % BIG_ALIGN) % BIG_ALIGN;
	if (head)
		munmap(p, head);
	munmap(p + head + len, BIG_ALIGN - head);
	madvise(p + head, len, MADV_HUGEPAGE);
	return p + head;
}

static void big_unmap(struct big b)
{
	munmap(b.p, b.len);
}
#else
static void *big_map(size_t len)
{
	(void)len;
	return NULL;
}

static void big_unmap(struct big b)
{
	(void)b;
}
#endif

/* A buffer for bytes (zeroed when zero), or NULL: then the caller uses malloc. */
static void *big_get(size_t bytes, int zero)
{
	size_t len = (bytes + BIG_ALIGN - 1) / BIG_ALIGN * BIG_ALIGN, best = n_big_free;
	void *p;

	if (n_big_live == BIG_LIVE)
		return NULL;
	/* the smallest kept mapping that holds it (at most twice the size: a big one stays for a big tensor) */
	for (size_t i = 0; i < n_big_free; i++)
		if (big_free[i].len >= len && big_free[i].len <= 2 * len &&
		    (best == n_big_free || big_free[i].len < big_free[best].len))
			best = i;
	if (best < n_big_free) {
		p = big_free[best].p;
		len = big_free[best].len;
		big_free[best] = big_free[--n_big_free];
		big_free_bytes -= len;
		if (zero)
			memset(p, 0, bytes);
	} else if (!(p = big_map(len))) {
		return NULL;
	}
	big_live[n_big_live++] = (struct big){p, len};
	return p;
}

/* Give back p if it is a big buffer (1), else 0. */
static int big_put(void *p)
{
	for (size_t i = 0; i < n_big_live; i++) {
		if (big_live[i].p != p)
			continue;
		struct big b = big_live[i];
		big_live[i] = big_live[--n_big_live];
		/* full: the smallest kept ones make room for a bigger one, else it goes */
		while (n_big_free && (n_big_free == BIG_KEEP || big_free_bytes + b.len > BIG_KEEP_BYTES)) {
			size_t s = 0;
			for (size_t j = 1; j < n_big_free; j++)
				if (big_free[j].len < big_free[s].len)
					s = j;
			if (big_free[s].len >= b.len)
				break;
			big_unmap(big_free[s]);
			big_free_bytes -= big_free[s].len;
			big_free[s] = big_free[--n_big_free];
		}
		if (n_big_free == BIG_KEEP || big_free_bytes + b.len > BIG_KEEP_BYTES) {
			big_unmap(b);
			return 1;
		}
		big_free[n_big_free++] = b;
		big_free_bytes += b.len;
		return 1;
	}
	return 0;
}

static int alloc(struct xtensor *t, int32_t dtype, int rank, const int64_t *dims, int zero, int value,
		 struct ov_error *err)
{
	size_t es = xt_elem_size(dtype);
	int64_t n = 1;

	memset(t, 0, sizeof *t);
	if (!es)
		return ov_fail(err, OV_INVALID, "element type %s is not supported by the executor", dtype_name(dtype));
	if (rank < 0 || rank > XT_MAX_RANK)
		return ov_fail(err, OV_LIMIT, "rank %d is over the executor's limit of %d", rank, XT_MAX_RANK);
	for (int i = 0; i < rank; i++) {
		if (dims[i] < 0)
			return ov_fail(err, OV_INVALID, "dim %d is negative (%" PRId64 ")", i, dims[i]);
		if (dims[i] && n > XT_NUMEL_LIMIT / dims[i])
			return ov_fail(err, OV_LIMIT, "a tensor of more than 2^40 elements");
		n *= dims[i];
		t->dims[i] = dims[i];
	}
	t->dtype = dtype;
	t->rank = rank;
	t->numel = n;
	t->bytes = (size_t)n * es;
	if (t->bytes > xt_limit_bytes) {
		t->numel = 0;
		t->bytes = 0;
		return ov_fail(err, OV_LIMIT, "a tensor of %zu bytes, over the limit of %zu", (size_t)n * es, xt_limit_bytes);
	}
	if (value && dtype != OV_DT_STRING && t->bytes >= BIG_MIN && (t->data = big_get(t->bytes, zero))) {
		t->owns = 2;
		return 0;
	}
	t->data = zero || dtype == OV_DT_STRING ? calloc(t->bytes ? t->bytes : 1, 1) : malloc(t->bytes ? t->bytes : 1);
	if (!t->data)
		return ov_fail(err, OV_NOMEM, "out of memory for a %zu-byte tensor", t->bytes);
	t->owns = 1;
	return 0;
}

int xt_alloc(struct xtensor *t, int32_t dtype, int rank, const int64_t *dims, struct ov_error *err)
{
	return alloc(t, dtype, rank, dims, 1, 0, err);
}

int xt_alloc_value(struct xtensor *t, int32_t dtype, int rank, const int64_t *dims, int zero, struct ov_error *err)
{
	return alloc(t, dtype, rank, dims, zero, 1, err);
}

void xt_wrap(struct xtensor *t, int32_t dtype, int rank, const int64_t *dims, void *data)
{
	memset(t, 0, sizeof *t);
	t->dtype = dtype;
	t->rank = rank;
	t->numel = 1;
	for (int i = 0; i < rank && i < XT_MAX_RANK; i++) {
		t->dims[i] = dims[i];
		t->numel *= dims[i];
	}
	t->bytes = (size_t)t->numel * xt_elem_size(dtype);
	t->data = data;
}

int xt_host(struct xtensor *t, struct ov_error *err)
{
	if (!t->host_stale)
		return 0;
	if (!t->dev || !t->devops || t->devops->download(t, err))
		return t->dev && t->devops ? -1 : ov_fail(err, OV_INVALID, "the value's device copy is gone");
	t->host_stale = 0;
	return 0;
}

int xt_drop_device(struct xtensor *t, struct ov_error *err)
{
	if (xt_host(t, err))
		return -1;
	if (t->dev && t->devops)
		t->devops->release(t->dev);
	t->dev = NULL;
	t->devops = NULL;
	return 0;
}

int xt_alloc_items(struct xtensor *t, enum xt_kind kind, int32_t elem_dtype, int64_t n, struct ov_error *err)
{
	memset(t, 0, sizeof *t);
	if (n < 0 || n > XT_MAX_ITEMS || (kind == XT_OPTIONAL && n > 1))
		return ov_fail(err, OV_LIMIT, "a %s of %" PRId64 " items (the most is %d)", xt_kind_name(kind), n,
			       kind == XT_OPTIONAL ? 1 : XT_MAX_ITEMS);
	t->data = calloc((size_t)(n ? n : 1), sizeof(struct xtensor));
	if (!t->data)
		return ov_fail(err, OV_NOMEM, "out of memory for a %s of %" PRId64 " items", xt_kind_name(kind), n);
	t->kind = kind;
	t->dtype = elem_dtype;
	t->numel = n;
	t->owns = 1;
	return 0;
}

const char *xt_kind_name(int kind)
{
	return kind == XT_SEQUENCE ? "sequence" : kind == XT_OPTIONAL ? "optional" : "tensor";
}

void xt_free(struct xtensor *t)
{
	if (t->kind != XT_TENSOR) {
		if (t->owns && t->data) {
			for (int64_t i = 0; i < t->numel; i++)
				xt_free(&xt_items(t)[i]);
			free(t->data);
		}
		memset(t, 0, sizeof *t);
		return;
	}
	if (t->dev && t->devops)
		t->devops->release(t->dev);
	if (t->owns) {
		if (t->dtype == OV_DT_STRING && t->data)
			for (int64_t i = 0; i < t->numel; i++)
				free(((char **)t->data)[i]);
		if (t->owns != 2 || !big_put(t->data))
			free(t->data);
	}
	memset(t, 0, sizeof *t);
}

int xt_copy(struct xtensor *dst, const struct xtensor *src, struct ov_error *err)
{
	if (src->kind != XT_TENSOR) {
		/* deep: the copy owns its items */
		if (xt_alloc_items(dst, (enum xt_kind)src->kind, src->dtype, src->numel, err))
			return -1;
		for (int64_t i = 0; i < src->numel; i++)
			if (xt_copy(&xt_items(dst)[i], &xt_items(src)[i], err)) {
				xt_free(dst);
				return -1;
			}
		return 0;
	}
	if (src->host_stale)
		return ov_fail(err, OV_INVALID, "the value is on the device (no host copy yet)");
	if (xt_alloc(dst, src->dtype, src->rank, src->dims, err))
		return -1;
	if (src->dtype == OV_DT_STRING) {
		for (int64_t i = 0; i < src->numel; i++) {
			const char *s = ((char *const *)src->data)[i];
			if (s && !(((char **)dst->data)[i] = strdup(s))) {
				xt_free(dst);
				return ov_fail(err, OV_NOMEM, "out of memory");
			}
		}
		return 0;
	}
	if (src->bytes)
		memcpy(dst->data, src->data, src->bytes);
	return 0;
}

#define AT(type) (((const type *)t->data)[i])

double xt_get(const struct xtensor *t, int64_t i)
{
	switch (t->dtype) {
	case OV_DT_FLOAT: return AT(float);
	case OV_DT_DOUBLE: return AT(double);
	case OV_DT_FLOAT16: return ov_f16_to_f32(AT(uint16_t));
	case OV_DT_BFLOAT16: return ov_bf16_to_f32(AT(uint16_t));
	case OV_DT_INT8: return AT(int8_t);
	case OV_DT_UINT8: return AT(uint8_t);
	case OV_DT_INT16: return AT(int16_t);
	case OV_DT_UINT16: return AT(uint16_t);
	case OV_DT_INT32: return AT(int32_t);
	case OV_DT_UINT32: return AT(uint32_t);
	case OV_DT_INT64: return (double)AT(int64_t);
	case OV_DT_UINT64: return (double)AT(uint64_t);
	case OV_DT_BOOL: return AT(uint8_t) != 0;
	case OV_DT_INT4: case OV_DT_INT2: return AT(int8_t);
	case OV_DT_UINT4: case OV_DT_UINT2: return AT(uint8_t);
	default:
		if (ov_is_small_float(t->dtype))
			return ov_small_to_f32(AT(uint8_t), t->dtype);
		return NAN;
	}
}

int64_t xt_get_int(const struct xtensor *t, int64_t i)
{
	switch (t->dtype) {
	case OV_DT_INT64: return AT(int64_t);
	case OV_DT_UINT64: return (int64_t)AT(uint64_t);
	case OV_DT_INT32: return AT(int32_t);
	case OV_DT_UINT32: return AT(uint32_t);
	case OV_DT_INT16: return AT(int16_t);
	case OV_DT_UINT16: return AT(uint16_t);
	case OV_DT_INT8: return AT(int8_t);
	case OV_DT_UINT8: case OV_DT_BOOL: case OV_DT_UINT4: case OV_DT_UINT2: return AT(uint8_t);
	case OV_DT_INT4: case OV_DT_INT2: return AT(int8_t);
	default: {
		double d = xt_get(t, i);
		return d != d ? 0 : d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : (int64_t)d;
	}
	}
}

#define SET(type, v) (((type *)t->data)[i] = (type)(v))

static double clampd(double v, double lo, double hi)
{
	return v != v ? 0 : v < lo ? lo : v > hi ? hi : v;
}

void xt_set(struct xtensor *t, int64_t i, double v)
{
	switch (t->dtype) {
	case OV_DT_FLOAT: SET(float, v); break;
	case OV_DT_DOUBLE: SET(double, v); break;
	case OV_DT_FLOAT16: SET(uint16_t, ov_f32_to_f16((float)v)); break;
	case OV_DT_BFLOAT16: SET(uint16_t, ov_f32_to_bf16((float)v)); break;
	case OV_DT_INT8: SET(int8_t, clampd(v, -128, 127)); break;
	case OV_DT_UINT8: SET(uint8_t, clampd(v, 0, 255)); break;
	case OV_DT_INT16: SET(int16_t, clampd(v, -32768, 32767)); break;
	case OV_DT_UINT16: SET(uint16_t, clampd(v, 0, 65535)); break;
	case OV_DT_INT32: SET(int32_t, clampd(v, -2147483648.0, 2147483647.0)); break;
	case OV_DT_UINT32: SET(uint32_t, clampd(v, 0, 4294967295.0)); break;
	case OV_DT_INT64: SET(int64_t, clampd(v, -9.2e18, 9.2e18)); break;
	case OV_DT_UINT64: SET(uint64_t, clampd(v, 0, 1.8e19)); break;
	case OV_DT_BOOL: SET(uint8_t, v != 0); break;
	case OV_DT_INT4: SET(int8_t, clampd(v, -8, 7)); break;
	case OV_DT_UINT4: SET(uint8_t, clampd(v, 0, 15)); break;
	case OV_DT_INT2: SET(int8_t, clampd(v, -2, 1)); break;
	case OV_DT_UINT2: SET(uint8_t, clampd(v, 0, 3)); break;
	case OV_DT_FLOAT8E8M0: SET(uint8_t, ov_f32_to_e8m0((float)v, 1, OV_E8M0_UP)); break;
	default:
		if (ov_is_small_float(t->dtype))
			SET(uint8_t, ov_f64_to_small(v, t->dtype, 1));
		break;
	}
}

void xt_describe(const struct xtensor *t, char *buf, size_t n)
{
	if (t->kind == XT_SEQUENCE) {
		snprintf(buf, n, "seq(%s)[%" PRId64 "]", t->dtype ? dtype_short_name(t->dtype) : "?", t->numel);
		return;
	}
	if (t->kind == XT_OPTIONAL) {
		char in[200] = "empty";
		if (t->numel)
			xt_describe(&xt_items(t)[0], in, sizeof in);
		snprintf(buf, n, "optional(%s)", in);
		return;
	}
	size_t used = (size_t)snprintf(buf, n, "%s[", dtype_short_name(t->dtype));
	for (int i = 0; i < t->rank && used < n; i++)
		used += (size_t)snprintf(buf + used, n - used, "%s%" PRId64, i ? "," : "", t->dims[i]);
	if (used < n)
		snprintf(buf + used, n - used, "]");
}
