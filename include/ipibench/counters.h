/* SPDX-License-Identifier: MIT */
/*
 * The results contract: every field of results.json that a reader uses,
 * one row each, in three tables (docs/results-schema.md, "Fields", is
 * printed from them by `make schema-doc`; a test fails when it differs):
 *   - IPB_FIELDS: the set's, the host's, a run's, a workload's, its
 *     params', samples' and loops' fields;
 *   - IPB_COUNTERS: every key a workload may write into its "counters";
 *   - IPB_INSN_COUNTS: every key of "insn_counts", which the instruction
 *     counts add (runner/insncount.c).
 * A row: its name here, its JSON key, its kind, its unit, whether it is
 * per operation, the report's header where the report shows it, one line
 * of doc.  The writers (runner/results.c, runner/cmd_run.c, the agent)
 * write each key by its name here, analysis/inputs.c checks each by its
 * kind and reads it by its name, and IPB_RESULTS_SCHEMA_VERSION is the one
 * version both sides know.
 *
 * Adding a counter (probes/tests/test_counters.c checks that the files
 * and functions named here exist and do what is said of them):
 *   1. one row in IPB_COUNTERS (or IPB_INSN_COUNTS) below;
 *   2. its computation: the workload's run function writes it with
 *      json_object_set_new(cnt, IPB_COUNTER(NAME), ...), as counters_json()
 *      in agent/hvbench.c does (runner/insncount.c's
 *      workload_counts() for an instruction count);
 *   3. `make schema-doc`: docs/results-schema.md's tables, committed;
 *   4. to show it in the report: its header in the row, its sum in struct
 *      group (analysis/internal.h) taken by add_counters() in
 *      analysis/inputs.c, and its column in block_counters() in
 *      analysis/report.c, which takes the header from the row.
 * The reader validates the new key by its kind with no code of its own.
 */
#ifndef IPIBENCH_COUNTERS_H
#define IPIBENCH_COUNTERS_H

#include <stddef.h>
#include <string.h>

/* The version of the results format: the writers write it, the readers
 * refuse a larger one. */
#define IPB_RESULTS_SCHEMA_VERSION 1

enum ipb_counter_kind {
	IPB_COUNT,     /* an integer from 0 to 2^53 */
	IPB_PER_CPU,   /* an array of integers from 0, index = CPU, at most 65536 */
	IPB_MEAN,      /* a number from 0 to 2^53: a mean, a time, a per-operation figure */
	IPB_FLAG,      /* true or false */
	IPB_NAME,      /* a string of the name rule ([A-Za-z0-9][A-Za-z0-9._-]*) */
	IPB_TEXT,      /* a string of at most 4096 bytes (shown escaped) */
	IPB_SAMPLES,   /* an array of numbers from 0 to 2^53, one per call */
	IPB_OBJECT,    /* an object (its members: a table of their own, or opaque) */
	IPB_LIST,      /* an array of objects (each checked by its own table, where read) */
};

/* How a row's figure relates to the workload's operations (its calls). */
enum ipb_per {
	IPB_ABS,       /* as it is: not per operation */
	IPB_PER_OP,    /* per operation (per call) already */
	IPB_DIV_OPS,   /* a total that the report shows per operation (/ operations) */
};

/* Where a field is: the object that holds it, as a JSON path. */
enum ipb_at {
	IPB_AT_ROOT, IPB_AT_TOOL, IPB_AT_HOST, IPB_AT_RUN, IPB_AT_STALL, IPB_AT_WORKLOAD,
	IPB_AT_PARAMS, IPB_AT_SAMPLES, IPB_AT_LOOP, IPB_AT_COUNTERS, IPB_AT_INSN, IPB_NR_AT
};

