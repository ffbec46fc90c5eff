/* SPDX-License-Identifier: GPL-3.0-or-later */
/* analysis/tests/test_history.c: `ipibench history` flags the injected
 * slowdown (set3, flush, mixed: +20%) and nothing else, on the run-level
 * samples (10 timed loops per set), and judges boots when there are. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <jansson.h>

#include "analysis/analysis.h"
#include "analysis/internal.h"
#include "analysis/tests/helpers.h"

#define H DATA "/history"

static json_t *load(const char *dir)
{
	char *p = path2(dir, "history.json");
	json_t *j = json_load_file(p, 0, NULL);
	free(p);
	return j;
}

/* Every flagged point, as "host/cpus/workload/mode@results". */
static size_t flagged(json_t *h, char list[][256], size_t max)
{
	size_t n = 0, i, k;
	json_t *s, *p;
	json_array_foreach(json_object_get(h, "series"), i, s)
		json_array_foreach(json_object_get(s, "points"), k, p)
			if (json_is_true(json_object_get(p, "regression"))) {
				if (n < max)
					snprintf(list[n], 256, "%s/%lld/%s/%s@%s",
						 json_string_value(json_object_get(s, "host")),
						 (long long)json_integer_value(json_object_get(s, "cpus")),
						 json_string_value(json_object_get(s, "workload")),
						 json_string_value(json_object_get(s, "mode")),
						 json_string_value(json_object_get(p, "results")));
				n++;
			}
	return n;
}

static void flags_exactly_the_injected_slowdown(void **state)
{
	char *o = *state;
	expect_exit(cmd_history, 0, "history", "-q", "-o", o, H);
	json_t *h = load(o);
	assert_non_null(h);
	assert_int_equal(json_array_size(json_object_get(h, "result_sets")), 5);
	/* 2 workloads x 3 modes */
	assert_int_equal(json_array_size(json_object_get(h, "series")), 6);
	char list[8][256];
	assert_int_equal(flagged(h, list, 8), 1);
	assert_string_equal(list[0], "xen-x86-16cpu/16/flush/mixed@" H "/set3/results.json");
	assert_int_equal(json_integer_value(json_object_get(h, "regressions")), 1);
	assert_non_null(strstr(json_string_value(json_object_get(h, "rule")),
			       "proves at 95% confidence a slowdown of more than 5%"));
	assert_non_null(strstr(json_string_value(json_object_get(h, "rule")),
			       "run-level samples"));
	/* the flagged point was judged on the set's timed loops, by ministat */
	json_t *s, *p;
	size_t si, pi;
	json_array_foreach(json_object_get(h, "series"), si, s)
		json_array_foreach(json_object_get(s, "points"), pi, p)
			if (json_is_true(json_object_get(p, "regression"))) {
				assert_string_equal(json_string_value(json_object_get(p, "unit")),
						    "loops");
				json_t *c = json_object_get(p, "comparison");
				assert_true(json_is_true(json_object_get(c, "proven")));
				double pct = json_number_value(json_object_get(c, "percent"));
				assert_true(pct > 15.0 && pct < 25.0);
				assert_int_equal(json_integer_value(json_object_get(
					json_object_get(p, "runlevel"), "n")), 10);
			}
	json_decref(h);

	char *idx = path2(o, "index.html");
	expect_in_file(idx, "<img src=\"history-xen-x86-16cpu-16cpu-flush.png\"",
		"<img src=\"history-xen-x86-16cpu-16cpu-ipi8.png\"",
		"<table>",
		"REGRESSION",
		"Regression rule");
	free(idx);
	char *md = path2(o, "history.md");
	expect_in_file(md, "**REGRESSION**",
		"(10 loops)");
	free(md);
	char f[512];
	snprintf(f, sizeof(f), "%s/history-xen-x86-16cpu-16cpu-flush.png", o);
	assert_true(is_png(f));
	snprintf(f, sizeof(f), "%s/history-xen-x86-16cpu-16cpu-flush.svg", o);
	assert_true(is_svg(f));
	snprintf(f, sizeof(f), "%s/history-xen-x86-16cpu-16cpu-flush.gp", o);
	assert_true(file_contains(f, "yerrorlines"));
	assert_false(has_tmp_files(o));
}

