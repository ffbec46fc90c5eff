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
}

unsigned int host_default_timeout(unsigned int cpus)
{
	/* Measured here: 8 CPUs ~40 s to the agent, 96 CPUs ~3 min. */
	return 240 + 4 * cpus;
}

void host_opts_default(struct host_opts *o, unsigned int cpus)
{
	memset(o, 0, sizeof(*o));
	o->mode = ipibench_mode_name(IPIBENCH_MODE_DEFAULT);
	o->cpus = cpus;
	o->maxcpus = cpus;
	o->timeout_s = host_default_timeout(cpus);
	o->progress = stderr;
}
