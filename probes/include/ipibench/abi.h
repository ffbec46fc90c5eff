/* SPDX-License-Identifier: MIT */
/*
 * ipibench ABI for user space: the TRC_HW_APIC trace events and the
 * XEN_SYSCTL_ipibench benchmark interface added by hv-patch/.
 *
 * This header mirrors the patched public headers (xen/include/public/trace.h
 * and xen/include/public/sysctl.h) with the same names and layouts, but
 * needs nothing beyond <stdint.h>: guest handles are plain 64-bit fields
 * holding a user pointer.  It is one interface for every series (Xen 4.17,
 * 4.20, staging): probes/tests/test_abi_drift.c extracts the public header
 * text from the patch files listed in each hv-patch/X/series and fails when
 * a #define value or a struct layout differs from this header.
 */
#ifndef IPIBENCH_ABI_H
#define IPIBENCH_ABI_H

#include <stdint.h>

/* A 64-bit field that is 8-byte aligned on every ABI (uint64_aligned_t). */
typedef uint64_t ipibench_u64 __attribute__((aligned(8)));

/* ---- trace events (xen/include/public/trace.h) ---------------------- */

#define TRC_HW_APIC         0x00804000   /* Local APIC IPIs and destinations */

#define TRC_HW_APIC_SEND_IPI_MASK     (TRC_HW_APIC + 0x1)
#define TRC_HW_APIC_SEND_IPI_ALLBUT   (TRC_HW_APIC + 0x2)
#define TRC_HW_APIC_SEND_IPI_SELF     (TRC_HW_APIC + 0x3)
#define TRC_HW_APIC_MASK_TO_APICID    (TRC_HW_APIC + 0x4)
#define TRC_HW_APIC_VECTOR_ALLOC_MASK (TRC_HW_APIC + 0x5)
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
/* Not recorded on staging (no vector_allocation_cpumask hook since 4.22). */
struct ipibench_trc_vector_alloc_mask {
	uint32_t cpu;
	uint32_t weight;        /* CPUs in the returned mask */
};
struct ipibench_trc_ipi_recv {
	uint32_t vector;        /* recorded on the receiving CPU */
};
struct ipibench_trc_icr_write {
	uint32_t dest;          /* destination field (0 for a shorthand) */
	uint32_t low;           /* ICR low: vector and mode bits */
};

/* ---- benchmark sysctl (xen/include/public/sysctl.h) ----------------- */

#define XEN_SYSCTL_ipibench                      31

/*
 * Error codes (negated Xen errno values, equal to Linux's on x86):
 *  EPERM refused by XSM; EOPNOTSUPP the hypervisor is built without
 *  CONFIG_IPIBENCH; EINVAL a bad argument (unknown op, flag or sender,
 *  iterations 0 or above info.max_iterations, mask_bits above
 *  XEN_SYSCTL_IPIBENCH_MAX_CPUS, a CPU that is not online, an empty mask,
 *  pingpong with cpu == peer, a vector other than 0 or info.vector, F_LOOP
 *  with vector_capacity or irq_delivery, a sender other than genapic with
 *  another op than flush_all, flush_mask or ipi_mask, a continuation whose
 *  arguments differ from the run's); ENODEV sender physical or cluster
 *  without x2APIC; EBUSY another caller's run is live; ESRCH a
 *  continuation or fetch whose run_id is not the live run; ENOMEM out of
 *  memory, IRQs or vectors; ETIMEDOUT an IPI or interrupt was lost;
 *  ENXIO a CPU the run uses went offline (the run is ended).
 *
 * A run is owned by its run_id (returned by the start, passed by every
 * continuation and fetch); a run idle for info.idle_timeout_ms is
 * abandoned and released.  A fetch returns at most info.max_samples
 * samples.  The sysctl's interface_version (XEN_SYSCTL_INTERFACE_VERSION)
 * versions this interface; it has no version of its own.
 *
 * F_LOOP: each chunk times its 'done' calls as a whole (one sample, flags
 * SAMPLE_LOOP); without it every call is a sample (per-call sampling).
 */
#define XEN_SYSCTL_IPIBENCH_OP_query           0
#define XEN_SYSCTL_IPIBENCH_OP_fetch           1
#define XEN_SYSCTL_IPIBENCH_OP_flush_all       2
#define XEN_SYSCTL_IPIBENCH_OP_flush_mask      3
#define XEN_SYSCTL_IPIBENCH_OP_ipi_mask        4
#define XEN_SYSCTL_IPIBENCH_OP_pingpong        5
#define XEN_SYSCTL_IPIBENCH_OP_vector_capacity 6
#define XEN_SYSCTL_IPIBENCH_OP_irq_delivery    7

#define XEN_SYSCTL_IPIBENCH_F_NO_SHORTHAND   (1U << 0)
#define XEN_SYSCTL_IPIBENCH_F_CONTINUE       (1U << 1)
#define XEN_SYSCTL_IPIBENCH_F_LOOP           (1U << 2)

/* Bits in mask. */
#define XEN_SYSCTL_IPIBENCH_MAX_CPUS         4096

