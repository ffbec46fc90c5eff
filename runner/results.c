/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ipibench/counters.h"
#include "runner/backend.h"
#include "runner/results.h"
#include "runner/runner.h"
#include "runner/util.h"
#include "lib/safeio.h"

#ifndef IPIBENCH_COMMIT
#define IPIBENCH_COMMIT "unknown"
#endif

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
	if (sio_write_file(path, c->text, c->textlen, 0644, err, errlen))
		return -1;
	iso_now(now, sizeof(now));
	r->root = json_object();
	json_object_set_new(r->root, IPB_KEY(SCHEMA_VERSION), json_integer(IPB_RESULTS_SCHEMA_VERSION));
	tool = json_object();
	json_object_set_new(tool, IPB_KEY(TOOL_NAME), json_string("ipibench"));
	json_object_set_new(tool, IPB_KEY(TOOL_VERSION), json_string(IPIBENCH_VERSION));
	json_object_set_new(tool, IPB_KEY(TOOL_COMMIT), json_string(IPIBENCH_COMMIT));
	json_object_set_new(r->root, IPB_KEY(TOOL), tool);
	json_object_set_new(r->root, IPB_KEY(CREATED), json_string(now));
	json_object_set_new(r->root, IPB_KEY(CONFIG_FILE), sio_json_str(config_file));
	json_object_set(r->root, IPB_KEY(CONFIG), c->sections);
	json_object_set_new(r->root, IPB_KEY(HOST), json_object());
	json_object_set_new(r->root, IPB_KEY(RUNS), json_array());
	results_plan(r, c);
	return results_save(r, err, errlen);
}

#define BAD(...) do { \
		char m_[1024]; \
		snprintf(m_, sizeof(m_), __VA_ARGS__); \
		snprintf(err, errlen, "%s: %s", path, m_); \
		return -1; \
	} while (0)

/* An integer member KEY of run I in [min, max]; absent is fine (returns 0). */
static int check_int(const json_t *run, size_t i, const char *key, json_int_t min,
		     json_int_t max, const char *path, char *err, size_t errlen)
{
	const json_t *v = json_object_get(run, key);

	if (!v)
		return 0;
	if (!json_is_integer(v))
		BAD("$.runs[%zu].%s: expected an integer, not %s", i, key, sio_json_kind(v));
	if (json_integer_value(v) < min || json_integer_value(v) > max)
		BAD("$.runs[%zu].%s: %" JSON_INTEGER_FORMAT " is not in [%" JSON_INTEGER_FORMAT
		    ", %" JSON_INTEGER_FORMAT "]", i, key, json_integer_value(v), min, max);
	return 0;
}

/* A string member KEY of run I; its value in *out. */
static int check_str(const json_t *run, size_t i, const char *key, const char *what,
		     const char **out, const char *path, char *err, size_t errlen)
{
	const json_t *v = json_object_get(run, key);

	if (!v)
		BAD("$.runs[%zu].%s: missing (%s)", i, key, what);
	if (!json_is_string(v))
		BAD("$.runs[%zu].%s: expected a string (%s), not %s", i, key, what, sio_json_kind(v));
	*out = json_string_value(v);
	return 0;
}

/* A run's: stalled is a run that stopped making progress (runner/stall.h). */
static const char *const statuses[] = { "ok", "failed", "stalled", "pending", "running", NULL };
/* A guest run's: a guest run has no stall window. */
static const char *const guest_statuses[] = { "ok", "failed", "pending", "running", NULL };

