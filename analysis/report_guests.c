/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/report_guests.c: the report's "Guest IPIs and interrupts" and
 * "Guest device interrupts" sections, one per kind of guest run (struct
 * rg_kind): the guest's own IPIs (ipi_path evtchn -> apic, per IPI sent)
 * and an HVM guest's emulated NIC (msi_path pirq -> apic, per interrupt
 * injected).  For each guest run of the results (inputs.c's guest_runs[]),
 * its traces are read through the probes library (xt_open: plain or xz;
 * tr_summary_run: the HVM profile; tr_hvm_guest_sum: IPIs sent, exits and
 * injections per IPI and per interrupt), and the kind's before path is
 * set beside its after path and beside the seed's own before and after
 * (results/reference/seed-004.json, probes/hvmref.c).  All figures are
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
#include "lib/safeio.h"

#define TOP_MOVING 5

static const char nic_note[] =
	"Exact counts from the xentrace files of each guest run (an emulated host: counts and "
	"their ratios, not times): an HVM guest with an emulated NIC under a load from dom0 "
	"(ping flood, ab: the load's own figures beside). Interrupts: injections (INJ_VIRQ) not "
	"on an ICR IPI vector; on the pirq path the NIC's MSIs arrive as events on Xen's upcall "
	"vector 243 with every other event (timers, IPIs), on the apic path on the MSI's own "
	"vectors beside the local APIC timer's: the trace cannot tell the NIC's apart, so every "
	"interrupt counts (and an xAPIC guest's own IPIs too: its ICR writes are MMIO, which the "
	"trace does not decode). Each ratio names its denominator.";

static const char guest_note[] =
	"Exact counts from the xentrace files of each guest run (an emulated host: counts and "
	"their ratios, not times). IPIs sent: on the apic path the x2APIC ICR IPIs to other "
	"vCPUs (MSR 0x830 write exits), on the evtchn path the event_channel_op hypercalls "
	"(VMMCALL records carry the hypercall number, not the sub-op: every event_channel_op "
	"call counts, sends or not); self-IPIs apart. Interrupts: injections (INJ_VIRQ) not on "
	"an ICR IPI vector, Xen's upcall vector 243 included (it carries event-channel IPIs, "
	"timers and pirqs alike). Each ratio names its denominator.";

/* The two kinds of guest run, each compared before -> after over its unit. */
static const struct rg_kind {
	const char *title;		/* the section's heading */
	const char *note;
	const char *path_member;	/* guest_runs[].NAME */
	const char *path_label;		/* a table's column */
	const char *before, *after;	/* the seed's before and after paths */
	const char *unit;		/* "IPI sent", "interrupt" */
	const char *unit_key;		/* JSON: per_KEY */
} rg_kinds[GR_NKINDS] = {
	[GR_IPI] = { "Guest IPIs and interrupts", guest_note, "ipi_path", "IPI path",
		     IPIBENCH_IPI_PATH_EVTCHN, IPIBENCH_IPI_PATH_APIC, "IPI sent", "ipi" },
	[GR_NIC] = { "Guest device interrupts (an emulated NIC)", nic_note, "msi_path", "MSI path",
		     IPIBENCH_MSI_PATH_PIRQ, IPIBENCH_MSI_PATH_APIC, "interrupt", "interrupt" },
};

/* The denominator of kind K's comparison in T. */
static uint64_t rg_unit(enum guest_kind k, const struct rgtrace *t)
{
	return k == GR_IPI ? t->ipis : t->inj_irq;
}

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
	t->vmmcall = d.vmmcall;
	t->nvectors = 0;
	t->vectors = xcalloc(d.virq.cap + 1, sizeof(*t->vectors));
	for (uint32_t j = 0; j < d.virq.cap; j++)
		if (d.virq.used[j] && d.virq.v[j]) {
			struct rgcount *c = &t->vectors[t->nvectors++];

			snprintf(c->name, sizeof(c->name), "0x%02x", d.virq.key[j]);
			c->n = d.virq.v[j];
		}
	if (t->nvectors)
		qsort(t->vectors, t->nvectors, sizeof(*t->vectors), cnt_cmp);
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

/* The exit reasons of A and B (either side's), by how far they moved per
 * unit of kind K from A to B, into C. */
static void moving_fill(struct rgcmp *c, enum guest_kind k, const struct rgtrace *a,
			const struct rgtrace *b)
{
	size_t n = 0;

	c->moving = xcalloc(a->nreasons + b->nreasons + 1, sizeof(*c->moving));
	for (size_t j = 0; j < a->nreasons + b->nreasons; j++) {
		const char *nm = j < a->nreasons ? a->reasons[j].name : b->reasons[j - a->nreasons].name;

		if (j >= a->nreasons && rg_count(a->reasons, a->nreasons, nm))
			continue;
		struct rgmove *m = &c->moving[n++];
		snprintf(m->name, sizeof(m->name), "%s", nm);
		m->m = (struct tr_move){ rg_count(a->reasons, a->nreasons, nm), rg_unit(k, a),
					 rg_count(b->reasons, b->nreasons, nm), rg_unit(k, b) };
	}
	if (n)
		qsort(c->moving, n, sizeof(*c->moving), moving_cmp);
	c->nmoving = n < TOP_MOVING ? n : TOP_MOVING;
	c->nmoving_all = n;
}

int guests_load(struct report *r, const char *reference)
{
	for (int k = 0; k < GR_NKINDS; k++) {
		r->gcmp[k].before = r->gcmp[k].after = SIZE_MAX;
		r->gcmp[k].n = 0;
	}
	if (!r->d.nguests)
		return 0;
	r->guests = xcalloc(r->d.nguests, sizeof(*r->guests));
	for (size_t i = 0; i < r->d.nguests; i++) {
		const struct guest_run *g = &r->d.guests[i];
		const struct rg_kind *kd = &rg_kinds[g->kind];
		struct rgcmp *c = &r->gcmp[g->kind];
		struct rguest *rg = &r->guests[r->nguests];
		bool before = !strcmp(g->path, kd->before);

		if (!before && strcmp(g->path, kd->after)) {
			an_err(r->err, "%s: $.guest_runs[%zu].%s: \"%s\" is not %s (%s, %s)", g->results,
			       g->index, kd->path_member, g->path,
			       g->kind == GR_IPI ? "an IPI path" : "an MSI path", kd->before, kd->after);
			return -1;
		}
		rg->run = g;
		r->nguests++;
		c->n++;
		for (size_t k = 0; k < 2; k++)
			if (trace_read(g, k, &rg->t[k], r->err))
				return -1;
		if (before && c->before == SIZE_MAX)
			c->before = r->nguests - 1;
		if (!before && c->after == SIZE_MAX)
			c->after = r->nguests - 1;
	}
	/* the exit reasons that moved most per unit, before to after */
	for (int k = 0; k < GR_NKINDS; k++) {
		struct rgcmp *c = &r->gcmp[k];

		if (c->before != SIZE_MAX && c->after != SIZE_MAX)
			moving_fill(c, (enum guest_kind)k, rg_primary(&r->guests[c->before]),
				    rg_primary(&r->guests[c->after]));
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
			free(r->guests[i].t[k].vectors);
			free(r->guests[i].t[k].events);
		}
	free(r->guests);
	for (int k = 0; k < GR_NKINDS; k++) {
		free(r->gcmp[k].moving);
		r->gcmp[k].moving = NULL;
	}
	if (r->have_gref)
		tr_hvmref_free(&r->gref);
	r->guests = NULL;
	r->nguests = 0;
}

/* ---- Markdown ------------------------------------------------------------- */

static void md_cell(struct sbuf *md, const char *s)
{
	char *e = md_text(s);

	sb_printf(md, " %s |", e);
	free(e);
}

/* "KEY=VALUE ..." of an object's numeric members ("-" when none). */
static void md_members(struct sbuf *md, const json_t *o)
{
	struct sbuf b = { 0 };
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)o, key, v) {
		if (json_is_integer(v))
			sb_printf(&b, "%s%s=%" JSON_INTEGER_FORMAT, b.len ? " " : "", key,
				  json_integer_value(v));
		else if (json_is_real(v))
			sb_printf(&b, "%s%s=%.6g", b.len ? " " : "", key, json_real_value(v));
	}
	md_cell(md, b.len ? b.s : "-");
	sb_free(&b);
}

