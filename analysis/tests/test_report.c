/* SPDX-License-Identifier: GPL-3.0-or-later */
/* analysis/tests/test_report.c: `ipibench report` on the fixtures. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <jansson.h>

#include "analysis/analysis.h"
#include "analysis/internal.h"
#include "analysis/tests/helpers.h"

#define REF "results/reference/seed-96cpu.json"

/* One full report shared by the tests that read it. */
static char *out;
static json_t *rep;

static int setup(void **state)
{
	(void)state;
	out = make_tmpdir();
	if (!out)
		return -1;
	char *argv[] = { "report", "-q", "-o", out, "--reference", REF,
			 DATA "/three-mode", DATA "/sweep-8", DATA "/sweep-32/results.json",
			 DATA "/hyperfine.json", DATA "/perf-stat.csv", NULL };
	if (run_quiet(cmd_report, argv) != 0)
		return -1;
	char *p = path2(out, "report.json");
	json_error_t je;
	rep = json_load_file(p, 0, &je);
	free(p);
	return rep ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	json_decref(rep);
	rm_rf(out);
	free(out);
	return 0;
}

static json_t *find_block(const char *workload, long cpus)
{
	size_t i;
	json_t *b;
	json_array_foreach(json_object_get(rep, "workloads"), i, b)
		if (!strcmp(json_string_value(json_object_get(b, "workload")), workload) &&
		    json_integer_value(json_object_get(b, "cpus")) == cpus)
			return b;
	return NULL;
}

static json_t *find_mode(json_t *block, const char *mode)
{
	return json_find(json_object_get(block, "modes"), "mode", mode);
}

static double num(json_t *o, const char *path)
{
	/* "a.b.c" */
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *save = NULL, *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
		o = json_object_get(o, k);
	assert_true(json_is_number(o));
	return json_number_value(o);
}

static void statistics_in_report_json(void **state)
{
	(void)state;
	json_t *b = find_block("flush", 16);
	assert_non_null(b);
	assert_true(json_is_true(json_object_get(b, "emulated")));
	json_t *ph = find_mode(b, "physical"), *mx = find_mode(b, "mixed");
	assert_non_null(ph);
	assert_non_null(mx);
	/* two ok runs x 150 samples each; the failed third mixed run is left out */
	assert_int_equal(json_integer_value(json_object_get(mx, "n")), 300);
	assert_int_equal(json_integer_value(json_object_get(mx, "runs_ok")), 2);
	/* counters: 15 ICR writes per flush in physical mode, 1 in mixed (one cluster) */
	assert_float_equal(num(ph, "counters.icr_writes_per_op"), 15.0, 1e-12);
	assert_float_equal(num(mx, "counters.icr_writes_per_op"), 1.0, 1e-12);
	/* per-call latency is descriptive: no test, no interval from calls */
	json_t *lat = json_object_get(mx, "latency_ns");
	assert_null(json_object_get(lat, "median_ci95"));
	assert_null(json_object_get(mx, "mann_whitney"));
	assert_null(json_object_get(mx, "ratio_ci95"));
	assert_string_equal(json_string_value(json_object_get(lat, "unit")),
			    "per-call latency, boots pooled (descriptive)");
	/* two boots per mode, no loop timings: the boot (mean of its calls) is
	 * the unit; physical first (the baseline), mixed ~11% faster */
	json_t *cmp = json_object_get(b, "comparison");
	assert_string_equal(json_string_value(json_object_get(cmp, "unit")), "boots");
	json_t *rows = json_object_get(cmp, "rows");
	assert_int_equal(json_array_size(rows), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "name")),
			    "physical");
	json_t *rmx = json_array_get(rows, 2);
	assert_string_equal(json_string_value(json_object_get(rmx, "name")), "mixed");
	assert_int_equal(num(rmx, "n"), 2);
	double pct = num(rmx, "comparison.percent");
	assert_true(pct < -7.0 && pct > -15.0);
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(rmx, "comparison"),
								"test")), "t"));
	double med = num(mx, "latency_ns.median");
	assert_true(num(mx, "latency_ns.q1") <= med && med <= num(mx, "latency_ns.q3"));
	assert_true(num(mx, "latency_ns.p5") < num(mx, "latency_ns.q1"));
	assert_true(num(mx, "latency_ns.q3") < num(mx, "latency_ns.p95"));
	/* vector capacity: cluster shares the vector space of its 16 CPUs */
	json_t *v = find_block("vectors", 16);
	assert_float_equal(num(find_mode(v, "physical"), "counters.vectors"), 188.0 * 16, 0);
	assert_float_equal(num(find_mode(v, "cluster"), "counters.vectors"), 188.0, 0);
	/* interrupts per CPU: mean per run, 16 entries */
	json_t *irq = find_mode(find_block("irq", 16), "cluster");
	json_t *ipc = json_object_get(json_object_get(irq, "counters"), "irqs_per_cpu_mean_per_run");
	assert_int_equal(json_array_size(ipc), 16);
	/* failed run listed */
	assert_int_equal(json_array_size(json_object_get(rep, "failed_runs")), 1);
}

