/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/ministat.c: ministat's vitals and Student's t verdict, Welch's t,
 * a paired t and Fieller's interval of a ratio (analysis/ministat.h says
 * exactly what is computed).
 * Checked against Debian's ministat binary by analysis/tests/test_ministat.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "analysis/internal.h"
#include "analysis/ministat.h"

void ms_vitals(const double *x, size_t n, struct ms_vitals *v)
{
	memset(v, 0, sizeof(*v));
	v->n = n;
	if (!n) {
		v->min = v->max = v->median = v->avg = v->stddev = v->var = NAN;
		return;
	}
	/* ministat's AddPoint(): running sums in input order. */
	double sy = 0.0, syy = 0.0;
	for (size_t i = 0; i < n; i++) {
		sy += x[i];
		syy += x[i] * x[i];
	}
	double *s = xcalloc(n, sizeof(double));
	memcpy(s, x, n * sizeof(double));
	gsl_sort(s, 1, n);
	double dn = (double)n;
	v->min = s[0];
	v->max = s[n - 1];
	v->median = s[n / 2];
	v->avg = sy / dn;
	v->var = n > 1 ? (syy - sy * sy / dn) / (dn - 1.0) : NAN;
	v->stddev = sqrt(v->var);
	free(s);
}

void ms_vitals_from(size_t n, double min, double max, double median,
		    double avg, double stddev, struct ms_vitals *v)
{
	*v = (struct ms_vitals){ .n = n, .min = min, .max = max, .median = median,
				 .avg = avg, .stddev = stddev,
				 .var = stddev * stddev };
}

double ms_student_t(double df, double level)
{
	double p = 1.0 - (1.0 - level) / 2.0;
	/* ministat: a table of t rounded to 3 decimals for df 1..100, the
	 * normal quantile (its "inf" row) beyond. */
	double t = df > 100.0 ? gsl_cdf_ugaussian_Pinv(p) : gsl_cdf_tdist_Pinv(p, df);
	return round(t * 1000.0) / 1000.0;
}

const char *ms_test_name(enum ms_test t)
{
	return t == MS_STUDENT ? "Student's t" : "Welch's t";
}

/* Fieller (1954): the ratios r whose hypothesis mx - r mb = 0 the t test
 * does not reject, i.e. A r^2 - 2 B r + C <= 0 with A = mb^2 - tq^2 vb,
 * B = mx mb - tq^2 cov, C = mx^2 - tq^2 vx.  Bounded when A > 0; the
 * discriminant is then >= 0 (the quadratic is <= 0 at r = mx / mb). */
bool ms_fieller(double mx, double vx, double mb, double vb, double cov, double tq,
		double *lo, double *hi)
{
	double t2 = tq * tq;
	double A = mb * mb - t2 * vb, B = mx * mb - t2 * cov, C = mx * mx - t2 * vx;
	*lo = *hi = NAN;
	if (!(A > 0.0) || isnan(B) || isnan(C))
		return false;
	double disc = B * B - A * C;
	double r = sqrt(disc > 0.0 ? disc : 0.0);
	*lo = (B - r) / A;
	*hi = (B + r) / A;
	return true;
}

static void welch(const struct ms_vitals *base, const struct ms_vitals *x,
		  struct ms_diff *o)
{
	double n1 = (double)x->n, n2 = (double)base->n;
	double a = x->var / n1, b = base->var / n2;
	double se = sqrt(a + b);
	o->welch_df = (a + b) * (a + b) / (a * a / (n1 - 1.0) + b * b / (n2 - 1.0));
	if (!(se > 0.0) || isnan(o->welch_df)) {
		o->welch_df = n1 + n2 - 2.0;
		se = 0.0;
	}
	o->welch_t = gsl_cdf_tdist_Pinv(1.0 - (1.0 - o->level) / 2.0, o->welch_df);
	o->welch_half = o->welch_t * se;
	o->welch_proven = fabs(o->diff) > o->welch_half;
}