static void order_is_by_commit_date_not_arguments(void **state)
{
	char *o = *state;
	char *argv[] = { "history", "-q", "-o", o, H "/set5", H "/set4/results.json",
			 H "/set3", H "/set2", H "/set1", NULL };
	assert_int_equal(run_quiet(cmd_history, argv), 0);
	json_t *h = load(o);
	json_t *sets = json_object_get(h, "result_sets");
	assert_string_equal(json_string_value(json_object_get(json_array_get(sets, 0), "commit")),
			    "c0ffee1");
	assert_string_equal(json_string_value(json_object_get(json_array_get(sets, 4), "commit")),
			    "c0ffee5");
	char list[8][256];
	assert_int_equal(flagged(h, list, 8), 1);
	assert_string_equal(list[0], "xen-x86-16cpu/16/flush/mixed@" H "/set3/results.json");
	json_decref(h);
}

static void fail_on_regression_exit_codes(void **state)
{
	char *o = *state;
	expect_exit(cmd_history, 3, "history", "-q", "-o", o, "--fail-on-regression", H);
	/* set3 is not the newest of its series: latest does not fail ... */
	expect_exit(cmd_history, 0, "history", "-q", "-o", o, "--fail-on-regression=latest", H);
	/* ... until it is */
	char *a3[] = { "history", "-q", "-o", o, "--fail-on-regression=latest",
		       H "/set1", H "/set2", H "/set3", NULL };
	assert_int_equal(run_quiet(cmd_history, a3), 3);
	/* a 25% threshold does not flag a 19% slowdown */
	expect_exit(cmd_history, 0, "history", "-q", "-o", o, "--fail-on-regression", "-t", "25", H);
	json_t *h = load(o);
	assert_int_equal(json_integer_value(json_object_get(h, "regressions")), 0);
	json_decref(h);
	/* without the slowdown nothing is flagged */
	char *a5[] = { "history", "-q", "-o", o, "--fail-on-regression", H "/set1", H "/set2",
		       H "/set4", H "/set5", NULL };
	assert_int_equal(run_quiet(cmd_history, a5), 0);
}

/* The fixture DATA/FIXTURE (a results.json) as of COMMIT and CREATED. */
static json_t *fixture_as_of(const char *fixture, const char *commit, const char *created)
{
	char *f = path2(DATA, fixture);
	json_t *r = json_load_file(f, 0, NULL);
	free(f);
	assert_non_null(r);
	json_object_set_new(json_object_get(r, "tool"), "commit", json_string(commit));
	json_object_set_new(r, "created", json_string(created));
	return r;
}

/* R as the results of a real host (host.emulated false): the time rules
 * judge only those. */
static json_t *real_host(json_t *r)
{
	json_t *host = json_object_get(r, "host");
	json_object_set_new(host, "emulated", json_false());
	json_object_set_new(host, "backend", json_string("reboot"));
	return r;
}

/* R written as DIR/NAME/results.json, and released. */
static void put_set(const char *dir, const char *name, json_t *r)
{
	char *sub = path2(dir, name);
	mkdir(sub, 0755);
	char *p = path2(sub, "results.json");
	assert_int_equal(json_dump_file(r, p, 0), 0);
	json_decref(r);
	free(p);
	free(sub);
}

/* DIR/NAME/results.json: boots/ (3 boots per mode) with commit and date
 * changed and every mixed loop scaled. */
static void boots_set(const char *dir, const char *name, const char *commit,
		      const char *created, double mixed_scale)
{
	json_t *r = real_host(fixture_as_of("boots/results.json", commit, created));
	size_t i, k, l;
	json_t *run, *w, *loop;
	json_array_foreach(json_object_get(r, "runs"), i, run) {
		if (strcmp(json_string_value(json_object_get(run, "mode")), "mixed"))
			continue;
		json_array_foreach(json_object_get(run, "workloads"), k, w)
			json_array_foreach(json_object_get(w, "loops"), l, loop) {
				json_int_t ns = json_integer_value(json_object_get(loop, "ns"));
				json_object_set_new(loop, "ns", json_integer(
					(json_int_t)((double)ns * mixed_scale)));
			}
	}
	put_set(dir, name, r);
}

