/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runner/util.h"
#include "workloads/workloads.h"
#include "lib/spawn.h"

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void iso_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int find_program(const char *prog)
{
	char path[PATH_MAX];
	const char *env = getenv("PATH");

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	if (!env)
		return 0;
	for (const char *p = env; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(path, sizeof(path), "%.*s/%s", (int)n, p, prog);
		if (n && access(path, X_OK) == 0)
			return 1;
		p += n + (p[n] == ':');
	}
	return 0;
}

const char *qemu_version(const char *qemu)
{
	static char ver[64];
	struct sio_child c = SIO_CHILD_INIT;
	char *out;
	const char *p;
	int st;

	ver[0] = '\0';
	c.argv = (const char *[]){ qemu, "--version", NULL };
	out = sio_child_capture(&c, 4096, &st);
	p = out && st == 0 ? strstr(out, "version ") : NULL;
	if (p && (!strchr(out, '\n') || p < strchr(out, '\n')))
		sscanf(p + 8, "%63[0-9.]", ver);
	free(out);
	return ver;
}

int run_mkdirs(const char *path)
{
	char tmp[PATH_MAX];

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

const char *build_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("IPIBENCH_BUILD");
	ssize_t n;

	if (env && *env)
		return env;
	if (dir[0])
		return dir;
	/* BUILD/bin/ipibench or BUILD/asan/bin/ipibench */
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0)
		return strcpy(dir, "build");
	dir[n] = '\0';
	char *d = dirname(dirname(dir));
	memmove(dir, d, strlen(d) + 1);
	if (!strcmp(basename(dir), "asan"))
		memmove(dir, dirname(dir), strlen(dir) + 1);
	return dir;
}

long parse_uint(const char *s, long min, long max)
{
	char err[160];
	long v;

	/* the config's rule: decimal digits as written (no 010, 0x10, +1) */
	if (!s || min < 0 || keys_parse_int("", s, 10, min, max, &v, err, sizeof(err)))
		return -1;
	return v;
}
