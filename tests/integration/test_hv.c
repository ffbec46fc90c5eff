/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The patched hypervisor's workloads at 40 CPUs (x2APIC clusters of 16, 16
 * and 8), all three modes in one `ipibench run`: the ICR writes each mode
 * implies, flush_tlb_all with per-iteration samples, loop timing (R loops
 * of N calls), paired physical/cluster send routines in one boot and their
 * ICR writes, vector capacity, where the test device's MSI bound to one
 * CPU is handled and that it went through the IOMMU's remapping table, and
 * the refusal of invalid requests with the host still working afterwards;
 * then an xAPIC boot without the test device, where the x2APIC send
 * routines and irq_delivery are refused with ENODEV.
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

#include "runner/xenbuild.h"
#include "tests/integration/itest.h"
#include "tests/unit/schema_keys.h"
#include "tests/unit/unit.h"

#define OUT "build/itest/hv40"

static json_t *results;
/* The modes of the build under test, in ipibench's order. */
static const char *modes[3];
static int nmodes;
static int has_cluster;
static struct xen_build xb;

static int setup(void **s)
{
	static const char *const all[] = { "physical", "cluster", "mixed" };
	char err[512], text[64];

	(void)s;
	/* The default as ipibench (build/bin/ipibench) takes it: build/xen/xen
	 * (resolve's own default is relative to this binary's folder). */
	if (xen_build_resolve(itest_xen() ?: "build/xen/xen", &xb, err, sizeof(err))) {
		fprintf(stderr, "test_hv: ITEST_XEN=%s: %s\n", itest_xen() ?: "", err);
		return -1;
	}
	for (int i = 0; i < 3; i++)
		if (xen_has_mode(xb.major, xb.minor, all[i]))
			modes[nmodes++] = all[i];
	has_cluster = xen_has_mode(xb.major, xb.minor, "cluster");
	fprintf(stderr, "test_hv: Xen %s (%s, series %s), modes %s\n",
		xb.version[0] ? xb.version : "of unknown version", xb.path, xb.series,
		xen_modes_text(xb.major, xb.minor, text, sizeof(text)));
	results = itest_run_config("tests/integration/data/hv-40cpu.ini", OUT, 0);
	return results ? 0 : -1;
}

static int teardown(void **s)
{
	(void)s;
	return itest_free_results(&results);
}

/* The results' run of MODE, its workload NAME (status ok), a counter. */
static json_t *run_of(const char *mode)
{
	return itest_need_run(results, mode);
}

static json_t *wl(const char *mode, const char *name)
{
	return itest_need_workload(run_of(mode), name);
}

static json_int_t counter(json_t *w, const char *key)
{
	return itest_int(json_object_get(w, "counters"), key);
}

static void test_runs_ok(void **s)
{
	(void)s;
	for (int m = 0; m < nmodes; m++) {
		json_t *r = itest_need_ok_run(results, modes[m]);
		/* 8 hotplug CPUs: Xen itself stays off the shorthand. */
		json_t *hv = json_object_get(wl(modes[m], "query"), "query");
		if (!hv)
			hv = json_object_get(r, "hv");
		assert_false(json_is_true(json_object_get(hv, "shorthand_eligible")));
	}
	/* The qemu backend's run lifetime, in force: Xen says so once. */
	for (int m = 0; m < nmodes; m++) {
		char con[256];

		snprintf(con, sizeof(con), OUT "/runs/%s-r0/console.log", modes[m]);
		assert_int_equal(itest_count_in(con, "ipibench: runs live at most 600 s"), 1);
	}
}

/* Every key of the run's results.json is in docs/results-schema.md (the
 * config and xc_physinfo, copies documented as a whole, apart). */
