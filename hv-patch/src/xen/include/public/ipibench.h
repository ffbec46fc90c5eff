/* @file from=sysctl-abi */
/* SPDX-License-Identifier: MIT */
/******************************************************************************
 * ipibench.h
 *
 * XEN_SYSCTL_ipibench: a benchmark of the x86 local APIC IPI and external
 * interrupt paths.  Included by sysctl.h, after xen.h, whose
 * uint64_aligned_t, XEN_GUEST_HANDLE_64 and struct xenctl_bitmap it uses.
 */

#ifndef __XEN_PUBLIC_IPIBENCH_H__
#define __XEN_PUBLIC_IPIBENCH_H__

/* For node control tools only, as sysctl.h (which says so with #error). */
#if defined(__XEN__) || defined(__XEN_TOOLS__)
#if defined(__i386__) || defined(__x86_64__)

/*
 * XEN_SYSCTL_ipibench (x86, CONFIG_IPIBENCH; -EOPNOTSUPP without it)
 *
 * Benchmark the local APIC IPI and external interrupt paths of the APIC
 * driver (genapic) in use, on the physical CPUs.  Access is checked by
 * XSM (FLASK: xen2 ipibench; the dummy policy: the control domain).
 *
 * The layout of this interface is XEN_SYSCTL_IPIBENCH_VERSION, which the
 * query reports in info.version; it changes when a structure or the
 * meaning of a field does.  Every field of struct xen_sysctl_ipibench that
 * the operation neither reads nor writes (the list below) must be zero,
 * and a flag the operation does not take must be clear, else -EINVAL:
 * such fields may get a meaning in a later version.
 *
 *   operation          inputs besides op (and flags: the F_* it takes)
 *   query              nr_cpus, cpus, info
 *   fetch              run_id, nr_samples, samples, nr_cpus, cpus
 *   flush_all          cpu, sender, iterations, start  (NO_SHORTHAND, LOOP)
 *   flush_mask         cpu, mask, sender, iterations, start
 *                      (NO_SHORTHAND, LOOP)
 *   ipi_mask           cpu, mask, vector, sender, iterations, start
 *                      (NO_SHORTHAND, LOOP)
 *   pingpong           cpu, peer, vector, iterations, start  (LOOP)
 *   vector_capacity    cpu, mask, iterations, start
 *   irq_delivery       cpu, mask, iterations, start
 *
 * Each of the six run operations also takes F_CONTINUE, and with it run_id.
 * run_id is written by a start (a run operation without F_CONTINUE); done,
 * icr_writes, ipis_sent, ipis_received, path, status and result are
 * written by a fetch and must be zero for every other operation; pad is
 * always zero.  The input of a handle is its value: a handle that is not
 * an input must be null, a mask that is not one must have nr_bits 0.
 *
 * XEN_SYSCTL_IPIBENCH_OP_query fills *info and, if nr_cpus is non-zero,
 * cpus[0 .. nr_cpus) with the APIC topology and the free vectors of each
 * CPU; nr_cpus is set to nr_cpu_ids.  It is answered during a run too.
 *
 * A run is a series of calls of one of the run operations.  The first
 * call (flags without XEN_SYSCTL_IPIBENCH_F_CONTINUE, start == 0)
 * validates the request, sets the run up and returns its run_id; every
 * call then performs, on physical CPU 'cpu', one chunk of the run, bounded
 * in time by the hypervisor, and keeps its results there.
 * XEN_SYSCTL_IPIBENCH_OP_fetch (with the run's run_id) copies the last
 * chunk out: 'done' samples (one with F_LOOP) into samples[], at most
 * min(nr_samples, info.max_samples) of them, the chunk's counters and, if
 * nr_cpus is non-zero, per-CPU deltas into cpus[0 .. nr_cpus).  The caller
 * repeats with F_CONTINUE, the start's arguments (the mask is read by the
 * start only: a continuation passes the same nr_bits), its run_id and
 * start += done until start == iterations, then fetches the last chunk,
 * which ends the run.  A chunk may complete no iteration (done == 0); an
 * IPI still in flight at the end of a chunk is waited for, and counted, by
 * the next one.
 *
 * A run belongs to its caller: a run that is not continued or fetched for
 * info.idle_timeout_ms is abandoned, and everything it holds is released;
 * another caller may then start a run at once.  Every run also ends 60 s
 * after its start at the latest, whatever its caller does (fetching does
 * not keep it): everything it holds is released, and the caller's next
 * call for it gets -ETIME.  A longer measurement is several runs.  A CPU
 * the run uses going offline aborts the run (-ENXIO) and releases it
 * before the CPU goes; vector_capacity is aborted so by any CPU going
 * offline.  While a CPU goes up or down a chunk does nothing (done == 0).
 *
 * Timing.  Without XEN_SYSCTL_IPIBENCH_F_LOOP every iteration is timed on
 * its own and gives a sample (per-call sampling, for latency
 * distributions).  With F_LOOP (flush_all, flush_mask, ipi_mask, pingpong)
 * each chunk times its consecutive calls as a whole, one TSC read before
 * and one after, and gives a single sample (flags SAMPLE_LOOP) for its
 * 'done' calls; the chunk boundaries stay outside the timed windows, and
 * the caller adds the chunks of a run up to the time of its 'iterations'
 * calls.
 *
 * vector_capacity is a single iteration made of several chunks (allocate
 * vectors for IRQs bound to 'mask' until only a reserve is left, count
 * them, free them): its chunks report done == 0 until the vectors have all
 * been released again.  The reserve: it never takes a CPU's last 32 free
 * vectors (on the CPU of each vector, all the CPUs it is allocated on),
 * nor the system's last 128 free IRQ descriptors (status ST_IRQ_LIMIT when
 * that limit came first); 'result' counts the vectors above the reserve.
 *
 * Errors:
 *  -EPERM       refused by XSM
 *  -EOPNOTSUPP  the hypervisor is built without CONFIG_IPIBENCH
 *  -EINVAL      a bad argument: unknown op, flag or sender, a field or
 *               flag the operation does not take that is not zero (above),
 *               iterations 0 or above info.max_iterations, vector_capacity
 *               with iterations other than 1, mask.nr_bits above
 *               XEN_SYSCTL_IPIBENCH_MAX_CPUS, a CPU (cpu, peer, in mask)
 *               that is not online, an empty mask, flush_mask or ipi_mask
 *               with no CPU but 'cpu' in the mask, pingpong with
 *               cpu == peer, a vector other than 0 or info.vector, a
 *               continuation whose arguments or start differ from the run's
 *  -ENODEV      sender physical or cluster on a host without x2APIC (or,
 *               for cluster, without the cluster bookkeeping);
 *               irq_delivery without a test device (info.dev_sbdf == ~0)
 *  -EBUSY       another caller's run is live (not idle for the timeout);
 *               irq_delivery: the test device's IRQ is still moving to the
 *               previous run's CPUs
 *  -ESRCH       a continuation or fetch whose run_id is not the live run
 *               (finished, abandoned, reclaimed, or someone else's)
 *  -ENOMEM      out of memory, IRQs or vectors for the run's setup
 *  -ENOSPC      ipi_mask or pingpong: no benchmark vector yet
 *               (info.vector == 0) and the high-priority vector pool is
 *               used up
 *  -EFAULT      a handle the operation reads or writes is not accessible
 *  -ETIMEDOUT   an IPI or interrupt was lost (not received after the run
 *               waited for it for a long time); the run is ended
 *  -ENXIO       a CPU the run uses went offline (vector_capacity: any CPU);
 *               the run is ended, cut short, and what it held was released
 *               before the CPU went
 *  -ETIME       the run reached its lifetime (60 s from its start); the run
 *               is ended and what it held released
 */
