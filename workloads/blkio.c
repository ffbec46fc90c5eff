/* SPDX-License-Identifier: GPL-3.0-or-later */
/* blkio: its parameters, read by the runner's config check and the agent (list.h). */
#include "workloads/workloads.h"

static const struct key params[] = {
	WL_ITERATIONS("2000"),
	{ "device", KEY_TEXT, 0, 0, "/dev/vda", "block device (O_DIRECT reads; [host] disk_mb attaches one)", .flags = 0 },
	{ "block_kb", KEY_UINT, 4, 1024, "4", "size of each read, KiB", .flags = 0 },
	/* no WL_TRACE: it records its own TRC_HW_IRQ trace */
	{ NULL },
};

const struct wl_type wl_blkio = {
	.type = "blkio",
	.help = "O_DIRECT reads on a block device: real device interrupts per CPU and IRQ",
	.params = params,
};
