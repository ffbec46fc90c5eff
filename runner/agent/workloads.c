/* The agent's workload registry: one entry per file in workloads/. */
#include <string.h>

#include "runner/agent/agent.h"

const struct agent_workload_ops *const agent_workloads[] = {
	NULL
};

const struct agent_workload_ops *agent_workload_find(const char *type)
{
	for (size_t i = 0; agent_workloads[i]; i++)
		if (!strcmp(agent_workloads[i]->type, type))
			return agent_workloads[i];
	return NULL;
}
