/* Structural snapshots of a model (for undo) that leave tensor payloads in place. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "src/model/snapshot.h"
#include "src/model/wire.h"

/* The payloads undo snapshots refer to (heap buffers; the mapping's bytes need no keeping): each with the number of
 * snapshots that refer to it, and whether the live model still holds it.  One the model has let go of (set-tensor
 * replaced it) is an orphan, kept for the snapshots alone, and freed when the last of them goes: trimming the undo
 * history gives the memory back, and orphan_bytes is what the history costs in payloads. */
struct retained {
	const void *ptr; /* NULL: empty; TOMB: removed */
	size_t len;
	uint32_t refs;
	int orphan;
};
#define TOMB ((const void *)&tomb_marker)
static const char tomb_marker;

struct ov_retained {
	struct retained *slots;
	size_t cap, used; /* used: slots taken, tombstones included */
	uint64_t orphan_bytes;
};

static size_t ptr_hash(const void *p, size_t cap)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x & (cap - 1);
}

static struct retained *retained_find(const struct ov_model *m, const void *ptr)
{
	const struct ov_retained *r = m->retained;

	if (!r || !r->cap || !ptr)
		return NULL;
	for (size_t j = ptr_hash(ptr, r->cap); r->slots[j].ptr; j = (j + 1) & (r->cap - 1))
		if (r->slots[j].ptr == ptr)
			return &r->slots[j];
	return NULL;
}

static int in_mapping(const struct ov_model *m, const void *ptr)
{
	return m->map && (const uint8_t *)ptr >= m->map && (const uint8_t *)ptr < m->map + m->map_len;
}

int model_is_retained(const struct ov_model *m, const void *ptr)
{
	return retained_find(m, ptr) != NULL;
}

int model_retained_drop(struct ov_model *m, const void *ptr)
{
	struct retained *e = retained_find(m, ptr);

	if (!e)
		return 0;
	if (!e->orphan) {
		e->orphan = 1;
		m->retained->orphan_bytes += e->len;
	}
	return 1;
}

/* The live model holds ptr again (an undo or redo put it back). */
static void retained_live(struct ov_model *m, const void *ptr)
{
	struct retained *e = retained_find(m, ptr);

	if (e && e->orphan) {
		e->orphan = 0;
		m->retained->orphan_bytes -= e->len;
	}
}

/* A snapshot that referred to ptr is gone. */
static void model_release(struct ov_model *m, const void *ptr)
{
	struct retained *e = retained_find(m, ptr);

	if (!e || --e->refs)
		return;
	if (e->orphan) {
		m->retained->orphan_bytes -= e->len;
		free((void *)e->ptr);
	}
	e->ptr = TOMB; /* back to the model's own (or freed) */
	e->orphan = 0;
}

uint64_t model_retained_bytes(const struct ov_model *m)
{
	return m->retained ? m->retained->orphan_bytes : 0;
}

int model_retain(struct ov_model *m, const void *ptr, size_t len)
{
	struct ov_retained *r = m->retained;
	struct retained *e;

	if (!ptr || in_mapping(m, ptr))
		return 0;
	if ((e = retained_find(m, ptr))) {
		e->refs++;
		return 0;
	}
	if (!r) {
		r = m->retained = calloc(1, sizeof *r);
		if (!r)
			return -1;
	}
	if ((r->used + 1) * 2 > r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct retained *slots = calloc(cap, sizeof *slots);
		if (!slots)
			return -1;
		r->used = 0;
		for (size_t i = 0; i < r->cap; i++)
			if (r->slots[i].ptr && r->slots[i].ptr != TOMB) {
				size_t j = ptr_hash(r->slots[i].ptr, cap);
				while (slots[j].ptr)
					j = (j + 1) & (cap - 1);
				slots[j] = r->slots[i];
				r->used++;
			}
		free(r->slots);
		r->slots = slots;
		r->cap = cap;
	}
	size_t j = ptr_hash(ptr, r->cap);
	while (r->slots[j].ptr && r->slots[j].ptr != TOMB)
		j = (j + 1) & (r->cap - 1);
	if (!r->slots[j].ptr)
		r->used++;
	r->slots[j] = (struct retained){ptr, len, 1, 0};
	return 0;
}

void model_retained_free(struct ov_model *m)
{
	struct ov_retained *r = m->retained;

	if (!r)
		return;
	/* the live tree was freed first: every entry left is a buffer only this table owns now */
	for (size_t i = 0; i < r->cap; i++)
		if (r->slots[i].ptr && r->slots[i].ptr != TOMB)
			free((void *)r->slots[i].ptr);
	free(r->slots);
	free(r);
	m->retained = NULL;
}

struct payload_ref {
	uint8_t *data;
	size_t len;
};

struct model_snapshot {
	struct ov_model *m; /* whose payloads it refers to */
	uint8_t *buf;
	size_t len;
	uint64_t nonce;
	struct payload_ref *refs;
	size_t n_refs;
	size_t n_retained; /* the first n_retained refs hold a model_retain() each */
};

struct take_ctx {
	struct ov_model *m;
	struct model_snapshot *s;
	Onnx__TensorProto **tensors; /* the tensors whose raw_data is swapped, to swap back */
	size_t cap;
	int failed;
};

