/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/hist.h: a fixed-size log-linear histogram of u64 values.
 *
 * Values below 64 are exact; above, 32 buckets per power of two, so a
 * percentile is within 1/64 (1.6 %) of the true sample (min, max, count and
 * sum are exact).  About 16 KB whatever the number of samples: memory stays
 * flat however large the trace.
 */
#ifndef IPIBENCH_HIST_H
#define IPIBENCH_HIST_H

#include <stdint.h>

#define HIST_BUCKETS (64 + 58 * 32)

struct hist {
	uint64_t count, min, max;
	double sum;
	uint64_t b[HIST_BUCKETS];
};

void hist_init(struct hist *h);
void hist_add(struct hist *h, uint64_t v);
/* The q-quantile (0..1), within 1/64; 0 when empty. */
uint64_t hist_quantile(const struct hist *h, double q);

#endif
