/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The workloads, one line each: WORKLOAD(name) names workloads/name.c (its
 * declaration: const struct wl_type wl_name, read by the runner's config
 * check, the layout check of its ICR writes and the agent) and
 * agent/workloads/name_run.c (its run function: const struct
 * agent_workload_ops workload_name, agent only).  workloads/wlspec.c and
 * agent/workloads.c build their registries from this list; nothing
 * else names a workload.
 *
 * How to add a workload (skeleton.c and skeleton_run.c are a commented
 * template; copy both):
 *
 *  1. workloads/NAME.c: const struct wl_type wl_NAME with its
 *     type name, a help line and its params table (rows of lib/keys.h;
 *     the WL_* macros of workloads/workloads.h for the shared ones, each
 *     with its range and default: the one place either is written),
 *     .check for rules across params, and .dest when a call sends IPIs whose ICR writes
 *     the layout predicts (workloads/check.c).  No Xen headers: the host
 *     binary links this file.
 *  2. agent/workloads/NAME_run.c: const struct agent_workload_ops
 *     workload_NAME = { .spec = &wl_NAME, .run = ... }.  run() gets the
 *     params already checked against wl_NAME with every default filled in,
 *     so it reads them without defaults of its own, and shapes its own
 *     result (docs/results-schema.md).  A workload that is one request of
 *     the shared params is the one line HVBENCH_WORKLOAD(NAME, .op = ...)
 *     (agent/hvbench.h).
 *  3. One WORKLOAD(NAME) line below.
 *  4. A test: workloads/tests/test_wlspec.c checks every declaration
 *     (wl_type_verify()); add what your params refuse, and a run in
 *     tests/integration/test_hv.c when it needs a hypervisor.
 *  5. Document the type and its result fields in docs/results-schema.md.
 *
 * The Makefile needs nothing: workloads/workloads.mk links NAME.c into
 * both binaries and runner/runner.mk NAME_run.c into the agent.
 */
WORKLOAD(flush_tlb_all)
WORKLOAD(flush_mask)
WORKLOAD(ipi_mask)
WORKLOAD(pingpong)
WORKLOAD(vector_capacity)
WORKLOAD(irq_delivery)
WORKLOAD(hv_query)
WORKLOAD(sysctl_refusals)
WORKLOAD(blkio)
WORKLOAD(fault)
