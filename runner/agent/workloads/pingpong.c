/*
 * pingpong: unicast IPI round trips between two CPUs (a sends, b answers
 * from its handler).  params: iterations (1000), cpu or a (0), peer or b
 * (1); pick b in a's x2APIC cluster or in another one (see the query);
 * timing (loop | per-call), runs (1).
 */
#include <stdio.h>

#include "runner/agent/hvbench.h"

static const char *const keys[] = {
	"iterations", "cpu", "peer", "a", "b", "timing", "runs", NULL
};

static int verify(const json_t *params, char *err, size_t errlen)
{
	struct hvbench_req req;

	if (hvbench_check_params(params, keys, err, errlen) ||
	    hvbench_timing_params(params, 0, &req, err, errlen))
		return -1;
	if (params && json_object_get(params, "cpu") && json_object_get(params, "a")) {
		snprintf(err, errlen, "give either 'cpu' or 'a', not both");
		return -1;
	}
	if (params && json_object_get(params, "peer") && json_object_get(params, "b")) {
		snprintf(err, errlen, "give either 'peer' or 'b', not both");
		return -1;
	}
	return 0;
}

static int run(struct agent_ctx *ctx, const json_t *params, json_t *result,
	       char *err, size_t errlen)
{
	struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_pingpong,
		.shorthand = 1,
	};
	const json_t *a = params ? json_object_get(params, "a") : NULL;
	const json_t *b = params ? json_object_get(params, "b") : NULL;

	hvbench_get_uint(params, "iterations", 1000, &req.iterations);
	hvbench_get_uint(params, a ? "a" : "cpu", 0, &req.cpu);
	hvbench_get_uint(params, b ? "b" : "peer", 1, &req.peer);
	if (hvbench_timing_params(params, 0, &req, err, errlen))
		return -1;
	return hvbench_run(ctx, &req, result, err, errlen);
}

const struct agent_workload_ops workload_pingpong = {
	.type = "pingpong",
	.help = "unicast IPI round trips between CPUs a and b (iterations, a|cpu, b|peer, timing, runs)",
	.verify = verify,
	.run = run,
};