#define XEN_SYSCTL_IPIBENCH_VERSION            0x00000001

#define XEN_SYSCTL_IPIBENCH_OP_query           0
#define XEN_SYSCTL_IPIBENCH_OP_fetch           1
#define XEN_SYSCTL_IPIBENCH_OP_flush_all       2 /* flush_tlb_all()      */
#define XEN_SYSCTL_IPIBENCH_OP_flush_mask      3 /* flush_mask(TLB)      */
#define XEN_SYSCTL_IPIBENCH_OP_ipi_mask        4 /* IPI mask, wait acks  */
#define XEN_SYSCTL_IPIBENCH_OP_pingpong        5 /* cpu -> peer -> cpu   */
#define XEN_SYSCTL_IPIBENCH_OP_vector_capacity 6 /* fill vectors on mask */
#define XEN_SYSCTL_IPIBENCH_OP_irq_delivery    7 /* device IRQ to mask   */

/* Never use the APIC ALLBUT shorthand: always the genapic send_IPI_mask. */
#define XEN_SYSCTL_IPIBENCH_F_NO_SHORTHAND   (1U << 0)
/* This call continues the run run_id at 'start'. */
#define XEN_SYSCTL_IPIBENCH_F_CONTINUE       (1U << 1)
/* Time each chunk's calls as a whole: one sample per chunk. */
#define XEN_SYSCTL_IPIBENCH_F_LOOP           (1U << 2)

