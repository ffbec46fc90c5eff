/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/cmap.h: u32 key -> two u64 counters, open addressing.
 *
 * The number of distinct keys is capped (limit): keys beyond it are counted
 * in `overflow` instead of growing the table, so a hostile or corrupt file
 * cannot make memory grow with its size.
 */
#ifndef IPIBENCH_CMAP_H
#define IPIBENCH_CMAP_H

#include <stdbool.h>
#include <stdint.h>

struct cmap {
	uint32_t *key;
	uint64_t *v, *w;
	uint8_t *used;
	uint32_t cap, n, limit;
	uint64_t overflow;	/* increments of keys refused by the cap */
	uint32_t last_key;	/* one-entry cache: traces repeat events */
	uint32_t last_slot;
};

int cmap_init(struct cmap *m, uint32_t limit);
void cmap_fini(struct cmap *m);
/* Every key taken out, the table's memory kept. */
void cmap_clear(struct cmap *m);
/* Add (dv, dw) to key's counters; 0, or -1 when refused (cap or memory). */
int cmap_add(struct cmap *m, uint32_t key, uint64_t dv, uint64_t dw);
static inline uint32_t cmap_hash(uint32_t k, uint32_t cap)
{
	return (k * 0x9e3779b1u) >> 7 & (cap - 1);
}

/* Fast path of cmap_add(m, key, 1, 0) for a key already present (the
 * table is kept at most half full, so probes are short). */
static inline void cmap_inc(struct cmap *m, uint32_t key)
{
	uint32_t i = cmap_hash(key, m->cap);

	while (m->used[i]) {
		if (m->key[i] == key) {
			m->v[i]++;
			return;
		}
		i = (i + 1) & (m->cap - 1);
	}
	cmap_add(m, key, 1, 0);
}

/* Whether key has a slot (whatever its counts). */
static inline bool cmap_has(const struct cmap *m, uint32_t key)
{
	uint32_t i = cmap_hash(key, m->cap);

	while (m->used[i]) {
		if (m->key[i] == key)
			return true;
		i = (i + 1) & (m->cap - 1);
	}
	return false;
}

/* Iterate: for (i = 0; i < m->cap; i++) if (m->used[i]) ... */

#endif
