/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/hvm.c: the HVM profile (probes/hvm.h), counted as xenalyze
 * --summary does (Xen 4.17's tools/xentrace/xenalyze.c), so the two agree
 * record for record:
 *
 * - Records are taken in TSC order across pCPUs (a vCPU may exit on one
 *   pCPU and enter on another): tr_hvm_run() through the merged reader,
 *   or the summary's own file-order pass stitched per vCPU in that order
 *   where that is exact (tr_hvm_par, at the end of this file).
 * - Which vCPU a pCPU runs comes from the scheduler's runstate changes
 *   (TRC_SCHED_RUNSTATE_CHANGE, d0 = domain << 16 | vCPU): to running sets
 *   it, from running clears it; TRC_SCHED_CONTINUE_RUNNING (the same d0:
 *   the vCPU runs on) sets it too.  Before a pCPU's first one its records
 *   belong to vCPU <pCPU> of the default domain (32768): with the seed's
 *   `-e 0x0008ffff` (no scheduler class) that is the whole trace, as in
 *   xenalyze.  HVM records on a pCPU with no vCPU, or the idle vCPU, are
 *   skipped (xenalyze: "p->current null!  Not processing").
 * - An exit is counted under its reason when a VMENTRY of the same vCPU
 *   closes it, or a runstate change of that vCPU to runnable (descheduled
 *   in its exit) does (a VMEXIT overwrites one still open; a close without
 *   an open exit, or with an earlier TSC than the exit's, counts nothing):
 *   xenalyze's hvm_close_vmexit().
 * - INJ_VIRQ, REINJ_VIRQ, INJ_EXC, PF_INJECT, INTR_WINDOW and
 *   OP_DESTROY_PROC count without an open exit, every other handler record
 *   only inside one (xenalyze's hvm_handler_process(); its per-vCPU HVM
 *   state starts with the vCPU's first HVM record of any kind,
 *   vcpu_set_data_type(), so an injection before the first exit counts).  INJ_VIRQ is also counted by
 *   vector (xenalyze's "Guest interrupt counts"), MSR_READ and MSR_WRITE
 *   by MSR (d0), which xenalyze's summary does not show.
 * - IPIs sent (tr_hvm_guests(), hvm.h): the MSR_WRITE records of MSR 0x830
 *   counted above carry the ICR value (d1 low, d2 high: Xen's
 *   HVMTRACE_3D(MSR_WRITE, msr, lo, hi)) and are decoded (icr_write());
 *   the VMMCALL records carry the hypercall number (d0 = eax) and nothing
 *   more, so event_channel_op calls are counted, not sends.
 * - Exit reasons are SVM's when any exit reason is above 75 (the highest
 *   VMX one: SVM traces always have VMEXIT_INTR, 96, or VMEXIT_NPF,
 *   1024), else VMX's (xenalyze's default; --svm-mode switches it).
 */
#include "probes/hvm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probes/events.h"

#define TRC_64_FLAG 0x100u
#define EV_VMENTRY 0x00081001u
#define EV_VMEXIT 0x00081002u
#define EV_INJ_EXC 0x00082003u
#define EV_INJ_VIRQ 0x00082004u
#define EV_REINJ_VIRQ 0x00082005u
#define EV_PF_INJECT 0x00082002u
#define EV_MSR_READ 0x0008200cu
#define EV_MSR_WRITE 0x0008200du
#define EV_VMMCALL 0x00082012u
#define EV_INTR_WINDOW 0x00082020u
#define MSR_X2APIC_ICR 0x830u
#define MSR_X2APIC_SELF_IPI 0x83fu
#define EV_OP_DESTROY_PROC 0x00082024u
#define VMX_REASON_MAX 75u
#define GUEST_INTERRUPT_MAX 350u	/* xenalyze's bucket for vectors beyond */

/* Intel VMX exit reasons, xenalyze's hvm_vmx_exit_reason_name (Xen 4.17). */
static const char *const vmx_exit[] = {
	[0] = "EXCEPTION_NMI",
	[1] = "EXTERNAL_INTERRUPT",
	[2] = "TRIPLE_FAULT",
	[3] = "INIT",
	[4] = "SIPI",
	[5] = "IO_SMI",
	[6] = "OTHER_SMI",
	[7] = "PENDING_INTERRUPT",
	[8] = "PENDING_VIRT_NMI",
	[9] = "TASK_SWITCH",
	[10] = "CPUID",
	[11] = "GETSEC",
	[12] = "HLT",
	[13] = "INVD",
	[14] = "INVLPG",
	[15] = "RDPMC",
	[16] = "RDTSC",
	[17] = "RSM",
	[18] = "VMCALL",
	[19] = "VMCLEAR",
	[20] = "VMLAUNCH",
	[21] = "VMPTRLD",
	[22] = "VMPTRST",
	[23] = "VMREAD",
	[24] = "VMRESUME",
	[25] = "VMWRITE",
	[26] = "VMOFF",
	[27] = "VMON",
	[28] = "CR_ACCESS",
	[29] = "DR_ACCESS",
	[30] = "IO_INSTRUCTION",
	[31] = "MSR_READ",
	[32] = "MSR_WRITE",
	[33] = "INVALID_GUEST_STATE",
	[34] = "MSR_LOADING",
	[36] = "MWAIT_INSTRUCTION",
	[37] = "MONITOR_TRAP_FLAG",
	[39] = "MONITOR_INSTRUCTION",
	[40] = "PAUSE_INSTRUCTION",
	[41] = "MACHINE_CHECK",
	[43] = "TPR_BELOW_THRESHOLD",
	[44] = "APIC_ACCESS",
	[48] = "EPT_VIOLATION",
	[49] = "EPT_MISCONFIG",
	[50] = "INVEPT",
	[51] = "RDTSCP",
	[52] = "VMX_PREEMPTION_TIMER_EXPIRED",
	[53] = "INVVPID",
	[54] = "WBINVD",
	[55] = "XSETBV",
};
/* AMD SVM exit codes, xenalyze's hvm_svm_exit_reason_name (Xen 4.17). */
static const char *const svm_exit[] = {
	[0] = "VMEXIT_CR0_READ",
	[1] = "VMEXIT_CR1_READ",
	[2] = "VMEXIT_CR2_READ",
	[3] = "VMEXIT_CR3_READ",
	[4] = "VMEXIT_CR4_READ",
	[5] = "VMEXIT_CR5_READ",
	[6] = "VMEXIT_CR6_READ",
	[7] = "VMEXIT_CR7_READ",
	[8] = "VMEXIT_CR8_READ",
	[9] = "VMEXIT_CR9_READ",
	[10] = "VMEXIT_CR10_READ",
	[11] = "VMEXIT_CR11_READ",
	[12] = "VMEXIT_CR12_READ",
	[13] = "VMEXIT_CR13_READ",
	[14] = "VMEXIT_CR14_READ",
	[15] = "VMEXIT_CR15_READ",
	[16] = "VMEXIT_CR0_WRITE",
	[17] = "VMEXIT_CR1_WRITE",
	[18] = "VMEXIT_CR2_WRITE",
	[19] = "VMEXIT_CR3_WRITE",
	[20] = "VMEXIT_CR4_WRITE",
	[21] = "VMEXIT_CR5_WRITE",
	[22] = "VMEXIT_CR6_WRITE",
	[23] = "VMEXIT_CR7_WRITE",
	[24] = "VMEXIT_CR8_WRITE",
	[25] = "VMEXIT_CR9_WRITE",
	[26] = "VMEXIT_CR10_WRITE",
	[27] = "VMEXIT_CR11_WRITE",
	[28] = "VMEXIT_CR12_WRITE",
	[29] = "VMEXIT_CR13_WRITE",
	[30] = "VMEXIT_CR14_WRITE",
	[31] = "VMEXIT_CR15_WRITE",
	[32] = "VMEXIT_DR0_READ",
	[33] = "VMEXIT_DR1_READ",
	[34] = "VMEXIT_DR2_READ",
	[35] = "VMEXIT_DR3_READ",
	[36] = "VMEXIT_DR4_READ",
	[37] = "VMEXIT_DR5_READ",
	[38] = "VMEXIT_DR6_READ",
	[39] = "VMEXIT_DR7_READ",
	[40] = "VMEXIT_DR8_READ",
	[41] = "VMEXIT_DR9_READ",
	[42] = "VMEXIT_DR10_READ",
	[43] = "VMEXIT_DR11_READ",
	[44] = "VMEXIT_DR12_READ",
	[45] = "VMEXIT_DR13_READ",
	[46] = "VMEXIT_DR14_READ",
	[47] = "VMEXIT_DR15_READ",
	[48] = "VMEXIT_DR0_WRITE",
	[49] = "VMEXIT_DR1_WRITE",
	[50] = "VMEXIT_DR2_WRITE",
	[51] = "VMEXIT_DR3_WRITE",
	[52] = "VMEXIT_DR4_WRITE",
	[53] = "VMEXIT_DR5_WRITE",
	[54] = "VMEXIT_DR6_WRITE",
	[55] = "VMEXIT_DR7_WRITE",
	[56] = "VMEXIT_DR8_WRITE",
	[57] = "VMEXIT_DR9_WRITE",
	[58] = "VMEXIT_DR10_WRITE",
	[59] = "VMEXIT_DR11_WRITE",
	[60] = "VMEXIT_DR12_WRITE",
	[61] = "VMEXIT_DR13_WRITE",
	[62] = "VMEXIT_DR14_WRITE",
	[63] = "VMEXIT_DR15_WRITE",
	[64] = "VMEXIT_EXCEPTION_DE",
	[65] = "VMEXIT_EXCEPTION_DB",
	[66] = "VMEXIT_EXCEPTION_NMI",
	[67] = "VMEXIT_EXCEPTION_BP",
	[68] = "VMEXIT_EXCEPTION_OF",
	[69] = "VMEXIT_EXCEPTION_BR",
	[70] = "VMEXIT_EXCEPTION_UD",
	[71] = "VMEXIT_EXCEPTION_NM",
	[72] = "VMEXIT_EXCEPTION_DF",
	[73] = "VMEXIT_EXCEPTION_09",
	[74] = "VMEXIT_EXCEPTION_TS",
	[75] = "VMEXIT_EXCEPTION_NP",
	[76] = "VMEXIT_EXCEPTION_SS",
	[77] = "VMEXIT_EXCEPTION_GP",
	[78] = "VMEXIT_EXCEPTION_PF",
	[79] = "VMEXIT_EXCEPTION_15",
	[80] = "VMEXIT_EXCEPTION_MF",
	[81] = "VMEXIT_EXCEPTION_AC",
	[82] = "VMEXIT_EXCEPTION_MC",
	[83] = "VMEXIT_EXCEPTION_XF",
	[84] = "VMEXIT_EXCEPTION_20",
	[85] = "VMEXIT_EXCEPTION_21",
	[86] = "VMEXIT_EXCEPTION_22",
	[87] = "VMEXIT_EXCEPTION_23",
	[88] = "VMEXIT_EXCEPTION_24",
	[89] = "VMEXIT_EXCEPTION_25",
	[90] = "VMEXIT_EXCEPTION_26",
	[91] = "VMEXIT_EXCEPTION_27",
	[92] = "VMEXIT_EXCEPTION_28",
	[93] = "VMEXIT_EXCEPTION_29",
	[94] = "VMEXIT_EXCEPTION_30",
	[95] = "VMEXIT_EXCEPTION_31",
	[96] = "VMEXIT_INTR",
	[97] = "VMEXIT_NMI",
	[98] = "VMEXIT_SMI",
	[99] = "VMEXIT_INIT",
	[100] = "VMEXIT_VINTR",
	[101] = "VMEXIT_CR0_SEL_WRITE",
	[102] = "VMEXIT_IDTR_READ",
	[103] = "VMEXIT_GDTR_READ",
	[104] = "VMEXIT_LDTR_READ",
	[105] = "VMEXIT_TR_READ",
	[106] = "VMEXIT_IDTR_WRITE",
	[107] = "VMEXIT_GDTR_WRITE",
	[108] = "VMEXIT_LDTR_WRITE",
	[109] = "VMEXIT_TR_WRITE",
	[110] = "VMEXIT_RDTSC",
	[111] = "VMEXIT_RDPMC",
	[112] = "VMEXIT_PUSHF",
	[113] = "VMEXIT_POPF",
	[114] = "VMEXIT_CPUID",
	[115] = "VMEXIT_RSM",
	[116] = "VMEXIT_IRET",
	[117] = "VMEXIT_SWINT",
	[118] = "VMEXIT_INVD",
	[119] = "VMEXIT_PAUSE",
	[120] = "VMEXIT_HLT",
	[121] = "VMEXIT_INVLPG",
	[122] = "VMEXIT_INVLPGA",
	[123] = "VMEXIT_IOIO",
	[124] = "VMEXIT_MSR",
	[125] = "VMEXIT_TASK_SWITCH",
	[126] = "VMEXIT_FERR_FREEZE",
	[127] = "VMEXIT_SHUTDOWN",
	[128] = "VMEXIT_VMRUN",
	[129] = "VMEXIT_VMMCALL",
	[130] = "VMEXIT_VMLOAD",
	[131] = "VMEXIT_VMSAVE",
	[132] = "VMEXIT_STGI",
	[133] = "VMEXIT_CLGI",
	[134] = "VMEXIT_SKINIT",
	[135] = "VMEXIT_RDTSCP",
	[136] = "VMEXIT_ICEBP",
	[137] = "VMEXIT_WBINVD",
	[138] = "VMEXIT_MONITOR",
	[139] = "VMEXIT_MWAIT",
	[140] = "VMEXIT_MWAIT_CONDITIONAL",
	[1024] = "VMEXIT_NPF",
};

const char *tr_hvm_exit_name(bool svm, uint32_t reason)
{
	if (svm)
		return reason < sizeof(svm_exit) / sizeof(svm_exit[0]) ? svm_exit[reason] : NULL;
	return reason < sizeof(vmx_exit) / sizeof(vmx_exit[0]) ? vmx_exit[reason] : NULL;
}

const char *tr_hvm_msr_name(uint32_t msr)
{
	static const struct { uint32_t msr; const char *name; } t[] = {
		{ 0x0000001b, "APIC_BASE" }, { 0x00000010, "TSC" },
		{ 0x0000003a, "FEATURE_CONTROL" }, { 0x00000048, "SPEC_CTRL" },
		{ 0x00000049, "PRED_CMD" }, { 0x000000e7, "MPERF" }, { 0x000000e8, "APERF" },
		{ 0x00000174, "SYSENTER_CS" }, { 0x00000175, "SYSENTER_ESP" },
		{ 0x00000176, "SYSENTER_EIP" }, { 0x000001a0, "MISC_ENABLE" },
		{ 0x00000277, "PAT" }, { 0x000006e0, "TSC_DEADLINE" },
		{ 0x00000802, "x2APIC ID" }, { 0x00000803, "x2APIC VERSION" },
		{ 0x00000808, "x2APIC TPR" }, { 0x0000080b, "x2APIC EOI" },
		{ 0x0000080d, "x2APIC LDR" }, { 0x0000080f, "x2APIC SVR" },
		{ 0x00000830, "x2APIC ICR" }, { 0x00000832, "x2APIC LVT TIMER" },
		{ 0x00000838, "x2APIC TMICT" }, { 0x00000839, "x2APIC TMCCT" },
		{ 0x0000083e, "x2APIC TDCR" }, { 0x0000083f, "x2APIC SELF IPI" },
		{ 0x40000000, "Xen hypercall page" },
		{ 0xc0000080, "EFER" }, { 0xc0000081, "STAR" }, { 0xc0000082, "LSTAR" },
		{ 0xc0000084, "SFMASK" }, { 0xc0000100, "FS_BASE" }, { 0xc0000101, "GS_BASE" },
		{ 0xc0000102, "KERNEL_GS_BASE" }, { 0xc0000103, "TSC_AUX" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].msr == msr)
			return t[i].name;
	return NULL;
}

static int vcpu_init(struct tr_hvm_vcpu *v, uint32_t dom, uint32_t vcpu)
{
	memset(v, 0, sizeof(*v));
	v->dom = dom;
	v->vcpu = vcpu;
	if (cmap_init(&v->reason, 2048) || cmap_init(&v->handler, 4096) ||
	    cmap_init(&v->virq, 512) || cmap_init(&v->msr_read, 4096) ||
	    cmap_init(&v->msr_write, 4096) || cmap_init(&v->ipi_vec, 512) ||
	    cmap_init(&v->ipi_dest, 4096) || cmap_init(&v->hypercall, 512))
		return -1;
	return 0;
}

static void vcpu_fini(struct tr_hvm_vcpu *v)
{
	cmap_fini(&v->reason);
	cmap_fini(&v->handler);
	cmap_fini(&v->virq);
	cmap_fini(&v->msr_read);
	cmap_fini(&v->msr_write);
	cmap_fini(&v->ipi_vec);
	cmap_fini(&v->ipi_dest);
	cmap_fini(&v->hypercall);
}

/* Index of (dom, vcpu), added if new; -1 when full or out of memory. */
static int64_t vcpu_find(struct tr_hvm *h, uint32_t dom, uint32_t vcpu)
{
	for (uint32_t i = 0; i < h->nv; i++)
		if (h->v[i].dom == dom && h->v[i].vcpu == vcpu)
			return i;
	if (h->nv == TR_HVM_MAX_VCPUS)
		return -1;
	if (h->nv == h->capv) {
		uint32_t cap = h->capv ? 2 * h->capv : 8;
		struct tr_hvm_vcpu *n = realloc(h->v, cap * sizeof(*n));

		if (!n)
			return -1;
		h->v = n;
		h->capv = cap;
	}
	if (vcpu_init(&h->v[h->nv], dom, vcpu)) {
		vcpu_fini(&h->v[h->nv]);
		return -1;
	}
	return h->nv++;
}

/* What a pCPU runs: a vCPU index, or one of these. */
#define CUR_DEFAULT (-1)	/* no scheduler record yet: default domain, vCPU = pCPU */
#define CUR_NONE (-2)
#define CUR_IDLE (-3)

static void icr_write(struct tr_hvm_vcpu *v, uint32_t lo, uint32_t hi);

/* The handler events 0x00082000-0x0008203f (all that Xen 4.17 has): the
 * hot path's direct counts (struct hfast) and this test index by the low
 * bits. */
#define EV_HANDLER_BASE 0x00082000u
#define HF_HAND 64u
#define HAND_BIT(ev) (1ull << ((ev) - EV_HANDLER_BASE))

/* The handler events whose words handler() reads. */
#define HAND_WORDS (HAND_BIT(EV_INJ_VIRQ) | HAND_BIT(EV_MSR_READ) | HAND_BIT(EV_MSR_WRITE) | \
		    HAND_BIT(EV_VMMCALL))

