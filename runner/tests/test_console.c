/* Console milestones: the lines Xen, dom0 and the agent really print. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runner/console.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_genapic),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_agent_lines),
	};
	return cmocka_run_group_tests_name("runner: console", tests, NULL, NULL);
}
