/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * CPU hotplug on a debug build of the hypervisor series, as Xen developers
 * build it (make hv-debug: CONFIG_DEBUG and CONFIG_DEBUG_LOCKS, whose lock
 * checks BUG on a lock taken both with interrupts on and off).  One
 * mixed-mode boot of 8 CPUs (tests/integration/data/hotplug.ini): a CPU
 * goes offline and online again with no run at all, under runs that use it
 * and under one that does not, then with no run again.  The host must
 * stay up (Xen does not panic, the run and every workload end), each run
 * under an offline must end by itself, finished or with ENXIO (a CPU it
 * uses went away), never ESRCH, and the host works afterwards: a next run,
 * every vector back, a device interrupt, all 8 CPUs online.  While the CPU
 * is offline no IRQ with an action is left aimed at it (Xen's 'i' debug
 * key), also when a run held vector_capacity's vectors on every CPU
 * (offline-held-vectors: that run ends ENXIO, cut short); a flush_all run
 * under an offline counts the IPIs it really sent; and a looping owner
 * that fetches forever is cut at the run's lifetime (60 s) with ETIME,
 * every vector free again afterwards (hold-lifetime).
 *
 * The build booted is ITEST_XEN, by default make hv-debug's of 4.17
 * (build/xen-4.17-debug/xen); make test-versions runs it on the debug build
 * of each line (scripts/versions.mk).  Its xen.config must say CONFIG_DEBUG_LOCKS:
 * on a release build the test would prove nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>

#include "tests/integration/itest.h"

#define OUT "build/itest/hotplug"
#define DEFAULT_XEN "build/xen-4.17-debug/xen"
#define NCPUS 8

static json_t *results;
static int run_status = -1;

static int setup(void **s)
{
	(void)s;
	if (!itest_xen() && setenv("ITEST_XEN", DEFAULT_XEN, 1))
		return -1;
	results = itest_fault_run("hotplug", "tests/integration/data/hotplug.ini", OUT,
				  &run_status);
	return results ? 0 : -1;
}

static int teardown(void **s)
{
	(void)s;
	return itest_free_results(&results);
}

/* What is booted is a debug build with the lock checks. */
static void test_debug_build(void **s)
{
	(void)s;
	assert_true(itest_xen_config_has("CONFIG_DEBUG=y"));
	assert_true(itest_xen_config_has("CONFIG_DEBUG_LOCKS=y"));
	assert_true(itest_xen_config_has("CONFIG_IPIBENCH=y"));
}

/* The host stayed up: ipibench run exited 0, its one run is ok (a Xen
 * panic fails it, naming the panic), every workload did its job. */
static void test_host_alive(void **s)
{
	json_t *run = itest_need_ok_run(results, "mixed"), *w;
	size_t i;

	(void)s;
	assert_int_equal(run_status, 0);
	assert_int_equal(json_array_size(json_object_get(run, "workloads")), 7);
	json_array_foreach(json_object_get(run, "workloads"), i, w)
		if (strcmp(itest_str(w, "status"), "ok"))
			fail_msg("%s: %s", itest_str(w, "name"), itest_str(w, "error"));
}

/* The fault report of workload NAME (which must have done its job). */
static json_t *fault_of(const char *name)
{
	return itest_fault_of(results, "mixed", name);
}

/* While the CPU was offline no IRQ with an action (a device's, Xen's own
 * test device's) was left with its vector on it: fixup_irqs() found free
 * vectors elsewhere for all of them. */
static void check_nothing_aimed(const char *name, json_t *f)
{
	json_t *aimed = json_object_get(f, "irqs_on_offline_cpu"), *l;
	size_t i;

	if (!json_is_array(aimed))
		fail_msg("%s: the 'i' debug key's dump was not read", name);
	json_array_foreach(aimed, i, l)
		print_message("%s: aimed at offline CPU %lld: %s\n", name,
			      (long long)itest_int(json_object_get(f, "offline"), "cpu"),
			      json_string_value(l));
	assert_int_equal(json_array_size(aimed), 0);
}

