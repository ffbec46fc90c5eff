/*
 * analysis/report_guests.c: the report's "Guest IPIs and interrupts"
 * section.  For each guest run of the results (inputs.c's guest_runs[]),
 * its traces are read through the probes library (xt_open: plain or xz;
 * tr_summary_run: the HVM profile; tr_hvm_guests: IPIs sent, exits and
 * injections per IPI and per interrupt), and the evtchn path (before) is
 * set beside the apic path (after) and beside the seed's own before and
 * after (results/reference/seed-004.json, probes/hvmref.c).  All figures are
 * exact counts from the traces and their ratios, of an emulated host:
 * counts, not times.  Rendered as Markdown (guests_md) and JSON
 * (guests_json); the report renders no HTML.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/internal.h"
#include "analysis/report.h"
#include "probes/trace.h"
#include "probes/hvmref.h"

#define TOP_MOVING 5

static const char guest_note[] =
	"Exact counts from the xentrace files of each guest run (an emulated host: counts and "
	"their ratios, not times). IPIs sent: on the apic path the x2APIC ICR IPIs to other "
	"vCPUs (MSR 0x830 write exits), on the evtchn path the event_channel_op hypercalls "
	"(VMMCALL records carry the hypercall number, not the sub-op: every event_channel_op "
	"call counts, sends or not); self-IPIs apart. Interrupts: injections (INJ_VIRQ) not on "
	"an ICR IPI vector, Xen's upcall vector 243 included (it carries event-channel IPIs, "
	"timers and pirqs alike). Each ratio names its denominator.";

static int cnt_cmp(const void *a, const void *b)
{
	const struct rgcount *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->name, y->name);
}

uint64_t rg_count(const struct rgcount *c, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return c[i].n;
	return 0;
}

/* The guest of one trace: its guest domains summed (tr_hvm_guest_sum:
 * not dom0, not idle), or, in a trace without scheduler records, the
 * default domain. */
static int trace_fill(struct rgtrace *t, const struct tr_summary *s)
{
	struct tr_hvm_guest *g, d;
	uint32_t n;
	int nd;

	if (tr_hvm_guests(&s->hvm, &g, &n))
		return -1;
	nd = tr_hvm_guest_sum(g, n, &d);
	tr_hvm_guests_free(g, n);
	if (nd < 0) {
		tr_hvm_guest_fini(&d);
		return -1;
	}
	t->sched = s->hvm.sched_records > 0;
	t->records = s->records;
	t->ndoms = (uint32_t)nd;
	t->icr_ipis = d.ipi_sent;
	t->evtchn_op = d.evtchn_op;
	t->self = d.ipi_self;
	t->exits = d.exits;
	t->vmexit = d.vmexit;
	t->inj = d.inj;
	t->inj_ipi = d.inj_ipi;
	t->inj_irq = d.inj_irq;
	t->detected = d.path;
	t->ipis = d.ipis;
	t->nreasons = 0;
	t->reasons = xcalloc(d.reason.cap + 1, sizeof(*t->reasons));
	for (uint32_t j = 0; j < d.reason.cap; j++) {
		const char *nm;

		if (!d.reason.used[j] || !d.reason.v[j])
			continue;
		struct rgcount *c = &t->reasons[t->nreasons++];

		nm = tr_hvm_exit_name(s->hvm.svm, d.reason.key[j]);
		if (nm)
			snprintf(c->name, sizeof(c->name), "%s", nm);
		else
			snprintf(c->name, sizeof(c->name), "%u", d.reason.key[j]);
		c->n = d.reason.v[j];
	}
	tr_hvm_guest_fini(&d);
	if (t->nreasons)
		qsort(t->reasons, t->nreasons, sizeof(*t->reasons), cnt_cmp);
	size_t nr;
	struct tr_row *rows = tr_summary_rows(s, &nr);
	if (!rows)
		return -1;
	t->events = xcalloc(nr + 1, sizeof(*t->events));
	for (size_t i = 0; i < nr; i++) {
		snprintf(t->events[i].name, sizeof(t->events[i].name), "%s", rows[i].name);
		t->events[i].n = rows[i].count;
	}
	t->nevents = nr;
	free(rows);
	return 0;
}

