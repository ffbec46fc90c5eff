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
		.sample_cpu = 1,
	};

	json_t *cnt, *handled, *who, *c;
	size_t i, nr_cpus;

	req.iterations = hvbench_uint(params, "iterations");
	req.cpu = hvbench_uint(params, "cpu");
	if (hvbench_run(ctx, &req, result, err, errlen))
		return -1;
	/* counters.handled_per_cpu: samples.cpu summed per CPU. */
	cnt = json_object_get(result, "counters");
	nr_cpus = json_array_size(json_object_get(cnt, "irqs_per_cpu"));
	handled = json_array();
	for (i = 0; i < nr_cpus; i++)
		json_array_append_new(handled, json_integer(0));
	who = json_object_get(json_object_get(result, "samples"), "cpu");
	json_array_foreach(who, i, c) {
		json_int_t cpu = json_integer_value(c);
		json_t *n;

		if (cpu < 0 || (size_t)cpu >= nr_cpus)
			continue;
		n = json_array_get(handled, (size_t)cpu);
		json_integer_set(n, json_integer_value(n) + 1);
	}
	json_object_set_new(cnt, "handled_per_cpu", handled);
	return 0;
}

const struct agent_workload_ops workload_irq_delivery = {
	.spec = &wl_irq_delivery,
	.run = run,
};
