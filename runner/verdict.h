/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The one line a run is recorded failed with, from what its boot's agent
 * wrote (agent.json): the pure part of `ipibench run`'s per-run check,
 * which the runner's tests check without a host.
 */
#ifndef IPIBENCH_VERDICT_H
#define IPIBENCH_VERDICT_H

#include <stddef.h>

#include <jansson.h>

/* The layout check of the run (cmd_run.c: against the topology, QEMU's
 * dense IDs or the hypervisor's own): WHY gets its first mismatch, or ""
 * when the layout holds. */
typedef void (*verdict_layout_fn)(void *ctx, char *why, size_t len);

/*
 * WHY, for a run asked for MODE whose agent wrote AGENT: "" when the run
 * is ok, else the first of
 *   - the hypervisor reports another APIC driver than MODE's (hv.genapic,
 *     else the agent's genapic from Xen's log);
 *   - LAYOUT's mismatch, unless the agent could not query the hypervisor
 *     (hv_error, e.g. Debian's unpatched Xen: "the hypervisor has no
 *     XEN_SYSCTL_ipibench"), which is then the reason: the layout check
 *     only found no hv to read;
 *   - the agent's error;
 *   - the first workload not ok, with its error.
 * LAYOUT is called only when the driver is MODE's.
 */
void run_verdict(const json_t *agent, const char *mode, verdict_layout_fn layout, void *ctx,
		 char *why, size_t len);

#endif
