/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The dom0 agent: a static binary started by the initramfs (or by hand on a
 * real host).  It reads a job (JSON), runs each listed workload through a
 * table of operations, and writes the results as JSON.  A workload is its
 * declaration (workloads/NAME.c, struct wl_type: type, help,
 * params; the host binary links it too), its run function (NAME_run.c)
 * and one line in workloads/list.h, which says how to add
 * one.
 */
#ifndef IPIBENCH_AGENT_H
#define IPIBENCH_AGENT_H

#include <jansson.h>
#include <xenctrl.h>

#include "agent/hvcall.h"
#include "workloads/workloads.h"

struct agent_ctx {
	xc_interface *xch;      /* libxenctrl handle */
	/* XEN_SYSCTL_ipibench's calls (agent/hvcall.h) and their open
	 * handle (NULL: hvbench.c opens one of its own each time). */
	const struct hvcall_ops *hv;
	void *hv_handle;
	const char *outdir;     /* where result and trace files go */
	unsigned int nr_cpus;   /* online physical CPUs */
	int verbose;
	/*
	 * Called after each chunk of a hypervisor run has been fetched, with
	 * the run's chunks so far (NULL: nothing): the fault workload's way
	 * into the middle of a run (workloads/fault_run.c).
	 */
	void (*on_chunk)(struct agent_ctx *ctx, unsigned int chunks);
	void *on_chunk_arg;
	/*
	 * Hypervisor runs that completed a chunk, since the agent started
	 * (hvbench.c's run_once()); each workload's result says how many were
	 * its own ("bench_runs"): the instruction counts' plugin sees each as
	 * one run, and the runner hands them out by it (runner/insncount.c).
	 */
	unsigned long bench_runs;
	/*
	 * The heartbeat (hvbench.c): the workload running (NULL: none), its
	 * chunks so far, and when its last "ipibench: workload NAME: N
	 * chunks" line went to the console (CLOCK_MONOTONIC, ms).  A runner
	 * that watches the console for progress (runner/stall.h) sees one at
	 * most every AGENT_HEARTBEAT_MS while a workload makes progress.
	 */
	const char *workload;
	unsigned long workload_chunks;
	long long beat_ms;
};

/* The longest a workload that makes progress stays silent on the console. */
#define AGENT_HEARTBEAT_MS 10000

struct agent_workload_ops {
	/*
	 * The declaration (NAME.c): type, help and params.  The agent checks
	 * each job entry against it (wl_job_entry_check(), the rules a
	 * config is checked by) before run() is called.
	 */
	const struct wl_type *spec;
	/*
	 * Run the workload with params checked and every default filled in
	 * (the trace params left out: the agent core runs the trace); fill
	 * result with "path", "samples" and "counters" as
	 * docs/results-schema.md describes.  Return 0, or -1 with a one-line
	 * message in err.
	 */
	int (*run)(struct agent_ctx *ctx, const json_t *params, json_t *result,
		   char *err, size_t errlen);
};

/* The registry (agent/workloads.c, from workloads/list.h). */
extern const struct agent_workload_ops *const agent_workloads[];
const struct agent_workload_ops *agent_workload_find(const char *type);

#endif
