/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * probes/export.c: what the two exports share (probes/export.h): the
 * results.json beside a trace, and the clock.
 */
#include "probes/export.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "probes/events.h"
#include "probes/trace.h"
#include "lib/safeio.h"

/* ---- results.json ----------------------------------------------------------- */

void tr_export_meta_fini(struct tr_export_meta *m)
{
	free(m->results);
	free(m->host);
	free(m->xen);
	free(m->commit);
	free(m->mode);
	free(m->workload);
	free(m->run);
	memset(m, 0, sizeof(*m));
}

/* The last component of PATH (PATH itself when it has no '/'). */
static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* "DIR/results.json" for the directory of TRACE (UP: the one above it)
 * into BUF; false when it does not fit. */
static bool results_path(char *buf, size_t len, const char *trace, bool up)
{
	const char *s = strrchr(trace, '/');
	int dl = s ? (int)(s - trace) : 0;
	int n;

	if (!s)
		n = snprintf(buf, len, up ? "../results.json" : "results.json");
	else if (!dl)
		n = snprintf(buf, len, up ? "/../results.json" : "/results.json");
	else
		n = snprintf(buf, len, "%.*s/%sresults.json", dl, trace, up ? "../" : "");
	return n > 0 && (size_t)n < len;
}

/* OBJ's member KEY when it is a string, into *OUT (strdup'ed); 0 when it
 * is absent, or a string; -1 (WHERE named in ERR) otherwise. */
static int take_str(const json_t *obj, const char *key, const char *where, char **out,
		    char *err, size_t elen)
{
	const json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v)) {
		snprintf(err, elen, "%s.%s is %s, not a string", where, key, sio_json_kind(v));
		return -1;
	}
	*out = strdup(json_string_value(v));
	if (!*out) {
		snprintf(err, elen, "out of memory");
		return -1;
	}
	return 0;
}

/* The schema's part that the export names (docs/results-schema.md). */
static int meta_from(struct tr_export_meta *m, const json_t *root, const char *trace,
		     char *err, size_t elen)
{
	const json_t *host, *tool, *runs, *run, *v;
	size_t i, j;

	if (!json_is_object(root)) {
		snprintf(err, elen, "$ is %s, not an object", sio_json_kind(root));
		return -1;
	}
	host = json_object_get(root, "host");
	if (host && !json_is_object(host)) {
		snprintf(err, elen, "$.host is %s, not an object", sio_json_kind(host));
		return -1;
	}
	if (host) {
		if (take_str(host, "name", "$.host", &m->host, err, elen) ||
		    take_str(host, "xen_version", "$.host", &m->xen, err, elen))
			return -1;
		v = json_object_get(host, "tsc_khz");
		if (v && !json_is_null(v)) {
			if (!json_is_integer(v) || (json_integer_value(v) &&
			    (json_integer_value(v) < TR_TSC_KHZ_MIN ||
			     json_integer_value(v) > TR_TSC_KHZ_MAX))) {
				snprintf(err, elen, "$.host.tsc_khz is not an integer from %u to %u "
					 "(or 0)", TR_TSC_KHZ_MIN, TR_TSC_KHZ_MAX);
				return -1;
			}
			m->tsc_khz = (uint32_t)json_integer_value(v);
		}
	}
	tool = json_object_get(root, "tool");
	if (tool && !json_is_object(tool)) {
		snprintf(err, elen, "$.tool is %s, not an object", sio_json_kind(tool));
		return -1;
	}
	if (tool && take_str(tool, "commit", "$.tool", &m->commit, err, elen))
		return -1;
	runs = json_object_get(root, "runs");
	if (!runs)
		return 0;
	if (!json_is_array(runs)) {
		snprintf(err, elen, "$.runs is %s, not an array", sio_json_kind(runs));
		return -1;
	}
	json_array_foreach(runs, i, run) {
		const json_t *ws = json_object_get(run, "workloads"), *w;
		char where[64];

		if (!json_is_object(run)) {
			snprintf(err, elen, "$.runs[%zu] is %s, not an object", i, sio_json_kind(run));
			return -1;
		}
		if (!ws)
			continue;
		if (!json_is_array(ws)) {
			snprintf(err, elen, "$.runs[%zu].workloads is %s, not an array", i,
				 sio_json_kind(ws));
			return -1;
		}
		json_array_foreach(ws, j, w) {
			const json_t *t = json_object_get(w, "trace");

			if (!json_is_object(w)) {
				snprintf(err, elen, "$.runs[%zu].workloads[%zu] is %s, not an object",
					 i, j, sio_json_kind(w));
				return -1;
			}
			if (!t || json_is_null(t))
				continue;
			if (!json_is_string(t)) {
				snprintf(err, elen, "$.runs[%zu].workloads[%zu].trace is %s, not a "
					 "string", i, j, sio_json_kind(t));
				return -1;
			}
			if (strcmp(base_of(json_string_value(t)), base_of(trace)) || m->mode)
				continue;
			snprintf(where, sizeof(where), "$.runs[%zu]", i);
			if (take_str(run, "mode", where, &m->mode, err, elen) ||
			    take_str(run, "id", where, &m->run, err, elen))
				return -1;
			snprintf(where, sizeof(where), "$.runs[%zu].workloads[%zu]", i, j);
			if (take_str(w, "name", where, &m->workload, err, elen))
				return -1;
		}
	}
	return 0;
}