static void seed_section(void **state)
{
	(void)state;
	json_t *seed = json_object_get(rep, "seed");
	json_t *ref = json_object_get(seed, "reference");
	assert_float_equal(num(ref, "ns_per_call.physical"), 2661.7931, 1e-9);
	assert_float_equal(num(ref, "ns_per_call.mixed"), 2386.5337, 1e-9);
	assert_float_equal(num(ref, "ratio_physical_over_mixed"), 26617931.0 / 23865337.0, 1e-12);
	/* one measured entry per flush_tlb_all block: 8, 16 and 32 CPUs */
	json_t *meas = json_object_get(seed, "measured");
	assert_int_equal(json_array_size(meas), 3);
	json_t *m16 = json_array_get(meas, 1);
	assert_int_equal(json_integer_value(json_object_get(m16, "cpus")), 16);
	assert_true(json_is_true(json_object_get(m16, "emulated")));
	double r = num(m16, "ratio_physical_over_mixed_mean");
	assert_float_equal(num(m16, "total_ns_for_calls.physical"),
			   num(m16, "ns_per_call_mean.physical") * 10000, 1e-3);
	assert_true(r > 1.05 && r < 1.2);
	assert_float_equal(num(m16, "icr_writes_per_call.physical"), 15.0, 1e-12);
	char *md = path2(out, "report.md");
	expect_in_file(md, "## Seed reproduction",
		"| physical, ns per call (mean of calls) | 2661.79 |",
		"| mixed, total for 10000 calls (ns; mean x 10000) | 23865337 |",
		"| ratio physical / mixed (means) | 1.115 |",
		"This host was emulated (QEMU TCG)",
		"Compare the ratios, not the times",
		"ICR writes per call | 95 (derived, not measured) | 15.00 |");
	/* the 512-CPU ministat table beside it, as committed (FreeBSD's %) */
	expect_in_file(md, "x  25 3.5131328e+08 3.5716441e+08 3.5410987e+08 3.5432659e+08     1566737.4\n",
		"\t248.774% +/- 0.96566%\n",
		"ministat, measured (16 CPUs, **emulated, QEMU TCG**): unit: boots");
	/* no per-call bootstrap or rank test anywhere */
	expect_not_in_file(md, "Mann-Whitney",
		"bootstrap");
	free(md);
	json_t *jms = json_object_get(m16, "ministat");
	assert_string_equal(json_string_value(json_object_get(json_object_get(jms, "measured"), "unit")),
			    "boots");
	json_t *ref2 = json_array_get(json_object_get(jms, "reference"), 1);
	assert_true(json_is_true(json_object_get(json_object_get(ref2, "comparison"), "proven")));
	assert_float_equal(num(ref2, "comparison.ministat.percent_half_width_freebsd"), 0.96566, 5e-6);
}

static void other_sources_sections(void **state)
{
	(void)state;
	char *md = path2(out, "report.md");
	expect_in_file(md, "## hyperfine: " DATA "/hyperfine.json",
		"`ab -n 2000 http://guest/ (mixed)` | 20 |",
		"## perf stat: " DATA "/perf-stat.csv",
		"| context-switches | 5678 |",
		"| instructions | <not counted> |",
		"## Against CPU count: `flush` (flush_tlb_all), emulated (QEMU TCG)");
	free(md);
	json_t *hf = json_array_get(json_object_get(rep, "hyperfine"), 0);
	json_t *c1 = json_array_get(json_object_get(hf, "commands"), 1);
	double ratio = num(c1, "ratio_to_first");
	assert_true(ratio > 0.85 && ratio < 0.95);
	/* ministat on hyperfine runs: command 2 against command 1 */
	assert_string_equal(json_string_value(json_object_get(hf, "unit")), "hyperfine runs");
	json_t *m2 = json_array_get(json_object_get(hf, "ministat"), 1);
	assert_int_equal(num(m2, "n"), 20);
	assert_true(json_is_true(json_object_get(json_object_get(m2, "comparison"), "proven")));
	double pct = num(m2, "comparison.percent");
	assert_true(pct < -5.0 && pct > -15.0);
	json_t *perf = json_array_get(json_object_get(rep, "perf_stat"), 0);
	assert_int_equal(json_array_size(json_object_get(perf, "events")), 4);
	json_t *sw = json_array_get(json_object_get(rep, "sweeps"), 0);
	assert_int_equal(json_array_size(json_object_get(sw, "points")), 3);
}

static void plots_exist(void **state)
{
	(void)state;
	const char *names[] = {
		"latency-qemu-tcg-flush-16cpu", "latency-qemu-tcg-flush-8cpu",
		"latency-qemu-tcg-ipi8-16cpu", "irqs-qemu-tcg-irq-16cpu",
		"icr-qemu-tcg-16cpu", "vectors-qemu-tcg-16cpu",
		"sweep-qemu-tcg-flush", "hyperfine-1-hyperfine-json",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char f[512];
		snprintf(f, sizeof(f), "%s/%s.png", out, names[i]);
		if (!is_png(f))
			fail_msg("%s: missing or not a PNG", f);
		snprintf(f, sizeof(f), "%s/%s.svg", out, names[i]);
		if (!is_svg(f))
			fail_msg("%s: missing or not an SVG", f);
		snprintf(f, sizeof(f), "%s/%s.gp", out, names[i]);
		assert_true(file_size(f) > 0);
		snprintf(f, sizeof(f), "%s/%s.dat", out, names[i]);
		assert_true(file_size(f) > 0);
	}
	assert_false(has_tmp_files(out));
	char *md = path2(out, "report.md");
	assert_true(file_contains(md, "![per-call latency per mode](latency-qemu-tcg-flush-16cpu.png)"));
	free(md);
}

