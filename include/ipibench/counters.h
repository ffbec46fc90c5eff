/* SPDX-License-Identifier: MIT */
/*
 * The results contract's counters: every key a workload may write into
 * its "counters" object in results.json, and every key of the "insn_counts"
 * object the instruction counts add (runner/insncount.c), one row each
 * (its name here, its JSON key, its kind, its unit, one line of doc).  The agent writes them
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
	IPB_MEAN,      /* a number from 0: a mean or a per-operation figure */
	IPB_FLAG,      /* true or false */
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

/* "insn_counts": a workload's instruction counts over its runs, from the
 * TCG plugin's windows (docs/results-schema.md, "Instruction counts"). */
#define IPB_INSN_COUNTS(X) \
	X(OPERATIONS, "operations", IPB_COUNT, "operations", \
	  "counters.operations: the per-operation denominator") \
	X(SEND_CALLS, "send_calls", IPB_COUNT, "calls", \
	  "send_IPI_mask() windows seen in the chunks") \
	X(SEND_INSNS_PER_OP, "send_insns_per_op", IPB_MEAN, "instructions", \
	  "send_IPI_mask(), entry to return, callees in, interrupts out, per operation") \
	X(SEND_INSNS_MIN, "send_insns_min", IPB_COUNT, "instructions", \
	  "the fewest in one send") \
	X(SEND_INSNS_MAX, "send_insns_max", IPB_COUNT, "instructions", \
	  "the most in one send") \
	X(SEND_X2APIC_MSR_WRITES, "send_x2apic_msr_writes", IPB_COUNT, "MSR writes", \
	  "other x2APIC MSRs written in the send path") \
	X(WAIT_INSNS_PER_OP, "wait_insns_per_op", IPB_MEAN, "instructions", \
	  "the sender's wait, per operation: time-dependent (spins)") \
	X(WAIT_PAUSE_PER_OP, "wait_pause_per_op", IPB_MEAN, "PAUSEs", \
	  "the PAUSEs in the wait, per operation") \
	X(HANDLERS, "handlers", IPB_COUNT, "calls", \
	  "the receivers' handler calls during the chunks") \
	X(HANDLER_INSNS_MEAN, "handler_insns_mean", IPB_MEAN, "instructions", \
	  "a handler call's mean") \
	X(HANDLER_INSNS_MAX, "handler_insns_max", IPB_COUNT, "instructions", \
	  "the most in one handler call") \
	X(HANDLER_INSNS_MIN, "handler_insns_min", IPB_COUNT, "instructions", \
	  "the fewest in one handler call") \
	X(ICR_WRITES, "icr_writes", IPB_COUNT, "ICR writes", \
	  "wrmsr 0x830 in the send windows (the plugin's)") \
	X(ICR_WRITES_HV, "icr_writes_hv", IPB_COUNT, "ICR writes", \
	  "counters.icr_writes (the hypervisor's)") \
	X(ICR_MATCH, "icr_match", IPB_FLAG, "", \
	  "the cross-check: the plugin's ICR writes are the hypervisor's") \
	X(CHUNK_INSNS, "chunk_insns", IPB_COUNT, "instructions", \
	  "the chunks' own instructions outside the windows") \
	X(INTERRUPTS, "interrupts", IPB_COUNT, "interrupts", \
	  "do_IRQ() calls while a chunk ran (counted apart)") \
	X(INTERRUPTS_IN_WINDOWS, "interrupts_in_windows", IPB_COUNT, "interrupts", \
	  "of those, inside a send, wait or handler window") \
	X(INTERRUPT_INSNS, "interrupt_insns", IPB_COUNT, "instructions", \
	  "the interrupts' own instructions") \
	X(DROPPED_WINDOWS, "dropped_windows", IPB_COUNT, "windows", \
	  "windows never closed (should be 0)") \
	X(RUNS, "runs", IPB_COUNT, "runs", \
	  "the runs summed")

#define IPB_INSN_ENUM_(name, key, kind, unit, doc) IPB_I_##name,
enum ipb_insn { IPB_INSN_COUNTS(IPB_INSN_ENUM_) IPB_NR_INSN };
#undef IPB_INSN_ENUM_

/* The row of insn_counts key I. */
static inline const struct ipb_counter_field *ipb_insn(enum ipb_insn i)
{
#define IPB_INSN_ROW_(name, key, kind, unit, doc) { key, kind, unit, doc },
	static const struct ipb_counter_field rows[] = { IPB_INSN_COUNTS(IPB_INSN_ROW_) };
#undef IPB_INSN_ROW_
	return &rows[i];
}

/* An insn_counts key, by its name: IPB_INSN(SEND_INSNS_PER_OP). */
#define IPB_INSN(name) (ipb_insn(IPB_I_##name)->key)

#endif
