/*
 * analysis/compare.c: the comparisons of a report, on run-level samples
 * only, in ministat's format (analysis/ministat.h), each saying its unit:
 *   - between modes: loops of one boot (then plainly: boot-to-boot variance
 *     unknown) or boots (several per mode: their variance is in the error);
 *   - paired senders: loop pairs within one boot (B - A per pair);
 *   - hyperfine: runs of each command against the first;
 *   - perf stat: repeated files of one name stem, per event.
 * Per-call samples never enter a test here.
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

const char cmp_one_boot_caveat[] =
	"one boot per mode: boot-to-boot variance is unknown, so a difference between "
	"modes cannot be told from a difference between boots";

static json_t *jr(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

json_t *cmp_vitals_json(const struct ms_vitals *v)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o}", "n", (json_int_t)v->n,
			 "min", jr(v->min), "max", jr(v->max), "median", jr(v->median),
			 "avg", jr(v->avg), "stddev", jr(v->stddev));
}

json_t *cmp_diff_json(const struct ms_diff *d, const char *vs)
{
	if (!d->ok)
		return json_null();
	return json_pack(
		"{s:s, s:f, s:s, s:o, s:o, s:o, s:o, s:o, s:b,"
		" s:{s:o, s:o, s:o, s:o, s:o, s:o, s:b},"
		" s:{s:o, s:o, s:b}, s:{s:o, s:o, s:o, s:o, s:b}}",
		"vs", vs, "level", d->level,
		"test", d->used == MS_WELCH ? "Welch's t" : "Student's t",
		"difference", jr(d->diff),
		"half_width", jr(d->used == MS_WELCH ? d->welch_half : d->half),
		"percent", jr(d->pct),
		"percent_half_width", jr(d->used == MS_WELCH ? d->welch_pct_half : d->pct_half),
		"pooled_s", jr(d->spool), "proven", d->verdict,
		"student", "t", jr(d->t), "df", jr(d->df), "half_width", jr(d->half),
		"percent_half_width", jr(d->pct_half),
		"percent_half_width_freebsd", jr(d->pct_half_freebsd), "pooled_s", jr(d->spool),
		"proven", d->proven,
		"variances", "f", jr(d->f), "p", jr(d->f_p), "differ", d->var_differ,
		"welch", "t", jr(d->welch_t), "df", jr(d->welch_df),
		"half_width", jr(d->welch_half), "percent_half_width", jr(d->welch_pct_half),
		"proven", d->welch_proven);
}

/* A ministat block: names (shown in the code block: plain names only),
 * vitals, each row compared with row 0.  Returns the JSON rows. */
