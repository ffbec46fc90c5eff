/* The agent's workload registry, from runner/agent/workloads/list.h. */
#include <string.h>

#include "runner/agent/agent.h"

#define WORKLOAD(name) extern const struct agent_workload_ops workload_##name;
#include "runner/agent/workloads/list.h"
#undef WORKLOAD

const struct agent_workload_ops *const agent_workloads[] = {
#define WORKLOAD(name) &workload_##name,
#include "runner/agent/workloads/list.h"
#undef WORKLOAD
	NULL
};

const struct agent_workload_ops *agent_workload_find(const char *type)
{
	for (size_t i = 0; agent_workloads[i]; i++)
		if (!strcmp(agent_workloads[i]->spec->type, type))
			return agent_workloads[i];
	return NULL;
}
