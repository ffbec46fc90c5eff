/* @file from=sysctl-query */
/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ipibench: measure the local APIC IPI and external interrupt paths of the
 * APIC driver in use (XEN_SYSCTL_ipibench, CONFIG_IPIBENCH).
/* @if from=sysctl-runs */
 *
 * Every operation but the query runs in chunks on the requested physical
 * CPU, through continue_hypercall_on_cpu(), i.e. from a tasklet with
 * interrupts enabled, like the callers of flush_tlb_all() and friends.  A
 * chunk stops after CHUNK_NS and keeps its results here until its caller
 * fetches them.
 *
 * A run has an owner (its run id) and a state, protected by bench_lock:
 *
 *   NONE --start--> CHUNK --chunk ends--> IDLE --continue--> CHUNK ...
 *                     |                    |
/* @end */
/* @if from=ipibench-hotplug */
 *                     | error, CPU offline | idle for IDLE_TIMEOUT (timer),
 *                     | RUN_LIFETIME over  | RUN_LIFETIME over (timer),
 *                     v                    v fetch of the last chunk
/* @end */
/* @if from=run-expiry until=ipibench-hotplug */
 *                     | error              | idle for IDLE_TIMEOUT (timer),
 *                     | RUN_LIFETIME over  | RUN_LIFETIME over (timer),
 *                     v                    v fetch of the last chunk
/* @end */
/* @if from=sysctl-runs until=run-expiry */
 *                     | error              |
 *                     v                    v fetch of the last chunk
/* @end */
/* @if from=sysctl-runs */
 *                  RECLAIM (releasing, in batches) --> NONE
/* @end */
/* @if from=run-expiry */
 *
/* @end */
/* @if from=vector-capacity */
 * Every run ends RUN_LIFETIME after its start at the latest, whatever its
 * owner does (-ETIME), and vector_capacity never takes a CPU's last
 * RESERVE_VECTORS free vectors or the last RESERVE_IRQS free IRQ
 * descriptors.
/* @end */
/* @if from=run-expiry until=vector-capacity */
 * Every run ends RUN_LIFETIME after its start at the latest, whatever its
 * owner does (-ETIME).
/* @end */
/* @if from=sysctl-runs */
 *
 * A chunk holds the CPU maps (get_cpu_maps()) while it runs, and a start
 * or continuation holds them from its checks until its chunk is queued:
/* @end */
/* @if from=sysctl-runs until=ipibench-hotplug */
 * no CPU goes up or down while a chunk runs.  A chunk that finds a hotplug
 * in progress does nothing (done == 0).
/* @end */
/* @if from=ipibench-hotplug */
 * no CPU goes up or down while a chunk runs, and the CPU notifier never
 * runs in the middle of one.  A chunk that finds a hotplug in progress
/* @end */
/* @if from=ipibench-hotplug until=vector-capacity */
 * does nothing (done == 0).  A CPU going offline ends a run that uses it
 * (-ENXIO).
/* @end */
/* @if from=vector-capacity */
 * does nothing (done == 0).  A CPU going down while a run holds IRQs has
 * them all released in CPU_DOWN_PREPARE, before fixup_irqs() needs free
 * vectors for the IRQs of that CPU.  Otherwise IRQs held by the run are
 * released RELEASE_BATCH at a time, by a tasklet or by the next start (as
 * a hypercall continuation).
/* @end */
 */

#include <xen/cpu.h>
#include <xen/cpumask.h>
#include <xen/errno.h>
#include <xen/guest_access.h>
#include <xen/init.h>
#include <xen/irq.h>
#include <xen/lib.h>
/* @if from=idle-timeout */
#include <xen/param.h>
/* @end */
#include <xen/sched.h>
#include <xen/spinlock.h>
#include <xen/string.h>
#include <xen/tasklet.h>
#include <xen/time.h>
#include <xen/timer.h>
#include <xen/xmalloc.h>
#include <asm/apic.h>
#include <asm/apic-trace.h>
#include <asm/flushtlb.h>
#include <asm/genapic.h>
#include <asm/io_apic.h>
#include <asm/ipibench.h>
/* @if from=irq-delivery */
#include <asm/ipibench-dev.h>
/* @end */
#include <asm/irq.h>
/* @if line=staging,4.20 */
#include <asm/irq-vectors.h>
/* @end */
#include <asm/smp.h>
/* @if line=4.17 */
#include <irq_vectors.h>
#include <mach_apic.h>
/* @end */
#include <public/sysctl.h>

/* @if from=sysctl-runs */
/* A chunk holds its CPU for about this long (longer only for one call). */
#define CHUNK_NS             MICROSECS(1000)
/* @end */
/* @if from=ipi-mask */
/*
 * The first call of a chunk may wait this long for its IPI or interrupt,
 * so that every chunk makes progress even where one call takes longer
 * than CHUNK_NS (under emulation: an IPI to 39 CPUs takes 1-2 ms of
 * wall time under TCG); later calls stop at CHUNK_NS.  A call still in
 * flight then is waited for by the next chunk.
 */
#define FIRST_CALL_NS        MILLISECS(20)
/* @end */
/* @if from=sysctl-flush */
/* Samples per chunk: what a fetch may return (info.max_samples). */
#define MAX_SAMPLES          1024
/* @end */
/* @if from=sysctl-runs */
#define MAX_ITERATIONS       1000000
/* @end */
/* @if from=run-expiry until=idle-timeout */
/*
 * A run nobody continues or fetches for this long is abandoned.  NOW()
 * follows wall time: under emulation on a loaded host, the gap between a
 * chunk and its caller's next call was seen to exceed 1 s.
 */
#define IDLE_TIMEOUT         SECONDS(5)
/* @end */
/* @if from=idle-timeout */
/*
 * A run nobody continues or fetches for this long is abandoned
 * (ipibench-idle-timeout=, in seconds).  NOW() follows wall time: under
 * emulation on a loaded host, the gap between a chunk and its caller's
 * next call was seen to exceed 5 s.
 */
#define IDLE_TIMEOUT_DEFAULT 5
#define IDLE_TIMEOUT_MAX     600
static unsigned int __ro_after_init opt_idle_timeout = IDLE_TIMEOUT_DEFAULT;
integer_param("ipibench-idle-timeout", opt_idle_timeout);
#define IDLE_TIMEOUT         SECONDS(opt_idle_timeout)
/* @end */
/* @if from=ipi-mask */
/*
 * A call whose IPI or interrupt has been waited for this long in all (in
 * the chunks' own time, not counting the gaps between them) is lost.
 */
#define LOST_NS              SECONDS(1)
/* A waiting sender reads the clock once per this many polls. */
#define WAIT_SPINS_PER_CLOCK 256
/* @end */
/* @if from=vector-capacity */
/* IRQs destroyed per batch when a run is released. */
#define RELEASE_BATCH        64
/* @end */
/* @if from=run-expiry until=run-lifetime */
/*
 * The longest a run lives, from its start, whatever its owner does: then
 * it ends with -ETIME for its owner, and what it holds is released.  A
 * run of flush_all calls to 15 CPUs under emulation takes about 1 ms per
 * call: the lifetime leaves room for tens of thousands of calls; longer
 * measurements are several runs.
 */
#define RUN_LIFETIME         SECONDS(60)
/* @end */
/* @if from=run-lifetime */
/*
 * The longest a run lives, from its start, whatever its owner does
 * (ipibench-run-lifetime=, in seconds): then it ends with -ETIME for its
 * owner, and what it holds is released.  On hardware 60 s leaves room for
 * millions of calls.  Under emulation a call takes a millisecond or more,
 * and a run that stops making progress there is better left to the
 * harness to examine than cut short at 60 s.
 */
#define RUN_LIFETIME_DEFAULT 60
#define RUN_LIFETIME_MAX     3600
static unsigned int __ro_after_init opt_run_lifetime = RUN_LIFETIME_DEFAULT;
integer_param("ipibench-run-lifetime", opt_run_lifetime);
#define RUN_LIFETIME         SECONDS(opt_run_lifetime)
/* @end */
/* @if from=vector-capacity */
/*
 * Free dynamic vectors vector_capacity leaves on every CPU, and free IRQ
 * descriptors it leaves in all.  32 vectors: as many as one device's
 * multi-message MSI may ask for (the PCI maximum), and room for
 * fixup_irqs() to move the IRQs of a CPU going offline.  128 descriptors:
 * the MSI-X vectors of a few devices dom0 sets up meanwhile (one per queue
 * and CPU on a NIC or NVMe controller).
 */
#define RESERVE_VECTORS      32
#define RESERVE_IRQS         128
/* @end */
/* @if from=ipibench-hotplug */
/* How soon the timer looks again when it fired during a CPU hotplug. */
#define HOTPLUG_RETRY        MILLISECS(100)
/* @end */

/* @if from=bench-vector */
/*
 * The vector of the ipi_mask and pingpong IPIs: 0 until the first such run
 * takes it (get_bench_vector()), then kept.
 */
static uint8_t __read_mostly bench_vector;
/* @end */
/* @if from=ipi-mask */

/*
 * Shared with the interrupt handlers.  ipi_mask: the sender bumps
 * bench_seq, each destination copies it into its own line of bench.acks,
 * so that no two receivers write the same cache line and none needs a
 * locked operation (a cluster IPI reaches up to 16 CPUs at once).
 */
struct bench_ack {
    unsigned int seq;
} __aligned(SMP_CACHE_BYTES);
static struct bench_ack bench_seq;
/* @end */
/* @if from=pingpong */
static struct {
    unsigned int cpu, peer;
    bool active;
    bool pong;
} pingpong;
/* @end */

/* @if from=sysctl-runs */
enum run_state {
    RUN_NONE,           /* no run */
    RUN_IDLE,           /* a run between two calls of its owner */
    RUN_CHUNK,          /* a chunk is scheduled or running */
    RUN_RECLAIM,        /* an ended run's resources are being released */
};

