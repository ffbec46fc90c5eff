/* @file from=apic-trace-events */
/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __ASM_X86_APIC_TRACE_H__
#define __ASM_X86_APIC_TRACE_H__

/*
 * Trace points for the local APIC IPI and interrupt destination paths
 * (TRC_HW_APIC).  With tracing disabled each of them costs a single,
 * statically predicted not-taken branch on tb_init_done: no TSC read, no
 * call, no cpumask walk.
 */

#include <xen/cpumask.h>
#include <xen/percpu.h>
#include <xen/trace.h>
#include <asm/apicdef.h>
#include <asm/msr.h>

static inline bool apic_trace_enabled(void)
{
    return unlikely(tb_init_done);
}

/*
 * Whether a send of 'vector' is traced.  NMI sends (APIC_DM_NMI as the
 * vector: smp_send_nmi_allbutself() on the crash and fatal trap paths,
 * and any other NMI sent through send_IPI_mask()) never are: they may come
 * from NMI or crash context, and the trace path takes this CPU's trace
 * buffer lock, which the interrupted context may hold (a deadlock, or a
 * BUG of a debug build's lock checks).
 */
static inline bool apic_trace_send(unsigned int vector)
{
    return apic_trace_enabled() && vector != APIC_DM_NMI;
}

/* TSC at the start of a traced operation, 0 when not tracing. */
static inline uint64_t apic_trace_start(bool trace)
{
    return unlikely(trace) ? rdtsc_ordered() : 0;
}

static inline uint32_t apic_trace_cycles(uint64_t start)
{
    uint64_t delta = rdtsc_ordered() - start;

    return delta > UINT32_MAX ? UINT32_MAX : delta;
}

static inline void trace_apic_icr_write(bool trace, uint32_t dest,
                                        uint32_t low)
{
    if ( unlikely(trace) )
    {
        uint32_t d[] = { dest, low };

/* @if line=4.17 */
        __trace_var(TRC_HW_APIC_ICR_WRITE, true, sizeof(d), d);
/* @end */
/* @if line=staging,4.20 */
        trace_time(TRC_HW_APIC_ICR_WRITE, sizeof(d), d);
/* @end */
    }
}

/* 'vector' is the ICR low vector/mode word: APIC_DM_NMI is 0x400. */
static inline void trace_apic_send_ipi_mask(bool trace, uint32_t vector,
                                            bool logical, unsigned int cpus,
                                            unsigned int writes,
                                            uint64_t start)
{
    if ( unlikely(trace) )
    {
        uint32_t d[] = {
            vector | (logical ? TRC_HW_APIC_LOGICAL : 0),
            cpus, writes, apic_trace_cycles(start),
        };

/* @if line=4.17 */
        __trace_var(TRC_HW_APIC_SEND_IPI_MASK, true, sizeof(d), d);
/* @end */
/* @if line=staging,4.20 */
        trace_time(TRC_HW_APIC_SEND_IPI_MASK, sizeof(d), d);
/* @end */
    }
}

static inline void trace_apic_send_ipi_allbut(bool trace, uint32_t vector,
                                              unsigned int cpus,
                                              uint64_t start)
{
    if ( unlikely(trace) )
    {
        uint32_t d[] = { vector, cpus, apic_trace_cycles(start) };

/* @if line=4.17 */
        __trace_var(TRC_HW_APIC_SEND_IPI_ALLBUT, true, sizeof(d), d);
/* @end */
/* @if line=staging,4.20 */
        trace_time(TRC_HW_APIC_SEND_IPI_ALLBUT, sizeof(d), d);
/* @end */
    }
}

static inline void trace_apic_send_ipi_self(uint32_t vector)
{
    /* Not an NMI: see apic_trace_send(). */
    if ( vector != APIC_DM_NMI )
/* @if line=4.17 */
        TRACE_1D(TRC_HW_APIC_SEND_IPI_SELF, vector);
/* @end */
/* @if line=staging,4.20 */
        TRACE_TIME(TRC_HW_APIC_SEND_IPI_SELF, vector);
/* @end */
}

static inline void trace_apic_ipi_recv(uint32_t vector)
{
/* @if line=4.17 */
    TRACE_1D(TRC_HW_APIC_IPI_RECV, vector);
/* @end */
/* @if line=staging,4.20 */
    TRACE_TIME(TRC_HW_APIC_IPI_RECV, vector);
/* @end */
}

