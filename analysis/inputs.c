/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analysis/inputs.c: read what a report is made of, detected by content:
 *   - ipibench results.json (docs/results-schema.md): an object with
 *     "schema_version" and "runs";
 *   - hyperfine --export-json: an object with "results": [{"command", ...}];
 *   - perf stat -x, CSV: "value,unit,event,..." lines, '#' comments.
 * Errors are one line naming the file (and line/column from jansson).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "ipibench/counters.h"
#include "ipibench/modes.h"
#include "ipibench/senders.h"
#include "lib/safeio.h"
#include "analysis/internal.h"
#include "ipibench/ipipaths.h"
#include "workloads/check.h"

/* ---- validation ---------------------------------------------------------
 * A results file comes from a test host or from the previous pipeline's
 * tarball: every field the readers use is checked here, before anything is
 * taken from it.  Errors are one line: "FILE: $.json.path: what is wrong". */
struct jv {
	const char *file;
	char *err;
};

/* snprintf that may cut (paths and messages are bounded on purpose). */
__attribute__((format(printf, 3, 4)))
static void fmt_into(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, n, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 3, 4)))
static int jv_fail(const struct jv *v, const char *jp, const char *fmt, ...)
{
	char msg[AN_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	an_err(v->err, "%s: %s: %s", v->file, jp, msg);
	return -1;
}

/* A JSON value as it appears in an error message: scalars quoted by jansson
 * (control characters escaped, cut at 60 bytes), containers by their type. */
static const char *jv_repr(const json_t *x, char *buf, size_t n)
{
	if (!x) {
		snprintf(buf, n, "missing");
		return buf;
	}
	if (json_is_object(x) || json_is_array(x)) {
		snprintf(buf, n, "%s", json_is_object(x) ? "an object" : "an array");
		return buf;
	}
	char *s = json_dumps(x, JSON_ENCODE_ANY | JSON_COMPACT | JSON_ENSURE_ASCII);
	if (!s) {
		snprintf(buf, n, "?");
		return buf;
	}
	if (strlen(s) > 60)
		snprintf(buf, n, "%.56s...", s);
	else
		snprintf(buf, n, "%s", s);
	free(s);
	return buf;
}

#define JV_REPR(x) jv_repr((x), (char[96]){ 0 }, 96)

enum {
	JV_REQ = 1,	/* must be there */
	JV_NAME = 2,	/* sio_name_ok(): host, workload, run id, ... */
	JV_NULL = 4,	/* null is accepted (as absent) */
};
#define JV_TEXT_MAX 4096	/* free text (errors, CPU model): escaped where shown */

/* The path of member key of the value at jp. */
static const char *jv_key(char *buf, size_t n, const char *jp, const char *key)
{
	fmt_into(buf, n, "%s.%s", jp, key);
	return buf;
}
#define JV_KEY(jp, key) jv_key((char[256]){ 0 }, 256, (jp), (key))

static const char *jv_idx(char *buf, size_t n, const char *jp, size_t i)
{
	fmt_into(buf, n, "%s[%zu]", jp, i);
	return buf;
}

/* String member: *out = its value, or NULL when absent (or null with JV_NULL). */
static int jv_str(const struct jv *v, json_t *o, const char *key, const char *jp,
		  int flags, const char **out)
{
	json_t *x = json_object_get(o, key);
	const char *p = JV_KEY(jp, key);

	*out = NULL;
	if (!x || (json_is_null(x) && (flags & JV_NULL))) {
		if (flags & JV_REQ)
			return jv_fail(v, p, "missing (a string is required)");
		return 0;
	}
	if (!json_is_string(x))
		return jv_fail(v, p, "must be a string, not %s", JV_REPR(x));
	const char *s = json_string_value(x);
	if ((flags & JV_NAME) && !sio_name_ok(s))
		return jv_fail(v, p, "%s is not a valid name ([A-Za-z0-9][A-Za-z0-9._-]*, "
			       "at most %d bytes, no \"..\")", JV_REPR(x), SIO_NAME_MAX);
	if (json_string_length(x) > JV_TEXT_MAX)
		return jv_fail(v, p, "a string of %zu bytes, more than %d",
			       json_string_length(x), JV_TEXT_MAX);
	*out = s;
	return 0;
}

/* Integer member in [min, max]; *present says whether it was there. */
static int jv_int(const struct jv *v, json_t *o, const char *key, const char *jp,
		  int flags, json_int_t min, json_int_t max, json_int_t *out,
		  bool *present)
{
	json_t *x = json_object_get(o, key);
	const char *p = JV_KEY(jp, key);

	if (present)
		*present = false;
	if (!x) {
		if (flags & JV_REQ)
			return jv_fail(v, p, "missing (an integer from %lld to %lld is required)",
				       (long long)min, (long long)max);
		return 0;
	}
	if (!json_is_integer(x) || json_integer_value(x) < min ||
	    json_integer_value(x) > max)
		return jv_fail(v, p, "%s is not an integer from %lld to %lld", JV_REPR(x),
			       (long long)min, (long long)max);
	*out = json_integer_value(x);
	if (present)
		*present = true;
	return 0;
}

/* A number (integer or real) in [min, max]. */
static int jv_number(const struct jv *v, json_t *x, const char *p, double min,
		     double max, double *out)
{
	if (!json_is_number(x) || !(json_number_value(x) >= min) ||
	    !(json_number_value(x) <= max))
		return jv_fail(v, p, "%s is not a number from %g to %g", JV_REPR(x), min, max);
	*out = json_number_value(x);
	return 0;
}

/* Object or array member: NULL when absent, an error when of another type. */
static int jv_container(const struct jv *v, json_t *o, const char *key, const char *jp,
			bool array, json_t **out)
{
	json_t *x = json_object_get(o, key);

	*out = NULL;
	if (!x)
		return 0;
	if (array ? !json_is_array(x) : !json_is_object(x))
		return jv_fail(v, JV_KEY(jp, key), "must be an %s, not %s",
			       array ? "array" : "object", JV_REPR(x));
	*out = x;
	return 0;
}

static int jv_enum(const struct jv *v, json_t *o, const char *key, const char *jp,
		   const char *const *allowed, const char *what, const char **out)
{
	if (jv_str(v, o, key, jp, JV_REQ, out))
		return -1;
	for (size_t i = 0; allowed[i]; i++)
		if (!strcmp(*out, allowed[i]))
			return 0;
	char list[256] = "";
	for (size_t i = 0; allowed[i]; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? ", " : "", allowed[i]);
	return jv_fail(v, JV_KEY(jp, key), "%s is not %s (%s)",
		       JV_REPR(json_object_get(o, key)), what, list);
}

/* Largest value of a sample or counter: far above any real one (2^53, the
 * last integer a double holds exactly) and far below an overflow. */
#define JV_COUNT_MAX ((json_int_t)1 << 53)
#define JV_SAMPLE_MAX 9007199254740992.0
#define JV_MAX_CPUS 65536

/* An array of numbers (or integers) in [0, max]; every element checked. */
static int jv_numbers(const struct jv *v, json_t *arr, const char *jp, double max,
		      bool integers)
{
	size_t i;
	json_t *x;

	json_array_foreach(arr, i, x) {
		bool ok = integers ? json_is_integer(x) : json_is_number(x);
		if (!ok || json_number_value(x) < 0 || json_number_value(x) > max) {
			char b[256];
			return jv_fail(v, jv_idx(b, sizeof(b), jp, i), "%s is not %s from 0 to %g",
				       JV_REPR(x), integers ? "an integer" : "a number", max);
		}
	}
	return 0;
}

/* loops (runlevel.c reads them): at most AN_MAX_LOOPS; pair indices are
 * dense by construction (0 .. R-1, two loops each), so a pair is an
 * integer below the number of loops: never a size to allocate. */
static int validate_loops(const struct jv *v, json_t *loops, const char *jp)
{
	size_t i, n = json_array_size(loops);
	json_t *l;

	if (n > AN_MAX_LOOPS)
		return jv_fail(v, jp, "%zu loops, more than %d", n, AN_MAX_LOOPS);
	json_array_foreach(loops, i, l) {
		char b[256];
		json_t *p = json_object_get(l, IPB_KEY(LOOP_PAIR));
		jv_idx(b, sizeof(b), jp, i);
		if (p && (!json_is_integer(p) || json_integer_value(p) < 0 ||
			  (size_t)json_integer_value(p) >= n))
			return jv_fail(v, JV_KEY(b, IPB_KEY(LOOP_PAIR)), "%s is not a pair index from 0 to %zu "
				       "(below the number of loops)", JV_REPR(p), n ? n - 1 : 0);
	}
	return 0;
}

/* Key F of object O (at JP) by its kind in the results contract
 * (ipibench/counters.h): a count an integer and a mean a number, from 0 to
 * 2^53 (the last integer a double holds exactly); a per-CPU count an array
 * of such integers, at most JV_MAX_CPUS long; samples an array of numbers
 * from 0 to 2^53; a flag true or false; a name a string of the name rule,
 * a text a string of at most JV_TEXT_MAX bytes; an object an object, a
 * list an array (each element is checked where its own table is).  Absent: fine unless the row is required; null:
 * fine (as absent) where the row says so. */
static int validate_field(const struct jv *v, json_t *o, const struct ipb_counter_field *f,
			  const char *jp)
{
	json_t *x = json_object_get(o, f->key), *a;
	json_int_t n;
	double d;
	const char *s;

	if (!x || (json_is_null(x) && (f->flags & IPB_NUL))) {
		if (f->flags & IPB_REQ)
			return jv_fail(v, JV_KEY(jp, f->key), "missing (%s is required)",
				       f->kind == IPB_NAME || f->kind == IPB_TEXT ? "a string" :
				       f->kind == IPB_COUNT ? "an integer" :
				       f->kind == IPB_MEAN ? "a number" :
				       f->kind == IPB_FLAG ? "true or false" :
				       f->kind == IPB_OBJECT ? "an object" : "an array");
		return 0;
	}
	switch (f->kind) {
	case IPB_COUNT:
		return jv_int(v, o, f->key, jp, 0, 0, JV_COUNT_MAX, &n, NULL);
	case IPB_MEAN:
		return jv_number(v, x, JV_KEY(jp, f->key), 0, JV_SAMPLE_MAX, &d);
	case IPB_FLAG:
		if (!json_is_boolean(x))
			return jv_fail(v, JV_KEY(jp, f->key), "must be true or false, not %s",
				       JV_REPR(x));
		return 0;
	case IPB_NAME:
	case IPB_TEXT:
		return jv_str(v, o, f->key, jp, f->kind == IPB_NAME ? JV_NAME : 0, &s);
	case IPB_OBJECT:
		return jv_container(v, o, f->key, jp, false, &a);
	case IPB_LIST:	/* each element where its table is read */
		return jv_container(v, o, f->key, jp, true, &a);
	case IPB_SAMPLES:
	case IPB_PER_CPU:
		if (jv_container(v, o, f->key, jp, true, &a))
			return -1;
		if (f->kind == IPB_PER_CPU && json_array_size(a) > JV_MAX_CPUS)
			return jv_fail(v, JV_KEY(jp, f->key), "%zu entries, more than %d CPUs",
				       json_array_size(a), JV_MAX_CPUS);
		return jv_numbers(v, a, JV_KEY(jp, f->key), JV_SAMPLE_MAX, f->kind == IPB_PER_CPU);
	}
	return 0;
}

/* Every field of the contract held by O, an object at AT (JP: its path),
 * by its kind; other keys are left alone (results of other versions). */
static int validate_at(const struct jv *v, json_t *o, enum ipb_at at, const char *jp)
{
	char p[256];

	if (!json_is_object(o))
		return 0;
	fmt_into(p, sizeof(p), "%s", jp);
	for (int i = 0; ipb_contract_row(i); i++)
		if (ipb_contract_row(i)->at == at && validate_field(v, o, ipb_contract_row(i), p))
			return -1;
	return 0;
}

/* counters_by_sender (paired and single-routine workloads): per send
 * routine of ipibench/senders.h, its runs, operations and ICR writes,
 * each a count. */
static int validate_by_sender(const struct jv *v, json_t *w, const char *jp)
{
	const char *const keys[] = { "runs", IPB_COUNTER(OPERATIONS), IPB_COUNTER(ICR_WRITES) };
	json_t *o, *x;
	const char *k;
	char b[256];

	if (jv_container(v, w, "counters_by_sender", jp, false, &o))
		return -1;
	if (!o)
		return 0;
	fmt_into(b, sizeof(b), "%s", JV_KEY(jp, "counters_by_sender"));
	json_object_foreach(o, k, x) {
		json_int_t n;

		if (ipibench_sender_index(k, strlen(k)) < 0)
			return jv_fail(v, b, "a key that is not a send routine (genapic, "
				       "physical, cluster)");
		if (!json_is_object(x))
			return jv_fail(v, JV_KEY(b, k), "must be an object, not %s", JV_REPR(x));
		for (size_t i = 0; i < 3; i++)
			if (jv_int(v, x, keys[i], JV_KEY(b, k), 0, 0, JV_COUNT_MAX, &n, NULL))
				return -1;
	}
	return 0;
}

static bool guest_rel_path_ok(const char *s);

/* A workload's "trace": a path in the results directory, by the rule of a
 * guest run's traces (guest_rel_path_ok). */
static int validate_trace(const struct jv *v, json_t *w, const char *jp)
{
	const char *s;

	if (jv_str(v, w, IPB_KEY(WL_TRACE), jp, JV_NULL, &s))
		return -1;
	if (s && !guest_rel_path_ok(s))
		return jv_fail(v, JV_KEY(jp, IPB_KEY(WL_TRACE)), "%s is not a path in the results "
			       "directory (1 to 4 names joined by '/')",
			       JV_REPR(json_object_get(w, IPB_KEY(WL_TRACE))));
	return 0;
}

/* A workload: its fields by their kinds, then what is held to more: its
 * status, the loops' pairs; its params, samples, loops, counters and
 * insn_counts by their tables (other keys are left alone: results of
 * other versions). */
static int validate_workload(const struct jv *v, json_t *w, const char *jp)
{
	static const char *const wstatus[] = { "ok", "failed", NULL };
	const char *s;
	json_t *a;
	size_t i;

	if (!json_is_object(w))
		return jv_fail(v, jp, "must be an object, not %s", JV_REPR(w));
	if (jv_str(v, w, IPB_KEY(WL_NAME), jp, JV_REQ | JV_NAME, &s) ||
	    jv_str(v, w, IPB_KEY(WL_TYPE), jp, JV_REQ | JV_NAME, &s) ||
	    jv_enum(v, w, IPB_KEY(WL_STATUS), jp, wstatus, "a workload status", &s) ||
	    validate_at(v, w, IPB_AT_WORKLOAD, jp))
		return -1;
	if (validate_at(v, json_object_get(w, IPB_KEY(WL_PARAMS)), IPB_AT_PARAMS,
			JV_KEY(jp, IPB_KEY(WL_PARAMS))) ||
	    validate_at(v, json_object_get(w, IPB_KEY(WL_SAMPLES)), IPB_AT_SAMPLES,
			JV_KEY(jp, IPB_KEY(WL_SAMPLES))) ||
	    validate_at(v, json_object_get(w, IPB_KEY(WL_INSN_COUNTS)), IPB_AT_INSN,
			JV_KEY(jp, IPB_KEY(WL_INSN_COUNTS))) ||
	    validate_at(v, json_object_get(w, IPB_KEY(WL_COUNTERS)), IPB_AT_COUNTERS,
			JV_KEY(jp, IPB_KEY(WL_COUNTERS))))
		return -1;
	a = json_object_get(w, IPB_KEY(WL_LOOPS));
	if (a && validate_loops(v, a, JV_KEY(jp, IPB_KEY(WL_LOOPS))))
		return -1;
	for (i = 0; i < json_array_size(a); i++) {
		char b[256], lp[256];

		fmt_into(lp, sizeof(lp), "%s", JV_KEY(jp, IPB_KEY(WL_LOOPS)));
		if (validate_at(v, json_array_get(a, i), IPB_AT_LOOP, jv_idx(b, sizeof(b), lp, i)))
			return -1;
	}
	if (validate_by_sender(v, w, jp) || validate_trace(v, w, jp))
		return -1;
	return 0;
}

/*
 * runs[].host_state: an object of at most HS_MAX_KEYS named keys whose
 * values are null, true, false, an integer or a string (shown escaped in
 * the report); absent or null in older results.  The cpufreq keys
 * (agent/hoststate.h) are held to what the agent writes: a Xen name of
 * at most 15 bytes ("none": no cpufreq) or null, and turbo a boolean or
 * null.
 */
#define HS_MAX_KEYS 32
#define HS_MAX_TEXT 256
#define HS_CPUFREQ_NAME 15	/* CPUFREQ_NAME_LEN - 1 */
static int validate_hs_key(const struct jv *v, const char *key, json_t *x, const char *b)
{
	if (!strcmp(key, "cpufreq_driver") || !strcmp(key, "cpufreq_governor")) {
		if (!json_is_null(x) && !(json_is_string(x) && json_string_length(x) <= HS_CPUFREQ_NAME &&
					  sio_name_ok(json_string_value(x))))
			return jv_fail(v, JV_KEY(b, key), "must be null or a driver/governor name of at "
				       "most %d bytes ([A-Za-z0-9][A-Za-z0-9._-]*), not %s",
				       HS_CPUFREQ_NAME, JV_REPR(x));
	} else if (!strcmp(key, "turbo")) {
		if (!json_is_null(x) && !json_is_boolean(x))
			return jv_fail(v, JV_KEY(b, key), "must be null, true or false, not %s", JV_REPR(x));
	}
	return 0;
}

static int validate_host_state(const struct jv *v, json_t *run, const char *jp)
{
	json_t *hs = json_object_get(run, IPB_KEY(RUN_HOST_STATE)), *x;
	const char *key;
	size_t n = 0;

	if (!hs || json_is_null(hs))
		return 0;
	if (!json_is_object(hs))
		return jv_fail(v, JV_KEY(jp, IPB_KEY(RUN_HOST_STATE)), "must be an object, not %s",
			       JV_REPR(hs));
	json_object_foreach(hs, key, x) {
		char b[256];

		fmt_into(b, sizeof(b), "%s.%s", jp, IPB_KEY(RUN_HOST_STATE));
		if (++n > HS_MAX_KEYS)
			return jv_fail(v, b, "more than %d keys", HS_MAX_KEYS);
		if (!sio_name_ok(key))
			return jv_fail(v, b, "a key that is not a name ([A-Za-z0-9][A-Za-z0-9._-]*)");
		if (!json_is_null(x) && !json_is_boolean(x) && !json_is_integer(x) &&
		    !(json_is_string(x) && json_string_length(x) <= HS_MAX_TEXT))
			return jv_fail(v, JV_KEY(b, key), "must be null, true, false, an integer or a "
				       "string of at most %d bytes, not %s", HS_MAX_TEXT, JV_REPR(x));
		if (validate_hs_key(v, key, x, b))
			return -1;
	}
	return 0;
}

static int validate_run(const struct jv *v, json_t *run, const char *jp)
{
	static const char *const rstatus[] = { "ok", "failed", "stalled", "pending", "running",
						 NULL };
	const char *modes[IPIBENCH_NMODES + 1] = { 0 }, *s;	/* NULL-terminated */
	json_t *wls, *w;
	size_t i;

	for (i = 0; i < IPIBENCH_NMODES; i++)
		modes[i] = ipibench_mode_name(i);
	if (!json_is_object(run))
		return jv_fail(v, jp, "must be an object, not %s", JV_REPR(run));
	if (jv_str(v, run, IPB_KEY(RUN_ID), jp, JV_REQ | JV_NAME, &s) ||
	    jv_enum(v, run, IPB_KEY(RUN_MODE), jp, modes, "a mode", &s) ||
	    jv_enum(v, run, IPB_KEY(RUN_STATUS), jp, rstatus, "a run status", &s) ||
	    jv_str(v, run, IPB_KEY(RUN_GENAPIC), jp, JV_NULL, &s))
		return -1;
	if (s && *s && !sio_name_ok(s))
		return jv_fail(v, JV_KEY(jp, IPB_KEY(RUN_GENAPIC)), "%s is not a valid driver name",
			       JV_REPR(json_object_get(run, IPB_KEY(RUN_GENAPIC))));
	if (validate_host_state(v, run, jp) || validate_at(v, run, IPB_AT_RUN, jp) ||
	    validate_at(v, json_object_get(run, IPB_KEY(RUN_STALL)), IPB_AT_STALL,
			JV_KEY(jp, IPB_KEY(RUN_STALL))))
		return -1;
	wls = json_object_get(run, IPB_KEY(RUN_WORKLOADS));
	json_array_foreach(wls, i, w) {
		char b[256];
		fmt_into(b, sizeof(b), "%s.%s[%zu]", jp, IPB_KEY(RUN_WORKLOADS), i);
		if (validate_workload(v, w, b))
			return -1;
	}
	return 0;
}

/* N digits at *p (advanced) as a number in [lo, hi]. */
static bool iso_num(const char **p, int n, int lo, int hi, int *out)
{
	int x = 0;
	for (int i = 0; i < n; i++, (*p)++) {
		if (**p < '0' || **p > '9')
			return false;
		x = 10 * x + (**p - '0');
	}
	*out = x;
	return x >= lo && x <= hi;
}

/* YYYY-MM-DDThh:mm:ss[.f...](Z|+hh:mm|-hh:mm), a day that exists: the
 * ISO 8601 extended form the runner writes. */
static bool iso8601_ok(const char *s)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, d, h, mi, se, x;
	const char *p = s;
	if (!iso_num(&p, 4, 0, 9999, &y) || *p++ != '-' || !iso_num(&p, 2, 1, 12, &mo) ||
	    *p++ != '-' || !iso_num(&p, 2, 1, mdays[mo - 1], &d) || *p++ != 'T' ||
	    !iso_num(&p, 2, 0, 23, &h) || *p++ != ':' || !iso_num(&p, 2, 0, 59, &mi) ||
	    *p++ != ':' || !iso_num(&p, 2, 0, 60, &se))
		return false;
	if (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
		return false;
	if (*p == '.') {
		size_t nd = strspn(++p, "0123456789");
		if (!nd || nd > 9)
			return false;
		p += nd;
	}
	if (*p == 'Z')
		return !p[1];
	if (*p != '+' && *p != '-')
		return false;
	p++;
	return iso_num(&p, 2, 0, 23, &x) && *p++ == ':' && iso_num(&p, 2, 0, 59, &x) && !*p;
}

/* created: an ISO 8601 timestamp as the runner writes it (it orders history). */
static int validate_created(const struct jv *v, json_t *root)
{
	const char *s;

	if (jv_str(v, root, IPB_KEY(CREATED), "$", 0, &s))
		return -1;
	if (s && !iso8601_ok(s))
		return jv_fail(v, "$.created", "%s is not an ISO 8601 date and time "
			       "(YYYY-MM-DDThh:mm:ssZ)", JV_REPR(json_object_get(root, IPB_KEY(CREATED))));
	return 0;
}

/* $.host.preflight: {facts: {...}, warnings: [{level, where, text, fix}]} (runner/hostcheck.h). */
#define AN_MAX_PREFLIGHT 64
static int validate_preflight(const struct jv *v, const json_t *pf)
{
	const json_t *w, *x;
	size_t i;
	char p[64];

	if (!pf)
		return 0;
	if (!json_is_object(pf))
		return jv_fail(v, "$.host.preflight", "must be an object, not %s", JV_REPR(pf));
	x = json_object_get(pf, "facts");
	if (x && !json_is_object(x))
		return jv_fail(v, "$.host.preflight.facts", "must be an object, not %s", JV_REPR(x));
	w = json_object_get(pf, "warnings");
	if (!json_is_array(w))
		return jv_fail(v, "$.host.preflight.warnings", "must be an array, not %s",
			       w ? JV_REPR(w) : "missing");
	if (json_array_size(w) > AN_MAX_PREFLIGHT)
		return jv_fail(v, "$.host.preflight.warnings", "%zu warnings, more than %d",
			       json_array_size(w), AN_MAX_PREFLIGHT);
	json_array_foreach(w, i, x) {
		static const char *const keys[] = { "level", "where", "text", "fix" };
		snprintf(p, sizeof(p), "$.host.preflight.warnings[%zu]", i);
		if (!json_is_object(x))
			return jv_fail(v, p, "must be an object, not %s", JV_REPR(x));
		for (size_t k = 0; k < 4; k++) {
			const json_t *s = json_object_get(x, keys[k]);
			if (!json_is_string(s) || json_string_length(s) > 1000)
				return jv_fail(v, p, "%s: must be a string of at most 1000 bytes", keys[k]);
		}
	}
	return 0;
}

int results_validate(const char *file, json_t *root, char *err)
{
	struct jv v = { .file = file, .err = err };
	json_t *host, *tool, *runs, *run;
	json_int_t n;
	const char *s;
	bool have;
	size_t i;

	if (!json_is_object(root))
		return jv_fail(&v, "$", "must be an object, not %s", JV_REPR(root));
	json_t *sv = json_object_get(root, IPB_KEY(SCHEMA_VERSION));
	if (!sv)
		return jv_fail(&v, "$.schema_version",
			       "missing: not an ipibench results.json");
	if (!json_is_integer(sv) || json_integer_value(sv) < 1)
		return jv_fail(&v, "$.schema_version", "%s is not a positive integer",
			       JV_REPR(sv));
	if (json_integer_value(sv) > IPB_RESULTS_SCHEMA_VERSION) {
		an_err(err,
		       "%s: schema_version %lld is newer than this reader (%d): update ipibench",
		       file, (long long)json_integer_value(sv), IPB_RESULTS_SCHEMA_VERSION);
		return -1;
	}
	if (validate_at(&v, root, IPB_AT_ROOT, "$") || validate_created(&v, root))
		return -1;
	host = json_object_get(root, IPB_KEY(HOST));
	tool = json_object_get(root, IPB_KEY(TOOL));
	if (host) {
		json_int_t cpus = 0, maxcpus;
		if (jv_int(&v, host, IPB_KEY(HOST_CPUS), "$.host", 0, 1, JV_MAX_CPUS, &cpus, NULL) ||
		    jv_int(&v, host, IPB_KEY(HOST_MAXCPUS), "$.host", 0, 1, JV_MAX_CPUS, &maxcpus,
			   &have) ||
		    jv_int(&v, host, IPB_KEY(HOST_TSC_KHZ), "$.host", 0, 0, 100000000, &n, NULL) ||
		    validate_at(&v, host, IPB_AT_HOST, "$.host"))
			return -1;
		/* The layout the host was given: the series of a sweep. */
		const char *topo = json_string_value(json_object_get(host, IPB_KEY(HOST_TOPOLOGY)));
		struct topo t;
		char msg[200];
		if (topo && topo_parse(topo, &t, msg, sizeof(msg)))
			return jv_fail(&v, "$.host.topology", "%s", msg);
		if (have && maxcpus < cpus)
			return jv_fail(&v, "$.host.maxcpus", "%lld is less than host.cpus (%lld)",
				       (long long)maxcpus, (long long)cpus);
		if (validate_preflight(&v, json_object_get(host, IPB_KEY(HOST_PREFLIGHT))))
			return -1;
	}
	if (validate_at(&v, tool, IPB_AT_TOOL, "$.tool"))
		return -1;
	(void)s;
	runs = json_object_get(root, IPB_KEY(RUNS));
	json_array_foreach(runs, i, run) {
		char b[64];
		snprintf(b, sizeof(b), "$.%s[%zu]", IPB_KEY(RUNS), i);
		if (validate_run(&v, run, b))
			return -1;
	}
	return 0;
}

static const char *jstr(json_t *o, const char *key, const char *dflt)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : dflt;
}

