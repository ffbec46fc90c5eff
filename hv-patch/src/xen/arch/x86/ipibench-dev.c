/* @file from=ipibench-dev */
/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ipibench's test device: a PCI device Xen keeps for itself so that the
 * irq_delivery benchmark raises a real device MSI, which reaches its CPU
 * through the IOMMU's interrupt remapping like any other device interrupt.
 *
 * The device is QEMU's "edu" (PCI 1234:11e8, QEMU's docs/specs/edu.rst):
 * BAR0 is MMIO, a write to 0x60 raises its interrupt (an MSI once MSI is
 * enabled), a write to 0x64 acknowledges it.  Nothing is taken unless
 * the command line names it: "ipibench-dev=[SEG:]BUS:DEV.FUNC".  It is
 * taken at boot, before dom0 exists; from then on dom0 sees its
 * configuration space and its BAR read-only.  A device that is not a
 * 1234:11e8, has no MSI or no 32-bit BAR0, or whose set-up fails is left
 * as it was found: not hidden, writable, its command register (bus
 * mastering included) restored, MSI off.
/* @if from=ipibench-dev-msi */
 *
 * The IRQ is Xen's own (create_irq(), pci_enable_msi(), setup_msi_irq()).
 * Binding it to CPUs takes Xen's path for moving an IRQ: irq_set_affinity()
 * asks for the move, the next acknowledgement of the interrupt carries it
 * out (set_msi_affinity(), which rewrites the IRTE when interrupts are
 * remapped), the first interrupt at the new destination releases the old
 * vector; fixup_irqs() moves it off a CPU that goes offline.
/* @end */
 */

/* @if from=ipibench-dev-msi */
#include <xen/cpumask.h>
/* @end */
#include <xen/errno.h>
#include <xen/init.h>
/* @if from=ipibench-dev-msi */
#include <xen/iommu.h>
#include <xen/irq.h>
/* @end */
#include <xen/lib.h>
#include <xen/param.h>
#include <xen/pci.h>
#include <xen/pci_regs.h>
/* @if from=ipibench-dev-msi */
#include <xen/percpu.h>
/* @end */
#include <xen/rangeset.h>
/* @if from=ipibench-dev-msi */
#include <xen/time.h>
/* @end */
#include <xen/vmap.h>
#include <asm/io.h>
#include <asm/ipibench-dev.h>
/* @if from=ipibench-dev-msi */
#include <asm/msi.h>
/* @end */

#define EDU_VENDOR         0x1234
#define EDU_DEVICE         0x11e8
#define EDU_REG_ID         0x00    /* 0xRRrr00edu: major, minor, 0xed */
/* @if from=ipibench-dev-msi */
#define EDU_REG_IRQ_STATUS 0x24
#define EDU_REG_IRQ_RAISE  0x60
#define EDU_REG_IRQ_ACK    0x64
#define EDU_IRQ_BIT        0x1

/*
 * How long binding may take: two interrupts (the move, then its completion
 * at the new destination), or more while an earlier move completes.
 */
#define BIND_WAIT          MILLISECS(20)
/* @end */

static struct {
    bool named;          /* ipibench-dev=SBDF */
    pci_sbdf_t sbdf;
    void __iomem *base;  /* BAR0, NULL while absent */
/* @if from=ipibench-dev-msi */
    int irq;
    struct msi_desc *msi_desc;
/* @end */
    unsigned int pos;    /* MSI capability */
/* @if from=ipibench-dev-msi */
    int handled_cpu;     /* last CPU the handler ran on, -1 after ring */
    bool binding;        /* ipibench_dev_bind()'s rings: not counted */
/* @end */
/* @if from=ipibench-dev-msi */
} dev = { .irq = -1 };
/* @end */
/* @if until=ipibench-dev-msi */
} dev;
/* @end */

/* @if from=ipibench-dev-msi */
DEFINE_PER_CPU(unsigned long, ipibench_dev_irqs);

