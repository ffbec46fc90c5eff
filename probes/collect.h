/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/collect.h: record Xen trace buffers into a xentrace file while a
 * workload runs (the dom0 agent's side of tracing).
 *
 *   struct ipb_collect_opts o = { .path = "traces/mixed-r0-flush.xtrace",
 *                                 .evt_mask = 0x0080f000, .poll_ms = 10 };
 *   struct ipb_collector *c;
 *   if (ipb_collect_start(&c, &o, err, sizeof(err)))      -> err says why
 *   ... run the workload; with poll_ms == 0 call ipb_collect_poll(c)
 *       between workload chunks instead of the background thread ...
 *   ipb_collect_stop(c, &st, err, sizeof(err));            -> st: counts
 *
 * The file is what xentrace writes (cpu_change chunks), so xenalyze and
 * `ipibench trace` read it; it opens with an apic:tsc_khz record so
 * `trace ipi` can give ns.  Lost records (Xen's TRC_LOST_RECORDS, buffers
 * full) and ring wraps are counted in the stats, never hidden: a caller
 * should put st.lost_records in its results.  Xen reports a loss with the
 * next record it writes, so a loss from before start (buffers left full by
 * an earlier tracer that did not drain them) is counted in the first
 * window; TRC_LOST_RECORDS carries the TSC of the first lost record if the
 * difference matters.
 *
 * Needs libxenctrl, libxenforeignmemory, libxenevtchn (the static agent
 * links them); nothing else in libprobes.a refers to this file, so the host
 * ipibench binary does not pull it in.
 */
#ifndef IPIBENCH_COLLECT_H
#define IPIBENCH_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/tbuf.h"

struct ipb_collect_opts {
	const char *path;		/* output file (created/truncated) */
	unsigned long pages_per_cpu;	/* buffer size per CPU; 0: 32 pages (xentrace's
					 * default).  Xen fixes it at the first enable
					 * after boot: the size in effect is reported. */
	uint32_t evt_mask;		/* 0: all (TRC_ALL = 0x0ffff000) */
	const uint8_t *cpu_mask;	/* bitmap, CPU n = bit n%8 of byte n/8; NULL: all */
	size_t cpu_mask_bytes;
	unsigned poll_ms;		/* > 0: drain from a thread at least this often
					 * (and on Xen's VIRQ_TBUF); 0: caller polls */
	uint32_t tsc_khz;		/* 0: from xc_physinfo()'s cpu_khz */
	bool keep_old;			/* keep what is in the buffers before start */
	bool leave_enabled;		/* do not disable tracing at stop */
};

struct ipb_collect_stats {
	struct tb_stats tb;		/* bytes, windows, records, lost, wraps ... */
	uint32_t cpus;			/* CPUs with a buffer */
	uint32_t pages_per_cpu;		/* buffer size in effect */
	uint32_t tsc_khz;
};

struct ipb_collector;

int ipb_collect_start(struct ipb_collector **out, const struct ipb_collect_opts *o,
		      char *err, size_t errlen);
/* Drain all buffers now (safe while the thread runs).  0 or -1 + err. */
int ipb_collect_poll(struct ipb_collector *c, char *err, size_t errlen);
/* Counters so far. */
void ipb_collect_stats(struct ipb_collector *c, struct ipb_collect_stats *st);
/* Stop the thread, disable tracing, drain a last time, close the file and
 * free c.  st (may be NULL) gets the final counts.  0 or -1 + err. */
int ipb_collect_stop(struct ipb_collector *c, struct ipb_collect_stats *st,
		     char *err, size_t errlen);

#endif
