/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helpers for the QEMU integration tests: run the built ipibench, capture. */
#ifndef IPIBENCH_ITEST_H
#define IPIBENCH_ITEST_H

#include <stddef.h>

#include <jansson.h>

struct cmd_out {
	int status;      /* exit status, or 128 + signal */
	int pid;         /* the ipibench process that ran */
	char *text;      /* stdout + stderr, NUL-terminated (free it) */
};

/*
 * Run BUILD/bin/ipibench with argv (NULL-terminated, without "ipibench").
 * The child dies with the test (PR_SET_PDEATHSIG), and so does its QEMU.
 */
void itest_run(struct cmd_out *out, const char *const *args);
/*
 * Start ipibench in the background with output to LOG; returns its pid.
 * It dies with the test (PR_SET_PDEATHSIG), and so does its QEMU.
 */
int itest_spawn(const char *const *args, const char *log);
/* Number of live processes whose command line contains "ipibench-PID". */
int itest_qemu_alive(int pid);
/* The ipibench binary the tests run. */
const char *itest_ipibench(void);
/*
 * The hypervisor the tests boot: $ITEST_XEN (a build as `--xen` takes it,
 * e.g. build/xen-src-4.20.4/xen), or NULL for the default, build/xen/xen.
 * itest_run and itest_spawn pass it as `--xen` to `run` and `boot` (unless
 * the test names a build itself, or resumes a run).
 */
const char *itest_xen(void);
/* The build ITEST_XEN names has LINE (e.g. "CONFIG_DEBUG=y") in the
 * xen.config beside it; fails the test when there is none. */
int itest_xen_config_has(const char *line);

/* How many lines of FILE (a console log, say) hold NEEDLE; 0 without FILE. */
int itest_count_in(const char *file, const char *needle);

/* A result set's lookups (NULL when absent). */
json_t *itest_run_of(json_t *results, const char *mode);
json_t *itest_workload(json_t *run, const char *name);
/*
 * The same lookups for a test that cannot go on without them: each fails
 * the current cmocka test (fail_msg, naming what is missing) instead of
 * returning NULL.  itest_need_run: the run of MODE; itest_need_ok_run: that
 * run with status "ok" (else its error); itest_need_workload: RUN's
 * workload NAME with status "ok" (else its error).
 */
json_t *itest_need_run(json_t *results, const char *mode);
json_t *itest_need_ok_run(json_t *results, const char *mode);
json_t *itest_need_workload(json_t *run, const char *name);
/* O's KEY as an integer, or as a number (an integer too), or fail. */
json_int_t itest_int(json_t *o, const char *key);
double itest_number(json_t *o, const char *key);
/* COUNTERS' ICR writes per operation (integer division), or fail when it
 * has no operation. */
json_int_t itest_icr_per_call(json_t *counters);
/* O's KEY as a string, "" when absent or not a string. */
const char *itest_str(json_t *o, const char *key);
/* `ipibench run -c CONFIG -o DIR` into an emptied DIR (its output on
 * stderr if SHOW), then its results, or NULL. */
json_t *itest_run_config(const char *config, const char *dir, int show);
/* DIR/results.json, or NULL. */
json_t *itest_load_results(const char *dir);
/* A cmocka group teardown for a test's results (a json_t ** as state). */
int itest_free_results(json_t **results);
/*
 * A fault test's setup: `ipibench run -c CONFIG -o DIR` into an emptied
 * DIR, its time and exit status said on stderr as NAME's (its output too
 * when it failed), its exit status in *status (when not NULL); then its
 * results, or NULL (also when its QEMU is still running).
 */
json_t *itest_fault_run(const char *name, const char *config, const char *dir, int *status);
/* The fault report of RESULTS' fault workload NAME in the run of MODE,
 * which must have done its job (else the current cmocka test fails). */
json_t *itest_fault_of(json_t *results, const char *mode, const char *name);

#endif