static void test_results_documented(void **s)
{
	static const char *const opaque[] = { "config", "physinfo", NULL };
	char *doc = tu_slurp("docs/results-schema.md");
	char miss[2048] = "";

	(void)s;
	assert_non_null(doc);
	tu_undocumented(results, doc, opaque, miss, sizeof(miss));
	free(doc);
	if (miss[0])
		fail_msg("not in docs/results-schema.md: %s", miss);
}

static void test_icr_writes(void **s)
{
	(void)s;
	for (int m = 0; m < nmodes; m++) {
		json_t *all = wl(modes[m], "allbut"), *three = wl(modes[m], "three");

		assert_string_equal(json_string_value(json_object_get(all, "path")), "genapic");
		/* 39 destinations: one write each in physical mode, one per
		 * cluster (16, 16, 8 CPUs) in cluster and mixed mode. */
		assert_int_equal(counter(all, "icr_writes") / counter(all, "operations"),
				 !strcmp(modes[m], "physical") ? 39 : 3);
		/* {1, 17, 33}: one CPU in each cluster, 3 writes in every mode. */
		assert_int_equal(counter(three, "icr_writes") / counter(three, "operations"), 3);
	}
}

static void test_flush(void **s)
{
	(void)s;
	for (int m = 0; m < nmodes; m++) {
		json_t *f = wl(modes[m], "flush");
		json_t *ns = json_object_get(json_object_get(f, "samples"), "ns");

		assert_int_equal(json_array_size(ns), 1000);
		assert_true(json_integer_value(json_array_get(ns, 0)) > 0);
		assert_int_equal(counter(f, "operations"), 1000);
	}
}

/*
 * Every loop of w: calls = N, ns and cycles > 0, chunks >= 1 and at most
 * N + 50: a chunk completes a call, or waits at least 20 ms for one still
 * in flight (carried into the next chunk), which the run's 1 s budget for a
 * lost call bounds to 50 such chunks.
 */
static json_t *check_loops(json_t *w, json_int_t n, size_t nloops)
{
	json_t *loops = json_object_get(w, "loops"), *l;
	size_t i;

	assert_string_equal(json_string_value(json_object_get(w, "timing")), "loop");
	assert_non_null(loops);
	assert_int_equal(json_array_size(loops), nloops);
	json_array_foreach(loops, i, l) {
		assert_int_equal(itest_int(l, "calls"), n);
		assert_true(itest_int(l, "chunks") >= 1 && itest_int(l, "chunks") <= n + 50);
		assert_true(itest_int(l, "ns") > 0);
		assert_true(itest_int(l, "cycles") > 0);
		assert_non_null(json_string_value(json_object_get(l, "sender")));
	}
	/* Loop timing keeps no per-call samples. */
	assert_int_equal(json_array_size(json_object_get(json_object_get(w, "samples"), "ns")), 0);
	return loops;
}

static void test_loop_timing(void **s)
{
	(void)s;
	for (int m = 0; m < nmodes; m++) {
		json_t *f = wl(modes[m], "flush-loop"), *ipi = wl(modes[m], "ipi-loop"), *l;
		size_t i;

		json_array_foreach(check_loops(f, 10, 3), i, l)
			assert_string_equal(json_string_value(json_object_get(l, "sender")), "genapic");
		check_loops(ipi, 10, 3);
		assert_int_equal(counter(f, "operations"), 30);
		assert_int_equal(counter(ipi, "operations"), 30);
		/* The genapic of the mode: 39 writes per IPI physical, 3 otherwise. */
		assert_int_equal(counter(ipi, "icr_writes") / 30,
				 !strcmp(modes[m], "physical") ? 39 : 3);
		print_message("%s: 3 loops of 10 IPIs: %lld, %lld, %lld ns\n", modes[m],
			      (long long)itest_int(json_array_get(json_object_get(ipi, "loops"), 0), "ns"),
			      (long long)itest_int(json_array_get(json_object_get(ipi, "loops"), 1), "ns"),
			      (long long)itest_int(json_array_get(json_object_get(ipi, "loops"), 2), "ns"));
	}
}