static void baseline_option(void **state)
{
	char *o = *state;
	char *argv[] = { "report", "-q", "--no-reference", "--baseline", "mixed", "-o", o,
			 DATA "/three-mode", NULL };
	assert_int_equal(run_quiet(cmd_report, argv), 0);
	char *p = path2(o, "report.json");
	json_t *r = json_load_file(p, 0, NULL);
	assert_non_null(r);
	json_t *save = rep;
	rep = r;
	json_t *b = find_block("flush", 16);
	json_t *rows = json_object_get(json_object_get(b, "comparison"), "rows");
	assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "name")),
			    "mixed");
	json_t *ph = json_array_get(rows, 1);
	assert_string_equal(json_string_value(json_object_get(ph, "name")), "physical");
	assert_true(num(ph, "comparison.percent") > 5.0);
	rep = save;
	json_decref(r);
	free(p);
}

/* The x2APIC layout section on the committed 96-CPU bench (real agent
 * output): the layout the hypervisor reported and, per workload, mode and
 * routine, the ICR writes it implies beside those measured; an edited
 * count is flagged. */
static void layout_section(void **state)
{
	(void)state;
	char *o = make_tmpdir();
	char *argv[] = { "report", "-q", "--no-reference", "-o", o,
			 "results/history/seed-96cpu-20261201", NULL };
	assert_int_equal(run_quiet(cmd_report, argv), 0);
	char *p = path2(o, "report.md");
	char *md = slurp(p);
	assert_non_null(md);
	expect_in_text(md, "## x2APIC layout and ICR writes",
		"96 CPUs, 6 clusters in use (0-5: 16 CPUs each); x2APIC IDs 0-95, no holes",
		"| flush | physical | genapic | physical | 95 | 95.00 | 1 | ok |",
		"| flush | mixed | genapic | cluster | 6 | 6.00 | 1 | ok |",
		"| flush-senders | mixed | physical | physical | 95 | 95.00 | 1 | ok |");
	assert_null(strstr(md, "MISMATCH"));
	free(md);
	free(p);

	/* The mixed run's flush said to have cost physical mode's writes. */
	json_t *r = json_load_file("results/history/seed-96cpu-20261201/results.json", 0, NULL);
	assert_non_null(r);
	json_t *run, *w;
	size_t i, k;
	json_array_foreach(json_object_get(r, "runs"), i, run)
		if (!strcmp(json_string_value(json_object_get(run, "mode")), "mixed"))
			json_array_foreach(json_object_get(run, "workloads"), k, w)
				if (!strcmp(json_string_value(json_object_get(w, "name")), "flush")) {
					json_t *c = json_object_get(w, "counters");
					json_object_set_new(c, "icr_writes", json_integer(
						95 * json_integer_value(json_object_get(c, "operations"))));
				}
	char *d = path2(o, "edited");
	assert_int_equal(mkdir(d, 0700), 0);
	char *f = path2(d, "results.json");
	assert_int_equal(json_dump_file(r, f, 0), 0);
	json_decref(r);
	char *o2 = path2(o, "out2");
	expect_exit(cmd_report, 0, "report", "-q", "--no-reference", "-o", o2, d);
	char *p2 = path2(o2, "report.md");
	md = slurp(p2);
	assert_non_null(md);
	expect_in_text(md, "| flush | mixed | genapic | cluster | 6 | 95.00 | 1 | **MISMATCH** |",
		"**1 workload measured other ICR writes than the layout implies**");
	free(md);
	free(p2), free(o2), free(f), free(d);
	rm_rf(o);
	free(o);
}

/*
 * results/history/seed-96cpu-20261201 in O/NAME, each run edited by EDIT
 * with what MAKE gives for its mode.
 */
typedef json_t *make_fn(const char *mode);
static char *seed_edited(const char *o, const char *name, void (*edit)(json_t *run, make_fn *make),
			 make_fn *make)
{
	json_t *r = json_load_file("results/history/seed-96cpu-20261201/results.json", 0, NULL);
	json_t *run;
	size_t i;

	assert_non_null(r);
	json_array_foreach(json_object_get(r, "runs"), i, run)
		edit(run, make);
	char *d = path2(o, name);
	assert_int_equal(mkdir(d, 0700), 0);
	char *f = path2(d, "results.json");
	assert_int_equal(json_dump_file(r, f, 0), 0);
	json_decref(r);
	free(f);
	return d;
}

static const char *run_mode(json_t *run)
{
	return json_string_value(json_object_get(run, "mode"));
}

/* Each flush workload given insn_counts. */
static void set_insn_counts(json_t *run, make_fn *make)
{
	json_t *w;
	size_t k;

	json_array_foreach(json_object_get(run, "workloads"), k, w)
		if (!strcmp(json_string_value(json_object_get(w, "name")), "flush"))
			json_object_set_new(w, "insn_counts", make(run_mode(run)));
}

