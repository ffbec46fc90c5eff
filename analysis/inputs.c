/*
 * analysis/inputs.c: read what a report is made of, detected by content:
 *   - ipibench results.json (docs/results-schema.md): an object with
 *     "schema_version" and "runs";
 *   - hyperfine --export-json: an object with "results": [{"command", ...}];
 *   - perf stat -x, CSV: "value,unit,event,..." lines, '#' comments.
 * Errors are one line naming the file (and line/column from jansson).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "analysis/internal.h"

static char *read_all(const char *path, size_t *len, char *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, AN_ERRLEN, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct sbuf b = { 0 };
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (b.len + n + 1 > b.cap) {
			b.cap = (b.len + n + 1) * 2;
			b.s = xrealloc(b.s, b.cap);
		}
		memcpy(b.s + b.len, chunk, n);
		b.len += n;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		snprintf(err, AN_ERRLEN, "%s: read error", path);
		free(b.s);
		return NULL;
	}
	if (!b.s)
		b.s = xcalloc(1, 1);
	b.s[b.len] = '\0';
	*len = b.len;
	return b.s;
}

int mode_rank(const char *mode)
{
	static const char *const order[] = { "physical", "cluster", "mixed" };
	for (int i = 0; i < 3; i++)
		if (!strcmp(mode, order[i]))
			return i;
	return 3;
}

static const char *jstr(json_t *o, const char *key, const char *dflt)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : dflt;
}

static bool jnum(json_t *o, const char *key, double *out)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return true;
}

struct group *dataset_find(struct dataset *d, size_t set, const char *host,
			   long cpus, const char *workload, const char *mode)
{
	for (size_t i = 0; i < d->ngroups; i++) {
		struct group *g = &d->groups[i];
		if (g->set == set && g->cpus == cpus && !strcmp(g->host, host) &&
		    !strcmp(g->workload, workload) && !strcmp(g->mode, mode))
			return g;
	}
	return NULL;
}

static struct group *group_get(struct dataset *d, size_t set,
			       const struct resultset *rs, const char *workload,
			       const char *type, const char *mode)
{
	struct group *g = dataset_find(d, set, rs->host_name, rs->cpus, workload,
				       mode);
	if (g)
		return g;
	d->groups = xrealloc(d->groups, (d->ngroups + 1) * sizeof(*d->groups));
	g = &d->groups[d->ngroups++];
	memset(g, 0, sizeof(*g));
	g->set = set;
	g->host = xstrdup(rs->host_name);
	g->cpus = rs->cpus;
	g->workload = xstrdup(workload);
	g->type = xstrdup(type);
	g->mode = xstrdup(mode);
	g->emulated = rs->emulated;
	return g;
}

static void add_failed(struct dataset *d, const char *set, const char *id,
		       const char *mode, const char *error)
{
	d->failed = xrealloc(d->failed, (d->nfailed + 1) * sizeof(*d->failed));
	struct failed_run *f = &d->failed[d->nfailed++];
	f->set_path = xstrdup(set);
	f->id = xstrdup(id);
	f->mode = xstrdup(mode);
	f->error = xstrdup(error);
}

/* Append a numeric array to g->ns (scaled); -1 on a non-number. */
static int add_samples(struct group *g, json_t *arr, double scale, size_t *bad)
{
	size_t n = json_array_size(arr);
	if (g->n + n > g->cap) {
		g->cap = (g->n + n) * 2;
		g->ns = xrealloc(g->ns, g->cap * sizeof(double));
	}
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(arr, i);
		if (!json_is_number(v)) {
			*bad = i;
			return -1;
		}
		g->ns[g->n++] = json_number_value(v) * scale;
	}
	return 0;
}