static inline const char *ipb_at_path(enum ipb_at at)
{
	static const char *const path[] = {
		[IPB_AT_ROOT] = "$", [IPB_AT_TOOL] = "$.tool", [IPB_AT_HOST] = "$.host",
		[IPB_AT_RUN] = "$.runs[]", [IPB_AT_STALL] = "$.runs[].stall",
		[IPB_AT_WORKLOAD] = "$.runs[].workloads[]",
		[IPB_AT_PARAMS] = "$.runs[].workloads[].params",
		[IPB_AT_SAMPLES] = "$.runs[].workloads[].samples",
		[IPB_AT_LOOP] = "$.runs[].workloads[].loops[]",
		[IPB_AT_COUNTERS] = "$.runs[].workloads[].counters",
		[IPB_AT_INSN] = "$.runs[].workloads[].insn_counts",
	};
	return (unsigned)at < IPB_NR_AT ? path[at] : NULL;
}

/* A row's flags: required (a reader refuses the object without it);
 * null accepted (as absent). */
#define IPB_REQ 1
#define IPB_NUL 2

struct ipb_counter_field {
	const char *key;
	enum ipb_counter_kind kind;
	const char *unit;
	enum ipb_per per;
	const char *header;   /* the report's column or row, "" when it shows none */
	const char *doc;
	enum ipb_at at;
	int flags;
};