static char *with_insn_counts(const char *o, const char *name, make_fn *make)
{
	return seed_edited(o, name, set_insn_counts, make);
}

static json_t *counts_ok(const char *mode)
{
	bool phys = !strcmp(mode, "physical");

	/* Physical: 95 ICR writes a flush, cluster and mixed 6; in the
	 * cluster and mixed runs the plugin saw a write less than the
	 * hypervisor counted. */
	return json_pack("{s:i, s:f, s:f, s:i, s:f, s:i, s:i, s:i}", "operations", 100,
			 "send_insns_per_op", phys ? 1400.0 : 500.0, "wait_insns_per_op", 3000.5,
			 "handlers", 9500, "handler_insns_mean", 117.0, "handler_insns_max", 121,
			 "icr_writes", phys ? 9500 : 599, "icr_writes_hv", phys ? 9500 : 600);
}

static json_t *counts_bad(const char *mode)
{
	(void)mode;
	return json_pack("{s:i, s:s}", "operations", 100, "send_insns_per_op", "many");
}

static void insn_counts_table(void **state)
{
	(void)state;
	char *o = make_tmpdir();
	char *d = with_insn_counts(o, "ic", counts_ok);
	char *out = path2(o, "out");
	char *argv[] = { "report", "-q", "--no-reference", "-o", out, d, NULL };
	assert_int_equal(run_quiet(cmd_report, argv), 0);
	char *p = path2(out, "report.md");
	char *md = slurp(p);
	assert_non_null(md);
	assert_non_null(strstr(md, "Instructions per operation (QEMU TCG plugin, exact"));
	assert_non_null(strstr(md, "| physical | 1 | 1400 | 3000 | 117 | 121 | 95.00 |"));
	assert_non_null(strstr(md, "| mixed | 1 | 500 | 3000 | 117 | 121 | 5.99 |"));
	assert_non_null(strstr(md, "**2 runs where the plugin's ICR writes differ from the hypervisor's**"));
	free(md);
	free(p);
	p = path2(out, "report.json");
	md = slurp(p);
	assert_non_null(strstr(md, "\"send_insns_per_op\": 1400"));
	free(md);
	free(p);

	/* Not a number: refused with its JSON path. */
	char *d2 = with_insn_counts(o, "bad", counts_bad);
	char *out2 = path2(o, "out2");
	char *argv2[] = { "report", "-q", "--no-reference", "-o", out2, d2, NULL };
	fflush(stderr);
	assert_int_not_equal(run_quiet(cmd_report, argv2), 0);
	free(out2), free(d2), free(out), free(d);
	rm_rf(o);
	free(o);
}

/* Each run given a host_state. */
static void set_host_state(json_t *run, make_fn *make)
{
	json_object_set_new(run, "host_state", make(run_mode(run)));
}

static char *with_host_state(const char *o, const char *name, make_fn *make)
{
	return seed_edited(o, name, set_host_state, make);
}

static json_t *state_same(const char *mode)
{
	(void)mode;
	return json_pack("{s:s, s:n, s:b, s:s, s:i, s:s, s:s, s:s, s:b}", "max_cstate", "unlimited",
			 "cx_states_cpu0", "smt", 0, "microcode", "0xaa00215", "hotplug_cpus", 4,
			 "xen_pins", "", "cpufreq_driver", "acpi-cpufreq", "cpufreq_governor",
			 "ondemand", "turbo", 1);
}

/* The physical boots ran with the performance governor and turbo off
 * (agent/hoststate.h's cpufreq keys). */
static json_t *state_cpufreq_differs(const char *mode)
{
	json_t *j = state_same(mode);

	if (!strcmp(mode, "physical")) {
		json_object_set_new(j, "cpufreq_governor", json_string("performance"));
		json_object_set_new(j, "turbo", json_false());
	}
	return j;
}

/* What the agent never writes: a governor that is not a name, turbo as text. */
static json_t *state_bad_governor(const char *mode)
{
	json_t *j = state_same(mode);

	json_object_set_new(j, "cpufreq_governor", json_string("on demand"));
	return j;
}

static json_t *state_bad_turbo(const char *mode)
{
	json_t *j = state_same(mode);

	json_object_set_new(j, "turbo", json_string("yes"));
	return j;
}

/* The mixed boots got other microcode and a pinned C-state (a Markdown
 * character in the value: escaped). */
static json_t *state_mixed_differs(const char *mode)
{
	json_t *j = state_same(mode);

	if (!strcmp(mode, "mixed")) {
		json_object_set_new(j, "microcode", json_string("0xaa00216|*"));
		json_object_set_new(j, "max_cstate", json_integer(1));
	}
	return j;
}

static json_t *state_nested(const char *mode)
{
	json_t *j = state_same(mode);

	json_object_set_new(j, "cpufreq", json_pack("{s:s}", "governor", "ondemand"));
	return j;
}

