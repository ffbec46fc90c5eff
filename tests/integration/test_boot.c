/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The foundation's integration test: the patched Xen boots under QEMU in
 * each x2APIC mode and selects the matching driver; every failure path
 * (timeout, missing QEMU, Xen panic, mode overridden) ends with a clear
 * error, a non-zero status and no QEMU left behind.
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

#include "tests/integration/itest.h"

#define OUT "build/itest/boot"

/* PIN: Xen command-line words that pin host state, or NULL. */
static void boot_mode(const char *mode, const char *genapic, const char *pin)
{
	char dir[256], agent[300];
	struct cmd_out o;
	json_error_t je;

	snprintf(dir, sizeof(dir), OUT "/%s", mode);
	itest_run(&o, (const char *[]){ "boot", "--mode", mode, "--cpus", "8",
					 "--output", dir, pin ? "--cmdline" : NULL, pin, NULL });
	assert_int_equal(o.status, 0);
	char want[64];
	snprintf(want, sizeof(want), "genapic: %s\n", genapic);
	assert_non_null(strstr(o.text, want));
	assert_non_null(strstr(o.text, "interrupt remapping: enabled"));
	assert_int_equal(itest_qemu_alive(o.pid), 0);

	/* What the agent saw inside dom0 agrees with the serial console. */
	snprintf(agent, sizeof(agent), "%s/agent.json", dir);
	json_t *a = json_load_file(agent, 0, &je);
	assert_non_null(a);
	assert_string_equal(json_string_value(json_object_get(a, "genapic")), genapic);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(a, "physinfo"),
							    "nr_cpus")), 8);
	/* What else changes IPI latency, as Xen gave it (agent/hoststate.h):
	 * QEMU's CPU has no SMT here, the backend's Xen command line pins
	 * only PIN, and Xen printed its hotplug slots and has a C-state limit
	 * (PIN's max_cstate=0 when pinned). */
	json_t *hs = json_object_get(a, "host_state");
	assert_true(json_is_object(hs));
	assert_true(json_is_false(json_object_get(hs, "smt")));
	assert_string_equal(json_string_value(json_object_get(hs, "xen_pins")), pin ? pin : "");
	assert_true(json_is_integer(json_object_get(hs, "hotplug_cpus")));
	json_t *mc = json_object_get(hs, "max_cstate");
	if (pin)
		assert_int_equal(json_integer_value(mc), 0);
	else
		assert_true(json_is_integer(mc) || (json_is_string(mc) &&
						     !strcmp(json_string_value(mc), "unlimited")));
	assert_string_equal(json_string_value(json_object_get(hs, "cpu_model")),
			    json_string_value(json_object_get(a, "cpu_model")));
	/* QEMU's ACPI tables have no _PSS: Xen has no cpufreq on CPU 0, and
	 * host_state says so rather than leaving the keys out. */
	assert_string_equal(json_string_value(json_object_get(hs, "cpufreq_driver")), "none");
	assert_string_equal(json_string_value(json_object_get(hs, "cpufreq_governor")), "none");
	assert_true(json_is_null(json_object_get(hs, "turbo")));
	json_decref(a);
	/* dom0's kernel log is kept beside them, whole (from its banner). */
	snprintf(agent, sizeof(agent), "%s/dom0-dmesg.txt", dir);
	assert_int_equal(itest_count_in(agent, "Linux version"), 1);
	assert_true(itest_count_in(agent, "Xen") > 0);
	free(o.text);
}

static void test_boot_physical(void **s) { (void)s; boot_mode("physical", "x2apic_phys", NULL); }
/* One boot pins the idle limit and frequency scaling, as a config's
 * [host] cmdline does: host_state records both. */
static void test_boot_cluster(void **s)
{
	(void)s;
	boot_mode("cluster", "x2apic_cluster", "max_cstate=0 cpufreq=none");
}
static void test_boot_mixed(void **s) { (void)s; boot_mode("mixed", "x2apic_mixed", NULL); }

static void test_timeout(void **s)
{
	struct cmd_out o;

	(void)s;
	itest_run(&o, (const char *[]){ "boot", "--mode", "mixed", "--cpus", "8",
					 "--timeout", "3", "--output", OUT "/timeout", NULL });
	assert_int_not_equal(o.status, 0);
	assert_non_null(strstr(o.text, "ipibench boot: timeout after 3s"));
	assert_int_equal(itest_qemu_alive(o.pid), 0);
	free(o.text);
}

static void test_missing_qemu(void **s)
{
	struct cmd_out o;

	(void)s;
	itest_run(&o, (const char *[]){ "boot", "--mode", "mixed", "--qemu",
					 "/nonexistent/qemu-system-x86_64",
					 "--output", OUT "/noqemu", NULL });
	assert_int_not_equal(o.status, 0);
	assert_non_null(strstr(o.text, "/nonexistent/qemu-system-x86_64 not found"));
	free(o.text);
}

static void test_xen_panic(void **s)
{
	struct cmd_out o;
	const char *bad = OUT "/garbage-kernel";
	FILE *f;

	(void)s;
	system("mkdir -p " OUT);
	/* Not an ELF or bzImage: Xen cannot construct dom0 and panics. */
	f = fopen(bad, "w");
	assert_non_null(f);
	for (int i = 0; i < 4096; i++)
		fputc(i * 7, f);
	fclose(f);
	itest_run(&o, (const char *[]){ "boot", "--mode", "mixed", "--cpus", "8",
					 "--kernel", bad, "--output", OUT "/panic", NULL });
	assert_int_not_equal(o.status, 0);
	assert_non_null(strstr(o.text, "ipibench boot: Xen panicked"));
	assert_int_equal(itest_qemu_alive(o.pid), 0);
	free(o.text);
}

static void test_mode_overridden(void **s)
{
	struct cmd_out o;

	(void)s;
	/* Without interrupt remapping Xen turns cluster into mixed. */
	itest_run(&o, (const char *[]){ "boot", "--mode", "cluster", "--cpus", "8",
					 "--cmdline", "iommu=no-intremap",
					 "--output", OUT "/override", NULL });
	assert_int_not_equal(o.status, 0);
	assert_non_null(strstr(o.text,
		"requested x2apic-mode=cluster but Xen selected x2apic_mixed"));
	assert_int_equal(itest_qemu_alive(o.pid), 0);
	free(o.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_qemu),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_boot_physical),
		cmocka_unit_test(test_boot_cluster),
		cmocka_unit_test(test_boot_mixed),
		cmocka_unit_test(test_xen_panic),
		cmocka_unit_test(test_mode_overridden),
	};
	return cmocka_run_group_tests_name("integration: boot", tests, NULL, NULL);
}
