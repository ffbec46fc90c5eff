/* SPDX-License-Identifier: GPL-3.0-or-later */
/* host_state's pure parts: the pinning words of Xen's command line and the
 * microcode revision from /proc/cpuinfo. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/hoststate.h"

static void test_pins(void **s)
{
	char out[128];

	(void)s;
	hoststate_pins("console=com1 com1=115200 dom0_mem=512M max_cstate=1 x2apic-mode=mixed "
		       "cpufreq=none smt=0 loglvl=all", out, sizeof(out));
	assert_string_equal(out, "max_cstate=1 cpufreq=none smt=0");
	/* The mode differs between the runs of a matrix: never a pin. */
	hoststate_pins("console=com1 x2apic-mode=physical noreboot", out, sizeof(out));
	assert_string_equal(out, "");
	/* A whole word or NAME=: no prefix matches (smtx, cpufreqs). */
	hoststate_pins("smtx=1 cpufreqs cpuidle no-cpuidle  tsc=unstable", out, sizeof(out));
	assert_string_equal(out, "cpuidle no-cpuidle tsc=unstable");
	/* Bounded: what does not fit is left out, never cut in the middle. */
	hoststate_pins("max_cstate=1 cpufreq=dom0-kernel", out, 16);
	assert_string_equal(out, "max_cstate=1");
	hoststate_pins(NULL, out, sizeof(out));
	assert_string_equal(out, "");
}

static void test_microcode(void **s)
{
	char out[32];

	(void)s;
	assert_int_equal(hoststate_microcode("processor\t: 0\nvendor_id\t: AuthenticAMD\n"
					     "microcode\t: 0xaa00215\ncpu MHz\t\t: 2250.000\n\n"
					     "processor\t: 1\nmicrocode\t: 0xaa00216\n", out, sizeof(out)), 0);
	assert_string_equal(out, "0xaa00215");
	/* QEMU's CPU has none in the first CPU's block; later blocks do not count. */
	assert_int_equal(hoststate_microcode("processor\t: 0\nmodel name\t: QEMU\n\nmicrocode\t: 0x1\n",
					     out, sizeof(out)), -1);
	assert_int_equal(hoststate_microcode("microcodes : 0x1\n", out, sizeof(out)), -1);
	assert_int_equal(hoststate_microcode("microcode\t:\n", out, sizeof(out)), -1);
	assert_int_equal(hoststate_microcode("microcode : 0x0123456789abcdef0123456789abcdef\n",
					     out, sizeof(out)), -1);
	assert_int_equal(hoststate_microcode("", out, sizeof(out)), -1);
}

/* KEY of OBJ as compact JSON text, for one comparison per key. */
static void assert_key(json_t *obj, const char *key, const char *want)
{
	char *t = json_dumps(json_object_get(obj, key), JSON_COMPACT | JSON_ENCODE_ANY);

	assert_non_null(t);
	assert_string_equal(t, want);
	free(t);
}

static void test_cpufreq(void **s)
{
	struct hoststate_cpufreq cf = { 0 };
	json_t *j;

	(void)s;
	/* An Intel box with acpi-cpufreq and ondemand, turbo on. */
	memcpy(cf.driver, "acpi-cpufreq", 13);
	memcpy(cf.governor, "ondemand", 9);
	cf.turbo = 1;
	j = hoststate_cpufreq_json(&cf);
	assert_key(j, "cpufreq_driver", "\"acpi-cpufreq\"");
	assert_key(j, "cpufreq_governor", "\"ondemand\"");
	assert_key(j, "turbo", "true");
	assert_int_equal(json_object_size(j), 3);
	json_decref(j);
	/* HWP: the governor's bytes are CPPC values in 4.18-4.20, not read. */
	memset(&cf, 0, sizeof(cf));
	memcpy(cf.driver, "hwp", 4);
	memcpy(cf.governor, "\x01\x00\x00\x00\xff", 5);
	j = hoststate_cpufreq_json(&cf);
	assert_key(j, "cpufreq_driver", "\"hwp\"");
	assert_key(j, "cpufreq_governor", "null");
	assert_key(j, "turbo", "false");
	json_decref(j);
	memcpy(cf.driver, "amd-cppc-epp", 13);
	memcpy(cf.governor, "performance", 12);
	j = hoststate_cpufreq_json(&cf);
	assert_key(j, "cpufreq_governor", "null");
	json_decref(j);
	/* All 16 bytes without a NUL, or not a name: null, not a cut or a
	 * control character in the report. */
	memset(cf.driver, 'a', sizeof(cf.driver));
	memcpy(cf.governor, "userspace", 10);
	j = hoststate_cpufreq_json(&cf);
	assert_key(j, "cpufreq_driver", "null");
	assert_key(j, "cpufreq_governor", "null");
	json_decref(j);
	memcpy(cf.driver, "powernow", 9);
	memcpy(cf.governor, "on demand\n", 11);
	j = hoststate_cpufreq_json(&cf);
	assert_key(j, "cpufreq_driver", "\"powernow\"");
	assert_key(j, "cpufreq_governor", "null");
	json_decref(j);
	/* No cpufreq on CPU 0: said so (QEMU has no _PSS: EINVAL;
	 * cpufreq=none: ENODEV), turbo unknown. */
	for (int e = 0; e < 2; e++) {
		struct hoststate_cpufreq none = { .rc = -1, .err = e ? ENODEV : EINVAL };

		j = hoststate_cpufreq_json(&none);
		assert_key(j, "cpufreq_driver", "\"none\"");
		assert_key(j, "cpufreq_governor", "\"none\"");
		assert_key(j, "turbo", "null");
		json_decref(j);
	}
	/* Any other failure (EACCES: a sysctl version refused): unknown. */
	struct hoststate_cpufreq bad = { .rc = -1, .err = EACCES };
	j = hoststate_cpufreq_json(&bad);
	assert_key(j, "cpufreq_driver", "null");
	assert_key(j, "cpufreq_governor", "null");
	assert_key(j, "turbo", "null");
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pins),
		cmocka_unit_test(test_microcode),
		cmocka_unit_test(test_cpufreq),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