static char *report_md(const char *o, const char *name, const char *dir, int want)
{
	char *out = path2(o, name);
	char *argv[] = { "report", "-q", "--no-reference", "-o", out, (char *)dir, NULL };
	fflush(stderr);
	assert_int_equal(run_quiet(cmd_report, argv), want);
	char *p = path2(out, "report.md");
	char *md = want ? NULL : slurp(p);
	free(p);
	free(out);
	return md;
}

/* The seed's results with host.preflight set to PF (taken). */
static char *with_preflight(const char *o, const char *name, json_t *pf)
{
	json_t *r = json_load_file("results/history/seed-96cpu-20261201/results.json", 0, NULL);

	assert_non_null(r);
	json_object_set_new(json_object_get(r, "host"), "preflight", pf);
	char *d = path2(o, name);
	assert_int_equal(mkdir(d, 0700), 0);
	char *f = path2(d, "results.json");
	assert_int_equal(json_dump_file(r, f, 0), 0);
	json_decref(r);
	free(f);
	return d;
}

/* ipibench run's preflight warnings (runner/hostcheck.h) in report.md and report.json. */
static void preflight_listed(void **state)
{
	(void)state;
	char *o = make_tmpdir();
	json_t *w = json_pack("[{s:s, s:s, s:s, s:s}]", "level", "warning", "where", "",
			      "text", "no hotpluggable or disabled CPUs: flush_tlb_all takes the ALLBUT "
			      "shorthand", "fix", "maxcpus= one below the CPUs present");
	char *d = with_preflight(o, "pf", json_pack("{s:{}, s:o}", "facts", "warnings", w));
	char *md = report_md(o, "out-pf", d, 0);

	assert_non_null(md);
	assert_non_null(strstr(md, "## Preflight"));
	assert_non_null(strstr(md, "- no hotpluggable or disabled CPUs: flush_tlb_all takes the "
			       "ALLBUT shorthand (fix: maxcpus= one below the CPUs present)\n"));
	free(md);
	char *p = path2(o, "out-pf/report.json");
	json_t *j = json_load_file(p, 0, NULL);
	assert_non_null(j);
	json_t *pf = json_array_get(json_object_get(j, "preflight"), 0);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(pf, "warnings"), 0), "fix")), "maxcpus= one below the CPUs present");
	json_decref(j);
	free(p);

	/* Without: no section. */
	char *none = with_preflight(o, "none", json_pack("{s:[]}", "warnings"));
	md = report_md(o, "out-none", none, 0);
	assert_null(strstr(md, "## Preflight"));
	free(md);

	/* A warning that is not what run writes: refused with its JSON path. */
	char *bad = with_preflight(o, "bad", json_pack("{s:[{s:i}]}", "warnings", "text", 3));
	assert_null(report_md(o, "out-bad", bad, 1));
	free(bad), free(none), free(d);
	rm_rf(o);
	free(o);
}

static void host_state_flagged(void **state)
{
	(void)state;
	char *o = make_tmpdir();
	char *same = with_host_state(o, "same", state_same);
	char *md = report_md(o, "out-same", same, 0);

	assert_non_null(md);
	assert_non_null(strstr(md, "## Host state"));
	assert_non_null(strstr(md, "The same in every run compared: `max_cstate` = \"unlimited\""));
	assert_null(strstr(md, "differs between the runs"));
	free(md);

	char *diff = with_host_state(o, "diff", state_mixed_differs);
	md = report_md(o, "out-diff", diff, 0);
	assert_non_null(md);
	assert_non_null(strstr(md, "**The host state differs between the runs compared here:**"));
	assert_non_null(strstr(md, "- `microcode`: \"0xaa00215\" in 2 runs (physical-r0, cluster-r0); "));
	assert_non_null(strstr(md, "; \"0xaa00216\\|\\*\" in 1 run (mixed-r0).\n"));
	assert_non_null(strstr(md, "- `max_cstate`: \"unlimited\" in 2 runs"));
	assert_non_null(strstr(md, "The same in every run: `cx_states_cpu0` = null"));
	free(md);
	char *p = path2(o, "out-diff/report.json");
	json_t *j = json_load_file(p, 0, NULL);
	assert_non_null(j);
	json_t *hs = json_object_get(j, "host_state");
	assert_int_equal(json_integer_value(json_object_get(hs, "runs")), 3);
	assert_int_equal(json_array_size(json_object_get(json_object_get(json_object_get(hs, "differs"),
							"max_cstate"), "1")), 1);
	assert_true(json_is_false(json_object_get(json_object_get(hs, "same"), "smt")));
	json_decref(j);
	free(p);

	/* Only scalars: a nested object is refused with its JSON path. */
	char *nested = with_host_state(o, "nested", state_nested);
	assert_null(report_md(o, "out-nested", nested, 1));

	/* The cpufreq keys: listed when the same, flagged when not. */
	char *cf = with_host_state(o, "cpufreq", state_cpufreq_differs);
	md = report_md(o, "out-cpufreq", cf, 0);
	assert_non_null(md);
	assert_non_null(strstr(md, "**The host state differs between the runs compared here:**"));
	assert_non_null(strstr(md, "- `cpufreq_governor`: \"performance\" in 1 run (physical-r0); "
			       "\"ondemand\" in 2 runs (mixed-r0, cluster-r0).\n"));
	assert_non_null(strstr(md, "- `turbo`: false in 1 run (physical-r0); true in 2 runs (mixed-r0, cluster-r0).\n"));
	assert_non_null(strstr(md, "`cpufreq_driver` = \"acpi-cpufreq\""));
	free(md);

	/* ... and refused, naming the JSON path, when not what the agent writes. */
	char err[AN_ERRLEN];
	struct dataset ds = { 0 };
	char *bg = with_host_state(o, "badgov", state_bad_governor);
	char *bt = with_host_state(o, "badturbo", state_bad_turbo);
	assert_int_equal(dataset_add(&ds, bg, err), -1);
	assert_non_null(strstr(err, ".host_state.cpufreq_governor: must be null or a driver/governor name"));
	assert_non_null(strstr(err, "not \"on demand\""));
	assert_int_equal(dataset_add(&ds, bt, err), -1);
	assert_non_null(strstr(err, ".host_state.turbo: must be null, true or false, not \"yes\""));
	dataset_free(&ds);
	free(bg), free(bt), free(cf);
	free(nested), free(diff), free(same);
	rm_rf(o);
	free(o);
}

