/*
 * irq_delivery: an IRQ set up through Xen's external-interrupt path
 * (vector from vector_allocation_cpumask(), destination from
 * cpu_mask_to_apicid() with the mode's int_dest_mode and
 * int_delivery_mode, as MSI routing gets them) with its affinity set to
 * 'mask', raised iterations times from 'cpu'.  samples.cpu says which CPU
 * handled each one; counters.handled_per_cpu sums them.  Params and their
 * defaults (iterations 1000, as every config run has had): irq_delivery.c.
 */
#include "runner/agent/hvbench.h"

static int run(struct agent_ctx *ctx, const json_t *params, json_t *result,
	       char *err, size_t errlen)
{
	struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_irq_delivery,
		.shorthand = 1,
		.mask = json_object_get(params, "mask"),
	};

	req.iterations = hvbench_uint(params, "iterations");
	req.cpu = hvbench_uint(params, "cpu");
	return hvbench_run(ctx, &req, result, err, errlen);
}

const struct agent_workload_ops workload_irq_delivery = {
	.spec = &wl_irq_delivery,
	.run = run,
};
