/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/events.c: names of trace events.
 *
 * Xen's events carry the names of tools/xentrace/formats (Xen 4.17), the
 * names xentrace_format prints and that profiles like the seed's are
 * written with (VMENTRY, INJ_VIRQ, vlapic_accept_pic_intr, wrap_buffer...);
 * a few HVM events formats lacks are added from public/trace.h, and
 * ipibench's own APIC events are "apic:*".
 */
#include "probes/events.h"

#include <stdio.h>
#include <stdlib.h>

struct evname {
	uint32_t id;
	const char *name;
};

/* Sorted by id (generated from formats; keep sorted). */
static const struct evname table[] = {
	{ 0x0001f001, "lost_records" },
	{ 0x0001f002, "wrap_buffer" },
	{ 0x0001f003, "cpu_change" },
	{ 0x0001f004, "trace_irq" },
	{ 0x00021002, "continue_running" },
	{ 0x00021011, "running_to_runnable" },
	{ 0x00021021, "running_to_blocked" },
	{ 0x00021031, "running_to_offline" },
	{ 0x00021101, "runnable_to_running" },
	{ 0x00021121, "runnable_to_blocked" },
	{ 0x00021131, "runnable_to_offline" },
	{ 0x00021201, "blocked_to_running" },
	{ 0x00021211, "blocked_to_runnable" },
	{ 0x00021231, "blocked_to_offline" },
	{ 0x00021301, "offline_to_running" },
	{ 0x00021311, "offline_to_runnable" },
	{ 0x00021321, "offline_to_blocked" },
	{ 0x00022001, "csched:sched_tasklet" },
	{ 0x00022002, "csched:account_start" },
	{ 0x00022003, "csched:account_stop" },
	{ 0x00022004, "csched:stolen_vcpu" },
	{ 0x00022005, "csched:picked_cpu" },
	{ 0x00022006, "csched:tickle" },
	{ 0x00022007, "csched:boost" },
	{ 0x00022008, "csched:unboost" },
	{ 0x00022009, "csched:schedule" },
	{ 0x0002200a, "csched:ratelimit" },
	{ 0x0002200b, "csched:steal_check" },
	{ 0x00022201, "csched2:tick" },
	{ 0x00022202, "csched2:runq_pos" },
	{ 0x00022203, "csched2:credit" },
	{ 0x00022204, "csched2:credit_add" },
	{ 0x00022205, "csched2:tickle_check" },
	{ 0x00022206, "csched2:tickle" },
	{ 0x00022207, "csched2:credit_reset" },
	{ 0x00022208, "csched2:sched_tasklet" },
	{ 0x00022209, "csched2:update_load" },
	{ 0x0002220a, "csched2:runq_assign" },
	{ 0x0002220b, "csched2:updt_vcpu_load" },
	{ 0x0002220c, "csched2:updt_runq_load" },
	{ 0x0002220d, "csched2:tickle_new" },
	{ 0x0002220e, "csched2:runq_max_weight" },
	{ 0x0002220f, "csched2:migrrate" },
	{ 0x00022210, "csched2:load_check" },
	{ 0x00022211, "csched2:load_balance" },
	{ 0x00022212, "csched2:pick_cpu" },
	{ 0x00022213, "csched2:runq_candidate" },
	{ 0x00022214, "csched2:schedule" },
	{ 0x00022215, "csched2:ratelimit" },
	{ 0x00022216, "csched2:runq_cand_chk" },
	{ 0x00022801, "rtds:tickle" },
	{ 0x00022802, "rtds:runq_pick" },
	{ 0x00022803, "rtds:burn_budget" },
	{ 0x00022804, "rtds:repl_budget" },
	{ 0x00022805, "rtds:sched_tasklet" },
	{ 0x00022806, "rtds:schedule" },
	{ 0x00022a01, "null:pick_cpu" },
	{ 0x00022a02, "null:assign" },
	{ 0x00022a03, "null:deassign" },
	{ 0x00022a04, "null:migrate" },
	{ 0x00022a05, "null:schedule" },
	{ 0x00022a06, "null:sched_tasklet" },
	{ 0x00028001, "sched_add_domain" },
	{ 0x00028002, "sched_rem_domain" },
	{ 0x00028003, "domain_sleep" },
	{ 0x00028004, "domain_wake" },
	{ 0x00028005, "do_yield" },
	{ 0x00028006, "do_block" },
	{ 0x00028007, "domain_shutdown" },
	{ 0x00028008, "sched_ctl" },
	{ 0x00028009, "sched_adjdom" },
	{ 0x0002800a, "__enter_scheduler" },
	{ 0x0002800b, "s_timer_fn" },
	{ 0x0002800c, "t_timer_fn" },
	{ 0x0002800d, "dom_timer_fn" },
	{ 0x0002800e, "switch_infprev" },
	{ 0x0002800f, "switch_infnext" },
	{ 0x00028010, "domain_shutdown_code" },
	{ 0x00028011, "switch_infcont" },
	{ 0x00041001, "domain_create" },
	{ 0x00041002, "domain_destroy" },
	{ 0x00081001, "VMENTRY" },
	{ 0x00081002, "VMEXIT" },
	{ 0x00081102, "VMEXIT" },
	{ 0x00081401, "nVMENTRY" },
	{ 0x00081402, "nVMEXIT" },
	{ 0x00081502, "nVMEXIT" },
	{ 0x00082001, "PF_XEN" },
	{ 0x00082002, "PF_INJECT" },
	{ 0x00082003, "INJ_EXC" },
	{ 0x00082004, "INJ_VIRQ" },
	{ 0x00082005, "REINJ_VIRQ" },
	{ 0x00082006, "IO_READ" },
	{ 0x00082007, "IO_WRITE" },
	{ 0x00082008, "CR_READ" },
	{ 0x00082009, "CR_WRITE" },
	{ 0x0008200a, "DR_READ" },
	{ 0x0008200b, "DR_WRITE" },
	{ 0x0008200c, "MSR_READ" },
	{ 0x0008200d, "MSR_WRITE" },
	{ 0x0008200e, "CPUID" },
	{ 0x0008200f, "INTR" },
	{ 0x00082010, "NMI" },
	{ 0x00082011, "SMI" },
	{ 0x00082012, "VMMCALL" },
	{ 0x00082013, "HLT" },
	{ 0x00082014, "INVLPG" },
	{ 0x00082015, "MCE" },
	{ 0x00082016, "IOPORT_READ" },
	{ 0x00082017, "MMIO_READ" },
	{ 0x00082018, "CLTS" },
	{ 0x00082019, "LMSW" },
	{ 0x0008201a, "RDTSC" },
	{ 0x00082020, "INTR_WINDOW" },
	{ 0x00082021, "NPF" },
	{ 0x00082022, "REALMODE_EMULATE" },
	{ 0x00082023, "TRAP" },
	{ 0x00082024, "TRAP_DEBUG" },
	{ 0x00082025, "VLAPIC" },
	{ 0x00082101, "PF_XEN" },
	{ 0x00082102, "PF_INJECT" },
	{ 0x00082108, "CR_READ" },
	{ 0x00082109, "CR_WRITE" },
	{ 0x00082114, "INVLPG" },
	{ 0x00082119, "LMSW" },
	{ 0x00082126, "XCR_READ" },
	{ 0x00082127, "XCR_WRITE" },
	{ 0x00082216, "IOPORT_WRITE" },
	{ 0x00082217, "MMIO_WRITE" },
	{ 0x00082421, "nNPF" },
	{ 0x00084001, "hpet" },
	{ 0x00084002, "pit" },
	{ 0x00084003, "rtc" },
	{ 0x00084004, "vlapic" },
	{ 0x00084005, "hpet" },
	{ 0x00084006, "pit" },
	{ 0x00084007, "rtc" },
	{ 0x00084008, "vlapic" },
	{ 0x00084009, "pit" },
	{ 0x0008400a, "vlapic" },
	{ 0x0008400b, "vpic_update_int_output" },
	{ 0x0008400c, "vpic" },
	{ 0x0008400d, "__vpic_intack" },
	{ 0x0008400e, "vpic_irq_positive_edge" },
	{ 0x0008400f, "vpic_irq_negative_edge" },
	{ 0x00084010, "vpic_ack_pending_irq" },
	{ 0x00084011, "vlapic_accept_pic_intr" },
	{ 0x0010f001, "page_grant_map" },
	{ 0x0010f002, "page_grant_unmap" },
	{ 0x0010f003, "page_grant_transfer" },
	{ 0x00201001, "hypercall" },
	{ 0x00201003, "trap" },
	{ 0x00201004, "page_fault" },
	{ 0x00201005, "forced_invalid_op" },
	{ 0x00201006, "emulate_privop" },
	{ 0x00201007, "emulate_4G" },
	{ 0x00201008, "math_state_restore" },
	{ 0x00201009, "paging_fixup" },
	{ 0x0020100a, "gdt_ldt_mapping_fault" },
	{ 0x0020100b, "ptwr_emulation" },
	{ 0x0020100c, "ptwr_emulation_pae" },
	{ 0x0020100d, "hypercall" },
	{ 0x00201101, "hypercall" },
	{ 0x00201103, "trap" },
	{ 0x00201104, "page_fault" },
	{ 0x00201105, "forced_invalid_op" },
	{ 0x00201106, "emulate_privop" },
	{ 0x00201107, "emulate_4G" },
	{ 0x00201108, "math_state_restore" },
	{ 0x00201109, "paging_fixup" },
	{ 0x0020110a, "gdt_ldt_mapping_fault" },
	{ 0x0020110b, "ptwr_emulation" },
	{ 0x0020110c, "ptwr_emulation_pae" },
	{ 0x0020200e, "hypercall" },
	{ 0x0040f001, "shadow_not_shadow" },
	{ 0x0040f002, "shadow_fast_propagate" },
	{ 0x0040f003, "shadow_fast_mmio" },
	{ 0x0040f004, "shadow_false_fast_path" },
	{ 0x0040f005, "shadow_mmio" },
	{ 0x0040f006, "shadow_fixup" },
	{ 0x0040f007, "shadow_domf_dying" },
	{ 0x0040f008, "shadow_emulate" },
	{ 0x0040f009, "shadow_emulate_unshadow_user" },
	{ 0x0040f00a, "shadow_emulate_unshadow_evtinj" },
	{ 0x0040f00b, "shadow_emulate_unshadow_unhandled" },
	{ 0x0040f00c, "shadow_emulate_wrmap_bf" },
	{ 0x0040f00d, "shadow_emulate_prealloc_unpin" },
	{ 0x0040f00e, "shadow_emulate_resync_full" },
	{ 0x0040f00f, "shadow_emulate_resync_only" },
	{ 0x0040f101, "shadow_not_shadow" },
	{ 0x0040f102, "shadow_fast_propagate" },
	{ 0x0040f103, "shadow_fast_mmio" },
	{ 0x0040f104, "shadow_false_fast_path" },
	{ 0x0040f105, "shadow_mmio" },
	{ 0x0040f106, "shadow_fixup" },
	{ 0x0040f107, "shadow_domf_dying" },
	{ 0x0040f108, "shadow_emulate" },
	{ 0x0040f109, "shadow_emulate_unshadow_user" },
	{ 0x0040f10a, "shadow_emulate_unshadow_evtinj" },
	{ 0x0040f10b, "shadow_emulate_unshadow_unhandled" },
	{ 0x0040f10c, "shadow_emulate_wrmap_bf" },
	{ 0x0040f10d, "shadow_emulate_prealloc_unpin" },
	{ 0x0040f10e, "shadow_emulate_resync_full" },
	{ 0x0040f10f, "shadow_emulate_resync_only" },
	{ 0x00801001, "cpu_freq_change" },
	{ 0x00801002, "cpu_idle_entry" },
	{ 0x00801003, "cpu_idle_exit" },
	{ 0x00802001, "cleanup_move_delayed" },
	{ 0x00802002, "cleanup_move" },
	{ 0x00802003, "bind_vector" },
	{ 0x00802004, "clear_vector" },
	{ 0x00802005, "move_vector" },
	{ 0x00802006, "assign_vector" },
	{ 0x00802007, "bogus_vector" },
	{ 0x00802008, "do_irq" },
	{ 0x00804001, "apic:send_ipi_mask" },
	{ 0x00804002, "apic:send_ipi_allbut" },
	{ 0x00804003, "apic:send_ipi_self" },
	{ 0x00804004, "apic:mask_to_apicid" },
	{ 0x00804006, "apic:ipi_recv" },
	{ 0x00804007, "apic:icr_write" },
	{ 0x008040ff, "apic:tsc_khz" },
};

