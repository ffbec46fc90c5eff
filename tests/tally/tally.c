/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ipibench-tally: run test binaries and keep an honest tally for `make test`.
 *
 *   ipibench-tally run FILE NAME TIMEOUT CMD [ARG...]
 *       Run a cmocka binary, which speaks TAP (CMOCKA_MESSAGE_OUTPUT=TAP is
 *       set for it).  Its declared tests are the sum of its plans ("1..N",
 *       one per cmocka group); those that passed are its "ok" lines, each
 *       carrying the next number of its group and no directive (a "# SKIP"
 *       is a failure).  Every declared test that did not pass is a failure,
 *       so a binary that calls exit(0) half way, bails out, aborts, or hangs
 *       past TIMEOUT seconds fails the tests it never finished.  A binary
 *       that declares nothing is one failure; so is a non-zero exit, a
 *       signal, a "Bail out!", a group's setup or teardown failing
 *       (cmocka's "not ok 0") or a group without cmocka's closing line
 *       ("# ok - NAME") when every declared test passed; and so is each
 *       mismatch: a result out of sequence or beyond its plan, a result
 *       before any plan, a plan inside an unfinished group (what a test
 *       printing TAP-like lines of its own makes).
 *   ipibench-tally cmd FILE NAME TIMEOUT CMD [ARG...]
 *       Run any command as one test: it passes when it exits 0 in time.
 *   ipibench-tally expect FILE NAME...
 *       NAMEs that must have a result by `total`: one that has none (its
 *       binary did not build, its stage did not run) is one failure.
 *   ipibench-tally total FILE
 *       Print the failures and, always, the closing line
 *       "ipibench tests: N passed, N failed"; write the stage as one TAP
 *       stream to FILE.tap (a line per NAME and per failure of its own);
 *       exit 1 if any failed or none passed.
 *
 * The output of CMD goes to stdout as it comes (stdout and stderr merged).
 * CMD runs in its own process group with stdin from /dev/null: on timeout
 * the whole group gets SIGTERM, then SIGKILL 5 s later; what is left of the
 * group when CMD ends is killed too, and SIGINT/SIGTERM/SIGHUP to the tally
 * are passed on to the group.  FILE holds one tab-separated line per record
 * ("expect NAME", "result NAME PASSED FAILED NOTE"), appended with one
 * write each so parallel makes may share it.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

/* A TAP description: '#' escaped, so nothing reads as a directive. */
static void put_desc(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '#' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	}
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

/* ---- reading a cmocka binary's TAP --------------------------------------- */

struct tap {
	long declared;		/* the sum of the plans */
	long passed;		/* results in sequence, "ok", no directive */
	long skipped;		/* results in sequence with a directive */
	long next, left;	/* the current group's next number; results due */
	long mismatches;
	bool group_open;	/* a plan without cmocka's closing line yet */
	bool unclosed;		/* a group ended without its closing line */
	bool bailed, group_failed, said_failed;
	char first_mismatch[160], bail[160];
};

static void mismatch(struct tap *t, const char *why, const char *l)
{
	if (!t->mismatches++)
		snprintf(t->first_mismatch, sizeof(t->first_mismatch), "%s: '%.100s'", why, l);
}

/* "1..N" with an optional "# comment"; N or -1. */
static long plan(const char *l)
{
	char *end;
	long n;

	if (strncmp(l, "1..", 3) || !isdigit((unsigned char)l[3]))
		return -1;
	n = strtol(l + 3, &end, 10);
	while (*end == ' ')
		end++;
	return *end && *end != '#' ? -1 : n;
}

/* One line of output; what is not TAP (the tests' own prints) is left. */
static void parse_line(struct tap *t, const char *l)
{
	bool ok = !strncmp(l, "ok", 2), directive;
	const char *p, *hash;
	long n = plan(l), num;
	char *end;

	if (n >= 0) {
		if (t->group_open && t->left) {
			mismatch(t, "a plan inside an unfinished group", l);
			return;
		}
		t->unclosed = t->unclosed || t->group_open;
		t->declared += n;
		t->next = 1;
		t->left = n;
		t->group_open = true;
		return;
	}
	if (!strncmp(l, "Bail out!", 9)) {
		if (!t->bailed)
			snprintf(t->bail, sizeof(t->bail), "%.100s", l + 9 + (l[9] == ' '));
		t->bailed = true;
		return;
	}
	if (t->group_open && (!strncmp(l, "# ok - ", 7) || !strncmp(l, "# not ok - ", 11))) {
		t->group_open = false;	/* cmocka's closing line of a group */
		t->said_failed = t->said_failed || l[2] == 'n';
		return;
	}
	if (!ok && strncmp(l, "not ok", 6))
		return;
	p = ok ? l + 2 : l + 6;
	if (*p && *p != ' ')
		return;		/* "okay", "not okay" */
	num = strtol(p, &end, 10);
	if (end == p)
		num = -1;
	hash = strchr(end, '#');
	directive = hash && (!strncasecmp(hash + 1 + strspn(hash + 1, " "), "skip", 4) ||
			     !strncasecmp(hash + 1 + strspn(hash + 1, " "), "todo", 4));
	if (!ok && num == 0 && t->group_open) {
		/* cmocka: the group's setup or teardown failed; what it did
		 * not run stays declared and unfinished */
		t->group_failed = true;
		t->left = 0;
		return;
	}
	if (!t->group_open || !t->left) {
		mismatch(t, t->group_open ? "a result beyond its plan" : "a result outside a plan", l);
		return;
	}
	if (num != t->next) {
		mismatch(t, "a result out of sequence", l);
		return;
	}
	t->next++;
	t->left--;
	t->passed += ok && !directive;
	t->skipped += directive;
}

/* ---- running one command ------------------------------------------------ */

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

/* Run argv with output tee'd to stdout and parsed as TAP (t); *o says how
 * it ended. */
static int run_child(char **argv, double timeout, struct tap *t, struct outcome *o)
{
	char buf[8192], line[512];
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
		if (t)
			setenv("CMOCKA_MESSAGE_OUTPUT", "TAP", 1);
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
		double now_s = now(), until;
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		int r;

		if (!o->exited && waitpid(pid, &o->status, WNOHANG) == pid) {
			o->exited = true;
			exit_at = now_s;
		}
		if (o->exited && (eof || now_s - exit_at > KILL_GRACE_S))
			break;	/* done, or the pipe is held open by a leftover */
		if (!o->exited && !o->timed_out && now_s >= deadline) {
			o->timed_out = true;
			kill(-pid, SIGTERM);
			term_sent = true;
			kill_at = now_s + KILL_GRACE_S;
		}
		if (term_sent && now_s >= kill_at) {
			kill(-pid, SIGKILL);
			kill_at = now_s + 3600;
		}
		if (eof) {
			usleep(20000);
			continue;
		}
		until = o->timed_out ? kill_at : deadline;
		if (o->exited)
			until = exit_at + KILL_GRACE_S;
		if (until - now_s > 0.2 || until < now_s)
			until = now_s + 0.2;	/* poll waitpid often enough */
		r = poll(&pf, 1, (int)((until - now_s) * 1000) + 1);
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
		for (ssize_t i = 0; t && i < n; i++) {
			if (buf[i] == '\n') {
				line[ll] = 0;
				parse_line(t, line);
				ll = 0;
			} else if (ll < sizeof(line) - 1) {
				line[ll++] = buf[i];
			}
		}
	}
	if (t && ll) {
		line[ll] = 0;
		parse_line(t, line);
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

#define NOTE(...) snprintf(note + strlen(note), size - strlen(note), __VA_ARGS__)

/* The failures of a TAP run that ended as o says (t->declared - t->passed,
 * the mismatches, and one if it did not end well), with a note. */
static long tap_failures(struct tap *t, const struct outcome *o, double timeout, char *note,
			 size_t size)
{
	long failed = t->declared - t->passed + t->mismatches;
	char end[128];

	describe_end(o, timeout, end, sizeof(end));
	t->unclosed = t->unclosed || t->group_open;
	note[0] = 0;
	if (!t->declared)
		NOTE("declared no tests, %s", end);
	else if (t->passed < t->declared)
		NOTE("%ld of %ld declared tests passed, %s", t->passed, t->declared, end);
	else
		NOTE("%s", end);
	if (t->skipped)
		NOTE("; %ld skipped (a skip is a failure)", t->skipped);
	if (t->bailed)
		NOTE("; bailed out: %s", t->bail);
	if (t->group_failed)
		NOTE("; a group's setup or teardown failed");
	if (t->unclosed)
		NOTE("; a group without its closing line");
	if (t->mismatches)
		NOTE("; %ld mismatch%s, the first: %s", t->mismatches,
		     t->mismatches == 1 ? "" : "es", t->first_mismatch);
	if (!failed && (o->timed_out || !WIFEXITED(o->status) || WEXITSTATUS(o->status) ||
			t->bailed || t->group_failed || t->unclosed || t->said_failed || !t->declared))
		failed = 1;	/* all passed, yet it did not end well */
	return failed;
}

static int cmd_run(bool cmocka, int argc, char **argv)
{
	const char *file, *tag = cmocka ? "run" : "cmd";
	char name[1024], note[1024] = "";
	struct tap t = { 0 };
	struct outcome o;
	double timeout;
	long passed, failed;
	char *e;

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
	if (run_child(argv + 3, timeout, cmocka ? &t : NULL, &o)) {
		fprintf(stderr, "ipibench-tally: %s: %s\n", argv[3], strerror(errno));
		append(file, "result\t%s\t0\t1\tcould not be started", name);
		return 1;
	}
	if (cmocka) {
		failed = tap_failures(&t, &o, timeout, note, sizeof(note));
		passed = t.passed;
	} else {
		describe_end(&o, timeout, note, sizeof(note));
		failed = o.timed_out || !WIFEXITED(o.status) || WEXITSTATUS(o.status);
		passed = !failed;
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

/* The stage as one TAP stream to FILE.tap (written whole, then renamed). */
static void write_tap(const char *file, const struct rec *r, size_t n, long bad, long passed,
		      long failed)
{
	char path[4096], tmp[4200];
	long k = 0, lines = bad ? 1 : 0;
	FILE *f;

	for (size_t i = 0; i < n; i++)
		lines += !r[i].expect;
	snprintf(path, sizeof(path), "%s.tap", file);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "ipibench-tally: %s: %s\n", tmp, strerror(errno));
		return;
	}
	fprintf(f, "1..%ld\n", lines);
	for (size_t i = 0; i < n; i++) {
		if (r[i].expect)
			continue;
		fprintf(f, "%s %ld - ", r[i].failed ? "not ok" : "ok", ++k);
		put_desc(f, r[i].name);
		fprintf(f, ": %ld passed, %ld failed (", r[i].passed, r[i].failed);
		put_desc(f, r[i].note);
		fputs(")\n", f);
	}
	if (bad) {
		fprintf(f, "not ok %ld - ", ++k);
		put_desc(f, file);
		fprintf(f, ": %ld damaged records\n", bad);
	}
	fprintf(f, "# ipibench tests: %ld passed, %ld failed\n", passed, failed);
	if (fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "ipibench-tally: %s: %s\n", path, strerror(errno));
		unlink(tmp);
	}
}

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
			/* a result of its own in FILE.tap */
			r[i].expect = false;
			r[i].failed = 1;
			r[i].note = strdup("did not run: its build or a stage before it failed");
		}
	}
	if (bad) {
		failed += bad;
		printf("ipibench tests: FAILED %s: %ld damaged records\n", argv[0], bad);
	}
	write_tap(argv[0], r, n, bad, passed, failed);
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