/* The most bits in mask (bit n of byte n / 8 is CPU n). */
#define XEN_SYSCTL_IPIBENCH_MAX_CPUS         4096

/*
 * 'sender': the x2APIC send routine the run's IPIs go through
 * (flush_all, flush_mask, ipi_mask).  genapic: the hook of the APIC driver
 * in use.  physical, cluster: that x2APIC routine, in any x2APIC mode, for
 * the IPIs the run's CPU sends while the run's chunks execute; the genapic
 * stays in charge of everything else (other CPUs, external interrupts).  A
 * sender other than genapic implies F_NO_SHORTHAND.
 */
#define XEN_SYSCTL_IPIBENCH_SENDER_genapic   0
#define XEN_SYSCTL_IPIBENCH_SENDER_physical  1
#define XEN_SYSCTL_IPIBENCH_SENDER_cluster   2

/* 'path' (fetch): how IPIs were sent during the chunk. */
#define XEN_SYSCTL_IPIBENCH_PATH_GENAPIC     (1U << 0)
#define XEN_SYSCTL_IPIBENCH_PATH_SHORTHAND   (1U << 1)
/* irq_delivery: the test device's MSI, raised by an MMIO write to it. */
#define XEN_SYSCTL_IPIBENCH_PATH_MSI         (1U << 2)
/* ... through an interrupt remapping table entry (info.dev_irte). */
#define XEN_SYSCTL_IPIBENCH_PATH_REMAPPED    (1U << 3)

/* 'status' (fetch) */
#define XEN_SYSCTL_IPIBENCH_ST_IRQ_LIMIT     (1U << 0) /* IRQ reserve first */

/* xen_sysctl_ipibench_sample.flags */
#define XEN_SYSCTL_IPIBENCH_SAMPLE_SHORTHAND (1U << 0)
/* The sample times the chunk's 'done' calls as a whole (F_LOOP). */
#define XEN_SYSCTL_IPIBENCH_SAMPLE_LOOP      (1U << 1)

/* xen_sysctl_ipibench_cpu.flags */
#define XEN_SYSCTL_IPIBENCH_CPU_ONLINE       (1U << 0)

struct xen_sysctl_ipibench_sample {
    uint64_aligned_t cycles;  /* TSC cycles of the whole operation */
                              /* (F_LOOP: of the chunk's calls) */
    uint64_aligned_t ns;      /* the same in ns (TSC kHz) */
    uint32_t icr_writes;      /* ICR writes performed by 'cpu' */
    uint32_t cpu;             /* CPU that handled it (irq_delivery) or peer */
    uint32_t send_cycles;     /* TSC cycles spent sending (saturated) */
    uint32_t flags;           /* XEN_SYSCTL_IPIBENCH_SAMPLE_* */
};
typedef struct xen_sysctl_ipibench_sample xen_sysctl_ipibench_sample_t;
DEFINE_XEN_GUEST_HANDLE(xen_sysctl_ipibench_sample_t);

struct xen_sysctl_ipibench_cpu {
    uint32_t apic_id;         /* query: (x2)APIC ID */
    uint32_t logical_id;      /* query: x2APIC logical ID, 0 if no x2APIC */
    uint32_t cluster;         /* query: x2APIC cluster */
    uint32_t flags;           /* query: XEN_SYSCTL_IPIBENCH_CPU_* */
    uint64_aligned_t irqs;    /* interrupts taken: while runs were live */
                              /* (query), in the chunk (fetch) */
    uint64_aligned_t ipis;    /* IPIs taken: likewise */
    uint64_aligned_t dev_irqs; /* test device interrupts handled: since */
                              /* boot (query), in the chunk (fetch) */
    uint32_t vectors;         /* query: free dynamic vectors on the CPU; */
                              /* fetch: vector_capacity vectors on it */
    uint32_t pad;             /* 0 */
};
typedef struct xen_sysctl_ipibench_cpu xen_sysctl_ipibench_cpu_t;
DEFINE_XEN_GUEST_HANDLE(xen_sysctl_ipibench_cpu_t);

