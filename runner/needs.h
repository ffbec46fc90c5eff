/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What a config needs before it can run on this machine (`ipibench run -c
 * FILE --needs`, which make bench asks first): the tree's make targets
 * that build it (the backend's own, host_backend_ops.needs, and make guest
 * for a [guest] whose kernel or initramfs is in build/guest/), or a
 * refusal in one line naming the host it needs (backend = local on a
 * machine that is not a Xen dom0; backend = reboot on a host not
 * installed).
 */
#ifndef IPIBENCH_NEEDS_H
#define IPIBENCH_NEEDS_H

#include <stddef.h>

#include "runner/backend.h"
#include "runner/config.h"

/* Where make guest leaves the [guest] defaults (CFG_GUEST_KERNEL_DEFAULT's folder). */
#define NEEDS_GUEST_DIR "build/guest/"

/*
 * C (read from FILE) on this machine: n->targets filled, 0; or -1 with
 * "FILE: backend = NAME needs ..." or "FILE: [guest] KEY = PATH: ..." in
 * err.  n->xen_caps and n->root say where the checks read (NULL: the
 * machine's own).
 */
int config_needs(const struct config *c, const char *file, struct host_needs *n,
		 char *err, size_t errlen);

#endif