static bool jnum(json_t *o, const char *key, double *out)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return true;
}

struct group *dataset_find_build(struct dataset *d, size_t set, const char *host,
				 const char *build, long cpus, const char *workload,
				 const char *mode)
{
	for (size_t i = 0; i < d->ngroups; i++) {
		struct group *g = &d->groups[i];
		if (g->set == set && g->cpus == cpus && !strcmp(g->host, host) &&
		    (!build || !strcmp(g->build, build)) &&
		    !strcmp(g->workload, workload) && !strcmp(g->mode, mode))
			return g;
	}
	return NULL;
}

struct group *dataset_find(struct dataset *d, size_t set, const char *host,
			   long cpus, const char *workload, const char *mode)
{
	return dataset_find_build(d, set, host, NULL, cpus, workload, mode);
}

/* A group's key for d->group_index: every part with its length, so no two
 * keys run into each other. */
static char *group_key(size_t set, long cpus, const char *host, const char *build,
		       const char *topo, const char *workload, const char *mode)
{
	return xasprintf("%zu/%ld/%zu:%s/%zu:%s/%zu:%s/%zu:%s/%zu:%s", set, cpus, strlen(host), host,
			 strlen(build), build, strlen(topo), topo, strlen(workload), workload,
			 strlen(mode), mode);
}

