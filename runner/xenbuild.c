/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipibench/modes.h"
#include "runner/util.h"
#include "runner/xenbuild.h"
#include "lib/safeio.h"

/* The modes Xen dropped, and the release that dropped them. */
static const struct { const char *mode; unsigned int major, minor; const char *why; } removed[] = {
	{ "cluster", 4, 20, "removed in Xen 4.20, where x2apic-mode=cluster boots mixed" },
};

int xen_version_parse(const char *s, unsigned int *major, unsigned int *minor)
{
	char *end;
	unsigned long a, b;

	if (!s || *s < '0' || *s > '9')
		return -1;
	a = strtoul(s, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return -1;
	b = strtoul(end + 1, &end, 10);
	if (a == 0 || a > 99 || b > 99 || (*end && *end != '.' && *end != '-' && *end != '+'))
		return -1;
	*major = (unsigned int)a;
	*minor = (unsigned int)b;
	return 0;
}

static const char *removed_why(unsigned int major, unsigned int minor, const char *mode)
{
	if (!major)
		return NULL;
	for (size_t i = 0; i < sizeof(removed) / sizeof(removed[0]); i++)
		if (!strcmp(removed[i].mode, mode) &&
		    (major > removed[i].major || (major == removed[i].major && minor >= removed[i].minor)))
			return removed[i].why;
	return NULL;
}

int xen_has_mode(unsigned int major, unsigned int minor, const char *mode)
{
	return mode && ipibench_mode_index(mode) < IPIBENCH_NMODES &&
	       !removed_why(major, minor, mode);
}

const char *xen_modes_text(unsigned int major, unsigned int minor, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < IPIBENCH_NMODES; i++)
		if (xen_has_mode(major, minor, ipibench_mode_name(i)) && o < len)
			o += snprintf(buf + o, len - o, "%s%s", o ? ", " : "", ipibench_mode_name(i));
	return buf;
}

/* KEY's value in the first line of build-info F ("" when absent). */
static void info_get(const char *line, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	buf[0] = '\0';
	for (const char *p = line; p && *p; p = strchr(p, ' ')) {
		p += *p == ' ';
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, " \n");
			snprintf(buf, len, "%.*s", (int)n, p + kl + 1);
			return;
		}
	}
}

/*
 * PATH is a multiboot image (Xen's xen: what QEMU's -kernel and GRUB boot):
 * a multiboot header (magic, flags and a checksum that sums to 0) at a
 * 4-byte boundary of its first 8 KiB, or a multiboot2 one at an 8-byte
 * boundary of its first 32 KiB.  At most 32 KiB are read.  0, or -1.
 */
static int multiboot_image(const char *path)
{
	unsigned char buf[32768];
	ssize_t got;
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	while (n < sizeof(buf) && (got = read(fd, buf + n, sizeof(buf) - n)) > 0)
		n += (size_t)got;
	close(fd);
	for (size_t o = 0; o + 12 <= n; o += 4) {
		uint32_t w[4] = { 0, 0, 0, 0 };

		for (size_t i = 0; i < 4 && o + 4 * i + 4 <= n; i++)
			w[i] = (uint32_t)buf[o + 4 * i] | (uint32_t)buf[o + 4 * i + 1] << 8 |
			       (uint32_t)buf[o + 4 * i + 2] << 16 | (uint32_t)buf[o + 4 * i + 3] << 24;
		if (o + 12 <= 8192 && w[0] == 0x1badb002u && w[0] + w[1] + w[2] == 0)
			return 0;
		if (o % 8 == 0 && o + 16 <= n && w[0] == 0xe85250d6u &&
		    w[0] + w[1] + w[2] + w[3] == 0)
			return 0;
	}
	return -1;
}

static int is_version_name(const char *s)
{
	unsigned int a, b;

	return !xen_version_parse(s, &a, &b) && strspn(s, "0123456789.") == strlen(s);
}

