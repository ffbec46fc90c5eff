/*
 * irq_delivery: an IRQ set up through Xen's external-interrupt path
 * (vector from vector_allocation_cpumask(), destination from
 * cpu_mask_to_apicid() with the mode's int_dest_mode and
 * int_delivery_mode, as MSI routing gets them) with its affinity set to
 * 'mask', raised iterations times from 'cpu'.  samples.cpu says which CPU
 * handled each one; counters.handled_per_cpu sums them.  params:
 * iterations (100), cpu (0), mask ("1").
 */
#include "runner/agent/hvbench.h"

static const char *const keys[] = { "iterations", "cpu", "mask", NULL };

static int verify(const json_t *params, char *err, size_t errlen)
{
	return hvbench_check_params(params, keys, err, errlen);
}

static int run(struct agent_ctx *ctx, const json_t *params, json_t *result,
	       char *err, size_t errlen)
{
	struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_irq_delivery,
		.shorthand = 1,
		.mask = params ? json_object_get(params, "mask") : NULL,
		.default_mask = "1",
	};

	hvbench_get_uint(params, "iterations", 100, &req.iterations);
	hvbench_get_uint(params, "cpu", 0, &req.cpu);
	return hvbench_run(ctx, &req, result, err, errlen);
}

const struct agent_workload_ops workload_irq_delivery = {
	.type = "irq_delivery",
	.help = "synthetic device interrupt bound to a CPU mask (iterations, cpu, mask)",
	.verify = verify,
	.run = run,
};
