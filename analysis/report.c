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
#include "analysis/compare.h"
#include "analysis/internal.h"

struct report {
	const char *out, *baseline;
	struct dataset d;
	struct reference ref, ref_ms;	/* seed-96cpu.json, seed-512cpu.json */
	bool have_ref, have_ref_ms;
	struct sbuf md;
	json_t *json;
	size_t nplots;
	char err[AN_ERRLEN];
};

static const char report_help[] =
	"usage: ipibench report INPUT... [-o OUT] [--baseline MODE] [--reference FILE]\n"
	"                       [--ministat-reference FILE]\n"
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
	"      --ministat-reference FILE\n"
	"                        the seed's ministat table shown beside the measured one\n"
	"                        (default: results/reference/seed-512cpu.json)\n"
	"      --no-reference    leave the seed reproduction section out\n"
	"  -q, --quiet           no progress on stderr\n"
	"  -h, --help            this help\n"
	"\n"
	"Writes OUT/report.md (also printed), OUT/report.json, and for each plot\n"
	"OUT/NAME.png, NAME.svg with the NAME.gp script and NAME.dat data that\n"
	"drew them (re-run with `cd OUT && gnuplot NAME.gp`).  Needs gnuplot.\n"
	"\n"
	"Statistics (each says its unit: calls, loops, boots, pairs, runs):\n"
	"  per-call latency  descriptive only (median, p5/p95, IQR; quantiles by\n"
	"                 linear interpolation, R type 7): calls of one boot are not\n"
	"                 independent observations of a mode, no test uses them\n"
	"  between modes  ministat (N Min Max Median Avg Stddev, Student's t at 95%,\n"
	"                 as Debian's ministat prints it; Welch's t where an F test\n"
	"                 finds the variances differ) on run-level samples: boots\n"
	"                 when every mode has >= 2 (mean of each boot's loops), else\n"
	"                 the timed loops of one boot, said to be such\n"
	"  paired senders loop pairs within one boot: paired t on B - A\n"
	"  hyperfine      runs of each command against the first; perf stat:\n"
	"                 repeated files of one name stem, per event\n"
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
	return mode_cmp(x->mode, y->mode);
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
		  "\nMethod: every statistic says its unit. **Per-call latency** (ns per "
		  "operation, all ok runs of a workload x mode pooled) is descriptive only: "
		  "median, p5/p95 and IQR (quantiles interpolate linearly, R type 7); calls "
		  "of one boot are not independent observations of a mode, so no test or "
		  "interval uses them. **Comparisons** between modes use run-level samples "
		  "in ministat's format (Student's t at 95%%, computed as Debian's ministat "
		  "does; Welch's t where an F test finds the variances differ): boots when "
		  "every mode has two or more (a boot's value is the mean of its timed "
		  "loops), else the timed loops of one boot, which cannot tell a mode from "
		  "a boot. Paired sender workloads compare loop pairs within one boot. The "
		  "baseline is %s.\n", r->baseline);
	json_object_set_new(r->json, "method", json_pack(
		"{s:s, s:s, s:s, s:s, s:s}",
		"per_call", "descriptive only: median, p5, p95, q1, q3 (R type 7); no tests",
		"comparison", "ministat: Student's t 95% (Debian ministat 20150715), Welch's t when an F test (two-sided, 5%) finds the variances differ",
		"unit", "boots when every mode has >= 2 (per-boot mean of its loops), else loops of one boot",
		"paired", "loop pairs within one boot: paired t on B - A",
		"baseline", r->baseline));
}

/* ---- the seed reproduction ----------------------------------------------- */
struct seed_modes {
	struct group *g[3];	/* physical, cluster, mixed */
};
static const char *const seed_names[3] = { "physical", "cluster", "mixed" };

