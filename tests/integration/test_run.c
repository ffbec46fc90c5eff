/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `ipibench run` end to end on the smoke config: an invalid config is
 * refused with file:line before anything runs; a matrix killed between
 * modes is finished by --resume with the earlier runs untouched; the
 * results carry the genapic each mode must give and the ICR writes it
 * implies; `ipibench report` turns them into tables and plots.
 */
#include <setjmp.h>
#include <signal.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
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
#include <jansson.h>

#include "tests/integration/itest.h"

#define DIR_ "build/itest/run"
#define SMOKE DIR_ "/smoke"

static void test_invalid_config(void **s)
{
	struct cmd_out o;
	FILE *f;
	struct stat st;

	(void)s;
	system("rm -rf " DIR_ "/bad && mkdir -p " DIR_);
	f = fopen(DIR_ "/bad.ini", "w");
	assert_non_null(f);
	fputs("[host]\ncpus = 16\nmemory = plenty\n[matrix]\nmodes = mixed\n"
	      "[workload:f]\ntype = flush_tlb_all\n", f);
	fclose(f);
	itest_run(&o, (const char *[]){ "run", "-c", DIR_ "/bad.ini", "-o", DIR_ "/bad", NULL });
	assert_int_equal(o.status, 2);
	assert_non_null(strstr(o.text, DIR_ "/bad.ini:3: memory = 'plenty'"));
	assert_int_not_equal(stat(DIR_ "/bad", &st), 0);   /* nothing ran */
	free(o.text);
}

static json_t *load_results(void)
{
	json_error_t je;
	return json_load_file(SMOKE "/results.json", 0, &je);
}

static const char *run_status(json_t *res, size_t i)
{
	return json_string_value(json_object_get(
		json_array_get(json_object_get(res, "runs"), i), "status"));
}

