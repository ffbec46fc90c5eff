/* SPDX-License-Identifier: GPL-3.0-or-later */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quantiles_of_1_to_10),
		cmocka_unit_test(median_odd_and_empty),
		cmocka_unit_test(median_ci_order_statistics),
		cmocka_unit_test(median_select_matches_sort),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
