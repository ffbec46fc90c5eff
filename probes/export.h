/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/export.h: `ipibench trace export`: xentrace files as Chrome's
 * Trace Event Format JSON (what Perfetto's UI opens; export_chrome.c) and
 * as CTF 1.8 (what babeltrace2 and Trace Compass read; export_ctf.c).
 * docs/tracing.md says what each track, slice, arrow, instant and counter
 * is.  Both read a trace in the merged reader's order (xt_merge), keep a
 * bounded state (per CPU, per vector, per vCPU) and stream their output.
 */
#ifndef IPIBENCH_EXPORT_H
#define IPIBENCH_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "probes/xtrace.h"

#define TR_EXPORT_MAX_FILES 64

/* What the export names beside the records: from a results.json beside the
 * trace (tr_export_meta_load()); any string may be NULL. */
struct tr_export_meta {
	char *results;		/* the results.json read, or NULL */
	char *host, *xen, *commit, *mode, *workload, *run;
	uint32_t tsc_khz;	/* its host.tsc_khz, 0 when absent */
};
/*
 * The results.json in TRACE's directory or the one above it (results.json
 * keeps traces in traces/), when there is one: its host's name, Xen version
 * and TSC kHz, the tool's commit, and the run's mode and the workload's
 * name of the workload whose "trace" names TRACE's file.  0 (*m filled,
 * maybe with nothing); 1 when the file is there but not read or not as the
 * schema says: *m empty and WARN one line naming it and the JSON path.
 */
int tr_export_meta_load(struct tr_export_meta *m, const char *trace, char *warn, size_t wlen);
void tr_export_meta_fini(struct tr_export_meta *m);

/* What one file's export did. */
struct tr_export_stats {
	uint64_t records;		/* records read, cpu_change headers aside */
	uint64_t events;		/* events written */
	uint64_t sends, recvs, flows, unmatched;	/* the IPI pairing's (trace ipi's) */
	uint64_t icr_writes, irqs, hvm_events, hvm_no_vcpu;
	double tsc_khz;			/* the TSC frequency used, 0: none (cycles) */
	const char *clock;		/* where it came from: "--tsc-khz", "apic:tsc_khz", "results.json", "none" */
	uint64_t t0;			/* the lowest TSC: time 0 */
	struct xt_anom an;		/* the reader's anomalies (and the pairing's) */
};

/* The clock of one file: TSC kHz by --tsc-khz (OPT_KHZ, 0: none), else the
 * file's apic:tsc_khz record (trace ipi's rule), else META's; the lowest
 * TSC; whether its exit reasons are SVM's (hvm.c's rule). */
struct tr_export_clock {
	double khz;
	const char *source;
	uint64_t t0;
	bool svm;
};
/* 0, or -1 out of memory. */
int tr_export_clock(struct tr_export_clock *c, const struct xt_file *f, double opt_khz,
		    const struct tr_export_meta *meta);
/* TSC as microseconds from c->t0 (cycles / 1000 without a frequency). */
double tr_export_us(const struct tr_export_clock *c, uint64_t tsc);

/*
 * The Chrome JSON: tr_chrome_begin() on an open stream, tr_chrome_file()
 * for each trace (file I of the export, its tracks apart from the other
 * files'), tr_chrome_end() closes it with the top-level "metadata".
 * Each returns 0, or -1 on a write error or out of memory.
 */
struct tr_chrome;
struct tr_chrome *tr_chrome_begin(FILE *out);
int tr_chrome_file(struct tr_chrome *c, const char *path, const struct xt_file *f,
		   const struct tr_export_meta *meta, double opt_khz, struct tr_export_stats *st);
int tr_chrome_end(struct tr_chrome *c);
/* Frees C (after tr_chrome_end(), or to give up). */
void tr_chrome_free(struct tr_chrome *c);

/*
 * The CTF 1.8 trace of F (PATH) into the existing directory DIR: its
 * `metadata` and a `stream_N` per pCPU (export_ctf.c says what is in
 * them).  0, or -1 out of memory or on a write error (errno set).
 */
int tr_ctf_write(const char *dir, const char *path, const struct xt_file *f,
		 const struct tr_export_meta *meta, double opt_khz, struct tr_export_stats *st);

#endif