/* Read trace K of guest run G into T; -1 with one line naming the results
 * file and the JSON path in err. */
static int trace_read(const struct guest_run *g, size_t k, struct rgtrace *t, char *err)
{
	char xerr[512];
	struct xt_file f;
	struct tr_summary s;
	struct stat st;
	char *p;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	t->key = guest_trace_key[k];
	if (!g->trace[k])
		return 0;
	t->present = true;
	t->name = g->trace[k];
	/* within the results directory: a relative path of names (checked by
	 * inputs.c), each directory on the way a real one, and the trace no
	 * symbolic link, no directory, no device */
	for (const char *sl = strchr(g->trace[k], '/'); sl; sl = strchr(sl + 1, '/')) {
		p = xasprintf("%s/%.*s", g->dir, (int)(sl - g->trace[k]), g->trace[k]);
		const char *why = lstat(p, &st) ? "missing" :
				  S_ISLNK(st.st_mode) ? "a symbolic link" :
				  !S_ISDIR(st.st_mode) ? "not a directory" : NULL;

		if (why) {
			an_err(err, "%s: $.guest_runs[%zu].traces.%s: %s: %.*s is %s", g->results,
			       g->index, t->key, g->trace[k], (int)(sl - g->trace[k]), g->trace[k], why);
			free(p);
			return -1;
		}
		free(p);
	}
	p = xasprintf("%s/%s", g->dir, g->trace[k]);
	if (lstat(p, &st)) {
		an_err(err, "%s: $.guest_runs[%zu].traces.%s: %s: %s in the results directory",
		       g->results, g->index, t->key, g->trace[k], strerror(errno));
		free(p);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		an_err(err, "%s: $.guest_runs[%zu].traces.%s: %s: not a regular file (%s)",
		       g->results, g->index, t->key, g->trace[k],
		       S_ISLNK(st.st_mode) ? "a symbolic link" : "a directory or device");
		free(p);
		return -1;
	}
	if (xt_open(&f, p, XT_XZ_MAX_BYTES, xerr, sizeof(xerr))) {
		an_err(err, "%s: $.guest_runs[%zu].traces.%s: %s", g->results, g->index, t->key, xerr);
		free(p);
		return -1;
	}
	if (tr_summary_run(&s, &f)) {
		an_err(err, "%s: $.guest_runs[%zu].traces.%s: %s: out of memory", g->results,
		       g->index, t->key, g->trace[k]);
		goto out;
	}
	if (!s.chunks || !s.records)
		an_err(err, "%s: $.guest_runs[%zu].traces.%s: %s: not a xentrace file (%s)",
		       g->results, g->index, t->key, g->trace[k],
		       !f.len ? "empty" : !s.chunks ? "no cpu_change record" : "no trace records");
	else if (!s.has_hvm)
		an_err(err, "%s: $.guest_runs[%zu].traces.%s: %s: no HVM records (record with "
		       "xentrace -e 0x0008ffff)", g->results, g->index, t->key, g->trace[k]);
	else if (trace_fill(t, &s))
		an_err(err, "%s: $.guest_runs[%zu].traces.%s: %s: out of memory", g->results,
		       g->index, t->key, g->trace[k]);
	else
		rc = 0;
	t->anomalies = xt_anom_any(&s.an) || s.an.nmsgs;
	tr_summary_fini(&s);
out:
	xt_unmap(&f);
	free(p);
	return rc;
}

/* The trace the per-IPI figures come from: the one with scheduler records
 * (real domains) when there is one. */
const struct rgtrace *rg_primary(const struct rguest *g)
{
	return g->t[1].present ? &g->t[1] : &g->t[0];
}

/* The one the seed's table uses: the seed's mask (traces.hvm) first. */
const struct rgtrace *rg_seedmask(const struct rguest *g)
{
	return g->t[0].present ? &g->t[0] : &g->t[1];
}

static int moving_cmp(const void *a, const void *b)
{
	const struct rgmove *x = a, *y = b;
	int c = tr_move_cmp(&x->m, &y->m);

	return c ? c : strcmp(x->name, y->name);
}

