/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hv_query: its parameters, read by the runner's config check and the agent (list.h). */
#include "workloads/workloads.h"

static const struct key params[] = {
	WL_TRACE,
	{ NULL },
};

const struct wl_type wl_hv_query = {
	.type = "hv_query",
	.help = "the hypervisor's view: genapic, APIC IDs, clusters, shorthand eligibility",
	.params = params,
};
