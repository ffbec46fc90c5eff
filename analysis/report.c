/*
 * analysis/report.c: `ipibench report DIR|FILE... [-o OUT]`.
 *
 * Pools every ok run of each workload x mode (per host and CPU count) from
 * the inputs, then writes OUT/report.md (printed to stdout too),
 * OUT/report.json and gnuplot plots (PNG + SVG, scripts and data kept).
 * Sections: inputs and method, the seed reproduction, one per workload,
 * the CPU sweep, hyperfine and perf stat inputs, failed runs.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipibench/modes.h"
#include "safeio/safeio.h"
#include "analysis/analysis.h"
#include "analysis/internal.h"

struct cmp {
	bool ok;		/* baseline present and both have samples */
	bool is_base;
	double ratio, lo, hi;	/* median(mode) / median(baseline) */
	bool ci_ok;
	struct mannwhitney mw;
};

struct report {
	const char *out, *baseline;
	struct dataset d;
	struct cmp *cmp;	/* parallel to d.groups */
	struct reference ref;
	bool have_ref;
	struct sbuf md;
	json_t *json;
	size_t nplots;
	char err[AN_ERRLEN];
};

static const char report_help[] =
	"usage: ipibench report INPUT... [-o OUT] [--baseline MODE] [--reference FILE]\n"
	"\n"
	"Statistics, comparison tables and plots of ipibench results.\n"
	"INPUT is a results directory (its results.json plus any hyperfine JSON or\n"
	"perf stat CSV next to it) or a file, detected by content: results.json,\n"
	"hyperfine --export-json output, or `perf stat -x,` output.  Several\n"
	"directories merge (e.g. one per CPU count: a CPU sweep).\n"
	"\n"
	"options:\n"
	"  -o, --output OUT      output directory (default: report)\n"
	"  -b, --baseline MODE   mode the others are compared with (default: physical)\n"
	"      --reference FILE  seed reference figures\n"
	"                        (default: results/reference/seed-96cpu.json)\n"
	"      --no-reference    leave the seed reproduction section out\n"
	"  -q, --quiet           no progress on stderr\n"
	"  -h, --help            this help\n"
	"\n"
	"Writes OUT/report.md (also printed), OUT/report.json, and for each plot\n"
	"OUT/NAME.png, NAME.svg with the NAME.gp script and NAME.dat data that\n"
	"drew them (re-run with `cd OUT && gnuplot NAME.gp`).  Needs gnuplot.\n"
	"\n"
	"Statistics, per workload x mode over the samples of all ok runs:\n"
	"  quantiles      linear interpolation (GSL, R type 7)\n"
	"  CI of median   95%, exact order statistics (Binomial(n, 1/2)), n >= 6\n"
	"  ratio          median(mode) / median(baseline), 95% percentile bootstrap,\n"
	"                 2000 resamples, gsl mt19937 seed 20261130\n"
	"  Mann-Whitney   two-sided U test against the baseline, normal\n"
	"                 approximation with tie and continuity correction\n"
	"\n"
	"Exit status: 0 ok, 1 bad input or output error, 2 usage.\n";

/* ---- formatting ---------------------------------------------------------- */
static const char *fnum(char *b, double v)
{
	if (isnan(v))
		snprintf(b, 48, "-");
	else if (fabs(v) >= 100.0)
		snprintf(b, 48, "%.0f", v);
	else if (fabs(v) >= 1.0)
		snprintf(b, 48, "%.2f", v);
	else
		snprintf(b, 48, "%.3g", v);
	return b;
}

static const char *fix2(char *b, double v)
{
	if (isnan(v))
		snprintf(b, 48, "-");
	else
		snprintf(b, 48, "%.2f", v);
	return b;
}

static const char *fp(char *b, double p)
{
	if (isnan(p))
		snprintf(b, 48, "-");
	else if (p < 1e-300)
		snprintf(b, 48, "<1e-300");
	else
		snprintf(b, 48, "%.3g", p);
	return b;
}