/* The first row cells of a run's trace: results, run, path, trace. */
static void md_run_cells(struct sbuf *md, const struct rguest *g, const struct rgtrace *t)
{
	char idx[32];

	sb_puts(md, "|");
	md_cell(md, g->run->results);
	snprintf(idx, sizeof(idx), "guest_runs[%zu]", g->run->index);
	md_cell(md, idx);
	md_cell(md, g->run->path);
	char *cell = xasprintf("%s: %s (%s%s)", t->key, t->name,
			       t->sched ? "real domains" : "default domain",
			       t->anomalies ? ", anomalies" : "");
	md_cell(md, cell);
	free(cell);
}

static void md_ipi_rows(const struct report *r, struct sbuf *md)
{
	char b1[48], b2[48], b3[48], b4[48];

	sb_puts(md, "| results | guest run | IPI path | trace | IPIs sent | ICR IPIs | "
		    "event_channel_op calls | self-IPIs | exits | exits / IPI sent | injections | "
		    "injections / IPI sent | on IPI vectors / IPI sent | interrupts | exits / interrupt | "
		    "the guest's own counts |\n");
	sb_puts(md, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->nguests; i++) {
		const struct rguest *g = &r->guests[i];

		if (g->run->kind != GR_IPI)
			continue;
		for (size_t k = 0; k < 2; k++) {
			const struct rgtrace *t = &g->t[k];

			if (!t->present)
				continue;
			md_run_cells(md, g, t);
			sb_printf(md, " %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64
				  " | %s | %" PRIu64 " | %s | %s | %" PRIu64 " | %s |", t->ipis, t->icr_ipis,
				  t->evtchn_op, t->self, t->exits, an_fixed(b1, 3, tr_ratio(t->exits, t->ipis)),
				  t->inj, an_fixed(b2, 3, tr_ratio(t->inj, t->ipis)),
				  an_fixed(b3, 3, tr_ratio(t->inj_ipi, t->ipis)), t->inj_irq,
				  an_fixed(b4, 3, tr_ratio(t->exits, t->inj_irq)));
			md_members(md, g->run->counts);
			sb_puts(md, "\n");
		}
	}
	for (size_t i = 0; i < r->nguests; i++) {
		const struct rgtrace *t = rg_primary(&r->guests[i]);

		if (r->guests[i].run->kind == GR_IPI && strcmp(t->detected, r->guests[i].run->path) &&
		    strcmp(t->detected, "none"))
			sb_printf(md, "\nNote: guest_runs[%zu] ran on path %s, but its trace %s shows "
				  "the %s path's IPIs.\n", r->guests[i].run->index,
				  r->guests[i].run->path, t->key, t->detected);
	}
}

