/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The workload table's timing and sender params (docs/workloads.md): timing
 * is loop or per-call, sender one routine, senders exactly two (or
 * nothing), runs 1 to 10000; the defaults are filled in.  And one declaration
 * per workload: each is complete, and a job entry -- what the agent and
 * `ipibench boot --job` check -- obeys the rules a config obeys, with the
 * same defaults (the drift bugs of the agent's old rules each have a case).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "workloads/workloads.h"

static int value_ok(const char *type, const char *key, const char *v)
{
	const struct key *p = wl_param_find(wl_type_find(type), key);
	char err[256] = "";
	json_t *j;

	assert_non_null(p);
	j = keys_json(p, v, err, sizeof(err));
	if (!j) {
		assert_true(err[0] != '\0');
		return 0;
	}
	json_decref(j);
	return 1;
}

/* The message VALUE of TYPE's KEY is refused with ("" when accepted). */
static const char *param_error(const char *type, const char *key, const char *v)
{
	static char err[256];
	json_t *j = keys_json(wl_param_find(wl_type_find(type), key), v, err, sizeof(err));

	if (j)
		err[0] = '\0';
	json_decref(j);
	return err;
}

/* Each of VALS (NULL-terminated) of TYPE's KEY is accepted (OK) or refused. */
static void expect_values(const char *type, const char *key, int ok, const char *const *vals)
{
	for (; *vals; vals++)
		if (value_ok(type, key, *vals) != ok)
			fail_msg("%s: %s = '%s' %s", type, key, *vals, ok ? "refused" : "accepted");
}

#define values_ok(type, key, ...) \
	expect_values(type, key, 1, (const char *const[]){ __VA_ARGS__, NULL })
#define values_bad(type, key, ...) \
	expect_values(type, key, 0, (const char *const[]){ __VA_ARGS__, NULL })

static void test_timing(void **s)
{
	(void)s;
	values_ok("flush_tlb_all", "timing", "loop", "per-call");
	values_bad("flush_tlb_all", "timing", "percall", "");
	values_ok("pingpong", "timing", "per-call");
	values_ok("ipi_mask", "runs", "1", "10000");
	values_bad("ipi_mask", "runs", "0", "10001");
	/* Not timed operations: no timing. */
	assert_null(wl_param_find(wl_type_find("vector_capacity"), "timing"));
	assert_null(wl_param_find(wl_type_find("irq_delivery"), "timing"));
}

static void test_senders(void **s)
{
	(void)s;
	values_ok("flush_tlb_all", "sender", "genapic");
	values_ok("flush_mask", "sender", "physical");
	values_ok("ipi_mask", "sender", "cluster");
	values_bad("ipi_mask", "sender", "logical");
	values_ok("flush_tlb_all", "senders", "", "physical, cluster", "cluster,cluster");
	values_ok("ipi_mask", "senders", " genapic ,physical ");
	values_bad("flush_tlb_all", "senders", "physical", "physical, cluster, genapic",
		   "physical cluster", "physical, mixed", "physical,,cluster", ",");
	/* pingpong calls the genapic hook itself: no sender. */
	assert_null(wl_param_find(wl_type_find("pingpong"), "sender"));
}

/* The fault workload (workloads/fault.c): its action is one of its own choices, its
 * victim a workload type other than itself. */
static int fault_entry_ok(const char *json)
{
	const struct wl_type *t = NULL;
	json_t *w = json_loads(json, 0, NULL), *params = NULL;
	char err[256] = "";
	int rc;

	assert_non_null(w);
	rc = wl_job_entry_check(w, 0, &t, &params, err, sizeof(err));
	if (rc)
		assert_non_null(strstr(err, "f1"));
	else
		assert_string_equal(t->type, "fault");
	json_decref(params);
	json_decref(w);
	return rc == 0;
}

static void test_fault(void **s)
{
	(void)s;
	for (const char *const *a = (const char *const[]){ "kill", "offline", "concurrent", "hotplug",
								"hold", "hold-offline", "pause", "stall", NULL };
	     *a; a++) {
		char j[128];

		snprintf(j, sizeof(j), "{\"name\": \"f1\", \"type\": \"fault\", "
			 "\"params\": {\"action\": \"%s\"}}", *a);
		assert_true(fault_entry_ok(j));
	}
	/* The action is a choice of its declaration: refused by the param's
	 * own rule, as a config's line is, with the choices from the table. */
	values_ok("fault", "action", "kill", "offline", "concurrent", "hotplug", "hold",
		  "hold-offline", "pause", "stall");
	values_bad("fault", "action", "reboot", "");
	assert_string_equal(param_error("fault", "action", "reboot"),
			    "action = 'reboot': expected kill, offline, concurrent, hotplug, hold, "
			    "hold-offline, pause or stall");
	assert_false(value_ok("fault", "after_chunks", "0"));
	/* pause: from a millisecond to ten minutes. */
	assert_false(value_ok("fault", "pause_ms", "0"));
	assert_true(value_ok("fault", "pause_ms", "600000"));
	assert_false(value_ok("fault", "pause_ms", "600001"));
	assert_false(value_ok("fault", "offline_cpu", "0"));
	assert_true(fault_entry_ok("{\"name\": \"f1\", \"type\": \"fault\"}"));
	assert_true(fault_entry_ok("{\"name\": \"f1\", \"type\": \"fault\", \"params\": "
				   "{\"victim\": \"vector_capacity\", \"action\": \"offline\"}}"));
	assert_false(fault_entry_ok("{\"name\": \"f1\", \"type\": \"fault\", \"params\": "
				    "{\"victim\": \"fault\"}}"));
	assert_false(fault_entry_ok("{\"name\": \"f1\", \"type\": \"fault\", \"params\": "
				    "{\"victim\": \"no_such_type\"}}"));
	assert_false(fault_entry_ok("{\"name\": \"f1\", \"type\": \"fault\", \"params\": "
				    "{\"action\": \"reboot\"}}"));
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

/* The job entry {"name": "w", "type": TYPE, "params": PARAMS}; its error, "" when valid. */
static const char *entry(const char *type, const char *params, json_t **out, char *err,
			 size_t len)
{
	char text[512];
	json_t *w, *p = NULL;
	const struct wl_type *t = NULL;

	snprintf(text, sizeof(text), "{\"name\": \"w\", \"type\": \"%s\", \"params\": %s}",
		 type, params);
	w = json_loads(text, 0, NULL);
	assert_non_null(w);
	err[0] = '\0';
	if (wl_job_entry_check(w, 0, &t, &p, err, len) == 0) {
		assert_string_equal(t->type, type);
		assert_string_equal(err, "");
	} else {
		assert_true(err[0] != '\0');
		assert_null(strchr(err, '\n'));
		assert_non_null(strstr(err, "workload w"));   /* names the workload */
	}
	if (out)
		*out = p;
	else
		json_decref(p);
	json_decref(w);
	return err;
}

/* Every declaration is complete (fio's check_engine_ops()), and an incomplete one is refused. */
static void test_declarations(void **s)
{
	static const struct key nohelp[] = { { "x", KEY_UINT, 0, 9, "1", "", .flags = 0 }, { NULL } };
	static const struct key baddef[] = { { "x", KEY_UINT, 0, 9, "10", "x", .flags = 0 }, { NULL } };
	static const struct key twice[] = {
		{ "x", KEY_UINT, 0, 9, "1", "x", .flags = 0 }, { "x", KEY_UINT, 0, 9, "1", "x", .flags = 0 }, { NULL }
	};
	/* A choice is checked by the names its declaration gives: none, refused. */
	static const struct key nochoices[] = { { "x", KEY_CHOICE, 0, 0, "a", "x", .flags = 0 }, { NULL } };
	/* Where a call sends comes from params it must have. */
	static const struct key cpuonly[] = { WL_CPU, { NULL } };
	static const struct key nocpu[] = { { "mask", KEY_CPUS, 0, 0, "all", "x", .flags = 0 }, { NULL } };
	const struct wl_type bad[] = {
		{ "a", "", nohelp, NULL, WL_DEST_NONE, false },
		{ "a", "a", nohelp, NULL, WL_DEST_NONE, false },
		{ "a", "a", baddef, NULL, WL_DEST_NONE, false },
		{ "a", "a", twice, NULL, WL_DEST_NONE, false },
		{ "a", "a", NULL, NULL, WL_DEST_NONE, false },
		{ "a", "a", nochoices, NULL, WL_DEST_NONE, false },
		{ "a", "a", cpuonly, NULL, WL_DEST_MASK, false },
		{ "a", "a", cpuonly, NULL, WL_DEST_PEER, false },
		{ "a", "a", nocpu, NULL, WL_DEST_MASK, false },
	};
	const struct wl_type good = { "a", "a", cpuonly, NULL, WL_DEST_ALL, true };
	char err[256];
	size_t n = 0;

	(void)s;
	for (; wl_types[n]; n++) {
		err[0] = '\0';
		assert_int_equal(wl_type_verify(wl_types[n], err, sizeof(err)), 0);
		assert_ptr_equal(wl_type_find(wl_types[n]->type), wl_types[n]);
	}
	assert_int_equal(n, 10);
	/* The template is complete too, and not registered. */
	extern const struct wl_type wl_skeleton;
	assert_int_equal(wl_type_verify(&wl_skeleton, err, sizeof(err)), 0);
	assert_null(wl_type_find("skeleton"));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(wl_type_verify(&bad[i], err, sizeof(err)), -1);
		assert_true(err[0] != '\0');
	}
	assert_int_equal(wl_type_verify(&good, err, sizeof(err)), 0);
	/* The four that send IPIs say where; the others do not. */
	assert_int_equal(wl_type_find("flush_tlb_all")->dest, WL_DEST_ALL);
	assert_int_equal(wl_type_find("flush_mask")->dest, WL_DEST_MASK);
	assert_int_equal(wl_type_find("ipi_mask")->dest, WL_DEST_MASK);
	assert_int_equal(wl_type_find("pingpong")->dest, WL_DEST_PEER);
	assert_true(wl_type_find("pingpong")->no_shorthand);
	assert_int_equal(wl_type_find("vector_capacity")->dest, WL_DEST_NONE);
}

/* The agent's old rules, each now the runner's (workloads/wlspec.c). */
static void test_job_drift(void **s)
{
	char err[256];
	json_t *p;

	(void)s;
	/* ipi_mask's vector: the agent took it, and so does a job (and a config). */
	assert_string_equal(entry("ipi_mask", "{\"vector\": 0}", NULL, err, sizeof(err)), "");
	assert_string_not_equal(entry("ipi_mask", "{\"vector\": 256}", NULL, err, sizeof(err)), "");
	/* pingpong's a/b aliases existed only in the agent: cpu and peer. */
	assert_non_null(strstr(entry("pingpong", "{\"a\": 0}", NULL, err, sizeof(err)), "'a'"));
	assert_non_null(strstr(entry("pingpong", "{\"b\": 1}", NULL, err, sizeof(err)), "'b'"));
	assert_string_equal(entry("pingpong", "{\"cpu\": 2, \"peer\": 3}", NULL, err,
				  sizeof(err)), "");
	/* The masks "none" and JSON arrays: not a config's, not a job's. */
	assert_non_null(strstr(entry("ipi_mask", "{\"mask\": \"none\"}", NULL, err,
				     sizeof(err)), "mask"));
	assert_non_null(strstr(entry("ipi_mask", "{\"mask\": [1, 2]}", NULL, err, sizeof(err)),
			       "mask"));
	assert_string_equal(entry("ipi_mask", "{\"mask\": \"1,2\"}", NULL, err, sizeof(err)), "");
	/* iterations 1..1e6 (the agent took 0..UINT32_MAX) and an integer, not "5". */
	assert_non_null(strstr(entry("flush_tlb_all", "{\"iterations\": 0}", NULL, err,
				     sizeof(err)), "iterations"));
	assert_non_null(strstr(entry("flush_mask", "{\"iterations\": 1000001}", NULL, err,
				     sizeof(err)), "iterations"));
	assert_non_null(strstr(entry("irq_delivery", "{\"iterations\": \"5\"}", NULL, err,
				     sizeof(err)), "iterations"));
	assert_string_equal(entry("flush_mask", "{\"iterations\": 1000000}", NULL, err,
				  sizeof(err)), "");
	/* sender and senders together, or senders per call: refused by both. */
	assert_non_null(strstr(entry("ipi_mask", "{\"sender\": \"physical\", "
				     "\"senders\": \"physical, cluster\"}", NULL, err, sizeof(err)),
			       "sender"));
	assert_non_null(strstr(entry("ipi_mask", "{\"timing\": \"per-call\", "
				     "\"senders\": \"physical, cluster\"}", NULL, err, sizeof(err)),
			       "timing"));
	/* Trace settings go in the job's trace object, which is checked too. */
	assert_non_null(strstr(entry("ipi_mask", "{\"trace\": \"0x1\"}", NULL, err, sizeof(err)),
			       "trace"));
	json_t *w = json_pack("{s:s, s:s, s:{s:s}}", "name", "w", "type", "ipi_mask",
			      "trace", "mask", "bogus");
	const struct wl_type *t;
	assert_int_equal(wl_job_entry_check(w, 0, &t, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "trace mask"));
	json_object_set_new(json_object_get(w, "trace"), "mask", json_string("0x00804000"));
	assert_int_equal(wl_job_entry_check(w, 0, &t, &p, err, sizeof(err)), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(w, "trace"), "kb")),
			 1024);
	json_decref(p);
	json_object_set_new(json_object_get(w, "trace"), "kb", json_integer(32));
	assert_int_equal(wl_job_entry_check(w, 0, &t, &p, err, sizeof(err)), -1);
	json_decref(w);
	/* No type, or an unknown one. */
	assert_non_null(strstr(entry("flush_all", "{}", NULL, err, sizeof(err)), "unknown type"));
}

