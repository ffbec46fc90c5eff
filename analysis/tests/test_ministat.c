/* SPDX-License-Identifier: GPL-3.0-or-later */
/* analysis/tests/test_ministat.c: analysis/ministat.c against Debian's
 * ministat binary, on the same numbers.  Each case writes its samples to
 * files, runs `ministat -A [-c LEVEL] FILE...` and checks that its whole
 * output equals ipibench's text, figure by figure, to the digits ministat
 * prints.  A missing ministat binary fails (apt-get install ministat; or
 * set IPIBENCH_MINISTAT).  Then the declared test (no pretest) and
 * Fieller's interval of a ratio, against R (data/fieller.R). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/wait.h>

#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/internal.h"
#include "analysis/ministat.h"
#include "analysis/tests/helpers.h"

#define MS_DATA DATA "/ministat"

static const char *ministat_bin(void)
{
	const char *e = getenv("IPIBENCH_MINISTAT");
	return e && *e ? e : "ministat";
}

/* stdout of `ministat -A -c LEVEL files...`; fails the test when the binary
 * cannot be run or exits non-zero. */
static char *run_ministat(double level, char **files, size_t k)
{
	struct sbuf cmd = { 0 };
	sb_printf(&cmd, "%s -A -c %g", ministat_bin(), level * 100.0);
	for (size_t i = 0; i < k; i++)
		sb_printf(&cmd, " '%s'", files[i]);
	sb_puts(&cmd, " 2>&1");
	FILE *p = popen(cmd.s, "r");
	assert_non_null(p);
	struct sbuf out = { 0 };
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf) - 1, p)) > 0) {
		buf[n] = '\0';
		sb_puts(&out, buf);
	}
	int st = pclose(p);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "`%s` failed (status %d): %s\n%s\n", cmd.s,
			WIFEXITED(st) ? WEXITSTATUS(st) : -1, out.s ? out.s : "",
			WIFEXITED(st) && WEXITSTATUS(st) == 127 ?
			"ministat is not installed: apt-get install ministat (scripts/deps.sh)" : "");
		fail_msg("ministat binary not usable");
	}
	sb_free(&cmd);
	return out.s ? out.s : xstrdup("");
}

/* Read a file of numbers ('#' comments), in order. */
static double *read_numbers(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	double *v = NULL;
	size_t k = 0;
	char line[256];
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		v = xrealloc(v, (k + 1) * sizeof(double));
		v[k++] = strtod(line, NULL);
	}
	fclose(f);
	*n = k;
	return v;
}

/* ipibench's rendering of what `ministat -A` prints for these files. */
static char *ours(double level, char **files, size_t k, enum ms_style style)
{
	struct sbuf b = { 0 };
	struct ms_vitals v[8];
	for (size_t i = 0; i < k; i++) {
		size_t n;
		double *x = read_numbers(files[i], &n);
		ms_vitals(x, n, &v[i]);
		free(x);
		sb_printf(&b, "%c %s\n", ms_symbol(i), files[i]);
	}
	ms_format_head(&b);
	ms_format_vitals(&b, 0, &v[0]);
	for (size_t i = 1; i < k; i++) {
		struct ms_diff d;
		ms_format_vitals(&b, i, &v[i]);
		assert_int_equal(ms_compare(&v[0], &v[i], level, MS_STUDENT, &d), 0);
		ms_format_ministat(&b, &d, style);
	}
	return b.s;
}

static void agree(double level, char **files, size_t k)
{
	char *theirs = run_ministat(level, files, k);
	char *mine = ours(level, files, k, MS_DEBIAN);
	if (strcmp(theirs, mine)) {
		fprintf(stderr, "ministat says:\n%s\nipibench says:\n%s\n", theirs, mine);
		fail_msg("ipibench and ministat disagree");
	}
	free(theirs);
	free(mine);
}