static int add_workload(struct dataset *d, size_t set, struct resultset *rs,
			json_t *run, json_t *w, size_t ri, size_t wi,
			double tsc_khz, char *err)
{
	const char *path = rs->path;
	const char *mode = jstr(run, "mode", "unknown");
	const char *name = jstr(w, "name", NULL);
	if (!name) {
		snprintf(err, AN_ERRLEN, "%s: runs[%zu].workloads[%zu]: no \"name\"",
			 path, ri, wi);
		return -1;
	}
	const char *type = jstr(w, "type", name);
	struct group *g = group_get(d, set, rs, name, type, mode);
	bool ok = !strcmp(jstr(run, "status", "ok"), "ok") &&
		  !strcmp(jstr(w, "status", "ok"), "ok");
	if (!ok) {
		g->runs_failed++;
		return 0;
	}
	g->runs_ok++;
	const char *genapic = jstr(run, "genapic", "");
	if (!g->genapic)
		g->genapic = xstrdup(genapic);
	else if (strcmp(g->genapic, genapic))
		g->genapic_mixed = true;
	if (!g->path)
		g->path = xstrdup(jstr(w, "path", ""));
	double it;
	if (jnum(json_object_get(w, "params"), "iterations", &it))
		g->iterations = (long)it;

	size_t first_sample = g->n;
	json_t *samples = json_object_get(w, "samples");
	json_t *ns = json_object_get(samples, "ns");
	json_t *cyc = json_object_get(samples, "cycles");
	size_t bad = 0;
	if (json_array_size(ns)) {
		if (add_samples(g, ns, 1.0, &bad)) {
			snprintf(err, AN_ERRLEN,
				 "%s: runs[%zu].workloads[%zu].samples.ns[%zu]: not a number",
				 path, ri, wi, bad);
			return -1;
		}
	} else if (json_array_size(cyc) && tsc_khz > 0) {
		if (add_samples(g, cyc, 1e6 / tsc_khz, &bad)) {
			snprintf(err, AN_ERRLEN,
				 "%s: runs[%zu].workloads[%zu].samples.cycles[%zu]: not a number",
				 path, ri, wi, bad);
			return -1;
		}
	}

	char jp[64];
	snprintf(jp, sizeof(jp), "runs[%zu].workloads[%zu]", ri, wi);
	if (runlevel_add(g, path, jstr(run, "id", "?"), w, first_sample, jp, err))
		return -1;

	json_t *c = json_object_get(w, "counters");
	double v;
	if (jnum(c, "operations", &v)) {
		g->operations += v;
		g->has_ops = true;
	}
	if (jnum(c, "icr_writes", &v)) {
		g->icr_writes += v;
		g->has_icr = true;
	}
	if (jnum(c, "ipis_sent", &v)) {
		g->ipis_sent += v;
		g->has_ipis = true;
	}
	if (jnum(c, "vectors", &v)) {
		g->vectors_sum += v;
		g->vectors_runs++;
	}
	json_t *irqs = json_object_get(c, "irqs_per_cpu");
	if (json_is_array(irqs) && json_array_size(irqs)) {
		size_t n = json_array_size(irqs);
		if (n > g->nirqs) {
			g->irqs = xrealloc(g->irqs, n * sizeof(double));
			memset(g->irqs + g->nirqs, 0, (n - g->nirqs) * sizeof(double));
			g->nirqs = n;
		}
		for (size_t i = 0; i < n; i++) {
			json_t *x = json_array_get(irqs, i);
			if (!json_is_number(x)) {
				snprintf(err, AN_ERRLEN,
					 "%s: runs[%zu].workloads[%zu].counters.irqs_per_cpu[%zu]: not a number",
					 path, ri, wi, i);
				return -1;
			}
			g->irqs[i] += json_number_value(x);
		}
		g->irq_runs++;
	}
	return 0;
}