static char *group_key_of(const struct group *g)
{
	return group_key(g->set, g->cpus, g->host, g->build, g->topo, g->workload, g->mode);
}

/* The index again from d->groups (after the array was sorted). */
static void group_index_rebuild(struct dataset *d)
{
	if (!d->group_index)
		d->group_index = json_object();
	json_object_clear(d->group_index);
	for (size_t i = 0; i < d->ngroups; i++) {
		char *k = group_key_of(&d->groups[i]);
		json_object_set_new_nocheck(d->group_index, k, json_integer((json_int_t)i));
		free(k);
	}
}

/* Runs of one host name given different topologies are never pooled
 * either: a group is also keyed by its topology (resultset.topo).  Found
 * through d->group_index (a jansson hash table): O(1) per workload. */
static struct group *group_get(struct dataset *d, size_t set,
			       const struct resultset *rs, const char *workload,
			       const char *type, const char *mode)
{
	char *key = group_key(set, rs->cpus, rs->host_name, rs->xen_build, rs->topo, workload, mode);
	for (int pass = 0; pass < 2; pass++) {
		json_t *x = d->group_index ? json_object_get(d->group_index, key) : NULL;
		size_t i = x ? (size_t)json_integer_value(x) : 0;
		if (!x)
			break;
		struct group *g = &d->groups[i];
		if (i < d->ngroups && g->set == set && g->cpus == rs->cpus &&
		    !strcmp(g->host, rs->host_name) && !strcmp(g->build, rs->xen_build) &&
		    !strcmp(g->topo, rs->topo) && !strcmp(g->workload, workload) &&
		    !strcmp(g->mode, mode)) {
			free(key);
			return g;
		}
		group_index_rebuild(d);	/* stale: the groups were reordered */
	}
	/* several_builds: some group's build differs from another's (so from
	 * the first's); several_topos: a host with two topologies. */
	if (d->ngroups && strcmp(d->groups[0].build, rs->xen_build))
		d->several_builds = true;
	if (!d->host_topo)
		d->host_topo = json_object();
	json_t *ht = json_object_get(d->host_topo, rs->host_name);
	if (!ht)
		json_object_set_new_nocheck(d->host_topo, rs->host_name, json_string_nocheck(rs->topo));
	else if (strcmp(json_string_value(ht), rs->topo))
		d->several_topos = true;
	struct group *g;
	if (d->ngroups == d->groups_cap) {
		d->groups_cap = d->groups_cap ? 2 * d->groups_cap : 64;
		d->groups = xrealloc(d->groups, d->groups_cap * sizeof(*d->groups));
	}
	if (!d->group_index)
		d->group_index = json_object();
	json_object_set_new_nocheck(d->group_index, key, json_integer((json_int_t)d->ngroups));
	free(key);
	g = &d->groups[d->ngroups++];
	memset(g, 0, sizeof(*g));
	g->set = set;
	g->host = xstrdup(rs->host_name);
	g->cpus = rs->cpus;
	g->workload = xstrdup(workload);
	g->type = xstrdup(type);
	g->mode = xstrdup(mode);
	g->build = xstrdup(rs->xen_build);
	g->topo = xstrdup(rs->topo);
	g->emulated = rs->emulated;
	return g;
}