/* 'sender': the x2APIC send routine of the run's IPIs. */
#define XEN_SYSCTL_IPIBENCH_SENDER_genapic   0
#define XEN_SYSCTL_IPIBENCH_SENDER_physical  1
#define XEN_SYSCTL_IPIBENCH_SENDER_cluster   2

#define XEN_SYSCTL_IPIBENCH_PATH_GENAPIC     (1U << 0)
#define XEN_SYSCTL_IPIBENCH_PATH_SHORTHAND   (1U << 1)
/* irq_delivery: the test device's MSI (through an IRTE: REMAPPED). */
#define XEN_SYSCTL_IPIBENCH_PATH_MSI         (1U << 2)
#define XEN_SYSCTL_IPIBENCH_PATH_REMAPPED    (1U << 3)

#define XEN_SYSCTL_IPIBENCH_ST_IRQ_LIMIT     (1U << 0)

#define XEN_SYSCTL_IPIBENCH_SAMPLE_SHORTHAND (1U << 0)
#define XEN_SYSCTL_IPIBENCH_SAMPLE_LOOP      (1U << 1)

#define XEN_SYSCTL_IPIBENCH_CPU_ONLINE       (1U << 0)

struct xen_sysctl_ipibench_sample {
	ipibench_u64 cycles;    /* TSC cycles of the whole operation */
	ipibench_u64 ns;        /* the same in ns (TSC kHz) */
	uint32_t icr_writes;    /* ICR writes performed by 'cpu' */
	uint32_t cpu;           /* CPU that handled it (irq_delivery) or peer */
	uint32_t send_cycles;   /* TSC cycles spent sending (saturated) */
	uint32_t flags;         /* XEN_SYSCTL_IPIBENCH_SAMPLE_* */
};

struct xen_sysctl_ipibench_cpu {
	uint32_t apic_id;
	uint32_t logical_id;
	uint32_t cluster;
	uint32_t flags;         /* XEN_SYSCTL_IPIBENCH_CPU_* */
	ipibench_u64 irqs;      /* interrupts taken: while runs were live */
				/* (query), in the chunk (fetch) */
	ipibench_u64 ipis;      /* IPIs taken: likewise */
	uint32_t vectors;       /* query: free dynamic vectors on the CPU; */
				/* fetch: vector_capacity vectors on it */
	uint32_t dev_irqs;      /* test device interrupts: since boot (query), */
				/* in the chunk (fetch) */
};

struct xen_sysctl_ipibench_info {
	char genapic[32];
	uint32_t nr_cpu_ids;
	uint32_t online_cpus;
	uint32_t present_cpus;
	uint32_t disabled_cpus;
	uint32_t unaccounted_cpus;
	uint32_t shorthand_eligible;
	uint32_t tsc_khz;
	uint32_t vector;
	uint32_t x2apic;
	uint32_t int_dest_mode;     /* 0 physical, 1 logical (0 on 4.21+) */
	uint32_t int_delivery_mode; /* 0 fixed, 1 lowest (0 on 4.21+) */
	uint32_t max_iterations;
	uint32_t max_samples;       /* samples a fetch may return */
	uint32_t idle_timeout_ms;   /* a run idle this long is abandoned */
	uint32_t run_live;          /* 1 while some caller's run is live */
	uint32_t dev_sbdf;      /* the test device irq_delivery rings, ~0: none */
	uint32_t dev_irte;      /* its MSI's interrupt remapping entry, ~0: none */
	uint32_t dev_msi_addr;  /* MSI address (low 32 bits) in the device */
	uint32_t dev_msi_data;  /* MSI data in the device */
	uint32_t pad;
};

struct xen_sysctl_ipibench {
	uint32_t run_id;        /* OUT (start); IN (continue, fetch) */
	uint32_t op;
	uint32_t flags;
	uint32_t cpu;
	uint32_t peer;
	uint32_t vector;
	uint32_t iterations;
	uint32_t start;
	uint32_t mask_bits;
	uint32_t nr_cpus;
	uint32_t nr_samples;
	uint32_t done;
	ipibench_u64 mask;      /* XEN_GUEST_HANDLE_64(uint8) */
	ipibench_u64 samples;   /* XEN_GUEST_HANDLE_64(xen_sysctl_ipibench_sample_t) */
	ipibench_u64 cpus;      /* XEN_GUEST_HANDLE_64(xen_sysctl_ipibench_cpu_t) */
	ipibench_u64 info;      /* XEN_GUEST_HANDLE_64(xen_sysctl_ipibench_info_t) */
	ipibench_u64 icr_writes;
	ipibench_u64 ipis_sent;
	ipibench_u64 ipis_received;
	uint32_t path;
	uint32_t status;
	uint32_t result;
	uint32_t sender;        /* XEN_SYSCTL_IPIBENCH_SENDER_* */
};

/* struct xen_sysctl's union is 128 bytes: the request must fit. */
_Static_assert(sizeof(struct xen_sysctl_ipibench) <= 128,
	       "xen_sysctl_ipibench does not fit struct xen_sysctl");

#endif
