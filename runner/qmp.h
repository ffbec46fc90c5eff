/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A small QMP client (QEMU's machine protocol, JSON lines over a socket):
 * enough to ask a running QEMU's human monitor for its view of the
 * machine when a run stalls (runner/stall.h).  Every read is bounded by a
 * deadline: a dead or silent monitor is an error, never a hang.
 */
#ifndef IPIBENCH_QMP_H
#define IPIBENCH_QMP_H

#include <stddef.h>

/* The largest message read (info registers -a of many CPUs is large). */
#define QMP_MAX_MSG (8u << 20)

struct qmp {
	int fd;
	char *buf;          /* bytes read and not yet taken */
	size_t len, cap;
};

/*
 * Speak QMP on FD (a connected stream socket; not closed by the client):
 * read QEMU's greeting, send qmp_capabilities and read its return, within
 * TIMEOUT_MS.  0, or -1 with a one-line reason in err.
 */
int qmp_open(struct qmp *q, int fd, int timeout_ms, char *err, size_t errlen);
/*
 * human-monitor-command COMMAND: its "return" text (malloc'd; free() it)
 * within TIMEOUT_MS, events on the way skipped; NULL with a one-line
 * reason in err (QEMU's "error" desc, a timeout, a closed or garbled
 * channel).
 */
char *qmp_hmp(struct qmp *q, const char *command, int timeout_ms, char *err, size_t errlen);
/* The client's buffer (the fd is the caller's). */
void qmp_close(struct qmp *q);

#endif