static int parse_results(struct dataset *d, const char *path, json_t *root,
			 char *err)
{
	json_t *sv = json_object_get(root, "schema_version");
	if (!sv) {
		snprintf(err, AN_ERRLEN, "%s: no \"schema_version\": not an ipibench results.json", path);
		return -1;
	}
	if (!json_is_integer(sv) || json_integer_value(sv) < 1) {
		snprintf(err, AN_ERRLEN, "%s: \"schema_version\" must be a positive integer", path);
		return -1;
	}
	if (json_integer_value(sv) > AN_SCHEMA_MAJOR) {
		snprintf(err, AN_ERRLEN,
			 "%s: schema_version %lld is newer than this reader (%d): update ipibench",
			 path, (long long)json_integer_value(sv), AN_SCHEMA_MAJOR);
		return -1;
	}
	json_t *runs = json_object_get(root, "runs");
	if (!json_is_array(runs)) {
		snprintf(err, AN_ERRLEN, "%s: \"runs\" must be an array", path);
		return -1;
	}
	json_t *host = json_object_get(root, "host");
	json_t *tool = json_object_get(root, "tool");
	d->sets = xrealloc(d->sets, (d->nsets + 1) * sizeof(*d->sets));
	size_t set_idx = d->nsets++;
	struct resultset *rs = &d->sets[set_idx];
	memset(rs, 0, sizeof(*rs));
	rs->path = xstrdup(path);
	rs->backend = xstrdup(jstr(host, "backend", "unknown"));
	rs->host_name = xstrdup(jstr(host, "name", rs->backend));
	rs->cpu_model = xstrdup(jstr(host, "cpu_model", ""));
	rs->xen_version = xstrdup(jstr(host, "xen_version", ""));
	rs->commit = xstrdup(jstr(tool, "commit", "unknown"));
	rs->created = xstrdup(jstr(root, "created", ""));
	rs->config_file = xstrdup(jstr(root, "config_file", ""));
	double v;
	rs->cpus = jnum(host, "cpus", &v) ? (long)v : 0;
	rs->maxcpus = jnum(host, "maxcpus", &v) ? (long)v : rs->cpus;
	rs->emulated = json_is_true(json_object_get(host, "emulated"));
	double tsc_khz = 0;
	jnum(host, "tsc_khz", &tsc_khz);
	size_t group_set = d->separate_sets ? set_idx : 0;

	for (size_t ri = 0; ri < json_array_size(runs); ri++) {
		json_t *run = json_array_get(runs, ri);
		if (!json_is_object(run)) {
			snprintf(err, AN_ERRLEN, "%s: runs[%zu]: not an object", path, ri);
			return -1;
		}
		const char *status = jstr(run, "status", "ok");
		const char *id = jstr(run, "id", "?");
		if (strcmp(status, "ok")) {
			rs->runs_failed++;
			add_failed(d, path, id, jstr(run, "mode", "?"),
				   jstr(run, "error", status));
		} else {
			rs->runs_ok++;
		}
		json_t *wls = json_object_get(run, "workloads");
		for (size_t wi = 0; wi < json_array_size(wls); wi++) {
			json_t *w = json_array_get(wls, wi);
			if (!json_is_object(w)) {
				snprintf(err, AN_ERRLEN, "%s: runs[%zu].workloads[%zu]: not an object",
					 path, ri, wi);
				return -1;
			}
			if (!strcmp(status, "ok") &&
			    strcmp(jstr(w, "status", "ok"), "ok")) {
				char *what = xasprintf("%s/%s", id, jstr(w, "name", "?"));
				add_failed(d, path, what, jstr(run, "mode", "?"),
					   jstr(w, "error", jstr(w, "status", "failed")));
				free(what);
			}
			if (add_workload(d, group_set, rs, run, w, ri, wi, tsc_khz, err))
				return -1;
		}
	}
	return 0;
}

static int parse_hyperfine(struct dataset *d, const char *path, json_t *root,
			   char *err)
{
	json_t *res = json_object_get(root, "results");
	struct hf_file hf = { .path = xstrdup(path) };
	for (size_t i = 0; i < json_array_size(res); i++) {
		json_t *r = json_array_get(res, i);
		const char *cmd = jstr(r, "command", NULL);
		if (!cmd) {
			snprintf(err, AN_ERRLEN, "%s: results[%zu]: no \"command\"", path, i);
			goto fail;
		}
		hf.cmds = xrealloc(hf.cmds, (hf.n + 1) * sizeof(*hf.cmds));
		struct hf_cmd *c = &hf.cmds[hf.n++];
		memset(c, 0, sizeof(*c));
		c->command = xstrdup(cmd);
		json_t *times = json_object_get(r, "times");
		size_t n = json_array_size(times);
		c->times = xcalloc(n, sizeof(double));
		for (size_t k = 0; k < n; k++) {
			json_t *t = json_array_get(times, k);
			if (!json_is_number(t)) {
				snprintf(err, AN_ERRLEN, "%s: results[%zu].times[%zu]: not a number",
					 path, i, k);
				goto fail;
			}
			c->times[c->n++] = json_number_value(t);
		}
		gsl_sort(c->times, 1, c->n);
		if (!jnum(r, "mean", &c->mean))
			c->mean = c->n ? gsl_stats_mean(c->times, 1, c->n) : NAN;
		if (!jnum(r, "stddev", &c->stddev))
			c->stddev = c->n > 1 ? gsl_stats_sd(c->times, 1, c->n) : NAN;
		if (!jnum(r, "median", &c->median))
			c->median = stats_median_sorted(c->times, c->n);
		if (!jnum(r, "min", &c->min))
			c->min = c->n ? c->times[0] : NAN;
		if (!jnum(r, "max", &c->max))
			c->max = c->n ? c->times[c->n - 1] : NAN;
	}
	d->hf = xrealloc(d->hf, (d->nhf + 1) * sizeof(*d->hf));
	d->hf[d->nhf++] = hf;
	return 0;
fail:
	for (size_t i = 0; i < hf.n; i++) {
		free(hf.cmds[i].command);
		free(hf.cmds[i].times);
	}
	free(hf.cmds);
	free(hf.path);
	return -1;
}

