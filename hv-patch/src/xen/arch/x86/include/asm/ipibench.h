/* @file from=sysctl-query */
/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __ASM_X86_IPIBENCH_H__
#define __ASM_X86_IPIBENCH_H__

#include <xen/errno.h>
#include <public/sysctl.h>

/* XEN_SYSCTL_ipibench: benchmarks of the APIC IPI and interrupt paths. */
#ifdef CONFIG_IPIBENCH
int ipibench_sysctl(struct xen_sysctl_ipibench *op);
#else
static inline int ipibench_sysctl(struct xen_sysctl_ipibench *op)
{
    return -EOPNOTSUPP;
}
#endif

#endif /* __ASM_X86_IPIBENCH_H__ */
