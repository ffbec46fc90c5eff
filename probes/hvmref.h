/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/hvmref.h: a reference HVM profile (results/reference/seed-004.json:
 * the seed's two xentrace profiles, before and after), for `ipibench trace
 * diff A B --reference FILE`.
 *
 * The file is untrusted input.  It is read through safeio (a regular file
 * within SIO_MAX_JSON) and every field the diff uses is checked where it is
 * read; a refusal is one line naming the file and the JSON path:
 *
 *   FILE: $.profiles.before.events[3].count: -5 is negative: a count is a whole number >= 0
 *
 * What is checked: "schema" ipibench-reference/N, "workload_type"
 * "hvm_profile", "name" (safeio's name rule), "source"."author" and
 * "source"."file" (and "date", if there), strings without control
 * characters as every string it prints, "xentrace"."mask" and "xentrace"."seconds" (> 0),
 * "profiles"."before" and "profiles"."after", each with "events": 1 to
 * TR_HVMREF_MAX_ROWS objects {"name": an event name, "count": an integer
 * >= 0}, no name twice on one side.  A name listed on one side only counts
 * 0 on the other (the seed's lists are `uniq -c` output: no zero rows).
 */
#ifndef IPIBENCH_HVMREF_H
#define IPIBENCH_HVMREF_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define TR_HVMREF_MAX_ROWS 256
#define TR_HVMREF_NAME_MAX 47	/* as struct tr_row's names (48 bytes with the NUL) */

struct tr_hvmref_row {
	char name[TR_HVMREF_NAME_MAX + 1];
	uint64_t before, after;	/* 0 on a side that does not list it */
	unsigned sides;		/* listed by: bit 0 before, bit 1 after */
};

struct tr_hvmref {
	char *path;		/* as given */
	char *name;		/* "seed-004" */
	char *source;		/* "AUTHOR, DATE (FILE)" */
	char *mask;		/* the xentrace mask, "0x0008ffff" */
	double seconds;		/* the xentrace window */
	struct tr_hvmref_row *rows;	/* before's order, then after-only names */
	size_t nrows;
};

/* Check ROOT (read from PATH, which only names it in errors) into R: 0, or
 * -1 with one line in ERR.  R is for tr_hvmref_free() either way. */
int tr_hvmref_parse(json_t *root, const char *path, struct tr_hvmref *r, char *err,
		    size_t errlen);
/* Read PATH through safeio and tr_hvmref_parse() it. */
int tr_hvmref_load(const char *path, struct tr_hvmref *r, char *err, size_t errlen);
/* The row named NAME (exact), or NULL. */
const struct tr_hvmref_row *tr_hvmref_find(const struct tr_hvmref *r, const char *name);
void tr_hvmref_free(struct tr_hvmref *r);

#endif
