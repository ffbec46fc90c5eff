/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The option engine of lib/keys.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/keys.h"
#include "lib/safeio.h"

const struct key *keys_find(const struct key *tab, const char *key)
{
	for (const struct key *k = tab; k && k->key; k++)
		if (!strcmp(k->key, key))
			return k;
	return NULL;
}

const char *const *keys_choices(const struct key *k)
{
	return k->choices_fn ? k->choices_fn() : k->choices;
}

const char *keys_or_list(char *buf, size_t len, const char *const *words)
{
	size_t n = 0;

	buf[0] = '\0';
	for (const char *const *w = words; w && *w && n < len; w++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s",
				      w == words ? "" : w[1] ? ", " : " or ", *w);
	return buf;
}

int keys_list_empty_item(const char *v)
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

int keys_cpus_parse(const char *s, unsigned char *bits, unsigned int nbits)
{
	const char *p = s;

	memset(bits, 0, (nbits + 7) / 8);
	if (!*p || keys_list_empty_item(s))
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

int keys_parse_int(const char *key, const char *v, int base, long min, long max, long *out,
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

size_t keys_list_split(const char *k, const char *v, char *buf, char **items, char *err,
		       size_t errlen)
{
	char *save = NULL, q[KEYS_LIST_MAX + 8];
	size_t n = 0;

	if (strlen(v) >= KEYS_LIST_MAX) {
		snprintf(err, errlen, "%s: longer than %d bytes", k, KEYS_LIST_MAX - 1);
		return 0;
	}
	if (keys_list_empty_item(v)) {
		snprintf(err, errlen, "%s = %s: an empty item (a comma with nothing before or "
			 "after it)", k, sio_shown(q, sizeof(q), v));
		return 0;
	}
	snprintf(buf, KEYS_LIST_MAX, "%s", v);
	for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
		items[n++] = t;   /* at most KEYS_LIST_MAX / 2 of them */
	if (!n)
		snprintf(err, errlen, "%s: empty", k);
	return n;
}

/* A value checked by its type's rule, before it is stored or made JSON. */
struct parsed {
	long n;         /* UINT, HEX, BOOL, CHOICE's index */
	int is_num;     /* UINT, HEX */
	int is_bool;
};

static int check_choices(const struct key *k, const char *v, char *err, size_t errlen)
{
	const char *const *names = keys_choices(k);
	char list[256];
	long n = 0;

	if (!*v)
		return 0;
	if (keys_list_empty_item(v)) {
		snprintf(err, errlen, "%s = '%s': an empty item (a comma with nothing before "
			 "or after it)", k->key, v);
		return -1;
	}
	for (const char *s = v; *s;) {
		size_t len;
		const char *const *c;

		while (*s == ' ' || *s == '\t')
			s++;
		len = strcspn(s, ", \t");
		for (c = names; c && *c; c++)
			if (strlen(*c) == len && !strncmp(s, *c, len))
				break;
		if (!len || !c || !*c) {
			snprintf(err, errlen, "%s = '%s': expected a list of %s", k->key, v,
				 keys_or_list(list, sizeof(list), names));
			return -1;
		}
		n++;
		s += len;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == ',')
			s++;
		else if (*s) {
			snprintf(err, errlen, "%s = '%s': separate the names with commas", k->key, v);
			return -1;
		}
	}
	if (n < k->min || n > k->max) {
		snprintf(err, errlen, "%s = '%s': expected %ld to %ld names, or nothing", k->key, v,
			 k->min, k->max);
		return -1;
	}
	return 0;
}

/* V by K's type: 0 with *p filled in, or -1 with err. */
static int check(const struct key *k, const char *v, struct parsed *p, char *err, size_t errlen)
{
	char q[128], list[256];
	struct in_addr a;

	memset(p, 0, sizeof(*p));
	switch (k->type) {
	case KEY_UINT:
	case KEY_HEX:
		p->is_num = 1;
		return keys_parse_int(k->key, v, k->type == KEY_HEX ? 16 : 10, k->min, k->max, &p->n,
				      err, errlen);
	case KEY_BOOL:
		p->is_bool = 1;
		if (!strcmp(v, "true") || ((k->flags & KEY_F_WORDS) &&
		    (!strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "on"))))
			return p->n = 1, 0;
		if (!strcmp(v, "false") || ((k->flags & KEY_F_WORDS) &&
		    (!strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "off"))))
			return 0;
		snprintf(err, errlen, "%s = '%s': expected true or false", k->key,
			 sio_shown(q, sizeof(q), v));
		return -1;
	case KEY_CPUS: {
		unsigned char bits[4096 / 8];

		if (!strcmp(v, "all") || !strcmp(v, "all-but-self") ||
		    !keys_cpus_parse(v, bits, 4096))
			break;
		snprintf(err, errlen, "%s = '%s': expected all, all-but-self or a CPU list like "
			 "1,17,33 or 0-7", k->key, sio_shown(q, sizeof(q), v));
		return -1;
	}
	case KEY_TEXT:
		if (k->reject && v[strcspn(v, k->reject)]) {
			snprintf(err, errlen, "%s = %s: no '%c' allowed", k->key,
				 sio_shown(q, sizeof(q), v), v[strcspn(v, k->reject)]);
			return -1;
		}
		break;
	case KEY_CHOICE:
		for (const char *const *c = keys_choices(k); c && *c; c++, p->n++)
			if (!strcmp(v, *c))
				return 0;
		snprintf(err, errlen, "%s = '%s': expected %s", k->key, sio_shown(q, sizeof(q), v),
			 keys_or_list(list, sizeof(list), keys_choices(k)));
		return -1;
	case KEY_CHOICES:
		return check_choices(k, v, err, errlen);
	case KEY_NAME:
		if (!sio_name_ok(v) || (k->size && strlen(v) >= k->size)) {
			snprintf(err, errlen, "%s = %s: a host name is letters, digits, '.', '_' and "
				 "'-' (a letter or digit first), at most %zu bytes, no '..'",
				 k->key, sio_shown(q, sizeof(q), v), k->size ? k->size - 1 : 0);
			return -1;
		}
		break;
	case KEY_IPV4:
		if (strlen(v) >= 16 || inet_pton(AF_INET, v, &a) != 1) {
			snprintf(err, errlen, "%s = '%s': expected a dotted IPv4 address", k->key,
				 sio_shown(q, sizeof(q), v));
			return -1;
		}
		break;
	case KEY_LIST:
	case KEY_NTYPES:
		snprintf(err, errlen, "%s: a list key reads its value by its callback", k->key);
		return -1;
	}
	return 0;
}