static void add_failed(struct dataset *d, const char *set, const char *id,
		       const char *mode, const char *error)
{
	d->failed = xrealloc(d->failed, (d->nfailed + 1) * sizeof(*d->failed));
	struct failed_run *f = &d->failed[d->nfailed++];
	f->set_path = xstrdup(set);
	f->id = xstrdup(id);
	f->mode = xstrdup(mode);
	f->error = xstrdup(error);
}

/* Append a numeric array to g->ns (scaled); -1 on a non-number. */
static int add_samples(struct group *g, json_t *arr, double scale, size_t *bad)
{
	size_t n = json_array_size(arr);
	if (g->n + n > g->cap) {
		g->cap = (g->n + n) * 2;
		g->ns = xrealloc(g->ns, g->cap * sizeof(double));
	}
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(arr, i);
		if (!json_is_number(v)) {
			*bad = i;
			return -1;
		}
		g->ns[g->n++] = json_number_value(v) * scale;
	}
	return 0;
}

/* A workload's "counters", summed into its group (runs[ri].workloads[wi]
 * of path, for errors). */
static int add_counters(struct group *g, json_t *w, const char *path, size_t ri, size_t wi,
			char *err)
{
	json_t *c = json_object_get(w, IPB_KEY(WL_COUNTERS));
	double v;
	if (jnum(c, IPB_COUNTER(OPERATIONS), &v)) {
		g->operations += v;
		g->has_ops = true;
	}
	if (jnum(c, IPB_COUNTER(ICR_WRITES), &v)) {
		g->icr_writes += v;
		g->has_icr = true;
	}
	if (jnum(c, IPB_COUNTER(IPIS_SENT), &v)) {
		g->ipis_sent += v;
		g->has_ipis = true;
	}
	if (jnum(c, IPB_COUNTER(VECTORS), &v)) {
		g->vectors_sum += v;
		g->vectors_runs++;
	}
	const char *sk;
	json_t *sv;
	json_object_foreach(json_object_get(w, "counters_by_sender"), sk, sv) {
		int k = ipibench_sender_index(sk, strlen(sk));
		double o, icr;
		if (k >= 0 && k < 3 && jnum(sv, IPB_COUNTER(OPERATIONS), &o) &&
		    jnum(sv, IPB_COUNTER(ICR_WRITES), &icr)) {
			g->bysend[k].ops += o;
			g->bysend[k].icr += icr;
			g->bysend[k].has = true;
		}
	}
	json_t *ic = json_object_get(w, IPB_KEY(WL_INSN_COUNTS));
	if (ic) {
		static const enum ipb_insn keys[] = { IPB_I_OPERATIONS, IPB_I_SEND_INSNS_PER_OP,
			IPB_I_WAIT_INSNS_PER_OP, IPB_I_HANDLERS, IPB_I_HANDLER_INSNS_MEAN,
			IPB_I_HANDLER_INSNS_MAX, IPB_I_ICR_WRITES, IPB_I_ICR_WRITES_HV };
		double x[8];
		for (size_t k = 0; k < 8; k++) {
			const char *key = ipb_insn(keys[k])->key;

			if (!jnum(ic, key, &x[k]) || x[k] < 0) {
				an_err(err, "%s: runs[%zu].workloads[%zu].insn_counts.%s: not a number >= 0",
				       path, ri, wi, key);
				return -1;
			}
		}
		g->ic.runs++;
		g->ic.ops += x[0];
		g->ic.send += x[1] * x[0];
		g->ic.wait += x[2] * x[0];
		g->ic.handlers += x[3];
		g->ic.handler_insns += x[4] * x[3];
		if (x[5] > g->ic.handler_max)
			g->ic.handler_max = x[5];
		g->ic.icr += x[6];
		g->ic.icr_hv += x[7];
		if (x[6] != x[7])
			g->ic.mismatches++;
		/* the per-call minima (optional): exact where a mean is moved
		 * by an interrupt that lands inside a call */
		double mn;
		if (jnum(ic, IPB_INSN(SEND_INSNS_MIN), &mn) && mn >= 0 &&
		    (g->ic.send_min_runs++ == 0 || mn < g->ic.send_min))
			g->ic.send_min = mn;
		if (jnum(ic, IPB_INSN(HANDLER_INSNS_MIN), &mn) && mn >= 0 && x[3] > 0 &&
		    (g->ic.handler_min_runs++ == 0 || mn < g->ic.handler_min))
			g->ic.handler_min = mn;
	}
	json_t *irqs = json_object_get(c, IPB_COUNTER(IRQS_PER_CPU));
	if (json_is_array(irqs) && json_array_size(irqs)) {
		size_t n = json_array_size(irqs);
		if (n > g->nirqs) {
			g->irqs = xrealloc(g->irqs, n * sizeof(double));
			memset(g->irqs + g->nirqs, 0, (n - g->nirqs) * sizeof(double));
			g->nirqs = n;
		}
		for (size_t i = 0; i < n; i++) {
			json_t *x = json_array_get(irqs, i);
			if (!json_is_number(x)) {
				an_err(err,
				       "%s: runs[%zu].workloads[%zu].counters.irqs_per_cpu[%zu]: not a number",
				       path, ri, wi, i);
				return -1;
			}
			g->irqs[i] += json_number_value(x);
		}
		g->irq_runs++;
	}
	return 0;
}

/* One icr_check object (CHK, of routine SENDER) into g->icrx. */
static void add_icr_one(struct group *g, const char *sender, const json_t *chk)
{
	const json_t *e = json_object_get(chk, "expected"), *m = json_object_get(chk, "measured");
	const char *route = json_string_value(json_object_get(chk, "route"));
	struct icr_exp *x = NULL;

	if (!json_is_integer(e) || !json_is_number(m) || !route)
		return;
	for (size_t i = 0; i < g->nicrx; i++)
		if (!strcmp(g->icrx[i].sender, sender))
			x = &g->icrx[i];
	if (!x) {
		if (g->nicrx == GROUP_MAX_ICR)
			return;
		x = &g->icrx[g->nicrx++];
		memset(x, 0, sizeof(*x));
		snprintf(x->sender, sizeof(x->sender), "%s", sender);
		snprintf(x->route, sizeof(x->route), "%s", route);
		x->expected = (double)json_integer_value(e);
	} else if (x->expected != (double)json_integer_value(e)) {
		x->expected_varies = true;
	}
	x->measured_sum += json_number_value(m);
	x->runs++;
	if (!json_is_true(json_object_get(chk, "ok")))
		x->mismatch = true;
}