int ms_compare(const struct ms_vitals *base, const struct ms_vitals *x,
	       double level, enum ms_test test, struct ms_diff *o)
{
	memset(o, 0, sizeof(*o));
	o->level = level;
	o->test = test;
	o->pct_lo = o->pct_hi = NAN;
	if (base->n < 2 || x->n < 2)
		return -1;
	o->ok = true;
	/* ministat's Relative(ds = x, rs = base). */
	double n1 = (double)x->n, n2 = (double)base->n;
	o->df = n1 + n2 - 2.0;
	o->t = ms_student_t(o->df, level);
	double spool = ((n1 - 1.0) * x->var + (n2 - 1.0) * base->var) / o->df;
	o->spool = sqrt(spool);
	double s = o->spool * sqrt(1.0 / n1 + 1.0 / n2);
	o->diff = x->avg - base->avg;
	o->half = o->t * s;
	o->pct = o->diff * 100.0 / base->avg;
	o->pct_half = o->half * 100.0 / base->avg;
	double re = (n1 - 1.0) * x->var +
		    (n2 - 1.0) * base->var * (x->avg * x->avg) / (base->avg * base->avg);
	re *= (n1 + n2) / (n1 * n2 * (n1 + n2 - 2.0));
	o->pct_half_freebsd = o->t * sqrt(re) * 100.0 / base->avg;
	o->proven = fabs(o->diff) > o->half;
	welch(base, x, o);
	/* The declared test and Fieller's interval on its standard errors
	 * and quantile.  Student's: ministat's rounded quantile, so its
	 * verdict is ministat's. */
	double vx, vb;
	if (test == MS_STUDENT) {
		o->test_t = o->t;
		o->test_df = o->df;
		o->test_half = o->half;
		o->verdict = o->proven;
		vx = spool / n1;
		vb = spool / n2;
	} else {
		o->test_t = o->welch_t;
		o->test_df = o->welch_df;
		o->test_half = o->welch_half;
		o->verdict = o->welch_proven;
		vx = x->var / n1;
		vb = base->var / n2;
	}
	double lo, hi;
	o->ratio_ok = ms_fieller(x->avg, vx, base->avg, vb, 0.0, o->test_t, &lo, &hi);
	o->pct_lo = (lo - 1.0) * 100.0;
	o->pct_hi = (hi - 1.0) * 100.0;
	return 0;
}

int ms_paired(const double *a, const double *b, size_t n, double level,
	      struct ms_paired *o)
{
	memset(o, 0, sizeof(*o));
	o->n = n;
	o->level = level;
	if (n < 2)
		return -1;
	o->ok = true;
	double *d = xcalloc(n, sizeof(double));
	for (size_t i = 0; i < n; i++)
		d[i] = b[i] - a[i];
	o->mean_a = gsl_stats_mean(a, 1, n);
	o->mean_b = gsl_stats_mean(b, 1, n);
	o->mean_d = gsl_stats_mean(d, 1, n);
	o->sd_d = gsl_stats_sd_m(d, 1, n, o->mean_d);
	free(d);
	double dn = (double)n;
	double va = gsl_stats_variance_m(a, 1, n, o->mean_a) / dn;
	double vb = gsl_stats_variance_m(b, 1, n, o->mean_b) / dn;
	double cov = gsl_stats_covariance_m(a, 1, b, 1, n, o->mean_a, o->mean_b) / dn;
	o->df = (double)n - 1.0;
	o->t = gsl_cdf_tdist_Pinv(1.0 - (1.0 - level) / 2.0, o->df);
	o->half = o->t * o->sd_d / sqrt((double)n);
	o->pct = o->mean_d * 100.0 / o->mean_a;
	o->pct_half = o->half * 100.0 / o->mean_a;
	o->proven = fabs(o->mean_d) > o->half;
	double lo, hi;
	o->ratio_ok = ms_fieller(o->mean_b, vb, o->mean_a, va, cov, o->t, &lo, &hi);
	o->pct_lo = (lo - 1.0) * 100.0;
	o->pct_hi = (hi - 1.0) * 100.0;
	return 0;
}

/* ---- ministat's text ------------------------------------------------------ */
char ms_symbol(size_t i)
{
	static const char sym[] = "x+*%#@O";
	return i < sizeof(sym) - 1 ? sym[i] : '?';
}

