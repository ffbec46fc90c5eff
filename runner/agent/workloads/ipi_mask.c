/*
 * ipi_mask: one IPI on the benchmark vector to a CPU mask, waiting until
 * every destination has taken it, x iterations.  params: iterations
 * (1000), cpu (0), mask ("all-but-self"), shorthand (true; false calls the
 * genapic's send_IPI_mask directly), vector (0: the vector the patch
 * reserves; anything else is refused by Xen with EACCES), timing, runs,
 * sender, senders, seed (as flush_tlb_all).
 */
#include "runner/agent/hvbench.h"

static const char *const keys[] = {
	"iterations", "cpu", "mask", "shorthand", "vector", "timing", "runs",
	"sender", "senders", "seed", NULL
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
		.op = XEN_SYSCTL_IPIBENCH_OP_ipi_mask,
		.shorthand = hvbench_get_bool(params, "shorthand", 1),
		.mask = params ? json_object_get(params, "mask") : NULL,
		.default_mask = "all-but-self",
	};

	hvbench_get_uint(params, "iterations", 1000, &req.iterations);
	hvbench_get_uint(params, "cpu", 0, &req.cpu);
	hvbench_get_uint(params, "vector", 0, &req.vector);
	if (hvbench_timing_params(params, 1, &req, err, errlen))
		return -1;
	return hvbench_run(ctx, &req, result, err, errlen);
}

const struct agent_workload_ops workload_ipi_mask = {
	.type = "ipi_mask",
	.help = "IPI to a CPU mask, all acks awaited (iterations, cpu, mask, shorthand, vector, timing, runs, sender, senders, seed)",
	.verify = verify,
	.run = run,
};