enum phase {
    PHASE_RUN,          /* iterations */
/* @end */
/* @if from=vector-capacity */
    PHASE_FREE,         /* vector_capacity: releasing the IRQs */
/* @end */
/* @if from=sysctl-runs */
    PHASE_DONE,         /* all iterations done: only the results remain */
};

static DEFINE_SPINLOCK(bench_lock);
/* @end */
/* @if from=run-expiry */
static struct timer bench_idle_timer;
/* @end */
/* @if from=sysctl-runs */
static void cf_check bench_reclaim(void *unused);
static DECLARE_TASKLET(bench_reclaim_tasklet, bench_reclaim, NULL);
/* @end */

/* @if from=sysctl-runs */
static struct {
    enum run_state state;
    uint32_t run_id, next_id;
/* @end */
/* @if from=run-expiry */
    s_time_t born;      /* start of the run: it ends RUN_LIFETIME later */
    s_time_t last;      /* end of the run's last call */
/* @end */
/* @if from=ipibench-hotplug */
    int abort;          /* set by the CPU notifier: -ENXIO */
/* @end */
/* @if from=run-expiry until=ipibench-hotplug */
    int abort;          /* set by the timer: -ETIME */
/* @end */
/* @if from=sysctl-runs until=run-expiry */
    int abort;          /* an error that ends the run at its chunk's end */
/* @end */
/* @if from=sysctl-runs */
    uint32_t ended_id;  /* an ended run, and what its owner is told */
    int ended_rc;

    /* The run. */
    enum phase phase;
/* @end */
/* @if from=pingpong */
    unsigned int op, flags, sender, cpu, peer, iterations, pos;
/* @end */
/* @if from=sysctl-runs */
    unsigned int vector, mask_bits;         /* as the start gave them */
/* @end */
/* @if from=sysctl-runs until=pingpong */
    unsigned int op, flags, sender, cpu, iterations, pos;
/* @end */
/* @if from=sysctl-flush */
    cpumask_t mask;     /* the caller's mask */
    cpumask_t targets;  /* mask minus cpu: IPI destinations */
/* @end */
/* @if from=ipibench-hotplug */
    cpumask_t used;     /* CPUs whose going offline aborts the run */
/* @end */
/* @if from=sysctl-runs */
    unsigned int dests; /* IPI destinations per call */
/* @end */
/* @if from=loop-timing */
    unsigned int loop_calls;                /* F_LOOP: calls in next chunk */
/* @end */
/* @if from=sysctl-runs */

/* @end */
/* @if from=ipi-mask */
    /* The call in flight, if any (its IPI may outlive a chunk). */
    s_time_t first_deadline;                /* the chunk's first call */
    bool inflight;
    unsigned int seq, wait_from;
    s_time_t waited;
    uint64_t fl_cycles;
    uint32_t fl_send_cycles, fl_icr_writes, fl_flags;
/* @end */
/* @if from=sysctl-runs */

    /* The last chunk. */
    unsigned int done, path, status, result;
/* @end */
/* @if from=sysctl-flush */
    uint64_t icr_writes, ipis_sent, ipis_received;
    unsigned int nr_samples;                /* valid entries in samples[] */
    cpumask_t snap;                         /* CPUs in irqs[] and ipis[] */
    xen_sysctl_ipibench_sample_t *samples;
    uint64_t *irqs, *ipis;                  /* per-CPU deltas */
/* @end */
/* @if from=vector-capacity */
    uint32_t *vectors;                      /* per CPU */
/* @end */
/* @if from=ipi-mask */
    struct bench_ack *acks;                 /* per CPU, ipi_mask */
/* @end */
/* @if from=vector-capacity */

    /* vector_capacity */
    int *held;
    unsigned int nr_held;
    cpumask_t capmask;  /* CPUs still above RESERVE_VECTORS */
    unsigned int free_descs;                /* counted near the reserve */
/* @end */
/* @if from=sysctl-runs */

/* @end */
/* @if from=irq-delivery */
    uint64_t *dev_irqs;                     /* per-CPU deltas */
/* @end */
/* @if from=sysctl-runs */
} bench = { .next_id = 1 };
/* @end */

/* @if from=sysctl-flush */
static unsigned long icr_writes(void)
{
    return this_cpu(ipibench_counters).icr_writes;
}

static unsigned long shorthand_sends(void)
{
    return this_cpu(ipibench_counters).sends_shorthand;
}
/* @end */
/* @if from=bench-vector */

/* @end */
/* @if from=bench-vector line=4.17 */
static void cf_check bench_ipi_interrupt(struct cpu_user_regs *regs)
/* @end */
/* @if from=bench-vector line=staging,4.20 */
static void cf_check bench_ipi_interrupt(void)
/* @end */
/* @if from=bench-vector */
{
/* @end */
/* @if from=ipi-mask */
    unsigned int cpu = smp_processor_id();

/* @end */
/* @if from=bench-vector */
    ack_APIC_irq();
    apic_ipi_received(bench_vector);
    /* do_IRQ() counts the system IPIs by vector, this one here. */
    if ( ipibench_live )
        ipibench_count(ipis_received, 1);
/* @end */
/* @if from=ipi-mask */

/* @end */
/* @if from=pingpong */
    if ( read_atomic(&pingpong.active) )
    {
        if ( cpu == pingpong.peer )
            alternative_vcall(genapic.send_IPI_mask,
                              cpumask_of(pingpong.cpu), bench_vector);
        else if ( cpu == pingpong.cpu )
            write_atomic(&pingpong.pong, true);
        return;
    }

/* @end */
/* @if from=ipi-mask */
    if ( bench.acks )
        write_atomic(&bench.acks[cpu].seq, read_atomic(&bench_seq.seq));
/* @end */
/* @if from=bench-vector */
}
/* @end */
/* @if from=sysctl-flush */

/* ---- timing helpers ------------------------------------------------- */

static void cycles_to_sample(xen_sysctl_ipibench_sample_t *s,
                             uint64_t cycles)
{
    s->cycles = cycles;
    s->ns = cpu_khz ? muldiv64(cycles, 1000000, cpu_khz) : 0;
}

/* @end */
/* @if from=loop-timing */
static uint32_t sat32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : v;
}

/* @end */
/* @if from=sysctl-flush */
static bool timed_out(s_time_t deadline)
{
    return NOW() > deadline;
}

/* ---- the calls of a run --------------------------------------------- */

/* @end */
/* @if from=ipi-mask */
static bool op_is_flush(void)
{
    return bench.op == XEN_SYSCTL_IPIBENCH_OP_flush_all ||
           bench.op == XEN_SYSCTL_IPIBENCH_OP_flush_mask;
}

/* @end */
/* @if from=sysctl-flush */
static void flush_call(void)
{
    if ( bench.op == XEN_SYSCTL_IPIBENCH_OP_flush_all )
        flush_tlb_all();
    else
        flush_mask(&bench.mask, FLUSH_TLB);
}

/* @end */
/* @if from=ipi-mask */
/*
 * Start the call of an asynchronous operation: its completion is awaited
 * by wait_call().
 *  ipi_mask: one IPI to bench.targets through send_IPI_mask(), the path
 *    every Xen IPI takes (without the shorthand if so asked).
/* @end */
/* @if from=pingpong */
 *  pingpong: cpu -> peer, whose handler sends peer -> cpu.
/* @end */
/* @if from=irq-delivery */
 *  irq_delivery: the test device's MSI (ipibench-dev.c: full barrier,
 *    then its MMIO doorbell).
/* @end */
/* @if from=ipi-mask */
 * send_IPI_mask() and the genapic hooks order the prior writes before the
 * ICR write themselves (smp_mb() in the x2APIC ones).
 */
static void send_call(void)
{
    switch ( bench.op )
    {
    case XEN_SYSCTL_IPIBENCH_OP_ipi_mask:
        bench.seq = bench_seq.seq + 1;
        bench.wait_from = cpumask_first(&bench.targets);
        write_atomic(&bench_seq.seq, bench.seq);
        send_IPI_mask(&bench.targets, bench_vector);
/* @end */
/* @if from=pingpong */
        break;

    case XEN_SYSCTL_IPIBENCH_OP_pingpong:
        write_atomic(&pingpong.pong, false);
        alternative_vcall(genapic.send_IPI_mask, cpumask_of(bench.peer),
                          bench_vector);
/* @end */
/* @if from=irq-delivery */
        break;

    case XEN_SYSCTL_IPIBENCH_OP_irq_delivery:
        /* The test device's MSI (ipibench-dev.c), rung by an MMIO write. */
        ipibench_dev_ring();
/* @end */
/* @if from=ipi-mask */
        break;
    }

    bench.inflight = true;
    bench.waited = 0;
}

static bool call_complete(void)
{
    unsigned int cpu;

    switch ( bench.op )
    {
    case XEN_SYSCTL_IPIBENCH_OP_ipi_mask:
        for ( cpu = bench.wait_from; cpu < nr_cpu_ids;
              cpu = cpumask_next(cpu, &bench.targets) )
        {
            if ( read_atomic(&bench.acks[cpu].seq) != bench.seq )
            {
                bench.wait_from = cpu;
                return false;
            }
        }
        bench.wait_from = cpu;
        return true;
/* @end */
/* @if from=pingpong */

    case XEN_SYSCTL_IPIBENCH_OP_pingpong:
        return read_atomic(&pingpong.pong);
/* @end */
/* @if from=irq-delivery */

    case XEN_SYSCTL_IPIBENCH_OP_irq_delivery:
        return ipibench_dev_handled_cpu() >= 0;
/* @end */
/* @if from=ipi-mask */
    }

    return true;
}

/*
 * Wait for the call in flight: 0 once it has completed, -EAGAIN when
 * 'deadline' passes first (the next chunk waits on), -ENXIO when a
 * CPU of the run is going offline, -ETIMEDOUT once the call has been
 * waited for LOST_NS in all.  No wait outlasts its deadline (CHUNK_NS,
 * FIRST_CALL_NS for a chunk's first call) by more than
 * WAIT_SPINS_PER_CLOCK polls.
 */
