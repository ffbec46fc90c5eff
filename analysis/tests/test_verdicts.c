/* SPDX-License-Identifier: GPL-3.0-or-later */
/* analysis/tests/test_verdicts.c: no report prints a verdict its design
 * cannot carry.  The reports of the committed results (results/history,
 * with the references of results/reference, which the docs quote) and of
 * the fixtures are generated again, and the committed report.md files are
 * read as they are; in each, every code block that holds a verdict
 * ("Difference at 95.0% confidence", "No difference proven ...") must
 * follow a statement of a design that supports one: boots as the unit,
 * loop pairs within one boot, paired boots, a published reference table,
 * hyperfine or perf stat runs.  Loops of one boot per mode carry "no
 * verdict: one boot per mode" instead. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "analysis/analysis.h"
#include "analysis/internal.h"
#include "analysis/tests/helpers.h"

/* What, said before a block, lets it carry a verdict. */
static const char *const supported[] = {
	"Unit: **boots**",			/* between modes or builds, >= 2 boots */
	"unit: loop pairs within one boot",	/* paired send routines */
	"unit: **boots** (",			/* paired, across boots */
	"ministat, reference (",		/* the published table, quoted */
	"unit: boots (",			/* the seed's measured table on boots */
	"unit: **hyperfine runs**",
};

static bool has_supported(const char *from, const char *to)
{
	for (size_t i = 0; i < sizeof(supported) / sizeof(supported[0]); i++) {
		const char *p = strstr(from, supported[i]);
		if (p && p < to)
			return true;
	}
	return false;
}

/* Checks MD (the text of a report.md, NAME for messages); returns the
 * number of blocks with a verdict and counts "no verdict" lines. */
static size_t check_md(const char *name, const char *md, size_t *no_verdicts)
{
	size_t verdicts = 0;
	const char *section = md, *prev_end = md, *p = md;
	bool perf = false;
	*no_verdicts = 0;
	for (const char *q = md; (q = strstr(q, "no verdict: one boot per mode\n")); q++)
		(*no_verdicts)++;
	while ((p = strstr(p, "```\n"))) {
		const char *end = strstr(p + 4, "```\n");
		assert_non_null(end);
		/* the last "## " heading before the block */
		for (const char *h = prev_end; (h = strstr(h, "\n## ")) && h < p; h++) {
			section = h;
			perf = !strncmp(h, "\n## perf stat, repeated", 23);
		}
		const char *from = prev_end > section ? prev_end : section;
		char *block = strndup(p, (size_t)(end - p));
		bool verdict = strstr(block, "Difference at ") || strstr(block, "difference proven at");
		if (verdict) {
			verdicts++;
			bool ok = has_supported(from, p) ||
				  (perf && strstr(section, "unit: **perf stat runs**"));
			if (!ok)
				fail_msg("%s: a verdict where the design cannot carry one:\n%.*s%s", name,
					 (int)(p - from), from, block);
			assert_null(strstr(block, "no verdict"));
		}
		free(block);
		prev_end = p = end + 4;
	}
	return verdicts;
}

static char *report_md(char **argv_tail, size_t n, char **dir)
{
	*dir = make_tmpdir();
	char *argv[16] = { "report", "-q", "-o", *dir };
	size_t k = 4;
	for (size_t i = 0; i < n && k < 15; i++)
		argv[k++] = argv_tail[i];
	argv[k] = NULL;
	assert_int_equal(run_quiet(cmd_report, argv), 0);
	char *p = path2(*dir, "report.md");
	char *md = slurp(p);
	assert_non_null(md);
	free(p);
	return md;
}

/* The committed result sets, reported again with the committed
 * references (the seed's 96- and 512-CPU figures): one boot per mode
 * everywhere, so no verdict between modes; the reference and the paired
 * routines keep theirs. */
static void committed_results(void **state)
{
	(void)state;
	static const char *const sets[] = { "results/history/seed-96cpu-20261130",
					    "results/history/seed-96cpu-20261201" };
	size_t no_verdict_total = 0, verdict_total = 0;
	for (size_t i = 0; i < 2; i++) {
		char *dir, *in = (char *)sets[i];
		char *md = report_md(&in, 1, &dir);
		size_t nv;
		verdict_total += check_md(sets[i], md, &nv);
		no_verdict_total += nv;
		/* the cluster vs mixed "difference" of one boot each is gone */
		assert_null(strstr(md, "-23.4364% +/-"));
		free(md);
		rm_rf(dir);
		free(dir);
		/* and the committed report.md, as it is in the tree */
		char *committed = xasprintf("%s/report/report.md", sets[i]);
		char *cm = slurp(committed);
		assert_non_null(cm);
		check_md(committed, cm, &nv);
		free(cm);
		free(committed);
	}
	assert_true(verdict_total >= 2);	/* the reference table and paired blocks */
	assert_true(no_verdict_total >= 4);
}

/* The fixtures: loops of one boot per mode (no verdict), boots (verdicts),
 * hyperfine and perf stat runs (verdicts). */
static void fixtures(void **state)
{
	(void)state;
	struct {
		char *argv[4];
		size_t n;
		bool want_no_verdict;
	} cases[] = {
		{ { "--no-reference", DATA "/loops" }, 2, true },
		{ { "--no-reference", DATA "/boots" }, 2, false },
		{ { "--no-reference", DATA "/three-mode" }, 2, false },
		{ { "--no-reference", DATA "/hyperfine.json", DATA "/perf-stat.csv" }, 3, false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dir;
		char *md = report_md(cases[i].argv, cases[i].n, &dir);
		size_t nv;
		size_t v = check_md(cases[i].argv[1], md, &nv);
		assert_true(v >= 1);
		assert_int_equal(nv > 0, cases[i].want_no_verdict);
		free(md);
		rm_rf(dir);
		free(dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(committed_results),
		cmocka_unit_test(fixtures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
