/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The benchmark interface on a debug build of the hypervisor series, one
 * physical-mode boot of 4 CPUs (tests/integration/data/sysctl-abi.ini):
 * every field and flag an operation neither reads nor writes must be zero
 * (public/ipibench.h), so the agent sends each kind of call (query, fetch,
 * start, continuation) with one of them set, and each must be refused with
 * EINVAL before anything else is looked at; the other refusals keep their
 * errors; then a run of every operation, with the agent's requests as the
 * interface asks them, works, and the query has the interface's fields.
 *
 * The build booted is ITEST_XEN, by default make hv-debug's of 4.17
 * (build/xen-4.17-debug/xen); make test-versions runs it on the debug build
 * of each line (scripts/versions.mk).
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

#define OUT "build/itest/sysctl-abi"
#define DEFAULT_XEN "build/xen-4.17-debug/xen"

static json_t *results;

static int setup(void **s)
{
	(void)s;
	if (!itest_xen() && setenv("ITEST_XEN", DEFAULT_XEN, 1))
		return -1;
	fprintf(stderr, "sysctl_abi: booting %s\n", itest_xen());
	results = itest_run_config("tests/integration/data/sysctl-abi.ini", OUT, 0);
	return results ? 0 : -1;
}

static int teardown(void **s)
{
	(void)s;
	return itest_free_results(&results);
}

static json_t *run(void)
{
	return itest_need_run(results, "physical");
}

static void test_debug_build(void **s)
{
	(void)s;
	assert_true(itest_xen_config_has("CONFIG_DEBUG=y"));
	assert_true(itest_xen_config_has("CONFIG_IPIBENCH=y"));
}

/* refusals' case NAME, or fail. */
static json_t *refusal(json_t *w, const char *name)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(w, "cases"), i, c)
		if (!strcmp(itest_str(c, "name"), name))
			return c;
	fail_msg("refusals: no case %s", name);
	return NULL;
}

/* A field or flag the call does not take, non-zero: EINVAL, from a query,
 * a fetch, a start and a continuation alike. */
static void test_unused_inputs_refused(void **s)
{
	static const char *const unused[] = {
		"query_with_cpu", "query_with_pad", "query_with_loop",
		"fetch_with_iterations", "fetch_with_mask",
		"start_with_peer", "start_with_nr_samples", "start_with_fetch_output",
		"start_with_pad", "flush_all_with_mask", "flush_mask_with_vector",
		"pingpong_with_no_shorthand", "continue_with_nr_samples",
	};
	json_t *w = itest_workload(run(), "refusals");
	int bad = 0;

	(void)s;
	assert_non_null(w);
	for (size_t i = 0; i < sizeof(unused) / sizeof(unused[0]); i++) {
		json_t *c = refusal(w, unused[i]);

		print_message("%s: %s\n", unused[i], itest_str(c, "got"));
		if (strcmp(itest_str(c, "got"), "EINVAL"))
			bad++;
	}
	assert_int_equal(bad, 0);
}

/* The other refusals are as they were, and the host works afterwards. */
static void test_refusals_ok(void **s)
{
	json_t *w = itest_workload(run(), "refusals"), *c;
	size_t i;

	(void)s;
	assert_non_null(w);
	json_array_foreach(json_object_get(w, "cases"), i, c)
		if (!json_is_true(json_object_get(c, "ok")))
			fail_msg("%s: expected %s, got %s", itest_str(c, "name"),
				 itest_str(c, "expected"), itest_str(c, "got"));
	assert_true(json_is_true(json_object_get(w, "host_ok")));
	assert_string_equal(itest_str(w, "status"), "ok");
}

/* Every operation runs with the requests the agent makes. */
static void test_every_op_runs(void **s)
{
	static const char *const names[] = {
		"flush-all", "flush-mask", "ipi-mask", "pingpong", "vectors", "irq",
	};

	(void)s;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		json_t *w = itest_need_workload(run(), names[i]);

		print_message("%s: %lld operations\n", names[i],
			      (long long)itest_int(json_object_get(w, "counters"), "operations"));
		assert_true(itest_int(json_object_get(w, "counters"), "operations") > 0);
	}
}

/* The query: no external interrupt modes (gone from the interface), a
 * 64-bit dev_irqs per CPU. */
static void test_query(void **s)
{
	json_t *q = json_object_get(itest_need_workload(run(), "query"), "query");
	json_t *c;
	size_t i;

	(void)s;
	assert_non_null(q);
	assert_null(json_object_get(q, "int_dest_mode"));
	assert_null(json_object_get(q, "int_delivery_mode"));
	assert_true(json_array_size(json_object_get(q, "cpus")) >= 4);
	json_array_foreach(json_object_get(q, "cpus"), i, c)
		assert_true(json_is_integer(json_object_get(c, "dev_irqs")));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debug_build),
		cmocka_unit_test(test_unused_inputs_refused),
		cmocka_unit_test(test_refusals_ok),
		cmocka_unit_test(test_every_op_runs),
		cmocka_unit_test(test_query),
	};
	return cmocka_run_group_tests_name("integration: the benchmark interface "
					   "on a debug build", tests, setup, teardown);
}
