/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The layout check of one run (check.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipibench/counters.h"
#include "workloads/check.h"
#include "workloads/workloads.h"

static struct layout hv_layout;
static uint32_t ids[TOPO_MAX_CPUS];

/* The online CPUs of the query (CPUs 0..n-1, in order) into hv_layout. */
static int layout_of_query(const json_t *hv, char *msg, size_t len)
{
	const json_t *cpus = json_object_get(hv, "cpus"), *c;
	unsigned int n = 0;
	size_t i;

	if (!json_is_array(cpus)) {
		snprintf(msg, len, "layout: no per-CPU x2APIC IDs in the hypervisor's query (hv.cpus)");
		return -1;
	}
	json_array_foreach(cpus, i, c) {
		const json_t *id = json_object_get(c, "apic_id");

		if (!json_is_true(json_object_get(c, "online")))
			continue;
		if (i != n) {
			snprintf(msg, len, "layout: CPU %zu is online after an offline CPU %u", i, n);
			return -1;
		}
		if (n == TOPO_MAX_CPUS || !json_is_integer(id) || json_integer_value(id) < 0 ||
		    json_integer_value(id) > (json_int_t)X2APIC_ID_MAX) {
			snprintf(msg, len, "layout: hv.cpus[%zu].apic_id: not an x2APIC ID up to %u",
				 i, X2APIC_ID_MAX);
			return -1;
		}
		ids[n++] = (uint32_t)json_integer_value(id);
	}
	if (layout_from_ids(&hv_layout, ids, n, msg, len)) {
		char m[200];

		snprintf(m, sizeof(m), "%s", msg);
		snprintf(msg, len, "layout: the hypervisor's IDs: %s", m);
		return -1;
	}
	return 0;
}

static json_t *layout_json(const struct layout *l, const char *source, const char *topology)
{
	struct layout_summary s;
	char d[1024];

	layout_summarize(l, &s);
	layout_describe(l, d, sizeof(d));
	return json_pack("{s:s, s:o, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:s}",
			 "source", source,
			 "topology", topology ? json_string(topology) : json_null(),
			 "cpus", (int)s.cpus, "slots", (int)s.slots,
			 "max_apic_id", (int)s.max_apic_id,
			 "clusters", (int)s.clusters,
			 "cpus_per_cluster_min", (int)s.per_cluster_min,
			 "cpus_per_cluster_max", (int)s.per_cluster_max,
			 "holes", (int)s.holes, "hotplug_holes", (int)s.hotplug_holes,
			 "cluster_holes", (int)s.cluster_holes,
			 "describe", d);
}

/* The destinations and sender CPU of workload W (its type's declaration
 * says where a call sends: workloads/workloads.h); 0 if it sends IPIs. */
static int workload_dest(const struct layout *l, const json_t *w, const struct wl_type *t,
			 unsigned int *self, struct cpuset *dest, char *msg, size_t len)
{
	const json_t *p = json_object_get(w, "params");
	const char *mask = json_string_value(json_object_get(p, "mask"));
	json_int_t cpu = json_integer_value(json_object_get(p, "cpu"));

	if (!t || t->dest == WL_DEST_NONE)
		return 1;
	if (cpu < 0 || cpu >= (json_int_t)l->ncpus) {
		snprintf(msg, len, "params.cpu %lld is not one of the %u CPUs", (long long)cpu, l->ncpus);
		return -1;
	}
	*self = (unsigned int)cpu;
	if (t->dest == WL_DEST_ALL)
		return cpuset_parse("all", l, *self, dest, msg, len) ? -1 : 0;
	if (t->dest == WL_DEST_MASK) {
		/* a run of results without it: the declaration's default */
		const struct key *pm = wl_param_find(t, "mask");

		if (!mask && !(mask = pm->def)) {
			snprintf(msg, len, "params.mask: missing");
			return -1;
		}
		return cpuset_parse(mask, l, *self, dest, msg, len) ? -1 : 0;
	}
	if (t->dest == WL_DEST_PEER) {
		json_int_t peer = json_integer_value(json_object_get(p, "peer"));

		if (peer < 0 || peer >= (json_int_t)l->ncpus) {
			snprintf(msg, len, "params.peer %lld is not one of the %u CPUs",
				 (long long)peer, l->ncpus);
			return -1;
		}
		memset(dest, 0, sizeof(*dest));
		cpuset_set(dest, (unsigned int)peer);
		return 0;
	}
	return 1;
}

/*
 * One check: SENDER's ICR writes per call against the layout's, recorded
 * as an object; *bad set (and msg filled) on a mismatch.
 */
static json_t *check_one(const struct layout *l, const char *mode, const char *wname,
			 const char *sender, bool shorthand_ok,
			 unsigned int self, const struct cpuset *dest,
			 const json_t *counters, int *bad, char *msg, size_t len)
{
	json_int_t ops = json_integer_value(json_object_get(counters, IPB_COUNTER(OPERATIONS)));
	json_int_t icr = json_integer_value(json_object_get(counters, IPB_COUNTER(ICR_WRITES)));
	int route;
	unsigned int expect;

	route = icr_route_for(l, mode, sender, shorthand_ok, self, dest);
	/* (Counts from a file: bounded so that expected * ops cannot overflow.) */
	if (route < 0 || ops <= 0 || ops > (json_int_t)1 << 40 || icr < 0)
		return NULL;
	expect = icr_writes(l, (enum icr_route)route, self, dest);
	bool ok = icr == (json_int_t)expect * ops;
	if (!ok && !*bad) {
		*bad = 1;
		snprintf(msg, len, "workload %s (%s mode, %s route, sender %s): %.2f ICR writes per "
			 "call measured, the layout implies %u", wname, mode,
			 icr_route_name((enum icr_route)route), sender, (double)icr / (double)ops, expect);
	}
	return json_pack("{s:s, s:i, s:f, s:b}", "route", icr_route_name((enum icr_route)route),
			 "expected", (int)expect, "measured", (double)icr / (double)ops, "ok", ok);
}

int layout_check_run(json_t *run, const struct layout *expect, const char *topology,
		     char *msg, size_t len)
{
	const json_t *hv = json_object_get(run, "hv");
	const char *mode = json_string_value(json_object_get(run, "mode"));
	const struct layout *l = &hv_layout;
	json_t *w;
	size_t i;
	int bad = 0;

	msg[0] = '\0';
	if (!hv || !mode) {
		snprintf(msg, len, "layout: the run has no hypervisor query (hv) or mode");
		return -1;
	}
	if (layout_of_query(hv, msg, len))
		return -1;
	if (expect) {
		if (expect->ncpus != hv_layout.ncpus) {
			snprintf(msg, len, "layout: the hypervisor has %u CPUs online, the topology "
				 "implies %u", hv_layout.ncpus, expect->ncpus);
			return 1;
		}
		for (unsigned int c = 0; c < expect->ncpus; c++)
			if (expect->apic_id[c] != hv_layout.apic_id[c]) {
				snprintf(msg, len, "layout: CPU %u has x2APIC ID %u, the topology "
					 "implies %u", c, (unsigned int)hv_layout.apic_id[c],
					 (unsigned int)expect->apic_id[c]);
				return 1;
			}
		/* The same present CPUs, and it knows the hotplug slots. */
		l = expect;
	}
	json_object_set_new(run, "layout", layout_json(l, expect ? "topology" : "hypervisor",
						       topology));

	bool eligible = json_is_true(json_object_get(hv, "shorthand_eligible"));
	json_array_foreach(json_object_get(run, "workloads"), i, w) {
		const char *wname = json_string_value(json_object_get(w, "name"));
		const char *type = json_string_value(json_object_get(w, "type"));
		const struct wl_type *t = type ? wl_type_find(type) : NULL;
		const json_t *p = json_object_get(w, "params");
		const json_t *by = json_object_get(w, "counters_by_sender");
		const char *sender = json_string_value(json_object_get(p, "sender"));
		/* A type that never uses the shorthand (its declaration) is
		 * predicted without it. */
		bool shorthand_ok = eligible && !json_is_false(json_object_get(p, "shorthand")) &&
				    !(t && t->no_shorthand);
		struct cpuset dest;
		unsigned int self = 0;
		char m[256];
		int r;

		if (strcmp(json_string_value(json_object_get(w, "status")) ?: "", "ok"))
			continue;
		r = workload_dest(l, w, t, &self, &dest, m, sizeof(m));
		if (r > 0)
			continue;
		if (r < 0) {
			snprintf(msg, len, "workload %s: %s", wname ? wname : "?", m);
			return -1;
		}
		json_t *chk;
		if (json_is_object(by) && json_object_size(by)) {
			const char *sname;
			const json_t *sc;

			chk = json_object();
			json_object_foreach((json_t *)by, sname, sc) {
				json_t *one = check_one(l, mode, wname, sname, shorthand_ok,
							self, &dest, sc, &bad, msg, len);
				if (one)
					json_object_set_new(chk, sname, one);
			}
			chk = json_pack("{s:o}", "by_sender", chk);
		} else {
			chk = check_one(l, mode, wname, sender ? sender : "genapic",
					shorthand_ok, self, &dest, json_object_get(w, IPB_KEY(WL_COUNTERS)),
					&bad, msg, len);
		}
		if (chk)
			json_object_set_new(w, "icr_check", chk);
	}
	return bad;
}