#define NIC_VECTORS 3

static void md_nic_rows(const struct report *r, struct sbuf *md)
{
	char b1[48], b2[48], b3[48];

	sb_puts(md, "| results | guest run | MSI path | trace | interrupts | most injected vectors | "
		    "exits | exits / interrupt | VMMCALL | VMMCALL / interrupt | ICR IPIs | "
		    "exits / VM exit record | the load | the guest's own counts |\n");
	sb_puts(md, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->nguests; i++) {
		const struct rguest *g = &r->guests[i];

		if (g->run->kind != GR_NIC)
			continue;
		for (size_t k = 0; k < 2; k++) {
			const struct rgtrace *t = &g->t[k];
			struct sbuf vec = { 0 };

			if (!t->present)
				continue;
			md_run_cells(md, g, t);
			for (size_t j = 0; j < t->nvectors && j < NIC_VECTORS; j++)
				sb_printf(&vec, "%s%s: %" PRIu64, j ? ", " : "", t->vectors[j].name,
					  t->vectors[j].n);
			sb_printf(md, " %" PRIu64 " |", t->inj_irq);
			md_cell(md, vec.len ? vec.s : "-");
			sb_free(&vec);
			sb_printf(md, " %" PRIu64 " | %s | %" PRIu64 " | %s | %" PRIu64 " | %s |", t->exits,
				  an_fixed(b1, 3, tr_ratio(t->exits, t->inj_irq)), t->vmmcall,
				  an_fixed(b2, 3, tr_ratio(t->vmmcall, t->inj_irq)), t->icr_ipis,
				  an_fixed(b3, 3, tr_ratio(t->exits, t->vmexit)));
			md_members(md, g->run->load);
			md_members(md, g->run->counts);
			sb_puts(md, "\n");
		}
	}
}

