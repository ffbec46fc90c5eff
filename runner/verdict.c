/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The reason a run fails, from its agent.json (runner/verdict.h). */
#include <stdio.h>
#include <string.h>

#include "runner/backend.h"
#include "runner/verdict.h"

void run_verdict(const json_t *agent, const char *mode, verdict_layout_fn layout, void *ctx,
		 char *why, size_t len)
{
	const char *g = json_string_value(json_object_get(json_object_get(agent, "hv"), "genapic"));
	const char *want = mode_genapic(mode);
	const json_t *w;
	size_t k;

	why[0] = '\0';
	if (!g)
		g = json_string_value(json_object_get(agent, "genapic"));
	if (!g || !want || strcmp(g, want)) {
		snprintf(why, len, "asked for %s mode but the hypervisor reports %s",
			 mode, g ? g : "no APIC driver");
		return;
	}
	if (layout)
		layout(ctx, why, len);
	if (why[0]) {
		/* An unpatched hypervisor: say so, not that the layout
		 * check had no hv to read. */
		const char *he = json_string_value(json_object_get(agent, "hv_error"));

		if (he)
			snprintf(why, len, "agent: %s", he);
		return;
	}
	if (json_object_get(agent, "error")) {
		snprintf(why, len, "agent: %s",
			 json_string_value(json_object_get(agent, "error")) ?: "failed");
		return;
	}
	json_array_foreach(json_object_get(agent, "workloads"), k, w)
		if (strcmp(json_string_value(json_object_get(w, "status")) ?: "", "ok")) {
			snprintf(why, len, "workload %s: %s",
				 json_string_value(json_object_get(w, "name")) ?: "?",
				 json_string_value(json_object_get(w, "error")) ?: "failed");
			return;
		}
}
