/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/hvm.h: the HVM profile of a xentrace file, per domain and vCPU:
 * VM exits by exit reason, handler events (HLT, INTR, INTR_WINDOW, CPUID,
 * NPF, VMMCALL, ...), injected vectors (INJ_VIRQ) and MSR accesses by MSR,
 * counted as xenalyze --summary counts them (tools/xentrace/xenalyze.c of
 * Xen 4.17; the rules are in hvm.c).
 */
#ifndef IPIBENCH_HVM_H
#define IPIBENCH_HVM_H

#include <stdbool.h>
#include <stdint.h>

#include "ipibench/ipipaths.h"
#include "probes/cmap.h"
#include "probes/xtrace.h"

/* xenalyze's default domain: a pCPU's records before its first scheduler
 * record (all of them when the trace has none, as with the seed's
 * `-e 0x0008ffff`) belong to vCPU <pCPU> of it. */
#define TR_HVM_DEFAULT_DOM 32768u
#define TR_HVM_IDLE_DOM 32767u
#define TR_HVM_MAX_VCPUS 4096	/* distinct (domain, vCPU) kept; more: counted as dropped */

struct tr_hvm_vcpu {
	uint32_t dom, vcpu;
	uint64_t vmexit, vmentry;	/* VMEXIT / VMENTRY records */
	uint64_t exits;			/* exits closed by a VMENTRY (counted by reason) */
	struct cmap reason;		/* exit reason -> exits closed */
	struct cmap handler;		/* handler event ID (TRC_64_FLAG folded) -> records counted */
	struct cmap virq;		/* INJ_VIRQ vector -> injections */
	struct cmap msr_read, msr_write; /* MSR -> accesses */
	/* IPIs sent (decoded from the MSR_WRITE and VMMCALL handler records
	 * counted above): x2APIC ICR writes (MSR 0x830, d1 = low word, d2 =
	 * high word = destination) and SELF IPI writes (MSR 0x83f). */
	uint64_t icr_writes;		/* MSR 0x830 writes with the value (3 words) */
	uint64_t ipi_sent;		/* fixed/lowest-priority IPIs to other vCPUs */
	uint64_t ipi_self;		/* to itself: shorthand self, own APIC ID, MSR 0x83f */
	uint64_t ipi_logical;		/* of ipi_sent: logical destination (cluster) */
	uint64_t ipi_shorthand;		/* of ipi_sent: all-including / all-excluding self */
	uint64_t icr_other;		/* ICR writes with another delivery mode (NMI, INIT, SIPI...) */
	struct cmap ipi_vec;		/* vector -> ICR IPIs (sent and self) */
	struct cmap ipi_dest;		/* physical destination APIC ID -> IPIs sent */
	struct cmap hypercall;		/* VMMCALL records by hypercall number (d0 = eax) */
	/* xenalyze's per-vCPU state */
	bool exit_open;
	uint32_t exit_reason;
	uint64_t exit_tsc;
};

struct tr_hvm {
	struct tr_hvm_vcpu *v;		/* in order of first appearance */
	uint32_t nv, capv;
	bool svm;			/* exit reasons are AMD SVM's (else Intel VMX's) */
	uint64_t hvm_records;		/* class TRC_HVM records read */
	uint64_t no_vcpu;		/* HVM records on a pCPU with no vCPU running (xenalyze skips them) */
	uint64_t before_exit;		/* handler records that need an open exit and had none */
	uint64_t short_records;		/* records with fewer extra words than their event has */
	uint64_t sched_records;		/* runstate changes seen */
};

/* Xen's hypercall number of event_channel_op: a VMMCALL record carries
 * the number only (svm.c: HVMTRACE_1D(VMMCALL, regs->eax)), not the
 * sub-op, so this counts every event_channel_op call, sends or not. */
#define TR_HVM_HC_EVTCHN_OP 32u
/* Xen 4.17's vlapic gives vCPU N the x2APIC ID 2N (vlapic_do_init()). */
#define TR_HVM_APIC_ID(vcpu) ((vcpu) * 2u)

