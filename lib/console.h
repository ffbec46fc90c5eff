/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Milestones in a Xen host's console output: what the serial line of a QEMU
 * host, or the hypervisor's console ring read by the agent, says happened.
 */
#ifndef IPIBENCH_CONSOLE_H
#define IPIBENCH_CONSOLE_H

#include <stddef.h>

enum console_event {
	CON_NONE = 0,
	CON_XEN_START,      /* "Xen version ..." banner */
	CON_GENAPIC,        /* "Switched to APIC driver NAME" / "Using APIC driver NAME" */
	CON_INTREMAP,       /* "Interrupt Remapping enabled" */
	CON_X2APIC_WARNING, /* Xen overrode the requested x2APIC mode */
	CON_DOM0_UP,        /* "ipibench: dom0 up" from the initramfs */
	CON_AGENT_DONE,     /* "ipibench: agent done rc=N" */
	CON_XEN_PANIC,      /* "Panic on CPU N" */
	CON_DOM0_CRASH,     /* dom0 kernel panic / domain crash */
	CON_AGENT_PROGRESS, /* "ipibench: ..." any other agent line */
	CON_SMP_ALLOWING,   /* "SMP: Allowing N CPUs (M hotplug CPUs)": arg is M */
};

struct console_match {
	enum console_event ev;
	char arg[64];       /* genapic name, agent rc, hotplug CPUs, or the progress text */
};

/* Classify one console line (without its newline). */
enum console_event console_parse_line(const char *line, struct console_match *m);

/* Strip Xen's "(XEN) [  1.234567] " prefix; returns a pointer into line. */
const char *console_strip_prefix(const char *line);

/* One VT-d interrupt remapping table entry (remapped format). */
struct console_irte {
	unsigned int index, sid, vector, dst, dlm, tm, dm;
};

/*
 * Entry INDEX of the interrupt remapping table as the last VT-d IOMMU dump
 * (Xen's 'V' debug key: "Interrupt remapping table ..." then one
 * "R:  IIII:  SVT SQ SID V AVL FPD DST DLM TM RH DM P" line per present
 * entry) in TEXT shows it.  0 and *out filled, or -1 when the last dump has
 * no such entry (or TEXT has no dump).
 */
int console_find_irte(const char *text, unsigned int index, struct console_irte *out);

#endif
