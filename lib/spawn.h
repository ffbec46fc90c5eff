/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Running another program, one way for the whole of ipibench (in the
 * manner of git's run-command): QEMU, xl and the guest's tools, gnuplot,
 * the host's commands.  No shell unless the caller names one: the program
 * and its arguments are an argv, so nothing in them is ever parsed again.
 *
 *   struct sio_child c = SIO_CHILD_INIT;
 *   c.argv = (const char *[]){ "xl", "list", NULL };
 *   c.out = SIO_CHILD_PIPE;
 *   if (sio_child_start(&c) == 0) { read(c.out_fd, ...); status = sio_child_finish(&c); }
 *
 * Standard input is /dev/null unless given; standard output and error
 * each are /dev/null, a pipe (output only), the caller's own, or a file
 * descriptor of the caller's (dup'ed; the caller keeps and closes it).
 * Every other descriptor the caller has open without O_CLOEXEC stays
 * open in the child: ipibench opens its own with O_CLOEXEC.
 */
#ifndef IPIBENCH_SIO_SPAWN_H
#define IPIBENCH_SIO_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SIO_CHILD_NULL    (-1)   /* /dev/null */
#define SIO_CHILD_PIPE    (-2)   /* a pipe whose other end is out_fd / err_fd */
#define SIO_CHILD_INHERIT (-3)   /* the caller's own */

struct sio_child {
	const char *const *argv;  /* argv[0] looked up in PATH */
	const char *dir;          /* chdir here first (NULL: the caller's) */
	int in;                   /* a descriptor, SIO_CHILD_NULL or _INHERIT */
	int out, err;             /* a descriptor, or SIO_CHILD_* */
	int err_to_out;           /* standard error where standard output goes */
	int keep_fd;              /* a descriptor to keep open across exec (-1: none) */
	bool new_pgroup;          /* a process group of its own (killpg stops it all) */
	bool die_with_parent;     /* SIGKILL when the caller dies (PR_SET_PDEATHSIG) */
	/* set by sio_child_start() */
	pid_t pid;
	int out_fd, err_fd;       /* the pipes' read ends (-1: none) */
};

#define SIO_CHILD_INIT { .in = SIO_CHILD_NULL, .out = SIO_CHILD_NULL, \
			 .err = SIO_CHILD_NULL, .keep_fd = -1, .pid = -1, \
			 .out_fd = -1, .err_fd = -1 }

/*
 * Start the child: 0, or -1 with errno set (a pipe or fork failed).  A
 * program that cannot be executed is not an error here: the child says so
 * on its standard error ("ipibench: exec NAME: ...") and exits with 127.
 */
int sio_child_start(struct sio_child *c);

/*
 * Wait for it (EINTR retried), close the pipes' read ends: its exit
 * status, 128 + the signal that killed it, or -1 with errno set.
 */
int sio_child_finish(struct sio_child *c);

/* Start and finish: the status as sio_child_finish() gives it, or -1. */
int sio_child_run(struct sio_child *c);

/*
 * Stop it: SIGKILL to its process group (new_pgroup) or to it, then
 * finish.  Nothing when it was never started or is already finished.
 */
void sio_child_kill(struct sio_child *c);

/*
 * c with its standard output read whole, at most MAX bytes (the rest is
 * read and dropped, so the child never blocks on a full pipe): a
 * NUL-terminated string to free, or NULL (out of memory, or the start
 * failed).  *status gets sio_child_finish()'s value.
 */
char *sio_child_capture(struct sio_child *c, size_t max, int *status);

#endif
