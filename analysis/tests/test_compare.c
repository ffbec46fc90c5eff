/* SPDX-License-Identifier: GPL-3.0-or-later */
/* analysis/tests/test_compare.c: comparisons on the right unit.
 *   - loops of one boot per mode: the ministat block, with the caveat;
 *   - paired senders: "IPI send routine, one boot", the A/A control reads
 *     "No difference proven", physical vs cluster is found with its
 *     half-width;
 *   - boots (repetitions >= 2): the variance between boots enters the
 *     error, where pooled loops would call a boot difference certain;
 *   - the report's ministat figures are the ministat binary's;
 *   - repeated perf stat files; bad "loops" refused. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <jansson.h>

#include "analysis/analysis.h"
#include "analysis/compare.h"
#include "analysis/internal.h"
#include "analysis/ministat.h"
#include "analysis/tests/helpers.h"

static json_t *report_json(const char *input, char **outdir)
{
	*outdir = make_tmpdir();
	expect_exit(cmd_report, 0, "report", "-q", "--no-reference", "-o", *outdir, (char *)input);
	char *p = path2(*outdir, "report.json");
	json_t *j = json_load_file(p, 0, NULL);
	free(p);
	assert_non_null(j);
	return j;
}

static json_t *block(json_t *rep, const char *workload)
{
	json_t *b = json_find(json_object_get(rep, "workloads"), "workload", workload);

	if (!b)
		fail_msg("no block %s", workload);
	return b;
}

static double jnum(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	assert_true(json_is_number(v));
	return json_number_value(v);
}

static void loops_of_one_boot_say_so(void **state)
{
	(void)state;
	char *o;
	json_t *rep = report_json(DATA "/loops", &o);
	json_t *cmp = json_object_get(block(rep, "flush"), "comparison");
	assert_string_equal(json_string_value(json_object_get(cmp, "unit")), "loops");
	assert_string_equal(json_string_value(json_object_get(cmp, "caveat")), cmp_one_boot_caveat);
	json_t *rows = json_object_get(cmp, "rows");
	assert_int_equal(json_array_size(rows), 3);
	assert_int_equal(jnum(json_array_get(rows, 0), "n"), 8);
	char *md = path2(o, "report.md");
	assert_true(file_contains(md, "one boot per mode: boot-to-boot variance is unknown, so a "
				      "difference between modes cannot be told from a difference "
				      "between boots"));
	assert_true(file_contains(md, "Per-call latency, one boot"));
	free(md);
	json_decref(rep);
	rm_rf(o);
	free(o);
}

static void paired_senders_and_a_a_control(void **state)
{
	(void)state;
	char *o;
	json_t *rep = report_json(DATA "/loops", &o);
	size_t i;
	json_t *p;
	size_t n = 0;
	json_array_foreach(json_object_get(block(rep, "ipi-senders"), "paired"), i, p) {
		assert_string_equal(json_string_value(json_object_get(p, "label")),
				    "IPI send routine, one boot");
		assert_string_equal(json_string_value(json_object_get(p, "unit")),
				    "loop pairs within one boot");
		assert_string_equal(json_string_value(json_object_get(p, "sender_a")), "physical");
		assert_string_equal(json_string_value(json_object_get(p, "sender_b")), "cluster");
		assert_false(json_is_true(json_object_get(p, "a_a")));
		assert_int_equal(jnum(p, "pairs"), 10);
		json_t *d = json_object_get(p, "paired");
		/* the fixture's cluster send is 12.1% cheaper than physical */
		assert_true(json_is_true(json_object_get(d, "proven")));
		double pct = jnum(d, "percent"), half = jnum(d, "percent_half_width");
		assert_true(half > 0.0 && half < 2.0);
		assert_true(fabs(pct + 12.1) < half + 0.5);
		n++;
	}
	assert_int_equal(n, 3);	/* one per boot: physical, cluster, mixed */
	n = 0;
	json_array_foreach(json_object_get(block(rep, "ipi-aa"), "paired"), i, p) {
		assert_true(json_is_true(json_object_get(p, "a_a")));
		assert_true(json_is_true(json_object_get(p, "arm_by_order")));
		assert_false(json_is_true(json_object_get(json_object_get(p, "paired"), "proven")));
		n++;
	}
	assert_int_equal(n, 3);
	char *md = path2(o, "report.md");
	assert_true(file_contains(md, "**IPI send routine, one boot** (run `mixed-r0`, mode mixed): "
				      "cluster (A) against cluster (B), **A/A control**; unit: loop "
				      "pairs within one boot (10 pairs)"));
	assert_true(file_contains(md, "Paired difference B - A over the pairs:\n"
				      "No difference proven at 95.0% confidence\n"));
	free(md);
	json_decref(rep);
	rm_rf(o);
	free(o);
}

