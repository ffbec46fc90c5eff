/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `ipibench host capture`: the stall evidence of a QEMU host that another
 * program started (scripts/test-host.sh's test host), collected by
 * stall_capture() as the qemu backend collects its own: QEMU's threads,
 * its monitor over a QMP socket, Xen's debug keys over the serial line's
 * input, their answers read from the console file the serial output goes
 * to.  The console's lines so far give the phase and the last line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "lib/opts.h"
#include "runner/stall.h"
#include "runner/util.h"
#include "lib/safeio.h"

struct capture_args {
	const char *qmp, *serial, *console, *pid, *cpus, *reason, *after, *quiet, *dir;
};

#define CAPTURE_OPTS(a) { \
	OPT_STRING(0, "qmp", &(a)->qmp, "SOCKET", \
		   "QEMU's QMP socket (-qmp unix:SOCKET,server=on,wait=off)"), \
	OPT_STRING(0, "serial", &(a)->serial, "FIFO", \
		   "QEMU's serial input (-serial pipe:P: P.in), for Xen's\ndebug keys"), \
	OPT_STRING(0, "console", &(a)->console, "FILE", \
		   "the file QEMU's serial output goes to: its lines give the\n" \
		   "phase and the last line, what it gains the keys' answers"), \
	OPT_STRING(0, "pid", &(a)->pid, "PID", "QEMU's process: its threads' states"), \
	OPT_STRING(0, "cpus", &(a)->cpus, "N", "the host's vCPUs, APIC IDs 0 to N-1 (default 1)"), \
	OPT_STRING(0, "after", &(a)->after, "S", "seconds since QEMU started (default 0)"), \
	OPT_STRING(0, "reason", &(a)->reason, "WHY", "stall or timeout (default timeout)"), \
	OPT_STRING(0, "key-quiet", &(a)->quiet, "MS", \
		   "a debug key's answer is over after MS ms without output\n" \
		   "(100 to 60000; default 2000, 1000 for the switch to Xen;\n" \
		   "longer on a slow serial line)"), \
	OPT_STRING('o', "output", &(a)->dir, "DIR", "the evidence goes to DIR/" STALL_DIR "/"), \
	OPT_END() }
static struct capture_args help_args;
static const struct opt help_opts[] = CAPTURE_OPTS(&help_args);

const struct opt *host_capture_opts(void)
{
	return help_opts;
}

/* A decimal in [MIN, MAX] from ARG (parse_uint()'s rule), or -1 (said on
 * stderr, naming OPT). */
static long number(const char *opt, const char *arg, long min, long max)
{
	long v = parse_uint(arg, min, max);

	if (v < 0)
		fprintf(stderr, "ipibench host capture: %s '%s': expected a number from %ld to %ld\n",
			opt, arg ? arg : "", min, max);
	return v;
}

/*
 * PATH (option OPT) opened with FLAGS when it is of the kind wanted: a
 * regular file (REGULAR), or anything but one.  -1 otherwise, said on
 * stderr with what is then left out (LOST).
 */
static int open_kind(const char *opt, const char *path, int flags, bool regular,
		     const char *lost)
{
	struct stat st;
	int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "ipibench host capture: %s %s: %s (%s)\n", opt, path,
			strerror(errno), lost);
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) != !regular) {
		fprintf(stderr, "ipibench host capture: %s %s: %s (%s)\n", opt, path,
			regular ? "not a regular file" : "not a FIFO or a terminal", lost);
		close(fd);
		return -1;
	}
	return fd;
}

/* A connected socket to the QMP server at PATH, or -1 (said on stderr). */
static int qmp_connect(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(a.sun_path)) {
		fprintf(stderr, "ipibench host capture: --qmp %s: path too long for a socket\n", path);
		return -1;
	}
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "ipibench host capture: --qmp %s: %s (no monitor asked)\n", path,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The phase and last line of console FILE (its lines so far) into TR, the
 * last line's time from the file's last change: AFTER seconds since QEMU
 * started is now.
 */