/* @end */
static int __init cf_check parse_ipibench_dev(const char *s)
{
    unsigned int seg, bus, slot, func;
    bool def_seg;
    const char *e;

    /* parse_pci_seg() writes def_seg: NULL would fault before the console. */
    e = parse_pci_seg(s, &seg, &bus, &slot, &func, &def_seg);
    if ( !e || *e )
        return -EINVAL;
    dev.sbdf = PCI_SBDF(seg, bus, slot, func);
    dev.named = true;

    return 0;
}
custom_param("ipibench-dev", parse_ipibench_dev);

/* @if from=ipibench-dev-msi */
/*
 * The handler records its CPU, then acknowledges the device as a driver
 * would: the acknowledgement is outside what the ringing CPU times.
 */
/* @end */
/* @if from=ipibench-dev-msi line=4.17 */
static void cf_check dev_interrupt(int irq, void *dev_id,
                                  struct cpu_user_regs *regs)
/* @end */
/* @if from=ipibench-dev-msi line=staging,4.20 */
static void cf_check dev_interrupt(int irq, void *dev_id)
/* @end */
/* @if from=ipibench-dev-msi */
{
    if ( !read_atomic(&dev.binding) )
        this_cpu(ipibench_dev_irqs)++;
    write_atomic(&dev.handled_cpu, smp_processor_id());
    writel(EDU_IRQ_BIT, dev.base + EDU_REG_IRQ_ACK);
}

static struct irqaction dev_action = {
    .handler = dev_interrupt,
    .name    = "ipibench-dev",
};

/* @end */
static bool __init is_edu(pci_sbdf_t sbdf)
{
    return pci_conf_read16(sbdf, PCI_VENDOR_ID) == EDU_VENDOR &&
           pci_conf_read16(sbdf, PCI_DEVICE_ID) == EDU_DEVICE;
}

/* @if from=ipibench-dev-msi */
/*
 * The device's MSI, on an IRQ of Xen's with dev_action as its handler.  On
 * failure nothing is left: MSI off in the device, the IRQ freed.
 */
static int __init setup_msi(void)
{
    struct msi_info msi = { .sbdf = dev.sbdf, .entry_nr = 1 };
    struct msi_desc *msi_desc = NULL;
    struct irq_desc *desc;
    struct pci_dev *pdev;
    unsigned long flags;
    int rc;

    rc = create_irq(NULL, false);
    if ( rc < 0 )
        return rc;
    msi.irq = rc;

    pcidevs_lock();
    /* Known to Xen once it has scanned the bus (iommu_hardware_setup()). */
    pdev = pci_get_pdev(NULL, msi.sbdf);
/* @end */
/* @if from=ipibench-dev-msi line=4.17 */
    rc = pdev ? pci_enable_msi(&msi, &msi_desc) : -ENODEV;
/* @end */
/* @if from=ipibench-dev-msi line=staging,4.20 */
    rc = pdev ? pci_enable_msi(pdev, &msi, &msi_desc) : -ENODEV;
/* @end */
/* @if from=ipibench-dev-msi */
    if ( !rc )
    {
        desc = irq_to_desc(msi.irq);
        spin_lock_irqsave(&desc->lock, flags);
        rc = setup_msi_irq(desc, msi_desc);
        spin_unlock_irqrestore(&desc->lock, flags);
    }
    if ( rc && msi_desc )
    {
        pci_disable_msi(msi_desc);
        msi_free_irq(msi_desc);
    }
    pcidevs_unlock();
    if ( rc )
    {
        if ( !msi_desc )
            destroy_irq(msi.irq);
        return rc;
    }

    rc = setup_irq(msi.irq, 0, &dev_action);
    if ( rc )
    {
        pcidevs_lock();
        pci_disable_msi(msi_desc);
        msi_free_irq(msi_desc);
        pcidevs_unlock();
        return rc;
    }

    dev.irq = msi.irq;
    dev.msi_desc = msi_desc;

    return 0;
}

/* Undo setup_msi(). */
static void __init release_msi(void)
{
    release_irq(dev.irq, NULL);
    pcidevs_lock();
    pci_disable_msi(dev.msi_desc);
    msi_free_irq(dev.msi_desc);
    pcidevs_unlock();
    dev.msi_desc = NULL;
    dev.irq = -1;
}

