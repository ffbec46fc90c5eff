/* SPDX-License-Identifier: GPL-3.0-or-later */
/* probes/tests/xtbuild.h: build small xentrace images in memory for tests. */
#ifndef IPIBENCH_XTBUILD_H
#define IPIBENCH_XTBUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct xtb {
	uint8_t *b;
	size_t len, cap;
	size_t chunk;		/* offset of the open chunk's header, or SIZE_MAX */
};

static inline void xtb_put(struct xtb *x, const void *p, size_t n)
{
	if (x->len + n > x->cap) {
		x->cap = (x->len + n) * 2 + 256;
		x->b = realloc(x->b, x->cap);
	}
	memcpy(x->b + x->len, p, n);
	x->len += n;
}

static inline void xtb_u32(struct xtb *x, uint32_t v)
{
	xtb_put(x, &v, 4);
}

/* Close the open chunk: patch its byte count. */
static inline void xtb_end(struct xtb *x)
{
	uint32_t n;

	if (x->chunk == SIZE_MAX)
		return;
	n = (uint32_t)(x->len - x->chunk - 12);
	memcpy(x->b + x->chunk + 8, &n, 4);
	x->chunk = SIZE_MAX;
}

static inline void xtb_init(struct xtb *x)
{
	memset(x, 0, sizeof(*x));
	x->chunk = SIZE_MAX;
}

static inline void xtb_chunk(struct xtb *x, uint32_t cpu)
{
	xtb_end(x);
	x->chunk = x->len;
	xtb_u32(x, 0x2001f003);
	xtb_u32(x, cpu);
	xtb_u32(x, 0);
}

/* A record; tsc 0 means none. */
static inline void xtb_rec(struct xtb *x, uint32_t ev, uint64_t tsc, int n, const uint32_t *d)
{
	xtb_u32(x, ev | (uint32_t)n << 28 | (tsc ? 1u << 31 : 0));
	if (tsc) {
		xtb_u32(x, (uint32_t)tsc);
		xtb_u32(x, (uint32_t)(tsc >> 32));
	}
	for (int i = 0; i < n; i++)
		xtb_u32(x, d[i]);
}

#define XTB_REC(x, ev, tsc, ...) do { \
	const uint32_t _d[] = { 0, __VA_ARGS__ }; \
	xtb_rec((x), (ev), (tsc), (int)(sizeof(_d) / 4 - 1), _d + 1); \
} while (0)

#endif
