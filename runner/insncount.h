/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Instruction counts under emulation ([host] insn_counts, boot
 * --insn-counts): the runner's side of tcgplug/'s libipicount.so.  The
 * plugin's markers are functions of the hypervisor, read here from the
 * build's xen-syms (an ELF symbol table); its output (one line per closed
 * chunk, cumulative for the run) is folded into each workload of
 * agent.json as "insn_counts" (docs/results-schema.md).
 */
#ifndef IPIBENCH_INSNCOUNT_H
#define IPIBENCH_INSNCOUNT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* The plugin's output file in the workdir. */
#define INSNCOUNT_FILE "insn-counts.txt"

/*
 * Look NAMES[0..n) up in the ELF64 symbol table of PATH: ADDRS[i] gets the
 * value, 0 when absent.  -1 with err ("PATH: ...") when PATH is no ELF64
 * file with a symbol table, or a table entry is out of its bounds.
 */
int elf_symbols(const char *path, const char *const *names, size_t n, uint64_t *addrs,
		char *err, size_t errlen);

/* The symbol file beside a built hypervisor XEN (DIR/xen): DIR/xen-syms,
 * else DIR/src/xen/xen-syms (scripts/hv.sh's tree).  0, or -1 with err. */
int insncount_syms_path(const char *xen, char *buf, size_t len, char *err, size_t errlen);

/*
 * QEMU's "-plugin" value for booting XEN with the counts written to
 * OUTFILE: the plugin's path (build_dir()/tcgplug/libipicount.so) and its
 * markers.  0, or -1 with err naming the missing plugin or symbol.
 */
int insncount_plugin_arg(const char *xen, const char *outfile, char *buf, size_t len,
			 char *err, size_t errlen);

/*
 * The same for calls=all (tcgplug/ipicount.h): every send_IPI_mask(),
 * flush_area_mask(), invalidate_interrupt() and do_IRQ() of the boot, in
 * buckets by ICR writes per call.  It needs none of the benchmark's
 * symbols, so a build without CONFIG_IPIBENCH is counted too.
 */
int insncount_calls_plugin_arg(const char *xen, const char *outfile, char *buf, size_t len,
			       char *err, size_t errlen);

/*
 * Fold the plugin's output FILE into AGENT (agent.json): each workload
 * with bench_runs = R (the agent's count of its hypervisor runs) takes the
 * next R runs of the file, in their order, and one with operations gains
 * "insn_counts".  0, or -1 with err "FILE:LINE: ..." for
 * a line that is not the plugin's, or "FILE: ..." when the runs and the
 * workloads do not add up.
 */
int insncount_merge(const char *file, json_t *agent, char *err, size_t errlen);

/*
 * calls=all's FILE into AGENT as "insn_calls": the last complete line's
 * buckets (closed, overflow, dropped_windows; per bucket kind, vector,
 * icr_writes, calls, insns_mean/min/max, irqs, pause_mean and, when the
 * calls spun, spin_fit {base, insns_per_pause}: least squares of insns
 * against PAUSE).  Every complete line is checked; -1 with err
 * "FILE:LINE: ..." for one that is not the plugin's.
 */
int insncount_calls_merge(const char *file, json_t *agent, char *err, size_t errlen);

#endif