int tr_export_meta_load(struct tr_export_meta *m, const char *trace, char *warn, size_t wlen)
{
	char path[PATH_MAX], err[512], shown[PATH_MAX + 64];
	struct stat st;
	json_t *root;

	memset(m, 0, sizeof(*m));
	for (int up = 0; up < 2; up++) {
		if (!results_path(path, sizeof(path), trace, up))
			continue;
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		root = sio_load_json(path, SIO_MAX_JSON, err, sizeof(err));
		if (!root) {
			snprintf(warn, wlen, "%s (not used)", err);
			return 1;
		}
		if (meta_from(m, root, trace, err, sizeof(err))) {
			json_decref(root);
			tr_export_meta_fini(m);
			snprintf(warn, wlen, "%s: %s (not used)", sio_shown(shown, sizeof(shown), path),
				 err);
			return 1;
		}
		json_decref(root);
		m->results = strdup(path);
		if (!m->results) {
			tr_export_meta_fini(m);
			snprintf(warn, wlen, "out of memory");
			return 1;
		}
		return 0;
	}
	return 0;
}

/* ---- the clock --------------------------------------------------------------- */

#define EV_VMEXIT 0x00081002u
#define TRC_64_FLAG 0x100u
#define VMX_REASON_MAX 75u	/* hvm.c's: a higher exit reason is SVM's */

int tr_export_clock(struct tr_export_clock *c, const struct xt_file *f, double opt_khz,
		    const struct tr_export_meta *meta)
{
	struct xt_anom an;	/* the export's own pass reports them */
	struct xt_merge *m;
	struct xt_rec r;
	uint32_t khz = 0;
	bool any = false;

	memset(c, 0, sizeof(*c));
	memset(&an, 0, sizeof(an));
	m = xt_merge_open(f, &an);
	if (!m)
		return -1;
	while (xt_merge_next(m, &r)) {
		if (r.has_tsc && (!any || r.tsc < c->t0)) {
			c->t0 = r.tsc;
			any = true;
		}
		if ((r.event & ~TRC_64_FLAG) == EV_VMEXIT && r.nextra >= 1 && r.d[0] > VMX_REASON_MAX)
			c->svm = true;
		tr_tsc_khz_take(&khz, &r, &an);
	}
	xt_merge_close(m);
	if (opt_khz > 0) {
		c->khz = opt_khz;
		c->source = "--tsc-khz";
	} else if (khz) {
		c->khz = khz;
		c->source = "apic:tsc_khz";
	} else if (meta && meta->tsc_khz) {
		c->khz = meta->tsc_khz;
		c->source = "results.json";
	} else {
		c->source = "none";
	}
	return 0;
}

double tr_export_us(const struct tr_export_clock *c, uint64_t tsc)
{
	double d = tsc > c->t0 ? (double)(tsc - c->t0) : 0.0;

	return c->khz > 0 ? d * 1000.0 / c->khz : d / 1000.0;
}
