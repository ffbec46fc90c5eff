/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/report.c: `ipibench report INPUT... [-o OUT]` (the inputs and
 * options: report_usage() below).
 *
 * Pools every ok run of each workload x mode (per host and CPU count) from
 * the inputs, computes the model once (report_model.c, report.h), then
 * renders it: the plots (report_plots.c: PNG + SVG, scripts and data
 * kept), OUT/report.md by render_md() and OUT/report.json by
 * render_json(), both here; cmd_report() also writes report.md to stdout.
 * Sections, in render_md()'s order: inputs and method, the layout, the
 * seed reproduction, one per workload block, the builds compared, the ICR
 * and vector charts, the CPU sweeps, hyperfine and perf stat inputs, the
 * guests, failed runs.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipibench/counters.h"
#include "ipibench/modes.h"
#include "lib/opts.h"
#include "lib/safeio.h"
#include "analysis/analysis.h"
#include "analysis/compare.h"
#include "analysis/internal.h"
#include "analysis/report.h"
#include "probes/trace.h"

const struct opts_synopsis report_synopsis = {
	"ipibench report", "statistics, comparison tables and plots of result directories",
	"INPUT... [-o DIR] [--baseline MODE] [--reference FILE]\n"
	"         [--ministat-reference FILE] [--guest-reference FILE]\n"
	"         [--no-reference] [-q]", 1,
};

static const char report_help[] =
	"\n"
	"Statistics, comparison tables and plots of ipibench results.\n"
	"INPUT is a results directory (its results.json plus any hyperfine JSON or\n"
	"perf stat CSV next to it) or a file, detected by content: results.json,\n"
	"hyperfine --export-json output, or `perf stat -x,` output.  A sweep's or\n"
	"a build axis's directory is read whole (its cN/ or xen-LABEL/ result\n"
	"sets).  Several directories merge (e.g. one per CPU count: a CPU sweep).\n"
	"\n"
	"options:\n";

static const char report_help_tail[] =
	"\n"
	"Writes DIR/report.md (also printed; --summary prints its headline\n"
	"instead), DIR/report.json, and for each plot\n"
	"DIR/NAME.png, NAME.svg with the NAME.gp script and NAME.dat data that\n"
	"drew them (re-run with `cd DIR && gnuplot NAME.gp`).  Without gnuplot\n"
	"the plots are not drawn (their NAME.gp and NAME.dat are written) and one\n"
	"line says so; IPIBENCH_GNUPLOT names another gnuplot, which must be there.\n"
	"Each send-to-receive timeline drawn from a trace comes with the trace's\n"
	"export for Perfetto's UI, DIR/NAME.perfetto.json (`ipibench trace export\n"
	"--format chrome`), when the trace is at most 32 MiB (unpacked;\n"
	"IPIBENCH_REPORT_EXPORT_MAX sets another limit in bytes); a larger one\n"
	"gets the command that writes it.\n"
	"\n"
	"Statistics (each says its unit: calls, loops, boots, pairs, runs):\n"
	"  per-call latency  descriptive only (median, p5/p95, IQR; quantiles by\n"
	"                 linear interpolation, R type 7): calls of one boot are not\n"
	"                 independent observations of a mode, no test uses them\n"
	"  between modes  ministat's vitals (N Min Max Median Avg Stddev) on run-\n"
	"                 level samples: boots when every mode has >= 2 (mean of each\n"
	"                 boot's loops), verdict by Welch's t at 95%, the percentage\n"
	"                 with Fieller's interval of the ratio and ministat's own\n"
	"                 line beside it; else the timed loops of one boot, shown\n"
	"                 with \"no verdict: one boot per mode\"\n"
	"  paired senders loop pairs within one boot: paired t on B - A, Fieller's\n"
	"                 interval of B / A\n"
	"  hyperfine      runs of each command against the first; perf stat:\n"
	"                 repeated files of one name stem, per event\n"
	"  guest runs     results' guest_runs[] (an HVM guest's IPI path and its\n"
	"                 traces, read like `ipibench trace summary`): IPIs sent,\n"
	"                 exits and injections per IPI and per interrupt, evtchn\n"
	"                 beside apic and beside the seed's seed-004.json profiles:\n"
	"                 exact counts of an emulated host, not times\n"
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

/* A model's JSON (kept by the model: a new reference). */
static int cmp_groups(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c;
	if ((c = strcmp(x->host, y->host)))
		return c;
	if ((c = strcmp(x->topo, y->topo)))
		return c;
	if ((c = strcmp(x->workload, y->workload)))
		return c;
	if (x->cpus != y->cpus)
		return x->cpus < y->cpus ? -1 : 1;
	if ((c = strcmp(x->build, y->build)))
		return c;
	return mode_cmp(x->mode, y->mode);
}

static void md_plot(struct sbuf *md, const char *name, const char *what)
{
	if (plot_undrawn_ok)
		sb_printf(md, "\n(%s: not drawn, gnuplot is not installed; `gnuplot %s.gp` "
			  "here draws it from [its script](%s.gp) and data)\n", what, name, name);
	else
		sb_printf(md, "\n![%s](%s.png) ([SVG](%s.svg), [script](%s.gp))\n",
			  what, name, name, name);
}

/* "## Preflight": what ipibench run's check of a real host warned about
 * before the runs (results.json host.preflight; runner/hostcheck.h). */
static void preflight_render_md(const json_t *pf, struct sbuf *md)
{
	size_t i, k;
	json_t *set, *w;

	if (!json_array_size(pf))
		return;
	sb_puts(md, "\n## Preflight\n\nWhat `ipibench run` found on the host before the first run "
		"(`ipibench host check` says the same); a warning bounds what the figures above "
		"can show:\n\n");
	json_array_foreach(pf, i, set) {
		char *mh = md_text(json_string_value(json_object_get(set, "host")));
		char *mp = md_text(json_string_value(json_object_get(set, "path")));
		sb_printf(md, "Host %s (%s):\n\n", mh, mp);
		free(mh), free(mp);
		json_array_foreach(json_object_get(set, "warnings"), k, w) {
			const char *where = json_string_value(json_object_get(w, "where"));
			const char *fix = json_string_value(json_object_get(w, "fix"));
			char *mw = md_text(where), *mt = md_text(json_string_value(json_object_get(w, "text")));
			char *mf = md_text(fix);
			sb_printf(md, "- %s%s%s%s%s%s\n", *where ? mw : "", *where ? ": " : "", mt,
				  *fix ? " (fix: " : "", *fix ? mf : "", *fix ? ")" : "");
			free(mw), free(mt), free(mf);
		}
		sb_puts(md, "\n");
	}
}

/* ==== report.md ============================================================ */
/* ---- inputs and method ---------------------------------------------------- */
static void section_inputs(const struct report *r, struct sbuf *md)
{
	const struct dataset *d = &r->d;
	sb_puts(md, "# ipibench report\n\n## Inputs\n\n");
	if (d->nsets) {
		sb_puts(md, "| results | host | backend | CPUs | emulated | Xen | commit | created | runs ok | failed |\n"
			    "|---|---|---|---:|---|---|---|---|---:|---:|\n");
	}
	for (size_t i = 0; i < d->nsets; i++) {
		const struct resultset *s = &d->sets[i];
		char *mp = md_text(s->path), *mh = md_text(s->host_name),
		     *mb = md_text(s->backend), *mx = md_text(s->xen_version),
		     *mc = md_text(s->commit), *mt = md_text(s->created);
		sb_printf(md, "| %s | %s | %s | %ld | %s | %s | %s | %s | %zu | %zu |\n",
			  mp, mh, mb, s->cpus,
			  s->emulated ? "**yes (QEMU TCG)**" : "no", mx,
			  mc, mt, s->runs_ok, s->runs_failed);
		free(mp), free(mh), free(mb), free(mx), free(mc), free(mt);
	}
	for (size_t i = 0; i < d->nhf; i++) {
		char *mp = md_text(d->hf[i].path);
		sb_printf(md, "%s- hyperfine: %s\n", i ? "" : "\n", mp);
		free(mp);
	}
	for (size_t i = 0; i < d->nperf; i++) {
		char *mp = md_text(d->perf[i].path);
		sb_printf(md, "%s- perf stat: %s\n", i || d->nhf ? "" : "\n", mp);
		free(mp);
	}
	if (r->plots_left_out)
		sb_printf(md, "\n**%zu plots left out**: one report draws at most %d (the first "
			  "in this report's order); the tables below have every figure.\n",
			  r->plots_left_out, AN_MAX_PLOTS);
	sb_printf(md,
		  "\nMethod: every statistic says its unit. **Per-call latency** (ns per "
		  "operation, all ok runs of a workload x mode pooled) is descriptive only: "
		  "median, p5/p95 and IQR (quantiles interpolate linearly, R type 7); calls "
		  "of one boot are not independent observations of a mode, so no test or "
		  "interval uses them. **Comparisons** between modes use run-level samples "
		  "in ministat's format: boots when every mode has two or more (a boot's "
		  "value is the mean of its timed loops), judged by %s at 95%% (declared) "
		  "with Fieller's interval of the ratio (ministat's Student's t line beside it); "
		  "else the timed loops of one boot, which cannot tell a mode from a boot: "
		  "they are shown with \"no verdict: one boot per mode\". Paired sender "
		  "workloads compare loop pairs within one boot (paired t). The "
		  "baseline is %s.\n", ms_test_name(r->test), r->baseline);
	hoststate_render_md(r->host_state, md);
	preflight_render_md(r->preflight, md);
}