static int wait_call(s_time_t deadline)
{
    unsigned int spins = 0;
    s_time_t since = 0, now;
    int abort;

    while ( !call_complete() )
    {
        cpu_relax();
        if ( ++spins % WAIT_SPINS_PER_CLOCK )
            continue;

        now = NOW();
        if ( since )
            bench.waited += now - since;
        since = now;
        if ( (abort = read_atomic(&bench.abort)) != 0 )
            return abort;
        if ( bench.waited > LOST_NS )
            return -ETIMEDOUT;
        if ( now > deadline )
            return -EAGAIN;
    }

    bench.inflight = false;

    return 0;
}
/* @end */
/* @if from=vector-capacity */

/* ---- vector_capacity ------------------------------------------------ */

/* Destroy up to 'max' of the IRQs vector_capacity holds. */
static void release_held(unsigned int max)
{
    while ( bench.nr_held && max-- )
        destroy_irq(bench.held[--bench.nr_held]);
}

static unsigned int irq_descs_free(void)
{
    unsigned int irq, n = 0;

    for ( irq = nr_irqs_gsi; irq < nr_irqs; irq++ )
        if ( irq_to_desc(irq)->arch.used == IRQ_UNUSED )
            n++;

    return n;
}

/*
 * Take one more IRQ with a vector on a CPU of bench.capmask, unless that
 * would leave fewer than RESERVE_VECTORS free vectors on a CPU it got its
 * vector on (all the CPUs of the vector's allocation domain: a cluster in
 * cluster mode) or fewer than RESERVE_IRQS free IRQ descriptors.  False
 * once no CPU of the mask can give one more.
 */
static bool capacity_take(void)
{
    const struct irq_desc *desc;
    unsigned int cpu;
    int irq;

    while ( !cpumask_empty(&bench.capmask) )
    {
        /* Counted only near the reserve: a walk of every IRQ. */
        if ( bench.free_descs <= RESERVE_IRQS )
            bench.free_descs = irq_descs_free();
        if ( bench.free_descs <= RESERVE_IRQS )
        {
            bench.status |= XEN_SYSCTL_IPIBENCH_ST_IRQ_LIMIT;
            return false;
        }

        irq = create_irq(&bench.capmask, false);
        if ( irq < 0 )
        {
            /* Out of vectors (or of descriptors) below the reserve. */
            if ( !irq_descs_free() )
                bench.status |= XEN_SYSCTL_IPIBENCH_ST_IRQ_LIMIT;
            return false;
        }
        bench.free_descs--;

        desc = irq_to_desc(irq);
        for_each_cpu ( cpu, desc->arch.cpu_mask )
            if ( irq_free_vectors(cpu) < RESERVE_VECTORS )
                break;
        if ( cpu >= nr_cpu_ids )
        {
            bench.held[bench.nr_held++] = irq;
            return true;
        }

        /* Below the reserve there: give it back, and no more there. */
        cpumask_andnot(&bench.capmask, &bench.capmask, desc->arch.cpu_mask);
        destroy_irq(irq);
        bench.free_descs++;
    }

    return false;
}

static void capacity_count(void)
{
    unsigned int i, cpu;

    for ( i = 0; i < bench.nr_held; i++ )
        for_each_cpu ( cpu, irq_to_desc(bench.held[i])->arch.cpu_mask )
            bench.vectors[cpu]++;
    bench.result = bench.nr_held;
}

/*
 * Allocate vectors for IRQs bound to bench.mask until only the reserve is
 * left (one chunk or more), count them per CPU, then free them (one chunk
 * or more): the only iteration of the run is done when the last one is
 * freed.
 */
static unsigned int capacity_chunk(s_time_t deadline)
{
    if ( bench.phase == PHASE_RUN )
    {
        while ( !timed_out(deadline) && !read_atomic(&bench.abort) )
        {
            if ( !capacity_take() )
            {
                capacity_count();
                bench.phase = PHASE_FREE;
                break;
            }
        }
        return 0;
    }

    while ( bench.nr_held && !timed_out(deadline) )
        release_held(RELEASE_BATCH);

    return !bench.nr_held;
}
/* @end */
/* @if from=sysctl-flush */

/* @end */
/* @if from=sysctl-runs */
/* ---- chunks ----------------------------------------------------------- */

/* @end */
/* @if from=sysctl-flush */
static void snapshot(bool after)
{
    unsigned int cpu;

    if ( !after )
        cpumask_copy(&bench.snap, &cpu_online_map);

    for_each_cpu ( cpu, &bench.snap )
    {
/* @end */
/* @if from=irq-delivery */
        uint64_t irqs, ipis, dev;
/* @end */
/* @if from=sysctl-flush until=irq-delivery */
        uint64_t irqs, ipis;
/* @end */
/* @if from=sysctl-flush */

        if ( !cpu_online(cpu) )
        {
            /* Gone (and perhaps back, counting from 0): no delta. */
/* @end */
/* @if from=irq-delivery */
            bench.irqs[cpu] = bench.ipis[cpu] = bench.dev_irqs[cpu] = 0;
/* @end */
/* @if from=sysctl-flush until=irq-delivery */
            bench.irqs[cpu] = bench.ipis[cpu] = 0;
/* @end */
/* @if from=sysctl-flush */
            continue;
        }
        irqs = read_atomic(&per_cpu(ipibench_counters, cpu).irqs);
        ipis = read_atomic(&per_cpu(ipibench_counters, cpu).ipis_received);
/* @end */
/* @if from=irq-delivery */
        dev = per_cpu(ipibench_dev_irqs, cpu);
/* @end */
/* @if from=sysctl-flush */
        if ( !after )
        {
            bench.irqs[cpu] = irqs;
            bench.ipis[cpu] = ipis;
/* @end */
/* @if from=irq-delivery */
            bench.dev_irqs[cpu] = dev;
/* @end */
/* @if from=sysctl-flush */
            continue;
        }
        bench.irqs[cpu] = irqs >= bench.irqs[cpu] ? irqs - bench.irqs[cpu] : 0;
        bench.ipis[cpu] = ipis >= bench.ipis[cpu] ? ipis - bench.ipis[cpu] : 0;
/* @end */
/* @if from=irq-delivery */
        bench.dev_irqs[cpu] = dev >= bench.dev_irqs[cpu]
                              ? dev - bench.dev_irqs[cpu] : 0;
/* @end */
/* @if from=sysctl-flush */
    }
}

/* Per-call timing: one sample per iteration, until 'deadline'. */
static int run_iterations(s_time_t deadline, unsigned int *done)
{
    unsigned int i = 0;
/* @end */
/* @if from=ipi-mask */
    int rc = 0;
/* @end */
/* @if from=sysctl-flush */

    while ( bench.pos + i < bench.iterations && i < MAX_SAMPLES )
    {
        xen_sysctl_ipibench_sample_t *s = &bench.samples[i];
        unsigned long icr = icr_writes(), sh = shorthand_sends();
/* @end */
/* @if from=sysctl-flush until=ipi-mask */
        uint64_t t0 = rdtsc_ordered();

        flush_call();
        cycles_to_sample(s, rdtsc_ordered() - t0);
        s->icr_writes = icr_writes() - icr;
        s->flags = shorthand_sends() != sh
                   ? XEN_SYSCTL_IPIBENCH_SAMPLE_SHORTHAND : 0;

/* @end */
/* @if from=ipi-mask */
        uint64_t t0 = rdtsc_ordered(), t1;

        if ( op_is_flush() )
        {
            flush_call();
            cycles_to_sample(s, rdtsc_ordered() - t0);
            s->icr_writes = icr_writes() - icr;
            s->flags = shorthand_sends() != sh
                       ? XEN_SYSCTL_IPIBENCH_SAMPLE_SHORTHAND : 0;
        }
        else
        {
            if ( !bench.inflight )
            {
                send_call();
                t1 = rdtsc_ordered();
                bench.fl_cycles = t1 - t0;
                bench.fl_send_cycles = sat32(t1 - t0);
                bench.fl_icr_writes = icr_writes() - icr;
                bench.fl_flags = shorthand_sends() != sh
                                 ? XEN_SYSCTL_IPIBENCH_SAMPLE_SHORTHAND : 0;
                t0 = t1;
            }
            rc = wait_call(i ? deadline : bench.first_deadline);
            bench.fl_cycles += rdtsc_ordered() - t0;
            if ( rc )
                break;
            cycles_to_sample(s, bench.fl_cycles);
            s->send_cycles = bench.fl_send_cycles;
            s->icr_writes = bench.fl_icr_writes;
            s->flags = bench.fl_flags;
        }

/* @end */
/* @if from=irq-delivery */
        s->cpu = bench.op == XEN_SYSCTL_IPIBENCH_OP_irq_delivery
                 ? ipibench_dev_handled_cpu()
                 : bench.op == XEN_SYSCTL_IPIBENCH_OP_pingpong ? bench.peer
                                                               : bench.cpu;
/* @end */
/* @if from=pingpong until=irq-delivery */
        s->cpu = bench.op == XEN_SYSCTL_IPIBENCH_OP_pingpong ? bench.peer
                                                             : bench.cpu;
/* @end */
/* @if from=sysctl-flush until=pingpong */
        s->cpu = bench.cpu;
/* @end */
/* @if from=sysctl-flush */
        i++;
        if ( timed_out(deadline) || read_atomic(&bench.abort) )
            break;
    }

    *done = i;
    bench.nr_samples = i;

/* @end */
/* @if from=sysctl-flush until=ipi-mask */
    return 0;
/* @end */
/* @if from=ipi-mask */
    return rc == -EAGAIN ? 0 : rc;
/* @end */
/* @if from=sysctl-flush */
}

/* @end */
/* @if from=loop-timing */
/*
 * XEN_SYSCTL_IPIBENCH_F_LOOP: 'n' consecutive calls timed as a whole.  The
 * timed window holds one TSC read, the calls, and one TSC read: no
/* @end */
/* @if from=loop-timing until=ipi-mask */
 * counter, no sample, no chunk deadline check between the calls.
 */