/* X(NAME, where, "json key", kind, flags, "unit", per, "report header", "doc") */
#define IPB_FIELDS(X) \
	X(SCHEMA_VERSION, IPB_AT_ROOT, "schema_version", IPB_COUNT, IPB_REQ, "version", IPB_ABS, "", \
	  "the results format (IPB_RESULTS_SCHEMA_VERSION); a reader refuses a larger one") \
	X(TOOL, IPB_AT_ROOT, "tool", IPB_OBJECT, 0, "", IPB_ABS, "", \
	  "the program that wrote the set: name, version, commit") \
	X(CREATED, IPB_AT_ROOT, "created", IPB_TEXT, 0, "", IPB_ABS, "created", \
	  "when the set was made: YYYY-MM-DDThh:mm:ss[.f] and Z or +hh:mm (orders a history)") \
	X(CONFIG_FILE, IPB_AT_ROOT, "config_file", IPB_TEXT, IPB_NUL, "", IPB_ABS, "", \
	  "the config file the set was run from") \
	X(CONFIG, IPB_AT_ROOT, "config", IPB_OBJECT, 0, "", IPB_ABS, "", \
	  "the config's sections as read (opaque to readers)") \
	X(HOST, IPB_AT_ROOT, "host", IPB_OBJECT, 0, "", IPB_ABS, "", \
	  "the host the runs ran on") \
	X(RUNS, IPB_AT_ROOT, "runs", IPB_LIST, IPB_REQ, "", IPB_ABS, "", \
	  "the runs, planned in order (mode x repetition)") \
	X(GUEST_RUNS, IPB_AT_ROOT, "guest_runs", IPB_LIST, 0, "", IPB_ABS, "", \
	  "the [guest] runs (\"Guest runs\" below)") \
	X(TOOL_NAME, IPB_AT_TOOL, "name", IPB_NAME, 0, "", IPB_ABS, "", \
	  "ipibench") \
	X(TOOL_VERSION, IPB_AT_TOOL, "version", IPB_TEXT, 0, "", IPB_ABS, "", \
	  "its version") \
	X(TOOL_COMMIT, IPB_AT_TOOL, "commit", IPB_NAME, 0, "", IPB_ABS, "commit", \
	  "the commit it was built from") \
	X(HOST_BACKEND, IPB_AT_HOST, "backend", IPB_NAME, 0, "", IPB_ABS, "backend", \
	  "qemu, local or reboot") \
	X(HOST_NAME, IPB_AT_HOST, "name", IPB_NAME, 0, "", IPB_ABS, "host", \
	  "the host's label: runs of one name are pooled, a history's series are per name") \
	X(HOST_EMULATED, IPB_AT_HOST, "emulated", IPB_FLAG, 0, "", IPB_ABS, "emulated", \
	  "true under QEMU TCG: exact counts, no verdicts on times") \
	X(HOST_CPU_MODEL, IPB_AT_HOST, "cpu_model", IPB_TEXT, IPB_NUL, "", IPB_ABS, "", \
	  "the CPU's model name") \
	X(HOST_CPUS, IPB_AT_HOST, "cpus", IPB_COUNT, 0, "CPUs", IPB_ABS, "CPUs", \
	  "CPUs online (1 to 65536): a sweep's x") \
	X(HOST_MAXCPUS, IPB_AT_HOST, "maxcpus", IPB_COUNT, 0, "CPUs", IPB_ABS, "", \
	  "CPUs the host could bring up (at least cpus)") \
	X(HOST_XEN_VERSION, IPB_AT_HOST, "xen_version", IPB_TEXT, IPB_NUL, "", IPB_ABS, "Xen", \
	  "the build's Xen version") \
	X(HOST_XEN_BUILD, IPB_AT_HOST, "xen_build", IPB_NAME, 0, "", IPB_ABS, "", \
	  "the build's label: runs of different builds are never pooled") \
	X(HOST_TSC_KHZ, IPB_AT_HOST, "tsc_khz", IPB_COUNT, 0, "kHz", IPB_ABS, "", \
	  "the TSC's frequency (up to 1e8): samples.cycles to ns when there is no samples.ns") \
	X(HOST_TOPOLOGY, IPB_AT_HOST, "topology", IPB_TEXT, IPB_NUL, "", IPB_ABS, "topology", \
	  "[host] topology (sockets=,dies=,cores=,threads=), or null") \
	X(HOST_PROFILE, IPB_AT_HOST, "profile", IPB_NAME, IPB_NUL, "", IPB_ABS, "topology", \
	  "[host] profile, or null: runs of different topologies are never pooled") \
	X(HOST_PREFLIGHT, IPB_AT_HOST, "preflight", IPB_OBJECT, 0, "", IPB_ABS, "Preflight", \
	  "the local and reboot backends' host check: facts and warnings") \
	X(RUN_ID, IPB_AT_RUN, "id", IPB_NAME, IPB_REQ, "", IPB_ABS, "run", \
	  "MODE-rN: the run's name, its folder under runs/") \
	X(RUN_MODE, IPB_AT_RUN, "mode", IPB_NAME, IPB_REQ, "", IPB_ABS, "mode", \
	  "what was asked: physical, cluster or mixed") \
	X(RUN_REPETITION, IPB_AT_RUN, "repetition", IPB_COUNT, 0, "repetitions", IPB_ABS, "", \
	  "the repetition of its mode, from 0") \
	X(RUN_CPUS, IPB_AT_RUN, "cpus", IPB_COUNT, 0, "CPUs", IPB_ABS, "", \
	  "[host] cpus as the run was planned") \
	X(RUN_MAXCPUS, IPB_AT_RUN, "maxcpus", IPB_COUNT, 0, "CPUs", IPB_ABS, "", \
	  "[host] maxcpus as the run was planned") \
	X(RUN_STATUS, IPB_AT_RUN, "status", IPB_NAME, IPB_REQ, "", IPB_ABS, "", \
	  "ok, failed, stalled, pending or running; only ok runs are in the statistics") \
	X(RUN_ERROR, IPB_AT_RUN, "error", IPB_TEXT, IPB_NUL, "", IPB_ABS, "error", \
	  "one line when failed or stalled") \
	X(RUN_GENAPIC, IPB_AT_RUN, "genapic", IPB_TEXT, IPB_NUL, "", IPB_ABS, "genapic", \
	  "the genapic driver the hypervisor reported") \
	X(RUN_HV, IPB_AT_RUN, "hv", IPB_OBJECT, IPB_NUL, "", IPB_ABS, "", \
	  "the hypervisor's query as the agent started: the layout check's input") \
	X(RUN_HOST_STATE, IPB_AT_RUN, "host_state", IPB_OBJECT, IPB_NUL, "", IPB_ABS, "Host state", \
	  "what else changes IPI latency, as the boot's agent saw it") \
	X(RUN_STALL, IPB_AT_RUN, "stall", IPB_OBJECT, IPB_NUL, "", IPB_ABS, "", \
	  "a stall's or timeout's evidence, when collected") \
	X(RUN_LAYOUT, IPB_AT_RUN, "layout", IPB_OBJECT, IPB_NUL, "", IPB_ABS, "x2APIC layout", \
	  "the layout check's view of the x2APIC IDs (the report recomputes it)") \
	X(RUN_STARTED, IPB_AT_RUN, "started", IPB_TEXT, IPB_NUL, "", IPB_ABS, "", \
	  "when the run started (ISO 8601)") \
	X(RUN_FINISHED, IPB_AT_RUN, "finished", IPB_TEXT, IPB_NUL, "", IPB_ABS, "", \
	  "when it ended (ISO 8601)") \
	X(RUN_BOOT_S, IPB_AT_RUN, "boot_s", IPB_MEAN, IPB_NUL, "s", IPB_ABS, "", \
	  "from the host's start to dom0 up (the backend's clock)") \
	X(RUN_WALL_S, IPB_AT_RUN, "wall_s", IPB_MEAN, IPB_NUL, "s", IPB_ABS, "", \
	  "from the host's start to the run's end") \
	X(RUN_WORKLOADS, IPB_AT_RUN, "workloads", IPB_LIST, 0, "", IPB_ABS, "", \
	  "what the agent ran, in the config's order") \
	X(STALL_EVIDENCE, IPB_AT_STALL, "evidence", IPB_TEXT, 0, "", IPB_ABS, "stall evidence", \
	  "the evidence's folder, relative to the result set") \
	X(WL_NAME, IPB_AT_WORKLOAD, "name", IPB_NAME, IPB_REQ, "", IPB_ABS, "workload", \
	  "[workload:NAME]: runs are pooled by it") \
	X(WL_TYPE, IPB_AT_WORKLOAD, "type", IPB_NAME, IPB_REQ, "", IPB_ABS, "", \
	  "the workload's type (flush_tlb_all, ipi_mask, ...)") \
	X(WL_PARAMS, IPB_AT_WORKLOAD, "params", IPB_OBJECT, 0, "", IPB_ABS, "", \
	  "its parameters, typed as its declaration says") \
	X(WL_STATUS, IPB_AT_WORKLOAD, "status", IPB_NAME, IPB_REQ, "", IPB_ABS, "", \
	  "ok or failed") \
	X(WL_ERROR, IPB_AT_WORKLOAD, "error", IPB_TEXT, IPB_NUL, "", IPB_ABS, "error", \
	  "one line when failed") \
	X(WL_PATH, IPB_AT_WORKLOAD, "path", IPB_NAME, IPB_NUL, "", IPB_ABS, "", \
	  "the send path that ran: genapic, shorthand, mixed or none") \
	X(WL_TIMING, IPB_AT_WORKLOAD, "timing", IPB_NAME, 0, "", IPB_ABS, "time", \
	  "loop (the loops' totals) or per-call (samples)") \
	X(WL_CHUNKS, IPB_AT_WORKLOAD, "chunks", IPB_COUNT, 0, "chunks", IPB_ABS, "", \
	  "hypercall chunks over all its runs") \
	X(WL_BENCH_RUNS, IPB_AT_WORKLOAD, "bench_runs", IPB_COUNT, 0, "runs", IPB_ABS, "", \
	  "the hypervisor runs it made") \
	X(WL_SAMPLES, IPB_AT_WORKLOAD, "samples", IPB_OBJECT, 0, "", IPB_ABS, "", \
	  "per-call figures, one per call") \
	X(WL_LOOPS, IPB_AT_WORKLOAD, "loops", IPB_LIST, 0, "", IPB_ABS, "", \
	  "loop timing: one element per run (per pair arm)") \
	X(WL_COUNTERS, IPB_AT_WORKLOAD, "counters", IPB_OBJECT, 0, "", IPB_ABS, "Counters", \
	  "totals over its runs (IPB_COUNTERS)") \
	X(WL_INSN_COUNTS, IPB_AT_WORKLOAD, "insn_counts", IPB_OBJECT, 0, "", IPB_ABS, \
	  "Instructions per operation", "the TCG plugin's instruction counts (IPB_INSN_COUNTS)") \
	X(WL_ICR_CHECK, IPB_AT_WORKLOAD, "icr_check", IPB_OBJECT, 0, "", IPB_ABS, "check", \
	  "the layout check's verdict on its ICR writes (the report recomputes it)") \
	X(WL_WALL_NS, IPB_AT_WORKLOAD, "wall_ns", IPB_COUNT, 0, "ns", IPB_ABS, "", \
	  "the workload in dom0, its trace included (CLOCK_MONOTONIC)") \
	X(WL_TRACE, IPB_AT_WORKLOAD, "trace", IPB_TEXT, 0, "", IPB_ABS, "", \
	  "its xentrace file, relative to the result set") \
	X(PARAMS_ITERATIONS, IPB_AT_PARAMS, "iterations", IPB_COUNT, 0, "calls", IPB_ABS, "", \
	  "calls per run") \
	X(PARAMS_SENDER, IPB_AT_PARAMS, "sender", IPB_NAME, 0, "", IPB_ABS, "sender", \
	  "the send routine asked for (genapic, physical, cluster)") \
	X(SAMPLES_NS, IPB_AT_SAMPLES, "ns", IPB_SAMPLES, 0, "ns", IPB_PER_OP, "per-call latency", \
	  "per call: its time") \
	X(SAMPLES_CYCLES, IPB_AT_SAMPLES, "cycles", IPB_SAMPLES, 0, "TSC cycles", IPB_PER_OP, "", \
	  "per call: its TSC cycles (read as ns with host.tsc_khz when there is no ns)") \
	X(SAMPLES_ICR_WRITES, IPB_AT_SAMPLES, "icr_writes", IPB_SAMPLES, 0, "ICR writes", IPB_PER_OP, \
	  "", "per call: the sender's ICR writes") \
	X(SAMPLES_SEND_CYCLES, IPB_AT_SAMPLES, "send_cycles", IPB_SAMPLES, 0, "TSC cycles", IPB_PER_OP, \
	  "", "per call: TSC cycles spent sending") \
	X(SAMPLES_CPU, IPB_AT_SAMPLES, "cpu", IPB_SAMPLES, 0, "CPU", IPB_ABS, "", \
	  "per call: the CPU it was handled on, where a workload records it") \
	X(LOOP_NS, IPB_AT_LOOP, "ns", IPB_COUNT, IPB_REQ, "ns", IPB_ABS, "loop mean", \
	  "the run's calls, timed as one loop (ns / calls: per operation)") \
	X(LOOP_CYCLES, IPB_AT_LOOP, "cycles", IPB_COUNT, 0, "TSC cycles", IPB_ABS, "", \
	  "the same in TSC cycles") \
	X(LOOP_CALLS, IPB_AT_LOOP, "calls", IPB_COUNT, IPB_REQ, "calls", IPB_ABS, "", \
	  "the calls in the loop (at least 1)") \
	X(LOOP_CHUNKS, IPB_AT_LOOP, "chunks", IPB_COUNT, 0, "chunks", IPB_ABS, "", \
	  "the hypercall chunks they took") \
	X(LOOP_SENDER, IPB_AT_LOOP, "sender", IPB_NAME, 0, "", IPB_ABS, "sender", \
	  "the send routine of the loop") \
	X(LOOP_PAIR, IPB_AT_LOOP, "pair", IPB_COUNT, 0, "pairs", IPB_ABS, "", \
	  "paired senders: the pair, below the number of loops") \
	X(LOOP_ARM, IPB_AT_LOOP, "arm", IPB_COUNT, 0, "", IPB_ABS, "", \
	  "paired senders: 0 (senders[0]) or 1")

