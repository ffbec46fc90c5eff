/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/trace.h: the analyses behind `ipibench trace` (summary, ipi, irq),
 * separate from the command line so tests and the fuzz target call them on
 * memory buffers.
 */
#ifndef IPIBENCH_TRACE_H
#define IPIBENCH_TRACE_H

#include <jansson.h>
#include <stdint.h>

#include "probes/cmap.h"
#include "probes/hist.h"
#include "probes/hvm.h"
#include "probes/xtrace.h"

#define TR_MAX_EVENT_IDS 65536	/* distinct event IDs kept per file */

struct tr_cpu {
	uint64_t records, chunks, lost, lost_events, wraps;
};

struct tr_summary {
	uint64_t bytes, records, chunks, lost;
	struct cmap ev;		/* event ID -> count */
	struct tr_cpu *cpu;	/* XT_MAX_CPUS entries */
	uint32_t ncpu;		/* highest CPU seen + 1 */
	struct xt_anom an;
	/* Filled when the file has HVM records (class TRC_HVM): probes/hvm.h. */
	bool has_hvm;
	struct tr_hvm hvm;
	/* How it was counted: in the summary's own file-order pass
	 * (tr_hvm_par, exact), or by the TSC-ordered pass (tr_hvm_run), and
	 * then why (hvm_tsc_why: forced, or what made file order inexact). */
	bool hvm_file_order;
	const char *hvm_tsc_why;
	/* What the run did: passes over the file (1; 2 when an HVM event ID
	 * made it start over with the file-order profile on, trace_an.c) and
	 * records handed to that profile (0 for a file without HVM records,
	 * which never has one). */
	unsigned passes;
	uint64_t hvm_fed;
};

/* tr_summary_run_with() with the defaults and IPIBENCH_TRACE_HVM
 * (tr_hvm_env); -1 for a file it refuses, or that variable's bad value. */
int tr_summary_run(struct tr_summary *s, const struct xt_file *f);

/*
 * IPIBENCH_TRACE_HVM, a developer's switch for the HVM profile's pass:
 * unset, empty or "auto" TR_HVM_AUTO; "tsc" TR_HVM_TSC (the TSC-ordered
 * pass, for the tests that compare the two); "why" TR_HVM_AUTO, and
 * tr_summary_run() says on stderr which pass counted it.  Anything else:
 * -1, with one line on stderr naming the variable and its value.
 */
int tr_hvm_env(int *pass, bool *why);

/*
 * How tr_summary_run_with() shares out the work (tr_summary_run(): the
 * defaults).  Files of at least min_bytes are counted by `threads` workers
 * (0: the online CPUs, at most TR_MAX_THREADS), a batch of `batch` chunks at
 * a time (0: TR_PAR_BATCH), each CPU's chunks by one worker; the results are
 * the sequential reader's to the last message (trace_an.c says why).
 */
#define TR_MAX_THREADS 4
#define TR_PAR_BATCH 4096
#define TR_PAR_MIN_BYTES (16u << 20)
/* Files of at most map_max bytes (0: TR_MAP_MAX_BYTES) are read
 * sequentially from their mapping; larger ones, so that memory stays
 * flat, by the workers through read buffers of 256 KiB, and sequentially
 * through a window of `window` bytes (0: TR_WINDOW_BYTES) of the mapping
 * (trace_an.c, struct view, says why each). */
#define TR_MAP_MAX_BYTES TR_PAR_MIN_BYTES
#define TR_WINDOW_BYTES (1u << 20)
struct tr_par {
	unsigned threads;
	uint64_t min_bytes;
	unsigned batch;
	uint64_t map_max;
	uint64_t window;
	/* The HVM profile: TR_HVM_AUTO counts it in the file-order pass where
	 * that is exact, else the TSC-ordered pass; TR_HVM_TSC always the
	 * latter (tr_summary_run(): from tr_hvm_env()). */
	int hvm_pass;
};
#define TR_HVM_AUTO 0
#define TR_HVM_TSC 1
int tr_summary_run_with(struct tr_summary *s, const struct xt_file *f, const struct tr_par *par);
void tr_summary_fini(struct tr_summary *s);

/* One row per event name (IDs sharing a name are merged), sorted by name
 * as the seed's profile is. */
struct tr_row {
	char name[48];
	uint64_t count;
	uint32_t ids[4];	/* first IDs with that name */
	uint32_t nids;
};
struct tr_row *tr_summary_rows(const struct tr_summary *s, size_t *n);

/* IPI operations (see `ipibench trace ipi --help`). */
enum { TR_PHYS, TR_LOGICAL, TR_SHORTHAND, TR_SELF, TR_NMODES };
extern const char *const tr_mode_name[TR_NMODES];

