/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/compare.c: the comparisons of a report, on run-level samples
 * only, in ministat's format (analysis/ministat.h), each saying its unit:
 *   - between modes: loops of one boot (then plainly: boot-to-boot variance
 *     unknown) or boots (several per mode: their variance is in the error);
 *   - paired senders: loop pairs within one boot (B - A per pair);
 *   - hyperfine: runs of each command against the first;
 *   - perf stat: repeated files of one name stem, per event.
 * Per-call samples never enter a test here.  Each comparison is computed
 * once into its struct (compare.h); the _md and _json functions only
 * render it.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/internal.h"
#include "analysis/ministat.h"

#define LEVEL 0.95

const char cmp_no_verdict_one_boot[] = "no verdict: one boot per mode";
const char cmp_no_verdict_some_boot[] = "no verdict: fewer than 2 boots in some mode";

const char cmp_one_boot_caveat[] =
	"one boot per mode: boot-to-boot variance is unknown, so a difference between "
	"modes cannot be told from a difference between boots";

json_t *cmp_vitals_json(const struct ms_vitals *v)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o}", "n", (json_int_t)v->n,
			 "min", an_jreal(v->min), "max", an_jreal(v->max), "median", an_jreal(v->median),
			 "avg", an_jreal(v->avg), "stddev", an_jreal(v->stddev));
}

json_t *cmp_diff_json(const struct ms_diff *d, const char *vs)
{
	if (!d->ok)
		return json_null();
	return json_pack(
		"{s:s, s:f, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b,"
		" s:{s:s, s:b, s:o, s:o},"
		" s:{s:o, s:o, s:o, s:o, s:o, s:o, s:b},"
		" s:{s:o, s:o, s:o, s:b}}",
		"vs", vs, "level", d->level, "test", ms_test_name(d->test),
		"difference", an_jreal(d->diff), "half_width", an_jreal(d->test_half),
		"df", an_jreal(d->test_df), "percent", an_jreal(d->pct),
		"percent_lo", an_jreal(d->pct_lo), "percent_hi", an_jreal(d->pct_hi),
		"proven", d->verdict,
		"ratio_interval", "method", "Fieller", "bounded", d->ratio_ok,
		"percent_lo", an_jreal(d->pct_lo), "percent_hi", an_jreal(d->pct_hi),
		"ministat", "t", an_jreal(d->t), "df", an_jreal(d->df), "half_width", an_jreal(d->half),
		"percent_half_width", an_jreal(d->pct_half),
		"percent_half_width_freebsd", an_jreal(d->pct_half_freebsd), "pooled_s", an_jreal(d->spool),
		"proven", d->proven,
		"welch", "t", an_jreal(d->welch_t), "df", an_jreal(d->welch_df),
		"half_width", an_jreal(d->welch_half), "proven", d->welch_proven);
}

/* ---- a ministat block ------------------------------------------------------ */
void cmp_ms_compute(struct cmp_ms *c, const char *const *names, const struct ms_vitals *v,
		    size_t k, enum ms_style style, enum ms_test test)
{
	memset(c, 0, sizeof(*c));
	c->k = k < REF_MS_MAX ? k : REF_MS_MAX;
	c->style = style;
	c->test = test;
	for (size_t i = 0; i < c->k; i++) {
		c->names[i] = xstrdup(names[i]);
		c->v[i] = v[i];
		if (i)
			ms_compare(&v[0], &v[i], LEVEL, test, &c->d[i]);
	}
}

void cmp_ms_md(struct sbuf *md, const struct cmp_ms *c)
{
	sb_puts(md, "```\n");
	for (size_t i = 0; i < c->k; i++)
		sb_printf(md, "%c %s\n", ms_symbol(i), c->names[i]);
	ms_format_head(md);
	for (size_t i = 0; i < c->k; i++) {
		ms_format_vitals(md, i, &c->v[i]);
		if (i && c->no_verdict)
			sb_printf(md, "%s\n", c->no_verdict);
		else if (i)
			ms_format_diff(md, &c->d[i], c->style);
	}
	sb_puts(md, "```\n");
}