/* Split a perf CSV line in place on ','; returns the field count. */
static size_t split_csv(char *line, char **f, size_t max)
{
	size_t n = 0;
	f[n++] = line;
	for (char *p = line; *p && n < max; p++)
		if (*p == ',') {
			*p = '\0';
			f[n++] = p + 1;
		}
	return n;
}

static bool perf_value_like(const char *s)
{
	if (!strncmp(s, "<not", 4))
		return true;	/* <not counted>, <not supported> */
	char *end;
	strtod(s, &end);
	return end != s && (*end == '\0' || isspace((unsigned char)*end));
}

/* Is text perf stat -x, output?  At least one data line, every data line
 * value-like with >= 3 fields. */
static bool looks_like_perf(const char *text)
{
	char *copy = xstrdup(text);
	bool any = false, ok = true;
	for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, "\r")] = '\0';
		if (!*line || *line == '#')
			continue;
		char *f[16];
		if (split_csv(line, f, 16) < 3 || !perf_value_like(f[0])) {
			ok = false;
			break;
		}
		any = true;
	}
	free(copy);
	return any && ok;
}

static void parse_perf(struct dataset *d, const char *path, const char *text)
{
	struct perf_file pf = { .path = xstrdup(path) };
	char *copy = xstrdup(text);
	for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, "\r")] = '\0';
		if (!*line || *line == '#')
			continue;
		char *f[16] = { 0 };
		size_t n = split_csv(line, f, 16);
		pf.rows = xrealloc(pf.rows, (pf.n + 1) * sizeof(*pf.rows));
		struct perf_row *r = &pf.rows[pf.n++];
		memset(r, 0, sizeof(*r));
		r->value = xstrdup(f[0]);
		r->unit = xstrdup(f[1]);
		r->event = xstrdup(f[2]);
		size_t k = 3;
		/* perf stat -r N adds the run-to-run variance ("0.52%") here. */
		if (k < n && strchr(f[k], '%'))
			r->variance = xstrdup(f[k++]);
		else
			r->variance = xstrdup("");
		r->runtime = xstrdup(k < n ? f[k] : "");
		k++;
		r->pct = xstrdup(k < n ? f[k] : "");
		k++;
		r->metric = xstrdup(k < n ? f[k] : "");
		k++;
		r->metric_unit = xstrdup(k < n ? f[k] : "");
	}
	free(copy);
	d->perf = xrealloc(d->perf, (d->nperf + 1) * sizeof(*d->perf));
	d->perf[d->nperf++] = pf;
}

enum input_kind detect_kind(const char *path, const char *text, size_t len)
{
	(void)path;
	size_t i = 0;
	while (i < len && isspace((unsigned char)text[i]))
		i++;
	if (i < len && text[i] == '{') {
		json_t *root = json_loadb(text, len, 0, NULL);
		enum input_kind k = IN_UNKNOWN;
		if (json_object_get(root, "schema_version") ||
		    json_object_get(root, "runs"))
			k = IN_RESULTS;
		else if (json_is_array(json_object_get(root, "results")))
			k = IN_HYPERFINE;
		json_decref(root);
		return k;
	}
	return looks_like_perf(text) ? IN_PERF : IN_UNKNOWN;
}

/* Read and dispatch one file.  explicit: named by the user (an
 * unrecognised file is an error), else found in a directory (skipped). */
