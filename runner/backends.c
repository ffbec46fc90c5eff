/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The host backend registry: one entry per backend in runner/backends/.
 *
 * How to add a backend (as git's builtin.h lists what a builtin needs):
 *
 *  1. Copy runner/backends/skeleton.c to runner/backends/NAME.c; fill in
 *     run() (its contract is in backend.h and the skeleton) and describe(),
 *     and rename the table to backend_NAME with .name = "NAME".  runner.mk
 *     builds every .c file there; shared pure code that unit tests
 *     should reach goes in a header beside it (qemu.h, reboot.h).
 *  2. Say what it is in .flags (backend.h: HB_EMULATED, an emulated host,
 *     results.json says "emulated" and the layout check expects QEMU's
 *     dense CPU numbering; HB_BOOTS_BUILD, it boots host_opts.xen, so a
 *     config may have a [matrix] xen axis) and .describe_key (the
 *     results.json key for describe()'s line).  Nothing else in the runner
 *     looks at a backend's name.
 *  3. Declare it below and add it to host_backends[].  The first entry is a
 *     config's default; config errors list the backends in table order.
 *  4. Settings: the backend's own [host] keys go in its .settings table
 *     (HS_UINT_KEY(), HS_TEXT_KEY(), ... over a struct of its own, with
 *     .settings_size = sizeof it); run() finds that struct in
 *     o->settings.  runner/config.c checks a config against the table and
 *     `ipibench run --list` shows it: nothing else to edit.  A key every
 *     backend needs goes in host_common_settings[] below instead.
 *  5. Tests: runner/tests/test_config.c's test_backends pins the list of
 *     names (update it); unit tests of the backend's own parts go in
 *     runner/tests/test_NAME.c.
 *  6. Docs: the backend's paragraph in docs/design.md ("Hosts"), and
 *     docs/real-hosts.md where it says how to run on such a host.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipibench/modes.h"
#include "runner/backend.h"
#include "runner/util.h"
#include "workloads/workloads.h"
#include "lib/safeio.h"
#include "lib/spawn.h"

extern const struct host_backend_ops backend_qemu;
extern const struct host_backend_ops backend_local;
extern const struct host_backend_ops backend_reboot;

const struct host_backend_ops *const host_backends[] = {
	&backend_qemu,
	&backend_local,
	&backend_reboot,
	NULL
};

const struct host_backend_ops *host_backend_find(const char *name)
{
	for (size_t i = 0; host_backends[i]; i++)
		if (!strcmp(host_backends[i]->name, name))
			return host_backends[i];
	return NULL;
}

/* Backend I is one a list of names asks for: with every flag of FLAGS, or KEY. */
static int listed(size_t i, unsigned int flags, const char *key)
{
	const struct host_backend_ops *be = host_backends[i];

	return key ? host_setting_find(be->settings, key) != NULL : (be->flags & flags) == flags;
}

/* "a, b or c": the listed() backends' names, in table order. */
static const char *names(char *buf, size_t len, unsigned int flags, const char *key)
{
	const char *words[sizeof(host_backends) / sizeof(host_backends[0])];
	size_t k = 0;

	for (size_t i = 0; host_backends[i]; i++)
		if (listed(i, flags, key))
			words[k++] = host_backends[i]->name;
	words[k] = NULL;
	return keys_or_list(buf, len, words);
}

const char *host_backend_names(char *buf, size_t len, unsigned int flags)
{
	return names(buf, len, flags, NULL);
}

const char *host_setting_owners(char *buf, size_t len, const char *key)
{
	return names(buf, len, 0, key);
}

/* ---- [host] settings ----------------------------------------------------- */

/*
 * The keys of every backend.  The defaults that depend on others (maxcpus:
 * cpus; timeout: by cpus; name: BACKEND-NcpuS) are filled in by
 * runner/config.c after the whole [host] section is read.
 */
const struct host_setting host_common_settings[] = {
	HS_UINT_KEY("cpus", struct host_config, cpus, 1, 4096, "8", "physical CPUs present at boot"),
	HS_UINT_KEY("maxcpus", struct host_config, maxcpus, 1, 4096, NULL,
		    "CPUs Xen allows for, the rest hotpluggable (default cpus)"),
	HS_UINT_KEY("timeout", struct host_config, timeout, 10, 86400, NULL,
		    "seconds for a whole boot and job (default 240 + 4 per CPU)"),
	/* From dom0 up on: before it a big boot is quiet for long stretches,
	 * and the timeout covers the boot. */
	HS_UINT_KEY("stall", struct host_config, stall, 0, 86400, "300",
		    "seconds without a console line after dom0 is up that make the run "
		    "stalled: evidence is collected and the host stopped (0: off; qemu only)"),
	{ "name", HS_NAME, HS_FIELD(struct host_config, name), 0, 0, NULL, NULL,
	  "the host's name in results and reports (default BACKEND-Ncpu)", NULL, NULL },
	{ NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL },
};

const struct host_setting *host_setting_find(const struct host_setting *tab, const char *key)
{
	for (const struct host_setting *s = tab; s && s->key; s++)
		if (!strcmp(s->key, key))
			return s;
	return NULL;
}

/* "a or b": S's choices, for messages (as a workload param's). */
static const char *choice_list(const struct host_setting *s, char *buf, size_t len)
{
	return keys_or_list(buf, len, s->choices);
}

const char *cmdline_apic_option(const char *cl, char *buf, size_t len)
{
	for (const char *p = cl; p && *p;) {
		size_t n, k = 0;
		char name[64];

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (!n)
			break;
		/* Xen reads '_' as '-' in option names, and no-NAME as NAME=0;
		 * Linux has nox2apic. */
		for (size_t i = 0; i < n && p[i] != '=' && k + 1 < sizeof(name); i++)
			name[k++] = p[i] == '_' ? '-' : p[i];
		name[k] = '\0';
		const char *bare = !strncmp(name, "no-", 3) ? name + 3 :
				   !strncmp(name, "nox2apic", 8) ? name + 2 : name;
		if (!strncmp(bare, "x2apic", 6) || !strcmp(bare, "apic")) {
			snprintf(buf, len, "%.*s", (int)n, p);
			return buf;
		}
		p += n;
	}
	return NULL;
}

int host_setting_set(const struct host_setting *s, void *settings, const char *v,
		     char *err, size_t errlen)
{
	char *field = (char *)settings + s->offset, q[128], list[128];
	long n;

	switch (s->type) {
	case HS_UINT:
		if (keys_parse_int(s->key, v, 10, s->min, s->max, &n, err, errlen))
			return -1;
		*(unsigned int *)(void *)field = (unsigned int)n;
		return 0;
	case HS_CHOICE:
		for (const char *const *c = s->choices; c && *c; c++)
			if (!strcmp(*c, v)) {
				snprintf(field, s->size, "%s", v);
				return 0;
			}
		snprintf(err, errlen, "%s = %s: expected %s (%s)", s->key, sio_shown(q, sizeof(q), v),
			 choice_list(s, list, sizeof(list)), s->help);
		return -1;
	case HS_NAME:
		if (!sio_name_ok(v) || strlen(v) >= s->size) {
			snprintf(err, errlen, "%s = %s: a host name is letters, digits, '.', '_' and "
				 "'-' (a letter or digit first), at most %zu bytes, no '..'",
				 s->key, sio_shown(q, sizeof(q), v), s->size - 1);
			return -1;
		}
		snprintf(field, s->size, "%s", v);
		return 0;
	case HS_BOOL:
		if (strcmp(v, "true") && strcmp(v, "false")) {
			snprintf(err, errlen, "%s = %s: expected true or false (%s)", s->key,
				 sio_shown(q, sizeof(q), v), s->help);
			return -1;
		}
		*(int *)(void *)field = !strcmp(v, "true");
		return 0;
	case HS_TEXT:
		if (strlen(v) >= s->size) {
			snprintf(err, errlen, "%s: longer than %zu bytes", s->key, s->size - 1);
			return -1;
		}
		if (s->reject && v[strcspn(v, s->reject)]) {
			snprintf(err, errlen, "%s = %s: no '%c' allowed", s->key,
				 sio_shown(q, sizeof(q), v), v[strcspn(v, s->reject)]);
			return -1;
		}
		if (!strcmp(s->key, HS_CMDLINE) && cmdline_apic_option(v, list, sizeof(list))) {
			snprintf(err, errlen, "%s: %s: [matrix] modes chooses the x2APIC mode "
				 "(each run records the one it boots)", s->key,
				 sio_shown(q, sizeof(q), list));
			return -1;
		}
		snprintf(field, s->size, "%s", v);
		return 0;
	}
	snprintf(err, errlen, "%s: a setting of unknown type %d", s->key, (int)s->type);
	return -1;
}

const char *host_setting_text(const struct host_setting *s, const void *settings,
			      char *buf, size_t len)
{
	const char *field = (const char *)settings + s->offset;

	if (s->type == HS_UINT)
		snprintf(buf, len, "%u", *(const unsigned int *)(const void *)field);
	else if (s->type == HS_BOOL)
		snprintf(buf, len, "%s", *(const int *)(const void *)field ? "true" : "false");
	else
		snprintf(buf, len, "%s", field);
	return buf;
}

void host_settings_defaults(const struct host_backend_ops *be, void *settings)
{
	char err[256];

	memset(settings, 0, be->settings_size);
	for (const struct host_setting *s = be->settings; s && s->key; s++)
		if (s->def)   /* host_settings_verify() (a unit test) checked each */
			host_setting_set(s, settings, s->def, err, sizeof(err));
}

void *host_settings_new(const struct host_backend_ops *be)
{
	void *st = calloc(1, be->settings_size ? be->settings_size : 1);

	if (st)
		host_settings_defaults(be, st);
	return st;
}

int host_settings_verify(const struct host_backend_ops *be, char *err, size_t errlen)
{
	void *st;
	int rc = 0;

	if (!be->settings)
		return 0;
	if (!(st = calloc(1, be->settings_size ? be->settings_size : 1))) {
		snprintf(err, errlen, "%s: out of memory", be->name);
		return -1;
	}
	for (const struct host_setting *s = be->settings; !rc && s->key; s++) {
		size_t need = s->type == HS_UINT ? sizeof(unsigned int) :
			      s->type == HS_BOOL ? sizeof(int) : 1;
		char e[256];

		if (!s->help || !*s->help)
			rc = snprintf(err, errlen, "%s: %s has no help", be->name, s->key);
		else if (s->size < need || s->offset + s->size > be->settings_size)
			rc = snprintf(err, errlen, "%s: %s lies outside its settings struct (%zu bytes)",
				      be->name, s->key, be->settings_size);
		else if (s->type == HS_CHOICE && (!s->choices || !s->choices[0]))
			rc = snprintf(err, errlen, "%s: %s has no choices", be->name, s->key);
		else if (host_setting_find(host_common_settings, s->key) || !strcmp(s->key, "backend"))
			rc = snprintf(err, errlen, "%s: %s is a key of every backend", be->name, s->key);
		else if (host_setting_find(s + 1, s->key))
			rc = snprintf(err, errlen, "%s: %s twice", be->name, s->key);
		else if (s->def && host_setting_set(s, st, s->def, e, sizeof(e)))
			rc = snprintf(err, errlen, "%s: the default of %s: %s", be->name, s->key, e);
	}
	free(st);
	return rc ? -1 : 0;
}

const char *host_setting_describe(const struct host_setting *s, char *buf, size_t len)
{
	char list[128];
	int n = snprintf(buf, len, "%s", s->help);

	if (n >= 0 && (size_t)n < len && s->type == HS_UINT)
		n += snprintf(buf + n, len - (size_t)n, ", %ld to %ld", s->min, s->max);
	if (n >= 0 && (size_t)n < len && s->type == HS_BOOL)
		n += snprintf(buf + n, len - (size_t)n, ": true or false");
	if (n >= 0 && (size_t)n < len && s->type == HS_CHOICE)
		n += snprintf(buf + n, len - (size_t)n, ": %s", choice_list(s, list, sizeof(list)));
	if (n >= 0 && (size_t)n < len && s->def)
		snprintf(buf + n, len - (size_t)n, " (default %s)", *s->def ? s->def : "empty");
	return buf;
}

void host_settings_help(FILE *f, const struct host_setting *tab)
{
	char line[512];

	for (const struct host_setting *s = tab; s && s->key; s++)
		fprintf(f, "    %-12s %s\n", s->key, host_setting_describe(s, line, sizeof(line)));
}

const char *mode_genapic(const char *mode)
{
	return ipibench_mode_genapic(mode);
}

const char *mode_list(void)
{
	static char list[128];

	if (!list[0])
		for (size_t i = 0, n = 0; ipibench_mode_name(i); i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
					      ipibench_mode_name(i));
	return list;
}

void host_fail(struct host_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
}

void host_progress(const struct host_opts *o, const char *prefix, const char *fmt, ...)
{
	va_list ap;

	if (o->quiet || !o->progress)
		return;
	fputs(prefix, o->progress);
	va_start(ap, fmt);
	vfprintf(o->progress, fmt, ap);
	va_end(ap);
	fputc('\n', o->progress);
	fflush(o->progress);
}

int host_log_open(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

int host_log_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int host_log_and_pipe(const char *path, int pfd[2], struct host_result *r)
{
	int log = host_log_open(path);

	if (log < 0) {
		host_fail(r, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		host_fail(r, "pipe: %s", strerror(errno));
		close(log);
		return -1;
	}
	return log;
}

void host_describe_real(const char *how, char *buf, size_t len)
{
	char host[256] = "?";

	gethostname(host, sizeof(host) - 1);
	snprintf(buf, len, "real hardware (%s) on %s", how, host);
}

int host_spawn(char *const argv[], int outfd)
{
	return host_spawn_io(argv, -1, outfd, -1);
}

int host_spawn_io(char *const argv[], int infd, int outfd, int keepfd)
{
	struct sio_child c = SIO_CHILD_INIT;

	c.argv = (const char *const *)argv;
	c.in = infd >= 0 ? infd : SIO_CHILD_NULL;
	c.out = outfd;
	c.err_to_out = 1;
	c.keep_fd = keepfd;
	c.die_with_parent = true;
	return sio_child_start(&c) ? -1 : c.pid;
}