static json_t *jreal(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static int cmp_groups(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c;
	if ((c = strcmp(x->host, y->host)))
		return c;
	if ((c = strcmp(x->workload, y->workload)))
		return c;
	if (x->cpus != y->cpus)
		return x->cpus < y->cpus ? -1 : 1;
	if ((c = mode_rank(x->mode) - mode_rank(y->mode)))
		return c;
	return strcmp(x->mode, y->mode);
}

/* Groups [i, end) share host, workload and CPU count: a block. */
static size_t block_end(const struct dataset *d, size_t i)
{
	size_t j = i + 1;
	while (j < d->ngroups && !strcmp(d->groups[j].host, d->groups[i].host) &&
	       !strcmp(d->groups[j].workload, d->groups[i].workload) &&
	       d->groups[j].cpus == d->groups[i].cpus)
		j++;
	return j;
}

static struct group *block_mode(struct dataset *d, size_t i, size_t end,
				const char *mode)
{
	for (size_t k = i; k < end; k++)
		if (!strcmp(d->groups[k].mode, mode))
			return &d->groups[k];
	return NULL;
}

static double per_op(const struct group *g, double v)
{
	return g->has_ops && g->operations > 0 ? v / g->operations : NAN;
}

static char *block_name(const struct group *g)
{
	char *raw = xasprintf("%s-%s-%ldcpu", g->host, g->workload, g->cpus);
	char *s = slugify(raw);
	free(raw);
	return s;
}

/* ---- statistics ---------------------------------------------------------- */
static void compare_all(struct report *r)
{
	struct dataset *d = &r->d;
	r->cmp = xcalloc(d->ngroups, sizeof(*r->cmp));
	for (size_t i = 0; i < d->ngroups; i++) {
		struct group *g = &d->groups[i];
		struct cmp *c = &r->cmp[i];
		struct group *b = dataset_find(d, g->set, g->host, g->cpus,
					       g->workload, r->baseline);
		if (!b || !b->n || !g->n)
			continue;
		c->ok = true;
		c->is_base = b == g;
		c->ratio = g->sum.median / b->sum.median;
		if (c->is_base) {
			c->lo = c->hi = 1.0;
			c->ci_ok = true;
			continue;
		}
		progress("comparing %s/%s %s vs %s (%zu vs %zu samples, %d bootstrap resamples)",
			 g->workload, g->host, g->mode, b->mode, g->n, b->n,
			 AN_BOOT_RESAMPLES);
		c->ci_ok = !stats_ratio_ci(g->ns, g->n, b->ns, b->n, AN_BOOT_RESAMPLES,
					   AN_BOOT_SEED, 0.95, &c->lo, &c->hi);
		stats_mann_whitney(g->ns, g->n, b->ns, b->n, &c->mw);
	}
}

/* ---- plots ---------------------------------------------------------------- */
/* One box per labelled sample. */
static int boxplot(struct report *r, const char *name, const char *title,
		   const char *ylabel, const char **labels, double **v,
		   size_t *n, size_t k)
{
	struct sbuf dat = { 0 }, body = { 0 };
	char *tl = one_line(title);
	sb_printf(&dat, "# %s: one block per box (gnuplot index), one value per line\n",
		  tl);
	free(tl);
	char *t = gp_quote(title), *y = gp_quote(ylabel);
	sb_printf(&body,
		  "set title %s\nset ylabel %s\n"
		  "set style fill solid 0.3 border -1\n"
		  "set style boxplot outliers pointtype 7\n"
		  "set pointsize 0.3\nset boxwidth 0.5\nunset key\n"
		  "set xrange [0.5:%zu.5]\nset xtics (",
		  t, y, k);
	free(t);
	free(y);
	for (size_t i = 0; i < k; i++) {
		char *l = gp_quote(labels[i]);
		sb_printf(&body, "%s%s %zu", i ? ", " : "", l, i + 1);
		free(l);
		char *ll = one_line(labels[i]);
		sb_printf(&dat, "%s# %s\n", i ? "\n\n" : "", ll);
		free(ll);
		for (size_t j = 0; j < n[i]; j++)
			sb_printf(&dat, "%.17g\n", v[i][j]);
	}
	sb_puts(&body, ")\nplot ");
	char *df = gp_datafile(name);
	for (size_t i = 0; i < k; i++)
		sb_printf(&body, "%s%s index %zu using (%zu):1 with boxplot lc %zu",
			  i ? ", \\\n     " : "", df, i, i + 1, i + 1);
	free(df);
	sb_puts(&body, "\n");
	int rc = plot_render(r->out, name, dat.s, body.s, 800, 500, r->err);
	sb_free(&dat);
	sb_free(&body);
	if (!rc)
		r->nplots++;
	return rc;
}

static void md_plot(struct report *r, const char *name, const char *what)
{
	sb_printf(&r->md, "\n![%s](%s.png) ([SVG](%s.svg), [script](%s.gp))\n",
		  what, name, name, name);
}

/* ---- markdown + json: inputs --------------------------------------------- */
static void section_inputs(struct report *r)
{
	struct dataset *d = &r->d;
	sb_puts(&r->md, "# ipibench report\n\n## Inputs\n\n");
	json_t *inputs = json_array();
	if (d->nsets) {
		sb_puts(&r->md, "| results | host | backend | CPUs | emulated | Xen | commit | created | runs ok | failed |\n"
				"|---|---|---|---:|---|---|---|---|---:|---:|\n");
	}
	for (size_t i = 0; i < d->nsets; i++) {
		struct resultset *s = &d->sets[i];
		char *mp = md_text(s->path), *mh = md_text(s->host_name),
		     *mb = md_text(s->backend), *mx = md_text(s->xen_version),
		     *mc = md_text(s->commit), *mt = md_text(s->created);
		sb_printf(&r->md, "| %s | %s | %s | %ld | %s | %s | %s | %s | %zu | %zu |\n",
			  mp, mh, mb, s->cpus,
			  s->emulated ? "**yes (QEMU TCG)**" : "no", mx,
			  mc, mt, s->runs_ok, s->runs_failed);
		free(mp), free(mh), free(mb), free(mx), free(mc), free(mt);
		json_array_append_new(inputs, json_pack(
			"{s:s, s:s, s:s, s:s, s:I, s:b, s:s, s:s, s:s, s:I, s:I}",
			"kind", "results", "path", s->path, "host", s->host_name,
			"backend", s->backend, "cpus", (json_int_t)s->cpus,
			"emulated", s->emulated, "xen_version", s->xen_version,
			"commit", s->commit, "created", s->created,
			"runs_ok", (json_int_t)s->runs_ok,
			"runs_failed", (json_int_t)s->runs_failed));
	}
	for (size_t i = 0; i < d->nhf; i++) {
		char *mp = md_text(d->hf[i].path);
		sb_printf(&r->md, "%s- hyperfine: %s\n", i ? "" : "\n", mp);
		free(mp);
		json_array_append_new(inputs, json_pack("{s:s, s:s}", "kind", "hyperfine",
							"path", d->hf[i].path));
	}
	for (size_t i = 0; i < d->nperf; i++) {
		char *mp = md_text(d->perf[i].path);
		sb_printf(&r->md, "%s- perf stat: %s\n", i || d->nhf ? "" : "\n", mp);
		free(mp);
		json_array_append_new(inputs, json_pack("{s:s, s:s}", "kind", "perf-stat",
							"path", d->perf[i].path));
	}
	json_object_set_new(r->json, "inputs", inputs);
	sb_printf(&r->md,
		  "\nMethod: samples of all ok runs of a workload x mode are pooled (per host "
		  "and CPU count). Latency is per operation, in ns. Quantiles interpolate "
		  "linearly (R type 7). The 95%% CI of the median uses exact order "
		  "statistics (Binomial(n, 1/2); needs n >= 6). The ratio is median(mode) / "
		  "median(%s) with a 95%% percentile bootstrap CI (%d resamples, gsl "
		  "mt19937, fixed seed %lu). Mann-Whitney U p-values are two-sided, normal "
		  "approximation with tie and continuity correction. A ratio below 1 means "
		  "faster than %s.\n",
		  r->baseline, AN_BOOT_RESAMPLES, AN_BOOT_SEED, r->baseline);
	json_object_set_new(r->json, "method", json_pack(
		"{s:s, s:s, s:s, s:s, s:i, s:I, s:s}",
		"quantiles", "linear interpolation (R type 7, gsl_stats_quantile_from_sorted_data)",
		"median_ci", "95% exact order statistics, Binomial(n, 1/2)",
		"ratio_ci", "95% percentile bootstrap of median(mode)/median(baseline)",
		"mann_whitney", "two-sided, normal approximation, tie and continuity corrected",
		"bootstrap_resamples", AN_BOOT_RESAMPLES,
		"bootstrap_seed", (json_int_t)AN_BOOT_SEED,
		"baseline", r->baseline));
}

/* ---- the seed reproduction ----------------------------------------------- */
static void section_seed(struct report *r)
{
	struct dataset *d = &r->d;
	struct reference *ref = &r->ref;
	char b1[48], b2[48], b3[48];
	sb_puts(&r->md, "\n## Seed reproduction\n\n");
	json_t *js = json_object();
	json_object_set_new(r->json, "seed", js);
	if (!r->have_ref) {
		sb_puts(&r->md, "Reference figures not found (results/reference/seed-96cpu.json; "
				"use --reference FILE).\n");
		return;
	}
	double ref_pc_p = ref->total_ns_physical / (double)ref->calls;
	double ref_pc_m = ref->total_ns_mixed / (double)ref->calls;
	double ref_ratio = ref->total_ns_physical / ref->total_ns_mixed;
	char *mt = md_text(ref->title), *ms = md_text(ref->source), *mp = md_code(ref->path),
	     *mq = md_text(ref->quote);
	sb_printf(&r->md, "Reference: %s. Source: %s, %s:\n\n> %s\n\n", mt, ms, mp, mq);
	free(mt), free(ms), free(mp), free(mq);
	json_object_set_new(js, "reference", json_pack(
		"{s:s, s:s, s:I, s:I, s:b, s:{s:f, s:f}, s:{s:f, s:f}, s:f, s:{s:f, s:f}, s:s}",
		"path", ref->path, "source", ref->source, "calls", (json_int_t)ref->calls,
		"cpus", (json_int_t)ref->cpus, "emulated", ref->emulated,
		"total_ns", "physical", ref->total_ns_physical, "mixed", ref->total_ns_mixed,
		"ns_per_call", "physical", ref_pc_p, "mixed", ref_pc_m,
		"ratio_physical_over_mixed", ref_ratio,
		"expected_icr_writes_per_call", "physical", ref->icr_expected_physical,
		"mixed", ref->icr_expected_mixed, "note", ref->icr_note));
	json_t *meas = json_array();
	json_object_set_new(js, "measured", meas);

	size_t shown = 0;
	for (size_t i = 0; i < d->ngroups; i = block_end(d, i)) {
		size_t end = block_end(d, i);
		struct group *g0 = &d->groups[i];
		if (strcmp(g0->type, ref->workload_type))
			continue;
		struct group *ph = block_mode(d, i, end, "physical");
		struct group *mx = block_mode(d, i, end, "mixed");
		struct group *cl = block_mode(d, i, end, "cluster");
		shown++;
		sb_printf(&r->md, "### `%s` on %s, %ld CPUs\n\n", g0->workload, g0->host,
			  g0->cpus);
		if (g0->emulated)
			sb_printf(&r->md,
				  "**This host was emulated (QEMU TCG): absolute times are about "
				  "1000x slower than on hardware. Compare the ratios, not the "
				  "times.** ICR write counts are exact either way.\n\n");
		if (g0->cpus != ref->cpus)
			sb_printf(&r->md,
				  "Measured on %ld CPUs, the reference on %ld: physical mode's ICR "
				  "writes per call grow with the CPU count, so the ratio is expected "
				  "to differ.\n\n", g0->cpus, ref->cpus);
		if ((ph && ph->path && !strcmp(ph->path, "shorthand")) ||
		    (mx && mx->path && !strcmp(mx->path, "shorthand")))
			sb_puts(&r->md,
				"Xen used the ALL-BUT-self shorthand here: physical and mixed send the "
				"very same IPI (one ICR write), so no difference is expected.\n\n");
		const char *hw = ref->emulated ? "emulated" : "hardware";
		sb_printf(&r->md, "| figure | reference (%ld CPUs, %s) | measured (%ld CPUs, %s) |\n"
				  "|---|---:|---:|\n",
			  ref->cpus, hw, g0->cpus, g0->emulated ? "QEMU TCG" : "hardware");
		struct group *gm[3] = { ph, cl, mx };
		const char *names[3] = { "physical", "cluster", "mixed" };
		double rp[3] = { ref_pc_p, NAN, ref_pc_m };
		json_t *jm = json_pack("{s:s, s:s, s:I, s:b, s:s}", "workload", g0->workload,
				       "host", g0->host, "cpus", (json_int_t)g0->cpus,
				       "emulated", g0->emulated, "path", ph && ph->path ? ph->path : "");
		json_t *jpc = json_object(), *jtot = json_object(), *jmed = json_object(),
		       *jicr = json_object();
		for (int k = 0; k < 3; k++) {
			struct group *g = gm[k];
			double mean = g && g->n ? g->sum.mean : NAN;
			sb_printf(&r->md, "| %s, ns per call (mean) | %s | %s |\n", names[k],
				  fix2(b1, rp[k]), fix2(b2, mean));
			json_object_set_new(jpc, names[k], jreal(mean));
			json_object_set_new(jmed, names[k], jreal(g && g->n ? g->sum.median : NAN));
			json_object_set_new(jtot, names[k], jreal(mean * (double)ref->calls));
		}
		for (int k = 0; k < 3; k++) {
			struct group *g = gm[k];
			sb_printf(&r->md, "| %s, ns per call (median) | - | %s |\n", names[k],
				  fix2(b2, g && g->n ? g->sum.median : NAN));
		}
		for (int k = 0; k < 3; k++) {
			struct group *g = gm[k];
			double mean = g && g->n ? g->sum.mean : NAN;
			sb_printf(&r->md, "| %s, total for %ld calls (ns; mean x %ld) | %s | %s |\n",
				  names[k], ref->calls, ref->calls,
				  fnum(b1, rp[k] * (double)ref->calls),
				  fnum(b2, mean * (double)ref->calls));
		}
		double ratio_mean = ph && mx && ph->n && mx->n ? ph->sum.mean / mx->sum.mean : NAN;
		double ratio_med = ph && mx && ph->n && mx->n ? ph->sum.median / mx->sum.median : NAN;
		double lo = NAN, hi = NAN;
		if (ph && mx && ph->n && mx->n &&
		    stats_ratio_ci(ph->ns, ph->n, mx->ns, mx->n, AN_BOOT_RESAMPLES,
				   AN_BOOT_SEED, 0.95, &lo, &hi))
			lo = hi = NAN;
		sb_printf(&r->md, "| ratio physical / mixed (means) | %.3f | %s |\n", ref_ratio,
			  isnan(ratio_mean) ? "-" : (snprintf(b1, 48, "%.3f", ratio_mean), b1));
		sb_printf(&r->md, "| ratio physical / mixed (medians, 95%% CI) | - | %s |\n",
			  isnan(ratio_med) ? "-" :
			  (snprintf(b3, 48, "%.3f [%.3f, %.3f]", ratio_med, lo, hi), b3));
		double icr[3];
		for (int k = 0; k < 3; k++) {
			struct group *g = gm[k];
			icr[k] = g && g->has_icr ? per_op(g, g->icr_writes) : NAN;
			double exp = k == 0 ? ref->icr_expected_physical :
				     k == 2 ? ref->icr_expected_mixed : NAN;
			char eb[64];
			if (isnan(exp) || exp <= 0)
				snprintf(eb, sizeof(eb), "-");
			else
				snprintf(eb, sizeof(eb), "%.0f (derived, not measured)", exp);
			sb_printf(&r->md, "| %s, ICR writes per call | %s | %s |\n", names[k], eb,
				  fnum(b2, icr[k]));
			json_object_set_new(jicr, names[k], jreal(icr[k]));
		}
		sb_puts(&r->md, "\n");
		if (!isnan(ratio_mean))
			sb_printf(&r->md,
				  "Mixed is %s than physical by %.1f%% of physical's mean time per call "
				  "(reference: %.1f%% faster).",
				  ratio_mean >= 1.0 ? "faster" : "slower",
				  fabs(1.0 - 1.0 / ratio_mean) * 100.0,
				  (1.0 - 1.0 / ref_ratio) * 100.0);
		if (!isnan(icr[0]) && !isnan(icr[2]))
			sb_printf(&r->md,
				  " It writes the ICR %.2f times per call against %.2f in physical "
				  "mode (%.2f fewer writes per call): cluster addressing reaches up to "
				  "16 CPUs with one write.",
				  icr[2], icr[0], icr[0] - icr[2]);
		sb_puts(&r->md, "\n\n");
		json_object_set_new(jm, "ns_per_call_mean", jpc);
		json_object_set_new(jm, "ns_per_call_median", jmed);
		json_object_set_new(jm, "total_ns_for_calls", jtot);
		json_object_set_new(jm, "ratio_physical_over_mixed_mean", jreal(ratio_mean));
		json_object_set_new(jm, "ratio_physical_over_mixed_median", jreal(ratio_med));
		json_object_set_new(jm, "ratio_median_ci", json_pack("[o, o]", jreal(lo), jreal(hi)));
		json_object_set_new(jm, "icr_writes_per_call", jicr);
		json_array_append_new(meas, jm);
	}
	if (!shown)
		sb_printf(&r->md,
			  "No `%s` workload in the inputs: run configs/seed-96cpu.ini to compare "
			  "with the reference (%ld calls on %ld CPUs: physical %.2f ns, mixed "
			  "%.2f ns per call, ratio %.3f).\n",
			  ref->workload_type, ref->calls, ref->cpus, ref_pc_p, ref_pc_m, ref_ratio);
}

/* ---- one block: a workload on a host with a CPU count -------------------- */
static json_t *group_json(struct report *r, size_t gi)
{
	struct group *g = &r->d.groups[gi];
	struct cmp *c = &r->cmp[gi];
	json_t *o = json_pack("{s:s, s:s, s:b, s:s, s:I, s:I, s:I}",
			      "mode", g->mode, "genapic", g->genapic ? g->genapic : "",
			      "genapic_differs_between_runs", g->genapic_mixed,
			      "path", g->path ? g->path : "",
			      "runs_ok", (json_int_t)g->runs_ok,
			      "runs_failed", (json_int_t)g->runs_failed,
			      "n", (json_int_t)g->n);
	if (g->n) {
		struct summary *s = &g->sum;
		json_object_set_new(o, "latency_ns", json_pack(
			"{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			"median", jreal(s->median), "mean", jreal(s->mean),
			"sd", jreal(s->sd), "min", jreal(s->min), "max", jreal(s->max),
			"p5", jreal(s->p5), "p95", jreal(s->p95), "q1", jreal(s->q1),
			"q3", jreal(s->q3), "iqr", jreal(s->iqr),
			"median_ci95", s->ci_ok ? json_pack("[f, f]", s->ci_lo, s->ci_hi) :
						  json_null()));
		if (s->ci_ok)
			json_object_set_new(o, "median_ci_coverage", json_real(s->ci_level));
	}
	if (c->ok) {
		json_object_set_new(o, "ratio_to_baseline", jreal(c->ratio));
		json_object_set_new(o, "ratio_ci95", c->ci_ok ?
				    json_pack("[f, f]", c->lo, c->hi) : json_null());
		if (!c->is_base)
			json_object_set_new(o, "mann_whitney", json_pack(
				"{s:f, s:f, s:o, s:f}", "u", c->mw.u, "z", c->mw.z,
				"p", jreal(c->mw.p), "auc", c->mw.auc));
	}
	json_t *cn = json_object();
	if (g->has_ops)
		json_object_set_new(cn, "operations", json_real(g->operations));
	if (g->has_icr) {
		json_object_set_new(cn, "icr_writes", json_real(g->icr_writes));
		json_object_set_new(cn, "icr_writes_per_op", jreal(per_op(g, g->icr_writes)));
	}
	if (g->has_ipis)
		json_object_set_new(cn, "ipis_sent_per_op", jreal(per_op(g, g->ipis_sent)));
	if (g->vectors_runs)
		json_object_set_new(cn, "vectors", json_real(g->vectors_sum /
							     (double)g->vectors_runs));
	if (g->nirqs) {
		json_t *a = json_array();
		for (size_t k = 0; k < g->nirqs; k++)
			json_array_append_new(a, json_real(g->irqs[k] / (double)g->irq_runs));
		json_object_set_new(cn, "irqs_per_cpu_mean_per_run", a);
	}
	json_object_set_new(o, "counters", cn);
	return o;
}

static int section_block(struct report *r, size_t i, size_t end, json_t *jw)
{
	struct dataset *d = &r->d;
	struct group *g0 = &d->groups[i];
	char b[8][48];
	char *name = block_name(g0);
	int rc = 0;
	sb_printf(&r->md, "\n## `%s` (%s) on %s, %ld CPUs%s\n\n", g0->workload, g0->type,
		  g0->host, g0->cpus, g0->emulated ? ", emulated (QEMU TCG)" : "");
	json_t *jb = json_pack("{s:s, s:s, s:s, s:I, s:b, s:[]}", "workload", g0->workload,
			       "type", g0->type, "host", g0->host, "cpus", (json_int_t)g0->cpus,
			       "emulated", g0->emulated, "modes");
	json_array_append_new(jw, jb);
	json_t *jmodes = json_object_get(jb, "modes");
	bool any_samples = false, any_icr = false, any_vec = false, any_irq = false;
	for (size_t k = i; k < end; k++) {
		struct group *g = &d->groups[k];
		any_samples |= g->n > 0;
		any_icr |= g->has_icr || g->has_ipis || g->has_ops;
		any_vec |= g->vectors_runs > 0;
		any_irq |= g->nirqs > 0;
		json_array_append_new(jmodes, group_json(r, k));
		const char *want = ipibench_mode_genapic(g->mode);
		if (want && g->genapic && *g->genapic && strcmp(g->genapic, want))
			sb_printf(&r->md,
				  "**Warning: mode %s ran on genapic `%s`, not `%s`** (Xen overrides "
				  "the mode, e.g. cluster without full interrupt remapping).\n\n",
				  g->mode, g->genapic, want);
		if (g->genapic_mixed)
			sb_printf(&r->md, "**Warning: mode %s reported different genapics across runs.**\n\n",
				  g->mode);
		if (g->path && !strcmp(g->path, "shorthand"))
			sb_printf(&r->md,
				  "Note: mode %s used the ALL-BUT-self shorthand (one ICR write, the same "
				  "IPI in every mode).\n\n", g->mode);
	}
	if (any_samples) {
		sb_printf(&r->md,
			  "Latency per operation (ns):\n\n"
			  "| mode | genapic | runs | n | median | 95%% CI median | mean | p5 | p95 | IQR | "
			  "ratio to %s | 95%% CI ratio | Mann-Whitney p |\n"
			  "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---:|\n",
			  r->baseline);
		for (size_t k = i; k < end; k++) {
			struct group *g = &d->groups[k];
			struct cmp *c = &r->cmp[k];
			struct summary *s = &g->sum;
			char ci[112] = "-", rci[64] = "-", ratio[32] = "-", p[48] = "-";
			if (s->ci_ok)
				snprintf(ci, sizeof(ci), "[%s, %s]", fnum(b[0], s->ci_lo),
					 fnum(b[1], s->ci_hi));
			if (c->ok) {
				snprintf(ratio, sizeof(ratio), "%.3f", c->ratio);
				if (c->ci_ok && !c->is_base)
					snprintf(rci, sizeof(rci), "[%.3f, %.3f]", c->lo, c->hi);
				if (!c->is_base)
					fp(p, c->mw.p);
			}
			sb_printf(&r->md, "| %s | %s | %zu%s | %zu | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				  g->mode, g->genapic ? g->genapic : "-", g->runs_ok,
				  g->runs_failed ? " (+failed)" : "", g->n,
				  fnum(b[2], g->n ? s->median : NAN), ci,
				  fnum(b[3], g->n ? s->mean : NAN), fnum(b[4], g->n ? s->p5 : NAN),
				  fnum(b[5], g->n ? s->p95 : NAN), fnum(b[6], g->n ? s->iqr : NAN),
				  ratio, rci, p);
		}
	}
	if (any_icr || any_vec) {
		sb_puts(&r->md, "\nCounters:\n\n| mode | operations | ICR writes per op | IPIs sent per op | vector capacity |\n"
				"|---|---:|---:|---:|---:|\n");
		for (size_t k = i; k < end; k++) {
			struct group *g = &d->groups[k];
			sb_printf(&r->md, "| %s | %s | %s | %s | %s |\n", g->mode,
				  fnum(b[0], g->has_ops ? g->operations : NAN),
				  fnum(b[1], g->has_icr ? per_op(g, g->icr_writes) : NAN),
				  fnum(b[2], g->has_ipis ? per_op(g, g->ipis_sent) : NAN),
				  fnum(b[3], g->vectors_runs ? g->vectors_sum / (double)g->vectors_runs : NAN));
		}
	}
	if (any_irq) {
		sb_puts(&r->md, "\nInterrupts per CPU (mean per run):\n\n"
				"| mode | total | min (CPU) | max (CPU) | max / mean | per CPU, from CPU 0 |\n"
				"|---|---:|---|---|---:|---|\n");
		for (size_t k = i; k < end; k++) {
			struct group *g = &d->groups[k];
			if (!g->nirqs)
				continue;
			double tot = 0, mn = INFINITY, mxv = -INFINITY;
			size_t imn = 0, imx = 0;
			struct sbuf list = { 0 };
			for (size_t c = 0; c < g->nirqs; c++) {
				double v = g->irqs[c] / (double)g->irq_runs;
				tot += v;
				if (v < mn)
					mn = v, imn = c;
				if (v > mxv)
					mxv = v, imx = c;
				sb_printf(&list, "%s%.0f", c ? " " : "", v);
			}
			double mean = tot / (double)g->nirqs;
			sb_printf(&r->md, "| %s | %.0f | %.0f (%zu) | %.0f (%zu) | %.2f | %s |\n",
				  g->mode, tot, mn, imn, mxv, imx, mean > 0 ? mxv / mean : NAN,
				  list.s);
			sb_free(&list);
		}
	}

	/* Plots of this block. */
	if (any_samples) {
		const char *labels[8];
		double *v[8];
		size_t n[8], k = 0;
		for (size_t j = i; j < end && k < 8; j++)
			if (d->groups[j].n) {
				labels[k] = d->groups[j].mode;
				v[k] = d->groups[j].ns;
				n[k++] = d->groups[j].n;
			}
		char *pn = xasprintf("latency-%s", name);
		char *title = xasprintf("%s (%s), %s, %ld CPUs%s", g0->workload, g0->type,
					g0->host, g0->cpus, g0->emulated ? ", QEMU TCG" : "");
		rc = boxplot(r, pn, title, "latency per operation (ns)", labels, v, n, k);
		if (!rc)
			md_plot(r, pn, "latency per mode");
		json_object_set_new(jb, "plots", json_pack("[s]", pn));
		free(title);
		free(pn);
	}
	if (!rc && any_irq) {
		struct sbuf dat = { 0 }, body = { 0 };
		size_t rows = 0, ncpu = 0;
		sb_puts(&body, "set ytics (");
		for (size_t j = i; j < end; j++)
			if (d->groups[j].nirqs > ncpu)
				ncpu = d->groups[j].nirqs;
		sb_printf(&dat, "# interrupts per CPU (mean per run): one column per CPU, one row per mode:");
		for (size_t j = i; j < end; j++)
			if (d->groups[j].nirqs)
				sb_printf(&dat, " %s", d->groups[j].mode);
		sb_puts(&dat, "\n");
		for (size_t j = i; j < end; j++) {
			struct group *g = &d->groups[j];
			if (!g->nirqs)
				continue;
			for (size_t c = 0; c < ncpu; c++)
				sb_printf(&dat, "%s%.17g", c ? " " : "",
					  c < g->nirqs ? g->irqs[c] / (double)g->irq_runs : 0.0);
			sb_puts(&dat, "\n");
			char *qm = gp_quote(g->mode);
			sb_printf(&body, "%s%s %zu", rows ? ", " : "", qm, rows);
			free(qm);
			rows++;
		}
		char *pn = xasprintf("irqs-%s", name);
		char *title = xasprintf("%s: interrupts per CPU, %s, %ld CPUs", g0->workload,
					g0->host, g0->cpus);
		char *t = gp_quote(title), *df = gp_datafile(pn);
		sb_printf(&body,
			  ")\nset title %s\nset xlabel 'CPU'\nset cblabel 'interrupts per run'\n"
			  "set palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#ef6548', 3 '#7f0000')\n"
			  "set cbrange [0:*]\nset xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\n"
			  "set tics out\nunset grid\n"
			  "plot %s matrix with image notitle\n",
			  t, ncpu - 1, rows - 1, df);
		free(df);
		rc = plot_render(r->out, pn, dat.s, body.s, 900, 120 + 60 * (int)rows, r->err);
		if (!rc) {
			r->nplots++;
			md_plot(r, pn, "interrupts per CPU");
		}
		free(t);
		free(title);
		free(pn);
		sb_free(&dat);
		sb_free(&body);
	}
	free(name);
	return rc;
}

/* Bar charts over the workloads of one host and CPU count. */
static int counter_chart(struct report *r, const char *kind)
{
	struct dataset *d = &r->d;
	bool icr = !strcmp(kind, "icr");
	/* distinct (host, cpus) pairs */
	for (size_t i = 0; i < d->ngroups; i++) {
		struct group *gi = &d->groups[i];
		bool first = true;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(d->groups[j].host, gi->host) && d->groups[j].cpus == gi->cpus)
				first = false;
		if (!first)
			continue;
		const char *modes[8];
		size_t nm = 0;
		for (size_t j = 0; j < d->ngroups; j++) {
			struct group *g = &d->groups[j];
			bool has = icr ? g->has_icr && g->has_ops : g->vectors_runs > 0;
			if (!has || strcmp(g->host, gi->host) || g->cpus != gi->cpus)
				continue;
			size_t m = 0;
			while (m < nm && strcmp(modes[m], g->mode))
				m++;
			if (m == nm && nm < 8)
				modes[nm++] = g->mode;
		}
		if (!nm)
			continue;
		/* keep physical, cluster, mixed order */
		for (size_t a = 0; a < nm; a++)
			for (size_t b2 = a + 1; b2 < nm; b2++)
				if (mode_rank(modes[b2]) < mode_rank(modes[a])) {
					const char *t = modes[a];
					modes[a] = modes[b2];
					modes[b2] = t;
				}
		struct sbuf dat = { 0 }, body = { 0 };
		sb_puts(&dat, "workload");
		for (size_t m = 0; m < nm; m++)
			sb_printf(&dat, " %s", modes[m]);
		sb_puts(&dat, "\n");
		size_t rows = 0;
		for (size_t j = 0; j < d->ngroups; j = block_end(d, j)) {
			size_t end = block_end(d, j);
			struct group *g0 = &d->groups[j];
			if (strcmp(g0->host, gi->host) || g0->cpus != gi->cpus)
				continue;
			bool any = false;
			struct sbuf row = { 0 };
			char *wn = slugify(g0->workload);
			sb_puts(&row, wn);
			free(wn);
			for (size_t m = 0; m < nm; m++) {
				struct group *g = block_mode(d, j, end, modes[m]);
				double v = NAN;
				if (g && icr && g->has_icr && g->has_ops)
					v = per_op(g, g->icr_writes);
				else if (g && !icr && g->vectors_runs)
					v = g->vectors_sum / (double)g->vectors_runs;
				any |= !isnan(v);
				if (isnan(v))
					sb_puts(&row, " -");
				else
					sb_printf(&row, " %.17g", v);
			}
			if (any) {
				sb_printf(&dat, "%s\n", row.s);
				rows++;
			}
			sb_free(&row);
		}
		char *raw = xasprintf("%s-%s-%ldcpu", icr ? "icr" : "vectors", gi->host, gi->cpus);
		char *pn = slugify(raw);
		free(raw);
		char *title = xasprintf("%s, %s, %ld CPUs", icr ? "ICR writes per operation" :
					"vector capacity", gi->host, gi->cpus);
		char *t = gp_quote(title), *df = gp_datafile(pn);
		char *yl = gp_quote(icr ? "ICR writes per operation" : "vectors that fit");
		sb_printf(&body,
			  "set title %s\nset ylabel %s\nset datafile missing '-'\n"
			  "set style data histograms\nset style histogram clustered gap 1\n"
			  "set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
			  "set yrange [0:*]\nset key top right\nset xtics nomirror\n"
			  "plot for [c=2:%zu] %s using c:xtic(1) title columnheader(c)\n",
			  t, yl, nm + 1, df);
		free(df);
		free(yl);
		int rc = plot_render(r->out, pn, dat.s, body.s, 800, 450, r->err);
		if (!rc) {
			r->nplots++;
			sb_printf(&r->md, "\n## %s per mode, %s, %ld CPUs\n", icr ?
				  "ICR writes per operation" : "Vector capacity", gi->host, gi->cpus);
			md_plot(r, pn, icr ? "ICR writes per operation" : "vector capacity");
		}
		(void)rows;
		free(t);
		free(title);
		free(pn);
		sb_free(&dat);
		sb_free(&body);
		if (rc)
			return rc;
	}
	return 0;
}

