/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/report_timeline.c: the send-to-receive timeline of a flush or
 * IPI workload, per mode whose run kept a trace (results.json's
 * workloads[].trace): one operation, its sender's ICR writes and each
 * target's receive on a CPU axis, titled with the median send-to-last-
 * receive latency of the operations like it.  Computed once into struct
 * rtl (report.h), then drawn, written as Markdown and as JSON; beside the
 * plot, the trace's Chrome JSON export (timeline_export()).
 *
 * The records and their pairing come from the trace reader
 * (tr_ipi_run_each(), probes/trace.h), the pairing of trace ipi and the
 * export: a receive belongs to the operation of its vector that last
 * began (first ICR write) before it.  A trace that cannot be read, or has no complete operation, gives
 * no plot, one warning line on stderr and the reason in the report.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "workloads/workloads.h"
#include "analysis/internal.h"
#include "analysis/report.h"
#include "lib/safeio.h"
#include "probes/export.h"
#include "probes/trace.h"

/* ---- reading one trace ----------------------------------------------------- */
/* Per operation of the trace (pass 1). */
struct tl_op {
	uint64_t first, last_recv, send_tsc;
	uint32_t cpu, vec, dests, icr, nrecv;
	int mode;		/* -1: no send record (yet) */
	bool first_set, tsc_ok;
};

struct tl_pass1 {
	struct tl_op *ops;
	size_t n, cap;
	bool capped;
};

static struct tl_op *tl_op_at(struct tl_pass1 *p, uint64_t op)
{
	if (op == TR_NO_SEND || op >= RP_TL_MAXOPS) {
		if (op != TR_NO_SEND)
			p->capped = true;
		return NULL;
	}
	if (op >= p->cap) {
		size_t cap = p->cap ? p->cap : 1024;
		while (cap <= op)
			cap *= 2;
		p->ops = xrealloc(p->ops, cap * sizeof(*p->ops));
		memset(p->ops + p->cap, 0, (cap - p->cap) * sizeof(*p->ops));
		for (size_t i = p->cap; i < cap; i++)
			p->ops[i].mode = -1;
		p->cap = cap;
	}
	if (op >= p->n)
		p->n = op + 1;
	return &p->ops[op];
}

static void tl_first(struct tl_op *o, const struct tr_ipi_ev *e)
{
	if (!o->first_set) {
		o->first_set = true;
		o->tsc_ok = e->has_tsc;
		o->first = e->tsc;
	}
	o->tsc_ok &= e->has_tsc;
}

static void pass1(void *arg, const struct tr_ipi_ev *e)
{
	struct tl_op *o = tl_op_at(arg, e->op);
	if (!o)
		return;
	switch (e->kind) {
	case TR_EV_ICR_WRITE:
		tl_first(o, e);
		break;
	case TR_EV_SEND:
		tl_first(o, e);
		o->mode = e->mode;
		o->cpu = e->cpu;
		o->vec = e->vec;
		o->dests = e->dests;
		o->icr = e->icr;
		o->send_tsc = e->tsc;
		break;
	case TR_EV_RECV:
		o->nrecv++;
		if (e->has_tsc && e->tsc > o->last_recv)
			o->last_recv = e->tsc;
		break;
	}
}

/* Pass 2: the records of the operation shown. */
struct tl_pass2 {
	uint64_t op, t0;
	struct rtl *t;
	double scale;		/* cycles -> ns, or 1 */
};

static void tl_add(struct rtl_ev **v, size_t *n, const struct rtl_ev *e)
{
	if (*n >= RP_TL_MAXEV)
		return;
	if (!*v)
		*v = xcalloc(RP_TL_MAXEV, sizeof(**v));
	(*v)[(*n)++] = *e;
}

static void pass2(void *arg, const struct tr_ipi_ev *e)
{
	struct tl_pass2 *p = arg;
	if (e->op != p->op || !e->has_tsc)
		return;
	struct rtl_ev x = { .cpu = e->cpu, .t = (double)(e->tsc - p->t0) * p->scale,
			    .dest = e->dest };
	if (e->kind == TR_EV_ICR_WRITE)
		tl_add(&p->t->icrw, &p->t->nicrw, &x);
	else if (e->kind == TR_EV_RECV)
		tl_add(&p->t->recv, &p->t->nrecv, &x);
	else
		p->t->send_t = x.t;
}

struct tl_cand {
	uint64_t op, lat;
};

static int cand_cmp(const void *a, const void *b)
{
	const struct tl_cand *x = a, *y = b;
	return x->lat < y->lat ? -1 : x->lat > y->lat ? 1 : x->op < y->op ? -1 : x->op > y->op;
}

