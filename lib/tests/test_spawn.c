/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lib/spawn.h: real children (sh, cat, sleep), every way in and out. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/spawn.h"

static char dir[] = "/tmp/ipibench-spawn-XXXXXX";

static char *slurp_fd(int fd)
{
	char *buf = malloc(65536);
	size_t len = 0;
	ssize_t r;

	assert_non_null(buf);
	while ((r = read(fd, buf + len, 65535 - len)) > 0)
		len += (size_t)r;
	buf[len] = '\0';
	return buf;
}

static char *capture(const char *const *argv, size_t max, int *status)
{
	struct sio_child c = SIO_CHILD_INIT;

	c.argv = argv;
	return sio_child_capture(&c, max, status);
}

static void test_capture_and_status(void **s)
{
	int st;
	char *out;

	(void)s;
	out = capture((const char *[]){ "echo", "hello", NULL }, 100, &st);
	assert_string_equal(out, "hello\n");
	assert_int_equal(st, 0);
	free(out);
	out = capture((const char *[]){ "sh", "-c", "echo partial; exit 3", NULL }, 100, &st);
	assert_string_equal(out, "partial\n");
	assert_int_equal(st, 3);
	free(out);
	out = capture((const char *[]){ "sh", "-c", "kill -TERM $$", NULL }, 100, &st);
	assert_int_equal(st, 128 + SIGTERM);
	free(out);
	/* An argument is never parsed by a shell. */
	out = capture((const char *[]){ "printf", "%s", "$(echo no); `x` *", NULL }, 100, &st);
	assert_string_equal(out, "$(echo no); `x` *");
	free(out);
}

static void test_capture_bounded(void **s)
{
	int st;
	char *out;

	(void)s;
	/* 1 MB written, 1000 bytes kept: the child is drained, not blocked. */
	out = capture((const char *[]){ "head", "-c", "1000000", "/dev/zero", NULL }, 1000, &st);
	assert_non_null(out);
	assert_int_equal(st, 0);
	assert_int_equal(strlen(out), 0);   /* NULs: the length is what was kept */
	free(out);
	out = capture((const char *[]){ "sh", "-c", "yes abc | head -c 300000", NULL }, 10, &st);
	assert_string_equal(out, "abc\nabc\nab");
	assert_int_equal(st, 0);
	free(out);
}

