/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ipibench-tally: run test binaries and keep an honest tally for `make test`.
 *
 *   ipibench-tally run FILE NAME TIMEOUT CMD [ARG...]
 *       Run a cmocka binary.  Its tests are those it declares
 *       ("[==========] Running N test(s)." per group); the ones that passed
 *       are its "[       OK ]" lines.  Every declared test that did not pass
 *       is a failure, so a binary that calls exit(0) half way, aborts, or
 *       hangs past TIMEOUT seconds fails the tests it never finished.  A
 *       binary that declares nothing is one failure; so is a non-zero exit
 *       or a signal when every declared test passed, and any mismatch (more
 *       OK lines than declared tests, or cmocka's own "[  PASSED  ] N"
 *       summary not matching the OK lines).
 *   ipibench-tally cmd FILE NAME TIMEOUT CMD [ARG...]
 *       Run any command as one test: it passes when it exits 0 in time.
 *   ipibench-tally expect FILE NAME...
 *       NAMEs that must have a result by `total`: one that has none (its
 *       binary did not build, its stage did not run) is one failure.
 *   ipibench-tally total FILE
 *       Print the failures and, always, the closing line
 *       "ipibench tests: N passed, N failed"; exit 1 if any failed or none
 *       passed.
 *
 * The output of CMD goes to stdout as it comes (stdout and stderr merged).
 * CMD runs in its own process group with stdin from /dev/null: on timeout
 * the whole group gets SIGTERM, then SIGKILL 5 s later; what is left of the
 * group when CMD ends is killed too, and SIGINT/SIGTERM/SIGHUP to the tally
 * are passed on to the group.  FILE holds one tab-separated line per record
 * ("expect NAME", "result NAME PASSED FAILED NOTE"), appended with one
 * write each so parallel makes may share it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KILL_GRACE_S 5		/* SIGTERM to SIGKILL; and for a pipe left open */

static void usage(void)
{
	fprintf(stderr, "usage: ipibench-tally run|cmd FILE NAME TIMEOUT CMD [ARG...]\n"
			"       ipibench-tally expect FILE NAME...\n"
			"       ipibench-tally total FILE\n");
	exit(2);
}

/* Tabs and newlines would break the record format. */
static void clean(char *s)
{
	for (; *s; s++)
		if (*s == '\t' || *s == '\n' || *s == '\r')
			*s = ' ';
}