struct tr_mode {
	uint64_t ops;
	uint64_t icr_total;
	struct hist dests, icr, cost, lat;
};

/* A TSC frequency that is one (1 MHz to 100 GHz, in kHz): --tsc-khz and the
 * file's apic:tsc_khz record (outside: ignored, with an anomaly message
 * naming its offset). */
#define TR_TSC_KHZ_MIN 1000u
#define TR_TSC_KHZ_MAX 100000000u

struct tr_ipi {
	struct tr_mode mode[TR_NMODES];
	/* Sends grouped by (mode, vector, destinations): ops and ICR writes,
	 * so a flush to 39 CPUs is not averaged with single-CPU kicks.
	 * Key: TR_GROUP_KEY(); at most TR_MAX_GROUPS groups. */
	struct cmap groups;
	struct hist **lat_cpu;		/* per receiving CPU, allocated when seen */
	uint64_t recv, unmatched, icr_writes, mask_to_apicid[2];
	uint32_t tsc_khz;		/* from the file's apic:tsc_khz record, 0 if none */
	uint64_t records;		/* all records read, cpu_change headers aside */
	struct xt_anom an;
};
#define TR_GROUP_KEY(mode, vec, dests) \
	((uint32_t)(mode) << 28 | (uint32_t)(vec) << 20 | ((dests) > 0xfffff ? 0xfffff : (dests)))
#define TR_MAX_GROUPS 4096
int tr_ipi_run(struct tr_ipi *p, const struct xt_file *f);
/*
 * The pairing: the one rule by which a receive belongs to an IPI
 * operation, behind trace ipi's latencies (tr_ipi_run()), the export's
 * arrows (probes/export.h) and the report's timeline (tr_ipi_run_each()).
 *
 * Records are fed in the merged reader's order (TSC, then CPU).  An
 * operation is one CPU's apic:icr_write records up to and including its
 * next send record (apic:send_ipi_mask / _allbut / _self); one without ICR
 * writes (older recordings, SEND_IPI_SELF, a shorthand send traced without
 * one) is its send record alone.  It begins at its first record, with that
 * record's vector and TSC.  Each apic:ipi_recv belongs to the operation of
 * its vector that most recently began, on any CPU, at a TSC not later than
 * the receive's (none: unmatched).  An operation begun by a record without
 * a TSC gets no receive.
 *
 * The hypervisor writes the send record after the ICR writes, so a receive
 * that lands while its sender is still writing comes before the record
 * that gives its operation's mode: it is held until that record comes and
 * handed out then, matched (RECV is called from tr_pair_send()).  A
 * receive whose operation has no send record by the end (tr_pair_end()) is
 * unmatched.  Memory: at most one open operation per CPU and one closed
 * operation per vector are kept, and at most TR_PAIR_HOLD receives are
 * held (40 bytes each; a real operation's receives before its send record
 * are at most its destinations): a receive past that is unmatched, with a
 * message naming its offset.
 *
 * tr_ipi_kind(): TR_IPI_SEND (*mode, *vec), TR_IPI_RECV (*vec),
 * TR_IPI_SHORT (a send or receive with too few words: an anomaly) or
 * TR_IPI_OTHER.
 */
enum { TR_IPI_OTHER, TR_IPI_SEND, TR_IPI_RECV, TR_IPI_SHORT };
int tr_ipi_kind(const struct xt_rec *r, int *mode, uint32_t *vec);

