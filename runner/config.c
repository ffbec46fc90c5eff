#include <ctype.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "ipibench/senders.h"
#include "runner/backend.h"
#include "runner/config.h"
#include "runner/hostopts.h"
#include "runner/util.h"
#include "safeio/safeio.h"

struct parse {
	struct config *c;
	const char *p, *end;    /* the text inih has not read yet */
	int line;               /* the line inih is on (1-based) */
	int err_line;           /* the first error's line; 0: none yet */
	char msg[256];          /* the first error */
	int have_host, have_matrix;
	int tcg_line;           /* the line of [host] tcg; 0: not given */
	int test_device_line;   /* the line of [host] test_device; 0: not given */
	json_t *seen;           /* section -> the line of its header */
};

/* The first error, on the line inih is on; parsing stops there. */
static int set_err(struct parse *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int set_err(struct parse *ps, const char *fmt, ...)
{
	va_list ap;

	if (!ps->err_line) {
		ps->err_line = ps->line;
		va_start(ap, fmt);
		vsnprintf(ps->msg, sizeof(ps->msg), fmt, ap);
		va_end(ap);
	}
	return 0;   /* inih: error on this line */
}

/* S for a message: as it is when printable ASCII, else msg_quote()d. */
static const char *shown(char *buf, size_t len, const char *s)
{
	for (const char *p = s; *p; p++)
		if (*p < 0x20 || *p > 0x7e) {
			msg_quote(buf, len, s);
			return buf;
		}
	snprintf(buf, len, "%s", s);
	return buf;
}

static int get_uint(struct parse *ps, const char *key, const char *v, long min, long max,
		    unsigned int *out)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (!*v || *end || n < min || n > max)
		return set_err(ps, "%s = '%s': expected an integer from %ld to %ld", key, v, min, max);
	*out = (unsigned int)n;
	return 1;
}

static int host_key(struct parse *ps, const char *k, const char *v)
{
	struct config *c = ps->c;

	if (!strcmp(k, "backend")) {
		char names[128];

		if (!host_backend_find(v))
			return set_err(ps, "backend = '%s': expected %s", v,
				       host_backend_names(names, sizeof(names), 0));
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
		if (strlen(v) >= sizeof(c->host.cmdline))
			return set_err(ps, "cmdline: longer than %zu bytes", sizeof(c->host.cmdline) - 1);
		snprintf(c->host.cmdline, sizeof(c->host.cmdline), "%s", v);
		return 1;
	}
	if (!strcmp(k, "tcg")) {
		char q[128];

		if (!tcg_threading_ok(v))
			return set_err(ps, "tcg = %s: expected multi or single (QEMU's TCG threading)",
				       shown(q, sizeof(q), v));
		snprintf(c->host.tcg, sizeof(c->host.tcg), "%s", v);
		ps->tcg_line = ps->line;
		return 1;
	}
	if (!strcmp(k, "test_device")) {
		char q[128];

		if (strcmp(v, "true") && strcmp(v, "false"))
			return set_err(ps, "test_device = %s: expected true or false "
				       "(attach the emulator's irq_delivery test device)",
				       shown(q, sizeof(q), v));
		c->host.test_device = !strcmp(v, "true");
		ps->test_device_line = ps->line;
		return 1;
	}
	if (!strcmp(k, "name")) {
		char q[128];

		if (!sio_name_ok(v) || strlen(v) >= sizeof(c->host.name))
			return set_err(ps, "name = %s: a host name is letters, digits, '.', '_' "
				       "and '-' (a letter or digit first), at most 63 bytes, no '..'",
				       shown(q, sizeof(q), v));
		snprintf(c->host.name, sizeof(c->host.name), "%s", v);
		return 1;
	}
	return set_err(ps, "unknown key '%s' in [host]", k);
}

