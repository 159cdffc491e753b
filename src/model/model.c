/* Loading a model: map, pre-scan, unpack without copying weights, validate; and freeing it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/model/model.h"
#include "src/model/internal.h"
#include "src/model/snapshot.h"
#include "src/model/wire.h"

/* Memory protobuf-c may allocate, relative to the file: real models need about 2-4x their non-weight bytes. */
#define UNPACK_MEM_FACTOR 16
#define UNPACK_MEM_SLACK (64ull << 20)

/* While a file is unpacked, protobuf-c's small allocations (messages, strings, short arrays: 459,000 of them for a
 * 51,000-node model, most of 8 or 16 bytes, which malloc rounds up to 32) are carved one after the other out of a
 * region reserved for the purpose, 8-byte aligned and without malloc's header: a third less memory for the model.
 * Freeing one only counts it; the region goes back to the system when the last one is freed (an undo that
 * replaces the whole tree) or with the model.  After loading, allocations (edits) come from malloc as before.
 * Sanitizer builds leave the region out, so that every allocation keeps its own bounds. */
#if defined(__SANITIZE_ADDRESS__)
#define PB_REGION 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define PB_REGION 0
#endif
#endif
#ifndef PB_REGION
#define PB_REGION 1
#endif
#define PB_REGION_MAX_ITEM 512 /* bigger ones are rare, and protobuf-c frees some (its scan buffers) */

struct pb_heap {
	struct ov_model *m;
	uint8_t *base;  /* the region, NULL when there is none */
	size_t cap, used;
	size_t live;    /* allocations in the region not freed yet */
	int open;       /* unpacking at load: small allocations come from the region */
};

static void *pb_alloc(void *data, size_t size)
{
	struct pb_heap *h = data;
	size_t n = (size + 7) & ~(size_t)7;

	if (h->open && size && size <= PB_REGION_MAX_ITEM && h->cap - h->used >= n) {
		void *p = h->base + h->used;
		h->used += n;
		h->live++;
		return p;
	}
	return malloc(size ? size : 1);
}

static void region_release(struct pb_heap *h)
{
	if (h->base)
		munmap(h->base, h->cap);
	h->base = NULL;
	h->cap = h->used = h->live = 0;
	h->open = 0;
}

/* Pointers into the file mapping are not ours to free; those in the region are freed all at once. */
static void pb_free(void *data, void *ptr)
{
	struct pb_heap *h = data;
	struct ov_model *m = h->m;
	const uint8_t *p = ptr;

	if (h->base && p >= h->base && p < h->base + h->cap) {
		if (--h->live == 0 && !h->open)
			region_release(h);
		return;
	}
	if (m->map && p >= m->map && p < m->map + m->map_len)
		return;
	if (m->retained && model_retained_drop(m, ptr)) /* an undo snapshot still refers to it */
		return;
	free(ptr);
}

/* Reserve the region for an unpack expected to allocate about estimate bytes (address space only: pages count
 * once they are written). Without it everything comes from malloc. */
static void region_open(struct pb_heap *h, uint64_t estimate)
{
	if (!PB_REGION || h->base || estimate > SIZE_MAX / 2)
		return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t cap = ((size_t)estimate + estimate / 4 + (1u << 20) + page - 1) & ~(page - 1);
	void *p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return;
	h->base = p;
	h->cap = cap;
	h->used = h->live = 0;
	h->open = 1;
}

/* Unpacking is over: give back the part of the region it did not use. */
static void region_close(struct pb_heap *h)
{
	if (!h->base)
		return;
	h->open = 0;
	if (!h->live) {
		region_release(h);
		return;
	}
	size_t page = (size_t)sysconf(_SC_PAGESIZE), keep = (h->used + page - 1) & ~(page - 1);
	if (keep < h->cap && munmap(h->base + keep, h->cap - keep) == 0)
		h->cap = keep;
}

struct lift_ctx {
	struct ov_model *m;
	const struct wire_prep *prep;
	size_t patched;
};