#define TR_NO_SEND UINT64_MAX
#define TR_PAIR_HOLD 65536u
struct tr_op {
	uint64_t id;		/* from 0, in the order of the operations' first records */
	uint64_t send;		/* its send record's number (from 0, in the merged
				 * order), TR_NO_SEND while open */
	uint64_t first;		/* the TSC of its first record: its latencies' start */
	uint64_t last;		/* the TSC of its last ICR write (first, without one) */
	uint32_t cpu, vec;	/* vec: its first record's */
	uint32_t icr_seen;	/* its apic:icr_write records */
	uint64_t nrecv;		/* receives given to it so far */
	int mode;		/* its send record's TR_ mode; -1 while open */
	bool has_tsc;		/* its first record had a TSC */
	struct xt_rec rec;	/* its send record (once closed) */
};
struct tr_recv {
	uint64_t tsc, off;
	uint32_t cpu, vec;
	bool has_tsc;
};
/* A receive handed out: OP its operation (closed), NULL when unmatched. */
typedef void tr_pair_recv_fn(void *arg, const struct tr_recv *r, const struct tr_op *op);
/* A closed operation no receive can be given to any more. */
typedef void tr_pair_done_fn(void *arg, const struct tr_op *op);
struct tr_pair_op;
struct tr_pair_held;
struct tr_pair {
	tr_pair_recv_fn *recv;
	tr_pair_done_fn *done;	/* may be NULL */
	void *arg;
	struct xt_anom *an;	/* where a receive past TR_PAIR_HOLD is told */
	struct tr_pair_op *ops;	/* the operations kept (trace_an.c) */
	uint32_t capops;
	int32_t free_op;
	int32_t *open;		/* per CPU (XT_MAX_CPUS): its open operation, or -1 */
	int32_t cur[256];	/* per vector: the operation that began last, or -1 */
	struct tr_pair_held *held;
	uint32_t nheld, capheld;
	int32_t free_held;
	uint64_t ids, sends;
	uint64_t held_over;	/* receives unmatched for want of room */
	bool oom;		/* an allocation failed: the pairing is incomplete */
};
/* 0, or -1 (out of memory). */
int tr_pair_init(struct tr_pair *pp, tr_pair_recv_fn *recv, tr_pair_done_fn *done, void *arg,
		 struct xt_anom *an);
/* An apic:icr_write R: the id of the operation it is part of, or
 * TR_NO_SEND (fewer than two words, and no operation open on its CPU). */
uint64_t tr_pair_icr(struct tr_pair *pp, const struct xt_rec *r);
/* A send record R (TR_IPI_SEND, MODE, VEC): its operation, closed, after
 * the receives held for it are handed out; valid until the next call. */
const struct tr_op *tr_pair_send(struct tr_pair *pp, const struct xt_rec *r, int mode,
				 uint32_t vec);
/* A receive R of VEC: handed out now, or held for its send record. */
void tr_pair_recv(struct tr_pair *pp, const struct xt_rec *r, uint32_t vec);
/* The end of the records: held receives handed out unmatched, every closed
 * operation kept done. */
void tr_pair_end(struct tr_pair *pp);
void tr_pair_fini(struct tr_pair *pp);
/* An apic:tsc_khz record R into *KHZ while it is 0: taken when in range
 * (TR_TSC_KHZ_MIN..MAX), else an anomaly naming its offset.  Anything
 * else: nothing. */
void tr_tsc_khz_take(uint32_t *khz, const struct xt_rec *r, struct xt_anom *an);

void tr_ipi_fini(struct tr_ipi *p);

/*
 * The records behind tr_ipi_run()'s figures, one at a time, for a caller
 * that looks at single operations (the report's timeline): every ICR
 * write and send in the merged TSC order, and every receive when the
 * pairing (above) hands it out: a receive held for its operation's send
 * record comes just before that record's event.
 */
enum tr_ipi_kind { TR_EV_ICR_WRITE, TR_EV_SEND, TR_EV_RECV };
struct tr_ipi_ev {
	enum tr_ipi_kind kind;
	uint32_t cpu;
	bool has_tsc;
	uint64_t tsc, off;
	uint32_t vec;		/* send, receive; ICR write: the ICR low word's */
	int mode;		/* send: its TR_ mode; receive: its operation's; else -1 */
	uint64_t send;		/* send: its number; receive: its operation's send's, or
				 * TR_NO_SEND (unmatched); ICR write: TR_NO_SEND */
	uint64_t op;		/* the operation (every kind), or TR_NO_SEND */
	uint64_t op_tsc;	/* receive: its operation's first TSC (the latency's start) */
	uint32_t dests, icr;	/* send: destination CPUs, ICR writes */
	uint32_t dest;		/* ICR write: the destination field */
};
typedef void tr_ipi_fn(void *arg, const struct tr_ipi_ev *e);
/* tr_ipi_run() calling FN(ARG, ...) for each such record. */
int tr_ipi_run_each(struct tr_ipi *p, const struct xt_file *f, tr_ipi_fn *fn, void *arg);

/* Interrupts handled. */
struct tr_irq {
	uint64_t *irqs, *ipis;		/* per CPU, XT_MAX_CPUS entries */
	uint64_t *unmapped;		/* per CPU: vectors with no IRQ (bogus_vector) */
	uint32_t ncpu;
	struct cmap irq;		/* IRQ -> count, handling cycles */
	struct cmap vec;		/* IPI vector -> receives */
	uint64_t records, chunks;	/* records read (cpu_change aside), chunks */
	struct xt_anom an;
};
int tr_irq_run(struct tr_irq *q, const struct xt_file *f);
void tr_irq_fini(struct tr_irq *q);

json_t *tr_anom_json(const struct xt_anom *an);

#endif