static int cmp(const void *k, const void *e)
{
	uint32_t a = *(const uint32_t *)k, b = ((const struct evname *)e)->id;

	return a < b ? -1 : a > b;
}

static const char *lookup(uint32_t id)
{
	const struct evname *e = bsearch(&id, table, sizeof(table) / sizeof(table[0]),
					 sizeof(table[0]), cmp);

	return e ? e->name : NULL;
}

const char *xt_event_name(uint32_t event)
{
	static const char *const rs[4][4] = {
		{ "running_to_running", "running_to_runnable", "running_to_blocked", "running_to_offline" },
		{ "runnable_to_running", "runnable_to_runnable", "runnable_to_blocked", "runnable_to_offline" },
		{ "blocked_to_running", "blocked_to_runnable", "blocked_to_blocked", "blocked_to_offline" },
		{ "offline_to_running", "offline_to_runnable", "offline_to_blocked", "offline_to_offline" },
	};
	const char *n = lookup(event);
	uint32_t cls = event >> 16;

	if (n)
		return n;
	/* TRC_SCHED_RUNSTATE_CHANGE: old state in bits 8-9, new in 4-5. */
	if ((event & 0x0ffffc0f) == 0x00021001 && !(event & 0xcc0))
		return rs[(event >> 8) & 3][(event >> 4) & 3];
	/* TRC_64_FLAG variants of HVM, PV and shadow events. */
	if ((event & 0x100) && (cls == 0x0008 || cls == 0x0020 || cls == 0x0040))
		return lookup(event & ~0x100u);
	return NULL;
}

const char *xt_event_label(uint32_t event, char *buf, size_t len)
{
	const char *n = xt_event_name(event);

	if (n)
		return n;
	snprintf(buf, len, "0x%08x", event);
	return buf;
}
