/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/report_model.c: the compute pass of `ipibench report`: fills
 * the model of report.h from the sorted dataset (report_compute()), the
 * comparisons through compare.c's cmp_*_compute().  No Markdown or JSON is
 * written here (report.c renders the model, with compare.c's cmp_*_md()
 * and cmp_*_json()); only the names the renderers use are made: block
 * labels, plot file names and titles.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ipibench/modes.h"
#include "ipibench/senders.h"
#include "analysis/compare.h"
#include "analysis/internal.h"
#include "analysis/report.h"

/* Groups [i, end) share host, workload and CPU count: a block. */
static size_t block_end(const struct dataset *d, size_t i)
{
	size_t j = i + 1;
	while (j < d->ngroups && !strcmp(d->groups[j].host, d->groups[i].host) &&
	       !strcmp(d->groups[j].topo, d->groups[i].topo) &&
	       !strcmp(d->groups[j].workload, d->groups[i].workload) &&
	       d->groups[j].cpus == d->groups[i].cpus &&
	       !strcmp(d->groups[j].build, d->groups[i].build))
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

/* plot_slug(raw); raw is freed. */
static char *slug_of(char *raw)
{
	char *s = plot_slug(raw);
	free(raw);
	return s;
}

/* Modes in modes.h order (others after them, as they came). */
static void sort_modes(const char **modes, size_t nm)
{
	for (size_t a = 0; a < nm; a++)
		for (size_t b = a + 1; b < nm; b++)
			if (ipibench_mode_index(modes[b]) < ipibench_mode_index(modes[a])) {
				const char *t = modes[a];
				modes[a] = modes[b];
				modes[b] = t;
			}
}

static void add_mode(const char **modes, size_t *nm, const char *mode)
{
	size_t m = 0;
	while (m < *nm && strcmp(modes[m], mode))
		m++;
	if (m == *nm && *nm < RP_MAXMODES)
		modes[(*nm)++] = mode;
}

/* ---- one block ------------------------------------------------------------ */
static void mode_irqs(struct rmode *m)
{
	const struct group *g = m->g;
	m->irq_min = INFINITY;
	m->irq_max = -INFINITY;
	m->irqs = xcalloc(g->nirqs, sizeof(double));
	for (size_t c = 0; c < g->nirqs; c++) {
		double v = g->irqs[c] / (double)g->irq_runs;
		m->irqs[c] = v;
		m->irq_total += v;
		if (v < m->irq_min)
			m->irq_min = v, m->irq_imin = c;
		if (v > m->irq_max)
			m->irq_max = v, m->irq_imax = c;
	}
	double mean = g->nirqs ? m->irq_total / (double)g->nirqs : 0;
	m->irq_peak = mean > 0 ? m->irq_max / mean : NAN;
}

static void mode_compute(struct rmode *m, struct group *g, struct block_has *h)
{
	m->g = g;
	m->want = ipibench_mode_genapic(g->mode);
	m->genapic_wrong = m->want && g->genapic && *g->genapic && strcmp(g->genapic, m->want);
	m->shorthand = g->path && !strcmp(g->path, "shorthand");
	m->ops = g->has_ops ? g->operations : NAN;
	m->icr_per_op = g->has_icr ? per_op(g, g->icr_writes) : NAN;
	m->ipis_per_op = g->has_ipis ? per_op(g, g->ipis_sent) : NAN;
	m->vectors = g->vectors_runs ? g->vectors_sum / (double)g->vectors_runs : NAN;
	if (g->nirqs)
		mode_irqs(m);
	h->samples |= g->n > 0;
	h->icr |= g->has_icr || g->has_ipis || g->has_ops;
	h->vec |= g->vectors_runs > 0;
	h->irq |= g->nirqs > 0;
	h->runlevel |= runlevel_mode_loops(g) > 0 || g->n > 0;
	for (size_t rr = 0; rr < g->nrr; rr++)
		for (size_t l = 0; l < g->rr[rr].nloops; l++)
			h->pairs |= g->rr[rr].loops[l].pair >= 0;
}

/* Run-level comparison between modes (baseline first) and paired senders. */
static void block_compare(struct report *r, struct rblock *b)
{
	struct dataset *d = &r->d;
	struct group *gs[REF_MS_MAX];
	size_t k = 0;
	struct group *base = block_mode(d, b->first, b->end, r->baseline);
	if (base && (base->n || runlevel_mode_loops(base)))
		gs[k++] = base;
	for (size_t j = b->first; j < b->end && k < REF_MS_MAX; j++) {
		struct group *g = &d->groups[j];
		if (g != base && (g->n || runlevel_mode_loops(g)))
			gs[k++] = g;
	}
	if (b->has.runlevel && k)
		cmp_modes_compute(&b->cmp, gs, k, r->test);
	if (b->has.pairs) {
		struct group *all[REF_MS_MAX];
		size_t n = 0;
		for (size_t j = b->first; j < b->end && n < REF_MS_MAX; j++)
			all[n++] = &d->groups[j];
		cmp_paired_compute(&b->paired, all, n);
	}
}

static void block_compute(struct report *r, struct rblock *b, size_t i, size_t end)
{
	struct dataset *d = &r->d;
	b->first = i;
	b->end = end;
	b->g0 = &d->groups[i];
	b->modes = xcalloc(end - i, sizeof(*b->modes));
	for (size_t k = i; k < end; k++) {
		mode_compute(&b->modes[k - i], &d->groups[k], &b->has);
		if (d->groups[k].runs_ok > b->maxruns)
			b->maxruns = d->groups[k].runs_ok;
	}
	block_compare(r, b);
	/* the topology named only when a host name comes with several */
	const struct group *g0 = b->g0;
	const char *topo = d->several_topos ? g0->topo : "";
	b->topo = d->several_topos ? g0->topo : NULL;
	const char *tsep = *topo ? "-" : "";
	char *name = d->several_builds ?
		slug_of(xasprintf("%s%s%s-%s-%ldcpu-%s", g0->host, tsep, topo, g0->workload,
				  g0->cpus, g0->build)) :
		slug_of(xasprintf("%s%s%s-%s-%ldcpu", g0->host, tsep, topo, g0->workload, g0->cpus));
	b->label = xasprintf("%s%s%s%s%s%s", g0->workload, d->several_builds ? " @ " : "",
			     d->several_builds ? g0->build : "", *topo ? " (" : "", topo,
			     *topo ? ")" : "");
	if (b->has.samples)
		b->latency_plot = xasprintf("latency-%s", name);
	if (b->has.irq)
		b->irqs_plot = xasprintf("irqs-%s", name);
	timelines_compute(r, b, name);
	free(name);
}

/* ---- the seed reproduction ------------------------------------------------ */
/* The measured ministat table, in the reference's row order and unit (ns
 * for its calls per loop). */
static void seed_ministat(struct report *r, struct rseed *s)
{
	const struct reference *rm = &r->ref_ms;
	s->ministat = r->have_ref_ms && rm->nms;
	if (!s->ministat)
		return;
	const char *names[REF_MS_MAX];
	for (size_t i = 0; i < rm->nms; i++)
		names[i] = rm->ms_mode[i];
	/* the published table was tested with ministat's Student's t */
	cmp_ms_compute(&s->ms_ref, names, rm->ms, rm->nms, MS_FREEBSD, MS_STUDENT);
	struct group *gs[REF_MS_MAX];
	size_t k = 0;
	for (size_t i = 0; i < rm->nms; i++) {
		size_t m = ipibench_mode_index(rm->ms_mode[i]);
		if (m < IPIBENCH_NMODES && s->g[m])
			gs[k++] = s->g[m];
	}
	s->ms_unit = runlevel_unit(gs, k);
	if (s->ms_unit == RL_NONE || k < 2)
		return;
	s->ms_unit_text = s->ms_unit != RL_BOOTS ? "timed loops of one boot per mode" :
			  runlevel_mode_loops(gs[0]) ? "boots (per-boot mean of its loops)" :
			  "boots (per-boot mean of its calls: no loop timings)";
	struct ms_vitals v[REF_MS_MAX];
	const char *mn[REF_MS_MAX];
	size_t m = 0;
	for (size_t i = 0; i < k; i++) {
		size_t n;
		double *x = runlevel_sample(gs[i], s->ms_unit, &n);
		if (!x)
			continue;
		for (size_t j = 0; j < n; j++)
			x[j] *= (double)rm->calls;
		ms_vitals(x, n, &v[m]);
		mn[m++] = gs[i]->mode;
		free(x);
	}
	cmp_ms_compute(&s->ms_meas, mn, v, m, MS_DEBIAN, r->test);
	if (s->ms_unit == RL_LOOPS) {	/* a mode with one boot: no verdict */
		size_t boots = 0;
		for (size_t i = 0; i < k; i++)
			boots = gs[i]->nrr > boots ? gs[i]->nrr : boots;
		s->ms_meas.no_verdict = boots <= 1 ? cmp_no_verdict_one_boot :
					cmp_no_verdict_some_boot;
	}
	s->has_meas = true;
}

/* Mean ns per call over g's timed loops of its own send routine (loop
 * timing keeps no per-call samples); NAN without loops. */
static double loops_mean(const struct group *g)
{
	size_t n = 0;
	double *v = g && runlevel_mode_loops(g) ? runlevel_sample(g, RL_LOOPS, &n) : NULL;
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	free(v);
	return n ? sum / (double)n : NAN;
}

static void seed_compute(struct report *r, struct rseed *s, struct rblock *b)
{
	const struct reference *ref = &r->ref;
	s->b = b;
	for (size_t k = 0; k < IPIBENCH_NMODES; k++) {
		struct group *g = block_mode(&r->d, b->first, b->end, ipibench_mode_name(k));
		s->g[k] = g;
		s->ref_ns[k] = ref->total_ns[k] > 0 ? ref->total_ns[k] / (double)ref->calls : NAN;
		s->mean[k] = g && g->n ? g->sum.mean : loops_mean(g);
		s->median[k] = g && g->n ? g->sum.median : NAN;
		s->icr[k] = g && g->has_icr ? per_op(g, g->icr_writes) : NAN;
	}
	const struct group *ga = s->g[ref->ratio_a], *gb = s->g[ref->ratio_b];
	s->ref_ratio = ref->total_ns[ref->ratio_a] / ref->total_ns[ref->ratio_b];
	s->ratio_mean = s->mean[ref->ratio_a] / s->mean[ref->ratio_b];
	s->shorthand = (ga && ga->path && !strcmp(ga->path, "shorthand")) ||
		       (gb && gb->path && !strcmp(gb->path, "shorthand"));
	seed_ministat(r, s);
}

static void seeds_compute(struct report *r)
{
	if (r->no_ref || !r->have_ref)
		return;
	r->seeds = xcalloc(r->nblocks, sizeof(*r->seeds));
	for (size_t i = 0; i < r->nblocks; i++)
		/* not the paired sender workloads: they compare routines, not modes */
		if (!strcmp(r->blocks[i].g0->type, r->ref.workload_type) &&
		    !r->blocks[i].g0->senders[0])
			seed_compute(r, &r->seeds[r->nseeds++], &r->blocks[i]);
}

/* ---- counter charts --------------------------------------------------------- */
static double chart_value(const struct group *g, bool icr)
{
	if (g && icr && g->has_icr && g->has_ops)
		return per_op(g, g->icr_writes);
	if (g && !icr && g->vectors_runs)
		return g->vectors_sum / (double)g->vectors_runs;
	return NAN;
}

/* A paired workload (senders = A, B): its modes ran two send routines. */
static bool block_paired(const struct dataset *d, const struct rblock *b)
{
	for (size_t k = b->first; k < b->end; k++)
		if (d->groups[k].senders[0])
			return true;
	return false;
}

static void chart_row(struct rchart *c, struct rchart_row *row)
{
	c->rows = xrealloc(c->rows, (c->nrows + 1) * sizeof(*c->rows));
	c->rows[c->nrows++] = *row;
}

static void chart_left_out(struct rchart *c, const char *label, const char *why)
{
	char *l = c->left_out ? xasprintf("%s; %s (%s)", c->left_out, label, why) :
				xasprintf("%s (%s)", label, why);
	free(c->left_out);
	c->left_out = l;
}

/*
 * A paired workload's ICR rows: per send routine that counters_by_sender
 * has in some mode, its own ICR writes per operation in each mode.  The
 * workload's counters pool both routines (their mean is what neither
 * routine does), so without counters_by_sender it has no row.
 */
static bool chart_paired(struct report *r, struct rchart *c, const struct rblock *b)
{
	const char *const *names = ipibench_sender_names();
	bool any = false;
	for (size_t k = 0; k < 3 && names[k]; k++) {
		struct rchart_row row = { .workload = b->label, .sender = names[k] };
		bool has = false;
		for (size_t m = 0; m < c->nm; m++) {
			const struct group *g = block_mode(&r->d, b->first, b->end, c->modes[m]);
			const struct by_sender *x = g ? &g->bysend[k] : NULL;
			row.v[m] = x && x->has && x->ops > 0 ? x->icr / x->ops : NAN;
			has |= !isnan(row.v[m]);
		}
		if (!has)
			continue;
		row.label = xasprintf("%s/%s", b->label, names[k]);
		chart_row(c, &row);
		any = true;
	}
	c->paired |= any;
	return any;
}

/* The chart of one host and CPU count (that of gi); false when no mode
 * has the counter there. */
static bool chart_compute(struct report *r, struct rchart *c, const struct group *gi, bool icr)
{
	struct dataset *d = &r->d;
	*c = (struct rchart){ .icr = icr, .host = gi->host, .cpus = gi->cpus };
	for (size_t j = 0; j < d->ngroups; j++) {
		struct group *g = &d->groups[j];
		bool has = icr ? g->has_icr && g->has_ops : g->vectors_runs > 0;
		if (has && !strcmp(g->host, gi->host) && g->cpus == gi->cpus)
			add_mode(c->modes, &c->nm, g->mode);
	}
	if (!c->nm)
		return false;
	sort_modes(c->modes, c->nm);
	for (size_t j = 0; j < r->nblocks; j++) {
		struct rblock *b = &r->blocks[j];
		if (strcmp(b->g0->host, gi->host) || b->g0->cpus != gi->cpus)
			continue;
		struct rchart_row row = { .workload = b->label };
		bool any = false, sent = false;
		for (size_t m = 0; m < c->nm; m++) {
			row.v[m] = chart_value(block_mode(d, b->first, b->end, c->modes[m]), icr);
			any |= !isnan(row.v[m]);
			sent |= row.v[m] > 0;
		}
		if (!any)
			continue;
		if (icr && block_paired(d, b)) {
			if (!chart_paired(r, c, b))
				chart_left_out(c, b->label, "paired, without counters_by_sender");
			continue;
		}
		/* no ICR write in any mode (vector_capacity): no figure to draw */
		if (icr && !sent) {
			chart_left_out(c, b->label, "no ICR write in any mode");
			continue;
		}
		row.label = xstrdup(b->label);
		chart_row(c, &row);
	}
	/* Nothing to draw (e.g. counters.operations = 0: no ICR writes per
	 * operation): no chart; the tables show "-". */
	if (!c->nrows) {
		free(c->left_out);
		c->left_out = NULL;
		return false;
	}
	c->plot = slug_of(xasprintf("%s-%s-%ldcpu", icr ? "icr" : "vectors", gi->host, gi->cpus));
	return true;
}

/* One chart per distinct (host, CPUs) with the counter, ICR then vectors. */
static void charts_compute(struct report *r)
{
	struct dataset *d = &r->d;
	for (int icr = 1; icr >= 0; icr--) {
		json_t *seen = json_object();	/* "CPUS/HOST" of the charts made */
		for (size_t i = 0; i < d->ngroups; i++) {
			struct group *gi = &d->groups[i];
			char *key = xasprintf("%ld/%s", gi->cpus, gi->host);
			bool first = !json_object_get(seen, key);
			json_object_set_new_nocheck(seen, key, json_true());
			free(key);
			if (!first)
				continue;
			r->charts = xrealloc(r->charts, (r->ncharts + 1) * sizeof(*r->charts));
			if (chart_compute(r, &r->charts[r->ncharts], gi, icr))
				r->ncharts++;
		}
		json_decref(seen);
	}
}

/* ---- sweeps ------------------------------------------------------------------ */
/* Blocks of one sweep: the same workload and type, both emulated or not. */
static bool same_sweep(const struct group *a, const struct group *b)
{
	return !strcmp(a->workload, b->workload) && !strcmp(a->type, b->type) &&
	       a->emulated == b->emulated;
}

/* The ICR writes per call g's layout implies for the mode's own routine
 * (or the one routine a sender workload names); NAN when not checked. */
static double layout_icr(const struct group *g, bool *varies)
{
	const struct icr_exp *x = NULL;
	for (size_t k = 0; k < g->nicrx; k++)
		if (!strcmp(g->icrx[k].sender, "genapic") || g->nicrx == 1)
			x = &g->icrx[k];
	*varies = x && x->expected_varies;
	return x ? x->expected : NAN;
}

/* Series of the sweep for (host, topology, mode); adds it when new (false
 * when there is no room). */
static bool sweep_series(struct rsweep *s, const struct group *g, size_t *out)
{
	size_t t = s->ntopos;
	for (size_t i = 0; i < s->nseries; i++) {
		const struct rsweep_series *x = &s->series[i];
		if (!strcmp(x->host, g->host) && !strcmp(x->topo, g->topo)) {
			t = x->topo_i;
			if (!strcmp(x->mode, g->mode)) {
				*out = i;
				return true;
			}
		}
	}
	if (s->nseries == RP_MAXSERIES)
		return false;
	if (t == s->ntopos)
		s->ntopos++;
	s->series[s->nseries] = (struct rsweep_series){ .host = g->host, .topo = g->topo,
							.mode = g->mode, .topo_i = t };
	*out = s->nseries++;
	return true;
}

static size_t sweep_point(struct rsweep *s, long cpus)
{
	size_t k = 0;
	while (k < s->npts && s->pts[k].cpus < cpus)
		k++;
	if (k < s->npts && s->pts[k].cpus == cpus)
		return k;
	s->pts = xrealloc(s->pts, (s->npts + 1) * sizeof(*s->pts));
	memmove(&s->pts[k + 1], &s->pts[k], (s->npts - k) * sizeof(*s->pts));
	s->npts++;
	s->pts[k] = (struct rsweep_pt){ .cpus = cpus };
	for (size_t i = 0; i < RP_MAXSERIES; i++)
		s->pts[k].v[i] = (struct rsweep_val){ .icr = NAN, .icr_layout = NAN, .ns = NAN,
						      .q1 = NAN, .q3 = NAN, .ratio = NAN };
	return k;
}

/* One mode of a block into its series' point: the figures the block (ICR
 * writes: rmode) and the group (per-call summary, layout check) hold,
 * and the loop mean the seed reproduction uses (loops_mean()). */
static void sweep_add(struct rsweep *s, const struct rmode *m)
{
	const struct group *g = m->g;
	size_t i;
	bool has_ns = g->n || runlevel_mode_loops(g);
	if (!has_ns && isnan(m->icr_per_op))
		return;
	if (!sweep_series(s, g, &i)) {
		s->left_out++;
		return;
	}
	size_t k = sweep_point(s, g->cpus);	/* (may move s->pts) */
	struct rsweep_val *v = &s->pts[k].v[i];
	v->g = g;
	v->icr = m->icr_per_op;
	v->icr_layout = layout_icr(g, &v->layout_varies);
	s->icr |= !isnan(v->icr);
	if (g->n) {
		v->ns = g->sum.median;
		v->q1 = g->sum.q1;
		v->q3 = g->sum.q3;
		s->percall = true;
	} else if (has_ns) {
		v->ns = loops_mean(g);
		v->loop = true;
		s->loop = true;
	}
}

/* Series in (host, topology) order, modes.h order within (a mode may
 * first appear at a later CPU count): insertion sort, moving the values. */
static void sweep_sort(struct rsweep *s)
{
	for (size_t i = 1; i < s->nseries; i++)
		for (size_t j = i; j > 0; j--) {
			struct rsweep_series *a = &s->series[j - 1], *b = &s->series[j];
			if (a->topo_i < b->topo_i ||
			    (a->topo_i == b->topo_i && mode_cmp(a->mode, b->mode) <= 0))
				break;
			struct rsweep_series t = *a;
			*a = *b;
			*b = t;
			for (size_t k = 0; k < s->npts; k++) {
				struct rsweep_val v = s->pts[k].v[j - 1];
				s->pts[k].v[j - 1] = s->pts[k].v[j];
				s->pts[k].v[j] = v;
			}
		}
}

/* Labels, ratios to the baseline mode and plot names, once filled. */
static void sweep_finish(struct report *r, struct rsweep *s)
{
	sweep_sort(s);
	for (size_t i = 0; i < s->nseries; i++) {
		struct rsweep_series *x = &s->series[i];
		bool shared = false;	/* another host's topology has its name */
		for (size_t j = 0; j < s->nseries; j++)
			shared |= !strcmp(s->series[j].topo, x->topo) &&
				  strcmp(s->series[j].host, x->host);
		x->label = shared ? xasprintf("%s, %s @ %s", x->mode, x->topo, x->host) :
				    xasprintf("%s, %s", x->mode, x->topo);
	}
	for (size_t i = 0; i < s->nseries; i++)
		for (size_t j = 0; j < s->nseries; j++) {
			const struct rsweep_series *x = &s->series[i], *b = &s->series[j];
			if (b->topo_i != x->topo_i || strcmp(b->mode, r->baseline) || i == j)
				continue;
			for (size_t k = 0; k < s->npts; k++) {
				struct rsweep_val *v = &s->pts[k].v[i];
				const struct rsweep_val *bv = &s->pts[k].v[j];
				if (v->g && bv->g && bv->ns > 0 && v->loop == bv->loop)
					v->ratio = v->ns / bv->ns;
			}
		}
	s->nhosts = 0;
	for (size_t i = 0; i < s->nseries; i++) {
		bool seen = false;
		for (size_t j = 0; j < i; j++)
			seen |= !strcmp(s->series[j].host, s->series[i].host);
		s->nhosts += !seen;
	}
	if (s->loop || s->percall)
		s->plot = slug_of(xasprintf("sweep-%s-%s", s->g0->host, s->g0->workload));
	if (s->icr)
		s->plot_icr = slug_of(xasprintf("icr-sweep-%s-%s", s->g0->host, s->g0->workload));
}

/*
 * One sweep per workload (and type, emulated or not) over every host and
 * topology that ran it at two CPU counts or more (not over several builds:
 * one config per build is what ipibench run does); some series must have
 * two points.  Blocks are sorted by
 * host, topology, workload and CPUs, so a sweep gathers blocks from
 * several places in the list.
 */
static void sweeps_compute(struct report *r)
{
	r->sweeps = xcalloc(r->nblocks ? r->nblocks : 1, sizeof(*r->sweeps));
	if (r->d.several_builds)
		return;
	bool *taken = xcalloc(r->nblocks ? r->nblocks : 1, sizeof(bool));
	/* next[j]: the next block of j's sweep (same_sweep()), or nblocks;
	 * linked through a hash of the sweep's key, so O(n) in the blocks */
	size_t *next = xcalloc(r->nblocks ? r->nblocks : 1, sizeof(size_t));
	json_t *last = json_object();
	for (size_t j = r->nblocks; j-- > 0;) {
		const struct group *g = r->blocks[j].g0;
		char *key = xasprintf("%d/%zu:%s/%s", g->emulated, strlen(g->workload), g->workload,
				      g->type);
		json_t *x = json_object_get(last, key);
		next[j] = x ? (size_t)json_integer_value(x) : r->nblocks;
		json_object_set_new_nocheck(last, key, json_integer((json_int_t)j));
		free(key);
	}
	json_decref(last);
	for (size_t i = 0; i < r->nblocks; i++) {
		if (taken[i])
			continue;
		struct rsweep *s = &r->sweeps[r->nsweeps];
		*s = (struct rsweep){ .g0 = r->blocks[i].g0 };
		for (size_t j = i; j < r->nblocks; j = next[j]) {
			const struct rblock *b = &r->blocks[j];
			if (taken[j] || !same_sweep(b->g0, s->g0))
				continue;
			taken[j] = true;
			for (size_t m = 0; m < b->end - b->first; m++)
				sweep_add(s, &b->modes[m]);
		}
		/* a series at two CPU counts or more: else hosts that only share a
		 * workload's name would make a sweep of single points */
		bool line = false;
		for (size_t i2 = 0; i2 < s->nseries; i2++) {
			size_t n = 0;
			for (size_t k = 0; k < s->npts; k++)
				n += s->pts[k].v[i2].g != NULL;
			line |= n >= 2;
		}
		if (line) {
			sweep_finish(r, s);
			r->nsweeps++;
		} else {
			free(s->pts);
		}
	}
	free(next);
	free(taken);
}

/* ---- hyperfine, perf stat ------------------------------------------------------ */
static void hf_compute(struct rhf *x, const struct hf_file *h, size_t f, enum ms_test test)
{
	x->h = h;
	cmp_hyperfine_compute(&x->ms, h, test);
	for (size_t j = 0; j < h->n && x->nbox < RP_MAXBOXES; j++)
		if (h->cmds[j].n)
			x->box_cmd[x->nbox++] = j;
	if (!x->nbox)
		return;
	const char *base = strrchr(h->path, '/');
	/* unique by its position f + 1: the file name only helps the reader */
	char *raw = xasprintf("hyperfine-%zu-%s", f + 1, base ? base + 1 : h->path);
	x->plot = slugify(raw);
	free(raw);
	x->title = xasprintf("hyperfine %s: seconds per run (boxes numbered as the table rows)",
			     base ? base + 1 : h->path);
}

/* ---- between builds ---------------------------------------------------------- */
static bool same_place(const struct group *a, const struct group *b)
{
	return !strcmp(a->host, b->host) && !strcmp(a->workload, b->workload) &&
	       a->cpus == b->cpus;
}

static bool has_runlevel(const struct group *g)
{
	return g && (g->n || runlevel_mode_loops(g));
}

/*
 * Blocks [bi, be) are one workload on one host and CPU count, one block
 * per build (sorted by build name: the first is the baseline).  Per mode,
 * in modes.h order: every build that ran it, compared with the baseline
 * build by the statistics used between modes; a mode some build has not
 * (cluster on 4.20+) is compared among those that have it, and named.
 */
static void builds_place(struct report *r, size_t bi, size_t be)
{
	struct dataset *d = &r->d;
	const char *modes[RP_MAXMODES];
	size_t nm = 0;
	for (size_t j = bi; j < be; j++)
		for (size_t k = r->blocks[j].first; k < r->blocks[j].end; k++)
			add_mode(modes, &nm, d->groups[k].mode);
	sort_modes(modes, nm);
	for (size_t m = 0; m < nm; m++) {
		struct rbuild x = { .ng = 0 };
		struct sbuf miss = { 0 };
		for (size_t j = bi; j < be && x.ng < RP_MAXMODES; j++) {
			struct group *g = block_mode(d, r->blocks[j].first, r->blocks[j].end, modes[m]);
			if (has_runlevel(g))
				x.g[x.ng++] = g;
			else
				sb_printf(&miss, "%s`%s`", miss.len ? ", " : "", r->blocks[j].g0->build);
		}
		x.missing = miss.s;
		if (!x.ng) {
			sb_free(&miss);
			continue;
		}
		if (x.ng >= 2)
			cmp_builds_compute(&x.cmp, x.g, x.ng, r->test);
		r->builds = xrealloc(r->builds, (r->nbuilds + 1) * sizeof(*r->builds));
		r->builds[r->nbuilds++] = x;
	}
}

static void builds_compute(struct report *r)
{
	if (!r->d.several_builds)
		return;
	for (size_t i = 0; i < r->nblocks;) {
		size_t end = i + 1;
		while (end < r->nblocks && same_place(r->blocks[end].g0, r->blocks[i].g0))
			end++;
		if (end - i >= 2)
			builds_place(r, i, end);
		i = end;
	}
}

/* ---- the cap on plots ------------------------------------------------------------ */
/* Keep PLOT (a name) while fewer than AN_MAX_PLOTS were kept, else free it
 * and count it as left out: one gnuplot run per plot, so the plots one
 * input may ask for are bounded. */
static void plot_keep(struct report *r, char **plot, size_t *kept)
{
	if (!*plot)
		return;
	if (*kept < AN_MAX_PLOTS) {
		(*kept)++;
		return;
	}
	free(*plot);
	*plot = NULL;
	r->plots_left_out++;
}

/* Every plot's file name its own, in the order render_plots() draws them. */
static void plots_unique(struct report *r)
{
	json_t *taken = json_object();
	for (size_t i = 0; i < r->nblocks; i++) {
		plot_name_unique(taken, &r->blocks[i].latency_plot);
		plot_name_unique(taken, &r->blocks[i].irqs_plot);
		for (size_t k = 0; k < r->blocks[i].ntl; k++)
			plot_name_unique(taken, &r->blocks[i].tl[k].plot);
	}
	for (size_t i = 0; i < r->ncharts; i++)
		plot_name_unique(taken, &r->charts[i].plot);
	for (size_t i = 0; i < r->nsweeps; i++) {
		plot_name_unique(taken, &r->sweeps[i].plot);
		plot_name_unique(taken, &r->sweeps[i].plot_icr);
	}
	for (size_t f = 0; f < r->d.nhf; f++)
		plot_name_unique(taken, &r->hf[f].plot);
	json_decref(taken);
}

/* The first AN_MAX_PLOTS plots in the order render_plots() draws them. */
static void plots_cap(struct report *r)
{
	size_t kept = 0;
	for (size_t i = 0; i < r->nblocks; i++) {
		plot_keep(r, &r->blocks[i].latency_plot, &kept);
		plot_keep(r, &r->blocks[i].irqs_plot, &kept);
		for (size_t k = 0; k < r->blocks[i].ntl; k++)
			plot_keep(r, &r->blocks[i].tl[k].plot, &kept);
	}
	for (size_t i = 0; i < r->ncharts; i++)
		plot_keep(r, &r->charts[i].plot, &kept);
	for (size_t i = 0; i < r->nsweeps; i++) {
		plot_keep(r, &r->sweeps[i].plot, &kept);
		plot_keep(r, &r->sweeps[i].plot_icr, &kept);
	}
	for (size_t f = 0; f < r->d.nhf; f++)
		plot_keep(r, &r->hf[f].plot, &kept);
}

/* ---- the whole model -------------------------------------------------------------- */
void report_compute(struct report *r)
{
	struct dataset *d = &r->d;
	r->blocks = xcalloc(d->ngroups ? d->ngroups : 1, sizeof(*r->blocks));
	for (size_t i = 0; i < d->ngroups; i = block_end(d, i))
		block_compute(r, &r->blocks[r->nblocks++], i, block_end(d, i));
	seeds_compute(r);
	charts_compute(r);
	sweeps_compute(r);
	builds_compute(r);
	r->hf = xcalloc(d->nhf ? d->nhf : 1, sizeof(*r->hf));
	for (size_t f = 0; f < d->nhf; f++)
		hf_compute(&r->hf[f], &d->hf[f], f, r->test);
	cmp_perf_compute(&r->perf_rep, d->perf, d->nperf, r->test);
	plots_unique(r);
	plots_cap(r);
	r->host_state = hoststate_json(d);
	r->preflight = json_array();
	for (size_t i = 0; i < d->nsets; i++)
		if (d->sets[i].preflight)
			json_array_append_new(r->preflight, json_pack("{s:s, s:s, s:O}", "path",
				d->sets[i].path, "host", d->sets[i].host_name, "warnings",
				d->sets[i].preflight));
}

void report_model_free(struct report *r)
{
	json_decref(r->host_state);
	r->host_state = NULL;
	json_decref(r->preflight);
	r->preflight = NULL;
	for (size_t i = 0; i < r->nblocks; i++) {
		struct rblock *b = &r->blocks[i];
		for (size_t k = 0; k < b->end - b->first; k++)
			free(b->modes[k].irqs);
		free(b->modes);
		free(b->latency_plot);
		free(b->irqs_plot);
		timelines_free(b);
		cmp_modes_free(&b->cmp);
		cmp_paired_free(&b->paired);
		free(b->label);
	}
	free(r->blocks);
	for (size_t i = 0; i < r->nbuilds; i++) {
		free(r->builds[i].missing);
		cmp_modes_free(&r->builds[i].cmp);
	}
	free(r->builds);
	for (size_t i = 0; i < r->nseeds; i++) {
		cmp_ms_free(&r->seeds[i].ms_ref);
		cmp_ms_free(&r->seeds[i].ms_meas);
	}
	free(r->seeds);
	for (size_t i = 0; i < r->ncharts; i++) {
		for (size_t k = 0; k < r->charts[i].nrows; k++)
			free(r->charts[i].rows[k].label);
		free(r->charts[i].rows);
		free(r->charts[i].left_out);
		free(r->charts[i].plot);
	}
	free(r->charts);
	for (size_t i = 0; i < r->nsweeps; i++) {
		for (size_t k = 0; k < r->sweeps[i].nseries; k++)
			free(r->sweeps[i].series[k].label);
		free(r->sweeps[i].pts);
		free(r->sweeps[i].plot);
		free(r->sweeps[i].plot_icr);
	}
	free(r->sweeps);
	for (size_t f = 0; r->hf && f < r->d.nhf; f++) {
		cmp_ms_free(&r->hf[f].ms);
		free(r->hf[f].plot);
		free(r->hf[f].title);
	}
	free(r->hf);
	cmp_perf_free(&r->perf_rep);
}
