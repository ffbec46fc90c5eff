/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Console milestones: the lines Xen, dom0 and the agent really print. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/unit.h"

#include "lib/console.h"

static void test_genapic(void **s)
{
	struct console_match m;

	(void)s;
	assert_int_equal(console_parse_line(
		"(XEN) [00000001137c6b16] Switched to APIC driver x2apic_mixed", &m),
		CON_GENAPIC);
	assert_string_equal(m.arg, "x2apic_mixed");
	assert_int_equal(console_parse_line(
		"(XEN) [    0.123456] Switched to APIC driver x2apic_cluster.\r", &m),
		CON_GENAPIC);
	assert_string_equal(m.arg, "x2apic_cluster");
	assert_int_equal(console_parse_line("(XEN) Using APIC driver default", &m),
			 CON_GENAPIC);
	assert_string_equal(m.arg, "default");
	/* A driver name must follow. */
	assert_int_equal(console_parse_line("(XEN) Switched to APIC driver ", &m), CON_NONE);
}

/* The firmware's hotplug slots decide whether Xen may take the ALL-BUT
 * shorthand: host_state records them from this line. */
static void test_smp_allowing(void **s)
{
	struct console_match m;

	(void)s;
	assert_int_equal(console_parse_line("(XEN) [    0.004000] SMP: Allowing 20 CPUs (4 hotplug CPUs)",
					    &m), CON_SMP_ALLOWING);
	assert_string_equal(m.arg, "4");
	assert_int_equal(console_parse_line("(XEN) SMP: Allowing 512 CPUs (0 hotplug CPUs)", &m),
			 CON_SMP_ALLOWING);
	assert_string_equal(m.arg, "0");
	assert_int_equal(console_parse_line("(XEN) SMP: Allowing many CPUs (4 hotplug CPUs)", &m),
			 CON_NONE);
	assert_int_equal(console_parse_line("(XEN) SMP: Allowing 20 CPUs (4", &m), CON_NONE);
	assert_int_equal(console_parse_line("(XEN) SMP: Allowing 20 CPUs (99999999 hotplug CPUs)",
					    &m), CON_NONE);
}

static void test_failures(void **s)
{
	struct console_match m;

	(void)s;
	assert_int_equal(console_parse_line("(XEN) [   12.5] Panic on CPU 0:", &m),
			 CON_XEN_PANIC);
	assert_int_equal(console_parse_line(
		"[    3.1] Kernel panic - not syncing: VFS: Unable to mount root", &m),
		CON_DOM0_CRASH);
	assert_int_equal(console_parse_line("(XEN) Hardware Dom0 crashed: rebooting", &m),
			 CON_DOM0_CRASH);
	assert_int_equal(console_parse_line(
		"(XEN) WARNING: x2APIC cluster mode is not supported without interrupt remapping - forcing mixed mode",
		&m), CON_X2APIC_WARNING);
}

static void test_agent_lines(void **s)
{
	struct console_match m;

	(void)s;
	assert_int_equal(console_parse_line("ipibench: dom0 up", &m), CON_DOM0_UP);
	assert_int_equal(console_parse_line("ipibench: agent done rc=3\r", &m), CON_AGENT_DONE);
	assert_string_equal(m.arg, "3");
	assert_int_equal(console_parse_line("ipibench: workload flush done\r", &m),
			 CON_AGENT_PROGRESS);
	assert_string_equal(m.arg, "workload flush done");
	assert_int_equal(console_parse_line("(XEN) Intel VT-d Interrupt Remapping enabled.", &m),
			 CON_INTREMAP);
	assert_int_equal(console_parse_line("random dom0 chatter", &m), CON_NONE);
	assert_string_equal(console_strip_prefix("(XEN) [  1.0] Xen version 4.17"),
			    "Xen version 4.17");
}

/* The head of IOMMU 0's part of a VT-d dump, up to its first entry. */
#define IOMMU0_DUMP_HEAD \
	"(XEN) [    9.000000] iommu 0: nr_pt_levels = 4.\n" \
	"(XEN) [    9.000000]   Interrupt Remapping: supported and enabled.\n" \
	"(XEN) [    9.000000]   Interrupt remapping table (nr_entry=0x10000. Only dump P=1 entries here):\n" \
	"(XEN) [    9.000000] R means remapped format, P means posted format.\n" \
	"(XEN) [    9.000000] R:       SVT  SQ   SID  V  AVL FPD      DST DLM TM RH DM P\n" \
	"(XEN) [    9.000000] P:       SVT  SQ   SID  V  AVL FPD              PDA  URG P\n"

/* The device's IRTE from Xen's VT-d dump ('V'), the last dump winning
 * (lines in the exact format of vtd_dump_iommu_info()). */
static void test_find_irte(void **s)
{
	static const char two_dumps[] =
		IOMMU0_DUMP_HEAD
		"(XEN) [    9.000000] R:  0000:  1   0  f0ff 38    0   0 00000000   1  0  0  1 1\n"
		"(XEN) [    9.000000] R:  0018:  1   0  0018 41    0   0 00000002   0  0  0  0 1\n"
		IOMMU0_DUMP_HEAD
		"(XEN) [    9.000000] R:  0018:  1   0  0018 29    0   0 00010020   1  0  0  1 1\n"
		"(XEN) [    9.000000] \n";
	static const char other_iommu[] =
		IOMMU0_DUMP_HEAD
		"(XEN) [    9.000000] R:  0017:  1   0  0018 29    0   0 00000005   0  0  0  0 1\n"
		"(XEN) [    9.000000] iommu 1: nr_pt_levels = 4.\n"
		"(XEN) [    9.000000] R:  0018:  1   0  0018 29    0   0 00000005   0  0  0  0 1\n";
	struct console_irte e;

	(void)s;
	assert_int_equal(console_find_irte(two_dumps, 0x18, &e), 0);
	assert_int_equal(e.index, 0x18);
	assert_int_equal(e.dst, 0x00010020);   /* the second dump's entry */
	assert_int_equal(e.vector, 0x29);
	assert_int_equal(e.sid, 0x18);
	assert_int_equal(e.dm, 1);
	assert_int_equal(e.dlm, 1);
	assert_int_equal(console_find_irte(two_dumps, 0, &e), -1);  /* only in the first */
	/* The entry of another IOMMU's table is not this one's. */
	assert_int_equal(console_find_irte(other_iommu, 0x18, &e), -1);
	assert_int_equal(console_find_irte(other_iommu, 0x17, &e), 0);
	assert_int_equal(e.dst, 5);
	assert_int_equal(console_find_irte("(XEN) R:  0018:  1   0  0018 29    0   0 00000005   0  0  0  0 1\n",
					   0x18, &e), -1);            /* no dump header */
	assert_int_equal(console_find_irte("", 0, &e), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_genapic),
		cmocka_unit_test(test_smp_allowing),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_agent_lines),
		cmocka_unit_test(test_find_irte),
	};
	return cmocka_run_group_tests_name("lib: console", tests, NULL, NULL);
}
