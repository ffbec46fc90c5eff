/* SPDX-License-Identifier: GPL-3.0-or-later */
/* probes/hvmref.c: a reference HVM profile (probes/hvmref.h says what is checked). */
#include "probes/hvmref.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/safeio.h"

__attribute__((format(printf, 4, 5)))
static int refuse(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
	va_list ap;
	char q[256];
	int n = snprintf(err, errlen, "%s: ", sio_shown(q, sizeof(q), path));

	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* O.KEY (O at path AT) of type T: the value, or NULL with the refusal in err. */
static json_t *need(json_t *o, const char *at, const char *key, json_type t, const char *path,
		    char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);
	static const char *const want[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array", [JSON_STRING] = "a string",
		[JSON_INTEGER] = "an integer", [JSON_REAL] = "a number",
	};

	if (!v) {
		refuse(err, errlen, path, "%s.%s: missing", at, key);
		return NULL;
	}
	if (json_typeof(v) != t && !(t == JSON_REAL && json_is_number(v))) {
		refuse(err, errlen, path, "%s.%s: %s, not %s", at, key, want[t], sio_json_kind(v));
		return NULL;
	}
	return v;
}

/* A string the diff prints: no control character (a newline would break
 * the one-line header, an escape sequence reach the terminal). */
static const char *need_str(json_t *o, const char *at, const char *key, const char *path,
			    char *err, size_t errlen)
{
	json_t *v = need(o, at, key, JSON_STRING, path, err, errlen);
	const char *str = v ? json_string_value(v) : NULL;

	for (const unsigned char *p = (const unsigned char *)str; p && *p; p++)
		if (*p < 0x20 || *p == 0x7f) {
			refuse(err, errlen, path, "%s.%s: a control character (0x%02x) in the string",
			       at, key, *p);
			return NULL;
		}
	if (str && strlen(str) != json_string_length(v)) {
		refuse(err, errlen, path, "%s.%s: a NUL in the string", at, key);
		return NULL;
	}
	return str;
}

/* An event name as trace summary prints them: [A-Za-z0-9_][A-Za-z0-9_:.-]*,
 * at most TR_HVMREF_NAME_MAX bytes. */
static bool event_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > TR_HVMREF_NAME_MAX || s[0] == '-' || s[0] == '.' || s[0] == ':')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == ':' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

static struct tr_hvmref_row *row_of(struct tr_hvmref *r, const char *name)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (!strcmp(r->rows[i].name, name))
			return &r->rows[i];
	return NULL;
}

const struct tr_hvmref_row *tr_hvmref_find(const struct tr_hvmref *r, const char *name)
{
	return row_of((struct tr_hvmref *)r, name);
}

/* profiles.SIDE.events into r->rows (side 0 before, 1 after). */
static int load_side(struct tr_hvmref *r, json_t *profiles, int side, const char *path,
		     char *err, size_t errlen)
{
	const char *sname = side ? "after" : "before";
	char at[96];
	json_t *p, *ev;

	if (!(p = need(profiles, "$.profiles", sname, JSON_OBJECT, path, err, errlen)))
		return -1;
	snprintf(at, sizeof(at), "$.profiles.%s", sname);
	if (!(ev = need(p, at, "events", JSON_ARRAY, path, err, errlen)))
		return -1;
	if (json_array_size(ev) < 1 || json_array_size(ev) > TR_HVMREF_MAX_ROWS)
		return refuse(err, errlen, path, "%s.events: 1 to %d rows expected, not %zu", at,
			      TR_HVMREF_MAX_ROWS, json_array_size(ev));
	for (size_t i = 0; i < json_array_size(ev); i++) {
		json_t *row = json_array_get(ev, i), *c;
		char rat[128];
		const char *name;
		struct tr_hvmref_row *dst;
		json_int_t n;

		snprintf(rat, sizeof(rat), "%s.events[%zu]", at, i);
		if (!json_is_object(row))
			return refuse(err, errlen, path, "%s: an object, not %s", rat, sio_json_kind(row));
		if (!(name = need_str(row, rat, "name", path, err, errlen)) ||
		    !(c = need(row, rat, "count", JSON_INTEGER, path, err, errlen)))
			return -1;
		if (!event_name_ok(name))
			return refuse(err, errlen, path, "%s.name: not an event name ([A-Za-z0-9_][A-Za-z0-9_:.-]*, "
				      "at most %d bytes)", rat, TR_HVMREF_NAME_MAX);
		if ((n = json_integer_value(c)) < 0)
			return refuse(err, errlen, path, "%s.count: %" JSON_INTEGER_FORMAT
				      " is negative: a count is a whole number >= 0", rat, n);
		dst = row_of(r, name);
		if (dst && (dst->sides & (1u << side)))
			return refuse(err, errlen, path, "%s.name: \"%s\" listed twice in %s.events",
				      rat, name, at);
		if (!dst) {
			dst = &r->rows[r->nrows++];
			snprintf(dst->name, sizeof(dst->name), "%s", name);
		}
		dst->sides |= 1u << side;
		if (side)
			dst->after = (uint64_t)n;
		else
			dst->before = (uint64_t)n;
	}
	return 0;
}