/*
 * What a scheduler record says about the vCPU its pCPU runs (the rule of
 * tr_hvm_run(), hvm.c): TR_HVM_SCHED_RUNSTATE (a runstate change of
 * sc->dom, sc->vcpu from state sc->from to sc->to: 0 running, 1 runnable,
 * 2 blocked, 3 offline; to running: it runs on this pCPU from here, from
 * running: nothing does), TR_HVM_SCHED_CONTINUE (it keeps running here),
 * TR_HVM_SCHED_SHORT (one of those without its word), TR_HVM_SCHED_NONE.
 * The idle domain is TR_HVM_IDLE_DOM.
 */
enum { TR_HVM_SCHED_NONE, TR_HVM_SCHED_RUNSTATE, TR_HVM_SCHED_CONTINUE, TR_HVM_SCHED_SHORT };
struct tr_hvm_sched {
	uint32_t dom, vcpu, from, to;
};
int tr_hvm_sched_rec(const struct xt_rec *r, struct tr_hvm_sched *sc);

/* 0, or -1 out of memory.  f must be readable through f->base. */
int tr_hvm_run(struct tr_hvm *h, const struct xt_file *f);
void tr_hvm_fini(struct tr_hvm *h);

/*
 * The same profile counted in file order, inside the summary's own pass
 * (hvm.c says how and when that is exact).  tr_hvm_par_walk() takes the
 * whole, regular records of pCPU CPU in [P, E), file offset OFF at P, which
 * the summary has just counted: LAST is the pCPU's TSC before them (a
 * record without one has its pCPU's last).  Of them it counts every record
 * of class TRC_HVM (0x0008xxxx) and of the scheduler (0x00021xxx), in each
 * pCPU's file order, from THREAD (< nthreads; one pCPU on one thread at a
 * time, threads synchronised between changes).  It is exact only for a
 * regular file whose pCPUs' TSCs are monotone: the caller spoils it
 * otherwise.
 * tr_hvm_par_finish(): 0 and *h as tr_hvm_run() fills it; 1 when it could
 * not be made exact (*why says why; *h empty): run tr_hvm_run(); -1 out of
 * memory.
 */
struct tr_hvm_par;
struct tr_hvm_par *tr_hvm_par_new(unsigned nthreads);
void tr_hvm_par_walk(struct tr_hvm_par *hp, unsigned thread, uint32_t cpu, const uint8_t *p,
		     const uint8_t *e, uint64_t last, uint64_t off);
void tr_hvm_par_spoil(struct tr_hvm_par *hp, const char *why);
/* Records taken so far by tr_hvm_par_walk() (between batches). */
uint64_t tr_hvm_par_fed(const struct tr_hvm_par *hp);
/* Between batches (no thread in tr_hvm_par_walk()): what is complete
 * before TSC W_ALL (the lowest last TSC of all pCPUs seen) is stitched and
 * let go, or, when too many segments wait, before W_BATCH (the lowest of
 * the batch's pCPUs). */
void tr_hvm_par_sync(struct tr_hvm_par *hp, uint64_t w_all, uint64_t w_batch);
/* Whether enough segments wait for tr_hvm_par_sync() to do anything. */
bool tr_hvm_par_due(const struct tr_hvm_par *hp);
int tr_hvm_par_finish(struct tr_hvm_par *hp, struct tr_hvm *h, const char **why);
void tr_hvm_par_free(struct tr_hvm_par *hp);

