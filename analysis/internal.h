/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/: internal interfaces shared by the report (report.c,
 * report_model.c, report_plots.c: see report.h), history.c and the tests.
 *
 *   util.c     growable strings, escaping, directories, errors, usage
 *              errors, mode order, progress on stderr (files are read and
 *              written through lib/safeio.h)
 *   stats.c    summaries (descriptive), CI of the median
 *   ministat.c ministat's figures and verdicts, Welch's and paired t
 *   runlevel.c run-level samples: loops, boots, loop pairs
 *   compare.c  the comparisons of a report, in ministat's format: each
 *              computed into a struct, then rendered as Markdown or JSON
 *   inputs.c   results.json / hyperfine JSON / perf stat CSV readers
 *   plot.c     gnuplot scripts + data files, run gnuplot, rename outputs
 *   reference.c  the seed's reference figures (results/reference/)
 */
#ifndef IPIBENCH_ANALYSIS_INTERNAL_H
#define IPIBENCH_ANALYSIS_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define AN_ERRLEN 1024

/* What one set of inputs may make report or history do (docs/results-
 * schema.md, "Bounds"): past a cap the input is refused in one line. */
#define AN_MAX_SETS 50000		/* result sets (results.json files) */
#define AN_MAX_WORKLOADS 1000000		/* runs[].workloads[] entries, summed */
#define AN_MAX_LOOPS 1000000		/* workloads[].loops[] entries, summed */
#define AN_MAX_SAMPLES 16777216		/* samples (ns or cycles), summed: 128 MiB */
#define AN_MAX_PLOTS 200		/* plots drawn by one report or history */

/* ---- util.c ------------------------------------------------------------ */
struct sbuf {
	char *s;
	size_t len, cap;
};
void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_puts(struct sbuf *b, const char *s);
void sb_free(struct sbuf *b);

void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t sz);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

int mkdir_p(const char *path, char *err);
/* Lower-case alnum, everything else '-': a file name part. */
char *slugify(const char *s);
/* A plot's file name from RAW (malloc'ed): RAW itself when slugify()
 * keeps it, else the slug and 16 hex digits of a hash of RAW, so that
 * names that differ (qemu.tcg, QEMU-tcg, qemu-tcg) never share a file. */
char *plot_slug(const char *raw);
/* *PLOT (a plot's file name, or NULL), made unique among the names TAKEN
 * (a JSON object used as a set) has seen: a name seen before becomes
 * NAME-2, NAME-3, ... (the first one not seen), and goes into TAKEN.  A
 * hash suffix alone can be forged (a host named like another's hashed
 * slug); this pass, over every plot of one report or history, cannot. */
void plot_name_unique(json_t *taken, char **plot);
/* Escape s for where it is shown (malloc'ed).  Names that passed
 * sio_name_ok() come out unchanged; free text (errors, paths, commands,
 * CPU models) cannot break a table, a code span or a tag:
 *   md_text   Markdown text, table cells included: \ ` * [ ] < > | & !
 *             # @ and _ (unless inside a word) get a backslash, and so do
 *             the ':' of "x://" and the '.' of "www." (no bare URL becomes
 *             a link); control characters (newlines too) become spaces;
 *   md_code   a Markdown code span around s (a fence longer than any run
 *             of backticks inside, | escaped for tables);
 *   html_text HTML text and attribute values: < > & " ' as entities,
 *             control characters as spaces.
 * In all three, code points that are invisible yet change what is shown
 * (bidi overrides and isolates U+202A-U+202E, U+2066-U+2069, zero-width
 * characters, C1 controls: util.c's invisible_at()) are shown as the
 * text <U+XXXX>, never passed on. */
char *md_text(const char *s);
char *md_code(const char *s);
char *html_text(const char *s);
/* s with control characters (newlines too) as spaces (malloc'ed). */
char *one_line(const char *s);
/* Print "ipibench CMD: ERR" on stderr as one line (control characters of
 * file names or values shown as '?'). */
void an_error(const char *cmd, const char *err);
/* The one way analysis/ fills an error buffer (char err[AN_ERRLEN]): a
 * printf format, cut to AN_ERRLEN - 1 characters. */