static void test_kill_and_resume(void **s)
{
	json_t *res, *first;
	struct cmd_out o;
	int pid, st;
	time_t t0 = time(NULL);

	(void)s;
	system("rm -rf " SMOKE " && mkdir -p " DIR_);
	pid = itest_spawn((const char *[]){ "run", "-c", "configs/smoke.ini", "-o", SMOKE, NULL },
			  DIR_ "/first.log");
	/* Wait for the first run to be complete, then kill between modes. */
	for (;;) {
		res = load_results();
		if (res && !strcmp(run_status(res, 0) ?: "", "ok"))
			break;
		if (res && !strcmp(run_status(res, 0) ?: "", "failed"))
			fail_msg("first run failed: %s", json_string_value(json_object_get(
				json_array_get(json_object_get(res, "runs"), 0), "error")));
		json_decref(res);
		if (waitpid(pid, &st, WNOHANG) == pid)
			fail_msg("ipibench run exited early; see " DIR_ "/first.log");
		if (time(NULL) - t0 > 900) {
			kill(pid, SIGKILL);
			fail_msg("first run not done after 900 s");
		}
		sleep(2);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	sleep(1);
	assert_int_equal(itest_qemu_alive(pid), 0);
	first = json_deep_copy(json_array_get(json_object_get(res, "runs"), 0));
	json_decref(res);

	itest_run(&o, (const char *[]){ "run", "--resume", SMOKE, NULL });
	assert_int_equal(o.status, 0);
	assert_int_equal(itest_qemu_alive(o.pid), 0);
	free(o.text);

	res = load_results();
	assert_non_null(res);
	assert_int_equal(json_integer_value(json_object_get(res, "schema_version")), 1);
	json_t *runs = json_object_get(res, "runs");
	assert_int_equal(json_array_size(runs), 3);
	/* The run finished before the kill is exactly as it was. */
	assert_true(json_equal(json_array_get(runs, 0), first));
	json_decref(first);

	size_t i;
	json_t *run;
	json_array_foreach(runs, i, run) {
		const char *mode = json_string_value(json_object_get(run, "mode"));
		const char *genapic = json_string_value(json_object_get(run, "genapic"));
		json_t *flush = itest_workload(run, "flush"), *ipi = itest_workload(run, "ipi-allbut");

		assert_string_equal(json_string_value(json_object_get(run, "status")), "ok");
		assert_string_equal(genapic, !strcmp(mode, "physical") ? "x2apic_phys" :
				    !strcmp(mode, "cluster") ? "x2apic_cluster" : "x2apic_mixed");
		/* Each boot's host state, as its agent saw it (the report compares them). */
		assert_true(json_is_object(json_object_get(run, "host_state")));
		assert_true(json_is_boolean(json_object_get(json_object_get(run, "host_state"), "smt")));
		assert_non_null(flush);
		/* Loop timing: 5 loops of 40 calls, each timed as a whole. */
		json_t *loops = json_object_get(flush, "loops"), *l;
		size_t k;
		assert_int_equal(json_array_size(loops), 5);
		json_array_foreach(loops, k, l) {
			assert_int_equal(json_integer_value(json_object_get(l, "calls")), 40);
			assert_true(json_integer_value(json_object_get(l, "chunks")) >= 1);
			assert_true(json_integer_value(json_object_get(l, "ns")) > 0);
		}
		/* Paired routines and the A/A control: 4 pairs, 8 loops each. */
		const char *paired[] = { "flush-senders", "flush-aa" };
		for (int p = 0; p < 2; p++) {
			json_t *pw = itest_workload(run, paired[p]);
			assert_non_null(pw);
			assert_string_equal(json_string_value(json_object_get(pw, "status")), "ok");
			assert_int_equal(json_array_size(json_object_get(pw, "loops")), 8);
		}

		/* 15 destinations in one x2APIC cluster: one ICR write per CPU in
		 * physical mode, one per cluster in cluster and mixed mode. */
		assert_non_null(ipi);
		/* Per-call sampling: one sample per call. */
		assert_int_equal(json_array_size(json_object_get(json_object_get(ipi, "samples"), "ns")), 200);
		json_t *c = json_object_get(ipi, "counters");
		json_int_t ops = json_integer_value(json_object_get(c, "operations"));
		json_int_t icr = json_integer_value(json_object_get(c, "icr_writes"));
		assert_int_equal(ops, 200);
		assert_int_equal(icr / ops, !strcmp(mode, "physical") ? 15 : 1);

		/* Real device interrupts: every O_DIRECT read completed with one,
		 * counted from Xen's TRC_HW_IRQ_HANDLED, and the trace is kept. */
		json_t *disk = itest_workload(run, "disk");
		assert_non_null(disk);
		json_t *dc = json_object_get(disk, "counters");
		assert_true(json_integer_value(json_object_get(dc, "irqs")) >= 300);
		assert_int_equal(json_array_size(json_object_get(dc, "irqs_per_cpu")), 16);
		char tp[512];
		snprintf(tp, sizeof(tp), SMOKE "/%s", json_string_value(json_object_get(disk, "trace")));
		struct stat tst;
		assert_int_equal(stat(tp, &tst), 0);
	}
	json_decref(res);
}

/*
 * The trace recorded during a flush in each mode shows, through `ipibench
 * trace ipi`, the ICR writes per IPI the mode implies: 15 destinations,
 * 15 writes in physical mode, 1 in cluster and mixed mode.
 */
static void test_trace_ipi(void **s)
{
	json_t *res = load_results(), *run;
	size_t i;

	(void)s;
	assert_non_null(res);
	json_array_foreach(json_object_get(res, "runs"), i, run) {
		const char *mode = json_string_value(json_object_get(run, "mode"));
		json_t *w = itest_workload(run, "flush-traced"), *g;
		char path[512];
		struct cmd_out o;
		json_error_t je;
		size_t k;
		int seen = 0;

		assert_non_null(w);
		assert_int_equal(json_integer_value(json_object_get(
			json_object_get(w, "trace_stats"), "lost_records")), 0);
		snprintf(path, sizeof(path), SMOKE "/%s", json_string_value(json_object_get(w, "trace")));
		itest_run(&o, (const char *[]){ "trace", "ipi", "--json", path, NULL });
		assert_int_equal(o.status, 0);
		json_t *j = json_loads(strchr(o.text, '{'), 0, &je);
		assert_non_null(j);
		json_array_foreach(json_object_get(json_array_get(json_object_get(j, "files"), 0),
						   "groups"), k, g) {
			if (json_integer_value(json_object_get(g, "destinations")) != 15)
				continue;
			seen += (int)json_integer_value(json_object_get(g, "operations"));
			assert_string_equal(json_string_value(json_object_get(g, "mode")),
					    !strcmp(mode, "physical") ? "physical" : "logical");
			assert_true(json_number_value(json_object_get(g, "icr_writes_per_op")) ==
				    (!strcmp(mode, "physical") ? 15.0 : 1.0));
		}
		assert_true(seen >= 50);
		json_decref(j);
		free(o.text);
	}
	json_decref(res);
}

static void test_report(void **s)
{
	struct cmd_out o;
	struct stat st;

	(void)s;
	itest_run(&o, (const char *[]){ "report", SMOKE, "-o", SMOKE "/report", NULL });
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.text, "physical"));
	assert_int_equal(stat(SMOKE "/report/report.md", &st), 0);
	assert_int_equal(stat(SMOKE "/report/report.json", &st), 0);
	free(o.text);

	/*
	 * The paired comparisons inside one boot (configs/smoke.ini): physical
	 * against cluster routine, and the A/A control cluster against cluster,
	 * each boot's reported with its half-width.  An A/A block is proven
	 * different by chance in 5% of boots (the test's level): with three
	 * boots at most one may be; more would mean the design is biased (e.g.
	 * the first loop of a pair systematically slower).
	 */
	json_error_t je;
	json_t *rep = json_load_file(SMOKE "/report/report.json", 0, &je), *w;
	size_t i, nsend = 0, naa = 0, aa_proven = 0;
	assert_non_null(rep);
	json_array_foreach(json_object_get(rep, "workloads"), i, w) {
		const char *name = json_string_value(json_object_get(w, "workload"));
		json_t *p;
		size_t k;
		bool aa = !strcmp(name, "flush-aa");

		if (!aa && strcmp(name, "flush-senders"))
			continue;
		json_array_foreach(json_object_get(w, "paired"), k, p) {
			json_t *d = json_object_get(p, "paired");
			assert_string_equal(json_string_value(json_object_get(p, "label")),
					    "IPI send routine, one boot");
			assert_int_equal(json_is_true(json_object_get(p, "a_a")), aa);
			assert_int_equal(json_integer_value(json_object_get(p, "pairs")), 4);
			assert_true(json_real_value(json_object_get(d, "half_width")) > 0);
			if (aa) {
				naa++;
				aa_proven += json_is_true(json_object_get(d, "proven"));
			} else {
				nsend++;
			}
		}
	}
	assert_int_equal(nsend, 3);	/* one per boot: physical, cluster, mixed */
	assert_int_equal(naa, 3);
	assert_true(aa_proven <= 1);
	json_decref(rep);
	char md[1 << 16];
	FILE *f = fopen(SMOKE "/report/report.md", "r");
	assert_non_null(f);
	md[fread(md, 1, sizeof(md) - 1, f)] = '\0';
	fclose(f);
	assert_non_null(strstr(md, "**A/A control**"));
	assert_non_null(strstr(md, "No difference proven at 95.0% confidence"));
}

