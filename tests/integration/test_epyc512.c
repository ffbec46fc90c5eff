/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The seed's box, 512 CPUs (profile epyc-9754-512), booted in mixed mode:
 * the hypervisor reports x2APIC IDs 0-511 in 32 clusters, an all-but-self
 * flush writes the ICR once per cluster (32) through the genapic and the
 * cluster routine and once per CPU (511) through the physical routine, and
 * vector capacity on 16 CPUs of the two sockets gives vectors to those CPUs
 * only.  The one test that boots today's server sizes.
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

#define OUT "build/itest/epyc512"
#define NCPUS 512

static json_t *results;

static int setup(void **s)
{
	(void)s;
	results = itest_run_config("tests/integration/data/epyc512.ini", OUT, 1);
	return results ? 0 : -1;
}

static int teardown(void **s)
{
	(void)s;
	return itest_free_results(&results);
}

/* IDs 0-511 (256 and more among them), cluster = ID >> 4: 32 clusters. */
static void test_ids_and_clusters(void **s)
{
	json_t *r = itest_need_ok_run(results, "mixed"), *hv = json_object_get(r, "hv");
	json_t *cpus = json_object_get(hv, "cpus"), *lay = json_object_get(r, "layout");

	(void)s;
	assert_string_equal(itest_str(json_object_get(results, "host"), "profile"), "epyc-9754-512");
	assert_string_equal(itest_str(r, "genapic"), "x2apic_mixed");
	assert_int_equal(itest_int(hv, "online_cpus"), NCPUS);
	assert_int_equal(json_array_size(cpus), NCPUS);
	for (int c = 0; c < NCPUS; c++) {
		json_t *cpu = json_array_get(cpus, (size_t)c);

		assert_int_equal(itest_int(cpu, "apic_id"), c);
		assert_int_equal(itest_int(cpu, "cluster"), c >> 4);
	}
	assert_int_equal(itest_int(lay, "clusters"), NCPUS / 16);
	assert_int_equal(itest_int(lay, "holes"), 0);
}

/* 32 writes a flush through the genapic and the cluster routine, 511 through
 * the physical one: the 16x of the seed's layout, counted exactly. */
static void test_icr_writes(void **s)
{
	json_t *r = itest_need_ok_run(results, "mixed");
	json_t *flush = itest_need_workload(r, "flush"), *pair = itest_need_workload(r, "pair");
	json_t *by = json_object_get(pair, "counters_by_sender");
	json_t *chk = json_object_get(flush, "icr_check");

	(void)s;
	assert_string_equal(itest_str(flush, "path"), "genapic");
	assert_int_equal(itest_icr_per_call(json_object_get(flush, "counters")), 32);
	assert_int_equal(itest_icr_per_call(json_object_get(by, "physical")), NCPUS - 1);
	assert_int_equal(itest_icr_per_call(json_object_get(by, "cluster")), 32);
	assert_true(json_is_true(json_object_get(chk, "ok")));
	assert_int_equal(itest_int(chk, "expected"), 32);
}

/* Mixed mode gives each CPU of the mask its own vectors, on both sockets,
 * and none to a CPU outside it. */
static void test_vectors_on_both_sockets(void **s)
{
	json_t *r = itest_need_ok_run(results, "mixed"), *w = itest_need_workload(r, "vectors");
	json_t *cnt = json_object_get(w, "counters");
	json_t *pc = json_object_get(cnt, "vectors_per_cpu");
	json_int_t total = 0;

	(void)s;
	assert_true(json_array_size(pc) >= NCPUS);
	for (int c = 0; c < NCPUS; c++) {
		json_int_t v = json_integer_value(json_array_get(pc, (size_t)c));
		int in = c < 8 || (c >= 256 && c < 264);

		if (in)
			assert_true(v > 0);
		else
			assert_int_equal(v, 0);
		total += v;
	}
	print_message("epyc512: vector capacity on 0-7,256-263: %lld\n",
		      (long long)itest_int(cnt, "vectors"));
	assert_int_equal(total, itest_int(cnt, "vectors"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_and_clusters),
		cmocka_unit_test(test_icr_writes),
		cmocka_unit_test(test_vectors_on_both_sockets),
	};
	return cmocka_run_group_tests_name("integration: 512 CPUs, the seed's layout", tests,
					   setup, teardown);
}
