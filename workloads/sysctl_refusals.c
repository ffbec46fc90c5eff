/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sysctl_refusals: its parameters, read by the runner's config check and the agent (list.h). */
#include "workloads/workloads.h"

static const struct key params[] = {
	WL_CPU,
	{ NULL },
};

const struct wl_type wl_sysctl_refusals = {
	.type = "sysctl_refusals",
	.help = "invalid benchmark requests, each refused with its own error",
	.params = params,
};
