/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * skeleton: the run half of the template (skeleton.c is the declaration).
 * Agent only: here is where the Xen calls go (agent/hvbench.h).
 */
#include "ipibench/counters.h"
#include "agent/hvbench.h"

/* A listed workload's wl_NAME is declared by workloads/workloads.h (from list.h). */
extern const struct wl_type wl_skeleton;

/*
 * params were checked against wl_skeleton and carry every default, so
 * read them without defaults (hvbench_uint(), hvbench_bool(),
 * json_string_value()).  Fill result as docs/results-schema.md says:
 * "path", "samples", "counters", and whatever is this workload's own --
 * hvbench_run() gives the common part; shape the rest here, not there.
 * A key of its own in "counters" is first a row of IPB_COUNTERS
 * (ipibench/counters.h, whose comment has the checklist): the reader
 * checks only rows, and the report shows only rows.
 * Return 0, or -1 with one line in err.  hvbench_run_params() reads the
 * shared params (workloads/workloads.h's WL_*) into the request by their keys;
 * a workload that is that request and nothing more is one line,
 * HVBENCH_WORKLOAD(NAME, .op = ...), as flush_mask_run.c.
 */
static int run(struct agent_ctx *ctx, const json_t *params, json_t *result,
	       char *err, size_t errlen)
{
	struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_flush_all,   /* the op it times */
		.shorthand = 1,
		.loop = 1,
		.runs = 1,
	};

	/* The shared params (iterations, cpu) go into req by their keys. */
	if (hvbench_run_params(ctx, &req, params, result, err, errlen))
		return -1;
	json_object_set_new(json_object_get(result, IPB_KEY(WL_COUNTERS)), "depth",
			    json_integer(hvbench_uint(params, "depth")));
	return 0;
}

const struct agent_workload_ops workload_skeleton = {
	.spec = &wl_skeleton,
	.run = run,
};