/* ---- the seed reproduction -------------------------------------------------- */
/* A mode's name with a capital ("Mixed"), for the start of a sentence. */
static const char *mode_title(char *b, size_t mode)
{
	snprintf(b, 48, "%s", ipibench_mode_name(mode));
	b[0] = (char)toupper((unsigned char)b[0]);
	return b;
}

static void seed_notes(const struct report *r, const struct rseed *s, struct sbuf *md)
{
	const struct reference *ref = &r->ref;
	const struct group *g0 = s->b->g0;
	if (g0->emulated)
		sb_printf(md,
			  "**This host was emulated (QEMU TCG): absolute times are about "
			  "1000x slower than on hardware. Compare the ratios, not the "
			  "times.** ICR write counts are exact either way.\n\n");
	if (g0->cpus != ref->cpus)
		sb_printf(md,
			  "Measured on %ld CPUs, the reference on %ld: physical mode's ICR "
			  "writes per call grow with the CPU count, so the ratio is expected "
			  "to differ.\n\n", g0->cpus, ref->cpus);
	if (s->shorthand)
		sb_printf(md,
			  "Xen used the ALL-BUT-self shorthand here: %s and %s send the "
			  "very same IPI (one ICR write), so no difference is expected.\n\n",
			  ipibench_mode_name(ref->ratio_a), ipibench_mode_name(ref->ratio_b));
}

/* The sentence under the averages table (descriptive: no interval). */
static void seed_summary(const struct report *r, const struct rseed *s, struct sbuf *md)
{
	const struct reference *ref = &r->ref;
	size_t a = ref->ratio_a, b = ref->ratio_b;
	const char *na = ipibench_mode_name(a);
	char tb[48];
	if (!isnan(s->ratio_mean))
		sb_printf(md,
			  "%s is %s than %s by %.1f%% of %s's mean time per call "
			  "(reference: %.1f%% faster); a description of these calls, not a test "
			  "(see the run-level comparison).", mode_title(tb, b),
			  s->ratio_mean >= 1.0 ? "faster" : "slower", na,
			  fabs(1.0 - 1.0 / s->ratio_mean) * 100.0, na,
			  (1.0 - 1.0 / s->ref_ratio) * 100.0);
	if (!isnan(s->icr[a]) && !isnan(s->icr[b]))
		sb_printf(md,
			  " It writes the ICR %.2f times per call against %.2f in %s "
			  "mode (%.2f fewer writes per call): cluster addressing reaches up to "
			  "16 CPUs with one write.", s->icr[b], s->icr[a], na, s->icr[a] - s->icr[b]);
	sb_puts(md, "\n\n");
}

/* The averages table: reference and measured ns per call, totals, ratio,
 * ICR writes, one row per mode of modes.h. */
static void seed_table(const struct report *r, const struct rseed *s, struct sbuf *md)
{
	const struct reference *ref = &r->ref;
	const struct group *g0 = s->b->g0;
	char b1[48], b2[48];
	sb_printf(md, "| figure | reference (%ld CPUs, %s) | measured (%ld CPUs, %s) |\n"
		      "|---|---:|---:|\n", ref->cpus, ref->emulated ? "emulated" : "hardware",
		  g0->cpus, g0->emulated ? "QEMU TCG" : "hardware");
	for (size_t k = 0; k < IPIBENCH_NMODES; k++)
		sb_printf(md, "| %s, ns per call (mean of calls) | %s | %s |\n",
			  ipibench_mode_name(k), an_fixed(b1, 2, s->ref_ns[k]), an_fixed(b2, 2, s->mean[k]));
	for (size_t k = 0; k < IPIBENCH_NMODES; k++)
		sb_printf(md, "| %s, ns per call (median of calls) | - | %s |\n",
			  ipibench_mode_name(k), an_fixed(b2, 2, s->median[k]));
	for (size_t k = 0; k < IPIBENCH_NMODES; k++)
		sb_printf(md, "| %s, total for %ld calls (ns; mean x %ld) | %s | %s |\n",
			  ipibench_mode_name(k), ref->calls, ref->calls,
			  fnum(b1, s->ref_ns[k] * (double)ref->calls),
			  fnum(b2, s->mean[k] * (double)ref->calls));
	sb_printf(md, "| ratio %s / %s (means) | %.3f | %s |\n", ipibench_mode_name(ref->ratio_a),
		  ipibench_mode_name(ref->ratio_b), s->ref_ratio,
		  isnan(s->ratio_mean) ? "-" : (snprintf(b1, 48, "%.3f", s->ratio_mean), b1));
	for (size_t k = 0; k < IPIBENCH_NMODES; k++) {
		double exp = ref->total_ns[k] > 0 ? ref->icr_expected[k] : NAN;
		char eb[64];
		if (isnan(exp) || exp <= 0)
			snprintf(eb, sizeof(eb), "-");
		else
			snprintf(eb, sizeof(eb), "%.0f (derived, not measured)", exp);
		sb_printf(md, "| %s, ICR writes per call | %s | %s |\n", ipibench_mode_name(k), eb,
			  fnum(b2, s->icr[k]));
	}
	sb_puts(md, "\n");
	seed_summary(r, s, md);
}

/* The seed's ministat table (reference) and the measured one. */
static void seed_ministat(const struct report *r, const struct rseed *s, struct sbuf *md)
{
	const struct reference *rm = &r->ref_ms;
	const struct group *g0 = s->b->g0;
	if (!s->ministat)
		return;
	char *mt = md_text(rm->title), *mu = md_text(rm->ms_unit), *mb = md_text(rm->ms_printed_by);
	sb_printf(md, "ministat, reference (%s; %ld CPUs, %s; %s; printed by %s):\n\n",
		  mt, rm->cpus, rm->emulated ? "emulated" : "hardware", mu, mb);
	free(mt), free(mu), free(mb);
	cmp_ms_md(md, &s->ms_ref);
	sb_printf(md, "\nministat, measured (%ld CPUs, %s): ", g0->cpus,
		  g0->emulated ? "**emulated, QEMU TCG**" : "hardware");
	if (!s->has_meas) {
		sb_puts(md, "no run-level sample (no timed loops and fewer than 2 boots "
			    "per mode): nothing to set beside the reference.\n\n");
		return;
	}
	sb_printf(md, "unit: %s, ns per call x %ld (ns for %ld calls)%s.\n\n",
		  s->ms_unit_text, rm->calls, rm->calls,
		  s->ms_unit == RL_LOOPS ? "; **one boot per mode: boot-to-boot variance is "
		  "unknown, so a difference between modes cannot be told from a "
		  "difference between boots**" : "");
	cmp_ms_md(md, &s->ms_meas);
	sb_puts(md, "\n");
}

static void section_seed(const struct report *r, struct sbuf *md)
{
	const struct reference *ref = &r->ref;
	sb_puts(md, "\n## Seed reproduction\n\n");
	if (!r->have_ref) {
		sb_puts(md, "Reference figures not found (results/reference/seed-96cpu.json; "
			    "use --reference FILE).\n");
		return;
	}
	char *mt = md_text(ref->title), *ms = md_text(ref->source), *mp = md_code(ref->path),
	     *mq = md_text(ref->quote);
	sb_printf(md, "Reference: %s. Source: %s, %s:\n\n> %s\n\n", mt, ms, mp, mq);
	free(mt), free(ms), free(mp), free(mq);
	for (size_t i = 0; i < r->nseeds; i++) {
		const struct rseed *s = &r->seeds[i];
		const struct group *g0 = s->b->g0;
		sb_printf(md, "### `%s` on %s, %ld CPUs\n\n", g0->workload, g0->host, g0->cpus);
		seed_notes(r, s, md);
		seed_table(r, s, md);
		seed_ministat(r, s, md);
	}
	if (!r->nseeds)
		sb_printf(md,
			  "No `%s` workload in the inputs: run configs/seed-96cpu.ini to compare "
			  "with the reference (%ld calls on %ld CPUs: %s %.2f ns, %s "
			  "%.2f ns per call, ratio %.3f).\n",
			  ref->workload_type, ref->calls, ref->cpus,
			  ipibench_mode_name(ref->ratio_a),
			  ref->total_ns[ref->ratio_a] / (double)ref->calls,
			  ipibench_mode_name(ref->ratio_b),
			  ref->total_ns[ref->ratio_b] / (double)ref->calls,
			  ref->total_ns[ref->ratio_a] / ref->total_ns[ref->ratio_b]);
}

