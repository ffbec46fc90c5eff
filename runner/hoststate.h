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

#endif