static json_int_t by_sender(json_t *w, const char *sender, const char *key)
{
	json_t *b = json_object_get(json_object_get(w, "counters_by_sender"), sender);

	if (!b)
		fail_msg("%s: no counters for sender %s",
			 json_string_value(json_object_get(w, "name")), sender);
	return itest_int(b, key);
}

/* R pairs: each pair index once per arm, arm 0 = senders[0]. */
static void check_pairs(json_t *w, const char *a, const char *b, size_t pairs)
{
	json_t *loops = check_loops(w, itest_int(json_array_get(json_object_get(w, "loops"), 0),
					     "calls"), 2 * pairs), *l;
	int seen[16][2] = { { 0 } }, first_b = 0;
	size_t i;

	assert_true(pairs <= 16);
	json_array_foreach(loops, i, l) {
		json_int_t p = itest_int(l, "pair"), arm = itest_int(l, "arm");
		const char *sender = json_string_value(json_object_get(l, "sender"));

		assert_true(p >= 0 && (size_t)p < pairs && (arm == 0 || arm == 1));
		/* The loops of a pair are adjacent. */
		assert_int_equal(p, (json_int_t)(i / 2));
		assert_string_equal(sender, arm == 0 ? a : b);
		seen[p][arm]++;
		if (i % 2 == 0 && arm == 1)
			first_b++;
	}
	for (size_t p = 0; p < pairs; p++)
		assert_true(seen[p][0] == 1 && seen[p][1] == 1);
	print_message("%s: %zu pairs, B first in %d\n",
		      json_string_value(json_object_get(w, "name")), pairs, first_b);
}

static void test_paired_senders(void **s)
{
	(void)s;
	for (int m = 0; m < nmodes; m++) {
		json_t *p = wl(modes[m], "pair"), *aa = wl(modes[m], "aa");

		check_pairs(p, "physical", "cluster", 3);
		check_pairs(aa, "cluster", "cluster", 2);
		/* Whatever the mode: the physical routine writes the ICR once
		 * per destination (39), the cluster one once per cluster (3). */
		assert_int_equal(by_sender(p, "physical", "operations"), 24);
		assert_int_equal(by_sender(p, "physical", "icr_writes") / 24, 39);
		assert_int_equal(by_sender(p, "cluster", "operations"), 24);
		assert_int_equal(by_sender(p, "cluster", "icr_writes") / 24, 3);
		assert_int_equal(by_sender(aa, "cluster", "runs"), 4);
		assert_int_equal(by_sender(aa, "cluster", "icr_writes") / 20, 3);
		/* A chosen routine takes the genapic path, never the shorthand. */
		assert_string_equal(json_string_value(json_object_get(p, "path")), "genapic");
	}
}

static void test_single_sender(void **s)
{
	(void)s;
	for (int m = 0; m < nmodes; m++) {
		json_t *ph = wl(modes[m], "via-physical"), *cl = wl(modes[m], "via-cluster");

		check_loops(ph, 10, 1);
		check_loops(cl, 10, 1);
		assert_string_equal(json_string_value(json_object_get(
			json_array_get(json_object_get(ph, "loops"), 0), "sender")), "physical");
		assert_string_equal(json_string_value(json_object_get(
			json_array_get(json_object_get(cl, "loops"), 0), "sender")), "cluster");
		assert_int_equal(by_sender(ph, "physical", "icr_writes"), 390);
		assert_int_equal(by_sender(cl, "cluster", "icr_writes"), 30);
	}
}

/*
 * xAPIC (x2apic=false): no x2APIC send routine to choose, ENODEV; loop
 * timing itself still works.
 */
