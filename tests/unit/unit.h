/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tests/unit/unit.h: what every component's unit tests want alike
 * (header-only; cmocka tests of runner/, probes/, lib/ and analysis/):
 * a file read whole or written, and a fresh temporary directory per test.
 *
 *   cmocka_unit_test_setup_teardown(test, tu_setup, tu_teardown)
 *
 * runs TEST with tu_dir a new /tmp/ipibench-test-XXXXXX, removed with
 * everything in it afterwards, even when an assertion failed in the test.
 */
#ifndef IPIBENCH_TESTS_UNIT_H
#define IPIBENCH_TESTS_UNIT_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The whole of PATH, NUL-terminated (malloc'd); NULL when it cannot be read. */
static inline char *tu_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

/* PATH written with TEXT: 0, or -1 (errno set). */
static inline int tu_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	if (fputs(text, f) < 0) {
		fclose(f);
		return -1;
	}
	return fclose(f) ? -1 : 0;
}

static inline int tu_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* rm -rf DIR: 0, or -1. */
static inline int tu_rm_rf(const char *dir)
{
	return nftw(dir, tu_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The directory of the test that runs (tu_setup()). */
static char tu_dir[64] __attribute__((unused));

static inline int tu_setup(void **state)
{
	(void)state;
	snprintf(tu_dir, sizeof(tu_dir), "/tmp/ipibench-test-XXXXXX");
	return mkdtemp(tu_dir) ? 0 : -1;
}

static inline int tu_teardown(void **state)
{
	(void)state;
	return tu_rm_rf(tu_dir);
}

#endif
