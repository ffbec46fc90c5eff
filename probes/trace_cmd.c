/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/trace_cmd.c: `ipibench trace summary|diff|ipi|irq|export FILE...`.
 *
 * One function per subcommand and one table naming them, as cli/main.c
 * does for the verbs; each subcommand's --help comes from the same table.
 * parse_topts() reads the options and hands back the files (perf's
 * parse_options()).  Every file is read by read_file(): run the analysis,
 * refuse a file with nothing to analyse, report anomalies; summary, ipi and
 * irq are each a struct analysis (hooks) in the one per-file loop,
 * for_each_file(), and diff reads its two files with read_file() too.
 */
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/opts.h"
#include "probes/events.h"
#include "probes/export.h"
#include "probes/hvmref.h"
#include "probes/probes.h"
#include "probes/trace.h"
#include "lib/safeio.h"

/* --max-gib: the bound on a trace's bytes (XT_MAX_BYTES by default). */
#define MAX_GIB_MAX 1024u

struct topts {
	bool json, strict;
	double tsc_khz;		/* 0: from the file, if it says */
	uint64_t max_bytes;	/* 0: XT_MAX_BYTES */
	uint32_t top;		/* diff: rows shown in text (0 = all) */
	const char *reference;	/* diff: a reference profile (probes/hvmref.h), or NULL */
	const char *format;	/* export: "chrome" or "ctf" */
	const char *output;	/* export: the file (chrome) or directory (ctf) */
};

/*
 * A per-file analysis, as each subcommand hooks into the one per-file loop
 * (for_each_file) or, for diff, into read_file() directly.  ST is the
 * analysis's own state (SIZE bytes, zeroed before run()).
 */
#define NO_CHUNKS SIZE_MAX

struct analysis {
	size_t size;
	int (*run)(void *st, const struct xt_file *f);	/* 0, or -1: out of memory */
	void (*fini)(void *st);
	/*
	 * What refuse_empty() and the anomaly report need: where ST keeps its
	 * records (uint64_t), chunks (uint64_t; NO_CHUNKS: not counted, there
	 * is one unless every byte was skipped) and anomalies (struct xt_anom).
	 */
	size_t records, chunks, an;
	json_t *(*json)(const char *path, const void *st, const struct topts *o);
	void (*text)(const char *path, const void *st, const struct topts *o);
};

/*
 * NAME_analysis over struct tr_NAME, with its counts (records, chunks, an)
 * where refuse_empty() looks, run by the library's tr_NAME_run() and
 * tr_NAME_fini(), printed by NAME_json() and NAME_text().
 */