static int loop_calls(unsigned int n, s_time_t deadline, unsigned int *done,
                      uint64_t *cycles)
{
    uint64_t t0, t1;
    unsigned int i;

    t0 = rdtsc_ordered();
    for ( i = 0; i < n; i++ )
        flush_call();
    t1 = rdtsc_ordered();

    *done = i;
    *cycles = t1 - t0;

    return 0;
}
/* @end */
/* @if from=ipi-mask */
 * counter, no sample, no chunk deadline check between the calls.  The
 * waits of the asynchronous calls read the clock every
 * WAIT_SPINS_PER_CLOCK polls (only a slow call gets there), so that a
 * call still in flight at the deadline ends the chunk; the next chunk's
 * window then times the rest of its wait.
 */
static int loop_calls(unsigned int n, s_time_t deadline, unsigned int *done,
                      uint64_t *cycles)
{
    uint64_t t0, t1;
    unsigned int i;
    int rc = 0;

    if ( op_is_flush() )
    {
        t0 = rdtsc_ordered();
        for ( i = 0; i < n; i++ )
            flush_call();
        t1 = rdtsc_ordered();
    }
    else
    {
        t0 = rdtsc_ordered();
        for ( i = 0; i < n; i++ )
        {
            if ( !bench.inflight )
                send_call();
            if ( (rc = wait_call(i ? deadline : bench.first_deadline)) != 0 )
                break;
        }
        t1 = rdtsc_ordered();
    }

    *done = i;
    *cycles = t1 - t0;

    return rc == -EAGAIN ? 0 : rc;
}
/* @end */
/* @if from=loop-timing */

/*
 * One chunk of a loop run: bench.loop_calls calls (1 in the run's first
 * chunk) as one sample.  The next chunk gets as many calls as fit in
 * CHUNK_NS at this chunk's rate, at most twice as many as this one and at
 * most MAX_SAMPLES, so that a chunk holds the CPU for about CHUNK_NS.
 */
static int run_loop(s_time_t deadline, unsigned int *done)
{
    unsigned long icr = icr_writes(), sh = shorthand_sends();
    xen_sysctl_ipibench_sample_t *s = &bench.samples[0];
    unsigned int n = min(bench.loop_calls, bench.iterations - bench.pos);
    uint64_t cycles = 0, next;
    int rc;

    rc = loop_calls(n, deadline, done, &cycles);
    bench.nr_samples = 0;
    if ( rc )
        return rc;

    cycles_to_sample(s, cycles);
    s->icr_writes = sat32(icr_writes() - icr);
    s->cpu = bench.cpu;
    s->flags = XEN_SYSCTL_IPIBENCH_SAMPLE_LOOP;
    if ( shorthand_sends() != sh )
        s->flags |= XEN_SYSCTL_IPIBENCH_SAMPLE_SHORTHAND;
    bench.nr_samples = *done ? 1 : 0;

    next = s->ns ? (uint64_t)n * CHUNK_NS / s->ns : 2 * n;
    next = min_t(uint64_t, next, 2 * n);
    next = min_t(uint64_t, next, MAX_SAMPLES);
    bench.loop_calls = max_t(uint64_t, next, 1);

    return 0;
}

/* @end */
/* @if from=sysctl-flush */
/*
 * The IPI destinations of a chunk's 'calls' calls of an op that sends
 * through send_IPI_mask(), 'sh' of which used the ALLBUT shorthand (which
 * also reaches the parked CPUs), from what was online while the chunk ran
 * (the CPU maps held: no CPU went up or down meanwhile).  flush_all
 * flushes the CPUs online at each call, not the run's mask.
 */
static uint64_t ipis_sent(unsigned int calls, unsigned long sh)
{
    unsigned int dests = bench.op == XEN_SYSCTL_IPIBENCH_OP_flush_all
                         ? num_online_cpus() - 1 : bench.dests;

    if ( sh > calls )
        sh = calls;

    return (uint64_t)sh * ipi_allbut_destinations() +
           (uint64_t)(calls - sh) * dests;
}

/* @end */
/* @if from=sysctl-runs */
static void release_run_locked(void);
static void end_run_locked(int rc);
/* @end */
/* @if from=run-expiry */
static s_time_t run_expiry_locked(void);
/* @end */
/* @if from=sysctl-runs */

static long cf_check bench_chunk(void *unused)
{
/* @end */
/* @if from=sysctl-flush */
    s_time_t now = NOW(), deadline = now + CHUNK_NS;
    unsigned long icr = icr_writes(), sh = shorthand_sends();
    unsigned long ga = this_cpu(ipibench_counters).sends_genapic;
    unsigned int i = 0, cpu;
/* @end */
/* @if from=sysctl-runs until=sysctl-flush */
    unsigned int i = 0;
/* @end */
/* @if from=sysctl-runs */
    bool maps = get_cpu_maps();
    int rc = read_atomic(&bench.abort);

/* @end */
/* @if from=ipi-mask */
    bench.first_deadline = now + FIRST_CALL_NS;
/* @end */
/* @if from=sysctl-flush */
    bench.nr_samples = 0;
/* @end */
/* @if from=sysctl-runs */
    if ( !maps || rc )
    {
/* @end */
/* @if from=ipibench-hotplug */
        /*
         * A CPU is going up or down (the CPU notifier may be changing the
         * run: touch nothing of it), or the run was aborted: no iteration.
         */
/* @end */
/* @if from=sysctl-runs until=ipibench-hotplug */
        /* A CPU is going up or down, or the run was aborted: no iteration. */
/* @end */
/* @if from=sysctl-flush */
        cpumask_clear(&bench.snap);
/* @end */
/* @if from=sysctl-runs */
        goto out;
    }
/* @end */
/* @if from=sysctl-flush */

    memset(bench.samples, 0, sizeof(*bench.samples) * MAX_SAMPLES);
    for ( cpu = 0; cpu < nr_cpu_ids; cpu++ )
/* @end */
/* @if from=irq-delivery */
        bench.irqs[cpu] = bench.ipis[cpu] = bench.dev_irqs[cpu] = 0;
/* @end */
/* @if from=sysctl-flush until=irq-delivery */
        bench.irqs[cpu] = bench.ipis[cpu] = 0;
/* @end */
/* @if from=sysctl-flush */
    snapshot(false);

    this_cpu(ipibench_send).sender = bench.sender;
    this_cpu(ipibench_send).no_shorthand =
        bench.flags & XEN_SYSCTL_IPIBENCH_F_NO_SHORTHAND;

/* @end */
/* @if from=vector-capacity */
    if ( bench.op == XEN_SYSCTL_IPIBENCH_OP_vector_capacity )
        i = capacity_chunk(deadline);
    else if ( bench.flags & XEN_SYSCTL_IPIBENCH_F_LOOP )
/* @end */
/* @if from=loop-timing until=vector-capacity */
    if ( bench.flags & XEN_SYSCTL_IPIBENCH_F_LOOP )
/* @end */
/* @if from=loop-timing */
        rc = run_loop(deadline, &i);
    else
        rc = run_iterations(deadline, &i);
/* @end */
/* @if from=sysctl-flush until=loop-timing */
    rc = run_iterations(deadline, &i);
/* @end */
/* @if from=sysctl-flush */

    this_cpu(ipibench_send).sender = 0;
    this_cpu(ipibench_send).no_shorthand = false;

    snapshot(true);
/* @end */
/* @if from=sysctl-runs */

 out:
    bench.done = i;
    bench.pos += i;
/* @end */
/* @if from=sysctl-flush */
    bench.icr_writes = icr_writes() - icr;
    bench.path = 0;
    if ( shorthand_sends() != sh )
        bench.path |= XEN_SYSCTL_IPIBENCH_PATH_SHORTHAND;
/* @end */
/* @if from=pingpong */
    /* pingpong calls the genapic hook directly. */
    if ( this_cpu(ipibench_counters).sends_genapic != ga ||
         (i && bench.op == XEN_SYSCTL_IPIBENCH_OP_pingpong) )
/* @end */
/* @if from=sysctl-flush until=pingpong */
    if ( this_cpu(ipibench_counters).sends_genapic != ga )
/* @end */
/* @if from=sysctl-flush */
        bench.path |= XEN_SYSCTL_IPIBENCH_PATH_GENAPIC;
/* @end */
/* @if from=irq-delivery */
    if ( i && bench.op == XEN_SYSCTL_IPIBENCH_OP_irq_delivery )
        bench.path |= XEN_SYSCTL_IPIBENCH_PATH_MSI |
                      (ipibench_dev_irte() >= 0
                       ? XEN_SYSCTL_IPIBENCH_PATH_REMAPPED : 0);
/* @end */
/* @if from=ipi-mask */
    if ( op_is_flush() || bench.op == XEN_SYSCTL_IPIBENCH_OP_ipi_mask )
        bench.ipis_sent = ipis_sent(i, shorthand_sends() - sh);
    else
        bench.ipis_sent = (uint64_t)i * bench.dests;
/* @end */
/* @if from=sysctl-flush until=ipi-mask */
    bench.ipis_sent = ipis_sent(i, shorthand_sends() - sh);
/* @end */
/* @if from=sysctl-flush */
    bench.ipis_received = 0;
    for_each_cpu ( cpu, &bench.snap )
        bench.ipis_received += bench.ipis[cpu];
/* @end */
/* @if from=sysctl-runs */

    spin_lock(&bench_lock);
    ASSERT(bench.state == RUN_CHUNK);
    if ( !rc && read_atomic(&bench.abort) )
        rc = read_atomic(&bench.abort);
/* @end */
/* @if from=run-expiry */
    if ( !rc && NOW() >= bench.born + RUN_LIFETIME )
        rc = -ETIME;
/* @end */
/* @if from=sysctl-runs */
    if ( rc )
        end_run_locked(rc);
    else
    {
        if ( bench.pos >= bench.iterations )
        {
            /* Only the results remain: release the rest now. */
            bench.phase = PHASE_DONE;
            release_run_locked();
        }
        bench.state = RUN_IDLE;
/* @end */
/* @if from=run-expiry */
        bench.last = NOW();
        set_timer(&bench_idle_timer, run_expiry_locked());
/* @end */
/* @if from=sysctl-runs */
    }
    spin_unlock(&bench_lock);
    if ( maps )
        put_cpu_maps();

    return rc;
}

