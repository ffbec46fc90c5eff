/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The tally of `make test` is honest: ipibench-tally on fake_suite's
 * misbehaving cmocka binaries (tests/tally/fake_suite.c), read as TAP,
 * counts each declared test that did not pass as a failure, and each TAP
 * line a test printed of its own that breaks the sequence; it kills a
 * binary that hangs past its timeout (and all it started), counts a stage
 * that never ran, always prints the closing line, and writes the stage as
 * TAP that prove reads as it counts; prove itself reads a binary.  TALLY
 * and FAKE are the binaries' paths (tests/tally/tally.mk).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

static char dir[] = "/tmp/ipb-tally-XXXXXX", file[64], out[1 << 16];

/* Run a shell command; its stdout+stderr into out; its exit status. */
static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	FILE *p;
	size_t n;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	st = pclose(p);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* The record the tally wrote for NAME: passed and failed. */
static void record(const char *name, long *passed, long *failed)
{
	char line[4096], want[256];
	FILE *f = fopen(file, "r");
	int found = 0;

	assert_non_null(f);
	snprintf(want, sizeof(want), "result\t%s\t", name);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want))) {
			assert_int_equal(sscanf(line + strlen(want), "%ld\t%ld", passed, failed), 2);
			found++;
		}
	fclose(f);
	assert_int_equal(found, 1);
}

static int setup(void **st)
{
	(void)st;
	if (!mkdtemp(dir))
		return -1;
	snprintf(file, sizeof(file), "%s/tally", dir);
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	sh("rm -rf %s", dir);
	return 0;
}

/* Each run starts from an empty tally. */
static int fresh(void **st)
{
	(void)st;
	unlink(file);
	return 0;
}

static void check(const char *mode, int timeout, long want_passed, long want_failed)
{
	long p = -1, f = -1;
	int rc = sh("%s run %s fake-%s %d %s %s %s/pid 2>&1", TALLY, file, mode, timeout, FAKE,
		    mode, dir);
	char name[64];

	snprintf(name, sizeof(name), "fake-%s", mode);
	record(name, &p, &f);
	assert_int_equal(p, want_passed);
	assert_int_equal(f, want_failed);
	assert_int_equal(rc, want_failed ? 1 : 0);
}

static void test_honest(void **st)
{
	(void)st;
	check("honest", 30, 4, 0);
	assert_non_null(strstr(out, "\n1..4\n"));	/* cmocka's TAP, passed through */
	assert_non_null(strstr(out, "\nok 4 - t4\n"));
	assert_non_null(strstr(out, "== fake-honest: 4 passed, 0 failed"));
}

static void test_exit0_half_way(void **st)
{
	(void)st;
	check("exit0", 30, 1, 3);
	assert_non_null(strstr(out, "1 of 4 declared tests passed"));
	assert_non_null(strstr(out, "a group without its closing line"));
}

static void test_abort_keeps_passes(void **st)
{
	(void)st;
	check("abort", 30, 2, 2);
	assert_non_null(strstr(out, "signal 6"));
}