#define TR_ANALYSIS(name)								\
	static int name##_run(void *st, const struct xt_file *f) { return tr_##name##_run(st, f); } \
	static void name##_fini(void *st) { tr_##name##_fini(st); }			\
	static const struct analysis name##_analysis = {				\
		.size = sizeof(struct tr_##name), .run = name##_run, .fini = name##_fini,	\
		.records = offsetof(struct tr_##name, records),				\
		.chunks = offsetof(struct tr_##name, chunks),				\
		.an = offsetof(struct tr_##name, an),					\
		.json = name##_json, .text = name##_text,				\
	}

/*
 * A subcommand: each of its files analysed on its own (per_file, through
 * for_each_file()), or fn for one that takes its files together (diff).
 */
struct subcmd {
	const char *name;
	const struct analysis *per_file;
	int (*fn)(struct topts *o, int nfiles, char **files);
	int min_files, max_files;	/* max 0: unlimited */
	const char *usage;
	const char *help;
};

static uint32_t *sorted_slots(const struct cmap *m, uint32_t *n);
static const struct analysis summary_analysis, ipi_analysis, irq_analysis;
static int do_diff(struct topts *o, int n, char **files);
static int do_export(struct topts *o, int n, char **files);

static const char common_help[] =
	"Files are read as xentrace writes them: per-CPU chunks, each opened by a\n"
	"cpu_change record.  Anything irregular (garbage between chunks, a record\n"
	"running past its chunk or the file, TSC going backwards on a CPU) is\n"
	"reported with its byte offset on stderr, counted under \"anomalies\" in the\n"
	"JSON, and the rest of the file is still read.  A file with nothing to\n"
	"analyse - empty, without any cpu_change record (not a xentrace file), or\n"
	"without any record in its chunks - is refused with one line (exit 1).\n"
	"Memory does not grow with the file size (but for an .xz file's unpacked bytes).\n"
	"A FILE must be a regular file (a FIFO, device or directory is refused at\n"
	"once; a symlink is followed) of at most 8 GiB (--max-gib), without holes\n"
	"(a sparse file is refused naming the hole's offset); 64 KiB of zero bytes\n"
	"where a chunk should start end the trace there (an anomaly naming the\n"
	"offset).  An .xz FILE unpacks to at most 2 GiB and is refused at a block\n"
	"of 64 KiB of zero bytes.\n"
	"File names are shown quoted and escaped when they are not printable\n"
	"ASCII; in JSON, bytes that are not UTF-8 are the text \\xNN.\n"
	"\n"
	"options:\n";

static const char common_help_tail[] =
	"\n"
	"environment: IPIBENCH_TRACE_HVM=tsc counts the HVM profile in TSC order\n"
	"always, =why says on stderr which pass counted it (the default, auto:\n"
	"file order where that is exact); any other value is a usage error.\n"
	"\n"
	"exit status: 0 ok, 1 a file could not be read (or --strict and an anomaly),\n"
	"2 usage error.\n";

/* Each subcommand's form, in its --help and the synopsis below. */
#define FORM_SUMMARY "summary FILE... [--json] [--strict]"
#define FORM_DIFF "diff A B [--json] [--strict] [--top N] [--guest-reference FILE]"
#define FORM_IPI "ipi FILE... [--tsc-khz KHZ] [--json] [--strict]"
#define FORM_IRQ "irq FILE... [--json] [--strict]"
#define FORM_EXPORT "export FILE... --format chrome|ctf -o OUT [--tsc-khz KHZ] [--strict]"

const struct opts_synopsis trace_synopsis = {
	"ipibench trace", "read xentrace files: event counts, profiles, IPI and IRQ tables, exports",
	FORM_SUMMARY "\n" FORM_DIFF "\n" FORM_IPI "\n" FORM_IRQ "\n" FORM_EXPORT, 1,
};

static const struct subcmd subcmds[] = {
	{ "summary", &summary_analysis, NULL, 1, 0, FORM_SUMMARY,
	  "One row per event name with its count (Xen's events by their xentrace\n"
	  "`formats` names, TRC_64_FLAG variants folded, runstate changes decoded,\n"
	  "ipibench's APIC events as apic:*, unknown events by hex ID), then the\n"
	  "records, chunks, lost records and wrap_buffer records of each CPU.\n"
	  "A file with HVM records (class TRC_HVM, e.g. xentrace -e 0x0008ffff) also\n"
	  "gets its HVM profile per domain and vCPU: VMEXIT and VMENTRY records, exits\n"
	  "by exit reason (xenalyze's names: VMEXIT_HLT, VMEXIT_INTR, ... for SVM),\n"
	  "handler events (HLT, INTR, INTR_WINDOW, CPUID, NPF, VMMCALL, INJ_VIRQ...),\n"
	  "INJ_VIRQ by vector and MSR_READ/MSR_WRITE by MSR, counted as xenalyze\n"
	  "--summary counts them (probes/hvm.c says how; JSON: \"hvm\").  Without\n"
	  "scheduler records (-e 0x0008ffff) vCPU N of the \"default\" domain is\n"
	  "whatever ran on pCPU N, as in xenalyze; add the scheduler class\n"
	  "(-e 0x000affff) for real domains and vCPUs.\n"
	  "\n"
	  "Then per guest (domain): the IPIs it sent, decoded from the trace's records:\n"
	  "x2APIC ICR writes (MSR_WRITE of MSR 0x830 carries the value: vector,\n"
	  "delivery mode, shorthand, destination; self-IPIs and the SELF IPI MSR apart,\n"
	  "sender -> destination vCPU by Xen's APIC ID = 2 x vCPU) and event_channel_op\n"
	  "hypercalls (VMMCALL records carry the hypercall number only, not the sub-op,\n"
	  "so every event_channel_op call counts, sends or not).  A domain with ICR IPIs\n"
	  "is on path apic (its IPIs: those), else on path evtchn (its IPIs: the\n"
	  "event_channel_op calls).  Its injections by vector are IPI vectors (those of\n"
	  "its ICR writes) or interrupts (all others, Xen's upcall vector 243 included:\n"
	  "it carries event-channel IPIs, timers and pirqs alike), and the figures per\n"
	  "IPI sent (exits, exits of each reason, injections) and per interrupt (exits):\n"
	  "exact counts and their ratios, each naming its denominator (JSON:\n"
	  "\"hvm\".\"guests\").\n"
	  "Each FILE is summarised on its own; a FILE.xz (xz's magic) is unpacked in\n"
	  "memory first (liblzma, at most 2 GiB unpacked).\n" },
	{ "diff", NULL, do_diff, 2, 2, FORM_DIFF,
	  "The two profiles side by side: event name, count in A, count in B, change\n"
	  "(B - A) and ratio (B / A, \"-\" when A has none), sorted by impact\n"
	  "(largest absolute change first).  --top N shows only the first N rows\n"
	  "(0, the default, shows all; N up to 4294967295).\n"
	  "\n"
	  "--guest-reference FILE (results/reference/seed-004.json: the seed's two xentrace\n"
	  "HVM profiles of netperf, before and after its guest change) puts the\n"
	  "reference beside the rows, its before beside A and its after beside B:\n"
	  "seed before, seed after, their ratio, the ratio per exit of the seed and of\n"
	  "the measurement (each ratio over its side's VMEXIT ratio: the activity level\n"
	  "of the window divided out), and which way the count moved, seed/measured (up,\n"
	  "down, flat), with the verdict: same, opposite, or unchanged (one of the two\n"
	  "did not move).  The lines below the table group the reference's rows by\n"
	  "verdict, by count and per exit.  The seed's names are xentrace_format's, as\n"
	  "trace summary's are (VMENTRY, VMEXIT, INJ_VIRQ, INTR_WINDOW, VMMCALL, HLT,\n"
	  "INTR, NPF, TRAP, CPUID, vlapic_accept_pic_intr, cpu_change, wrap_buffer), so\n"
	  "rows are matched by name.  A reference row neither trace has is shown with \"-\"\n"
	  "measured (no measured counterpart).  On the PVH guest of probes/tests/data's\n"
	  "ipbipi traces those are vlapic_accept_pic_intr (PVH has no vPIC: Xen returns\n"
	  "before its trace point), NPF (shadow paging: no nested page faults), TRAP\n"
	  "(Xen's svm.c traces it for #AC only) and CPUID (the workload runs none).  The\n"
	  "seed counts no IPI and no interrupt, so nothing is normalised per IPI: compare\n"
	  "ratios, not counts.  A reference file that does not check out\n"
	  "(probes/hvmref.h) is refused with one line naming the file and the JSON\n"
	  "path (exit 1).\n"
	  "JSON: each row gains \"seed\" {before, after, ratio}, \"per_exit_ratio\" {seed,\n"
	  "measured} and \"direction\" {count, per_exit: {seed, measured, verdict}}; the\n"
	  "top level \"reference\", \"vmexit_ratio\" and \"directions\" (names by verdict).\n"
	  "\n"
	  "Then the rows per IPI and per interrupt (JSON \"per_ipi\"): the guests on an IPI\n"
	  "path of each side summed (see summary), exits, injections, injections on IPI\n"
	  "vectors and interrupts per IPI sent, exits per interrupt, and each exit reason\n"
	  "per IPI sent: count and denominator of A and of B, the two ratios, their ratio,\n"
	  "and which way it moved (up, down, flat: exact, by integer comparison).\n" },
	{ "ipi", &ipi_analysis, NULL, 1, 0, FORM_IPI,
	  "Per IPI operation (apic:send_ipi_mask, apic:send_ipi_allbut,\n"
	  "apic:send_ipi_self) by mode - physical, logical (cluster/mixed),\n"
	  "shorthand (ALLBUT), self - the number of operations and the distribution\n"
	  "(count, min, p50, p95, max) of destinations, ICR writes and send cost.\n"
	  "\n"
	  "Latency rule: records of all CPUs are merged in TSC order.  An operation\n"
	  "is one CPU's apic:icr_write records up to and including its next send\n"
	  "record (without ICR writes: the send record alone); it begins at its first\n"
	  "record.  Each apic:ipi_recv belongs to the operation of its vector that\n"
	  "most recently began before it (on any CPU), takes that operation's mode\n"
	  "from its send record (which the hypervisor writes after the ICR writes, so\n"
	  "a receive can come first: it waits for it), and its latency is the receive\n"
	  "TSC minus the operation's first TSC.  Receives with no such operation, or\n"
	  "whose operation has no send record, are counted as unmatched.  Latencies\n"
	  "are shown per mode and per receiving CPU.\n"
	  "\n"
	  "TSC cycles become ns with --tsc-khz KHZ, else with the apic:tsc_khz record\n"
	  "the ipibench collector writes; without either, cycles only.\n"
	  "Percentiles come from a log-linear histogram: within 1/64 of the sample.\n" },
	{ "irq", &irq_analysis, NULL, 1, 0, FORM_IRQ,
	  "Interrupts handled per CPU (do_irq = TRC_HW_IRQ_HANDLED, apic:ipi_recv,\n"
	  "and bogus_vector = TRC_HW_IRQ_UNMAPPED_VECTOR), per IRQ (count, mean\n"
	  "handling cycles from do_irq's TSCs) and per IPI vector.\n" },
	{ "export", NULL, do_export, 1, TR_EXPORT_MAX_FILES, FORM_EXPORT,
	  "The records as a trace viewer's input, written to OUT (docs/tracing.md says\n"
	  "how to open it and what each part means).\n"
	  "\n"
	  "--format chrome: the Trace Event Format's JSON (Perfetto's UI,\n"
	  "ui.perfetto.dev, and chrome://tracing open it), one file.  Each FILE is a\n"
	  "process of physical CPUs, one track (thread) per pCPU, and a process per\n"
	  "domain with a track per vCPU (the scheduler's records say which vCPU runs\n"
	  "where, as for summary's HVM profile).  On a pCPU: a slice per IPI send\n"
	  "(apic:send_ipi_mask, _allbut, _self) from its first apic:icr_write to its\n"
	  "last (without ICR writes: its cost, up to its record), an instant per ICR\n"
	  "write, a zero-length slice per apic:ipi_recv, a slice per do_irq (its TSCs\n"
	  "in and out), a slice per stretch of one vCPU running on it, an instant per\n"
	  "lost_records.  An arrow (flow) goes from each send to each receive it\n"
	  "caused, paired by ipi's latency rule ('ipibench trace ipi --help'), so\n"
	  "there are as many as ipi's matched receives.  On a vCPU: an instant per\n"
	  "VMEXIT (named by its exit reason), INJ_VIRQ and x2APIC ICR write (MSR_WRITE\n"
	  "of MSR 0x830).  A counter \"interrupts\" per pCPU: the interrupts it took so\n"
	  "far (do_irq, apic:ipi_recv, bogus_vector, as irq counts them).  Timestamps\n"
	  "are microseconds from the file's lowest TSC, by the TSC's kHz from\n"
	  "--tsc-khz, else the file's apic:tsc_khz record, else the results.json\n"
	  "beside it; without any, TSC cycles / 1000 (the JSON's \"metadata\" says\n"
	  "which).  A results.json in FILE's directory or the one above it (a run's\n"
	  "traces/) names the host, Xen version and commit, and the run's mode and\n"
	  "workload of the workload whose \"trace\" is FILE: in the host process's name\n"
	  "and labels and in \"metadata\".\n"
	  "\n"
	  "--format ctf: CTF 1.8 in the new directory OUT (a metadata file and a\n"
	  "stream per pCPU), which babeltrace2 and Trace Compass read: every record,\n"
	  "cpu_change headers included, an event named as summary names it (so the\n"
	  "counts by name are summary's), on its pCPU's stream, with its TSC as the\n"
	  "timestamp (clock \"tsc\" at the frequency above; without one, 1 GHz) and\n"
	  "its words as the fields d0, d1...  With several FILEs, OUT/N-NAME is FILE\n"
	  "number N's trace; `babeltrace2 OUT` reads them all.\n"
	  "\n"
	  "OUT is written whole or not at all (a temporary file or directory beside\n"
	  "it, renamed into place; ctf refuses an existing OUT).  A file with\n"
	  "anomalies (truncated, corrupt) gives what could be read and one line\n"
	  "naming it and the first anomaly's offset (exit 1 with --strict).\n" },
};
#define NSUB (sizeof(subcmds) / sizeof(subcmds[0]))

static void usage(FILE *f)
{
	opts_usage_lines(f, &trace_synopsis);
	fprintf(f, "\n'ipibench trace <subcommand> --help' explains each.\n");
}

/* ---- helpers -------------------------------------------------------------- */

/* PATH (shown: sio_shown()) as it goes into the messages below. */
static void report_anom(const char *path, const struct xt_anom *an)
{
	for (uint64_t i = 0; i < an->nmsgs && i < XT_MAX_MSGS; i++)
		fprintf(stderr, "ipibench trace: %s: %s\n", path, an->msgs[i]);
	if (an->nmsgs > XT_MAX_MSGS)
		fprintf(stderr, "ipibench trace: %s: ... %" PRIu64 " more messages\n", path,
			an->nmsgs - XT_MAX_MSGS);
}

/* One line for the table output, so a problem is seen even without stderr. */
static void print_anom_line(const struct xt_anom *an)
{
	if (!xt_anom_any(an) && !an->nmsgs)
		return;
	printf("anomalies: %" PRIu64 " bytes skipped, %" PRIu64 " garbage runs, %" PRIu64
	       " bad records, %" PRIu64 " short chunks, %s, %" PRIu64
	       " TSC steps backwards (details on stderr)\n",
	       an->skipped_bytes, an->garbage_runs, an->bad_records, an->short_chunks,
	       an->truncated ? "truncated" : "not truncated", an->tsc_backwards);
}

static int open_file(const struct topts *o, const char *path, struct xt_file *f)
{
	char err[768];

	if (xt_open(f, path, o->max_bytes ? o->max_bytes : XT_MAX_BYTES, err, sizeof(err))) {
		fprintf(stderr, "ipibench trace: %s%s\n", err,
			strstr(err, " this input may have") ? " (--max-gib N raises the bound)" : "");
		return -1;
	}
	return 0;
}

/*
 * Nothing to analyse: a file with no chunk (no cpu_change record: empty, or
 * not a xentrace file) or with no record in its chunks.  Every subcommand
 * refuses it alike: one line naming the file, exit 1.
 */
static bool refuse_empty(const char *path, uint64_t len, uint64_t chunks, uint64_t records)
{
	if (!len)
		fprintf(stderr, "ipibench trace: %s: empty file: not a xentrace file\n", path);
	else if (!chunks)	/* (nothing of the file's content: a symlink's target may be anything) */
		fprintf(stderr, "ipibench trace: %s: not a xentrace file: no cpu_change record from "
			"offset 0 to its end (%" PRIu64 " bytes)\n", path, len);
	else if (!records)
		fprintf(stderr, "ipibench trace: %s: no trace records (only cpu_change headers): "
			"nothing to analyse\n", path);
	else
		return false;
	return true;
}


/*
 * Analyse the open file F (PATH) into ST: run, refuse a file with nothing
 * to analyse, report its anomalies.  0: ST is there to show; -1: it is not
 * (said on stderr).  *rc becomes 1 on any failure, and on an anomaly with
 * --strict.  ST is for a->fini() in either case.
 */
static int read_file(const struct analysis *a, const struct topts *o, const char *path,
		     const struct xt_file *f, void *st, int *rc)
{
	const struct xt_anom *an = (const void *)((const char *)st + a->an);
	uint64_t chunks, records;

	if (a->run(st, f)) {
		fprintf(stderr, "ipibench trace: %s: out of memory\n", path);
		*rc = 1;
		return -1;
	}
	records = *(const uint64_t *)(const void *)((const char *)st + a->records);
	chunks = a->chunks == NO_CHUNKS ? an->skipped_bytes < f->len :
		 *(const uint64_t *)(const void *)((const char *)st + a->chunks);
	if (refuse_empty(path, f->len, chunks, records)) {
		*rc = 1;
		return -1;
	}
	report_anom(path, an);
	if (o->strict && (xt_anom_any(an) || an->nmsgs))
		*rc = 1;
	return 0;
}

static int emit_json(json_t *root);

/* Each of FILES on its own, shown as a->text() or, with --json, in one
 * {"files": [a->json(), ...]}. */
static int for_each_file(const struct analysis *a, const struct topts *o, int n, char **files)
{
	json_t *arr = json_array();
	void *st = malloc(a->size);
	int rc = 0;

	if (!st) {
		json_decref(arr);
		fprintf(stderr, "ipibench trace: out of memory\n");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		struct xt_file f;
		char shown[512];

		sio_shown(shown, sizeof(shown), files[i]);
		if (open_file(o, files[i], &f)) {
			rc = 1;
			continue;
		}
		memset(st, 0, a->size);
		if (!read_file(a, o, shown, &f, st, &rc)) {
			if (o->json) {
				json_t *j = a->json(files[i], st, o);

				if (!j || json_array_append_new(arr, j)) {
					fprintf(stderr, "ipibench trace: %s: out of memory\n", shown);
					rc = 1;
				}
			} else {
				if (i)
					putchar('\n');
				a->text(shown, st, o);
			}
		}
		a->fini(st);
		xt_unmap(&f);
	}
	free(st);
	if (o->json) {
		if (emit_json(json_pack("{s:o}", "files", arr)))
			rc = 1;
	} else {
		json_decref(arr);
	}
	return rc;
}

static int emit_json(json_t *root)
{
	int rc;

	if (!root) {
		fprintf(stderr, "ipibench trace: out of memory making the JSON output\n");
		return 1;
	}
	rc = json_dumpf(root, stdout, JSON_INDENT(2));

	putchar('\n');
	json_decref(root);
	return rc ? 1 : 0;
}

static json_t *dist_json(const struct hist *h, double khz)
{
	if (!h->count)
		return json_pack("{s:i}", "count", 0);
	if (khz > 0)
		return json_pack("{s:I,s:f,s:f,s:f,s:f,s:f}", "count", (json_int_t)h->count,
				 "min", h->min * 1e6 / khz,
				 "p50", hist_quantile(h, 0.5) * 1e6 / khz,
				 "p95", hist_quantile(h, 0.95) * 1e6 / khz,
				 "max", h->max * 1e6 / khz, "mean", h->sum / h->count * 1e6 / khz);
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:f}", "count", (json_int_t)h->count,
			 "min", (json_int_t)h->min, "p50", (json_int_t)hist_quantile(h, 0.5),
			 "p95", (json_int_t)hist_quantile(h, 0.95), "max", (json_int_t)h->max,
			 "mean", h->sum / h->count);
}

static void dist_text(const struct hist *h, double scale)
{
	if (!h->count) {
		printf("  %10s %10s %10s %10s", "-", "-", "-", "-");
		return;
	}
	printf("  %10.0f %10.0f %10.0f %10.0f", h->min * scale, hist_quantile(h, 0.5) * scale,
	       hist_quantile(h, 0.95) * scale, h->max * scale);
}


/* ---- the HVM profile (probes/hvm.h), in summary ------------------------- */

/* A cmap's keys, by count (largest first), then key. */
struct kc {
	uint32_t key;
	uint64_t n;
};

static int kc_cmp(const void *a, const void *b)
{
	const struct kc *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return (x->key > y->key) - (x->key < y->key);
}

static struct kc *by_count(const struct cmap *m, uint32_t *n)
{
	struct kc *k = malloc((m->n + 1) * sizeof(*k));
	uint32_t j = 0;

	*n = 0;
	if (!k)
		return NULL;
	for (uint32_t i = 0; i < m->cap; i++)
		if (m->used[i] && m->v[i])
			k[j++] = (struct kc){ m->key[i], m->v[i] };
	qsort(k, j, sizeof(*k), kc_cmp);
	*n = j;
	return k;
}

static const char *dom_label(uint32_t dom, char *b, size_t len)
{
	if (dom == TR_HVM_DEFAULT_DOM)
		return "default";
	snprintf(b, len, "d%u", dom);
	return b;
}

static const char *reason_label(bool svm, uint32_t r, char *b, size_t len)
{
	const char *n = tr_hvm_exit_name(svm, r);

	if (n)
		return n;
	snprintf(b, len, "%u", r);
	return b;
}

static const char *handler_label(uint32_t ev, char *b, size_t len)
{
	return xt_event_label(ev, b, len);
}

static json_t *kc_json(const struct cmap *m, const char *kname, int kind, bool svm)
{
	json_t *a = json_array();
	uint32_t n;
	struct kc *k = by_count(m, &n);

	for (uint32_t i = 0; k && i < n; i++) {
		char b[48];
		json_t *o = json_pack("{s:I}", "count", (json_int_t)k[i].n);

		switch (kind) {
		case 0:	/* exit reason */
			json_object_set_new(o, "reason", json_string(reason_label(svm, k[i].key, b, sizeof(b))));
			json_object_set_new(o, "code", json_integer(k[i].key));
			break;
		case 1:	/* handler event */
			json_object_set_new(o, "event", json_string(handler_label(k[i].key, b, sizeof(b))));
			snprintf(b, sizeof(b), "0x%08x", k[i].key);
			json_object_set_new(o, "id", json_string(b));
			break;
		case 2:	/* vector */
			json_object_set_new(o, kname, json_integer(k[i].key));
			break;
		default: {	/* MSR */
			const char *mn = tr_hvm_msr_name(k[i].key);

			snprintf(b, sizeof(b), "0x%08x", k[i].key);
			json_object_set_new(o, kname, json_string(b));
			if (mn)
				json_object_set_new(o, "name", json_string(mn));
		}
		}
		json_array_append_new(a, o);
	}
	free(k);
	return a;
}

/* ---- per guest: IPIs sent, per IPI and per interrupt (tr_hvm_guests) ---- */

static const char ipi_note[] =
	"IPIs sent = on path apic, the x2APIC ICR IPIs to other vCPUs (MSR 0x830 write "
	"exits; a domain with any is on path apic), else on path evtchn the "
	"event_channel_op hypercalls (VMMCALL records: the trace has the hypercall "
	"number, not the sub-op, so every event_channel_op call counts, sends or not); "
	"self-IPIs apart. Interrupts = injections (INJ_VIRQ) not on an ICR IPI vector, "
	"Xen's upcall vector 243 included (event-channel IPIs, timers and pirqs alike).";

/* A guest worth a section: it exited, or sent or was injected anything. */
static bool guest_shown(const struct tr_hvm_guest *g)
{
	return g->vmexit || g->icr_writes || g->ipi_self || g->vmmcall || g->inj;
}

static json_t *per_json(uint64_t n, uint64_t d)
{
	return d ? json_real((double)n / (double)d) : json_null();
}

static json_t *guest_json(const struct tr_hvm_guest *g, bool svm)
{
	json_t *reasons = json_array(), *vec = json_array(), *pairs = json_array();
	uint32_t n;
	struct kc *k = by_count(&g->reason, &n);

	for (uint32_t i = 0; k && i < n; i++) {
		char b[48];

		json_array_append_new(reasons, json_pack("{s:s,s:i,s:I,s:o,s:o}",
			"reason", reason_label(svm, k[i].key, b, sizeof(b)), "code", (int)k[i].key,
			"count", (json_int_t)k[i].n, "per_ipi", per_json(k[i].n, g->ipis),
			"per_interrupt", per_json(k[i].n, g->inj_irq)));
	}
	free(k);
	k = by_count(&g->virq, &n);
	for (uint32_t i = 0; k && i < n; i++) {
		bool ipi = tr_cmap_get(&g->ipi_vec, k[i].key) != 0;

		json_array_append_new(vec, json_pack("{s:i,s:I,s:s,s:o}", "vector", (int)k[i].key,
			"count", (json_int_t)k[i].n, "kind", ipi ? "ipi" : "interrupt",
			"per_ipi", per_json(k[i].n, g->ipis)));
	}
	free(k);
	k = by_count(&g->pair, &n);
	for (uint32_t i = 0; k && i < n; i++) {
		uint32_t to = k[i].key & 0xffff;

		json_array_append_new(pairs, json_pack("{s:i,s:o,s:I}", "from_vcpu",
			(int)(k[i].key >> 16), "to_vcpu", to == 0xffff ? json_null() : json_integer(to),
			"count", (json_int_t)k[i].n));
	}
	free(k);
	return json_pack("{s:i,s:b,s:i,s:I,s:I,s:s,"
			 "s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o},"
			 "s:{s:I,s:I,s:I},"
			 "s:{s:s,s:o,s:o,s:o,s:o},"
			 "s:{s:s,s:o},"
			 "s:o,s:o}",
		"domain", (int)g->dom, "default_domain", g->dom == TR_HVM_DEFAULT_DOM,
		"vcpus", (int)g->nvcpus, "vmexit", (json_int_t)g->vmexit,
		"exits_closed", (json_int_t)g->exits, "ipi_path", g->path,
		"ipis", "sent", (json_int_t)g->ipis, "icr_ipis", (json_int_t)g->ipi_sent,
		"evtchn_op_calls", (json_int_t)g->evtchn_op, "self", (json_int_t)g->ipi_self,
		"icr_writes", (json_int_t)g->icr_writes, "icr_logical", (json_int_t)g->ipi_logical,
		"icr_shorthand", (json_int_t)g->ipi_shorthand, "icr_other_delivery",
		(json_int_t)g->icr_other, "vmmcall", (json_int_t)g->vmmcall, "pairs", pairs,
		"injections", "all", (json_int_t)g->inj, "ipi_vectors", (json_int_t)g->inj_ipi,
		"interrupts", (json_int_t)g->inj_irq,
		"per_ipi", "denominator", "ipis.sent",
		"exits", per_json(g->exits, g->ipis), "vmexit", per_json(g->vmexit, g->ipis),
		"injections", per_json(g->inj, g->ipis),
		"ipi_vector_injections", per_json(g->inj_ipi, g->ipis),
		"per_interrupt", "denominator", "injections.interrupts",
		"exits", per_json(g->exits, g->inj_irq),
		"exit_reasons", reasons, "inj_virq", vec);
}

static json_t *guests_json(const struct tr_hvm *h)
{
	json_t *a = json_array();
	struct tr_hvm_guest *g;
	uint32_t n;

	if (tr_hvm_guests(h, &g, &n))
		return json_null();
	for (uint32_t i = 0; i < n; i++)
		if (guest_shown(&g[i]))
			json_array_append_new(a, guest_json(&g[i], h->svm));
	tr_hvm_guests_free(g, n);
	return json_pack("{s:s,s:o}", "note", ipi_note, "domains", a);
}

static void per_text(char *b, size_t len, uint64_t n, uint64_t d)
{
	if (d)
		snprintf(b, len, "%.3f", (double)n / (double)d);
	else
		snprintf(b, len, "-");
}

static void guests_text(const struct tr_hvm *h)
{
	struct tr_hvm_guest *g;
	uint32_t n;

	if (tr_hvm_guests(h, &g, &n)) {
		printf("per guest: out of memory\n");
		return;
	}
	printf("\nIPIs and interrupts per guest (exact counts from the trace; ratios are count / "
	       "the denominator named)\n%s\n", ipi_note);
	for (uint32_t i = 0; i < n; i++) {
		const struct tr_hvm_guest *d = &g[i];
		char b[16], p1[32], p2[32], p3[32], p4[32];
		uint32_t nk;
		struct kc *k;

		if (!guest_shown(d))
			continue;
		printf("%s (%u vCPUs%s): path %s, %" PRIu64 " IPIs sent; %" PRIu64 " ICR IPIs, %" PRIu64
		       " event_channel_op calls, %" PRIu64 " self-IPIs; %" PRIu64 " ICR writes (%"
		       PRIu64 " logical, %" PRIu64 " shorthand, %" PRIu64 " other delivery modes)\n",
		       dom_label(d->dom, b, sizeof(b)), d->nvcpus,
		       d->dom == TR_HVM_DEFAULT_DOM ? ": vCPU N = pCPU N" : "", d->path, d->ipis,
		       d->ipi_sent, d->evtchn_op,
		       d->ipi_self, d->icr_writes, d->ipi_logical, d->ipi_shorthand, d->icr_other);
		per_text(p1, sizeof(p1), d->exits, d->ipis);
		per_text(p2, sizeof(p2), d->inj, d->ipis);
		per_text(p3, sizeof(p3), d->inj_ipi, d->ipis);
		per_text(p4, sizeof(p4), d->exits, d->inj_irq);
		printf("  injections: %" PRIu64 " (%" PRIu64 " on ICR IPI vectors, %" PRIu64
		       " interrupts)\n  per IPI sent: %s exits, %s injections, %s on IPI vectors; "
		       "per interrupt: %s exits\n", d->inj, d->inj_ipi, d->inj_irq, p1, p2, p3, p4);
		k = by_count(&d->pair, &nk);
		if (k && nk) {
			printf("  ICR IPIs by sender -> destination (APIC ID / 2):");
			for (uint32_t j = 0; j < nk; j++) {
				if ((k[j].key & 0xffff) == 0xffff)
					printf(" v%u->? %" PRIu64, k[j].key >> 16, k[j].n);
				else
					printf(" v%u->v%u %" PRIu64, k[j].key >> 16, k[j].key & 0xffff, k[j].n);
			}
			putchar('\n');
		}
		free(k);
		k = by_count(&d->virq, &nk);
		if (k && nk) {
			printf("  %12s %10s  %s\n", "injections", "per IPI", "vector");
			for (uint32_t j = 0; j < nk; j++) {
				per_text(p1, sizeof(p1), k[j].n, d->ipis);
				printf("  %12" PRIu64 " %10s  %u (0x%02x) %s\n", k[j].n, p1, k[j].key, k[j].key,
				       tr_cmap_get(&d->ipi_vec, k[j].key) ? "IPI" : "interrupt");
			}
		}
		free(k);
		k = by_count(&d->reason, &nk);
		if (k && nk) {
			printf("  %12s %10s %10s  %s\n", "exits", "per IPI", "per intr", "reason");
			for (uint32_t j = 0; j < nk; j++) {
				per_text(p1, sizeof(p1), k[j].n, d->ipis);
				per_text(p2, sizeof(p2), k[j].n, d->inj_irq);
				printf("  %12" PRIu64 " %10s %10s  %s\n", k[j].n, p1, p2,
				       reason_label(h->svm, k[j].key, b, sizeof(b)));
			}
		}
		free(k);
	}
	tr_hvm_guests_free(g, n);
}

static json_t *hvm_json(const struct tr_hvm *h)
{
	json_t *vs = json_array();

	for (uint32_t i = 0; i < h->nv; i++) {
		const struct tr_hvm_vcpu *v = &h->v[i];

		if (!v->vmexit && !v->vmentry && !v->handler.n)
			continue;
		json_array_append_new(vs, json_pack(
			"{s:i,s:b,s:i,s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:o}",
			"domain", (int)v->dom, "default_domain", v->dom == TR_HVM_DEFAULT_DOM,
			"vcpu", (int)v->vcpu, "vmexit", (json_int_t)v->vmexit,
			"vmentry", (json_int_t)v->vmentry, "exits_closed", (json_int_t)v->exits,
			"exit_reasons", kc_json(&v->reason, NULL, 0, h->svm),
			"handlers", kc_json(&v->handler, NULL, 1, h->svm),
			"inj_virq", kc_json(&v->virq, "vector", 2, h->svm),
			"msr_read", kc_json(&v->msr_read, "msr", 3, h->svm),
			"msr_write", kc_json(&v->msr_write, "msr", 3, h->svm)));
	}
	json_t *j = json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:o}", "exit_codes", h->svm ? "svm" : "vmx",
			 "hvm_records", (json_int_t)h->hvm_records,
			 "skipped_no_vcpu", (json_int_t)h->no_vcpu,
			 "skipped_outside_exit", (json_int_t)h->before_exit,
			 "short_records", (json_int_t)h->short_records,
			 "runstate_changes", (json_int_t)h->sched_records, "vcpus", vs);

	json_object_set_new(j, "guests", guests_json(h));
	return j;
}

