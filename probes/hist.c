/* SPDX-License-Identifier: GPL-3.0-or-later */
/* probes/hist.c: log-linear histogram (see hist.h). */
#include "probes/hist.h"

#include <string.h>

static unsigned bucket(uint64_t v)
{
	unsigned e;

	if (v < 64)
		return (unsigned)v;
	e = 63 - (unsigned)__builtin_clzll(v);		/* 6..63 */
	return 64 + (e - 6) * 32 + (unsigned)((v >> (e - 5)) & 31);
}

/* Middle of bucket i. */
static uint64_t bucket_mid(unsigned i)
{
	unsigned e, sub;
	uint64_t lo, w;

	if (i < 64)
		return i;
	e = (i - 64) / 32 + 6;
	sub = (i - 64) % 32;
	w = (uint64_t)1 << (e - 5);
	lo = ((uint64_t)1 << e) + sub * w;
	return lo + (w - 1) / 2;
}

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

void hist_add(struct hist *h, uint64_t v)
{
	if (!h->count || v < h->min)
		h->min = v;
	if (!h->count || v > h->max)
		h->max = v;
	h->count++;
	h->sum += (double)v;
	h->b[bucket(v)]++;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, acc = 0, v;
	unsigned i;

	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* Nearest rank: the smallest value with at least q*count samples <= it. */
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (!rank)
		rank = 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		acc += h->b[i];
		if (acc >= rank)
			break;
	}
	v = bucket_mid(i < HIST_BUCKETS ? i : HIST_BUCKETS - 1);
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}
