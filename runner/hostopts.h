/* Defaults and file locations for host_opts, shared by boot and run. */
#ifndef IPIBENCH_HOSTOPTS_H
#define IPIBENCH_HOSTOPTS_H

#include "runner/backend.h"

/* Paths of the built hypervisor and dom0 image under build_dir(). */
struct host_paths {
	char xen[4096], kernel[4096], initrd[4096], build_info[4096];
};

/*
 * QEMU's TCG threading for the embedded host: "multi" (one host thread per
 * vCPU, QEMU's own default for x86 on x86) or "single" (one host thread
 * running the vCPUs in turn).  Multi stays the default: every committed
 * result was measured with it, and README.md ("What an emulated time
 * means") shows that under either threading a time per flush is mostly the
 * host's scheduling of QEMU's threads, so switching would change what the
 * figures mean without making them hardware times.  Single is the lever for
 * big boots (96 CPUs up in 28 s instead of 146 s here, loaded).
 */
#define TCG_DEFAULT "multi"
/* "multi" or "single": 1; anything else: 0. */
int tcg_threading_ok(const char *s);

void host_paths_default(struct host_paths *p);
/* Defaults for the embedded QEMU host with N CPUs. */
void host_opts_default(struct host_opts *o, struct host_paths *p, unsigned int cpus);
/* The default timeout for a boot of N CPUs (seconds, TCG). */
unsigned int host_default_timeout(unsigned int cpus);
/* Read KEY=VALUE from build/xen/build-info into buf ("" when missing). */
const char *build_info_get(const char *key, char *buf, size_t len);

#endif
