/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/ministat.h: FreeBSD ministat's figures and verdicts, plus
 * Welch's t, a paired t and Fieller's interval of a ratio, for run-level samples (loops, boots, hyperfine
 * runs).  Never feed it per-call samples of one boot as if independent.
 *
 * Figures are computed exactly as Debian's ministat 20150715 computes them:
 *   - Avg and Var from running sums in input order:
 *       Var = (sum(x^2) - sum(x)^2 / n) / (n - 1)
 *   - Median = sorted[n / 2] (0-based: the upper middle value for even N)
 *   - Student's t quantile: two-sided, df = n1 + n2 - 2, rounded to three
 *     decimals as ministat's table is; df > 100 uses the normal quantile
 *     (rounded: 1.960 at 95%).  The quantiles come from GSL; ministat's
 *     80/90/95/98/99% columns are exactly these.  (Its "99.5%" column holds
 *     the 99.9% quantiles; ms_student_t() gives the true ones.)
 *   - difference = Avg(x) - Avg(base), half-width = t * spool * sqrt(1/n1 +
 *     1/n2), spool = sqrt(((n1-1) Var1 + (n2-1) Var2) / (n1 + n2 - 2)); a
 *     difference is proven when |difference| > half-width; the percentages
 *     are relative to Avg(base).
 * Added (not in ministat):
 *   - one test per comparison, declared by the caller before the data are
 *     seen (enum ms_test): Welch's t (Welch-Satterthwaite df, exact GSL
 *     quantile) by default, Student's t only where declared (ministat's own
 *     blocks, the published reference).  No pretest picks between them.
 *   - Fieller's interval of the ratio Avg(x) / Avg(base), shown as a
 *     percentage change (ms_fieller()): it counts the uncertainty of both
 *     means, where ministat's half-width / Avg(base) treats the baseline
 *     mean as exact.  It uses the declared test's standard errors and
 *     quantile, so it excludes 0% exactly when that test proves a
 *     difference.
 */
#ifndef IPIBENCH_ANALYSIS_MINISTAT_H
#define IPIBENCH_ANALYSIS_MINISTAT_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf;

/* ministat's "vitals" of one sample. */
struct ms_vitals {
	size_t n;
	double min, max, median, avg, stddev, var;
};

/* The vitals of x[0..n-1] (any order; x is not modified).  n >= 1. */
void ms_vitals(const double *x, size_t n, struct ms_vitals *v);
/* Vitals from published figures (a reference table): var = stddev^2. */
void ms_vitals_from(size_t n, double min, double max, double median,
		    double avg, double stddev, struct ms_vitals *v);

/* The test of a comparison, declared before the data are seen. */
enum ms_test { MS_WELCH, MS_STUDENT };
const char *ms_test_name(enum ms_test t);	/* "Welch's t", "Student's t" */

/* Fieller's interval of the ratio mx / mb of two means at quantile tq:
 * vx, vb are the squared standard errors of mx and mb, cov their
 * covariance (0 for independent samples).  The ratios r with
 * (mx - r mb)^2 <= tq^2 (vx - 2 r cov + r^2 vb).  Returns false (lo, hi
 * NAN) when the set is not a bounded interval (mb is not distinguishable
 * from 0 at this level). */
bool ms_fieller(double mx, double vx, double mb, double vb, double cov, double tq,
		double *lo, double *hi);

struct ms_diff {
	bool ok;		/* both samples have n >= 2 */
	double level;		/* e.g. 0.95 */
	enum ms_test test;	/* the declared test: its verdict is the one */
	/* ministat's Student's t (always computed, printed as ministat's line) */
	double t, df, spool;
	double diff, half;	/* Avg(x) - Avg(base), +/- half */
	double pct, pct_half;	/* the same in % of Avg(base) */
	/* FreeBSD's ministat since 2017 prints another % half-width, which
	 * also counts the uncertainty of Avg(base) (the seed's 512-CPU table
	 * was printed by it): t * sqrt(((n1-1) Var1 + (n2-1) Var2 Avg1^2 /
	 * Avg2^2) (n1+n2) / (n1 n2 (n1+n2-2))) * 100 / Avg2, 1 = x, 2 = base */
	double pct_half_freebsd;
	bool proven;		/* |diff| > half (Student's t) */
	/* Welch's t */
	double welch_t, welch_df, welch_half;
	bool welch_proven;
	/* the declared test */
	double test_t, test_df, test_half;	/* quantile, df, half-width of diff */
	bool verdict;		/* its proven flag */
	/* Fieller's interval of Avg(x) / Avg(base) under the declared test,
	 * as % change: [pct_lo, pct_hi]; ratio_ok false when unbounded */
	bool ratio_ok;
	double pct_lo, pct_hi;
};

/* The two-sided Student's t quantile ministat uses at this level (0.95). */
double ms_student_t(double df, double level);
/* Compare x with base at level (0.95) by the declared test.  Returns 0,
 * or -1 (out->ok false) when a sample has fewer than 2 points. */
int ms_compare(const struct ms_vitals *base, const struct ms_vitals *x,
	       double level, enum ms_test test, struct ms_diff *out);

/* Paired comparison: d[i] = b[i] - a[i], i < n; Student's t on the
 * differences with n - 1 df (exact GSL quantile). */
struct ms_paired {
	bool ok;		/* n >= 2 */
	size_t n;
	double level, t, df;
	double mean_a, mean_b, mean_d, sd_d;
	double half;		/* t * sd_d / sqrt(n) */
	double pct, pct_half;	/* mean_d and half in % of mean_a */
	bool proven;		/* |mean_d| > half */
	/* Fieller's interval of mean_b / mean_a (paired: with the covariance
	 * of the two means), as % change */
	bool ratio_ok;
	double pct_lo, pct_hi;
};
int ms_paired(const double *a, const double *b, size_t n, double level,
	      struct ms_paired *out);

/* Text in ministat's own format (ministat -A):
 *   ms_format_head:   "    N           Min ..."
 *   ms_format_vitals: "x  25 3.5131328e+08 ..." (symbol: x + * % # @ O)
 *   ms_format_ministat: exactly ministat's "Difference at 95.0% confidence"
 *                     and its three lines, or "No difference proven at 95.0%
 *                     confidence" (Student's t).  MS_DEBIAN prints Debian's
 *                     ministat's percentage half-width, MS_FREEBSD FreeBSD's.
 *   ms_format_diff:   the block a report prints: the declared test's verdict
 *                     and half-width, Fieller's interval of the percentage,
 *                     and ministat's own percentage line beside it.
 *   ms_format_paired: the paired verdict, with Fieller's interval. */
char ms_symbol(size_t i);	/* 0 -> 'x', 1 -> '+', ... */
void ms_format_head(struct sbuf *b);
void ms_format_vitals(struct sbuf *b, size_t i, const struct ms_vitals *v);
enum ms_style { MS_DEBIAN, MS_FREEBSD };	/* which % half-width is printed */
void ms_format_ministat(struct sbuf *b, const struct ms_diff *d, enum ms_style style);
void ms_format_diff(struct sbuf *b, const struct ms_diff *d, enum ms_style style);
void ms_format_paired(struct sbuf *b, const struct ms_paired *p);

#endif
