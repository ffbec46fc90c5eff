/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/report_plots.c: the plots of `ipibench report`, from the model
 * (report.h): per block the latency box plot and the interrupt heat map,
 * the ICR and vector bar charts, the sweeps and the hyperfine box plots.
 * Each is NAME.dat + NAME.gp drawn by plot_render() (plot.c).
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"
#include "analysis/report.h"

/* Draw plot NAME from its data and script, then free both. */
static int draw(struct report *r, const char *name, struct sbuf *dat, struct sbuf *body,
		int width, int height)
{
	int rc = plot_render(r->out, name, dat->s, body->s, width, height, r->err);
	if (!rc)
		r->nplots++;
	sb_free(dat);
	sb_free(body);
	return rc;
}

/* A plot title as a gnuplot string (malloc'ed). */
__attribute__((format(printf, 1, 2)))
static char *gp_title(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *raw = xvasprintf(fmt, ap);
	va_end(ap);
	char *q = gp_quote(raw);
	free(raw);
	return q;
}

/* The header line of a data file: head, then the modes. */
static void dat_head(struct sbuf *dat, const char *head, const char *const *modes, size_t nm)
{
	sb_puts(dat, head);
	for (size_t m = 0; m < nm; m++)
		sb_printf(dat, " %s", modes[m]);
	sb_puts(dat, "\n");
}

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
	return draw(r, name, &dat, &body, 800, 500);
}

/* ---- per block ----------------------------------------------------------- */
static int plot_latency(struct report *r, const struct rblock *b)
{
	const struct group *g0 = b->g0;
	const char *labels[8];
	double *v[8];
	size_t n[8], k = 0;
	for (size_t j = 0; j < b->end - b->first && k < 8; j++) {
		const struct group *g = b->modes[j].g;
		if (g->n) {
			labels[k] = g->mode;
			v[k] = g->ns;
			n[k++] = g->n;
		}
	}
	char *title = xasprintf("%s (%s), %s, %ld CPUs%s: per-call latency", g0->workload,
				g0->type, g0->host, g0->cpus, g0->emulated ? ", QEMU TCG" : "");
	int rc = boxplot(r, b->latency_plot, title, "latency per operation (ns)", labels, v, n, k);
	free(title);
	return rc;
}

static int plot_irqs(struct report *r, const struct rblock *b)
{
	const struct group *g0 = b->g0;
	size_t nm = b->end - b->first;
	struct sbuf dat = { 0 }, body = { 0 };
	size_t rows = 0, ncpu = 0;
	sb_puts(&body, "set ytics (");
	for (size_t j = 0; j < nm; j++)
		if (b->modes[j].g->nirqs > ncpu)
			ncpu = b->modes[j].g->nirqs;
	sb_printf(&dat, "# interrupts per CPU (mean per run): one column per CPU, one row per mode:");
	for (size_t j = 0; j < nm; j++)
		if (b->modes[j].g->nirqs)
			sb_printf(&dat, " %s", b->modes[j].g->mode);
	sb_puts(&dat, "\n");
	for (size_t j = 0; j < nm; j++) {
		const struct rmode *m = &b->modes[j];
		if (!m->g->nirqs)
			continue;
		for (size_t c = 0; c < ncpu; c++)
			sb_printf(&dat, "%s%.17g", c ? " " : "", c < m->g->nirqs ? m->irqs[c] : 0.0);
		sb_puts(&dat, "\n");
		char *qm = gp_quote(m->g->mode);
		sb_printf(&body, "%s%s %zu", rows ? ", " : "", qm, rows);
		free(qm);
		rows++;
	}
	char *t = gp_title("%s: interrupts per CPU, %s, %ld CPUs", g0->workload, g0->host,
			   g0->cpus);
	char *df = gp_datafile(b->irqs_plot);
	sb_printf(&body,
		  ")\nset title %s\nset xlabel 'CPU'\nset cblabel 'interrupts per run'\n"
		  "set palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#ef6548', 3 '#7f0000')\n"
		  "set cbrange [0:*]\nset xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\n"
		  "set tics out\nunset grid\n"
		  "plot %s matrix with image notitle\n",
		  t, ncpu - 1, rows - 1, df);
	free(df);
	free(t);
	return draw(r, b->irqs_plot, &dat, &body, 900, 120 + 60 * (int)rows);
}