static void test_xapic_refuses_senders(void **s)
{
	struct cmd_out o;
	json_error_t je;
	json_t *a, *w;
	size_t i;
	int refusals = 0, refused = 0, loop = 0, nodev = 0;

	(void)s;
	system("rm -rf " OUT "-xapic");
	/* Xen stays off x2APIC, so the mode check fails: the agent's results
	 * are what this test reads.  The same boot gives the idle timeout and
	 * the run lifetime values out of range (after the backend's own): Xen
	 * says so and keeps its defaults, 5 s and 60 s. */
	itest_run(&o, (const char *[]){ "boot", "--mode", "physical", "--cpus", "4",
					 "--cmdline",
					 "x2apic=false ipibench-idle-timeout=601 ipibench-run-lifetime=0",
					 "--no-test-device",
					 "--job", "tests/integration/data/xapic-job.json",
					 "--output", OUT "-xapic", NULL });
	assert_int_equal(itest_qemu_alive(o.pid), 0);
	free(o.text);
	a = json_load_file(OUT "-xapic/agent.json", 0, &je);
	assert_non_null(a);
	assert_string_not_equal(json_string_value(json_object_get(a, "genapic")), "x2apic_phys");
	json_array_foreach(json_object_get(a, "workloads"), i, w) {
		const char *name = json_string_value(json_object_get(w, "name"));
		json_t *c;
		size_t k;

		if (!strcmp(name, "refusals")) {
			assert_string_equal(json_string_value(json_object_get(w, "status")), "ok");
			json_array_foreach(json_object_get(w, "cases"), k, c) {
				if (!json_is_true(json_object_get(c, "ok")))
					fail_msg("xAPIC: %s: expected %s, got %s",
						 json_string_value(json_object_get(c, "name")),
						 json_string_value(json_object_get(c, "expected")),
						 json_string_value(json_object_get(c, "got")));
				if (strstr(json_string_value(json_object_get(c, "name")),
					   "_without_x2apic"))
					refusals++;
			}
		} else if (!strcmp(name, "via-cluster")) {
			assert_string_equal(json_string_value(json_object_get(w, "status")), "failed");
			assert_string_equal(json_string_value(json_object_get(
				json_object_get(w, "refused"), "name")), "ENODEV");
			refused = 1;
		} else if (!strcmp(name, "loop")) {
			assert_string_equal(json_string_value(json_object_get(w, "status")), "ok");
			check_loops(w, 5, 2);
			loop = 1;
		} else if (!strcmp(name, "no-device")) {
			/* Booted without the test device: refused, and said why. */
			assert_string_equal(json_string_value(json_object_get(w, "status")), "failed");
			assert_string_equal(json_string_value(json_object_get(
				json_object_get(w, "refused"), "name")), "ENODEV");
			assert_non_null(strstr(json_string_value(json_object_get(w, "error")),
					       "irq_delivery: the hypervisor has no test device"));
			nodev = 1;
		}
	}
	assert_int_equal(refusals, 2);
	assert_true(refused && loop && nodev);
	/* The query says there is none. */
	assert_true(json_is_null(json_object_get(json_object_get(a, "hv"), "test_device")));
	assert_int_equal(itest_int(json_object_get(a, "hv"), "idle_timeout_ms"), 5000);
	assert_int_equal(itest_count_in(OUT "-xapic/console.log",
					"ipibench: ipibench-idle-timeout=601 out of 1..600, using 5"), 1);
	assert_int_equal(itest_count_in(OUT "-xapic/console.log",
					"ipibench: ipibench-run-lifetime=0 out of 1..3600, using 60"), 1);
	assert_int_equal(itest_count_in(OUT "-xapic/console.log", "runs live at most"), 0);
	json_decref(a);
}

/*
 * Physical and mixed mode give each CPU its own vectors for external
 * interrupts (the same count); cluster mode shares them across a cluster
 * of 16, so it has at most a tenth.  A build without cluster mode (4.20+)
 * checks the first part only, and says so.
 */