static void test_not_found(void **s)
{
	struct sio_child c = SIO_CHILD_INIT;
	char *err;

	(void)s;
	c.argv = (const char *[]){ "ipibench-no-such-program", NULL };
	c.err = SIO_CHILD_PIPE;
	assert_int_equal(sio_child_start(&c), 0);
	err = slurp_fd(c.err_fd);
	assert_int_equal(sio_child_finish(&c), 127);
	assert_non_null(strstr(err, "ipibench: exec ipibench-no-such-program: No such file"));
	free(err);
	/* Refused before any fork. */
	c = (struct sio_child)SIO_CHILD_INIT;
	assert_int_equal(sio_child_start(&c), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(sio_child_finish(&c), -1);
}

static void test_in_out_err(void **s)
{
	struct sio_child c = SIO_CHILD_INIT;
	char path[128], *text;
	int fd, st;
	FILE *f;

	(void)s;
	/* stdin is /dev/null by default: cat ends at once */
	text = capture((const char *[]){ "cat", NULL }, 100, &st);
	assert_string_equal(text, "");
	assert_int_equal(st, 0);
	free(text);

	snprintf(path, sizeof(path), "%s/in", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("from a file\n", f);
	fclose(f);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	c.argv = (const char *[]){ "cat", NULL };
	c.in = fd;
	text = sio_child_capture(&c, 100, &st);
	assert_string_equal(text, "from a file\n");
	free(text);
	close(fd);

	/* both streams into one file of the caller's */
	snprintf(path, sizeof(path), "%s/log", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	c = (struct sio_child)SIO_CHILD_INIT;
	c.argv = (const char *[]){ "sh", "-c", "echo out; echo err >&2", NULL };
	c.out = fd;
	c.err_to_out = 1;
	assert_int_equal(sio_child_run(&c), 0);
	close(fd);
	fd = open(path, O_RDONLY);
	text = slurp_fd(fd);
	close(fd);
	assert_string_equal(text, "out\nerr\n");
	free(text);

	/* standard error apart, in a pipe */
	c = (struct sio_child)SIO_CHILD_INIT;
	c.argv = (const char *[]){ "sh", "-c", "echo out; echo err >&2", NULL };
	c.err = SIO_CHILD_PIPE;
	assert_int_equal(sio_child_start(&c), 0);
	text = slurp_fd(c.err_fd);
	assert_int_equal(sio_child_finish(&c), 0);
	assert_string_equal(text, "err\n");
	free(text);
}

static void test_dir_and_keep_fd(void **s)
{
	struct sio_child c = SIO_CHILD_INIT;
	char *text, want[160], arg[64];
	int st, p[2];

	(void)s;
	c.argv = (const char *[]){ "pwd", NULL };
	c.dir = dir;
	text = sio_child_capture(&c, 200, &st);
	snprintf(want, sizeof(want), "%s\n", dir);
	assert_string_equal(text, want);
	free(text);

	/* A CLOEXEC descriptor kept open for this child only. */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	snprintf(arg, sizeof(arg), "echo kept >&%d", p[1]);
	c = (struct sio_child)SIO_CHILD_INIT;
	c.argv = (const char *[]){ "sh", "-c", arg, NULL };
	c.keep_fd = p[1];
	assert_int_equal(sio_child_run(&c), 0);
	close(p[1]);
	text = slurp_fd(p[0]);
	close(p[0]);
	assert_string_equal(text, "kept\n");
	free(text);
	/* Without keep_fd it is closed in the child. */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	snprintf(arg, sizeof(arg), "echo kept >&%d", p[1]);
	c = (struct sio_child)SIO_CHILD_INIT;
	c.argv = (const char *[]){ "sh", "-c", arg, NULL };
	assert_int_not_equal(sio_child_run(&c), 0);
	close(p[1]);
	close(p[0]);
}

/* Whether PID is gone (or a zombie nobody reaped yet). */
static int gone(pid_t pid)
{
	char path[64], buf[256];
	FILE *f;
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	p = p ? strrchr(buf, ')') : NULL;
	return p && p[1] == ' ' && p[2] == 'Z';
}

static int wait_gone(pid_t pid)
{
	for (int i = 0; i < 100; i++) {
		if (gone(pid))
			return 1;
		struct timespec ts = { 0, 20000000 };
		nanosleep(&ts, NULL);
	}
	return 0;
}

static void test_kill_group(void **s)
{
	struct sio_child c = SIO_CHILD_INIT;
	pid_t bg;

	(void)s;
	c.argv = (const char *[]){ "sh", "-c", "sleep 100 & echo $!; wait", NULL };
	c.out = SIO_CHILD_PIPE;
	c.new_pgroup = true;
	assert_int_equal(sio_child_start(&c), 0);
	{
		char line[32] = "";
		ssize_t r = read(c.out_fd, line, sizeof(line) - 1);

		assert_true(r > 0);
		bg = (pid_t)atoi(line);
	}
	assert_true(bg > 0);
	assert_int_equal(getpgid(bg), c.pid);
	sio_child_kill(&c);
	assert_int_equal(c.pid, -1);
	assert_true(wait_gone(bg));
	sio_child_kill(&c);   /* again: nothing */
}

/* A child started with die_with_parent dies with its starter. */
static void test_die_with_parent(void **s)
{
	int p[2], st;
	pid_t mid, kid = 0;

	(void)s;
	assert_int_equal(pipe(p), 0);
	mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		struct sio_child c = SIO_CHILD_INIT;

		c.argv = (const char *[]){ "sleep", "100", NULL };
		c.die_with_parent = true;
		if (sio_child_start(&c))
			_exit(1);
		if (write(p[1], &c.pid, sizeof(c.pid)) != sizeof(c.pid))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &kid, sizeof(kid)), sizeof(kid));
	close(p[0]);
	assert_int_equal(waitpid(mid, &st, 0), mid);
	assert_int_equal(st, 0);
	assert_true(kid > 0);
	assert_true(wait_gone(kid));
}

static int setup(void **s)
{
	(void)s;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **s)
{
	char cmd[128];

	(void)s;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_and_status),
		cmocka_unit_test(test_capture_bounded),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_in_out_err),
		cmocka_unit_test(test_dir_and_keep_fd),
		cmocka_unit_test(test_kill_group),
		cmocka_unit_test(test_die_with_parent),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
