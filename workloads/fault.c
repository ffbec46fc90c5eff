/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fault: inject a fault into a hypervisor run and report what the host did
 * about it (tests/integration/test_faults.c; agent/workloads/fault_run.c
 * runs it).
 * A child process of the agent runs the 'victim' workload; after its
 * 'after_chunks'-th chunk the agent
 *   kill:       SIGKILLs the child (the process issuing the sysctls),
 *   offline:    takes 'offline_cpu' offline (xc_cpu_offline) and, once
 *               the child is done, online again,
 *   concurrent: (no fault) two children run the victim at once;
 *   hotplug:    takes 'offline_cpu' offline and online again with no run
 *               at all (no child, no victim: what a host's administrator
 *               does between runs);
 *   hold:       (no victim) the child is a looping owner: vector_capacity
 *               on 'vectors_mask' until it holds its vectors, then a fetch
 *               every 20 ms, forever, until the hypervisor refuses one;
 *   hold-offline: as hold, and once the vectors are held 'offline_cpu'
 *               goes offline (and, once the child is done, online again);
 *   pause:      SIGSTOPs the child for 'pause_ms' and lets it go on: its
 *               run neither continued nor fetched for that long, which the
 *               hypervisor abandons (ESRCH) or not by its idle timeout
 *               (ipibench-idle-timeout=);
 *   stall:      SIGSTOPs the child and waits for ever, printing nothing:
 *               what a lost IPI looks like from outside (no console line,
 *               no progress; the hypervisor reaps the abandoned run by its
 *               idle timer).  Only a runner's stall window ([host] stall)
 *               or timeout ends it; the workload never returns;
 * then checks the host: a next run, the vectors vector_capacity finds
 * (against a count taken before the fault), a device interrupt, and which
 * CPUs are online.
 */
#include <stdio.h>
#include <string.h>

#include "workloads/workloads.h"

static const char *const *actions(void)
{
	static const char *const names[] = { "kill", "offline", "concurrent", "hotplug", "hold",
					     "hold-offline", "pause", "stall", NULL };

	return names;
}

static const struct key params[] = {
	{ "action", KEY_CHOICE, 0, 0, "kill",
	  "kill (the child), offline (a CPU under it), concurrent (two children at once), "
	  "hotplug (a CPU offline and online with no run), hold (the child holds "
	  "vector_capacity's vectors and fetches forever), hold-offline (and a CPU "
	  "goes offline under it), pause (the child stopped for pause_ms, then going on) "
	  "or stall (the child stopped and the agent silent for "
	  "ever: a stall for the runner's stall window to catch)", .choices_fn = actions },
	{ "victim", KEY_TEXT, 0, 0, "flush_tlb_all",
	  "the workload type the child runs (its iterations, mask and cpu are these)", .flags = 0 },
	{ "iterations", KEY_UINT, 1, 1000000, "100000",
	  "the victim's iterations (when it takes them)", .flags = 0 },
	{ "mask", KEY_CPUS, 0, 0, "all", "the victim's mask (when it takes one)", .flags = 0 },
	WL_CPU,
	{ "after_chunks", KEY_UINT, 1, 1000000, "5",
	  "inject the fault once the child's run has done this many chunks", .flags = 0 },
	{ "offline_cpu", KEY_UINT, 1, 4095, "1", "offline, hotplug: the CPU taken offline", .flags = WL_F_CPU },
	{ "vectors_mask", KEY_CPUS, 0, 0, "1-2",
	  "the CPUs vector_capacity counts on before and after (all: slow under TCG)", .flags = 0 },
	{ "irq_cpu", KEY_UINT, 0, 4095, "1",
	  "the CPU the device interrupt of the check afterwards is bound to", .flags = WL_F_CPU },
	{ "pause_ms", KEY_UINT, 1, 600000, "10000",
	  "pause: how long the child is stopped between two calls of its run", .flags = 0 },
	{ "timeout_ms", KEY_UINT, 100, 3600000, "120000",
	  "how long a child may run before it is killed (and reported timed out)", .flags = 0 },
	{ NULL },
};

static int check(const json_t *p, char *err, size_t errlen)
{
	const char *victim = json_string_value(json_object_get(p, "victim"));
	const struct wl_type *t = victim ? wl_type_find(victim) : NULL;

	if (!t || !strcmp(victim, "fault")) {
		snprintf(err, errlen, "victim = '%s': expected a workload type other than fault",
			 victim ? victim : "");
		return -1;
	}
	return 0;
}

const struct wl_type wl_fault = {
	.type = "fault",
	.help = "kill the agent's child / offline a CPU in the middle of a run, two runs at once, "
		"or a CPU offline and online between runs",
	.params = params,
	.check = check,
};
