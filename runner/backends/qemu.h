/*
 * The qemu backend's command line, apart from the process handling so that
 * unit tests can check it.
 */
#ifndef IPIBENCH_QEMU_H
#define IPIBENCH_QEMU_H

#include "runner/backend.h"

#define QEMU_MAX_ARGS 64
#define QEMU_ARG_BUFS 16
#define QEMU_ARG_LEN 1024

/*
 * The test device Xen takes for irq_delivery (hv-patch's ipibench-dev.c):
 * QEMU's edu, PCI 1234:11e8, on q35's root bus; its MSI goes through the
 * intel-iommu's interrupt remapping.  Left out with host_opts.no_test_device
 * ([host] test_device = false, boot --no-test-device).
 */
#define QEMU_TEST_DEVICE "edu,bus=pcie.0"

/*
 * QEMU's argv (NULL-terminated) for O, its formatted strings in BUFS;
 * r->xen_cmdline gets Xen's command line.  The number of arguments, or -1
 * with r->error set (a TCG threading other than multi or single, a path
 * with a comma).
 */
int qemu_build_argv(const struct host_opts *o, char **argv,
		    char bufs[QEMU_ARG_BUFS][QEMU_ARG_LEN], struct host_result *r);

#endif
