/* Configs: valid ones load with defaults; every kind of mistake is refused with FILE:LINE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runner/config.h"

static const char good[] =
	"; a smoke config\n"
	"[host]\n"
	"cpus = 16\n"
	"maxcpus = 20\n"
	"[matrix]\n"
	"modes = physical, mixed\n"
	"repetitions = 2\n"
	"order = randomized\n"
	"[workload:flush]\n"
	"type = flush_tlb_all\n"
	"iterations = 500\n"
	"[workload:ipi3]\n"
	"type = ipi_mask\n"
	"mask = 1,17,33\n"
	"shorthand = false\n";

static void test_good(void **s)
{
	struct config c;
	char err[256] = "";

	(void)s;
	assert_int_equal(config_load_string("good.ini", good, &c, err, sizeof(err)), 0);
	assert_string_equal(c.host.backend, "qemu");
	assert_int_equal(c.host.cpus, 16);
	assert_int_equal(c.host.maxcpus, 20);
	assert_int_equal(c.matrix.nmodes, 2);
	assert_string_equal(c.matrix.modes[1], "mixed");
	assert_int_equal(c.matrix.order, ORDER_RANDOMIZED);
	assert_int_equal(c.nwl, 2);
	assert_int_equal(json_integer_value(json_object_get(c.wl[0].params, "iterations")), 500);
	/* defaults filled in */
	assert_true(json_is_true(json_object_get(c.wl[1].params, "shorthand")) == 0);
	assert_string_equal(json_string_value(json_object_get(c.wl[1].params, "mask")), "1,17,33");
	assert_int_equal(json_integer_value(json_object_get(c.wl[1].params, "cpu")), 0);
	assert_string_equal(c.host.name, "qemu-16cpu");
	config_free(&c);
}

static void expect_error(const char *text, const char *msg)
{
	struct config c;
	char err[256] = "";

	assert_int_equal(config_load_string("x.ini", text, &c, err, sizeof(err)), -1);
	if (!strstr(err, msg))
		fail_msg("expected '%s' in '%s'", msg, err);
}

static void test_errors(void **s)
{
	(void)s;
	expect_error("[host]\ncpus = lots\n", "x.ini:2: cpus = 'lots': expected an integer");
	expect_error("[host]\ncpus = 8\ncolour = blue\n", "x.ini:3: unknown key 'colour' in [host]");
	expect_error("[host]\n[matrix]\nmodes = physical, flat\n",
		     "x.ini:3: modes: 'flat' is not physical, cluster or mixed");
	expect_error("[host]\ncpus=8\n[matrix]\nmodes=mixed\n[workload:a]\ntype = warp\n",
		     "x.ini:6: type = 'warp': unknown workload type");
	expect_error("[host]\ncpus=8\n[matrix]\nmodes=mixed\n[workload:a]\ntype = flush_tlb_all\niterations = 0\n",
		     "x.ini:7: iterations = '0': expected an integer from 1 to 1000000");
	expect_error("[host]\ncpus=8\n[matrix]\nmodes=mixed\n[workload:a]\ntype = ipi_mask\nmask = 3-1\n",
		     "x.ini:7: mask = '3-1'");
	expect_error("[host]\ncpus=8\n[matrix]\nmodes=mixed\n[workload:a]\ntype = pingpong\nspeed = 3\n",
		     "x.ini:7: unknown key 'speed' for a workload of type pingpong");
	expect_error("[host]\ncpus=8\ncpus=9\n", "x.ini:3: duplicate key 'cpus' in [host]");
	expect_error("[host]\ncpus=8\n[matrix]\nmodes=mixed\n", "x.ini: no [workload:NAME] section");
	expect_error("[host]\ncpus=8\n", "x.ini: missing section [matrix]");
	expect_error("[matrix]\nmodes=mixed\n", "x.ini: missing section [host]");
	expect_error("[host]\ncpus=8\n[matrix]\nmodes=mixed\n[gadgets]\nx=1\n", "x.ini:6: unknown section [gadgets]");
	expect_error("[host]\nthis line has no equals sign\n", "x.ini:2: syntax error");
	expect_error("[host]\ncpus=16\nmaxcpus=8\n[matrix]\nmodes=mixed\n[workload:a]\ntype=flush_tlb_all\n",
		     "maxcpus (8) is below cpus (16)");
}

static void test_sweep(void **s)
{
	struct config c;
	char err[256] = "";

	(void)s;
	assert_int_equal(config_load("configs/sweep.ini", &c, err, sizeof(err)), 0);
	assert_int_equal(c.matrix.ncpus, 5);
	assert_int_equal(c.matrix.cpus[4], 96);
	config_free(&c);
	expect_error("[host]\n[matrix]\nmodes=mixed\ncpus = 8, 8\n", "x.ini:4: cpus: 8 is listed twice");
	expect_error("[host]\n[matrix]\nmodes=mixed\ncpus = 8, x\n", "x.ini:4: cpus = 'x'");
}

/* The shipped configs are valid. */
static void test_shipped_configs(void **s)
{
	const char *files[] = { "configs/smoke.ini", "configs/seed-96cpu.ini", NULL };
	struct config c;
	char err[256] = "";

	(void)s;
	for (const char **f = files; *f; f++) {
		if (config_load(*f, &c, err, sizeof(err)))
			fail_msg("%s", err);
		config_free(&c);
	}
}

static void test_cpu_lists(void **s)
{
	unsigned char b[8];

	(void)s;
	assert_int_equal(wl_cpus_parse("1,17,33", b, 64), 0);
	assert_int_equal(b[0], 0x02);
	assert_int_equal(b[2], 0x02);
	assert_int_equal(b[4], 0x02);
	assert_int_equal(wl_cpus_parse("0-7", b, 64), 0);
	assert_int_equal(b[0], 0xff);
	assert_int_equal(wl_cpus_parse("64", b, 64), -1);
	assert_int_equal(wl_cpus_parse("1,,2", b, 64), -1);
	assert_int_equal(wl_cpus_parse("", b, 64), -1);
	assert_int_equal(wl_cpus_parse("a", b, 64), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_cpu_lists),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_shipped_configs),
	};
	return cmocka_run_group_tests_name("runner: config", tests, NULL, NULL);
}
