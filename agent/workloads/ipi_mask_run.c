/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ipi_mask: one IPI on the benchmark vector to a CPU mask, waiting until
 * every destination has taken it, x iterations.  shorthand false calls
 * the genapic's send_IPI_mask directly; a vector other than 0 (the one the
 * patch reserves) is refused by Xen with EINVAL.  Params and defaults:
 * ipi_mask.c.
 */
#include "agent/hvbench.h"

HVBENCH_WORKLOAD(ipi_mask, .op = XEN_SYSCTL_IPIBENCH_OP_ipi_mask);