int guests_load(struct report *r, const char *reference)
{
	r->gbefore = r->gafter = SIZE_MAX;
	if (!r->d.nguests)
		return 0;
	r->guests = xcalloc(r->d.nguests, sizeof(*r->guests));
	for (size_t i = 0; i < r->d.nguests; i++) {
		const struct guest_run *g = &r->d.guests[i];
		struct rguest *rg = &r->guests[r->nguests];
		bool evtchn = !strcmp(g->ipi_path, IPIBENCH_IPI_PATH_EVTCHN);

		if (!evtchn && strcmp(g->ipi_path, IPIBENCH_IPI_PATH_APIC)) {
			an_err(r->err, "%s: $.guest_runs[%zu].ipi_path: \"%s\" is not an IPI path (%s, %s)",
			       g->results, g->index, g->ipi_path, IPIBENCH_IPI_PATH_EVTCHN, IPIBENCH_IPI_PATH_APIC);
			return -1;
		}
		rg->run = g;
		r->nguests++;
		for (size_t k = 0; k < 2; k++)
			if (trace_read(g, k, &rg->t[k], r->err))
				return -1;
		if (evtchn && r->gbefore == SIZE_MAX)
			r->gbefore = r->nguests - 1;
		if (!evtchn && r->gafter == SIZE_MAX)
			r->gafter = r->nguests - 1;
	}
	/* the exit reasons that moved most per IPI, evtchn (before) to apic (after) */
	if (r->gbefore != SIZE_MAX && r->gafter != SIZE_MAX) {
		const struct rgtrace *a = rg_primary(&r->guests[r->gbefore]);
		const struct rgtrace *b = rg_primary(&r->guests[r->gafter]);
		size_t n = 0;

		r->gmoving = xcalloc(a->nreasons + b->nreasons + 1, sizeof(*r->gmoving));
		for (size_t k = 0; k < a->nreasons + b->nreasons; k++) {
			const char *nm = k < a->nreasons ? a->reasons[k].name
							 : b->reasons[k - a->nreasons].name;

			if (k >= a->nreasons && rg_count(a->reasons, a->nreasons, nm))
				continue;
			struct rgmove *m = &r->gmoving[n++];
			snprintf(m->name, sizeof(m->name), "%s", nm);
			m->m = (struct tr_move){ rg_count(a->reasons, a->nreasons, nm), a->ipis,
						 rg_count(b->reasons, b->nreasons, nm), b->ipis };
		}
		if (n)
			qsort(r->gmoving, n, sizeof(*r->gmoving), moving_cmp);
		r->ngmoving = n < TOP_MOVING ? n : TOP_MOVING;
		r->ngmoving_all = n;
	}
	if (!r->no_ref) {
		char herr[512];
		char *p = reference ? xstrdup(reference)
				    : reference_find("IPIBENCH_GUEST_REFERENCE", "results/reference/seed-004.json");

		if (p) {
			if (tr_hvmref_load(p, &r->gref, herr, sizeof(herr))) {
				an_err(r->err, "%s", herr);
				free(p);
				return -1;
			}
			r->have_gref = true;
		}
		free(p);
	}
	return 0;
}

void guests_free(struct report *r)
{
	for (size_t i = 0; i < r->nguests; i++)
		for (size_t k = 0; k < 2; k++) {
			free(r->guests[i].t[k].reasons);
			free(r->guests[i].t[k].events);
		}
	free(r->guests);
	free(r->gmoving);
	if (r->have_gref)
		tr_hvmref_free(&r->gref);
	r->guests = NULL;
	r->gmoving = NULL;
	r->nguests = 0;
}

/* ---- Markdown ------------------------------------------------------------- */

static void md_cell(struct sbuf *md, const char *s)
{
	char *e = md_text(s);

	sb_printf(md, " %s |", e);
	free(e);
}