static void kc_text(const char *title, const struct cmap *m, int kind, bool svm)
{
	uint32_t n;
	struct kc *k = by_count(m, &n);

	if (k && n) {
		printf("  %s\n", title);
		for (uint32_t i = 0; i < n; i++) {
			char b[48];
			const char *mn;

			switch (kind) {
			case 0:
				printf("    %12" PRIu64 "  %s\n", k[i].n, reason_label(svm, k[i].key, b, sizeof(b)));
				break;
			case 1:
				printf("    %12" PRIu64 "  %s\n", k[i].n, handler_label(k[i].key, b, sizeof(b)));
				break;
			case 2:
				printf("    %12" PRIu64 "  vector %u (0x%02x)\n", k[i].n, k[i].key, k[i].key);
				break;
			default:
				mn = tr_hvm_msr_name(k[i].key);
				printf("    %12" PRIu64 "  0x%08x%s%s\n", k[i].n, k[i].key, mn ? " " : "", mn ? mn : "");
			}
		}
	}
	free(k);
}

static void hvm_text(const struct tr_hvm *h)
{
	printf("\nHVM, per domain and vCPU (%s exit codes; counted as xenalyze --summary does)\n",
	       h->svm ? "AMD SVM" : "Intel VMX");
	if (!h->sched_records)
		printf("(no scheduler records: vCPU N of the default domain is whatever ran on pCPU N)\n");
	for (uint32_t i = 0; i < h->nv; i++) {
		const struct tr_hvm_vcpu *v = &h->v[i];
		char b[16];

		if (!v->vmexit && !v->vmentry && !v->handler.n)
			continue;
		printf("%sv%u: %" PRIu64 " VMEXIT, %" PRIu64 " VMENTRY, %" PRIu64 " exits closed by a VMENTRY\n",
		       dom_label(v->dom, b, sizeof(b)), v->vcpu, v->vmexit, v->vmentry, v->exits);
		kc_text("exit reasons", &v->reason, 0, h->svm);
		kc_text("handler events", &v->handler, 1, h->svm);
		kc_text("INJ_VIRQ by vector", &v->virq, 2, h->svm);
		kc_text("MSR_READ by MSR", &v->msr_read, 3, h->svm);
		kc_text("MSR_WRITE by MSR", &v->msr_write, 3, h->svm);
	}
	guests_text(h);
	if (h->no_vcpu || h->before_exit || h->short_records)
		printf("HVM records not counted: %" PRIu64 " with no vCPU running, %" PRIu64
		       " handler records outside an exit, %" PRIu64 " too short\n",
		       h->no_vcpu, h->before_exit, h->short_records);
}

