/* SPDX-License-Identifier: MIT */
/*
 * The two ways a guest sends its IPIs, as configs ([guest] ipi_path),
 * results.json (guest_runs[].ipi_path), the trace reader (the path it sees
 * in a trace) and the report name them; and the two ways an HVM guest's
 * device MSIs reach it ([guest] msi_path, guest_runs[].msi_path).  The one
 * home of these names.
 *
 *   evtchn  the kernel's smp_ops in a Xen guest: an event channel
 *           (EVTCHNOP_send), delivered on Xen's upcall vector (the seed's
 *           "before")
 *   apic    apic->send_IPI: an x2APIC ICR write to Xen's emulated local
 *           APIC, injected as the IPI's own vector (the seed's "after")
 *
 *   pirq    an HVM Linux guest's own choice on Xen: its MSIs mapped to
 *           pirqs, delivered as events on Xen's upcall vector (the seed's
 *           "before")
 *   apic    xen_nopv: the MSI's own vector through the emulated local
 *           APIC (the seed's "after")
 */
#ifndef IPIBENCH_IPIPATHS_H
#define IPIBENCH_IPIPATHS_H

#define IPIBENCH_IPI_PATH_EVTCHN "evtchn"
#define IPIBENCH_IPI_PATH_APIC "apic"
#define IPIBENCH_MSI_PATH_PIRQ "pirq"
#define IPIBENCH_MSI_PATH_APIC "apic"

#endif
