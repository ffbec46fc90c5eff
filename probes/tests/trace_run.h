/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/tests/trace_run.h: `ipibench trace ARGS...` run in the test's own
 * process (cmd_trace()), its stdout and stderr captured into out, for the
 * tests of the trace verbs (header-only, like tests/unit/unit.h).
 *
 *   assert_int_equal(run("summary", path, NULL), 0);
 *   assert_non_null(strstr(out, "apic:icr_write"));
 */
#ifndef IPIBENCH_PROBES_TESTS_TRACE_RUN_H
#define IPIBENCH_PROBES_TESTS_TRACE_RUN_H

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "probes/probes.h"

/* What the last run() printed, NUL-terminated (the rest cut off). */
static char out[1 << 16];

/* cmd_trace("trace", FIRST, ..., NULL): its exit status; at most 22 args. */
static int run(const char *first, ...)
{
	char *argv[24];
	int argc = 0, rc, saved_out, saved_err;
	FILE *tmp = tmpfile();
	va_list ap;
	size_t n;

	argv[argc++] = (char *)"trace";
	va_start(ap, first);
	for (const char *a = first; a && argc < 23; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	dup2(fileno(tmp), 1);
	dup2(fileno(tmp), 2);
	rc = cmd_trace(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	rewind(tmp);
	n = fread(out, 1, sizeof(out) - 1, tmp);
	out[n] = 0;
	fclose(tmp);
	return rc;
}

#endif
