/* SPDX-License-Identifier: GPL-3.0-or-later */
/* GRUB's environment block: parse, format, edit, and store it in place. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runner/host/grubenv.h"
#include "lib/safeio.h"

int grubenv_parse(const char *buf, size_t len, struct grubenv *e, char *err, size_t errlen)
{
	size_t sl = strlen(GRUBENV_SIG), i;

	e->n = 0;
	if (len < sl || memcmp(buf, GRUBENV_SIG, sl)) {
		snprintf(err, errlen, "not a GRUB environment block (no '# GRUB Environment Block' line)");
		return -1;
	}
	for (i = sl; i < len;) {
		if (buf[i] == '#' || buf[i] == '\n') {
			/* comment or padding: skip the line */
			while (i < len && buf[i] != '\n')
				i++;
			i++;
			continue;
		}
		size_t k = i;
		while (k < len && buf[k] != '=' && buf[k] != '\n')
			k++;
		if (k >= len || buf[k] != '=') {
			i = k + 1;
			continue;
		}
		char key[128], val[GRUBENV_SIZE];
		size_t kl = k - i, vl = 0;

		if (kl == 0 || kl >= sizeof(key)) {
			snprintf(err, errlen, "bad variable name at byte %zu", i);
			return -1;
		}
		memcpy(key, buf + i, kl);
		key[kl] = '\0';
		for (i = k + 1; i < len && buf[i] != '\n'; i++) {
			if (buf[i] == '\\' && i + 1 < len)
				i++;
			if (vl + 1 >= sizeof(val)) {
				snprintf(err, errlen, "value of %s too long", key);
				return -1;
			}
			val[vl++] = buf[i];
		}
		val[vl] = '\0';
		i++;
		if (grubenv_set(e, key, val)) {
			snprintf(err, errlen, "too many variables");
			return -1;
		}
	}
	return 0;
}

int grubenv_format(const struct grubenv *e, char out[GRUBENV_SIZE], char *err, size_t errlen)
{
	size_t n = strlen(GRUBENV_SIG);

	memcpy(out, GRUBENV_SIG, n);
	for (unsigned int i = 0; i < e->n; i++) {
		const char *k = e->v[i].key, *v = e->v[i].val;
		size_t need = strlen(k) + 2;

		for (const char *p = v; *p; p++)
			need += (*p == '\\' || *p == '\n') ? 2 : 1;
		if (n + need > GRUBENV_SIZE) {
			snprintf(err, errlen, "GRUB environment block full (1024 bytes) at %s", k);
			return -1;
		}
		n += (size_t)sprintf(out + n, "%s=", k);
		for (const char *p = v; *p; p++) {
			if (*p == '\\' || *p == '\n')
				out[n++] = '\\';
			out[n++] = *p;
		}
		out[n++] = '\n';
	}
	memset(out + n, '#', GRUBENV_SIZE - n);
	return 0;
}

const char *grubenv_get(const struct grubenv *e, const char *key)
{
	for (unsigned int i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].key, key))
			return e->v[i].val;
	return NULL;
}

int grubenv_set(struct grubenv *e, const char *key, const char *val)
{
	if (!*key || strpbrk(key, "=\n") || strlen(key) >= sizeof(e->v[0].key) ||
	    strlen(val) >= sizeof(e->v[0].val))
		return -1;
	for (unsigned int i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].key, key)) {
			snprintf(e->v[i].val, sizeof(e->v[i].val), "%s", val);
			return 0;
		}
	if (e->n == GRUBENV_MAX_VARS)
		return -1;
	snprintf(e->v[e->n].key, sizeof(e->v[e->n].key), "%s", key);
	snprintf(e->v[e->n].val, sizeof(e->v[e->n].val), "%s", val);
	e->n++;
	return 0;
}

void grubenv_unset(struct grubenv *e, const char *key)
{
	for (unsigned int i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].key, key)) {
			memmove(&e->v[i], &e->v[i + 1], (e->n - i - 1) * sizeof(e->v[0]));
			e->n--;
			return;
		}
}

int grubenv_load(const char *path, struct grubenv *e, char *err, size_t errlen)
{
	char buf[GRUBENV_SIZE + 1];
	char why[256], q[256];
	struct stat st;
	ssize_t n;
	int fd;

	e->n = 0;
	if (stat(path, &st) && errno == ENOENT)
		return 1;
	/* safeio's rule: a FIFO or device is refused at once, never waited on. */
	fd = sio_open_regular(path, GRUBENV_SIZE, &st, err, errlen);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	sio_shown(q, sizeof(q), path);
	if (n != GRUBENV_SIZE) {
		snprintf(err, errlen, "%s: %s (a GRUB environment block is exactly %d bytes)",
			 q, n < 0 ? strerror(errno) : "wrong size", GRUBENV_SIZE);
		return -1;
	}
	if (grubenv_parse(buf, GRUBENV_SIZE, e, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", q, why);
		return -1;
	}
	return 0;
}

int grubenv_store(const char *path, const struct grubenv *e, char *err, size_t errlen)
{
	char buf[GRUBENV_SIZE];
	int fd;

	if (grubenv_format(e, buf, err, errlen))
		return -1;
	/* In place: the file keeps its blocks, where GRUB's save_env writes. */
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) ||
	    ftruncate(fd, sizeof(buf)) || fsync(fd)) {
		snprintf(err, errlen, "%.700s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}