/* Write samples (in this order) to DIR/NAME with %.17g. */
static char *write_sample(const char *dir, const char *name, const double *x, size_t n)
{
	char *p = path2(dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%.17g\n", x[i]);
	fclose(f);
	return p;
}

static void fill(gsl_rng *r, double *x, size_t n, double mu, double sd, double tick)
{
	for (size_t i = 0; i < n; i++) {
		x[i] = mu + gsl_ran_gaussian(r, sd);
		if (tick > 0)
			x[i] = round(x[i] / tick) * tick;	/* ties, integers */
	}
}

/* The seed's committed 512-CPU table, from samples that reproduce it. */
static void seed_512cpu_table(void **state)
{
	(void)state;
	char *files[] = { MS_DATA "/seed512-mixed.txt", MS_DATA "/seed512-physical.txt",
			  MS_DATA "/seed512-cluster.txt" };
	agree(0.95, files, 3);
	/* and the figures are the committed ones (FreeBSD's % half-width) */
	char *mine = ours(0.95, files, 3, MS_FREEBSD);
	static const char *const want[] = {
		"x  25 3.5131328e+08 3.5716441e+08 3.5410987e+08 3.5432659e+08     1566737.4\n",
		"+  12  1.231082e+09  1.238824e+09 1.2370528e+09 1.2357981e+09     2853892.9\n"
		"Difference at 95.0% confidence\n"
		"\t8.81472e+08 +/- 1.46849e+06\n"
		"\t248.774% +/- 0.96566%\n"
		"\t(Student's t, pooled s = 2.05985e+06)\n",
		"*  11 3.5099276e+08 3.5561459e+08 3.5461234e+08 3.5415668e+08     1415071.9\n"
		"No difference proven at 95.0% confidence\n",
	};
	for (size_t i = 0; i < 3; i++)
		assert_non_null(strstr(mine, want[i]));
	free(mine);
}

/* Random data sets: sizes 3 to 130 (df past ministat's table), even and
 * odd N, large offsets, integers with ties, negatives, every level. */
static void random_sets_every_level(void **state)
{
	char *dir = *state;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 20261201);
	static const size_t sizes[][4] = {
		{ 3, 3, 4, 5 }, { 4, 6, 7, 8 }, { 10, 11, 12, 30 }, { 25, 12, 11, 60 },
		{ 51, 50, 49, 80 }, { 100, 3, 130, 2 },
	};
	static const double levels[] = { 0.80, 0.90, 0.95, 0.98, 0.99 };
	static const double mus[][3] = {	/* mean, sd, tick */
		{ 3.5e8, 1.5e6, 1 }, { 1.0, 0.01, 0 }, { -20.0, 3.0, 0 },
		{ 2500.0, 40.0, 10 }, { 1.2e10, 2.0e7, 1 }, { 0.003, 0.0002, 0 },
	};
	for (size_t c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++) {
		char *files[4];
		size_t k = 0;
		for (size_t j = 0; j < 4 && sizes[c][j] >= 3; j++) {
			double x[256];
			/* some sets differ, some do not */
			double shift = j == 2 ? 0.0 : (double)j * mus[c][1] * 1.5;
			fill(r, x, sizes[c][j], mus[c][0] + shift, mus[c][1] * (j == 3 ? 3 : 1),
			     mus[c][2]);
			char name[32];
			snprintf(name, sizeof(name), "c%zu-%zu", c, j);
			files[k++] = write_sample(dir, name, x, sizes[c][j]);
		}
		for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++)
			agree(levels[l], files, k);
		for (size_t j = 0; j < k; j++)
			free(files[j]);
	}
	gsl_rng_free(r);
}

/* ministat's t table, df 4..105, through the half-widths it prints. */
static void t_table_through_the_binary(void **state)
{
	char *dir = *state;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 7);
	double x[128];
	fill(r, x, 3, 100.0, 5.0, 0);
	char *files[7];
	files[0] = write_sample(dir, "base", x, 3);
	for (size_t n = 3; n <= 104; n += 6) {
		for (size_t j = 0; j < 6; j++) {
			fill(r, x, n + j, 130.0, 5.0, 0);
			char name[32];
			snprintf(name, sizeof(name), "n%zu", n + j);
			files[1 + j] = write_sample(dir, name, x, n + j);
		}
		agree(0.95, files, 7);
		for (size_t j = 1; j < 7; j++)
			free(files[j]);
	}
	free(files[0]);
	/* spot values of the table itself */
	assert_float_equal(ms_student_t(1, 0.95), 12.706, 1e-12);
	assert_float_equal(ms_student_t(35, 0.95), 2.030, 1e-12);
	assert_float_equal(ms_student_t(100, 0.95), 1.984, 1e-12);
	assert_float_equal(ms_student_t(101, 0.95), 1.960, 1e-12);
	assert_float_equal(ms_student_t(10, 0.80), 1.372, 1e-12);
	assert_float_equal(ms_student_t(10, 0.99), 3.169, 1e-12);
	gsl_rng_free(r);
}

