/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pingpong: unicast IPI round trips between two CPUs (cpu sends, peer
 * answers from its handler); pick peer in cpu's x2APIC cluster or in
 * another one (see the query).  Params and defaults: pingpong.c.
 */
#include "agent/hvbench.h"

/* No shorthand param: a unicast never takes it; samples.cpu says which
 * CPU answered. */
HVBENCH_WORKLOAD(pingpong, .op = XEN_SYSCTL_IPIBENCH_OP_pingpong, .shorthand = 1,
		 .sample_cpu = 1);
