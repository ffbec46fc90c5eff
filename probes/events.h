/* probes/events.h: event IDs and their names. */
#ifndef IPIBENCH_EVENTS_H
#define IPIBENCH_EVENTS_H

#include <stddef.h>
#include <stdint.h>

/*
 * ipibench's own APIC events (hv-patch/).  The hypervisor patch publishes
 * the same IDs in probes/include/ipibench/abi.h; until that header lands
 * they are defined here, and test_events.c checks both agree once it does.
 */
#define IPB_TRC_HW_APIC 0x00804000u
#define IPB_TRC_APIC_SEND_IPI_MASK (IPB_TRC_HW_APIC + 0x001)	/* vec|0x800 logical, dests, icr writes, cycles */
#define IPB_TRC_APIC_SEND_IPI_ALLBUT (IPB_TRC_HW_APIC + 0x002)	/* vec, dests, cycles */
#define IPB_TRC_APIC_SEND_IPI_SELF (IPB_TRC_HW_APIC + 0x003)	/* vec */
#define IPB_TRC_APIC_MASK_TO_APICID (IPB_TRC_HW_APIC + 0x004)	/* weight, dest, logical */
#define IPB_TRC_APIC_VECTOR_ALLOC_MASK (IPB_TRC_HW_APIC + 0x005) /* cpu, weight */
#define IPB_TRC_APIC_IPI_RECV (IPB_TRC_HW_APIC + 0x006)		/* vec */
#define IPB_TRC_APIC_ICR_WRITE (IPB_TRC_HW_APIC + 0x007)	/* dest field, icr low */
/* Written by the collector (probes/collect.c), never by Xen: d0 = TSC kHz. */
#define IPB_TRC_APIC_TSC_KHZ (IPB_TRC_HW_APIC + 0x0ff)
#define IPB_IPI_LOGICAL 0x800u

#define IPB_TRC_HW_IRQ_HANDLED 0x00802008u

/* The name of an event ID (xentrace's `formats` names for Xen's events,
 * TRC_64_FLAG variants folded, runstate changes decoded), or NULL. */
const char *xt_event_name(uint32_t event);
/* Name, or "0x%08x" in buf for an unknown event. */
const char *xt_event_label(uint32_t event, char *buf, size_t len);

#endif
