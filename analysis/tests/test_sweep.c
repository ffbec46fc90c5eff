/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/tests/test_sweep.c: `ipibench report` over a CPU sweep of two
 * topologies: one series per mode and topology, ICR
 * writes per operation measured and implied by the layout, time per
 * operation from timed loops or per-call samples, log-log plots.
 *
 * The result sets are generated here: QEMU's dense IDs (host
 * qemu-tcg-sweep) at 8, 16 and 32 CPUs, and sockets=2,cores=6,threads=2
 * (host qemu-tcg-sweep-2s: x2APIC IDs 0-11 and 16-27) at 8, 16 and 24.
 * A flush_tlb_all from CPU 0 writes the ICR once per other CPU in
 * physical mode and once per cluster reached in cluster and mixed mode:
 *
 *   CPUs           8    16    24    32
 *   dense phys     7    15     -    31      cluster, mixed  1  1  -  2
 *   2s    phys     7    15    23     -      cluster, mixed  1  2  2  -
 *
 * (at 16 CPUs the 2-socket layout has CPUs 12-15 in cluster 1).  Times:
 * ns per call = 1000 * writes + 500 * (mode index + 1), timed as two loops
 * of 100 calls 10 ns either side, so the loop mean is that exactly.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <jansson.h>

#include "analysis/analysis.h"
#include "analysis/internal.h"
#include "analysis/tests/helpers.h"
#include "lib/topology.h"

#define TOPO_2S "sockets=2,dies=1,cores=6,threads=2"

static const char *const modes[] = { "physical", "cluster", "mixed" };
static const char *const genapics[] = { "x2apic_phys", "x2apic_cluster", "x2apic_mixed" };

/* The x2APIC ID of CPU c: QEMU's dense numbering or TOPO_2S's. */
static unsigned int apic_id(bool two_sockets, unsigned int c)
{
	struct topo t;
	char err[200];

	if (!two_sockets)
		return c;
	assert_int_equal(topo_parse(TOPO_2S, &t, err, sizeof(err)), 0);
	return topo_apic_id(&t, c);
}

/* ICR writes of a flush from CPU 0 (the table above, worked by hand). */
static int writes(bool two_sockets, int cpus, size_t mode)
{
	if (mode == 0)
		return cpus - 1;
	if (two_sockets)
		return cpus > 12 ? 2 : 1;
	return (cpus + 15) / 16;
}

static double ns_per_call(bool two_sockets, int cpus, size_t mode)
{
	return 1000.0 * writes(two_sockets, cpus, mode) + 500.0 * (double)(mode + 1);
}

/*
 * DIR/NAME/results.json: one ok run per mode of a "flush" flush_tlb_all
 * with its counters, the hypervisor's query (per-CPU x2APIC IDs) and
 * either two timed loops (loop) or 5 per-call samples centred on the
 * same time (per-call; median = that time).
 */
static char *put_set(const char *dir, const char *name, bool two_sockets, int cpus, bool loop)
{
	json_t *runs = json_array();
	for (size_t m = 0; m < 3; m++) {
		json_t *hv = json_array();
		for (int c = 0; c < cpus; c++)
			json_array_append_new(hv, json_pack("{s:i, s:i, s:b}", "cpu", c, "apic_id",
							    (int)apic_id(two_sockets, (unsigned int)c),
							    "online", 1));
		double t = ns_per_call(two_sockets, cpus, m);
		json_t *w = json_pack("{s:s, s:s, s:s, s:s, s:{s:i, s:i, s:b, s:s}, s:{s:i, s:i}}",
				      "name", "flush", "type", "flush_tlb_all", "status", "ok",
				      "path", "genapic", "params", "cpu", 0, "iterations", 100,
				      "shorthand", 0, "timing", loop ? "loop" : "per-call",
				      "counters", "operations", 200, "icr_writes",
				      200 * writes(two_sockets, cpus, m));
		if (loop) {
			json_object_set_new(w, "loops", json_pack(
				"[{s:I, s:i, s:s}, {s:I, s:i, s:s}]",
				"ns", (json_int_t)(100 * (t - 10)), "calls", 100, "sender", "genapic",
				"ns", (json_int_t)(100 * (t + 10)), "calls", 100, "sender", "genapic"));
			json_object_set_new(w, "samples", json_pack("{s:[], s:[]}", "ns", "cycles"));
		} else {
			json_object_set_new(w, "samples", json_pack(
				"{s:[f, f, f, f, f], s:[]}", "ns", t - 40, t - 20, t, t + 20, t + 40,
				"cycles"));
		}
		char id[32];
		snprintf(id, sizeof(id), "%s-r0", modes[m]);
		json_array_append_new(runs, json_pack(
			"{s:s, s:s, s:s, s:i, s:s, s:{s:o, s:b}, s:[o]}", "id", id, "mode", modes[m],
			"genapic", genapics[m], "repetition", 0, "status", "ok", "hv", "cpus", hv,
			"shorthand_eligible", 0, "workloads", w));
	}
	json_t *host = json_pack("{s:s, s:s, s:b, s:i, s:i}", "backend", "qemu", "name",
				 two_sockets ? "qemu-tcg-sweep-2s" : "qemu-tcg-sweep", "emulated", 1,
				 "cpus", cpus, "maxcpus", two_sockets ? 24 : cpus);
	json_object_set_new(host, "topology", two_sockets ? json_string(TOPO_2S) : json_null());
	json_t *r = json_pack("{s:i, s:s, s:o, s:o}", "schema_version", 1, "created",
			      "2026-12-01T18:00:00Z", "host", host, "runs", runs);
	char *d = path2(dir, name);
	assert_int_equal(mkdir(d, 0700), 0);
	char *f = path2(d, "results.json");
	assert_int_equal(json_dump_file(r, f, JSON_REAL_PRECISION(17)), 0);
	json_decref(r);
	free(f);
	return d;
}

