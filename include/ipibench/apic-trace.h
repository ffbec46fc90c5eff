/* SPDX-License-Identifier: MIT */
/*
 * The TRC_HW_APIC trace events the hypervisor series adds to
 * xen/include/public/trace.h, with the same names and values, and their
 * payloads.  Needs nothing beyond <stdint.h> (the trace reader includes
 * it); probes/tests/test_abi_drift.c checks the values against every
 * series' trace.h.
 */
#ifndef IPIBENCH_APIC_TRACE_H
#define IPIBENCH_APIC_TRACE_H

#include <stdint.h>

#define TRC_HW_APIC         0x00804000   /* Local APIC IPIs and destinations */

#define TRC_HW_APIC_SEND_IPI_MASK     (TRC_HW_APIC + 0x1)
#define TRC_HW_APIC_SEND_IPI_ALLBUT   (TRC_HW_APIC + 0x2)
#define TRC_HW_APIC_SEND_IPI_SELF     (TRC_HW_APIC + 0x3)
#define TRC_HW_APIC_MASK_TO_APICID    (TRC_HW_APIC + 0x4)
/* (TRC_HW_APIC + 0x5) is not used. */
#define TRC_HW_APIC_IPI_RECV          (TRC_HW_APIC + 0x6)
#define TRC_HW_APIC_ICR_WRITE         (TRC_HW_APIC + 0x7)
#define TRC_HW_APIC_LOGICAL           0x800

/*
 * Payloads, in the order of the record's extra words.  Every record
 * carries a TSC.  (Reader-side names: these have no counterpart in the
 * hypervisor, which emits arrays of uint32_t.)
 */
struct ipibench_trc_send_ipi_mask {
	uint32_t vector;        /* vector | TRC_HW_APIC_LOGICAL if logical */
	uint32_t cpus;          /* destination CPUs */
	uint32_t icr_writes;    /* ICR writes performed */
	uint32_t cycles;        /* TSC cycles spent, saturated */
};
struct ipibench_trc_send_ipi_allbut {
	uint32_t vector;
	uint32_t cpus;          /* destination CPUs (online - 1) */
	uint32_t cycles;        /* TSC cycles spent, saturated */
};
struct ipibench_trc_send_ipi_self {
	uint32_t vector;
};
struct ipibench_trc_mask_to_apicid {
	uint32_t weight;        /* CPUs in the mask */
	uint32_t dest;          /* resulting destination */
	uint32_t logical;       /* 1 if logical destination mode */
};
struct ipibench_trc_ipi_recv {
	uint32_t vector;        /* recorded on the receiving CPU */
};
struct ipibench_trc_icr_write {
	uint32_t dest;          /* destination field (0 for a shorthand) */
	uint32_t low;           /* ICR low: vector and mode bits */
};

#endif