/* Mean of a run's loops in ns per call (the report's per-boot value). */
static double boot_mean(json_t *run, const char *wl)
{
	json_t *l;
	size_t i;
	double sum = 0;

	json_array_foreach(json_object_get(itest_workload(run, wl), "loops"), i, l)
		sum += (double)json_integer_value(json_object_get(l, "ns")) /
		       (double)json_integer_value(json_object_get(l, "calls"));
	assert_int_equal(i, 3);		/* runs = 3 */
	return sum / (double)i;
}

/*
 * With two boots per mode the comparison between modes takes the boot as
 * its unit: each mode's row is N = 2 per-boot means, so its spread, and the
 * half-width of the difference, are the variance between boots, recomputed
 * here from results.json.
 */
static void test_boots_unit(void **s)
{
	struct cmd_out o;
	json_error_t je;
	json_t *res, *rep, *run, *w, *row, *cmp = NULL;
	size_t i;
	double m[2][2];
	int nm[2] = { 0, 0 };

	(void)s;
	system("rm -rf " DIR_ "/boots");
	itest_run(&o, (const char *[]){ "run", "-c", "tests/integration/data/boots-small.ini",
					 "-o", DIR_ "/boots", NULL });
	assert_int_equal(o.status, 0);
	free(o.text);
	res = json_load_file(DIR_ "/boots/results.json", 0, &je);
	assert_non_null(res);
	json_array_foreach(json_object_get(res, "runs"), i, run) {
		int k = strcmp(json_string_value(json_object_get(run, "mode")), "physical") ? 1 : 0;
		assert_true(nm[k] < 2);
		m[k][nm[k]++] = boot_mean(run, "flush");
	}
	assert_int_equal(nm[0], 2);
	assert_int_equal(nm[1], 2);
	json_decref(res);

	itest_run(&o, (const char *[]){ "report", DIR_ "/boots", "-o", DIR_ "/boots/report", NULL });
	assert_int_equal(o.status, 0);
	free(o.text);
	rep = json_load_file(DIR_ "/boots/report/report.json", 0, &je);
	assert_non_null(rep);
	json_array_foreach(json_object_get(rep, "workloads"), i, w)
		if (!strcmp(json_string_value(json_object_get(w, "workload")), "flush"))
			cmp = json_object_get(w, "comparison");
	assert_non_null(cmp);
	assert_string_equal(json_string_value(json_object_get(cmp, "unit")), "boots");
	json_array_foreach(json_object_get(cmp, "rows"), i, row) {
		int k = strcmp(json_string_value(json_object_get(row, "name")), "physical") ? 1 : 0;
		double avg = (m[k][0] + m[k][1]) / 2, sd = fabs(m[k][0] - m[k][1]) / sqrt(2.0);

		assert_int_equal(json_integer_value(json_object_get(row, "n")), 2);
		assert_true(fabs(json_real_value(json_object_get(row, "avg")) - avg) <= 1e-6 * avg);
		assert_true(fabs(json_real_value(json_object_get(row, "stddev")) - sd) <= 1e-6 * avg);
		if (k) {
			/* ministat's Student's t, 2 df, pooled s of the boots: t(0.975, 2) = 4.303 */
			json_t *c = json_object_get(row, "comparison");
			double s0 = fabs(m[0][0] - m[0][1]) / sqrt(2.0);
			double ps = sqrt((s0 * s0 + sd * sd) / 2);
			double hw = 4.303 * ps * sqrt(1.0 / 2 + 1.0 / 2);
			double got = json_real_value(json_object_get(
				json_object_get(c, "ministat"), "half_width"));
			assert_true(fabs(got - hw) <= 1e-3 * hw);
		}
	}
	json_decref(rep);
}