/* The CPU went offline and came back; afterwards a next run, the vectors
 * and a device interrupt as before, all CPUs online. */
static void check_hotplug(const char *name, json_t *f)
{
	json_t *off = json_object_get(f, "offline"), *on = json_object_get(f, "online");
	json_t *a = json_object_get(f, "after"), *b = json_object_get(f, "before");
	json_t *next = json_object_get(a, "next_run"), *irq = json_object_get(a, "irq");

	if (itest_int(off, "rc"))
		fail_msg("%s: xc_cpu_offline(%lld): %s", name, (long long)itest_int(off, "cpu"),
			 itest_str(off, "errno"));
	if (itest_int(on, "rc"))
		fail_msg("%s: xc_cpu_online(%lld): %s", name, (long long)itest_int(on, "cpu"),
			 itest_str(on, "errno"));
	print_message("%s: CPU %lld offline in %lld ms, online again\n", name,
		      (long long)itest_int(off, "cpu"), (long long)itest_int(off, "ms"));
	if (strcmp(itest_str(next, "status"), "ok"))
		fail_msg("%s: the next run failed: %s", name, itest_str(next, "error"));
	if (strcmp(itest_str(json_object_get(a, "vectors"), "status"), "ok"))
		fail_msg("%s: vector_capacity afterwards: %s", name,
			 itest_str(json_object_get(a, "vectors"), "error"));
	/* One vector of slack, as in test_faults: an IRQ of dom0's may move. */
	assert_true(itest_int(b, "vectors") > 0);
	assert_true(itest_int(json_object_get(a, "vectors"), "vectors") + 1 >=
		    itest_int(b, "vectors"));
	if (strcmp(itest_str(irq, "status"), "ok"))
		fail_msg("%s: device interrupt afterwards: %s", name, itest_str(irq, "error"));
	assert_int_equal(itest_int(irq, "handled"), itest_int(irq, "iterations"));
	assert_true(json_equal(json_object_get(a, "online"), json_object_get(b, "online")));
	assert_int_equal(json_array_size(json_object_get(b, "online")), NCPUS);
	if (json_object_get(f, "irqs_on_offline_cpu") || json_object_get(f, "offline"))
		check_nothing_aimed(name, f);
}

/* With no run: nothing to end, only the host to keep. */
static void check_idle(const char *name)
{
	json_t *f = fault_of(name);

	assert_null(json_object_get(f, "child"));
	check_hotplug(name, f);
}

/* Under a run: it ends by itself, finished or refused with ENXIO (the
 * documented error for a CPU the run uses going offline), nothing else;
 * WANT_OK: the run does not use the CPU, so it must finish. */
static void check_under_run(const char *name, int want_ok)
{
	json_t *f = fault_of(name), *c = json_object_get(f, "child");
	json_t *r = json_object_get(c, "result");
	const char *refused = itest_str(json_object_get(r, "refused"), "name");

	print_message("%s: the run: %s%s%s after %lld ms\n", name, itest_str(r, "status"),
		      *refused ? ", " : "", refused, (long long)itest_int(c, "ms"));
	assert_false(json_is_true(json_object_get(c, "timed_out")));
	assert_string_equal(itest_str(c, "exit"), "code");
	if (!r)
		fail_msg("%s: the child left no result", name);
	if (want_ok)
		assert_string_equal(itest_str(r, "status"), "ok");
	else if (strcmp(itest_str(r, "status"), "ok") && strcmp(refused, "ENXIO"))
		fail_msg("%s: the run under an offline CPU: %s", name, itest_str(r, "error"));
	check_hotplug(name, f);
}

static void test_hotplug_idle(void **s)
{
	(void)s;
	check_idle("hotplug-idle");
}

/* flush_all's IPI destinations are counted from what was sent: with CPU 3
 * offline for most of the run, fewer than 7 per call (and at least 6). */
