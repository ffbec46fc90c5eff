/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The benchmark vector when the high-priority vector pool is used up.  The
 * pool (0xf1-0xf8 on x86) is shared with the serial console, posted
 * interrupts, thermal and CMCI, and its allocator BUGs when it runs out, so
 * the series takes the benchmark vector only at the first run that needs
 * it, with an allocator that fails instead (try_alloc_hipriority_vector(),
 * -ENOSPC).  This boots a build whose one test-only change takes what is
 * left of the pool once every CPU is up (make hv-pool-taken:
 * tests/integration/data/take-hipriority-pool.patch on make hv's 4.17) and
 * runs, in one boot of 4 CPUs: an ipi_mask workload (it needs the vector:
 * refused with ENOSPC), a flush_tlb_all workload (it does not: ok), and the
 * ipi_mask again (ENOSPC again, nothing half set up by the first).  The host
 * must stay up and the agent finish.
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

#define OUT "build/itest/vector-pool"
#define DEFAULT_XEN "build/xen-pool-taken/xen"

/* AGENT's workload NAME (itest_workload()), or fail the test. */
static json_t *workload_named(json_t *agent, const char *name)
{
	json_t *w = itest_workload(agent, name);

	if (!w)
		fail_msg("agent.json has no workload %s", name);
	return w;
}

static void test_pool_used_up(void **s)
{
	const char *xen = getenv("ITEST_XEN") ? getenv("ITEST_XEN") : DEFAULT_XEN;
	const char *ipis[] = { "ipi-first", "ipi-again" };
	struct cmd_out o;
	json_error_t je;
	json_t *a, *w;
	size_t i;

	(void)s;
	if (system("rm -rf " OUT))
		fail_msg("rm -rf " OUT);
	itest_run(&o, (const char *[]){ "boot", "--mode", "physical", "--cpus", "4",
					 "--xen", xen, "--timeout", "600",
					 "--job", "tests/integration/data/pool-job.json",
					 "--output", OUT, NULL });
	assert_int_equal(itest_qemu_alive(o.pid), 0);
	print_message("vector-pool: console: %d pool taken, %d Panic, %d agent done\n",
		      itest_count_in(OUT "/console.log", "ipibench-test: took the"),
		      itest_count_in(OUT "/console.log", "Panic on CPU"),
		      itest_count_in(OUT "/console.log", "ipibench: agent done"));
	/* The build is the one with the test-only change, and it did its part. */
	assert_int_equal(itest_count_in(OUT "/console.log", "ipibench-test: took the"), 1);
	assert_int_equal(itest_count_in(OUT "/console.log", "Panic on CPU"), 0);
	assert_int_equal(itest_count_in(OUT "/console.log", "ipibench: agent done"), 1);
	a = json_load_file(OUT "/agent.json", 0, &je);
	if (!a)
		fail_msg("no agent.json (%s); ipibench boot said:\n%s", je.text, o.text);
	free(o.text);
	for (i = 0; i < 2; i++) {
		w = workload_named(a, ipis[i]);
		print_message("vector-pool: %s: %s %s\n", ipis[i], itest_str(w, "status"),
			      itest_str(w, "error"));
		assert_string_not_equal(itest_str(w, "status"), "ok");
		assert_non_null(strstr(itest_str(w, "error"), "ENOSPC"));
	}
	w = workload_named(a, "flush");
	print_message("vector-pool: flush: %s %s\n", itest_str(w, "status"), itest_str(w, "error"));
	assert_string_equal(itest_str(w, "status"), "ok");
	json_decref(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_used_up),
	};
	return cmocka_run_group_tests_name("integration: the benchmark vector with its pool used up",
					   tests, NULL, NULL);
}
