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

/* The names a WL_CHOICE(S) param takes (its declaration's). */
static const char *const *choices_of(const struct wl_param *p)
{
	return p->choices ? p->choices() : NULL;
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

const struct wl_param *wl_param_find(const struct wl_type *t, const char *key)
{
	for (const struct wl_param *p = t->params; p->key; p++)
		if (!strcmp(p->key, key))
			return p;
	return NULL;
}

int wl_list_empty_item(const char *v)
{
	const char *p = v + strspn(v, " \t");

	if (!*p)
		return 0;   /* an empty list, not an empty item */
	for (;;) {
		if (*p == ',')
			return 1;
		p += strcspn(p, ",");
		if (!*p)
			return 0;
		p++;
		p += strspn(p, " \t");
		if (!*p)
			return 1;
	}
}

int wl_cpus_parse(const char *s, unsigned char *bits, unsigned int nbits)
{
	const char *p = s;

	memset(bits, 0, (nbits + 7) / 8);
	if (!*p || wl_list_empty_item(s))
		return -1;
	while (*p) {
		char *end;
		long a, b;

		errno = 0;
		a = strtol(p, &end, 10);
		if (end == p || errno || a < 0)
			return -1;
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			b = strtol(p, &end, 10);
			if (end == p || errno || b < a)
				return -1;
			p = end;
		}
		if (b >= (long)nbits)
			return -1;
		for (long i = a; i <= b; i++)
			bits[i / 8] |= 1u << (i % 8);
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return 0;
}

const char *wl_or_list(char *buf, size_t len, const char *const *words)
{
	size_t n = 0;

	buf[0] = '\0';
	for (const char *const *w = words; w && *w && n < len; w++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s",
				      w == words ? "" : w[1] ? ", " : " or ", *w);
	return buf;
}

/* P's choices, "a, b or c", for messages. */
static const char *choice_list(const struct wl_param *p)
{
	static char buf[256];

	return wl_or_list(buf, sizeof(buf), choices_of(p));
}

int wl_parse_int(const char *key, const char *v, int base, long min, long max, long *out,
		 char *err, size_t errlen)
{
	const char *digits = base == 16 ? "0123456789abcdefABCDEF" : "0123456789", *d = v;
	char *end;
	long n;

	/*
	 * Written as the value is read: decimal digits (hex ones for base 16,
	 * with or without 0x), a '-' only where MIN is below 0; no sign, space,
	 * leading zero or 0x in a decimal (strtol's base 0 read 010 as 8 while
	 * results.json kept "010").
	 */
	if (*d == '-' && min < 0)
		d++;
	if (base == 16 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X'))
		d += 2;
	if ((!*d || d[strspn(d, digits)] || (base == 10 && d[0] == '0' && d[1])) &&
	    strpbrk(v, "0123456789")) {
		snprintf(err, errlen, "%s = '%s': expected an integer from %ld to %ld, written in %s",
			 key, v, min, max, base == 16 ? "hex digits (0x optional)" :
			 "decimal digits (no leading 0, 0x, sign or space)");
		return -1;
	}
	errno = 0;
	n = strtol(v, &end, base);
	if (!*d || d[strspn(d, digits)] || *end || errno || n < min || n > max) {
		snprintf(err, errlen, "%s = '%s': expected an integer from %ld to %ld", key, v, min,
			 max);
		return -1;
	}
	*out = n;
	return 0;
}

json_t *wl_param_value(const struct wl_param *p, const char *v, char *err, size_t errlen)
{
	long n;

	switch (p->kind) {
	case WL_UINT:
		if (wl_parse_int(p->key, v, 10, p->min, p->max, &n, err, errlen))
			return NULL;
		return json_integer(n);
	case WL_BOOL:
		if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "on"))
			return json_true();
		if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "off"))
			return json_false();
		snprintf(err, errlen, "%s = '%s': expected true or false", p->key, v);
		return NULL;
	case WL_CPUS: {
		unsigned char bits[4096 / 8];

		if (!strcmp(v, "all") || !strcmp(v, "all-but-self") ||
		    !wl_cpus_parse(v, bits, 4096))
			return json_string(v);
		snprintf(err, errlen, "%s = '%s': expected all, all-but-self or a CPU list like 1,17,33 or 0-7",
			 p->key, v);
		return NULL;
	}
	case WL_STRING:
		return json_string(v);
	case WL_CHOICE:
		for (const char *const *c = choices_of(p); c && *c; c++)
			if (!strcmp(v, *c))
				return json_string(v);
		snprintf(err, errlen, "%s = '%s': expected %s", p->key, v, choice_list(p));
		return NULL;
	case WL_CHOICES: {
		long n = 0;

		if (!*v)
			return json_string(v);
		if (wl_list_empty_item(v)) {
			snprintf(err, errlen, "%s = '%s': an empty item (a comma with nothing before "
				 "or after it)", p->key, v);
			return NULL;
		}
		for (const char *s = v; *s;) {
			size_t len;
			const char *const *c;

			while (*s == ' ' || *s == '\t')
				s++;
			len = strcspn(s, ", \t");
			for (c = choices_of(p); c && *c; c++)
				if (strlen(*c) == len && !strncmp(s, *c, len))
					break;
			if (!len || !c || !*c) {
				snprintf(err, errlen, "%s = '%s': expected a list of %s", p->key, v,
					 choice_list(p));
				return NULL;
			}
			n++;
			s += len;
			while (*s == ' ' || *s == '\t')
				s++;
			if (*s == ',')
				s++;
			else if (*s) {
				snprintf(err, errlen, "%s = '%s': separate the names with commas",
					 p->key, v);
				return NULL;
			}
		}
		if (n < p->min || n > p->max) {
			snprintf(err, errlen, "%s = '%s': expected %ld to %ld names, or nothing",
				 p->key, v, p->min, p->max);
			return NULL;
		}
		return json_string(v);
	}
	}
	return NULL;
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
		const struct wl_param *p = wl_param_find(t, key);
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
		if ((p->kind == WL_UINT && !json_is_integer(val)) ||
		    (p->kind == WL_BOOL && !json_is_boolean(val)) ||
		    ((p->kind == WL_CPUS || p->kind == WL_STRING || p->kind == WL_CHOICE ||
		      p->kind == WL_CHOICES) && !json_is_string(val))) {
			snprintf(err, errlen, "%s: parameter '%s' has the wrong type", t->type, key);
			return -1;
		}
		json_t *ok = wl_param_value(p, s, err, errlen);
		if (!ok)
			return -1;
		json_decref(ok);
	}
	for (const struct wl_param *p = t->params; p->key; p++) {
		if (json_object_get(params, p->key))
			continue;
		if (!p->def) {
			snprintf(err, errlen, "%s: parameter '%s' is required", t->type, p->key);
			return -1;
		}
		json_object_set_new(params, p->key, wl_param_value(p, p->def, err, errlen));
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
	if (!t->type || !*t->type || !t->help || !*t->help || !t->params) {
		snprintf(err, errlen, "%s: a workload needs a type, a help line and a params table",
			 t->type ? t->type : "?");
		return -1;
	}
	for (const struct wl_param *p = t->params; p->key; p++) {
		char e[256];
		json_t *v;

		if (!p->help || !*p->help) {
			snprintf(err, errlen, "%s: parameter '%s' has no help", t->type, p->key);
			return -1;
		}
		if ((p->kind == WL_CHOICE || p->kind == WL_CHOICES) && !choices_of(p)) {
			snprintf(err, errlen, "%s: parameter '%s' has no choices", t->type, p->key);
			return -1;
		}
		for (const struct wl_param *q = t->params; q < p; q++)
			if (!strcmp(q->key, p->key)) {
				snprintf(err, errlen, "%s: parameter '%s' declared twice", t->type, p->key);
				return -1;
			}
		if (p->def) {
			if (!(v = wl_param_value(p, p->def, e, sizeof(e)))) {
				snprintf(err, errlen, "%s: default of %s", t->type, e);
				return -1;
			}
			json_decref(v);
		}
	}
	/* Where a call sends is read from its params (workloads/check.c). */
	static const char *const dest_needs[] = {
		[WL_DEST_ALL] = NULL, [WL_DEST_MASK] = "mask", [WL_DEST_PEER] = "peer",
	};
	if (t->dest != WL_DEST_NONE) {
		const struct wl_param *p;
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
	const struct wl_param *pm = wl_param_find(t, "trace"), *pk = wl_param_find(t, "trace_kb");
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
		const struct wl_param *q = wl_param_find(t, key);

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
	for (const struct wl_param *q = t->params; q->key; q++)
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