#define IPB_FIELD_ENUM_(name, at, key, kind, flags, unit, per, header, doc) IPB_F_##name,
enum ipb_field { IPB_FIELDS(IPB_FIELD_ENUM_) IPB_NR_FIELDS };
#undef IPB_FIELD_ENUM_

/* The row of field F. */
static inline const struct ipb_counter_field *ipb_field(enum ipb_field f)
{
#define IPB_FIELD_ROW_(name, at, key, kind, flags, unit, per, header, doc) \
	{ key, kind, unit, per, header, doc, at, flags },
	static const struct ipb_counter_field rows[] = { IPB_FIELDS(IPB_FIELD_ROW_) };
#undef IPB_FIELD_ROW_
	return &rows[f];
}

/* A field's JSON key, by its name: IPB_KEY(RUN_MODE). */
#define IPB_KEY(name) (ipb_field(IPB_F_##name)->key)

/* The counters: X(NAME, "json key", kind, "unit", per, "report header", "doc") */
#define IPB_COUNTERS(X) \
	X(OPERATIONS, "operations", IPB_COUNT, "operations", IPB_ABS, "operations", \
	  "the operations the run made: the per-operation denominator") \
	X(ICR_WRITES, "icr_writes", IPB_COUNT, "ICR writes", IPB_DIV_OPS, "ICR writes per op", \
	  "the senders' writes of the ICR, over all operations") \
	X(IPIS_SENT, "ipis_sent", IPB_COUNT, "IPIs", IPB_DIV_OPS, "IPIs sent per op", \
	  "the IPIs the senders sent") \
	X(IPIS_RECEIVED, "ipis_received", IPB_COUNT, "IPIs", IPB_ABS, "", \
	  "the IPIs the targets took") \
	X(IRQS_PER_CPU, "irqs_per_cpu", IPB_PER_CPU, "interrupts", IPB_ABS, "interrupts per CPU", \
	  "interrupts each CPU took during the run") \
	X(IPIS_PER_CPU, "ipis_per_cpu", IPB_PER_CPU, "IPIs", IPB_ABS, "", \
	  "the run's IPIs each CPU took") \
	X(VECTORS, "vectors", IPB_COUNT, "vectors", IPB_ABS, "vector capacity", \
	  "vector_capacity: how many vectors fit") \
	X(VECTORS_PER_CPU, "vectors_per_cpu", IPB_PER_CPU, "vectors", IPB_ABS, "", \
	  "vector_capacity: the vectors each CPU held") \
	X(HANDLED_PER_CPU, "handled_per_cpu", IPB_PER_CPU, "interrupts", IPB_ABS, "", \
	  "irq_delivery: samples.cpu summed, the device's interrupts each CPU handled") \
	X(DEV_IRQS_PER_CPU, "dev_irqs_per_cpu", IPB_PER_CPU, "interrupts", IPB_ABS, "", \
	  "irq_delivery: Xen's own count of the device's interrupts on each CPU")

