/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/stats.c: the statistics of a report, on GSL.
 *
 * - Quantiles: gsl_stats_quantile_from_sorted_data (linear interpolation
 *   between order statistics, R's type 7).
 * - CI of the median: exact, distribution-free, from order statistics: the
 *   widest symmetric ranks (l, n+1-l) with 1 - 2 P(Bin(n,1/2) <= l-1) >= level.
 *
 * These describe a sample.  Tests between modes, loops or boots are in
 * ministat.c and run on run-level samples only (compare.c): per-call
 * samples of one boot are not independent observations of a mode, so no
 * p-value or interval is computed from them (docs/statistics.md).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "analysis/internal.h"

double stats_median_sorted(const double *sorted, size_t n)
{
	if (!n)
		return NAN;
	return gsl_stats_median_from_sorted_data(sorted, 1, n);
}

bool stats_median_ci(const double *sorted, size_t n, double level,
		     double *lo, double *hi, double *coverage)
{
	double tail = (1.0 - level) / 2.0;
	/* Largest l (1-based) with P(Bin(n,1/2) <= l-1) <= tail. */
	if (n == 0 || gsl_cdf_binomial_P(0, 0.5, (unsigned)n) > tail)
		return false;
	size_t a = 1, b = (n + 1) / 2;	/* invariant: a is valid */
	while (a < b) {
		size_t m = (a + b + 1) / 2;
		if (gsl_cdf_binomial_P((unsigned)(m - 1), 0.5, (unsigned)n) <= tail)
			a = m;
		else
			b = m - 1;
	}
	*lo = sorted[a - 1];
	*hi = sorted[n - a];
	if (coverage)
		*coverage = 1.0 - 2.0 * gsl_cdf_binomial_P((unsigned)(a - 1), 0.5,
							   (unsigned)n);
	return true;
}

void stats_summary(const double *x, size_t n, struct summary *s)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	if (!n) {
		s->median = s->mean = NAN;
		return;
	}
	s->median = gsl_stats_median_from_sorted_data(x, 1, n);
	s->mean = gsl_stats_mean(x, 1, n);
	s->sd = n > 1 ? gsl_stats_sd_m(x, 1, n, s->mean) : 0.0;
	s->min = x[0];
	s->max = x[n - 1];
	s->p5 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.05);
	s->p95 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.95);
	s->q1 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.25);
	s->q3 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.75);
	s->iqr = s->q3 - s->q1;
	s->ci_ok = stats_median_ci(x, n, 0.95, &s->ci_lo, &s->ci_hi, &s->ci_level);
}

/* Wirth's selection: the k-th smallest (0-based); afterwards v[0..k-1] <=
 * v[k] <= v[k+1..n-1].  Reorders v. */
static double select_k(double *v, size_t n, size_t k)
{
	ptrdiff_t l = 0, r = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
	while (l < r) {
		double pivot = v[l + (r - l) / 2];
		ptrdiff_t i = l, j = r;
		do {
			while (v[i] < pivot)
				i++;
			while (pivot < v[j])
				j--;
			if (i <= j) {
				double t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (kk <= j)
			r = j;
		else if (kk >= i)
			l = i;
		else
			break;
	}
	return v[kk];
}

double stats_median_select(double *v, size_t n)
{
	if (!n)
		return NAN;
	size_t k = n / 2;
	double hi = select_k(v, n, k);
	if (n % 2)
		return hi;
	/* The lower middle is the largest of v[0..k-1] after selection. */
	double lo = v[0];
	for (size_t i = 1; i < k; i++)
		if (v[i] > lo)
			lo = v[i];
	return (lo + hi) / 2.0;
}
