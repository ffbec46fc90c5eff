/* analysis/tests/test_stats.c: statistics against known values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/internal.h"

static const double one_to_ten[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

static void quantiles_of_1_to_10(void **state)
{
	(void)state;
	struct summary s;
	stats_summary(one_to_ten, 10, &s);
	assert_int_equal(s.n, 10);
	/* R: quantile(1:10, c(.05, .25, .5, .75, .95)) (type 7) */
	assert_float_equal(s.median, 5.5, 1e-12);
	assert_float_equal(s.p5, 1.45, 1e-12);
	assert_float_equal(s.q1, 3.25, 1e-12);
	assert_float_equal(s.q3, 7.75, 1e-12);
	assert_float_equal(s.p95, 9.55, 1e-12);
	assert_float_equal(s.iqr, 4.5, 1e-12);
	assert_float_equal(s.mean, 5.5, 1e-12);
	assert_float_equal(s.sd, 3.0276503540974917, 1e-9);	/* sd(1:10) */
	assert_float_equal(s.min, 1, 0);
	assert_float_equal(s.max, 10, 0);
}

static void median_odd_and_empty(void **state)
{
	(void)state;
	const double v[] = { 2, 3, 11 };
	struct summary s;
	stats_summary(v, 3, &s);
	assert_float_equal(s.median, 3, 0);
	assert_false(s.ci_ok);
	stats_summary(NULL, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.median));
	assert_false(s.ci_ok);
}

static void median_ci_order_statistics(void **state)
{
	(void)state;
	double lo, hi, cov;
	/* n = 10: P(Bin(10,.5) <= 1) = 11/1024 <= .025 < 56/1024: ranks 2 and 9 */
	assert_true(stats_median_ci(one_to_ten, 10, 0.95, &lo, &hi, &cov));
	assert_float_equal(lo, 2, 0);
	assert_float_equal(hi, 9, 0);
	assert_float_equal(cov, 1.0 - 2.0 * 11.0 / 1024.0, 1e-12);
	/* n = 6 is the smallest with a 95% CI: the whole range, 31/32 */
	assert_true(stats_median_ci(one_to_ten, 6, 0.95, &lo, &hi, &cov));
	assert_float_equal(lo, 1, 0);
	assert_float_equal(hi, 6, 0);
	assert_float_equal(cov, 1.0 - 2.0 / 64.0, 1e-12);
	assert_false(stats_median_ci(one_to_ten, 5, 0.95, &lo, &hi, &cov));
	/* n = 100: the textbook ranks 40 and 61 */
	double v[100];
	for (int i = 0; i < 100; i++)
		v[i] = i + 1;
	assert_true(stats_median_ci(v, 100, 0.95, &lo, &hi, &cov));
	assert_float_equal(lo, 40, 0);
	assert_float_equal(hi, 61, 0);
	assert_float_equal(cov, 1.0 - 2.0 * 0.017600100108852407, 1e-9);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void median_select_matches_sort(void **state)
{
	(void)state;
	srand(42);
	for (size_t n = 1; n < 60; n++) {
		double v[60], w[60];
		for (size_t i = 0; i < n; i++)
			v[i] = w[i] = (double)(rand() % 7);	/* many ties */
		qsort(w, n, sizeof(double), cmp_d);
		assert_float_equal(stats_median_select(v, n), stats_median_sorted(w, n), 0);
	}
}

static void mann_whitney_separated(void **state)
{
	(void)state;
	/* R: wilcox.test(1:5, 6:10, exact = FALSE): W = 0, p-value = 0.01219 */
	const double x[] = { 1, 2, 3, 4, 5 }, y[] = { 6, 7, 8, 9, 10 };
	struct mannwhitney mw;
	assert_int_equal(stats_mann_whitney(x, 5, y, 5, &mw), 0);
	assert_float_equal(mw.u, 0, 0);
	assert_float_equal(mw.p, 0.012185780355344818, 1e-9);
	assert_float_equal(mw.auc, 0, 0);
	/* symmetric: the other way round, U = 25, same p */
	assert_int_equal(stats_mann_whitney(y, 5, x, 5, &mw), 0);
	assert_float_equal(mw.u, 25, 0);
	assert_float_equal(mw.p, 0.012185780355344818, 1e-9);
}

static void mann_whitney_ties(void **state)
{
	(void)state;
	/* By hand: ranks 1, 3, 3, 3, 5.5, 5.5, 7, 8; R_x = 12.5, U = 2.5;
	 * tie term 24 + 6; var = 16/12 (9 - 30/56) = 11.2857;
	 * z = (2.5 - 8 + 0.5) / sqrt(var) = -1.48835, p = 0.136658 */
	const double x[] = { 1, 2, 2, 3 }, y[] = { 2, 3, 4, 5 };
	struct mannwhitney mw;
	stats_mann_whitney(x, 4, y, 4, &mw);
	assert_float_equal(mw.u, 2.5, 1e-12);
	assert_float_equal(mw.z, -1.4883513944689681, 1e-9);
	assert_float_equal(mw.p, 0.13665824773814753, 1e-9);
	/* R's ?wilcox.test example data: W = 35; normal approximation */
	const double a[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46 };
	const double b[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	stats_mann_whitney(a, 10, b, 5, &mw);
	assert_float_equal(mw.u, 35, 0);
	assert_float_equal(mw.p, 0.24462360512698333, 1e-9);
	/* all equal: no evidence at all */
	const double c[] = { 3, 3, 3 };
	stats_mann_whitney(c, 3, c, 3, &mw);
	assert_float_equal(mw.p, 1.0, 0);
	assert_int_equal(stats_mann_whitney(c, 0, c, 3, &mw), -1);
}

static void ratio_ci_bootstrap(void **state)
{
	(void)state;
	double a[200], b[200];
	srand(7);
	for (int i = 0; i < 200; i++) {
		b[i] = 1000.0 + rand() % 100;
		a[i] = 2.0 * b[i];
	}
	double lo, hi, lo2, hi2;
	assert_int_equal(stats_ratio_ci(a, 200, b, 200, 2000, AN_BOOT_SEED, 0.95, &lo, &hi), 0);
	assert_true(lo < 2.0 && 2.0 < hi);
	assert_true(lo > 1.9 && hi < 2.1);
	/* fixed seed: the same interval every time */
	stats_ratio_ci(a, 200, b, 200, 2000, AN_BOOT_SEED, 0.95, &lo2, &hi2);
	assert_float_equal(lo, lo2, 0);
	assert_float_equal(hi, hi2, 0);
	/* identical samples: the ratio CI straddles 1 */
	stats_ratio_ci(b, 200, b, 200, 2000, AN_BOOT_SEED, 0.95, &lo, &hi);
	assert_true(lo <= 1.0 && 1.0 <= hi);
	assert_int_equal(stats_ratio_ci(a, 0, b, 200, 10, 1, 0.95, &lo, &hi), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quantiles_of_1_to_10),
		cmocka_unit_test(median_odd_and_empty),
		cmocka_unit_test(median_ci_order_statistics),
		cmocka_unit_test(median_select_matches_sort),
		cmocka_unit_test(mann_whitney_separated),
		cmocka_unit_test(mann_whitney_ties),
		cmocka_unit_test(ratio_ci_bootstrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