/* @end */
/*
 * Take the device named on the command line.  Each step that fails undoes
 * the ones before it, so that dom0 gets the device as firmware left it;
 * pci_ro_device(), which cannot be undone, comes last.
 */
static int __init cf_check ipibench_dev_init(void)
{
    uint64_t bar;
    uint16_t cmd;
    int rc;

    if ( !dev.named )
        return 0;
    if ( !is_edu(dev.sbdf) )
    {
        printk(XENLOG_WARNING "ipibench: %pp is not a test device (%#x:%#x)\n",
               &dev.sbdf, pci_conf_read16(dev.sbdf, PCI_VENDOR_ID),
               pci_conf_read16(dev.sbdf, PCI_DEVICE_ID));
        return 0;
    }

/* @if line=4.17 */
    dev.pos = pci_find_cap_offset(dev.sbdf.seg, dev.sbdf.bus, dev.sbdf.dev,
                                  dev.sbdf.fn, PCI_CAP_ID_MSI);
/* @end */
/* @if line=staging,4.20 */
    dev.pos = pci_find_cap_offset(dev.sbdf, PCI_CAP_ID_MSI);
/* @end */
    bar = pci_conf_read32(dev.sbdf, PCI_BASE_ADDRESS_0);
    if ( !dev.pos || (bar & PCI_BASE_ADDRESS_SPACE_IO) ||
         (bar & PCI_BASE_ADDRESS_MEM_TYPE_MASK) ==
         PCI_BASE_ADDRESS_MEM_TYPE_64 ||
         !(bar & PCI_BASE_ADDRESS_MEM_MASK) )
    {
        printk(XENLOG_WARNING "ipibench: %pp: no MSI or no 32-bit BAR0\n",
               &dev.sbdf);
        return 0;
    }
    bar &= PCI_BASE_ADDRESS_MEM_MASK;

    /* Dom0 may map its BAR, but not write to it (ring it). */
    rc = rangeset_add_singleton(mmio_ro_ranges, PFN_DOWN(bar));
    if ( rc )
    {
        printk(XENLOG_WARNING "ipibench: %pp: BAR0 not made read-only (%d)\n",
               &dev.sbdf, rc);
        return 0;
    }

    /* Memory decoding for BAR0, bus mastering for its MSI writes. */
    cmd = pci_conf_read16(dev.sbdf, PCI_COMMAND);
    pci_conf_write16(dev.sbdf, PCI_COMMAND,
                     cmd | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);

    dev.base = ioremap(bar, PAGE_SIZE);
    if ( !dev.base )
    {
        rc = -ENOMEM;
        goto fail;
    }
    if ( (readl(dev.base + EDU_REG_ID) & 0xff) != 0xed )
    {
        printk(XENLOG_WARNING "ipibench: %pp: unexpected ID %#x\n",
               &dev.sbdf, readl(dev.base + EDU_REG_ID));
        rc = -ENODEV;
        goto fail;
    }

/* @if from=ipibench-dev-msi */
    rc = setup_msi();
    if ( rc )
        goto fail;

/* @end */
    /* Owned by Xen: dom0 can neither reprogram its MSI nor ring it. */
    rc = pci_ro_device(dev.sbdf.seg, dev.sbdf.bus, dev.sbdf.devfn);
/* @if from=ipibench-dev-msi */
    if ( rc )
    {
        release_msi();
        goto fail;
    }

    printk(XENLOG_INFO "ipibench: test device %pp, IRQ %d, IRTE %d\n",
           &dev.sbdf, dev.irq, ipibench_dev_irte());
/* @end */
/* @if until=ipibench-dev-msi */
    if ( rc )
        goto fail;

    printk(XENLOG_INFO "ipibench: test device %pp\n", &dev.sbdf);
/* @end */

    return 0;

 fail:
    printk(XENLOG_WARNING "ipibench: %pp: not taken, left to dom0 (%d)\n",
           &dev.sbdf, rc);
    if ( dev.base )
        iounmap(dev.base);
    dev.base = NULL;
    pci_conf_write16(dev.sbdf, PCI_COMMAND, cmd);
    if ( rangeset_remove_singleton(mmio_ro_ranges, PFN_DOWN(bar)) )
        printk(XENLOG_WARNING "ipibench: %pp: BAR0 left read-only\n",
               &dev.sbdf);

    return 0;
}
__initcall(ipibench_dev_init);