/* $.guest_runs, when there: [{id, ipi_path, status, ...}] (runner/guest.h). */
static int check_guest_runs(const json_t *root, const char *path, char *err, size_t errlen)
{
	const json_t *gr = json_object_get(root, IPB_KEY(GUEST_RUNS)), *run, *v;
	char q[SIO_NAME_MAX * 4 + 16];
	size_t i, k;

	if (!gr)
		return 0;
	if (!json_is_array(gr))
		BAD("$.guest_runs: expected an array, not %s", sio_json_kind(gr));
	if (json_array_size(gr) > RESULTS_MAX_RUNS)
		BAD("$.guest_runs: %zu runs, more than the %d a config can plan",
		    json_array_size(gr), RESULTS_MAX_RUNS);
	json_array_foreach(gr, i, run) {
		const char *id, *status;

		if (!json_is_object(run))
			BAD("$.guest_runs[%zu]: expected an object, not %s", i, sio_json_kind(run));
		v = json_object_get(run, "id");
		if (!v)
			BAD("$.guest_runs[%zu].id: missing (a run id)", i);
		if (!json_is_string(v))
			BAD("$.guest_runs[%zu].id: expected a string (a run id), not %s", i,
			    sio_json_kind(v));
		if (!sio_name_ok(json_string_value(v))) {
			sio_quote(q, sizeof(q), json_string_value(v));
			BAD("$.guest_runs[%zu].id: %s is not a valid run id", i, q);
		}
		id = json_string_value(v);
		for (k = 0; k < i; k++)
			if (!strcmp(json_string_value(json_object_get(json_array_get(gr, k), "id")), id))
				BAD("$.guest_runs[%zu].id: \"%s\" is also $.guest_runs[%zu].id", i, id, k);
		v = json_object_get(run, "ipi_path");
		if (!json_is_string(v) || (strcmp(json_string_value(v), cfg_ipi_path_name(IPI_PATH_EVTCHN)) &&
					   strcmp(json_string_value(v), cfg_ipi_path_name(IPI_PATH_APIC))))
			BAD("$.guest_runs[%zu].ipi_path: expected %s or %s", i,
			    cfg_ipi_path_name(IPI_PATH_EVTCHN), cfg_ipi_path_name(IPI_PATH_APIC));
		v = json_object_get(run, "msi_path");
		if (v && (!json_is_string(v) || (strcmp(json_string_value(v), cfg_msi_path_name(MSI_PATH_PIRQ)) &&
						 strcmp(json_string_value(v), cfg_msi_path_name(MSI_PATH_APIC)))))
			BAD("$.guest_runs[%zu].msi_path: expected %s or %s", i,
			    cfg_msi_path_name(MSI_PATH_PIRQ), cfg_msi_path_name(MSI_PATH_APIC));
		v = json_object_get(run, "status");
		if (!json_is_string(v))
			BAD("$.guest_runs[%zu].status: expected ok, failed, pending or running", i);
		status = json_string_value(v);
		for (k = 0; guest_statuses[k] && strcmp(guest_statuses[k], status); k++)
			;
		if (!guest_statuses[k]) {
			sio_quote(q, sizeof(q), status);
			BAD("$.guest_runs[%zu].status: %s is not ok, failed, pending or running", i, q);
		}
		v = json_object_get(run, "repetition");
		if (v && (!json_is_integer(v) || json_integer_value(v) < 0 ||
			  json_integer_value(v) > 999))
			BAD("$.guest_runs[%zu].repetition: expected an integer in [0, 999]", i);
	}
	return 0;
}

int results_check(const json_t *root, const char *path, char *err, size_t errlen)
{
	const json_t *v, *runs, *run;
	char q[SIO_NAME_MAX * 4 + 16];
	size_t i;

	if (!json_is_object(root))
		BAD("$: expected an object (ipibench results), not %s", sio_json_kind(root));
	v = json_object_get(root, IPB_KEY(SCHEMA_VERSION));
	if (!v)
		BAD("$.schema_version: missing: not an ipibench results file");
	if (!json_is_integer(v) || json_integer_value(v) != IPB_RESULTS_SCHEMA_VERSION)
		BAD("$.schema_version: expected %d%s", IPB_RESULTS_SCHEMA_VERSION,
		    json_is_integer(v) && json_integer_value(v) > IPB_RESULTS_SCHEMA_VERSION ?
		    " (written by a newer ipibench?)" : "");
	v = json_object_get(root, IPB_KEY(HOST));
	if (v && !json_is_object(v))
		BAD("$.host: expected an object, not %s", sio_json_kind(v));
	runs = json_object_get(root, IPB_KEY(RUNS));
	if (!json_is_array(runs))
		BAD("$.runs: %s%s", runs ? "expected an array, not " : "missing",
		    runs ? sio_json_kind(runs) : "");
	if (check_guest_runs(root, path, err, errlen))
		return -1;
	if (!json_array_size(runs) && !json_array_size(json_object_get(root, IPB_KEY(GUEST_RUNS))))
		BAD("$.runs: empty (a results file has every planned run)");
	if (json_array_size(runs) > RESULTS_MAX_RUNS)
		BAD("$.runs: %zu runs, more than the %d a matrix can plan",
		    json_array_size(runs), RESULTS_MAX_RUNS);
	json_array_foreach(runs, i, run) {
		const char *id, *mode, *status;
		size_t k;

		if (!json_is_object(run))
			BAD("$.runs[%zu]: expected an object, not %s", i, sio_json_kind(run));
		if (check_str(run, i, IPB_KEY(RUN_ID), "a run id", &id, path, err, errlen))
			return -1;
		if (!sio_name_ok(id)) {
			sio_quote(q, sizeof(q), id);
			BAD("$.runs[%zu].id: %s is not a valid run id (letters, digits, '.', "
			    "'_', '-', at most %d bytes, no '..')", i, q, SIO_NAME_MAX);
		}
		for (k = 0; k < i; k++)
			if (!strcmp(json_string_value(json_object_get(json_array_get(runs, k), IPB_KEY(RUN_ID))),
				    id))
				BAD("$.runs[%zu].id: \"%s\" is also $.runs[%zu].id", i, id, k);
		if (check_str(run, i, IPB_KEY(RUN_MODE), mode_list(), &mode, path, err, errlen))
			return -1;
		if (!mode_genapic(mode)) {
			sio_quote(q, sizeof(q), mode);
			BAD("$.runs[%zu].mode: %s is not a mode (%s)", i, q, mode_list());
		}
		if (check_str(run, i, IPB_KEY(RUN_STATUS), "ok, failed, stalled, pending or running", &status,
			      path, err, errlen))
			return -1;
		for (k = 0; statuses[k] && strcmp(statuses[k], status); k++)
			;
		if (!statuses[k]) {
			sio_quote(q, sizeof(q), status);
			BAD("$.runs[%zu].status: %s is not ok, failed, stalled, pending or running", i, q);
		}
		if (check_int(run, i, IPB_KEY(RUN_REPETITION), 0, 999, path, err, errlen) ||
		    check_int(run, i, IPB_KEY(RUN_CPUS), 1, 4096, path, err, errlen) ||
		    check_int(run, i, IPB_KEY(RUN_MAXCPUS), 1, 4096, path, err, errlen))
			return -1;
		if (json_integer_value(json_object_get(run, IPB_KEY(RUN_MAXCPUS))) &&
		    json_integer_value(json_object_get(run, IPB_KEY(RUN_MAXCPUS))) <
		    json_integer_value(json_object_get(run, IPB_KEY(RUN_CPUS))))
			BAD("$.runs[%zu].maxcpus: below $.runs[%zu].cpus", i, i);
	}
	return 0;
}
#undef BAD

