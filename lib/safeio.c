/* SPDX-License-Identifier: GPL-3.0-or-later */
/* safeio: bounded reads of untrusted files, atomic writes (see safeio.h). */
#include "lib/safeio.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dup_or_null(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

int sio_open_regular(const char *path, unsigned long long max, struct stat *st,
		     char *err, size_t errlen)
{
	char q[256];
	int fd;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", sio_shown(q, sizeof(q), path), strerror(errno));
		return -1;
	}
	if (fstat(fd, st)) {
		snprintf(err, errlen, "%s: %s", sio_shown(q, sizeof(q), path), strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", sio_shown(q, sizeof(q), path));
		close(fd);
		return -1;
	}
	if ((unsigned long long)st->st_size > max) {
		snprintf(err, errlen, "%s: %lld bytes, more than the %llu this input may have",
			 sio_shown(q, sizeof(q), path), (long long)st->st_size, max);
		close(fd);
		return -1;
	}
	return fd;
}

int sio_read_file(const char *path, size_t max, char **buf, size_t *len,
		  char *err, size_t errlen)
{
	struct stat st;
	char *b = NULL, q[256];
	size_t n = 0;
	int fd;

	*buf = NULL;
	if (len)
		*len = 0;
	fd = sio_open_regular(path, max, &st, err, errlen);
	if (fd < 0)
		return -1;
	sio_shown(q, sizeof(q), path);
	/* Read to EOF (the file may grow while read): never past max. */
	b = malloc((size_t)st.st_size + 1);
	if (!b) {
		snprintf(err, errlen, "%s: out of memory", q);
		goto fail;
	}
	for (;;) {
		size_t cap = (size_t)st.st_size;
		ssize_t r;

		if (n == cap) {
			char probe;

			r = read(fd, &probe, 1);
			if (r == 0)
				break;
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				snprintf(err, errlen, "%s: %s", q, strerror(errno));
				goto fail;
			}
			snprintf(err, errlen, "%s: changed size while being read", q);
			goto fail;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s: %s", q, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	b[n] = '\0';
	close(fd);
	*buf = b;
	if (len)
		*len = n;
	return 0;
fail:
	free(b);
	close(fd);
	return -1;
}

json_t *sio_load_json(const char *path, size_t max, char *err, size_t errlen)
{
	json_error_t je;
	json_t *j;
	char *text;
	size_t len;

	if (sio_read_file(path, max, &text, &len, err, errlen))
		return NULL;
	j = json_loadb(text, len, 0, &je);
	free(text);
	if (!j) {
		char q[256];

		snprintf(err, errlen, "%s:%d:%d: %s", sio_shown(q, sizeof(q), path), je.line,
			 je.column, je.text);
	}
	return j;
}

bool sio_name_ok(const char *s)
{
	size_t n;

	if (!s)
		return false;
	n = strlen(s);
	if (n == 0 || n > SIO_NAME_MAX)
		return false;
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
	      (s[0] >= '0' && s[0] <= '9')))
		return false;
	if (strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n)
		return false;
	return strstr(s, "..") == NULL;
}

/* DIR/.BASE.XXXXXX for path (a malloc'ed template). */
static char *temp_template(const char *path, const char *prefix)
{
	char *d1 = dup_or_null(path), *d2 = dup_or_null(path), *t = NULL;

	if (d1 && d2) {
		const char *dir = dirname(d1), *base = basename(d2);
		size_t n = strlen(dir) + strlen(base) + strlen(prefix) + 16;

		t = malloc(n);
		if (t)
			snprintf(t, n, "%s/.%s%s.XXXXXX", dir, prefix, base);
	}
	free(d1);
	free(d2);
	return t;
}

static void fsync_dir_of(const char *path)
{
	char *d = dup_or_null(path);
	int fd;

	if (!d)
		return;
	fd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);	/* best effort: some filesystems refuse */
		close(fd);
	}
	free(d);
}

int sio_atomic_open(struct sio_atomic *a, const char *path, mode_t mode,
		    char *err, size_t errlen)
{
	int fd;

	memset(a, 0, sizeof(*a));
	a->mode = mode;
	a->path = dup_or_null(path);
	a->tmp = temp_template(path, "");
	if (!a->path || !a->tmp) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	/* mkostemp creates with O_CREAT|O_EXCL: an existing name, a symlink
	 * included, is never opened. */
	fd = mkostemp(a->tmp, O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot create a temporary file beside it: %s",
			 path, strerror(errno));
		goto fail;
	}
	a->f = fdopen(fd, "w");
	if (!a->f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		unlink(a->tmp);
		goto fail;
	}
	return 0;
fail:
	free(a->path);
	free(a->tmp);
	memset(a, 0, sizeof(*a));
	return -1;
}

void sio_atomic_abort(struct sio_atomic *a)
{
	if (a->f)
		fclose(a->f);
	if (a->tmp)
		unlink(a->tmp);
	free(a->path);
	free(a->tmp);
	memset(a, 0, sizeof(*a));
}