/* ---- one block: a workload on a host with a CPU count --------------------- */
/* Warnings about the genapic and the send path. */
static void block_warnings(const struct rblock *b, struct sbuf *md)
{
	for (size_t k = 0; k < b->end - b->first; k++) {
		const struct rmode *m = &b->modes[k];
		const struct group *g = m->g;
		if (m->genapic_wrong)
			sb_printf(md,
				  "**Warning: mode %s ran on genapic `%s`, not `%s`** (Xen overrides "
				  "the mode, e.g. cluster without full interrupt remapping).\n\n",
				  g->mode, g->genapic, m->want);
		if (g->genapic_mixed)
			sb_printf(md, "**Warning: mode %s reported different genapics across runs.**\n\n",
				  g->mode);
		if (m->shorthand)
			sb_printf(md,
				  "Note: mode %s used the ALL-BUT-self shorthand (one ICR write, the same "
				  "IPI in every mode).\n\n", g->mode);
	}
}

/* Per-call latency: a description of the calls, no test, no interval. */
static void block_latency(const struct rblock *b, struct sbuf *md)
{
	char bf[8][48];
	sb_printf(md,
		  "Per-call latency, %s (ns per operation; descriptive: the calls of a boot "
		  "are not independent observations of a mode, so no test uses them):\n\n"
		  "| mode | genapic | runs | calls | median | p5 | p95 | IQR | mean |\n"
		  "|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
		  b->maxruns > 1 ? "boots pooled" : "one boot");
	for (size_t k = 0; k < b->end - b->first; k++) {
		const struct group *g = b->modes[k].g;
		const struct summary *s = &g->sum;
		sb_printf(md, "| %s | %s | %zu%s | %zu | %s | %s | %s | %s | %s |\n",
			  g->mode, g->genapic ? g->genapic : "-", g->runs_ok,
			  g->runs_failed ? " (+failed)" : "", g->n,
			  fnum(bf[0], g->n ? s->median : NAN), fnum(bf[1], g->n ? s->p5 : NAN),
			  fnum(bf[2], g->n ? s->p95 : NAN), fnum(bf[3], g->n ? s->iqr : NAN),
			  fnum(bf[4], g->n ? s->mean : NAN));
	}
}

static void block_counters(const struct rblock *b, struct sbuf *md)
{
	char bf[8][48];
	/* the columns' headers are the counters' rows' (ipibench/counters.h) */
	sb_printf(md, "\nCounters:\n\n| mode | %s | %s | %s | %s |\n|---|---:|---:|---:|---:|\n",
		  ipb_counter(IPB_C_OPERATIONS)->header, ipb_counter(IPB_C_ICR_WRITES)->header,
		  ipb_counter(IPB_C_IPIS_SENT)->header, ipb_counter(IPB_C_VECTORS)->header);
	for (size_t k = 0; k < b->end - b->first; k++) {
		const struct rmode *m = &b->modes[k];
		sb_printf(md, "| %s | %s | %s | %s | %s |\n", m->g->mode, fnum(bf[0], m->ops),
			  fnum(bf[1], m->icr_per_op), fnum(bf[2], m->ipis_per_op),
			  fnum(bf[3], m->vectors));
	}
}

/* Instructions per operation from the TCG plugin (tcgplug/): exact counts. */
static void block_insns(const struct rblock *b, struct sbuf *md)
{
	char bf[6][48];
	size_t bad = 0;

	sb_printf(md, "\n%s (QEMU TCG plugin, exact; the wait spins, so its count depends on "
		  "time):\n\n| mode | runs | %s | %s | %s | %s | %s |\n|---|---:|---:|---:|---:|---:|---:|\n",
		  ipb_field(IPB_F_WL_INSN_COUNTS)->header, ipb_insn(IPB_I_SEND_INSNS_PER_OP)->header,
		  ipb_insn(IPB_I_WAIT_INSNS_PER_OP)->header, ipb_insn(IPB_I_HANDLER_INSNS_MEAN)->header,
		  ipb_insn(IPB_I_HANDLER_INSNS_MAX)->header, ipb_insn(IPB_I_ICR_WRITES)->header);
	for (size_t k = 0; k < b->end - b->first; k++) {
		const struct insn_sums *ic = &b->modes[k].g->ic;
		double ops = ic->ops > 0 ? ic->ops : NAN, h = ic->handlers > 0 ? ic->handlers : NAN;

		if (!ic->runs)
			continue;
		bad += ic->mismatches;
		sb_printf(md, "| %s | %zu | %s | %s | %s | %s | %s |\n", b->modes[k].g->mode, ic->runs,
			  fnum(bf[0], ic->send / ops), fnum(bf[1], ic->wait / ops),
			  fnum(bf[2], ic->handler_insns / h), fnum(bf[3], ic->handler_max),
			  fnum(bf[4], ic->icr / ops));
	}
	if (bad)
		sb_printf(md, "\n**%zu run%s where the plugin's ICR writes differ from the "
			  "hypervisor's**: its windows missed or added a send.\n", bad, bad == 1 ? "" : "s");
}

static void block_irqs(const struct rblock *b, struct sbuf *md)
{
	sb_puts(md, "\nInterrupts per CPU (mean per run):\n\n"
		    "| mode | total | min (CPU) | max (CPU) | max / mean | per CPU, from CPU 0 |\n"
		    "|---|---:|---|---|---:|---|\n");
	for (size_t k = 0; k < b->end - b->first; k++) {
		const struct rmode *m = &b->modes[k];
		if (!m->g->nirqs)
			continue;
		struct sbuf list = { 0 };
		for (size_t c = 0; c < m->g->nirqs; c++)
			sb_printf(&list, "%s%.0f", c ? " " : "", m->irqs[c]);
		/* max / mean of a row of zeros is 0/0: said, not "nan" */
		char peak[48];
		if (isnan(m->irq_peak))
			snprintf(peak, sizeof(peak), "- (no interrupts)");
		else
			an_fixed(peak, 2, m->irq_peak);
		sb_printf(md, "| %s | %.0f | %.0f (%zu) | %.0f (%zu) | %s | %s |\n",
			  m->g->mode, m->irq_total, m->irq_min, m->irq_imin, m->irq_max,
			  m->irq_imax, peak, list.s);
		sb_free(&list);
	}
}

/* A link target: every byte but [A-Za-z0-9._~/-] percent-encoded. */
static char *link_target(const char *s)
{
	struct sbuf b = { 0 };
	sb_puts(&b, "");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("._~/-", c))
			sb_printf(&b, "%c", c);
		else
			sb_printf(&b, "%%%02X", c);
	}
	return b.s;
}

/* T's export in Markdown: the link to it, the command that would write it
 * (over the size limit), or "-" (refused, or not drawn). */
static char *timeline_export_md(const struct rtl *t)
{
	if (t->export_link) {
		char *l = link_target(t->export_link), *n = md_text(t->export_link);
		char *s = xasprintf("[%s](%s)", n, l);
		free(l);
		free(n);
		return s;
	}
	if (t->export_cmd) {
		char *c = md_code(t->export_cmd);
		char *s = xasprintf("over the report's export limit: %s writes it", c);
		free(c);
		return s;
	}
	return xstrdup("-");
}

/* The send-to-receive timelines (report_timeline.c): a row per mode with a
 * trace, its plot, the link to the trace's export the report wrote. */