static void md_kind(const struct report *r, enum guest_kind kind, struct sbuf *md)
{
	const struct rg_kind *kd = &rg_kinds[kind];
	const struct rgcmp *c = &r->gcmp[kind];
	size_t not_ok = r->d.guests_not_ok[kind];
	char b1[48], b2[48], b3[48], b4[48];

	if (!c->n && !not_ok)
		return;
	sb_printf(md, "\n## %s\n\n%s\n\n", kd->title, kd->note);
	if (not_ok)
		sb_printf(md, "%zu guest run%s not ok (status other than \"ok\" in results.json: "
			  "its guest_runs[].outcome and .error say why) left out.\n\n",
			  not_ok, not_ok == 1 ? "" : "s");
	if (!c->n)
		return;
	if (kind == GR_IPI)
		md_ipi_rows(r, md);
	else
		md_nic_rows(r, md);
	if (c->before == SIZE_MAX || c->after == SIZE_MAX) {
		sb_printf(md, "\nNo pair of guest runs on the %s and the %s path: nothing is compared.\n",
			  kd->before, kd->after);
		return;
	}
	const struct rguest *ga = &r->guests[c->before], *gb = &r->guests[c->after];
	const struct rgtrace *a = rg_primary(ga), *b = rg_primary(gb);

	sb_printf(md, "\nExits per %s, by reason, %s (guest_runs[%zu], %s) -> %s "
		  "(guest_runs[%zu], %s): the %zu that moved most of %zu (exact counts, each over "
		  "its side's %ss: %" PRIu64 " and %" PRIu64 ").\n\n",
		  kd->unit, kd->before, ga->run->index, a->key, kd->after, gb->run->index, b->key,
		  c->nmoving, c->nmoving_all, kd->unit, rg_unit(kind, a), rg_unit(kind, b));
	sb_printf(md, "| exit reason | %s exits | %s / %s | %s exits | %s / %s | "
		  "change / %s | moved |\n|---|---|---|---|---|---|---|\n", kd->before, kd->before,
		  kd->unit, kd->after, kd->after, kd->unit, kd->unit);
	for (size_t i = 0; i < c->nmoving; i++) {
		const struct rgmove *m = &c->moving[i];
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
			  "through pirqs) beside the %s path (%s trace), its after (through the "
			  "APIC) beside the %s path (%s trace).  Counts on an emulated host (QEMU "
			  "TCG, nested SVM, no APIC virtualization) against a whole host's 5 s window: "
			  "compare the ratios and directions, not the counts, and not as times.\n\n",
			  nm, src, r->gref.mask, r->gref.seconds, kd->before, a->key, kd->after, b->key);
		free(nm);
		free(src);
	}
	sb_printf(md, "| event | seed before | seed after | seed after / before | %s | %s | "
		  "%s / %s | %s / %s | %s / %s | moved: seed / measured (- : neither trace has it) |\n"
		  "|---|---|---|---|---|---|---|---|---|---|\n", kd->before, kd->after, kd->after,
		  kd->before, kd->before, kd->unit, kd->after, kd->unit);
	for (size_t i = 0; i < r->gref.nrows; i++) {
		const struct tr_hvmref_row *s = &r->gref.rows[i];
		uint64_t ca = rg_count(a->events, a->nevents, s->name);
		uint64_t cb = rg_count(b->events, b->nevents, s->name);

		sb_puts(md, "|");
		md_cell(md, s->name);
		sb_printf(md, " %" PRIu64 " | %" PRIu64 " | %s | %" PRIu64 " | %" PRIu64 " | %s | %s | %s | %s / %s |\n",
			  s->before, s->after, an_fixed(b1, 3, tr_ratio(s->after, s->before)), ca, cb,
			  an_fixed(b2, 3, tr_ratio(cb, ca)), an_fixed(b3, 3, tr_ratio(ca, rg_unit(kind, a))),
			  an_fixed(b4, 3, tr_ratio(cb, rg_unit(kind, b))),
			  tr_moved(&(struct tr_move){ s->before, 1, s->after, 1 }),
			  ca || cb ? tr_moved(&(struct tr_move){ ca, 1, cb, 1 }) : "-");
	}
}