void guests_md(const struct report *r, struct sbuf *md)
{
	char b1[48], b2[48], b3[48], b4[48];

	if (!r->nguests && !r->d.guests_not_ok)
		return;
	sb_printf(md, "\n## Guest IPIs and interrupts\n\n%s\n\n", guest_note);
	if (r->d.guests_not_ok)
		sb_printf(md, "%zu guest run%s not ok (status other than \"ok\" in results.json: "
			  "its guest_runs[].outcome and .error say why) left out.\n\n",
			  r->d.guests_not_ok, r->d.guests_not_ok == 1 ? "" : "s");
	if (!r->nguests)
		return;
	sb_puts(md, "| results | guest run | IPI path | trace | IPIs sent | ICR IPIs | "
		    "event_channel_op calls | self-IPIs | exits | exits / IPI sent | injections | "
		    "injections / IPI sent | on IPI vectors / IPI sent | interrupts | exits / interrupt | "
		    "the guest's own counts |\n");
	sb_puts(md, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->nguests; i++) {
		const struct rguest *g = &r->guests[i];

		for (size_t k = 0; k < 2; k++) {
			const struct rgtrace *t = &g->t[k];
			struct sbuf wl = { 0 };
			const char *key;
			json_t *v;
			char idx[32];

			if (!t->present)
				continue;
			sb_puts(md, "|");
			md_cell(md, g->run->results);
			snprintf(idx, sizeof(idx), "guest_runs[%zu]", g->run->index);
			md_cell(md, idx);
			md_cell(md, g->run->ipi_path);
			char *cell = xasprintf("%s: %s (%s%s)", t->key, t->name,
					       t->sched ? "real domains" : "default domain",
					       t->anomalies ? ", anomalies" : "");
			md_cell(md, cell);
			free(cell);
			sb_printf(md, " %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64
				  " | %s | %" PRIu64 " | %s | %s | %" PRIu64 " | %s |", t->ipis, t->icr_ipis,
				  t->evtchn_op, t->self, t->exits, an_fixed(b1, 3, tr_ratio(t->exits, t->ipis)), t->inj,
				  an_fixed(b2, 3, tr_ratio(t->inj, t->ipis)), an_fixed(b3, 3, tr_ratio(t->inj_ipi, t->ipis)),
				  t->inj_irq, an_fixed(b4, 3, tr_ratio(t->exits, t->inj_irq)));
			json_object_foreach(g->run->counts, key, v)
				sb_printf(&wl, "%s%s=%" JSON_INTEGER_FORMAT, wl.len ? " " : "", key,
					  json_integer_value(v));
			md_cell(md, wl.len ? wl.s : "-");
			sb_free(&wl);
			sb_puts(md, "\n");
		}
	}
	for (size_t i = 0; i < r->nguests; i++) {
		const struct rgtrace *t = rg_primary(&r->guests[i]);

		if (strcmp(t->detected, r->guests[i].run->ipi_path) && strcmp(t->detected, "none"))
			sb_printf(md, "\nNote: guest_runs[%zu] ran on path %s, but its trace %s shows "
				  "the %s path's IPIs.\n", r->guests[i].run->index,
				  r->guests[i].run->ipi_path, t->key, t->detected);
	}
	if (r->gbefore == SIZE_MAX || r->gafter == SIZE_MAX) {
		sb_puts(md, "\nNo pair of an evtchn and an apic guest run: nothing is compared.\n");
		return;
	}
	const struct rguest *ga = &r->guests[r->gbefore], *gb = &r->guests[r->gafter];
	const struct rgtrace *a = rg_primary(ga), *b = rg_primary(gb);

	sb_printf(md, "\nExits per IPI sent, by reason, evtchn (guest_runs[%zu], %s) -> apic "
		  "(guest_runs[%zu], %s): the %zu that moved most of %zu (exact counts, each over "
		  "its side's IPIs sent: %" PRIu64 " and %" PRIu64 ").\n\n",
		  ga->run->index, a->key, gb->run->index, b->key, r->ngmoving, r->ngmoving_all,
		  a->ipis, b->ipis);
	sb_puts(md, "| exit reason | evtchn exits | evtchn / IPI | apic exits | apic / IPI | "
		    "change / IPI | moved |\n|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->ngmoving; i++) {
		const struct rgmove *m = &r->gmoving[i];
		double va = tr_ratio(m->m.na, m->m.da), vb = tr_ratio(m->m.nb, m->m.db);

		sb_puts(md, "|");
		md_cell(md, m->name);
		sb_printf(md, " %" PRIu64 " | %s | %" PRIu64 " | %s | %s | %s |\n", m->m.na,
			  an_fixed(b1, 3, va), m->m.nb, an_fixed(b2, 3, vb), an_fixed(b3, 3, vb - va),
			  tr_moved(&m->m));
	}
	if (!r->have_gref)
		return;
	a = rg_seedmask(ga);
	b = rg_seedmask(gb);
	{
		char *nm = md_text(r->gref.name), *src = md_text(r->gref.source);

		sb_printf(md, "\nBeside the seed (%s: %s; xentrace -e %s, %g s): its before (MSIs "
			  "through pirqs) beside the evtchn path (%s trace), its after (through the "
			  "APIC) beside the apic path (%s trace).  Counts on an emulated host (QEMU "
			  "TCG, nested SVM, no APIC virtualization) against a whole host's 5 s window: "
			  "compare the ratios and directions, not the counts, and not as times.\n\n",
			  nm, src, r->gref.mask, r->gref.seconds, a->key, b->key);
		free(nm);
		free(src);
	}
	sb_puts(md, "| event | seed before | seed after | seed after / before | evtchn | apic | "
		    "apic / evtchn | evtchn / IPI | apic / IPI | moved: seed / measured (- : neither trace has it) |\n"
		    "|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->gref.nrows; i++) {
		const struct tr_hvmref_row *s = &r->gref.rows[i];
		uint64_t ca = rg_count(a->events, a->nevents, s->name);
		uint64_t cb = rg_count(b->events, b->nevents, s->name);

		sb_puts(md, "|");
		md_cell(md, s->name);
		sb_printf(md, " %" PRIu64 " | %" PRIu64 " | %s | %" PRIu64 " | %" PRIu64 " | %s | %s | %s | %s / %s |\n",
			  s->before, s->after, an_fixed(b1, 3, tr_ratio(s->after, s->before)), ca, cb,
			  an_fixed(b2, 3, tr_ratio(cb, ca)), an_fixed(b3, 3, tr_ratio(ca, a->ipis)), an_fixed(b4, 3, tr_ratio(cb, b->ipis)),
			  tr_moved(&(struct tr_move){ s->before, 1, s->after, 1 }), ca || cb ? tr_moved(&(struct tr_move){ ca, 1, cb, 1 }) : "-");
	}
}