/* repetitions >= 2: boots are the unit and their variance is in the error */
static void boot_to_boot_variance_enters_the_error(void **state)
{
	(void)state;
	char *o;
	json_t *rep = report_json(DATA "/boots", &o);
	json_t *cmp = json_object_get(block(rep, "flush"), "comparison");
	assert_string_equal(json_string_value(json_object_get(cmp, "unit")), "boots");
	assert_null(json_object_get(cmp, "caveat"));
	json_t *mx = json_array_get(json_object_get(cmp, "rows"), 2);
	assert_string_equal(json_string_value(json_object_get(mx, "name")), "mixed");
	assert_int_equal(jnum(mx, "n"), 3);
	json_t *c = json_object_get(mx, "comparison");
	/* mixed is 1.5% slower per loop, boots differ by ~4%: not proven */
	assert_false(json_is_true(json_object_get(c, "proven")));
	double boot_half = jnum(c, "half_width");
	json_decref(rep);
	rm_rf(o);
	free(o);

	/* the same results, one boot per mode with its 6 loops as the unit (the
	 * seed bench's design): each repetition "proves" a difference, and not
	 * always the same way round; intervals several times narrower */
	struct dataset d = { 0 };
	char err[AN_ERRLEN];
	an_quiet = true;
	assert_int_equal(dataset_add(&d, DATA "/boots", err), 0);
	dataset_finish(&d);
	struct group *gp = dataset_find(&d, 0, "qemu-tcg", 16, "flush", "physical");
	struct group *gm = dataset_find(&d, 0, "qemu-tcg", 16, "flush", "mixed");
	assert_non_null(gp);
	assert_non_null(gm);
	assert_int_equal(gp->nrr, 3);
	int signs = 0;
	for (size_t r = 0; r < 3; r++) {
		double xp[16], xm[16];
		assert_int_equal(gp->rr[r].nloops, 6);
		for (size_t i = 0; i < 6; i++) {
			xp[i] = gp->rr[r].loops[i].ns / gp->rr[r].loops[i].calls;
			xm[i] = gm->rr[r].loops[i].ns / gm->rr[r].loops[i].calls;
		}
		struct ms_vitals vp, vm;
		struct ms_diff one;
		ms_vitals(xp, 6, &vp);
		ms_vitals(xm, 6, &vm);
		ms_compare(&vp, &vm, 0.95, MS_WELCH, &one);
		assert_true(one.verdict);
		assert_true(boot_half > 3.0 * (one.test_half));
		signs |= one.diff > 0 ? 1 : 2;
	}
	assert_int_equal(signs, 3);	/* "certain" both ways */
	/* each boot's value is the mean of its 6 loops */
	size_t nb;
	double *bp = runlevel_sample(gp, RL_BOOTS, &nb);
	assert_int_equal(nb, 3);
	double s = 0;
	for (size_t i = 0; i < 6; i++)
		s += gp->rr[0].loops[i].ns / gp->rr[0].loops[i].calls;
	assert_float_equal(bp[0], s / 6.0, 1e-6);
	free(bp);
	dataset_free(&d);
}

/* The test is declared, never chosen from the data: Welch's t unless
 * --test student says otherwise, for every comparison of the report. */
static void declared_test(void **state)
{
	(void)state;
	for (int student = 0; student < 2; student++) {
		char *o = make_tmpdir();
		if (student)
			expect_exit(cmd_report, 0, "report", "-q", "--no-reference", "--test",
				    "student", "-o", o, DATA "/boots");
		else
			expect_exit(cmd_report, 0, "report", "-q", "--no-reference", "-o", o,
				    DATA "/boots");
		char *p = path2(o, "report.json");
		json_t *rep = json_load_file(p, 0, NULL);
		assert_non_null(rep);
		json_t *cmp = json_object_get(block(rep, "flush"), "comparison");
		json_t *c = json_object_get(json_array_get(json_object_get(cmp, "rows"), 1),
					    "comparison");
		assert_string_equal(json_string_value(json_object_get(c, "test")),
				    student ? "Student's t" : "Welch's t");
		json_t *ri = json_object_get(c, "ratio_interval");
		assert_string_equal(json_string_value(json_object_get(ri, "method")), "Fieller");
		char *md = path2(o, "report.md");
		assert_int_equal(file_contains(md, "(Student's t, pooled s = "), student);
		assert_int_equal(file_contains(md, "(Welch's t, df = "), !student);
		assert_false(file_contains(md, "Variances differ"));
		free(md);
		free(p);
		json_decref(rep);
		rm_rf(o);
		free(o);
	}
	char *o = make_tmpdir();
	expect_exit(cmd_report, 2, "report", "-q", "--test", "f-test", "-o", o, DATA "/boots");
	rm_rf(o);
	free(o);
}

