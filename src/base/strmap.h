/* A hash map from strings to pointers (open addressing, FNV-1a). Keys are borrowed, not copied: they must
 * outlive the map (they normally point into the model). */
#ifndef OV_STRMAP_H
#define OV_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
	const char *key;
	void *value;
	uint64_t hash; /* kept so growing never hashes a key twice, and most mismatches skip strcmp */
};

struct strmap {
	struct strmap_slot *slots;
	size_t cap; /* power of two */
	size_t n;
};

/* Insert or replace. Returns 0, or -1 when out of memory. */
/* The seeded string hash the map uses (the same for the process's whole life), for other name tables. */
uint64_t strmap_hash(const char *s);
int strmap_put(struct strmap *m, const char *key, void *value);
/* Insert only if absent (the first definition wins). Returns 0, or -1 when out of memory. */
int strmap_add(struct strmap *m, const char *key, void *value);
void *strmap_get(const struct strmap *m, const char *key);
/* Make room for n keys in total without growing again. Returns 0, or -1 when out of memory. */
int strmap_reserve(struct strmap *m, size_t n);
int strmap_has(const struct strmap *m, const char *key);
void strmap_free(struct strmap *m);

#endif
