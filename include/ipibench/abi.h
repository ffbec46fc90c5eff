/* SPDX-License-Identifier: MIT */
/*
 * ipibench ABI for user space: XEN_SYSCTL_ipibench from the hypervisor's
 * own public header, hv-patch/src/xen/include/public/ipibench.h (the file
 * the series adds to Xen, not a copy), and the TRC_HW_APIC trace events
 * (ipibench/apic-trace.h).
 *
 * That header is one of Xen's tools-only public headers: it needs
 * __XEN_TOOLS__ and xen.h's uint64_aligned_t, XEN_GUEST_HANDLE_64 and
 * struct xenctl_bitmap, from the Xen public headers installed in
 * /usr/include/xen/ (Debian's libxen-dev).  Xen's own sysctl.h gives the
 * op number and the union member; the installed sysctl.h predates them,
 * so the op number is given here (probes/tests/test_abi_drift.c checks it
 * against every series' sysctl.h).
 */
#ifndef IPIBENCH_ABI_H
#define IPIBENCH_ABI_H

#ifndef __XEN_TOOLS__
#define __XEN_TOOLS__ 1
#endif

#include <stdint.h>
#include <xen/xen.h>

#include "hv-patch/src/xen/include/public/ipibench.h"
#include "ipibench/apic-trace.h"

#ifndef XEN_SYSCTL_ipibench
#define XEN_SYSCTL_ipibench                      31
#endif

/* struct xen_sysctl's union is 128 bytes: the request must fit. */
_Static_assert(sizeof(struct xen_sysctl_ipibench) <= 128,
	       "xen_sysctl_ipibench does not fit struct xen_sysctl");

#endif