static void seed_intro(struct report *r, json_t *js)
{
	struct reference *ref = &r->ref;
	char *mt = md_text(ref->title), *ms = md_text(ref->source), *mp = md_code(ref->path),
	     *mq = md_text(ref->quote);
	sb_printf(&r->md, "Reference: %s. Source: %s, %s:\n\n> %s\n\n", mt, ms, mp, mq);
	free(mt), free(ms), free(mp), free(mq);
	json_object_set_new(js, "reference", json_pack(
		"{s:s, s:s, s:I, s:I, s:b, s:{s:f, s:f}, s:{s:f, s:f}, s:f, s:{s:f, s:f}, s:s}",
		"path", ref->path, "source", ref->source, "calls", (json_int_t)ref->calls,
		"cpus", (json_int_t)ref->cpus, "emulated", ref->emulated,
		"total_ns", "physical", ref->total_ns_physical, "mixed", ref->total_ns_mixed,
		"ns_per_call", "physical", ref->total_ns_physical / (double)ref->calls,
		"mixed", ref->total_ns_mixed / (double)ref->calls,
		"ratio_physical_over_mixed", ref->total_ns_physical / ref->total_ns_mixed,
		"expected_icr_writes_per_call", "physical", ref->icr_expected_physical,
		"mixed", ref->icr_expected_mixed, "note", ref->icr_note));
}

static void seed_notes(struct report *r, const struct group *g0, const struct seed_modes *sm)
{
	const struct reference *ref = &r->ref;
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
	const struct group *ph = sm->g[0], *mx = sm->g[2];
	if ((ph && ph->path && !strcmp(ph->path, "shorthand")) ||
	    (mx && mx->path && !strcmp(mx->path, "shorthand")))
		sb_puts(&r->md,
			"Xen used the ALL-BUT-self shorthand here: physical and mixed send the "
			"very same IPI (one ICR write), so no difference is expected.\n\n");
}

/* The averages table: reference and measured ns per call, totals, ratio,
 * ICR writes.  Per-call figures are descriptive (no interval). */