/* The bytes K's type needs in its field (1: a string of any size). */
static size_t field_need(const struct key *k)
{
	switch (k->type) {
	case KEY_UINT:
		return sizeof(unsigned int);
	case KEY_HEX:
		return sizeof(unsigned int);
	case KEY_BOOL:
		return sizeof(int);
	case KEY_CHOICE:
		return k->flags & KEY_F_INDEX ? sizeof(int) : 2;
	case KEY_IPV4:
		return 16;
	default:
		return 2;
	}
}

int keys_set(const struct key *k, void *base, const char *v, void *ctx, char *err,
	     size_t errlen)
{
	char *field = (char *)base + k->offset;
	struct parsed p;

	if (k->cb)
		return k->cb(k, base, v, ctx, err, errlen) ? -1 : 0;
	if (k->size && (k->type == KEY_TEXT || k->type == KEY_CPUS || k->type == KEY_CHOICES) &&
	    strlen(v) >= k->size) {
		snprintf(err, errlen, "%s: longer than %zu bytes", k->key, k->size - 1);
		return -1;
	}
	if (check(k, v, &p, err, errlen))
		return -1;
	if (!k->size) {
		snprintf(err, errlen, "%s: a key with no field to store it in", k->key);
		return -1;
	}
	if (k->type == KEY_HEX && k->size == sizeof(unsigned long))
		*(unsigned long *)(void *)field = (unsigned long)p.n;
	else if (p.is_num)
		*(unsigned int *)(void *)field = (unsigned int)p.n;
	else if (p.is_bool || (k->type == KEY_CHOICE && (k->flags & KEY_F_INDEX)))
		*(int *)(void *)field = (int)p.n;
	else
		snprintf(field, k->size, "%s", v);
	return 0;
}

