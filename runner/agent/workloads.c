/* The agent's workload registry: one entry per file in workloads/. */
#include <string.h>

#include "runner/agent/agent.h"

extern const struct agent_workload_ops workload_flush_tlb_all;
extern const struct agent_workload_ops workload_flush_mask;
extern const struct agent_workload_ops workload_ipi_mask;
extern const struct agent_workload_ops workload_pingpong;
extern const struct agent_workload_ops workload_vector_capacity;
extern const struct agent_workload_ops workload_irq_delivery;
extern const struct agent_workload_ops workload_hv_query;
extern const struct agent_workload_ops workload_sysctl_refusals;
extern const struct agent_workload_ops workload_blkio;

const struct agent_workload_ops *const agent_workloads[] = {
	&workload_flush_tlb_all,
	&workload_flush_mask,
	&workload_ipi_mask,
	&workload_pingpong,
	&workload_vector_capacity,
	&workload_irq_delivery,
	&workload_hv_query,
	&workload_sysctl_refusals,
	&workload_blkio,
	NULL
};

const struct agent_workload_ops *agent_workload_find(const char *type)
{
	for (size_t i = 0; agent_workloads[i]; i++)
		if (!strcmp(agent_workloads[i]->type, type))
			return agent_workloads[i];
	return NULL;
}