/* With repetitions >= 2 the boot is the unit: a 30% slowdown is flagged,
 * a 3% one (inside the boots' spread) is not, though each boot's loops
 * would call it certain. */
static void boots_are_the_unit_with_repetitions(void **state)
{
	char *dir = tmp_subdir(*state, "in"), *o = tmp_subdir(*state, "out");
	boots_set(dir, "a", "b00701", "2026-11-21T08:00:00Z", 1.0);
	boots_set(dir, "b", "b00702", "2026-11-22T08:00:00Z", 1.03);
	boots_set(dir, "c", "b00703", "2026-11-23T08:00:00Z", 1.03 * 1.3);
	expect_exit(cmd_history, 0, "history", "-q", "-o", o, dir);
	json_t *h = load(o);
	char list[8][256];
	assert_int_equal(flagged(h, list, 8), 1);
	assert_non_null(strstr(list[0], "/flush/mixed@"));
	assert_non_null(strstr(list[0], "/c/results.json"));
	json_t *s, *p;
	size_t si, pi;
	json_array_foreach(json_object_get(h, "series"), si, s)
		json_array_foreach(json_object_get(s, "points"), pi, p)
			if (pi > 0)
				assert_string_equal(json_string_value(json_object_get(p, "unit")),
						    "boots");
	json_decref(h);
	free(o);
	free(dir);
}

/* The time rule gates on the lower bound of Fieller's interval of the
 * ratio (Welch's t), not on ministat's difference% - half-width%, which
 * treats the previous set's mean as exact: over slowdowns between sets of
 * 3 boots, every point is flagged exactly when Welch's t proves it and the
 * interval's lower bound is above 5%.  At +13.2% the half-width rule's
 * bound is above 5% and Fieller's is not (both near 5.1% and 4.9%). */
static void threshold_on_fieller_lower_bound(void **state)
{
	char *dir = tmp_subdir(*state, "in"), *o = tmp_subdir(*state, "out");
	char name[32], commit[32], created[64];
	size_t k = 0;
	static const double scales[] = { 1.0, 1.05, 1.10, 1.132, 1.15, 1.2, 1.3, 1.6 };
	for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++) {
		double scale = scales[i];
		for (int up = 0; up < 2; up++, k++) {	/* 1.0, scale, 1.0, ... */
			snprintf(name, sizeof(name), "s%02zu", k);
			snprintf(commit, sizeof(commit), "c0%04zu", k);
			snprintf(created, sizeof(created), "2026-10-%02zuT%02zu:00:00Z", 1 + k / 24,
				 k % 24);
			boots_set(dir, name, commit, created, up ? scale : 1.0);
		}
	}
	expect_exit(cmd_history, 0, "history", "-q", "-o", o, dir);
	json_t *h = load(o);
	size_t si, pi, flagged_n = 0, differ = 0;
	json_t *s, *p;
	json_array_foreach(json_object_get(h, "series"), si, s) {
		if (strcmp(json_string_value(json_object_get(s, "mode")), "mixed"))
			continue;
		json_array_foreach(json_object_get(s, "points"), pi, p) {
			json_t *c = json_object_get(p, "comparison");
			if (!pi || !json_is_object(c))
				continue;
			assert_string_equal(json_string_value(json_object_get(c, "test")), "Welch's t");
			bool proven = json_is_true(json_object_get(c, "proven"));
			double pct = json_number_value(json_object_get(c, "percent"));
			double lo = json_number_value(json_object_get(c, "percent_lo"));
			double diff = json_number_value(json_object_get(c, "difference"));
			double half = json_number_value(json_object_get(c, "half_width"));
			bool flag = json_is_true(json_object_get(p, "regression"));
			assert_int_equal(flag, proven && lo > 5.0);
			flagged_n += flag;
			/* half-width / previous mean, as a percentage */
			double old_half = diff != 0.0 ? half / diff * pct : 0.0;
			differ += proven && pct - old_half > 5.0 && !flag;
		}
	}
	assert_true(flagged_n >= 1);
	assert_true(differ >= 1);
	json_decref(h);
	free(o);
	free(dir);
}

