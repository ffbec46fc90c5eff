/* SPDX-License-Identifier: GPL-3.0-or-later */
/* safeio: bounded reads refuse what is not a regular file or too large;
 * atomic writes never follow a planted link, never leave a temp file, and
 * leave the old content on failure; the name rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/unit.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/safeio.h"

static char err[512];

static int count_entries(const char *d)
{
	DIR *dd = opendir(d);
	struct dirent *e;
	int n = 0;

	assert_non_null(dd);
	while ((e = readdir(dd)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(dd);
	return n;
}

static void test_read_refuses_devices_dirs_and_size(void **state)
{
	char *buf;
	size_t len;
	char p[300];

	(void)state;
	assert_int_equal(sio_read_file("/dev/zero", 1024, &buf, &len, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/dev/zero: not a regular file"));
	assert_int_equal(sio_read_file(tu_dir, 1024, &buf, &len, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));

	snprintf(p, sizeof(p), "%s/fifo", tu_dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(sio_read_file(p, 1024, &buf, &len, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));

	snprintf(p, sizeof(p), "%s/big", tu_dir);
	assert_int_equal(sio_write_file(p, "0123456789", 10, 0644, err, sizeof(err)), 0);
	assert_int_equal(sio_read_file(p, 9, &buf, &len, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "10 bytes, more than the 9"));
	assert_int_equal(sio_read_file(p, 10, &buf, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 10);
	assert_string_equal(buf, "0123456789");
	free(buf);

	snprintf(p, sizeof(p), "%s/absent", tu_dir);
	assert_int_equal(sio_read_file(p, 10, &buf, &len, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
}

static void test_load_json_names_file_and_line(void **state)
{
	char p[300];
	json_t *j;

	(void)state;
	snprintf(p, sizeof(p), "%s/bad.json", tu_dir);
	assert_int_equal(sio_write_file(p, "{\n\"a\": 1,\n]", 11, 0644, err, sizeof(err)), 0);
	assert_null(sio_load_json(p, 1024, err, sizeof(err)));
	char want[340];
	snprintf(want, sizeof(want), "%s:3:", p);
	assert_non_null(strstr(err, want));
	assert_int_equal(sio_write_file(p, "{\"a\": 1}", 8, 0644, err, sizeof(err)), 0);
	j = sio_load_json(p, 1024, err, sizeof(err));
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "a")), 1);
	json_decref(j);
}

static void test_atomic_never_follows_planted_link(void **state)
{
	char target[300], victim[300], link[310];
	char *buf;
	size_t len;

	(void)state;
	snprintf(target, sizeof(target), "%s/out.json", tu_dir);
	snprintf(victim, sizeof(victim), "%s/victim", tu_dir);
	/* A writer that used a fixed PATH.tmp would write through this link. */
	assert_int_equal(sio_write_file(victim, "keep", 4, 0644, err, sizeof(err)), 0);
	snprintf(link, sizeof(link), "%s.tmp", target);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(sio_write_file(target, "new", 3, 0600, err, sizeof(err)), 0);
	assert_int_equal(sio_read_file(victim, 100, &buf, &len, err, sizeof(err)), 0);
	assert_string_equal(buf, "keep");
	free(buf);
	assert_int_equal(sio_read_file(target, 100, &buf, &len, err, sizeof(err)), 0);
	assert_string_equal(buf, "new");
	free(buf);
	struct stat st;
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* victim, its link, out.json: no temp file left behind. */
	assert_int_equal(count_entries(tu_dir), 3);
}