/* A job's defaults are the declaration's, the ones a config gets. */
static void test_job_defaults(void **s)
{
	char err[256];
	json_t *p;

	(void)s;
	/* irq_delivery: 1000 (the agent's run said 100). */
	entry("irq_delivery", "{}", &p, err, sizeof(err));
	assert_non_null(p);
	assert_int_equal(json_integer_value(json_object_get(p, "iterations")), 1000);
	assert_string_equal(json_string_value(json_object_get(p, "mask")), "1");
	assert_null(json_object_get(p, "trace"));   /* the agent core's, not the run's */
	assert_null(json_object_get(p, "trace_kb"));
	json_decref(p);
	entry("pingpong", "{}", &p, err, sizeof(err));
	assert_int_equal(json_integer_value(json_object_get(p, "peer")), 1);
	assert_int_equal(json_integer_value(json_object_get(p, "cpu")), 0);
	json_decref(p);
	entry("ipi_mask", "{}", &p, err, sizeof(err));
	assert_string_equal(json_string_value(json_object_get(p, "mask")), "all-but-self");
	assert_true(json_is_true(json_object_get(p, "shorthand")));
	assert_int_equal(json_integer_value(json_object_get(p, "vector")), 0);
	json_decref(p);
	entry("blkio", "{}", &p, err, sizeof(err));
	assert_int_equal(json_integer_value(json_object_get(p, "iterations")), 2000);
	json_decref(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timing),
		cmocka_unit_test(test_senders),
		cmocka_unit_test(test_fault),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_declarations),
		cmocka_unit_test(test_job_drift),
		cmocka_unit_test(test_job_defaults),
	};
	return cmocka_run_group_tests_name("wlspec", tests, NULL, NULL);
}
