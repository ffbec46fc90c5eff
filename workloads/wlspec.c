/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workloads.h"
#include "lib/safeio.h"

const char *const *wl_timing_names(void)
{
	static const char *const timings[] = { "loop", "per-call", NULL };

	return timings;
}

/* The registry: one line per workload in workloads/list.h. */
const struct wl_type *const wl_types[] = {
#define WORKLOAD(name) &wl_##name,
#include "workloads/list.h"
#undef WORKLOAD
	NULL
};

const struct wl_type *wl_type_find(const char *type)
{
	for (size_t i = 0; wl_types[i]; i++)
		if (!strcmp(wl_types[i]->type, type))
			return wl_types[i];
	return NULL;
}

const struct key *wl_param_find(const struct wl_type *t, const char *key)
{
	return keys_find(t->params, key);
}

int wl_params_check(const struct wl_type *t, json_t *params, char *err, size_t errlen)
{
	const char *key;
	json_t *val;

	if (!json_is_object(params)) {
		snprintf(err, errlen, "%s: params must be an object", t->type);
		return -1;
	}
	json_object_foreach(params, key, val) {
		const struct key *p = wl_param_find(t, key);
		char text[64];
		const char *s = text;

		if (!p) {
			snprintf(err, errlen, "%s: unknown parameter '%s'", t->type, key);
			return -1;
		}
		if (json_is_integer(val))
			snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(val));
		else if (json_is_boolean(val))
			s = json_is_true(val) ? "true" : "false";
		else if (json_is_string(val))
			s = json_string_value(val);
		else {
			snprintf(err, errlen, "%s: parameter '%s' has the wrong type", t->type, key);
			return -1;
		}
		if ((p->type == KEY_UINT && !json_is_integer(val)) ||
		    (p->type == KEY_BOOL && !json_is_boolean(val)) ||
		    ((p->type == KEY_CPUS || p->type == KEY_TEXT || p->type == KEY_CHOICE ||
		      p->type == KEY_CHOICES) && !json_is_string(val))) {
			snprintf(err, errlen, "%s: parameter '%s' has the wrong type", t->type, key);
			return -1;
		}
		json_t *ok = keys_json(p, s, err, errlen);
		if (!ok)
			return -1;
		json_decref(ok);
	}
	for (const struct key *p = t->params; p->key; p++) {
		if (json_object_get(params, p->key))
			continue;
		if (!p->def) {
			snprintf(err, errlen, "%s: parameter '%s' is required", t->type, p->key);
			return -1;
		}
		json_object_set_new(params, p->key, keys_json(p, p->def, err, errlen));
	}
	if (t->check && t->check(params, err, errlen))
		return -1;
	return 0;
}

int wl_check_timing(const json_t *params, char *err, size_t errlen)
{
	const char *sender = json_string_value(json_object_get(params, "sender"));
	const char *pair = json_string_value(json_object_get(params, "senders"));
	const char *timing = json_string_value(json_object_get(params, "timing"));

	if (!pair || !*pair)
		return 0;
	if (sender && strcmp(sender, "genapic")) {
		snprintf(err, errlen, "give sender or senders, not both");
		return -1;
	}
	if (timing && strcmp(timing, "loop")) {
		snprintf(err, errlen, "senders (paired loops) needs timing = loop");
		return -1;
	}
	return 0;
}

int wl_type_verify(const struct wl_type *t, char *err, size_t errlen)
{
	char e[256];

	if (!t->type || !*t->type || !t->help || !*t->help || !t->params) {
		snprintf(err, errlen, "%s: a workload needs a type, a help line and a params table",
			 t->type ? t->type : "?");
		return -1;
	}
	if (keys_verify(t->params, 0, e, sizeof(e))) {
		snprintf(err, errlen, "%s: parameter %s", t->type, e);
		return -1;
	}
	/* Where a call sends is read from its params (workloads/check.c). */
	static const char *const dest_needs[] = {
		[WL_DEST_ALL] = NULL, [WL_DEST_MASK] = "mask", [WL_DEST_PEER] = "peer",
	};
	if (t->dest != WL_DEST_NONE) {
		const struct key *p;
		const char *need = t->dest <= WL_DEST_PEER ? dest_needs[t->dest] : "?";

		if (!(p = wl_param_find(t, "cpu")) || !(p->flags & WL_F_CPU) ||
		    (need && !wl_param_find(t, need))) {
			snprintf(err, errlen, "%s: where a call sends needs its params cpu%s%s",
				 t->type, need ? " and " : "", need ? need : "");
			return -1;
		}
	}
	return 0;
}

