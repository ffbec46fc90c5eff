/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Small helpers shared by the runner's commands and backends. */
#ifndef IPIBENCH_UTIL_H
#define IPIBENCH_UTIL_H

#include <stddef.h>

#include <jansson.h>

/* Monotonic seconds. */
double now_s(void);
/* 1 when PROG (a path, or a name looked up in PATH) is executable. */
int find_program(const char *prog);
/* "QEMU emulator version 10.0.2 ..." -> "10.0.2" (static buffer; "" if unknown). */
const char *qemu_version(const char *qemu);
/* The current UTC time as ISO 8601 ("2026-11-30T09:00:00Z"). */
void iso_now(char *buf, size_t len);
/* mkdir -p; 0 or -1 with errno. */
int run_mkdirs(const char *path);
/* The build directory (IPIBENCH_BUILD, or the one this binary was built in). */
const char *build_dir(void);
/* A non-negative integer option value, by keys_parse_int()'s decimal rule; -1
 * when not a number in [min,max] written that way. */
long parse_uint(const char *s, long min, long max);

#endif