int tr_hvmref_parse(json_t *root, const char *path, struct tr_hvmref *r, char *err, size_t errlen)
{
	const char *schema, *wt, *name, *author, *file, *date, *mask;
	json_t *src, *xt, *secs, *prof;

	memset(r, 0, sizeof(*r));
	r->path = strdup(path);
	if (!r->path)
		return refuse(err, errlen, path, "out of memory");
	if (!json_is_object(root))
		return refuse(err, errlen, path, "$: an object, not %s", sio_json_kind(root));
	if (!(schema = need_str(root, "$", "schema", path, err, errlen)))
		return -1;
	if (strncmp(schema, "ipibench-reference/", 19))
		return refuse(err, errlen, path, "$.schema: \"ipibench-reference/N\" expected");
	if (!(wt = need_str(root, "$", "workload_type", path, err, errlen)))
		return -1;
	if (strcmp(wt, "hvm_profile"))
		return refuse(err, errlen, path, "$.workload_type: \"hvm_profile\" expected (a reference "
			      "for trace diff)");
	if (!(name = need_str(root, "$", "name", path, err, errlen)))
		return -1;
	if (!sio_name_ok(name))
		return refuse(err, errlen, path, "$.name: not a name ([A-Za-z0-9][A-Za-z0-9._-]*, "
			      "at most %d bytes)", SIO_NAME_MAX);
	if (!(src = need(root, "$", "source", JSON_OBJECT, path, err, errlen)) ||
	    !(author = need_str(src, "$.source", "author", path, err, errlen)) ||
	    !(file = need_str(src, "$.source", "file", path, err, errlen)) ||
	    !(xt = need(root, "$", "xentrace", JSON_OBJECT, path, err, errlen)) ||
	    !(mask = need_str(xt, "$.xentrace", "mask", path, err, errlen)) ||
	    !(secs = need(xt, "$.xentrace", "seconds", JSON_REAL, path, err, errlen)) ||
	    !(prof = need(root, "$", "profiles", JSON_OBJECT, path, err, errlen)))
		return -1;
	if (!(json_number_value(secs) > 0) || json_number_value(secs) > 1e9)
		return refuse(err, errlen, path, "$.xentrace.seconds: above 0 (and at most 1e9) expected");
	date = NULL;	/* optional */
	if (json_object_get(src, "date") && !(date = need_str(src, "$.source", "date", path, err, errlen)))
		return -1;
	r->name = strdup(name);
	r->mask = strdup(mask);
	r->seconds = json_number_value(secs);
	if (date)
		r->source = malloc(strlen(author) + strlen(date) + strlen(file) + 8);
	else
		r->source = malloc(strlen(author) + strlen(file) + 8);
	r->rows = calloc(2 * TR_HVMREF_MAX_ROWS, sizeof(*r->rows));
	if (!r->name || !r->mask || !r->source || !r->rows)
		return refuse(err, errlen, path, "out of memory");
	if (date)
		sprintf(r->source, "%s, %s (%s)", author, date, file);
	else
		sprintf(r->source, "%s (%s)", author, file);
	if (load_side(r, prof, 0, path, err, errlen) || load_side(r, prof, 1, path, err, errlen))
		return -1;
	return 0;
}

int tr_hvmref_load(const char *path, struct tr_hvmref *r, char *err, size_t errlen)
{
	json_t *root = sio_load_json(path, SIO_MAX_JSON, err, errlen);
	int rc;

	if (!root) {
		memset(r, 0, sizeof(*r));
		return -1;
	}
	rc = tr_hvmref_parse(root, path, r, err, errlen);
	json_decref(root);
	return rc;
}

void tr_hvmref_free(struct tr_hvmref *r)
{
	free(r->path);
	free(r->name);
	free(r->source);
	free(r->mask);
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
