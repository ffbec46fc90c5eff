/* SPDX-License-Identifier: GPL-3.0-or-later */
/* probes/cmap.c: capped u32 -> counters hash table (see cmap.h). */
#include "probes/cmap.h"

#include <stdlib.h>
#include <string.h>

#define hash cmap_hash

static int alloc(struct cmap *m, uint32_t cap)
{
	m->key = calloc(cap, sizeof(*m->key));
	m->v = calloc(cap, sizeof(*m->v));
	m->w = calloc(cap, sizeof(*m->w));
	m->used = calloc(cap, 1);
	m->cap = cap;
	m->n = 0;
	m->last_slot = UINT32_MAX;
	return m->key && m->v && m->w && m->used ? 0 : -1;
}

int cmap_init(struct cmap *m, uint32_t limit)
{
	memset(m, 0, sizeof(*m));
	m->limit = limit;
	if (alloc(m, 256)) {
		cmap_fini(m);
		return -1;
	}
	return 0;
}

void cmap_fini(struct cmap *m)
{
	free(m->key);
	free(m->v);
	free(m->w);
	free(m->used);
	m->key = NULL;
	m->v = m->w = NULL;
	m->used = NULL;
	m->cap = m->n = 0;
}

void cmap_clear(struct cmap *m)
{
	if (!m->cap)
		return;
	memset(m->used, 0, m->cap);
	memset(m->v, 0, m->cap * sizeof(*m->v));
	memset(m->w, 0, m->cap * sizeof(*m->w));
	m->n = 0;
	m->overflow = 0;
	m->last_slot = UINT32_MAX;
}

static uint32_t find(const struct cmap *m, uint32_t k)
{
	uint32_t i = hash(k, m->cap);

	while (m->used[i] && m->key[i] != k)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int grow(struct cmap *m)
{
	struct cmap old = *m;
	uint32_t i, j;

	if (alloc(m, old.cap * 2)) {
		cmap_fini(m);
		*m = old;
		return -1;
	}
	for (i = 0; i < old.cap; i++) {
		if (!old.used[i])
			continue;
		j = find(m, old.key[i]);
		m->used[j] = 1;
		m->key[j] = old.key[i];
		m->v[j] = old.v[i];
		m->w[j] = old.w[i];
		m->n++;
	}
	cmap_fini(&old);
	return 0;
}

int cmap_add(struct cmap *m, uint32_t key, uint64_t dv, uint64_t dw)
{
	uint32_t i;

	if (m->last_slot != UINT32_MAX && m->last_key == key) {
		m->v[m->last_slot] += dv;
		m->w[m->last_slot] += dw;
		return 0;
	}
	i = find(m, key);
	if (!m->used[i]) {
		if (m->n >= m->limit) {
			m->overflow += dv;
			return -1;
		}
		if ((m->n + 1) * 2 > m->cap) {
			if (grow(m)) {
				m->overflow += dv;
				return -1;
			}
			i = find(m, key);
		}
		m->used[i] = 1;
		m->key[i] = key;
		m->n++;
	}
	m->v[i] += dv;
	m->w[i] += dw;
	m->last_key = key;
	m->last_slot = i;
	return 0;
}