json_t *keys_json(const struct key *k, const char *v, char *err, size_t errlen)
{
	struct parsed p;

	if (check(k, v, &p, err, errlen))
		return NULL;
	if (p.is_num)
		return json_integer(p.n);
	if (p.is_bool)
		return json_boolean(p.n);
	return json_string(v);
}

void keys_defaults(const struct key *tab, void *base)
{
	char err[256];

	for (const struct key *k = tab; k && k->key; k++)
		if (k->def)   /* keys_verify() (a unit test) checked each */
			keys_set(k, base, k->def, NULL, err, sizeof(err));
}

const char *keys_text(const struct key *k, const void *base, char *buf, size_t len)
{
	const char *field = (const char *)base + k->offset;
	const char *const *c = keys_choices(k);

	if (k->type == KEY_HEX && k->size == sizeof(unsigned long))
		snprintf(buf, len, "0x%lx", *(const unsigned long *)(const void *)field);
	else if (k->type == KEY_HEX)
		snprintf(buf, len, "0x%x", *(const unsigned int *)(const void *)field);
	else if (k->type == KEY_UINT)
		snprintf(buf, len, "%u", *(const unsigned int *)(const void *)field);
	else if (k->type == KEY_BOOL)
		snprintf(buf, len, "%s", *(const int *)(const void *)field ? "true" : "false");
	else if (k->type == KEY_CHOICE && (k->flags & KEY_F_INDEX)) {
		int i = *(const int *)(const void *)field;

		for (int j = 0; c && c[j]; j++)
			if (j == i)
				return snprintf(buf, len, "%s", c[j]), buf;
		snprintf(buf, len, "?");
	} else if (k->size)
		snprintf(buf, len, "%s", field);
	else
		snprintf(buf, len, "%s", k->def ? k->def : "");
	return buf;
}

/* Every choice of K fits in its field (with its NUL). */
static int choices_fit(const struct key *k)
{
	for (const char *const *c = keys_choices(k); c && *c; c++)
		if (strlen(*c) >= k->size)
			return 0;
	return 1;
}

int keys_verify(const struct key *tab, size_t base_size, char *err, size_t errlen)
{
	void *st = calloc(1, base_size ? base_size : 1);
	int rc = 0;

	if (!st) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (const struct key *k = tab; !rc && k && k->key; k++) {
		char e[256];
		json_t *j = NULL;

		if (!*k->key || k->type >= KEY_NTYPES)
			rc = snprintf(err, errlen, "%s: no name, or a type of no rule", k->key);
		else if (!k->help || !*k->help)
			rc = snprintf(err, errlen, "%s has no help", k->key);
		else if (k->type == KEY_LIST && !k->cb)
			rc = snprintf(err, errlen, "%s is a list with no callback to read it", k->key);
		else if (base_size && !k->cb &&
			 (k->size < field_need(k) || k->offset + k->size > base_size))
			rc = snprintf(err, errlen, "%s lies outside its settings struct (%zu bytes)",
				      k->key, base_size);
		else if ((k->type == KEY_CHOICE || k->type == KEY_CHOICES) &&
			 (!keys_choices(k) || !keys_choices(k)[0]))
			rc = snprintf(err, errlen, "%s has no choices", k->key);
		else if (k->type == KEY_CHOICE && !(k->flags & KEY_F_INDEX) && base_size && !k->cb &&
			 !choices_fit(k))
			rc = snprintf(err, errlen, "%s has a choice longer than its field (%zu bytes)",
				      k->key, k->size);
		else if (keys_find(k + 1, k->key))
			rc = snprintf(err, errlen, "%s twice", k->key);
		else if (k->def && base_size && keys_set(k, st, k->def, NULL, e, sizeof(e)))
			rc = snprintf(err, errlen, "the default of %s: %s", k->key, e);
		else if (k->def && !base_size && !(j = keys_json(k, k->def, e, sizeof(e))))
			rc = snprintf(err, errlen, "the default of %s: %s", k->key, e);
		else if (k->def && !base_size)
			json_decref(j);
	}
	free(st);
	return rc ? -1 : 0;
}