static int append(const char *file, const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if ((size_t)n >= sizeof(line) - 1)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, (size_t)n) != n) {
		fprintf(stderr, "ipibench-tally: %s: %s\n", file, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return close(fd);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- running one command ------------------------------------------------ */

struct counts {
	long declared, ok, summary_passed, skipped;
	bool summary_seen;
};

/* One line of output (its first bytes: the markers are at the start). */
static void parse_line(struct counts *c, const char *l)
{
	static const char running[] = "[==========] Running ", ok[] = "[       OK ] ",
			  passed[] = "[  PASSED  ] ", skipped[] = "[  SKIPPED ] ";
	char *end;
	long n;

	if (!strncmp(l, running, sizeof(running) - 1)) {
		n = strtol(l + sizeof(running) - 1, &end, 10);
		if (end != l + sizeof(running) - 1 && !strncmp(end, " test(s).", 9) && n >= 0)
			c->declared += n;
	} else if (!strncmp(l, ok, sizeof(ok) - 1)) {
		c->ok++;
	} else if (!strncmp(l, passed, sizeof(passed) - 1)) {
		n = strtol(l + sizeof(passed) - 1, &end, 10);
		if (end != l + sizeof(passed) - 1 && n >= 0) {
			c->summary_passed += n;
			c->summary_seen = true;
		}
	} else if (!strncmp(l, skipped, sizeof(skipped) - 1) && strstr(l, "listed below")) {
		n = strtol(l + sizeof(skipped) - 1, &end, 10);
		if (end != l + sizeof(skipped) - 1 && n > 0)
			c->skipped += n;	/* the summary; each skip is also listed */
	}
}

static volatile sig_atomic_t child_pgid, got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
	if (child_pgid > 0)
		kill(-(pid_t)child_pgid, sig);
}

struct outcome {
	bool timed_out, exited;
	int status;		/* waitpid's */
};

/* Run argv with output tee'd to stdout and parsed; *o says how it ended. */
static int run_child(char **argv, double timeout, struct counts *c, struct outcome *o)
{
	char buf[8192], line[256];
	size_t ll = 0;
	bool eof = false, term_sent = false;
	double deadline = now() + timeout, exit_at = 0, kill_at = 0;
	int p[2];
	pid_t pid;

	memset(o, 0, sizeof(*o));
	if (pipe(p))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		if (null >= 0)
			dup2(null, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "ipibench-tally: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	child_pgid = pid;
	close(p[1]);
	for (;;) {
		double t = now(), until;
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		int r;

		if (!o->exited && waitpid(pid, &o->status, WNOHANG) == pid) {
			o->exited = true;
			exit_at = t;
		}
		if (o->exited && (eof || t - exit_at > KILL_GRACE_S))
			break;	/* done, or the pipe is held open by a leftover */
		if (!o->exited && !o->timed_out && t >= deadline) {
			o->timed_out = true;
			kill(-pid, SIGTERM);
			term_sent = true;
			kill_at = t + KILL_GRACE_S;
		}
		if (term_sent && t >= kill_at) {
			kill(-pid, SIGKILL);
			kill_at = t + 3600;
		}
		if (eof) {
			usleep(20000);
			continue;
		}
		until = o->timed_out ? kill_at : deadline;
		if (o->exited)
			until = exit_at + KILL_GRACE_S;
		if (until - t > 0.2 || until < t)
			until = t + 0.2;	/* poll waitpid often enough */
		r = poll(&pf, 1, (int)((until - t) * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		ssize_t n = read(p[0], buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			eof = true;
			continue;
		}
		fwrite(buf, 1, (size_t)n, stdout);
		fflush(stdout);
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				line[ll] = 0;
				parse_line(c, line);
				ll = 0;
			} else if (ll < sizeof(line) - 1) {
				line[ll++] = buf[i];
			}
		}
	}
	if (ll) {
		line[ll] = 0;
		parse_line(c, line);
	}
	close(p[0]);
	kill(-pid, SIGKILL);	/* whatever the test left behind in its group */
	child_pgid = 0;
	return 0;
}

static void describe_end(const struct outcome *o, double timeout, char *s, size_t n)
{
	if (o->timed_out)
		snprintf(s, n, "timed out after %g s", timeout);
	else if (WIFSIGNALED(o->status))
		snprintf(s, n, "killed by signal %d (%s)", WTERMSIG(o->status),
			 strsignal(WTERMSIG(o->status)));
	else if (WEXITSTATUS(o->status))
		snprintf(s, n, "exit status %d", WEXITSTATUS(o->status));
	else
		snprintf(s, n, "exit status 0");
}

static int cmd_run(bool cmocka, int argc, char **argv)
{
	const char *file, *tag = cmocka ? "run" : "cmd";
	char name[1024], end[128], note[1024] = "";
	struct counts c = { 0 };
	struct outcome o;
	double timeout;
	long passed, failed;
	char *e;
	bool bad_end;

	if (argc < 4)
		usage();
	file = argv[0];
	snprintf(name, sizeof(name), "%s", argv[1]);
	clean(name);
	timeout = strtod(argv[2], &e);
	if (*e || !(timeout > 0) || timeout > 86400) {
		fprintf(stderr, "ipibench-tally %s: TIMEOUT '%s': expected seconds, 0 to 86400\n",
			tag, argv[2]);
		return 2;
	}
	printf("== %s\n", name);
	if (run_child(argv + 3, timeout, &c, &o)) {
		fprintf(stderr, "ipibench-tally: %s: %s\n", argv[3], strerror(errno));
		append(file, "result\t%s\t0\t1\tcould not be started", name);
		return 1;
	}
	describe_end(&o, timeout, end, sizeof(end));
	bad_end = o.timed_out || !WIFEXITED(o.status) || WEXITSTATUS(o.status);
	if (!cmocka) {
		passed = !bad_end;
		failed = bad_end;
		snprintf(note, sizeof(note), "%s", end);
	} else {
		passed = c.ok < c.declared ? c.ok : c.declared;
		failed = c.declared - passed;
		if (!c.declared) {
			failed = 1;
			snprintf(note, sizeof(note), "declared no tests, %s", end);
		} else if (failed) {
			snprintf(note, sizeof(note), "%ld of %ld declared tests passed, %s", passed,
				 c.declared, end);
		} else {
			snprintf(note, sizeof(note), "%s", end);
		}
		if (bad_end && !failed)
			failed = 1;	/* all passed, yet it did not end well */
		if (c.ok > c.declared) {
			failed++;
			snprintf(note + strlen(note), sizeof(note) - strlen(note),
				 "; mismatch: %ld OK lines for %ld declared tests", c.ok, c.declared);
		}
		if (c.summary_seen && c.summary_passed != c.ok) {
			failed++;
			snprintf(note + strlen(note), sizeof(note) - strlen(note),
				 "; mismatch: cmocka says %ld passed, %ld OK lines", c.summary_passed,
				 c.ok);
		}
		if (c.skipped)
			snprintf(note + strlen(note), sizeof(note) - strlen(note),
				 "; %ld skipped (a skip is a failure)", c.skipped);
	}
	clean(note);
	printf("== %s: %ld passed, %ld failed (%s)\n", name, passed, failed, note);
	if (append(file, "result\t%s\t%ld\t%ld\t%s", name, passed, failed, note))
		return 1;
	if (got_signal) {
		signal(got_signal, SIG_DFL);
		raise(got_signal);
	}
	return failed ? 1 : 0;
}

/* ---- expect and total ---------------------------------------------------- */

static int cmd_expect(int argc, char **argv)
{
	if (argc < 1)
		usage();
	for (int i = 1; i < argc; i++) {
		char name[1024];

		snprintf(name, sizeof(name), "%s", argv[i]);
		clean(name);
		if (append(argv[0], "expect\t%s", name))
			return 1;
	}
	return 0;
}

struct rec {
	char *name, *note;
	long passed, failed;
	bool expect;
};

static int cmd_total(int argc, char **argv)
{
	struct rec *r = NULL;
	size_t n = 0, cap = 0;
	long passed = 0, failed = 0, bad = 0;
	char *line = NULL;
	size_t lcap = 0;
	FILE *f;

	if (argc != 1)
		usage();
	f = fopen(argv[0], "r");
	if (!f)
		fprintf(stderr, "ipibench-tally: %s: %s (nothing ran)\n", argv[0], strerror(errno));
	while (f && getline(&line, &lcap, f) > 0) {
		char *save, *kind, *name, *p, *fl, *note, *e1, *e2;
		struct rec x = { 0 };

		line[strcspn(line, "\n")] = 0;
		kind = strtok_r(line, "\t", &save);
		name = strtok_r(NULL, "\t", &save);
		if (kind && name && !strcmp(kind, "expect")) {
			x.expect = true;
		} else if (kind && name && !strcmp(kind, "result") &&
			   (p = strtok_r(NULL, "\t", &save)) && (fl = strtok_r(NULL, "\t", &save))) {
			note = strtok_r(NULL, "", &save);
			x.passed = strtol(p, &e1, 10);
			x.failed = strtol(fl, &e2, 10);
			if (*e1 || *e2 || x.passed < 0 || x.failed < 0) {
				bad++;
				continue;
			}
			x.note = strdup(note ? note : "");
		} else {
			bad++;	/* a damaged record is a failure, not ignored */
			continue;
		}
		if (n == cap) {
			struct rec *nr = realloc(r, (cap = cap ? 2 * cap : 64) * sizeof(*r));

			if (!nr) {
				perror("ipibench-tally");
				return 1;
			}
			r = nr;
		}
		x.name = strdup(name);
		r[n++] = x;
	}
	free(line);
	if (f)
		fclose(f);
	for (size_t i = 0; i < n; i++) {
		if (r[i].expect)
			continue;
		passed += r[i].passed;
		failed += r[i].failed;
		if (r[i].failed)
			printf("ipibench tests: FAILED %s: %ld failed (%s)\n", r[i].name, r[i].failed,
			       r[i].note);
	}
	for (size_t i = 0; i < n; i++) {
		bool seen = false, dup = false;

		if (!r[i].expect)
			continue;
		for (size_t j = 0; j < n; j++) {
			seen = seen || (!r[j].expect && !strcmp(r[j].name, r[i].name));
			dup = dup || (j < i && r[j].expect && !strcmp(r[j].name, r[i].name));
		}
		if (!seen && !dup) {
			failed++;
			printf("ipibench tests: FAILED %s: did not run (its build or a stage "
			       "before it failed)\n", r[i].name);
		}
	}
	if (bad) {
		failed += bad;
		printf("ipibench tests: FAILED %s: %ld damaged records\n", argv[0], bad);
	}
	for (size_t i = 0; i < n; i++) {
		free(r[i].name);
		free(r[i].note);
	}
	free(r);
	printf("ipibench tests: %ld passed, %ld failed\n", passed, failed);
	return failed || !passed ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };

	if (argc < 3)
		usage();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(argv[1], "run"))
		return cmd_run(true, argc - 2, argv + 2);
	if (!strcmp(argv[1], "cmd"))
		return cmd_run(false, argc - 2, argv + 2);
	if (!strcmp(argv[1], "expect"))
		return cmd_expect(argc - 2, argv + 2);
	if (!strcmp(argv[1], "total"))
		return cmd_total(argc - 2, argv + 2);
	usage();
	return 2;
}
