/* analysis/compare.h: run-level comparisons in ministat's format
 * (compare.c), rendered into a report's Markdown and returned as JSON. */
#ifndef IPIBENCH_ANALYSIS_COMPARE_H
#define IPIBENCH_ANALYSIS_COMPARE_H

#include <jansson.h>

#include "analysis/internal.h"
#include "analysis/ministat.h"

/* "one boot per mode: boot-to-boot variance is unknown, ..." */
extern const char cmp_one_boot_caveat[];

json_t *cmp_vitals_json(const struct ms_vitals *v);
json_t *cmp_diff_json(const struct ms_diff *d, const char *vs);
/* A fenced ministat block: row i named names[i] (plain names: they are put
 * in a code block), rows 1.. compared with row 0; Welch's t shown where
 * the variances differ when welch.  Returns the rows as JSON. */
json_t *cmp_ms_block(struct sbuf *md, const char *const *names,
		     const struct ms_vitals *v, size_t k, enum ms_style style,
		     bool welch);
/* The modes gs[0..k-1] of one block (gs[0] the baseline) on their
 * run-level unit (runlevel_unit()), or why there is none. */
json_t *cmp_block_modes(struct sbuf *md, struct group *const *gs, size_t k);
/* The same for one mode between builds ([matrix] xen): gs[0] the baseline
 * build's group, each other build's group of that mode after it. */
json_t *cmp_block_builds(struct sbuf *md, struct group *const *gs, size_t k);
/* Paired sender workloads: per boot (loop pairs) and across boots. */
json_t *cmp_block_paired(struct sbuf *md, struct group *const *gs, size_t k);
/* hyperfine: each command's runs against the first command's. */
json_t *cmp_hyperfine(struct sbuf *md, const struct hf_file *h);
/* Repeated perf stat files (same name stem): per event, each stem against
 * the first. */
json_t *cmp_perf(struct sbuf *md, const struct perf_file *f, size_t nf);
char *cmp_perf_stem(const char *path);

#endif