json_t *cmp_ms_json(const struct cmp_ms *c)
{
	json_t *rows = json_array();
	for (size_t i = 0; i < c->k; i++) {
		json_t *j = cmp_vitals_json(&c->v[i]);
		json_object_set_new(j, "name", json_string(c->names[i]));
		if (i && c->no_verdict)
			json_object_set_new(j, "comparison", json_pack("{s:s, s:s}", "vs", c->names[0],
								       "no_verdict", c->no_verdict));
		else if (i)
			json_object_set_new(j, "comparison", cmp_diff_json(&c->d[i], c->names[0]));
		json_array_append_new(rows, j);
	}
	return rows;
}

void cmp_ms_free(struct cmp_ms *c)
{
	for (size_t i = 0; i < c->k; i++)
		free(c->names[i]);
	c->k = 0;
}

/* ---- between modes --------------------------------------------------------- */
static const char *range(char *b, size_t lo, size_t hi)
{
	if (lo == hi)
		snprintf(b, 48, "%zu", lo);
	else
		snprintf(b, 48, "%zu to %zu", lo, hi);
	return b;
}

static void modes_or_builds(struct cmp_modes *c, struct group *const *gs, size_t k,
			    bool by_build, enum ms_test test)
{
	memset(c, 0, sizeof(*c));
	c->done = true;
	c->by_build = by_build;
	if (!k)
		return;
	c->baseline = by_build ? gs[0]->build : gs[0]->mode;
	c->mode = gs[0]->mode;
	c->unit = runlevel_unit(gs, k);
	c->boots_min = c->loops_min = SIZE_MAX;
	c->from_loops = true;
	for (size_t i = 0; i < k; i++) {
		size_t nl = runlevel_mode_loops(gs[i]);
		c->boots_min = gs[i]->nrr < c->boots_min ? gs[i]->nrr : c->boots_min;
		c->boots_max = gs[i]->nrr > c->boots_max ? gs[i]->nrr : c->boots_max;
		c->loops_min = nl < c->loops_min ? nl : c->loops_min;
		c->loops_max = nl > c->loops_max ? nl : c->loops_max;
		c->from_loops &= nl > 0;
	}
	if (c->unit == RL_NONE)
		return;
	struct ms_vitals v[REF_MS_MAX];
	const char *names[REF_MS_MAX];
	size_t m = 0;
	for (size_t i = 0; i < k && m < REF_MS_MAX; i++) {
		size_t n;
		double *x = runlevel_sample(gs[i], c->unit, &n);
		if (!x)
			continue;
		ms_vitals(x, n, &v[m]);
		names[m++] = by_build ? gs[i]->build : gs[i]->mode;
		free(x);
	}
	cmp_ms_compute(&c->ms, names, v, m, MS_DEBIAN, test);
	/* loops are the unit only when some side has fewer than 2 boots: the
	 * boot is not replicated, so no verdict between modes or builds */
	if (c->unit == RL_LOOPS)
		c->ms.no_verdict = c->boots_max <= 1 ? cmp_no_verdict_one_boot :
				   cmp_no_verdict_some_boot;
}

void cmp_modes_compute(struct cmp_modes *c, struct group *const *gs, size_t k,
		       enum ms_test test)
{
	modes_or_builds(c, gs, k, false, test);
}

void cmp_builds_compute(struct cmp_modes *c, struct group *const *gs, size_t k,
			enum ms_test test)
{
	modes_or_builds(c, gs, k, true, test);
}

void cmp_modes_md(struct sbuf *md, const struct cmp_modes *c)
{
	char rb[48];
	const char *what = c->by_build ? "build" : "mode";
	if (!c->done || !c->baseline)
		return;
	if (c->by_build)
		sb_printf(md, "\nMode `%s`, run-level comparison between builds (ns per call; "
			      "baseline build `%s`, each build against it, %.0f%% confidence):\n\n",
			  c->mode, c->baseline, LEVEL * 100.0);
	else
		sb_printf(md, "\nRun-level comparison (ns per call; baseline `%s`, each mode "
			      "against it, %.0f%% confidence):\n\n", c->baseline, LEVEL * 100.0);
	if (c->unit == RL_NONE) {
		sb_printf(md, "No run-level comparison: a %s has fewer than 2 boots and no "
			      "timed loops. Per-call samples of one boot are not independent "
			      "observations of a %s (set `runs = R` for loop timings, "
			      "`repetitions >= 2` for boots).\n", what, what);
		return;
	}
	if (c->unit == RL_BOOTS) {
		sb_printf(md,
			  "Unit: **boots** (%s per %s). A boot's value is the mean ns per "
			  "call of %s. The variance between boots is in the error.\n\n",
			  range(rb, c->boots_min, c->boots_max), what, c->from_loops ? "its timed loops" :
			  "its per-call samples (these results have no loop timings)");
	} else if (c->unit == RL_LOOPS) {
		sb_printf(md, "Unit: **timed loops** (%s per %s; ns per call = loop "
			      "ns / calls).\n\n", range(rb, c->loops_min, c->loops_max), what);
		if (c->boots_max <= 1)
			sb_printf(md, "**Note, %s.** So no verdict is printed: the loops "
				      "of each %s are shown for their spread within its boot.\n\n",
				  cmp_one_boot_caveat, what);
		else
			sb_printf(md, "**Some %s has fewer than 2 boots: boot-to-boot variance is "
				      "unknown, so a difference between %ss cannot be told from a "
				      "difference between boots.** Loops of all boots are pooled "
				      "and shown; no verdict is printed.\n\n",
				  what, what);
	}
	cmp_ms_md(md, &c->ms);
}