/* --reference with calls, cpus or totals out of range: refused in one line
 * naming the file and the JSON path (1e300 CPUs printed a negative count). */
static void reference_bounds(void **state)
{
	(void)state;
	static const struct { const char *key, *sub, *want; double v; } cases[] = {
		{ "calls", NULL, "$.calls: must be an integer from 1 to", 1e300 },
		{ "cpus", NULL, "$.cpus: must be an integer from 1 to 65536", 1e300 },
		{ "cpus", NULL, "$.cpus: must be an integer from 1 to 65536", -96 },
		{ "calls", NULL, "$.calls: must be an integer from 1 to", 1.5 },
		{ "total_ns", "mixed", "$.total_ns.mixed: must be a number from 0 to", 1e300 },
	};
	char *dir = make_tmpdir(), *f = path2(dir, "ref.json");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *j = json_load_file(REF, 0, NULL);
		assert_non_null(j);
		json_t *o = cases[i].sub ? json_object_get(j, cases[i].key) : j;
		const char *k = cases[i].sub ? cases[i].sub : cases[i].key;
		/* -96 as an integer, the others as reals (no cast of 1e300) */
		json_object_set_new(o, k, cases[i].v == -96 ? json_integer(-96) : json_real(cases[i].v));
		assert_int_equal(json_dump_file(j, f, 0), 0);
		json_decref(j);
		struct reference r;
		char err[AN_ERRLEN] = "";
		assert_int_equal(reference_load(f, &r, err), -1);
		if (!strstr(err, cases[i].want) || strchr(err, '\n'))
			fail_msg("case %zu: %s", i, err);
	}
	unlink(f);
	rm_rf(dir);
	free(f);
	free(dir);
}

static void bad_inputs(void **state)
{
	(void)state;
	char err[AN_ERRLEN];
	struct dataset d = { 0 };
	an_quiet = true;
	assert_int_equal(dataset_add(&d, DATA "/no-such-dir", err), -1);
	assert_non_null(strstr(err, DATA "/no-such-dir: No such file or directory"));
	assert_int_equal(dataset_add(&d, DATA "/invalid.json", err), -1);
	/* jansson's line:column, naming the file */
	assert_non_null(strstr(err, DATA "/invalid.json:3:"));
	assert_non_null(strstr(err, "invalid JSON"));
	assert_int_equal(dataset_add(&d, DATA "/schema2.json", err), -1);
	assert_non_null(strstr(err, "schema2.json: schema_version 2 is newer"));
	assert_int_equal(dataset_add(&d, DATA "/gen_fixtures.py", err), -1);
	assert_non_null(strstr(err, "gen_fixtures.py: not a results.json"));
	assert_null(strchr(err, '\n'));
	dataset_free(&d);

	char *o = make_tmpdir();
	expect_exit(cmd_report, 1, "report", "-q", "-o", o, DATA "/invalid.json");
	expect_exit(cmd_report, 1, "report", "-q", "-o", o, DATA "/schema2.json");
	expect_exit(cmd_report, 1, "report", "-q", "-o", o, "/nonexistent/results.json");
	expect_exit(cmd_report, 2, "report", "--bogus");
	expect_exit(cmd_report, 0, "report", "--help");
	expect_exit(cmd_report, 2, "report");
	/* nothing written on failure */
	char *p = path2(o, "report.md");
	assert_int_equal(file_size(p), -1);
	free(p);
	rm_rf(o);
	free(o);
}

static void missing_gnuplot_is_an_error(void **state)
{
	char *o = *state;
	setenv("IPIBENCH_GNUPLOT", "/nonexistent/gnuplot", 1);
	char *argv[] = { "report", "-q", "-o", o, DATA "/three-mode", NULL };
	int rc = run_quiet(cmd_report, argv);
	unsetenv("IPIBENCH_GNUPLOT");
	assert_int_equal(rc, 1);
	char *p = path2(o, "report.md");
	assert_int_equal(file_size(p), -1);
	free(p);
	char err[AN_ERRLEN];
	setenv("IPIBENCH_GNUPLOT", "no-such-gnuplot-binary", 1);
	assert_int_equal(plot_check(err), -1);
	unsetenv("IPIBENCH_GNUPLOT");
	assert_non_null(strstr(err, "gnuplot not found"));
	assert_int_equal(plot_check(err), 0);
}