/* One boot per mode: the report's block shows the loops as the ministat
 * binary does (each vitals line), but none of its verdict lines: "no
 * verdict: one boot per mode" stands in their place. */
static void report_block_equals_ministat_binary(void **state)
{
	(void)state;
	char *o;
	json_t *rep = report_json(DATA "/loops", &o);
	json_decref(rep);
	struct dataset d = { 0 };
	char err[AN_ERRLEN];
	assert_int_equal(dataset_add(&d, DATA "/loops", err), 0);
	dataset_finish(&d);
	static const char *const modes[] = { "physical", "cluster", "mixed" };
	struct sbuf cmd = { 0 };
	const char *bin = getenv("IPIBENCH_MINISTAT");
	sb_printf(&cmd, "%s -A", bin && *bin ? bin : "ministat");
	for (size_t m = 0; m < 3; m++) {
		struct group *g = dataset_find(&d, 0, "qemu-tcg", 16, "flush", modes[m]);
		size_t n;
		double *x = runlevel_sample(g, RL_LOOPS, &n);
		char name[64];
		snprintf(name, sizeof(name), "%s.txt", modes[m]);
		char *p = path2(o, name);
		FILE *f = fopen(p, "w");
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%.17g\n", x[i]);
		fclose(f);
		sb_printf(&cmd, " %s", p);
		free(p);
		free(x);
	}
	FILE *pp = popen(cmd.s, "r");
	assert_non_null(pp);
	char line[512];
	char *md = path2(o, "report.md");
	size_t checked = 0;
	size_t verdicts = 0;
	while (fgets(line, sizeof(line), pp)) {
		if (line[1] == ' ' && strchr("x+*", line[0]) && strstr(line, ".txt"))
			continue;	/* file name lines */
		if (strstr(line, "difference proven") || strstr(line, "Difference at") ||
		    line[0] == '\t') {
			verdicts++;	/* ministat's verdict lines: not in this block */
			continue;
		}
		if (!file_contains(md, line))
			fail_msg("ministat printed a line the report lacks: %s", line);
		checked++;
	}
	int st = pclose(pp);
	if (st != 0)
		fail_msg("`%s` failed (status %d): is ministat installed?", cmd.s, st);
	assert_true(checked >= 4);
	assert_true(verdicts >= 2);
	/* the flush block: from its heading to the end of its code block */
	char *text = slurp(md);
	char *h = strstr(text, "Run-level comparison (ns per call; baseline `physical`");
	assert_non_null(h);
	char *open = strstr(h, "```\n");
	assert_non_null(open);
	char *close = strstr(open + 4, "```\n");
	assert_non_null(close);
	*close = '\0';
	assert_null(strstr(open, "Difference at"));
	assert_null(strstr(open, "difference proven"));
	char *nv = strstr(open, "no verdict: one boot per mode\n");
	assert_non_null(nv);
	assert_non_null(strstr(nv + 1, "no verdict: one boot per mode\n"));	/* both modes */
	free(text);
	free(md);
	sb_free(&cmd);
	dataset_free(&d);
	rm_rf(o);
	free(o);
}

static void repeated_perf_stat(void **state)
{
	char *dir = *state;
	static const double cyc[2][3] = { { 1000, 1010, 990 }, { 1200, 1190, 1212 } };
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 3; k++) {
			char name[64];
			snprintf(name, sizeof(name), "perf-%s-%d.csv", s ? "mixed" : "physical", k + 1);
			char *p = path2(dir, name);
			FILE *f = fopen(p, "w");
			fprintf(f, "%.0f,,cycles,100,100.00,,\n5,,context-switches,100,100.00,,\n",
				cyc[s][k]);
			fclose(f);
			free(p);
		}
	char *o;
	json_t *rep = report_json(dir, &o);
	json_t *rp = json_object_get(rep, "perf_stat_repeated");
	assert_int_equal(json_array_size(rp), 2);
	json_t *ev = json_array_get(rp, 0);
	assert_string_equal(json_string_value(json_object_get(ev, "event")), "cycles");
	assert_string_equal(json_string_value(json_object_get(ev, "unit")), "perf stat runs");
	json_t *rows = json_object_get(ev, "rows");
	/* stems in the directory's (alphabetical) order: mixed is the first */
	assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "name")),
			    "perf-mixed");
	json_t *c = json_object_get(json_array_get(rows, 1), "comparison");
	assert_true(json_is_true(json_object_get(c, "proven")));
	assert_true(fabs(jnum(c, "percent") + 16.71) < 0.01);
	/* identical values: no spread, no difference */
	json_t *cs = json_object_get(json_array_get(json_object_get(json_array_get(rp, 1), "rows"), 1),
				     "comparison");
	assert_false(json_is_true(json_object_get(cs, "proven")));
	char *stem = cmp_perf_stem("a/b/perf-mixed-12.csv");
	assert_string_equal(stem, "perf-mixed");
	free(stem);
	json_decref(rep);
	rm_rf(o);
	free(o);
}