static void test_hang_times_out(void **st)
{
	char pidf[128];
	time_t t0 = time(NULL);
	long pid = 0;
	FILE *f;

	(void)st;
	check("hang", 2, 1, 2);
	assert_true(time(NULL) - t0 < 20);
	assert_non_null(strstr(out, "timed out after 2 s"));
	snprintf(pidf, sizeof(pidf), "%s/pid", dir);
	f = fopen(pidf, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld", &pid), 1);
	fclose(f);
	assert_true(pid > 1);
	/* Killed and reaped: no such process any more. */
	assert_int_equal(kill((pid_t)pid, 0), -1);
	assert_int_equal(errno, ESRCH);
}

static void test_failures_skips_and_exit_status(void **st)
{
	(void)st;
	check("fail", 30, 3, 1);
	check("skip", 30, 3, 1);
	assert_non_null(strstr(out, "1 skipped"));
	check("exit1", 30, 4, 1);	/* all passed, exited 1: one more failure */
	check("silent", 30, 0, 1);	/* declared nothing */
	assert_non_null(strstr(out, "declared no tests"));
}

/* What a test prints that looks like TAP cannot pass a test: it breaks
 * the sequence, and each break is a failure. */
static void test_tap_lines_of_its_own(void **st)
{
	(void)st;
	/* "ok 1 - t0" takes test 1's place, cmocka's own "ok 1" is extra. */
	check("liar", 30, 4, 1);
	assert_non_null(strstr(out, "1 mismatch, the first: a result out of sequence: 'ok 1 - t1'"));
	check("plan", 30, 4, 1);
	assert_non_null(strstr(out, "a plan inside an unfinished group: '1..2'"));
	check("bail", 30, 4, 1);
	assert_non_null(strstr(out, "bailed out: no disk"));
	check("noplan", 30, 0, 2);	/* declared nothing, two results outside */
	assert_non_null(strstr(out, "declared no tests"));
	assert_non_null(strstr(out, "2 mismatches, the first: a result outside a plan: 'ok 1 - a'"));
	check("overplan", 30, 1, 1);
	assert_non_null(strstr(out, "a result beyond its plan: 'ok 2 - b'"));
}

/* Each cmocka group is a plan of its own; a group whose setup fails fails
 * its tests. */
static void test_groups(void **st)
{
	(void)st;
	check("groups", 30, 7, 0);
	check("groupfail", 30, 4, 3);
	assert_non_null(strstr(out, "4 of 7 declared tests passed"));
	assert_non_null(strstr(out, "a group's setup or teardown failed"));
}

/* prove (Debian's perl) reads a cmocka binary of one group as it is. */
static void test_prove_reads_a_binary(void **st)
{
	(void)st;
	assert_int_equal(sh("prove -e 'env CMOCKA_MESSAGE_OUTPUT=TAP' %s 2>&1", FAKE), 0);
	assert_non_null(strstr(out, "Tests=4"));
	assert_non_null(strstr(out, "Result: PASS"));
	assert_int_equal(sh("prove -e 'env CMOCKA_MESSAGE_OUTPUT=TAP' %s :: skip 2>&1", FAKE), 1);
	assert_non_null(strstr(out, "Failed test:  3"));	/* a skip fails there too */
	assert_int_equal(sh("prove -e 'env CMOCKA_MESSAGE_OUTPUT=TAP' %s :: exit0 2>&1", FAKE), 1);
	assert_non_null(strstr(out, "Bad plan.  You planned 4 tests but ran 1."));
}

static void test_cmd_is_one_test(void **st)
{
	long p, f;

	(void)st;
	assert_int_equal(sh("%s cmd %s ok 30 true", TALLY, file), 0);
	record("ok", &p, &f);
	assert_int_equal(p, 1);
	assert_int_equal(f, 0);
	assert_int_equal(sh("%s cmd %s bad 30 false", TALLY, file), 1);
	record("bad", &p, &f);
	assert_int_equal(p, 0);
	assert_int_equal(f, 1);
	assert_int_equal(sh("%s cmd %s slow 1 sleep 30", TALLY, file), 1);
	record("slow", &p, &f);
	assert_int_equal(f, 1);
}

/* The closing line is printed also when something failed, and counts all. */
static void test_total(void **st)
{
	(void)st;
	check("honest", 30, 4, 0);
	assert_int_equal(sh("%s expect %s fake-honest fake-exit0 never-built", TALLY, file), 0);
	check("exit0", 30, 1, 3);
	assert_int_equal(sh("%s total %s", TALLY, file), 1);
	assert_non_null(strstr(out, "FAILED fake-exit0: 3 failed"));
	assert_non_null(strstr(out, "FAILED never-built: did not run"));
	/* 4 + 1 passed; 3 + 1 (never-built) failed; the last line alone. */
	assert_non_null(strstr(out, "\nipibench tests: 5 passed, 4 failed\n"));
	assert_true(strlen(out) > 36);
	assert_string_equal(out + strlen(out) - 36, "\nipibench tests: 5 passed, 4 failed\n");
	/* The stage as TAP: a line per binary, and one for what never ran. */
	assert_int_equal(sh("cat %s.tap", file), 0);
	assert_string_equal(out, "1..3\n"
			    "ok 1 - fake-honest: 4 passed, 0 failed (exit status 0)\n"
			    "not ok 2 - never-built: 0 passed, 1 failed (did not run: its build or a "
			    "stage before it failed)\n"
			    "not ok 3 - fake-exit0: 1 passed, 3 failed (1 of 4 declared tests passed, "
			    "exit status 0; a group without its closing line)\n"
			    "# ipibench tests: 5 passed, 4 failed\n");
	assert_int_equal(sh("prove -e cat %s.tap 2>&1", file), 1);
	assert_non_null(strstr(out, "Failed tests:  2-3"));

	unlink(file);
	check("honest", 30, 4, 0);
	assert_int_equal(sh("%s total %s", TALLY, file), 0);
	assert_string_equal(out, "ipibench tests: 4 passed, 0 failed\n");
	assert_int_equal(sh("prove -e cat %s.tap 2>&1", file), 0);
	assert_non_null(strstr(out, "Result: PASS"));

	/* Nothing ran at all: a failure, still with the line. */
	unlink(file);
	assert_int_equal(sh("%s total %s 2>/dev/null", TALLY, file), 1);
	assert_string_equal(out, "ipibench tests: 0 passed, 0 failed\n");

	/* A damaged record is not ignored. */
	assert_int_equal(sh("printf 'result\\tx\\tlots\\t0\\tnote\\n' >%s; %s total %s", file, TALLY,
			    file), 1);
	assert_non_null(strstr(out, "ipibench tests: 0 passed, 1 failed\n"));
	assert_int_equal(sh("prove -e cat %s.tap 2>&1", file), 1);
	assert_non_null(strstr(out, "Tests: 1 Failed: 1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_honest, fresh),
		cmocka_unit_test_setup(test_exit0_half_way, fresh),
		cmocka_unit_test_setup(test_abort_keeps_passes, fresh),
		cmocka_unit_test_setup(test_hang_times_out, fresh),
		cmocka_unit_test_setup(test_failures_skips_and_exit_status, fresh),
		cmocka_unit_test_setup(test_tap_lines_of_its_own, fresh),
		cmocka_unit_test_setup(test_groups, fresh),
		cmocka_unit_test_setup(test_prove_reads_a_binary, fresh),
		cmocka_unit_test_setup(test_cmd_is_one_test, fresh),
		cmocka_unit_test_setup(test_total, fresh),
	};

	return cmocka_run_group_tests_name("tally", tests, setup, teardown);
}