static inline bool no_exit_needed(uint32_t ev)
{
	const uint64_t any = HAND_BIT(EV_INJ_VIRQ) | HAND_BIT(EV_REINJ_VIRQ) | HAND_BIT(EV_INJ_EXC) |
			     HAND_BIT(EV_PF_INJECT) | HAND_BIT(EV_INTR_WINDOW) |
			     HAND_BIT(EV_OP_DESTROY_PROC);

	return ev - EV_HANDLER_BASE < HF_HAND && (any >> (ev - EV_HANDLER_BASE) & 1);
}

/*
 * Counts of one vCPU kept by index beside its tables, by the file-order
 * pass's threads (tr_hvm_par): handler events by their low bits, exit
 * reasons and injected vectors below HF_SMALL, instead of a hash-table
 * increment per record (perf record on the 1 GiB file: handler() 12% and
 * cmap_inc 4% before).  They are folded into the tables (fast_fold())
 * before anything reads them.  NULL (tr_hvm_run(), the stitch): the
 * tables.
 */
#define HF_SMALL 256u
struct hfast {
	uint64_t hand[HF_HAND], reason[HF_SMALL], virq[HF_SMALL];
};

/* KEY counted in M, or in DIRECT[KEY - BASE] when that is below LIM. */
static inline void count_key(struct cmap *m, uint64_t *direct, uint32_t base, uint32_t lim,
			     uint32_t key)
{
	if (direct && key - base < lim)
		direct[key - base]++;
	else
		cmap_inc(m, key);
}