/* A/A: two samples of one distribution; no difference, and ministat says
 * the same.  Then a real 2% shift is found. */
static void a_a_and_a_b(void **state)
{
	char *dir = *state;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 42);
	double a[20], b[20], c[20];
	fill(r, a, 20, 1e6, 1e4, 1);
	fill(r, b, 20, 1e6, 1e4, 1);
	fill(r, c, 20, 1.02e6, 1e4, 1);
	char *files[3] = { write_sample(dir, "a", a, 20), write_sample(dir, "a2", b, 20),
			   write_sample(dir, "b", c, 20) };
	agree(0.95, files, 3);
	struct ms_vitals va, vb, vc;
	struct ms_diff d;
	ms_vitals(a, 20, &va);
	ms_vitals(b, 20, &vb);
	ms_vitals(c, 20, &vc);
	ms_compare(&va, &vb, 0.95, MS_STUDENT, &d);
	assert_false(d.proven);
	assert_false(d.verdict);
	ms_compare(&va, &vc, 0.95, MS_STUDENT, &d);
	assert_true(d.proven);
	assert_true(d.diff > 1.5e4 && d.diff < 2.5e4);
	assert_true(d.pct > 1.5 && d.pct < 2.5);
	char *out = run_ministat(0.95, files, 3);
	const char *aa = strstr(out, "+  20");
	assert_non_null(aa);
	assert_non_null(strstr(aa, "No difference proven at 95.0% confidence"));
	assert_non_null(strstr(out, "Difference at 95.0% confidence"));
	free(out);
	for (size_t i = 0; i < 3; i++)
		free(files[i]);
	gsl_rng_free(r);
}

/* Median for even N is ministat's upper middle; tiny samples refused. */
static void vitals_details(void **state)
{
	(void)state;
	double x[] = { 4, 1, 3, 2 };
	struct ms_vitals v;
	ms_vitals(x, 4, &v);
	assert_float_equal(v.median, 3.0, 0);
	assert_float_equal(v.avg, 2.5, 0);
	assert_float_equal(v.var, 5.0 / 3.0, 1e-15);
	struct ms_vitals one;
	ms_vitals(x, 1, &one);
	struct ms_diff d;
	assert_int_equal(ms_compare(&v, &one, 0.95, MS_WELCH, &d), -1);
	assert_false(d.ok);
}

/* The declared test is the test: Welch's t by default whatever the
 * variances look like, Student's only when declared; no F pretest. */
static void declared_test_no_pretest(void **state)
{
	(void)state;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 3);
	double a[30], b[8];
	fill(r, a, 30, 100.0, 1.0, 0);
	fill(r, b, 8, 101.5, 6.0, 0);
	struct ms_vitals va, vb;
	ms_vitals(a, 30, &va);
	ms_vitals(b, 8, &vb);
	struct ms_diff d;
	ms_compare(&va, &vb, 0.95, MS_WELCH, &d);
	assert_int_equal(d.test, MS_WELCH);
	/* Welch's df lies between min(n)-1 and n1+n2-2; its interval is wider
	 * than the pooled one here (small sample, large variance) */
	assert_true(d.welch_df >= 7.0 && d.welch_df <= 36.0);
	assert_float_equal(d.test_df, d.welch_df, 0);
	assert_float_equal(d.test_half, d.welch_half, 0);
	assert_true(d.welch_half > d.half);
	assert_int_equal(d.verdict, d.welch_proven);
	struct sbuf s = { 0 };
	ms_format_diff(&s, &d, MS_DEBIAN);
	assert_non_null(strstr(s.s, "(Welch's t, df = "));
	assert_non_null(strstr(s.s, "Fieller's interval"));
	assert_non_null(strstr(s.s, "ministat's line, Student's t"));
	assert_null(strstr(s.s, "Variances differ"));
	sb_free(&s);
	/* the same data, Student's declared: Student's, though the variances differ */
	ms_compare(&va, &vb, 0.95, MS_STUDENT, &d);
	assert_int_equal(d.test, MS_STUDENT);
	assert_float_equal(d.test_df, 36.0, 0);
	assert_float_equal(d.test_half, d.half, 0);
	/* equal variances: still Welch's when Welch's is declared */
	fill(r, b, 8, 100.0, 1.0, 0);
	ms_vitals(b, 8, &vb);
	ms_compare(&va, &vb, 0.95, MS_WELCH, &d);
	assert_int_equal(d.test, MS_WELCH);
	assert_float_equal(d.test_df, d.welch_df, 0);
	assert_true(d.test_df < 36.0);
	gsl_rng_free(r);
}

