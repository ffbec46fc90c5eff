/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/report.h: the model of `ipibench report`, shared by its three
 * parts (as fio's stat.c computes one struct thread_stat and shows it as
 * normal, JSON or terse output):
 *
 *   report_model.c  report_compute(): everything a report shows, from the
 *                   dataset (blocks, per-mode figures, comparisons, the
 *                   seed reproduction, counter charts, sweeps, hyperfine
 *                   and perf stat) -- no formatting
 *   report_plots.c  render_plots(): the gnuplot data and scripts, drawn
 *   report.c        render_md() and render_json(): report.md and
 *                   report.json; cmd_report()
 *
 * The renderers only format the model.  Modes are never named here: they
 * are iterated from ipibench/modes.h (IPIBENCH_NMODES, ipibench_mode_name())
 * or taken from the groups.
 */
#ifndef IPIBENCH_ANALYSIS_REPORT_H
#define IPIBENCH_ANALYSIS_REPORT_H

#include <jansson.h>

#include "ipibench/modes.h"
#include "analysis/compare.h"
#include "analysis/internal.h"
#include "probes/hvm.h"
#include "probes/hvmref.h"

#define RP_MAXMODES 8	/* modes in one chart or sweep */
#define RP_MAXBOXES 16	/* hyperfine commands in one box plot */

/* One mode of a block: its group and the figures derived from it. */
struct rmode {
	struct group *g;
	const char *want;	/* the genapic of its mode (modes.h), NULL if none */
	bool genapic_wrong;	/* ran on another genapic than want */
	bool shorthand;		/* used the ALL-BUT-self shorthand */
	double ops, icr_per_op, ipis_per_op, vectors;	/* NAN: not counted */
	double *irqs;		/* per CPU, mean per run (g->nirqs values) */
	double irq_total, irq_min, irq_max, irq_peak;	/* peak: max / mean */
	size_t irq_imin, irq_imax;
};

/*
 * report_timeline.c: one operation of a flush or IPI workload's trace, on
 * a CPU axis.  The operations looked at are those of the trace's widest
 * send (the most destinations; of those, the (mode, vector) with the most
 * operations) whose every destination's receive is in the trace, paired
 * by operation (probes/trace.h, tr_ipi_run_each()); the one shown is the
 * lower median of their send-to-last-receive latencies (first ICR write
 * to last receive).  Times are ns from the trace's TSC frequency, else
 * TSC cycles.
 */
#define RP_TL_MAXOPS (1u << 20)	/* operations of a trace looked at */
#define RP_TL_MAXEV 4096	/* ICR writes, receives of the one shown */
/* The largest trace (bytes, unpacked) whose Chrome JSON export the report
 * writes beside the plot (timeline_export()); a larger one gets the
 * command that makes it.  The export is up to 11x its trace (an agent's
 * flushes, docs/measurements.md): at 32 MiB, some 350 MB, under the
 * 512 MiB a browser's JavaScript string holds (chrome://tracing reads the
 * file as one), and a few seconds of the report's time.
 * IPIBENCH_REPORT_EXPORT_MAX (bytes) sets another (the tests' small one);
 * any other value than a number of bytes is warned about and ignored. */
#define RP_TL_EXPORT_MAX (32ull << 20)
struct rtl_ev {
	uint32_t cpu;
	double t;		/* from the operation's first record, ns or cycles */
	uint32_t dest;		/* ICR write: its destination field */
};
struct rtl {
	const struct group *g;	/* its mode's group: g->trace names the trace */
	char *warn;		/* no plot: why, one line; NULL: drawn */
	uint64_t trace_bytes;	/* the trace's size (unpacked) */
	char *export_link;	/* PLOT.perfetto.json, written in the report's
				 * directory (timeline_export()); NULL: none */
	char *export_cmd;	/* the trace was over the limit: the command that
				 * would write it; NULL: not that */
	char *export_warn;	/* the export was refused: why, one line */
	bool ns;		/* times in ns (the trace's apic:tsc_khz), else cycles */
	uint32_t tsc_khz;
	size_t nops;		/* operations looked at */
	bool ops_capped;	/* the trace has more than RP_TL_MAXOPS */
	uint64_t op;		/* the one shown: its number in the trace */
	uint32_t sender, vec, dests, icr;
	const char *trmode;	/* tr_mode_name[] of its send */
	double median;		/* its send-to-last-receive latency (the lower median) */
	double min, max;	/* over the operations looked at */
	double send_t;		/* its send record */
	struct rtl_ev *icrw, *recv;
	size_t nicrw, nrecv;
	char *plot;
};

/* What a block has, deciding its tables and plots. */
struct block_has {
	bool samples, icr, vec, irq, runlevel, pairs;
};

/* A workload on a host with a CPU count: groups [first, end) of the sorted
 * dataset, one per mode. */
