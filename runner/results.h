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

#define RESULTS_SCHEMA_VERSION 1

struct results {
	char dir[1024];          /* longer paths are refused */
	json_t *root;
};

/* A new store in DIR (created) for CONFIG read from CONFIG_FILE. */
int results_create(struct results *r, const char *dir, const char *config_file,
		   const struct config *c, char *err, size_t errlen);
/* An existing store (for --resume). */
int results_open(struct results *r, const char *dir, char *err, size_t errlen);
int results_save(struct results *r, char *err, size_t errlen);
void results_close(struct results *r);

/* The planned runs, in execution order: [{id, mode, repetition, status}]. */
json_t *results_runs(struct results *r);
/* Plan mode x repetition in the config's order (seeded shuffle for randomized). */
void results_plan(struct results *r, const struct config *c);
json_t *results_run_get(struct results *r, const char *id);
/* Copy a file through a temp file + rename. */
int results_copy_file(const char *from, const char *to, char *err, size_t errlen);

#endif