/* A handler record (event EV, TRC_64_FLAG folded; N words D) of V, whose
 * exit is open or not (OPEN); *before_exit counts what needed one. */
static inline __attribute__((always_inline)) void
handler(uint64_t *before_exit, struct tr_hvm_vcpu *v, struct hfast *f, bool open, uint32_t ev,
	uint32_t n, const uint32_t *d)
{
	if (!open && !no_exit_needed(ev)) {
		(*before_exit)++;
		return;
	}
	count_key(&v->handler, f ? f->hand : NULL, EV_HANDLER_BASE, HF_HAND, ev);
	if (ev == EV_INJ_VIRQ && n >= 1)
		count_key(&v->virq, f ? f->virq : NULL, 0, HF_SMALL,
			  d[0] > GUEST_INTERRUPT_MAX ? GUEST_INTERRUPT_MAX : d[0]);
	else if ((ev == EV_MSR_READ || ev == EV_MSR_WRITE) && n >= 1) {
		cmap_inc(ev == EV_MSR_READ ? &v->msr_read : &v->msr_write, d[0]);
		if (ev == EV_MSR_WRITE && d[0] == MSR_X2APIC_ICR && n >= 3)
			icr_write(v, d[1], d[2]);
		else if (ev == EV_MSR_WRITE && d[0] == MSR_X2APIC_SELF_IPI && n >= 2) {
			cmap_inc(&v->ipi_vec, d[1] & 0xff);
			v->ipi_self++;
		}
	} else if (ev == EV_VMMCALL && n >= 1)
		cmap_inc(&v->hypercall, d[0]);
}
/*
 * An x2APIC ICR write of V: LO = bits 0-31 (vector 0-7, delivery mode 8-10,
 * destination mode 11, shorthand 18-19), HI = the destination.  Self: the
 * shorthand self, or a physical destination equal to V's own APIC ID (known
 * for a real domain only: the default domain's vCPU N is pCPU N).
 */
static void icr_write(struct tr_hvm_vcpu *v, uint32_t lo, uint32_t hi)
{
	uint32_t vec = lo & 0xff, dm = (lo >> 8) & 7, logical = (lo >> 11) & 1, sh = (lo >> 18) & 3;

	v->icr_writes++;
	if (dm > 1) {		/* not fixed (0) or lowest priority (1) */
		v->icr_other++;
		return;
	}
	cmap_inc(&v->ipi_vec, vec);
	if (sh == 1 || (sh == 0 && !logical && v->dom != TR_HVM_DEFAULT_DOM &&
			hi == TR_HVM_APIC_ID(v->vcpu))) {
		v->ipi_self++;
		return;
	}
	v->ipi_sent++;
	if (sh)
		v->ipi_shorthand++;
	else if (logical)
		v->ipi_logical++;
	else
		cmap_inc(&v->ipi_dest, hi);
}

/* An exit (OPEN, REASON, at ETSC) ends at TSC: counted into V under its
 * reason unless its TSC is later or unknown (xenalyze's hvm_close_vmexit()). */
static inline void count_close(struct tr_hvm_vcpu *v, struct hfast *f, bool open, uint32_t reason,
			       uint64_t etsc, uint64_t tsc)
{
	if (open && etsc && etsc <= tsc) {
		count_key(&v->reason, f ? f->reason : NULL, 0, HF_SMALL, reason);
		v->exits++;
	}
}

/* V's open exit ends at TSC. */
static void close_exit(struct tr_hvm_vcpu *v, uint64_t tsc)
{
	count_close(v, NULL, v->exit_open, v->exit_reason, v->exit_tsc, tsc);
	v->exit_open = false;
	v->exit_tsc = 0;
}

int tr_hvm_sched_rec(const struct xt_rec *r, struct tr_hvm_sched *sc)
{
	uint32_t ev = r->event;
	int kind;

	/* TRC_SCHED_RUNSTATE_CHANGE: old state in bits 8-9, new in 4-5. */
	if ((ev & 0x0ffffc0f) == 0x00021001 && !(ev & 0xcc0))
		kind = TR_HVM_SCHED_RUNSTATE;
	/* TRC_SCHED_CONTINUE_RUNNING (same d0): the vCPU keeps running on
	 * this pCPU.  xenalyze takes it as running -> running
	 * (sched_runstate_process(), type CONTINUE), so a pCPU whose first
	 * scheduler record is one runs that vCPU from there on
	 * (vcpu_start()), not the default domain's. */
	else if ((ev & 0x0fffffff) == 0x00021002)
		kind = TR_HVM_SCHED_CONTINUE;
	else
		return TR_HVM_SCHED_NONE;
	if (r->nextra < 1)
		return TR_HVM_SCHED_SHORT;
	sc->dom = r->d[0] >> 16;
	sc->vcpu = r->d[0] & 0xffff;
	sc->from = kind == TR_HVM_SCHED_RUNSTATE ? (ev >> 8) & 3 : 0;
	sc->to = kind == TR_HVM_SCHED_RUNSTATE ? (ev >> 4) & 3 : 0;
	return kind;
}

int tr_hvm_run(struct tr_hvm *h, const struct xt_file *f)
{
	struct xt_anom an;	/* the summary's own pass reports the file's anomalies */
	struct xt_merge *m;
	struct xt_rec r;
	int64_t *cur = malloc(XT_MAX_CPUS * sizeof(*cur));
	int64_t dflt = -1;		/* vCPU index of (default domain, dflt_cpu) */
	uint32_t dflt_cpu = UINT32_MAX;
	int rc = -1;

	memset(h, 0, sizeof(*h));
	memset(&an, 0, sizeof(an));
	if (!cur)
		return -1;
	for (uint32_t i = 0; i < XT_MAX_CPUS; i++)
		cur[i] = CUR_DEFAULT;
	m = xt_merge_open(f, &an);
	if (!m)
		goto out;
	/* Only the scheduler's runstate changes and class TRC_HVM are looked at. */
	xt_merge_want(m, (const struct xt_want[]){ { 0x0ffff000, 0x00021000 },
						   { 0x0fff0000, 0x00080000 } }, 2);
	while (xt_merge_next(m, &r)) {
		uint32_t ev = r.event;
		int64_t c;
		struct tr_hvm_vcpu *v;
		struct tr_hvm_sched sc;

		switch (tr_hvm_sched_rec(&r, &sc)) {
		case TR_HVM_SCHED_SHORT:
			h->short_records++;
			continue;
		case TR_HVM_SCHED_RUNSTATE:
			h->sched_records++;
			/* -> runnable: the vCPU's open exit ends here (xenalyze
			 * closes it, "so as not to account CPU contention to
			 * some other overhead"): counted now, not at its VMENTRY. */
			if (sc.to == 1) {
				int64_t k = vcpu_find(h, sc.dom, sc.vcpu);

				if (k < 0)
					goto out;
				close_exit(&h->v[k], r.tsc);
			}
			if (sc.to == 0)		/* -> running */
				cur[r.cpu] = sc.dom == TR_HVM_IDLE_DOM ? CUR_IDLE :
					     vcpu_find(h, sc.dom, sc.vcpu);
			else if (sc.from == 0)	/* running -> */
				cur[r.cpu] = CUR_NONE;
			if (cur[r.cpu] == -1 && sc.to == 0)
				goto out;	/* vcpu_find: full or no memory */
			continue;
		case TR_HVM_SCHED_CONTINUE:
			cur[r.cpu] = sc.dom == TR_HVM_IDLE_DOM ? CUR_IDLE : vcpu_find(h, sc.dom, sc.vcpu);
			if (cur[r.cpu] == -1)
				goto out;	/* vcpu_find: full or no memory */
			continue;
		default:
			break;
		}
		if (ev >> 16 != 0x0008)
			continue;
		h->hvm_records++;
		c = cur[r.cpu];
		if (c == CUR_DEFAULT) {
			/* (records come in runs of one pCPU: the last lookup kept) */
			if (r.cpu != dflt_cpu) {
				dflt = vcpu_find(h, TR_HVM_DEFAULT_DOM, r.cpu);
				dflt_cpu = r.cpu;
			}
			c = dflt;
			if (c < 0)
				goto out;
			/* (kept default until the pCPU's first scheduler record) */
		}
		if (c < 0) {
			h->no_vcpu++;
			continue;
		}
		v = &h->v[c];
		switch ((ev >> 12) & 0xf) {
		case 1:	/* TRC_HVM_ENTRYEXIT */
			if ((ev & ~TRC_64_FLAG) == EV_VMEXIT) {
				if (r.nextra < ((ev & TRC_64_FLAG) ? 3u : 2u)) {
					h->short_records++;
					break;
				}
				v->vmexit++;
				v->exit_open = true;
				v->exit_reason = r.d[0];
				v->exit_tsc = r.tsc;
				if (r.d[0] > VMX_REASON_MAX)
					h->svm = true;
			} else if (ev == EV_VMENTRY) {
				v->vmentry++;
				close_exit(v, r.tsc);
			}
			break;
		case 2:	/* TRC_HVM_HANDLER */
			handler(&h->before_exit, v, NULL, v->exit_open, ev & ~TRC_64_FLAG, r.nextra, r.d);
			break;
		default:
			break;
		}
	}
	rc = 0;
out:
	if (m)
		xt_merge_close(m);
	free(cur);
	return rc;
}

