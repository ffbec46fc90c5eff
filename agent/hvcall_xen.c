/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hvcall.h's table on libxencall: what the agent runs on. */
#include <stdint.h>

#include <xencall.h>
#include <xenctrl.h>
#include <xen/sysctl.h>

#include "agent/hvcall.h"

static void *xcall_open_h(void)
{
	return xencall_open(NULL, 0);
}

static void xcall_close_h(void *h)
{
	xencall_close(h);
}

static void *xcall_alloc(void *h, size_t size)
{
	return xencall_alloc_buffer(h, size);
}

static void xcall_free(void *h, void *p)
{
	xencall_free_buffer(h, p);
}

/* Through sysctl_wrap.c (-Wl,--wrap=xencall1): the interface version. */
static int xcall_sysctl(void *h, struct xen_sysctl *s)
{
	return xencall1(h, __HYPERVISOR_sysctl, (uint64_t)(uintptr_t)s) < 0 ? -1 : 0;
}

const struct hvcall_ops hvcall_xencall = {
	.open = xcall_open_h,
	.close = xcall_close_h,
	.alloc = xcall_alloc,
	.free = xcall_free,
	.sysctl = xcall_sysctl,
};