static void seed_table(struct report *r, const struct group *g0,
		       const struct seed_modes *sm, json_t *jm)
{
	const struct reference *ref = &r->ref;
	char b1[48], b2[48];
	double rp[3] = { ref->total_ns_physical / (double)ref->calls, NAN,
			 ref->total_ns_mixed / (double)ref->calls };
	double ref_ratio = ref->total_ns_physical / ref->total_ns_mixed;
	sb_printf(&r->md, "| figure | reference (%ld CPUs, %s) | measured (%ld CPUs, %s) |\n"
			  "|---|---:|---:|\n", ref->cpus, ref->emulated ? "emulated" : "hardware",
		  g0->cpus, g0->emulated ? "QEMU TCG" : "hardware");
	json_t *jpc = json_object(), *jtot = json_object(), *jmed = json_object(),
	       *jicr = json_object();
	double mean[3], icr[3];
	for (int k = 0; k < 3; k++) {
		const struct group *g = sm->g[k];
		mean[k] = g && g->n ? g->sum.mean : NAN;
		sb_printf(&r->md, "| %s, ns per call (mean of calls) | %s | %s |\n", seed_names[k],
			  fix2(b1, rp[k]), fix2(b2, mean[k]));
		json_object_set_new(jpc, seed_names[k], jreal(mean[k]));
		json_object_set_new(jmed, seed_names[k], jreal(g && g->n ? g->sum.median : NAN));
		json_object_set_new(jtot, seed_names[k], jreal(mean[k] * (double)ref->calls));
	}
	for (int k = 0; k < 3; k++)
		sb_printf(&r->md, "| %s, ns per call (median of calls) | - | %s |\n", seed_names[k],
			  fix2(b2, sm->g[k] && sm->g[k]->n ? sm->g[k]->sum.median : NAN));
	for (int k = 0; k < 3; k++)
		sb_printf(&r->md, "| %s, total for %ld calls (ns; mean x %ld) | %s | %s |\n",
			  seed_names[k], ref->calls, ref->calls,
			  fnum(b1, rp[k] * (double)ref->calls),
			  fnum(b2, mean[k] * (double)ref->calls));
	double ratio_mean = mean[0] / mean[2];
	sb_printf(&r->md, "| ratio physical / mixed (means) | %.3f | %s |\n", ref_ratio,
		  isnan(ratio_mean) ? "-" : (snprintf(b1, 48, "%.3f", ratio_mean), b1));
	for (int k = 0; k < 3; k++) {
		const struct group *g = sm->g[k];
		icr[k] = g && g->has_icr ? per_op(g, g->icr_writes) : NAN;
		double exp = k == 0 ? ref->icr_expected_physical :
			     k == 2 ? ref->icr_expected_mixed : NAN;
		char eb[64];
		if (isnan(exp) || exp <= 0)
			snprintf(eb, sizeof(eb), "-");
		else
			snprintf(eb, sizeof(eb), "%.0f (derived, not measured)", exp);
		sb_printf(&r->md, "| %s, ICR writes per call | %s | %s |\n", seed_names[k], eb,
			  fnum(b2, icr[k]));
		json_object_set_new(jicr, seed_names[k], jreal(icr[k]));
	}
	sb_puts(&r->md, "\n");
	if (!isnan(ratio_mean))
		sb_printf(&r->md,
			  "Mixed is %s than physical by %.1f%% of physical's mean time per call "
			  "(reference: %.1f%% faster); a description of these calls, not a test "
			  "(see the run-level comparison).",
			  ratio_mean >= 1.0 ? "faster" : "slower",
			  fabs(1.0 - 1.0 / ratio_mean) * 100.0, (1.0 - 1.0 / ref_ratio) * 100.0);
	if (!isnan(icr[0]) && !isnan(icr[2]))
		sb_printf(&r->md,
			  " It writes the ICR %.2f times per call against %.2f in physical "
			  "mode (%.2f fewer writes per call): cluster addressing reaches up to "
			  "16 CPUs with one write.", icr[2], icr[0], icr[0] - icr[2]);
	sb_puts(&r->md, "\n\n");
	json_object_set_new(jm, "ns_per_call_mean", jpc);
	json_object_set_new(jm, "ns_per_call_median", jmed);
	json_object_set_new(jm, "total_ns_for_calls", jtot);
	json_object_set_new(jm, "ratio_physical_over_mixed_mean", jreal(ratio_mean));
	json_object_set_new(jm, "icr_writes_per_call", jicr);
}

/* The seed's ministat table (reference) and the measured one, in the
 * reference's row order and unit (ns for its calls per loop). */