/* Run the report on the sets; OUT/report.json loaded. */
static json_t *report(const char *out, char **sets, size_t n)
{
	char *argv[32] = { "report", "-q", "--no-reference", "-o", (char *)out };
	size_t k = 5;
	for (size_t i = 0; i < n; i++)
		argv[k++] = sets[i];
	argv[k] = NULL;
	assert_int_equal(run_quiet(cmd_report, argv), 0);
	char *p = path2(out, "report.json");
	json_t *j = json_load_file(p, 0, NULL);
	free(p);
	assert_non_null(j);
	return j;
}

/* The figures of series LABEL at CPUS in the sweep's JSON. */
static json_t *point(json_t *sweep, long cpus, const char *label)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(sweep, "points"), i, p)
		if (json_integer_value(json_object_get(p, "cpus")) == cpus)
			return json_object_get(json_object_get(p, "series"), label);
	return NULL;
}

static double jnum(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_number(v))
		fail_msg("%s is not a number", key);
	return json_number_value(v);
}

static void two_topologies_loop_timed(void **state)
{
	const char *dir = *state;
	static const int dense[] = { 8, 16, 32 }, twos[] = { 8, 16, 24 };
	char *sets[6], name[32];
	for (size_t i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "dense-c%d", dense[i]);
		sets[i] = put_set(dir, name, false, dense[i], true);
		snprintf(name, sizeof(name), "2s-c%d", twos[i]);
		sets[3 + i] = put_set(dir, name, true, twos[i], true);
	}
	char *out = path2(dir, "out");
	json_t *j = report(out, sets, 6);

	/* one sweep: both hosts, six series, four CPU counts */
	json_t *sweeps = json_object_get(j, "sweeps");
	assert_int_equal(json_array_size(sweeps), 1);
	json_t *s = json_array_get(sweeps, 0);
	assert_int_equal(json_array_size(json_object_get(s, "series")), 6);
	assert_int_equal(json_array_size(json_object_get(s, "points")), 4);
	assert_int_equal(json_array_size(json_object_get(s, "hosts")), 2);
	assert_string_equal(json_string_value(json_object_get(s, "time")),
			    "mean of timed loops, ns / calls");
	const char *label[6] = { "physical, dense", "cluster, dense", "mixed, dense",
				 "physical, " TOPO_2S, "cluster, " TOPO_2S, "mixed, " TOPO_2S };
	for (size_t i = 0; i < 6; i++)
		assert_string_equal(json_string_value(json_object_get(
			json_array_get(json_object_get(s, "series"), i), "label")), label[i]);
	for (size_t i = 0; i < 6; i++) {
		bool ts = i >= 3;
		for (size_t c = 0; c < 3; c++) {
			int cpus = ts ? twos[c] : dense[c];
			json_t *v = point(s, cpus, label[i]);
			if (!v)
				fail_msg("no point %d for %s", cpus, label[i]);
			int w = writes(ts, cpus, i % 3);
			assert_float_equal(jnum(v, "icr_writes_per_op"), w, 1e-9);
			assert_float_equal(jnum(v, "icr_writes_layout"), w, 1e-9);
			assert_float_equal(jnum(v, "ns_per_op"), ns_per_call(ts, cpus, i % 3), 1e-6);
			assert_string_equal(json_string_value(json_object_get(v, "time")), "loop mean");
		}
	}
	/* the topologies' CPU counts are their own; mixed over physical per topology */
	assert_null(point(s, 24, "physical, dense"));
	assert_null(point(s, 32, "mixed, " TOPO_2S));
	assert_float_equal(jnum(point(s, 16, "mixed, " TOPO_2S), "ratio_to_baseline"),
			   3500.0 / 15500.0, 1e-12);
	/* per-mode keys only when the sweep has one topology */
	assert_null(json_object_get(json_array_get(json_object_get(s, "points"), 0), "physical"));
	json_decref(j);

	/* the data: one block per series, the rows worked out by hand */
	char *f = path2(out, "icr-sweep-qemu-tcg-sweep-flush.dat");
	expect_in_file(f, "# cluster, dense\n8 1 1 2000 - -\n16 1 1 2000 - -\n32 2 2 3000 - -\n",
		       "# cluster, " TOPO_2S "\n8 1 1 2000 - -\n16 2 2 3000 - -\n24 2 2 3000 - -\n",
		       "# physical, " TOPO_2S "\n8 7 7 7500 - -\n16 15 15 15500 - -\n"
		       "24 23 23 23500 - -\n");
	free(f);
	f = path2(out, "icr-sweep-qemu-tcg-sweep-flush.gp");
	expect_in_file(f, "set logscale x 2\n", "set logscale y 2\n",
		       "ICR writes per operation vs CPUs",
		       "flush (flush_tlb_all) on 2 hosts, emulated (QEMU TCG)",
		       "index 4 using 1:3 with lines lc 2 dt 2 title 'cluster, " TOPO_2S ": what the layout implies'");
	free(f);
	f = path2(out, "sweep-qemu-tcg-sweep-flush.gp");
	expect_in_file(f, "set logscale x 2\n", "set logscale y 10\n",
		       "set xtics (8, 16, 24, 32)\n", "time per operation vs CPUs",
		       "set ylabel 'ns per operation (mean of timed loops, ns / calls)'",
		       "index 5 using 1:4 with linespoints lc 3 dt 2");
	expect_not_in_file(f, "yerrorlines", "IQR");
	free(f);
	const char *plots[] = { "sweep-qemu-tcg-sweep-flush", "icr-sweep-qemu-tcg-sweep-flush" };
	for (size_t i = 0; i < 2; i++) {
		char p[600];
		snprintf(p, sizeof(p), "%s/%s.png", out, plots[i]);
		if (!is_png(p))
			fail_msg("%s: missing or not a PNG", p);
	}

	/* the table: measured / layout, time, ratio */
	f = path2(out, "report.md");
	expect_in_file(f, "## Against CPU count: `flush` (flush_tlb_all), emulated (QEMU TCG)",
		       "| CPUs | physical, dense: ICR writes (measured / layout) | physical, dense: "
		       "ns per op |",
		       "| 16 | 15.00 / 15 | 15500 | 1.00 / 1 | 2000 | 1.00 / 1 | 2500 | 15.00 / 15 "
		       "| 15500 | 2.00 / 2 | 3000 | 2.00 / 2 | 3500 |",
		       "| 24 | - | - | - | - | - | - | 23.00 / 23 | 23500 |",
		       "![ICR writes per operation against CPU count](icr-sweep-qemu-tcg-sweep-flush.png)");
	expect_not_in_file(f, "MISMATCH");
	free(f);

	/* two hosts at one CPU count each: no series has a line, no sweep */
	char *out2 = path2(dir, "out2");
	char *one[2] = { sets[0], sets[4] };
	j = report(out2, one, 2);
	assert_int_equal(json_array_size(json_object_get(j, "sweeps")), 0);
	json_decref(j);
	free(out2);
	for (size_t i = 0; i < 6; i++)
		free(sets[i]);
	free(out);
}

