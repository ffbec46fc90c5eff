/*
 * probes/hvm.c: the HVM profile (probes/hvm.h), counted as xenalyze
 * --summary does (Xen 4.17's tools/xentrace/xenalyze.c), so the two agree
 * record for record:
 *
 * - Records are taken in TSC order across pCPUs (a vCPU may exit on one
 *   pCPU and enter on another).
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

static void handler(struct tr_hvm *h, struct tr_hvm_vcpu *v, const struct xt_rec *r)
{
	uint32_t ev = r->event & ~TRC_64_FLAG;
	bool no_exit_needed = ev == EV_INJ_VIRQ || ev == EV_REINJ_VIRQ || ev == EV_INJ_EXC ||
			      ev == EV_PF_INJECT || ev == EV_INTR_WINDOW || ev == EV_OP_DESTROY_PROC;

	if (!no_exit_needed && !v->exit_open) {
		h->before_exit++;
		return;
	}
	cmap_inc(&v->handler, ev);
	if (ev == EV_INJ_VIRQ && r->nextra >= 1)
		cmap_inc(&v->virq, r->d[0] > GUEST_INTERRUPT_MAX ? GUEST_INTERRUPT_MAX : r->d[0]);
	else if ((ev == EV_MSR_READ || ev == EV_MSR_WRITE) && r->nextra >= 1) {
		cmap_inc(ev == EV_MSR_READ ? &v->msr_read : &v->msr_write, r->d[0]);
		if (ev == EV_MSR_WRITE && r->d[0] == MSR_X2APIC_ICR && r->nextra >= 3)
			icr_write(v, r->d[1], r->d[2]);
		else if (ev == EV_MSR_WRITE && r->d[0] == MSR_X2APIC_SELF_IPI && r->nextra >= 2) {
			cmap_inc(&v->ipi_vec, r->d[1] & 0xff);
			v->ipi_self++;
		}
	} else if (ev == EV_VMMCALL && r->nextra >= 1)
		cmap_inc(&v->hypercall, r->d[0]);
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

/* V's open exit ends at TSC: counted under its reason unless its TSC is
 * later (xenalyze's hvm_close_vmexit()). */
static void close_exit(struct tr_hvm_vcpu *v, uint64_t tsc)
{
	if (v->exit_open && v->exit_tsc && v->exit_tsc <= tsc) {
		cmap_inc(&v->reason, v->exit_reason);
		v->exits++;
	}
	v->exit_open = false;
	v->exit_tsc = 0;
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

		/* TRC_SCHED_RUNSTATE_CHANGE: old state in bits 8-9, new in 4-5. */
		if ((ev & 0x0ffffc0f) == 0x00021001 && !(ev & 0xcc0)) {
			uint32_t dom = r.d[0] >> 16, vcpu = r.d[0] & 0xffff;

			if (r.nextra < 1) {
				h->short_records++;
				continue;
			}
			h->sched_records++;
			/* -> runnable: the vCPU's open exit ends here (xenalyze
			 * closes it, "so as not to account CPU contention to
			 * some other overhead"): counted now, not at its VMENTRY. */
			if (((ev >> 4) & 3) == 1) {
				int64_t k = vcpu_find(h, dom, vcpu);

				if (k < 0)
					goto out;
				close_exit(&h->v[k], r.tsc);
			}
			if (((ev >> 4) & 3) == 0)	/* -> running */
				cur[r.cpu] = dom == TR_HVM_IDLE_DOM ? CUR_IDLE : vcpu_find(h, dom, vcpu);
			else if (((ev >> 8) & 3) == 0)	/* running -> */
				cur[r.cpu] = CUR_NONE;
			if (cur[r.cpu] == -1 && ((ev >> 4) & 3) == 0)
				goto out;	/* vcpu_find: full or no memory */
			continue;
		}
		/* TRC_SCHED_CONTINUE_RUNNING (same d0): the vCPU keeps running on
		 * this pCPU.  xenalyze takes it as running -> running
		 * (sched_runstate_process(), type CONTINUE), so a pCPU whose
		 * first scheduler record is one runs that vCPU from there on
		 * (vcpu_start()), not the default domain's. */
		if ((ev & 0x0fffffff) == 0x00021002) {
			uint32_t dom = r.d[0] >> 16, vcpu = r.d[0] & 0xffff;

			if (r.nextra < 1) {
				h->short_records++;
				continue;
			}
			cur[r.cpu] = dom == TR_HVM_IDLE_DOM ? CUR_IDLE : vcpu_find(h, dom, vcpu);
			if (cur[r.cpu] == -1)
				goto out;	/* vcpu_find: full or no memory */
			continue;
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
			handler(h, v, &r);
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