/* Collect the tensors whose payloads stay out of the snapshot. Their raw_data is swapped for placeholders only
 * once all are known: the placeholders live in one array, which must not move while tensors point into it (it
 * was grown here, and packing read the placeholders of the first 64 tensors from freed memory: undo on a model
 * with more than 64 large tensors restored some of them with wrong bytes). */
static int take_visit(Onnx__TensorProto *t, const struct tensor_site *site, void *vctx)
{
	struct take_ctx *c = vctx;
	struct model_snapshot *s = c->s;

	(void)site;
	if (!t->has_raw_data || t->raw_data.len < WIRE_STRIP_MIN)
		return 0;
	if (s->n_refs == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct payload_ref *r = realloc(s->refs, cap * sizeof *r);
		if (r)
			s->refs = r;
		Onnx__TensorProto **tt = r ? realloc(c->tensors, cap * sizeof *tt) : NULL;
		if (!tt) {
			c->failed = 1;
			return 1;
		}
		c->tensors = tt;
		c->cap = cap;
	}
	if (model_retain(c->m, t->raw_data.data, t->raw_data.len)) {
		c->failed = 1;
		return 1;
	}
	s->refs[s->n_refs] = (struct payload_ref){t->raw_data.data, t->raw_data.len};
	s->n_retained++;
	c->tensors[s->n_refs++] = t;
	return 0;
}

int model_snapshot_take(struct ov_model *m, struct model_snapshot **out, struct ov_error *err)
{
	struct model_snapshot *s = calloc(1, sizeof *s);
	struct take_ctx c = {m, s, NULL, 0, 0};
	uint8_t(*ph)[WIRE_PLACEHOLDER_LEN] = NULL;

	*out = NULL;
	if (!s)
		return ov_fail(err, OV_NOMEM, "out of memory taking an undo snapshot");
	s->m = m;
	if (getrandom(&s->nonce, sizeof s->nonce, GRND_NONBLOCK) != sizeof s->nonce)
		s->nonce = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)s;
	model_foreach_tensor(m->proto, take_visit, &c);
	if (!c.failed && !(ph = malloc((s->n_refs ? s->n_refs : 1) * sizeof *ph)))
		c.failed = 1;
	if (!c.failed) {
		for (uint64_t i = 0; i < s->n_refs; i++) {
			memcpy(ph[i], &s->nonce, 8);
			memcpy(ph[i] + 8, &i, 8);
			c.tensors[i]->raw_data.data = ph[i];
			c.tensors[i]->raw_data.len = WIRE_PLACEHOLDER_LEN;
		}
		s->len = protobuf_c_message_get_packed_size(&m->proto->base);
		s->buf = malloc(s->len ? s->len : 1);
		if (s->buf)
			protobuf_c_message_pack(&m->proto->base, s->buf);
	}
	/* Put every payload back, whatever happened. */
	for (size_t i = 0; i < s->n_refs; i++) {
		c.tensors[i]->raw_data.data = s->refs[i].data;
		c.tensors[i]->raw_data.len = s->refs[i].len;
	}
	free(c.tensors);
	free(ph);
	if (c.failed || !s->buf) {
		model_snapshot_free(s);
		return ov_fail(err, OV_NOMEM, "out of memory taking an undo snapshot");
	}
	*out = s;
	return 0;
}

struct restore_ctx {
	const struct model_snapshot *s;
	struct ov_model *m;
};

static int restore_visit(Onnx__TensorProto *t, const struct tensor_site *site, void *vctx)
{
	struct restore_ctx *c = vctx;
	uint64_t idx;

	(void)site;
	if (!t->has_raw_data || t->raw_data.len != WIRE_PLACEHOLDER_LEN || memcmp(t->raw_data.data, &c->s->nonce, 8))
		return 0;
	memcpy(&idx, t->raw_data.data + 8, 8);
	if (idx >= c->s->n_refs)
		return 0;
	c->m->alloc.free(c->m->alloc.allocator_data, t->raw_data.data);
	t->raw_data.data = c->s->refs[idx].data;
	t->raw_data.len = c->s->refs[idx].len;
	retained_live(c->m, t->raw_data.data);
	return 0;
}

int model_snapshot_restore(struct ov_model *m, const struct model_snapshot *s, struct ov_error *err)
{
	Onnx__ModelProto *p = onnx__model_proto__unpack(&m->alloc, s->len, s->buf);
	struct restore_ctx c = {s, m};

	if (!p)
		return ov_fail(err, OV_NOMEM, "out of memory restoring an undo snapshot");
	/* the old tree first: a payload both trees hold is let go of, then taken back as live */
	onnx__model_proto__free_unpacked(m->proto, &m->alloc);
	m->proto = p;
	model_foreach_tensor(p, restore_visit, &c);
	return 0;
}

size_t model_snapshot_size(const struct model_snapshot *s)
{
	return s ? s->len + s->n_refs * sizeof *s->refs : 0;
}

void model_snapshot_free(struct model_snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_retained; i++)
		model_release(s->m, s->refs[i].data);
	free(s->buf);
	free(s->refs);
	free(s);
}
