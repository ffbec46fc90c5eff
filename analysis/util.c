/* analysis/util.c: strings, atomic writes, directories, progress. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

char *xasprintf(const char *fmt, ...)
{
	struct sbuf b = { 0 };
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	return b.s ? b.s : xstrdup("");
}

int write_atomic(const char *path, const char *data, size_t len, char *err)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, AN_ERRLEN, "%s: cannot write: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	size_t w = fwrite(data, 1, len, f);
	int bad = w != len || fflush(f) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		snprintf(err, AN_ERRLEN, "%s: cannot write: %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int mkdir_p(const char *path, char *err)
{
	char *p = xstrdup(path);
	for (char *s = p + 1;; s++) {
		char c = *s;
		if (c == '/' || c == '\0') {
			*s = '\0';
			if (mkdir(p, 0777) != 0 && errno != EEXIST) {
				snprintf(err, AN_ERRLEN, "%s: cannot create directory: %s",
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
		snprintf(err, AN_ERRLEN, "%s: not a directory", path);
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

void progress(const char *fmt, ...)
{
	if (an_quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("ipibench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}