/* ---- over blocks ------------------------------------------------------------ */
static int plot_chart(struct report *r, const struct rchart *c)
{
	struct sbuf dat = { 0 }, body = { 0 };
	dat_head(&dat, "workload", c->modes, c->nm);
	for (size_t j = 0; j < c->nrows; j++) {
		char *wn = slugify(c->rows[j].label);
		sb_puts(&dat, wn);
		free(wn);
		for (size_t m = 0; m < c->nm; m++)
			if (isnan(c->rows[j].v[m]))
				sb_puts(&dat, " -");
			else
				sb_printf(&dat, " %.17g", c->rows[j].v[m]);
		sb_puts(&dat, "\n");
	}
	char *t = gp_title("%s, %s, %ld CPUs", c->icr ? "ICR writes per operation" :
			   "vector capacity", c->host, c->cpus);
	char *df = gp_datafile(c->plot);
	char *yl = gp_quote(c->icr ? "ICR writes per operation" : "vectors that fit");
	sb_printf(&body,
		  "set title %s\nset ylabel %s\nset datafile missing '-'\n"
		  "set style data histograms\nset style histogram clustered gap 1\n"
		  "set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
		  "set yrange [0:*]\nset key top right\nset xtics nomirror\n"
		  "plot for [c=2:%zu] %s using c:xtic(1) title columnheader(c)\n",
		  t, yl, c->nm + 1, df);
	free(df);
	free(yl);
	free(t);
	return draw(r, c->plot, &dat, &body, 800, 450);
}

/* A figure in a data file, '-' when missing. */
static void dat_num(struct sbuf *dat, double v)
{
	if (isnan(v) || isinf(v))
		sb_puts(dat, " -");
	else
		sb_printf(dat, " %.17g", v);
}

/* The sweep's data: one block per series (gnuplot index, in key order),
 * one row per CPU count it ran at. */
static void sweep_dat(const struct rsweep *s, struct sbuf *dat)
{
	sb_puts(dat, "# one block per series (gnuplot index): cpus, ICR writes per operation "
		     "measured, the layout's, ns per operation, q1, q3 ('-' = none)\n");
	for (size_t i = 0; i < s->nseries; i++) {
		char *l = one_line(s->series[i].label);
		sb_printf(dat, "%s# %s\n", i ? "\n\n" : "", l);
		free(l);
		for (size_t k = 0; k < s->npts; k++) {
			const struct rsweep_val *v = &s->pts[k].v[i];
			if (!v->g)
				continue;
			sb_printf(dat, "%ld", s->pts[k].cpus);
			dat_num(dat, v->icr);
			dat_num(dat, v->icr_layout);
			dat_num(dat, v->ns);
			dat_num(dat, v->q1);
			dat_num(dat, v->q3);
			sb_puts(dat, "\n");
		}
	}
}

/* What a sweep's time per operation is, for titles and labels. */
const char *sweep_time_text(const struct rsweep *s)
{
	return s->loop && s->percall ? "per-call median or mean of timed loops (see the key)" :
	       s->loop ? "mean of timed loops, ns / calls" : "per-call median";
}

/* "WORKLOAD (TYPE) on HOST" or "... on N hosts", ", emulated (QEMU TCG)". */
static char *sweep_what(const struct rsweep *s)
{
	return s->nhosts > 1 ?
		xasprintf("%s (%s) on %zu hosts%s", s->g0->workload, s->g0->type, s->nhosts,
			  s->g0->emulated ? ", emulated (QEMU TCG)" : "") :
		xasprintf("%s (%s) on %s%s", s->g0->workload, s->g0->type, s->g0->host,
			  s->g0->emulated ? ", emulated (QEMU TCG)" : "");
}

/*
 * Both sweep plots are log-log: CPU counts are powers of two (base 2 on
 * x).  ICR writes per operation go as N - 1 (physical) or the clusters
 * reached, about N / 16 (cluster, mixed): base 2 on y too, so both are
 * lines of slope 1, 4 ticks (16 = a cluster) apart where the modes part.
 * Times span decades (and emulated ones are ~1000x hardware): base 10.
 */