static void seed_ministat(struct report *r, const struct group *g0,
			  const struct seed_modes *sm, json_t *jm)
{
	const struct reference *rm = &r->ref_ms;
	if (!r->have_ref_ms || !rm->nms)
		return;
	char *mt = md_text(rm->title), *mu = md_text(rm->ms_unit), *mb = md_text(rm->ms_printed_by);
	sb_printf(&r->md, "ministat, reference (%s; %ld CPUs, %s; %s; printed by %s):\n\n",
		  mt, rm->cpus, rm->emulated ? "emulated" : "hardware", mu, mb);
	free(mt), free(mu), free(mb);
	const char *names[REF_MS_MAX];
	for (size_t i = 0; i < rm->nms; i++)
		names[i] = rm->ms_mode[i];
	json_t *jref = cmp_ms_block(&r->md, names, rm->ms, rm->nms, MS_FREEBSD, false);
	/* measured rows, same order */
	struct group *gs[REF_MS_MAX];
	size_t k = 0;
	for (size_t i = 0; i < rm->nms; i++)
		for (int m = 0; m < 3; m++)
			if (sm->g[m] && !strcmp(seed_names[m], rm->ms_mode[i]))
				gs[k++] = sm->g[m];
	enum rl_unit u = runlevel_unit(gs, k);
	json_t *jmeas = json_object();
	json_object_set_new(jmeas, "unit", json_string(rl_unit_name(u)));
	sb_printf(&r->md, "\nministat, measured (%ld CPUs, %s): ", g0->cpus,
		  g0->emulated ? "**emulated, QEMU TCG**" : "hardware");
	if (u == RL_NONE || k < 2) {
		sb_puts(&r->md, "no run-level sample (no timed loops and fewer than 2 boots "
				"per mode): nothing to set beside the reference.\n\n");
	} else {
		sb_printf(&r->md, "unit: %s, ns per call x %ld (ns for %ld calls)%s.\n\n",
			  u != RL_BOOTS ? "timed loops of one boot per mode" :
			  runlevel_mode_loops(gs[0]) ? "boots (per-boot mean of its loops)" :
			  "boots (per-boot mean of its calls: no loop timings)", rm->calls, rm->calls,
			  u == RL_LOOPS ? "; **one boot per mode: boot-to-boot variance is "
			  "unknown, so a difference between modes cannot be told from a "
			  "difference between boots**" : "");
		struct ms_vitals v[REF_MS_MAX];
		const char *mn[REF_MS_MAX];
		size_t m = 0;
		for (size_t i = 0; i < k; i++) {
			size_t n;
			double *x = runlevel_sample(gs[i], u, &n);
			if (!x)
				continue;
			for (size_t j = 0; j < n; j++)
				x[j] *= (double)rm->calls;
			ms_vitals(x, n, &v[m]);
			mn[m++] = gs[i]->mode;
			free(x);
		}
		json_object_set_new(jmeas, "rows", cmp_ms_block(&r->md, mn, v, m, MS_DEBIAN, true));
		sb_puts(&r->md, "\n");
	}
	json_object_set_new(jm, "ministat", json_pack("{s:s, s:o, s:o}", "reference_path",
						      rm->path, "reference", jref,
						      "measured", jmeas));
}

static void section_seed(struct report *r)
{
	struct dataset *d = &r->d;
	struct reference *ref = &r->ref;
	sb_puts(&r->md, "\n## Seed reproduction\n\n");
	json_t *js = json_object();
	json_object_set_new(r->json, "seed", js);
	if (!r->have_ref) {
		sb_puts(&r->md, "Reference figures not found (results/reference/seed-96cpu.json; "
				"use --reference FILE).\n");
		return;
	}
	seed_intro(r, js);
	json_t *meas = json_array();
	json_object_set_new(js, "measured", meas);
	size_t shown = 0;
	for (size_t i = 0; i < d->ngroups; i = block_end(d, i)) {
		size_t end = block_end(d, i);
		struct group *g0 = &d->groups[i];
		if (strcmp(g0->type, ref->workload_type))
			continue;
		struct seed_modes sm;
		for (int k = 0; k < 3; k++)
			sm.g[k] = block_mode(d, i, end, seed_names[k]);
		shown++;
		sb_printf(&r->md, "### `%s` on %s, %ld CPUs\n\n", g0->workload, g0->host,
			  g0->cpus);
		seed_notes(r, g0, &sm);
		json_t *jm = json_pack("{s:s, s:s, s:I, s:b, s:s}", "workload", g0->workload,
				       "host", g0->host, "cpus", (json_int_t)g0->cpus,
				       "emulated", g0->emulated,
				       "path", sm.g[0] && sm.g[0]->path ? sm.g[0]->path : "");
		seed_table(r, g0, &sm, jm);
		seed_ministat(r, g0, &sm, jm);
		json_array_append_new(meas, jm);
	}
	if (!shown)
		sb_printf(&r->md,
			  "No `%s` workload in the inputs: run configs/seed-96cpu.ini to compare "
			  "with the reference (%ld calls on %ld CPUs: physical %.2f ns, mixed "
			  "%.2f ns per call, ratio %.3f).\n",
			  ref->workload_type, ref->calls, ref->cpus,
			  ref->total_ns_physical / (double)ref->calls,
			  ref->total_ns_mixed / (double)ref->calls,
			  ref->total_ns_physical / ref->total_ns_mixed);
}

