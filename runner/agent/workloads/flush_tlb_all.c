/*
 * flush_tlb_all: the seed's workload, flush_tlb_all() x iterations from
 * one CPU inside the hypervisor.  params: iterations (1000), cpu (0),
 * shorthand (true: let send_IPI_mask() pick the ALLBUT shorthand when it
 * is eligible; false: force the genapic path), timing (loop | per-call),
 * runs (1), sender (genapic | physical | cluster), senders ("A, B"), seed.
 * "path" says which ran.
 */
#include "runner/agent/hvbench.h"

static const char *const keys[] = {
	"iterations", "cpu", "shorthand", "timing", "runs", "sender", "senders",
	"seed", NULL
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
		.op = XEN_SYSCTL_IPIBENCH_OP_flush_all,
		.shorthand = hvbench_get_bool(params, "shorthand", 1),
	};

	hvbench_get_uint(params, "iterations", 1000, &req.iterations);
	hvbench_get_uint(params, "cpu", 0, &req.cpu);
	if (hvbench_timing_params(params, 1, &req, err, errlen))
		return -1;
	return hvbench_run(ctx, &req, result, err, errlen);
}

const struct agent_workload_ops workload_flush_tlb_all = {
	.type = "flush_tlb_all",
	.help = "flush_tlb_all() x iterations in Xen (iterations, cpu, shorthand, timing, runs, sender, senders, seed)",
	.verify = verify,
	.run = run,
};