/* ---- summary --------------------------------------------------------------- */

static json_t *summary_json(const char *path, const void *st, const struct topts *o)
{
	const struct tr_summary *s = st;
	json_t *ev = json_array(), *cpus = json_array();
	struct tr_row *rows;
	size_t n;

	(void)o;
	rows = tr_summary_rows(s, &n);
	for (size_t i = 0; rows && i < n; i++) {
		json_t *ids = json_array();

		for (uint32_t j = 0; j < rows[i].nids; j++) {
			char b[16];

			snprintf(b, sizeof(b), "0x%08x", rows[i].ids[j]);
			json_array_append_new(ids, json_string(b));
		}
		json_array_append_new(ev, json_pack("{s:s,s:I,s:o}", "name", rows[i].name,
						    "count", (json_int_t)rows[i].count, "ids", ids));
	}
	free(rows);
	for (uint32_t c = 0; c < s->ncpu; c++) {
		const struct tr_cpu *p = &s->cpu[c];

		if (!p->chunks && !p->records)
			continue;
		json_array_append_new(cpus, json_pack("{s:i,s:I,s:I,s:I,s:I}", "cpu", (int)c,
						      "records", (json_int_t)p->records,
						      "chunks", (json_int_t)p->chunks,
						      "lost_records", (json_int_t)p->lost,
						      "wrap_buffer", (json_int_t)p->wraps));
	}
	json_t *j = json_pack("{s:o,s:I,s:I,s:I,s:I,s:o,s:o,s:o}", "file", sio_json_str(path),
			      "bytes", (json_int_t)s->bytes, "records", (json_int_t)s->records,
			      "chunks", (json_int_t)s->chunks, "lost_records", (json_int_t)s->lost,
			      "events", ev, "cpus", cpus, "anomalies", tr_anom_json(&s->an));

	if (j && s->has_hvm)
		json_object_set_new(j, "hvm", hvm_json(&s->hvm));
	return j;
}

static void summary_text(const char *path, const void *st, const struct topts *o)
{
	const struct tr_summary *s = st;
	struct tr_row *rows;
	size_t n;

	(void)o;
	printf("%s: %" PRIu64 " records in %" PRIu64 " chunks, %" PRIu64 " bytes\n", path,
	       s->records, s->chunks, s->bytes);
	rows = tr_summary_rows(s, &n);
	printf("%12s  %s\n", "count", "event");
	for (size_t i = 0; rows && i < n; i++)
		printf("%12" PRIu64 "  %s\n", rows[i].count, rows[i].name);
	free(rows);
	printf("\n%5s %12s %8s %12s %11s\n", "cpu", "records", "chunks", "lost_records",
	       "wrap_buffer");
	for (uint32_t c = 0; c < s->ncpu; c++) {
		const struct tr_cpu *p = &s->cpu[c];

		if (p->chunks || p->records)
			printf("%5u %12" PRIu64 " %8" PRIu64 " %12" PRIu64 " %11" PRIu64 "\n", c,
			       p->records, p->chunks, p->lost, p->wraps);
	}
	if (s->lost)
		printf("warning: %" PRIu64 " records were lost by Xen (trace buffers full)\n",
		       s->lost);
	if (s->has_hvm)
		hvm_text(&s->hvm);
	print_anom_line(&s->an);
}

TR_ANALYSIS(summary);

/* ---- diff ------------------------------------------------------------------- */

/*
 * A row of the diff: an event of A or B (measured), or, with --reference,
 * a row of the reference's profiles that neither trace has (measured
 * false: "-" in A, B, change and ratio).  seed: the reference's row of the
 * same name, or NULL.
 */
struct drow {
	const char *name;
	uint64_t a, b;
	bool measured;
	const struct tr_hvmref_row *seed;
	size_t ord;		/* reference order, for the rows not measured */
};

static int drow_cmp(const void *x, const void *y)
{
	const struct drow *p = x, *q = y;
	double dp = fabs((double)p->b - (double)p->a), dq = fabs((double)q->b - (double)q->a);

	if (p->measured != q->measured)
		return p->measured ? -1 : 1;
	if (!p->measured)
		return (p->ord > q->ord) - (p->ord < q->ord);
	if (dp != dq)
		return dp < dq ? 1 : -1;
	return strcmp(p->name, q->name);
}

/* The order tr_summary_rows() sorts its names in (case-blind first). */
static int name_cmp(const char *x, const char *y)
{
	int c = strcasecmp(x, y);

	return c ? c : strcmp(x, y);
}

static const char ref_note[] =
	"The reference counts no IPI and no interrupt: nothing is per IPI or per interrupt "
	"here. Compare the ratios (after / before), not the counts: the seed's are one 5 s "
	"window of a whole host, on hardware with APIC virtualization.";

static json_t *ratio_json(uint64_t a, uint64_t b)
{
	return a ? json_real((double)b / (double)a) : json_null();
}

static void ratio_text(char *buf, size_t len, uint64_t a, uint64_t b)
{
	if (a)
		snprintf(buf, len, "%.3f", (double)b / (double)a);
	else
		snprintf(buf, len, "-");
}

/*
 * Each ratio over the VMEXIT row's ratio of the same side (seed or
 * measured): how the event moved per VM exit, with the activity level
 * (fewer IPIs or requests in the window) divided out.  The VMEXIT ratios
 * of both sides, or 0 when a side has none.
 */
struct per_exit {
	double seed, measured;
};

static struct per_exit per_exit_base(const struct drow *d, size_t nd)
{
	struct per_exit pe = { 0, 0 };

	for (size_t i = 0; i < nd; i++) {
		if (strcmp(d[i].name, "VMEXIT"))
			continue;
		if (d[i].measured && d[i].a && d[i].b)
			pe.measured = (double)d[i].b / (double)d[i].a;
		if (d[i].seed && d[i].seed->before && d[i].seed->after)
			pe.seed = (double)d[i].seed->after / (double)d[i].seed->before;
	}
	return pe;
}

/* The per-exit ratios of row D (NAN: not defined). */
static struct per_exit per_exit_of(const struct drow *d, struct per_exit base)
{
	struct per_exit pe = { NAN, NAN };

	if (d->seed && d->seed->before && base.seed > 0)
		pe.seed = (double)d->seed->after / (double)d->seed->before / base.seed;
	if (d->measured && d->a && base.measured > 0)
		pe.measured = (double)d->b / (double)d->a / base.measured;
	return pe;
}