/*
 * A sweep is one result set per CPU count, each keeping [host]'s 4 hotplug
 * CPUs; the ICR writes grow with the CPU count in physical mode only (18
 * CPUs = two x2APIC clusters), and the report draws latency against CPUs.
 */
static void test_sweep(void **s)
{
	struct cmd_out o;
	json_error_t je;
	struct stat st;
	const unsigned int counts[] = { 8, 18 };

	(void)s;
	system("rm -rf " DIR_ "/sweep");
	itest_run(&o, (const char *[]){ "run", "-c", "tests/integration/data/sweep-small.ini",
					 "-o", DIR_ "/sweep", NULL });
	assert_int_equal(o.status, 0);
	free(o.text);
	for (int i = 0; i < 2; i++) {
		char path[256];
		json_t *res, *run;
		size_t k;

		snprintf(path, sizeof(path), DIR_ "/sweep/c%u/results.json", counts[i]);
		res = json_load_file(path, 0, &je);
		assert_non_null(res);
		assert_int_equal(json_integer_value(json_object_get(json_object_get(res, "host"), "cpus")),
				 counts[i]);
		json_array_foreach(json_object_get(res, "runs"), k, run) {
			const char *mode = json_string_value(json_object_get(run, "mode"));
			json_t *w = itest_workload(run, "ipi-allbut");
			json_t *c = json_object_get(w, "counters");
			json_int_t per_op = json_integer_value(json_object_get(c, "icr_writes")) /
					    json_integer_value(json_object_get(c, "operations"));

			assert_string_equal(json_string_value(json_object_get(run, "status")), "ok");
			assert_int_equal(json_integer_value(json_object_get(run, "maxcpus")), counts[i] + 4);
			assert_int_equal(per_op, !strcmp(mode, "physical") ? counts[i] - 1 :
						 counts[i] > 16 ? 2 : 1);
		}
		json_decref(res);
	}
	itest_run(&o, (const char *[]){ "report", DIR_ "/sweep/c8", DIR_ "/sweep/c18",
					 "-o", DIR_ "/sweep/report", NULL });
	assert_int_equal(o.status, 0);
	free(o.text);
	assert_int_equal(stat(DIR_ "/sweep/report/report.md", &st), 0);
	/* the latency-against-CPUs plot */
	assert_int_equal(system("ls " DIR_ "/sweep/report/sweep-*.png >/dev/null"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid_config),
		cmocka_unit_test(test_kill_and_resume),
		cmocka_unit_test(test_trace_ipi),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_boots_unit),
	};
	return cmocka_run_group_tests_name("integration: run", tests, NULL, NULL);
}
