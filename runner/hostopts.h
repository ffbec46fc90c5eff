/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Defaults and file locations for host_opts, shared by boot, host and run. */
#ifndef IPIBENCH_HOSTOPTS_H
#define IPIBENCH_HOSTOPTS_H

#include <stdbool.h>

#include "runner/backend.h"

/* Paths of the built hypervisor and dom0 image under build_dir(). */
struct host_paths {
	char xen[4096], kernel[4096], initrd[4096];
	char qemu[4096];   /* make qemu's emulator ([host] qemu = built) */
};

void host_paths_default(struct host_paths *p);
/* [host] stall's default (backends.c's table says it too): seconds. */
#define HOST_STALL_DEFAULT 300
/* Defaults for a host of N CPUs: IPIBENCH_MODE_DEFAULT, no settings, progress on stderr. */
void host_opts_default(struct host_opts *o, unsigned int cpus);
/*
 * The default timeout for a boot of N CPUs and its job (seconds, TCG; a
 * single-threaded TCG boot grows about linearly, a multi-threaded one about
 * as N^2.8).
 */
unsigned int host_default_timeout(unsigned int cpus, bool tcg_single);
/* A build's build-info (version, source, series) is read by runner/xenbuild.h. */

#endif
