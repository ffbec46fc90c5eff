/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The agent's one way into the hypervisor for XEN_SYSCTL_ipibench: an ops
 * table (agent_ctx.hv) that hvbench.c calls for its handle, its hypercall
 * buffers and the sysctl itself.  The agent's table is hvcall_xencall
 * (hvcall_xen.c: libxencall, each sysctl through sysctl_wrap.c's interface
 * version); the unit tests give hvbench.c a fake hypervisor of their own
 * (agent/tests/test_hvbench.c), so the chunk loop, the refusals and the
 * JSON are tested without Xen.  libxenctrl's own calls (the console, CPU
 * hotplug, physinfo) stay on agent_ctx.xch.
 */
#ifndef IPIBENCH_AGENT_HVCALL_H
#define IPIBENCH_AGENT_HVCALL_H

#include <stddef.h>

struct xen_sysctl;

struct hvcall_ops {
	/* A handle for the calls below, or NULL with errno set. */
	void *(*open)(void);
	void (*close)(void *h);
	/* Memory the hypervisor reads and writes, or NULL. */
	void *(*alloc)(void *h, size_t size);
	void (*free)(void *h, void *p);
	/* The sysctl in s (hypercall memory): 0, or -1 with errno set. */
	int (*sysctl)(void *h, struct xen_sysctl *s);
};

/* libxencall's (hvcall_xen.c; only the agent links it). */
extern const struct hvcall_ops hvcall_xencall;

#endif