static int matrix_key(struct parse *ps, const char *k, const char *v)
{
	struct config *c = ps->c;

	if (!strcmp(k, "modes")) {
		char buf[256], *save = NULL;

		if (strlen(v) >= sizeof(buf))
			return set_err(ps, "modes: longer than 255 bytes");
		snprintf(buf, sizeof(buf), "%s", v);
		c->matrix.nmodes = 0;
		for (char *m = strtok_r(buf, ", ", &save); m; m = strtok_r(NULL, ", ", &save)) {
			if (!mode_genapic(m))
				return set_err(ps, "modes: '%s' is not a mode (%s)", m, mode_list());
			for (unsigned int i = 0; i < c->matrix.nmodes; i++)
				if (!strcmp(c->matrix.modes[i], m))
					return set_err(ps, "modes: '%s' is listed twice", m);
			if (c->matrix.nmodes == CFG_MAX_MODES)
				return set_err(ps, "modes: too many modes in '%s'", v);
			snprintf(c->matrix.modes[c->matrix.nmodes++], 16, "%s", m);
		}
		if (!c->matrix.nmodes)
			return set_err(ps, "modes: empty");
		return 1;
	}
	if (!strcmp(k, "repetitions"))
		return get_uint(ps, k, v, 1, 1000, &c->matrix.repetitions);
	if (!strcmp(k, "cpus")) {
		char buf[256], *save = NULL;

		if (strlen(v) >= sizeof(buf))
			return set_err(ps, "cpus: longer than 255 bytes");
		snprintf(buf, sizeof(buf), "%s", v);
		c->matrix.ncpus = 0;
		for (char *n = strtok_r(buf, ", ", &save); n; n = strtok_r(NULL, ", ", &save)) {
			if (c->matrix.ncpus == CFG_MAX_SWEEP)
				return set_err(ps, "cpus: at most 16 CPU counts in '%s'", v);
			if (!get_uint(ps, "cpus", n, 1, 4096, &c->matrix.cpus[c->matrix.ncpus]))
				return 0;
			for (unsigned int i = 0; i < c->matrix.ncpus; i++)
				if (c->matrix.cpus[i] == c->matrix.cpus[c->matrix.ncpus])
					return set_err(ps, "cpus: %s is listed twice", n);
			c->matrix.ncpus++;
		}
		if (!c->matrix.ncpus)
			return set_err(ps, "cpus: empty");
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
			return set_err(ps, "order = '%s': expected interleaved, randomized or blocked", v);
		return 1;
	}
	return set_err(ps, "unknown key '%s' in [matrix]", k);
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

	if (!sio_name_ok(name) || strlen(name) > CFG_WL_NAME_MAX)
		return set_err(ps, "[workload:%s]: not a workload name", name);
	if (!(w = workload_of(ps, name)))
		return set_err(ps, "too many workloads (at most 32)");
	if (!strcmp(k, "type")) {
		if (w->type)
			return set_err(ps, "[workload:%s]: type given twice", name);
		if (!(w->type = wl_type_find(v)))
			return set_err(ps, "type = '%s': unknown workload type (see 'ipibench run --list')", v);
		return 1;
	}
	if (!w->type)
		return set_err(ps, "[workload:%s]: 'type' must come first", name);
	if (!(p = wl_param_find(w->type, k)))
		return set_err(ps, "unknown key '%s' for a workload of type %s", k, w->type->type);
	if (!(val = wl_param_value(p, v, err, sizeof(err))))
		return set_err(ps, "%s", err);
	json_object_set_new(w->params, k, val);
	return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *ps = user;
	json_t *sec = json_object_get(ps->c->sections, section);

	if (!name)   /* a section with no keys yet (INI_CALL_HANDLER_ON_NEW_SECTION) */
		return 1;
	if (!*section)
		return set_err(ps, "'%s' before any [section]", name);
	if (!sec) {  /* the reader has checked and recorded every header */
		char q[128];
		return set_err(ps, "unknown section [%s]", shown(q, sizeof(q), section));
	}
	if (json_object_get(sec, name))
		return set_err(ps, "duplicate key '%s' in [%s]", name, section);
	json_object_set_new(sec, name, json_string(value));
	if (!strcmp(section, "host"))
		return host_key(ps, name, value);
	if (!strcmp(section, "matrix"))
		return matrix_key(ps, name, value);
	if (!strncmp(section, "workload:", 9))
		return workload_key(ps, section + 9, name, value);
	return set_err(ps, "unknown section [%s]", section);
}

