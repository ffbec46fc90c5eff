/* SPDX-License-Identifier: GPL-3.0-or-later */
/* probes/events.h: event IDs and their names. */
#ifndef IPIBENCH_EVENTS_H
#define IPIBENCH_EVENTS_H

#include <stddef.h>
#include <stdint.h>

/*
 * ipibench's own APIC events (hv-patch/), as published by
 * include/ipibench/apic-trace.h (TRC_HW_APIC_*).  The reader uses these
 * short names; the static assertions below fail the build if the two ever
 * disagree.
 */
#define IPB_TRC_HW_APIC 0x00804000u
#define IPB_TRC_APIC_SEND_IPI_MASK (IPB_TRC_HW_APIC + 0x001)	/* vec|0x800 logical, dests, icr writes, cycles */
#define IPB_TRC_APIC_SEND_IPI_ALLBUT (IPB_TRC_HW_APIC + 0x002)	/* vec, dests, cycles */
#define IPB_TRC_APIC_SEND_IPI_SELF (IPB_TRC_HW_APIC + 0x003)	/* vec */
#define IPB_TRC_APIC_MASK_TO_APICID (IPB_TRC_HW_APIC + 0x004)	/* weight, dest, logical */
#define IPB_TRC_APIC_IPI_RECV (IPB_TRC_HW_APIC + 0x006)		/* vec */
#define IPB_TRC_APIC_ICR_WRITE (IPB_TRC_HW_APIC + 0x007)	/* dest field, icr low */
/* Written by the collector (probes/collect.c), never by Xen: d0 = TSC kHz. */
#define IPB_TRC_APIC_TSC_KHZ (IPB_TRC_HW_APIC + 0x0ff)
#define IPB_IPI_LOGICAL 0x800u

#define IPB_TRC_HW_IRQ_HANDLED 0x00802008u		/* irq, tsc in, tsc out (low 32 bits) */
#define IPB_TRC_HW_IRQ_UNMAPPED_VECTOR 0x00802007u	/* vector */

#include "ipibench/apic-trace.h"
_Static_assert(IPB_TRC_HW_APIC == TRC_HW_APIC, "apic-trace.h: TRC_HW_APIC");
_Static_assert(IPB_TRC_APIC_SEND_IPI_MASK == TRC_HW_APIC_SEND_IPI_MASK, "apic-trace.h");
_Static_assert(IPB_TRC_APIC_SEND_IPI_ALLBUT == TRC_HW_APIC_SEND_IPI_ALLBUT, "apic-trace.h");
_Static_assert(IPB_TRC_APIC_SEND_IPI_SELF == TRC_HW_APIC_SEND_IPI_SELF, "apic-trace.h");
_Static_assert(IPB_TRC_APIC_MASK_TO_APICID == TRC_HW_APIC_MASK_TO_APICID, "apic-trace.h");
_Static_assert(IPB_TRC_APIC_IPI_RECV == TRC_HW_APIC_IPI_RECV, "apic-trace.h");
_Static_assert(IPB_TRC_APIC_ICR_WRITE == TRC_HW_APIC_ICR_WRITE, "apic-trace.h");
_Static_assert(IPB_IPI_LOGICAL == TRC_HW_APIC_LOGICAL, "apic-trace.h");

/* The name of an event ID (xentrace's `formats` names for Xen's events,
 * TRC_64_FLAG variants folded, runstate changes decoded), or NULL. */
const char *xt_event_name(uint32_t event);
/* Name, or "0x%08x" in buf for an unknown event. */
const char *xt_event_label(uint32_t event, char *buf, size_t len);

#endif
