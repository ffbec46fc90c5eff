/*
 * analysis/stats.c: the statistics of a report, on GSL.
 *
 * - Quantiles: gsl_stats_quantile_from_sorted_data (linear interpolation
 *   between order statistics, R's type 7).
 * - CI of the median: exact, distribution-free, from order statistics: the
 *   widest symmetric ranks (l, n+1-l) with 1 - 2 P(Bin(n,1/2) <= l-1) >= level.
 * - Mann-Whitney U: normal approximation with tie and continuity correction
 *   (R's wilcox.test(exact = FALSE, correct = TRUE)), two-sided.
 * - Ratio of medians: percentile bootstrap, fixed seed, so a report is
 *   reproducible byte for byte.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
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

struct tagged {
	double v;
	int from_a;
};

static int cmp_tagged(const void *x, const void *y)
{
	double a = ((const struct tagged *)x)->v, b = ((const struct tagged *)y)->v;
	return (a > b) - (a < b);
}

int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		       struct mannwhitney *out)
{
	memset(out, 0, sizeof(*out));
	if (!na || !nb) {
		out->p = NAN;
		return -1;
	}
	size_t N = na + nb;
	struct tagged *t = xcalloc(N, sizeof(*t));
	for (size_t i = 0; i < na; i++)
		t[i] = (struct tagged){ a[i], 1 };
	for (size_t i = 0; i < nb; i++)
		t[na + i] = (struct tagged){ b[i], 0 };
	qsort(t, N, sizeof(*t), cmp_tagged);
	double ra = 0.0, ties = 0.0;
	for (size_t i = 0; i < N;) {
		size_t j = i;
		while (j + 1 < N && t[j + 1].v == t[i].v)
			j++;
		double rank = (double)(i + j + 2) / 2.0;	/* average, 1-based */
		double cnt = (double)(j - i + 1);
		for (size_t k = i; k <= j; k++)
			if (t[k].from_a)
				ra += rank;
		ties += cnt * cnt * cnt - cnt;
		i = j + 1;
	}
	free(t);
	double n1 = (double)na, n2 = (double)nb, Nd = (double)N;
	out->u = ra - n1 * (n1 + 1.0) / 2.0;
	out->auc = out->u / (n1 * n2);
	double mu = n1 * n2 / 2.0;
	double var = n1 * n2 / 12.0 * ((Nd + 1.0) - ties / (Nd * (Nd - 1.0)));
	if (var <= 0.0) {
		out->z = 0.0;
		out->p = 1.0;
		return 0;
	}
	double d = out->u - mu;
	double cc = d > 0 ? 0.5 : (d < 0 ? -0.5 : 0.0);
	out->z = (d - cc) / sqrt(var);
	out->p = 2.0 * gsl_cdf_ugaussian_Q(fabs(out->z));
	if (out->p > 1.0)
		out->p = 1.0;
	return 0;
}

static double boot_median(const gsl_rng *r, const double *x, size_t n,
			   double *scratch)
{
	for (size_t i = 0; i < n; i++)
		scratch[i] = x[gsl_rng_uniform_int(r, n)];
	return stats_median_select(scratch, n);
}

int stats_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
		   unsigned B, unsigned long seed, double level,
		   double *lo, double *hi)
{
	if (!na || !nb || !B)
		return -1;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, seed);
	double *scratch = xcalloc(na > nb ? na : nb, sizeof(double));
	double *ratios = xcalloc(B, sizeof(double));
	size_t k = 0;
	for (unsigned i = 0; i < B; i++) {
		double ma = boot_median(r, a, na, scratch);
		double mb = boot_median(r, b, nb, scratch);
		if (mb != 0.0)
			ratios[k++] = ma / mb;
	}
	int rc = -1;
	if (k) {
		gsl_sort(ratios, 1, k);
		double tail = (1.0 - level) / 2.0;
		*lo = gsl_stats_quantile_from_sorted_data(ratios, 1, k, tail);
		*hi = gsl_stats_quantile_from_sorted_data(ratios, 1, k, 1.0 - tail);
		rc = 0;
	}
	free(ratios);
	free(scratch);
	gsl_rng_free(r);
	return rc;
}
