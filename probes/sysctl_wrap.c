/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * xencall1() wrapped at link time (-Wl,--wrap=xencall1, runner/runner.mk):
 * libxenctrl's sysctls (its do_sysctl() is inline in each of its objects,
 * each calling xencall1) and the agent's own ipibench sysctl all pass here,
 * and sysctl_iface_call() gives them the interface version the hypervisor
 * expects.  Done at this one point rather than with copies of the few
 * sysctls (physinfo, readconsole, the trace buffer calls) because the
 * trace collector's buffer set-up is libxenctrl's and stays so.
 */
#include <stddef.h>
#include <stdint.h>

#include <xencall.h>
#include <xenctrl.h>
#include <xen/sysctl.h>

#include "ipibench/abi.h"
#include "probes/sysctl_wrap.h"
#include "probes/sysctliface.h"

_Static_assert(offsetof(struct xen_sysctl, cmd) == 0 &&
	       offsetof(struct xen_sysctl, interface_version) == 4,
	       "sysctliface.c reads cmd and interface_version at 0 and 4");

/*
 * The sysctls retried with another version: those whose layout is byte
 * for byte the same in Xen 4.17.5, 4.20.4 and staging (c447b7308b) --
 * struct xen_sysctl_readconsole, _tbuf_op and _physinfo, compared when
 * this list was written, _debug_keys (the 'V' dump irq_delivery reads the
 * IRTE from) and _cpu_hotplug (xc_cpu_offline/online: same two words and
 * op numbers), compared when staging was first booted with the series,
 * and the 128-byte union they sit in -- and the patch's own, one ABI for
 * every series (include/ipibench/abi.h).  host_state's two:
 * struct xen_sysctl_get_pmstat is the same in all three trees (compared
 * when host_state was added; PMSTAT_get_max_cx is all the agent asks),
 * and of struct xen_sysctl_pm_op the agent makes
 * XEN_SYSCTL_pm_op_get_max_cstate, whose cmd, cpuid and u32 answer sit at
 * the same offsets in all three, and GET_CPUFREQ_PARA (host_state's
 * cpufreq keys): struct xen_get_cpufreq_para is 120 bytes at offset 8 in
 * all three, its driver at 40, governor at 72 and turbo_enabled at 112
 * (compared with offsetof() on each tree's public/sysctl.h); only its
 * governor's bytes mean something else under a CPPC driver in 4.18-4.20
 * (the union with xen_cppc_para, 40 of its 44 bytes), which
 * hoststate_cpufreq_json() does not read.  These are all the sysctls the
 * agent makes.  Add one only after comparing its struct in every
 * supported tree.
 */
static const uint32_t same_layout[] = {
	XEN_SYSCTL_readconsole, XEN_SYSCTL_tbuf_op, XEN_SYSCTL_physinfo,
	XEN_SYSCTL_debug_keys, XEN_SYSCTL_cpu_hotplug, XEN_SYSCTL_ipibench,
	XEN_SYSCTL_get_pmstat, XEN_SYSCTL_pm_op,
};

static struct sysctl_iface iface = {
	0, same_layout, sizeof(same_layout) / sizeof(same_layout[0]),
};

int __real_xencall1(xencall_handle *xcall, unsigned int op, uint64_t arg1);
int __wrap_xencall1(xencall_handle *xcall, unsigned int op, uint64_t arg1);

static int real_sysctl(void *arg, void *buf)
{
	return __real_xencall1(arg, __HYPERVISOR_sysctl, (uint64_t)(uintptr_t)buf);
}

int __wrap_xencall1(xencall_handle *xcall, unsigned int op, uint64_t arg1)
{
	if (op != __HYPERVISOR_sysctl)
		return __real_xencall1(xcall, op, arg1);
	return sysctl_iface_call(&iface, (void *)(uintptr_t)arg1, real_sysctl, xcall);
}

uint32_t agent_sysctl_version(void)
{
	return iface.version;
}
