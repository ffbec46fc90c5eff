/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * vector_capacity: allocate external IRQ vectors through the APIC
 * driver's vector_allocation_cpumask() over a CPU set until none is left,
 * report how many fit and on which CPUs, then free them all; cpu is where
 * the allocation runs (params and defaults: vector_capacity.c).  While it runs no
 * other device interrupt can get a vector: keep it off busy hosts.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ipibench/counters.h"
#include "agent/hvbench.h"

static int run(struct agent_ctx *ctx, const json_t *params, json_t *result,
	       char *err, size_t errlen)
{
	static const struct hvbench_req req = {
		.op = XEN_SYSCTL_IPIBENCH_OP_vector_capacity,
		.iterations = 1,
		.shorthand = 1,
		.count_only = 1,
	};
	struct hvbench_totals *t = hvbench_run_totals(ctx, &req, params, result, err, errlen);
	json_t *cnt, *arr;

	if (!t)
		return -1;
	cnt = json_object_get(result, IPB_KEY(WL_COUNTERS));
	json_object_set_new(cnt, IPB_COUNTER(VECTORS), json_integer(t->result));
	arr = json_array();
	for (unsigned int c = 0; c < t->nr_cpus; c++)
		json_array_append_new(arr, json_integer(t->vectors[c]));
	json_object_set_new(cnt, IPB_COUNTER(VECTORS_PER_CPU), arr);
	json_object_set_new(cnt, "limited_by", json_string(
		(t->status & XEN_SYSCTL_IPIBENCH_ST_IRQ_LIMIT) ? "irqs" : "vectors"));
	free(t);
	return 0;
}

const struct agent_workload_ops workload_vector_capacity = {
	.spec = &wl_vector_capacity,
	.run = run,
};