void guests_md(const struct report *r, struct sbuf *md)
{
	for (int k = 0; k < GR_NKINDS; k++)
		md_kind(r, (enum guest_kind)k, md);
}

/* ---- JSON ------------------------------------------------------------------- */

static json_t *counts_json(const struct rgcount *c, size_t n, const char *name_key, uint64_t den)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s,s:I,s:o}", name_key, c[i].name, "count",
						   (json_int_t)c[i].n, "per_unit", an_jreal(tr_ratio(c[i].n, den))));
	return a;
}

static json_t *trace_json(const struct rgtrace *t, enum guest_kind kind)
{
	json_t *reasons = json_array();

	for (size_t i = 0; i < t->nreasons; i++)
		json_array_append_new(reasons, json_pack("{s:s,s:I,s:o}", "reason", t->reasons[i].name,
			"count", (json_int_t)t->reasons[i].n,
			"per_ipi", an_jreal(tr_ratio(t->reasons[i].n, t->ipis))));
	json_t *o = json_pack("{s:s,s:b,s:b,s:I,s:i,s:s,"
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

	if (kind == GR_NIC) {
		json_t *pi = json_object_get(o, "per_interrupt");

		json_object_set_new(o, "vmmcall", json_integer((json_int_t)t->vmmcall));
		json_object_set_new(pi, "vmmcall", an_jreal(tr_ratio(t->vmmcall, t->inj_irq)));
		json_object_set_new(pi, "exit_reasons", counts_json(t->reasons, t->nreasons, "reason",
								    t->inj_irq));
		json_object_set_new(o, "vectors", counts_json(t->vectors, t->nvectors, "vector",
							      t->inj_irq));
	}
	return o;
}

json_t *guests_json(const struct report *r, enum guest_kind kind)
{
	const struct rg_kind *kd = &rg_kinds[kind];
	const struct rgcmp *c = &r->gcmp[kind];
	json_t *runs = json_array(), *o;

	for (size_t i = 0; i < r->nguests; i++) {
		const struct rguest *g = &r->guests[i];
		json_t *traces, *run;

		if (g->run->kind != kind)
			continue;
		traces = json_object();
		for (size_t k = 0; k < 2; k++)
			if (g->t[k].present)
				json_object_set_new(traces, g->t[k].key, trace_json(&g->t[k], kind));
		run = json_pack("{s:s,s:I,s:s,s:O,s:s,s:o}", "results", g->run->results, "index",
				(json_int_t)g->run->index, kd->path_member, g->run->path, "counts",
				g->run->counts, "figures_from", rg_primary(g)->key, "traces", traces);
		if (kind == GR_NIC)
			json_object_set(run, "load", g->run->load);
		json_array_append_new(runs, run);
	}
	o = json_pack("{s:s,s:b,s:s,s:o,s:I}", "note", kd->note, "emulated_counts_not_times", 1,
		      "unit", kd->unit, "runs", runs, "runs_not_ok",
		      (json_int_t)r->d.guests_not_ok[kind]);
	if (c->before == SIZE_MAX || c->after == SIZE_MAX)
		return o;
	json_t *mv = json_array();

	for (size_t i = 0; i < c->nmoving; i++) {
		const struct rgmove *m = &c->moving[i];
		char ku[32];

		snprintf(ku, sizeof(ku), "per_%s", kd->unit_key);
		json_array_append_new(mv, json_pack("{s:s,s:{s:I,s:I,s:o},s:{s:I,s:I,s:o},s:s}",
			"reason", m->name,
			kd->before, "count", (json_int_t)m->m.na, "denominator", (json_int_t)m->m.da,
			ku, an_jreal(tr_ratio(m->m.na, m->m.da)),
			kd->after, "count", (json_int_t)m->m.nb, "denominator", (json_int_t)m->m.db,
			ku, an_jreal(tr_ratio(m->m.nb, m->m.db)), "moved", tr_moved(&m->m)));
	}
	json_object_set_new(o, "before", json_integer((json_int_t)r->guests[c->before].run->index));
	json_object_set_new(o, "after", json_integer((json_int_t)r->guests[c->after].run->index));
	json_object_set_new(o, "top_moving_exits", mv);
	if (!r->have_gref)
		return o;
	const struct rgtrace *a = rg_seedmask(&r->guests[c->before]);
	const struct rgtrace *b = rg_seedmask(&r->guests[c->after]);
	json_t *rows = json_array();
	char kb[48], ka[48];

	snprintf(kb, sizeof(kb), "%s_per_%s", kd->before, kd->unit_key);
	snprintf(ka, sizeof(ka), "%s_per_%s", kd->after, kd->unit_key);
	for (size_t i = 0; i < r->gref.nrows; i++) {
		const struct tr_hvmref_row *s = &r->gref.rows[i];
		uint64_t ca = rg_count(a->events, a->nevents, s->name);
		uint64_t cb = rg_count(b->events, b->nevents, s->name);

		json_array_append_new(rows, json_pack("{s:s,s:{s:I,s:I,s:o,s:s},s:{s:I,s:I,s:o,s:o,s:o,s:s}}",
			"event", s->name,
			"seed", "before", (json_int_t)s->before, "after", (json_int_t)s->after,
			"ratio", an_jreal(tr_ratio(s->after, s->before)),
			"moved", tr_moved(&(struct tr_move){ s->before, 1, s->after, 1 }),
			"measured", kd->before, (json_int_t)ca, kd->after, (json_int_t)cb,
			"ratio", an_jreal(tr_ratio(cb, ca)),
			kb, an_jreal(tr_ratio(ca, rg_unit(kind, a))),
			ka, an_jreal(tr_ratio(cb, rg_unit(kind, b))),
			"moved", ca || cb ? tr_moved(&(struct tr_move){ ca, 1, cb, 1 }) : "-"));
	}
	json_object_set_new(o, "seed", json_pack("{s:o,s:s,s:s,s:s,s:s,s:o}", "file", sio_json_str(r->gref.path),
		"name", r->gref.name, "before_beside", kd->before, "after_beside", kd->after,
		"traces", a->key, "rows", rows));
	return o;
}