__attribute__((format(printf, 2, 3)))
static void tl_warn(struct rtl *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	t->warn = xvasprintf(fmt, ap);
	va_end(ap);
}

/* The operations of the widest send that are complete: their numbers and
 * latencies (malloc'ed, *n). */
static struct tl_cand *candidates(const struct tl_pass1 *p, size_t *n, uint32_t *dests)
{
	/* the widest destination count, then its (mode, vector) with the most
	 * complete operations */
	uint32_t wide = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->ops[i].mode >= 0 && p->ops[i].dests > wide)
			wide = p->ops[i].dests;
	*dests = wide;
	size_t best = 0, cnt[TR_NMODES][256];
	int bm = -1, bv = -1;
	memset(cnt, 0, sizeof(cnt));
	for (size_t i = 0; i < p->n; i++) {
		const struct tl_op *o = &p->ops[i];
		if (o->mode < 0 || o->mode >= TR_NMODES || o->dests != wide || !wide ||
		    o->nrecv != o->dests || !o->tsc_ok || o->last_recv < o->first)
			continue;
		size_t c = ++cnt[o->mode][o->vec & 0xff];
		if (c > best) {
			best = c;
			bm = o->mode;
			bv = (int)(o->vec & 0xff);
		}
	}
	*n = 0;
	if (!best)
		return NULL;
	struct tl_cand *c = xcalloc(best, sizeof(*c));
	for (size_t i = 0; i < p->n; i++) {
		const struct tl_op *o = &p->ops[i];
		if (o->mode == bm && (int)(o->vec & 0xff) == bv && o->dests == wide &&
		    o->nrecv == o->dests && o->tsc_ok && o->last_recv >= o->first)
			c[(*n)++] = (struct tl_cand){ .op = i, .lat = o->last_recv - o->first };
	}
	qsort(c, *n, sizeof(*c), cand_cmp);
	return c;
}

/* T of group G: read its trace, choose the operation, fill the model. */
/* PATH, G's trace, opened into F as the report reads it: in the results
 * directory (inputs.c held the path to the name rule), no symbolic link on
 * the way or at the end, a regular file, a xentrace file (plain or .xz).
 * 0, or -1 with the reason (malloc'ed, naming G's trace) in *why. */