/* Per-call timing: the median and its IQR, one topology (the per-mode
 * keys of before are kept), and a set whose CPU count is alone no sweep. */
static void per_call_one_topology(void **state)
{
	const char *dir = *state;
	static const int cpus[] = { 8, 16, 32 };
	char *sets[3], name[32];
	for (size_t i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "c%d", cpus[i]);
		sets[i] = put_set(dir, name, false, cpus[i], false);
	}
	char *out = path2(dir, "out");
	json_t *j = report(out, sets, 3);
	json_t *s = json_array_get(json_object_get(j, "sweeps"), 0);
	assert_non_null(s);
	assert_string_equal(json_string_value(json_object_get(s, "time")), "per-call median");
	json_t *p16 = json_array_get(json_object_get(s, "points"), 1);
	assert_float_equal(jnum(p16, "mixed"), 2500.0, 1e-9);
	json_t *v = point(s, 32, "physical, dense");
	assert_float_equal(jnum(v, "ns_per_op"), 31500.0, 1e-9);
	assert_string_equal(json_string_value(json_object_get(v, "time")), "per-call median");
	json_decref(j);
	char *f = path2(out, "sweep-qemu-tcg-sweep-flush.dat");
	expect_in_file(f, "# physical, dense\n8 7 7 7500 7480 7520\n16 15 15 15500 15480 15520\n");
	free(f);
	f = path2(out, "sweep-qemu-tcg-sweep-flush.gp");
	expect_in_file(f, "set logscale x 2\n", "set logscale y 10\n",
		       "ns per operation (per-call median; bars: IQR)",
		       "index 0 using 1:4:5:6 with yerrorlines lc 1 dt 1");
	free(f);
	free(out);

	out = path2(dir, "out1");
	j = report(out, sets, 1);
	assert_int_equal(json_array_size(json_object_get(j, "sweeps")), 0);
	json_decref(j);
	free(out);
	for (size_t i = 0; i < 3; i++)
		free(sets[i]);
}