static void test_vector_capacity(void **s)
{
	json_int_t phys, mixed;

	(void)s;
	phys = counter(wl("physical", "vectors"), "vectors");
	mixed = counter(wl("mixed", "vectors"), "vectors");
	print_message("vector capacity: physical %lld, mixed %lld\n",
		      (long long)phys, (long long)mixed);
	assert_true(phys > 0);
	assert_int_equal(mixed, phys);
	if (has_cluster) {
		json_int_t cluster = counter(wl("cluster", "vectors"), "vectors");

		print_message("vector capacity: cluster %lld\n", (long long)cluster);
		assert_true(cluster > 0);
		assert_true(phys >= 10 * cluster);
	} else {
		print_message("vector capacity: no cluster mode in this Xen, "
			      "physical against cluster not applicable\n");
	}
}

/* Every one of N interrupts on CPU 'cpu', by the samples and by Xen's count. */
static void check_all_on(const char *mode, const char *name, int cpu, json_int_t n)
{
	json_t *w = wl(mode, name), *cnt = json_object_get(w, "counters");
	const char *keys[] = { "handled_per_cpu", "dev_irqs_per_cpu" };

	assert_string_equal(json_string_value(json_object_get(w, "delivery")), "msi-remapped");
	for (int k = 0; k < 2; k++) {
		json_t *h = json_object_get(cnt, keys[k]), *v;
		json_int_t total = 0, on = json_integer_value(json_array_get(h, (size_t)cpu));
		size_t i;

		assert_true(json_array_size(h) >= 40);
		json_array_foreach(h, i, v)
			total += json_integer_value(v);
		print_message("%s/%s: %s: %lld of %lld on CPU %d\n", mode, name, keys[k],
			      (long long)on, (long long)total, cpu);
		assert_int_equal(total, n);
		assert_int_equal(on, n);
	}
}

static void test_irq_bound_to_one_cpu(void **s)
{
	(void)s;
	for (int m = 0; m < nmodes; m++) {
		check_all_on(modes[m], "irq5", 5, 50);
		check_all_on(modes[m], "irq20", 20, 50);
	}
}

/*
 * The device's MSI went through the interrupt remapping table: what the
 * device sends is a VT-d remappable-format handle (address bit 4) naming
 * its IRTE, the same for both bindings, while the IRTE itself (Xen's 'V'
 * dump) holds the bound CPU as the mode addresses external interrupts:
 * its APIC ID (physical destination) or its x2APIC logical ID.
 */
static void test_irq_remapped(void **s)
{
	(void)s;
	for (int m = 0; m < nmodes; m++) {
		json_t *q = json_object_get(wl(modes[m], "query"), "query");

		if (!q)
			q = json_object_get(run_of(modes[m]), "hv");
		json_t *cpus = json_object_get(q, "cpus");
		/* External interrupts are addressed logically only by 4.17's
		 * cluster mode (lowest priority to the cluster). */
		int logical = !strcmp(itest_str(q, "genapic"), "x2apic_cluster");
		json_int_t addr0 = -1, irte0 = -1;
		const char *names[] = { "irq5", "irq20" };
		const int bound[] = { 5, 20 };

		assert_non_null(json_object_get(q, "test_device"));
		for (int k = 0; k < 2; k++) {
			json_t *w = wl(modes[m], names[k]);
			json_t *dev = json_object_get(w, "test_device");
			json_t *e = json_object_get(w, "irte");
			json_t *c = json_array_get(cpus, (size_t)bound[k]);
			json_int_t addr = json_integer_value(json_object_get(dev, "msi_address"));
			json_int_t irte = json_integer_value(json_object_get(dev, "irte"));
			json_int_t want = json_integer_value(json_object_get(c,
						logical ? "logical_id" : "apic_id"));

			assert_non_null(e);
			print_message("%s/%s: MSI address %#llx, IRTE %lld: dst %#llx (%s), "
				      "CPU %d's %s ID %#llx\n", modes[m], names[k],
				      (unsigned long long)addr, (long long)irte,
				      (unsigned long long)json_integer_value(json_object_get(e, "dst")),
				      json_string_value(json_object_get(e, "dm")), bound[k],
				      logical ? "logical" : "APIC", (unsigned long long)want);
			assert_true(irte >= 0);
			assert_int_equal(addr & 0xfff00000, 0xfee00000);
			assert_true(addr & 0x10);                       /* remappable format */
			assert_int_equal(((addr >> 5) & 0x7fff) | (((addr >> 2) & 1) << 15), irte);
			assert_int_equal(json_integer_value(json_object_get(e, "index")), irte);
			assert_int_equal(json_integer_value(json_object_get(e, "dst")), want);
			assert_string_equal(json_string_value(json_object_get(e, "dm")),
					    logical ? "logical" : "physical");
			assert_string_equal(json_string_value(json_object_get(e, "trigger")), "edge");
			if (k) {
				/* Rebinding rewrote the IRTE, not the device. */
				assert_int_equal(addr, addr0);
				assert_int_equal(irte, irte0);
			}
			addr0 = addr;
			irte0 = irte;
		}
	}
	/* The run says the emulator had it. */
	assert_true(json_is_true(json_object_get(json_object_get(results, "host"),
						 "test_device")));
}