static void bad_loops_refused(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"{\"ns\": 100, \"calls\": 0}", "{\"ns\": 100, \"calls\": 1, \"sender\": \"x2apic\"}",
		"{\"ns\": -1, \"calls\": 10}", "{\"calls\": 10}", "{\"ns\": 1, \"calls\": 1, \"arm\": 2}",
	};
	static const char *const want[] = { "loops[0].calls", "loops[0].sender", "loops[0].ns",
					    "loops[0].ns", "loops[0].arm" };
	char *dir = make_tmpdir();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *p = path2(dir, "results.json");
		FILE *f = fopen(p, "w");
		fprintf(f, "{\"schema_version\": 1, \"host\": {\"name\": \"h\", \"cpus\": 4},"
			   " \"runs\": [{\"id\": \"physical-r0\", \"mode\": \"physical\", \"status\": \"ok\","
			   " \"workloads\": [{\"name\": \"w\", \"type\": \"flush_tlb_all\", \"status\": \"ok\","
			   " \"loops\": [%s]}]}]}\n", bad[i]);
		fclose(f);
		struct dataset d = { 0 };
		char err[AN_ERRLEN];
		assert_int_equal(dataset_add(&d, p, err), -1);
		if (!strstr(err, want[i]))
			fail_msg("case %zu: %s", i, err);
		dataset_free(&d);
		free(p);
	}
	rm_rf(dir);
	free(dir);
}

/* An "arm" index decides the arms, whatever the order in the file. */
static void arm_index_honoured(void **state)
{
	char *dir = *state;
	char *p = path2(dir, "results.json");
	FILE *f = fopen(p, "w");
	fprintf(f, "{\"schema_version\": 1, \"host\": {\"name\": \"h\", \"cpus\": 4},"
		   " \"runs\": [{\"id\": \"cluster-r0\", \"mode\": \"cluster\", \"status\": \"ok\","
		   " \"workloads\": [{\"name\": \"aa\", \"type\": \"ipi_mask\", \"status\": \"ok\","
		   " \"params\": {\"senders\": [\"cluster\", \"cluster\"]}, \"loops\": [");
	for (int i = 0; i < 6; i++)	/* B (arm 1) listed first, 10% slower */
		fprintf(f, "%s{\"ns\": %d, \"calls\": 10, \"sender\": \"cluster\", \"pair\": %d, \"arm\": 1},"
			   "{\"ns\": %d, \"calls\": 10, \"sender\": \"cluster\", \"pair\": %d, \"arm\": 0}",
			i ? "," : "", 1100 + i * 10 + (i % 2), i, 1000 + i * 10, i);
	fprintf(f, "]}]}]}\n");
	fclose(f);
	struct dataset d = { 0 };
	char err[AN_ERRLEN];
	assert_int_equal(dataset_add(&d, p, err), 0);
	dataset_finish(&d);
	struct group *g = dataset_find(&d, 0, "h", 4, "aa", "cluster");
	double *a, *b;
	const char *na, *nb;
	assert_int_equal(runlevel_pairs(g, 0, &a, &b, &na, &nb), 6);
	assert_false(g->rr[0].arm_by_order);
	assert_float_equal(a[0], 100.0, 1e-9);
	assert_float_equal(b[0], 110.0, 1e-9);
	struct ms_paired pr;
	ms_paired(a, b, 6, 0.95, &pr);
	assert_true(pr.proven);
	assert_true(fabs(pr.pct - 10.0) < 1.0);
	free(a);
	free(b);
	dataset_free(&d);
	free(p);
}

int main(void)
{
	an_quiet = true;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(loops_of_one_boot_say_so),
		cmocka_unit_test(paired_senders_and_a_a_control),
		cmocka_unit_test(boot_to_boot_variance_enters_the_error),
		cmocka_unit_test(declared_test),
		cmocka_unit_test(report_block_equals_ministat_binary),
		cmocka_unit_test_setup_teardown(repeated_perf_stat, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test(bad_loops_refused),
		cmocka_unit_test_setup_teardown(arm_index_honoured, tmpdir_setup, tmpdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
