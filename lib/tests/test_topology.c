/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * topology: QEMU's APIC ID numbering for several topologies (dense, holes
 * from core and thread counts that are not powers of two, dies, hotplug
 * slots), the layout each gives (clusters in use, CPUs per cluster, holes)
 * and the ICR writes of an all-but-self flush and other sends by route;
 * the refusals of bad topology strings and masks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/topology.h"

static struct layout L;
static char err[256];

static void topo_of(const char *s, struct topo *t)
{
	if (topo_parse(s, t, err, sizeof(err)))
		fail_msg("%s: %s", s, err);
}

static void layout_of(const char *s, unsigned int cpus)
{
	struct topo t;

	topo_of(s, &t);
	if (layout_from_topo(&L, &t, cpus, err, sizeof(err)))
		fail_msg("%s with %u CPUs: %s", s, cpus, err);
}

/* ICR writes of an all-but-self send from SELF in MODE, genapic sender. */
static unsigned int allbut(const char *mode, unsigned int self, bool shorthand_ok)
{
	struct cpuset d;
	int r;

	assert_int_equal(cpuset_parse("all-but-self", &L, self, &d, err, sizeof(err)), 0);
	r = icr_route_for(&L, mode, "genapic", shorthand_ok, self, &d);
	assert_true(r >= 0);
	return icr_writes(&L, (enum icr_route)r, self, &d);
}

static void test_widths(void **s)
{
	(void)s;
	assert_int_equal(topo_width(1), 0);
	assert_int_equal(topo_width(2), 1);
	assert_int_equal(topo_width(3), 2);
	assert_int_equal(topo_width(4), 2);
	assert_int_equal(topo_width(5), 3);
	assert_int_equal(topo_width(24), 5);
	assert_int_equal(topo_width(96), 7);
	assert_int_equal(topo_width(128), 7);
	assert_int_equal(topo_width(129), 8);
}

/* The example: 2 sockets x 24 cores x 2 threads: IDs 0-47, 64-111. */
static void test_ice_lake_96(void **s)
{
	const struct topo_profile *p = topo_profile_find("ice-lake-96");
	struct layout_summary sum;
	char d[512];

	(void)s;
	assert_non_null(p);
	assert_int_equal(topo_slots(&p->topo), 96);
	assert_int_equal(layout_from_topo(&L, &p->topo, p->cpus, err, sizeof(err)), 0);
	assert_int_equal(L.apic_id[0], 0);
	assert_int_equal(L.apic_id[1], 1);      /* thread 1 of core 0 */
	assert_int_equal(L.apic_id[2], 2);      /* core 1 */
	assert_int_equal(L.apic_id[47], 47);
	assert_int_equal(L.apic_id[48], 64);    /* socket 1 */
	assert_int_equal(L.apic_id[95], 111);
	layout_summarize(&L, &sum);
	assert_int_equal(sum.cpus, 96);
	assert_int_equal(sum.clusters, 6);
	assert_int_equal(sum.per_cluster_min, 16);
	assert_int_equal(sum.per_cluster_max, 16);
	assert_int_equal(sum.max_apic_id, 111);
	assert_int_equal(sum.holes, 16);
	assert_int_equal(sum.hotplug_holes, 0);
	assert_int_equal(sum.cluster_holes, 0);
	layout_describe(&L, d, sizeof(d));
	assert_string_equal(d, "96 CPUs, 6 clusters in use (0-2: 16 CPUs each, 4-6: 16 CPUs each); "
			    "x2APIC IDs 0-111, holes 48-63 (no CPU)");
	/* The seed's figures: 95 writes physical, 6 cluster and mixed. */
	assert_int_equal(allbut("physical", 0, false), 95);
	assert_int_equal(allbut("cluster", 0, false), 6);
	assert_int_equal(allbut("mixed", 0, false), 6);
	/* No hotplug slot: Xen may use the shorthand, one write in every mode. */
	assert_int_equal(allbut("physical", 0, true), 1);
	assert_int_equal(allbut("mixed", 0, true), 1);
}

