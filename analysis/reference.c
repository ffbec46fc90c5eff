/* SPDX-License-Identifier: GPL-3.0-or-later */
/* analysis/reference.c: the seed's reference figures (results/reference/). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipibench/modes.h"
#include "lib/safeio.h"
#include "analysis/internal.h"
#include "analysis/ministat.h"

#define REF_REL "results/reference/seed-96cpu.json"
#define REF_MS_REL "results/reference/seed-512cpu.json"

static char *find_default(const char *env_name, const char *rel)
{
	const char *env = getenv(env_name);
	if (env && *env)
		return xstrdup(env);
	if (access(rel, R_OK) == 0)
		return xstrdup(rel);
#ifdef IPIBENCH_DATADIR
	/* An installed ipibench (debian/rules: /usr/share/ipibench). */
	{
		char *p = xasprintf("%s/%s", IPIBENCH_DATADIR, rel);
		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
#endif
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		/* build/bin/ipibench and build/asan/bin/ipibench */
		const char *ups[] = { "../..", "../../.." };
		char *dir = dirname(exe);
		for (size_t i = 0; i < 2; i++) {
			char *p = xasprintf("%s/%s/%s", dir, ups[i], rel);
			if (access(p, R_OK) == 0)
				return p;
			free(p);
		}
	}
	return NULL;
}

char *reference_find(const char *env_name, const char *rel)
{
	return find_default(env_name, rel);
}

static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : 0.0;
}

/* Member K of O (JSON path JP) absent (0), or a number in [lo, hi]
 * (integer when INTEGER): else -1 with err naming the file and the path.
 * A reference is small and hand-written: 1e300 calls or CPUs is refused,
 * not turned into a negative long. */
#define REF_NUM_MAX 1e18	/* ns totals: 30 years */
static int ref_num(json_t *o, const char *k, const char *jp, double lo, double hi, bool integer,
		   const char *p, char *err)
{
	json_t *v = json_object_get(o, k);
	if (!v)
		return 0;
	double x = json_is_number(v) ? json_number_value(v) : NAN;
	if (!(x >= lo && x <= hi) || (integer && !json_is_integer(v))) {
		an_err(err, "%s: %s.%s: must be %s from %.0f to %.0f", p, jp, k,
		       integer ? "an integer" : "a number", lo, hi);
		return -1;
	}
	return 0;
}

static const char *str(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_string(v) ? json_string_value(v) : "";
}

/* The optional "ministat" table: {"unit", "printed_by", "rows": [{"mode",
 * "n", "min", "max", "median", "avg", "stddev"}, ...]}, rows[0] the
 * baseline the others were compared with. */
static int load_ministat(json_t *root, struct reference *r, const char *p, char *err)
{
	json_t *ms = json_object_get(root, "ministat");
	if (!ms)
		return 0;
	json_t *rows = json_object_get(ms, "rows");
	if (!json_is_array(rows) || json_array_size(rows) < 1 ||
	    json_array_size(rows) > REF_MS_MAX) {
		an_err(err, "%s: ministat.rows: 1 to %d rows expected", p, REF_MS_MAX);
		return -1;
	}
	r->ms_unit = xstrdup(str(ms, "unit"));
	r->ms_printed_by = xstrdup(str(ms, "printed_by"));
	for (size_t i = 0; i < json_array_size(rows); i++) {
		json_t *row = json_array_get(rows, i);
		if (num(row, "n") < 2 || !sio_name_ok(str(row, "mode"))) {
			an_err(err, "%s: $.ministat.rows[%zu]: needs a mode (a name) and n >= 2",
			       p, i);
			return -1;
		}
		char jp[64];
		snprintf(jp, sizeof(jp), "$.ministat.rows[%zu]", i);
		static const char *const keys[] = { "min", "max", "median", "avg", "stddev" };
		if (ref_num(row, "n", jp, 2, 1e9, true, p, err))
			return -1;
		for (size_t k = 0; k < 5; k++)
			if (ref_num(row, keys[k], jp, 0, REF_NUM_MAX, false, p, err))
				return -1;
		r->ms_mode[i] = xstrdup(str(row, "mode"));
		ms_vitals_from((size_t)num(row, "n"), num(row, "min"), num(row, "max"),
			       num(row, "median"), num(row, "avg"), num(row, "stddev"),
			       &r->ms[i]);
		r->nms++;
	}
	return 0;
}

