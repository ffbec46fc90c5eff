/* The host backend registry: one entry per file in runner/backends/. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "ipibench/modes.h"
#include "runner/backend.h"

extern const struct host_backend_ops backend_qemu;
extern const struct host_backend_ops backend_local;
extern const struct host_backend_ops backend_reboot;

const struct host_backend_ops *const host_backends[] = {
	&backend_qemu,
	&backend_local,
	&backend_reboot,
	NULL
};

const struct host_backend_ops *host_backend_find(const char *name)
{
	for (size_t i = 0; host_backends[i]; i++)
		if (!strcmp(host_backends[i]->name, name))
			return host_backends[i];
	return NULL;
}

const char *mode_genapic(const char *mode)
{
	return ipibench_mode_genapic(mode);
}

const char *mode_list(void)
{
	static char list[128];

	if (!list[0])
		for (size_t i = 0, n = 0; ipibench_mode_name(i); i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
					      ipibench_mode_name(i));
	return list;
}

void host_fail(struct host_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
}

void host_progress(const struct host_opts *o, const char *prefix, const char *fmt, ...)
{
	va_list ap;

	if (o->quiet || !o->progress)
		return;
	fputs(prefix, o->progress);
	va_start(ap, fmt);
	vfprintf(o->progress, fmt, ap);
	va_end(ap);
	fputc('\n', o->progress);
	fflush(o->progress);
}

int host_log_open(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

int host_log_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int host_spawn(char *const argv[], int outfd)
{
	pid_t parent = getpid(), pid = fork();

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	int devnull = open("/dev/null", O_RDONLY);
	dup2(devnull, 0);
	dup2(outfd, 1);
	dup2(outfd, 2);
	execvp(argv[0], argv);
	fprintf(stderr, "ipibench: exec %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}