struct rblock {
	size_t first, end;
	struct group *g0;
	struct rmode *modes;	/* end - first */
	struct block_has has;
	size_t maxruns;		/* ok runs of its best-run mode */
	char *latency_plot, *irqs_plot;	/* plot names, NULL: none */
	struct rtl *tl;		/* per mode with a trace (flush and IPI workloads) */
	size_t ntl;
	struct cmp_modes cmp;	/* .done: has.runlevel and a mode with a sample */
	struct cmp_paired paired;	/* .done: has.pairs */
	char *label;		/* "WORKLOAD", "WORKLOAD @ BUILD" with several builds, then
				 * " (TOPOLOGY)" when a host name has several */
	const char *topo;	/* g0->topo when a host name has several, else NULL */
};

/* One mode of a workload on a host and CPU count, between builds: the
 * baseline build's group (the first build in name order), then the others. */
struct rbuild {
	struct group *g[RP_MAXMODES];	/* [0] the baseline build's */
	size_t ng;
	char *missing;		/* builds of the workload without this mode, or NULL */
	struct cmp_modes cmp;	/* .done: two builds or more ran it */
};

/* The seed reproduction for one block of the reference's workload type. */
struct rseed {
	struct rblock *b;
	struct group *g[IPIBENCH_NMODES];	/* by ipibench_mode_index() */
	double ref_ns[IPIBENCH_NMODES];		/* reference ns per call, NAN: none */
	double mean[IPIBENCH_NMODES], median[IPIBENCH_NMODES];	/* measured, per call */
	double icr[IPIBENCH_NMODES];		/* measured ICR writes per call */
	double ref_ratio, ratio_mean;		/* the claim's ratio of means */
	bool shorthand;		/* a mode of the claim took the shorthand */
	/* the ministat table beside the reference's (ref_ms) */
	bool ministat;		/* a ministat reference is shown */
	struct cmp_ms ms_ref, ms_meas;
	bool has_meas;		/* false: no run-level sample */
	enum rl_unit ms_unit;
	const char *ms_unit_text;
};

/*
 * A bar chart (ICR writes per operation, or vector capacity) over the
 * workloads of one host and CPU count.  ICR writes: a paired workload
 * (senders = A, B) is one row per send routine from counters_by_sender,
 * never its two routines pooled; a workload that wrote no ICR in any
 * mode, or a paired one without counters_by_sender, is no row (named in
 * left_out).
 */
struct rchart {
	bool icr;
	const char *host;
	long cpus;
	const char *modes[RP_MAXMODES];
	size_t nm;
	struct rchart_row {
		const char *workload;	/* the block's label */
		const char *sender;	/* the send routine (paired workloads), else NULL */
		char *label;		/* "WORKLOAD" or "WORKLOAD/SENDER" */
		double v[RP_MAXMODES];	/* NAN: missing */
	} *rows;
	size_t nrows;
	char *left_out;		/* "LABEL (why); ..." of the blocks left out; NULL: none */
	bool paired;		/* a row is one routine of a paired workload */
	char *plot;
};

/*
 * A workload against CPU count over every host and topology that ran it
 * (of one type, emulated or not): one series per (host, topology, mode),
 * per point its ICR writes per operation (measured, and what the layout
 * implies) and its time per operation.
 */
#define RP_MAXSERIES 24
struct rsweep_series {
	const char *host, *topo, *mode;	/* the groups' */
	size_t topo_i;		/* its (host, topology) among the sweep's, from 0 */
	char *label;		/* "mode, topology" (+ " @ host" when two hosts share it) */
};
struct rsweep_val {
	const struct group *g;	/* NULL: not run at this CPU count */
	double icr;		/* ICR writes per operation measured (rmode.icr_per_op); NAN */
	double icr_layout;	/* ... the layout implies (the group's icrx); NAN: unknown */
	bool layout_varies;	/* runs' layouts implied different counts (the first's shown) */
	double ns;		/* ns per operation: per-call median, or mean of loops' ns / calls */
	bool loop;		/* ns is the loop mean (no per-call samples) */
	double q1, q3;		/* per-call quartiles; NAN for loops */
	double ratio;		/* ns / the baseline mode's of the same series topology; NAN */
};
struct rsweep {
	const struct group *g0;	/* the first group: workload, type, emulated */
	struct rsweep_series series[RP_MAXSERIES];
	size_t nseries, ntopos;
	size_t nhosts;
	size_t left_out;	/* groups of series beyond RP_MAXSERIES (said in the report) */
	bool loop, percall;	/* some point timed by loops / per call */
	bool icr;		/* some point has ICR counts */
	struct rsweep_pt {
		long cpus;
		struct rsweep_val v[RP_MAXSERIES];
	} *pts;
	size_t npts;
	char *plot, *plot_icr;	/* time per operation, ICR writes; NULL: none */
};

/* One hyperfine file. */
struct rhf {
	const struct hf_file *h;
	struct cmp_ms ms;	/* k == 0: no command has 2 runs */
	size_t box_cmd[RP_MAXBOXES];	/* commands with times, boxed */
	size_t nbox;
	char *plot;		/* NULL: no command has times */
	char *title;
};