int xen_build_resolve(const char *spec, struct xen_build *b, char *err, size_t errlen)
{
	char dir[XB_PATH_MAX], info[XB_PATH_MAX + 16], line[1024] = "", shown[300];
	struct stat st;

	memset(b, 0, sizeof(*b));
	if (spec && strlen(spec) >= sizeof(b->spec)) {
		snprintf(err, errlen, "too long");
		return -1;
	}
	snprintf(b->spec, sizeof(b->spec), "%s", spec ? spec : "");
	if (!spec || !*spec) {
		snprintf(dir, sizeof(dir), "%s/xen", build_dir());
	} else if (!strchr(spec, '/')) {
		/* A version name, or a build's label (src-ID: BUILD/xen-src-ID). */
		if (!sio_name_ok(spec)) {
			snprintf(err, errlen, "neither a version name (4.17, 4.20), a build's name "
				 "(src-ID for build/xen-src-ID) nor a path to a built xen");
			return -1;
		}
		snprintf(dir, sizeof(dir), "%s/xen-%s", build_dir(), spec);
		if (!is_version_name(spec) && (stat(dir, &st) || !S_ISDIR(st.st_mode))) {
			snprintf(err, errlen, "neither a version name (4.17, 4.20), a build's name "
				 "(src-ID for build/xen-src-ID) nor a path to a built xen");
			return -1;
		}
	} else if (!stat(spec, &st) && S_ISDIR(st.st_mode)) {
		snprintf(dir, sizeof(dir), "%s", spec);
	} else {
		const char *slash = strrchr(spec, '/');
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - spec), spec);
		if (!dir[0])
			snprintf(dir, sizeof(dir), "/");
	}
	if (spec && strchr(spec, '/') && !(!stat(spec, &st) && S_ISDIR(st.st_mode)))
		snprintf(b->path, sizeof(b->path), "%s", spec);
	else if (snprintf(b->path, sizeof(b->path), "%s/xen", dir) >= (int)sizeof(b->path)) {
		snprintf(err, errlen, "path too long");
		return -1;
	}
	int bad = stat(b->path, &st) ? errno : !S_ISREG(st.st_mode) ? -1 : 0;

	if (bad) {
		if (spec && *spec && !strchr(spec, '/'))
			snprintf(err, errlen, !strcmp(spec, "4.17") || !strcmp(spec, "4.20") ?
				 "%s is not built (make hv XEN=%s)" :
				 "%s is not built (make hv fetches XEN=4.17 or 4.20; name a build of "
				 "your own tree by its path, build/xen-src-ID/xen)",
				 sio_shown(shown, sizeof(shown), b->path), spec);
		else
			snprintf(err, errlen, "%s: %s (make hv builds it)",
				 sio_shown(shown, sizeof(shown), b->path),
				 bad > 0 ? strerror(bad) : "not a regular file");
		return -1;
	}
	if (multiboot_image(b->path)) {
		snprintf(err, errlen, "%s: not a hypervisor image (no multiboot header in its "
			 "first 32 KiB)", sio_shown(shown, sizeof(shown), b->path));
		return -1;
	}
	/* The label: the version name, else the folder's name without xen-. */
	{
		char real[PATH_MAX];
		const char *base = realpath(dir, real) ? strrchr(real, '/') : NULL;

		base = base ? base + 1 : dir;
		if (!strncmp(base, "xen-", 4) && base[4])
			base += 4;
		snprintf(b->label, sizeof(b->label), "%.63s", base);
		/* A name (safeio's rule): results and reports carry it. */
		for (char *p = b->label; *p; p++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p))
				*p = '_';
		if (!b->label[0] || !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", b->label[0]))
			b->label[0] = 'x';
		while (strstr(b->label, ".."))
			strstr(b->label, "..")[1] = '_';
	}
	/* Untrusted like any input: a regular file of at most 4 KiB, or none. */
	snprintf(info, sizeof(info), "%s/build-info", dir);
	if (!access(info, F_OK)) {
		char *text = NULL, e[300];
		size_t len;

		if (sio_read_file(info, 4096, &text, &len, e, sizeof(e))) {
			snprintf(err, errlen, "%s", e);
			return -1;
		}
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(text, "\n"), text);
		free(text);
	}
	info_get(line, "XEN_VERSION", b->version, sizeof(b->version));
	info_get(line, "XEN_SOURCE", b->source, sizeof(b->source));
	info_get(line, "SERIES", b->series, sizeof(b->series));
	info_get(line, "SERIES_HASH", b->series_hash, sizeof(b->series_hash));
	info_get(line, "FIXES", b->fixes, sizeof(b->fixes));
	if (b->version[0] && xen_version_parse(b->version, &b->major, &b->minor)) {
		snprintf(err, errlen, "%s: XEN_VERSION=%s: not a Xen version",
			 sio_shown(shown, sizeof(shown), info), b->version);
		return -1;
	}
	return 0;
}

int xen_build_mode_check(const struct xen_build *b, const char *mode, char *err, size_t errlen)
{
	const char *why = removed_why(b->major, b->minor, mode);
	char modes[64];

	if (!why)
		return 0;
	snprintf(err, errlen, "Xen %s (%s) has no %s mode (%s); its modes are %s", b->version,
		 b->label, mode, why, xen_modes_text(b->major, b->minor, modes, sizeof(modes)));
	return -1;
}
