/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/ministat.c: ministat's vitals and Student's t verdict, Welch's t
 * and a paired t (analysis/ministat.h says exactly what is computed).
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
	o->welch_pct_half = o->welch_half * 100.0 / base->avg;
	o->welch_proven = fabs(o->diff) > o->welch_half;
}

static void ftest(const struct ms_vitals *base, const struct ms_vitals *x,
		  struct ms_diff *o)
{
	double d1 = (double)x->n - 1.0, d2 = (double)base->n - 1.0;
	if (base->var > 0.0 && x->var > 0.0) {
		o->f = x->var / base->var;
		double lo = gsl_cdf_fdist_P(o->f, d1, d2), hi = gsl_cdf_fdist_Q(o->f, d1, d2);
		o->f_p = 2.0 * (lo < hi ? lo : hi);
		if (o->f_p > 1.0)
			o->f_p = 1.0;
	} else {
		/* one sample has no spread: equal only if both have none */
		o->f = NAN;
		o->f_p = base->var == x->var ? 1.0 : 0.0;
	}
	o->var_differ = o->f_p < 1.0 - o->level;
}

int ms_compare(const struct ms_vitals *base, const struct ms_vitals *x,
	       double level, struct ms_diff *o)
{
	memset(o, 0, sizeof(*o));
	o->level = level;
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
	ftest(base, x, o);
	welch(base, x, o);
	o->used = o->var_differ ? MS_WELCH : MS_STUDENT;
	o->verdict = o->used == MS_WELCH ? o->welch_proven : o->proven;
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
	o->df = (double)n - 1.0;
	o->t = gsl_cdf_tdist_Pinv(1.0 - (1.0 - level) / 2.0, o->df);
	o->half = o->t * o->sd_d / sqrt((double)n);
	o->pct = o->mean_d * 100.0 / o->mean_a;
	o->pct_half = o->half * 100.0 / o->mean_a;
	o->proven = fabs(o->mean_d) > o->half;
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

void ms_format_diff(struct sbuf *b, const struct ms_diff *d, bool with_welch,
		    enum ms_style style)
{
	if (!d->ok) {
		sb_puts(b, "(fewer than 2 samples: no comparison)\n");
		return;
	}
	verdict(b, d->proven, d->level, d->diff, d->half, d->pct,
		style == MS_FREEBSD ? d->pct_half_freebsd : d->pct_half);
	if (d->proven)
		sb_printf(b, "\t(Student's t, pooled s = %g)\n", d->spool);
	if (!with_welch || !d->var_differ)
		return;
	sb_printf(b, "Variances differ (F = %.3g, p = %.2g): Welch's t, df = %.1f:\n",
		  d->f, d->f_p, d->welch_df);
	verdict(b, d->welch_proven, d->level, d->diff, d->welch_half, d->pct, d->welch_pct_half);
	if (d->welch_proven)
		sb_puts(b, "\t(Welch's t)\n");
}

void ms_format_paired(struct sbuf *b, const struct ms_paired *p)
{
	if (!p->ok) {
		sb_puts(b, "(fewer than 2 pairs: no comparison)\n");
		return;
	}
	verdict(b, p->proven, p->level, p->mean_d, p->half, p->pct, p->pct_half);
	if (p->proven)
		sb_printf(b, "\t(paired Student's t on %zu differences, sd = %g)\n", p->n,
			  p->sd_d);
	else
		sb_printf(b, "\t(paired Student's t on %zu differences: mean %g +/- %g)\n",
			  p->n, p->mean_d, p->half);
}