static int lift_visit(Onnx__TensorProto *t, const struct tensor_site *site, void *ctx)
{
	struct lift_ctx *lc = ctx;
	long idx;

	(void)site;
	if (!t->has_raw_data)
		return 0;
	idx = wire_payload_match(lc->prep, t->raw_data.data, t->raw_data.len);
	if (idx < 0)
		return 0;
	lc->m->alloc.free(lc->m->alloc.allocator_data, t->raw_data.data);
	t->raw_data.data = (uint8_t *)lc->m->map + lc->prep->payloads[idx].offset;
	t->raw_data.len = lc->prep->payloads[idx].len;
	lc->patched++;
	return 0;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

static int model_parse(struct ov_model *m, struct ov_model **out, struct ov_error *err);

/* Once protobuf-c has copied the structure out of the file, the mapping's pages are only needed again for the
 * weights someone looks at.  Reading the structure brought every page of the file in (the weights of a model with
 * many small tensors share pages with it): let them go, so that the file is not counted twice in the resident
 * set (a 21 MB model of 17,000 small weights held all 21 MB).  The pages are clean and read-only: the kernel
 * reads them from the file again on the next access, so nothing changes for the model. */
static void map_release(const struct ov_model *m)
{
	if (m->map && !m->owned)
		madvise((void *)m->map, m->map_len, MADV_DONTNEED);
}

static int map_file(struct ov_model *m, const char *path, struct ov_error *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* O_NONBLOCK: never hang on a FIFO */

	if (fd < 0)
		return ov_fail(err, OV_IO, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) < 0) {
		close(fd);
		return ov_fail(err, OV_IO, "cannot stat: %s", strerror(errno));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return ov_fail(err, OV_IO, "is a directory, not a model file");
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return ov_fail(err, OV_IO, "not a regular file");
	}
	if (st.st_size == 0) {
		close(fd);
		return ov_fail(err, OV_FORMAT, "empty file (0 bytes), not an ONNX model");
	}
	if ((uint64_t)st.st_size > SIZE_MAX / 2) {
		close(fd);
		return ov_fail(err, OV_LIMIT, "file too large to map");
	}
	m->file_size = (uint64_t)st.st_size;
	m->map_len = (size_t)st.st_size;
	void *p = mmap(NULL, m->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		m->map_len = 0;
		return ov_fail(err, OV_IO, "cannot map file: %s", strerror(errno));
	}
	m->map = p;
	m->guard = map_guard_add(p, m->map_len, path, &st);
	return 0;
}

static struct ov_model *model_new(const char *path, struct ov_error *err)
{
	struct ov_model *m = calloc(1, sizeof *m);

	if (!m) {
		ov_fail(err, OV_NOMEM, "out of memory");
		return NULL;
	}
	struct pb_heap *h = calloc(1, sizeof *h);
	if (h)
		h->m = m;
	m->alloc = (ProtobufCAllocator){pb_alloc, pb_free, h};
	m->path = strdup(path);
	m->dir = dir_of(path);
	if (!h || !m->path || !m->dir) {
		model_free(m);
		ov_fail(err, OV_NOMEM, "out of memory");
		return NULL;
	}
	return m;
}

int model_load(struct ov_model **out, const char *path, struct ov_error *err)
{
	struct ov_model *m = model_new(path, err);

	*out = NULL;
	if (!m)
		return -1;
	if (map_file(m, path, err)) {
		model_free(m);
		return -1;
	}
	return model_parse(m, out, err);
}

int model_load_buffer(struct ov_model **out, const void *data, size_t len, const char *name,
		      struct ov_error *err)
{
	struct ov_model *m = model_new(name, err);

	*out = NULL;
	if (!m)
		return -1;
	if (len == 0) {
		model_free(m);
		return ov_fail(err, OV_FORMAT, "empty file (0 bytes), not an ONNX model");
	}
	m->owned = malloc(len);
	if (!m->owned) {
		model_free(m);
		return ov_fail(err, OV_NOMEM, "out of memory");
	}
	memcpy(m->owned, data, len);
	m->map = m->owned;
	m->map_len = len;
	m->file_size = len;
	return model_parse(m, out, err);
}

/* Files people give onnxview by mistake, recognised by their first bytes so the answer says what they are instead
 * of a protobuf error: 0 when p may be an ONNX model. */
static int not_onnx(const unsigned char *p, size_t len, struct ov_error *err)
{
	if (len >= 30 && !memcmp(p, "PK\3\4", 4)) {
		/* a zip: torch.save (since PyTorch 1.6) and torch.jit.save write one whose entries are NAME/data.pkl,
		 * NAME/data/0... ; its first entry's name follows the 30-byte local header */
		size_t n = (size_t)p[26] | (size_t)p[27] << 8;
		const char *name = (const char *)p + 30;
		int torch = 0;
		for (size_t i = 0; n <= len - 30 && i + 8 <= n && !torch; i++)
			torch = !memcmp(name + i, "data.pkl", 8) || (i + 13 <= n && !memcmp(name + i, "constants.pkl", 13));
		if (torch)
			return ov_fail(err, OV_FORMAT, "this is a PyTorch checkpoint (a zip written by torch.save), not an "
				       "ONNX model: load it in PyTorch and export it with torch.onnx.export");
		return ov_fail(err, OV_FORMAT, "this is a zip archive, not an ONNX model (an ONNX file is a protobuf "
			       "ModelProto; unpack the archive first)");
	}
	/* torch.save before PyTorch 1.6: a pickle (protocol 2) that starts with its magic number, a long */
	if (len >= 4 && p[0] == 0x80 && p[1] == 0x02 && p[2] == 0x8a && p[3] == 0x0a)
		return ov_fail(err, OV_FORMAT, "this is a PyTorch checkpoint (a pickle written by torch.save), not an "
			       "ONNX model: load it in PyTorch and export it with torch.onnx.export");
	return 0;
}

