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

/* 0, or -1 out of memory.  f must be readable through f->base. */
int tr_hvm_run(struct tr_hvm *h, const struct xt_file *f);
void tr_hvm_fini(struct tr_hvm *h);

/* "VMEXIT_HLT" (SVM) / "HLT" (VMX) as xenalyze names exit reasons, or NULL. */
const char *tr_hvm_exit_name(bool svm, uint32_t reason);
/* A short name for well-known MSRs ("x2APIC ICR", "EFER"...), or NULL. */
const char *tr_hvm_msr_name(uint32_t msr);
/* Domain label: "d1", "default" (TR_HVM_DEFAULT_DOM). */

#endif
