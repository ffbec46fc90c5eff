/*
 * The host backend registry: one entry per backend in runner/backends/.
 *
 * How to add a backend (as git's builtin.h lists what a builtin needs):
 *
 *  1. Copy runner/backends/skeleton.c to runner/backends/NAME.c; fill in
 *     run() (its contract is in backend.h and the skeleton) and describe(),
 *     and rename the table to backend_NAME with .name = "NAME".  runner.mk
 *     builds every .c file there; shared pure code that unit tests
 *     should reach goes in a header beside it (qemu.h, reboot.h).
 *  2. Say what it is in .flags (HB_EMULATED: an emulated host; results.json
 *     says "emulated" and [host] tcg is allowed) and .describe_key (the
 *     results.json key for describe()'s line).  Nothing else in the runner
 *     looks at a backend's name.
 *  3. Declare it below and add it to host_backends[].  The first entry is a
 *     config's default; config errors list the backends in table order.
 *  4. Settings: a new [host] key is parsed in runner/config.c (host_key()),
 *     kept in struct config's host and handed over in struct host_opts
 *     (runner/cmd_run.c, defaults in runner/hostopts.c); list it in
 *     config.h's header comment.
 *  5. Tests: runner/tests/test_config.c's test_backends pins the list of
 *     names (update it); unit tests of the backend's own parts go in
 *     runner/tests/test_NAME.c.
 *  6. Docs: the backend's paragraph in docs/design.md ("Hosts"), and
 *     README.md where it says how to run on such a host.
 */
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

const char *host_backend_names(char *buf, size_t len, unsigned int flags)
{
	size_t n = 0, total = 0, k = 0;

	for (size_t i = 0; host_backends[i]; i++)
		total += (host_backends[i]->flags & flags) == flags;
	buf[0] = '\0';
	for (size_t i = 0; host_backends[i] && n < len; i++) {
		if ((host_backends[i]->flags & flags) != flags)
			continue;
		k++;
		n += (size_t)snprintf(buf + n, len - n, "%s%s",
				      k == 1 ? "" : k == total ? " or " : ", ",
				      host_backends[i]->name);
	}
	return buf;
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

int host_log_and_pipe(const char *path, int pfd[2], struct host_result *r)
{
	int log = host_log_open(path);

	if (log < 0) {
		host_fail(r, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		host_fail(r, "pipe: %s", strerror(errno));
		close(log);
		return -1;
	}
	return log;
}

void host_describe_real(const char *how, char *buf, size_t len)
{
	char host[256] = "?";

	gethostname(host, sizeof(host) - 1);
	snprintf(buf, len, "real hardware (%s) on %s", how, host);
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
