/*
 * pingpong: unicast IPI round trips between two CPUs (cpu sends, peer
 * answers from its handler); pick peer in cpu's x2APIC cluster or in
 * another one (see the query).  Params and defaults: pingpong.c.
 */
#include "runner/agent/hvbench.h"

static int run(struct agent_ctx *ctx, const json_t *params, json_t *result,
	       char *err, size_t errlen)
{
	struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_pingpong,
		.shorthand = 1,
		.sample_cpu = 1,   /* which CPU answered */
	};

	req.iterations = hvbench_uint(params, "iterations");
	req.cpu = hvbench_uint(params, "cpu");
	req.peer = hvbench_uint(params, "peer");
	if (hvbench_timing_params(params, 0, &req, err, errlen))
		return -1;
	return hvbench_run(ctx, &req, result, err, errlen);
}

const struct agent_workload_ops workload_pingpong = {
	.spec = &wl_pingpong,
	.run = run,
};