/* Latency against CPU count, per host and workload, when >1 CPU count. */
static int section_sweep(struct report *r)
{
	struct dataset *d = &r->d;
	json_t *js = json_array();
	json_object_set_new(r->json, "sweeps", js);
	for (size_t i = 0; i < d->ngroups;) {
		size_t end = i;	/* same host + workload (groups are sorted) */
		size_t ncpus = 0;
		long last = -1;
		while (end < d->ngroups && !strcmp(d->groups[end].host, d->groups[i].host) &&
		       !strcmp(d->groups[end].workload, d->groups[i].workload)) {
			if (d->groups[end].n && d->groups[end].cpus != last) {
				ncpus++;
				last = d->groups[end].cpus;
			}
			end++;
		}
		if (ncpus < 2) {
			i = end;
			continue;
		}
		struct group *g0 = &d->groups[i];
		const char *modes[8];
		size_t nm = 0;
		for (size_t k = i; k < end; k++) {
			size_t m = 0;
			while (m < nm && strcmp(modes[m], d->groups[k].mode))
				m++;
			if (m == nm && nm < 8 && d->groups[k].n)
				modes[nm++] = d->groups[k].mode;
		}
		for (size_t a = 0; a < nm; a++)
			for (size_t b2 = a + 1; b2 < nm; b2++)
				if (mode_rank(modes[b2]) < mode_rank(modes[a])) {
					const char *t = modes[a];
					modes[a] = modes[b2];
					modes[b2] = t;
				}
		sb_printf(&r->md, "\n## Latency against CPU count: `%s` on %s\n\nMedian ns per operation:\n\n| CPUs |",
			  g0->workload, g0->host);
		for (size_t m = 0; m < nm; m++)
			sb_printf(&r->md, " %s |", modes[m]);
		for (size_t m = 0; m < nm; m++)
			if (strcmp(modes[m], r->baseline))
				sb_printf(&r->md, " %s / %s |", modes[m], r->baseline);
		sb_puts(&r->md, "\n|---:|");
		for (size_t m = 0; m < 2 * nm; m++)
			sb_puts(&r->md, m < nm || strcmp(modes[m - nm], r->baseline) ? "---:|" : "");
		sb_puts(&r->md, "\n");
		struct sbuf dat = { 0 }, body = { 0 };
		sb_puts(&dat, "# cpus, then per mode: median ci_lo ci_hi ('-' = missing):");
		for (size_t m = 0; m < nm; m++)
			sb_printf(&dat, " %s", modes[m]);
		sb_puts(&dat, "\n");
		json_t *jpts = json_array();
		json_array_append_new(js, json_pack("{s:s, s:s, s:o}", "workload", g0->workload,
						    "host", g0->host, "points", jpts));
		for (size_t k = i; k < end; k = block_end(d, k)) {
			size_t be = block_end(d, k);
			struct group *gb = &d->groups[k];
			sb_printf(&r->md, "| %ld |", gb->cpus);
			sb_printf(&dat, "%ld", gb->cpus);
			json_t *jp = json_pack("{s:I}", "cpus", (json_int_t)gb->cpus);
			char b[48];
			for (size_t m = 0; m < nm; m++) {
				struct group *g = block_mode(d, k, be, modes[m]);
				bool have = g && g->n;
				sb_printf(&r->md, " %s |", fnum(b, have ? g->sum.median : NAN));
				if (have && g->sum.ci_ok)
					sb_printf(&dat, " %.17g %.17g %.17g", g->sum.median,
						  g->sum.ci_lo, g->sum.ci_hi);
				else if (have)
					sb_printf(&dat, " %.17g %.17g %.17g", g->sum.median,
						  g->sum.median, g->sum.median);
				else
					sb_puts(&dat, " - - -");
				json_object_set_new(jp, modes[m], jreal(have ? g->sum.median : NAN));
			}
			for (size_t m = 0; m < nm; m++) {
				if (!strcmp(modes[m], r->baseline))
					continue;
				struct group *g = block_mode(d, k, be, modes[m]);
				struct cmp *c = g ? &r->cmp[g - d->groups] : NULL;
				if (c && c->ok)
					sb_printf(&r->md, " %.3f |", c->ratio);
				else
					sb_puts(&r->md, " - |");
			}
			sb_puts(&r->md, "\n");
			sb_puts(&dat, "\n");
			json_array_append_new(jpts, jp);
		}
		char *raw = xasprintf("sweep-%s-%s", g0->host, g0->workload);
		char *pn = slugify(raw);
		free(raw);
		char *title = xasprintf("%s (%s), %s: median latency vs CPUs, 95%% CI",
					g0->workload, g0->type, g0->host);
		char *t = gp_quote(title);
		sb_printf(&body,
			  "set title %s\nset xlabel 'CPUs'\nset ylabel 'median latency per operation (ns)'\n"
			  "set datafile missing '-'\nset key top left\nset pointsize 1\n"
			  "set offsets graph 0.05, graph 0.05, 0, 0\nplot ", t);
		char *df = gp_datafile(pn);
		for (size_t m = 0; m < nm; m++) {
			char *qm = gp_quote(modes[m]);
			sb_printf(&body, "%s%s using 1:%zu:%zu:%zu with yerrorlines title %s",
				  m ? ", \\\n     " : "", df, 2 + 3 * m, 3 + 3 * m, 4 + 3 * m, qm);
			free(qm);
		}
		free(df);
		sb_puts(&body, "\n");
		int rc = plot_render(r->out, pn, dat.s, body.s, 800, 500, r->err);
		if (!rc) {
			r->nplots++;
			md_plot(r, pn, "latency against CPU count");
		}
		free(t);
		free(title);
		free(pn);
		sb_free(&dat);
		sb_free(&body);
		if (rc)
			return rc;
		i = end;
	}
	return 0;
}

