/*
 * ipi_mask: one IPI on the benchmark vector to a CPU mask, waiting until
 * every destination has taken it, x iterations.  shorthand false calls
 * the genapic's send_IPI_mask directly; a vector other than 0 (the one the
 * patch reserves) is refused by Xen with EINVAL.  Params and defaults:
 * ipi_mask.c.
 */
#include "runner/agent/hvbench.h"

static int run(struct agent_ctx *ctx, const json_t *params, json_t *result,
	       char *err, size_t errlen)
{
	struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_ipi_mask,
		.shorthand = hvbench_bool(params, "shorthand"),
		.mask = json_object_get(params, "mask"),
	};

	req.iterations = hvbench_uint(params, "iterations");
	req.cpu = hvbench_uint(params, "cpu");
	req.vector = hvbench_uint(params, "vector");
	if (hvbench_timing_params(params, 1, &req, err, errlen))
		return -1;
	return hvbench_run(ctx, &req, result, err, errlen);
}

const struct agent_workload_ops workload_ipi_mask = {
	.spec = &wl_ipi_mask,
	.run = run,
};