/* The layout check's verdicts on workload W of a checked run copy. */
static void add_icr_check(struct group *g, const json_t *w)
{
	const json_t *chk = json_object_get(w, IPB_KEY(WL_ICR_CHECK));
	const json_t *by = json_object_get(chk, "by_sender");
	const char *sender = json_string_value(json_object_get(json_object_get(w, IPB_KEY(WL_PARAMS)),
								IPB_KEY(PARAMS_SENDER)));

	if (json_is_object(by)) {
		const char *k;
		const json_t *v;

		json_object_foreach((json_t *)by, k, v)
			if (sio_name_ok(k))
				add_icr_one(g, k, v);
	} else if (chk) {
		add_icr_one(g, sender && sio_name_ok(sender) ? sender : "genapic", chk);
	}
}

/*
 * A copy of RUN with the layout check's findings (workloads/check.h): the
 * layout from host.topology when the results name one, else the
 * hypervisor's own IDs.  NULL when the run has nothing to check (no query).
 */
static json_t *checked_copy(struct resultset *rs, const json_t *host, json_t *run)
{
	static struct layout expect;
	const char *topo = json_string_value(json_object_get(host, IPB_KEY(HOST_TOPOLOGY)));
	const struct layout *ex = NULL;
	struct topo t;
	char msg[512];
	json_t *c;

	if (!json_object_get(run, IPB_KEY(RUN_HV)))
		return NULL;
	if (topo && !topo_parse(topo, &t, msg, sizeof(msg)) && rs->cpus > 0 &&
	    !layout_from_topo(&expect, &t, (unsigned int)rs->cpus, msg, sizeof(msg)))
		ex = &expect;
	c = json_deep_copy(run);
	if (!c)
		return NULL;
	if (layout_check_run(c, ex, topo, msg, sizeof(msg)) < 0) {
		json_decref(c);
		return NULL;
	}
	if (!rs->layout) {
		const char *dsc = json_string_value(json_object_get(json_object_get(c, IPB_KEY(RUN_LAYOUT)),
								    "describe"));
		rs->layout = dsc ? xstrdup(dsc) : NULL;
		rs->topology = topo ? xstrdup(topo) : NULL;
	}
	return c;
}

static int add_workload(struct dataset *d, size_t set, struct resultset *rs,
			json_t *run, json_t *w, size_t ri, size_t wi,
			double tsc_khz, const json_t *checked, char *err)
{
	const char *path = rs->path;
	const char *mode = jstr(run, IPB_KEY(RUN_MODE), "unknown");
	const char *name = jstr(w, IPB_KEY(WL_NAME), NULL);
	if (!name) {
		an_err(err, "%s: runs[%zu].workloads[%zu]: no \"%s\"",
		       path, ri, wi, IPB_KEY(WL_NAME));
		return -1;
	}
	if (++d->nworkloads > AN_MAX_WORKLOADS) {
		an_err(err, "%s: runs[%zu].workloads[%zu]: more than %d workloads in the results read",
		       path, ri, wi, AN_MAX_WORKLOADS);
		return -1;
	}
	json_t *samples = json_object_get(w, IPB_KEY(WL_SAMPLES));
	size_t nsamp = json_array_size(json_object_get(samples, IPB_KEY(SAMPLES_NS))) +
		       json_array_size(json_object_get(samples, IPB_KEY(SAMPLES_CYCLES)));
	if ((d->nsamples += nsamp) > AN_MAX_SAMPLES) {
		an_err(err, "%s: runs[%zu].workloads[%zu].samples: more than %d samples in the results read",
		       path, ri, wi, AN_MAX_SAMPLES);
		return -1;
	}
	if ((d->nloops += json_array_size(json_object_get(w, IPB_KEY(WL_LOOPS)))) > AN_MAX_LOOPS) {
		an_err(err, "%s: runs[%zu].workloads[%zu].loops: more than %d loops in the results read",
		       path, ri, wi, AN_MAX_LOOPS);
		return -1;
	}
	const char *type = jstr(w, IPB_KEY(WL_TYPE), name);
	struct group *g = group_get(d, set, rs, name, type, mode);
	bool ok = !strcmp(jstr(run, IPB_KEY(RUN_STATUS), "ok"), "ok") &&
		  !strcmp(jstr(w, IPB_KEY(WL_STATUS), "ok"), "ok");
	if (!ok) {
		g->runs_failed++;
		return 0;
	}
	g->runs_ok++;
	if (checked)
		add_icr_check(g, checked);
	const char *genapic = jstr(run, IPB_KEY(RUN_GENAPIC), "");
	if (!g->genapic)
		g->genapic = xstrdup(genapic);
	else if (strcmp(g->genapic, genapic))
		g->genapic_mixed = true;
	if (!g->path)
		g->path = xstrdup(jstr(w, IPB_KEY(WL_PATH), ""));
	const char *trace = jstr(w, IPB_KEY(WL_TRACE), NULL);
	if (trace && !g->trace) {
		char *dup = xstrdup(path), *slash = strrchr(dup, '/');
		if (slash)
			*slash = 0;
		g->trace_dir = slash ? dup : (free(dup), xstrdup("."));
		g->trace = xstrdup(trace);
		g->trace_where = xasprintf("%s: runs[%zu].workloads[%zu].trace", path, ri, wi);
	}
	double it;
	if (jnum(json_object_get(w, IPB_KEY(WL_PARAMS)), IPB_KEY(PARAMS_ITERATIONS), &it))
		g->iterations = (long)it;

	size_t first_sample = g->n;
	json_t *ns = json_object_get(samples, IPB_KEY(SAMPLES_NS));
	json_t *cyc = json_object_get(samples, IPB_KEY(SAMPLES_CYCLES));
	size_t bad = 0;
	if (json_array_size(ns)) {
		if (add_samples(g, ns, 1.0, &bad)) {
			an_err(err,
			       "%s: runs[%zu].workloads[%zu].samples.ns[%zu]: not a number",
			       path, ri, wi, bad);
			return -1;
		}
	} else if (json_array_size(cyc) && tsc_khz > 0) {
		if (add_samples(g, cyc, 1e6 / tsc_khz, &bad)) {
			an_err(err,
			       "%s: runs[%zu].workloads[%zu].samples.cycles[%zu]: not a number",
			       path, ri, wi, bad);
			return -1;
		}
	}

	char jp[64];
	snprintf(jp, sizeof(jp), "runs[%zu].workloads[%zu]", ri, wi);
	if (runlevel_add(g, path, jstr(run, IPB_KEY(RUN_ID), "?"), w, first_sample, jp, err))
		return -1;

	return add_counters(g, w, path, ri, wi, err);
}

/* The keys of a guest run's "traces", in struct guest_run's order. */
const char *const guest_trace_key[2] = { "hvm", "hvm_sched" };

/*
 * $.guest_runs (optional; the runner's [guest] runs, docs/results-schema.md):
 * [{"ipi_path": NAME, "status": "ok", "counts": {KEY: VALUE...},
 * "traces": {"hvm": PATH, "hvm_sched": PATH}}...], or with "msi_path":
 * NAME (an HVM guest's NIC run: then ipi_path is not read) and "load":
 * {KEY: VALUE...}.  A run whose status is not "ok" is left out (counted
 * in d->guests_not_ok).  A trace is named by a path relative to the
 * results directory (guest_rel_path_ok), at least one of the two; the
 * integer members of counts are the guest's own counts (>= 0), the
 * numeric members of load the load's figures (finite, >= 0); their other
 * members are left alone.  Other keys too.
 */
/* A trace's path in the results directory: 1 to GUEST_PATH_PARTS
 * components, each of the name rule (so no "..", no leading '/', no empty
 * component).  report_guests.c refuses symbolic links on the way. */
#define GUEST_PATH_PARTS 4
static bool guest_rel_path_ok(const char *s)
{
	char part[SIO_NAME_MAX + 1];
	size_t n = 0;

	for (;;) {
		const char *slash = strchr(s, '/');
		size_t len = slash ? (size_t)(slash - s) : strlen(s);

		if (len == 0 || len > SIO_NAME_MAX || ++n > GUEST_PATH_PARTS)
			return false;
		memcpy(part, s, len);
		part[len] = 0;
		if (!sio_name_ok(part))
			return false;
		if (!slash)
			return true;
		s = slash + 1;
	}
}

/* A value's kind for a refusal; "missing" when absent. */
static const char *gkind(const json_t *v)
{
	return v ? sio_json_kind(v) : "missing";
}

/*
 * The numeric members of a guest run's load O (and of its objects, one
 * level down: the runner's {"ping": {...}, "ab": {...}}) into OUT, keyed
 * "NAME" or "PARENT.NAME"; each finite and >= 0, each key of the name
 * rule.  0, or -1 with one line naming the file and the JSON path.
 */
