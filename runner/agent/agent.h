/*
 * The dom0 agent: a static binary started by the initramfs (or by hand on a
 * real host).  It reads a job (JSON), runs each listed workload through a
 * table of operations, and writes the results as JSON.  Adding a workload
 * is one file in runner/agent/workloads/ plus one entry in
 * runner/agent/workloads.c.
 */
#ifndef IPIBENCH_AGENT_H
#define IPIBENCH_AGENT_H

#include <jansson.h>
#include <xenctrl.h>

struct agent_ctx {
	xc_interface *xch;      /* libxenctrl handle */
	void *xcall;            /* xencall_handle *, for the ipibench sysctl */
	const char *outdir;     /* where result and trace files go */
	unsigned int nr_cpus;   /* online physical CPUs */
	int verbose;
};

struct agent_workload_ops {
	const char *type;       /* [workload:NAME] type = ... */
	const char *help;       /* one line, shown by `ipibench-agent --list` */
	/*
	 * Check params before anything runs (bad input: one-line message into
	 * err, return -1).  May be NULL when the workload takes no params.
	 */
	int (*verify)(const json_t *params, char *err, size_t errlen);
	/*
	 * Run the workload; fill result with "path", "samples" and "counters"
	 * as docs/results-schema.md describes.  Return 0, or -1 with a
	 * one-line message in err.
	 */
	int (*run)(struct agent_ctx *ctx, const json_t *params, json_t *result,
		   char *err, size_t errlen);
};

/* The registry (runner/agent/workloads.c). */
extern const struct agent_workload_ops *const agent_workloads[];
const struct agent_workload_ops *agent_workload_find(const char *type);

#endif