static void block_timelines(const struct rblock *b, struct sbuf *md)
{
	char b1[48], b2[48], b3[48];
	if (!b->ntl)
		return;
	sb_puts(md, "\nSend-to-receive timeline (one operation per mode from the run's trace: "
		    "of the operations of its widest send with a receive from every destination, "
		    "the one whose first-ICR-write-to-last-receive latency is the median):\n\n"
		    "| mode | trace | operations | destinations | send to last receive: median "
		    "(shown) | min | max | export |\n|---|---|---:|---:|---:|---:|---:|---|\n");
	for (size_t i = 0; i < b->ntl; i++) {
		const struct rtl *t = &b->tl[i];
		char *tr = md_code(t->g->trace);
		if (t->warn) {
			char *w = md_text(t->warn);
			sb_printf(md, "| %s | %s | no timeline: %s | | | | | |\n", t->g->mode, tr, w);
			free(w);
		} else {
			char *ex = timeline_export_md(t);
			sb_printf(md, "| %s | %s | %zu%s | %u (%s, vector 0x%02x, %u ICR writes) | "
				  "%s | %s | %s | %s |\n", t->g->mode, tr, t->nops,
				  t->ops_capped ? " (of the first 1048576)" : "", t->dests, t->trmode,
				  t->vec, t->icr, tl_time(b1, sizeof(b1), t, t->median),
				  tl_time(b2, sizeof(b2), t, t->min), tl_time(b3, sizeof(b3), t, t->max),
				  ex);
			free(ex);
		}
		free(tr);
	}
	for (size_t i = 0; i < b->ntl; i++)
		if (b->tl[i].plot) {
			const struct rtl *t = &b->tl[i];
			char *what = xasprintf("send-to-receive timeline, %s", t->g->mode);
			md_plot(md, t->plot, what);
			free(what);
			if (t->export_link || t->export_cmd) {
				char *ex = timeline_export_md(t);
				sb_printf(md, "\nEvery operation of the trace, for Perfetto's UI "
					  "(<https://ui.perfetto.dev>, \"Open trace file\"): %s\n", ex);
				free(ex);
			}
		}
}

static void section_block(const struct rblock *b, struct sbuf *md)
{
	const struct group *g0 = b->g0;
	char *build = g0->build[0] ? md_code(g0->build) : NULL;
	char *topo = b->topo ? md_code(b->topo) : NULL;
	sb_printf(md, "\n## `%s` (%s) on %s%s%s, %ld CPUs%s%s%s\n\n", g0->workload, g0->type,
		  g0->host, topo ? ", topology " : "", topo ? topo : "", g0->cpus,
		  g0->emulated ? ", emulated (QEMU TCG)" : "",
		  build ? ", Xen build " : "", build ? build : "");
	free(build);
	free(topo);
	block_warnings(b, md);
	if (b->has.samples)
		block_latency(b, md);
	cmp_modes_md(md, &b->cmp);
	cmp_paired_md(md, &b->paired);
	if (b->has.icr || b->has.vec)
		block_counters(b, md);
	for (size_t k = 0; k < b->end - b->first; k++)
		if (b->modes[k].g->ic.runs) {
			block_insns(b, md);
			break;
		}
	if (b->has.irq)
		block_irqs(b, md);
	if (b->latency_plot)
		md_plot(md, b->latency_plot, "per-call latency per mode");
	if (b->irqs_plot)
		md_plot(md, b->irqs_plot, "interrupts per CPU");
	block_timelines(b, md);
}

/* ---- over blocks ------------------------------------------------------------- */
static void section_charts(const struct report *r, struct sbuf *md)
{
	for (size_t i = 0; i < r->ncharts; i++) {
		const struct rchart *c = &r->charts[i];
		sb_printf(md, "\n## %s per mode, %s, %ld CPUs\n", c->icr ?
			  "ICR writes per operation" : "Vector capacity", c->host, c->cpus);
		if (c->plot)
			md_plot(md, c->plot, c->icr ? "ICR writes per operation" : "vector capacity");
		if (c->paired)
			sb_puts(md, "\nA paired workload (`senders = A, B`) is one group per send "
				"routine, `WORKLOAD/ROUTINE`: that routine's own ICR writes per "
				"operation (`counters_by_sender`).\n");
		if (c->left_out) {
			char *l = md_text(c->left_out);
			sb_printf(md, "\nNot drawn: %s.\n", l);
			free(l);
		}
	}
}

/* One row per CPU count; per series the ICR writes per operation measured
 * / what the layout implies, and the time per operation; then each
 * non-baseline series against its topology's baseline mode. */
static void sweep_table(const struct report *r, const struct rsweep *s, struct sbuf *md)
{
	char b[48], b2[48];
	sb_puts(md, "| CPUs |");
	for (size_t i = 0; i < s->nseries; i++) {
		char *ml = md_text(s->series[i].label);
		sb_printf(md, " %s: ICR writes (measured / layout) | %s: ns per op |", ml, ml);
		free(ml);
	}
	for (size_t i = 0; i < s->nseries; i++)
		if (strcmp(s->series[i].mode, r->baseline)) {
			char *ml = md_text(s->series[i].label), *mb = md_text(r->baseline);
			sb_printf(md, " %s / %s |", ml, mb);
			free(ml), free(mb);
		}
	sb_puts(md, "\n|---:|");
	for (size_t i = 0; i < s->nseries; i++)
		sb_puts(md, "---:|---:|");
	for (size_t i = 0; i < s->nseries; i++)
		if (strcmp(s->series[i].mode, r->baseline))
			sb_puts(md, "---:|");
	sb_puts(md, "\n");
	for (size_t k = 0; k < s->npts; k++) {
		const struct rsweep_pt *p = &s->pts[k];
		sb_printf(md, "| %ld |", p->cpus);
		for (size_t i = 0; i < s->nseries; i++) {
			const struct rsweep_val *v = &p->v[i];
			if (!v->g) {
				sb_puts(md, " - | - |");
				continue;
			}
			if (isnan(v->icr_layout))
				sb_printf(md, " %s / - |", fnum(b, v->icr));
			else
				sb_printf(md, " %s / %.0f%s |", fnum(b, v->icr), v->icr_layout,
					  v->layout_varies ? " (varies)" : "");
			sb_printf(md, " %s%s |", fnum(b2, v->ns),
				  s->loop && s->percall && !isnan(v->ns) ? (v->loop ? " (loops)" : " (median)") : "");
		}
		for (size_t i = 0; i < s->nseries; i++)
			if (strcmp(s->series[i].mode, r->baseline)) {
				if (isnan(p->v[i].ratio))
					sb_puts(md, " - |");
				else
					sb_printf(md, " %.3f |", p->v[i].ratio);
			}
		sb_puts(md, "\n");
	}
}

static void section_sweeps(const struct report *r, struct sbuf *md)
{
	for (size_t i = 0; i < r->nsweeps; i++) {
		const struct rsweep *s = &r->sweeps[i];
		char *mw = md_text(s->g0->workload), *mt = md_text(s->g0->type);
		sb_printf(md, "\n## Against CPU count: `%s` (%s)%s\n\n"
			      "One series per mode and topology (the profile, else the topology "
			      "given, else QEMU's dense IDs; a host named when two share one). "
			      "ICR writes per operation: measured (`icr_writes / operations` over "
			      "the ok runs) / what the x2APIC layout implies for the mode's send "
			      "routine. Time: ns per operation, %s (descriptive%s); ratios: a "
			      "mode's time over %s's on the same topology%s.\n\n",
			  mw, mt, s->g0->emulated ? ", emulated (QEMU TCG): compare ratios, not times" : "",
			  sweep_time_text(s),
			  s->percall ? "; bars in the plot: IQR of the calls" : "", r->baseline,
			  s->loop && s->percall ? " when both are timed alike" : "");
		free(mw), free(mt);
		if (s->left_out)
			sb_printf(md, "**%zu blocks left out:** a sweep draws at most %d series "
				      "(mode and topology); report fewer topologies at a time to "
				      "see the rest.\n\n", s->left_out, RP_MAXSERIES);
		sweep_table(r, s, md);
		if (s->plot)
			md_plot(md, s->plot, "time per operation against CPU count");
		if (s->plot_icr)
			md_plot(md, s->plot_icr, "ICR writes per operation against CPU count");
	}
}

static void section_hyperfine(const struct report *r, struct sbuf *md)
{
	for (size_t f = 0; f < r->d.nhf; f++) {
		const struct rhf *x = &r->hf[f];
		const struct hf_file *h = x->h;
		char *mp = md_text(h->path);
		sb_printf(md, "\n## hyperfine: %s\n\nSeconds per run (hyperfine's own figures):\n\n"
			      "| # | command | runs | mean | stddev | median | min | max |\n"
			      "|---:|---|---:|---:|---:|---:|---:|---:|\n", mp);
		free(mp);
		for (size_t k = 0; k < h->n; k++) {
			const struct hf_cmd *c = &h->cmds[k];
			char *mc = md_code(c->command);
			sb_printf(md, "| %zu | %s | %zu | %.4g | %.4g | %.4g | %.4g | %.4g |\n",
				  k + 1, mc, c->n, c->mean, c->stddev, c->median, c->min,
				  c->max);
			free(mc);
		}
		cmp_hyperfine_md(md, &x->ms);
		if (x->plot)
			md_plot(md, x->plot, "hyperfine times");
	}
}

