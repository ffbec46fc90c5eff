/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A non-dense topology booted in the three modes (profile test-holes-14:
 * 3 dies x 5 cores, 14 of 15 CPUs present): the hypervisor reports the
 * x2APIC IDs QEMU's topology implies, and the ICR writes of an all-but-self
 * flush are what that layout implies in each mode (13 physical, 2 clusters
 * cluster and mixed, where the dense 14-CPU layout has 1), for the
 * genapic and for both send routines; the run's own layout check agrees
 * and the report shows the layout.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "tests/integration/itest.h"

#define OUT "build/itest/topology"

static json_t *results;

static int setup(void **s)
{
	(void)s;
	results = itest_run_config("tests/integration/data/topology-holes.ini", OUT, 1);
	return results ? 0 : -1;
}

static int teardown(void **s)
{
	(void)s;
	return itest_free_results(&results);
}

static const char *const modes[] = { "physical", "cluster", "mixed" };

/* The IDs of the topology, not QEMU's dense 0..13. */
static void test_ids_follow_topology(void **s)
{
	static const int ids[14] = { 0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 16, 17, 18, 19 };
	json_t *host = json_object_get(results, "host");

	(void)s;
	assert_string_equal(json_string_value(json_object_get(host, "topology")),
			    "sockets=1,dies=3,cores=5,threads=1");
	assert_string_equal(json_string_value(json_object_get(host, "profile")), "test-holes-14");
	assert_int_equal(json_integer_value(json_object_get(host, "maxcpus")), 15);
	for (int m = 0; m < 3; m++) {
		json_t *r = itest_need_ok_run(results, modes[m]), *hv = json_object_get(r, "hv");

		assert_int_equal(json_integer_value(json_object_get(hv, "online_cpus")), 14);
		assert_false(json_is_true(json_object_get(hv, "shorthand_eligible")));
		for (int c = 0; c < 14; c++) {
			json_t *cpu = json_array_get(json_object_get(hv, "cpus"), c);

			assert_int_equal(json_integer_value(json_object_get(cpu, "apic_id")), ids[c]);
			assert_int_equal(json_integer_value(json_object_get(cpu, "cluster")), ids[c] >> 4);
		}
		json_t *lay = json_object_get(r, "layout");
		assert_int_equal(json_integer_value(json_object_get(lay, "clusters")), 2);
		assert_int_equal(json_integer_value(json_object_get(lay, "holes")), 7);
		assert_int_equal(json_integer_value(json_object_get(lay, "hotplug_holes")), 1);
	}
}

/* Measured ICR writes per call, as the layout implies them. */
static void test_icr_writes_follow_layout(void **s)
{
	(void)s;
	for (int m = 0; m < 3; m++) {
		json_t *r = itest_need_run(results, modes[m]);
		json_t *flush = itest_need_workload(r, "flush"), *three = itest_need_workload(r, "three");
		json_t *pair = itest_need_workload(r, "pair");
		json_t *by = json_object_get(pair, "counters_by_sender");

		assert_string_equal(json_string_value(json_object_get(flush, "path")), "genapic");
		assert_int_equal(itest_icr_per_call(json_object_get(flush, "counters")), m == 0 ? 13 : 2);
		assert_int_equal(itest_icr_per_call(json_object_get(three, "counters")), m == 0 ? 3 : 2);
		assert_int_equal(itest_icr_per_call(json_object_get(by, "physical")), 13);
		assert_int_equal(itest_icr_per_call(json_object_get(by, "cluster")), 2);
		/* The runner's own check recorded the same. */
		json_t *chk = json_object_get(flush, "icr_check");
		assert_true(json_is_true(json_object_get(chk, "ok")));
		assert_int_equal(json_integer_value(json_object_get(chk, "expected")), m == 0 ? 13 : 2);
	}
}

static void test_report_shows_layout(void **s)
{
	struct cmd_out o;
	FILE *f;
	char buf[65536];
	size_t n;

	(void)s;
	itest_run(&o, (const char *[]){ "report", OUT, "-o", OUT "/report", "-q", NULL });
	assert_int_equal(o.status, 0);
	free(o.text);
	f = fopen(OUT "/report/report.md", "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_non_null(strstr(buf, "14 CPUs, 2 clusters in use (0: 10 CPUs, 1: 4 CPUs); "
				 "x2APIC IDs 0-20, holes 5-7,13-15 (no CPU), 20 (hotplug)"));
	assert_non_null(strstr(buf, "| flush | mixed | genapic | cluster | 2 | 2.00 | 1 | ok |"));
	assert_null(strstr(buf, "MISMATCH"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_follow_topology),
		cmocka_unit_test(test_icr_writes_follow_layout),
		cmocka_unit_test(test_report_shows_layout),
	};
	return cmocka_run_group_tests_name("integration: a non-dense topology", tests, setup, teardown);
}