/* host.topology is what names a series: one QEMU cannot take is refused
 * with its JSON path; one host name given two topologies is two series,
 * never pooled. */
static void topology_validated_and_keyed(void **state)
{
	const char *dir = *state;
	char *d = put_set(dir, "bad", true, 8, true);
	char *f = path2(d, "results.json");
	json_t *r = json_load_file(f, 0, NULL);
	json_object_set_new(json_object_get(r, "host"), "topology", json_string("sockets=0"));
	assert_int_equal(json_dump_file(r, f, 0), 0);
	json_decref(r);
	char *out = path2(dir, "out");
	fflush(stderr);
	expect_exit(cmd_report, 1, "report", "-q", "--no-reference", "-o", out, d);
	free(f);
	free(d);

	/* the dense set renamed to the 2-socket host's name */
	char *sets[2] = { put_set(dir, "a", true, 16, true), put_set(dir, "b", false, 16, true) };
	f = path2(sets[1], "results.json");
	r = json_load_file(f, 0, NULL);
	json_object_set_new(json_object_get(r, "host"), "name", json_string("qemu-tcg-sweep-2s"));
	assert_int_equal(json_dump_file(r, f, 0), 0);
	json_decref(r);
	free(f);
	char *sets3[3] = { sets[0], sets[1], put_set(dir, "c", true, 8, true) };
	json_t *j = report(out, sets3, 3);
	size_t n16 = 0, i;
	json_t *b;
	json_array_foreach(json_object_get(j, "workloads"), i, b)
		n16 += json_integer_value(json_object_get(b, "cpus")) == 16;
	assert_int_equal(n16, 2);
	json_t *s = json_array_get(json_object_get(j, "sweeps"), 0);
	assert_float_equal(jnum(point(s, 16, "cluster, dense"), "icr_writes_per_op"), 1, 1e-9);
	assert_float_equal(jnum(point(s, 16, "cluster, " TOPO_2S), "icr_writes_per_op"), 2, 1e-9);
	json_decref(j);
	char *md = path2(out, "report.md");
	expect_in_file(md, "## `flush` (flush_tlb_all) on qemu-tcg-sweep-2s, topology `dense`, 16 CPUs",
		       "## `flush` (flush_tlb_all) on qemu-tcg-sweep-2s, topology `" TOPO_2S "`, 16 CPUs");
	free(md);
	for (size_t k = 0; k < 3; k++)
		free(sets3[k]);
	free(out);
}

/* 9 hosts x 3 modes are 27 series, beyond the 24 a sweep draws: the
 * report says how many blocks it left out instead of dropping them
 * silently. */