static int tl_open(const struct group *g, const char *path, struct xt_file *f, char **why)
{
	char xerr[512];
	struct stat st;

	*why = NULL;
	for (const char *sl = strchr(g->trace, '/'); sl; sl = strchr(sl + 1, '/')) {
		char *p = xasprintf("%s/%.*s", g->trace_dir, (int)(sl - g->trace), g->trace);
		int bad = lstat(p, &st) || !S_ISDIR(st.st_mode);
		free(p);
		if (bad) {
			*why = xasprintf("%s: %s: %.*s is missing, a symbolic link or no directory",
					 g->trace_where, g->trace, (int)(sl - g->trace), g->trace);
			return -1;
		}
	}
	if (lstat(path, &st)) {
		*why = xasprintf("%s: %s: %s", g->trace_where, g->trace, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = xasprintf("%s: %s: not a regular file (%s)", g->trace_where, g->trace,
				 S_ISLNK(st.st_mode) ? "a symbolic link" : "a directory or device");
		return -1;
	}
	if (xt_open(f, path, XT_XZ_MAX_BYTES, xerr, sizeof(xerr))) {
		*why = xasprintf("%s: %s", g->trace_where, xerr);
		return -1;
	}
	return 0;
}

/* T of group G: read its trace, choose the operation, fill the model. */
static void timeline_read(struct rtl *t, const struct group *g)
{
	struct xt_file f;
	struct tr_ipi ipi;
	char *path = xasprintf("%s/%s", g->trace_dir, g->trace);

	if (tl_open(g, path, &f, &t->warn))
		goto out;
	t->trace_bytes = f.len;
	struct tl_pass1 p1 = { 0 };
	if (tr_ipi_run_each(&ipi, &f, pass1, &p1)) {
		tl_warn(t, "%s: %s: out of memory", g->trace_where, g->trace);
		tr_ipi_fini(&ipi);
		free(p1.ops);
		xt_unmap(&f);
		goto out;
	}
	t->tsc_khz = ipi.tsc_khz;
	t->ns = ipi.tsc_khz > 0;
	tr_ipi_fini(&ipi);
	t->ops_capped = p1.capped;
	uint32_t dests;
	size_t n;
	struct tl_cand *c = candidates(&p1, &n, &dests);
	if (!n) {
		tl_warn(t, "%s: %s: no operation with a receive from each destination "
			"(apic:icr_write, apic:send_ipi_*, apic:ipi_recv: record with "
			"trace = 0x00804000)", g->trace_where, g->trace);
	} else {
		double scale = t->ns ? 1e6 / (double)t->tsc_khz : 1.0;
		const struct tl_cand *m = &c[(n - 1) / 2];
		const struct tl_op *o = &p1.ops[m->op];
		t->nops = n;
		t->op = m->op;
		t->median = (double)m->lat * scale;
		t->min = (double)c[0].lat * scale;
		t->max = (double)c[n - 1].lat * scale;
		t->sender = o->cpu;
		t->vec = o->vec;
		t->dests = o->dests;
		t->icr = o->icr;
		t->trmode = tr_mode_name[o->mode];
		struct tl_pass2 p2 = { .op = m->op, .t0 = o->first, .t = t, .scale = scale };
		if (tr_ipi_run_each(&ipi, &f, pass2, &p2))
			tl_warn(t, "%s: %s: out of memory", g->trace_where, g->trace);
		tr_ipi_fini(&ipi);
	}
	free(c);
	free(p1.ops);
	xt_unmap(&f);
out:
	if (t->warn)
		fprintf(stderr, "ipibench report: warning: %s: no timeline\n", t->warn);
	free(path);
}

/* ---- the trace's export -------------------------------------------------------- */
/* The export's size limit: IPIBENCH_REPORT_EXPORT_MAX when it is a number
 * of bytes (digits only, at most UINT64_MAX), else RP_TL_EXPORT_MAX; set
 * to anything else (set empty is unset), one warning line says so. */
static uint64_t export_max(void)
{
	const char *e = getenv("IPIBENCH_REPORT_EXPORT_MAX");
	char *end, q[96];
	if (!e || !*e)
		return RP_TL_EXPORT_MAX;
	errno = 0;
	unsigned long long v = strtoull(e, &end, 10);
	if (*e >= '0' && *e <= '9' && !*end && !errno)
		return (uint64_t)v;
	sio_quote(q, sizeof(q), e);
	fprintf(stderr, "ipibench report: warning: IPIBENCH_REPORT_EXPORT_MAX=%s is not a number "
		"of bytes from 0 to %" PRIu64 ": the export limit is its default, %llu bytes\n", q,
		UINT64_MAX, RP_TL_EXPORT_MAX);
	return RP_TL_EXPORT_MAX;
}

/* S as one shell word: as it is when it holds only [A-Za-z0-9_./+:,=@%-]
 * (and is not empty), else in single quotes (a ' as '\''). */
static void sh_word(struct sbuf *b, const char *s)
{
	bool plain = *s;
	for (const char *p = s; *p && plain; p++)
		plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(*p >= '0' && *p <= '9') || strchr("_./+:,=@%-", *p);
	if (plain) {
		sb_puts(b, s);
		return;
	}
	sb_puts(b, "'");
	for (const char *p = s; *p; p++)
		if (*p == '\'')
			sb_puts(b, "'\\''");
		else
			sb_printf(b, "%c", *p);
	sb_puts(b, "'");
}

__attribute__((format(printf, 2, 3)))
static void export_refused(struct rtl *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	t->export_warn = xvasprintf(fmt, ap);
	va_end(ap);
	char *l = one_line(t->export_warn);
	fprintf(stderr, "ipibench report: warning: %s: no Perfetto export\n", l);
	free(l);
}

void timeline_export(struct report *r, struct rtl *t)
{
	const struct group *g = t->g;
	char *path = xasprintf("%s/%s", g->trace_dir, g->trace);
	char *name = xasprintf("%s.perfetto.json", t->plot);
	char *dest = xasprintf("%s/%s", r->out, name);
	char err[768], warn[1024], *why;
	struct tr_export_meta meta;
	struct tr_export_stats st;
	struct sio_atomic a;
	struct xt_file f;

	if (!r->export_max_read) {	/* once a report: one warning at most */
		r->export_max = export_max();
		r->export_max_read = true;
	}
	uint64_t max = r->export_max;
	if (t->trace_bytes > max) {
		struct sbuf c = { 0 };
		sb_puts(&c, "ipibench trace export ");
		sh_word(&c, path);
		sb_puts(&c, " --format chrome -o ");
		sh_word(&c, dest);
		t->export_cmd = c.s;
		char *l = one_line(t->export_cmd);
		fprintf(stderr, "ipibench report: %s: %s: %" PRIu64 " bytes, over the report's "
			"export limit (%" PRIu64 "): no Perfetto export; %s writes it\n",
			g->trace_where, g->trace, t->trace_bytes, max, l);
		free(l);
		goto out;
	}
	if (tl_open(g, path, &f, &why)) {
		export_refused(t, "%s", why);
		free(why);
		goto out;
	}
	if (tr_export_meta_load(&meta, path, warn, sizeof(warn))) {
		char *l = one_line(warn);
		fprintf(stderr, "ipibench report: warning: %s: export without its metadata: %s\n",
			g->trace_where, l);
		free(l);
	}
	if (sio_atomic_open(&a, dest, 0644, err, sizeof(err))) {
		export_refused(t, "%s: %s: %s", g->trace_where, g->trace, err);
		tr_export_meta_fini(&meta);
		xt_unmap(&f);
		goto out;
	}
	struct tr_chrome *c = tr_chrome_begin(a.f);
	int rc = !c || tr_chrome_file(c, path, &f, &meta, 0, &st);
	tr_export_meta_fini(&meta);
	if (rc)
		export_refused(t, "%s: %s: out of memory or a write error", g->trace_where,
			       g->trace);
	else if (!st.records)	/* as trace export refuses it */
		export_refused(t, "%s: %s: no trace records to export", g->trace_where, g->trace);
	else if (tr_chrome_end(c))
		export_refused(t, "%s: %s: writing %s failed", g->trace_where, g->trace,
			       sio_shown(err, sizeof(err), dest));
	tr_chrome_free(c);
	if (t->export_warn) {
		sio_atomic_abort(&a);
	} else if (sio_atomic_commit(&a, err, sizeof(err))) {
		export_refused(t, "%s: %s: %s", g->trace_where, g->trace, err);
	} else {
		t->export_link = xstrdup(name);
		if (st.an.nmsgs || xt_anom_any(&st.an)) {
			char *l = st.an.nmsgs ? one_line(st.an.msgs[0]) : NULL;
			fprintf(stderr, "ipibench report: warning: %s: %s: partial Perfetto export: %s\n",
				g->trace_where, g->trace, l ? l : "bytes skipped");
			free(l);
		}
	}
	xt_unmap(&f);
out:
	free(path);
	free(name);
	free(dest);
}

/* Flush and IPI workloads: those whose declaration says where a call sends. */
static bool sends_ipis(const char *type)
{
	const struct wl_type *w = wl_type_find(type);
	return w && w->dest != WL_DEST_NONE;
}

void timelines_compute(struct report *r, struct rblock *b, const char *name)
{
	if (!sends_ipis(b->g0->type))
		return;
	for (size_t k = b->first; k < b->end; k++) {
		const struct group *g = &r->d.groups[k];
		if (!g->trace)
			continue;
		if (!b->tl)
			b->tl = xcalloc(b->end - b->first, sizeof(*b->tl));
		struct rtl *t = &b->tl[b->ntl++];
		t->g = g;
		timeline_read(t, g);
		if (!t->warn) {
			char *raw = xasprintf("timeline-%s-%s", name, g->mode);
			t->plot = plot_slug(raw);
			free(raw);
		}
	}
}

void timelines_free(struct rblock *b)
{
	for (size_t i = 0; i < b->ntl; i++) {
		free(b->tl[i].warn);
		free(b->tl[i].export_link);
		free(b->tl[i].export_cmd);
		free(b->tl[i].export_warn);
		free(b->tl[i].icrw);
		free(b->tl[i].recv);
		free(b->tl[i].plot);
	}
	free(b->tl);
	b->tl = NULL;
	b->ntl = 0;
}

/* ---- rendering ---------------------------------------------------------------- */
/* V (ns) as text with a unit: "4.93 us", "812 ns"; cycles as such. */
const char *tl_time(char *buf, size_t n, const struct rtl *t, double v)
{
	if (!t->ns)
		snprintf(buf, n, "%.0f TSC cycles", v);
	else if (v >= 1e6)
		snprintf(buf, n, "%.3f ms", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, n, "%.2f us", v / 1e3);
	else
		snprintf(buf, n, "%.0f ns", v);
	return buf;
}

int timeline_plot(struct report *r, const struct rtl *t)
{
	const struct group *g = t->g;
	double div = t->ns ? 1e3 : 1.0;		/* the axis: us, or cycles */
	const char *unit = t->ns ? "us" : "TSC cycles";
	struct sbuf dat = { 0 }, body = { 0 };
	char b1[48];
	char *tn = one_line(g->trace);
	sb_printf(&dat, "# %s: operation %llu of the trace, the median of %zu like it (%s, vector 0x%02x, %u "
		  "destinations, %u ICR writes) from CPU %u; times in %s from its first ICR write\n"
		  "# index 0: ICR writes (time, sender CPU, destination field)\n",
		  tn, (unsigned long long)t->op, t->nops, t->trmode, t->vec, t->dests, t->icr,
		  t->sender, unit);
	free(tn);
	for (size_t i = 0; i < t->nicrw; i++)
		sb_printf(&dat, "%.17g %u %u\n", t->icrw[i].t / div, t->icrw[i].cpu,
			  t->icrw[i].dest);
	sb_puts(&dat, "\n\n# index 1: receives (time, CPU)\n");
	for (size_t i = 0; i < t->nrecv; i++)
		sb_printf(&dat, "%.17g %u\n", t->recv[i].t / div, t->recv[i].cpu);
	sb_printf(&dat, "\n\n# index 2: the send record (time, sender CPU)\n%.17g %u\n",
		  t->send_t / div, t->sender);
	uint32_t top = t->sender;
	for (size_t i = 0; i < t->nrecv; i++)
		top = t->recv[i].cpu > top ? t->recv[i].cpu : top;
	char *raw = xasprintf("%s (%s), %s, %s, %ld CPUs: one operation to %u CPUs, send to "
			      "last receive %s (the median of %zu)", g->workload, g->type, g->mode,
			      g->host, g->cpus, t->dests, tl_time(b1, sizeof(b1), t, t->median),
			      t->nops);
	char *title = gp_quote(raw);
	free(raw);
	raw = xasprintf("%s from the first ICR write", unit);
	char *xl = gp_quote(raw);
	free(raw);
	char *df = gp_datafile(t->plot);
	sb_printf(&body,
		  "set title %s\nset xlabel %s\nset ylabel 'CPU'\n"
		  "set yrange [-0.5:%u.5]\nset xrange [0:*]\nset key below\n"
		  "set grid xtics ytics lc rgb '#eeeeee'\nset offsets 0, graph 0.03, 0, 0\n"
		  "plot %s index 0 using 1:2 with points pt 9 ps 1.2 lc rgb '#1f77b4' "
		  "title 'ICR write (sender)', \\\n"
		  "     %s index 2 using 1:(-0.5):(0):(%u) with vectors nohead dt 2 lw 1.5 "
		  "lc rgb '#555555' title 'send record (apic:send_ipi_*)', \\\n"
		  "     %s index 1 using 1:2 with points pt 7 ps 1 lc rgb '#d62728' "
		  "title 'receive (apic:ipi_recv)'\n",
		  title, xl, top, df, df, top + 1, df);
	free(title);
	free(xl);
	free(df);
	int h = 260 + 12 * (int)(top < 160 ? top : 160);
	int rc = plot_render(r->out, t->plot, dat.s, body.s, 900, h, r->err);
	if (!rc)
		r->nplots++;
	sb_free(&dat);
	sb_free(&body);
	return rc;
}

json_t *timelines_json(const struct rblock *b)
{
	json_t *a = json_array();
	for (size_t i = 0; i < b->ntl; i++) {
		const struct rtl *t = &b->tl[i];
		json_t *o = json_pack("{s:s, s:s, s:o}", "mode", t->g->mode, "trace", t->g->trace,
				      "plot", t->plot ? json_string(t->plot) : json_null());
		if (t->warn) {
			json_object_set_new(o, "warning", json_string(t->warn));
		} else {
			json_object_update_new(o, json_pack(
				"{s:s, s:I, s:b, s:I, s:s, s:i, s:i, s:i, s:i, s:o, s:o, s:o, s:I, s:I, s:o}",
				"unit", t->ns ? "ns" : "cycles", "operations", (json_int_t)t->nops,
				"operations_capped", t->ops_capped, "shown", (json_int_t)t->op,
				"trace_mode", t->trmode, "vector", (int)t->vec, "sender", (int)t->sender,
				"destinations", (int)t->dests, "icr_writes", (int)t->icr,
				"median", an_jreal(t->median), "min", an_jreal(t->min),
				"max", an_jreal(t->max), "receives", (json_int_t)t->nrecv,
				"icr_write_records", (json_int_t)t->nicrw,
				"export", t->export_link ? json_string(t->export_link) : json_null()));
			if (t->export_cmd)
				json_object_set_new(o, "export_command", json_string(t->export_cmd));
			if (t->export_warn)
				json_object_set_new(o, "export_warning", json_string(t->export_warn));
		}
		json_array_append_new(a, o);
	}
	return a;
}
