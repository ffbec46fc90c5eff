/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A skeleton host backend, to copy when adding one (as fio's
 * engines/skeleton_external.c).  It is built with the other backends so
 * that it keeps compiling against backend.h, but it is in no table: nothing
 * can select it.  The checklist in runner/backends.c says what else a new
 * backend needs.
 *
 * A backend answers one question: where does a Xen host in x2APIC mode
 * opts->mode come from?  The runner (cmd_run.c) calls run() once per run of
 * the matrix with a fresh workdir holding job.json; everything the backend
 * must know is in struct host_opts (its own settings in o->settings),
 * everything it reports goes in struct host_result.
 */
#include <stdio.h>

#include "runner/backend.h"

/*
 * The backend's own [host] keys fill a struct of its own (opaque to the
 * runner); a struct the unit tests need goes in a header beside the file
 * (qemu.h, reboot.h).
 */
struct skeleton_settings {
	char address[64];       /* [host] address */
	unsigned int port;      /* [host] port */
};

/*
 * Its table: a key, its rule, default and help (what `ipibench run --list`
 * shows and config.c checks by).  host_settings_verify() says what a table
 * must hold; a key every backend needs goes in host_common_settings[].
 */
static const struct key skeleton_settings[] = {
	HS_TEXT_KEY("address", struct skeleton_settings, address, "localhost",
		    "where the host is reached"),
	HS_UINT_KEY("port", struct skeleton_settings, port, 1, 65535, "22", "its port"),
	{ NULL },
};

/*
 * Reach (boot, or find) a Xen host in o->mode with o->cpus CPUs (and
 * o->maxcpus hotpluggable ones), run the agent there on o->workdir/job.json,
 * and bring o->workdir/agent.json back.  Stop the host as soon as the files
 * are safe, and leave no process behind: start children with host_spawn(),
 * which kills them with ipibench.  Within o->timeout_s for the whole.
 *
 * Fill in what was seen, even on failure (the runner records it):
 *   r->genapic         the APIC driver Xen switched to ("x2apic_phys", ...;
 *                      mode_genapic(o->mode) is the one asked for)
 *   r->intremap        1 if Xen said interrupt remapping is enabled
 *   r->x2apic_warning  1 if Xen overrode the requested mode
 *   r->agent_rc        the agent's exit status (-1 until it said it is done)
 *   r->t_genapic, t_dom0, t_done  seconds since the start, for progress
 *   r->xen_cmdline     the command line Xen booted with
 *
 * 0 on success.  -1 with one line in r->error (host_fail()) otherwise; say
 * what to do about it where there is something to do.
 */
static int skeleton_run(const struct host_opts *o, struct host_result *r)
{
	/* The struct of .settings_size bytes, its table's defaults and the config's keys. */
	const struct skeleton_settings *st = o->settings;

	r->agent_rc = -1;
	if (st)
		host_progress(o, "skeleton: ", "reaching %s:%u", st->address, st->port);
	/* "PREFIXmessage" on o->progress, unless o->quiet. */
	host_progress(o, "skeleton: ", "a Xen host in mode %s with %u CPUs", o->mode, o->cpus);
	/*
	 * Here: boot or reach the host; host_spawn() for commands, with their
	 * output into a log in o->workdir (console.log, agent.log) so a user
	 * can follow it: host_log_and_pipe() opens the log and a pipe to read
	 * the child through, host_log_write() copies each chunk.  A dom0 the
	 * runner is on can use host_agent_exec() (runner/backends/reboot.h),
	 * as local.c does.
	 */
	host_fail(r, "the skeleton backend reaches no host (mode %s)", o->mode);
	return -1;
}

/*
 * One line about the host for results.json, under the key in
 * .describe_key (the emulator's version, the machine's model, ...).
 * May be left out (.describe = NULL).
 */
static void skeleton_describe(const struct host_opts *o, char *buf, size_t len)
{
	snprintf(buf, len, "skeleton host, %u CPUs", o->cpus);
}

/* Named backend_<name>; its entry in host_backends[] makes it selectable. */
const struct host_backend_ops backend_skeleton = {
	.name = "skeleton",           /* [host] backend = skeleton */
	.help = "an example that reaches no host (a template, in no table)",
	.flags = 0,                   /* HB_EMULATED, HB_BOOTS_BUILD: backend.h */
	.settings = skeleton_settings,
	.settings_size = sizeof(struct skeleton_settings),
	.describe_key = "description",
	.run = skeleton_run,
	.describe = skeleton_describe,
};
