/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/export_chrome.c: a trace as the Trace Event Format's JSON object
 * form ({"traceEvents": [...], "displayTimeUnit": "ns", "metadata": {...}}),
 * which Perfetto's UI and chrome://tracing open.
 *
 * Tracks: file I's physical CPUs are the threads of process 1 + 65536 I
 * (tid 16384 I + 1 + CPU), its domains processes of their own (pid + 1 +
 * domain) whose vCPUs are threads (tid 16384 I + 8192 + the order in which
 * they appear); each named by "M" events when it first appears.
 * On a pCPU: a complete slice ("X") per IPI send, from its first
 * apic:icr_write to its last (without ICR writes, the send's own cost
 * before its record), named by its send record (apic:send_ipi_mask...),
 * with an instant per ICR write; a zero-length slice per apic:ipi_recv;
 * a slice per do_irq (its TSCs in and out); an instant per lost_records;
 * a slice per stretch of one vCPU running on it ("d1v0"; from the
 * scheduler's records, to the pCPU's last record when it runs on).
 * Each receive is bound to the operation that caused it by a flow (the v2
 * form: "bind_id" with "flow_out" on the send's slice, "flow_in" on the
 * receive), paired by tr_pair_*() (trace.h: the rule of trace ipi and the
 * report).  A receive is written when the pairing hands it out (one that
 * comes before its operation's send record, at that record), a send's
 * slice when no receive can be given to its operation any more (a later
 * operation of its vector began, or the end), so that it has a flow_out
 * only when a receive was bound to it.
 * On a vCPU (the scheduler's records say which vCPU a pCPU runs, hvm.c's
 * rule): an instant per VMEXIT (named by its reason), INJ_VIRQ, and x2APIC
 * ICR write (MSR_WRITE of MSR 0x830).
 * The counter "interrupts" of each file's host process: per CPU, the
 * interrupts it took so far (do_irq, apic:ipi_recv, bogus_vector, as
 * trace irq counts them).
 * Timestamps are microseconds from the trace's lowest TSC (export.c).
 */
#include "probes/export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "probes/events.h"
#include "probes/hvm.h"
#include "probes/trace.h"
#include "lib/safeio.h"

#define PID_HOST(i) (1 + 65536 * (int64_t)(i))
#define TID_PCPU(i, cpu) (16384 * (int64_t)(i) + 1 + (cpu))
#define TID_VCPU(i, k) (16384 * (int64_t)(i) + 8192 + (k))
#define VCPU_MAX TR_HVM_MAX_VCPUS	/* 4096 < 8192: vCPU tracks of one file */
#define VSLOTS (2 * VCPU_MAX)

#define EV_VMENTRY 0x00081001u
#define EV_VMEXIT 0x00081002u
#define EV_INJ_VIRQ 0x00082004u
#define EV_MSR_WRITE 0x0008200du
#define TRC_64_FLAG 0x100u

struct tr_chrome {
	FILE *out;
	unsigned nfiles;
	bool any;		/* an event written (the next needs a comma) */
	json_t *files;		/* the metadata of each file */
	bool err;
};

struct pcpu {
	uint64_t interrupts;
	int64_t cur;		/* domain << 16 | vCPU running, or CUR_* */
	bool named;
	/* the vCPU's running slice: since run_start, when run_open */
	bool run_open;
	uint32_t run_dom, run_vcpu;
	uint64_t run_start, last_tsc;
};
#define CUR_DEFAULT (-1)
#define CUR_NONE (-2)

struct vslot {
	uint32_t key;		/* domain << 16 | vCPU, + 1 (0: free) */
	int32_t k;
};

struct ctx {
	struct tr_chrome *c;
	unsigned i;			/* file index */
	struct tr_export_clock clk;
	struct tr_export_stats *st;
	struct pcpu *cpu;		/* XT_MAX_CPUS */
	struct vslot *vs;		/* VSLOTS */
	int32_t nv;
	bool dom_named[65536 / 8 * 8];	/* by domain & 0xffff */
};

/* ---- writing ------------------------------------------------------------------ */

static void sep(struct ctx *x)
{
	fputs(x->c->any ? ",\n" : "\n", x->c->out);
	x->c->any = true;
	x->st->events++;
}

/* An "M" event naming a process or thread; NAME escaped by jansson. */
static void meta_ev(struct ctx *x, const char *what, int64_t pid, int64_t tid, const char *key,
		    json_t *val)
{
	json_t *j = json_pack("{s:s,s:s,s:I,s:I,s:{s:o}}", "ph", "M", "name", what,
			      "pid", (json_int_t)pid, "tid", (json_int_t)tid, "args", key, val);

	if (!j) {
		x->c->err = true;
		return;
	}
	sep(x);
	if (json_dumpf(j, x->c->out, JSON_COMPACT))
		x->c->err = true;
	json_decref(j);
}

static void name_pcpu(struct ctx *x, uint32_t cpu)
{
	char b[32];

	if (x->cpu[cpu].named)
		return;
	x->cpu[cpu].named = true;
	snprintf(b, sizeof(b), "pCPU %" PRIu32, cpu);
	meta_ev(x, "thread_name", PID_HOST(x->i), TID_PCPU(x->i, cpu), "name", json_string(b));
	meta_ev(x, "thread_sort_index", PID_HOST(x->i), TID_PCPU(x->i, cpu), "sort_index",
		json_integer(cpu));
}

static void pfx(struct ctx *x, const char *ph, const char *name, const char *cat, int64_t pid,
		int64_t tid, uint64_t tsc)
{
	sep(x);
	fprintf(x->c->out, "{\"ph\":\"%s\",\"name\":\"%s\",\"cat\":\"%s\",\"pid\":%" PRId64
		",\"tid\":%" PRId64 ",\"ts\":%.3f", ph, name, cat, pid, tid, tr_export_us(&x->clk, tsc));
}

/* V as a JSON number that readers keep exact (integers up to 2^53, as
 * JavaScript's and jansson's), else as a double. */
static void put_u64(struct ctx *x, uint64_t v)
{
	if (v <= (1ull << 53))
		fprintf(x->c->out, "%" PRIu64, v);
	else
		fprintf(x->c->out, "%.17g", (double)v);
}

static const char *ev_name(uint32_t event)
{
	const char *n = xt_event_name(event);

	return n ? n : "?";
}

/* ---- IPI sends and receives ---------------------------------------------------- */

/* Operation OP is done with (trace.h): its send's slice, from its first
 * ICR write to its last (without ICR writes, its cost up to its record). */
static void on_done(void *arg, const struct tr_op *op)
{
	struct ctx *x = arg;
	const struct xt_rec *r = &op->rec;
	uint32_t dests = 0, icr = 0, cycles = 0;
	uint64_t start, end;

	if (r->event == IPB_TRC_APIC_SEND_IPI_MASK) {
		dests = r->d[1];
		icr = r->d[2];
		cycles = r->d[3];
	} else if (r->event == IPB_TRC_APIC_SEND_IPI_ALLBUT) {
		dests = r->d[1];
		cycles = r->d[2];
	}
	if (op->icr_seen) {
		/* (TSC gone backwards on the CPU, an anomaly: the slice starts
		 * no later than its send record, which its receives follow) */
		start = op->first <= r->tsc ? op->first : r->tsc;
		end = op->last >= start ? op->last : start;
	} else {
		end = r->tsc;
		start = r->tsc - x->clk.t0 >= cycles ? r->tsc - cycles : x->clk.t0;
	}
	name_pcpu(x, op->cpu);
	pfx(x, "X", ev_name(r->event), "ipi", PID_HOST(x->i), TID_PCPU(x->i, op->cpu), start);
	fprintf(x->c->out, ",\"dur\":%.3f",
		tr_export_us(&x->clk, end) - tr_export_us(&x->clk, start));
	if (op->nrecv)
		fprintf(x->c->out, ",\"bind_id\":\"f%us%" PRIu64 "\",\"flow_out\":true", x->i,
			op->send + 1);
	fprintf(x->c->out, ",\"args\":{\"vector\":%" PRIu32 ",\"mode\":\"%s\",\"send\":%" PRIu64,
		r->d[0] & 0xff, tr_mode_name[op->mode], op->send + 1);
	if (r->event != IPB_TRC_APIC_SEND_IPI_SELF)
		fprintf(x->c->out, ",\"destinations\":%" PRIu32 ",\"cycles\":%" PRIu32, dests,
			cycles);
	if (r->event == IPB_TRC_APIC_SEND_IPI_MASK)
		fprintf(x->c->out, ",\"icr_writes\":%" PRIu32, icr);
	fprintf(x->c->out, ",\"icr_write_records\":%" PRIu32 "}}", op->icr_seen);
}

/* A receive handed out by the pairing: bound to OP's slice, or unmatched. */
static void on_recv(void *arg, const struct tr_recv *r, const struct tr_op *op)
{
	struct ctx *x = arg;

	x->st->recvs++;
	name_pcpu(x, r->cpu);
	pfx(x, "X", "apic:ipi_recv", "ipi", PID_HOST(x->i), TID_PCPU(x->i, r->cpu), r->tsc);
	fputs(",\"dur\":0", x->c->out);
	if (op) {
		x->st->flows++;
		fprintf(x->c->out, ",\"bind_id\":\"f%us%" PRIu64 "\",\"flow_in\":true", x->i,
			op->send + 1);
		fprintf(x->c->out, ",\"args\":{\"vector\":%" PRIu32 ",\"send\":%" PRIu64
			",\"from_cpu\":%" PRIu32 ",\"latency_cycles\":", r->vec, op->send + 1,
			op->cpu);
		put_u64(x, r->tsc - op->first);
		fputs("}}", x->c->out);
	} else {
		x->st->unmatched++;
		fprintf(x->c->out, ",\"args\":{\"vector\":%" PRIu32 ",\"unmatched\":true}}",
			r->vec);
	}
}

static void on_icr(struct ctx *x, const struct xt_rec *r)
{
	x->st->icr_writes++;
	name_pcpu(x, r->cpu);
	pfx(x, "i", "apic:icr_write", "ipi", PID_HOST(x->i), TID_PCPU(x->i, r->cpu), r->tsc);
	fputs(",\"s\":\"t\"", x->c->out);
	if (r->nextra >= 2)
		fprintf(x->c->out, ",\"args\":{\"dest\":%" PRIu32 ",\"vector\":%" PRIu32
			",\"icr_low\":%" PRIu32 "}", r->d[0], r->d[1] & 0xff, r->d[1]);
	fputc('}', x->c->out);
}

static void count_irq(struct ctx *x, const struct xt_rec *r)
{
	uint64_t n = ++x->cpu[r->cpu].interrupts;

	x->st->irqs++;
	pfx(x, "C", "interrupts", "irq", PID_HOST(x->i), 0, r->tsc);
	fprintf(x->c->out, ",\"args\":{\"cpu%" PRIu32 "\":%" PRIu64 "}}", r->cpu, n);
}

static void on_do_irq(struct ctx *x, const struct xt_rec *r)
{
	/* d1, d2: the TSC's low 32 bits in and out (Xen's do_IRQ()): the
	 * slice ends d2 - d1 cycles after the last TSC at or before the
	 * record's whose low bits are d1. */
	uint32_t back = (uint32_t)r->tsc - r->d[1];
	uint64_t start = back <= r->tsc ? r->tsc - back : 0;
	uint64_t end = start + (uint32_t)(r->d[2] - r->d[1]);

	if (end < start)
		end = start;

	name_pcpu(x, r->cpu);
	pfx(x, "X", "do_irq", "irq", PID_HOST(x->i), TID_PCPU(x->i, r->cpu), start);
	fprintf(x->c->out, ",\"dur\":%.3f,\"args\":{\"irq\":%" PRIu32 ",\"cycles\":%" PRIu32 "}}",
		tr_export_us(&x->clk, end) - tr_export_us(&x->clk, start), r->d[0],
		(uint32_t)(r->d[2] - r->d[1]));
}

/* ---- vCPUs ---------------------------------------------------------------------- */

static void name_dom(struct ctx *x, uint32_t dom)
{
	char b[48];
	int64_t pid = PID_HOST(x->i) + 1 + (dom & 0xffff);

	if (x->dom_named[dom & 0xffff])
		return;
	x->dom_named[dom & 0xffff] = true;
	if (dom == TR_HVM_DEFAULT_DOM)
		snprintf(b, sizeof(b), "default domain (no scheduler records)");
	else
		snprintf(b, sizeof(b), "d%" PRIu32, dom);
	meta_ev(x, "process_name", pid, 0, "name", json_string(b));
	meta_ev(x, "process_sort_index", pid, 0, "sort_index", json_integer(1 + (dom & 0xffff)));
}

/* The track index of (DOM, VCPU), named when new; -1 past VCPU_MAX. */
static int32_t vcpu_track(struct ctx *x, uint32_t dom, uint32_t vcpu)
{
	uint32_t key = ((dom & 0xffff) << 16 | (vcpu & 0xffff)) + 1;
	uint32_t h = (key * 0x9e3779b1u) >> 7 & (VSLOTS - 1);
	char b[48];

	while (x->vs[h].key) {
		if (x->vs[h].key == key)
			return x->vs[h].k;
		h = (h + 1) & (VSLOTS - 1);
	}
	if (x->nv == VCPU_MAX)
		return -1;
	x->vs[h].key = key;
	x->vs[h].k = x->nv++;
	name_dom(x, dom);
	if (dom == TR_HVM_DEFAULT_DOM)
		snprintf(b, sizeof(b), "vCPU on pCPU %" PRIu32, vcpu);
	else
		snprintf(b, sizeof(b), "d%" PRIu32 "v%" PRIu32, dom, vcpu);
	meta_ev(x, "thread_name", PID_HOST(x->i) + 1 + (dom & 0xffff), TID_VCPU(x->i, x->vs[h].k),
		"name", json_string(b));
	meta_ev(x, "thread_sort_index", PID_HOST(x->i) + 1 + (dom & 0xffff),
		TID_VCPU(x->i, x->vs[h].k), "sort_index", json_integer(vcpu));
	return x->vs[h].k;
}

/* The pid of vCPU track K: kept beside the slot. */
static int64_t vcpu_pid(struct ctx *x, uint32_t dom)
{
	return PID_HOST(x->i) + 1 + (dom & 0xffff);
}

static void on_hvm(struct ctx *x, const struct xt_rec *r)
{
	struct pcpu *pc = &x->cpu[r->cpu];
	uint32_t ev = r->event & ~TRC_64_FLAG, dom, vcpu;
	int32_t k;
	char b[48];
	const char *name;

	if (ev != EV_VMEXIT && ev != EV_INJ_VIRQ && ev != EV_MSR_WRITE)
		return;
	if (pc->cur == CUR_NONE) {
		x->st->hvm_no_vcpu++;
		return;
	}
	if (pc->cur == CUR_DEFAULT) {
		dom = TR_HVM_DEFAULT_DOM;
		vcpu = r->cpu;
	} else {
		dom = (uint32_t)pc->cur >> 16;
		vcpu = (uint32_t)pc->cur & 0xffff;
	}
	/* (VMEXIT: reason and RIP, 32 or 64 bits: tr_hvm_run()'s rule) */
	if (ev == EV_VMEXIT && r->nextra >= ((r->event & TRC_64_FLAG) ? 3u : 2u)) {
		name = tr_hvm_exit_name(x->clk.svm, r->d[0]);
		if (!name) {
			snprintf(b, sizeof(b), "VMEXIT reason %" PRIu32, r->d[0]);
			name = b;
		}
	} else if (ev == EV_INJ_VIRQ && r->nextra >= 1) {
		name = "INJ_VIRQ";
	} else if (ev == EV_MSR_WRITE && r->nextra >= 3 && r->d[0] == 0x830) {
		name = "x2APIC ICR write";
	} else {
		return;
	}
	k = vcpu_track(x, dom, vcpu);
	if (k < 0) {
		x->st->hvm_no_vcpu++;
		return;
	}
	x->st->hvm_events++;
	pfx(x, "i", name, "hvm", vcpu_pid(x, dom), TID_VCPU(x->i, k), r->tsc);
	fputs(",\"s\":\"t\",\"args\":{", x->c->out);
	if (ev == EV_VMEXIT)
		fprintf(x->c->out, "\"reason\":%" PRIu32 ",\"pcpu\":%" PRIu32 "}}", r->d[0], r->cpu);
	else if (ev == EV_INJ_VIRQ)
		fprintf(x->c->out, "\"vector\":%" PRIu32 ",\"pcpu\":%" PRIu32 "}}", r->d[0], r->cpu);
	else
		fprintf(x->c->out, "\"vector\":%" PRIu32 ",\"dest_apic_id\":%" PRIu32
			",\"icr_low\":%" PRIu32 ",\"pcpu\":%" PRIu32 "}}", r->d[1] & 0xff, r->d[2],
			r->d[1], r->cpu);
}

/* PCPU's running slice ends at END. */
static void run_close(struct ctx *x, uint32_t pcpu, uint64_t end)
{
	struct pcpu *pc = &x->cpu[pcpu];
	char b[48];

	if (!pc->run_open)
		return;
	pc->run_open = false;
	snprintf(b, sizeof(b), "d%" PRIu32 "v%" PRIu32, pc->run_dom, pc->run_vcpu);
	name_pcpu(x, pcpu);
	pfx(x, "X", b, "sched", PID_HOST(x->i), TID_PCPU(x->i, pcpu), pc->run_start);
	fprintf(x->c->out, ",\"dur\":%.3f,\"args\":{\"domain\":%" PRIu32 ",\"vcpu\":%" PRIu32 "}}",
		tr_export_us(&x->clk, end) - tr_export_us(&x->clk, pc->run_start), pc->run_dom,
		pc->run_vcpu);
}

static void on_sched(struct ctx *x, const struct xt_rec *r)
{
	struct tr_hvm_sched sc;
	int kind = tr_hvm_sched_rec(r, &sc);
	struct pcpu *pc = &x->cpu[r->cpu];

	if (kind == TR_HVM_SCHED_CONTINUE || (kind == TR_HVM_SCHED_RUNSTATE && sc.to == 0)) {
		pc->cur = sc.dom == TR_HVM_IDLE_DOM ? CUR_NONE : (int64_t)sc.dom << 16 | sc.vcpu;
		if (pc->run_open && (pc->run_dom != sc.dom || pc->run_vcpu != sc.vcpu))
			run_close(x, r->cpu, r->tsc);
		if (!pc->run_open && sc.dom != TR_HVM_IDLE_DOM) {
			pc->run_open = true;
			pc->run_dom = sc.dom;
			pc->run_vcpu = sc.vcpu;
			pc->run_start = r->tsc;
		}
	} else if (kind == TR_HVM_SCHED_RUNSTATE && sc.from == 0) {
		pc->cur = CUR_NONE;
		run_close(x, r->cpu, r->tsc);
	}
}

/* ---- the file ------------------------------------------------------------------- */

static json_t *opt_str(const char *s)
{
	return s ? sio_json_str(s) : json_null();
}

static void name_host(struct ctx *x, const char *path, const struct tr_export_meta *meta)
{
	char b[600];
	json_t *labels = json_array();
	char *l;

	snprintf(b, sizeof(b), "Xen pCPUs%s%s: %s", meta->host ? " of " : "",
		 meta->host ? meta->host : "", path);
	meta_ev(x, "process_name", PID_HOST(x->i), 0, "name", sio_json_str(b));
	meta_ev(x, "process_sort_index", PID_HOST(x->i), 0, "sort_index", json_integer(0));
	if (meta->mode)
		json_array_append_new(labels, sio_json_str(meta->mode));
	if (meta->workload)
		json_array_append_new(labels, sio_json_str(meta->workload));
	if (meta->xen) {
		snprintf(b, sizeof(b), "Xen %s", meta->xen);
		json_array_append_new(labels, sio_json_str(b));
	}
	if (json_array_size(labels)) {
		/* "labels": one string, comma-separated (Perfetto shows it) */
		l = NULL;
		size_t i;
		json_t *v;
		size_t n = 1;

		json_array_foreach(labels, i, v)
			n += strlen(json_string_value(v)) + 2;
		l = malloc(n);
		if (l) {
			l[0] = 0;
			json_array_foreach(labels, i, v) {
				if (i)
					strcat(l, ", ");
				strcat(l, json_string_value(v));
			}
			meta_ev(x, "process_labels", PID_HOST(x->i), 0, "labels", sio_json_str(l));
			free(l);
		}
	}
	json_decref(labels);
}

struct tr_chrome *tr_chrome_begin(FILE *out)
{
	struct tr_chrome *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->out = out;
	c->files = json_array();
	if (!c->files) {
		free(c);
		return NULL;
	}
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
	return c;
}

int tr_chrome_file(struct tr_chrome *c, const char *path, const struct xt_file *f,
		   const struct tr_export_meta *meta, double opt_khz, struct tr_export_stats *st)
{
	struct tr_pair pair = { 0 };
	struct xt_merge *m = NULL;
	struct xt_rec r;
	struct ctx *x = calloc(1, sizeof(*x));
	uint32_t file_khz = 0;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	if (!x)
		return -1;
	x->c = c;
	x->i = c->nfiles++;
	x->st = st;
	x->cpu = calloc(XT_MAX_CPUS, sizeof(*x->cpu));
	x->vs = calloc(VSLOTS, sizeof(*x->vs));
	if (!x->cpu || !x->vs || tr_export_clock(&x->clk, f, opt_khz, meta))
		goto out;
	for (uint32_t i = 0; i < XT_MAX_CPUS; i++)
		x->cpu[i].cur = CUR_DEFAULT;
	st->tsc_khz = x->clk.khz;
	st->clock = x->clk.source;
	st->t0 = x->clk.t0;
	if (tr_pair_init(&pair, on_recv, on_done, x, &st->an))
		goto out;
	name_host(x, path, meta);
	m = xt_merge_open(f, &st->an);
	if (!m)
		goto out;
	while (xt_merge_next(m, &r)) {
		int mode;
		uint32_t vec;

		st->records++;
		if (r.tsc < x->clk.t0)	/* no TSC yet on its CPU */
			r.tsc = x->clk.t0;
		x->cpu[r.cpu].last_tsc = r.tsc;
		if ((r.event & 0x0ffff000) == IPB_TRC_HW_APIC) {
			switch (tr_ipi_kind(&r, &mode, &vec)) {
			case TR_IPI_SEND:
				x->st->sends++;
				if (!tr_pair_send(&pair, &r, mode, vec))
					goto out;
				break;
			case TR_IPI_RECV:
				tr_pair_recv(&pair, &r, vec);
				count_irq(x, &r);
				break;
			case TR_IPI_SHORT:
				xt_anom_add(&st->an, "offset %llu: event 0x%08x has %u words, too "
					    "few; ignored", (unsigned long long)r.off, r.event, r.nextra);
				break;
			default:
				if (r.event == IPB_TRC_APIC_ICR_WRITE) {
					tr_pair_icr(&pair, &r);
					on_icr(x, &r);
				}
				else
					tr_tsc_khz_take(&file_khz, &r, &st->an);
				break;
			}
		} else if (r.event == IPB_TRC_HW_IRQ_HANDLED && r.nextra >= 3) {
			on_do_irq(x, &r);
			count_irq(x, &r);
		} else if (r.event == IPB_TRC_HW_IRQ_UNMAPPED_VECTOR) {
			name_pcpu(x, r.cpu);
			count_irq(x, &r);
		} else if (r.event == XT_EV_LOST_RECORDS) {
			name_pcpu(x, r.cpu);
			pfx(x, "i", "lost_records", "trace", PID_HOST(x->i), TID_PCPU(x->i, r.cpu),
			    r.tsc);
			fputs(",\"s\":\"t\"}", c->out);
		} else if ((r.event & 0x0ffff000) == 0x00021000) {
			on_sched(x, &r);
		} else if (r.event >> 16 == 0x0008) {
			on_hvm(x, &r);
		}
		if (ferror(c->out))
			goto out;
	}
	tr_pair_end(&pair);
	if (pair.oom)
		goto out;
	for (uint32_t i = 0; i < XT_MAX_CPUS; i++)
		run_close(x, i, x->cpu[i].last_tsc);
	rc = 0;
out:
	if (m)
		xt_merge_close(m);
	if (!rc) {
		json_t *j = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:s,s:o,s:I,s:I,s:I,s:I,s:I,"
				      "s:o}",
				      "file", sio_json_str(path),
				      "results", opt_str(meta->results),
				      "host", opt_str(meta->host), "xen", opt_str(meta->xen),
				      "commit", opt_str(meta->commit), "mode", opt_str(meta->mode),
				      "workload", opt_str(meta->workload),
				      "tsc_khz", x->clk.khz > 0 ? json_real(x->clk.khz) : json_null(),
				      "tsc_khz_from", x->clk.source,
				      "tsc0", x->clk.t0 <= (1ull << 53) ? json_integer((json_int_t)x->clk.t0) :
					      json_real((double)x->clk.t0),
				      "records", (json_int_t)st->records,
				      "sends", (json_int_t)st->sends,
				      "receives", (json_int_t)st->recvs,
				      "flows", (json_int_t)st->flows,
				      "unmatched", (json_int_t)st->unmatched,
				      "anomalies", tr_anom_json(&st->an));

		if (!j || json_array_append_new(c->files, j))
			rc = -1;
	}
	if (c->err || ferror(c->out))
		rc = -1;
	tr_pair_fini(&pair);
	free(x->cpu);
	free(x->vs);
	free(x);
	return rc;
}

int tr_chrome_end(struct tr_chrome *c)
{
	json_t *md = json_pack("{s:s,s:s,s:O}", "generator", "ipibench trace export",
			       "clock", "microseconds from each file's lowest TSC (tsc0), by "
			       "tsc_khz; without one, TSC cycles / 1000", "files", c->files);

	fputs("\n],\n\"metadata\":", c->out);
	if (!md || json_dumpf(md, c->out, JSON_COMPACT))
		c->err = true;
	json_decref(md);
	fputs("}\n", c->out);
	return c->err || ferror(c->out) ? -1 : 0;
}

void tr_chrome_free(struct tr_chrome *c)
{
	if (!c)
		return;
	json_decref(c->files);
	free(c);
}