/*
 * One domain's vCPUs summed, with what is per IPI and per interrupt.  All
 * exact counts; the ratios are the caller's (count / denominator).
 *  - IPIs sent (ipis), on the domain's IPI path (path): "apic" when it
 *    wrote any x2APIC ICR IPI to another vCPU (ipi_sent), else "evtchn"
 *    when it made any event_channel_op hypercall (evtchn_op: VMMCALL
 *    records with that number; every call counts, sends or not, as the
 *    trace has no sub-op), else "none" (0).  Both counts are kept: an
 *    APIC-path guest still makes event_channel_op calls (unmask, timers'
 *    events...).  Self-IPIs (ipi_self) are apart, never in ipis.
 *  - IPI vectors: the vectors of the domain's ICR writes (ipi_vec); the
 *    injections on them are inj_ipi, every other injection an interrupt
 *    (inj_irq).  An event-channel IPI is injected on Xen's upcall vector
 *    with every other event (timers, device pirqs): the trace cannot tell
 *    them apart, so upcalls count as interrupts.
 */
struct tr_hvm_guest {
	uint32_t dom, nvcpus;
	uint64_t vmexit, exits;			/* VMEXIT records, exits closed */
	uint64_t icr_writes, ipi_sent, ipi_self, ipi_logical, ipi_shorthand, icr_other;
	uint64_t evtchn_op, vmmcall;
	uint64_t ipis;				/* ipi_sent (apic) or evtchn_op (evtchn) */
	const char *path;			/* "apic", "evtchn", "none" */
	uint64_t inj, inj_ipi, inj_irq;		/* INJ_VIRQ: all, on IPI vectors, others */
	struct cmap reason;			/* exit reason -> exits closed */
	struct cmap virq;			/* vector -> injections */
	struct cmap ipi_vec;			/* vector -> ICR IPIs (sent and self) */
	struct cmap pair;			/* sender vCPU << 16 | destination vCPU -> IPIs (physical) */
	struct cmap hypercall;			/* hypercall number -> VMMCALL records */
};

/* The domains of H (default domain included, in order of first
 * appearance) into *G (*n of them); 0, or -1 out of memory. */
int tr_hvm_guests(const struct tr_hvm *h, struct tr_hvm_guest **g, uint32_t *n);
void tr_hvm_guests_free(struct tr_hvm_guest *g, uint32_t n);
/*
 * The guest of one trace: the domains of G (tr_hvm_guests()) that are
 * guests, i.e. not dom0, not idle and with VM exits, or, when none is
 * (a trace without scheduler records), the default domain; summed into
 * *SUM, every count and map, with path and ipis by tr_hvm_guests()'s rule
 * over the sum.  The number of domains summed, or -1 out of memory;
 * tr_hvm_guest_fini(SUM) afterwards in both cases.  trace diff's per-IPI
 * rows and the report's guest figures both come from it.
 */
int tr_hvm_guest_sum(const struct tr_hvm_guest *g, uint32_t n, struct tr_hvm_guest *sum);
void tr_hvm_guest_fini(struct tr_hvm_guest *g);

/*
 * A figure over its own denominator on two sides, A (before) and B
 * (after): NA/DA against NB/DB.
 */
struct tr_move {
	uint64_t na, da, nb, db;
};
/* N / D, NAN when D is 0. */
double tr_ratio(uint64_t n, uint64_t d);
/* Which way M moved, exactly (integers, no rounding): "up", "down",
 * "flat", or "-" when a denominator is 0. */
const char *tr_moved(const struct tr_move *m);
/* Order for the rows that moved most: the larger |B - A| first, those
 * without both ratios last; 0 when even (the caller breaks the tie). */
int tr_move_cmp(const struct tr_move *x, const struct tr_move *y);
/* count of KEY in M (0 when absent). */
uint64_t tr_cmap_get(const struct cmap *m, uint32_t key);

/* "VMEXIT_HLT" (SVM) / "HLT" (VMX) as xenalyze names exit reasons, or NULL. */
const char *tr_hvm_exit_name(bool svm, uint32_t reason);
/* A short name for well-known MSRs ("x2APIC ICR", "EFER"...), or NULL. */
const char *tr_hvm_msr_name(uint32_t msr);
/* Domain label: "d1", "default" (TR_HVM_DEFAULT_DOM). */

#endif