void tr_hvm_fini(struct tr_hvm *h)
{
	for (uint32_t i = 0; i < h->nv; i++)
		vcpu_fini(&h->v[i]);
	free(h->v);
	h->v = NULL;
	h->nv = h->capv = 0;
}

uint64_t tr_cmap_get(const struct cmap *m, uint32_t key)
{
	uint32_t i = cmap_hash(key, m->cap);

	while (m->used[i]) {
		if (m->key[i] == key)
			return m->v[i];
		i = (i + 1) & (m->cap - 1);
	}
	return 0;
}

/* DST += SRC, key by key; -1 when DST refuses a key. */
static int cmap_merge(struct cmap *dst, const struct cmap *src)
{
	for (uint32_t i = 0; i < src->cap; i++)
		if (src->used[i] && src->v[i] && cmap_add(dst, src->key[i], src->v[i], 0))
			return -1;
	return 0;
}

void tr_hvm_guest_fini(struct tr_hvm_guest *g)
{
	cmap_fini(&g->reason);
	cmap_fini(&g->virq);
	cmap_fini(&g->ipi_vec);
	cmap_fini(&g->pair);
	cmap_fini(&g->hypercall);
}

void tr_hvm_guests_free(struct tr_hvm_guest *g, uint32_t n)
{
	for (uint32_t i = 0; g && i < n; i++)
		tr_hvm_guest_fini(&g[i]);
	free(g);
}

static int guest_init(struct tr_hvm_guest *d, uint32_t dom)
{
	d->dom = dom;
	return cmap_init(&d->reason, 2048) || cmap_init(&d->virq, 512) ||
	       cmap_init(&d->ipi_vec, 512) || cmap_init(&d->pair, 1u << 16) ||
	       cmap_init(&d->hypercall, 512) ? -1 : 0;
}

/* The IPI path and the IPIs sent, from the counts (hvm.h). */
static void guest_path(struct tr_hvm_guest *d)
{
	d->path = d->ipi_sent ? IPIBENCH_IPI_PATH_APIC : d->evtchn_op ? IPIBENCH_IPI_PATH_EVTCHN : "none";
	d->ipis = d->ipi_sent ? d->ipi_sent : d->evtchn_op;
}

int tr_hvm_guests(const struct tr_hvm *h, struct tr_hvm_guest **out, uint32_t *nout)
{
	struct tr_hvm_guest *g = calloc(h->nv + 1, sizeof(*g));
	uint32_t n = 0;

	*out = NULL;
	*nout = 0;
	if (!g)
		return -1;
	for (uint32_t i = 0; i < h->nv; i++) {
		const struct tr_hvm_vcpu *v = &h->v[i];
		struct tr_hvm_guest *d;
		uint32_t k;

		for (k = 0; k < n && g[k].dom != v->dom; k++)
			;
		d = &g[k];
		if (k == n) {
			n++;
			if (guest_init(d, v->dom))
				goto fail;
		}
		d->nvcpus++;
		d->vmexit += v->vmexit;
		d->exits += v->exits;
		d->icr_writes += v->icr_writes;
		d->ipi_sent += v->ipi_sent;
		d->ipi_self += v->ipi_self;
		d->ipi_logical += v->ipi_logical;
		d->ipi_shorthand += v->ipi_shorthand;
		d->icr_other += v->icr_other;
		d->evtchn_op += tr_cmap_get(&v->hypercall, TR_HVM_HC_EVTCHN_OP);
		d->vmmcall += tr_cmap_get(&v->handler, EV_VMMCALL);
		if (cmap_merge(&d->reason, &v->reason) || cmap_merge(&d->virq, &v->virq) ||
		    cmap_merge(&d->ipi_vec, &v->ipi_vec) || cmap_merge(&d->hypercall, &v->hypercall))
			goto fail;
		for (uint32_t j = 0; j < v->ipi_dest.cap; j++) {
			uint32_t dst = v->ipi_dest.key[j];

			/* an APIC ID that is no vCPU's (odd, or past 16 bits) keyed 0xffff */
			if (v->ipi_dest.used[j] && v->ipi_dest.v[j] &&
			    cmap_add(&d->pair, (v->vcpu & 0xffff) << 16 |
				     (dst % 2 || dst / 2 > 0xfffe ? 0xffff : dst / 2),
				     v->ipi_dest.v[j], 0))
				goto fail;
		}
	}
	for (uint32_t k = 0; k < n; k++) {
		struct tr_hvm_guest *d = &g[k];

		guest_path(d);
		for (uint32_t j = 0; j < d->virq.cap; j++) {
			if (!d->virq.used[j])
				continue;
			d->inj += d->virq.v[j];
			if (tr_cmap_get(&d->ipi_vec, d->virq.key[j]))
				d->inj_ipi += d->virq.v[j];
			else
				d->inj_irq += d->virq.v[j];
		}
	}
	*out = g;
	*nout = n;
	return 0;
fail:
	tr_hvm_guests_free(g, n);
	return -1;
}

int tr_hvm_guest_sum(const struct tr_hvm_guest *g, uint32_t n, struct tr_hvm_guest *sum)
{
	bool real = false;
	int nsum = 0;

	memset(sum, 0, sizeof(*sum));
	if (guest_init(sum, 0))
		return -1;
	for (uint32_t i = 0; i < n; i++)
		real |= g[i].dom && g[i].dom < TR_HVM_IDLE_DOM && g[i].vmexit;
	for (uint32_t i = 0; i < n; i++) {
		const struct tr_hvm_guest *d = &g[i];

		if (real ? !(d->dom && d->dom < TR_HVM_IDLE_DOM && d->vmexit)
			 : d->dom != TR_HVM_DEFAULT_DOM)
			continue;
		nsum++;
		sum->dom = d->dom;
		sum->nvcpus += d->nvcpus;
		sum->vmexit += d->vmexit;
		sum->exits += d->exits;
		sum->icr_writes += d->icr_writes;
		sum->ipi_sent += d->ipi_sent;
		sum->ipi_self += d->ipi_self;
		sum->ipi_logical += d->ipi_logical;
		sum->ipi_shorthand += d->ipi_shorthand;
		sum->icr_other += d->icr_other;
		sum->evtchn_op += d->evtchn_op;
		sum->vmmcall += d->vmmcall;
		/* each domain's own split of its injections (its own IPI vectors) */
		sum->inj += d->inj;
		sum->inj_ipi += d->inj_ipi;
		sum->inj_irq += d->inj_irq;
		if (cmap_merge(&sum->reason, &d->reason) || cmap_merge(&sum->virq, &d->virq) ||
		    cmap_merge(&sum->ipi_vec, &d->ipi_vec) || cmap_merge(&sum->pair, &d->pair) ||
		    cmap_merge(&sum->hypercall, &d->hypercall))
			return -1;
	}
	guest_path(sum);
	return nsum;
}

double tr_ratio(uint64_t n, uint64_t d)
{
	return d ? (double)n / (double)d : NAN;
}

const char *tr_moved(const struct tr_move *m)
{
	if (!m->da || !m->db)
		return "-";
	unsigned __int128 x = (unsigned __int128)m->na * m->db, y = (unsigned __int128)m->nb * m->da;

	return y > x ? "up" : y < x ? "down" : "flat";
}

int tr_move_cmp(const struct tr_move *x, const struct tr_move *y)
{
	double dx = fabs(tr_ratio(x->nb, x->db) - tr_ratio(x->na, x->da));
	double dy = fabs(tr_ratio(y->nb, y->db) - tr_ratio(y->na, y->da));

	if (isnan(dx) != isnan(dy))
		return isnan(dx) ? 1 : -1;
	if (!isnan(dx) && dx != dy)
		return dx < dy ? 1 : -1;
	return 0;
}