static inline void trace_apic_mask_to_apicid(const cpumask_t *mask,
                                             unsigned int dest,
                                             bool logical)
{
    if ( apic_trace_enabled() )
    {
        uint32_t d[] = { cpumask_weight(mask), dest, logical };

/* @if line=4.17 */
        __trace_var(TRC_HW_APIC_MASK_TO_APICID, true, sizeof(d), d);
/* @end */
/* @if line=staging,4.20 */
        trace_time(TRC_HW_APIC_MASK_TO_APICID, sizeof(d), d);
/* @end */
    }
}

/* @if from=ipibench-counters */
/*
 * Per-CPU IPI statistics for XEN_SYSCTL_ipibench (CONFIG_IPIBENCH only;
 * without it they compile away), counted only while a run is live:
 *  icr_writes       ICR writes issued by this CPU, added once per send
 *                   (after the send loop), not once per ICR write; a
 *                   self-IPI counts as one on xAPIC and x2APIC alike
 *  ipis_received    IPIs taken by this CPU (do_IRQ, by vector)
 *  irqs             interrupts taken by this CPU (each once: do_IRQ)
 *  sends_shorthand  send_IPI_mask() calls that used the ALLBUT shorthand
 *  sends_genapic    send_IPI_mask() calls that went to the genapic
 */
#ifdef CONFIG_IPIBENCH
/*
 * Whether an XEN_SYSCTL_ipibench run is live: set by that interface from
 * a run's start to its end (whatever ends it).  Every update of the
 * counters tests it first, so that outside a run the send and interrupt
 * paths pay one compare of this byte and a branch not taken, and touch no
 * per-CPU data.
 */
extern bool ipibench_live;

struct ipibench_counters {
    unsigned long icr_writes;
    unsigned long ipis_received;
    unsigned long irqs;
    unsigned long sends_shorthand;
    unsigned long sends_genapic;
};
DECLARE_PER_CPU(struct ipibench_counters, ipibench_counters);

/*
 * Add 'n' to this CPU's counter 'field' in one instruction (an add to
 * memory): an interrupt on this CPU, whose handler may count too, cannot
 * come between its read and its write, as it can with a plain += (a load,
 * an add and a store) where interrupts are on.  Every update of the
 * counters goes through it.  Only this CPU writes its counters; the other
 * CPUs only read them.
 */
#define ipibench_count(field, n)                                     \
    asm volatile ( "addq %1, %0"                                     \
                   : "+m" (this_cpu(ipibench_counters).field)        \
                   : "er" ((unsigned long)(n)) )

static inline void ipibench_count_icr_writes(unsigned int writes)
{
    if ( unlikely(ipibench_live) )
        ipibench_count(icr_writes, writes);
}

static inline void ipibench_count_shorthand(void)
{
    if ( unlikely(ipibench_live) )
        ipibench_count(sends_shorthand, 1);
}

/* do_IRQ()'s count (irq.c), out of line: irqs and, by vector, IPIs. */
void ipibench_count_interrupt(unsigned int vector);

static inline void ipibench_count_irq(unsigned int vector)
{
    if ( unlikely(ipibench_live) )
        ipibench_count_interrupt(vector);
}
#else
static inline void ipibench_count_icr_writes(unsigned int writes) {}
static inline void ipibench_count_shorthand(void) {}
static inline void ipibench_count_irq(unsigned int vector) {}
#endif

/* @end */
/* @if until=ipibench-counters line=4.20 */
static inline void trace_apic_vector_alloc_mask(unsigned int cpu,
                                                const cpumask_t *mask)
{
    if ( apic_trace_enabled() )
    {
        uint32_t d[] = { cpu, mask ? cpumask_weight(mask) : 0 };

        trace_time(TRC_HW_APIC_VECTOR_ALLOC_MASK, sizeof(d), d);
    }
}

/* @end */
/* An IPI handler's entry: trace its receipt. */
static inline void apic_ipi_received(uint32_t vector)
{
    trace_apic_ipi_recv(vector);
}

#endif /* __ASM_X86_APIC_TRACE_H__ */
