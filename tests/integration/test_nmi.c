/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * NMIs with tracing on, in the middle of a run, on a debug build of the
 * series: one boot of 4 CPUs with Xen's trace buffers on from boot
 * (tbuf_size, every event class: the series' TRC_HW_APIC records at every
 * IPI send and receipt) runs five ipi_mask workloads (a few seconds in
 * all on an idle machine, each run far below the 60 s lifetime on a busy
 * one), while QEMU's monitor
 * injects an NMI into every CPU (QMP inject-nmi) every 250 ms from the
 * moment the agent starts (tests/integration/data/qemu-nmi.sh).  An NMI
 * that lands while its CPU is inside the trace path must find nothing it
 * waits for there: the NMI path sends no traced IPI.  Xen is booted with
 * nmi=dom0 (a release build's default; a debug build's default, fatal,
 * panics on any unexplained NMI by design).
 * The host must survive (no panic, no lock-check failure, the agent done)
 * and every run end as documented: finished, status ok.
 *
 * The build booted is ITEST_XEN, by default make hv-debug's of 4.17
 * (build/xen-4.17-debug/xen), in make test-slow; `make nmi/4.20 nmi/staging`
 * run it on those lines' debug builds (scripts/versions.mk).  Its xen.config must say
 * CONFIG_DEBUG.
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

#define OUT "build/itest/nmi"
#define COUNT "build/itest/nmi.count"
#define DEFAULT_XEN "build/xen-4.17-debug/xen"

static void test_nmi_during_traced_run(void **s)
{
	struct cmd_out o;
	json_error_t je;
	json_t *a, *w;
	int injected = 0;
	size_t i;
	FILE *f;

	(void)s;
	if (!itest_xen() && setenv("ITEST_XEN", DEFAULT_XEN, 1))
		fail_msg("setenv");
	if (!itest_xen_config_has("CONFIG_DEBUG=y"))
		fail_msg("ITEST_XEN=%s: not a debug build (its xen.config lacks CONFIG_DEBUG=y)",
			 itest_xen() ?: "");
	system("rm -rf " OUT " " COUNT " " COUNT ".sock");
	if (setenv("NMI_CONSOLE", OUT "/console.log", 1) || setenv("NMI_COUNT", COUNT, 1))
		fail_msg("setenv");
	itest_run(&o, (const char *[]){ "boot", "--mode", "physical", "--cpus", "4",
					 "--cmdline", "tbuf_size=256 nmi=dom0", "--timeout", "600",
					 "--qemu", "tests/integration/data/qemu-nmi.sh",
					 "--job", "tests/integration/data/nmi-job.json",
					 "--output", OUT, NULL });
	assert_int_equal(itest_qemu_alive(o.pid), 0);
	f = fopen(COUNT, "r");
	if (!f || fscanf(f, "%d", &injected) != 1)
		injected = 0;
	if (f)
		fclose(f);
	print_message("nmi: %d NMIs injected; console: %d xentrace initialised, %d Panic, "
		      "%d CHECKLOCK, %d unknown-NMI reports, %d agent done\n", injected,
		      itest_count_in(OUT "/console.log", "xentrace: initialised"),
		      itest_count_in(OUT "/console.log", "Panic on CPU"),
		      itest_count_in(OUT "/console.log", "CHECKLOCK"),
		      itest_count_in(OUT "/console.log", "NMI received"),
		      itest_count_in(OUT "/console.log", "ipibench: agent done"));
	assert_int_equal(itest_count_in(OUT "/console.log", "xentrace: initialised"), 1);
	assert_true(injected > 0);
	assert_int_equal(itest_count_in(OUT "/console.log", "Panic on CPU"), 0);
	assert_int_equal(itest_count_in(OUT "/console.log", "CHECKLOCK"), 0);
	assert_int_equal(itest_count_in(OUT "/console.log", "ipibench: agent done rc=0"), 1);
	a = json_load_file(OUT "/agent.json", 0, &je);
	if (!a)
		fail_msg("no agent.json (%s); ipibench boot said:\n%s", je.text, o.text);
	free(o.text);
	assert_int_equal(json_array_size(json_object_get(a, "workloads")), 5);
	json_array_foreach(json_object_get(a, "workloads"), i, w) {
		print_message("nmi: workload %s: %s %s\n", itest_str(w, "name"),
			      itest_str(w, "status"), itest_str(w, "error"));
		assert_string_equal(itest_str(w, "status"), "ok");
	}
	json_decref(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nmi_during_traced_run),
	};
	return cmocka_run_group_tests_name("integration: NMI with tracing on", tests, NULL, NULL);
}