static int load_numbers(json_t *out, json_t *o, const char *parent, const char *path, size_t i,
			char *err)
{
	const char *key;
	json_t *v;

	json_object_foreach(o, key, v) {
		char k[2 * SIO_NAME_MAX + 2];

		if (!json_is_number(v) && !(json_is_object(v) && !parent))
			continue;
		if (!sio_name_ok(key)) {
			an_err(err, "%s: $.guest_runs[%zu].load%s%s: a key outside the name rule", path, i,
			       parent ? "." : "", parent ? parent : "");
			return -1;
		}
		snprintf(k, sizeof(k), "%s%s%s", parent ? parent : "", parent ? "." : "", key);
		if (json_is_object(v)) {
			if (load_numbers(out, v, key, path, i, err))
				return -1;
			continue;
		}
		if (!(json_number_value(v) >= 0) || isinf(json_number_value(v))) {
			an_err(err, "%s: $.guest_runs[%zu].load.%s: must be a finite number >= 0", path, i, k);
			return -1;
		}
		json_object_set(out, k, v);
	}
	return 0;
}

static int parse_guest_runs(struct dataset *d, const char *path, json_t *root, size_t set,
			    char *err)
{
	json_t *gr = json_object_get(root, IPB_KEY(GUEST_RUNS));

	if (!gr)
		return 0;
	if (!json_is_array(gr)) {
		an_err(err, "%s: $.guest_runs: must be an array, not %s", path, gkind(gr));
		return -1;
	}
	for (size_t i = 0; i < json_array_size(gr); i++) {
		json_t *g = json_array_get(gr, i), *v, *w, *tr;
		const char *key;
		struct guest_run run = { .set = set, .index = i };
		size_t ntr = 0;

		if (!json_is_object(g)) {
			an_err(err, "%s: $.guest_runs[%zu]: must be an object, not %s", path, i,
			       gkind(g));
			return -1;
		}
		run.kind = json_object_get(g, "msi_path") ? GR_NIC : GR_IPI;
		const char *pkey = run.kind == GR_NIC ? "msi_path" : "ipi_path";
		v = json_object_get(g, pkey);
		if (!json_is_string(v) || !sio_name_ok(json_string_value(v))) {
			an_err(err, "%s: $.guest_runs[%zu].%s: must be %s path's name (%s, %s), not %s",
			       path, i, pkey, run.kind == GR_NIC ? "an MSI" : "an IPI",
			       run.kind == GR_NIC ? IPIBENCH_MSI_PATH_PIRQ : IPIBENCH_IPI_PATH_EVTCHN,
			       run.kind == GR_NIC ? IPIBENCH_MSI_PATH_APIC : IPIBENCH_IPI_PATH_APIC,
			       json_is_string(v) ? "a string outside the name rule" : gkind(v));
			return -1;
		}
		v = json_object_get(g, "status");
		if (v && !json_is_string(v)) {
			an_err(err, "%s: $.guest_runs[%zu].status: must be a string, not %s", path, i,
			       gkind(v));
			return -1;
		}
		if (v && strcmp(json_string_value(v), "ok")) {
			d->guests_not_ok[run.kind]++;
			continue;
		}
		w = json_object_get(g, "load");
		if (w && !json_is_object(w)) {
			an_err(err, "%s: $.guest_runs[%zu].load: must be an object, not %s", path, i,
			       gkind(w));
			return -1;
		}
		json_t *load = json_object();
		if (load_numbers(load, w, NULL, path, i, err)) {
			json_decref(load);
			return -1;
		}
		w = json_object_get(g, "counts");
		if (w && !json_is_object(w)) {
			an_err(err, "%s: $.guest_runs[%zu].counts: must be an object, not %s",
			       path, i, gkind(w));
			json_decref(load);
			return -1;
		}
		json_t *counts = json_object();
		json_object_foreach(w, key, v) {
			if (!json_is_integer(v))
				continue;
			if (!sio_name_ok(key)) {
				an_err(err, "%s: $.guest_runs[%zu].counts: a key outside the name rule", path, i);
				json_decref(counts);
				json_decref(load);
				return -1;
			}
			if (json_integer_value(v) < 0) {
				an_err(err, "%s: $.guest_runs[%zu].counts.%s: must be a count (an integer >= 0), "
				       "not a negative integer", path, i, key);
				json_decref(counts);
				json_decref(load);
				return -1;
			}
			json_object_set(counts, key, v);
		}
		tr = json_object_get(g, "traces");
		if (!json_is_object(tr)) {
			an_err(err, "%s: $.guest_runs[%zu].traces: must be an object, not %s", path, i,
			       gkind(tr));
			json_decref(counts);
			json_decref(load);
			return -1;
		}
		for (size_t k = 0; k < 2; k++) {
			v = json_object_get(tr, guest_trace_key[k]);
			if (!v)
				continue;
			if (!json_is_string(v) || !guest_rel_path_ok(json_string_value(v))) {
				an_err(err, "%s: $.guest_runs[%zu].traces.%s: must be a path in the results directory "
				       "(at most %d components of the name rule: no leading '/', no \"..\"), not %s",
				       path, i, guest_trace_key[k], GUEST_PATH_PARTS,
				       json_is_string(v) ? "a string outside that rule" : gkind(v));
				json_decref(counts);
				json_decref(load);
				return -1;
			}
			ntr++;
		}
		if (!ntr) {
			an_err(err, "%s: $.guest_runs[%zu].traces: names no trace (hvm, hvm_sched)", path, i);
			json_decref(counts);
			json_decref(load);
			return -1;
		}
		char *dup = xstrdup(path), *slash = strrchr(dup, '/');
		if (slash)
			*slash = 0;
		run.dir = slash ? dup : (free(dup), xstrdup("."));
		run.results = xstrdup(path);
		run.path = xstrdup(json_string_value(json_object_get(g, pkey)));
		run.counts = counts;
		run.load = load;
		for (size_t k = 0; k < 2; k++) {
			v = json_object_get(tr, guest_trace_key[k]);
			run.trace[k] = v ? xstrdup(json_string_value(v)) : NULL;
		}
		d->guests = xrealloc(d->guests, (d->nguests + 1) * sizeof(*d->guests));
		d->guests[d->nguests++] = run;
	}
	return 0;
}

static int parse_results(struct dataset *d, const char *path, json_t *root,
			 char *err)
{
	if (results_validate(path, root, err))
		return -1;
	if (d->nsets >= AN_MAX_SETS) {
		an_err(err, "%s: one result set more than the %d one report or history reads", path,
		       AN_MAX_SETS);
		return -1;
	}
	json_t *runs = json_object_get(root, IPB_KEY(RUNS));
	json_t *host = json_object_get(root, IPB_KEY(HOST));
	json_t *tool = json_object_get(root, IPB_KEY(TOOL));
	d->sets = xrealloc(d->sets, (d->nsets + 1) * sizeof(*d->sets));
	size_t set_idx = d->nsets++;
	struct resultset *rs = &d->sets[set_idx];
	memset(rs, 0, sizeof(*rs));
	rs->path = xstrdup(path);
	rs->backend = xstrdup(jstr(host, IPB_KEY(HOST_BACKEND), "unknown"));
	rs->host_name = xstrdup(jstr(host, IPB_KEY(HOST_NAME), rs->backend));
	rs->cpu_model = xstrdup(jstr(host, IPB_KEY(HOST_CPU_MODEL), ""));
	rs->xen_version = xstrdup(jstr(host, IPB_KEY(HOST_XEN_VERSION), ""));
	rs->xen_build = xstrdup(jstr(host, IPB_KEY(HOST_XEN_BUILD), ""));
	rs->commit = xstrdup(jstr(tool, IPB_KEY(TOOL_COMMIT), "unknown"));
	rs->created = xstrdup(jstr(root, IPB_KEY(CREATED), ""));
	rs->config_file = xstrdup(jstr(root, IPB_KEY(CONFIG_FILE), ""));
	json_t *pw = json_object_get(json_object_get(host, IPB_KEY(HOST_PREFLIGHT)), "warnings");
	rs->preflight = json_array_size(pw) ? json_incref(pw) : NULL;
	double v;
	rs->cpus = jnum(host, IPB_KEY(HOST_CPUS), &v) ? (long)v : 0;
	rs->maxcpus = jnum(host, IPB_KEY(HOST_MAXCPUS), &v) ? (long)v : rs->cpus;
	rs->emulated = json_is_true(json_object_get(host, IPB_KEY(HOST_EMULATED)));
	/* validated above: a profile name, a topology topo_parse() reads, or none */
	rs->topo = xstrdup(jstr(host, IPB_KEY(HOST_PROFILE), jstr(host, IPB_KEY(HOST_TOPOLOGY),
						     rs->emulated ? "dense" : "native")));
	if (parse_guest_runs(d, path, root, set_idx, err))
		return -1;
	double tsc_khz = 0;
	jnum(host, IPB_KEY(HOST_TSC_KHZ), &tsc_khz);
	size_t group_set = d->separate_sets ? set_idx : 0;

	for (size_t ri = 0; ri < json_array_size(runs); ri++) {
		json_t *run = json_array_get(runs, ri);
		if (!json_is_object(run)) {
			an_err(err, "%s: runs[%zu]: not an object", path, ri);
			return -1;
		}
		const char *status = jstr(run, IPB_KEY(RUN_STATUS), "ok");
		const char *id = jstr(run, IPB_KEY(RUN_ID), "?");
		if (!strcmp(status, "stalled")) {
			/* Listed as a failed run is, with its evidence. */
			json_t *st = json_object_get(run, IPB_KEY(RUN_STALL));
			const char *rj = strrchr(path, '/');
			int dl = rj && !strcmp(rj, "/results.json") ? (int)(rj - path) : (int)strlen(path);
			char *what = xasprintf("%s (stall evidence: %.*s/%s)", jstr(run, IPB_KEY(RUN_ERROR), status),
					       dl, path, jstr(st, IPB_KEY(STALL_EVIDENCE), "?"));

			rs->runs_stalled++;
			add_failed(d, path, id, jstr(run, IPB_KEY(RUN_MODE), "?"), what);
			free(what);
		} else if (strcmp(status, "ok")) {
			rs->runs_failed++;
			add_failed(d, path, id, jstr(run, IPB_KEY(RUN_MODE), "?"),
				   jstr(run, IPB_KEY(RUN_ERROR), status));
		} else {
			rs->runs_ok++;
			hoststate_add(d, set_idx, id, json_object_get(run, IPB_KEY(RUN_HOST_STATE)));
		}
		json_t *wls = json_object_get(run, IPB_KEY(RUN_WORKLOADS));
		json_t *chk = strcmp(status, "ok") ? NULL : checked_copy(rs, host, run);
		json_t *cwls = json_object_get(chk, IPB_KEY(RUN_WORKLOADS));
		for (size_t wi = 0; wi < json_array_size(wls); wi++) {
			json_t *w = json_array_get(wls, wi);
			if (!json_is_object(w)) {
				an_err(err, "%s: runs[%zu].workloads[%zu]: not an object",
				       path, ri, wi);
				return -1;
			}
			if (!strcmp(status, "ok") &&
			    strcmp(jstr(w, IPB_KEY(WL_STATUS), "ok"), "ok")) {
				char *what = xasprintf("%s/%s", id, jstr(w, IPB_KEY(WL_NAME), "?"));
				add_failed(d, path, what, jstr(run, IPB_KEY(RUN_MODE), "?"),
					   jstr(w, IPB_KEY(WL_ERROR), jstr(w, IPB_KEY(WL_STATUS), "failed")));
				free(what);
			}
			if (add_workload(d, group_set, rs, run, w, ri, wi, tsc_khz,
					 json_array_get(cwls, wi), err)) {
				json_decref(chk);
				return -1;
			}
		}
		json_decref(chk);
	}
	return 0;
}

