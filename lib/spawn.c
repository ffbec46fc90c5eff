/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Running another program (spawn.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/spawn.h"

static int pipe_if(int want, int p[2])
{
	p[0] = p[1] = -1;
	return want == SIO_CHILD_PIPE ? pipe2(p, O_CLOEXEC) : 0;
}

static void close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

/* In the child: make descriptor 'to' what 'how' says; 0, or -1. */
static int redirect(int how, int pipe_w, int to)
{
	int fd;

	switch (how) {
	case SIO_CHILD_INHERIT:
		return 0;
	case SIO_CHILD_PIPE:
		fd = pipe_w;
		break;
	case SIO_CHILD_NULL:
		fd = open("/dev/null", to ? O_WRONLY : O_RDONLY);
		break;
	default:
		fd = how;
		break;
	}
	if (fd < 0)
		return -1;
	if (fd == to)
		return fcntl(fd, F_SETFD, 0) < 0 ? -1 : 0;
	return dup2(fd, to) < 0 ? -1 : 0;
}

int sio_child_start(struct sio_child *c)
{
	int po[2], pe[2];
	pid_t parent = getpid();

	c->pid = -1;
	c->out_fd = c->err_fd = -1;
	if (!c->argv || !c->argv[0] || c->in == SIO_CHILD_PIPE) {
		errno = EINVAL;
		return -1;
	}
	if (pipe_if(c->out, po))
		return -1;
	if (pipe_if(c->err_to_out ? SIO_CHILD_NULL : c->err, pe)) {
		close_pair(po);
		return -1;
	}
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		close_pair(po);
		close_pair(pe);
		return -1;
	}
	if (c->pid == 0) {
		if (c->new_pgroup)
			setpgid(0, 0);
		if (c->die_with_parent) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(127);
		}
		if (redirect(c->in, -1, 0) || redirect(c->out, po[1], 1) ||
		    (c->err_to_out ? dup2(1, 2) < 0 : redirect(c->err, pe[1], 2)))
			_exit(126);
		if (c->keep_fd > 2)
			fcntl(c->keep_fd, F_SETFD, 0);
		if (c->dir && chdir(c->dir)) {
			dprintf(2, "ipibench: chdir %s: %s\n", c->dir, strerror(errno));
			_exit(126);
		}
		execvp(c->argv[0], (char *const *)c->argv);
		dprintf(2, "ipibench: exec %s: %s\n", c->argv[0], strerror(errno));
		_exit(127);
	}
	/* Also here, so that a kill right after the start reaches the group. */
	if (c->new_pgroup)
		setpgid(c->pid, c->pid);
	if (po[1] >= 0)
		close(po[1]);
	if (pe[1] >= 0)
		close(pe[1]);
	c->out_fd = po[0];
	c->err_fd = pe[0];
	return 0;
}

int sio_child_finish(struct sio_child *c)
{
	int st;
	pid_t r;

	if (c->out_fd >= 0)
		close(c->out_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->out_fd = c->err_fd = -1;
	if (c->pid <= 0) {
		errno = ECHILD;
		return -1;
	}
	while ((r = waitpid(c->pid, &st, 0)) < 0 && errno == EINTR)
		;
	c->pid = -1;
	if (r < 0)
		return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

int sio_child_run(struct sio_child *c)
{
	if (sio_child_start(c))
		return -1;
	return sio_child_finish(c);
}

void sio_child_kill(struct sio_child *c)
{
	if (c->pid <= 0)
		return;
	if (c->new_pgroup)
		killpg(c->pid, SIGKILL);
	else
		kill(c->pid, SIGKILL);
	sio_child_finish(c);
}

char *sio_child_capture(struct sio_child *c, size_t max, int *status)
{
	size_t len = 0, cap = max < 4096 ? max : 4096;
	char *buf = malloc(cap + 1), drop[4096];
	ssize_t r;

	*status = -1;
	c->out = SIO_CHILD_PIPE;
	if (!buf || sio_child_start(c)) {
		free(buf);
		return NULL;
	}
	for (;;) {
		bool keep;

		if (buf && len == cap && cap < max) {
			size_t ncap = cap * 2 < max ? cap * 2 : max;
			char *nb = realloc(buf, ncap + 1);

			if (nb) {
				buf = nb;
				cap = ncap;
			} else {
				free(buf);   /* drained all the same, then NULL */
				buf = NULL;
			}
		}
		/* Past MAX (or out of memory) it is read and dropped. */
		keep = buf && len < cap;
		r = read(c->out_fd, keep ? buf + len : drop, keep ? cap - len : sizeof(drop));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (keep)
			len += (size_t)r;
	}
	*status = sio_child_finish(c);
	if (buf)
		buf[len] = '\0';
	return buf;
}