/* "(default X)" in HELP: X into BUF; "none" when there is none. */
static const char *help_default(const char *help, char *buf, size_t len)
{
	const char *d = strstr(help, "(default ");
	size_t n;

	if (!d)
		return "none";
	d += strlen("(default ");
	n = strcspn(d, ")");
	snprintf(buf, len, "%.*s", (int)n, d);
	return buf;
}

void keys_doc(const struct key *k, struct key_doc *d)
{
	static const char *const types[KEY_NTYPES] = {
		[KEY_UINT] = "integer", [KEY_BOOL] = "boolean", [KEY_CPUS] = "CPU set",
		[KEY_TEXT] = "text", [KEY_CHOICE] = "choice", [KEY_CHOICES] = "list",
		[KEY_HEX] = "hex integer", [KEY_NAME] = "name", [KEY_IPV4] = "IPv4 address",
		[KEY_LIST] = "list",
	};
	char list[256];
	char *r = d->rbuf;
	size_t rl = sizeof(d->rbuf);

	d->type = k->doc_type ? k->doc_type : k->type < KEY_NTYPES ? types[k->type] : "?";
	d->range = r;
	r[0] = '\0';
	if (k->doc_range)
		d->range = k->doc_range;
	else switch (k->type) {
	case KEY_UINT:
		snprintf(r, rl, "%ld to %ld", k->min, k->max);
		break;
	case KEY_HEX:
		snprintf(r, rl, "0x%lx to 0x%lx", k->min, k->max);
		break;
	case KEY_BOOL:
		snprintf(r, rl, k->flags & KEY_F_WORDS ? "true/false, yes/no, 1/0" : "true or false");
		break;
	case KEY_CPUS:
		snprintf(r, rl, "all, all-but-self, or a list: 1,17,33 or 0-7,9");
		break;
	case KEY_CHOICE:
		keys_or_list(r, rl, keys_choices(k));
		break;
	case KEY_CHOICES:
		snprintf(r, rl, "empty, or %ld to %ld of %s", k->min, k->max,
			 keys_or_list(list, sizeof(list), keys_choices(k)));
		break;
	case KEY_NAME:
		snprintf(r, rl, "letters, digits, '.', '_' and '-', a letter or digit first, no '..', "
			 "at most %zu bytes", k->size ? k->size - 1 : 0);
		break;
	case KEY_TEXT:
		if (!k->size)
			snprintf(r, rl, "text");
		else
			snprintf(r, rl, "at most %zu bytes%s%s%s", k->size - 1,
				 k->reject ? ", none of '" : "", k->reject ? k->reject : "",
				 k->reject ? "'" : "");
		break;
	case KEY_IPV4:
		snprintf(r, rl, "dotted quad");
		break;
	case KEY_LIST:
	case KEY_NTYPES:
		break;
	}
	d->def = k->doc_def ? k->doc_def : k->def ? (*k->def ? k->def : "empty") :
		 help_default(k->help, d->dbuf, sizeof(d->dbuf));
}

const char *keys_describe(const struct key *k, char *buf, size_t len)
{
	char list[128];
	int n = snprintf(buf, len, "%s", k->help);

	if (n >= 0 && (size_t)n < len && k->type == KEY_UINT)
		n += snprintf(buf + n, len - (size_t)n, ", %ld to %ld", k->min, k->max);
	if (n >= 0 && (size_t)n < len && k->type == KEY_BOOL)
		n += snprintf(buf + n, len - (size_t)n, ": true or false");
	if (n >= 0 && (size_t)n < len && k->type == KEY_CHOICE)
		n += snprintf(buf + n, len - (size_t)n, ": %s",
			      keys_or_list(list, sizeof(list), keys_choices(k)));
	if (n >= 0 && (size_t)n < len && (k->def || k->doc_def))
		snprintf(buf + n, len - (size_t)n, " (default %s)",
			 !k->def ? k->doc_def : *k->def ? k->def : "empty");
	return buf;
}
