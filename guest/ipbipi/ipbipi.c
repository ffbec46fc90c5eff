// SPDX-License-Identifier: GPL-2.0-only
/*
 * ipbipi: the guest IPI workload of guest/ (docs/guests.md) for comparing a
 * guest's two IPI paths in one kernel.  A kthread bound to CPU 0 sends
 * reschedule IPIs to CPU 1, one every interval_us, until the module is
 * removed, by path:
 *   kernel  the kernel's own smp_ops (in a Xen PVH or HVM guest with the
 *           vector callback: an event channel, EVTCHNOP_send, delivered
 *           on Xen's upcall vector);
 *   apic    the local APIC driver directly (apic->send_IPI: in an x2APIC
 *           guest a write to the ICR MSR, which Xen's vlapic emulates and
 *           injects as vector 0xfd).
 * The reschedule vector's handler does nothing when there is nothing to
 * run, so each IPI costs its delivery only.  /sys/module/ipbipi/
 * parameters/sent counts the IPIs sent.  GPL: apic and smp_ops are
 * EXPORT_SYMBOL_GPL.  Built against the guest kernel's headers by
 * images/guest-initramfs.sh.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/apic.h>
#include <asm/irq_vectors.h>

static char *path = "kernel";
module_param(path, charp, 0444);
MODULE_PARM_DESC(path, "kernel (smp_ops) or apic (apic->send_IPI)");
static unsigned int interval_us = 1000;
module_param(interval_us, uint, 0444);
MODULE_PARM_DESC(interval_us, "microseconds between two IPIs (so none coalesce)");
static unsigned long sent;
module_param(sent, ulong, 0444);
MODULE_PARM_DESC(sent, "IPIs sent so far");

static struct task_struct *task;
static bool use_apic;

static int sender(void *unused)
{
	while (!kthread_should_stop()) {
		if (use_apic)
			apic->send_IPI(1, RESCHEDULE_VECTOR);
		else
			smp_ops.smp_send_reschedule(1);
		WRITE_ONCE(sent, sent + 1);
		usleep_range(interval_us, interval_us + interval_us / 10 + 1);
	}
	return 0;
}

static int __init ipbipi_init(void)
{
	if (!strcmp(path, "apic"))
		use_apic = true;
	else if (strcmp(path, "kernel"))
		return -EINVAL;
	if (!cpu_online(0) || !cpu_online(1) || !interval_us)
		return -EINVAL;
	task = kthread_create(sender, NULL, "ipbipi");
	if (IS_ERR(task))
		return PTR_ERR(task);
	kthread_bind(task, 0);
	wake_up_process(task);
	return 0;
}

static void __exit ipbipi_exit(void)
{
	kthread_stop(task);
}

module_init(ipbipi_init);
module_exit(ipbipi_exit);
MODULE_DESCRIPTION("ipibench guest IPI workload: reschedule IPIs by the kernel's path or the APIC's");
MODULE_LICENSE("GPL");