static json_t *num_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static void num_text(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3f", v);
}

/*
 * Which way a reference row moved from before to after, in the seed and
 * measured: by count (M_COUNT) or per VM exit (M_PER_EXIT, the ratios of
 * per_exit_of() against 1).  A sign: 1 up, -1 down, 0 flat, 2 not defined
 * (nothing measured; per exit: a count of 0 before, or no VMEXIT row).
 */
enum { M_COUNT, M_PER_EXIT, M_N };
static const char *const move_key[M_N] = { "count", "per_exit" };

struct move {
	int seed, measured;
};

static int sign_of(double r)
{
	return isnan(r) ? 2 : r > 1 ? 1 : r < 1 ? -1 : 0;
}

static struct move move_of(const struct drow *d, int kind, struct per_exit base)
{
	struct move m;

	if (kind == M_COUNT) {
		m.seed = (d->seed->after > d->seed->before) - (d->seed->after < d->seed->before);
		m.measured = d->measured ? (d->b > d->a) - (d->b < d->a) : 2;
	} else {
		struct per_exit pe = per_exit_of(d, base);

		m.seed = sign_of(pe.seed);
		m.measured = d->measured ? sign_of(pe.measured) : 2;
	}
	return m;
}

static const char *dir_word(int sign)
{
	return sign == 2 ? "-" : sign > 0 ? "up" : sign < 0 ? "down" : "flat";
}

/*
 * The verdict on a reference row: "same" (the seed's count and the
 * measured one moved the same way), "opposite", "unchanged" (one of them
 * did not move), "no measured counterpart" (neither trace has the event),
 * "not defined" (per exit only: a count of 0 before on a side).
 */
enum { V_SAME, V_OPPOSITE, V_UNCHANGED, V_NONE, V_UNDEF, V_N };
static const char *const verdict_name[V_N] = { "same", "opposite", "unchanged",
					       "no measured counterpart", "not defined" };
static const char *const verdict_key[V_N] = { "same", "opposite", "unchanged",
					      "no_measured_counterpart", "not_defined" };

static int verdict(const struct drow *d, struct move m)
{
	if (!d->measured)
		return V_NONE;
	if (m.seed == 2 || m.measured == 2)
		return V_UNDEF;
	if (!m.seed || !m.measured)
		return V_UNCHANGED;
	return m.seed == m.measured ? V_SAME : V_OPPOSITE;
}

static json_t *diff_json_row(const struct drow *d, struct per_exit base)
{
	json_t *o;

	if (d->measured)
		o = json_pack("{s:s,s:I,s:I,s:I,s:o}", "name", d->name, "a", (json_int_t)d->a,
			      "b", (json_int_t)d->b,
			      "change", (json_int_t)((int64_t)d->b - (int64_t)d->a),
			      "ratio", ratio_json(d->a, d->b));
	else
		o = json_pack("{s:s,s:n,s:n,s:n,s:n}", "name", d->name, "a", "b", "change", "ratio");
	if (d->seed) {
		struct per_exit pe = per_exit_of(d, base);
		json_t *dir = json_object();

		json_object_set_new(o, "seed", json_pack("{s:I,s:I,s:o}",
			"before", (json_int_t)d->seed->before, "after", (json_int_t)d->seed->after,
			"ratio", ratio_json(d->seed->before, d->seed->after)));
		json_object_set_new(o, "per_exit_ratio", json_pack("{s:o,s:o}",
			"seed", num_or_null(pe.seed), "measured", num_or_null(pe.measured)));
		for (int k = 0; k < M_N; k++) {
			struct move m = move_of(d, k, base);

			json_object_set_new(dir, move_key[k], json_pack("{s:s,s:o,s:s}",
				"seed", dir_word(m.seed),
				"measured", m.measured == 2 ? json_null() : json_string(dir_word(m.measured)),
				"verdict", verdict_name[verdict(d, m)]));
		}
		json_object_set_new(o, "direction", dir);
	}
	return o;
}

/* The direction lines: each reference row under its verdict, by count and
 * per exit. */
static void directions_text(const struct drow *d, size_t nd, struct per_exit base)
{
	static const char *const title[M_N] = { "by count", "per exit" };

	printf("\nthe reference's rows, which way they moved from before (A) to after (B), "
	       "seed/measured:\n");
	for (int kind = 0; kind < M_N; kind++) {
		printf("  %s:\n", title[kind]);
		for (int v = 0; v < V_N; v++) {
			size_t k = 0;

			for (size_t i = 0; i < nd; i++) {
				struct move m;

				if (!d[i].seed || verdict(&d[i], m = move_of(&d[i], kind, base)) != v)
					continue;
				if (!k++)
					printf("    %s:", verdict_name[v]);
				printf(" %s (%s/%s)", d[i].name, dir_word(m.seed), dir_word(m.measured));
			}
			if (k)
				putchar('\n');
		}
	}
	printf("%s\n", ref_note);
	printf("Per exit: each ratio over the VMEXIT ratio of its side (seed %.3f, measured %.3f): "
	       "how the event moved per VM exit.\n", base.seed, base.measured);
}

static json_t *directions_json(const struct drow *d, size_t nd, struct per_exit base)
{
	json_t *o = json_object();

	for (int kind = 0; kind < M_N; kind++) {
		json_t *ok = json_object();

		for (int v = 0; v < V_N; v++) {
			json_t *arr = json_array();

			for (size_t i = 0; i < nd; i++)
				if (d[i].seed && verdict(&d[i], move_of(&d[i], kind, base)) == v)
					json_array_append_new(arr, json_string(d[i].name));
			json_object_set_new(ok, verdict_key[v], arr);
		}
		json_object_set_new(o, move_key[kind], ok);
	}
	return o;
}

/*
 * The "per IPI" rows of diff: the guest of each side (its guest domains
 * summed, tr_hvm_guest_sum), each figure over its side's own
 * denominator (IPIs sent, or interrupts injected), and which way it moved
 * from A to B.
 */
struct pside {
	struct tr_hvm_guest g;	/* the guest of the trace (tr_hvm_guest_sum) */
	bool ok;
};

static void pside_fill(struct pside *p, const struct tr_summary *s)
{
	struct tr_hvm_guest *g;
	uint32_t n;

	memset(p, 0, sizeof(*p));
	if (!s->has_hvm || tr_hvm_guests(&s->hvm, &g, &n))
		return;
	p->ok = tr_hvm_guest_sum(g, n, &p->g) >= 0;
	tr_hvm_guests_free(g, n);
}

struct prow {
	char name[64];
	const char *per;	/* "IPI sent" / "interrupt" */
	struct tr_move m;
};

static int prow_fill(struct prow *r, size_t max, const struct pside p[2], bool svm)
{
	size_t n = 0;

#define PROW(nm, per_, fa, fb) do { if (n < max) { \
	snprintf(r[n].name, sizeof(r[n].name), "%s", nm); r[n].per = per_; \
	r[n].m = (struct tr_move){ p[0].g.fa, p[0].g.fb, p[1].g.fa, p[1].g.fb }; n++; } } while (0)
	PROW("exits", "IPI sent", exits, ipis);
	PROW("injections", "IPI sent", inj, ipis);
	PROW("injections on IPI vectors", "IPI sent", inj_ipi, ipis);
	PROW("interrupts", "IPI sent", inj_irq, ipis);
	PROW("exits", "interrupt", exits, inj_irq);
#undef PROW
	/* each exit reason of either side, per IPI */
	for (int k = 0; k < 2; k++)
		for (uint32_t j = 0; j < p[k].g.reason.cap; j++) {
			uint32_t key = p[k].g.reason.key[j];
			size_t m;
			char b[48];

			if (!p[k].g.reason.used[j] || (k && tr_cmap_get(&p[0].g.reason, key)))
				continue;
			if (n >= max)
				break;
			m = n++;
			snprintf(r[m].name, sizeof(r[m].name), "%s", reason_label(svm, key, b, sizeof(b)));
			r[m].per = "IPI sent";
			r[m].m = (struct tr_move){ tr_cmap_get(&p[0].g.reason, key), p[0].g.ipis,
						   tr_cmap_get(&p[1].g.reason, key), p[1].g.ipis };
		}
	return (int)n;
}

static int prow_cmp(const void *x, const void *y)
{
	const struct prow *p = x, *q = y;
	int c = tr_move_cmp(&p->m, &q->m);

	return c ? c : strcmp(p->name, q->name);
}

#define PROW_MAX 256

/* 5 fixed rows first, then the exit reasons by how far they moved. */
static struct prow *per_ipi_rows(const struct tr_summary s[2], size_t *n, uint64_t ipis[2])
{
	struct pside p[2];
	struct prow *r = calloc(PROW_MAX, sizeof(*r));

	*n = 0;
	pside_fill(&p[0], &s[0]);
	pside_fill(&p[1], &s[1]);
	ipis[0] = p[0].g.ipis;
	ipis[1] = p[1].g.ipis;
	if (r && p[0].ok && p[1].ok && (p[0].g.ipis || p[1].g.ipis)) {
		*n = (size_t)prow_fill(r, PROW_MAX, p, s[0].hvm.svm || s[1].hvm.svm);
		if (*n > 5)
			qsort(r + 5, *n - 5, sizeof(*r), prow_cmp);
	}
	tr_hvm_guest_fini(&p[0].g);
	tr_hvm_guest_fini(&p[1].g);
	return r;
}

static void per_ipi_text(const struct prow *r, size_t n, const uint64_t ipis[2])
{
	if (!n)
		return;
	printf("\nper IPI and per interrupt (the guest domains summed, the default "
	       "domain only in a trace without a real one; exact counts "
	       "over each side's own denominator; IPIs sent: A %" PRIu64 ", B %" PRIu64 ")\n",
	       ipis[0], ipis[1]);
	printf("%-28s %-10s %10s %10s %10s %10s %9s %9s %8s  %s\n", "figure", "per", "A count",
	       "A denom", "B count", "B denom", "A", "B", "ratio", "moved");
	for (size_t i = 0; i < n; i++) {
		char a[32], b[32], q[32];
		double va = tr_ratio(r[i].m.na, r[i].m.da), vb = tr_ratio(r[i].m.nb, r[i].m.db);

		num_text(a, sizeof(a), va);
		num_text(b, sizeof(b), vb);
		num_text(q, sizeof(q), !isnan(va) && !isnan(vb) && va > 0 ? vb / va : NAN);
		printf("%-28s %-10s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
		       " %9s %9s %8s  %s\n", r[i].name, r[i].per, r[i].m.na, r[i].m.da, r[i].m.nb, r[i].m.db,
		       a, b, q, tr_moved(&r[i].m));
	}
}

static json_t *per_ipi_json(const struct prow *r, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++) {
		double va = tr_ratio(r[i].m.na, r[i].m.da), vb = tr_ratio(r[i].m.nb, r[i].m.db);

		json_array_append_new(a, json_pack("{s:s,s:s,s:{s:I,s:I,s:o},s:{s:I,s:I,s:o},s:o,s:s}",
			"name", r[i].name, "per", r[i].per,
			"a", "count", (json_int_t)r[i].m.na, "denominator", (json_int_t)r[i].m.da,
			"value", num_or_null(va),
			"b", "count", (json_int_t)r[i].m.nb, "denominator", (json_int_t)r[i].m.db,
			"value", num_or_null(vb),
			"ratio", num_or_null(!isnan(va) && !isnan(vb) && va > 0 ? vb / va : NAN),
			"moved", tr_moved(&r[i].m)));
	}
	return a;
}

