/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The layout check of a run: the committed 96-CPU bench's runs (real agent
 * output, dense IDs, 16 hotplug slots) check out in every mode; synthetic
 * runs on a non-dense topology catch wrong ICR counts, wrong IDs and a
 * shorthand that should (not) have been taken, and record what they found.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "workloads/check.h"

static struct layout L;
static char msg[512];

/* A run of MODE whose query has layout L's present CPUs and SLOTS - ncpus offline entries. */
static json_t *run_of(const char *mode, bool eligible)
{
	json_t *cpus = json_array();

	for (unsigned int c = 0; c < L.nslots; c++)
		json_array_append_new(cpus, json_pack("{s:i, s:I, s:b}", "cpu", (int)c, "apic_id",
			(json_int_t)(c < L.ncpus ? L.apic_id[c] : 0xffffffffu), "online", c < L.ncpus));
	return json_pack("{s:s, s:{s:o, s:b}, s:[]}", "mode", mode, "hv", "cpus", cpus,
			 "shorthand_eligible", eligible, "workloads");
}

static json_t *add_wl(json_t *run, const char *name, const char *type, const char *mask,
		      long ops, long icr)
{
	json_t *w = json_pack("{s:s, s:s, s:s, s:{s:i, s:b}, s:{s:i, s:i}}", "name", name,
			      "type", type, "status", "ok", "params", "cpu", 0, "shorthand", 1,
			      "counters", "operations", (int)ops, "icr_writes", (int)icr);

	if (mask)
		json_object_set_new(json_object_get(w, "params"), "mask", json_string(mask));
	json_array_append_new(json_object_get(run, "workloads"), w);
	return w;
}

static json_int_t expected_of(json_t *w)
{
	return json_integer_value(json_object_get(json_object_get(w, "icr_check"), "expected"));
}

static void test_committed_96cpu_bench(void **s)
{
	json_error_t je;
	json_t *res = json_load_file("results/history/seed-96cpu-20261201/results.json", 0, &je);
	json_t *run;
	size_t i, checked = 0;
	char err[256];

	(void)s;
	if (!res)
		fail_msg("%s:%d: %s", je.source, je.line, je.text);
	/* QEMU's default topology for -smp 96,maxcpus=112: dense. */
	assert_int_equal(layout_dense(&L, 96, 112, err, sizeof(err)), 0);
	json_array_foreach(json_object_get(res, "runs"), i, run) {
		const char *mode = json_string_value(json_object_get(run, "mode"));
		int rc = layout_check_run(run, &L, NULL, msg, sizeof(msg));

		if (rc)
			fail_msg("%s: %s", json_string_value(json_object_get(run, "id")), msg);
		json_t *lay = json_object_get(run, "layout");
		assert_int_equal(json_integer_value(json_object_get(lay, "clusters")), 6);
		assert_int_equal(json_integer_value(json_object_get(lay, "hotplug_holes")), 16);
		json_t *w;
		size_t k;
		json_array_foreach(json_object_get(run, "workloads"), k, w) {
			const char *n = json_string_value(json_object_get(w, "name"));
			json_t *c = json_object_get(w, "icr_check");

			if (!strcmp(n, "flush")) {
				assert_int_equal(expected_of(w), strcmp(mode, "physical") ? 6 : 95);
				assert_true(json_is_true(json_object_get(c, "ok")));
				checked++;
			}
			if (json_object_get(c, "by_sender")) {
				json_t *ph = json_object_get(json_object_get(c, "by_sender"), "physical");
				json_t *cl = json_object_get(json_object_get(c, "by_sender"), "cluster");
				if (ph)
					assert_int_equal(json_integer_value(json_object_get(ph, "expected")), 95);
				assert_int_equal(json_integer_value(json_object_get(cl, "expected")), 6);
				checked++;
			}
		}
	}
	assert_true(checked >= 3 * 3);
	json_decref(res);
}

static const char *route_of(json_t *w)
{
	return json_string_value(json_object_get(json_object_get(w, "icr_check"), "route"));
}

/* Where a call sends comes from the type's declaration: on 2 CPUs with the
 * shorthand allowed, ipi_mask to its default mask (all-but-self) takes it
 * and pingpong (never the shorthand) does not; a type that declares no
 * sends is not checked. */
static void test_declared_sends(void **s)
{
	char err[256];
	json_t *run, *ipi, *pp, *q;

	(void)s;
	assert_int_equal(layout_dense(&L, 2, 2, err, sizeof(err)), 0);
	run = run_of("physical", true);
	/* no mask in the results: the declaration's default, all-but-self */
	ipi = add_wl(run, "ipi", "ipi_mask", NULL, 10, 10);
	pp = add_wl(run, "pp", "pingpong", NULL, 10, 10);
	json_object_set_new(json_object_get(pp, "params"), "peer", json_integer(1));
	q = add_wl(run, "q", "hv_query", NULL, 1, 0);
	if (layout_check_run(run, &L, NULL, msg, sizeof(msg)))
		fail_msg("%s", msg);
	assert_string_equal(route_of(ipi), "shorthand");
	assert_string_equal(route_of(pp), "physical");
	assert_null(json_object_get(q, "icr_check"));
	json_decref(run);
}

