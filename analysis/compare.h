/* SPDX-License-Identifier: GPL-3.0-or-later */
/* analysis/compare.h: run-level comparisons in ministat's format
 * (compare.c).  Each is computed once into a struct (cmp_*_compute()),
 * then rendered as a report's Markdown (cmp_*_md()) or as JSON
 * (cmp_*_json()), as report.c renders the rest of the model. */
#ifndef IPIBENCH_ANALYSIS_COMPARE_H
#define IPIBENCH_ANALYSIS_COMPARE_H

#include <jansson.h>

#include "analysis/internal.h"
#include "analysis/ministat.h"

/* "one boot per mode: boot-to-boot variance is unknown, ..." */
extern const char cmp_one_boot_caveat[];

json_t *cmp_vitals_json(const struct ms_vitals *v);
json_t *cmp_diff_json(const struct ms_diff *d, const char *vs);

/* "no verdict: one boot per mode" */
extern const char cmp_no_verdict_one_boot[];
/* "no verdict: fewer than 2 boots in some mode" */
extern const char cmp_no_verdict_some_boot[];

/* A ministat block: row i named names[i] (plain names: they are put in a
 * code block), rows 1.. compared with row 0 by the declared test (Welch's
 * t unless the block declares Student's).  no_verdict (a reason, set by
 * the caller when the design cannot carry a verdict) replaces each
 * comparison by "no verdict: REASON": the samples are shown, no
 * difference.  k == 0: none. */
struct cmp_ms {
	size_t k;
	char *names[REF_MS_MAX];	/* copies (cmp_ms_free()) */
	struct ms_vitals v[REF_MS_MAX];
	struct ms_diff d[REF_MS_MAX];	/* d[i]: row i against row 0, i >= 1 */
	enum ms_style style;
	enum ms_test test;
	const char *no_verdict;	/* static text, or NULL */
};
void cmp_ms_compute(struct cmp_ms *c, const char *const *names, const struct ms_vitals *v,
		    size_t k, enum ms_style style, enum ms_test test);
void cmp_ms_md(struct sbuf *md, const struct cmp_ms *c);
json_t *cmp_ms_json(const struct cmp_ms *c);	/* the rows */
void cmp_ms_free(struct cmp_ms *c);

/* The modes gs[0..k-1] of one block (gs[0] the baseline) on their
 * run-level unit (runlevel_unit()), or why there is none. */
struct cmp_modes {
	bool done;		/* false: no such comparison */
	bool by_build;		/* cmp_builds_compute(): the rows are builds of one mode */
	const char *baseline;	/* the baseline mode (by_build: build) */
	const char *mode;	/* by_build: the mode compared */
	enum rl_unit unit;
	size_t boots_min, boots_max, loops_min, loops_max;
	bool from_loops;	/* every mode has timed loops */
	struct cmp_ms ms;
};
void cmp_modes_compute(struct cmp_modes *c, struct group *const *gs, size_t k,
		       enum ms_test test);
/* The same statistics for one mode between builds ([matrix] xen): gs[0]
 * the baseline build's group of that mode, each other build's after it;
 * rendered by cmp_modes_md() / cmp_modes_json(). */
void cmp_builds_compute(struct cmp_modes *c, struct group *const *gs, size_t k,
			enum ms_test test);
void cmp_modes_md(struct sbuf *md, const struct cmp_modes *c);
json_t *cmp_modes_json(const struct cmp_modes *c);
void cmp_modes_free(struct cmp_modes *c);

/* Paired sender workloads: per boot (loop pairs) and across boots. */
struct cmp_pair {
	bool across_boots;	/* false: the loop pairs of run `run` */
	const char *run, *mode, *a, *b;	/* the dataset's strings */
	bool aa, arm_by_order;
	size_t n;		/* pairs, or boots */
	struct ms_vitals va, vb;	/* one boot only */
	struct ms_paired p;
};
struct cmp_paired {
	bool done;
	struct cmp_pair *v;
	size_t n;
};
void cmp_paired_compute(struct cmp_paired *c, struct group *const *gs, size_t k);
void cmp_paired_md(struct sbuf *md, const struct cmp_paired *c);
json_t *cmp_paired_json(const struct cmp_paired *c);
void cmp_paired_free(struct cmp_paired *c);

/* hyperfine: each command's runs against the first command's (named
 * "command N"); c->k == 0 when no command has 2 runs. */
void cmp_hyperfine_compute(struct cmp_ms *c, const struct hf_file *h, enum ms_test test);
void cmp_hyperfine_md(struct sbuf *md, const struct cmp_ms *c);
json_t *cmp_hyperfine_json(const struct cmp_ms *c);

/* Repeated perf stat files (same name stem): per event, each stem against
 * the first. */
struct cmp_perf {
	const char *path0;	/* the first file, whose events are compared */
	struct cmp_perf_event {
		const char *event;	/* the dataset's */
		size_t index;		/* in the first file */
		struct cmp_ms ms;
	} *ev;
	size_t n;
};
void cmp_perf_compute(struct cmp_perf *c, const struct perf_file *f, size_t nf,
		      enum ms_test test);
void cmp_perf_md(struct sbuf *md, const struct cmp_perf *c);
json_t *cmp_perf_json(const struct cmp_perf *c);
void cmp_perf_free(struct cmp_perf *c);
char *cmp_perf_stem(const char *path);

#endif
