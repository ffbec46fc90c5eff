/* host_state's pure parts: the pinning words of Xen's command line and the
 * microcode revision from /proc/cpuinfo. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "runner/hoststate.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pins),
		cmocka_unit_test(test_microcode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
