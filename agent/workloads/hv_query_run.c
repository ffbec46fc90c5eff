/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * hv_query: what the benchmark interface reports about the APIC setup:
 * genapic, per-CPU APIC ID / logical ID / cluster, online, disabled and
 * unaccounted CPUs, whether the ALLBUT shorthand is eligible, TSC kHz.
 * No params; result["query"].
 */
#include "ipibench/counters.h"
#include "agent/hvbench.h"

static int run(struct agent_ctx *ctx, const json_t *params, json_t *result,
	       char *err, size_t errlen)
{
	json_t *q;

	(void)params;
	if (hvbench_query(ctx, &q, err, errlen))
		return -1;
	json_object_set_new(result, "query", q);
	json_object_set_new(result, "path", json_string("none"));
	json_object_set_new(result, IPB_KEY(WL_SAMPLES), json_pack("{s:[], s:[]}", IPB_KEY(SAMPLES_CYCLES), IPB_KEY(SAMPLES_NS)));
	json_object_set_new(result, IPB_KEY(WL_COUNTERS), json_object());
	return 0;
}

const struct agent_workload_ops workload_hv_query = {
	.spec = &wl_hv_query,
	.run = run,
};