int results_open(struct results *r, const char *dir, char *err, size_t errlen)
{
	char path[4200];

	if (results_init(r, dir, path, sizeof(path), err, errlen))
		return -1;
	r->root = sio_load_json(path, SIO_MAX_JSON, err, errlen);
	if (!r->root)
		return -1;
	if (results_check(r->root, path, err, errlen)) {
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
	return sio_write_json(path, r->root, JSON_INDENT(1) | JSON_SORT_KEYS, err, errlen);
}

void results_close(struct results *r)
{
	json_decref(r->root);
	r->root = NULL;
}

json_t *results_runs(struct results *r)
{
	return json_object_get(r->root, IPB_KEY(RUNS));
}

json_t *results_run_get(struct results *r, const char *id)
{
	json_t *runs = results_runs(r), *run;
	size_t i;

	json_array_foreach(runs, i, run)
		if (!strcmp(json_string_value(json_object_get(run, IPB_KEY(RUN_ID))) ?: "", id))
			return run;
	return NULL;
}

static json_t *planned(const struct config *c, const char *mode, unsigned int rep)
{
	char id[64];
	json_t *run = json_object();

	snprintf(id, sizeof(id), "%s-r%u", mode, rep);
	json_object_set_new(run, IPB_KEY(RUN_ID), json_string(id));
	json_object_set_new(run, IPB_KEY(RUN_MODE), json_string(mode));
	json_object_set_new(run, IPB_KEY(RUN_REPETITION), json_integer(rep));
	json_object_set_new(run, IPB_KEY(RUN_STATUS), json_string("pending"));
	json_object_set_new(run, IPB_KEY(RUN_CPUS), json_integer(c->host.cpus));
	json_object_set_new(run, IPB_KEY(RUN_MAXCPUS), json_integer(c->host.maxcpus));
	return run;
}

json_t *results_guest_runs(struct results *r)
{
	return json_object_get(r->root, IPB_KEY(GUEST_RUNS));
}

void results_plan(struct results *r, const struct config *c)
{
	json_t *runs = results_runs(r);
	unsigned int nm = c->matrix.nmodes, nr = c->matrix.repetitions;

	if (c->guest.given) {
		/* Guest runs instead of boots: each repetition of each IPI path,
		 * the paths in the config's order (evtchn-r0 apic-r0 evtchn-r1 ...). */
		/* An HVM guest with a NIC: each MSI path instead (pirq-r0 apic-r0
		 * ...), with the IPI path that goes with it. */
		json_t *gr = json_array();
		int nic = cfg_guest_nic_runs(&c->guest);
		unsigned int np = nic ? c->guest.nmsi : c->guest.npaths;

		for (unsigned int k = 0; k < nr; k++)
			for (unsigned int p = 0; p < np; p++) {
				json_t *g = json_object();
				enum cfg_ipi_path ip = nic ? cfg_msi_path_ipi(c->guest.msi_paths[p]) :
					c->guest.paths[p];
				char id[64];

				snprintf(id, sizeof(id), "%s-r%u", nic ? cfg_msi_path_name(c->guest.msi_paths[p]) :
					 cfg_ipi_path_name(ip), k);
				json_object_set_new(g, "id", json_string(id));
				json_object_set_new(g, "ipi_path", json_string(cfg_ipi_path_name(ip)));
				if (nic)
					json_object_set_new(g, "msi_path",
							    json_string(cfg_msi_path_name(c->guest.msi_paths[p])));
				json_object_set_new(g, "repetition", json_integer(k));
				json_object_set_new(g, "workload", json_string(nic ? RESULTS_GUEST_NIC_WORKLOAD :
									       RESULTS_GUEST_WORKLOAD));
				json_object_set_new(g, "status", json_string("pending"));
				json_array_append_new(gr, g);
			}
		json_object_set_new(r->root, IPB_KEY(GUEST_RUNS), gr);
		return;
	}

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