#define IPB_COUNTER_ENUM_(name, key, kind, unit, per, header, doc) IPB_C_##name,
enum ipb_counter { IPB_COUNTERS(IPB_COUNTER_ENUM_) IPB_NR_COUNTERS };
#undef IPB_COUNTER_ENUM_

/* The row of counter C. */
static inline const struct ipb_counter_field *ipb_counter(enum ipb_counter c)
{
#define IPB_COUNTER_ROW_(name, key, kind, unit, per, header, doc) \
	{ key, kind, unit, per, header, doc, IPB_AT_COUNTERS, 0 },
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
	X(OPERATIONS, "operations", IPB_COUNT, "operations", IPB_ABS, "", \
	  "counters.operations: the per-operation denominator") \
	X(SEND_CALLS, "send_calls", IPB_COUNT, "calls", IPB_ABS, "", \
	  "send_IPI_mask() windows seen in the chunks") \
	X(SEND_INSNS_PER_OP, "send_insns_per_op", IPB_MEAN, "instructions", IPB_PER_OP, "send path", \
	  "send_IPI_mask(), entry to return, callees in, interrupts out, per operation") \
	X(SEND_INSNS_MIN, "send_insns_min", IPB_COUNT, "instructions", IPB_ABS, "", \
	  "the fewest in one send") \
	X(SEND_INSNS_MAX, "send_insns_max", IPB_COUNT, "instructions", IPB_ABS, "", \
	  "the most in one send") \
	X(SEND_X2APIC_MSR_WRITES, "send_x2apic_msr_writes", IPB_COUNT, "MSR writes", IPB_ABS, "", \
	  "other x2APIC MSRs written in the send path") \
	X(WAIT_INSNS_PER_OP, "wait_insns_per_op", IPB_MEAN, "instructions", IPB_PER_OP, "sender wait", \
	  "the sender's wait, per operation: time-dependent (spins)") \
	X(WAIT_PAUSE_PER_OP, "wait_pause_per_op", IPB_MEAN, "PAUSEs", IPB_PER_OP, "", \
	  "the PAUSEs in the wait, per operation") \
	X(HANDLERS, "handlers", IPB_COUNT, "calls", IPB_ABS, "", \
	  "the receivers' handler calls during the chunks") \
	X(HANDLER_INSNS_MEAN, "handler_insns_mean", IPB_MEAN, "instructions", IPB_ABS, "handler mean", \
	  "a handler call's mean") \
	X(HANDLER_INSNS_MAX, "handler_insns_max", IPB_COUNT, "instructions", IPB_ABS, "handler max", \
	  "the most in one handler call") \
	X(HANDLER_INSNS_MIN, "handler_insns_min", IPB_COUNT, "instructions", IPB_ABS, "", \
	  "the fewest in one handler call") \
	X(ICR_WRITES, "icr_writes", IPB_COUNT, "ICR writes", IPB_DIV_OPS, "ICR writes per op (plugin)", \
	  "wrmsr 0x830 in the send windows (the plugin's)") \
	X(ICR_WRITES_HV, "icr_writes_hv", IPB_COUNT, "ICR writes", IPB_ABS, "", \
	  "counters.icr_writes (the hypervisor's)") \
	X(ICR_MATCH, "icr_match", IPB_FLAG, "", IPB_ABS, "", \
	  "the cross-check: the plugin's ICR writes are the hypervisor's") \
	X(CHUNK_INSNS, "chunk_insns", IPB_COUNT, "instructions", IPB_ABS, "", \
	  "the chunks' own instructions outside the windows") \
	X(INTERRUPTS, "interrupts", IPB_COUNT, "interrupts", IPB_ABS, "", \
	  "do_IRQ() calls while a chunk ran (counted apart)") \
	X(INTERRUPTS_IN_WINDOWS, "interrupts_in_windows", IPB_COUNT, "interrupts", IPB_ABS, "", \
	  "of those, inside a send, wait or handler window") \
	X(INTERRUPT_INSNS, "interrupt_insns", IPB_COUNT, "instructions", IPB_ABS, "", \
	  "the interrupts' own instructions") \
	X(DROPPED_WINDOWS, "dropped_windows", IPB_COUNT, "windows", IPB_ABS, "", \
	  "windows never closed (should be 0)") \
	X(RUNS, "runs", IPB_COUNT, "runs", IPB_ABS, "", \
	  "the runs summed")

#define IPB_INSN_ENUM_(name, key, kind, unit, per, header, doc) IPB_I_##name,
enum ipb_insn { IPB_INSN_COUNTS(IPB_INSN_ENUM_) IPB_NR_INSN };
#undef IPB_INSN_ENUM_

/* The row of insn_counts key I. */
static inline const struct ipb_counter_field *ipb_insn(enum ipb_insn i)
{
#define IPB_INSN_ROW_(name, key, kind, unit, per, header, doc) \
	{ key, kind, unit, per, header, doc, IPB_AT_INSN, 0 },
	static const struct ipb_counter_field rows[] = { IPB_INSN_COUNTS(IPB_INSN_ROW_) };
#undef IPB_INSN_ROW_
	return &rows[i];
}

/* An insn_counts key, by its name: IPB_INSN(SEND_INSNS_PER_OP). */
#define IPB_INSN(name) (ipb_insn(IPB_I_##name)->key)

/* Row I of every table in order (IPB_FIELDS, IPB_COUNTERS, IPB_INSN_COUNTS),
 * NULL past the last: for code that walks the whole contract. */
static inline const struct ipb_counter_field *ipb_contract_row(int i)
{
	if (i < 0)
		return NULL;
	if (i < IPB_NR_FIELDS)
		return ipb_field((enum ipb_field)i);
	i -= IPB_NR_FIELDS;
	if (i < IPB_NR_COUNTERS)
		return ipb_counter((enum ipb_counter)i);
	i -= IPB_NR_COUNTERS;
	return i < IPB_NR_INSN ? ipb_insn((enum ipb_insn)i) : NULL;
}

#endif
