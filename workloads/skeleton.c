/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * skeleton: a commented template for a new workload's declaration (as
 * fio's engines/skeleton_external.c).  Not in list.h, so neither registry
 * has it; copy this file to NAME.c and skeleton_run.c to NAME_run.c,
 * rename wl_skeleton/workload_skeleton, and follow the checklist in
 * list.h.
 *
 * This file is what a config's [workload:NAME] and a job's entry are
 * checked against, by the runner (runner/config.c, `ipibench boot --job`)
 * and by the agent alike, so it includes no Xen header: the host binary
 * links it.
 */
#include <stdio.h>

#include "workloads/workloads.h"

/*
 * Each param once, a row of lib/keys.h's table (workloads.h says how):
 * key, type (KEY_UINT, KEY_BOOL, KEY_CPUS, KEY_TEXT, KEY_CHOICE,
 * KEY_CHOICES), min and max (KEY_UINT: the range; KEY_CHOICES: how many
 * names), the default as a config would write it (NULL: required), one
 * help line (`ipibench run --list` shows it), then by name .flags (WL_F_*)
 * and for KEY_CHOICE and KEY_CHOICES .choices_fn, the function giving its
 * names (fault.c's actions).  The run function gets every default filled in: write none
 * anywhere else.
 */
static const struct key params[] = {
	WL_ITERATIONS("1000"),   /* 1..1000000, Xen's own limit */
	WL_CPU,                  /* the CPU it runs on, 0 */
	{ "depth", KEY_UINT, 1, 64, "4", "an example of a param of its own", .flags = 0 },
	WL_TRACE,                /* xentrace while it runs, done by the agent core */
	{ NULL },
};

/* Rules across params, after each passed its own; NULL when there are none. */
static int check(const json_t *p, char *err, size_t errlen)
{
	if (json_integer_value(json_object_get(p, "depth")) >
	    json_integer_value(json_object_get(p, "iterations"))) {
		snprintf(err, errlen, "depth must not exceed iterations");
		return -1;
	}
	return 0;
}

const struct wl_type wl_skeleton = {
	.type = "skeleton",   /* [workload:NAME] type = skeleton */
	.help = "a template: copy it to add a workload",
	.params = params,
	.check = check,
};