/* ---- JSON ------------------------------------------------------------------- */

static json_t *trace_json(const struct rgtrace *t)
{
	json_t *reasons = json_array();

	for (size_t i = 0; i < t->nreasons; i++)
		json_array_append_new(reasons, json_pack("{s:s,s:I,s:o}", "reason", t->reasons[i].name,
			"count", (json_int_t)t->reasons[i].n,
			"per_ipi", an_jreal(tr_ratio(t->reasons[i].n, t->ipis))));
	return json_pack("{s:s,s:b,s:b,s:I,s:i,s:s,"
			 "s:{s:I,s:I,s:I,s:I},"
			 "s:I,s:I,s:{s:I,s:I,s:I},"
			 "s:{s:s,s:o,s:o,s:o},s:{s:s,s:o},s:o}",
		"file", t->name, "scheduler_records", t->sched, "anomalies", t->anomalies,
		"records", (json_int_t)t->records, "domains", (int)t->ndoms, "ipi_path_seen", t->detected,
		"ipis", "sent", (json_int_t)t->ipis, "icr_ipis", (json_int_t)t->icr_ipis,
		"evtchn_op_calls", (json_int_t)t->evtchn_op, "self", (json_int_t)t->self,
		"exits", (json_int_t)t->exits, "vmexit", (json_int_t)t->vmexit,
		"injections", "all", (json_int_t)t->inj, "ipi_vectors", (json_int_t)t->inj_ipi,
		"interrupts", (json_int_t)t->inj_irq,
		"per_ipi", "denominator", "ipis.sent", "exits", an_jreal(tr_ratio(t->exits, t->ipis)),
		"injections", an_jreal(tr_ratio(t->inj, t->ipis)),
		"ipi_vector_injections", an_jreal(tr_ratio(t->inj_ipi, t->ipis)),
		"per_interrupt", "denominator", "injections.interrupts",
		"exits", an_jreal(tr_ratio(t->exits, t->inj_irq)), "exit_reasons", reasons);
}

