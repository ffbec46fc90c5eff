/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The agent's workload registry, from workloads/list.h. */
#include "agent/agent.h"

#define WORKLOAD(name) extern const struct agent_workload_ops workload_##name;
#include "workloads/list.h"
#undef WORKLOAD

const struct agent_workload_ops *const agent_workloads[] = {
#define WORKLOAD(name) &workload_##name,
#include "workloads/list.h"
#undef WORKLOAD
	NULL
};

/* By its declaration: a type name is matched in one place, wl_type_find(). */
const struct agent_workload_ops *agent_workload_find(const char *type)
{
	const struct wl_type *spec = wl_type_find(type);

	for (size_t i = 0; spec && agent_workloads[i]; i++)
		if (agent_workloads[i]->spec == spec)
			return agent_workloads[i];
	return NULL;
}