static int do_diff(struct topts *o, int n, char **files)
{
	struct xt_file f[2];
	struct tr_summary s[2];
	struct tr_row *rows[2] = { NULL, NULL };
	size_t nr[2] = { 0, 0 }, i, j, nd = 0;
	struct drow *d = NULL;
	struct tr_hvmref ref;
	bool has_ref = o->reference != NULL;
	struct per_exit base;
	struct prow *pr = NULL;
	size_t npr = 0;
	uint64_t pipis[2] = { 0, 0 };
	int rc = 0, k;

	(void)n;
	memset(s, 0, sizeof(s));
	memset(&ref, 0, sizeof(ref));
	/* The reference first: a file that is refused costs no trace read. */
	if (has_ref) {
		char err[512];

		if (tr_hvmref_load(o->reference, &ref, err, sizeof(err))) {
			fprintf(stderr, "ipibench trace: %s\n", err);
			tr_hvmref_free(&ref);
			return 1;
		}
	}
	char shown[2][512];

	for (k = 0; k < 2; k++)
		sio_shown(shown[k], sizeof(shown[k]), files[k]);
	for (k = 0; k < 2; k++) {
		if (open_file(o, files[k], &f[k])) {
			if (k)
				xt_unmap(&f[0]);
			tr_hvmref_free(&ref);
			return 1;
		}
	}
	for (k = 0; k < 2; k++) {
		if (read_file(&summary_analysis, o, shown[k], &f[k], &s[k], &rc))
			goto out;
		rows[k] = tr_summary_rows(&s[k], &nr[k]);
	}
	d = calloc(nr[0] + nr[1] + ref.nrows + 1, sizeof(*d));
	if (!d || !rows[0] || !rows[1]) {
		rc = 1;
		goto out;
	}
	/* Both row lists are sorted by name (name_cmp): merge them.  With
	 * strcmp here, a name that sorts differently by case ("vlapic" before
	 * "VMENTRY") split a row of both files in two. */
	for (i = 0, j = 0; i < nr[0] || j < nr[1];) {
		int c = i >= nr[0] ? 1 : j >= nr[1] ? -1 : name_cmp(rows[0][i].name, rows[1][j].name);

		if (c < 0) {
			d[nd++] = (struct drow){ rows[0][i].name, rows[0][i].count, 0, true, NULL, 0 };
			i++;
		} else if (c > 0) {
			d[nd++] = (struct drow){ rows[1][j].name, 0, rows[1][j].count, true, NULL, 0 };
			j++;
		} else {
			d[nd++] = (struct drow){ rows[0][i].name, rows[0][i].count, rows[1][j].count,
						 true, NULL, 0 };
			i++;
			j++;
		}
	}
	/* The reference's rows join the measured row of the same name: the
	 * seed's names are xentrace_format's, which trace summary's are too
	 * (probes/events.c), so the map is by name.  A reference row that
	 * neither trace has is a row of its own, with "-" measured. */
	for (i = 0; i < ref.nrows; i++) {
		size_t m;

		for (m = 0; m < nd && strcmp(d[m].name, ref.rows[i].name); m++)
			;
		if (m < nd && d[m].measured)
			d[m].seed = &ref.rows[i];
		else
			d[nd++] = (struct drow){ ref.rows[i].name, 0, 0, false, &ref.rows[i], i };
	}
	qsort(d, nd, sizeof(*d), drow_cmp);
	base = per_exit_base(d, nd);
	pr = per_ipi_rows(s, &npr, pipis);
	if (!pr) {
		rc = 1;
		goto out;
	}
	if (o->json) {
		json_t *arr = json_array(), *root;

		for (i = 0; i < nd; i++)
			json_array_append_new(arr, diff_json_row(&d[i], base));
		root = json_pack("{s:{s:o,s:I,s:o},s:{s:o,s:I,s:o},s:o}",
				 "a", "file", sio_json_str(files[0]), "records", (json_int_t)s[0].records,
				 "anomalies", tr_anom_json(&s[0].an),
				 "b", "file", sio_json_str(files[1]), "records", (json_int_t)s[1].records,
				 "anomalies", tr_anom_json(&s[1].an), "rows", arr);
		json_object_set_new(root, "per_ipi", json_pack("{s:s,s:I,s:I,s:o}", "note", ipi_note,
			"ipis_a", (json_int_t)pipis[0], "ipis_b", (json_int_t)pipis[1],
			"rows", per_ipi_json(pr, npr)));
		if (has_ref) {
			json_object_set_new(root, "reference", json_pack(
				"{s:o,s:s,s:s,s:s,s:f,s:s,s:s,s:s}", "file", sio_json_str(ref.path), "name", ref.name,
				"source", ref.source, "xentrace_mask", ref.mask, "seconds", ref.seconds,
				"before", "A", "after", "B", "note", ref_note));
			json_object_set_new(root, "vmexit_ratio", json_pack("{s:o,s:o}",
				"seed", base.seed > 0 ? json_real(base.seed) : json_null(),
				"measured", base.measured > 0 ? json_real(base.measured) : json_null()));
			json_object_set_new(root, "directions", directions_json(d, nd, base));
		}
		if (emit_json(root))
			rc = 1;
	} else {
		size_t nshown = o->top && o->top < nd ? o->top : nd;

		printf("A: %s (%" PRIu64 " records)\nB: %s (%" PRIu64 " records)\n", shown[0],
		       s[0].records, shown[1], s[1].records);
		if (has_ref) {
			char q[4][512];

			printf("reference: %s (%s: %s; xentrace -e %s, %g s): its before beside A, "
			       "its after beside B\n", sio_shown(q[0], sizeof(q[0]), ref.path),
			       sio_shown(q[1], sizeof(q[1]), ref.name),
			       sio_shown(q[2], sizeof(q[2]), ref.source),
			       sio_shown(q[3], sizeof(q[3]), ref.mask), ref.seconds);
		}
		printf("\n%-28s %12s %12s %12s %8s", "event", "A", "B", "change", "ratio");
		if (has_ref)
			printf(" %12s %12s %8s %9s %9s  %s", "seed before", "seed after", "ratio",
			       "seed/exit", "meas/exit", "seed/measured");
		putchar('\n');
		for (i = 0; i < nshown; i++) {
			char ratio[32];

			if (d[i].measured) {
				ratio_text(ratio, sizeof(ratio), d[i].a, d[i].b);
				printf("%-28s %12" PRIu64 " %12" PRIu64 " %+12" PRId64 " %8s", d[i].name,
				       d[i].a, d[i].b, (int64_t)d[i].b - (int64_t)d[i].a, ratio);
			} else {
				printf("%-28s %12s %12s %12s %8s", d[i].name, "-", "-", "-", "-");
			}
			if (has_ref && d[i].seed) {
				struct per_exit pe = per_exit_of(&d[i], base);
				struct move m = move_of(&d[i], M_COUNT, base);
				char ps[32], pm[32];

				ratio_text(ratio, sizeof(ratio), d[i].seed->before, d[i].seed->after);
				num_text(ps, sizeof(ps), pe.seed);
				num_text(pm, sizeof(pm), pe.measured);
				printf(" %12" PRIu64 " %12" PRIu64 " %8s %9s %9s  %s/%s %s", d[i].seed->before,
				       d[i].seed->after, ratio, ps, pm, dir_word(m.seed),
				       dir_word(m.measured), verdict_name[verdict(&d[i], m)]);
			} else if (has_ref) {
				printf(" %12s %12s %8s %9s %9s  -", "-", "-", "-", "-", "-");
			}
			putchar('\n');
		}
		if (nshown < nd)
			printf("(%zu more rows; --top 0 shows all)\n", nd - nshown);
		if (has_ref)
			directions_text(d, nd, base);
		per_ipi_text(pr, npr, pipis);
		for (k = 0; k < 2; k++)
			if (xt_anom_any(&s[k].an) || s[k].an.nmsgs) {
				printf("%s ", k ? "B" : "A");
				print_anom_line(&s[k].an);
			}
	}
out:
	free(d);
	free(pr);
	for (k = 0; k < 2; k++) {
		free(rows[k]);
		tr_summary_fini(&s[k]);
		xt_unmap(&f[k]);
	}
	tr_hvmref_free(&ref);
	return rc;
}

/* ---- ipi --------------------------------------------------------------------- */

static json_t *ipi_json(const char *path, const struct tr_ipi *p, double khz)
{
	json_t *modes = json_array(), *cpus = json_array(), *vecs = json_array();

	for (int m = 0; m < TR_NMODES; m++) {
		const struct tr_mode *md = &p->mode[m];

		if (!md->ops && !md->lat.count)
			continue;
		json_array_append_new(modes, json_pack(
			"{s:s,s:I,s:o,s:o,s:I,s:o,s:o,s:o,s:o}", "mode", tr_mode_name[m],
			"operations", (json_int_t)md->ops,
			"destinations", dist_json(&md->dests, 0),
			"icr_writes", dist_json(&md->icr, 0),
			"icr_writes_total", (json_int_t)md->icr_total,
			"send_cycles", dist_json(&md->cost, 0),
			"send_ns", khz > 0 ? dist_json(&md->cost, khz) : json_null(),
			"latency_cycles", dist_json(&md->lat, 0),
			"latency_ns", khz > 0 ? dist_json(&md->lat, khz) : json_null()));
	}
	for (uint32_t c = 0; c < XT_MAX_CPUS; c++) {
		if (!p->lat_cpu[c])
			continue;
		json_array_append_new(cpus, json_pack("{s:i,s:o,s:o}", "cpu", (int)c,
			"latency_cycles", dist_json(p->lat_cpu[c], 0),
			"latency_ns", khz > 0 ? dist_json(p->lat_cpu[c], khz) : json_null()));
	}
	{
		uint32_t n, *k = sorted_slots(&p->groups, &n);

		for (uint32_t i = 0; k && i < n; i++) {
			uint32_t key = k[2 * i], sl = k[2 * i + 1];

			json_array_append_new(vecs, json_pack("{s:s,s:i,s:i,s:I,s:I,s:f}",
				"mode", tr_mode_name[key >> 28], "vector", (int)(key >> 20 & 0xff),
				"destinations", (int)(key & 0xfffff),
				"operations", (json_int_t)p->groups.v[sl],
				"icr_writes_total", (json_int_t)p->groups.w[sl],
				"icr_writes_per_op", (double)p->groups.w[sl] / (double)p->groups.v[sl]));
		}
		free(k);
	}
	return json_pack("{s:o,s:o,s:o,s:o,s:I,s:I,s:I,s:o,s:o}", "file", sio_json_str(path),
			 "tsc_khz", khz > 0 ? json_real(khz) : json_null(),
			 "modes", modes, "groups", vecs, "receives", (json_int_t)p->recv,
			 "unmatched_receives", (json_int_t)p->unmatched,
			 "icr_write_events", (json_int_t)p->icr_writes,
			 "latency_per_cpu", cpus, "anomalies", tr_anom_json(&p->an));
}

