/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/gate.h: the rules `ipibench history` gates on, as functions of
 * plain arrays so that the false-alarm and detection rates can be
 * measured on synthetic histories (analysis/tests/test_gate.c) with the
 * very code the history runs.
 *
 *   gate_time_regressed()  the pairwise time rule: the comparison with the
 *                          previous set proves a slowdown whose whole 95%
 *                          interval lies above the threshold
 *   gate_edivisive()       change points of a series (E-divisive means,
 *                          Matteson and James 2014, with the significance
 *                          test Otava uses: Welch's t between the two
 *                          sides of the candidate, p < pmax)
 *   gate_exact_changed()   a deterministic count per operation that moved
 *                          by more than its tolerance, either way
 */
#ifndef IPIBENCH_ANALYSIS_GATE_H
#define IPIBENCH_ANALYSIS_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/ministat.h"

/* Change-point detection's parameters (docs/statistics.md). */
#define GATE_CP_PMAX 0.001	/* Otava's default --max-pvalue */
#define GATE_CP_MIN_SIZE 3	/* points on each side of a change point */

/* The time rule on a comparison with the previous set: proven (the test
 * ministat's comparison used) and pct - half-width > threshold (percent). */
bool gate_time_regressed(const struct ms_diff *d, double threshold_pct);

/* The same from the two run-level samples (base: the previous set). */
bool gate_time_pair(const double *base, size_t nb, const double *x, size_t nx,
		    double threshold_pct);

/* Change points of x[0..n-1]: indices of the first point of each new
 * level, ascending, into cps (room for n / min_size entries); returns
 * their count.  A split needs min_size points on each side and Welch's t
 * between the points on each side of it (within the segment being split)
 * with p < pmax.  Segments are split again until no split is significant
 * (binary segmentation, as E-divisive does). */
size_t gate_edivisive(const double *x, size_t n, double pmax, size_t min_size, size_t *cps);

/* The change-point rule on a series' run-level means y[0..m-1]: the
 * change points whose level (to the next change point) is more than
 * threshold (a fraction) above the level before (from the previous one),
 * each with its change and whether it is new: not found (within one set)
 * in y[0..m-2], the history without its newest set.  out has room for m
 * entries; returns their count. */
struct gate_cp {
	size_t at;		/* the first set of the slower level */
	double change;		/* level after / level before - 1 */
	bool is_new;
};
size_t gate_cp_slowdowns(const double *y, size_t m, double threshold, struct gate_cp *out);

/* Welch's two-sided p-value of the means of a[0..na-1] and b[0..nb-1]
 * (GSL's t distribution); 1 when they cannot be told apart (n < 2, or no
 * spread and equal means), 0 for different means without spread. */
double gate_welch_p(const double *a, size_t na, const double *b, size_t nb);

/* A deterministic figure (count per operation) against the previous
 * one: changed when |now / prev - 1| > tol (tol 0: any difference
 * beyond 1e-9 relative, floating-point sums' rounding). */
bool gate_exact_changed(double prev, double now, double tol);

#endif
