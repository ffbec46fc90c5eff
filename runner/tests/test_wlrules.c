/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The runner's side of the workloads' rules (workloads/tests/test_wlspec.c
 * has the rules themselves): `ipibench boot --job` refuses a job the rules
 * refuse before it boots anything, and the command line's counts
 * (parse_uint) follow the params' integer rule (keys_parse_int).
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

#include "runner/runner.h"
#include "runner/util.h"
#include "workloads/workloads.h"

/* `ipibench boot --job` refuses a bad job before it boots anything. */
static void test_boot_job(void **s)
{
	char dir[] = "/tmp/test_wlrules.XXXXXX", job[64], out[64];
	FILE *f;

	(void)s;
	assert_non_null(mkdtemp(dir));
	snprintf(job, sizeof(job), "%s/job.json", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	f = fopen(job, "w");
	assert_non_null(f);
	fputs("{\"workloads\": [{\"name\": \"pp\", \"type\": \"pingpong\", "
	      "\"params\": {\"a\": 0, \"b\": 1}}]}", f);
	fclose(f);
	assert_int_equal(cmd_boot(5, (char *[]){ "boot", "--job", job, "--output", out, NULL }), 2);
	/* Nothing was written for the agent. */
	snprintf(job, sizeof(job), "%s/out/job.json", dir);
	assert_int_equal(access(job, F_OK), -1);
	snprintf(job, sizeof(job), "rm -rf %s", dir);
	assert_int_equal(system(job), 0);
}

/* One integer rule for params, [host], [matrix] and command-line counts:
 * decimal digits as written; hex ones (0x optional) where base is 16. */
static void test_integer_rule(void **s)
{
	static const char *const bad[] = { "010", "0x10", "+1", "-1", " 1", "1 ", "1e3", "1.5",
					   "00", "", "x", "99999999999999999999", NULL };
	char err[256];
	long n;

	(void)s;
	for (const char *const *b = bad; *b; b++) {
		if (!keys_parse_int("k", *b, 10, 0, 100000, &n, err, sizeof(err)))
			fail_msg("'%s' read as %ld", *b, n);
		assert_int_equal(parse_uint(*b, 0, 100000), -1);
	}
	assert_int_equal(keys_parse_int("k", "10", 10, 0, 100, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 10);
	assert_int_equal(keys_parse_int("k", "0", 10, 0, 100, &n, err, sizeof(err)), 0);
	assert_int_equal(parse_uint("4096", 1, 4096), 4096);
	assert_int_equal(keys_parse_int("k", "-3", 10, -5, 5, &n, err, sizeof(err)), 0);
	assert_int_equal(n, -3);
	assert_int_equal(keys_parse_int("k", "010", 10, 0, 100, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "k = '010': expected an integer from 0 to 100, written in decimal "
			    "digits (no leading 0, 0x, sign or space)");
	assert_int_equal(keys_parse_int("k", "101", 10, 0, 100, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "k = '101': expected an integer from 0 to 100");
	/* hex */
	assert_int_equal(keys_parse_int("m", "0x10", 16, 1, 0xffff, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 16);
	assert_int_equal(keys_parse_int("m", "ff", 16, 1, 0xffff, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 255);
	assert_int_equal(keys_parse_int("m", "0x-1", 16, 1, 0xffff, &n, err, sizeof(err)), -1);
	assert_int_equal(keys_parse_int("m", " 0x1", 16, 1, 0xffff, &n, err, sizeof(err)), -1);
	assert_int_equal(keys_parse_int("m", "0x", 16, 1, 0xffff, &n, err, sizeof(err)), -1);
	/* a CPU list or a choice list: no empty item */
	assert_true(keys_list_empty_item("a,,b"));
	assert_true(keys_list_empty_item("a, "));
	assert_true(keys_list_empty_item(",a"));
	assert_false(keys_list_empty_item("a, b"));
	assert_false(keys_list_empty_item(""));
	unsigned char bits[8];
	assert_int_equal(keys_cpus_parse("1,", bits, 64), -1);
	assert_int_equal(keys_cpus_parse("1,,2", bits, 64), -1);
	assert_int_equal(keys_cpus_parse("1,2", bits, 64), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boot_job),
		cmocka_unit_test(test_integer_rule),
	};
	return cmocka_run_group_tests_name("runner: the workloads' rules", tests, NULL, NULL);
}