static void ipi_text(const char *path, const struct tr_ipi *p, double khz)
{
	double scale = khz > 0 ? 1e6 / khz : 1;
	const char *unit = khz > 0 ? "ns" : "cycles";
	char label[32];
	int any = 0;

	printf("%s: IPI operations", path);
	if (khz > 0)
		printf(" (TSC %.0f kHz)\n", khz);
	else
		printf(" (TSC frequency unknown: cycles; --tsc-khz KHZ for ns)\n");
	printf("%-23s %10s %10s %10s %10s\n", "", "min", "p50", "p95", "max");
	for (int m = 0; m < TR_NMODES; m++) {
		const struct tr_mode *md = &p->mode[m];

		if (!md->ops)
			continue;
		any = 1;
		printf("%s: %" PRIu64 " ops, %.2f ICR writes per op (%" PRIu64 " in all)\n",
		       tr_mode_name[m], md->ops, (double)md->icr_total / (double)md->ops,
		       md->icr_total);
		printf("  %-20s", "destinations");
		dist_text(&md->dests, 1);
		printf("\n  %-20s", "ICR writes");
		dist_text(&md->icr, 1);
		if (m != TR_SELF) {
			snprintf(label, sizeof(label), "send cost (%s)", unit);
			printf("\n  %-20s", label);
			dist_text(&md->cost, scale);
		}
		snprintf(label, sizeof(label), "latency (%s)", unit);
		printf("\n  %-20s", label);
		dist_text(&md->lat, scale);
		printf("   %" PRIu64 " receives\n", md->lat.count);
	}
	if (any) {
		uint32_t n, *k = sorted_slots(&p->groups, &n);

		printf("\n%-10s %6s %6s %10s %12s\n", "sends", "vector", "dests", "ops",
		       "ICR/op");
		for (uint32_t i = 0; k && i < n; i++) {
			uint32_t key = k[2 * i], sl = k[2 * i + 1];

			printf("%-10s   0x%02x %6u %10" PRIu64 " %12.2f\n", tr_mode_name[key >> 28],
			       key >> 20 & 0xff, key & 0xfffff, p->groups.v[sl],
			       (double)p->groups.w[sl] / (double)p->groups.v[sl]);
		}
		free(k);
	}
	if (!any)
		printf("no apic:send_ipi_* records (a trace from ipibench's patched Xen, with "
		       "class 0x0080f000 enabled?)\n");
	printf("receives: %" PRIu64 ", unmatched (no operation of their vector with a send "
	       "record before them): %" PRIu64 "\n",
	       p->recv, p->unmatched);
	if (p->icr_writes) {
		uint64_t sum = 0;

		for (int m = 0; m < TR_NMODES; m++)
			sum += p->mode[m].icr_total;
		printf("apic:icr_write records: %" PRIu64 " (the sends count %" PRIu64 ")\n",
		       p->icr_writes, sum);
	}
	if (p->recv - p->unmatched) {
		printf("\nlatency per receiving CPU (%s)\n%5s %10s %10s %10s %10s %10s\n", unit,
		       "cpu", "count", "min", "p50", "p95", "max");
		for (uint32_t c = 0; c < XT_MAX_CPUS; c++) {
			if (!p->lat_cpu[c])
				continue;
			printf("%5u %10" PRIu64, c, p->lat_cpu[c]->count);
			dist_text(p->lat_cpu[c], scale);
			putchar('\n');
		}
	}
	print_anom_line(&p->an);
}


static int ipi_run(void *st, const struct xt_file *f) { return tr_ipi_run(st, f); }
static void ipi_fini(void *st) { tr_ipi_fini(st); }

/* TSC kHz: --tsc-khz, else the file's apic:tsc_khz record (0: cycles only). */
static double ipi_khz(const struct tr_ipi *p, const struct topts *o)
{
	return o->tsc_khz > 0 ? o->tsc_khz : p->tsc_khz;
}

static json_t *ipi_json_hook(const char *path, const void *st, const struct topts *o)
{
	return ipi_json(path, st, ipi_khz(st, o));
}

static void ipi_text_hook(const char *path, const void *st, const struct topts *o)
{
	ipi_text(path, st, ipi_khz(st, o));
}

static const struct analysis ipi_analysis = {
	.size = sizeof(struct tr_ipi), .run = ipi_run, .fini = ipi_fini,
	.records = offsetof(struct tr_ipi, records),
	.chunks = NO_CHUNKS,   /* the merged reader counts none */
	.an = offsetof(struct tr_ipi, an),
	.json = ipi_json_hook, .text = ipi_text_hook,
};

/* ---- irq ---------------------------------------------------------------------- */

static json_t *irq_json(const char *path, const void *st, const struct topts *o)
{
	const struct tr_irq *q = st;
	json_t *cpus = json_array(), *irqs = json_array(), *vecs = json_array();

	(void)o;
	for (uint32_t c = 0; c < q->ncpu; c++)
		if (q->irqs[c] || q->ipis[c] || q->unmapped[c])
			json_array_append_new(cpus, json_pack("{s:i,s:I,s:I,s:I}", "cpu", (int)c,
				"irqs", (json_int_t)q->irqs[c], "ipis", (json_int_t)q->ipis[c],
				"unmapped_vectors", (json_int_t)q->unmapped[c]));
	for (uint32_t i = 0; i < q->irq.cap; i++)
		if (q->irq.used[i])
			json_array_append_new(irqs, json_pack("{s:I,s:I,s:f}", "irq",
				(json_int_t)q->irq.key[i], "count", (json_int_t)q->irq.v[i],
				"mean_cycles", (double)q->irq.w[i] / (double)q->irq.v[i]));
	for (uint32_t i = 0; i < q->vec.cap; i++)
		if (q->vec.used[i])
			json_array_append_new(vecs, json_pack("{s:I,s:I}", "vector",
				(json_int_t)q->vec.key[i], "ipis", (json_int_t)q->vec.v[i]));
	return json_pack("{s:o,s:o,s:o,s:o,s:o}", "file", sio_json_str(path), "cpus", cpus, "irqs", irqs,
			 "vectors", vecs, "anomalies", tr_anom_json(&q->an));
}

static int key_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Slots of a cmap ordered by key. */
static uint32_t *sorted_slots(const struct cmap *m, uint32_t *n)
{
	uint32_t *k = malloc((m->n + 1) * sizeof(*k) * 2), j = 0;

	*n = 0;
	if (!k)
		return NULL;
	for (uint32_t i = 0; i < m->cap; i++)
		if (m->used[i]) {
			k[2 * j] = m->key[i];
			k[2 * j + 1] = i;
			j++;
		}
	qsort(k, j, 2 * sizeof(*k), key_cmp);
	*n = j;
	return k;
}

static void irq_text(const char *path, const void *st, const struct topts *o)
{
	const struct tr_irq *q = st;
	uint32_t n, *k;
	uint64_t ti = 0, tp = 0, tu = 0;

	(void)o;
	printf("%s: interrupts handled\n%5s %12s %12s %12s\n", path, "cpu", "irqs", "ipis",
	       "bogus_vector");
	for (uint32_t c = 0; c < q->ncpu; c++)
		if (q->irqs[c] || q->ipis[c] || q->unmapped[c]) {
			printf("%5u %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n", c, q->irqs[c],
			       q->ipis[c], q->unmapped[c]);
			ti += q->irqs[c];
			tp += q->ipis[c];
			tu += q->unmapped[c];
		}
	printf("%5s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n", "total", ti, tp, tu);
	k = sorted_slots(&q->irq, &n);
	if (n) {
		printf("\n%8s %12s %14s\n", "irq", "count", "mean cycles");
		for (uint32_t i = 0; i < n; i++) {
			uint32_t s = k[2 * i + 1];

			printf("%8u %12" PRIu64 " %14.0f\n", q->irq.key[s], q->irq.v[s],
			       (double)q->irq.w[s] / (double)q->irq.v[s]);
		}
	}
	free(k);
	k = sorted_slots(&q->vec, &n);
	if (n) {
		printf("\n%8s %12s\n", "vector", "ipis");
		for (uint32_t i = 0; i < n; i++)
			printf("    0x%02x %12" PRIu64 "\n", q->vec.key[k[2 * i + 1]],
			       q->vec.v[k[2 * i + 1]]);
	}
	free(k);
	print_anom_line(&q->an);
}

TR_ANALYSIS(irq);

/* ---- export ------------------------------------------------------------------- */

/* FILE's anomalies as one line: the first message (it names the offset). */
static void export_warn(const char *shown, const struct xt_anom *an)
{
	if (!xt_anom_any(an) && !an->nmsgs)
		return;
	if (an->nmsgs)
		fprintf(stderr, "ipibench trace export: %s: partial export: %s%s\n", shown, an->msgs[0],
			an->nmsgs > 1 ? " (and more: see 'ipibench trace summary')" : "");
	else
		fprintf(stderr, "ipibench trace export: %s: partial export: %" PRIu64
			" bytes skipped\n", shown, an->skipped_bytes);
}

/* What one format does with one opened FILE (chrome: into the open
 * writer; CTF: into its directory): 0, or -1 with errno when it can say. */
struct export_fmt {
	int (*write)(void *ctx, const char *path, const struct xt_file *f,
		     const struct tr_export_meta *meta, double opt_khz,
		     struct tr_export_stats *st);
	void *ctx;
	const char *no_clock;	/* how the format keeps time without a TSC frequency */
};

/* One FILE in format X: -1 when it was not exported (said), with *RC 1;
 * a partial export, an anomaly under --strict and a missing clock are
 * said too. */
static int export_one(const struct topts *o, const struct export_fmt *x, const char *path,
		      int *rc)
{
	struct tr_export_meta meta;
	struct tr_export_stats st;
	struct xt_file f;
	char shown[512], warn[1024];
	int r;

	sio_shown(shown, sizeof(shown), path);
	if (open_file(o, path, &f)) {
		*rc = 1;
		return -1;
	}
	if (tr_export_meta_load(&meta, path, warn, sizeof(warn)))
		fprintf(stderr, "ipibench trace export: %s: %s\n", shown, warn);
	errno = 0;
	r = x->write(x->ctx, path, &f, &meta, o->tsc_khz, &st);
	tr_export_meta_fini(&meta);
	if (!r && refuse_empty(shown, f.len, st.an.skipped_bytes < f.len, st.records))
		r = -2;
	xt_unmap(&f);
	if (r) {
		if (r == -1)
			fprintf(stderr, "ipibench trace export: %s: %s\n", shown,
				errno ? strerror(errno) : "out of memory or a write error");
		*rc = 1;
		return -1;
	}
	export_warn(shown, &st.an);
	if (o->strict && (xt_anom_any(&st.an) || st.an.nmsgs))
		*rc = 1;
	if (!strcmp(st.clock, "none"))
		fprintf(stderr, "ipibench trace export: %s: no TSC frequency (no apic:tsc_khz "
			"record, no --tsc-khz, no results.json): %s\n", shown, x->no_clock);
	return 0;
}

static int chrome_write(void *ctx, const char *path, const struct xt_file *f,
			const struct tr_export_meta *meta, double opt_khz,
			struct tr_export_stats *st)
{
	return tr_chrome_file(ctx, path, f, meta, opt_khz, st) ? -1 : 0;
}

static int ctf_write(void *ctx, const char *path, const struct xt_file *f,
		     const struct tr_export_meta *meta, double opt_khz,
		     struct tr_export_stats *st)
{
	return tr_ctf_write((const char *)ctx, path, f, meta, opt_khz, st) ? -1 : 0;
}