/* hyperfine --export-json: results[] of {command, times[], mean, ...}; the
 * summary numbers may be null (stddev of a single run). */
static int validate_hyperfine(const char *file, json_t *root, char *err)
{
	struct jv v = { .file = file, .err = err };
	json_t *res = json_object_get(root, "results"), *r, *times;
	const char *s;
	size_t i;

	if (!json_is_array(res))
		return jv_fail(&v, "$.results", "must be an array, not %s", JV_REPR(res));
	json_array_foreach(res, i, r) {
		char jp[64];
		snprintf(jp, sizeof(jp), "$.results[%zu]", i);
		if (!json_is_object(r))
			return jv_fail(&v, jp, "must be an object, not %s", JV_REPR(r));
		if (jv_str(&v, r, "command", jp, JV_REQ, &s) ||
		    jv_container(&v, r, "times", jp, true, &times) ||
		    (times && jv_numbers(&v, times, JV_KEY(jp, "times"), 1e9, false)))
			return -1;
		static const char *const keys[] = { "mean", "stddev", "median", "min", "max" };
		for (size_t k = 0; k < 5; k++) {
			json_t *x = json_object_get(r, keys[k]);
			double d;
			if (x && !json_is_null(x) &&
			    jv_number(&v, x, JV_KEY(jp, keys[k]), 0, 1e9, &d))
				return -1;
		}
	}
	return 0;
}

static int parse_hyperfine(struct dataset *d, const char *path, json_t *root,
			   char *err)
{
	if (validate_hyperfine(path, root, err))
		return -1;
	json_t *res = json_object_get(root, "results");
	struct hf_file hf = { .path = xstrdup(path) };
	for (size_t i = 0; i < json_array_size(res); i++) {
		json_t *r = json_array_get(res, i);
		const char *cmd = jstr(r, "command", NULL);
		hf.cmds = xrealloc(hf.cmds, (hf.n + 1) * sizeof(*hf.cmds));
		struct hf_cmd *c = &hf.cmds[hf.n++];
		memset(c, 0, sizeof(*c));
		c->command = xstrdup(cmd);
		json_t *times = json_object_get(r, "times");
		size_t n = json_array_size(times);
		c->times = xcalloc(n, sizeof(double));
		for (size_t k = 0; k < n; k++)
			c->times[c->n++] = json_number_value(json_array_get(times, k));
		gsl_sort(c->times, 1, c->n);
		if (!jnum(r, "mean", &c->mean))
			c->mean = c->n ? gsl_stats_mean(c->times, 1, c->n) : NAN;
		if (!jnum(r, "stddev", &c->stddev))
			c->stddev = c->n > 1 ? gsl_stats_sd(c->times, 1, c->n) : NAN;
		if (!jnum(r, "median", &c->median))
			c->median = stats_median_sorted(c->times, c->n);
		if (!jnum(r, "min", &c->min))
			c->min = c->n ? c->times[0] : NAN;
		if (!jnum(r, "max", &c->max))
			c->max = c->n ? c->times[c->n - 1] : NAN;
	}
	d->hf = xrealloc(d->hf, (d->nhf + 1) * sizeof(*d->hf));
	d->hf[d->nhf++] = hf;
	return 0;
}

/* Split a perf CSV line in place on ','; returns the field count. */
static size_t split_csv(char *line, char **f, size_t max)
{
	size_t n = 0;
	f[n++] = line;
	for (char *p = line; *p && n < max; p++)
		if (*p == ',') {
			*p = '\0';
			f[n++] = p + 1;
		}
	return n;
}

/* perf stat's value column: a finite decimal number or its two markers. */
static bool perf_value_like(const char *s)
{
	if (!strcmp(s, "<not counted>") || !strcmp(s, "<not supported>"))
		return true;
	if (!(isdigit((unsigned char)*s) || *s == '-' || *s == '.'))
		return false;	/* no "nan", "inf", " 12" */
	char *end;
	double v = strtod(s, &end);
	return end != s && *end == '\0' && isfinite(v);
}

/* The next line of text (NUL-terminated copy in *line, '\r' dropped); false
 * at the end. */
static bool next_line(const char **p, char **line)
{
	if (!**p)
		return false;
	size_t n = strcspn(*p, "\n");
	*line = xasprintf("%.*s", (int)n, *p);
	(*line)[strcspn(*line, "\r")] = '\0';
	*p += n + ((*p)[n] == '\n');
	return true;
}

/* Is text perf stat -x, output?  Its first data line (not empty, not a '#'
 * comment) has >= 3 fields and a value; the others are checked by
 * parse_perf(). */
static bool looks_like_perf(const char *text)
{
	const char *p = text;
	char *line;
	bool yes = false;
	while (next_line(&p, &line)) {
		if (*line && *line != '#') {
			char *f[16];
			yes = split_csv(line, f, 16) >= 3 && perf_value_like(f[0]);
			free(line);
			break;
		}
		free(line);
	}
	return yes;
}

static void perf_file_free(struct perf_file *pf)
{
	for (size_t k = 0; k < pf->n; k++) {
		struct perf_row *r = &pf->rows[k];
		free(r->value);
		free(r->unit);
		free(r->event);
		free(r->variance);
		free(r->runtime);
		free(r->pct);
		free(r->metric);
		free(r->metric_unit);
	}
	free(pf->rows);
	free(pf->path);
}

/* Every data line: >= 3 fields, a value, an event, no control characters;
 * else "FILE:LINE: ...". */
static int parse_perf(struct dataset *d, const char *path, const char *text,
		      size_t len, char *err)
{
	if (memchr(text, '\0', len)) {
		an_err(err, "%s: a NUL byte: not perf stat -x, output", path);
		return -1;
	}
	struct perf_file pf = { .path = xstrdup(path) };
	const char *p = text;
	char *line;
	for (size_t ln = 1; next_line(&p, &line); ln++) {
		if (!*line || *line == '#') {
			free(line);
			continue;
		}
		for (const char *c = line; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f) {
				an_err(err, "%s:%zu: control character 0x%02x in a perf stat line",
				       path, ln, (unsigned char)*c);
				goto bad;
			}
		char *f[16] = { 0 };
		size_t n = split_csv(line, f, 16);
		if (n < 3 || !perf_value_like(f[0]) || !*f[2]) {
			an_err(err,
			       n < 3 ? "%s:%zu: %zu fields: not a perf stat -x, line (value,unit,event,...)" :
			       !*f[2] ? "%s:%zu: no event name (field 3)%.0zu" :
			       "%s:%zu: value is not a number nor <not counted>/<not supported>%.0zu",
			       path, ln, n);
			goto bad;
		}
		pf.rows = xrealloc(pf.rows, (pf.n + 1) * sizeof(*pf.rows));
		struct perf_row *r = &pf.rows[pf.n++];
		memset(r, 0, sizeof(*r));
		r->value = xstrdup(f[0]);
		r->unit = xstrdup(f[1]);
		r->event = xstrdup(f[2]);
		size_t k = 3;
		/* perf stat -r N adds the run-to-run variance ("0.52%") here. */
		if (k < n && strchr(f[k], '%'))
			r->variance = xstrdup(f[k++]);
		else
			r->variance = xstrdup("");
		r->runtime = xstrdup(k < n ? f[k] : "");
		k++;
		r->pct = xstrdup(k < n ? f[k] : "");
		k++;
		r->metric = xstrdup(k < n ? f[k] : "");
		k++;
		r->metric_unit = xstrdup(k < n ? f[k] : "");
		free(line);
	}
	d->perf = xrealloc(d->perf, (d->nperf + 1) * sizeof(*d->perf));
	d->perf[d->nperf++] = pf;
	return 0;
bad:
	free(line);
	perf_file_free(&pf);
	return -1;
}