void ms_format_head(struct sbuf *b)
{
	sb_puts(b, "    N           Min           Max        Median           Avg        Stddev\n");
}

void ms_format_vitals(struct sbuf *b, size_t i, const struct ms_vitals *v)
{
	sb_printf(b, "%c %3zu %13.8g %13.8g %13.8g %13.8g %13.8g\n", ms_symbol(i), v->n,
		  v->min, v->max, v->median, v->avg, v->stddev);
}

/* ministat's verdict: "Difference at P% confidence" with the difference,
 * its half width and the same in percent, or "No difference proven". */
static void verdict(struct sbuf *b, bool proven, double level, double diff, double half,
		    double pct, double pct_half)
{
	if (!proven) {
		sb_printf(b, "No difference proven at %.1f%% confidence\n", level * 100.0);
		return;
	}
	sb_printf(b, "Difference at %.1f%% confidence\n", level * 100.0);
	sb_printf(b, "\t%g +/- %g\n", diff, half);
	sb_printf(b, "\t%g%% +/- %g%%\n", pct, pct_half);
}

void ms_format_ministat(struct sbuf *b, const struct ms_diff *d, enum ms_style style)
{
	if (!d->ok) {
		sb_puts(b, "(fewer than 2 samples: no comparison)\n");
		return;
	}
	verdict(b, d->proven, d->level, d->diff, d->half, d->pct,
		style == MS_FREEBSD ? d->pct_half_freebsd : d->pct_half);
	if (d->proven)
		sb_printf(b, "\t(Student's t, pooled s = %g)\n", d->spool);
}

/* "-35.2% to -10.1%", or why there is no interval. */
static void fieller_text(struct sbuf *b, bool ok, double lo, double hi)
{
	if (ok)
		sb_printf(b, "%+.4g%% to %+.4g%%", lo, hi);
	else
		sb_puts(b, "unbounded (the baseline mean is not distinguishable from 0)");
}

void ms_format_diff(struct sbuf *b, const struct ms_diff *d, enum ms_style style)
{
	if (!d->ok) {
		sb_puts(b, "(fewer than 2 samples: no comparison)\n");
		return;
	}
	if (d->test == MS_STUDENT) {
		/* declared Student's t: ministat's own block, then the interval */
		ms_format_ministat(b, d, style);
		sb_puts(b, "\tratio, Fieller's interval: ");
		fieller_text(b, d->ratio_ok, d->pct_lo, d->pct_hi);
		sb_puts(b, "\n");
		return;
	}
	sb_printf(b, "%s at %.1f%% confidence\n",
		  d->verdict ? "Difference" : "No difference proven", d->level * 100.0);
	if (d->verdict)
		sb_printf(b, "\t%g +/- %g\n", d->diff, d->test_half);
	sb_printf(b, "\t%g%%, Fieller's interval ", d->pct);
	fieller_text(b, d->ratio_ok, d->pct_lo, d->pct_hi);
	sb_printf(b, "\n\t(Welch's t, df = %.1f; ministat's line, Student's t: ", d->test_df);
	if (d->proven)
		sb_printf(b, "%g%% +/- %g%%)\n",  d->pct,
			  style == MS_FREEBSD ? d->pct_half_freebsd : d->pct_half);
	else
		sb_puts(b, "no difference proven)\n");
}

void ms_format_paired(struct sbuf *b, const struct ms_paired *p)
{
	if (!p->ok) {
		sb_puts(b, "(fewer than 2 pairs: no comparison)\n");
		return;
	}
	verdict(b, p->proven, p->level, p->mean_d, p->half, p->pct, p->pct_half);
	sb_puts(b, "	ratio B / A, Fieller's interval: ");
	fieller_text(b, p->ratio_ok, p->pct_lo, p->pct_hi);
	sb_puts(b, "\n");
	if (p->proven)
		sb_printf(b, "\t(paired Student's t on %zu differences, sd = %g)\n", p->n,
			  p->sd_d);
	else
		sb_printf(b, "\t(paired Student's t on %zu differences: mean %g +/- %g)\n",
			  p->n, p->mean_d, p->half);
}
