/*
 * The patched hypervisor's workloads at 40 CPUs (x2APIC clusters of 16, 16
 * and 8), all three modes in one `ipibench run`: the ICR writes each mode
 * implies, flush_tlb_all with per-iteration samples, vector capacity,
 * where a device interrupt bound to one CPU is handled, and the refusal of
 * invalid requests with the host still working afterwards.
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

#define OUT "build/itest/hv40"

static json_t *results;

static int setup(void **s)
{
	struct cmd_out o;
	json_error_t je;

	(void)s;
	system("rm -rf " OUT);
	itest_run(&o, (const char *[]){ "run", "-c", "tests/integration/data/hv-40cpu.ini",
					 "-o", OUT, NULL });
	free(o.text);
	results = json_load_file(OUT "/results.json", 0, &je);
	return results ? 0 : -1;
}

static int teardown(void **s)
{
	(void)s;
	json_decref(results);
	return 0;
}

static json_t *run_of(const char *mode)
{
	json_t *r;
	size_t i;

	json_array_foreach(json_object_get(results, "runs"), i, r)
		if (!strcmp(json_string_value(json_object_get(r, "mode")), mode))
			return r;
	fail_msg("no %s run", mode);
	return NULL;
}

static json_t *wl(const char *mode, const char *name)
{
	json_t *run = run_of(mode), *w;
	size_t i;

	json_array_foreach(json_object_get(run, "workloads"), i, w)
		if (!strcmp(json_string_value(json_object_get(w, "name")), name)) {
			if (strcmp(json_string_value(json_object_get(w, "status")), "ok"))
				fail_msg("%s/%s: %s", mode, name,
					 json_string_value(json_object_get(w, "error")));
			return w;
		}
	fail_msg("%s: no workload %s", mode, name);
	return NULL;
}

static json_int_t counter(json_t *w, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(w, "counters"), key));
}

static const char *const modes[] = { "physical", "cluster", "mixed" };

static void test_runs_ok(void **s)
{
	(void)s;
	for (int m = 0; m < 3; m++) {
		json_t *r = run_of(modes[m]);

		if (strcmp(json_string_value(json_object_get(r, "status")), "ok"))
			fail_msg("%s: %s", modes[m], json_string_value(json_object_get(r, "error")));
		/* 8 hotplug CPUs: Xen itself stays off the shorthand. */
		json_t *hv = json_object_get(wl(modes[m], "query"), "query");
		if (!hv)
			hv = json_object_get(r, "hv");
		assert_false(json_is_true(json_object_get(hv, "shorthand_eligible")));
	}
}

static void test_icr_writes(void **s)
{
	(void)s;
	for (int m = 0; m < 3; m++) {
		json_t *all = wl(modes[m], "allbut"), *three = wl(modes[m], "three");

		assert_string_equal(json_string_value(json_object_get(all, "path")), "genapic");
		/* 39 destinations: one write each in physical mode, one per
		 * cluster (16, 16, 8 CPUs) in cluster and mixed mode. */
		assert_int_equal(counter(all, "icr_writes") / counter(all, "operations"),
				 m == 0 ? 39 : 3);
		/* {1, 17, 33}: one CPU in each cluster, 3 writes in every mode. */
		assert_int_equal(counter(three, "icr_writes") / counter(three, "operations"), 3);
	}
}

static void test_flush(void **s)
{
	(void)s;
	for (int m = 0; m < 3; m++) {
		json_t *f = wl(modes[m], "flush");
		json_t *ns = json_object_get(json_object_get(f, "samples"), "ns");

		assert_int_equal(json_array_size(ns), 1000);
		assert_true(json_integer_value(json_array_get(ns, 0)) > 0);
		assert_int_equal(counter(f, "operations"), 1000);
	}
}

static void test_vector_capacity(void **s)
{
	json_int_t phys, cluster, mixed;

	(void)s;
	phys = counter(wl("physical", "vectors"), "vectors");
	cluster = counter(wl("cluster", "vectors"), "vectors");
	mixed = counter(wl("mixed", "vectors"), "vectors");
	print_message("vector capacity: physical %lld, cluster %lld, mixed %lld\n",
		      (long long)phys, (long long)cluster, (long long)mixed);
	assert_true(cluster > 0);
	assert_true(phys >= 10 * cluster);
	assert_true(mixed >= 10 * cluster);
}

static void test_irq_bound_to_one_cpu(void **s)
{
	(void)s;
	for (int m = 0; m < 3; m++) {
		json_t *h = json_object_get(json_object_get(wl(modes[m], "irq5"), "counters"),
					    "handled_per_cpu");
		json_int_t total = 0, on5 = json_integer_value(json_array_get(h, 5));
		json_t *v;
		size_t i;

		json_array_foreach(h, i, v)
			total += json_integer_value(v);
		print_message("%s: interrupt bound to CPU 5 handled %lld of %lld times there\n",
			      modes[m], (long long)on5, (long long)total);
		assert_int_equal(total, 50);
		if (m != 1)   /* physical and mixed address CPU 5 alone */
			assert_int_equal(on5, 50);
	}
}

static void test_refusals(void **s)
{
	(void)s;
	for (int m = 0; m < 3; m++) {
		json_t *r = wl(modes[m], "refusals"), *c;
		size_t i;

		assert_true(json_array_size(json_object_get(r, "cases")) >= 10);
		json_array_foreach(json_object_get(r, "cases"), i, c)
			if (!json_is_true(json_object_get(c, "ok")))
				fail_msg("%s: %s: expected %s, got %s", modes[m],
					 json_string_value(json_object_get(c, "name")),
					 json_string_value(json_object_get(c, "expected")),
					 json_string_value(json_object_get(c, "got")));
		assert_true(json_is_true(json_object_get(r, "host_ok")));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_ok),
		cmocka_unit_test(test_icr_writes),
		cmocka_unit_test(test_flush),
		cmocka_unit_test(test_vector_capacity),
		cmocka_unit_test(test_irq_bound_to_one_cpu),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests_name("integration: hypervisor workloads at 40 CPUs",
					   tests, setup, teardown);
}