/* Fieller's interval against R: analysis/tests/data/fieller.R inverts the
 * t test numerically (uniroot, qt, t.test's Welch df), a computation that
 * shares nothing with ms_fieller()'s closed form.  Its output (R 4.2.2),
 * also the worked example of docs/statistics.md:
 *   worked example, Welch     df 7.141060   +17.87485242%  [+10.37844414%, +25.48635651%]
 *   worked example, Student   df 11.000000  +17.87485242%  [+10.01700958%, +26.43886267%]
 *   worked example, paired    df 5.000000   -9.674267101%  [-11.10660553%, -8.307411689%]
 *   seed 512 physical vs mixed, Welch    +248.7737401%  [+247.948048%, +249.6019326%]
 *   seed 512 physical vs mixed, Student  +248.7737401%  [+247.8847322%, +249.6666343%]
 * Student's uses ministat's t rounded to 3 decimals (2.201 for R's
 * 2.200985 at df 11, 2.030 for 2.030108 at df 35): agreement to 1e-3 %. */
static void fieller_matches_r(void **state)
{
	(void)state;
	double base[] = { 100, 104, 98, 103, 101, 99 };
	double x[] = { 121, 109, 127, 114, 118, 131, 112 };
	struct ms_vitals vb, vx;
	struct ms_diff d;
	ms_vitals(base, 6, &vb);
	ms_vitals(x, 7, &vx);
	ms_compare(&vb, &vx, 0.95, MS_WELCH, &d);
	assert_true(d.ratio_ok);
	assert_float_equal(d.test_df, 7.141060, 1e-6);
	assert_float_equal(d.pct, 17.87485242, 1e-7);
	assert_float_equal(d.pct_lo, 10.37844414, 1e-7);
	assert_float_equal(d.pct_hi, 25.48635651, 1e-7);
	ms_compare(&vb, &vx, 0.95, MS_STUDENT, &d);
	assert_float_equal(d.pct_lo, 10.01700958, 1e-3);
	assert_float_equal(d.pct_hi, 26.43886267, 1e-3);
	/* ministat's half-width / baseline mean understates the ratio's:
	 * symmetric, narrower than Fieller's here */
	assert_true(d.pct - d.pct_half > d.pct_lo);

	double a[] = { 50.1, 52.3, 49.8, 51.0, 50.6, 53.2 };
	double b[] = { 45.2, 47.9, 44.1, 46.3, 45.0, 48.8 };
	struct ms_paired p;
	ms_paired(a, b, 6, 0.95, &p);
	assert_true(p.ratio_ok);
	assert_float_equal(p.pct, -9.674267101, 1e-7);
	assert_float_equal(p.pct_lo, -11.10660553, 1e-7);
	assert_float_equal(p.pct_hi, -8.307411689, 1e-7);

	size_t nm, np;
	double *mixed = read_numbers(MS_DATA "/seed512-mixed.txt", &nm);
	double *phys = read_numbers(MS_DATA "/seed512-physical.txt", &np);
	ms_vitals(mixed, nm, &vb);
	ms_vitals(phys, np, &vx);
	ms_compare(&vb, &vx, 0.95, MS_WELCH, &d);
	assert_float_equal(d.pct_lo, 247.948048, 1e-5);
	assert_float_equal(d.pct_hi, 249.6019326, 1e-5);
	ms_compare(&vb, &vx, 0.95, MS_STUDENT, &d);
	assert_float_equal(d.pct_lo, 247.8847322, 1e-3);
	assert_float_equal(d.pct_hi, 249.6666343, 1e-3);
	/* Debian ministat's 0.414445% understates it; FreeBSD's 0.96566% (a
	 * delta-method width) is close to Fieller's */
	assert_true(d.pct_half < 0.5 && (d.pct_hi - d.pct_lo) / 2.0 > 0.85);
	free(mixed);
	free(phys);

	/* a baseline mean not distinguishable from 0: no bounded interval */
	double lo, hi;
	assert_false(ms_fieller(10.0, 1.0, 0.5, 1.0, 0.0, 2.0, &lo, &hi));
	assert_true(isnan(lo) && isnan(hi));
}