static void test_atomic_failure_keeps_old_content(void **state)
{
	struct sio_atomic a;
	char target[300];
	char *buf;
	size_t len;

	(void)state;
	snprintf(target, sizeof(target), "%s/keep.txt", tu_dir);
	assert_int_equal(sio_write_file(target, "old", 3, 0644, err, sizeof(err)), 0);
	/* A write that fails only when the buffer is flushed (here: the file
	 * size limit, EFBIG) must fail the commit. */
	struct rlimit old, lim = { 4096, 4096 };
	char big[8192];
	memset(big, 'x', sizeof(big));
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim.rlim_max = old.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(sio_atomic_open(&a, target, 0644, err, sizeof(err)), 0);
	(void)fwrite(big, 1, sizeof(big), a.f);
	int rc = sio_atomic_commit(&a, err, sizeof(err));
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "cannot write"));
	assert_int_equal(sio_read_file(target, 100, &buf, &len, err, sizeof(err)), 0);
	assert_string_equal(buf, "old");
	free(buf);
	/* Abort leaves nothing behind either. */
	assert_int_equal(sio_atomic_open(&a, target, 0644, err, sizeof(err)), 0);
	fputs("x", a.f);
	sio_atomic_abort(&a);
	sio_atomic_abort(&a);	/* safe twice */
	assert_int_equal(count_entries(tu_dir), 1);
	/* A directory that does not exist: one line naming the target. */
	assert_int_equal(sio_write_file("/nonexistent-tu_dir/x", "a", 1, 0644, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent-tu_dir/x: cannot create"));
}

static void test_concurrent_writers_never_collide(void **state)
{
	char target[300];
	pid_t pids[8];
	int i;

	(void)state;
	snprintf(target, sizeof(target), "%s/shared", tu_dir);
	for (i = 0; i < 8; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			char data[4096], e[256];
			int k, bad = 0;

			memset(data, 'a' + i, sizeof(data));
			for (k = 0; k < 50; k++)
				bad |= sio_write_file(target, data, sizeof(data), 0644, e, sizeof(e));
			_exit(bad ? 1 : 0);
		}
	}
	for (i = 0; i < 8; i++) {
		int st;
		assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	char *buf;
	size_t len;
	assert_int_equal(sio_read_file(target, 1 << 20, &buf, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 4096);
	for (i = 1; i < 4096; i++)
		assert_int_equal(buf[i], buf[0]);	/* one writer's whole file */
	free(buf);
	assert_int_equal(count_entries(tu_dir), 1);
}

static void test_name_rule(void **state)
{
	(void)state;
	assert_true(sio_name_ok("qemu-tcg-96cpu"));
	assert_true(sio_name_ok("flush_tlb_all.v2"));
	assert_true(sio_name_ok("A1"));
	assert_false(sio_name_ok(""));
	assert_false(sio_name_ok(NULL));
	assert_false(sio_name_ok("../../tmp/x"));
	assert_false(sio_name_ok("a..b"));
	assert_false(sio_name_ok(".hidden"));
	assert_false(sio_name_ok("-flag"));
	assert_false(sio_name_ok("a/b"));
	assert_false(sio_name_ok("<script>"));
	assert_false(sio_name_ok("mixed' ; system('x')"));
	assert_false(sio_name_ok("sp ace"));
	char longname[SIO_NAME_MAX + 2];
	memset(longname, 'a', sizeof(longname));
	longname[SIO_NAME_MAX] = '\0';
	assert_true(sio_name_ok(longname));
	longname[SIO_NAME_MAX] = 'a';
	longname[SIO_NAME_MAX + 1] = '\0';
	assert_false(sio_name_ok(longname));
}

static void test_quote(void **state)
{
	char b[16];
	char seven[7] = "x";

	(void)state;
	sio_quote(b, sizeof(b), "tsc");
	assert_string_equal(b, "\"tsc\"");
	sio_quote(b, sizeof(b), "a\"\\\n\xff");
	assert_string_equal(b, "\"a\\\"\\\\\\x0a...\"");	/* \xff does not fit */
	assert_true(strlen(b) < sizeof(b));
	sio_quote(b, sizeof(b), "0123456789");
	assert_string_equal(b, "\"0123456789\"");	/* 12 + NUL, with room for "..." */
	sio_quote(b, sizeof(b), "0123456789ab");
	assert_string_equal(b, "\"0123456789...\"");
	sio_quote(seven, sizeof(seven), "x");
	assert_string_equal(seven, "");
	/* Printable ASCII as it is, anything else quoted. */
	assert_string_equal(sio_shown(b, sizeof(b), "mixed"), "mixed");
	assert_string_equal(sio_shown(b, sizeof(b), "mi\033[2J"), "\"mi\\x1b[2J\"");
	assert_string_equal(sio_shown(b, sizeof(b), "\x80"), "\"\\x80\"");
}

/* Bytes that are not UTF-8 become visible \xNN text, never a NULL that a
 * caller drops; valid UTF-8 is kept as it is. */
static void test_json_str(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain", "plain" },
		{ "caf\xc3\xa9 \xe2\x80\xae", "caf\xc3\xa9 \xe2\x80\xae" },	/* valid, kept */
		{ "run\xff", "run\\xff" },
		{ "cycles\xff", "cycles\\xff" },
		{ "\xc0\xaf", "\\xc0\\xaf" },		/* overlong '/' */
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },	/* a surrogate */
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },	/* above U+10FFFF */
		{ "a\xe2\x82", "a\\xe2\\x82" },		/* cut short */
		{ "\xe2\x82\xac\xfe", "\xe2\x82\xac\\xfe" },	/* valid, then not */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *j = sio_json_str(cases[i].in);

		assert_non_null(j);
		assert_string_equal(json_string_value(j), cases[i].out);
		assert_int_equal(sio_utf8_ok(cases[i].in), !strcmp(cases[i].in, cases[i].out));
		json_decref(j);
	}
	assert_null(sio_json_str(NULL));
}

/* A file name with an escape sequence and a newline is quoted in errors. */
static void test_errors_quote_names(void **state)
{
	char p[300], *buf;
	size_t len;
	struct stat st;

	(void)state;
	snprintf(p, sizeof(p), "%s/x\033[2J\nfake", tu_dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(sio_open_regular(p, 10, &st, err, sizeof(err)), -1);
	assert_null(strchr(err, '\033'));
	assert_null(strchr(err, '\n'));
	assert_non_null(strstr(err, "x\\x1b[2J\\x0afake\": not a regular file"));
	assert_int_equal(sio_read_file(p, 10, &buf, &len, err, sizeof(err)), -1);
	assert_null(strchr(err, '\033'));
}

static void test_mkdtemp_in(void **state)
{
	char *d;
	struct stat st;

	(void)state;
	d = sio_mkdtemp_in(tu_dir, "plots", err, sizeof(err));
	assert_non_null(d);
	assert_int_equal(stat(d, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	rmdir(d);
	free(d);
	assert_null(sio_mkdtemp_in("/nonexistent-tu_dir", "p", err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent-tu_dir: cannot create"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_refuses_devices_dirs_and_size, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_load_json_names_file_and_line, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_atomic_never_follows_planted_link, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_atomic_failure_keeps_old_content, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_writers_never_collide, tu_setup, tu_teardown),
		cmocka_unit_test(test_name_rule),
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_json_str),
		cmocka_unit_test_setup_teardown(test_errors_quote_names, tu_setup, tu_teardown),
		cmocka_unit_test_setup_teardown(test_mkdtemp_in, tu_setup, tu_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