/* 12 cores per socket: half-full clusters, 4 where a dense 48 has 3. */
static void test_skylake_48_holes(void **s)
{
	struct layout_summary sum;
	char d[512];

	(void)s;
	layout_of("sockets=2,cores=12,threads=2", 48);
	assert_int_equal(L.apic_id[23], 23);
	assert_int_equal(L.apic_id[24], 32);
	assert_int_equal(L.apic_id[47], 55);
	layout_summarize(&L, &sum);
	assert_int_equal(sum.clusters, 4);
	assert_int_equal(sum.per_cluster_min, 8);
	assert_int_equal(sum.per_cluster_max, 16);
	assert_int_equal(sum.holes, 8);
	assert_int_equal(sum.cluster_holes, 16);
	layout_describe(&L, d, sizeof(d));
	assert_string_equal(d, "48 CPUs, 4 clusters in use (0: 16 CPUs, 1: 8 CPUs, 2: 16 CPUs, "
			    "3: 8 CPUs); x2APIC IDs 0-55, holes 24-31 (no CPU)");
	assert_int_equal(allbut("physical", 0, false), 47);
	assert_int_equal(allbut("cluster", 0, false), 4);
	/* From CPU 16 (ID 16, alone with 7 others in cluster 1). */
	assert_int_equal(allbut("mixed", 16, false), 4);

	/* The same 48 CPUs dense (QEMU's default topology): 3 clusters. */
	assert_int_equal(layout_dense(&L, 48, 48, err, sizeof(err)), 0);
	assert_int_equal(allbut("cluster", 0, false), 3);
	assert_int_equal(allbut("physical", 0, false), 47);
}

/* Milan with 6 of a CCD's 8 cores: every cluster is one CCD with 4 holes. */
static void test_epyc_7443_ccd_holes(void **s)
{
	const struct topo_profile *p = topo_profile_find("epyc-7443-96");
	struct layout_summary sum;

	(void)s;
	assert_non_null(p);
	assert_int_equal(layout_from_topo(&L, &p->topo, p->cpus, err, sizeof(err)), 0);
	assert_int_equal(L.apic_id[11], 11);
	assert_int_equal(L.apic_id[12], 16);    /* CCD 1 */
	assert_int_equal(L.apic_id[48], 64);    /* socket 1 */
	assert_int_equal(L.apic_id[95], 123);
	layout_summarize(&L, &sum);
	assert_int_equal(sum.clusters, 8);
	assert_int_equal(sum.per_cluster_min, 12);
	assert_int_equal(sum.per_cluster_max, 12);
	assert_int_equal(sum.holes, 28);
	assert_int_equal(allbut("physical", 0, false), 95);
	assert_int_equal(allbut("cluster", 0, false), 8);
	assert_int_equal(allbut("mixed", 50, false), 8);
	/* Half of it present (the sweep's 48 CPUs): socket 0 only, 4 clusters. */
	assert_int_equal(layout_from_topo(&L, &p->topo, 48, err, sizeof(err)), 0);
	assert_int_equal(allbut("cluster", 0, false), 4);
	/* A dense 96 needs 6. */
	assert_int_equal(layout_dense(&L, 96, 96, err, sizeof(err)), 0);
	assert_int_equal(allbut("cluster", 0, false), 6);
}

/* Dies, a hotplug slot and the test profile the integration test boots. */
static void test_holes_with_hotplug(void **s)
{
	const struct topo_profile *p = topo_profile_find("test-holes-14");
	struct layout_summary sum;
	char d[512];

	(void)s;
	assert_non_null(p);
	assert_int_equal(layout_from_topo(&L, &p->topo, p->cpus, err, sizeof(err)), 0);
	assert_int_equal(L.ncpus, 14);
	assert_int_equal(L.nslots, 15);
	assert_int_equal(L.apic_id[4], 4);
	assert_int_equal(L.apic_id[5], 8);      /* die 1 */
	assert_int_equal(L.apic_id[10], 16);    /* die 2 */
	assert_int_equal(L.apic_id[13], 19);
	assert_int_equal(L.apic_id[14], 20);    /* the hotplug slot */
	layout_summarize(&L, &sum);
	assert_int_equal(sum.clusters, 2);
	assert_int_equal(sum.per_cluster_min, 4);
	assert_int_equal(sum.per_cluster_max, 10);
	assert_int_equal(sum.holes, 7);
	assert_int_equal(sum.hotplug_holes, 1);
	layout_describe(&L, d, sizeof(d));
	assert_string_equal(d, "14 CPUs, 2 clusters in use (0: 10 CPUs, 1: 4 CPUs); "
			    "x2APIC IDs 0-20, holes 5-7,13-15 (no CPU), 20 (hotplug)");
	assert_int_equal(allbut("physical", 0, false), 13);
	assert_int_equal(allbut("cluster", 0, false), 2);
	assert_int_equal(allbut("mixed", 0, false), 2);
	/* From the last CPU (cluster 1): still both clusters. */
	assert_int_equal(allbut("mixed", 13, false), 2);
	/* A dense 14 would need one cluster write. */
	assert_int_equal(layout_dense(&L, 14, 15, err, sizeof(err)), 0);
	assert_int_equal(allbut("mixed", 0, false), 1);
}

/* Thread counts that are not powers of two leave holes inside a core. */
static void test_three_threads(void **s)
{
	(void)s;
	layout_of("cores=2,threads=3", 6);
	const uint32_t want[] = { 0, 1, 2, 4, 5, 6 };
	for (unsigned int i = 0; i < 6; i++)
		assert_int_equal(L.apic_id[i], want[i]);
	struct layout_summary sum;
	layout_summarize(&L, &sum);
	assert_int_equal(sum.holes, 1);
	assert_int_equal(sum.clusters, 1);
}