json_t *cmp_ms_block(struct sbuf *md, const char *const *names,
		     const struct ms_vitals *v, size_t k, enum ms_style style,
		     bool welch)
{
	json_t *rows = json_array();
	sb_puts(md, "```\n");
	for (size_t i = 0; i < k; i++)
		sb_printf(md, "%c %s\n", ms_symbol(i), names[i]);
	ms_format_head(md);
	ms_format_vitals(md, 0, &v[0]);
	json_t *j0 = cmp_vitals_json(&v[0]);
	json_object_set_new(j0, "name", json_string(names[0]));
	json_array_append_new(rows, j0);
	for (size_t i = 1; i < k; i++) {
		struct ms_diff d;
		ms_compare(&v[0], &v[i], LEVEL, &d);
		ms_format_vitals(md, i, &v[i]);
		ms_format_diff(md, &d, welch, style);
		json_t *j = cmp_vitals_json(&v[i]);
		json_object_set_new(j, "name", json_string(names[i]));
		json_object_set_new(j, "comparison", cmp_diff_json(&d, names[0]));
		json_array_append_new(rows, j);
	}
	sb_puts(md, "```\n");
	return rows;
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

static void unit_text(struct sbuf *md, struct group *const *gs, size_t k,
		      enum rl_unit u, json_t *j, const char *what)
{
	size_t bmin = SIZE_MAX, bmax = 0, lmin = SIZE_MAX, lmax = 0;
	bool from_loops = true;
	for (size_t i = 0; i < k; i++) {
		size_t nl = runlevel_mode_loops(gs[i]);
		bmin = gs[i]->nrr < bmin ? gs[i]->nrr : bmin;
		bmax = gs[i]->nrr > bmax ? gs[i]->nrr : bmax;
		lmin = nl < lmin ? nl : lmin;
		lmax = nl > lmax ? nl : lmax;
		from_loops &= nl > 0;
	}
	char rb[48];
	if (u == RL_BOOTS) {
		sb_printf(md,
			  "Unit: **boots** (%s per %s). A boot's value is the mean ns per "
			  "call of %s. The variance between boots is in the error.\n\n",
			  range(rb, bmin, bmax), what, from_loops ? "its timed loops" :
			  "its per-call samples (these results have no loop timings)");
		json_object_set_new(j, "unit_detail", json_string(
			from_loops ? "boots: per-boot mean of its timed loops" :
				     "boots: per-boot mean of its per-call samples"));
	} else if (u == RL_LOOPS) {
		sb_printf(md, "Unit: **timed loops** (%s per %s; ns per call = loop "
			      "ns / calls).\n\n", range(rb, lmin, lmax), what);
		if (bmax <= 1)
			sb_printf(md, "**Note, %s.** The verdicts below compare loops of one "
				      "boot with loops of another: they say nothing more about the "
				      "%ss.\n\n", cmp_one_boot_caveat, what);
		else
			sb_printf(md, "**Some %s has fewer than 2 boots: boot-to-boot variance is "
				      "unknown, so a difference between %ss cannot be told from a "
				      "difference between boots.** Loops of all boots are pooled.\n\n",
				      what, what);
		json_object_set_new(j, "caveat", json_string(cmp_one_boot_caveat));
		json_object_set_new(j, "unit_detail", json_string(
			"loops within one boot per mode"));
	}
}

json_t *cmp_block_modes(struct sbuf *md, struct group *const *gs, size_t k)
{
	json_t *j = json_object();
	if (!k)
		return j;
	enum rl_unit u = runlevel_unit(gs, k);
	json_object_set_new(j, "unit", json_string(rl_unit_name(u)));
	sb_printf(md, "\nRun-level comparison (ns per call; baseline `%s`, each mode against "
		      "it, %.0f%% confidence):\n\n", gs[0]->mode, LEVEL * 100.0);
	if (u == RL_NONE) {
		sb_puts(md, "No run-level comparison: a mode has fewer than 2 boots and no "
			    "timed loops. Per-call samples of one boot are not independent "
			    "observations of a mode (set `runs = R` for loop timings, "
			    "`repetitions >= 2` for boots).\n");
		return j;
	}
	unit_text(md, gs, k, u, j, "mode");
	struct ms_vitals v[REF_MS_MAX];
	const char *names[REF_MS_MAX];
	size_t m = 0;
	for (size_t i = 0; i < k && m < REF_MS_MAX; i++) {
		size_t n;
		double *x = runlevel_sample(gs[i], u, &n);
		if (!x)
			continue;
		ms_vitals(x, n, &v[m]);
		names[m++] = gs[i]->mode;
		free(x);
	}
	json_object_set_new(j, "rows", cmp_ms_block(md, names, v, m, MS_DEBIAN, true));
	return j;
}

/* ---- between builds -------------------------------------------------------- */
json_t *cmp_block_builds(struct sbuf *md, struct group *const *gs, size_t k)
{
	json_t *j = json_object();
	if (k < 2)
		return j;
	enum rl_unit u = runlevel_unit(gs, k);
	json_object_set_new(j, "unit", json_string(rl_unit_name(u)));
	json_object_set_new(j, "mode", json_string(gs[0]->mode));
	sb_printf(md, "\nMode `%s`, run-level comparison between builds (ns per call; baseline "
		      "build `%s`, each build against it, %.0f%% confidence):\n\n", gs[0]->mode,
		  gs[0]->build, LEVEL * 100.0);
	if (u == RL_NONE) {
		sb_puts(md, "No run-level comparison: a build has fewer than 2 boots and no "
			    "timed loops (set `runs = R` for loop timings, `repetitions >= 2` "
			    "for boots).\n");
		return j;
	}
	unit_text(md, gs, k, u, j, "build");
	struct ms_vitals v[REF_MS_MAX];
	const char *names[REF_MS_MAX];
	size_t m = 0;
	for (size_t i = 0; i < k && m < REF_MS_MAX; i++) {
		size_t n;
		double *x = runlevel_sample(gs[i], u, &n);
		if (!x)
			continue;
		ms_vitals(x, n, &v[m]);
		names[m++] = gs[i]->build;
		free(x);
	}
	json_object_set_new(j, "rows", cmp_ms_block(md, names, v, m, MS_DEBIAN, true));
	return j;
}

/* ---- paired senders ------------------------------------------------------- */
static json_t *paired_one(struct sbuf *md, const struct group *g, size_t r)
{
	double *a, *b;
	const char *na, *nb;
	size_t np = runlevel_pairs(g, r, &a, &b, &na, &nb);
	if (!np)
		return NULL;
	bool aa = !strcmp(na, nb);
	const struct run_rec *rr = &g->rr[r];
	sb_printf(md, "\n**IPI send routine, one boot** (run `%s`, mode %s): %s (A) against "
		      "%s (B)%s; unit: loop pairs within one boot (%zu pairs), ns per call.\n\n",
		  rr->id, g->mode, na, nb, aa ? ", **A/A control**" : "", np);
	if (rr->arm_by_order)
		sb_puts(md, "(A/A: the loops carry no `arm`; A is the first loop of each pair "
			    "in results.json.)\n\n");
	struct ms_vitals v[2];
	ms_vitals(a, np, &v[0]);
	ms_vitals(b, np, &v[1]);
	struct ms_paired p;
	ms_paired(a, b, np, LEVEL, &p);
	sb_puts(md, "```\n");
	sb_printf(md, "x %s (A)\n+ %s (B)\n", na, nb);
	ms_format_head(md);
	ms_format_vitals(md, 0, &v[0]);
	ms_format_vitals(md, 1, &v[1]);
	sb_puts(md, "Paired difference B - A over the pairs:\n");
	ms_format_paired(md, &p);
	sb_puts(md, "```\n");
	json_t *j = json_pack(
		"{s:s, s:s, s:s, s:s, s:b, s:b, s:s, s:s, s:I, s:o, s:o,"
		" s:{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b}}",
		"label", "IPI send routine, one boot", "unit", "loop pairs within one boot",
		"run", rr->id, "mode", g->mode, "a_a", aa, "arm_by_order", rr->arm_by_order,
		"sender_a", na, "sender_b", nb, "pairs", (json_int_t)np,
		"a", cmp_vitals_json(&v[0]), "b", cmp_vitals_json(&v[1]),
		"paired", "mean_difference", jr(p.mean_d), "half_width", jr(p.half),
		"percent", jr(p.pct), "percent_half_width", jr(p.pct_half),
		"sd_difference", jr(p.sd_d), "t", jr(p.t), "df", jr(p.df), "proven", p.proven);
	free(a);
	free(b);
	return j;
}

/* Several boots of one paired workload: the boot as the unit. */
static json_t *paired_boots(struct sbuf *md, const struct group *g)
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
	json_t *j = NULL;
	if (nb >= 2) {
		struct ms_paired p;
		ms_paired(ma, mb, nb, LEVEL, &p);
		sb_printf(md, "\nAcross boots (mode %s): unit: **boots** (%zu), each the mean of "
			      "its pairs; %s (A) against %s (B):\n\n```\n", g->mode, nb, na, nbn);
		ms_format_paired(md, &p);
		sb_puts(md, "```\n");
		j = json_pack("{s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:b}", "unit", "boots",
			      "mode", g->mode, "boots", (json_int_t)nb,
			      "mean_difference", jr(p.mean_d), "half_width", jr(p.half),
			      "percent", jr(p.pct), "percent_half_width", jr(p.pct_half),
			      "proven", p.proven);
	}
	free(ma);
	free(mb);
	return j;
}

