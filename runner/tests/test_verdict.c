/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The reason a run is recorded failed with, from its agent.json
 * (runner/verdict.h), with the real layout check of workloads/check.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "runner/verdict.h"
#include "workloads/check.h"

/* cmd_run.c's check on the run the agent's results make: hv and mode
 * copied in, no expected layout (the hypervisor's own IDs). */
struct ctx {
	json_t *run;
	int calls;
};

static void layout(void *p, char *why, size_t len)
{
	struct ctx *c = p;

	c->calls++;
	if (layout_check_run(c->run, NULL, NULL, why, len) == 0)
		why[0] = '\0';
}

static json_t *agent_of(const char *text)
{
	json_error_t e;
	json_t *a = json_loads(text, 0, &e);

	assert_non_null(a);
	return a;
}

/* WHY for AGENT in MODE, with the run cmd_run.c builds from it. */
static int verdict(const char *text, const char *mode, char *why, size_t len)
{
	json_t *a = agent_of(text);
	struct ctx c = { json_pack("{s:s}", "mode", mode), 0 };

	if (json_object_get(a, "hv"))
		json_object_set(c.run, "hv", json_object_get(a, "hv"));
	run_verdict(a, mode, layout, &c, why, len);
	json_decref(c.run);
	json_decref(a);
	return c.calls;
}

/* Debian's unpatched Xen, booted by GRUB's default entry (the one-shot
 * entry's Xen panicked, or backend = local on the stock entry): the agent
 * has no hv, only its hv_error; the layout check fails for want of hv, and
 * the reason is the agent's line, not the layout's. */
static void test_stock_xen(void **s)
{
	char why[600];

	(void)s;
	assert_int_equal(verdict("{\"genapic\": \"x2apic_mixed\", "
				 "\"hv_error\": \"the hypervisor has no XEN_SYSCTL_ipibench (Xen 4.17.5-pre, stock?)\", "
				 "\"workloads\": [{\"name\": \"flush\", \"status\": \"failed\", "
				 "\"error\": \"XEN_SYSCTL_ipibench: Operation not supported\"}]}",
				 "mixed", why, sizeof(why)), 1);
	assert_string_equal(why, "agent: the hypervisor has no XEN_SYSCTL_ipibench (Xen 4.17.5-pre, stock?)");
}

/* Without an hv_error the layout's own reason stays. */
static void test_layout(void **s)
{
	char why[600];

	(void)s;
	assert_int_equal(verdict("{\"genapic\": \"x2apic_phys\", \"workloads\": []}", "physical",
				 why, sizeof(why)), 1);
	assert_string_equal(why, "layout: the run has no hypervisor query (hv) or mode");
}

/* The driver first: the layout is not checked when it is another mode's,
 * and hv.genapic wins over the agent's log-read genapic. */
static void test_mode(void **s)
{
	char why[600];

	(void)s;
	assert_int_equal(verdict("{\"genapic\": \"x2apic_phys\", \"hv_error\": \"x\"}", "mixed",
				 why, sizeof(why)), 0);
	assert_string_equal(why, "asked for mixed mode but the hypervisor reports x2apic_phys");
	assert_int_equal(verdict("{\"workloads\": []}", "cluster", why, sizeof(why)), 0);
	assert_string_equal(why, "asked for cluster mode but the hypervisor reports no APIC driver");
	assert_int_equal(verdict("{\"genapic\": \"x2apic_mixed\", \"hv\": {\"genapic\": \"x2apic_phys\"}}",
				 "mixed", why, sizeof(why)), 0);
	assert_string_equal(why, "asked for mixed mode but the hypervisor reports x2apic_phys");
}

static void test_agent_and_workloads(void **s)
{
	char why[600];
	json_t *a;

	(void)s;
	/* A layout that holds (a stub: workloads/check.c has its own tests). */
	a = agent_of("{\"genapic\": \"x2apic_phys\", \"error\": \"boot: no dom0 console\", "
		     "\"workloads\": [{\"name\": \"w\", \"status\": \"failed\"}]}");
	run_verdict(a, "physical", NULL, NULL, why, sizeof(why));
	assert_string_equal(why, "agent: boot: no dom0 console");
	json_decref(a);
	a = agent_of("{\"genapic\": \"x2apic_phys\", \"workloads\": [{\"name\": \"a\", \"status\": \"ok\"}, "
		     "{\"name\": \"b\", \"status\": \"failed\"}, "
		     "{\"name\": \"c\", \"status\": \"failed\", \"error\": \"timeout\"}]}");
	run_verdict(a, "physical", NULL, NULL, why, sizeof(why));
	assert_string_equal(why, "workload b: failed");
	json_decref(a);
	a = agent_of("{\"genapic\": \"x2apic_phys\", \"workloads\": [{\"name\": \"a\", \"status\": \"ok\"}]}");
	strcpy(why, "stale");
	run_verdict(a, "physical", NULL, NULL, why, sizeof(why));
	assert_string_equal(why, "");
	json_decref(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stock_xen),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_mode),
		cmocka_unit_test(test_agent_and_workloads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
