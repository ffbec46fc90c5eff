/* SPDX-License-Identifier: GPL-3.0-or-later */
/* flush_mask: its parameters, read by the runner's config check and the agent (list.h). */
#include "workloads/workloads.h"

static const struct key params[] = {
	WL_ITERATIONS("1000"),
	{ "mask", KEY_CPUS, 0, 0, "all-but-self", "destination CPUs", .flags = 0 },
	WL_SHORTHAND, WL_CPU, WL_TIMING, WL_SENDER, WL_TRACE,
	{ NULL },
};

const struct wl_type wl_flush_mask = {
	.type = "flush_mask",
	.help = "TLB flush of a CPU mask, waiting for every ack",
	.params = params,
	.check = wl_check_timing,
	.dest = WL_DEST_MASK,
};