int reference_load(const char *path, struct reference *r, char *err)
{
	return reference_load_default(path, "IPIBENCH_REFERENCE", REF_REL, r, err);
}

int reference_load_ministat(const char *path, struct reference *r, char *err)
{
	return reference_load_default(path, "IPIBENCH_REFERENCE_MINISTAT", REF_MS_REL, r, err);
}

int reference_load_default(const char *path, const char *env, const char *rel,
			   struct reference *r, char *err)
{
	memset(r, 0, sizeof(*r));
	char *p = path ? xstrdup(path) : find_default(env, rel);
	if (!p)
		return 1;
	/* Through safeio: a regular file within the JSON size limit (a FIFO or
	 * /dev/zero as --reference is refused, not read forever). */
	json_t *root = sio_load_json(p, SIO_MAX_JSON, err, AN_ERRLEN);
	if (!root) {
		free(p);
		return -1;
	}
	json_t *tot = json_object_get(root, "total_ns");
	json_t *icr = json_object_get(root, "expected_icr_writes_per_call");
	size_t nmodes = 0;
	int bad = ref_num(root, "calls", "$", 1, 9007199254740992.0, true, p, err) ||
		  ref_num(root, "cpus", "$", 1, 65536, true, p, err);
	for (size_t i = 0; i < IPIBENCH_NMODES && !bad; i++)
		bad = ref_num(tot, ipibench_mode_name(i), "$.total_ns", 0, REF_NUM_MAX, false, p,
			      err) ||
		      ref_num(icr, ipibench_mode_name(i), "$.expected_icr_writes_per_call", 0, 65536,
			      false, p, err);
	if (bad) {
		json_decref(root);
		free(p);
		return -1;
	}
	for (size_t i = 0; i < IPIBENCH_NMODES; i++) {
		r->total_ns[i] = num(tot, ipibench_mode_name(i));
		r->icr_expected[i] = num(icr, ipibench_mode_name(i));
		if (r->total_ns[i] <= 0)
			continue;
		if (!nmodes++)
			r->ratio_a = i;
		r->ratio_b = i;
	}
	if (strncmp(str(root, "schema"), "ipibench-reference/", 19) || nmodes < 2 ||
	    num(root, "calls") <= 0) {
		an_err(err, "%s: not an ipibench reference (schema, calls, total_ns of two modes)",
		       p);
		json_decref(root);
		free(p);
		return -1;
	}
	json_t *src = json_object_get(root, "source");
	r->path = p;
	r->title = xstrdup(str(root, "title"));
	r->source = xasprintf("%s (%s)", str(src, "document"), str(src, "author"));
	r->quote = xstrdup(str(src, "quote"));
	r->workload_type = xstrdup(*str(root, "workload_type") ?
				   str(root, "workload_type") : "flush_tlb_all");
	r->calls = (long)num(root, "calls");
	r->cpus = (long)num(root, "cpus");
	r->emulated = json_is_true(json_object_get(root, "emulated"));
	r->icr_note = xstrdup(str(icr, "note"));
	int rc = load_ministat(root, r, p, err);
	json_decref(root);
	if (rc)
		reference_free(r);
	return rc;
}

void reference_free(struct reference *r)
{
	free(r->path);
	free(r->title);
	free(r->source);
	free(r->quote);
	free(r->workload_type);
	free(r->icr_note);
	free(r->ms_unit);
	free(r->ms_printed_by);
	for (size_t i = 0; i < r->nms; i++)
		free(r->ms_mode[i]);
	memset(r, 0, sizeof(*r));
}