static void section_perf(const struct report *r, struct sbuf *md)
{
	const struct dataset *d = &r->d;
	for (size_t f = 0; f < d->nperf; f++) {
		const struct perf_file *p = &d->perf[f];
		char *mp = md_text(p->path);
		sb_printf(md, "\n## perf stat: %s\n\n| event | value | unit | variance | counter run %% | metric |\n"
			      "|---|---:|---|---:|---:|---|\n", mp);
		free(mp);
		for (size_t k = 0; k < p->n; k++) {
			const struct perf_row *x = &p->rows[k];
			/* the value is a number or <not counted>/<not supported>
			 * (checked when read); the rest is free text */
			char *me = md_text(x->event), *mu = md_text(x->unit),
			     *mv = md_text(x->variance), *mpc = md_text(x->pct),
			     *mm = md_text(x->metric), *mmu = md_text(x->metric_unit);
			sb_printf(md, "| %s | %s | %s | %s | %s | %s%s%s |\n", me, x->value,
				  mu, mv, mpc, mm, *x->metric ? " " : "", mmu);
			free(me), free(mu), free(mv), free(mpc), free(mm), free(mmu);
		}
	}
	cmp_perf_md(md, &r->perf_rep);
}

/* ---- the x2APIC layout and the ICR writes it implies ------------------------- */
static void section_layout(const struct report *r, struct sbuf *md)
{
	const struct dataset *d = &r->d;
	size_t nlay = 0, nrows = 0, bad = 0;

	for (size_t i = 0; i < d->nsets; i++)
		nlay += d->sets[i].layout != NULL;
	for (size_t i = 0; i < d->ngroups; i++) {
		nrows += d->groups[i].nicrx;
		for (size_t k = 0; k < d->groups[i].nicrx; k++)
			bad += d->groups[i].icrx[k].mismatch;
	}
	if (!nlay && !nrows)
		return;
	sb_puts(md, "\n## x2APIC layout and ICR writes\n\n");
	for (size_t i = 0; i < d->nsets; i++) {
		const struct resultset *s = &d->sets[i];
		if (!s->layout)
			continue;
		char *mh = md_text(s->host_name), *ml = md_text(s->layout);
		char *mt = s->topology ? md_code(s->topology) : NULL;
		sb_printf(md, "- %s, %ld CPUs: %s%s%s (%s)\n", mh, s->cpus, ml,
			  mt ? "; topology " : "", mt ? mt : "",
			  s->topology ? "the hypervisor's IDs checked against it" :
			  "as the hypervisor reported it");
		free(mh), free(ml), free(mt);
	}
	if (!nrows)
		return;
	sb_puts(md, "\nICR writes per call of each flush and IPI workload: what the layout "
		    "implies for the mode, send routine, mask and shorthand (one per destination "
		    "physical, one per cluster reached cluster and mixed, one for the ALLBUT "
		    "shorthand) and what was measured (mean over ok runs).\n\n"
		    "| host | CPUs | workload | mode | sender | route | layout implies | measured | runs | check |\n"
		    "|---|---:|---|---|---|---|---:|---:|---:|---|\n");
	for (size_t i = 0; i < d->ngroups; i++) {
		const struct group *g = &d->groups[i];
		for (size_t k = 0; k < g->nicrx; k++) {
			const struct icr_exp *x = &g->icrx[k];
			char *mh = md_text(g->host), *mw = md_text(g->workload), *mm = md_text(g->mode),
			     *ms = md_text(x->sender), *mr = md_text(x->route);
			char b[48];
			sb_printf(md, "| %s | %ld | %s | %s | %s | %s | %.0f%s | %s | %zu | %s |\n",
				  mh, g->cpus, mw, mm, ms, mr, x->expected,
				  x->expected_varies ? " (varies)" : "",
				  fnum(b, x->measured_sum / (double)x->runs), x->runs,
				  x->mismatch ? "**MISMATCH**" : "ok");
			free(mh), free(mw), free(mm), free(ms), free(mr);
		}
	}
	if (bad)
		sb_printf(md, "\n**%zu workload%s measured other ICR writes than the layout implies**: "
			  "the runner fails such a run; these results were not made by it or "
			  "were changed.\n", bad, bad == 1 ? "" : "s");
}

static void section_failed(const struct report *r, struct sbuf *md)
{
	const struct dataset *d = &r->d;
	if (!d->nfailed)
		return;
	sb_puts(md, "\n## Failed runs (left out of the statistics)\n\n| results | run | mode | error |\n|---|---|---|---|\n");
	for (size_t i = 0; i < d->nfailed; i++) {
		const struct failed_run *f = &d->failed[i];
		char *mp = md_text(f->set_path), *mi = md_text(f->id), *mm = md_text(f->mode),
		     *me = md_text(f->error);
		sb_printf(md, "| %s | %s | %s | %s |\n", mp, mi, mm, me);
		free(mp), free(mi), free(mm), free(me);
	}
}

/* ---- between builds ([matrix] xen) ------------------------------------------ */
static void section_builds(const struct report *r, struct sbuf *md)
{
	if (!r->nbuilds)
		return;
	sb_puts(md, "\n## Between builds\n\nEach mode of a workload on the builds that ran it, "
		    "the first build (by name) the baseline, with the statistics used between "
		    "modes. Result sets run one build after the other: with one boot per build, "
		    "a difference between builds cannot be told from a difference between "
		    "boots (use `repetitions >= 2`).\n");
	const struct group *last = NULL;
	for (size_t i = 0; i < r->nbuilds; i++) {
		const struct rbuild *x = &r->builds[i];
		const struct group *g = x->g[0];
		if (!g)
			continue;
		if (!last || strcmp(last->workload, g->workload) || strcmp(last->host, g->host) ||
		    last->cpus != g->cpus)
			sb_printf(md, "\n### `%s` (%s) on %s, %ld CPUs\n", g->workload, g->type,
				  g->host, g->cpus);
		last = g;
		if (x->missing)
			sb_printf(md, "\nMode `%s`: no runs on build %s (a build whose Xen has no "
				      "such mode, or whose runs failed).\n", g->mode, x->missing);
		if (x->cmp.done)
			cmp_modes_md(md, &x->cmp);
		else
			sb_printf(md, "\nMode `%s`: only build `%s` ran it: nothing to compare.\n",
				  g->mode, g->build);
	}
}

static void render_md(const struct report *r, struct sbuf *md)
{
	section_inputs(r, md);
	section_layout(r, md);
	if (!r->no_ref)
		section_seed(r, md);
	for (size_t i = 0; i < r->nblocks; i++)
		section_block(&r->blocks[i], md);
	section_builds(r, md);
	section_charts(r, md);
	section_sweeps(r, md);
	section_hyperfine(r, md);
	section_perf(r, md);
	guests_md(r, md);
	section_failed(r, md);
}

/* ==== report.json ========================================================== */
static json_t *json_inputs(const struct report *r)
{
	const struct dataset *d = &r->d;
	json_t *inputs = json_array();
	for (size_t i = 0; i < d->nsets; i++) {
		const struct resultset *s = &d->sets[i];
		json_array_append_new(inputs, json_pack(
			"{s:s, s:o, s:s, s:s, s:I, s:b, s:s, s:s, s:s, s:I, s:I, s:I}",
			"kind", "results", "path", sio_json_str(s->path), "host", s->host_name,
			"backend", s->backend, "cpus", (json_int_t)s->cpus,
			"emulated", s->emulated, "xen_version", s->xen_version,
			"commit", s->commit, "created", s->created,
			"runs_ok", (json_int_t)s->runs_ok,
			"runs_failed", (json_int_t)s->runs_failed,
			"runs_stalled", (json_int_t)s->runs_stalled));
	}
	for (size_t i = 0; i < d->nhf; i++)
		json_array_append_new(inputs, json_pack("{s:s, s:o}", "kind", "hyperfine",
							"path", sio_json_str(d->hf[i].path)));
	for (size_t i = 0; i < d->nperf; i++)
		json_array_append_new(inputs, json_pack("{s:s, s:o}", "kind", "perf-stat",
							"path", sio_json_str(d->perf[i].path)));
	return inputs;
}

static json_t *json_method(const struct report *r)
{
	char comparison[256];
	snprintf(comparison, sizeof(comparison), "%s 95%% (declared: --test) on boots, Fieller's "
		 "interval of the ratio, ministat's Student's t (Debian ministat 20150715) beside "
		 "it; loops of one boot per mode: no verdict", ms_test_name(r->test));
	return json_pack(
		"{s:s, s:s, s:s, s:s, s:s}",
		"per_call", "descriptive only: median, p5, p95, q1, q3 (R type 7); no tests",
		"comparison", comparison,
		"unit", "boots when every mode has >= 2 (per-boot mean of its loops), else loops of one boot",
		"paired", "loop pairs within one boot: paired t on B - A",
		"baseline", r->baseline);
}

