/* SPDX-License-Identifier: GPL-3.0-or-later */
/* analysis/util.c: strings, escaping, directories, progress. */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipibench/modes.h"
#include "lib/opts.h"
#include "lib/safeio.h"
#include "analysis/internal.h"

bool an_quiet;

static void oom(void)
{
	fprintf(stderr, "ipibench: out of memory\n");
	abort();
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t sz)
{
	p = realloc(p, sz ? sz : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d)
		oom();
	return d;
}

static void sb_vprintf(struct sbuf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void sb_vprintf(struct sbuf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int need = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (need < 0)
		return;
	if (b->len + (size_t)need + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + (size_t)need + 1)
			cap *= 2;
		b->s = xrealloc(b->s, cap);
		b->cap = cap;
	}
	vsnprintf(b->s + b->len, (size_t)need + 1, fmt, ap);
	b->len += (size_t)need;
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(b, fmt, ap);
	va_end(ap);
}

void sb_puts(struct sbuf *b, const char *s)
{
	sb_printf(b, "%s", s);
}

void sb_free(struct sbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	struct sbuf b = { 0 };
	sb_vprintf(&b, fmt, ap);
	return b.s ? b.s : xstrdup("");
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

int mkdir_p(const char *path, char *err)
{
	char *p = xstrdup(path);
	for (char *s = p + 1;; s++) {
		char c = *s;
		if (c == '/' || c == '\0') {
			*s = '\0';
			if (mkdir(p, 0777) != 0 && errno != EEXIST) {
				an_err(err, "%s: cannot create directory: %s",
				       p, strerror(errno));
				free(p);
				return -1;
			}
			*s = c;
		}
		if (!c)
			break;
	}
	free(p);
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		an_err(err, "%s: not a directory", path);
		return -1;
	}
	return 0;
}

char *slugify(const char *s)
{
	char *d = xstrdup(s);
	for (char *p = d; *p; p++) {
		char c = *p;
		if (c >= 'A' && c <= 'Z')
			*p = (char)(c - 'A' + 'a');
		else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			   c == '_'))
			*p = '-';
	}
	return d;
}