json_t *cmp_modes_json(const struct cmp_modes *c)
{
	json_t *j = json_object();
	if (!c->baseline)
		return j;
	json_object_set_new(j, "unit", json_string(rl_unit_name(c->unit)));
	if (c->by_build)
		json_object_set_new(j, "mode", json_string(c->mode));
	if (c->unit == RL_NONE)
		return j;
	if (c->unit == RL_BOOTS) {
		json_object_set_new(j, "unit_detail", json_string(
			c->from_loops ? "boots: per-boot mean of its timed loops" :
					"boots: per-boot mean of its per-call samples"));
	} else if (c->unit == RL_LOOPS) {
		json_object_set_new(j, "caveat", json_string(cmp_one_boot_caveat));
		json_object_set_new(j, "unit_detail", json_string(
			"loops within one boot per mode"));
	}
	json_object_set_new(j, "rows", cmp_ms_json(&c->ms));
	return j;
}

void cmp_modes_free(struct cmp_modes *c)
{
	cmp_ms_free(&c->ms);
}

/* ---- paired senders ------------------------------------------------------- */
static struct cmp_pair *pair_add(struct cmp_paired *c)
{
	c->v = xrealloc(c->v, (c->n + 1) * sizeof(*c->v));
	memset(&c->v[c->n], 0, sizeof(c->v[c->n]));
	return &c->v[c->n++];
}

/* One boot's loop pairs (run r of g); false when it has none. */
static bool paired_one(struct cmp_paired *c, const struct group *g, size_t r)
{
	double *a, *b;
	const char *na, *nb;
	size_t np = runlevel_pairs(g, r, &a, &b, &na, &nb);
	if (!np)
		return false;
	struct cmp_pair *p = pair_add(c);
	p->run = g->rr[r].id;
	p->mode = g->mode;
	p->a = na;
	p->b = nb;
	p->aa = !strcmp(na, nb);
	p->arm_by_order = g->rr[r].arm_by_order;
	p->n = np;
	ms_vitals(a, np, &p->va);
	ms_vitals(b, np, &p->vb);
	ms_paired(a, b, np, LEVEL, &p->p);
	free(a);
	free(b);
	return true;
}

/* Several boots of one paired workload: the boot as the unit. */
static void paired_boots(struct cmp_paired *c, const struct group *g)
{
	double *ma = xcalloc(g->nrr, sizeof(double)), *mb = xcalloc(g->nrr, sizeof(double));
	size_t nb = 0;
	const char *na = "", *nbn = "";
	for (size_t r = 0; r < g->nrr; r++) {
		double *a, *b;
		size_t np = runlevel_pairs(g, r, &a, &b, &na, &nbn);
		if (!np)
			continue;
		double sa = 0, sb = 0;
		for (size_t i = 0; i < np; i++) {
			sa += a[i];
			sb += b[i];
		}
		ma[nb] = sa / (double)np;
		mb[nb++] = sb / (double)np;
		free(a);
		free(b);
	}
	if (nb >= 2) {
		struct cmp_pair *p = pair_add(c);
		p->across_boots = true;
		p->mode = g->mode;
		p->a = na;
		p->b = nbn;
		p->n = nb;
		ms_paired(ma, mb, nb, LEVEL, &p->p);
	}
	free(ma);
	free(mb);
}