/* An object of one figure per mode of modes.h; only the modes the
 * reference has when ref_only. */
static json_t *json_per_mode(const struct reference *ref, const double *v, bool ref_only)
{
	json_t *o = json_object();
	for (size_t k = 0; k < IPIBENCH_NMODES; k++)
		if (!ref_only || ref->total_ns[k] > 0)
			json_object_set_new(o, ipibench_mode_name(k), ref_only ? json_real(v[k]) :
					    an_jreal(v[k]));
	return o;
}

static char *ratio_key(const struct reference *ref, const char *suffix)
{
	return xasprintf("ratio_%s_over_%s%s", ipibench_mode_name(ref->ratio_a),
			 ipibench_mode_name(ref->ratio_b), suffix);
}

static json_t *json_reference(const struct reference *ref)
{
	double per_call[IPIBENCH_NMODES];
	for (size_t k = 0; k < IPIBENCH_NMODES; k++)
		per_call[k] = ref->total_ns[k] / (double)ref->calls;
	char *rk = ratio_key(ref, "");
	/* "note" is the ICR note (beside, not inside, the expected writes) */
	json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:b, s:o, s:o, s:f, s:o, s:s}",
			      "path", ref->path, "source", ref->source,
			      "calls", (json_int_t)ref->calls, "cpus", (json_int_t)ref->cpus,
			      "emulated", ref->emulated,
			      "total_ns", json_per_mode(ref, ref->total_ns, true),
			      "ns_per_call", json_per_mode(ref, per_call, true),
			      rk, ref->total_ns[ref->ratio_a] / ref->total_ns[ref->ratio_b],
			      "expected_icr_writes_per_call",
			      json_per_mode(ref, ref->icr_expected, true),
			      "note", ref->icr_note);
	free(rk);
	return o;
}

static json_t *json_seed_ministat(const struct report *r, const struct rseed *s)
{
	json_t *jmeas = json_pack("{s:s}", "unit", rl_unit_name(s->ms_unit));
	if (s->has_meas)
		json_object_set_new(jmeas, "rows", cmp_ms_json(&s->ms_meas));
	return json_pack("{s:o, s:o, s:o}", "reference_path", sio_json_str(r->ref_ms.path),
			 "reference", cmp_ms_json(&s->ms_ref), "measured", jmeas);
}

static json_t *json_seed_block(const struct report *r, const struct rseed *s)
{
	const struct reference *ref = &r->ref;
	const struct group *g0 = s->b->g0, *ga = s->g[ref->ratio_a];
	double tot[IPIBENCH_NMODES];
	for (size_t k = 0; k < IPIBENCH_NMODES; k++)
		tot[k] = s->mean[k] * (double)ref->calls;
	json_t *jm = json_pack("{s:s, s:s, s:I, s:b, s:s}", "workload", g0->workload,
			       "host", g0->host, "cpus", (json_int_t)g0->cpus,
			       "emulated", g0->emulated,
			       "path", ga && ga->path ? ga->path : "");
	json_object_set_new(jm, "ns_per_call_mean", json_per_mode(ref, s->mean, false));
	json_object_set_new(jm, "ns_per_call_median", json_per_mode(ref, s->median, false));
	json_object_set_new(jm, "total_ns_for_calls", json_per_mode(ref, tot, false));
	char *rk = ratio_key(ref, "_mean");
	json_object_set_new(jm, rk, an_jreal(s->ratio_mean));
	free(rk);
	json_object_set_new(jm, "icr_writes_per_call", json_per_mode(ref, s->icr, false));
	if (s->ministat)
		json_object_set_new(jm, "ministat", json_seed_ministat(r, s));
	return jm;
}

static json_t *json_seed(const struct report *r)
{
	json_t *js = json_object();
	if (!r->have_ref)
		return js;
	json_object_set_new(js, "reference", json_reference(&r->ref));
	json_t *meas = json_array();
	json_object_set_new(js, "measured", meas);
	for (size_t i = 0; i < r->nseeds; i++)
		json_array_append_new(meas, json_seed_block(r, &r->seeds[i]));
	return js;
}

static json_t *json_counters(const struct rmode *m)
{
	const struct group *g = m->g;
	json_t *cn = json_object();
	if (g->has_ops)
		json_object_set_new(cn, "operations", json_real(g->operations));
	if (g->has_icr) {
		json_object_set_new(cn, "icr_writes", json_real(g->icr_writes));
		json_object_set_new(cn, "icr_writes_per_op", an_jreal(m->icr_per_op));
	}
	if (g->has_ipis)
		json_object_set_new(cn, "ipis_sent_per_op", an_jreal(m->ipis_per_op));
	if (g->vectors_runs)
		json_object_set_new(cn, "vectors", json_real(m->vectors));
	if (g->nirqs) {
		json_t *a = json_array();
		for (size_t k = 0; k < g->nirqs; k++)
			json_array_append_new(a, json_real(m->irqs[k]));
		json_object_set_new(cn, "irqs_per_cpu_mean_per_run", a);
	}
	if (g->ic.runs && g->ic.ops > 0) {
		const struct insn_sums *ic = &g->ic;
		json_t *o = json_object();

		json_object_set_new(o, "runs", json_integer((json_int_t)ic->runs));
		json_object_set_new(o, "send_insns_per_op", json_real(ic->send / ic->ops));
		json_object_set_new(o, "wait_insns_per_op", json_real(ic->wait / ic->ops));
		json_object_set_new(o, "handler_insns_mean",
				    an_jreal(ic->handlers > 0 ? ic->handler_insns / ic->handlers : NAN));
		json_object_set_new(o, "handler_insns_max", json_real(ic->handler_max));
		json_object_set_new(o, "icr_writes_per_op", json_real(ic->icr / ic->ops));
		json_object_set_new(o, "icr_mismatched_runs", json_integer((json_int_t)ic->mismatches));
		json_object_set_new(cn, "insn_counts", o);
	}
	return cn;
}

static json_t *json_mode(const struct rmode *m)
{
	const struct group *g = m->g;
	json_t *o = json_pack("{s:s, s:s, s:b, s:s, s:I, s:I, s:I, s:I}",
			      "mode", g->mode, "genapic", g->genapic ? g->genapic : "",
			      "genapic_differs_between_runs", g->genapic_mixed,
			      "path", g->path ? g->path : "",
			      "runs_ok", (json_int_t)g->runs_ok,
			      "runs_failed", (json_int_t)g->runs_failed,
			      "n", (json_int_t)g->n,
			      "loops", (json_int_t)runlevel_mode_loops(g));
	if (g->n) {
		const struct summary *s = &g->sum;
		json_object_set_new(o, "latency_ns", json_pack(
			"{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			"unit", g->runs_ok > 1 ? "per-call latency, boots pooled (descriptive)" :
						 "per-call latency, one boot (descriptive)",
			"median", an_jreal(s->median), "mean", an_jreal(s->mean),
			"sd", an_jreal(s->sd), "min", an_jreal(s->min), "max", an_jreal(s->max),
			"p5", an_jreal(s->p5), "p95", an_jreal(s->p95), "q1", an_jreal(s->q1),
			"q3", an_jreal(s->q3), "iqr", an_jreal(s->iqr)));
	}
	json_object_set_new(o, "counters", json_counters(m));
	return o;
}

static json_t *json_block(const struct report *r, size_t i)
{
	const struct rblock *b = &r->blocks[i];
	const struct group *g0 = b->g0;
	json_t *modes = json_array();
	for (size_t k = 0; k < b->end - b->first; k++)
		json_array_append_new(modes, json_mode(&b->modes[k]));
	json_t *jb = json_pack("{s:s, s:s, s:s, s:I, s:b, s:o}", "workload", g0->workload,
			       "type", g0->type, "host", g0->host, "cpus", (json_int_t)g0->cpus,
			       "emulated", g0->emulated, "modes", modes);
	json_object_set_new(jb, "topology", json_string(g0->topo));
	if (b->cmp.done)
		json_object_set_new(jb, "comparison", cmp_modes_json(&b->cmp));
	if (b->paired.done)
		json_object_set_new(jb, "paired", cmp_paired_json(&b->paired));
	if (b->latency_plot)
		json_object_set_new(jb, "plots", json_pack("[s]", b->latency_plot));
	if (b->ntl)
		json_object_set_new(jb, "timelines", timelines_json(b));
	return jb;
}

/* A sweep: its series, and per CPU count each series' figures (keyed by
 * label); with one topology, also each mode's time per operation keyed by
 * the mode, as before topologies were series. */
