/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/history.c: `ipibench history RESULTS... [-o OUT]`.
 *
 * One time series per host (host.name), CPU count, workload and mode,
 * across result sets ordered by commit and date.  The regression rule
 * (stated in --help, history.md, history.json and index.html), on
 * run-level samples (runlevel.c: boots when both sets have >= 2 per mode,
 * else the timed loops), never on per-call samples:
 *
 *   a result set regresses a series when Welch's t at 95% against the
 *   previous set of the series proves a slowdown whose whole 95% interval
 *   of the ratio (Fieller's, ministat.c) lies above the threshold:
 *   lower bound % > threshold   (default 5%)
 *
 * The previous set is the one just before in the order (commit, then
 * date), so a lasting slowdown is flagged once, where it appeared.
 *
 * On an emulated host (host.emulated) the time rule is not applied: the
 * change against the previous set is shown with the series' boot-to-boot
 * spread, and no verdict, since the times of one boot against another
 * measure the host's scheduling of QEMU's threads.
 *
 * Beside the pairwise rule, a real host's series of 2 * GATE_CP_MIN_SIZE
 * sets or more is searched for change points (gate.c: E-divisive means,
 * Otava's method): a lasting slowdown is flagged where it began, and
 * fails --fail-on-regression=latest in the history where it is first
 * found (flag_change_points()).
 *
 * The exact rule (flag_exact_changes()): counts per operation that the
 * host's timing cannot move (the minimum instructions of a send path and
 * of a handler, ICR writes, IPIs sent and interrupts handled per
 * operation, vector capacity) flag any change, either way.
 *
 * Instruction counts (insn_counts, tcgplug/'s plugin on an emulated host)
 * have a rule of their own, for counts that do not depend on time: a set
 * whose send path or handler instructions per operation differ from the
 * previous set's in the series by more than --insn-threshold (default
 * 0.5%), either way, is flagged (like rustc-perf's instruction counts).
 *
 * Layout: history_load() reads and orders the sets, builds the series and
 * applies the rule (flag_regressions()); history_compute() derives what is
 * shown (the rule's text, regression lines, table cells, plotted values,
 * blocks of series); render_plots(), render_md(), render_html() and
 * render_json() only format that model.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "lib/opts.h"
#include "lib/safeio.h"
#include "analysis/analysis.h"
#include "analysis/compare.h"
#include "analysis/gate.h"
#include "analysis/internal.h"
#include "analysis/ministat.h"

#define INSN_RULE_FMT \
	"instruction counts per operation (QEMU TCG plugin; exact, where emulated " \
	"times are noisy): a result set whose send path or receiver handler mean " \
	"differs from the previous set's in the series by more than %.3g%%, either " \
	"way, is flagged where the two sets carry no per-call minimum (with one, " \
	"the minimum gates exactly: an interrupt inside one call of 30 moves a " \
	"short send path's mean by 0.9%%)"
#define RULE_FMT \
	"a result set regresses a series (host, CPUs, workload, mode) when a " \
	"ministat comparison of its run-level samples (boots when both sets have " \
	"two or more per mode, else timed loops) with the previous result set in " \
	"the series proves at 95%% confidence a slowdown of more than %.3g%%: " \
	"Welch's t, and the lower bound of Fieller's 95%% interval of the ratio " \
	"(which counts the uncertainty of both means) above %.3g%%; sets without " \
	"run-level samples are not judged"

#define EXACT_RULE_FMT \
	"deterministic counts per operation, which the host's timing cannot move: " \
	"the minimum instructions of a send path and of a receiver handler " \
	"(insn_counts), ICR writes, IPIs sent and interrupts handled per operation, " \
	"and the vector capacity; a result set whose count differs from the " \
	"previous set's in the series at all (tolerance 0), either way, is flagged"
#define EMU_RULE \
	"on an emulated host (host.emulated) the times are the host's scheduling " \
	"of QEMU's threads: they are shown with their boot-to-boot spread, never " \
	"judged between boots, and only the deterministic counts gate"
#define CP_RULE_FMT \
	"change points (real hosts, series of %d or more sets): E-divisive means " \
	"on the run-level means of the sets (Matteson and James; Otava's method), a " \
	"split kept when Welch's t of its two sides gives p < %g and each side has " \
	"%d or more sets; a change point whose level is more than %.3g%% slower is " \
	"flagged at the set where it began, and fails --fail-on-regression=latest " \
	"in the history where it is first found (not without the newest set)"

/* The deterministic counts of a point (the exact rule): name, tolerance 0. */
enum exact_metric { EX_SEND_MIN, EX_HANDLER_MIN, EX_ICR, EX_IPIS, EX_IRQS, EX_VECTORS, EX_N };
static const char *const exact_name[EX_N] = {
	"send path instructions (minimum per operation)",
	"handler instructions (minimum per interrupt)",
	"ICR writes per operation", "IPIs sent per operation",
	"interrupts handled per operation", "vector capacity",
};

const struct opts_synopsis history_synopsis = {
	"ipibench history", "time series and regression detection across result sets",
	"RESULTS... [-o DIR] [--threshold PCT] [--insn-threshold PCT]\n"
	"           [--fail-on-regression[=any|latest]] [--link LABEL=HREF]... [-q]", 1,
};

static const char history_help[] =
	"\n"
	"Time series of median latency per host (host.name), CPU count, workload and\n"
	"mode across result sets, with regression flags, plots and an index.html.\n"
	"RESULTS is a results.json, a directory holding one, or a directory whose\n"
	"subdirectories (up to 3 levels) hold them.  Result sets are ordered by\n"
	"commit (tool.commit; a commit takes the date of its earliest result set),\n"
	"then by their \"created\" date.\n"
	"\n"
	"Regression rule, on run-level samples only (per-call samples of one boot\n"
	"are not independent observations): the unit is the boot when both sets\n"
	"have two or more boots per mode (a boot's value: the mean ns per call of\n"
	"its timed loops, or of its calls without loops), else the timed loops\n"
	"(ns / calls).  A result set regresses a series when Welch's t at 95%\n"
	"against the previous set of that series proves a slowdown whose whole\n"
	"95% interval of the ratio (Fieller's: it counts the uncertainty of both\n"
	"means) lies above the threshold:\n"
	"    lower bound of the interval, in % > PCT\n"
	"With one boot per set the loops cannot tell a slower build from a slower\n"
	"boot: use repetitions >= 2 where that matters.  Sets without loops and\n"
	"with one boot per mode are shown, not judged.  A lasting slowdown is\n"
	"flagged once, at the set where it appeared.\n"
	"\n"
	"On an emulated host (host.emulated) times are never judged: the change is\n"
	"shown with the boot-to-boot spread of the series, and only the exact counts\n"
	"gate.  Exact counts, on every host: the minimum instructions per operation\n"
	"of a send path and of a handler (insn_counts), ICR writes, IPIs sent and\n"
	"interrupts handled per operation and the vector capacity; any change from\n"
	"the previous set, either way, is flagged.  Change points, on a real host's\n"
	"series of 6 or more sets: E-divisive means (Otava's method, Welch's t\n"
	"p < 0.001, 3 or more sets a side) on the sets' run-level means; a level\n"
	"more than PCT slower is flagged where it began, and with\n"
	"--fail-on-regression=latest fails the history where it is first found.\n"
	"\n"
	"options:\n";

static const char history_help_tail[] =
	"\n"
	"Writes DIR/history.md (also printed), DIR/history.json, DIR/index.html\n"
	"(every plot with its table) and per host/CPUs/workload a plot\n"
	"DIR/history-*.png and .svg with its .gp script and .dat data.\n"
	"\n"
	"Exit status: 0 ok, 1 bad input or output error, 2 usage, 3 regression\n"
	"(with --fail-on-regression).\n";

struct point {
	size_t set;		/* index into d.sets */
	struct group *g;
	bool flagged;
	double change;		/* run-level avg / previous - 1 (NAN: first, none) */
	bool prev_zero;		/* the previous point's mean is 0: not compared */
	enum rl_unit unit;	/* of the comparison with the previous point */
	struct ms_vitals v;	/* run-level vitals in that unit (v.n 0: none) */
	struct ms_diff diff;	/* against the previous point */
	/* figures shown (history_compute()) */
	char cell[160];		/* its table cell in history.md and index.html */
	double y, sd;		/* plotted: run-level mean and sd, or median and 0 */
	/* insn_counts: per operation, and their change vs the previous point
	 * with counts (NAN: none) */
	bool has_insn, insn_flagged;
	double send, handler, send_chg, handler_chg;
	char insn_cell[160];
	/* the time rule: this set or the previous one is emulated, so the
	 * change is shown (ratio of the run-level means), never judged */
	bool emulated;
	/* change-point detection (real hosts): a slowdown begins here;
	 * cp_new: not found in the series without its newest set */
	bool cp, cp_new;
	double cp_change;	/* mean after / mean before - 1 */
	/* the deterministic counts (NAN: none) and which changed */
	double exact[EX_N], exact_prev[EX_N];
	unsigned exact_changed;	/* bit per enum exact_metric */
};

struct series {
	char *host, *workload, *type, *mode;
	long cpus;
	struct point *pts;
	size_t n;
	/* emulated: max / min of its sets' run-level means (0: fewer than 2) */
	double spread;
	size_t nspread;
};

/* A row of a block's table: a result set where a series of the block has
 * a point. */
struct hrow {
	size_t pos, set;	/* position in the order; index into d.sets */
	bool reg;		/* a point of the row is flagged */
};

/* Series [first, end) of one host, CPU count and workload: one plot, one
 * table. */
struct hblock {
	size_t first, end;
	char *name;		/* the plot: NAME.png, .svg, .gp, .dat */
	struct hrow *rows;
	size_t nrows;
};

/* The model: the dataset, the series with their flagged points, and what
 * history_compute() derives for the renderers (render_md(), render_html(),
 * render_json(), render_plots()), which only format it. */
struct history {
	const char *out;
	double threshold;	/* fraction */
	double insn_threshold;	/* fraction, for instruction counts */
	struct dataset d;
	size_t *rank;		/* rank[set] = position in the order */
	size_t *order;		/* order[pos] = set */
	const char **cdate;	/* cdate[set]: its commit's date (commit_dates()) */
	size_t plots_left_out;	/* blocks past AN_MAX_PLOTS: no plot */
	struct series *s;
	size_t ns;
	char **links;		/* --link LABEL=HREF, shown atop index.html */
	size_t nlinks;
	size_t nreg, nlatest;	/* flagged points; flagged at a series' newest set */
	char rule[1024];	/* the regression rule, RULE_FMT with the threshold */
	char insn_rule[512];	/* INSN_RULE_FMT with its threshold */
	char exact_rule[512], cp_rule[512];
	size_t nemulated;	/* series with a set of an emulated host */
	size_t ninsn;		/* series with instruction counts */
	char **reglines;	/* per flagged point, in series order */
	struct hblock *blocks;
	size_t nblocks;
	char err[AN_ERRLEN];
};

static struct history *g_h;	/* for the qsort comparators */

static int find_results(struct dataset *d, const char *path, int depth, char *err)
{
	struct stat st;
	/* Named by the user (depth 0): followed if a link; found below it:
	 * never (a results tarball could link anywhere). */
	if ((depth ? lstat(path, &st) : stat(path, &st)) != 0) {
		an_err(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return dataset_add_results(d, path, err);
	char *rj = xasprintf("%s/results.json", path);
	int rc;
	if (lstat(rj, &st) == 0) {
		rc = dataset_found_results(d, rj, err);
		free(rj);
		return rc;
	}
	free(rj);
	if (depth >= 3)
		return 0;
	struct dirent **ents;
	int n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		an_err(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = 0;
	for (int i = 0; i < n; i++) {
		if (!rc && ents[i]->d_name[0] != '.') {
			char *p = xasprintf("%s/%s", path, ents[i]->d_name);
			if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
				rc = find_results(d, p, depth + 1, err);
			free(p);
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

/* The date of each set's commit: the earliest "created" among the result
 * sets of that commit, computed once (O(n) through a hash by commit) so
 * that the sort's comparator does not scan the sets. */
static void commit_dates(struct history *h)
{
	const struct dataset *d = &h->d;
	json_t *first = json_object();	/* commit -> index of its earliest set */
	for (size_t i = 0; i < d->nsets; i++) {
		json_t *x = json_object_get(first, d->sets[i].commit);
		if (!x || strcmp(d->sets[i].created, d->sets[json_integer_value(x)].created) < 0)
			json_object_set_new_nocheck(first, d->sets[i].commit, json_integer((json_int_t)i));
	}
	h->cdate = xcalloc(d->nsets ? d->nsets : 1, sizeof(*h->cdate));
	for (size_t i = 0; i < d->nsets; i++)
		h->cdate[i] = d->sets[json_integer_value(json_object_get(first, d->sets[i].commit))].created;
	json_decref(first);
}

static int cmp_sets(const void *a, const void *b)
{
	const struct dataset *d = &g_h->d;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct resultset *x = &d->sets[i];
	const struct resultset *y = &d->sets[j];
	int c;
	if ((c = strcmp(g_h->cdate[i], g_h->cdate[j])))
		return c;
	if ((c = strcmp(x->commit, y->commit)))
		return c;
	if ((c = strcmp(x->created, y->created)))
		return c;
	return strcmp(x->path, y->path);
}

static int cmp_points(const void *a, const void *b)
{
	size_t x = g_h->rank[((const struct point *)a)->set];
	size_t y = g_h->rank[((const struct point *)b)->set];
	return (x > y) - (x < y);
}

static int cmp_series(const void *a, const void *b)
{
	const struct series *x = a, *y = b;
	int c;
	if ((c = strcmp(x->host, y->host)))
		return c;
	if (x->cpus != y->cpus)
		return x->cpus < y->cpus ? -1 : 1;
	if ((c = strcmp(x->workload, y->workload)))
		return c;
	return mode_cmp(x->mode, y->mode);
}

static void build_series(struct history *h)
{
	struct dataset *d = &h->d;
	json_t *index = json_object();	/* series key -> index in h->s: O(1) per group */
	for (size_t i = 0; i < d->ngroups; i++) {
		struct group *g = &d->groups[i];
		/* Per-call samples, or timed loops alone (two or more, what
		 * the rule judges): a loop-timed workload records only its
		 * loops, no per-call samples. */
		if (!g->n && runlevel_mode_loops(g) < 2)
			continue;
		struct series *s = NULL;
		char *key = xasprintf("%ld/%zu:%s/%zu:%s/%s", g->cpus, strlen(g->host), g->host,
				      strlen(g->workload), g->workload, g->mode);
		json_t *x = json_object_get(index, key);
		if (x)
			s = &h->s[json_integer_value(x)];
		else
			json_object_set_new_nocheck(index, key, json_integer((json_int_t)h->ns));
		free(key);
		if (!s) {
			h->s = xrealloc(h->s, (h->ns + 1) * sizeof(*h->s));
			s = &h->s[h->ns++];
			memset(s, 0, sizeof(*s));
			s->host = g->host;
			s->workload = g->workload;
			s->type = g->type;
			s->mode = g->mode;
			s->cpus = g->cpus;
		}
		s->pts = xrealloc(s->pts, (s->n + 1) * sizeof(*s->pts));
		s->pts[s->n++] = (struct point){ .set = g->set, .g = g, .change = NAN };
	}
	json_decref(index);
	for (size_t k = 0; k < h->ns; k++)
		qsort(h->s[k].pts, h->s[k].n, sizeof(struct point), cmp_points);
	if (h->ns)	/* qsort(NULL, 0) is undefined */
		qsort(h->s, h->ns, sizeof(*h->s), cmp_series);
}

static void group_vitals(const struct group *g, enum rl_unit u, struct ms_vitals *v)
{
	size_t n = 0;
	double *x = u == RL_NONE ? NULL : runlevel_sample(g, u, &n);
	memset(v, 0, sizeof(*v));
	if (x)
		ms_vitals(x, n, v);
	free(x);
}

/* The rule: flags the points that regressed.  Each point keeps its
 * vitals in the unit of its comparison with the previous point (the first
 * in its own). */
static void flag_regressions(struct history *h)
{
	for (size_t k = 0; k < h->ns; k++) {
		struct series *s = &h->s[k];
		s->pts[0].unit = runlevel_unit(&s->pts[0].g, 1);
		group_vitals(s->pts[0].g, s->pts[0].unit, &s->pts[0].v);
		for (size_t i = 1; i < s->n; i++) {
			struct point *p = &s->pts[i], *q = &s->pts[i - 1];
			struct group *pair[2] = { q->g, p->g };
			struct ms_vitals qv;
			p->unit = runlevel_unit(pair, 2);
			group_vitals(q->g, p->unit, &qv);
			group_vitals(p->g, p->unit, &p->v);
			if (p->unit == RL_NONE)
				continue;
			/* a previous mean of 0 (all its samples 0) gives no ratio:
			 * no comparison, said in the cell, never "+inf%" */
			if (!(qv.avg > 0)) {
				p->prev_zero = true;
				continue;
			}
			/* emulated: the change is shown, never judged (no
			 * comparison, no verdict between boots) */
			if (h->d.sets[p->set].emulated || h->d.sets[q->set].emulated) {
				p->emulated = true;
				p->change = p->v.avg / qv.avg - 1.0;
				continue;
			}
			if (ms_compare(&qv, &p->v, 0.95, MS_WELCH, &p->diff))
				continue;
			p->change = p->v.avg / qv.avg - 1.0;
			p->flagged = gate_time_regressed(&p->diff, h->threshold * 100.0);
		}
	}
}

/* Change points of a real host's series, on its sets' run-level means
 * (in their own unit), beside the pairwise rule. */
static void flag_change_points(struct history *h)
{
	for (size_t k = 0; k < h->ns; k++) {
		struct series *s = &h->s[k];
		double *y = xcalloc(s->n + 1, sizeof(double));
		size_t *idx = xcalloc(s->n + 1, sizeof(size_t)), m = 0;
		struct gate_cp *cps = xcalloc(s->n + 1, sizeof(*cps));
		for (size_t i = 0; i < s->n; i++) {
			const struct point *p = &s->pts[i];
			if (h->d.sets[p->set].emulated || !p->v.n)
				continue;
			y[m] = p->v.avg;
			idx[m++] = i;
		}
		size_t ncp = gate_cp_slowdowns(y, m, h->threshold, cps);
		for (size_t c = 0; c < ncp; c++) {
			struct point *p = &s->pts[idx[cps[c].at]];
			p->cp = true;
			p->cp_change = cps[c].change;
			p->cp_new = cps[c].is_new;
		}
		free(y), free(idx), free(cps);
	}
}

/* The deterministic counts of p (NAN where it has none). */
static void exact_figures(struct point *p)
{
	const struct group *g = p->g;
	const struct insn_sums *ic = &g->ic;
	for (int e = 0; e < EX_N; e++)
		p->exact[e] = p->exact_prev[e] = NAN;
	if (ic->runs && ic->send_min_runs == ic->runs)
		p->exact[EX_SEND_MIN] = ic->send_min;
	if (ic->runs && ic->handler_min_runs && ic->handlers > 0)
		p->exact[EX_HANDLER_MIN] = ic->handler_min;
	if (g->has_ops && g->operations > 0) {
		if (g->has_icr)
			p->exact[EX_ICR] = g->icr_writes / g->operations;
		if (g->has_ipis)
			p->exact[EX_IPIS] = g->ipis_sent / g->operations;
	}
	if (ic->runs && ic->ops > 0)
		p->exact[EX_IRQS] = ic->handlers / ic->ops;
	if (g->vectors_runs)
		p->exact[EX_VECTORS] = g->vectors_sum / (double)g->vectors_runs;
}

/* The exact rule: each count against the previous point that has it. */
static void flag_exact_changes(struct history *h)
{
	for (size_t k = 0; k < h->ns; k++) {
		struct series *s = &h->s[k];
		double last[EX_N];
		for (int e = 0; e < EX_N; e++)
			last[e] = NAN;
		for (size_t i = 0; i < s->n; i++) {
			struct point *p = &s->pts[i];
			exact_figures(p);
			for (int e = 0; e < EX_N; e++) {
				if (isnan(p->exact[e]))
					continue;
				p->exact_prev[e] = last[e];
				if (gate_exact_changed(last[e], p->exact[e], 0.0))
					p->exact_changed |= 1u << e;
				last[e] = p->exact[e];
			}
		}
	}
}

/* The instruction-count rule: each point against the previous one with counts. */
static void flag_insn_changes(struct history *h)
{
	for (size_t k = 0; k < h->ns; k++) {
		struct series *s = &h->s[k];
		const struct point *q = NULL;

		for (size_t i = 0; i < s->n; i++) {
			struct point *p = &s->pts[i];
			const struct insn_sums *ic = &p->g->ic;

			p->send_chg = p->handler_chg = NAN;
			if (!ic->runs || ic->ops <= 0)
				continue;
			p->has_insn = true;
			p->send = ic->send / ic->ops;
			p->handler = ic->handlers > 0 ? ic->handler_insns / ic->handlers : NAN;
			if (q) {
				p->send_chg = q->send > 0 ? p->send / q->send - 1.0 : NAN;
				p->handler_chg = q->handler > 0 && !isnan(p->handler) ?
						 p->handler / q->handler - 1.0 : NAN;
				/* with the per-call minima the exact rule gates */
				bool minima = !isnan(p->exact[EX_SEND_MIN]) &&
					      !isnan(q->exact[EX_SEND_MIN]);
				p->insn_flagged = !minima && (fabs(p->send_chg) > h->insn_threshold ||
							      fabs(p->handler_chg) > h->insn_threshold);
			}
			q = p;
		}
	}
}

static const char *short_commit(const char *c, char *b)
{
	snprintf(b, 13, "%s", c);
	return b;
}

/* Series [i, end) share host, CPUs and workload: one plot, one table. */
static size_t block_end(const struct history *h, size_t i)
{
	size_t j = i + 1;
	while (j < h->ns && h->s[j].cpus == h->s[i].cpus &&
	       !strcmp(h->s[j].host, h->s[i].host) &&
	       !strcmp(h->s[j].workload, h->s[i].workload))
		j++;
	return j;
}

/* The point of S at SET: its points are sorted by rank (build_series()),
 * so a binary search, O(log n). */
static struct point *point_at(struct series *s, size_t set)
{
	size_t lo = 0, hi = s->n, want = g_h->rank[set];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, r = g_h->rank[s->pts[mid].set];
		if (r == want) {	/* the first of its set, as a scan would find */
			while (mid > 0 && s->pts[mid - 1].set == set)
				mid--;
			return &s->pts[mid];
		}
		if (r < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- the model: what every output shows, computed once ------------------ */
/* The table cell of a point (the same in history.md and index.html) and
 * its plotted value: run-level mean +/- sd, else the per-call median. */
static void point_figures(struct point *p)
{
	char chg[80] = "";
	if (p->emulated && !isnan(p->change))
		snprintf(chg, sizeof(chg), " (x%.3f vs previous; emulated: no verdict)",
			 1.0 + p->change);
	else if (!isnan(p->change))
		snprintf(chg, sizeof(chg), " (%+.1f%%, %+.1f%% to %+.1f%%)", p->diff.pct,
			 p->diff.pct_lo, p->diff.pct_hi);
	else if (p->prev_zero)
		snprintf(chg, sizeof(chg), " (previous set all 0: not compared)");
	if (p->v.n)
		snprintf(p->cell, sizeof(p->cell), "%.0f (%zu %s)%s", p->v.avg, p->v.n,
			 rl_unit_name(p->unit), chg);
	else
		snprintf(p->cell, sizeof(p->cell), "median %.0f per call (no run-level sample)",
			 p->g->sum.median);
	p->y = p->v.n ? p->v.avg : p->g->sum.median;
	p->sd = p->v.n > 1 ? p->v.stddev : 0.0;
}

/* The line that names a flagged point (shown in history.md and index.html). */
static char *regression_line(const struct history *h, const struct series *s, size_t i)
{
	const struct dataset *d = &h->d;
	const struct point *p = &s->pts[i], *q = &s->pts[i - 1];
	const struct resultset *rs = &d->sets[p->set];
	return xasprintf("%s, %ld CPUs, %s, %s: %s (commit %s, %s): %.0f ns per "
			 "call (mean of %zu %s), %+.2f%% (%+.2f%% to %+.2f%%, Fieller's interval) "
			 "vs %s (%s, 95%%)",
			 s->host, s->cpus, s->workload, s->mode, rs->path, rs->commit,
			 rs->created, p->v.avg, p->v.n, rl_unit_name(p->unit), p->diff.pct,
			 p->diff.pct_lo, p->diff.pct_hi, d->sets[q->set].commit,
			 ms_test_name(p->diff.test));
}

static char *insn_line(const struct history *h, const struct series *s, size_t i)
{
	const struct point *p = &s->pts[i];
	const struct resultset *rs = &h->d.sets[p->set];

	return xasprintf("%s, %ld CPUs, %s, %s: %s (commit %s, %s): instructions per operation, "
			 "send path %.1f (%+.2f%%), handler %.1f (%+.2f%%) vs the previous set",
			 s->host, s->cpus, s->workload, s->mode, rs->path, rs->commit, rs->created,
			 p->send, p->send_chg * 100.0, p->handler,
			 isnan(p->handler_chg) ? 0.0 : p->handler_chg * 100.0);
}

/* The line of a change point (a slowdown that begins at point i). */
static char *cp_line(const struct history *h, const struct series *s, size_t i)
{
	const struct point *p = &s->pts[i];
	const struct resultset *rs = &h->d.sets[p->set];
	return xasprintf("%s, %ld CPUs, %s, %s: %s (commit %s, %s): change point, the level "
			 "from here is %+.2f%% of the one before (E-divisive means, Welch's t "
			 "p < %g)%s", s->host, s->cpus, s->workload, s->mode, rs->path, rs->commit,
			 rs->created, p->cp_change * 100.0, GATE_CP_PMAX,
			 p->cp_new ? ", first found with the newest set" : "");
}

/* The line of a point whose deterministic counts changed. */
static char *exact_line(const struct history *h, const struct series *s, size_t i)
{
	const struct point *p = &s->pts[i];
	const struct resultset *rs = &h->d.sets[p->set];
	struct sbuf b = { 0 };
	sb_printf(&b, "%s, %ld CPUs, %s, %s: %s (commit %s, %s, build %s): changed vs the "
		      "previous set:", s->host, s->cpus, s->workload, s->mode, rs->path,
		  rs->commit, rs->created, *rs->xen_build ? rs->xen_build : "-");
	const char *sep = " ";
	for (int e = 0; e < EX_N; e++)
		if (p->exact_changed & (1u << e)) {
			sb_printf(&b, "%s%s %.6g (was %.6g, %+.6g)", sep, exact_name[e], p->exact[e],
				  p->exact_prev[e], p->exact[e] - p->exact_prev[e]);
			sep = "; ";
		}
	return b.s;
}

static void add_line(struct history *h, char *line)
{
	h->reglines = xrealloc(h->reglines, (h->nreg + 1) * sizeof(char *));
	h->reglines[h->nreg++] = line;
}

/* Emulated series: max / min of their sets' run-level means. */
static void series_spread(const struct history *h, struct series *s)
{
	double lo = INFINITY, hi = -INFINITY;
	s->nspread = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct point *p = &s->pts[i];
		if (!h->d.sets[p->set].emulated || !p->v.n || !(p->v.avg > 0))
			continue;
		lo = fmin(lo, p->v.avg);
		hi = fmax(hi, p->v.avg);
		s->nspread++;
	}
	s->spread = s->nspread >= 2 ? hi / lo : 0.0;
}

static void insn_figures(struct point *p)
{
	char a[48] = "", b[48] = "";

	if (!p->has_insn)
		return;
	if (!isnan(p->send_chg))
		snprintf(a, sizeof(a), " (%+.2f%%)", p->send_chg * 100.0);
	if (!isnan(p->handler_chg))
		snprintf(b, sizeof(b), " (%+.2f%%)", p->handler_chg * 100.0);
	snprintf(p->insn_cell, sizeof(p->insn_cell), "send %.1f%s, handler %.1f%s", p->send, a,
		 p->handler, b);
}

/* One block of series: its plot's name and the result sets (positions in
 * the order) where any of its series has a point. */
static void block_compute(struct history *h, struct hblock *b)
{
	const struct series *s0 = &h->s[b->first];
	char *raw = xasprintf("history-%s-%ldcpu-%s", s0->host, s0->cpus, s0->workload);
	b->name = plot_slug(raw);
	free(raw);
	b->rows = xcalloc(h->d.nsets, sizeof(*b->rows));
	for (size_t pos = 0; pos < h->d.nsets; pos++) {
		size_t set = h->order[pos];
		bool any = false, reg = false;
		for (size_t k = b->first; k < b->end; k++) {
			struct point *p = point_at(&h->s[k], set);
			any |= p != NULL;
			reg |= p && (p->flagged || p->insn_flagged || p->exact_changed || p->cp);
		}
		if (any)
			b->rows[b->nrows++] = (struct hrow){ .pos = pos, .set = set, .reg = reg };
	}
}

/* After the regression rule: the counts, the rule's text, the regression
 * lines, each point's figures and the blocks. */
static void history_compute(struct history *h)
{
	snprintf(h->rule, sizeof(h->rule), RULE_FMT, h->threshold * 100.0,
		 h->threshold * 100.0);
	snprintf(h->insn_rule, sizeof(h->insn_rule), INSN_RULE_FMT, h->insn_threshold * 100.0);
	snprintf(h->exact_rule, sizeof(h->exact_rule), EXACT_RULE_FMT);
	snprintf(h->cp_rule, sizeof(h->cp_rule), CP_RULE_FMT, 2 * GATE_CP_MIN_SIZE, GATE_CP_PMAX,
		 GATE_CP_MIN_SIZE, h->threshold * 100.0);
	for (size_t k = 0; k < h->ns; k++) {
		struct series *s = &h->s[k];
		bool counted = false, latest = false;
		if (s->n) {
			const struct point *z = &s->pts[s->n - 1];
			latest = z->flagged || z->insn_flagged || z->exact_changed;
		}
		series_spread(h, s);
		bool emu = false;
		for (size_t i = 0; i < s->n; i++)
			emu |= h->d.sets[s->pts[i].set].emulated;
		h->nemulated += emu;
		for (size_t i = 0; i < s->n; i++) {
			point_figures(&s->pts[i]);
			insn_figures(&s->pts[i]);
			counted |= s->pts[i].has_insn;
			latest |= s->pts[i].cp_new;
			if (s->pts[i].flagged)
				add_line(h, regression_line(h, s, i));
			if (s->pts[i].cp)
				add_line(h, cp_line(h, s, i));
			if (s->pts[i].insn_flagged)
				add_line(h, insn_line(h, s, i));
			if (s->pts[i].exact_changed)
				add_line(h, exact_line(h, s, i));
		}
		h->nlatest += latest;
		h->ninsn += counted;
	}
	json_t *taken = json_object();
	for (size_t i = 0; i < h->ns; i = block_end(h, i)) {
		h->blocks = xrealloc(h->blocks, (h->nblocks + 1) * sizeof(*h->blocks));
		struct hblock *b = &h->blocks[h->nblocks++];
		*b = (struct hblock){ .first = i, .end = block_end(h, i) };
		block_compute(h, b);
		plot_name_unique(taken, &b->name);
		if (h->nblocks > AN_MAX_PLOTS) {	/* one gnuplot run per block: capped */
			free(b->name);
			b->name = NULL;
			h->plots_left_out++;
		}
	}
	json_decref(taken);
}

static void history_model_free(struct history *h)
{
	for (size_t i = 0; i < h->nreg; i++)
		free(h->reglines[i]);
	free(h->reglines);
	for (size_t i = 0; i < h->nblocks; i++) {
		free(h->blocks[i].name);
		free(h->blocks[i].rows);
	}
	free(h->blocks);
}

/* ---- renderers: they only format the model ------------------------------- */
static void html_escape(struct sbuf *b, const char *s)
{
	char *e = html_text(s);
	sb_puts(b, e);
	free(e);
}

/* An HREF given with --link, for an href attribute or a Markdown link:
 * anything outside a URL's plain characters percent-encoded. */
static char *href_text(const char *s)
{
	struct sbuf b = { 0 };
	sb_puts(&b, "");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-._~/:=?&#%+", c))
			sb_printf(&b, "%c", c);
		else
			sb_printf(&b, "%%%02X", c);
	}
	return b.s;
}

/* --link LABEL=HREF: its label and its percent-encoded href (malloc'ed). */
static void link_parts(const char *link, char **label, char **href)
{
	const char *eq = strchr(link, '=');
	*label = xasprintf("%.*s", (int)(eq - link), link);
	*href = href_text(eq + 1);
}

/* The rows of a block's table, in the markup of history.md or index.html:
 * one per result set, one cell per series of the block. */
struct markup {
	char *(*esc)(const char *);	/* md_text, html_text */
	void (*row_head)(struct sbuf *out, const struct hrow *row, const char *commit,
			 const char *created);
	const char *cell_open, *regression, *cell_close, *missing, *row_end;
	const char *change_point, *exact_changed;	/* markers after a cell */
	const char *item_open, *item_close;	/* of a list */
	/* the regressions: "<regs_open>N<regs_count>" items "<regs_close>", or
	 * no_regression */
	const char *regs_open, *regs_count, *regs_close, *no_regression;
	/* the --link list: links_open, one link_item each, links_close */
	void (*link_item)(struct sbuf *out, const char *label, const char *href);
	const char *links_open, *links_close;
};

static void table_rows(const struct history *h, const struct hblock *b, struct sbuf *out,
		       const struct markup *m)
{
	for (size_t r = 0; r < b->nrows; r++) {
		const struct resultset *rs = &h->d.sets[b->rows[r].set];
		char cb[16];
		char *ec = m->esc(short_commit(rs->commit, cb)), *ecr = m->esc(rs->created);
		m->row_head(out, &b->rows[r], ec, ecr);
		free(ec), free(ecr);
		for (size_t k = b->first; k < b->end; k++) {
			const struct point *p = point_at(&h->s[k], b->rows[r].set);
			if (!p) {
				sb_puts(out, m->missing);
				continue;
			}
			sb_puts(out, m->cell_open);
			sb_puts(out, p->cell);
			sb_puts(out, p->flagged ? m->regression : "");
			sb_puts(out, p->cp ? m->change_point : "");
			sb_puts(out, p->exact_changed ? m->exact_changed : "");
			sb_puts(out, m->cell_close);
		}
		sb_puts(out, m->row_end);
	}
}

static void md_row_head(struct sbuf *out, const struct hrow *row, const char *commit,
			const char *created)
{
	sb_printf(out, "| %zu | %s | %s |", row->pos + 1, commit, created);
}

static void html_row_head(struct sbuf *out, const struct hrow *row, const char *commit,
			  const char *created)
{
	sb_printf(out, "<tr%s><td>%zu</td><td class=\"l\">%s</td><td class=\"l\">%s</td>",
		  row->reg ? " class=\"reg\"" : "", row->pos + 1, commit, created);
}

static void md_link(struct sbuf *out, const char *label, const char *href)
{
	char *ml = md_text(label);
	sb_printf(out, "- [%s](%s)\n", ml, href);
	free(ml);
}

static void html_link(struct sbuf *out, const char *label, const char *href)
{
	sb_puts(out, "<li><a href=\"");
	html_escape(out, href);
	sb_puts(out, "\">");
	html_escape(out, label);
	sb_puts(out, "</a></li>\n");
}

static const struct markup md_markup = {
	md_text, md_row_head, " ", " **REGRESSION**", " |", " - |", "\n",
	" **CHANGE POINT**", " **COUNTS CHANGED**", "- ", "\n",
	"**", " regression(s)**:\n\n", "", "No regression.\n", md_link, "", "\n",
};
static const struct markup html_markup = {
	html_text, html_row_head, "<td>", " <span class=\"bad\">REGRESSION</span>", "</td>",
	"<td>-</td>", "</tr>\n", " <span class=\"bad\">CHANGE POINT</span>",
	" <span class=\"bad\">COUNTS CHANGED</span>", "<li>", "</li>\n",
	"<p class=\"bad\">", " regression(s):</p>\n<ul>\n", "</ul>\n", "<p>No regression.</p>\n",
	html_link, "<ul>\n", "</ul>\n",
};

/* The --link LABEL=HREF list (nothing without links). */
static void link_list(const struct history *h, struct sbuf *out, const struct markup *m)
{
	if (!h->nlinks)
		return;
	sb_puts(out, m->links_open);
	for (size_t i = 0; i < h->nlinks; i++) {
		char *label, *href;
		link_parts(h->links[i], &label, &href);
		m->link_item(out, label, href);
		free(href);
		free(label);
	}
	sb_puts(out, m->links_close);
}

/* How many regressions, then one item per regression line. */
static void regression_list(const struct history *h, struct sbuf *out, const struct markup *m)
{
	if (!h->nreg) {
		sb_puts(out, m->no_regression);
		return;
	}
	sb_printf(out, "%s%zu%s", m->regs_open, h->nreg, m->regs_count);
	for (size_t i = 0; i < h->nreg; i++) {
		char *e = m->esc(h->reglines[i]);
		sb_puts(out, m->item_open);
		sb_puts(out, e);
		sb_puts(out, m->item_close);
		free(e);
	}
	sb_puts(out, m->regs_close);
}

/* ---- history.md ---------------------------------------------------------- */
static void md_head(const struct history *h, struct sbuf *md)
{
	sb_printf(md, "# ipibench history\n\n%zu result sets, %zu series. Regression rule: %s.\n\n",
		  h->d.nsets, h->ns, h->rule);
	if (h->ninsn)
		sb_printf(md, "Instruction counts (%zu series): %s.\n\n", h->ninsn, h->insn_rule);
	sb_printf(md, "Exact counts: %s.\n\nChange points: %s.\n\n", h->exact_rule, h->cp_rule);
	if (h->nemulated)
		sb_printf(md, "Emulated host (%zu series): %s.\n\n", h->nemulated, EMU_RULE);
	link_list(h, md, &md_markup);
	regression_list(h, md, &md_markup);
}

/* The instruction counts of a block, one row per set (none without counts). */
static void insn_rows(const struct history *h, const struct hblock *b, struct sbuf *out,
		      const struct markup *m)
{
	bool any = false;

	for (size_t r = 0; r < b->nrows && !any; r++)
		for (size_t k = b->first; k < b->end; k++) {
			const struct point *p = point_at(&h->s[k], b->rows[r].set);
			any |= p && p->has_insn;
		}
	if (!any)
		return;
	bool html = m == &html_markup;
	sb_puts(out, html ? "<p>Instructions per operation (QEMU TCG plugin; exact, "
			    "where the emulated times above are noisy):</p>\n<table><tr><th>#</th>"
			    "<th class=\"l\">commit</th><th class=\"l\">created</th>" :
			    "\nInstructions per operation (QEMU TCG plugin; exact, where the "
			    "emulated times above are noisy) and the change vs the previous set:\n\n"
			    "| # | commit | created |");
	for (size_t k = b->first; k < b->end; k++) {
		char *t = html ? html_text(h->s[k].mode) : md_text(h->s[k].mode);
		sb_printf(out, html ? "<th>%s</th>" : " %s |", t);
		free(t);
	}
	if (html) {
		sb_puts(out, "</tr>\n");
	} else {
		sb_puts(out, "\n|---:|---|---|");
		for (size_t k = b->first; k < b->end; k++)
			sb_puts(out, "---|");
		sb_puts(out, "\n");
	}
	for (size_t r = 0; r < b->nrows; r++) {
		const struct resultset *rs = &h->d.sets[b->rows[r].set];
		char cb[16];
		bool reg = false;

		for (size_t k = b->first; k < b->end; k++) {
			const struct point *p = point_at(&h->s[k], b->rows[r].set);
			reg |= p && p->insn_flagged;
		}
		if (html)
			sb_printf(out, "<tr%s><td>%zu</td><td class=\"l\">%s</td><td class=\"l\">%s</td>",
				  reg ? " class=\"reg\"" : "", b->rows[r].pos + 1,
				  short_commit(rs->commit, cb), rs->created);
		else
			sb_printf(out, "| %zu | %s | %s |", b->rows[r].pos + 1,
				  short_commit(rs->commit, cb), rs->created);
		for (size_t k = b->first; k < b->end; k++) {
			const struct point *p = point_at(&h->s[k], b->rows[r].set);
			const char *cell = p && p->has_insn ? p->insn_cell : "-";

			if (html) {
				sb_puts(out, "<td>");
				html_escape(out, cell);
				sb_puts(out, p && p->insn_flagged ? " <span class=\"bad\">changed</span></td>" :
					"</td>");
			} else {
				sb_printf(out, " %s%s |", cell, p && p->insn_flagged ? " **changed**" : "");
			}
		}
		sb_puts(out, html ? "</tr>\n" : "\n");
	}
	if (html)
		sb_puts(out, "</table>\n");
}

static void md_block(const struct history *h, const struct hblock *b, struct sbuf *md)
{
	const struct series *s0 = &h->s[b->first];
	char *mw = md_code(s0->workload), *mt = md_text(s0->type), *mh = md_text(s0->host);
	sb_printf(md, "\n## %s (%s) on %s, %ld CPUs\n\nRun-level mean ns per call "
		      "(N, unit) and its change vs the previous set (95%% half-width); "
		      "per-call median (descriptive) where there is no run-level sample:"
		      "\n\n| # | commit | created |",
		  mw, mt, mh, s0->cpus);
	free(mw), free(mt), free(mh);
	for (size_t k = b->first; k < b->end; k++) {
		char *mm = md_text(h->s[k].mode);
		sb_printf(md, " %s |", mm);
		free(mm);
	}
	sb_puts(md, "\n|---:|---|---|");
	for (size_t k = b->first; k < b->end; k++)
		sb_puts(md, "---|");
	sb_puts(md, "\n");
	table_rows(h, b, md, &md_markup);
	for (size_t k = b->first; k < b->end; k++)
		if (h->s[k].nspread >= 2) {
			char *mm = md_text(h->s[k].mode);
			sb_printf(md, "\nEmulated, %s: boot-to-boot spread of the sets' run-level "
				      "means x%.2f (max / min over %zu sets); times not judged.\n", mm,
				  h->s[k].spread, h->s[k].nspread);
			free(mm);
		}
	insn_rows(h, b, md, &md_markup);
}

static void render_md(const struct history *h, struct sbuf *md)
{
	md_head(h, md);
	if (h->plots_left_out)
		sb_printf(md, "\n**%zu plots left out**: one history draws at most %d (the first "
			  "blocks in order); the tables have every figure.\n", h->plots_left_out,
			  AN_MAX_PLOTS);
	for (size_t i = 0; i < h->nblocks; i++)
		md_block(h, &h->blocks[i], md);
}

/* ---- index.html ---------------------------------------------------------- */
static void html_head(const struct history *h, struct sbuf *html)
{
	sb_puts(html, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
		      "<title>ipibench history</title>\n<style>\n"
		      "body{font-family:sans-serif;margin:2em;max-width:1100px}\n"
		      "table{border-collapse:collapse;margin:1em 0}\n"
		      "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}\n"
		      "td.l,th.l{text-align:left}\ntr.reg td{background:#fdd}\n"
		      ".bad{color:#b00;font-weight:bold}\nimg{max-width:100%}\n"
		      "</style></head><body>\n<h1>ipibench history</h1>\n<p>");
	sb_printf(html, "%zu result sets, %zu series. <b>Regression rule</b>: ", h->d.nsets, h->ns);
	html_escape(html, h->rule);
	sb_puts(html, ".</p>\n");
	if (h->plots_left_out)
		sb_printf(html, "<p><b>%zu plots left out</b>: one history draws at most %d.</p>\n",
			  h->plots_left_out, AN_MAX_PLOTS);
	if (h->ninsn) {
		sb_printf(html, "<p><b>Instruction counts</b> (%zu series): ", h->ninsn);
		html_escape(html, h->insn_rule);
		sb_puts(html, ".</p>\n");
	}
	sb_puts(html, "<p><b>Exact counts</b>: ");
	html_escape(html, h->exact_rule);
	sb_puts(html, ".</p>\n<p><b>Change points</b>: ");
	html_escape(html, h->cp_rule);
	sb_puts(html, ".</p>\n");
	if (h->nemulated) {
		sb_printf(html, "<p><b>Emulated host</b> (%zu series): ", h->nemulated);
		html_escape(html, EMU_RULE);
		sb_puts(html, ".</p>\n");
	}
	link_list(h, html, &html_markup);
	regression_list(h, html, &html_markup);
}

static void html_block(const struct history *h, const struct hblock *b, struct sbuf *html)
{
	const struct series *s0 = &h->s[b->first];
	char *hw = html_text(s0->workload), *ht = html_text(s0->type),
	     *hh = html_text(s0->host), *hn = html_text(b->name);
	if (b->name)
		sb_printf(html, "<h2>%s (%s) on %s, %ld CPUs</h2>\n"
				"<p><a href=\"%s.svg\"><img src=\"%s.png\" alt=\"%s\"></a><br>"
				"<a href=\"%s.svg\">SVG</a> · <a href=\"%s.gp\">gnuplot script</a> · "
				"<a href=\"%s.dat\">data</a></p>\n",
			  hw, ht, hh, s0->cpus, hn, hn, hn, hn, hn, hn);
	else
		sb_printf(html, "<h2>%s (%s) on %s, %ld CPUs</h2>\n<p>(plot left out: one history "
				"draws at most %d)</p>\n", hw, ht, hh, s0->cpus, AN_MAX_PLOTS);
	sb_puts(html, "<table><tr><th>#</th><th class=\"l\">commit</th><th class=\"l\">created</th>");
	free(hw), free(ht), free(hh), free(hn);
	for (size_t k = b->first; k < b->end; k++) {
		sb_puts(html, "<th>");
		html_escape(html, h->s[k].mode);
		sb_puts(html, "</th>");
	}
	sb_puts(html, "</tr>\n");
	table_rows(h, b, html, &html_markup);
	sb_puts(html, "</table>\n");
	insn_rows(h, b, html, &html_markup);
}

static void render_html(const struct history *h, struct sbuf *html)
{
	html_head(h, html);
	for (size_t i = 0; i < h->nblocks; i++)
		html_block(h, &h->blocks[i], html);
	sb_puts(html, "</body></html>\n");
}

/* ---- history.json -------------------------------------------------------- */
static json_t *json_points(const struct history *h, const struct series *s)
{
	json_t *pts = json_array();
	for (size_t p = 0; p < s->n; p++) {
		const struct point *pt = &s->pts[p];
		const struct summary *sm = &pt->g->sum;
		const struct resultset *rs = &h->d.sets[pt->set];
		/* every figure through an_jreal(): a value jansson refuses (inf)
		 * would drop the point and shift the ones after it */
		json_t *jp = json_pack(
			"{s:o, s:s, s:s, s:I, s:o, s:s, s:o, s:o, s:o, s:b, s:b}",
			"results", sio_json_str(rs->path), "commit", rs->commit, "created", rs->created,
			"n_calls", (json_int_t)sm->n,
			"median_per_call", sm->n ? an_jreal(sm->median) : json_null(),
			"unit", rl_unit_name(pt->unit),
			"runlevel", pt->v.n ? cmp_vitals_json(&pt->v) : json_null(),
			"comparison", p && !pt->emulated ? cmp_diff_json(&pt->diff, "previous set") :
				      json_null(),
			"change", an_jreal(pt->change),
			"regression", pt->flagged, "previous_all_zero", pt->prev_zero);
		if (jp) {
			json_object_set_new(jp, "emulated_no_verdict", json_boolean(pt->emulated));
			json_object_set_new(jp, "change_point", json_boolean(pt->cp));
			json_object_set_new(jp, "change_point_new", json_boolean(pt->cp_new));
			json_object_set_new(jp, "change_point_change",
					    pt->cp ? an_jreal(pt->cp_change) : json_null());
			json_t *ex = json_object();
			for (int e = 0; e < EX_N; e++)
				if (!isnan(pt->exact[e]))
					json_object_set_new(ex, exact_name[e], json_pack(
						"{s:o, s:o, s:b}", "value", an_jreal(pt->exact[e]),
						"previous", an_jreal(pt->exact_prev[e]), "changed",
						(pt->exact_changed >> e) & 1));
			json_object_set_new(jp, "exact", ex);
			json_object_set_new(jp, "exact_changed", json_boolean(pt->exact_changed != 0));
		}
		if (!jp) {
			fprintf(stderr, "ipibench history: out of memory\n");
			abort();
		}
		json_array_append_new(pts, jp);
		if (pt->has_insn)
			json_object_set_new(jp, "insn_counts", json_pack(
				"{s:o, s:o, s:o, s:o, s:b}", "send_insns_per_op", an_jreal(pt->send),
				"handler_insns_mean", isnan(pt->handler) ? json_null() : json_real(pt->handler),
				"send_change", isnan(pt->send_chg) ? json_null() : json_real(pt->send_chg),
				"handler_change", isnan(pt->handler_chg) ? json_null() : json_real(pt->handler_chg),
				"changed", pt->insn_flagged));
	}
	return pts;
}

static json_t *render_json(const struct history *h)
{
	const struct dataset *d = &h->d;
	json_t *js = json_pack("{s:i, s:s, s:s, s:f, s:I, s:I, s:[], s:[]}",
			       "schema_version", 1, "generator", "ipibench history",
			       "rule", h->rule, "threshold", h->threshold,
			       "regressions", (json_int_t)h->nreg,
			       "regressions_at_latest", (json_int_t)h->nlatest,
			       "result_sets", "series");
	json_object_set_new(js, "insn_rule", json_string(h->insn_rule));
	json_object_set_new(js, "insn_threshold", json_real(h->insn_threshold));
	json_object_set_new(js, "exact_rule", json_string(h->exact_rule));
	json_object_set_new(js, "change_point_rule", json_string(h->cp_rule));
	json_object_set_new(js, "emulated_rule", json_string(EMU_RULE));
	json_t *jsets = json_object_get(js, "result_sets");
	json_t *jseries = json_object_get(js, "series");
	for (size_t pos = 0; pos < d->nsets; pos++) {
		const struct resultset *rs = &d->sets[h->order[pos]];
		json_array_append_new(jsets, json_pack("{s:i, s:o, s:s, s:s, s:s, s:I, s:b}",
			"position", (int)pos + 1, "path", sio_json_str(rs->path), "commit", rs->commit,
			"created", rs->created, "host", rs->host_name,
			"cpus", (json_int_t)rs->cpus, "emulated", rs->emulated));
	}
	for (size_t i = 0; i < h->nblocks; i++)
		for (size_t k = h->blocks[i].first; k < h->blocks[i].end; k++) {
			const struct series *s = &h->s[k];
			json_array_append_new(jseries, json_pack(
				"{s:s, s:I, s:s, s:s, s:s, s:o, s:o}",
				"host", s->host, "cpus", (json_int_t)s->cpus, "workload", s->workload,
				"type", s->type, "mode", s->mode, "plot", h->blocks[i].name ?
				json_string(h->blocks[i].name) : json_null(),
				"points", json_points(h, s)));
			json_object_set_new(json_array_get(jseries, json_array_size(jseries) - 1),
					    "boot_spread", s->nspread >= 2 ? an_jreal(s->spread) :
					    json_null());
		}
	return js;
}

/* ---- plots: history-*.dat + .gp, drawn by gnuplot ------------------------ */
static void plot_data(const struct history *h, const struct hblock *b, struct sbuf *dat)
{
	sb_puts(dat, "# position commit, then per mode: run-level mean, mean - sd, mean + sd (per-call median when none), regression(0/1) ('-' = missing):");
	for (size_t k = b->first; k < b->end; k++) {
		char *ol = one_line(h->s[k].mode);
		sb_printf(dat, " %s", ol);
		free(ol);
	}
	sb_puts(dat, "\n");
	for (size_t r = 0; r < b->nrows; r++) {
		char cb[16];
		char *ctick = slugify(short_commit(h->d.sets[b->rows[r].set].commit, cb));
		sb_printf(dat, "%zu %s", b->rows[r].pos + 1, ctick);
		free(ctick);
		for (size_t k = b->first; k < b->end; k++) {
			const struct point *p = point_at(&h->s[k], b->rows[r].set);
			if (p)
				sb_printf(dat, " %.17g %.17g %.17g %d", p->y, p->y - p->sd,
					  p->y + p->sd, p->flagged);
			else
				sb_puts(dat, " - - - -");
		}
		sb_puts(dat, "\n");
	}
}

static void plot_script(const struct history *h, const struct hblock *b, struct sbuf *body)
{
	const struct series *s0 = &h->s[b->first];
	char *title = xasprintf("%s (%s), %s, %ld CPUs: run-level mean ns per call per result set (bars: sd)",
				s0->workload, s0->type, s0->host, s0->cpus);
	char *t = gp_quote(title), *df = gp_datafile(b->name);
	sb_printf(body,
		  "set title %s\nset xlabel 'result set (commit)'\n"
		  "set ylabel 'ns per call (run-level mean)'\n"
		  "set datafile missing '-'\nset key outside right top\n"
		  "set offsets 0.5, 0.5, 0, 0\nset xtics rotate by -30\nset pointsize 1\nplot ",
		  t);
	for (size_t k = b->first; k < b->end; k++) {
		size_t c = 3 + 4 * (k - b->first);
		char *qm = gp_quote(h->s[k].mode);
		sb_printf(body, "%s%s using 1:%zu:%zu:%zu:xtic(2) with yerrorlines title %s",
			  k == b->first ? "" : ", \\\n     ", df, c, c + 1, c + 2, qm);
		free(qm);
	}
	for (size_t k = b->first; k < b->end; k++) {
		size_t c = 3 + 4 * (k - b->first);
		sb_printf(body, ", \\\n     %s using 1:(column(%zu) > 0 ? column(%zu) : NaN) "
				"with points pt 6 ps 3 lw 2 lc rgb '#cc0000' %s",
			  df, c + 3, c, k == b->first ? "title 'regression'" : "notitle");
	}
	sb_puts(body, "\n");
	free(df);
	free(t);
	free(title);
}

static int render_plots(struct history *h)
{
	int rc = 0;
	for (size_t i = 0; i < h->nblocks && !rc; i++) {
		const struct hblock *b = &h->blocks[i];
		struct sbuf dat = { 0 }, body = { 0 };
		if (!b->name)
			continue;
		progress("history: %s", b->name);
		plot_data(h, b, &dat);
		plot_script(h, b, &body);
		rc = plot_render(h->out, b->name, dat.s, body.s, 900, 500, h->err);
		sb_free(&dat);
		sb_free(&body);
	}
	return rc;
}

/* The plots, then history.md, index.html and history.json (written only
 * when every plot was drawn), then history.md on stdout. */
static int render(struct history *h)
{
	struct sbuf md = { 0 }, html = { 0 };
	int rc = render_plots(h);
	if (!rc) {
		render_md(h, &md);
		render_html(h, &html);
		json_t *js = render_json(h);
		rc = an_write_text(h->out, "history.md", md.s, md.len, h->err) ||
		     an_write_text(h->out, "index.html", html.s, html.len, h->err) ||
		     an_write_json(h->out, "history.json", js, h->err);
		json_decref(js);
	}
	if (!rc) {
		fwrite(md.s, 1, md.len, stdout);
		fflush(stdout);
	}
	sb_free(&md);
	sb_free(&html);
	return rc;
}

static void history_usage(FILE *f, const struct opts_cmd *cmd)
{
	opts_usage_lines(f, &history_synopsis);
	fputs(history_help, f);
	opts_help(f, cmd->opts);
	fputs(history_help_tail, f);
}

static int opt_threshold(const struct opt *o, const char *arg)
{
	double *t = o->value;
	char *end;

	*t = strtod(arg, &end) / 100.0;
	if (end == arg || *end || *t < 0) {
		fprintf(stderr, "ipibench history: --%s: '%s' is not a percentage >= 0\n",
			o->long_name, arg);
		return 2;
	}
	return 0;
}

/* *value: 0 no, 1 any, 2 latest. */
static int opt_fail(const struct opt *o, const char *arg)
{
	int *fail = o->value;

	if (!arg || !strcmp(arg, "any"))
		*fail = 1;
	else if (!strcmp(arg, "latest"))
		*fail = 2;
	else {
		fprintf(stderr, "ipibench history: --fail-on-regression=%s: use any or latest\n", arg);
		return 2;
	}
	return 0;
}

/* HREF of --link: http:// or https://, or a relative reference (no
 * scheme: no ':' before the first '/', '?' or '#', not "//host"), and no
 * control character or space (a browser drops those inside a scheme). */
static bool link_href_ok(const char *href)
{
	for (const char *p = href; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return false;
	if (!strncasecmp(href, "http://", 7) || !strncasecmp(href, "https://", 8))
		return true;
	return strcspn(href, ":") >= strcspn(href, "/?#") && strncmp(href, "//", 2);
}

static int opt_link(const struct opt *o, const char *arg)
{
	struct history *h = o->value;
	char b[256];

	if (!strchr(arg, '=') || arg[0] == '=') {
		fprintf(stderr, "ipibench history: --link %s: use LABEL=HREF\n",
			sio_shown(b, sizeof(b), arg));
		return 2;
	}
	if (!link_href_ok(strchr(arg, '=') + 1)) {
		fprintf(stderr, "ipibench history: --link %s: HREF must be an http:// or https:// URL "
			"or a relative link\n", sio_shown(b, sizeof(b), arg));
		return 2;
	}
	h->links = xrealloc(h->links, (h->nlinks + 1) * sizeof(char *));
	h->links[h->nlinks++] = (char *)arg;	/* argv's */
	return 0;
}

/* Options into h and *fail (0 no, 1 any, 2 latest), the inputs into
 * *inputs and *ninputs.  Returns -1 to go on, else the exit status (0 after
 * --help, 2 on a usage error). */
static int parse_args(struct history *h, int *fail, int argc, char **argv, int *ninputs,
		      char ***inputs)
{
	const struct opt opts[] = {
		OPT_STRING('o', "output", &h->out, "DIR", "output directory (default: history)"),
		OPT_CALLBACK('t', "threshold", &h->threshold, "PCT",
			     "regression threshold in percent (default: 5)", opt_threshold),
		OPT_CALLBACK(0, "insn-threshold", &h->insn_threshold, "PCT",
			     "instruction counts: flag a change of more than PCT\n"
			     "percent either way (default: 0.5)", opt_threshold),
		OPT_CALLBACK_OPTARG(0, "fail-on-regression", fail, "any|latest",
				    "exit 3 when a series regressed: at any result set\n"
				    "(any, the default) or at its newest one (latest)", opt_fail),
		OPT_CALLBACK('l', "link", h, "LABEL=HREF",
			     "add a link atop index.html (repeatable; e.g. reports):\n"
			     "HREF an http:// or https:// URL or a relative link", opt_link),
		OPT_BOOLEAN('q', "quiet", &an_quiet, "no progress on stderr"),
		OPT_END(),
	};
	const struct opts_cmd cmd = { .name = "ipibench history", .opts = opts, .usage = history_usage,
				      .syn = &history_synopsis };

	return an_parse_args(&cmd, "RESULTS", argc, argv, ninputs, inputs);
}

/* Read inputs[0..n-1], order the result sets, build the series, apply the
 * rule and compute the model.  -1 with h->err on error. */
static int history_load(struct history *h, char **inputs, int n)
{
	h->d.separate_sets = true;
	if (plot_check(h->err))
		return -1;
	for (int i = 0; i < n; i++)
		if (find_results(&h->d, inputs[i], 0, h->err))
			return -1;
	if (!h->d.nsets) {
		an_err(h->err, "no results.json found under %s%s", inputs[0], n > 1 ? " ..." : "");
		return -1;
	}
	dataset_finish(&h->d);
	h->order = xcalloc(h->d.nsets, sizeof(size_t));
	h->rank = xcalloc(h->d.nsets, sizeof(size_t));
	for (size_t i = 0; i < h->d.nsets; i++)
		h->order[i] = i;
	commit_dates(h);
	qsort(h->order, h->d.nsets, sizeof(size_t), cmp_sets);
	for (size_t i = 0; i < h->d.nsets; i++)
		h->rank[h->order[i]] = i;
	build_series(h);
	flag_regressions(h);
	flag_change_points(h);
	flag_exact_changes(h);
	flag_insn_changes(h);
	history_compute(h);
	return 0;
}

int cmd_history(int argc, char **argv)
{
	struct history h = { .out = "history", .threshold = 0.05, .insn_threshold = 0.005 };
	int fail = 0, ninputs;
	char **inputs;
	int rc = parse_args(&h, &fail, argc, argv, &ninputs, &inputs);
	if (rc >= 0) {
		free(h.links);
		return rc;
	}
	rc = 1;
	g_h = &h;
	if (history_load(&h, inputs, ninputs) || mkdir_p(h.out, h.err) ||
	    render(&h))
		goto fail;
	if (h.plots_left_out)	/* said even with -q */
		fprintf(stderr, "ipibench history: %zu plots left out: one history draws at most %d\n",
			h.plots_left_out, AN_MAX_PLOTS);
	progress("history: %zu result sets, %zu series, %zu regression(s) (%zu at the newest set); wrote %s/index.html",
		 h.d.nsets, h.ns, h.nreg, h.nlatest, h.out);
	rc = (fail == 1 && h.nreg) || (fail == 2 && h.nlatest) ? 3 : 0;
	goto out;
fail:
	an_error("history", h.err);
out:
	history_model_free(&h);
	for (size_t k = 0; k < h.ns; k++)
		free(h.s[k].pts);
	free(h.s);
	free(h.links);
	free(h.order);
	free(h.cdate);
	free(h.rank);
	dataset_free(&h.d);
	g_h = NULL;
	return rc;
}
