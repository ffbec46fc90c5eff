/* SPDX-License-Identifier: GPL-3.0-or-later */
/* probes/: public interface of the trace reader and collector. */
#ifndef IPIBENCH_PROBES_H
#define IPIBENCH_PROBES_H

/* `ipibench trace summary|diff|ipi|irq FILE... [--json]` */
int cmd_trace(int argc, char **argv);

#endif
