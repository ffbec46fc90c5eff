/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A stall injected on purpose is caught by the runner's stall window
 * (tests/integration/data/stall.ini: [host] stall = 20, a fault workload
 * with action = stall that stops its victim's child after 2 chunks and
 * waits without a line).  The run must be marked "stalled" within the
 * window and the capture's bound, its evidence in runs/ID/stall/ (Xen's
 * answer to the 'd' debug key, QEMU's local APIC of each vCPU, the host's
 * threads, a summary naming the workload), no QEMU left behind; and
 * `ipibench run --resume` must run it again (it stalls again).  With the
 * window off (stall-timeout.ini) [host] timeout ends it: failed, with the
 * same evidence.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "runner/stall.h"
#include "tests/integration/itest.h"

#define OUT "build/itest/stall"
#define CONFIG "tests/integration/data/stall.ini"
#define NCPUS 2
#define WINDOW 20

static json_t *results;
static int run_status = -1;

static int setup(void **s)
{
	(void)s;
	results = itest_fault_run("stall", CONFIG, OUT, &run_status);
	return results ? 0 : -1;
}

static int teardown(void **s)
{
	(void)s;
	return itest_free_results(&results);
}

/* OUT/runs/mixed-r0/stall/NAME, read whole (free it), or fail. */
static char *evidence(const char *name)
{
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), OUT "/runs/mixed-r0/" STALL_DIR "/%s", name);
	if (!(f = fopen(path, "rb")))
		fail_msg("%s: missing", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The run is a stalled result, not a failed one, with its evidence named. */
static void test_marked_stalled(void **s)
{
	json_t *run = itest_need_run(results, "mixed"), *st = json_object_get(run, "stall");

	(void)s;
	assert_int_equal(run_status, 1);
	if (strcmp(itest_str(run, "status"), "stalled"))
		fail_msg("status %s: %s", itest_str(run, "status"), itest_str(run, "error"));
	assert_non_null(st);
	assert_string_equal(itest_str(st, "reason"), "stall");
	assert_string_equal(itest_str(st, "phase"), "workload stuck");
	assert_string_equal(itest_str(st, "evidence"), "runs/mixed-r0/" STALL_DIR);
	assert_int_equal(itest_int(st, "window_s"), WINDOW);
	assert_non_null(strstr(itest_str(run, "error"), "stalled: no console output for 20 s in "
			       "workload stuck (dom0 up at "));
}

/* Caught within the window (the loop looks every 0.2 s), the capture in
 * its bound. */
static void test_in_time(void **s)
{
	char *sum = evidence("summary.json");
	json_t *j = json_loads(sum, 0, NULL);
	double quiet, took;

	(void)s;
	free(sum);
	assert_non_null(j);
	quiet = itest_number(j, "quiet_s");
	took = itest_number(j, "capture_s");
	print_message("stall: caught after %.1f s without a line, the capture took %.1f s "
		      "(%lld vCPU threads running, %lld idle; Xen answered: %s, monitor: %s)\n",
		      quiet, took, (long long)itest_int(j, "vcpus_running"),
		      (long long)itest_int(j, "vcpus_idle"),
		      json_is_true(json_object_get(j, "xen_answered")) ? "yes" : "no",
		      json_is_true(json_object_get(j, "monitor")) ? "yes" : "no");
	assert_true(quiet >= WINDOW && quiet < WINDOW + 2);
	assert_true(took < STALL_CAPTURE_MAX_S);
	assert_string_equal(itest_str(j, "reason"), "stall");
	assert_string_equal(itest_str(j, "phase"), "workload stuck");
	assert_true(json_is_true(json_object_get(j, "xen_answered")));
	assert_true(json_is_true(json_object_get(j, "monitor")));
	assert_int_equal(itest_int(j, "vcpus_running") + itest_int(j, "vcpus_idle"), NCPUS);
	assert_true(itest_str(j, "last_line")[0] != '\0');
	json_decref(j);
}

/* What each file must hold. */
static void test_evidence(void **s)
{
	char *keys = evidence("xen-keys.log"), *mon = evidence("qemu-monitor.txt");
	char *host = evidence("host.txt"), want[64];

	(void)s;
	/* Xen switched its serial input and answered the keys. */
	assert_non_null(strstr(keys, "*** Serial input to Xen"));
	assert_non_null(strstr(keys, "'d' pressed"));
	assert_non_null(strstr(keys, "'q' pressed"));
	/* QEMU's local APIC of each vCPU, IRR and ISR among it. */
	for (int i = 0; i < NCPUS; i++) {
		snprintf(want, sizeof(want), "(qemu) info lapic %d\n", i);
		char *at = strstr(mon, want);
		if (!at)
			fail_msg("qemu-monitor.txt: no %s", want);
		assert_non_null(strstr(at, "IRR"));
		assert_non_null(strstr(at, "ISR"));
	}
	assert_non_null(strstr(mon, "(qemu) info registers -a\n"));
	assert_non_null(strstr(mon, "(qemu) info cpus\n"));
	assert_null(strstr(mon, "no answer:"));
	assert_non_null(strstr(host, "/proc/loadavg: "));
	assert_non_null(strstr(host, "CPU 0/TCG"));
	assert_non_null(strstr(host, "CPU 1/TCG"));
	free(keys);
	free(mon);
	free(host);
}

/* --resume runs it again: a new start, stalled again, no QEMU left. */
static void test_resume(void **s)
{
	char before[64];
	struct cmd_out o;
	json_t *again, *run;

	(void)s;
	snprintf(before, sizeof(before), "%s", itest_str(itest_need_run(results, "mixed"),
							  "started"));
	itest_run(&o, (const char *[]){ "run", "--resume", OUT, NULL });
	bool said = strstr(o.text, "0 of 1 runs ok, 1 stalled");
	if (o.status != 1 || !said)
		fprintf(stderr, "%s", o.text);
	free(o.text);
	assert_int_equal(itest_qemu_alive(o.pid), 0);
	assert_int_equal(o.status, 1);
	assert_true(said);
	again = itest_load_results(OUT);
	assert_non_null(again);
	run = itest_need_run(again, "mixed");
	assert_string_equal(itest_str(run, "status"), "stalled");
	assert_string_not_equal(itest_str(run, "started"), before);
	json_decref(again);
}

/* With the window off the timeout ends it: failed, not stalled, and the
 * evidence is there all the same. */
static void test_timeout(void **s)
{
	int status = -1;
	json_t *r = itest_fault_run("stall-timeout", "tests/integration/data/stall-timeout.ini",
				    OUT "-timeout", &status), *run, *st, *j;

	(void)s;
	assert_non_null(r);
	run = itest_need_run(r, "mixed");
	st = json_object_get(run, "stall");
	assert_int_equal(status, 1);
	assert_string_equal(itest_str(run, "status"), "failed");
	assert_non_null(strstr(itest_str(run, "error"), "timeout after 90s"));
	assert_non_null(st);
	assert_string_equal(itest_str(st, "reason"), "timeout");
	/* workload stuck, unless the boot itself took the 90 s */
	print_message("stall-timeout: phase %s\n", itest_str(st, "phase"));
	assert_true(itest_str(st, "phase")[0] != '\0');
	j = json_load_file(OUT "-timeout/runs/mixed-r0/" STALL_DIR "/summary.json", 0, NULL);
	assert_non_null(j);
	assert_string_equal(itest_str(j, "reason"), "timeout");
	assert_true(json_is_true(json_object_get(j, "xen_answered")));
	json_decref(j);
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_marked_stalled),
		cmocka_unit_test(test_in_time),
		cmocka_unit_test(test_evidence),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_timeout),
	};
	return cmocka_run_group_tests_name("integration: stall", tests, setup, teardown);
}
