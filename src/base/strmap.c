/* String-keyed hash maps for name lookups. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "src/base/strmap.h"

/* FNV-1a from a per-process random start, then a final mix so that the slot index depends on every bit: names in
 * a hostile model cannot be chosen to collide (with a fixed hash, 9,000 colliding names in a 63 KB file made every
 * lookup a linear scan: 24 s for info and dump in the fuzz build).  Nothing depends on the order of the slots. */
uint64_t strmap_hash(const char *s)
{
	static uint64_t seed;
	uint64_t h;

	if (!seed && getrandom(&seed, sizeof seed, GRND_NONBLOCK) != sizeof seed)
		seed = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)&seed;
	h = 1469598103934665603ull ^ seed;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	h ^= h >> 33; /* MurmurHash3's fmix64 */
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static struct strmap_slot *find_h(const struct strmap *m, const char *key, uint64_t h)
{
	size_t j = h & (m->cap - 1);

	while (m->slots[j].key && (m->slots[j].hash != h || strcmp(m->slots[j].key, key)))
		j = (j + 1) & (m->cap - 1);
	return &m->slots[j];
}

static struct strmap_slot *find(const struct strmap *m, const char *key)
{
	return find_h(m, key, strmap_hash(key));
}

static int rehash(struct strmap *m, size_t cap)
{
	struct strmap old = *m;

	m->cap = cap;
	m->slots = calloc(m->cap, sizeof *m->slots);
	if (!m->slots) {
		*m = old;
		return -1;
	}
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].key) {
			size_t j = old.slots[i].hash & (cap - 1);
			while (m->slots[j].key)
				j = (j + 1) & (cap - 1);
			m->slots[j] = old.slots[i];
		}
	free(old.slots);
	return 0;
}

/* Tables are kept at most 3/4 full: slots are 24 bytes, and with the hash stored a probe past another key costs
 * no strcmp, so fuller tables stay fast and take half the memory of the 1/2 they were kept to before. */
static int too_full(size_t n, size_t cap)
{
	return n * 4 > cap * 3;
}

static int grow(struct strmap *m)
{
	return rehash(m, m->cap ? m->cap * 2 : 64);
}

int strmap_reserve(struct strmap *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 64;

	while (too_full(n, cap))
		cap *= 2;
	return cap > m->cap ? rehash(m, cap) : 0;
}

static int insert(struct strmap *m, const char *key, void *value, int replace)
{
	struct strmap_slot *s;

	if (too_full(m->n + 1, m->cap) && grow(m))
		return -1;
	uint64_t h = strmap_hash(key);
	s = find_h(m, key, h);
	if (!s->key) {
		s->key = key;
		s->value = value;
		s->hash = h;
		m->n++;
	} else if (replace) {
		s->value = value;
	}
	return 0;
}

int strmap_put(struct strmap *m, const char *key, void *value)
{
	return insert(m, key, value, 1);
}

int strmap_add(struct strmap *m, const char *key, void *value)
{
	return insert(m, key, value, 0);
}

void *strmap_get(const struct strmap *m, const char *key)
{
	return m->cap ? find(m, key)->value : NULL;
}

int strmap_has(const struct strmap *m, const char *key)
{
	return m->cap && find(m, key)->key != NULL;
}

void strmap_free(struct strmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof *m);
}
