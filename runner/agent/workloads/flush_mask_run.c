/*
 * flush_mask: flush_mask(mask, FLUSH_TLB) x iterations from one CPU,
 * waiting for every CPU's acknowledgement as Xen does.  Params and
 * defaults: flush_mask.c.
 */
#include "runner/agent/hvbench.h"

static int run(struct agent_ctx *ctx, const json_t *params, json_t *result,
	       char *err, size_t errlen)
{
	struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_flush_mask,
		.shorthand = hvbench_bool(params, "shorthand"),
		.mask = json_object_get(params, "mask"),
	};

	req.iterations = hvbench_uint(params, "iterations");
	req.cpu = hvbench_uint(params, "cpu");
	if (hvbench_timing_params(params, 1, &req, err, errlen))
		return -1;
	return hvbench_run(ctx, &req, result, err, errlen);
}

const struct agent_workload_ops workload_flush_mask = {
	.spec = &wl_flush_mask,
	.run = run,
};