struct xen_sysctl_ipibench_info {
    uint32_t version;            /* XEN_SYSCTL_IPIBENCH_VERSION */
    uint32_t nr_cpu_ids;
    uint32_t online_cpus;
    uint32_t present_cpus;
    uint32_t disabled_cpus;      /* CPUs the firmware listed as disabled */
    uint32_t unaccounted_cpus;   /* non-zero if some CPUs were not accounted */
    uint32_t shorthand_eligible; /* ALLBUT shorthand usable right now */
    uint32_t tsc_khz;
    uint32_t vector;             /* of benchmark IPIs, 0 before the first */
    uint32_t x2apic;             /* 1 in x2APIC mode */
    uint32_t max_iterations;     /* limit of 'iterations' */
    uint32_t max_samples;        /* samples a fetch may return */
    uint32_t idle_timeout_ms;    /* a run idle this long is abandoned */
    uint32_t run_live;           /* 1 while some caller's run is live */
    /*
     * The test device irq_delivery rings (a PCI device Xen owns, hidden
     * from dom0): its SBDF, ~0 without one (irq_delivery is then refused
     * with -ENODEV); the interrupt remapping table entry of its MSI, ~0 if
     * not remapped; the MSI address (low 32 bits) and data the device is
     * programmed with.
     */
    uint32_t dev_sbdf;
    uint32_t dev_irte;
    uint32_t dev_msi_addr;
    uint32_t dev_msi_data;
    char genapic[32];            /* APIC driver name, NUL terminated */
};
typedef struct xen_sysctl_ipibench_info xen_sysctl_ipibench_info_t;
DEFINE_XEN_GUEST_HANDLE(xen_sysctl_ipibench_info_t);

struct xen_sysctl_ipibench {
    uint32_t op;          /* IN: XEN_SYSCTL_IPIBENCH_OP_* */
    uint32_t flags;       /* IN: XEN_SYSCTL_IPIBENCH_F_* */
    uint32_t run_id;      /* OUT (start); IN (continuation, fetch) */
    uint32_t cpu;         /* IN: CPU the operation runs on */
    uint32_t peer;        /* IN: pingpong partner */
    uint32_t vector;      /* IN: 0 or info.vector */
    uint32_t sender;      /* IN: XEN_SYSCTL_IPIBENCH_SENDER_* */
    uint32_t iterations;  /* IN: operations in the whole run */
    uint32_t start;       /* IN: first iteration of this chunk */
    uint32_t nr_cpus;     /* IN: entries in cpus[]; OUT: nr_cpu_ids */
    uint32_t nr_samples;  /* IN (fetch): room in samples[] */
    uint32_t done;        /* OUT (fetch): iterations done by the chunk */
    struct xenctl_bitmap mask;                                 /* IN */
    XEN_GUEST_HANDLE_64(xen_sysctl_ipibench_sample_t) samples; /* OUT */
    XEN_GUEST_HANDLE_64(xen_sysctl_ipibench_cpu_t) cpus;       /* OUT */
    XEN_GUEST_HANDLE_64(xen_sysctl_ipibench_info_t) info;      /* OUT */
    uint64_aligned_t icr_writes;    /* OUT (fetch): ICR writes by cpu */
    uint64_aligned_t ipis_sent;     /* OUT (fetch): IPI destinations */
    uint64_aligned_t ipis_received; /* OUT (fetch): IPIs taken, all CPUs */
    uint32_t path;        /* OUT (fetch): XEN_SYSCTL_IPIBENCH_PATH_* */
    uint32_t status;      /* OUT (fetch): XEN_SYSCTL_IPIBENCH_ST_* */
    uint32_t result;      /* OUT (fetch): vector_capacity: vectors */
    uint32_t pad;         /* 0 */
};

#endif /* __i386__ || __x86_64__ */
#endif /* __XEN__ || __XEN_TOOLS__ */

#endif /* __XEN_PUBLIC_IPIBENCH_H__ */

/*
 * Local variables:
 * mode: C
 * c-file-style: "BSD"
 * c-basic-offset: 4
 * tab-width: 4
 * indent-tabs-mode: nil
 * End:
 */
