/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <string.h>

#include "probes/sysctliface.h"

#define OFF_CMD 0
#define OFF_VERSION 4

static const uint32_t known[] = { SYSCTL_IFACE_XEN417, SYSCTL_IFACE_XEN421 };

static uint32_t get32(const void *buf, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)buf + off, sizeof(v));
	return v;
}

static void set32(void *buf, size_t off, uint32_t v)
{
	memcpy((char *)buf + off, &v, sizeof(v));
}

static int retried(const struct sysctl_iface *st, uint32_t cmd)
{
	for (size_t i = 0; i < st->ncmds; i++)
		if (st->cmds[i] == cmd)
			return 1;
	return 0;
}

int sysctl_iface_call(struct sysctl_iface *st, void *buf,
		      int (*call)(void *arg, void *buf), void *arg)
{
	uint32_t asked = get32(buf, OFF_VERSION);
	int rc, first_errno;

	if (!retried(st, get32(buf, OFF_CMD)))
		return call(arg, buf);
	if (st->version) {
		set32(buf, OFF_VERSION, st->version);
		return call(arg, buf);
	}
	rc = call(arg, buf);
	/* Anything but EACCES means the version check passed. */
	if (rc >= 0 || errno != EACCES) {
		st->version = asked;
		return rc;
	}
	first_errno = errno;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (known[i] == asked)
			continue;
		set32(buf, OFF_VERSION, known[i]);
		rc = call(arg, buf);
		if (rc >= 0 || errno != EACCES) {
			st->version = known[i];
			return rc;
		}
	}
	/* Refused under every version (XSM, say): the caller's error. */
	set32(buf, OFF_VERSION, asked);
	errno = first_errno;
	return -1;
}