/*
 * A build without cluster mode (4.20+): `ipibench boot --mode cluster` is
 * refused before QEMU starts, in one line naming the modes it has.  With
 * cluster mode (4.17), the mode check accepts it (the runs above booted it).
 */
static void test_cluster_mode_per_version(void **s)
{
	char err[512];
	struct cmd_out o;

	(void)s;
	if (has_cluster) {
		assert_int_equal(xen_build_mode_check(&xb, "cluster", err, sizeof(err)), 0);
		assert_non_null(run_of("cluster"));
		return;
	}
	assert_null(itest_run_of(results, "cluster"));
	itest_run(&o, (const char *[]){ "boot", "--mode", "cluster", "--cpus", "4",
					 "--output", OUT "-cluster", NULL });
	assert_int_equal(itest_qemu_alive(o.pid), 0);
	print_message("boot --mode cluster: exit %d: %s", o.status, o.text);
	assert_int_not_equal(o.status, 0);
	assert_non_null(strstr(o.text, "has no cluster mode"));
	assert_non_null(strstr(o.text, "its modes are physical, mixed"));
	assert_null(strstr(o.text, "qemu:"));
	free(o.text);
}

static void test_refusals(void **s)
{
	(void)s;
	for (int m = 0; m < nmodes; m++) {
		json_t *r = wl(modes[m], "refusals"), *c;
		size_t i;

		assert_true(json_array_size(json_object_get(r, "cases")) >= 10);
		json_array_foreach(json_object_get(r, "cases"), i, c)
			if (!json_is_true(json_object_get(c, "ok")))
				fail_msg("%s: %s: expected %s, got %s", modes[m],
					 json_string_value(json_object_get(c, "name")),
					 json_string_value(json_object_get(c, "expected")),
					 json_string_value(json_object_get(c, "got")));
		assert_true(json_is_true(json_object_get(r, "host_ok")));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_ok),
		cmocka_unit_test(test_results_documented),
		cmocka_unit_test(test_icr_writes),
		cmocka_unit_test(test_flush),
		cmocka_unit_test(test_loop_timing),
		cmocka_unit_test(test_paired_senders),
		cmocka_unit_test(test_single_sender),
		cmocka_unit_test(test_vector_capacity),
		cmocka_unit_test(test_irq_bound_to_one_cpu),
		cmocka_unit_test(test_irq_remapped),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_cluster_mode_per_version),
		cmocka_unit_test(test_xapic_refuses_senders),
	};
	return cmocka_run_group_tests_name("integration: hypervisor workloads at 40 CPUs",
					   tests, setup, teardown);
}
