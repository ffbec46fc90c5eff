/* SPDX-License-Identifier: GPL-3.0-or-later */
/* probes/: public interface of the trace reader and collector. */
#ifndef IPIBENCH_PROBES_H
#define IPIBENCH_PROBES_H

/* `ipibench trace summary|diff|ipi|irq|export FILE...` and its synopsis
 * (lib/opts.h), which its --help, `ipibench --help` and its manual page
 * print. */
struct opts_synopsis;
int cmd_trace(int argc, char **argv);
extern const struct opts_synopsis trace_synopsis;

#endif