static void track_console(const char *file, double after, struct stall_track *tr)
{
	FILE *f;
	char line[4096];
	struct stat st;

	stall_track_init(tr, 0);
	/* A FIFO would block here, and its bytes are the driver's. */
	if (stat(file, &st) || !S_ISREG(st.st_mode) || !(f = fopen(file, "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0])
			stall_track_line(tr, line, 0);
	}
	if (!fstat(fileno(f), &st)) {
		double age = (double)(time(NULL) - st.st_mtime);

		tr->t_last = after > age ? after - age : 0;
	}
	fclose(f);
}

int host_capture_cmd(int argc, char **argv, const struct opts_cmd *like)
{
	struct capture_args a = { .reason = "timeout", .cpus = "1", .after = "0" };
	const struct opt opts[] = CAPTURE_OPTS(&a);
	const struct opts_cmd cmd = { .name = "ipibench host capture", .opts = opts,
				      .usage = like->usage, .syn = like->syn };
	struct stall_capture c = { .con_in = -1, .con_out = -1, .log = -1, .qmp = -1,
				   .con_follow = true };
	struct stall_track tr;
	struct stall_found f;
	uint32_t *ids = NULL;
	char err[600], **rest;
	int nrest, rc;
	long cpus, after, quiet = 0, pid = 0;

	if ((rc = opts_parse(&cmd, argc, argv, &nrest, &rest)) >= 0)
		return rc;
	if (nrest) {
		fprintf(stderr, "ipibench host capture: unexpected '%s' (see 'ipibench host --help')\n",
			rest[0]);
		return 2;
	}
	if (!a.dir) {
		fprintf(stderr, "ipibench host capture: -o DIR is needed: the evidence goes to "
			"DIR/" STALL_DIR "/\n");
		return 2;
	}
	if (strcmp(a.reason, "stall") && strcmp(a.reason, "timeout")) {
		fprintf(stderr, "ipibench host capture: --reason '%s': expected stall or timeout\n",
			a.reason);
		return 2;
	}
	if ((cpus = number("--cpus", a.cpus, 1, 4096)) < 0 ||
	    (after = number("--after", a.after, 0, 86400 * 7)) < 0 ||
	    (a.quiet && (quiet = number("--key-quiet", a.quiet, 100, 60000)) < 0) ||
	    (a.pid && (pid = number("--pid", a.pid, 1, 0x7fffffff)) < 0))
		return 2;
	ids = calloc((size_t)cpus, sizeof(*ids));
	if (!ids)
		return 1;
	for (long i = 0; i < cpus; i++)
		ids[i] = (uint32_t)i;
	track_console(a.console ? a.console : "", (double)after, &tr);
	c.workdir = a.dir;
	c.reason = a.reason;
	c.after_s = (double)after;
	c.key_quiet_s = quiet / 1000.0;   /* 0: stall.c's own */
	c.qemu = (pid_t)pid;
	c.apic_ids = ids;
	c.ncpus = (unsigned int)cpus;
	c.track = &tr;
	if (a.qmp)
		c.qmp = qmp_connect(a.qmp);
	/* QEMU holds the FIFO open: no reader means no QEMU.  A regular file
	 * is nobody's input: the keys are not written into it. */
	if (a.serial &&
	    (c.con_in = open_kind("--serial", a.serial, O_WRONLY, false, "no debug keys")) >= 0)
		fcntl(c.con_in, F_SETFL, fcntl(c.con_in, F_GETFL) & ~O_NONBLOCK);
	/* The keys' answers: what the console file gains from its end on. */
	if (a.console && c.con_in >= 0 &&
	    (c.con_out = open_kind("--console", a.console, O_RDONLY, true,
				   "the keys' answers not read")) >= 0)
		lseek(c.con_out, 0, SEEK_END);
	rc = stall_capture(&c, &f, err, sizeof(err));
	if (rc)
		fprintf(stderr, "ipibench host capture: %s\n", sio_shown((char[700]){ 0 }, 700, err));
	else
		printf("ipibench host capture: evidence in %s/" STALL_DIR "/ (monitor %s, Xen %s, "
		       "vCPU threads %u running, %u idle)%s%s\n",
		       a.dir, f.monitor ? "answered" : "not asked or silent",
		       f.xen_answered ? "answered its keys" : "did not answer its keys",
		       f.vcpus_running, f.vcpus_idle, f.note[0] ? ": " : "", f.note);
	if (c.qmp >= 0)
		close(c.qmp);
	if (c.con_in >= 0)
		close(c.con_in);
	if (c.con_out >= 0)
		close(c.con_out);
	free(ids);
	return rc ? 1 : 0;
}