static void too_many_series_said(void **state)
{
	const char *dir = *state;
	char *sets[18], name[32];
	for (int h = 0; h < 9; h++)
		for (int k = 0; k < 2; k++) {
			snprintf(name, sizeof(name), "h%d-c%d", h, 8 << k);
			char *d = sets[2 * h + k] = put_set(dir, name, false, 8 << k, true);
			char *f = path2(d, "results.json");
			json_t *r = json_load_file(f, 0, NULL);
			snprintf(name, sizeof(name), "host%d", h);
			json_object_set_new(json_object_get(r, "host"), "name", json_string(name));
			assert_int_equal(json_dump_file(r, f, 0), 0);
			json_decref(r);
			free(f);
		}
	char *out = path2(dir, "out");
	json_t *j = report(out, sets, 18);
	json_decref(j);
	char *md = path2(out, "report.md");
	/* the last host's 3 modes at 2 CPU counts */
	expect_in_file(md, "**6 blocks left out:** a sweep draws at most 24 series");
	free(md);
	for (size_t k = 0; k < 18; k++)
		free(sets[k]);
	free(out);
}

/* The inputs' paths of report.json, in order, must be WANT (NULL-ended). */
static void expect_inputs(json_t *j, const char *dir, const char *const *want)
{
	json_t *in = json_object_get(j, "inputs");
	size_t n = 0;
	for (; want[n]; n++) {
		char *p = path2(dir, want[n]);
		const char *got = json_string_value(json_object_get(json_array_get(in, n), "path"));
		if (!got || strcmp(got, p))
			fail_msg("inputs[%zu]: %s, not %s", n, got ? got : "(none)", p);
		free(p);
	}
	assert_int_equal(json_array_size(in), n);
}

/* `ipibench report DIR` on the folder `ipibench run` gives a sweep (its
 * config.ini and DIR/cN/results.json per CPU count) reads every CPU count,
 * in CPU order, and nothing else there; a build axis's DIR/xen-LABEL/ the
 * same; a set folder that is a symbolic link is refused. */
static void sweep_folder_read_whole(void **state)
{
	const char *dir = *state;
	static const int cpus[] = { 32, 8, 16 };
	char *sw = path2(dir, "sweep");
	assert_int_equal(mkdir(sw, 0700), 0);
	char *ini = path2(sw, "config.ini");
	FILE *f = fopen(ini, "w");
	assert_non_null(f);
	fputs("[host]\nbackend = qemu\n", f);
	fclose(f);
	for (size_t i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "c%d", cpus[i]);
		free(put_set(sw, name, false, cpus[i], true));
	}
	/* not set folders: a c-name that is not a count, an empty cN */
	free(put_set(sw, "c16x", false, 64, true));
	char *empty = path2(sw, "c64");
	assert_int_equal(mkdir(empty, 0700), 0);
	char *out = path2(dir, "out");
	json_t *j = report(out, &sw, 1);
	expect_inputs(j, sw, (const char *const[]){ "c8/results.json", "c16/results.json",
							  "c32/results.json", NULL });
	json_t *s = json_array_get(json_object_get(j, "sweeps"), 0);
	assert_non_null(s);
	assert_int_equal(json_array_size(json_object_get(s, "points")), 3);
	assert_float_equal(jnum(point(s, 32, "physical, dense"), "ns_per_op"), 31500.0, 1e-6);
	json_decref(j);

	/* a build axis: DIR/xen-LABEL/ */
	char *bx = path2(dir, "builds");
	assert_int_equal(mkdir(bx, 0700), 0);
	free(put_set(bx, "xen-4.20", false, 8, true));
	free(put_set(bx, "xen-4.17", false, 8, true));
	char *out2 = path2(dir, "out2");
	j = report(out2, &bx, 1);
	expect_inputs(j, bx, (const char *const[]){ "xen-4.17/results.json",
							   "xen-4.20/results.json", NULL });
	json_decref(j);

	/* a set folder that is a symbolic link */
	char *ln = path2(dir, "linked"), *c8 = path2(ln, "c8"), *target = path2(sw, "c8");
	assert_int_equal(mkdir(ln, 0700), 0);
	assert_int_equal(symlink(target, c8), 0);
	fflush(stderr);
	expect_exit(cmd_report, 1, "report", "-q", "--no-reference", "-o", out2, ln);
	/* and a folder with neither results.json nor set folders */
	expect_exit(cmd_report, 1, "report", "-q", "--no-reference", "-o", out2, empty);
	free(ln), free(c8), free(target), free(bx), free(out2), free(out), free(empty);
	free(ini), free(sw);
}

int main(void)
{
	an_quiet = true;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(two_topologies_loop_timed, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(per_call_one_topology, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(topology_validated_and_keyed, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(too_many_series_said, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(sweep_folder_read_whole, tmpdir_setup,
						tmpdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