/* The job's "trace": {"mask": "0x...", "kb": N}, by the WL_F_TRACE params. */
static int job_trace_check(const struct wl_type *t, json_t *trace, const char *name,
			   char *err, size_t errlen)
{
	const struct key *pm = wl_param_find(t, "trace"), *pk = wl_param_find(t, "trace_kb");
	const json_t *mask = json_object_get(trace, "mask"), *kb = json_object_get(trace, "kb");
	const char *key, *ms;
	json_t *v;
	char *end;

	if (!pm || !pk) {
		snprintf(err, errlen, "workload %s: type %s takes no trace", name, t->type);
		return -1;
	}
	if (!json_is_object(trace)) {
		snprintf(err, errlen, "workload %s: trace must be an object {\"mask\", \"kb\"}", name);
		return -1;
	}
	json_object_foreach(trace, key, v)
		if (strcmp(key, "mask") && strcmp(key, "kb")) {
			snprintf(err, errlen, "workload %s: unknown trace key '%s'", name, key);
			return -1;
		}
	/* 0x and 1 to 8 hex digits: the agent reads it with C's prefixes. */
	ms = json_string_value(mask);
	if (!ms || ms[0] != '0' || (ms[1] != 'x' && ms[1] != 'X') || !ms[2] ||
	    strlen(ms + 2) > 8 || ms[2 + strspn(ms + 2, "0123456789abcdefABCDEF")] ||
	    !strtoul(ms + 2, &end, 16)) {
		snprintf(err, errlen, "workload %s: trace mask must be a non-zero hex number like "
			 "0x00804000", name);
		return -1;
	}
	if (!kb)
		json_object_set_new(trace, "kb", json_integer(strtol(pk->def, NULL, 10)));
	else if (!json_is_integer(kb) || json_integer_value(kb) < pk->min ||
		 json_integer_value(kb) > pk->max) {
		snprintf(err, errlen, "workload %s: trace kb must be an integer from %ld to %ld",
			 name, pk->min, pk->max);
		return -1;
	}
	return 0;
}

int wl_job_entry_check(const json_t *w, size_t idx, const struct wl_type **type,
		       json_t **params, char *err, size_t errlen)
{
	const char *name = json_string_value(json_object_get(w, "name"));
	const char *tname = json_string_value(json_object_get(w, "type"));
	const json_t *given = json_object_get(w, "params");
	json_t *trace = json_object_get(w, "trace");
	const struct wl_type *t;
	const char *key;
	json_t *v, *p;
	char e[256];

	*params = NULL;
	if (!json_is_object(w) || !name || !tname) {
		snprintf(err, errlen, "job workload %zu: needs \"name\" and \"type\"", idx);
		return -1;
	}
	if (!sio_name_ok(name)) {   /* it names the trace file */
		snprintf(err, errlen, "job workload %zu: \"%.64s\" is not a valid name", idx, name);
		return -1;
	}
	json_object_foreach((json_t *)w, key, v)
		if (strcmp(key, "name") && strcmp(key, "type") && strcmp(key, "params") &&
		    strcmp(key, "trace")) {
			snprintf(err, errlen, "workload %s: unknown job key '%s'", name, key);
			return -1;
		}
	if (!(t = wl_type_find(tname))) {
		snprintf(err, errlen, "workload %s: unknown type '%s'", name, tname);
		return -1;
	}
	if (given && !json_is_object(given)) {
		snprintf(err, errlen, "workload %s: params must be an object", name);
		return -1;
	}
	json_object_foreach((json_t *)given, key, v) {
		const struct key *q = wl_param_find(t, key);

		if (q && (q->flags & WL_F_TRACE)) {
			snprintf(err, errlen, "workload %s: parameter '%s' goes in the job's "
				 "\"trace\" object, not in params", name, key);
			return -1;
		}
	}
	if (trace && job_trace_check(t, trace, name, err, errlen))
		return -1;
	p = given ? json_deep_copy(given) : json_object();
	if (wl_params_check(t, p, e, sizeof(e))) {
		snprintf(err, errlen, "workload %s: %s", name, e);
		json_decref(p);
		return -1;
	}
	for (const struct key *q = t->params; q->key; q++)
		if (q->flags & WL_F_TRACE)
			json_object_del(p, q->key);
	*type = t;
	*params = p;
	return 0;
}

int wl_job_check(const json_t *job, char *err, size_t errlen)
{
	const json_t *wls = json_object_get(job, "workloads");
	const char *key;
	json_t *v;

	if (!json_is_object(job)) {
		snprintf(err, errlen, "a job is an object {\"workloads\": [...]}");
		return -1;
	}
	json_object_foreach((json_t *)job, key, v)
		if (strcmp(key, "workloads")) {
			snprintf(err, errlen, "unknown job key '%s'", key);
			return -1;
		}
	if (wls && !json_is_array(wls)) {
		snprintf(err, errlen, "\"workloads\" must be an array");
		return -1;
	}
	for (size_t i = 0; i < json_array_size(wls); i++) {
		const struct wl_type *t;
		json_t *p;

		if (wl_job_entry_check(json_array_get(wls, i), i, &t, &p, err, errlen))
			return -1;
		json_decref(p);
	}
	return 0;
}