static json_t *json_sweep(const struct report *r, size_t i)
{
	const struct rsweep *s = &r->sweeps[i];
	json_t *jser = json_array(), *jpts = json_array(), *hosts = json_array();
	for (size_t k = 0; k < s->nseries; k++) {
		const struct rsweep_series *x = &s->series[k];
		json_array_append_new(jser, json_pack("{s:s, s:s, s:s, s:s}", "label", x->label,
						      "mode", x->mode, "topology", x->topo,
						      "host", x->host));
		bool seen = false;
		for (size_t j = 0; j < k; j++)
			seen |= !strcmp(s->series[j].host, x->host);
		if (!seen)
			json_array_append_new(hosts, json_string(x->host));
	}
	for (size_t k = 0; k < s->npts; k++) {
		const struct rsweep_pt *p = &s->pts[k];
		json_t *jp = json_pack("{s:I}", "cpus", (json_int_t)p->cpus), *js = json_object();
		for (size_t m = 0; m < s->nseries; m++) {
			const struct rsweep_val *v = &p->v[m];
			if (!v->g)
				continue;
			json_object_set_new(js, s->series[m].label, json_pack(
				"{s:o, s:o, s:b, s:o, s:s, s:o}",
				"icr_writes_per_op", an_jreal(v->icr),
				"icr_writes_layout", an_jreal(v->icr_layout),
				"layout_varies", v->layout_varies,
				"ns_per_op", an_jreal(v->ns),
				"time", v->loop ? "loop mean" : "per-call median",
				"ratio_to_baseline", an_jreal(v->ratio)));
			if (s->ntopos == 1)
				json_object_set_new(jp, s->series[m].mode, an_jreal(v->ns));
		}
		json_object_set_new(jp, "series", js);
		json_array_append_new(jpts, jp);
	}
	json_t *plots = json_array();
	if (s->plot)
		json_array_append_new(plots, json_string(s->plot));
	if (s->plot_icr)
		json_array_append_new(plots, json_string(s->plot_icr));
	return json_pack("{s:s, s:s, s:s, s:o, s:b, s:s, s:s, s:o, s:o, s:o}",
			 "workload", s->g0->workload, "type", s->g0->type, "host", s->g0->host,
			 "hosts", hosts, "emulated", s->g0->emulated, "time", sweep_time_text(s),
			 "baseline", r->baseline, "series", jser, "points", jpts, "plots", plots);
}

static json_t *json_hyperfine(const struct report *r, size_t f)
{
	const struct rhf *x = &r->hf[f];
	const struct hf_file *h = x->h;
	json_t *jcmds = json_array();
	for (size_t k = 0; k < h->n; k++) {
		const struct hf_cmd *c = &h->cmds[k], *c0 = &h->cmds[0];
		json_array_append_new(jcmds, json_pack(
			"{s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o}",
			"command", c->command, "runs", (json_int_t)c->n,
			"mean", an_jreal(c->mean), "stddev", an_jreal(c->stddev),
			"median", an_jreal(c->median), "min", an_jreal(c->min),
			"max", an_jreal(c->max),
			"ratio_to_first", k ? an_jreal(c->mean / c0->mean) : json_real(1.0)));
	}
	return json_pack("{s:o, s:o, s:s, s:o}", "path", sio_json_str(h->path), "commands", jcmds,
			 "unit", "hyperfine runs", "ministat", cmp_hyperfine_json(&x->ms));
}

static json_t *json_perf(const struct report *r, size_t f)
{
	const struct perf_file *p = &r->d.perf[f];
	json_t *rows = json_array();
	for (size_t k = 0; k < p->n; k++) {
		const struct perf_row *x = &p->rows[k];
		char *end;
		double v = strtod(x->value, &end);
		/* perf's CSV is not JSON: its fields may be any bytes. */
		json_array_append_new(rows, json_pack(
			"{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "event", sio_json_str(x->event),
			"value", end != x->value ? json_real(v) : json_null(),
			"raw_value", sio_json_str(x->value), "unit", sio_json_str(x->unit),
			"variance", sio_json_str(x->variance), "metric", sio_json_str(x->metric),
			"metric_unit", sio_json_str(x->metric_unit)));
	}
	return json_pack("{s:o, s:o}", "path", sio_json_str(p->path), "events", rows);
}

static json_t *json_failed(const struct dataset *d)
{
	json_t *jf = json_array();
	for (size_t i = 0; i < d->nfailed; i++) {
		const struct failed_run *f = &d->failed[i];
		json_array_append_new(jf, json_pack("{s:o, s:s, s:s, s:s}", "results", sio_json_str(f->set_path),
						    "run", f->id, "mode", f->mode, "error", f->error));
	}
	return jf;
}

/* An array of items 0..n-1 of one kind. */
static json_t *json_list(const struct report *r, size_t n,
			 json_t *(*item)(const struct report *, size_t))
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, item(r, i));
	return a;
}

/* report.json: the sections in report.md's order. */
static json_t *render_json(const struct report *r)
{
	json_t *j = json_pack("{s:i, s:s}", "schema_version", 1, "generator", "ipibench report");
	json_object_set_new(j, "inputs", json_inputs(r));
	json_object_set_new(j, "plots_left_out", json_integer((json_int_t)r->plots_left_out));
	json_object_set(j, "host_state", r->host_state);
	json_object_set(j, "preflight", r->preflight);
	json_object_set_new(j, "method", json_method(r));
	if (!r->no_ref)
		json_object_set_new(j, "seed", json_seed(r));
	json_object_set_new(j, "workloads", json_list(r, r->nblocks, json_block));
	json_object_set_new(j, "sweeps", json_list(r, r->nsweeps, json_sweep));
	json_t *builds = json_array();
	for (size_t i = 0; i < r->nbuilds; i++) {
		const struct rbuild *x = &r->builds[i];
		json_t *b = json_pack("{s:s, s:s, s:I, s:s}", "host", x->g[0]->host, "workload",
				      x->g[0]->workload, "cpus", (json_int_t)x->g[0]->cpus,
				      "mode", x->g[0]->mode);
		json_t *names = json_array();
		for (size_t k = 0; k < x->ng; k++)
			json_array_append_new(names, json_string(x->g[k]->build));
		json_object_set_new(b, "builds", names);
		json_object_set_new(b, "comparison", x->cmp.done ? cmp_modes_json(&x->cmp) : json_null());
		json_array_append_new(builds, b);
	}
	json_object_set_new(j, "builds", builds);
	json_object_set_new(j, "hyperfine", json_list(r, r->d.nhf, json_hyperfine));
	json_object_set_new(j, "perf_stat", json_list(r, r->d.nperf, json_perf));
	json_object_set_new(j, "perf_stat_repeated", cmp_perf_json(&r->perf_rep));
	json_object_set_new(j, "guests", r->gcmp[GR_IPI].n || r->d.guests_not_ok[GR_IPI]
						 ? guests_json(r, GR_IPI) : json_null());
	json_object_set_new(j, "guest_nic", r->gcmp[GR_NIC].n || r->d.guests_not_ok[GR_NIC]
						    ? guests_json(r, GR_NIC) : json_null());
	json_object_set_new(j, "failed_runs", json_failed(&r->d));
	return j;
}

/* ==== the command =========================================================== */
/* report.md, then report.json. */
static int write_outputs(struct report *r, const struct sbuf *md)
{
	if (an_write_text(r->out, "report.md", md->s, md->len, r->err))
		return -1;
	json_t *j = render_json(r);
	int rc = an_write_json(r->out, "report.json", j, r->err);
	json_decref(j);
	return rc;
}

static void report_usage(FILE *f, const struct opts_cmd *cmd)
{
	opts_usage_lines(f, &report_synopsis);
	fputs(report_help, f);
	opts_help(f, cmd->opts);
	fputs(report_help_tail, f);
}

/* Options into r and the reference paths, the inputs into *inputs and
 * *ninputs.  Returns -1 to go on, else the exit status (0 after --help, 2
 * on a usage error). */