/* A workload's insn_counts: 100 operations, send path SEND and wait WAIT
 * instructions per operation, handlers 117, ICR writes agreeing. */
static json_t *insn_counts(double send, double wait)
{
	return json_pack("{s:i, s:f, s:f, s:i, s:f, s:i, s:i, s:i}", "operations", 100,
			 "send_insns_per_op", send, "wait_insns_per_op", wait, "handlers", 700,
			 "handler_insns_mean", 117.0, "handler_insns_max", 117, "icr_writes", 100,
			 "icr_writes_hv", 100);
}

/* DIR/NAME/results.json: boots/ with commit and date changed (times
 * unchanged) and insn_counts in every run: mixed mode's send path SEND
 * instructions per operation, physical's 1400, handlers 117. */
static void insn_set(const char *dir, const char *name, const char *commit,
		     const char *created, double send)
{
	json_t *r = fixture_as_of("boots/results.json", commit, created);
	size_t i, k;
	json_t *run, *w;
	json_array_foreach(json_object_get(r, "runs"), i, run) {
		bool mixed = !strcmp(json_string_value(json_object_get(run, "mode")), "mixed");
		json_array_foreach(json_object_get(run, "workloads"), k, w)
			json_object_set_new(w, "insn_counts",
					    insn_counts(mixed ? send : 1400.0, 2000.0 + 100.0 * (double)i));
	}
	put_set(dir, name, r);
}

/* The instruction-count rule: extra work in mixed mode's send loop (+2%,
 * set c) is flagged where the times (unchanged here; on an emulated host,
 * noise) cannot tell; +0.2% (set b) is inside the 0.5% threshold. */
static void insn_counts_flag_a_changed_send_path(void **state)
{
	char *dir = tmp_subdir(*state, "in"), *o = tmp_subdir(*state, "out");
	insn_set(dir, "a", "c00701", "2026-11-21T08:00:00Z", 500.0);
	insn_set(dir, "b", "c00702", "2026-11-22T08:00:00Z", 501.0);
	insn_set(dir, "c", "c00703", "2026-11-23T08:00:00Z", 510.0);
	char *argv[] = { "history", "-q", "-o", o, "--fail-on-regression", dir, NULL };
	assert_int_equal(run_quiet(cmd_history, argv), 3);
	json_t *h = load(o), *s, *p;
	size_t si, pi, changed = 0, with = 0;
	char list[8][256];
	assert_int_equal(flagged(h, list, 8), 0);  /* the time rule: nothing */
	json_array_foreach(json_object_get(h, "series"), si, s)
		json_array_foreach(json_object_get(s, "points"), pi, p) {
			json_t *ic = json_object_get(p, "insn_counts");
			with += ic != NULL;
			if (!json_is_true(json_object_get(ic, "changed")))
				continue;
			changed++;
			assert_string_equal(json_string_value(json_object_get(s, "mode")), "mixed");
			assert_non_null(strstr(json_string_value(json_object_get(p, "results")),
					       "/c/results.json"));
			assert_true(fabs(json_real_value(json_object_get(ic, "send_change")) -
					 (510.0 / 501.0 - 1.0)) < 1e-9);
		}
	assert_int_equal(changed, 1);
	assert_true(with >= 6);
	assert_int_equal(json_integer_value(json_object_get(h, "regressions")), 1);
	json_decref(h);
	char *md = path2(o, "history.md");
	assert_true(file_contains(md, "Instruction counts (3 series): instruction counts per operation"));
	assert_true(file_contains(md, "send 510.0 (+1.80%), handler 117.0 (+0.00%) **changed**"));
	free(md);
	/* A 2% threshold lets it pass. */
	char *a2[] = { "history", "-q", "-o", o, "--fail-on-regression", "--insn-threshold", "2",
		       dir, NULL };
	assert_int_equal(run_quiet(cmd_history, a2), 0);
	free(o);
	free(dir);
}