void cmp_paired_compute(struct cmp_paired *c, struct group *const *gs, size_t k)
{
	memset(c, 0, sizeof(*c));
	c->done = true;
	for (size_t i = 0; i < k; i++) {
		for (size_t r = 0; r < gs[i]->nrr; r++)
			paired_one(c, gs[i], r);
		paired_boots(c, gs[i]);
	}
}

void cmp_paired_md(struct sbuf *md, const struct cmp_paired *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct cmp_pair *p = &c->v[i];
		if (p->across_boots) {
			sb_printf(md, "\nAcross boots (mode %s): unit: **boots** (%zu), each the mean of "
				      "its pairs; %s (A) against %s (B):\n\n```\n", p->mode, p->n, p->a,
				  p->b);
			ms_format_paired(md, &p->p);
			sb_puts(md, "```\n");
			continue;
		}
		sb_printf(md, "\n**IPI send routine, one boot** (run `%s`, mode %s): %s (A) against "
			      "%s (B)%s; unit: loop pairs within one boot (%zu pairs), ns per call.\n\n",
			  p->run, p->mode, p->a, p->b, p->aa ? ", **A/A control**" : "", p->n);
		if (p->arm_by_order)
			sb_puts(md, "(A/A: the loops carry no `arm`; A is the first loop of each pair "
				    "in results.json.)\n\n");
		sb_puts(md, "```\n");
		sb_printf(md, "x %s (A)\n+ %s (B)\n", p->a, p->b);
		ms_format_head(md);
		ms_format_vitals(md, 0, &p->va);
		ms_format_vitals(md, 1, &p->vb);
		sb_puts(md, "Paired difference B - A over the pairs:\n");
		ms_format_paired(md, &p->p);
		sb_puts(md, "```\n");
	}
}

json_t *cmp_paired_json(const struct cmp_paired *c)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < c->n; i++) {
		const struct cmp_pair *p = &c->v[i];
		const struct ms_paired *d = &p->p;
		if (p->across_boots)
			json_array_append_new(arr, json_pack(
				"{s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:b}", "unit", "boots",
				"mode", p->mode, "boots", (json_int_t)p->n,
				"mean_difference", an_jreal(d->mean_d), "half_width", an_jreal(d->half),
				"percent", an_jreal(d->pct), "percent_half_width", an_jreal(d->pct_half),
				"proven", d->proven));
		else
			json_array_append_new(arr, json_pack(
				"{s:s, s:s, s:s, s:s, s:b, s:b, s:s, s:s, s:I, s:o, s:o,"
				" s:{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b}}",
				"label", "IPI send routine, one boot", "unit", "loop pairs within one boot",
				"run", p->run, "mode", p->mode, "a_a", p->aa, "arm_by_order", p->arm_by_order,
				"sender_a", p->a, "sender_b", p->b, "pairs", (json_int_t)p->n,
				"a", cmp_vitals_json(&p->va), "b", cmp_vitals_json(&p->vb),
				"paired", "mean_difference", an_jreal(d->mean_d), "half_width", an_jreal(d->half),
				"percent", an_jreal(d->pct), "percent_half_width", an_jreal(d->pct_half),
				"sd_difference", an_jreal(d->sd_d), "t", an_jreal(d->t), "df", an_jreal(d->df),
				"proven", d->proven));
	}
	return arr;
}