/* ---- the same profile counted in file order (tr_hvm_par, hvm.h) ----------
 *
 * What tr_hvm_run() keeps across pCPUs is per vCPU (exit_open, exit_reason,
 * exit_tsc) plus the first appearance of each vCPU; what a pCPU runs
 * depends on that pCPU's records only.  So each pCPU's records are counted
 * in its own (file, = TSC) order, and only what depends on a vCPU's state
 * is kept apart: a segment is a stretch of one pCPU's records that touch
 * one vCPU's exit state (its VMEXIT, VMENTRY and handler records, and the
 * runstate changes to runnable that close its exit, wherever they are).
 * Once a segment has seen a VMEXIT or a close, the state is known and the
 * rest is counted on the spot; what came before (handler records that need
 * an open exit, and the first close) is kept as the segment's prefix, with
 * the state it leaves.  par_apply() (between batches, tr_hvm_par_sync(),
 * for the segments that start before every pCPU's last TSC, and at the end,
 * tr_hvm_par_finish(), for the rest) replays, per vCPU, the prefixes of its
 * segments in the merged reader's order, (TSC, pCPU, offset), which is
 * xt_merge's order exactly when every pCPU's TSCs are monotone and the file
 * is regular (the caller's part to check), and lets them go.  That is exact
 * only when each of a vCPU's segments starts after its previous one ended
 * in that order; where one does not (runs interleaving, or a pCPU's chunk
 * coming after its time was stitched), or anything else is out of bounds
 * (prefix, vCPUs, segments waiting, a count table full), it says so and the
 * caller runs tr_hvm_run().  The vCPUs' order is that of each one's first
 * lookup (vcpu_find() there) by the same key.
 */
#include <pthread.h>

#define PAR_PRE 16			/* a segment's prefix records kept */
#define PAR_MAX_SEGS (1u << 20)		/* segments waiting, all threads (72 bytes each) */
#define PAR_GSLOTS 8192			/* (domain, vCPU) -> gid hash, > 2 x TR_HVM_MAX_VCPUS */
#define PAR_CSLOTS 64			/* a thread's cache of it */
#define PAR_SYNC_MIN 4096		/* segments waiting before a sync applies them */

struct hpre {
	uint32_t ev, n, d[3];
};

struct hkey {
	uint64_t tsc, off;
	uint32_t cpu;
	bool set;
};

struct hseg {
	uint64_t t0, o0, t1, o1;	/* first and last record (TSC, offset) */
	uint64_t close_tsc;		/* has_close: the prefix's closing record's TSC */
	uint64_t etsc;			/* known: the state it leaves */
	uint32_t gid, cpu, reason, npre, pre_at;
	bool known, open, has_close;
};

/* (each on cache lines of its own: pCPUs next to each other are on two threads) */
struct hcpu {
	_Alignas(64) bool init;
	bool has_seg;
	int32_t cur, dflt;		/* cur: a gid or CUR_*; dflt: the default vCPU's gid, or -1 */
	int32_t acc_g;			/* acc: thread acc_t's counts of gid acc_g (a cache) */
	unsigned acc_t;
	struct tr_hvm_vcpu *acc;
	struct hseg seg;		/* open segment */
	struct hpre pre[PAR_PRE];
};

struct hthr {
	_Alignas(64) struct tr_hvm_vcpu **acc;	/* per gid < capg, NULL until used */
	struct hkey *first;		/* per gid < capg: first lookup seen by this thread */
	uint32_t capg;
	struct hseg *segs;
	uint32_t nseg, capseg;
	struct hpre *pre;
	uint32_t npre, cappre;
	uint32_t *cpus, ncpus;		/* pCPUs this thread initialised */
	uint64_t hvm_records, no_vcpu, before_exit, short_records, sched_records;
	uint64_t fed;			/* records taken (tr_hvm_par_walk()) */
	bool svm;
	uint32_t ckey[PAR_CSLOTS];
	int32_t cgid[PAR_CSLOTS];
};

/* A segment as par_apply() orders them, with its prefix. */
struct pseg {
	struct hseg *s;
	const struct hpre *pre;
};

/* A vCPU's segments applied so far (par_apply()). */
struct hstate {
	struct hkey last;		/* the last one's last record */
	bool any;
	bool open;			/* the exit state they leave */
	uint32_t reason;
	uint64_t etsc;
};

struct tr_hvm_par {
	pthread_mutex_t mu;
	struct hstate st[TR_HVM_MAX_VCPUS];
	uint64_t before_exit;		/* of the prefixes applied */
	uint32_t gkey[TR_HVM_MAX_VCPUS];	/* gid -> dom << 16 | vcpu */
	int32_t gslot[PAR_GSLOTS];		/* gid + 1, 0 empty */
	uint32_t ngid;
	unsigned nthr;
	struct hthr *t;
	struct hcpu *cpu;			/* XT_MAX_CPUS */
	void *t_mem, *cpu_mem;			/* what t and cpu were cut from */
	const char *spoiled;			/* why it cannot be exact */
	uint32_t next_sync;			/* segments waiting that make a sync worth it */
	/* par_apply()'s scratch, kept between calls (fresh pages each time
	 * cost a page fault apiece, about 2 us here) */
	struct pseg *ps, *tmp;
	uint32_t *run, *at;
	uint32_t cap_ps;
};

static void *align64(void *p)
{
	return p ? (char *)p + (64 - (uintptr_t)p % 64) % 64 : NULL;
}

void tr_hvm_par_spoil(struct tr_hvm_par *hp, const char *why)
{
	pthread_mutex_lock(&hp->mu);
	if (!hp->spoiled)
		hp->spoiled = why;
	pthread_mutex_unlock(&hp->mu);
}

struct tr_hvm_par *tr_hvm_par_new(unsigned nthreads)
{
	struct tr_hvm_par *hp = calloc(1, sizeof(*hp));

	if (!hp)
		return NULL;
	hp->nthr = nthreads ? nthreads : 1;
	/* calloc, whose big blocks are fresh pages (mapped when touched: only
	 * the pCPUs the file has), aligned to 64 by hand */
	hp->t_mem = calloc(1, hp->nthr * sizeof(*hp->t) + 64);
	hp->cpu_mem = calloc(1, XT_MAX_CPUS * sizeof(*hp->cpu) + 64);
	hp->t = (struct hthr *)align64(hp->t_mem);
	hp->cpu = (struct hcpu *)align64(hp->cpu_mem);
	if (!hp->t_mem || !hp->cpu_mem || pthread_mutex_init(&hp->mu, NULL)) {
		free(hp->t_mem);
		free(hp->cpu_mem);
		free(hp);
		return NULL;
	}
	for (unsigned i = 0; i < hp->nthr; i++) {
		struct hthr *T = &hp->t[i];

		/* (acc and first when the thread first meets a vCPU: a file
		 * without HVM records pays for no more than this) */
		T->cpus = malloc(XT_MAX_CPUS * sizeof(*T->cpus));
		for (unsigned j = 0; j < PAR_CSLOTS; j++)
			T->cgid[j] = -1;
		if (!T->cpus) {
			tr_hvm_par_free(hp);
			return NULL;
		}
	}
	return hp;
}

void tr_hvm_par_free(struct tr_hvm_par *hp)
{
	if (!hp)
		return;
	for (unsigned i = 0; i < hp->nthr; i++) {
		struct hthr *T = &hp->t[i];

		for (uint32_t g = 0; g < T->capg; g++)
			if (T->acc[g]) {
				vcpu_fini(T->acc[g]);
				free(T->acc[g]);
			}
		free(T->acc);
		free(T->first);
		free(T->segs);
		free(T->pre);
		free(T->cpus);
	}
	pthread_mutex_destroy(&hp->mu);
	free(hp->ps);
	free(hp->tmp);
	free(hp->run);
	free(hp->at);
	free(hp->t_mem);
	free(hp->cpu_mem);
	free(hp);
}

/* T's tables per gid, grown to hold gid G when it first needs them (a
 * file with few vCPUs touches few pages); false (spoiled) out of memory. */
static bool thr_tables(struct tr_hvm_par *hp, struct hthr *T, int32_t g)
{
	uint32_t cap = T->capg ? 2 * T->capg : 16;
	struct tr_hvm_vcpu **acc;
	struct hkey *first;

	if ((uint32_t)g < T->capg)
		return true;
	while (cap <= (uint32_t)g)
		cap *= 2;
	if (cap > TR_HVM_MAX_VCPUS)
		cap = TR_HVM_MAX_VCPUS;
	acc = realloc(T->acc, cap * sizeof(*acc));
	if (acc)
		T->acc = acc;
	first = acc ? realloc(T->first, cap * sizeof(*first)) : NULL;
	if (!first) {
		tr_hvm_par_spoil(hp, "out of memory");
		return false;
	}
	T->first = first;
	memset(T->acc + T->capg, 0, (cap - T->capg) * sizeof(*T->acc));
	memset(T->first + T->capg, 0, (cap - T->capg) * sizeof(*T->first));
	T->capg = cap;
	return true;
}

static inline bool key_before(uint64_t tsc, uint32_t cpu, uint64_t off, const struct hkey *k)
{
	return tsc < k->tsc || (tsc == k->tsc && (cpu < k->cpu || (cpu == k->cpu && off < k->off)));
}

/* The gid of KEY (dom << 16 | vcpu), made if new: tr_hvm_run()'s
 * vcpu_find(), whose calls give the vCPUs' order (the record at TSC, CPU,
 * OFF is one); -1 (spoiled) past TR_HVM_MAX_VCPUS. */
static int32_t par_gid(struct tr_hvm_par *hp, struct hthr *T, uint32_t key, uint32_t cpu,
		       uint64_t tsc, uint64_t off)
{
	uint32_t c = (key * 0x9e3779b1u) >> 26;
	int32_t g;

	if (T->cgid[c] >= 0 && T->ckey[c] == key) {
		g = T->cgid[c];
	} else {
		uint32_t i = (key * 0x9e3779b1u) >> 19 & (PAR_GSLOTS - 1);

		pthread_mutex_lock(&hp->mu);
		while (hp->gslot[i] && hp->gkey[hp->gslot[i] - 1] != key)
			i = (i + 1) & (PAR_GSLOTS - 1);
		if (hp->gslot[i]) {
			g = hp->gslot[i] - 1;
		} else if (hp->ngid == TR_HVM_MAX_VCPUS) {
			g = -1;
		} else {
			g = (int32_t)hp->ngid++;
			hp->gkey[g] = key;
			hp->gslot[i] = g + 1;
		}
		pthread_mutex_unlock(&hp->mu);
		if (g < 0) {
			tr_hvm_par_spoil(hp, "more vCPUs than the profile keeps");
			return -1;
		}
		if (!thr_tables(hp, T, g))
			return -1;
		T->ckey[c] = key;
		T->cgid[c] = g;
	}
	if (!T->first[g].set || key_before(tsc, cpu, off, &T->first[g]))
		T->first[g] = (struct hkey){ tsc, off, cpu, true };
	return g;
}