static void test_offline_target(void **s)
{
	json_t *r;
	json_int_t ops, sent;

	(void)s;
	check_under_run("offline-target", 0);
	r = json_object_get(json_object_get(fault_of("offline-target"), "child"), "result");
	if (strcmp(itest_str(r, "status"), "ok"))
		return;
	ops = itest_int(r, "operations");
	sent = itest_int(r, "ipis_sent");
	print_message("offline-target: %lld calls, %lld IPIs sent, %lld received\n",
		      (long long)ops, (long long)sent, (long long)itest_int(r, "ipis_received"));
	assert_true(sent < ops * (NCPUS - 1));
	assert_true(sent >= ops * (NCPUS - 2));
}

/*
 * A looping owner: it holds vector_capacity's vectors and fetches forever.
 * The run ends at its lifetime (60 s from its start) with ETIME, cut
 * short, and every vector is free again afterwards.
 */
static void test_hold_lifetime(void **s)
{
	json_t *f = fault_of("hold-lifetime"), *c = json_object_get(f, "child");
	json_t *r = json_object_get(c, "result"), *h = json_object_get(r, "hold");
	json_t *a = json_object_get(f, "after"), *b = json_object_get(f, "before");
	json_t *q = json_object_get(a, "query_released") ?: json_object_get(a, "query");

	(void)s;
	print_message("hold-lifetime: held %lld vectors, ended by %s after %lld ms "
		      "(%lld fetches)\n", (long long)itest_int(r, "vectors"),
		      itest_str(h, "refused"), (long long)itest_int(h, "held_ms"),
		      (long long)itest_int(h, "fetches"));
	assert_false(json_is_true(json_object_get(c, "timed_out")));
	assert_string_equal(itest_str(c, "exit"), "code");
	assert_string_equal(itest_str(h, "refused"), "ETIME");
	assert_true(json_is_true(json_object_get(r, "cut_short")));
	assert_true(itest_int(h, "held_ms") >= 59000);
	assert_true(itest_int(h, "held_ms") < 90000);
	assert_false(json_is_true(json_object_get(q, "run_live")));
	assert_int_equal(itest_int(q, "free_vectors"), itest_int(b, "free_vectors"));
	assert_true(itest_int(json_object_get(a, "vectors"), "vectors") + 1 >=
		    itest_int(b, "vectors"));
	assert_string_equal(itest_str(json_object_get(a, "next_run"), "status"), "ok");
}

/*
 * A CPU goes offline while a run holds vector_capacity's vectors on every
 * CPU, the test device's interrupt bound to that CPU: the run is cut short
 * with ENXIO, and no IRQ is left aimed at the offline CPU (the run's IRQs
 * were released before fixup_irqs() moved the device's).
 */
static void test_offline_held_vectors(void **s)
{
	json_t *f = fault_of("offline-held-vectors"), *c = json_object_get(f, "child");
	json_t *r = json_object_get(c, "result");

	(void)s;
	print_message("offline-held-vectors: held %lld vectors, then %s\n",
		      (long long)itest_int(r, "vectors"),
		      itest_str(json_object_get(r, "hold"), "refused"));
	assert_false(json_is_true(json_object_get(c, "timed_out")));
	assert_string_equal(itest_str(json_object_get(r, "hold"), "refused"), "ENXIO");
	assert_true(json_is_true(json_object_get(r, "cut_short")));
	check_hotplug("offline-held-vectors", f);
}

static void test_offline_irq_cpu(void **s)
{
	(void)s;
	check_under_run("offline-irq", 0);
}

static void test_offline_unused_cpu(void **s)
{
	(void)s;
	check_under_run("offline-unused", 1);
}

static void test_hotplug_idle_again(void **s)
{
	(void)s;
	check_idle("hotplug-idle-again");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debug_build),
		cmocka_unit_test(test_host_alive),
		cmocka_unit_test(test_hotplug_idle),
		cmocka_unit_test(test_offline_target),
		cmocka_unit_test(test_offline_irq_cpu),
		cmocka_unit_test(test_offline_unused_cpu),
		cmocka_unit_test(test_hotplug_idle_again),
		cmocka_unit_test(test_offline_held_vectors),
		cmocka_unit_test(test_hold_lifetime),
	};

	return cmocka_run_group_tests_name("hotplug", tests, setup, teardown);
}