/* Shared by both loaders: m->map holds the bytes; on failure m is freed. */
static int model_parse(struct ov_model *m, struct ov_model **out, struct ov_error *err)
{
	struct wire_prep prep;
	struct lift_ctx lc;

	if (not_onnx(m->map, m->map_len, err))
		goto fail;
	if (wire_prepare(m->map, m->map_len, &prep, err))
		goto fail;
	uint64_t budget = UNPACK_MEM_SLACK + (uint64_t)prep.len * UNPACK_MEM_FACTOR;
	if (prep.mem_estimate > budget) {
		ov_fail(err, OV_LIMIT, "would need about %llu MiB of memory to read %llu bytes of structure "
			"(limit %llu MiB): refusing a file built to exhaust memory",
			(unsigned long long)(prep.mem_estimate >> 20), (unsigned long long)prep.len,
			(unsigned long long)(budget >> 20));
		wire_prep_free(&prep);
		goto fail;
	}
	if (prep.buf) /* unpacking reads the copy with the weights lifted out */
		map_release(m);
	region_open(m->alloc.allocator_data, prep.mem_estimate);
	m->proto = onnx__model_proto__unpack(&m->alloc, prep.len, prep.buf ? prep.buf : m->map);
	if (!prep.buf)
		map_release(m);
	if (!m->proto) {
		wire_prep_free(&prep);
		ov_fail(err, OV_FORMAT, "not a valid ONNX model: the protobuf decoder rejected it (a field has the "
			"wrong type; is this an ONNX file?)");
		goto fail;
	}
	lc = (struct lift_ctx){m, &prep, 0};
	model_foreach_tensor(m->proto, lift_visit, &lc);
	m->n_lifted = lc.patched;
	region_close(m->alloc.allocator_data);
	wire_prep_free(&prep);
	if (!m->proto->graph) {
		ov_fail(err, OV_FORMAT, "not an ONNX model: it decodes as protobuf but has no graph (ModelProto.graph "
			"is missing)");
		goto fail;
	}
	if (model_validate(m, err))
		goto fail;
	*out = m;
	return 0;
fail:
	model_free(m);
	return -1;
}

static void name_index_free(struct name_index *x);

void model_free(struct ov_model *m)
{
	if (!m)
		return;
	if (m->proto)
		onnx__model_proto__free_unpacked(m->proto, &m->alloc);
	if (m->alloc.allocator_data) {
		region_release(m->alloc.allocator_data);
		free(m->alloc.allocator_data);
	}
	model_external_close(m);
	model_retained_free(m);
	map_guard_remove(m->guard);
	name_index_free(m->opsets);
	name_index_free(m->functions);
	if (m->owned)
		free(m->owned);
	else if (m->map)
		munmap((void *)m->map, m->map_len);
	free(m->path);
	free(m->dir);
	free(m->dir_real);
	free(m);
}

int model_holds_bytes(const struct ov_model *m, const void *p, size_t len)
{
	uintptr_t b = (uintptr_t)p, base = m ? (uintptr_t)m->map : 0; /* addresses: p may lie in another object */

	return base && p && b >= base && b - base <= m->map_len && len <= m->map_len - (b - base);
}

int model_check_unchanged(struct ov_model *m, struct ov_error *err)
{
	if (map_guard_check(m->guard, "the model file", err))
		return -1;
	return model_external_check_unchanged(m, err);
}

/* Where each domain's import is (the first one for a domain), or each local function (by domain and name), by a
 * hash of the key: made for models with more than INDEX_SCAN of them, and made again when the list is another (an
 * edit added or removed an entry).  A lookup checks the entry it finds, so an entry edited in place is never taken
 * for another; one it does not find is looked for by a scan. */
#define INDEX_SCAN 8
struct name_index {
	const void *list; /* the list it was made for */
	size_t n;
	size_t mask;
	size_t *slot; /* list index + 1; 0: empty */
};