/* A thread's counts of one vCPU: the tables, and the direct counts
 * beside them (T->acc[g] points at v, the first member). */
struct hacc {
	struct tr_hvm_vcpu v;
	struct hfast f;
};

static inline struct hfast *acc_fast(struct tr_hvm_vcpu *v)
{
	return &((struct hacc *)(void *)v)->f;
}

/* count_key()'s DIRECT[0, LIM) into M, and cleared (where the caps
 * apply: a key refused leaves M's overflow set, and the caller falls
 * back). */
static void fold_keys(struct cmap *m, uint64_t *direct, uint32_t base, uint32_t lim)
{
	for (uint32_t i = 0; i < lim; i++)
		if (direct[i])
			cmap_add(m, base + i, direct[i], 0);
	memset(direct, 0, lim * sizeof(*direct));
}

/* V's direct counts into its tables. */
static void fast_fold(struct tr_hvm_vcpu *v)
{
	struct hfast *f = acc_fast(v);

	fold_keys(&v->handler, f->hand, EV_HANDLER_BASE, HF_HAND);
	fold_keys(&v->reason, f->reason, 0, HF_SMALL);
	fold_keys(&v->virq, f->virq, 0, HF_SMALL);
}

/* This thread's counts of gid G. */
static struct tr_hvm_vcpu *par_acc(struct tr_hvm_par *hp, struct hthr *T, int32_t g)
{
	struct hacc *a;

	if (!thr_tables(hp, T, g))
		return NULL;
	if (T->acc[g])
		return T->acc[g];
	a = calloc(1, sizeof(*a));
	if (!a || vcpu_init(&a->v, hp->gkey[g] >> 16, hp->gkey[g] & 0xffff)) {
		if (a)
			vcpu_fini(&a->v);
		free(a);
		tr_hvm_par_spoil(hp, "out of memory");
		return NULL;
	}
	T->acc[g] = &a->v;
	return &a->v;
}

static void seg_close(struct tr_hvm_par *hp, struct hthr *T, struct hcpu *pc)
{
	struct hseg *s = &pc->seg;

	pc->has_seg = false;
	/* (each thread its share: no counter shared between threads on this path) */
	if (T->nseg >= PAR_MAX_SEGS / hp->nthr) {
		tr_hvm_par_spoil(hp, "more vCPU runs than are kept");
		return;
	}
	if (T->nseg == T->capseg) {
		uint32_t cap = T->capseg ? 2 * T->capseg : 64;
		struct hseg *n = realloc(T->segs, cap * sizeof(*n));

		if (!n) {
			tr_hvm_par_spoil(hp, "out of memory");
			return;
		}
		T->segs = n;
		T->capseg = cap;
	}
	if (s->npre > T->cappre - T->npre) {
		uint32_t cap = T->cappre ? 2 * T->cappre : 64;
		struct hpre *n;

		while (cap - T->npre < s->npre)
			cap *= 2;
		if (!(n = realloc(T->pre, cap * sizeof(*n)))) {
			tr_hvm_par_spoil(hp, "out of memory");
			return;
		}
		T->pre = n;
		T->cappre = cap;
	}
	s->pre_at = T->npre;
	if (s->npre)
		memcpy(T->pre + T->npre, pc->pre, s->npre * sizeof(*pc->pre));
	T->npre += s->npre;
	T->segs[T->nseg++] = *s;
}

/* The pCPU's run ends, and with it its segment. */
static inline void seg_end(struct tr_hvm_par *hp, struct hthr *T, struct hcpu *pc)
{
	if (pc->has_seg)
		seg_close(hp, T, pc);
}

/* The pCPU's segment of gid G, from the record at (TSC, OFF) on. */
static inline struct hseg *seg_for(struct tr_hvm_par *hp, struct hthr *T, struct hcpu *pc,
				   uint32_t cpu, int32_t g, uint64_t tsc, uint64_t off)
{
	struct hseg *s = &pc->seg;

	if (pc->has_seg && s->gid == (uint32_t)g) {
		s->t1 = tsc;
		s->o1 = off;
		return s;
	}
	if (pc->has_seg)
		seg_close(hp, T, pc);
	memset(s, 0, sizeof(*s));
	s->gid = (uint32_t)g;
	s->cpu = cpu;
	s->t0 = s->t1 = tsc;
	s->o0 = s->o1 = off;
	pc->has_seg = true;
	return s;
}

/* G's exit ends at TSC (a VMENTRY, or its runstate change to runnable). */
static inline void par_close(struct tr_hvm_par *hp, struct hthr *T, struct hcpu *pc,
			     struct tr_hvm_vcpu *v, uint32_t cpu, int32_t g, uint64_t tsc, uint64_t off)
{
	struct hseg *s = seg_for(hp, T, pc, cpu, g, tsc, off);

	if (s->known) {
		/* (V NULL: the caller's is looked up only if counted, so a
		 * file's vCPUs without HVM records get no tables) */
		if (s->open && (v || (v = par_acc(hp, T, g))))
			count_close(v, acc_fast(v), s->open, s->reason, s->etsc, tsc);
	} else {
		s->has_close = true;
		s->close_tsc = tsc;
		s->known = true;
	}
	s->open = false;
	s->etsc = 0;
}

/* A scheduler record of the pCPU (tr_hvm_run()'s rules). */
static void par_sched(struct tr_hvm_par *hp, struct hthr *T, struct hcpu *pc, uint32_t cpu,
		      uint32_t ev, uint32_t n, const uint32_t *d, uint64_t tsc, uint64_t off)
{
	if ((ev & 0x0ffffc0f) == 0x00021001 && !(ev & 0xcc0)) {
		uint32_t dom = d[0] >> 16;

		if (n < 1) {
			T->short_records++;
			return;
		}
		T->sched_records++;
		if (((ev >> 4) & 3) == 1) {
			int32_t k = par_gid(hp, T, d[0], cpu, tsc, off);

			if (k < 0)
				return;
			par_close(hp, T, pc, NULL, cpu, k, tsc, off);
		}
		/* What the pCPU runs changes: its segment ends here (else it
		 * would span the time it ran others). */
		if (((ev >> 4) & 3) == 0 || ((ev >> 8) & 3) == 0)
			seg_end(hp, T, pc);
		if (((ev >> 4) & 3) == 0)
			pc->cur = dom == TR_HVM_IDLE_DOM ? CUR_IDLE : par_gid(hp, T, d[0], cpu, tsc, off);
		else if (((ev >> 8) & 3) == 0)
			pc->cur = CUR_NONE;
		return;
	}
	if ((ev & 0x0fffffff) == 0x00021002) {
		if (n < 1) {
			T->short_records++;
			return;
		}
		seg_end(hp, T, pc);
		pc->cur = d[0] >> 16 == TR_HVM_IDLE_DOM ? CUR_IDLE : par_gid(hp, T, d[0], cpu, tsc, off);
	}
}

/*
 * The first three data words of the record REC (header HDR), 0 for those
 * it does not have, without a branch: each load is of the record's own
 * bytes (the header when the word is missing), then masked.  (The
 * variable-length memcpy here before had 17% of perf record's samples on
 * the 1 GiB file; a loop of conditional loads in its place still took 25
 * instructions a record with a branch per word, cachegrind.)
 */
static inline uint32_t word_at(const uint8_t *rec, uint32_t hdr, uint32_t j)
{
	uint32_t n = hdr >> 28 & 7, m = -(uint32_t)(n > j), w;
	uintptr_t at = (uintptr_t)((hdr >> 31 ? 12 : 4) + 4 * j) & (uintptr_t)(intptr_t)(int32_t)m;

	memcpy(&w, rec + at, 4);
	return w & m;
}

static inline void words3(uint32_t d[3], uint32_t hdr, const uint8_t *rec)
{
	d[0] = word_at(rec, hdr, 0);
	d[1] = word_at(rec, hdr, 1);
	d[2] = word_at(rec, hdr, 2);
}

