/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pingpong: its parameters, read by the runner's config check and the agent (list.h). */
#include "workloads/workloads.h"

static const struct key params[] = {
	WL_ITERATIONS("1000"),
	{ "cpu", KEY_UINT, 0, 4095, "0", "first CPU", .flags = WL_F_CPU },
	{ "peer", KEY_UINT, 0, 4095, "1", "second CPU (same or other cluster)", .flags = WL_F_CPU },
	WL_TIMING, WL_TRACE,
	{ NULL },
};

const struct wl_type wl_pingpong = {
	.type = "pingpong",
	.help = "unicast IPI ping-pong between two CPUs",
	.params = params,
	.dest = WL_DEST_PEER,
	.no_shorthand = true,
};
