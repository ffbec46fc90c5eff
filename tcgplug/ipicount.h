/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tcgplug/: libipicount.so, a QEMU TCG plugin that counts, per vCPU, the
 * guest instructions, x2APIC MSR writes (ICR 0x830 and the others) and
 * HLT/PAUSE of the patched hypervisor's IPI paths, in windows bounded by
 * the hypervisor's own functions (no marker in the hypervisor: the runner
 * passes their addresses, read from xen-syms).  README.md says how.
 *
 * This header is the plugin's pure part (argument parsing, the window
 * logic, the output lines), with no QEMU type in it, so that the unit
 * tests link it without QEMU; ipicount.c is the QEMU glue.
 */
#ifndef TCGPLUG_IPICOUNT_H
#define TCGPLUG_IPICOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The windows, in the order of the output's kinds. */
enum ic_kind {
	IC_BENCH,   /* a chunk of a run on the sender: bench_chunk() */
	IC_SEND,    /* send_IPI_mask(), entry to its return, in a chunk */
	IC_WAIT,    /* the sender's wait (flush_area_mask(), wait_call()) */
	IC_HANDLER, /* a receiver's handler, while some vCPU is in a chunk */
	IC_IRQ,     /* do_IRQ(): an interrupt path, counted apart */
	IC_NKINDS
};
/* What is counted, in the order of the output's fields. */
enum ic_cnt {
	IC_INSNS,   /* guest instructions */
	IC_PAUSE,
	IC_HLT,
	IC_ICR,     /* wrmsr ECX=0x830 */
	IC_X2APIC,  /* wrmsr of another x2APIC MSR (0x800-0x8ff) */
	IC_MSR,     /* any other wrmsr */
	IC_NCNT
};
#define IC_MSR_ICR 0x830u

extern const char *const ic_kind_names[IC_NKINDS];
extern const char *const ic_cnt_names[IC_NCNT];

struct ic_counts { uint64_t v[IC_NCNT]; };

/* The plugin's arguments (-plugin libipicount.so,KEY=VALUE,...). */
#define IC_MAX_MARKS 16
struct ic_mark {
	uint64_t addr;
	enum ic_kind kind;
	/* async_handler=: the handler of an IPI that may still be in flight
	 * when its chunk ends (ipi_mask): counted while the run is open, not
	 * only during chunks */
	bool async;
};
struct ic_args {
	const char *out;          /* out=FILE: the records (appended) */
	uint64_t text_lo, text_hi;/* text=LO-HI: the hypervisor's code */
	uint64_t sysctl;          /* sysctl=ADDR: ipibench_sysctl() */
	struct ic_mark marks[IC_MAX_MARKS];
	unsigned int nr_marks;
	bool calls;               /* calls=all: every call of the boot (below) */
	uint64_t every;           /* every=N: calls=all's line each N closes */
	/* tcg=single: QEMU runs the vCPUs in turn on one thread (ipicount.c) */
	bool tcg_single;
};
/*
 * Under tcg=single the plugin tells the vCPUs apart by the hypervisor
 * stack they run on: Xen gives each CPU its own naturally aligned stack
 * block of 8 pages (STACK_ORDER 3: the primary and the IST stacks).
 */
#define IC_XEN_STACK_SHIFT 15
/*
 * Parse argv[0..argc) (QEMU's "KEY=VALUE" strings): out=, text=LO-HI,
 * sysctl=, and bench=, send=, wait=, handler=, async_handler=, irq=
 * (hexadecimal addresses, optional 0x; wait= and the handlers may
 * repeat), calls=all and every=N (decimal, 1-10000000, default
 * IC_CALLS_EVERY; only with calls=all), tcg=multi|single (default
 * multi).  With calls=all, sysctl= and bench= are not required.  0, or -1
 * with a one-line reason in err.
 */
int ic_parse_args(int argc, char **argv, struct ic_args *a, char *err, size_t errlen);
/* The kind of the window that opens at ADDR, or -1. */
int ic_mark_kind(const struct ic_args *a, uint64_t addr);
/* The mark at ADDR, or NULL. */
const struct ic_mark *ic_mark_find(const struct ic_args *a, uint64_t addr);

/* Per-vCPU window stack. */
#define IC_DEPTH 8
struct ic_win {
	enum ic_kind kind;
	uint64_t rsp;             /* at entry: where the return address is */
	struct ic_counts start, child;
	uint64_t irqs;            /* IC_IRQ windows inside this one */
};
struct ic_vcpu {
	struct ic_win stack[IC_DEPTH];
	unsigned int depth;
	uint64_t dropped;         /* windows never closed (stack unwound) */
};

/* A run's totals per kind (exclusive of the nested windows). */
struct ic_agg {
	uint64_t n, max, min, irqs;
	struct ic_counts sum;
};
struct ic_run {
	uint32_t seq, op, flags;
	struct ic_agg agg[IC_NKINDS];
	uint64_t icr_all;         /* every ICR write while a chunk ran */
	uint64_t dropped;
};