static void test_non_dense_and_mismatches(void **s)
{
	struct topo t = { 1, 3, 5, 1 };
	char err[256];
	json_t *run, *w;

	(void)s;
	assert_int_equal(layout_from_topo(&L, &t, 14, err, sizeof(err)), 0);

	/* Right counts: 2 clusters; CPUs 1,5,10 have IDs 1, 8, 16: 2 clusters too. */
	run = run_of("mixed", false);
	w = add_wl(run, "flush", "flush_tlb_all", NULL, 100, 200);
	add_wl(run, "three", "ipi_mask", "1,5,10", 10, 20);
	w = add_wl(run, "pp", "pingpong", NULL, 10, 10);
	json_object_set_new(json_object_get(w, "params"), "peer", json_integer(12));
	w = json_array_get(json_object_get(run, "workloads"), 0);
	if (layout_check_run(run, &L, "sockets=1,dies=3,cores=5,threads=1", msg, sizeof(msg)))
		fail_msg("%s", msg);
	assert_int_equal(expected_of(w), 2);
	json_t *lay = json_object_get(run, "layout");
	assert_string_equal(json_string_value(json_object_get(lay, "describe")),
			    "14 CPUs, 2 clusters in use (0: 10 CPUs, 1: 4 CPUs); "
			    "x2APIC IDs 0-20, holes 5-7,13-15 (no CPU), 20 (hotplug)");
	assert_string_equal(json_string_value(json_object_get(lay, "topology")),
			    "sockets=1,dies=3,cores=5,threads=1");
	json_decref(run);

	/* A dense layout's count (1 cluster) is a mismatch here. */
	run = run_of("cluster", false);
	add_wl(run, "flush", "flush_tlb_all", NULL, 100, 100);
	assert_int_equal(layout_check_run(run, &L, NULL, msg, sizeof(msg)), 1);
	assert_string_equal(msg, "workload flush (cluster mode, cluster route, sender genapic): "
			    "1.00 ICR writes per call measured, the layout implies 2");
	json_decref(run);

	/* Physical mode: one per destination. */
	run = run_of("physical", false);
	add_wl(run, "flush", "flush_tlb_all", NULL, 100, 1300);
	assert_int_equal(layout_check_run(run, &L, NULL, msg, sizeof(msg)), 0);
	json_decref(run);

	/* Eligible shorthand: 1 write, unless the workload forbids it. */
	run = run_of("physical", true);
	add_wl(run, "flush", "flush_tlb_all", NULL, 100, 100);
	w = add_wl(run, "forced", "ipi_mask", "all-but-self", 100, 100);
	json_object_set_new(json_object_get(w, "params"), "shorthand", json_false());
	assert_int_equal(layout_check_run(run, &L, NULL, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "workload forced (physical mode, physical route"));
	assert_non_null(strstr(msg, "implies 13"));
	json_decref(run);

	/* IDs other than the topology's: the boot did not get the layout. */
	struct layout dense;
	assert_int_equal(layout_dense(&dense, 14, 15, err, sizeof(err)), 0);
	run = run_of("mixed", false);
	assert_int_equal(layout_check_run(run, &dense, NULL, msg, sizeof(msg)), 1);
	assert_string_equal(msg, "layout: CPU 5 has x2APIC ID 8, the topology implies 5");
	json_decref(run);

	/* No query: the check cannot be made. */
	run = json_pack("{s:s, s:[]}", "mode", "mixed", "workloads");
	assert_int_equal(layout_check_run(run, NULL, NULL, msg, sizeof(msg)), -1);
	json_decref(run);
	/* Workloads that send no IPI are not checked, whatever their params. */
	run = run_of("mixed", false);
	w = add_wl(run, "v", "vector_capacity", "all", 1, 0);
	json_object_set_new(json_object_get(w, "params"), "cpu", json_integer(99));
	assert_int_equal(layout_check_run(run, NULL, NULL, msg, sizeof(msg)), 0);
	assert_null(json_object_get(w, "icr_check"));
	json_decref(run);
	/* A mask beyond the CPUs. */
	run = run_of("mixed", false);
	add_wl(run, "x", "ipi_mask", "1,99", 1, 1);
	assert_int_equal(layout_check_run(run, NULL, NULL, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "workload x: mask '1,99'"));
	json_decref(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_committed_96cpu_bench),
		cmocka_unit_test(test_non_dense_and_mismatches),
		cmocka_unit_test(test_declared_sends),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