/* ---- run state ------------------------------------------------------- */

/* @end */
/* @if from=vector-capacity */
/*
 * Release what a run holds but the IRQs of vector_capacity (those go
/* @end */
/* @if from=irq-delivery */
 * RELEASE_BATCH at a time): the ping-pong (the test device's IRQ is
 * Xen's for good).
/* @end */
/* @if from=vector-capacity until=irq-delivery */
 * RELEASE_BATCH at a time): the ping-pong.
/* @end */
/* @if from=vector-capacity */
 */
/* @end */
/* @if from=pingpong until=vector-capacity */
/* Release what a run holds: the ping-pong. */
/* @end */
/* @if from=sysctl-runs until=pingpong */
/* Release what a run holds. */
/* @end */
/* @if from=sysctl-runs */
static void release_run_locked(void)
{
/* @end */
/* @if from=pingpong */
    write_atomic(&pingpong.active, false);
/* @end */
/* @if from=ipi-mask */
    bench.inflight = false;
/* @end */
/* @if from=sysctl-runs */
}

/* End the live run: its owner is told 'rc' from now on. */
static void end_run_locked(int rc)
{
    ASSERT(bench.state == RUN_IDLE || bench.state == RUN_CHUNK);

    bench.ended_id = bench.run_id;
    bench.ended_rc = rc;
    bench.run_id = 0;
    release_run_locked();
    bench.state = RUN_RECLAIM;
    tasklet_schedule(&bench_reclaim_tasklet);
}

/* RUN_RECLAIM: one batch; true once nothing is held (state RUN_NONE). */
static bool reclaim_batch_locked(void)
{
    ASSERT(bench.state == RUN_RECLAIM);

/* @end */
/* @if from=vector-capacity */
    release_held(RELEASE_BATCH);
    if ( bench.nr_held )
        return false;
/* @end */
/* @if from=sysctl-runs */
    bench.state = RUN_NONE;
    ipibench_live = false;

    return true;
}

static void cf_check bench_reclaim(void *unused)
{
    spin_lock(&bench_lock);
    if ( bench.state == RUN_RECLAIM && !reclaim_batch_locked() )
        tasklet_schedule(&bench_reclaim_tasklet);
    spin_unlock(&bench_lock);
}

/* @end */
/* @if from=run-expiry */
/* When the live run (RUN_IDLE) expires: idle too long, or too old. */
static s_time_t run_expiry_locked(void)
{
    return min(bench.last + IDLE_TIMEOUT, bench.born + RUN_LIFETIME);
}

/* Whether the live run has outlived RUN_LIFETIME. */
static bool too_old_locked(void)
{
    return (bench.state == RUN_IDLE || bench.state == RUN_CHUNK) &&
           NOW() >= bench.born + RUN_LIFETIME;
}

static bool idle_expired_locked(void)
{
    return bench.state == RUN_IDLE && NOW() >= run_expiry_locked();
}

/*
 * End the live run RUN_IDLE if it has expired: with -ETIME for its owner
 * once it has outlived RUN_LIFETIME, else (its owner is gone) with
 * -ESRCH.  True if it ended.
 */
static bool expire_locked(void)
{
    if ( !idle_expired_locked() )
        return false;

    if ( too_old_locked() )
        end_run_locked(-ETIME);
    else
    {
        end_run_locked(-ESRCH);
        bench.ended_id = 0;
    }

    return true;
}

/* RUN_IDLE past RUN_LIFETIME: end it now, -ETIME for its owner. */
static void end_if_too_old_locked(void)
{
    if ( bench.state == RUN_IDLE && too_old_locked() )
        end_run_locked(-ETIME);
}

/* @end */
/* @if from=ipibench-hotplug */
/* Free everything the run holds now, not in batches (a CPU goes down). */
static void release_all_locked(void)
{
/* @end */
/* @if from=vector-capacity */
    release_held(UINT_MAX);
/* @end */
/* @if from=ipibench-hotplug */
    if ( bench.state == RUN_RECLAIM )
        reclaim_batch_locked();
}

/* @end */
/* @if from=run-expiry */
/*
 * The owner is gone (idle for IDLE_TIMEOUT: -ESRCH), or the run is over
 * RUN_LIFETIME (-ETIME, whatever its owner does).
 */
static void cf_check bench_idle_timeout(void *unused)
{
/* @end */
/* @if from=ipibench-hotplug */
    /*
     * While CPUs go up or down the owner may be unable to call (an offline
     * took up to 5.9 s under emulation): that is not idleness, and the
     * CPU notifier may be changing the run.  The timer runs on CPU 0,
     * where the hotplug itself runs and handles softirqs while it waits:
     * get_cpu_maps() succeeds there for the hotplug (the write owner), so
     * cpu_in_hotplug_context() is checked too.  The idle time restarts,
     * here and when the hotplug ends (cpu_callback()), and the timer looks
     * again shortly; the CPU notifier ends a run whose CPU went away with
     * -ENXIO for its owner.
     */
    if ( cpu_in_hotplug_context() || !get_cpu_maps() )
    {
        spin_lock(&bench_lock);
        if ( bench.state == RUN_IDLE )
        {
            bench.last = NOW();
            set_timer(&bench_idle_timer, NOW() + HOTPLUG_RETRY);
        }
        else if ( bench.state == RUN_CHUNK )
            set_timer(&bench_idle_timer, NOW() + HOTPLUG_RETRY);
        spin_unlock(&bench_lock);
        return;
    }

/* @end */
/* @if from=run-expiry */
    spin_lock(&bench_lock);
    if ( bench.state == RUN_CHUNK && too_old_locked() )
        /* The chunk (a few ms at most) sees it and ends the run. */
        write_atomic(&bench.abort, -ETIME);
    else if ( !expire_locked() && bench.state == RUN_IDLE )
        set_timer(&bench_idle_timer, run_expiry_locked());
    spin_unlock(&bench_lock);
/* @end */
/* @if from=ipibench-hotplug */
    put_cpu_maps();
/* @end */
/* @if from=run-expiry */
}

/* @end */
/* @if from=ipibench-hotplug */
/* Whether a CPU going down ends the live run. */
static bool run_needs_cpu_locked(unsigned int cpu)
{
    if ( (bench.state != RUN_IDLE && bench.state != RUN_CHUNK) ||
         bench.phase == PHASE_DONE )
        return false;

/* @end */
/* @if from=vector-capacity */
    /*
     * vector_capacity: any CPU.  The IRQs of the CPU going down move to
     * other CPUs, and their vectors to those CPUs' free ones: the count
     * would be wrong, and the held vectors are what those IRQs need.
     */
    return cpumask_test_cpu(cpu, &bench.used) || bench.nr_held;
/* @end */
/* @if from=ipibench-hotplug until=vector-capacity */
    return cpumask_test_cpu(cpu, &bench.used);
/* @end */
/* @if from=ipibench-hotplug */
}

static int cf_check cpu_callback(struct notifier_block *nfb,
                                 unsigned long action, void *hcpu)
{
    unsigned int cpu = (unsigned long)hcpu;

    /*
     * CPU_DOWN_PREPARE, CPU_DEAD and the ends of a hotplug concern a run.
     * They are called from cpu_down() and cpu_up() with interrupts
     * enabled, as every other user of bench_lock takes it.  CPU_STARTING
     * and CPU_DYING (in stop_machine) run with interrupts disabled: taking
     * the lock there is what check_lock() refuses, so every other action
     * returns before it.  All of them run with the CPU maps write-locked:
     * no chunk runs meanwhile (bench_chunk() holds them for reading).
     */
    switch ( action )
    {
    case CPU_DOWN_PREPARE:
    case CPU_DEAD:
    case CPU_DOWN_FAILED:
    case CPU_ONLINE:
    case CPU_UP_CANCELED:
        break;
    default:
        return NOTIFY_DONE;
    }

    spin_lock(&bench_lock);
    switch ( action )
    {
    case CPU_DOWN_PREPARE:
        if ( run_needs_cpu_locked(cpu) )
        {
            if ( bench.state == RUN_CHUNK )
                /* The chunk is queued, not running: it ends the run. */
                write_atomic(&bench.abort, -ENXIO);
            else
                end_run_locked(-ENXIO);
        }
        /*
         * Now, not in the reclaim tasklet: fixup_irqs() runs before any
         * tasklet could, and needs free vectors on the CPUs that stay for
         * the IRQs of this one.
         */
        release_all_locked();
        break;

    case CPU_DEAD:
        /*
         * A chunk that had not run on the CPU never will: the tasklet of
         * continue_hypercall_on_cpu() skips it on any other CPU.  (A chunk
         * is queued with the CPU maps held, before CPU_DOWN_PREPARE, and so
         * runs before the CPU goes: this does not happen.)
         */
        if ( bench.state == RUN_CHUNK && bench.cpu == cpu )
            end_run_locked(-ENXIO);
        fallthrough;
    default:
        /* The hotplug is over: the owner's idle time starts again. */
        if ( bench.state == RUN_IDLE )
        {
            bench.last = NOW();
            set_timer(&bench_idle_timer, run_expiry_locked());
        }
        break;
    }
    spin_unlock(&bench_lock);

    return NOTIFY_DONE;
}

static struct notifier_block cpu_nfb = {
    .notifier_call = cpu_callback,
};