json_t *guests_json(const struct report *r)
{
	json_t *runs = json_array(), *o;

	for (size_t i = 0; i < r->nguests; i++) {
		const struct rguest *g = &r->guests[i];
		json_t *traces = json_object();

		for (size_t k = 0; k < 2; k++)
			if (g->t[k].present)
				json_object_set_new(traces, g->t[k].key, trace_json(&g->t[k]));
		json_array_append_new(runs, json_pack("{s:s,s:I,s:s,s:O,s:s,s:o}", "results",
			g->run->results, "index", (json_int_t)g->run->index, "ipi_path",
			g->run->ipi_path, "counts", g->run->counts, "figures_from",
			rg_primary(g)->key, "traces", traces));
	}
	o = json_pack("{s:s,s:b,s:o,s:I}", "note", guest_note, "emulated_counts_not_times", 1, "runs", runs,
		      "runs_not_ok", (json_int_t)r->d.guests_not_ok);
	if (r->gbefore == SIZE_MAX || r->gafter == SIZE_MAX)
		return o;
	json_t *mv = json_array();

	for (size_t i = 0; i < r->ngmoving; i++) {
		const struct rgmove *m = &r->gmoving[i];

		json_array_append_new(mv, json_pack("{s:s,s:{s:I,s:I,s:o},s:{s:I,s:I,s:o},s:s}",
			"reason", m->name,
			"evtchn", "count", (json_int_t)m->m.na, "ipis", (json_int_t)m->m.da,
			"per_ipi", an_jreal(tr_ratio(m->m.na, m->m.da)),
			"apic", "count", (json_int_t)m->m.nb, "ipis", (json_int_t)m->m.db,
			"per_ipi", an_jreal(tr_ratio(m->m.nb, m->m.db)), "moved",
			tr_moved(&m->m)));
	}
	json_object_set_new(o, "before", json_integer((json_int_t)r->guests[r->gbefore].run->index));
	json_object_set_new(o, "after", json_integer((json_int_t)r->guests[r->gafter].run->index));
	json_object_set_new(o, "top_moving_exits", mv);
	if (!r->have_gref)
		return o;
	const struct rgtrace *a = rg_seedmask(&r->guests[r->gbefore]);
	const struct rgtrace *b = rg_seedmask(&r->guests[r->gafter]);
	json_t *rows = json_array();

	for (size_t i = 0; i < r->gref.nrows; i++) {
		const struct tr_hvmref_row *s = &r->gref.rows[i];
		uint64_t ca = rg_count(a->events, a->nevents, s->name);
		uint64_t cb = rg_count(b->events, b->nevents, s->name);

		json_array_append_new(rows, json_pack("{s:s,s:{s:I,s:I,s:o,s:s},s:{s:I,s:I,s:o,s:o,s:o,s:s}}",
			"event", s->name,
			"seed", "before", (json_int_t)s->before, "after", (json_int_t)s->after,
			"ratio", an_jreal(tr_ratio(s->after, s->before)),
			"moved", tr_moved(&(struct tr_move){ s->before, 1, s->after, 1 }),
			"measured", "evtchn", (json_int_t)ca, "apic", (json_int_t)cb,
			"ratio", an_jreal(tr_ratio(cb, ca)),
			"evtchn_per_ipi", an_jreal(tr_ratio(ca, a->ipis)),
			"apic_per_ipi", an_jreal(tr_ratio(cb, b->ipis)),
			"moved", ca || cb ? tr_moved(&(struct tr_move){ ca, 1, cb, 1 }) : "-"));
	}
	json_object_set_new(o, "seed", json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", "file", r->gref.path,
		"name", r->gref.name, "before_beside", "evtchn", "after_beside", "apic",
		"traces", a->key, "rows", rows));
	return o;
}