enum input_kind detect_kind(const char *path, const char *text, size_t len)
{
	(void)path;
	size_t i = 0;
	while (i < len && isspace((unsigned char)text[i]))
		i++;
	if (i < len && text[i] == '{') {
		json_t *root = json_loadb(text, len, 0, NULL);
		enum input_kind k = IN_UNKNOWN;
		if (json_object_get(root, IPB_KEY(SCHEMA_VERSION)) ||
		    json_object_get(root, IPB_KEY(RUNS)))
			k = IN_RESULTS;
		else if (json_is_array(json_object_get(root, "results")))
			k = IN_HYPERFINE;
		json_decref(root);
		return k;
	}
	return looks_like_perf(text) ? IN_PERF : IN_UNKNOWN;
}

/* Read and dispatch one file.  explicit: named by the user (an
 * unrecognised file is an error), else found in a directory (skipped).
 * Only a regular file of at most SIO_MAX_JSON bytes is read (a FIFO or
 * /dev/zero is refused at once). */
static int add_file(struct dataset *d, const char *path, bool explicit,
		    bool results_only, char *err)
{
	size_t len;
	char *text;
	if (sio_read_file(path, SIO_MAX_JSON, &text, &len, err, AN_ERRLEN))
		return -1;
	int rc = dataset_add_text(d, path, text, len, explicit, results_only, err);
	free(text);
	return rc;
}

int dataset_add_text(struct dataset *d, const char *path, const char *text, size_t len,
		     bool explicit, bool results_only, char *err)
{
	int rc = 0;
	size_t i = 0;
	while (i < len && isspace((unsigned char)text[i]))
		i++;
	if (i < len && (text[i] == '{' || text[i] == '[')) {
		json_error_t je;
		/* A key given twice is ambiguous: refused, not guessed. */
		json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
		if (!root) {
			an_err(err, "%s:%d:%d: invalid JSON: %s", path,
			       je.line, je.column, je.text);
			rc = -1;
		} else if (!json_is_object(root)) {
			an_err(err, "%s: $: must be an object (%s), not an array",
			       path, results_only ? "an ipibench results.json" :
			       "results.json or hyperfine JSON");
			rc = -1;
		} else if (results_only || json_object_get(root, IPB_KEY(SCHEMA_VERSION)) ||
			   json_object_get(root, IPB_KEY(RUNS))) {
			rc = parse_results(d, path, root, err);
		} else if (json_is_array(json_object_get(root, "results"))) {
			progress("reading %s (hyperfine JSON)", path);
			rc = parse_hyperfine(d, path, root, err);
		} else if (explicit) {
			an_err(err,
			       "%s: not an ipibench results.json nor a hyperfine --export-json file",
			       path);
			rc = -1;
		} else {
			progress("skipping %s: not results or hyperfine JSON", path);
		}
		json_decref(root);
	} else if (!results_only && looks_like_perf(text)) {
		progress("reading %s (perf stat CSV)", path);
		rc = parse_perf(d, path, text, len, err);
	} else if (explicit || results_only) {
		an_err(err, "%s: not a results.json, hyperfine JSON or perf stat -x, CSV",
		       path);
		rc = -1;
	} else {
		progress("skipping %s: not results, hyperfine or perf stat data", path);
	}
	return rc;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

/* DIR/results.json of a directory named by the user: a symbolic link there
 * could make a results tarball read any file, so it is refused. */
static int add_file_found(struct dataset *d, const char *path, const struct stat *st,
			  bool results_only, char *err)
{
	if (S_ISLNK(st->st_mode)) {
		an_err(err, "%s: a symbolic link: refused (copy the file instead)",
		       path);
		return -1;
	}
	return add_file(d, path, true, results_only, err);
}

int dataset_found_results(struct dataset *d, const char *path, char *err)
{
	struct stat st;
	if (lstat(path, &st) != 0) {
		an_err(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	progress("reading %s", path);
	return add_file_found(d, path, &st, true, err);
}

/* A result set's folder in a sweep or build axis (runner/cmd_run.c):
 * cN (N CPUs) or xen-LABEL. */
static bool set_folder_name(const char *nm)
{
	if (nm[0] == 'c' && nm[1]) {
		for (const char *p = nm + 1; *p; p++)
			if (!isdigit((unsigned char)*p))
				return false;
		return true;
	}
	return !strncmp(nm, "xen-", 4) && nm[4];
}

/* cN by N, then xen-LABEL by name. */
static int cmp_set_folders(const struct dirent **a, const struct dirent **b)
{
	const char *x = (*a)->d_name, *y = (*b)->d_name;
	bool cx = x[0] == 'c', cy = y[0] == 'c';
	if (cx != cy)
		return cx ? -1 : 1;
	if (cx) {
		size_t lx = strlen(x), ly = strlen(y);
		if (lx != ly)
			return lx < ly ? -1 : 1;
	}
	return strcmp(x, y);
}

static int set_folder_filter(const struct dirent *e)
{
	return set_folder_name(e->d_name);
}

/*
 * The result sets of a sweep ([matrix] cpus: DIR/cN/results.json) or of
 * several builds ([matrix] xen: DIR/xen-LABEL/results.json), for a DIR
 * without a results.json of its own.  A folder or results.json that is a
 * symbolic link is refused, as DIR/results.json is.
 */
static int add_set_folders(struct dataset *d, const char *path, char *err)
{
	struct dirent **ents;
	int n = scandir(path, &ents, set_folder_filter, cmp_set_folders), rc = 0;
	if (n < 0) {
		an_err(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char *sub = xasprintf("%s/%s", path, ents[i]->d_name);
		char *rj = xasprintf("%s/results.json", sub);
		struct stat st;
		bool there = !rc && lstat(sub, &st) == 0;
		if (there && S_ISLNK(st.st_mode)) {
			an_err(err, "%s: a symbolic link: refused (copy the folder instead)", sub);
			rc = -1;
		} else if (there && S_ISDIR(st.st_mode) && lstat(rj, &st) == 0) {
			progress("reading %s", rj);
			rc = add_file_found(d, rj, &st, true, err);
		}
		free(rj);
		free(sub);
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int dataset_add(struct dataset *d, const char *path, char *err)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		an_err(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return add_file(d, path, true, false, err);

	size_t before = d->nsets + d->nhf + d->nperf;
	char *rj = xasprintf("%s/results.json", path);
	int rc = 0;
	if (lstat(rj, &st) == 0) {
		progress("reading %s", rj);
		rc = add_file_found(d, rj, &st, true, err);
	} else {
		rc = add_set_folders(d, path, err);
	}
	free(rj);
	if (rc)
		return rc;
	struct dirent **ents;
	int n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		an_err(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		if (!rc && nm[0] != '.' && strcmp(nm, "results.json") &&
		    strcmp(nm, "report.json") && strcmp(nm, "history.json") &&
		    (ends_with(nm, ".json") || ends_with(nm, ".csv"))) {
			char *p = xasprintf("%s/%s", path, nm);
			if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode))
				progress("skipping %s: a symbolic link", p);
			else if (lstat(p, &st) == 0 && S_ISREG(st.st_mode))
				rc = add_file(d, p, false, false, err);
			free(p);
		}
		free(ents[i]);
	}
	free(ents);
	if (!rc && d->nsets + d->nhf + d->nperf == before) {
		an_err(err,
		       "%s: no results.json (nor cN/ or xen-LABEL/ ones), hyperfine JSON or "
		       "perf stat CSV in this directory",
		       path);
		rc = -1;
	}
	return rc;
}

int dataset_add_results(struct dataset *d, const char *path, char *err)
{
	progress("reading %s", path);
	return add_file(d, path, true, true, err);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void dataset_finish(struct dataset *d)
{
	for (size_t i = 0; i < d->ngroups; i++) {
		struct group *g = &d->groups[i];
		if (g->n)
			qsort(g->ns, g->n, sizeof(double), cmp_double);
		stats_summary(g->ns, g->n, &g->sum);
	}
}

void dataset_free(struct dataset *d)
{
	for (size_t i = 0; i < d->nsets; i++) {
		struct resultset *r = &d->sets[i];
		json_decref(r->preflight);
		free(r->path);
		free(r->host_name);
		free(r->backend);
		free(r->cpu_model);
		free(r->xen_version);
		free(r->xen_build);
		free(r->commit);
		free(r->created);
		free(r->config_file);
		free(r->topology);
		free(r->layout);
		free(r->topo);
	}
	free(d->sets);
	for (size_t i = 0; i < d->nguests; i++) {
		struct guest_run *g = &d->guests[i];
		free(g->results);
		free(g->dir);
		free(g->path);
		json_decref(g->load);
		json_decref(g->counts);
		free(g->trace[0]);
		free(g->trace[1]);
	}
	free(d->guests);
	hoststate_free(d);
	for (size_t i = 0; i < d->ngroups; i++) {
		struct group *g = &d->groups[i];
		free(g->host);
		free(g->workload);
		free(g->type);
		free(g->mode);
		free(g->build);
		free(g->topo);
		free(g->genapic);
		free(g->path);
		free(g->ns);
		free(g->irqs);
		free(g->trace_dir);
		free(g->trace);
		free(g->trace_where);
		runlevel_free(g);
	}
	free(d->groups);
	json_decref(d->group_index);
	json_decref(d->host_topo);
	for (size_t i = 0; i < d->nfailed; i++) {
		free(d->failed[i].set_path);
		free(d->failed[i].id);
		free(d->failed[i].mode);
		free(d->failed[i].error);
	}
	free(d->failed);
	for (size_t i = 0; i < d->nhf; i++) {
		for (size_t k = 0; k < d->hf[i].n; k++) {
			free(d->hf[i].cmds[k].command);
			free(d->hf[i].cmds[k].times);
		}
		free(d->hf[i].cmds);
		free(d->hf[i].path);
	}
	free(d->hf);
	for (size_t i = 0; i < d->nperf; i++)
		perf_file_free(&d->perf[i]);
	free(d->perf);
	memset(d, 0, sizeof(*d));
}
