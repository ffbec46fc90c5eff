/* SPDX-License-Identifier: GPL-3.0-or-later */
/* analysis/tests/test_builds.c: the report between hypervisor builds
 * ([matrix] xen = 4.17, 4.20): runs of two builds are never pooled, each
 * mode is compared between the builds that ran it with the statistics used
 * between modes, and a mode one build has not (cluster on 4.20) is named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "analysis/analysis.h"
#include "analysis/internal.h"
#include "analysis/tests/helpers.h"

/* DATA/boots (3 boots per mode, 6 timed loops each) as build LABEL in
 * DIR/NAME: without cluster runs when drop_cluster, every time x scale. */
static void write_set(const char *dir, const char *name, const char *label, int drop_cluster,
		      double scale)
{
	json_t *j = json_load_file(DATA "/boots/results.json", 0, NULL);
	json_t *runs, *run, *keep = json_array();
	size_t i, k;

	assert_non_null(j);
	json_object_set_new(json_object_get(j, "host"), "xen_build", json_string(label));
	runs = json_object_get(j, "runs");
	json_array_foreach(runs, i, run) {
		json_t *w = json_array_get(json_object_get(run, "workloads"), 0), *x;

		if (drop_cluster && !strcmp(json_string_value(json_object_get(run, "mode")), "cluster"))
			continue;
		json_array_foreach(json_object_get(w, "loops"), k, x)
			json_object_set_new(x, "ns", json_integer((json_int_t)(json_number_value(json_object_get(x, "ns")) * scale)));
		json_t *ns = json_object_get(json_object_get(w, "samples"), "ns");
		json_array_foreach(ns, k, x)
			json_array_set_new(ns, k, json_integer((json_int_t)(json_number_value(x) * scale)));
		json_array_append(keep, run);
	}
	json_object_set_new(j, "runs", keep);
	char *d = path2(dir, name);
	mkdir_p(d, NULL);
	char *f = path2(d, "results.json");
	assert_int_equal(json_dump_file(j, f, JSON_INDENT(1)), 0);
	free(f);
	free(d);
	json_decref(j);
}

static json_t *build_entry(json_t *rep, const char *mode)
{
	return json_find(json_object_get(rep, "builds"), "mode", mode);
}

static void two_builds(void **state)
{
	(void)state;
	char *in = make_tmpdir(), *out = make_tmpdir();
	char *a = path2(in, "xen-4.17"), *b = path2(in, "xen-4.20");

	write_set(in, "xen-4.17", "4.17", 0, 1.0);
	write_set(in, "xen-4.20", "4.20", 1, 2.0);   /* the "patched" build: twice as slow */
	expect_exit(cmd_report, 0, "report", "-q", "--no-reference", "-o", out, a, b);
	char *p = path2(out, "report.json");
	json_t *rep = json_load_file(p, 0, NULL);
	free(p);
	assert_non_null(rep);

	/* Not pooled: one block per build. */
	assert_int_equal(json_array_size(json_object_get(rep, "workloads")), 2);

	/* physical and mixed: both builds, the difference proven, about +100%. */
	const char *modes[] = { "physical", "mixed" };
	for (size_t m = 0; m < 2; m++) {
		json_t *e = build_entry(rep, modes[m]);
		assert_non_null(e);
		json_t *names = json_object_get(e, "builds");
		assert_int_equal(json_array_size(names), 2);
		assert_string_equal(json_string_value(json_array_get(names, 0)), "4.17");
		assert_string_equal(json_string_value(json_array_get(names, 1)), "4.20");
		json_t *cmp = json_object_get(e, "comparison");
		assert_string_equal(json_string_value(json_object_get(cmp, "unit")), "boots");
		json_t *row = json_array_get(json_object_get(cmp, "rows"), 1);
		assert_string_equal(json_string_value(json_object_get(row, "name")), "4.20");
		json_t *c = json_object_get(row, "comparison");
		assert_true(json_is_true(json_object_get(c, "proven")));
		double pct = json_number_value(json_object_get(c, "percent"));
		if (pct < 95.0 || pct > 105.0)
			fail_msg("%s: %.2f%%, expected about +100%%", modes[m], pct);
	}
	/* cluster: only on 4.17, nothing to compare, and said so. */
	json_t *e = build_entry(rep, "cluster");
	assert_non_null(e);
	assert_int_equal(json_array_size(json_object_get(e, "builds")), 1);
	assert_true(json_is_null(json_object_get(e, "comparison")));
	p = path2(out, "report.md");
	expect_in_file(p, "## Between builds",
		"Mode `cluster`: no runs on build `4.20`",
		"Mode `cluster`: only build `4.17` ran it",
		"baseline build `4.17`",
		", Xen build `4.20`");
	free(p);
	json_decref(rep);
	rm_rf(in);
	rm_rf(out);
	free(a);
	free(b);
	free(in);
	free(out);
}

/* Without xen_build (every result set before the axis), nothing changes:
 * sets of one host pool as before and there is no section. */
static void no_build_no_section(void **state)
{
	(void)state;
	char *out = make_tmpdir();
	expect_exit(cmd_report, 0, "report", "-q", "--no-reference", "-o", out, DATA "/boots");
	char *p = path2(out, "report.json");
	json_t *rep = json_load_file(p, 0, NULL);
	assert_non_null(rep);
	assert_int_equal(json_array_size(json_object_get(rep, "builds")), 0);
	free(p);
	p = path2(out, "report.md");
	assert_false(file_contains(p, "Between builds"));
	free(p);
	json_decref(rep);
	rm_rf(out);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_builds),
		cmocka_unit_test(no_build_no_section),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