/* @end */
/* @if from=sysctl-flush */
static int __init cf_check ipibench_init(void)
{
    BUILD_BUG_ON(XEN_SYSCTL_IPIBENCH_SENDER_physical !=
                 IPIBENCH_SENDER_x2apic_phys);
    BUILD_BUG_ON(XEN_SYSCTL_IPIBENCH_SENDER_cluster !=
                 IPIBENCH_SENDER_x2apic_cluster);

/* @end */
/* @if from=idle-timeout */
    if ( !opt_idle_timeout || opt_idle_timeout > IDLE_TIMEOUT_MAX )
    {
        printk(XENLOG_WARNING
               "ipibench: ipibench-idle-timeout=%u out of 1..%u, using %u\n",
               opt_idle_timeout, IDLE_TIMEOUT_MAX, IDLE_TIMEOUT_DEFAULT);
        opt_idle_timeout = IDLE_TIMEOUT_DEFAULT;
    }
    else if ( opt_idle_timeout != IDLE_TIMEOUT_DEFAULT )
        printk(XENLOG_INFO "ipibench: runs idle for %u s are abandoned\n",
               opt_idle_timeout);
/* @end */
/* @if from=run-lifetime */
    if ( !opt_run_lifetime || opt_run_lifetime > RUN_LIFETIME_MAX )
    {
        printk(XENLOG_WARNING
               "ipibench: ipibench-run-lifetime=%u out of 1..%u, using %u\n",
               opt_run_lifetime, RUN_LIFETIME_MAX, RUN_LIFETIME_DEFAULT);
        opt_run_lifetime = RUN_LIFETIME_DEFAULT;
    }
    else if ( opt_run_lifetime != RUN_LIFETIME_DEFAULT )
        printk(XENLOG_INFO "ipibench: runs live at most %u s\n",
               opt_run_lifetime);
/* @end */
/* @if from=run-expiry */
    init_timer(&bench_idle_timer, bench_idle_timeout, NULL, 0);
/* @end */
/* @if from=ipibench-hotplug */
    register_cpu_notifier(&cpu_nfb);
/* @end */
/* @if from=run-expiry */

/* @end */
/* @if from=sysctl-flush */
    return 0;
}
__initcall(ipibench_init);

/* @end */
/* @if from=sysctl-runs */
/* ---- sysctl ---------------------------------------------------------- */

/* @end */
/* @if from=sysctl-flush */
static int alloc_buffers(void)
{
    if ( !bench.samples )
        bench.samples = xzalloc_array(xen_sysctl_ipibench_sample_t,
                                      MAX_SAMPLES);
    if ( !bench.irqs )
        bench.irqs = xzalloc_array(uint64_t, nr_cpu_ids);
    if ( !bench.ipis )
        bench.ipis = xzalloc_array(uint64_t, nr_cpu_ids);
/* @end */
/* @if from=vector-capacity */
    if ( !bench.vectors )
        bench.vectors = xzalloc_array(uint32_t, nr_cpu_ids);
    if ( !bench.held )
        bench.held = xzalloc_array(int, nr_irqs);
/* @end */
/* @if from=ipi-mask */
    if ( !bench.acks )
        bench.acks = xzalloc_array(struct bench_ack, nr_cpu_ids);
/* @end */
/* @if from=irq-delivery */
    if ( !bench.dev_irqs )
        bench.dev_irqs = xzalloc_array(uint64_t, nr_cpu_ids);
/* @end */
/* @if from=sysctl-flush */

/* @end */
/* @if from=vector-capacity */
    return bench.samples && bench.irqs && bench.ipis && bench.vectors &&
/* @end */
/* @if from=irq-delivery */
           bench.held && bench.acks && bench.dev_irqs ? 0 : -ENOMEM;
/* @end */
/* @if from=vector-capacity until=irq-delivery */
           bench.held && bench.acks ? 0 : -ENOMEM;
/* @end */
/* @if from=ipi-mask until=vector-capacity */
    return bench.samples && bench.irqs && bench.ipis && bench.acks
           ? 0 : -ENOMEM;
/* @end */
/* @if from=sysctl-flush until=ipi-mask */
    return bench.samples && bench.irqs && bench.ipis ? 0 : -ENOMEM;
/* @end */
/* @if from=sysctl-flush */
}

static int copy_mask(const struct xen_sysctl_ipibench *op, cpumask_t *mask)
{
    unsigned int bytes = DIV_ROUND_UP(op->mask.nr_bits, 8), i;
    uint8_t buf[DIV_ROUND_UP(XEN_SYSCTL_IPIBENCH_MAX_CPUS, 8)];

    cpumask_clear(mask);
    if ( op->mask.nr_bits > XEN_SYSCTL_IPIBENCH_MAX_CPUS )
        return -EINVAL;
    if ( bytes && copy_from_guest(buf, op->mask.bitmap, bytes) )
        return -EFAULT;

    for ( i = 0; i < op->mask.nr_bits; i++ )
    {
        if ( !(buf[i / 8] & (1U << (i % 8))) )
            continue;
        if ( i >= nr_cpu_ids || !cpu_online(i) )
            return -EINVAL;
        cpumask_set_cpu(i, mask);
    }

    return 0;
}

/* @end */
/* @if from=sysctl-runs */
static bool online(unsigned int cpu)
{
    return cpu < nr_cpu_ids && cpu_online(cpu);
}

/* @end */
/* @if from=bench-vector */
/*
 * Take the benchmark's IPI vector (starts are serialised by sysctl_lock).
 *
 * It comes from the high-priority pool (0xf1-0xf8), in the priority class
 * of the system IPIs (0xf9-0xff) it is measured against.  The local APIC
 * holds off a vector while one of its class or above is in service, and
 * Xen defers the EOI of a guest-bound level interrupt until the guest has
 * handled it: a dynamic vector (0x20-0xef) would then wait behind guests,
 * which no system IPI ever does.  The pool has 8 vectors shared with the
 * serial console, posted interrupts, thermal and CMCI, so it is taken at
 * the first run that needs it, not at boot, never freed (an IPI may still
 * be in flight), and a run that cannot get one fails with -ENOSPC.
 */
static int get_bench_vector(void)
{
    int vector;

    if ( bench_vector )
        return 0;

    vector = try_alloc_hipriority_vector();
    if ( vector < 0 )
        return vector;
    set_direct_apic_vector(vector, bench_ipi_interrupt);
    /* The handler is in place before any CPU may be sent the vector. */
    smp_wmb();
    bench_vector = vector;

    return 0;
}

/* @end */
/* @if from=sysctl-runs */
/* Validate a start and set the run up (state RUN_NONE, under sysctl_lock). */
static int run_setup(const struct xen_sysctl_ipibench *op)
{
    unsigned int dests = 0;
/* @end */
/* @if from=sysctl-flush */
    int rc;
/* @end */
/* @if from=sysctl-runs */

    if ( op->start || !op->iterations || op->iterations > MAX_ITERATIONS ||
/* @end */
/* @if from=bench-vector */
         !online(op->cpu) || (op->vector && op->vector != bench_vector) )
/* @end */
/* @if from=sysctl-runs until=bench-vector */
         !online(op->cpu) )
/* @end */
/* @if from=sysctl-runs */
        return -EINVAL;
/* @end */
/* @if from=sysctl-flush */
    if ( op->sender )
    {
        /* Only these send their IPIs through send_IPI_mask(). */
        if ( op->op != XEN_SYSCTL_IPIBENCH_OP_flush_all &&
             op->op != XEN_SYSCTL_IPIBENCH_OP_flush_mask &&
             op->op != XEN_SYSCTL_IPIBENCH_OP_ipi_mask )
            return -EINVAL;
        rc = x2apic_send_IPI_mask_available(op->sender);
        if ( rc )
            return rc;
    }
/* @end */
/* @if from=vector-capacity */
    if ( (op->flags & XEN_SYSCTL_IPIBENCH_F_LOOP) &&
/* @end */
/* @if from=irq-delivery */
         (op->op == XEN_SYSCTL_IPIBENCH_OP_vector_capacity ||
          op->op == XEN_SYSCTL_IPIBENCH_OP_irq_delivery) )
/* @end */
/* @if from=vector-capacity until=irq-delivery */
         op->op == XEN_SYSCTL_IPIBENCH_OP_vector_capacity )
/* @end */
/* @if from=vector-capacity */
        return -EINVAL;
/* @end */
/* @if from=sysctl-runs until=loop-timing */
    if ( op->flags & XEN_SYSCTL_IPIBENCH_F_LOOP )
        return -EOPNOTSUPP;
/* @end */
/* @if from=sysctl-flush */

    rc = copy_mask(op, &bench.mask);
    if ( rc )
        return rc;
    cpumask_andnot(&bench.targets, &bench.mask, cpumask_of(op->cpu));
/* @end */
/* @if from=ipibench-hotplug */
    cpumask_copy(&bench.used, &bench.mask);
    cpumask_set_cpu(op->cpu, &bench.used);
/* @end */
/* @if from=sysctl-runs */

    switch ( op->op )
    {
/* @end */
/* @if from=sysctl-flush */
    case XEN_SYSCTL_IPIBENCH_OP_flush_all:
        /* Its destinations are whatever CPUs are online at each call. */
/* @end */
/* @if from=ipibench-hotplug */
        cpumask_copy(&bench.used, cpumask_of(op->cpu));
/* @end */
/* @if from=sysctl-flush */
        dests = num_online_cpus() - 1;
        break;

    case XEN_SYSCTL_IPIBENCH_OP_flush_mask:
/* @end */
/* @if from=ipi-mask */
    case XEN_SYSCTL_IPIBENCH_OP_ipi_mask:
/* @end */
/* @if from=sysctl-flush */
        if ( cpumask_empty(&bench.targets) )
            return -EINVAL;
        dests = cpumask_weight(&bench.targets);
        break;

/* @end */
/* @if from=pingpong */
    case XEN_SYSCTL_IPIBENCH_OP_pingpong:
        if ( !online(op->peer) || op->peer == op->cpu )
            return -EINVAL;
        cpumask_set_cpu(op->peer, &bench.used);
        dests = 2;
        break;

/* @end */
/* @if from=vector-capacity */
    case XEN_SYSCTL_IPIBENCH_OP_vector_capacity:
        if ( op->iterations != 1 || cpumask_empty(&bench.mask) )
            return -EINVAL;
        break;

/* @end */
/* @if from=irq-delivery */
    case XEN_SYSCTL_IPIBENCH_OP_irq_delivery:
        if ( cpumask_empty(&bench.mask) )
            return -EINVAL;
        dests = 1;
        break;

/* @end */
/* @if from=sysctl-runs */
    default:
        return -EINVAL;
    }