int sio_atomic_commit(struct sio_atomic *a, char *err, size_t errlen)
{
	int bad_errno = 0;
	int rc = -1;

	if (!a->f) {
		snprintf(err, errlen, "atomic write: nothing open");
		return -1;
	}
	if (ferror(a->f) || fflush(a->f) || fchmod(fileno(a->f), a->mode) ||
	    fsync(fileno(a->f)))
		bad_errno = errno ? errno : EIO;
	if (fclose(a->f) && !bad_errno)
		bad_errno = errno ? errno : EIO;
	a->f = NULL;
	if (bad_errno) {
		snprintf(err, errlen, "%s: cannot write: %s", a->path, strerror(bad_errno));
		goto out;
	}
	if (rename(a->tmp, a->path)) {
		snprintf(err, errlen, "%s: cannot rename into place: %s", a->path,
			 strerror(errno));
		goto out;
	}
	fsync_dir_of(a->path);
	free(a->tmp);
	a->tmp = NULL;
	rc = 0;
out:
	sio_atomic_abort(a);
	return rc;
}

int sio_write_file(const char *path, const void *data, size_t len, mode_t mode,
		   char *err, size_t errlen)
{
	struct sio_atomic a;

	if (sio_atomic_open(&a, path, mode, err, errlen))
		return -1;
	if (len && fwrite(data, 1, len, a.f) != len) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		sio_atomic_abort(&a);
		return -1;
	}
	return sio_atomic_commit(&a, err, errlen);
}

int sio_write_json(const char *path, json_t *obj, size_t flags,
		   char *err, size_t errlen)
{
	struct sio_atomic a;

	if (sio_atomic_open(&a, path, 0644, err, errlen))
		return -1;
	if (json_dumpf(obj, a.f, flags) || fputc('\n', a.f) == EOF) {
		snprintf(err, errlen, "%s: cannot write JSON: %s", path, strerror(errno));
		sio_atomic_abort(&a);
		return -1;
	}
	return sio_atomic_commit(&a, err, errlen);
}

char *sio_mkdtemp_in(const char *dir, const char *prefix, char *err, size_t errlen)
{
	size_t n = strlen(dir) + strlen(prefix) + 16;
	char *t = malloc(n);

	if (!t) {
		snprintf(err, errlen, "%s: out of memory", dir);
		return NULL;
	}
	snprintf(t, n, "%s/.%s.XXXXXX", dir, prefix);
	if (!mkdtemp(t)) {
		snprintf(err, errlen, "%s: cannot create a private directory: %s", dir,
			 strerror(errno));
		free(t);
		return NULL;
	}
	return t;
}

const char *sio_json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

void sio_quote(char *buf, size_t len, const char *s)
{
	size_t n = 0;

	if (len < 8) {
		if (len)
			buf[0] = '\0';
		return;
	}
	buf[n++] = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char e[8];
		size_t el;

		if (c == '"' || c == '\\')
			el = (size_t)snprintf(e, sizeof(e), "\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			el = (size_t)snprintf(e, sizeof(e), "\\x%02x", c);
		else
			e[0] = (char)c, e[1] = '\0', el = 1;
		if (n + el + 5 > len) {		/* room for ...", NUL */
			memcpy(buf + n, "...", 3);
			n += 3;
			break;
		}
		memcpy(buf + n, e, el);
		n += el;
	}
	buf[n++] = '"';
	buf[n] = '\0';
}

const char *sio_shown(char *buf, size_t len, const char *s)
{
	for (const char *p = s; *p; p++)
		if (*p < 0x20 || *p > 0x7e) {
			sio_quote(buf, len, s);
			return buf;
		}
	snprintf(buf, len, "%s", s);
	return buf;
}

/* The length of the valid UTF-8 sequence at p (1-4), or 0 when the bytes
 * there are not one (RFC 3629). */
static size_t utf8_seq(const unsigned char *p)
{
	unsigned long cp;
	size_t k;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		k = 1, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		k = 2, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		k = 3, cp = p[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i <= k; i++) {
		if ((p[i] & 0xc0) != 0x80)	/* the NUL included */
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((k == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (k == 3 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return k + 1;
}

bool sio_utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	for (; *p; p += n)
		if (!(n = utf8_seq(p)))
			return false;
	return true;
}

json_t *sio_json_str(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	json_t *j;
	char *b, *o;
	size_t n;

	if (!s)
		return NULL;
	if (sio_utf8_ok(s))
		return json_string(s);
	b = malloc(4 * strlen(s) + 1);	/* every byte at most \xNN */
	if (!b)
		return NULL;
	for (o = b; *p; p += n) {
		n = utf8_seq(p);
		if (n) {
			memcpy(o, p, n);
			o += n;
		} else {
			o += sprintf(o, "\\x%02x", *p);
			n = 1;
		}
	}
	*o = '\0';
	j = json_string(b);
	free(b);
	return j;
}
