/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * flush_mask: flush_mask(mask, FLUSH_TLB) x iterations from one CPU,
 * waiting for every CPU's acknowledgement as Xen does.  Params and
 * defaults: flush_mask.c.
 */
#include "agent/hvbench.h"

HVBENCH_WORKLOAD(flush_mask, .op = XEN_SYSCTL_IPIBENCH_OP_flush_mask);
