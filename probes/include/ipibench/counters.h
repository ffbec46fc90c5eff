/* SPDX-License-Identifier: MIT */
/*
 * The results contract's counters: every key a workload may write into
 * its "counters" object in results.json, one row each (its name here, its
 * JSON key, its kind, its unit, one line of doc).  The agent writes them
 * by these names, the runner and analysis read them by these names,
 * analysis/inputs.c validates each by its kind, and
 * probes/tests/test_counters.c checks that docs/results-schema.md
 * documents every row.  A new counter is one row here plus the code that
 * computes it.
 */
#ifndef IPIBENCH_COUNTERS_H
#define IPIBENCH_COUNTERS_H

#include <stddef.h>
#include <string.h>

enum ipb_counter_kind {
	IPB_COUNT,     /* an integer from 0 */
	IPB_PER_CPU,   /* an array of integers from 0, index = CPU */
};

/* X(NAME, "json key", kind, "unit", "doc") */
#define IPB_COUNTERS(X) \
	X(OPERATIONS, "operations", IPB_COUNT, "operations", \
	  "the operations the run made: the per-operation denominator") \
	X(ICR_WRITES, "icr_writes", IPB_COUNT, "ICR writes", \
	  "the senders' writes of the ICR, over all operations") \
	X(IPIS_SENT, "ipis_sent", IPB_COUNT, "IPIs", \
	  "the IPIs the senders sent") \
	X(IPIS_RECEIVED, "ipis_received", IPB_COUNT, "IPIs", \
	  "the IPIs the targets took") \
	X(IRQS_PER_CPU, "irqs_per_cpu", IPB_PER_CPU, "interrupts", \
	  "interrupts each CPU took during the run") \
	X(IPIS_PER_CPU, "ipis_per_cpu", IPB_PER_CPU, "IPIs", \
	  "the run's IPIs each CPU took") \
	X(VECTORS, "vectors", IPB_COUNT, "vectors", \
	  "vector_capacity: how many vectors fit") \
	X(VECTORS_PER_CPU, "vectors_per_cpu", IPB_PER_CPU, "vectors", \
	  "vector_capacity: the vectors each CPU held") \
	X(HANDLED_PER_CPU, "handled_per_cpu", IPB_PER_CPU, "interrupts", \
	  "irq_delivery: samples.cpu summed, the device's interrupts each CPU handled") \
	X(DEV_IRQS_PER_CPU, "dev_irqs_per_cpu", IPB_PER_CPU, "interrupts", \
	  "irq_delivery: Xen's own count of the device's interrupts on each CPU")

#define IPB_COUNTER_ENUM_(name, key, kind, unit, doc) IPB_C_##name,
enum ipb_counter { IPB_COUNTERS(IPB_COUNTER_ENUM_) IPB_NR_COUNTERS };
#undef IPB_COUNTER_ENUM_

struct ipb_counter_field {
	const char *key;
	enum ipb_counter_kind kind;
	const char *unit, *doc;
};

/* The row of counter C. */
static inline const struct ipb_counter_field *ipb_counter(enum ipb_counter c)
{
#define IPB_COUNTER_ROW_(name, key, kind, unit, doc) { key, kind, unit, doc },
	static const struct ipb_counter_field rows[] = { IPB_COUNTERS(IPB_COUNTER_ROW_) };
#undef IPB_COUNTER_ROW_
	return &rows[c];
}

/* A counter's JSON key, by its name: IPB_COUNTER(ICR_WRITES). */
#define IPB_COUNTER(name) (ipb_counter(IPB_C_##name)->key)

/* The counter whose key is KEY, or IPB_NR_COUNTERS. */
static inline enum ipb_counter ipb_counter_find(const char *key)
{
	for (int c = 0; c < IPB_NR_COUNTERS; c++)
		if (!strcmp(ipb_counter((enum ipb_counter)c)->key, key))
			return (enum ipb_counter)c;
	return IPB_NR_COUNTERS;
}

#endif