void an_err(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A command's options by CMD's table (an_quiet among them), its INPUT...
 * operands into *inputs and *ninputs: -1 to go on, else the exit status
 * (0 after --help, 2 on a usage error: opts_parse()'s, or no INPUT). */
struct opts_cmd;
int an_parse_args(const struct opts_cmd *cmd, const char *input, int argc, char **argv,
		  int *ninputs, char ***inputs);
/* DIR/FILE written atomically (sio_write_file); a JSON document as
 * jansson prints it with 2-space indents and 12 digits, plus a newline. */
int an_write_text(const char *dir, const char *file, const char *s, size_t len, char *err);
int an_write_json(const char *dir, const char *file, const json_t *j, char *err);
/* V as a JSON real, or null when it is not a finite number (a ratio
 * without its denominator, a statistic without its sample). */
json_t *an_jreal(double v);
/* V with DECIMALS decimals into B (48 bytes), "-" when V is NaN. */
const char *an_fixed(char *b, int decimals, double v);
/* Progress lines on stderr ("ipibench <verb>: ..."), silenced by an_quiet. */
extern bool an_quiet;
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- stats.c ----------------------------------------------------------- */
struct summary {
	size_t n;
	double median, mean, sd, min, max;
	double p5, p95, q1, q3, iqr;
	bool ci_ok;		/* n >= 6: a 95% CI of the median exists */
	double ci_lo, ci_hi;	/* exact order-statistic CI of the median */
	double ci_level;	/* its actual coverage (>= 0.95) */
};
/* data must be sorted ascending; n may be 0 (all fields 0, ci_ok false). */
void stats_summary(const double *sorted, size_t n, struct summary *s);
/* Distribution-free CI of the median from order statistics: ranks l, u
 * (1-based) with P(X(l) <= median <= X(u)) >= level, from Binomial(n, 1/2).
 * Returns false when n is too small for the level. */
bool stats_median_ci(const double *sorted, size_t n, double level,
		     double *lo, double *hi, double *coverage);
double stats_median_sorted(const double *sorted, size_t n);
/* Median of v (reorders v; O(n) average). */
double stats_median_select(double *v, size_t n);

/* ---- inputs.c ---------------------------------------------------------- */
struct resultset {
	char *path;
	char *host_name, *backend, *cpu_model, *xen_version, *commit, *created;
	/* the hypervisor build (host.xen_build, a name; "" when absent): runs
	 * of different builds are never pooled */
	char *xen_build;
	char *config_file;
	long cpus, maxcpus;
	bool emulated;
	size_t runs_ok, runs_failed;
	size_t runs_stalled;   /* "stalled" runs: not in runs_failed */
	/* The layout of its first checked run (workloads/check.h), NULL: none. */
	char *topology, *layout;
	/* The topology it was given, a name for it: host.profile, else
	 * host.topology, else "dense" (emulated: QEMU's dense IDs) or
	 * "native" (a real machine's own IDs). */
	char *topo;
	/* host.preflight.warnings (ipibench run's check of a real host,
	 * runner/hostcheck.h), validated; NULL when there are none. */
	json_t *preflight;
};

/* ICR writes per call the layout implies against those measured, for
 * one send routine of a group (layout_check_run()'s icr_check). */
struct icr_exp {
	char sender[16], route[16];
	double expected;	/* of the first run; */
	bool expected_varies;	/* ... another run's layout implied another */
	double measured_sum;	/* per call, summed over runs */
	size_t runs;
	bool mismatch;		/* some run's measured count differed */
};
#define GROUP_MAX_ICR 3

/* One timed loop (results.json "loops"; docs/results-schema.md, "loops
 * and paired senders"). */
struct loop {
	double ns, cycles, calls, chunks;
	char sender[16];	/* genapic | physical | cluster; "" if absent */
	long pair;		/* -1 when absent */
	int arm;		/* 0 = A, 1 = B: "arm", else by sender, else order */
};

/* One ok run (boot) of a group: what run-level statistics are made of. */
struct run_rec {
	char *id;
	double percall_sum;	/* its per-call samples (ns) */
	size_t percall_n;
	struct loop *loops;
	size_t nloops;
	bool arm_by_order;	/* A/A without "arm": A = first of each pair */
};

/* One workload x mode on one host and CPU count, pooled over runs. */
struct group {
	size_t set;		/* history: result set index; report: 0 */
	char *host, *workload, *type, *mode;
	char *build;		/* resultset.xen_build */
	char *topo;		/* resultset.topo: part of the key, like build */
	long cpus;
	bool emulated;
	char *genapic;		/* first reported; genapic_mixed if they differ */
	bool genapic_mixed;
	char *path;		/* genapic | shorthand */
	double *ns;
	size_t n, cap;
	size_t runs_ok, runs_failed;
	long iterations;	/* params.iterations (last seen) */
	double operations, icr_writes, ipis_sent;
	bool has_ops, has_icr, has_ipis;
	double vectors_sum;
	size_t vectors_runs;
	double *irqs;		/* summed over runs, index = CPU */
	size_t nirqs, irq_runs;
	struct summary sum;	/* filled by groups_finish() */
	struct run_rec *rr;	/* per ok run, in file order (runlevel.c) */
	size_t nrr;
	char *senders[2];	/* params.senders (paired workloads) */
	/* counters_by_sender summed over runs, by ipibench_sender_index() */
	struct by_sender {
		double ops, icr;
		bool has;
	} bysend[3];
	/* "trace" of its first ok run that names one: the results directory
	 * (dir), the path in it (trace) and where it was named ("FILE:
	 * runs[i].workloads[j].trace", for messages); NULL: none */
	char *trace_dir, *trace, *trace_where;
	struct icr_exp icrx[GROUP_MAX_ICR];	/* flush and IPI workloads */
	size_t nicrx;
	/* insn_counts (tcgplug's plugin), summed over runs: instructions
	 * per operation are exact where the times are not. */
	struct insn_sums {
		size_t runs;
		double ops, send, wait, handlers, handler_insns, handler_max, icr, icr_hv;
		size_t mismatches;      /* runs whose plugin and hypervisor ICR counts differ */
		/* send_insns_min, handler_insns_min: the least over the runs
		 * that have them (*_runs of them) */
		double send_min, handler_min;
		size_t send_min_runs, handler_min_runs;
	} ic;
};

struct failed_run {
	char *set_path, *id, *mode, *error;
};

struct hf_cmd {
	char *command;
	double *times;
	size_t n;
	double mean, stddev, median, min, max;
};
struct hf_file {
	char *path;
	struct hf_cmd *cmds;
	size_t n;
};

struct perf_row {
	char *value, *unit, *event, *variance, *runtime, *pct, *metric, *metric_unit;
};
struct perf_file {
	char *path;
	struct perf_row *rows;
	size_t n;
};

/* A guest run's experiment (guest_runs[].ipi_path or .msi_path). */
enum guest_kind {
	GR_IPI,		/* the guest's own IPIs: ipi_path evtchn -> apic */
	GR_NIC,		/* an emulated NIC's MSIs: msi_path pirq -> apic */
	GR_NKINDS
};

struct dataset {
	struct resultset *sets;
	size_t nsets;
	struct group *groups;
	size_t ngroups;
	struct failed_run *failed;
	size_t nfailed;
	struct hf_file *hf;
	size_t nhf;
	struct perf_file *perf;
	size_t nperf;
	/* runs[].host_state of the ok runs (hoststate.c), in file order */
	struct hs_run {
		size_t set;
		char *run;
		json_t *state;
	} *hs;
	size_t nhs;
	/* guest_runs[] of the results (an HVM guest's IPI workload and its
	 * traces), checked where read (inputs.c) but for the traces themselves,
	 * which report_guests.c reads */
	struct guest_run {
		size_t set;
		size_t index;		/* in the file's guest_runs[] */
		char *results;		/* the results.json that lists it */
		char *dir;		/* its directory, where the traces are */
		enum guest_kind kind;	/* which of the seed's changes it measures */
		/* ipi_path (GR_IPI: evtchn | apic) or msi_path (GR_NIC: pirq |
		 * apic): a name (sio_name_ok), checked by report_guests.c */
		char *path;
		json_t *counts;		/* the integer members of its counts (the guest's own, >= 0) */
		json_t *load;		/* GR_NIC: the numeric members of its load (ping, ab), >= 0 */
		char *trace[2];		/* traces.hvm, traces.hvm_sched: paths in dir (inputs.c's rule), or NULL */
	} *guests;
	size_t nguests;
	size_t guests_not_ok[GR_NKINDS];	/* guest_runs[] whose status is not "ok": left out */
	/* group key -> index in groups (group_get(): O(1) per workload), and
	 * host -> the topology of its first group (several_topos) */
	json_t *group_index, *host_topo;
	size_t groups_cap;
	size_t nworkloads, nloops, nsamples;	/* against the AN_MAX_ caps */
	bool separate_sets;	/* history: do not pool across result sets */
	bool several_builds;	/* the groups are of more than one build */
	bool several_topos;	/* a host name comes with more than one topology */
};

/* ---- hoststate.c: runs[].host_state, compared across the runs read ---- */
void hoststate_add(struct dataset *d, size_t set, const char *run_id, json_t *state);
void hoststate_free(struct dataset *d);
/* {"runs": N, "same": {key: value}, "differs": {key: {value: [runs]}}} */
json_t *hoststate_json(const struct dataset *d);
/* "## Host state" from hoststate_json()'s HS: the differing keys first,
 * flagged (nothing when no run had a host state). */
void hoststate_render_md(const json_t *hs, struct sbuf *md);

extern const char *const guest_trace_key[2];	/* "hvm", "hvm_sched" */

/* reference.c: $ENV_NAME, else REL from the working directory, the
 * installed data directory or beside the binary (malloc'ed), or NULL. */
char *reference_find(const char *env_name, const char *rel);

enum input_kind { IN_UNKNOWN, IN_RESULTS, IN_HYPERFINE, IN_PERF };

/* Read one input (a results directory, results.json, hyperfine JSON or
 * perf stat CSV: detected by content).  A directory contributes its
 * results.json, or without one the cN/ and xen-LABEL/ result sets of a
 * sweep or build axis, and any hyperfine/perf files at its top level.  On error
 * returns -1 with a one-line message naming the file in err. */
int dataset_add(struct dataset *d, const char *path, char *err);
int dataset_add_results(struct dataset *d, const char *path, char *err);
/* The same on text already read (len bytes, NUL-terminated) named path:
 * what dataset_add() does with a file's content (the fuzz target's way in). */
int dataset_add_text(struct dataset *d, const char *path, const char *text, size_t len,
		     bool explicit, bool results_only, char *err);
/* DIR/results.json found while scanning: a symbolic link is refused. */
int dataset_found_results(struct dataset *d, const char *path, char *err);
/* Check every field the readers use (docs/results-schema.md): modes from
 * ipibench/modes.h, statuses, names by sio_name_ok(), numbers by type and
 * range.  -1 with "FILE: $.json.path: what is wrong" in err. */
int results_validate(const char *file, json_t *root, char *err);
enum input_kind detect_kind(const char *path, const char *text, size_t len);
/* Sort every group's samples and fill its summary. */
void dataset_finish(struct dataset *d);
void dataset_free(struct dataset *d);
/* Find a group by key (set, host, build, cpus, workload, mode); NULL if
 * absent.  dataset_find(): of any build (the first). */
struct group *dataset_find_build(struct dataset *d, size_t set, const char *host,
				 const char *build, long cpus, const char *workload,
				 const char *mode);
struct group *dataset_find(struct dataset *d, size_t set, const char *host,
			   long cpus, const char *workload, const char *mode);
/* Modes in the order of ipibench/modes.h, then other names alphabetically. */
int mode_cmp(const char *a, const char *b);

/* ---- runlevel.c: run-level samples (loops, boots) --------------------- */
/* Called by the reader for each ok workload of a run: records the run, the
 * mean of its per-call samples (g->ns[first_sample..g->n)) and its
 * "loops".  -1 with err ("JPATH.loops[i]: ...") on bad data. */
int runlevel_add(struct group *g, const char *file, const char *run_id, json_t *w,
		 size_t first_sample, const char *jpath, char *err);
void runlevel_free(struct group *g);

enum rl_unit { RL_NONE, RL_LOOPS, RL_BOOTS };
/* The unit of a comparison between the groups gs[0..n-1] (modes of one
 * block): boots when every group has >= 2 ok runs, else the loops (when
 * every group has mode-sender loops), else none. */
enum rl_unit runlevel_unit(struct group *const *gs, size_t n);
/* The run-level sample of g in that unit, in ns per call (malloc'ed; *n
 * values): RL_LOOPS every loop of the mode's own sender (genapic or no
 * sender), RL_BOOTS per ok run the mean ns per call of those loops, or of
 * its per-call samples when it has no loops.  NULL when empty. */
double *runlevel_sample(const struct group *g, enum rl_unit unit, size_t *n);
/* Loops of the mode's own send routine in g (all runs): no sender or
 * "genapic", and no pair index. */
size_t runlevel_mode_loops(const struct group *g);
/* Paired loops of run r: a[i], b[i] ns per call of pair i's A and B arms
 * (malloc'ed, *n pairs); names of the arms.  0 pairs: NULL. */
size_t runlevel_pairs(const struct group *g, size_t r, double **a, double **b,
		      const char **name_a, const char **name_b);
const char *rl_unit_name(enum rl_unit u);

/* ---- plot.c ------------------------------------------------------------ */
/* Write OUT/NAME.dat and OUT/NAME.gp, then run gnuplot in OUT so that it
 * writes NAME.png and NAME.svg into a private directory OUT/.NAME.XXXXXX,
 * from where they are renamed into place (two reports into one OUT never
 * share a temporary name).  The script
 * body draws one plot; plot.c adds the terminals and outputs.  The kept
 * .gp re-creates the plots with `cd OUT && gnuplot NAME.gp`. */
int plot_render(const char *outdir, const char *name, const char *data,
		const char *body, int width, int height, char *err);
/* 0 when the gnuplot binary can be found, else -1 with err filled. */
int plot_check(char *err);
/* Set: without gnuplot, plot_render() writes NAME.dat and NAME.gp, draws
 * nothing, counts the plot in plot_undrawn and returns 0 (report: gnuplot
 * is a Recommends); clear: a missing gnuplot is an error. */
extern bool plot_undrawn_ok;
extern size_t plot_undrawn;
/* The gnuplot binary: $IPIBENCH_GNUPLOT or "gnuplot". */
const char *plot_gnuplot(void);
/* s as a gnuplot string literal that gnuplot reads back as exactly s:
 * single quotes (nothing is expanded inside), or when s has a ' double
 * quotes with " \ ` @ escaped; control characters (a newline ends a
 * command) as spaces.  See plot.c for why not ''. */
char *gp_quote(const char *s);
/* gp_quote("NAME.dat"): the data file of plot NAME in its script. */
char *gp_datafile(const char *name);

/* ---- reference.c ------------------------------------------------------- */
#include "ipibench/modes.h"
#include "analysis/ministat.h"
#define REF_MS_MAX 7
struct reference {
	char *path, *title, *source, *quote, *workload_type;
	long calls, cpus;
	bool emulated;
	/* per mode of ipibench/modes.h (index ipibench_mode_index()), 0 when
	 * the reference has none: total ns for its calls, expected ICR writes
	 * per call */
	double total_ns[IPIBENCH_NMODES], icr_expected[IPIBENCH_NMODES];
	/* the claim: the first mode with a total against the last one (for the
	 * seed, physical / mixed) */
	size_t ratio_a, ratio_b;
	char *icr_note;
	/* optional ministat table ("ministat"): rows compared with ms[0] */
	char *ms_unit, *ms_printed_by;
	char *ms_mode[REF_MS_MAX];
	struct ms_vitals ms[REF_MS_MAX];
	size_t nms;
};
/* explicit path, or NULL: $IPIBENCH_REFERENCE, results/reference/seed-96cpu.json
 * in the working directory, then next to the binary (../../results/...).
 * Returns 0, 1 when not found (not an error when path is NULL), -1 on error. */
int reference_load(const char *path, struct reference *r, char *err);
/* The same for the ministat reference: $IPIBENCH_REFERENCE_MINISTAT,
 * results/reference/seed-512cpu.json. */
int reference_load_ministat(const char *path, struct reference *r, char *err);
int reference_load_default(const char *path, const char *env, const char *rel,
			   struct reference *r, char *err);
void reference_free(struct reference *r);

#endif
