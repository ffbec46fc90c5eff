#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runner/results.h"
#include "runner/runner.h"
#include "runner/util.h"

#ifndef IPIBENCH_COMMIT
#define IPIBENCH_COMMIT "unknown"
#endif

int results_copy_file(const char *from, const char *to, char *err, size_t errlen)
{
	char tmp[4200], buf[65536];
	FILE *in = fopen(from, "rb"), *out;
	size_t n;

	if (!in) {
		snprintf(err, errlen, "%s: %s", from, strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", to);
	out = fopen(tmp, "wb");
	if (!out) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	if (fclose(out) || rename(tmp, to)) {
		snprintf(err, errlen, "%s: %s", to, strerror(errno));
		return -1;
	}
	return 0;
}

/* Set r up for DIR and its results.json path; refuse paths that do not fit. */
static int results_init(struct results *r, const char *dir, char *path, size_t plen,
			char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	if (strlen(dir) >= sizeof(r->dir)) {
		snprintf(err, errlen, "%.64s...: results directory path too long", dir);
		return -1;
	}
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	snprintf(path, plen, "%s/results.json", dir);
	return 0;
}

int results_create(struct results *r, const char *dir, const char *config_file,
		   const struct config *c, char *err, size_t errlen)
{
	char path[4200], now[32];
	json_t *tool;

	if (results_init(r, dir, path, sizeof(path), err, errlen))
		return -1;
	if (!access(path, F_OK)) {
		snprintf(err, errlen, "%s exists: use 'ipibench run --resume %s' or another -o DIR",
			 path, dir);
		return -1;
	}
	if (run_mkdirs(dir)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/config.ini", dir);
	if (results_copy_file(config_file, path, err, errlen))
		return -1;
	iso_now(now, sizeof(now));
	r->root = json_object();
	json_object_set_new(r->root, "schema_version", json_integer(RESULTS_SCHEMA_VERSION));
	tool = json_object();
	json_object_set_new(tool, "name", json_string("ipibench"));
	json_object_set_new(tool, "version", json_string(IPIBENCH_VERSION));
	json_object_set_new(tool, "commit", json_string(IPIBENCH_COMMIT));
	json_object_set_new(r->root, "tool", tool);
	json_object_set_new(r->root, "created", json_string(now));
	json_object_set_new(r->root, "config_file", json_string(config_file));
	json_object_set(r->root, "config", c->sections);
	json_object_set_new(r->root, "host", json_object());
	json_object_set_new(r->root, "runs", json_array());
	results_plan(r, c);
	return results_save(r, err, errlen);
}

int results_open(struct results *r, const char *dir, char *err, size_t errlen)
{
	char path[4200];
	json_error_t je;

	if (results_init(r, dir, path, sizeof(path), err, errlen))
		return -1;
	r->root = json_load_file(path, 0, &je);
	if (!r->root) {
		snprintf(err, errlen, "%s:%d:%d: %s", path, je.line, je.column, je.text);
		return -1;
	}
	json_int_t v = json_integer_value(json_object_get(r->root, "schema_version"));
	if (v != RESULTS_SCHEMA_VERSION || !json_is_array(json_object_get(r->root, "runs"))) {
		snprintf(err, errlen, "%s: not an ipibench results file of schema_version %d",
			 path, RESULTS_SCHEMA_VERSION);
		json_decref(r->root);
		r->root = NULL;
		return -1;
	}
	return 0;
}

int results_save(struct results *r, char *err, size_t errlen)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/results.json", r->dir);
	return json_write_atomic(path, r->root, err, errlen);
}

void results_close(struct results *r)
{
	json_decref(r->root);
	r->root = NULL;
}

json_t *results_runs(struct results *r)
{
	return json_object_get(r->root, "runs");
}

json_t *results_run_get(struct results *r, const char *id)
{
	json_t *runs = results_runs(r), *run;
	size_t i;

	json_array_foreach(runs, i, run)
		if (!strcmp(json_string_value(json_object_get(run, "id")), id))
			return run;
	return NULL;
}

static json_t *planned(const struct config *c, const char *mode, unsigned int rep)
{
	char id[64];
	json_t *run = json_object();

	snprintf(id, sizeof(id), "%s-r%u", mode, rep);
	json_object_set_new(run, "id", json_string(id));
	json_object_set_new(run, "mode", json_string(mode));
	json_object_set_new(run, "repetition", json_integer(rep));
	json_object_set_new(run, "status", json_string("pending"));
	json_object_set_new(run, "cpus", json_integer(c->host.cpus));
	json_object_set_new(run, "maxcpus", json_integer(c->host.maxcpus));
	return run;
}

void results_plan(struct results *r, const struct config *c)
{
	json_t *runs = results_runs(r);
	unsigned int nm = c->matrix.nmodes, nr = c->matrix.repetitions;

	if (c->matrix.order == ORDER_BLOCKED) {
		for (unsigned int m = 0; m < nm; m++)
			for (unsigned int k = 0; k < nr; k++)
				json_array_append_new(runs, planned(c, c->matrix.modes[m], k));
		return;
	}
	/* interleaved: physical-r0 mixed-r0 physical-r1 ... */
	for (unsigned int k = 0; k < nr; k++)
		for (unsigned int m = 0; m < nm; m++)
			json_array_append_new(runs, planned(c, c->matrix.modes[m], k));
	if (c->matrix.order == ORDER_RANDOMIZED) {
		/* Fisher-Yates with the config's seed: the same order on resume. */
		size_t n = json_array_size(runs);
		unsigned int s = c->matrix.seed ? c->matrix.seed : 1;

		for (size_t i = n - 1; i > 0; i--) {
			size_t j = rand_r(&s) % (i + 1);
			json_t *a = json_incref(json_array_get(runs, i));
			json_t *b = json_incref(json_array_get(runs, j));

			json_array_set_new(runs, i, b);
			json_array_set_new(runs, j, a);
		}
	}
}