/* FNV-1a, 64 bits: a short, stable digest of a name (not a secret). */
static unsigned long long fnv1a64(const char *s)
{
	unsigned long long h = 14695981039346656037ULL;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

char *plot_slug(const char *raw)
{
	char *s = slugify(raw);
	if (!strcmp(s, raw))
		return s;
	/* lossy: "qemu.tcg" and "QEMU-tcg" must not become "qemu-tcg"'s plot */
	char *d = xasprintf("%s-%016llx", s, fnv1a64(raw));
	free(s);
	return d;
}

void plot_name_unique(json_t *taken, char **plot)
{
	if (!*plot)
		return;
	char *n = xstrdup(*plot);
	for (unsigned k = 2; json_object_get(taken, n); k++) {
		free(n);
		n = xasprintf("%s-%u", *plot, k);
	}
	json_object_set_new(taken, n, json_true());
	free(*plot);
	*plot = n;
}

void progress(const char *fmt, ...)
{
	if (an_quiet)
		return;
	struct sbuf b = { 0 };
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	/* file names come from results directories: one line each */
	char *line = one_line(b.s ? b.s : "");
	fprintf(stderr, "ipibench: %s\n", line);
	free(line);
	sb_free(&b);
}

static bool is_ctl(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f;
}

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/*
 * The code point at P when it is one a reader cannot see but that changes
 * what is shown: C1 controls, bidi embeddings, overrides and isolates
 * (U+202A-U+202E, U+2066-U+2069, U+061C, U+200E-U+200F), zero-width and
 * invisible characters (U+200B-U+200D, U+2060-U+2064, U+FEFF, U+00AD),
 * line and paragraph separators (U+2028-U+2029).  Its length in bytes
 * (valid UTF-8 only), 0 for anything else.
 */
static size_t invisible_at(const char *p, unsigned *cp)
{
	const unsigned char *u = (const unsigned char *)p;
	unsigned c;
	size_t n;

	if (u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0xbf)
		c = 0x80 | (u[1] & 0x3f), n = 2;
	else if (u[0] == 0xd8 && u[1] == 0x9c)
		c = 0x61c, n = 2;
	else if (u[0] >= 0xe0 && u[0] <= 0xef && (u[1] & 0xc0) == 0x80 && (u[2] & 0xc0) == 0x80)
		c = ((u[0] & 0x0fu) << 12) | ((u[1] & 0x3fu) << 6) | (u[2] & 0x3fu), n = 3;
	else
		return 0;
	bool hidden = (c >= 0x80 && c <= 0x9f) || c == 0xad || c == 0x61c ||
		      (c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) ||
		      (c >= 0x2060 && c <= 0x2064) || (c >= 0x2066 && c <= 0x2069) || c == 0xfeff;
	*cp = c;
	return hidden ? n : 0;
}

/* A bare URL's start that GitHub's Markdown would make a link: at P, a
 * "://" after a letter, or "www." at the start of a word. */
static bool autolink_at(const char *s, const char *p)
{
	if (*p == ':' && !strncmp(p, "://", 3) && p > s && is_alnum(p[-1]))
		return true;
	return *p == '.' && p - s >= 3 && !strncmp(p - 3, "www", 3) &&
	       (p - s == 3 || !is_alnum(p[-4]));
}

char *md_text(const char *s)
{
	struct sbuf b = { 0 };
	sb_puts(&b, "");
	for (const char *p = s; *p; p++) {
		unsigned cp;
		size_t n = invisible_at(p, &cp);
		if (n) {	/* shown, never applied */
			sb_printf(&b, "\\<U+%04X\\>", cp);
			p += n - 1;
		} else if (is_ctl(*p))
			sb_puts(&b, " ");
		else if (autolink_at(s, p) || *p == '@')	/* no link, no mail link */
			sb_printf(&b, "\\%c", *p);
		else if (strchr("\\`*[]<>|&!#", *p) ||
			 (*p == '_' && !(p > s && is_alnum(p[-1]) && is_alnum(p[1]))))
			sb_printf(&b, "\\%c", *p);
		else
			sb_printf(&b, "%c", *p);
	}
	return b.s;
}

char *md_code(const char *s)
{
	size_t run = 0, longest = 0;
	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	struct sbuf b = { 0 }, fence = { 0 };
	for (size_t i = 0; i <= longest; i++)
		sb_puts(&fence, "`");
	/* A space keeps a leading or trailing backtick off the fence (it is
	 * stripped again when rendered). */
	bool pad = *s == '`' || (*s && s[strlen(s) - 1] == '`');
	sb_printf(&b, "%s%s", fence.s, pad ? " " : "");
	for (const char *p = s; *p; p++) {
		unsigned cp;
		size_t n = invisible_at(p, &cp);
		if (n) {
			sb_printf(&b, "<U+%04X>", cp);
			p += n - 1;
		} else if (is_ctl(*p))
			sb_puts(&b, " ");
		else if (*p == '|')
			sb_puts(&b, "\\|");	/* GFM tables split on | even in code */
		else
			sb_printf(&b, "%c", *p);
	}
	sb_printf(&b, "%s%s", pad ? " " : "", fence.s);
	sb_free(&fence);
	return b.s;
}

char *html_text(const char *s)
{
	struct sbuf b = { 0 };
	sb_puts(&b, "");
	for (; *s; s++) {
		unsigned cp;
		size_t n = invisible_at(s, &cp);
		if (n) {	/* an entity would still apply: shown as text */
			sb_printf(&b, "&lt;U+%04X&gt;", cp);
			s += n - 1;
			continue;
		}
		switch (*s) {
		case '<': sb_puts(&b, "&lt;"); break;
		case '>': sb_puts(&b, "&gt;"); break;
		case '&': sb_puts(&b, "&amp;"); break;
		case '"': sb_puts(&b, "&quot;"); break;
		case '\'': sb_puts(&b, "&#39;"); break;
		default:
			if (is_ctl(*s))
				sb_puts(&b, " ");
			else
				sb_printf(&b, "%c", *s);
		}
	}
	return b.s;
}

char *one_line(const char *s)
{
	char *d = xstrdup(s);
	for (char *p = d; *p; p++)
		if (is_ctl(*p))
			*p = ' ';
	return d;
}

void an_error(const char *cmd, const char *err)
{
	char *line = xstrdup(err);
	for (char *p = line; *p; p++)
		if (is_ctl(*p))
			*p = '?';
	fprintf(stderr, "ipibench %s: %s\n", cmd, line);
	free(line);
}

void an_err(char *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, AN_ERRLEN, fmt, ap);
	va_end(ap);
}

int mode_cmp(const char *a, const char *b)
{
	size_t x = ipibench_mode_index(a), y = ipibench_mode_index(b);

	if (x != y)
		return x < y ? -1 : 1;
	return strcmp(a, b);
}

int an_parse_args(const struct opts_cmd *cmd, const char *input, int argc, char **argv,
		  int *ninputs, char ***inputs)
{
	an_quiet = false;
	int rc = opts_parse(cmd, argc, argv, ninputs, inputs);
	if (rc >= 0)
		return rc;
	if (*ninputs)
		return -1;
	fprintf(stderr, "%s: no input; usage: %s %s... [-o DIR]\n", cmd->name, cmd->name, input);
	return 2;
}

int an_write_text(const char *dir, const char *file, const char *s, size_t len, char *err)
{
	char *p = xasprintf("%s/%s", dir, file);
	int rc = sio_write_file(p, s, len, 0644, err, AN_ERRLEN);
	free(p);
	return rc;
}

json_t *an_jreal(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

const char *an_fixed(char *b, int decimals, double v)
{
	if (isnan(v))
		snprintf(b, 48, "-");
	else
		snprintf(b, 48, "%.*f", decimals, v);
	return b;
}

int an_write_json(const char *dir, const char *file, const json_t *j, char *err)
{
	char *txt = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
	struct sbuf b = { 0 };
	sb_printf(&b, "%s\n", txt);
	int rc = an_write_text(dir, file, b.s, b.len, err);
	sb_free(&b);
	free(txt);
	return rc;
}