void cmp_paired_free(struct cmp_paired *c)
{
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

/* ---- hyperfine ------------------------------------------------------------ */
void cmp_hyperfine_compute(struct cmp_ms *c, const struct hf_file *h, enum ms_test test)
{
	struct ms_vitals v[REF_MS_MAX];
	char names[REF_MS_MAX][32];
	const char *np[REF_MS_MAX];
	size_t k = 0;
	for (size_t i = 0; i < h->n && k < REF_MS_MAX; i++) {
		if (h->cmds[i].n < 2)
			continue;
		ms_vitals(h->cmds[i].times, h->cmds[i].n, &v[k]);
		snprintf(names[k], sizeof(names[k]), "command %zu", i + 1);
		np[k] = names[k];
		k++;
	}
	cmp_ms_compute(c, np, v, k, MS_DEBIAN, test);
}

void cmp_hyperfine_md(struct sbuf *md, const struct cmp_ms *c)
{
	if (!c->k)
		return;
	sb_printf(md, "\nministat, seconds per run; unit: **hyperfine runs** of each "
		      "command (numbered as in the table), each against command %s:\n\n",
		  c->names[0] + 8);
	cmp_ms_md(md, c);
}

json_t *cmp_hyperfine_json(const struct cmp_ms *c)
{
	return c->k ? cmp_ms_json(c) : json_null();
}

/* ---- perf stat, repeated --------------------------------------------------- */
/* The name stem of a perf file: its base name without extension and a
 * trailing run number ("perf-mixed-3.csv" -> "perf-mixed"). */
char *cmp_perf_stem(const char *path)
{
	const char *b = strrchr(path, '/');
	char *s = xstrdup(b ? b + 1 : path);
	char *dot = strrchr(s, '.');
	if (dot)
		*dot = '\0';
	size_t n = strlen(s);
	while (n && s[n - 1] >= '0' && s[n - 1] <= '9')
		n--;
	while (n && (s[n - 1] == '-' || s[n - 1] == '_' || s[n - 1] == '.'))
		n--;
	if (n)
		s[n] = '\0';
	return s;
}

static bool perf_value(const struct perf_row *r, double *v)
{
	char *end;
	*v = strtod(r->value, &end);
	return end != r->value;
}

void cmp_perf_compute(struct cmp_perf *c, const struct perf_file *f, size_t nf,
		      enum ms_test test)
{
	memset(c, 0, sizeof(*c));
	if (nf < 2)
		return;
	c->path0 = f[0].path;
	/* stems in order of appearance */
	char *stems[REF_MS_MAX];
	size_t ns = 0;
	for (size_t i = 0; i < nf; i++) {
		char *s = cmp_perf_stem(f[i].path);
		size_t k = 0;
		while (k < ns && strcmp(stems[k], s))
			k++;
		if (k == ns && ns < REF_MS_MAX)
			stems[ns++] = s;
		else
			free(s);
	}
	/* events of the first file */
	for (size_t e = 0; e < f[0].n; e++) {
		const char *ev = f[0].rows[e].event;
		struct ms_vitals v[REF_MS_MAX];
		const char *names[REF_MS_MAX];
		size_t k = 0;
		for (size_t s = 0; s < ns; s++) {
			double x[256];
			size_t n = 0;
			for (size_t i = 0; i < nf && n < 256; i++) {
				char *st = cmp_perf_stem(f[i].path);
				bool same = !strcmp(st, stems[s]);
				free(st);
				if (!same)
					continue;
				for (size_t r = 0; r < f[i].n; r++)
					if (!strcmp(f[i].rows[r].event, ev) &&
					    perf_value(&f[i].rows[r], &x[n])) {
						n++;
						break;
					}
			}
			if (n >= 2) {
				ms_vitals(x, n, &v[k]);
				names[k++] = stems[s];
			}
		}
		if (!k)
			continue;
		c->ev = xrealloc(c->ev, (c->n + 1) * sizeof(*c->ev));
		c->ev[c->n].event = ev;
		c->ev[c->n].index = e;
		cmp_ms_compute(&c->ev[c->n++].ms, names, v, k, MS_DEBIAN, test);
	}
	for (size_t s = 0; s < ns; s++)
		free(stems[s]);
}

void cmp_perf_md(struct sbuf *md, const struct cmp_perf *c)
{
	if (c->n)
		sb_puts(md, "\n## perf stat, repeated\n\nOne value per perf stat file; "
			    "files whose names differ only by a trailing number are "
			    "repetitions of one measurement (unit: **perf stat runs**), "
			    "each compared with the first.\n");
	for (size_t i = 0; i < c->n; i++) {
		sb_printf(md, "\nEvent %zu of %s:\n\n", c->ev[i].index + 1, c->path0);
		cmp_ms_md(md, &c->ev[i].ms);
	}
}

json_t *cmp_perf_json(const struct cmp_perf *c)
{
	json_t *out = json_array();
	for (size_t i = 0; i < c->n; i++)
		json_array_append_new(out, json_pack("{s:s, s:s, s:o}", "event", c->ev[i].event,
						     "unit", "perf stat runs",
						     "rows", cmp_ms_json(&c->ev[i].ms)));
	return out;
}

void cmp_perf_free(struct cmp_perf *c)
{
	for (size_t i = 0; i < c->n; i++)
		cmp_ms_free(&c->ev[i].ms);
	free(c->ev);
	c->ev = NULL;
	c->n = 0;
}
