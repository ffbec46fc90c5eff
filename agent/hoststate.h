/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What changes IPI latency on a real host besides the x2APIC mode, as the
 * agent records it in each run's host_state (docs/results-schema.md) and
 * the report compares: idle states, frequency scaling, SMT, microcode,
 * the CPU model, the firmware's hotplug slots.  The pure parts, which the
 * runner's tests check without a hypervisor.
 */
#ifndef IPIBENCH_HOSTSTATE_H
#define IPIBENCH_HOSTSTATE_H

#include <stddef.h>

#include <jansson.h>

/*
 * The words of Xen's command line that pin host state (max_cstate=,
 * cpuidle, cpufreq=, smt=, ...), in their order, space-separated, into
 * OUT; "" when there are none.  Other words (x2apic-mode= above all, which
 * differs between the runs of a matrix by design) are left out.
 */
void hoststate_pins(const char *cmdline, char *out, size_t len);

/* The "microcode" field of /proc/cpuinfo TEXT's first CPU into OUT (Xen
 * forwards its own revision to dom0); 0, or -1 when there is none. */
int hoststate_microcode(const char *cpuinfo, char *out, size_t len);

/*
 * What xc_get_cpufreq_para() said of CPU 0: RC 0 with the driver's and the
 * governor's names (CPUFREQ_NAME_LEN bytes each, not necessarily
 * NUL-terminated) and turbo_enabled, or RC < 0 with ERR its errno.  The
 * fields read sit at the same offsets in Xen 4.17.5, 4.20.4 and staging
 * (struct xen_get_cpufreq_para: driver at 40, governor at 72, turbo at
 * 112), but a driver without governors (hwp, amd-cppc) leaves the
 * governor's bytes unset (staging) or fills them with its CPPC values
 * (4.18-4.20's union): its governor is not read.
 */
#define HOSTSTATE_CPUFREQ_NAME 16
struct hoststate_cpufreq {
	int rc, err;
	char driver[HOSTSTATE_CPUFREQ_NAME];
	char governor[HOSTSTATE_CPUFREQ_NAME];
	int turbo;
};

/*
 * host_state's three cpufreq keys from CF (a new object):
 *   cpufreq_driver:   Xen's driver name (acpi-cpufreq, powernow, hwp, ...),
 *                     "none" when Xen has no cpufreq on CPU 0 (ENODEV: no
 *                     Px support, cpufreq=none or dom0-kernel; EINVAL: no
 *                     performance states, as under QEMU, whose ACPI tables
 *                     have no _PSS), null when the query failed otherwise;
 *   cpufreq_governor: the governor's name, "none" without a driver, null
 *                     for a driver without governors or when unknown;
 *   turbo:            turbo_enabled (false: disabled or not supported),
 *                     null without a driver or when unknown.
 * A name that is not [A-Za-z0-9._-]+ is null.
 */
json_t *hoststate_cpufreq_json(const struct hoststate_cpufreq *cf);

#endif
