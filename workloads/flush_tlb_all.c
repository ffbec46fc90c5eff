/* SPDX-License-Identifier: GPL-3.0-or-later */
/* flush_tlb_all: its parameters, read by the runner's config check and the agent (list.h). */
#include "workloads/workloads.h"

static const struct key params[] = {
	WL_ITERATIONS("1000"), WL_CPU, WL_SHORTHAND, WL_TIMING, WL_SENDER, WL_TRACE,
	{ NULL },
};

const struct wl_type wl_flush_tlb_all = {
	.type = "flush_tlb_all",
	.help = "flush_tlb_all() x N, the seed's workload",
	.params = params,
	.check = wl_check_timing,
	.dest = WL_DEST_ALL,
};
