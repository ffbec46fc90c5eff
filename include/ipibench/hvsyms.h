/* SPDX-License-Identifier: MIT */
/*
 * The series' own functions that ipibench finds by name in the
 * hypervisor's symbols (xen-syms): the instruction counts' windows
 * (runner/insncount.c hands their addresses to the TCG plugin,
 * tcgplug/README.md).  Renaming one in hv-patch/src/xen/arch/x86/ipibench.c
 * breaks the counts, so the names are kept here once and
 * probes/tests/test_abi_drift.c checks that every line's series defines
 * each of them.  Xen's own functions the counts mark (send_IPI_mask,
 * flush_area_mask, invalidate_interrupt, do_IRQ) are upstream's, looked
 * up the same way and refused by name when missing.
 */
#ifndef IPIBENCH_HVSYMS_H
#define IPIBENCH_HVSYMS_H

#define IPIBENCH_SYM_SYSCTL  "ipibench_sysctl"     /* a run's start */
#define IPIBENCH_SYM_CHUNK   "bench_chunk"         /* a chunk on the sender */
#define IPIBENCH_SYM_WAIT    "wait_call"           /* ipi_mask, pingpong: the wait */
#define IPIBENCH_SYM_HANDLER "bench_ipi_interrupt" /* the benchmark vector's handler */

/* All of them, for the checks. */
#define IPIBENCH_SYMS { IPIBENCH_SYM_SYSCTL, IPIBENCH_SYM_CHUNK, IPIBENCH_SYM_WAIT, \
			IPIBENCH_SYM_HANDLER }

#endif