/* DIR/NAME/results.json: boots/ on its emulated host, every mixed loop
 * scaled by MIXED_SCALE, and per run insn_counts with the send path's
 * per-call minimum SEND_MIN (its mean 0.05% above: an interrupt inside a
 * call) and ICR writes ICR per operation (counters and plugin). */
static void emu_set(const char *dir, const char *name, const char *commit, const char *created,
		    double mixed_scale, double send_min, double icr)
{
	json_t *r = fixture_as_of("boots/results.json", commit, created);
	size_t i, k, l;
	json_t *run, *w, *loop;
	assert_true(json_is_true(json_object_get(json_object_get(r, "host"), "emulated")));
	json_array_foreach(json_object_get(r, "runs"), i, run) {
		bool mixed = !strcmp(json_string_value(json_object_get(run, "mode")), "mixed");
		json_array_foreach(json_object_get(run, "workloads"), k, w) {
			if (mixed)
				json_array_foreach(json_object_get(w, "loops"), l, loop) {
					json_int_t ns = json_integer_value(json_object_get(loop, "ns"));
					json_object_set_new(loop, "ns", json_integer(
						(json_int_t)((double)ns * mixed_scale)));
				}
			json_t *ic = insn_counts(send_min * 1.0005, 2000.0 + 100.0 * (double)i);
			/* counts are integers, as runner/insncount.c writes them */
			json_object_set_new(ic, "send_insns_min", json_integer((json_int_t)send_min));
			json_object_set_new(ic, "handler_insns_min", json_integer(117));
			json_object_set_new(ic, "icr_writes", json_integer((json_int_t)(icr * 100)));
			json_object_set_new(ic, "icr_writes_hv", json_integer((json_int_t)(icr * 100)));
			json_object_set_new(w, "insn_counts", ic);
			json_t *c = json_object_get(w, "counters");
			json_int_t ops = json_integer_value(json_object_get(c, "operations"));
			json_object_set_new(c, "icr_writes", json_integer((json_int_t)(icr * (double)ops)));
		}
	}
	put_set(dir, name, r);
}

/* Every point of history.json whose exact counts changed, as
 * "mode@results"; *nchanged their number. */
static size_t exact_changed(json_t *h, char list[][256], size_t max)
{
	size_t n = 0, i, k;
	json_t *s, *p;
	json_array_foreach(json_object_get(h, "series"), i, s)
		json_array_foreach(json_object_get(s, "points"), k, p)
			if (json_is_true(json_object_get(p, "exact_changed"))) {
				if (n < max)
					snprintf(list[n], 256, "%s@%s",
						 json_string_value(json_object_get(s, "mode")),
						 json_string_value(json_object_get(p, "results")));
				n++;
			}
	return n;
}

/* On an emulated host the times never gate: mixed's boots twice as slow
 * (what two boots of one build gave under load) are shown with their
 * spread and no verdict, and the pipeline passes; the exact counts gate
 * instead. */
static void emulated_times_never_gate(void **state)
{
	char *dir = tmp_subdir(*state, "in"), *o = tmp_subdir(*state, "out");
	emu_set(dir, "a", "e00701", "2026-11-21T08:00:00Z", 1.0, 939, 15);
	emu_set(dir, "b", "e00702", "2026-11-22T08:00:00Z", 2.2, 939, 15);
	char *argv[] = { "history", "-q", "-o", o, "--fail-on-regression", dir, NULL };
	assert_int_equal(run_quiet(cmd_history, argv), 0);
	json_t *h = load(o), *s, *p;
	size_t si, pi, judged = 0;
	char list[8][256];
	assert_int_equal(flagged(h, list, 8), 0);
	assert_int_equal(exact_changed(h, list, 8), 0);
	assert_int_equal(json_integer_value(json_object_get(h, "regressions")), 0);
	json_array_foreach(json_object_get(h, "series"), si, s)
		json_array_foreach(json_object_get(s, "points"), pi, p)
			if (pi > 0) {
				assert_true(json_is_true(json_object_get(p, "emulated_no_verdict")));
				assert_true(json_is_null(json_object_get(p, "comparison")));
				judged++;
			}
	assert_int_equal(judged, 3);
	json_array_foreach(json_object_get(h, "series"), si, s) {
		double sp = json_number_value(json_object_get(s, "boot_spread"));
		bool mixed = !strcmp(json_string_value(json_object_get(s, "mode")), "mixed");
		assert_true(mixed ? sp > 2.0 && sp < 2.4 : sp >= 1.0 && sp < 1.01);
	}
	json_decref(h);
	char *md = path2(o, "history.md");
	assert_true(file_contains(md, "emulated: no verdict"));
	assert_true(file_contains(md, "Emulated host (3 series): on an emulated host"));
	assert_true(file_contains(md, "Emulated, mixed: boot-to-boot spread of the sets' run-level means x2."));
	assert_false(file_contains(md, "REGRESSION"));
	free(md);
	free(o);
	free(dir);
}