static int parse_args(struct report *r, const char **reference, const char **ms_reference,
		      const char **guest_reference, int argc, char **argv, int *ninputs,
		      char ***inputs)
{
	const struct opt opts[] = {
		OPT_STRING('o', "output", &r->out, "DIR", "output directory (default: report)"),
		OPT_STRING('b', "baseline", &r->baseline, "MODE",
			   "mode the others are compared with (default: physical)"),
		OPT_STRING(0, "reference", reference, "FILE", "seed reference figures\n"
			   "(default: results/reference/seed-96cpu.json)"),
		OPT_STRING(0, "ministat-reference", ms_reference, "FILE",
			   "the seed's ministat table shown beside the measured one\n"
			   "(default: results/reference/seed-512cpu.json)"),
		OPT_STRING(0, "guest-reference", guest_reference, "FILE",
			   "the seed's HVM profiles beside the guest runs' traces\n"
			   "(default: results/reference/seed-004.json)"),
		OPT_BOOLEAN(0, "no-reference", &r->no_ref, "leave the seed reproduction section out\n"
			    "(and the seed beside the guest runs)"),
		OPT_BOOLEAN(0, "summary", &r->summary, "print the headline (each workload's modes\n"
			    "against the baseline) instead of the whole report.md"),
		OPT_STRING(0, "test", &r->test_name, "TEST",
			   "the test of every comparison between modes, builds,\n"
			   "hyperfine commands or perf stat files, declared before the\n"
			   "data are seen: welch (default) or student"),
		OPT_BOOLEAN('q', "quiet", &an_quiet, "no progress on stderr"),
		OPT_END(),
	};
	const struct opts_cmd cmd = { .name = "ipibench report", .opts = opts, .usage = report_usage,
				      .syn = &report_synopsis };

	int rc = an_parse_args(&cmd, "INPUT", argc, argv, ninputs, inputs);
	if (rc >= 0)
		return rc;
	if (!r->test_name || !strcmp(r->test_name, "welch")) {
		r->test = MS_WELCH;
	} else if (!strcmp(r->test_name, "student")) {
		r->test = MS_STUDENT;
	} else {
		fprintf(stderr, "ipibench report: --test: '%s' is not welch or student\n",
			r->test_name);
		return 2;
	}
	return -1;
}

/* Read the inputs and the references, sort the groups into blocks and
 * compute the model.  -1 with r->err on error. */
static int report_load(struct report *r, const char *reference, const char *ms_reference,
		       const char *guest_reference, char **inputs, int n)
{
	/* No gnuplot: everything but the drawings (unless IPIBENCH_GNUPLOT
	 * names one, which must then be there). */
	const char *g = getenv("IPIBENCH_GNUPLOT");
	plot_undrawn = 0;
	plot_undrawn_ok = false;
	if (plot_check(r->err)) {
		if (g && *g)
			return -1;
		plot_undrawn_ok = true;
		r->err[0] = '\0';
	}
	for (int i = 0; i < n; i++)
		if (dataset_add(&r->d, inputs[i], r->err))
			return -1;
	if (!r->no_ref) {
		int lr = reference_load(reference, &r->ref, r->err);
		if (lr < 0)
			return -1;
		r->have_ref = lr == 0;
		lr = reference_load_ministat(ms_reference, &r->ref_ms, r->err);
		if (lr < 0)
			return -1;
		r->have_ref_ms = lr == 0;
	}
	if (guests_load(r, guest_reference))
		return -1;
	dataset_finish(&r->d);
	if (r->d.ngroups)	/* qsort(NULL, 0) is undefined */
		qsort(r->d.groups, r->d.ngroups, sizeof(*r->d.groups), cmp_groups);
	report_compute(r);
	return 0;
}

/* ==== --summary ============================================================= */
/* The headline on the terminal (make bench): each workload's modes, their
 * run-level time per operation against the baseline and their ICR writes,
 * then where the whole report is. */
static void render_summary(const struct report *r, struct sbuf *o)
{
	const struct dataset *d = &r->d;
	size_t ok = 0, failed = 0, stalled = 0;
	bool emulated = false;
	char b1[48], b2[48];

	for (size_t i = 0; i < d->nsets; i++) {
		ok += d->sets[i].runs_ok;
		failed += d->sets[i].runs_failed;
		stalled += d->sets[i].runs_stalled;
		emulated |= d->sets[i].emulated;
	}
	char st[48] = "";
	if (stalled)
		snprintf(st, sizeof(st), ", %zu stalled", stalled);
	sb_printf(o, "%zu result set%s, %zu runs ok, %zu failed%s%s\n", d->nsets,
		  d->nsets == 1 ? "" : "s", ok, failed, st,
		  emulated ? "; emulated (QEMU TCG): compare the ratios, not the times" : "");
	if (r->nblocks) {
		sb_printf(o, "\n| workload | host | CPUs | mode | ns per op | against %s (95%%) "
			  "| ICR writes per op |\n|---|---|---:|---|---:|---|---:|\n", r->baseline);
	}
	size_t other = 0;
	for (size_t i = 0; i < r->nblocks; i++) {
		const struct rblock *b = &r->blocks[i];
		const struct cmp_ms *ms = b->cmp.done ? &b->cmp.ms : NULL;
		if (!ms && !b->has.samples && !b->has.icr) {
			other++;	/* vector capacity, say: its own table */
			continue;
		}
		for (size_t m = 0; m < b->end - b->first; m++) {
			const struct rmode *rm = &b->modes[m];
			const char *mode = rm->g->mode;
			size_t j = 0;
			while (ms && j < ms->k && strcmp(ms->names[j], mode))
				j++;
			bool have = ms && j < ms->k;
			double ns = have ? ms->v[j].avg : rm->g->n ? rm->g->sum.median : NAN;
			char vs[96] = "-";
			if (have && j == 0)
				snprintf(vs, sizeof(vs), "baseline");
			else if (have && ms->no_verdict)
				snprintf(vs, sizeof(vs), "%s", ms->no_verdict);
			else if (have && ms->d[j].ok)
				snprintf(vs, sizeof(vs), "%+.1f%% (%+.1f%% to %+.1f%%)%s", ms->d[j].pct,
					 ms->d[j].pct_lo, ms->d[j].pct_hi,
					 ms->d[j].verdict ? "" : ", no difference proven");
			sb_printf(o, "| %s | %s | %ld | %s | %s | %s | %s |\n", b->label, b->g0->host,
				  b->g0->cpus, mode, fnum(b1, ns), vs, fnum(b2, rm->icr_per_op));
		}
	}
	if (r->nblocks > other)
		sb_puts(o, "\nns per op: the mean of the unit the comparison is on (boots, or the "
			"timed loops of one boot), else the median of the calls.\n");
	if (other)
		sb_printf(o, "%s%zu workload block%s without times or ICR counts (vector capacity): "
			  "in the report\n", r->nblocks > other ? "" : "\n", other,
			  other == 1 ? "" : "s");
	if (r->nguests)
		sb_printf(o, "\n%zu guest run%s: their exits and injections are in the report\n",
			  r->nguests, r->nguests == 1 ? "" : "s");
	if (d->nfailed)
		sb_printf(o, "\n%zu failed run%s: listed in the report\n", d->nfailed,
			  d->nfailed == 1 ? "" : "s");
	sb_printf(o, "\nThe whole report: %s/report.md (and report.json, the plots)\n", r->out);
}

int cmd_report(int argc, char **argv)
{
	/* the default baseline: the first mode of ipibench/modes.h (physical) */
	struct report r = { .out = "report", .baseline = ipibench_mode_name(0) };
	const char *reference = NULL, *ms_reference = NULL, *guest_reference = NULL;
	struct sbuf md = { 0 };
	int ninputs;
	char **inputs;
	int rc = parse_args(&r, &reference, &ms_reference, &guest_reference, argc, argv, &ninputs,
			    &inputs);
	if (rc >= 0)
		return rc;
	int pass;
	bool why;

	if (tr_hvm_env(&pass, &why))	/* the guest traces' summaries read it */
		return 2;
	rc = 1;
	if (report_load(&r, reference, ms_reference, guest_reference, inputs, ninputs) ||
	    mkdir_p(r.out, r.err) || render_plots(&r))
		goto fail;
	render_md(&r, &md);
	if (write_outputs(&r, &md))
		goto fail;
	if (r.summary) {
		struct sbuf sm = { 0 };
		render_summary(&r, &sm);
		fwrite(sm.s, 1, sm.len, stdout);
		sb_free(&sm);
	} else {
		fwrite(md.s, 1, md.len, stdout);
	}
	fflush(stdout);
	if (r.plots_left_out)	/* said even with -q: plots were asked for and not drawn */
		fprintf(stderr, "ipibench report: %zu plots left out: one report draws at most %d\n",
			r.plots_left_out, AN_MAX_PLOTS);
	if (plot_undrawn_ok) {
		/* Said even with -q: the report is not the one asked for. */
		fprintf(stderr, "ipibench report: gnuplot is not installed: %zu plots not drawn "
			"(their NAME.gp and NAME.dat are in %s: `gnuplot NAME.gp` there draws one); "
			"install gnuplot-nox for them\n", plot_undrawn, r.out);
		progress("report: wrote %s/report.md and report.json", r.out);
	} else {
		progress("report: wrote %s/report.md, report.json and %zu plots (PNG + SVG)", r.out,
			 r.nplots);
	}
	rc = 0;
	goto out;
fail:
	an_error("report", r.err);
out:
	plot_undrawn_ok = false;
	sb_free(&md);
	report_model_free(&r);
	guests_free(&r);
	reference_free(&r.ref);
	reference_free(&r.ref_ms);
	dataset_free(&r.d);
	return rc;
}