/* The interval excludes 0% exactly when the declared test proves a
 * difference, for both tests, over many random pairs of samples. */
static void interval_agrees_with_verdict(void **state)
{
	(void)state;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 17);
	size_t proven = 0;
	for (int i = 0; i < 2000; i++) {
		double a[40], b[40];
		size_t na = 3 + gsl_rng_uniform_int(r, 30), nb = 3 + gsl_rng_uniform_int(r, 30);
		fill(r, a, na, 1000.0, 20.0 + gsl_rng_uniform(r) * 100.0, 0);
		fill(r, b, nb, 1000.0 + gsl_ran_gaussian(r, 60.0),
		     20.0 + gsl_rng_uniform(r) * 100.0, 0);
		struct ms_vitals va, vb;
		ms_vitals(a, na, &va);
		ms_vitals(b, nb, &vb);
		for (int t = 0; t < 2; t++) {
			struct ms_diff d;
			ms_compare(&va, &vb, 0.95, t ? MS_STUDENT : MS_WELCH, &d);
			assert_true(d.ratio_ok);
			assert_true(d.pct_lo <= d.pct && d.pct <= d.pct_hi);
			bool excludes = d.pct_lo > 0.0 || d.pct_hi < 0.0;
			assert_int_equal(excludes, d.verdict);
			proven += d.verdict;
		}
	}
	assert_true(proven > 200 && proven < 3800);	/* both outcomes exercised */
	gsl_rng_free(r);
}

/* Paired: a consistent shift hidden in a large common noise is found;
 * an A/A pairing is not. */
static void paired_differences(void **state)
{
	(void)state;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 11);
	double a[12], b[12], b0[12];
	for (size_t i = 0; i < 12; i++) {
		double common = gsl_ran_gaussian(r, 50.0);	/* boot state, per pair */
		a[i] = 1000.0 + common + gsl_ran_gaussian(r, 1.0);
		b[i] = 1010.0 + common + gsl_ran_gaussian(r, 1.0);
		b0[i] = 1000.0 + common + gsl_ran_gaussian(r, 1.0);
	}
	struct ms_paired p;
	assert_int_equal(ms_paired(a, b, 12, 0.95, &p), 0);
	assert_true(p.proven);
	assert_true(fabs(p.mean_d - 10.0) < p.half + 1.0);
	assert_true(p.pct > 0.5 && p.pct < 1.5);
	assert_float_equal(p.df, 11.0, 0);
	/* the unpaired test cannot see it through the common noise */
	struct ms_vitals va, vb;
	struct ms_diff d;
	ms_vitals(a, 12, &va);
	ms_vitals(b, 12, &vb);
	ms_compare(&va, &vb, 0.95, MS_WELCH, &d);
	assert_false(d.verdict);
	ms_paired(a, b0, 12, 0.95, &p);
	assert_false(p.proven);
	struct sbuf s = { 0 };
	ms_format_paired(&s, &p);
	assert_non_null(strstr(s.s, "No difference proven at 95.0% confidence"));
	assert_non_null(strstr(s.s, "ratio B / A, Fieller's interval: "));
	assert_true(p.pct_lo < 0.0 && p.pct_hi > 0.0);
	sb_free(&s);
	assert_int_equal(ms_paired(a, b, 1, 0.95, &p), -1);
	gsl_rng_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(seed_512cpu_table),
		cmocka_unit_test_setup_teardown(random_sets_every_level, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(t_table_through_the_binary, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(a_a_and_a_b, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test(vitals_details),
		cmocka_unit_test(declared_test_no_pretest),
		cmocka_unit_test(fieller_matches_r),
		cmocka_unit_test(interval_agrees_with_verdict),
		cmocka_unit_test(paired_differences),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
