/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ipibench/modes.h"
#include "runner/hostopts.h"
#include "runner/util.h"

void host_paths_default(struct host_paths *p)
{
	const char *b = build_dir();

	snprintf(p->xen, sizeof(p->xen), "%s/xen/xen", b);
	snprintf(p->kernel, sizeof(p->kernel), "%s/dom0/vmlinux", b);
	snprintf(p->initrd, sizeof(p->initrd), "%s/dom0/initrd.gz", b);
	snprintf(p->qemu, sizeof(p->qemu), "%s/qemu/qemu-system-x86_64", b);
}

unsigned int host_default_timeout(unsigned int cpus, bool tcg_single)
{
	/*
	 * Measured under QEMU TCG (mixed mode, to the agent): 8 CPUs ~40 s, 96 ~80 s
	 * idle and ~250 s loaded; multi-threaded TCG grows about as N^2.8
	 * (256 CPUs: 946 s idle), single-threaded about linearly (512 CPUs:
	 * 289 s idle, 128: 255 s on a busy machine).  Twice the multi curve on
	 * top of the old 240 + 4 per CPU.
	 */
	double t = 240.0 + 4.0 * cpus;

	if (!tcg_single)
		t += 2.0 * 946.0 * pow(cpus / 256.0, 2.8);
	return t > 86400 ? 86400 : (unsigned int)t;
}

void host_opts_default(struct host_opts *o, unsigned int cpus)
{
	memset(o, 0, sizeof(*o));
	o->mode = ipibench_mode_name(IPIBENCH_MODE_DEFAULT);
	o->cpus = cpus;
	o->maxcpus = cpus;
	o->timeout_s = host_default_timeout(cpus, false);
	o->stall_s = HOST_STALL_DEFAULT;
	o->progress = stderr;
}