/* One instruction more per operation on the send path's minimum (+0.1%,
 * inside the means' 0.5%) fails the pipeline, and so does one fewer, and
 * a change of ICR writes per operation; the times (unchanged) do not. */
static void exact_counts_flag_one_instruction(void **state)
{
	char *dir = tmp_subdir(*state, "in"), *o = tmp_subdir(*state, "out");
	emu_set(dir, "a", "f00701", "2026-11-21T08:00:00Z", 1.0, 939, 15);
	emu_set(dir, "b", "f00702", "2026-11-22T08:00:00Z", 1.0, 939, 15);
	char *argv[] = { "history", "-q", "-o", o, "--fail-on-regression=latest", dir, NULL };
	assert_int_equal(run_quiet(cmd_history, argv), 0);
	emu_set(dir, "c", "f00703", "2026-11-23T08:00:00Z", 1.0, 940, 15);
	assert_int_equal(run_quiet(cmd_history, argv), 3);
	json_t *h = load(o);
	char list[8][256];
	/* three modes, each flagged at c only */
	assert_int_equal(exact_changed(h, list, 8), 3);
	for (size_t i = 0; i < 3; i++)
		assert_non_null(strstr(list[i], "/c/results.json"));
	json_decref(h);
	char *md = path2(o, "history.md");
	assert_true(file_contains(md, "send path instructions (minimum per operation) 940 (was 939, +1)"));
	assert_true(file_contains(md, "**COUNTS CHANGED**"));
	free(md);
	emu_set(dir, "d", "f00704", "2026-11-24T08:00:00Z", 1.0, 939, 15);
	assert_int_equal(run_quiet(cmd_history, argv), 3);	/* either way */
	emu_set(dir, "e", "f00705", "2026-11-25T08:00:00Z", 1.0, 939, 15);
	assert_int_equal(run_quiet(cmd_history, argv), 0);
	emu_set(dir, "f", "f00706", "2026-11-26T08:00:00Z", 1.0, 939, 1);
	assert_int_equal(run_quiet(cmd_history, argv), 3);
	md = path2(o, "history.md");
	assert_true(file_contains(md, "ICR writes per operation 1 (was 15, -14)"));
	free(md);
	free(o);
	free(dir);
}

/* Real host, ten sets: a lasting +15% step at the seventh set is one
 * change point, where it began, and fails --fail-on-regression=latest in
 * the history where it is first found only; a single slow set (the
 * fourth, +10%) is no change point. */
