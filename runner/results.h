/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The results store: DIR/results.json (docs/results-schema.md), DIR/config.ini
 * (the config as given), DIR/runs/<id>/ (what the host left: console.log,
 * job.json, agent.json) and DIR/traces/.  results.json is rewritten
 * atomically after every change, so a crash, kill or full disk leaves the
 * finished runs intact and the interrupted one marked.
 */
#ifndef IPIBENCH_RESULTS_H
#define IPIBENCH_RESULTS_H

#include <stddef.h>

#include <jansson.h>

#include "runner/config.h"

/* The most runs a matrix plans: every mode x 1000 repetitions. */
#define RESULTS_MAX_RUNS (CFG_MAX_MODES * 1000)

struct results {
	char dir[1024];          /* longer paths are refused */
	json_t *root;
};

/* A new store in DIR (created) for CONFIG read from CONFIG_FILE. */
int results_create(struct results *r, const char *dir, const char *config_file,
		   const struct config *c, char *err, size_t errlen);
/* An existing store (for --resume): results.json read within SIO_MAX_JSON
 * and checked by results_check() before anything uses it. */
int results_open(struct results *r, const char *dir, char *err, size_t errlen);
int results_save(struct results *r, char *err, size_t errlen);
void results_close(struct results *r);

/* The planned runs, in execution order: [{id, mode, repetition, status}]. */
json_t *results_runs(struct results *r);
/* Plan mode x repetition in the config's order (seeded shuffle for randomized). */
void results_plan(struct results *r, const struct config *c);
json_t *results_run_get(struct results *r, const char *id);
/*
 * A config with [guest] plans guest runs instead (runs is then empty):
 * [{id: PATH-rK, ipi_path, repetition, workload, status}], filled in by
 * runner/guest.h's lifecycle (docs/results-schema.md).  NULL without.
 */
json_t *results_guest_runs(struct results *r);
/* The guest's workload (guest/init's ipbipi module). */
#define RESULTS_GUEST_WORKLOAD "ipbipi"
/* An HVM guest with a NIC: dom0's ping -f and ab against it (guest/init's ipb.nic). */
#define RESULTS_GUEST_NIC_WORKLOAD "nic"
/*
 * Check what the runner uses of a results file read from PATH: an object of
 * schema_version 1, a non-empty runs array whose runs are objects with an id
 * by the name rule (sio_name_ok, unique), a mode of ipibench/modes.h, a
 * status ok|failed|pending|running ("running": the run a kill interrupted),
 * and in-range repetition/cpus/maxcpus when present; the same of
 * guest_runs when there (then runs may be empty).  0, or -1 with
 * "PATH: $.runs[0].mode: ..." (one line) in err.
 */
int results_check(const json_t *root, const char *path, char *err, size_t errlen);

#endif
