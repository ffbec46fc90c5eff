/*
 * analysis/report_plots.c: the plots of `ipibench report`, from the model
 * (report.h): per block the latency box plot and the interrupt heat map,
 * the ICR and vector bar charts, the sweeps and the hyperfine box plots.
 * Each is NAME.dat + NAME.gp drawn by plot_render() (plot.c).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
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
	char *raw;
	va_start(ap, fmt);
	int n = vasprintf(&raw, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fprintf(stderr, "ipibench: out of memory\n");
		abort();
	}
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
		char *wn = slugify(c->rows[j].workload);
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

static int plot_sweep(struct report *r, const struct rsweep *s)
{
	struct sbuf dat = { 0 }, body = { 0 };
	dat_head(&dat, "# cpus, then per mode: median q1 q3 of per-call latency ('-' = missing):",
		 s->modes, s->nm);
	for (size_t k = 0; k < s->npts; k++) {
		const struct rsweep_pt *p = &s->pts[k];
		sb_printf(&dat, "%ld", p->cpus);
		for (size_t m = 0; m < s->nm; m++) {
			const struct group *g = p->g[m];
			if (g && g->n)
				sb_printf(&dat, " %.17g %.17g %.17g", g->sum.median, g->sum.q1,
					  g->sum.q3);
			else
				sb_puts(&dat, " - - -");
		}
		sb_puts(&dat, "\n");
	}
	char *t = gp_title("%s (%s), %s: median per-call latency vs CPUs (bars: IQR)",
			   s->g0->workload, s->g0->type, s->g0->host);
	char *df = gp_datafile(s->plot);
	sb_printf(&body,
		  "set title %s\nset xlabel 'CPUs'\nset ylabel 'median latency per operation (ns)'\n"
		  "set datafile missing '-'\nset key top left\nset pointsize 1\n"
		  "set offsets graph 0.05, graph 0.05, 0, 0\nplot ", t);
	for (size_t m = 0; m < s->nm; m++) {
		char *qm = gp_quote(s->modes[m]);
		sb_printf(&body, "%s%s using 1:%zu:%zu:%zu with yerrorlines title %s",
			  m ? ", \\\n     " : "", df, 2 + 3 * m, 3 + 3 * m, 4 + 3 * m, qm);
		free(qm);
	}
	sb_puts(&body, "\n");
	free(df);
	free(t);
	return draw(r, s->plot, &dat, &body, 800, 500);
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
	}
	for (size_t i = 0; i < r->ncharts; i++)
		if (plot_chart(r, &r->charts[i]))
			return -1;
	for (size_t i = 0; i < r->nsweeps; i++)
		if (plot_sweep(r, &r->sweeps[i]))
			return -1;
	for (size_t f = 0; f < r->d.nhf; f++)
		if (r->hf[f].plot && plot_hyperfine(r, &r->hf[f]))
			return -1;
	return 0;
}