static int plot_sweep(struct report *r, const struct rsweep *s, bool icr)
{
	struct sbuf dat = { 0 }, body = { 0 };
	const char *name = icr ? s->plot_icr : s->plot;
	char *what = sweep_what(s);
	char *t = icr ? gp_title("%s: ICR writes per operation vs CPUs", what) :
			gp_title("%s: time per operation vs CPUs", what);
	char *yl = icr ? gp_quote("ICR writes per operation") :
			 gp_title("ns per operation (%s%s)", sweep_time_text(s),
				  s->percall ? "; bars: IQR" : "");
	free(what);
	sweep_dat(s, &dat);
	char *df = gp_datafile(name);
	sb_printf(&body,
		  "set title %s\nset xlabel 'CPUs'\nset ylabel %s\n"
		  "set logscale x 2\nset logscale y %d\n"
		  "set datafile missing '-'\nset key below Left reverse\nset pointsize 1\n"
		  "set offsets graph 0.05, graph 0.05, 0, 0\n", t, yl, icr ? 2 : 10);
	free(t);
	free(yl);
	/* a tic at each CPU count run (12, 24, 48 are no powers of two) */
	sb_puts(&body, "set xtics (");
	for (size_t k = 0; k < s->npts; k++)
		sb_printf(&body, "%s%ld", k ? ", " : "", s->pts[k].cpus);
	sb_puts(&body, ")\n");
	if (!icr)
		sb_puts(&body, "set format y '%.0f'\n");
	sb_puts(&body, "plot ");
	size_t nplotted = 0;
	for (size_t i = 0; i < s->nseries; i++) {
		const struct rsweep_series *x = &s->series[i];
		size_t lc = ipibench_mode_index(x->mode) + 1, pt = 4 + 2 * x->topo_i;
		bool percall = false, layout = false, measured = false;
		for (size_t k = 0; k < s->npts; k++) {
			const struct rsweep_val *v = &s->pts[k].v[i];
			percall |= v->g && !v->loop;
			layout |= !isnan(v->icr_layout);
			measured |= !isnan(v->icr);
		}
		bool timed = false;
		for (size_t k = 0; k < s->npts; k++)
			timed |= !isnan(s->pts[k].v[i].ns);
		if (!icr && !timed)
			continue;
		char *ql = gp_quote(x->label);
		const char *sep = !icr && nplotted++ ? ", \\\n     " : "";
		if (icr) {
			/* (gnuplot warns about a block with no valid point: none drawn) */
			if (measured)
				sb_printf(&body, "%s%s index %zu using 1:2 with linespoints lc %zu "
					  "pt %zu title %s", nplotted++ ? ", \\\n     " : "", df, i,
					  lc, pt, ql);
			if (layout) {
				char *qx = gp_title("%s: what the layout implies", x->label);
				sb_printf(&body, "%s%s index %zu using 1:3 with lines lc %zu dt 2 "
					  "title %s", nplotted++ ? ", \\\n     " : "", df, i, lc, qx);
				free(qx);
			}
		} else if (percall) {
			sb_printf(&body, "%s%s index %zu using 1:4:5:6 with yerrorlines lc %zu "
				  "dt %zu pt %zu title %s", sep, df, i, lc, x->topo_i + 1, pt, ql);
		} else {
			sb_printf(&body, "%s%s index %zu using 1:4 with linespoints lc %zu dt %zu "
				  "pt %zu title %s", sep, df, i, lc, x->topo_i + 1, pt, ql);
		}
		free(ql);
	}
	sb_puts(&body, "\n");
	free(df);
	/* the key below: a line per entry */
	return draw(r, name, &dat, &body, 900, 460 + 22 * (int)(s->nseries * (icr ? 2 : 1)));
}

static int plot_hyperfine(struct report *r, const struct rhf *x)
{
	const char *labels[RP_MAXBOXES];
	char *lab[RP_MAXBOXES];
	double *v[RP_MAXBOXES];
	size_t n[RP_MAXBOXES];
	for (size_t k = 0; k < x->nbox; k++) {
		const struct hf_cmd *c = &x->h->cmds[x->box_cmd[k]];
		lab[k] = xasprintf("%zu", x->box_cmd[k] + 1);
		labels[k] = lab[k];
		v[k] = c->times;
		n[k] = c->n;
	}
	int rc = boxplot(r, x->plot, x->title, "seconds", labels, v, n, x->nbox);
	for (size_t k = 0; k < x->nbox; k++)
		free(lab[k]);
	return rc;
}

int render_plots(struct report *r)
{
	for (size_t i = 0; i < r->nblocks; i++) {
		const struct rblock *b = &r->blocks[i];
		progress("report: workload %zu/%zu: %s on %s, %ld CPUs", i + 1, r->nblocks,
			 b->g0->workload, b->g0->host, b->g0->cpus);
		if ((b->latency_plot && plot_latency(r, b)) || (b->irqs_plot && plot_irqs(r, b)))
			return -1;
		for (size_t k = 0; k < b->ntl; k++) {
			if (!b->tl[k].plot)
				continue;
			if (timeline_plot(r, &b->tl[k]))
				return -1;
			timeline_export(r, &b->tl[k]);
		}
	}
	for (size_t i = 0; i < r->ncharts; i++)
		if (r->charts[i].plot && plot_chart(r, &r->charts[i]))
			return -1;
	for (size_t i = 0; i < r->nsweeps; i++)
		if ((r->sweeps[i].plot && plot_sweep(r, &r->sweeps[i], false)) ||
		    (r->sweeps[i].plot_icr && plot_sweep(r, &r->sweeps[i], true)))
			return -1;
	for (size_t f = 0; f < r->d.nhf; f++)
		if (r->hf[f].plot && plot_hyperfine(r, &r->hf[f]))
			return -1;
	return 0;
}
