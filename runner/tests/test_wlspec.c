/*
 * The workload table's timing and sender params (issue 10): timing is loop
 * or per-call, sender one routine, senders exactly two (or nothing), runs
 * 1 to 10000; the defaults are filled in.  The agent checks the same
 * (hvbench_timing_params(); tests/integration/test_hv.c runs it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "runner/wlspec.h"

static int value_ok(const char *type, const char *key, const char *v)
{
	const struct wl_param *p = wl_param_find(wl_type_find(type), key);
	char err[256] = "";
	json_t *j;

	assert_non_null(p);
	j = wl_param_value(p, v, err, sizeof(err));
	if (!j) {
		assert_true(err[0] != '\0');
		return 0;
	}
	json_decref(j);
	return 1;
}

static void test_timing(void **s)
{
	(void)s;
	assert_true(value_ok("flush_tlb_all", "timing", "loop"));
	assert_true(value_ok("flush_tlb_all", "timing", "per-call"));
	assert_false(value_ok("flush_tlb_all", "timing", "percall"));
	assert_false(value_ok("flush_tlb_all", "timing", ""));
	assert_true(value_ok("pingpong", "timing", "per-call"));
	assert_true(value_ok("ipi_mask", "runs", "1"));
	assert_true(value_ok("ipi_mask", "runs", "10000"));
	assert_false(value_ok("ipi_mask", "runs", "0"));
	assert_false(value_ok("ipi_mask", "runs", "10001"));
	/* Not timed operations: no timing. */
	assert_null(wl_param_find(wl_type_find("vector_capacity"), "timing"));
	assert_null(wl_param_find(wl_type_find("irq_delivery"), "timing"));
}

static void test_senders(void **s)
{
	(void)s;
	assert_true(value_ok("flush_tlb_all", "sender", "genapic"));
	assert_true(value_ok("flush_mask", "sender", "physical"));
	assert_true(value_ok("ipi_mask", "sender", "cluster"));
	assert_false(value_ok("ipi_mask", "sender", "logical"));
	assert_true(value_ok("flush_tlb_all", "senders", ""));
	assert_true(value_ok("flush_tlb_all", "senders", "physical, cluster"));
	assert_true(value_ok("flush_tlb_all", "senders", "cluster,cluster"));
	assert_true(value_ok("ipi_mask", "senders", " genapic ,physical "));
	assert_false(value_ok("flush_tlb_all", "senders", "physical"));
	assert_false(value_ok("flush_tlb_all", "senders", "physical, cluster, genapic"));
	assert_false(value_ok("flush_tlb_all", "senders", "physical cluster"));
	assert_false(value_ok("flush_tlb_all", "senders", "physical, mixed"));
	assert_false(value_ok("flush_tlb_all", "senders", "physical,,cluster"));
	assert_false(value_ok("flush_tlb_all", "senders", ","));
	/* pingpong calls the genapic hook itself: no sender. */
	assert_null(wl_param_find(wl_type_find("pingpong"), "sender"));
}

static void test_defaults(void **s)
{
	json_t *params = json_object();
	char err[256] = "";

	(void)s;
	assert_int_equal(wl_params_check(wl_type_find("flush_tlb_all"), params, err,
					 sizeof(err)), 0);
	assert_string_equal(json_string_value(json_object_get(params, "timing")), "loop");
	assert_int_equal(json_integer_value(json_object_get(params, "runs")), 1);
	assert_string_equal(json_string_value(json_object_get(params, "sender")), "genapic");
	assert_string_equal(json_string_value(json_object_get(params, "senders")), "");
	assert_int_equal(json_integer_value(json_object_get(params, "seed")), 0);
	json_decref(params);

	/* A job's wrong JSON type is refused. */
	params = json_pack("{s:i}", "timing", 1);
	assert_int_equal(wl_params_check(wl_type_find("ipi_mask"), params, err,
					 sizeof(err)), -1);
	json_decref(params);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timing),
		cmocka_unit_test(test_senders),
		cmocka_unit_test(test_defaults),
	};
	return cmocka_run_group_tests_name("wlspec", tests, NULL, NULL);
}