static int add_file(struct dataset *d, const char *path, bool explicit,
		    bool results_only, char *err)
{
	size_t len;
	char *text = read_all(path, &len, err);
	if (!text)
		return -1;
	int rc = 0;
	size_t i = 0;
	while (i < len && isspace((unsigned char)text[i]))
		i++;
	if (i < len && (text[i] == '{' || text[i] == '[')) {
		json_error_t je;
		json_t *root = json_loadb(text, len, 0, &je);
		if (!root) {
			snprintf(err, AN_ERRLEN, "%s:%d:%d: invalid JSON: %s", path,
				 je.line, je.column, je.text);
			rc = -1;
		} else if (json_object_get(root, "schema_version") ||
			   json_object_get(root, "runs")) {
			rc = parse_results(d, path, root, err);
		} else if (!results_only &&
			   json_is_array(json_object_get(root, "results"))) {
			progress("reading %s (hyperfine JSON)", path);
			rc = parse_hyperfine(d, path, root, err);
		} else if (explicit || results_only) {
			snprintf(err, AN_ERRLEN,
				 results_only ?
				 "%s: not an ipibench results.json (no \"schema_version\")" :
				 "%s: not an ipibench results.json nor a hyperfine --export-json file",
				 path);
			rc = -1;
		} else {
			progress("skipping %s: not results or hyperfine JSON", path);
		}
		json_decref(root);
	} else if (!results_only && looks_like_perf(text)) {
		progress("reading %s (perf stat CSV)", path);
		parse_perf(d, path, text);
	} else if (explicit || results_only) {
		snprintf(err, AN_ERRLEN, "%s: not a results.json, hyperfine JSON or perf stat -x, CSV",
			 path);
		rc = -1;
	} else {
		progress("skipping %s: not results, hyperfine or perf stat data", path);
	}
	free(text);
	return rc;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

int dataset_add(struct dataset *d, const char *path, char *err)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		snprintf(err, AN_ERRLEN, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return add_file(d, path, true, false, err);

	size_t before = d->nsets + d->nhf + d->nperf;
	char *rj = xasprintf("%s/results.json", path);
	int rc = 0;
	if (stat(rj, &st) == 0) {
		progress("reading %s", rj);
		rc = add_file(d, rj, true, true, err);
	}
	free(rj);
	if (rc)
		return rc;
	struct dirent **ents;
	int n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		snprintf(err, AN_ERRLEN, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		if (!rc && nm[0] != '.' && strcmp(nm, "results.json") &&
		    strcmp(nm, "report.json") && strcmp(nm, "history.json") &&
		    (ends_with(nm, ".json") || ends_with(nm, ".csv"))) {
			char *p = xasprintf("%s/%s", path, nm);
			if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
				rc = add_file(d, p, false, false, err);
			free(p);
		}
		free(ents[i]);
	}
	free(ents);
	if (!rc && d->nsets + d->nhf + d->nperf == before) {
		snprintf(err, AN_ERRLEN,
			 "%s: no results.json, hyperfine JSON or perf stat CSV in this directory",
			 path);
		rc = -1;
	}
	return rc;
}

int dataset_add_results(struct dataset *d, const char *path, char *err)
{
	progress("reading %s", path);
	return add_file(d, path, true, true, err);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void dataset_finish(struct dataset *d)
{
	for (size_t i = 0; i < d->ngroups; i++) {
		struct group *g = &d->groups[i];
		if (g->n)
			qsort(g->ns, g->n, sizeof(double), cmp_double);
		stats_summary(g->ns, g->n, &g->sum);
	}
}

void dataset_free(struct dataset *d)
{
	for (size_t i = 0; i < d->nsets; i++) {
		struct resultset *r = &d->sets[i];
		free(r->path);
		free(r->host_name);
		free(r->backend);
		free(r->cpu_model);
		free(r->xen_version);
		free(r->commit);
		free(r->created);
		free(r->config_file);
	}
	free(d->sets);
	for (size_t i = 0; i < d->ngroups; i++) {
		struct group *g = &d->groups[i];
		free(g->host);
		free(g->workload);
		free(g->type);
		free(g->mode);
		free(g->genapic);
		free(g->path);
		free(g->ns);
		free(g->irqs);
		runlevel_free(g);
	}
	free(d->groups);
	for (size_t i = 0; i < d->nfailed; i++) {
		free(d->failed[i].set_path);
		free(d->failed[i].id);
		free(d->failed[i].mode);
		free(d->failed[i].error);
	}
	free(d->failed);
	for (size_t i = 0; i < d->nhf; i++) {
		for (size_t k = 0; k < d->hf[i].n; k++) {
			free(d->hf[i].cmds[k].command);
			free(d->hf[i].cmds[k].times);
		}
		free(d->hf[i].cmds);
		free(d->hf[i].path);
	}
	free(d->hf);
	for (size_t i = 0; i < d->nperf; i++) {
		for (size_t k = 0; k < d->perf[i].n; k++) {
			struct perf_row *r = &d->perf[i].rows[k];
			free(r->value);
			free(r->unit);
			free(r->event);
			free(r->variance);
			free(r->runtime);
			free(r->pct);
			free(r->metric);
			free(r->metric_unit);
		}
		free(d->perf[i].rows);
		free(d->perf[i].path);
	}
	free(d->perf);
	memset(d, 0, sizeof(*d));
}
