/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * irq_delivery's test device on the embedded host: the [host] test_device
 * key and the qemu backend's command line (QEMU_TEST_DEVICE, on by
 * default, left out on request), and the machine around it: no default
 * devices.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runner/backends/qemu.h"
#include "runner/config.h"
#include "runner/hostopts.h"

#define HOSTCFG_REST "[matrix]\nmodes = mixed\n[workload:a]\ntype = irq_delivery\n"
#include "runner/tests/hostcfg.h"

static void test_config_key(void **s)
{
	struct config c;
	char err[256];

	(void)s;
	assert_int_equal(load_host("cpus = 4\n", &c, err, sizeof(err)), 0);
	assert_int_equal(QS(&c)->test_device, 1);
	config_free(&c);
	assert_int_equal(load_host("test_device = false\n", &c, err, sizeof(err)), 0);
	assert_int_equal(QS(&c)->test_device, 0);
	config_free(&c);
	assert_int_equal(load_host("backend = qemu\ntest_device = true\n", &c, err, sizeof(err)), 0);
	assert_int_equal(QS(&c)->test_device, 1);
	config_free(&c);

	expect_error("test_device = no\n",
		     "t.ini:2: test_device = 'no': expected true or false");
	expect_error("test_device = \n",
		     "t.ini:2: test_device = '': expected true or false");
	expect_error("test_device = true\ntest_device = false\n",
		     "t.ini:3: duplicate key 'test_device' in [host]");
	/* A real host's devices are its own. */
	expect_error("backend = local\ntest_device = false\n",
		     "t.ini:3: test_device = false: a key of the qemu backend, not of backend = local");
}

/* How often "-device VALUE" is in argv. */
static int device_count(char **argv, int n, const char *value)
{
	int k = 0;

	for (int i = 0; i + 1 < n; i++)
		if (!strcmp(argv[i], "-device") && !strcmp(argv[i + 1], value))
			k++;
	return k;
}

static void test_command_line(void **s)
{
	static char bufs[QEMU_ARG_BUFS][QEMU_ARG_LEN];
	char *argv[QEMU_MAX_ARGS];
	static struct qemu_settings q;
	struct host_opts o;
	struct host_result r;
	int n;

	(void)s;
	host_settings_defaults(&backend_qemu, &q);
	host_opts_default(&o, 8);
	o.settings = &q;
	o.mode = "physical";
	o.workdir = "/tmp/w";
	memset(&r, 0, sizeof(r));
	n = qemu_build_argv(&o, argv, bufs, &r);
	assert_true(n > 0 && n < QEMU_MAX_ARGS);
	assert_string_equal(QEMU_TEST_DEVICE, "edu,bus=pcie.0,addr=0x1");
	assert_int_equal(device_count(argv, n, QEMU_TEST_DEVICE), 1);
	/* Its MSI is remapped only because the IOMMU is there too. */
	assert_int_equal(device_count(argv, n, "intel-iommu,intremap=on,eim=on"), 1);
	/* Xen takes only the device its command line names: this one. */
	assert_non_null(strstr(r.xen_cmdline, " ipibench-dev=0000:00:01.0"));

	/* No default devices: each one dom0 registers costs Xen work on every
	 * CPU, and ipibench uses none of them. */
	int nodefaults = 0, machine = 0;
	for (int i = 0; i < n; i++) {
		nodefaults += !strcmp(argv[i], "-nodefaults");
		if (!strcmp(argv[i], "-machine") && i + 1 < n) {
			machine++;
			assert_string_equal(argv[i + 1], "q35,kernel-irqchip=split,sata=off,smbus=off");
		}
	}
	assert_int_equal(nodefaults, 1);
	assert_int_equal(machine, 1);

	q.test_device = 0;
	n = qemu_build_argv(&o, argv, bufs, &r);
	assert_true(n > 0);
	assert_int_equal(device_count(argv, n, QEMU_TEST_DEVICE), 0);
	for (int i = 0; i < n; i++)
		assert_null(strstr(argv[i], "edu"));
	/* Nor is anything named for Xen to take. */
	assert_null(strstr(r.xen_cmdline, "ipibench-dev"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_key),
		cmocka_unit_test(test_command_line),
	};
	return cmocka_run_group_tests_name("runner: test device", tests, NULL, NULL);
}
