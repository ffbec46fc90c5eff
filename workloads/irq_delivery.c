/* SPDX-License-Identifier: GPL-3.0-or-later */
/* irq_delivery: its parameters, read by the runner's config check and the agent (list.h). */
#include "workloads/workloads.h"

static const struct key params[] = {
	WL_ITERATIONS("1000"),
	{ "mask", KEY_CPUS, 0, 0, "1", "CPUs the interrupt is bound to", .flags = 0 },
	WL_CPU, WL_TRACE,
	{ NULL },
};

const struct wl_type wl_irq_delivery = {
	.type = "irq_delivery",
	.help = "the test device's MSI (remapped by the IOMMU) bound to mask, raised N times",
	.params = params,
};