static void change_point_where_it_began(void **state)
{
	char *dir = tmp_subdir(*state, "in"), *o = tmp_subdir(*state, "out");
	char name[16], commit[32], created[48];
	int first_found = 0, fails = 0;
	for (int i = 1; i <= 10; i++) {
		snprintf(name, sizeof(name), "s%02d", i);
		snprintf(commit, sizeof(commit), "d007%02d", i);
		snprintf(created, sizeof(created), "2026-11-%02dT08:00:00Z", i);
		/* the sets' own spread: +/- 1% */
		double jitter = 1.0 + 0.005 * (double)((i * 7) % 5 - 2);
		boots_set(dir, name, commit, created, jitter * (i == 4 ? 1.1 : i >= 7 ? 1.15 : 1.0));
		char *argv[] = { "history", "-q", "-o", o, "--threshold", "5",
				 "--fail-on-regression=latest", dir, NULL };
		int rc = run_quiet(cmd_history, argv);
		json_t *h = load(o), *s, *p;
		size_t si, pi, ncp = 0;
		json_array_foreach(json_object_get(h, "series"), si, s)
			json_array_foreach(json_object_get(s, "points"), pi, p)
				if (json_is_true(json_object_get(p, "change_point"))) {
					assert_string_equal(json_string_value(json_object_get(s, "mode")),
							    "mixed");
					assert_non_null(strstr(json_string_value(json_object_get(p, "results")),
							       "/s07/"));
					ncp++;
					if (json_is_true(json_object_get(p, "change_point_new")) && !first_found)
						first_found = i;
				}
		assert_true(ncp <= 1);
		json_decref(h);
		/* the pairwise rule may flag s04 (+10%) and s07 when they are newest */
		if (rc == 3 && i != 4 && i != 7)
			fails++;
	}
	assert_true(first_found >= 9);	/* three sets after the step, or more */
	assert_int_equal(fails, 1);	/* the change point's own history only */
	free(o);
	free(dir);
}

/* loops/results.json as the agent writes a loop-timed workload (its loops,
 * no per-call samples), with commit, date and the send path's count. */
static void loops_only_set(const char *dir, const char *name, const char *commit,
			   const char *created, double send)
{
	json_t *r = fixture_as_of("loops/results.json", commit, created), *run, *w;
	size_t i, k;
	json_array_foreach(json_object_get(r, "runs"), i, run)
		json_array_foreach(json_object_get(run, "workloads"), k, w) {
			json_object_set_new(json_object_get(w, "samples"), "ns", json_array());
			json_object_set_new(w, "insn_counts", insn_counts(send, 2000.0));
		}
	put_set(dir, name, r);
}

/* A loop-timed workload has no per-call samples: its series is in the
 * history all the same, judged on its loops, with its counts flagged. */
static void loop_timed_workloads_have_series(void **state)
{
	char *dir = tmp_subdir(*state, "in"), *o = tmp_subdir(*state, "out");
	loops_only_set(dir, "a", "c00801", "2026-11-21T08:00:00Z", 939.0);
	loops_only_set(dir, "b", "c00802", "2026-11-22T08:00:00Z", 1044.0);
	char *argv[] = { "history", "-q", "-o", o, dir, NULL };
	assert_int_equal(run_quiet(cmd_history, argv), 0);
	json_t *h = load(o), *s, *p;
	size_t si, n = 0;
	json_array_foreach(json_object_get(h, "series"), si, s) {
		json_t *pts = json_object_get(s, "points");
		assert_int_equal(json_array_size(pts), 2);
		p = json_array_get(pts, 1);
		assert_string_equal(json_string_value(json_object_get(p, "unit")), "loops");
		assert_true(json_is_null(json_object_get(p, "median_per_call")));
		assert_true(json_integer_value(json_object_get(json_object_get(p, "runlevel"),
							       "n")) >= 2);
		assert_true(json_is_true(json_object_get(json_object_get(p, "insn_counts"),
							 "changed")));
		n++;
	}
	assert_true(n >= 3);	/* flush in each mode at least */
	json_decref(h);
	free(o);
	free(dir);
}

/* --link with http(s) and relative links: made, in index.html as given. */
static void links_http_and_relative(void **state)
{
	char *o = *state;
	expect_exit(cmd_history, 0, "history", "-q", "-o", o, "--link", "CI=https://ci.example/p?a=1",
		    "--link", "report=../report/report.md", "--link", "top=#regressions",
		    "--link", "old=HTTP://ci.example/", H);
	char *p = path2(o, "index.html");
	assert_true(file_contains(p, "href=\"https://ci.example/p?a=1\""));
	assert_true(file_contains(p, "href=\"../report/report.md\""));
	free(p);
}

/* A previous set whose mixed samples are all 0: no "+inf%", no flag, the
 * point kept in history.json, and instruction counts of a later set stay
 * with that set's point. */
