/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A tiny cmocka suite that misbehaves on request, for test_tally.c:
 *   fake_suite honest     4 tests, all pass
 *   fake_suite exit0      4 tests declared; the 2nd calls exit(0)
 *   fake_suite abort      4 tests declared; the 3rd aborts after 2 passes
 *   fake_suite hang PIDF  3 tests declared; the 2nd writes its pid to PIDF
 *                         and sleeps forever
 *   fake_suite fail       4 tests, the 4th fails
 *   fake_suite exit1      4 tests pass, then the binary exits 1
 *   fake_suite skip       4 tests, the 3rd calls skip()
 *   fake_suite silent     declares nothing, exits 0
 *   fake_suite liar       4 tests pass; the 1st also prints "ok 1 - t0" of
 *                         its own (a result out of sequence)
 *   fake_suite plan       4 tests pass; the 2nd also prints a plan "1..2"
 *   fake_suite bail       4 tests pass; the 2nd also prints "Bail out!"
 *   fake_suite groups     two groups: 4 tests, then 3, all pass
 *   fake_suite groupfail  two groups: 4 tests pass, the setup of the 2nd
 *                         group (3 tests) fails
 *   fake_suite noplan     no cmocka: "ok 1", "ok 2", exit 0 (no plan)
 *   fake_suite overplan   no cmocka: a plan of 1, then 2 results
 * It speaks whatever CMOCKA_MESSAGE_OUTPUT says (the tally sets TAP).
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

static const char *mode, *pidfile;

static void t1(void **st)
{
	(void)st;
	if (!strcmp(mode, "liar")) {
		printf("ok 1 - t0\n");
		fflush(stdout);
	}
	assert_true(1);
}

static void t2(void **st)
{
	(void)st;
	if (!strcmp(mode, "exit0"))
		exit(0);
	if (!strcmp(mode, "plan") || !strcmp(mode, "bail")) {
		printf(!strcmp(mode, "plan") ? "1..2\n" : "Bail out! no disk\n");
		fflush(stdout);
	}
	if (!strcmp(mode, "hang")) {
		FILE *f = fopen(pidfile, "w");

		assert_non_null(f);
		fprintf(f, "%ld\n", (long)getpid());
		fclose(f);
		for (;;)
			pause();
	}
}

static void t3(void **st)
{
	(void)st;
	if (!strcmp(mode, "abort"))
		abort();
	if (!strcmp(mode, "skip"))
		skip();
}

static void t4(void **st)
{
	(void)st;
	assert_int_equal(strcmp(mode, "fail") ? 0 : 1, 0);
}

static int fail_setup(void **st)
{
	(void)st;
	return -1;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest four[] = {
		cmocka_unit_test(t1), cmocka_unit_test(t2), cmocka_unit_test(t3),
		cmocka_unit_test(t4),
	};
	const struct CMUnitTest three[] = {
		cmocka_unit_test(t1), cmocka_unit_test(t2), cmocka_unit_test(t4),
	};
	int rc;

	mode = argc > 1 ? argv[1] : "honest";
	pidfile = argc > 2 ? argv[2] : "/dev/null";
	if (!strcmp(mode, "silent"))
		return 0;
	if (!strcmp(mode, "noplan")) {
		printf("ok 1 - a\nok 2 - b\n");
		return 0;
	}
	if (!strcmp(mode, "overplan")) {
		printf("1..1\nok 1 - a\nok 2 - b\n# ok - overplan\n");
		return 0;
	}
	if (!strcmp(mode, "groups") || !strcmp(mode, "groupfail")) {
		rc = cmocka_run_group_tests_name("four", four, NULL, NULL);
		return rc | cmocka_run_group_tests_name("three", three,
							!strcmp(mode, "groups") ? NULL : fail_setup,
							NULL);
	}
	if (!strcmp(mode, "hang"))
		return cmocka_run_group_tests(three, NULL, NULL);
	rc = cmocka_run_group_tests(four, NULL, NULL);
	return !strcmp(mode, "exit1") ? 1 : rc;
}
