#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "runner/backend.h"
#include "runner/config.h"

struct parse {
	struct config *c;
	char msg[256];          /* the first error */
	int have_host, have_matrix;
};

static int set_err(struct parse *ps, const char *fmt, const char *a, const char *b)
{
	if (!ps->msg[0])
		snprintf(ps->msg, sizeof(ps->msg), fmt, a, b);
	return 0;   /* inih: error on this line */
}

static int get_uint(struct parse *ps, const char *key, const char *v, long min, long max,
		    unsigned int *out)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (!*v || *end || n < min || n > max) {
		char range[64];

		snprintf(range, sizeof(range), "%s = '%%s': expected an integer from %ld to %ld",
			 key, min, max);
		return set_err(ps, range, v, NULL);
	}
	*out = (unsigned int)n;
	return 1;
}

static int host_key(struct parse *ps, const char *k, const char *v)
{
	struct config *c = ps->c;

	if (!strcmp(k, "backend")) {
		if (!host_backend_find(v))
			return set_err(ps, "backend = '%s': expected qemu, local or reboot%s", v, "");
		snprintf(c->host.backend, sizeof(c->host.backend), "%s", v);
		return 1;
	}
	if (!strcmp(k, "cpus"))
		return get_uint(ps, k, v, 1, 4096, &c->host.cpus);
	if (!strcmp(k, "maxcpus"))
		return get_uint(ps, k, v, 1, 4096, &c->host.maxcpus);
	if (!strcmp(k, "memory"))
		return get_uint(ps, k, v, 256, 1 << 20, &c->host.memory);
	if (!strcmp(k, "dom0_memory"))
		return get_uint(ps, k, v, 128, 1 << 20, &c->host.dom0_memory);
	if (!strcmp(k, "timeout"))
		return get_uint(ps, k, v, 10, 86400, &c->host.timeout);
	if (!strcmp(k, "disk_mb"))
		return get_uint(ps, k, v, 0, 1 << 20, &c->host.disk_mb);
	if (!strcmp(k, "cmdline")) {
		snprintf(c->host.cmdline, sizeof(c->host.cmdline), "%s", v);
		return 1;
	}
	if (!strcmp(k, "name")) {
		snprintf(c->host.name, sizeof(c->host.name), "%s", v);
		return 1;
	}
	return set_err(ps, "unknown key '%s' in [host]%s", k, "");
}

static int matrix_key(struct parse *ps, const char *k, const char *v)
{
	struct config *c = ps->c;

	if (!strcmp(k, "modes")) {
		char buf[256], *save = NULL;

		snprintf(buf, sizeof(buf), "%s", v);
		c->matrix.nmodes = 0;
		for (char *m = strtok_r(buf, ", ", &save); m; m = strtok_r(NULL, ", ", &save)) {
			if (!mode_genapic(m))
				return set_err(ps, "modes: '%s' is not physical, cluster or mixed%s", m, "");
			for (unsigned int i = 0; i < c->matrix.nmodes; i++)
				if (!strcmp(c->matrix.modes[i], m))
					return set_err(ps, "modes: '%s' is listed twice%s", m, "");
			if (c->matrix.nmodes == CFG_MAX_MODES)
				return set_err(ps, "modes: too many modes in '%s'%s", v, "");
			snprintf(c->matrix.modes[c->matrix.nmodes++], 16, "%s", m);
		}
		if (!c->matrix.nmodes)
			return set_err(ps, "modes: empty%s%s", "", "");
		return 1;
	}
	if (!strcmp(k, "repetitions"))
		return get_uint(ps, k, v, 1, 1000, &c->matrix.repetitions);
	if (!strcmp(k, "cpus")) {
		char buf[256], *save = NULL;

		snprintf(buf, sizeof(buf), "%s", v);
		c->matrix.ncpus = 0;
		for (char *n = strtok_r(buf, ", ", &save); n; n = strtok_r(NULL, ", ", &save)) {
			if (c->matrix.ncpus == CFG_MAX_SWEEP)
				return set_err(ps, "cpus: at most 16 CPU counts in '%s'%s", v, "");
			if (!get_uint(ps, "cpus", n, 1, 4096, &c->matrix.cpus[c->matrix.ncpus]))
				return 0;
			for (unsigned int i = 0; i < c->matrix.ncpus; i++)
				if (c->matrix.cpus[i] == c->matrix.cpus[c->matrix.ncpus])
					return set_err(ps, "cpus: %s is listed twice%s", n, "");
			c->matrix.ncpus++;
		}
		if (!c->matrix.ncpus)
			return set_err(ps, "cpus: empty%s%s", "", "");
		return 1;
	}
	if (!strcmp(k, "seed"))
		return get_uint(ps, k, v, 0, 0x7fffffff, &c->matrix.seed);
	if (!strcmp(k, "order")) {
		if (!strcmp(v, "interleaved"))
			c->matrix.order = ORDER_INTERLEAVED;
		else if (!strcmp(v, "randomized"))
			c->matrix.order = ORDER_RANDOMIZED;
		else if (!strcmp(v, "blocked"))
			c->matrix.order = ORDER_BLOCKED;
		else
			return set_err(ps, "order = '%s': expected interleaved, randomized or blocked%s", v, "");
		return 1;
	}
	return set_err(ps, "unknown key '%s' in [matrix]%s", k, "");
}

static struct cfg_workload *workload_of(struct parse *ps, const char *name)
{
	struct config *c = ps->c;

