/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * flush_tlb_all: the seed's workload, flush_tlb_all() x iterations from
 * one CPU inside the hypervisor.  shorthand true lets send_IPI_mask()
 * pick the ALLBUT shorthand when it is eligible, false forces the genapic
 * path; "path" says which ran.  Params and defaults: flush_tlb_all.c.
 */
#include "agent/hvbench.h"

HVBENCH_WORKLOAD(flush_tlb_all, .op = XEN_SYSCTL_IPIBENCH_OP_flush_all);
