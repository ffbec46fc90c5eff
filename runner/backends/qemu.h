/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The qemu backend's command line, apart from the process handling so that
 * unit tests can check it.
 */
#ifndef IPIBENCH_QEMU_H
#define IPIBENCH_QEMU_H

#include "runner/backend.h"

/*
 * The qemu backend's settings (struct host_opts's settings): the [host]
 * keys of its table (qemu.c), and ipibench boot's image overrides.
 */
struct qemu_settings {
	unsigned int mem_mb;     /* [host] memory */
	unsigned int dom0_mem_mb;/* [host] dom0_memory */
	unsigned int disk_mb;    /* [host] disk_mb: > 0 attaches a scratch virtio disk */
	char tcg[8];             /* [host] tcg: TCG threading, multi | single */
	char emulator[8];        /* [host] qemu: system | built (QEMU_EMULATOR_*) */
	char cmdline[512];       /* [host] cmdline: appended to Xen's command line */
	char dom0_cmdline[256];  /* [host] dom0_cmdline: dom0 kernel's command line */
	int test_device;         /* [host] test_device: attach QEMU_TEST_DEVICE */
	int insn_counts;         /* [host] insn_counts: load tcgplug's libipicount.so */
	/*
	 * Not a [host] key: ipibench boot --insn-calls, the plugin's calls=all
	 * (every IPI path call of the boot, by ICR writes per call, for any
	 * build; agent.json's "insn_calls").  Not with insn_counts.
	 */
	int insn_calls;
	/*
	 * Not [host] keys: ipibench boot's --xen, --kernel, --initrd and
	 * --qemu.  NULL: the built images (host_paths_default()) and
	 * QEMU_BINARY from PATH.
	 */
	const char *xen, *kernel, *initrd, *qemu;
};

/*
 * QEMU's TCG threading for the embedded host: "multi" (one host thread per
 * vCPU, QEMU's own default for x86 on x86) or "single" (one host thread
 * running the vCPUs in turn).  Multi stays the default: every committed
 * result was measured with it, and docs/statistics.md (what an emulated
 * time can and cannot show) says that under either threading a time per flush is mostly the
 * host's scheduling of QEMU's threads, so switching would change what the
 * figures mean without making them hardware times.  Single is the lever for
 * big boots (96 CPUs up in 28 s instead of 146 s on a busy machine,
 * docs/measurements.md).
 */
#define TCG_DEFAULT "multi"
/* "multi" or "single" (the [host] tcg choices): 1; anything else: 0. */
int tcg_threading_ok(const char *s);

#define QEMU_BINARY "qemu-system-x86_64"
/*
 * [host] qemu: "system", QEMU_BINARY on PATH (Debian's package, what
 * make deps installs), or "built", make qemu's (Debian 13's source with
 * scripts/emu/'s fixes, host_paths_default()).  System stays the default:
 * it needs no build.  Built is the lever for big boots: its
 * qemu-tcg-pcrel-jmp-cache.patch takes a cost per CPU off every translated
 * block the guest invalidates (docs/measurements.md, "Boot times").
 */
#define QEMU_EMULATOR_DEFAULT "system"

extern const struct host_backend_ops backend_qemu;

#define QEMU_MAX_ARGS 64
#define QEMU_ARG_BUFS 16
#define QEMU_ARG_LEN 1024

/*
 * The test device Xen takes for irq_delivery (hv-patch's ipibench-dev.c):
 * QEMU's edu, PCI 1234:11e8, on q35's root bus at a fixed address; its MSI
 * goes through the intel-iommu's interrupt remapping.  Xen takes only the
 * device its command line names (ipibench-dev=QEMU_TEST_DEVICE_SBDF,
 * passed with the device).  Both are left out with [host] test_device =
 * false (boot --no-test-device).
 */
/* The machine: q35 without the SATA and SMBus controllers it has by default
 * (with -nodefaults, its only PCI devices are the host bridge and the LPC). */
#define QEMU_MACHINE "q35,kernel-irqchip=split,sata=off,smbus=off"
#define QEMU_TEST_DEVICE "edu,bus=pcie.0,addr=0x1"
#define QEMU_TEST_DEVICE_SBDF "0000:00:01.0"
/*
 * The hypervisor's idle timeout on an emulated host: a run its owner
 * neither continues nor fetches for this long is abandoned (ESRCH).
 * Hardware's default (5 s) is too short here, where dom0 may go unscheduled
 * for seconds between two calls (docs/stalls.md, "Runs ended as
 * abandoned"); it decides only when an abandoned run is reaped, not what a
 * run measures.  [host] cmdline comes after it and may set another.
 */
#define QEMU_IDLE_TIMEOUT "ipibench-idle-timeout=60"
/*
 * And its run lifetime: every run ends this long after its start (ETIME).
 * Hardware's default (60 s) is millions of calls there, few here; and a
 * run that stops making progress must last until the stall window ([host]
 * stall) captures it, not be cut short first (docs/stalls.md, "A flush
 * run stuck in a chunk").  It only bounds how long a run holds its CPUs,
 * vectors and IRQs.  [host] cmdline comes after it and may set another.
 */
#define QEMU_RUN_LIFETIME "ipibench-run-lifetime=600"

/*
 * QEMU's argv (NULL-terminated) for O (o->settings: a struct
 * qemu_settings), its formatted strings in BUFS;
 * r->xen_cmdline gets Xen's command line.  The number of arguments, or -1
 * with r->error set (a TCG threading other than multi or single, a path
 * with a comma).
 */
int qemu_build_argv(const struct host_opts *o, char **argv,
		    char bufs[QEMU_ARG_BUFS][QEMU_ARG_LEN], struct host_result *r);

#endif