	for (unsigned int i = 0; i < c->nwl; i++)
		if (!strcmp(c->wl[i].name, name))
			return &c->wl[i];
	if (c->nwl == CFG_MAX_WORKLOADS)
		return NULL;
	struct cfg_workload *w = &c->wl[c->nwl++];
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->params = json_object();
	return w;
}

static int workload_key(struct parse *ps, const char *name, const char *k, const char *v)
{
	struct cfg_workload *w;
	const struct wl_param *p;
	char err[256];
	json_t *val;

	if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(name))
		return set_err(ps, "[workload:%s]: name must be lower-case letters, digits, _ or -%s", name, "");
	if (!(w = workload_of(ps, name)))
		return set_err(ps, "too many workloads (at most 32)%s%s", "", "");
	if (!strcmp(k, "type")) {
		if (w->type)
			return set_err(ps, "[workload:%s]: type given twice%s", name, "");
		if (!(w->type = wl_type_find(v)))
			return set_err(ps, "type = '%s': unknown workload type (see 'ipibench run --list')%s", v, "");
		return 1;
	}
	if (!w->type)
		return set_err(ps, "[workload:%s]: 'type' must come first%s", name, "");
	if (!(p = wl_param_find(w->type, k)))
		return set_err(ps, "unknown key '%s' for a workload of type %s", k, w->type->type);
	if (!(val = wl_param_value(p, v, err, sizeof(err))))
		return set_err(ps, "%s%s", err, "");
	json_object_set_new(w->params, k, val);
	return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *ps = user;
	json_t *sec = json_object_get(ps->c->sections, section);

	if (!sec) {
		sec = json_object();
		json_object_set_new(ps->c->sections, section, sec);
	}
	if (!name)   /* a section with no keys yet (INI_CALL_HANDLER_ON_NEW_SECTION) */
		return 1;
	if (json_object_get(sec, name))
		return set_err(ps, "duplicate key '%s' in [%s]", name, section);
	json_object_set_new(sec, name, json_string(value));
	if (!strcmp(section, "host")) {
		ps->have_host = 1;
		return host_key(ps, name, value);
	}
	if (!strcmp(section, "matrix")) {
		ps->have_matrix = 1;
		return matrix_key(ps, name, value);
	}
	if (!strncmp(section, "workload:", 9))
		return workload_key(ps, section + 9, name, value);
	return set_err(ps, "unknown section [%s]%s", section, "");
}

static void defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->host.backend, sizeof(c->host.backend), "qemu");
	c->host.cpus = 8;
	c->host.memory = 2048;
	c->host.dom0_memory = 512;
	c->matrix.repetitions = 1;
	c->matrix.order = ORDER_INTERLEAVED;
	c->sections = json_object();
}

static int finish(const char *file, int line, struct parse *ps, char *err, size_t errlen)
{
	struct config *c = ps->c;

	if (line < 0) {
		snprintf(err, errlen, "%s: cannot read the file", file);
		return -1;
	}
	if (line > 0) {
		snprintf(err, errlen, "%s:%d: %s", file, line, ps->msg[0] ? ps->msg : "syntax error");
		return -1;
	}
	if (!ps->have_host) {
		snprintf(err, errlen, "%s: missing section [host]", file);
		return -1;
	}
	if (!ps->have_matrix || !c->matrix.nmodes) {
		snprintf(err, errlen, "%s: missing section [matrix] with modes = ...", file);
		return -1;
	}
	if (!c->nwl) {
		snprintf(err, errlen, "%s: no [workload:NAME] section", file);
		return -1;
	}
	if (!c->host.maxcpus)
		c->host.maxcpus = c->host.cpus;
	if (c->host.maxcpus < c->host.cpus) {
		snprintf(err, errlen, "%s: [host] maxcpus (%u) is below cpus (%u)", file,
			 c->host.maxcpus, c->host.cpus);
		return -1;
	}
	if (!c->host.name[0])
		snprintf(c->host.name, sizeof(c->host.name), "%s-%ucpu", c->host.backend, c->host.cpus);
	for (unsigned int i = 0; i < c->nwl; i++) {
		char e[256];

		if (!c->wl[i].type) {
			snprintf(err, errlen, "%s: [workload:%s] has no type", file, c->wl[i].name);
			return -1;
		}
		if (wl_params_check(c->wl[i].type, c->wl[i].params, e, sizeof(e))) {
			snprintf(err, errlen, "%s: [workload:%s]: %s", file, c->wl[i].name, e);
			return -1;
		}
	}
	return 0;
}

int config_load(const char *file, struct config *c, char *err, size_t errlen)
{
	struct parse ps = { .c = c };
	FILE *f;
	int line;

	defaults(c);
	f = fopen(file, "r");
	if (!f) {
		snprintf(err, errlen, "%s: cannot open the config", file);
		return -1;
	}
	line = ini_parse_file(f, handler, &ps);
	fclose(f);
	if (finish(file, line, &ps, err, errlen)) {
		config_free(c);
		return -1;
	}
	return 0;
}

int config_load_string(const char *name, const char *text, struct config *c,
		       char *err, size_t errlen)
{
	struct parse ps = { .c = c };

	defaults(c);
	if (finish(name, ini_parse_string(text, handler, &ps), &ps, err, errlen)) {
		config_free(c);
		return -1;
	}
	return 0;
}

void config_free(struct config *c)
{
	for (unsigned int i = 0; i < c->nwl; i++)
		json_decref(c->wl[i].params);
	c->nwl = 0;
	json_decref(c->sections);
	c->sections = NULL;
}

const char *cfg_order_name(enum cfg_order o)
{
	return o == ORDER_RANDOMIZED ? "randomized" : o == ORDER_BLOCKED ? "blocked" : "interleaved";
}