json_t *cmp_block_paired(struct sbuf *md, struct group *const *gs, size_t k)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < k; i++) {
		for (size_t r = 0; r < gs[i]->nrr; r++) {
			json_t *j = paired_one(md, gs[i], r);
			if (j)
				json_array_append_new(arr, j);
		}
		json_t *jb = paired_boots(md, gs[i]);
		if (jb)
			json_array_append_new(arr, jb);
	}
	return arr;
}

/* ---- hyperfine ------------------------------------------------------------ */
json_t *cmp_hyperfine(struct sbuf *md, const struct hf_file *h)
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
	if (k < 1)
		return json_null();
	sb_printf(md, "\nministat, seconds per run; unit: **hyperfine runs** of each "
		      "command (numbered as in the table), each against command %s:\n\n",
		  names[0] + 8);
	return cmp_ms_block(md, np, v, k, MS_DEBIAN, true);
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

json_t *cmp_perf(struct sbuf *md, const struct perf_file *f, size_t nf)
{
	json_t *out = json_array();
	if (nf < 2)
		return out;
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
	bool header = false;
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
		if (!header) {
			sb_puts(md, "\n## perf stat, repeated\n\nOne value per perf stat file; "
				    "files whose names differ only by a trailing number are "
				    "repetitions of one measurement (unit: **perf stat runs**), "
				    "each compared with the first.\n");
			header = true;
		}
		sb_printf(md, "\nEvent %zu of %s:\n\n", e + 1, f[0].path);
		json_t *rows = cmp_ms_block(md, names, v, k, MS_DEBIAN, true);
		json_array_append_new(out, json_pack("{s:s, s:s, s:o}", "event", ev, "unit",
						     "perf stat runs", "rows", rows));
	}
	for (size_t s = 0; s < ns; s++)
		free(stems[s]);
	return out;
}
