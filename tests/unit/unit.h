/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tests/unit/unit.h: what every component's unit tests want alike
 * (header-only; cmocka tests of runner/, probes/, lib/ and analysis/):
 * a file read whole or written, a fresh temporary directory per test, and
 * a poll for what a child does that costs a millisecond when it is done.
 *
 *   cmocka_unit_test_setup_teardown(test, tu_setup, tu_teardown)
 *
 * runs TEST with tu_dir a new /tmp/ipibench-test-XXXXXX, removed with
 * everything in it afterwards, even when an assertion failed in the test.
 */
#ifndef IPIBENCH_TESTS_UNIT_H
#define IPIBENCH_TESTS_UNIT_H

#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/*
 * Waiting for a child or a fake program, within MS milliseconds:
 *
 *   for (struct tu_wait w = tu_wait_start(20000); tu_wait_more(&w);)
 *           if (done())
 *                   return;
 *
 * The first pass does not sleep; after it each pass sleeps 1 ms, then
 * twice as long as the last, at most 100 ms.  A condition met at once
 * costs no sleep, and one met soon costs about as long again, where a
 * fixed 100 ms step cost 100 ms every time.
 */
struct tu_wait {
	struct timespec end;
	long us;
};

static inline struct tu_wait tu_wait_start(long ms)
{
	struct tu_wait w = { .us = 0 };

	clock_gettime(CLOCK_MONOTONIC, &w.end);
	w.end.tv_sec += ms / 1000;
	w.end.tv_nsec += (ms % 1000) * 1000000L;
	if (w.end.tv_nsec >= 1000000000L) {
		w.end.tv_sec++;
		w.end.tv_nsec -= 1000000000L;
	}
	return w;
}

/* False once the time is up (the caller then fails or gives up). */
static inline bool tu_wait_more(struct tu_wait *w)
{
	struct timespec now;

	if (!w->us) {
		w->us = 1000;
		return true;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > w->end.tv_sec ||
	    (now.tv_sec == w->end.tv_sec && now.tv_nsec >= w->end.tv_nsec))
		return false;
	usleep((useconds_t)w->us);
	w->us = w->us * 2 > 100000 ? 100000 : w->us * 2;
	return true;
}

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
