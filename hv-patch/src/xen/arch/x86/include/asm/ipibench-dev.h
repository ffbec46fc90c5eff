/* @file from=ipibench-dev */
/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __ASM_X86_IPIBENCH_DEV_H__
#define __ASM_X86_IPIBENCH_DEV_H__

/* @if from=ipibench-dev-msi */
#include <xen/cpumask.h>
#include <xen/percpu.h>
/* @end */
#include <xen/types.h>

/*
 * ipibench's test device (ipibench-dev.c): a PCI device owned by Xen whose
/* @if from=ipibench-dev-msi */
 * MSI the irq_delivery benchmark raises.  Without one, every call but
 * ipibench_dev_present() and ipibench_dev_sbdf() is invalid, and
 * ipibench_dev_bind() fails with -ENODEV.
/* @end */
/* @if until=ipibench-dev-msi */
 * MSI the irq_delivery benchmark raises.
/* @end */
 */
bool ipibench_dev_present(void);
uint32_t ipibench_dev_sbdf(void);       /* ~0 when absent */
/* @if from=ipibench-dev-msi */

/*
 * Route the MSI to 'mask' (irq_set_affinity(), then interrupts until the
 * move has completed).  -EBUSY: it did not complete in time.
 */
int ipibench_dev_bind(const cpumask_t *mask);

/*
 * Raise the interrupt; ipibench_dev_handled_cpu() is -1 until the handler
 * ran (it acknowledges the device itself).
 */
void ipibench_dev_ring(void);
int ipibench_dev_handled_cpu(void);

/* The IRTE index of the MSI, -1 when not remapped. */
int ipibench_dev_irte(void);
/* The MSI address (low 32 bits) and data programmed in the device. */
void ipibench_dev_msi_msg(uint32_t *addr_lo, uint32_t *data);

/* Device interrupts handled, per CPU, since boot (binding's own apart). */
DECLARE_PER_CPU(unsigned long, ipibench_dev_irqs);
/* @end */

#endif /* __ASM_X86_IPIBENCH_DEV_H__ */