static int export_chrome(const struct topts *o, int n, char **files)
{
	struct sio_atomic a;
	struct tr_chrome *c;
	char err[768];
	int rc = 0, done = 0;

	if (sio_atomic_open(&a, o->output, 0644, err, sizeof(err))) {
		fprintf(stderr, "ipibench trace export: %s\n", err);
		return 1;
	}
	c = tr_chrome_begin(a.f);
	if (!c) {
		sio_atomic_abort(&a);
		fprintf(stderr, "ipibench trace export: out of memory\n");
		return 1;
	}
	for (int i = 0; i < n; i++)
		if (!export_one(o, &(struct export_fmt){ chrome_write, c,
				"timestamps are TSC cycles / 1000" }, files[i], &rc))
			done++;
	if (tr_chrome_end(c) || !done) {
		if (done)
			fprintf(stderr, "ipibench trace export: writing %s failed\n",
				sio_shown(err, sizeof(err), o->output));
		tr_chrome_free(c);
		sio_atomic_abort(&a);
		return 1;
	}
	tr_chrome_free(c);
	if (sio_atomic_commit(&a, err, sizeof(err))) {
		fprintf(stderr, "ipibench trace export: %s\n", err);
		return 1;
	}
	return rc;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/*
 * The CTF traces in a directory made beside OUT, renamed to OUT when at
 * least one FILE was exported: OUT itself (one FILE) or OUT/N-NAME.
 */
static int export_ctf(const struct topts *o, int n, char **files)
{
	char err[768], parent[4096], shown[512], sub[4096 + 300];
	const char *slash = strrchr(o->output, '/'), *base;
	char *tmp;
	struct stat sb;
	int rc = 0, done = 0;

	sio_shown(shown, sizeof(shown), o->output);
	if (!lstat(o->output, &sb)) {
		fprintf(stderr, "ipibench trace export: %s exists: the CTF export makes a new "
			"directory\n", shown);
		return 1;
	}
	if (slash && (size_t)(slash - o->output) >= sizeof(parent)) {
		fprintf(stderr, "ipibench trace export: %s: name too long\n", shown);
		return 1;
	}
	snprintf(parent, sizeof(parent), "%.*s", slash ? (slash == o->output ? 1 : (int)(slash - o->output)) : 1,
		 slash ? o->output : ".");
	base = slash ? slash + 1 : o->output;
	tmp = sio_mkdtemp_in(parent, *base ? base : "ctf", err, sizeof(err));
	if (!tmp) {
		fprintf(stderr, "ipibench trace export: %s\n", err);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		const char *dir = tmp;

		if (n > 1) {
			const char *b = strrchr(files[i], '/');
			char name[200];
			size_t k = 0;

			/* N-NAME: the file's name, bytes other than [A-Za-z0-9._-] as '_' */
			for (b = b ? b + 1 : files[i]; *b && k < sizeof(name) - 1; b++, k++)
				name[k] = (isalnum((unsigned char)*b) || strchr("._-", *b)) ? *b : '_';
			name[k] = 0;
			snprintf(sub, sizeof(sub), "%s/%d-%s", tmp, i + 1, name);
			if (mkdir(sub, 0755)) {
				fprintf(stderr, "ipibench trace export: %s: %s\n",
					sio_shown(shown, sizeof(shown), sub), strerror(errno));
				rc = 1;
				continue;
			}
			dir = sub;
		}
		if (!export_one(o, &(struct export_fmt){ ctf_write, (void *)dir,
				"the clock is 1 GHz, cycles as nanoseconds" }, files[i], &rc))
			done++;
		else if (n > 1)
			nftw(sub, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	}
	if (!done || chmod(tmp, 0755) || rename(tmp, o->output)) {
		if (done)
			fprintf(stderr, "ipibench trace export: renaming into %s: %s\n",
				sio_shown(shown, sizeof(shown), o->output), strerror(errno));
		nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		free(tmp);
		return 1;
	}
	free(tmp);
	return rc;
}

static int do_export(struct topts *o, int n, char **files)
{
	if (!o->format || !o->output) {
		fprintf(stderr, "ipibench trace export: --format chrome|ctf and -o OUT are "
			"needed\nusage: ipibench trace " FORM_EXPORT "\n");
		return 2;
	}
	if (!strcmp(o->format, "chrome"))
		return export_chrome(o, n, files);
	if (!strcmp(o->format, "ctf"))
		return export_ctf(o, n, files);
	{
		char q[64];

		fprintf(stderr, "ipibench trace export: --format is chrome or ctf, not %s\n",
			(sio_quote(q, sizeof(q), o->format), q));
	}
	return 2;
}

/* ---- entry --------------------------------------------------------------------- */

/* A decimal number of digits only (no sign, space, base prefix, exponent
 * or fraction) from lo to hi into *v; false otherwise. */
static bool decimal_in(const char *arg, unsigned long long lo, unsigned long long hi,
		       unsigned long long *v)
{
	char *end;

	if (*arg < '0' || *arg > '9')
		return false;
	errno = 0;
	*v = strtoull(arg, &end, 10);
	return !*end && !errno && *v >= lo && *v <= hi;
}

static int opt_tsc_khz(const struct opt *opt, const char *arg)
{
	unsigned long long v;
	char q[64];

	if (!decimal_in(arg, TR_TSC_KHZ_MIN, TR_TSC_KHZ_MAX, &v)) {
		sio_quote(q, sizeof(q), arg);
		fprintf(stderr, "ipibench trace: --tsc-khz wants a whole decimal number of kHz "
			"from %u to %u, not %s\n", TR_TSC_KHZ_MIN, TR_TSC_KHZ_MAX, q);
		return 2;
	}
	*(double *)opt->value = (double)v;
	return 0;
}

static int opt_max_gib(const struct opt *opt, const char *arg)
{
	unsigned long long v;
	char q[64];

	if (!decimal_in(arg, 1, MAX_GIB_MAX, &v)) {
		sio_quote(q, sizeof(q), arg);
		fprintf(stderr, "ipibench trace: --max-gib wants a whole decimal number from 1 "
			"to %u, not %s\n", MAX_GIB_MAX, q);
		return 2;
	}
	*(uint64_t *)opt->value = (uint64_t)v << 30;
	return 0;
}

static int opt_top(const struct opt *opt, const char *arg)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end || errno || v > UINT32_MAX) {
		char q[64];

		sio_quote(q, sizeof(q), arg);
		fprintf(stderr, "ipibench trace: --top wants a whole number from 0 to %" PRIu32
			", not %s\n", UINT32_MAX, q);
		return 2;
	}
	*(uint32_t *)opt->value = (uint32_t)v;
	return 0;
}

static void sub_usage(FILE *f, const struct opts_cmd *cmd)
{
	const struct subcmd *sc = cmd->data;

	fprintf(f, "usage: ipibench trace %s\n\n%s\n%s", sc->usage, sc->help, common_help);
	opts_help(f, cmd->opts);
	fputs(common_help_tail, f);
}

/*
 * SC's options from ARGV (ARGV[0] is the subcommand) into O, by lib/opts.h
 * (perf's parse_options()): -1 when the subcommand is to run, with the
 * files - what is left of argv - in *FILES (*NFILES of them); otherwise the
 * exit status (--help, a usage error).
 */
/* The options of every subcommand into O. */
#define TRACE_OPTS(o) {							\
		OPT_BOOLEAN(0, "json", &(o)->json, "print JSON instead of a table"), \
		OPT_BOOLEAN(0, "strict", &(o)->strict, "exit with status 1 if any anomaly was found"), \
		OPT_CALLBACK(0, "tsc-khz", &(o)->tsc_khz, "KHZ",		\
			     "ipi, export: the TSC's kHz, for time: 1000 to 100000000\n" \
			     "(default: the file's)", opt_tsc_khz), \
		OPT_CALLBACK(0, "top", &(o)->top, "N", "diff: only the first N rows (0: all)", opt_top), \
		OPT_CALLBACK(0, "max-gib", &(o)->max_bytes, "N",		\
			     "read files of up to N GiB (default 8, at most 1024)", opt_max_gib), \
		OPT_STRING(0, "guest-reference", &(o)->reference, "FILE", \
			   "diff: the seed's HVM profiles beside the rows\n"	\
			   "(results/reference/seed-004.json; report's option of that name)"), \
		OPT_ALIAS(0, "reference", &(o)->reference, "FILE"),	\
		OPT_STRING(0, "format", &(o)->format, "FORMAT",		\
			   "export: chrome (Trace Event Format JSON) or ctf"), \
		OPT_STRING('o', "output", &(o)->output, "OUT",		\
			   "export: the file (chrome) or directory (ctf) to write"), \
		OPT_END(),						\
	}

/* The manual page's text: every subcommand's, and the options once. */
static void page_text(FILE *f, const void *data)
{
	/* static: the page is made from the table after this returns */
	static struct topts o;
	static const struct opt opts[] = TRACE_OPTS(&o);

	(void)data;
	opts_usage_lines(f, &trace_synopsis);
	fputs("\001SH DESCRIPTION\n", f);
	fputs(common_help, f);
	fputs("\001SH SUBCOMMANDS\n", f);
	for (size_t i = 0; i < NSUB; i++)
		fprintf(f, "\001SS %s\n%s\n", subcmds[i].usage, subcmds[i].help);
	opts_help(f, opts);
	fputs(common_help_tail, f);
}

static int parse_topts(const struct subcmd *sc, int argc, char **argv, struct topts *o,
		       int *nfiles, char ***files)
{
	char name[64];
	const struct opt opts[] = TRACE_OPTS(o);
	const struct opts_cmd cmd = { .name = name, .opts = opts, .usage = sub_usage, .data = sc };
	int rc;

	snprintf(name, sizeof(name), "ipibench trace %s", sc->name);
	if ((rc = opts_parse(&cmd, argc, argv, nfiles, files)) >= 0)
		return rc;
	if (*nfiles < sc->min_files || (sc->max_files && *nfiles > sc->max_files)) {
		fprintf(stderr, "usage: ipibench trace %s\n", sc->usage);
		return 2;
	}
	return -1;
}

int cmd_trace(int argc, char **argv)
{
	const struct subcmd *sc = NULL;
	struct topts o = { 0 };
	char **files;
	int nfiles, rc;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	/* the manual page (lib/opts_doc.c) */
	if (!strncmp(argv[1], "--help=", 7) && opts_fmt(argv[1] + 7) >= 0)
		return opts_page(stdout, opts_fmt(argv[1] + 7), &trace_synopsis, page_text, NULL);
	for (size_t i = 0; i < NSUB; i++)
		if (!strcmp(argv[1], subcmds[i].name))
			sc = &subcmds[i];
	if (!sc) {
		char q[64];

		fprintf(stderr, "ipibench trace: %s is not a subcommand; see 'ipibench trace "
			"--help'\n", (sio_quote(q, sizeof(q), argv[1]), q));
		return 2;
	}
	if ((rc = parse_topts(sc, argc - 1, argv + 1, &o, &nfiles, &files)) >= 0)
		return rc;
	int pass;
	bool why;

	if (tr_hvm_env(&pass, &why))	/* refused once, before any file */
		return 2;
	if (o.json && sc->fn == do_export) {
		fprintf(stderr, "ipibench trace export: --json is not an option of export (it "
			"writes OUT)\n");
		return 2;
	}
	if ((o.format || o.output) && sc->fn != do_export) {
		fprintf(stderr, "ipibench trace %s: --format and --output are options of export "
			"only\n", sc->name);
		return 2;
	}
	if (o.reference && sc->fn != do_diff) {
		fprintf(stderr, "ipibench trace %s: --guest-reference is an option of diff only\n",
			sc->name);
		return 2;
	}
	return sc->per_file ? for_each_file(sc->per_file, &o, nfiles, files) :
			      sc->fn(&o, nfiles, files);
}
