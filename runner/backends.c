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

	return key ? keys_find(be->settings, key) != NULL : (be->flags & flags) == flags;
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

/* The backends' names, for [host] backend's choices. */
static const char *const *backend_names(void)
{
	static const char *names[sizeof(host_backends) / sizeof(host_backends[0])];

	for (size_t i = 0; host_backends[i]; i++)
		names[i] = host_backends[i]->name;
	return names;
}

/* [host] topology = sockets=S,dies=D,cores=C,threads=T. */
static int topology_cb(const struct key *k, void *base, const char *v, void *ctx, char *err,
		       size_t errlen)
{
	struct host_config *hc = base;
	char q[128], e[256];

	(void)ctx;
	if (topo_parse(v, &hc->topo, e, sizeof(e))) {
		snprintf(err, errlen, "%s = %s: %s", k->key, sio_shown(q, sizeof(q), v), e);
		return -1;
	}
	hc->has_topo = true;
	return 0;
}

/* The profiles' names, for [host] profile's choices. */
static const char *const *profile_names(void)
{
	static const char *names[64];

	if (!names[0])
		for (size_t i = 0; topo_profiles[i].name && i < 63; i++)
			names[i] = topo_profiles[i].name;
	return names;
}

/* [host] profile = NAME: one of topo_profiles[] (applied once [host] is read). */
static int profile_cb(const struct key *k, void *base, const char *v, void *ctx, char *err,
		      size_t errlen)
{
	struct host_config *hc = base;
	char q[128], names[256];

	(void)ctx;
	if (!topo_profile_find(v) || strlen(v) >= sizeof(hc->profile)) {
		snprintf(err, errlen, "%s = %s: expected one of %s", k->key, sio_shown(q, sizeof(q), v),
			 topo_profile_names(names, sizeof(names)));
		return -1;
	}
	snprintf(hc->profile, sizeof(hc->profile), "%s", v);
	return 0;
}

/*
 * The keys of every backend.  The defaults that depend on others (maxcpus:
 * cpus; timeout: by cpus; name: BACKEND-NcpuS; cpus and maxcpus by a
 * topology or profile) are filled in by runner/config.c after the whole
 * [host] section is read.  The backend's default is the first of
 * host_backends[] (runner/tests/test_config.c holds them together).
 */
const struct key host_common_settings[] = {
	{ .key = "backend", .type = KEY_CHOICE, .def = "qemu",
	  .help = "where the Xen host comes from: the backends below",
	  .choices_fn = backend_names, KEY_FIELD(struct host_config, backend) },
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
	{ .key = "name", .type = KEY_NAME,
	  .help = "the host's name in results and reports (default BACKEND-Ncpu)",
	  KEY_FIELD(struct host_config, name) },
	{ .key = "topology", .type = KEY_TEXT, .cb = topology_cb,
	  .help = "the CPU topology (QEMU's -smp levels; each gets ceil(log2(count))\n"
		  "bits of the x2APIC ID): maxcpus is their product, cpus defaults to it",
	  .doc_range = "sockets=S,dies=D,cores=C,threads=T", .doc_def = "none: QEMU's dense IDs" },
	{ .key = "profile", .type = KEY_CHOICE, .cb = profile_cb, .choices_fn = profile_names,
	  .help = "a named machine's topology and CPUs, instead of topology\n"
		  "(ipibench run --list describes each)", .doc_def = "none" },
	{ NULL },
};

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

int host_cmdline_cb(const struct key *k, void *base, const char *v, void *ctx, char *err,
		    size_t errlen)
{
	struct key plain = *k;
	char q[128], opt[128];

	if (cmdline_apic_option(v, opt, sizeof(opt))) {
		snprintf(err, errlen, "%s: %s: [matrix] modes chooses the x2APIC mode "
			 "(each run records the one it boots)", k->key, sio_shown(q, sizeof(q), opt));
		return -1;
	}
	plain.cb = NULL;   /* the rest is the text's own rule */
	return keys_set(&plain, base, v, ctx, err, errlen);
}

void host_settings_defaults(const struct host_backend_ops *be, void *settings)
{
	memset(settings, 0, be->settings_size);
	keys_defaults(be->settings, settings);
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
	char e[256];

	if (!be->settings)
		return 0;
	if (keys_verify(be->settings, be->settings_size, e, sizeof(e))) {
		snprintf(err, errlen, "%s: %s", be->name, e);
		return -1;
	}
	for (const struct key *s = be->settings; s->key; s++)
		if (keys_find(host_common_settings, s->key)) {
			snprintf(err, errlen, "%s: %s is a key of every backend", be->name, s->key);
			return -1;
		}
	return 0;
}

void host_settings_help(FILE *f, const struct key *tab)
{
	char line[512];

	for (const struct key *s = tab; s && s->key; s++) {
		const char *p = keys_describe(s, line, sizeof(line));

		for (int first = 1; *p; first = 0) {
			size_t n = strcspn(p, "\n");

			fprintf(f, "    %-12s %.*s\n", first ? s->key : "", (int)n, p);
			p += n + (p[n] == '\n');
		}
	}
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
