/*
 * flush_tlb_all: the seed's workload, flush_tlb_all() x iterations from
 * one CPU inside the hypervisor.  shorthand true lets send_IPI_mask()
 * pick the ALLBUT shorthand when it is eligible, false forces the genapic
 * path; "path" says which ran.  Params and defaults: flush_tlb_all.c.
 */
#include "runner/agent/hvbench.h"

static int run(struct agent_ctx *ctx, const json_t *params, json_t *result,
	       char *err, size_t errlen)
{
	struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_flush_all,
		.shorthand = hvbench_bool(params, "shorthand"),
	};

	req.iterations = hvbench_uint(params, "iterations");
	req.cpu = hvbench_uint(params, "cpu");
	if (hvbench_timing_params(params, 1, &req, err, errlen))
		return -1;
	return hvbench_run(ctx, &req, result, err, errlen);
}

const struct agent_workload_ops workload_flush_tlb_all = {
	.spec = &wl_flush_tlb_all,
	.run = run,
};