/* gnuplot not on PATH (and IPIBENCH_GNUPLOT unset): the report, its JSON,
 * every plot's script and data are written, no drawing, report.md says
 * which plots were not drawn, one line on stderr (even with -q) says why,
 * and the exit status is 0. */
static void no_gnuplot_on_path_draws_nothing_else_written(void **state)
{
	char *o = *state;
	char *empty = path2(o, "bin"), *out = path2(o, "out"), *errf = path2(o, "stderr");
	assert_int_equal(mkdir(empty, 0700), 0);
	char *path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", empty, 1);
	unsetenv("IPIBENCH_GNUPLOT");
	char *argv[] = { "report", "-q", "-o", out, DATA "/three-mode", DATA "/sweep-8",
			 DATA "/sweep-32/results.json", NULL };
	fflush(stderr);
	int saved = dup(2), fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	int rc = run_quiet(cmd_report, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	setenv("PATH", path, 1);
	free(path);
	assert_int_equal(rc, 0);
	char *f = path2(out, "report.json");
	assert_true(file_size(f) > 0);
	free(f);
	const char *names[] = { "latency-qemu-tcg-flush-16cpu", "sweep-qemu-tcg-flush" };
	for (size_t i = 0; i < 2; i++) {
		char p[600];
		snprintf(p, sizeof(p), "%s/%s.gp", out, names[i]);
		assert_true(file_size(p) > 0);
		snprintf(p, sizeof(p), "%s/%s.dat", out, names[i]);
		assert_true(file_size(p) > 0);
		snprintf(p, sizeof(p), "%s/%s.png", out, names[i]);
		assert_int_equal(file_size(p), -1);
		snprintf(p, sizeof(p), "%s/%s.svg", out, names[i]);
		assert_int_equal(file_size(p), -1);
	}
	assert_false(has_tmp_files(out));
	f = path2(out, "report.md");
	expect_in_file(f, "(per-call latency per mode: not drawn, gnuplot is not installed; "
		       "`gnuplot latency-qemu-tcg-flush-16cpu.gp` here draws it from [its "
		       "script](latency-qemu-tcg-flush-16cpu.gp) and data)");
	expect_not_in_file(f, ".png)");
	free(f);
	/* the count said is that of the scripts written */
	size_t ngp = 0;
	DIR *dp = opendir(out);
	assert_non_null(dp);
	for (struct dirent *de; (de = readdir(dp));)
		ngp += strlen(de->d_name) > 3 && !strcmp(de->d_name + strlen(de->d_name) - 3, ".gp");
	closedir(dp);
	assert_true(ngp >= 8);
	char *e = slurp(errf);
	assert_non_null(e);
	char want[700];
	snprintf(want, sizeof(want), "ipibench report: gnuplot is not installed: %zu plots not drawn "
		 "(their NAME.gp and NAME.dat are in %s: `gnuplot NAME.gp` there draws one); "
		 "install gnuplot-nox for them\n", ngp, out);
	assert_string_equal(e, want);
	free(e);
	free(empty), free(out), free(errf);
}

/* --summary: the headline on stdout (each mode against the baseline, the
 * ICR writes), where the report is, and the files as without it. */
static void summary_on_stdout(void **state)
{
	char *o = *state;
	char *out = path2(o, "out"), *sf = path2(o, "stdout");
	char *argv[] = { "report", "-q", "--summary", "--no-reference", "-o", out,
			 DATA "/three-mode", NULL };
	fflush(stdout);
	int saved = dup(1), fd = open(sf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 1);
	close(fd);
	int argc = 0;
	while (argv[argc])
		argc++;
	int rc = cmd_report(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	assert_int_equal(rc, 0);
	char want[600];
	snprintf(want, sizeof(want), "\nThe whole report: %s/report.md (and report.json, the "
		 "plots)\n", out);
	expect_in_file(sf, "1 result set, 6 runs ok, 1 failed; emulated (QEMU TCG): compare the "
		       "ratios, not the times\n",
		       "| workload | host | CPUs | mode | ns per op | against physical (95%) | "
		       "ICR writes per op |\n",
		       "| flush | qemu-tcg | 16 | physical | 1263531 | baseline | 15.00 |\n",
		       "| flush | qemu-tcg | 16 | mixed | 1120834 | -11.3% (-15.4% to -6.8%) | 1.00 |\n",
		       "| irq | qemu-tcg | 16 | cluster | 50512 | +0.1% (-3.4% to +3.7%), no "
		       "difference proven | - |\n",
		       "1 workload block without times or ICR counts (vector capacity): in the "
		       "report\n", "\n1 failed run: listed in the report\n", want);
	expect_not_in_file(sf, "# ipibench report", "| vectors |");
	char *md = path2(out, "report.md");
	expect_in_file(md, "# ipibench report");
	free(md), free(out), free(sf);
}

static void detect_by_content(void **state)
{
	(void)state;
	const char *res = "{\"schema_version\": 1, \"runs\": []}";
	const char *hf = "{\"results\": [{\"command\": \"true\", \"times\": [0.1]}]}";
	const char *perf = "# started on x\n\n12,,cycles,100,100.00,,\n<not counted>,,instructions,0,0.00,,\n";
	const char *other = "hello, world\n";
	assert_int_equal(detect_kind("x", res, strlen(res)), IN_RESULTS);
	assert_int_equal(detect_kind("x", hf, strlen(hf)), IN_HYPERFINE);
	assert_int_equal(detect_kind("x", perf, strlen(perf)), IN_PERF);
	assert_int_equal(detect_kind("x", other, strlen(other)), IN_UNKNOWN);
}

/* A results directory with hyperfine and perf files beside results.json
 * (found by content; other files skipped), and a cluster run that Xen
 * switched to the mixed driver (warned about). */
static void directory_scan_and_genapic_warning(void **state)
{
	(void)state;
	char *dir = make_tmpdir(), *o = make_tmpdir();
	json_t *r = json_load_file(DATA "/three-mode/results.json", 0, NULL);
	assert_non_null(r);
	size_t i;
	json_t *run;
	json_array_foreach(json_object_get(r, "runs"), i, run)
		if (!strcmp(json_string_value(json_object_get(run, "mode")), "cluster"))
			json_object_set_new(run, "genapic", json_string("x2apic_mixed"));
	char *p = path2(dir, "results.json");
	assert_int_equal(json_dump_file(r, p, 0), 0);
	json_decref(r);
	free(p);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "cp " DATA "/hyperfine.json %s/ab.json && cp " DATA
		 "/perf-stat.csv %s/perf.csv && echo '{\"notes\": 1}' > %s/notes.json",
		 dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	expect_exit(cmd_report, 0, "report", "-q", "--no-reference", "-o", o, dir);
	char *md = path2(o, "report.md");
	expect_in_file(md, "## hyperfine: ",
		"/ab.json",
		"## perf stat: ");
	expect_not_in_file(md, "notes.json",
		"## Seed reproduction");
	assert_true(file_contains(md, "Warning: mode cluster ran on genapic `x2apic_mixed`, not `x2apic_cluster`"));
	free(md);
	rm_rf(o);
	rm_rf(dir);
	free(o);
	free(dir);
}

/* A results directory and a perf stat event whose names are not UTF-8
 * are kept in report.json and history.json as \xNN text (json_string()
 * refused them and the callers dropped them: "inputs": [] and a perf row
 * lost, with exit 0). */
static void names_not_utf8_kept(void **state)
{
	(void)state;
	char *top = make_tmpdir(), *o = make_tmpdir(), *o2 = make_tmpdir();
	char dir[600], cmd[2048];
	snprintf(dir, sizeof(dir), "%s/set\xff", top);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(cmd, sizeof(cmd), "cp " DATA "/three-mode/results.json '%s'/ && "
		 "printf '12,,cycles\\377,100,100.00,,\\n13,,instructions,100,100.00,,\\n' "
		 "> '%s'/perf.csv", dir, dir);
	assert_int_equal(system(cmd), 0);
	expect_exit(cmd_report, 0, "report", "-q", "--no-reference", "-o", o, dir);
	char *p = path2(o, "report.json");
	json_t *j = json_load_file(p, 0, NULL);
	assert_non_null(j);
	json_t *in = json_object_get(j, "inputs");
	assert_int_equal(json_array_size(in), 2);
	const char *path = json_string_value(json_object_get(json_array_get(in, 0), "path"));
	assert_non_null(path);
	assert_non_null(strstr(path, "/set\\xff"));
	json_t *ev = json_object_get(json_array_get(json_object_get(j, "perf_stat"), 0), "events");
	assert_int_equal(json_array_size(ev), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ev, 0), "event")),
			    "cycles\\xff");
	json_decref(j);
	free(p);
	expect_exit(cmd_history, 0, "history", "-q", "-o", o2, dir);
	p = path2(o2, "history.json");
	j = json_load_file(p, 0, NULL);
	assert_non_null(j);
	in = json_object_get(j, "result_sets");
	assert_int_equal(json_array_size(in), 1);
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(in, 0), "path")),
			       "/set\\xff"));
	json_decref(j);
	free(p);
	rm_rf(o);
	rm_rf(o2);
	rm_rf(top);
	free(o);
	free(o2);
	free(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(statistics_in_report_json),
		cmocka_unit_test(seed_section),
		cmocka_unit_test(other_sources_sections),
		cmocka_unit_test(plots_exist),
		cmocka_unit_test_setup_teardown(baseline_option, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test(layout_section),
		cmocka_unit_test(insn_counts_table),
		cmocka_unit_test(host_state_flagged),
		cmocka_unit_test(preflight_listed),
		cmocka_unit_test(bad_inputs),
		cmocka_unit_test(reference_bounds),
		cmocka_unit_test_setup_teardown(missing_gnuplot_is_an_error, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(no_gnuplot_on_path_draws_nothing_else_written,
						tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(summary_on_stdout, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test(detect_by_content),
		cmocka_unit_test(directory_scan_and_genapic_warning),
		cmocka_unit_test(names_not_utf8_kept),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