/* @end */
/* @if from=bench-vector */
    if ( op->op == XEN_SYSCTL_IPIBENCH_OP_ipi_mask ||
         op->op == XEN_SYSCTL_IPIBENCH_OP_pingpong )
    {
        rc = get_bench_vector();
        if ( rc )
            return rc;
    }

/* @end */
/* @if from=sysctl-runs */
    bench.op = op->op;
    bench.flags = op->flags;
    bench.sender = op->sender;
    bench.cpu = op->cpu;
/* @end */
/* @if from=pingpong */
    bench.peer = op->peer;
/* @end */
/* @if from=sysctl-runs */
    bench.iterations = op->iterations;
    bench.vector = op->vector;
    bench.mask_bits = op->mask.nr_bits;
    bench.dests = dests;
/* @end */
/* @if from=loop-timing */
    bench.loop_calls = 1;
/* @end */
/* @if from=sysctl-runs */
    bench.pos = 0;
    bench.phase = PHASE_RUN;
/* @end */
/* @if from=ipi-mask */
    bench.inflight = false;
/* @end */
/* @if from=vector-capacity */
    bench.nr_held = 0;
    cpumask_copy(&bench.capmask, &bench.mask);
    bench.free_descs = 0;
/* @end */
/* @if from=sysctl-runs */
    bench.status = 0;
    bench.result = 0;
    bench.abort = 0;
/* @end */
/* @if from=vector-capacity */
    memset(bench.vectors, 0, sizeof(*bench.vectors) * nr_cpu_ids);
/* @end */
/* @if from=irq-delivery */

    if ( bench.op == XEN_SYSCTL_IPIBENCH_OP_irq_delivery )
    {
        /* Its IRQ's set_affinity hook: remapped, an IRTE update. */
        rc = ipibench_dev_bind(&bench.mask);
        if ( rc )
            return rc;
    }
/* @end */
/* @if from=pingpong */

    if ( bench.op == XEN_SYSCTL_IPIBENCH_OP_pingpong )
    {
        pingpong.cpu = bench.cpu;
        pingpong.peer = bench.peer;
        smp_wmb();
        write_atomic(&pingpong.active, true);
    }
/* @end */
/* @if from=sysctl-runs */

    return 0;
}

/* What a caller whose run_id is not the live run is told. */
static int not_live(const struct xen_sysctl_ipibench *op)
{
    return op->run_id && op->run_id == bench.ended_id ? bench.ended_rc
                                                       : -ESRCH;
}

static int bench_start(struct xen_sysctl_ipibench *op)
{
    int rc;

    spin_lock(&bench_lock);
/* @end */
/* @if from=run-expiry */
    /* Another caller's run, unless it has expired (the timer is late). */
    if ( bench.state == RUN_CHUNK ||
         (bench.state == RUN_IDLE && !expire_locked()) )
/* @end */
/* @if from=sysctl-runs until=run-expiry */
    /* Another caller's run. */
    if ( bench.state == RUN_CHUNK || bench.state == RUN_IDLE )
/* @end */
/* @if from=sysctl-runs */
    {
        spin_unlock(&bench_lock);
        return -EBUSY;
    }
    if ( bench.state == RUN_RECLAIM && !reclaim_batch_locked() )
    {
        /* Go on releasing, a batch per call, without sysctl_lock held. */
        spin_unlock(&bench_lock);
        return -ERESTART;
    }
    spin_unlock(&bench_lock);

    /*
     * RUN_NONE: nothing else touches the run until it is RUN_CHUNK.  The
     * CPU maps are held (bench_run()): the CPUs online stay as
     * run_setup() finds them until the chunk is queued.
     */
    bench.ended_id = 0;
    rc = run_setup(op);
    if ( rc )
    {
        spin_lock(&bench_lock);
        release_run_locked();
/* @end */
/* @if from=vector-capacity */
        if ( bench.nr_held )
        {
            bench.state = RUN_RECLAIM;
            tasklet_schedule(&bench_reclaim_tasklet);
        }
/* @end */
/* @if from=sysctl-runs */
        spin_unlock(&bench_lock);
        return rc;
    }

    spin_lock(&bench_lock);
    bench.run_id = bench.next_id++;
    if ( !bench.next_id )
        bench.next_id = 1;
    op->run_id = bench.run_id;
/* @end */
/* @if from=run-expiry */
    bench.born = NOW();
/* @end */
/* @if from=sysctl-runs */
    /* The counters count from here to the state's return to RUN_NONE. */
    ipibench_live = true;
    bench.state = RUN_CHUNK;
/* @end */
/* @if from=run-expiry */
    /* For the lifetime, whatever the chunks do. */
    set_timer(&bench_idle_timer, bench.born + RUN_LIFETIME);
/* @end */
/* @if from=sysctl-runs */
    spin_unlock(&bench_lock);

    return 0;
}

static int bench_continue(const struct xen_sysctl_ipibench *op)
{
    int rc = 0;

    spin_lock(&bench_lock);
/* @end */
/* @if from=run-expiry */
    if ( op->run_id == bench.run_id )
        end_if_too_old_locked();
/* @end */
/* @if from=sysctl-runs */
    if ( (bench.state != RUN_IDLE && bench.state != RUN_CHUNK) ||
         op->run_id != bench.run_id )
        rc = not_live(op);
    else if ( bench.state == RUN_CHUNK )
        rc = -EBUSY;
    else if ( op->op != bench.op || op->cpu != bench.cpu ||
/* @end */
/* @if from=pingpong */
              op->peer != bench.peer || op->start != bench.pos ||
/* @end */
/* @if from=sysctl-runs until=pingpong */
              op->start != bench.pos ||
/* @end */
/* @if from=sysctl-runs */
              op->iterations != bench.iterations ||
              op->sender != bench.sender || op->vector != bench.vector ||
              op->mask.nr_bits != bench.mask_bits ||
              bench.phase == PHASE_DONE ||
              (op->flags ^ bench.flags) & ~XEN_SYSCTL_IPIBENCH_F_CONTINUE )
        rc = -EINVAL;
    else
        bench.state = RUN_CHUNK;
    spin_unlock(&bench_lock);

    return rc;
}

static int bench_run(struct xen_sysctl_ipibench *op)
{
    int rc;

/* @end */
/* @if from=ipibench-hotplug */
    /*
     * The CPU maps are held from the checks until the chunk is queued: a
     * CPU the run uses stays online meanwhile, and its CPU_DOWN_PREPARE
     * comes after: the chunk is queued on its CPU before the tasklets of
     * stop_machine, runs before the CPU goes, and ends the run with
     * -ENXIO (it is never skipped, which would end the call with
     * -EINVAL).  While a CPU goes up or down the call is restarted: a CPU
     * still online during its offline would pass the checks, and the run
     * would wait for IPIs it never gets.
     */
/* @end */
/* @if from=sysctl-runs until=ipibench-hotplug */
    /*
     * The CPU maps are held from the checks until the chunk is queued: a
     * CPU the run uses stays online meanwhile, and the chunk is queued on
     * its CPU before the tasklets of stop_machine: it runs before the CPU
     * goes (it is never skipped, which would end the call with -EINVAL).
     * While a CPU goes up or down the call is restarted: a CPU still
     * online during its offline would pass the checks, and the run would
     * wait for IPIs it never gets.
     */
/* @end */
/* @if from=sysctl-runs */
    if ( !get_cpu_maps() )
        return -ERESTART;

    if ( op->flags & XEN_SYSCTL_IPIBENCH_F_CONTINUE )
        rc = bench_continue(op);
    else
        rc = bench_start(op);

/* @end */
/* @if from=ipibench-hotplug */
    /* RUN_CHUNK: bench_chunk() (or the CPU notifier) leaves it. */
/* @end */
/* @if from=sysctl-runs until=ipibench-hotplug */
    /* RUN_CHUNK: bench_chunk() leaves it. */
/* @end */
/* @if from=sysctl-runs */
    if ( !rc )
    {
        rc = continue_hypercall_on_cpu(bench.cpu, bench_chunk, NULL);
        if ( rc )
        {
            spin_lock(&bench_lock);
            end_run_locked(rc == -EINVAL ? -ENXIO : rc);
            spin_unlock(&bench_lock);
            rc = bench.ended_rc;
        }
    }
    put_cpu_maps();

    return rc;
}