/* One record of the pCPU's (tr_hvm_run()'s rules, record for record). */
static inline void par_rec(struct tr_hvm_par *hp, struct hthr *T, struct hcpu *pc, unsigned thread,
			   uint32_t cpu, uint32_t hdr, const uint8_t *rec, uint64_t tsc, uint64_t off)
{
	uint32_t ev = hdr & 0x0fffffff, n = hdr >> 28 & 7, d[3];
	struct tr_hvm_vcpu *v;
	int32_t c;

	/* As tr_hvm_run(), record for record (the words read where used). */
	if (ev >> 16 != 0x0008) {
		/* (par_sched() looks at runstate changes and 0x00021002 only) */
		if (((ev & 0x0ffffc0f) == 0x00021001 && !(ev & 0xcc0)) || ev == 0x00021002) {
			words3(d, hdr, rec);
			par_sched(hp, T, pc, cpu, ev, n, d, tsc, off);
		}
		return;
	}
	T->hvm_records++;
	c = pc->cur;
	if (c == CUR_DEFAULT) {
		if (pc->dflt < 0)
			pc->dflt = par_gid(hp, T, TR_HVM_DEFAULT_DOM << 16 | cpu, cpu, tsc, off);
		c = pc->dflt;
		if (c < 0)
			return;
	}
	if (c < 0) {
		T->no_vcpu++;
		return;
	}
	if (pc->acc_g == c && pc->acc_t == thread) {
		v = pc->acc;
	} else {
		if (!(v = par_acc(hp, T, c)))
			return;
		pc->acc = v;
		pc->acc_g = c;
		pc->acc_t = thread;
	}
	switch ((ev >> 12) & 0xf) {
	case 1:	/* TRC_HVM_ENTRYEXIT */
		if ((ev & ~TRC_64_FLAG) == EV_VMEXIT) {
			struct hseg *s;
			uint32_t reason;

			if (n < ((ev & TRC_64_FLAG) ? 3u : 2u)) {
				T->short_records++;
				break;
			}
			reason = word_at(rec, hdr, 0);
			v->vmexit++;
			s = seg_for(hp, T, pc, cpu, c, tsc, off);
			s->known = true;
			s->open = true;
			s->reason = reason;
			s->etsc = tsc;
			T->svm |= reason > VMX_REASON_MAX;
		} else if (ev == EV_VMENTRY) {
			v->vmentry++;
			par_close(hp, T, pc, v, cpu, c, tsc, off);
		}
		break;
	case 2: {	/* TRC_HVM_HANDLER */
		uint32_t e = ev & ~TRC_64_FLAG;
		struct hseg *s;

		/* handler() reads the words of these only */
		if (HAND_WORDS >> ((e - EV_HANDLER_BASE) & 63) & 1) {
			words3(d, hdr, rec);
		} else {
			d[0] = d[1] = d[2] = 0;
		}
		if (no_exit_needed(e)) {
			handler(&T->before_exit, v, acc_fast(v), true, e, n, d);
			break;
		}
		s = seg_for(hp, T, pc, cpu, c, tsc, off);
		if (s->known) {
			handler(&T->before_exit, v, acc_fast(v), s->open, e, n, d);
		} else if (s->npre < PAR_PRE) {
			pc->pre[s->npre++] = (struct hpre){ e, n, { d[0], d[1], d[2] } };
		} else {
			tr_hvm_par_spoil(hp, "a vCPU run's records before its first exit are too many");
		}
		break;
	}
	default:
		break;
	}
}

void tr_hvm_par_walk(struct tr_hvm_par *hp, unsigned thread, uint32_t cpu, const uint8_t *p,
		     const uint8_t *e, uint64_t last, uint64_t off)
{
	struct hthr *T = &hp->t[thread];
	struct hcpu *pc = &hp->cpu[cpu];
	const uint8_t *base = p;
	uint64_t fed = 0;

	if (p < e && !pc->init) {
		pc->init = true;
		pc->cur = CUR_DEFAULT;
		pc->dflt = -1;
		pc->acc_g = -1;
		T->cpus[T->ncpus++] = cpu;
	}
	while (p < e) {
		uint32_t hdr, ev;

		memcpy(&hdr, p, 4);
		ev = hdr & 0x0fffffff;
		if (hdr >> 31)
			memcpy(&last, p + 4, 8);	/* (little-endian: the two TSC words) */
		if ((ev >> 16) == 0x0008 || (ev >> 12) == 0x21) {
			fed++;
			par_rec(hp, T, pc, thread, cpu, hdr, p, last, off + (uint64_t)(p - base));
		}
		p += xt_rec_sizes[hdr >> 28];
	}
	T->fed += fed;
}

/* DST += SRC; -1 when a table refuses a key. */
static int vcpu_add(struct tr_hvm_vcpu *dst, const struct tr_hvm_vcpu *src)
{
	dst->vmexit += src->vmexit;
	dst->vmentry += src->vmentry;
	dst->exits += src->exits;
	dst->icr_writes += src->icr_writes;
	dst->ipi_sent += src->ipi_sent;
	dst->ipi_self += src->ipi_self;
	dst->ipi_logical += src->ipi_logical;
	dst->ipi_shorthand += src->ipi_shorthand;
	dst->icr_other += src->icr_other;
	return cmap_merge(&dst->reason, &src->reason) || cmap_merge(&dst->handler, &src->handler) ||
	       cmap_merge(&dst->virq, &src->virq) || cmap_merge(&dst->msr_read, &src->msr_read) ||
	       cmap_merge(&dst->msr_write, &src->msr_write) || cmap_merge(&dst->ipi_vec, &src->ipi_vec) ||
	       cmap_merge(&dst->ipi_dest, &src->ipi_dest) || cmap_merge(&dst->hypercall, &src->hypercall)
		       ? -1 : 0;
}

static bool vcpu_full(const struct tr_hvm_vcpu *v)
{
	return v->reason.overflow || v->handler.overflow || v->virq.overflow ||
	       v->msr_read.overflow || v->msr_write.overflow || v->ipi_vec.overflow ||
	       v->ipi_dest.overflow || v->hypercall.overflow;
}


/* The merged order: (TSC, pCPU, offset) of the first record. */
static inline bool pseg_before(const struct pseg *a, const struct pseg *b)
{
	const struct hseg *x = a->s, *y = b->s;

	return x->t0 < y->t0 || (x->t0 == y->t0 && (x->cpu < y->cpu || (x->cpu == y->cpu && x->o0 < y->o0)));
}

/*
 * A[0, N) into the merged order (pseg_before()'s, stable), TMP holding N and
 * RUN N + 1: a merge of the runs already in order, pairwise.  One vCPU's
 * segments are a run per stretch of one pCPU's chunks (each pCPU's come
 * in its order), so there are few runs; qsort() here took 8% of a 5 MB
 * recording's instructions.
 */
static void pseg_sort(struct pseg *a, struct pseg *tmp, uint32_t *run, uint32_t n)
{
	uint32_t nr = 0;

	run[nr++] = 0;
	for (uint32_t i = 1; i < n; i++)
		if (pseg_before(&a[i], &a[i - 1]))
			run[nr++] = i;
	run[nr] = n;
	while (nr > 1) {
		uint32_t k = 0;

		for (uint32_t r = 0; r < nr; r += 2) {
			uint32_t i = run[r], m = run[r + 1 < nr ? r + 1 : nr], e = run[r + 2 < nr ? r + 2 : nr];
			uint32_t j = m, o = i;

			if (r + 1 >= nr) {
				memcpy(tmp + i, a + i, (e - i) * sizeof(*a));
			} else {
				while (i < m && j < e)
					tmp[o++] = pseg_before(&a[j], &a[i]) ? a[j++] : a[i++];
				memcpy(tmp + o, a + i, (m - i) * sizeof(*a));
				o += m - i;
				memcpy(tmp + o, a + j, (e - j) * sizeof(*a));
			}
			run[k++] = run[r];
		}
		run[k] = n;
		nr = k;
		memcpy(a, tmp, n * sizeof(*a));
	}
}

/*
 * The closed segments that start before TSC W, in the merged order, into
 * each vCPU's stitched state and counts (hp->st): the prefix's records
 * counted with the state the vCPU's last segment left, then the state this
 * one leaves.  A segment that starts before the vCPU's last one ended (a
 * pCPU's records come late, or two runs interleave) spoils the run: the
 * order of the two is no longer what replaying gives.  Applied segments
 * are dropped, so memory holds only those not yet past W.  0, or -1
 * spoiled or out of memory.
 */
