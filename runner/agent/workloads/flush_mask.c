/*
 * flush_mask: flush_mask(mask, FLUSH_TLB) x iterations from one CPU,
 * waiting for every CPU's acknowledgement as Xen does.  params:
 * iterations (1000), cpu (0), mask ("all-but-self"), shorthand (true),
 * timing, runs, sender, senders, seed (as flush_tlb_all).
 */
#include "runner/agent/hvbench.h"

static const char *const keys[] = {
	"iterations", "cpu", "mask", "shorthand", "timing", "runs", "sender",
	"senders", "seed", NULL
};

static int verify(const json_t *params, char *err, size_t errlen)
{
	struct hvbench_req req;

	return hvbench_check_params(params, keys, err, errlen) ||
	       hvbench_timing_params(params, 1, &req, err, errlen) ? -1 : 0;
}

static int run(struct agent_ctx *ctx, const json_t *params, json_t *result,
	       char *err, size_t errlen)
{
	struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_flush_mask,
		.shorthand = hvbench_get_bool(params, "shorthand", 1),
		.mask = params ? json_object_get(params, "mask") : NULL,
		.default_mask = "all-but-self",
	};

	hvbench_get_uint(params, "iterations", 1000, &req.iterations);
	hvbench_get_uint(params, "cpu", 0, &req.cpu);
	if (hvbench_timing_params(params, 1, &req, err, errlen))
		return -1;
	return hvbench_run(ctx, &req, result, err, errlen);
}

const struct agent_workload_ops workload_flush_mask = {
	.type = "flush_mask",
	.help = "TLB flush of a CPU mask, all acks awaited (iterations, cpu, mask, shorthand, timing, runs, sender, senders, seed)",
	.verify = verify,
	.run = run,
};
