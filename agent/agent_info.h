/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the agent reports about the hypervisor it runs on. */
#ifndef IPIBENCH_AGENT_INFO_H
#define IPIBENCH_AGENT_INFO_H

#include <stddef.h>
#include <jansson.h>

#include "agent/agent.h"

/*
 * Fill out["xen"] (version, extraversion, changeset, command line),
 * out["physinfo"] (CPUs, cpu_khz, memory), out["genapic"] (the APIC
 * driver the hypervisor's console ring names) and out["host_state"] (what
 * else changes IPI latency: agent/hoststate.h); set ctx->nr_cpus.
 */
int agent_info(struct agent_ctx *ctx, json_t *out, char *err, size_t errlen);

#endif