static int section_hyperfine(struct report *r)
{
	struct dataset *d = &r->d;
	json_t *jh = json_array();
	json_object_set_new(r->json, "hyperfine", jh);
	char b[8][48];
	for (size_t f = 0; f < d->nhf; f++) {
		struct hf_file *h = &d->hf[f];
		char *mp = md_text(h->path);
		sb_printf(&r->md, "\n## hyperfine: %s\n\nSeconds per run; ratio and Mann-Whitney against the first command.\n\n"
				  "| command | runs | mean | stddev | median | 95%% CI median | min | max | ratio to first | 95%% CI ratio | Mann-Whitney p |\n"
				  "|---|---:|---:|---:|---:|---|---:|---:|---:|---|---:|\n", mp);
		free(mp);
		json_t *jcmds = json_array();
		json_array_append_new(jh, json_pack("{s:s, s:o}", "path", h->path, "commands", jcmds));
		for (size_t k = 0; k < h->n; k++) {
			struct hf_cmd *c = &h->cmds[k], *c0 = &h->cmds[0];
			struct summary s;
			stats_summary(c->times, c->n, &s);
			char ci[112] = "-", ratio[32] = "-", rci[64] = "-", p[48] = "-";
			double lo = NAN, hi = NAN;
			struct mannwhitney mw = { .p = NAN };
			if (s.ci_ok)
				snprintf(ci, sizeof(ci), "[%.4g, %.4g]", s.ci_lo, s.ci_hi);
			if (k && c->n && c0->n) {
				snprintf(ratio, sizeof(ratio), "%.3f", c->median / c0->median);
				if (!stats_ratio_ci(c->times, c->n, c0->times, c0->n,
						    AN_BOOT_RESAMPLES, AN_BOOT_SEED, 0.95, &lo, &hi))
					snprintf(rci, sizeof(rci), "[%.3f, %.3f]", lo, hi);
				stats_mann_whitney(c->times, c->n, c0->times, c0->n, &mw);
				fp(p, mw.p);
			}
			char *mc = md_code(c->command);
			sb_printf(&r->md, "| %s | %zu | %.4g | %.4g | %.4g | %s | %.4g | %.4g | %s | %s | %s |\n",
				  mc, c->n, c->mean, c->stddev, c->median, ci, c->min,
				  c->max, ratio, rci, p);
			free(mc);
			(void)b;
			json_array_append_new(jcmds, json_pack(
				"{s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
				"command", c->command, "runs", (json_int_t)c->n,
				"mean", jreal(c->mean), "stddev", jreal(c->stddev),
				"median", jreal(c->median), "min", jreal(c->min),
				"max", jreal(c->max),
				"median_ci95", s.ci_ok ? json_pack("[f, f]", s.ci_lo, s.ci_hi) : json_null(),
				"ratio_to_first", k ? jreal(c->median / c0->median) : json_real(1.0),
				"mann_whitney_p", jreal(mw.p)));
		}
		/* box plot of the times */
		const char *labels[16];
		double *v[16];
		size_t n[16], k = 0;
		char *lab[16];
		for (size_t j = 0; j < h->n && k < 16; j++)
			if (h->cmds[j].n) {
				lab[k] = xasprintf("%zu", j + 1);
				labels[k] = lab[k];
				v[k] = h->cmds[j].times;
				n[k++] = h->cmds[j].n;
			}
		if (k) {
			const char *base = strrchr(h->path, '/');
			char *raw = xasprintf("hyperfine-%zu-%s", f + 1, base ? base + 1 : h->path);
			char *pn = slugify(raw);
			free(raw);
			char *title = xasprintf("hyperfine %s: seconds per run (boxes numbered as the table rows)",
						base ? base + 1 : h->path);
			int rc = boxplot(r, pn, title, "seconds", labels, v, n, k);
			if (!rc)
				md_plot(r, pn, "hyperfine times");
			free(title);
			free(pn);
			for (size_t j = 0; j < k; j++)
				free(lab[j]);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static void section_perf(struct report *r)
{
	struct dataset *d = &r->d;
	json_t *jp = json_array();
	json_object_set_new(r->json, "perf_stat", jp);
	for (size_t f = 0; f < d->nperf; f++) {
		struct perf_file *p = &d->perf[f];
		char *mp = md_text(p->path);
		sb_printf(&r->md, "\n## perf stat: %s\n\n| event | value | unit | variance | counter run %% | metric |\n"
				  "|---|---:|---|---:|---:|---|\n", mp);
		free(mp);
		json_t *rows = json_array();
		json_array_append_new(jp, json_pack("{s:s, s:o}", "path", p->path, "events", rows));
		for (size_t k = 0; k < p->n; k++) {
			struct perf_row *x = &p->rows[k];
			/* the value is a number or <not counted>/<not supported>
			 * (checked when read); the rest is free text */
			char *me = md_text(x->event), *mu = md_text(x->unit),
			     *mv = md_text(x->variance), *mpc = md_text(x->pct),
			     *mm = md_text(x->metric), *mmu = md_text(x->metric_unit);
			sb_printf(&r->md, "| %s | %s | %s | %s | %s | %s%s%s |\n", me, x->value,
				  mu, mv, mpc, mm, *x->metric ? " " : "", mmu);
			free(me), free(mu), free(mv), free(mpc), free(mm), free(mmu);
			char *end;
			double v = strtod(x->value, &end);
			json_array_append_new(rows, json_pack(
				"{s:s, s:o, s:s, s:s, s:s, s:s, s:s}", "event", x->event,
				"value", end != x->value ? json_real(v) : json_null(),
				"raw_value", x->value, "unit", x->unit, "variance", x->variance,
				"metric", x->metric, "metric_unit", x->metric_unit));
		}
	}
}

static void section_failed(struct report *r)
{
	struct dataset *d = &r->d;
	json_t *jf = json_array();
	json_object_set_new(r->json, "failed_runs", jf);
	if (!d->nfailed)
		return;
	sb_puts(&r->md, "\n## Failed runs (left out of the statistics)\n\n| results | run | mode | error |\n|---|---|---|---|\n");
	for (size_t i = 0; i < d->nfailed; i++) {
		struct failed_run *f = &d->failed[i];
		char *mp = md_text(f->set_path), *mi = md_text(f->id), *mm = md_text(f->mode),
		     *me = md_text(f->error);
		sb_printf(&r->md, "| %s | %s | %s | %s |\n", mp, mi, mm, me);
		free(mp), free(mi), free(mm), free(me);
		json_array_append_new(jf, json_pack("{s:s, s:s, s:s, s:s}", "results", f->set_path,
						    "run", f->id, "mode", f->mode, "error", f->error));
	}
}

static int write_outputs(struct report *r)
{
	char *p = xasprintf("%s/report.md", r->out);
	int rc = sio_write_file(p, r->md.s, r->md.len, 0644, r->err, AN_ERRLEN);
	free(p);
	if (rc)
		return rc;
	char *js = json_dumps(r->json, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
	p = xasprintf("%s/report.json", r->out);
	struct sbuf b = { 0 };
	sb_printf(&b, "%s\n", js);
	rc = sio_write_file(p, b.s, b.len, 0644, r->err, AN_ERRLEN);
	sb_free(&b);
	free(js);
	free(p);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "reference", required_argument, NULL, 'r' },
		{ "no-reference", no_argument, NULL, 'R' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report r = { .out = "report", .baseline = "physical" };
	const char *reference = NULL;
	bool no_ref = false;
	int c;
	an_quiet = false;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:b:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': r.out = optarg; break;
		case 'b': r.baseline = optarg; break;
		case 'r': reference = optarg; break;
		case 'R': no_ref = true; break;
		case 'q': an_quiet = true; break;
		case 'h': fputs(report_help, stdout); return 0;
		default:
			fprintf(stderr, "ipibench report: unknown option or missing argument '%s'; see 'ipibench report --help'\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "ipibench report: no input; usage: ipibench report INPUT... [-o OUT]\n");
		return 2;
	}
	int rc = 1;
	if (plot_check(r.err))
		goto fail;
	for (int i = optind; i < argc; i++)
		if (dataset_add(&r.d, argv[i], r.err))
			goto fail;
	if (!no_ref) {
		int lr = reference_load(reference, &r.ref, r.err);
		if (lr < 0)
			goto fail;
		r.have_ref = lr == 0;
	}
	dataset_finish(&r.d);
	if (r.d.ngroups)	/* qsort(NULL, 0) is undefined */
		qsort(r.d.groups, r.d.ngroups, sizeof(*r.d.groups), cmp_groups);
	if (mkdir_p(r.out, r.err))
		goto fail;
	compare_all(&r);
	r.json = json_pack("{s:i, s:s}", "schema_version", 1, "generator", "ipibench report");
	section_inputs(&r);
	if (!no_ref)
		section_seed(&r);
	json_t *jw = json_array();
	json_object_set_new(r.json, "workloads", jw);
	size_t nblocks = 0, bi = 0;
	for (size_t i = 0; i < r.d.ngroups; i = block_end(&r.d, i))
		nblocks++;
	for (size_t i = 0; i < r.d.ngroups; i = block_end(&r.d, i)) {
		progress("report: workload %zu/%zu: %s on %s, %ld CPUs", ++bi, nblocks,
			 r.d.groups[i].workload, r.d.groups[i].host, r.d.groups[i].cpus);
		if (section_block(&r, i, block_end(&r.d, i), jw))
			goto fail;
	}
	if (counter_chart(&r, "icr") || counter_chart(&r, "vectors") ||
	    section_sweep(&r) || section_hyperfine(&r))
		goto fail;
	section_perf(&r);
	section_failed(&r);
	if (write_outputs(&r))
		goto fail;
	fwrite(r.md.s, 1, r.md.len, stdout);
	fflush(stdout);
	progress("report: wrote %s/report.md, report.json and %zu plots (PNG + SVG)", r.out,
		 r.nplots);
	rc = 0;
	goto out;
fail:
	an_error("report", r.err);
out:
	json_decref(r.json);
	free(r.cmp);
	sb_free(&r.md);
	reference_free(&r.ref);
	dataset_free(&r.d);
	return rc;
}