/*
 * A "[NAME]" line (S..E, S at the '['): the sections ipibench knows, each
 * once, with names inih keeps whole.  0, or -1 with the error set.
 */
static int section_line(struct parse *ps, const char *s, const char *e)
{
	const char *close = memchr(s, ']', (size_t)(e - s)), *rest;
	char name[CFG_SECTION_MAX + 1], q[128];
	size_t n;
	json_t *first;

	if (!close)
		return set_err(ps, "'[' without ']'"), -1;
	for (rest = close + 1; rest < e && isspace((unsigned char)*rest); rest++)
		;
	if (rest < e && *rest != ';')
		return set_err(ps, "text after the section header"), -1;
	n = (size_t)(close - s - 1);
	if (n > CFG_SECTION_MAX)
		return set_err(ps, "section name of %zu bytes: at most %d (inih cuts longer ones)",
			       n, CFG_SECTION_MAX), -1;
	memcpy(name, s + 1, n);
	name[n] = '\0';   /* no NUL inside: read_line refused it */
	if (!strncmp(name, "workload:", 9)) {
		if (!sio_name_ok(name + 9))
			return set_err(ps, "[workload:%s]: a workload name is letters, digits, '.', "
				       "'_' and '-' (a letter or digit first), no '..'",
				       shown(q, sizeof(q), name + 9)), -1;
	} else if (strcmp(name, "host") && strcmp(name, "matrix")) {
		return set_err(ps, "unknown section [%s] (expected [host], [matrix] or "
			       "[workload:NAME])", shown(q, sizeof(q), name)), -1;
	}
	if ((first = json_object_get(ps->seen, name)))
		return set_err(ps, "[%s] again (first at line %d)", name,
			       (int)json_integer_value(first)), -1;
	json_object_set_new(ps->seen, name, json_integer(ps->line));
	json_object_set_new(ps->c->sections, name, json_object());
	if (!strcmp(name, "host"))
		ps->have_host = 1;
	if (!strcmp(name, "matrix"))
		ps->have_matrix = 1;
	return 0;
}

/*
 * The offset of the first byte of S (LEN bytes) that is a control character
 * (C0 but tab, DEL, C1) or not valid UTF-8; LEN when there is none.  Values
 * become JSON strings (results.json's config) and parts of messages.
 */
static size_t bad_char(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		unsigned int c = u[i], need, cp;

		if (c < 0x80) {
			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return i;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			need = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			need = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			need = 3, cp = c & 0x07;
		else
			return i;
		for (unsigned int k = 1; k <= need; k++) {
			if (i + k >= len || (u[i + k] & 0xc0) != 0x80)
				return i;
			cp = cp << 6 | (u[i + k] & 0x3f);
		}
		if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
			return i;
		i += need + 1;
	}
	return len;
}

/*
 * inih's reader (fgets-like): one whole line of the text per call, so that
 * inih's line numbers are the file's.  inih keeps num - 1 bytes of a line
 * (num is its INI_MAX_LINE: 200 in Debian's build) and cuts longer ones into
 * several "lines"; here a longer comment or blank line is handed over empty,
 * any other is refused.  Section headers are checked here, since inih tells
 * the handler nothing about a section without keys.
 */
