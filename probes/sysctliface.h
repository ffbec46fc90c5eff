/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The sysctl interface version a hypervisor expects, found at run time.
 *
 * Xen refuses a sysctl whose interface_version is not its own with
 * -EACCES before it looks at anything else (do_sysctl()): 0x15 for Xen
 * 4.17 to 4.20, 0x16 since 4.21 (staging).  The agent is linked against
 * Debian 12's libxenctrl, which writes 0x15 into every sysctl it makes, so
 * against 4.21+ xc_physinfo() and the trace buffer calls fail at once.
 *
 * The agent routes every sysctl hypercall (libxenctrl's and its own)
 * through sysctl_iface_call() (probes/sysctl_wrap.c wraps xencall1 at
 * link time): a sysctl refused with EACCES is tried once with each other
 * known version, and the version that got through is kept for every later
 * one.  Only the sysctls named in `cmds` are retried: those whose layout is
 * the same under every version listed here (the agent's list says which
 * and why); any other keeps the version its caller wrote and fails loudly.
 * No Xen header here, so the logic is unit-tested on the host.
 */
#ifndef IPIBENCH_SYSCTLIFACE_H
#define IPIBENCH_SYSCTLIFACE_H

#include <stddef.h>
#include <stdint.h>

/* XEN_SYSCTL_INTERFACE_VERSION of Xen 4.17-4.20, and of 4.21 to staging. */
#define SYSCTL_IFACE_XEN417 0x15u
#define SYSCTL_IFACE_XEN421 0x16u

struct sysctl_iface {
	uint32_t version;       /* the hypervisor's, once a sysctl got through; 0 before */
	const uint32_t *cmds;   /* the sysctls that may be retried */
	size_t ncmds;
};

/*
 * Issue the sysctl in buf (struct xen_sysctl: uint32_t cmd at offset 0,
 * uint32_t interface_version at offset 4) with call(arg, buf), which
 * returns < 0 with errno set on failure, as xencall1() does.  Returns what
 * the call that settled it returned; after a failure errno and the buffer's
 * interface_version are those of the first attempt.
 */
int sysctl_iface_call(struct sysctl_iface *st, void *buf,
		      int (*call)(void *arg, void *buf), void *arg);

#endif
