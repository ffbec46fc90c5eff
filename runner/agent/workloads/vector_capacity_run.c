/*
 * vector_capacity: allocate external IRQ vectors through the APIC
 * driver's vector_allocation_cpumask() over a CPU set until none is left,
 * report how many fit and on which CPUs, then free them all.  params:
 * mask ("all"), cpu (0: where the allocation runs).  While it runs no
 * other device interrupt can get a vector: keep it off busy hosts.
 */
#include "runner/agent/hvbench.h"

static int run(struct agent_ctx *ctx, const json_t *params, json_t *result,
	       char *err, size_t errlen)
{
	struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_vector_capacity,
		.iterations = 1,
		.shorthand = 1,
		.mask = json_object_get(params, "mask"),
	};

	req.cpu = hvbench_uint(params, "cpu");
	return hvbench_run(ctx, &req, result, err, errlen);
}

const struct agent_workload_ops workload_vector_capacity = {
	.spec = &wl_vector_capacity,
	.run = run,
};