static char *read_line(char *str, int num, void *stream)
{
	struct parse *ps = stream;
	const char *line = ps->p, *nl, *s, *e;
	size_t len;

	if (ps->err_line || ps->p >= ps->end || num < 3)
		return NULL;
	nl = memchr(line, '\n', (size_t)(ps->end - line));
	e = nl ? nl : ps->end;
	ps->p = nl ? nl + 1 : ps->end;
	ps->line++;
	if (e > line && e[-1] == '\r')
		e--;
	len = (size_t)(e - line);
	if ((s = memchr(line, '\0', len))) {   /* not text, even in a comment */
		set_err(ps, "NUL byte at byte %zu of the line", (size_t)(s - line) + 1);
		return NULL;
	}
	s = line;
	if (ps->line == 1 && len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
		s += 3;
	while (s < e && isspace((unsigned char)*s))
		s++;
	if (s == e || *s == ';' || *s == '#') {
		/* blank or a comment: inih ignores it, whatever its length */
		if (len > (size_t)num - 2)
			len = 0;
	} else {
		if (len > (size_t)num - 2) {
			set_err(ps, "line of %zu bytes: at most %d (comments may be longer)", len, num - 2);
			return NULL;
		}
		size_t bad = bad_char(line, len);

		if (bad < len) {
			set_err(ps, "control character or invalid UTF-8 (byte 0x%02x at %zu of the line)",
				(unsigned char)line[bad], bad + 1);
			return NULL;
		}
		if (*s == '[' && section_line(ps, s, e))
			return NULL;
	}
	memcpy(str, line, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	return str;
}

static void defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->host.backend, sizeof(c->host.backend), "%s", host_backends[0]->name);
	c->host.cpus = 8;
	c->host.memory = 2048;
	c->host.dom0_memory = 512;
	snprintf(c->host.tcg, sizeof(c->host.tcg), "%s", TCG_DEFAULT);
	c->host.test_device = 1;
	c->matrix.repetitions = 1;
	c->matrix.order = ORDER_INTERLEAVED;
	c->sections = json_object();
}