bool ipibench_dev_present(void)
{
/* @if from=ipibench-dev-msi */
    return dev.irq >= 0;
/* @end */
/* @if until=ipibench-dev-msi */
    return dev.base;
/* @end */
}

uint32_t ipibench_dev_sbdf(void)
{
    return ipibench_dev_present() ? dev.sbdf.sbdf : ~0U;
}

/* @if from=ipibench-dev-msi */
/* Whether the IRQ is at home on 'mask', no move pending or in progress. */
static bool bound_locked(const struct irq_desc *desc, const cpumask_t *mask)
{
    if ( (desc->status & IRQ_MOVE_PENDING) || desc->arch.move_in_progress )
        return false;

    return cpumask_subset(desc->arch.cpu_mask, mask) ||
           (cpumask_intersects(desc->arch.cpu_mask, mask) &&
            cpumask_equal(desc->affinity, mask));
}

int ipibench_dev_bind(const cpumask_t *mask)
{
    struct irq_desc *desc;
    unsigned long flags;
    s_time_t deadline = NOW() + BIND_WAIT;
    bool bound;

    if ( !ipibench_dev_present() )
        return -ENODEV;

    desc = irq_to_desc(dev.irq);
    /* The interrupts that move it are not the run's: leave them uncounted. */
    write_atomic(&dev.binding, true);
    for ( ; ; )
    {
        spin_lock_irqsave(&desc->lock, flags);
        bound = bound_locked(desc, mask);
        /*
         * Ask for the move as for any other IRQ.  The acknowledgement of
         * the next interrupt carries it out (move_native_irq(): masked, a
         * vector and destination on 'mask', the MSI message or IRTE
         * rewritten); one that finds an earlier move still in progress
         * drops the request, which is then made again here.
         */
        if ( !bound && (!(desc->status & IRQ_MOVE_PENDING) ||
                        !cpumask_equal(desc->arch.pending_mask, mask)) )
            irq_set_affinity(desc, mask);
        spin_unlock_irqrestore(&desc->lock, flags);

        if ( bound || NOW() > deadline )
            break;
        /*
         * An interrupt moves it, the next one, at the new destination,
         * completes the move (irq_complete_move()).
         */
        ipibench_dev_ring();
        while ( ipibench_dev_handled_cpu() < 0 && NOW() <= deadline )
            cpu_relax();
    }
    write_atomic(&dev.binding, false);

    return bound ? 0 : -EBUSY;
}

void ipibench_dev_ring(void)
{
    write_atomic(&dev.handled_cpu, -1);
    /* The handler's CPU must see -1 before the interrupt it writes after. */
    smp_mb();
    writel(EDU_IRQ_BIT, dev.base + EDU_REG_IRQ_RAISE);
}

int ipibench_dev_handled_cpu(void)
{
    return read_atomic(&dev.handled_cpu);
}

int ipibench_dev_irte(void)
{
    const struct msi_desc *msi_desc;

    if ( !ipibench_dev_present() || !iommu_intremap )
        return -1;
    msi_desc = irq_to_desc(dev.irq)->msi_desc;

    return msi_desc ? msi_desc->remap_index : -1;
}

void ipibench_dev_msi_msg(uint32_t *addr_lo, uint32_t *data)
{
    const struct msi_desc *msi_desc;

    *addr_lo = *data = 0;
    if ( !ipibench_dev_present() )
        return;
    msi_desc = irq_to_desc(dev.irq)->msi_desc;

    /* What the device itself sends (VT-d remapped: a handle, no CPU). */
    *addr_lo = pci_conf_read32(dev.sbdf, msi_lower_address_reg(dev.pos));
    *data = pci_conf_read16(dev.sbdf,
                            msi_data_reg(dev.pos,
                                         msi_desc->msi_attrib.is_64));
}

/* @end */
/*
 * Local variables:
 * mode: C
 * c-file-style: "BSD"
 * c-basic-offset: 4
 * tab-width: 4
 * indent-tabs-mode: nil
 * End:
 */