/* The committed figures' machine: dense, 32 full clusters. */
static void test_epyc_512(void **s)
{
	const struct topo_profile *p = topo_profile_find("epyc-9754-512");
	struct layout_summary sum;
	char d[512];

	(void)s;
	assert_non_null(p);
	assert_int_equal(layout_from_topo(&L, &p->topo, p->cpus, err, sizeof(err)), 0);
	for (unsigned int i = 0; i < 512; i++)
		assert_int_equal(L.apic_id[i], i);
	layout_summarize(&L, &sum);
	assert_int_equal(sum.clusters, 32);
	assert_int_equal(sum.holes, 0);
	layout_describe(&L, d, sizeof(d));
	assert_string_equal(d, "512 CPUs, 32 clusters in use (0-31: 16 CPUs each); x2APIC IDs 0-511, no holes");
	assert_int_equal(allbut("physical", 0, false), 511);
	assert_int_equal(allbut("cluster", 0, false), 32);
	assert_int_equal(allbut("mixed", 100, false), 32);

	/* Genoa's 96 cores: IDs 0-191 and 256-447, 24 clusters. */
	p = topo_profile_find("epyc-9654-384");
	assert_non_null(p);
	assert_int_equal(layout_from_topo(&L, &p->topo, p->cpus, err, sizeof(err)), 0);
	assert_int_equal(L.apic_id[192], 256);
	layout_summarize(&L, &sum);
	assert_int_equal(sum.clusters, 24);
	assert_int_equal(sum.holes, 64);
	assert_int_equal(allbut("physical", 0, false), 383);
	assert_int_equal(allbut("cluster", 0, false), 24);
}