static int bench_fetch(struct xen_sysctl_ipibench *op)
{
/* @end */
/* @if from=sysctl-flush */
    unsigned int cpu, n;
/* @end */
/* @if from=sysctl-runs */
    int rc = 0;

    spin_lock(&bench_lock);
/* @end */
/* @if from=run-expiry */
    /* Fetching does not keep a run past its lifetime. */
    if ( op->run_id == bench.run_id )
        end_if_too_old_locked();
/* @end */
/* @if from=sysctl-runs */
    if ( bench.state == RUN_CHUNK && op->run_id == bench.run_id )
        rc = -EBUSY;
    else if ( bench.state != RUN_IDLE || op->run_id != bench.run_id )
        rc = not_live(op);
    spin_unlock(&bench_lock);
    if ( rc )
        return rc;

/* @end */
/* @if from=run-expiry */
    /*
     * RUN_IDLE: only this caller's next call (under sysctl_lock, like this
     * one) or the timer change the run.  The timer may end it meanwhile
     * (RUN_LIFETIME); what is copied here stays until the next start,
     * which sysctl_lock keeps out.
     */
/* @end */
/* @if from=sysctl-runs until=run-expiry */
    /*
     * RUN_IDLE: only this caller's next call (under sysctl_lock, like this
     * one) changes the run; what is copied here stays until the next
     * start, which sysctl_lock keeps out.
     */
/* @end */
/* @if from=sysctl-flush */
    n = min(bench.nr_samples, op->nr_samples);
    if ( n && copy_to_guest(op->samples, bench.samples, n) )
        return -EFAULT;

    for ( cpu = 0; cpu < min(op->nr_cpus, nr_cpu_ids); cpu++ )
    {
        xen_sysctl_ipibench_cpu_t c = {
            .irqs = cpumask_test_cpu(cpu, &bench.snap) ? bench.irqs[cpu] : 0,
            .ipis = cpumask_test_cpu(cpu, &bench.snap) ? bench.ipis[cpu] : 0,
/* @end */
/* @if from=irq-delivery */
            .dev_irqs = cpumask_test_cpu(cpu, &bench.snap)
                        ? bench.dev_irqs[cpu] : 0,
            .vectors = bench.vectors[cpu],
/* @end */
/* @if from=sysctl-flush */
        };

        if ( copy_to_guest_offset(op->cpus, cpu, &c, 1) )
            return -EFAULT;
    }

    op->nr_cpus = nr_cpu_ids;
/* @end */
/* @if from=sysctl-runs */
    op->done = bench.done;
/* @end */
/* @if from=sysctl-flush */
    op->icr_writes = bench.icr_writes;
    op->ipis_sent = bench.ipis_sent;
    op->ipis_received = bench.ipis_received;
    op->path = bench.path;
/* @end */
/* @if from=sysctl-runs */
    op->status = bench.status;
    op->result = bench.result;

    spin_lock(&bench_lock);
    if ( bench.state == RUN_IDLE && op->run_id == bench.run_id )
    {
/* @end */
/* @if from=run-expiry */
        bench.last = NOW();
/* @end */
/* @if from=sysctl-runs */
        if ( bench.phase == PHASE_DONE )
        {
            /* The last chunk is fetched: the run is over. */
            bench.run_id = 0;
            bench.state = RUN_NONE;
            ipibench_live = false;
        }
    }
    spin_unlock(&bench_lock);

    return 0;
}

/* @end */
static int bench_query(struct xen_sysctl_ipibench *op)
{
    xen_sysctl_ipibench_info_t info = {
        .version = XEN_SYSCTL_IPIBENCH_VERSION,
        .nr_cpu_ids = nr_cpu_ids,
        .online_cpus = num_online_cpus(),
        .present_cpus = num_present_cpus(),
        .disabled_cpus = disabled_cpus,
        .unaccounted_cpus = unaccounted_cpus,
        .shorthand_eligible = ipi_shorthand_allowed() &&
                              (park_offline_cpus ||
                               cpumask_equal(&cpu_online_map,
                                             &cpu_present_map)),
        .tsc_khz = cpu_khz,
/* @if from=bench-vector */
        .vector = bench_vector,
/* @end */
        .x2apic = x2apic_enabled,
/* @if from=sysctl-runs */
        .max_iterations = MAX_ITERATIONS,
/* @end */
/* @if from=sysctl-flush */
        .max_samples = MAX_SAMPLES,
/* @end */
/* @if from=run-expiry */
        .idle_timeout_ms = IDLE_TIMEOUT / MILLISECS(1),
/* @end */
/* @if from=sysctl-runs */
        .run_live = read_atomic(&bench.state) != RUN_NONE,
/* @end */
/* @if from=irq-delivery */
        .dev_sbdf = ipibench_dev_sbdf(),
        .dev_irte = ipibench_dev_irte(),
/* @end */
    };
    unsigned int cpu;

/* @if from=irq-delivery */
    ipibench_dev_msi_msg(&info.dev_msi_addr, &info.dev_msi_data);
/* @end */
    safe_strcpy(info.genapic, genapic.name);
    if ( copy_to_guest(op->info, &info, 1) )
        return -EFAULT;

    for ( cpu = 0; cpu < min(op->nr_cpus, nr_cpu_ids); cpu++ )
    {
        uint32_t apicid = cpu_physical_id(cpu);
        bool up = cpu_online(cpu);
        xen_sysctl_ipibench_cpu_t c = {
            .apic_id = apicid,
            .flags = up ? XEN_SYSCTL_IPIBENCH_CPU_ONLINE : 0,
            /* Counted while runs were live (ipibench_live), not since boot. */
            .irqs = up ? per_cpu(ipibench_counters, cpu).irqs : 0,
            .ipis = up ? per_cpu(ipibench_counters, cpu).ipis_received : 0,
/* @if from=irq-delivery */
            .dev_irqs = up ? per_cpu(ipibench_dev_irqs, cpu) : 0,
/* @end */
            .vectors = up ? irq_free_vectors(cpu) : 0,
        };

        if ( x2apic_enabled && apicid != BAD_APICID )
        {
            c.cluster = apicid >> 4;
            c.logical_id = (c.cluster << 16) | (1U << (apicid & 0xf));
        }
        if ( copy_to_guest_offset(op->cpus, cpu, &c, 1) )
            return -EFAULT;
    }
    op->nr_cpus = nr_cpu_ids;

    return 0;
}

/*
 * Whether every field and flag op->op neither reads nor writes is zero
 * (the table in public/ipibench.h): a later version may give them a
 * meaning, which a caller written for this one must not trigger.
 */
static bool unused_zero(const struct xen_sysctl_ipibench *op)
{
    unsigned int o = op->op;
    bool query = o == XEN_SYSCTL_IPIBENCH_OP_query;
    bool fetch = o == XEN_SYSCTL_IPIBENCH_OP_fetch;
    bool run = !query && !fetch;
    bool sends = o == XEN_SYSCTL_IPIBENCH_OP_flush_all ||
                 o == XEN_SYSCTL_IPIBENCH_OP_flush_mask ||
                 o == XEN_SYSCTL_IPIBENCH_OP_ipi_mask;
    bool pingpong = o == XEN_SYSCTL_IPIBENCH_OP_pingpong;
    bool masked = o == XEN_SYSCTL_IPIBENCH_OP_flush_mask ||
                  o == XEN_SYSCTL_IPIBENCH_OP_ipi_mask ||
                  o == XEN_SYSCTL_IPIBENCH_OP_vector_capacity ||
                  o == XEN_SYSCTL_IPIBENCH_OP_irq_delivery;
    bool vector = o == XEN_SYSCTL_IPIBENCH_OP_ipi_mask || pingpong;
    unsigned int flags = 0;

    if ( run )
        flags |= XEN_SYSCTL_IPIBENCH_F_CONTINUE;
    if ( sends )
        flags |= XEN_SYSCTL_IPIBENCH_F_NO_SHORTHAND;
    if ( sends || pingpong )
        flags |= XEN_SYSCTL_IPIBENCH_F_LOOP;

    if ( (op->flags & ~flags) || op->pad )
        return false;
    /* run_id: a start's output, every other call's input but a query's. */
    if ( query && op->run_id )
        return false;
    if ( !run && (op->cpu || op->iterations || op->start) )
        return false;
    if ( (!pingpong && op->peer) || (!vector && op->vector) ||
         (!sends && op->sender) )
        return false;
    if ( !masked &&
         (op->mask.nr_bits || !guest_handle_is_null(op->mask.bitmap)) )
        return false;
    if ( run && (op->nr_cpus || !guest_handle_is_null(op->cpus)) )
        return false;
    if ( !fetch && (op->nr_samples || !guest_handle_is_null(op->samples)) )
        return false;
    if ( !query && !guest_handle_is_null(op->info) )
        return false;
    /* A fetch's outputs. */
    if ( !fetch && (op->done || op->icr_writes || op->ipis_sent ||
                    op->ipis_received || op->path || op->status ||
                    op->result) )
        return false;

    return true;
}

int ipibench_sysctl(struct xen_sysctl_ipibench *op)
{
/* @if until=sysctl-runs */
    if ( op->op != XEN_SYSCTL_IPIBENCH_OP_query || !unused_zero(op) )
        return -EINVAL;

    return bench_query(op);
/* @end */
/* @if from=sysctl-flush */
    int rc;

/* @end */
/* @if from=irq-delivery */
    if ( op->op > XEN_SYSCTL_IPIBENCH_OP_irq_delivery ||
/* @end */
/* @if from=vector-capacity until=irq-delivery */
    if ( op->op > XEN_SYSCTL_IPIBENCH_OP_vector_capacity ||
/* @end */
/* @if from=pingpong until=vector-capacity */
    if ( op->op > XEN_SYSCTL_IPIBENCH_OP_pingpong ||
/* @end */
/* @if from=ipi-mask until=pingpong */
    if ( op->op > XEN_SYSCTL_IPIBENCH_OP_ipi_mask ||
/* @end */
/* @if from=sysctl-runs until=ipi-mask */
    if ( op->op > XEN_SYSCTL_IPIBENCH_OP_flush_mask ||
/* @end */
/* @if from=sysctl-runs */
         op->sender > XEN_SYSCTL_IPIBENCH_SENDER_cluster ||
         !unused_zero(op) )
        return -EINVAL;

    switch ( op->op )
    {
    case XEN_SYSCTL_IPIBENCH_OP_query:
        return bench_query(op);

    case XEN_SYSCTL_IPIBENCH_OP_fetch:
        return bench_fetch(op);
    }

/* @end */
/* @if from=sysctl-flush */
    rc = alloc_buffers();
    if ( rc )
        return rc;

/* @end */
/* @if from=sysctl-runs */
    return bench_run(op);
/* @end */
}

/*
 * Local variables:
 * mode: C
 * c-file-style: "BSD"
 * c-basic-offset: 4
 * tab-width: 4
 * indent-tabs-mode: nil
 * End:
 */