/*
 * Open a window of KIND at a marked entry, RSP and the vCPU's counts before
 * the entry instruction.  SEND and WAIT open only inside a BENCH window of
 * the same vCPU; HANDLER and IRQ only while BENCH_ACTIVE (some vCPU is in a
 * chunk; for an async handler, or a run is open: ipicount.c); a full stack
 * opens nothing.  True when opened.
 */
bool ic_open(struct ic_vcpu *v, enum ic_kind kind, uint64_t rsp,
	     const struct ic_counts *now, bool bench_active);
/*
 * A ret with RSP (before it pops) and the counts including the ret: the
 * window whose entry RSP it is closes; windows below that RSP (left by a
 * stack switch) are dropped.  A closed window's exclusive counts go into
 * RUN's aggregate of its kind (when RUN is not NULL) and its total into the
 * parent's children.  Returns the kind closed, or -1.
 */
int ic_ret(struct ic_vcpu *v, uint64_t rsp, const struct ic_counts *now,
	   struct ic_run *run);
bool ic_in_bench(const struct ic_vcpu *v);

/* A new run (sysctl start): zero its totals. */
void ic_run_start(struct ic_run *r, uint32_t seq, uint32_t op, uint32_t flags);
/*
 * One output line for RUN (ends with '\n'), at most len bytes: "run
 * seq=S op=O flags=F icr_all=N dropped=N" then per kind " KIND.n=N
 * KIND.max=N KIND.min=N KIND.irqs=N KIND.CNT=N...".  The line's length.
 */
int ic_format_run(const struct ic_run *r, char *buf, size_t len);

/*
 * The sysctl's start: op (offset 0) and flags (offset 4) of the request,
 * struct xen_sysctl_ipibench (tests/test_window.c holds them to the
 * interface's header).
 */
#define IC_SYSCTL_OP_OFF 0
#define IC_SYSCTL_FLAGS_OFF 4
#define IC_SYSCTL_F_CONTINUE (1u << 1)
#define IC_SYSCTL_OP_QUERY 0   /* ends the open run (a new workload) */
/* True when a request with OP and FLAGS starts a run (not query/fetch). */
bool ic_sysctl_starts_run(uint32_t op, uint32_t flags);

/*
 * calls=all: the cost of every call of the boot, not only of the bench's
 * runs, so that a build without the benchmark interface (CONFIG_IPIBENCH
 * off: no bench_chunk(), no ipibench_sysctl()) is counted too, by the same
 * windows.  Every send_IPI_mask(), wait (flush_area_mask()), handler and
 * do_IRQ() opens its window whatever runs; the closed windows are summed
 * in buckets keyed by kind, vector (send_IPI_mask()'s second argument; 0
 * for the others) and ICR writes per call: the window's own for a send, a
 * handler and an interrupt, the window's whole (its nested send's) for a
 * wait.  The sums of PAUSE, PAUSE^2 and insns*PAUSE let a reader fit
 * insns = base + k*PAUSE per bucket: a wait's count without its spin.
 */
#define IC_CALLS_EVERY 1000
#define IC_CALLS_MAX_BUCKETS 64
struct ic_bucket {
	uint32_t kind, vector, icr;
	uint64_t n, min, max, irqs;
	uint64_t insns, pause, pause2, insns_pause; /* sums; UINT64_MAX: saturated */
};
struct ic_calls {
	uint64_t seq;             /* lines formatted */
	uint64_t closed;          /* windows closed (in buckets or not) */
	uint64_t overflow;        /* closed calls with no room for their bucket */
	uint64_t dropped;         /* windows never closed */
	unsigned int nr;
	struct ic_bucket b[IC_CALLS_MAX_BUCKETS];
};
/* calls=all's open: any KIND, whatever runs (a full stack opens nothing). */
bool ic_calls_open(struct ic_vcpu *v, enum ic_kind kind, uint64_t rsp,
		   const struct ic_counts *now);
/*
 * calls=all's ret: ic_ret(), and the closed window's exclusive counts into
 * C's bucket (VECTORS[i]: the vector of the window at stack depth i).
 * Returns the kind closed, or -1; *new_bucket tells a bucket was created.
 */
int ic_calls_ret(struct ic_vcpu *v, const uint32_t *vectors, uint64_t rsp,
		 const struct ic_counts *now, struct ic_calls *c, bool *new_bucket);
/* One closed call into its bucket; false when no room (overflow). */
bool ic_calls_add(struct ic_calls *c, enum ic_kind kind, uint32_t vector, uint32_t icr,
		  const struct ic_counts *excl, uint64_t irqs, bool *new_bucket);
/*
 * One line for C (ends with '\n'): "calls seq=S closed=N overflow=N
 * dropped=N buckets=K", then per bucket " KIND/VECTOR/ICR=n,min,max,irqs,
 * insns,pause,pause2,insns_pause" (decimal).  Its length, or -1 when LEN
 * is short.  ic_parse_calls() reads it back (the runner), strictly: 0, or
 * -1 with a one-line reason in why.
 */
int ic_format_calls(const struct ic_calls *c, char *buf, size_t len);
int ic_parse_calls(const char *line, struct ic_calls *c, char *why, size_t whylen);

#endif