/* Lists, the sender routine and the shorthand rule. */
static void test_masks_and_routes(void **s)
{
	struct cpuset d;

	(void)s;
	assert_int_equal(layout_dense(&L, 40, 48, err, sizeof(err)), 0);
	/* {1, 17, 33}: one CPU in each cluster: 3 writes in every route. */
	assert_int_equal(cpuset_parse("1,17,33", &L, 0, &d, err, sizeof(err)), 0);
	assert_int_equal(icr_route_for(&L, "physical", "genapic", true, 0, &d), ICR_PHYSICAL);
	assert_int_equal(icr_writes(&L, ICR_PHYSICAL, 0, &d), 3);
	assert_int_equal(icr_writes(&L, ICR_CLUSTER, 0, &d), 3);
	/* A range within one cluster; self is never a destination. */
	assert_int_equal(cpuset_parse("0-7,9", &L, 0, &d, err, sizeof(err)), 0);
	assert_int_equal(icr_writes(&L, ICR_PHYSICAL, 0, &d), 8);
	assert_int_equal(icr_writes(&L, ICR_CLUSTER, 0, &d), 1);
	assert_int_equal(icr_writes(&L, ICR_PHYSICAL, 5, &d), 8);
	/* "all" includes self, which Xen drops: as all-but-self. */
	assert_int_equal(cpuset_parse("all", &L, 0, &d, err, sizeof(err)), 0);
	assert_int_equal(icr_writes(&L, ICR_PHYSICAL, 0, &d), 39);
	assert_int_equal(icr_writes(&L, ICR_CLUSTER, 0, &d), 3);
	assert_int_equal(icr_route_for(&L, "mixed", NULL, true, 0, &d), ICR_SHORTHAND);
	assert_int_equal(icr_writes(&L, ICR_SHORTHAND, 0, &d), 1);
	/* A chosen routine never takes the shorthand. */
	assert_int_equal(icr_route_for(&L, "mixed", "physical", true, 0, &d), ICR_PHYSICAL);
	assert_int_equal(icr_route_for(&L, "physical", "cluster", true, 0, &d), ICR_CLUSTER);
	/* Not every CPU: no shorthand even when eligible. */
	assert_int_equal(cpuset_parse("1-38", &L, 0, &d, err, sizeof(err)), 0);
	assert_int_equal(icr_route_for(&L, "cluster", "genapic", true, 0, &d), ICR_CLUSTER);
	assert_int_equal(icr_route_for(&L, "bogus", "genapic", false, 0, &d), -1);
	assert_int_equal(icr_route_for(&L, "mixed", "bogus", false, 0, &d), -1);
	/* No destination but self: nothing to write. */
	assert_int_equal(cpuset_parse("3", &L, 3, &d, err, sizeof(err)), 0);
	assert_int_equal(icr_writes(&L, ICR_SHORTHAND, 3, &d), 0);

	/* Refusals. */
	assert_int_equal(cpuset_parse("40", &L, 0, &d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not all among the 40 CPUs"));
	const char *bad[] = { "", "1,", ",1", "1-", "3-1", "a", "1;2", "1--2", NULL };
	for (const char **b = bad; *b; b++)
		if (cpuset_parse(*b, &L, 0, &d, err, sizeof(err)) != -1)
			fail_msg("mask '%s' was accepted", *b);
}

/* From reported IDs: the same layout, and refusals. */
static void test_from_ids(void **s)
{
	uint32_t ids[96];
	struct layout_summary sum;

	(void)s;
	for (unsigned int i = 0; i < 96; i++)
		ids[i] = i < 48 ? i : i + 16;
	assert_int_equal(layout_from_ids(&L, ids, 96, err, sizeof(err)), 0);
	layout_summarize(&L, &sum);
	assert_int_equal(sum.clusters, 6);
	assert_int_equal(sum.holes, 16);
	assert_int_equal(allbut("mixed", 0, false), 6);
	ids[5] = 7;
	assert_int_equal(layout_from_ids(&L, ids, 96, err, sizeof(err)), -1);
	assert_string_equal(err, "x2APIC ID 7 appears twice");
	ids[5] = 70000;
	assert_int_equal(layout_from_ids(&L, ids, 96, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "70000"));
	assert_int_equal(layout_from_ids(&L, ids, 0, err, sizeof(err)), -1);
}

static void test_parse(void **s)
{
	struct topo t;
	char buf[128];

	(void)s;
	topo_of("sockets=2,dies=1,cores=24,threads=2", &t);
	assert_int_equal(t.sockets, 2);
	assert_int_equal(t.cores, 24);
	assert_int_equal(t.threads, 2);
	topo_of("threads=2,cores=3", &t);   /* any order; missing: 1 */
	assert_int_equal(t.sockets, 1);
	assert_int_equal(t.dies, 1);
	topo_format(&t, buf, sizeof(buf));
	assert_string_equal(buf, "sockets=1,dies=1,cores=3,threads=2");
	topo_of("sockets=4,cores=1024", &t);
	assert_int_equal(topo_slots(&t), 4096);

	static const struct { const char *in, *msg; } bad[] = {
		{ "", "empty topology" },
		{ "sockets=0", "sockets=0: expected a count from 1 to 4096" },
		{ "sockets=2x", "sockets=2x: expected a count" },
		{ "sockets=", "sockets: no count" },
		{ "sockets=2,sockets=2", "sockets given twice" },
		{ "modules=2", "'modules': unknown level" },
		{ "sockets=2,", "trailing ','" },
		{ "sockets", "'sockets': expected KEY=COUNT" },
		{ "sockets=8,cores=1024", "more than 4096 CPUs" },
		{ "cores=99999999999999999999", "cores=99999999999999999999: expected" },
		{ "cores=-1", "expected a count" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (topo_parse(bad[i].in, &t, err, sizeof(err)) != -1)
			fail_msg("'%s' was accepted", bad[i].in);
		if (!strstr(err, bad[i].msg))
			fail_msg("'%s': '%s' does not say '%s'", bad[i].in, err, bad[i].msg);
	}
	assert_int_equal(layout_from_topo(&L, &t, 0, err, sizeof(err)), -1);
	topo_of("sockets=2,cores=4", &t);
	assert_int_equal(layout_from_topo(&L, &t, 9, err, sizeof(err)), -1);
	assert_string_equal(err, "9 CPUs present, but the topology has 8 slots");
}

/* Every profile is a valid topology with its CPUs within its slots. */
static void test_profiles(void **s)
{
	char names[256];

	(void)s;
	for (const struct topo_profile *p = topo_profiles; p->name; p++) {
		assert_true(p->cpus >= 1 && p->cpus <= topo_slots(&p->topo));
		assert_int_equal(layout_from_topo(&L, &p->topo, p->cpus, err, sizeof(err)), 0);
		assert_non_null(p->about);
	}
	assert_null(topo_profile_find("nope"));
	assert_null(topo_profile_find(NULL));
	topo_profile_names(names, sizeof(names));
	assert_non_null(strstr(names, "ice-lake-96, epyc-9754-512"));
	/* A buffer too small is cut, never overrun. */
	topo_profile_names(names, 8);
	assert_int_equal(strlen(names), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_ice_lake_96),
		cmocka_unit_test(test_skylake_48_holes),
		cmocka_unit_test(test_epyc_7443_ccd_holes),
		cmocka_unit_test(test_holes_with_hotplug),
		cmocka_unit_test(test_three_threads),
		cmocka_unit_test(test_epyc_512),
		cmocka_unit_test(test_masks_and_routes),
		cmocka_unit_test(test_from_ids),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_profiles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