static int finish(const char *file, int line, struct parse *ps, char *err, size_t errlen)
{
	struct config *c = ps->c;

	if (line == -2) {
		snprintf(err, errlen, "%s: out of memory", file);
		return -1;
	}
	if (line < 0) {
		snprintf(err, errlen, "%s: cannot read the file", file);
		return -1;
	}
	/* inih's own complaints (no '=') carry no message: the earliest wins. */
	if (ps->err_line && (!line || ps->err_line <= line)) {
		snprintf(err, errlen, "%s:%d: %s", file, ps->err_line, ps->msg);
		return -1;
	}
	if (line > 0) {
		snprintf(err, errlen, "%s:%d: syntax error", file, line);
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
	if (ps->tcg_line && !(host_backend_find(c->host.backend)->flags & HB_EMULATED)) {
		char names[128];

		/* Said where it was written: a real host has no emulator to thread. */
		snprintf(err, errlen, "%s:%d: tcg = %s: only the %s backend emulates (backend = %s)",
			 file, ps->tcg_line, c->host.tcg,
			 host_backend_names(names, sizeof(names), HB_EMULATED), c->host.backend);
		return -1;
	}
	if (ps->test_device_line && !(host_backend_find(c->host.backend)->flags & HB_EMULATED)) {
		char names[128];

		/* A real host's devices are its own. */
		snprintf(err, errlen, "%s:%d: test_device: only the %s backend attaches one "
			 "(backend = %s)", file, ps->test_device_line,
			 host_backend_names(names, sizeof(names), HB_EMULATED), c->host.backend);
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
	/* The job the agent is given passes the agent's check (the same one). */
	json_t *job = config_job(c, 0);
	char e[256];
	int bad = wl_job_check(job, e, sizeof(e));

	json_decref(job);
	if (bad) {
		snprintf(err, errlen, "%s: %s", file, e);
		return -1;
	}
	return 0;
}

/* Parse TEXT (LEN bytes, NUL-terminated) named NAME into c. */
static int parse_text(const char *name, const char *text, size_t len, struct config *c,
		      char *err, size_t errlen)
{
	struct parse ps = { .c = c, .p = text, .end = text + len };
	int line;

	defaults(c);
	ps.seen = json_object();
	c->text = malloc(len + 1);
	if (!c->text || !ps.seen) {
		json_decref(ps.seen);
		config_free(c);
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	memcpy(c->text, text, len + 1);
	c->textlen = len;
	line = ini_parse_stream(read_line, &ps, handler, &ps);
	json_decref(ps.seen);
	if (finish(name, line, &ps, err, errlen)) {
		config_free(c);
		return -1;
	}
	return 0;
}

int config_load(const char *file, struct config *c, char *err, size_t errlen)
{
	char *text;
	size_t len;
	int rc;

	memset(c, 0, sizeof(*c));
	if (sio_read_file(file, SIO_MAX_CONFIG, &text, &len, err, errlen))
		return -1;
	rc = parse_text(file, text, len, c, err, errlen);
	free(text);
	return rc;
}

int config_load_string(const char *name, const char *text, struct config *c,
		       char *err, size_t errlen)
{
	return parse_text(name, text, strlen(text), c, err, errlen);
}

void config_free(struct config *c)
{
	for (unsigned int i = 0; i < c->nwl; i++)
		json_decref(c->wl[i].params);
	c->nwl = 0;
	json_decref(c->sections);
	c->sections = NULL;
	free(c->text);
	c->text = NULL;
	c->textlen = 0;
}

const char *cfg_order_name(enum cfg_order o)
{
	return o == ORDER_RANDOMIZED ? "randomized" : o == ORDER_BLOCKED ? "blocked" : "interleaved";
}

/*
 * The order within each pair of a paired-sender workload ("senders") comes
 * from the run's seed: the workload's own `seed` when the config sets one
 * (not 0), else [matrix] seed mixed with the run's position, so that every
 * boot draws its own order and the same config draws the same orders again.
 */
static void job_seed_pairs(json_t *job, unsigned int matrix_seed, size_t run)
{
	json_t *w;
	size_t k;

	json_array_foreach(json_object_get(job, "workloads"), k, w) {
		json_t *p = json_object_get(w, "params");
		uint64_t z;

		json_t *sd = json_object_get(p, "senders");

		/* "senders" defaults to none (an empty value) */
		if (!(json_is_array(sd) ? json_array_size(sd) :
		      json_is_string(sd) ? json_string_length(sd) : 0) ||
		    json_integer_value(json_object_get(p, "seed")))
			continue;
		/* folded into the param's range 1..2^31-1 */
		z = ipibench_pair_mix(matrix_seed, (uint32_t)run);
		json_object_set_new(p, "seed", json_integer((json_int_t)(z % 0x7ffffffeu) + 1));
	}
}

/*
 * The job the agent runs in boot number RUN of the matrix: every workload of
 * the config, with the trace settings (which the agent core handles) apart
 * from the workload's own parameters.
 */
json_t *config_job(const struct config *c, size_t run)
{
	json_t *job = json_object(), *wls = json_array();

	for (unsigned int i = 0; i < c->nwl; i++) {
		json_t *w = json_object(), *params = json_deep_copy(c->wl[i].params);
		const char *mask = json_string_value(json_object_get(params, "trace"));

		json_object_set_new(w, "name", json_string(c->wl[i].name));
		json_object_set_new(w, "type", json_string(c->wl[i].type->type));
		if (mask && *mask) {
			json_t *t = json_object();

			json_object_set_new(t, "mask", json_string(mask));
			json_object_set(t, "kb", json_object_get(params, "trace_kb"));
			json_object_set_new(w, "trace", t);
		}
		json_object_del(params, "trace");
		json_object_del(params, "trace_kb");
		json_object_set_new(w, "params", params);
		json_array_append_new(wls, w);
	}
	json_object_set_new(job, "workloads", wls);
	job_seed_pairs(job, c->matrix.seed, run);
	return job;
}