/* report_guests.c: a guest run's trace, the guest's figures in it */
struct rgcount {
	char name[48];
	uint64_t n;
};
struct rgtrace {
	const char *key;		/* "hvm" / "hvm_sched" */
	const char *name;		/* the file (the dataset's string) */
	bool present, sched, anomalies;
	uint64_t records;
	uint32_t ndoms;			/* guest domains summed */
	const char *detected;		/* the IPI path its counts show: apic, evtchn, none */
	uint64_t ipis, icr_ipis, evtchn_op, self, exits, vmexit, inj, inj_ipi, inj_irq;
	uint64_t vmmcall;		/* VMMCALL records (every hypercall) */
	struct rgcount *reasons;	/* exits by reason, by count */
	size_t nreasons;
	struct rgcount *vectors;	/* injections by vector ("0xf3"), by count */
	size_t nvectors;
	struct rgcount *events;		/* trace summary's rows (the seed's table) */
	size_t nevents;
};
struct rguest {
	const struct guest_run *run;
	struct rgtrace t[2];		/* hvm, hvm_sched */
};
struct rgmove {
	char name[48];
	struct tr_move m;	/* evtchn count / IPIs, apic count / IPIs */
};

struct report {
	const char *out, *baseline;
	const char *test_name;	/* --test: "welch" (default) or "student" */
	enum ms_test test;	/* the declared test of the comparisons */
	bool no_ref;		/* --no-reference: no seed section at all */
	bool summary;		/* --summary: the headline on stdout, not report.md */
	struct dataset d;
	struct reference ref, ref_ms;	/* seed-96cpu.json, seed-512cpu.json */
	bool have_ref, have_ref_ms;
	/* the model (report_compute()) */
	struct rblock *blocks;
	size_t nblocks;
	struct rseed *seeds;
	size_t nseeds;
	struct rchart *charts;	/* the ICR charts, then the vector charts */
	size_t ncharts;
	struct rsweep *sweeps;
	size_t nsweeps;
	struct rbuild *builds;	/* between builds ([matrix] xen) */
	size_t nbuilds;
	struct rhf *hf;		/* d.nhf */
	struct cmp_perf perf_rep;	/* perf stat, repeated */
	json_t *host_state;	/* hoststate_json() of the runs read */
	json_t *preflight;	/* [{path, host, warnings}] of the sets with preflight warnings */
	/* guest runs (report_guests.c) */
	struct rguest *guests;	/* both kinds, in file order */
	size_t nguests;
	struct rgcmp {
		size_t n;		/* runs of this kind */
		size_t before, after;	/* the first before / after path's run, SIZE_MAX: none */
		struct rgmove *moving;	/* exit reasons by how far they moved per unit */
		size_t nmoving, nmoving_all;
	} gcmp[GR_NKINDS];
	struct tr_hvmref gref;	/* seed-004.json */
	bool have_gref;
	size_t nplots;		/* drawn by render_plots() */
	size_t plots_left_out;	/* past AN_MAX_PLOTS (report_compute()) */
	uint64_t export_max;	/* RP_TL_EXPORT_MAX or the environment's */
	bool export_max_read;	/* export_max read (by the first timeline_export()) */
	char err[AN_ERRLEN];
};

/* report_guests.c: read each guest run's traces (-1 with r->err: one line
 * naming the results file and the JSON path), and render them. */
int guests_load(struct report *r, const char *reference);
void guests_free(struct report *r);
void guests_md(const struct report *r, struct sbuf *md);
json_t *guests_json(const struct report *r, enum guest_kind kind);
const struct rgtrace *rg_primary(const struct rguest *g);
const struct rgtrace *rg_seedmask(const struct rguest *g);
uint64_t rg_count(const struct rgcount *c, size_t n, const char *name);

/* report_timeline.c: each block's timelines (report_compute()), their
 * plots (render_plots()), Markdown and JSON. */
void timelines_compute(struct report *r, struct rblock *b, const char *name);
void timelines_free(struct rblock *b);
int timeline_plot(struct report *r, const struct rtl *t);
/* After timeline_plot(): T's trace as Chrome JSON (`ipibench trace export
 * --format chrome`, probes/export.h) into the report's directory, named
 * after the plot; or, over the size limit, the command that would write
 * it.  A refusal is one warning line and no link, never the report's
 * failure. */
void timeline_export(struct report *r, struct rtl *t);
json_t *timelines_json(const struct rblock *b);
/* V (ns, or cycles without a TSC frequency) with its unit, into BUF. */
const char *tl_time(char *buf, size_t n, const struct rtl *t, double v);

/* report_model.c */
void report_compute(struct report *r);
void report_model_free(struct report *r);

/* report_plots.c: every plot, in report order; -1 with r->err. */
int render_plots(struct report *r);
/* What a sweep's times per operation are ("per-call median", ...). */
const char *sweep_time_text(const struct rsweep *s);

#endif
