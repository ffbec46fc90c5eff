/* SPDX-License-Identifier: GPL-3.0-or-later */
/* runner/needs.c: what a config needs built, or the host it needs (needs.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runner/needs.h"

void host_needs_add(struct host_needs *n, const char *target)
{
	size_t len = strlen(n->targets), tl = strlen(target);

	/* Already there: a whole word of the list. */
	for (const char *p = n->targets; (p = strstr(p, target)); p += tl)
		if ((p == n->targets || p[-1] == ' ') && (p[tl] == ' ' || !p[tl]))
			return;
	if (len + 1 + tl + 1 > sizeof(n->targets))
		return;   /* the targets are a few short names: never reached */
	if (len)
		n->targets[len++] = ' ';
	memcpy(n->targets + len, target, tl + 1);
}

/* A [guest] image: make guest's when in build/guest/, else there already. */
static int guest_file(struct host_needs *n, const char *file, const char *key, const char *path,
		      char *err, size_t errlen)
{
	if (!strncmp(path, NEEDS_GUEST_DIR, strlen(NEEDS_GUEST_DIR))) {
		host_needs_add(n, "guest");
		return 0;
	}
	if (access(path, R_OK)) {
		snprintf(err, errlen, "%s: [guest] %s = %s: %s (make guest builds the default "
			 "in " NEEDS_GUEST_DIR ")", file, key, path, strerror(errno));
		return -1;
	}
	return 0;
}

int config_needs(const struct config *c, const char *file, struct host_needs *n,
		 char *err, size_t errlen)
{
	const struct host_backend_ops *be = host_backend_find(c->host.backend);
	char why[400] = "";

	n->targets[0] = '\0';
	if (!be) {   /* config_load() refused it already */
		snprintf(err, errlen, "%s: backend = %s: unknown", file, c->host.backend);
		return -1;
	}
	/* A named build ([matrix] xen) was found by config_load(): only the
	 * default one is make hv's to build. */
	n->default_build = !c->matrix.nxen || !c->matrix.xen[0].spec[0];
	if (be->needs && be->needs(c->host.settings, n, why, sizeof(why))) {
		snprintf(err, errlen, "%s: backend = %s needs %s", file, be->name, why);
		return -1;
	}
	if (c->guest.given &&
	    (guest_file(n, file, "kernel", c->guest.kernel, err, errlen) ||
	     guest_file(n, file, "ramdisk", c->guest.ramdisk, err, errlen)))
		return -1;
	return 0;
}