static void all_zero_previous_set(void **state)
{
	char *dir = tmp_subdir(*state, "in"), *o = tmp_subdir(*state, "out");
	boots_set(dir, "a", "z00701", "2026-11-21T08:00:00Z", 0.0);
	boots_set(dir, "b", "z00702", "2026-11-22T08:00:00Z", 1.0);
	insn_set(dir, "c", "z00703", "2026-11-23T08:00:00Z", 500.0);
	expect_exit(cmd_history, 0, "history", "-q", "-o", o, dir);
	json_t *h = load(o), *s, *p;
	size_t si, pi, mixed = 0;
	json_array_foreach(json_object_get(h, "series"), si, s) {
		json_t *pts = json_object_get(s, "points");
		assert_int_equal(json_array_size(pts), 3);
		json_array_foreach(pts, pi, p) {
			const char *res = json_string_value(json_object_get(p, "results"));
			assert_non_null(strstr(res, pi == 0 ? "/a/" : pi == 1 ? "/b/" : "/c/"));
			assert_true((json_object_get(p, "insn_counts") != NULL) == (pi == 2));
		}
		if (strcmp(json_string_value(json_object_get(s, "mode")), "mixed"))
			continue;
		mixed++;
		p = json_array_get(pts, 1);
		assert_true(json_is_true(json_object_get(p, "previous_all_zero")));
		assert_true(json_is_null(json_object_get(p, "change")));
		assert_false(json_is_true(json_object_get(p, "regression")));
	}
	assert_int_equal(mixed, 1);
	json_decref(h);
	char *md = path2(o, "history.md"), *html = path2(o, "index.html");
	assert_false(file_contains(md, "inf%"));
	assert_false(file_contains(html, "inf%"));
	assert_true(file_contains(md, "previous set all 0: not compared"));
	free(md);
	free(html);
	free(o);
	free(dir);
}

static void bad_input_and_usage(void **state)
{
	char *o = *state;
	expect_exit(cmd_history, 1, "history", "-q", "-o", o, DATA "/invalid.json");
	expect_exit(cmd_history, 1, "history", "-q", "-o", o, DATA "/hyperfine.json");
	expect_exit(cmd_history, 1, "history", "-q", "-o", o, "/nonexistent");
	expect_exit(cmd_history, 2, "history", "-t", "abc", H);
	expect_exit(cmd_history, 2, "history", "--fail-on-regression=sometimes", H);
	expect_exit(cmd_history, 0, "history", "--help");
	/* --link: http(s) or relative only, refused before any input is read */
	expect_exit(cmd_history, 2, "history", "-q", "-o", o, "--link", "x=javascript:alert(1)", H);
	expect_exit(cmd_history, 2, "history", "-q", "-o", o, "--link", "x=JavaScript:alert(1)", H);
	expect_exit(cmd_history, 2, "history", "-q", "-o", o, "--link", "x= javascript:alert(1)", H);
	expect_exit(cmd_history, 2, "history", "-q", "-o", o, "--link", "x=java\tscript:alert(1)", H);
	expect_exit(cmd_history, 2, "history", "-q", "-o", o, "--link", "x=data:text/html,<b>", H);
	expect_exit(cmd_history, 2, "history", "-q", "-o", o, "--link", "x=//evil.example/", H);
	expect_exit(cmd_history, 2, "history", "-q", "-o", o, "--link", "x=vbscript:x", H);
	char *p = path2(o, "index.html");
	assert_int_equal(file_size(p), -1);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(flags_exactly_the_injected_slowdown, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(order_is_by_commit_date_not_arguments, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(fail_on_regression_exit_codes, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(boots_are_the_unit_with_repetitions, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(threshold_on_fieller_lower_bound, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(insn_counts_flag_a_changed_send_path, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(emulated_times_never_gate, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(exact_counts_flag_one_instruction, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(change_point_where_it_began, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(loop_timed_workloads_have_series, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(all_zero_previous_set, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(links_http_and_relative, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(bad_input_and_usage, tmpdir_setup, tmpdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
