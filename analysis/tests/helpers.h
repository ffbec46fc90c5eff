/* SPDX-License-Identifier: GPL-3.0-or-later */
/* analysis/tests/helpers.h: shared by the analysis tests (header-only). */
#ifndef ANALYSIS_TESTS_HELPERS_H
#define ANALYSIS_TESTS_HELPERS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "tests/unit/unit.h"

#define DATA "analysis/tests/data"

/*
 * Run a cmd_*() on ARGV (NULL-terminated: its length is the argc) with its
 * stdout (the printed report) sent to /dev/null; its exit status.
 */
static inline int run_quiet(int (*fn)(int, char **), char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	fflush(stdout);
	int saved = dup(1);
	int devnull = open("/dev/null", O_WRONLY);
	dup2(devnull, 1);
	close(devnull);
	int rc = fn(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	return rc;
}

/* expect_exit(cmd_report, 2, "report", "--bogus"): FN's exit status on those words. */
#define expect_exit(fn, want, ...) \
	assert_int_equal(run_quiet((fn), (char *[]){ __VA_ARGS__, NULL }), (want))

/* The whole file (malloc'd), NULL when unreadable. */
static inline char *slurp(const char *path)
{
	return tu_slurp(path);
}

static inline int file_contains(const char *path, const char *needle)
{
	char *s = slurp(path);
	int found = s && strstr(s, needle) != NULL;
	free(s);
	return found;
}

/*
 * Each of NEEDLES (NULL-terminated) is in TEXT (PRESENT) or none is
 * (!PRESENT); a failure names WHAT (a file's path, or NULL) and the needle.
 * Include after cmocka.h.
 */
static inline void expect_text(const char *what, const char *text,
			       const char *const *needles, int present)
{
	if (!text)
		fail_msg("%s cannot be read", what ? what : "text");
	for (; *needles; needles++)
		if ((strstr(text, *needles) != NULL) != present)
			fail_msg("%s %s \"%s\"", what ? what : "text",
				 present ? "lacks" : "has", *needles);
}

/* The same for the whole file PATH (not freed when a check fails). */
static inline void expect_file(const char *path, const char *const *needles, int present)
{
	char *s = slurp(path);

	expect_text(path, s, needles, present);
	free(s);
}

/* expect_in_text(text, "a", "b"), ... : each needle is (not) there. */
#define expect_in_text(text, ...) \
	expect_text(NULL, (text), (const char *const[]){ __VA_ARGS__, NULL }, 1)
#define expect_not_in_text(text, ...) \
	expect_text(NULL, (text), (const char *const[]){ __VA_ARGS__, NULL }, 0)
#define expect_in_file(path, ...) \
	expect_file((path), (const char *const[]){ __VA_ARGS__, NULL }, 1)
#define expect_not_in_file(path, ...) \
	expect_file((path), (const char *const[]){ __VA_ARGS__, NULL }, 0)

static inline long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static inline int is_png(const char *path)
{
	static const unsigned char magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	unsigned char b[8] = { 0 };
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t n = fread(b, 1, 8, f);
	fclose(f);
	return n == 8 && !memcmp(b, magic, 8) && file_size(path) > 1000;
}

static inline int is_svg(const char *path)
{
	return file_size(path) > 500 && file_contains(path, "<svg");
}

/* Any leftover temporary file (NAME.tmp.PID, NAME.png.tmp) in dir? */
static inline int has_tmp_files(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *e;
	int found = 0;
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".tmp"))
			found = 1;
	closedir(d);
	return found;
}

static inline char *make_tmpdir(void)
{
	char tmpl[] = "/tmp/ipibench-test-XXXXXX";
	char *d = mkdtemp(tmpl);
	return d ? strdup(d) : NULL;
}

static inline void rm_rf(const char *dir)
{
	tu_rm_rf(dir);
}

/*
 * A cmocka fixture: a fresh temporary directory in *state, removed after
 * the test even when an assertion failed in it
 * (cmocka_unit_test_setup_teardown(test, tmpdir_setup, tmpdir_teardown)).
 */
static inline int tmpdir_setup(void **state)
{
	*state = make_tmpdir();
	return *state ? 0 : -1;
}

static inline int tmpdir_teardown(void **state)
{
	rm_rf(*state);
	free(*state);
	return 0;
}

static inline char *path2(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* DIR/NAME made as a folder (a fixture's temporary folder holds the
 * test's inputs and outputs, so that tmpdir_teardown removes them all,
 * also when an assertion ends the test early); the caller frees it. */
static inline char *tmp_subdir(const char *dir, const char *name)
{
	char *p = path2(dir, name);

	if (mkdir(p, 0700) != 0) {
		fprintf(stderr, "%s: %s\n", p, strerror(errno));
		abort();
	}
	return p;
}

/* The first object of ARRAY whose string KEY is VALUE; NULL: none. */
static inline json_t *json_find(json_t *array, const char *key, const char *value)
{
	size_t i;
	json_t *e;

	json_array_foreach(array, i, e) {
		const char *v = json_string_value(json_object_get(e, key));

		if (v && !strcmp(v, value))
			return e;
	}
	return NULL;
}

#endif