static int par_apply(struct tr_hvm_par *hp, uint64_t w)
{
	uint32_t n = 0, ng = hp->ngid, nc = 0, *at, *run;
	struct pseg *ps, *tmp;

	for (unsigned t = 0; t < hp->nthr; t++) {
		n += hp->t[t].nseg;
		for (uint32_t i = 0; i < hp->t[t].ncpus; i++)
			if (hp->t[t].cpus[i] >= nc)
				nc = hp->t[t].cpus[i] + 1;	/* the count sort's pCPUs */
	}
	if (!n)
		return hp->spoiled ? -1 : 0;
	if (!hp->at && !(hp->at = malloc((XT_MAX_CPUS > TR_HVM_MAX_VCPUS ? XT_MAX_CPUS : TR_HVM_MAX_VCPUS) *
					sizeof(*hp->at) + sizeof(*hp->at)))) {
		tr_hvm_par_spoil(hp, "out of memory");
		return -1;
	}
	if (n > hp->cap_ps) {
		uint32_t cap = n > 2 * hp->cap_ps ? n : 2 * hp->cap_ps;

		free(hp->ps);
		free(hp->tmp);
		free(hp->run);
		hp->ps = malloc(cap * sizeof(*hp->ps));
		hp->tmp = malloc(cap * sizeof(*hp->tmp));
		hp->run = malloc((cap + 1) * sizeof(*hp->run));
		hp->cap_ps = hp->ps && hp->tmp && hp->run ? cap : 0;
		if (!hp->cap_ps) {
			tr_hvm_par_spoil(hp, "out of memory");
			return -1;
		}
	}
	ps = hp->ps;
	tmp = hp->tmp;
	run = hp->run;
	at = hp->at;
	memset(at, 0, (nc + 1) * sizeof(*at));
	/* Only each vCPU's own order matters: by pCPU, then by vCPU (two
	 * count sorts), so that each vCPU's segments are a run per pCPU, in
	 * that pCPU's order; then each vCPU's runs merged. */
	for (unsigned t = 0; t < hp->nthr; t++)
		for (uint32_t i = 0; i < hp->t[t].nseg; i++)
			at[hp->t[t].segs[i].cpu + 1]++;
	for (uint32_t c = 0; c < nc; c++)
		at[c + 1] += at[c];
	for (unsigned t = 0; t < hp->nthr; t++)
		for (uint32_t i = 0; i < hp->t[t].nseg; i++)
			tmp[at[hp->t[t].segs[i].cpu]++] =
				(struct pseg){ &hp->t[t].segs[i], hp->t[t].segs[i].npre ?
					       hp->t[t].pre + hp->t[t].segs[i].pre_at : NULL };
	memset(at, 0, (ng + 1) * sizeof(*at));
	for (uint32_t i = 0; i < n; i++)
		at[tmp[i].s->gid + 1]++;
	for (uint32_t g = 0; g < ng; g++)
		at[g + 1] += at[g];
	for (uint32_t i = 0; i < n; i++)
		ps[at[tmp[i].s->gid]++] = tmp[i];
	for (uint32_t b = 0, e; b < n; b = e) {
		bool sorted = true;

		for (e = b + 1; e < n && ps[e].s->gid == ps[b].s->gid; e++)
			sorted = sorted && pseg_before(&ps[e - 1], &ps[e]);
		if (!sorted)
			pseg_sort(ps + b, tmp, run, e - b);
	}

	for (uint32_t k = 0; k < n && !hp->spoiled; k++) {
		struct hseg *s = ps[k].s;
		struct hstate *st = &hp->st[s->gid];
		struct tr_hvm_vcpu *v = NULL;

		if (s->t0 >= w)
			continue;	/* (and the vCPU's later ones: applied next time) */

		if (st->any && !key_before(st->last.tsc, st->last.cpu, st->last.off,
					   &(struct hkey){ s->t0, s->o0, s->cpu, true })) {
			tr_hvm_par_spoil(hp, "a vCPU's records on two pCPUs interleave in TSC");
			break;
		}
		/* (counted into the main thread's tables: the workers are idle) */
		if ((s->npre || s->has_close) && !(v = par_acc(hp, &hp->t[0], (int32_t)s->gid)))
			break;
		for (uint32_t j = 0; j < s->npre; j++)
			handler(&hp->before_exit, v, NULL, st->open, ps[k].pre[j].ev,
				ps[k].pre[j].n, ps[k].pre[j].d);
		if (s->has_close) {
			count_close(v, NULL, st->open, st->reason, st->etsc, s->close_tsc);
			st->open = false;
			st->etsc = 0;
		}
		if (s->known) {
			st->open = s->open;
			st->reason = s->reason;
			st->etsc = s->etsc;
		}
		st->any = true;
		st->last = (struct hkey){ s->t1, s->o1, s->cpu, true };
		s->gid = UINT32_MAX;	/* applied */
	}
	/* Keep the rest, each thread's in its order, prefixes packed. */
	for (unsigned t = 0; t < hp->nthr; t++) {
		struct hthr *T = &hp->t[t];
		uint32_t ns = 0, np = 0;

		for (uint32_t i = 0; i < T->nseg; i++) {
			struct hseg x = T->segs[i];

			if (x.gid == UINT32_MAX)
				continue;
			if (x.npre)
				memmove(T->pre + np, T->pre + x.pre_at, x.npre * sizeof(*T->pre));
			x.pre_at = np;
			np += x.npre;
			T->segs[ns++] = x;
		}
		T->nseg = ns;
		T->npre = np;
	}
	return hp->spoiled ? -1 : 0;
}

uint64_t tr_hvm_par_fed(const struct tr_hvm_par *hp)
{
	uint64_t n = 0;

	for (unsigned t = 0; t < hp->nthr; t++)
		n += hp->t[t].fed;
	return n;
}

bool tr_hvm_par_due(const struct tr_hvm_par *hp)
{
	uint32_t n = 0;

	for (unsigned t = 0; t < hp->nthr; t++)
		n += hp->t[t].nseg;
	/* (not before PAR_SYNC_MIN: by then every pCPU has come, most often;
	 * one that comes after a sync with earlier records spoils the run) */
	return n >= hp->next_sync && n >= PAR_SYNC_MIN;
}

void tr_hvm_par_sync(struct tr_hvm_par *hp, uint64_t w_all, uint64_t w_batch)
{
	uint32_t n = 0;
	uint64_t w;

	/* Each sync walks every segment waiting: only when they have doubled
	 * since the last (so each one is walked a few times at most). */
	for (unsigned t = 0; t < hp->nthr; t++)
		n += hp->t[t].nseg;
	if (n < hp->next_sync)
		return;
	/* Up to every pCPU's last TSC: a pCPU quiet for a while may still
	 * have earlier records to come.  Only when that holds back too many
	 * segments, up to the batch's pCPUs' (a quiet pCPU's late record of
	 * a vCPU stitched past it then spoils the run, exactly). */
	w = n < PAR_MAX_SEGS / 4 ? w_all : w_batch;
	/* Not past a segment still open: its records come first. */
	for (unsigned t = 0; t < hp->nthr; t++)
		for (uint32_t i = 0; i < hp->t[t].ncpus; i++) {
			const struct hcpu *pc = &hp->cpu[hp->t[t].cpus[i]];

			if (pc->has_seg && pc->seg.t0 < w)
				w = pc->seg.t0;
		}
	if (!hp->spoiled)
		par_apply(hp, w);
	n = 0;
	for (unsigned t = 0; t < hp->nthr; t++)
		n += hp->t[t].nseg;
	hp->next_sync = n < PAR_SYNC_MIN / 2 ? PAR_SYNC_MIN : 2 * n;
}

struct gfirst {
	struct hkey k;
	uint32_t gid;
};

static int gfirst_cmp(const void *a, const void *b)
{
	const struct hkey *x = &((const struct gfirst *)a)->k, *y = &((const struct gfirst *)b)->k;

	return key_before(x->tsc, x->cpu, x->off, y) ? -1 : key_before(y->tsc, y->cpu, y->off, x) ? 1 : 0;
}

int tr_hvm_par_finish(struct tr_hvm_par *hp, struct tr_hvm *h, const char **why)
{
	uint32_t ng = hp->ngid, *idx = NULL;
	struct gfirst *first = NULL;
	int rc = -1;

	memset(h, 0, sizeof(*h));
	*why = NULL;
	/* The segments still open end here; all are applied. */
	for (unsigned t = 0; t < hp->nthr; t++)
		for (uint32_t i = 0; i < hp->t[t].ncpus; i++)
			if (hp->cpu[hp->t[t].cpus[i]].has_seg)
				seg_close(hp, &hp->t[0], &hp->cpu[hp->t[t].cpus[i]]);
	if (!hp->spoiled)
		par_apply(hp, UINT64_MAX);
	if (hp->spoiled) {
		*why = hp->spoiled;
		return 1;
	}
	for (unsigned t = 0; t < hp->nthr; t++)
		for (uint32_t g = 0; g < hp->t[t].capg; g++)
			if (hp->t[t].acc[g])
				fast_fold(hp->t[t].acc[g]);
	first = calloc(ng + 1, sizeof(*first));
	idx = calloc(ng + 1, sizeof(*idx));
	if (!first || !idx)
		goto out;
	/* The vCPUs in the order of their first lookup (tr_hvm_run()'s). */
	for (uint32_t g = 0; g < ng; g++) {
		for (unsigned t = 0; t < hp->nthr; t++) {
			const struct hkey *k = g < hp->t[t].capg ? &hp->t[t].first[g] : &(struct hkey){ 0 };

			if (k->set && (!first[g].k.set || key_before(k->tsc, k->cpu, k->off, &first[g].k)))
				first[g].k = *k;
		}
		first[g].gid = g;
	}
	qsort(first, ng, sizeof(*first), gfirst_cmp);
	h->v = calloc(ng ? ng : 1, sizeof(*h->v));
	if (!h->v)
		goto out;
	h->capv = ng ? ng : 1;
	for (uint32_t i = 0; i < ng; i++) {
		uint32_t key = hp->gkey[first[i].gid];

		struct tr_hvm_vcpu **own = first[i].gid < hp->t[0].capg ? &hp->t[0].acc[first[i].gid] : NULL;

		idx[first[i].gid] = i;
		/* The main thread's counts become the vCPU's (no copy), the
		 * others' are added below. */
		if (own && *own) {
			h->v[i] = **own;
			free(*own);
			*own = NULL;
		} else if (vcpu_init(&h->v[i], key >> 16, key & 0xffff)) {
			vcpu_fini(&h->v[i]);
			goto out;
		}
		h->nv = i + 1;
	}
	h->before_exit = hp->before_exit;
	for (unsigned t = 0; t < hp->nthr; t++) {
		const struct hthr *T = &hp->t[t];

		h->hvm_records += T->hvm_records;
		h->no_vcpu += T->no_vcpu;
		h->before_exit += T->before_exit;
		h->short_records += T->short_records;
		h->sched_records += T->sched_records;
		h->svm |= T->svm;
		for (uint32_t g = 0; g < ng && g < T->capg; g++) {
			const struct tr_hvm_vcpu *a = T->acc[g];

			if (a && (vcpu_full(a) || vcpu_add(&h->v[idx[g]], a))) {
				*why = "a count table is full";
				goto fallback;
			}
		}
	}
	for (uint32_t i = 0; i < h->nv; i++)
		if (vcpu_full(&h->v[i])) {
			*why = "a count table is full";
			goto fallback;
		}
	rc = 0;
	goto out;
fallback:
	rc = 1;
out:
	if (rc)
		tr_hvm_fini(h);
	free(first);
	free(idx);
	return rc;
}