/* ---- one block: a workload on a host with a CPU count -------------------- */
static json_t *group_json(struct report *r, size_t gi)
{
	struct group *g = &r->d.groups[gi];
	json_t *o = json_pack("{s:s, s:s, s:b, s:s, s:I, s:I, s:I, s:I}",
			      "mode", g->mode, "genapic", g->genapic ? g->genapic : "",
			      "genapic_differs_between_runs", g->genapic_mixed,
			      "path", g->path ? g->path : "",
			      "runs_ok", (json_int_t)g->runs_ok,
			      "runs_failed", (json_int_t)g->runs_failed,
			      "n", (json_int_t)g->n,
			      "loops", (json_int_t)runlevel_mode_loops(g));
	if (g->n) {
		struct summary *s = &g->sum;
		json_object_set_new(o, "latency_ns", json_pack(
			"{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			"unit", g->runs_ok > 1 ? "per-call latency, boots pooled (descriptive)" :
						 "per-call latency, one boot (descriptive)",
			"median", jreal(s->median), "mean", jreal(s->mean),
			"sd", jreal(s->sd), "min", jreal(s->min), "max", jreal(s->max),
			"p5", jreal(s->p5), "p95", jreal(s->p95), "q1", jreal(s->q1),
			"q3", jreal(s->q3), "iqr", jreal(s->iqr)));
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

struct block_has {
	bool samples, icr, vec, irq, runlevel, pairs;
};

/* Mode JSON, warnings about the genapic and the send path; what exists. */
static struct block_has block_warnings(struct report *r, size_t i, size_t end,
				       json_t *jmodes)
{
	struct dataset *d = &r->d;
	struct block_has h = { 0 };
	for (size_t k = i; k < end; k++) {
		struct group *g = &d->groups[k];
		h.samples |= g->n > 0;
		h.icr |= g->has_icr || g->has_ipis || g->has_ops;
		h.vec |= g->vectors_runs > 0;
		h.irq |= g->nirqs > 0;
		h.runlevel |= runlevel_mode_loops(g) > 0 || g->n > 0;
		for (size_t rr = 0; rr < g->nrr; rr++)
			for (size_t l = 0; l < g->rr[rr].nloops; l++)
				h.pairs |= g->rr[rr].loops[l].pair >= 0;
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
	return h;
}

/* Per-call latency: a description of the calls, no test, no interval. */
static void block_latency(struct report *r, size_t i, size_t end)
{
	struct dataset *d = &r->d;
	char b[8][48];
	size_t maxruns = 0;
	for (size_t k = i; k < end; k++)
		maxruns = d->groups[k].runs_ok > maxruns ? d->groups[k].runs_ok : maxruns;
	sb_printf(&r->md,
		  "Per-call latency, %s (ns per operation; descriptive: the calls of a boot "
		  "are not independent observations of a mode, so no test uses them):\n\n"
		  "| mode | genapic | runs | calls | median | p5 | p95 | IQR | mean |\n"
		  "|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
		  maxruns > 1 ? "boots pooled" : "one boot");
	for (size_t k = i; k < end; k++) {
		struct group *g = &d->groups[k];
		struct summary *s = &g->sum;
		sb_printf(&r->md, "| %s | %s | %zu%s | %zu | %s | %s | %s | %s | %s |\n",
			  g->mode, g->genapic ? g->genapic : "-", g->runs_ok,
			  g->runs_failed ? " (+failed)" : "", g->n,
			  fnum(b[0], g->n ? s->median : NAN), fnum(b[1], g->n ? s->p5 : NAN),
			  fnum(b[2], g->n ? s->p95 : NAN), fnum(b[3], g->n ? s->iqr : NAN),
			  fnum(b[4], g->n ? s->mean : NAN));
	}
}

/* Run-level comparison between modes (baseline first) and paired senders. */
static void block_compare(struct report *r, size_t i, size_t end, json_t *jb,
			  const struct block_has *h)
{
	struct dataset *d = &r->d;
	struct group *gs[REF_MS_MAX];
	size_t k = 0;
	struct group *base = block_mode(d, i, end, r->baseline);
	if (base && (base->n || runlevel_mode_loops(base)))
		gs[k++] = base;
	for (size_t j = i; j < end && k < REF_MS_MAX; j++) {
		struct group *g = &d->groups[j];
		if (g != base && (g->n || runlevel_mode_loops(g)))
			gs[k++] = g;
	}
	if (h->runlevel && k)
		json_object_set_new(jb, "comparison", cmp_block_modes(&r->md, gs, k));
	if (h->pairs) {
		struct group *all[REF_MS_MAX];
		size_t n = 0;
		for (size_t j = i; j < end && n < REF_MS_MAX; j++)
			all[n++] = &d->groups[j];
		json_object_set_new(jb, "paired", cmp_block_paired(&r->md, all, n));
	}
}

static void block_counters(struct report *r, size_t i, size_t end)
{
	struct dataset *d = &r->d;
	char b[8][48];
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

static void block_irqs(struct report *r, size_t i, size_t end)
{
	struct dataset *d = &r->d;
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

static int plot_latency(struct report *r, size_t i, size_t end, const char *name,
			json_t *jb)
{
	struct dataset *d = &r->d;
	struct group *g0 = &d->groups[i];
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
	char *title = xasprintf("%s (%s), %s, %ld CPUs%s: per-call latency", g0->workload,
				g0->type, g0->host, g0->cpus, g0->emulated ? ", QEMU TCG" : "");
	int rc = boxplot(r, pn, title, "latency per operation (ns)", labels, v, n, k);
	if (!rc)
		md_plot(r, pn, "per-call latency per mode");
	json_object_set_new(jb, "plots", json_pack("[s]", pn));
	free(title);
	free(pn);
	return rc;
}

static int plot_irqs(struct report *r, size_t i, size_t end, const char *name)
{
	struct dataset *d = &r->d;
	struct group *g0 = &d->groups[i];
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
	int rc = plot_render(r->out, pn, dat.s, body.s, 900, 120 + 60 * (int)rows, r->err);
	if (!rc) {
		r->nplots++;
		md_plot(r, pn, "interrupts per CPU");
	}
	free(t);
	free(title);
	free(pn);
	sb_free(&dat);
	sb_free(&body);
	return rc;
}

static int section_block(struct report *r, size_t i, size_t end, json_t *jw)
{
	struct group *g0 = &r->d.groups[i];
	sb_printf(&r->md, "\n## `%s` (%s) on %s, %ld CPUs%s\n\n", g0->workload, g0->type,
		  g0->host, g0->cpus, g0->emulated ? ", emulated (QEMU TCG)" : "");
	json_t *jb = json_pack("{s:s, s:s, s:s, s:I, s:b, s:[]}", "workload", g0->workload,
			       "type", g0->type, "host", g0->host, "cpus", (json_int_t)g0->cpus,
			       "emulated", g0->emulated, "modes");
	json_array_append_new(jw, jb);
	struct block_has h = block_warnings(r, i, end, json_object_get(jb, "modes"));
	if (h.samples)
		block_latency(r, i, end);
	block_compare(r, i, end, jb, &h);
	if (h.icr || h.vec)
		block_counters(r, i, end);
	if (h.irq)
		block_irqs(r, i, end);
	char *name = block_name(g0);
	int rc = 0;
	if (h.samples)
		rc = plot_latency(r, i, end, name, jb);
	if (!rc && h.irq)
		rc = plot_irqs(r, i, end, name);
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
				if (ipibench_mode_index(modes[b2]) < ipibench_mode_index(modes[a])) {
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
				if (ipibench_mode_index(modes[b2]) < ipibench_mode_index(modes[a])) {
					const char *t = modes[a];
					modes[a] = modes[b2];
					modes[b2] = t;
				}
		sb_printf(&r->md, "\n## Latency against CPU count: `%s` on %s\n\nMedian per-call latency "
				  "(ns per operation; descriptive, bars in the plot: IQR):\n\n| CPUs |",
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
		sb_puts(&dat, "# cpus, then per mode: median q1 q3 of per-call latency ('-' = missing):");
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
				if (have)
					sb_printf(&dat, " %.17g %.17g %.17g", g->sum.median,
						  g->sum.q1, g->sum.q3);
				else
					sb_puts(&dat, " - - -");
				json_object_set_new(jp, modes[m], jreal(have ? g->sum.median : NAN));
			}
			for (size_t m = 0; m < nm; m++) {
				if (!strcmp(modes[m], r->baseline))
					continue;
				struct group *g = block_mode(d, k, be, modes[m]);
				struct group *gb0 = block_mode(d, k, be, r->baseline);
				if (g && gb0 && g->n && gb0->n)
					sb_printf(&r->md, " %.3f |", g->sum.median / gb0->sum.median);
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
		char *title = xasprintf("%s (%s), %s: median per-call latency vs CPUs (bars: IQR)",
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
	for (size_t f = 0; f < d->nhf; f++) {
		struct hf_file *h = &d->hf[f];
		char *mp = md_text(h->path);
		sb_printf(&r->md, "\n## hyperfine: %s\n\nSeconds per run (hyperfine's own figures):\n\n"
				  "| # | command | runs | mean | stddev | median | min | max |\n"
				  "|---:|---|---:|---:|---:|---:|---:|---:|\n", mp);
		free(mp);
		json_t *jcmds = json_array();
		for (size_t k = 0; k < h->n; k++) {
			struct hf_cmd *c = &h->cmds[k], *c0 = &h->cmds[0];
			char *mc = md_code(c->command);
			sb_printf(&r->md, "| %zu | %s | %zu | %.4g | %.4g | %.4g | %.4g | %.4g |\n",
				  k + 1, mc, c->n, c->mean, c->stddev, c->median, c->min,
				  c->max);
			free(mc);
			json_array_append_new(jcmds, json_pack(
				"{s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o}",
				"command", c->command, "runs", (json_int_t)c->n,
				"mean", jreal(c->mean), "stddev", jreal(c->stddev),
				"median", jreal(c->median), "min", jreal(c->min),
				"max", jreal(c->max),
				"ratio_to_first", k ? jreal(c->mean / c0->mean) : json_real(1.0)));
		}
		json_t *jms = cmp_hyperfine(&r->md, h);
		json_array_append_new(jh, json_pack("{s:s, s:o, s:s, s:o}", "path", h->path,
						    "commands", jcmds, "unit", "hyperfine runs",
						    "ministat", jms));
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
	json_object_set_new(r->json, "perf_stat_repeated", cmp_perf(&r->md, d->perf, d->nperf));
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
		{ "ministat-reference", required_argument, NULL, 'M' },
		{ "no-reference", no_argument, NULL, 'R' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report r = { .out = "report", .baseline = "physical" };
	const char *reference = NULL, *ms_reference = NULL;
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
		case 'M': ms_reference = optarg; break;
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
		lr = reference_load_ministat(ms_reference, &r.ref_ms, r.err);
		if (lr < 0)
			goto fail;
		r.have_ref_ms = lr == 0;
	}
	dataset_finish(&r.d);
	if (r.d.ngroups)	/* qsort(NULL, 0) is undefined */
		qsort(r.d.groups, r.d.ngroups, sizeof(*r.d.groups), cmp_groups);
	if (mkdir_p(r.out, r.err))
		goto fail;
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
	sb_free(&r.md);
	reference_free(&r.ref);
	reference_free(&r.ref_ms);
	dataset_free(&r.d);
	return rc;
}
