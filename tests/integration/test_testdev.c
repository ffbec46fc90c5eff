/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The hypervisor's test device (ipibench-dev.c, QEMU's edu at 0000:00:01.0)
 * is taken only when Xen's command line names it, and is left to dom0 as
 * found when it cannot be taken.  Four boots of 2 CPUs, each running one
 * irq_delivery workload and reporting the device as dom0 sees it (the
 * agent's dom0_test_devices: its command register, whether a config write
 * reads back):
 *  named:    as the qemu backend boots it (ipibench-dev=0000:00:01.0):
 *            Xen owns it, irq_delivery runs (its 5 interrupts on CPU 1 by
 *            Xen's count: binding's own are not counted), dom0's writes
 *            are dropped;
 *  unnamed:  the device attached without the option: not taken;
 *  absent:   the option names a BDF with no device: not taken;
 *  no-msi:   named, but Xen's MSI support is off (msi=0), so its MSI
 *            set-up fails after Xen has begun taking it: given back.
 * Not taken means: the query reports no test device, irq_delivery is
 * refused with ENODEV and the agent says why, and dom0 can write the
 * device's configuration space, with bus mastering off as firmware left it.
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

#define OUT "build/itest/testdev"
#define JOB "tests/integration/data/testdev-job.json"
#define SBDF "0000:00:01.0"
#define PCI_COMMAND_MASTER 0x4

/* Boot with EXTRA (NULL-terminated) after the common arguments; agent.json. */
static json_t *boot(const char *name, const char *const *extra)
{
	const char *args[32] = { "boot", "--mode", "physical", "--cpus", "2", "--job", JOB };
	char out[256], path[300], cmd[300];
	struct cmd_out o;
	json_error_t je;
	json_t *a;
	int n = 7;

	snprintf(out, sizeof(out), OUT "-%s", name);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", out);
	system(cmd);
	for (int i = 0; extra[i]; i++)
		args[n++] = extra[i];
	args[n++] = "--output";
	args[n++] = out;
	args[n] = NULL;
	itest_run(&o, args);
	assert_int_equal(itest_qemu_alive(o.pid), 0);
	snprintf(path, sizeof(path), "%s/agent.json", out);
	a = json_load_file(path, 0, &je);
	if (!a)
		fail_msg("%s: no agent.json (%s); ipibench boot said:\n%s", name, je.text, o.text);
	free(o.text);
	return a;
}

/* The one irq_delivery workload of A. */
static json_t *irq_workload(json_t *a)
{
	json_t *w = json_array_get(json_object_get(a, "workloads"), 0);

	assert_non_null(w);
	assert_string_equal(itest_str(w, "name"), "irq");
	return w;
}

/* The device at SBDF as dom0 sees it (fails the test without one). */
static json_t *dom0_device(json_t *a)
{
	json_t *d;
	size_t i;

	json_array_foreach(json_object_get(a, "dom0_test_devices"), i, d)
		if (!strcmp(itest_str(d, "sbdf"), SBDF))
			return d;
	fail_msg("dom0 does not see a 1234:11e8 at " SBDF);
	return NULL;
}

/* Not taken: no device in the query, ENODEV said why, dom0 owns it. */
static void check_not_taken(const char *name, json_t *a)
{
	json_t *w = irq_workload(a), *d = dom0_device(a);
	json_int_t cmd = itest_int(d, "command");

	print_message("%s: test_device %s, irq_delivery %s (%s), dom0: command %#llx, "
		      "config %s\n", name,
		      json_is_null(json_object_get(json_object_get(a, "hv"), "test_device"))
		      ? "none" : "present",
		      itest_str(w, "status"), itest_str(w, "error"), (unsigned long long)cmd,
		      json_is_true(json_object_get(d, "config_writable")) ? "writable"
									 : "read-only");
	assert_true(json_is_null(json_object_get(json_object_get(a, "hv"), "test_device")));
	assert_string_equal(itest_str(w, "status"), "failed");
	assert_string_equal(itest_str(json_object_get(w, "refused"), "name"), "ENODEV");
	assert_non_null(strstr(itest_str(w, "error"),
			       "irq_delivery: the hypervisor has no test device"));
	assert_true(json_is_true(json_object_get(d, "config_writable")));
	assert_int_equal(cmd & PCI_COMMAND_MASTER, 0);
}

static void test_named(void **s)
{
	json_t *a, *w, *d;

	(void)s;
	a = boot("named", (const char *const[]){ NULL });
	w = irq_workload(a);
	d = dom0_device(a);
	print_message("named: test_device %s, irq_delivery %s, dom0: config %s\n",
		      itest_str(json_object_get(json_object_get(a, "hv"), "test_device"), "sbdf"),
		      itest_str(w, "status"),
		      json_is_true(json_object_get(d, "config_writable")) ? "writable"
									 : "read-only");
	assert_string_equal(itest_str(json_object_get(json_object_get(a, "hv"), "test_device"),
				      "sbdf"), SBDF);
	assert_string_equal(itest_str(w, "status"), "ok");
	assert_false(json_is_true(json_object_get(d, "config_writable")));
	/* Xen's count: the run's 5 interrupts, on CPU 1, none of binding's. */
	{
		json_t *dev = json_object_get(json_object_get(w, "counters"), "dev_irqs_per_cpu");

		print_message("named: dev_irqs_per_cpu [%lld, %lld]\n",
			      (long long)json_integer_value(json_array_get(dev, 0)),
			      (long long)json_integer_value(json_array_get(dev, 1)));
		assert_int_equal(json_integer_value(json_array_get(dev, 0)), 0);
		assert_int_equal(json_integer_value(json_array_get(dev, 1)), 5);
	}
	json_decref(a);
}

static void test_unnamed(void **s)
{
	json_t *a;

	(void)s;
	a = boot("unnamed", (const char *const[]){ "--no-test-device", "--qemu",
						   "tests/integration/data/qemu-edu.sh", NULL });
	check_not_taken("unnamed", a);
	json_decref(a);
}

static void test_absent(void **s)
{
	json_t *a;

	(void)s;
	a = boot("absent", (const char *const[]){ "--cmdline", "ipibench-dev=0000:00:1e.0",
						  NULL });
	check_not_taken("absent", a);
	json_decref(a);
}

static void test_msi_fails(void **s)
{
	json_t *a;

	(void)s;
	a = boot("no-msi", (const char *const[]){ "--cmdline", "msi=0", NULL });
	check_not_taken("no-msi", a);
	json_decref(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named),
		cmocka_unit_test(test_unnamed),
		cmocka_unit_test(test_absent),
		cmocka_unit_test(test_msi_fails),
	};
	/* ITEST_FILTER=test_unnamed (a cmocka pattern): one boot only. */
	if (getenv("ITEST_FILTER"))
		cmocka_set_test_filter(getenv("ITEST_FILTER"));
	return cmocka_run_group_tests_name("integration: test device", tests, NULL, NULL);
}