static const char *plain_domain(const char *d)
{
	return !d || !strcmp(d, "ai.onnx") ? "" : d;
}

static size_t key_hash(const char *domain, const char *name)
{
	size_t h = 1469598103934665603ull;
	for (const char *d = domain; *d; d++)
		h = (h ^ (unsigned char)*d) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull; /* a byte no name holds between the two */
	for (const char *d = name; d && *d; d++)
		h = (h ^ (unsigned char)*d) * 1099511628211ull;
	return h;
}

static void name_index_free(struct name_index *x)
{
	if (x) {
		free(x->slot);
		free(x);
	}
}

/* Entry i of the list as (domain, name): the imports have no name. */
typedef void (*index_key_fn)(const void *list, size_t i, const char **domain, const char **name);

static void import_key(const void *list, size_t i, const char **domain, const char **name)
{
	const Onnx__OperatorSetIdProto *o = ((Onnx__OperatorSetIdProto *const *)list)[i];
	*domain = plain_domain(o->domain);
	*name = NULL;
}

static void function_key(const void *list, size_t i, const char **domain, const char **name)
{
	const Onnx__FunctionProto *f = ((Onnx__FunctionProto *const *)list)[i];
	*domain = plain_domain(f->domain);
	*name = f->name ? f->name : "";
}

static int key_is(index_key_fn key, const void *list, size_t i, const char *domain, const char *name)
{
	const char *d, *n;
	key(list, i, &d, &n);
	return !strcmp(d, domain) && (!name || !strcmp(n, name));
}

/* The index in *slot for the list as it is now, or NULL (a short list, or no memory: the caller scans). */
static struct name_index *index_for(struct name_index **slot, const void *list, size_t n, index_key_fn key)
{
	struct name_index *x = *slot;

	if (n <= INDEX_SCAN)
		return NULL;
	if (x && x->list == list && x->n == n)
		return x;
	name_index_free(x);
	*slot = NULL;
	if (!(x = calloc(1, sizeof *x)))
		return NULL;
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	if (!(x->slot = calloc(cap, sizeof *x->slot))) {
		free(x);
		return NULL;
	}
	x->list = list, x->n = n, x->mask = cap - 1;
	for (size_t i = 0; i < n; i++) {
		const char *d, *nm;
		key(list, i, &d, &nm);
		size_t h = key_hash(d, nm) & x->mask;
		while (x->slot[h] && !key_is(key, list, x->slot[h] - 1, d, nm))
			h = (h + 1) & x->mask;
		if (!x->slot[h])
			x->slot[h] = i + 1; /* the first entry of a key wins, as the scan's */
	}
	*slot = x;
	return x;
}

/* The index of the entry with key (domain, name) in list (n entries), or -1. */
static ssize_t index_find(struct name_index **slot, const void *list, size_t n, index_key_fn key, const char *domain,
			  const char *name)
{
	struct name_index *x = index_for(slot, list, n, key);

	if (x)
		for (size_t h = key_hash(domain, name) & x->mask; x->slot[h]; h = (h + 1) & x->mask)
			if (key_is(key, list, x->slot[h] - 1, domain, name))
				return (ssize_t)x->slot[h] - 1;
	/* no index, or not in it: an entry edited in place since it was made is found by the scan */
	for (size_t i = 0; i < n; i++)
		if (key_is(key, list, i, domain, name))
			return (ssize_t)i;
	return -1;
}

int64_t model_opset(const struct ov_model *m, const char *domain)
{
	/* the index is a cache: made at the first lookup, through a model the callers hold as read-only */
	struct ov_model *mm = (struct ov_model *)m;
	ssize_t i = index_find(&mm->opsets, m->proto->opset_import, m->proto->n_opset_import, import_key,
			       plain_domain(domain), NULL);
	const Onnx__OperatorSetIdProto *o = i >= 0 ? m->proto->opset_import[i] : NULL;

	return o && o->has_version ? o->version : 0;
}

const Onnx__FunctionProto *model_function(const struct ov_model *m, const char *domain, const char *op)
{
	struct ov_model *mm = (struct ov_model *)m;

	if (!m || !m->proto || !op)
		return NULL;
	ssize_t i = index_find(&mm->functions, m->proto->functions, m->proto->n_functions, function_key,
			       plain_domain(domain), op);
	return i >= 0 ? m->proto->functions[i] : NULL;
}

int model_load_report(const char *path, struct ov_model **m, FILE *err)
{
	struct ov_error e = {0};

	if (model_load(m, path, &e))
		return ov_error_report(err, path, &e);
	return 0;
}
