/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vector_capacity: its parameters, read by the runner's config check and the agent (list.h). */
#include "workloads/workloads.h"

static const struct key params[] = {
	{ "mask", KEY_CPUS, 0, 0, "all", "CPUs the vectors may go to", .flags = 0 },
	WL_CPU, WL_TRACE,
	{ NULL },
};

const struct wl_type wl_vector_capacity = {
	.type = "vector_capacity",
	.help = "allocate external IRQ vectors until none is left",
	.params = params,
};
