/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/gate.c: the rules `ipibench history` gates on (gate.h).
 *
 * E-divisive means (Matteson and James, "A Nonparametric Approach for
 * Multiple Change Point Analysis of Multivariate Data", JASA 2014), as
 * Otava (formerly Hunter: Fleming et al., ICPE 2023) runs it on
 * performance histories: the split tau of a segment x[0..m) that
 * maximises the energy statistic (alpha = 1)
 *
 *   Q(tau) = tau (m - tau) / m * ( 2 / (tau (m - tau)) sum_{i<tau<=j} |xi - xj|
 *            - 1 / C(tau, 2) sum_{i<k<tau} |xi - xk|
 *            - 1 / C(m - tau, 2) sum_{tau<=j<k} |xj - xk| )
 *
 * is a candidate; Otava replaced the original permutation test by a
 * Student's t test of the two sides (deterministic, and it gives a
 * p-value that a threshold can be set on); here it is Welch's t (the two
 * sides need not share a variance).  Significant candidates split the
 * segment and both halves are searched again.
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "analysis/gate.h"

bool gate_time_regressed(const struct ms_diff *d, double threshold_pct)
{
	/* the declared test proves it, and the whole of Fieller's interval
	 * of the ratio lies above the threshold */
	return d->ok && d->verdict && d->ratio_ok && d->pct_lo > threshold_pct;
}

bool gate_time_pair(const double *base, size_t nb, const double *x, size_t nx,
		    double threshold_pct)
{
	struct ms_vitals vb, vx;
	struct ms_diff d;
	if (nb < 2 || nx < 2)
		return false;
	ms_vitals(base, nb, &vb);
	ms_vitals(x, nx, &vx);
	if (!(vb.avg > 0) || ms_compare(&vb, &vx, 0.95, MS_WELCH, &d))
		return false;
	return gate_time_regressed(&d, threshold_pct);
}

double gate_welch_p(const double *a, size_t na, const double *b, size_t nb)
{
	if (na < 2 || nb < 2)
		return 1.0;
	double ma = gsl_stats_mean(a, 1, na), mb = gsl_stats_mean(b, 1, nb);
	double va = gsl_stats_variance_m(a, 1, na, ma) / (double)na;
	double vb = gsl_stats_variance_m(b, 1, nb, mb) / (double)nb;
	double se2 = va + vb;
	if (!(se2 > 0))
		return ma == mb ? 1.0 : 0.0;
	double t = fabs(ma - mb) / sqrt(se2);
	double df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	return 2.0 * gsl_cdf_tdist_Q(t, df);
}

/* The energy statistic of every split of x[0..m): the best tau (with at
 * least min_size points on each side) into *best; false when none.  The
 * three sums move with tau in O(m) each (x[tau] goes from the right side
 * to the left), O(m^2) in all. */
static bool best_split(const double *x, size_t m, size_t min_size, size_t *best)
{
	double between = 0, left = 0, right = 0, qmax = -INFINITY;
	bool found = false;
	for (size_t j = 0; j < m; j++)
		for (size_t k = j + 1; k < m; k++)
			right += fabs(x[j] - x[k]);
	for (size_t tau = 1; tau + 1 <= m; tau++) {
		/* x[tau - 1] moves to the left */
		double xl = x[tau - 1], to_left = 0, to_right = 0;
		for (size_t i = 0; i + 1 < tau; i++)
			to_left += fabs(xl - x[i]);
		for (size_t j = tau; j < m; j++)
			to_right += fabs(xl - x[j]);
		left += to_left;
		right -= to_right;
		between += to_right - to_left;
		if (tau < min_size || tau + min_size > m)
			continue;
		double a = (double)tau, b = (double)(m - tau);
		double e = 2.0 * between / (a * b) - (a > 1 ? left / (a * (a - 1) / 2.0) : 0) -
			   (b > 1 ? right / (b * (b - 1) / 2.0) : 0);
		double q = a * b / (double)m * e;
		if (q > qmax) {
			qmax = q;
			*best = tau;
			found = true;
		}
	}
	return found;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

size_t gate_edivisive(const double *x, size_t n, double pmax, size_t min_size, size_t *cps)
{
	if (min_size < 2)
		min_size = 2;	/* a t test needs two points a side */
	size_t ncp = 0;
	/* segments still to search: [lo, hi) pairs */
	size_t *stack = malloc(2 * (n + 1) * sizeof(size_t)), top = 0;
	if (!stack)
		abort();
	stack[top++] = 0;
	stack[top++] = n;
	while (top) {
		size_t hi = stack[--top], lo = stack[--top], tau;
		if (hi - lo < 2 * min_size || !best_split(x + lo, hi - lo, min_size, &tau))
			continue;
		if (gate_welch_p(x + lo, tau, x + lo + tau, hi - lo - tau) >= pmax)
			continue;
		cps[ncp++] = lo + tau;
		stack[top++] = lo;
		stack[top++] = lo + tau;
		stack[top++] = lo + tau;
		stack[top++] = hi;
	}
	free(stack);
	if (ncp > 1)
		qsort(cps, ncp, sizeof(size_t), cmp_size);
	return ncp;
}

bool gate_exact_changed(double prev, double now, double tol)
{
	if (isnan(prev) || isnan(now))
		return false;
	if (prev == now)
		return false;
	double base = fabs(prev) > 0 ? fabs(prev) : 1.0;
	return fabs(now - prev) / base > (tol > 1e-9 ? tol : 1e-9);
}

/* The slowdowns among the change points of y[0..m). */
static size_t slowdowns(const double *y, size_t m, double threshold, struct gate_cp *out)
{
	size_t *cps = malloc((m + 1) * sizeof(size_t)), n = 0;
	if (!cps)
		abort();
	size_t ncp = m >= 2 * GATE_CP_MIN_SIZE ?
		     gate_edivisive(y, m, GATE_CP_PMAX, GATE_CP_MIN_SIZE, cps) : 0;
	for (size_t c = 0; c < ncp; c++) {
		size_t lo = c ? cps[c - 1] : 0, hi = c + 1 < ncp ? cps[c + 1] : m;
		double before = 0, after = 0;
		for (size_t i = lo; i < cps[c]; i++)
			before += y[i];
		for (size_t i = cps[c]; i < hi; i++)
			after += y[i];
		before /= (double)(cps[c] - lo);
		after /= (double)(hi - cps[c]);
		if (before > 0 && after / before - 1.0 > threshold)
			out[n++] = (struct gate_cp){ .at = cps[c], .change = after / before - 1.0 };
	}
	free(cps);
	return n;
}

size_t gate_cp_slowdowns(const double *y, size_t m, double threshold, struct gate_cp *out)
{
	size_t n = slowdowns(y, m, threshold, out);
	if (!n)
		return 0;
	struct gate_cp *old = malloc(m * sizeof(*old));
	if (!old)
		abort();
	size_t n0 = m > 0 ? slowdowns(y, m - 1, threshold, old) : 0;
	for (size_t c = 0; c < n; c++) {
		out[c].is_new = true;
		for (size_t c0 = 0; c0 < n0; c0++)
			if (old[c0].at + 1 >= out[c].at && old[c0].at <= out[c].at + 1)
				out[c].is_new = false;
	}
	free(old);
	return n;
}
